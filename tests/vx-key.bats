#!/usr/bin/env bats
# shellcheck disable=SC2154  # bats sets $stderr, $output, $lines
# vx-key: what moves a key and what does not (R-8, R-9), the stat cache and
# its racy rule, --explain, final or provisional (R-9a), --live, bad input.
# Each test copies tests/fixtures/vx-key/ws (a root, @x/ui, and @x/app
# depending on it) and keys vx-graph's real records.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	unset VX_ROOT MODE VX_KEY_STATS
	WS=$BATS_TEST_TMPDIR/ws
	cp -a "$BATS_TEST_DIRNAME/fixtures/vx-key/ws" "$WS"
	# written long ago: no file is "racily clean" unless a test makes it so
	find "$WS" -exec touch -h -d @1600000000 {} +
	cd "$WS" || return 1
	GRAPH=$BATS_TEST_TMPDIR/graph.jsonl
	OUT=$BATS_TEST_TMPDIR/keyed.jsonl
}

# put FILE CONTENT: write CONTENT and a newline to FILE under the workspace.
put() {
	mkdir -p "$(dirname "$WS/$1")"
	printf '%s\n' "$2" > "$WS/$1"
}

# keyed [VX-KEY ARGS...]: the current records through vx-key into $OUT.
keyed() {
	vx-graph --root "$WS" > "$GRAPH" || return 1
	vx-key "$@" < "$GRAPH" > "$OUT" || return 1
}

# member ID NAME [FILE]: the member NAME of task ID in FILE ($OUT), as JSON.
member() {
	/usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[3]):
    r = json.loads(line)
    if r.get("type") == "task" and r["id"] == sys.argv[1]:
        v = r.get(sys.argv[2], "<absent>")
        print(v if isinstance(v, str) else json.dumps(v, separators=(",", ":"), sort_keys=True))
' "$1" "$2" "${3:-$OUT}"
}

# key_of ID: key the workspace as it is now and print ID's key.
key_of() {
	keyed || return 1
	member "$1" key
}

# keys: every "id key" pair, keying the workspace as it is now.
keys() {
	keyed || return 1
	/usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "task": print(r["id"], r["key"])
' "$OUT"
}

@test "--help prints the usage and exits 0; a bad option exits 2" {
	run -0 vx-key --help
	assert_line --index 0 --partial 'usage: vx-key'
	run -2 vx-key --no-such-option
	run -2 vx-key stray-argument
}

@test "same tree, same keys: 32 lowercase hex characters, null for a persistent task" {
	local a b
	a=$(keys)
	b=$(keys)
	assert_equal "$a" "$b"
	assert_regex "$(member @x/ui#build key)" '^[0-9a-f]{32}$'
	assert_regex "$(member @x/app#check key)" '^[0-9a-f]{32}$'
	assert_equal "$(member @x/app#dev key)" null
	# the graph record comes back first, unchanged
	run -0 head -n 1 "$OUT"
	assert_output "$(head -n 1 "$GRAPH")"
}

@test "an input edit and a new input move the key; removing it moves it back" {
	local k0 k1 k2
	k0=$(key_of @x/ui#build)
	put packages/ui/src/a.js 'export const a = 2;'
	k1=$(key_of @x/ui#build)
	put packages/ui/src/b.js 'export const b = 1;'
	k2=$(key_of @x/ui#build)
	[ "$k0" != "$k1" ] && [ "$k1" != "$k2" ]
	rm packages/ui/src/b.js
	assert_equal "$(key_of @x/ui#build)" "$k1"
}

@test "env: a new value moves the key, and unset is not empty" {
	local unset empty one
	unset=$(key_of @x/ui#build)
	empty=$(MODE='' key_of @x/ui#build)
	one=$(MODE=prod key_of @x/ui#build)
	[ "$unset" != "$empty" ] && [ "$empty" != "$one" ] && [ "$unset" != "$one" ]
	assert_equal "$(MODE=prod key_of @x/ui#build)" "$one"
}

@test "runtime: the command's stdout folds in; a failing command folds its status and warns" {
	local k0 k1
	k0=$(key_of @x/ui#build)
	put tool.txt 'tool v2'
	k1=$(key_of @x/ui#build)
	[ "$k0" != "$k1" ]
	rm tool.txt
	vx-graph > "$GRAPH"
	run -0 --separate-stderr vx-key < "$GRAPH"
	# the command's own stderr passes through, then one warning
	assert_equal "$(printf '%s\n' "$stderr" | grep -c '^vx-key: ')" 1
	assert_regex "$stderr" "vx-key: inputs.runtime 'cat ../../tool.txt' in 'packages/ui' exited 1; its status folds into the key"
	[ "$(member @x/ui#build key <(printf '%s\n' "$output"))" != "$k1" ]
}

@test "runtime commands of a sandboxed task run inside its sandbox: no write past its grants, no credential read" {
	# issue 20 item 2: they ran on the host, from vx-key, even with --dry
	export HOME=$BATS_TEST_TMPDIR/home
	mkdir -p "$HOME/.ssh"
	echo 'secret 1' > "$HOME/.ssh/id_rsa"
	local out=$BATS_TEST_TMPDIR/outside.txt
	put packages/ui/vx.json "{ \"tasks\": { \"build\": {
		\"exec\": { \"command\": \"true\", \"sandbox\": { \"allow\": { \"read\": [\".\"] } } },
		\"cache\": { \"inputs\": { \"files\": [\"src/**\"], \"runtime\": [
			\"cat $HOME/.ssh/id_rsa\",
			\"echo pwned > ../../escaped.txt; echo pwned > $out; echo pwned > README.md; echo done\",
			\"cat README.md\" ] } } } } }"
	local k0 k1
	k0=$(key_of @x/ui#build)
	assert_file_not_exists "$WS/escaped.txt"
	assert_file_not_exists "$out"
	assert_equal "$(cat "$WS/packages/ui/README.md")" readme
	# the credential never reached the key: another secret, the same key
	echo 'secret 2' > "$HOME/.ssh/id_rsa"
	assert_equal "$(key_of @x/ui#build)" "$k0"
	# what its grant does let it read folds in: README.md is no input file
	put packages/ui/README.md 'readme v2'
	k1=$(key_of @x/ui#build)
	[ "$k1" != "$k0" ]
	# and the refused ones say so, once each, naming the sandbox
	vx-graph --root "$WS" > "$GRAPH"
	run -0 --separate-stderr vx-key < "$GRAPH"
	assert_regex "$stderr" "vx-key: inputs.runtime 'cat $HOME/.ssh/id_rsa' in 'packages/ui' \\(inside the task's sandbox\\) exited 1; its status folds into the key"
}

@test "runtime commands of a sandboxed task: no vx-sandbox beside vx-key is a refusal, never a run on the host" {
	local bin=$BATS_TEST_TMPDIR/bin
	mkdir -p "$bin"
	cp "$VX_BIN_DIR/vx-key" "$bin/"
	put packages/ui/vx.json '{ "tasks": { "build": {
		"exec": { "command": "true", "sandbox": { "allow": { "read": ["."] } } },
		"cache": { "inputs": { "runtime": ["echo ran > ran.txt"] } } } } }'
	vx-graph --root "$WS" > "$GRAPH"
	run -1 --separate-stderr "$bin/vx-key" < "$GRAPH"
	assert_equal "$stderr" "vx-key: @x/ui#build: inputs.runtime 'echo ran > ran.txt' must run in the task's sandbox, and '$bin/vx-sandbox' cannot run (No such file or directory); fix: install vx-sandbox beside vx-key (make install)"
	assert_file_not_exists "$WS/packages/ui/ran.txt"
}

@test "the project's package.json and a root lockfile fold in" {
	local k0 k1 k2
	k0=$(key_of @x/ui#build)
	put packages/ui/package.json '{ "name": "@x/ui", "version": "2.0.0" }'
	k1=$(key_of @x/ui#build)
	put pnpm-lock.yaml 'lockfileVersion: 9'
	k2=$(key_of @x/ui#build)
	[ "$k0" != "$k1" ] && [ "$k1" != "$k2" ]
	put pnpm-lock.yaml 'lockfileVersion: 10'
	[ "$(key_of @x/ui#build)" != "$k2" ]
}

@test "workspaceFiles fold the root files they name" {
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "true" },
		"cache": { "inputs": { "files": ["src/**"], "workspaceFiles": ["tsconfig.*.json"] } } } } }'
	put tsconfig.base.json '{}'
	local k0
	k0=$(key_of @x/ui#build)
	put tsconfig.base.json '{ "strict": true }'
	[ "$(key_of @x/ui#build)" != "$k0" ]
	keyed --explain
	assert_equal "$(member @x/ui#build explain | /usr/bin/python3 -c 'import json,sys; print(list(json.load(sys.stdin)["workspaceFiles"]))')" "['tsconfig.base.json']"
}

@test "exec.sandbox folds into the key: adding, changing or removing it moves the key; reordering does not" {
	# issue 18 item 3: outputs made under another boundary are another result
	local cmd='"command": "echo ui"'
	local cache='"cache": { "inputs": { "files": ["src/**"] } }'
	sb() {
		put packages/ui/vx.json "{ \"tasks\": { \"build\": { \"exec\": { $cmd$1 }, $cache } } }"
	}
	local none block grant reordered
	sb ''
	none=$(key_of @x/ui#build)
	sb ', "sandbox": { "allow": { "read": ["src/", "."], "write": ["dist/"], "network": ["Example.com."] } }'
	block=$(key_of @x/ui#build)
	[ "$block" != "$none" ]
	# a grant changed: another key
	sb ', "sandbox": { "allow": { "read": ["src/", "."], "write": ["out/"], "network": ["Example.com."] } }'
	grant=$(key_of @x/ui#build)
	[ "$grant" != "$block" ] && [ "$grant" != "$none" ]
	sb ', "sandbox": { "allow": { "read": ["src/", "."], "write": ["dist/"], "network": ["example.com"] }, "weakerWhenNested": true }'
	[ "$(key_of @x/ui#build)" != "$block" ]
	# the same boundary spelled in another order: the same key
	sb ', "sandbox": { "allow": { "network": ["example.com"], "write": ["dist/"], "read": [".", "src/", "."] } }'
	reordered=$(key_of @x/ui#build)
	assert_equal "$reordered" "$block"
	sb ', "sandbox": { "allow": { "write": ["dist/"], "read": [".", "src/"], "network": ["EXAMPLE.COM"], "gitConfig": false, "pty": true }, "ignore": { "read": [] } }'
	assert_equal "$(key_of @x/ui#build)" "$block"
	# the sandbox moved after the exec's command in the file: the same key
	put packages/ui/vx.json "{ \"tasks\": { \"build\": { $cache, \"exec\": { \"sandbox\": { \"allow\": { \"write\": [\"dist/\"], \"network\": [\"example.com\"], \"read\": [\".\", \"src/\"] } }, $cmd } } } }"
	assert_equal "$(key_of @x/ui#build)" "$block"
	# removed again: back to the unsandboxed key
	sb ''
	assert_equal "$(key_of @x/ui#build)" "$none"
	# the baseline block is a boundary too
	sb ', "sandbox": {}'
	[ "$(key_of @x/ui#build)" != "$none" ]
	keyed --explain
	run -0 member @x/ui#build explain
	assert_output --regexp '"sandbox":"[0-9a-f]{32}"'
}

@test "workspaceFiles reach into a project: a sibling's sources fold in, and an edit there moves the key" {
	# issue 19 item 3: the remedy the withheld-link hint names gave {} and a stale hit
	put packages/app/vx.json '{ "tasks": { "test": { "exec": { "command": "true" },
		"cache": { "inputs": { "files": ["src/**"], "workspaceFiles": ["packages/ui/src/**"] } } } } }'
	keyed --explain
	assert_equal "$(member @x/app#test explain | /usr/bin/python3 -c 'import json,sys; print(sorted(json.load(sys.stdin)["workspaceFiles"]))')" "['packages/ui/src/a.js']"
	local k0
	k0=$(member @x/app#test key)
	put packages/ui/src/a.js 'export const label = "v2";'
	[ "$(key_of @x/app#test)" != "$k0" ]
}

@test "a workspaceFiles glob that matches no file is one warning naming the vx.json, the task and the glob" {
	put packages/app/vx.json '{ "tasks": { "test": { "exec": { "command": "true" },
		"cache": { "inputs": { "workspaceFiles": ["packages/ui/src/**", "packages/ui/sources/**", "!x", "node_modules/**"] } } } } }'
	vx-graph --root "$WS" > "$GRAPH"
	# sent twice, as vx run sends a task before and after it ran: said once
	cat "$GRAPH" <(tail -n +2 "$GRAPH") > "$GRAPH.twice"
	run -0 --separate-stderr vx-key < "$GRAPH.twice"
	assert_equal "$(printf '%s\n' "$stderr" | grep -c '^vx-key: ')" 2
	assert_equal "$(printf '%s\n' "$stderr" | grep -c "packages/app/vx.json: tasks.test.cache.inputs.workspaceFiles\[1\]: 'packages/ui/sources/\*\*' matches no file, so @x/app#test's key folds nothing for it; fix: ")" 1
	assert_equal "$(printf '%s\n' "$stderr" | grep -c "workspaceFiles\[3\]: 'node_modules/\*\*' matches no file")" 1
	# a glob that matches is not named
	refute_regex "$stderr" "workspaceFiles\[0\]"
}

# root_links: node_modules/@x/{ui,app} as npm and Yarn lay them out.
root_links() {
	mkdir -p "$WS/node_modules/@x"
	ln -s ../../packages/ui "$WS/node_modules/@x/ui"
	ln -s ../../packages/app "$WS/node_modules/@x/app"
}

@test "K(T) in vx run: an edge to an uncached upstream task grants its package, and an edit there re-runs the task" {
	# issue 19 item 6: the link was withheld and the hint said "an edit there
	# would not re-run it" while the key did move
	root_links
	put packages/ui/vx.json '{ "tasks": { "bare": { "exec": { "command": "true" } } } }'
	put packages/app/vx.json '{ "tasks": { "test": { "exec": { "command": "cat ../../node_modules/@x/ui/README.md",
		"sandbox": { "allow": { "read": ["."] } } }, "dependsOn": ["^bare"], "cache": { "inputs": { "files": ["src/**"] } } } } }'
	run -0 vx run @x/app#test
	refute_line --partial 'SANDBOX VIOLATIONS'
	refute_line --partial 'would not re-run it'
	assert_line '@x/app#test: readme'
	put packages/ui/README.md 'readme v2'
	run -0 vx run @x/app#test
	assert_line --regexp '^miss @x/app#test '
	assert_line '@x/app#test: readme v2'
}

@test "a withheld link to a directory that is no project: no hint proposes a dependsOn edge" {
	# issue 19 item 6: no task of a non-project can be depended on
	mkdir -p "$WS/vendor/lib" "$WS/node_modules"
	echo vendored > "$WS/vendor/lib/x.txt"
	ln -s ../vendor/lib "$WS/node_modules/lib"
	put packages/app/vx.json '{ "tasks": { "test": { "exec": { "command": "cat ../../node_modules/lib/x.txt",
		"sandbox": { "allow": { "read": ["."] } } }, "cache": { "inputs": { "files": ["src/**"] } } } } }'
	run -1 vx run @x/app#test
	assert_line '  deny file-read vendor/lib/x.txt (openat: ENOENT)'
	refute_line --partial 'dependsOn'
	assert_line "  vx: @x/app#test read vendor/lib through node_modules/lib, which is no project of the workspace, so no task's key can answer for it; fix: grant and key the files yourself (allow.read: ['../../vendor/lib'] plus cache.inputs.workspaceFiles: ['vendor/lib/**'])"
}

@test "a folded dependency's key moves the dependent's key and its group's; an unfolded one does not" {
	local build lint check
	keyed
	build=$(member @x/app#build key)
	lint=$(member @x/app#lint key)
	check=$(member @x/app#check key)
	put packages/ui/src/a.js 'export const a = 3;'
	keyed
	[ "$(member @x/app#build key)" != "$build" ]
	[ "$(member @x/app#check key)" != "$check" ]
	assert_equal "$(member @x/app#lint key)" "$lint"
}

@test "an uncached exec task still has a key over all its files" {
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "true" } } } }'
	local k0
	k0=$(key_of @x/ui#build)
	put packages/ui/README.md 'edited'
	[ "$(key_of @x/ui#build)" != "$k0" ]
}

@test "outside the inputs, gitignored, node_modules, declared outputs: the key does not move" {
	put .gitignore $'*.log\n/packages/ui/src/local.js'
	put packages/ui/.gitignore $'src/tmp/\n*.bak\n!keep.bak\ncache/'
	local k0
	k0=$(key_of @x/ui#build)
	put packages/ui/README.md 'edited'           # outside inputs.files
	put packages/ui/src/gen/out.js 'generated'   # a declared output
	put packages/ui/src/node_modules/x/i.js 'x'  # node_modules
	put packages/ui/src/debug.log 'log'          # root .gitignore, any depth
	put packages/ui/src/local.js 'local'         # root .gitignore, anchored
	put packages/ui/src/tmp/x.js 'tmp'           # a directory-only pattern
	put packages/ui/src/old.bak 'bak'            # the project's .gitignore
	put packages/ui/src/cache/c.js 'c'
	put packages/ui/src/.git/HEAD 'ref'
	assert_equal "$(key_of @x/ui#build)" "$k0"
	put packages/ui/src/keep.bak 'kept'          # re-included by "!"
	[ "$(key_of @x/ui#build)" != "$k0" ]
}

@test "a gitignored file the inputs name outright folds in; a glob still leaves gitignored files out" {
	# the sibling of issue 19 item 3: a .env named in inputs.files was never
	# keyed, so editing it was a stale hit
	put .gitignore $'.env\nconf/\n*.local.json'
	put packages/ui/.env 'A=1'
	put packages/ui/conf/app.json '{}'
	put packages/ui/src/x.local.json '{}'
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "true" },
		"cache": { "inputs": { "files": ["src/**", ".env", "conf/app.json"] } } } } }'
	keyed --explain
	assert_equal "$(member @x/ui#build explain | /usr/bin/python3 -c 'import json,sys; print(sorted(json.load(sys.stdin)["files"]))')" "['.env', 'conf/app.json', 'src/a.js']"
	local k0
	k0=$(member @x/ui#build key)
	put packages/ui/.env 'A=2'
	local k1
	k1=$(key_of @x/ui#build)
	[ "$k1" != "$k0" ]
	put packages/ui/conf/app.json '{ "x": 1 }'
	[ "$(key_of @x/ui#build)" != "$k1" ]
}

@test "the root project's key leaves nested projects out" {
	put vx.json '{ "tasks": { "r": { "exec": { "command": "true" }, "cache": {} } } }'
	local k0
	k0=$(key_of root#r)
	put packages/ui/src/a.js 'a nested edit'
	put packages/app/new.txt 'another'
	assert_equal "$(key_of root#r)" "$k0"
	put notes.txt 'a root edit'
	[ "$(key_of root#r)" != "$k0" ]
}

@test "path independence: a copy elsewhere has the same keys" {
	local here
	here=$(keys)
	cp -a "$WS" "$BATS_TEST_TMPDIR/elsewhere"
	WS=$BATS_TEST_TMPDIR/elsewhere
	cd "$WS"
	assert_equal "$(keys)" "$here"
	rm -rf "$WS/.vx"
	assert_equal "$(keys)" "$here"
}

@test "the working directory plays no part: the same keys from elsewhere, through a symlinked root, and an edit still moves them" {
	local here
	vx-graph --root "$WS" > "$GRAPH"
	here=$(vx-key --live --explain < "$GRAPH")
	# vx-key resolves its stats from the root it opened, not from the cwd
	mkdir -p "$BATS_TEST_TMPDIR/cwd/packages/ui/src"
	run -0 bash -c "cd '$BATS_TEST_TMPDIR/cwd' && vx-key --live --explain < '$GRAPH'"
	assert_equal "$output" "$here"
	ln -s "$WS" "$BATS_TEST_TMPDIR/link"
	run -0 bash -c "cd / && vx-key --live --explain --root '$BATS_TEST_TMPDIR/link' < '$GRAPH'"
	assert_equal "$output" "$here"
	# an input and a package.json edited: both keys move
	put packages/ui/src/a.js 'edited'
	sed -i 's/"name"/"edited": 1, "name"/' "$WS/packages/app/package.json"
	run -0 bash -c "cd / && vx-key --live --explain < '$GRAPH'"
	local id edited=$output
	for id in @x/ui#build @x/app#lint; do
		[ "$(key_in "$edited" "$id")" != "$(key_in "$here" "$id")" ]
		assert_regex "$(key_in "$edited" "$id")" '^[0-9a-f]{32}$'
	done
	# the edited file was read from the root too, not from the cwd: keyed
	# again from the root itself (its hash from the stat cache now), the
	# same answers
	run -0 vx-key --live --explain < "$GRAPH"
	assert_equal "$output" "$edited"
}

# key_in ANSWERS ID: ID's key in vx-key --live's answers.
key_in() {
	printf '%s\n' "$1" | sed -n 's|.*"id":"'"$2"'","key":"\([0-9a-f]*\)".*|\1|p'
}

@test "the stat cache: one found from the current directory serves only the graph's own root" {
	# vx-key loads the stat cache it finds above the current directory
	# before the graph record arrives; keying another workspace from there
	# must not take this one's stats or hashes for the other's files
	local other=$BATS_TEST_TMPDIR/other mine theirs
	mine=$(key_of @x/ui#build)
	assert_file_exists .vx/key-stat
	cp -a "$WS" "$other"
	rm -rf "$other/.vx"
	# the same size and times, other bytes
	sed -i 's/1/7/' "$other/packages/ui/src/a.js"
	find "$other" -exec touch -h -d @1600000000 {} +
	vx-graph --root "$other" > "$GRAPH"
	(cd "$other" && vx-key < "$GRAPH" > "$OUT.fresh")
	theirs=$(member @x/ui#build key "$OUT.fresh")
	[ "$theirs" != "$mine" ]
	vx-key < "$GRAPH" > "$OUT"
	assert_equal "$(member @x/ui#build key)" "$theirs"
	# and this workspace's own cache still holds its own files only
	vx-graph --root "$WS" > "$GRAPH"
	VX_KEY_STATS=1 run -0 --separate-stderr vx-key < "$GRAPH"
	assert_regex "$stderr" '^vx-key: hashed 0 files, '
	printf '%s\n' "$output" > "$OUT"
	assert_equal "$(member @x/ui#build key)" "$mine"
}

@test "the stat cache: a second keying reads no file" {
	keyed
	assert_file_exists .vx/key-stat
	VX_KEY_STATS=1 run -0 --separate-stderr vx-key < "$GRAPH"
	assert_regex "$stderr" '^vx-key: hashed 0 files, [1-9][0-9]* from the stat cache$'
	put packages/ui/src/a.js 'export const a = 4;'
	VX_KEY_STATS=1 run -0 --separate-stderr vx-key < "$GRAPH"
	assert_regex "$stderr" '^vx-key: hashed 1 files, '
}

@test "the stat cache: a same-size rewrite in the same timestamp is caught (racy entries)" {
	local f=packages/ui/src/a.js k0 k1
	# force the racy case: the file's mtime is not older than the stat
	# cache written after it was hashed
	local ts
	ts="$(($(date +%s) + 30)).123456789"
	touch -d "@$ts" "$f"
	k0=$(key_of @x/ui#build)
	VX_KEY_STATS=1 run -0 --separate-stderr vx-key < "$GRAPH"
	assert_regex "$stderr" '^vx-key: hashed 1 files, '  # never trusted while racy
	# same size, same mtime to the nanosecond
	printf 'export const a = 9;\n' > "$f"
	touch -d "@$ts" "$f"
	assert_equal "$(stat -c %.9Y "$f")" "$ts"
	k1=$(key_of @x/ui#build)
	[ "$k0" != "$k1" ]
	# a file written in the same second as the keying, mtime put back
	put packages/ui/src/b.js 'b1'
	ts=$(stat -c %.9Y packages/ui/src/b.js)
	k0=$(key_of @x/ui#build)
	put packages/ui/src/b.js 'b2'
	touch -d "@$ts" packages/ui/src/b.js
	[ "$(key_of @x/ui#build)" != "$k0" ]
}

@test "the stat cache: a listed directory is not listed again, and a file added or removed in it still moves the key" {
	local d=packages/ui/src k0 k1
	# the directories must be older than the keying for their listings to
	# be trusted (the racy rule); their ctime cannot be put back, so wait
	sleep 2
	k0=$(key_of @x/ui#build)
	# LeakSanitizer (the sanitized pass) cannot run under a tracer
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		run -0 strace -f -e trace=getdents64 -o "$BATS_TEST_TMPDIR/trace" vx-key < "$GRAPH"
	run grep -c getdents64 "$BATS_TEST_TMPDIR/trace"
	assert_output 0
	put "$d/new.js" 'n'
	touch -d '2001-01-01' "$d" # the mtime put back: the ctime still moved
	k1=$(key_of @x/ui#build)
	[ "$k0" != "$k1" ]
	sleep 2
	keyed
	rm "$d/new.js"
	[ "$(key_of @x/ui#build)" = "$k0" ]
}

@test "the stat cache: a directory listed in the same tick as a change is listed again (racy listings)" {
	local d=packages/ui/src k0
	# the directory's mtime is not older than the listing: never trusted
	touch -d "@$(($(date +%s) + 30))" "$d"
	k0=$(key_of @x/ui#build)
	# LeakSanitizer (the sanitized pass) cannot run under a tracer
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		run -0 strace -f -e trace=getdents64 -o "$BATS_TEST_TMPDIR/trace" vx-key < "$GRAPH"
	run -0 grep -c getdents64 "$BATS_TEST_TMPDIR/trace"
	refute_output 0
	[ "$(key_of @x/ui#build)" = "$k0" ]
}

@test "--explain lists every input the key folded" {
	MODE=x keyed --explain
	run -0 member @x/ui#build explain
	assert_output --regexp '"command":"[0-9a-f]{32}"'
	assert_output --regexp '"files":\{"src/a.js":"[0-9a-f]{32}"\}'
	assert_output --regexp '"env":\{"MODE":"[0-9a-f]{32}"\}'
	assert_output --regexp '"runtime":\{"cat ../../tool.txt":"[0-9a-f]{32}"\}'
	assert_output --regexp '"package":"[0-9a-f]{32}"'
	assert_output --regexp '"workspace":"[0-9a-f]{32}"'
	# what the task is handed, even when it is nothing
	assert_output --partial '"passThroughEnv":[]'
	assert_output --partial '"workspaceFiles":{}'
	run -0 member @x/app#build explain
	assert_output --partial "\"deps\":{\"@x/ui#build\":\"$(member @x/ui#build key)\"}"
	keyed --explain
	run -0 member @x/ui#build explain
	assert_output --partial '"env":{"MODE":null}'
}

@test "vx why after a miss: what moved the last run's key against the run before, file by file, then what moved since" {
	# issue 19 item 7 (R-12): it compared now with the last run only, so it
	# said "unchanged" right after the miss it was asked to explain
	run -0 vx run @x/ui#build
	put packages/ui/src/a.js 'export const a = 2;'
	run -0 vx run @x/ui#build
	assert_line --regexp '^miss @x/ui#build '
	run -0 vx why @x/ui#build
	assert_line --index 0 --regexp '^@x/ui#build: last run vs the run before: key moved from [0-9a-f]{32} to [0-9a-f]{32}$'
	assert_line --index 1 '  file changed: src/a.js'
	assert_line --index 2 --regexp '^@x/ui#build: key [0-9a-f]{32} unchanged since the last run$'
	assert_equal "${#lines[@]}" 3
	# an edit since: both, each under its own label
	put packages/ui/src/b.js 'export const b = 1;'
	MODE=x run -0 vx why @x/ui#build
	assert_line --index 0 --partial '@x/ui#build: last run vs the run before: key moved from '
	assert_line --index 1 '  file changed: src/a.js'
	assert_line --index 2 --regexp '^@x/ui#build: key [0-9a-f]{32} moved since the last run \(was [0-9a-f]{32}\)$'
	assert_line --index 3 '  file added: src/b.js'
	assert_line --index 4 '  env changed: MODE'
	assert_equal "${#lines[@]}" 5
	# a hit keeps the last run's record; the first run has nothing before it
	rm packages/ui/src/b.js
	run -0 vx run @x/ui#build
	assert_line --regexp '^hit  @x/ui#build '
	run -0 vx why @x/ui#build
	assert_line --index 1 '  file changed: src/a.js'
	run -0 vx why @x/app#build
	assert_line --index 0 --regexp '^@x/app#build: key [0-9a-f]{32}; no earlier run recorded$'
	run -0 vx run @x/app#build
	run -0 vx why @x/app#build
	assert_line --index 0 '@x/app#build: last run vs the run before: no run before it with another key recorded'
}

@test "final: false downstream of an uncached unsandboxed task of the same project" {
	put packages/ui/vx.json '{ "tasks": {
		"gen": { "exec": { "command": "true" } },
		"build": { "exec": { "command": "true" }, "dependsOn": ["gen"], "cache": { "inputs": { "files": ["src/**"] } } },
		"cached": { "exec": { "command": "true" }, "cache": { "outputs": { "files": ["dist/**"] } } },
		"after": { "exec": { "command": "true" }, "dependsOn": ["cached"], "cache": { "inputs": { "files": ["src/**"] } } },
		"codegen": { "exec": { "command": "true" }, "cache": { "outputs": { "files": ["src/gen/**"] } } },
		"uses": { "exec": { "command": "true" }, "dependsOn": ["codegen"], "cache": { "inputs": { "files": ["src/**"] } } },
		"boxed": { "exec": { "command": "true", "sandbox": { "allow": { "write": ["out/"] } } } },
		"boxuser": { "exec": { "command": "true" }, "dependsOn": ["boxed"], "cache": { "inputs": { "files": ["src/**"] } } } } }'
	keyed
	assert_equal "$(member @x/ui#build final)" false
	assert_equal "$(member @x/ui#after final)" true
	assert_equal "$(member @x/ui#uses final)" false
	assert_equal "$(member @x/ui#boxuser final)" true
	# another project's dependents: the uncached task writes only its own
	assert_equal "$(member @x/ui#gen final)" true
	keyed --live
	assert_equal "$(member @x/ui#build final)" true
	assert_equal "$(member @x/ui#uses final)" true
}

@test "final: a key folding a provisional key is provisional; a lockfile writer moves everyone" {
	put packages/ui/vx.json '{ "tasks": {
		"gen": { "exec": { "command": "true" } },
		"build": { "exec": { "command": "true" }, "dependsOn": ["gen"], "cache": { "inputs": { "files": ["src/**"] } } } } }'
	put vx.json '{ "tasks": { "install": { "exec": { "command": "true" } } } }'
	put packages/app/vx.json '{ "tasks": {
		"build": { "exec": { "command": "true" }, "dependsOn": ["^build"], "cache": { "inputs": { "files": ["src/**"] } } },
		"after": { "exec": { "command": "true" }, "dependsOn": ["root#install"], "cache": { "inputs": { "files": ["src/**"] } } } } }'
	keyed
	assert_equal "$(member @x/app#build final)" false
	assert_equal "$(member @x/app#after final)" false
}

@test "--live answers each task once, echoes nothing else, and re-keys a record sent again" {
	vx-graph @x/ui#build > "$GRAPH"
	coproc KEY { exec vx-key --live; }
	local pid=$KEY_PID in=${KEY[1]} out=${KEY[0]} line k0
	head -n 1 "$GRAPH" >&"$in"
	sed -n 2p "$GRAPH" >&"$in"
	read -r -t 10 line <&"$out"
	# no echo of the graph record; only what vx-key added comes back (the
	# driver holds the record), with the stamp it checks after the run
	assert_regex "$line" '^\{"type":"task","id":"@x/ui#build","key":"[0-9a-f]{32}","final":true,"stamp":\{"sig":"[0-9a-f]{32}","paths":\["src/",.*"src/a\.js",.*"package\.json"\]\}\}$'
	k0=$line
	put packages/ui/src/a.js 'edited while the task ran'
	sed -n 2p "$GRAPH" >&"$in"
	read -r -t 10 line <&"$out"
	assert_regex "$line" '"key":"[0-9a-f]{32}"'
	[ "$line" != "$k0" ]
	exec {in}>&-
	wait "$pid"
}

@test "--live --explain leaves out the explain of a key the caller says it holds" {
	vx-graph @x/ui#build > "$GRAPH"
	local key line
	key=$(vx-key < "$GRAPH" | sed -n 's/.*"key":"\([0-9a-f]*\)".*/\1/p')
	# the caller holds this key's explain (vx run's .vx/why): not sent again
	run -0 bash -c "{ head -n 1 '$GRAPH'; sed -n 2p '$GRAPH' | sed 's/}\$/,\"explainedKey\":\"$key\"}/'; } | vx-key --live --explain"
	assert_regex "$output" '^\{"type":"task","id":"@x/ui#build","key":"'"$key"'","final":true,"stamp":\{[^}]*\}\}$'
	# it holds another key's: the explain comes, as always
	run -0 bash -c "{ head -n 1 '$GRAPH'; sed -n 2p '$GRAPH' | sed 's/}\$/,\"explainedKey\":\"0123456789abcdef0123456789abcdef\"}/'; } | vx-key --live --explain"
	assert_output --partial '"explain":{"command":'
}

@test "--live: each task answers as keyed alone in a fresh vx-key, though larger records came before it" {
	# vx-key reuses its buffers and takes each record's JSON back at once
	# after answering it: nothing of one record may reach the next's key,
	# explain or stamp
	vx-graph --root "$WS" > "$GRAPH"
	run -0 /usr/bin/python3 - "$GRAPH" <<'EOF'
import json, subprocess, sys
recs = [json.loads(line) for line in open(sys.argv[1])]
graph = recs[0]
tasks = [r for r in recs if r["type"] == "task"]
byid = {t["id"]: t for t in tasks}

def key(lines):
    text = "".join(json.dumps(r) + "\n" for r in lines)
    p = subprocess.run(["vx-key", "--live", "--explain"], input=text, capture_output=True,
                       text=True, check=True)
    return [json.loads(line) for line in p.stdout.splitlines()]

def noise(t, i):
    n = dict(t, id="%s-noise%d" % (t["id"], i), folds=[], deps=[], kind="exec",
             command="echo " + "x" * 3000, passThroughEnv=["N%d" % j for j in range(100)])
    n["cache"] = {"inputs": {"files": ["**/*", "src/**", "*.json"], "env": ["HOME", "PATH"]},
                  "outputs": {"files": ["dist/**"]}}
    return n

def closure(t):
    seen, todo = [], list(t.get("folds") or [])
    while todo:
        f = todo.pop()
        if f not in seen:
            seen.append(f)
            todo += byid[f].get("folds") or []
    return [u for u in tasks if u["id"] in seen]

stream = [graph]
for i, t in enumerate(tasks):
    stream += [noise(t, i), t]
together = {a["id"]: a for a in key(stream)}
bad = 0
for t in tasks:
    alone = key([graph] + closure(t) + [t])[-1]
    if alone != together[t["id"]]:
        bad += 1
        print("differs:", t["id"], json.dumps(alone), json.dumps(together[t["id"]]))
print("tasks", len(tasks), "differ", bad)
sys.exit(1 if bad else 0)
EOF
	assert_output --partial "tasks 5 differ 0"
}

@test "records keyed before are keyed afresh: what vx-key added goes, once each" {
	vx-graph --root "$WS" > "$GRAPH"
	vx-key < "$GRAPH" > "$OUT"
	# keyed with everything, then again with nothing asked: as keyed once
	vx-key --explain --stamp < "$GRAPH" | vx-key > "$BATS_TEST_TMPDIR/twice.jsonl"
	run -0 cmp "$OUT" "$BATS_TEST_TMPDIR/twice.jsonl"
	# and a record that says "linked" and "final" itself is not believed
	sed 's/"kind":"exec"/"linked":true,"final":false,"kind":"exec"/' "$GRAPH" | vx-key > "$BATS_TEST_TMPDIR/said.jsonl"
	run -0 cmp "$OUT" "$BATS_TEST_TMPDIR/said.jsonl"
}

@test "--live: an answer is its type, id, then key, final, explain, linked and stamp, in that order" {
	ln packages/ui/src/a.js "$BATS_TEST_TMPDIR/elsewhere.js"
	vx-graph --root "$WS" > "$GRAPH"
	run -0 bash -c "vx-key --live --explain < '$GRAPH' | grep '\"id\":\"@x/ui#build\"'"
	assert_regex "$output" '^\{"type":"task","id":"@x/ui#build","key":"[0-9a-f]{32}","final":true,"explain":\{.*\},"linked":true,"stamp":\{"sig":"[0-9a-f]{32}","paths":\[[^]]*\]\}\}$'
}

@test "a task record's members are read by name: their order plays no part, and the first of a repeated name counts" {
	vx-graph --root "$WS" @x/ui#build > "$GRAPH"
	local key
	key=$(vx-key < "$GRAPH" | sed -n 's/.*"key":"\([0-9a-f]*\)".*/\1/p')
	# members reversed, and each repeated after the record with another value
	run -0 /usr/bin/python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
t = json.loads(lines[1])
items = list(t.items())[::-1]
text = json.dumps(dict(items))[:-1]
for name, v in items:
    if name != "type":
        text += ", " + json.dumps(name) + ": " + json.dumps("other" if isinstance(v, str) else None)
print(lines[0]); print(text + "}")
' "$GRAPH"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/odd.jsonl"
	run -0 vx-key < "$BATS_TEST_TMPDIR/odd.jsonl"
	assert_output --partial "\"key\":\"$key\""
}

@test "--live reads the lockfiles again after a rescan record, which gets no answer" {
	vx-graph @x/ui#build > "$GRAPH"
	coproc KEY { exec vx-key --live; }
	local pid=$KEY_PID in=${KEY[1]} out=${KEY[0]} line k0 k1
	head -n 1 "$GRAPH" >&"$in"
	sed -n 2p "$GRAPH" >&"$in"
	read -r -t 10 k0 <&"$out"
	put yarn.lock 'a task rewrote the lockfile'
	# no task ran as far as the driver said: the fingerprint stands
	sed -n 2p "$GRAPH" >&"$in"
	read -r -t 10 line <&"$out"
	assert_equal "$line" "$k0"
	printf '{"type":"rescan"}\n' >&"$in"
	sed -n 2p "$GRAPH" >&"$in"
	read -r -t 10 k1 <&"$out"
	assert_regex "$k1" '"key":"[0-9a-f]{32}"'
	[ "$k1" != "$k0" ]
	exec {in}>&-
	wait "$pid"
}

@test "malformed input names <stdin>:N and exits 1" {
	vx-graph > "$GRAPH"
	printf '{"type":"task",\n' >> "$GRAPH"
	local n
	n=$(wc -l < "$GRAPH")
	run -1 vx-key < "$GRAPH"
	assert_line --partial "vx-key: <stdin>:$n: "
	printf '{"type":"task","id":"x#y","kind":"exec","dir":".","command":"true"}\n' > "$GRAPH"
	run -1 vx-key < "$GRAPH"
	assert_output "vx-key: <stdin>:1: a task record before the graph record"
	vx-graph @x/ui#build > "$BATS_TEST_TMPDIR/ui.jsonl"
	head -n 1 "$BATS_TEST_TMPDIR/ui.jsonl" > "$GRAPH"
	printf '{"type":"task","id":"x#y","kind":"exec","dir":".","command":"true","folds":["nope#z"]}\n' >> "$GRAPH"
	printf '{"type":"task","id":"x#z","kind":"bogus","dir":"."}\n' >> "$GRAPH"
	run -1 --separate-stderr vx-key < "$GRAPH"
	assert_equal "$stderr" "vx-key: <stdin>:2: x#y folds 'nope#z', which no earlier record keyed (dependencies come first)"
	sed -i 2d "$GRAPH"
	run -1 --separate-stderr vx-key < "$GRAPH"
	assert_equal "$stderr" "vx-key: <stdin>:2: invalid record: unknown kind 'bogus' (exec, group or persistent)"
}

@test "an unreadable input exits 1 with one line naming it" {
	vx-graph > "$GRAPH"
	rm packages/ui/package.json
	mkdir packages/ui/package.json
	run -1 --separate-stderr vx-key < "$GRAPH"
	assert_equal "$stderr" "vx-key: unable to read 'packages/ui/package.json': Is a directory"
	if [ "$(id -u)" != 0 ]; then
		rmdir packages/ui/package.json
		chmod 000 packages/ui/src/a.js
		run -1 --separate-stderr vx-key < "$GRAPH"
		assert_equal "$stderr" "vx-key: unable to read input 'packages/ui/src/a.js': Permission denied"
	fi
}

@test "a failed write exits 1" {
	vx-graph > "$GRAPH"
	# shellcheck disable=SC2016  # $1 expands in the inner shell
	run -1 bash -c 'vx-key < "$1" > /dev/full' _ "$GRAPH"
	assert_output 'vx-key: write error: No space left on device'
}

@test "a folded file with a second hard link is flagged linked; the key does not move" {
	keyed
	assert_equal "$(member @x/ui#build linked)" '<absent>'
	local key
	key=$(member @x/ui#build key)
	ln packages/ui/src/a.js "$BATS_TEST_TMPDIR/elsewhere.js"
	keyed
	assert_equal "$(member @x/ui#build linked)" true
	assert_equal "$(member @x/ui#build key)" "$key"
	# a second link that is the checkout's shadow (a saved output's, which
	# only vx writes, and that vx-watch watches) is not flagged
	rm "$BATS_TEST_TMPDIR/elsewhere.js"
	run -0 vx-cache --dir "$BATS_TEST_TMPDIR/cache" --state "$WS/.vx" save \
		0123456789abcdef0123456789abcdef "$WS/packages/ui" --outputs src/a.js
	assert_equal "$(stat -c %h packages/ui/src/a.js)" 2
	keyed
	assert_equal "$(member @x/ui#build linked)" '<absent>'
	# the same shadow with a third name elsewhere is
	ln packages/ui/src/a.js "$BATS_TEST_TMPDIR/elsewhere.js"
	keyed
	assert_equal "$(member @x/ui#build linked)" true
	# a root lockfile linked: every exec task
	rm "$BATS_TEST_TMPDIR/elsewhere.js"
	put package-lock.json '{}'
	ln package-lock.json "$BATS_TEST_TMPDIR/lock.json"
	keyed
	assert_equal "$(member @x/ui#build linked)" true
	assert_equal "$(member @x/app#build linked)" true
}

@test "stat cache: empty directories in an old tree load, save and load again" {
	# issue 19.1: a stat cache whose last entry was an empty directory's
	# (empty listing) freed a pointer into the loaded file and vx-key
	# aborted on every run; which entry is last depends on the hash of
	# the keys, so try names until each has been last once or so
	local n
	for n in a b c d e f g h i j k l m n o p q r s t u v w x y z; do
		mkdir "$WS/packages/ui/src/$n"
		find "$WS" -exec touch -h -d @1600000000 {} +
		run -0 keyed
		run -0 keyed
		[ "$(member @x/ui#build key)" = "$(key_of @x/ui#build)" ]
		rmdir "$WS/packages/ui/src/$n"
	done
}

@test "vx-key: --help is its option table and agrees with its manual page" {
	PATH=$VX_BIN_DIR:$PATH
	assert_help_matches_man vx-key
}
