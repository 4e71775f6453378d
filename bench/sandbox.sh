#!/usr/bin/env bash
# bench/sandbox.sh: vx-sandbox against bwrap with equivalent arguments, side
# by side in ONE hyperfine run, with srt given equivalent settings:
# /bin/true with a typical grant set (read '.', write 'dist/', the credential
# stores), then with 50 extra read grants. Run as root, the same run also has
# the rootless rows, as an unprivileged user (USER_, default vxtest) running
# a world-readable copy of vx-sandbox. Prints hyperfine's table, then the
# ratios issue 4 asks for.
#   bench/sandbox.sh [RUNS]      needs hyperfine and bwrap (benchmark only),
#                                python3 for the ratios; srt too, from SRT=path
#                                or PATH (optional)
#   OLD=path/to/vx-sandbox       adds rows for that binary (before/after in the
#                                same run)
#
# Rootless rows switch user with setpriv (one exec, the environment kept, so
# both sides see the same HOME). The switch is not the sandbox's cost, so the
# rootless/root ratio compares each side less its own floor: root
# `vx-sandbox ... -- /bin/true` minus `/bin/true`, rootless `setpriv ...
# vx-sandbox ... -- /bin/true` minus `setpriv ... /bin/true`; both
# differences are then "exec vx-sandbox and sandbox a /bin/true" under that
# uid. Compared rows are adjacent (hyperfine runs rows one after another, and
# a shared machine's load drifts), srt's minute-long rows last. CPU time is
# the steadier figure on a loaded machine: user+system from hyperfine next to
# the wall-clock medians, and perf stat's task-clock for the cost of a grant.
set -eu
runs=${1:-40}
here=$(cd "$(dirname "$0")/.." && pwd)
command -v hyperfine > /dev/null || { echo "bench/sandbox.sh: needs hyperfine" >&2; exit 2; }
command -v bwrap > /dev/null || { echo "bench/sandbox.sh: needs bwrap (apt-get install bubblewrap)" >&2; exit 2; }
command -v python3 > /dev/null || { echo "bench/sandbox.sh: needs python3 for the ratios" >&2; exit 2; }

# a workspace outside /tmp (both sandboxes give the task a private /tmp)
dir=$(mktemp -d /var/tmp/vx-bench-sandbox.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
cp "$here/bin/vx-sandbox" "$dir/"
if [ -n "${OLD:-}" ]; then
	cp "$OLD" "$dir/vx-sandbox.old"
fi
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
grants="--root $ws --project $proj --read . --write dist/"
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

# rootless in the same run: root runs the rootless rows as USER_
user=${USER_:-vxtest}
as_user=""
if [ "$(id -u)" = 0 ]; then
	id "$user" > /dev/null 2>&1 || useradd -M "$user"
	as_user="setpriv --reuid=$user --regid=$user --clear-groups"
fi

# the rows, the names the ratios below look up
cmds=(-n "/bin/true (root floor)" "/bin/true")
[ -n "$as_user" ] && cmds+=(-n "setpriv /bin/true (rootless floor)" "$as_user /bin/true")
for set in typical +50; do
	if [ "$set" = typical ]; then ev="" eb=""; else ev=$extra_vx eb=$extra_bw; fi
	bins=(new)
	[ -n "${OLD:-}" ] && bins+=(old)
	for b in "${bins[@]}"; do
		if [ "$b" = new ]; then exe=$dir/vx-sandbox name=vx-sandbox; else exe=$dir/vx-sandbox.old name="vx-sandbox OLD"; fi
		cmds+=(-n "$name root, $set" "$exe $grants $ev -- /bin/true")
		[ -n "$as_user" ] && cmds+=(-n "$name rootless, $set" "$as_user $exe $grants $ev -- /bin/true")
	done
	cmds+=(-n "bwrap root, $set" "$bw $eb /bin/true")
	[ -n "$as_user" ] && cmds+=(-n "bwrap rootless, $set" "$as_user $bw $eb /bin/true")
done
cmds+=(-n "unshare floor" "unshare -Urmnpif /bin/true")
if [ -n "$srt" ]; then
	cmds+=(-n "srt, typical" "$srt -s $dir/srt.json -c /bin/true"
		-n "srt, +50" "$srt -s $dir/srt50.json -c /bin/true")
else
	echo "bench/sandbox.sh: no srt (npm i @anthropic-ai/sandbox-runtime; SRT=path): its rows are left out" >&2
fi

echo "load before: $(uptime)"
cd "$proj"
HOME=$home hyperfine -N --warmup 5 --runs "$runs" --export-markdown "$dir/sandbox.md" \
	--export-json "$dir/sandbox.json" "${cmds[@]}" > /dev/null
echo "load after: $(uptime)"
cat "$dir/sandbox.md"
python3 - "$dir/sandbox.json" << 'EOF'
import json, statistics, sys

rows = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}

def wall(n):
    return statistics.median(rows[n]["times"]) * 1e3 if n in rows else None

def cpu(n):
    return (rows[n]["user"] + rows[n]["system"]) * 1e3 if n in rows else None

def fmt(x, unit=" ms"):
    return "n/a" if x is None else f"{x:.3f}{unit}" if abs(x) < 1 else f"{x:.1f}{unit}"

def ratio(a, b):
    return "n/a" if a is None or b is None or b <= 0 else f"{a / b:.2f}x"

print("\nMedians of wall time. CPU = mean user+system from hyperfine, complete for\n"
      "vx-sandbox (it reaps its sandbox); not shown for bwrap, whose monitor exits\n"
      "without reaping its sandbox's pid 1 (killed by --die-with-parent, torn down\n"
      "after bwrap returns: outside its rows' wall time too).")
for name in ("vx-sandbox", "vx-sandbox OLD"):
    if f"{name} root, typical" not in rows:
        continue
    print(f"\n{name}:")
    for who in ("root", "rootless"):
        if f"{name} {who}, typical" not in rows:
            continue
        for s in ("typical", "+50"):
            v, b = f"{name} {who}, {s}", f"bwrap {who}, {s}"
            print(f"  no slower than bwrap (<= 1x), {who} {s}: {ratio(wall(v), wall(b))} "
                  f"({fmt(wall(v))} vs {fmt(wall(b))})")
        t, f = f"{name} {who}, typical", f"{name} {who}, +50"
        print(f"  per extra read grant (< 0.05 ms), {who}: {fmt((wall(f) - wall(t)) / 50)} wall, "
              f"{fmt((cpu(f) - cpu(t)) / 50)} CPU")
    for s in ("typical", "+50"):
        v = wall(f"{name} root, {s}")
        print(f"  srt / vx-sandbox root (>= 50x), {s}: {ratio(wall('srt, ' + s), v)}")
    if f"{name} rootless, typical" in rows:
        for s in ("typical", "+50"):
            r = wall(f"{name} root, {s}") - wall("/bin/true (root floor)")
            u = wall(f"{name} rootless, {s}") - wall("setpriv /bin/true (rootless floor)")
            rc = cpu(f"{name} root, {s}") - cpu("/bin/true (root floor)")
            uc = cpu(f"{name} rootless, {s}") - cpu("setpriv /bin/true (rootless floor)")
            print(f"  rootless / root, each less its floor (<= 1.5x), {s}: {ratio(u, r)} wall "
                  f"({fmt(u)} vs {fmt(r)}), {ratio(uc, rc)} CPU ({fmt(uc)} vs {fmt(rc)})")
if "bwrap rootless, typical" in rows:
    for s in ("typical", "+50"):
        r = wall(f"bwrap root, {s}") - wall("/bin/true (root floor)")
        u = wall(f"bwrap rootless, {s}") - wall("setpriv /bin/true (rootless floor)")
        print(f"bwrap's own rootless / root, each less its floor, {s}: {ratio(u, r)}")
print(f"bwrap per extra read grant: {fmt((wall('bwrap root, +50') - wall('bwrap root, typical')) / 50)} wall")
EOF

# CPU per grant, steadier than the rows above: perf stat's task-clock (every
# process of the run, reaped or not) for 0 and 50 extra grants, interleaved
# round by round so a drifting load weighs on both alike (OLD too)
if command -v perf > /dev/null && perf stat -x, -e task-clock true > /dev/null 2>&1; then
	rounds=${ROUNDS:-10}
	cpu_ms() { # CMD...: mean task-clock of 10 runs, in ms
		HOME=$home perf stat -x, -e task-clock -r 10 "$@" 2>&1 > /dev/null | awk -F, '/task-clock/ { print $1 }'
	}
	exes=("$dir/vx-sandbox")
	[ -n "${OLD:-}" ] && exes+=("$dir/vx-sandbox.old")
	for _ in $(seq 1 "$rounds"); do
		for exe in "${exes[@]}"; do
			# shellcheck disable=SC2086 # the grants are words
			echo "$exe $(cpu_ms $exe $grants -- /bin/true) $(cpu_ms $exe $grants $extra_vx -- /bin/true)"
		done
	done > "$dir/cpu.txt"
	echo
	echo "CPU per extra read grant, root (perf stat task-clock, $rounds rounds x 10 runs, medians):"
	python3 - "$dir/cpu.txt" << 'EOF'
import statistics, sys
by = {}
for line in open(sys.argv[1]):
    exe, t0, t50 = line.split()
    by.setdefault(exe, []).append((float(t0), float(t50)))
for exe, v in by.items():
    name = "vx-sandbox OLD" if exe.endswith(".old") else "vx-sandbox"
    t0 = statistics.median(a for a, _ in v)
    t50 = statistics.median(b for _, b in v)
    per = statistics.median((b - a) / 50 for a, b in v)
    print(f"  {name}: {t0:.2f} ms with the typical grants, {t50:.2f} ms with 50 more: "
          f"{per:.4f} ms a grant (< 0.05 ms)")
EOF
else
	echo "bench/sandbox.sh: no usable perf: the CPU per grant from perf stat is left out" >&2
fi
