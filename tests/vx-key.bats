#!/usr/bin/env bats
# shellcheck disable=SC2016,SC2154  # task commands inside JSON expand in the task; bats sets $stderr
# vx-key: what moves a key and what does not (R-8, R-9), the stat cache and
# its racy rule, --explain, final/provisional (R-9a), --live, bad input.

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
	pkg packages/ui @x/ui '' '{ "tasks": { "build": { "exec": { "command": "true" },
		"cache": { "inputs": { "files": ["src/**"], "env": ["MODE"], "runtime": ["cat ../../tool.txt"] }, "outputs": { "files": ["src/gen/**"] } } } } }'
	put packages/ui/src/a.js "a"
	put packages/ui/README.md "readme"
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"build": { "exec": { "command": "true" }, "dependsOn": ["^build"], "cache": {} },
		"lint": { "exec": { "command": "true" }, "dependsOn": ["^build"], "cache": { "inputs": { "tasks": [] } } } } }'
	put packages/app/index.js "app"
	put tool.txt "tool v1"
	GRAPH="$BATS_TEST_TMPDIR/graph.jsonl"
}

keys() { # keys: run vx-graph | vx-key, print "id key" lines
	vx-graph > "$GRAPH"
	vx-key < "$GRAPH" > "$BATS_TEST_TMPDIR/keyed.jsonl"
	/usr/bin/python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["type"] == "task": print(r["id"], r["key"])
' "$BATS_TEST_TMPDIR/keyed.jsonl"
}

key_of() { keys | awk -v id="$1" '$1 == id { print $2 }'; }

@test "same tree, same keys; 32 hex characters each" {
	local a b
	a=$(keys)
	b=$(keys)
	assert_equal "$a" "$b"
	assert_regex "$(key_of @x/ui#build)" '^[0-9a-f]{32}$'
}

@test "an input edit, a new input, and a removed one each move the key" {
	local k0 k1 k2 k3
	k0=$(key_of @x/ui#build)
	put packages/ui/src/a.js "a2"
	k1=$(key_of @x/ui#build)
	put packages/ui/src/b.js "b"
	k2=$(key_of @x/ui#build)
	rm packages/ui/src/b.js
	k3=$(key_of @x/ui#build)
	[ "$k0" != "$k1" ] && [ "$k1" != "$k2" ] && [ "$k3" = "$k1" ]
}

@test "what is not an input does not move the key" {
	local k0
	k0=$(keys)
	put packages/ui/README.md "edited"          # outside inputs.files
	put packages/ui/src/gen/out.js "generated"  # a declared output
	put packages/ui/node_modules/x/index.js "x" # node_modules
	put .gitignore "*.log"
	put packages/ui/src/debug.log "ignored"     # gitignored
	k1=$(keys)
	# .gitignore itself is an input of the root project only; ui and app keep their keys
	assert_equal "$(echo "$k0" | grep '@x/')" "$(echo "$k1" | grep '@x/')"
}

@test "a nested .gitignore and a negation are honoured" {
	put packages/ui/.gitignore $'src/tmp/\n*.bak\n!keep.bak'
	local k0
	k0=$(key_of @x/ui#build)
	put packages/ui/src/tmp/x.js "tmp"
	put packages/ui/src/old.bak "bak"
	assert_equal "$(key_of @x/ui#build)" "$k0"
	put packages/ui/src/keep.bak "kept"
	[ "$(key_of @x/ui#build)" != "$k0" ]
}

@test "env: a new value, and unset versus empty, move the key" {
	local unset empty one
	unset=$(unset MODE; key_of @x/ui#build)
	empty=$(MODE='' key_of @x/ui#build)
	one=$(MODE=prod key_of @x/ui#build)
	[ "$empty" != "$one" ]
	[ "$unset" != "$empty" ]
	assert_equal "$(unset MODE; key_of @x/ui#build)" "$unset"
}

@test "runtime: the command's output folds in" {
	local k0
	k0=$(key_of @x/ui#build)
	put tool.txt "tool v2"
	[ "$(key_of @x/ui#build)" != "$k0" ]
}

@test "package.json and the root lockfile fold in" {
	local k0 k1
	k0=$(key_of @x/ui#build)
	put packages/ui/package.json '{ "name": "@x/ui", "version": "2.0.0" }'
	k1=$(key_of @x/ui#build)
	[ "$k0" != "$k1" ]
	put package-lock.json '{}'
	[ "$(key_of @x/ui#build)" != "$k1" ]
}

@test "a folded dependency moves the dependent's key; an unfolded one does not" {
	local build lint
	build=$(key_of @x/app#build)
	lint=$(key_of @x/app#lint)
	put packages/ui/src/a.js "a3"
	[ "$(key_of @x/app#build)" != "$build" ]
	assert_equal "$(key_of @x/app#lint)" "$lint"
}

@test "the root project's files leave nested projects out" {
	put vx.json '{ "tasks": { "r": { "exec": { "command": "true" }, "cache": {} } } }'
	local k0
	k0=$(keys | awk '$1 ~ /#r$/ { print $2 }')
	put packages/ui/src/a.js "nested edit"
	assert_equal "$(keys | awk '$1 ~ /#r$/ { print $2 }')" "$k0"
	put root-file.txt "root edit"
	[ "$(keys | awk '$1 ~ /#r$/ { print $2 }')" != "$k0" ]
}

@test "path independence: a copy elsewhere has the same keys" {
	local here
	here=$(keys)
	cp -a "$WS" "$BATS_TEST_TMPDIR/copy"
	rm -rf "$BATS_TEST_TMPDIR/copy/.vx"
	cd "$BATS_TEST_TMPDIR/copy"
	assert_equal "$(keys)" "$here"
}

@test "the stat cache: a second keying reads no file; a racy rewrite is still caught" {
	keys > /dev/null
	sleep 0.05
	vx-graph > "$GRAPH"
	VX_KEY_STATS=1 run -0 --separate-stderr vx-key < "$GRAPH"
	assert_regex "$stderr" '^vx-key: hashed 0 files, [1-9][0-9]* from the stat cache$'
	# rewrite with the same size and put the old timestamps back
	local f=packages/ui/src/a.js k0
	k0=$(key_of @x/ui#build)
	local mtime
	mtime=$(stat -c %y "$f")
	printf 'Z\n' > "$f"
	touch -d "$mtime" "$f"
	[ "$(key_of @x/ui#build)" != "$k0" ]
}

@test "a file rewritten in the same tick it was hashed is hashed again" {
	local f=packages/ui/src/a.js
	# hash it, then rewrite it at once, same size, same mtime
	keys > /dev/null
	local mtime
	mtime=$(stat -c %y "$f")
	touch -d "$mtime" "$f"
	vx-graph > "$GRAPH"
	VX_KEY_STATS=1 run -0 --separate-stderr vx-key < "$GRAPH"
	# the entry hashed in the tick of its own mtime is not trusted
	refute_regex "$stderr" 'hashed 0 files'
}

@test "--explain lists every folded input" {
	vx-graph @x/app#build > "$GRAPH"
	MODE=x run -0 vx-key --explain < "$GRAPH"
	assert_line --index 1 --partial '"explain":{"command":"'
	assert_line --index 1 --partial '"files":{"src/a.js":"'
	assert_line --index 1 --partial '"env":{"MODE":"'
	assert_line --index 1 --partial '"runtime":{"cat ../../tool.txt":"'
	assert_line --index 2 --partial '"deps":{"@x/ui#build":"'
}

@test "final: false downstream of an uncached unsandboxed task in the same project" {
	put packages/ui/vx.json '{ "tasks": {
		"gen": { "exec": { "command": "true" } },
		"build": { "exec": { "command": "true" }, "dependsOn": ["gen"], "cache": { "inputs": { "files": ["src/**"] } } },
		"cached": { "exec": { "command": "true" }, "cache": { "outputs": { "files": ["dist/**"] } } },
		"after": { "exec": { "command": "true" }, "dependsOn": ["cached"], "cache": { "inputs": { "files": ["src/**"] } } } } }'
	vx-graph @x/ui#build @x/ui#after > "$GRAPH"
	run -0 vx-key < "$GRAPH"
	assert_output --regexp '"id":"@x/ui#build".*"final":false'
	assert_output --regexp '"id":"@x/ui#after".*"final":true'
	run -0 vx-key --live < "$GRAPH"
	assert_output --regexp '"id":"@x/ui#build".*"final":true'
}

@test "--live answers each record before the next one is sent" {
	vx-graph @x/ui#build > "$GRAPH"
	coproc KEY { vx-key --live; }
	local pid=$KEY_PID in=${KEY[1]}
	head -n 1 "$GRAPH" >&"${KEY[1]}"
	local line
	read -r -t 5 line <&"${KEY[0]}"
	assert_regex "$line" '"type":"graph"'
	sed -n 2p "$GRAPH" >&"${KEY[1]}"
	read -r -t 5 line <&"${KEY[0]}"
	assert_regex "$line" '"key":"[0-9a-f]{32}"'
	eval "exec $in>&-"
	wait "$pid"
}

@test "malformed input names the line and exits 1; a failed write exits 1" {
	vx-graph > "$GRAPH"
	printf '{"type":"task",\n' >> "$GRAPH"
	run -1 vx-key < "$GRAPH"
	assert_output --regexp 'vx-key: <stdin>:[0-9]+: invalid JSON'
	vx-graph > "$GRAPH"
	run -1 bash -c 'vx-key < "$1" > /dev/full' _ "$GRAPH"
	assert_output "vx-key: write error: No space left on device"
	printf '{"type":"task","id":"x","kind":"exec","dir":"."}\n' > "$GRAPH"
	run -1 vx-key < "$GRAPH"
	assert_output --partial "a task record before the graph record"
}
