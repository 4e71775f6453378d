#!/usr/bin/env bats
# vx run's sandboxed tasks rootless: when the suites run as root, run
# tests/vx-run-sandbox.bats again as an unprivileged user (vxtest, made here
# if missing), from a world-readable copy of the programs, the suite and its
# helper: the cache a relative VX_CACHE_DIR names stays guarded and vx's
# variables stay out of the tasks for a plain user too.

load helpers

setup_file() {
	rootless_prepare vx-run-sandbox.bats
}

teardown_file() {
	rootless_cleanup
}

@test "the vx run sandbox suite passes as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: tests/vx-run-sandbox.bats already ran unprivileged'
	fi
	rootless_bats -- vx-run-sandbox.bats
	refute_line --partial '# skip'
}
