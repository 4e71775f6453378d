#!/usr/bin/env bats
# shellcheck disable=SC2154  # bats sets $stderr, $output, $lines
# shellcheck disable=SC2016  # task commands inside JSON expand in the task
# --filter and --only (issue 22 item 4): turbo's selector grammar over the
# package graph, in vx-graph and vx run; and vx run --dry's hit or miss
# (item 6). The fixture: @acme/util <- @acme/ui <- web, and docs alone,
# in a git repository made by the test.

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
	export VX_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	put package.json '{ "name": "root", "private": true, "workspaces": ["packages/*", "apps/*"] }'
	# lint has no dependencies, so a selection shows as it is; build
	# depends on ^build; each command leaves its project's name in ran.log
	local tasks='{ "tasks": {
		"lint": { "exec": { "command": "echo \"$(basename \"$PWD\")\" >> ../../ran.log" } },
		"build": { "exec": { "command": "echo \"$(basename \"$PWD\")\" >> ../../ran.log; echo built" },
		           "dependsOn": ["^build"], "cache": { "inputs": { "files": ["src/**"] } } } } }'
	pkg packages/util @acme/util '' "$tasks"
	pkg packages/ui @acme/ui '{ "@acme/util": "*" }' "$tasks"
	pkg apps/web web '{ "@acme/ui": "*" }' "$tasks"
	pkg apps/docs docs '' "$tasks"
	for p in packages/util packages/ui apps/web apps/docs; do put "$p/src/a.js" "$p"; done
	put .gitignore 'ran.log'
	git init -q -b main .
	git add -A
	commit one
}

commit() {
	git -c user.name=t -c user.email=t@example.invalid commit -qm "$1"
}

# sel FILTER...: the ids vx-graph selects for lint with these --filter
# options, sorted (lint has no dependencies: the order is the projects')
sel() {
	local args=() f
	for f in "$@"; do args+=(--filter "$f"); done
	run -0 --separate-stderr vx-graph "${args[@]}" lint
	ids "$output" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//'
}

ran() { # the projects whose command ran since the last call, sorted, one line
	if [ -f "$WS/ran.log" ]; then sort "$WS/ran.log" | tr '\n' ' ' | sed 's/ $//'; rm -f "$WS/ran.log"; fi
}

@test "a package name, a scoped name's last half, and a name glob" {
	assert_equal "$(sel web)" "web#lint"
	assert_equal "$(sel @acme/ui)" "@acme/ui#lint"
	# turbo: a bare name matching nothing stands for the one scoped package it ends
	assert_equal "$(sel ui)" "@acme/ui#lint"
	assert_equal "$(sel '@acme/*')" "@acme/ui#lint @acme/util#lint"
	assert_equal "$(sel '*o*')" "docs#lint"
}

@test "a directory, a directory glob, and {dir} beside a name" {
	assert_equal "$(sel ./apps/web)" "web#lint"
	assert_equal "$(sel ./apps/web/)" "web#lint"
	assert_equal "$(sel './packages/*')" "@acme/ui#lint @acme/util#lint"
	assert_equal "$(sel '{./apps/*}')" "docs#lint web#lint"
	assert_equal "$(sel 'w*{./apps/*}')" "web#lint"
}

@test "... adds dependencies after a name, dependents before it; ^ leaves the name out" {
	assert_equal "$(sel 'web...')" "@acme/ui#lint @acme/util#lint web#lint"
	assert_equal "$(sel 'web^...')" "@acme/ui#lint @acme/util#lint"
	assert_equal "$(sel '...util')" "@acme/ui#lint @acme/util#lint web#lint"
	assert_equal "$(sel '...^util')" "@acme/ui#lint web#lint"
	assert_equal "$(sel '...@acme/ui')" "@acme/ui#lint web#lint"
	assert_equal "$(sel 'docs...')" "docs#lint"
}

@test "several filters union; ! subtracts, from everything when no filter adds" {
	assert_equal "$(sel web docs)" "docs#lint web#lint"
	assert_equal "$(sel '!web')" "@acme/ui#lint @acme/util#lint docs#lint"
	assert_equal "$(sel 'web...' '!@acme/util')" "@acme/ui#lint web#lint"
	assert_equal "$(sel '!./packages/*' '!docs')" "web#lint"
}

@test "[ref]: the projects owning a file changed since the ref, uncommitted and untracked too" {
	run -0 --separate-stderr vx-graph --filter '[HEAD]' lint
	assert_equal "$(ids "$output")" ""
	assert_equal "$stderr" "vx-graph: --filter '[HEAD]': nothing it names changed since HEAD
vx-graph: nothing to run: the projects --filter selects have none of the tasks asked for"
	echo more >> packages/ui/src/a.js
	assert_equal "$(sel '[HEAD]')" "@acme/ui#lint"
	# an untracked file counts, an ignored one does not
	put apps/docs/new.md new
	echo x >> ran.log
	assert_equal "$(sel '[HEAD]')" "@acme/ui#lint docs#lint"
	# a file of no package belongs to the root project
	put README.md readme
	assert_equal "$(sel '[HEAD]' '!root')" "@acme/ui#lint docs#lint"
	git add -A
	commit two
	assert_equal "$(sel '[HEAD]')" ""
	assert_equal "$(sel '[HEAD~1]' '!root')" "@acme/ui#lint docs#lint"
	assert_equal "$(sel '[HEAD^1]' '!root')" "@acme/ui#lint docs#lint"
	# a branch name, and a range FROM...TO (from their merge base to TO)
	git branch old HEAD~1
	assert_equal "$(sel '[old]' '!root')" "@acme/ui#lint docs#lint"
	assert_equal "$(sel '[old...HEAD]' '!root')" "@acme/ui#lint docs#lint"
	assert_equal "$(sel '[HEAD...HEAD]')" ""
}

@test "[ref]: never answered from vx-graph's saved output, which no commit or source edit moves" {
	# the saved graph keeps notes only of files over a second old: age them
	mkdir -p .vx
	find . -path ./.git -prune -o -exec touch -h -d '-1 min' {} +
	assert_equal "$(sel '[HEAD]')" ""
	assert_equal "$(sel '[HEAD]')" ""
	echo more >> packages/ui/src/a.js
	assert_equal "$(sel '[HEAD]')" "@acme/ui#lint"
	# a plain name filter is saved and replayed, keyed by the filter
	assert_equal "$(sel web)" "web#lint"
	assert_equal "$(sel web)" "web#lint"
	assert_equal "$(sel docs)" "docs#lint"
}

@test "[ref] with dots: what depends on a change, and a name when it or a dependency changed" {
	echo more >> packages/util/src/a.js
	assert_equal "$(sel '...[HEAD]')" "@acme/ui#lint @acme/util#lint web#lint"
	assert_equal "$(sel '...^[HEAD]')" "@acme/ui#lint web#lint"
	assert_equal "$(sel 'web...[HEAD]')" "web#lint"
	assert_equal "$(sel 'docs...[HEAD]')" ""
	assert_equal "$(sel '{./apps/*}...[HEAD]')" "web#lint"
	assert_equal "$(sel 'web[HEAD]')" ""
	assert_equal "$(sel '@acme/*[HEAD]')" "@acme/util#lint"
}

@test "vx run: a filter keeps dependencies, --only leaves them out, uncached and said so" {
	run -0 vx run build --filter web
	assert_equal "$(ran)" "ui util web"
	run -0 vx run build --filter web
	assert_equal "$(ran)" ""
	# --only: web's build alone; it ran without ^build, so it is not cached
	echo more >> apps/web/src/a.js
	run -0 --separate-stderr vx run build --filter web --only
	assert_equal "$(ran)" "web"
	assert_equal "$stderr" "vx-graph: --only: web#build without its dependencies, so uncached (neither restored nor saved)"
	run -0 vx run build --filter web --only
	assert_equal "$(ran)" "web"
	# a task with no dependencies to lose is cached as ever
	run -0 --separate-stderr vx run lint --filter web --only
	assert_equal "$stderr" ""
	assert_equal "$(ran)" "web"
	# --only without --filter: the named tasks of every project, no edges
	run -0 --separate-stderr vx-graph --only build
	assert_equal "$(ids "$output")" "docs#build @acme/util#build @acme/ui#build web#build"
	# ui keeps its edge to util, both selected: both cached, hits now
	run -0 vx run build --filter 'web^...' --only
	assert_equal "$(ran)" ""
	assert_line --regexp '^hit  @acme/ui#build '
}

@test "vx graph takes --filter; vx run's replay is per filter" {
	run -0 --separate-stderr vx graph --filter docs
	assert_equal "$(ids "$output")" "docs#lint docs#build"
	[ -x "$VX_BIN_DIR/vx-watch" ] || skip "no vx-watch"
	# the second run is all hits with vx-watch's token: remembered, and the
	# third replayed from it
	run -0 vx run build
	run -0 vx run build
	run -0 vx run build
	assert_equal "$(ran)" "docs ui util web"
	run -0 vx run build --filter docs
	assert_output --partial "docs#build"
	refute_output --partial "web#build"
	run -0 vx run build --filter docs
	refute_output --partial "web#build"
	run -0 vx run build --filter web
	assert_output --partial "web#build"
	refute_output --partial "docs#build"
}

@test "errors: one line naming the filter, and the fix; bad refs name the ref and git's words" {
	run -2 --separate-stderr vx-graph --filter nosuch lint
	assert_equal "$stderr" "vx-graph: --filter 'nosuch': matches no project; fix: name a project by its package.json name or glob (@acme/*), or a directory holding one (./apps/web)"
	assert_equal "$output" ""
	run -2 --separate-stderr vx run lint --filter './apps/none'
	assert_output ""
	assert_regex "$stderr" "^vx-graph: --filter './apps/none': matches no project; fix: "
	run -2 --separate-stderr vx-graph --filter '[nosuchref]' lint
	assert_regex "$stderr" "^vx-graph: --filter '\[nosuchref\]': git merge-base nosuchref HEAD: fatal: Not a valid object name nosuchref; fix: name a commit, branch or tag"
	# a ref is an argument to git: never an option
	run -2 --separate-stderr vx-graph --filter '[main...nosuch]' lint
	assert_regex "$stderr" "^vx-graph: --filter '\[main\.\.\.nosuch\]': git diff main\.\.\.nosuch: fatal: "
	run -2 --separate-stderr vx-graph --filter '[--output=/tmp/x]' lint
	assert_equal "$stderr" "vx-graph: --filter '[--output=/tmp/x]': a git ref may not start with '-'; fix: name a commit, branch or tag: [main], [HEAD~2]"
	run -2 --separate-stderr vx-graph --filter '{}' lint
	assert_regex "$stderr" "^vx-graph: --filter '\{\}': an empty \{directory\}; fix: "
	run -2 --separate-stderr vx-graph --filter './../x' lint
	assert_regex "$stderr" "the directory is outside the workspace"
	run -2 --separate-stderr vx-graph --filter '...[HEAD]x' lint
	assert_regex "$stderr" "a git ref must be written \[REF\] at the end"
	run -2 --separate-stderr vx-graph --filter '!' lint
	assert_regex "$stderr" "no name, directory or \[git ref\]"
	# a task no project defines is still a typo, filter or not
	run -2 --separate-stderr vx-graph --filter web nosuchtask
	assert_regex "$stderr" "no task 'nosuchtask' in any project"
	# outside a git checkout
	rm -rf .git
	run -2 --separate-stderr vx-graph --filter '[main]' lint
	assert_regex "$stderr" "^vx-graph: --filter '\[main\]': git merge-base main HEAD: fatal: not a git repository"
}

@test "a [ref] that selects nothing runs nothing and exits 0, saying so" {
	run -0 --separate-stderr vx run build --filter '[HEAD]'
	assert_equal "$(ran)" ""
	assert_line --index 0 --regexp '^vx: 0 tasks: 0 hit, 0 miss, 0 failed, 0 skipped \([0-9.]+s\)$'
	assert_regex "$stderr" "--filter '\[HEAD\]': nothing it names changed since HEAD"
}

@test "--dry: miss with no key taken while the cache is empty, then hit with the key; run under --force" {
	run -0 vx run build --dry --filter 'web...'
	assert_line --index 0 --regexp '^miss    -                                -           @acme/util#build$'
	assert_equal "${#lines[@]}" 3
	assert_equal "$(ran)" ""
	# a dry run asks a running vx-watch, and starts none
	local waited=0
	while [ "$waited" -lt 10 ]; do
		[ ! -e .vx/watch.sock ] || fail "--dry started a vx-watch"
		sleep 0.2
		waited=$((waited + 1))
	done
	run -0 vx run build --filter '@acme/*'
	assert_equal "$(ran)" "ui util"
	run -0 vx run build --dry --filter 'web...'
	assert_line --index 0 --regexp '^hit     [0-9a-f]{32} final       @acme/util#build$'
	assert_line --index 1 --regexp '^hit     [0-9a-f]{32} final       @acme/ui#build$'
	assert_line --index 2 --regexp '^miss    [0-9a-f]{32} final       web#build$'
	run -0 --separate-stderr vx run build --dry --json --filter web --only
	assert_output --regexp '^\{"type":"dry","id":"web#build","status":"run","key":"[0-9a-f]{32}","final":true\}$'
	run -0 vx run build --dry --force --filter web
	assert_line --index 2 "run     -                                -           web#build"
	run -0 vx run lint --dry --filter docs
	# uncached: it runs whatever the cache holds (its key taken, the cache not empty)
	assert_output --regexp '^run     [0-9a-f]{32} final       docs#lint$'
	assert_equal "$(ran)" ""
}

@test "--dry of a run vx-watch vouches for is its hits, read from the remembered run" {
	[ -x "$VX_BIN_DIR/vx-watch" ] || skip "no vx-watch"
	run -0 vx run build --filter 'web...'
	run -0 vx run build --filter 'web...'
	assert_equal "$(ran)" "ui util web"
	run -0 vx run build --dry --filter 'web...'
	assert_line --index 2 --regexp '^hit     [0-9a-f]{32} final       web#build$'
	echo more >> packages/util/src/a.js
	run -0 vx run build --dry --filter 'web...'
	assert_line --index 0 --regexp '^miss    [0-9a-f]{32} final       @acme/util#build$'
}
