#!/usr/bin/env bash
# bench/adopt.sh [DIR]: issue 35's adoption measure. How many runs from
# `vx init` to a passing sandboxed `vx run build test`, with no hand edit, on
# tests/fixtures/tsdown/ws (six packages, tsdown + vitest, pnpm, installed
# from the npm registry or its cache by tests/realtools-install.sh tsdown).
#
#   1. lay the fixture out in DIR/ws (a git repository, committed), `vx init`
#      (turbo.json carried over), commit;
#   2. the reference: `vx run build test` unsandboxed (its own cache); each
#      package's dist/ kept in DIR/ref; then the outputs and every tool cache
#      the run left in a node_modules are removed, as in a fresh clone;
#   3. cycles: `vx init --sandbox`, `git apply` of the diff it prints, then
#      `vx run build test` (fresh outputs, fresh cache); a cycle passes when
#      that run exits 0, prints no SANDBOX VIOLATIONS and every dist/ is
#      byte-identical (contents, mode bits) to the reference. Cycles stop at
#      a pass, at a proposal that is empty or does not apply (stuck), or
#      once the runs reach VX_ADOPT_MAX (default 30).
#
# A run is one execution of a task's command under the learner: vx-sandbox is
# wrapped in a copy of the programs, so each run is counted whatever the
# learner prints. A cycle's runs are its most-run task's; the figure is their
# sum over the cycles (the target: 2, learn and verify, in one cycle). The
# last line is the result, as words a test can read:
#   adopt: runs=R cycles=C passed=yes|no identical=yes|no violations=N sources_changed=N
# sources_changed counts tracked files other than vx.json that the cycles
# modified (a learner that ran a source-rewriting task such as `format`).
# DIR keeps every log: per cycle N the learner's diff (cycleN.diff), its
# stderr, its runs per task (cycleN.runs: count, project, command, most-run
# first), the vx run log and its violation lines.
#   VX_BENCH_BIN  the programs to measure (default: the repository's bin/)
#   VX_ADOPT_MAX  the cap on runs (default 30)
# Exit status: 0 passed, 1 measured and not passed, 2 usage or setup error
# (the fixture does not build unsandboxed: the fixture is broken, not vx).
# Not part of make check (tests/vx-adopt.bats asserts its result): a cycle
# builds and tests six packages several times (minutes on two cores).
set -euo pipefail

die() {
	echo "bench/adopt.sh: $*" >&2
	exit 2
}

[ $# -le 1 ] || die "usage: bench/adopt.sh [DIR]"
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "${VX_BENCH_BIN:-$here/bin}" && pwd)
MAX=${VX_ADOPT_MAX:-30}
case $MAX in '' | *[!0-9]*) die "VX_ADOPT_MAX must be a number of runs" ;; esac
if [ ! -x "$BIN/vx" ] || [ ! -x "$BIN/vx-sandbox" ]; then
	die "no vx programs in $BIN; run make"
fi
if [ $# -eq 1 ]; then
	mkdir -p "$1"
	DIR=$(cd "$1" && pwd)
else
	DIR=$(mktemp -d /tmp/vx-adopt.XXXXXX)
fi
WS=$DIR/ws
[ ! -e "$WS" ] || die "$WS exists; remove it or name another DIR"
export NO_COLOR=1 VX_WATCH=0
export GIT_AUTHOR_NAME=adopt GIT_AUTHOR_EMAIL=adopt@localhost
export GIT_COMMITTER_NAME=adopt GIT_COMMITTER_EMAIL=adopt@localhost

# the programs, with vx-sandbox wrapped to log each run: the log's path is
# written into the wrapper, since a task's environment does not reach it
# (R-8a); copies, not links, as vx finds its stages beside /proc/self/exe
PROGS=$DIR/bin
RUNLOG=$DIR/sandbox-runs.log
rm -rf "$PROGS"
mkdir -p "$PROGS"
for p in "$BIN"/vx "$BIN"/vx-* "$BIN"/*.so; do
	[ -f "$p" ] && [ "${p##*/}" != vx-sandbox ] && cp "$p" "$PROGS/"
done
NODE=$(command -v node) || die "node is not on PATH"
cat > "$PROGS/vx-sandbox" << EOF
#!/bin/sh
# bench/adopt.sh's wrapper: one line per run (project, command), then the
# real one. The learner names them (--project, sh -c); a --request file's
# task record (its second line) has them as dir and command.
proj=\$PWD cmd= req=
prev=
for a in "\$@"; do
	[ "\$prev" = --project ] && proj=\$a
	[ "\$prev" = --request ] && req=\$a
	[ "\$prev" = -c ] && [ -z "\$cmd" ] && cmd=\$a
	prev=\$a
done
if [ -n "\$req" ] && [ "\$req" != - ] && [ -r "\$req" ]; then
	'$NODE' -e 'const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\\n")[1]);
		process.stdout.write(t.dir + "\\t" + t.command + "\\n")' "\$req" >> '$RUNLOG' 2> /dev/null ||
		printf '%s\t?\n' "\$proj" >> '$RUNLOG'
else
	printf '%s\t%s\n' "\$proj" "\$cmd" >> '$RUNLOG'
fi
exec '$BIN/vx-sandbox' "\$@"
EOF
chmod 755 "$PROGS/vx-sandbox"
chmod -R a+rX "$PROGS"
export PATH=$PROGS:$PATH

say() { echo "adopt: $*"; }

# 1. the fixture, committed, then vx init
bash "$here/tests/realtools-install.sh" tsdown "$WS" || die "the tsdown fixture could not be laid out"
cd "$WS"
# what the install put in each node_modules: anything else is a tool's cache
installed=$DIR/installed.list
find node_modules packages/*/node_modules -mindepth 1 -maxdepth 1 2> /dev/null | LC_ALL=C sort > "$installed"
git init -q
git add -A
git commit -qm "the fixture"
vx init > "$DIR/init.log" 2>&1 || {
	cat "$DIR/init.log" >&2
	die "vx init failed"
}
git add -A
git commit -qm "vx init"
PKGS=$(cd packages && echo *)

# clean: no outputs, no tool caches, no vx state: the tree of a fresh clone
clean() {
	local p
	for p in $PKGS; do rm -rf "packages/$p/dist"; done
	rm -rf .vx
	find node_modules packages/*/node_modules -mindepth 1 -maxdepth 1 2> /dev/null | LC_ALL=C sort |
		comm -23 - "$installed" | while read -r p; do rm -rf "$p"; done
}

# 2. the reference, unsandboxed
if ! VX_CACHE_DIR=$DIR/refcache vx run build test > "$DIR/reference.log" 2>&1; then
	tail -n 30 "$DIR/reference.log" >&2
	die "the unsandboxed build and test failed: the fixture is broken, not the sandbox ($DIR/reference.log)"
fi
for p in $PKGS; do
	mkdir -p "$DIR/ref/$p"
	cp -a "packages/$p/dist/." "$DIR/ref/$p/"
done
say "reference: unsandboxed vx run build test passed; outputs $(cd "$DIR/ref" && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)"
say "tool caches the unsandboxed run wrote: $(find node_modules packages/*/node_modules -mindepth 1 -maxdepth 1 2> /dev/null | LC_ALL=C sort | comm -23 - "$installed" | sed 's|^packages/[^/]*/|packages/*/|' | LC_ALL=C sort -u | tr '\n' ' ')"
clean

# identical: every dist/ equals the reference, contents and mode bits
identical() {
	local p
	for p in $PKGS; do
		diff -r "$DIR/ref/$p" "packages/$p/dist" > /dev/null 2>&1 || return 1
		[ "$(cd "$DIR/ref/$p" && find . -printf '%p %m\n' | LC_ALL=C sort)" = \
			"$(cd "packages/$p/dist" && find . -printf '%p %m\n' | LC_ALL=C sort)" ] || return 1
	done
}

# violations LOG: the SANDBOX VIOLATIONS blocks of a vx run log
violations() {
	awk '/^SANDBOX VIOLATIONS/ { on = 1 } on && /^((miss|hit|fail) |vx: |@)/ { on = 0 } on' "$1"
}

# 3. the cycles
runs=0 cycle=0 passed=no same=no nviol=0 why=
while :; do
	cycle=$((cycle + 1))
	: > "$RUNLOG"
	set +e
	vx init --sandbox > "$DIR/cycle$cycle.diff" 2> "$DIR/cycle$cycle.learn.log"
	lrc=$?
	set -e
	# runs per task: "count<TAB>project<TAB>command", most-run first
	LC_ALL=C sort "$RUNLOG" | uniq -c | awk -v ws="$WS/" '{
		n = $1; sub(/^ *[0-9]+ /, "")
		if (index($0, ws) == 1) $0 = substr($0, length(ws) + 1)
		print n "\t" $0 }' | sort -t "$(printf '\t')" -k1,1nr -k2 > "$DIR/cycle$cycle.runs"
	most=$(head -n 1 "$DIR/cycle$cycle.runs")
	n=${most%%$'\t'*}
	n=${n:-0}
	total=$(wc -l < "$RUNLOG")
	runs=$((runs + n))
	lines=$(wc -l < "$DIR/cycle$cycle.diff")
	desc=${most#*$'\t'}
	desc=${desc/$'\t'/: }
	say "cycle $cycle: vx init --sandbox exit $lrc, $total task runs, most-run task $n runs (${desc:-none}), proposal $lines lines"
	grep -E '^vx-init: .*(failed|not granted|review)' "$DIR/cycle$cycle.learn.log" | sed 's/^/adopt:   /' || true
	if [ "$lines" -eq 0 ]; then
		why="stuck: the learner proposes nothing more"
		break
	fi
	if ! git apply "$DIR/cycle$cycle.diff" 2> "$DIR/cycle$cycle.apply.log"; then
		why="stuck: the proposal does not apply ($DIR/cycle$cycle.apply.log)"
		break
	fi
	clean
	set +e
	VX_CACHE_DIR=$DIR/cache$cycle vx run build test > "$DIR/cycle$cycle.run.log" 2>&1
	rrc=$?
	set -e
	violations "$DIR/cycle$cycle.run.log" > "$DIR/cycle$cycle.violations"
	nviol=$(wc -l < "$DIR/cycle$cycle.violations")
	same=no
	identical && same=yes
	say "cycle $cycle: vx run build test exit $rrc, $(tail -n 1 "$DIR/cycle$cycle.run.log"); violation lines $nviol; outputs identical: $same"
	head -n 40 "$DIR/cycle$cycle.violations" | sed 's/^/adopt:   /'
	if [ "$rrc" -eq 0 ] && [ "$nviol" -eq 0 ] && [ "$same" = yes ]; then
		passed=yes
		break
	fi
	if [ "$runs" -ge "$MAX" ]; then
		why="gave up: $runs runs, the cap (VX_ADOPT_MAX) is $MAX"
		break
	fi
done
changed=$(git status --porcelain --untracked-files=no | grep -cv '/vx\.json$' || true)
if [ "$changed" -gt 0 ]; then
	say "sources the cycles modified (no hand edit was made):"
	git status --porcelain --untracked-files=no | grep -v '/vx\.json$' | sed 's/^/adopt:   /'
fi
[ -z "$why" ] || say "$why"
say "logs in $DIR"
say "runs=$runs cycles=$cycle passed=$passed identical=$same violations=$nviol sources_changed=$changed"
[ "$passed" = yes ]
