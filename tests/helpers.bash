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

# put FILE CONTENT: write CONTENT to FILE under the current workspace,
# creating its directories.
put() {
	mkdir -p "$(dirname "$WS/$1")"
	printf '%s\n' "$2" > "$WS/$1"
}

# new_ws [DIR]: a fresh, empty npm-workspaces root with packages/* globs.
new_ws() {
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
