# trace_counts.awk - what the trace tests count in a trace's text (the
# tracefs trace file's format), as "name value" lines: RCU softirq passes
# in ksoftirqd (pk) and elsewhere (po), context switches (sw), ksoftirqd
# and rcu_preempt wake-ups (kw, gw), callbacks invoked (cb, the sum of
# rcu_batch_end), grace periods ended (gps), and softirq runs with an RCU
# pass outside ksoftirqd (ri: a CPU's passes with no other event between
# them but those inside a pass).
/^#/ { next }
{ ev = $0; sub(/^.*[0-9]: /, "", ev); sub(/:.*/, "", ev) }
{ cpu = $0; sub(/^[^[]*\[/, "", cpu); sub(/\].*/, "", cpu); cpu += 0 }
ev == "softirq_entry" { if (!(cpu in open)) { open[cpu] = 1; ksd[cpu] = $0 ~ /^ *ksoftirqd\//; rcu[cpu] = 0 }
	inpass[cpu] = 1; if (/vec=9 /) rcu[cpu] = 1 }
ev == "softirq_exit" { inpass[cpu] = 0 }
ev != "softirq_entry" && ev != "softirq_exit" && !inpass[cpu] && (cpu in open) {
	if (rcu[cpu] && !ksd[cpu]) ri++; delete open[cpu] }
ev == "softirq_entry" && /vec=9 / { if ($0 ~ /^ *ksoftirqd\//) pk++; else po++ }
ev == "sched_switch" { sw++ }
ev == "sched_wakeup" && /comm=ksoftirqd\// { kw++ }
ev == "sched_wakeup" && /comm=rcu_preempt / { gw++ }
ev == "rcu_batch_end" { split($0, a, "CBs-invoked="); cb += a[2] + 0 }
ev == "rcu_grace_period" && / end$/ { gps++ }
END { for (c in open) if (rcu[c] && !ksd[c]) ri++
	printf "pk %d\npo %d\nkw %d\nsw %d\ngw %d\ncb %d\ngps %d\nri %d\n", pk, po, kw, sw, gw, cb, gps, ri }
