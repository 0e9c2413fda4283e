#!/bin/sh
# cli.sh RCUSIM SRCDIR - the rcusim command as a user meets it: help,
# version, params, metrics, exit codes, error messages naming file, line
# and key, the database a run leaves, determinism, and a clean abort on
# SIGTERM.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$RCUSIM" --version
expect_out '^rcusim '
expect_exit 0 "$RCUSIM" --help
expect_exit 0 "$RCUSIM" run --help
expect_exit 0 "$RCUSIM" params --help
expect_exit 2 "$RCUSIM"
expect_exit 2 "$RCUSIM" frobnicate
expect_exit 2 "$RCUSIM" params --format xml
expect_exit 2 "$RCUSIM" run
expect_exit 2 "$RCUSIM" run --bogus x.ini

# params: every parameter of the registry, in each format.
expect_exit 0 "$RCUSIM" params
n_text=$(grep -c '^[a-z]*\.[a-z_]* = ' "$T/out")
expect_exit 0 "$RCUSIM" params --format md
n_md=$(grep -c '^| `[a-z]*\.[a-z_]*` |' "$T/out")
[ "$n_text" -eq "$n_md" ] && [ "$n_text" -ge 50 ] && ok || bad "params count text $n_text md $n_md"
# Markdown: every row has its 6 cells ('|' inside a cell is escaped, as in
# "one of fixed\|tunable\|watermark").
cells=$(awk '{ gsub(/\\\|/, ""); print gsub(/\|/, "") }' "$T/out" | sort -u)
[ "$cells" = 7 ] && grep -qF 'one of fixed\|tunable\|watermark' "$T/out" && ok || bad "params md rows with $cells separators"
for key in scenario.duration machine.hz machine.memory machine.page_size softirq.max_restart \
	rcu.policy rcu.maxbatch rcu.resched_over rcu.blimit rcu.qhimark rcu.qlowmark \
	rcu.rsinterval rcu.callback_cost vfs.max_files vfs.accounting vfs.file_size \
	workload.kind workload.jobs; do
	grep -q "| \`$key\` |" "$T/out" && ok || bad "params lacks $key"
done
expect_exit 0 "$RCUSIM" params --format ini
cp "$T/out" "$T/all.ini"

# metrics: every metric of the registry with kind, unit and meaning.
expect_exit 0 "$RCUSIM" metrics --help
expect_exit 0 "$RCUSIM" metrics
cp "$T/out" "$T/metrics.txt"
expect_out '^cb\.enqueued  *scalar  *callbacks  *RCU callbacks queued'
expect_out '^vfs\.nr_files  *series  *files '
expect_out '^cb\.latency_ns  *hist  *ns '
m_text=$(grep -c '^[a-z_]*\.[a-z0-9_]*  ' "$T/out")
expect_exit 0 "$RCUSIM" metrics --format md
m_md=$(grep -c '^| `[a-z_]*\.[a-z0-9_]*` | [a-z]* | ' "$T/out")
[ "$m_text" -eq "$m_md" ] && [ "$m_text" -ge 50 ] && ok || bad "metrics count text $m_text md $m_md"
grep -qF '| `vfs.file_max_reached_ns` | scalar | ns | ' "$T/out" && ok || bad "metrics md lacks vfs.file_max_reached_ns"
cells=$(awk '{ gsub(/\\\|/, ""); print gsub(/\|/, "") }' "$T/out" | sort -u)
[ "$cells" = 5 ] && ok || bad "metrics md rows with $cells separators"
expect_exit 2 "$RCUSIM" metrics --format xml
expect_err_line 'rcusim metrics: --format: expected text or md, got "xml"'
expect_exit 2 "$RCUSIM" metrics --bogus

# Bad input: exit 2, the message names file, line and key; no database.
printf '[scenario]\nduration = 10s\n[rcu]\nblimit = ten\n' >b1.ini
expect_exit 2 "$RCUSIM" run b1.ini --db b.db
expect_err_line 'b1.ini:4: rcu.blimit: expected a positive integer in [1, 2147483647], got "ten"'
printf '[scenario]\nduration = 10\n' >b2.ini
expect_exit 2 "$RCUSIM" run b2.ini --db b.db
expect_err_line 'b2.ini:2: scenario.duration: expected a time with a unit (ns, us, ms, s, min, h), got "10": units are never guessed'
printf '[workload]\njobs = -3\n' >b3.ini
expect_exit 2 "$RCUSIM" run b3.ini --db b.db
expect_err_line 'b3.ini:2: workload.jobs: expected a non-negative integer in [0, 100000000], got "-3"'
printf '[rcu]\nblimit 10\n' >b4.ini
expect_exit 2 "$RCUSIM" run b4.ini --db b.db
expect_err_line 'b4.ini:2: expected "key = value" or "[section]", got "blimit 10"'
printf '[rcu]\nnot_a_key = 1\n' >b5.ini
expect_exit 2 "$RCUSIM" run b5.ini --db b.db
expect_err_line 'b5.ini:2: rcu.not_a_key: unknown parameter (see `rcusim params`)'
expect_exit 2 "$RCUSIM" run missing.ini --db b.db
expect_err_line 'missing.ini: cannot read: No such file or directory'
printf '[rcu]\nqlowmark = 20000\n' >b6.ini
expect_exit 2 "$RCUSIM" run b6.ini --db b.db
expect_err_line 'b6.ini:2: rcu.qlowmark: must be below rcu.qhimark (rcu.qhimark (default) = 10000), got 20000'
printf '[workload]\nkind = callrcu\n[fault]\nkind = irqs_off\ncpus = 3,40\n' >b7.ini
expect_exit 2 "$RCUSIM" run b7.ini --db b.db
expect_err_line 'b7.ini:5: fault.cpus: CPUs 40-40: the machine has CPUs 0-31'
printf '[workload]\nkind = callrcu\n[fault]\nkind = no_qs\nstart = 2h\n' >b8.ini
expect_exit 2 "$RCUSIM" run b8.ini --db b.db
expect_err_line 'b8.ini:5: fault.start: the fault would begin at or after the run'"'"'s end (scenario.duration = 1h), got 2h'
# A knob the chosen model does not read: an error when the scenario itself
# or --set gives it, not when an included preset does.
printf '[sched]\nbase_slice = 3ms\n' >b9.ini
expect_exit 2 "$RCUSIM" run b9.ini --db b.db
expect_err_line 'b9.ini:2: sched.base_slice: applies only with sched.kind = eevdf, and sched.kind is o1 (default)'
expect_exit 2 "$RCUSIM" run b9.ini --db b.db --set sched.kind=eevdf --set sched.max_bonus=5
expect_err_line '--set: sched.max_bonus: applies only with sched.kind = o1, and sched.kind is eevdf (--set)'
printf 'include = %s\n[rcu]\npolicy = fixed\n' "$SRC/scenarios/kernels/linux-2.6.16.ini" >b10.ini
expect_exit 0 "$RCUSIM" run b10.ini --db b10.db --duration 1ms --quiet
expect_exit 2 "$RCUSIM" run b10.ini --db b.db --set rcu.qhimark=500
expect_err_line '--set: rcu.qhimark: applies only with rcu.policy = watermark, and rcu.policy is fixed (b10.ini:3)'
expect_exit 2 "$RCUSIM" run "$SRC/scenarios/x86-256-callrcu-6.12-rt.ini" --db b.db --set softirq.defer_to_ksoftirqd=yes
expect_err_line "--set: softirq.defer_to_ksoftirqd: applies only with softirq.in_irq_exit = yes, and softirq.in_irq_exit is no ($SRC/scenarios/kernels/linux-6.12-rt.ini:22)"
# Background activity's rates only with it on; rcu_core()'s spread only with Tree RCU.
expect_exit 2 "$RCUSIM" run b9.ini --db b.db --set sched.kind=eevdf --set background.wakeups=10/s
expect_err_line '--set: background.wakeups: applies only with machine.background = yes, and machine.background is no (default)'
expect_exit 2 "$RCUSIM" run b10.ini --db b.db --set rcu.core_cost_sigma=0.5
expect_err_line '--set: rcu.core_cost_sigma: applies only with rcu.flavor = tree, and rcu.flavor is classic ('"$SRC"'/scenarios/kernels/linux-2.6.16.ini:'"$(grep -n '^flavor' "$SRC/scenarios/kernels/linux-2.6.16.ini" | cut -d: -f1)"')'
# Bulk call_rcu arrivals draw no system-call returns, which sparc64 needs.
printf '[workload]\nkind = callrcu\ncallrcu_arrivals = bulk\n' >b12.ini
expect_exit 2 "$RCUSIM" run b12.ini --db b.db
expect_err_line 'b12.ini:3: workload.callrcu_arrivals: bulk needs machine.arch = x86_64, and machine.arch is sparc64 (default): sparc64 runs pending softirqs at each system call'"'"'s return, whose times bulk does not draw'
expect_exit 0 "$RCUSIM" run b12.ini --db b12.db --duration 10ms --quiet --set machine.arch=x86_64
# Tree RCU: classic's policy knobs are errors, its own and blimit are not;
# its kthreads' FIFO priority needs EEVDF; the GP kthread's CPU must exist.
FL=$(grep -n '^flavor = tree' "$SRC/scenarios/kernels/linux-6.12.ini" | cut -d: -f1)
expect_exit 2 "$RCUSIM" run "$SRC/scenarios/x86-256-callrcu-6.12.ini" --db b.db --set rcu.policy=fixed
expect_err_line "--set: rcu.policy: applies only with rcu.flavor = classic, and rcu.flavor is tree ($SRC/scenarios/kernels/linux-6.12.ini:$FL)"
expect_exit 2 "$RCUSIM" run "$SRC/scenarios/x86-256-callrcu-6.12.ini" --db b.db --set rcu.rsinterval=5
expect_err_line "--set: rcu.rsinterval: applies only with rcu.flavor = classic, and rcu.flavor is tree ($SRC/scenarios/kernels/linux-6.12.ini:$FL)"
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/x86-256-callrcu-6.12.ini" --db b11.db --duration 1ms --quiet --set rcu.blimit=20 --set rcu.qhimark=500
: >empty.ini
expect_exit 2 "$RCUSIM" run empty.ini --db b.db --set sched.kind=o1 --set rcu.flavor=tree --set rcu.kthread_prio=1
expect_err_line '--set: rcu.kthread_prio: applies only with sched.kind = eevdf, and sched.kind is o1 (--set)'
expect_exit 2 "$RCUSIM" run "$SRC/scenarios/x86-256-syncrcu-6.12.ini" --db b.db --set rcu.gp_kthread_cpu=256
expect_err_line '--set: rcu.gp_kthread_cpu: CPU 256, but the machine has CPUs 0-255'
expect_exit 2 "$RCUSIM" run "$SRC/scenarios/queue.ini" --db b.db --set rcu.blimit=0
expect_err_line '--set: rcu.blimit: expected a positive integer in [1, 2147483647], got "0"'
expect_exit 2 "$RCUSIM" run "$SRC/scenarios/queue.ini" --db b.db --duration 5
[ ! -e b.db ] && ok || bad "bad input created a database"

# The ini listing of all defaults is itself a valid scenario (the seed box
# under make -j8192), run here for one simulated second.
expect_exit 0 "$RCUSIM" run all.ini --db all.db --duration 1s
expect_out '^run 1 complete: all'

# A good run: a complete run row, every parameter, scalars, series, hists.
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/queue.ini" --db r.db --duration 5s --set machine.cores=2 --label first
expect_out '^run 1 complete: queue'
[ "$(q r.db "SELECT status || ' ' || label || ' ' || sim_end_ns FROM run")" = "complete first 5000000000" ] && ok || bad "run row"
[ "$(q r.db 'SELECT count(*) FROM param')" -eq "$n_text" ] && ok || bad "param rows"
[ "$(q r.db "SELECT value FROM param WHERE name = 'machine.cores'")" = "2" ] && ok || bad "override stored"
[ "$(q r.db "SELECT value FROM param WHERE name = 'scenario.duration'")" = "5s" ] && ok || bad "--duration stored"
[ "$(q r.db "SELECT count(*) FROM scalar WHERE name IN ('cb.enqueued','cb.invoked','cb.pending_end','cb.latency_p99_ns')")" -eq 4 ] && ok || bad "scalars"
[ "$(q r.db "SELECT count(*) FROM scalar s1 JOIN scalar s2 JOIN scalar s3 ON s1.name='cb.enqueued' AND s2.name='cb.invoked' AND s3.name='cb.pending_end' WHERE s1.value = s2.value + s3.value")" -eq 1 ] && ok || bad "conservation in db"
[ "$(q r.db "SELECT count(*) FROM series WHERE name = 'cb.qlen'")" -eq 9 ] && ok || bad "series per cpu + total"
[ "$(q r.db "SELECT count(*) FROM point p JOIN series s USING(series_id) WHERE s.cpu = -1")" -eq 51 ] && ok || bad "points at 100 ms over 5 s"
[ "$(q r.db "SELECT sum(count) FROM hist WHERE name = 'cb.latency_ns'")" = "$(q r.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE name = 'cb.invoked'")" ] && ok || bad "hist count = invoked"

# Every metric the runs recorded is listed by `rcusim metrics` with its kind
# (the recorder refuses any other, so this holds by construction).
for db in all.db r.db; do
	q $db "SELECT DISTINCT name || ' scalar' FROM scalar UNION SELECT DISTINCT name || ' series' FROM series
	       UNION SELECT DISTINCT name || ' hist' FROM hist" >recorded
	[ -s recorded ] || bad "$db: no metrics"
	while read -r name kind; do
		grep -q "^$name  *$kind  " metrics.txt && ok || bad "$db: $name ($kind) not listed by rcusim metrics"
	done <recorded
done

# Determinism: same seed, same rows; another seed, other rows.
"$RCUSIM" run "$SRC/scenarios/queue.ini" --db r.db --duration 5s --set machine.cores=2 >/dev/null 2>&1
"$RCUSIM" run "$SRC/scenarios/queue.ini" --db r.db --duration 5s --set machine.cores=2 --seed 2 >/dev/null 2>&1
dump() {
	q r.db "SELECT name, value FROM scalar WHERE run_id = $1 ORDER BY name;
		SELECT s.name, s.cpu, p.t_ns, p.value FROM point p JOIN series s USING(series_id) WHERE run_id = $1 ORDER BY s.name, s.cpu, p.t_ns;
		SELECT name, lo, hi, count FROM hist WHERE run_id = $1 ORDER BY name, lo;"
}
dump 1 >d1
dump 2 >d2
dump 3 >d3
cmp -s d1 d2 && ok || bad "same seed differs"
cmp -s d1 d3 && bad "different seed identical" || ok

# I/O failures: exit 3.
expect_exit 3 "$RCUSIM" run "$SRC/scenarios/queue.ini" --db "$T/no/such/dir/x.db" --duration 1s
sqlite3 new.db 'PRAGMA user_version = 9'
expect_exit 3 "$RCUSIM" run "$SRC/scenarios/queue.ini" --db new.db --duration 1s
expect_err 'schema version 9 is newer'

# SIGTERM: the run ends as 'aborted' with what it measured, exit 143. (10 h
# is minutes of wall time; 100 h of queue.ini's series, sampled every
# 100 ms, would be more points than a run may hold, refused up front.)
"$RCUSIM" run "$SRC/scenarios/queue.ini" --db a.db --duration 10h >a.out 2>a.err &
bg=$!
i=0
while [ "$(q a.db "SELECT count(*) FROM run WHERE status = 'running'" 2>/dev/null || echo 0)" != 1 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.5
kill -TERM $bg
wait $bg
rc=$?
bg=
[ $rc -eq 143 ] && ok || bad "SIGTERM exit $rc"
[ "$(q a.db 'SELECT status FROM run')" = "aborted" ] && ok || bad "aborted status: $(q a.db 'SELECT status FROM run')"
[ "$(q a.db "SELECT count(*) FROM scalar WHERE name = 'cb.enqueued' AND value > 0")" -eq 1 ] && ok || bad "aborted run kept its scalars"
[ "$(q a.db 'SELECT sim_end_ns < 36000000000000 FROM run')" -eq 1 ] && ok || bad "aborted sim_end_ns"


# The kernel's spellings (models/cmdline.c): boot parameters as
# kernel-parameters.txt documents them, mapped to rcusim's; a kernel
# parameter rcusim does not model is named so; a misspelt key gets the
# nearest names; a command line sets what rcusim maps and names the rest.
case=kernel_params
KS=$SRC/scenarios/x86-256-callrcu-6.12.ini
expect_exit 0 "$RCUSIM" run "$KS" --duration 20ms --db k.db --quiet --set rcutree.blimit=1000 \
	--set rcupdate.rcu_expedited=1 --set rcu_nocbs=1-63 --set skew_tick=1 --set preempt=full \
	--set rcutree.rcu_resched_ns=2000000 --set rcupdate.rcu_cpu_stall_timeout=60 --set nohz=off \
	--set rcutree.use_softirq=n --set rcutree.jiffies_till_first_fqs=0x3
got=$(q k.db "SELECT group_concat(name || '=' || value, ' ') FROM (SELECT name, value FROM param WHERE run_id = 1 AND name IN
	('rcu.blimit', 'rcu.expedited', 'rcu.nocbs', 'irq.tick_phase', 'sched.preempt', 'rcu.rcu_resched_ns',
	 'rcu.stall_timeout', 'irq.nohz_idle', 'rcu.use_softirq', 'rcu.jiffies_till_first_fqs') ORDER BY name)")
[ "$got" = "irq.nohz_idle=no irq.tick_phase=skewed rcu.blimit=1000 rcu.expedited=yes rcu.jiffies_till_first_fqs=3 rcu.nocbs=1-63 rcu.rcu_resched_ns=2000000ns rcu.stall_timeout=60s rcu.use_softirq=no sched.preempt=full" ] &&
	ok || bad "kernel spellings set: $got"
# "rcu_nocbs" alone offloads no CPU (tree_nocb.h 6.12:59-70).
expect_exit 0 "$RCUSIM" run "$KS" --duration 20ms --db k.db --quiet --set rcu.nocbs=all --set rcu_nocbs
[ "$(q k.db "SELECT value FROM param WHERE run_id = 2 AND name = 'rcu.nocbs'")" = none ] && ok || bad "rcu_nocbs alone"
expect_exit 2 "$RCUSIM" run "$KS" --duration 20ms --db k.db --quiet --set rcutree.gp_init_delay=3
expect_err_line "--set: rcutree.gp_init_delay: a kernel parameter rcusim does not model (rcusim params --kernel lists those it maps)"
expect_exit 2 "$RCUSIM" run "$KS" --duration 20ms --db k.db --quiet --set rcu.blimt=3
expect_err_line "--set: rcu.blimt: unknown parameter, neither rcusim's nor a kernel parameter it maps; did you mean rcu.blimit, rcu.boost?"
expect_exit 2 "$RCUSIM" run "$KS" --duration 20ms --db k.db --quiet --set rcutree.use_softirq=maybe
expect_err "rcutree.use_softirq=maybe: the kernel takes a boolean here"
# The kernel's readings: a negative rcu_divisor is 7, rcu_resched_ns is
# clamped to 1 ms..1 s, a negative qovld is 2 x qhimark, rcu_expedited is an
# int (2 is on, y is not a number), '-' and '_' are alike, nohz_full is
# irq.nohz_full (the model offloads its CPUs as rcu_init_nohz() does), skew_tick
# takes any nonzero number, and a typo under rcutree. gets the nearest name.
expect_exit 0 "$RCUSIM" run "$KS" --duration 20ms --db k2.db --quiet --set rcutree.rcu_divisor=-1 \
	--set rcutree.rcu-resched-ns=0 --set rcutree.qovld=-1 --set rcupdate.rcu_expedited=2 --set nohz_full=4-7 \
	--set rcu_nocbs=1 --set skew_tick=2
got=$(q k2.db "SELECT group_concat(name || '=' || value, ' ') FROM (SELECT name, value FROM param WHERE name IN
	('rcu.rcu_divisor', 'rcu.rcu_resched_ns', 'rcu.qovld', 'rcu.expedited', 'rcu.nocbs', 'irq.tick_phase', 'irq.nohz_full') ORDER BY name)")
[ "$got" = "irq.nohz_full=4-7 irq.tick_phase=skewed rcu.expedited=yes rcu.nocbs=1 rcu.qovld=auto rcu.rcu_divisor=7 rcu.rcu_resched_ns=1000000ns" ] &&
	ok || bad "the kernel's readings: $got"
expect_exit 2 "$RCUSIM" run "$KS" --duration 20ms --db k2.db --quiet --set rcupdate.rcu_expedited=y
expect_err "rcupdate.rcu_expedited=y: the kernel takes a whole number here"
expect_exit 2 "$RCUSIM" run "$KS" --duration 20ms --db k2.db --quiet --set rcutree.blimt=3
expect_err "did you mean rcutree.blimit"
expect_exit 2 "$RCUSIM" run "$KS" --duration 20ms --db k.db --quiet --set rcutree.blimit=lots
expect_err "rcutree.blimit=lots: the kernel takes a whole number here"
# sweep --vary takes the kernel's spellings as run --set does.
expect_exit 0 "$RCUSIM" sweep "$SRC/scenarios/tree-small.ini" --vary rcutree.rcu_divisor=7,9 --duration 20ms --db kv.db
[ "$(q kv.db "SELECT group_concat(label || ':' || value, ' ') FROM (SELECT r.label, p.value FROM run r JOIN param p
	USING(run_id) WHERE p.name = 'rcu.rcu_divisor' ORDER BY r.label)")" = "sweep rcutree.rcu_divisor=7:7 sweep rcutree.rcu_divisor=9:9" ] &&
	ok || bad "sweep --vary rcutree.rcu_divisor: $(q kv.db "SELECT label FROM run")"
expect_exit 2 "$RCUSIM" sweep "$SRC/scenarios/tree-small.ini" --vary rcutree.rcu_divisr=7,9 --duration 20ms --db kv.db
expect_err "did you mean rcutree.rcu_divisor"
expect_exit 2 "$RCUSIM" sweep "$SRC/scenarios/tree-small.ini" --vary rcutree.rcu-divisor=7 --vary rcu.rcu_divisor=9 --db kv.db
expect_err "rcu.rcu_divisor is varied already \(--vary rcutree.rcu-divisor=7\)"
# A whole command line, from the option or a file (a /proc/cmdline).
echo 'BOOT_IMAGE=/boot/vmlinuz-6.12.0 root=UUID=0b1c ro quiet rcutree.blimit=100 rcu_nocbs=0-3 nohz_full=1-3 i915.modeset=0 -- init-arg' >cmdline
expect_exit 0 "$RCUSIM" run "$KS" --duration 20ms --db k.db --quiet --cmdline-file cmdline
expect_err_line "rcusim: --cmdline-file: not modelled, left out: BOOT_IMAGE root ro quiet i915.modeset"
[ "$(q k.db "SELECT group_concat(value, ' ') FROM (SELECT value FROM param WHERE run_id = 3 AND name IN ('irq.nohz_full', 'rcu.blimit', 'rcu.nocbs') ORDER BY name)")" = "1-3 100 0-3" ] &&
	ok || bad "--cmdline-file set"
# Its RCU passes at the tick at 20 ms, the run's end, invoke callbacks queued
# at 0 from 20 ms + 16 ns on: a batch is committed whole when it starts, so
# a latency may pass the end by a batch's length (the model's horizon), and
# the run completes (it exited 4, "past the run's 20000000 ns", when the
# duration check stopped at the end).
[ "$(q k.db "SELECT value > 20000000 AND value < 20100000 FROM scalar WHERE run_id = 3 AND name = 'cb.latency_max_ns'")" = 1 ] &&
	ok || bad "a batch begun at the end: cb.latency_max_ns $(q k.db "SELECT value FROM scalar WHERE run_id = 3 AND name = 'cb.latency_max_ns'")"
expect_exit 2 "$RCUSIM" run "$KS" --duration 20ms --db k.db --quiet --cmdline "rcutree.blimit=100 rcu.blimt=3"
expect_err "rcu.blimt: unknown parameter"
[ "$(q k.db "SELECT count(*) FROM run")" = 3 ] && ok || bad "a refused run was recorded"
# rcusim params KEY: one parameter, a glob, a kernel name; --kernel lists the mapping.
expect_exit 0 "$RCUSIM" params rcutree.blimit
expect_out_line "rcutree.blimit (kernel boot parameter) sets rcu.blimit"
expect_out "^rcu.blimit = 10$"
[ "$(grep -c '^[a-z]' out)" = 2 ] && ok || bad "params rcutree.blimit printed more: $(head -5 out)"
expect_exit 0 "$RCUSIM" params 'rcu.jiffies_till_*'
[ "$(grep -c '^rcu.jiffies_till_' out)" = 3 ] && ok || bad "params glob"
expect_exit 2 "$RCUSIM" params rcu.blimt
expect_err_line "rcusim params: rcu.blimt: no such parameter; did you mean rcu.blimit, rcu.boost?"
expect_exit 0 "$RCUSIM" params --kernel
expect_out "^rcutree.use_softirq +rcu.use_softirq +kstrtobool"


# Choosing runs for compare and plot: ids, ranges, label and scenario
# globs, the last N, combined; the default is said.
case=runsel
for d in 7 8 9; do
	expect_exit 0 "$RCUSIM" run "$SRC/scenarios/tree-small.ini" --duration 20ms --db sel.db --quiet --label div-$d \
		--set rcutree.rcu_divisor=$d
done
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/callrcu-small.ini" --duration 20ms --db sel.db --quiet --label other
# runs_of ARGS...: the run ids compare shows, from its heading line.
runs_of() { "$RCUSIM" compare --db sel.db "$@" 2>/dev/null | grep '^metric ' | grep -o 'run [0-9]*' | tr -d 'run ' | tr '\n' ' '; }
[ "$(runs_of)" = "3 4 " ] && ok || bad "default: $(runs_of)"
expect_exit 0 "$RCUSIM" compare --db sel.db
expect_err_line "rcusim compare: runs 3, 4: the latest complete run of each policy (choose with ids, A-B, --label, --scenario or --last N)"
[ "$(runs_of --label 'div-*')" = "1 2 3 " ] && ok || bad "--label: $(runs_of --label 'div-*')"
[ "$(runs_of 1-2 4)" = "1 2 4 " ] && ok || bad "ids and a range: $(runs_of 1-2 4)"
[ "$(runs_of 2..4 --last 2)" = "3 4 " ] && ok || bad "range and --last: $(runs_of 2..4 --last 2)"
[ "$(runs_of --scenario 'tree*' --last 1)" = "3 " ] && ok || bad "--scenario and --last: $(runs_of --scenario 'tree*' --last 1)"
expect_exit 2 "$RCUSIM" compare --db sel.db --label nope
expect_err "no complete run to compare matches the selection"
expect_exit 2 "$RCUSIM" compare --db sel.db 3-1
expect_err 'expected a run id or a range A-B of ids, got "3-1"'
expect_exit 2 "$RCUSIM" plot --db sel.db --last 0
expect_err "--last: expected a positive count"
# compare --metric GLOB: any recorded scalar, by name; --base: ratios to one run.
expect_exit 0 "$RCUSIM" compare --db sel.db 1 4 --metric 'softirq.passes_*' --metric cb.enqueued --base 1
[ "$(awk '$1 ~ /^(softirq|cb)\./ { print $1 }' out | tr '\n' ' ')" = "softirq.passes_irq_exit softirq.passes_trap_return softirq.passes_ksoftirqd cb.enqueued " ] &&
	ok || bad "--metric rows: $(cat out)"
a=$(q sel.db "SELECT value FROM scalar WHERE run_id = 1 AND name = 'cb.enqueued'")
b=$(q sel.db "SELECT value FROM scalar WHERE run_id = 4 AND name = 'cb.enqueued'")
want=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "(%.3gx)", b / a }')
grep "^cb.enqueued" out | grep -qF "$want" && ok || bad "--base ratio: want $want in $(grep '^cb.enqueued' out)"
expect_exit 2 "$RCUSIM" compare --db sel.db --metric 'nope*'
expect_err "no recorded scalar has that name"
expect_exit 2 "$RCUSIM" compare --db sel.db 1 2 --base 3
expect_err "--base 3: not among the runs compared"
# Labels are never cut: a column is as wide as its label.
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/tree-small.ini" --duration 20ms --db sel.db --quiet \
	--label "a label longer than twenty-eight characters"
expect_exit 0 "$RCUSIM" compare --db sel.db --last 1
expect_out "a label longer than twenty-eight characters"


# rcusim export: tidy rows, RFC 4180 quoting, JSON; every scalar and point once.
case=export
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/tree-small.ini" --duration 300ms --db ex.db --quiet --label 'a, "quoted" label'
expect_exit 0 "$RCUSIM" export --db ex.db 1
[ "$(head -1 out | tr -d '\r')" = "run,label,metric,cpu,time_ns,value" ] && ok || bad "export header: $(head -1 out)"
n=$(q ex.db "SELECT (SELECT count(*) FROM scalar WHERE run_id = 1) + (SELECT count(*) FROM point JOIN series USING (series_id) WHERE run_id = 1)")
[ "$(($(wc -l <out) - 1))" = "$n" ] && ok || bad "export rows: $(($(wc -l <out) - 1)), the database holds $n values"
v=$(q ex.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 1 AND name = 'cb.enqueued'")
grep -qxF "1,\"a, \"\"quoted\"\" label\",cb.enqueued,,,$v$(printf '\r')" out && ok || bad "export quoting: $(grep cb.enqueued out)"
# A machine-wide series point: no CPU, its time.
grep -q "^1,\"a, \"\"quoted\"\" label\",cb.qlen,,100000000," out && ok || bad "export series point: $(grep -m1 cb.qlen, out)"
expect_exit 0 "$RCUSIM" export --db ex.db 1 --format json
[ "$(jq length out)" = "$n" ] && ok || bad "export json rows"
[ "$(jq -r '.[] | select(.metric == "cb.enqueued") | "\(.label)|\(.cpu)|\(.value)"' out)" = "a, \"quoted\" label|null|$v" ] &&
	ok || bad "export json values"
expect_exit 0 "$RCUSIM" export --db ex.db 1 --hist
[ "$(($(wc -l <out) - 1))" = "$(q ex.db "SELECT count(*) FROM hist WHERE run_id = 1")" ] && ok || bad "export --hist rows"
expect_exit 2 "$RCUSIM" export --db ex.db --format xml
expect_err "expected csv or json"


# Runs that differ only by their seed: one column, the mean with its 95%
# interval (Student's t, 2 degrees of freedom: 4.302653) and n; --each
# shows them apart; a different parameter keeps a run apart.
case=seeds
for sd in 1 2 3; do
	expect_exit 0 "$RCUSIM" run "$SRC/scenarios/tree-small.ini" --duration 100ms --db sd.db --quiet --seed $sd --set machine.background=no --set rcu.core_cost_sigma=0
done
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/tree-small.ini" --duration 100ms --db sd.db --quiet --seed 4 --set rcu.blimit=20 --set machine.background=no --set rcu.core_cost_sigma=0
expect_exit 0 "$RCUSIM" compare --db sd.db 1-4 --metric cb.enqueued
expect_out "runs 1,2,3: tree +run 4: tree"
expect_out "n = 3 +n = 1"
want=$(q sd.db "SELECT value FROM scalar WHERE name = 'cb.enqueued' AND run_id <= 3" | awk '{ s += $1; q += $1 * $1; n++ }
	END { m = s / n; sd = sqrt((q - s * s / n) / (n - 1)); printf "%.1f %.2f", m, 4.302652729749464 * sd / sqrt(n) }')
got=$(awk '/^cb.enqueued/ { print $2, $4 }' out | tr -d ,)
awk -v g="$got" -v w="$want" 'BEGIN { split(g, a, " "); split(w, b, " "); exit !((a[1] - b[1])^2 < 0.01 && (a[2] - b[2])^2 < 0.01) }' &&
	ok || bad "seed mean and interval: got $got, want $want"
expect_exit 0 "$RCUSIM" compare --db sd.db 1-4 --metric cb.enqueued --each
[ "$(grep -c '^cb.enqueued' out)" = 1 ] && [ "$(head -1 out | grep -o 'run [0-9]' | wc -l)" = 4 ] && ok || bad "--each: $(head -1 out)"


# Idle and tick counts (issue 34's energy proxy): every tick of every CPU is
# taken or stopped (CPUs x HZ x duration, the ticks at the multiples of a
# jiffy), and a CPU's idle entries and exits alternate (they differ by at
# most the CPUs, each idle or not at the start and the end).
case=idle_ticks
for sc in x86-256-syncrcu-6.12:256:250 phone-8-lazy:8:250 dev-vm-churn:2:250; do
	name=${sc%%:*}; rest=${sc#*:}; ncpu=${rest%%:*}; hz=${rest#*:}
	expect_exit 0 "$RCUSIM" run "$SRC/scenarios/$name.ini" --duration 200ms --db it.db --quiet
	v() { q it.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = (SELECT max(run_id) FROM run) AND name = '$1'"; }
	[ $(($(v tick.taken) + $(v tick.stopped))) -eq $((ncpu * hz / 5)) ] && ok ||
		bad "$name: $(v tick.taken) ticks taken + $(v tick.stopped) stopped, want $((ncpu * hz / 5))"
	d=$(($(v idle.exits) - $(v idle.entries)))
	[ "${d#-}" -le "$ncpu" ] && [ "$(v idle.entries)" -le "$(v sched.ctxsw)" ] && ok ||
		bad "$name: idle entries $(v idle.entries), exits $(v idle.exits), switches $(v sched.ctxsw)"
done
# A tickless idle CPU takes no tick: the phone's 6 idle CPUs stop theirs
# (without background activity, whose timers would bring some).
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/phone-8-lazy.ini" --duration 200ms --db it.db --quiet --set machine.background=no
[ "$(q it.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE run_id = 4 AND name = 'tick.stopped'")" -eq $((6 * 250 / 5)) ] &&
	ok || bad "the phone's idle CPUs took ticks"

# rcusim show RUN: the resolved scenario, each value with its origin (the
# scenario's line, an included preset's, --set, --duration, a kernel
# parameter of --cmdline); a preset's value nothing reads is a comment; run
# again, it gives the same results row for row; merged, the origins go along;
# a database without them says so; --all adds the defaults.
case=show
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/x86-64-nohzfull-debian.ini" --duration 50ms --db sh.db --quiet \
	--set rcu.blimit=100 --cmdline "rcutree.qhimark=5000" --label shown --seed 7
expect_exit 0 "$RCUSIM" show --db sh.db 1
cp out shown.ini
expect_out_line "; run 1 of sh.db: scenario x86-64-nohzfull-debian, policy tree, seed 7, label \"shown\", complete"
expect_out "^blimit = 100 +; --set$"
expect_out "^qhimark = 5000 +; --cmdline rcutree.qhimark$"
expect_out "^duration = 50ms +; --duration$"
expect_out "^seed = 7 +; --seed$"
expect_out "^nohz_full = 1-63 +; .*scenarios/x86-64-nohzfull-debian.ini:[0-9]+$"
expect_out "^preempt_rcu = yes +; .*scenarios/kernels/debian-13-6.12.ini:[0-9]+$"
expect_out "^; memory = 1024GiB +; .*x86-2s-256.ini:[0-9]+, not read in this run$"
expect_out "^name = x86-64-nohzfull-debian +; the run's scenario name"
expect_exit 0 "$RCUSIM" run shown.ini --db sh.db --quiet
[ "$("$RCUSIM" export --db sh.db 1 | cut -d, -f3- | md5sum)" = "$("$RCUSIM" export --db sh.db 2 | cut -d, -f3- | md5sum)" ] &&
	[ "$(q sh.db "SELECT scenario || ' ' || seed FROM run WHERE run_id = 2")" = "x86-64-nohzfull-debian 7" ] &&
	ok || bad "the shown scenario did not repeat the run"
expect_exit 0 "$RCUSIM" show --db sh.db --all 1
expect_out "^; def_timeslice = 100ms +; default$"
[ "$(grep -c ' = ' out)" -ge "$("$RCUSIM" params | grep -c '^[a-z_]*\.[a-z_0-9]* = ')" ] && ok || bad "--all lacks defaults"
expect_exit 0 "$RCUSIM" merge shm.db sh.db
expect_exit 0 "$RCUSIM" show --db shm.db 1
tail -n +2 out >a; "$RCUSIM" show --db sh.db 1 | tail -n +2 >b
cmp -s a b && ok || bad "merge lost the origins: $(diff a b | head -5)"
sqlite3 sh.db "DROP TABLE param_origin"
expect_exit 0 "$RCUSIM" show --db sh.db 1
expect_out "this run's database kept no origins"
expect_out "^blimit = 100 +; origin not recorded$"
expect_exit 2 "$RCUSIM" show --db sh.db 9
expect_err "no run 9"
expect_exit 2 "$RCUSIM" show --db sh.db x

# --cmdline: an unmodelled word that would change the run is a warning
# saying what it would change (threadirqs: ksoftirqd instead of irq_exit);
# one that would not (quiet) is only listed; the run goes on.
expect_exit 0 "$RCUSIM" run "$SRC/scenarios/tree-small.ini" --duration 10ms --db cl.db --quiet \
	--cmdline 'quiet threadirqs rcu-nocb-poll rcutree.gp_init_delay=3 isolcpus=2-3 rcutree.blimit=20'
expect_err "warning: --cmdline: threadirqs: not modelled, and it would change the run: .*irq_exit\(\) wakes ksoftirqd.*softirq.in_irq_exit = no"
expect_err "warning: --cmdline: rcu-nocb-poll: not modelled, and it would change the run: the rcuog kthreads poll"
expect_err "warning: --cmdline: rcutree.gp_init_delay=3: not modelled, and it would change the run: a delay"
expect_err "warning: --cmdline: isolcpus=2-3: not modelled, and it would change the run"
expect_err "not modelled, left out: quiet$"
grep -q 'left out:.*threadirqs' "$T/err" && bad "threadirqs only listed" || ok
[ "$(q cl.db "SELECT value FROM param WHERE name = 'rcu.blimit'")" = 20 ] && ok || bad "blimit beside the warnings"
finish
