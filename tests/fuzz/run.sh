#!/bin/sh
# run.sh BUILD SECONDS NAME...: run each libFuzzer harness BUILD/fuzz_NAME:
# first its kept regressions (tests/fuzz/regressions/NAME, once each), then
# fuzzing for SECONDS from its seed corpus (tests/fuzz/corpus/NAME; new
# inputs go to BUILD/corpus/NAME, crashes to BUILD/crash-NAME-*). Prints
# one line per harness with its executions, and appends "passed failed" to
# build/counts as tests/run-unit.sh does.
set -u
build=$1 secs=$2
shift 2
here=$(dirname "$0")
passed=0 failed=0
for name in "$@"; do
	bin=$build/fuzz_$name
	log=$build/$name.log
	mkdir -p "$build/corpus/$name"
	ok=1
	regs=$here/regressions/$name
	if [ -d "$regs" ] && [ -n "$(ls -A "$regs")" ]; then
		if ! "$bin" "$regs"/* > "$log" 2>&1; then
			echo "fuzz $name: a kept regression fails again (see $log)" >&2
			ok=0
		fi
	fi
	if [ "$ok" -eq 1 ]; then
		start=$(date +%s)
		if "$bin" -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
			-close_fd_mask=3 -artifact_prefix="$build/crash-$name-" \
			"$build/corpus/$name" "$here/corpus/$name" > "$log" 2>&1; then
			execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
			echo "fuzz $name: ${execs:-?} execs in $(( $(date +%s) - start )) s, crashes: 0"
		else
			echo "fuzz $name: FAILED; the input is in $build/crash-$name-*, the log in $log" >&2
			ok=0
		fi
	fi
	if [ "$ok" -eq 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
mkdir -p build
echo "$passed $failed" >> build/counts
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
