#!/bin/sh
# analysis.sh RCUSIM SRCDIR - compare, plot, sweep, merge and concurrent
# runs, as a user drives them.
. "$(dirname "$0")/lib.sh"
S=$SRC/scenarios/blimit-small.ini

# Four runs started at once on one new database all complete.
for pol in fixed tunable watermark tunable; do
	"$RCUSIM" run "$S" --db c.db --duration 1s --set rcu.policy=$pol --quiet >/dev/null 2>c.$pol.err &
done
wait
[ "$(q c.db "SELECT count(*) FROM run WHERE status = 'complete'")" -eq 4 ] && ok || bad "concurrent runs: $(q c.db 'SELECT status FROM run'; cat c.*.err)"

# compare: the latest complete run of each policy, three formats.
"$RCUSIM" compare --db c.db >cmp.txt 2>&1 && ok || bad "compare: $(cat cmp.txt)"
[ "$(grep -c 'run [0-9]*: ' cmp.txt)" -eq 1 ] && grep -q 'run [0-9]*: fixed' cmp.txt && grep -q 'run [0-9]*: watermark' cmp.txt && ok || bad "compare header: $(head -2 cmp.txt)"
"$RCUSIM" compare --db c.db --format csv >cmp.csv && [ "$(head -1 cmp.csv | tr ',' '\n' | wc -l)" -eq 4 ] && grep -q '^cb.enqueued,' cmp.csv && ok || bad "compare csv: $(head -2 cmp.csv)"
"$RCUSIM" compare --db c.db --format md >cmp.md && grep -q '^| callback latency, p99 |' cmp.md && ok || bad "compare md"
expect_exit 2 "$RCUSIM" compare --db c.db 99
expect_err 'no run 99'
expect_exit 3 "$RCUSIM" compare --db missing.db

# plot: PNG and SVG figures with their data.
"$RCUSIM" plot --db c.db --out figs >plot.out 2>&1 && ok || bad "plot: $(cat plot.out)"
for f in qlen latency_ccdf softirq_ccdf; do
	[ -s "figs/$f.png" ] && [ "$(head -c 4 "figs/$f.png" | od -An -c | tr -d ' ')" = "211PNG" ] && ok || bad "figs/$f.png"
done
# The latency survival curve's data: 1 at the first bin's lower edge, then at
# each bin's upper edge the share of callbacks above it, as the database's
# histogram gives it, non-increasing, never 0 (a log axis).
r=$(ls figs/data | sed -n 's/^run\([0-9]*\)_latency_ccdf.dat$/\1/p' | head -1)
q c.db "SELECT min(lo) || ' 1' FROM hist WHERE run_id = $r AND name = 'cb.latency_ns'" >want.dat
q c.db "SELECT hi, 1.0 - CAST(sum(count) OVER (ORDER BY lo) AS REAL) / sum(count) OVER () FROM hist
	WHERE run_id = $r AND name = 'cb.latency_ns' ORDER BY lo" | tr '|' ' ' | awk '$2 > 1e-12' >>want.dat
awk 'NR == FNR { x[NR] = $1; y[NR] = $2; n = NR; next }
	{ m++; if (($1 - x[m])^2 > 1e-6 || ($2 - y[m])^2 > 1e-18 || (m > 1 && $2 > prev) || $2 <= 0) { print; bad = 1 } prev = $2 }
	END { exit bad || m != n || n < 3 }' want.dat "figs/data/run${r}_latency_ccdf.dat" >ccdf.out &&
	ok || bad "latency CCDF data against the histogram: $(head -2 ccdf.out) ($(wc -l <want.dat) lines wanted)"
# A figure gnuplot fails on leaves no file (a run with no queue samples).
"$RCUSIM" run "$S" --db z.db --duration 1ms --quiet >/dev/null
"$RCUSIM" plot --db z.db --out zfigs >/dev/null 2>&1
[ ! -e zfigs/qlen.png ] && ok || bad "a failed figure left zfigs/qlen.png"
"$RCUSIM" plot --db c.db --out svgs --format svg 1 2 >/dev/null 2>&1 && grep -q '<svg' svgs/qlen.svg && ok || bad "plot svg"
expect_exit 2 "$RCUSIM" plot --db c.db --format gif

# sweep: 2 values x 2 seeds, 2 at a time: 4 complete runs; --emit-jobs.
"$RCUSIM" sweep "$S" --vary rcu.blimit=10,1000 --seeds 1..2 --jobs 2 --db s.db --plot --out sfigs >sweep.out 2>&1 && ok || bad "sweep: $(cat sweep.out)"
[ "$(q s.db "SELECT count(*) FROM run WHERE status = 'complete' AND label LIKE 'sweep rcu.blimit=%'")" -eq 4 ] && ok || bad "sweep runs"
[ "$(q s.db "SELECT count(DISTINCT value) FROM param WHERE name = 'rcu.blimit'")" -eq 2 ] && ok || bad "sweep values"
[ -s sfigs/sweep_softirq.run_max_ns.png ] && [ -s sfigs/sweep_cb.qlen_total_max.png ] && ok || bad "sweep figures"
"$RCUSIM" sweep "$S" --vary rcu.blimit=10,1000 --vary rcu.policy=tunable,watermark --seeds 3..4 --emit-jobs >jobs.txt
[ "$(wc -l <jobs.txt)" -eq 8 ] && grep -q "^rcusim run '$S' --db 'rcusim.db' --quiet --label 'sweep rcu.blimit=10 rcu.policy=watermark seed=4' --set 'rcu.blimit=10' --set 'rcu.policy=watermark' --seed 4\$" jobs.txt && ok || bad "emit-jobs: $(head -2 jobs.txt)"
expect_exit 2 "$RCUSIM" sweep "$S" --vary rcu.blimit=10 --vary nonsense --emit-jobs
# --set and --duration reach every run, before the varied values; in
# --emit-jobs every value is quoted, even one that looks like an option.
"$RCUSIM" sweep "$S" --vary rcu.blimit=10,1000 --set workload.jobs=32 --duration 300ms --jobs 2 --db d.db >d.out 2>&1 && ok || bad "sweep --set: $(cat d.out)"
[ "$(q d.db "SELECT count(*) FROM param WHERE (name = 'workload.jobs' AND value = '32') OR (name = 'scenario.duration' AND value = '300ms')")" -eq 4 ] &&
	[ "$(q d.db "SELECT count(*) FROM run WHERE status = 'complete' AND sim_end_ns = 300000000")" -eq 2 ] && ok || bad "sweep --set/--duration not in the runs"
"$RCUSIM" sweep "$S" --vary rcu.blimit=10 --set '--x=$(touch pwned)' --duration 1s --emit-jobs >q.txt
grep -qF -- "--quiet --label 'sweep rcu.blimit=10' --set '--x=\$(touch pwned)' --duration '1s' --set 'rcu.blimit=10'" q.txt && ok || bad "emit-jobs quoting: $(cat q.txt)"
# Options of one backend given to another, or a cluster sweep without its
# results folder, are refused (tests/sweep_cluster.sh runs the backends).
expect_exit 2 "$RCUSIM" sweep "$S" --vary rcu.blimit=10 --partition x
expect_err_line 'rcusim sweep: --partition does not go with --backend local'
expect_exit 2 "$RCUSIM" sweep "$S" --vary rcu.blimit=10 --backend slurm --emit-jobs --results r
expect_err '--emit-jobs does not go with --backend slurm'
[ ! -e r ] && ok || bad "sweep --emit-jobs, slurm: left the results folder r"
expect_exit 2 "$RCUSIM" sweep --collect . --vary rcu.blimit=10
expect_err '--collect takes only'
# A run that would fail is refused before any run starts (exit 2, no run;
# tests/sweep_reliability.sh has runs that end badly once started).
expect_exit 2 "$RCUSIM" sweep "$S" --vary rcu.blimit=10,0 --jobs 2 --db f.db
expect_err 'run "sweep rcu.blimit=0" would fail: no run was started'
[ ! -e f.db ] && ok || bad "sweep with a failing run: f.db was made"

# Defects found in review, each with the test that failed before its fix:
# five --vary keys make run labels longer than 128 bytes; the sweep must
# still find its run (it reported "1 runs, 0 complete" and exit 0).
expect_exit 0 "$RCUSIM" sweep "$S" --vary scenario.duration=100ms --vary rcu.blimit=10 \
	--vary scenario.sample_interval=10ms --vary workload.syscall_cost=500ns --vary softirq.pass_cost=500ns --vary sched.ctxsw_cost=5us \
	--jobs 1 --db long.db
expect_out '^sweep: 1 runs, 1 complete, 0 failed$'
# More than 256 values of one key are all run (they were dropped silently).
vals=$(seq -s, 1 300)
"$RCUSIM" sweep "$S" --vary rcu.blimit=$vals --emit-jobs >many.txt 2>&1
[ "$(grep -c '^rcusim run ' many.txt)" -eq 300 ] && ok || bad "sweep of 300 values: $(grep -c '^rcusim run ' many.txt) jobs"
# A sweep too large to hold (found by fuzzing the command line: a huge
# --seeds range overflowed the run count) is refused as bad input.
expect_exit 2 "$RCUSIM" sweep "$S" --vary rcu.blimit=10,20 --seeds 1..4000000000 --emit-jobs
expect_err 'more than 20000 runs'
expect_exit 2 "$RCUSIM" sweep "$S" --vary rcu.blimit=10 --seeds 1..99999999999999999999 --emit-jobs
expect_exit 2 "$RCUSIM" sweep "$S" --vary rcu.blimit=, --emit-jobs
expect_err 'value 1 is empty'
# Names that reach gnuplot scripts and file names are checked first: an
# unknown metric or parameter is bad input (exit 2), never script text.
expect_exit 2 "$RCUSIM" sweep "$S" --vary rcu.blimit=10 --metric "x'; system('touch pwned'); '" --plot --db g.db
expect_err 'unknown metric'
# gnuplot runs in the plot scripts' folder: a command it ran would leave
# its file there, not here.
[ ! -e pwned ] && [ ! -e "$SRC/plots/pwned" ] && ok || bad "sweep --metric with a quote: a command ran"
expect_exit 2 "$RCUSIM" sweep "$S" --vary "rcu.bl'imit=10" --emit-jobs
expect_err 'unknown parameter'

# merge: every run of both databases, with all its rows, ids renumbered
# once; merging again adds nothing.
"$RCUSIM" merge m.db c.db s.db >merge.out 2>&1 && ok || bad "merge: $(cat merge.out)"
[ "$(q m.db 'SELECT count(*) FROM run')" -eq 8 ] && ok || bad "merged runs"
for t in param scalar hist point; do
	a=$(q c.db "SELECT count(*) FROM $t"); b=$(q s.db "SELECT count(*) FROM $t"); m=$(q m.db "SELECT count(*) FROM $t")
	[ "$m" -eq $((a + b)) ] && ok || bad "merged $t: $m != $a + $b"
done
# The same run in both: identical scalars under its new id.
[ "$(q m.db "SELECT group_concat(name || '=' || value) FROM (SELECT name, value FROM scalar WHERE run_id = 5 ORDER BY name)")" = \
  "$(q s.db "SELECT group_concat(name || '=' || value) FROM (SELECT name, value FROM scalar WHERE run_id = 1 ORDER BY name)")" ] && ok || bad "merged scalars of s.db run 1"
"$RCUSIM" merge m.db c.db | grep -q '0 runs added, 0 brought up to date, 4 already present' && ok || bad "merge twice"
[ "$(q m.db 'SELECT count(*) FROM run')" -eq 8 ] && ok || bad "merge twice added runs"

finish
