#!/usr/bin/env python3
"""linkcycles.py BUILD_DIR KNOWN_FILE: fail on a new link-level cycle.

A link cycle is a set of object files of one directory that call each
other round (a.o uses a symbol b.o defines, and b.o, maybe through others,
one a.o defines): such files cannot be read, tested or replaced one at a
time.  Symbols come from nm.  Every strongly connected component of the
per-directory "uses a symbol defined in" graph must lie inside one line of
KNOWN_FILE (the cycles issue 37 is removing); a new cycle, or a known one
that grew, prints the files and exits 1.  So does a known line no longer a
cycle, so that the list only shrinks.
"""
import collections
import glob
import os
import subprocess
import sys


def symbols(obj, flags):
    out = subprocess.run(["nm"] + flags + [obj], capture_output=True,
                         text=True, check=True).stdout
    return [line.split()[-1] for line in out.splitlines() if line.split()]


def graph(build):
    objs = sorted(o for o in glob.glob(os.path.join(build, "**", "*.o"),
                                       recursive=True)
                  if "/unit/" not in o and not o.endswith("_gen.o"))
    defs = collections.defaultdict(set)
    for o in objs:
        for s in symbols(o, ["--defined-only", "-g"]):
            defs[s].add(o)
    edges = {o: set() for o in objs}
    for o in objs:
        for s in symbols(o, ["-u"]):
            edges[o] |= {t for t in defs.get(s, ())
                         if t != o and os.path.dirname(t) == os.path.dirname(o)}
    return edges


def components(edges):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(comp)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: linkcycles.py BUILD_DIR KNOWN_FILE")
    build, known_file = sys.argv[1], sys.argv[2]
    known = []
    with open(known_file, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                known.append(set(line))
    rel = lambda o: os.path.relpath(o, build)
    found = [set(map(rel, c)) for c in components(graph(build))]
    bad = 0
    for c in found:
        if not any(c <= k for k in known):
            print("linkcycles: new link cycle: " + " ".join(sorted(c))
                  + "; fix: make one of them call the others through a"
                  " callback or move the shared part to its own file"
                  " (" + known_file + " lists the known ones)", file=sys.stderr)
            bad = 1
    for k in known:
        if not any(c <= k and len(c) > 1 for c in found):
            print("linkcycles: no longer a cycle, remove its line from "
                  + known_file + ": " + " ".join(sorted(k)), file=sys.stderr)
            bad = 1
    print("linkcycles: %d cycle(s), all known" % len(found) if not bad else
          "linkcycles: failed")
    sys.exit(bad)


if __name__ == "__main__":
    main()
