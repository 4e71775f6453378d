#!/usr/bin/env bash
# bench/run.sh [N]: vx run against turbo on the same generated workspace
# (issue 3). Each tool gets its own copy of the tree (so neither restores
# over the other's files) and the figures are taken in one session:
#   (a) the first full build, all misses (one run each: turbo's takes minutes)
#   (b) an all-hit rerun with outputs present
#   (c) an all-hit rerun after deleting every output
#   (d) graph + keys alone: `vx-graph | vx-key` vs `turbo run build --dry=json`,
#       warm and with the page cache dropped (root only); vx from inside the
#       workspace as a user runs it (turbo gets --cwd)
#   (e) a rerun after one edit to a leaf package (one file of the last one,
#       which nothing depends on), and what vx re-keyed and re-ran for it
# beside the raw floor (git ls-files -s; cat and xxhsum of every input), and
# each tool's peak RSS for (b). Prints a Markdown table of medians and ratios.
#
# Environment: VX_BENCH_DIR (default /tmp/vx-bench), VX_BENCH_RUNS (default 10),
# VX_BENCH_SKIP_A=1 to reuse the built trees and skip (a).
set -euo pipefail

N=${1:-1000}
case $N in '' | *[!0-9]*) echo "usage: $0 [N]" >&2; exit 2 ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(cd "$HERE/../bin" && pwd)
BENCH_DIR=${VX_BENCH_DIR:-/tmp/vx-bench}
RUNS=${VX_BENCH_RUNS:-10}
BASE="$BENCH_DIR/ws-$N"
VXWS="$BENCH_DIR/run-vx-$N"
TWS="$BENCH_DIR/run-turbo-$N"
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 TURBO_NO_UPDATE_NOTIFIER=1

log() { printf 'run.sh: %s\n' "$*" >&2; }
for tool in hyperfine xxhsum; do
	command -v "$tool" >/dev/null || { log "installing $tool"; apt-get install -y -qq "${tool/xxhsum/xxhash}" >/dev/null; }
done

# the base tree with turbo installed comes from graph.sh's recipe
if [ ! -x "$BASE/node_modules/@turbo/linux-64/bin/turbo" ]; then
	VX_BENCH_RUNS=1 "$HERE/graph.sh" "$N" >/dev/null
fi
TURBO=$(find "$BASE/node_modules" -path '*/@turbo/*/bin/turbo' -type f | head -n 1)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(" ".join("%.1f" % (x["median"]*1000) for x in r))' "$1"; }
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }

if [ "${VX_BENCH_SKIP_A:-0}" != 1 ]; then
	rm -rf "$VXWS" "$TWS"
	cp -a "$BASE" "$VXWS"
	cp -a "$BASE" "$TWS"
	log "(a) vx: first full build"
	start=$(date +%s.%N)
	(cd "$VXWS" && VX_CACHE_DIR="$VXWS/.vx/cache" "$BIN/vx" run build >/dev/null)
	a_vx=$(echo "$(date +%s.%N) - $start" | bc)
	log "(a) turbo: first full build (npm run per task: minutes)"
	start=$(date +%s.%N)
	(cd "$TWS" && "$TURBO" run build >/dev/null)
	a_turbo=$(echo "$(date +%s.%N) - $start" | bc)
else
	a_vx=- a_turbo=-
fi

log "(b) all hits, outputs present"
# vx as a user runs it (vx-watch on: from the third run an unchanged tree is
# replayed, bin/replay.h), and with VX_WATCH=0 (every input and output
# stat'ed); the warmup runs start vx-watch and let a run be remembered
hyperfine -N --warmup 3 --min-runs "$RUNS" --export-json "$tmp/b.json" \
	-n vx "$BIN/vx run build --root $VXWS" \
	-n vx-nowatch "env VX_WATCH=0 $BIN/vx run build --root $VXWS" \
	-n turbo "$TURBO run build --cwd $TWS" >&2
read -r b_vx b_vx_nowatch b_turbo < <(median "$tmp/b.json")

log "(c) all hits, outputs deleted"
hyperfine --warmup 1 --min-runs "$RUNS" --export-json "$tmp/c.json" \
	-n vx --prepare "rm -rf $VXWS/packages/*/dist" "$BIN/vx run build --root $VXWS" \
	-n turbo --prepare "rm -rf $TWS/packages/*/dist" "$TURBO run build --cwd $TWS" >&2
read -r c_vx c_turbo < <(median "$tmp/c.json")

log "(d) graph + keys, warm"
hyperfine --warmup 2 --min-runs "$RUNS" --export-json "$tmp/d.json" \
	-n vx "cd $VXWS && $BIN/vx-graph build | $BIN/vx-key > /dev/null" \
	-n turbo "$TURBO run build --dry=json --cwd $TWS > /dev/null" \
	-n floor-ls-files "git -C $VXWS ls-files -s > /dev/null" \
	-n floor-cat "cd $VXWS && git ls-files -z 'packages/*/src/*' | xargs -0 cat > /dev/null" \
	-n floor-xxhsum "cd $VXWS && git ls-files -z 'packages/*/src/*' | xargs -0 xxhsum -H128 > /dev/null" >&2
read -r d_vx d_turbo d_ls d_cat d_xxh < <(median "$tmp/d.json")

d_cold_vx=- d_cold_turbo=-
if [ "$(id -u)" -eq 0 ] && [ -w /proc/sys/vm/drop_caches ]; then
	log "(d) graph + keys, page cache dropped"
	hyperfine --min-runs "$RUNS" --export-json "$tmp/dc.json" \
		--prepare 'sync; echo 3 > /proc/sys/vm/drop_caches' \
		-n vx "cd $VXWS && $BIN/vx-graph build | $BIN/vx-key > /dev/null" \
		-n turbo "$TURBO run build --dry=json --cwd $TWS > /dev/null" >&2
	read -r d_cold_vx d_cold_turbo < <(median "$tmp/dc.json")
fi

rss_vx=$(rss "$BIN/vx" run build --root "$VXWS")
rss_vx_nowatch=$(rss env VX_WATCH=0 "$BIN/vx" run build --root "$VXWS")
rss_turbo=$(rss "$TURBO" run build --cwd "$TWS")

# (e) after the RSS runs, which want the trees as (b) left them
log "(e) one edit to a leaf package (p$((N - 1)): nothing depends on it)"
LEAF=packages/p$((N - 1))/src/edit.js
hyperfine --warmup 1 --min-runs "$RUNS" --export-json "$tmp/e.json" \
	-n vx --prepare "date +%s%N > $VXWS/$LEAF" "$BIN/vx run build --root $VXWS" \
	-n turbo --prepare "date +%s%N > $TWS/$LEAF" "$TURBO run build --cwd $TWS" >&2
read -r e_vx e_turbo < <(median "$tmp/e.json")
# what one more such edit re-keyed (files hashed) and re-ran
date +%s%N > "$VXWS/$LEAF"
e_what=$(VX_KEY_STATS=1 "$BIN/vx" run build --root "$VXWS" 2>&1 |
	sed -n 's/^vx-key: \(hashed [0-9]* files\).*/\1/p; s/^miss \([^ ]*\) .*/ran \1/p' | paste -sd ';' -)

ratio() { python3 -c 'import sys; a,b=sys.argv[1],sys.argv[2]; print("-" if "-" in (a,b) else "%.1fx" % (float(b)/float(a)))' "$1" "$2"; }
cat <<EOF2
| what | vx | turbo | turbo/vx |
|---|---|---|---|
| (a) first full build, s | $a_vx | $a_turbo | $(ratio "$a_vx" "$a_turbo") |
| (b) all hits, outputs present, ms | $b_vx | $b_turbo | $(ratio "$b_vx" "$b_turbo") |
| (b) the same, VX_WATCH=0, ms | $b_vx_nowatch | $b_turbo | $(ratio "$b_vx_nowatch" "$b_turbo") |
| (c) all hits, outputs deleted, ms | $c_vx | $c_turbo | $(ratio "$c_vx" "$c_turbo") |
| (d) graph + keys, warm, ms | $d_vx | $d_turbo | $(ratio "$d_vx" "$d_turbo") |
| (d) graph + keys, cold, ms | $d_cold_vx | $d_cold_turbo | $(ratio "$d_cold_vx" "$d_cold_turbo") |
| peak RSS in (b), KiB | $rss_vx | $rss_turbo | $(ratio "$rss_vx" "$rss_turbo") |
| peak RSS in (b), VX_WATCH=0, KiB | $rss_vx_nowatch | $rss_turbo | $(ratio "$rss_vx_nowatch" "$rss_turbo") |
| (e) one edit to a leaf package, ms | $e_vx | $e_turbo | $(ratio "$e_vx" "$e_turbo") |

(e) re-keyed and re-ran: $e_what.

Raw floor (warm, ms): git ls-files -s $d_ls; cat of every input $d_cat; xxhsum -H128 of every input $d_xxh.
EOF2
