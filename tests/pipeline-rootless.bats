#!/usr/bin/env bats
# pipeline rootless: when the suites run as root, run tests/pipeline.bats
# again as an unprivileged user (vxtest, made here if missing), from a
# world-readable copy of the programs, the suite, its helper, the page it
# runs (docs/pipeline.md), the manual page it checks and the example
# workspace, so the stages composed by hand hold for a user who has only
# user namespaces, as vx run's tasks do.

load helpers

setup_file() {
	rootless_prepare pipeline.bats
	if [ -n "${ROOTLESS:-}" ]; then
		mkdir -p "$ROOTLESS/docs/man"
		cp "$BATS_TEST_DIRNAME/../docs/pipeline.md" "$ROOTLESS/docs/"
		cp "$BATS_TEST_DIRNAME/../docs/man/vx-pick.md" "$ROOTLESS/docs/man/"
		cp -r "$BATS_TEST_DIRNAME/../examples" "$ROOTLESS/examples"
		rm -rf "$ROOTLESS/examples/.vx" "$ROOTLESS"/examples/packages/*/dist
		chmod -R a+rX "$ROOTLESS"
	fi
}

teardown_file() {
	rootless_cleanup
}

@test "the pipeline suite passes as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: tests/pipeline.bats already ran unprivileged'
	fi
	rootless_bats -- pipeline.bats
}
