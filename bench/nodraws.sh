#!/bin/sh
# nodraws.sh [--smoke] [BUILD_DIR] - what the seed scenario's simulated hour
# costs besides its random draws: rcusim against rcusim_nodraws, the same
# model with every draw replaced by a nearly free one of the same mean
# (sim/rng.c, SIM_RNG_NULL_DRAWS), in alternating pairs of whole-process
# runs, followed by the work each run did (events, open attempts, callbacks
# invoked) to show that the two carried the same load. rcusim_nodraws is
# built on demand; what it records is not the model's result.
# --smoke: 2 simulated seconds and one pair, to check the script (CI).
set -eu
SMOKE=
if [ "${1:-}" = --smoke ]; then
	SMOKE=1
	shift
fi
B=${1:-build}
S=$(cd "$(dirname "$0")/.." && pwd)/scenarios
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
cmake --build "$B" --target rcusim_nodraws >"$T/build" 2>&1 ||
	{ cat "$T/build" >&2; echo "nodraws.sh: cannot build rcusim_nodraws in $B" >&2; exit 1; }
if [ -n "$SMOKE" ]; then D=2s; N=1; else D=1h; N=3; fi

# run PROG DB -> wall seconds of PROG on the seed scenario, into $T/DB.db
run() {
	set -- $(measure "$T/o" "$B/$1" run "$S/niagara-make.ini" --db "$T/$2.db" --duration $D --quiet)
	echo "$1"
}
set -- $(median_pair $N "run rcusim a" "run rcusim_nodraws b")
echo "seed scenario, 32 CPUs, $D, median of $N pairs: $2 s with GSL's draws, $3 s with nearly free ones ($(echo "$3 / $2" | bc -l | cut -c1-5) of the time)"

# work DB -> "events open_attempts callbacks_invoked" of its last run
work() {
	ev=$(sqlite3 "$1" "SELECT events FROM run WHERE run_id = (SELECT max(run_id) FROM run)")
	op=$(scalar "$1" vfs.opens)
	en=$(scalar "$1" vfs.enoent)
	cb=$(scalar "$1" cb.invoked)
	echo "$ev $((${op%.*} + ${en%.*})) ${cb%.*}"
}
set -- $(work "$T/a.db") $(work "$T/b.db")
echo "work, with GSL's draws / with nearly free ones: events $1 / $4 ($(echo "$4 / $1" | bc -l | cut -c1-5)), open attempts $2 / $5 ($(echo "$5 / $2" | bc -l | cut -c1-5)), callbacks invoked $3 / $6 ($(echo "$6 / $3" | bc -l | cut -c1-5))"
# The comparison means something only if both runs carried the same load:
# the same events and open attempts within 2%.
echo "$1 $2 $4 $5" | awk '$1 > 0 && $2 > 0 && $3 / $1 > 0.98 && $3 / $1 < 1.02 && $4 / $2 > 0.98 && $4 / $2 < 1.02 {ok = 1} END {exit !ok}' ||
	{ echo "nodraws.sh: the two runs did not carry the same load" >&2; exit 1; }
