#!/usr/bin/env bats
# vx-trace and vx-report rootless: when the suites run as root, run
# tests/vx-trace.bats and tests/vx-report.bats again as an unprivileged user
# (vxtest, made here if missing), from a world-readable copy of the programs,
# the suites and their fixtures, as tests/vx-sandbox-rootless.bats does.

load helpers

setup_file() {
	rootless_prepare vx-trace.bats vx-report.bats
	if [ -n "${ROOTLESS:-}" ]; then
		mkdir -p "$ROOTLESS/tests/fixtures" "$ROOTLESS/docs/man"
		cp -r "$BATS_TEST_DIRNAME/fixtures/report" "$ROOTLESS/tests/fixtures/"
		cp "$BATS_TEST_DIRNAME/../docs/man/vx-report.md" "$ROOTLESS/docs/man/"
	fi
}

teardown_file() {
	rootless_cleanup
}

@test "the vx-trace and vx-report suites pass as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: the suites already ran unprivileged'
	fi
	rootless_bats -- vx-trace.bats vx-report.bats
}
