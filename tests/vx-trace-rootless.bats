#!/usr/bin/env bats
# vx-trace and vx-report rootless: when the suites run as root, run
# tests/vx-trace.bats and tests/vx-report.bats again as an unprivileged user
# (vxtest, made here if missing), from a world-readable copy of the programs,
# the suites and their fixtures, as tests/vx-sandbox-rootless.bats does.

load helpers

setup_file() {
	if [ "$(id -u)" != 0 ]; then
		return 0
	fi
	if ! id vxtest > /dev/null 2>&1; then
		useradd -M -s /bin/sh vxtest
	fi
	ROOTLESS=$(mktemp -d)
	mkdir -p "$ROOTLESS/bin" "$ROOTLESS/tests/fixtures" "$ROOTLESS/docs/man" "$ROOTLESS/home"
	cp "$VX_BIN_DIR"/vx* "$ROOTLESS/bin/"
	cp "$BATS_TEST_DIRNAME/vx-trace.bats" "$BATS_TEST_DIRNAME/vx-report.bats" \
		"$BATS_TEST_DIRNAME/helpers.bash" "$ROOTLESS/tests/"
	cp -r "$BATS_TEST_DIRNAME/fixtures/report" "$ROOTLESS/tests/fixtures/"
	cp "$BATS_TEST_DIRNAME/../docs/man/vx-report.md" "$ROOTLESS/docs/man/"
	chmod -R a+rX "$ROOTLESS"
	chown vxtest "$ROOTLESS/home"
	export ROOTLESS
}

teardown_file() {
	if [ -n "${ROOTLESS:-}" ]; then
		rm -rf "$ROOTLESS"
	fi
}

@test "the vx-trace and vx-report suites pass as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: the suites already ran unprivileged'
	fi
	# every line shows, so a failing inner test is named in the log
	run runuser -u vxtest -- env -i PATH=/usr/local/bin:/usr/bin:/bin \
		HOME="$ROOTLESS/home" VX_BIN_DIR="$ROOTLESS/bin" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
		bats --tap "$ROOTLESS/tests/vx-trace.bats" "$ROOTLESS/tests/vx-report.bats"
	printf "# rootless: %s\n" "${lines[@]}" >&3
	assert_success
	refute_line --partial 'not ok'
	assert_line --regexp '^1\.\.[0-9]+$'
}
