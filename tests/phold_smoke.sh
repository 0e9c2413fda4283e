#!/bin/sh
# phold_smoke.sh PHOLD TEXTBOOK - the benchmark in a short smoke mode: the
# engine and the textbook heap simulate the same events (same count and
# checksum of destinations), so the benchmark compares like with like.
set -u
args="--nlp=256 --start-events=4 --remote=0.25 --lookahead=0.1 --mean=1.0 --end=50"
a=$("$1" $args | grep -E '^(events|checksum):')
b=$("$2" $args | grep -E '^(events|checksum):')
echo "engine:   $a" | tr '\n' ' '
echo
echo "textbook: $b" | tr '\n' ' '
echo
if [ -n "$a" ] && [ "$a" = "$b" ]; then echo "1 passed, 0 failed"; exit 0; fi
echo "0 passed, 1 failed"
exit 1
