#!/usr/bin/env bats
# vx-adopt rootless: when the suites run as root, run tests/vx-adopt.bats
# again as an unprivileged user (vxtest, made here if missing), from a
# world-readable copy of the programs, the suite, bench/adopt.sh, the install
# script and the tsdown fixture. The install is made (or found) here as root
# in the cache the script keeps outside the clone; the inner run only copies
# it out (it may not write there).

load helpers

setup_file() {
	rootless_prepare vx-adopt.bats realtools-install.sh
	if [ -n "${ROOTLESS:-}" ]; then
		mkdir -p "$ROOTLESS/tests/fixtures" "$ROOTLESS/bench"
		cp -r "$BATS_TEST_DIRNAME/fixtures/tsdown" "$ROOTLESS/tests/fixtures/"
		cp "$BATS_TEST_DIRNAME/../bench/adopt.sh" "$ROOTLESS/bench/"
		RT_CACHE=$(dirname "$(bash "$BATS_TEST_DIRNAME/realtools-install.sh" tsdown)")
		export RT_CACHE
	fi
}

teardown_file() {
	rootless_cleanup
}

@test "the vx-adopt suite passes as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: tests/vx-adopt.bats already ran unprivileged'
	fi
	rootless_bats VX_REALTOOLS_CACHE="$RT_CACHE" -- vx-adopt.bats
	refute_line --partial '# skip'
}
