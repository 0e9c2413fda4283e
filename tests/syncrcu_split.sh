#!/bin/sh
# syncrcu_split.sh RCUSIM SRCDIR - synchronize_rcu() split per call
# (issue 49): syncrcu.wait_gp_start_ns + syncrcu.gp_ns + syncrcu.wake_ns.
# One caller on 2 idle CPUs of the x86 box under 6.12, HZ 1000, 31 ms: it
# works 175 us (1 ms at the reference clock, x86-16 runs at 5.75x), then
# calls; by hand, each call:
# - queues wakeme_after_rcu() at c = 175.3 us past a tick; no GP is in
#   progress, but call_rcu() starts none (__call_rcu_core(), tree.c
#   6.12:2990-3006, only on a flood): the next tick's rcu_core() asks for
#   it and the GP kthread's init step starts it 1 us later, at tick + 1.001
#   ms: wait_gp_start = 1.001 ms - 175.3 us = 825.7 us;
# - the GP: the FQS wait of jiffies_till_first_fqs (4 jiffies at 2 CPUs),
#   the scan finds both CPUs idle, cleanup: 4.000 ms;
# - the callback is invoked at the CPU's next tick's rcu_core(), 0.999 ms
#   after the cleanup step, and complete() wakes the caller: wake 0.999 ms.
# So 5 calls return in 31 ms (a sixth is waiting), each after 5.825 ms. The test reads the same instants from
# the run's timeline (ftrace text: the caller's switch out in S, the next
# rcu_grace_period start and end, its sched_wakeup) and checks the means
# against the scalars to the trace's 1 us; the three parts' means sum to the
# latency's, and each histogram holds every call. The same sums hold for
# synchronize_rcu_expedited() and for rcu.normal_wake_from_gp.
. "$(dirname "$0")/lib.sh"
cat >sp.ini <<EOI
include = $SRC/scenarios/machines/x86-16.ini
include = $SRC/scenarios/kernels/linux-6.12.ini
[machine]
cores = 2
threads_per_core = 1
hz = 1000
[scenario]
duration = 31ms
sample_interval = 10ms
[workload]
kind = syncrcu
jobs = 1
syncrcu_gap = 1ms
syscall_cost = 2us
EOI
expect_exit 0 "$RCUSIM" run sp.ini --db sp.db --quiet --trace sp.txt --trace-format ftrace
sc() { q sp.db "SELECT value FROM scalar WHERE run_id = $1 AND name = '$2'"; }
[ "$(sc 1 syncrcu.returned)" = 5.0 ] && ok || bad "calls returned: $(sc 1 syncrcu.returned)"
# by hand (ns), to 1 us
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && -d <= t) }'; }
near "$(sc 1 syncrcu.wait_gp_start_mean_ns)" 825700 1000 && ok || bad "wait for GP start $(sc 1 syncrcu.wait_gp_start_mean_ns)"
near "$(sc 1 syncrcu.gp_mean_ns)" 4000000 1000 && ok || bad "GP $(sc 1 syncrcu.gp_mean_ns)"
near "$(sc 1 syncrcu.wake_mean_ns)" 999000 1000 && ok || bad "wake $(sc 1 syncrcu.wake_mean_ns)"
# from the timeline, call by call
awk '
/prev_comm=syncrcu .*prev_state=S/ { c = $4 + 0; want = 1; next }
want == 1 && /rcu_grace_period: .* start$/ { s = $4 + 0; want = 2; next }
want == 2 && /rcu_grace_period: .* end$/ { e = $4 + 0; want = 3; next }
want == 3 && /sched_wakeup: comm=syncrcu/ { w = $4 + 0; want = 0; n++; a += s - c; g += e - s; k += w - e }
END { printf "%d %.0f %.0f %.0f\n", n, a / n * 1e9, g / n * 1e9, k / n * 1e9 }' sp.txt >split
read n a g k <split
[ "$n" = 5 ] && ok || bad "calls in the timeline: $n"
near "$(sc 1 syncrcu.wait_gp_start_mean_ns)" "$a" 1000 && ok || bad "wait for GP start: trace $a"
near "$(sc 1 syncrcu.gp_mean_ns)" "$g" 1000 && ok || bad "GP: trace $g"
near "$(sc 1 syncrcu.wake_mean_ns)" "$k" 1000 && ok || bad "wake: trace $k"
expect_exit 0 "$RCUSIM" run sp.ini --db sp.db --quiet --set workload.syncrcu_expedited=yes
expect_exit 0 "$RCUSIM" run sp.ini --db sp.db --quiet --set rcu.normal_wake_from_gp=yes
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/x86-64-syncrcu-hogs-debian.ini" --db sp.db --quiet --duration 300ms
for r in 1 2 3 4; do
	sum=$(awk -v a="$(sc $r syncrcu.wait_gp_start_mean_ns)" -v b="$(sc $r syncrcu.gp_mean_ns)" \
		-v c="$(sc $r syncrcu.wake_mean_ns)" 'BEGIN { printf "%.3f", a + b + c }')
	near "$sum" "$(sc $r syncrcu.latency_mean_ns)" 0.01 && ok || bad "run $r: parts sum to $sum, latency $(sc $r syncrcu.latency_mean_ns)"
	[ -z "$(sc $r syncrcu.unsplit)" ] && ok || bad "run $r: unsplit calls $(sc $r syncrcu.unsplit)"
	for h in wait_gp_start gp wake; do
		[ "$(q sp.db "SELECT sum(count) FROM hist WHERE run_id = $r AND name = 'syncrcu.${h}_ns'")" = \
		  "$(q sp.db "SELECT sum(count) FROM hist WHERE run_id = $r AND name = 'syncrcu.latency_ns'")" ] &&
			ok || bad "run $r: syncrcu.${h}_ns lacks calls"
	done
done
# expedited: the parts are the expedited GP's, not a normal one's
[ "$(sc 2 syncrcu.gp_p50_ns)" = "$(sc 2 exp.duration_p50_ns)" ] && ok || bad "expedited: gp $(sc 2 syncrcu.gp_p50_ns) vs exp.duration $(sc 2 exp.duration_p50_ns)"
finish
