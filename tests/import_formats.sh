#!/bin/sh
# import_formats.sh RCUSIM SRCDIR - rcusim import of one recording in every
# form a kernel developer produces, and of what real recordings get wrong.
#
# The recording (tests/data/rec-pipe-6.18*): this project's 2-CPU guest,
# Linux 6.18, HZ 250, CONFIG_RCU_TRACE off, 2 s of a pipe()/close() load
# pinned to each CPU (6 pipes every 25 ms), recorded by trace-cmd 3.1.6 into
# an instance:
#   trace-cmd start -B rcusim -b 4096 -e irq:softirq_entry -e irq:softirq_exit
#     -e sched:sched_switch -e sched:sched_wakeup -e rcu:rcu_utilization
#     -e kmem:kmem_cache_free -f 'call_site >= RCU_DO_BATCH && call_site < NEXT'
#   (the load); trace-cmd stop -B rcusim
#   cat /sys/kernel/tracing/instances/rcusim/trace  -> rec-pipe-6.18-tracefs.txt
#   trace-cmd extract -B rcusim -o rec-pipe-6.18.dat
#   trace-cmd report [-N | -l] rec-pipe-6.18.dat    -> rec-pipe-6.18-report[-N|-l].txt
# (the box forbids function tracing, which trace-cmd resets: it ran in a
# mount namespace with its set_ftrace_* files, /proc/sys/kernel/ftrace_enabled,
# and, to keep trace.dat small, /proc/kallsyms and the event formats of other
# systems bound over).
# - the five forms import to identical metrics, parameters and series, and
#   the counts are those awk counts in the tracefs text;
# - unmatched softirq events at the start (softirq_entry enabled first) are
#   skipped and said, not a 24 ms run;
# - a ksoftirqd wait whose switch the trace lost ends at ksoftirqd's first
#   event, not at a later switch;
# - sched_switch filtered to some tasks: found, said, and sched.ctxsw from
#   rcu_utilization;
# - HZ of an idle NO_HZ trace: unknown, said, not a guess;
# - a metric whose events the trace lacks is absent, not 0;
# - a replay (workload.kind = trace) without rcu_callback says it carries no
#   call_rcu().
. "$(dirname "$0")/lib.sh"
D=$SRC/tests/data
base=rec-pipe-6.18

# scalars DB RUN: the run's scalars, one "name=value" a line.
scalars() { q "$1" "SELECT name || '=' || printf('%.17g', value) FROM scalar WHERE run_id = $2 ORDER BY name"; }
params() { q "$1" "SELECT name || '=' || value FROM param WHERE run_id = $2 AND name != 'trace.file' ORDER BY name"; }
points() { q "$1" "SELECT count(*) || ' ' || printf('%.17g', sum(value)) FROM point JOIN series USING (series_id) WHERE run_id = $2"; }

case=forms
run=0
for f in "$base-tracefs.txt.gz" "$base-report.txt.gz" "$base-report-N.txt.gz" "$base-report-l.txt.gz" "$base.dat"; do
	expect_exit 0 "$RCUSIM" import "$D/$f" --db f.db
	run=$((run + 1))
	expect_err_line "rcusim import: $D/$f: no rcu: callback events (CONFIG_RCU_TRACE off): cb.invoked counts the 970 kmem_cache_free/kfree called from rcu_do_batch"
	if [ $run -gt 1 ]; then
		[ "$(scalars f.db $run)" = "$(scalars f.db 1)" ] && ok ||
			bad "$f: scalars differ from the tracefs text's: $(scalars f.db $run | diff - "$T/s1" | head -5)"
		[ "$(params f.db $run)" = "$(params f.db 1)" ] && ok || bad "$f: parameters differ"
		[ "$(points f.db $run)" = "$(points f.db 1)" ] && ok || bad "$f: series differ"
	else
		scalars f.db 1 >"$T/s1"
	fi
done
[ "$(q f.db "SELECT count(*) FROM scalar WHERE run_id = 1")" -ge 10 ] && ok || bad "too few scalars"
gzip -dc "$D/$base-tracefs.txt.gz" | awk -f "$SRC/tests/trace_counts.awk" >hand
c() { awk -v k="$1" '$1 == k { print $2 }' hand; }
for m in "softirq.passes_ksoftirqd pk" "softirq.passes_irq_exit po" "softirq.ksoftirqd_wakeups kw" \
	"sched.ctxsw sw" "gp.kthread_wakeups gw" "softirq.runs_irq_exit ri"; do
	set -- $m
	got=$(q f.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 5 AND name = '$1'")
	[ -n "$got" ] && [ "$got" = "$(c "$2")" ] && ok || bad "$1: imported $got, counted by hand $(c "$2")"
done
want_scalars f.db "cb.invoked=970"
[ "$(q f.db "SELECT value FROM param WHERE run_id = 5 AND name = 'trace.hz'")" = 250 ] && ok || bad "trace.hz"
[ "$(q f.db "SELECT value FROM param WHERE run_id = 5 AND name = 'trace.lines'")" = 9583 ] && ok || bad "trace.lines"

case=unmatched
# softirq_entry enabled before softirq_exit: two entries with no exit, then
# a real 10 us pass. Before: one 24 ms run and 2 passes.
cat >um.txt <<'EOF'
          <idle>-0       [000] ..s1.   100.000000: softirq_entry: vec=9 [action=RCU]
          <idle>-0       [000] ..s1.   100.001000: softirq_entry: vec=1 [action=TIMER]
          <idle>-0       [000] ..s1.   100.024000: softirq_entry: vec=9 [action=RCU]
          <idle>-0       [000] ..s1.   100.024010: softirq_exit: vec=9 [action=RCU]
          <idle>-0       [000] d..2.   100.024020: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=5 next_prio=120
               x-5       [000] ..s1.   100.030000: softirq_exit: vec=1 [action=TIMER]
EOF
expect_exit 0 "$RCUSIM" import um.txt --db um.db
expect_err '3 unmatched softirq_entry/exit events skipped'
want_scalars um.db "softirq.passes_irq_exit=1 softirq.irq_run_max_ns=10000 softirq.runs_irq_exit=1"

case=ksd_wait
# The switch into ksoftirqd/1 is missing: its wait ends at its own first
# event (1 ms), not at the next switch into it 20 ms on.
cat >kw.txt <<'EOF'
          <idle>-0       [001] d.h2.   200.000000: sched_wakeup: comm=ksoftirqd/1 pid=22 prio=120 target_cpu=001
     ksoftirqd/1-22      [001] ..s1.   200.001000: softirq_entry: vec=9 [action=RCU]
     ksoftirqd/1-22      [001] ..s1.   200.001100: softirq_exit: vec=9 [action=RCU]
     ksoftirqd/1-22      [001] d..2.   200.002000: sched_switch: prev_comm=ksoftirqd/1 prev_pid=22 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          <idle>-0       [001] d.h2.   200.019000: sched_wakeup: comm=ksoftirqd/1 pid=22 prio=120 target_cpu=001
          <idle>-0       [001] d..2.   200.020000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ksoftirqd/1 next_pid=22 next_prio=120
EOF
expect_exit 0 "$RCUSIM" import kw.txt --db kw.db
want_scalars kw.db "softirq.ksoftirqd_wait_max_ns=1000000 softirq.ksoftirqd_wakeups=2 softirq.passes_ksoftirqd=1"
# report -l cuts the comm to 8 characters: ksoftirqd known by its pid.
sed 's/^ *ksoftirqd\/1-22 *\[001\] \([^ ]*\) /ksoftirq-22     1\1 /; s/^ *<idle>-0 *\[001\] \([^ ]*\) /  <idle>-0       1\1 /' kw.txt >kwl.txt
expect_exit 0 "$RCUSIM" import kwl.txt --db kw.db
want_scalars kw.db "softirq.ksoftirqd_wait_max_ns=1000000 softirq.passes_ksoftirqd=1"

case=filtered
# sched_switch filtered to the load's tasks (trace-cmd -f 'prev_comm == "load"
# || next_comm == "load"'): the switches do not chain; sched.ctxsw counts
# rcu_utilization's context switches, and says so.
gzip -dc "$D/$base-tracefs.txt.gz" | awk '!/sched_switch:/ || /_comm=load /' >flt.txt
cs=$(grep -c 'rcu_utilization: Start context switch' flt.txt)
kept=$(grep -c 'sched_switch:' flt.txt)
expect_exit 0 "$RCUSIM" import flt.txt --db flt.db
expect_err "sched_switch was filtered \\([0-9]+ of its $kept events leave another task"
want_scalars flt.db "sched.ctxsw=$cs"
[ "$kept" -lt "$cs" ] && ok || bad "the filter kept $kept of $cs"

case=lost_switches
# The quiet idle recording (rcusim record, 10 s, 2 CPUs): 2375 sched_switch
# and as many rcu_utilization "Start context switch". 30 switches leave
# another task than their CPU's last switch entered, each after a switch
# into the sandbox agent's tokio-rt-worker (pid 95 or 96), whose switches
# out the trace lacks in both events (of its own events only 3 hardirq
# wake-ups are there): switches the trace lacks, not a filter. sched.ctxsw
# counts the 2375 recorded, as calibrate does (trace_switch_filtered()).
idle=$D/rec-idle-6.18-hz250.txt.gz
gzip -dc "$idle" >idle.txt
[ "$(grep -c 'sched_switch:' idle.txt) $(grep -c 'Start context switch' idle.txt)" = "2375 2375" ] && ok ||
	bad "the fixture's switches: $(grep -c 'sched_switch:' idle.txt) $(grep -c 'Start context switch' idle.txt)"
brk=$(awk '/sched_switch:/ { c = $0; sub(/.*\[0*/, "", c); sub(/\].*/, "", c)
	p = $0; sub(/.*prev_pid=/, "", p); sub(/ .*/, "", p); n = $0; sub(/.*next_pid=/, "", n); sub(/ .*/, "", n)
	if ((c in last) && last[c] != p) { b++; if (lastc[c] != "tokio-rt-worker") o++ }
	last[c] = n; lc = $0; sub(/.*next_comm=/, "", lc); sub(/ next_pid=.*/, "", lc); lastc[c] = lc }
	END { print b + 0, o + 0 }' idle.txt)
[ "$brk" = "30 0" ] && ok || bad "awk's breaks (all, not after tokio-rt-worker): $brk"
expect_exit 0 "$RCUSIM" import idle.txt --db idle.db
expect_err 'import: [a-z]*.txt: 30 of the 2375 sched_switch events leave another task .*: switches the trace lacks, not a filter \(rcu_utilization.s "Start context switch" lacks them too\); sched.ctxsw counts the 2375 recorded$'
grep -q 'was filtered' err && bad "said filtered: $(grep filtered err)" || ok
want_scalars idle.db "sched.ctxsw=2375"
# Without rcu_utilization's context switches the chain decides: 30 breaks,
# under a tenth of the switches, the same answer.
grep -v 'context switch' idle.txt >nocs.txt
expect_exit 0 "$RCUSIM" import nocs.txt --db idle.db
expect_err 'import: [a-z]*.txt: 30 of the 2375 sched_switch events .*not a filter \(no rcu_utilization, and under a tenth of them\)'
want_scalars idle.db "sched.ctxsw=2375"
# A third of the switches left out, without rcu_utilization: filtered, no
# sched.ctxsw (a metric the trace cannot give is absent).
awk '!/sched_switch:/ || NR % 3' nocs.txt >nocs3.txt
expect_exit 0 "$RCUSIM" import nocs3.txt --db nocs3.db
expect_err 'sched_switch was filtered \([0-9]+ of its [0-9]+ events leave another task .* there is no rcu_utilization: no sched.ctxsw'
[ "$(q nocs3.db "SELECT count(*) FROM scalar WHERE name = 'sched.ctxsw'")" = 0 ] && ok || bad "sched.ctxsw of a filtered trace"

case=hz
# An idle NO_HZ CPU ticks at scattered intervals: HZ unknown, said (before:
# the median interval's 36).
awk 'BEGIN { t = 300; split("3 17 29 41 23 55 31 19 47 37 61 13 43 27 53 33", d, " ");
	for (i = 1; i <= 16; i++) { t += d[i] / 1000;
		printf "          <idle>-0       [000] d.h1. %.6f: rcu_utilization: Start scheduler-tick\n", t } }' >idle.txt
expect_exit 0 "$RCUSIM" import idle.txt --db hz.db
expect_err 'HZ unknown: 15 intervals between a CPU.s ticks'
[ "$(q hz.db "SELECT value FROM param WHERE name = 'trace.hz'")" = 0 ] && ok || bad "trace.hz of an idle trace"

case=absent
# Only ticks: no softirq, wake-up, switch or callback metric, each said.
for m in softirq.passes_irq_exit softirq.ksoftirqd_wakeups softirq.ksoftirqd_wait_max_ns sched.ctxsw \
	gp.kthread_wakeups cb.invoked; do
	[ "$(q hz.db "SELECT count(*) FROM scalar WHERE name = '$m'")" = 0 ] && ok || bad "$m recorded without its events"
done
expect_err 'no softirq_entry/exit events: no softirq metric'
expect_err 'no sched_wakeup events: no wake-up metric'
expect_err 'no sched_switch or rcu_utilization events: no sched.ctxsw'

case=buffers
# Two buffers' events (report of a trace.dat with the top buffer and an
# instance): refused, naming the line.
{ gzip -dc "$D/$base-report.txt.gz" | sed -n 2,3p; gzip -dc "$D/$base-report.txt.gz" | sed -n 4p | sed 's/^rcusim: //'; } >two.txt
expect_exit 2 "$RCUSIM" import two.txt --db two.db
expect_err 'two.txt:3: an event of another buffer'

case=damaged_dat
# A file that starts as trace.dat does (its magic) but is cut: refused,
# exit 2, saying so (under ASan a leak on this path changes the exit code).
printf '\027\010Dtracing6\000\000\000\000garbage' >cut.dat
expect_exit 2 "$RCUSIM" import cut.dat --db cut.db
expect_err 'cut.dat: libtracecmd cannot read it as trace.dat'

case=replay
# A replay of a recording without rcu_callback carries no call_rcu(): said;
# one with them is not.
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/dev-vm-replay.ini" --duration 100ms --db rp.db --quiet
expect_err 'warning: .*workload.trace_file.*tracefs-churn-6.18-hz250.txt.gz has no rcu_callback events .*carries no call_rcu'
printf '[workload]\nkind = trace\ntrace_file = %s\n[scenario]\nduration = 100ms\n' \
	"$D/replay-2cpu-ftrace.txt" >rc.ini
expect_exit 0 "$RCUSIM" run rc.ini --db rp.db --quiet
grep -q 'no rcu_callback' err && bad "a replay with rcu_callback warned" || ok
finish
