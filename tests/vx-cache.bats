#!/usr/bin/env bats
# shellcheck disable=SC2154  # bats sets $stderr, $output, $lines
# vx-cache: save and restore byte for byte (modes, symlinks, the log), what
# makes a miss (corrupt, truncated, missing, tampered), never writing through
# a symlink or outside the project, a save killed mid-way, clean, verify,
# path independence and failed writes (R-10, R-11). Each test builds its
# project from tests/fixtures/vx-cache/proj.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	unset VX_ROOT
	export VX_CACHE_DIR=$BATS_TEST_TMPDIR/cache
	P=$BATS_TEST_TMPDIR/proj
	cp -a "$BATS_TEST_DIRNAME/fixtures/vx-cache/proj" "$P"
	chmod 755 "$P/dist/bin/run.sh"
	ln -s a.js "$P/dist/latest.js"
	K=0123456789abcdef0123456789abcdef
	LOG=$BATS_TEST_TMPDIR/log
	printf 'built 3 files\nwarning: none\n' > "$LOG"
	cd "$BATS_TEST_TMPDIR" || return 1
}

# save_p [KEY]: save $P's dist/** (not dist/skip.txt) with $LOG.
save_p() {
	vx-cache save "${1:-$K}" "$P" --outputs 'dist/**' '!dist/skip.txt' --log "$LOG" --ms 42
}

# blob_of PATH: the cache file holding the blob of output PATH of $K.
blob_of() {
	/usr/bin/python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
h = [f["hash"] for f in m["files"] if f["path"] == sys.argv[2]][0]
print(sys.argv[3] + "/cas/" + h[:2] + "/" + h)
' "$VX_CACHE_DIR/ac/$K.json" "$1" "$VX_CACHE_DIR"
}

# tamper PYTHON: rewrite the manifest of $K; PYTHON edits the dict m.
tamper() {
	edit_json "$VX_CACHE_DIR/ac/$K.json" "$1"
}

# to_full CMD...: CMD with its stdout on /dev/full (stderr still captured).
to_full() {
	"$@" > /dev/full
}

# leftovers DIR: any restore temporaries under DIR, one per line.
leftovers() {
	find "$1" -name '.vx-tmp.*'
}

@test "--help prints the synopsis; a bad command or option is a usage error" {
	run -0 vx-cache --help
	assert_line --partial 'usage: vx-cache [--dir DIR] [--state DIR] get KEY'
	run -2 vx-cache frobnicate
	assert_line --partial "vx-cache: 'frobnicate': an unknown command"
	run -2 vx-cache --bogus get "$K"
	run -2 vx-cache get
	run -2 vx-cache save "$K" "$P"
	assert_line 'vx-cache: save: --outputs is required'
	run -2 vx-cache save "$K" "$P" --outputs 'dist/**' --ms soon
}

@test "save then restore after deleting the outputs: same bytes, modes and symlink" {
	cp -a "$P" "$BATS_TEST_TMPDIR/want"
	run -0 save_p
	rm -rf "$P/dist"
	run -0 vx-cache restore "$K" "$P"
	for f in a.js bin/run.sh; do
		cmp "$P/dist/$f" "$BATS_TEST_TMPDIR/want/dist/$f"
		assert_equal "$(stat -c %a "$P/dist/$f")" "$(stat -c %a "$BATS_TEST_TMPDIR/want/dist/$f")"
	done
	assert_equal "$(stat -c %a "$P/dist/bin/run.sh")" 755
	assert_equal "$(readlink "$P/dist/latest.js")" a.js
	# the excluded file was not saved, so it is not restored
	assert_not_exist "$P/dist/skip.txt"
	assert_equal "$(leftovers "$P")" ''
}

@test "a hit replays the log; get prints the manifest as one line" {
	run -0 save_p
	run -0 vx-cache restore "$K" "$P"
	assert_output "$(cat "$LOG")"
	run -0 vx-cache get "$K"
	assert_equal "${#lines[@]}" 1
	assert_output --partial '"v":1,"key":"0123456789abcdef0123456789abcdef"'
	assert_output --partial '{"path":"dist/latest.js","mode":41471,"link":"a.js"}'
	assert_output --partial '"exit":0,"ms":42,"created":"'
	refute_output --partial "$P"
}

@test "a key never saved is a miss" {
	run -1 vx-cache get "$K"
	assert_output "vx-cache: $K: a miss (absent)"
	run -1 vx-cache restore "$K" "$P"
}

@test "an output already identical is not rewritten; a changed one is" {
	run -0 save_p
	before=$(stat -c %i "$P/dist/a.js")
	run -0 vx-cache restore "$K" "$P"
	assert_equal "$(stat -c %i "$P/dist/a.js")" "$before"
	# same size, other bytes, mtime put back: the stamp's ctime sees it
	m=$(stat -c %Y "$P/dist/a.js")
	printf 'x' | dd of="$P/dist/a.js" bs=1 count=1 conv=notrunc status=none
	touch -d "@$m" "$P/dist/a.js"
	run -0 vx-cache restore "$K" "$P"
	cmp "$P/dist/a.js" "$BATS_TEST_DIRNAME/fixtures/vx-cache/proj/dist/a.js"
	# a lost executable bit comes back
	chmod 644 "$P/dist/bin/run.sh"
	run -0 vx-cache restore "$K" "$P"
	assert_equal "$(stat -c %a "$P/dist/bin/run.sh")" 755
}

@test "a corrupt blob: the restore fails and writes none of its bytes" {
	cp -a "$P" "$BATS_TEST_TMPDIR/want"
	run -0 save_p
	blob=$(blob_of dist/a.js)
	chmod u+w "$blob"
	corrupt "$blob"
	rm -rf "$P/dist"
	mkdir "$P/dist"
	# the shadow would give back the right bytes by a link: the blob is read
	rm -rf "$P/.vx/shadow"
	run -1 vx-cache restore "$K" "$P"
	assert_line --partial 'is corrupt: removed'
	assert_not_exist "$P/dist/a.js"
	assert_not_exist "$P/dist/bin/run.sh"
	assert_equal "$(leftovers "$P")" ''
	# the bad blob is gone, so the entry is now a miss and a save repairs it
	run -1 vx-cache get "$K"
	rm -rf "$P/dist"
	cp -a "$BATS_TEST_TMPDIR/want/dist" "$P/dist"
	run -0 save_p
	run -0 vx-cache verify
	assert_output ''
}

@test "a corrupt blob of one output leaves the others as they were" {
	run -0 save_p
	echo 'edited' > "$P/dist/a.js"
	rm "$P/dist/bin/run.sh"
	rm -rf "$P/.vx/shadow"
	blob=$(blob_of dist/bin/run.sh)
	chmod u+w "$blob"
	corrupt "$blob"
	run -1 vx-cache restore "$K" "$P"
	# a.js sorts first and its blob is sound, yet it is not replaced
	assert_equal "$(cat "$P/dist/a.js")" edited
	assert_not_exist "$P/dist/bin/run.sh"
	assert_equal "$(leftovers "$P")" ''
}

# shadow_of PATH: the checkout's shadow name of $P's output PATH (the file
# of $P/.vx/shadow that is the same inode), or nothing
shadow_of() {
	find "$P/.vx/shadow" -samefile "$P/$1"
}

@test "an output deleted comes back as a link to the checkout's shadow, its bytes checked first" {
	run -0 save_p
	# the save gave each output a second name in the shadow
	local ino shadow
	ino=$(stat -c %i "$P/dist/a.js")
	shadow=$(shadow_of dist/a.js)
	[ -n "$shadow" ]
	assert_equal "$(stat -c %h "$P/dist/a.js")" 2
	touch -d '2001-01-01' "$P/dist/a.js"
	rm -rf "$P/dist"
	run -0 vx-cache restore "$K" "$P"
	# the same inode, no copy: right bytes, right modes, dated now as a
	# copy would be (make-like tools compare it with its sources)
	assert_equal "$(stat -c %i "$P/dist/a.js")" "$ino"
	[ "$(stat -c %Y "$P/dist/a.js")" -gt "$(date -d '2020-01-01' +%s)" ]
	cmp "$P/dist/a.js" "$BATS_TEST_DIRNAME/fixtures/vx-cache/proj/dist/a.js"
	cmp "$P/dist/bin/run.sh" "$BATS_TEST_DIRNAME/fixtures/vx-cache/proj/dist/bin/run.sh"
	assert_equal "$(stat -c %a "$P/dist/bin/run.sh")" 755
	assert_equal "$(readlink "$P/dist/latest.js")" a.js
	assert_equal "$(leftovers "$P")" ''
}

@test "a shadow whose bytes or mode changed is never linked: the blob's bytes come back" {
	run -0 save_p
	local shadow
	shadow=$(shadow_of dist/a.js)
	# written through the output's name (the same inode), same size, mtime
	# put back; then the output deleted: the shadow holds the wrong bytes
	m=$(stat -c %Y "$P/dist/a.js")
	printf 'X' | dd of="$P/dist/a.js" bs=1 count=1 conv=notrunc status=none
	touch -d "@$m" "$P/dist/a.js"
	rm "$P/dist/a.js"
	[ "$(head -c 1 "$shadow")" = X ]
	run -0 vx-cache restore "$K" "$P"
	cmp "$P/dist/a.js" "$BATS_TEST_DIRNAME/fixtures/vx-cache/proj/dist/a.js"
	# and the shadow's name now holds the restored file
	cmp "$(shadow_of dist/a.js)" "$BATS_TEST_DIRNAME/fixtures/vx-cache/proj/dist/a.js"
	# a mode changed through the shadow's name: not linked either
	shadow=$(shadow_of dist/bin/run.sh)
	rm "$P/dist/bin/run.sh"
	chmod 644 "$shadow"
	run -0 vx-cache restore "$K" "$P"
	assert_equal "$(stat -c %a "$P/dist/bin/run.sh")" 755
}

@test "a shadow name with another link, or that is a symlink, is never linked to" {
	run -0 save_p
	local shadow ino
	# a third name outside the checkout: a restored output must never
	# share its inode with a file elsewhere
	shadow=$(shadow_of dist/a.js)
	ino=$(stat -c %i "$shadow")
	ln "$shadow" "$BATS_TEST_TMPDIR/elsewhere"
	rm "$P/dist/a.js"
	run -0 vx-cache restore "$K" "$P"
	[ "$(stat -c %i "$P/dist/a.js")" != "$ino" ]
	echo changed > "$P/dist/a.js"
	cmp "$BATS_TEST_TMPDIR/elsewhere" "$BATS_TEST_DIRNAME/fixtures/vx-cache/proj/dist/a.js"
	# a symlink in the shadow's place, to a file with the right bytes and
	# mode: not followed, not linked to, and gone after the restore
	shadow=$(shadow_of dist/bin/run.sh)
	cp -p "$shadow" "$BATS_TEST_TMPDIR/target"
	rm "$P/dist/bin/run.sh" "$shadow"
	ln -s "$BATS_TEST_TMPDIR/target" "$shadow"
	run -0 vx-cache restore "$K" "$P"
	[ "$(stat -c %i "$P/dist/bin/run.sh")" != "$(stat -c %i "$BATS_TEST_TMPDIR/target")" ]
	cmp "$P/dist/bin/run.sh" "$BATS_TEST_DIRNAME/fixtures/vx-cache/proj/dist/bin/run.sh"
	[ ! -L "$shadow" ]
	assert_equal "$(stat -c %h "$BATS_TEST_TMPDIR/target")" 1
}

@test "verify names an entry whose blob was corrupted" {
	run -0 save_p
	run -0 vx-cache verify
	blob=$(blob_of dist/bin/run.sh)
	chmod u+w "$blob"
	corrupt "$blob"
	run -1 vx-cache verify
	assert_output "{\"type\":\"bad\",\"key\":\"$K\",\"error\":\"a blob does not match its hash\"}"
}

@test "a truncated or unparsable manifest is a miss" {
	run -0 save_p
	m=$VX_CACHE_DIR/ac/$K.json
	truncate -s 40 "$m"
	run -1 vx-cache get "$K"
	assert_output --partial 'a miss (the manifest does not parse)'
	: > "$m"
	run -1 vx-cache get "$K"
	run -1 vx-cache verify
	assert_output --partial "\"key\":\"$K\""
}

@test "another version, another key or a failed run in the manifest is a miss" {
	run -0 save_p
	tamper 'm["v"] = 2'
	run -1 vx-cache get "$K"
	assert_output --partial '(another manifest version)'
	run -0 save_p
	tamper 'm["key"] = "f" * 32'
	run -1 vx-cache get "$K"
	run -0 save_p
	tamper 'm["exit"] = 1'
	run -1 vx-cache get "$K"
}

@test "a missing blob, or one of the wrong size, is a miss" {
	run -0 save_p
	blob=$(blob_of dist/a.js)
	mv "$blob" "$BATS_TEST_TMPDIR/kept"
	run -1 vx-cache get "$K"
	assert_output --partial 'a blob is missing or has the wrong size'
	run -1 vx-cache restore "$K" "$P"
	{ cat "$BATS_TEST_TMPDIR/kept"; echo more; } > "$blob"
	run -1 vx-cache get "$K"
}

# refused EDIT WHY: $K saved afresh, then its manifest edited by the python
# EDIT (tamper), is a miss for WHY and restores nothing
refused() {
	rm -rf "$P/dist"
	cp -a "$BATS_TEST_DIRNAME/fixtures/vx-cache/proj/dist" "$P/dist"
	ln -s a.js "$P/dist/latest.js"
	run -0 save_p
	tamper "$1"
	run -1 vx-cache get "$K"
	assert_output --partial "$2"
	rm -rf "$P/dist"
	run -1 vx-cache restore "$K" "$P"
	assert_not_exist "$P/dist"
}

@test "a manifest naming ../x, an absolute path or .git is refused" {
	for bad in '../escaped' "$BATS_TEST_TMPDIR/escaped" 'dist/../../escaped' '.git/hooks/pre-commit' './dist/a.js'; do
		refused "m['files'][0]['path'] = '$bad'" 'a path outside the project'
	done
	assert_not_exist "$BATS_TEST_TMPDIR/escaped"
	assert_not_exist "$P/.git"
	# nor may a link point at an absolute path, or climb out of the project
	refused "[f for f in m['files'] if 'link' in f][0]['link'] = '/etc/passwd'" 'a symlink to an absolute path'
	refused "[f for f in m['files'] if 'link' in f][0]['link'] = '../../../x'" 'a symlink out of the project'
}

@test "a symlink planted in the project is not written through" {
	run -0 save_p
	mkdir "$BATS_TEST_TMPDIR/outside"
	rm -rf "$P/dist"
	ln -s "$BATS_TEST_TMPDIR/outside" "$P/dist"
	run -1 vx-cache restore "$K" "$P"
	assert_output --partial "refusing to restore 'dist/a.js': a part of its directory is a symlink"
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR/outside")" ''
	# deeper down too
	rm "$P/dist"
	mkdir "$P/dist"
	ln -s "$BATS_TEST_TMPDIR/outside" "$P/dist/bin"
	run -1 vx-cache restore "$K" "$P"
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR/outside")" ''
	assert_equal "$(leftovers "$P")" ''
}

@test "a save never follows a symlinked directory, and refuses a symlink out of the project" {
	mkdir "$BATS_TEST_TMPDIR/outside"
	echo secret > "$BATS_TEST_TMPDIR/outside/s.txt"
	ln -s ../src "$P/dist/ext"
	run -0 save_p
	run -0 vx-cache get "$K"
	assert_output --partial '{"path":"dist/ext","mode":41471,"link":"../src"}'
	refute_output --partial 'index.js'
	# a relative link that climbs out of the project ties the entry to
	# what lies beside it, as an absolute one does
	ln -s ../../outside "$P/dist/out"
	run -1 save_p "fedcba9876543210fedcba9876543210"
	assert_output --partial "refusing to save 'dist/out': a symlink out of the project ('../../outside')"
	run -1 vx-cache get fedcba9876543210fedcba9876543210
	refute_output --partial 's.txt'
}

# restored_plain: $K restored into an emptied dist/ twice (from the blobs,
# then by links to the shadow) gives run.sh 755 and a.js 644 each time
restored_plain() {
	for _ in 1 2; do
		rm -rf "$P/dist"
		run -0 vx-cache restore "$K" "$P"
		assert_equal "$(stat -c %a "$P/dist/bin/run.sh")" 755
		assert_equal "$(stat -c %a "$P/dist/a.js")" 644
	done
}

@test "setuid, setgid and sticky bits are stripped on save: the entry and the output are 0755" {
	chmod 6755 "$P/dist/bin/run.sh"
	chmod 1644 "$P/dist/a.js"
	run -0 save_p
	assert_output --partial "stripped the setuid, setgid and sticky bits of 'dist/bin/run.sh' (6755 -> 755)"
	assert_equal "$(stat -c %a "$P/dist/bin/run.sh")" 755
	assert_equal "$(stat -c %a "$P/dist/a.js")" 644
	run -0 vx-cache get "$K"
	assert_output --partial '{"path":"dist/bin/run.sh","mode":493,'
	assert_output --partial '{"path":"dist/a.js","mode":420,'
	restored_plain
}

@test "a manifest recording setuid, setgid or sticky bits never restores them" {
	run -0 save_p
	tamper "[f for f in m['files'] if f['path'] == 'dist/bin/run.sh'][0]['mode'] = 0o6755"
	tamper "[f for f in m['files'] if f['path'] == 'dist/a.js'][0]['mode'] = 0o1644"
	restored_plain
	# over an output left setuid too
	chmod 4755 "$P/dist/bin/run.sh"
	run -0 vx-cache restore "$K" "$P"
	assert_equal "$(stat -c %a "$P/dist/bin/run.sh")" 755
}

@test "a fifo, a socket or a device node among the outputs refuses the save" {
	mkfifo "$P/dist/pipe"
	run -1 save_p
	assert_output --partial "refusing to save 'dist/pipe': a fifo; the cache holds regular files and symlinks only"
	run -1 vx-cache get "$K"
	rm "$P/dist/pipe"
	/usr/bin/python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$P/dist/sock"
	run -1 save_p
	assert_output --partial "refusing to save 'dist/sock': a socket"
	rm "$P/dist/sock"
	mknod "$P/dist/null" c 1 3
	run -1 save_p
	assert_output --partial "refusing to save 'dist/null': a character device"
	rm "$P/dist/null"
	# excluded, it is no output: the save goes on
	mkfifo "$P/dist/skip.txt.fifo"
	run -0 vx-cache save "$K" "$P" --outputs 'dist/**' '!dist/*.fifo'
	# nor does a manifest make one
	tamper "m['files'][0]['mode'] = 0o010644"
	run -1 vx-cache get "$K"
	assert_output --partial 'a bad mode'
}

@test "a sparse 1 GiB output is not saved: one line names the file and the limit, and no byte of it is written" {
	truncate -s 1G "$P/dist/sparse.bin"
	run -1 save_p
	assert_output "vx-cache: not saved to the cache: 'dist/sparse.bin' is 1073741824 bytes, over the limit of 536870912 per output (VX_CACHE_MAX_OUTPUT_SIZE)"
	run -1 vx-cache get "$K"
	run -0 du -sk "$VX_CACHE_DIR"
	[ "${output%%[[:space:]]*}" -lt 1024 ]
	# the limit is the user's: a lower one refuses a small file too
	rm "$P/dist/sparse.bin"
	VX_CACHE_MAX_OUTPUT_SIZE=19 run -1 save_p
	assert_output --partial "'dist/a.js' is 20 bytes, over the limit of 19 per output (VX_CACHE_MAX_OUTPUT_SIZE)"
	VX_CACHE_MAX_OUTPUT_SIZE=20 run -0 save_p
	# and per entry: a.js and run.sh are 39 bytes
	VX_CACHE_MAX_ENTRY_SIZE=38 run -1 save_p
	assert_output "vx-cache: not saved to the cache: 'dist/bin/run.sh' brings the entry's outputs to 39 bytes, over the limit of 38 per entry (VX_CACHE_MAX_ENTRY_SIZE)"
	VX_CACHE_MAX_ENTRY_SIZE=39 run -0 save_p
	VX_CACHE_MAX_ENTRY_SIZE=1K run -0 save_p
	# 0 is no limit; a bad value is one warning and the default
	VX_CACHE_MAX_OUTPUT_SIZE=0 VX_CACHE_MAX_ENTRY_SIZE=0 run -0 save_p
	VX_CACHE_MAX_OUTPUT_SIZE=lots run -0 save_p
	assert_output "vx-cache: VX_CACHE_MAX_OUTPUT_SIZE: 'lots' is not a size (bytes, or a number with K, M, G or T; 0 for none); using 512M"
}

@test "an output hard-linked to a file elsewhere is saved as its bytes and restored as a file of its own" {
	echo other > "$BATS_TEST_TMPDIR/other"
	ln -f "$BATS_TEST_TMPDIR/other" "$P/dist/hard.txt"
	run -0 save_p
	rm -rf "$P/dist"
	run -0 vx-cache restore "$K" "$P"
	assert_equal "$(cat "$P/dist/hard.txt")" other
	echo changed > "$P/dist/hard.txt"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/other")" other
}

@test "an output that is a symlink to an absolute path is not saved" {
	ln -s /etc/hostname "$P/dist/host"
	run -1 save_p
	assert_output --partial "refusing to save 'dist/host': a symlink to an absolute path"
	run -1 vx-cache get "$K"
}

@test "a failed run is never saved" {
	run -1 vx-cache save "$K" "$P" --outputs 'dist/**' --exit 2
	assert_output 'vx-cache: refusing to save a failed run (exit 2)'
	run -1 vx-cache get "$K"
	assert_not_exist "$VX_CACHE_DIR/ac/$K.json"
}

@test "a save killed with SIGKILL leaves nothing a lookup can hit; a later save works" {
	head -c 64000000 /dev/urandom > "$P/dist/big.bin"
	for delay in 0.05 0.1 0.2 0.3; do
		rm -rf "$VX_CACHE_DIR"
		vx-cache save "$K" "$P" --outputs 'dist/**' --log "$LOG" &
		pid=$!
		sleep "$delay"
		kill -9 "$pid" 2> /dev/null || true
		wait "$pid" || true
		if [ -e "$VX_CACHE_DIR/ac/$K.json" ]; then
			# the save finished first: then the entry is whole
			run -0 vx-cache verify
		else
			run -1 vx-cache get "$K"
		fi
	done
	run -0 vx-cache save "$K" "$P" --outputs 'dist/**' --log "$LOG"
	run -0 vx-cache verify
	rm -rf "$P/dist"
	run -0 vx-cache restore "$K" "$P"
	assert_equal "$(stat -c %s "$P/dist/big.bin")" 64000000
}

@test "a temporary left by a killed save is never a hit and is swept later" {
	mkdir -p "$VX_CACHE_DIR/tmp" "$VX_CACHE_DIR/ac"
	echo '{"v":1,"key":"0123456789abcdef0123456789abcdef","fi' > "$VX_CACHE_DIR/tmp/999.1.0"
	touch -d '2 hours ago' "$VX_CACHE_DIR/tmp/999.1.0"
	echo 'half' > "$VX_CACHE_DIR/tmp/999.1.1"
	run -1 vx-cache get "$K"
	run -0 save_p
	assert_not_exist "$VX_CACHE_DIR/tmp/999.1.0"
	# a fresh one may belong to a save still running
	assert_exist "$VX_CACHE_DIR/tmp/999.1.1"
	run -0 vx-cache get "$K"
}

@test "clean empties the cache; a concurrent reader sees a miss" {
	run -0 save_p
	run -0 vx-cache clean
	assert_not_exist "$VX_CACHE_DIR"
	run -1 vx-cache get "$K"
	assert_equal "$(find "$BATS_TEST_TMPDIR" -maxdepth 1 -name 'cache.vx-clean.*')" ''
	# a clean killed after the rename: the next clean removes what it left
	run -0 save_p
	mv "$VX_CACHE_DIR" "$VX_CACHE_DIR.vx-clean.1.2"
	run -0 vx-cache clean
	assert_not_exist "$VX_CACHE_DIR.vx-clean.1.2"
	run -0 vx-cache clean
}

@test "--dir wins over VX_CACHE_DIR; ./.vx/cache without either" {
	run -0 vx-cache --dir "$BATS_TEST_TMPDIR/other" save "$K" "$P" --outputs 'dist/**'
	assert_exist "$BATS_TEST_TMPDIR/other/ac/$K.json"
	run -1 vx-cache get "$K"
	unset VX_CACHE_DIR
	run -0 vx-cache save "$K" "$P" --outputs 'dist/**'
	assert_exist "$BATS_TEST_TMPDIR/.vx/cache/ac/$K.json"
}

@test "an entry saved in one checkout restores into a copy elsewhere" {
	run -0 save_p
	mkdir -p "$BATS_TEST_TMPDIR/elsewhere/deeper"
	Q=$BATS_TEST_TMPDIR/elsewhere/deeper/proj
	mkdir "$Q"
	run -0 vx-cache restore "$K" "$Q"
	assert_output "$(cat "$LOG")"
	diff -r -x skip.txt "$P/dist" "$Q/dist"
	assert_equal "$(readlink "$Q/dist/latest.js")" a.js
	assert_equal "$(stat -c %a "$Q/dist/bin/run.sh")" 755
}

@test "a failed write of the output exits 1" {
	run -0 save_p
	run -1 to_full vx-cache get "$K"
	assert_output 'vx-cache: write error: No space left on device'
	run -1 to_full vx-cache restore "$K" "$P"
	assert_output 'vx-cache: write error: No space left on device'
	run -1 to_full vx-cache --help
}

@test "a directory or a file in an output's way fails the restore cleanly" {
	run -0 save_p
	rm -rf "$P/dist"
	mkdir -p "$P/dist/a.js"
	run -1 vx-cache restore "$K" "$P"
	assert_output --partial "refusing to restore 'dist/a.js': a directory is in the way"
	rm -rf "$P/dist"
	mkdir "$P/dist"
	echo file > "$P/dist/bin"
	run -1 vx-cache restore "$K" "$P"
	assert_equal "$(cat "$P/dist/bin")" file
	assert_equal "$(leftovers "$P")" ''
}

@test "verify on a cache with no entry yet says nothing and exits 0" {
	# an empty ac/ sorted its no keys with qsort(NULL, 0): the sanitized
	# vx-cache aborted (the class of issue 20.15)
	mkdir -p "$VX_CACHE_DIR/ac"
	run -0 vx-cache verify
	assert_output ''
}

@test "vx-cache: --help is its option table and agrees with its manual page" {
	PATH=$VX_BIN_DIR:$PATH
	assert_help_matches_man vx-cache
}
