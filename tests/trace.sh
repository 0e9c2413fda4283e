#!/bin/sh
# trace.sh RCUSIM SRCDIR - rcusim run --trace: the run's timeline.
# - tracefs text: writing it changes no result; its lines parse as the
#   kernel's trace file does (the
#   same reading as tests/realbox.sh gives a real box's trace), in time
#   order, and what they count is what the run recorded: RCU softirq passes
#   in ksoftirqd and elsewhere, ksoftirqd and GP kthread wake-ups, context
#   switches, callbacks invoked (rcu_batch_end), grace periods ended;
# - a window and a CPU list keep only their events;
# - Chrome trace-event JSON (jq): every event has a phase and, but for
#   metadata, a time; per track, in the order written, every slice's begin
#   and end nest (each end closes the innermost slice begun, not before its
#   begin) and every slice ends; per CPU the task slices follow one another;
# - bad options are refused with exit 2 and leave no run; an unwritable
#   file exits 3.
. "$(dirname "$0")/lib.sh"
churn=$SRC/scenarios/dev-vm-churn.ini

case=ftrace
expect_exit 0 "$RCUSIM" run "$churn" --duration 2s --db t.db --quiet --trace t.txt
head -1 t.txt | grep -qx '# tracer: nop' && ok || bad "no tracefs header"
awk '
	/^#/ { next }
	{
		if (!match($0, /\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: [a-z_]+: /)) { print "unparsed: " $0; exit 1 }
		split(substr($0, RSTART + 1, RLENGTH - 2), f, /[] ]+/)
		ts = f[3] + 0
		if (ts < last) { print "out of order: " $0; exit 1 }
		last = ts
	}' t.txt >parse.out && ok || bad "$(cat parse.out)"
awk -f "$SRC/tests/trace_counts.awk" t.txt >counts
c() { awk -v k="$1" '$1 == k { print $2 }' counts; }
s() { q t.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 1 AND name = '$1'"; }
same() {
	[ "$2" = "$3" ] && ok || bad "$1: the trace counts $2, the run recorded $3"
}
same "RCU passes in ksoftirqd" "$(c pk)" "$(s softirq.passes_ksoftirqd)"
same "RCU passes elsewhere" "$(c po)" "$(s softirq.passes_irq_exit)"
same "ksoftirqd wake-ups" "$(c kw)" "$(s softirq.ksoftirqd_wakeups)"
same "GP kthread wake-ups" "$(c gw)" "$(s gp.kthread_wakeups)"
same "callbacks invoked" "$(c cb)" "$(s cb.invoked)"
same "grace periods" "$(c gps)" "$(s gp.completed)"
# Writing the timeline changes no result.
expect_exit 0 "$RCUSIM" run "$churn" --duration 2s --db t.db --quiet
[ "$(q t.db "SELECT count(*) FROM scalar a JOIN scalar b USING (name)
	WHERE a.run_id = 1 AND b.run_id = 2 AND a.value IS NOT b.value")" = 0 ] &&
	[ "$(q t.db "SELECT count(*) FROM scalar WHERE run_id = 1")" = "$(q t.db "SELECT count(*) FROM scalar WHERE run_id = 2")" ] &&
	ok || bad "the traced run's results differ from the untraced one's"
# Each CPU's first switch, to its job, happens at boot, before the trace.
same "context switches" "$(($(c sw) + 2))" "$(s sched.ctxsw)"
# The first switch of a CPU in the trace leaves the task the header of its
# earlier lines named.
awk '/sched_switch/ && !seen[$2]++ { split($0, a, "prev_comm="); split(a[2], b, " ");
	split($1, t, "-"); if (t[1] != b[1]) { print "line task " $1 ", prev_comm " b[1]; exit 1 } }' t.txt \
	>who.out && ok || bad "$(cat who.out)"

case=window
expect_exit 0 "$RCUSIM" run "$churn" --duration 2s --db w.db --quiet --trace w.txt \
	--trace-window 1s..1.01s --trace-cpus 1 --set machine.background=no
awk '!/^#/ { match($0, /\[[0-9]+\] [^ ]+ +[0-9.]+:/); split(substr($0, RSTART + 1, RLENGTH - 2), f, /[] ]+/)
	if (f[1] + 0 != 1 || f[3] < 1.0 || f[3] >= 1.01) { print; exit 1 } n++ }
	END { exit n < 100 }' w.txt >w.out && ok || bad "outside the window or CPU 1: $(head -3 w.out)"

case=json
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/x86-256-callrcu-6.12.ini" --duration 200ms --db j.db --quiet \
	--trace t.json --trace-window 100ms..110ms --trace-cpus 0-7
jq -e '.traceEvents | length > 100' t.json >/dev/null && ok || bad "not JSON, or too few events"
jq -e '.traceEvents | all(has("ph") and (.ph == "M" or (.ts | type == "number")))' t.json >/dev/null &&
	ok || bad "an event without a phase or a time"
jq -e '[.traceEvents[] | select(.ph == "B" or .ph == "E")] | length > 0 and all(.ts >= 100000 and .ts <= 110000)' \
	t.json >/dev/null && ok || bad "no slices, or one outside the window"
jq -e '[.traceEvents[] | select(.pid == 0 and .tid != null) | .tid] | all((. >= 0 and . <= 7) or (. >= 100000 and . <= 100007) or (. >= 200000 and . <= 200007))' \
	t.json >/dev/null && ok || bad "a track of a CPU outside 0-7"
# Per track, read in the order written, each end closes the innermost
# slice begun (same name, not earlier) and every slice ends: the slices
# nest as a viewer reads them (speedscope takes equal times as written).
jq -r '.traceEvents[] | select(.ph == "B" or .ph == "E") | "\(.tid) \(.ph) \(.ts) \(.name)"' t.json >be.txt
awk '$2 == "B" { n[$1]++; s[$1, n[$1]] = $4; b[$1, n[$1]] = $3 + 0; next }
	{ k = n[$1]; if (k < 1 || s[$1, k] != $4 || $3 + 0 < b[$1, k]) { print; exit 1 } n[$1]-- }
	END { for (t in n) if (n[t]) { print "track " t ": " n[t] " open"; exit 1 } }' be.txt >nest.out &&
	ok || bad "slices that do not nest: $(head -1 nest.out)"
# Per CPU, the task slices follow one another without overlap: each begin
# at or after the end before it.
grep -v '^10000[0-7] ' be.txt | sort -s -n -k1,1 -k3,3 | awk '$1 == cpu && $2 == "B" && $3 + 0 < end { print; bad = 1 }
	$2 == "E" { end = $3 + 0 } { cpu = $1 } END { exit bad }' >ov.out && ok || bad "overlapping task slices: $(head -2 ov.out)"
# A CPU always busy (a hog, ksoftirqd) is covered by task slices from the
# window's start to its end, the slices across either edge cut there.
awk '$1 == 3 && $2 == "B" { b = $3 } $1 == 3 && $2 == "E" { sum += $3 - b } END { exit !(sum > 9990 && sum <= 10000.001) }' \
	be.txt && ok || bad "CPU 3's slices do not cover the 10 ms window"
jq -e '[.traceEvents[] | select(.name == "grace period")] | length >= 2' t.json >/dev/null &&
	ok || bad "no grace period in the window"
# A grace period's begin and end share their id (the counter of rcu_seq).
jq -e '[.traceEvents[] | select(.name == "grace period")] | group_by(.id) |
	map(select(length == 2)) | length >= 1 and all(.[0].ph == "b" and .[1].ph == "e")' t.json \
	>/dev/null && ok || bad "no grace period begins and ends under one id"

# An injected fault is a slice on the CPU it hits, as long as it lasts.
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/niagara-make-2.6.15-stall.ini" --duration 2s --db f.db --quiet \
	--set fault.start=1s --set fault.duration=500ms --trace f.json --trace-window 900ms..1.1s
jq -e '[.traceEvents[] | select(.cat == "fault")] | length == 2 and all(.tid == 200005) and
	.[0].ph == "B" and .[0].ts == 1000000 and .[1].ph == "E" and .[1].ts == 1500000' f.json >/dev/null &&
	ok || bad "no fault slice on CPU 5's fault track"

# A grace period's "end" line carries the number of its "start" (the
# kernel traces it before rcu_seq_end()).
awk '/rcu_grace_period: .* start$/ { s[$(NF - 1)] = 1 } /rcu_grace_period: .* end$/ { e++; if (!($(NF - 1) in s)) bad++ }
	END { exit !(e > 100 && !bad) }' t.txt && ok || bad "a grace period ends under a number it did not start with"

case=options
echo keep >keep.txt
expect_exit 2 "$RCUSIM" run "$churn" --db bad.db --trace keep.txt --trace-cpus 0-99
[ "$(cat keep.txt)" = keep ] && ok || bad "a refused --trace-cpus emptied the file"
expect_exit 2 "$RCUSIM" run "$churn" --db bad.db --trace x.txt --trace-window 2s..1s
expect_err 'the end is not after the start'
expect_exit 2 "$RCUSIM" run "$churn" --db bad.db --trace x.txt --trace-window 1..2
expect_err 'trace-window 1..2'
expect_exit 2 "$RCUSIM" run "$churn" --db bad.db --trace x.txt --trace-cpus 7
expect_err 'trace-cpus'
expect_exit 2 "$RCUSIM" run "$churn" --db bad.db --trace x.txt --trace-format xml
expect_err 'ftrace, json or dat'
expect_exit 2 "$RCUSIM" run "$churn" --db bad.db --trace-window 1s..2s
expect_err 'need --trace FILE'
expect_exit 2 "$RCUSIM" run "$SRC/scenarios/queue.ini" --db bad.db --trace x.txt
expect_err 'no timeline'
[ ! -e bad.db ] || [ "$(q bad.db 'SELECT count(*) FROM run')" = 0 ] && ok || bad "a refused run left a row"
expect_exit 3 "$RCUSIM" run "$churn" --db bad.db --trace /nonexistent/dir/x.txt
expect_err 'nonexistent'
finish
