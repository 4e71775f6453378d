#!/usr/bin/env python3
"""bench/build-ab.py RUNS NAME:WORKSPACE:BINDIR...: `vx run build --force`
in each workspace with that directory's vx, interleaved run by run (the
order reversed every other run), so a drifting load weighs on every side
alike; two warm-up runs each. Prints each side's median wall time and
user+system CPU (its children's), and both as ratios to the first side.
Used for the realtools workspace (tests/realtools-install.sh; an
unsandboxed copy made with tests/fixtures/realtools/unsandbox.py) to compare
two builds of vx against the unsandboxed build in one session."""
import subprocess, time, os, sys, statistics, resource

if len(sys.argv) < 3:
    sys.exit(__doc__)
runs=int(sys.argv[1]); sides=[a.split(':') for a in sys.argv[2:]]
env=dict(os.environ, VX_WATCH='0')
res={n:[] for n,_,_ in sides}; cpu={n:[] for n,_,_ in sides}
for w in range(2):
    for n,d,b in sides: subprocess.run([b+'/vx','run','build','--force'],cwd=d,env=env,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
for i in range(runs):
    order = sides if i%2==0 else sides[::-1]
    for n,d,b in order:
        r0=resource.getrusage(resource.RUSAGE_CHILDREN); t=time.monotonic()
        p=subprocess.run([b+'/vx','run','build','--force'],cwd=d,env=env,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
        dt=time.monotonic()-t; r1=resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode: print("FAIL",n); sys.exit(1)
        res[n].append(dt); cpu[n].append(r1.ru_utime+r1.ru_stime-r0.ru_utime-r0.ru_stime)
base=sides[0][0]
for n,_,_ in sides:
    m=statistics.median(res[n]); c=statistics.median(cpu[n])
    print(f"{n:10s} wall {m*1000:7.1f} ms  cpu {c*1000:7.1f} ms  wall/{base} {m/statistics.median(res[base]):.3f}  cpu/{base} {c/statistics.median(cpu[base]):.3f}")
