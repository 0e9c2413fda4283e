#!/bin/sh
# background.sh [--smoke] [--runs N] [--duration TIME] BUILD_DIR [SCENARIO.ini...] - what the
# box's background activity (machine.background: idle timer ticks and other
# tasks' wake-ups) costs in wall time, per 6.x scenario that runs with it:
# each scenario run with it (as shipped) and with --set
# machine.background=no, A and B in turn, the pair of median ratio of N
# (default 3), and the events of each. The budget (issue 49): no scenario
# more than 1.5x slower with it on; a row over it is marked "over".
# SCENARIO.ini: names in scenarios/ (default: every x86-*, phone-* and
# dev-vm-* one). --smoke: two small scenarios, 100 ms, one pair (CI checks
# the script runs).
set -eu
SMOKE=
LIST=
RUNS=3
DUR=10s
B=
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) SMOKE=1 ;;
	--runs)
		[ $# -ge 2 ] || { echo "background.sh: --runs needs a count" >&2; exit 2; }
		RUNS=$2
		shift
		;;
	--duration)
		[ $# -ge 2 ] || { echo "background.sh: --duration needs a time" >&2; exit 2; }
		DUR=$2
		shift
		;;
	-*) echo "background.sh: unknown option '$1' (usage: background.sh [--smoke] [--runs N] [--duration TIME] BUILD_DIR [SCENARIO.ini...])" >&2; exit 2 ;;
	*)
		if [ -z "$B" ]; then B=$1; else LIST="${LIST:-} $1"; fi
		;;
	esac
	shift
done
[ -n "$B" ] || { echo "usage: background.sh [--smoke] [--runs N] [--duration TIME] BUILD_DIR [SCENARIO.ini...]" >&2; exit 2; }
case $RUNS in
'' | *[!0-9]* | 0*) echo "background.sh: --runs takes a count of at least 1, got '$RUNS'" >&2; exit 2 ;;
esac
R=$B/rcusim
S=$(cd "$(dirname "$0")/.." && pwd)/scenarios
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

if [ -n "$SMOKE" ]; then
	DUR=100ms
	RUNS=1
	LIST="dev-vm-churn.ini phone-8-app.ini"
elif [ -z "$LIST" ]; then
	LIST=$(cd "$S" && ls x86-*.ini phone-*.ini dev-vm-*.ini)
fi

# wall SCENARIO BG -> wall seconds of one run, its events in $T/events.BG
wall() {
	rm -f "$T/db"
	w=$(measure "$T/out" "$R" run "$S/$1" --duration "$DUR" --db "$T/db" --set machine.background="$2") || true
	[ "$(sqlite3 "$T/db" "SELECT status FROM run" 2>/dev/null)" = complete ] ||
		{ echo "background.sh: $1 does not run $DUR with machine.background=$2" >&2; exit 1; }
	sqlite3 "$T/db" "SELECT events FROM run" >"$T/events.$2"
	echo "${w% *}"
}

echo "background activity on against off, $DUR simulated, median of $RUNS pairs (budget <= 1.5x)"
printf '%-40s %8s %8s %6s %12s %12s\n' scenario on_s off_s ratio events_on events_off
over=0
for s in $LIST; do
	# Only the scenarios that run with it: their run records background.wakeups.
	a=$(wall "$s" yes) || exit 1
	[ -n "$(scalar "$T/db" background.wakeups)" ] || continue
	i=0
	while [ $i -lt "$RUNS" ]; do
		[ $i = 0 ] || a=$(wall "$s" yes) || exit 1
		b=$(wall "$s" no) || exit 1
		echo "$(echo "$a / $b" | bc -l) $a $b $(cat "$T/events.yes") $(cat "$T/events.no")"
		i=$((i + 1))
	done | sort -n | sed -n "$(((RUNS + 1) / 2))p" >"$T/pair"
	read -r ratio a b ea eb <"$T/pair"
	mark=
	if [ "$(echo "$ratio > 1.5" | bc -l)" = 1 ]; then
		mark=" over"
		over=$((over + 1))
	fi
	printf '%-40s %8s %8s %6s %12s %12s%s\n' "${s%.ini}" "$a" "$b" "$(LC_ALL=C printf '%.2f' "$ratio")" "$ea" "$eb" "$mark"
done
echo "over budget: $over"
