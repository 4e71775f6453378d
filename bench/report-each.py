#!/usr/bin/env python3
"""bench/report-each.py BIN TRACE N: the CPU of one `BIN/vx-report --each`
judging N streams, each holding TRACE (the records `vx-sandbox --request REQ
--trace -` wrote: the request, then the trace), handed as vx run hands them
(a seqpacket `stream` record with the read end of a pipe attached, the
records written down the pipe, then its end). Prints vx-report's CPU (user +
system) a stream and the verdicts counted. Run it with two builds, one
after the other, a few times: the figure is a per-stream mean, not timed
against a target (issue 38 item 2: the graph record parsed once a run).
"""
import json
import os
import resource
import socket
import subprocess
import sys

if len(sys.argv) != 4:
    sys.exit("usage: bench/report-each.py BIN TRACE N")
bindir, trace, n = sys.argv[1], open(sys.argv[2], "rb").read(), int(sys.argv[3])
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
p = subprocess.Popen([bindir + "/vx-report", "--each"], stdin=b, stdout=subprocess.PIPE)
b.close()
before = resource.getrusage(resource.RUSAGE_CHILDREN)
verdicts = 0
for i in range(n):
    r, w = os.pipe()
    socket.send_fds(a, [json.dumps({"type": "stream", "id": f"t{i}"}).encode()], [r])
    os.close(r)
    os.write(w, trace)
    os.close(w)
    # its records, the verdict last: read up to it before the next stream
    while True:
        line = p.stdout.readline()
        if not line or b'"type":"verdict"' in line:
            verdicts += bool(line)
            break
a.close()
p.stdout.read()
p.wait()
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
print(f"{cpu / n:.3f} ms CPU a stream, {verdicts} verdicts of {n}")
