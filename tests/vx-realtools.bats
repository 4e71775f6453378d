#!/usr/bin/env bats
# Real JS toolchains under the sandbox (issue 18 item 6): the workspace in
# tests/fixtures/realtools/ws (root package.json with workspaces and a
# browserslist, tsconfig.base.json, three packages linked as npm links them)
# with real tools from the npm registry, installed by tests/realtools-install.sh
# (cached outside the clone by lockfile hash), in the npm layout and in pnpm's.
# Each task carries the block a careful user writes first, read ['.'] and
# write ['dist/'], plus what the task really needs, spelled as the fix
# would spell it: a root config file as allow.read and
# cache.inputs.workspaceFiles. What a user sees: builds pass sandboxed with
# outputs byte-identical to the same build unsandboxed; test runners with
# workers pass without allow.unixSockets; a build whose root config is not
# granted fails, naming the path and the grant.
# tests/vx-realtools-rootless.bats runs it again as an unprivileged user.

load helpers

# the projects whose build outputs (dist/) are compared
BUILDS="lib app legacy"

# strip_sandbox WS: every vx.json of WS without its exec.sandbox blocks (the
# originals kept beside as vx.json.sandboxed)
strip_sandbox() {
	local f
	for f in "$1"/packages/*/vx.json; do
		cp "$f" "$f.sandboxed"
	done
	/usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/realtools/unsandbox.py" "$1"/packages/*/vx.json
}

restore_sandbox() {
	local f
	for f in "$1"/packages/*/vx.json.sandboxed; do
		mv "$f" "${f%.sandboxed}"
	done
}

# clean WS: no outputs, no tool caches, no vx state left by an earlier test
clean() {
	rm -rf "$1"/packages/*/dist "$1"/packages/*/node_modules/.vite "$1"/packages/*/node_modules/.vite-temp \
		"$1/node_modules/.vite-temp" \
		"$1/node_modules/.vite" "$1/.vx"
}

# layout LAYOUT: install it into the file's tmpdir, then build it unsandboxed
# once (its own cache) and keep each project's dist/ as the reference
layout() {
	local ws=$BATS_FILE_TMPDIR/$1/ws ref=$BATS_FILE_TMPDIR/$1/ref p
	bash "$BATS_TEST_DIRNAME/realtools-install.sh" "$1" "$ws"
	strip_sandbox "$ws"
	(cd "$ws" && VX_CACHE_DIR=$BATS_FILE_TMPDIR/$1/refcache vx run build > "$BATS_FILE_TMPDIR/$1/ref.log" 2>&1) || {
		cat "$BATS_FILE_TMPDIR/$1/ref.log" >&2
		echo "the unsandboxed $1 build failed: the fixture is broken, not the sandbox" >&2
		return 1
	}
	restore_sandbox "$ws"
	for p in $BUILDS; do
		mkdir -p "$ref/$p"
		cp -a "$ws/packages/$p/dist/." "$ref/$p/"
	done
	clean "$ws"
}

setup_file() {
	layout npm
	layout pnpm
}

# use LAYOUT [CACHE]: cd into that layout's workspace, clean, with a fresh
# cache (or CACHE, kept between tests)
use() {
	WS=$BATS_FILE_TMPDIR/$1/ws
	REF=$BATS_FILE_TMPDIR/$1/ref
	clean "$WS"
	cd "$WS" || return 1
	export VX_CACHE_DIR="${2:-$BATS_TEST_TMPDIR/cache}"
	# the tools colour their output when CI is set (tinyrainbow, picocolors);
	# the assertions read their words
	export NO_COLOR=1
}

# same_as_unsandboxed: every built dist/ equals the unsandboxed reference
same_as_unsandboxed() {
	local p
	for p in $BUILDS; do
		run diff -r "$REF/$p" "$WS/packages/$p/dist"
		if [ "$status" -ne 0 ]; then
			fail "packages/$p/dist differs from the unsandboxed build: $(head -c 2000 <<< "$output")"
		fi
	done
}

# builds_pass LAYOUT: the three builds, into the layout's shared cache (which
# runners_pass then hits instead of building again)
builds_pass() {
	rm -rf "$BATS_FILE_TMPDIR/$1/cache"
	use "$1" "$BATS_FILE_TMPDIR/$1/cache"
	run vx run build
	assert_success
	refute_output --partial "SANDBOX VIOLATIONS"
	assert_line --regexp '^miss @rt/lib#build '
	assert_line --regexp '^miss @rt/app#build '
	assert_line --regexp '^miss @rt/legacy#build '
	same_as_unsandboxed
}

# runners_pass LAYOUT: vitest with fork workers (lib) and thread workers
# (app, whose tests also spawn the bundle with piped stdio)
runners_pass() {
	use "$1" "$BATS_FILE_TMPDIR/$1/cache"
	run grep -rl unixSockets packages
	assert_output ""
	run vx run test
	assert_success
	refute_output --partial "SANDBOX VIOLATIONS"
	refute_output --partial "EPERM"
	assert_line --regexp '^@rt/lib#test: +Tests +5 passed \(5\)'
	assert_line --regexp '^@rt/app#test: +Tests +2 passed \(2\)'
}

@test "npm layout: tsc, esbuild's service and rollup+babel build sandboxed, byte-identical to the unsandboxed build" {
	builds_pass npm
}

@test "npm layout: vitest with fork and thread workers passes sandboxed without allow.unixSockets" {
	runners_pass npm
}

@test "pnpm layout: the same builds pass sandboxed, byte-identical to the unsandboxed build" {
	builds_pass pnpm
}

@test "pnpm layout: vitest with fork and thread workers passes sandboxed without allow.unixSockets" {
	runners_pass pnpm
}

# caches_stay_private LAYOUT: vitest's results cache (node_modules/.vite/
# vitest/<hash>/results.json in the project) and vite's bundled config
# (.vite-temp in the nearest node_modules) need no grant (issue 35 item 4):
# the test tasks grant only dist/ to write, pass, and leave no file in any
# node_modules of the tree
caches_stay_private() {
	use "$1" "$BATS_FILE_TMPDIR/$1/cache"
	run grep -l 'node_modules' packages/lib/vx.json packages/app/vx.json
	assert_output ""
	touch "$BATS_TEST_TMPDIR/mark"
	run vx run test
	assert_success
	refute_output --partial "SANDBOX VIOLATIONS"
	assert_line --regexp '^@rt/lib#test: +Tests +5 passed \(5\)'
	run find packages/lib/node_modules packages/app/node_modules node_modules -newer "$BATS_TEST_TMPDIR/mark" -not -type d
	assert_output ""
}

@test "npm layout: vitest's caches need no grant and never reach the tree" {
	caches_stay_private npm
}

@test "pnpm layout: vitest's caches need no grant and never reach the tree" {
	caches_stay_private pnpm
}

@test "babel with the root package.json (browserslist) not granted fails, naming ../../package.json, the grant and the cache input; nothing is cached" {
	use npm
	run -1 vx run @rt/legacy#build-first
	assert_line "SANDBOX VIOLATIONS @rt/legacy#build-first"
	assert_line --regexp "\.\./\.\./package\.json.*allow\.read"
	assert_line --regexp "workspaceFiles.*package\.json"
	run -1 vx run @rt/legacy#build-first
	refute_line --regexp '^hit '
	# issue 35: the block it ends with, pasted, is the whole fix
	cp packages/legacy/vx.json "$BATS_TEST_TMPDIR/vx.json"
	run -0 apply_fix "$WS" "$output"
	assert_output 1
	run vx run @rt/legacy#build-first
	cp "$BATS_TEST_TMPDIR/vx.json" packages/legacy/vx.json
	assert_success
	refute_output --partial "SANDBOX VIOLATIONS"
	run -0 diff -r "$REF/legacy" packages/legacy/dist
}

@test "tsc with the extended tsconfig.base.json not granted fails, naming ../../tsconfig.base.json, the grant and the cache input, and no hint widens to the workspace" {
	use npm
	run -1 vx run @rt/lib#build-first
	assert_line "SANDBOX VIOLATIONS @rt/lib#build-first"
	assert_line --regexp "\.\./\.\./tsconfig\.base\.json.*allow\.read: \['\.\./\.\./tsconfig\.base\.json'\]"
	assert_line --regexp "workspaceFiles.*tsconfig\.base\.json"
	refute_line --partial "allow.read: ['../..']"
	refute_line --partial "allow.read: ['..']"
	refute_line --partial "EINVAL"
	# issue 35: the block it ends with, pasted, is the whole fix
	cp packages/lib/vx.json "$BATS_TEST_TMPDIR/vx.json"
	run -0 apply_fix "$WS" "$output"
	assert_output 1
	run vx run @rt/lib#build-first
	cp "$BATS_TEST_TMPDIR/vx.json" packages/lib/vx.json
	assert_success
	refute_output --partial "SANDBOX VIOLATIONS"
	run -0 diff -r "$REF/lib" packages/lib/dist
}

@test "the root config granted and keyed: a hit when nothing moved, a re-run with other output when the browserslist moves" {
	use npm
	cp package.json "$BATS_TEST_TMPDIR/package.json"
	run -0 vx run @rt/legacy#build
	run -0 vx run @rt/legacy#build
	assert_line --regexp '^hit  @rt/legacy#build '
	sed -i 's/"chrome 100", "firefox 100", "safari 15"/"ie 11"/' package.json
	run -0 vx run @rt/legacy#build
	cp "$BATS_TEST_TMPDIR/package.json" package.json
	assert_line --regexp '^miss @rt/legacy#build '
	run diff -q "$REF/legacy/legacy.cjs" packages/legacy/dist/legacy.cjs
	assert_failure
}

@test "adding the sandbox block to a cached build re-runs it: no hit from the unsandboxed run" {
	use npm
	strip_sandbox "$WS"
	run vx run @rt/legacy#build
	restore_sandbox "$WS"
	assert_success
	run -0 vx run @rt/legacy#build
	assert_line --regexp '^miss @rt/legacy#build '
}

@test "vx init --sandbox learns rollup+babel's block in one run, verifies it, and the block applied builds the unsandboxed output" {
	use npm
	strip_sandbox "$WS"
	# nor keyed: the learning run must find the root config itself
	/usr/bin/python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
del c["tasks"]["build"]["cache"]["inputs"]["workspaceFiles"]
json.dump(c, open(sys.argv[1], "w"), indent=2)
' packages/legacy/vx.json
	run -0 --separate-stderr vx init --sandbox @rt/legacy#build --only
	# shellcheck disable=SC2154  # bats sets stderr_lines
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -c 'learning run:')" 1
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -e 'learned' -e 'verified')" \
		"vx-init: @rt/legacy#build: learned in 1 run
vx-init: @rt/legacy#build: verified: the proposed block passes with no violation, and its $(find "$REF/legacy" -type f | wc -l) output files match the learning run's"
	# the root package.json (browserslist) found, granted and keyed
	assert_line --regexp '^\+.*"sandbox": \{ "allow": \{ "read": \[.*"\.\./\.\./package\.json".*\], "write": \["dist/"\] \} \}'
	assert_line --regexp '^\+.*"workspaceFiles": \[.*"package\.json".*\]'
	printf '%s\n' "$output" | git apply
	rm -rf packages/legacy/dist
	run -0 vx run @rt/legacy#build
	refute_output --partial "SANDBOX VIOLATIONS"
	run -0 diff -r "$REF/legacy" packages/legacy/dist
	run -0 vx run @rt/legacy#build
	assert_line --regexp '^hit  @rt/legacy#build '
	restore_sandbox "$WS"
}
