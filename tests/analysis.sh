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
# A run with no queue above 0 at any sample draws its queue figure with a
# note (it failed before); a figure gnuplot fails on (a broken script)
# leaves no file.
"$RCUSIM" run "$S" --db z.db --duration 1ms --quiet >/dev/null
"$RCUSIM" plot --db z.db --out zfigs >/dev/null 2>&1
[ -s zfigs/qlen.png ] && ok || bad "no zfigs/qlen.png for a run with no queue samples"
cp -r "$SRC/plots" broken
echo 'no_such_function(1)' >>broken/qlen.gp
RCUSIM_PLOTS=$T/broken "$RCUSIM" plot --db z.db --out zbroken >/dev/null 2>&1
[ $? -eq 3 ] && [ ! -e zbroken/qlen.png ] && ok || bad "a failed figure left zbroken/qlen.png"
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

# plot --metric: any series over time (a line per run, or per CPU with
# --cpus) and any histogram as its survival curve; the data files are the
# database's points. The phone's app (a duty cycle) with and without lazy
# callbacks, 5 s.
P=$SRC/scenarios/phone-8-app.ini
for lz in yes no; do
	expect_exit 0 "$RCUSIM" run "$P" --db ph.db --duration 5s --set rcu.lazy=$lz --set machine.background=no --label lazy=$lz --quiet
done
expect_exit 0 "$RCUSIM" plot --db ph.db --label 'lazy=*' --metric idle.wakeups --metric cb.latency_ns --out pm
[ -s pm/metric_idle.wakeups.png ] && [ -s pm/metric_cb.latency_ns.png ] && ok || bad "plot --metric: $(ls pm)"
got=$(awk '{ printf "%.0f %s\n", $1 * 1e9, $2 }' pm/data/metric_idle.wakeups_run1_-1.dat | tr '\n' ' ')
want=$(q ph.db "SELECT p.t_ns || ' ' || p.value FROM point p JOIN series s USING(series_id) WHERE s.run_id = 1 AND
	s.name = 'idle.wakeups' AND s.cpu = -1 ORDER BY p.t_ns" | awk '{ printf "%s %s\n", $1, $2 + 0 }' | tr '\n' ' ')
[ -n "$got" ] && [ "$got" = "$want" ] && ok || bad "idle.wakeups data: $got, want $want"
expect_exit 0 "$RCUSIM" plot --db ph.db 1 --metric idle.wakeups --cpus 0-1,5 --out pc
[ "$(ls pc/data/metric_idle.wakeups_run1_*.dat | sed 's/.*_run1_//' | tr '\n' ' ')" = "0.dat 1.dat 5.dat " ] &&
	[ "$(grep -c '^label' pc/data/metric_idle.wakeups.gp)" = 3 ] && ok || bad "--cpus: $(ls pc/data)"
expect_exit 2 "$RCUSIM" plot --db ph.db --metric cb.enqueued
expect_err "a scalar, one value per run: rcusim compare --metric cb.enqueued"
expect_exit 2 "$RCUSIM" plot --db ph.db --metric cb.nosuch
expect_err "no such metric"
expect_exit 2 "$RCUSIM" plot --db ph.db 1 --metric gp.completed --cpus 0
expect_err "none of the runs recorded it for those CPUs"
expect_exit 2 "$RCUSIM" plot --db ph.db --cpus 0
# Wake-ups from idle: the series adds up to idle.exits, the CPUs' to the
# machine's at every sample; lazy callbacks leave the app's threads' own
# wake-ups (2 threads x 5 s / 16 ms a frame, about 625) and little more,
# without them RCU's kthreads add as many again.
for r in 1 2; do
	[ "$(q ph.db "SELECT sum(p.value) FROM point p JOIN series s USING(series_id) WHERE s.run_id = $r AND s.name = 'idle.wakeups' AND s.cpu = -1")" = \
	  "$(q ph.db "SELECT value FROM scalar WHERE run_id = $r AND name = 'idle.exits'")" ] && ok || bad "run $r: idle.wakeups does not add up to idle.exits"
	[ "$(q ph.db "SELECT count(*) FROM (SELECT p.t_ns, sum(CASE WHEN s.cpu >= 0 THEN p.value ELSE -p.value END) d FROM point p
		JOIN series s USING(series_id) WHERE s.run_id = $r AND s.name = 'idle.wakeups' GROUP BY p.t_ns) WHERE d != 0")" = 0 ] &&
		ok || bad "run $r: the CPUs' wake-ups do not add up to the machine's"
done
lazy=$(q ph.db "SELECT value FROM scalar WHERE run_id = 1 AND name = 'idle.exits'")
eager=$(q ph.db "SELECT value FROM scalar WHERE run_id = 2 AND name = 'idle.exits'")
awk -v l="$lazy" -v e="$eager" 'BEGIN { exit !(l >= 600 && l <= 660 && e >= 1.5 * l) }' && ok ||
	bad "wake-ups from idle: lazy $lazy, not lazy $eager"
# Memory held by pending callbacks: callbacks queued x workload.object_size
# at every sample, and its peak from the peak queue.
for sz in 64 200; do
	expect_exit 0 "$RCUSIM" run "$P" --db mem.db --duration 3s --set workload.object_size=${sz}B --quiet
	r=$(q mem.db "SELECT max(run_id) FROM run")
	[ "$(q mem.db "SELECT count(*) FROM point a JOIN series sa USING(series_id), point b JOIN series sb ON sb.series_id = b.series_id
		WHERE sa.run_id = $r AND sb.run_id = $r AND sa.name = 'mem.pending_bytes' AND sb.name = 'cb.qlen' AND sb.cpu = -1
		AND a.t_ns = b.t_ns AND a.value != b.value * $sz")" = 0 ] &&
		[ "$(q mem.db "SELECT count(*) FROM point p JOIN series s USING(series_id) WHERE s.run_id = $r AND s.name = 'mem.pending_bytes'")" -gt 2 ] &&
		ok || bad "mem.pending_bytes is not cb.qlen x $sz"
	[ "$(q mem.db "SELECT a.value = b.value * $sz FROM scalar a, scalar b WHERE a.run_id = $r AND b.run_id = $r AND
		a.name = 'mem.pending_bytes_max' AND b.name = 'cb.qlen_total_max'")" = 1 ] && ok || bad "mem.pending_bytes_max, object $sz"
done
expect_exit 2 "$RCUSIM" run "$SRC/scenarios/x86-16-kfree-debian.ini" --db mem.db --duration 10ms --set workload.object_size=64B
expect_err "workload.object_size: applies only with"
expect_exit 2 "$RCUSIM" run "$P" --db mem.db --duration 10ms --set workload.callrcu_busy=0s
expect_err "workload.callrcu_sleep: applies only with workload.callrcu_busy above 0"

finish
