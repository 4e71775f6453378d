#!/usr/bin/env bats
# shellcheck disable=SC2016  # task commands inside JSON are meant to expand in the task, not here
# shellcheck disable=SC2154  # bats sets $output and $stderr
# vx run's turbo flags (issue 36 item 3) and vx's own lines kept whole
# (item 6), as a user sees them: what ran, what was saved, what is printed.

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
	export VX_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	# ui builds; app depends on it; other stands alone. Each leaves a mark
	# in ran.log so a test sees what really ran
	pkg packages/ui @x/ui '' '{ "tasks": {
		"build": { "exec": { "command": "echo ui >> ../../ran.log && echo built ui" },
		           "cache": { "inputs": { "files": ["src/**"] } } } } }'
	put packages/ui/src/a.txt "a"
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"build": { "exec": { "command": "echo app >> ../../ran.log && echo built app" }, "dependsOn": ["^build"],
		           "cache": { "inputs": { "files": ["src/**"] } } } } }'
	put packages/app/src/a.txt "a"
	pkg packages/other @x/other '' '{ "tasks": {
		"build": { "exec": { "command": "echo other >> ../../ran.log && echo built other" },
		           "cache": { "inputs": { "files": ["src/**"] } } } } }'
	put packages/other/src/a.txt "a"
}

ran() { # the tasks that really ran since the last call, sorted, one line
	if [ -f "$WS/ran.log" ]; then sort "$WS/ran.log" | tr '\n' ' ' | sed 's/ $//'; rm -f "$WS/ran.log"; fi
}

@test "--continue=never starts nothing after a failure; the default and dependencies-successful run the rest" {
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "echo ui >> ../../ran.log; exit 3" } } } }'
	# other's build waits on a slow first step: it is still to start when ui fails
	put packages/other/vx.json '{ "tasks": {
		"prep": { "exec": { "command": "sleep 1; echo prep >> ../../ran.log" } },
		"build": { "exec": { "command": "echo other >> ../../ran.log" }, "dependsOn": ["prep"] } } }'
	run -1 vx run build -j 2 --continue=never
	assert_line --regexp '^fail @x/ui#build .*\(exit 3\)$'
	assert_line "skip @x/other#build (the run stopped: @x/ui#build failed)"
	assert_line "skip @x/app#build (dependency @x/ui#build failed)"
	assert_equal "$(ran)" "prep ui"
	for c in '' --continue=dependencies-successful; do
		# shellcheck disable=SC2086  # '' is no argument
		run -1 vx run build -j 2 $c
		assert_line "skip @x/app#build (dependency @x/ui#build failed)"
		assert_equal "$(ran)" "other prep ui"
	done
	run -2 vx run build --continue=sometimes
	assert_output --partial "--continue=sometimes: expected never, dependencies-successful or always"
}

@test "--continue (always) runs a failed task's dependents too, exits 1, and saves nothing they made" {
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "echo ui >> ../../ran.log; exit 3" } } } }'
	run -1 vx run build --continue
	assert_line --regexp '^fail @x/ui#build '
	assert_line --regexp '^miss @x/app#build '
	assert_output --partial "vx: @x/app#build: ran after a dependency failed (--continue); result not saved"
	assert_equal "$(ran)" "app other ui"
	# app was not saved: it runs again; other was
	run -1 vx run build --continue=always
	assert_equal "$(ran)" "app ui"
}

@test "--concurrency N is -j N; N% is that share of the cores; 0 is refused" {
	# each waits for the other's mark: only concurrency lets both finish
	put packages/ui/vx.json '{ "tasks": { "t": { "exec": { "command": "touch ../../ui.mark; i=0; while [ ! -e ../../other.mark ] && [ $i -lt 100 ]; do sleep 0.02; i=$((i+1)); done; [ -e ../../other.mark ]" } } } }'
	put packages/other/vx.json '{ "tasks": { "t": { "exec": { "command": "touch ../../other.mark; i=0; while [ ! -e ../../ui.mark ] && [ $i -lt 100 ]; do sleep 0.02; i=$((i+1)); done; [ -e ../../ui.mark ]" } } } }'
	run -1 vx run t --concurrency 1
	rm -f ui.mark other.mark
	run -0 vx run t --concurrency=2
	rm -f ui.mark other.mark
	# 50% of the cores: one at a time on 2 or 3 cores, both at once on 4 or more
	local half=$(($(nproc) / 2)) want=1
	[ "$half" -ge 2 ] && want=0
	run "-$want" vx run t --concurrency 50%
	rm -f ui.mark other.mark
	run -0 vx run t --concurrency 100%
	run -2 vx run t --concurrency 0
	assert_output --partial "--concurrency '0': expected a number of tasks"
	run -2 vx run t --concurrency 150%
}

@test "--cache-dir DIR is VX_CACHE_DIR=DIR" {
	run -0 vx run build --cache-dir "$BATS_TEST_TMPDIR/elsewhere"
	assert_equal "$(ran)" "app other ui"
	assert [ -n "$(ls -A "$BATS_TEST_TMPDIR/elsewhere")" ]
	VX_CACHE_DIR="$BATS_TEST_TMPDIR/elsewhere" VX_WATCH=0 run -0 vx run build
	assert_equal "$(ran)" ""
	# the default cache saw none of it
	VX_WATCH=0 run -0 vx run @x/other#build
	assert_equal "$(ran)" "other"
}

@test "--cache=local:r restores but saves nothing; local: is off; write-only is refused" {
	export VX_WATCH=0
	run -0 vx run @x/other#build --cache=local:r
	run -0 vx run @x/other#build
	assert_equal "$(ran)" "other other"
	run -0 vx run @x/other#build --cache=local:r
	assert_line --regexp '^hit  @x/other#build '
	run -0 vx run @x/other#build --cache=local:
	assert_line --regexp '^miss @x/other#build '
	run -0 vx run @x/other#build --cache=local:rw,remote:r
	assert_line --regexp '^hit  @x/other#build '
	assert_equal "$(ran)" "other"
	run -2 vx run build --cache=local:w
	assert_output --partial "vx has no write-only cache"
	run -2 vx run build --cache=remote:r
	assert_output --partial "vx restores a remote hit through its local cache"
}

@test "--affected runs what changed since TURBO_SCM_BASE (default main) and its dependents" {
	git init -q -b main .
	git add -A
	git -c user.name=t -c user.email=t@example.invalid commit -qm one
	git branch base
	run -0 vx run build --affected
	assert_output --partial "nothing it names changed since main"
	put packages/ui/src/a.txt "b"
	run -0 vx run build --affected
	assert_equal "$(ran)" "app ui"
	git add -A
	git -c user.name=t -c user.email=t@example.invalid commit -qm two
	put packages/other/src/a.txt "b"
	TURBO_SCM_BASE=base run -0 vx run build --affected
	assert_equal "$(ran)" "other"
	run -0 vx run build --dry --affected
	refute_output --partial '@x/ui#build'
}

@test "--dry=json prints what --dry --json prints; --dry=text what --dry prints" {
	run -0 vx run build
	run -0 vx run build --dry --json
	local want=$output
	run -0 vx run build --dry=json
	assert_output "$want"
	run -0 vx run build --dry
	want=$output
	run -0 vx run build --dry=text
	assert_output "$want"
	run -2 vx run build --dry=yaml
}

@test "--log-prefix=none prints a task's lines as it wrote them; task and auto prefix its id" {
	run -0 vx run @x/ui#build --log-prefix=none
	assert_line "built ui"
	refute_line "@x/ui#build: built ui"
	run -0 vx run @x/ui#build --log-prefix task
	assert_line "@x/ui#build: built ui"
	run -0 vx run @x/ui#build --log-prefix=auto
	assert_line "@x/ui#build: built ui"
	run -2 vx run @x/ui#build --log-prefix=loud
}

@test "-- ARG... reaches the command of the tasks asked for, quoted; another argument is another key" {
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "echo ui >> ../../ran.log && echo ui got" },
		"cache": { "inputs": { "files": ["src/**"] } } } } }'
	put packages/app/vx.json '{ "tasks": { "build": { "exec": { "command": "echo app >> ../../ran.log && echo app got" },
		"dependsOn": ["^build"], "cache": { "inputs": { "files": ["src/**"] } } } } }'
	run -0 vx run @x/app#build -- --watch=false "it's a b" '$HOME'
	assert_line "@x/app#build: app got --watch=false it's a b \$HOME"
	assert_line "@x/ui#build: ui got"
	assert_equal "$(ran)" "app ui"
	run -0 vx run @x/app#build -- --watch=false "it's a b" '$HOME'
	assert_equal "$(ran)" ""
	run -0 vx run @x/app#build -- --watch=true
	assert_line "@x/app#build: app got --watch=true"
	assert_equal "$(ran)" "app"
	# by name: every build gets them (ui's key moves, and app's with it)
	run -0 vx run build -- --watch=true
	assert_line "@x/ui#build: ui got --watch=true"
	assert_equal "$(ran)" "app other ui"
	run -0 vx run build -- --watch=true
	assert_equal "$(ran)" ""
	# the first arguments are the first key again
	VX_WATCH=0 run -0 vx run @x/app#build -- --watch=false "it's a b" '$HOME'
	assert_equal "$(ran)" ""
}

@test "vx graph --html FILE --filter selects the projects' tasks" {
	run -0 vx graph --html "$WS/g.html" --filter @x/other
	assert_output "vx: wrote $WS/g.html (1 tasks)"
	run -0 grep -c '@x/other#build' g.html
	run -1 grep -c '@x/ui#build' g.html
	run -0 vx graph --dot build --filter @x/app...
	assert_output --partial '@x/app#build'
	assert_output --partial '@x/ui#build'
	refute_output --partial '@x/other#build'
}

@test "a workspace glob that matches nothing is said once a run, however many tasks name it" {
	for p in ui app other; do
		edit_json "packages/$p/vx.json" 'm["tasks"]["build"]["cache"]["inputs"]["workspaceFiles"] = ["config/missing.json"]'
	done
	run -0 --separate-stderr vx run build
	assert_equal "$(printf '%s\n' "$stderr" | grep -c "'config/missing.json' matches no file")" 1
	VX_WATCH=0 run -0 --separate-stderr vx run build
	assert_equal "$(printf '%s\n' "$stderr" | grep -c "'config/missing.json' matches no file")" 1
}

@test "with > log 2>&1, vx's warnings land between a task's lines, never inside one" {
	# other is done first, ui then prints 150 long lines, and app, keyed
	# right after, has a glob that warns
	pkg packages/ui @x/ui '{ "@x/other": "*" }' '{ "tasks": { "build": { "dependsOn": ["^build"],
		"exec": { "command": "i=0; while [ $i -lt 150 ]; do echo \"line $i xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"; i=$((i+1)); done" },
		"cache": { "inputs": { "files": ["src/**"] } } } } }'
	edit_json packages/app/vx.json 'm["tasks"]["build"]["cache"]["inputs"]["workspaceFiles"] = ["config/missing.json"]'
	for _ in 1 2 3; do
		VX_WATCH=0 vx run build > "$WS/log" 2>&1
		assert_equal "$(grep -c "^vx-key: .*'config/missing.json' matches no file" log)" 1
		assert_equal "$(grep -cE '^@x/ui#build: line [0-9]+ x{66}$' log)" 150
	done
}

@test "--help agrees with the manual, turbo's flags included" {
	run -0 vx run --help
	for f in --continue --concurrency --affected --cache-dir --cache --dry --log-prefix -- ; do
		assert_output --partial "  $f"
	done
	assert_help_matches_man vx
}
