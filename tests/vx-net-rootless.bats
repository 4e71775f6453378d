#!/usr/bin/env bats
# The vx-net suite again, every vx run of it as the unprivileged user vxtest
# (the origin's network namespace still needs root, so the suite itself runs
# as root and only vx drops to vxtest: VX_NET_USER).
# bats file_tags=net

load helpers

setup_file() {
	if [ "$(id -u)" = 0 ] && ! id vxtest > /dev/null 2>&1; then
		useradd -M -s /bin/sh vxtest
	fi
}

@test "the vx-net suite passes with vx run as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'needs root to make the origin network namespace and to become vxtest'
	fi
	# every line shows, so a failing inner test is named in the log
	run env VX_NET_USER=vxtest VX_BIN_DIR="$VX_BIN_DIR" bats --tap "$BATS_TEST_DIRNAME/vx-net.bats"
	printf "# rootless: %s\n" "${lines[@]}" >&3
	assert_success
	refute_line --partial 'not ok'
	refute_line --partial '# skip'
	assert_line --regexp '^1\.\.[0-9]+$'
}
