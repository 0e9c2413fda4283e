# ksoftirqd_context.awk - in a trace's text (the tracefs trace file's format,
# the box's or rcusim run --trace's): for each ksoftirqd/N wake-up, what ran
# on CPU N when it came (the task switched in last, and the one before it:
# load = churn, callrcu or LOAD; bg = any task but the load, ksoftirqd, the
# RCU kthreads, migration and idle) and how long it waited; then, of the
# wake-ups that found the load running, by the time since a background
# task's last switch-out on that CPU: how many, how many waited over 1 ms,
# the longest. With DUMP=1 each wait over 0.5 ms on a line.
# Usage: awk [-v LOAD=comm] [-v DUMP=1] -f ksoftirqd_context.awk TRACE.txt
/^#/ { next }
{
	match($0, /\[[0-9]+\] [^ ]+ +[0-9.]+:/)
	split(substr($0, RSTART + 1, RLENGTH - 2), f, /[] ]+/)
	cpu = f[1] + 0; ts = f[3] + 0
	ev = $0; sub(/^.*[0-9]: /, "", ev); sub(/:.*/, "", ev)
}
function cls(c) {
	if (c ~ /^(churn|callrcu)/ || c == LOAD) return "load"
	if (c ~ /^ksoftirqd/) return "ksoft"
	if (c ~ /^rcu_/) return "rcu"
	if (c ~ /^swapper/) return "idle"
	if (c ~ /^migration/) return "mig"
	return "bg"
}
ev == "sched_switch" {
	p = $0; sub(/.*prev_comm=/, "", p); sub(/ prev_pid=.*/, "", p)
	n = $0; sub(/.*next_comm=/, "", n); sub(/ next_pid=.*/, "", n)
	prevof[cpu] = p; cur[cpu] = n; since[cpu] = ts
	if (cls(p) == "bg") lastbgout[cpu] = ts
	if (n ~ /^ksoftirqd/ && (cpu in w)) endw(cpu)
}
ev == "sched_wakeup" && /comm=ksoftirqd\// {
	k = $0; sub(/.*comm=ksoftirqd\//, "", k); sub(/ .*/, "", k); k += 0
	if (k in w) next
	w[k] = ts; flag[k] = substr($0, index($0, "] ") + 2, 5)
	wcls[k] = ((k in cur) ? cls(cur[k]) : "?") "<-" ((k in prevof) ? cls(prevof[k]) : "?")
	wsince[k] = ts - since[k]
	wbg[k] = (k in lastbgout) ? ts - lastbgout[k] : 99
}
function endw(k,   d, key, b) {
	d = ts - w[k]
	key = wcls[k]
	N[key]++; S[key] += d; if (d > 0.001) L[key]++; if (d > M[key]) M[key] = d
	if (key ~ /^load/) {
		b = (wbg[k] < 0.002) ? "under 2 ms" : (wbg[k] < 0.006 ? "2-6 ms" : "over 6 ms")
		NB[b]++; if (d > 0.001) LB[b]++; if (d > MB[b]) MB[b] = d
	}
	if (DUMP && d > 0.0005)
		printf "wait %.1f us from %.6f on cpu %d, %s, %.1f us after the switch in, %.1f us after a background task, flags %s\n", d * 1e6, w[k], k, key, wsince[k] * 1e6, wbg[k] * 1e6, flag[k]
	delete w[k]
	all++
}
END {
	printf "ksoftirqd waits %d\n", all
	for (key in N)
		printf "  running<-before %-12s %5d  mean %8.1f us  over 1 ms %4d  longest %9.1f us\n", key, N[key], S[key] / N[key] * 1e6, L[key], M[key] * 1e6
	for (b in NB)
		printf "  load running, a background task out %-10s before: %5d  over 1 ms %4d  longest %9.1f us\n", b, NB[b], LB[b], MB[b] * 1e6
}
