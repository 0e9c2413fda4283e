#!/bin/sh
# The main job: install what rcusim needs to build, run and plot (no
# server, no daemon: scripts/setup-debian.sh run), build it, run the seed scenario
# (David Miller's 32-thread Niagara under make -j8192 for one simulated hour,
# HZ 250, sparc64) under the three callback policies, print their comparison
# and draw the standard figures into figures/; then the same hour with one
# injected 30 s stall (CPU 5 with interrupts off at minute 10) under 2.6.15's
# and 2.6.16's settings, compared and drawn into figures/stall/. Results go
# to rcusim.db in this folder.
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
"$HERE/scripts/setup-debian.sh" run
# The tests are scripts/test.sh's: this build leaves them (and Check) out.
cmake -S "$HERE" -B "$HERE/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$HERE/build" -j "$(nproc)"
RCUSIM="$HERE/build/rcusim"
# group OUTDIR SCENARIO...: run each scenario into rcusim.db, then compare
# the runs and draw their figures into OUTDIR.
group() {
	out=$1
	shift
	ids=""
	for s in "$@"; do
		"$RCUSIM" run "$HERE/scenarios/$s.ini" --db rcusim.db --label "$s" | head -1
		ids="$ids $(sqlite3 rcusim.db 'SELECT max(run_id) FROM run')"
	done
	echo
	# shellcheck disable=SC2086 # the run ids are words
	"$RCUSIM" compare --db rcusim.db $ids
	echo
	# shellcheck disable=SC2086
	"$RCUSIM" plot --db rcusim.db --out "$out" $ids
}
group figures niagara-make-2.6.15 niagara-make-tunable-10000 niagara-make
echo
echo "The same hour with an injected fault (a stand-in for an unsourced stall, not the explanation):"
group figures/stall niagara-make-2.6.15-stall niagara-make-2.6.16-stall
