#!/usr/bin/env bash
# bench/realtools.sh [RUNS]: the sandbox's overhead on real JS tools (issue 18
# item 7), through `vx run` as a user runs it, sandboxed against the same
# tasks with their exec.sandbox blocks taken out, side by side in one
# hyperfine session per figure:
#   (t) a real test suite: @rt/lib#test, vitest 3 with two fork workers over
#       the fixture's tests plus VX_BENCH_TESTS generated test files (default
#       24; each file is a fresh worker process, its IPC a socketpair), a few
#       seconds long
#   (b) a real build's full run: `vx run build --force` (tsc, esbuild's
#       service after it, rollup + babel), every task run
# The workspace is tests/fixtures/realtools/ws laid out by
# tests/realtools-install.sh (npm layout, from its cache; the first run on a
# machine installs from the npm registry), twice: one copy per side, so
# neither side's outputs or caches touch the other's. Prints hyperfine's
# table, then a Markdown table of medians, user+system CPU and the ratios.
#   VX_BENCH_BIN   the programs to time (default: the repository's bin/)
#   VX_BENCH_TESTS generated test files (default 24)
# Needs hyperfine (apt-get install hyperfine) and python3; not part of make
# check.
set -euo pipefail

RUNS=${1:-10}
case $RUNS in '' | *[!0-9]*) echo "usage: $0 [RUNS]" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "${VX_BENCH_BIN:-$here/bin}" && pwd)
NTESTS=${VX_BENCH_TESTS:-24}
command -v hyperfine > /dev/null || { echo "bench/realtools.sh: needs hyperfine (apt-get install hyperfine)" >&2; exit 2; }
command -v python3 > /dev/null || { echo "bench/realtools.sh: needs python3 for the ratios" >&2; exit 2; }

# outside /tmp, as a user's checkout is (the sandbox gives a task its own /tmp)
dir=$(mktemp -d /var/tmp/vx-bench-realtools.XXXXXX)
trap 'rm -rf "$dir"' EXIT
export VX_WATCH=0

# gen WS: NTESTS test files, each a little arithmetic over the library
gen() {
	local d=$1/packages/lib/test/gen i
	mkdir -p "$d"
	for i in $(seq 1 "$NTESTS"); do
		cat > "$d/t$i.test.ts" <<EOF
import { describe, expect, it } from "vitest";
import { mean, sum } from "../../src/math";
import { Greeter } from "../../src/greet";

const primes = (n: number): number[] => {
  const sieve = new Array<boolean>(n + 1).fill(true);
  const out: number[] = [];
  for (let i = 2; i <= n; i++) {
    if (!sieve[i]) continue;
    out.push(i);
    for (let j = i * i; j <= n; j += i) sieve[j] = false;
  }
  return out;
};

describe("generated $i", () => {
  it("sums the primes", () => expect(sum(primes(20000 + $i))).toBeGreaterThan(0));
  it("means", () => expect(mean([$i, $i + 2])).toBe($i + 1));
  it("greets", () => expect(new Greeter("hey").greet("$i")).toBe("hey, $i"));
});
EOF
	done
}

for side in sbx plain; do
	bash "$here/tests/realtools-install.sh" npm "$dir/$side"
	gen "$dir/$side"
done
python3 "$here/tests/fixtures/realtools/unsandbox.py" "$dir"/plain/packages/*/vx.json

# each side once by hand first: a failing side is named, not timed
for side in plain sbx; do
	for t in build @rt/lib#test; do
		if ! (cd "$dir/$side" && "$BIN/vx" run "$t" --force > "$dir/$side.log" 2>&1); then
			tail -n 30 "$dir/$side.log" >&2
			echo "bench/realtools.sh: 'vx run $t' fails on the $side side; nothing timed" >&2
			exit 1
		fi
	done
done

vx=$BIN/vx
hyperfine --warmup 1 --runs "$RUNS" --export-json "$dir/t.json" \
	-n "test, unsandboxed" "cd $dir/plain && $vx run @rt/lib#test --force" \
	-n "test, sandboxed" "cd $dir/sbx && $vx run @rt/lib#test --force"
hyperfine --warmup 1 --runs "$RUNS" --export-json "$dir/b.json" \
	-n "build, unsandboxed" "cd $dir/plain && $vx run build --force" \
	-n "build, sandboxed" "cd $dir/sbx && $vx run build --force"

python3 - "$dir/t.json" "$dir/b.json" "$NTESTS" "$RUNS" << 'EOF'
import json, statistics, sys

print()
print(f"vitest files: {2 + int(sys.argv[3])} (2 fork workers); runs: {sys.argv[4]} each")
print()
print("| figure | unsandboxed median | sandboxed median | wall ratio | CPU (user+sys) ratio |")
print("|---|---|---|---|---|")
for name, path in (("vitest suite (@rt/lib#test)", sys.argv[1]), ("full build (vx run build --force)", sys.argv[2])):
    plain, sbx = json.load(open(path))["results"]
    med = lambda r: statistics.median(r["times"])
    cpu = lambda r: r["user"] + r["system"]
    print(f"| {name} | {med(plain):.3f} s | {med(sbx):.3f} s | {med(sbx) / med(plain):.3f} "
          f"| {cpu(sbx) / cpu(plain):.3f} |")
EOF
