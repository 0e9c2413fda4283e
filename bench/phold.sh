#!/bin/sh
# phold.sh [BUILD_DIR] [RUNS] - the engine benchmark: PHOLD on rcusim's
# engine, its variants (heap arity d, entries per bucket t) and the textbook
# 4-ary heap, for the two configurations of the foundation issue. Prints the
# median events/s of RUNS runs (default 5) of each, and the targets.
# Whole-process timings of one pair: /usr/bin/time -v ./phold ... .
set -eu
B=${1:-build}
RUNS=${2:-5}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
for cfg in "--start-events=16 --end=200|8000000" "--start-events=1 --end=10000|10000000"; do
	args="--nlp=4096 --remote=0.25 --lookahead=0.1 --mean=1.0 ${cfg%|*}"
	target=${cfg#*|}
	echo "PHOLD $args (target >= $target events/s for phold)"
	for prog in phold phold_d2 phold_d8 phold_t2 phold_t8 phold_textbook; do
		m=$(i=0; while [ $i -lt "$RUNS" ]; do
			"$B/$prog" $args | awk '/^events\/s:/ {print $2}'
			i=$((i + 1))
		done | median)
		printf '  %-16s %12s events/s\n' "$prog" "$m"
	done
done
