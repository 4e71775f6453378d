#!/usr/bin/env bats
# shellcheck disable=SC2154  # bats sets $stderr, $output, $lines
# man: every program in $VX_BIN_DIR has its page in docs/man, every option
# its --help lists is on the page and every option the page lists is in its
# --help (tests/man-options.sh reads both); and the stages take their flags
# in any position, before or after their operands.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	MAN=$BATS_TEST_DIRNAME/../docs/man
	OPTS=$BATS_TEST_DIRNAME/man-options.sh
}

# programs: every program in $VX_BIN_DIR, one a line (vx and vx-NAME; not
# the tracer's vx-trace.so)
programs() {
	local f
	for f in "$VX_BIN_DIR"/vx "$VX_BIN_DIR"/vx-*; do
		# vx-test-*: the suites' own helpers (Makefile TEST_PROGS), never installed
		case ${f##*/} in *.* | vx-test-*) continue ;; esac
		[ -f "$f" ] && [ -x "$f" ] && printf '%s\n' "${f##*/}"
	done
}

@test "man: every program in VX_BIN_DIR has a page" {
	local p n=0 missing=
	for p in $(programs); do
		n=$((n + 1))
		[ -f "$MAN/$p.md" ] || missing="$missing $p"
	done
	# vx and the seven stages at least: a bin dir found empty tests nothing
	[ "$n" -ge 8 ]
	assert_equal "missing pages:$missing" "missing pages:"
}

@test "man: each --help and its page list the same options" {
	local p bad=
	for p in $(programs); do
		[ -f "$MAN/$p.md" ] || continue
		run -0 bash "$OPTS" help "$VX_BIN_DIR/$p"
		local help=$output
		[ -n "$help" ] # every program has --help at least
		run -0 bash "$OPTS" page "$MAN/$p.md"
		if [ "$help" != "$output" ]; then
			bad="$bad
$p: --help lists [$(echo "$help" | tr '\n' ' ')], its page [$(echo "$output" | tr '\n' ' ')]"
		fi
	done
	assert_equal "disagree:$bad" "disagree:"
}

# sources PROGRAM: the C files whose opt_spec tables are that program's
# options (vx: the driver's commands in bin/; vx-NAME: NAME/main.c)
sources() {
	local src=$BATS_TEST_DIRNAME/..
	case $1 in
	vx) printf '%s\n' "$src"/bin/*.c ;;
	*) [ -f "$src/${1#vx-}/main.c" ] && printf '%s\n' "$src/${1#vx-}/main.c" ;;
	esac
}

@test "man: every option a program's table accepts is in its --help and on its page" {
	local p bad='' n=0
	for p in $(programs); do
		local files
		files=$(sources "$p") || continue
		# shellcheck disable=SC2086  # one file a word
		run -0 bash "$OPTS" table $files
		local table=$output
		[ -n "$table" ] || continue
		n=$((n + 1))
		run -0 bash "$OPTS" help "$VX_BIN_DIR/$p"
		local help=$output
		run -0 bash "$OPTS" page "$MAN/$p.md"
		local page=$output
		local nohelp nopage
		nohelp=$(comm -23 <(echo "$table") <(echo "$help") | tr '\n' ' ')
		nopage=$(comm -23 <(echo "$table") <(echo "$page") | tr '\n' ' ')
		[ -z "$nohelp$nopage" ] || bad="$bad
$p accepts, but its --help lacks [$nohelp], its page [$nopage]"
	done
	[ "$n" -ge 8 ]
	assert_equal "unlisted:$bad" "unlisted:"
}

@test "man: the checker finds an option a page lacks, and one a --help lacks" {
	mkdir -p "$BATS_TEST_TMPDIR/man"
	# a page without --max-conns, as vx-proxy's would be if it were forgotten
	grep -v -- '--max-conns' "$MAN/vx-proxy.md" > "$BATS_TEST_TMPDIR/man/vx-proxy.md"
	run -0 bash "$OPTS" page "$BATS_TEST_TMPDIR/man/vx-proxy.md"
	refute_line -- --max-conns
	run -0 bash "$OPTS" help "$VX_BIN_DIR/vx-proxy"
	assert_line -- --max-conns
	assert_line -- --listen-tcp
	assert_line -- -h
	# prose after an option is not an option ("/bin/sh -c" in vx-sandbox's)
	run -0 bash "$OPTS" help "$VX_BIN_DIR/vx-sandbox"
	refute_line -- -c
	# vx's commands bring their own: vx run --help's --jobs
	run -0 bash "$OPTS" help "$VX_BIN_DIR/vx"
	assert_line -- --jobs
	assert_line -- --remote-cache
}

@test "options: vx-graph takes --root after the task as before it" {
	new_ws
	pkg packages/a @x/a '' '{ "tasks": { "build": { "exec": { "command": "true" } } } }'
	cd "$BATS_TEST_TMPDIR" || return 1
	run -0 vx-graph --root "$WS" build
	local before=$output
	run -0 vx-graph build --root "$WS"
	assert_equal "$output" "$before"
	assert_line --partial '"id":"@x/a#build"'
	run -0 vx-graph build --root="$WS"
	assert_equal "$output" "$before"
	# after --, an option's spelling is a task name
	run -2 vx-graph --root "$WS" -- --root
	assert_output --partial "'--root'"
	run -2 vx-graph build --rot "$WS"
	assert_line --index 0 "vx-graph: unknown option '--rot'"
	run -2 vx-graph build --root
	assert_line --index 0 "vx-graph: option '--root' needs a value"
}

@test "options: a task name spelled like an option stays a name to vx-graph; after vx run's -- it is the task's argument" {
	new_ws
	pkg packages/a @x/a '' '{ "tasks": { "build": { "exec": { "command": "echo got" } } } }'
	mkdir -p "$BATS_TEST_TMPDIR/other"
	cd "$WS" || return 1
	# turbo's "-- ARG": handed to the task's command, not a new root
	run -0 vx run build -- "--root=$BATS_TEST_TMPDIR/other"
	assert_line "@x/a#build: got --root=$BATS_TEST_TMPDIR/other"
	run -2 vx-graph build -- "--root=$BATS_TEST_TMPDIR/other"
	assert_output --partial "vx-graph: no task '--root=$BATS_TEST_TMPDIR/other' in any project"
}

@test "options: vx-cache takes --dir after the command and its operands" {
	local P=$BATS_TEST_TMPDIR/p K=0123456789abcdef0123456789abcdef
	mkdir -p "$P/dist"
	echo built > "$P/dist/a.js"
	run -0 vx-cache save "$K" "$P" --outputs 'dist/**' --dir "$BATS_TEST_TMPDIR/c"
	assert_file_exists "$BATS_TEST_TMPDIR/c/ac/$K.json"
	run -0 vx-cache get "$K" --dir "$BATS_TEST_TMPDIR/c"
	assert_output --partial '"path":"dist/a.js"'
	rm "$P/dist/a.js"
	run -0 vx-cache restore --dir "$BATS_TEST_TMPDIR/c" "$K" "$P"
	assert_equal "$(cat "$P/dist/a.js")" built
	# save's options belong to save
	run -2 vx-cache get "$K" --ms 3 --dir "$BATS_TEST_TMPDIR/c"
	assert_line --index 0 "vx-cache: get: --outputs, --log, --ms and --exit are save's options"
}

@test "options: vx-watch and vx-key take --help anywhere and refuse stray operands" {
	run -0 vx-watch "$BATS_TEST_TMPDIR" --help
	assert_line --index 0 'usage: vx-watch ROOT'
	run -2 vx-watch "$BATS_TEST_TMPDIR" extra
	assert_line --index 0 'vx-watch: give one ROOT'
	run -2 vx-key stray --live
	assert_line --index 0 'vx-key: no operands: the records come on stdin'
}
