#!/usr/bin/env bats
# shellcheck disable=SC2016  # task commands inside JSON are meant to expand in the task, not here
# shellcheck disable=SC2001  # sed over a whole multi-line report
# vx-watch and the replayed run (watch/watch.h, bin/replay.h): an unchanged
# workspace is answered from the last run, and every change, inside the tree
# or outside what vx-watch sees, takes the full run, as a user sees it: what
# ran, what the files hold, whether the summary says "replayed".

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
	export VX_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	unset VX_WATCH
	pkg packages/ui @x/ui '' '{ "tasks": {
		"build": { "exec": { "command": "echo ui >> ../../ran.log && rm -rf dist && cp -r src dist && echo built ui" },
		           "cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["dist/**"] } } } } }'
	put packages/ui/src/lib.txt "lib v1"
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"build": { "exec": { "command": "echo app >> ../../ran.log && mkdir -p out && cat ../ui/dist/lib.txt > out/app.txt && echo \"greeting=$GREETING\" >> out/app.txt && echo built app" },
		           "dependsOn": ["^build"],
		           "cache": { "inputs": { "files": ["src/**"], "env": ["GREETING"] }, "outputs": { "files": ["out/**"] } } } } }'
	put packages/app/src/main.txt "app v1"
}

teardown() {
	pkill -f "vx-watch $WS\$" 2> /dev/null || true
}

ran() { # the tasks that really ran since the last call, sorted, one line
	if [ -f "$WS/ran.log" ]; then sort "$WS/ran.log" | tr '\n' ' ' | sed 's/ $//'; rm -f "$WS/ran.log"; fi
}

replayed() { # the last `run vx run ... --json` was replayed
	[[ ${lines[${#lines[@]} - 1]} == *'"replayed":true'* ]]
}

not_replayed() { # it was not (a function: a bare `! replayed` fails no test)
	if replayed; then
		echo "replayed, where the full run was due: $output" >&2
		return 1
	fi
}

# full_run RAN: the next run is the full one (not replayed), and exactly the
# tasks RAN (sorted, space separated) ran
full_run() {
	run -0 vx run build --json
	not_replayed
	assert_equal "$(ran)" "$1"
}

# never_replayed: a first run, then four more, none replayed (what settle
# would reach by then); then nothing has run
never_replayed() {
	run -0 vx run build
	for _ in 1 2 3 4; do
		run -0 vx run build --json
		not_replayed
	done
	ran > /dev/null
}

# settle: run until a run is replayed (vx-watch starts on the first run, a
# later one is remembered), at most 6 runs; then nothing has run
settle() {
	for _ in 1 2 3 4 5 6; do
		run -0 vx run build --json
		if replayed; then
			ran > /dev/null
			return 0
		fi
		sleep 0.1
	done
	echo "never replayed: $output" >&2
	return 1
}

@test "an unchanged workspace is replayed whole: the same report, every task a hit" {
	settle
	run -0 vx run build
	local replay=$output
	VX_WATCH=0 run -0 vx run build
	assert_equal "$(sed 's/ (*[0-9.]*s)*$//' <<< "$replay")" "$(sed 's/ (*[0-9.]*s)*$//' <<< "$output")"
	assert_line --partial "@x/app#build: built app"
	assert_line --regexp '^hit  @x/app#build '
	assert_line --regexp '^vx: 2 tasks: 2 hit, 0 miss'
	assert_equal "$(ran)" ""
	run -0 vx run build --json
	replayed
	assert_line --regexp '^\{"type":"result","id":"@x/ui#build","status":"hit",'
	assert_line --partial '"log":"built ui\n"'
}

@test "every change under the root takes the full run: an edit, a new file, a new directory, a rename, a deletion" {
	settle
	put packages/ui/src/lib.txt "lib v2"
	full_run "app ui"
	assert_equal "$(head -n 1 packages/app/out/app.txt)" "lib v2"

	settle
	put packages/ui/src/new.txt "new"
	full_run "app ui"

	settle
	put packages/ui/src/deep/er/x.txt "deeper"
	full_run "app ui"
	settle
	echo "deeper v2" > packages/ui/src/deep/er/x.txt # watched since it was made
	full_run "app ui"

	settle
	mv packages/ui/src/deep packages/ui/src/moved
	full_run "app ui"
	settle
	echo "moved v2" > packages/ui/src/moved/er/x.txt # watched at its new path
	full_run "app ui"

	settle
	rm -r packages/ui/src/moved
	full_run "" # src is as it was before deep/ came: that entry's hit
	assert_line --regexp '"id":"@x/ui#build","status":"hit",'
}

@test "a lost event queue (more changes than it holds while vx-watch is stopped) still takes the full run" {
	settle
	local pid
	pid=$(pgrep -f "vx-watch $WS\$")
	kill -STOP "$pid"
	mkdir -p packages/ui/src/many
	(cd packages/ui/src/many && seq 1 "$(($(cat /proc/sys/fs/inotify/max_queued_events) + 100))" | xargs touch)
	kill -CONT "$pid"
	full_run "app ui"
	# and the tree is watched whole again: the next edit is seen
	settle
	echo changed > packages/ui/src/many/1
	full_run "app ui"
}

@test "an output changed, in place or deleted, is restored, not replayed" {
	settle
	# rewritten in place, same size, its mtime put back: only inotify sees it
	touch -r packages/ui/dist/lib.txt "$BATS_TEST_TMPDIR/when"
	printf 'lib v9\n' > packages/ui/dist/lib.txt
	touch -r "$BATS_TEST_TMPDIR/when" packages/ui/dist/lib.txt
	full_run ""
	assert_equal "$(cat packages/ui/dist/lib.txt)" "lib v1"

	settle
	rm -r packages/app/out
	full_run ""
	assert_equal "$(head -n 1 packages/app/out/app.txt)" "lib v1"
	# restored as a link to the checkout's shadow, which is as good as one
	# name: the next unchanged run is replayed; a write through the shadow's
	# name is a write to the output, and takes the full run
	assert_equal "$(stat -c %h packages/app/out/app.txt)" 2
	settle
	local shadow
	shadow=$(find .vx/shadow -samefile packages/app/out/app.txt)
	echo "tampered" > "$shadow"
	full_run ""
	assert_equal "$(head -n 1 packages/app/out/app.txt)" "lib v1"

	settle
	chmod +x packages/ui/dist/lib.txt
	run -0 vx run build --json
	not_replayed
	[ ! -x packages/ui/dist/lib.txt ]
}

@test "what vx-watch cannot see is checked anyway: env inputs, the cache, the programs" {
	settle
	GREETING=hi run -0 vx run build --json
	not_replayed
	assert_equal "$(ran)" "app"
	assert_equal "$(tail -n 1 packages/app/out/app.txt)" "greeting=hi"

	settle
	run -0 vx clean
	full_run "app ui"

	# a new vx-key beside vx: its keys may differ
	cp -a "$VX_BIN_DIR" "$BATS_TEST_TMPDIR/bin"
	for _ in 1 2 3 4 5 6; do
		run -0 "$BATS_TEST_TMPDIR/bin/vx" run build --json
		replayed && break
		sleep 0.1
	done
	replayed
	touch "$BATS_TEST_TMPDIR/bin/vx-key"
	run -0 "$BATS_TEST_TMPDIR/bin/vx" run build --json
	not_replayed
}

@test "a task with runtime inputs is never replayed: their output moves with no file changing" {
	echo "v1" > "$BATS_TEST_TMPDIR/tool-version"
	pkg packages/tool @x/tool '' "{ \"tasks\": {
		\"build\": { \"exec\": { \"command\": \"echo tool >> ../../ran.log\" },
		           \"cache\": { \"inputs\": { \"runtime\": [\"cat $BATS_TEST_TMPDIR/tool-version\"] } } } } }"
	never_replayed
	echo "v2" > "$BATS_TEST_TMPDIR/tool-version"
	run -0 vx run build --json
	assert_equal "$(ran)" "tool"
}

@test "a package.json reached through a symlink is never replayed: its target is not watched" {
	mkdir -p "$BATS_TEST_TMPDIR/outside"
	mv packages/app/package.json "$BATS_TEST_TMPDIR/outside/package.json"
	ln -s "$BATS_TEST_TMPDIR/outside/package.json" packages/app/package.json
	never_replayed
	echo '{ "name": "@x/app", "version": "2.0.0", "dependencies": { "@x/ui": "*" } }' > "$BATS_TEST_TMPDIR/outside/package.json"
	run -0 vx run build --json
	assert_equal "$(ran)" "app"
}

@test "a file with a hard link outside the root is never replayed: a write through that name is no event here" {
	mkdir -p "$BATS_TEST_TMPDIR/outside"
	ln packages/ui/src/lib.txt "$BATS_TEST_TMPDIR/outside/lib.txt"
	never_replayed
	echo "lib v7" >> "$BATS_TEST_TMPDIR/outside/lib.txt"
	run -0 vx run build --json
	assert_equal "$(ran)" "app ui"

	# the same for an output. (A link made while a run is remembered moves
	# no directory's events, only the file's own: it is seen at the next
	# full run, here made by a file added to the tree.)
	rm "$BATS_TEST_TMPDIR/outside/lib.txt"
	settle
	ln packages/app/out/app.txt "$BATS_TEST_TMPDIR/outside/app.txt"
	put notes.txt "an unrelated change"
	for _ in 1 2 3 4; do
		run -0 vx run build --json
		not_replayed
	done
	echo "tampered" > "$BATS_TEST_TMPDIR/outside/app.txt"
	run -0 vx run build --json
	not_replayed
	assert_equal "$(head -n 1 packages/app/out/app.txt)" "lib v1"
	assert_equal "$(ran)" ""
}

@test "a socket that is not this user's vx-watch is not believed" {
	settle
	local tok
	tok=$(sed -n 's/^token\t//p' .vx/run-*)
	pkill -f "vx-watch $WS\$"
	for _ in $(seq 50); do [ ! -S .vx/watch.sock ] && break; sleep 0.1; done
	# an impostor that always answers the remembered token
	/usr/bin/python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
if os.path.exists(".vx/watch.sock"): os.unlink(".vx/watch.sock")
s.bind(".vx/watch.sock"); s.listen(8)
while True:
    c, _ = s.accept()
    try:
        c.recv(16); c.sendall((sys.argv[1] + "\n").encode())
    except OSError:
        pass
    c.close()
' "$tok" 3>&- &
	local fake=$!
	for _ in $(seq 50); do [ -S .vx/watch.sock ] && break; sleep 0.1; done
	put packages/ui/src/lib.txt "lib v3"
	run -0 vx run build --json
	kill "$fake" || true
	not_replayed
	assert_equal "$(ran)" "app ui"
	assert_equal "$(head -n 1 packages/app/out/app.txt)" "lib v3"
}

@test "another checkout's vx-watch, its socket in this .vx, is not believed" {
	# checkout B, a copy of this one, with A's live watcher reachable at
	# B/.vx/watch.sock (a copied or moved .vx): A never changes, so its
	# token stands still while B's input is edited
	local b=$BATS_TEST_TMPDIR/b
	cp -r "$WS" "$b"
	rm -rf "$b/.vx"
	settle
	mkdir "$b/.vx"
	ln .vx/watch.sock "$b/.vx/watch.sock"
	cd "$b" || return 1
	for _ in 1 2 3 4; do
		run -0 vx run build --json
		not_replayed
		# B's own vx-watch replaces the stray socket: keep A's there
		pkill -f "vx-watch $b\$" || true
		for _ in $(seq 50); do pgrep -f "vx-watch $b\$" > /dev/null || break; sleep 0.1; done
		ln -f "$WS/.vx/watch.sock" "$b/.vx/watch.sock"
	done
	rm -f ran.log
	echo "lib v2" > packages/ui/src/lib.txt
	run -0 vx run build --json
	not_replayed
	assert_equal "$(sort ran.log | tr '\n' ' ')" "app ui "
	assert_equal "$(head -n 1 packages/app/out/app.txt)" "lib v2"
	pkill -f "vx-watch $b\$" || true
}

@test "VX_WATCH=0 starts no vx-watch and never replays" {
	export VX_WATCH=0
	for _ in 1 2 3 4; do
		run -0 vx run build --json
		not_replayed
	done
	[ ! -e .vx/watch.sock ]
	run pgrep -f "vx-watch $WS\$"
	assert_failure
}

@test "vx-watch goes away with its workspace, and is not started where it could not watch" {
	settle
	run -0 pgrep -f "vx-watch $WS\$"
	rm -rf "$WS"
	for _ in $(seq 50); do pgrep -f "vx-watch $WS\$" > /dev/null || break; sleep 0.1; done
	run pgrep -f "vx-watch $WS\$"
	assert_failure

	new_ws "$BATS_TEST_TMPDIR/ws2"
	cd "$WS"
	pkg packages/one @x/one '' '{ "tasks": { "build": { "exec": { "command": "true" }, "cache": {} } } }'
	mkdir -p .vx
	echo "vx-watch: unable to watch: test" > .vx/watch-off
	for _ in 1 2 3 4; do
		run -0 vx run build --json
		not_replayed
	done
	[ ! -e .vx/watch.sock ]
}

@test "an idle vx-watch goes after VX_WATCH_IDLE seconds without a query; the next run starts one" {
	export VX_WATCH_IDLE=2
	settle
	run -0 pgrep -f "vx-watch $WS\$"
	for _ in $(seq 100); do pgrep -f "vx-watch $WS\$" > /dev/null || break; sleep 0.1; done
	run pgrep -f "vx-watch $WS\$"
	assert_failure
	[ ! -e .vx/watch-off ]
	settle
}

@test "vx-watch refuses a tree it cannot watch whole, and says why in .vx/watch-off" {
	if [ "$(id -u)" = 0 ]; then
		skip "root reads every directory; the rootless run covers this"
	fi
	mkdir -p packages/ui/locked
	chmod 000 packages/ui/locked
	run -1 vx-watch "$WS"
	chmod 755 packages/ui/locked
	assert_output --partial "unable to watch"
	run -0 cat .vx/watch-off
	assert_output --partial "Permission denied"
}

@test "vx-watch: usage" {
	run -2 vx-watch
	assert_output --partial "usage: vx-watch ROOT"
	run -0 vx-watch --help
	assert_output --partial "usage: vx-watch ROOT"
}
