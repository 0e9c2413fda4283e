#!/bin/sh
# validation.sh RCUSIM SRCDIR - the fast rows of docs/validation.md: the
# dev-vm-churn scenario beside the traced box it models
# (tests/data/tracefs-churn-6.18-hz250.txt.gz: 2 vCPUs, 6.18, HZ 250, one
# file-churn loop per CPU), within issue 48's bands: RCU passes at irq exit
# and in ksoftirqd and context switches within 0.75-1.33x of the box, the
# share of ksoftirqd's waits over 1 ms within 2 points of the box's. The
# rows that do not agree yet (ksoftirqd wake-ups, 1.55x; GP-kthread
# wake-ups, 1.39x) are printed, not held: docs/validation.md says what is
# known of them. Then the step test of softirq.effect_at_pass
# (handle_softirqs()' restart test after the pass whose rcu_core() woke the
# GP kthread on its CPU), with sched.autogroup off to isolate it: off, few
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
echo "not held: ksoftirqd wake-ups/s model $(s softirq.ksoftirqd_wakeups), box $(b kw);" \
	"GP kthread wake-ups/s model $(s gp.kthread_wakeups), box $(b gw)" >&2
# softirq.effect_at_pass, off and on, one simulated second each.
for ep in no yes; do
	expect_exit 0 "$RCUSIM" run "$SRC/scenarios/dev-vm-churn.ini" --db e$ep.db --quiet --duration 1s \
		--set softirq.effect_at_pass=$ep --set sched.autogroup=no
done
e() { q e$1.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 1 AND name = '$2'"; }
if [ "$(e no softirq.runs_ended_need_resched)" -lt 30 ] && [ "$(e yes softirq.runs_ended_need_resched)" -gt 60 ]; then
	ok
else
	bad "runs ended on need_resched: off $(e no softirq.runs_ended_need_resched), on $(e yes softirq.runs_ended_need_resched) (wanted < 30 and > 60)"
fi
near "passes at irq exit, off against on" "$(e no softirq.passes_irq_exit)" "$(e yes softirq.passes_irq_exit)" 1.3 1.6
finish
