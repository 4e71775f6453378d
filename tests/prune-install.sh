#!/usr/bin/env bash
# prune-install.sh: make sure the package caches tests/vx-prune.bats installs
# the pruned fixture from offline exist, and print their directory. It holds
#   npm-cache/   npm's cache with every package of
#                tests/fixtures/prune/ws/package-lock.json
#   pnpm-store/  pnpm's store with every package of
#                tests/fixtures/prune/pnpm/pnpm-lock.yaml
#   pnpm         the pinned pnpm (from the npm registry) as a program
#   yarn-cache/  yarn 1's cache with every package of
#                tests/fixtures/prune/yarn/yarn.lock
#   yarn         the pinned yarn 1 as a program
# filled by installing the whole fixture once from the registry. One
# directory per lockfile hash, pnpm version and node major, under
# $VX_PRUNE_CACHE, else /var/cache/vx-prune when it is writable (root), else
# ${XDG_CACHE_HOME:-$HOME/.cache}/vx-prune. It is made in a temporary
# directory and renamed into place, so a killed install leaves nothing a
# later run takes for whole; once there it needs no network.
#
# Exits 1 with one line naming the cause when node or npm is missing or the
# registry cannot be reached for a first install (the suite then skips its
# install tests and says why).
set -euo pipefail

PNPM_VERSION=10.34.8
YARN_VERSION=1.22.22

die() {
	echo "prune-install: $*" >&2
	exit 1
}

command -v node > /dev/null || die "node is not on PATH; install Node.js 20 or later"
command -v npm > /dev/null || die "npm is not on PATH; install npm with Node.js"
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/fixtures/prune
major=$(node -p 'process.versions.node.split(".")[0]')

if [ -n "${VX_PRUNE_CACHE:-}" ]; then
	cache=$VX_PRUNE_CACHE
elif [ -w /var/cache ] || [ -w /var/cache/vx-prune ]; then
	cache=/var/cache/vx-prune
else
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/vx-prune
fi
key=$(cat "$fx/ws/package-lock.json" "$fx/pnpm/pnpm-lock.yaml" "$fx/yarn/yarn.lock" "$0" | sha256sum | cut -c1-16)
entry=$cache/$key-pnpm$PNPM_VERSION-node$major

# ws DEST LAYOUT: the fixture laid out for npm, pnpm or yarn at DEST (what
# the suite does too: pnpm links lib through the workspace: protocol)
ws() {
	mkdir -p "$1"
	cp -r "$fx/ws/." "$1/"
	if [ "$2" = pnpm ]; then
		rm "$1/package-lock.json"
		cp "$fx/pnpm/pnpm-lock.yaml" "$fx/pnpm/pnpm-workspace.yaml" "$1/"
		sed -i 's|"lib": "\*"|"lib": "workspace:*"|' "$1/packages/app/package.json"
	elif [ "$2" = yarn ]; then
		rm "$1/package-lock.json"
		cp "$fx/yarn/yarn.lock" "$1/"
	fi
}

if [ ! -x "$entry/yarn" ]; then
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/.tmp.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	log=$tmp/log
	ws "$tmp/npm" npm
	(cd "$tmp/npm" && npm ci --prefer-offline --no-audit --no-fund --cache "$tmp/npm-cache" > "$log" 2>&1) || {
		tail -5 "$log" >&2
		die "npm ci of the fixture failed (is the npm registry reachable?)"
	}
	npm install --prefix "$tmp/pnpm-prog" --no-save --no-audit --no-fund --cache "$tmp/npm-cache" \
		"pnpm@$PNPM_VERSION" > "$log" 2>&1 || {
		tail -5 "$log" >&2
		die "npm install pnpm@$PNPM_VERSION failed (is the npm registry reachable?)"
	}
	ws "$tmp/pn" pnpm
	(cd "$tmp/pn" && "$tmp/pnpm-prog/node_modules/.bin/pnpm" install --frozen-lockfile --prefer-offline \
		--store-dir "$tmp/pnpm-store" --reporter=append-only > "$log" 2>&1) || {
		tail -5 "$log" >&2
		die "pnpm install of the fixture failed (is the npm registry reachable?)"
	}
	npm install --prefix "$tmp/yarn-prog" --no-save --no-audit --no-fund --cache "$tmp/npm-cache" \
		"yarn@$YARN_VERSION" > "$log" 2>&1 || {
		tail -5 "$log" >&2
		die "npm install yarn@$YARN_VERSION failed (is the npm registry reachable?)"
	}
	ws "$tmp/yn" yarn
	(cd "$tmp/yn" && node "$tmp/yarn-prog/node_modules/yarn/bin/yarn.js" install --frozen-lockfile \
		--non-interactive --cache-folder "$tmp/yarn-cache" > "$log" 2>&1) || {
		tail -5 "$log" >&2
		die "yarn install of the fixture failed (is the npm registry reachable?)"
	}
	rm -rf "$tmp/npm" "$tmp/pn" "$tmp/yn" "$log"
	# the program, wherever the entry lands (expanded when it runs)
	# shellcheck disable=SC2016
	printf '#!/bin/sh\nexec node "$(dirname "$0")/pnpm-prog/node_modules/pnpm/bin/pnpm.cjs" "$@"\n' > "$tmp/pnpm"
	# shellcheck disable=SC2016
	printf '#!/bin/sh\nexec node "$(dirname "$0")/yarn-prog/node_modules/yarn/bin/yarn.js" "$@"\n' > "$tmp/yarn"
	chmod 755 "$tmp/pnpm" "$tmp/yarn"
	chmod -R a+rX "$tmp"
	# another run may have won the race: keep its entry
	mv -T "$tmp" "$entry" 2> /dev/null || rm -rf "$tmp"
	trap - EXIT
fi
echo "$entry"
