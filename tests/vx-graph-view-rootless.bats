#!/usr/bin/env bats
# vx graph --dot and --html rootless: when the suites run as root, run
# tests/vx-graph-view.bats again as an unprivileged user (vxtest, made here
# if missing), from a world-readable copy of the programs, the suite and its
# helper: the outcomes a plain user's runs keep (a sandbox violation among
# them) are the ones drawn, and headless chromium reads the page as that user.

load helpers

setup_file() {
	rootless_prepare vx-graph-view.bats
	if [ -n "${ROOTLESS:-}" ]; then
		# its --help test reads the manual
		mkdir -p "$ROOTLESS/docs/man"
		cp "$BATS_TEST_DIRNAME/../docs/man/vx.md" "$ROOTLESS/docs/man/"
	fi
}

teardown_file() {
	rootless_cleanup
}

@test "the vx graph view suite passes as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: tests/vx-graph-view.bats already ran unprivileged'
	fi
	rootless_bats -- vx-graph-view.bats
	refute_line --partial '# skip'
}
