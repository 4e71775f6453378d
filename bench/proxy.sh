#!/usr/bin/env bash
# bench/proxy.sh [ROUNDS]: vx-proxy against tinyproxy, side by side in one
# run, on loopback with an nginx origin (issue 6 item 5).
#
#   apt-get install -y tinyproxy nginx-light apache2-utils   # benchmark-only tools
#
# Measures: a 100 MB download over CONNECT and over an absolute URI (curl),
# small-request rate at concurrency 1 and 50 (ab, absolute URI), and each
# proxy's RSS after the load. vx-proxy listens on 127.0.0.1 (--listen-tcp)
# because curl and ab speak HTTP proxies over TCP only; the relay is the same
# one a task's unix socket gets. Prints one markdown table (medians over
# ROUNDS, default 3).
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
VXP=${VX_PROXY:-$PWD/bin/vx-proxy}
for t in tinyproxy nginx ab curl; do
	command -v "$t" >/dev/null || { echo "bench/proxy.sh: needs $t (apt-get install -y tinyproxy nginx-light apache2-utils)" >&2; exit 2; }
done
D=$(mktemp -d /tmp/vx-bench-proxy.XXXXXX)
ORIGIN=18080 TINY=18888 VX=18889
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	if [ -f "$D/nginx.pid" ]; then kill "$(cat "$D/nginx.pid")" 2>/dev/null || true; fi
	rm -rf "$D"
}
trap cleanup EXIT

# nginx hands its temp directories to its worker user (nobody): they get a
# directory of their own, or $D, which holds the task's vx-proxy socket, would
# be closed to the bridge's relay (it keeps no capability to pass a 0700
# directory it does not own)
mkdir -p "$D/www" "$D/ngx"
chmod 755 "$D" # nginx's workers (nobody) read www/ through it
head -c 100000000 /dev/zero > "$D/www/big.bin"
echo tiny > "$D/www/tiny.txt"
cat > "$D/nginx.conf" <<EOF
worker_processes 2;
pid $D/nginx.pid;
error_log $D/nginx.err;
events { worker_connections 1024; }
http {
	access_log off;
	sendfile on;
	keepalive_requests 100000;
	client_body_temp_path $D/ngx; proxy_temp_path $D/ngx; fastcgi_temp_path $D/ngx; uwsgi_temp_path $D/ngx; scgi_temp_path $D/ngx;
	server { listen 127.0.0.1:$ORIGIN; root $D/www; }
}
EOF
nginx -c "$D/nginx.conf"
cat > "$D/tiny.conf" <<EOF
Port $TINY
Listen 127.0.0.1
Timeout 600
MaxClients 200
LogLevel Critical
ConnectPort $ORIGIN
EOF
tinyproxy -d -c "$D/tiny.conf" >/dev/null 2>&1 &
PIDS+=($!)
TINY_PID=$!
"$VXP" --listen-tcp "$VX" --allow 127.0.0.1 >/dev/null &
PIDS+=($!)
VX_PID=$!
sleep 0.5

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
rss() { awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }

# dl PROXYARGS...: MB/s of the 100 MB file (10^6 bytes/s)
dl() {
	for _ in $(seq "$ROUNDS"); do
		curl -s -o /dev/null -w '%{speed_download}\n' "$@" "http://127.0.0.1:$ORIGIN/big.bin"
	done | median | awk '{printf "%.0f", $1/1e6}'
}
# rate C PROXYARGS...: requests/s of the tiny file
rate() {
	local c=$1
	shift
	for _ in $(seq "$ROUNDS"); do
		ab -q -n 3000 -c "$c" "$@" "http://127.0.0.1:$ORIGIN/tiny.txt" 2>/dev/null |
			awk '/Requests per second/ {print $4}'
	done | median | awk '{printf "%.0f", $1}'
}

echo "| path | 100 MB absolute URI | 100 MB CONNECT | req/s c=1 | req/s c=50 | RSS after |"
echo "|---|---|---|---|---|---|"
echo "| direct | $(dl) MB/s | | $(rate 1) | $(rate 50) | |"
for p in tinyproxy vx-proxy; do
	if [ "$p" = tinyproxy ]; then port=$TINY pid=$TINY_PID; else port=$VX pid=$VX_PID; fi
	abs=$(dl -x "http://127.0.0.1:$port")
	con=$(dl -p -x "http://127.0.0.1:$port")
	r1=$(rate 1 -X "127.0.0.1:$port")
	r50=$(rate 50 -X "127.0.0.1:$port")
	echo "| $p | $abs MB/s | $con MB/s | $r1 | $r50 | $(rss "$pid") MB |"
done

# Through the bridge (R-31's real path): curl inside vx-sandbox reaches its
# in-sandbox HTTP port, the bridge relays to a vx-proxy unix socket (the
# task socket vx run would make), vx-proxy to the origin. The same vx-proxy
# program on --listen-tcp is the "vx-proxy direct" row above.
VXS=${VX_SANDBOX:-$(dirname "$VXP")/vx-sandbox}
"$VXP" --listen-unix "$D/task.sock" --allow 127.0.0.1 >/dev/null &
PIDS+=($!)
sleep 0.3
mkdir -p "$D/proj"
# inbox CMD: run CMD under sh -c inside vx-sandbox with the bridge
inbox() {
	(cd "$D/proj" && "$VXS" --proxy-socket "$D/task.sock" -- /bin/sh -c "$1")
}
# lat N PROXY: per-request latency (a new connection each) over N requests,
# "p50 p99" in microseconds
# (PROXY "-" is no proxy)
lat_cmd() {
	local n=$1 proxy=$2 url="http://127.0.0.1:$ORIGIN/tiny.txt" popt
	if [ "$proxy" = - ]; then popt='--noproxy "*"'; else popt="--noproxy '' -x $proxy"; fi
	# -o applies to one URL each: one per URL, or the bodies join the times
	printf 'curl -s %s -H "Connection: close" -w "%%{time_total}\\n" %s' \
		"$popt" "$(yes -- "-o /dev/null $url" | head -n "$n" | tr '\n' ' ')"
}
pct() { sort -n | awk '{a[NR]=$1} END {printf "%.0f %.0f\n", a[int(NR*0.5)]*1e6, a[int(NR*0.99)]*1e6}'; }
bdl() {
	for _ in $(seq "$ROUNDS"); do
		inbox "curl -sS --noproxy '' -o /dev/null -w '%{speed_download}\n' $1 -x \"\$HTTP_PROXY\" http://127.0.0.1:$ORIGIN/big.bin"
	done | median | awk '{printf "%.0f", $1/1e6}'
}
echo
echo "| path | 100 MB absolute URI | 100 MB CONNECT | latency p50 | latency p99 |"
echo "|---|---|---|---|---|"
read -r d50 d99 < <(sh -c "$(lat_cmd 1000 -)" | pct)
read -r v50 v99 < <(sh -c "$(lat_cmd 1000 "http://127.0.0.1:$VX")" | pct)
read -r t50 t99 < <(sh -c "$(lat_cmd 1000 "http://127.0.0.1:$TINY")" | pct)
# shellcheck disable=SC2016  # $HTTP_PROXY is the sandbox's, expanded there
read -r b50 b99 < <(inbox "$(lat_cmd 1000 '"$HTTP_PROXY"')" | pct)
echo "| direct | $(dl) MB/s | | $d50 us | $d99 us |"
echo "| tinyproxy | $(dl -x "http://127.0.0.1:$TINY") MB/s | $(dl -p -x "http://127.0.0.1:$TINY") MB/s | $t50 us | $t99 us |"
echo "| vx-proxy direct (TCP) | $(dl -x "http://127.0.0.1:$VX") MB/s | $(dl -p -x "http://127.0.0.1:$VX") MB/s | $v50 us | $v99 us |"
echo "| vx-sandbox bridge + vx-proxy (unix) | $(bdl "") MB/s | $(bdl -p) MB/s | $b50 us | $b99 us |"
