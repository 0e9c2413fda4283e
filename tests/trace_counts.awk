# trace_counts.awk - what the trace tests count in a trace's text (the
# tracefs trace file's format), as "name value" lines: RCU softirq passes
# in ksoftirqd (pk) and elsewhere (po), context switches (sw), ksoftirqd
# and rcu_preempt wake-ups (kw, gw), callbacks invoked (cb, the sum of
# rcu_batch_end) and grace periods ended (gps).
/^#/ { next }
{ ev = $0; sub(/^.*[0-9]: /, "", ev); sub(/:.*/, "", ev) }
ev == "softirq_entry" && /vec=9 / { if ($0 ~ /^ *ksoftirqd\//) pk++; else po++ }
ev == "sched_switch" { sw++ }
ev == "sched_wakeup" && /comm=ksoftirqd\// { kw++ }
ev == "sched_wakeup" && /comm=rcu_preempt / { gw++ }
ev == "rcu_batch_end" { split($0, a, "CBs-invoked="); cb += a[2] + 0 }
ev == "rcu_grace_period" && / end$/ { gps++ }
END { printf "pk %d\npo %d\nkw %d\nsw %d\ngw %d\ncb %d\ngps %d\n", pk, po, kw, sw, gw, cb, gps }
