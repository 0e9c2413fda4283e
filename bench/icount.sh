#!/bin/sh
# icount.sh [--smoke] BUILD_DIR [BASE_BUILD_DIR] - instruction counts of fixed
# workloads under valgrind --tool=callgrind. Unlike times they do not drift
# with machine noise, so two builds (before and after a change) compare
# exactly; they do not see cache misses, so they complement the timings of
# targets.sh and phold.sh rather than replace them.
#
# Each figure is a marginal cost: the instructions of a long run minus those
# of a short one, divided by the events (PHOLD) or simulated milliseconds
# (rcusim) between them, so that start-up (allocating LPs, starting 8192 or
# 1,048,576 jobs, opening the database) is not counted.
# --smoke: short runs, without the 4096-CPU row, to check that the script
# works (CI).
set -eu
SMOKE=
if [ "${1:-}" = --smoke ]; then
	SMOKE=1
	shift
fi
B=${1:?usage: icount.sh [--smoke] BUILD_DIR [BASE_BUILD_DIR]}
BASE=${2:-}
S=$(cd "$(dirname "$0")/.." && pwd)/scenarios
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
command -v valgrind >/dev/null || { echo "icount.sh: valgrind not found (scripts/setup-debian.sh installs it)" >&2; exit 2; }

# ir CMD... -> instructions executed by CMD, and its stdout in $T/out
ir() {
	valgrind --tool=callgrind --callgrind-out-file="$T/cg" "$@" >"$T/out" 2>"$T/err" ||
		{ cat "$T/err" >&2; exit 1; }
	sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$T/err"
}

# phold BUILD PROG END_SHORT END_LONG -> instructions per event
phold() {
	a=$(ir "$1/$2" --nlp=4096 --start-events=16 --end="$3")
	ea=$(awk '/^events:/ {print $2}' "$T/out")
	b=$(ir "$1/$2" --nlp=4096 --start-events=16 --end="$4")
	eb=$(awk '/^events:/ {print $2}' "$T/out")
	echo "($b - $a) / ($eb - $ea)" | bc -l
}

# sim BUILD SCENARIO MS_SHORT MS_LONG -> instructions per simulated ms
sim() {
	a=$(ir "$1/rcusim" run "$S/$2" --duration "$3ms" --db "$T/a.db" --quiet)
	b=$(ir "$1/rcusim" run "$S/$2" --duration "$4ms" --db "$T/b.db" --quiet)
	echo "($b - $a) / ($4 - $3)" | bc -l
}

if [ -n "$SMOKE" ]; then
	P="0.2 0.4"; M="200 400"; G=
else
	P="2 4"; M="10000 20000"; G="200 400"
fi
row() { # row LABEL FUNCTION ARGS...: the figure for BUILD (and BASE)
	label=$1
	shift
	f=$1
	shift
	x=$($f "$B" "$@")
	if [ -n "$BASE" ]; then
		y=$($f "$BASE" "$@")
		printf '%-44s %14.1f %14.1f %8.4f\n' "$label" "$x" "$y" "$(echo "$x / $y" | bc -l)"
	else
		printf '%-44s %14.1f\n' "$label" "$x"
	fi
}
if [ -n "$BASE" ]; then
	printf '%-44s %14s %14s %8s\n' "instructions" "$B" "$BASE" "ratio"
else
	printf '%-44s %14s\n' "instructions" "$B"
fi
# shellcheck disable=SC2086 # the pairs are split on purpose
row "PHOLD 4096 x 16, per event" phold phold $P
# shellcheck disable=SC2086
row "textbook 4-ary heap, same events, per event" phold phold_textbook $P
# shellcheck disable=SC2086
row "seed box (niagara-make), per simulated ms" sim niagara-make.ini $M
# Not in smoke mode: starting its 1,048,576 jobs alone takes valgrind 10 s.
# shellcheck disable=SC2086
[ -z "$G" ] || row "4096 CPUs (sgi-4096-make), per simulated ms" sim sgi-4096-make.ini $G
