#!/bin/sh
# The main job: install what rcusim needs, build it, run the seed scenario
# (David Miller's 32-thread Niagara under make -j8192 for one simulated hour)
# under the three callback policies, print their comparison and draw the
# standard figures into figures/. Results go to rcusim.db in this folder.
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
