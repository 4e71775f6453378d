#!/usr/bin/python3
"""trace-check.py FILE: check FILE against the Trace Event Format's rules
(the JSON form Perfetto and chrome://tracing import), as vx run --profile
writes it. Prints one line per fault, "ok: N events" when there is none;
exit 0 valid, 1 not, 2 usage.

The rules checked: the file is JSON, an object with a "traceEvents" array
(or a bare array); "displayTimeUnit", when present, is "ms" or "ns"; every
event is an object with a string "name" and "ph", integer "pid" and "tid",
and a finite number "ts" (>= 0); "args", when present, is an object; a
complete event ("X") has a finite "dur" >= 0, and the complete events of one
thread nest (one that starts inside another ends inside it, as the
importers' slice stacks require); "B" and "E" events balance per thread;
"M" events are known metadata names with args.name or args.sort_index.
"""
import json
import math
import sys

PHASES = set("BEXiIMCbneSTpFsftPOND(),R")
META = {"process_name", "process_labels", "process_sort_index", "thread_name",
        "thread_sort_index"}


def finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check(doc):
    faults = []
    if isinstance(doc, dict):
        events = doc.get("traceEvents")
        if not isinstance(events, list):
            return ["(file): no \"traceEvents\" array"], 0
        unit = doc.get("displayTimeUnit", "ms")
        if unit not in ("ms", "ns"):
            faults.append("(file): displayTimeUnit %r: expected \"ms\" or \"ns\"" % (unit,))
    elif isinstance(doc, list):
        events = doc
    else:
        return ["(file): neither an object nor an array"], 0
    spans = {}   # (pid, tid) -> [(ts, end, index)]
    stacks = {}  # (pid, tid) -> names of open B events
    for i, e in enumerate(events):
        where = "traceEvents[%d]" % i
        if not isinstance(e, dict):
            faults.append("%s: not an object" % where)
            continue
        ph = e.get("ph")
        if not isinstance(ph, str) or ph not in PHASES:
            faults.append("%s: ph %r: not a known phase" % (where, ph))
            continue
        if not isinstance(e.get("name"), str):
            faults.append("%s: no string name" % where)
        for k in ("pid", "tid"):
            if not isinstance(e.get(k), int) or isinstance(e.get(k), bool):
                faults.append("%s: %s %r: not an integer" % (where, k, e.get(k)))
        if not finite(e.get("ts")) or e["ts"] < 0:
            faults.append("%s: ts %r: not a finite number >= 0" % (where, e.get("ts")))
            continue
        if "args" in e and not isinstance(e["args"], dict):
            faults.append("%s: args: not an object" % where)
        thread = (e.get("pid"), e.get("tid"))
        if ph == "X":
            if not finite(e.get("dur")) or e["dur"] < 0:
                faults.append("%s: dur %r: not a finite number >= 0" % (where, e.get("dur")))
                continue
            spans.setdefault(thread, []).append((e["ts"], e["ts"] + e["dur"], i))
        elif ph == "B":
            stacks.setdefault(thread, []).append(e.get("name"))
        elif ph == "E":
            if not stacks.get(thread):
                faults.append("%s: an E event with no B open on its thread" % where)
            else:
                stacks[thread].pop()
        elif ph == "M":
            args = e.get("args")
            if e.get("name") not in META:
                faults.append("%s: metadata %r: not a known name" % (where, e.get("name")))
            elif not isinstance(args, dict) or not ("name" in args or "sort_index" in args):
                faults.append("%s: metadata without args.name or args.sort_index" % where)
    for thread, open_ in stacks.items():
        if open_:
            faults.append("thread %s: B events never ended: %s" % (thread, ", ".join(map(str, open_))))
    for thread, ss in spans.items():
        # longest first at equal starts, so a parent precedes its children
        ss.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for ts, end, i in ss:
            while stack and stack[-1][1] <= ts:
                stack.pop()
            if stack and end > stack[-1][1]:
                faults.append("traceEvents[%d]: overlaps traceEvents[%d] on thread %s without "
                              "nesting in it" % (i, stack[-1][2], thread))
            stack.append((ts, end, i))
    return faults, len(events)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: trace-check.py FILE\n")
        return 2
    try:
        with open(argv[1], "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        print("%s: %s" % (argv[1], e))
        return 1
    faults, n = check(doc)
    for fault in faults:
        print("%s: %s" % (argv[1], fault))
    if faults:
        return 1
    print("ok: %d events" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
