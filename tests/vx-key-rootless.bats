#!/usr/bin/env bats
# vx-key rootless: when the suites run as root, run tests/vx-key.bats again
# as an unprivileged user (vxtest, made here if missing), from a
# world-readable copy of the programs, the suite, its fixture and helper, so
# a sandboxed task's runtime commands (run inside its sandbox by vx-key) and
# the linked-package grants hold for a user who has only user namespaces.

load helpers

setup_file() {
	rootless_prepare vx-key.bats
	if [ -n "${ROOTLESS:-}" ]; then
		mkdir -p "$ROOTLESS/tests/fixtures" "$ROOTLESS/docs/man"
		cp -a "$BATS_TEST_DIRNAME/fixtures/vx-key" "$ROOTLESS/tests/fixtures/"
		cp "$BATS_TEST_DIRNAME/../docs/man/vx-key.md" "$ROOTLESS/docs/man/"
	fi
}

teardown_file() {
	rootless_cleanup
}

@test "the vx-key suite passes as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: tests/vx-key.bats already ran unprivileged'
	fi
	rootless_bats -- vx-key.bats
}
