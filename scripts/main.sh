#!/bin/sh
# The main job: install what rcusim needs, build it, and run the example
# scenario, appending the run to rcusim.db in the current folder.
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
"$HERE/scripts/setup-debian.sh"
cmake -S "$HERE" -B "$HERE/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$HERE/build" -j "$(nproc)"
"$HERE/build/rcusim" run "$HERE/scenarios/queue.ini" --db rcusim.db
