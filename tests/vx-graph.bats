#!/usr/bin/env bats
# shellcheck disable=SC2154  # bats sets $stderr
# vx-graph: discovery (R-1, R-2), the schema and its refusals (R-7, R-27,
# R-30), dependency order, folds, K(T) and the run-wide sandbox facts.

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
}

two_pkgs() {
	pkg packages/ui @x/ui '' '{ "tasks": { "build": { "exec": { "command": "echo ui" }, "cache": {} } } }'
	pkg packages/app @x/app '{ "@x/ui": "*" }' \
		'{ "tasks": { "build": { "exec": { "command": "echo app" }, "dependsOn": ["^build"], "cache": {} } } }'
}

# --- discovery -------------------------------------------------------------

@test "npm workspaces array: projects, names and root-relative dirs" {
	two_pkgs
	run -0 vx-graph
	assert_equal "$(ids "$output")" "@x/ui#build @x/app#build"
	assert_equal "$(field "$output" @x/app#build dir)" '"packages/app"'
	assert_equal "$(field "$output" @x/app#build project)" '"@x/app"'
	assert_line --index 0 --partial "\"root\":\"$WS\""
}

@test "workspaces as { packages: [...] } is read too" {
	put package.json '{ "name": "root", "workspaces": { "packages": ["libs/*"] } }'
	pkg libs/a @x/a '' '{ "tasks": { "t": { "exec": { "command": "true" } } } }'
	run -0 vx-graph
	assert_equal "$(ids "$output")" "@x/a#t"
}

@test "pnpm-workspace.yaml packages, block and flow style, with exclusions" {
	rm package.json
	printf 'packages:\n  - "apps/*"\n  - '"'"'libs/**'"'"'\n  - "!libs/skip"\n# comment\nother: x\n' > pnpm-workspace.yaml
	pkg apps/web @x/web '' '{ "tasks": { "t": { "exec": { "command": "true" } } } }'
	pkg libs/deep/one @x/one '' '{ "tasks": { "t": { "exec": { "command": "true" } } } }'
	pkg libs/skip @x/skip '' '{ "tasks": { "t": { "exec": { "command": "true" } } } }'
	run -0 vx-graph t
	assert_equal "$(ids "$output")" "@x/web#t @x/one#t"
	printf 'packages: ["libs/skip", '"'"'apps/*'"'"']\n' > pnpm-workspace.yaml
	run -0 vx-graph t
	assert_equal "$(ids "$output")" "@x/web#t @x/skip#t"
}

@test "vx.json projects marks the root; a project without package.json is named by its path" {
	rm package.json
	put vx.json '{ "projects": ["tools/*"], "tasks": { "lint": { "exec": { "command": "true" } } } }'
	put tools/gen/vx.json '{ "tasks": { "lint": { "exec": { "command": "true" } } } }'
	run -0 vx-graph lint
	assert_equal "$(ids "$output")" ".#lint tools/gen#lint"
}

@test "the root is found from a subdirectory; --root and VX_ROOT override" {
	two_pkgs
	mkdir -p packages/app/src/deep
	cd packages/app/src/deep
	run -0 vx-graph
	assert_line --index 0 --partial "\"root\":\"$WS\""
	cd /
	run -0 vx-graph --root "$WS"
	assert_equal "$(ids "$output")" "@x/ui#build @x/app#build"
	VX_ROOT=$WS run -0 vx-graph
	assert_equal "$(ids "$output")" "@x/ui#build @x/app#build"
}

@test "no workspace: exit 2 with the fix" {
	mkdir -p "$BATS_TEST_TMPDIR/empty"
	cd "$BATS_TEST_TMPDIR/empty"
	run -2 vx-graph
	assert_output --partial "vx-graph: no workspace found above"
	assert_output --partial "fix:"
	run -2 vx-graph --root "$BATS_TEST_TMPDIR/nope"
	assert_output --partial "not a directory"
}

@test "dependencies of every kind link projects; node_modules is never scanned" {
	pkg packages/a @x/a '' '{ "tasks": { "b": { "exec": { "command": "true" } } } }'
	pkg packages/c @x/c '' '{ "tasks": { "b": { "exec": { "command": "true" } } } }'
	pkg packages/d @x/d '' '{ "tasks": { "b": { "exec": { "command": "true" } } } }'
	put packages/app/package.json '{ "name": "@x/app", "devDependencies": { "@x/a": "*" }, "peerDependencies": { "@x/c": "*" }, "optionalDependencies": { "@x/d": "*", "lodash": "4" } }'
	put packages/app/vx.json '{ "tasks": { "b": { "exec": { "command": "true" }, "dependsOn": ["^b"] } } }'
	pkg packages/app/node_modules/evil @x/evil '' '{ "tasks": { "b": { "exec": { "command": "true" } } } }'
	run -0 vx-graph @x/app#b
	assert_equal "$(field "$output" @x/app#b deps)" '["@x/a#b","@x/d#b","@x/c#b"]'
	refute_output --partial evil
}

# --- dependency order and selection ---------------------------------------

@test "tasks come in dependency order, only those asked for and their deps" {
	pkg packages/a @x/a '' '{ "tasks": { "build": { "exec": { "command": "true" } }, "lint": { "exec": { "command": "true" } } } }'
	pkg packages/b @x/b '{ "@x/a": "*" }' '{ "tasks": { "build": { "exec": { "command": "true" }, "dependsOn": ["^build", "gen"] }, "gen": { "exec": { "command": "true" } } } }'
	pkg packages/c @x/c '{ "@x/b": "*" }' '{ "tasks": { "build": { "exec": { "command": "true" }, "dependsOn": ["^build", "@x/a#lint"] } } }'
	run -0 vx-graph @x/c#build
	assert_equal "$(ids "$output")" "@x/a#build @x/b#gen @x/b#build @x/a#lint @x/c#build"
	run -0 vx-graph lint
	assert_equal "$(ids "$output")" "@x/a#lint"
	run -0 vx-graph build
	assert_equal "$(ids "$output")" "@x/a#build @x/b#gen @x/b#build @x/a#lint @x/c#build"
	assert_line --index 0 --partial '"tasks":5'
}

@test "a TASK naming nothing exits 2; ^name matching no dependency is fine" {
	two_pkgs
	run -2 vx-graph nosuch
	assert_output "vx-graph: no task 'nosuch' in any project; fix: name a task (build) or a task id (project#build) that a vx.json defines"
	run -2 vx-graph @x/app#nosuch
	put packages/app/vx.json '{ "tasks": { "t": { "exec": { "command": "true" }, "dependsOn": ["^nothing"] } } }'
	run -0 vx-graph t
	assert_equal "$(field "$output" @x/app#t deps)" '[]'
}

@test "kinds: exec, group, persistent; command null for a group" {
	pkg packages/a @x/a '' '{ "tasks": { "b": { "exec": { "command": "make" } }, "dev": { "exec": { "command": "serve", "persistent": true } }, "all": { "dependsOn": ["b", "dev"] } } }'
	run -0 vx-graph
	assert_equal "$(field "$output" @x/a#b kind)" '"exec"'
	assert_equal "$(field "$output" @x/a#dev kind)" '"persistent"'
	assert_equal "$(field "$output" @x/a#all kind)" '"group"'
	assert_equal "$(field "$output" @x/a#all command)" 'null'
	# a group folds every target with a key; a persistent task has none
	assert_equal "$(field "$output" @x/a#all folds)" '["@x/a#b"]'
}

@test "cache is normalised: defaults filled, null when absent" {
	pkg packages/a @x/a '' '{ "tasks": { "b": { "exec": { "command": "true" }, "cache": { "inputs": { "env": ["NODE_ENV"] }, "outputs": { "files": ["dist/**"] } } }, "u": { "exec": { "command": "true" } } } }'
	run -0 vx-graph
	assert_equal "$(field "$output" @x/a#b cache)" '{"inputs":{"files":["**/*"],"env":["NODE_ENV"],"runtime":[],"workspaceFiles":[]},"outputs":{"files":["dist/**"]}}'
	assert_equal "$(field "$output" @x/a#u cache)" 'null'
	assert_equal "$(field "$output" @x/a#u sandbox)" 'null'
}

# --- folds (R-6 inputs.tasks) ---------------------------------------------

@test "inputs.tasks selects the folds: absent all, [] none, ! removes, positives pick" {
	pkg packages/ui @x/ui '' '{ "tasks": { "build": { "exec": { "command": "true" }, "cache": {} } } }'
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"gen": { "exec": { "command": "true" } },
		"all": { "exec": { "command": "true" }, "dependsOn": ["^build", "gen"], "cache": {} },
		"none": { "exec": { "command": "true" }, "dependsOn": ["^build", "gen"], "cache": { "inputs": { "tasks": [] } } },
		"neg": { "exec": { "command": "true" }, "dependsOn": ["^build", "gen"], "cache": { "inputs": { "tasks": ["!^build"] } } },
		"pos": { "exec": { "command": "true" }, "dependsOn": ["^build", "gen"], "cache": { "inputs": { "tasks": ["gen"] } } } } }'
	run -0 vx-graph
	assert_equal "$(field "$output" @x/app#all folds)" '["@x/ui#build","@x/app#gen"]'
	assert_equal "$(field "$output" @x/app#none folds)" '[]'
	assert_equal "$(field "$output" @x/app#neg folds)" '["@x/app#gen"]'
	assert_equal "$(field "$output" @x/app#pos folds)" '["@x/app#gen"]'
	assert_equal "$(field "$output" @x/app#none deps)" '["@x/ui#build","@x/app#gen"]'
}

# --- K(T): the reference's R3 rows ----------------------------------------

@test "K(T): a group chain to a cached source gives {ui}" {
	pkg packages/ui @x/ui '' '{ "tasks": { "source": { "exec": { "command": "true" }, "cache": { "inputs": { "files": ["src/**"] } } } } }'
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"prep": { "dependsOn": ["^source"] },
		"test": { "exec": { "command": "true" }, "dependsOn": ["prep"], "cache": {} } } }'
	run -0 vx-graph @x/app#test
	assert_equal "$(field "$output" @x/app#test keyed)" '["@x/ui"]'
}

@test "K(T): an uncached P#build reached gives {ui}: its key folds all of ui's files (the design's correction)" {
	# issue 19 item 6: with {} the link was withheld and the hint said "an
	# edit there would not re-run it" while the key did move
	pkg packages/ui @x/ui '' '{ "tasks": { "build": { "exec": { "command": "true" } } } }'
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"test": { "exec": { "command": "true" }, "dependsOn": ["^build"], "cache": {} } } }'
	run -0 vx-graph @x/app#test
	assert_equal "$(field "$output" @x/app#test keyed)" '["@x/ui"]'
	assert_equal "$(field "$output" @x/app#test folds)" '["@x/ui#build"]'
}

@test "K(T): a group of ui reached, folding nothing of ui's, gives {}" {
	pkg packages/ui @x/ui '' '{ "tasks": { "all": { } } }'
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"test": { "exec": { "command": "true" }, "dependsOn": ["^all"], "cache": {} } } }'
	run -0 vx-graph @x/app#test
	assert_equal "$(field "$output" @x/app#test keyed)" '[]'
}

@test "K(T): T's inputs.tasks ['!^build'] gives {}" {
	pkg packages/ui @x/ui '' '{ "tasks": { "build": { "exec": { "command": "true" }, "cache": {} } } }'
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"test": { "exec": { "command": "true" }, "dependsOn": ["^build"], "cache": { "inputs": { "tasks": ["!^build"] } } } } }'
	run -0 vx-graph @x/app#test
	assert_equal "$(field "$output" @x/app#test keyed)" '[]'
}

@test "K(T): a mid-chain hop with inputs.tasks [] stops the walk there" {
	pkg packages/ui @x/ui '' '{ "tasks": { "source": { "exec": { "command": "true" }, "cache": {} } } }'
	pkg packages/lib @x/lib '{ "@x/ui": "*" }' '{ "tasks": {
		"mid": { "exec": { "command": "true" }, "dependsOn": ["^source"], "cache": { "inputs": { "tasks": [] } } } } }'
	pkg packages/app @x/app '{ "@x/lib": "*" }' '{ "tasks": {
		"test": { "exec": { "command": "true" }, "dependsOn": ["^mid"], "cache": {} } } }'
	run -0 vx-graph @x/app#test
	assert_equal "$(field "$output" @x/app#test keyed)" '["@x/lib"]'
	# the control: with the hop folding its deps, ui is reached
	put packages/lib/vx.json '{ "tasks": { "mid": { "exec": { "command": "true" }, "dependsOn": ["^source"], "cache": {} } } }'
	run -0 vx-graph @x/app#test
	assert_equal "$(field "$output" @x/app#test keyed)" '["@x/lib","@x/ui"]'
}

@test "K(T): a transitive route through a third project is found" {
	pkg packages/ui @x/ui '' '{ "tasks": { "source": { "exec": { "command": "true" }, "cache": {} } } }'
	pkg packages/lib @x/lib '{ "@x/ui": "*" }' '{ "tasks": {
		"build": { "exec": { "command": "true" }, "dependsOn": ["^source"] } } }'
	pkg packages/app @x/app '{ "@x/lib": "*" }' '{ "tasks": {
		"test": { "exec": { "command": "true" }, "dependsOn": ["^build"], "cache": {} } } }'
	run -0 vx-graph @x/app#test
	# lib#build is uncached, so its key folds lib's files too
	assert_equal "$(field "$output" @x/app#test keyed)" '["@x/lib","@x/ui"]'
}

@test "K(T): a persistent task passes nothing on; keyed is always present" {
	pkg packages/ui @x/ui '' '{ "tasks": { "source": { "exec": { "command": "true" }, "cache": {} } } }'
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"dev": { "exec": { "command": "true", "persistent": true }, "dependsOn": ["^source"] },
		"test": { "exec": { "command": "true" }, "dependsOn": ["dev"], "cache": {} } } }'
	run -0 vx-graph
	assert_equal "$(field "$output" @x/app#test keyed)" '[]'
	assert_equal "$(field "$output" @x/app#test folds)" '[]'
	assert_equal "$(field "$output" @x/ui#source keyed)" '[]'
}

# --- run-wide sandbox facts ----------------------------------------------

@test "run facts: network allow and deny unions, unixSockets, weakerWhenNested" {
	pkg packages/a @x/a '' '{ "tasks": {
		"x": { "exec": { "command": "true", "sandbox": { "allow": { "network": ["A.example.com", "b.example.com:443"], "unixSockets": true }, "deny": { "network": ["*:22"] }, "weakerWhenNested": true } } },
		"y": { "exec": { "command": "true", "sandbox": { "allow": { "network": ["a.example.com."] }, "deny": { "network": ["evil.example.com"] } } } },
		"z": { "exec": { "command": "true" } } } }'
	run -0 vx-graph
	assert_line --index 0 --partial '"sandbox":{"tasks":2,"network":{"allow":["a.example.com","b.example.com:443"],"deny":["*:22","evil.example.com"]},"unixSockets":true,"weakerWhenNested":false}'
	run -0 vx-graph @x/a#x
	assert_line --index 0 --partial '"unixSockets":true,"weakerWhenNested":true}'
	run -0 vx-graph @x/a#y
	assert_line --index 0 --partial '"unixSockets":false,"weakerWhenNested":false}'
	run -0 vx-graph @x/a#z
	assert_line --index 0 --partial '"sandbox":{"tasks":0,"network":{"allow":[],"deny":[]},"unixSockets":false,"weakerWhenNested":false}'
}

@test "localBinding ports do not lift unix sockets for the run (vx-sandbox relays them)" {
	pkg packages/a @x/a '' '{ "tasks": { "x": { "exec": { "command": "true", "sandbox": { "allow": { "localBinding": [3000] } } } } } }'
	run -0 vx-graph
	assert_line --index 0 --partial '"unixSockets":false'
}

@test "the full sandbox schema is accepted, macOS-only keys included" {
	pkg packages/a @x/a '' '{ "tasks": { "x": { "exec": { "command": "true", "sandbox": {
		"allow": { "read": [".", "~/.npmrc"], "write": ["dist/", "*.tmp/**"], "network": true, "systemInfo": ["vfs.disk-space"],
		           "unixSockets": ["/run/x.sock"], "localBinding": true, "machLookup": ["com.apple.x"], "pty": true, "gitConfig": false },
		"deny": { "network": ["*"] },
		"ignore": { "read": ["bunfig.toml"], "write": ["*.log"], "systemInfo": ["x"], "network": ["example.com:443"] },
		"weakerWhenNested": false, "weakerNetworkIsolation": true } } } } }'
	run -0 vx-graph
	assert_equal "$(field "$output" @x/a#x sandbox)" '{"allow":{"read":[".","~/.npmrc"],"write":["dist/","*.tmp/**"],"network":true,"systemInfo":["vfs.disk-space"],"unixSockets":["/run/x.sock"],"localBinding":true,"machLookup":["com.apple.x"],"pty":true,"gitConfig":false},"deny":{"network":["*"]},"ignore":{"read":["bunfig.toml"],"write":["*.log"],"systemInfo":["x"],"network":["example.com:443"]},"weakerWhenNested":false,"weakerNetworkIsolation":true}'
}

# --- refusals (R-7): one line naming the file, the key and the fix, exit 2 -

refuse() { # refuse VXJSON EXPECTED-SUBSTRING...
	pkg packages/a @x/a '' "$1"
	shift
	run -2 vx-graph
	for want in "$@"; do
		assert_output --partial "$want"
	done
	assert_output --partial "; fix: "
	assert_equal "${#lines[@]}" 1
}

@test "refuse: unknown task key names the allowed ones" {
	refuse '{ "tasks": { "b": { "exec": { "command": "x" }, "cahce": {} } } }' \
		"vx-graph: packages/a/vx.json: tasks.b.cahce: unknown key; fix: remove it or use one of: exec, dependsOn, cache"
}

@test "refuse: unknown top-level key" {
	refuse '{ "task": {} }' "packages/a/vx.json: task: unknown key"
}

@test "refuse: unknown sandbox keys at each level" {
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "allow": { "reed": ["."] } } } } } }' \
		"tasks.b.exec.sandbox.allow.reed: unknown key"
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "ignore": { "exec": [] } } } } } }' \
		"tasks.b.exec.sandbox.ignore.exec: unknown key"
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "deny": { "read": [] } } } } } }' \
		"tasks.b.exec.sandbox.deny.read: unknown key"
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "weakerWhenNestd": true } } } } }' \
		"tasks.b.exec.sandbox.weakerWhenNestd: unknown key"
	refuse '{ "tasks": { "b": { "exec": { "command": "x" }, "cache": { "inputs": { "file": [] } } } } }' \
		"tasks.b.cache.inputs.file: unknown key"
}

@test "issue 37: an unknown sandbox member names the grant meant, by the one grant table" {
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "deny": { "read": ["."] } } } } } }' \
		"tasks.b.exec.sandbox.deny.read: unknown key; fix: read is no member of deny: write it under allow or ignore (allow.read: " \
		"deny takes: network"
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "write": ["dist/"] } } } } }' \
		"tasks.b.exec.sandbox.write: unknown key; fix: write is no member of the sandbox block: write it under allow or ignore (allow.write: "
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "allow": { "unixsockets": true } } } } } }' \
		"tasks.b.exec.sandbox.allow.unixsockets: unknown key; fix: did you mean allow.unixSockets? (allow.unixSockets: true)"
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "allow": { "filesystem": true } } } } } }' \
		"fix: remove it or use one of: read, write, network, systemInfo, unixSockets, localBinding, machLookup, pty, gitConfig"
}

@test "issue 37: every grant kind of docs/grants.md is accepted at its example, and named where it belongs from another section" {
	local doc=$BATS_TEST_DIRNAME/../docs/grants.md block rows path
	# the table's rows: member and example, as the page spells them
	# shellcheck disable=SC2016 # the backquotes are the page's, for python
	rows=$(/usr/bin/python3 -c '
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"\| `([A-Za-z.]+)` \|.*\| `(.+)` \|$", line.strip())
    if m:
        print(m.group(1) + "\t" + m.group(2))
' "$doc")
	[ "$(printf '%s\n' "$rows" | wc -l)" -ge 16 ]
	block=$(/usr/bin/python3 -c '
import json, sys
sb = {}
for row in sys.argv[1].splitlines():
    path, example = row.split("\t")
    *sect, name = path.split(".")
    (sb.setdefault(sect[0], {}) if sect else sb)[name] = json.loads(example)
print(json.dumps(sb))
' "$rows")
	pkg packages/a @x/a '' "{ \"tasks\": { \"x\": { \"exec\": { \"command\": \"true\", \"sandbox\": $block } } } }"
	run -0 vx-graph
	assert_equal "$(field "$output" @x/a#x sandbox)" "$(/usr/bin/python3 -c 'import json, sys; print(json.dumps(json.loads(sys.argv[1]), separators=(",", ":")))' "$block")"
	# each section's member under a section that lacks it points back at it
	while IFS=$'\t' read -r path example; do
		case $path in allow.*|deny.*|ignore.*) ;; *) continue ;; esac
		local name=${path#*.} other=deny
		[ "$name" = network ] && other=
		if [ -n "$other" ]; then
			refuse "{ \"tasks\": { \"b\": { \"exec\": { \"command\": \"x\", \"sandbox\": { \"$other\": { \"$name\": $example } } } } } }" \
				"tasks.b.exec.sandbox.$other.$name: unknown key; fix: $name is no member of deny: write it under " \
				"; deny takes: network"
			[[ $output =~ "write it under "[a-z\ ]*"${path%%.*}" ]]
		else
			refuse "{ \"tasks\": { \"b\": { \"exec\": { \"command\": \"x\", \"sandbox\": { \"$name\": $example } } } } }" \
				"tasks.b.exec.sandbox.$name: unknown key; fix: $name is no member of the sandbox block: write it under allow or deny or ignore (allow.network: "
		fi
	done <<< "$rows"
}

@test "refuse: wrong types" {
	refuse '{ "tasks": { "b": { "exec": { "command": "x" }, "dependsOn": "build" } } }' \
		"tasks.b.dependsOn: expected an array of strings, got a string"
	refuse '{ "tasks": { "b": { "exec": { "command": ["x"] } } } }' \
		"tasks.b.exec.command: expected a string, got an array"
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "persistent": "yes" } } } }' \
		"tasks.b.exec.persistent: expected true or false, got a string"
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "allow": { "read": "." } } } } } }' \
		"tasks.b.exec.sandbox.allow.read: expected an array of strings, got a string"
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "allow": { "network": "example.com" } } } } } }' \
		"tasks.b.exec.sandbox.allow.network: expected true or an array of host patterns"
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "allow": { "localBinding": [0] } } } } } }' \
		"tasks.b.exec.sandbox.allow.localBinding[0]: not a port"
	refuse '{ "tasks": { "b": { "exec": { "command": "x" }, "cache": { "inputs": { "env": ["A", 3] } } } } }' \
		"tasks.b.cache.inputs.env[1]: expected a string, got a number"
	refuse '{ "tasks": [] }' "tasks: expected an object, got an array"
}

@test "refuse: a missing or empty command" {
	refuse '{ "tasks": { "b": { "exec": {} } } }' "tasks.b.exec.command: missing"
	refuse '{ "tasks": { "b": { "exec": { "command": "" } } } }' "tasks.b.exec.command: empty command"
}

@test "refuse: dependsOn naming nothing, in each spelling" {
	refuse '{ "tasks": { "b": { "exec": { "command": "x" }, "dependsOn": ["gen"] } } }' \
		"tasks.b.dependsOn[0]: 'gen' names no task of @x/a; fix: use one of @x/a's tasks (b)"
	refuse '{ "tasks": { "b": { "exec": { "command": "x" }, "dependsOn": ["@x/zz#build"] } } }' \
		"tasks.b.dependsOn[0]: '@x/zz#build' names no project '@x/zz'"
	refuse '{ "tasks": { "b": { "exec": { "command": "x" }, "dependsOn": ["@x/a#nope"] } } }' \
		"'@x/a#nope' names no task of @x/a"
	refuse '{ "tasks": { "b": { "exec": { "command": "x" }, "dependsOn": ["b"] } } }' \
		"tasks.b.dependsOn[0]: 'b' is the task itself"
}

@test "refuse: a cycle, named edge by edge" {
	pkg packages/b @x/b '{ "@x/a": "*" }' '{ "tasks": { "t": { "exec": { "command": "x" }, "dependsOn": ["@x/a#t"] } } }'
	refuse '{ "tasks": { "t": { "exec": { "command": "x" }, "dependsOn": ["u"] }, "u": { "dependsOn": ["@x/b#t"] } } }' \
		"cycle: @x/a#t -> @x/a#u -> @x/b#t -> @x/a#t"
}

@test "refuse: bad network entries (R-30)" {
	for bad in 'https://example.com' 'example.com/x' 'intranet' 'example.com:0' 'example.com:99999' '*' '*.com' '127.1'; do
		refuse "{ \"tasks\": { \"b\": { \"exec\": { \"command\": \"x\", \"sandbox\": { \"allow\": { \"network\": [\"$bad\"] } } } } } }" \
			"tasks.b.exec.sandbox.allow.network[0]: '$bad': "
	done
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "deny": { "network": ["*.org"] } } } } } }' \
		"deny.network[0]: '*.org': '*.tld' is too broad"
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "ignore": { "network": ["example.com"] } } } } } }' \
		"ignore.network[0]: 'example.com': an ignore entry is host:port"
}

@test "deny.network takes * and *:port" {
	pkg packages/a @x/a '' '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "deny": { "network": ["*", "*:22"] } } } } } }'
	run -0 vx-graph
}

@test "refuse: a sandboxed project under a directory holding a glob character (R-27)" {
	for ch in '[' ']' '*' '?' "\\"; do
		local dir="packages/we${ch}ird"
		rm -rf packages
		put "$dir/package.json" '{ "name": "@x/w" }'
		put "$dir/vx.json" '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": {} } } } }'
		run -2 vx-graph
		assert_output --partial "tasks.b.exec.sandbox: the project directory '$WS/$dir' holds '$ch'"
		assert_output --partial "fix: rename the directory or drop exec.sandbox"
		# the same project unsandboxed is fine
		put "$dir/vx.json" '{ "tasks": { "b": { "exec": { "command": "x" } } } }'
		run -0 vx-graph
	done
}

# --- grants the rest of the config must answer for (issue 34) -------------

@test "R-25a refuse at config load: a write grant reaching \$HOME, ~/.config, ~/.local or a PATH directory, every spelling" {
	local home=$BATS_TEST_TMPDIR/home
	mkdir -p "$home/.local/share" "$home/bin" "$home/.cache"
	ln -s "$home" "$BATS_TEST_TMPDIR/alias"
	# the grants are spelled as a config spells them: '~' stays literal
	# shellcheck disable=SC2088
	local bad=('~' '~/' '~/.' '~/x/..' '~/*' '~/**' "$home" "$BATS_TEST_TMPDIR/alias/" '~/.config/'
		'~/.local/share/x/' '~/.local/*' '~/bin/' '~/bin/tool' '~/.nvm/' '/usr/local/bin/' '/usr/local/' '~/tool.cfg'
		'../../../home/.cache/../')
	local list
	list=$(printf '"%s",' "${bad[@]}")
	pkg packages/a @x/a '' "{ \"tasks\": { \"b\": { \"exec\": { \"command\": \"x\", \"sandbox\": { \"allow\": {
		\"write\": [\"dist/\", \"~/.cache/tool/\", \"~/.nvm/.cache/\", \"/tmp/out/\", ${list%,}] } } } } } }"
	HOME=$home PATH=$VX_BIN_DIR:/usr/bin:/bin:$home/bin:$home/.nvm/versions/node/v20/bin:/usr/local/bin run -2 vx-graph
	assert_equal "${#lines[@]}" "${#bad[@]}"
	local i
	for i in "${!bad[@]}"; do
		assert_line --index "$i" --partial "vx-graph: packages/a/vx.json: tasks.b.exec.sandbox.allow.write[$((i + 4))]: '${bad[$i]}': it reaches "
	done
	assert_line --index 0 "vx-graph: packages/a/vx.json: tasks.b.exec.sandbox.allow.write[4]: '~': it reaches \$HOME itself ('$home'), where a task could plant code the user runs later, outside any sandbox (R-25a); fix: grant only the tool's own cache directory, such as '~/.cache/<tool>/' (vx init --sandbox names the writes a task makes)"
	assert_line --index 7 --partial "'$BATS_TEST_TMPDIR/alias/': it reaches \$HOME itself"
	assert_line --index 9 --partial "'~/.local/share/x/': it reaches ~/.local ('$home/.local')"
	assert_line --index 13 --partial "'~/.nvm/': it reaches '$home/.nvm/versions/node/v20/bin', a directory on PATH"
	assert_line --index 16 --partial "'~/tool.cfg': it reaches \$HOME itself ('$home') (a file grant binds its directory)"
	# the same config under another HOME and PATH: vx-graph's saved output
	# is not replayed for it (the check reads this process's environment)
	HOME=$BATS_TEST_TMPDIR/other PATH=$VX_BIN_DIR:/usr/bin:/bin run -2 vx-graph
	refute_output --partial "'~/bin/'"
	refute_output --partial "'~/.nvm/'"
	assert_output --partial "'~/.local/share/x/': it reaches ~/.local ('$BATS_TEST_TMPDIR/other/.local')"
	refute_output --partial "'/usr/local/'"
	refute_output --partial "'/usr/local/bin/'"
	# a read grant there is fine: reads are R-24's
	put packages/a/vx.json '{ "tasks": { "b": { "exec": { "command": "x", "sandbox": { "allow": { "read": ["~/", "~/.local/bin/"], "write": ["~/.cache/tool/"] } } } } } }'
	HOME=$home run -0 vx-graph
}

@test "R-21a refuse: a cached task's read grant outside its project that no key input answers for" {
	put package.json '{ "name": "root", "private": true, "version": "1.0.0", "workspaces": ["packages/*"] }'
	pkg packages/ui @x/ui '' '{ "tasks": { "build": { "exec": { "command": "true" }, "cache": {} } } }'
	put packages/ui/src/a.ts 'ui'
	put shared/conf.json '{}'
	put tsconfig.base.json '{}'
	app() { # app READ [WORKSPACEFILES] [DEPENDSON]: @x/app#t with that grant and key
		pkg packages/app @x/app '{ "@x/ui": "*" }' "{ \"tasks\": { \"t\": { \"exec\": { \"command\": \"x\",
			\"sandbox\": { \"allow\": { \"read\": [\".\", $1] } } }, \"dependsOn\": [${3:-}],
			\"cache\": { \"inputs\": { \"workspaceFiles\": [${2:-}] } } } } }"
	}
	app '"../../package.json"'
	run -2 vx-graph
	assert_output "vx-graph: packages/app/vx.json: tasks.t.exec.sandbox.allow.read[1]: '../../package.json' lets the cached task read 'package.json', outside its project, which no input of its key answers for, so an edit there would replay a stale result (R-21a); fix: add \"package.json\" to cache.inputs.workspaceFiles of @x/app#t"
	app '"../../package.json"' '"package.json"'
	run -0 vx-graph
	app '"../../package.json"' '"*.json"'
	run -0 vx-graph
	app '"../../package.json"' '"**", "!package.json"'
	run -2 vx-graph
	# a directory, spelled either way, is answered for by its whole subtree
	app '"../../shared/"'
	run -2 vx-graph
	assert_output --partial "fix: add \"shared/**\" to cache.inputs.workspaceFiles of @x/app#t"
	app '"../../shared"' '"shared"'
	run -2 vx-graph
	assert_output --partial "'../../shared' lets the cached task read 'shared',"
	app '"../../shared/**"' '"shared/**/*"'
	run -0 vx-graph
	app '"../../shared"' '"*/**"'
	run -0 vx-graph
	app '"../../shared/"' '"shared/**", "!shared/secret.txt"'
	run -2 vx-graph
	# a sibling package: its files, or an edge whose key folds one of its tasks
	app '"../ui/src/**"'
	run -2 vx-graph
	assert_output --partial "'../ui/src/**' lets the cached task read 'packages/ui/src', outside its project"
	assert_output --partial "fix: add \"packages/ui/src/**\" to cache.inputs.workspaceFiles of @x/app#t, or a dependsOn edge whose key folds a task of @x/ui (^build where @x/ui#build keys its sources)"
	app '"../ui/src/**"' '"packages/ui/src/**"'
	run -0 vx-graph
	app '"../ui/src/**"' '' '"^build"'
	run -0 vx-graph
	app '"../ui/"' '' '"@x/ui#build"'
	run -0 vx-graph
	# ...through its node_modules link too
	mkdir -p node_modules/@x
	ln -s ../../packages/ui node_modules/@x/ui
	app '"../../node_modules/@x/ui"'
	run -2 vx-graph
	assert_output --partial "fix: add \"packages/ui/**\" to cache.inputs.workspaceFiles of @x/app#t, or a dependsOn edge"
	# a grant over several projects: an edge keys only one of them
	app '".."' '' '"^build"'
	run -2 vx-graph
	assert_output --partial "fix: add \"packages/**\" to cache.inputs.workspaceFiles of @x/app#t"
	refute_output --partial 'dependsOn'
	# the exemptions: keyed by every key (the fingerprint), by the lockfile
	# (node_modules), outside the workspace, git's own state, the project's own
	put package-lock.json '{}'
	mkdir -p .git node_modules/lib
	app '"../../package-lock.json", "../../node_modules/lib", "../../node_modules/", "/usr/share/", "~/.npmrc", "../../.git", "./src/**", "'"$WS"'/packages/app/x"'
	run -0 vx-graph
	# the same grant on an uncached task is never refused
	put packages/app/vx.json '{ "tasks": { "t": { "exec": { "command": "x", "sandbox": { "allow": { "read": ["../../package.json", ".."] } } } } } }'
	run -0 vx-graph
	# nor on a task the run does not hold
	app '"../../package.json"'
	pkg packages/ui @x/ui '' '{ "tasks": { "build": { "exec": { "command": "true" }, "cache": {} }, "t2": { "exec": { "command": "true" } } } }'
	run -0 vx-graph t2
	run -2 vx-graph t
}

@test "R-21a the root project's cached task: '.' stops at the nested projects' walls, a grant spelled inside one is judged" {
	put vx.json '{ "tasks": { "lint": { "exec": { "command": "x", "sandbox": { "allow": { "read": ["."] } } }, "cache": {} } } }'
	pkg packages/ui @x/ui '' '{ "tasks": { "build": { "exec": { "command": "true" }, "cache": {} } } }'
	run -0 vx-graph lint
	put vx.json '{ "tasks": { "lint": { "exec": { "command": "x", "sandbox": { "allow": { "read": [".", "packages/ui/"] } } }, "cache": {} } } }'
	run -2 vx-graph lint
	assert_output --partial "vx.json: tasks.lint.exec.sandbox.allow.read[1]: 'packages/ui/' lets the cached task read 'packages/ui', outside its project"
	assert_output --partial "fix: add \"packages/ui/**\" to cache.inputs.workspaceFiles of root#lint, or a dependsOn edge whose key folds a task of @x/ui"
	put vx.json '{ "tasks": { "lint": { "exec": { "command": "x", "sandbox": { "allow": { "read": [".", "packages/ui/"] } } }, "cache": {}, "dependsOn": ["@x/ui#build"] } } }'
	run -0 vx-graph lint
}

@test "refuse: invalid JSON names the line" {
	pkg packages/a @x/a
	printf '{\n  "tasks": {\n    "b": { "exec": { "command": "x" } "cache": {} }\n  }\n}\n' > packages/a/vx.json
	run -2 vx-graph
	assert_output "vx-graph: packages/a/vx.json: (file): invalid JSON at line 3; fix: correct the JSON syntax"
}

@test "vx.json with comments and trailing commas, as tsconfig.json is written" {
	# issue 22 item 2
	pkg packages/a @x/a '' '// the a package
{
  /* its tasks,
     one per line */
  "tasks": {
    "b": {
      "exec": { "command": "echo http://x/* not a comment */ // nor this", }, // a trailing comma
      "cache": { "inputs": { "files": ["src/**", /* "dist/**", */ ], }, },
    },
  },
}'
	run -0 vx-graph
	assert_equal "$(field "$output" @x/a#b command)" '"echo http://x/* not a comment */ // nor this"'
	assert_equal "$(field "$output" @x/a#b cache)" '{"inputs":{"files":["src/**"],"env":[],"runtime":[],"workspaceFiles":[]},"outputs":{"files":[]}}'
	# a root marked by a commented vx.json's projects
	rm package.json
	put vx.json '{ /* the workspace */ "projects": ["packages/*"], // all of them
}'
	cd packages/a
	run -0 vx-graph
	assert_equal "$(ids "$output")" "@x/a#b"
}

@test "vx.json with comments: errors still name the file, the line and the key" {
	pkg packages/a @x/a
	printf '// one\n/* two\n   three */\n{ "tasks": {\n  "b": { "exec": { "command": "x" }, "cahce": {}, },\n} }\n' > packages/a/vx.json
	run -2 vx-graph
	assert_output "vx-graph: packages/a/vx.json: tasks.b.cahce: unknown key; fix: remove it or use one of: exec, dependsOn, cache"
	printf '// one\n/* two */\n{ "tasks": {\n  "b": { "exec": { "command": "x" } "cache": {} }\n} }\n' > packages/a/vx.json
	run -2 vx-graph
	assert_output "vx-graph: packages/a/vx.json: (file): invalid JSON at line 4; fix: correct the JSON syntax"
	# a lone comma is no trailing comma
	printf '{ "tasks": {\n  "b": { "exec": { "command": "x" }, "dependsOn": [,] }\n} }\n' > packages/a/vx.json
	run -2 vx-graph
	assert_output "vx-graph: packages/a/vx.json: (file): invalid JSON at line 2; fix: correct the JSON syntax"
	printf '{ "tasks": {}\n/* never closed\n}\n' > packages/a/vx.json
	run -2 vx-graph
	assert_output "vx-graph: packages/a/vx.json: (file): a comment that never ends, at line 2; fix: close it with */"
}

@test "refuse: a key given twice" {
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "command": "y" } } } }' \
		"tasks.b.exec.command: key appears twice; fix: keep one of them"
}

@test "refuse: cache on a group or a persistent task" {
	refuse '{ "tasks": { "b": { "dependsOn": [], "cache": {} } } }' \
		"tasks.b.cache: a group (a task with no exec) runs nothing to cache"
	refuse '{ "tasks": { "b": { "exec": { "command": "x", "persistent": true }, "cache": {} } } }' \
		"tasks.b.cache: a persistent task is never cached (R-4)"
}

@test "refuse: input and output globs that leave the project" {
	refuse '{ "tasks": { "b": { "exec": { "command": "x" }, "cache": { "inputs": { "files": ["../shared/**"] } } } } }' \
		"tasks.b.cache.inputs.files[0]: '../shared/**': leaves the project; fix: key files outside the project with cache.inputs.workspaceFiles"
	refuse '{ "tasks": { "b": { "exec": { "command": "x" }, "cache": { "outputs": { "files": ["/tmp/x"] } } } } }' \
		"tasks.b.cache.outputs.files[0]: '/tmp/x': not project-relative"
	refuse '{ "tasks": { "b": { "exec": { "command": "x" }, "cache": { "inputs": { "workspaceFiles": ["../../etc/passwd"] } } } } }' \
		"workspaceFiles[0]: '../../etc/passwd': leaves the workspace root"
}

@test "refuse: inputs.tasks naming something not in dependsOn" {
	refuse '{ "tasks": { "g": { "exec": { "command": "x" } }, "b": { "exec": { "command": "x" }, "dependsOn": ["g"], "cache": { "inputs": { "tasks": ["^g"] } } } } }' \
		"tasks.b.cache.inputs.tasks[0]: '^g' is not in dependsOn"
}

@test "refuse: bad env names and task names" {
	refuse '{ "tasks": { "b": { "exec": { "command": "x" }, "cache": { "inputs": { "env": ["1BAD"] } } } } }' \
		"tasks.b.cache.inputs.env[0]: '1BAD': not an environment variable name"
	refuse '{ "tasks": { "a#b": { "exec": { "command": "x" } } } }' \
		"tasks.a#b: 'a#b' is not a valid task name"
}

@test "refuse: two projects with one name" {
	pkg packages/a @x/dup
	pkg packages/b @x/dup
	run -2 vx-graph
	assert_output --partial "'@x/dup' is also the name of the project in 'packages/a'"
}

@test "every config error of a run is reported, each on its own line" {
	pkg packages/a @x/a '' '{ "tasks": { "b": { "exec": { "command": "x" }, "cahce": {} } } }'
	pkg packages/b @x/b '' '{ "tasks": { "b": { "exec": { "command": 1 } } } }'
	run -2 vx-graph
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 --partial "packages/a/vx.json: tasks.b.cahce"
	assert_line --index 1 --partial "packages/b/vx.json: tasks.b.exec.command"
}

# --- the program ---------------------------------------------------------

@test "--help prints usage and exits 0; a bad option exits 2" {
	run -0 vx-graph --help
	assert_line --index 0 "usage: vx-graph [--root DIR] [--filter SEL]... [--only] [--env-mode MODE] [TASK...]"
	run -2 vx-graph --bogus
	assert_output --partial "usage: vx-graph"
}

@test "a failed write exits 1, never 0" {
	two_pkgs
	run -1 bash -c 'vx-graph > /dev/full'
	assert_output "vx-graph: write error: No space left on device"
}

@test "--help agrees with the manual page's synopsis and options" {
	assert_help_matches_man vx-graph
}

@test "vx's manual: its synopsis and exit status agree with vx --help, with vx why, vx clean and vx run's options" {
	local man=$BATS_TEST_DIRNAME/../docs/man/vx.md sub
	assert_help_matches_man vx
	for sub in why clean; do
		run -0 vx "$sub" --help
		grep -qF -- "    ${lines[0]#usage: }" "$man" || fail "docs/man/vx.md lacks: ${lines[0]}"
	done
	# vx run's options, each under vx run
	run -0 vx run --help
	local opt
	for opt in '-j, --jobs N' '--force' '--no-cache' '--dry' '--json' '--root DIR' '--remote-cache URL' \
		'--filter SEL' '--only'; do
		grep -qF -- "    $opt" "$man" || fail "docs/man/vx.md lacks vx run's $opt"
		assert_output --partial "$opt"
	done
	# the keying limits are where users look
	grep -q '^## KEYING LIMITS' "$man"
}

# --- the saved graphs (.vx/graph-<key>) ---------------------------------------

# The cache keeps only notes of files last changed over a second before the
# run: the fixtures must age first. A replay is told apart from a fold by
# planting a marker in the saved output (sealed with the checksum it then
# needs, vx-test-memoseal): only a replay prints it.
# .vx is made first: creating it changes the root directory, which is noted.
saved_then_marked() {
	mkdir -p .vx
	rm -f .vx/graph-*
	sleep 2
	run -0 vx-graph "$@"
	local saved
	saved=$(saved)
	[ -f "$saved" ] || fail "no graph was saved"
	sed -i 's/echo app/echo APP/' "$saved"
	vx-test-memoseal "$saved"
	run -0 vx-graph "$@"
	assert_output --partial '"echo APP"'
}

saved() { # the one saved graph
	local f
	for f in .vx/graph-*; do [ -f "$f" ] && echo "$f"; done
}

@test "a rerun with nothing changed replays the saved graph; an edited vx.json is folded afresh" {
	two_pkgs
	saved_then_marked build
	put packages/app/vx.json '{ "tasks": { "build": { "exec": { "command": "echo app2" }, "dependsOn": ["^build"], "cache": {} } } }'
	run -0 vx-graph build
	assert_output --partial '"echo app2"'
	refute_output --partial 'APP'
}

@test "the saved graph is not replayed after a project appears, a vx.json appears or goes, or the root config changes" {
	two_pkgs
	saved_then_marked build
	pkg packages/new @x/new '' '{ "tasks": { "build": { "exec": { "command": "echo new" } } } }'
	run -0 vx-graph build
	assert_output --partial '@x/new#build'
	refute_output --partial 'APP'

	pkg packages/lib @x/lib
	saved_then_marked build
	put packages/lib/vx.json '{ "tasks": { "build": { "exec": { "command": "echo lib" } } } }'
	run -0 vx-graph build
	assert_output --partial '@x/lib#build'
	refute_output --partial 'APP'

	saved_then_marked build
	rm packages/new/vx.json
	run -0 vx-graph build
	refute_output --partial '@x/new#build'
	refute_output --partial 'APP'

	saved_then_marked build
	put package.json '{ "name": "root", "private": true, "workspaces": ["packages/app"] }'
	run -0 vx-graph build
	refute_output --partial '@x/ui'
	refute_output --partial 'APP'
}

@test "other arguments or another binary are not served the saved graph; a file changed just now saves none" {
	two_pkgs
	saved_then_marked build
	run -0 vx-graph @x/app#build
	refute_output --partial 'APP'
	# the key holds the binary's stat: a rebuilt vx-graph folds afresh
	cp "$(command -v vx-graph)" "$BATS_TEST_TMPDIR/vx-graph"
	run -0 "$BATS_TEST_TMPDIR/vx-graph" build
	refute_output --partial 'APP'

	rm .vx/graph-*
	put packages/ui/vx.json '{ "tasks": { "build": { "exec": { "command": "echo ui2" }, "cache": {} } } }'
	run -0 vx-graph build
	[ -z "$(saved)" ] || fail "a graph was saved from a file changed within the last second"
}

@test "each set of arguments keeps its saved graph, and no more than 8 are kept" {
	two_pkgs
	saved_then_marked build
	# another command folds and saves its own graph: build's is still replayed
	run -0 vx-graph @x/app#build
	refute_output --partial 'APP'
	run -0 vx-graph @x/app#build
	run -0 vx-graph build
	assert_output --partial '"echo APP"'
	[ "$(find .vx -name 'graph-*' | wc -l)" -eq 2 ]
	# ten more argument lists ("build" twice, three times, ...): 8 kept, and
	# the single file of older versions goes
	touch .vx/graph
	local args=(build)
	while [ "${#args[@]}" -le 10 ]; do
		args+=(build)
		run -0 vx-graph "${args[@]}"
	done
	[ "$(find .vx -name 'graph-*' | wc -l)" -eq 8 ]
	[ ! -e .vx/graph ]
}

@test "a corrupt, truncated or foreign saved graph is a fold, and a replay's failed write still exits 1" {
	two_pkgs
	mkdir .vx
	sleep 2
	run -0 vx-graph build
	expected=$output
	local f
	f=$(saved)
	# cut short: refused, and said once (the path as vx-graph names it)
	truncate -s 200 "$f"
	run -0 --separate-stderr vx-graph build
	assert_equal "$output" "$expected"
	assert_equal "$stderr" "vx-graph: $PWD/$f: a damaged memo (shorter than its header says), ignored: the work it saved is redone and the file rewritten"
	# not a memo at all (an older vx's file): refused quietly
	printf 'garbage\n' > "$f"
	run -0 --separate-stderr vx-graph build
	assert_equal "$output" "$expected"
	assert_equal "$stderr" ""
	# a byte of the saved output changed, its length kept: the checksum
	# refuses it, and says so once; the fold saves it afresh
	sed -i 's/echo app/echo APP/' "$f"
	run -0 --separate-stderr vx-graph build
	assert_equal "$output" "$expected"
	assert_equal "$stderr" "vx-graph: $PWD/$f: a damaged memo (its checksum does not match), ignored: the work it saved is redone and the file rewritten"
	run -0 --separate-stderr vx-graph build
	assert_equal "$output" "$expected"
	assert_equal "$stderr" ""
	run -0 vx-graph build
	run -1 bash -c 'vx-graph build > /dev/full'
	assert_output "vx-graph: write error: No space left on device"
}
