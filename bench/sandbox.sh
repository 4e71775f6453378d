#!/usr/bin/env bash
# bench/sandbox.sh: vx-sandbox against bwrap with equivalent arguments, side
# by side in one hyperfine run each: /bin/true with a typical grant set
# (read '.', write 'dist/', the credential stores), then with 50 extra read
# grants. Run as root it also runs the same as an unprivileged user (USER_,
# default vxtest), from a world-readable copy of vx-sandbox.
#   bench/sandbox.sh [RUNS]      needs hyperfine and bwrap (benchmark only)
set -eu
runs=${1:-300}
here=$(cd "$(dirname "$0")/.." && pwd)
command -v hyperfine > /dev/null || { echo "bench/sandbox.sh: needs hyperfine" >&2; exit 2; }
command -v bwrap > /dev/null || { echo "bench/sandbox.sh: needs bwrap (apt-get install bubblewrap)" >&2; exit 2; }

# a workspace outside /tmp (both sandboxes give the task a private /tmp)
dir=$(mktemp -d /var/tmp/vx-bench-sandbox.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
cp "$here/bin/vx-sandbox" "$dir/"
ws=$dir/ws home=$dir/home
proj=$ws/packages/app
mkdir -p "$proj/src" "$home/.ssh" "$home/.aws" "$home/.config/gh"
echo '{"workspaces":["packages/*"]}' > "$ws/package.json"
echo 'token' > "$home/.npmrc"
for i in $(seq 1 50); do mkdir -p "$ws/packages/lib$i"; done

# the same boundary spelled for bwrap: host / read-only, the workspace masked,
# the grants bound back, the stores masked, private /tmp, /proc, /dev
bw="bwrap --unshare-all --die-with-parent --new-session --ro-bind / / --tmpfs /tmp"
bw="$bw --proc /proc --dev /dev --tmpfs $ws --ro-bind $proj $proj"
bw="$bw --bind $proj/dist $proj/dist --tmpfs $home/.ssh --tmpfs $home/.aws"
bw="$bw --tmpfs $home/.config/gh --ro-bind /dev/null $home/.npmrc --chdir $proj"
vx="$dir/vx-sandbox --root $ws --project $proj --read . --write dist/"
extra_vx="" extra_bw=""
for i in $(seq 1 50); do
	extra_vx="$extra_vx --read ../lib$i"
	extra_bw="$extra_bw --ro-bind $ws/packages/lib$i $ws/packages/lib$i"
done
mkdir -p "$proj/dist"
chmod -R a+rwX "$dir"

bench() {
	HOME=$home hyperfine -N --warmup 20 --runs "$runs" --export-markdown "$dir/$1.md" \
		-n "vx-sandbox, typical" "$vx -- /bin/true" \
		-n "bwrap, typical" "$bw /bin/true" \
		-n "vx-sandbox, +50 reads" "$vx $extra_vx -- /bin/true" \
		-n "bwrap, +50 reads" "$bw $extra_bw /bin/true" \
		-n "unshare floor" "unshare -Urmnpif /bin/true" > /dev/null
	echo "## $1"
	cat "$dir/$1.md"
}

bench "as $(id -un)"
if [ "$(id -u)" = 0 ]; then
	user=${USER_:-vxtest}
	id "$user" > /dev/null 2>&1 || useradd -M "$user"
	export -f bench
	export home runs dir vx bw extra_vx extra_bw
	# shellcheck disable=SC2016 # expanded by the user's own shell
	runuser -u "$user" -- bash -c 'bench "rootless ($(id -un))"'
fi
