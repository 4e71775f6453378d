#!/bin/sh
# install-deps.sh: install the Debian packages vx needs to build and test.
# Does nothing when every package is already installed; needs root (or sudo)
# otherwise. Used by README's two commands and by .ci/run.
set -eu

# clang and libclang-rt-14-dev (its libFuzzer): the harnesses of tests/fuzz,
# which make check runs briefly. graphviz and chromium: tests/vx-graph-view.bats
# reads vx graph --dot back with dot and opens the --html page headless
# (chromium: 25 packages, 122 MB to download, 368 MiB installed, 42 s here)
PKGS="build-essential pkg-config git ca-certificates
libcjson-dev libxxhash-dev libseccomp-dev libcurl4-openssl-dev libssl-dev nginx-light
bats bats-assert bats-support bats-file shellcheck strace
python3 iproute2 procps util-linux passwd curl
clang libclang-rt-14-dev
graphviz chromium"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "install-deps: missing packages:$missing; run this script as root" >&2
		exit 1
	fi
else
	SUDO=
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
