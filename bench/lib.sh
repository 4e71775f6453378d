# shellcheck shell=bash
# bench/lib.sh: what several benchmarks share (sourced, not run).
#   bench_workspace WS N  gen-workspace.sh's N-package tree at WS, made once
#                         (into WS.tmp first, so a failed run is not reused)
#   bench_turbo WS        the native turbo binary under WS/node_modules (npm
#                         installs it once and the tree is committed clean, so
#                         neither tool pays for dirty-file hashing); its path
#                         on stdout, or exit 1 with a line on stderr
# Callers define log() (their own prefix) before using these.

bench_workspace() {
	local ws=$1 n=$2 here
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	mkdir -p "$(dirname "$ws")"
	[ -d "$ws/.git" ] && return 0
	rm -rf "$ws.tmp"
	log "generating $n packages in $ws"
	"$here/gen-workspace.sh" "$n" "$ws.tmp" >&2
	mv "$ws.tmp" "$ws"
}

bench_find_turbo() {
	find "$1/node_modules" -path '*/@turbo/*/bin/turbo' -type f -perm -u+x 2>/dev/null | head -n 1 || true
}

bench_turbo() {
	local ws=$1 t
	t=$(bench_find_turbo "$ws")
	if [ -z "$t" ]; then
		log "installing turbo with npm in $ws"
		(cd "$ws" && npm i -D turbo --no-audit --no-fund >&2)
		git -C "$ws" add -A
		git -C "$ws" -c user.name=bench -c user.email=bench@example.invalid \
			commit -q -m "npm i -D turbo"
		t=$(bench_find_turbo "$ws")
	fi
	[ -n "$t" ] || { log "no turbo binary under $ws/node_modules/@turbo"; exit 1; }
	printf '%s\n' "$t"
}
