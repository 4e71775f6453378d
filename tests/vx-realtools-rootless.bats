#!/usr/bin/env bats
# vx-realtools rootless: when the suites run as root, run
# tests/vx-realtools.bats again as an unprivileged user (vxtest, made here if
# missing), from a world-readable copy of the programs, the suite, its
# install script and fixture. The npm and pnpm installs are made (or found)
# here as root, in the cache the script keeps outside the clone; the inner
# run only copies them out of it (it may not write there), so the trees the
# user's tasks run are readable by that user, as a CI cache would be.

load helpers

setup_file() {
	rootless_prepare vx-realtools.bats realtools-install.sh
	if [ -n "${ROOTLESS:-}" ]; then
		mkdir -p "$ROOTLESS/tests/fixtures"
		cp -r "$BATS_TEST_DIRNAME/fixtures/realtools" "$ROOTLESS/tests/fixtures/"
		local npm pnpm
		npm=$(bash "$BATS_TEST_DIRNAME/realtools-install.sh" npm)
		pnpm=$(bash "$BATS_TEST_DIRNAME/realtools-install.sh" pnpm)
		[ "$(dirname "$npm")" = "$(dirname "$pnpm")" ]
		RT_CACHE=$(dirname "$npm")
		export RT_CACHE
	fi
}

teardown_file() {
	rootless_cleanup
}

@test "the vx-realtools suite passes as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: tests/vx-realtools.bats already ran unprivileged'
	fi
	rootless_bats VX_REALTOOLS_CACHE="$RT_CACHE" -- vx-realtools.bats
}
