#!/usr/bin/env bats
# vx-sandbox rootless: when the suites run as root, run tests/vx-sandbox.bats
# again as an unprivileged user (vxtest, made here if missing), from a
# world-readable copy of the programs, the suite and its helper, so the same
# checks hold for a user who has only user namespaces. A setuid-root copy of
# the attack helper lets that run show a setuid binary gains nothing.

load helpers

setup_file() {
	rootless_prepare vx-sandbox.bats
	if [ -n "${ROOTLESS:-}" ]; then
		mkdir -p "$ROOTLESS/help" "$ROOTLESS/tests/fixtures/vx-sandbox" "$ROOTLESS/docs/man"
		cp "$BATS_TEST_DIRNAME/fixtures/vx-sandbox/attack.c" "$ROOTLESS/tests/fixtures/vx-sandbox/"
		cp "$BATS_TEST_DIRNAME/../docs/man/vx-sandbox.md" "$ROOTLESS/docs/man/"
		cc -O1 -o "$ROOTLESS/help/attack" "$BATS_TEST_DIRNAME/fixtures/vx-sandbox/attack.c"
		cp "$ROOTLESS/help/attack" "$ROOTLESS/help/attack-suid"
		chmod 4755 "$ROOTLESS/help/attack-suid"
	fi
}

teardown_file() {
	rootless_cleanup
}

@test "the vx-sandbox suite passes as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: tests/vx-sandbox.bats already ran unprivileged'
	fi
	rootless_bats VX_SANDBOX_HELP="$ROOTLESS/help" -- vx-sandbox.bats
}
