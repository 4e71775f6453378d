#!/usr/bin/env bash
# bench/trace.sh: the access tracer (issue 5) in ONE hyperfine run: each
# workload bare, under vx-sandbox with --trace, under vx-sandbox without it
# (the sandbox's own cost), and under `strace -f --seccomp-bpf -e
# trace=%file -o /dev/null` (the reference's way; benchmark only, vx never
# needs strace). Workloads, in the project with read '.' and write 'out/':
#   reads    cat of 10,000 small files (find | xargs cat)
#   creates  5,000 files created in the write grant (one shell loop)
#   compile  make -j2 of a generated C project of 300 files
#   denied   5,000 creates refused with EROFS (every one an event)
# Then the events are counted: the tracer's records for `denied` must be
# 5,000 with an end record saying 5,000; strace's EROFS lines likewise.
#   bench/trace.sh [RUNS]      needs hyperfine and strace (benchmark only)
set -eu
runs=${1:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
command -v hyperfine > /dev/null || { echo "bench/trace.sh: needs hyperfine" >&2; exit 2; }
command -v strace > /dev/null || { echo "bench/trace.sh: needs strace (apt-get install strace)" >&2; exit 2; }

# a workspace outside /tmp (the sandbox gives the task a private /tmp)
dir=$(mktemp -d /var/tmp/vx-bench-trace.XXXXXX)
trap 'rm -rf "$dir"' EXIT
ws=$dir/ws proj=$dir/ws/packages/app
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
	@cc -O1 -c -o $@ $<
MK

declare -A work=(
	[reads]="find files -type f -print0 | xargs -0 cat > /dev/null"
	[creates]="rm -rf out/c && mkdir out/c && i=0 && while [ \$i -lt 5000 ]; do : > out/c/f\$i; i=\$((i+1)); done"
	[compile]="rm -rf out/o && mkdir out/o && make -s -j2 -C cproj O=../out/o"
	[denied]="i=0; while [ \$i -lt 5000 ]; do echo > d\$i; i=\$((i+1)); done 2> /dev/null; exit 0"
)
denied=${work[denied]}
sb="$here/bin/vx-sandbox --root $ws --project $proj --read . --write out/"
st="strace -f --seccomp-bpf -e trace=%file -o /dev/null"

cmds=()
for w in reads creates compile denied; do
	c=${work[$w]}
	cmds+=(-n "$w: bare" "sh -c '$c'")
	cmds+=(-n "$w: vx-sandbox --trace" "$sb --trace $dir/trace-$w.jsonl -- sh -c '$c'")
	cmds+=(-n "$w: vx-sandbox, no trace" "$sb -- sh -c '$c'")
	cmds+=(-n "$w: strace" "$st sh -c '$c'")
done
cd "$proj"
hyperfine -N --warmup 1 --runs "$runs" --export-markdown "$dir/trace.md" "${cmds[@]}" > /dev/null
cat "$dir/trace.md"

echo
echo "## events (the denied workload, 5,000 refused creates)"
$sb --trace "$dir/count.jsonl" -- sh -c "$denied"
printf 'vx-sandbox --trace: %s records, end record says %s\n' \
	"$(grep -c '"errno":"EROFS"' "$dir/count.jsonl")" \
	"$(sed -n 's/.*"trace":"end","events":\([0-9]*\).*/\1/p' "$dir/count.jsonl")"
# outside a sandbox these creates succeed: count strace's open lines for them
rm -f "$proj"/d[0-9]*
strace -f --seccomp-bpf -e trace=%file -o "$dir/strace.txt" sh -c "$denied"
printf 'strace: %s create lines\n' "$(grep -c 'open.*"d[0-9]*", O_WRONLY' "$dir/strace.txt")"
