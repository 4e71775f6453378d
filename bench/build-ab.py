#!/usr/bin/env python3
"""bench/build-ab.py RUNS NAME:WORKSPACE:BINDIR...: `vx run build --force`
in each workspace with that directory's vx, interleaved run by run by
bench/ab.py (medians, then each side's paired ratio to the first with its
95% interval). Used for
the realtools workspace (tests/realtools-install.sh; an unsandboxed copy
made with tests/fixtures/realtools/unsandbox.py) to compare two builds of vx
against the unsandboxed build in one session."""
import os, shlex, sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
cmds = []
for a in sys.argv[2:]:
    n, d, b = a.split(':')
    cmds.append(f"cd {shlex.quote(d)} && VX_WATCH=0 {shlex.quote(b + '/vx')} run build --force >/dev/null 2>&1 # {n}")
here = os.path.dirname(os.path.abspath(__file__))
os.execvp(sys.executable, [sys.executable, os.path.join(here, 'ab.py'), sys.argv[1]] + cmds)
