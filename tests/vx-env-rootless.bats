#!/usr/bin/env bats
# The environment as an input, rootless: when the suites run as root, run
# tests/vx-env.bats again as an unprivileged user (vxtest, made here if
# missing), from a world-readable copy of the programs, the suite and its
# helper: vx-sandbox applies the task's policy for a plain user too.

load helpers

setup_file() {
	rootless_prepare vx-env.bats
}

teardown_file() {
	rootless_cleanup
}

@test "the vx env suite passes as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: tests/vx-env.bats already ran unprivileged'
	fi
	rootless_bats -- vx-env.bats
	refute_line --partial '# skip'
}
