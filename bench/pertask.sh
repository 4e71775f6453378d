#!/usr/bin/env bash
# bench/pertask.sh [ROUNDS]: the per-task cost of the sandbox (issue 38 item 2).
# N trivial tasks (bench/gen-workspace.sh's layout: `mkdir -p dist && cp
# src/*.js dist/` per package, default N=200) run with `vx run build --force`,
# once as generated (unsandboxed) and once with each task's exec.sandbox
# granting read '.' and write 'dist/', interleaved round by round (bench/ab.py).
# Each command gets its own copy of the tree and its own cache, under
# /var/tmp (a sandbox has a private /tmp). Prints the median wall time and the
# CPU (user+system of the whole process tree: vx, its stages, the sandboxes,
# the tasks) of each, the CPU per task, and the sandboxed/unsandboxed ratios
# paired by round (target: within 1.3x wall).
#   OLD=path/to/bin   adds the same two rows for that build of vx (before and
#                     after in one run)
#   NEW=path/to/bin   the build measured (default: this checkout's bin/; a
#                     copy lets you rebuild while it runs)
#   VX_PERTASK_N=N    the number of packages (default 200)
#   VX_PERTASK_KEEP=1 leaves the trees in place (their directory is printed)
# needs python3; no network, no root (run it as root too for the root rows).
set -euo pipefail
rounds=${1:-10}
case $rounds in '' | *[!0-9]*) echo "usage: bench/pertask.sh [ROUNDS]" >&2; exit 2 ;; esac
n=${VX_PERTASK_N:-200}
here=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 > /dev/null || { echo "bench/pertask.sh: needs python3" >&2; exit 2; }

dir=$(mktemp -d /var/tmp/vx-bench-pertask.XXXXXX)
if [ "${VX_PERTASK_KEEP:-0}" = 1 ]; then
	echo "bench/pertask.sh: trees kept in $dir" >&2
else
	trap 'rm -rf "$dir"' EXIT
fi
"$here/bench/gen-workspace.sh" "$n" "$dir/base" > /dev/null

# the sandboxed twin: the same command with read '.' and write 'dist/'
sandboxed() { # TREE
	local f
	for f in "$1"/packages/*/vx.json; do
		sed -i 's|\("command": "mkdir -p dist && cp src/\*\.js dist/"\) }|\1, "sandbox": { "allow": { "read": ["."], "write": ["dist/"] } } }|' "$f"
	done
	grep -q '"sandbox"' "$1/packages/p0/vx.json" || { echo "bench/pertask.sh: unable to add the sandbox block" >&2; exit 1; }
}

bins=("new:$(cd "${NEW:-$here/bin}" && pwd)")
[ -n "${OLD:-}" ] && bins+=("old:$(cd "$OLD" && pwd)")
cmds=()
for b in "${bins[@]}"; do
	name=${b%%:*} bin=${b#*:}
	for kind in plain sandboxed; do
		tree=$dir/$name-$kind
		cp -a "$dir/base" "$tree"
		[ "$kind" = sandboxed ] && sandboxed "$tree"
		cmds+=("cd $tree && VX_WATCH=0 VX_CACHE_DIR=$tree/.vx/cache $bin/vx run build --force")
	done
done

echo "load before: $(uptime)"
VX_AB_RAW=$dir/raw.json python3 "$here/bench/ab.py" "$rounds" "${cmds[@]}"
echo "load after: $(uptime)"
python3 - "$dir/raw.json" "$n" << 'EOF'
import json, statistics, sys
raw = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
cmds, wall, cpu = raw["cmds"], raw["wall"], raw["cpu"]

def name(c):
    b = "OLD " if "/old-" in c else ""
    return b + ("sandboxed" if "-sandboxed" in c else "unsandboxed")

def paired(a, b):
    return statistics.median(x / y for x, y in zip(a, b) if y > 0)

print(f"\n{n} tasks, vx run build --force, medians of {len(wall[0])} interleaved rounds:")
for c, w, u in zip(cmds, wall, cpu):
    print(f"  {name(c):>16}: {statistics.median(w):8.1f} ms wall, {statistics.median(u):8.1f} ms CPU, "
          f"{statistics.median(u) / n:6.2f} ms CPU a task")
for i in range(0, len(cmds), 2):
    p, s = i, i + 1
    extra = statistics.median(b - a for a, b in zip(cpu[p], cpu[s])) / n
    print(f"  {name(cmds[s])} / {name(cmds[p])} (<= 1.3x): {paired(wall[s], wall[p]):.2f}x wall, "
          f"{paired(cpu[s], cpu[p]):.2f}x CPU; the sandbox's CPU a task: {extra:.2f} ms")
if len(cmds) == 4:
    print(f"  sandboxed new / OLD: {paired(wall[1], wall[3]):.2f}x wall, {paired(cpu[1], cpu[3]):.2f}x CPU")
EOF
