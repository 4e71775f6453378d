#!/usr/bin/env bats
# shellcheck disable=SC2016  # task commands inside JSON are meant to expand in the task, not here
# vx run's output as a user sees it (R-42, issue 22): each line of a running
# task as it comes, prefixed by its id, or grouped per task; the status line
# on a terminal; --output-logs; a hostile task's output still rendered safe
# and in bounded memory. Task ordering is made by sentinel files the tasks
# and the test wait for, never by sleeping.

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
	export VX_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	# a prints a line, then half of one, and waits for the test's go; b
	# runs beside it and waits too
	pkg packages/a @x/a '' '{ "tasks": {
		"build": { "exec": { "command": "echo first; printf half; touch ../../a.half; until [ -e ../../go ]; do sleep 0.05; done; echo \" done\"; echo last" } } } }'
	pkg packages/b @x/b '' '{ "tasks": {
		"build": { "exec": { "command": "echo b says hi; until [ -e ../../go ]; do sleep 0.05; done; echo b ends" } } } }'
}

teardown() {
	touch "$WS/go" # never leave a task waiting
}

# wait_for FILE PATTERN: until a line of FILE matches PATTERN (grep -E),
# at most 20 s; else the test fails, with the tasks let go
wait_for() {
	local _
	for _ in $(seq 400); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	touch "$WS/go"
	fail "no line matching '$2' in $1: $(cat "$1")"
}

# wait_for_file FILE: until it exists, at most 20 s
wait_for_file() {
	local _
	for _ in $(seq 400); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	fail "no $1"
}

@test "--log-order stream: each line shows as the task writes it, prefixed, while the tasks still run" {
	local out=$BATS_TEST_TMPDIR/out
	vx run build -j 2 --log-order stream > "$out" 2>&1 &
	local pid=$!
	wait_for "$out" '^@x/a#build: first$'
	wait_for "$out" '^@x/b#build: b says hi$'
	# both still wait for go: neither has ended, neither line is a report
	refute [ -e go ]
	run -0 cat "$out"
	refute_line --regexp '^(miss|fail|hit ) '
	kill -0 "$pid"
	touch go
	wait "$pid" # vx exits 0
	run -0 cat "$out"
	# the half line was held until its end came, not cut by b's lines
	assert_line '@x/a#build: half done'
	refute_line '@x/a#build: half'
	assert_line '@x/a#build: last'
	assert_line '@x/b#build: b ends'
	assert_line --regexp '^miss @x/a#build [0-9.]+s$'
	assert_line --regexp '^miss @x/b#build [0-9.]+s$'
	# shown once: not again at the task's end
	run -0 grep -c '^@x/a#build: first$' "$out"
	assert_output 1
}

# grouped OUTPUT: a's and b's lines (interleaved in time) each whole just
# before its task's line
grouped() {
	local a b
	a=$(echo "$1" | grep -n '^@x/a#build: a1$' | cut -d: -f1)
	b=$(echo "$1" | grep -n '^@x/b#build: b1$' | cut -d: -f1)
	if [ -z "$a" ] || [ -z "$b" ]; then fail "no a1 or b1 in: $1"; fi
	assert_equal "$(echo "$1" | sed -n "$((a + 1))p")" '@x/a#build: a2'
	assert_regex "$(echo "$1" | sed -n "$((a + 2))p")" '^miss @x/a#build [0-9.]+s$'
	assert_equal "$(echo "$1" | sed -n "$((b + 1))p")" '@x/b#build: b2'
	assert_regex "$(echo "$1" | sed -n "$((b + 2))p")" '^miss @x/b#build [0-9.]+s$'
}

@test "off a terminal, or with --log-order grouped, each task's whole output comes just before its line" {
	# a and b take turns, so streamed lines would alternate
	put packages/a/vx.json '{ "tasks": { "build": { "exec": { "command": "echo a1; touch ../../a1; until [ -e ../../b1 ]; do sleep 0.05; done; echo a2" } } } }'
	put packages/b/vx.json '{ "tasks": { "build": { "exec": { "command": "until [ -e ../../a1 ]; do sleep 0.05; done; echo b1; touch ../../b1; echo b2" } } } }'
	run -0 vx run build -j 2
	grouped "$output"
	command -v script >/dev/null || skip "script(1) is not installed"
	rm a1 b1
	# on a terminal (no status line: TERM=dumb), asked for
	run -0 env TERM=dumb script -qec "vx run build -j 2 --log-order grouped" /dev/null
	grouped "$(tr -d '\r' <<< "$output")"
}

@test "on a terminal the lines stream by default; --log-order grouped groups them there" {
	command -v script >/dev/null || skip "script(1) is not installed"
	local out=$BATS_TEST_TMPDIR/out
	TERM=xterm script -qec "vx run @x/a#build" /dev/null > "$out" 2>&1 &
	local pid=$!
	wait_for "$out" '@x/a#build: first'
	touch go
	wait "$pid"
	rm go
	# grouped: the go comes after the half line was written, so nothing
	# of a can be on screen before a ends
	TERM=xterm script -qec "vx run @x/a#build --log-order grouped" /dev/null > "$out" 2>&1 &
	pid=$!
	wait_for_file a.half
	run -0 cat "$out"
	refute_output --partial '@x/a#build: first'
	touch go
	wait "$pid"
	run -0 cat "$out"
	assert_output --partial '@x/a#build: first'
}

@test "a terminal shows a status line of the tasks done, the hits and the running ones, erased at the end" {
	command -v script >/dev/null || skip "script(1) is not installed"
	touch go
	pkg packages/c @x/c '' '{ "tasks": { "build": { "exec": { "command": "echo c" }, "cache": { "inputs": { "files": ["*.json"] } } } } }'
	run -0 vx run @x/c#build
	run -0 env TERM=xterm script -qec "vx run build -j 1" /dev/null
	# drawn in place, on stderr, with the hit counted
	assert_output --regexp $'\r\e\\[K\\[[0-9]/3 done, 1 hit\\] running: @x/[ab]#build'
	# erased before each line and before the summary, which stands alone
	assert_output --regexp $'\r\e\\[Kvx: 3 tasks: 1 hit, 2 miss, 0 failed, 0 skipped'
	# and never left standing: no status line runs into a line end
	run -1 grep -caP 'hit\][^\r]*\r?$' <<< "$output"
	assert_output 0
	# one row of a narrow terminal, so the erase takes all of it
	run -0 env TERM=xterm script -qec "stty cols 30; vx run build -j 1" /dev/null
	assert_output --partial $'\r\e[K[1/3 done, 1 hit] running: @x\r\e[K'
	run -1 grep -aP '\r\e\[K\[[^\r]{30}' <<< "$output"
	# never with --json, never off a terminal
	run -0 env TERM=xterm script -qec "vx run build --json" /dev/null
	refute_output --partial ' done, '
	run -0 vx run build
	refute_output --partial ' done, '
}

@test "--output-logs: full, new-only, errors-only, hash-only and none, as turbo means them" {
	touch go
	pkg packages/c @x/c '' '{ "tasks": {
		"build": { "exec": { "command": "echo c built" }, "cache": { "inputs": { "files": ["*.json"] } } },
		"bad": { "exec": { "command": "echo c went wrong; exit 4" } } } }'
	# the first run streams; the cache still keeps the whole log
	run -0 vx run @x/c#build --log-order stream
	assert_line '@x/c#build: c built'
	# full (the default): a hit replays its log, a miss and a failure show theirs
	run -1 vx run @x/c#build @x/b#build @x/c#bad -j 1 --output-logs full
	assert_line '@x/c#build: c built'
	assert_line '@x/b#build: b ends'
	assert_line '@x/c#bad: c went wrong'
	# new-only: misses and failures only
	run -1 vx run @x/c#build @x/b#build @x/c#bad -j 1 --output-logs new-only
	refute_line '@x/c#build: c built'
	assert_line '@x/b#build: b ends'
	assert_line '@x/c#bad: c went wrong'
	assert_line --regexp '^hit  @x/c#build '
	# errors-only: failures only, streaming or not
	local order
	for order in grouped stream; do
		run -1 vx run @x/c#build @x/b#build @x/c#bad -j 1 --output-logs errors-only --log-order "$order"
		refute_line '@x/c#build: c built'
		refute_line '@x/b#build: b ends'
		assert_line '@x/c#bad: c went wrong'
		assert_line --regexp '^fail @x/c#bad [0-9.]+s \(exit 4\)$'
	done
	# hash-only: each cached task's key instead of its output
	run -1 vx run @x/c#build @x/b#build @x/c#bad -j 1 --output-logs hash-only
	assert_line --regexp '^@x/c#build: key [0-9a-f]{32}$'
	refute_line --partial 'c built'
	refute_line --partial 'went wrong'
	# none: no task's output; vx's own lines all stay
	run -1 vx run @x/c#build @x/b#build @x/c#bad -j 1 --output-logs none
	refute_line --regexp '^@x/'
	assert_line --regexp '^hit  @x/c#build '
	assert_line --regexp '^miss @x/b#build '
	assert_line --regexp '^fail @x/c#bad '
	assert_line --regexp '^vx: 3 tasks: 1 hit, 1 miss, 1 failed, 0 skipped'
	# a run replayed whole (every task a hit) obeys it too
	run -0 vx run @x/c#build
	run -0 vx run @x/c#build --output-logs none
	refute_line --regexp '^@x/'
	run -0 vx run @x/c#build --output-logs full
	assert_line '@x/c#build: c built'
	# --json is the same whatever is asked of the report
	run -0 vx run @x/c#build --json --output-logs none
	assert_output --partial '"log":"c built\n"'
}

@test "a bad --log-order or --output-logs is refused before anything runs" {
	touch go
	run -2 vx run build --output-logs some
	assert_output "vx: --output-logs 'some': expected one of full, hash-only, new-only, errors-only, none"
	run -2 vx run build --log-order $'\e[2Jx'
	assert_output "vx: --log-order '^[[2Jx': expected one of auto, stream, grouped"
	assert_file_not_exists a.half
}

# streamed_run BYTES: vx run @x/a#build --log-order stream on the hostile
# task below with a BYTES-long line; sets HWM (vx's peak RSS in KiB, read
# while the task still runs) and SPOOLS (its open files in TMPDIR)
streamed_run() {
	# an erase and a carriage return forging a hit line, a title, a cursor
	# move, a colour left on; then BYTES with no line end, then one more
	# line; then it waits, so the test can read vx's peak memory
	put packages/a/vx.json '{ "tasks": { "build": { "exec": { "command": "printf '\''evil\\033[2K\\rhit  @x/b#build 0.01s\\n\\033]0;pwned\\007\\033[1A\\033[31mred\\n'\''; head -c '"$1"' /dev/zero | tr '\''\\0'\'' x; echo; echo after; until [ -e ../../go ]; do sleep 0.05; done" } } } }'
	rm -f go
	# a small head kept (VX_LOG_MAX), so holding the line would show
	mkdir -p "$BATS_TEST_TMPDIR/tmp"
	VX_LOG_MAX=64K TMPDIR="$BATS_TEST_TMPDIR/tmp" vx run @x/a#build --log-order stream > "$out" &
	local pid=$!
	wait_for "$out" '^@x/a#build: after$'
	HWM=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
	# and no spool on disk: the lines were shown as they came
	run -0 find "/proc/$pid/fd" -lname "$BATS_TEST_TMPDIR/tmp/*"
	SPOOLS=$output
	touch go
	wait "$pid" # vx exits 0
}

@test "streamed, a hostile task's escapes are shown not obeyed, and a 10 MB line passes in bounded pieces" {
	local out=$BATS_TEST_TMPDIR/out
	# the same run with a 128 KiB line (two pieces) is the baseline: a
	# machine's own peak (its libraries, transparent huge pages) cancels
	streamed_run 131072
	local base=$HWM
	streamed_run 10485760
	# the same within a few MB here; the line held whole would be 10 MB more
	[ "$((HWM - base))" -lt 6144 ] || fail "vx's peak RSS ${HWM} KiB, ${base} KiB with a 128 KiB line"
	assert_equal "$SPOOLS" ''

	run -0 cat "$out"
	assert_line '@x/a#build: evil^[[2K'
	assert_line '@x/a#build: hit  @x/b#build 0.01s'
	refute_line --regexp '^hit '
	assert_line '@x/a#build: ^[]0;pwned^G^[[1A'$'\e[31mred\e[0m'
	assert_line '@x/a#build: after'
	# nothing but SGR reaches the terminal, and no carriage return
	run -1 grep -caP '\x1b(?!\[[0-9;:]*m)|\r' "$out"
	# every x arrived, each piece a line of its own with the prefix
	run -0 sh -c 'grep "^@x/a#build: x" "$1" | sed "s/^@x\/a#build: //" | tr -d "\n" | wc -c' _ "$out"
	assert_output 10485760
	run -1 sh -c 'grep -v "^@x/a#build: " "$1" | grep -vE "^(miss|vx:) "' _ "$out"
	assert_output ''
	run -0 sh -c 'awk "length > 262144" "$1" | wc -l' _ "$out"
	assert_output 0
}
