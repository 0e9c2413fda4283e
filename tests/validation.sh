#!/bin/sh
# validation.sh RCUSIM SRCDIR - the fast rows of docs/validation.md: the
# dev-vm-churn scenario beside the traced box it models
# (tests/data/tracefs-churn-6.18-hz250.txt.gz: 2 vCPUs, 6.18, HZ 250, one
# file-churn loop per CPU), within issue 48's bands: RCU passes at irq exit
# and in ksoftirqd and context switches within 0.75-1.33x of the box, the
# share of ksoftirqd's waits over 1 ms within 2 points of the box's, and
# ksoftirqd and GP-kthread wake-ups within 0.75-1.33x (1.58x and 1.40x
# before irq.timer_round_up: the FQS wait one jiffy longer lets the ticks'
# quiescent states end most grace periods first, as on the box). Then the
# placement of the GP kthread (rcu.gp_kthread_cpu = auto), then the
# step test of softirq.effect_at_pass
# (handle_softirqs()' restart test after the pass whose rcu_core() woke the
# GP kthread on its CPU), with sched.autogroup off, the kthread pinned
# to CPU 0 (rcu.gp_kthread_cpu = 0) and every system call one length
# (workload.kstretch_sigma = 0; with 0.3 the ratio below is 1.30) to
# isolate it: off, few
# runs end on need_resched and irq exits make 1.3-1.6x the passes they make
# with it on.
. "$(dirname "$0")/lib.sh"
trace=$SRC/tests/data/tracefs-churn-6.18-hz250.txt.gz
gzip -dc "$trace" | awk -f "$SRC/tests/trace_counts.awk" >box || bad "cannot read $trace"
dur=$(gzip -dc "$trace" | awk -f "$SRC/tests/ksoftirqd_waits.awk" | awk '{ print $2 }')
b() { awk -v k="$1" -v d="$dur" '$1 == k { print $2 / d }' box; }
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/dev-vm-churn.ini" --db m.db --quiet --duration 5s \
	--trace m.txt --trace-format ftrace
s() { q m.db "SELECT value / 5 FROM scalar WHERE run_id = 1 AND name = '$1'"; }
near() {
	if awk -v m="$2" -v r="$3" -v lo="$4" -v hi="$5" 'BEGIN { exit !(r > 0 && m / r >= lo && m / r <= hi) }'
	then ok; else bad "$1: model $2, the box $3 (ratio wanted in [$4, $5])"; fi
}
near "RCU passes at irq exit/s" "$(s softirq.passes_irq_exit)" "$(b po)" 0.75 1.33
near "RCU passes in ksoftirqd/s" "$(s softirq.passes_ksoftirqd)" "$(b pk)" 0.75 1.33
near "context switches/s" "$(s sched.ctxsw)" "$(b sw)" 0.75 1.33
# The share of ksoftirqd's waits over 1 ms (the 4th field: "over1ms N%").
mw=$(awk -f "$SRC/tests/ksoftirqd_waits.awk" m.txt)
bw=$(gzip -dc "$trace" | awk -f "$SRC/tests/ksoftirqd_waits.awk")
if awk -v m="$(echo "$mw" | awk '{ print $8 + 0 }')" -v b="$(echo "$bw" | awk '{ print $8 + 0 }')" \
	'BEGIN { exit !(m - b <= 2 && b - m <= 2) }'; then ok; else bad "ksoftirqd waits: model $mw, box $bw"; fi
near "ksoftirqd wake-ups/s" "$(s softirq.ksoftirqd_wakeups)" "$(b kw)" 0.75 1.33
near "GP kthread wake-ups/s" "$(s gp.kthread_wakeups)" "$(b gw)" 0.75 1.33
# rcu.gp_kthread_cpu = auto (opt-in): select_task_rq_fair() with both
# CPUs busy keeps the GP kthread on its previous CPU unless the waker's
# load average is 8% below it (wake_affine_weight(), imbalance_pct 117).
# The box: of 90 wake-ups from the other CPU, 3 moved it to the waker
# (3.3%); the model 3.9% over 10 s. Held: some move, at most 15%. Without
# background activity: with it the model moves the kthread on about half
# of them (docs/validation.md, not yet analysed); and with every system
# call one length (workload.kstretch_sigma = 0): with the scenario's 0.3
# the model moves it on 27% (209 of 767 in 5 s), not analysed either.
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/dev-vm-churn.ini" --db a.db --quiet --duration 5s \
	--trace a.txt --trace-format ftrace --set rcu.gp_kthread_cpu=auto --set machine.background=no \
	--set workload.kstretch_sigma=0
rw=$(q a.db "SELECT value / 5 FROM scalar WHERE run_id = 1 AND name = 'gp.kthread_remote_wakeups'")
ow=$(q a.db "SELECT value / 5 FROM scalar WHERE run_id = 1 AND name = 'gp.kthread_on_waker'")
if awk -v r="$rw" -v o="$ow" 'BEGIN { exit !(r > 50 && o > 0 && o / r <= 0.15) }'; then ok
else bad "GP kthread placement: $ow of $rw remote wake-ups/s on the waker (wanted some, at most 15%)"; fi
# The trace says the same: each sched_wakeup of rcu_preempt on the waking
# CPU's line with its target, and the kthread switched in on the target.
if awk 'function cpu(){ c = $0; sub(/.*\[/, "", c); return substr(c, 1, 3) + 0 }
	BEGIN { want = -1 }
	/sched_wakeup: comm=rcu_preempt/ { t = $0; sub(/.*target_cpu=/, "", t); want = t + 0; n++; if (cpu() != want) r++ }
	/sched_switch:.*next_comm=rcu_preempt/ { if (want >= 0 && cpu() != want) bad++; want = -1 }
	END { exit !(n > 100 && r > 0 && !bad) }' a.txt; then ok
else bad "trace: rcu_preempt not switched in on its wake-up's target_cpu, or no remote wake-up"; fi
# softirq.effect_at_pass, off and on, one simulated second each.
for ep in no yes; do
	expect_exit 0 "$RCUSIM" run "$SRC/scenarios/dev-vm-churn.ini" --db e$ep.db --quiet --duration 1s \
		--set softirq.effect_at_pass=$ep --set sched.autogroup=no --set machine.background=no \
		--set rcu.gp_kthread_cpu=0 --set workload.kstretch_sigma=0
done
e() { q e$1.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 1 AND name = '$2'"; }
if [ "$(e no softirq.runs_ended_need_resched)" -lt 30 ] && [ "$(e yes softirq.runs_ended_need_resched)" -gt 60 ]; then
	ok
else
	bad "runs ended on need_resched: off $(e no softirq.runs_ended_need_resched), on $(e yes softirq.runs_ended_need_resched) (wanted < 30 and > 60)"
fi
near "passes at irq exit, off against on" "$(e no softirq.passes_irq_exit)" "$(e yes softirq.passes_irq_exit)" 1.3 1.6
# Background activity (machine.background, on in the 6.x presets): the idle
# 2-vCPU 6.18 guest recorded with `rcusim record --load none`
# (tests/data/rec-idle-6.18-hz250.txt.gz, 10 s) against the same box's
# scenario with no load, per CPU per second: ticks and context switches
# within 0.75-1.33x (the rates are fitted to this trace; the switches
# follow from the scheduler's rules: two per wake-up from idle). At the
# presets' background rate, the idle box's: the scenario's own 14/s is its
# trace's, recorded beside the loop.
idle_tr=$SRC/tests/data/rec-idle-6.18-hz250.txt.gz
gzip -dc "$idle_tr" | awk -f "$SRC/tests/background_rates.awk" >ibox || bad "cannot read $idle_tr"
ib() { awk -v c="$1" '$1 == "mean" { print $c }' ibox; }
bgw=$("$RCUSIM" params background.wakeups | awk 'NR == 1 { print $3 }')
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/dev-vm-churn.ini" --db i.db --quiet --duration 5s --set workload.jobs=0 \
	--set background.wakeups="$bgw"
is() { q i.db "SELECT value / 10 FROM scalar WHERE run_id = 1 AND name = '$1'"; }
near "idle ticks/s a CPU" "$(is tick.taken)" "$(ib 2)" 0.75 1.33
near "idle context switches/s a CPU" "$(is sched.ctxsw)" "$(ib 6)" 0.75 1.33
# Published: synchronize_rcu() on idle HZ 1000 boxes, one caller, the GP
# kthread on another CPU. 32 CPUs: 10.05-10.16 ms mean (Joel Fernandes,
# "rcu: Reduce synchronize_rcu() latency by reporting GP kthread's CPU QS
# early", 2025: two FQS rounds, the kthread's CPU the holdout at the first).
# 36 CPUs: ~9.5 ms, and ~4 ms with rcu_normal_wake_from_gp (58% faster;
# "rcu: Fix synchronize_rcu latency by removing CPU threshold for
# wake_from_gp", 2025). Held within 0.9-1.1x, 0.85-1.15x and the speed-up
# within 50-66%.
idle() {
	cores=$1 wfg=$2
	shift 2
	"$RCUSIM" run "$SRC/scenarios/x86-256-syncrcu-6.12.ini" --quiet --db idle.db --duration 2s \
		--set machine.cores="$cores" --set machine.threads_per_core=2 --set machine.hz=1000 \
		--set workload.jobs=1 --set rcu.normal_wake_from_gp="$wfg" "$@" >/dev/null 2>&1 ||
		bad "idle run $cores cores, wake from GP $wfg"
	q idle.db "SELECT value FROM scalar WHERE run_id = (SELECT max(run_id) FROM run) AND name = 'syncrcu.latency_mean_ns'"
}
# Placed (rcu.gp_kthread_cpu = auto, first on the last CPU), without
# background activity, the GP kthread stays there: woken from an idle CPU
# with its previous CPU idle, wake_affine_idle() and select_idle_sibling()
# keep it on prev, and the call takes what the pinned kthread's does.
a32=$(idle 16 no --set rcu.gp_kthread_cpu=auto --set machine.background=no)
[ "$(q idle.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 1 AND name = 'gp.kthread_migrations'")" = 0 ] &&
	ok || bad "idle box: the GP kthread migrated"
near "idle 32 CPUs, placed kthread, no background: mean, ns" "$a32" 10000000 0.99 1.01
# The presets' kthread, pinned, on CPU 1 (the caller is on CPU 0).
i32=$(idle 16 no --set rcu.gp_kthread_cpu=1)
i36=$(idle 18 no --set rcu.gp_kthread_cpu=1); w36=$(idle 18 yes --set rcu.gp_kthread_cpu=1)
near "idle 32 CPUs synchronize_rcu() mean, ns" "$i32" 10100000 0.9 1.1
near "idle 36 CPUs synchronize_rcu() mean, ns" "$i36" 9500000 0.85 1.15
near "idle 36 CPUs with wake from GP, ns" "$w36" 4000000 0.85 1.15
if awk -v a="$i36" -v b="$w36" 'BEGIN { f = 1 - b / a; exit !(f >= 0.5 && f <= 0.66) }'; then ok
else bad "wake from GP on 36 CPUs: $i36 -> $w36 ns (published 58% faster)"; fi
# Spread (issue 49): with background activity the calls of one run and the
# seeds differ; the mean stays held above.
idle_seed() {
	"$RCUSIM" run "$SRC/scenarios/x86-256-syncrcu-6.12.ini" --quiet --db sp.db --duration 2s \
		--set machine.cores=16 --set machine.threads_per_core=2 --set machine.hz=1000 \
		--set workload.jobs=1 --set rcu.gp_kthread_cpu=1 --seed "$1" >/dev/null 2>&1 || bad "spread run seed $1"
}
rm -f sp.db; idle_seed 1; idle_seed 2
sp() { q sp.db "SELECT value FROM scalar WHERE run_id = $1 AND name = 'syncrcu.latency_$2_ns'"; }
# Calls shorter than the two FQS rounds pull the mean below the median.
if [ "$(sp 1 mean)" != "$(sp 2 mean)" ] && awk -v m="$(sp 1 mean)" -v a="$(sp 1 p50)" 'BEGIN { exit !(m < 0.97 * a) }'; then ok
else bad "no spread: seed 1 mean $(sp 1 mean) p50 $(sp 1 p50) max $(sp 1 max), seed 2 mean $(sp 2 mean)"; fi
# synchronize_rcu() on the 2-vCPU 6.18 guest: membarrier(MEMBARRIER_CMD_GLOBAL)
# back to back, pinned per CPU (`rcusim record --load sync`; 2 s cuts in
# tests/data, imported here: the box's figure is the cut's). One caller:
# wake-from-GP halves the call (the published direction); two callers, one
# per CPU: no gain, the callers alternate grace periods
# (machine.idle_wake_latency: the remote waiter misses the grace period its
# peer's call starts). Means held within 0.9-1.15x of the box's; the
# callback path with two callers is 1.07x (the tick order within a jiffy,
# docs/validation.md). The 1-caller callback path is the recording's 16.05
# ms (8 s, not kept: its cut is 150 KB).
sbox() {
	"$RCUSIM" import "$SRC/tests/data/rec-sync-$1-6.18-hz250.txt.gz" --db "sb-$1.db" >/dev/null 2>&1 || bad "import $1"
	q "sb-$1.db" "SELECT value FROM scalar WHERE name = 'syncrcu.latency_mean_ns'"
}
smod() {
	"$RCUSIM" run "$SRC/scenarios/dev-vm-syncrcu.ini" --quiet --db "sm-$1-$2.db" --duration 2s \
		--set workload.jobs="$1" --set rcu.normal_wake_from_gp="$2" >/dev/null 2>&1 || bad "model $1 callers wfg $2"
	q "sm-$1-$2.db" "SELECT value FROM scalar WHERE run_id = 1 AND name = 'syncrcu.latency_mean_ns'"
}
m1y=$(smod 1 yes); m1n=$(smod 1 no); m2y=$(smod 2 yes); m2n=$(smod 2 no)
near "sync, 1 caller, wake from GP: mean ns" "$m1y" "$(sbox 1caller-wfg1)" 0.9 1.15
near "sync, 1 caller, callback path: mean ns" "$m1n" 16050000 0.9 1.15
near "sync, 2 callers, wake from GP: mean ns" "$m2y" "$(sbox 2callers-wfg1)" 0.9 1.15
near "sync, 2 callers, callback path: mean ns" "$m2n" "$(sbox 2callers-wfg0)" 0.9 1.15
# The directions: one caller about halved, two callers not faster.
near "sync, 1 caller: wake from GP / callback path" "$m1y" "$m1n" 0.4 0.6
near "sync, 2 callers: wake from GP / callback path" "$m2y" "$m2n" 0.95 1.25
# The box's own callbacks (background.callbacks, off in the presets; docs/
# validation.md "the box's own callbacks"): at the idle recording's 6.8 a
# second a CPU in bursts of 4.5, one caller's calls that find a background
# grace period in progress wait for it and one more, as the bgcb
# recording's do (8 s, 974 calls, rcu_normal_wake_from_gp 1): p99 within
# 0.9-1.1x, and the share of calls over 10 ms within 0.5-2x (box 3.0%).
sbox 1caller-bgcb >/dev/null
"$RCUSIM" run "$SRC/scenarios/dev-vm-syncrcu.ini" --quiet --db smcb.db --duration 10s --set workload.jobs=1 \
	--set rcu.normal_wake_from_gp=yes --set background.callbacks=6.8/s --set background.callback_batch=4.5 \
	>/dev/null 2>&1 || bad "model with the box's callbacks"
p99() { q "$1" "SELECT value FROM scalar WHERE run_id = 1 AND name = 'syncrcu.latency_p99_ns'"; }
over10() { q "$1" "SELECT 1.0 * sum(CASE WHEN lo >= 10e6 THEN count ELSE 0 END) / sum(count) FROM hist WHERE run_id = 1 AND name = 'syncrcu.latency_ns'"; }
near "sync, 1 caller, the box's callbacks: p99 ns" "$(p99 smcb.db)" "$(p99 sb-1caller-bgcb.db)" 0.9 1.1
near "sync, 1 caller, the box's callbacks: share over 10 ms" "$(over10 smcb.db)" "$(over10 sb-1caller-bgcb.db)" 0.5 2
near "sync, 1 caller, without them: p99 ns (one grace period)" "$(p99 sm-1-yes.db)" 8030000 0.95 1.05
finish
