#!/bin/sh
# scenarios.sh RCUSIM SRCDIR [runs|story] - every scenario in scenarios/
# runs to a complete run with a short end time (2 s; 0.5 s for the
# heaviest) ("runs"), and the seed's story holds over simulated minutes
# ("story"); both when no part is named. CTest runs the two parts as two
# tests (scenarios, scenarios_story), side by side.
. "$(dirname "$0")/lib.sh"
part=${1:-all}
case $part in
all | runs | story) ;;
*) echo "scenarios.sh: unknown part '$part' (runs or story)" >&2; exit 2 ;;
esac
if [ "$part" != story ]; then
for f in "$SRC"/scenarios/*.ini; do
	# A fault must begin before the end: move it into the 2 s.
	fault=
	grep -q '^\[fault\]' "$f" && fault="--set fault.start=1s --set fault.duration=500ms"
	# The 4096-CPU x86 loads whose every CPU works from the start, and the
	# 256-CPU open/close loop (an open and a close every few us on every
	# CPU: 67 s of the ASan build for 2 s): half a second. Sanitized
	# (RCUSIM_SANITIZED, set by CMake), every 256- and 4096-CPU machine
	# runs half a second (ASan and UBSan slow them 5-8x: 3 of the 9
	# minutes of CI's sanitized tests were this loop); the Release build
	# runs the others the 2 s.
	dur=2s
	case "$f" in
	*/x86-4096-callrcu-*|*/x86-4096-nohzfull-*|*/x86-4096-syncrcu-*|*/x86-256-openclose-*) dur=0.5s ;;
	*/x86-256-*|*/x86-4096-*|*/sgi-4096-*) if [ -n "${RCUSIM_SANITIZED:-}" ]; then dur=0.5s; fi ;;
	esac
	# shellcheck disable=SC2086 # the overrides are words
	expect_exit 0 "$RCUSIM" run "$f" --db s.db --duration $dur --quiet $fault
done
n=$(q s.db "SELECT count(*) FROM run WHERE status = 'complete'")
[ "$n" -eq "$pass" ] && ok || bad "$n complete runs for $pass scenarios"
fi
[ "$part" = runs ] && finish
# The seed's two sides for a simulated minute: mainline 2.6.15 stays below
# file-max; the threaded-softirq what-if passes it within the minute, with
# no grace period finished (every CPU's ksoftirqd waits an epoch of 25.6 s).
v() { q story.db "SELECT value FROM scalar WHERE run_id = $1 AND name = '$2'"; }
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/niagara-make-2.6.15.ini" --db story.db --duration 60s --quiet
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/niagara-make-2.6.15-threaded-softirqs.ini" --db story.db \
	--duration 60s --quiet
if [ "$(v 1 vfs.open_failures)" = 0.0 ] && [ "$(v 1 vfs.file_max_reached_ns)" = "" ] &&
	awk -v a="$(v 2 vfs.file_max_reached_ns)" -v g="$(v 2 gp.completed)" \
		'BEGIN { exit !(a > 20e9 && a < 60e9 && g == 0) }'; then
	ok
else
	bad "story: mainline failures $(v 1 vfs.open_failures), what-if file-max at $(v 2 vfs.file_max_reached_ns) ns, $(v 2 gp.completed) grace periods"
fi
# The injected stall, moved to minute 1 and run for 100 s: with CPU 5's
# interrupts off for 30 s no grace period ends, so under 2.6.15's slot
# counting nr_files reaches file-max during the stall, and opens are
# refused; under 2.6.16's counting of live files it does not.
for s in 2.6.15 2.6.16; do
	expect_exit 0 "$RCUSIM" run "$SRC/scenarios/niagara-make-$s-stall.ini" --db stall.db --duration 100s \
		--set fault.start=60s --quiet
done
w() { q stall.db "SELECT value FROM scalar WHERE run_id = $1 AND name = '$2'"; }
if awk -v a="$(w 1 vfs.file_max_reached_ns)" -v r="$(w 1 vfs.open_failures)" \
	'BEGIN { exit !(a > 60e9 && a < 90e9 && r > 0) }' &&
	[ "$(w 2 vfs.open_failures)" = 0.0 ] && [ "$(w 2 vfs.file_max_reached_ns)" = "" ]; then
	ok
else
	bad "stall: 2.6.15 file-max at $(w 1 vfs.file_max_reached_ns) ns with $(w 1 vfs.open_failures) refusals, 2.6.16 $(w 2 vfs.open_failures) refusals"
fi
finish
