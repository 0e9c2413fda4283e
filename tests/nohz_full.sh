#!/bin/sh
# nohz_full.sh RCUSIM SRCDIR - irq.nohz_full (nohz_full=) on 8 CPUs, one
# call_rcu() task per CPU, HZ 250, 2 simulated seconds:
# - ticks: CPU 0 (housekeeping) takes all 500 of its own, CPUs 1-7 none
#   (one task each: 3,500 stopped); sched_tick_remote() does 7 ticks a
#   second; "all" is 1-7 (the boot CPU keeps timekeeping); without it all
#   4,000 ticks are taken;
# - RCU: the nohz_full CPUs are offloaded, their rcuo and rcuog kthreads run
#   on CPU 0 only (the exported timeline's switches), their user mode is a
#   quiescent state the FQS scan sees (no resched_cpu(), no forced tick);
#   callbacks are conserved;
# - a CPU that reports no quiescent state (fault no_qs on CPU 5 for 0.5 s)
#   is resched_cpu()ed and has its tick forced on by RCU for that time;
# - background activity (machine.background) only on the housekeeping CPU;
# - errors: nohz=off, the GP kthread on a nohz_full CPU, O(1), Classic RCU,
#   a CPU the machine lacks: exit 2, no run.
. "$(dirname "$0")/lib.sh"
cat >nf.ini <<EOI
include = $SRC/scenarios/machines/x86-16.ini
include = $SRC/scenarios/kernels/linux-6.12.ini
[machine]
cores = 4
hz = 250
; exact tick counts: no background activity
background = no
[scenario]
duration = 2s
sample_interval = 100ms
[workload]
kind = callrcu
jobs = 8
callrcu_rate = 57500/s
syscall_cost = 500ns
EOI

case=nohz_full
expect_exit 0 "$RCUSIM" run nf.ini --db nf.db --quiet --set irq.nohz_full=1-7 --set rcu.nocbs=0 --trace nf.trace --trace-window 1s..1.2s
want_scalars nf.db "tick.taken=500 tick.stopped=3500 tick.stopped_busy=3500 tick.remote=14 tick.forced_rcu=0 fqs.resched_cpu=0"
enq=$(last_scalar nf.db cb.enqueued) inv=$(last_scalar nf.db cb.invoked) pend=$(last_scalar nf.db cb.pending_end)
[ "$enq" -gt 100000 ] && [ "$enq" = $((inv + pend)) ] && ok || bad "conservation: $enq enqueued, $inv invoked, $pend pending"
[ "$(last_scalar nf.db rcuo.invoked)" = "$inv" ] && ok || bad "rcuo invoked $(last_scalar nf.db rcuo.invoked) of $inv: CPUs 1-7 not offloaded (rcu.nocbs names only CPU 0)"
# Grace periods end at the first FQS scan (1 jiffy: 4 ms) or the next.
p50=$(last_scalar nf.db gp.duration_p50_ns)
awk -v p="$p50" 'BEGIN { exit !(p >= 4000000 && p <= 8100000) }' && ok || bad "gp.duration_p50_ns $p50"
# The timeline: every switch to an rcuo or rcuog kthread is on CPU 0, and
# the groups keep their kernel names (rcuog/0, rcuog/2, ... by first CPU).
awk '/sched_switch:/ && /next_comm=rcuo/ { n++; if ($0 !~ /\[000\]/) off++ } END { exit !(n > 0 && !off) }' nf.trace &&
	ok || bad "an rcuo kthread ran off CPU 0: $(grep -m3 'next_comm=rcuo' nf.trace)"
grep -q 'next_comm=rcuos/7 ' nf.trace && ok || bad "no rcuos/7 in the timeline"
case=all
expect_exit 0 "$RCUSIM" run nf.ini --db nf.db --quiet --set irq.nohz_full=all
want_scalars nf.db "tick.taken=500 tick.stopped_busy=3500"
case=none
expect_exit 0 "$RCUSIM" run nf.ini --db nf.db --quiet
want_scalars nf.db "tick.taken=4000 tick.stopped=0"
[ -z "$(last_scalar nf.db tick.stopped_busy)" ] && ok || bad "tick.stopped_busy recorded without nohz_full"
case=forced
expect_exit 0 "$RCUSIM" run nf.ini --db nf.db --quiet --set irq.nohz_full=1-7 --set fault.kind=no_qs \
	--set fault.cpus=5 --set fault.start=500ms --set fault.duration=500ms
f=$(last_scalar nf.db tick.forced_rcu) r=$(last_scalar nf.db fqs.resched_cpu)
[ "$f" -ge 100 ] && [ "$f" -le 125 ] && [ "$r" -ge 1 ] && ok || bad "forced ticks $f, resched_cpu $r"
[ "$(last_scalar nf.db tick.taken)" = $((500 + f)) ] && ok || bad "ticks taken $(last_scalar nf.db tick.taken), want 500 + $f"

# Background activity (machine.background) stays on the housekeeping CPUs:
# nohz_full= takes the others out of the timer, workqueue and kthread
# housekeeping masks (kernel/sched/isolation.c 6.12:194-203). At 65
# wake-ups a second a CPU for 2 s: about 130 on CPU 0 alone (Poisson, sd
# 11), about 1,040 on all 8 CPUs without nohz_full; no tick stopped on an
# isolated CPU is taken for a background timer.
case=background
expect_exit 0 "$RCUSIM" run nf.ini --db bg.db --quiet --set machine.background=yes --set irq.nohz_full=1-7
w=$(last_scalar bg.db background.wakeups)
awk -v w="$w" 'BEGIN { exit !(w >= 80 && w <= 180) }' && ok || bad "background wake-ups with CPUs 1-7 isolated: $w (want 80-180: CPU 0's only)"
want_scalars bg.db "tick.stopped_busy=3500"
expect_exit 0 "$RCUSIM" run nf.ini --db bg.db --quiet --set machine.background=yes
w=$(last_scalar bg.db background.wakeups)
awk -v w="$w" 'BEGIN { exit !(w >= 900 && w <= 1180) }' && ok || bad "background wake-ups on 8 CPUs: $w (want 900-1180)"

case=errors
expect_exit 2 "$RCUSIM" run nf.ini --db err.db --quiet --set irq.nohz_full=1-7 --set rcu.gp_kthread_cpu=3
expect_err "rcu.gp_kthread_cpu: CPU 3 is in irq.nohz_full"
expect_exit 2 "$RCUSIM" run nf.ini --db err.db --quiet --set irq.nohz_full=1-7 --set irq.nohz_idle=no
expect_err "nohz_full needs the tickless mode"
expect_exit 2 "$RCUSIM" run nf.ini --db err.db --quiet --set irq.nohz_full=1-7 --set sched.kind=o1
expect_err "irq.nohz_full: nohz_full is a 6.x mechanism modelled with sched.kind = eevdf, and sched.kind is o1"
expect_exit 2 "$RCUSIM" run nf.ini --db err.db --quiet --set irq.nohz_full=1-7 --set rcu.flavor=classic
expect_err "irq.nohz_full: applies only with rcu.flavor = tree"
expect_exit 2 "$RCUSIM" run nf.ini --db err.db --quiet --set irq.nohz_full=1-9
expect_err "irq.nohz_full"
[ ! -e err.db ] || [ "$(q err.db "SELECT count(*) FROM run")" = 0 ] && ok || bad "a refused run was recorded"
finish
