#!/usr/bin/env bash
# bench/critpath.sh DIR [ROUNDS]: where the sandbox's cost lies on the
# critical path of the real-tools build (issue 18 item 7): tsc in @rt/lib,
# then @rt/app's esbuild build after it (@rt/legacy's rollup runs beside tsc).
# DIR is the layout bench/realtools.sh leaves with VX_BENCH_DIR=DIR (DIR/plain
# unsandboxed, DIR/sbx sandboxed). ROUNDS rounds (default 10) of
# `vx run build --force` on each side, in the order plain sbx sbx plain, under
# one `perf record` of the scheduler's exec, fork and exit events; prints, per
# side, the median of each interval between those events:
#   start      vx's exec -> tsc's exec (graph, keys, vx-proxy, vx-sandbox's start)
#   tsc        tsc's exec -> its last thread's exit
#   exit       -> the task's sh has exited (tsc's heap torn down, the tracer's reap)
#   teardown   -> vx-sandbox has exited (sandboxed side only)
#   vx         -> vx forks the next task (the judge, the cache save, vx-proxy)
#   launch     -> the next task's sh execs; on the sandboxed side in three:
#     sb-exec  -> vx-sandbox execs
#     sb-pid1  -> its pid 1 is cloned (its load, the request, the plan)
#     sb-task  -> the task's sh execs (namespaces, mounts, bridge, filters)
#   sh         -> node execs (@rt/app's build.mjs; the sh traced, sandboxed)
#   app        -> its last thread's exit
#   end        -> vx has exited
#   fixed      start + tsc's last exit -> app's exec + end: all but the tools
# Medians of intervals do not add up to the median total.
# Needs perf (apt-get install linux-perf), root or kernel.perf_event_paranoid
# <= -1, and tracefs; not part of make check.
set -euo pipefail

dir=${1:?usage: bench/critpath.sh DIR [ROUNDS]}
rounds=${2:-10}
case $rounds in '' | *[!0-9]*) echo "usage: bench/critpath.sh DIR [ROUNDS]" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")/.." && pwd)
vx=$(cd "${VX_BENCH_BIN:-$here/bin}" && pwd)/vx
command -v perf > /dev/null || { echo "bench/critpath.sh: needs perf (apt-get install linux-perf)" >&2; exit 2; }
for side in plain sbx; do
	[ -d "$dir/$side/packages/lib" ] || { echo "bench/critpath.sh: no $dir/$side: lay it out with VX_BENCH_DIR=$dir bash bench/realtools.sh 1" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a side's runs are told apart by the exec of its marker just before them
ln -s /bin/true "$tmp/mark-plain"
ln -s /bin/true "$tmp/mark-sbx"
one() { echo "$tmp/mark-$1; (cd '$dir/$1' && VX_WATCH=0 '$vx' run build --force >/dev/null 2>&1);"; }
loop="for i in \$(seq $rounds); do $(one plain) $(one sbx) $(one sbx) $(one plain) done"
perf record -q -o "$tmp/perf.data" -a \
	-e sched:sched_process_exec -e sched:sched_process_exit -e sched:sched_process_fork \
	-- sh -c "$loop" > /dev/null 2>&1
perf script -F comm,pid,tid,time,event,trace -i "$tmp/perf.data" 2> /dev/null | python3 -c '
import re, statistics, sys

runs = {"plain": [], "sbx": []}
side = cur = None
parent = {}
for line in sys.stdin:
    m = re.search(r"^\s*(.+?)\s+(\d+)/\d+\s+(\d+\.\d+):\s+sched:(\w+): (.*)", line)
    if not m:
        continue
    comm, pid, t, ev, rest = m.group(1), int(m.group(2)), float(m.group(3)) * 1000, m.group(4), m.group(5)
    if ev == "sched_process_fork":
        child = int(re.search(r"child_pid=(\d+)", rest).group(1))
        parent[child] = pid
        if cur is None:
            continue
        T = cur["t"]
        if pid == cur["pid"] and "exit" in T and "vx" not in T:
            T["vx"] = t
        elif comm == "vx-sandbox" and "sb-exec" in T and "sb-pid1" not in T:
            T["sb-pid1"] = t
        continue
    if ev == "sched_process_exec":
        fn = re.search(r"filename=(\S+)", rest).group(1)
        mk = re.search(r"/mark-(\w+)$", fn)
        if mk:
            side = mk.group(1)
            continue
        if fn.endswith("/vx"):
            cur = {"t": {"vx0": t}, "pid": pid}
            runs[side].append(cur)
            continue
        if cur is None:
            continue
        T = cur["t"]
        if fn.endswith("/node_modules/.bin/tsc"):
            T["start"] = t
            cur["tsc"], cur["sh"] = pid, parent.get(pid)
        elif "tsc" in T and fn.endswith("/vx-sandbox") and "sb-exec" not in T:
            T["sb-exec"] = t
        elif "tsc" in T and fn == "/bin/sh" and "sh" not in T:
            T["sh"] = t
        elif "tsc" in T and fn.endswith("/node") and "app" not in T:
            T["app"] = t
            cur["app"] = pid
        continue
    if cur is None:
        continue
    T = cur["t"]
    dead = "group_dead=true" in rest
    if pid == cur.get("tsc") and dead and "tsc" not in T:
        T["tsc"] = t
    elif pid == cur.get("sh") and "tsc" in T and "exit" not in T:
        T["exit"] = t
    elif comm == "vx-sandbox" and parent.get(pid) == cur["pid"] and "exit" in T and "teardown" not in T:
        T["teardown"] = t
    elif pid == cur.get("app") and dead and "app-end" not in T:
        T["app-end"] = t
    elif pid == cur["pid"]:
        T["end"] = t

def span(T, a, b):
    return T[b] - T[a] if a in T and b in T else None

rows = [("start", lambda T: span(T, "vx0", "start")),
        ("tsc", lambda T: span(T, "start", "tsc")),
        ("exit", lambda T: span(T, "tsc", "exit")),
        ("teardown", lambda T: span(T, "exit", "teardown")),
        ("vx", lambda T: span(T, "teardown" if "teardown" in T else "exit", "vx")),
        ("launch", lambda T: span(T, "vx", "sh")),
        ("  sb-exec", lambda T: span(T, "vx", "sb-exec")),
        ("  sb-pid1", lambda T: span(T, "sb-exec", "sb-pid1")),
        ("  sb-task", lambda T: span(T, "sb-pid1", "sh")),
        ("sh", lambda T: span(T, "sh", "app")),
        ("app", lambda T: span(T, "app", "app-end")),
        ("end", lambda T: span(T, "app-end", "end")),
        ("fixed", lambda T: T["start"] - T["vx0"] + T["app"] - T["tsc"] + T["end"] - T["app-end"]),
        ("total", lambda T: T["end"] - T["vx0"])]
med = {}
for s, rs in runs.items():
    ok = [r["t"] for r in rs if all(k in r["t"] for k in ("start", "tsc", "exit", "vx", "sh", "app", "app-end", "end"))]
    if not ok:
        sys.exit("bench/critpath.sh: no complete %s run in the trace" % s)
    med[s] = {"n": len(ok)}
    for name, f in rows:
        v = [x for x in map(f, ok) if x is not None]
        if v:
            med[s][name] = statistics.median(v)
fmt = lambda x: "-" if x is None else "%.2f" % x
print("| interval (median ms) | unsandboxed | sandboxed | difference |")
print("|---|---|---|---|")
for n, _ in rows:
    p, q = med["plain"].get(n), med["sbx"].get(n)
    d = "-" if p is None or q is None else "%+.2f" % (q - p)
    print("| %s | %s | %s | %s |" % (n, fmt(p), fmt(q), d))
print("runs: %d unsandboxed, %d sandboxed" % (med["plain"]["n"], med["sbx"]["n"]))
'
