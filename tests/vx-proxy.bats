#!/usr/bin/env bats
# vx-proxy: per-task grants over HTTP, CONNECT and SOCKS5, and a hostile
# client against the proxy itself, each refusal with a positive control.
#
# The origin runs in a network namespace of the suite's own, joined to the
# host by a veth pair with test-only addresses (10.213.N.0/30); test names
# reach it through vx-proxy's hosts-file override, so /etc/hosts is never
# touched. A second origin listens on the host's loopback for the
# loopback-address cases. Needs root (ip netns), as in CI.
# bats file_tags=proxy
# Payloads are Python byte literals for client.py: backslashes on purpose.
# shellcheck disable=SC2016

load helpers

setup_file() {
	FIX=$BATS_TEST_DIRNAME/fixtures/vx-proxy
	N=$(($$ % 200 + 20))
	NS=vxp-$$
	VH=vxph$$
	ORIGIN=10.213.$N.2
	export FIX N NS VH ORIGIN
	ip netns add "$NS"
	ip link add "$VH" type veth peer name "vxpn$$"
	ip link set "vxpn$$" netns "$NS"
	ip addr add "10.213.$N.1/30" brd + dev "$VH"
	ip addr add "fd42:213:$N::1/64" dev "$VH" nodad
	ip link set "$VH" up
	ip -n "$NS" addr add "$ORIGIN/30" dev "vxpn$$"
	ip -n "$NS" link set "vxpn$$" up
	ip -n "$NS" link set lo up
	LOG=$BATS_FILE_TMPDIR/origin.log
	LLOG=$BATS_FILE_TMPDIR/loopback.log
	: > "$LOG"
	: > "$LLOG"
	export LOG LLOG
	ip netns exec "$NS" /usr/bin/python3 "$FIX/origin.py" "$LOG" "$BATS_FILE_TMPDIR/ready" \
		"$ORIGIN:8080" "$ORIGIN:8443" "$ORIGIN:9000" >/dev/null 2>&1 3>&- &
	echo $! > "$BATS_FILE_TMPDIR/origin.pid"
	/usr/bin/python3 "$FIX/origin.py" "$LLOG" "$BATS_FILE_TMPDIR/lready" 127.0.0.1:0 >/dev/null 2>&1 3>&- &
	echo $! > "$BATS_FILE_TMPDIR/lorigin.pid"
	# a server on the host's own (veth) address, as one on 0.0.0.0 would be
	OWNLOG=$BATS_FILE_TMPDIR/own.log
	: > "$OWNLOG"
	export OWNLOG
	/usr/bin/python3 "$FIX/origin.py" "$OWNLOG" "$BATS_FILE_TMPDIR/oready" "10.213.$N.1:0" >/dev/null 2>&1 3>&- &
	echo $! > "$BATS_FILE_TMPDIR/oorigin.pid"
	for _ in $(seq 100); do
		[ -e "$BATS_FILE_TMPDIR/ready" ] && [ -e "$BATS_FILE_TMPDIR/lready" ] &&
			[ -e "$BATS_FILE_TMPDIR/oready" ] && break
		sleep 0.05
	done
	LPORT=$(sed 's/.*://' "$BATS_FILE_TMPDIR/lready")
	OPORT=$(sed 's/.*://' "$BATS_FILE_TMPDIR/oready")
	export LPORT OPORT
	HOSTS=$BATS_FILE_TMPDIR/hosts
	cat > "$HOSTS" <<-EOF
		$ORIGIN origin.test other.test a.wild.test b.c.wild.test wild.test origin.test.evil.test evilorigin.test
		127.0.0.1 loop.test localhost
		169.254.169.254 meta.test
		::ffff:127.0.0.1 mapped.test
		::1 six.test
		10.213.$N.1 own.test
		10.213.$N.3 bcast.test
		::ffff:10.213.$N.1 ownmapped.test
		fd42:213:$N::1 own6.test
	EOF
	export HOSTS
}

teardown_file() {
	kill "$(cat "$BATS_FILE_TMPDIR/origin.pid")" "$(cat "$BATS_FILE_TMPDIR/lorigin.pid")" \
		"$(cat "$BATS_FILE_TMPDIR/oorigin.pid")" 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
	ip link del "$VH" 2>/dev/null || true
}

setup() {
	P=$BATS_TEST_TMPDIR/p.sock
	OUT=$BATS_TEST_TMPDIR/out.jsonl
	ERR=$BATS_TEST_TMPDIR/err
	PROXY_PID=
}

# A proxy stopped by SIGTERM exits 0; under the sanitizers a leak or an
# error found at exit shows here.
teardown() {
	if [ -n "$PROXY_PID" ]; then
		proxy_stop
	fi
}

proxy_stop() {
	kill "$PROXY_PID"
	local rc=0
	wait "$PROXY_PID" || rc=$?
	PROXY_PID=
	rm -f "$P"
	if [ "$rc" -ne 0 ]; then
		echo "vx-proxy exited $rc: $(cat "$ERR")" >&2
		return 1
	fi
}

# proxy ARGS...: vx-proxy in the background with the test hosts file; waits
# until every socket it was asked for is listening.
proxy() {
	vx-proxy --hosts "$HOSTS" "$@" >"$OUT" 2>"$ERR" 3>&- &
	PROXY_PID=$!
	local want=1
	if [ "$1" = --request ]; then
		want=$(grep -o '"socket"' "$2" | wc -l)
	fi
	for _ in $(seq 100); do
		[ "$(grep -c '"listening"' "$OUT")" -ge "$want" ] && return 0
		sleep 0.02
	done
	echo "vx-proxy did not start: $(cat "$ERR")" >&2
	return 1
}

# hand ALLOW...: the hand-usable mode on $P, allowing each entry.
hand() {
	local args=() e
	for e in "$@"; do
		args+=(--allow "$e")
	done
	proxy --listen-unix "$P" --task t1 "${args[@]}"
}

# c PAYLOAD...: the raw client on $P.
c() {
	"$FIX/client.py" "$P" "$@"
}

# unreached TEXT LOG: the origin never received TEXT.
unreached() {
	run -1 grep -F -- "$1" "$2"
}

# records: the proxy's output so far, for assertions.
records() {
	run -0 cat "$OUT"
}

# GET HOST[:PORT] [PATH]: an absolute-URI request for client.py.
GET() {
	printf 'GET http://%s%s HTTP/1.1\\r\\nUser-Agent: t\\r\\n\\r\\n' "$1" "${2:-/}"
}

@test "vx-proxy: --help lists every option the man page documents" {
	run -0 vx-proxy --help
	local opt
	for opt in --request --listen-unix --listen-tcp --task --allow --deny --hosts \
		--header-timeout --connect-timeout --idle-timeout --max-conns; do
		assert_output --partial -- "$opt"
		run -0 grep -c -- "$opt" "$BATS_TEST_DIRNAME/../docs/man/vx-proxy.md"
		run -0 vx-proxy --help
	done
}

@test "vx-proxy: usage errors exit 2 naming the problem" {
	run -2 vx-proxy
	assert_output --partial 'give one of --request'
	run -2 vx-proxy --listen-unix "$P" --allow '*'
	assert_output "vx-proxy: --allow '*': '*' would allow every host"
	run -2 vx-proxy --listen-unix "$P" --allow 'https://a.test'
	run -2 vx-proxy --listen-unix "$P" --allow '*.com'
	run -2 vx-proxy --listen-unix "$P" --header-timeout 0
	run -2 vx-proxy --listen-unix "$P" --max-conns 0
	assert_output "vx-proxy: --max-conns: '0' is not a count (1-1000000)"
	printf '%s\n' '{"type":"proxy","v":1,"tasks":[{"task":"t","socket":"'"$P"'","network":["ok.test","intranet"]}]}' > "$BATS_TEST_TMPDIR/r.json"
	run -2 vx-proxy --request "$BATS_TEST_TMPDIR/r.json"
	assert_output --partial "r.json:1: tasks[0].network[1]: 'intranet': a dotless host"
	printf '%s\n' '{"type":"proxy","v":2}' > "$BATS_TEST_TMPDIR/r.json"
	run -2 vx-proxy --request "$BATS_TEST_TMPDIR/r.json"
	assert_output --partial 'only version 1'
}

@test "vx-proxy: a done record is answered once the task's requests are judged, and its socket goes" {
	local q=$BATS_TEST_TMPDIR/q.sock
	# a request already in the socket when done arrives is judged first
	{
		printf '%s\n' '{"type":"proxy","v":1}' '{"type":"task","task":"t","socket":"'"$q"'","network":["origin.test"]}'
		for _ in $(seq 100); do [ -S "$q" ] && break; sleep 0.02; done
		printf 'CONNECT other.test:8080 HTTP/1.1\r\nHost: other.test:8080\r\n\r\n' |
			/usr/bin/python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read()); s.close()' "$q"
		printf '%s\n' '{"type":"done","task":"t"}'
		sleep 0.3
	} | vx-proxy --hosts "$HOSTS" --request - > "$OUT" 2>"$ERR" 3>&-
	run cat "$OUT"
	assert_line --index 0 --partial '"type":"listening"'
	assert_line --index 1 '{"type":"deny","task":"t","host":"other.test","port":8080,"reason":"not in allow.network","via":"connect"}'
	assert_line --index 2 '{"type":"done","task":"t"}'
	assert_file_not_exists "$q"
	# a done naming no task being served is a bad record
	printf '%s\n' '{"type":"proxy","v":1}' '{"type":"done","task":"nobody"}' > "$BATS_TEST_TMPDIR/r.json"
	run -2 vx-proxy --request "$BATS_TEST_TMPDIR/r.json"
	assert_output --partial 'r.json:2: task: names no task being served'
}

@test "vx-proxy: an allowed host over absolute-URI HTTP, CONNECT and SOCKS5" {
	hand origin.test
	run -0 c "$(GET origin.test:8080 /plain)"
	assert_output --partial 'HTTP/1.1 200 OK'
	assert_output --partial 'origin 8080 GET /plain host=origin.test:8080'
	# CONNECT, with the tunnelled request sent before the 200 arrives
	run -0 c 'CONNECT origin.test:8080 HTTP/1.1\r\nHost: origin.test:8080\r\n\r\nGET /tunnel HTTP/1.0\r\n\r\n'
	assert_output --partial 'HTTP/1.1 200 Connection established'
	assert_output --partial 'origin 8080 GET /tunnel'
	run -0 curl -sS -x "socks5h://localhost$P" http://origin.test:8080/socks
	assert_output 'origin 8080 GET /socks host=origin.test:8080 body=0'
	records
	refute_output --partial '"deny"'
}

@test "vx-proxy: normal clients through a loopback TCP listener (curl -x, curl -p -x)" {
	local port=$((20000 + RANDOM % 20000))
	proxy --listen-tcp "$port" --allow origin.test
	run -0 curl -sS -x "http://127.0.0.1:$port" http://origin.test:8080/curl
	assert_output 'origin 8080 GET /curl host=origin.test:8080 body=0'
	run -0 curl -sS -p -x "http://127.0.0.1:$port" http://origin.test:8443/tunnel
	assert_output --partial 'origin 8443 GET /tunnel'
	run -0 curl -sS -x "http://127.0.0.1:$port" --data-binary hello http://origin.test:8080/post
	assert_output --partial 'origin 8080 POST /post host=origin.test:8080 body=5'
	run -0 curl -sS -o /dev/null -w '%{size_download}' -p -x "http://127.0.0.1:$port" http://origin.test:8080/big3000000
	assert_output 3000000
	run -22 curl -sS -f -x "http://127.0.0.1:$port" http://other.test:8080/
	assert_output --partial '403'
}

@test "vx-proxy: bulk transfers at once over each protocol arrive byte for byte; 300 short requests in a row all answered" {
	# what the relay does for speed (edge-triggered readiness, pipes grown
	# for bulk and pooled when empty, a relay out of rounds resumed later)
	# must never drop, reorder or duplicate a byte
	local port=$((20000 + RANDOM % 20000)) web=$((20000 + RANDOM % 20000)) w=$BATS_TEST_TMPDIR/www
	mkdir -p "$w"
	head -c 30000000 /dev/urandom > "$w/rand.bin"
	echo short > "$w/short.txt"
	python3 -m http.server --bind 127.0.0.1 --directory "$w" "$web" >/dev/null 2>&1 3>&- &
	local web_pid=$!
	proxy --listen-tcp "$port" --allow 127.0.0.1 --allow origin.test
	for _ in $(seq 100); do
		curl -s -o /dev/null "http://127.0.0.1:$web/short.txt" && break
		sleep 0.05
	done
	local u=http://127.0.0.1:$web/rand.bin
	curl -sS -o "$w/abs" -x "http://127.0.0.1:$port" "$u" &
	local p1=$!
	curl -sS -o "$w/con" -p -x "http://127.0.0.1:$port" "$u" &
	local p2=$!
	curl -sS -o "$w/socks" -x "socks5h://127.0.0.1:$port" "$u" &
	local p3=$!
	# and a bulk upload, framed by its Content-Length, at the same time
	run -0 curl -sS -x "http://127.0.0.1:$port" --data-binary "@$w/rand.bin" http://origin.test:8080/up
	assert_output 'origin 8080 POST /up host=origin.test:8080 body=30000000'
	wait "$p1" "$p2" "$p3"
	cmp "$w/rand.bin" "$w/abs"
	cmp "$w/rand.bin" "$w/con"
	cmp "$w/rand.bin" "$w/socks"
	# every connection gets a fresh start from the pools
	run -0 sh -c "seq 300 | xargs -P 8 -I{} curl -sS -x http://127.0.0.1:$port http://127.0.0.1:$web/short.txt"
	assert_equal "$(printf '%s\n' "${lines[@]}" | grep -c '^short$')" 300
	kill "$web_pid"
	records
	refute_output --partial '"deny"'
}

@test "vx-proxy: an answer framed by Content-Length ends once delivered, not when the origin closes; bytes past its frame are not relayed" {
	hand origin.test
	# the origin holds its connection 5 s after the answer: the client's
	# EOF comes with the answer's last byte
	run -0 c --timeout 3 "$(GET origin.test:8080 /linger)"
	assert_output --partial $'\r\n\r\nframed\n'
	assert_line '[closed]'
	run -0 c "$(GET origin.test:8080 /extra)"
	assert_output --partial $'\r\n\r\nframed\n'
	assert_line '[closed]'
	refute_output --partial EXTRA-BYTES
	# positive control: an answer without Content-Length goes on until the
	# origin closes, whatever the pause between its parts
	run -0 c "$(GET origin.test:8080 /unframed)"
	assert_output --partial $'\r\n\r\nunframed-after-a-pause\n'
	assert_line '[closed]'
	records
	refute_output --partial '"deny"'
}

# spare_port: the proxy's end of the one connection it holds open to the
# origin's port 8080 (its spare), or nothing.
spare_port() {
	ip netns exec "$NS" ss -Htn state established '( sport = :8080 )' |
		awk '{sub(/.*:/, "", $NF); print $NF}'
}

@test "vx-proxy: after a request the task's next one to that origin rides a connection made ahead; unused, it closes" {
	hand origin.test
	run -0 c "$(GET origin.test:8080 /peer)"
	assert_output --partial 'peer '
	local first=${output##*peer } spare
	first=${first%%$'\n'*}
	sleep 0.3
	spare=$(spare_port)
	# one connection made ahead, not the one the request used
	[ -n "$spare" ]
	[ "$(echo "$spare" | wc -l)" -eq 1 ]
	[ "$spare" != "$first" ]
	run -0 c "$(GET origin.test:8080 /peer)"
	assert_output --partial "peer $spare"
	# a spare nobody uses is closed after about a second
	sleep 1.6
	run spare_port
	assert_output ''
	proxy_stop

	# one the origin closed while it waited (made ahead or kept alive) is
	# not used: a fresh dial is
	local port
	/usr/bin/python3 -c '
import socket, sys, threading
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
def serve(c):
    c.settimeout(0.1)  # an idle connection is closed at once
    try:
        while c.recv(65536):  # kept alive: the next request, if quick
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\nok\n")
    except OSError:
        pass
    c.close()
while True:
    threading.Thread(target=serve, args=(s.accept()[0],), daemon=True).start()
' > "$BATS_TEST_TMPDIR/port" 3>&- &
	local opid=$!
	for _ in $(seq 100); do [ -s "$BATS_TEST_TMPDIR/port" ] && break; sleep 0.02; done
	port=$(cat "$BATS_TEST_TMPDIR/port")
	hand 127.0.0.1
	run -0 c "$(GET "127.0.0.1:$port" /)"
	assert_output --partial $'\r\n\r\nok\n'
	sleep 0.4
	run -0 c "$(GET "127.0.0.1:$port" /)"
	assert_output --partial $'\r\n\r\nok\n'
	kill "$opid"
}

@test "vx-proxy: a request without a body asks the origin to keep its connection, and the task's next request rides it" {
	hand origin.test
	run -0 c "$(GET origin.test:8080 /keep)"
	assert_output --partial 'peer '
	local first=${output##*peer }
	first=${first%%$'\n'*}
	assert_line '[closed]'
	# HTTP/1.0 keep-alive: an answer that can never be chunked
	run -0 grep -c $'GET /keep HTTP/1.0\r$' "$LOG"
	run -0 grep -c $'^Connection: keep-alive\r$' "$LOG"
	run -0 c "$(GET origin.test:8080 /keep)"
	assert_output --partial "peer $first"
	assert_line '[closed]'
	# a body, or HEAD, goes on HTTP/1.1 with Connection: close
	run -0 c 'POST http://origin.test:8080/kpost HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi'
	assert_output --partial 'origin 8080 POST /kpost host=origin.test:8080 body=2'
	run -0 grep -c $'POST /kpost HTTP/1.1\r$' "$LOG"
	run -0 c 'HEAD http://origin.test:8080/khead HTTP/1.1\r\n\r\n'
	run -0 grep -c $'HEAD /khead HTTP/1.1\r$' "$LOG"
	# an answer that says close is not kept
	run -0 c "$(GET origin.test:8080 /peer)"
	refute_output --partial "peer $first"
	# nor one with bytes past its frame (which the client never sees)
	run -0 c "$(GET origin.test:8080 /keepx)"
	refute_output --partial EXTRA
	first=${output##*peer }
	first=${first%%$'\n'*}
	run -0 c "$(GET origin.test:8080 /keep)"
	assert_output --partial 'peer '
	refute_output --partial "peer $first"
}

@test "hostile: an origin that writes unasked on a kept connection has it closed at once, and the planted answer reaches nobody" {
	# the origin keeps its connection after the first answer, then plants a
	# second answer on it unasked and waits: the proxy closes its end at
	# once (on main only the next request's check or the one-second expiry
	# did), and the task's next request gets a fresh connection's answer
	/usr/bin/python3 -c '
import socket, sys, threading, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
log = open(sys.argv[1], "a", buffering=1)
def serve(c, n):
    c.recv(65536)
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: keep-alive\r\n\r\nfresh\n")
    if n:
        c.close()
        return
    time.sleep(0.1)
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nPLANTED\n")
    c.settimeout(0.6)
    t = time.monotonic()
    try:
        gone = c.recv(1) == b""
    except ConnectionResetError:  # closed with the planted bytes unread
        gone = True
    except OSError:
        gone = False
    log.write("proxy closed it\n" if gone else "still open after %.1f s\n" % (time.monotonic() - t))
    c.close()
n = 0
while True:
    threading.Thread(target=serve, args=(s.accept()[0], n), daemon=True).start()
    n += 1
' "$BATS_TEST_TMPDIR/olog" > "$BATS_TEST_TMPDIR/port" 3>&- &
	local opid=$! port
	for _ in $(seq 100); do [ -s "$BATS_TEST_TMPDIR/port" ] && break; sleep 0.02; done
	port=$(cat "$BATS_TEST_TMPDIR/port")
	hand 127.0.0.1
	run -0 c "$(GET "127.0.0.1:$port" /)"
	assert_output --partial $'\r\n\r\nfresh\n'
	for _ in $(seq 100); do [ -s "$BATS_TEST_TMPDIR/olog" ] && break; sleep 0.02; done
	run -0 cat "$BATS_TEST_TMPDIR/olog"
	assert_output 'proxy closed it'
	run -0 c "$(GET "127.0.0.1:$port" /)"
	assert_output --partial $'\r\n\r\nfresh\n'
	refute_output --partial PLANTED
	kill "$opid"
}

@test "hostile: a connection made ahead for one task never carries another task's request" {
	local r=$BATS_TEST_TMPDIR/r.json
	printf '%s\n' '{"type":"proxy","v":1,"tasks":[{"task":"a","socket":"'"$BATS_TEST_TMPDIR/a.sock"'","network":["origin.test"]},{"task":"b","socket":"'"$BATS_TEST_TMPDIR/b.sock"'","network":["origin.test"]}]}' > "$r"
	proxy --request "$r"
	run -0 "$FIX/client.py" "$BATS_TEST_TMPDIR/a.sock" "$(GET origin.test:8080 /peer)"
	sleep 0.3
	local spare
	spare=$(spare_port)
	[ -n "$spare" ]
	# task b dials its own; task a's next request takes a's spare
	run -0 "$FIX/client.py" "$BATS_TEST_TMPDIR/b.sock" "$(GET origin.test:8080 /peer)"
	assert_output --partial 'peer '
	refute_output --partial "peer $spare"
	run -0 "$FIX/client.py" "$BATS_TEST_TMPDIR/a.sock" "$(GET origin.test:8080 /peer)"
	assert_output --partial "peer $spare"
}

@test "vx-proxy: a denied host gets 403 and one deny record naming task, host, port, reason" {
	hand origin.test
	run -0 c "$(GET other.test:8080 /x-denied)"
	assert_output --partial 'HTTP/1.1 403 Forbidden'
	assert_output --partial 'vx-proxy: deny other.test:8080 (not in allow.network)'
	run -0 c 'CONNECT other.test:443 HTTP/1.1\r\n\r\n'
	assert_output --partial '403'
	run -97 curl -sS -x "socks5h://localhost$P" http://other.test:9000/
	records
	assert_line '{"type":"deny","task":"t1","host":"other.test","port":8080,"reason":"not in allow.network","via":"http"}'
	assert_line '{"type":"deny","task":"t1","host":"other.test","port":443,"reason":"not in allow.network","via":"connect"}'
	assert_line '{"type":"deny","task":"t1","host":"other.test","port":9000,"reason":"not in allow.network","via":"socks5"}'
	run -0 grep -c '"deny"' "$OUT"
	assert_output 3
	unreached '/x-denied' "$LOG"
}

@test "vx-proxy: the run-wide deny list wins over an allow entry" {
	proxy --listen-unix "$P" --task t1 --allow origin.test --allow '*.wild.test' --deny origin.test:8080 --deny b.c.wild.test
	run -0 c "$(GET origin.test:8080 /d)"
	assert_output --partial '403'
	run -0 c "$(GET b.c.wild.test:8080 /d)"
	assert_output --partial '403'
	run -0 c "$(GET origin.test:8443 /ok)"
	assert_output --partial 'origin 8443 GET /ok'
	run -0 c "$(GET a.wild.test:8080 /ok)"
	assert_output --partial 'origin 8080 GET /ok'
	records
	assert_line --partial '"host":"origin.test","port":8080,"reason":"deny.network '\''origin.test:8080'\''"'
	assert_line --partial '"host":"b.c.wild.test","port":8080,"reason":"deny.network '\''b.c.wild.test'\''"'
	proxy_stop
	proxy --listen-unix "$P" --task t1 --allow origin.test --deny '*'
	run -0 c "$(GET origin.test:8080 /star)"
	assert_output --partial '403'
}

@test "vx-proxy: case and trailing-dot spellings match, in the entry and in the request" {
	hand ORIGIN.Test.
	run -0 c "$(GET origin.test:8080 /a)"
	assert_output --partial 'origin 8080 GET /a'
	run -0 c "$(GET ORIGIN.TEST.:8080 /b)"
	assert_output --partial 'origin 8080 GET /b host=origin.test:8080'
	run -0 c 'CONNECT Origin.Test.:8080 HTTP/1.1\r\n\r\nGET /c HTTP/1.0\r\n\r\n'
	assert_output --partial 'origin 8080 GET /c'
	proxy_stop
	proxy --listen-unix "$P" --task t1 --allow '*.wild.test' --deny 'A.WILD.TEST.'
	run -0 c "$(GET a.Wild.test.:8080 /d)"
	assert_output --partial '403'
	records
	assert_line --partial '"host":"a.wild.test","port":8080,"reason":"deny.network '\''A.WILD.TEST.'\''"'
}

@test "vx-proxy: a port entry allows that port only; wildcards are strict subdomains" {
	hand origin.test:8443 '*.wild.test'
	run -0 c "$(GET origin.test:8443 /p)"
	assert_output --partial 'origin 8443 GET /p'
	run -0 c "$(GET origin.test:8080 /p)"
	assert_output --partial '403'
	run -0 c "$(GET origin.test /p)"
	assert_output --partial 'deny origin.test:80 (not in allow.network)'
	run -0 c "$(GET a.wild.test:8080 /w)"
	assert_output --partial 'origin 8080 GET /w'
	run -0 c "$(GET b.c.wild.test:8080 /w)"
	assert_output --partial 'origin 8080 GET /w'
	run -0 c "$(GET wild.test:8080 /w)"
	assert_output --partial '403'
}

@test "vx-proxy: each task reaches only its own grant; network true is the run's union" {
	local r=$BATS_TEST_TMPDIR/r.json
	cat > "$r" <<-EOF
		{"type":"proxy","v":1,"deny":["*:22"],"tasks":[
		{"task":"@x/a#fetch","socket":"$BATS_TEST_TMPDIR/a.sock","network":["origin.test"]},
		{"task":"@x/b#build","socket":"$BATS_TEST_TMPDIR/b.sock"},
		{"task":"@x/c#all","socket":"$BATS_TEST_TMPDIR/c.sock","network":true},
		{"task":"@x/d#other","socket":"$BATS_TEST_TMPDIR/d.sock","network":["a.wild.test:8080"]}]}
	EOF
	tr -d '\n' < "$r" > "$r.1" && echo >> "$r.1"
	proxy --request "$r.1"
	run -0 "$FIX/client.py" "$BATS_TEST_TMPDIR/a.sock" "$(GET origin.test:8080 /a)"
	assert_output --partial 'origin 8080 GET /a'
	run -0 "$FIX/client.py" "$BATS_TEST_TMPDIR/b.sock" "$(GET origin.test:8080 /b)"
	assert_output --partial '403'
	run -0 "$FIX/client.py" "$BATS_TEST_TMPDIR/d.sock" "$(GET origin.test:8080 /d)"
	assert_output --partial '403'
	run -0 "$FIX/client.py" "$BATS_TEST_TMPDIR/c.sock" "$(GET origin.test:8080 /c1)"
	assert_output --partial 'origin 8080 GET /c1'
	run -0 "$FIX/client.py" "$BATS_TEST_TMPDIR/c.sock" "$(GET a.wild.test:8080 /c2)"
	assert_output --partial 'origin 8080 GET /c2'
	run -0 "$FIX/client.py" "$BATS_TEST_TMPDIR/c.sock" "$(GET a.wild.test:8443 /c3)"
	assert_output --partial '403'
	run -0 "$FIX/client.py" "$BATS_TEST_TMPDIR/a.sock" 'CONNECT origin.test:22 HTTP/1.1\r\n\r\n'
	assert_output --partial '403'
	records
	assert_line --index 0 --regexp '^\{"type":"listening","v":1,"task":"@x/a#fetch","socket":".*/a.sock"\}$'
	assert_line '{"type":"deny","task":"@x/b#build","host":"origin.test","port":8080,"reason":"no network grant","via":"http"}'
	assert_line '{"type":"deny","task":"@x/d#other","host":"origin.test","port":8080,"reason":"not in allow.network","via":"http"}'
	assert_line '{"type":"deny","task":"@x/c#all","host":"a.wild.test","port":8443,"reason":"not in allow.network","via":"http"}'
	assert_line '{"type":"deny","task":"@x/a#fetch","host":"origin.test","port":22,"reason":"deny.network '\''*:22'\''","via":"connect"}'
}

@test "vx-proxy: tasks added on stdin while it runs; EOF on stdin stops it with 0" {
	local fifo=$BATS_TEST_TMPDIR/in
	mkfifo "$fifo"
	vx-proxy --hosts "$HOSTS" --request - <"$fifo" >"$OUT" 2>"$ERR" 3>&- &
	PROXY_PID=$!
	exec 5>"$fifo"
	printf '%s\n' '{"type":"proxy","v":1,"deny":[]}' >&5
	printf '%s\n' '{"type":"task","task":"late","socket":"'"$P"'","network":["origin.test"]}' >&5
	for _ in $(seq 100); do grep -q listening "$OUT" && break; sleep 0.02; done
	run -0 c "$(GET origin.test:8080 /late)"
	assert_output --partial 'origin 8080 GET /late'
	exec 5>&-
	local rc=0
	wait "$PROXY_PID" || rc=$?
	PROXY_PID=
	assert_equal "$rc" 0
	assert_file_not_exists "$P"
}

@test "hostile: suffix and prefix tricks do not match an entry" {
	hand origin.test '*.wild.test'
	local h
	for h in origin.test.evil.test evilorigin.test wild.test; do
		run -0 c "$(GET "$h:8080" /suffix)"
		assert_output --partial 'HTTP/1.1 403'
	done
	records
	assert_line --partial '"host":"origin.test.evil.test","port":8080,"reason":"not in allow.network"'
	assert_line --partial '"host":"evilorigin.test"'
	unreached 'GET /suffix' "$LOG"
}

@test "hostile: numeric IP spellings are canonicalised and match only IP entries" {
	hand origin.test
	local o1 o2 o3 o4 hex dec
	IFS=. read -r o1 o2 o3 o4 <<<"$ORIGIN"
	dec=$(( (o1 << 24) + (o2 << 16) + (o3 << 8) + o4 ))
	hex=$(printf '0x%x.0x%x.%d.0%o' "$o1" "$o2" "$o3" "$o4")
	for h in "$ORIGIN" "$dec" "$hex" "$o1.$((o2 * 65536 + o3 * 256 + o4))"; do
		run -0 c "$(GET "$h:8080" /numeric)"
		assert_output --partial 'HTTP/1.1 403'
		records
		assert_line --partial "\"host\":\"$ORIGIN\",\"port\":8080,\"reason\":\"not in allow.network\""
	done
	# the address an allowed name resolves to is no grant either, over CONNECT
	run -0 c "CONNECT $ORIGIN:8080 HTTP/1.1\\r\\n\\r\\nGET /numeric HTTP/1.0\\r\\n\\r\\n"
	assert_output --partial 'HTTP/1.1 403'
	unreached 'GET /numeric' "$LOG"
	# positive control: an IP entry, reached through another spelling of it
	proxy_stop
	hand "$ORIGIN"
	run -0 c "$(GET "$dec:8080" /ip)"
	assert_output --partial 'origin 8080 GET /ip'
	run -0 c "$(GET "[::ffff:$ORIGIN]:8080" /mapped)"
	assert_output --partial "origin 8080 GET /mapped host=$ORIGIN:8080"
	run -0 c "$(GET origin.test:8080 /name)"
	assert_output --partial '403'
	run -0 c "$(GET 256.1.1.1:8080 /bad)"
	assert_output --partial 'HTTP/1.1 400'
}

@test "hostile: IPv6 and IPv4-mapped loopback forms are refused; 127.1 and friends too" {
	hand origin.test
	local h
	for h in '[::1]' '[::ffff:127.0.0.1]' '[::ffff:7f00:1]' '127.1' '2130706433' '0x7f.1' '0177.0.0.1' '[0:0:0:0:0:0:0:1]'; do
		run -0 c "$(GET "$h:$LPORT" /v6)"
		assert_output --partial 'HTTP/1.1 403'
	done
	run -0 c "$(GET '[fe80::1%25lo]:80' /zone)"
	assert_output --partial 'HTTP/1.1 400'
	run -0 c "$(GET '[::1:80' /open)"
	assert_output --partial 'HTTP/1.1 400'
	# SOCKS5 with an IPv6 address (atyp 4): ::ffff:127.0.0.1
	run -0 c '\x05\x01\x00\x05\x01\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x7f\x00\x00\x01\x00\x50'
	assert_output --partial '\x05\x00\x05\x02'
	records
	assert_line --partial '"host":"127.0.0.1","port":80,"reason":"not in allow.network","via":"socks5"'
	assert_line --partial '"host":"::1"'
	unreached 'GET /v6' "$LLOG"
}

@test "hostile: NUL, CR, LF, space and % in a SOCKS5 domain are refused, never cut short" {
	hand '*.wild.test' origin.test
	# localhost\0.wild.test, origin.test\0x, a%2ewild.test, 'a wild.test', CR, LF
	local d
	for d in 'localhost\x00.wild.test' 'origin.test\x00' 'a.wild%2etest' 'a .wild.test' 'a\r.wild.test' 'a\n.wild.test'; do
		local len
		len=$(/usr/bin/python3 -c 'import ast,sys; print(len(ast.literal_eval("b\x27" + sys.argv[1] + "\x27")))' "$d")
		run -0 c '\x05\x01\x00\x05\x01\x00\x03' "$(printf '\\x%02x' "$len")" "$d" '\x1f\x90'
		assert_output --partial '\x05\x00\x05\x02'
	done
	records
	assert_line --partial '"host":"localhost\\x00.wild.test","port":8080,"reason":"a control, space, '\''%'\''' 
	assert_line --partial '"host":"a\\x20.wild.test"'
	# positive control: the same frame with a clean name
	run -0 c '\x05\x01\x00\x05\x01\x00\x03\x0ba.wild.test\x1f\x90GET /clean HTTP/1.0\r\n\r\n'
	assert_output --partial 'origin 8080 GET /clean'
}

@test "hostile: NUL, CR, LF, space and % in an HTTP host are refused" {
	hand '*.wild.test' origin.test
	run -0 c 'GET http://origin.test%00.wild.test:8080/nulhost HTTP/1.1\r\n\r\n'
	assert_output --partial 'HTTP/1.1 400'
	run -0 c 'GET http://origin.test\x00.wild.test:8080/nulhost HTTP/1.1\r\n\r\n'
	assert_output --partial 'HTTP/1.1 400'
	run -0 c 'GET http://origin.test\r.wild.test:8080/nulhost HTTP/1.1\r\n\r\n'
	assert_output --partial 'HTTP/1.1 400'
	run -0 c 'GET http://origin.test\n.wild.test:8080/nulhost HTTP/1.1\r\n\r\n'
	assert_output --partial 'HTTP/1.1 400'
	run -0 c 'GET http://origin.test .wild.test:8080/nulhost HTTP/1.1\r\n\r\n'
	assert_output --partial 'HTTP/1.1 400'
	run -0 c 'CONNECT a%2ewild.test:8080 HTTP/1.1\r\n\r\n'
	assert_output --partial 'HTTP/1.1 400'
	records
	assert_line --partial '"host":"a%2ewild.test","port":8080'
	unreached '/nulhost' "$LOG"
}

@test "hostile: userinfo@ in the target is refused, whichever side names the allowed host" {
	hand origin.test
	run -0 c "$(GET 'origin.test@other.test:8080' /userinfo)"
	assert_output --partial 'HTTP/1.1 400'
	run -0 c "$(GET 'other.test:8080@origin.test:8080' /userinfo)"
	assert_output --partial 'HTTP/1.1 400'
	run -0 c 'CONNECT origin.test@other.test:8080 HTTP/1.1\r\n\r\n'
	assert_output --partial 'HTTP/1.1 400'
	records
	assert_line --partial '"reason":"userinfo ('\''@'\'') in the request target"'
	unreached 'GET /userinfo' "$LOG"
}

@test "hostile: a Host header naming another host than the absolute URI is refused" {
	hand origin.test
	run -0 c 'GET http://origin.test:8080/mismatch HTTP/1.1\r\nHost: other.test:8080\r\n\r\n'
	assert_output --partial 'HTTP/1.1 400'
	run -0 c 'GET http://origin.test:8080/mismatch HTTP/1.1\r\nHost: origin.test\r\n\r\n'
	assert_output --partial 'HTTP/1.1 400'
	run -0 c 'GET http://origin.test:8080/mismatch HTTP/1.1\r\nHost: origin.test:8080\r\nHost: origin.test:8080\r\n\r\n'
	assert_output --partial 'HTTP/1.1 400'
	unreached 'GET /mismatch' "$LOG"
	# the matching Host (any spelling) passes
	run -0 c 'GET http://origin.test:8080/m HTTP/1.1\r\nHost: ORIGIN.test.:8080\r\n\r\n'
	assert_output --partial 'origin 8080 GET /m host=origin.test:8080'
}

@test "hostile: a request with only a Host header (origin form) is refused and recorded" {
	hand origin.test
	run -0 c 'GET /hostonly HTTP/1.1\r\nHost: origin.test:8080\r\n\r\n'
	assert_output --partial 'HTTP/1.1 400'
	records
	assert_line --partial '"host":"origin.test","port":8080,"reason":"origin-form request'
	unreached 'GET /hostonly' "$LOG"
}

@test "hostile: a pipelined second request to a denied host is never forwarded, and recorded" {
	hand origin.test
	run -0 c "$(GET origin.test:8080 /first)$(GET other.test:8080 /second)"
	assert_output --partial 'origin 8080 GET /first'
	refute_output --partial '/second'
	records
	assert_line '{"type":"deny","task":"t1","host":"other.test","port":8080,"reason":"not in allow.network","via":"http"}'
	unreached 'GET /second' "$LOG"
	# nor smuggled behind a body: the body is exactly Content-Length bytes
	run -0 c 'POST http://origin.test:8080/p HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET http://origin.test:8080/smuggled HTTP/1.1\r\n\r\n'
	assert_output --partial 'origin 8080 POST /p host=origin.test:8080 body=3'
	unreached 'smuggled' "$LOG"
}

@test "hostile: bad ports (none, 0, 65536, +443, 443:80, 080) are refused, never defaulted" {
	hand origin.test
	local p
	for p in '' ':' ':0' ':65536' ':+443' ':443:80' ':080' ':8080x' ':-1'; do
		run -0 c "CONNECT origin.test$p HTTP/1.1\\r\\n\\r\\n"
		assert_output --partial 'HTTP/1.1 400'
	done
	run -0 c "$(GET 'origin.test:0' /badport)"
	assert_output --partial 'HTTP/1.1 400'
	run -0 c "$(GET 'origin.test:' /badport)"
	assert_output --partial 'HTTP/1.1 400'
	# SOCKS5 port 0
	run -0 c '\x05\x01\x00\x05\x01\x00\x03\x0borigin.test\x00\x00'
	assert_output --partial '\x05\x00\x05\x02'
	records
	assert_line --partial '"host":"origin.test","port":0,"reason":"bad port (none given)","via":"connect"'
	assert_line --partial '"reason":"bad port (1-65535)"'
	unreached '/badport' "$LOG"
}

@test "hostile: bytes sent with a denied CONNECT are never forwarded (allowed: they are)" {
	hand origin.test:8080
	run -0 c 'CONNECT origin.test:9000 HTTP/1.1\r\n\r\nMARKER-DENIED-9000'
	assert_output --partial 'HTTP/1.1 403'
	run -0 c '\x05\x01\x00\x05\x01\x00\x03\x0aother.test\x23\x28MARKER-DENIED-SOCKS'
	assert_output --partial '\x05\x00\x05\x02'
	proxy_stop
	hand origin.test:9000
	run -0 c --timeout 0.3 'CONNECT origin.test:9000 HTTP/1.1\r\n\r\nMARKER-ALLOWED-9000'
	assert_output --partial 'HTTP/1.1 200 Connection established'
	for _ in $(seq 50); do grep -q MARKER-ALLOWED "$LOG" && break; sleep 0.02; done
	run -0 grep -c 'MARKER-ALLOWED-9000' "$LOG"
	run -1 grep -c 'MARKER-DENIED' "$LOG"
}

@test "hostile: an allowed name resolving to loopback or a metadata address is refused; localhost by name is not" {
	hand loop.test meta.test mapped.test six.test localhost
	local h
	for h in loop.test meta.test mapped.test six.test; do
		run -0 c "$(GET "$h:$LPORT" /resolves)"
		assert_output --partial 'HTTP/1.1 403'
	done
	records
	assert_line --partial '"host":"loop.test","port":'"$LPORT"',"reason":"resolves to loopback address 127.0.0.1"'
	assert_line --partial '"host":"meta.test","port":'"$LPORT"',"reason":"resolves to metadata address 169.254.169.254"'
	assert_line --partial '"host":"mapped.test","port":'"$LPORT"',"reason":"resolves to loopback address ::ffff:127.0.0.1"'
	assert_line --partial '"host":"six.test","port":'"$LPORT"',"reason":"resolves to loopback address ::1"'
	unreached 'GET /resolves' "$LLOG"
	run -0 c "$(GET "localhost:$LPORT" /lh)"
	assert_output --partial "GET /lh host=localhost:$LPORT"
	run -0 c "$(GET "127.0.0.1:$LPORT" /lit)"
	assert_output --partial 'HTTP/1.1 403'
}

@test "hostile: an allowed name resolving to the host's own address, its broadcast or their IPv6 forms is refused" {
	hand own.test bcast.test ownmapped.test own6.test "10.213.$N.1:$OPORT"
	local h
	for h in own.test bcast.test ownmapped.test own6.test; do
		run -0 c "$(GET "$h:$OPORT" /rebound)"
		assert_output --partial 'HTTP/1.1 403'
		run -0 c '\x05\x01\x00\x05\x01\x00\x03'"$(printf '\\x%02x' "${#h}")$h$(printf '\\x%02x\\x%02x' $((OPORT >> 8)) $((OPORT & 255)))"'GET /rebound-socks HTTP/1.0\r\n\r\n'
		assert_output --partial '\x05\x00\x05\x02'
	done
	records
	assert_line --partial '"host":"own.test","port":'"$OPORT"',"reason":"resolves to this host'\''s address 10.213.'"$N"'.1","via":"http"'
	assert_line --partial '"host":"own.test","port":'"$OPORT"',"reason":"resolves to this host'\''s address 10.213.'"$N"'.1","via":"socks5"'
	assert_line --partial '"host":"bcast.test","port":'"$OPORT"',"reason":"resolves to this host'\''s address 10.213.'"$N"'.3"'
	assert_line --partial '"host":"ownmapped.test","port":'"$OPORT"',"reason":"resolves to this host'\''s address ::ffff:10.213.'"$N"'.1"'
	assert_line --partial '"host":"own6.test","port":'"$OPORT"',"reason":"resolves to this host'\''s address fd42:213:'"$N"'::1"'
	unreached '/rebound' "$OWNLOG"
	# positive control: the address named literally is what was asked for
	run -0 c "$(GET "10.213.$N.1:$OPORT" /literal)"
	assert_output --partial "GET /literal host=10.213.$N.1:$OPORT"
}

@test "hostile: SOCKS5 BIND, UDP ASSOCIATE, an unknown address type and SOCKS4 are refused" {
	hand origin.test
	run -0 c '\x05\x01\x00\x05\x02\x00\x03\x0borigin.test\x1f\x90'
	assert_output --partial '\x05\x00\x05\x07'
	run -0 c '\x05\x01\x00\x05\x03\x00\x01\x00\x00\x00\x00\x00\x00'
	assert_output --partial '\x05\x00\x05\x07'
	run -0 c '\x05\x01\x00\x05\x01\x00\x09\x01\x02\x03\x04\x1f\x90'
	assert_output --partial '\x05\x00\x05\x08'
	run -0 c '\x04\x01\x1f\x90\x0a\x00\x00\x01user\x00'
	assert_output --partial '\x00[\x00\x00\x00\x00\x00\x00'
	# a client offering only username/password authentication
	run -0 c '\x05\x01\x02'
	assert_output --partial '\x05\xff'
	records
	assert_line --partial '"host":"origin.test","port":8080,"reason":"SOCKS5 BIND is not supported (CONNECT only)","via":"socks5"'
	assert_line --partial '"reason":"SOCKS5 UDP ASSOCIATE is not supported (CONNECT only)"'
	assert_line --partial '"reason":"unknown SOCKS5 address type"'
	assert_line --partial '"host":"10.0.0.1","port":8080,"reason":"SOCKS4 is not spoken (SOCKS5 only)","via":"socks4"'
}

@test "hostile: a SOCKS5 handshake written one byte at a time still works" {
	hand origin.test
	run -0 c --bytewise '\x05\x02\x02\x00\x05\x01\x00\x03\x0borigin.test\x1f\x90GET /bytes HTTP/1.0\r\n\r\n'
	assert_output --partial 'origin 8080 GET /bytes'
}

@test "hostile: request smuggling headers are refused before anything is forwarded" {
	hand origin.test
	local h
	for h in 'Content-Length: 5\r\nTransfer-Encoding: chunked' \
		'Content-Length: 5\r\nContent-Length: 5' \
		'Content-Length: 5\r\nContent-Length: 6' \
		'Transfer-Encoding: Chunked' \
		'Transfer-Encoding: chunked,' \
		'Transfer-Encoding: chunked' \
		'Content-Length : 5' \
		'Content-Length: +5' \
		'Content-Length: 5, 5' \
		'X-A: 1\r\n folded: yes' \
		'X-A: 1\r\n\tfolded' \
		'X-A: a\x00b' \
		'X-A: a\rb'; do
		run -0 c "POST http://origin.test:8080/smuggle-x HTTP/1.1\\r\\n$h\\r\\n\\r\\nhello"
		assert_output --regexp 'HTTP/1.1 (400|501)'
	done
	run -0 c 'POST http://origin.test:8080/smuggle-x HTTP/1.1\nContent-Length: 5\n\nhello'
	assert_output --partial 'HTTP/1.1 400'
	unreached '/smuggle-x' "$LOG"
	records
	assert_line --partial '"host":"origin.test","port":8080,"reason":"more than one Content-Length"'
	assert_line --partial '"reason":"malformed header name (space before '\'':'\''?)"'
	assert_line --partial '"reason":"folded header line (obs-fold)"'
	assert_line --partial '"reason":"Transfer-Encoding on a request (send Content-Length)"'
	# positive control: the same request, framed once
	run -0 c 'POST http://origin.test:8080/smug HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello'
	assert_output --partial 'origin 8080 POST /smug host=origin.test:8080 body=5'
}

@test "hostile: Connection naming Content-Length does not unframe the body into a second request" {
	hand origin.test
	local smug='GET http://origin.test:8080/smuggled-by-connection HTTP/1.1\r\nHost: origin.test:8080\r\n\r\n'
	local h
	for h in 'Content-Length' 'close, content-length' 'Host, CONTENT-LENGTH'; do
		run -0 c "POST http://origin.test:8080/framed HTTP/1.1\\r\\nConnection: $h\\r\\nContent-Length: 72\\r\\n\\r\\n$smug"
		# the origin read the 72 bytes as this request's body
		assert_output --partial 'origin 8080 POST /framed host=origin.test:8080 body=72'
		refute_output --partial 'GET /smuggled-by-connection host='
	done
	# spellings a server may fold into a framing header, TE with CL in either order
	for h in 'Content_Length: 72' 'Transfer_Encoding: chunked' \
		'Transfer-Encoding: chunked\r\nContent-Length: 72' \
		'Content-Length: 72\r\nTransfer-Encoding: chunked' \
		'Transfer-Encoding: identity' 'Transfer-Encoding: gzip, chunked'; do
		run -0 c "POST http://origin.test:8080/smuggle-y HTTP/1.1\\r\\n$h\\r\\n\\r\\n$smug"
		assert_output --partial 'HTTP/1.1 400'
	done
	unreached '/smuggle-y' "$LOG"
	records
	assert_line --partial '"reason":"framing header spelled with '\''_'\'' (some servers read it as '\''-'\'')"'
	assert_line --partial '"reason":"Content-Length and Transfer-Encoding together"'
	assert_line --partial '"reason":"malformed Transfer-Encoding (not exactly '\''chunked'\'')"'
}

@test "hostile: oversized hosts and heads are refused" {
	hand origin.test '*.wild.test'
	local label long
	label=$(printf 'a%.0s' $(seq 64))
	run -0 c "$(GET "$label.wild.test:8080" /oversized)"
	assert_output --partial 'HTTP/1.1 400'
	long=$(printf 'aaaaaaaaa.%.0s' $(seq 26))
	run -0 c "$(GET "${long}wild.test:8080" /oversized)"
	assert_output --partial 'HTTP/1.1 400'
	run -0 c "CONNECT ${long}wild.test:8080 HTTP/1.1\\r\\n\\r\\n"
	assert_output --partial 'HTTP/1.1 400'
	local big
	big=$(printf 'x%.0s' $(seq 17000))
	run -0 c "GET http://origin.test:8080/oversized HTTP/1.1\\r\\nX-Big: $big\\r\\n\\r\\n"
	assert_output --partial 'HTTP/1.1 431'
	local many
	many=$(printf 'X-H: 1\\r\\n%.0s' $(seq 101))
	run -0 c "GET http://origin.test:8080/oversized HTTP/1.1\\r\\n$many\\r\\n"
	assert_output --partial 'HTTP/1.1 431'
	unreached '/oversized' "$LOG"
	records
	assert_line --partial '"reason":"label longer than 63 characters"'
	assert_line --partial '"reason":"host name longer than 253 characters"'
	assert_line --partial '"reason":"request head too large"'
}

# hold N READY [PAYLOAD]: hold.py on $P in the background ($HOLD_PID); waits
# for READY.
hold() {
	"$FIX/hold.py" "$P" "$@" 3>&- &
	HOLD_PID=$!
	for _ in $(seq 250); do
		[ -e "$2" ] && return 0
		sleep 0.02
	done
	echo "hold.py did not get its connections" >&2
	return 1
}

# served_again PATH: once the held connections are gone, a request for PATH
# reaches the origin (retried while the proxy notices the hangups).
served_again() {
	for _ in $(seq 100); do
		run -0 c "$(GET origin.test:8080 "$1")"
		[[ $output == *"GET $1"* ]] && break
		sleep 0.05
	done
	assert_output --partial "origin 8080 GET $1 host=origin.test:8080"
}

# cputicks PID: its user + system time so far, in clock ticks.
cputicks() {
	local f
	read -r -a f < "/proc/$1/stat"
	echo $((f[13] + f[14]))
}

@test "fault: out of descriptors, vx-proxy says it once, does not spin, keeps its tunnel and recovers" {
	# soft = hard: vx-proxy cannot raise it
	(ulimit -n 32 && exec vx-proxy --hosts "$HOSTS" --listen-unix "$P" --task t1 --allow origin.test \
		--header-timeout 60 >"$OUT" 2>"$ERR" 3>&-) &
	PROXY_PID=$!
	for _ in $(seq 100); do grep -q '"listening"' "$OUT" && break; sleep 0.02; done
	hold 1 "$BATS_TEST_TMPDIR/tunnel" 'CONNECT origin.test:9000 HTTP/1.1\r\n\r\nFIRST-BYTES\r\n\r\n'
	local tunnel=$HOLD_PID
	run -0 cat "$BATS_TEST_TMPDIR/tunnel"
	assert_output 'HTTP/1.1 200 Connection established'
	hold 60 "$BATS_TEST_TMPDIR/idle"
	local idle=$HOLD_PID
	for _ in $(seq 250); do grep -q 'out of file descriptors' "$ERR" && break; sleep 0.02; done
	# two seconds of wall time with 60 clients waiting
	local t0 t1 hz
	hz=$(getconf CLK_TCK)
	t0=$(cputicks "$PROXY_PID")
	sleep 2
	t1=$(cputicks "$PROXY_PID")
	echo "# cpu ticks over 2 s: $((t1 - t0)) (hz $hz)" >&3
	# said once (not once per accept)
	run -0 wc -l < "$ERR"
	assert_output 1
	# a quarter of the wall time at most; idle, it is 0
	[ $((t1 - t0)) -lt $((hz / 2)) ]
	# the open tunnel still carries what its client sends
	kill -USR1 "$tunnel"
	for _ in $(seq 100); do grep -q LATER-BYTES "$LOG" && break; sleep 0.02; done
	run -0 grep -c LATER-BYTES "$LOG"
	run -0 cat "$ERR"
	assert_output --regexp '^vx-proxy: out of file descriptors; new connections wait until one closes \(said once per run\): [A-Za-z ]+$'
	# descriptors back: the waiting clients are served, and new ones
	kill "$idle" "$tunnel"
	wait "$idle" "$tunnel" || true
	served_again /after-emfile
	run -0 wc -l < "$ERR"
	assert_output 1
}

@test "fault: a task past --max-conns open connections is refused with a record; one closes, the next passes" {
	proxy --listen-unix "$P" --task t1 --allow origin.test --max-conns 3
	hold 3 "$BATS_TEST_TMPDIR/three" 'CONNECT origin.test:9000 HTTP/1.1\r\n\r\n'
	run -0 sort -u "$BATS_TEST_TMPDIR/three"
	assert_output 'HTTP/1.1 200 Connection established'
	run -0 c 'CONNECT origin.test:9000 HTTP/1.1\r\n\r\nFOURTH-BYTES'
	assert_output --partial 'HTTP/1.1 403'
	records
	assert_line --partial '"host":"origin.test","port":9000,"reason":"more than 3 connections of the task open at once","via":"connect"'
	kill "$HOLD_PID"
	wait "$HOLD_PID" || true
	served_again /after-cap
	unreached FOURTH-BYTES "$LOG"
}

@test "hostile: a slowloris client is timed out; a silent tunnel too" {
	proxy --listen-unix "$P" --task t1 --allow origin.test:9000 --header-timeout 0.5 --idle-timeout 0.5
	SECONDS=0
	run -0 c --slow 0.1 'GET http://origin.test:8080/slow HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n'
	assert_output --partial 'HTTP/1.1 408'
	assert_output --partial '[closed]'
	[ "$SECONDS" -lt 4 ]
	run -0 c --timeout 3 'CONNECT origin.test:9000 HTTP/1.1\r\n\r\nhold'
	assert_output --partial '200 Connection established'
	assert_output --partial '[closed]'
	# a half-sent SOCKS greeting, too
	run -0 c --timeout 3 '\x05\x01'
	assert_output '[closed]'
	records
	refute_output --partial '"deny"'
}

@test "vx-proxy: --help is its option table and agrees with its manual page" {
	PATH=$VX_BIN_DIR:$PATH
	assert_help_matches_man vx-proxy
}
