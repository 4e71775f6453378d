#!/usr/bin/env bats
# The stages composed by hand (issue 21 item 3): docs/pipeline.md's commands
# run on a copy of examples/, and do what the page says.

load helpers

DOC="$BATS_TEST_DIRNAME/../docs/pipeline.md"

setup() {
	WS=$BATS_TEST_TMPDIR/examples
	cp -r "$BATS_TEST_DIRNAME/../examples" "$WS"
	rm -rf "$WS/.vx" "$WS"/packages/*/dist
	PATH=$VX_BIN_DIR:$PATH
}

# doc_cmd TEXT: docs/pipeline.md shows "$ TEXT" as a command; run it in the
# example workspace, stdout and stderr apart (bats' run merges them).
doc_cmd() {
	grep -qxF -- "    \$ $1" "$DOC" || fail "docs/pipeline.md does not show: \$ $1"
	run --separate-stderr bash -o pipefail -c "cd '$WS' && $1"
}

@test "docs/pipeline.md: graph | key | pick | sandbox | report fails the task a grant short, as the page shows" {
	doc_cmd 'vx-graph version | vx-key | vx-pick @ex/app#version | vx-sandbox --request - --trace - | vx-report'
	assert_equal "$status" 1
	local line
	while IFS= read -r line; do # every record line of the page's example is in the output
		case $line in
		'    {"type":"verdict","v":1,"id":"@ex/app#version"'*) assert_line "${line#    }" ;;
		esac
	done < "$DOC"
	assert_line --partial '"line":"deny file-read package.json (openat: ENOENT)"'
	assert_line --partial "fix: allow.read: ['../../package.json'] and cache.inputs.workspaceFiles: ['package.json']"
	# the task's output went to stderr, never among the records
	# shellcheck disable=SC2154  # bats sets $stderr (run --separate-stderr)
	[[ "$stderr" == *"app 0.0.0-dev"* ]] || fail "the task's output is not on stderr: $stderr"
	refute_output --partial "app 0.0.0-dev"
}

@test "docs/pipeline.md: with the grant the same pipe passes, and the exit record carries the status" {
	# both halves of the fix: the grant alone is refused (R-21a)
	sed -i 's|"read": \["."\], "write": \["dist/"\]|"read": [".", "../../package.json"], "write": ["dist/"]|
		s|"inputs": { "files": \["src/\*\*"\] },|"inputs": { "files": ["src/**"], "workspaceFiles": ["package.json"] },|' \
		"$WS/packages/app/vx.json"
	grep -qF '"workspaceFiles": ["package.json"]' "$WS/packages/app/vx.json"
	doc_cmd 'vx-graph version | vx-key | vx-pick @ex/app#version | vx-sandbox --request - --trace - | vx-report'
	assert_success
	assert_line --partial '"fail":false'
	# a command that fails: the status rides in the exit record, and the
	# report judges it as failed (an uncached task's hidden read is hinted
	# only then), with no --exit
	probe_pkg 'cat ../../tsconfig.base.json; exit 3'
	echo '{}' > "$WS/tsconfig.base.json"
	run --separate-stderr bash -o pipefail -c "cd '$WS' && vx-graph probe | vx-key | vx-pick probe |
		vx-sandbox --request - --trace - > '$BATS_TEST_TMPDIR/stream'"
	assert_equal "$status" 3
	assert_equal "$(tail -n 1 "$BATS_TEST_TMPDIR/stream")" '{"trace":"exit","status":3}'
	# a task that exits 3 with no violation fails the pipe: the verdict
	# carries its status (issue 37), apart from the boundary's judgement
	run -1 vx-report < "$BATS_TEST_TMPDIR/stream"
	assert_line --partial "fix: allow.read: ['../../tsconfig.base.json']"
	assert_line --partial '"fail":true,"violated":false,"exit":3,"violations":0'
	# --exit still overrides the record: a passing task gets no such hint
	run -0 vx-report --exit 0 < "$BATS_TEST_TMPDIR/stream"
	refute_line --partial "tsconfig.base.json']"
}

# add_net: the page's @ex/net#fetch, a task granted example.com alone that
# asks for another host through the proxy the sandbox names.
# probe_pkg CMD: the package @ex/probe, its task probe running CMD (no
# double quote in it) sandboxed with read '.'
probe_pkg() {
	mkdir "$WS/packages/probe"
	echo '{ "name": "@ex/probe" }' > "$WS/packages/probe/package.json"
	printf '{ "tasks": { "probe": { "exec": { "command": "%s",\n  "sandbox": { "allow": { "read": ["."] } } } } } }\n' \
		"$1" > "$WS/packages/probe/vx.json"
}

add_net() {
	mkdir -p "$WS/packages/net"
	echo '{ "name": "@ex/net" }' > "$WS/packages/net/package.json"
	cat > "$WS/packages/net/vx.json" <<-'JSON'
	{ "tasks": { "fetch": { "exec": { "command": "curl -sS --max-time 5 http://other.test:8080/; exit 0",
	  "sandbox": { "allow": { "read": ["."], "network": ["example.com"] } } } } } }
	JSON
}

# same_as_run TASK: the violation and hint lines of the by-hand report
# ($output) are exactly those vx run prints for TASK, in the same order.
same_as_run() {
	local hand
	hand=$(/usr/bin/python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["type"] in ("violation", "hint"):
        print("  " + r["line"])' <<<"$output")
	[ -n "$hand" ] || fail "no violation by hand: $output"
	run bash -c "cd '$WS' && VX_CACHE_DIR='$BATS_TEST_TMPDIR/cache' vx run '$1' 2>&1"
	assert_equal "$status" 1
	assert_equal "$(awk -v h="SANDBOX VIOLATIONS $1" '$0 == h { on = 1; next }
		on && /^  / { print; next } { on = 0 }' <<<"$output")" "$hand"
}

# vx_run_json TASK...: `vx run TASK... --json --summarize` in the workspace,
# its cache the one a lookup by hand uses; its status and stdout in
# RUN_STATUS and RUN_OUT, its summary the one file in .vx/runs.
vx_run_json() {
	rm -rf "$WS/.vx/runs"
	run --separate-stderr bash -c "cd '$WS' && vx run $* --json --summarize"
	RUN_STATUS=$status RUN_OUT=$output
}

# same_verdict_as_run ID: the by-hand run of ID ($status, $output, $stderr:
# a pipe ending in vx-report) and `vx run ID --json --summarize` say the
# same of it, field by field: the verdict's fail and violated (the --json
# result's status, the summary's `violation` or `failed`), its exit (both
# runs' exit), its violation and hint lines (--json's violations, the
# summary's records), the task's log (the by-hand stderr), the key (vx-key's
# by hand, the result's key and the summary's hash), and the exit status.
# With --ran, the run is the last vx_run_json's, of several tasks, and
# the exit status is not compared.
same_verdict_as_run() {
	local hand=$output hand_err=$stderr hand_status=$status key
	key=$(cd "$WS" && vx-graph "$1" | vx-key | vx-pick "$1" |
		sed -n 's/.*"type":"task".*"key":"\([0-9a-f]*\)".*/\1/p')
	if [ "${2-}" = --ran ]; then
		hand_status=$RUN_STATUS
	else
		vx_run_json "$1"
	fi
	run /usr/bin/python3 - "$1" "$key" "$WS/.vx/runs" "$hand_status" "$hand" "$hand_err" "$RUN_STATUS" "$RUN_OUT" <<-'PY'
	import glob, json, sys
	tid, key, runs, hst, hand, herr, rst, out = sys.argv[1:]
	recs = [json.loads(l) for l in hand.splitlines()]
	[v] = [r for r in recs if r["type"] == "verdict" and r["id"] == tid]
	lines = [r["line"] for r in recs if r["type"] in ("violation", "hint")]
	[res] = [r for r in map(json.loads, out.splitlines()) if r.get("id") == tid]
	[f] = glob.glob(runs + "/*.json")
	[t] = [t for t in json.load(open(f))["tasks"] if t["taskId"] == tid]
	bad = []
	def same(what, a, b):
	    if a != b:
	        bad.append(f"{what}: by hand {a!r}, vx run {b!r}")
	same("fail/--json status", v["fail"], res["status"] == "fail")
	same("violated/summary status", "violation" if v["violated"] else "failed" if v["fail"] else "ran", t["status"])
	same("exit/--json exit", v["exit"], res["exit"])
	same("exit/summary exitCode", v["exit"], t["execution"]["exitCode"])
	same("violation and hint lines/--json violations", lines, res.get("violations", []))
	same("violation and hint lines/summary records", lines, t["violations"]["records"])
	same("violations/summary count", v["violations"], t["violations"]["count"])
	same("log/--json log", herr, res["log"].rstrip("\n"))  # bats strips the last newline
	same("key/--json key", key, res["key"])
	same("key/summary hash", key, t["hash"])
	same("exit status", int(hst), int(rst))
	print("\n".join(bad))
	sys.exit(1 if bad else 0)
	PY
	assert_success
}

@test "docs/pipeline.md: by hand, a host outside the network grant is a violation; vx run reports the same lines, network and file" {
	add_net
	doc_cmd 'vx-graph fetch | vx-key | vx-pick @ex/net#fetch | vx-sandbox --request - --trace - | vx-report'
	assert_equal "$status" 1
	local line
	while IFS= read -r line; do # the page's records of that task, as printed
		case $line in
		'    {"type":"violation","access":"network-outbound"'* | '    {"type":"verdict","v":1,"id":"@ex/net#fetch"'*)
			assert_line "${line#    }" ;;
		esac
	done < "$DOC"
	same_as_run @ex/net#fetch
	# and the verdict's own fields: what vx run's result and summary say
	doc_cmd 'vx-graph fetch | vx-key | vx-pick @ex/net#fetch | vx-sandbox --request - --trace - | vx-report'
	same_verdict_as_run @ex/net#fetch
	# the stream: the deny and its confirmed end come before the exit record
	local nets_before
	nets_before=$(find /tmp -maxdepth 1 -name 'vx-sandbox-net-*' | sort)
	run --separate-stderr bash -o pipefail -c "cd '$WS' && vx-graph fetch | vx-key | vx-pick fetch |
		vx-sandbox --request - --trace -"
	assert_success
	assert_equal "${lines[-3]}" '{"type":"deny","task":"@ex/net#fetch","host":"other.test","port":8080,"reason":"not in allow.network","via":"http"}'
	assert_equal "${lines[-2]}" '{"type":"done","task":"@ex/net#fetch","confirmed":true}'
	assert_equal "${lines[-1]}" '{"trace":"exit","status":0}'
	# its own vx-proxy is gone with it, and so is its socket directory (one
	# another run on this machine left, or is using now, is not its)
	assert_equal "$(find /tmp -maxdepth 1 -name 'vx-sandbox-net-*' | sort)" "$nets_before"
	# a file violation: the same lines and hints both ways too
	doc_cmd 'vx-graph version | vx-key | vx-pick @ex/app#version | vx-sandbox --request - --trace - | vx-report'
	assert_equal "$status" 1
	same_as_run @ex/app#version
	doc_cmd 'vx-graph version | vx-key | vx-pick @ex/app#version | vx-sandbox --request - --trace - | vx-report'
	same_verdict_as_run @ex/app#version
}

@test "by hand, a task that exits 3 with no violation fails with its status; vx run reports the same, field by field" {
	probe_pkg 'echo probing; exit 3'
	run --separate-stderr bash -o pipefail -c "cd '$WS' && vx-graph probe | vx-key | vx-pick probe |
		vx-sandbox --request - --trace - | vx-report"
	assert_equal "$status" 1
	assert_output '{"type":"verdict","v":1,"id":"@ex/probe#probe","fail":true,"violated":false,"exit":3,"violations":0,"hints":0,"trace":"end","events":0}'
	grep -qxF "    $output" "$DOC" || fail "docs/pipeline.md does not show: $output"
	same_verdict_as_run @ex/probe#probe
	assert_equal "$(grep -c '"status":"fail","ms":[0-9.]*,"key":"[0-9a-f]*","exit":3,' <<<"$RUN_OUT")" 1
	# and the line a person reads, as the page says
	run -1 bash -c "cd '$WS' && vx run @ex/probe#probe"
	assert_line --regexp '^fail @ex/probe#probe [0-9.]+s \(exit 3\)$'
}

@test "by hand, two tasks are two pipes (one vx-pick each); vx run runs both and gives the same two verdicts" {
	local pipe="vx-key | vx-pick \$1 | vx-sandbox --request - --trace - | vx-report"
	run --separate-stderr bash -o pipefail -c "cd '$WS' && vx-graph build | $pipe" _ @ex/util#build
	assert_success
	local out1=$output err1=$stderr st1=$status
	run --separate-stderr bash -o pipefail -c "cd '$WS' && vx-graph version | $pipe" _ @ex/app#version
	assert_equal "$status" 1
	local out2=$output err2=$stderr st2=$status
	rm -rf "$WS"/packages/*/dist
	vx_run_json @ex/util#build @ex/app#version
	assert_equal "$RUN_STATUS" 1
	assert_line --partial '"type":"summary","tasks":2,"hit":0,"miss":1,"fail":1,'
	[ -f "$WS/packages/util/dist/greet.sh" ] || fail "vx run did not run @ex/util#build"
	output=$out1 stderr=$err1 status=$st1
	same_verdict_as_run @ex/util#build --ran
	output=$out2 stderr=$err2 status=$st2
	same_verdict_as_run @ex/app#version --ran
}

@test "a hit by hand and under vx run: the same key, the same outputs byte for byte, the same log" {
	local pipe='vx-graph @ex/util#build | vx-key --stamp | vx-cache lookup > request.jsonl || vx-sandbox --request request.jsonl --trace - 2> log.txt | vx-report | vx-cache save --request request.jsonl --log log.txt'
	sleep 0.05 # older than the keying's tick: the stamp vouches (see above)
	doc_cmd "$pipe"
	assert_success
	assert_line --partial '"type":"saved"'
	rm -rf "$WS/packages/util/dist"
	# the hit's stderr (its log) kept whole, last newline too
	run --separate-stderr bash -o pipefail -c "cd '$WS' && { $pipe; } 2> '$BATS_TEST_TMPDIR/hit.log'"
	assert_success
	assert_output ""
	local key
	key=$(sed -n 's/.*"type":"task".*"key":"\([0-9a-f]*\)".*"hit":true.*/\1/p' "$WS/request.jsonl")
	[ -n "$key" ] || fail "no hit by hand: $(cat "$WS/request.jsonl")"
	mv "$WS/packages/util/dist" "$BATS_TEST_TMPDIR/hand-dist"
	vx_run_json @ex/util#build
	assert_equal "$RUN_STATUS" 0
	run /usr/bin/python3 - "$key" "$BATS_TEST_TMPDIR/hit.log" "$RUN_OUT" "$WS/.vx/runs" <<-'PY'
	import glob, json, sys
	key, logf, out, runs = sys.argv[1:]
	log = open(logf, encoding="utf-8").read()
	[res] = [r for r in map(json.loads, out.splitlines()) if r["type"] == "result"]
	[f] = glob.glob(runs + "/*.json")
	[t] = json.load(open(f))["tasks"]
	got = (res["status"], res["key"], res["log"], t["status"], t["cache"]["status"], t["hash"])
	want = ("hit", key, log, "hit", "hit", key)
	print(f"by hand {want}, vx run {got}" if got != want else "")
	sys.exit(got != want)
	PY
	assert_success
	diff -r "$BATS_TEST_TMPDIR/hand-dist" "$WS/packages/util/dist"
	cmp "$WS/packages/util/src/greet.sh" "$WS/packages/util/dist/greet.sh"
}

@test "docs/pipeline.md: the pieces saved to files replay the same verdict" {
	doc_cmd 'vx-graph version | vx-key | vx-pick @ex/app#version > request.jsonl'
	assert_success
	assert_equal "$(wc -l < "$WS/request.jsonl")" 2
	doc_cmd 'vx-sandbox --request request.jsonl --trace trace.jsonl'
	assert_success
	doc_cmd 'vx-report --request request.jsonl --trace trace.jsonl'
	assert_equal "$status" 1
	assert_line --partial '"violations":1'
	assert_equal "$(tail -n 1 "$WS/trace.jsonl")" '{"trace":"exit","status":0}'
}

@test "docs/pipeline.md: a cached run by hand misses, saves, then hits with its outputs restored, as vx run does" {
	local pipe='vx-graph @ex/util#build | vx-key --stamp | vx-cache lookup > request.jsonl || vx-sandbox --request request.jsonl --trace - 2> log.txt | vx-report | vx-cache save --request request.jsonl --log log.txt'
	# the stamp trusts no stat changed in the tick the keying began: the
	# copy setup made is older than that
	sleep 0.05
	doc_cmd "$pipe"
	assert_success
	assert_line --partial '"type":"verdict","v":1,"id":"@ex/util#build","fail":false'
	assert_line --regexp '^\{"type":"saved","id":"@ex/util#build","key":"[0-9a-f]{32}"\}$'
	assert_equal "$(grep -c '"hit":false' "$WS/request.jsonl")" 1
	assert_equal "$(cat "$WS/log.txt")" "built util"
	cmp "$WS/packages/util/src/greet.sh" "$WS/packages/util/dist/greet.sh"
	# again, its outputs gone: a hit restores them and replays the log;
	# nothing runs, nothing is saved
	rm -rf "$WS/packages/util/dist" "$WS/log.txt"
	doc_cmd "$pipe"
	assert_success
	assert_output ""
	assert_equal "$(grep -c '"hit":true' "$WS/request.jsonl")" 1
	[[ "$stderr" == *"built util"* ]] || fail "the hit's log is not on stderr: $stderr"
	assert_file_not_exists "$WS/log.txt"
	cmp "$WS/packages/util/src/greet.sh" "$WS/packages/util/dist/greet.sh"
	# the same entry vx run uses
	cd "$WS"
	run -0 vx run @ex/util#build
	assert_line --regexp '^hit  @ex/util#build '
	# and what vx run saves, a lookup by hand restores
	echo 'echo v2' >> packages/util/src/greet.sh
	run -0 vx run @ex/util#build
	assert_line --regexp '^miss @ex/util#build '
	rm -rf packages/util/dist
	doc_cmd "$pipe"
	assert_success
	assert_equal "$(grep -c '"hit":true' request.jsonl)" 1
	cmp packages/util/src/greet.sh packages/util/dist/greet.sh
	# a stream of several tasks: each marked, exit 1 while one is left to run
	run --separate-stderr bash -o pipefail -c 'vx-graph build | vx-key --stamp | vx-cache lookup'
	assert_equal "$status" 1
	assert_line --index 0 --partial '"type":"graph"'
	assert_line --regexp '^\{"type":"task","id":"@ex/util#build",.*"hit":true\}$'
	assert_line --regexp '^\{"type":"task","id":"@ex/app#build",.*"hit":false\}$'
	[[ "$stderr" == *"@ex/app#build: a miss"* ]] || fail "no line for the miss: $stderr"
}

@test "vx-cache save refuses a failed verdict, a moved input and a record vx-key never saw" {
	cd "$WS"
	sleep 0.05 # older than the keying's tick: the stamp vouches (see above)
	vx-graph @ex/util#build | vx-key --stamp > request.jsonl
	local pass='{"type":"verdict","id":"@ex/util#build","fail":false}' key
	key=$(sed -n 's/.*"key":"\([0-9a-f]*\)".*/\1/p' request.jsonl)
	mkdir -p packages/util/dist
	cp packages/util/src/greet.sh packages/util/dist/
	run -1 vx-cache save --request request.jsonl <<<'{"type":"verdict","id":"@ex/util#build","fail":true}'
	assert_output --partial "@ex/util#build: the verdict failed it; result not saved"
	# an input edited after it was keyed: that result belongs to no key
	echo 'echo edited' >> packages/util/src/greet.sh
	run -1 vx-cache save --request request.jsonl <<<"$pass"
	assert_output --partial "@ex/util#build: inputs changed while the task ran (a stat in its stamp moved); result not saved"
	run -1 vx-cache get "$key" --dir .vx/cache
	# a root lockfile is in every stamp, a file outside the project too
	sleep 0.05
	vx-graph @ex/util#build | vx-key --stamp > request.jsonl
	echo '{}' > package-lock.json
	run -1 vx-cache save --request request.jsonl <<<"$pass"
	assert_output --partial "inputs changed while the task ran (a stat in its stamp moved)"
	# keys taken without --stamp: nothing vouches for the inputs
	vx-graph @ex/util#build | vx-key > request.jsonl
	run -1 vx-cache save --request request.jsonl <<<"$pass"
	assert_output --partial "(no stamp vouches for them); result not saved; fix: run it again from vx-key --stamp"
	run -1 vx-cache get "$key" --dir .vx/cache
	# no key: the records did not go through vx-key
	run -1 bash -c 'vx-graph @ex/util#build | vx-cache lookup'
	assert_output --partial "task '@ex/util#build' has no \"key\""
	run -2 vx-cache lookup --outputs 'dist/**'
}

@test "vx-pick: a task name picks it in every project; an unknown task is one line and exit 1" {
	cd "$WS"
	run -0 bash -o pipefail -c 'vx-graph build | vx-pick build'
	assert_equal "$(grep -c '"type":"task"' <<<"$output")" 2
	assert_line --index 0 --partial '"type":"graph"'
	run -1 bash -o pipefail -c 'vx-graph build | vx-pick @ex/app#nope'
	assert_output --partial "vx-pick: no task '@ex/app#nope' in the records read from <stdin>; fix:"
	run -2 vx-pick
	assert_output --partial 'no TASK'
	run -1 vx-pick x <<<'{"type":"task"'
	assert_output --partial '<stdin>:1:'
}

@test "vx-pick: --help agrees with its manual page" {
	assert_help_matches_man vx-pick
}

@test "vx-sandbox --request - given several tasks runs none and says so, not the first alone" {
	cd "$WS"
	rm -f packages/*/dist/version.txt
	run --separate-stderr bash -o pipefail -c 'vx-graph | vx-key | vx-sandbox --request - --trace -'
	assert_equal "$status" 125
	[[ "$stderr" == *"<stdin>: the request holds "*" tasks"*"vx-pick TASK"* ]] || fail "no line naming the fix: $stderr"
	assert_equal "$output" ""
	# no task ran: none wrote its output
	run ls packages/app/dist
	refute_output --partial version
}

@test "vx-pick: the graph record counts the tasks kept, so one task picked from a larger graph runs" {
	cd "$WS"
	run -0 bash -o pipefail -c 'vx-graph build | vx-pick build'
	assert_line --index 0 --partial '"tasks":2,'
	# one of build's two tasks: the request vx-sandbox's fix line names
	run --separate-stderr bash -o pipefail -c \
		'vx-graph build | vx-key | vx-pick @ex/util#build | vx-sandbox --request - --trace - | vx-report'
	assert_equal "$status" 0
	assert_line --partial '"type":"verdict","v":1,"id":"@ex/util#build","fail":false'
	[ -f packages/util/dist/greet.sh ] || fail "the picked task did not run"
	[ ! -e packages/app/dist ] || fail "a task not picked ran"
}
