#!/bin/sh
# judge-diff.sh OLD-BIN NEW-BIN CORPUS: run two vx-report builds over a
# corpus of recorded tasks and say which judge differently (issue 37 item
# 5: a change to report/rules.c must keep the records byte-identical).
#
# CORPUS holds one directory per task: request (the graph and task
# records), trace (vx-sandbox --trace; absent: the task ran untraced), net
# (vx-proxy's records; optional) and exit (the task's exit status, then
# the HOME it ran with, one a line). Both builds see the same files and
# host, so a path the trace names that is gone since is judged as gone by
# both. Exit status: 0 every task the same, 1 some differ (named), 2 usage.
set -u
if [ $# -ne 3 ]; then
	echo "usage: judge-diff.sh OLD-BIN NEW-BIN CORPUS" >&2
	exit 2
fi
old=$1 new=$2 corpus=$3
n=0 diff=0
for d in "$corpus"/*/; do
	[ -f "$d/exit" ] || continue
	code=$(sed -n 1p "$d/exit")
	home=$(sed -n 2p "$d/exit")
	set -- --exit "$code"
	[ -s "$d/request" ] && set -- "$@" --request "$d/request"
	if [ -f "$d/trace" ]; then set -- "$@" --trace "$d/trace"; else set -- "$@" --no-trace; fi
	[ -f "$d/net" ] && set -- "$@" --network "$d/net"
	a=$(HOME=$home "$old/vx-report" "$@" 2>&1; echo "exit $?")
	b=$(HOME=$home "$new/vx-report" "$@" 2>&1; echo "exit $?")
	n=$((n + 1))
	if [ "$a" != "$b" ]; then
		diff=$((diff + 1))
		echo "judge-diff: $d: the two builds differ" >&2
	fi
done
echo "judge-diff: $n tasks, $diff differ"
[ "$diff" -eq 0 ]
