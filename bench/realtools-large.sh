#!/usr/bin/env bash
# bench/realtools-large.sh DIR [ROUNDS]: the sandbox's overhead on a real
# build of library size (issue 18 item 7), beside bench/realtools.sh's small
# one. The same three tasks and tools, the same exec.sandbox blocks, over
# real code: rxjs 7.8.1's sources from its npm package,
#   @rt/lib     tsc over rxjs's TypeScript sources (~250 files, .js + .d.ts)
#   @rt/legacy  rollup + babel (preset-env, the root browserslist) over
#               rxjs's shipped ESM JavaScript (~250 files)
#   @rt/app     esbuild's two bundles of a small program over @rt/lib's output
# DIR is the layout bench/realtools.sh leaves with VX_BENCH_DIR=DIR (DIR/plain
# unsandboxed, DIR/sbx sandboxed): each is copied to DIR/large-plain and
# DIR/large-sbx with those sources put in (kept; a second run reuses them).
# Each side is built once by hand first, and the two sides' outputs must be
# byte-identical, or nothing is timed. Then ROUNDS (default 20) paired rounds
# of `vx run build --force` through bench/build-ab.py: medians, and the
# sandboxed side's paired ratio with its 95% interval.
#   VX_BENCH_BIN  the programs to time (default: the repository's bin/)
# Needs npm (the registry, or its cache, for `npm pack rxjs@7.8.1`) and
# python3; not part of make check.
set -euo pipefail

dir=${1:?usage: bench/realtools-large.sh DIR [ROUNDS]}
rounds=${2:-20}
case $rounds in '' | *[!0-9]*) echo "usage: bench/realtools-large.sh DIR [ROUNDS]" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "${VX_BENCH_BIN:-$here/bin}" && pwd)
dir=$(cd "$dir" && pwd)
for side in plain sbx; do
	[ -d "$dir/$side/packages/lib" ] || { echo "bench/realtools-large.sh: no $dir/$side: lay it out with VX_BENCH_DIR=$dir bash bench/realtools.sh 1" >&2; exit 2; }
done
export VX_WATCH=0
RX=rxjs-7.8.1

# large WS: rxjs's sources into the three packages of workspace WS
large() {
	local ws=$1 rx=$2
	rm -rf "$ws/packages/lib/src" "$ws/packages/lib/dist" "$ws/packages/legacy/src" "$ws/packages/legacy/dist" "$ws/packages/app/dist"
	cp -r "$rx/package/src" "$ws/packages/lib/src"
	# the build configurations and the UMD entry are rxjs's own, not sources
	rm -f "$ws/packages/lib/src"/tsconfig*.json "$ws/packages/lib/src/Rx.global.js" "$ws/packages/lib/src/internal/umd.ts"
	cat > "$ws/packages/lib/tsconfig.json" << 'EOF'
{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "rootDir": "src", "outDir": "dist", "lib": ["es2018", "dom"] },
  "include": ["src"]
}
EOF
	mkdir -p "$ws/packages/legacy/src"
	cp -r "$rx/package/dist/esm" "$ws/packages/legacy/src/rx"
	printf '%s\n' "// $RX's ESM sources (its npm package), for babel's browserslist targets" \
		'export * from "./rx/index.js";' > "$ws/packages/legacy/src/index.js"
	cat > "$ws/packages/app/src/main.ts" << 'EOF'
import { from, interval, lastValueFrom, of } from "@rt/lib";
import { bufferCount, filter, map, mergeMap, reduce, scan, take, toArray } from "@rt/lib";

export interface Report {
  total: number;
  windows: number[][];
  line: string;
}

export async function report(xs: number[], who?: string): Promise<Report> {
  const total = await lastValueFrom(from(xs).pipe(reduce((a, b) => a + b, 0)));
  const windows = await lastValueFrom(
    from(xs).pipe(scan((acc, x) => acc + x, 0), filter((x) => x % 2 === 0), bufferCount(2), toArray()),
  );
  const line = await lastValueFrom(of(who ?? "world").pipe(mergeMap((w) => interval(1).pipe(take(1), map(() => `hi ${w}`)))));
  return { total, windows, line };
}

if (require.main === module) {
  report([1, 2, 3, 4, 5, 6], process.argv[2]).then((r) => console.log(JSON.stringify(r)));
}
EOF
}

if [ ! -f "$dir/.large-ready" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && npm pack "${RX/-/@}" --silent > /dev/null && tar xzf "$RX.tgz") ||
		{ echo "bench/realtools-large.sh: unable to fetch $RX from the npm registry (npm pack)" >&2; exit 1; }
	for side in plain sbx; do
		rm -rf "${dir:?}/large-$side"
		cp -a "$dir/$side" "$dir/large-$side"
		large "$dir/large-$side" "$tmp"
	done
	touch "$dir/.large-ready"
fi

# each side once by hand first: a failing side is named, not timed; then
# the two sides' outputs compared
for side in plain sbx; do
	if ! (cd "$dir/large-$side" && "$BIN/vx" run build --force > "$dir/large-$side.log" 2>&1); then
		tail -n 30 "$dir/large-$side.log" >&2
		echo "bench/realtools-large.sh: 'vx run build' fails on the $side side; nothing timed" >&2
		exit 1
	fi
done
for p in lib legacy app; do
	if ! diff -r "$dir/large-plain/packages/$p/dist" "$dir/large-sbx/packages/$p/dist" > /dev/null; then
		echo "bench/realtools-large.sh: @rt/$p's outputs differ between the sides; nothing timed" >&2
		exit 1
	fi
done
echo "outputs byte-identical on both sides: $(find "$dir/large-sbx/packages"/*/dist -type f | wc -l) files"
python3 "$here/bench/build-ab.py" "$rounds" "unsandboxed:$dir/large-plain:$BIN" "sandboxed:$dir/large-sbx:$BIN"
