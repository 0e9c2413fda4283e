#!/bin/sh
# tables.sh RCUSIM SRCDIR - the tables a kernel developer reads (issue 51,
# item 3): compare's default says above the table which runs it chose and
# which share a policy and were left out, and leads with the workload's own
# results (synchronize_rcu() here) where a run has them; sweep's table pools
# the seeds of each combination (mean +/- interval, n), follows the --vary
# order, honours --metric and says which columns are identical; --long (one
# row per run, the varied parameters as columns) in compare, sweep and
# export. Exact outputs: the runs are short and deterministic.
. "$(dirname "$0")/lib.sh"
S=$SRC/scenarios
# same FILE: $T/out is FILE's text, else the difference is shown.
same() {
	if cmp -s "$1" "$T/out"; then ok; else
		bad "${2:-output} differs (- want, + got):"
		diff -u "$1" "$T/out" | head -40
	fi
}

# compare: the default chosen and said on stdout, above the table; the
# workload's headline rows first.
case=compare_default
expect_exit 0 "$RCUSIM" run "$S/x86-256-syncrcu-6.12.ini" --duration 20ms --db y.db --quiet
expect_exit 0 "$RCUSIM" run "$S/x86-256-syncrcu-6.12.ini" --duration 20ms --db y.db --quiet --seed 2
expect_exit 0 "$RCUSIM" run "$S/make-small.ini" --duration 20ms --db y.db --quiet
expect_exit 0 "$RCUSIM" compare --db y.db
head -12 "$T/out" >"$T/head" && mv "$T/head" "$T/out"
cat >want <<'EOF2'
Runs 3, 2: the latest complete run of each policy. Left out, sharing a policy with them: runs 1 (name runs, a range A-B or --last N to compare them)

metric                                              run 3: fixed                   run 2: tree
scenario                                              make-small          x86-256-syncrcu-6.12
simulated                                                  20 ms                         20 ms
synchronize_rcu() calls                                        -                           512
synchronize_rcu() latency, median                              -                         16 ms
synchronize_rcu() latency, p99                                 -                         16 ms
synchronize_rcu() latency, max                                 -                         16 ms
syncrcu: to GP start, median                                   -                          4 ms
syncrcu: to GP start, p99                                      -                          4 ms
syncrcu: its GP, median                                        -                          8 ms
EOF2
same want "compare's default"
# CSV stays a table alone: the note is not in it.
expect_exit 0 "$RCUSIM" compare --db y.db --format csv
head -1 "$T/out" | grep -qx 'metric,run 3 fixed,run 2 tree' && ok || bad "csv's first line: $(head -1 "$T/out")"

# compare --long, CSV: a row per run, the parameters that differ as columns.
case=compare_long
expect_exit 0 "$RCUSIM" compare --db y.db --long --format csv --metric syncrcu.latency_p99_ns 1-3
printf '%s\r\n' \
	'run,scenario,policy,seed,label,irq.nohz_idle,irq.tick_phase,irq.timer_migration,irq.timer_round_up,machine.arch,machine.background,machine.clock,machine.cores,machine.memory,machine.page_size,machine.smt_slowdown,rcu.core_cost_sigma,rcu.flavor,rcu.policy,scenario.sample_interval,sched.autogroup,sched.delay_dequeue,sched.kind,sched.ksoftirqd_nice,softirq.effect_at_pass,softirq.stop_on_need_resched,softirq.time_limit,vfs.accounting,workload.jobs,workload.kind,workload.syscall_cost,syncrcu.latency_p99_ns' \
	'1,x86-256-syncrcu-6.12,tree,1,,yes,aligned,yes,yes,x86_64,yes,6.9GHz,128,1024GiB,4KiB,0.6,0.4,tree,watermark,1s,yes,yes,eevdf,0,yes,yes,2ms,percpu,256,syncrcu,500ns,15999782' \
	'2,x86-256-syncrcu-6.12,tree,2,,yes,aligned,yes,yes,x86_64,yes,6.9GHz,128,1024GiB,4KiB,0.6,0.4,tree,watermark,1s,yes,yes,eevdf,0,yes,yes,2ms,percpu,256,syncrcu,500ns,15999821' \
	'3,make-small,fixed,1,,no,spread,no,no,sparc64,no,1.2GHz,2,16GiB,8KiB,1.0,0,classic,fixed,100ms,no,no,o1,19,no,no,0ns,slab,64,make,2us,' >want
same want "compare --long --format csv"
expect_exit 2 "$RCUSIM" compare --db y.db --long --base 1 1 2
expect_err_line "rcusim compare: --long shows every run on its own row: not with --base"

# sweep: a column per value in the --vary order (1000, 10, 100; not by run
# id or value), seeds pooled, the --metric rows, identical columns said.
case=sweep_table
expect_exit 0 "$RCUSIM" sweep "$S/make-small.ini" --duration 100ms --set rcu.policy=tunable \
	--vary rcu.blimit=1000,10,100 --seeds 1..2 --metric cb.latency_p99_ns --metric cb.enqueued --db sw.db --jobs 1
cat >want <<'EOF2'
sweep: 6 runs, 6 complete, 0 failed
Columns: rcu.blimit (each headed by its values; the mean over its seeds)

metric                                                      1000                            10                           100
scenario                                              make-small                    make-small                    make-small
runs                                                         1,2                           3,4                           5,6
seeds (mean ± 95% interval)                                n = 2                         n = 2                         n = 2
simulated                                                 100 ms                        100 ms                        100 ms
cb.latency_p99_ns                              41.4 ms ± 23.3 ms             41.4 ms ± 23.3 ms             41.4 ms ± 23.3 ms
cb.enqueued                                          1,142 ± 222                   1,140 ± 222                   1,142 ± 222

identical in every row shown: 1000, 100
EOF2
same want "sweep's table"
# --metric takes a glob as compare does: every scalar it matches, once.
expect_exit 0 "$RCUSIM" sweep "$S/make-small.ini" --duration 50ms --set rcu.policy=tunable --vary rcu.blimit=10,100 --metric 'cb.latency_p*' \
	--metric cb.latency_p99_ns --db g1.db --jobs 1
[ "$(awk '/^cb\.latency_p/ { print $1 }' "$T/out" | tr '\n' ' ')" = "cb.latency_p50_ns cb.latency_p99_ns cb.latency_p999_ns " ] && ok ||
	bad "sweep --metric 'cb.latency_p*': $(cat "$T/out")"
expect_exit 2 "$RCUSIM" sweep "$S/make-small.ini" --vary rcu.blimit=10,100 --metric 'nope.*' --db g.db
expect_err_line 'rcusim sweep: --metric: "nope.*" matches no scalar (see `rcusim metrics`)'
# compare pools a sweep's seeds too (its labels differ only by seed=N).
expect_exit 0 "$RCUSIM" compare --db sw.db --label 'sweep*' --metric cb.enqueued
grep -q '^label  *sweep rcu.blimit=1000  *sweep rcu.blimit=10  *sweep rcu.blimit=100$' "$T/out" && ok ||
	bad "compare of a sweep's runs: $(cat "$T/out")"

# sweep --long, two parameters; all columns identical said so.
case=sweep_long
expect_exit 0 "$RCUSIM" sweep "$S/make-small.ini" --duration 100ms --set rcu.policy=tunable \
	--vary rcu.blimit=1000,100 --vary softirq.stop_on_need_resched=no,yes --metric cb.latency_p99_ns --db id.db --jobs 1 --long
cat >want <<'EOF2'
sweep: 4 runs, 4 complete, 0 failed
run  scenario    policy   seed  label                                                   rcu.blimit  softirq.stop_on_need_resched  cb.latency_p99_ns
  1  make-small  tunable     1  sweep rcu.blimit=1000 softirq.stop_on_need_resched=no   1000        no                                      43.3 ms
  2  make-small  tunable     1  sweep rcu.blimit=1000 softirq.stop_on_need_resched=yes  1000        yes                                     43.3 ms
  3  make-small  tunable     1  sweep rcu.blimit=100 softirq.stop_on_need_resched=no    100         no                                      43.3 ms
  4  make-small  tunable     1  sweep rcu.blimit=100 softirq.stop_on_need_resched=yes   100         yes                                     43.3 ms
EOF2
same want "sweep --long"
expect_exit 0 "$RCUSIM" compare --db id.db --metric cb.latency_p99_ns 1-4
expect_out_line "All 4 columns are identical in every row shown."

# export --long: a row per run, every scalar a column.
case=export_long
expect_exit 0 "$RCUSIM" export --db sw.db --long 1 3
head -1 "$T/out" | grep -q '^run,scenario,policy,seed,label,rcu.blimit,cb.enqueued,cb.invoked,' && ok ||
	bad "export --long's header: $(head -1 "$T/out" | cut -c 1-200)"
[ "$(sed -n 2p "$T/out" | cut -d, -f1-9)" = '1,make-small,tunable,1,sweep rcu.blimit=1000 seed=1,1000,1159,934,225' ] && ok ||
	bad "export --long's first row: $(sed -n 2p "$T/out" | cut -c 1-200)"
[ "$(wc -l <"$T/out")" = 3 ] && ok || bad "export --long: $(wc -l <"$T/out") lines, want 3"
expect_exit 0 "$RCUSIM" export --db sw.db --long --format json 3
head -c 120 "$T/out" | grep -qF '[
{"run":3,"scenario":"make-small","policy":"tunable","seed":1,"label":"sweep rcu.blimit=10 seed=1","cb.enqueued":1158,' ||
	head -2 "$T/out" | tail -1 | grep -q '^{"run":3,"scenario":"make-small","policy":"tunable","seed":1,"label":"sweep rcu.blimit=10 seed=1","cb.enqueued":1158,' &&
	ok || bad "export --long --format json: $(head -c 300 "$T/out")"
expect_exit 2 "$RCUSIM" export --db sw.db --long --hist 1
expect_err_line "rcusim export: --long and --hist: one or the other"
finish
