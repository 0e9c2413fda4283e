# ksoftirqd_waits.awk - in a trace's text (the tracefs trace file's format,
# the box's or rcusim run --trace's): its length, the slab frees inside RCU
# softirq passes a second (the callbacks, where kmem_cache_free was
# recorded), and ksoftirqd's waits: each from its sched_wakeup to its
# sched_switch in, or to its first event if the switch is missing (a few
# per 10 s are, on 6.18), how many, the share over 1 ms and over 4 ms, and
# the longest, on one line.
/^#/ { next }
{
	match($0, /\[[0-9]+\] [^ ]+ +[0-9.]+:/)
	split(substr($0, RSTART + 1, RLENGTH - 2), f, /[] ]+/)
	cpu = f[1] + 0; ts = f[3] + 0
	ev = $0; sub(/^.*[0-9]: /, "", ev); sub(/:.*/, "", ev)
	if (!n++) t0 = ts
	t1 = ts
	task = $1
}
task ~ /^ksoftirqd\// { k = task; sub(/.*\//, "", k); sub(/-.*/, "", k); if (k in w) { endw(k) } }
ev == "softirq_entry" && /vec=9 / { inrcu[cpu] = 1 }
ev == "softirq_exit" && /vec=9 / { inrcu[cpu] = 0 }
ev == "kmem_cache_free" && inrcu[cpu] { cb++ }
ev == "sched_wakeup" && /comm=ksoftirqd\// { k = $0; sub(/.*comm=ksoftirqd\//, "", k); sub(/ .*/, "", k); if (!(k in w)) w[k] = ts }
ev == "sched_switch" && /next_comm=ksoftirqd\// { k = $0; sub(/.*next_comm=ksoftirqd\//, "", k); sub(/ .*/, "", k); if (k in w) endw(k) }
function endw(k,   d) { d = ts - w[k]; delete w[k]; nw++; if (d > 0.001) nw1++; if (d > 0.004) nw4++; if (d > mx) mx = d }
END {
	d = t1 - t0
	printf "dur %.3f cb/s %.0f kwaits %d over1ms %.2f%% over4ms %.2f%% maxms %.2f\n", d, cb / d, nw, 100 * nw1 / (nw ? nw : 1), 100 * nw4 / (nw ? nw : 1), mx * 1000
}
