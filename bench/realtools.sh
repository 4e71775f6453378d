#!/usr/bin/env bash
# bench/realtools.sh [ROUNDS]: the sandbox's overhead on real JS tools (issue
# 18 item 7), through `vx run` as a user runs it, sandboxed against the same
# tasks with their exec.sandbox blocks taken out, interleaved round by round
# by bench/ab.py (its paired ratio and 95% interval are the figure to quote:
# on a noisy machine one build's time moves by 10% run to run):
#   (t) a real test suite: @rt/lib#test, vitest 3 with two fork workers over
#       the fixture's tests plus VX_BENCH_TESTS generated test files (default
#       24; each file is a fresh worker process, its IPC a socketpair), a few
#       seconds long
#   (b) a real build's full run: `vx run build --force` (tsc, esbuild's
#       service after it, rollup + babel), every task run
# The workspace is tests/fixtures/realtools/ws laid out by
# tests/realtools-install.sh (npm layout, from its cache; the first run on a
# machine installs from the npm registry), twice: one copy per side, so
# neither side's outputs or caches touch the other's. Prints ab.py's table
# for each figure: medians, then the sandboxed side's paired ratios.
#   VX_BENCH_BIN   the programs to time (default: the repository's bin/)
#   VX_BENCH_TESTS generated test files (default 24)
#   VX_BENCH_DIR   lay the two workspaces out here (DIR/plain, DIR/sbx) and
#                  keep them (a second run reuses them; bench/critpath.sh
#                  reads the same layout); default: a temporary directory
#   VX_BENCH_ONLY  test or build: time that figure alone
# Needs python3; not part of make check.
set -euo pipefail

RUNS=${1:-10}
case $RUNS in '' | *[!0-9]*) echo "usage: $0 [ROUNDS]" >&2; exit 2 ;; esac
case ${VX_BENCH_ONLY:-} in '' | test | build) ;; *) echo "bench/realtools.sh: VX_BENCH_ONLY is '$VX_BENCH_ONLY'; use test or build" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "${VX_BENCH_BIN:-$here/bin}" && pwd)
NTESTS=${VX_BENCH_TESTS:-24}
command -v python3 > /dev/null || { echo "bench/realtools.sh: needs python3 for the ratios" >&2; exit 2; }

# outside /tmp, as a user's checkout is (the sandbox gives a task its own /tmp)
if [ -n "${VX_BENCH_DIR:-}" ]; then
	mkdir -p "$VX_BENCH_DIR"
	dir=$(cd "$VX_BENCH_DIR" && pwd)
else
	dir=$(mktemp -d /var/tmp/vx-bench-realtools.XXXXXX)
	trap 'rm -rf "$dir"' EXIT
fi
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

if [ ! -f "$dir/.ready" ]; then
	for side in sbx plain; do
		rm -rf "${dir:?}/$side"
		bash "$here/tests/realtools-install.sh" npm "$dir/$side"
		gen "$dir/$side"
	done
	python3 "$here/tests/fixtures/realtools/unsandbox.py" "$dir"/plain/packages/*/vx.json
	touch "$dir/.ready"
fi

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
echo "vitest files: $((2 + NTESTS)) (2 fork workers); rounds: $RUNS"
for fig in test build; do
	case ${VX_BENCH_ONLY:-$fig} in "$fig") ;; *) continue ;; esac
	t=build
	[ "$fig" = test ] && t=@rt/lib#test
	echo
	echo "== $fig: vx run $t --force (first line unsandboxed, second sandboxed)"
	python3 "$here/bench/ab.py" "$RUNS" \
		"cd $dir/plain && $vx run $t --force >/dev/null 2>&1 # unsandboxed" \
		"cd $dir/sbx && $vx run $t --force >/dev/null 2>&1 # sandboxed"
done
