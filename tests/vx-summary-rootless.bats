#!/usr/bin/env bats
# vx run --summarize rootless: when the suites run as root, run
# tests/vx-summary.bats again as an unprivileged user (vxtest, made here if
# missing), from a world-readable copy of the programs, the suite and its
# helper: the summary of a sandboxed task, its violation included, is the
# same for a plain user.

load helpers

setup_file() {
	rootless_prepare vx-summary.bats
}

teardown_file() {
	rootless_cleanup
}

@test "the vx run --summarize suite passes as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: tests/vx-summary.bats already ran unprivileged'
	fi
	rootless_bats -- vx-summary.bats
	refute_line --partial '# skip'
}
