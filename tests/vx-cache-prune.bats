#!/usr/bin/env bats
# shellcheck disable=SC2154  # bats sets $stderr, $output, $lines
# The local cache's size cap (issue 36, R-11): least recently used entries
# evicted first, by a vx run that added to the cache or by `vx cache prune`;
# never an entry the run itself used; blobs kept while an entry names them;
# no symlink in the cache followed.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	unset VX_ROOT VX_CACHE_MAX_SIZE
	export VX_CACHE_DIR=$BATS_TEST_TMPDIR/cache
	C=$VX_CACHE_DIR
}

# backdate KEY AGE: date KEY's last use AGE ago (its manifest and its
# lines in the hits file), as if it was last saved or hit then.
backdate() {
	touch -h -d "$2 ago" "$C/ac/$1.json"
	if [ -f "$C/hits" ]; then
		local ns
		ns=$(date -d "$2 ago" +%s%N)
		sed -i "s/^$1 [0-9]*\$/$1 $ns/" "$C/hits"
	fi
}

# blobs_of KEY: the cache files of KEY's blobs, one a line.
blobs_of() {
	/usr/bin/python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
for h in [f["hash"] for f in m["files"] if "hash" in f]:
    print(sys.argv[2] + "/cas/" + h[:2] + "/" + h)
' "$C/ac/$1.json" "$C"
}

# a workspace of packages a..e, each build writing 100000 random bytes
ws5() {
	new_ws
	cd "$WS" || return 1
	local p
	for p in a b c d e; do
		pkg "packages/$p" "@x/$p" '' '{ "tasks": { "build": {
			"exec": { "command": "echo '"$p"' >> ../../ran.log && mkdir -p dist && head -c 100000 /dev/urandom > dist/out" },
			"cache": { "inputs": { "files": ["src/**"] }, "outputs": { "files": ["dist/**"] } } } } }'
		put "packages/$p/src/x" "$p"
	done
}

# rec_of ID FIELD: FIELD of ID's result in the last `vx run --json` output
rec_of() {
	printf '%s\n' "$output" | /usr/bin/python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r.get("type") == "result" and r.get("id") == sys.argv[1]:
        print(r[sys.argv[2]])
' "$1" "$2"
}
key_of() { rec_of "$1" key; }

@test "vx run over the cap evicts the least recently used; not a recent hit, nor what the run used" {
	ws5
	run -0 vx run --json @x/a#build @x/b#build @x/c#build @x/d#build
	local a b c d
	a=$(key_of @x/a#build) b=$(key_of @x/b#build) c=$(key_of @x/c#build) d=$(key_of @x/d#build)
	backdate "$a" '4 hours'
	backdate "$b" '3 hours'
	backdate "$c" '2 hours'
	backdate "$d" '5 hours'
	# d, the oldest, is hit now: a recent use
	run -0 vx run --json @x/d#build
	assert_equal "$(rec_of @x/d#build status)" hit
	# a, now the oldest, is hit by the run that saves e and goes over the
	# cap (5 entries of ~100K, cap 350K: down to 315K, two evicted)
	rm -f ran.log
	VX_CACHE_MAX_SIZE=350K run -0 vx run --json @x/a#build @x/e#build
	assert_equal "$(rec_of @x/a#build status)" hit
	assert_equal "$(cat ran.log)" e
	local e
	e=$(key_of @x/e#build)
	assert_exist "$C/ac/$a.json"
	assert_exist "$C/ac/$d.json"
	assert_exist "$C/ac/$e.json"
	assert_not_exist "$C/ac/$b.json"
	assert_not_exist "$C/ac/$c.json"
	# their blobs went with them
	[ "$(find "$C/cas" -type f | wc -l)" -le 6 ]
	# the survivors hit; the evicted run again
	rm -f ran.log packages/*/dist/out
	run -0 vx run build
	assert_equal "$(sort ran.log | tr '\n' ' ')" 'b c '
}

@test "a run that saves nothing prunes nothing; under the cap nothing goes; over it, down to 90%" {
	ws5
	run -0 vx run --json @x/a#build @x/b#build
	VX_CACHE_MAX_SIZE=100K run -0 vx run --json @x/a#build @x/b#build
	[ "$(find "$C/ac" -name '*.json' | wc -l)" -eq 2 ]
	VX_CACHE_MAX_SIZE=10G run -0 vx run --json @x/c#build
	[ "$(find "$C/ac" -name '*.json' | wc -l)" -eq 3 ]
	# 4 entries of ~100K over a cap of 150K: all but the one just saved go
	VX_CACHE_MAX_SIZE=150K run -0 vx run --json @x/d#build
	assert_equal "$(ls "$C/ac")" "$(key_of @x/d#build).json"
}

@test "an entry the run hit survives its own prune though its last use is older" {
	ws5
	run -0 vx run --json @x/a#build @x/b#build
	local a b
	a=$(key_of @x/a#build) b=$(key_of @x/b#build)
	run -0 vx run --json @x/a#build
	backdate "$a" '30 minutes'
	backdate "$b" '10 minutes'
	touch -d '4 hours ago' "$C/ac/$a.json"
	# a (30 minutes) is older than b (10): hit by the run that prunes, it stays
	VX_CACHE_MAX_SIZE=150K run -0 vx run --json @x/a#build @x/c#build
	assert_equal "$(rec_of @x/a#build status)" hit
	assert_exist "$C/ac/$a.json"
	assert_not_exist "$C/ac/$b.json"
	assert_exist "$C/ac/$(key_of @x/c#build).json"
	# and its hit is in the record, dated at the run's end
	[ "$(grep -c "^$a " "$C/hits")" -ge 1 ]
	[ "$(grep "^$a " "$C/hits" | tail -n 1 | cut -d' ' -f2 | cut -c1-10)" -ge "$(date -d '1 minute ago' +%s)" ]
}

@test "a run's hits are one record at its end: a line per key in the hits file, no file per entry" {
	ws5
	run -0 vx run --json @x/a#build @x/b#build @x/c#build
	[ ! -e "$C/hits" ] || [ "$(grep -c '^[0-9a-f]\{32\} ' "$C/hits")" -eq 0 ]
	local before
	before=$(date +%s)
	run -0 vx run --json @x/a#build @x/b#build @x/c#build
	assert_equal "$(rec_of @x/a#build status)" hit
	assert_not_exist "$C/used"
	# one header, then the three keys hit, all dated alike (one write)
	assert_equal "$(head -c 10 "$C/hits")" "vx-hits 1 "
	local k
	for k in a b c; do
		[ "$(grep -c "^$(key_of "@x/$k#build") " "$C/hits")" -eq 1 ]
	done
	assert_equal "$(tail -n +2 "$C/hits" | cut -d' ' -f2 | sort -u | wc -l)" 1
	[ "$(tail -n 1 "$C/hits" | cut -d' ' -f2 | cut -c1-10)" -ge "$before" ]
	# a second run appends its own three lines
	run -0 vx run --json @x/a#build @x/b#build @x/c#build
	assert_equal "$(grep -c '^[0-9a-f]\{32\} ' "$C/hits")" 6
}

@test "the hits file is compacted once it doubled past 4 MiB: a line per key, the latest" {
	ws5
	run -0 vx run --json @x/a#build @x/b#build
	local a b
	a=$(key_of @x/a#build) b=$(key_of @x/b#build)
	# a record grown by 80,000 old hits of a and of a key of no entry
	/usr/bin/python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    f.write("vx-hits 1 000000000000\n")
    for i in range(40000):
        f.write("%s %019d\n" % ("f" * 32, 1000000000000000000 + i))
        f.write("%s %019d\n" % (sys.argv[2], 1000000000000000000 + i))
' "$C/hits" "$a"
	run -0 vx run --json @x/a#build @x/b#build
	[ "$(stat -c %s "$C/hits")" -lt 1000 ]
	assert_equal "$(grep -c "^$a " "$C/hits")" 1
	assert_equal "$(grep -c "^$b " "$C/hits")" 1
	assert_equal "$(grep "^ffffffff" "$C/hits")" "$(printf '%s 1000000000000039999' ffffffffffffffffffffffffffffffff)"
	[ "$(grep "^$a " "$C/hits" | cut -d' ' -f2 | cut -c1-10)" -ge "$(date -d '1 minute ago' +%s)" ]
}

@test "the used/ files of an older vx still date hits for prune, then go" {
	ws5
	run -0 vx run --json @x/a#build @x/b#build @x/c#build
	local a b c
	a=$(key_of @x/a#build) b=$(key_of @x/b#build) c=$(key_of @x/c#build)
	backdate "$a" '3 hours'
	backdate "$b" '2 hours'
	backdate "$c" '1 hour'
	mkdir -p "$C/used"
	touch -d '5 minutes ago' "$C/used/$a"
	run -0 vx cache prune --max-size 250KB
	assert_output --partial '"evicted":1'
	assert_exist "$C/ac/$a.json"
	assert_not_exist "$C/ac/$b.json"
	assert_not_exist "$C/used"
	assert_equal "$(grep -c "^$a " "$C/hits")" 1
}

@test "vx cache prune --max-size by hand: oldest first, down to 90% of the cap, one JSON line" {
	ws5
	run -0 vx run --json @x/a#build @x/b#build @x/c#build
	local a b c
	a=$(key_of @x/a#build) b=$(key_of @x/b#build) c=$(key_of @x/c#build)
	backdate "$a" '1 hour'
	backdate "$b" '3 hours'
	backdate "$c" '2 hours'
	run -0 vx cache prune --max-size 1MB
	assert_output --partial '"type":"pruned"'
	assert_output --partial '"evicted":0'
	run -0 vx cache prune --max-size 250KB
	assert_output --partial '"entries":3,"evicted":1,"blobs":1'
	assert_not_exist "$C/ac/$b.json"
	assert_exist "$C/ac/$c.json"
	# VX_CACHE_MAX_SIZE is the default cap
	VX_CACHE_MAX_SIZE=120k run -0 vx-cache prune
	assert_output --partial '"maxSize":122880,"entries":2,"evicted":1'
	assert_not_exist "$C/ac/$c.json"
	assert_exist "$C/ac/$a.json"
	run -0 vx-cache get "$a"
}

@test "prune keeps a blob while another entry names it" {
	P=$BATS_TEST_TMPDIR/p
	mkdir -p "$P/dist"
	head -c 200000 /dev/urandom > "$P/dist/big"
	echo shared > "$P/dist/shared"
	local k1=11111111111111111111111111111111 k2=22222222222222222222222222222222
	run -0 vx-cache save $k1 "$P" --outputs 'dist/**'
	run -0 vx-cache save $k2 "$P" --outputs 'dist/shared'
	backdate $k1 '2 hours'
	backdate $k2 '1 hour'
	local shared big
	shared=$(blobs_of $k2)
	big=$(blobs_of $k1 | grep -v -x -F "$shared")
	run -0 vx-cache prune --max-size 100K
	assert_output --partial '"evicted":1,"blobs":1'
	assert_not_exist "$C/ac/$k1.json"
	assert_not_exist "$big"
	assert_exist "$shared"
	rm -rf "$P/dist"
	run -0 vx-cache restore $k2 "$P"
	assert_equal "$(cat "$P/dist/shared")" shared
}

@test "prune follows no symlink planted in the cache" {
	P=$BATS_TEST_TMPDIR/p
	mkdir -p "$P/dist"
	echo a > "$P/dist/a"
	local k1=11111111111111111111111111111111 k2=22222222222222222222222222222222
	local k3=33333333333333333333333333333333 blob=ff000000000000000000000000000000
	run -0 vx-cache save $k1 "$P" --outputs 'dist/**'
	O=$BATS_TEST_TMPDIR/outside
	mkdir -p "$O/used" "$O/hh" "$O/ac"
	echo keep > "$O/$blob"
	echo keep > "$O/hh/$blob"
	cp "$C/ac/$k1.json" "$O/ac/$k2.json"
	echo keep > "$O/used/$k3"
	touch -d '3 hours ago' "$O/$blob" "$O/hh/$blob" "$O/ac/$k2.json" "$O/used/$k3"
	ln -s "$O/hh" "$C/cas/ff"                   # a blob directory
	mkdir -p "$C/cas/fe"
	ln -s "$O/$blob" "$C/cas/fe/fe${blob#ff}"   # a blob
	ln -s "$O/ac/$k2.json" "$C/ac/$k2.json"     # a manifest
	rm -rf "$C/used" "$C/hits"
	ln -s "$O/used" "$C/used"                   # used/ (an older vx's record)
	echo keep > "$O/hits"
	ln -s "$O/hits" "$C/hits"                   # the hits record
	backdate $k1 '2 hours'
	run -0 vx-cache prune --max-size 1
	assert_output --partial '"evicted":1'
	assert_not_exist "$C/ac/$k1.json"
	for f in "$blob" "hh/$blob" "ac/$k2.json" "used/$k3" hits; do
		assert_equal "$(cat "$O/$f")" "$(if [ "$f" = "ac/$k2.json" ]; then cat "$O/ac/$k2.json"; else echo keep; fi)"
		assert_exist "$O/$f"
	done
	# a hit does not write through the hits symlink either
	run -0 vx-cache save $k1 "$P" --outputs 'dist/**'
	ws5
	run -0 vx run --json @x/a#build
	run -0 vx run --json @x/a#build
	assert_equal "$(find "$O/used" -type f | wc -l)" 1
	assert_equal "$(cat "$O/hits")" keep
}

@test "a bad size is one line and exit 2 (prune); a bad VX_CACHE_MAX_SIZE one warning" {
	run -2 vx-cache prune --max-size 10XB
	assert_equal "${#lines[@]}" 1
	assert_output "vx-cache: --max-size: '10XB' is not a size; fix: bytes, or a number with K, M, G or T, as in 500M or 10GB (0: no cap)"
	run -2 vx-cache prune --max-size -5G
	run -2 vx-cache get 0123456789abcdef0123456789abcdef --max-size 1G
	VX_CACHE_MAX_SIZE=lots run -0 vx-cache prune
	assert_line --partial "VX_CACHE_MAX_SIZE: 'lots' is not a size"
	assert_line --partial '"maxSize":10737418240'
}

@test "the root vx.json's cacheMaxSize caps the cache; VX_CACHE_MAX_SIZE, when set, wins" {
	ws5
	put vx.json '{ "cacheMaxSize": "150K" }'
	run -0 vx run --json @x/a#build @x/b#build @x/c#build
	# 3 entries of ~100K over 150K: only what this run saved may stay, and
	# it alone is over 90% of the cap, so nothing else is left
	[ "$(find "$C/ac" -name '*.json' | wc -l)" -eq 3 ]
	VX_CACHE_MAX_SIZE=10G run -0 vx run --json @x/d#build
	[ "$(find "$C/ac" -name '*.json' | wc -l)" -eq 4 ]
	run -0 vx run --json @x/e#build
	assert_equal "$(ls "$C/ac")" "$(key_of @x/e#build).json"
	# a number of bytes works too; 0 is no cap
	put vx.json '{ "cacheMaxSize": 0 }'
	run -0 vx run --json @x/a#build @x/b#build
	[ "$(find "$C/ac" -name '*.json' | wc -l)" -eq 3 ]
}

@test "a bad cacheMaxSize, or one outside the root's vx.json, is a config error naming file, key and fix" {
	ws5
	put vx.json '{ "cacheMaxSize": "lots" }'
	run -2 vx run @x/a#build
	assert_output --partial 'vx.json'
	assert_output --partial 'cacheMaxSize'
	assert_output --partial 'fix: write a size'
	put vx.json '{ "cacheMaxSize": -1 }'
	run -2 vx run @x/a#build
	put vx.json '{}'
	put packages/a/vx.json '{ "cacheMaxSize": "1G", "tasks": {} }'
	run -2 vx run @x/b#build
	assert_output --partial 'packages/a/vx.json'
	assert_output --partial "fix: move it to the workspace root's vx.json"
	assert_not_exist ran.log
}
