#!/usr/bin/env bats
# vx, the driver: help, and vx <sub> running vx-<sub> beside itself.

load helpers

@test "vx --help exits 0 and names the commands" {
	run -0 vx --help
	assert_line --index 0 "usage: vx <command> [ARGS...]"
	assert_output --partial "vx graph [TASK...]"
}

@test "vx with no command is a usage error" {
	run -2 vx
	assert_output --partial "usage: vx"
}

@test "vx graph is vx-graph, with its arguments" {
	new_ws
	pkg packages/a @x/a '' '{ "tasks": { "b": { "exec": { "command": "true" } } } }'
	cd "$WS"
	run -0 vx graph @x/a#b
	local via_driver=$output
	run -0 vx-graph @x/a#b
	assert_equal "$via_driver" "$output"
	run -2 vx graph nosuch
	assert_output --partial "vx-graph: no task 'nosuch'"
}

@test "vx finds its stages beside itself, not on PATH" {
	mkdir -p "$BATS_TEST_TMPDIR/elsewhere"
	cp "$VX_BIN_DIR/vx" "$BATS_TEST_TMPDIR/elsewhere/vx"
	printf '#!/bin/sh\necho "beside: $*"\n' > "$BATS_TEST_TMPDIR/elsewhere/vx-hello"
	chmod +x "$BATS_TEST_TMPDIR/elsewhere/vx-hello"
	run -0 "$BATS_TEST_TMPDIR/elsewhere/vx" hello a b
	assert_output "beside: a b"
	run -2 "$BATS_TEST_TMPDIR/elsewhere/vx" graph
	assert_output "vx: 'graph' is not a vx command; see 'vx --help'"
}

@test "an unknown command exits 2" {
	run -2 vx nosuch
	assert_output "vx: 'nosuch' is not a vx command; see 'vx --help'"
}

@test "make install puts every program in PREFIX/bin, and vx finds its stages there" {
	local prefix="$BATS_TEST_TMPDIR/prefix"
	run -0 make -s -C "$BATS_TEST_DIRNAME/.." install PREFIX="$prefix"
	assert_file_executable "$prefix/bin/vx"
	assert_file_executable "$prefix/bin/vx-graph"
	new_ws
	pkg packages/a @x/a '' '{ "tasks": { "b": { "exec": { "command": "true" } } } }'
	cd "$WS"
	run -0 "$prefix/bin/vx" graph @x/a#b
	assert_line --index 1 --partial '"id":"@x/a#b"'
}
