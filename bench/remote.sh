#!/usr/bin/env bash
# bench/remote.sh [N]: the remote cache (issue 7). One generated workspace
# (gen-workspace.sh), an nginx WebDAV server on loopback filled by one full
# build, then in one hyperfine session, every output deleted before each run:
#   local   an all-hit run from a warm local cache (no remote)
#   remote  an all-hit run from an empty local cache through nginx (every
#           manifest and blob downloaded, checked and written through)
#   signed  the same from a second prefix filled with signed entries, with
#           VX_REMOTE_CACHE_SIGNING_KEY set (every manifest's HMAC checked)
# Prints a Markdown table of medians and the ratios remote/local (target:
# 3x) and signed/remote (the cost of signing).
#
# Environment: VX_BENCH_DIR (default /tmp/vx-bench), VX_BENCH_RUNS (default 10).
set -euo pipefail

N=${1:-1000}
case $N in '' | *[!0-9]*) echo "usage: $0 [N]" >&2; exit 2 ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(cd "$HERE/../bin" && pwd)
BENCH_DIR=${VX_BENCH_DIR:-/tmp/vx-bench}
RUNS=${VX_BENCH_RUNS:-10}
WS="$BENCH_DIR/remote-ws-$N"

log() { printf 'remote.sh: %s\n' "$*" >&2; }
command -v hyperfine >/dev/null || { log "needs hyperfine (apt-get install hyperfine)"; exit 1; }
command -v nginx >/dev/null || { log "needs nginx (apt-get install nginx-light)"; exit 1; }

mkdir -p "$BENCH_DIR"
[ -d "$WS" ] || "$HERE/gen-workspace.sh" "$N" "$WS" >&2

tmp=$(mktemp -d)
ngpid=
cleanup() {
	if [ -n "$ngpid" ]; then kill "$ngpid" 2>/dev/null || true; wait "$ngpid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$tmp/ng/data" "$tmp/ng/tmp"
cat > "$tmp/ng/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $tmp/ng/nginx.pid;
error_log $tmp/ng/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $tmp/ng/tmp/body;
	proxy_temp_path $tmp/ng/tmp/proxy;
	fastcgi_temp_path $tmp/ng/tmp/fastcgi;
	uwsgi_temp_path $tmp/ng/tmp/uwsgi;
	scgi_temp_path $tmp/ng/tmp/scgi;
	client_max_body_size 0;
	keepalive_requests 100000;
	server {
		listen 127.0.0.1:$port;
		root $tmp/ng/data;
		location / { dav_methods PUT; create_full_put_path on; }
	}
}
EOF
nginx -p "$tmp/ng" -c "$tmp/ng/nginx.conf" -e "$tmp/ng/error.log" &
ngpid=$!
for _ in $(seq 100); do
	python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2)' "$port" 2>/dev/null && break
	sleep 0.05
done
URL="http://127.0.0.1:$port/bench"

log "filling the server and the local cache: a first full build"
rm -rf "$WS/.vx" "$WS"/packages/*/dist
VX_CACHE_DIR="$tmp/warm" "$BIN/vx" run build --root "$WS" --remote-cache "$URL" >/dev/null
log "server: $(find "$tmp/ng/data" -type f | wc -l) files, $(du -sh "$tmp/ng/data" | cut -f1)"

KEY=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
log "filling a second prefix with signed entries"
rm -rf "$WS"/packages/*/dist
VX_REMOTE_CACHE_SIGNING_KEY=$KEY VX_CACHE_DIR="$tmp/warm-signed" "$BIN/vx" run build --root "$WS" --remote-cache "$URL-signed" >/dev/null
rm -rf "$tmp/warm-signed"

# the remote runs must really be all hits from the server, or the timing means nothing
for sign in '' "$KEY"; do
	rm -rf "$WS"/packages/*/dist
	summary=$(VX_REMOTE_CACHE_SIGNING_KEY=$sign VX_CACHE_DIR="$tmp/check" "$BIN/vx" run build --root "$WS" \
		--remote-cache "$URL${sign:+-signed}" 2>&1 | tail -n 1)
	case $summary in
	"vx: $N tasks: $N hit, 0 miss"*) ;;
	*) log "the remote run${sign:+ (signed)} is not all hits: $summary"; exit 1 ;;
	esac
	rm -rf "$tmp/check"
done

log "all hits, outputs deleted: warm local cache vs empty local cache + nginx"
hyperfine --warmup 1 --min-runs "$RUNS" --export-json "$tmp/r.json" \
	-n local --prepare "rm -rf $WS/packages/*/dist" \
	"VX_CACHE_DIR=$tmp/warm $BIN/vx run build --root $WS" \
	-n remote --prepare "rm -rf $WS/packages/*/dist $tmp/empty" \
	"VX_CACHE_DIR=$tmp/empty $BIN/vx run build --root $WS --remote-cache $URL" \
	-n signed --prepare "rm -rf $WS/packages/*/dist $tmp/empty" \
	"VX_REMOTE_CACHE_SIGNING_KEY=$KEY VX_CACHE_DIR=$tmp/empty $BIN/vx run build --root $WS --remote-cache $URL-signed" >&2
read -r local remote signed < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(" ".join("%.1f" % (x["median"]*1000) for x in r))' "$tmp/r.json")
cat <<EOF2
| $N tasks, all hits, outputs deleted | median ms |
|---|---|
| local cache warm | $local |
| local cache empty, nginx WebDAV on loopback | $remote |
| local cache empty, nginx, entries signed and checked | $signed |
| remote/local | $(python3 -c 'import sys; print("%.1fx" % (float(sys.argv[2]) / float(sys.argv[1])))' "$local" "$remote") |
| signed/remote | $(python3 -c 'import sys; print("%.3fx" % (float(sys.argv[2]) / float(sys.argv[1])))' "$remote" "$signed") |
EOF2
