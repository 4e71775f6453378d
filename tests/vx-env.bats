#!/usr/bin/env bats
# shellcheck disable=SC2016,SC2154  # task commands in JSON expand in the task, not here; bats sets $stderr
# The environment is an input (R-8a, issue 34): by default a task is handed
# only the base set, its keyed cache.inputs.env and its passThroughEnv, so an
# undeclared variable can never make a stale hit; envMode "loose" (task,
# root, --env-mode) hands everything. Each test runs the same task
# unsandboxed (u) and sandboxed (s): one rule for both.
# tests/vx-env-rootless.bats runs this suite again as an unprivileged user.

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
	export VX_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	unset MODE KEYED PT VITE_A VITE_B VITE_SECRET
}

# tasks u and s of @x/a running CMD, with EXEC_EXTRA in exec and CACHE_EXTRA
# in cache.inputs (JSON members, leading comma).
tasks() {
	local cmd=$1 exec_extra=${2:-} inputs_extra=${3:-}
	pkg packages/a @x/a '' "{ \"tasks\": {
		\"u\": { \"exec\": { \"command\": \"$cmd\" $exec_extra },
		       \"cache\": { \"inputs\": { \"files\": [\"src/**\"] $inputs_extra } } },
		\"s\": { \"exec\": { \"command\": \"$cmd\" $exec_extra,
		                   \"sandbox\": { \"allow\": { \"read\": [\".\"] } } },
		       \"cache\": { \"inputs\": { \"files\": [\"src/**\"] $inputs_extra } } } } }"
	put packages/a/src/x.txt x
}

@test "an undeclared variable reaches no task, so it cannot make a stale hit" {
	tasks 'echo mode=[$MODE]'
	MODE=alpha run -0 vx run u s
	assert_line '@x/a#u: mode=[]'
	assert_line '@x/a#s: mode=[]'
	refute_line --partial alpha
	MODE=beta run -0 vx run u s
	assert_line --regexp '^hit +@x/a#u'
	assert_line --regexp '^hit +@x/a#s'
	refute_line --partial alpha
}

@test "a keyed variable is handed and moves the key; a changed value is a miss with the new value" {
	tasks 'echo keyed=[$KEYED]' '' ', "env": ["KEYED"]'
	KEYED=one run -0 vx run u s
	assert_line '@x/a#u: keyed=[one]'
	assert_line '@x/a#s: keyed=[one]'
	KEYED=one run -0 vx run u s
	assert_line --regexp '^hit +@x/a#u'
	KEYED=two run -0 vx run u s
	assert_line --regexp '^miss +@x/a#u'
	assert_line --regexp '^miss +@x/a#s'
	assert_line '@x/a#u: keyed=[two]'
	assert_line '@x/a#s: keyed=[two]'
	run -0 vx why @x/a#u
	assert_line --partial 'env changed: KEYED'
}

@test "passThroughEnv is handed but not keyed, as turbo's" {
	tasks 'echo pt=[$PT] mode=[$MODE]' ', "passThroughEnv": ["PT"]'
	PT=one MODE=m run -0 vx run u s
	assert_line '@x/a#u: pt=[one] mode=[]'
	assert_line '@x/a#s: pt=[one] mode=[]'
	PT=two run -0 vx run u s
	assert_line --regexp '^hit +@x/a#u'
	assert_line --regexp '^hit +@x/a#s'
}

@test "patterns key and hand every match, '!' takes names back out" {
	tasks 'echo a=[$VITE_A] b=[$VITE_B] secret=[$VITE_SECRET]' '' ', "env": ["VITE_*", "!VITE_SECRET"]'
	VITE_A=1 VITE_B=2 VITE_SECRET=s run -0 vx run u s
	assert_line '@x/a#u: a=[1] b=[2] secret=[]'
	assert_line '@x/a#s: a=[1] b=[2] secret=[]'
	# the secret is not keyed either: changing it is a hit
	VITE_A=1 VITE_B=2 VITE_SECRET=t run -0 vx run u s
	assert_line --regexp '^hit +@x/a#u'
	# a new matching variable moves the key
	VITE_A=1 VITE_B=2 VITE_C=3 run -0 vx run u s
	assert_line --regexp '^miss +@x/a#u'
	assert_line --regexp '^miss +@x/a#s'
}

@test "the base set is PATH, HOME, USER, LOGNAME, SHELL, TMPDIR; locale and time zone are not handed" {
	# the shell adds PWD, SHLVL and _ itself; vx-sandbox its proxies and tracer
	tasks 'env | cut -d= -f1 | grep -vxE \"PWD|SHLVL|_|OLDPWD\" | sort | tr \"\\n\" \" \"'
	LANG=C.UTF-8 TZ=UTC MODE=x USER=someone LOGNAME=someone SHELL=/bin/sh run -0 vx run u
	assert_line '@x/a#u: HOME LOGNAME PATH SHELL USER '
	LANG=C.UTF-8 TZ=UTC MODE=x run -0 vx run s
	assert_line --partial '@x/a#s: '
	refute_output --partial 'LANG'
	refute_output --partial ' TZ '
	refute_output --partial 'MODE'
	assert_output --partial ' PATH '
	assert_output --partial ' TMPDIR '
}

@test "envMode loose on the task, at the root, or --env-mode hands everything, and moves the key" {
	tasks 'echo mode=[$MODE]' ', "envMode": "loose"'
	MODE=alpha run -0 vx run u s
	assert_line '@x/a#u: mode=[alpha]'
	assert_line '@x/a#s: mode=[alpha]'

	tasks 'echo mode=[$MODE]'
	put vx.json '{ "envMode": "loose" }'
	# loose keys no undeclared variable (turbo's loose mode): --force runs
	MODE=beta run -0 vx run u s --force
	assert_line '@x/a#u: mode=[beta]'
	assert_line '@x/a#s: mode=[beta]'

	# the flag wins over both spellings in the files
	put vx.json '{ "envMode": "strict" }'
	tasks 'echo mode=[$MODE]' ', "envMode": "strict"'
	MODE=gamma run -0 vx run u s --env-mode loose --force
	assert_line '@x/a#u: mode=[gamma]'
	assert_line '@x/a#s: mode=[gamma]'
	MODE=gamma run -0 vx run u s
	assert_line --regexp '^miss +@x/a#u'
	assert_line '@x/a#u: mode=[]'
	run -0 vx why @x/a#u
	assert_line --partial 'envMode changed'
}

@test "a root passThroughEnv reaches every task; a changed list moves the key and vx why says so" {
	tasks 'echo pt=[$PT]'
	put vx.json '{ "passThroughEnv": ["PT"] }'
	PT=x run -0 vx run u s
	assert_line '@x/a#u: pt=[x]'
	assert_line '@x/a#s: pt=[x]'
	put vx.json '{ "passThroughEnv": ["PT", "OTHER"] }'
	PT=x run -0 vx run u
	assert_line --regexp '^miss +@x/a#u'
	run -0 vx why @x/a#u
	assert_line --partial 'passThroughEnv changed'
}

@test "bad env settings refuse the run: exit 2, one line naming the file, the key and the fix" {
	tasks 'echo hi > ../../ran' ', "envMode": "wild"'
	run -2 vx run u
	assert_output --partial 'packages/a/vx.json: tasks.u.exec.envMode: expected "strict" or "loose"'
	assert_output --partial 'fix:'
	tasks 'echo hi > ../../ran' ', "passThroughEnv": ["*"]'
	run -2 vx run u
	assert_output --partial "tasks.u.exec.passThroughEnv[0]: '*': matches every variable"
	tasks 'echo hi > ../../ran' '' ', "env": ["1X"]'
	run -2 vx run u
	assert_output --partial "tasks.u.cache.inputs.env[0]: '1X'"
	tasks 'echo hi > ../../ran'
	put packages/a/vx.json '{ "envMode": "loose", "tasks": {} }'
	run -2 vx run u
	assert_output --partial "packages/a/vx.json: envMode: a workspace-wide setting outside the root's vx.json"
	run -2 vx run u --env-mode sloppy
	assert_output --partial "--env-mode 'sloppy': expected strict or loose"
	assert [ ! -e ran ]
}

@test "vx-sandbox by hand applies the request's policy: the pipe hands what vx run hands" {
	tasks 'echo mode=[$MODE] pt=[$PT]' ', "passThroughEnv": ["PT"]'
	MODE=alpha PT=p run -0 bash -o pipefail -c "vx-graph @x/a#s | vx-key | vx-pick @x/a#s | vx-sandbox --request -"
	assert_line 'mode=[] pt=[p]'
	MODE=alpha PT=p run -0 bash -o pipefail -c "vx-graph --env-mode loose @x/a#s | vx-key | vx-pick @x/a#s | vx-sandbox --request -"
	assert_line 'mode=[alpha] pt=[p]'
}

@test "vx init carries turbo's env, globalEnv, passThroughEnv, globalPassThroughEnv and envMode over, and vx run hands what turbo would" {
	put turbo.json '{
	  "globalEnv": ["GLOBAL_KEYED"],
	  "globalPassThroughEnv": ["GLOBAL_PT"],
	  "envMode": "strict",
	  "tasks": { "build": { "env": ["VITE_*", "!VITE_SECRET"], "passThroughEnv": ["LOCAL_PT"], "outputs": [] } }
	}'
	put packages/a/package.json '{ "name": "@x/a", "scripts": { "build": "echo gk=[$GLOBAL_KEYED] gp=[$GLOBAL_PT] lp=[$LOCAL_PT] v=[$VITE_A] s=[$VITE_SECRET] o=[$OTHER]" } }'
	run -0 --separate-stderr vx init
	assert_equal "$stderr" ""
	run -0 /usr/bin/python3 -c '
import json, re, sys
strip = lambda p: json.loads(re.sub(r"^\s*//.*$", "", open(p).read(), flags=re.M))
root, a = strip("vx.json"), strip("packages/a/vx.json")
print(root.get("envMode"), root.get("passThroughEnv"))
b = a["tasks"]["build"]
print(b["exec"].get("passThroughEnv"), b["cache"]["inputs"]["env"])'
	assert_line --index 0 "strict ['GLOBAL_PT']"
	assert_line --index 1 "['LOCAL_PT'] ['GLOBAL_KEYED', 'VITE_*', '!VITE_SECRET']"
	GLOBAL_KEYED=1 GLOBAL_PT=2 LOCAL_PT=3 VITE_A=4 VITE_SECRET=5 OTHER=6 run -0 vx run build
	assert_line '@x/a#build: gk=[1] gp=[2] lp=[3] v=[4] s=[] o=[]'
	# turbo's loose mode stays loose
	edit_json turbo.json 'm["envMode"] = "loose"'
	run -0 vx init --force
	OTHER=6 run -0 vx run build
	assert_line --partial 'o=[6]'
}
