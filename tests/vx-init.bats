#!/usr/bin/env bats
# shellcheck disable=SC2154,SC2016  # bats sets $stderr; $TURBO_DEFAULT$ and $npm_ stay literal
# vx init: vx.json files from turbo.json and package.json scripts. Two real
# monorepos' config files (tests/fixtures/vx-init/, with their licences)
# import, fold, and run the tasks turbo runs; refusals, --dry, bad input.

load helpers

FIX="$BATS_TEST_DIRNAME/fixtures/vx-init"

setup() {
	new_ws
	cd "$WS" || return 1
}

# fixture NAME: a copy of a fixture workspace as $WS
fixture() {
	rm -rf "$WS"
	cp -r "$FIX/$1" "$WS"
	cd "$WS" || return 1
}

# closure: from vx graph's records on stdin, each exec task and the exec
# tasks it waits for through any path (groups included), as in the
# fixtures' turbo-build.txt
closure() {
	/usr/bin/python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.stdin if l.strip()]
tasks = {r["id"]: r for r in recs if r.get("type") == "task"}
def clo(k, seen):
    for d in tasks[k]["deps"]:
        if d not in seen:
            seen.add(d)
            clo(d, seen)
    return seen
ex = {k for k, r in tasks.items() if r["kind"] == "exec"}
for k in sorted(ex):
    print(" ".join([k] + sorted(clo(k, set()) & ex)))
'
}

# vx.json as JSON: comments and trailing commas stripped as vx reads them
vxjson() {
	/usr/bin/python3 -c '
import json, re, sys
t = open(sys.argv[1]).read()
t = re.sub(r"^\s*//.*$", "", t, flags=re.M)
print(json.dumps(json.loads(t)["tasks"][sys.argv[2]], separators=(",", ":")))
' "$1" "$2"
}

@test "create-t3-turbo imports, folds, and vx run build runs what turbo runs" {
	fixture create-t3-turbo
	run -0 vx init
	assert_line --partial "wrote 13 vx.json files"
	run -0 vx graph
	vx graph build > "$BATS_TEST_TMPDIR/g"
	run -0 closure < "$BATS_TEST_TMPDIR/g"
	assert_equal "$output" "$(grep -v '^#' "$FIX/create-t3-turbo.turbo-build.txt")"
	# the same exec tasks are what vx run build --dry lists
	run -0 vx run build --dry
	for t in @acme/api#build @acme/db#build @acme/nextjs#build @acme/tanstack-start#build \
		@acme/validators#build; do
		assert_line --regexp " $t\$"
	done
}

@test "create-t3-turbo: scripts, outputs, env, persistent, cache:false and the root's //#clean" {
	fixture create-t3-turbo
	run -0 vx init
	# apps/nextjs/turbo.json extends the root's: its outputs and a persistent dev
	assert_equal "$(vxjson apps/nextjs/vx.json build)" \
		'{"exec":{"command":"pnpm with-env next build"},"dependsOn":["^build"],"cache":{"inputs":{"env":["POSTGRES_URL","AUTH_DISCORD_ID","AUTH_DISCORD_SECRET","AUTH_REDIRECT_PROXY_URL","AUTH_SECRET","PORT"]},"outputs":{"files":[".next/**","!.next/cache/**","next-env.d.ts"]}}}'
	assert_equal "$(vxjson apps/nextjs/vx.json dev)" \
		'{"exec":{"command":"pnpm with-env next dev","persistent":true},"dependsOn":["^dev"]}'
	# cache: false: no cache key at all
	assert_equal "$(vxjson packages/api/vx.json clean)" \
		'{"exec":{"command":"git clean -xdf .cache .turbo dist node_modules"}}'
	# "//#clean" is the root package's clean; the root's build is not turbo's task
	assert_equal "$(vxjson vx.json clean)" '{"exec":{"command":"git clean -xdf node_modules"}}'
	run ! grep -q '"build"' vx.json
	# topo: no script, so a group that keeps the order, marked as approximate
	assert_equal "$(vxjson packages/api/vx.json topo)" '{"dependsOn":["^topo"]}'
	run -0 grep -B1 '"topo": {' packages/api/vx.json
	assert_line --index 0 --partial '// turbo: no "topo" command here, so a group'
}

@test "create-t3-turbo: what is not carried over is one line each, naming file and key" {
	fixture create-t3-turbo
	run -0 --separate-stderr vx init
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | sort)" "$(printf '%s\n' \
		'vx-init: apps/expo/turbo.json: tasks.dev.interactive: not carried over: vx gives a task no terminal input' \
		'vx-init: turbo.json: tasks.format.outputLogs: not carried over: how much of a task'"'"'s output to show is a run-wide choice in vx: vx run --output-logs new-only' \
		'vx-init: turbo.json: tasks.push.interactive: not carried over: vx gives a task no terminal input' \
		'vx-init: turbo.json: tasks.ui-add.interactive: not carried over: vx gives a task no terminal input' \
		'vx-init: turbo.json: ui: not carried over: vx prints each task'"'"'s output its own way' | sort)"
}

@test "shadcn-ui imports, folds, and vx run build runs what turbo runs" {
	fixture shadcn-ui
	run -0 vx init
	run -0 vx graph
	vx graph build > "$BATS_TEST_TMPDIR/g"
	run -0 closure < "$BATS_TEST_TMPDIR/g"
	# vx links v4's "shadcn": "4.19.0" to the workspace package by name
	# (R-2), where pnpm (and so turbo) takes it from the registry: one edge
	# more than turbo's, an order, never a missing one
	assert_equal "$output" "$(grep -v '^#' "$FIX/shadcn-ui.turbo-build.txt" |
		sed 's/^v4#build @shadcn\/helpers#build @shadcn\/react#build$/& shadcn#build/')"
	# turbo's "outputs": [] and "cache": false
	assert_equal "$(vxjson packages/shadcn/vx.json typecheck)" \
		'{"exec":{"command":"tsc --noEmit"},"cache":{"inputs":{"env":["NODE_ENV"]}}}'
	assert_equal "$(vxjson packages/shadcn/vx.json format:check)" \
		'{"exec":{"command":"prettier --check \"**/*.{ts,tsx,mdx}\" --cache"}}'
}

@test "an existing vx.json is refused, and nothing is written" {
	fixture create-t3-turbo
	put packages/db/vx.json '{ "tasks": {} }'
	run -1 --separate-stderr vx init
	assert_equal "$stderr" "vx-init: packages/db/vx.json: exists, nothing written; fix: --force to replace it, or --dry to see the diff"
	assert_file_not_exists packages/api/vx.json
	assert_file_not_exists vx.json
	assert_equal "$(cat packages/db/vx.json)" '{ "tasks": {} }'
	run -0 vx init --force
	run -0 grep -q '"command": "tsc"' packages/db/vx.json
}

@test "a vx.json that is a symlink is refused, and with --force replaced, never followed" {
	fixture shadcn-ui
	ln -s "$BATS_TEST_TMPDIR/elsewhere" packages/react/vx.json
	run -1 vx init
	assert_output --partial "packages/react/vx.json: exists"
	run -0 vx init --force
	assert_file_not_exists "$BATS_TEST_TMPDIR/elsewhere"
	[ ! -L packages/react/vx.json ]
	run -0 grep -q '"command": "tsup"' packages/react/vx.json
	run -1 bash -c 'ls -a packages/react | grep init-'
}

@test "--dry prints the diff and writes nothing" {
	fixture create-t3-turbo
	run -0 vx init --dry
	assert_line '+++ b/packages/api/vx.json'
	assert_line '+      "exec": { "command": "tsc" },'
	run -0 find . -name vx.json
	assert_output ''
	# against a file on disk: the diff from it; still nothing written
	put packages/db/vx.json '{ "tasks": {} }'
	run -0 vx init --print
	assert_line '--- a/packages/db/vx.json'
	assert_line '-{ "tasks": {} }'
	assert_equal "$(cat packages/db/vx.json)" '{ "tasks": {} }'
}

@test "a bad turbo.json is one line naming the file and the line" {
	put turbo.json $'{\n  "tasks": {\n    "build": { "outputs": ["dist/**"] }\n    "lint": {}\n  }\n}'
	pkg packages/a @x/a
	run -2 --separate-stderr vx init
	assert_equal "$stderr" "vx-init: turbo.json: (file): invalid JSON at line 4; fix: correct the JSON syntax"
	put turbo.json '{ "tasks": { "build": { "dependsOn": "^build" } } }'
	put packages/a/package.json '{ "name": "@x/a", "scripts": { "build": "tsc" } }'
	run -2 --separate-stderr vx init
	assert_equal "$stderr" "vx-init: turbo.json: tasks.build.dependsOn: expected an array of strings; fix: write a list, like [\"...\"]"
	run -0 find . -name vx.json
	assert_output ''
	rm turbo.json
	run -2 vx init
	assert_output --partial "turbo.json: (file): not found at the workspace root"
}

@test "turbo 1.x pipeline, package turbo.json, inputs, pre/post scripts and npm_ variables" {
	put turbo.json '{
	  // turbo.json may hold comments too
	  "globalDependencies": ["tsconfig.base.json"],
	  "pipeline": {
	    "build": { "dependsOn": ["^build", "$API_URL"], "inputs": ["$TURBO_DEFAULT$", "!README.md", "../../shared/*.ts"], "env": ["NEXT_PUBLIC_*", "MODE"] },
	    "@x/b#build": { "dependsOn": ["@x/a#gen"], "outputs": ["out/**"] },
	    "gen": { "cache": false },
	    "test": { "dependsOn": ["build"], "outputs": [] }
	  }
	}'
	put packages/a/package.json '{ "name": "@x/a", "scripts": { "build": "tsc", "prebuild": "rm -rf dist", "gen": "node gen.js" } }'
	put packages/b/package.json '{ "name": "@x/b", "dependencies": { "@x/a": "*" }, "scripts": { "build": "echo $npm_package_version", "test": "vitest" } }'
	put packages/b/turbo.json '{ "extends": ["//"], "tasks": { "test": { "outputs": ["$TURBO_EXTENDS$", "coverage/**"] } } }'
	run -0 --separate-stderr vx init
	# a pattern is carried as it is (R-8a): vx keys and hands every match
	assert_equal "$stderr" ""
	# v1: no outputs named means dist/** and build/**; $API_URL keyed; ../ is a workspace file
	assert_equal "$(vxjson packages/a/vx.json build)" \
		'{"exec":{"command":"npm run build"},"dependsOn":["^build"],"cache":{"inputs":{"files":["**/*","!README.md"],"workspaceFiles":["shared/*.ts","tsconfig.base.json"],"env":["NEXT_PUBLIC_*","MODE","API_URL"]},"outputs":{"files":["dist/**","build/**"]}}}'
	run -0 grep -c 'package.json has prebuild or postbuild' packages/a/vx.json
	# the root's "@x/b#build" replaces "build" for @x/b; npm_* needs npm run
	assert_equal "$(vxjson packages/b/vx.json build)" \
		'{"exec":{"command":"npm run build"},"dependsOn":["@x/a#gen"],"cache":{"inputs":{"workspaceFiles":["tsconfig.base.json"]},"outputs":{"files":["out/**"]}}}'
	assert_equal "$(vxjson packages/b/vx.json test)" \
		'{"exec":{"command":"vitest"},"dependsOn":["build"],"cache":{"inputs":{"workspaceFiles":["tsconfig.base.json"]},"outputs":{"files":["coverage/**"]}}}'
	run -0 vx graph test
	assert_equal "$(ids "$output")" "@x/a#gen @x/b#build @x/b#test"
}

@test "vx init --help agrees with its manual, and vx --help lists it" {
	assert_help_matches_man vx-init
	run -0 vx --help
	assert_output --partial "vx init"
}

@test "nx-examples: run-commands from the workspace root; what executors and plugins run is named" {
	fixture nx-examples
	run -0 vx init
	assert_equal "$(vxjson apps/cart/vx.json deploy)" \
		'{"exec":{"command":"cd ../.. && npx ts-node --project tools/tsconfig.tools.json tools/scripts/deploy --siteName nrwl-nx-examples-cart --outputPath dist/apps/cart"}}'
	assert_line --partial "nx.json: plugins: not carried over: the targets a plugin infers are in no file"
	assert_line "vx-init: apps/products/project.json: targets.build: not carried over: executor '@nx/angular:application': vx runs shell commands; write the one it runs"
	assert_line "vx-init: apps/products/project.json: targets.build.inputs: not carried over: '!{projectRoot}/**/?(*.)+(spec|test).[jt]s?(x)?(.snap)': an extended glob, which vx's globs do not read"
	assert_line "vx-init: apps/products/project.json: targets.build.outputs: not carried over: '{options.outputPath.base}': vx saves outputs inside the project only"
	run -0 vx graph
}

@test "nx: targetDefaults under project.json, named inputs, outputs, cache and continuous" {
	put nx.json '{
	  "namedInputs": { "default": ["{projectRoot}/**/*", "shared"], "shared": ["{workspaceRoot}/tsconfig.base.json"],
	                   "production": ["default", "!{projectRoot}/**/*.spec.ts", { "env": "MODE" }, { "runtime": "node -v" }] },
	  "targetDefaults": {
	    "build": { "dependsOn": ["^build"], "inputs": ["production", "^production"], "outputs": ["{projectRoot}/dist"], "cache": true },
	    "test": { "dependsOn": [{ "target": "build", "projects": "self" }, { "target": "gen", "projects": ["lib-a"] }], "cache": true },
	    "serve": { "continuous": true }
	  }
	}'
	put packages/a/package.json '{ "name": "@x/a", "scripts": { "build": "tsc", "gen": "node gen.js" } }'
	put packages/a/project.json '{ "name": "lib-a" }'
	put packages/b/package.json '{ "name": "@x/b", "dependencies": { "@x/a": "*" }, "scripts": { "build": "tsc -b", "test": "vitest", "serve": "vite" } }'
	put packages/b/project.json '{ "name": "app-b", "targets": { "build": { "outputs": ["{workspaceRoot}/packages/b/out/main.js"] },
	  "lint": { "command": "eslint .", "options": { "cwd": "packages/b" } } } }'
	run -0 --separate-stderr vx init
	assert_equal "$stderr" "vx-init: packages/a/project.json: targets.build.inputs: not carried over: '^production': vx keys a dependency by its tasks' keys (dependsOn), not by its files
vx-init: packages/b/project.json: targets.build.inputs: not carried over: '^production': vx keys a dependency by its tasks' keys (dependsOn), not by its files"
	assert_equal "$(vxjson packages/a/vx.json build)" \
		'{"exec":{"command":"tsc"},"dependsOn":["^build"],"cache":{"inputs":{"files":["**/*","!**/*.spec.ts"],"workspaceFiles":["tsconfig.base.json"],"env":["MODE"],"runtime":["node -v"]},"outputs":{"files":["dist/**"]}}}'
	# project.json's outputs over the default's, a workspace path inside the project
	assert_equal "$(vxjson packages/b/vx.json build)" \
		'{"exec":{"command":"tsc -b"},"dependsOn":["^build"],"cache":{"inputs":{"files":["**/*","!**/*.spec.ts"],"workspaceFiles":["tsconfig.base.json"],"env":["MODE"],"runtime":["node -v"]},"outputs":{"files":["out/main.js"]}}}'
	# dependsOn objects; the nx project name lib-a is the package @x/a
	assert_equal "$(vxjson packages/b/vx.json test)" \
		'{"exec":{"command":"vitest"},"dependsOn":["build","@x/a#gen"],"cache":{"inputs":{"files":["**/*"],"workspaceFiles":["tsconfig.base.json"]},"outputs":{"files":["dist/**","build/**","public/**"]}}}'
	assert_equal "$(vxjson packages/b/vx.json serve)" '{"exec":{"command":"vite","persistent":true}}'
	# a command runs from its cwd; uncached without cache: true
	assert_equal "$(vxjson packages/b/vx.json lint)" '{"exec":{"command":"eslint ."}}'
	run -0 vx graph test
	assert_equal "$(ids "$output")" "@x/a#build @x/b#build @x/a#gen @x/b#test"
}

@test "a script name vx refuses, or a directory name holding a newline, still gives a vx.json vx reads" {
	put turbo.json '{ "tasks": { "build all": {}, "!x": {}, "build": { "dependsOn": ["^build"] } } }'
	put package.json '{ "name": "root", "private": true, "workspaces": ["packages/*"] }'
	put "packages/a"$'\n'"b/package.json" '{ "name": "@x/nl", "scripts": { "build": "tsc", "build all": "make", "!x": "y" } }'
	run -0 --separate-stderr vx init
	assert_equal "$stderr" "vx-init: turbo.json: tasks.build all: not carried over: not a vx task name (no '#', spaces, or a leading '^' or '!'); rename the script
vx-init: turbo.json: tasks.!x: not carried over: not a vx task name (no '#', spaces, or a leading '^' or '!'); rename the script"
	run -0 vx graph
	assert_equal "$(ids "$output")" "@x/nl#build"
}

# sb_ws: one package whose build reads a root file and its src, writes dist
sb_ws() {
	put turbo.json '{ "tasks": { "build": { "outputs": ["dist/**"] }, "say": { "cache": false } } }'
	put shared.txt 'shared'
	put packages/a/src/in.txt 'in'
	put packages/a/package.json '{ "name": "@x/a", "scripts": {
		"build": "mkdir -p dist && cat ../../shared.txt src/in.txt > dist/out.txt",
		"say": "echo hi" } }'
}

@test "--sandbox proposes the narrowest block as a diff; applied, the task passes sandboxed and keys the file it reads" {
	sb_ws
	run -0 vx init
	cp packages/a/vx.json "$BATS_TEST_TMPDIR/before"
	run -0 --separate-stderr vx init --sandbox
	assert_line '+      "exec": { "command": "mkdir -p dist && cat ../../shared.txt src/in.txt > dist/out.txt", "sandbox": { "allow": { "read": ["../../shared.txt", "src"], "write": ["dist/"] } } },'
	assert_line '+        "inputs": { "workspaceFiles": ["shared.txt"] },'
	# an uncached task only when named
	refute_output --partial 'echo hi'
	run -0 --separate-stderr vx init --sandbox say
	assert_line '+      "exec": { "command": "echo hi", "sandbox": {} }'
	refute_output --partial '"read"'
	# a diff for review: the file itself is as it was
	run -0 cmp packages/a/vx.json "$BATS_TEST_TMPDIR/before"
	vx init --sandbox 2>/dev/null | git apply
	rm -rf packages/a/dist
	run -0 vx run build
	assert_line --partial 'miss @x/a#build'
	refute_output --partial 'VIOLATION'
	assert_equal "$(cat packages/a/dist/out.txt)" $'shared\nin'
	run -0 vx run build
	assert_line --partial 'hit  @x/a#build'
	put shared.txt 'moved'
	run -0 vx run build
	assert_line --partial 'miss @x/a#build'
}

@test "--sandbox leaves a task with a block as it is, and names a task that fails with every grant" {
	sb_ws
	run -0 vx init
	put packages/a/vx.json '{ "tasks": {
	  "build": { "exec": { "command": "true", "sandbox": {} } },
	  "net": { "exec": { "command": "exit 3" } } } }'
	run -1 --separate-stderr vx init --sandbox build net
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -v -e 'learning run:' -e 'learned in')" \
		"vx-init: @x/a#build: has a sandbox block already; left as it is
vx-init: @x/a#net: not verified: it failed (exit 3) in the learning run, with the whole workspace readable; fix: run it by hand: what it needs from a dependency not run (--only), a network host or a tool outside the workspace is not learned"
	assert_line '-	  "net": { "exec": { "command": "exit 3" } } } }'
	assert_line '+	  "net": { "exec": { "command": "exit 3", "sandbox": {} } } } }'
	refute_line --partial '"command": "true", "sandbox": {},'
}

@test "--sandbox edits the task itself, never a commented-out copy; applied, vx run runs it sandboxed" {
	sb_ws
	put packages/a/package.json '{ "name": "@x/a" }'
	put packages/a/vx.json '{
  "tasks": {
    // "build": {
    //   "exec": { "command": "true" }
    // },
    /*
    "build": {
      "exec": { "command": "true" },
      "cache": {}
    },
    */
    "build": {
      "exec": { "command": "mkdir -p dist && cat src/in.txt ../../shared.txt > dist/out.txt && (echo x > ../../escape.txt) 2>/dev/null; true" },
      "cache": { "outputs": { "files": ["dist/**"] } }
    }
  }
}'
	cp packages/a/vx.json "$BATS_TEST_TMPDIR/before"
	run -0 --separate-stderr vx init --sandbox
	assert_file_not_exists escape.txt
	printf '%s\n' "$output" | git apply
	# every byte but the two spliced in is as it was, the comments too
	run -1 diff "$BATS_TEST_TMPDIR/before" packages/a/vx.json
	assert_equal "$(grep '^[<>]' <<< "$output")" \
		'<       "exec": { "command": "mkdir -p dist && cat src/in.txt ../../shared.txt > dist/out.txt && (echo x > ../../escape.txt) 2>/dev/null; true" },
<       "cache": { "outputs": { "files": ["dist/**"] } }
>       "exec": { "command": "mkdir -p dist && cat src/in.txt ../../shared.txt > dist/out.txt && (echo x > ../../escape.txt) 2>/dev/null; true", "sandbox": { "allow": { "read": ["src", "../../shared.txt"], "write": ["dist/"] } } },
>       "cache": { "inputs": { "workspaceFiles": ["shared.txt"] }, "outputs": { "files": ["dist/**"] } }'
	rm -rf packages/a/dist
	run -0 vx run build
	assert_line --partial 'miss @x/a#build'
	assert_equal "$(cat packages/a/dist/out.txt)" $'in\nshared'
	# sandboxed: the write outside its project was denied
	assert_file_not_exists escape.txt
}

@test "--sandbox finds the task by parsing: not in a string that spells it, and whatever its layout or key escapes" {
	sb_ws
	put packages/a/package.json '{ "name": "@x/a" }'
	put packages/a/vx.json '{"tasks": {"say": {"exec": {"command": "echo \"build\": {\"exec\": {\"command\": \"x\" }"}},
"b\u0075ild": {"exec": {"command": "mkdir -p dist && cat src/in.txt > dist/out.txt"},}}}'
	# uncached: learned when named, verified but for its undeclared write
	run -1 --separate-stderr vx init --sandbox say build
	assert_equal "$(grep '^[-+]' <<< "$output")" \
		'--- a/packages/a/vx.json
+++ b/packages/a/vx.json
-{"tasks": {"say": {"exec": {"command": "echo \"build\": {\"exec\": {\"command\": \"x\" }"}},
-"b\u0075ild": {"exec": {"command": "mkdir -p dist && cat src/in.txt > dist/out.txt"},}}}
+{"tasks": {"say": {"exec": {"command": "echo \"build\": {\"exec\": {\"command\": \"x\" }", "sandbox": {}}},
+"b\u0075ild": {"exec": {"command": "mkdir -p dist && cat src/in.txt > dist/out.txt", "sandbox": { "allow": { "read": ["src"], "write": ["dist/"] } }},}}}'
	printf '%s\n' "$output" | git apply
	rm -rf packages/a/dist
	run -0 vx run build
	assert_equal "$(cat packages/a/dist/out.txt)" in
}

@test "--sandbox: a task that rewrites its own vx.json while it learns leaves it as vx-graph vetted it" {
	sb_ws
	put packages/a/package.json '{ "name": "@x/a" }'
	# a generator task rewrites its own vx.json as it runs: in the learning
	# run the write lands in the scratch layer, so the file vx init edits is
	# the one vx-graph vetted
	put packages/a/vx.json '{ "tasks": { "gen": { "exec": { "command": "cp gen.json vx.json" } } } }'
	put packages/a/gen.json '{ "tasks": { "gen": { "exec": { "command": "true" } },
  "gen": { "exec": { "command": "cp gen.json vx.json" } } } }'
	run -1 --separate-stderr vx init --sandbox gen
	assert_equal "$(cat packages/a/vx.json)" '{ "tasks": { "gen": { "exec": { "command": "cp gen.json vx.json" } } } }'
	assert_line '+{ "tasks": { "gen": { "exec": { "command": "cp gen.json vx.json", "sandbox": { "allow": { "read": ["gen.json"], "write": ["vx.json"] } } } } } }'
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep 'not verified')" \
		"vx-init: @x/a#gen: not verified: it writes 'vx.json', which no cache.outputs glob covers, and the verifying run grants only declared outputs (the sources stay as they are)"
}

@test "--sandbox never grants a write outside the project: it names it, and the file stays unwritten" {
	sb_ws
	run -0 vx init
	put packages/b/package.json '{ "name": "@x/b", "scripts": { "build": "echo x > ../a/src/in.txt; echo y > ../../evil.txt; true" } }'
	run -0 vx init --force
	run -0 --separate-stderr vx init --sandbox
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep outside)" \
		"vx-init: @x/b#build: wrote '$WS/packages/a/src/in.txt', outside its project: not granted; fix: review it, and add it to allow.write by hand if it is right
vx-init: @x/b#build: wrote '$WS/evil.txt', outside its project: not granted; fix: review it, and add it to allow.write by hand if it is right"
	assert_file_not_exists evil.txt
	assert_equal "$(cat packages/a/src/in.txt)" in
	assert_line '+      "exec": { "command": "echo x > ../a/src/in.txt; echo y > ../../evil.txt; true", "sandbox": {} },'
}

@test "--sandbox never grants unix sockets: it names the task that made one" {
	sb_ws
	put packages/a/package.json '{ "name": "@x/a", "scripts": { "build": "/usr/bin/python3 -c \"import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\"" } }'
	run -0 vx init
	run -1 --separate-stderr vx init --sandbox
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -c 'learning run:')" 1
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep AF_UNIX)" \
		"vx-init: @x/a#build: made an AF_UNIX socket: not granted; fix: review which socket (a daemon's may be root on the host), and add allow.unixSockets by hand if it is right"
	refute_output --partial unixSockets
}

@test "a note is one line, without the control characters a hostile turbo.json holds" {
	put turbo.json '{ "tasks": { "build": { "outputLogs": "new\nonly\u001b[2J" } } }'
	put packages/a/package.json '{ "name": "@x/a", "scripts": { "build": "tsc" } }'
	run -0 --separate-stderr vx init
	assert_equal "$stderr" "vx-init: turbo.json: tasks.build.outputLogs: not carried over: how much of a task's output to show is a run-wide choice in vx: vx run --output-logs new?only?[2J"
}

@test "--sandbox runs a task as vx run does: node_modules/.bin first on PATH, only the environment its policy hands" {
	put package.json '{ "name": "root", "private": true, "workspaces": ["packages/*"] }'
	put turbo.json '{ "tasks": { "build": { "outputs": ["dist/**"], "passThroughEnv": ["PT"] } } }'
	put packages/a/package.json '{ "name": "@x/a", "scripts": { "build": "mytool" } }'
	# the tool a package installs: found through node_modules/.bin only, and
	# it fails unless it is handed PT and not handed MODE
	put packages/a/node_modules/.bin/mytool '#!/bin/sh
[ "$PT" = p ] && [ -z "$MODE" ] || { echo "PT=[$PT] MODE=[$MODE]" >&2; exit 3; }
mkdir -p dist && echo ok > dist/out.txt'
	chmod +x packages/a/node_modules/.bin/mytool
	run -0 vx init
	PT=p MODE=m run -0 --separate-stderr vx init --sandbox
	refute_output --partial 'failed (exit'
	assert_output --partial '"write": ["dist/"]'
	PT=p MODE=m run -0 vx run build
}

# tree_digest: every file of the workspace but vx's own state, hashed
tree_digest() {
	(cd "$WS" && find . -path ./.vx -prune -o \( -type f -o -type l \) -print | LC_ALL=C sort |
		while read -r f; do printf '%s %s\n' "$f" "$(sha256sum < "$f")"; done)
}

@test "--sandbox learns without touching the tree: a task that removes its src and rewrites sources leaves it byte-identical" {
	sb_ws
	put packages/b/package.json '{ "name": "@x/b" }'
	put packages/b/src/in.txt 'b'
	put packages/a/package.json '{ "name": "@x/a", "scripts": {
		"build": "rm -rf src; echo evil > ../b/src/in.txt; echo evil > ../../shared.txt; echo evil > vx.json; mkdir -p dist && echo o > dist/o" } }'
	run -0 vx init
	tree_digest > "$BATS_TEST_TMPDIR/before"
	run -1 --separate-stderr vx init --sandbox
	tree_digest > "$BATS_TEST_TMPDIR/after"
	run -0 diff "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	assert_equal "$(cat packages/a/src/in.txt)" in
	run -1 --separate-stderr vx init --sandbox
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -e outside -e 'not verified' -e 'no cache.outputs')" \
		"vx-init: @x/a#build: wrote '$WS/packages/b/src/in.txt', outside its project: not granted; fix: review it, and add it to allow.write by hand if it is right
vx-init: @x/a#build: wrote '$WS/shared.txt', outside its project: not granted; fix: review it, and add it to allow.write by hand if it is right
vx-init: @x/a#build: writes 'src/', which no cache.outputs glob covers: proposed for review, not granted in the verifying run; fix: declare it an output, or drop it from allow.write if the task should not write there
vx-init: @x/a#build: writes 'vx.json', which no cache.outputs glob covers: proposed for review, not granted in the verifying run; fix: declare it an output, or drop it from allow.write if the task should not write there
vx-init: @x/a#build: not verified: it writes 'src/', which no cache.outputs glob covers, and the verifying run grants only declared outputs (the sources stay as they are)"
	run -0 diff "$BATS_TEST_TMPDIR/before" <(tree_digest)
}

@test "--sandbox learns three writes in three directories and two reads outside the project in ONE run; applied, vx run passes and hits" {
	put turbo.json '{ "tasks": { "build": { "outputs": ["dist/**", "types/**", "meta.json"] } } }'
	put shared.txt 'shared'
	put conf/base.json '{}'
	put packages/a/src/in.txt 'in'
	put packages/a/package.json '{ "name": "@x/a", "scripts": {
		"build": "mkdir -p dist types && cat ../../shared.txt ../../conf/base.json src/in.txt > dist/out.txt && echo t > types/a.d.ts && echo m > meta.json" } }'
	run -0 vx init
	run -0 --separate-stderr vx init --sandbox
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -c 'learning run:')" 1
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -c 'verifying run:')" 1
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -e 'learned' -e 'verified')" \
		"vx-init: @x/a#build: learned in 1 run
vx-init: @x/a#build: verified: the proposed block passes with no violation, and its 3 output files match the learning run's"
	assert_line --partial '"sandbox": { "allow": { "read": ["../../shared.txt", "../../conf/base.json", "src"], "write": ["dist/", "types/", "meta.json"] } }'
	assert_line '+        "inputs": { "workspaceFiles": ["shared.txt", "conf/base.json"] },'
	printf '%s\n' "$output" | git apply
	rm -rf packages/a/dist packages/a/types packages/a/meta.json
	run -0 vx run build
	assert_line --partial 'miss @x/a#build'
	refute_output --partial 'VIOLATION'
	assert_equal "$(cat packages/a/dist/out.txt)" $'shared\n{}\nin'
	run -0 vx run build
	assert_line --partial 'hit  @x/a#build'
}

@test "--sandbox's verification names the outputs that differ from the learning run's" {
	put turbo.json '{ "tasks": { "build": { "outputs": ["dist/**"] } } }'
	put packages/a/package.json '{ "name": "@x/a", "scripts": {
		"build": "mkdir -p dist && echo same > dist/same.txt && date +%s%N > dist/stamp.txt" } }'
	run -0 vx init
	run -1 --separate-stderr vx init --sandbox
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep verified)" \
		"vx-init: @x/a#build: not verified: 1 output differs from the learning run's: dist/stamp.txt"
	# the proposal is still printed, for review
	assert_line --partial '"write": ["dist/"]'
}

@test "--sandbox selects as vx run: cached tasks by default, TASK, --filter and --only; uncached only by name, persistent never" {
	put turbo.json '{ "tasks": { "build": { "outputs": ["dist/**"], "dependsOn": ["^build"] },
		"lint": { "cache": false }, "dev": { "persistent": true, "cache": false } } }'
	put packages/a/package.json '{ "name": "@x/a", "scripts": { "build": "true", "lint": "true", "dev": "sleep 1000" } }'
	put packages/b/package.json '{ "name": "@x/b", "dependencies": { "@x/a": "*" },
		"scripts": { "build": "true", "lint": "true", "dev": "sleep 1000" } }'
	run -0 vx init
	learned() { printf '%s\n' "${stderr_lines[@]}" | sed -n 's/^vx-init: \(.*\): learning run:.*/\1/p' | tr '\n' ' '; }
	run -0 --separate-stderr vx init --sandbox
	assert_equal "$(learned)" "@x/a#build @x/b#build "
	run -0 --separate-stderr vx init --sandbox --filter @x/a
	assert_equal "$(learned)" "@x/a#build "
	run -0 --separate-stderr vx init --sandbox build --filter @x/b --only
	assert_equal "$(learned)" "@x/b#build "
	run -0 --separate-stderr vx init --sandbox lint
	assert_equal "$(learned)" "@x/a#lint @x/b#lint "
	run -0 --separate-stderr vx init --sandbox dev
	assert_equal "$(learned)" ""
	run -2 --separate-stderr vx init --sandbox nosuch
	run -2 --separate-stderr vx init --filter @x/a
	assert_equal "$stderr" "vx-init: '--filter' selects tasks for --sandbox only; see 'vx-init --help'"
}

@test "--sandbox: a read of a sibling package the task's key folds (dependsOn ^build) is its directory, with no second key" {
	put turbo.json '{ "tasks": { "build": { "outputs": ["dist/**"], "dependsOn": ["^build"] } } }'
	put packages/util/package.json '{ "name": "@x/util", "scripts": { "build": "mkdir -p dist && echo u > dist/u.txt" } }'
	put packages/app/package.json '{ "name": "@x/app", "dependencies": { "@x/util": "*" },
		"scripts": { "build": "mkdir -p dist && cat ../util/dist/u.txt > dist/a.txt" } }'
	run -0 vx init
	run -0 --separate-stderr vx init --sandbox
	assert_line '+      "exec": { "command": "mkdir -p dist && cat ../util/dist/u.txt > dist/a.txt", "sandbox": { "allow": { "read": ["../util/dist"], "write": ["dist/"] } } },'
	refute_output --partial workspaceFiles
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -c ': verified:')" 2
	printf '%s\n' "$output" | git apply
	run -0 vx run build
	refute_output --partial VIOLATION
	run -0 vx run build
	assert_line --partial 'hit  @x/app#build'
}

@test "the learning run's boundary: the workspace readable, its writes kept apart; outside it the baseline (credential stores hidden, the host read-only), .git walled" {
	sb_ws
	mkdir -p .git && echo ref > .git/HEAD
	local h=$BATS_TEST_TMPDIR/home s
	mkdir -p "$h/.ssh" && echo key > "$h/.ssh/id"
	s=$(mktemp -d)
	HOME=$h run -0 vx-sandbox --root "$WS" --project packages/a --learn "$s" --trace "$BATS_TEST_TMPDIR/t" -- \
		sh -c 'cat ../../shared.txt; echo new > src/in.txt; cat ~/.ssh/id 2>/dev/null || echo store-hidden
			(echo x > ~/g) 2>/dev/null || echo home-ro; cat ../../.git/HEAD 2>/dev/null || echo git-walled'
	assert_equal "$output" $'shared\nstore-hidden\nhome-ro\ngit-walled'
	assert_equal "$(cat packages/a/src/in.txt)" in
	assert_equal "$(cat "$s/upper/packages/a/src/in.txt")" new
	assert_file_not_exists "$h/g"
	# the successful accesses are in the trace too
	run -0 grep -c -e "\"resolved\":\"$WS/shared.txt\",\"errno\":null" \
		-e "\"access\":\"write\",\"path\":\"src/in.txt\",\"resolved\":\"$WS/packages/a/src/in.txt\",\"errno\":null" "$BATS_TEST_TMPDIR/t"
	assert_output 2
	rm -rf "$s"
	# a scratch directory inside the workspace is refused, nothing run
	mkdir -m 700 "$WS/scratch"
	run -125 --separate-stderr vx-sandbox --root "$WS" --learn "$WS/scratch" --trace "$BATS_TEST_TMPDIR/t" -- touch "$WS/ran"
	assert_equal "$stderr" "vx-sandbox: --learn '$WS/scratch': inside the workspace root '$WS' or holding it; fix: give a directory outside the workspace"
	assert_file_not_exists "$WS/ran"
}
