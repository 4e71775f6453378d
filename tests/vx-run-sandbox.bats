#!/usr/bin/env bats
# shellcheck disable=SC2016  # task commands inside JSON are meant to expand in the task, not here
# vx run handing its tasks down (issue 20): the paths it resolves once for
# every stage (VX_CACHE_DIR, TMPDIR) and the environment a task gets, as a
# hostile task sees them, sandboxed and not. tests/vx-run-sandbox-rootless.bats
# runs this suite again as an unprivileged user.

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
	# the victim: a cached task whose output the next run restores
	pkg packages/ui @x/ui '' '{ "tasks": {
		"build": { "exec": { "command": "echo ui >> ../../ran.log && cat src/lib.txt > out.txt" },
		           "cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["out.txt"] } } } } }'
	put packages/ui/src/lib.txt "lib v1"
}

# The attacker: a sandboxed task granted ../../cache/, which is the run's
# cache when vx runs in packages/ with VX_CACHE_DIR=../cache; it saves its
# own out.txt under every key found there, with a vx-cache it brings along.
# vx-sandbox, run in the project, once read ../cache from there
# (packages/cache) and let the grant be.
attacker() {
	mkdir -p packages/evil
	cp "$VX_BIN_DIR/vx-cache" packages/evil/
	pkg packages/evil @x/evil '' '{ "tasks": {
		"build": { "exec": { "command": "echo poisoned > out.txt && for m in ../../cache/ac/*.json; do k=$(basename $m .json); ./vx-cache --dir ../../cache --state /tmp/st save $k . --outputs out.txt; done; echo evil >> ran.log",
		           "sandbox": { "allow": { "read": ["."], "write": ["./", "../../cache/"] } } },
		           "dependsOn": ["@x/ui#build"] } } }'
}

@test "a relative VX_CACHE_DIR is the cache vx-sandbox guards too: a grant over it is refused, no entry is poisoned" {
	attacker
	mkdir cache
	cd packages || return 1
	run -1 env VX_CACHE_DIR=../cache vx run build -j 1
	assert_line --regexp '^miss @x/ui#build '
	assert_line --regexp '^fail @x/evil#build '
	assert_output --partial "would make the cache directory (VX_CACHE_DIR) writable"
	assert_file_not_exists evil/ran.log
	# the victim's next run is a true hit
	rm ui/out.txt
	run -1 env VX_CACHE_DIR=../cache vx run build -j 1
	assert_line --regexp '^hit  @x/ui#build '
	assert_equal "$(cat ui/out.txt)" "lib v1"
	assert_equal "$(cat ../ran.log)" "ui"
}

# sandboxed_ui: ui's build, sandboxed, uncached
sandboxed_ui() {
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "cat src/lib.txt > out.txt",
		"sandbox": { "allow": { "read": ["."], "write": ["out.txt"] } } } } } }'
}

# file_grant CMD: ui's build, sandboxed, uncached, granted only its
# package.json to write (which R-26 binds by its directory)
file_grant() {
	put packages/ui/vx.json "{ \"tasks\": { \"build\": { \"exec\": { \"command\": \"$1\",
		\"sandbox\": { \"allow\": { \"read\": [\".\"], \"write\": [\"package.json\"] } } } } } }"
}

# issue 35 item 5: the directory is bound, the grant still means the file
@test "issue 35: a write grant on package.json binds its directory, yet any other change there fails the task naming the grant, fast path on and off" {
	local fast cmd path
	for fast in 1 0; do
		export VX_TRACE_FAST=$fast
		# the granted file, in place and as an atomic writer does (its
		# temporary made beside it, then renamed onto it)
		file_grant "sed -i s/ui/ui/ package.json && cp package.json .pj.tmp && mv .pj.tmp package.json && mkdir .t && echo t > .t/x && rm -r .t"
		run -0 vx run build
		assert_line --regexp '^miss @x/ui#build '
		refute_output --partial 'SANDBOX VIOLATIONS'
		refute_output --partial 'deny'
		for cmd in 'echo x > src/x.js:src/x.js' 'echo new > new.txt:new.txt' \
			'mv src/lib.txt src/moved.txt:src/lib.txt' 'rm src/lib.txt:src/lib.txt' \
			'echo y >> src/lib.txt:src/lib.txt' 'mkdir gen:gen' 'chmod 600 src/lib.txt:src/lib.txt' \
			"VX_TRACE_FDIRS= sh -c 'echo x > src/y.js':src/y.js"; do
			path=${cmd##*:}
			file_grant "${cmd%:*}"
			run -1 vx run build
			assert_line "SANDBOX VIOLATIONS @x/ui#build"
			assert_line --regexp "^  deny file-write packages/ui/$path \([a-z0-9]+: outside the file grant 'package.json', whose directory is bound\)\$"
			rm -rf packages/ui/src packages/ui/new.txt packages/ui/gen
			put packages/ui/src/lib.txt "lib v1"
		done
	done
	# what a directory grant covers beside it is granted
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "echo x > dist/x.js && echo p >> package.json",
		"sandbox": { "allow": { "read": ["."], "write": ["package.json", "dist/"] } } } } } }'
	run -0 vx run build
	refute_output --partial 'deny'
}

@test "a relative TMPDIR is resolved once: a sandboxed task's request is found from its project" {
	sandboxed_ui
	mkdir tmp
	run -0 env TMPDIR=tmp vx run build
	assert_line --regexp '^miss @x/ui#build '
	assert_equal "$(cat packages/ui/out.txt)" "lib v1"
	# the request and its trace are gone with the task
	assert_equal "$(ls -A tmp)" ""
}

@test "issue 37: a sandboxed task's request and records touch no file: its request on vx-sandbox's stdin, its records on a pipe, and no TMPDIR is needed" {
	sandboxed_ui
	# a vx-sandbox beside vx that notes its arguments and what its stdin and
	# fd 3 are, then runs the real one
	local bin=$BATS_TEST_TMPDIR/bin
	mkdir -p "$bin"
	cp "$VX_BIN_DIR"/vx* "$bin/"
	mv "$bin/vx-sandbox" "$bin/vx-sandbox.real"
	cat > "$bin/vx-sandbox" <<-EOS
	#!/bin/sh
	echo "\$* \$(stat -L -c %F /proc/self/fd/0) \$(stat -L -c %F /proc/self/fd/3 2>/dev/null)" >> "$BATS_TEST_TMPDIR/seen"
	exec "$bin/vx-sandbox.real" "\$@"
	EOS
	chmod +x "$bin/vx-sandbox"
	# a TMPDIR where nothing can be made: nothing of the task is made there
	run -0 env TMPDIR="$WS/no/such/dir" "$bin/vx" run build
	assert_line --regexp '^miss @x/ui#build '
	assert_equal "$(cat packages/ui/out.txt)" "lib v1"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/seen")" "--request - --trace-fd 3 fifo fifo"
	# and a violation still reaches the verdict that way
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "echo x > other.txt; cat src/lib.txt > out.txt",
		"sandbox": { "allow": { "read": ["."], "write": ["out.txt"] } } } } } }'
	run -1 env TMPDIR="$WS/no/such/dir" "$bin/vx" run build
	assert_line --regexp '^fail @x/ui#build .*\(exit 0\)$'
	assert_output --partial '  deny file-write packages/ui/other.txt'
	# a persistent task too: untraced, its network denies in its records
	pkg packages/srv @x/srv '' '{ "tasks": { "serve": { "exec": { "command": "curl -sS --max-time 5 http://other.test:8080/; exit 0",
		"persistent": true, "sandbox": { "allow": { "read": ["."], "network": ["example.com"] } } } } } }'
	pkg packages/probe @x/probe '' '{ "tasks": { "wait": { "exec": { "command": "sleep 3" }, "dependsOn": ["@x/srv#serve"] } } }'
	: > "$BATS_TEST_TMPDIR/seen"
	run -1 env TMPDIR="$WS/no/such/dir" "$bin/vx" run @x/probe#wait
	assert_line 'SANDBOX VIOLATIONS @x/srv#serve'
	assert_line '  deny network-outbound other.test:8080 (not in allow.network)'
	assert_equal "$(cat "$BATS_TEST_TMPDIR/seen")" "--request - --trace-fd 3 --untraced fifo fifo"
}

@test "vx-sandbox refuses a relative VX_CACHE_DIR with one line, never a crash" {
	mkdir -p "$WS/packages/ui/dist"
	# the name resolves nowhere: it once crashed on a NULL strrchr
	run -125 env VX_CACHE_DIR=nowhere vx-sandbox --root "$WS" --project "$WS/packages/ui" --write dist/ -- true
	assert_output "vx-sandbox: VX_CACHE_DIR 'nowhere' is relative; fix: an absolute path"
	run -125 env VX_CACHE_DIR=no/where/at/all vx-sandbox --root "$WS" --project "$WS/packages/ui" --write dist/ -- true
	assert_output --partial "is relative; fix: an absolute path"
}

# every_env: ui's build, sandboxed or not, writes its environment to env.txt
# and prints it (its log is saved with the entry); the user's variables are
# passed through (strict mode hands no undeclared one, R-8a).
every_env() {
	local sandbox=${1:-}
	put packages/ui/vx.json "{ \"tasks\": { \"build\": { \"exec\": { \"command\": \"env > out.txt; env\",
		\"passThroughEnv\": [\"GREETING\", \"NPM_TOKEN\"]$sandbox },
		\"cache\": { \"inputs\": { \"files\": [\"src/**\"] }, \"outputs\": { \"files\": [\"out.txt\"] } } } } }"
}

# assert_no_vx_env FILE: FILE (an env listing) holds no credential and no
# VX_ variable but the tracer's own, and does hold the user's variables.
assert_no_vx_env() {
	run -0 cat "$1"
	refute_output --partial 's3cr3t'
	refute_output --partial 'VX_REMOTE'
	refute_output --partial 'SIGNING'
	refute_output --partial 'VX_CACHE_DIR'
	refute_output --partial 'VX_MY_SECRET'
	refute_output --regexp '(^|'$'\n'')VX_[^T]'
	assert_line 'GREETING=hello'
	assert_line 'NPM_TOKEN=user-owned'
}

with_secrets() {
	env VX_REMOTE_CACHE_TOKEN=s3cr3t-token VX_REMOTE_CACHE_SIGNING_KEY=s3cr3t-key \
		VX_MY_SECRET=s3cr3t-other VX_CACHE_DIR="$BATS_TEST_TMPDIR/cache" \
		GREETING=hello NPM_TOKEN=user-owned "$@"
}

@test "vx's credentials and VX_ variables never reach a task that is not sandboxed" {
	every_env
	run -0 with_secrets vx run build
	refute_output --partial 's3cr3t'
	assert_no_vx_env packages/ui/out.txt
	# nor the entry saved with its log
	run -1 grep -rl 's3cr3t' "$BATS_TEST_TMPDIR/cache"
}

@test "vx's credentials and VX_ variables never reach a sandboxed task" {
	every_env ', "sandbox": { "allow": { "read": ["."], "write": ["out.txt"] } }'
	run -0 with_secrets vx run build
	refute_output --partial 's3cr3t'
	assert_no_vx_env packages/ui/out.txt
	run -1 grep -rl 's3cr3t' "$BATS_TEST_TMPDIR/cache"
}

@test "R-25a vx run refuses a write grant on \$HOME or a PATH directory before anything runs: exit 2" {
	mkdir -p "$BATS_TEST_TMPDIR/tools"
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "echo ui >> ../../ran.log",
		"sandbox": { "allow": { "write": ["~/"] } } } } } }'
	run -2 vx run build
	assert_output "vx-graph: packages/ui/vx.json: tasks.build.exec.sandbox.allow.write[0]: '~/': it reaches \$HOME itself ('$HOME'), where a task could plant code the user runs later, outside any sandbox (R-25a); fix: grant only the tool's own cache directory, such as '~/.cache/<tool>/' (vx init --sandbox names the writes a task makes)"
	assert_file_not_exists ran.log
	put packages/ui/vx.json "{ \"tasks\": { \"build\": { \"exec\": { \"command\": \"echo ui >> ../../ran.log\",
		\"sandbox\": { \"allow\": { \"write\": [\"$BATS_TEST_TMPDIR/tools/\"] } } } } } }"
	PATH=$PATH:$BATS_TEST_TMPDIR/tools run -2 vx run build
	assert_output --partial "it reaches '$BATS_TEST_TMPDIR/tools', a directory on PATH"
	assert_file_not_exists ran.log
	# off PATH it is an ordinary grant; so is a tool's cache under $HOME
	put packages/ui/vx.json "{ \"tasks\": { \"build\": { \"exec\": { \"command\": \"echo x > ~/.cache/vx-test-tool/x\",
		\"sandbox\": { \"allow\": { \"write\": [\"$BATS_TEST_TMPDIR/tools/\", \"~/.cache/vx-test-tool/\"] } } } } } }"
	run -0 vx run build
	refute_output --partial 'R-25a'
	assert_file_exists "$HOME/.cache/vx-test-tool/x"
	rm -rf "$HOME/.cache/vx-test-tool"
}

# --- R-10a: a task the kernel will not let vx trace; R-35: no user namespaces

# version_ws [GRANT]: README's @ex/app#version in this workspace, in app and
# app2: it stamps the root package.json's version and falls back quietly
# when the file is hidden, one grant short (GRANT: the missing grant and
# cache input added, so it passes and is saved).
version_ws() {
	put package.json '{ "name": "root",
  "version": "2.4.0",
  "private": true, "workspaces": ["packages/*"] }'
	local read='"."' inputs='"files": ["src/**"]' p
	if [ -n "${1:-}" ]; then
		read='".", "../../package.json"'
		inputs='"files": ["src/**"], "workspaceFiles": ["package.json"]'
	fi
	for p in app app2; do
		pkg "packages/$p" "@ex/$p" '' "{ \"tasks\": { \"version\": {
			\"exec\": { \"command\": \"sh src/version.sh\",
				\"sandbox\": { \"allow\": { \"read\": [$read], \"write\": [\"dist/\"] } } },
			\"cache\": { \"inputs\": { $inputs }, \"outputs\": { \"files\": [\"dist/version.txt\"] } } } } }"
		# examples/packages/app/src/version.sh
		put "packages/$p/src/version.sh" 'v=$(sed -n '"'"'s/^ *"version": *"\([^"]*\)".*/\1/p'"'"' ../../package.json 2>/dev/null)
mkdir -p dist
echo "app ${v:-0.0.0-dev}" > dist/version.txt
cat dist/version.txt'
	done
}

# untraced CMD...: CMD under strace -f, as a user debugging vx runs it: every
# child of vx is strace's already, so vx-sandbox's pid 1 cannot seize its
# task. VX_WATCH=0 unless UNTRACED_WATCH=1: strace -f would wait on a
# vx-watch that vx starts. A sanitized build's leak check does not work
# under ptrace (it stops the world with it).
untraced() {
	env VX_WATCH="${UNTRACED_WATCH:-0}" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		timeout 120 strace -f -o /dev/null "$@"
}

UNTRACED_LINE='vx: sandboxed tasks are neither saved to nor restored from the cache this run: the kernel refuses to let vx trace them (ptrace: Operation not permitted)'

@test "R-10a: under strace -f, README's version task is not saved; the next run is judged, never a hit" {
	version_ws
	# untraced, the hidden read goes unreported: the task passes on its exit
	run -0 untraced vx run version --filter @ex/app --root "$WS"
	assert_line --regexp '^miss @ex/app#version '
	assert_output --partial '@ex/app#version: app 0.0.0-dev'
	assert_output --partial "$UNTRACED_LINE"
	assert_output --partial 'fix: run vx outside strace or a debugger that follows its children'
	# nothing was saved: the next run is a miss, judged, and fails on the
	# violation, never a hit replaying the wrong version
	run -1 env VX_WATCH=0 vx run version --filter @ex/app --root "$WS"
	assert_line --regexp '^fail @ex/app#version '
	assert_output --partial 'deny file-read package.json (openat: ENOENT)'
	refute_line --regexp '^hit '
	refute_output --partial 'neither saved'
}

@test "R-10a: two untraced tasks: the run says so once; --json marks each result untraced" {
	version_ws
	run -0 untraced vx run version --root "$WS" --json
	assert_equal "$(grep -c 'neither saved to nor restored' <<<"$output")" 1
	assert_equal "$(grep -c '"type":"result".*"status":"miss".*"traced":false' <<<"$output")" 2
	run -1 env VX_WATCH=0 vx run version --root "$WS"
	assert_line --regexp '^fail @ex/app#version '
	assert_line --regexp '^fail @ex/app2#version '
}

@test "R-10a: a saved result is not restored under strace -f, nor replayed by vx-watch" {
	version_ws fixed
	# saved, then a hit, then the run vx-watch vouches for, replayed whole
	run -0 vx run version --filter @ex/app --root "$WS"
	assert_line --regexp '^miss @ex/app#version '
	run -0 vx run version --filter @ex/app --root "$WS"
	assert_line --regexp '^hit  @ex/app#version '
	run -0 vx run version --filter @ex/app --root "$WS" --json
	assert_output --partial '"replayed":true'
	# under strace -f, the memo is not replayed (vx-watch is up already:
	# strace follows no new one), the task runs
	UNTRACED_WATCH=1
	run -0 untraced vx run version --filter @ex/app --root "$WS"
	UNTRACED_WATCH=0
	assert_line --regexp '^miss @ex/app#version '
	assert_output --partial "$UNTRACED_LINE"
	# nor is the entry restored: its output gone, the task runs again
	rm "$WS/packages/app/dist/version.txt"
	run -0 untraced vx run version --filter @ex/app --root "$WS"
	assert_line --regexp '^miss @ex/app#version '
	assert_file_exists "$WS/packages/app/dist/version.txt"
	# traced again, the saved entry is a hit
	rm "$WS/packages/app/dist/version.txt"
	run -0 env VX_WATCH=0 vx run version --filter @ex/app --root "$WS"
	assert_line --regexp '^hit  @ex/app#version '
	assert_equal "$(cat "$WS/packages/app/dist/version.txt")" "app 2.4.0"
	# --dry says what the run would do: under strace -f, run it
	run -0 untraced vx run version --filter @ex/app --root "$WS" --dry
	assert_line --regexp '^miss +[0-9a-f]{32} .*@ex/app#version$'
	# a task that is not sandboxed is saved and restored under strace -f
	pkg packages/plain @ex/plain '' '{ "tasks": { "version": { "exec": { "command": "echo plain" },
		"cache": { "inputs": { "files": ["*.json"] } } } } }'
	run -0 untraced vx run version --filter @ex/plain --root "$WS"
	assert_line --regexp '^miss @ex/plain#version '
	refute_output --partial 'neither saved'
	run -0 untraced vx run version --filter @ex/plain --root "$WS"
	assert_line --regexp '^hit  @ex/plain#version '
}

@test "R-35: where the kernel refuses new namespaces (Docker's default seccomp profile), a sandboxed task fails fast with the cause and the way out, never unsandboxed" {
	version_ws fixed
	run -1 timeout 60 vx-test-nouserns vx run version --filter @ex/app --root "$WS"
	assert_line --regexp '^fail @ex/app#version .*\(exit 125\)$'
	assert_output --partial '@ex/app#version: vx-sandbox: the kernel refuses to make a user namespace (Operation not permitted), so the task cannot be sandboxed and is not run; fix: allow unprivileged user namespaces: in a container, a seccomp profile that allows unshare and clone with CLONE_NEWUSER'
	assert_output --partial '(docs/security.md, "When the kernel refuses the sandbox")'
	assert_equal "$(grep -c 'refuses to make a user namespace' <<<"$output")" 1
	# the command never ran, sandboxed or not: it would have written this
	assert_file_not_exists "$WS/packages/app/dist/version.txt"
	refute_output --partial 'app 2.4.0'
	# nothing was saved: once the kernel allows it, the task runs
	run -0 env VX_WATCH=0 vx run version --filter @ex/app --root "$WS"
	assert_line --regexp '^miss @ex/app#version '
	# a task that is not sandboxed still runs there (R-35: lazy)
	pkg packages/plain @ex/plain '' '{ "tasks": { "version": { "exec": { "command": "echo plain ran" } } } }'
	run -0 vx-test-nouserns vx run version --filter @ex/plain --root "$WS"
	assert_output --partial '@ex/plain#version: plain ran'
}

@test "issue 35: a write denied inside the project names its grant and a declared output; the block each failed run ends with, pasted, gets it further until it passes" {
	# the block a careful user writes first, and a build that writes its
	# declared outputs elsewhere (lib/, a root file), stopping at its first
	# denied write as tools do
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "mkdir -p lib/esm && echo js > lib/esm/index.js && echo {} > stats.json",
		"sandbox": { "allow": { "read": ["."], "write": ["dist/"] } } },
		"cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["lib/**", "stats.json"] } } } } }'
	run -1 vx run build
	assert_line "  deny file-write packages/ui/lib (mkdir: EROFS)"
	assert_line "  vx: @x/ui#build wrote 'lib' in its project, where no write grant reaches (mkdir: EROFS); fix: allow.write: ['lib/'] (already a declared output: cache.outputs.files 'lib/**')"
	assert_line "  vx: @x/ui#build exited 1 after a denied write: a tool stops at its first, so another run would show only the next; fix: vx init --sandbox @x/ui#build learns every access in one run"
	run -0 apply_fix "$WS" "$output"
	assert_output 1
	run -1 vx run build
	assert_line "  deny file-write packages/ui/stats.json (openat: EROFS)"
	assert_line "  vx: @x/ui#build wrote 'stats.json' in its project, where no write grant reaches (openat: EROFS); fix: allow.write: ['stats.json'] (already a declared output: cache.outputs.files 'stats.json')"
	assert_line "  vx: @x/ui#build: every grant above with the task's own, to merge into tasks.build of packages/ui/vx.json (objects merge, lists replace): {\"exec\":{\"sandbox\":{\"allow\":{\"read\":[\".\"],\"write\":[\"dist/\",\"lib/\",\"stats.json\"]}}}}"
	run -0 apply_fix "$WS" "$output"
	run -0 vx run build
	assert_line --regexp '^miss @x/ui#build '
	refute_output --partial "SANDBOX VIOLATIONS"
	assert_equal "$(cat packages/ui/lib/esm/index.js)" "js"
	assert_equal "$(cat packages/ui/stats.json)" "{}"
}
