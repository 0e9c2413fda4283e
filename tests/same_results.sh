#!/bin/sh
# same_results.sh RCUSIM SRCDIR - scripts/same-results.sh finds two runs of
# one build identical, finds a run with another seed different, and fails
# (exit 2) on bad use and when a run fails.
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
"$SRC/scripts/same-results.sh" "$RCUSIM" "$RCUSIM" "$T/no-such.ini" 2s >/dev/null 2>&1
rc=$?
if [ $rc -ne 2 ]; then
	echo "FAIL: a run that fails: exit $rc, want 2"
	fails=$((fails + 1))
fi
echo "$((4 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
