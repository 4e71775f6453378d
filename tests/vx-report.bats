#!/usr/bin/env bats
# vx-report alone on recorded access records (tests/fixtures/report/): every
# rule of R-34, replayed with no sandbox. The fixtures spell the workspace as
# @WS@ and $HOME as @HOME@; fixture() makes them real, since the report asks
# the host whether a hidden path exists.

load helpers

setup() {
	new_ws
	export HOME="$BATS_TEST_TMPDIR/home"
	mkdir -p "$HOME/.cache/tool"
	pkg packages/app @x/app
	pkg packages/ui @x/ui
	put packages/app/banner.txt "banner"
	put packages/app/src/a.txt "a"
	put packages/ui/src/index.js "ui"
	put packages/secret/token.txt "t"
	put tsconfig.base.json "{}"
	F="$BATS_TEST_DIRNAME/fixtures/report"
}

fixture() { # fixture NAME: the file with the workspace and home filled in
	local hex
	hex=$(printf '%s' "$WS" | od -An -tx1 | tr -d ' \n')
	sed -e "s|@WSHEX@|$hex|g" -e "s|@WS@|$WS|g" -e "s|@HOME@|$HOME|g" "$F/$1" > "$BATS_TEST_TMPDIR/$1"
	printf '%s\n' "$BATS_TEST_TMPDIR/$1"
}

report() { # report TRACE [ARGS...]: for the cached task of request.jsonl
	local t=$1
	shift
	run vx-report --request "$(fixture request.jsonl)" --trace "$(fixture "$t")" "$@"
}

report_uncached() { # report_uncached TRACE [ARGS...]: the same task without cache
	local t=$1
	shift
	run vx-report --request "$(fixture request-uncached.jsonl)" --trace "$(fixture "$t")" "$@"
}

line_of() { # the text lines, as vx run prints them
	printf '%s\n' "$output" | /usr/bin/python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    print(r.get("line", r.get("type") + " " + json.dumps({k: r[k] for k in ("fail", "violations", "hints", "trace", "events") if k in r})))'
}

@test "--help agrees with the manual page's synopsis, options and exit status" {
	assert_help_matches_man vx-report
}

@test "a denied read and an EROFS write inside the project are violations, even after exit 0" {
	report denials.jsonl --exit 0
	assert_equal "$status" 1
	run -0 line_of
	assert_output "deny file-read packages/app/banner.txt (openat: ENOENT)
deny file-write packages/app/log.txt (openat: EROFS)
vx: @x/app#test wrote 'log.txt' in its project, where no write grant reaches (openat: EROFS); fix: allow.write: ['log.txt']
vx: @x/app#test: every grant above with the task's own, to merge into tasks.test of packages/app/vx.json (objects merge, lists replace): {\"exec\":{\"sandbox\":{\"allow\":{\"read\":[\"src/**\"],\"write\":[\"out.txt\",\"log.txt\"]},\"ignore\":{\"read\":[\"probe-*.json\"],\"write\":[\"*.bun-build\"]}}}}
verdict {\"fail\": true, \"violations\": 2, \"hints\": 2, \"trace\": \"end\", \"events\": 4}"
}

@test "a read that fails on the host too (a PATH probe) and a granted success are no findings" {
	rm "$WS/packages/app/banner.txt"
	report denials.jsonl
	assert_equal "$status" 1
	run -0 line_of
	refute_output --partial "node_modules/.bin/cat"
	refute_output --partial "banner.txt"
	refute_output --partial "src/a.txt"
	assert_output --partial "deny file-write packages/app/log.txt (openat: EROFS)"
}

@test "the wall is silent on a passing uncached task" {
	report_uncached wall.jsonl --exit 0
	assert_equal "$status" 0
	run -0 line_of
	assert_output 'verdict {"fail": false, "violations": 0, "hints": 0, "trace": "end", "events": 5}'
}

@test "a failed task names past-wall writes with the directory to grant, hidden host reads from the project, and untouched placeholders" {
	report_uncached wall.jsonl --exit 2
	assert_equal "$status" 1
	run -0 line_of
	assert_output "vx: @x/app#test read '../../tsconfig.base.json', which the sandbox wall hides (openat: ENOENT); fix: allow.read: ['../../tsconfig.base.json']
vx: @x/app#test wrote past the sandbox wall (mkdir $HOME/.cache/tool/x: EROFS); fix: allow.write: ['~/.cache/tool/']
vx: @x/app#test wrote past the sandbox wall (openat $WS/packages/other/gen.txt: EROFS); fix: allow.write: ['../other/']
vx: @x/app#test: write grant 'out.txt' was made an empty file the task never wrote, now removed; fix: if it names a directory, spell it 'out.txt/'
vx: @x/app#test: every grant above with the task's own, to merge into tasks.test of packages/app/vx.json (objects merge, lists replace): {\"exec\":{\"sandbox\":{\"allow\":{\"read\":[\"src/**\",\"../../tsconfig.base.json\"],\"write\":[\"out.txt\",\"~/.cache/tool/\",\"../other/\"]},\"ignore\":{\"read\":[\"probe-*.json\"],\"write\":[\"*.bun-build\"]}}}}
vx: @x/app#test exited 2 after a denied write: a tool stops at its first, so another run would show only the next; fix: vx init --sandbox @x/app#test learns every access in one run
verdict {\"fail\": true, \"violations\": 0, \"hints\": 6, \"trace\": \"end\", \"events\": 5}"
}

@test "issue 18: a cached task's hidden read of a workspace file that exists is a violation, with the grant and the key input; one that exists nowhere is not" {
	report wall.jsonl --exit 0
	assert_equal "$status" 1
	run -0 line_of
	assert_output "deny file-read tsconfig.base.json (openat: ENOENT)
vx: @x/app#test read '../../tsconfig.base.json', which the sandbox wall hides, so its output may depend on what it did not see (openat: ENOENT); fix: allow.read: ['../../tsconfig.base.json'] and cache.inputs.workspaceFiles: ['tsconfig.base.json']
vx: @x/app#test wrote past the sandbox wall (mkdir $HOME/.cache/tool/x: EROFS); fix: allow.write: ['~/.cache/tool/']
vx: @x/app#test wrote past the sandbox wall (openat $WS/packages/other/gen.txt: EROFS); fix: allow.write: ['../other/']
vx: @x/app#test: write grant 'out.txt' was made an empty file the task never wrote, now removed; fix: if it names a directory, spell it 'out.txt/'
vx: @x/app#test: every grant above with the task's own, to merge into tasks.test of packages/app/vx.json (objects merge, lists replace): {\"exec\":{\"sandbox\":{\"allow\":{\"read\":[\"src/**\",\"../../tsconfig.base.json\"],\"write\":[\"out.txt\",\"~/.cache/tool/\",\"../other/\"]},\"ignore\":{\"read\":[\"probe-*.json\"],\"write\":[\"*.bun-build\"]}}},\"cache\":{\"inputs\":{\"workspaceFiles\":[\"tsconfig.base.json\"]}}}
verdict {\"fail\": true, \"violations\": 1, \"hints\": 5, \"trace\": \"end\", \"events\": 5}"
}

@test "issue 18: a cached task's existence probe of a hidden config file (browserslist's existsSync) is a violation; of a directory or a .git file it is not" {
	printf 'gitdir: /elsewhere\n' > "$WS/.git"
	report probe.jsonl --exit 0
	assert_equal "$status" 1
	run -0 line_of
	assert_output "deny file-read package.json (access: ENOENT)
vx: @x/app#test read '../../package.json', which the sandbox wall hides, so its output may depend on what it did not see (access: ENOENT); fix: allow.read: ['../../package.json'] and cache.inputs.workspaceFiles: ['package.json']
vx: @x/app#test: every grant above with the task's own, to merge into tasks.test of packages/app/vx.json (objects merge, lists replace): {\"exec\":{\"sandbox\":{\"allow\":{\"read\":[\"src/**\",\"../../package.json\"],\"write\":[\"out.txt\"]},\"ignore\":{\"read\":[\"probe-*.json\"],\"write\":[\"*.bun-build\"]}}},\"cache\":{\"inputs\":{\"workspaceFiles\":[\"package.json\"]}}}
verdict {\"fail\": true, \"violations\": 1, \"hints\": 2, \"trace\": \"end\", \"events\": 5}"
	report_uncached probe.jsonl --exit 0
	assert_equal "$status" 0
}

@test "issue 18: one violation line per hidden file however many calls and processes probe it; a root file every key folds asks for the grant alone" {
	# vite's workspace-root search (two processes), tsc's stat then open
	put pnpm-workspace.yaml "packages: ['packages/*']"
	report vite.jsonl --exit 0
	assert_equal "$status" 1
	run -0 line_of
	assert_output "deny file-read pnpm-workspace.yaml (statx: ENOENT)
deny file-read package.json (statx: ENOENT)
deny file-read tsconfig.base.json (statx: ENOENT)
vx: @x/app#test read '../../pnpm-workspace.yaml', which the sandbox wall hides (statx: ENOENT); fix: allow.read: ['../../pnpm-workspace.yaml'] (every key folds it already)
vx: @x/app#test read '../../package.json', which the sandbox wall hides, so its output may depend on what it did not see (statx: ENOENT); fix: allow.read: ['../../package.json'] and cache.inputs.workspaceFiles: ['package.json']
vx: @x/app#test read '../../tsconfig.base.json', which the sandbox wall hides, so its output may depend on what it did not see (statx: ENOENT); fix: allow.read: ['../../tsconfig.base.json'] and cache.inputs.workspaceFiles: ['tsconfig.base.json']
vx: @x/app#test: every grant above with the task's own, to merge into tasks.test of packages/app/vx.json (objects merge, lists replace): {\"exec\":{\"sandbox\":{\"allow\":{\"read\":[\"src/**\",\"../../pnpm-workspace.yaml\",\"../../package.json\",\"../../tsconfig.base.json\"],\"write\":[\"out.txt\"]},\"ignore\":{\"read\":[\"probe-*.json\"],\"write\":[\"*.bun-build\"]}}},\"cache\":{\"inputs\":{\"workspaceFiles\":[\"package.json\",\"tsconfig.base.json\"]}}}
verdict {\"fail\": true, \"violations\": 3, \"hints\": 4, \"trace\": \"end\", \"events\": 6}"
}

@test "issue 18: errnos the host gives too are no findings; stat probes of existing directories only hint on failure; no hint opens the root, .git or /dev" {
	mkdir -p "$WS/.git" "$WS/packages/app/src" "$WS/config"
	report falsepos.jsonl --exit 0
	assert_equal "$status" 0
	run -0 line_of
	assert_output 'verdict {"fail": false, "violations": 0, "hints": 0, "trace": "end", "events": 11}'
	report falsepos.jsonl --exit 1
	assert_equal "$status" 1
	run -0 line_of
	assert_output "vx: @x/app#test read '../../config', which the sandbox wall hides (statx: ENOENT); fix: allow.read: ['../../config']
vx: @x/app#test wrote past the sandbox wall (mkdir $WS/shared: EROFS); fix: allow.write: ['../../shared/']
vx: @x/app#test wrote past the sandbox wall (openat $WS/x.txt: EROFS); no grant can open it (it holds the project, or .git, or is the workspace root); fix: write inside the project's own grants
vx: @x/app#test wrote past the sandbox wall (openat $WS/.git/hooks/x: EROFS); no grant can open it (it holds the project, or .git, or is the workspace root); fix: write inside the project's own grants
vx: @x/app#test: every grant above with the task's own, to merge into tasks.test of packages/app/vx.json (objects merge, lists replace): {\"exec\":{\"sandbox\":{\"allow\":{\"read\":[\"src/**\",\"../../config\"],\"write\":[\"out.txt\",\"../../shared/\"]},\"ignore\":{\"read\":[\"probe-*.json\"],\"write\":[\"*.bun-build\"]}}}}
vx: @x/app#test exited 1 after a denied write: a tool stops at its first, so another run would show only the next; fix: vx init --sandbox @x/app#test learns every access in one run
verdict {\"fail\": true, \"violations\": 0, \"hints\": 6, \"trace\": \"end\", \"events\": 11}"
	refute_output --partial "E6"
	refute_output --partial "'/dev/'"
	refute_output --partial "'../../'"
	# shellcheck disable=SC2088  # the literal spelling no hint may print
	refute_output --partial "~/./"
}

@test "issue 18: a refusal before the task started is one line (vx-sandbox's), not followed by an incomplete-trace line; a lost trace still fails" {
	report empty.jsonl --exit 125
	assert_equal "$status" 1
	run -0 line_of
	assert_output 'verdict {"fail": true, "violations": 0, "hints": 0, "trace": "none", "events": 0}'
	report empty.jsonl --exit 0
	assert_equal "$status" 1
	assert_line --partial 'the access trace is incomplete (0 records, no end record)'
}

@test "R-32: refused unix sockets and dials out are no violation (glibc probes nscd so); a failed task names each socket and address once" {
	report unix.jsonl --exit 0
	assert_equal "$status" 0
	run -0 line_of
	assert_output 'verdict {"fail": false, "violations": 0, "hints": 0, "trace": "end", "events": 6}'
	report unix.jsonl --exit 1
	assert_equal "$status" 1
	run -0 line_of
	assert_output "vx: @x/app#test: the sandbox refused 2 datagram socket(AF_UNIX) calls (socket: EPERM), since such a socket can send to one the task did not make (a host socket such as /dev/log); stream sockets and socketpair need no grant (R-32); fix: if the task needs it, allow.unixSockets: true
vx: @x/app#test: the sandbox refused a connection to the unix socket '/run/dbus/system_bus_socket' (connect: EPERM), one the task did not make (a host socket such as docker's or a D-Bus bus; glibc's user lookups try nscd this way and go on); a socket the task binds itself, and socketpair, need no grant (R-32); fix: if the task needs that socket, allow.unixSockets: true
vx: @x/app#test: the task dialled 203.0.113.1:443 (tcp) directly (connect: ENETUNREACH), and the sandbox has no route out: a task reaches the network only through vx-proxy, by the proxy variables (HTTPS_PROXY, HTTP_PROXY) for the hosts allow.network names; fix: make the tool use the proxy variables
vx: @x/app#test: the task dialled [2001:db8::1]:80 (tcp) directly (connect: ENETUNREACH), and the sandbox has no route out: a task reaches the network only through vx-proxy, by the proxy variables (HTTPS_PROXY, HTTP_PROXY) for the hosts allow.network names; fix: make the tool use the proxy variables
vx: @x/app#test: write grant 'out.txt' was made an empty file the task never wrote, now removed; fix: if it names a directory, spell it 'out.txt/'
verdict {\"fail\": true, \"violations\": 0, \"hints\": 5, \"trace\": \"end\", \"events\": 6}"
}

report_outputs() { # report_outputs TRACE [ARGS...]: for a task with outputs lib/** and *.tsbuildinfo
	local t=$1
	shift
	run vx-report --request "$(fixture request-outputs.jsonl)" --trace "$(fixture "$t")" "$@"
}

@test "issue 35: every denied write inside the project names its grant: a mkdir's directory, a declared output's directory, writes under one directory as one grant, a root file by name; never './'; none for a path a grant keeps read-only" {
	report_outputs inside.jsonl --exit 0
	assert_equal "$status" 1
	run -0 line_of
	assert_line "vx: @x/app#build wrote 'lib' and 2 more paths under 'lib/' in its project, where no write grant reaches (mkdir: EROFS); fix: allow.write: ['lib/'] (already a declared output: cache.outputs.files 'lib/**')"
	assert_line "vx: @x/app#build wrote 'build/assets/chunk-abc.js' and 1 more path under 'build/' in its project, where no write grant reaches (openat: EROFS); fix: allow.write: ['build/']"
	assert_line "vx: @x/app#build wrote 'tsconfig.tsbuildinfo' in its project, where no write grant reaches (openat: EROFS); fix: allow.write: ['tsconfig.tsbuildinfo'] (already a declared output: cache.outputs.files '*.tsbuildinfo')"
	assert_line "vx: @x/app#build wrote 'stats.json' in its project, where no write grant reaches (openat: EROFS); fix: allow.write: ['stats.json']"
	assert_line "vx: @x/app#build wrote '.git/index.lock' in its project, where no write grant reaches (openat: EROFS); no grant can open it (.git and .vx stay read-only); fix: have the tool write elsewhere"
	assert_line "vx: @x/app#build wrote 'dist/.bashrc' in its project, under its write grant 'dist/', which keeps it read-only (openat: EROFS): a shell or tool config, or a guard (vx-sandbox(1)); no grant can open it; fix: have the tool write elsewhere"
	assert_line "vx: @x/app#build wrote 2 files at its project's root ('tsconfig.tsbuildinfo', 'stats.json'): each is granted by name, since allow.write: ['./'] would open the whole project to the task, its sources too"
	# every denial is listed, each path once; no fix opens the project
	assert_equal "$(grep -c '^deny file-write packages/app/' <<< "$output")" 9
	refute_output --partial "fix: allow.write: ['./']"
	refute_output --partial "fix: allow.write: ['.']"
	refute_output --partial "['lib/esm/"
	refute_output --partial "['build/assets/']"
}

@test "issue 35: a failed task's report ends with one block, JSON that merges every grant named into the task's own; the learner line only after a non-zero exit following a denied write" {
	report_outputs inside.jsonl --exit 1
	assert_equal "$status" 1
	run -0 line_of
	assert_equal "${lines[-2]}" "vx: @x/app#build exited 1 after a denied write: a tool stops at its first, so another run would show only the next; fix: vx init --sandbox @x/app#build learns every access in one run"
	block=${lines[-3]}
	assert_equal "${block%%: \{*}" "vx: @x/app#build: every grant above with the task's own, to merge into tasks.build of packages/app/vx.json (objects merge, lists replace)"
	# the user's vx.json, the block pasted into it
	put packages/app/vx.json '{ "tasks": { "build": { "exec": { "command": "tsc",
		"sandbox": { "allow": { "read": ["."], "write": ["dist/"] } } },
		"cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["lib/**", "*.tsbuildinfo"] } } } } }'
	run -0 apply_fix "$WS" "$block"
	assert_output 1
	run -0 /usr/bin/python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["tasks"]["build"]; print(json.dumps([t["exec"]["command"], t["exec"]["sandbox"], t["cache"]], sort_keys=True))' "$WS/packages/app/vx.json"
	assert_output '["tsc", {"allow": {"read": [".", "../../tsconfig.base.json"], "write": ["dist/", "lib/", "build/", "tsconfig.tsbuildinfo", "stats.json"]}}, {"inputs": {"files": ["src/**"], "workspaceFiles": ["tsconfig.base.json"]}, "outputs": {"files": ["lib/**", "*.tsbuildinfo"]}}]'
	# the command went on past its denied writes (exit 0): all were seen, no learner
	report_outputs inside.jsonl --exit 0
	run -0 line_of
	refute_output --partial "vx init --sandbox"
	assert_line --partial "every grant above with the task's own"
	# a task that passes gets no block
	report_uncached wall.jsonl --exit 0
	run -0 line_of
	refute_output --partial "every grant above"
}

@test "ignore.read and ignore.write silence a denial without granting it, each for its own access" {
	report ignored.jsonl
	assert_equal "$status" 1
	run -0 line_of
	assert_output "deny file-write packages/app/probe-1.json (openat: EROFS)
vx: @x/app#test wrote 'probe-1.json' in its project, where no write grant reaches (openat: EROFS); fix: allow.write: ['probe-1.json']
vx: @x/app#test: every grant above with the task's own, to merge into tasks.test of packages/app/vx.json (objects merge, lists replace): {\"exec\":{\"sandbox\":{\"allow\":{\"read\":[\"src/**\"],\"write\":[\"out.txt\",\"probe-1.json\"]},\"ignore\":{\"read\":[\"probe-*.json\"],\"write\":[\"*.bun-build\"]}}}}
verdict {\"fail\": true, \"violations\": 1, \"hints\": 2, \"trace\": \"end\", \"events\": 3}"
}

@test "reads under a withheld linked package are violations with one hint naming the package, the link and the edge; an unlinked sibling's file is one for a cached task, the wall for an uncached one" {
	report withheld.jsonl
	assert_equal "$status" 1
	run -0 line_of
	assert_output "deny file-read packages/ui/src/index.js (openat: ENOENT)
deny file-read packages/ui/package.json (openat: ENOENT)
deny file-read packages/secret/token.txt (openat: ENOENT)
vx: @x/app#test read packages/ui through node_modules/@x/ui, and its key folds no cached task of @x/ui, so an edit there would not re-run it; fix: add a dependsOn edge that reaches one (^build where @x/ui#build keys its sources, or a source task), or grant and key the files yourself (allow.read plus cache.inputs.workspaceFiles)
vx: @x/app#test read '../secret/token.txt', which the sandbox wall hides, so its output may depend on what it did not see (openat: ENOENT); fix: allow.read: ['../secret/token.txt'] and cache.inputs.workspaceFiles: ['packages/secret/token.txt']
vx: @x/app#test: every grant above with the task's own, to merge into tasks.test of packages/app/vx.json (objects merge, lists replace): {\"exec\":{\"sandbox\":{\"allow\":{\"read\":[\"src/**\",\"../secret/token.txt\"],\"write\":[\"out.txt\"]},\"ignore\":{\"read\":[\"probe-*.json\"],\"write\":[\"*.bun-build\"]}}},\"cache\":{\"inputs\":{\"workspaceFiles\":[\"packages/secret/token.txt\"]}}}
verdict {\"fail\": true, \"violations\": 3, \"hints\": 3, \"trace\": \"end\", \"events\": 3}"
	# uncached, the sibling is the wall: named only as a hint, and only on a failure
	report_uncached withheld.jsonl --exit 1
	assert_line --partial "which the sandbox wall hides (openat: ENOENT); fix: allow.read: ['../secret/token.txt']"
	refute_line --partial "deny file-read packages/secret"
}

@test "R-26: a read a file grant's bound directory let through is a violation though it succeeded" {
	report widened.jsonl
	assert_equal "$status" 1
	run -0 line_of
	assert_line "deny file-read packages/app/banner.txt (openat: a file write grant bound its directory, and this was there before the task)"
	assert_line "deny file-read packages/app (openat: a file write grant bound its directory, and this was there before the task)"
}

@test "a path with a newline, a space and a non-UTF-8 byte stays one escaped line, its bytes kept" {
	report bytes.jsonl
	assert_equal "$status" 1
	run -0 line_of
	assert_line 'deny file-write packages/app/caf\xe9.txt (openat: EROFS)'
	assert_line 'deny file-write packages/app/a\nb c.txt (openat: EROFS)'
	report bytes.jsonl
	assert_line --partial '"resolved_hex":'
}

@test "a trace with no end record, or a count that differs, fails the verdict" {
	report truncated.jsonl
	assert_equal "$status" 1
	assert_line --partial '"trace":"incomplete"'
	assert_line --partial 'the access trace is incomplete (1 records, no end record)'
	report miscount.jsonl
	assert_equal "$status" 1
	assert_line --partial 'a count that differs'
}

@test "a trace that is off judges nothing and passes; its verdict carries the kernel's refusal (R-10a)" {
	report off.jsonl
	assert_equal "$status" 0
	assert_line --partial '"trace":"off","reason":"Operation not permitted"'
}

@test "bad input: a malformed line names the file and line; a missing file; no request" {
	report malformed.jsonl
	assert_equal "$status" 2
	assert_output --partial "malformed.jsonl:2:"
	run -2 vx-report --request "$(fixture request.jsonl)" --trace "$BATS_TEST_TMPDIR/none.jsonl"
	assert_output --partial "unable to open '$BATS_TEST_TMPDIR/none.jsonl'"
	run -2 vx-report --trace "$(fixture off.jsonl)"
	assert_output --partial "off.jsonl: no request: the trace does not start with the graph and task records; fix:"
	run -2 vx-report --request - < "$(fixture request.jsonl)"
	assert_output --partial "cannot both read stdin"
	run -2 vx-report --request "$F/off.jsonl" --trace "$(fixture off.jsonl)"
	assert_output --partial "off.jsonl: expected two records, a graph record then a task record; fix:"
}

@test "names the task looked up itself (dns records, before or after the end): one hint on a failed task, folded past four, none on a passing one; a name also proxied is left out" {
	report dns.jsonl --exit 0
	assert_equal "$status" 0
	run -0 line_of
	assert_output 'verdict {"fail": false, "violations": 0, "hints": 0, "trace": "end", "events": 0}'
	report_uncached dns.jsonl --exit 1
	assert_equal "$status" 1
	run -0 line_of
	assert_output "vx: @x/app#test looked up registry.npmjs.org, example.com, a.test, b.test and 1 more itself (DNS), which a sandboxed task cannot do (the sandbox answers every lookup REFUSED): the tool ignores HTTP_PROXY/HTTPS_PROXY, the only way out; Node's own fetch and http(s) follow them only with NODE_USE_ENV_PROXY=1 (which vx sets) from Node 22.21 and 24, so Node 20's fetch fails this way; fix: run it on Node >= 22.21, or give the tool its own proxy setting (\$HTTPS_PROXY); registry.npmjs.org, example.com, a.test and b.test are not in allow.network either: add ['registry.npmjs.org', 'example.com', 'a.test', 'b.test'] for the tool to pass through the proxy
verdict {\"fail\": true, \"violations\": 0, \"hints\": 1, \"trace\": \"end\", \"events\": 0}"
}

@test "judges vx-proxy's denies of its task by itself: a violation each, ignore.network silences, another task's are not its own" {
	run -1 vx-report --request "$(fixture request-net.jsonl)" --trace "$(fixture off.jsonl)" \
		--network "$(fixture proxy.jsonl)" --exit 0
	run -0 line_of
	assert_output 'deny network-outbound evil.example:443 (not in allow.network)
deny network-outbound 10.0.0.1:22 (denied by sandbox.network.deny)
verdict {"fail": true, "violations": 2, "hints": 0, "trace": "off", "events": 0}'
	# the deny record's members ride beside the line
	run -1 vx-report --request "$(fixture request-net.jsonl)" --no-trace \
		--network - --exit 0 < "$(fixture proxy.jsonl)"
	assert_line --index 0 '{"type":"violation","access":"network-outbound","host":"evil.example","port":443,"reason":"not in allow.network","via":"connect","line":"deny network-outbound evil.example:443 (not in allow.network)"}'
	assert_line --partial '"trace":"off"'
	# the file trace and the network together; no denies of its own: a pass
	grep -v '"@x/app#test"' "$(fixture proxy.jsonl)" > "$BATS_TEST_TMPDIR/others.jsonl"
	run -0 vx-report --request "$(fixture request-net.jsonl)" --trace "$(fixture off.jsonl)" \
		--network "$BATS_TEST_TMPDIR/others.jsonl"
	# a deny without its host is bad input, named by file and line
	printf '{"type":"deny","task":"@x/app#test","port":1}\n' > "$BATS_TEST_TMPDIR/bad.jsonl"
	run -2 vx-report --request "$(fixture request-net.jsonl)" --no-trace --network "$BATS_TEST_TMPDIR/bad.jsonl"
	assert_output --partial "bad.jsonl:1: a deny record needs a host and a port (0 to 65535); fix:"
	printf '{"type":"deny","task":"@x/app#test","host":"h","port":-1}\n' > "$BATS_TEST_TMPDIR/bad.jsonl"
	run -2 vx-report --request "$(fixture request-net.jsonl)" --no-trace --network "$BATS_TEST_TMPDIR/bad.jsonl"
	assert_output --partial "bad.jsonl:1: a deny record needs a host and a port (0 to 65535); fix:"
	run -2 vx-report --no-trace --network "$(fixture proxy.jsonl)"
	assert_output --partial "--no-trace needs --request FILE"
}

@test "--each: one judge record per task, each answered with exactly the records the one-shot run writes, in order; an unreadable task still gets a failed verdict" {
	local req den off uncached
	req=$(fixture request.jsonl)
	den=$(fixture denials.jsonl)
	off=$(fixture off.jsonl)
	uncached=$(fixture request-uncached.jsonl)
	run -1 vx-report --request "$req" --trace "$den" --exit 0
	local one_den="$output"
	run -0 vx-report --request "$req" --trace "$off" --exit 0
	local one_off="$output"
	run -1 vx-report --request "$uncached" --no-trace --exit 3
	local one_none="$output"
	{
		printf '{"type":"judge","request":"%s","trace":"%s","network":null,"exit":0}\n' "$req" "$den"
		printf '{"type":"judge","request":"%s","trace":"%s","exit":0}\n' "$req" "$off"
		printf '{"type":"judge","request":"%s","trace":"%s","exit":0}\n' "$req" "$BATS_TEST_TMPDIR/none.jsonl"
		printf '{"type":"judge","request":"%s","trace":null,"exit":3}\n' "$uncached"
	} > "$BATS_TEST_TMPDIR/judge.jsonl"
	run -0 vx-report --each < "$BATS_TEST_TMPDIR/judge.jsonl"
	local want
	want="$one_den
$one_off
{\"type\":\"verdict\",\"v\":1,\"request\":\"$req\",\"fail\":true,\"violated\":true,\"violations\":0,\"hints\":0,\"trace\":\"unreadable\",\"events\":0}
$one_none"
	assert_equal "$(grep -v "unable to open" <<< "$output")" "$want"
	assert_output --partial "unable to open '$BATS_TEST_TMPDIR/none.jsonl'"
	# each verdict is out before the next record is read: a pipe held open
	# gets its answer
	coproc VR { vx-report --each 2>&1; }
	# shellcheck disable=SC2153 # VR_PID is set by coproc VR
	local vr_pid=$VR_PID
	printf '{"type":"judge","request":"%s","trace":"%s","exit":0}\n' "$req" "$off" >&"${VR[1]}"
	local line=
	while read -r -t 10 line <&"${VR[0]}"; do
		[[ $line == *'"type":"verdict"'* ]] && break
	done
	[[ $line == *'"trace":"off"'* ]] || fail "no verdict while the stream is open: $line"
	local wfd=${VR[1]}
	exec {wfd}>&-
	wait "$vr_pid" 2> /dev/null || true # (bash may have reaped it already)
	# not a judge record, a task file on stdin, or an option beside it: refused
	run -2 vx-report --each <<< '{"type":"judge","request":"-","trace":null,"exit":0}'
	assert_output --partial "not a judge record"
	run -2 vx-report --each --exit 1 < /dev/null
	assert_output --partial "--each takes its tasks from stdin"
}
