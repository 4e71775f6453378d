#!/usr/bin/env bats
# shellcheck disable=SC2154  # bats sets $output
# vx run --profile FILE (issue 36 item 4): a Chrome trace of the run, read
# back as its viewers would: the format's rules (tests/trace-check.py), and
# the trace parsed by a real headless browser (Debian's chromium).

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
	export VX_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	# two builds that depend on nothing: with -j 2 they run at once
	pkg packages/a @x/a '' '{ "tasks": { "build": {
		"exec": { "command": "sleep 0.5; echo a > out.txt" },
		"cache": { "outputs": { "files": ["out.txt"] } } } } }'
	pkg packages/b @x/b '' '{ "tasks": { "build": {
		"exec": { "command": "sleep 0.5; echo b" }, "cache": {} } } }'
}

# spans FILE: each task's span, one a line: "ID TID CACHE START END"
spans() {
	/usr/bin/python3 -c '
import json, sys
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e["ph"] == "X" and e.get("cat") == "task":
        print(e["name"], e["tid"], e["args"]["cache"], e["ts"], e["ts"] + e["dur"])
' "$1"
}

@test "--profile: two independent tasks run at once show as overlapping spans on two lanes" {
	run -0 vx run build -j 2 --profile "$WS/trace.json"
	assert_file_exists "$WS/trace.json"
	run -0 spans "$WS/trace.json"
	assert_line --regexp '^@x/a#build [0-9]+ miss '
	assert_line --regexp '^@x/b#build [0-9]+ miss '
	# different lanes, and each starts before the other ends
	read -r _ tid_a _ from_a to_a <<< "$(spans "$WS/trace.json" | grep '^@x/a#build')"
	read -r _ tid_b _ from_b to_b <<< "$(spans "$WS/trace.json" | grep '^@x/b#build')"
	[ "$tid_a" != "$tid_b" ]
	[ "$from_a" -lt "$to_b" ] && [ "$from_b" -lt "$to_a" ]
	# each ran its command inside its span, on its lane
	run -0 /usr/bin/python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
for e in ev:
    if e["ph"] == "X" and e["name"] == "command":
        print("command on", e["tid"])
' "$WS/trace.json"
	assert_line "command on $tid_a"
	assert_line "command on $tid_b"
}

@test "--profile: a hit's span says hit; the second run is not a replay without spans" {
	run -0 vx run build -j 2
	run -0 vx run build -j 2 --profile "$WS/trace.json"
	assert_line --regexp '^hit +@x/a#build'
	run -0 spans "$WS/trace.json"
	assert_line --regexp '^@x/a#build [0-9]+ hit '
	assert_line --regexp '^@x/b#build [0-9]+ hit '
}

@test "--profile: the trace keeps the format's rules, the graph and key phases in it" {
	run -0 vx run build -j 2 --profile "$WS/trace.json"
	run -0 vx run build -j 1 --force --profile "$WS/trace2.json"
	for f in trace.json trace2.json; do
		run -0 "$BATS_TEST_DIRNAME/trace-check.py" "$WS/$f"
		assert_output --regexp '^ok: [0-9]+ events$'
	done
	run -0 /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("unit", d["displayTimeUnit"])
for e in d["traceEvents"]:
    if e["ph"] == "M":
        print("meta", e["name"], e["args"].get("name", ""))
    elif e.get("cat") in ("phase", "run"):
        print("phase", e["name"])
' "$WS/trace.json"
	assert_line "unit ms"
	assert_line "meta process_name vx run"
	assert_line "meta thread_name slot 1"
	assert_line "meta thread_name slot 2"
	assert_line "phase graph"
	assert_line "phase keys and hits"
	assert_line "phase launch"
	assert_line "phase command"
	assert_line "phase save"
	assert_line "phase vx run"
	# the checker itself refuses what breaks the rules
	printf '%s\n' '{"traceEvents":[{"name":"a","ph":"X","pid":1,"tid":1,"ts":0,"dur":-1}]}' > "$WS/bad.json"
	run -1 "$BATS_TEST_DIRNAME/trace-check.py" "$WS/bad.json"
	assert_output --partial 'dur -1'
}

@test "--profile: headless chromium parses the trace and lays the tasks on two lanes" {
	command -v chromium > /dev/null || skip "chromium is not installed (scripts/install-deps.sh)"
	run -0 vx run build -j 2 --profile "$WS/trace.json"
	/usr/bin/python3 -c '
import sys
trace = open(sys.argv[1]).read().replace("<", "\\u003c")
page = open(sys.argv[2]).read().replace("TRACE_JSON", trace)
open(sys.argv[3], "w").write(page)
' "$WS/trace.json" "$BATS_TEST_DIRNAME/fixtures/vx-profile/trace.html" "$WS/page.html"
	run -0 timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$BATS_TEST_TMPDIR/chromium" --dump-dom "file://$WS/page.html"
	assert_line --regexp '^<pre id="result">parsed [0-9]+ events, 0 malformed$'
	assert_line --regexp '^task @x/a#build lane=slot [12] cache=miss '
	assert_line --regexp '^task @x/b#build lane=slot [12] cache=miss '
	# one task a lane
	[[ $output =~ @x/a#build\ lane=(slot\ [12]) ]]
	local lane_a=${BASH_REMATCH[1]}
	[[ $output =~ @x/b#build\ lane=(slot\ [12]) ]]
	[ "$lane_a" != "${BASH_REMATCH[1]}" ]
}

@test "without --profile no trace is written; with it, only FILE" {
	run -0 vx run build -j 2
	# the workspace holds what it held and the task's output, nothing more
	run -0 find . -path ./.vx -prune -o -type f -print
	assert_equal "$(sort <<< "$output" | tr '\n' ' ')" \
		"./package.json ./packages/a/out.txt ./packages/a/package.json ./packages/a/vx.json ./packages/b/package.json ./packages/b/vx.json "
	touch "$BATS_TEST_TMPDIR/mark"
	run -0 vx run build --force --profile "$WS/t.json"
	run -0 find . -path ./.vx -prune -o -type f -newer "$BATS_TEST_TMPDIR/mark" -print
	assert_equal "$(sort <<< "$output" | tr '\n' ' ')" "./packages/a/out.txt ./t.json "
}

@test "--profile in a missing directory: one line, exit 2, nothing run" {
	run -2 vx run build --profile "$WS/no/such/trace.json"
	assert_output "vx: --profile '$WS/no/such/trace.json': no directory '$WS/no/such'; fix: create it, or name a file in an existing directory"
	assert_file_not_exists "$WS/packages/a/out.txt"
	assert_file_not_exists "$WS/no"
	run -2 vx run build --profile "$WS/packages"
	assert_output "vx: --profile '$WS/packages': a directory; fix: name a file, such as $WS/packages/profile.json"
	assert_file_not_exists "$WS/packages/a/out.txt"
}
