#!/usr/bin/env bats
# Issue 35's acceptance, measured by bench/adopt.sh on a real monorepo:
# tests/fixtures/tsdown/ws, six pnpm packages built with tsdown (rolldown) and
# tested with vitest, installed from the npm registry (or the cache
# tests/realtools-install.sh keeps; no network after the install). From
# `vx init` to a passing sandboxed `vx run build test`: one `vx init
# --sandbox` whose diff, applied as it is (no hand edit), passes; each task
# run exactly twice under the learner (learn, verify); every dist/
# byte-identical to the unsandboxed build; no SANDBOX VIOLATIONS line; no
# source rewritten on the way (the uncached `format` task is not run).
#
# tests/vx-adopt-rootless.bats runs it again as an unprivileged user.

load helpers

setup_file() {
	local out=$BATS_FILE_TMPDIR/adopt
	# the cap: a learner that needs more than one cycle has failed already
	VX_ADOPT_MAX=4 VX_BENCH_BIN=$VX_BIN_DIR bash "$BATS_TEST_DIRNAME/../bench/adopt.sh" "$out" \
		> "$BATS_FILE_TMPDIR/adopt.out" 2>&1 || true
}

setup() {
	OUT=$BATS_FILE_TMPDIR/adopt
	# bench/adopt.sh's result line, and its report shown on failure
	run cat "$BATS_FILE_TMPDIR/adopt.out"
	if ! assert_line --regexp '^adopt: runs=[0-9]+ cycles=' > /dev/null 2>&1; then
		fail "bench/adopt.sh measured nothing: $(tail -n 30 "$BATS_FILE_TMPDIR/adopt.out")"
	fi
	RESULT=$(grep '^adopt: runs=' "$BATS_FILE_TMPDIR/adopt.out")
}

# field NAME: a word of the result line
field() {
	sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< " ${RESULT#adopt: }"
}

# show: bench/adopt.sh's report (the first test shows it on failure)
show() {
	echo "--- bench/adopt.sh:" >&2
	cat "$BATS_FILE_TMPDIR/adopt.out" >&2
}

@test "issue 35: vx init --sandbox's diff, applied as it is, passes sandboxed vx run build test in one cycle" {
	[ "$(field cycles)" = 1 ] && [ "$(field passed)" = yes ] || {
		show
		fail "not one cycle to a pass: $RESULT"
	}
	run cat "$OUT/cycle1.run.log"
	assert_line --regexp '^vx: 12 tasks: 0 hit, 12 miss, 0 failed'
	assert_line --regexp '^@td/cli#test: +Tests +6 passed \(6\)'
}

@test "issue 35: the passing sandboxed outputs are byte-identical to the unsandboxed build, no violation line" {
	# only a run that passed is compared: dist/ of a failed one proves nothing
	[ "$(field passed)" = yes ] || fail "no sandboxed run passed: $RESULT"
	[ "$(field identical)" = yes ] || fail "the sandboxed dist/ differ from the unsandboxed ones: $RESULT"
	[ "$(field violations)" = 0 ] || fail "violation lines: $RESULT"
	run grep -h 'SANDBOX VIOLATIONS' "$OUT"/cycle*.run.log
	assert_output ""
}

@test "issue 35: 2 runs from vx init to the pass: each build and test task ran exactly twice under the learner" {
	[ "$(field runs)" = 2 ] || fail "not 2 runs: $RESULT"
	# the one cycle's counts (runs, project, command): every task ran
	# twice, and the build and test of all six packages are among them
	run awk -F '\t' '$1 != 2' "$OUT/cycle1.runs"
	assert_output ""
	run grep -cE $'\t(tsdown|vitest run)$' "$OUT/cycle1.runs"
	assert_output 12
}

@test "issue 35: no hand edit, no source rewritten: the cycle changed only vx.json files (format is not run)" {
	[ "$(field sources_changed)" = 0 ] || fail "sources modified: $RESULT; $(grep '^adopt:    M' "$BATS_FILE_TMPDIR/adopt.out")"
	# what differs from the commit vx init made: vx.json files only
	run git -C "$OUT/ws" diff --name-only HEAD
	assert_success
	assert_line packages/cli/vx.json
	local f
	# shellcheck disable=SC2154  # lines: set by bats' run
	for f in "${lines[@]}"; do
		[[ $f == vx.json || $f == */vx.json ]] || fail "the cycle changed $f, not a vx.json"
	done
}
