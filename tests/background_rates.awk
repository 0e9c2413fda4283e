# SPDX-License-Identifier: GPL-3.0-or-later
# background_rates.awk - the background activity of a tracefs text trace
# (rcusim record), per CPU per second, as machine.background's parameters
# and its validation rows count it:
#   ticks      rcu_utilization "Start scheduler-tick" (rcu_sched_clock_irq())
#   idle_ticks of them, on a CPU whose current task is the idle task
#   rcu_softirqs softirq_entry vec=9
#   gp_wakeups sched_wakeup of rcu_preempt or rcu_sched
#   ctxsw      sched_switch
#   bg_wakeups sched_wakeup of a task that is not the load (rcusim*),
#              ksoftirqd, an RCU kthread (rcu_*, rcuo*, rcuc*) or migration
#   bg_run_us  mean time from such a task's switch in to its switch out
#   dev_irqs   softirq_raise in hardirq context ('h' in the flags) of a
#              vector other than TIMER (1), HRTIMER (8) and RCU (9)
# Usage: awk -f background_rates.awk TRACE.txt  (zcat a .gz first)
function bg(comm) {
	return comm !~ /^(rcusim|ksoftirqd|rcu_|rcuo|rcuc|migration|swapper)/
}
$1 !~ /^#/ && NF > 4 {
	cpu = ""; t = ""; ev = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^\[[0-9]+\]$/ && cpu == "") {
			cpu = substr($i, 2, length($i) - 2) + 0
			flags = $(i + 1); t = $(i + 2); ev = $(i + 3); base = i + 3
			break
		}
	}
	if (ev == "")
		next
	sub(/:$/, "", t); t += 0
	if (!started) { t0 = t; started = 1 }
	t1 = t
	ncpu = cpu + 1 > ncpu ? cpu + 1 : ncpu
	if (ev == "sched_switch:") {
		ctxsw[cpu]++
		line = $0
		prev = line; sub(/.*prev_comm=/, "", prev); sub(/ prev_pid=.*/, "", prev)
		next_c = line; sub(/.*next_comm=/, "", next_c); sub(/ next_pid=.*/, "", next_c)
		if (cpu in runstart && runstart[cpu] > 0) {
			bgrun += t - runstart[cpu]; bgruns++
			runstart[cpu] = 0
		}
		if (bg(next_c))
			runstart[cpu] = t
		idle[cpu] = next_c ~ /^swapper/
	} else if (ev == "sched_wakeup:") {
		c = $0; sub(/.*comm=/, "", c); sub(/ pid=.*/, "", c)
		tc = $0; sub(/.*target_cpu=/, "", tc); tc += 0
		if (c ~ /^rcu_(preempt|sched)$/)
			gpw[tc]++
		else if (bg(c))
			bgw[tc]++
	} else if (ev == "rcu_utilization:" && $0 ~ /Start scheduler-tick/) {
		ticks[cpu]++
		if (!(cpu in idle) || idle[cpu])
			iticks[cpu]++
	} else if (ev == "softirq_entry:" && $(base + 1) == "vec=9") {
		rsi[cpu]++
	} else if (ev == "softirq_raise:" && flags ~ /h/ && $(base + 1) !~ /^vec=(1|8|9)$/) {
		dirq[cpu]++
	}
}
END {
	d = t1 - t0
	if (d <= 0 || ncpu == 0) {
		print "background_rates: no events" > "/dev/stderr"
		exit 1
	}
	printf "seconds %.3f cpus %d\n", d, ncpu
	printf "cpu ticks idle_ticks rcu_softirqs gp_wakeups ctxsw bg_wakeups dev_irqs (per second)\n"
	for (c = 0; c < ncpu; c++) {
		printf "%d %.1f %.1f %.1f %.1f %.1f %.1f %.1f\n", c, ticks[c] / d, iticks[c] / d, rsi[c] / d,
		       gpw[c] / d, ctxsw[c] / d, bgw[c] / d, dirq[c] / d
		T += ticks[c]; IT += iticks[c]; R += rsi[c]; G += gpw[c]; X += ctxsw[c]; W += bgw[c]; D += dirq[c]
	}
	n = ncpu * d
	printf "mean %.1f %.1f %.1f %.1f %.1f %.1f %.1f\n", T / n, IT / n, R / n, G / n, X / n, W / n, D / n
	if (bgruns)
		printf "bg_run_us %.1f over %d runs\n", bgrun / bgruns * 1e6, bgruns
}
