# helpers.bash: shared by every bats suite. Puts the programs under test on
# PATH (VX_BIN_DIR, else the repository's bin/) and gives each test a scratch
# workspace builder.
# shellcheck shell=bash

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load '/usr/lib/bats/bats-file/load'

VX_BIN_DIR=${VX_BIN_DIR:-$(cd "$BATS_TEST_DIRNAME/../bin" && pwd)}
export VX_BIN_DIR
PATH="$VX_BIN_DIR:$PATH"
unset VX_ROOT VX_CACHE_DIR
# Each workspace's vx-watch would stay until bats removes its run's
# directories at the end: hundreds of them take every inotify instance this
# user has (128 by default, shared with all else it runs), and then no test
# can watch. new_ws stops those of earlier tests; idle ones go after a minute.
export VX_WATCH_IDLE=${VX_WATCH_IDLE:-60}

# reap_watchers: stop the vx-watch of every earlier test's workspace (their
# tests are over; bats runs one at a time), never this test's own.
reap_watchers() {
	local pid cmd
	for pid in $(pgrep -f "^vx-watch $BATS_RUN_TMPDIR/"); do
		cmd=$(tr '\0' ' ' 2> /dev/null < "/proc/$pid/cmdline") || continue
		case $cmd in "vx-watch $BATS_TEST_TMPDIR/"*) continue ;; esac
		kill "$pid" 2> /dev/null || true
	done
}

# put FILE CONTENT: write CONTENT to FILE under the current workspace,
# creating its directories.
put() {
	mkdir -p "$(dirname "$WS/$1")"
	printf '%s\n' "$2" > "$WS/$1"
}

# corrupt FILE: change FILE's first byte in place (same size) to one it
# does not hold, so the change is certain even when the content is random.
corrupt() {
	local first
	first=$(od -An -tu1 -N1 "$1" | tr -d ' ')
	if [ "$first" = 88 ]; then printf Y; else printf X; fi |
		dd of="$1" bs=1 count=1 conv=notrunc status=none
}

# new_ws [DIR]: a fresh, empty npm-workspaces root with packages/* globs.
new_ws() {
	reap_watchers
	WS=${1:-$BATS_TEST_TMPDIR/ws}
	mkdir -p "$WS"
	put package.json '{ "name": "root", "private": true, "workspaces": ["packages/*"] }'
	export WS
}

# pkg DIR NAME [DEPS_JSON] [VX_JSON]: a project with package.json and vx.json.
pkg() {
	local dir=$1 name=$2 deps=${3:-} vx=${4:-}
	if [ -n "$deps" ]; then
		put "$dir/package.json" "{ \"name\": \"$name\", \"dependencies\": $deps }"
	else
		put "$dir/package.json" "{ \"name\": \"$name\" }"
	fi
	if [ -n "$vx" ]; then
		put "$dir/vx.json" "$vx"
	fi
}

# edit_json FILE PYTHON: rewrite the JSON object in FILE; PYTHON edits the
# dict m (the tests' hostile manifests and records).
edit_json() {
	/usr/bin/python3 -c '
import json, sys
p = sys.argv[1]
m = json.load(open(p))
exec(sys.argv[2])
open(p, "w").write(json.dumps(m))
' "$1" "$2"
}

# field JSON_LINES ID KEY: the value of KEY in the task record with id ID,
# compact JSON (python3 from Debian, never a pyenv shim).
field() {
	/usr/bin/python3 -c '
import json, sys
for line in sys.argv[1].splitlines():
    r = json.loads(line)
    if r.get("type") == "task" and r["id"] == sys.argv[2]:
        print(json.dumps(r[sys.argv[3]], separators=(",", ":")))
' "$1" "$2" "$3"
}

# ids JSON_LINES: the task ids in output order, space separated.
ids() {
	/usr/bin/python3 -c '
import json, sys
print(" ".join(json.loads(l)["id"] for l in sys.argv[1].splitlines() if json.loads(l).get("type") == "task"))
' "$1"
}

# assert_help_matches_man PROG: PROG --help agrees with docs/man/PROG.md:
# the SYNOPSIS line, every option line of OPTIONS, and the exit status text.
assert_help_matches_man() {
	local prog=$1 man="$BATS_TEST_DIRNAME/../docs/man/$1.md"
	run -0 "$prog" --help
	# shellcheck disable=SC2154  # bats sets $output
	local help=$output
	assert_line --index 0 "usage: $(sed -n '/^## SYNOPSIS/,/^## /{s/^    //p}' "$man" | head -n 1)"
	while IFS= read -r opt; do
		[[ "$help" == *"$opt"* ]] || fail "--help lacks the manual's option line: $opt"
	done < <(sed -n '/^## OPTIONS/,/^## /{/^    -/{s/^    //p}}' "$man")
	local status=${help##*Exit status: }
	[[ "$(tr -s ' \n' ' ' < "$man")" == *"$(echo "$status" | tr -s ' \n' ' ')"* ]] ||
		fail "exit status differs: $status"
}

# rootless_prepare SUITE...: when root, a world-readable copy for an
# unprivileged user (vxtest, made here if missing) of the programs
# ($ROOTLESS/bin), the suites named and this helper ($ROOTLESS/tests), and a
# home for it; the caller copies anything else a suite needs into $ROOTLESS.
# Not root: nothing (the suites already ran unprivileged).
rootless_prepare() {
	if [ "$(id -u)" != 0 ]; then
		return 0
	fi
	if ! id vxtest > /dev/null 2>&1; then
		useradd -M -s /bin/sh vxtest
	fi
	ROOTLESS=$(mktemp -d)
	mkdir -p "$ROOTLESS/bin" "$ROOTLESS/tests" "$ROOTLESS/home"
	cp "$VX_BIN_DIR"/vx* "$ROOTLESS/bin/"
	local s
	for s in "$@" helpers.bash; do
		cp "$BATS_TEST_DIRNAME/$s" "$ROOTLESS/tests/"
	done
	chown vxtest "$ROOTLESS/home"
	export ROOTLESS
}

# rootless_bats [VAR=VALUE...] -- SUITE...: run the copied suites as vxtest
# (the environment reset but for the variables given), every line shown so a
# failing inner test is named in the log; they must all pass.
rootless_bats() {
	local envs=() suites=() s
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	for s in "$@"; do
		suites+=("$ROOTLESS/tests/$s")
	done
	chmod -R a+rX "$ROOTLESS"
	run runuser -u vxtest -- env -i PATH=/usr/local/bin:/usr/bin:/bin \
		HOME="$ROOTLESS/home" VX_BIN_DIR="$ROOTLESS/bin" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" "${envs[@]}" \
		bats --tap "${suites[@]}"
	# shellcheck disable=SC2154  # lines: set by bats' run
	printf "# rootless: %s\n" "${lines[@]}" >&3
	assert_success
	refute_line --partial 'not ok'
	assert_line --regexp '^1\.\.[0-9]+$'
}

rootless_cleanup() {
	if [ -n "${ROOTLESS:-}" ]; then
		rm -rf "$ROOTLESS"
	fi
}

# apply_fix ROOT TEXT: merge each pasteable block of vx run's TEXT (a failed
# task's "every grant above with the task's own, to merge into tasks.T of
# FILE" line, vx-report(1)) into tasks.T of ROOT/FILE as a user pastes it:
# the JSON parsed, objects merged, lists replaced. Prints how many it merged.
apply_fix() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import json, re, sys
root, text = sys.argv[1], sys.argv[2]
def merge(a, b):
    if not isinstance(b, dict) or not isinstance(a, dict):
        return b
    for k, v in b.items():
        a[k] = merge(a.get(k), v)
    return a
n = 0
for l in text.splitlines():
    m = re.match(r"\s*vx: \S+: every grant above with the task's own, to merge into "
                 r"tasks\.(\S+) of (\S+) \(objects merge, lists replace\): (\{.*\})$", l)
    if m:
        path = root + "/" + m.group(2)
        with open(path) as f:
            conf = json.load(f)
        conf["tasks"][m.group(1)] = merge(conf["tasks"][m.group(1)], json.loads(m.group(3)))
        with open(path, "w") as f:
            json.dump(conf, f, indent=2)
        n += 1
print(n)
PY
}

# --- remote cache suites (vx-remote-cache.bats, vx-remote-turbo.bats) ---

free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_port PORT [LOG]: until something listens on 127.0.0.1:PORT (20 s at
# most: node starts slowly on a busy machine); on failure prints LOG
wait_port() {
	local _
	for _ in $(seq 400); do
		/usr/bin/python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2)' "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	[ -n "${2:-}" ] && cat "$2" >&2
	fail "nothing listens on port $1"
}

# remote_pair_ws: two checkouts $A and $B of one workspace (ui writes an
# executable, a private file and a symlink; app builds on ui), each task
# appending its name to ran.log; SERVER_PID cleared for stop_server
remote_pair_ws() {
	new_ws "$BATS_TEST_TMPDIR/a"
	# shellcheck disable=SC2016  # expanded by the task, not here
	pkg packages/ui @x/ui '' '{ "tasks": {
		"build": { "exec": { "command": "echo ui >> ../../ran.log && mkdir -p dist && cp src/* dist/ && chmod 750 dist/run.sh && chmod 600 dist/lib.txt && ln -sf lib.txt dist/link && echo built ui" },
		           "cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["dist/**"] } } } } }'
	put packages/ui/src/lib.txt "lib v1"
	put packages/ui/src/run.sh "#!/bin/sh"
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"build": { "exec": { "command": "echo app >> ../../ran.log && mkdir -p out && cat ../ui/dist/lib.txt src/main.txt > out/app.txt && echo built app" },
		           "dependsOn": ["^build"],
		           "cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["out/**"] } } } } }'
	put packages/app/src/main.txt "app v1"
	A=$WS
	B=$BATS_TEST_TMPDIR/b
	cp -a "$A" "$B"
	SERVER_PID=
}

# stop_server: kill and reap the background server started as SERVER_PID
stop_server() {
	if [ -n "${SERVER_PID:-}" ]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
}
