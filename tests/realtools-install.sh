#!/usr/bin/env bash
# realtools-install.sh LAYOUT [DEST]: lay out a real-tools fixture workspace
# at DEST with its node_modules installed from the npm registry. LAYOUT:
#   npm     tests/fixtures/realtools/ws, npm ci from the committed
#           package-lock.json (hoisted, workspace packages linked at the root)
#   pnpm    the same workspace, pnpm install --frozen-lockfile from the
#           committed tests/fixtures/realtools/pnpm/pnpm-lock.yaml
#           (node_modules/.pnpm, each package's tools and siblings linked in
#           its own node_modules)
#   tsdown  tests/fixtures/tsdown/ws, a six-package pnpm 10 monorepo built
#           with tsdown (rolldown) and tested with vitest, turbo.json at its
#           root, its pnpm-lock.yaml and pnpm-workspace.yaml committed in it
#
# The install is cached outside the clone so CI stays fast: one directory per
# layout keyed by the hash of every manifest, the lockfile, the node version
# and this script's format, under $VX_REALTOOLS_CACHE, else
# /var/cache/vx-realtools when it is writable (root), else
# ${XDG_CACHE_HOME:-$HOME/.cache}/vx-realtools. A hit copies the trees into
# DEST (hard links where the filesystem and the owner allow, a copy
# otherwise); a miss installs first (--prefer-offline, so the registry is asked
# only for what the package cache lacks). An entry is made in a temporary
# directory and renamed into place, so a run killed mid-install leaves no
# entry a later run would take for whole.
#
# Fails loudly (exit 1, one line naming the cause) when node or npm is missing,
# node is older than the tools need, or the registry cannot be reached for a
# first install: a real-tools suite that skips silently tests nothing.
# Without DEST it only makes sure the entry exists and prints its path.
set -euo pipefail

FORMAT=1
PNPM_VERSION=10.34.8

die() {
	echo "realtools-install: $*" >&2
	exit 1
}

case $# in 1 | 2) ;; *) die "usage: realtools-install.sh npm|pnpm|tsdown [DEST]" ;; esac
layout=$1
dest=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
# fixture: the tree holding ws/; pm: the package manager; pnpmdir: where the
# pnpm layout's lockfile and pnpm-workspace.yaml are committed
case $layout in
npm | pnpm)
	fixture=$here/fixtures/realtools
	pm=$layout
	pnpmdir=$fixture/pnpm
	;;
tsdown)
	fixture=$here/fixtures/tsdown
	pm=pnpm
	pnpmdir=$fixture/ws
	;;
*) die "unknown layout '$layout'; use npm, pnpm or tsdown" ;;
esac

command -v node > /dev/null || die "node is not on PATH; install Node.js 20.19 or later"
command -v npm > /dev/null || die "npm is not on PATH; install npm with Node.js"
node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' ||
	die "node $(node --version) is too old for vite 7, vitest 3 and tsdown 0.21; install Node.js 20.19 or later"

if [ -n "${VX_REALTOOLS_CACHE:-}" ]; then
	cache=$VX_REALTOOLS_CACHE
elif [ -w /var/cache ] || [ -w /var/cache/vx-realtools ]; then
	cache=/var/cache/vx-realtools
else
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/vx-realtools
fi

# the manifests npm or pnpm reads, root-relative
manifests() {
	(cd "$fixture/ws" && find . -name package.json -not -path '*/node_modules/*' | LC_ALL=C sort)
}

lockfiles() {
	if [ "$pm" = npm ]; then
		echo "$fixture/ws/package-lock.json"
	else
		echo "$pnpmdir/pnpm-lock.yaml"
		echo "$pnpmdir/pnpm-workspace.yaml"
	fi
}

key=$(
	{
		echo "format $FORMAT $layout pnpm $PNPM_VERSION node $(node --version)"
		manifests | while read -r m; do
			echo "$m"
			cat "$fixture/ws/$m"
		done
		lockfiles | while read -r l; do
			echo "${l#"$fixture"/}"
			cat "$l"
		done
	} | sha256sum | cut -c1-16
)
entry=$cache/$layout-$key

install_entry() {
	local tmp m
	mkdir -p "$cache"
	chmod 755 "$cache"
	tmp=$(mktemp -d "$cache/.tmp-$layout.XXXXXX")
	while read -r m; do
		mkdir -p "$tmp/$(dirname "$m")"
		cp "$fixture/ws/$m" "$tmp/$m"
	done < <(manifests)
	local t0=$SECONDS log=$tmp/.install.log
	echo "realtools-install: installing the $layout layout into $entry (first run on this machine)" >&2
	if [ "$pm" = npm ]; then
		cp "$fixture/ws/package-lock.json" "$tmp/"
		if ! (cd "$tmp" && npm ci --prefer-offline --no-audit --no-fund \
			--cache "$cache/npm-cache" > "$log" 2>&1); then
			tail -n 20 "$log" >&2
			rm -rf "$tmp"
			die "npm ci failed (is the npm registry reachable? cache: $cache)"
		fi
	else
		local pn=$cache/pnpm-$PNPM_VERSION
		if [ ! -x "$pn/node_modules/.bin/pnpm" ]; then
			rm -rf "$pn"
			mkdir -p "$pn"
			if ! npm install --prefix "$pn" --no-save --no-audit --no-fund \
				--cache "$cache/npm-cache" "pnpm@$PNPM_VERSION" > "$log" 2>&1; then
				tail -n 20 "$log" >&2
				rm -rf "$tmp" "$pn"
				die "npm install pnpm@$PNPM_VERSION failed (is the npm registry reachable?)"
			fi
		fi
		cp "$pnpmdir/pnpm-lock.yaml" "$pnpmdir/pnpm-workspace.yaml" "$tmp/"
		if ! (cd "$tmp" && "$pn/node_modules/.bin/pnpm" install --frozen-lockfile --prefer-offline \
			--store-dir "$cache/pnpm-store" --reporter=append-only > "$log" 2>&1); then
			tail -n 20 "$log" >&2
			rm -rf "$tmp"
			die "pnpm install failed (is the npm registry reachable? cache: $cache)"
		fi
	fi
	# pnpm's .bin shims name the install directory: materialise rewrites it
	echo "$tmp" > "$tmp/.installed-at"
	rm -f "$log"
	chmod -R a+rX "$tmp"
	mv "$tmp" "$entry"
	echo "realtools-install: installed in $((SECONDS - t0)) s" >&2
}

if [ ! -d "$entry" ]; then
	mkdir -p "$cache"
	exec 9> "$cache/.lock-$layout"
	flock 9
	if [ ! -d "$entry" ]; then
		install_entry
	fi
	flock -u 9
	exec 9>&-
fi

# no DEST: the entry's path, for a caller that hands it to another user
if [ -z "$dest" ]; then
	echo "$entry"
	exit 0
fi

# DEST: the fixture's sources, then every node_modules of the entry
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
(cd "$fixture/ws" && tar --exclude=node_modules --exclude=dist -cf - .) | (cd "$dest" && tar -xf -)
if [ "$layout" = pnpm ]; then
	rm -f "$dest/package-lock.json"
	cp "$pnpmdir/pnpm-lock.yaml" "$pnpmdir/pnpm-workspace.yaml" "$dest/"
fi
link=-l
if ! ln "$entry/package.json" "$dest/.vx-link-probe" 2> /dev/null; then
	link=
fi
rm -f "$dest/.vx-link-probe"
while read -r nm; do
	mkdir -p "$dest/$(dirname "$nm")"
	cp -a $link "$entry/$nm" "$dest/$nm"
done < <(cd "$entry" && find . -name node_modules -prune -type d | LC_ALL=C sort)
if [ "$pm" = pnpm ]; then
	old=$(cat "$entry/.installed-at")
	while read -r f; do
		# sed -i writes a new file: a hard-linked shim in the entry stays as it is
		sed -i "s|$old|$dest|g" "$f"
	done < <(grep -rlF "$old" "$dest/node_modules/.bin" "$dest"/packages/*/node_modules/.bin 2> /dev/null || true)
fi
