#!/usr/bin/env bash
# bench/sandbox.sh: vx-sandbox against bwrap with equivalent arguments, side
# by side in ONE hyperfine run, with bwrap and srt given equivalent
# arguments: /bin/true with a typical grant set (read '.', write 'dist/', the
# credential stores), then with 50 extra read grants. Run as root, the same
# run also has the rootless rows, as an unprivileged user (USER_, default
# vxtest) running a world-readable copy of vx-sandbox.
#   bench/sandbox.sh [RUNS]      needs hyperfine and bwrap (benchmark only);
#                                srt too, from SRT=path or PATH (optional)
set -eu
runs=${1:-40}
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

# srt (npm @anthropic-ai/sandbox-runtime): the same boundary in its settings
# (denyRead the workspace and the stores, allowRead the project and the extra
# grants, allowWrite dist); SRT names its CLI, else it is looked up on PATH
srt=${SRT:-$(command -v srt || true)}
srt_settings() { # FILE EXTRA...
	local f=$1 reads="\"$proj\""
	shift
	for r in "$@"; do reads="$reads,\"$r\""; done
	printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["%s","%s","%s","%s","%s"],"allowRead":[%s],"allowWrite":["%s"],"denyWrite":[]}}\n' \
		"$ws" "$home/.ssh" "$home/.aws" "$home/.config/gh" "$home/.npmrc" "$reads" "$proj/dist" > "$f"
}
libs=()
for i in $(seq 1 50); do libs+=("$ws/packages/lib$i"); done
srt_settings "$dir/srt.json"
srt_settings "$dir/srt50.json" "${libs[@]}"
chmod a+r "$dir"/srt*.json

# rootless in the same run: setpriv switches to the user with one exec (its
# own cost is the "setpriv floor" row); root runs the rootless rows as USER_
user=${USER_:-vxtest}
as_user=""
if [ "$(id -u)" = 0 ]; then
	id "$user" > /dev/null 2>&1 || useradd -M "$user"
	as_user="setpriv --reuid=$user --regid=$user --clear-groups --reset-env"
fi

cmds=(-n "vx-sandbox root, typical" "$vx -- /bin/true"
	-n "bwrap root, typical" "$bw /bin/true")
if [ -n "$as_user" ]; then
	cmds+=(-n "vx-sandbox rootless, typical" "$as_user env HOME=$home $vx -- /bin/true"
		-n "bwrap rootless, typical" "$as_user $bw /bin/true")
fi
[ -n "$srt" ] && cmds+=(-n "srt, typical" "$srt -s $dir/srt.json -c /bin/true")
cmds+=(-n "vx-sandbox root, +50 reads" "$vx $extra_vx -- /bin/true"
	-n "bwrap root, +50 reads" "$bw $extra_bw /bin/true")
if [ -n "$as_user" ]; then
	cmds+=(-n "vx-sandbox rootless, +50 reads" "$as_user env HOME=$home $vx $extra_vx -- /bin/true"
		-n "bwrap rootless, +50 reads" "$as_user $bw $extra_bw /bin/true"
		-n "setpriv floor" "$as_user /bin/true")
fi
[ -n "$srt" ] && cmds+=(-n "srt, +50 reads" "$srt -s $dir/srt50.json -c /bin/true")
cmds+=(-n "unshare floor" "unshare -Urmnpif /bin/true")
[ -n "$srt" ] || echo "bench/sandbox.sh: no srt (npm i @anthropic-ai/sandbox-runtime; SRT=path): its rows are left out" >&2

cd "$proj"
HOME=$home hyperfine -N --warmup 5 --runs "$runs" --export-markdown "$dir/sandbox.md" \
	"${cmds[@]}" > /dev/null
cat "$dir/sandbox.md"
