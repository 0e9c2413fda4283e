#!/bin/sh
# same_results.sh RCUSIM SRCDIR - scripts/same-results.sh finds two runs of
# one build identical, and finds a run with another seed different.
set -u
RCUSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
if ! out=$("$SRC/scripts/same-results.sh" "$RCUSIM" "$RCUSIM" "$SRC/scenarios/make-small.ini" 2s); then
	echo "FAIL: one build against itself: $out"
	fails=$((fails + 1))
fi
# A "build" that simulates seed 2 whatever it is asked.
printf '#!/bin/sh\nexec "%s" "$@" --seed 2\n' "$RCUSIM" >"$T/other"
chmod +x "$T/other"
"$SRC/scripts/same-results.sh" "$RCUSIM" "$T/other" "$SRC/scenarios/make-small.ini" 2s >"$T/out"
rc=$?
if [ $rc -ne 1 ] || ! grep -q '^DIFFERENT' "$T/out"; then
	echo "FAIL: another seed: exit $rc, $(cat "$T/out")"
	fails=$((fails + 1))
fi
"$SRC/scripts/same-results.sh" "$RCUSIM" "$RCUSIM" 2>/dev/null
rc=$?
if [ $rc -ne 2 ]; then
	echo "FAIL: missing arguments: exit $rc, want 2"
	fails=$((fails + 1))
fi
echo "$((3 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
