#!/usr/bin/env bats
# shellcheck disable=SC2016  # task commands inside JSON are meant to expand in the task, not here
# vx watch (bin/watchrun.h): the tasks run once, then again on each change
# vx-watch sees, as a user sees it: which tasks really ran (ran.log), the
# report lines, the server's pid, the exit code. Every wait is a bounded poll
# of a condition; the report, ran.log and the tests' sentinels live outside
# the watched tree (a file written inside it is a change of its own).

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
	export VX_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	unset VX_WATCH
	T=$BATS_TEST_TMPDIR
	OUT=$T/out
	WPID=
	local p
	for p in a b; do
		pkg "packages/$p" "@x/$p" '' '{ "tasks": {
			"build": { "exec": { "command": "echo '"$p"' >> '"$T"'/ran.log; mkdir -p dist; cp src/in.txt dist/out.txt" },
			           "cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["dist/**"] } } } } }'
		put "packages/$p/src/in.txt" "$p v1"
	done
}

teardown() {
	if [ -n "$WPID" ]; then
		kill -TERM "$WPID" 2> /dev/null || true
		until_true 10 eval '! kill -0 '"$WPID"' 2> /dev/null' || kill -KILL "$WPID" 2> /dev/null || true
	fi
	if [ -f "$T/server.pids" ]; then
		xargs kill -KILL < "$T/server.pids" 2> /dev/null || true
	fi
	pkill -f "vx-watch $WS\$" 2> /dev/null || true
}

ran() { # the tasks that really ran since the last call, sorted, one line
	if [ -f "$T/ran.log" ]; then sort "$T/ran.log" | tr '\n' ' ' | sed 's/ $//'; rm -f "$T/ran.log"; fi
}

# watch ARGS...: vx watch in the background, its report in $OUT
watch() {
	vx watch "$@" > "$OUT" 2>&1 3>&- &
	WPID=$!
}

# settled N: until the report says N times that it waits for changes, at
# most 30 s (the machine may be loaded)
settled() {
	local _
	for _ in $(seq 600); do
		[ "$(grep -c '^vx watch: watching for changes' "$OUT")" -ge "$1" ] && return 0
		kill -0 "$WPID" 2> /dev/null || fail "vx watch ended: $(cat "$OUT")"
		sleep 0.05
	done
	fail "not settled $1 times: $(cat "$OUT")"
}

# ends_with CODE: vx watch exits within 30 s, with CODE
ends_with() {
	until_true 30 eval '! kill -0 '"$WPID"' 2> /dev/null' || fail "vx watch still runs"
	local rc=0
	wait "$WPID" || rc=$?
	WPID=
	assert_equal "$rc" "$1"
}

# until_true SECONDS COMMAND...: poll COMMAND every 50 ms for SECONDS
until_true() {
	local n=$(($1 * 20)) _
	shift
	for _ in $(seq "$n"); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

@test "an edit reruns the task it affects; the others are hits" {
	watch build
	settled 1
	assert_equal "$(ran)" "a b"
	echo "a v2" > packages/a/src/in.txt
	settled 2
	assert_equal "$(ran)" "a"
	assert_equal "$(cat packages/a/dist/out.txt)" "a v2"
	run -0 cat "$OUT"
	assert_line "vx watch: change seen, rerunning 2 tasks"
	assert_line --regexp '^miss @x/a#build '
	assert_line --regexp '^hit  @x/b#build '
	# b never ran again: its only miss is the first run's
	assert_equal "$(grep -c '^miss @x/b#build' "$OUT")" 1
}

@test "two quick edits give one rerun, and a change made during a run one more after it" {
	watch build
	settled 1
	ran > /dev/null
	echo "a v2" > packages/a/src/in.txt
	echo "a v3" > packages/a/src/in.txt
	settled 2
	assert_equal "$(ran)" "a"
	assert_equal "$(cat packages/a/dist/out.txt)" "a v3"
	assert_equal "$(grep -c '^miss @x/a#build' "$OUT")" 2
	# an edit while a task runs is not lost: b waits for the test's go
	put packages/b/vx.json '{ "tasks": { "build": { "exec": { "command": "echo b >> '"$T"'/ran.log; touch '"$T"'/b.running; until [ -e '"$T"'/go ]; do sleep 0.05; done; rm -f '"$T"'/go; mkdir -p dist; cp src/in.txt dist/out.txt" },
		"cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["dist/**"] } } } } }'
	until_true 30 test -e "$T/b.running" || fail "b did not start: $(cat "$OUT")"
	echo "a v4" > packages/a/src/in.txt
	touch "$T/go"
	until_true 30 grep -qx "a v4" packages/a/dist/out.txt || fail "a v4 not built: $(cat "$OUT")"
	settled 3
	assert_equal "$(ran)" "a b"
}

@test "a persistent task keeps its pid across reruns, and SIGTERM stops it with 143" {
	pkg packages/s @x/s '' '{ "tasks": {
		"dev": { "exec": { "command": "echo $$ >> '"$T"'/server.pids; echo serving; exec sleep 300", "persistent": true } } } }'
	watch build @x/s#dev
	settled 1
	until_true 30 test -s "$T/server.pids" || fail "no server: $(cat "$OUT")"
	local pid
	pid=$(cat "$T/server.pids")
	echo "a v2" > packages/a/src/in.txt
	settled 2
	echo "b v2" > packages/b/src/in.txt
	settled 3
	assert_equal "$(ran)" "a a b b"
	# started once, the same process all along
	assert_equal "$(cat "$T/server.pids")" "$pid"
	kill -0 "$pid"
	assert_equal "$(grep -c '^up   @x/s#dev' "$OUT")" 1
	run -0 cat "$OUT"
	assert_line "vx watch: change seen, rerunning 2 tasks"
	# a rerun's summary counts its own tasks, not the server it left alone
	assert_equal "$(grep -c '^vx: 3 tasks' "$OUT")" 1
	[ "$(grep -c '^vx: 2 tasks' "$OUT")" -ge 2 ]
	kill -TERM "$WPID"
	ends_with 143
	# no task left running: the server is gone (or a zombie of no one's)
	until_true 5 eval '[ ! -e /proc/'"$pid"' ] || grep -q "^State:.*Z" /proc/'"$pid"'/status' ||
		fail "the server $pid still runs"
	run pgrep -f "vx watch build"
	assert_failure
}

@test "SIGTERM during a run stops its task and ends vx watch with 143" {
	put packages/b/vx.json '{ "tasks": { "build": { "exec": { "command": "echo $$ >> '"$T"'/server.pids; exec sleep 300" } } } }'
	watch build
	until_true 30 test -s "$T/server.pids" || fail "b did not start: $(cat "$OUT")"
	local pid
	pid=$(cat "$T/server.pids")
	kill -TERM "$WPID"
	ends_with 143
	run -0 cat "$OUT"
	assert_line --partial "interrupted by SIGTERM"
	until_true 5 eval '[ ! -e /proc/'"$pid"' ] || grep -q "^State:.*Z" /proc/'"$pid"'/status' ||
		fail "the task $pid still runs"
}

@test "outputs the tasks write do not retrigger the loop" {
	# a writes its output and a file beside the root's ran.log at every
	# miss: each run moves the token by its own writes
	watch build
	settled 1
	echo "a v2" > packages/a/src/in.txt
	settled 2
	local runs
	runs=$(grep -c '^vx watch: change seen' "$OUT")
	# settled: the rerun after the one that wrote was all hits in place
	run -0 cat "$OUT"
	refute_line --partial "keep changing files"
	# and it stays settled: no further rerun comes while nothing is edited
	# (a quiet window, not an order between events)
	sleep 2
	assert_equal "$(grep -c '^vx watch: change seen' "$OUT")" "$runs"
	assert_equal "$(ran)" "a a b"
}

@test "a failing rerun does not end the watch; the next edit is run" {
	watch build
	settled 1
	put packages/a/vx.json '{ "tasks": { "build": { "exec": { "command": "echo a >> '"$T"'/ran.log; exit 3" },
		"cache": { "inputs": { "files": ["src/**"] } } } } }'
	settled 2
	run -0 cat "$OUT"
	assert_line --regexp '^fail @x/a#build '
	kill -0 "$WPID"
	put packages/a/vx.json '{ "tasks": { "build": { "exec": { "command": "echo a >> '"$T"'/ran.log; mkdir -p dist; cp src/in.txt dist/out.txt" },
		"cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["dist/**"] } } } } }'
	echo "a v9" > packages/a/src/in.txt
	settled 3
	assert_equal "$(cat packages/a/dist/out.txt)" "a v9"
}

@test "refused: --force, --no-cache, --dry; no task; a first run refused ends it with 2" {
	run -2 vx watch build --force
	assert_output --partial "vx watch: --force is not for watching"
	run -2 vx watch --no-cache build
	run -2 vx watch --dry build
	# turbo's spellings of the same (issue 36)
	run -2 vx watch --dry=json build
	assert_output --partial "vx watch: --dry=json is not for watching"
	run -2 vx watch build --cache=local:
	run -2 vx watch build --cache remote:r
	run -2 vx watch
	assert_output --partial "name a task to watch"
	put packages/a/vx.json '{ "tasks": { "build": { "exec": { "command": "true" }, "cache": { "outputs": ["dist"] } } } }'
	run -2 timeout 30 vx watch build
	assert_output --partial "packages/a/vx.json"
	# with no vx-watch to be had the refusal is the same
	run -2 env VX_WATCH=0 timeout 30 vx watch build
	assert_output --partial "packages/a/vx.json"
	refute_output --partial "no token"
	# and a good config runs once, then says why it cannot watch
	put packages/a/vx.json '{ "tasks": { "build": { "exec": { "command": "echo a >> '"$T"'/ran.log" } } } }'
	run -1 env VX_WATCH=0 timeout 30 vx watch @x/a#build
	assert_output --partial "vx-watch gives no token"
	assert_equal "$(cat "$T/ran.log")" "a"
}

@test "vx watch --help and vx --help name it; the program vx-watch still answers" {
	run -0 vx watch --help
	assert_line --index 0 "usage: vx watch TASK... [vx run's options]"
	grep -qF -- "    ${lines[0]#usage: }" "$BATS_TEST_DIRNAME/../docs/man/vx.md"
	assert_output --partial "Exit status: 2 refused"
	run -0 vx --help
	assert_output --partial "vx watch TASK..."
	run -0 vx-watch --help
	assert_line --index 0 "usage: vx-watch ROOT"
}
