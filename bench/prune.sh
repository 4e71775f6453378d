#!/usr/bin/env bash
# bench/prune.sh [N]: `vx cache prune` over a local cache of N entries
# (default 10000), made by a script rather than N runs: each entry a
# manifest of 10 files of 200 random bytes (blobs of its own) and one blob
# every entry shares, its last use spread over the past 30 days. Blob names
# are random hex, not the hashes of their bytes: a prune reads no blob.
# Times, with hyperfine:
#   (a) a prune under the cap: every blob stat'ed, every manifest read
#       (the mark), nothing evicted; the cache is left as it was
#   (b) a prune to half the cache's size: about half the entries and their
#       blobs removed, on a fresh copy each run (the copy is not timed)
# Environment: VX_BENCH_DIR (default /tmp/vx-bench), VX_BENCH_RUNS (default 10).
set -euo pipefail

N=${1:-10000}
case $N in '' | *[!0-9]*) echo "usage: $0 [N]" >&2; exit 2 ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(cd "$HERE/../bin" && pwd)
DIR=${VX_BENCH_DIR:-/tmp/vx-bench}/prune-$N
RUNS=${VX_BENCH_RUNS:-10}
command -v hyperfine >/dev/null || apt-get install -y -qq hyperfine >/dev/null

if [ ! -d "$DIR/c0/ac" ]; then
	rm -rf "$DIR"
	mkdir -p "$DIR"
	python3 - "$DIR/c0" "$N" <<'EOF'
import json, os, random, sys, time
root, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(36)
for d in ("ac", "cas", "tmp", "used"):
    os.makedirs(os.path.join(root, d), exist_ok=True)
def blob(data):
    h = "%032x" % rng.getrandbits(128)
    d = os.path.join(root, "cas", h[:2])
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, h), "wb") as f:
        f.write(data)
    return h
shared = blob(os.urandom(1024))
now = time.time()
for i in range(n):
    files = [{"path": "dist/f%d.js" % k, "mode": 420, "size": 200, "hash": blob(os.urandom(200))}
             for k in range(10)]
    files.append({"path": "dist/shared.js", "mode": 420, "size": 1024, "hash": shared})
    key = "%032x" % rng.getrandbits(128)
    m = {"v": 1, "key": key, "files": files, "log": {"hash": "%032x" % 0, "size": 0},
         "exit": 0, "ms": 10, "created": "2026-12-01T00:00:00Z"}
    p = os.path.join(root, "ac", key + ".json")
    with open(p, "w") as f:
        json.dump(m, f, separators=(",", ":"))
    t = now - rng.uniform(0, 30 * 86400)
    os.utime(p, (t, t))
EOF
fi
BYTES=$(python3 -c '
import json, sys
print(json.loads(sys.argv[1])["before"])' "$("$BIN/vx-cache" --dir "$DIR/c0" prune --max-size 0)")
echo "prune.sh: $N entries, $BYTES bytes counted" >&2
hyperfine -N --warmup 2 --runs "$RUNS" --export-markdown "$DIR/under.md" \
	-n "prune under the cap ($N entries)" "$BIN/vx-cache --dir $DIR/c0 prune --max-size 100G"
hyperfine --runs "$RUNS" --export-markdown "$DIR/half.md" \
	--prepare "rm -rf $DIR/c && cp -a $DIR/c0 $DIR/c && sync" \
	-n "prune to half ($N entries)" "$BIN/vx-cache --dir $DIR/c prune --max-size $((BYTES / 2))"
cat "$DIR/under.md" "$DIR/half.md"
