#!/usr/bin/env bash
# bench/trace.sh: the access tracer (issue 5) in ONE hyperfine run: each
# workload bare, under vx-sandbox with --trace (ptrace behind the seccomp
# filter with the fast path of sandbox/fastpath.h, the shipped tracer), the
# same with VX_TRACE_FAST=0 (every traced call stops), under vx-sandbox
# --trace with the seccomp
# user-notification prototype (VX_TRACE_NOTIFY=1, see sandbox/trace_notify.c),
# under vx-sandbox without tracing (the sandbox's own cost), under `strace -f
# --seccomp-bpf -e trace=%file -o /dev/null` (the reference's way; benchmark
# only, vx never needs strace) and under srt with its violation monitor on
# (bench/srt-monitor.mjs; optional). Workloads, in the project with read '.'
# and write 'out/':
#   reads    cat of 10,000 small files (find | xargs cat)
#   creates  5,000 files created in the write grant (one shell loop)
#   compile  make -j2 of a generated C project of 300 files (cc -pipe: no
#            temporary files; under srt cc found no writable directory for them)
#   denied   5,000 creates refused with EROFS (every one an event)
# What a run leaves behind (out/c, out/o, the bare run's d* files) is removed
# by hyperfine's --prepare, untimed, so every timed command starts from the
# same tree; bare and sandboxed runs use the same directory on the same file
# system (the sandbox binds the host's path, no overlay). BENCH_TMPFS=1 (root
# only) puts that directory on a tmpfs mounted for the run, so the disk
# traffic of other jobs on the machine stays out of the figures.
# Then the events are counted: the tracer's records for `denied` must be
# 5,000 with an end record saying 5,000; the prototype's, strace's and srt's
# are counted the same way. Last, the ratios to bare, from hyperfine's means
# (srt's CPU ratio is not comparable: its sandboxed processes are not
# reaped through the command hyperfine times, so their CPU is not counted).
#   bench/trace.sh [RUNS]   needs hyperfine, strace and python3 (benchmark
#                           only); srt from SRT=path-to-its-cli or PATH
set -eu
runs=${1:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
for t in hyperfine strace python3; do
	command -v "$t" > /dev/null || { echo "bench/trace.sh: needs $t (apt-get install $t)" >&2; exit 2; }
done

# a workspace outside /tmp (the sandbox gives the task a private /tmp)
dir=$(mktemp -d /var/tmp/vx-bench-trace.XXXXXX)
cleanup() {
	# lazily when a straggler of srt's still holds it (the rm failed, exit 1)
	if [ "${BENCH_TMPFS:-0}" = 1 ]; then umount "$dir/ws" 2> /dev/null || umount -l "$dir/ws" 2> /dev/null || true; fi
	rm -rf "$dir"
}
trap cleanup EXIT
ws=$dir/ws proj=$dir/ws/packages/app
mkdir -p "$ws"
if [ "${BENCH_TMPFS:-0}" = 1 ]; then
	mount -t tmpfs -o size=1g vx-bench "$ws" || { echo "bench/trace.sh: BENCH_TMPFS=1 needs root" >&2; exit 2; }
fi
mkdir -p "$proj/files" "$proj/cproj/src" "$proj/out"
echo '{"workspaces":["packages/*"]}' > "$ws/package.json"
# shellcheck disable=SC2016 # expanded by the inner sh
seq 0 9999 | (cd "$proj/files" && xargs -n 500 sh -c 'for f; do echo "x $f" > "f$f"; done' _)
for i in $(seq 0 299); do
	printf '#include <stdio.h>\n#include <string.h>\n#include "common.h"\nint f%d(const char *s) { char b[64]; snprintf(b, sizeof b, "%%s-%d", s); return (int)strlen(b) + COMMON; }\n' "$i" "$i" > "$proj/cproj/src/f$i.c"
done
echo '#define COMMON 3' > "$proj/cproj/src/common.h"
cat > "$proj/cproj/Makefile" <<'MK'
SRC := $(wildcard src/*.c)
OBJ := $(patsubst src/%.c,$(O)/%.o,$(SRC))
all: $(OBJ)
$(O)/%.o: src/%.c src/common.h
	@cc -pipe -O1 -c -o $@ $<
MK

declare -A work=(
	[reads]="find files -type f -print0 | xargs -0 cat > /dev/null"
	[creates]="mkdir out/c && i=0 && while [ \$i -lt 5000 ]; do : > out/c/f\$i; i=\$((i+1)); done"
	[compile]="mkdir out/o && make -s -j2 -C cproj O=../out/o"
	[denied]="i=0; while [ \$i -lt 5000 ]; do echo > d\$i; i=\$((i+1)); done 2> /dev/null; exit 0"
)
denied=${work[denied]}
sb="$here/bin/vx-sandbox --root $ws --project $proj --read . --write out/"
st="strace -f --seccomp-bpf -e trace=%file -o /dev/null"

# srt (npm @anthropic-ai/sandbox-runtime): write out/ only. Its reads are
# left open: with the workspace root in denyRead (as bench/sandbox.sh has it)
# srt 0.0.78 mounted out/ read-only under it (mkdir: Read-only file system),
# and its monitor reports writes only anyway
srt=${SRT:-$(command -v srt || true)}
srt_pkg=""
if [ -n "$srt" ] && command -v node > /dev/null; then
	srt_pkg=$(cd "$(dirname "$(readlink -f "$srt")")/.." && pwd)
	[ -f "$srt_pkg/dist/index.js" ] || srt_pkg=""
fi
if [ -n "$srt_pkg" ]; then
	printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["%s/out"],"denyWrite":[]}}\n' \
		"$proj" > "$dir/srt.json"
	mon="node $here/bench/srt-monitor.mjs $srt_pkg $dir/srt.json"
else
	echo "bench/trace.sh: no srt (npm i @anthropic-ai/sandbox-runtime; SRT=path to its cli): its rows are left out" >&2
fi

cmds=()
for w in reads creates compile denied; do
	c=${work[$w]}
	cmds+=(-n "$w: bare" "sh -c '$c'")
	cmds+=(-n "$w: vx-sandbox --trace" "$sb --trace $dir/trace-$w.jsonl -- sh -c '$c'")
	cmds+=(-n "$w: vx-sandbox --trace, no fast path" "env VX_TRACE_FAST=0 $sb --trace $dir/slow-$w.jsonl -- sh -c '$c'")
	cmds+=(-n "$w: vx-sandbox --trace, notify prototype" "env VX_TRACE_NOTIFY=1 $sb --trace $dir/notify-$w.jsonl -- sh -c '$c'")
	cmds+=(-n "$w: vx-sandbox, no trace" "$sb -- sh -c '$c'")
	cmds+=(-n "$w: strace" "$st sh -c '$c'")
	[ -z "$srt_pkg" ] || cmds+=(-n "$w: srt + monitor" "$mon \"$c\" 200")
done
cd "$proj"
echo "load before: $(uptime)"
hyperfine -N --warmup 1 --runs "$runs" --prepare "sh -c 'rm -rf $proj/out/c $proj/out/o $proj/d[0-9]*'" \
	--export-markdown "$dir/trace.md" --export-json "$dir/trace.json" "${cmds[@]}" > /dev/null
echo "load after: $(uptime)"
cat "$dir/trace.md"

echo
echo "## ratios to bare (mean wall time; user+sys CPU in brackets)"
python3 - "$dir/trace.json" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
for w in ("reads", "creates", "compile", "denied"):
    b = res.get(f"{w}: bare")
    for k, r in res.items():
        if not k.startswith(w + ":") or k == f"{w}: bare":
            continue
        cpu = (r["user"] + r["system"]) / (b["user"] + b["system"])
        print(f"{k}: {r['mean'] / b['mean']:.2f}x ({cpu:.2f}x)")
PY

echo
echo "## events (the denied workload, 5,000 refused creates)"
rm -f "$proj"/d[0-9]*
$sb --trace "$dir/count.jsonl" -- sh -c "$denied"
printf 'vx-sandbox --trace: %s records, end record says %s\n' \
	"$(grep -c '"errno":"EROFS"' "$dir/count.jsonl")" \
	"$(sed -n 's/.*"trace":"end","events":\([0-9]*\).*/\1/p' "$dir/count.jsonl")"
VX_TRACE_FAST=0 $sb --trace "$dir/count-slow.jsonl" -- sh -c "$denied"
printf 'vx-sandbox --trace, no fast path: %s records, end record says %s\n' \
	"$(grep -c '"errno":"EROFS"' "$dir/count-slow.jsonl")" \
	"$(sed -n 's/.*"trace":"end","events":\([0-9]*\).*/\1/p' "$dir/count-slow.jsonl")"
VX_TRACE_NOTIFY=1 $sb --trace "$dir/count-notify.jsonl" -- sh -c "$denied"
printf 'notify prototype: %s records, end record says %s\n' \
	"$(grep -c '"errno":"EROFS"' "$dir/count-notify.jsonl")" \
	"$(sed -n 's/.*"trace":"end","events":\([0-9]*\).*/\1/p' "$dir/count-notify.jsonl")"
if [ -n "$srt_pkg" ]; then
	# srt refuses these writes too (outside allowWrite); its monitor counts them
	$mon "$denied" 2000 | sed 's/^/srt + monitor: /'
fi
# outside a sandbox these creates succeed: count strace's open lines for them
strace -f --seccomp-bpf -e trace=%file -o "$dir/strace.txt" sh -c "$denied"
printf 'strace: %s create lines\n' "$(grep -c 'open.*"d[0-9]*", O_WRONLY' "$dir/strace.txt")"
rm -f "$proj"/d[0-9]*
