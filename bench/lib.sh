# lib.sh - what the bench/ scripts share; sourced, with $T a scratch folder.

# measure OUTFILE CMD... -> "wall_s peak_kib" of CMD, its stdout in OUTFILE.
measure() {
	out=$1
	shift
	/usr/bin/time -f '%e %M' -o "$T/time" "$@" >"$out" 2>/dev/null
	cat "$T/time"
}

# median_run N OUTFILE CMD... -> "wall_s peak_kib min_s max_s": CMD run N
# times; the wall time and peak of the run of median wall time (the lower
# median when N is even), then the fastest and the slowest wall times.
median_run() {
	n=$1
	shift
	i=0
	while [ $i -lt "$n" ]; do
		measure "$@"
		i=$((i + 1))
	done | sort -n >"$T/runs"
	echo "$(sed -n "$(((n + 1) / 2))p" "$T/runs") $(head -n 1 "$T/runs" | cut -d' ' -f1) $(tail -n 1 "$T/runs" | cut -d' ' -f1)"
}

# scalar DB NAME -> scalar NAME of the last run in DB.
scalar() { sqlite3 "$1" "SELECT value FROM scalar WHERE run_id = (SELECT max(run_id) FROM run) AND name = '$2'"; }

# median_pair N "CMD_A" "CMD_B": run A then B, N times; print "A/B A B" of
# the pair with the median ratio. Each CMD prints one number.
median_pair() {
	n=$1
	i=0
	while [ $i -lt "$n" ]; do
		a=$($2)
		b=$($3)
		echo "$(echo "$a / $b" | bc -l) $a $b"
		i=$((i + 1))
	done | sort -n | sed -n "$(((n + 1) / 2))p"
}
