#!/usr/bin/env bats
# vx init rootless: when the suites run as root, run tests/vx-init.bats
# again as an unprivileged user (vxtest, made here if missing), from a
# world-readable copy of the programs, the suite, its fixtures and its
# manual: vx init --sandbox runs tasks under vx-sandbox, which must work
# rootless as it does as root.

load helpers

setup_file() {
	rootless_prepare vx-init.bats
	if [ -n "${ROOTLESS:-}" ]; then
		mkdir -p "$ROOTLESS/tests/fixtures" "$ROOTLESS/docs/man"
		cp -r "$BATS_TEST_DIRNAME/fixtures/vx-init" "$ROOTLESS/tests/fixtures/"
		cp "$BATS_TEST_DIRNAME/../docs/man/vx-init.md" "$ROOTLESS/docs/man/"
	fi
}

teardown_file() {
	rootless_cleanup
}

@test "the vx-init suite passes as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: the suite already ran unprivileged'
	fi
	rootless_bats -- vx-init.bats
}
