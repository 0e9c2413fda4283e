#!/bin/sh
# The main job: install what rcusim needs, build it, run the seed scenario
# (David Miller's 32-thread Niagara under make -j8192 for one simulated hour,
# HZ 250, sparc64) under the three callback policies, print their comparison
# and draw the standard figures into figures/; then the same hour with one
# injected 30 s stall (CPU 5 with interrupts off at minute 10) under 2.6.15's
# and 2.6.16's settings, compared and drawn into figures/stall/. Results go
# to rcusim.db in this folder.
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
"$HERE/scripts/setup-debian.sh"
cmake -S "$HERE" -B "$HERE/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$HERE/build" -j "$(nproc)"
RCUSIM="$HERE/build/rcusim"
first=""
for s in niagara-make-2.6.15 niagara-make-tunable-10000 niagara-make; do
	"$RCUSIM" run "$HERE/scenarios/$s.ini" --db rcusim.db --label "$s" | head -1
	id=$(sqlite3 rcusim.db 'SELECT max(run_id) FROM run')
	first="$first $id"
done
echo
# shellcheck disable=SC2086 # the run ids are words
"$RCUSIM" compare --db rcusim.db $first
echo
# shellcheck disable=SC2086
"$RCUSIM" plot --db rcusim.db --out figures $first
echo
echo "The same hour with an injected fault (a stand-in for an unsourced stall, not the explanation):"
stall=""
for s in niagara-make-2.6.15-stall niagara-make-2.6.16-stall; do
	"$RCUSIM" run "$HERE/scenarios/$s.ini" --db rcusim.db --label "$s" | head -1
	id=$(sqlite3 rcusim.db 'SELECT max(run_id) FROM run')
	stall="$stall $id"
done
echo
# shellcheck disable=SC2086
"$RCUSIM" compare --db rcusim.db $stall
echo
# shellcheck disable=SC2086
"$RCUSIM" plot --db rcusim.db --out figures/stall $stall
