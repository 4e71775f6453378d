#!/usr/bin/env bats
# vx-watch rootless: when the suites run as root, run tests/vx-watch.bats
# again as an unprivileged user (vxtest, made here if missing), from a
# world-readable copy of the programs, the suite and its helper: the
# watcher, its socket checks and the replayed run hold for a plain user too.

load helpers

setup_file() {
	rootless_prepare vx-watch.bats
}

teardown_file() {
	rootless_cleanup
}

@test "the vx-watch suite passes as an unprivileged user" {
	if [ "$(id -u)" != 0 ]; then
		skip 'not root: tests/vx-watch.bats already ran unprivileged'
	fi
	rootless_bats -- vx-watch.bats
	refute_line --partial '# skip'
}

@test "another user's vx-watch is not believed" {
	if [ "$(id -u)" != 0 ]; then
		skip 'needs root to act as two users'
	fi
	new_ws "$ROOTLESS/ws"
	pkg packages/ui @x/ui '' '{ "tasks": {
		"build": { "exec": { "command": "echo ui >> ../../ran.log && cat src/lib.txt > out.txt" },
		           "cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["out.txt"] } } } } }'
	put packages/ui/src/lib.txt "lib v1"
	# vxtest's real vx-watch, watching a tree of its own, its socket put
	# where root's vx will look: its tokens never move with this workspace
	mkdir -p "$ROOTLESS/other" "$WS/.vx"
	chown vxtest "$ROOTLESS/other"
	runuser -u vxtest -- "$ROOTLESS/bin/vx-watch" "$ROOTLESS/other" 3>&- &
	for _ in $(seq 50); do [ -S "$ROOTLESS/other/.vx/watch.sock" ] && break; sleep 0.1; done
	mv "$ROOTLESS/other/.vx/watch.sock" "$WS/.vx/watch.sock"
	for _ in 1 2 3 4; do
		run -0 "$ROOTLESS/bin/vx" run build --json --root "$WS"
		refute_output --partial '"replayed":true'
	done
	rm -f "$WS/ran.log"
	put packages/ui/src/lib.txt "lib v2"
	run -0 "$ROOTLESS/bin/vx" run build --json --root "$WS"
	refute_output --partial '"replayed":true'
	assert_equal "$(cat "$WS/ran.log")" "ui"
	assert_equal "$(cat "$WS/packages/ui/out.txt")" "lib v2"
	pkill -u vxtest -f "vx-watch $ROOTLESS/other\$" || true
}
