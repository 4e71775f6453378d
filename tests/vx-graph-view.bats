#!/usr/bin/env bats
# vx graph --dot and --html FILE (issue 22, item 7): one node per task, an
# edge per dependsOn, each task drawn as its last run left it (kept by vx run
# in .vx/why/keys). The dot is read back by Graphviz's dot; the page is
# opened in a real headless browser (Debian's chromium) and its DOM, after
# its script ran, is what the tests read. Task names are user data: a
# hostile one must stay text in both.

load helpers

HOSTILE='</script><script>alert(1)</script>'

setup() {
	new_ws
	cd "$WS" || return 1
}

# chain: ui#build <- app#build <- app#test, and app#lint that nothing runs
chain() {
	pkg packages/ui @x/ui '' '{ "tasks": { "build": { "exec": { "command": "echo ui > out.txt" },
		"cache": { "outputs": { "files": ["out.txt"] } } } } }'
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"build": { "exec": { "command": "echo app" }, "dependsOn": ["^build"], "cache": {} },
		"test": { "exec": { "command": "echo test" }, "dependsOn": ["build"], "cache": {} },
		"lint": { "exec": { "command": "echo lint" } } } }'
}

# every state: ok hits on its second run, bad fails, after is skipped behind
# it, leaky writes outside its grant (a violation), idle never runs
states() {
	pkg packages/s @x/s '' '{ "tasks": {
		"ok": { "exec": { "command": "echo ok" }, "cache": {} },
		"bad": { "exec": { "command": "exit 3" } },
		"after": { "exec": { "command": "echo after" }, "dependsOn": ["bad"] },
		"leaky": { "exec": { "command": "echo x > stray.txt",
			"sandbox": { "allow": { "read": ["."], "write": ["dist/"] } } } },
		"idle": { "exec": { "command": "echo idle" } } } }'
}

# dot_state OUTPUT ID: the vx_state of node ID in dot text
dot_state() {
	/usr/bin/python3 -c '
import re, sys
for line in sys.argv[1].splitlines():
    m = re.match(r"\s*\"((?:[^\"\\\\]|\\\\.)*)\" \[.*vx_state=\"(\w+)\"", line)
    if m and m.group(1) == sys.argv[2]:
        print(m.group(2))
' "$1" "$2"
}

need_dot() {
	command -v dot > /dev/null || skip "graphviz's dot is not installed (scripts/install-deps.sh)"
}

need_chromium() {
	command -v chromium > /dev/null || skip "chromium is not installed (scripts/install-deps.sh)"
}

# dom FILE [TASK_ID]: the page's DOM after its script ran, in headless
# chromium, with TASK_ID selected through #task=
dom() {
	local hash=''
	if [ $# -gt 1 ]; then
		hash="#task=$(/usr/bin/python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$2")"
	fi
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$BATS_TEST_TMPDIR/chromium" --dump-dom "file://$1$hash" 2> "$BATS_TEST_TMPDIR/chromium.err"
}

# count TEXT REGEX: how many times REGEX matches in TEXT
count() {
	/usr/bin/python3 -c 'import re, sys; print(len(re.findall(sys.argv[2], sys.argv[1])))' "$1" "$2"
}

@test "--dot: one node per task and an edge per dependsOn, read back by graphviz's dot" {
	need_dot
	chain
	run -0 vx graph --dot
	assert_line --index 0 'digraph vx {'
	assert_equal "$(count "$output" '(?m)^  "[^"]+" \[label=')" 4
	assert_line '  "@x/ui#build" -> "@x/app#build";'
	assert_line '  "@x/app#build" -> "@x/app#test";'
	assert_equal "$(count "$output" ' -> ')" 2
	assert_equal "$(dot_state "$output" '@x/app#lint')" never
	printf '%s\n' "$output" > g.dot
	run -0 dot -Tsvg g.dot
	assert_equal "$(count "$output" 'class="node"')" 4
	assert_equal "$(count "$output" 'class="edge"')" 2
	assert_output --partial '<title>@x/ui#build&#45;&gt;@x/app#build</title>'
}

@test "--dot TASK: the task and what it depends on, nothing else" {
	chain
	run -0 vx graph --dot @x/app#build
	assert_equal "$(count "$output" '\[label=')" 2
	refute_output --partial 'lint'
}

@test "each task is drawn as its last run left it: hit, ran, failed, violation, skipped, never run" {
	need_dot
	states
	run -1 vx run ok bad after leaky
	run -0 vx run @x/s#ok
	assert_line --regexp '^hit  @x/s#ok '
	run -0 vx graph --dot
	assert_equal "$(dot_state "$output" '@x/s#ok')" hit
	assert_equal "$(dot_state "$output" '@x/s#bad')" failed
	assert_equal "$(dot_state "$output" '@x/s#after')" skipped
	assert_equal "$(dot_state "$output" '@x/s#leaky')" violation
	assert_equal "$(dot_state "$output" '@x/s#idle')" never
	assert_line --partial '"@x/s#leaky" [label="@x/s#leaky\nviolation", style="rounded,filled,bold"'
	# a miss that ran and passed, after an edit
	echo changed > packages/s/new.txt
	run -0 vx run @x/s#ok
	run -0 vx graph --dot @x/s#ok
	assert_equal "$(dot_state "$output" '@x/s#ok')" ran
	# the index of a vx from before outcomes were kept: its lines still read, as never run
	sed -i 's/ [a-z]*$//' .vx/why/keys
	run -0 vx graph --dot @x/s#ok
	assert_equal "$(dot_state "$output" '@x/s#ok')" never
}

@test "a persistent task: ran once it started, failed when it exits non-zero on its own" {
	pkg packages/p @x/p '' '{ "tasks": {
		"dev": { "exec": { "command": "exit 4", "persistent": true } },
		"srv": { "exec": { "command": "sleep 1", "persistent": true } } } }'
	run -1 vx run @x/p#dev
	run -0 vx run @x/p#srv
	run -0 vx graph --dot
	assert_equal "$(dot_state "$output" '@x/p#dev')" failed
	assert_equal "$(dot_state "$output" '@x/p#srv')" ran
}

@test "a run whose tasks end as before rewrites no index" {
	states
	# VX_WATCH=0: each run reads every file and ends each task itself (a
	# run vx-watch vouches for is replayed whole and touches no index)
	export VX_WATCH=0
	run -0 vx run @x/s#ok
	run -0 vx run @x/s#ok
	touch -d '2000-01-01' .vx/why/keys
	run -0 vx run @x/s#ok
	assert_line --regexp '^hit  @x/s#ok '
	assert_equal "$(stat -c %Y .vx/why/keys)" "$(date -d 2000-01-01 +%s)"
}

@test "--dot: hostile names and quotes stay one node each, and dot reads them" {
	need_dot
	# package.json names are JSON strings: a quote and a backslash in one
	put packages/q/package.json '{ "name": "@x/q\"uo\\te" }'
	put packages/q/vx.json '{ "tasks": { "</script><script>alert(1)</script>": { "exec": { "command": "echo \"hi\"" } },
		"b\\": { "exec": { "command": "true" }, "dependsOn": ["</script><script>alert(1)</script>"] } } }'
	run -0 vx graph --dot
	# the task b\ (one backslash) is "b\\" in dot: a quote or a lone backslash would end
	# or bend the string
	assert_line '  "@x/q\"uo\\te#</script><script>alert(1)</script>" -> "@x/q\"uo\\te#b\\";'
	assert_equal "$(count "$output" '\[label=')" 2
	printf '%s\n' "$output" > g.dot
	run -0 dot -Tsvg g.dot
	assert_equal "$(count "$output" 'class="node"')" 2
	assert_equal "$(count "$output" 'class="edge"')" 1
	refute_output --partial '<script'
	assert_output --partial '&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;'
}

@test "--html: one page that fetches nothing, the graph drawn without script" {
	chain
	run -0 vx graph --html "$WS/g.html"
	assert_output "vx: wrote $WS/g.html (4 tasks)"
	page=$(cat g.html)
	assert_equal "$(count "$page" '<g class="task ')" 4
	assert_equal "$(count "$page" '<path class="edge"')" 2
	assert_equal "$(count "$page" '<script')" 2
	assert_equal "$(count "$page" '(?i)(src|href)=')" 0
	assert_equal "$(count "$page" 'https?://(?!www\.w3\.org/2000/svg)')" 0
	assert_equal "$(count "$page" "default-src 'none'")" 1
	# written to a temporary beside it, renamed, nothing left over
	run -0 find "$WS" -maxdepth 1 -name '*.tmp'
	assert_output ''

}

@test "--html in headless chromium: nodes, edges and states in the DOM; a click shows the task" {
	need_chromium
	states
	put packages/s/vx.json '{ "tasks": {
		"ok": { "exec": { "command": "echo ok" }, "cache": { "inputs": { "files": ["src/**"], "env": ["MODE"] },
			"outputs": { "files": ["dist/**"] } } },
		"bad": { "exec": { "command": "exit 3" }, "dependsOn": ["ok"] },
		"idle": { "exec": { "command": "echo idle" } } } }'
	run -1 vx run ok bad
	run -0 vx run @x/s#ok
	run -0 vx graph --html "$WS/g.html"
	run -0 dom "$WS/g.html" '@x/s#ok'
	assert_output --partial 'data-ready="1"'
	assert_equal "$(count "$output" '<g class="task ')" 3
	assert_equal "$(count "$output" '<path class="edge')" 1
	assert_output --regexp 'data-task="[0-9]+" data-state="hit"'
	assert_output --regexp 'data-task="[0-9]+" data-state="failed"'
	assert_output --regexp 'data-task="[0-9]+" data-state="never"'
	# the click: the details panel holds the task's id, command, inputs, outputs and state
	assert_output --partial '<div id="details" data-task="@x/s#ok"><h2>@x/s#ok</h2>'
	assert_output --partial '<dd class="f-state">hit</dd>'
	assert_output --partial '<dd class="f-command">echo ok</dd>'
	assert_output --partial '<dd class="f-inputs">src/**</dd>'
	assert_output --partial '<dd class="f-env">MODE</dd>'
	assert_output --partial '<dd class="f-outputs">dist/**</dd>'
	assert_output --partial '<dd class="f-sandbox">(not sandboxed)</dd>'
	assert_output --regexp 'class="task st-hit selected"'
	assert_output --partial 'class="edge near"'
}

@test "--html in headless chromium: a hostile task name and command stay text" {
	need_chromium
	put packages/q/package.json '{ "name": "@x/q\"uo" }'
	put packages/q/vx.json '{ "tasks": {
		"</script><script>alert(1)</script>": { "exec": { "command": "echo '"'"'<img src=x onerror=alert(2)>'"'"' \"&amp;\"" } },
		"<b>bold": { "exec": { "command": "true" }, "dependsOn": ["</script><script>alert(1)</script>"] } } }'
	run -0 vx graph --html "$WS/g.html"
	run -0 dom "$WS/g.html" "@x/q\"uo#$HOSTILE"
	assert_output --partial 'data-ready="1"'
	# the page's own two script elements, no more; no img, no b element
	assert_equal "$(count "$output" '<script')" 2
	assert_equal "$(count "$output" '<img')" 0
	assert_equal "$(count "$output" '<b>')" 0
	assert_equal "$(count "$output" '<g class="task ')" 2
	assert_equal "$(count "$output" '<path class="edge')" 1
	assert_output --partial '<h2>@x/q"uo#&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</h2>'
	assert_output --partial '<dd class="f-command">echo '"'"'&lt;img src=x onerror=alert(2)&gt;'"'"' "&amp;amp;"</dd>'
}

@test "usage: one of --dot and --html FILE; an unwritable FILE is one line and no file" {
	chain
	run -2 vx graph --dot --html x.html
	assert_output --partial 'give one of --dot and --html FILE'
	run -2 vx graph --html
	run -2 vx graph --html ''
	run -1 vx graph --html "$WS/no/such/dir/g.html"
	assert_output "vx: unable to write '$WS/no/such/dir/g.html': No such file or directory"
	assert_file_not_exists "$WS/no/such/dir/g.html"
	run -2 vx graph --dot nosuch
	run -0 vx graph --help
	assert_line --partial 'usage: vx graph --dot [TASK...] [--filter SEL]... [--root DIR]'
	# without --dot or --html, vx graph is still vx-graph
	run -0 vx graph @x/ui#build
	assert_line --index 0 --partial '"type":"graph"'
}

@test "vx graph --help agrees with docs/man/vx.md: both synopsis lines and each option" {
	local man=$BATS_TEST_DIRNAME/../docs/man/vx.md opt
	run -0 vx graph --help
	grep -qF -- "    ${lines[0]#usage: }" "$man" || fail "docs/man/vx.md lacks: ${lines[0]}"
	grep -qF -- "    ${lines[1]#       }" "$man" || fail "docs/man/vx.md lacks: ${lines[1]}"
	for opt in --dot '--html FILE' '--root DIR'; do
		assert_line --regexp "^  $opt "
		grep -qE -- "^    $opt " "$man" || fail "docs/man/vx.md lacks the option $opt"
	done
}

@test "--dot to a full disk fails" {
	chain
	run -1 sh -c 'vx graph --dot > /dev/full'
	assert_output --partial 'write error'
}
