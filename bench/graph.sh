#!/usr/bin/env bash
# bench/graph.sh [N]: vx-graph against `turbo run build --dry=json` (issue 2).
#
# Generates (or reuses) a synthetic N-package workspace (default 1000) with
# bench/gen-workspace.sh under ${VX_BENCH_DIR:-/tmp/vx-bench}, installs turbo
# into it with npm, then times both in ONE hyperfine run (interleaved, same
# machine, no shell, warmup) and reports each median, the ratio turbo/vx-graph
# and each program's peak RSS (/usr/bin/time -v).
#
# Environment:
#   VX_BENCH_DIR   scratch directory (default /tmp/vx-bench)
#   VX_BENCH_RUNS  hyperfine --min-runs (default 20)
#   VX_BENCH_WAIT  seconds to wait for bin/vx-graph to appear and succeed
#                  (polled every 60 s; default 0 = do not wait). While
#                  waiting, or if it never works, turbo is measured alone.
#
# Needs root (or sudo) only to apt-get install hyperfine / time when missing.
set -euo pipefail

N=${1:-1000}
case $N in '' | *[!0-9]*) echo "usage: $0 [N]" >&2; exit 2 ;; esac

HERE=$(cd "$(dirname "$0")" && pwd)
VX="$(cd "$HERE/.." && pwd)/bin/vx-graph"
BENCH_DIR=${VX_BENCH_DIR:-/tmp/vx-bench}
WS="$BENCH_DIR/ws-$N"
RUNS=${VX_BENCH_RUNS:-20}
WAIT=${VX_BENCH_WAIT:-0}

export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 TURBO_NO_UPDATE_NOTIFIER=1

log() { printf 'graph.sh: %s\n' "$*" >&2; }

apt_install() { # apt_install PKG: install a Debian package, apt-get update on failure
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
	export DEBIAN_FRONTEND=noninteractive
	log "installing $1"
	if ! "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$1" >/dev/null; then
		"${sudo[@]}" apt-get update -qq
		"${sudo[@]}" apt-get install -y -qq --no-install-recommends "$1" >/dev/null
	fi
}

command -v hyperfine >/dev/null 2>&1 || apt_install hyperfine
[ -x /usr/bin/time ] || apt_install time
command -v python3 >/dev/null 2>&1 || apt_install python3

# --- workspace: generate once per N (into a temp name, so a failed run is not reused)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"
bench_workspace "$WS" "$N"
TURBO=$(bench_turbo "$WS")
TURBO_VERSION=$("$TURBO" --version 2>/dev/null | tail -n 1)

# median (ms) of command number $2 in hyperfine's JSON export $1
median_ms() {
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]; print("%.1f" % (r["median"]*1000))' "$1" "$2"
}
# peak RSS (MiB) of one run of the given command, in the workspace
peak_rss_mib() {
	local f
	f=$(mktemp)
	(cd "$WS" && /usr/bin/time -v "$@" >/dev/null 2>"$f") || { cat "$f" >&2; rm -f "$f"; return 1; }
	awk -F': ' '/Maximum resident set size/ { printf "%.1f\n", $2 / 1024 }' "$f"
	rm -f "$f"
}

vx_ok() { [ -x "$VX" ] && (cd "$WS" && "$VX" --root "$WS" >/dev/null 2>&1); }

JSON=$(mktemp --suffix=.json)
trap 'rm -f "$JSON"' EXIT
HF=(hyperfine -N --warmup 3 --min-runs "$RUNS" --output=null --export-json "$JSON")

printf 'machine: nproc=%s kernel=%s; turbo %s; N=%s; workspace %s\n' \
	"$(nproc)" "$(uname -r)" "$TURBO_VERSION" "$N" "$WS"

if ! vx_ok; then
	log "$VX missing or failing; measuring turbo alone"
	(cd "$WS" && "${HF[@]}" -n turbo-dry-json "$TURBO run build --dry=json")
	printf 'turbo --dry=json median: %s ms, peak RSS %s MiB\n' \
		"$(median_ms "$JSON" 0)" "$(peak_rss_mib "$TURBO" run build --dry=json)"
	waited=0
	while ! vx_ok; do
		if [ "$waited" -ge "$WAIT" ]; then
			log "no working $VX (set VX_BENCH_WAIT=SECONDS to wait for it)"
			exit 1
		fi
		sleep 60
		waited=$((waited + 60))
	done
	log "vx-graph works after ${waited}s of waiting"
fi

# --- side by side: one hyperfine invocation, interleaved per warmup/run rounds
(cd "$WS" && "${HF[@]}" \
	-n vx-graph "$VX --root $WS" \
	-n turbo-dry-json "$TURBO run build --dry=json")

VX_MS=$(median_ms "$JSON" 0)
TURBO_MS=$(median_ms "$JSON" 1)
VX_RSS=$(peak_rss_mib "$VX" --root "$WS")
TURBO_RSS=$(peak_rss_mib "$TURBO" run build --dry=json)
RATIO=$(python3 -c 'import sys; print("%.1f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$TURBO_MS" "$VX_MS")

printf '\n| program | median | peak RSS |\n|---|---|---|\n'
printf '| vx-graph | %s ms | %s MiB |\n' "$VX_MS" "$VX_RSS"
printf '| turbo %s run build --dry=json | %s ms | %s MiB |\n' "$TURBO_VERSION" "$TURBO_MS" "$TURBO_RSS"
printf '\nratio turbo/vx-graph: %sx (target >= 20x)\n' "$RATIO"
