#!/bin/sh
# The whole test suite: install what the tests need (scripts/setup-debian.sh
# test), then build and run every test
# (Check units, CLI, scenarios, benchmark smoke) in a -Werror Release build
# and again under AddressSanitizer + UndefinedBehaviorSanitizer, and fuzz
# the scenario reader, the command lines and the trace readers (import,
# the replay workload's loader) for a bounded time each.
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
JOBS=$(nproc)
"$HERE/scripts/setup-debian.sh" test

echo "== Release build, -Werror"
cmake -S "$HERE" -B "$HERE/build" -DCMAKE_BUILD_TYPE=Release -DRCUSIM_WERROR=ON -DBUILD_TESTING=ON >/dev/null
cmake --build "$HERE/build" -j "$JOBS"
(cd "$HERE/build" && ctest --output-on-failure -j "$JOBS")

echo "== ASan + UBSan build, with the invariant checks (RCUSIM_CHECKS) and the allocation-failure hook"
cmake -S "$HERE" -B "$HERE/build-asan" -DCMAKE_BUILD_TYPE=Debug -DRCUSIM_SANITIZE=ON -DRCUSIM_CHECKS=ON \
	-DRCUSIM_FAILALLOC=ON -DRCUSIM_WERROR=ON -DBUILD_TESTING=ON >/dev/null
cmake --build "$HERE/build-asan" -j "$JOBS"
(cd "$HERE/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j "$JOBS")

fuzzers="ini cli trace"
echo "== fuzzing the scenario reader, every command line and the trace readers, ${FUZZ_SECONDS}s each"
cmake -S "$HERE" -B "$HERE/build-fuzz" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DRCUSIM_FUZZ=ON -DBUILD_TESTING=ON >/dev/null
cmake --build "$HERE/build-fuzz" -j "$JOBS" --target fuzz_ini fuzz_cli fuzz_trace
corpus=$(mktemp -d)
trap 'rm -rf "$corpus" /tmp/rcusim-fuzz-cli.* /tmp/rcusim-fuzz-trace.*' EXIT
# The targets side by side (each one process), each for FUZZ_SECONDS.
for f in $fuzzers; do
	mkdir -p "$corpus/$f"
	seeds=$HERE/tests/fuzz-seeds
	[ $f = ini ] || seeds=$HERE/tests/fuzz-$f-seeds
	("$HERE/build-fuzz/tests/fuzz_$f" -max_total_time="$FUZZ_SECONDS" -print_final_stats=0 -close_fd_mask=1 \
		-artifact_prefix="$corpus/$f-" "$corpus/$f" "$seeds" 2>"$corpus/$f.log"; echo $? >"$corpus/$f.rc") &
done
wait
nfuzz=0
for f in $fuzzers; do
	if [ "$(cat "$corpus/$f.rc")" != 0 ]; then
		# The sanitizer's report (its stack first), and the input as base64
		# (base64 -d > crash; build-fuzz/tests/fuzz_$f crash reproduces it).
		echo "fuzz_$f failed:"
		sed -n '/ERROR: /,/SUMMARY/p' "$corpus/$f.log" | head -60
		tail -5 "$corpus/$f.log"
		for a in "$corpus/$f"-*; do
			[ -f "$a" ] && echo "input $(basename "$a"), base64:" && head -c 4096 "$a" | base64 -w 0 && echo
		done
		exit 1
	fi
	echo "fuzz_$f: $(tail -1 "$corpus/$f.log")"
	nfuzz=$((nfuzz + 1))
done
# Stages that passed: the two builds' tests, and each fuzz target.
echo "all: $((2 + nfuzz)) passed, 0 failed (the Release and the ASan + UBSan tests, $nfuzz fuzz targets: $fuzzers)"
