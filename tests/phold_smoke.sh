#!/bin/sh
# phold_smoke.sh PHOLD TEXTBOOK - the benchmark in a short smoke mode: the
# engine and the textbook heap simulate the same events (same count and
# checksum of destinations), so the benchmark compares like with like.
lib_args="PHOLD TEXTBOOK"
. "$(dirname "$0")/lib.sh"
args="--nlp=256 --start-events=4 --remote=0.25 --lookahead=0.1 --mean=1.0 --end=50"
# shellcheck disable=SC2086 # the options are words
expect_exit 0 "$PHOLD" $args
a=$(grep -E '^(events|checksum):' out)
# shellcheck disable=SC2086
expect_exit 0 "$TEXTBOOK" $args
b=$(grep -E '^(events|checksum):' out)
echo "engine:   $a" | tr '\n' ' '
echo
echo "textbook: $b" | tr '\n' ' '
echo
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "the engine and the textbook heap simulate different events"
finish
