#!/usr/bin/env bash
# run-bats.sh [SUITE...]: run the bats suites (default: tests/*.bats) against
# the programs in $VX_BIN_DIR, print "bats: N passed, N failed" and append the
# totals to build/counts.
set -u
cd "$(dirname "$0")/.." || exit 1
if [ $# -eq 0 ]; then
	set -- tests/*.bats
fi
mkdir -p build
log=$(mktemp)
bats --tap "$@" | tee "$log"
rc=${PIPESTATUS[0]}
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^not ok ' "$log")
rm -f "$log"
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	failed=1
fi
echo "$passed $failed" >> build/counts
echo "bats: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
