#!/usr/bin/env bash
# bench/proxy.sh [ROUNDS]: vx-proxy against tinyproxy and srt's proxy, side
# by side in one run, on loopback with an nginx origin (issue 6 item 5).
#
#   apt-get install -y tinyproxy nginx-light apache2-utils nodejs npm   # benchmark-only tools
#
# srt (npm @anthropic-ai/sandbox-runtime) is taken from $SRT_DIR (default
# /var/tmp/srt-peer; `npm i --prefix DIR @anthropic-ai/sandbox-runtime` puts
# it there, and the script does so itself when it is missing). Its proxy
# runs standalone through its library (SandboxManager.initialize with
# 127.0.0.1 allowed); a few lines of node print the port and the token its
# proxy asks for (Basic auth, user "srt"). One port serves HTTP and SOCKS5.
#
# Per path, in each of ROUNDS rounds (default 5), the paths interleaved so
# that a burst of load from elsewhere hits every path alike: a 100 MB
# download over an absolute URI, over CONNECT and over SOCKS5 (curl);
# small-request rate at concurrency 1 and 50 (ab -n 3000, absolute URI, a
# new connection per request); latency of 300 requests, a new connection
# each (curl's time_total, pooled over the rounds for p50/p99); and each
# proxy's CPU time (user+system from /proc, workers included) over the c=50
# run and over the c=1 run, per request: on a shared machine the figure
# that load moves least; and each round's own vx-proxy/tinyproxy ratio of
# request rates, whose median a burst of load in one round moves less.
# Then each proxy's RSS after all that. Prints medians, the ratios the issue's
# targets name, and the load average before and after.
#
# vx-proxy listens on 127.0.0.1 (--listen-tcp) because curl and ab speak to
# proxies over TCP only; the relay is the one a task's unix socket gets.
# The "bridge" row is the path a sandboxed task really takes: curl (and ab)
# inside vx-sandbox --proxy-socket, to the bridge's in-sandbox port, over a
# unix socket to vx-proxy, to the origin.
#
# VX_PROXY_BEFORE=/path/to/old/vx-proxy (and VX_SANDBOX_BEFORE for the
# bridge) add "before" rows measured in the same rounds: before/after in one run.
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
VXP=${VX_PROXY:-$PWD/bin/vx-proxy}
VXS=${VX_SANDBOX:-$(dirname "$VXP")/vx-sandbox}
VXP0=${VX_PROXY_BEFORE:-}
VXS0=${VX_SANDBOX_BEFORE:-}
SRT_DIR=${SRT_DIR:-/var/tmp/srt-peer}
for t in tinyproxy nginx ab curl node; do
	command -v "$t" >/dev/null || { echo "bench/proxy.sh: needs $t (apt-get install -y tinyproxy nginx-light apache2-utils nodejs npm)" >&2; exit 2; }
done
SRT_MOD=$SRT_DIR/node_modules/@anthropic-ai/sandbox-runtime
if [ ! -f "$SRT_MOD/package.json" ]; then
	echo "bench/proxy.sh: installing srt into $SRT_DIR" >&2
	npm i --silent --prefix "$SRT_DIR" @anthropic-ai/sandbox-runtime >&2
fi
D=$(mktemp -d /tmp/vx-bench-proxy.XXXXXX)
ORIGIN=18080 TINY=18888 VX=18889 VX0=18890
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
mkdir -p "$D/www" "$D/ngx" "$D/res" "$D/proj"
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
"$VXP" --listen-unix "$D/task.sock" --allow 127.0.0.1 >/dev/null &
PIDS+=($!)
if [ -n "$VXP0" ]; then
	"$VXP0" --listen-tcp "$VX0" --allow 127.0.0.1 >/dev/null &
	PIDS+=($!)
	VX0_PID=$!
	"$VXP0" --listen-unix "$D/task0.sock" --allow 127.0.0.1 >/dev/null &
	PIDS+=($!)
fi
cat > "$D/srt.mjs" <<'EOF'
const { SandboxManager } = await import(process.argv[2] + '/dist/index.js');
await SandboxManager.initialize({
	network: { allowedDomains: ['127.0.0.1'], deniedDomains: [] },
	filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
});
await SandboxManager.waitForNetworkInitialization();
console.log(SandboxManager.getProxyPort(), SandboxManager.getSocksProxyPort(),
	SandboxManager.getProxyAuthToken() ?? '');
EOF
node "$D/srt.mjs" "$SRT_MOD" > "$D/srt.port" 2>"$D/srt.err" &
PIDS+=($!)
SRT_PID=$!
for _ in $(seq 100); do [ -s "$D/srt.port" ] && break; sleep 0.1; done
read -r SRT SRT_SOCKS SRT_TOKEN < "$D/srt.port" || { echo "bench/proxy.sh: srt's proxy did not start: $(cat "$D/srt.err")" >&2; exit 1; }
SRT_AUTH=srt:$SRT_TOKEN
sleep 0.5

O=http://127.0.0.1:$ORIGIN
median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }
rss() { awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }
# ticks PID: CPU time (user+system, clock ticks) of PID and its child
# processes (tinyproxy's workers), threads included
HZ=$(getconf CLK_TCK)
ticks() {
	local t=0 c
	[ -n "$1" ] || { echo 0; return; }
	for c in "$1" $(pgrep -P "$1"); do
		t=$((t + $(awk '{print $14 + $15}' "/proc/$c/stat" 2>/dev/null || echo 0)))
	done
	echo "$t"
}
# note KEY VALUE: one sample of KEY (a path.metric)
note() { echo "${2:-0}" >> "$D/res/$1"; }
get() { [ -f "$D/res/$1" ] && median < "$D/res/$1" || echo -; }

# inbox SANDBOX SOCKET CMD: run CMD under sh -c inside that vx-sandbox with
# the bridge to that vx-proxy socket
inbox() {
	(cd "$D/proj" && "$1" --proxy-socket "$2" -- /bin/sh -c "$3")
}
# dl PROXYURL [CURLARGS...]: MB/s of the 100 MB file (10^6 bytes/s); "-"
# is no proxy; a short or failed download counts as 0
dl_cmd() {
	local px=$1
	shift
	if [ "$px" = - ]; then px="--noproxy '*'"; else px="--noproxy '' -x $px"; fi
	printf "curl -s %s %s -o /dev/null -w '%%{size_download} %%{speed_download}\\\\n' $O/big.bin" "$px" "$*"
}
speed() { awk '{printf "%.0f\n", ($1 == 100000000 ? $2 / 1e6 : 0)}'; }
# rate C PROXY AUTH: requests/s of the tiny file ("-": no proxy or no auth)
rate_cmd() {
	local a=""
	[ "$2" = - ] || a="-X $2"
	[ "$3" = - ] || a="$a -P $3"
	# shellcheck disable=SC2028  # the \\n is awk's
	echo "ab -q -n 3000 -c $1 $a $O/tiny.txt 2>&1 | awk '/Requests per second/ {printf \"%.0f\\n\", \$4} /Failed requests: +[1-9]/ {print \"failed\" > \"/dev/stderr\"}'"
}
# lat N PROXYURL: per-request times (a new connection each) in us
lat_cmd() {
	local n=$1 px=$2 url="$O/tiny.txt"
	if [ "$px" = - ]; then px='--noproxy "*"'; else px="--noproxy '' -x $px"; fi
	# -o applies to one URL each: one per URL, or the bodies join the times;
	# a non-200 answer prints no time (and would shrink the sample)
	# shellcheck disable=SC2016  # awk's fields
	printf 'curl -s %s -H "Connection: close" -w "%%{http_code} %%{time_total}\\n" %s | awk '"'"'$1 == 200 {printf "%%.0f\\n", $2 * 1e6}'"'" \
		"$px" "$(yes -- "-o /dev/null $url" | head -n "$n" | tr '\n' ' ')"
}

# The paths: name, HTTP proxy URL, SOCKS5 URL, ab's -X, ab's -P, runner
# ("" on the host, else "SANDBOX SOCKET" for inside one)
PATHS=(direct tinyproxy srt vx-proxy bridge)
declare -A HP SP AX AP RUN PID
HP[direct]=- SP[direct]=- AX[direct]=- AP[direct]=- RUN[direct]=""
HP[tinyproxy]=http://127.0.0.1:$TINY SP[tinyproxy]=- AX[tinyproxy]=127.0.0.1:$TINY AP[tinyproxy]=- RUN[tinyproxy]=""
HP[srt]=http://$SRT_AUTH@127.0.0.1:$SRT SP[srt]=socks5h://$SRT_AUTH@127.0.0.1:$SRT_SOCKS AX[srt]=127.0.0.1:$SRT AP[srt]=$SRT_AUTH RUN[srt]=""
HP[vx-proxy]=http://127.0.0.1:$VX SP[vx-proxy]=socks5h://127.0.0.1:$VX AX[vx-proxy]=127.0.0.1:$VX AP[vx-proxy]=- RUN[vx-proxy]=""
# shellcheck disable=SC2016  # the sandbox's variables, expanded there
HP[bridge]='"$HTTP_PROXY"' SP[bridge]='"$ALL_PROXY"' AX[bridge]='"${HTTP_PROXY#http://}"' AP[bridge]=- RUN[bridge]="$VXS $D/task.sock"
PID[tinyproxy]=$TINY_PID PID[srt]=$SRT_PID PID[vx-proxy]=$VX_PID
if [ -n "$VXP0" ]; then
	PATHS=(direct tinyproxy srt vx-proxy-before vx-proxy bridge)
	HP[vx-proxy-before]=http://127.0.0.1:$VX0 SP[vx-proxy-before]=socks5h://127.0.0.1:$VX0 AX[vx-proxy-before]=127.0.0.1:$VX0 AP[vx-proxy-before]=- RUN[vx-proxy-before]=""
	PID[vx-proxy-before]=$VX0_PID
	if [ -n "$VXS0" ]; then
		PATHS+=(bridge-before)
		HP[bridge-before]=${HP[bridge]} SP[bridge-before]=${SP[bridge]} AX[bridge-before]=${AX[bridge]} AP[bridge-before]=- RUN[bridge-before]="$VXS0 $D/task0.sock"
	fi
fi
# on PATH CMD: run the shell command CMD for that path
on() {
	if [ -z "${RUN[$1]}" ]; then
		sh -c "$2"
	else
		# shellcheck disable=SC2086  # "SANDBOX SOCKET"
		inbox ${RUN[$1]} "$2"
	fi
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
START=$(date -u +%H:%M)
for r in $(seq "$ROUNDS"); do
	echo "bench/proxy.sh: round $r of $ROUNDS (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
	for p in "${PATHS[@]}"; do
		note "$p.abs" "$(on "$p" "$(dl_cmd "${HP[$p]}")" | speed)"
		if [ "$p" != direct ]; then
			note "$p.con" "$(on "$p" "$(dl_cmd "${HP[$p]}" -p)" | speed)"
		fi
		if [ "${SP[$p]}" != - ]; then
			note "$p.socks" "$(on "$p" "$(dl_cmd "${SP[$p]}")" | speed)"
		fi
		t0=$(ticks "${PID[$p]:-}")
		note "$p.r1" "$(on "$p" "$(rate_cmd 1 "${AX[$p]}" "${AP[$p]}")")"
		if [ -n "${PID[$p]:-}" ]; then
			note "$p.cpu1" "$(( ($(ticks "${PID[$p]}") - t0) * 1000000 / HZ / 3000 ))"
		fi
		t0=$(ticks "${PID[$p]:-}")
		note "$p.r50" "$(on "$p" "$(rate_cmd 50 "${AX[$p]}" "${AP[$p]}")")"
		if [ -n "${PID[$p]:-}" ]; then
			note "$p.cpu" "$(( ($(ticks "${PID[$p]}") - t0) * 1000000 / HZ / 3000 ))"
		fi
		on "$p" "$(lat_cmd 300 "${HP[$p]}")" >> "$D/res/$p.lat"
	done
	# this round's own ratios: a burst of load that hits one round hits
	# both proxies of it alike
	for m in r1 r50; do
		a=$(tail -n 1 "$D/res/vx-proxy.$m") b=$(tail -n 1 "$D/res/tinyproxy.$m")
		note "pair.$m" "$(awk -v a="$a" -v b="$b" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%.3f", a/b; else print 0}')"
	done
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

pct() { sort -n "$D/res/$1.lat" | awk -v q="$2" '{a[NR]=$1} END {if (NR) print a[int((NR-1)*q)+1]; else print "-"}'; }
unit() { if [ "$1" = - ]; then echo -; else echo "$1 $2"; fi; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%.2fx", a/b; else print "-"}'; }
pctof() { awk -v a="$1" -v b="$2" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%.0f%%", 100*a/b; else print "-"}'; }
echo "bench/proxy.sh $ROUNDS: $START-$(date -u +%H:%M) UTC, load average $LOAD0 before, $LOAD1 after; medians of $ROUNDS rounds (latency: $((ROUNDS * 300)) requests pooled)"
echo
echo "| path | 100 MB absolute URI | 100 MB CONNECT | 100 MB SOCKS5 | req/s c=1 | req/s c=50 | proxy CPU per request, c=1 | proxy CPU per request, c=50 | latency p50 | latency p99 | RSS after |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for p in "${PATHS[@]}"; do
	m=""
	[ -n "${PID[$p]:-}" ] && m="$(rss "${PID[$p]}") MB"
	echo "| $p | $(unit "$(get "$p.abs")" MB/s) | $(unit "$(get "$p.con")" MB/s) | $(unit "$(get "$p.socks")" MB/s) | $(get "$p.r1") | $(get "$p.r50") | $(unit "$(get "$p.cpu1")" us) | $(unit "$(get "$p.cpu")" us) | $(unit "$(pct "$p" 0.5)" us) | $(unit "$(pct "$p" 0.99)" us) | $m |"
done
dabs=$(get direct.abs)
echo
echo "Targets (issue 6):"
echo "- tunnel throughput >= 70% of direct: vx-proxy absolute URI $(pctof "$(get vx-proxy.abs)" "$dabs"), CONNECT $(pctof "$(get vx-proxy.con)" "$dabs"), SOCKS5 $(pctof "$(get vx-proxy.socks)" "$dabs")"
echo "- request rate >= 2x tinyproxy: c=1 $(ratio "$(get vx-proxy.r1)" "$(get tinyproxy.r1)"), c=50 $(ratio "$(get vx-proxy.r50)" "$(get tinyproxy.r50)") (median of each round's own ratio: c=1 $(get pair.r1)x, c=50 $(get pair.r50)x); CPU per request (user+system, the load-proof figure), tinyproxy/vx-proxy: c=1 $(ratio "$(get tinyproxy.cpu1)" "$(get vx-proxy.cpu1)"), c=50 $(ratio "$(get tinyproxy.cpu)" "$(get vx-proxy.cpu)")"
echo "- RSS < 5 MB: vx-proxy $(rss "$VX_PID") MB (tinyproxy $(rss "$TINY_PID") MB, srt $(rss "$SRT_PID") MB)"
echo "- through the bridge >= 50% of direct: absolute URI $(pctof "$(get bridge.abs)" "$dabs"), CONNECT $(pctof "$(get bridge.con)" "$dabs"), SOCKS5 $(pctof "$(get bridge.socks)" "$dabs")"
echo "- against srt: download $(ratio "$(get vx-proxy.abs)" "$(get srt.abs)") / $(ratio "$(get vx-proxy.con)" "$(get srt.con)") / $(ratio "$(get vx-proxy.socks)" "$(get srt.socks)") (absolute URI / CONNECT / SOCKS5), requests $(ratio "$(get vx-proxy.r1)" "$(get srt.r1)") at c=1 and $(ratio "$(get vx-proxy.r50)" "$(get srt.r50)") at c=50"
if [ -n "$VXP0" ]; then
	echo "- after / before: requests $(ratio "$(get vx-proxy.r1)" "$(get vx-proxy-before.r1)") at c=1 (CPU per request before/after $(ratio "$(get vx-proxy-before.cpu1)" "$(get vx-proxy.cpu1)")), $(ratio "$(get vx-proxy.r50)" "$(get vx-proxy-before.r50)") at c=50; CPU per request at c=50 before/after $(ratio "$(get vx-proxy-before.cpu)" "$(get vx-proxy.cpu)"); CONNECT $(ratio "$(get vx-proxy.con)" "$(get vx-proxy-before.con)")${VXS0:+; bridge CONNECT $(ratio "$(get bridge.con)" "$(get bridge-before.con)")}"
fi
