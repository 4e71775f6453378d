#!/usr/bin/env bash
# bench/stoplat.sh DIR [ROUNDS] [BINDIR...]: what the tracer's stops cost
# the sandboxed real-tools build in wall time (issue 18 item 7). DIR is the
# layout bench/realtools.sh leaves with VX_BENCH_DIR=DIR; ROUNDS rounds
# (default 8) of `vx run build --force` in DIR/sbx with each BINDIR's vx
# (default: this checkout's bin), interleaved, each under its own `perf
# record` of the scheduler's switch and wakeup events. A stop is a tracee
# thread switched out in the traced state ('t') until it runs again; it is
# split in two at its wakeup:
#   answer  stop -> pid 1 has woken it (pid 1's wakeup, its work, PTRACE_CONT)
#   resume  wakeup -> it runs (waiting for a CPU)
# Prints per BINDIR: stops a build, the median / 90th / 99th percentile of a
# stop, the ms a build that threads spend stopped (all, and by command), and
# how much of it is answer and resume, over all stops and over the stops
# longer than 300 us (the tail). Medians over a few builds; the machine's
# noise applies.
# Needs perf (apt-get install linux-perf), root or kernel.perf_event_paranoid
# <= -1, and tracefs; not part of make check.
set -euo pipefail

dir=${1:?usage: bench/stoplat.sh DIR [ROUNDS] [BINDIR...]}
rounds=${2:-8}
case $rounds in '' | *[!0-9]*) echo "usage: bench/stoplat.sh DIR [ROUNDS] [BINDIR...]" >&2; exit 2 ;; esac
shift $(($# < 2 ? $# : 2))
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$here/bin"
command -v perf > /dev/null || { echo "bench/stoplat.sh: needs perf (apt-get install linux-perf)" >&2; exit 2; }
[ -d "$dir/sbx/packages/lib" ] || { echo "bench/stoplat.sh: no $dir/sbx: lay it out with VX_BENCH_DIR=$dir bash bench/realtools.sh 1" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq "$rounds"); do
	n=0
	for b in "$@"; do
		n=$((n + 1))
		# shellcheck disable=SC2016 # $1 and $2 are the inner sh's arguments
		perf record -q -o "$tmp/$n.$i.data" -a -e sched:sched_switch -e sched:sched_wakeup \
			-- sh -c 'cd "$1" && VX_WATCH=0 "$2/vx" run build --force' sh "$dir/sbx" "$b" > /dev/null 2>&1 ||
			echo "bench/stoplat.sh: a build with $b failed" >&2
	done
done
n=0
for b in "$@"; do
	n=$((n + 1))
	for i in $(seq "$rounds"); do
		perf script -F time,event,trace -i "$tmp/$n.$i.data" 2> /dev/null
		echo BUILD
	done | python3 -c '
import collections, re, statistics, sys

sw = re.compile(r"\s*(\d+\.\d+):\s+sched:sched_switch: prev_comm=(.*?) prev_pid=(\d+) "
                r"prev_prio=\d+ prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)")
wk = re.compile(r"\s*(\d+\.\d+):\s+sched:sched_wakeup: comm=(.*?) pid=(\d+) ")
builds = 0
stops = []  # (comm, total, answer, resume) in us
off, woke = {}, {}
for line in sys.stdin:
    if line.startswith("BUILD"):
        builds += 1
        off, woke = {}, {}
        continue
    m = wk.match(line)
    if m:
        woke[int(m.group(3))] = float(m.group(1)) * 1e6
        continue
    m = sw.match(line)
    if not m:
        continue
    t = float(m.group(1)) * 1e6
    off[int(m.group(3))] = (t, m.group(4))
    nxt = int(m.group(6))
    if nxt in off:
        t0, state = off.pop(nxt)
        if state.startswith("t"):
            w = woke.get(nxt, t)
            w = w if t0 <= w <= t else t
            stops.append((m.group(5), t - t0, w - t0, t - w))
if not builds or not stops:
    sys.exit("bench/stoplat.sh: no stops recorded")
tot = sorted(s[1] for s in stops)
pct = lambda q: tot[min(len(tot) - 1, int(q * len(tot)))]
ms = lambda v: v / 1e3 / builds
print("%s: %d builds, %.0f stops a build; a stop: median %.0f us, p90 %.0f, p99 %.0f" % (
    sys.argv[1], builds, len(stops) / builds, pct(0.5), pct(0.9), pct(0.99)))
by = collections.Counter()
for s in stops:
    by[s[0]] += s[1]
print("  stopped a build: %.1f ms (%s)" % (ms(sum(tot)), ", ".join(
    "%s %.1f" % (c, ms(v)) for c, v in by.most_common(4))))
for name, sel in (("all stops", stops), ("stops > 300 us", [s for s in stops if s[1] > 300])):
    print("  %-15s %4.0f a build, %5.1f ms: answer %5.1f ms, resume %5.1f ms" % (
        name, len(sel) / builds, ms(sum(s[1] for s in sel)), ms(sum(s[2] for s in sel)),
        ms(sum(s[3] for s in sel))))
' "$b"
done
