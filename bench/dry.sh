#!/usr/bin/env bash
# bench/dry.sh [N]: `vx run --dry build` against `turbo run build --dry=json`
# (issue 22 item 6), on a freshly generated tree and on a built one.
#
# Generates (or reuses) bench/gen-workspace.sh's N-package tree (default
# 1000) under ${VX_BENCH_DIR:-/tmp/vx-bench-dry}, installs turbo into it with
# npm and commits, then one hyperfine run per state, both tools interleaved:
#   fresh: every run starts with neither .vx nor .turbo (--prepare removes
#          them; a vx-watch started by the run before exits with its .vx)
#   built: after `vx run build` twice (the second all hits, with vx-watch
#          running, so the run is remembered); turbo's own cache is left
#          empty unless VX_BENCH_TURBO_BUILD=1 builds it too (npm run per
#          task: ~10 minutes on 2 idle cores), so by default turbo's figure
#          is its dry run without cache hits, which reads less than with them
# and prints each median, the ratio turbo/vx and the load.
#
# Environment: VX_BENCH_DIR, VX_BENCH_RUNS (hyperfine --min-runs, default 10),
# VX_BENCH_TURBO_BUILD=1.
set -euo pipefail

N=${1:-1000}
case $N in '' | *[!0-9]*) echo "usage: $0 [N]" >&2; exit 2 ;; esac

HERE=$(cd "$(dirname "$0")" && pwd)
VX="$(cd "$HERE/.." && pwd)/bin/vx"
BENCH_DIR=${VX_BENCH_DIR:-/tmp/vx-bench-dry}
WS="$BENCH_DIR/ws-$N"
RUNS=${VX_BENCH_RUNS:-10}
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 TURBO_NO_UPDATE_NOTIFIER=1

log() { printf 'dry.sh: %s\n' "$*" >&2; }

command -v hyperfine >/dev/null 2>&1 || { log "needs hyperfine (apt-get install hyperfine)"; exit 1; }
[ -x "$VX" ] || { log "build vx first: make"; exit 1; }

# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"
bench_workspace "$WS" "$N"
TURBO=$(bench_turbo "$WS")

JSON=$(mktemp --suffix=.json)
trap 'rm -f "$JSON"' EXIT
median_ms() {
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]; print("%.1f" % (r["median"]*1000))' "$JSON" "$1"
}
# mean CPU time (user + system, ms): on a loaded machine the wall clock
# mostly measures the wait for a core
cpu_ms() {
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]; print("%.1f" % ((r["user"]+r["system"])*1000))' "$JSON" "$1"
}
ratio() { python3 -c 'import sys; print("%.1f" % (float(sys.argv[2]) / float(sys.argv[1])))' "$1" "$2"; }
side_by_side() { # side_by_side STATE [hyperfine options...]
	local state=$1
	shift
	(cd "$WS" && hyperfine -N --warmup 2 --min-runs "$RUNS" --output=null --export-json "$JSON" "$@" \
		-n "vx run --dry build ($state)" "$VX run --dry build" \
		-n "turbo run build --dry=json ($state)" "$TURBO run build --dry=json") >&2
	local v t vc tc
	v=$(median_ms 0)
	t=$(median_ms 1)
	vc=$(cpu_ms 0)
	tc=$(cpu_ms 1)
	printf '| %s | %s ms | %s ms | **%sx** | %s ms | %s ms | %sx | %s |\n' "$state" "$v" "$t" \
		"$(ratio "$v" "$t")" "$vc" "$tc" "$(ratio "$vc" "$tc")" "$(cut -d' ' -f1-3 /proc/loadavg)"
}

printf 'machine: nproc=%s kernel=%s; %s; N=%s; %s\n\n' "$(nproc)" "$(uname -r)" \
	"turbo $("$TURBO" --version 2>/dev/null | tail -n 1)" "$N" "$(date -u '+%F %H:%M UTC')"
printf '| tree | vx median | turbo median | turbo/vx | vx CPU | turbo CPU | CPU turbo/vx | load (1, 5, 15 min) |\n'
printf '|---|---|---|---|---|---|---|---|\n'

rm -rf "$WS/.vx" "$WS/.turbo" "$WS"/packages/*/dist
side_by_side fresh --prepare "rm -rf $WS/.vx $WS/.turbo"

log "building with vx (twice: the second run all hits, remembered)"
(cd "$WS" && "$VX" run build >/dev/null && "$VX" run build >/dev/null)
if [ "${VX_BENCH_TURBO_BUILD:-0}" = 1 ]; then
	log "building with turbo"
	(cd "$WS" && "$TURBO" run build >/dev/null)
fi
side_by_side built
(cd "$WS" && "$VX" run --dry build | awk '{ n[$1]++ } END { for (s in n) printf "vx --dry on the built tree: %d %s\n", n[s], s }')
