#!/usr/bin/env bats
# shellcheck disable=SC2016  # task commands inside JSON are meant to expand in the task, not here
# vx run against Turborepo's remote cache API (R-11): the real
# turborepo-remote-cache from the npm registry (tests/turbocache-install.sh,
# cached outside the clone) started on loopback with local storage, one per
# test. Two copies of one workspace with separate local caches share it.

load helpers

setup_file() {
	TURBO_SERVER=$(bash "$BATS_TEST_DIRNAME/turbocache-install.sh")
	export TURBO_SERVER
}



# the server with local storage under $TC/store, its token "ci-token", and
# any NAME=VALUE given (BODY_LIMIT=..., TURBO_REMOTE_CACHE_SIGNATURE_KEY=...);
# what team "vx" stores lands in $STORE, each artifact a file named by its
# hash (and its x-artifact-tag beside it, <hash>.tag, when signing)
start_turbo() {
	TC=$BATS_TEST_TMPDIR/turbo
	mkdir -p "$TC/store"
	PORT=$(free_port)
	env PORT="$PORT" HOST=127.0.0.1 STORAGE_PROVIDER=local STORAGE_PATH="$TC/store" \
		STORAGE_PATH_USE_TMP_FOLDER=false TURBO_TOKEN=ci-token LOG_LEVEL=warn "$@" \
		"$TURBO_SERVER" > "$TC/log" 2>&1 3>&- &
	SERVER_PID=$!
	wait_port "$PORT" "$TC/log"
	API=http://127.0.0.1:$PORT
	STORE=$TC/store/vx
}

setup() {
	remote_pair_ws
	# what a CI using turbo's remote cache already has set
	export TURBO_TOKEN=ci-token TURBO_TEAM=vx
	unset TURBO_API TURBO_TEAMID TURBO_REMOTE_CACHE_SIGNATURE_KEY VX_REMOTE_CACHE VX_REMOTE_CACHE_TOKEN
}

teardown() {
	stop_server
}

in_a() { (cd "$A" && VX_CACHE_DIR=$BATS_TEST_TMPDIR/cache-a "$@"); }
in_b() { (cd "$B" && VX_CACHE_DIR=$BATS_TEST_TMPDIR/cache-b "$@"); }

ran() { # what ran in workspace DIR since the last call
	if [ -f "$1/ran.log" ]; then sort "$1/ran.log" | tr '\n' ' ' | sed 's/ $//'; rm -f "$1/ran.log"; fi
}

# the server's manifest (named by vx's 32-hex key) whose files name PATH
manifest_of() {
	find "$STORE" -regextype posix-extended -regex '.*/[0-9a-f]{32}' -print0 |
		xargs -0 grep -l "\"path\":\"$1\""
}

@test "turbo: TURBO_API, TURBO_TOKEN and TURBO_TEAM alone: upload, then all hits from an empty local cache in a second checkout, byte for byte" {
	start_turbo
	export TURBO_API=$API
	run -0 in_a vx run build
	assert_line --regexp '^miss @x/ui#build '
	assert_line --regexp '^miss @x/app#build '
	refute_output --partial 'remote cache'
	assert_equal "$(ran "$A")" "app ui"
	# the layout: team vx's artifacts, a manifest under each key and each
	# blob under its sha256
	assert_equal "$(find "$STORE" -regextype posix-extended -regex '.*/[0-9a-f]{32}' | wc -l)" 2
	assert_file_exists "$STORE/$(sha256sum < "$A/packages/ui/dist/lib.txt" | cut -d' ' -f1)"
	run -0 in_b vx run build
	assert_line --regexp '^hit  @x/ui#build '
	assert_line --regexp '^hit  @x/app#build '
	assert_line "@x/ui#build: built ui"
	refute_output --partial 'remote cache'
	assert_equal "$(ran "$B")" ""
	for f in packages/ui/dist/lib.txt packages/ui/dist/run.sh packages/app/out/app.txt; do
		cmp "$A/$f" "$B/$f"
	done
	assert_equal "$(stat -c %a "$B/packages/ui/dist/run.sh")" 750
	# --remote-cache turbo+URL says the same; VX_REMOTE_CACHE wins over TURBO_API
	rm -rf "$B/packages/ui/dist" "$BATS_TEST_TMPDIR/cache-b"
	TURBO_API=http://127.0.0.1:1 run -0 in_b vx run @x/ui#build --remote-cache "turbo+$API"
	assert_line --regexp '^hit  @x/ui#build '
	rm -rf "$B/packages/ui/dist" "$BATS_TEST_TMPDIR/cache-b"
	TURBO_API=http://127.0.0.1:1 VX_REMOTE_CACHE="turbo+$API" run -0 in_b vx run @x/ui#build
	assert_line --regexp '^hit  @x/ui#build '
	cmp "$A/packages/ui/dist/lib.txt" "$B/packages/ui/dist/lib.txt"
}

@test "turbo: the token and signature key never reach a task, even in loose env mode" {
	start_turbo
	pkg packages/env @x/env '' '{ "tasks": { "show": { "exec": { "command": "env | grep ^TURBO_ | sort; true" } } } }'
	TURBO_REMOTE_CACHE_SIGNATURE_KEY=sig-key run -0 in_a vx run @x/env#show --env-mode loose --remote-cache "turbo+$API"
	assert_line '@x/env#show: TURBO_TEAM=vx'
	refute_output --partial 'ci-token'
	refute_output --partial 'sig-key'
}

@test "turbo: a wrong token is one warning, and the build goes on" {
	start_turbo
	TURBO_TOKEN=wrong-token run -0 in_a vx run build --remote-cache "turbo+$API"
	assert_line --regexp "^vx: remote cache 'http://127.0.0.1:$PORT': (GET|HEAD) .*: HTTP 401; going on without it$"
	assert_equal "$(grep -c 'remote cache' <<< "$output")" 1
	assert_line --regexp '^miss @x/app#build '
	assert_equal "$(cat "$A/packages/app/out/app.txt")" "$(printf 'lib v1\napp v1')"
	assert_equal "$(find "$TC/store" -type f | wc -l)" 0
}

@test "turbo: a tampered artifact in the server's storage is refused: a miss, the task runs again" {
	start_turbo
	run -0 in_a vx run build --remote-cache "turbo+$API"
	local blob
	blob=$STORE/$(sha256sum < "$A/packages/ui/dist/lib.txt" | cut -d' ' -f1)
	printf 'lib v2\n' > "$blob" # same size, other bytes
	run -0 in_b vx run build --remote-cache "turbo+$API"
	assert_line --regexp "^vx: remote cache: entry [0-9a-f]{32}: a blob does not match its sha256; a miss$"
	assert_line --regexp '^miss @x/ui#build '
	assert_equal "$(cat "$B/packages/ui/dist/lib.txt")" "lib v1"
	assert_equal "$(ran "$B")" "ui"
}

@test "turbo: with TURBO_REMOTE_CACHE_SIGNATURE_KEY each upload carries turbo's x-artifact-tag; a changed entry is refused" {
	local key=turbo-sig-key-of-the-team
	start_turbo TURBO_REMOTE_CACHE_SIGNATURE_KEY=$key
	export TURBO_REMOTE_CACHE_SIGNATURE_KEY=$key
	run -0 in_a vx run build --remote-cache "turbo+$API"
	refute_output --partial 'remote cache'
	local ui
	ui=$(manifest_of dist/lib.txt)
	# turbo's scheme: base64(HMAC-SHA256(key, hash + team + body)), blobs too
	for f in "$ui" "$STORE/$(sha256sum < "$A/packages/ui/dist/lib.txt" | cut -d' ' -f1)"; do
		run -0 /usr/bin/python3 -c '
import base64, hashlib, hmac, os, sys
body = open(sys.argv[1], "rb").read()
msg = os.path.basename(sys.argv[1]).encode() + b"vx" + body
want = base64.b64encode(hmac.new(sys.argv[2].encode(), msg, hashlib.sha256).digest()).decode()
print(want == open(sys.argv[1] + ".tag").read())
' "$f" "$key"
		assert_output True
	done
	run -0 in_b vx run build --remote-cache "turbo+$API"
	assert_line --regexp '^hit  @x/ui#build '
	refute_output --partial 'remote cache'
	# a one-character change: a reader without the key takes it...
	sed -i 's/"mode":488/"mode":456/' "$ui"
	rm -rf "$B/packages/ui/dist" "$BATS_TEST_TMPDIR/cache-b"
	TURBO_REMOTE_CACHE_SIGNATURE_KEY='' run -0 in_b vx run @x/ui#build --remote-cache "turbo+$API"
	assert_line --regexp '^hit  @x/ui#build '
	assert_equal "$(stat -c %a "$B/packages/ui/dist/run.sh")" 710
	# ...one with it refuses it: a miss, one warning, the task runs
	rm -rf "$B/packages/ui/dist" "$BATS_TEST_TMPDIR/cache-b"
	run -0 in_b vx run @x/ui#build --remote-cache "turbo+$API"
	assert_line --regexp "^vx: remote cache: entry [0-9a-f]{32}: its x-artifact-tag is missing or not made with TURBO_REMOTE_CACHE_SIGNATURE_KEY; a miss$"
	assert_line --regexp '^miss @x/ui#build '
	assert_equal "$(stat -c %a "$B/packages/ui/dist/run.sh")" 750
	assert_equal "$(ran "$B")" "ui"
}

@test "turbo: the server killed mid-run: one warning, the build goes on, nothing lost" {
	start_turbo
	# app takes a while, so the server dies after ui's upload, before app's
	pkg packages/app @x/app '{ "@x/ui": "*" }' '{ "tasks": {
		"build": { "exec": { "command": "sleep 3 && mkdir -p out && cat ../ui/dist/lib.txt src/main.txt > out/app.txt" },
		           "dependsOn": ["^build"],
		           "cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["out/**"] } } } } }'
	cp -a "$A/packages/app/." "$B/packages/app/"
	in_a vx run build --remote-cache "turbo+$API" > "$BATS_TEST_TMPDIR/out" 2>&1 &
	local vx=$! _
	for _ in $(seq 100); do
		[ -n "$(manifest_of dist/lib.txt 2>/dev/null)" ] && break
		sleep 0.05
	done
	[ -n "$(manifest_of dist/lib.txt)" ] || fail "ui's entry never reached the server"
	kill "$SERVER_PID"
	wait "$SERVER_PID" || true
	SERVER_PID=
	wait "$vx"
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line --regexp "^vx: remote cache 'http://127.0.0.1:$PORT': .*; going on without it$"
	assert_equal "$(grep -c 'remote cache' <<< "$output")" 1
	assert_line --regexp '^miss @x/app#build '
	assert_equal "$(cat "$A/packages/app/out/app.txt")" "$(printf 'lib v1\napp v1')"
	# nothing lost: the local cache has both entries
	rm -rf "$A/packages/ui/dist" "$A/packages/app/out"
	run -0 in_a vx run build
	assert_line --regexp '^hit  @x/ui#build '
	assert_line --regexp '^hit  @x/app#build '
	cmp "$A/packages/app/out/app.txt" - <<< "$(printf 'lib v1\napp v1')"
}

@test "turbo: an entry over the server's body limit is said once and not uploaded; the rest is" {
	start_turbo BODY_LIMIT=100000
	pkg packages/ui @x/ui '' '{ "tasks": {
		"build": { "exec": { "command": "echo ui >> ../../ran.log && mkdir -p dist && cp src/* dist/ && yes big | head -c 300000 > dist/big.bin && yes huge | head -c 400000 > dist/huge.bin" },
		           "cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["dist/**"] } } } } }'
	cp -a "$A/packages/ui/." "$B/packages/ui/"
	run -0 in_a vx run build --remote-cache "turbo+$API"
	assert_line --regexp "^vx: remote cache: not uploading [0-9a-f]{32}: [0-9]+ bytes are over the server's body limit \(HTTP 413\)$"
	assert_equal "$(grep -c 'remote cache' <<< "$output")" 1
	# ui's entry is not on the server; app's is, and the server stays in use
	assert_equal "$(manifest_of dist/lib.txt)" ""
	assert_equal "$(manifest_of out/app.txt | wc -l)" 1
	run -0 in_b vx run build --remote-cache "turbo+$API"
	assert_equal "$(grep -c 'remote cache' <<< "$output")" 1 # B's own upload of ui, refused alike
	assert_line --regexp '^miss @x/ui#build '
	assert_line --regexp '^hit  @x/app#build '
	cmp "$A/packages/ui/dist/huge.bin" "$B/packages/ui/dist/huge.bin"
}

@test "turbo: a team that cannot go in a URL is one warning and no remote; the run goes on" {
	TURBO_TEAM='a&b' TURBO_API=http://127.0.0.1:1 run -0 in_a vx run build
	assert_line "vx: remote cache: the team 'a&b' (TURBO_TEAM) has a character other than letters, digits, '-', '_' and '.'; fix the variable"
	assert_equal "$(grep -c 'remote cache' <<< "$output")" 1
	assert_line --regexp '^miss @x/app#build '
}
