#!/usr/bin/env python3
"""bench/ab.py RUNS [NAME::]COMMAND...: each shell COMMAND timed RUNS times,
interleaved run by run (the order reversed every other run, so a drifting
load weighs on every side alike), after one warm-up run each. Prints each
side's median wall time, user and system CPU (its children's), and the wall
and CPU ratios to the first side. A failing command ends it, named. For the
noisy machines of docs/benchmarks.md: only ratios of one invocation are
quoted."""
import os, resource, statistics, subprocess, sys, time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    sides = [a.split('::', 1) if '::' in a else [a[:40], a] for a in sys.argv[2:]]
    res = {n: ([], [], []) for n, _ in sides}
    for n, c in sides:
        subprocess.run(c, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for i in range(runs):
        for n, c in (sides if i % 2 == 0 else sides[::-1]):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.monotonic()
            p = subprocess.run(c, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            dt = time.monotonic() - t
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            if p.returncode:
                sys.exit(f"ab.py: {n} failed (exit {p.returncode}): {c}")
            res[n][0].append(dt)
            res[n][1].append(r1.ru_utime - r0.ru_utime)
            res[n][2].append(r1.ru_stime - r0.ru_stime)
    med = {n: [statistics.median(v) for v in res[n]] for n, _ in sides}
    base = sides[0][0]
    bw, bc = med[base][0], med[base][1] + med[base][2]
    for n, _ in sides:
        w, u, s = med[n]
        print(f"{n:20s} wall {w * 1000:8.1f} ms  user {u * 1000:8.1f}  sys {s * 1000:8.1f}"
              f"  wall/{base} {w / bw:.3f}  cpu/{base} {(u + s) / bc:.3f}")


main()
