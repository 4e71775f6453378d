#!/usr/bin/env bats
# shellcheck disable=SC2016  # task commands inside JSON are meant to expand in the task, not here
# vx run, vx why, vx clean (R-5, R-8..R-12, R-40..R-43), as a user sees them:
# what ran, what was restored, what the files on disk hold, the exit code.

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
	export VX_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	# ui builds dist/ from src/; app builds from ui's dist and an env input;
	# every command leaves a mark in ran.log so a test sees what really ran
	pkg packages/ui @x/ui '' '{ "tasks": {
		"build": { "exec": { "command": "echo ui >> ../../ran.log && mkdir -p dist && cp src/* dist/ && chmod +x dist/run.sh && echo built ui" },
		           "cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["dist/**"] } } } } }'
	put packages/ui/src/lib.txt "lib v1"
	put packages/ui/src/run.sh "#!/bin/sh"
	put packages/ui/README.md "not an input"
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"build": { "exec": { "command": "echo app >> ../../ran.log && mkdir -p out && cat ../ui/dist/lib.txt src/main.txt > out/app.txt && echo \"greeting=$GREETING\" >> out/app.txt && echo built app" },
		           "dependsOn": ["^build"],
		           "cache": { "inputs": { "files": ["src/**"], "env": ["GREETING"] }, "outputs": { "files": ["out/**"] } } },
		"check": { "dependsOn": ["build"] } } }'
	put packages/app/src/main.txt "app v1"
	pkg packages/other @x/other '' '{ "tasks": {
		"build": { "exec": { "command": "echo other >> ../../ran.log && echo built other" }, "cache": { "inputs": { "files": ["src/**"] } } } } }'
	put packages/other/src/x.txt "x"
}

ran() { # the tasks that really ran since the last call, sorted, one line
	if [ -f "$WS/ran.log" ]; then sort "$WS/ran.log" | tr '\n' ' ' | sed 's/ $//'; rm -f "$WS/ran.log"; fi
}

@test "first run misses in dependency order; the second is all hits and runs nothing" {
	run -0 vx run build -j 1
	assert_line "miss @x/ui#build $(echo "$output" | sed -n 's/^miss @x\/ui#build //p')"
	assert_line --partial "@x/ui#build: built ui"
	# ui before app: app's line comes after ui's
	local ui app
	ui=$(echo "$output" | grep -n '^miss @x/ui#build' | cut -d: -f1)
	app=$(echo "$output" | grep -n '^miss @x/app#build' | cut -d: -f1)
	[ "$ui" -lt "$app" ]
	assert_equal "$(ran)" "app other ui"
	assert_equal "$(cat packages/app/out/app.txt)" "$(printf 'lib v1\napp v1\ngreeting=')"
	run -0 vx run build
	assert_line --regexp '^hit  @x/ui#build '
	assert_line --regexp '^hit  @x/app#build '
	assert_line --regexp '^vx: 3 tasks: 3 hit, 0 miss, 0 failed, 0 skipped'
	assert_equal "$(ran)" ""
}

@test "a hit replays the logged output" {
	run -0 vx run @x/ui#build
	run -0 vx run @x/ui#build
	assert_line --regexp '^hit  @x/ui#build '
	assert_line "@x/ui#build: built ui"
}

@test "outputs deleted are restored byte for byte, mode bits too, without running" {
	run -0 vx run build
	ran >/dev/null
	local before
	before=$(cd packages && sha256sum ui/dist/* app/out/*)
	rm -rf packages/ui/dist packages/app/out
	run -0 vx run build
	assert_equal "$(ran)" ""
	assert_equal "$(cd packages && sha256sum ui/dist/* app/out/*)" "$before"
	assert_file_executable packages/ui/dist/run.sh
	assert_file_not_executable packages/ui/dist/lib.txt
}

# many hits at once: their outputs are written on a pool of threads (-j N,
# up to the cores), one hit at a time with -j 1
many_pkgs() { # many_pkgs N: N projects, pI depending on p(I/2): a tree
	local i deps
	for i in $(seq 1 "$1"); do
		deps=''
		[ "$i" -gt 1 ] && deps="{ \"@m/p$((i / 2))\": \"*\" }"
		pkg "packages/p$i" "@m/p$i" "$deps" '{ "tasks": { "build": { "exec": { "command": "echo \"$(basename \"$PWD\")\" >> ../../ran.log && mkdir -p dist/sub && cp src/* dist/ && cp src/a.txt dist/sub/deep.txt && chmod 755 dist/b.sh && chmod 600 dist/a.txt" },
			"dependsOn": ["^build"], "cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["dist/**"] } } } } }'
		put "packages/p$i/src/a.txt" "a of p$i"
		put "packages/p$i/src/b.sh" "#!/bin/sh"
		head -c $((1000 * i)) /dev/urandom > "$WS/packages/p$i/src/c.bin"
	done
}

# many_built N: the fixture's projects replaced by many_pkgs N, built once.
many_built() {
	rm -rf packages/ui packages/app packages/other
	many_pkgs "$1"
	run -0 vx run build -j 2
	ran >/dev/null
}

@test "many outputs across many projects are restored after deletion, byte for byte with modes, at -j1 and -j2" {
	many_built 24
	local before
	before=$(cd packages && find . -path '*/dist/*' -type f -exec stat -c '%a %s %n' {} + | sort && find . -path '*/dist/*' -type f -exec sha256sum {} + | sort)
	local j
	for j in 1 2 8; do
		rm -rf packages/*/dist
		run -0 vx run build -j "$j"
		assert_line --regexp '^vx: 24 tasks: 24 hit, 0 miss, 0 failed'
		assert_equal "$(ran)" ""
		assert_equal "$(cd packages && find . -path '*/dist/*' -type f -exec stat -c '%a %s %n' {} + | sort && find . -path '*/dist/*' -type f -exec sha256sum {} + | sort)" "$before"
		# no temporary left beside any output
		run -0 find packages -name '.vx-tmp.*'
		assert_output ''
	done
}

@test "with several hits written at once, a corrupt blob runs its task only; the others are restored" {
	many_built 12
	# corrupt p7's c.bin blob (its size keeps it apart from every other blob)
	local blob
	blob=$(find "$VX_CACHE_DIR/cas" -type f -size 7000c)
	[ -n "$blob" ]
	corrupt "$blob" # its bytes are random: a fixed 'X' is no change 1 time in 256
	rm -rf packages/*/dist
	rm -rf .vx/shadow # else its links give the right bytes back without the blob
	run -0 vx run build -j 2
	assert_output --partial "is corrupt: removed"
	assert_line --regexp '^miss @m/p7#build '
	assert_line --regexp '^vx: 12 tasks: 11 hit, 1 miss, 0 failed'
	assert_equal "$(ran)" "p7"
	cmp packages/p7/src/c.bin packages/p7/dist/c.bin
	cmp packages/p12/src/c.bin packages/p12/dist/c.bin
}

@test "an edit re-runs the task and its dependents only" {
	run -0 vx run build
	ran >/dev/null
	put packages/ui/src/lib.txt "lib v2"
	run -0 vx run build
	assert_equal "$(ran)" "app ui"
	assert_line --regexp '^miss @x/ui#build '
	assert_line --regexp '^miss @x/app#build '
	assert_line --regexp '^hit  @x/other#build '
	assert_equal "$(head -n 1 packages/app/out/app.txt)" "lib v2"
}

@test "tasks keyed while the graph is still read keep their own keys: one edit among 60 independent packages misses it and its dependent only" {
	# vx run sends a task with no dependency to vx-key as soon as vx-graph's
	# line for it is read, and takes the answers before the rest: each
	# answer must still land on its own task (keys equal to vx-key's alone)
	local i
	for i in $(seq 0 59); do
		pkg "packages/q$i" "@x/q$i" '' '{ "tasks": { "build": { "exec": { "command": "echo q'"$i"' >> ../../ran.log && mkdir -p dist && cp src/* dist/" },
			"cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["dist/**"] } } } } }'
		put "packages/q$i/src/v.txt" "q$i v1"
	done
	for i in 0 7 19 29; do
		pkg "packages/d$i" "@x/d$i" "{ \"@x/q$((i + 30))\": \"*\" }" '{ "tasks": { "build": { "exec": { "command": "echo d'"$i"' >> ../../ran.log && mkdir -p dist && cat ../q'"$((i + 30))"'/dist/v.txt > dist/v.txt" },
			"dependsOn": ["^build"], "cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["dist/**"] } } } } }'
		put "packages/d$i/src/w.txt" "d$i"
	done
	run -0 vx run build --json
	ran >/dev/null
	echo "$output" | python3 -c 'import json,sys
for l in sys.stdin:
    r = json.loads(l)
    if r.get("type") == "result": print(r["id"], r["key"])' | sort > "$BATS_TEST_TMPDIR/run.keys"
	vx-graph build | vx-key | python3 -c 'import json,sys
for l in sys.stdin:
    r = json.loads(l)
    if r.get("type") == "task": print(r["id"], r["key"])' | sort > "$BATS_TEST_TMPDIR/alone.keys"
	assert_equal "$(wc -l < "$BATS_TEST_TMPDIR/run.keys")" 67
	run -0 diff "$BATS_TEST_TMPDIR/alone.keys" "$BATS_TEST_TMPDIR/run.keys"
	put packages/q37/src/v.txt "q37 v2"
	run -0 vx run build
	assert_equal "$(ran)" "d7 q37"
	assert_line --regexp '^miss @x/q37#build '
	assert_line --regexp '^miss @x/d7#build '
	assert_line --regexp '^vx: 67 tasks: 65 hit, 2 miss, 0 failed, 0 skipped'
	assert_equal "$(cat packages/d7/dist/v.txt)" "q37 v2"
}

@test "a file outside the inputs does not re-run anything" {
	run -0 vx run build
	ran >/dev/null
	put packages/ui/README.md "edited"
	run -0 vx run build
	assert_equal "$(ran)" ""
}

@test "env inputs: a changed value re-runs, the same value hits" {
	GREETING=hi run -0 vx run @x/app#build
	ran >/dev/null
	GREETING=hi run -0 vx run @x/app#build
	assert_equal "$(ran)" ""
	GREETING=hello run -0 vx run @x/app#build
	assert_equal "$(ran)" "app"
	assert_equal "$(tail -n 1 packages/app/out/app.txt)" "greeting=hello"
	# set to empty is not the same as unset
	GREETING='' run -0 vx run @x/app#build
	assert_equal "$(ran)" "app"
	run -0 vx run @x/app#build
	assert_equal "$(ran)" "app"
}

@test "runtime inputs: the command's output folds into the key" {
	put packages/other/vx.json '{ "tasks": { "build": { "exec": { "command": "echo other >> ../../ran.log" },
		"cache": { "inputs": { "files": ["src/**"], "runtime": ["cat ../../toolchain.txt"] } } } } }'
	put toolchain.txt "v1"
	run -0 vx run @x/other#build
	run -0 vx run @x/other#build
	assert_equal "$(ran)" "other"
	put toolchain.txt "v2"
	run -0 vx run @x/other#build
	assert_equal "$(ran)" "other"
}

@test "a failed task fails the run, skips its dependents, and is never cached" {
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "echo ui >> ../../ran.log; echo broken >&2; exit 3" }, "cache": {} } } }'
	run -1 vx run build
	assert_line --regexp '^fail @x/ui#build .*\(exit 3\)$'
	assert_line "@x/ui#build: broken"
	assert_line "skip @x/app#build (dependency @x/ui#build failed)"
	assert_line --regexp '^miss @x/other#build '
	assert_equal "$(ran)" "other ui"
	run -1 vx run build
	assert_equal "$(ran)" "ui"
	run -1 vx run @x/app#check
	assert_line "skip @x/app#check (dependency @x/app#build failed)"
}

@test "path independence: a copy of the workspace elsewhere hits the shared cache" {
	run -0 vx run build
	ran >/dev/null
	cp -a "$WS" "$BATS_TEST_TMPDIR/copy"
	rm -rf "$BATS_TEST_TMPDIR/copy/packages/ui/dist" "$BATS_TEST_TMPDIR/copy/packages/app/out" "$BATS_TEST_TMPDIR/copy/.vx"
	cd "$BATS_TEST_TMPDIR/copy"
	run -0 vx run build
	assert_line --regexp '^vx: 3 tasks: 3 hit, 0 miss'
	assert_file_exists "$BATS_TEST_TMPDIR/copy/packages/app/out/app.txt"
	[ ! -f "$BATS_TEST_TMPDIR/copy/ran.log" ]
}

@test "vx run --root from inside another workspace keys that workspace, and leaves this one's state alone" {
	run -0 vx run build
	ran >/dev/null
	local copy=$BATS_TEST_TMPDIR/copy
	cp -a "$WS" "$copy"
	put packages/ui/src/lib.txt "lib v2" # in this workspace only
	local before
	before=$(md5sum .vx/key-stat)
	# vx-key starts before the graph names the root, guessing this
	# workspace: the copy must still be keyed from its own files
	run -0 vx run build --root "$copy"
	assert_line --regexp '^vx: 3 tasks: 3 hit, 0 miss'
	assert_equal "$(md5sum .vx/key-stat)" "$before"
	assert_file_exists "$copy/.vx/key-stat"
	echo "lib v3" > "$copy/packages/ui/src/lib.txt"
	run -0 vx run build --root "$copy"
	assert_line --regexp '^vx: 3 tasks: 1 hit, 2 miss'
	assert_equal "$(cat "$copy/packages/app/out/app.txt")" "$(printf 'lib v3\napp v1\ngreeting=')"
	assert_equal "$(md5sum .vx/key-stat)" "$before"
}

@test "a corrupted cache entry is a miss, never a bad restore" {
	run -0 vx run @x/ui#build
	ran >/dev/null
	# flip bytes in every stored blob
	find "$VX_CACHE_DIR" -type f -path '*cas*' | while read -r f; do corrupt "$f"; done
	rm -rf packages/ui/dist
	run -0 vx run @x/ui#build
	assert_equal "$(ran)" "ui"
	assert_equal "$(cat packages/ui/dist/lib.txt)" "lib v1"
	# a truncated manifest too
	find "$VX_CACHE_DIR" -type f -name '*.json' -exec truncate -s 5 {} \;
	rm -rf packages/ui/dist
	run -0 vx run @x/ui#build
	assert_equal "$(ran)" "ui"
	assert_equal "$(cat packages/ui/dist/lib.txt)" "lib v1"
}

@test "a run killed -9 while saving leaves nothing a later run can hit wrongly" {
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "mkdir -p dist && head -c 60000000 /dev/urandom > dist/big.bin && sha256sum dist/big.bin > dist/sum.txt" },
		"cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["dist/**"] } } } } }'
	local try
	for try in 1 2 3 4 5; do
		rm -rf "$VX_CACHE_DIR" packages/ui/dist
		vx run @x/ui#build > /dev/null 2>&1 &
		local pid=$!
		# kill once the big output exists, while vx is saving it
		while kill -0 "$pid" 2>/dev/null && [ ! -s packages/ui/dist/sum.txt ]; do sleep 0.01; done
		sleep "0.0$try"
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" || true
		rm -rf packages/ui/dist
		run -0 vx run @x/ui#build
		# hit or miss, the restored files are whole
		(cd packages/ui && sha256sum -c dist/sum.txt)
	done
}

@test "Ctrl-C stops every task, grandchildren too, saves nothing, exits 130" {
	put packages/other/vx.json '{ "tasks": { "build": { "exec": { "command": "sleep 300 & echo $! > ../../grandchild.pid; wait" }, "cache": {} } } }'
	vx run @x/other#build > "$BATS_TEST_TMPDIR/out" 2>&1 &
	local pid=$!
	while [ ! -s grandchild.pid ]; do sleep 0.05; done
	kill -INT "$pid"
	local rc=0
	wait "$pid" || rc=$?
	assert_equal "$rc" 130
	local gc
	gc=$(cat grandchild.pid)
	# gone, or a zombie waiting for init to reap it
	sleep 0.2
	[ ! -e "/proc/$gc" ] || grep -q '^State:.*Z' "/proc/$gc/status"
	run -0 cat "$BATS_TEST_TMPDIR/out"
	assert_output --partial "interrupted by SIGINT"
	# nothing was saved: the next run runs the task again (and is stopped again)
	rm -f grandchild.pid
	vx run @x/other#build > /dev/null 2>&1 &
	pid=$!
	while [ ! -s grandchild.pid ]; do sleep 0.05; done
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	assert_equal "$rc" 143
}

@test "vx why names the inputs that moved the key, file by file" {
	export GREETING=a
	run -0 vx run @x/app#build
	run -0 vx why @x/app#build
	assert_output --partial "unchanged since the last run"
	put packages/app/src/main.txt "app v2"
	put packages/app/src/new.txt "new"
	run -0 vx why @x/app#build
	assert_output --partial "moved since the last run"
	assert_line "  file changed: src/main.txt"
	assert_line "  file added: src/new.txt"
	GREETING=b run -0 vx why @x/app#build
	assert_line "  env changed: GREETING"
	put packages/ui/src/lib.txt "lib v2"
	run -0 vx why @x/app#build
	assert_line "  dependency key changed: @x/ui#build (see vx why @x/ui#build)"
	run -0 vx why @x/ui#build
	assert_line "  file changed: src/lib.txt"
}

@test "a hit found in place is remembered, but not past an output, a manifest or the cache changing" {
	run -0 vx run build
	run -0 vx run build # every output found in place: remembered
	ran >/dev/null
	[ "$(stat -c %s .vx/inplace)" -gt 32 ]
	# an output rewritten in place, same size, its mtime put back: restored
	touch -r packages/ui/dist/lib.txt "$BATS_TEST_TMPDIR/when"
	printf 'lib v9' > packages/ui/dist/lib.txt
	touch -r "$BATS_TEST_TMPDIR/when" packages/ui/dist/lib.txt
	run -0 vx run build
	assert_equal "$(ran)" ""
	assert_equal "$(cat packages/ui/dist/lib.txt)" "lib v1"
	# remembered again; then ui's manifest rewritten the same way: a miss
	run -0 vx run build
	run -0 vx run build
	local m size
	m=$(grep -l '"dist/lib.txt"' "$VX_CACHE_DIR"/ac/*.json)
	size=$(stat -c %s "$m")
	touch -r "$m" "$BATS_TEST_TMPDIR/when"
	head -c "$size" /dev/zero | tr '\0' x > "$m"
	touch -r "$BATS_TEST_TMPDIR/when" "$m"
	run -0 vx run build
	assert_equal "$(ran)" "ui"
	# and after vx clean, nothing is a hit, outputs in place or not
	run -0 vx run build
	run -0 vx run build
	run -0 vx clean
	run -0 vx run build
	assert_equal "$(ran)" "app other ui"
	# a torn memo is only slower, and said once (memo.h)
	run -0 vx run build
	truncate -s 100 .vx/inplace
	run -0 vx run build
	assert_equal "$(ran)" ""
	assert_line --regexp '^vx: 3 tasks: 3 hit, 0 miss'
	assert_line --regexp '^vx: .*/\.vx/inplace: a damaged memo \((shorter|longer) than its header says\), ignored'
	run -0 vx run build
	refute_output --partial inplace
}

@test "vx clean empties the cache: the next run misses" {
	run -0 vx run build
	ran >/dev/null
	run -0 vx clean
	run -0 vx run build
	assert_equal "$(ran)" "app other ui"
}

@test "outputs come back as links to the checkout's shadow; a task that runs never writes through them" {
	# the task reports its output's link count before it writes it in place
	pkg packages/gen @x/gen '' '{ "tasks": { "build": { "exec": { "command": "stat -c %h dist/out.txt > ../../links.log 2>&1 || echo none > ../../links.log; mkdir -p dist && cat src/in.txt > dist/out.txt" },
		"cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["dist/**"] } } } } }'
	put packages/gen/src/in.txt "v1"
	run -0 vx run @x/gen#build
	assert_equal "$(cat links.log)" none
	rm -rf packages/gen/dist
	run -0 vx run @x/gen#build
	assert_line --regexp '^hit  @x/gen#build '
	assert_equal "$(cat packages/gen/dist/out.txt)" v1
	# a second name of the shadow's file: restored with no inode to allocate
	assert_equal "$(stat -c %h packages/gen/dist/out.txt)" 2
	local shadow
	shadow=$(find .vx/shadow -samefile packages/gen/dist/out.txt)
	[ -n "$shadow" ]
	# an edit: the task writes dist/out.txt in place, yet it had one link
	# then, so nothing outside the project changed with it
	put packages/gen/src/in.txt "v2"
	run -0 vx run @x/gen#build
	assert_line --regexp '^miss @x/gen#build '
	assert_equal "$(cat links.log)" 1
	assert_equal "$(cat packages/gen/dist/out.txt)" v2
	[ ! -e "$shadow" ] || [ "$(cat "$shadow")" = v2 ]
	# back to v1: a hit, its bytes from the cache, not the shadow's v2
	put packages/gen/src/in.txt "v1"
	run -0 vx run @x/gen#build
	assert_line --regexp '^hit  @x/gen#build '
	assert_equal "$(cat packages/gen/dist/out.txt)" v1
	# vx clean frees the shadow too
	run -0 vx clean
	assert_equal "$(stat -c %h packages/gen/dist/out.txt)" 1
	[ ! -e .vx/shadow ]
}

@test "--force runs every task; --no-cache neither restores nor saves" {
	run -0 vx run build
	ran >/dev/null
	run -0 vx run build --force
	assert_equal "$(ran)" "app other ui"
	rm -rf "$VX_CACHE_DIR"
	run -0 vx run build --no-cache
	assert_equal "$(ran)" "app other ui"
	run -0 vx run build --no-cache
	assert_equal "$(ran)" "app other ui"
	run -0 vx run build
	assert_equal "$(ran)" "app other ui"
}

@test "--json prints one result record per task and a summary" {
	run -0 vx run @x/ui#build --json
	assert_line --index 0 --regexp '^\{"type":"result","id":"@x/ui#build","status":"miss","ms":[0-9.]+,"key":"[0-9a-f]{32}","exit":0,"log":"built ui\\n"\}$'
	assert_line --index 1 --regexp '^\{"type":"summary","tasks":1,"hit":0,"miss":1,'
}

@test "-j runs independent tasks at once; -j 1 one at a time" {
	# each waits for the other's mark: only concurrency lets both finish
	put packages/ui/vx.json '{ "tasks": { "t": { "exec": { "command": "touch ../../ui.mark; i=0; while [ ! -e ../../other.mark ] && [ $i -lt 100 ]; do sleep 0.02; i=$((i+1)); done; [ -e ../../other.mark ]" } } } }'
	put packages/other/vx.json '{ "tasks": { "t": { "exec": { "command": "touch ../../other.mark; i=0; while [ ! -e ../../ui.mark ] && [ $i -lt 100 ]; do sleep 0.02; i=$((i+1)); done; [ -e ../../ui.mark ]" } } } }'
	run -0 vx run t -j 2
	rm -f ui.mark other.mark
	run -1 vx run t -j 1
}

@test "a sandboxed task runs inside vx-sandbox: its grants hold, a write past them fails the task" {
	put packages/other/vx.json '{ "tasks": {
		"ok": { "exec": { "command": "mkdir -p out && (stat -c %h out/copy.txt 2>/dev/null || echo none) > out/links.txt && cat src/x.txt > out/copy.txt", "sandbox": { "allow": { "read": ["."], "write": ["out/"] } } },
		        "cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["out/**"] } } },
		"escape": { "exec": { "command": "echo pwned > ../../escaped.txt", "sandbox": { "allow": { "read": ["."] } } } },
		"after": { "exec": { "command": "echo after >> ../../ran.log" }, "dependsOn": ["escape"] } } }'
	run -0 vx run @x/other#ok
	assert_equal "$(cat packages/other/out/copy.txt)" "x"
	rm -rf packages/other/out
	run -0 vx run @x/other#ok
	assert_line --regexp '^hit  @x/other#ok '
	assert_file_exists packages/other/out/copy.txt
	# restored as a link to the checkout's shadow; the sandboxed task that
	# runs next found it with one link as it wrote it in place: the shadow,
	# outside its grants, was not written with it
	assert_equal "$(stat -c %h packages/other/out/copy.txt)" 2
	put packages/other/src/x.txt "y"
	run -0 vx run @x/other#ok
	assert_line --regexp '^miss @x/other#ok '
	assert_equal "$(cat packages/other/out/links.txt)" 1
	assert_equal "$(cat packages/other/out/copy.txt)" "y"
	run -1 vx run @x/other#after
	assert_line --regexp '^fail @x/other#escape '
	assert_output --partial "Read-only file system"
	assert_line "skip @x/other#after (dependency @x/other#escape failed)"
	assert_file_not_exists escaped.txt
	assert_equal "$(ran)" ""
}

@test "a persistent task runs in the background until the run ends" {
	# "up" means started, not serving yet: e2e waits for the server, as a
	# real one would poll its port
	put packages/other/vx.json '{ "tasks": {
		"serve": { "exec": { "command": "echo $$ > ../../server.pid; echo serving; exec sleep 300", "persistent": true } },
		"e2e": { "exec": { "command": "for i in 1 2 3 4 5 6 7 8 9 10; do test -s ../../server.pid && break; sleep 0.2; done; test -s ../../server.pid && echo saw server" }, "dependsOn": ["serve"] } } }'
	run -0 vx run @x/other#e2e
	assert_line --partial "up   @x/other#serve"
	assert_line "@x/other#e2e: saw server"
	local server
	server=$(cat server.pid)
	[ ! -e "/proc/$server" ] || grep -q '^State:.*Z' "/proc/$server/status"
}

@test "an input edited while its task ran is not saved under the old key" {
	put packages/other/vx.json '{ "tasks": { "build": { "exec": { "command": "echo other >> ../../ran.log; date +%N >> src/x.txt" }, "cache": { "inputs": { "files": ["src/**"] } } } } }'
	run -0 vx run @x/other#build
	assert_output --partial "inputs changed while the task ran (file changed: src/x.txt); result not saved"
	# again, with the key vx why remembers from the first run's re-key
	run -0 vx run @x/other#build
	assert_output --partial "inputs changed while the task ran (file changed: src/x.txt); result not saved"
	assert_equal "$(ran)" "other other"
	# a file beside the inputs, none of them, moves the directory's stat
	# but not the key: the result is saved, and the next run is a hit
	put packages/other/vx.json '{ "tasks": { "build": { "exec": { "command": "echo other >> ../../ran.log; date +%N > src/x.tmp" }, "cache": { "inputs": { "files": ["src/*.txt"] } } } } }'
	run -0 vx run @x/other#build
	refute_output --partial "inputs changed"
	run -0 vx run @x/other#build
	assert_line --regexp '^hit  @x/other#build '
}

@test "a task that ran is keyed once: its stamp vouches for its inputs at the save" {
	# vx-key, by hand, looks at the task's inputs once
	local once
	once=$(vx-graph @x/other#build | VX_KEY_STATS=1 vx-key 2>&1 >/dev/null |
		sed -n 's/^vx-key: hashed \([0-9]*\) files, \([0-9]*\) from the stat cache$/\1 + \2/p')
	once=$((once))
	[ "$once" -gt 0 ]
	run -0 vx run @x/other#build
	# ran again: no input moved while it ran, so vx run asks vx-key once,
	# not again after the run
	VX_KEY_STATS=1 run -0 vx run @x/other#build --force
	assert_line --regexp '^miss @x/other#build '
	assert_line "vx-key: hashed 0 files, $once from the stat cache"
	run -0 vx run @x/other#build
	assert_line --regexp '^hit  @x/other#build '
}

@test "a task's line reaches a file as the task finishes, not when the run ends" {
	pkg packages/timing @x/timing '' '{ "tasks": {
		"first": { "exec": { "command": "echo quick" } },
		"next": { "exec": { "command": "echo quick" }, "dependsOn": ["first"] },
		"slow": { "exec": { "command": "sleep 4" } } } }'
	vx run @x/timing#next @x/timing#slow -j 2 > "$BATS_TEST_TMPDIR/out" 2>&1 &
	local pid=$! i
	for i in $(seq 40); do
		grep -q '@x/timing#next' "$BATS_TEST_TMPDIR/out" && break
		sleep 0.1
	done
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line --regexp '^miss @x/timing#first '
	assert_line --regexp '^miss @x/timing#next '
	refute_line --partial '@x/timing#slow'
	kill -0 "$pid" # the run is still going
	wait "$pid"
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line --regexp '^miss @x/timing#slow '
}

@test "refusals exit 2 before anything runs" {
	run -2 vx run nosuch
	assert_output --partial "no task 'nosuch'"
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "x" }, "bogus": 1 } } }'
	run -2 vx run build
	assert_equal "$(ran)" ""
	run -2 vx run
	run -2 vx run build -j 0
}

@test "a terminal shows a progress line" {
	command -v script >/dev/null || skip "script(1) is not installed"
	run -0 script -qec "vx run build -j 1" /dev/null
	assert_output --partial "[0/3 done, 0 hit] running: @x/ui#build"
}

@test "--dry says hit or miss for each task, with its key once the cache holds any, running nothing" {
	run -0 vx run build --dry
	assert_line --regexp '^miss    -                                -           @x/ui#build$'
	assert_equal "$(ran)" ""
	run -0 vx run @x/ui#build
	assert_equal "$(ran)" "ui"
	run -0 vx run build --dry
	assert_line --regexp '^hit     [0-9a-f]{32} final       @x/ui#build$'
	assert_equal "$(ran)" ""
}

@test "a task's output cannot rewrite vx's lines: controls are shown, colours kept and reset; --json is exact" {
	# an erase and a carriage return forging a hit line, an OSC title, a
	# cursor move up, a colour, a concealing SGR left on, a C1 CSI, then a fail
	put packages/other/vx.json '{ "tasks": { "build": { "exec": { "command": "printf '\''start\\nevil\\033[2K\\rhit  @x/ui#build 0.01s\\n\\033]0;pwned\\007\\033[1A\\033[31mred\\033[0m\\r\\n\\302\\2332K\\033[8m'\''; exit 3" } } } }'
	run -1 vx run @x/other#build
	assert_line '@x/other#build: start'
	assert_line '@x/other#build: evil^[[2K'
	refute_line --regexp '^hit '
	assert_line '@x/other#build: hit  @x/ui#build 0.01s'
	assert_line '@x/other#build: ^[]0;pwned^G^[[1A'$'\e[31mred\e[0m\e[0m'
	assert_line '@x/other#build: \xc2\x9b2K'$'\e[8m\e[0m'
	assert_line --regexp '^fail @x/other#build [0-9.]+s \(exit 3\)$'
	# nothing but SGR reaches the terminal, and no carriage return
	run -1 grep -caP '\x1b(?!\[[0-9;:]*m)|\r|\xc2[\x80-\x9f]' <<< "$output"
	assert_output 0
	# --json keeps the bytes as they were
	run -1 vx run @x/other#build --json
	run -0 /usr/bin/python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r.get("id") == "@x/other#build":
        sys.stdout.write(repr(r["log"]))
' <<< "$output"
	assert_output "'start\\nevil\\x1b[2K\\rhit  @x/ui#build 0.01s\\n\\x1b]0;pwned\\x07\\x1b[1A\\x1b[31mred\\x1b[0m\\r\\n\\x9b2K\\x1b[8m'"
}

# peak_kb CMD...: run CMD, print the peak resident set (KiB) of the largest
# of its processes (getrusage's RUSAGE_CHILDREN), exit with CMD's status
peak_kb() {
	/usr/bin/python3 -c '
import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:]).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)
' "$@"
}

@test "a task printing 200 MB: vx stays small, every line reaches the user, the cache keeps its head" {
	# 2,000,000 lines of 100 bytes; every big output goes to a file, not
	# through the shell
	local line=0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyzA
	put packages/other/vx.json '{ "tasks": { "build": { "exec": { "command": "yes '"$line"' | head -n 2000000; echo done" }, "cache": { "inputs": { "files": ["src/**"] } } } } }'
	local out=$BATS_TEST_TMPDIR/out.txt
	run -0 peak_kb sh -c 'exec vx run @x/other#build > "$1"' _ "$out"
	# a generous bound: 200 MB once stayed in memory (208 MB of RSS)
	[ "$output" -lt 65536 ] || fail "peak RSS ${output} KiB"
	run -0 grep -c "^@x/other#build: $line\$" "$out"
	assert_output 2000000
	run -0 tail -n 3 "$out"
	assert_line --index 0 '@x/other#build: done'
	assert_line --index 1 --regexp '^miss @x/other#build '
	# the hit replays the head the cache kept, and says where it was cut
	run -0 sh -c 'exec vx run @x/other#build > "$1"' _ "$out"
	run -0 tail -n 3 "$out"
	assert_line --index 0 '@x/other#build: vx: output cut at 4194304 bytes of 200000005 (VX_LOG_MAX)'
	assert_line --index 1 --regexp '^hit  @x/other#build '
	run -0 wc -l < "$out"
	[ "$output" -lt 50000 ]
	# VX_LOG_MAX sets the head; the user still sees every line
	run -0 env VX_LOG_MAX=1K sh -c 'exec vx run @x/other#build --force --json > "$1"' _ "$out"
	run -0 /usr/bin/python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("id") == "@x/other#build":
        print(len(r["log"]), r["log"].splitlines()[-1])
' "$out"
	assert_output '1080 vx: output cut at 1024 bytes of 200000005 (VX_LOG_MAX)'
	rm -f "$out"
	VX_LOG_MAX=lots run -2 vx run @x/other#build
	assert_output "vx: VX_LOG_MAX 'lots': expected a size of 1K or more, such as 4M; fix: set it so, or unset it (4M)"
}

@test ".vx keeps itself out of git: git status shows nothing of it after a run" {
	unset VX_CACHE_DIR # the cache in .vx too
	git init -q .
	git add -A
	git -c user.name=t -c user.email=t@t commit -qm ws
	run -0 vx run build
	assert_dir_exists .vx/cache
	run -0 git status --porcelain --untracked-files=all
	refute_output --partial '.vx'
	# the outputs the run made are the user's to see
	assert_line '?? packages/ui/dist/lib.txt'
	# a .vx made before (by an older vx) gets its .gitignore too
	rm .vx/.gitignore
	run -0 vx run build
	run -0 git status --porcelain --untracked-files=all
	refute_output --partial '.vx'
}
