#!/usr/bin/env bats
# shellcheck disable=SC2154  # bats sets $output
# vx run --summarize and vx why --summary (issue 36 item 4): the run summary
# a CI dashboard reads, as a user finds it on disk, and the comparison of two.
# tests/vx-summary-rootless.bats reruns it as an unprivileged user.

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
	export VX_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	pkg packages/ui @x/ui '' '{ "tasks": {
		"build": { "exec": { "command": "echo built ui" },
		           "cache": { "inputs": { "files": ["src/**"], "env": ["API_KEY"] } } } } }'
	put packages/ui/src/a.txt "a"
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"build": { "exec": { "command": "echo built app" }, "dependsOn": ["^build"],
		           "cache": { "inputs": { "files": ["src/**"] } } } } }'
	put packages/app/src/a.txt "a"
}

summaries() { # the summaries written, oldest first, one a line
	find "$WS/.vx/runs" -name '*.json' 2> /dev/null | sort
}

last_summary() {
	summaries | tail -n 1
}

# q EXPR [FILE]: a python expression over the last summary (or FILE), s,
# with t its tasks and e its execution, printed as compact JSON
q() {
	/usr/bin/python3 -c '
import json, sys
s = json.load(open(sys.argv[2]))
t, e = s["tasks"], s["execution"]
print(json.dumps(eval(sys.argv[1]), separators=(",", ":")))
' "$1" "${2:-$(last_summary)}"
}

@test "vx run build --summarize writes one valid JSON summary under .vx/runs/ naming each task, its key and inputs" {
	run -0 vx run build --summarize
	assert_equal "$(summaries | wc -l)" 1
	assert_output --partial "vx: run summary: $(last_summary)"
	run -0 python3 -m json.tool "$(last_summary)"
	assert_equal "$(q 's["version"]')" 1
	assert_equal "$(q 's["id"]')" "\"$(basename "$(last_summary)" .json)\""
	assert_equal "$(q 'e["command"]')" '"vx run build --summarize"'
	assert_equal "$(q '[e[k] for k in ("attempted", "cached", "failed", "exitCode")]')" '[2,0,0,0]'
	assert_equal "$(q '[x["taskId"] for x in t]')" '["@x/ui#build","@x/app#build"]'
	assert_equal "$(q '[t[0]["package"], t[0]["task"], t[0]["cache"]["status"], t[0]["cache"]["source"], t[0]["execution"]["exitCode"]]')" \
		'["@x/ui","build","miss","none",0]'
	# the key the run printed, and the input files with their hashes
	run -0 vx run build --output-logs hash-only
	assert_line "@x/ui#build: key $(q 't[0]["hash"]' | tr -d '"')"
	assert_equal "$(q 'sorted(t[0]["inputs"])')" '["src/a.txt"]'
	assert_equal "$(q 'sorted(t[1]["keyInputs"]["deps"])')" '["@x/ui#build"]'
	# timings: an end at or after the start, within the run's
	assert_equal "$(q 't[0]["execution"]["endTime"] >= t[0]["execution"]["startTime"] and t[0]["execution"]["durationMs"] >= 0')" true
	assert_equal "$(q 't[0]["execution"]["startTime"] >= e["startTime"]')" true
}

@test "--summarize: a rerun's tasks are hits from the local cache" {
	run -0 vx run build
	run -0 vx run build --summarize=true
	assert_equal "$(q '[[x["cache"][k] for k in ("status", "source", "local", "remote")] for x in t]')" \
		'[["hit","local",true,false],["hit","local",true,false]]'
	assert_equal "$(q '[e["attempted"], e["cached"]]')" '[2,2]'
	run -0 vx run build --summarize --force
	assert_equal "$(q '[x["cache"]["status"] for x in t]')" '["forced","forced"]'
}

@test "--summarize on a run replayed whole from vx-watch: hits from the replay, no inputs" {
	run -0 vx run build
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		run -0 vx run build --summarize --json
		[[ "$output" == *'"replayed":true'* ]] && break
		sleep 0.2
	done
	assert_output --partial '"replayed":true'
	assert_equal "$(q '[[x["cache"]["status"], x["cache"]["source"], "inputs" in x] for x in t]')" \
		'[["hit","replay",false],["hit","replay",false]]'
	assert_equal "$(q '[e["attempted"], e["cached"]]')" '[2,2]'
}

@test "vx why --summary A B names the input file and env name that moved a key, never the env value" {
	API_KEY=hunter2-secret run -0 vx run build --summarize
	local a
	a=$(last_summary)
	run -1 grep -r hunter2 "$WS/.vx/runs"
	assert_equal "$(q 'len(t[0]["environmentVariables"]["API_KEY"])')" 32
	put packages/ui/src/a.txt "b"
	sleep 0.01 # a later run id, even in the same millisecond
	API_KEY=other run -0 vx run build --summarize
	run -0 vx why --summary "$a" "$(last_summary)"
	assert_line --regexp '^@x/ui#build: key moved from [0-9a-f]{32} to [0-9a-f]{32} \(miss, was miss\)$'
	assert_line "  file changed: src/a.txt"
	assert_line "  env changed: API_KEY"
	assert_line "  dependency key changed: @x/ui#build (see vx why @x/ui#build)"
	refute_output --partial other
	# one file: against the summary before it; none: the last two
	run -0 vx why --summary "$(last_summary)"
	assert_line "  file changed: src/a.txt"
	run -0 vx why --summary
	assert_line "  file changed: src/a.txt"
	# a task only in one of them
	API_KEY=other run -0 vx run @x/ui#build --summarize
	run -0 vx why --summary
	assert_line --regexp '^@x/ui#build: key [0-9a-f]{32} unchanged \(hit, was miss\)$'
	assert_line "@x/app#build: only in the first run (miss)"
}

@test "vx why --summary refuses a file that is not a summary with one line naming it and the fix" {
	echo '{"tasks": 3}' > bad.json
	run -2 vx why --summary bad.json bad.json
	assert_output "vx: bad.json: not a vx run summary (no \"version\" and \"tasks\"); fix: name a file vx run --summarize wrote (<root>/.vx/runs/)"
	run -2 vx why --summary missing.json bad.json
	assert_output "vx: missing.json: No such file or directory; fix: name a file vx run --summarize wrote (<root>/.vx/runs/)"
	run -2 vx why --summary
	assert_output "vx: $WS/.vx/runs: no summaries, two needed; fix: run vx run TASK --summarize twice"
}

@test "--summarize records a failing task's exit code, and the dependent it skipped" {
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "echo no; exit 3" } } } }'
	run -1 vx run build --summarize
	assert_equal "$(q '[t[0]["status"], t[0]["execution"]["exitCode"]]')" '["failed",3]'
	assert_equal "$(q '[t[1]["status"], t[1]["blockedBy"], t[1]["cache"]["status"], t[1]["execution"]]')" \
		'["skipped","@x/ui#build","skipped",null]'
	assert_equal "$(q '[e["exitCode"], e["failed"], e["skipped"]]')" '[1,1,1]'
}

@test "--summarize records a sandboxed task's violation" {
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "echo x > stats.json",
		"sandbox": { "allow": { "read": ["."], "write": ["out.txt"] } } } } } }'
	run -1 vx run @x/ui#build --summarize
	assert_line "SANDBOX VIOLATIONS @x/ui#build"
	assert_equal "$(q '[t[0][k] for k in ("status", "sandboxed", "traced")] + [t[0]["violations"]["count"]]')" \
		'["violation",true,true,1]'
	assert_equal "$(q 't[0]["violations"]["records"][0].startswith("deny file-write packages/ui/stats.json ")')" true
}

@test "--summarize: an interrupted run still writes its summary, the task it stopped interrupted" {
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "touch ../../started; sleep 30" } } } }'
	vx run build --summarize > "$BATS_TEST_TMPDIR/out" 2>&1 &
	local pid=$! i=0 # its output in out, when a test fails
	while [ ! -e started ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
	kill -INT "$pid"
	local rc=0
	wait "$pid" || rc=$?
	assert_equal "$rc" 130
	assert_equal "$(q '[e["exitCode"], e["attempted"], e["success"], e["skipped"]]')" '[130,1,0,1]'
	assert_equal "$(q '[x["status"] for x in t]')" '["interrupted","not-run"]'
}

@test "no summary without --summarize, with --summarize=false, or with --dry" {
	run -0 vx run build
	run -0 vx run build --summarize=false
	run -0 vx run build --dry --summarize
	assert_output --partial "vx: --summarize: a --dry run writes no summary"
	assert_equal "$(summaries | wc -l)" 0
	run -2 vx run build --summarize=yes
	assert_output --partial "vx: --summarize=yes: expected true or false"
}
