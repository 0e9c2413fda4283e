#!/bin/sh
# trace_dat.sh RCUSIM SRCDIR - rcusim run --trace FILE.dat: trace.dat with
# the kernel's event formats (trace/datw.c), as trace-cmd and KernelShark read
# a recorded one.
# - the real `trace-cmd report` (Debian's trace-cmd, in the test profile of
#   scripts/setup-debian.sh) reads a run's trace.dat, and its events, by
#   name, are the run's own: the same counts as the run's tracefs text of the
#   same seed; with -N each line is the text's but for its flags column;
# - rcusim import reads the run's trace.dat back to the counts of its text;
# - --trace-window and --trace-cpus hold for trace.dat as for the text.
. "$(dirname "$0")/lib.sh"
scen=$SRC/scenarios/dev-vm-churn.ini

# counts FILE: "N event" per event name of tracefs-form text on stdin.
counts() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[a-z_]+:$/ && $(i - 1) ~ /^[0-9.]+:$/) { print $i; break } }' | sort | uniq -c; }

case=write
expect_exit 0 "$RCUSIM" run "$scen" --set machine.background=no --set rcu.core_cost_sigma=0 --duration 300ms --db r.db --quiet --trace run.dat
expect_exit 0 "$RCUSIM" run "$scen" --set machine.background=no --set rcu.core_cost_sigma=0 --duration 300ms --db r.db --quiet --trace run.txt
printf '\027\010\104tracing6' >magic
head -c 11 run.dat | cmp -s - magic && ok || bad "trace.dat's magic and version 6"
grep -v '^#' run.txt | counts >want
[ "$(wc -l <want)" -ge 8 ] && ok || bad "the text has too few kinds of event: $(cat want)"
if command -v trace-cmd >/dev/null 2>&1; then
	case=trace-cmd
	expect_exit 0 trace-cmd report run.dat
	grep -v '^cpus=' "$T/out" | counts >got
	diff want got >/dev/null && ok || bad "trace-cmd report's events differ from the run's: $(diff want got | head -5)"
	# -N prints the kernel's formats: the text's lines but for the flags column and padding.
	expect_exit 0 trace-cmd report -N run.dat
	grep -v '^cpus=' "$T/out" | sed 's/  */ /g; s/^ //' | sort >n.txt
	grep -v '^#' run.txt | sed 's/\] [^ ]* /] /; s/  */ /g; s/^ //' | sort >t.txt
	# The text's times are cut to the microsecond, report's rounded: compare
	# all but the time. libtraceevent prints rcu_batch_end's idle=%c%c%c%c
	# of char literals (the kernel's own format) as ">c<": as for a real
	# kernel's recording; its flags left out.
	sed 's/ [0-9]*\.[0-9]*: / /; s/ idle=.*//' n.txt | sort >n2.txt
	sed 's/ [0-9]*\.[0-9]*: / /; s/ idle=.*//' t.txt | sort >t2.txt
	diff n2.txt t2.txt >/dev/null && ok || bad "report -N's lines differ from the text's: $(diff n2.txt t2.txt | head -4)"
else
	echo "SKIP: trace-cmd is not installed (scripts/setup-debian.sh test installs it): trace-cmd report not run"
fi

case=import
expect_exit 0 "$RCUSIM" import run.dat --db i.db
expect_exit 0 "$RCUSIM" import run.txt --db i.db
for n in softirq.passes_irq_exit softirq.passes_ksoftirqd softirq.ksoftirqd_wakeups gp.kthread_wakeups \
	cb.invoked gp.completed sched.ctxsw softirq.runs_irq_exit; do
	a=$(q i.db "SELECT value FROM scalar WHERE run_id = 1 AND name = '$n'")
	b=$(q i.db "SELECT value FROM scalar WHERE run_id = 2 AND name = '$n'")
	[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "$n: trace.dat $a, text $b"
done

case=window
expect_exit 0 "$RCUSIM" run "$scen" --set machine.background=no --set rcu.core_cost_sigma=0 --duration 300ms --db r.db --quiet --trace w.dat --trace-window 100ms..200ms --trace-cpus 1
expect_exit 0 "$RCUSIM" run "$scen" --set machine.background=no --set rcu.core_cost_sigma=0 --duration 300ms --db r.db --quiet --trace w.txt --trace-window 100ms..200ms --trace-cpus 1
expect_exit 0 "$RCUSIM" import w.dat --db w.db
n=$(grep -vc '^#' w.txt)
[ "$(q w.db "SELECT value FROM param WHERE name = 'trace.lines'")" = "$n" ] && ok || bad "trace.lines of the window: $n in the text"
[ "$(q w.db "SELECT value FROM param WHERE name = 'trace.cpus'")" = 2 ] && ok || bad "trace.cpus (CPU 1 only: 2)"

case=json
# The JSON timeline's grace periods, cut by --trace-window: every one a
# begin and an end under its id, begin first (one begun before the window
# begins at its start, one open at its end ends there, each marked cut);
# and each CPU's queued callbacks a counter of its own at event granularity
# (more points than the machine-wide one at the 5 samples).
expect_exit 0 "$RCUSIM" run "$scen" --set machine.background=no --set rcu.core_cost_sigma=0 --duration 700ms --db r.db --quiet --trace w.json --trace-window 105ms..603ms
jq -r '.traceEvents[] | select(.cat == "rcu" and (.ph == "b" or .ph == "e")) | "\(.id) \(.ph) \(.ts)"' w.json |
	awk '$2 == "b" { if ($1 in b) bad = "two begins of " $1; b[$1] = $3; next }
	     { if (!($1 in b)) bad = "an orphan end of " $1; else if ($3 < b[$1]) bad = "end before begin of " $1; else delete b[$1]; e++ }
	     END { for (i in b) bad = "an unterminated begin of " i; if (!e) bad = "no grace period"; print bad ? bad : "ok" }' >gp
[ "$(cat gp)" = ok ] && ok || bad "grace periods: $(cat gp)"
[ "$(jq '[.traceEvents[] | select(.args.cut == "before the window" and .ts == 105000)] | length' w.json)" = 1 ] &&
	ok || bad "the grace period begun before the window"
[ "$(jq '[.traceEvents[] | select(.args.cut == "after the window" and .ts == 603000)] | length' w.json)" = 1 ] &&
	ok || bad "the grace period open at the window's end"
for cpu in 0 1; do
	n=$(jq "[.traceEvents[] | select(.ph == \"C\" and .name == \"callbacks queued CPU $cpu\")] | length" w.json)
	[ "$n" -gt 100 ] && ok || bad "CPU $cpu's queued-callback counter: $n points"
done
finish
