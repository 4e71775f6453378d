#!/usr/bin/env bash
# bench/connect.sh BASE_BIN [N] [RUNS]: what pid 1's connect judgement
# (issue 18 items 1 and 5) adds to one connect. N loopback TCP round trips
# (connect, accept, close) inside vx-sandbox --trace, blocking (python3) and
# non-blocking (node), with BASE_BIN's vx-sandbox and with this checkout's
# bin/ (or VX_BENCH_BIN), alternating, RUNS rounds; prints microseconds per
# round trip, then the medians and their ratio. Not part of make check.
set -euo pipefail

BASE=${1:?usage: bench/connect.sh BASE_BIN [N] [RUNS]}
N=${2:-1000}
RUNS=${3:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
NEW=$(cd "${VX_BENCH_BIN:-$here/bin}" && pwd)
dir=$(mktemp -d /var/tmp/vx-bench-connect.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/ws/app"
cat > "$dir/loop.py" <<'PY'
import socket, sys, time
n = int(sys.argv[1])
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(128)
t0 = time.perf_counter()
for _ in range(n):
    c = socket.socket(); c.connect(t.getsockname()); s, _ = t.accept(); s.close(); c.close()
print("%.1f" % ((time.perf_counter() - t0) / n * 1e6))
PY
cat > "$dir/loop.js" <<'JS'
const net = require("net");
const n = +process.argv[2];
const srv = net.createServer(s => s.end()).listen(0, "127.0.0.1", () => {
  let i = 0; const t0 = process.hrtime.bigint();
  const one = () => {
    if (i++ === n) { console.log((Number(process.hrtime.bigint() - t0) / n / 1000).toFixed(1)); srv.close(); return; }
    const c = net.connect(srv.address().port, "127.0.0.1", () => c.end()); c.on("close", one);
  };
  one();
});
JS
run() { # run BIN PROGRAM...: one round in the sandbox, traced
	(cd "$dir/ws/app" && "$1/vx-sandbox" --root "$dir/ws" --project "$dir/ws/app" \
		--read "$dir" --trace "$dir/trace.jsonl" -- "${@:2}")
}
uptime
: > "$dir/out"
for _ in $(seq "$RUNS"); do
	for side in base new; do
		bin=$BASE
		[ "$side" = new ] && bin=$NEW
		py=$(run "$bin" /usr/bin/python3 "$dir/loop.py" "$N")
		js=$(run "$bin" /usr/bin/node "$dir/loop.js" "$N")
		echo "$side python $py node $js" | tee -a "$dir/out"
	done
done
uptime
python3 - "$dir/out" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for k, name in ((2, "python (blocking)"), (4, "node (non-blocking)")):
    b = statistics.median(float(r[k]) for r in rows if r[0] == "base")
    n = statistics.median(float(r[k]) for r in rows if r[0] == "new")
    print(f"{name}: base {b:.1f} us, new {n:.1f} us, ratio {n / b:.2f}, added {n - b:.1f} us")
PY
