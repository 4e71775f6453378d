#!/usr/bin/env bats
# The example workspace in examples/ and README.md's walk-through of it
# (issue 22 item 8): what a new user runs first must work as README says,
# and the violation README shows must be the one vx prints. Each test runs
# on a copy of examples/, so the checkout stays clean.

load helpers

README="$BATS_TEST_DIRNAME/../README.md"

setup() {
	WS=$BATS_TEST_TMPDIR/examples
	cp -r "$BATS_TEST_DIRNAME/../examples" "$WS"
	rm -rf "$WS/.vx" "$WS"/packages/*/dist
}

# readme_has LINE: README.md holds LINE, give or take its leading blanks and
# the task's time (0.06s), which no two runs share.
readme_has() {
	local want
	want=$(printf '%s' "$1" | sed -E 's/[0-9]+\.[0-9]+s/TIME/; s/^ +//')
	sed -E 's/[0-9]+\.[0-9]+s/TIME/; s/^ +//' "$README" | grep -qxF -- "$want" ||
		fail "README.md does not show the line vx prints: $1"
}

@test "README's first command: the example builds and checks, then every task is a hit" {
	run vx run build check --root "$WS"
	assert_success
	assert_output --partial 'miss @ex/util#build'
	assert_output --partial '@ex/app#build: hello, world'
	assert_output --partial 'vx: 4 tasks: 0 hit, 3 miss, 0 failed, 0 skipped'
	run vx run build check --root "$WS"
	assert_success
	assert_output --partial 'vx: 4 tasks: 4 hit, 0 miss, 0 failed, 0 skipped'
	assert_file_exists "$WS/packages/util/dist/greet.sh"
}

@test "README's walk-through: the hidden root package.json is a violation, with the fix README shows" {
	run vx run version --root "$WS"
	assert_failure 1
	assert_output --partial '@ex/app#version: app 0.0.0-dev'
	assert_output --partial 'SANDBOX VIOLATIONS @ex/app#version'
	# every line of the verdict is in README.md as printed
	local line
	while IFS= read -r line; do
		case $line in
		fail\ *|SANDBOX*|*deny\ file-read*|*fix:*|*every\ grant\ above*) readme_has "$line" ;;
		esac
	done <<<"$output"
	assert_output --partial "fix: allow.read: ['../../package.json'] and cache.inputs.workspaceFiles: ['package.json']"
	# nothing was cached: the next run runs it again
	run vx run version --root "$WS"
	assert_failure 1
	refute_output --partial 'hit  @ex/app#version'
}

@test "README's fix: the grant and the cache input make it pass, hit, and miss when the version moves" {
	local vxj=$WS/packages/app/vx.json
	# the two edits README.md shows, made on the version task's lines
	sed -i '/"version": {/,/^    }/{
		s|"read": \["\."\]|"read": [".", "../../package.json"]|
		s|"inputs": { "files": \["src/\*\*"\] }|"inputs": { "files": ["src/**"], "workspaceFiles": ["package.json"] }|
	}' "$vxj"
	grep -qF '"read": [".", "../../package.json"]' "$vxj"
	grep -qF '"workspaceFiles": ["package.json"]' "$vxj"
	run vx run version --root "$WS"
	assert_success
	assert_output --partial '@ex/app#version: app 2.4.0'
	assert_equal "$(cat "$WS/packages/app/dist/version.txt")" "app 2.4.0"
	run vx run version --root "$WS"
	assert_success
	assert_output --partial 'hit  @ex/app#version'
	sed -i 's/"version": "2.4.0"/"version": "2.5.0"/' "$WS/package.json"
	run vx run version --root "$WS"
	assert_success
	assert_output --partial 'miss @ex/app#version'
	assert_equal "$(cat "$WS/packages/app/dist/version.txt")" "app 2.5.0"
}

@test "README's fix, half applied: the grant alone is refused before anything runs (R-21a), never a stale hit" {
	local vxj=$WS/packages/app/vx.json
	sed -i '/"version": {/,/^    }/s|"read": \["\."\]|"read": [".", "../../package.json"]|' "$vxj"
	grep -qF '"read": [".", "../../package.json"]' "$vxj"
	run -2 vx run version --root "$WS"
	assert_output "vx-graph: packages/app/vx.json: tasks.version.exec.sandbox.allow.read[1]: '../../package.json' lets the cached task read 'package.json', outside its project, which no input of its key answers for, so an edit there would replay a stale result (R-21a); fix: add \"package.json\" to cache.inputs.workspaceFiles of @ex/app#version"
	assert_file_not_exists "$WS/packages/app/dist/version.txt"
	# the other half alone: the read stays hidden, the task fails, nothing is saved
	sed -i '/"version": {/,/^    }/{
		s|"read": \[".", "../../package.json"\]|"read": ["."]|
		s|"inputs": { "files": \["src/\*\*"\] }|"inputs": { "files": ["src/**"], "workspaceFiles": ["package.json"] }|
	}' "$vxj"
	grep -qF '"workspaceFiles": ["package.json"]' "$vxj"
	run -1 vx run version --root "$WS"
	assert_output --partial 'SANDBOX VIOLATIONS @ex/app#version'
	run -1 vx run version --root "$WS"
	refute_output --partial 'hit  @ex/app#version'
}

@test "the example's .vx/ stays out of git status" {
	cd "$WS" || return 1
	rm .gitignore # vx's own .vx/.gitignore, not the example's, keeps it out
	git init -q .
	run vx run build check --root "$WS"
	assert_success
	assert_dir_exists "$WS/.vx"
	run git status --porcelain --ignored=no
	assert_success
	refute_output --partial '.vx'
}

@test "README's vx init --sandbox: app's build learned in one run and verified, with the lines README shows" {
	run -0 vx run build --root "$WS"
	run -0 --separate-stderr vx init --sandbox @ex/app#build --root "$WS"
	local line
	# shellcheck disable=SC2154  # bats sets stderr_lines
	for line in "${stderr_lines[@]}"; do
		case $line in
		vx-init:*) readme_has "$line" ;;
		esac
	done
	assert_line --partial '"sandbox": { "allow": { "read": ["src", "../util/dist"], "write": ["dist/"] } }'
	readme_has "$(grep '^+ .*"sandbox"' <<< "$output")"
	(cd "$WS" && printf '%s\n' "$output" | git apply)
	# the block folds into the key: a miss, passing sandboxed, then a hit
	run -0 vx run build --root "$WS"
	refute_output --partial VIOLATION
	assert_output --partial 'miss @ex/app#build'
	run -0 vx run build --root "$WS"
	assert_output --partial 'hit  @ex/app#build'
}
