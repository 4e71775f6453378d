#!/usr/bin/env bats
# vx run's network boundary (R-31, R-32, R-34, R-35): sandboxed tasks reach
# an origin through vx-sandbox's bridge and the run's vx-proxy, each only the
# hosts its own grant names, and every refusal fails its task.
#
# The origin runs in a network namespace of the suite's own, joined by a veth
# pair with test-only addresses (10.214.N.0/30); the test names reach it
# through vx-proxy's hosts-file override (VX_PROXY_HOSTS, passed down by vx
# run), so /etc/hosts is never touched. Needs root (ip netns), as in CI. With
# VX_NET_USER set (tests/vx-net-rootless.bats), every vx run of the suite runs
# as that unprivileged user instead.
# bats file_tags=net
# shellcheck disable=SC2016  # task commands inside JSON expand in the task

load helpers

setup_file() {
	if [ "$(id -u)" != 0 ]; then
		return 0
	fi
	N=$(($$ % 200 + 20))
	NS=vxn-$$
	VH=vxnh$$
	ORIGIN=10.214.$N.2
	export N NS VH ORIGIN
	ip netns add "$NS"
	ip link add "$VH" type veth peer name "vxnn$$"
	ip link set "vxnn$$" netns "$NS"
	ip addr add "10.214.$N.1/30" dev "$VH"
	ip link set "$VH" up
	ip -n "$NS" addr add "$ORIGIN/30" dev "vxnn$$"
	ip -n "$NS" link set "vxnn$$" up
	ip -n "$NS" link set lo up
	NETDIR=$(mktemp -d /tmp/vxnet-suite.XXXXXX)
	chmod 755 "$NETDIR"
	export NETDIR
	ip netns exec "$NS" /usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/vx-proxy/origin.py" \
		"$NETDIR/origin.log" "$NETDIR/ready" "$ORIGIN:8080" "$ORIGIN:9000" >/dev/null 2>&1 3>&- &
	echo $! > "$NETDIR/origin.pid"
	# a server on the host's own (veth) address, as one on 0.0.0.0 would be
	: > "$NETDIR/own.log"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/fixtures/vx-proxy/origin.py" \
		"$NETDIR/own.log" "$NETDIR/oready" "10.214.$N.1:0" >/dev/null 2>&1 3>&- &
	echo $! > "$NETDIR/oorigin.pid"
	for _ in $(seq 100); do
		[ -e "$NETDIR/ready" ] && [ -e "$NETDIR/oready" ] && break
		sleep 0.05
	done
	OPORT=$(sed 's/.*://' "$NETDIR/oready")
	export OPORT
	HOSTS=$NETDIR/hosts
	printf '%s\n' "$ORIGIN origin.test other.test" "10.214.$N.1 own.test" > "$HOSTS"
	chmod 644 "$HOSTS"
	export HOSTS
	if [ -n "${VX_NET_USER:-}" ]; then
		# the programs where the user can run them, wherever the tree is
		mkdir "$NETDIR/bin"
		cp "$VX_BIN_DIR"/vx* "$NETDIR/bin/"
		chmod -R a+rX "$NETDIR/bin"
	fi
}

teardown_file() {
	if [ -n "${NETDIR:-}" ]; then
		kill "$(cat "$NETDIR/origin.pid")" "$(cat "$NETDIR/oorigin.pid")" 2>/dev/null || true
		rm -rf "$NETDIR"
	fi
	ip netns del "$NS" 2>/dev/null || true
	ip link del "$VH" 2>/dev/null || true
}

setup() {
	if [ "$(id -u)" != 0 ]; then
		skip 'needs root for the network namespace of the origin (ip netns)'
	fi
	BASE=$(mktemp -d /tmp/vxnet-ws.XXXXXX)
	chmod 755 "$BASE"
	new_ws "$BASE/ws"
	cd "$WS" || return 1
}

teardown() {
	if [ -n "${BASE:-}" ]; then
		rm -rf "$BASE"
	fi
}

# vxr ARGS...: vx, as root or as $VX_NET_USER, with the test hosts file
# (VXR_BIN: the directory of the programs, when not the suite's).
vxr() {
	if [ -n "${VX_NET_USER:-}" ]; then
		chown -R "$VX_NET_USER" "$BASE"
		runuser -u "$VX_NET_USER" -- env -i PATH="${VXR_BIN:-$NETDIR/bin}:/usr/local/bin:/usr/bin:/bin" \
			HOME="$BASE" VX_CACHE_DIR="$BASE/cache" VX_PROXY_HOSTS="$HOSTS" \
			ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" vx "$@"
	else
		PATH="${VXR_BIN:+$VXR_BIN:}$PATH" VX_CACHE_DIR="$BASE/cache" VX_PROXY_HOSTS="$HOSTS" vx "$@"
	fi
}

# task PROJECT NAME SANDBOX_JSON COMMAND [EXTRA_JSON]: a project with one
# sandboxed task (its sandbox object as given), the command run in it.
task() {
	local cmd
	cmd=$(/usr/bin/python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$4")
	pkg "packages/$1" "$1" '' "{ \"tasks\": { \"$2\": { \"exec\": { \"command\": $cmd, \"sandbox\": $3 }${5:+, $5} } } }"
}

# curl as a task runs it: quiet, short, the body or the error on stdout.
GET='get() { curl -sS --max-time 10 "$@" 2>&1 || true; echo; }
'

@test "an allowed host over HTTP, CONNECT and SOCKS5 from a sandboxed task; the proxy variables" {
	task a fetch '{ "allow": { "network": ["origin.test"] } }' "$GET"'
		env | grep -i _proxy= | sort
		get http://origin.test:8080/plain
		get -p http://origin.test:8080/tunnel
		get --proxy "$ALL_PROXY" http://origin.test:8080/socks'
	run -0 vxr run a#fetch
	assert_line --regexp '^a#fetch: HTTP_PROXY=http://127\.0\.0\.1:[0-9]+$'
	assert_line --regexp '^a#fetch: https_proxy=http://127\.0\.0\.1:[0-9]+$'
	assert_line --regexp '^a#fetch: ALL_PROXY=socks5h://127\.0\.0\.1:[0-9]+$'
	assert_line --regexp '^a#fetch: all_proxy=socks5h://127\.0\.0\.1:[0-9]+$'
	assert_line 'a#fetch: NO_PROXY=localhost,127.0.0.1,::1'
	assert_line 'a#fetch: no_proxy=localhost,127.0.0.1,::1'
	assert_line 'a#fetch: NODE_USE_ENV_PROXY=1'
	assert_line --partial 'a#fetch: origin 8080 GET /plain host=origin.test'
	assert_line --partial 'a#fetch: origin 8080 GET /tunnel host=origin.test'
	assert_line --partial 'a#fetch: origin 8080 GET /socks host=origin.test'
	assert_line --regexp '^miss a#fetch '
	refute_output --partial 'SANDBOX VIOLATIONS'
}

@test "a denied host fails the task with its violation line, even though the command exited 0, and it is never cached" {
	task a fetch '{ "allow": { "network": ["origin.test"] } }' "$GET"'
		get http://other.test:8080/nope
		get http://origin.test:8080/fine' '"cache": { "inputs": { "files": [] } }'
	run -1 vxr run a#fetch
	assert_line --partial 'a#fetch: origin 8080 GET /fine'
	assert_line --regexp '^fail a#fetch .*\(exit 0\)$'
	assert_line 'SANDBOX VIOLATIONS a#fetch'
	assert_line '  deny network-outbound other.test:8080 (not in allow.network)'
	# nothing reached the origin for the denied name
	run grep -c 'GET /nope' "$NETDIR/origin.log"
	assert_output 0
	# not cached: the next run runs it again, and fails again
	run -1 vxr run a#fetch --json
	assert_output --partial '"violations":["deny network-outbound other.test:8080 (not in allow.network)"]'
	refute_output --partial '"status":"hit"'
}

@test "deny.network wins over allow; case and trailing-dot spellings; port entries" {
	task a fetch '{ "allow": { "network": ["Origin.Test.", "other.test:9000"] }, "deny": { "network": ["origin.test:9000"] } }' "$GET"'
		get http://ORIGIN.test.:8080/upper
		get http://origin.test:9000/denied
		get http://other.test:9000/port-ok
		get http://other.test:8080/port-no'
	run -1 vxr run a#fetch
	assert_line --partial 'a#fetch: origin 8080 GET /upper'
	assert_line --partial 'a#fetch: origin 9000 GET /port-ok host=other.test'
	assert_line "  deny network-outbound origin.test:9000 (deny.network 'origin.test:9000')"
	assert_line '  deny network-outbound other.test:8080 (not in allow.network)'
	refute_output --partial 'GET /denied'
	refute_output --partial 'GET /port-no'
}

@test "a task without a grant reaches nothing, and each attempt is reported by host:port and fails it; network: true is the run's union" {
	task a fetch '{ "allow": { "network": ["origin.test"] } }' "$GET"'get http://origin.test:8080/a'
	task b bare '{ "allow": { "read": ["."] } }' "$GET"'
		env | grep -c -i '^[a-z]*_proxy='
		echo "NODE_USE_ENV_PROXY=$NODE_USE_ENV_PROXY"
		get --noproxy "" -x http://127.0.0.1:3128 http://origin.test:8080/b1
		get http://'"$ORIGIN"':8080/b2
		get -p http://origin.test:8443/b3
		get --proxy "$ALL_PROXY" http://other.test:9000/b4'
	task c all '{ "allow": { "network": true } }' "$GET"'
		get http://origin.test:8080/c1
		get http://other.test:8080/c2'
	run -1 vxr run a#fetch b#bare c#all
	assert_line --partial 'a#fetch: origin 8080 GET /a'
	assert_line 'b#bare: 8'
	assert_line 'b#bare: NODE_USE_ENV_PROXY=1'
	refute_line --partial 'b#bare: origin'
	assert_line --regexp '^fail b#bare .*\(exit 0\)$'
	assert_line 'SANDBOX VIOLATIONS b#bare'
	assert_line "  deny network-outbound $ORIGIN:8080 (no network grant)"
	assert_line '  deny network-outbound origin.test:8443 (no network grant)'
	assert_line '  deny network-outbound other.test:9000 (no network grant)'
	assert_line --partial 'c#all: origin 8080 GET /c1'
	assert_line 'SANDBOX VIOLATIONS c#all'
	assert_line '  deny network-outbound other.test:8080 (not in allow.network)'
	refute_output --partial 'SANDBOX VIOLATIONS a#fetch'
	refute_output --partial 'GET /b'
}

@test "attack: an allowed name rebound to the host's own address is refused and reported" {
	task a rebind '{ "allow": { "network": ["own.test"] } }' "$GET"'get http://own.test:'"$OPORT"'/rebound'
	run -1 vxr run a#rebind
	assert_line 'SANDBOX VIOLATIONS a#rebind'
	assert_line "  deny network-outbound own.test:$OPORT (resolves to this host's address 10.214.$N.1)"
	run -1 grep -c /rebound "$NETDIR/own.log"
}

@test "ignore.network silences a deny: the task passes; without it the same task fails" {
	task a quiet '{ "allow": { "network": ["origin.test"] }, "ignore": { "network": ["Other.Test:8080"] } }' \
		"$GET"'get http://other.test:8080/ignored'
	task b loud '{ "allow": { "network": ["origin.test"] } }' "$GET"'get http://other.test:8080/ignored'
	run -1 vxr run a#quiet b#loud
	assert_line --regexp '^miss a#quiet '
	refute_output --partial 'SANDBOX VIOLATIONS a#quiet'
	assert_line --regexp '^fail b#loud '
	assert_line 'SANDBOX VIOLATIONS b#loud'
	refute_output --partial 'GET /ignored'
}

@test "a request the task sends without waiting for the answer is still judged before the task is" {
	task a hit '{ "allow": { "network": ["origin.test"] } }' \
		'bash -c '\''exec 3<>/dev/tcp/127.0.0.1/${HTTP_PROXY##*:}; printf "GET http://other.test:8080/fire HTTP/1.1\r\nHost: other.test:8080\r\n\r\n" >&3'\'''
	run -1 vxr run a#hit
	assert_line 'SANDBOX VIOLATIONS a#hit'
	assert_line '  deny network-outbound other.test:8080 (not in allow.network)'
}

@test "NO_PROXY keeps the task's own loopback server direct" {
	task a serve '{ "allow": { "network": ["origin.test"], "read": ["."] } }' '
		/usr/bin/python3 -m http.server 8765 --bind 127.0.0.1 >/dev/null 2>&1 &
		for i in $(seq 100); do curl -s http://localhost:8765/ >/dev/null && break; sleep 0.05; done
		curl -sS http://localhost:8765/ | grep -q "Directory listing" && echo "listing from localhost"
		curl -sS http://127.0.0.1:8765/ | grep -q "Directory listing" && echo "listing from 127.0.0.1"
		kill $!'
	run -0 vxr run a#serve
	assert_line 'a#serve: listing from localhost'
	assert_line 'a#serve: listing from 127.0.0.1'
	refute_output --partial 'SANDBOX VIOLATIONS'
}

@test "R-35: a run with no sandboxed task starts no vx-proxy; a sandboxed task, granted or not, gets one" {
	# an unsandboxed task lists vx's children after another task ran
	task a fetch '{ "allow": { "network": ["origin.test"] } }' 'true'
	task b bare '{ "allow": { "read": ["."] } }' 'true'
	pkg packages/c plain '' '{ "tasks": { "t": { "exec": { "command": "true" } } } }'
	pkg packages/look look '' '{ "tasks": {
		"afternet": { "exec": { "command": "ps -o comm= --ppid $PPID | sort -u | tr \"\\n\" \" \"" }, "dependsOn": ["a#fetch"] },
		"afterbare": { "exec": { "command": "ps -o comm= --ppid $PPID | sort -u | tr \"\\n\" \" \"" }, "dependsOn": ["b#bare"] },
		"afterplain": { "exec": { "command": "ps -o comm= --ppid $PPID | sort -u | tr \"\\n\" \" \"" }, "dependsOn": ["plain#t"] } } }'
	run -0 vxr run look#afternet
	assert_line --regexp '^look#afternet: .*vx-proxy'
	run -0 vxr run look#afterbare
	assert_line --regexp '^look#afterbare: .*vx-proxy'
	run -0 vxr run look#afterplain
	assert_line --regexp '^look#afterplain: '
	refute_output --partial 'vx-proxy'
}

@test "a vx-proxy stalled right after it says a task's socket listens still answers the task's end: the task passes" {
	# as on a loaded machine: vx-proxy writes the task's "listening" record
	# and is not scheduled again for 3 s (strace holds its first write, that
	# record, before it returns); vx starts the task on the record, and the
	# task is over well before then. Its control socket must be there
	# already: a vx-proxy that bound it after the record left vx-sandbox an
	# ENOENT, and the task failed, "vx-proxy did not confirm ..." (a run
	# under load, bench/pertask.sh)
	VXR_BIN=$BASE/bin
	mkdir "$VXR_BIN"
	cp "$VX_BIN_DIR"/vx* "$VXR_BIN/"
	mv "$VXR_BIN/vx-proxy" "$VXR_BIN/vx-proxy.real"
	printf '#!/bin/sh\nexec strace -o /dev/null -e trace=write -e inject=write:delay_exit=3000000:when=1 "$(dirname "$0")/vx-proxy.real" "$@"\n' \
		> "$VXR_BIN/vx-proxy"
	chmod -R a+rX "$VXR_BIN"
	chmod a+x "$VXR_BIN/vx-proxy"
	task a t '{ "allow": { "read": ["."] } }' 'echo ran'
	# ptrace stops the world of a sanitized build's leak check
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" run -0 vxr run a#t
	assert_line 'a#t: ran'
	assert_line --regexp '^miss a#t '
	refute_output --partial 'did not confirm'
}

@test "localBinding: the task's loopback port is reachable from the host's while it runs" {
	local port=$((20000 + RANDOM % 20000))
	pkg packages/a a '' '{ "tasks": { "serve": { "exec": { "command": "exec /usr/bin/python3 -m http.server '"$port"' --bind 127.0.0.1",
		"persistent": true, "sandbox": { "allow": { "localBinding": ['"$port"'], "read": ["."] } } } } } }'
	pkg packages/probe probe '' '{ "tasks": { "get": { "exec": { "command": "for i in $(seq 100); do curl -sf http://127.0.0.1:'"$port"'/ && exit 0; sleep 0.05; done; exit 1" }, "dependsOn": ["a#serve"] } } }'
	run -0 vxr run probe#get
	assert_output --partial 'probe#get: <title>Directory listing'
	# nothing listens on the host's port once the run is over (a second run
	# binds it again, TIME_WAIT or not)
	run -7 curl -s http://127.0.0.1:"$port"/
	run -0 vxr run probe#get
	assert_output --partial 'probe#get: <title>Directory listing'
}

@test "bulk bytes through the bridge: downloads over HTTP, CONNECT and SOCKS5 and an upload arrive whole; a localBinding download byte for byte" {
	# the bridge's relay grows its pipes and keeps readiness per socket
	# (edge-triggered): nothing may be lost or reordered on the way
	task a fetch '{ "allow": { "network": ["origin.test"] } }' '
		u=http://origin.test:8080/big20000000
		echo "abs $(curl -sS -o /dev/null -w "%{size_download}" $u)"
		echo "con $(curl -sS -p -o /dev/null -w "%{size_download}" $u)"
		echo "socks $(curl -sS --proxy "$ALL_PROXY" -o /dev/null -w "%{size_download}" $u)"
		head -c 20000000 /dev/zero | curl -sS --data-binary @- http://origin.test:8080/up'
	run -0 vxr run a#fetch
	assert_line 'a#fetch: abs 20000000'
	assert_line 'a#fetch: con 20000000'
	assert_line 'a#fetch: socks 20000000'
	assert_line 'a#fetch: origin 8080 POST /up host=origin.test:8080 body=20000000'
	local port=$((20000 + RANDOM % 20000))
	mkdir -p packages/b
	head -c 20000000 /dev/urandom > packages/b/big.bin
	pkg packages/b b '' '{ "tasks": { "serve": { "exec": { "command": "exec /usr/bin/python3 -m http.server '"$port"' --bind 127.0.0.1",
		"persistent": true, "sandbox": { "allow": { "localBinding": ['"$port"'], "read": ["."] } } } } } }'
	pkg packages/probe probe '' '{ "tasks": { "get": { "exec": { "command": "for i in $(seq 100); do curl -sf -o '"$BASE"'/got.bin http://127.0.0.1:'"$port"'/big.bin && exit 0; sleep 0.05; done; exit 1" }, "dependsOn": ["b#serve"] } } }'
	run -0 vxr run probe#get
	cmp packages/b/big.bin "$BASE/got.bin"
}

@test "localBinding: a port already taken on the host fails the task with a line naming it; the task never runs" {
	# the holder takes a port the kernel knows is free and names it: a
	# random one may sit in TIME_WAIT, which the holder cannot bind and
	# vx-sandbox (SO_REUSEADDR) can, and the task would then run
	/usr/bin/python3 -c 'import os,socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); open(sys.argv[1] + ".tmp","w").write(str(s.getsockname()[1])); os.rename(sys.argv[1] + ".tmp", sys.argv[1]); time.sleep(60)' \
		"$BASE/taken" 3>&- &
	local holder=$!
	for _ in $(seq 100); do [ -e "$BASE/taken" ] && break; sleep 0.05; done
	local port
	port=$(cat "$BASE/taken")
	task a serve "{ \"allow\": { \"localBinding\": [$port] } }" 'echo TASK RAN'
	run -1 vxr run a#serve
	kill "$holder"
	assert_line --partial "vx-sandbox: allow.localBinding: port $port is already in use on the host's loopback"
	assert_line --regexp '^fail a#serve .*\(exit 125\)$'
	refute_output --partial 'TASK RAN'
}

@test "attack: the task can neither use the bridge's own sockets nor reach the host, though it may make a unix socket of its own" {
	task a probe '{ "allow": { "network": ["origin.test"] } }' '
		relay=$(for p in /proc/[0-9]*; do n=${p#/proc/}; [ "$n" != 1 ] && [ "$(cat "$p/comm")" = vx-sandbox ] && echo "$n"; done | head -n 1)
		echo "relay pid ${relay:-none}"
		for fd in "/proc/$relay"/fd/*; do readlink "$fd" && echo "RELAY FD LINK READ"; cat "$fd" </dev/null >/dev/null 2>&1 && echo "RELAY FD OPENED"; done
		echo "relay fds tried"
		ls "/proc/$relay/root/" >/dev/null 2>&1 && echo "RELAY ROOT OPEN" || echo "relay root refused"
		head -c1 "/proc/$relay/mem" >/dev/null 2>&1 && echo "RELAY MEM OPEN" || echo "relay mem refused"
		ls -d /tmp/vx-net-* 2>/dev/null || echo "no proxy socket dir in /tmp"
		/usr/bin/python3 -c "import socket; socket.socket(socket.AF_UNIX); print(\"own unix socket ok\")"
		/usr/bin/python3 -c "import socket; socket.socket(socket.AF_INET); print(\"inet socket ok\")"
		curl -sS --max-time 10 http://origin.test:8080/still'
	run -0 vxr run a#probe
	assert_line --regexp '^a#probe: relay pid [0-9]+$'
	assert_line 'a#probe: relay fds tried'
	refute_output --partial 'RELAY'
	assert_line 'a#probe: relay root refused'
	assert_line 'a#probe: relay mem refused'
	assert_line 'a#probe: no proxy socket dir in /tmp'
	assert_line 'a#probe: own unix socket ok'
	assert_line 'a#probe: inet socket ok'
	assert_line --partial 'a#probe: origin 8080 GET /still'
}

# fetch with Node's own fetch, which Node 20 sends around HTTP(S)_PROXY
NODEFETCH='node -e "fetch(\"https://example.com/\").then(r => console.log(\"status\", r.status), e => { console.log(\"fetch failed:\", e.cause && e.cause.code); process.exit(1) })"'

@test "a tool that ignores the proxy (Node 20's fetch) fails with one hint naming the name it looked up and the cause, granted or not" {
	if ! node --version 2>/dev/null | grep -q '^v20\.'; then
		skip 'needs Node 20, whose fetch ignores the proxy variables'
	fi
	task a bare '{ "allow": { "read": ["."] } }' "$NODEFETCH"
	task b granted '{ "allow": { "network": ["example.com"] } }' "$NODEFETCH"
	run -1 vxr run a#bare
	assert_line 'a#bare: fetch failed: EAI_AGAIN'
	assert_line 'SANDBOX VIOLATIONS a#bare'
	assert_line --partial "vx: a#bare looked up example.com itself (DNS), which a sandboxed task cannot do (the sandbox answers every lookup REFUSED): the tool ignores HTTP_PROXY/HTTPS_PROXY"
	assert_line --partial "so Node 20's fetch fails this way; fix: run it on Node >= 22.21, or give the tool its own proxy setting (\$HTTPS_PROXY); example.com is not in allow.network either: add ['example.com'] for the tool to pass through the proxy"
	run -1 vxr run b#granted
	assert_line 'b#granted: fetch failed: EAI_AGAIN'
	assert_line --partial "vx: b#granted looked up example.com itself (DNS)"
	assert_line --partial "; allow.network grants it, so through the proxy the tool would pass"
}

@test "a lookup is answered at once and named; resolv.conf is the sandbox's; curl through HTTPS_PROXY looks nothing up and gets no lookup hint" {
	task a look '{ "allow": { "read": ["."] } }' '
		grep -v "^#" /etc/resolv.conf
		getent hosts example.com || echo "getent exit $?"
		exit 1'
	task b proxied '{ "allow": { "read": ["."] } }' 'curl -sS --max-time 10 -o /dev/null https://example.com/'
	run -1 vxr run a#look
	assert_line 'a#look: nameserver 127.0.0.1'
	assert_line 'a#look: getent exit 2'
	assert_line --partial 'vx: a#look looked up example.com itself (DNS)'
	run -1 vxr run b#proxied
	assert_line '  deny network-outbound example.com:443 (no network grant)'
	refute_output --partial 'looked up'
	refute_output --partial 'getaddrinfo'
}

@test "a name the task looked up and then sent through the proxy gets no lookup hint; one it only looked up does" {
	task a both '{ "allow": { "network": ["origin.test"] } }' "$GET"'
		getent hosts origin.test || echo "getent exit $?"
		get http://origin.test:8080/plain
		get -p http://origin.test:8080/tunnel
		getent hosts other.test || echo "getent exit $?"
		exit 1'
	run -1 vxr run a#both
	assert_line 'a#both: getent exit 2'
	assert_line --partial 'a#both: origin 8080 GET /plain host=origin.test'
	assert_line --partial 'a#both: origin 8080 GET /tunnel host=origin.test'
	assert_line --partial 'vx: a#both looked up other.test itself (DNS)'
	refute_output --partial 'looked up origin.test'
}

# spy_report DIR: the programs in DIR/bin, where vx-report keeps its
# arguments (DIR/log/args.PID) and records (DIR/log/report.PID) as they pass
spy_report() {
	local tb=$1
	mkdir -p "$tb/bin" "$tb/log"
	chmod 777 "$tb/log"
	cp "$VX_BIN_DIR"/vx* "$tb/bin/"
	mv "$tb/bin/vx-report" "$tb/bin/vx-report.real"
	# vx run keeps one vx-report --each and waits for each verdict: the spy
	# leaves its stdin alone (vx run's socket, the tasks' streams attached)
	# and passes every line it writes on as it comes, keeping a copy
	printf '%s\n' '#!/bin/sh' "out=$tb/log/report.\$\$" 'echo "$@" > "${out%/*}/args.$$"' \
		"\"$tb/bin/vx-report.real\" \"\$@\" | tee \"\$out\"" > "$tb/bin/vx-report"
	chmod -R a+rX "$tb/bin"
	chmod a+x "$tb/bin/vx-report"
}

@test "vx-report judges the network too: the violation lines vx run prints are exactly vx-report's, file and network" {
	local tb="$NETDIR/tbin$BATS_TEST_NUMBER"
	spy_report "$tb"
	task a fetch '{ "allow": { "network": ["origin.test"] } }' "$GET"'
		get http://other.test:8080/nope
		echo x > stray.txt'
	NETDIR=$tb PATH="$tb/bin:$PATH" run -1 vxr run a#fetch
	assert_line 'SANDBOX VIOLATIONS a#fetch'
	assert_line '  deny network-outbound other.test:8080 (not in allow.network)'
	assert_line '  deny file-write packages/a/stray.txt (openat: EROFS)'
	local printed judged
	printed=$(printf '%s\n' "$output" | sed -n '/^SANDBOX VIOLATIONS a#fetch$/,/^[^ ]/{s/^  //p}')
	judged=$(cat "$tb"/log/report.* | /usr/bin/python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if "line" in r:
        print(r["line"])')
	assert_equal "$printed" "$judged"
	rm -rf "$tb"
}

@test "a persistent task, untraced, still has its denies judged by vx-report (vx-sandbox --untraced, no file) and fails on them" {
	pkg packages/a a '' '{ "tasks": { "serve": { "exec": { "command": "curl -sS --max-time 10 http://other.test:8080/nope; exit 0",
		"persistent": true, "sandbox": { "allow": { "network": ["origin.test"] } } } } } }'
	pkg packages/probe probe '' '{ "tasks": { "wait": { "exec": { "command": "sleep 3" }, "dependsOn": ["a#serve"] } } }'
	local tb="$NETDIR/tbin$BATS_TEST_NUMBER"
	spy_report "$tb"
	NETDIR=$tb PATH="$tb/bin:$PATH" run -1 vxr run probe#wait
	assert_line 'SANDBOX VIOLATIONS a#serve'
	assert_line '  deny network-outbound other.test:8080 (not in allow.network)'
	# the line is vx-report's, judged with no trace to read
	run -0 grep -h '"type":"verdict".*"id":"a#serve".*"trace":"off"' "$tb"/log/report.*
	run -0 grep -h 'deny network-outbound other.test:8080' "$tb"/log/report.*
	rm -rf "$tb"
}
