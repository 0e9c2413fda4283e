#!/bin/sh
# import.sh RCUSIM SRCDIR - rcusim import: a real machine's trace as a run.
# - the recorded trace of this project's 2-CPU guest: every count equals
#   what awk counts in the file by hand (RCU passes in ksoftirqd and
#   elsewhere, ksoftirqd and GP kthread wake-ups, context switches);
# - round trip: a simulated run written with --trace and imported again
#   gives the run's own counts, and its times to the microsecond the text
#   keeps;
# - a hand-written trace with rcu: events (as include/trace/events/rcu.h
#   prints them): grace-period lengths and callback latencies as computed
#   by hand;
# - a line that is not a trace line is an error naming file and line (exit
#   2, no run); a cut last line is said and the rest imported; a buffer that
#   lost events is said;
# - ksoftirqd's and the GP kthread's wake-to-run waits (a hand-written trace
#   with known waits, and the recorded trace against awk's count), and the
#   model's histograms of them: one sample per wakeup, the longest its max.
. "$(dirname "$0")/lib.sh"
trace=$SRC/tests/data/tracefs-churn-6.18-hz250.txt.gz

case=real
expect_exit 0 "$RCUSIM" import "$trace" --db i.db --label box
gzip -dc "$trace" | awk -f "$SRC/tests/trace_counts.awk" >hand
c() { awk -v k="$1" '$1 == k { print $2 }' hand; }
for m in "softirq.passes_ksoftirqd pk" "softirq.passes_irq_exit po" "softirq.ksoftirqd_wakeups kw" \
	"sched.ctxsw sw" "gp.kthread_wakeups gw"; do
	set -- $m
	got=$(q i.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 1 AND name = '$1'")
	[ -n "$got" ] && [ "$got" = "$(c "$2")" ] && ok || bad "$1: imported $got, counted by hand $(c "$2")"
done
[ "$(q i.db "SELECT policy || ' ' || scenario || ' ' || label FROM run WHERE run_id = 1")" = \
	"measured tracefs-churn-6.18-hz250 box" ] && ok || bad "the run's row"
[ "$(q i.db "SELECT value FROM param WHERE run_id = 1 AND name = 'trace.cpus'")" = 2 ] && ok || bad "trace.cpus"
# The guest's HZ 250, from its ticks; --hz says it instead.
[ "$(q i.db "SELECT value FROM param WHERE run_id = 1 AND name = 'trace.hz'")" = 250 ] && ok || bad "trace.hz"
expect_exit 0 "$RCUSIM" import "$trace" --db hz.db --hz 1000
[ "$(q hz.db "SELECT value FROM param WHERE run_id = 1 AND name = 'trace.hz'")" = 1000 ] &&
	ok || bad "trace.hz from --hz"
expect_exit 2 "$RCUSIM" import "$trace" --db hz.db --hz fast
expect_err '--hz fast: want ticks a second'
# Softirq runs with an RCU pass outside ksoftirqd, as awk delimits them.
got=$(q i.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 1 AND name = 'softirq.runs_irq_exit'")
[ -n "$got" ] && [ "$got" = "$(c ri)" ] && ok || bad "softirq.runs_irq_exit: imported $got, by hand $(c ri)"
# No rcu: events in it (CONFIG_RCU_TRACE off): no grace-period or callback
# latency metric; callbacks invoked are its frees from rcu_do_batch, said.
[ "$(q i.db "SELECT count(*) FROM scalar WHERE run_id = 1 AND (name LIKE 'gp.duration%' OR name LIKE 'cb.latency%')")" = 0 ] &&
	ok || bad "metrics of events the trace does not have"
frees=$(gzip -dc "$trace" | grep -c 'kmem_cache_free: call_site=rcu_do_batch+')
[ "$(q i.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 1 AND name = 'cb.invoked'")" = "$frees" ] &&
	ok || bad "cb.invoked from the $frees kmem_cache_free from rcu_do_batch"
# ksoftirqd's and the GP kthread's waits: their median and 99th percentile
# as awk takes them from the trace (tests/ksoftirqd_waits.awk, with the
# histograms' bins), one histogram sample per ended wait.
gzip -dc "$trace" | awk -f "$SRC/tests/ksoftirqd_waits.awk" | tr ' ' '\n' | paste - - >waits
w() { awk -v k="$1" '$1 == k { print $2 }' waits; }
sv() { q i.db "SELECT value FROM scalar WHERE run_id = 1 AND name = '$1'"; }
hn() { q i.db "SELECT sum(count) FROM hist WHERE run_id = 1 AND name = '$1'"; }
for m in "softirq.ksoftirqd_wait_p50_ns kp50ns" "softirq.ksoftirqd_wait_p99_ns kp99ns" \
	"gp.kthread_wait_p50_ns gp50ns" "gp.kthread_wait_p99_ns gp99ns" "gp.kthread_wait_max_ns gmaxns"; do
	set -- $m
	awk -v a="$(sv "$1")" -v b="$(w "$2")" 'BEGIN { exit !(a != "" && a + 0 == b + 0) }' &&
		ok || bad "$1: imported $(sv "$1"), by awk $(w "$2")"
done
[ "$(hn softirq.ksoftirqd_wait_ns)" = "$(w kwaits)" ] && [ "$(hn gp.kthread_wait_ns)" = "$(w gwaits)" ] &&
	ok || bad "waits: imported $(hn softirq.ksoftirqd_wait_ns) and $(hn gp.kthread_wait_ns), by awk $(w kwaits) and $(w gwaits)"
expect_exit 0 "$RCUSIM" import "$trace" --db i2.db
expect_err "cb.invoked counts the $frees kmem_cache_free/kfree called from rcu_do_batch"
# The RCU softirq's share of each CPU, every 100 ms: 4 whole intervals of 497 ms.
[ "$(q i.db "SELECT count(*) FROM point JOIN series USING (series_id) WHERE run_id = 1 AND name = 'softirq.busy_frac' AND cpu = -1")" = 4 ] &&
	ok || bad "softirq.busy_frac points"

case=roundtrip
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/dev-vm-churn.ini" --duration 2s --db r.db --quiet --trace rt.txt
expect_exit 0 "$RCUSIM" import rt.txt --db r.db
for n in softirq.passes_irq_exit softirq.passes_ksoftirqd softirq.ksoftirqd_wakeups gp.kthread_wakeups \
	cb.invoked gp.completed softirq.runs_irq_exit; do
	a=$(q r.db "SELECT value FROM scalar WHERE run_id = 1 AND name = '$n'")
	b=$(q r.db "SELECT value FROM scalar WHERE run_id = 2 AND name = '$n'")
	[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "$n: run $a, imported $b"
done
# Each CPU's first switch is at boot, before the trace.
[ "$(q r.db "SELECT (SELECT value FROM scalar WHERE run_id = 1 AND name = 'sched.ctxsw') -
	(SELECT value FROM scalar WHERE run_id = 2 AND name = 'sched.ctxsw')")" = 2.0 ] && ok || bad "sched.ctxsw"
# Its HZ, from the interval between a CPU's scheduler ticks.
[ "$(q r.db "SELECT value FROM param WHERE run_id = 2 AND name = 'trace.hz'")" = 250 ] && ok || bad "trace.hz"
for n in gp.duration_max_ns softirq.ksoftirqd_wait_max_ns softirq.irq_run_max_ns; do
	d=$(q r.db "SELECT abs((SELECT value FROM scalar WHERE run_id = 1 AND name = '$n') -
		(SELECT value FROM scalar WHERE run_id = 2 AND name = '$n'))")
	awk -v d="$d" 'BEGIN { exit !(d != "" && d < 1000) }' && ok || bad "$n differs by $d ns"
done
expect_exit 0 "$RCUSIM" compare --db r.db 1 2
expect_out 'measured'

# The model's wait histograms (run 1): a sample per wakeup (one still
# waiting at the end counts), the longest in the top bin.
case=model_waits
rs() { q r.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 1 AND name = '$1'"; }
rh() { q r.db "SELECT $2 FROM hist WHERE run_id = 1 AND name = '$1'"; }
for m in "softirq.ksoftirqd_wait softirq.ksoftirqd_wakeups" "gp.kthread_wait gp.kthread_wakeups"; do
	set -- $m
	n=$(rh "$1_ns" "sum(count)"); mx=$(rs "$1_max_ns")
	[ "$(rs "$2")" -gt 100 ] && [ "$n" = "$(rs "$2")" ] && ok || bad "$1_ns: $n samples, $(rs "$2") wakeups"
	awk -v mx="$mx" -v lo="$(rh "$1_ns" "max(lo)")" -v hi="$(rh "$1_ns" "max(hi)")" \
		'BEGIN { exit !(mx != "" && mx >= lo && mx < hi) }' && ok || bad "$1_max_ns $mx not in the top bin"
	awk -v p50="$(rs "$1_p50_ns")" -v p99="$(rs "$1_p99_ns")" -v mx="$mx" \
		'BEGIN { exit !(p50 != "" && p50 > 0 && p50 <= p99 && p99 <= mx) }' && ok ||
		bad "$1: p50 $(rs "$1_p50_ns"), p99 $(rs "$1_p99_ns"), max $mx"
done

case=rcu_events
cat >rcu.txt <<'EOF'
# tracer: nop
#
# entries-in-buffer/entries-written: 9/12   #P:2
#
           <idle>-0       [000] d.h1.   100.000000: rcu_callback: rcu_preempt rhp=00000000aa func=file_free_rcu 1
           <idle>-0       [000] d.h1.   100.000500: rcu_callback: rcu_preempt rhp=00000000bb func=file_free_rcu 2
      rcu_preempt-15      [001] d..1.   100.001000: rcu_grace_period: rcu_preempt 401 start
      rcu_preempt-15      [001] d..1.   100.004000: rcu_grace_period: rcu_preempt 401 end
           <idle>-0       [000] ..s1.   100.005000: rcu_batch_start: rcu_preempt CBs=2 bl=10
           <idle>-0       [000] ..s1.   100.005000: rcu_invoke_callback: rcu_preempt rhp=00000000aa func=file_free_rcu
           <idle>-0       [000] ..s1.   100.005250: rcu_invoke_callback: rcu_preempt rhp=00000000bb func=file_free_rcu
           <idle>-0       [000] ..s1.   100.005500: rcu_batch_end: rcu_preempt CBs-invoked=2 idle=....
      rcu_preempt-15      [001] d..1.   100.006000: rcu_grace_period: rcu_preempt 405 start
EOF
expect_exit 0 "$RCUSIM" import rcu.txt --db e.db
expect_err 'lost 3 events'
v() { q e.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 1 AND name = '$1'"; }
[ "$(v gp.completed)" = 1 ] && [ "$(v gp.duration_max_ns)" = 3000000 ] && ok || bad "grace period: $(v gp.completed), $(v gp.duration_max_ns) ns"
[ "$(v cb.invoked)" = 2 ] && [ "$(v cb.latency_max_ns)" = 5000000 ] && ok || bad "callbacks: $(v cb.invoked), max $(v cb.latency_max_ns) ns"
[ "$(v cb.latency_mean_ns)" = 4875000 ] && ok || bad "latency mean $(v cb.latency_mean_ns) (5 ms and 4.75 ms)"

# Known waits. ksoftirqd/0: 10 us and 20 us to the switch into it, 300 us
# to its own first event (the switch lost), and a wakeup the trace ends in
# (not counted). The GP kthread, woken from CPU 0 onto CPU 1: 50 us, and
# 1000 us to its own event (its switch in lost). A percentile is the
# midpoint of the bin of its sample clamped to the extremes: 20 us lies in
# [19968, 20224), midpoint 20095.5; 50 us in [49664, 50176), midpoint
# 49919.5 clamped to 50000 (the least).
case=waits
cat >w.txt <<'EOF'
# tracer: nop
#
       churn-100     [000] d.h3.   100.000000: sched_wakeup: comm=ksoftirqd/0 pid=14 prio=120 target_cpu=000
       churn-100     [000] d..2.   100.000010: sched_switch: prev_comm=churn prev_pid=100 prev_prio=120 prev_state=R ==> next_comm=ksoftirqd/0 next_pid=14 next_prio=120
 ksoftirqd/0-14      [000] d..2.   100.000030: sched_switch: prev_comm=ksoftirqd/0 prev_pid=14 prev_prio=120 prev_state=S ==> next_comm=churn next_pid=100 next_prio=120
       churn-100     [000] d.h3.   100.001000: sched_wakeup: comm=ksoftirqd/0 pid=14 prio=120 target_cpu=000
       churn-100     [000] d..2.   100.001020: sched_switch: prev_comm=churn prev_pid=100 prev_prio=120 prev_state=R ==> next_comm=ksoftirqd/0 next_pid=14 next_prio=120
 ksoftirqd/0-14      [000] d..2.   100.001030: sched_switch: prev_comm=ksoftirqd/0 prev_pid=14 prev_prio=120 prev_state=S ==> next_comm=churn next_pid=100 next_prio=120
       churn-100     [000] d.h3.   100.002000: sched_wakeup: comm=ksoftirqd/0 pid=14 prio=120 target_cpu=000
 ksoftirqd/0-14      [000] ..s1.   100.002300: softirq_entry: vec=9 [action=RCU]
 ksoftirqd/0-14      [000] ..s1.   100.002310: softirq_exit: vec=9 [action=RCU]
 ksoftirqd/0-14      [000] d..2.   100.002320: sched_switch: prev_comm=ksoftirqd/0 prev_pid=14 prev_prio=120 prev_state=S ==> next_comm=churn next_pid=100 next_prio=120
       churn-100     [000] d.s3.   100.003000: sched_wakeup: comm=rcu_preempt pid=15 prio=120 target_cpu=001
          <idle>-0   [001] d..2.   100.003050: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=rcu_preempt next_pid=15 next_prio=120
 rcu_preempt-15      [001] d..2.   100.003060: sched_switch: prev_comm=rcu_preempt prev_pid=15 prev_prio=120 prev_state=I ==> next_comm=swapper/1 next_pid=0 next_prio=120
       churn-100     [000] d.s3.   100.004000: sched_wakeup: comm=rcu_preempt pid=15 prio=120 target_cpu=001
 rcu_preempt-15      [001] d..2.   100.005000: sched_switch: prev_comm=rcu_preempt prev_pid=15 prev_prio=120 prev_state=I ==> next_comm=swapper/1 next_pid=0 next_prio=120
       churn-100     [000] d.h3.   100.006000: sched_wakeup: comm=ksoftirqd/0 pid=14 prio=120 target_cpu=000
       churn-100     [000] d..2.   100.006100: sched_switch: prev_comm=churn prev_pid=100 prev_prio=120 prev_state=R ==> next_comm=kworker/0:1 next_pid=50 next_prio=120
EOF
expect_exit 0 "$RCUSIM" import w.txt --db w.db
want_scalars w.db "softirq.ksoftirqd_wakeups=4 softirq.ksoftirqd_wait_p50_ns=20095.5 softirq.ksoftirqd_wait_p99_ns=300000 \
softirq.ksoftirqd_wait_max_ns=300000 gp.kthread_wakeups=2 gp.kthread_wait_p50_ns=50000 gp.kthread_wait_p99_ns=1000000 \
gp.kthread_wait_max_ns=1000000"
[ "$(q w.db "SELECT sum(count) FROM hist WHERE run_id = 1 AND name = 'softirq.ksoftirqd_wait_ns'")" = 3 ] &&
	[ "$(q w.db "SELECT sum(count) FROM hist WHERE run_id = 1 AND name = 'gp.kthread_wait_ns'")" = 2 ] &&
	ok || bad "wait samples: 3 of ksoftirqd (the last wakeup still waiting), 2 of the GP kthread"
[ "$(awk -f "$SRC/tests/ksoftirqd_waits.awk" w.txt | cut -d' ' -f6,13-)" = \
	"3 kp50ns 20095.5 kp99ns 300000.0 gwaits 2 gp50ns 50000.0 gp99ns 1000000.0 gmaxns 1000000" ] &&
	ok || bad "awk's waits: $(awk -f "$SRC/tests/ksoftirqd_waits.awk" w.txt)"

# A task name may itself hold brackets and blanks (a thread gnuplot's
# pango starts is "[pango] FcInit"): its line is read and its wake-up of
# ksoftirqd counted.
case=comm_brackets
cat >br.txt <<'EOF'
# tracer: nop
#
   [pango] FcInit-21735   [000] d.h3.   100.000100: sched_wakeup: comm=ksoftirqd/0 pid=14 prio=120 target_cpu=000
   [pango] FcInit-21735   [000] d..2.   100.000200: sched_switch: prev_comm=[pango] FcInit prev_pid=21735 prev_prio=120 prev_state=S ==> next_comm=ksoftirqd/0 next_pid=14 next_prio=120
      ksoftirqd/0-14      [000] ..s1.   100.000300: softirq_entry: vec=9 [action=RCU]
      ksoftirqd/0-14      [000] ..s1.   100.000400: softirq_exit: vec=9 [action=RCU]
EOF
expect_exit 0 "$RCUSIM" import br.txt --db br.db
[ "$(q br.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 1 AND name = 'softirq.ksoftirqd_wakeups'")" = 1 ] &&
	[ "$(q br.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 1 AND name = 'softirq.passes_ksoftirqd'")" = 1 ] &&
	ok || bad "a comm with brackets and blanks: $(cat "$T/err")"

case=bad
printf '# tracer: nop\n  x-1 [000] .... 1.000000: sched_switch: prev_comm=x\nhello world\n' >bad.txt
expect_exit 2 "$RCUSIM" import bad.txt --db b.db
expect_err 'bad.txt:3: not a trace line: hello world'
[ ! -e b.db ] || [ "$(q b.db 'SELECT count(*) FROM run')" = 0 ] && ok || bad "a refused import left a run"
printf '  x-1 [12345678] .... 1.000000: sched_switch: prev_comm=x\n' >cpu.txt
expect_exit 2 "$RCUSIM" import cpu.txt --db b.db
expect_err 'cpu.txt:1: not a trace line'
head -c 2000 rt.txt >cut.txt
expect_exit 0 "$RCUSIM" import cut.txt --db c.db
expect_err 'cut.txt is truncated'
expect_exit 2 "$RCUSIM" import nonexistent.txt --db c.db
expect_err 'nonexistent.txt'
printf '# tracer: nop\n#\n' >empty.txt
expect_exit 2 "$RCUSIM" import empty.txt --db c.db
expect_err 'no trace events'
finish
