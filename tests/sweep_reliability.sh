#!/bin/sh
# sweep_reliability.sh RCUSIM SRCDIR [CASE...] - `rcusim sweep` when things
# go wrong: a run killed or stopped by a signal, a run that would fail, two
# sweeps into one database, --vary values and keys given wrong, a results
# folder of another sweep, and figures that cannot be drawn. One function
# per case (all of them, or the CASEs named); every case runs short runs of
# scenarios/blimit-small.ini.
#   signal_lost         a run killed by SIGKILL is lost: exit 3, not "failed"
#   signal_aborted      a run stopped by SIGTERM is aborted: exit 3
#   validate_first      a sweep with one bad value starts no run: exit 2
#   validate_model      the same for a value only the model refuses (the
#                       callrcu workload's create, reached through
#                       cli_check_run()'s rcusim_prepare())
#   own_runs            a run of another command with the sweep's label,
#                       in its database meanwhile, is not the sweep's
#   own_runs_concurrent two identical sweeps at once each report their own
#   cluster_own_runs    a cluster sweep with no complete run compares none,
#                       not the database's latest runs of other commands
#   vary_empty          --vary K=1,,2 (and K=1,) is refused, naming it
#   vary_twice          the same --vary key twice is refused, naming it
#   results_other_sweep another sweep into a results folder is refused;
#                       the same sweep again still runs
#   plot_not_numeric    --plot over values that are not numbers: a categorical
#                       axis, the second --vary as lines, each point the run's
#                       value
#   plot_failed_removed a figure gnuplot fails to draw leaves no file
. "$(dirname "$0")/lib.sh"
S=$SRC/scenarios/blimit-small.ini
no_err() { grep -qE -- "$1" "$T/err" && bad "stderr has /$1/: $(cat "$T/err")" || ok; }
# no_runs DB: DB holds no run (or does not exist).
no_runs() {
	if [ ! -e "$1" ] || [ "$(q "$1" 'SELECT count(*) FROM run')" = 0 ]; then ok; else
		bad "$1 holds runs: $(q "$1" 'SELECT run_id, status, label FROM run')"
	fi
}

# running_pid DB: the process of a run of DB that is running, as soon as
# there is one (at most 30 s); "" if none came.
running_pid() {
	i=0
	while [ $i -lt 600 ]; do
		if [ -e "$1" ]; then
			pid=$(q "$1" "SELECT pid FROM run WHERE status = 'running' LIMIT 1" 2>/dev/null)
			[ -n "$pid" ] && { echo "$pid"; return; }
		fi
		sleep 0.05
		i=$((i + 1))
	done
}

# sweep_signal SIG DB: a one-run sweep of 10 simulated minutes in the
# background, SIG sent to its run once running; the sweep's exit status in
# $rc, its output in $T/out and $T/err.
sweep_signal() {
	timeout 120 "$RCUSIM" sweep "$S" --vary rcu.blimit=10 --duration 600s --db "$2" >"$T/out" 2>"$T/err" &
	bg=$!
	pid=$(running_pid "$2")
	[ -n "$pid" ] && kill -"$1" "$pid" || bad "no run of $2 was seen running"
	wait $bg
	rc=$?
	bg=
}

signal_lost() {
	case=signal_lost
	sweep_signal KILL k.db
	[ $rc -eq 3 ] && ok || { bad "exit $rc, want 3"; cat "$T/err"; }
	expect_err '^rcusim sweep: run "sweep rcu.blimit=10": lost: '
	no_err 'failed \(exit 137\)'
	expect_out '^sweep: 1 runs, 0 complete, 0 failed, 1 lost$'
}

signal_aborted() {
	case=signal_aborted
	sweep_signal TERM t.db
	[ $rc -eq 3 ] && ok || { bad "exit $rc, want 3"; cat "$T/err"; }
	expect_err '^rcusim sweep: run "sweep rcu.blimit=10": aborted: '
	expect_out '^sweep: 1 runs, 0 complete, 0 failed, 1 aborted$'
	[ "$(q t.db 'SELECT status FROM run')" = aborted ] && ok || bad "t.db: $(q t.db 'SELECT status FROM run')"
}

validate_first() {
	case=validate_first
	expect_exit 2 "$RCUSIM" sweep "$S" --vary machine.cores=1,zz --duration 50ms --db v.db
	expect_err 'machine.cores'
	expect_err '^rcusim sweep: run "sweep machine.cores=zz" would fail: no run was started$'
	no_runs v.db
}

validate_model() {
	case=validate_model
	expect_exit 2 "$RCUSIM" sweep "$S" --vary workload.callrcu_rate=1000/s,1/ns --duration 50ms --db m.db
	expect_err 'would fail: no run was started$'
	no_runs m.db
}

own_runs() {
	case=own_runs
	# The sweep's run is stopped while another command appends a complete
	# run with the same label to the same database.
	"$RCUSIM" sweep "$S" --vary rcu.blimit=10 --duration 5s --db o.db >"$T/out" 2>"$T/err" &
	bg=$!
	pid=$(running_pid o.db)
	[ -n "$pid" ] && kill -STOP "$pid" || bad "no run of o.db was seen running"
	"$RCUSIM" run "$S" --db o.db --label 'sweep rcu.blimit=10' --duration 50ms --quiet >/dev/null ||
		bad "the other run failed"
	[ -n "$pid" ] && kill -CONT "$pid"
	wait $bg
	rc=$?
	bg=
	[ $rc -eq 0 ] && ok || { bad "exit $rc, want 0"; cat "$T/err"; }
	expect_out '^sweep: 1 runs, 1 complete, 0 failed$'
	no_err 'ended without a complete run'
	# The comparison is of the sweep's run alone (5 s simulated).
	[ "$(grep -c '^runs  *[0-9]*$' "$T/out")" = 1 ] &&
		grep -q '^simulated  *5 s$' "$T/out" && ok || { bad "the comparison is not of the sweep's run alone:"; cat "$T/out"; }
}

own_runs_concurrent() {
	case=own_runs_concurrent
	for k in 1 2; do
		"$RCUSIM" sweep "$S" --vary rcu.blimit=10,100 --duration 1s --jobs 1 --db c.db >c$k.out 2>c$k.err &
	done
	wait
	for k in 1 2; do
		grep -qx 'sweep: 2 runs, 2 complete, 0 failed' c$k.out && ! grep -q 'ended without' c$k.err &&
			grep -qE '^runs +[0-9]+ +[0-9]+$' c$k.out && ok || { bad "sweep $k:"; cat c$k.out c$k.err; }
	done
	[ "$(q c.db "SELECT count(*) FROM run WHERE status = 'complete'")" = 4 ] && ok || bad "c.db: $(q c.db 'SELECT status FROM run')"
}

cluster_own_runs() {
	case=cluster_own_runs
	"$RCUSIM" run "$S" --db x.db --duration 50ms --label other --quiet >/dev/null || bad "the other run failed"
	"$RCUSIM" sweep "$S" --vary rcu.blimit=10 --duration 600s --backend parallel --jobs 1 --results rx \
		--db x.db >"$T/out" 2>"$T/err" &
	bg=$!
	i=0
	while [ -z "$(ls rx/runs/*.db 2>/dev/null)" ] && [ $i -lt 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	pid=$(running_pid "$(ls rx/runs/*.db 2>/dev/null | head -1)")
	[ -n "$pid" ] && kill -KILL "$pid" || bad "no run of rx was seen running"
	wait $bg
	rc=$?
	bg=
	[ $rc -eq 3 ] && ok || { bad "exit $rc, want 3"; cat "$T/err"; }
	expect_out '^sweep: 1 runs, 0 complete, 1 lost$'
	grep -q 'run [0-9]*: ' "$T/out" && { bad "a comparison of runs not the sweep's:"; cat "$T/out"; } || ok
}

vary_empty() {
	case=vary_empty
	for arg in rcu.blimit=10,,20 rcu.blimit=10, rcu.blimit=,10; do
		expect_exit 2 "$RCUSIM" sweep "$S" --vary "$arg" --duration 50ms --db e.db
		expect_err "^rcusim sweep: --vary $arg: value [0-9]+ is empty\$"
	done
	no_runs e.db
}

vary_twice() {
	case=vary_twice
	expect_exit 2 "$RCUSIM" sweep "$S" --vary rcu.blimit=10 --vary rcu.policy=tunable --vary rcu.blimit=20 \
		--duration 50ms --db w.db
	expect_err '^rcusim sweep: --vary rcu.blimit=20: rcu.blimit is varied already \(--vary rcu.blimit=10\)'
	no_runs w.db
}

results_other_sweep() {
	case=results_other_sweep
	psweep() {
		"$RCUSIM" sweep "$S" --duration 50ms --backend parallel --results r --db r.db "$@"
	}
	expect_exit 0 psweep --vary rcu.blimit=10
	cp r/sweep.args args.1
	expect_exit 2 psweep --vary rcu.blimit=20
	expect_err "^rcusim sweep: --results r: $T/r holds another sweep"
	cmp -s args.1 r/sweep.args && [ ! -e r/submit-2.tasks ] && ok || bad "the other sweep changed r: $(ls r)"
	# The same sweep again (other options may change): nothing to run.
	expect_exit 0 psweep --vary rcu.blimit=10 --jobs 2
	expect_out "^sweep: 1 runs in $T/r: 1 complete, 0 to run\$"
}

plot_not_numeric() {
	case=plot_not_numeric
	# Values that are not numbers make a categorical axis, in the order
	# given; the second --vary is a line per value: 2 x 2 runs, 2 lines of
	# 2 points, each the run's own value (one seed).
	expect_exit 0 "$RCUSIM" sweep "$S" --vary rcu.policy=watermark,tunable --vary rcu.blimit=10,100 \
		--duration 50ms --db n.db --plot --out nfigs --metric cb.enqueued
	[ -s nfigs/sweep_cb.enqueued.png ] && ok || bad "no figure: $(ls -l nfigs)"
	grep -qx "categorical = 1" nfigs/data/sweep_cb.enqueued.gp && grep -q "^label\\[2\\] = 'rcu.blimit=100'$" nfigs/data/sweep_cb.enqueued.gp &&
		ok || bad "runs file: $(cat nfigs/data/sweep_cb.enqueued.gp)"
	for l in 1 2; do
		b=$([ $l = 1 ] && echo 10 || echo 100)
		want=$(for p in watermark tunable; do
			v=$(q n.db "SELECT s.value FROM scalar s JOIN run r USING(run_id) WHERE s.name = 'cb.enqueued' AND
				r.label = 'sweep rcu.policy=$p rcu.blimit=$b'")
			echo "$v $v $v"
		done)
		got=$(awk '{ printf "%.17g %.17g %.17g\n", $2, $3, $4 }' nfigs/data/sweep_cb.enqueued_$l.dat)
		[ "$(awk '{ print $1 }' nfigs/data/sweep_cb.enqueued_$l.dat | tr '\n' ' ')" = "0 1 " ] &&
			[ "$(awk '{ print $5 }' nfigs/data/sweep_cb.enqueued_$l.dat | tr '\n' ' ')" = '"watermark" "tunable" ' ] &&
			[ "$got" = "$(echo "$want" | awk '{ printf "%.17g %.17g %.17g\n", $1, $2, $3 }')" ] &&
			ok || bad "line $l: $(cat nfigs/data/sweep_cb.enqueued_$l.dat), want $want"
	done
}

plot_failed_removed() {
	case=plot_failed_removed
	# A sweep.gp that fails after it opened the figure (the plots folder
	# from $RCUSIM_PLOTS).
	mkdir -p badplots
	cp "$SRC"/plots/*.gp badplots/
	printf "call 'common.gp' ARG1 ARG2 ARG3 ARG4\nplot 'no-such-file.dat'\n" >badplots/sweep.gp
	export RCUSIM_PLOTS="$T/badplots"
	expect_exit 3 "$RCUSIM" sweep "$S" --vary rcu.blimit=10,100 --duration 50ms --db p.db --plot --out pfigs \
		--metric cb.enqueued
	unset RCUSIM_PLOTS
	expect_err 'gnuplot sweep.gp failed'
	[ ! -e pfigs/sweep_cb.enqueued.png ] && ok || bad "a failed figure is left: $(ls -l pfigs)"
}

[ $# -gt 0 ] || set -- signal_lost signal_aborted validate_first validate_model own_runs own_runs_concurrent \
	cluster_own_runs vary_empty vary_twice results_other_sweep plot_not_numeric plot_failed_removed
for c in "$@"; do
	"$c"
done

finish
