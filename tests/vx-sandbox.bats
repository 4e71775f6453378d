#!/usr/bin/env bats
# vx-sandbox: the boundary (R-20..R-29, R-32, R-33, R-35) on fixture
# workspaces, and a hostile task trying to break it: each attack in its own
# test, with a positive control showing the attack code did run.
#
# The suite runs as whoever runs it; tests/vx-sandbox-rootless.bats runs it
# again as an unprivileged user when the first run is root's.
# bats file_tags=sandbox
# The commands are expanded by the sandboxed shell, and '~/' grants are spelled
# as a config spells them: single quotes on purpose.
# shellcheck disable=SC2016,SC2088

load helpers

setup_file() {
	# the attack helper: prebuilt by the rootless wrapper (with a setuid copy),
	# else compiled here
	if [ -z "${VX_SANDBOX_HELP:-}" ]; then
		VX_SANDBOX_HELP=$BATS_FILE_TMPDIR/help
		mkdir -p "$VX_SANDBOX_HELP"
		cc -O1 -o "$VX_SANDBOX_HELP/attack" "$BATS_TEST_DIRNAME/fixtures/vx-sandbox/attack.c"
		chmod 755 "$VX_SANDBOX_HELP" "$VX_SANDBOX_HELP/attack"
	fi
	export VX_SANDBOX_HELP
}

setup() {
	HELP=$VX_SANDBOX_HELP
	A=$HELP/attack
	new_ws
	pkg packages/app @x/app
	put packages/app/src/a.js 'app source'
	put packages/app/banner.txt 'banner'
	put secret.txt 'root secret'
	mkdir -p "$WS/.git"
	put .git/config '[core]'
	P=packages/app
	# a HOME outside /tmp, which the sandbox replaces with its own
	VT=$(mktemp -d /var/tmp/vx-sandbox-test.XXXXXX)
	cd "$WS" || return 1
}

teardown() {
	rm -rf "$VT"
	if [ -n "${HOLDER:-}" ]; then
		kill "$HOLDER" 2>/dev/null || true
	fi
	if [ -n "${BG:-}" ]; then
		kill "$BG" 2>/dev/null || true
		wait "$BG" 2>/dev/null || true
	fi
}

# sb ARGS... -- CMD: vx-sandbox on the fixture's project, the helper readable.
sb() {
	vx-sandbox --root "$WS" --project "$WS/$P" --read "$HELP" "$@"
}

# req TASK_ID FILE: the graph record and TASK_ID's record, as vx run hands them.
req() {
	vx-graph --root "$WS" > "$BATS_TEST_TMPDIR/graph.jsonl"
	/usr/bin/python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
g = json.loads(lines[0])
g["tasks"] = 1  # as vx-pick writes it: vx-sandbox refuses a request of several
out = [json.dumps(g)] + [l for l in lines[1:] if json.loads(l)["id"] == sys.argv[2]]
assert len(out) == 2, "no task " + sys.argv[2]
open(sys.argv[3], "w").write("\n".join(out) + "\n")
' "$BATS_TEST_TMPDIR/graph.jsonl" "$1" "$2"
}

# running MARK: is a process whose command line holds MARK alive? (pgrep
# reads every process's command line itself: a loop of tr | grep over /proc
# missed some)
running() {
	pgrep -f -- "$1" > /dev/null
}

# sb_bg OUT CMD: vx-sandbox itself in the background (not the sb function's
# subshell) running sh -c CMD, output to OUT; BG is its pid once CMD has
# printed "up".
sb_bg() {
	vx-sandbox --root "$WS" --project "$WS/$P" -- sh -c "$2" > "$1" 2>&1 &
	BG=$!
	for _ in $(seq 1 500); do
		grep -q up "$1" && break
		sleep 0.02
	done
}

# linked: npm's layout, every package linked at the root (probe P6).
linked() {
	pkg packages/ui @x/ui '' '{ "tasks": { "source": { "exec": { "command": "true" }, "cache": { "inputs": { "files": ["src/**"] } } } } }'
	pkg packages/secret @x/secret
	put packages/ui/src/index.js 'ui v1'
	put packages/ui/README.md 'ui readme'
	put packages/secret/token.txt 'token'
	mkdir -p "$WS/node_modules/@x"
	ln -s ../../packages/ui "$WS/node_modules/@x/ui"
	ln -s ../../packages/app "$WS/node_modules/@x/app"
	ln -s ../../packages/secret "$WS/node_modules/@x/secret"
}

# --- the command line and exit status ---------------------------------------

@test "--help prints the synopsis and exits 0" {
	run -0 vx-sandbox --help
	assert_line --index 0 'usage: vx-sandbox --request FILE'
}

@test "--help agrees with the manual page's synopsis, options and exit status" {
	assert_help_matches_man vx-sandbox
}

@test "no command is a usage error, 125" {
	run -125 vx-sandbox --root "$WS"
	assert_output --partial 'no command'
}

@test "the task's exit status is vx-sandbox's; a signal is 128+N" {
	run -7 sb -- sh -c 'exit 7'
	run -137 sb -- sh -c 'kill -9 $$'
	run -127 sb -- no-such-command-here
}

@test "a SIGTERM to vx-sandbox reaches the task's process group" {
	local out=$BATS_TEST_TMPDIR/out rc=0
	sb_bg "$out" 'trap "echo got-term; exit 3" TERM; echo up; while :; do sleep 0.05; done'
	kill -TERM "$BG"
	for _ in $(seq 1 500); do
		kill -0 "$BG" 2> /dev/null || break
		sleep 0.02
	done
	kill -0 "$BG" 2> /dev/null && kill -KILL "$BG" # not forwarded: fail, not hang
	wait "$BG" || rc=$?
	BG=
	run -0 cat "$out"
	assert_line 'got-term'
	[ "$rc" = 3 ]
}

@test "a request that is not two records is refused with 125, nothing run" {
	printf '{"type":"graph","root":"/"}\n' > "$BATS_TEST_TMPDIR/r"
	run -125 vx-sandbox --request "$BATS_TEST_TMPDIR/r"
	assert_output --partial 'expected two records, a graph record then a task record'
	run -125 vx-sandbox --request "$BATS_TEST_TMPDIR/missing"
}

@test "a request runs the record's command under sh -c in the project" {
	pkg packages/app @x/app '' '{ "tasks": { "t": { "exec": { "command": "pwd; echo $0", "sandbox": {} } } } }'
	req @x/app#t "$BATS_TEST_TMPDIR/r"
	run -0 vx-sandbox --request "$BATS_TEST_TMPDIR/r"
	assert_line --index 0 "$WS/packages/app"
	assert_line --index 1 'sh'
}

@test "--trace -: the request's graph record goes ahead of the records as read, byte for byte, not printed again; the verdict is the same" {
	pkg packages/app @x/app '' '{ "tasks": { "t": { "exec": { "command": "cat ../../secret.txt", "sandbox": {} } } } }'
	req @x/app#t "$BATS_TEST_TMPDIR/r"
	# python's spacing, not vx's printing: a reprint would close it up
	grep -q '"type": "graph"' "$BATS_TEST_TMPDIR/r" || fail "the request is not spaced: $(head -c 200 "$BATS_TEST_TMPDIR/r")"
	vx-sandbox --request "$BATS_TEST_TMPDIR/r" --trace - > "$BATS_TEST_TMPDIR/out" 2> /dev/null || true
	assert_equal "$(sed -n 1p "$BATS_TEST_TMPDIR/out")" "$(sed -n 1p "$BATS_TEST_TMPDIR/r")"
	# the task record is printed again, as before
	run -0 sed -n 2p "$BATS_TEST_TMPDIR/out"
	assert_output --partial '{"type":"task","id":"@x/app#t"'
	# and vx-report judges it as before: the secret outside the project
	# hidden, named with its grant
	run -1 vx-report --trace "$BATS_TEST_TMPDIR/out"
	assert_line --partial "vx: @x/app#t read '../../secret.txt', which the sandbox wall hides"
	assert_line --partial '"id":"@x/app#t","fail":true,"violated":false,"exit":1'
}

@test "a task record without a sandbox object is refused" {
	pkg packages/app @x/app '' '{ "tasks": { "t": { "exec": { "command": "true" } } } }'
	req @x/app#t "$BATS_TEST_TMPDIR/r"
	run -125 vx-sandbox --request "$BATS_TEST_TMPDIR/r"
	assert_output --partial "'sandbox' is not an object"
}

@test "issue 37: a hand-written request's grant that is no row of the grant table is refused (125), naming the one meant, nothing run" {
	pkg packages/app @x/app '' '{ "tasks": { "t": { "exec": { "command": "touch ran", "sandbox": { "allow": { "write": ["."] } } } } } }'
	req @x/app#t "$BATS_TEST_TMPDIR/r"
	sed 's/"write":/"wirte":/' "$BATS_TEST_TMPDIR/r" > "$BATS_TEST_TMPDIR/typo"
	run -125 vx-sandbox --request "$BATS_TEST_TMPDIR/typo"
	assert_output "vx-sandbox: $BATS_TEST_TMPDIR/typo: sandbox.allow.wirte is no grant of exec.sandbox (docs/grants.md); fix: write allow.write"
	[ ! -e "$WS/packages/app/ran" ]
	sed 's/"allow":/"deny":/' "$BATS_TEST_TMPDIR/r" > "$BATS_TEST_TMPDIR/moved"
	run -125 vx-sandbox --request "$BATS_TEST_TMPDIR/moved"
	assert_output --partial "sandbox.deny.write is no grant of exec.sandbox (docs/grants.md); fix: write allow.write"
	[ ! -e "$WS/packages/app/ran" ]
	# the request as vx-graph wrote it runs
	run -0 vx-sandbox --request "$BATS_TEST_TMPDIR/r"
	[ -e "$WS/packages/app/ran" ]
}

@test "--proxy-socket: a path that is no socket fails before the task runs (125); with one, a DNS lookup is refused at once and traced, and resolv.conf is the sandbox's" {
	run -125 sb --proxy-socket "$BATS_TEST_TMPDIR/none.sock" -- sh -c 'echo TASK RAN'
	assert_line --partial "vx-sandbox: unable to reach vx-proxy's socket '$BATS_TEST_TMPDIR/none.sock' (No such file or directory), so the task is not run"
	refute_output --partial 'TASK RAN'
	run -125 sb --proxy-socket "$WS/secret.txt" -- sh -c 'echo TASK RAN'
	assert_line --partial '(not a socket), so the task is not run'
	refute_output --partial 'TASK RAN'
	/usr/bin/python3 -c 'import socket, sys, time; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); time.sleep(60)' \
		"$BATS_TEST_TMPDIR/p.sock" 3>&- &
	BG=$!
	for _ in $(seq 100); do [ -S "$BATS_TEST_TMPDIR/p.sock" ] && break; sleep 0.05; done
	run -0 sb --proxy-socket "$BATS_TEST_TMPDIR/p.sock" --trace "$BATS_TEST_TMPDIR/t.trace" -- sh -c '
		grep -v "^#" /etc/resolv.conf
		s=$(date +%s%N); getent hosts example.com; echo "getent $? fast=$(( ($(date +%s%N) - s) / 1000000 < 1000 ))"'
	assert_line 'nameserver 127.0.0.1'
	assert_line 'getent 2 fast=1'
	run -0 grep -E '^\{"trace":"dns","name":"example\.com","type":"(A|AAAA)"\}$' "$BATS_TEST_TMPDIR/t.trace"
	assert_equal "${#lines[@]}" 1
}

@test "hostile DNS: a flood of queries over UDP (in bursts of 20) and TCP, garbage and 100 names; each query answered, the trace holds 32 names, the proxy port still relays" {
	/usr/bin/python3 -c 'import socket, sys, time; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); c, _ = s.accept(); c.sendall(b"HTTP/1.1 204 No\r\n\r\n"); time.sleep(60)' \
		"$BATS_TEST_TMPDIR/p.sock" 3>&- &
	BG=$!
	for _ in $(seq 100); do [ -S "$BATS_TEST_TMPDIR/p.sock" ] && break; sleep 0.05; done
	run -0 sb --proxy-socket "$BATS_TEST_TMPDIR/p.sock" --trace "$BATS_TEST_TMPDIR/t.trace" -- /usr/bin/python3 -c '
import os, socket, struct
def q(name, i):
    b = struct.pack(">HHHHHH", i, 0x100, 1, 0, 0, 0)
    for l in name.split("."):
        b += bytes([len(l)]) + l.encode()
    return b + b"\0\0\1\0\1"
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.settimeout(5)
for junk in (b"", b"\xff" * 11, os.urandom(600), q("a.test", 1)[:20], b"\0\0\x81\0" + b"\0" * 8):
    u.sendto(junk, ("127.0.0.1", 53))
sent = got = 0
try:
    for i in range(0, 1000, 20):
        for j in range(i, i + 20):
            u.sendto(q("n%d.test" % (j % 100), j), ("127.0.0.1", 53))
            sent += 1
        while got < sent:
            d = u.recv(600)
            if d[3] & 15 == 5:
                got += 1
except socket.timeout:
    pass
print("udp refused", got, "of", sent)
t = socket.create_connection(("127.0.0.1", 53))
t.sendall(b"".join(struct.pack(">H", len(q("tcp.test", i))) + q("tcp.test", i) for i in range(200)))
n = 0
buf = b""
while n < 200:
    buf += t.recv(65536)
    while len(buf) >= 2 and len(buf) >= 2 + (buf[0] << 8 | buf[1]):
        buf = buf[2 + (buf[0] << 8 | buf[1]):]
        n += 1
print("tcp answers", n)
h = socket.create_connection(("127.0.0.1", int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])))
h.sendall(b"GET http://x.test/ HTTP/1.1\r\nHost: x.test\r\n\r\n")
print(h.recv(100).split(b"\r\n")[0].decode())
'
	assert_line 'udp refused 1000 of 1000'
	assert_line 'tcp answers 200'
	assert_line 'HTTP/1.1 204 No'
	run -0 grep -c '^{"trace":"dns",' "$BATS_TEST_TMPDIR/t.trace"
	assert_output 32
	run -0 grep -c '^{"trace":"proxied","name":"x.test"}$' "$BATS_TEST_TMPDIR/t.trace"
	assert_output 1
}

# --- R-20 the baseline ------------------------------------------------------

@test "R-20 baseline: cwd is the project, seen empty; a relative read is ENOENT" {
	run -0 cat "$WS/$P/src/a.js"
	run -1 sb -- sh -c 'pwd; ls -A; cat src/a.js'
	assert_line --index 0 "$WS/$P"
	assert_output --partial 'src/a.js: No such file or directory'
	refute_output --partial 'app source'
}

@test "R-20 baseline: the workspace root and its siblings are walled" {
	run -1 sb -- cat "$WS/secret.txt"
	assert_output --partial 'No such file or directory'
	run -0 sb -- ls -A "$WS"
	refute_output --partial 'secret.txt'
	refute_output --partial '.git'
}

@test "R-20 baseline: a write in the project or outside the workspace is EROFS" {
	run -2 sb -- sh -c 'echo x > out.txt'
	assert_output --partial 'Read-only file system'
	run -2 sb -- sh -c 'echo x > /var/tmp/vx-sandbox-probe'
	assert_output --partial 'Read-only file system'
	assert_file_not_exists "$WS/$P/out.txt"
}

@test "R-20 baseline: TMPDIR is private and writable, nothing reaches the host" {
	run -0 sb -- sh -c 'echo "$TMPDIR"; echo x > "$TMPDIR/vx-probe-$PPID" && echo wrote; ls -A /tmp'
	assert_line --index 0 '/tmp'
	assert_line 'wrote'
	run -0 sh -c 'ls /tmp/vx-probe-* 2>/dev/null | wc -l'
	assert_output '0'
}

@test "issue 19: a HOME or a PATH toolchain under the host's /tmp stays readable; the rest of /tmp stays private" {
	local t
	t=$(mktemp -d /tmp/vx-sandbox-tmp.XXXXXX)
	mkdir -p "$t/home/.ssh" "$t/tool/bin" "$t/other"
	echo home-file > "$t/home/f"
	echo key > "$t/home/.ssh/id"
	printf '#!/bin/sh\necho tool-ran\n' > "$t/tool/bin/vxtool"
	chmod 755 "$t/tool/bin/vxtool"
	echo other > "$t/other/f"
	chmod -R a+rX "$t"
	HOME=$t/home PATH=$t/tool/bin:$PATH run -0 sb -- sh -c 'cat ~/f; vxtool; cat ~/.ssh/id || echo store-masked; cat "$0/other/f" || echo other-private; echo x > ~/g || echo home-ro; echo x > /tmp/scratch && echo scratch-rw' "$t"
	assert_line 'home-file'
	assert_line 'tool-ran'
	assert_line 'store-masked'
	assert_line 'other-private'
	assert_line 'home-ro'
	assert_line 'scratch-rw'
	refute_output --partial 'key'
	assert_file_not_exists "$t/home/g"
	rm -rf "$t"
}

@test "R-20 baseline: paths outside the workspace stay readable" {
	run -0 sb -- sh -c 'cat /etc/passwd > /dev/null && ls /usr/bin/env'
}

@test "the task sees its own pid namespace, no capabilities, no_new_privs" {
	run -0 sb -- sh -c 'echo $$; grep -E "^(CapEff|CapPrm|CapBnd|CapAmb|NoNewPrivs)" /proc/self/status'
	# pid 1's own, then the task: pid 2, or 3 where pid 1's thread that
	# waits out the old root's detach took 2 first (sandbox/mounts.c)
	assert_line --index 0 --regexp '^[23]$'
	assert_line --regexp '^CapEff:[[:space:]]+0000000000000000$'
	assert_line --regexp '^CapBnd:[[:space:]]+0000000000000000$'
	assert_line --regexp '^CapAmb:[[:space:]]+0000000000000000$'
	assert_line --regexp '^NoNewPrivs:[[:space:]]+1$'
}

@test "the network namespace has loopback only, and it is up" {
	run -0 sb -- cat /proc/net/dev
	assert_output --partial 'lo:'
	refute_output --regexp '(eth|en|wl)[a-z0-9]*:'
	run -0 sb -- /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); c = socket.create_connection(s.getsockname()); print("lo ok")'
	assert_output 'lo ok'
}

@test "/dev holds the minimal nodes and a private devpts" {
	run -0 sb -- sh -c 'ls /dev; echo x > /dev/null && head -c 4 /dev/urandom | wc -c; ls /dev/pts'
	assert_line 'null'
	assert_line 'ptmx'
	assert_line '4'
	refute_line 'sda'
	run -2 sb -- sh -c 'echo x > /dev/newfile'
	assert_output --partial 'Read-only file system'
}

@test "issue 18: /dev/tty with no terminal is ENXIO as on the host, traced or not" {
	local probe='import errno, os
for f in (os.O_RDONLY, os.O_RDWR, os.O_WRONLY):
    try:
        os.close(os.open("/dev/tty", f)); print("opened")
    except OSError as e:
        print(errno.errorcode[e.errno])'
	run -0 setsid /usr/bin/python3 -c "$probe" < /dev/null
	local host=$output
	assert_line 'ENXIO'
	run -0 sb -- /usr/bin/python3 -c "$probe"
	assert_output "$host"
	run -0 sb --trace "$BATS_TEST_TMPDIR/trace" -- /usr/bin/python3 -c "$probe"
	assert_output "$host"
}

@test "issue 18: a tool's scratch under node_modules is writable only where granted" {
	mkdir -p "$WS/$P/node_modules/dep"
	echo dep > "$WS/$P/node_modules/dep/index.js"
	# (.vite-temp, .vite and .cache are the task's own scratch since issue 35)
	run -1 sb -- mkdir -p node_modules/.vitest
	assert_output --partial 'Read-only file system'
	run -0 sb --write node_modules/.vite-temp/ --write node_modules/.vitest/ -- sh -c 'echo x > node_modules/.vite-temp/c.mjs && echo r > node_modules/.vitest/results.json && cat node_modules/dep/index.js; echo y > node_modules/dep/index.js || echo dep-ro'
	assert_line 'dep'
	assert_line 'dep-ro'
	assert_file_exists "$WS/$P/node_modules/.vitest/results.json"
	# a grant of a cache directory keeps it the user's: written through
	assert_file_exists "$WS/$P/node_modules/.vite-temp/c.mjs"
}

# issue 35 item 4: what vite, vitest and find-cache-dir's users (babel-loader,
# eslint) write as caches is the task's own empty scratch, with no grant
@test "issue 35: the tool caches in node_modules are each task's own scratch: written freely, never on the host, never another task's" {
	mkdir -p "$WS/node_modules/dep" "$WS/$P/node_modules/.vite/old"
	echo host > "$WS/$P/node_modules/.vite/old/results.json"
	# what every cache directory holds on the host, before and after
	snap() { (cd "$WS" && find node_modules "$P/node_modules" -print0 | sort -z | xargs -0 ls -ld --time-style=+%s) ; }
	local before
	# the first run makes the missing ones on the host, empty, as mount points
	run -0 sb -- true
	before=$(snap)
	run -0 sb --read . --trace "$BATS_TEST_TMPDIR/t1" -- sh -c '
		mkdir -p node_modules/.vite/vitest/da39 && echo r > node_modules/.vite/vitest/da39/results.json &&
		cat node_modules/.vite/vitest/da39/results.json &&
		ls node_modules/.vite && echo c > node_modules/.cache/babel && cat node_modules/.cache/babel &&
		echo t > ../../node_modules/.vite-temp/vite.config.mjs && echo t2 > ../../node_modules/.cache/eslint &&
		echo done'
	assert_output $'r
vitest
c
done'
	# nothing reached the host: the old cache is there as it was, nothing new
	assert_equal "$(snap)" "$before"
	assert_equal "$(cat "$WS/$P/node_modules/.vite/old/results.json")" host
	# no write refused (mkdir -p's EEXIST of node_modules is the host's too)
	run -1 grep -E 'EROFS|EACCES|"widened"' "$BATS_TEST_TMPDIR/t1"
	# a project with no node_modules of its own (an npm workspace's
	# package) gets one as its scratch whole, left empty on the host
	rm -rf "$WS/$P/node_modules"
	run -0 sb --read . -- sh -c 'mkdir -p node_modules/.vite/vitest && echo r > node_modules/.vite/vitest/r.json && cat node_modules/.vite/vitest/r.json'
	assert_output r
	run -0 find "$WS/$P/node_modules" -mindepth 1
	assert_output ''
	run -0 find "$WS/node_modules" -type f
	assert_output ''
	# two tasks at once: neither sees the other's scratch
	mkdir -p "$WS/$P/dist"
	sb --read . --write dist/ -- sh -c 'echo A > ../../node_modules/.vite-temp/a; echo up > dist/a-up
		for i in $(seq 100); do [ -e dist/b-done ] && break; sleep 0.1; done
		ls ../../node_modules/.vite-temp > dist/a-saw' &
	BG=$!
	for i in $(seq 100); do [ -e "$WS/$P/dist/a-up" ] && break; sleep 0.1; done
	run -0 sb --read . --write dist/ -- sh -c 'ls ../../node_modules/.vite-temp; echo B > ../../node_modules/.vite-temp/b; echo > dist/b-done'
	assert_output ''
	wait "$BG"
	BG=
	assert_equal "$(cat "$WS/$P/dist/a-saw")" a
	run -0 ls -A "$WS/node_modules/.vite-temp"
	assert_output ''
}

@test "issue 35: a cache name that is a symlink is no scratch: a write through it into the project still fails and is reported" {
	mkdir -p "$WS/node_modules" "$WS/$P/node_modules"
	ln -s ../src "$WS/$P/node_modules/.cache"
	ln -s ../packages/app/src "$WS/node_modules/.vite"
	run -0 sb --read . --trace "$BATS_TEST_TMPDIR/t" -- sh -c '
		cat node_modules/.cache/a.js
		echo evil > node_modules/.cache/a.js || echo refused-1
		echo evil > ../../node_modules/.vite/b.js || echo refused-2
		ls src'
	assert_line 'app source'
	assert_line refused-1
	assert_line refused-2
	assert_line a.js
	refute_line b.js
	assert_equal "$(cat "$WS/$P/src/a.js")" 'app source'
	[ ! -e "$WS/$P/src/b.js" ]
	run -0 grep -c '"access":"write","path":"node_modules/.cache/a.js".*"errno":"EROFS"' "$BATS_TEST_TMPDIR/t"
	# no mount at either name, nor over src
	run -0 sb --read . -- cat /proc/self/mountinfo
	refute_output --partial "$P/node_modules/.cache "
	refute_output --partial "$WS/node_modules/.vite "
	refute_output --partial "$P/src "
	assert_output --partial "$WS/node_modules/.vite-temp rw,"
}

# --- R-21 grants and globs --------------------------------------------------

@test "R-21 read grants: '.', src/**, an absolute path, a sibling file" {
	run -0 sb --read src/** -- cat src/a.js
	assert_output 'app source'
	run -0 sb --read . -- cat banner.txt src/a.js
	run -0 sb --read "$WS/secret.txt" -- cat ../../secret.txt
	assert_output 'root secret'
	run -1 sb --read src/** -- cat banner.txt
	run -2 sb --read src/** -- sh -c 'echo x > src/new.js'
	assert_output --partial 'Read-only file system'
}

@test "R-21 sibling read grants: each binds its own directory, also through a symlinked parent" {
	for i in 1 2 3; do put "packages/lib$i/f.txt" "lib$i"; done
	put packages/other/f.txt 'other'
	ln -s packages "$WS/pk"
	run -0 sb --read ../lib1 --read ../lib2/ --read "$WS/pk/lib3" -- \
		sh -c 'cat ../lib1/f.txt ../lib2/f.txt ../lib3/f.txt; cat ../other/f.txt || echo walled; ls ../../pk || echo no-link'
	assert_output --partial $'lib1\nlib2\nlib3\n'
	assert_line 'walled'
	assert_line 'no-link'
	run -2 sb --read ../lib1 -- sh -c 'echo x > ../lib1/f.txt'
	assert_output --partial 'Read-only file system'
}

@test "grants are mounted nosuid and nodev: read grants read-only, write grants writable" {
	run -0 sb --read src --write dist/ -- cat /proc/self/mountinfo
	assert_line --regexp " $WS/$P/src ro,nosuid,nodev[, ]"
	assert_line --regexp " $WS/$P/dist rw,nosuid,nodev[, ]"
}

@test "issue 20: a setuid file a task makes in its write grant runs as nothing more; every writable mount is nosuid" {
	export HOME=$VT/home
	mkdir -p "$HOME"
	run -0 sb --read "$HELP" --write dist/ --write '~/.cache/t/' -- sh -c '
		cp "$0" dist/a && chmod 6755 dist/a && dist/a caps
		/usr/bin/python3 -c "import os, sys
for p in sys.argv[1:]:
    f = os.statvfs(p).f_flag
    print(p.split(\"/\")[-1] or p, \"nosuid\" if f & os.ST_NOSUID else \"SUID\", \"nodev\" if f & os.ST_NODEV else \"DEV\")
" dist "$HOME/.cache/t" /tmp /dev/shm
		awk "\$6 ~ /(^|,)rw(,|\$)/ && \$6 !~ /nosuid/ { print \"suid-capable:\", \$5 }" /proc/self/mountinfo' "$A"
	assert_line "euid=$(id -u)"
	assert_line --regexp '^CapEff:[[:space:]]+0000000000000000$'
	assert_line 'dist nosuid nodev'
	assert_line 't nosuid nodev'
	assert_line 'tmp nosuid nodev'
	assert_line 'shm nosuid nodev'
	refute_output --partial 'suid-capable'
	# positive control: the bits did land on the host (stripping them is the cache's)
	run -0 stat -c %a "$WS/$P/dist/a"
	assert_output '6755'
}

@test "R-21 globs expand at start: *.txt matches files, [id] is a class, \\[id\\] a literal" {
	put packages/app/pages/'[id].tsx' 'route'
	put packages/app/pages/i.tsx 'i'
	put packages/app/notes.txt 'notes'
	run -0 sb --read '*.txt' -- cat banner.txt notes.txt
	run -0 sb --read 'pages/[id].tsx' -- cat pages/i.tsx
	run -1 sb --read 'pages/[id].tsx' -- cat 'pages/[id].tsx'
	run -0 sb --read 'pages/\[id\].tsx' -- cat 'pages/[id].tsx'
	assert_output 'route'
	run -1 sb --read 'pages/\[id\].tsx' -- cat pages/i.tsx
}

@test "R-21 ~/ grants resolve from HOME" {
	export HOME=$VT/home
	mkdir -p "$HOME/.cache/tool"
	echo cached > "$HOME/.cache/tool/f"
	run -0 sb --write '~/.cache/tool/' -- sh -c 'cat ~/.cache/tool/f; echo new > ~/.cache/tool/g'
	assert_output 'cached'
	assert_file_exists "$HOME/.cache/tool/g"
}

# --- R-22 write grants ------------------------------------------------------

@test "R-22 a dir/ grant is made before the task and is writable" {
	assert_file_not_exists "$WS/$P/dist"
	run -0 sb --write dist/ -- sh -c 'echo built > dist/out.js'
	assert_file_exists "$WS/$P/dist/out.js"
}

@test "R-22 a literal is an empty placeholder: kept when written, removed when not" {
	run -0 sb --write dist/vx -- sh -c 'echo bin > dist/vx'
	assert_file_exists "$WS/$P/dist/vx"
	run -0 sb --write out/never -- true
	assert_dir_exists "$WS/$P/out"
	assert_file_not_exists "$WS/$P/out/never"
}

@test "R-22 mkdir meeting its own placeholder fails with the dir/ spelling" {
	run -1 sb --write coverage -- mkdir -p coverage/lcov
	assert_output --partial "write grant 'coverage' was made an empty file"
	assert_output --partial "spell it 'coverage/'"
	assert_file_not_exists "$WS/$P/coverage"
}

@test "R-22 a glob's static prefix is made a directory; matching nothing under a read grant says so once" {
	run -2 sb --read . --write 'gen/*.ts' -- sh -c 'echo x > gen/a.ts'
	assert_dir_exists "$WS/$P/gen"
	assert_output --partial "write grant 'gen/*.ts' matches nothing"
	assert_output --partial "allow: { write: ['gen/'] }"
	put packages/app/gen/a.ts 'old'
	run -0 sb --read . --write 'gen/*.ts' -- sh -c 'echo new > gen/a.ts'
	assert_file_contains "$WS/$P/gen/a.ts" new
	# under a writable grant it needs nothing, and nothing is said
	run -0 sb --write dist/ --write 'dist/*.map' -- sh -c 'echo m > dist/a.map'
	refute_output --partial 'matches nothing'
	assert_file_contains "$WS/$P/dist/a.map" m
}

@test "issue 19: a write glob matching nothing where no grant shows its directory is the task's own scratch (Bun's .*.tmp/**)" {
	export HOME=$VT/home
	mkdir -p "$HOME/.bun/install/cache"
	run -0 sb --read src/ --read package.json --write dist/vx --write '~/.bun/install/cache/' --write '.*.tmp/**' -- sh -c '
		mkdir .abc-00000000.tmp && echo target > .abc-00000000.tmp/bun-linux && cp -r .abc-00000000.tmp ~/.bun/install/cache/t && rm -rf .abc-00000000.tmp/bun-linux
		echo bin > dist/vx; cat src/a.js; cat banner.txt || echo walled; ls -A'
	refute_output --partial 'matches nothing'
	assert_line 'app source'
	assert_line 'walled'
	assert_file_contains "$HOME/.bun/install/cache/t/bun-linux" target
	assert_file_contains "$WS/$P/dist/vx" bin
	# nothing it left there outlives the task; the project is as it was
	run -0 ls -A "$WS/$P"
	assert_output "$(printf 'banner.txt\ndist\npackage.json\nsrc')"
}

@test "R-22 dist/**, dist/**/* and ~/x/** on a missing directory make a directory" {
	export HOME=$VT/home
	mkdir -p "$HOME"
	run -0 sb --write 'dist/**' -- mkdir -p dist/d2/a
	assert_dir_exists "$WS/$P/dist/d2/a"
	run -0 sb --write 'out/**/*' -- mkdir -p out/d2/a
	assert_dir_exists "$WS/$P/out/d2/a"
	run -0 sb --write '~/x/**' -- mkdir -p "$HOME/x/d2/a"
	assert_dir_exists "$HOME/x/d2/a"
	refute_output --partial 'names nothing yet'
}

@test "R-22 outside the project only directory shapes are made" {
	export HOME=$VT/home
	mkdir -p "$HOME"
	run -0 sb --write '~/.tool/tool.cfg' --write '~/.tool/cache/' -- true
	assert_output --partial "write grant '~/.tool/tool.cfg' names nothing yet"
	assert_file_not_exists "$HOME/.tool/tool.cfg"
	assert_dir_exists "$HOME/.tool/cache"
}

@test "R-23 rm -rf of a granted directory itself fails" {
	mkdir -p "$WS/$P/dist"
	echo x > "$WS/$P/dist/a"
	run -1 sb --read . --write dist/ -- rm -rf dist
	assert_file_not_exists "$WS/$P/dist/a"
	assert_dir_exists "$WS/$P/dist"
}

# (the mount lets the write through; under --trace it is recorded and fails
# the task, issue 35: tests/vx-run-sandbox.bats)
@test "R-26 a file grant binds its directory: the siblings become writable too" {
	run -0 sb --write out.txt -- sh -c 'echo o > out.txt; echo w > widened.txt; cat banner.txt'
	assert_output 'banner'
	assert_file_exists "$WS/$P/widened.txt"
}

# --- R-24 credential stores -------------------------------------------------

@test "R-24 credential stores are unreadable; positive control outside" {
	export HOME=$VT/home
	mkdir -p "$HOME/.ssh" "$HOME/.config/gh" "$HOME/.aws"
	echo key > "$HOME/.ssh/id_ed25519"
	echo token > "$HOME/.npmrc"
	echo gh > "$HOME/.config/gh/hosts.yml"
	echo ok > "$HOME/.profile-data"
	run -0 cat "$HOME/.ssh/id_ed25519" "$HOME/.npmrc" "$HOME/.config/gh/hosts.yml"
	run -1 sb -- cat "$HOME/.ssh/id_ed25519"
	run -0 sb -- cat "$HOME/.npmrc"
	assert_output ''
	run -1 sb -- cat "$HOME/.config/gh/hosts.yml"
	run -0 sb -- cat "$HOME/.profile-data"
	assert_output 'ok'
}

@test "R-24 a store is unreadable by another path: /proc/self/root, a HOME symlink" {
	mkdir -p "$VT/realhome/.ssh"
	echo key > "$VT/realhome/.ssh/id"
	ln -s realhome "$VT/home"
	export HOME=$VT/home
	run -0 cat "$HOME/.ssh/id"
	run -0 cat "/proc/self/root$VT/realhome/.ssh/id"
	run -1 sb -- cat "/proc/self/root$VT/realhome/.ssh/id"
	run -1 sb -- cat "$HOME/.ssh/id"
}

@test "R-24 a grant naming a store frees it" {
	export HOME=$VT/home
	mkdir -p "$HOME"
	echo token > "$HOME/.npmrc"
	run -0 sb --read '~/.npmrc' -- cat "$HOME/.npmrc"
	assert_output 'token'
}

# --- R-25 protected configs -------------------------------------------------

@test "R-25 configs inside a write grant stay read-only; other files are writable" {
	put packages/app/.bashrc 'rc'
	put packages/app/.vscode/settings.json '{}'
	put packages/app/sub/.mcp.json '{}'
	run -0 sb --write ./ -- sh -c 'echo ok > other.txt'
	assert_file_exists "$WS/$P/other.txt"
	run -2 sb --write ./ -- sh -c 'echo evil >> .bashrc'
	assert_output --partial 'Read-only file system'
	run -2 sb --write ./ -- sh -c 'echo evil > .vscode/tasks.json'
	run -2 sb --write ./ -- sh -c 'echo evil > sub/.mcp.json'
	run -1 sb --write ./ -- rm .bashrc
	assert_file_contains "$WS/$P/.bashrc" rc
}

# home_try: a task script writing each of what a program of the user's runs
# or sources at start (issue 20 item 10), printing WROTE for each it could.
home_try='for f in .bash_aliases .bash_login .bash_logout .bash_completion .zshenv .zprofile .zlogin .inputrc .tmux.conf .pam_environment .xsessionrc .gitconfig .config/git/config .config/git/attributes .config/fish/config.fish .config/fish/conf.d/x.fish .config/tmux/tmux.conf .local/bin/git bin/ls .cargo/bin/cargo .cargo/config.toml .config/autostart/x.desktop .config/systemd/user/x.service .local/share/systemd/user/x.service .config/environment.d/x.conf .local/lib/python3/site-packages/x.pth .config/direnv/direnvrc .vimrc .config/nvim/init.lua .claude/settings.json .claude.json .vscode/extensions/x.js .config/Code/User/settings.json; do
	{ mkdir -p "$(dirname "$HOME/$f")" && echo evil >> "$HOME/$f"; } 2> /dev/null && echo "WROTE $f"
	{ rm -rf "$HOME/$f" && echo evil > "$HOME/$f"; } 2> /dev/null && echo "WROTE $f"
done'

@test "issue 20: in a ~/.cargo/ or ~/.claude/ grant, what runs or is sourced at start stays read-only, present or absent" {
	export HOME=$VT/home
	mkdir -p "$HOME/.config"
	# $HOME and ~/.config themselves are refused (R-25a, next test)
	run -0 sb --write '~/.cargo/' --write '~/.claude/' -- sh -c "$home_try"'; echo ok > ~/.cargo/control && echo control'
	refute_output --partial 'WROTE'
	assert_line 'control'
	# nothing is left behind: the guards and the directories made for them go
	run -0 sh -c 'find "$HOME" -mindepth 1 | sort'
	assert_output "$(printf '%s\n' "$HOME/.cargo" "$HOME/.cargo/control" "$HOME/.claude" "$HOME/.config" | sort)"
	# present at start (the user's own): read-only too, and kept as they were
	mkdir -p "$HOME/.cargo/bin" "$HOME/.claude/commands"
	echo '[build]' > "$HOME/.cargo/config.toml"
	echo 'cargo' > "$HOME/.cargo/bin/cargo"
	echo 'settings' > "$HOME/.claude/settings.json"
	run -0 sb --write '~/.cargo/' --write '~/.claude/' -- sh -c "$home_try; cat ~/.cargo/config.toml"
	refute_output --partial 'WROTE'
	assert_line '[build]'
	assert_file_contains "$HOME/.cargo/bin/cargo" 'cargo'
	assert_file_contains "$HOME/.claude/settings.json" 'settings'
	run -0 ls -A "$HOME/.claude/commands"
	assert_output ''
	# a grant naming one frees it (while it is on no PATH: R-25a)
	run -0 sb --write '~/.cargo/bin/' -- sh -c 'echo tool > ~/.cargo/bin/tool'
	assert_file_exists "$HOME/.cargo/bin/tool"
	# a ~/.cargo that leads out of $HOME, granted as ~/.cargo/: held at
	# its target (which is what the bind makes writable)
	mv "$HOME/.cargo" "$VT/cargo"
	ln -s "$VT/cargo" "$HOME/.cargo"
	run -0 sb --write '~/.cargo/' -- sh -c 'echo evil >> ~/.cargo/config.toml || echo cfg-ro; echo evil > ~/.cargo/bin/cargo || echo bin-ro; echo ok > ~/.cargo/other && echo control'
	assert_line 'cfg-ro'
	assert_line 'bin-ro'
	assert_line 'control'
	assert_file_contains "$VT/cargo/config.toml" '[build]'
	# a user's own empty read-only config is theirs, not a guard to sweep,
	# in a project as in $HOME (a killed run's $HOME guard, 0404, is swept)
	: > "$WS/$P/.bashrc"
	chmod 0404 "$WS/$P/.bashrc"
	run -0 sb --write ./ -- true
	assert_file_exists "$WS/$P/.bashrc"
	rm "$VT/cargo/config.toml"
	: > "$VT/cargo/config.toml"
	chmod 0404 "$VT/cargo/config.toml"
	run -0 sb --write '~/.cargo/' -- true
	assert_file_not_exists "$VT/cargo/config.toml"
}

@test "R-25a a write grant reaching \$HOME, ~/.config, ~/.local or a PATH directory is refused, before anything is made: exit 2" {
	export HOME=$VT/home
	mkdir -p "$HOME/.local/share" "$HOME/bin" "$HOME/.cache"
	ln -s "$HOME" "$VT/alias"
	local path=$PATH:$HOME/bin:$HOME/.nvm/versions/node/v20/bin:/usr/local/bin
	local g
	for g in '~' '~/' '~/.' '~/x/..' '~/*' '~/**' "$HOME" "$VT/alias/" '~/.config/' '~/.local/share/x/' \
		'~/.local/*' '~/bin/' '~/bin/tool' '~/.nvm/' '/usr/local/bin/' '/usr/local/' '~/tool.cfg'; do
		PATH=$path run -2 sb --write dist/ --write "$g" -- sh -c 'echo TASK-RAN; echo x > dist/ran'
		assert_output --partial "vx-sandbox: (command line): grant '$g' refused: it reaches "
		assert_output --partial "(R-25a); fix: grant only the tool's own cache directory, such as '~/.cache/<tool>/'"
		refute_output --partial TASK-RAN
		assert_file_not_exists "$WS/$P/dist"
	done
	PATH=$path run -2 sb --write '~/.local/share/x/' -- true
	assert_output --partial "it reaches ~/.local ('$HOME/.local')"
	PATH=$path run -2 sb --write '~/.nvm/' -- true
	assert_output --partial "it reaches '$HOME/.nvm/versions/node/v20/bin', a directory on PATH"
	assert_dir_not_exists "$HOME/.nvm"
	# controls: a tool's cache under $HOME, and the same request made by vx run
	PATH=$path run -0 sb --write dist/ --write '~/.cache/tool/' --write '~/.nvm/.cache/' -- sh -c 'echo ran > dist/ran && echo ok > ~/.cache/tool/f'
	assert_file_exists "$HOME/.cache/tool/f"
	# a request file made by hand gets no further than vx-graph lets the config
	pkg packages/app @x/app '' '{ "tasks": { "t": { "exec": { "command": "echo ran > ran.txt", "sandbox": { "allow": { "write": ["./", "~/.cache/ok/"] } } } } } }'
	req @x/app#t "$BATS_TEST_TMPDIR/req.json"
	sed -i 's|~/.cache/ok/|~/.local/bin/|' "$BATS_TEST_TMPDIR/req.json"
	run -2 vx-sandbox --request "$BATS_TEST_TMPDIR/req.json"
	assert_output "vx-sandbox: @x/app#t: grant '~/.local/bin/' refused: it reaches ~/.local ('$HOME/.local'), where a task could plant code the user runs later, outside any sandbox (R-25a); fix: grant only the tool's own cache directory, such as '~/.cache/<tool>/' (vx init --sandbox names the writes a task makes)"
	assert_file_not_exists "$WS/$P/ran.txt"
	assert_dir_not_exists "$HOME/.local/bin"
}

@test "R-25 deeper than three levels below the root is not protected" {
	put packages/app/a/b/.bashrc 'rc'
	run -0 sb --write a/ -- sh -c 'echo more >> a/b/.bashrc'
}

@test "R-25 .git/hooks and .git/config in a write grant outside the workspace" {
	export HOME=$VT/home
	mkdir -p "$HOME/repo/.git/hooks"
	echo cfg > "$HOME/repo/.git/config"
	run -2 sb --write '~/repo/' -- sh -c 'echo x > ~/repo/.git/hooks/pre-commit'
	run -2 sb --write '~/repo/' -- sh -c 'echo x >> ~/repo/.git/config'
	run -0 sb --write '~/repo/' --git-config -- sh -c 'echo x >> ~/repo/.git/config'
	run -0 sb --write '~/repo/' -- sh -c 'echo x > ~/repo/file'
}

@test "R-25 allow.gitConfig lets git config write the repository's .git/config; the rest of .git stays as it was" {
	rm -rf "$WS/.git"
	git init -q "$WS"
	cp "$WS/.git/config" "$BATS_TEST_TMPDIR/config.before"
	# without it: read-only, as git says
	run -255 sb --read . --read ../../.git -- git config x.y z
	assert_output --partial 'could not lock config file'
	assert_output --partial 'Read-only file system'
	run -0 cmp "$WS/.git/config" "$BATS_TEST_TMPDIR/config.before"
	# with it, from the request as vx run hands it
	pkg packages/app @x/app '' '{ "tasks": { "t": { "exec": { "command": "git config x.y z && git config --get x.y; echo x > ../../.git/HEAD || echo head-ro; echo x > ../../.git/hooks/pre-commit || echo hooks-ro; rm -rf ../../.git/objects || echo objects-stay", "sandbox": { "allow": { "read": [".", "../../.git"], "gitConfig": true } } } } } }'
	req @x/app#t "$BATS_TEST_TMPDIR/r"
	run -0 vx-sandbox --request "$BATS_TEST_TMPDIR/r"
	assert_line 'z'
	assert_line 'head-ro'
	assert_line 'hooks-ro'
	assert_line 'objects-stay'
	run -0 git -C "$WS" config --get x.y
	assert_output 'z'
	assert_file_not_exists "$WS/.git/hooks/pre-commit"
	assert_dir_exists "$WS/.git/objects"
	# with it but no read grant of the repository: config alone shows
	run -0 sb --git-config -- sh -c "git config --file '$WS/.git/config' x.w v && ls -A '$WS/.git/objects' | wc -l"
	assert_line '0'
	run -0 git -C "$WS" config --get x.w
	assert_output 'v'
}

# --- R-26 refusals ----------------------------------------------------------

@test "R-26 a grant leaving the project through a symlink is refused" {
	mkdir -p "$BATS_TEST_TMPDIR/outside"
	ln -s "$BATS_TEST_TMPDIR/outside" "$WS/$P/out"
	run -125 sb --write out/ -- true
	assert_output --partial 'leaves the project through a symlink'
	run -125 sb --read out -- true
	ln -s ../../secret.txt "$WS/$P/s"
	run -125 sb --read s -- true
}

@test "R-26 a bind making .git, .vx/cache or a nested project writable is refused" {
	run -125 vx-sandbox --root "$WS" --project "$WS" --write out.txt -- true
	assert_output --partial '.git writable'
	mkdir -p "$WS/.vx/cache"
	run -125 vx-sandbox --root "$WS" --project "$WS" --write .vx/cache/ -- true
	assert_output --partial 'cache'
	pkg packages/app/nested @x/nested '' '{ "tasks": { "t": { "exec": { "command": "true", "sandbox": {} } } } }'
	pkg packages/app @x/app '' '{ "tasks": { "t": { "exec": { "command": "true", "sandbox": { "allow": { "write": ["./"] } } } } } }'
	put package.json '{ "name": "root", "private": true, "workspaces": ["packages/*", "packages/app/nested"] }'
	req @x/app#t "$BATS_TEST_TMPDIR/r"
	run -125 vx-sandbox --request "$BATS_TEST_TMPDIR/r"
	assert_output --partial 'nested project writable'
}

@test "issue 19: a project nested in the task's is a read wall; a read there is reported, never a stale hit" {
	put package.json '{ "name": "root", "private": true, "workspaces": ["packages/*", "packages/app/nested"] }'
	pkg packages/app/nested @x/nested
	put packages/app/nested/n.txt 'nested v1'
	put packages/app/nested/src/s.ts 'nested src'
	pkg packages/app @x/app '' '{ "tasks": { "t": { "exec": { "command": "cat banner.txt; cat nested/n.txt", "sandbox": { "allow": { "read": ["."] } } }, "cache": { "inputs": { "files": ["**"] } } } } }'
	req @x/app#t "$BATS_TEST_TMPDIR/r"
	run -1 vx-sandbox --request "$BATS_TEST_TMPDIR/r"
	assert_line 'banner'
	assert_output --partial 'nested/n.txt: No such file or directory'
	refute_output --partial 'nested v1'
	# a glob from outside does not reach it either; a grant spelled inside it does
	pkg packages/app @x/app '' '{ "tasks": { "t": { "exec": { "command": "cat nested/src/s.ts || echo glob-walled; cat nested/n.txt", "sandbox": { "allow": { "read": ["**/*.ts", "nested/n.txt"] } } } } } }'
	req @x/app#t "$BATS_TEST_TMPDIR/r"
	run -0 vx-sandbox --request "$BATS_TEST_TMPDIR/r"
	assert_line 'glob-walled'
	assert_line 'nested v1'
	# through vx run: the read is a reported violation, and no edit there
	# can turn into a hit of the old output
	pkg packages/app @x/app '' '{ "tasks": { "t": { "exec": { "command": "cat nested/n.txt", "sandbox": { "allow": { "read": ["."] } } }, "cache": { "inputs": { "files": ["**"] } } } } }'
	VX_CACHE_DIR=$BATS_TEST_TMPDIR/cache run -1 vx run @x/app#t
	assert_output --partial 'deny file-read packages/app/nested/n.txt'
	put packages/app/nested/n.txt 'nested v2'
	VX_CACHE_DIR=$BATS_TEST_TMPDIR/cache run -1 vx run @x/app#t
	refute_output --partial 'nested v1'
}

@test "R-27 a project path holding a glob character is refused" {
	mkdir -p "$WS/packages/[old]"
	run -125 vx-sandbox --root "$WS" --project "$WS/packages/[old]" -- true
	assert_output --partial "holds '['"
}

# --- R-29 git ---------------------------------------------------------------

@test "R-29 GIT_DISCOVERY_ACROSS_FILESYSTEM=1 when a grant names a .git, the task's own value wins" {
	run -0 sb --read ../../.git -- sh -c 'echo "[$GIT_DISCOVERY_ACROSS_FILESYSTEM]"; cat ../../.git/config'
	assert_line '[1]'
	assert_line '[core]'
	run -0 sb --read . -- sh -c 'echo "[$GIT_DISCOVERY_ACROSS_FILESYSTEM]"'
	assert_output '[]'
	GIT_DISCOVERY_ACROSS_FILESYSTEM=0 run -0 sb --read ../../.git -- sh -c 'echo "[$GIT_DISCOVERY_ACROSS_FILESYSTEM]"'
	assert_output '[0]'
}

@test "a read grant of the root project leaves .git and .vx walled" {
	mkdir -p "$WS/.vx/cache"
	echo e > "$WS/.vx/cache/entry"
	run -0 vx-sandbox --root "$WS" --project "$WS" --read . -- sh -c 'cat secret.txt; find .git .vx -mindepth 1 | wc -l'
	assert_line 'root secret'
	assert_line '0'
}

# --- R-28 node_modules (probes P2 P3 P4 P8, rows R1 R2 R6 R8) ----------------

@test "P2/R8: an uncached task reads a linked sibling, never an unlinked one" {
	linked
	rm "$WS/node_modules/@x/secret"
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": { "t": { "exec": { "command": "cat ../../node_modules/@x/ui/src/index.js ../ui/README.md; cat ../secret/token.txt", "sandbox": { "allow": { "read": ["."] } } } } } }'
	req @x/app#t "$BATS_TEST_TMPDIR/r"
	run -1 vx-sandbox --request "$BATS_TEST_TMPDIR/r"
	assert_line 'ui v1'
	assert_line 'ui readme'
	assert_output --partial 'token.txt: No such file or directory'
}

@test "P3/P8/R7: the root's link to the task's own project is not followed" {
	linked
	pkg packages/app @x/app '' '{ "tasks": { "t": { "exec": { "command": "cat src/a.js; cat banner.txt", "sandbox": { "allow": { "read": ["src/**"] } } } } } }'
	req @x/app#t "$BATS_TEST_TMPDIR/r"
	run -1 vx-sandbox --request "$BATS_TEST_TMPDIR/r"
	assert_line 'app source'
	assert_output --partial 'banner.txt: No such file or directory'
}

@test "R1: a cached task gets only the keyed sibling; the withheld link is not mounted" {
	linked
	pkg packages/app @x/app '{ "@x/ui": "*", "@x/secret": "*" }' '{ "tasks": { "t": { "exec": { "command": "cat ../../node_modules/@x/ui/src/index.js; cat ../../node_modules/@x/secret/token.txt", "sandbox": { "allow": { "read": ["."] } } }, "cache": {} } } }'
	req @x/app#t "$BATS_TEST_TMPDIR/r"
	run -1 vx-sandbox --request "$BATS_TEST_TMPDIR/r"
	assert_output --partial 'index.js: No such file or directory'
	assert_output --partial 'token.txt: No such file or directory'
	refute_output --partial 'ui v1'
}

@test "P4/R6: an edge to a keyed task of the package grants its link" {
	linked
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": { "t": { "exec": { "command": "cat ../../node_modules/@x/ui/src/index.js; cat ../secret/token.txt", "sandbox": { "allow": { "read": ["."] } } }, "dependsOn": ["^source"], "cache": {} } } }'
	req @x/app#t "$BATS_TEST_TMPDIR/r"
	run -1 vx-sandbox --request "$BATS_TEST_TMPDIR/r"
	assert_line 'ui v1'
	assert_output --partial 'token.txt: No such file or directory'
}

@test "R2: the same through a symlinked root" {
	linked
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": { "t": { "exec": { "command": "cat ../../node_modules/@x/ui/src/index.js", "sandbox": { "allow": { "read": ["."] } } }, "dependsOn": ["^source"], "cache": {} } } }'
	ln -s "$WS" "$BATS_TEST_TMPDIR/link"
	WS=$BATS_TEST_TMPDIR/link req @x/app#t "$BATS_TEST_TMPDIR/r"
	run -0 vx-sandbox --request "$BATS_TEST_TMPDIR/r"
	assert_output 'ui v1'
}

@test "R-28 one level into a linked package's own node_modules" {
	linked
	pkg packages/deep @x/deep
	put packages/deep/d.txt 'deep'
	mkdir -p "$WS/packages/ui/node_modules/@x"
	ln -s ../../../deep "$WS/packages/ui/node_modules/@x/deep"
	run -0 sb -- cat "$WS/node_modules/@x/ui/node_modules/@x/deep/d.txt"
	assert_output 'deep'
}

# --- the hostile task -------------------------------------------------------

@test "attack: remount a read-only grant read-write" {
	run -1 sb --read src -- "$A" remount-rw "$WS/$P/src"
	assert_output 'remount-rw: Operation not permitted'
	# without the mount filter the kernel still refuses: no capability left
	run -1 sb --read src --weaker-when-nested -- "$A" remount-rw "$WS/$P/src"
	assert_output 'remount-rw: Operation not permitted'
	run -2 sb --read src -- sh -c 'echo x > src/a.js'
}

@test "attack: unmount the workspace mask" {
	run -1 sb -- "$A" umount "$WS"
	assert_output 'umount: Operation not permitted'
	run -1 sb --weaker-when-nested -- "$A" umount "$WS"
	run -1 sb -- cat "$WS/secret.txt"
}

@test "attack: bind the host's / over a grant" {
	run -1 sb --write dist/ -- "$A" bind / "$WS/$P/dist"
	assert_output 'bind: Operation not permitted'
}

@test "attack: unshare -Ur then remount (refused unless weakerWhenNested)" {
	run -0 unshare -Ur true
	run -1 sb -- unshare -Ur true
	assert_output --partial 'Operation not permitted'
	# nested and weaker: the copies are locked, the remount still fails
	run -0 sb --read src --weaker-when-nested -- unshare -Urm sh -c \
		"echo nested; mount -o remount,bind,rw '$WS/$P/src' || echo refused; echo x > '$WS/$P/src/a.js' || echo still-ro"
	assert_line 'nested'
	assert_line 'refused'
	assert_line 'still-ro'
}

@test "attack: the new mount API (fsopen, open_tree, move_mount)" {
	run -0 unshare -Urm "$A" fsopen
	run -1 sb -- "$A" fsopen
	assert_output 'fsopen: Operation not permitted'
	run -1 sb -- "$A" open-tree /
	assert_output 'open-tree: Operation not permitted'
	run -1 sb --write dist/ -- "$A" move-mount "$WS/$P/dist" /tmp
	assert_output 'move-mount: Operation not permitted'
}

@test "attack: an fd the harness leaves open leads outside" {
	run -0 "$A" read-fd 3 secret.txt 3< "$WS"
	run -1 sb -- "$A" read-fd 3 secret.txt 3< "$WS"
	assert_output --partial 'No such file or directory'
}

@test "attack: /proc/<pid>/root and signals to a host process" {
	sleep 60 > /dev/null 2>&1 3>&- &
	BG=$!
	run -0 "$A" kill "$BG"
	run -0 ls "/proc/$BG/root/"
	run -1 sb -- "$A" kill "$BG"
	assert_output 'kill: No such process'
	run -2 sb -- ls "/proc/$BG/root/"
}

@test "attack: ptrace a host process" {
	sleep 60 > /dev/null 2>&1 3>&- &
	BG=$!
	run -0 sb -- true
	run -1 sb -- "$A" ptrace "$BG"
	assert_output 'ptrace: Operation not permitted'
	# the positive control: the same attach outside (a process tracing its child)
	run -0 sh -c "sleep 60 > /dev/null 2>&1 3>&- & pid=\$!; '$A' ptrace \$pid; rc=\$?; kill -9 \$pid; exit \$rc"
}

@test "attack: ptrace or process_vm of the sandbox's own processes" {
	run -1 sb -- sh -c "sleep 5 > /dev/null 2>&1 & exec '$A' ptrace \$!"
	assert_output 'ptrace: Operation not permitted'
}

@test "attack: a grant symlink swapped during setup never redirects a bind" {
	mkdir -p "$BATS_TEST_TMPDIR/victim"
	mkdir -p "$WS/$P/dist"
	# the swapper flips dist between a directory and a link to the victim
	(
		set +e
		cd "$WS/$P" || exit 1
		while :; do
			mv -T dist dist.d 2> /dev/null
			ln -s "$BATS_TEST_TMPDIR/victim" dist 2> /dev/null
			rm -f dist 2> /dev/null
			mv -T dist.d dist 2> /dev/null
		done
	) > /dev/null 2>&1 3>&- &
	BG=$!
	local refused=0 ran=0
	for _ in $(seq 1 60); do
		run sb --write dist/ -- sh -c 'echo pwned > dist/p && echo wrote'
		case $status in
			0) ran=$((ran + 1)) ;;
			125) refused=$((refused + 1)) ;;
		esac
	done
	kill "$BG"
	wait "$BG" || true
	BG=
	echo "# symlink swaps: $ran runs wrote inside, $refused refused" >&3
	assert_file_not_exists "$BATS_TEST_TMPDIR/victim/p"
	# positive control: the link really was there to follow
	ln -sfn "$BATS_TEST_TMPDIR/victim" "$BATS_TEST_TMPDIR/l"
	echo pwned > "$BATS_TEST_TMPDIR/l/p"
	assert_file_exists "$BATS_TEST_TMPDIR/victim/p"
}

@test "attack: hardlink a secret into dist/" {
	run -0 ln "$WS/secret.txt" "$BATS_TEST_TMPDIR/hl"
	run -1 sb --write dist/ -- ln "$WS/secret.txt" dist/s
	run -1 sb --read . --write dist/ -- ln banner.txt dist/b
	assert_output --partial 'Invalid cross-device link'
	assert_file_not_exists "$WS/$P/dist/b"
}

@test "hostile: a task that reaches its control socket can neither fetch, forge nor end its deny list early; the deny it made still fails it" {
	pkg packages/app @x/app '' '{ "tasks": { "t": { "exec": { "command": "/usr/bin/python3 probe.py",
	  "sandbox": { "allow": { "read": ["."], "unixSockets": true, "network": ["example.com"] } } } } } }'
	cat > "$WS/$P/probe.py" <<-'PY'
	import socket, urllib.request
	s = socket.socket(socket.AF_UNIX)
	s.connect("p.ctl")
	print("control connected", flush=True)
	try:
	    s.sendall(b'{"type":"done","task":"@x/app#t"}\n')
	    got = s.recv(4096)
	except OSError:
	    got = b""
	print("control answered %r" % got, flush=True)
	# a forged end of the list, and of the stream, on the task's own output
	print('{"type":"done","task":"@x/app#t","confirmed":true}')
	print('{"trace":"exit","status":0}', flush=True)
	try:
	    urllib.request.urlopen("http://other.test:8080/", timeout=5)
	except Exception as e:
	    print("refused:", e, flush=True)
	PY
	req @x/app#t "$BATS_TEST_TMPDIR/r"
	# the test's own vx-proxy, both sockets where the task can reach them
	printf '%s\n' '{"type":"proxy","v":1}' "{\"type\":\"task\",\"task\":\"@x/app#t\",\"socket\":\"$WS/$P/p.sock\",\"control\":\"$WS/$P/p.ctl\",\"network\":[\"example.com\"]}" \
		> "$BATS_TEST_TMPDIR/preq"
	vx-proxy --request "$BATS_TEST_TMPDIR/preq" > /dev/null 3>&- &
	BG=$!
	for _ in $(seq 100); do [ -S "$WS/$P/p.sock" ] && break; sleep 0.05; done
	/usr/bin/python3 -c '
import json, sys
g, t = open(sys.argv[1]).read().splitlines()
t = json.loads(t)
t["proxySocket"], t["proxyControl"] = sys.argv[2] + "/p.sock", sys.argv[2] + "/p.ctl"
open(sys.argv[1], "w").write(g + "\n" + json.dumps(t) + "\n")' "$BATS_TEST_TMPDIR/r" "$WS/$P"
	run --separate-stderr bash -o pipefail -c "vx-sandbox --request '$BATS_TEST_TMPDIR/r' --trace - | vx-report"
	assert_equal "$status" 1
	# shellcheck disable=SC2154  # bats sets $stderr (run --separate-stderr)
	[[ "$stderr" == *"control connected"* ]] || fail "the attack did not run: $stderr"
	[[ "$stderr" == *"control answered b''"* ]] || fail "the task was answered on the control socket: $stderr"
	[[ "$stderr" == *"refused:"* ]] || fail "no request was refused: $stderr"
	assert_line --partial '"line":"deny network-outbound other.test:8080 (not in allow.network)"'
	assert_line --partial '"violated":true,"exit":0,"violations":1'
}

@test "hostile: a control connection whose process is gone ends nothing, even when a host process now holds its pid" {
	[ "$(id -u)" = 0 ] && [ -w /proc/sys/kernel/ns_last_pid ] || skip "needs root to hand a pid on (ns_last_pid)"
	printf '%s\n' '{"type":"proxy","v":1}' "{\"type\":\"task\",\"task\":\"@x/app#t\",\"socket\":\"$BATS_TEST_TMPDIR/p.sock\",\"control\":\"$BATS_TEST_TMPDIR/p.ctl\",\"network\":[]}" \
		> "$BATS_TEST_TMPDIR/preq"
	vx-proxy --request "$BATS_TEST_TMPDIR/preq" > /dev/null 3>&- &
	BG=$!
	for _ in $(seq 100); do [ -S "$BATS_TEST_TMPDIR/p.ctl" ] && break; sleep 0.05; done
	# vx-proxy held still: a process of another network namespace (a
	# sandboxed task's, had it reached the socket) connects and exits, and a
	# host process is given its pid before vx-proxy looks at the connection
	run -0 /usr/bin/python3 -c '
import os, signal, subprocess, sys, time
ctl, proxy = sys.argv[1], int(sys.argv[2])
os.kill(proxy, signal.SIGSTOP)
try:
    r = subprocess.run(["unshare", "-n", "/usr/bin/python3", "-c",
        "import os, socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\nprint(os.getpid())", ctl],
        capture_output=True, text=True, check=True)
    x = int(r.stdout)
    for _ in range(20):
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(x - 1))
        pid = os.fork()
        if pid == 0:
            fd = os.open("/dev/null", os.O_RDWR)
            for i in (0, 1, 2):
                os.dup2(fd, i)
            time.sleep(60)
            os._exit(0)
        if pid == x:
            print("pid", x, "reused")
            break
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    else:
        print("pid", x, "not reused")
finally:
    os.kill(proxy, signal.SIGCONT)
' "$BATS_TEST_TMPDIR/p.ctl" "$BG"
	[[ "$output" == *" reused"* ]] || fail "no attempt: $output"
	[[ "$output" == *"not reused"* ]] && skip "the pid was taken by another process first: $output"
	HOLDER=$(sed -n 's/^pid \([0-9]*\) reused$/\1/p' <<< "$output")
	# the connection is refused, so the task's own vx-sandbox still gets its answer
	run -0 /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(20)
s.connect(sys.argv[1])
got = b""
while True:
    b = s.recv(4096)
    if not b:
        break
    got += b
print(got.decode())' "$BATS_TEST_TMPDIR/p.ctl"
	assert_output --partial '"type":"done"'
}

@test "attack: connect to a host unix socket under /tmp" {
	local dir sock
	dir=$(mktemp -d /tmp/vx-sock.XXXXXX)
	sock=$dir/s.sock
	/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8); time.sleep(60)' "$sock" &
	BG=$!
	while [ ! -S "$sock" ]; do sleep 0.05; done
	run -0 "$A" unix "$sock"
	run -1 sb --read "$dir" -- "$A" unix "$sock"
	assert_output 'socket: Operation not permitted'
	# a pair reaches only the task itself: no grant needed (R-32)
	run -0 sb --read "$dir" -- "$A" socketpair
	# the task's own grant lifts it (and the socket is then reachable)
	run -0 sb --read "$dir" --unix-sockets -- "$A" unix "$sock"
	rm -rf "$dir"
}

@test "attack: connect to a host abstract unix socket" {
	local name=vx-sandbox-test-$$
	/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind("\0" + sys.argv[1]); s.listen(8); time.sleep(60)' "$name" &
	BG=$!
	until "$A" abstract "$name" > /dev/null; do sleep 0.05; done
	run -0 "$A" abstract "$name"
	run -1 sb -- "$A" abstract "$name"
	assert_output 'socket: Operation not permitted'
	# granted sockets still cannot cross the network namespace
	run -1 sb --unix-sockets -- "$A" abstract "$name"
	assert_output 'connect: Connection refused'
}

@test "attack: io_uring openat of a denied file" {
	run -0 "$A" uring-open "$WS/secret.txt"
	run -1 sb -- "$A" uring-open "$WS/secret.txt"
	assert_output 'uring-open: Function not implemented'
}

@test "attack: io_uring socket(AF_UNIX)" {
	run -0 "$A" uring-socket
	run -1 sb -- "$A" uring-socket
	assert_output 'uring-socket: Function not implemented'
}

@test "attack: TIOCSTI into a real terminal, and its 64-bit spelling" {
	run -0 script -qec "'$A' tiocsti; '$A' tiocsti high" /dev/null
	assert_output --partial 'ok'
	refute_output --partial 'tiocsti:'
	run -0 script -qec "vx-sandbox --root '$WS' --project '$WS/$P' --read '$HELP' -- sh -c \"'$A' tiocsti; '$A' tiocsti high; true\"" /dev/null
	assert_line --partial 'tiocsti: Operation not permitted'
	refute_line --partial 'ok'
}

@test "attack: read the session keyring" {
	run -0 "$A" keyctl
	run -1 sb -- "$A" keyctl
	assert_output 'keyctl: Operation not permitted'
}

@test "attack: a setuid binary gains nothing" {
	if [ ! -u "$HELP/attack-suid" ]; then
		skip 'no setuid copy of the helper (made by tests/vx-sandbox-rootless.bats)'
	fi
	run -0 "$HELP/attack-suid" euid
	if [ "$output" != euid=0 ]; then
		skip "the helper's directory is mounted nosuid: no positive control"
	fi
	run -0 sb -- "$HELP/attack-suid" caps
	assert_line --regexp '^CapEff:[[:space:]]+0000000000000000$'
	assert_line "euid=$(id -u)"
}

@test "attack: a double-forked daemon does not outlive the task" {
	local mark=31.$$$RANDOM
	run -0 sb -- sh -c "(setsid sleep $mark &) ; sleep 0.2; grep -l 'sleep' /proc/[0-9]*/cmdline > /dev/null && echo daemon-up"
	assert_output 'daemon-up'
	run -1 running "sleep $mark"
}

@test "a SIGKILL to vx-sandbox takes the whole sandbox with it" {
	# the parent-death signal of the sandbox's pid 1 (the kernel's kill of
	# its namespace does the rest); vx-sandbox cannot forward a SIGKILL
	local mark=32.$$$RANDOM
	sb_bg "$BATS_TEST_TMPDIR/out" "(setsid sleep $mark &); echo up; exec sleep $mark"
	run -0 running "sleep $mark"
	kill -KILL "$BG"
	wait "$BG" || true
	BG=
	for _ in $(seq 1 100); do
		running "sleep $mark" || break
		sleep 0.02
	done
	run -1 running "sleep $mark"
}

@test "attack: other kernel surfaces (bpf, clone3, clone with CLONE_NEWUSER)" {
	run -1 sb -- "$A" bpf
	assert_output 'bpf: Operation not permitted'
	run -1 sb -- "$A" clone3
	assert_output 'clone3: Function not implemented'
	run -0 "$A" clone-user
	run -1 sb -- "$A" clone-user
	assert_output 'clone-user: Operation not permitted'
}

@test "R-33/R-35: a nested vx-sandbox fails fast with the cause, never runs unsandboxed" {
	# a sanitized build's leak check ptraces, which the outer filter refuses
	ASAN_OPTIONS=detect_leaks=0 run -125 sb --read "$VX_BIN_DIR" -- vx-sandbox --root "$WS" -- sh -c 'echo ran'
	assert_output --partial 'the kernel refuses to make a user namespace'
	refute_output --partial 'ran'
}

@test "R-33 weakerWhenNested lets the task sandbox" {
	ASAN_OPTIONS=detect_leaks=0 run -0 sb --read "$VX_BIN_DIR" --weaker-when-nested -- vx-sandbox --root "$WS" -- sh -c 'echo nested $$'
	# the nested task's own pid namespace: pid 2, or 3 after pid 1's detach thread
	assert_output --regexp '^nested [23]$'
}

# --- closed later: nested as root, configs made by the task, submodule .git,
# --- the task's own /sys --------------------------------------------------

@test "R-33 weakerWhenNested as root: unshare -Ur works; the task holds nothing more" {
	run -0 sb --weaker-when-nested -- sh -c 'unshare -Ur id -u; grep -E "^(CapEff|CapBnd)" /proc/self/status'
	assert_line --index 0 '0'
	assert_line --regexp '^CapEff:[[:space:]]+0000000000000000$'
	assert_line --regexp '^CapBnd:[[:space:]]+0000000000000000$'
	# the host's files are still only as writable as the grants say
	run -2 sb --weaker-when-nested -- sh -c 'echo x > secret-copy'
	assert_output --partial 'Read-only file system'
	# without weakerWhenNested the task's ids are the caller's, as before
	run -0 sb -- id -u
	assert_output "$(id -u)"
}

@test "/sys is the task's own: only its loopback, read-only, no host submounts" {
	local host_if='' i
	for i in /sys/class/net/*; do
		if [ "${i##*/}" != lo ]; then
			host_if=${i##*/}
			break
		fi
	done
	run -0 sb -- ls /sys/class/net
	assert_output 'lo'
	if [ -n "$host_if" ]; then
		refute_line "$host_if"
		run -1 sb -- cat "/sys/class/net/$host_if/address"
	fi
	run -2 sb -- sh -c 'echo 1 > /sys/kernel/uevent_helper'
	assert_output --partial 'Read-only file system'
	# the host's tracefs, debugfs, securityfs (if mounted) are out of
	# reach: listed in mountinfo at most under the host's covered copy,
	# the path shows the fresh sysfs
	run -0 sb -- sh -c 'for m in /sys/kernel/tracing /sys/kernel/debug /sys/kernel/security $(awk "\$5 ~ \"^/sys/kernel/\" { print \$5 }" /proc/self/mountinfo); do [ -e "$m" ] && stat -f -c "%T $m" "$m"; done; true'
	refute_output --regexp '^(tracefs|debugfs|securityfs|bpf_fs|pstorefs|UNKNOWN)'
}

@test "R-25 a config absent at start cannot be created in a project-wide write grant; the guards go afterwards" {
	run -2 sb --write ./ -- sh -c 'echo evil > .bashrc'
	assert_output --partial 'Read-only file system'
	run -1 sb --write ./ -- mkdir .vscode
	run -1 sb --write ./ -- mkdir -p .git/hooks
	run -2 sb --write ./ -- sh -c 'echo "{}" > .mcp.json'
	run -1 sb --write ./ -- sh -c 'touch x && mv x .profile'
	run -1 sb --write ./ -- mkdir -p .claude/agents
	run -1 sb --write ./ -- rm -f .zshrc
	# positive control: the same task writes other files, dot-files included
	run -0 sb --write ./ -- sh -c 'echo ok > out.js && echo ok > .env && rm x'
	run -0 ls -A "$WS/$P"
	assert_output "$(printf '.env\nbanner.txt\nout.js\npackage.json\nsrc')"
}

@test "R-25 an output directory gets no guards: a tool may empty it entry by entry" {
	mkdir -p "$WS/$P/dist"
	echo old > "$WS/$P/dist/.cache"
	run -0 sb --write dist/ -- sh -c 'for f in dist/.* dist/*; do case $f in */.|*/..) ;; *) rm -rf "$f";; esac; done; ls -A dist | wc -l'
	assert_output '0'
}

@test "R-25 a file grant's directory holds the absent configs too; a killed run's guard is swept" {
	run -2 sb --write out.txt -- sh -c 'echo x > out.txt; echo evil > .zshrc'
	assert_file_contains "$WS/$P/out.txt" x
	assert_file_not_exists "$WS/$P/.zshrc"
	# a guard left by a killed vx-sandbox: empty, mode 0000
	: > "$WS/$P/.bashrc"
	chmod 0 "$WS/$P/.bashrc"
	run -2 sb --write out.txt -- sh -c 'echo evil > .bashrc'
	assert_file_not_exists "$WS/$P/.bashrc"
}

@test "R-26 a submodule's .git (gitfile or directory) inside a write grant is refused" {
	mkdir -p "$WS/$P/lib"
	echo 'gitdir: ../../../.git/modules/lib' > "$WS/$P/lib/.git"
	run -125 sb --write ./ -- sh -c 'echo "gitdir: /tmp/evil" > lib/.git'
	assert_output --partial "repository '$WS/$P/lib/.git' writable"
	assert_file_contains "$WS/$P/lib/.git" 'modules/lib'
	rm "$WS/$P/lib/.git"
	mkdir -p "$WS/$P/lib/.git/hooks"
	run -125 sb --write ./ -- sh -c 'echo evil > lib/.git/hooks/pre-commit'
	assert_file_not_exists "$WS/$P/lib/.git/hooks/pre-commit"
	# positive control: with no repository there the same grant stands
	rm -rf "$WS/$P/lib/.git"
	run -0 sb --write ./ -- sh -c 'echo ok > lib/file'
	assert_file_contains "$WS/$P/lib/file" ok
}

@test "R-25 outside the workspace a submodule's gitfile stays read-only" {
	export HOME=$VT/home
	mkdir -p "$HOME/repo/sub"
	echo 'gitdir: ../.git/modules/sub' > "$HOME/repo/sub/.git"
	run -2 sb --write '~/repo/' -- sh -c 'echo "gitdir: /tmp/evil" > ~/repo/sub/.git'
	assert_output --partial 'Read-only file system'
	assert_file_contains "$HOME/repo/sub/.git" 'modules/sub'
	run -0 sb --write '~/repo/' -- sh -c 'echo ok > ~/repo/sub/file'
}
