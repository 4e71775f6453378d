#!/usr/bin/env bash
# turbocache-install.sh: make sure the pinned turborepo-remote-cache (the
# self-hosted server of Turborepo's remote cache API, from the npm registry)
# is installed and print the path of its program. tests/vx-remote-turbo.bats
# starts it on loopback.
#
# The install is kept outside the clone, one directory per version and node
# major: under $VX_TURBOCACHE_CACHE, else /var/cache/vx-turbocache when it is
# writable (root), else ${XDG_CACHE_HOME:-$HOME/.cache}/vx-turbocache. Once
# there it needs no network. It is made in a temporary directory and renamed
# into place, so a killed install leaves nothing a later run takes for whole.
#
# Fails loudly (exit 1, one line naming the cause) when node or npm is
# missing, node is older than the server needs (20), or the registry cannot
# be reached for a first install: a suite that skips silently tests nothing.
set -euo pipefail

VERSION=2.12.0

die() {
	echo "turbocache-install: $*" >&2
	exit 1
}

command -v node > /dev/null || die "node is not on PATH; install Node.js 20 or later"
command -v npm > /dev/null || die "npm is not on PATH; install npm with Node.js"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || die "node $(node --version) is too old for turborepo-remote-cache $VERSION; install Node.js 20 or later"

if [ -n "${VX_TURBOCACHE_CACHE:-}" ]; then
	cache=$VX_TURBOCACHE_CACHE
elif [ -w /var/cache ] || [ -w /var/cache/vx-turbocache ]; then
	cache=/var/cache/vx-turbocache
else
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/vx-turbocache
fi
entry=$cache/$VERSION-node$major
prog=$entry/node_modules/.bin/turborepo-remote-cache

if [ ! -x "$prog" ]; then
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/.tmp.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	if ! npm install --prefix "$tmp" --prefer-offline --no-audit --no-fund --loglevel=error \
		"turborepo-remote-cache@$VERSION" > "$tmp.log" 2>&1; then
		tail -5 "$tmp.log" >&2
		rm -f "$tmp.log"
		die "npm install turborepo-remote-cache@$VERSION failed (is the registry reachable?)"
	fi
	rm -f "$tmp.log"
	# another run may have won the race: keep its entry
	mv -T "$tmp" "$entry" 2> /dev/null || rm -rf "$tmp"
	trap - EXIT
fi
[ -x "$prog" ] || die "no program at $prog after the install"
echo "$prog"
