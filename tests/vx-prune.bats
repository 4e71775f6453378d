#!/usr/bin/env bats
# vx prune (turbo prune): the subset of a workspace some packages need, its
# lockfile pruned, on tests/fixtures/prune: app depends on lib (a workspace
# package) and picocolors, lib on ms 2.1.3, other (unrelated) on is-odd
# (which needs is-number) and ms 2.0.0 (nested under other in npm's tree).
# The install tests install the pruned output offline from package caches
# tests/prune-install.sh filled once from the npm registry, then build it.

load helpers

FX=$BATS_TEST_DIRNAME/fixtures/prune

# fixture LAYOUT: the fixture workspace at $WS for npm or pnpm (pnpm links
# lib through the workspace: protocol), as prune-install.sh lays it out
fixture() {
	WS=$BATS_TEST_TMPDIR/ws
	mkdir -p "$WS"
	cp -r "$FX/ws/." "$WS/"
	if [ "$1" = pnpm ]; then
		rm "$WS/package-lock.json"
		cp "$FX/pnpm/pnpm-lock.yaml" "$FX/pnpm/pnpm-workspace.yaml" "$WS/"
		sed -i 's|"lib": "\*"|"lib": "workspace:*"|' "$WS/packages/app/package.json"
	elif [ "$1" = yarn ]; then
		rm "$WS/package-lock.json"
		cp "$FX/yarn/yarn.lock" "$WS/"
	fi
	cd "$WS" || return 1
}

# caches: the offline package caches, or skip saying why (a first install
# needs the npm registry)
caches() {
	CACHES=$(bash "$BATS_TEST_DIRNAME/prune-install.sh" 2> "$BATS_TEST_TMPDIR/install.log") ||
		skip "no package caches: $(tail -1 "$BATS_TEST_TMPDIR/install.log")"
}

# lock_keys FILE: the "packages" keys of a package-lock.json, one a line
lock_keys() {
	node -e 'for (const k of Object.keys(require(require("path").resolve(process.argv[1])).packages)) console.log(k || "(root)")' "$1"
}

@test "prune app: app and lib with their sources, other left out, the root's files, its workspaces cut to them" {
	fixture npm
	put packages/app/src/deep/note.txt "kept"
	put tsconfig.base.json '{ "compilerOptions": {} }'
	put .env "SECRET=1"
	put .npmrc "fund=false"
	mkdir -p tools && put tools/gen.sh "not a package"
	run vx prune app
	assert_success
	assert_output --partial "2 packages into out: app lib"
	assert_file_exists out/packages/app/build.js
	assert_file_exists out/packages/app/src/deep/note.txt
	assert_file_exists out/packages/app/vx.json
	assert_file_exists out/packages/lib/index.js
	assert_file_not_exists out/packages/other/package.json
	assert_file_not_exists out/packages/other/index.js
	# the root's files come along (a shared config a build reads), but not
	# its dotfiles other than the package managers' nor its directories
	assert_file_exists out/tsconfig.base.json
	assert_file_exists out/.npmrc
	assert_file_not_exists out/.env
	assert_file_not_exists out/tools/gen.sh
	run node -p 'JSON.stringify(require("./out/package.json").workspaces)'
	assert_output '["packages/app","packages/lib"]'
	# a package named by its directory is the same package
	run vx prune packages/lib --out-dir out2
	assert_success
	assert_file_exists out2/packages/lib/index.js
	assert_file_not_exists out2/packages/app/package.json
}

@test "npm: package-lock.json keeps what app and lib reach, not other's is-odd, is-number nor its nested ms" {
	fixture npm
	run vx prune app
	assert_success
	assert_output --partial "package-lock.json: 2 of 5 packages kept"
	run lock_keys out/package-lock.json
	assert_output "(root)
node_modules/app
node_modules/lib
node_modules/ms
node_modules/picocolors
packages/app
packages/lib"
	run node -p 'const l = require("./out/package-lock.json").packages; l["node_modules/ms"].version + " " + JSON.stringify(l[""].workspaces)'
	assert_output '2.1.3 ["packages/app","packages/lib"]'
	# other keeps its own ms 2.0.0 (nested) and is-odd with is-number
	run vx prune other --out-dir o2
	assert_success
	run lock_keys o2/package-lock.json
	assert_output "(root)
node_modules/is-number
node_modules/is-odd
node_modules/other
packages/other
packages/other/node_modules/ms"
}

@test "npm: the pruned output installs offline with npm ci and vx run build builds app" {
	caches
	fixture npm
	vx prune app
	cd out
	run npm ci --offline --no-audit --no-fund --cache "$CACHES/npm-cache"
	assert_success
	assert_file_exists node_modules/picocolors/package.json
	assert_file_exists node_modules/ms/package.json
	assert_file_not_exists node_modules/is-odd/package.json
	run vx run build
	assert_success
	assert_file_contains packages/app/dist/out.txt "app built: 2s"
}

@test "pnpm: pnpm-lock.yaml keeps the kept importers and the packages they reach, byte for byte" {
	fixture pnpm
	run vx prune app
	assert_success
	assert_output --partial "pnpm-lock.yaml: 2 of 5 packages kept"
	assert_file_exists out/pnpm-workspace.yaml
	run grep -E '^  [^ ]' out/pnpm-lock.yaml
	assert_output "  autoInstallPeers: true
  excludeLinksFromLockfile: false
  .: {}
  packages/app:
  packages/lib:
  ms@2.1.3:
  picocolors@1.1.1:
  ms@2.1.3: {}
  picocolors@1.1.1: {}"
	# each kept entry is the original's lines
	run diff <(sed -n '/^  ms@2.1.3:/,/^$/p' pnpm-lock.yaml) <(sed -n '/^  ms@2.1.3:/,/^$/p' out/pnpm-lock.yaml)
	assert_success
	run vx prune other --out-dir o2
	assert_success
	run grep -E '^  [a-z.]' o2/pnpm-lock.yaml
	assert_output --partial "is-number@6.0.0: {}"
	refute_output --partial "picocolors"
	refute_output --partial "ms@2.1.3"
}

@test "pnpm --docker: json/ holds the manifests and lockfile, full/ the sources; offline frozen install, then the build" {
	caches
	fixture pnpm
	run vx prune app --docker
	assert_success
	run bash -c 'cd out/json && find . -type f | LC_ALL=C sort'
	assert_output "./package.json
./packages/app/package.json
./packages/lib/package.json
./pnpm-lock.yaml
./pnpm-workspace.yaml"
	assert_file_exists out/pnpm-lock.yaml
	assert_file_exists out/full/packages/app/build.js
	assert_file_exists out/full/packages/lib/index.js
	assert_file_not_exists out/full/packages/other/package.json
	# the Dockerfile's steps: json/, the install layer, then full/ over it
	mkdir img
	cp -r out/json/. img/
	cd img
	run "$CACHES/pnpm" install --offline --frozen-lockfile --store-dir "$CACHES/pnpm-store" --reporter=append-only
	assert_success
	cp -r ../out/full/. .
	run vx run build
	assert_success
	assert_file_contains packages/app/dist/out.txt "app built: 2s"
}

@test "an output directory that is not empty is refused and left as it was; an empty one is used" {
	fixture npm
	mkdir out
	put out/stale.txt "old"
	run vx prune app
	assert_failure 1
	assert_output --partial "out: exists and is not empty; fix: remove it, or give --out-dir a new directory"
	assert_file_not_exists out/package.json
	rm out/stale.txt
	run vx prune app
	assert_success
	assert_file_exists out/package.json
}

@test "an unknown package is one line naming it, exit 2, nothing written" {
	fixture npm
	run vx prune nope
	assert_failure 2
	assert_output --partial "'nope': no such package in the workspace"
	assert_file_not_exists out
	run vx prune
	assert_failure 2
}

@test "bun.lock is copied whole with a warning, a yarn 2+ lockfile refused; an npm lockfile v1 is refused" {
	fixture npm
	rm package-lock.json
	put bun.lock "{ }"
	run vx prune app
	assert_success
	assert_output --partial "bun.lock is not pruned: copied whole"
	assert_file_exists out/bun.lock
	rm bun.lock
	printf '__metadata:\n  version: 8\n' > yarn.lock
	run vx prune app --out-dir o1
	assert_failure 1
	assert_output --partial "yarn.lock: __metadata: a yarn 2+ (berry) lockfile is not pruned"
	rm yarn.lock
	put package-lock.json '{ "name": "x", "lockfileVersion": 1, "dependencies": {} }'
	run vx prune app --out-dir o2
	assert_failure 1
	assert_output --partial "package-lock.json: lockfileVersion: only versions 2 and 3"
	assert_file_not_exists o2
}

# entries LOCK: the entry keys of a pnpm lockfile's sections, one a line
entries() {
	awk '/^[a-z]/ { sec = $1 } /^  [^ ]/ && sec != "settings:" { sub(/^  /, ""); sub(/:( \{\})?$/, ""); print sec " " $0 }' "$1"
}

@test "pnpm lockfile v9 and v6: peers, scoped names, aliases and the root importer's devDependencies kept, other's react 17 dropped" {
	fixture pnpm
	cp "$FX/locks/v9.yaml" pnpm-lock.yaml
	run vx prune app
	assert_success
	assert_output --partial "pnpm-lock.yaml: 5 of 7 packages kept"
	run entries out/pnpm-lock.yaml
	assert_output "importers: .
importers: packages/app
importers: packages/lib
packages: '@x/react-thing@1.0.0'
packages: loose-envify@1.4.0
packages: react@18.3.1
packages: string-width@4.2.3
packages: typescript@5.4.5
snapshots: '@x/react-thing@1.0.0(react@18.3.1)'
snapshots: loose-envify@1.4.0
snapshots: react@18.3.1
snapshots: string-width@4.2.3
snapshots: typescript@5.4.5"
	cp "$FX/locks/v6.yaml" pnpm-lock.yaml
	run vx prune app --out-dir o6
	assert_success
	assert_output --partial "pnpm-lock.yaml: 3 of 5 packages kept"
	run entries o6/pnpm-lock.yaml
	assert_output "importers: .
importers: packages/app
importers: packages/lib
packages: /@x/react-thing@1.0.0(react@18.3.1)
packages: /loose-envify@1.4.0
packages: /react@18.3.1"
}

@test "npm lockfile v2: its npm 6 \"dependencies\" tree is cut to the same packages, a workspace's nested ones with it" {
	fixture npm
	cp "$FX/locks/package-lock-v2.json" package-lock.json
	run vx prune app
	assert_success
	run node -p 'Object.keys(require(require("path").resolve("out/package-lock.json")).dependencies).join(" ")'
	assert_output "app lib ms picocolors"
	run vx prune other --out-dir o2
	assert_success
	run node -p 'const d = require(require("path").resolve("o2/package-lock.json")).dependencies; Object.keys(d).join(" ") + " / " + d.other.dependencies.ms.version'
	assert_output "is-number is-odd other / 2.0.0"
}

@test "yarn 1: yarn.lock keeps what app and lib reach; it installs offline with --frozen-lockfile and vx run build builds app" {
	fixture yarn
	run vx prune app
	assert_success
	assert_output --partial "yarn.lock: 2 of 5 packages kept"
	run grep -E '^[^ #]' out/yarn.lock
	assert_output "ms@2.1.3:
picocolors@1.1.1:"
	run vx prune other --out-dir o2
	assert_success
	run grep -E '^[^ #]' o2/yarn.lock
	assert_output "is-number@^6.0.0:
is-odd@3.0.1:
ms@2.0.0:"
	caches
	cd out
	run "$CACHES/yarn" install --offline --frozen-lockfile --non-interactive --cache-folder "$CACHES/yarn-cache"
	assert_success
	assert_file_exists node_modules/picocolors/package.json
	assert_file_not_exists node_modules/is-odd/package.json
	run vx run build
	assert_success
	assert_file_contains packages/app/dist/out.txt "app built: 2s"
}
