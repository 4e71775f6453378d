#!/usr/bin/env bats
# shellcheck disable=SC2016  # task commands inside JSON expand in the task
# The tracer (vx-sandbox --trace) and the violation policy in vx run (issue 5:
# R-20, R-23, R-26, R-28, R-34, R-42), as a user sees them: the records
# written, the block printed, the exit status, what the cache kept. The
# reference's probes P1, P3, P5 and rows R5, R7, R9 are vx run scenarios.
# tests/vx-trace-rootless.bats runs this suite again as an unprivileged user.

load helpers

setup() {
	new_ws
	cd "$WS" || return 1
	export VX_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	pkg packages/ui @x/ui
	put packages/ui/src/index.js "ui v1"
	put packages/ui/README.md "ui readme v1"
	pkg packages/app @x/app '{ "@x/ui": "*" }'
	put packages/app/src/check.txt "check"
	put packages/app/banner.txt "banner v1"
	pkg packages/secret @x/secret
	put packages/secret/token.txt "token"
	TR="$BATS_TEST_TMPDIR/trace.jsonl"
}

# root_links: npm's layout, ui and app (the task's own) linked at the root;
# secret is a sibling nothing links
root_links() {
	mkdir -p "$WS/node_modules/@x"
	ln -s ../../packages/ui "$WS/node_modules/@x/ui"
	ln -s ../../packages/app "$WS/node_modules/@x/app"
}

# sb ARGS... -- CMD: vx-sandbox in the app project, traced into $TR
sb() {
	(cd "$WS/packages/app" && vx-sandbox --root "$WS" --project "$WS/packages/app" --trace "$TR" "$@")
}

# records KEY=VALUE filter: the access records as "op access path errno"
records() {
	/usr/bin/python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "trace" in r:
        continue
    print(r["op"], r["access"], r["resolved"], r["errno"] or "null", "widened" if r.get("widened") else "")
' "$TR"
}

end_count() {
	/usr/bin/python3 -c '
import json, sys
n = [json.loads(l) for l in open(sys.argv[1])]
ends = [r for r in n if r.get("trace") == "end"]
acc = [r for r in n if "trace" not in r]
print(ends[0]["events"] if ends else "none", len(acc))
' "$TR"
}

# --- the tracer alone --------------------------------------------------------

@test "a denied read and a refused write in the project are recorded with the path as named, resolved, and the errno" {
	run -2 sb -- sh -c 'cat banner.txt; echo x > out.txt'
	run -0 records
	assert_output "openat read $WS/packages/app/banner.txt ENOENT 
openat write $WS/packages/app/out.txt EROFS "
	run -0 grep -c '"path":"banner.txt"' "$TR"
	run -0 end_count
	assert_output "2 2"
}

@test "granted accesses and reads outside the workspace are not recorded" {
	run -0 sb --read . --write out/ -- sh -c 'cat banner.txt src/check.txt /etc/hostname > /dev/null; echo y > out/x; ls /usr > /dev/null'
	run -0 records
	assert_output ""
	run -0 end_count
	assert_output "0 0"
}

@test "every write call is seen: mkdir, unlink, rename, link, symlink, chmod, truncate, utimens, creat by open flags" {
	run -0 sb --read . -- sh -c 'mkdir d; rm banner.txt; mv banner.txt b2; ln banner.txt l; ln -s x s; chmod 600 banner.txt; perl -e "truncate q(banner.txt), 0"; touch banner.txt; echo > new; exit 0' 2> /dev/null
	run -0 records
	assert_line "mkdir write $WS/packages/app/d EROFS "
	assert_line "unlinkat write $WS/packages/app/banner.txt EROFS "
	assert_line --regexp "^rename(at2?)? write $WS/packages/app/b2 EROFS "
	assert_line --regexp "^link(at)? write $WS/packages/app/l EROFS "
	assert_line --regexp "^symlink(at)? write $WS/packages/app/s EROFS "
	assert_line --regexp "^fchmodat2? write $WS/packages/app/banner.txt EROFS "
	assert_line "truncate write $WS/packages/app/banner.txt EROFS "
	assert_line "utimensat write $WS/packages/app/banner.txt EROFS "
	assert_line "openat write $WS/packages/app/new EROFS "
}

@test "every read call is seen: open, stat, access, readlink, execve" {
	chmod +x "$WS/packages/app/banner.txt"
	run -0 sb -- sh -c 'cat banner.txt; stat banner.txt; test -r banner.txt; readlink banner.txt; ./banner.txt; exit 0' 2> /dev/null
	run -0 records
	assert_line "openat read $WS/packages/app/banner.txt ENOENT "
	assert_line --regexp "^(newfstatat|statx) read $WS/packages/app/banner.txt ENOENT "
	assert_line --regexp "^(faccessat2?|access) read $WS/packages/app/banner.txt ENOENT "
	assert_line --regexp "^readlink(at)? read $WS/packages/app/banner.txt ENOENT "
	assert_line "execve read $WS/packages/app/banner.txt ENOENT "
}

@test "a burst of 5,000 denied creates gives 5,000 records and an end record that counts them" {
	run -0 sb -- sh -c 'i=0; while [ $i -lt 5000 ]; do echo > f$i; i=$((i+1)); done 2> /dev/null; exit 0'
	run -0 end_count
	assert_output "5000 5000"
	run -0 grep -c '"errno":"EROFS"' "$TR"
	assert_output 5000
}

@test "every process of the task is traced: make -j4 and xargs -P4" {
	printf 'all: a b c d\na b c d:\n\t@cat ../secret/x-$@ 2>/dev/null; cat $@.txt 2>/dev/null; true\n' > "$WS/packages/app/Makefile"
	run -0 sb --read Makefile -- make -j4 -s
	run -0 records
	for t in a b c d; do assert_line "openat read $WS/packages/app/$t.txt ENOENT "; done
	run -0 sb -- sh -c 'seq 1 40 | xargs -P4 -n1 sh -c "echo > w\$0" 2> /dev/null; exit 0'
	run -0 end_count
	assert_output "40 40"
}

@test "an access by a process that exits right after it is recorded" {
	run -0 sb -- sh -c '(exec cat banner.txt) 2> /dev/null & wait; exit 0'
	run -0 records
	assert_output "openat read $WS/packages/app/banner.txt ENOENT "
}

@test "paths with spaces, newlines and non-UTF-8 bytes are valid JSON, their bytes kept in hex" {
	local odd
	odd=$(printf 'a b\nc\351.txt')
	printf 'x' > "$WS/packages/app/$odd"
	run -0 sb -- sh -c 'for f in *; do :; done; cat "$(printf "a b\nc\351.txt")" 2> /dev/null; exit 0'
	run -0 /usr/bin/python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("op") == "openat":
        print(repr(bytes.fromhex(r["path_hex"])), r["path"].encode())
' "$TR"
	assert_output "b'a b\\nc\\xe9.txt' b'a b\\nc\\xef\\xbf\\xbd.txt'"
}

@test "R-26: a read of a pre-existing file in a directory a file grant widened is recorded though it succeeds; the declared file and the task's own are not" {
	# (mine.txt removed again: a name the task leaves beside a file grant
	# is a change of its own, issue 35)
	run -0 sb --write out.txt -- sh -c 'cat banner.txt > /dev/null; echo o > out.txt; cat out.txt > /dev/null; echo n > mine.txt; cat mine.txt > /dev/null; rm mine.txt'
	run -0 records
	assert_output "openat read $WS/packages/app/banner.txt null widened"
	assert_file_exists "$WS/packages/app/out.txt"
}

@test "a symlink inside a grant that leads to a hidden file is recorded at its real path" {
	ln -s ../secret/token.txt "$WS/packages/app/tok"
	run -1 sb --read . -- cat tok
	run -0 records
	assert_output "openat read $WS/packages/secret/token.txt ENOENT "
}

@test "the tracer's cache of directories follows the task's own symlink, unlink, rename and cd" {
	# each step first has the tracer list a directory, then changes it: a
	# stale listing would resolve the next read inside the write grant, where
	# it is granted and not recorded
	run -1 sb --read . --write out/ -- sh -c '
		mkdir out/d; cat out/d/f
		ln -s ../../../secret/token.txt out/d/f; cat out/d/f
		rm out/d/f; mkdir out/d/f; cat out/d/f/none
		mkdir out/e out/g; ln -s ../../../secret out/e/s; cat out/g/s/token.txt
		rmdir out/g; mv out/e out/g; cat out/g/s/token.txt
		cd out/g && cat s/token.txt'
	run -0 records
	assert_output "openat read $WS/packages/secret/token.txt ENOENT 
openat read $WS/packages/secret/token.txt ENOENT 
openat read $WS/packages/secret/token.txt ENOENT "
}

@test "the same in a large directory, whose names the tracer looks up one by one instead of listing it" {
	# 2,000 entries: past the size at which the tracer stops listing a
	# directory (sandbox/trace_resolve.c); a name first found no link must
	# not stay so once the task makes it one
	run -1 sb --read . --write out/ -- sh -c '
		mkdir out/big && (cd out/big && seq -f "entry-with-a-long-name-%g" 2000 | xargs touch)
		cat out/big/f
		ln -s ../../../secret/token.txt out/big/f; cat out/big/f
		rm out/big/f; mkdir out/big/f; cat out/big/f/none
		cat out/big/s/token.txt; ln -s ../../../secret out/big/s; cat out/big/s/token.txt'
	run -0 records
	assert_output "openat read $WS/packages/secret/token.txt ENOENT 
openat read $WS/packages/secret/token.txt ENOENT "
}

@test "the tracer (the sandbox's pid 1) runs under a seccomp filter of its own" {
	# what that filter refuses is tried in tests/unit/test_sandbox_filter.c
	run -0 sb --read . -- sh -c 'grep "^Seccomp:" /proc/1/status'
	assert_output "$(printf 'Seccomp:\t2')"
}

@test "the task reads neither the tracer's memory nor its environment: pid 1 is undumpable" {
	# the task shares pid 1's memory until its exec, and pid 1 is dumpable
	# only while it seizes the task (sandbox/run.c, traced)
	run -0 sb --read . -- sh -c 'cat /proc/1/environ > /dev/null 2>&1 && echo environ
		dd if=/proc/1/mem bs=1 count=1 2> /dev/null && echo mem; echo end'
	assert_output "end"
}

@test "where the kernel refuses ptrace, the sandbox says so once and still enforces" {
	local inner="$BATS_TEST_TMPDIR/inner/trace.jsonl"
	mkdir -p "$BATS_TEST_TMPDIR/inner"
	# the outer filter refuses ptrace, so the inner sandbox cannot trace (nor
	# can LeakSanitizer, which stops the world with ptrace, in a sanitized build)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		run -2 sb --weaker-when-nested --read . --read "$VX_BIN_DIR" --write "$BATS_TEST_TMPDIR/inner/" -- \
		"$VX_BIN_DIR/vx-sandbox" --root "$WS" --project "$WS/packages/app" --trace "$inner" -- sh -c 'echo x > out.txt'
	assert_output --partial "refuses to trace the task"
	assert_output --partial "Read-only file system"
	assert_equal "$(grep -c 'refuses to trace' <<< "$output")" 1
	run -0 grep -c '"trace":"off"' "$inner"
	assert_file_not_exists "$WS/packages/app/out.txt"
}

@test "where the kernel refuses ptrace, the untraced rules hold: socket(AF_UNIX) refused, connect works" {
	local inner="$BATS_TEST_TMPDIR/inner/trace.jsonl"
	mkdir -p "$BATS_TEST_TMPDIR/inner"
	put packages/app/net.py 'import socket
try:
    socket.socket(socket.AF_UNIX); print("unix socket made")
except OSError as e:
    print("unix socket", e.strerror)
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(1)
c = socket.socket(); c.connect(t.getsockname()); print("tcp connect ok")'
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		run -0 sb --weaker-when-nested --read . --read "$VX_BIN_DIR" --write "$BATS_TEST_TMPDIR/inner/" -- \
		"$VX_BIN_DIR/vx-sandbox" --root "$WS" --project "$WS/packages/app" --read . --trace "$inner" -- /usr/bin/python3 net.py
	assert_line --partial "refuses to trace the task"
	assert_line "unix socket Operation not permitted"
	assert_line "tcp connect ok"
}

@test "a task cannot escape the tracer with CLONE_UNTRACED" {
	cat > "$BATS_TEST_TMPDIR/untraced.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
	long pid = syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		int fd = open("banner.txt", O_RDONLY);
		printf("child open: %d\n", fd);
		fflush(stdout);
		_exit(0);
	}
	printf("clone: %s\n", pid < 0 ? "refused" : "made");
	if (pid > 0)
		waitpid((pid_t)pid, 0, 0);
	return 0;
}
C
	cc -o "$BATS_TEST_TMPDIR/untraced" "$BATS_TEST_TMPDIR/untraced.c"
	run -0 sb --read "$BATS_TEST_TMPDIR" -- "$BATS_TEST_TMPDIR/untraced"
	assert_output "clone: refused"
}

# --- sockets and the trace file (R-32; issue 18 item 1, issue 20 items 3, 4) ---

@test "R-32: Node's child_process with piped stdio runs with only read and write grants" {
	put packages/app/spawn.js 'const c = require("child_process").spawn("cat", ["src/check.txt"], { stdio: "pipe" });
c.stdout.on("data", d => process.stdout.write("piped " + d));
c.on("error", e => { console.log(e.message); process.exitCode = 3; });'
	put packages/app/vx.json '{ "tasks": { "spawn": { "exec": { "command": "/usr/bin/node spawn.js",
		"sandbox": { "allow": { "read": ["."], "write": ["dist/"] } } } } } }'
	run -0 vx run @x/app#spawn
	assert_line "@x/app#spawn: piped check"
	refute_line --partial "SANDBOX VIOLATIONS"
	refute_output --partial "EPERM"
}

# listen SOCKET-ADDRESS: a host unix listener (a path, or @name for an
# abstract one) in the background, ready when this returns
listen_unix() {
	/usr/bin/python3 -c 'import os, socket, sys, time
a = sys.argv[1]
s = socket.socket(socket.AF_UNIX)
s.bind("\0" + a[1:] if a[0] == "@" else a)
if a[0] != "@":
    os.chmod(a, 0o777)
s.listen(8)
open(sys.argv[2], "w").close()
time.sleep(60)' "$1" "$BATS_TEST_TMPDIR/ready" &
	BG=$!
	while [ ! -e "$BATS_TEST_TMPDIR/ready" ]; do sleep 0.05; done
	rm "$BATS_TEST_TMPDIR/ready"
}

teardown() {
	if [ -n "${BG:-}" ]; then
		kill "$BG" 2> /dev/null || true
		wait "$BG" 2> /dev/null || true
	fi
	if [ -n "${SOCKDIR:-}" ]; then
		rm -rf "$SOCKDIR"
	fi
	if [ -n "${ALIASDIR:-}" ]; then
		rm -rf "$ALIASDIR"
	fi
}

# dial.py ADDRESS: connect a unix stream socket to a path, or @name for an
# abstract one; "reached", or "refused" and the error (exit 1)
dial_py() {
	put packages/app/dial.py 'import socket, sys
a = sys.argv[1]
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect("\0" + a[1:] if a[0] == "@" else a)
    print("reached", a)
except OSError as e:
    print("refused", e.strerror)
    sys.exit(1)'
}

@test "R-32 attack: a host pathname socket is refused with EPERM and named by its path; one that exists nowhere is not named; the grant reaches it" {
	SOCKDIR=$(mktemp -d /tmp/vx-trace-sock.XXXXXX)
	chmod 755 "$SOCKDIR"
	listen_unix "$SOCKDIR/host.sock"
	dial_py
	# positive control: the host reaches it
	run -0 /usr/bin/python3 packages/app/dial.py "$SOCKDIR/host.sock"
	assert_output "reached $SOCKDIR/host.sock"
	ln -s "$SOCKDIR/host.sock" packages/app/link.sock
	put packages/app/vx.json "{ \"tasks\": {
		\"dial\": { \"exec\": { \"command\": \"/usr/bin/python3 dial.py $SOCKDIR/host.sock\",
			\"sandbox\": { \"allow\": { \"read\": [\".\", \"$SOCKDIR\"] } } } },
		\"link\": { \"exec\": { \"command\": \"/usr/bin/python3 dial.py link.sock\",
			\"sandbox\": { \"allow\": { \"read\": [\".\", \"$SOCKDIR\"] } } } },
		\"none\": { \"exec\": { \"command\": \"/usr/bin/python3 dial.py $SOCKDIR/none.sock\",
			\"sandbox\": { \"allow\": { \"read\": [\".\", \"$SOCKDIR\"] } } } },
		\"granted\": { \"exec\": { \"command\": \"/usr/bin/python3 dial.py link.sock\",
			\"sandbox\": { \"allow\": { \"read\": [\".\", \"$SOCKDIR\"], \"unixSockets\": true } } } } } }"
	run -1 vx run @x/app#dial
	assert_line "@x/app#dial: refused Operation not permitted"
	assert_line "  vx: @x/app#dial: the sandbox refused a connection to the unix socket '$SOCKDIR/host.sock' (connect: EPERM), one the task did not make (a host socket such as docker's or a D-Bus bus; glibc's user lookups try nscd this way and go on); a socket the task binds itself, and socketpair, need no grant (R-32); fix: if the task needs that socket, allow.unixSockets: true"
	# a relative name through a symlink: the socket it reaches is named
	run -1 vx run @x/app#link
	assert_line "@x/app#link: refused Operation not permitted"
	assert_line --partial "  vx: @x/app#link: the sandbox refused a connection to the unix socket '$SOCKDIR/host.sock' (connect: EPERM)"
	# a socket that exists nowhere: the kernel's answer, and no word
	run -1 vx run @x/app#none
	assert_line "@x/app#none: refused No such file or directory"
	refute_output --partial "unix socket"
	run -0 vx run @x/app#granted
	assert_line "@x/app#granted: reached link.sock"
}

@test "R-32: an abstract socket lives in the sandbox's network namespace: the host's is out of reach (no grant lifts it, nothing to name), the task's own works" {
	local name="@vx-trace-$$-$RANDOM"
	listen_unix "$name"
	dial_py
	run -0 /usr/bin/python3 packages/app/dial.py "$name"
	assert_output "reached $name"
	run -1 sb --read . -- /usr/bin/python3 dial.py "$name"
	assert_output "refused Connection refused"
	run -0 records
	assert_output ""
	run -1 sb --read . --unix-sockets -- /usr/bin/python3 dial.py "$name"
	assert_output "refused Connection refused"
	run -0 sb --read . -- /usr/bin/python3 -c 'import socket, sys
l = socket.socket(socket.AF_UNIX); l.bind("\0" + sys.argv[1]); l.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect("\0" + sys.argv[1])
a, _ = l.accept(); c.sendall(b"own abstract"); print(a.recv(20).decode())' "${name:1}"
	assert_output "own abstract"
}

@test "R-32: the task's own unix sockets work without the grant: bound in its /tmp, in a write grant, by a relative name, in another process; and loopback TCP, blocking and not" {
	put packages/app/own.py 'import os, select, socket, sys
def pair(path):
    l = socket.socket(socket.AF_UNIX); l.bind(path); l.listen(1)
    c = socket.socket(socket.AF_UNIX); c.connect(path)
    a, _ = l.accept(); c.sendall(b"x"); return a.recv(1) == b"x"
print("tmp", pair("/tmp/own.sock"))
print("dist", pair("dist/own.sock"))
os.chdir("dist"); print("relative", pair("rel.sock")); os.chdir("..")
l = socket.socket(socket.AF_UNIX); l.bind("/tmp/srv.sock"); l.listen(1)
if os.fork() == 0:
    c = socket.socket(socket.AF_UNIX); c.connect("/tmp/srv.sock"); c.sendall(b"child"); os._exit(0)
a, _ = l.accept(); print("process", a.recv(5).decode()); os.wait()
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(1)
c = socket.socket(); c.connect(t.getsockname()); print("tcp blocking", t.accept()[0] is not None)
c = socket.socket(); c.setblocking(False)
print("tcp nonblocking", c.connect_ex(t.getsockname()) == 115)
select.select([], [c], [], 5); print("tcp completed", c.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0)
c = socket.socket(); print("tcp closed port", os.strerror(c.connect_ex(("127.0.0.1", 9))))'
	put packages/app/vx.json '{ "tasks": { "own": { "exec": { "command": "/usr/bin/python3 own.py",
		"sandbox": { "allow": { "read": ["."], "write": ["dist/"] } } } } } }'
	mkdir -p packages/app/dist
	run -0 vx run @x/app#own
	assert_line "@x/app#own: tmp True"
	assert_line "@x/app#own: dist True"
	assert_line "@x/app#own: relative True"
	assert_line "@x/app#own: process child"
	assert_line "@x/app#own: tcp blocking True"
	assert_line "@x/app#own: tcp nonblocking True"
	assert_line "@x/app#own: tcp completed True"
	assert_line "@x/app#own: tcp closed port Connection refused"
	refute_output --partial "vx: @x/app#own"
}

@test "R-32 attack: another thread dup2()s a unix socket onto the fd being connected: the host socket is never reached" {
	SOCKDIR=$(mktemp -d /tmp/vx-trace-sock.XXXXXX)
	chmod 755 "$SOCKDIR"
	/usr/bin/python3 -c 'import os, socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(64)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept(); open(sys.argv[3], "a").write("accepted\n"); c.close()' \
		"$SOCKDIR/host.sock" "$BATS_TEST_TMPDIR/ready" "$SOCKDIR/accepted" &
	BG=$!
	while [ ! -e "$BATS_TEST_TMPDIR/ready" ]; do sleep 0.05; done
	# the fd number holds an inet socket, then a unix one, flipped by a
	# second thread as fast as it can while the first connects it to the
	# host socket's path; each connect sees one or the other
	# (the connects go on until both kinds were met, at least 3,000 of
	# them, at most 10 s: with the GIL a first burst may all fall before
	# the flipping thread has run at all)
	put packages/app/race.py 'import ctypes, errno, socket, sys, threading, time
libc = ctypes.CDLL(None, use_errno=True)
path = sys.argv[1].encode()
addr = ctypes.create_string_buffer(b"\x01\x00" + path + b"\0", 110)
N = 50
stop = False
flipping = threading.Event()
def flip():
    while not stop:
        u = socket.socket(socket.AF_UNIX); i = socket.socket()
        for _ in range(200):
            libc.dup2(i.fileno(), N); libc.dup2(u.fileno(), N)
        flipping.set()
        u.close(); i.close()
threading.Thread(target=flip, daemon=True).start()
flipping.wait()
sys.setswitchinterval(0.0001)
seen = {}
unix = {0, errno.EPERM, errno.EISCONN}
n, end = 0, time.time() + 10
while time.time() < end:
    rc = libc.connect(N, addr, 110)
    e = 0 if rc == 0 else ctypes.get_errno()
    seen[e] = seen.get(e, 0) + 1
    n += 1
    if n >= 3000 and errno.EAFNOSUPPORT in seen and unix & seen.keys():
        break
stop = True
print(" ".join(sorted(errno.errorcode.get(k, "ok") for k in seen)))'
	put packages/app/vx.json "{ \"tasks\": { \"race\": { \"exec\": { \"command\": \"/usr/bin/python3 race.py $SOCKDIR/host.sock\",
		\"sandbox\": { \"allow\": { \"read\": [\".\", \"$SOCKDIR\"] } } } } } }"
	run -0 vx run @x/app#race
	# both kinds were judged: the unix socket refused, the inet one given
	# a unix address (or already connected by an earlier round)
	assert_line --regexp '^@x/app#race: .*EAFNOSUPPORT.*EPERM'
	assert_file_not_exists "$SOCKDIR/accepted"
	# positive control: unsandboxed, the race reaches the host socket
	run -0 /usr/bin/python3 packages/app/race.py "$SOCKDIR/host.sock"
	assert_file_exists "$SOCKDIR/accepted"
}

@test "issue 18 item 5: a direct dial out of the sandbox is recorded by address and port, and a failed task names it" {
	put packages/app/vx.json '{ "tasks": { "dial": { "exec": { "command": "/usr/bin/python3 -c \"import socket; socket.create_connection((\\\"203.0.113.1\\\", 443), 3)\"",
		"sandbox": { "allow": { "read": ["."] } } } } } }'
	run -1 vx run @x/app#dial
	assert_line --partial "OSError: [Errno 101] Network is unreachable"
	assert_line "  vx: @x/app#dial: the task dialled 203.0.113.1:443 (tcp) directly (connect: ENETUNREACH), and the sandbox has no route out: a task reaches the network only through vx-proxy, by the proxy variables (HTTPS_PROXY, HTTP_PROXY) for the hosts allow.network names; fix: make the tool use the proxy variables"
	run -1 sb --read . -- /usr/bin/python3 -c 'import socket; socket.create_connection(("2001:db8::1", 80), 3)'
	run -0 grep -c '"op":"connect","access":"net","addr":"2001:db8::1","port":80,"proto":"tcp","errno":"ENETUNREACH"' "$TR"
	# loopback stays unrecorded (the sandbox's own, and vx-proxy's bridge)
	run -1 sb --read . -- /usr/bin/python3 -c 'import socket; socket.create_connection(("127.0.0.1", 9), 3)'
	run -0 records
	assert_output ""
}

@test "R-32: user and tool lookups (id, whoami, Node's os.userInfo, git) give no unix socket finding on a failed task" {
	put packages/app/vx.json '{ "tasks": { "who": { "exec": { "command": "id -un; whoami; /usr/bin/node -e \"console.log(require(\\\"os\\\").userInfo().username)\"; git --version; exit 3",
		"sandbox": { "allow": { "read": ["."] } } } } } }'
	run -1 vx run @x/app#who
	assert_line --regexp '^@x/app#who: git version '
	refute_output --partial "unix socket"
	refute_output --partial "socket(AF_UNIX)"
	refute_output --partial "SANDBOX VIOLATIONS"
}

@test "R-32 attack: a datagram socketpair cannot sendto a host socket's path; a stream pair is free" {
	SOCKDIR=$(mktemp -d /tmp/vx-trace-sock.XXXXXX)
	chmod 755 "$SOCKDIR"
	/usr/bin/python3 -c 'import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777)
open(sys.argv[2], "w").close()
print(s.recv(100).decode(), file=open(sys.argv[2], "w"))' "$SOCKDIR/log.sock" "$SOCKDIR/got" &
	BG=$!
	while [ ! -e "$SOCKDIR/got" ]; do sleep 0.05; done
	local send='import socket, sys
try:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a.sendto(b"forged", sys.argv[1]); print("sent")
except OSError as e:
    print("refused", e.strerror)'
	run -0 sb -- /usr/bin/python3 -c "$send" "$SOCKDIR/log.sock"
	assert_output "refused Operation not permitted"
	run -0 sb -- /usr/bin/python3 -c 'import socket; a, b = socket.socketpair(); a.sendall(b"ok"); print(b.recv(2).decode())'
	assert_output "ok"
	# positive control: outside, the datagram reaches the host socket
	run -0 /usr/bin/python3 -c "$send" "$SOCKDIR/log.sock"
	assert_output "sent"
	wait "$BG"
	BG=
	run -0 cat "$SOCKDIR/got"
	assert_output "forged"
}

@test "issue 20: socket families are allow-listed: AF_VSOCK, AF_PACKET, AF_ALG and netlink audit fail; inet, inet6, netlink route and socketpair work" {
	local probe='import socket
def tryit(name, *a):
    try:
        socket.socket(*a).close(); print(name, "ok")
    except OSError as e:
        print(name, e.strerror)
tryit("vsock", socket.AF_VSOCK, socket.SOCK_STREAM)
tryit("packet", socket.AF_PACKET, socket.SOCK_DGRAM)
tryit("alg", socket.AF_ALG, socket.SOCK_SEQPACKET)
tryit("audit", socket.AF_NETLINK, socket.SOCK_RAW, 9)
tryit("route", socket.AF_NETLINK, socket.SOCK_RAW, 0)
tryit("inet", socket.AF_INET, socket.SOCK_STREAM)
tryit("inet6", socket.AF_INET6, socket.SOCK_DGRAM)
a, b = socket.socketpair(); a.sendall(b"x"); print("pair", b.recv(1).decode())'
	# positive control: the host makes a vsock socket (the module is there)
	run -0 /usr/bin/python3 -c 'import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM); print("ok")'
	run -0 sb -- /usr/bin/python3 -c "$probe"
	assert_output "vsock Address family not supported by protocol
packet Address family not supported by protocol
alg Address family not supported by protocol
audit Protocol not supported
route ok
inet ok
inet6 ok
pair x"
	# a domain with high bits set is refused too, whatever its low word
	run -0 sb -- /usr/bin/python3 -c 'import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(41, ctypes.c_long(0x100000028), 1, 0)
print(fd, os.strerror(ctypes.get_errno()) if fd < 0 else "")'
	assert_output "-1 Address family not supported by protocol"
}

@test "issue 20: a symlink or a hard link planted at the trace file's name is not followed; an own file is truncated" {
	echo precious > "$BATS_TEST_TMPDIR/victim"
	ln -s "$BATS_TEST_TMPDIR/victim" "$BATS_TEST_TMPDIR/planted"
	run -125 bash -c "cd '$WS/packages/app' && vx-sandbox --root '$WS' --project . --trace '$BATS_TEST_TMPDIR/planted' -- true"
	assert_output --partial "unable to open the trace file '$BATS_TEST_TMPDIR/planted'"
	assert_output --partial "a symlink is never followed"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/victim")" "precious"
	ln "$BATS_TEST_TMPDIR/victim" "$BATS_TEST_TMPDIR/hard"
	run -125 bash -c "cd '$WS/packages/app' && vx-sandbox --root '$WS' --project . --trace '$BATS_TEST_TMPDIR/hard' -- true"
	assert_output --partial "is not a regular file of yours with one link"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/victim")" "precious"
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	run -125 bash -c "cd '$WS/packages/app' && vx-sandbox --root '$WS' --project . --trace '$BATS_TEST_TMPDIR/fifo' -- true"
	echo "old content" > "$BATS_TEST_TMPDIR/own"
	run -0 sb -- true
	run -0 bash -c "cd '$WS/packages/app' && vx-sandbox --root '$WS' --project . --trace '$BATS_TEST_TMPDIR/own' -- true"
	run -0 grep -c '"trace":"start"' "$BATS_TEST_TMPDIR/own"
	assert_output 1
	refute [ -n "$(grep 'old content' "$BATS_TEST_TMPDIR/own")" ]
}

# --- the fast path (sandbox/fastpath.h) ---------------------------------------

# a mix of every outcome: denied and granted reads by each call, relative,
# absolute and through .., refused and granted writes, in several processes
mixed='cat banner.txt; cat src/check.txt; cat "$PWD/banner.txt" ../secret/token.txt /etc/hostname
	stat banner.txt; test -r ../secret/token.txt; readlink banner.txt; ls ../secret
	echo x > out/ok; mkdir out/d; echo y > refused.txt; mkdir nope; echo z > out.txt
	sh -c "cat ../ui/README.md; cat /usr/include/no-such.h"; exit 0'

@test "the fast path loses nothing: a mixed task's records (one of each repeat) and output equal those of every call stopping" {
	# realpath(3) too: the shim walks it itself (cc1 calls it for every
	# header); and syscall(3), as libuv makes its statx
	cat > "$BATS_TEST_TMPDIR/rp.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int c, char **v)
{
	char b[PATH_MAX];
	struct statx sx;
	for (int i = 1; i < c; i++) {
		char *r = realpath(v[i], b);
		long s = syscall(SYS_statx, AT_FDCWD, v[i], 0, STATX_BASIC_STATS, &sx);
		printf("%s %ld\n", r ? r : "-", s);
	}
	return 0;
}
C
	cc -o "$BATS_TEST_TMPDIR/rp" "$BATS_TEST_TMPDIR/rp.c"
	ln -s ../../ui "$WS/packages/app/src/ui"
	local task="\"\$0\" ../secret/token.txt src/ui/README.md src/ui src/check.txt /usr/include/../lib/. src/ui/../../secret/x; $mixed"
	run -0 sb --read src --read "$BATS_TEST_TMPDIR" --write out/ -- sh -c "$task" "$BATS_TEST_TMPDIR/rp" 2> /dev/null
	local fast_out="$output"
	run -0 records
	local fast="$output"
	rm -rf "$WS/packages/app/out"/*
	VX_TRACE_FAST=0 run -0 sb --read src --read "$BATS_TEST_TMPDIR" --write out/ -- sh -c "$task" "$BATS_TEST_TMPDIR/rp" 2> /dev/null
	assert_equal "$fast_out" "$output"
	assert_line --index 0 "- -1"
	assert_line --index 1 "- -1"
	assert_line --index 2 "- -1"
	assert_line --index 3 "$WS/packages/app/src/check.txt 0"
	assert_line --index 4 "/usr/lib 0"
	assert_line --index 5 "- -1"
	run -0 records
	# the same records; only the repeats one process makes of a failed read
	# (realpath's readlink of packages/ui for each of three paths) are sent
	# up once by the shim's memo (issue 38), vx-report naming a path once
	assert_equal "$(sort -u <<< "$fast")" "$(sort -u <<< "$output")"
	assert_equal "$(grep -c "^readlink read $WS/packages/ui ENOENT $" <<< "$output")" 3
	assert_equal "$(grep -c "^readlink read $WS/packages/ui ENOENT $" <<< "$fast")" 1
	assert_line "readlink read $WS/packages/secret ENOENT "
	assert_line "readlink read $WS/packages/ui ENOENT "
	assert_line "statx read $WS/packages/secret/token.txt ENOENT "
	assert_line "openat read $WS/packages/app/banner.txt ENOENT "
	assert_line "openat write $WS/packages/app/refused.txt EROFS "
	assert_line "mkdir write $WS/packages/app/nope EROFS "
	assert_line "openat read $WS/packages/ui/README.md ENOENT "
	assert_equal "$(grep -c banner.txt <<< "$fast")" 4
}

@test "the fast path's granted misses: a probe under a read grant stops nothing; a hidden path under one is recorded as with every call stopping" {
	mkdir -p "$WS/.git" && echo ref > "$WS/.git/HEAD"
	ln -s ../../ui "$WS/packages/app/src/ui"
	# absolute paths, as Node's module resolution probes: a name that
	# exists nowhere under the grant; a walled .git under it; a symlink
	# out of the project grant into a hidden sibling; a dangling one
	ln -s ../../secret/token.txt "$WS/packages/app/src/tok"
	local task='for f in "$0/packages/app/nope.js" "$0/packages/app/src/nope/x.json" "$0/.git/HEAD" "$0/packages/app/src/ui/README.md" "$0/packages/app/src/tok"; do stat "$f" > /dev/null 2>&1; cat "$f" 2> /dev/null; done; exit 0'
	run -0 sb --read . -- sh -c "$task" "$WS"
	run -0 records
	local fast="$output"
	VX_TRACE_FAST=0 run -0 sb --read . -- sh -c "$task" "$WS"
	run -0 records
	assert_equal "$(sort <<< "$fast")" "$(sort <<< "$output")"
	assert_line --regexp "^(newfstatat|statx) read $WS/.git/HEAD ENOENT "
	assert_line "openat read $WS/packages/ui/README.md ENOENT "
	assert_line "openat read $WS/packages/secret/token.txt ENOENT "
	refute_line --partial nope
	# the same with the whole root granted: .git is walled inside the grant
	run -0 sb --read "$WS" -- sh -c "$task" "$WS"
	run -0 records
	assert_output --regexp "(newfstatat|statx) read $WS/.git/HEAD ENOENT "
	refute_output --partial nope
	# and a probe under the grant costs the task no stop: 200 of them
	# stop as many times with the fast path off, almost never with it on
	local probes='i=0; while [ $i -lt 200 ]; do [ -e "$0/packages/app/n$i.js" ]; i=$((i + 1)); done'
	run -0 env VX_TRACE_STATS=1 vx-sandbox --root "$WS" --project "$WS/packages/app" --read . --trace "$TR" -- bash -c "$probes" "$WS"
	# (a call with no stop is left out of the stats line: none is 0)
	assert_output --partial "trace stats:"
	local on
	on=$(sed -n 's/.* \(newfstatat\|statx\) \([0-9]*\).*/\2/p' <<< "$output" | head -1)
	[ "${on:-0}" -lt 20 ] || fail "$on stat stops with the fast path: $output"
	run -0 env VX_TRACE_FAST=0 VX_TRACE_STATS=1 vx-sandbox --root "$WS" --project "$WS/packages/app" --read . --trace "$TR" -- bash -c "$probes" "$WS"
	assert_output --regexp "(newfstatat|statx) 2[0-9][0-9]"
}

@test "a failure no refusal of the sandbox gives (readlink of a directory, as realpath asks of each one) costs no stop with the fast path; every call stopping, the tracer records it EINVAL" {
	# vx-report drops such a record (the host gives the same), so the
	# shim does not hand it to pid 1: node's realpath of the project asks
	# readlink of the root and of packages/, both walls, at every start
	local py='import os, sys
for i in range(100):
    for d in sys.argv[1:]:
        try:
            os.readlink(d)
        except OSError as e:
            assert e.errno == 22, e
'
	run -0 env VX_TRACE_STATS=1 vx-sandbox --root "$WS" --project "$WS/packages/app" --read . --trace "$TR" -- /usr/bin/python3 -c "$py" "$WS" "$WS/packages"
	assert_output --partial "trace stats:"
	local on
	on=$(sed -n 's/.* readlink \([0-9]*\).*/\1/p' <<< "$output")
	[ "${on:-0}" -lt 20 ] || fail "$on readlink stops with the fast path: $output"
	run -0 records
	refute_output --partial EINVAL
	run -0 env VX_TRACE_FAST=0 VX_TRACE_STATS=1 vx-sandbox --root "$WS" --project "$WS/packages/app" --read . --trace "$TR" -- /usr/bin/python3 -c "$py" "$WS" "$WS/packages"
	assert_output --regexp " readlink 2[0-9][0-9]"
	run -0 records
	assert_line "readlink read $WS EINVAL "
	assert_line "readlink read $WS/packages EINVAL "
}

@test "the fast path takes libc's own opens (fopen, opendir, setlocale's files): no stop when they succeed, each hidden one recorded as with every call stopping" {
	# glibc opens these from inside itself, past the shim's exported
	# wrappers; the shim diverts libc's open64, openat64 and
	# __open_nocancel to them at load
	cat > "$BATS_TEST_TMPDIR/lo.c" <<'C'
#include <dirent.h>
#include <locale.h>
#include <stdio.h>
int main(int c, char **v)
{
	setlocale(LC_ALL, "");
	for (int i = 0; i < 50; i++) {
		FILE *f = fopen("/etc/hostname", "r");
		DIR *d = opendir("/usr");
		if (f)
			fclose(f);
		if (d)
			closedir(d);
	}
	for (int i = 1; i < c; i++) {
		FILE *f = fopen(v[i], "r");
		DIR *d = opendir(v[i]);
		printf("%s %d %d\n", v[i], f != NULL, d != NULL);
		if (f)
			fclose(f);
		if (d)
			closedir(d);
	}
	return 0;
}
C
	cc -o "$BATS_TEST_TMPDIR/lo" "$BATS_TEST_TMPDIR/lo.c"
	local args=(../secret/token.txt ../ui src/check.txt src banner.txt /nonexistent)
	run -0 env LANG=C.UTF-8 VX_TRACE_STATS=1 vx-sandbox --root "$WS" --project "$WS/packages/app" --read src --read "$BATS_TEST_TMPDIR" --trace "$TR" -- "$BATS_TEST_TMPDIR/lo" "${args[@]}"
	local fast_out="$output" on off
	on=$(sed -n 's/.* openat \([0-9]*\).*/\1/p' <<< "$output")
	run -0 records
	local fast="$output"
	run -0 env LANG=C.UTF-8 VX_TRACE_FAST=0 VX_TRACE_STATS=1 vx-sandbox --root "$WS" --project "$WS/packages/app" --read src --read "$BATS_TEST_TMPDIR" --trace "$TR" -- "$BATS_TEST_TMPDIR/lo" "${args[@]}"
	off=$(sed -n 's/.* openat \([0-9]*\).*/\1/p' <<< "$output")
	assert_equal "$(grep -v 'trace stats' <<< "$fast_out")" "$(grep -v 'trace stats' <<< "$output")"
	assert_line "../secret/token.txt 0 0"
	assert_line "src/check.txt 1 0"
	assert_line "src 1 1"
	run -0 records
	assert_equal "$(sort <<< "$fast")" "$(sort <<< "$output")"
	assert_line "openat read $WS/packages/secret/token.txt ENOENT "
	assert_line "openat read $WS/packages/ui ENOENT "
	assert_line "openat read $WS/packages/app/banner.txt ENOENT "
	# the loader's own opens (its cache, the shim, libc) still stop, and
	# each failed one above is made again to be recorded
	[ "${on:-0}" -lt 20 ] || fail "$on openat stops with the fast path"
	[ "${off:-0}" -ge 100 ] || fail "$off openat stops without it"
}

@test "a hidden program is recorded however it is run: by dash, through env's execvp and a PATH, by path; the same with the fast path off" {
	chmod +x "$WS/packages/secret/token.txt" "$WS/packages/app/banner.txt"
	local task='PATH="$0/packages/secret:$PATH" token.txt; PATH="$0/packages/secret:$PATH" env token.txt
		./banner.txt; env ./banner.txt; exit 0'
	run -0 sb --read src -- sh -c "$task" "$WS"
	run -0 records
	local fast="$output"
	VX_TRACE_FAST=0 run -0 sb --read src -- sh -c "$task" "$WS"
	run -0 records
	assert_equal "$fast" "$output"
	# dash searches PATH with stat; env's execvp tries each entry
	assert_line --regexp "^(newfstatat|statx) read $WS/packages/secret/token.txt ENOENT $"
	assert_line "execve read $WS/packages/secret/token.txt ENOENT "
	assert_equal "$(grep -c "^execve read $WS/packages/app/banner.txt ENOENT $" <<< "$output")" 2
}

@test "R-26: a program run from a directory a file grant widened is recorded though it succeeds" {
	printf '#!/bin/sh\necho ran\n' > "$WS/packages/app/run.sh"
	chmod +x "$WS/packages/app/run.sh"
	run -0 sb --write out.txt -- sh -c './run.sh; env ./run.sh'
	assert_output "ran
ran"
	run -0 records
	assert_equal "$(grep -c "^execve read $WS/packages/app/run.sh null widened$" <<< "$output")" 2
}

@test "the fast path with a widened directory: a succeeding read is recorded once, a failing one once" {
	run -0 sb --write out.txt -- sh -c 'cat banner.txt > /dev/null; cat ../secret/token.txt; echo o > out.txt; exit 0' 2> /dev/null
	run -0 records
	assert_output "openat read $WS/packages/app/banner.txt null widened
openat read $WS/packages/secret/token.txt ENOENT "
}

@test "the fast path is in the task: its page is mapped, the shim preloaded after the task's own" {
	local own=/lib/x86_64-linux-gnu/libdl.so.2
	[ -e "$own" ] || own=/usr/lib/x86_64-linux-gnu/libdl.so.2
	# (a sanitized vx-sandbox, preloaded the same, must not check its link order)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" LD_PRELOAD="$own" \
		run -0 sb --read . -- sh -c 'grep -c "^5a5a00000000-" /proc/self/maps; echo "$LD_PRELOAD"'
	assert_line --index 0 1
	# where the task cannot see the shim (vx under /tmp and not on PATH:
	# the task's /tmp is its own) it gets a copy in its private /tmp
	local shim seen
	shim="$(cd "$VX_BIN_DIR" && pwd)/vx-trace.so"
	seen=$(VX_TRACE_FAST=0 sb --read . -- sh -c "test -r '$shim' && echo yes || echo no" 2> /dev/null)
	[ "$seen" = yes ] || shim=/tmp/.vx-trace.so
	assert_line --index 1 "$own:$shim"
	VX_TRACE_FAST=0 run -1 sb --read . -- sh -c 'grep -c "^5a5a00000000-" /proc/self/maps'
	assert_output 0
}

@test "without the shim (LD_PRELOAD dropped, a static program) every denial is still recorded" {
	printf '#include <fcntl.h>\n#include <stdio.h>\nint main(void) { printf("%%d\\n", open("banner.txt", O_RDONLY)); return 0; }\n' \
		> "$BATS_TEST_TMPDIR/st.c"
	cc -static -o "$BATS_TEST_TMPDIR/st" "$BATS_TEST_TMPDIR/st.c"
	run -0 sb --read "$BATS_TEST_TMPDIR" -- sh -c 'env -u LD_PRELOAD cat banner.txt 2> /dev/null; env -u LD_PRELOAD sh -c "echo > w1" 2> /dev/null; "$0"; exit 0' "$BATS_TEST_TMPDIR/st" 2> /dev/null
	assert_output "-1"
	run -0 records
	assert_output "openat read $WS/packages/app/banner.txt ENOENT 
openat write $WS/packages/app/w1 EROFS 
openat read $WS/packages/app/banner.txt ENOENT "
}

@test "hostile: a task that sets the shim's VX_TRACE_ROOT or VX_TRACE_SEEN still has its undeclared reads recorded" {
	run -0 sb -- sh -c 'VX_TRACE_ROOT=/nonexistent cat "$PWD/banner.txt"; env VX_TRACE_ROOT=/ VX_TRACE_ROOT=/usr stat "$PWD/src/check.txt"; exit 0' 2> /dev/null
	run -0 records
	assert_line "openat read $WS/packages/app/banner.txt ENOENT "
	assert_line --regexp "^(newfstatat|statx) read $WS/packages/app/src/check.txt ENOENT "
	# nor one that claims the whole tree for the shim's granted misses
	run -0 sb --read src -- sh -c 'VX_TRACE_SEEN="+/" cat "$PWD/banner.txt"; VX_TRACE_SEEN="+$PWD" stat "$PWD/banner.txt"; exit 0' 2> /dev/null
	run -0 records
	assert_line "openat read $WS/packages/app/banner.txt ENOENT "
	assert_line --regexp "^(newfstatat|statx) read $WS/packages/app/banner.txt ENOENT "
	# the task's own value, made harmless, is still its to read
	run -0 sb -- sh -c 'VX_TRACE_ROOT=/x sh -c "env | grep -i ^vx_trace_root"'
	assert_output "vX_TRACE_ROOT=/x"
}

# probe N PATH...: stat each PATH N times in one process (a resolver's
# repeated probes), then print how many calls failed
probe_prog() {
	cat > "$BATS_TEST_TMPDIR/probe.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int c, char **v)
{
	int n = atoi(v[1]), failed = 0;
	struct stat st;
	for (int i = 2; i < c; i++) {
		if (v[i][0] == '=') { /* =LINK:TARGET: make a symlink between probes */
			char *t = v[i] + 1, *colon = t;
			while (*colon != ':')
				colon++;
			*colon = 0;
			unlink(t);
			rmdir(t);
			if (symlink(colon + 1, t))
				perror("symlink");
			continue;
		}
		for (int k = 0; k < n; k++)
			failed += stat(v[i], &st) != 0;
	}
	printf("%d failed\n", failed);
	return 0;
}
C
	cc -o "$BATS_TEST_TMPDIR/probe" "$BATS_TEST_TMPDIR/probe.c"
}

@test "a failed read one process repeats stops once, and is recorded as before (issue 38)" {
	probe_prog
	run -0 env VX_TRACE_STATS=1 vx-sandbox --root "$WS" --project "$WS/packages/app" --read src --read "$BATS_TEST_TMPDIR" --trace "$TR" -- \
		"$BATS_TEST_TMPDIR/probe" 50 "$WS/packages/secret/token.txt" "$WS/packages/app/nothere"
	assert_line "100 failed"
	local stops
	stops=$(sed -n 's/.* newfstatat \([0-9]*\).*/\1/p' <<< "$output")
	[ "${stops:-0}" -le 4 ] || fail "$stops newfstatat stops for two paths probed 50 times"
	run -0 records
	assert_line "newfstatat read $WS/packages/secret/token.txt ENOENT "
	assert_line "newfstatat read $WS/packages/app/nothere ENOENT "
	# the same with the fast path off: every probe stops, the same paths
	run -0 env VX_TRACE_FAST=0 VX_TRACE_STATS=1 vx-sandbox --root "$WS" --project "$WS/packages/app" --read src --read "$BATS_TEST_TMPDIR" --trace "$TR" -- \
		"$BATS_TEST_TMPDIR/probe" 50 "$WS/packages/secret/token.txt" "$WS/packages/app/nothere"
	stops=$(sed -n 's/.* newfstatat \([0-9]*\).*/\1/p' <<< "$output")
	[ "${stops:-0}" -ge 100 ] || fail "$stops newfstatat stops with the fast path off"
	run -0 records
	assert_line "newfstatat read $WS/packages/secret/token.txt ENOENT "
}

@test "VX_TRACE_STATS counts every stop: signal deliveries and the events of a fork, beside the calls (issue 38)" {
	# a Go tool's preemption signals and its threads' first stops are
	# stops too (docs/benchmarks.md session 23): three signals the shell
	# takes, three subshells forked (each a fork event and a first stop)
	local task='trap : USR1; for i in 1 2 3; do kill -USR1 $$; (exit 0); done'
	run -0 env VX_TRACE_STATS=1 vx-sandbox --root "$WS" --project "$WS/packages/app" --read . --trace "$TR" -- bash -c "$task"
	local sigs events
	sigs=$(sed -n 's/.*; \([0-9]*\) signal stops;.*/\1/p' <<< "$output")
	events=$(sed -n 's/.*; \([0-9]*\) event stops;.*/\1/p' <<< "$output")
	[ "${sigs:-0}" -ge 3 ] || fail "signal stops: '${sigs}' in: $output"
	[ "${events:-0}" -ge 6 ] || fail "event stops: '${events}' in: $output"
}

@test "hostile: a repeated failed read whose path a symlink now sends elsewhere is recorded where it lands" {
	probe_prog
	# packages/app is bound writable for the file grant (R-26), so the task
	# can plant a link there: d/token.txt fails first as itself (absent: made
	# again, traced, no event, kept in the shim's memo), then through
	# d -> ../secret, hidden; the memo must not answer those
	run -0 vx-sandbox --root "$WS" --project "$WS/packages/app" --write out.txt --read "$BATS_TEST_TMPDIR" --trace "$TR" -- \
		"$BATS_TEST_TMPDIR/probe" 3 "$WS/packages/app/d/token.txt" "=$WS/packages/app/d:../secret" "$WS/packages/app/d/token.txt"
	assert_line "6 failed"
	run -0 records
	assert_line "newfstatat read $WS/packages/secret/token.txt ENOENT "
}

@test "hostile: a call made from the fast path's page on purpose is still refused by the kernel" {
	cat > "$BATS_TEST_TMPDIR/page.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
/* the shim's own trampoline: mov rdi->rax ... syscall; ret */
static const unsigned char code[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x48, 0x89, 0xd6,
	0x48, 0x89, 0xca, 0x4d, 0x89, 0xc2, 0x4d, 0x89, 0xc8, 0x0f, 0x05, 0xc3};
int main(void)
{
	void *p = mmap((void *)0x5a5a00000000UL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	long (*t)(long, long, long, long, long, long) = (long (*)(long, long, long, long, long, long))p;
	char buf[64] = "";
	long r;
	memcpy(p, code, sizeof(code));
	r = t(SYS_openat, AT_FDCWD, (long)"../secret/token.txt", O_RDONLY, 0, 0);
	if (r >= 0)
		buf[read((int)r, buf, sizeof(buf) - 1)] = 0;
	printf("read: %ld %s\n", r, buf);
	r = t(SYS_openat, AT_FDCWD, (long)"planted.txt", O_WRONLY | O_CREAT, 0644, 0);
	printf("write: %ld\n", r);
	return 0;
}
C
	cc -o "$BATS_TEST_TMPDIR/page" "$BATS_TEST_TMPDIR/page.c"
	run -0 sb --read "$BATS_TEST_TMPDIR" -- "$BATS_TEST_TMPDIR/page"
	# the positive control: the calls ran (a result each), refused (-ENOENT, -EROFS)
	assert_output "read: -2 
write: -30"
	assert_file_not_exists "$WS/packages/app/planted.txt"
}

@test "an AddressSanitizer program runs as a traced task with the shim preloaded" {
	printf '#include <stdio.h>\n#include <stdlib.h>\nint main(void) { char *p = malloc(4); p[0] = 0; free(p); puts("asan ok"); return 0; }\n' \
		> "$BATS_TEST_TMPDIR/asan.c"
	cc -fsanitize=address -o "$BATS_TEST_TMPDIR/asan" "$BATS_TEST_TMPDIR/asan.c"
	ASAN_OPTIONS=detect_leaks=0 run -0 sb --read "$BATS_TEST_TMPDIR" -- "$BATS_TEST_TMPDIR/asan"
	assert_output "asan ok"
}

# --- vx run ------------------------------------------------------------------

@test "P3/R7: read = inputs = src/** with the root self-link: cat banner.txt fails the task, exit 0 or not, and is never cached" {
	root_links
	put packages/app/vx.json '{ "tasks": { "test": { "exec": { "command": "cat banner.txt; exit 0",
		"sandbox": { "allow": { "read": ["src/**"] } } }, "cache": { "inputs": { "files": ["src/**"] } } } } }'
	run -1 vx run @x/app#test
	assert_line --regexp '^fail @x/app#test .*\(exit 0\)$'
	assert_line "SANDBOX VIOLATIONS @x/app#test"
	assert_line "  deny file-read packages/app/banner.txt (openat: ENOENT)"
	run -1 vx run @x/app#test
	refute_line --regexp '^hit '
}

@test "R-23: a write refused with EROFS fails the task even when the command swallows it; --json carries the violations" {
	put packages/app/vx.json '{ "tasks": { "gen": { "exec": { "command": "echo x > gen.txt 2> /dev/null; exit 0",
		"sandbox": { "allow": { "read": ["."] } } } } } }'
	run -1 vx run @x/app#gen --json
	run -0 /usr/bin/python3 -c '
import json, sys
for l in sys.argv[1].splitlines():
    r = json.loads(l)
    if r.get("type") == "result":
        print(r["status"], r["exit"])
        print("\n".join(r["violations"]))
' "$output"
	assert_output "fail 0
deny file-write packages/app/gen.txt (openat: EROFS)
vx: @x/app#gen wrote 'gen.txt' in its project, where no write grant reaches (openat: EROFS); fix: allow.write: ['gen.txt']
vx: @x/app#gen: every grant above with the task's own, to merge into tasks.gen of packages/app/vx.json (objects merge, lists replace): {\"exec\":{\"sandbox\":{\"allow\":{\"read\":[\".\"],\"write\":[\"gen.txt\"]}}}}"
}

@test "P1/R5: a cached task reading an unkeyed linked sibling fails with one violation under it and the hint (root links)" {
	root_links
	put packages/app/vx.json '{ "tasks": { "test": { "exec": { "command": "cat ../../node_modules/@x/ui/src/index.js",
		"sandbox": { "allow": { "read": ["."] } } }, "cache": { "inputs": { "files": ["src/**"] } } } } }'
	run -1 vx run @x/app#test
	assert_line "  deny file-read packages/ui/src/index.js (openat: ENOENT)"
	assert_line "  vx: @x/app#test read packages/ui through node_modules/@x/ui, and its key folds no cached task of @x/ui, so an edit there would not re-run it; fix: add a dependsOn edge that reaches one (^build where @x/ui#build keys its sources, or a source task), or grant and key the files yourself (allow.read plus cache.inputs.workspaceFiles)"
	assert_equal "$(grep -c '^  deny ' <<< "$output")" 1
}

@test "P1/R5 in the pnpm/bun shape: the link in the project's own node_modules" {
	mkdir -p "$WS/packages/app/node_modules/@x"
	ln -s ../../../ui "$WS/packages/app/node_modules/@x/ui"
	put packages/app/vx.json '{ "tasks": { "test": { "exec": { "command": "cat node_modules/@x/ui/src/index.js",
		"sandbox": { "allow": { "read": ["."] } } }, "cache": { "inputs": { "files": ["src/**"] } } } } }'
	run -1 vx run @x/app#test
	assert_line "  deny file-read packages/ui/src/index.js (openat: ENOENT)"
	assert_line --partial "  vx: @x/app#test read packages/ui through packages/app/node_modules/@x/ui"
}

@test "R9: a denial under a withheld package counts; one under an unrelated sibling is the wall for an uncached task, named only as a hint" {
	root_links
	put packages/app/vx.json '{ "tasks": { "test": { "exec": { "command": "cat ../secret/token.txt; cat ../../node_modules/@x/ui/README.md",
		"sandbox": { "allow": { "read": ["."] } } }, "cache": { "inputs": { "files": ["src/**"] } } },
		"plain": { "exec": { "command": "cat ../secret/token.txt",
		"sandbox": { "allow": { "read": ["."] } } } } } }'
	run -1 vx run @x/app#plain
	refute_line --partial "deny file-read packages/secret"
	assert_line "  vx: @x/app#plain read '../secret/token.txt', which the sandbox wall hides (openat: ENOENT); fix: allow.read: ['../secret/token.txt']"
	# cached (issue 18 item 2): the sibling's file could change the output
	run -1 vx run @x/app#test
	assert_line "  deny file-read packages/ui/README.md (openat: ENOENT)"
	assert_line "  deny file-read packages/secret/token.txt (openat: ENOENT)"
	assert_line "  vx: @x/app#test read '../secret/token.txt', which the sandbox wall hides, so its output may depend on what it did not see (openat: ENOENT); fix: allow.read: ['../secret/token.txt'] and cache.inputs.workspaceFiles: ['packages/secret/token.txt']"
}

@test "P5: with an edge to a cached source task the link is granted and the task passes; the file-level residual is not reported" {
	root_links
	put packages/ui/vx.json '{ "tasks": { "source": { "exec": { "command": "true" }, "cache": { "inputs": { "files": ["src/**"] } } } } }'
	put packages/app/vx.json '{ "tasks": { "readme": { "exec": { "command": "cat ../../node_modules/@x/ui/README.md",
		"sandbox": { "allow": { "read": ["."] } } }, "dependsOn": ["^source"], "cache": { "inputs": { "files": ["src/**"] } } } } }'
	run -0 vx run @x/app#readme
	assert_line "@x/app#readme: ui readme v1"
	refute_line --partial "SANDBOX VIOLATIONS"
	put packages/ui/README.md "ui readme v2"
	run -0 vx run @x/app#readme
	assert_line --regexp '^hit  @x/app#readme '
}

@test "R-26 in vx run: a file grant's widened directory read fails the task" {
	put packages/app/vx.json '{ "tasks": { "w": { "exec": { "command": "cat banner.txt > /dev/null; echo o > out.txt",
		"sandbox": { "allow": { "write": ["out.txt"] } } } } } }'
	run -1 vx run @x/app#w
	assert_line "  deny file-read packages/app/banner.txt (openat: a file write grant bound its directory, and this was there before the task)"
}

@test "a clean sandboxed task passes and is cached; ignore.read silences a probe" {
	put packages/app/vx.json '{ "tasks": { "ok": { "exec": { "command": "cat ../secret/none.txt 2> /dev/null; cat probe.json 2> /dev/null; mkdir -p out && cp src/check.txt out/",
		"sandbox": { "allow": { "read": ["src/**"], "write": ["out/"] }, "ignore": { "read": ["probe.json"] } } },
		"cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["out/**"] } } } } }'
	put packages/app/probe.json "{}"
	run -0 vx run @x/app#ok
	refute_line --partial "SANDBOX VIOLATIONS"
	run -0 vx run @x/app#ok
	assert_line --regexp '^hit  @x/app#ok '
}

@test "a failed task names a write past the wall with the directory to grant, never the workspace root" {
	put packages/app/vx.json '{ "tasks": { "cache": { "exec": { "command": "mkdir -p ../../shared/gen",
		"sandbox": { "allow": { "read": ["."] } } } } } }'
	run -1 vx run @x/app#cache
	assert_line "  vx: @x/app#cache wrote past the sandbox wall (mkdir $WS/shared: EROFS); fix: allow.write: ['../../shared/']"
	refute_output --partial "'../../'"
}

@test "issue 18: a cached task reading the hidden root package.json (as browserslist does) fails with the grant and the key input; granted and keyed, it passes and an edit re-runs it" {
	put package.json '{ "name": "root", "private": true, "workspaces": ["packages/*"], "browserslist": ["chrome 100"] }'
	# what babel's browserslist lookup does: probe each package.json upward
	# with existsSync, read the ones that exist, fall back silently when
	# none says (measured: @babel/preset-env 7 never opens a hidden one)
	put packages/app/targets.js 'const fs = require("fs"), path = require("path");
let t = "defaults";
for (let d = process.cwd(); ; d = path.dirname(d)) {
  const p = path.join(d, "package.json");
  if (fs.existsSync(p)) { const j = JSON.parse(fs.readFileSync(p, "utf8")); if (j.browserslist) { t = j.browserslist.join(","); break; } }
  if (fs.existsSync(path.join(d, ".git")) || d === "/") break;
}
fs.mkdirSync("dist", { recursive: true });
fs.writeFileSync("dist/targets.txt", t + "\n");
console.log("targets " + t);'
	mkdir -p "$WS/.git"
	put packages/app/vx.json '{ "tasks": { "build": { "exec": { "command": "/usr/bin/node targets.js",
		"sandbox": { "allow": { "read": ["."], "write": ["dist/"] } } },
		"cache": { "inputs": { "files": ["targets.js"] }, "outputs": { "files": ["dist/**"] } } } } }'
	run -1 vx run @x/app#build
	assert_line "@x/app#build: targets defaults"
	assert_line --regexp "^  deny file-read package.json \((access|faccessat2?): ENOENT\)$"
	assert_line --regexp "^  vx: @x/app#build read '../../package.json', which the sandbox wall hides, so its output may depend on what it did not see \((access|faccessat2?): ENOENT\); fix: allow.read: \['../../package.json'\] and cache.inputs.workspaceFiles: \['package.json'\]$"
	# the existsSync probes of ../../.git are stats: no violation
	refute_line --partial ".git"
	run -1 vx run @x/app#build
	refute_line --regexp '^hit '
	# the worked example of docs/man/vx-report.md: granted and keyed
	put packages/app/vx.json '{ "tasks": { "build": { "exec": { "command": "/usr/bin/node targets.js",
		"sandbox": { "allow": { "read": [".", "../../package.json"], "write": ["dist/"] } } },
		"cache": { "inputs": { "files": ["targets.js"], "workspaceFiles": ["package.json"] }, "outputs": { "files": ["dist/**"] } } } } }'
	run -0 vx run @x/app#build
	assert_line "@x/app#build: targets chrome 100"
	refute_line --partial "SANDBOX VIOLATIONS"
	run -0 vx run @x/app#build
	assert_line --regexp '^hit  @x/app#build '
	put package.json '{ "name": "root", "private": true, "workspaces": ["packages/*"], "browserslist": ["firefox 100"] }'
	run -0 vx run @x/app#build
	assert_line "@x/app#build: targets firefox 100"
}

@test "issue 18: no false violation: mkdir -p of a directory that exists, readlink of a directory, /dev/tty with no terminal, ~/.cache; the task passes and is cached" {
	mkdir -p "$WS/packages/app/dist" "$HOME/.cache"
	put packages/app/vx.json '{ "tasks": { "t": { "exec": { "command": "mkdir -p dist src && readlink ../.. src . ; (: <> /dev/tty) 2> /dev/null; mkdir -p \"$HOME/.cache\" 2> /dev/null; /usr/bin/node -e \"require(\\\"fs\\\").mkdirSync(\\\"dist\\\", { recursive: true })\" && echo done",
		"sandbox": { "allow": { "read": ["."], "write": ["dist/"] } } },
		"cache": { "inputs": { "files": ["src/**"] } } } } }'
	run -0 vx run @x/app#t
	assert_line "@x/app#t: done"
	refute_line --partial "SANDBOX VIOLATIONS"
	refute_output --partial "EEXIST"
	refute_output --partial "E6"
	run -0 vx run @x/app#t
	assert_line --regexp '^hit  @x/app#t '
}

# --- R-34: a denial is judged by the workspace path it resolves to --------

# cached_reader CMD: @x/app#t, cached, granted its src/ only, runs CMD and
# exits 0
cached_reader() {
	/usr/bin/python3 -c '
import json, sys
t = {"exec": {"command": sys.argv[2] + "; exit 0", "sandbox": {"allow": {"read": ["src/**"]}}},
     "cache": {"inputs": {"files": ["src/**"]}}}
open(sys.argv[1], "w").write(json.dumps({"tasks": {"t": t}}))
' "$WS/packages/app/vx.json" "$1"
}

# vx_t FAST ARGS...: vx run @x/app#t from $RUNDIR ($WS unless set), with
# VX_TRACE_FAST=FAST, or with it unset when FAST is empty
vx_t() {
	local fast=$1
	shift
	(
		cd "${RUNDIR:-$WS}" || exit 2
		if [ -n "$fast" ]; then export VX_TRACE_FAST=$fast; else unset VX_TRACE_FAST; fi
		vx run @x/app#t "$@" 2>&1
	)
}

# judged_as DIRECT SPELLED...: with the fast path on and off, a cached task
# reading through each SPELLED path fails twice (exit 0, never cached) with
# the very violations and hints of one reading DIRECT; says them (vx run
# with $VXFLAGS)
judged_as() {
	local direct=$1 fast cmd out got want='' n
	local -a flags
	read -ra flags <<< "${VXFLAGS:-}"
	shift
	for fast in '' 0; do
		for cmd in "$direct" "$@"; do
			cached_reader "$cmd"
			for n in 1 2; do
				if out=$(vx_t "$fast" "${flags[@]}"); then
					printf "VX_TRACE_FAST='%s' run %s: '%s' passed:\n%s\n" "$fast" "$n" "$cmd" "$out"
					return 1
				fi
				if ! grep -qE '^fail @x/app#t .*\(exit 0\)$' <<< "$out"; then
					printf "VX_TRACE_FAST='%s' run %s: '%s' did not fail:\n%s\n" "$fast" "$n" "$cmd" "$out"
					return 1
				fi
			done
			got=$(grep -E '^  (deny|vx:) ' <<< "$out") || true
			if [ "$cmd" = "$direct" ] && [ -z "$want" ]; then
				want=$got
			elif [ "$got" != "$want" ]; then
				printf "VX_TRACE_FAST='%s': '%s' said\n%s\nwhere '%s' said\n%s\n" "$fast" "$cmd" "$got" "$direct" "$want"
				return 1
			fi
		done
	done
	printf '%s\n' "$want"
}

@test "R-34: a hidden read through a symlink the task made in its /tmp fails it as the direct read does: the project's file, the workspace's package.json" {
	run judged_as 'cat banner.txt' "ln -s '$WS/packages/app/banner.txt' /tmp/l && cat /tmp/l" \
		'ln -s "$PWD/banner.txt" /tmp/l; cat /tmp/l'
	assert_success
	assert_line "  deny file-read packages/app/banner.txt (openat: ENOENT)"
	run judged_as 'cat ../../package.json' "ln -s '$WS/package.json' /tmp/p && cat /tmp/p" \
		"ln -s '$WS' /tmp/w && cat /tmp/w/package.json"
	assert_success
	assert_line "  deny file-read package.json (openat: ENOENT)"
	assert_line "  vx: @x/app#t read '../../package.json', which the sandbox wall hides, so its output may depend on what it did not see (openat: ENOENT); fix: allow.read: ['../../package.json'] and cache.inputs.workspaceFiles: ['package.json']"
}

@test "R-34: ../ walks from outside the root are judged where they land: from /tmp, and after a symlink (the parent of its target)" {
	run judged_as 'cat ../../package.json' "cat '/tmp/..$WS/package.json'" \
		"ln -s '$WS/packages/app' /tmp/a && cat /tmp/a/../../package.json" \
		"mkdir -p /tmp/x && ln -s '$WS/packages/app' /tmp/x/a && cd /tmp/x && cat a/../../package.json"
	assert_success
	assert_line "  deny file-read package.json (openat: ENOENT)"
	run judged_as 'cat banner.txt' "ln -s '$WS/packages/app/src' /tmp/s && cat /tmp/s/../banner.txt"
	assert_success
	assert_line "  deny file-read packages/app/banner.txt (openat: ENOENT)"
}

@test "R-34: /proc magic links are judged as the task's own: /proc/self/root, /proc/self/cwd, /proc/thread-self, /proc/<pid>/cwd" {
	run judged_as 'cat ../../package.json' "cat '/proc/self/root$WS/package.json'" \
		'cat /proc/self/cwd/../../package.json' 'cat /proc/thread-self/cwd/../../package.json' \
		'cat /proc/$$/cwd/../../package.json' 'ln -s /proc/self/cwd/../.. /tmp/up && cat /tmp/up/package.json'
	assert_success
	assert_line "  deny file-read package.json (openat: ENOENT)"
	run judged_as 'cat banner.txt' 'cat /proc/self/cwd/banner.txt' "cat '/proc/self/root$WS/packages/app/banner.txt'"
	assert_success
	assert_line "  deny file-read packages/app/banner.txt (openat: ENOENT)"
}

@test "R-34 at the fast path's cost: a failed probe through a symlink that lands outside the root stops nothing; one that lands in the root stops and is recorded" {
	# 200 probes through the task's own link to /usr (as a PATH probe of
	# /bin/x where /bin is usr/bin), then 20 through its link to the root
	local probes='ln -s /usr /tmp/u; ln -s "$0" /tmp/w; i=0; while [ $i -lt 200 ]; do [ -e /tmp/u/n$i ]; [ -e /tmp/u/none/n$i ]; i=$((i + 1)); done
		i=0; while [ $i -lt 20 ]; do [ -e /tmp/w/package.json ]; i=$((i + 1)); done'
	run -0 env VX_TRACE_STATS=1 vx-sandbox --root "$WS" --project "$WS/packages/app" --read . --trace "$TR" -- bash -c "$probes" "$WS"
	local on
	on=$(sed -n 's/.* \(newfstatat\|statx\) \([0-9]*\).*/\2/p' <<< "$output" | head -1)
	[ "${on:-0}" -ge 20 ] && [ "${on:-0}" -lt 40 ] || fail "$on stat stops with the fast path: $output"
	run -0 records
	assert_line --regexp "^(newfstatat|statx) read $WS/package.json ENOENT $"
	assert_equal "$(grep -c "$WS/package.json" <<< "$output")" 20
	refute_output --partial /usr
}

@test "R-34: a workspace reached through an alias of its root (vx run in it, --root through it, a read by it) is judged by the workspace path" {
	# an alias the sandbox shows (not in /tmp, which is the task's own)
	ALIASDIR=$(mktemp -d /var/tmp/vx-trace-alias.XXXXXX)
	chmod 755 "$ALIASDIR"
	ln -s "$WS" "$ALIASDIR/proj"
	local A=$ALIASDIR/proj
	RUNDIR=$A/packages/app VXFLAGS="--root $A" run judged_as 'cat ../../package.json' \
		"cat '$A/package.json'" "cd '$A' && cat package.json" 'cat "$PWD/../../package.json"'
	assert_success
	assert_line "  deny file-read package.json (openat: ENOENT)"
	assert_line "  vx: @x/app#t read '../../package.json', which the sandbox wall hides, so its output may depend on what it did not see (openat: ENOENT); fix: allow.read: ['../../package.json'] and cache.inputs.workspaceFiles: ['package.json']"
	RUNDIR=$A VXFLAGS="--root $A" run judged_as 'cat banner.txt' "cat '$A/packages/app/banner.txt'"
	assert_success
	assert_line "  deny file-read packages/app/banner.txt (openat: ENOENT)"
}

@test "a persistent sandboxed task is enforced with no report" {
	put packages/app/vx.json '{ "tasks": {
		"serve": { "exec": { "command": "cat banner.txt; echo x > out.txt; echo served", "persistent": true, "sandbox": { "allow": { "read": ["src/**"] } } } },
		"after": { "exec": { "command": "sleep 0.3" }, "dependsOn": ["serve"] } } }'
	run vx run @x/app#after
	refute_line --partial "SANDBOX VIOLATIONS"
	assert_output --partial "Read-only file system"
	assert_file_not_exists "$WS/packages/app/out.txt"
}
