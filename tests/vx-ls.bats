#!/usr/bin/env bats
# shellcheck disable=SC2154  # bats sets $output
# vx ls (issue 36 item 5): turbo's ls, from vx-graph's records: the
# packages, each package's tasks, --json, --filter, and a name that is no
# package.

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
	pkg packages/ui @x/ui '' '{ "tasks": { "build": { "exec": { "command": "echo ui > out.txt" },
		"cache": { "outputs": { "files": ["out.txt"] } } } } }'
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"build": { "exec": { "command": "echo app",
			"sandbox": { "allow": { "read": ["."], "write": ["dist/"] } } },
			"dependsOn": ["^build"], "cache": {} },
		"dev": { "exec": { "command": "serve", "persistent": true } },
		"all": { "dependsOn": ["build"] } } }'
	pkg packages/lone @x/lone
}

@test "vx ls: every package of the workspace, name and directory" {
	run -0 vx ls
	assert_equal "${lines[0]}" "4 packages"
	assert_line --regexp '^  root +\.$'
	assert_line --regexp '^  @x/app +packages/app$'
	assert_line --regexp '^  @x/ui +packages/ui$'
	assert_line --regexp '^  @x/lone +packages/lone$'
	assert_equal "${#lines[@]}" 5
}

@test "vx ls PKG: its tasks, their command, dependsOn, cached and sandboxed" {
	run -0 vx ls @x/app
	assert_equal "${lines[0]}" "@x/app  packages/app"
	assert_line '  build: echo app'
	assert_line '    dependsOn: @x/ui#build'
	assert_line '    cached, sandboxed'
	assert_line '  dev: serve'
	assert_line '    not cached, not sandboxed, persistent'
	assert_line '  all: (a group: no command of its own)'
	assert_line '    dependsOn: @x/app#build'
	# a directory names it too; only its own tasks are listed
	run -0 vx ls ./packages/ui
	assert_equal "${lines[0]}" "@x/ui  packages/ui"
	assert_line '  build: echo ui > out.txt'
	assert_line '    cached, not sandboxed'
	refute_output --partial 'echo app'
}

@test "vx ls --json: an ls record, then one package record each, with tasks for PKG" {
	run -0 vx ls --json
	run -0 /usr/bin/python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.argv[1].splitlines()]
print(recs[0]["type"], recs[0]["v"], recs[0]["packages"], recs[0]["root"] == sys.argv[2])
for r in recs[1:]:
    print(r["type"], r["name"], r["dir"], "tasks" in r)
' "$output" "$(pwd -P)"
	assert_line 'ls 1 4 True'
	assert_line 'package @x/app packages/app False'
	assert_line 'package root . False'
	run -0 vx ls --json packages/app
	run -0 /usr/bin/python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.argv[1].splitlines()]
for t in recs[1]["tasks"]:
    print(t["id"], t["kind"], t["command"], ",".join(t["dependsOn"]), t["cached"], t["sandboxed"])
' "$output"
	assert_line '@x/app#build exec echo app @x/ui#build True True'
	assert_line '@x/app#dev persistent serve  False False'
	assert_line '@x/app#all group None @x/app#build False False'
	# turbo's spelling is the same output
	run -0 vx ls --json @x/app
	local want=$output
	run -0 vx ls --output=json @x/app
	assert_equal "$output" "$want"
	run -2 vx ls --output=yaml
	assert_output "vx: ls --output=yaml: expected json or pretty"
}

@test "vx ls --filter: the packages it selects; a filter matching nothing is refused" {
	run -0 vx ls --filter '@x/app...'
	assert_equal "${lines[0]}" "2 packages"
	assert_line --regexp '^  @x/app +packages/app$'
	assert_line --regexp '^  @x/ui +packages/ui$'
	run -0 vx ls --filter '!@x/app' --json
	refute_output --partial '"@x/app"'
	assert_output --partial '"@x/ui"'
	run -2 vx ls --filter nope
	assert_output --partial "--filter 'nope': matches no project"
	run -2 vx ls --filter @x/ui @x/app
	assert_output "vx: ls '@x/app': not among the packages --filter selects; fix: name one of the packages 'vx ls --filter ...' lists, by name or directory"
}

@test "vx ls PKG that is no package: one line, exit 2" {
	run -2 vx ls @x/nope
	assert_output "vx: ls '@x/nope': no such package; fix: name one of the packages 'vx ls' lists, by name or directory"
}

@test "vx ls on the examples workspace" {
	cp -r "$BATS_TEST_DIRNAME/../examples" "$BATS_TEST_TMPDIR/examples"
	cd "$BATS_TEST_TMPDIR/examples" || return 1
	run -0 vx ls
	assert_equal "${lines[0]}" "3 packages"
	assert_line --regexp '^  @ex/app +packages/app$'
	assert_line --regexp '^  @ex/util +packages/util$'
	run -0 vx ls @ex/app
	assert_line '    dependsOn: @ex/util#build'
	assert_line '  version: sh src/version.sh'
	assert_line '    cached, sandboxed'
}
