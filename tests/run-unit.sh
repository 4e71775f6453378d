#!/bin/sh
# run-unit.sh TEST...: run each C unit test binary; each prints its own
# "N passed, N failed" line. Appends the totals to build/counts.
set -u
passed=0 failed=0
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | grep -E '^[a-z_]+: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	p=$(printf '%s' "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
	f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed$/\1/')
	if [ -z "$line" ] || [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
		echo "$t: exited $rc without a summary" >&2
		f=$(( ${f:-0} + 1 ))
		p=${p:-0}
	fi
	passed=$((passed + p)) failed=$((failed + f))
done
mkdir -p build
echo "$passed $failed" >> build/counts
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
