#!/usr/bin/env bats
# shellcheck disable=SC2016  # task commands inside JSON are meant to expand in the task, not here
# vx run --remote-cache (R-11) against real servers on loopback: nginx with a
# WebDAV location, and a few lines of python for the misbehaving ones. Two
# copies of one workspace with separate local caches share the server.

load helpers



# nginx in the foreground with its own prefix, logging each request's method,
# path, status and Authorization header; the cache lives under /inst (an
# instance prefix)
start_nginx() {
	NG=$BATS_TEST_TMPDIR/nginx
	mkdir -p "$NG/data" "$NG/tmp" "$NG/logs"
	local port
	port=$(free_port)
	cat > "$NG/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $NG/nginx.pid;
error_log $NG/logs/error.log;
events { worker_connections 256; }
http {
	log_format vx '\$request_method \$uri \$status "\$http_authorization"';
	access_log $NG/logs/access.log vx;
	client_body_temp_path $NG/tmp/body;
	proxy_temp_path $NG/tmp/proxy;
	fastcgi_temp_path $NG/tmp/fastcgi;
	uwsgi_temp_path $NG/tmp/uwsgi;
	scgi_temp_path $NG/tmp/scgi;
	client_max_body_size 0;
	server {
		listen 127.0.0.1:$port;
		root $NG/data;
		location / {
			dav_methods PUT;
			create_full_put_path on;
			dav_access user:rw group:r all:r;
		}
	}
}
EOF
	nginx -p "$NG" -c "$NG/nginx.conf" -e "$NG/logs/error.log" 3>&- &
	SERVER_PID=$!
	wait_port "$port"
	URL=http://127.0.0.1:$port/inst
	STORE=$NG/data/inst
}

# a python server answering every request with STATUS (0: never answering),
# logging "METHOD PATH" lines to $BATS_TEST_TMPDIR/requests
start_python() {
	local port
	port=$(free_port)
	/usr/bin/python3 -c '
import http.server, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def any(self):
        with open(sys.argv[3], "a") as f:
            f.write(self.command + " " + self.path + "\n")
        if sys.argv[2] == "0":
            time.sleep(3600)
        self.send_response(int(sys.argv[2]))
        self.send_header("Content-Length", "0")
        self.end_headers()
    do_GET = do_HEAD = do_PUT = any
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
' "$port" "$1" "$BATS_TEST_TMPDIR/requests" 3>&- &
	# shellcheck disable=SC2034  # stop_server (helpers.bash) reaps it
	SERVER_PID=$!
	wait_port "$port"
	URL=http://127.0.0.1:$port
}

setup() {
	remote_pair_ws
}

teardown() {
	stop_server
}

in_a() { (cd "$A" && VX_CACHE_DIR=$BATS_TEST_TMPDIR/cache-a "$@"); }
in_b() { (cd "$B" && VX_CACHE_DIR=$BATS_TEST_TMPDIR/cache-b "$@"); }

ran() { # what ran in workspace DIR since the last call
	if [ -f "$1/ran.log" ]; then sort "$1/ran.log" | tr '\n' ' ' | sed 's/ $//'; rm -f "$1/ran.log"; fi
}

# the one manifest on the server whose files name PATH
manifest_of() {
	grep -l "\"path\":\"$1\"" "$STORE"/ac/*
}

# the server's blob of output PATH, by the sha256 its manifest gives
blob_of() {
	/usr/bin/python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
print([f["sha256"] for f in m["files"] if f["path"] == sys.argv[2]][0])
' "$(manifest_of "$1")" "$1" | sed "s|^|$STORE/cas/|"
}

@test "two checkouts share one nginx WebDAV cache: the second run is all hits, byte for byte, modes too" {
	start_nginx
	run -0 in_a vx run build --remote-cache "$URL"
	assert_line --regexp '^miss @x/ui#build '
	assert_line --regexp '^miss @x/app#build '
	refute_output --partial 'remote cache'
	assert_equal "$(ran "$A")" "app ui"
	# the server's layout: ac/<key>, cas/<sha256 of the bytes>
	assert_equal "$(find "$STORE/ac" -type f | wc -l)" 2
	local sha
	sha=$(sha256sum < "$A/packages/ui/dist/lib.txt" | cut -d' ' -f1)
	assert_file_exists "$STORE/cas/$sha"
	assert_equal "$(blob_of dist/lib.txt)" "$STORE/cas/$sha"
	run -0 in_b vx run build --remote-cache "$URL"
	assert_line --regexp '^hit  @x/ui#build '
	assert_line --regexp '^hit  @x/app#build '
	assert_line "@x/ui#build: built ui"
	refute_output --partial 'remote cache'
	assert_equal "$(ran "$B")" ""
	for f in packages/ui/dist/lib.txt packages/ui/dist/run.sh packages/app/out/app.txt; do
		cmp "$A/$f" "$B/$f"
		assert_equal "$(stat -c %a "$B/$f")" "$(stat -c %a "$A/$f")"
	done
	assert_equal "$(stat -c %a "$B/packages/ui/dist/run.sh")" 750
	assert_equal "$(stat -c %a "$B/packages/ui/dist/lib.txt")" 600
	assert_equal "$(readlink "$B/packages/ui/dist/link")" lib.txt
	# written through: B's local cache now answers alone
	rm -rf "$B/packages/ui/dist"
	run -0 in_b vx run build
	assert_line --regexp '^hit  @x/ui#build '
	cmp "$A/packages/ui/dist/lib.txt" "$B/packages/ui/dist/lib.txt"
	# uploads skip blobs the server has: a forced rerun PUTs only manifests
	: > "$NG/logs/access.log"
	run -0 in_a vx run build --force --remote-cache "$URL"
	run -1 grep -c '^PUT /inst/cas/' "$NG/logs/access.log"
	assert_output 0
	run -0 grep -c '^HEAD /inst/cas/' "$NG/logs/access.log"
	run -0 grep -c '^PUT /inst/ac/' "$NG/logs/access.log"
	assert_output 2
}

@test "VX_REMOTE_CACHE names the server; VX_REMOTE_CACHE_TOKEN is sent as a bearer token" {
	start_nginx
	export VX_REMOTE_CACHE=$URL VX_REMOTE_CACHE_TOKEN=s3cret-token
	run -0 in_a vx run build
	run -0 in_b vx run build
	assert_line --regexp '^hit  @x/app#build '
	run -0 grep -c '^PUT /inst/ac/[0-9a-f]* 20[14] "Bearer s3cret-token"$' "$NG/logs/access.log"
	assert_output 2
	run -0 grep -c '^GET /inst/ac/[0-9a-f]* 200 "Bearer s3cret-token"$' "$NG/logs/access.log"
	assert_output 2
	run -1 grep -v 'Bearer s3cret-token' "$NG/logs/access.log"
}

@test "--no-cache asks the remote nothing" {
	start_nginx
	run -0 in_a vx run build --no-cache --remote-cache "$URL"
	run -0 cat "$NG/logs/access.log"
	assert_output ''
}

@test "read-only mode downloads hits and uploads nothing" {
	start_nginx
	VX_REMOTE_CACHE_READONLY=1 run -0 in_a vx run build --remote-cache "$URL"
	assert_line --regexp '^miss @x/ui#build '
	refute_output --partial 'remote cache'
	run -1 grep -E '^(PUT|HEAD) ' "$NG/logs/access.log"
	assert_dir_not_exists "$STORE"
	# a trusted run fills it; a read-only one then hits and still puts nothing
	run -0 in_a vx run build --force --remote-cache "$URL"
	: > "$NG/logs/access.log"
	VX_REMOTE_CACHE_READONLY=1 run -0 in_b vx run build --remote-cache "$URL"
	assert_line --regexp '^hit  @x/app#build '
	run -1 grep -E '^(PUT|HEAD) ' "$NG/logs/access.log"
}

@test "turbo's --cache: remote:r downloads hits and uploads nothing; a remote left out is not asked" {
	start_nginx
	run -0 in_a vx run build --remote-cache "$URL" --cache=local:rw,remote:r
	assert_line --regexp '^miss @x/ui#build '
	run -1 grep -E '^(PUT|HEAD) ' "$NG/logs/access.log"
	assert_dir_not_exists "$STORE"
	run -0 in_a vx run build --force --remote-cache "$URL" --cache=local:rw,remote:rw
	assert_dir_exists "$STORE"
	: > "$NG/logs/access.log"
	VX_REMOTE_CACHE="$URL" run -0 in_b vx run build --cache=local:rw
	assert_line --regexp '^miss @x/app#build '
	run -0 cat "$NG/logs/access.log"
	assert_output ''
	rm -rf "$BATS_TEST_TMPDIR/cache-b"
	VX_REMOTE_CACHE="$URL" run -0 in_b vx run build --cache=local:rw,remote:r
	assert_line --regexp '^hit  @x/app#build '
	run -1 grep -E '^(PUT|HEAD) ' "$NG/logs/access.log"
}

@test "an unreachable server is one warning and the run goes on locally" {
	local port
	port=$(free_port) # nothing listens there
	run -0 in_a vx run build --remote-cache "http://127.0.0.1:$port/"
	assert_line --regexp '^miss @x/ui#build '
	assert_line --regexp '^miss @x/app#build '
	run -0 grep -c 'remote cache' <<< "$output"
	assert_output 1
	assert_equal "$(ran "$A")" "app ui"
	# the local cache still saved them
	run -0 in_a vx run build --remote-cache "http://127.0.0.1:$port/"
	assert_line --regexp '^hit  @x/app#build '
}

@test "a server answering 500 is one warning, asked once, never a failed run" {
	start_python 500
	run -0 in_a vx run build --remote-cache "$URL"
	assert_line --regexp '^miss @x/app#build '
	run -0 grep -c "remote cache '$URL': GET $URL/ac/[0-9a-f]*: HTTP 500; going on without it" <<< "$output"
	assert_output 1
	run -0 wc -l < "$BATS_TEST_TMPDIR/requests"
	assert_output 1
}

@test "a server that accepts and never answers costs one bounded wait and one warning" {
	start_python 0
	run -0 in_a vx run build --remote-cache "$URL"
	assert_line --regexp '^miss @x/app#build '
	assert_line --regexp "remote cache '$URL': GET $URL/ac/[0-9a-f]*: Timeout was reached; going on without it"
	run -0 grep -c 'remote cache' <<< "$output"
	assert_output 1
}

@test "a tampered blob on the server is a miss and a warning, never a bad restore" {
	start_nginx
	run -0 in_a vx run build --remote-cache "$URL"
	local blob
	blob=$(blob_of dist/lib.txt)
	printf 'lib v2\n' > "$blob" # same size, other bytes
	run -0 in_b vx run build --remote-cache "$URL"
	assert_line --regexp "^vx: remote cache: entry [0-9a-f]{32}: a blob does not match its sha256; a miss$"
	assert_line --regexp '^miss @x/ui#build '
	assert_equal "$(cat "$B/packages/ui/dist/lib.txt")" "lib v1"
	# ui ran; app's key folds ui's outputs, the same again, so app still hit
	assert_equal "$(ran "$B")" "ui"
	assert_line --regexp '^hit  @x/app#build '
}

@test "a truncated blob on the server is a miss and a warning" {
	start_nginx
	run -0 in_a vx run build --remote-cache "$URL"
	local blob
	blob=$(blob_of dist/lib.txt)
	truncate -s 3 "$blob"
	run -0 in_b vx run build --remote-cache "$URL"
	assert_line --regexp "^vx: remote cache: entry [0-9a-f]{32}: a blob is truncated; a miss$"
	assert_line --regexp '^miss @x/ui#build '
	assert_equal "$(cat "$B/packages/ui/dist/lib.txt")" "lib v1"
	# nothing of the bad download stayed in B's local cache
	run -0 env VX_CACHE_DIR="$BATS_TEST_TMPDIR/cache-b" vx-cache verify
	run -0 find "$BATS_TEST_TMPDIR/cache-b/tmp" -type f
	assert_output ''
}

@test "a tampered manifest is a miss and a warning: another key, a path out of the project, garbage" {
	start_nginx
	run -0 in_a vx run build --remote-cache "$URL"
	local m
	m=$(manifest_of dist/lib.txt)
	sed -i 's/"key":"[0-9a-f]*"/"key":"00000000000000000000000000000000"/' "$m"
	run -0 in_b vx run build --remote-cache "$URL"
	assert_line --regexp "^vx: remote cache: entry [0-9a-f]{32}: the manifest names another key; a miss$"
	assert_line --regexp '^miss @x/ui#build '
	rm -rf "$B/packages/ui/dist" "$BATS_TEST_TMPDIR/cache-b"
	run -0 in_a vx run build --force --remote-cache "$URL"
	sed -i 's|"path":"dist/lib.txt"|"path":"../../../escaped.txt"|' "$m"
	run -0 in_b vx run build --remote-cache "$URL"
	assert_line --regexp "^vx: remote cache: entry [0-9a-f]{32}: a path outside the project; a miss$"
	assert_file_not_exists "$BATS_TEST_TMPDIR/escaped.txt"
	rm -rf "$B/packages/ui/dist" "$BATS_TEST_TMPDIR/cache-b"
	printf '{"v":1,"key":' > "$m"
	run -0 in_b vx run build --remote-cache "$URL"
	assert_line --regexp "^vx: remote cache: entry [0-9a-f]{32}: the manifest does not parse; a miss$"
	assert_line --regexp '^miss @x/ui#build '
	assert_equal "$(cat "$B/packages/ui/dist/lib.txt")" "lib v1"
}

# task_pkg NAME COMMAND: a package @x/NAME in both checkouts whose build runs
# COMMAND, cached with src/** as inputs and out/** as outputs
task_pkg() {
	pkg "packages/$1" "@x/$1" '' '{ "tasks": {
		"build": { "exec": { "command": "'"$2"'" },
		           "cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["out/**"] } } } } }'
	put "packages/$1/src/x" "x"
	cp -a "$A/packages/$1" "$B/packages/$1"
}

# tamper_server PATH PYTHON: rewrite the server's manifest naming PATH;
# PYTHON edits the dict m
tamper_server() {
	edit_json "$(manifest_of "$1")" "$2"
}

@test "a task's setuid output is saved, uploaded and restored without the bit" {
	start_nginx
	task_pkg suid 'mkdir -p out && cp /bin/true out/t && chmod 6755 out/t'
	run -0 in_a vx run @x/suid#build --remote-cache "$URL"
	assert_line --regexp '^miss @x/suid#build '
	assert_line "vx: @x/suid#build: stripped the setuid, setgid and sticky bits of 'out/t' (6755 -> 755)"
	assert_equal "$(stat -c %a "$A/packages/suid/out/t")" 755
	run -1 grep -l '"mode":3565' "$STORE"/ac/*
	run -0 in_b vx run @x/suid#build --remote-cache "$URL"
	assert_line --regexp '^hit  @x/suid#build '
	assert_equal "$(stat -c %a "$B/packages/suid/out/t")" 755
	rm -rf "$A/packages/suid/out"
	run -0 in_a vx run @x/suid#build
	assert_line --regexp '^hit  @x/suid#build '
	assert_equal "$(stat -c %a "$A/packages/suid/out/t")" 755
}

@test "a server's entry with a setuid, setgid or sticky file is refused outright: a miss and a warning" {
	start_nginx
	run -0 in_a vx run build --remote-cache "$URL"
	for mode in 0o4750 0o2750 0o1750; do
		tamper_server dist/run.sh "[f for f in m['files'] if f['path'] == 'dist/run.sh'][0]['mode'] = $mode"
		rm -rf "$B/packages/ui/dist" "$BATS_TEST_TMPDIR/cache-b"
		run -0 in_b vx run @x/ui#build --remote-cache "$URL"
		assert_line --regexp "^vx: remote cache: entry [0-9a-f]{32}: 'dist/run.sh' asks for setuid, setgid or sticky bits; a miss$"
		assert_line --regexp '^miss @x/ui#build '
		assert_equal "$(ran "$B")" "ui"
		assert_equal "$(stat -c %a "$B/packages/ui/dist/run.sh")" 750
	done
}

# forge_ui: what a hostile server can make of its own store: ui's entry
# ($UI, kept in ui.good) under its key, but with dist/lib.txt holding other
# bytes, whose blob it serves too (taken from a third checkout's upload
# under another key). With SIG, that upload's signature is kept; without,
# the entry is unsigned.
forge_ui() {
	local C=$BATS_TEST_TMPDIR/c forged key
	if [ ! -d "$C" ]; then
		cp -a "$A" "$C"
		printf 'lib v1 forged\n' > "$C/packages/ui/src/lib.txt"
		(cd "$C" && VX_CACHE_DIR=$BATS_TEST_TMPDIR/cache-c vx run @x/ui#build --remote-cache "$URL" >"$BATS_TEST_TMPDIR/c.out" 2>&1)
	fi
	forged=$(grep -l '"path":"dist/lib.txt"' "$STORE"/ac/* | grep -v "^$UI\$")
	cp "$UI" "$BATS_TEST_TMPDIR/ui.good"
	key=$(basename "$UI")
	sed "s/\"key\":\"[0-9a-f]*\"/\"key\":\"$key\"/" "$forged" > "$UI"
	if [ "${1:-}" != SIG ]; then
		sed -i 's/,"sig":"hmac-sha256:[0-9a-f]*"}$/}/' "$UI"
	fi
}

@test "with a signing key, a server's forged entry restores nothing; a signed one still hits" {
	start_nginx
	export VX_REMOTE_CACHE_SIGNING_KEY=0123456789abcdef-test-key
	run -0 in_a vx run build --remote-cache "$URL"
	run -0 grep -c ',"sig":"hmac-sha256:[0-9a-f]\{64\}"}$' "$STORE"/ac/*
	UI=$(manifest_of dist/lib.txt)
	# the signature is the documented one (remote.h, docs/protocol.md)
	run -0 /usr/bin/python3 -c '
import hashlib, hmac, os, sys
body = open(sys.argv[1], "rb").read()
i = body.rindex(b",\"sig\":\"hmac-sha256:")
msg = b"vx-remote-ac 1\n" + os.path.basename(sys.argv[1]).encode() + b"\n" + body[:i] + b"}"
print(hmac.new(sys.argv[2].encode(), msg, hashlib.sha256).hexdigest() == body[i + 20:-2].decode())
' "$UI" "$VX_REMOTE_CACHE_SIGNING_KEY"
	assert_output True
	# the forged entry is well formed: a reader with no key restores it
	forge_ui
	run -0 env -u VX_REMOTE_CACHE_SIGNING_KEY VX_CACHE_DIR="$BATS_TEST_TMPDIR/cache-x" \
		sh -c "cd '$B' && vx run @x/ui#build --remote-cache '$URL'"
	assert_line --regexp '^hit  @x/ui#build '
	assert_equal "$(cat "$B/packages/ui/dist/lib.txt")" "lib v1 forged"
	rm -rf "$B/packages/ui/dist"
	# with the key: unsigned, a miss and one warning, nothing of it restored
	run -0 in_b vx run @x/ui#build --remote-cache "$URL"
	assert_line --regexp "^vx: remote cache: entry [0-9a-f]{32}: unsigned, or not signed with this signing key; a miss$"
	assert_line --regexp '^miss @x/ui#build '
	assert_equal "$(cat "$B/packages/ui/dist/lib.txt")" "lib v1"
	run -1 grep -rl 'forged' "$BATS_TEST_TMPDIR/cache-b"
	# another entry's good signature, moved under this key: a miss too
	run -0 in_a vx run build --force --remote-cache "$URL"
	forge_ui SIG
	rm -rf "$B/packages/ui/dist" "$BATS_TEST_TMPDIR/cache-b"
	run -0 in_b vx run @x/ui#build --remote-cache "$URL"
	assert_line --regexp "^vx: remote cache: entry [0-9a-f]{32}: unsigned, or not signed with this signing key; a miss$"
	assert_equal "$(cat "$B/packages/ui/dist/lib.txt")" "lib v1"
	# a one-character change of a signed entry: a miss
	cp "$BATS_TEST_TMPDIR/ui.good" "$UI"
	sed -i 's/"mode":488/"mode":456/' "$UI"
	rm -rf "$B/packages/ui/dist" "$BATS_TEST_TMPDIR/cache-b"
	run -0 in_b vx run @x/ui#build --remote-cache "$URL"
	assert_line --regexp '^miss @x/ui#build '
	# the entry as signed: a hit; with another key: a miss
	cp "$BATS_TEST_TMPDIR/ui.good" "$UI"
	rm -rf "$B/packages/ui/dist" "$BATS_TEST_TMPDIR/cache-b"
	VX_REMOTE_CACHE_READONLY=1 VX_REMOTE_CACHE_SIGNING_KEY=another-key-of-16-bytes run -0 in_b vx run @x/ui#build --remote-cache "$URL"
	assert_line --regexp '^miss @x/ui#build '
	rm -rf "$B/packages/ui/dist" "$BATS_TEST_TMPDIR/cache-b"
	run -0 in_b vx run build --remote-cache "$URL"
	assert_line --regexp '^hit  @x/ui#build '
	assert_line --regexp '^hit  @x/app#build '
	refute_output --partial 'remote cache'
	assert_equal "$(cat "$B/packages/ui/dist/lib.txt")" "lib v1"
}

@test "the signing key from a file; a bad key is one warning and no remote at all" {
	start_nginx
	printf '0123456789abcdef-from-a-file\n' > "$BATS_TEST_TMPDIR/key"
	VX_REMOTE_CACHE_SIGNING_KEY_FILE=$BATS_TEST_TMPDIR/key run -0 in_a vx run build --remote-cache "$URL"
	refute_output --partial 'remote cache'
	# the same key given as text (less the newline) verifies it
	VX_REMOTE_CACHE_SIGNING_KEY=0123456789abcdef-from-a-file run -0 in_b vx run build --remote-cache "$URL"
	assert_line --regexp '^hit  @x/app#build '
	refute_output --partial 'remote cache'
	: > "$NG/logs/access.log"
	rm -rf "$B/packages" "$BATS_TEST_TMPDIR/cache-b" && cp -a "$A/packages" "$B/packages"
	rm -rf "$B/packages/ui/dist" "$B/packages/app/out"
	VX_REMOTE_CACHE_SIGNING_KEY=short run -0 in_b vx run build --remote-cache "$URL"
	assert_line "vx: remote cache: the signing key is shorter than 16 bytes; make one with 'openssl rand -hex 32'"
	assert_line --regexp '^miss @x/ui#build '
	VX_REMOTE_CACHE_SIGNING_KEY_FILE=$BATS_TEST_TMPDIR/nokey run -0 in_b vx run build --force --remote-cache "$URL"
	assert_line "vx: remote cache: unable to read the signing key '$BATS_TEST_TMPDIR/nokey' (VX_REMOTE_CACHE_SIGNING_KEY_FILE): No such file or directory"
	VX_REMOTE_CACHE_SIGNING_KEY_FILE=$BATS_TEST_TMPDIR/key VX_REMOTE_CACHE_SIGNING_KEY=0123456789abcdef-x \
		run -0 in_b vx run build --force --remote-cache "$URL"
	assert_line --partial 'both VX_REMOTE_CACHE_SIGNING_KEY and VX_REMOTE_CACHE_SIGNING_KEY_FILE are set; set one'
	# none of them asked the server anything
	run -0 cat "$NG/logs/access.log"
	assert_output ''
}

@test "a sparse 1 GiB output is neither saved nor uploaded; a server's entry over the limits is a miss" {
	start_nginx
	task_pkg sparse 'mkdir -p out && truncate -s 1G out/big && echo small > out/small'
	run -0 in_a vx run @x/sparse#build --remote-cache "$URL"
	assert_line "vx: @x/sparse#build: not saved to the cache: 'out/big' is 1073741824 bytes, over the limit of 536870912 per output (VX_CACHE_MAX_OUTPUT_SIZE)"
	assert_line --regexp '^miss @x/sparse#build '
	run -1 grep '^PUT ' "$NG/logs/access.log"
	run -0 du -sk "$BATS_TEST_TMPDIR/cache-a"
	[ "${output%%[[:space:]]*}" -lt 1024 ]
	# what the server offers is held to the reader's limits
	run -0 in_a vx run build --remote-cache "$URL"
	VX_CACHE_MAX_OUTPUT_SIZE=4 run -0 in_b vx run @x/ui#build --remote-cache "$URL"
	assert_line --regexp "^vx: remote cache: entry [0-9a-f]{32}: 'dist/[a-z.]*' is [0-9]+ bytes, over VX_CACHE_MAX_OUTPUT_SIZE; a miss$"
	assert_line --regexp '^miss @x/ui#build '
	rm -rf "$BATS_TEST_TMPDIR/cache-b"
	VX_CACHE_MAX_ENTRY_SIZE=12 run -0 in_b vx run @x/ui#build --remote-cache "$URL"
	assert_line --regexp "^vx: remote cache: entry [0-9a-f]{32}: its outputs are over VX_CACHE_MAX_ENTRY_SIZE; a miss$"
}

@test "a 50 MiB output round-trips through the server" {
	start_nginx
	task_pkg big 'mkdir -p out && head -c 52428800 /dev/urandom > out/big.bin && echo made'
	run -0 in_a vx run @x/big#build --remote-cache "$URL"
	assert_line --regexp '^miss @x/big#build '
	run -0 in_b vx run @x/big#build --remote-cache "$URL"
	assert_line --regexp '^hit  @x/big#build '
	cmp "$A/packages/big/out/big.bin" "$B/packages/big/out/big.bin"
}

@test "a task that prints nothing and writes an empty file round-trips (empty blobs)" {
	start_nginx
	task_pkg quiet 'mkdir -p out && : > out/empty'
	run -0 in_a vx run @x/quiet#build --remote-cache "$URL"
	assert_line --regexp '^miss @x/quiet#build '
	assert_file_exists "$STORE/cas/e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	run -0 in_b vx run @x/quiet#build --remote-cache "$URL"
	assert_line --regexp '^hit  @x/quiet#build '
	refute_output --partial 'remote cache'
	assert_file_exists "$B/packages/quiet/out/empty"
	assert_file_empty "$B/packages/quiet/out/empty"
}

@test "a URL that is not http is one warning, and the run goes on" {
	run -0 in_a vx run build --remote-cache "ftp://example.invalid/cache"
	assert_line "vx: remote cache 'ftp://example.invalid/cache': not an http:// or https:// URL (turbo+http:// for Turborepo's API)"
	assert_line --regexp '^miss @x/app#build '
}

@test "vx run --help names the remote cache" {
	run -0 vx run --help
	assert_output --partial '--remote-cache URL'
	assert_output --partial 'VX_REMOTE_CACHE_READONLY=1'
}

# summary_of EXPR DIR: a python expression over the tasks, t, of the one run
# summary in DIR's workspace, as compact JSON
summary_of() {
	/usr/bin/python3 -c '
import glob, json, sys
t = json.load(open(glob.glob(sys.argv[2] + "/.vx/runs/*.json")[0]))["tasks"]
print(json.dumps(eval(sys.argv[1]), separators=(",", ":")))
' "$1" "$2"
}

@test "--summarize says which hits came from the remote: cache.source remote, local after" {
	start_nginx
	run -0 in_a vx run build --remote-cache "$URL"
	run -0 in_b vx run build --remote-cache "$URL" --summarize
	run -0 summary_of '[[x["cache"][k] for k in ("status", "source", "local", "remote")] for x in t]' "$B"
	assert_output '[["hit","remote",false,true],["hit","remote",false,true]]'
	rm -r "$B/.vx/runs"
	run -0 in_b vx run build --remote-cache "$URL" --summarize
	run -0 summary_of '[x["cache"]["source"] for x in t]' "$B"
	assert_output '["local","local"]'
}
