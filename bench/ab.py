#!/usr/bin/env python3
"""bench/ab.py ROUNDS CMD...: two (or more) builds of vx side by side.

Runs each shell command 3 times to warm up, then ROUNDS rounds in which every
command runs once, in alternating order (A B, B A, ...), so that a load that
comes and goes on a shared machine falls on all of them alike. Prints each
command's median wall time (with the quartiles) and median CPU (user + system
of everything it ran), in ms. Then, for every command after the first, its
ratio to the first, paired by round (each round's time over the first
command's time in that round: a load that lasts a round cancels out), as the
median of the per-round ratios with a 95% bootstrap interval (2,000
resamples, seeded, so the same times give the same interval): a target such
as "at most 2% over" is met when the interval's upper end is at or under
1.02, not when one median is. A command that fails is named on stderr and
the script exits 1 after its table: its times are not a build's.
VX_AB_RAW=FILE also writes every round's times there as JSON ({"cmds",
"wall", "cpu"}: one list per command, in round order), for other statistics.
VX_AB_SELF=1 takes the CPU of each command's own process only, not of what
it starts (perf stat --no-inherit's task-clock; the command must then be
one program with its arguments, no shell syntax): the driver alone, say,
beside the stages it runs.

Comparing two builds of vx on ONE tree: vx-graph's cache is keyed by its
binary's inode, size and times, so two copies of an identical vx-graph would
each throw the other's cache away on every run. Hard-link one vx-graph into
both bin directories (ln -f new/bin/vx-graph old/bin/vx-graph) when the graph
code did not change, or give each build its own copy of the tree.

    cd /tmp/vx-bench/run-vx-1000 && VX_CACHE_DIR=$PWD/.vx/cache \\
      python3 ~/vx/bench/ab.py 25 "/tmp/old/bin/vx run build" "~/vx/bin/vx run build"
"""
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time

FAILED = set()


def run(cmd):
    if os.environ.get("VX_AB_SELF") == "1":
        return run_self(cmd)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, shell=True, stdout=subprocess.DEVNULL, check=False)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    if p.returncode:
        FAILED.add(cmd)
    return (t1 - t0) * 1000, cpu * 1000


def run_self(cmd):
    """VX_AB_SELF=1: the command's own task-clock (perf stat --no-inherit)."""
    t0 = time.perf_counter()
    p = subprocess.run("perf stat -x, --no-inherit -e task-clock -- " + cmd, shell=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       check=False)
    t1 = time.perf_counter()
    cpu = [float(line.split(",")[0]) for line in p.stderr.splitlines()
           if "task-clock" in line and line.split(",")[0].replace(".", "", 1).isdigit()]
    if p.returncode or not cpu:
        FAILED.add(cmd)
    return (t1 - t0) * 1000, cpu[0] if cpu else 0.0


def interval(ratios, resamples=2000):
    """95% bootstrap interval of the median of the per-round ratios."""
    rng = random.Random(1)
    meds = sorted(statistics.median(rng.choices(ratios, k=len(ratios)))
                  for _ in range(resamples))
    return meds[int(0.025 * resamples)], meds[int(0.975 * resamples) - 1]


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    rounds, cmds = int(sys.argv[1]), sys.argv[2:]
    for cmd in cmds:
        for _ in range(3):
            run(cmd)
    wall = {c: [] for c in cmds}
    cpu = {c: [] for c in cmds}
    for i in range(rounds):
        for cmd in cmds if i % 2 == 0 else cmds[::-1]:
            w, c = run(cmd)
            wall[cmd].append(w)
            cpu[cmd].append(c)
    for cmd in cmds:
        w = sorted(wall[cmd])
        print("%8.1f ms wall (q1 %.1f, q3 %.1f) %8.1f ms cpu  %s" % (
            statistics.median(w), w[len(w) // 4], w[3 * len(w) // 4],
            statistics.median(cpu[cmd]), cmd))
    for cmd in cmds[1:]:
        for what, times in (("wall", wall), ("cpu", cpu)):
            r = [a / b for a, b in zip(times[cmd], times[cmds[0]]) if b > 0]
            if not r:
                continue
            lo, hi = interval(r)
            print("ratio %-4s %.3f (95%% CI %.3f-%.3f, %d paired rounds)  %s" % (
                what, statistics.median(r), lo, hi, len(r), cmd))
    raw = os.environ.get("VX_AB_RAW")
    if raw:
        with open(raw, "w") as f:
            json.dump({"cmds": cmds, "wall": [wall[c] for c in cmds],
                       "cpu": [cpu[c] for c in cmds]}, f)
    for cmd in sorted(FAILED):
        print("ab.py: failed at least once: %s" % cmd, file=sys.stderr)
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
