#!/bin/sh
# same_results.sh RCUSIM SRCDIR - scripts/same-results.sh finds two runs of
# one build identical, finds a run with another seed different, and fails
# (exit 2) on bad use and when a run fails.
. "$(dirname "$0")/lib.sh"
SAME=$SRC/scripts/same-results.sh
case="one build against itself"
expect_exit 0 "$SAME" "$RCUSIM" "$RCUSIM" "$SRC/scenarios/make-small.ini" 2s
# A "build" that simulates seed 2 whatever it is asked.
case="another seed"
printf '#!/bin/sh\nexec "%s" "$@" --seed 2\n' "$RCUSIM" >other
chmod +x other
expect_exit 1 "$SAME" "$RCUSIM" "$T/other" "$SRC/scenarios/make-small.ini" 2s
expect_out '^DIFFERENT'
case="missing arguments"
expect_exit 2 "$SAME" "$RCUSIM" "$RCUSIM"
case="a run that fails"
expect_exit 2 "$SAME" "$RCUSIM" "$RCUSIM" "$T/no-such.ini" 2s
finish
