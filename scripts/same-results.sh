#!/bin/sh
# same-results.sh OLD_RCUSIM NEW_RCUSIM SCENARIO.ini DURATION [--set K=V]...
# Run SCENARIO for DURATION with two builds and compare every scalar,
# histogram bin and series point bit for bit (scripts/dump-results.sh): the
# proof that an optimisation changed nothing, on scenarios larger than the
# goldens of tests/golden.sh (the seed hour, 4096 CPUs, the what-ifs).
# Exit 0 if identical, 1 if not (the first differences printed), 2 on bad
# use or if either run fails (its messages printed).
set -eu
if [ $# -lt 4 ]; then
	echo "usage: same-results.sh OLD_RCUSIM NEW_RCUSIM SCENARIO.ini DURATION [--set K=V]..." >&2
	exit 2
fi
OLD=$1 NEW=$2 SC=$3 DUR=$4
shift 4
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for side in old new; do
	if [ $side = old ]; then bin=$OLD; else bin=$NEW; fi
	if ! "$bin" run "$SC" --duration "$DUR" --db "$T/$side.db" --quiet "$@" >"$T/out" 2>&1; then
		echo "same-results.sh: the $side build's run failed:" >&2
		cat "$T/out" >&2
		exit 2
	fi
	head -1 "$T/out"
	"$HERE/dump-results.sh" "$T/$side.db" >"$T/$side.txt"
done
if cmp -s "$T/old.txt" "$T/new.txt"; then
	echo "same: $(wc -l <"$T/new.txt") scalars, histogram bins and series points bit for bit"
else
	echo "DIFFERENT:"
	diff "$T/old.txt" "$T/new.txt" | head -20
	exit 1
fi
