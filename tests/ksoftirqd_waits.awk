# ksoftirqd_waits.awk - in a trace's text (the tracefs trace file's format,
# the box's or rcusim run --trace's): its length, the slab frees inside RCU
# softirq passes a second (the callbacks, where kmem_cache_free was
# recorded), and ksoftirqd's waits: each from its sched_wakeup to its
# sched_switch in, or to its first event if the switch is missing (a few
# per 10 s are, on 6.18), how many, the share over 1 ms and over 4 ms, and
# the longest, on one line; then their median and 99th percentile in ns, and
# the GP kthread's waits (rcu_preempt or rcu_sched, the same way by its pid)
# counted, with their median, 99th percentile and longest in ns. The
# percentiles are rcusim's histograms' (sim_hist_quantile(): the midpoint of
# the bin holding the ceil(q n)-th smallest wait, clamped to the extremes),
# so they equal what rcusim import records.
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
gw != "" && (task ~ ("-" gpid "$") || (ev == "sched_switch" && $0 ~ ("next_pid=" gpid " "))) { gadd(ns(ts - gw)); gw = "" }
ev == "softirq_entry" && /vec=9 / { inrcu[cpu] = 1 }
ev == "softirq_exit" && /vec=9 / { inrcu[cpu] = 0 }
ev == "kmem_cache_free" && inrcu[cpu] { cb++ }
ev == "sched_wakeup" && /comm=ksoftirqd\// { k = $0; sub(/.*comm=ksoftirqd\//, "", k); sub(/ .*/, "", k); if (!(k in w)) w[k] = ts }
ev == "sched_wakeup" && /comm=rcu_(preempt|sched) / && gw == "" { gw = ts; gpid = $0; sub(/.*comm=rcu_(preempt|sched) pid=/, "", gpid); sub(/ .*/, "", gpid) }
ev == "sched_switch" && /next_comm=ksoftirqd\// { k = $0; sub(/.*next_comm=ksoftirqd\//, "", k); sub(/ .*/, "", k); if (k in w) endw(k) }
function endw(k,   d) { d = ts - w[k]; delete w[k]; nw++; if (d > 0.001) nw1++; if (d > 0.004) nw4++; if (d > mx) mx = d; kadd(ns(d)) }
function ns(d) { return int(d * 1e9 + 0.5) }
# sim_hist_bin() and the midpoint of sim_hist_edges().
function bin(v,   msb, sh) {
	if (v < 128) { mid = v; return v }
	for (msb = 7; 2 ^ (msb + 1) <= v; msb++) ;
	sh = 2 ^ (msb - 6)
	lo = int(v / sh) * sh
	mid = (lo + lo + sh - 1) / 2
	return 128 + (msb - 7) * 64 + int(v / sh) % 64
}
function kadd(v,   b) { b = bin(v); kb[b]++; km[b] = mid; if (!kn++ || v < kmin) kmin = v; if (v > kmax) kmax = v }
function gadd(v,   b) { b = bin(v); gb[b]++; gm[b] = mid; if (!gn++ || v < gmin) gmin = v; if (v > gmax) gmax = v }
# sim_hist_quantile() over the bins in b (midpoints m) of n samples.
function quant(q, n, b, m, lo, hi,   r, seen, i, x) {
	if (!n) return 0
	r = q * n; x = int(r); if (x < r) x++; if (x < 1) x = 1
	for (i = 0; i < 4000; i++) {
		seen += b[i]
		if (seen >= x) { x = m[i]; if (x < lo) x = lo; if (x > hi) x = hi; return x }
	}
	return hi
}
END {
	d = t1 - t0
	printf "dur %.3f cb/s %.0f kwaits %d over1ms %.2f%% over4ms %.2f%% maxms %.2f", d, cb / d, nw, 100 * nw1 / (nw ? nw : 1), 100 * nw4 / (nw ? nw : 1), mx * 1000
	printf " kp50ns %.1f kp99ns %.1f", quant(0.5, kn, kb, km, kmin, kmax), quant(0.99, kn, kb, km, kmin, kmax)
	printf " gwaits %d gp50ns %.1f gp99ns %.1f gmaxns %d\n", gn, quant(0.5, gn, gb, gm, gmin, gmax), quant(0.99, gn, gb, gm, gmin, gmax), gmax
}
