#!/usr/bin/env bats
# vx-sandbox rootless: when the suites run as root, run tests/vx-sandbox.bats
# again as an unprivileged user (vxtest, made here if missing), from a
# world-readable copy of the programs, the suite and its helper, so the same
# checks hold for a user who has only user namespaces. A setuid-root copy of
# the attack helper lets that run show a setuid binary gains nothing.

load helpers

setup_file() {
	if [ "$(id -u)" != 0 ]; then
		return 0
	fi
	if ! id vxtest > /dev/null 2>&1; then
		useradd -M -s /bin/sh vxtest
	fi
	ROOTLESS=$(mktemp -d)
	mkdir -p "$ROOTLESS/bin" "$ROOTLESS/help" "$ROOTLESS/tests/fixtures/vx-sandbox" "$ROOTLESS/home"
	cp "$VX_BIN_DIR/vx-sandbox" "$VX_BIN_DIR/vx-graph" "$ROOTLESS/bin/"
	cp "$BATS_TEST_DIRNAME/vx-sandbox.bats" "$BATS_TEST_DIRNAME/helpers.bash" "$ROOTLESS/tests/"
	cp "$BATS_TEST_DIRNAME/fixtures/vx-sandbox/attack.c" "$ROOTLESS/tests/fixtures/vx-sandbox/"
	mkdir -p "$ROOTLESS/docs/man"
	cp "$BATS_TEST_DIRNAME/../docs/man/vx-sandbox.md" "$ROOTLESS/docs/man/"
	cc -O1 -o "$ROOTLESS/help/attack" "$BATS_TEST_DIRNAME/fixtures/vx-sandbox/attack.c"
	cp "$ROOTLESS/help/attack" "$ROOTLESS/help/attack-suid"
	chmod -R a+rX "$ROOTLESS"
	chmod 4755 "$ROOTLESS/help/attack-suid"
	chown vxtest "$ROOTLESS/home"
	export ROOTLESS
}

teardown_file() {
	if [ -n "${ROOTLESS:-}" ]; then
		rm -rf "$ROOTLESS"
	fi
}

@test "the vx-sandbox suite passes as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: tests/vx-sandbox.bats already ran unprivileged'
	fi
	# every line shows, so a failing inner test is named in the log
	run runuser -u vxtest -- env -i PATH=/usr/local/bin:/usr/bin:/bin \
		HOME="$ROOTLESS/home" VX_BIN_DIR="$ROOTLESS/bin" VX_SANDBOX_HELP="$ROOTLESS/help" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
		bats --tap "$ROOTLESS/tests/vx-sandbox.bats"
	printf "# rootless: %s\n" "${lines[@]}" >&3
	assert_success
	refute_line --partial 'not ok'
	assert_line --regexp '^1\.\.[0-9]+$'
}
