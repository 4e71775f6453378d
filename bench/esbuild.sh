#!/usr/bin/env bash
# bench/esbuild.sh [ROUNDS]: the sandbox's overhead on esbuild's own binary
# (issue 38 item 1). esbuild is Go: statically linked, no libc, so the
# tracer's preload (sandbox/shim) never loads and every traced call it makes
# (its openat and newfstatat of each file and package.json it resolves) is a
# ptrace stop. The task is esbuild's CLI, from the npm registry (esbuild
# 0.25.9 of tests/fixtures/realtools), bundling, minifying and mapping five
# real packages of the same install for node: @babel/core, @babel/preset-env
# (with its ~150 plugin packages), rollup, typescript and postcss (~1,300
# files opened, ~2,000 stats; a ~6.8 MB bundle). No node runs in it.
#
# The workspace is tests/fixtures/realtools/ws laid out by
# tests/realtools-install.sh (npm layout), twice: DIR/sbx with the task's
# exec.sandbox block (read '.', the root node_modules and tsconfig.base.json,
# which esbuild looks for; write dist/), DIR/plain with it taken out. The
# task, `bundle` of @rt/app, is added to both copies here. Prints the tracer's
# census of one sandboxed run (VX_TRACE_STATS=1: stops by call), then
# bench/ab.py's table for `vx run @rt/app#bundle --force`: medians of wall
# and CPU, and the sandboxed side's paired ratios with their 95% intervals
# (the CPU ratio is the figure to quote on a shared machine).
#   VX_BENCH_BIN     the programs to time (default: the repository's bin/)
#   VX_BENCH_DIR     lay the two workspaces out here and keep them (a second
#                    run reuses them); default: a temporary directory
#   VX_BENCH_NOTIFY  1: a third side, the sandboxed copy traced by seccomp
#                    user notification instead of ptrace (VX_TRACE_NOTIFY=1,
#                    sandbox/trace_notify.c: the bench-only prototype, which
#                    never learns a call's result)
# Needs python3, and npm (or the install cache) for the first layout; not part
# of make check.
set -euo pipefail

RUNS=${1:-10}
case $RUNS in '' | *[!0-9]*) echo "usage: $0 [ROUNDS]" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "${VX_BENCH_BIN:-$here/bin}" && pwd)
command -v python3 > /dev/null || { echo "bench/esbuild.sh: needs python3 for the ratios" >&2; exit 2; }

# outside /tmp, as a user's checkout is (the sandbox gives a task its own /tmp)
if [ -n "${VX_BENCH_DIR:-}" ]; then
	mkdir -p "$VX_BENCH_DIR"
	dir=$(cd "$VX_BENCH_DIR" && pwd)
else
	dir=$(mktemp -d /var/tmp/vx-bench-esbuild.XXXXXX)
	trap 'rm -rf "$dir"' EXIT
fi
export VX_WATCH=0

# task WS: the entry and the bundle task in WS/packages/app
task() {
	local app=$1/packages/app
	cat > "$app/bundle-entry.js" << 'EOF'
export * as babelCore from "@babel/core";
export * as presetEnv from "@babel/preset-env";
export * as rollup from "rollup";
export * as typescript from "typescript";
export * as postcss from "postcss";
EOF
	python3 - "$app/vx.json" << 'EOF'
import json
import sys

path = sys.argv[1]
with open(path) as f:
    config = json.load(f)
config["tasks"]["bundle"] = {
    "exec": {
        "command": "../../node_modules/.bin/esbuild bundle-entry.js --bundle"
        " --platform=node --format=esm --minify --sourcemap --log-level=error"
        " --external:fsevents --external:@babel/preset-typescript"
        " --outfile=dist/bundle.js",
        "sandbox": {
            "allow": {
                "read": [".", "../../node_modules", "../../tsconfig.base.json"],
                "write": ["dist/"],
            }
        },
    },
    "cache": {
        "inputs": {"files": ["bundle-entry.js"], "workspaceFiles": ["tsconfig.base.json"]},
        "outputs": {"files": ["dist/**"]},
    },
}
with open(path, "w") as f:
    json.dump(config, f, indent=2)
    f.write("\n")
EOF
}

if [ ! -f "$dir/.ready-esbuild" ]; then
	for side in sbx plain; do
		rm -rf "${dir:?}/$side"
		bash "$here/tests/realtools-install.sh" npm "$dir/$side"
		task "$dir/$side"
	done
	python3 "$here/tests/fixtures/realtools/unsandbox.py" "$dir"/plain/packages/*/vx.json
	touch "$dir/.ready-esbuild"
fi

vx=$BIN/vx
t=@rt/app#bundle
# each side once by hand first: a failing side is named, not timed; the
# sandboxed one with the census
for side in plain sbx; do
	if ! (cd "$dir/$side" && VX_TRACE_STATS=1 "$vx" run "$t" --force > "$dir/$side.log" 2>&1); then
		tail -n 30 "$dir/$side.log" >&2
		echo "bench/esbuild.sh: 'vx run $t' fails on the $side side; nothing timed" >&2
		exit 1
	fi
done
echo "census of one sandboxed run (VX_TRACE_STATS=1):"
grep 'trace stats' "$dir/sbx.log" || echo "  (none printed: is $BIN/vx-sandbox tracing?)"
echo
echo "== vx run $t --force: esbuild 0.25.9 (first line unsandboxed, then sandboxed), $RUNS rounds"
set -- "cd $dir/plain && $vx run $t --force >/dev/null 2>&1 # unsandboxed" \
	"cd $dir/sbx && $vx run $t --force >/dev/null 2>&1 # sandboxed"
if [ "${VX_BENCH_NOTIFY:-}" = 1 ]; then
	set -- "$@" "cd $dir/sbx && VX_TRACE_NOTIFY=1 $vx run $t --force >/dev/null 2>&1 # sandboxed, user notification"
fi
python3 "$here/bench/ab.py" "$RUNS" "$@"
