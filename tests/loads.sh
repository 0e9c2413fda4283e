#!/bin/sh
# loads.sh RCUSIM SRCDIR - several loads in one scenario ([workload] and
# [workload.NAME], issue 51 item 1): two loads run, each load's metrics are
# there (load.NAME.*, KIND.NAME.*) and conserved over the machine; a named
# load is the same load as [workload] (its results bit for bit but their
# names); a named load of no jobs changes nothing; --set and --vary reach a
# named load; show writes its section back and the output repeats the run;
# the mistakes (an unknown load, a name twice, CPUs off the machine, ...)
# exit 2 naming file, line and key.
. "$(dirname "$0")/lib.sh"
SC=$SRC/scenarios
DUMP=$SRC/scripts/dump-results.sh

# A small machine: 8 CPUs of the x86 box under 6.12, synchronize_rcu()
# callers on CPUs 0-3 and call_rcu() hogs on every CPU.
cat >two.ini <<EOT
include = $SC/machines/x86-16.ini
include = $SC/kernels/linux-6.12.ini
[machine]
cores = 4
[scenario]
duration = 300ms
sample_interval = 100ms
[workload]
kind = syncrcu
jobs = 4
cpus = 0-3
syncrcu_gap = 100us
syscall_cost = 500ns
[workload.hogs]
kind = callrcu
jobs = 8
callrcu_rate = 20000/s
syscall_cost = 500ns
EOT

case=two_loads
expect_exit 0 "$RCUSIM" run two.ini --db two.db --quiet
want_scalars two.db "load.main.jobs=4 load.hogs.jobs=8"
# Every call_rcu() is one load's: the loads' callbacks sum to the machine's;
# each synchronize_rcu() queued one (no wake-from-GP here).
enq=$(last_scalar two.db cb.enqueued)
mc=$(last_scalar two.db load.main.callbacks)
hc=$(last_scalar two.db load.hogs.callbacks)
[ "$((mc + hc))" = "$enq" ] && ok || bad "load callbacks $mc + $hc != cb.enqueued $enq"
[ "$(last_scalar two.db syncrcu.calls)" = "$mc" ] && ok || bad "syncrcu.calls != load.main.callbacks $mc"
[ "$hc" -gt 1000 ] && ok || bad "the hogs made $hc calls"
# CPU time: the hogs ran on all 8 CPUs, nearly all of the 2.4 CPU-seconds.
hn=$(last_scalar two.db load.hogs.cpu_ns)
[ "${hn%.*}" -gt 2000000000 ] && [ "${hn%.*}" -le 2400000000 ] && ok || bad "load.hogs.cpu_ns = $hn"
for m in syncrcu.latency_p50_ns syncrcu.returned cb.latency_p99_ns gp.completed; do
	[ -n "$(last_scalar two.db $m)" ] && ok || bad "no $m"
done
# The timeline names a named load's tasks by its name.
expect_exit 0 "$RCUSIM" run two.ini --db tr.db --quiet --duration 20ms --trace tr.json
grep -q '"hogs"' tr.json && grep -q '"syncrcu"' tr.json && ok || bad "the timeline lacks the loads' names"

# A load is the same load named or not: the callers alone as [workload],
# and as [workload.callers] beside a [workload] of no jobs, give the same
# results bit for bit, but for the names (syncrcu.callers.* for syncrcu.*)
# and the load.* scalars of several loads.
sed -e '/^\[workload.hogs\]/,$d' two.ini >alone.ini
sed -e 's/^\[workload\]$/[workload.callers]/' -e '/^\[workload.hogs\]/,$d' two.ini >named.ini
printf '[workload]\nkind = callrcu\njobs = 0\n' >>named.ini
case=named_alone
expect_exit 0 "$RCUSIM" run alone.ini --db alone.db --quiet
expect_exit 0 "$RCUSIM" run named.ini --db named.db --quiet
"$DUMP" alone.db >alone.txt
"$DUMP" named.db | grep -v '^scalar|load\.' | sed 's/syncrcu\.callers\./syncrcu./' >named.txt
grep -q "syncrcu.latency_p50_ns" alone.txt && cmp -s alone.txt named.txt && ok || bad "named differs: $(diff alone.txt named.txt | head -5)"

# A named load of no jobs changes nothing but adds the load.* scalars.
case=empty_load
expect_exit 0 "$RCUSIM" run two.ini --db empty.db --quiet --set workload.hogs.jobs=0
"$DUMP" empty.db | grep -v '^scalar|load\.' >empty.txt
cmp -s alone.txt empty.txt && ok || bad "an empty load moved results: $(diff alone.txt empty.txt | head -5)"
want_scalars empty.db "load.hogs.jobs=0 load.hogs.callbacks=0"

# --set and --vary reach a named load's knobs.
case=set_vary
expect_exit 0 "$RCUSIM" run two.ini --db set.db --quiet --set workload.hogs.jobs=3 --set workload.hogs.cpus=5-7
want_scalars set.db "load.hogs.jobs=3"
expect_exit 0 "$RCUSIM" sweep two.ini --db sw.db --vary workload.hogs.jobs=2,6 --duration 100ms \
	--metric load.hogs.jobs
# Each run's knob and its load's jobs agree (the runs' order is the backend's).
[ "$(q sw.db "SELECT group_concat(pv || '=' || sv, ' ') FROM (SELECT p.value AS pv, s.value AS sv FROM param p JOIN scalar s ON s.run_id = p.run_id AND s.name = 'load.hogs.jobs' WHERE p.name = 'workload.hogs.jobs' ORDER BY s.value)")" = "2=2.0 6=6.0" ] && ok || bad "sweep: $(q sw.db "SELECT run_id, name, value FROM param WHERE name = 'workload.hogs.jobs'")"

# show writes the named load back (its section, after [workload]) and its
# output repeats the run.
case=show
expect_exit 0 "$RCUSIM" show --db two.db 1
grep -A2 -x '\[workload.hogs\]' out | grep -q '^kind = callrcu  *; .*two.ini:15$' && ok || bad "show: $(grep -A3 hogs out)"
cp out shown.ini
expect_exit 0 "$RCUSIM" run shown.ini --db again.db --quiet
"$DUMP" two.db >two.txt
"$DUMP" again.db >again.txt
cmp -s two.txt again.txt && ok || bad "show's output ran differently: $(diff two.txt again.txt | head -5)"

# Files beside other callbacks: the file table's conservation counts the
# make load's callbacks only (the flood's stay queued at the end).
case=files_beside
printf 'include = %s\n[scenario]\nduration = 1s\n[workload]\njobs = 4\n[workload.flood]\nkind = callrcu\njobs = 4\ncpus = 0\ncallrcu_rate = 200000/s\n' "$SC/make-small.ini" >mf.ini
expect_exit 0 "$RCUSIM" run mf.ini --db mf.db --quiet
fc=$(last_scalar mf.db load.flood.callbacks)
[ "$fc" -gt 10000 ] && [ "$(last_scalar mf.db vfs.opens)" -gt 1000 ] && ok || bad "flood $fc calls"

# The mistakes: exit 2, naming the file, line and key.
case=errors
expect_exit 2 "$RCUSIM" run two.ini --db e.db --set workload.hugs.jobs=3
expect_err_line "--set: workload.hugs.jobs: no load named hugs in the scenario (its named loads: hogs); a [workload.hugs] section adds one"
printf '[workload.hogs]\nkind = callrcu\njobs = 1\n' >>two.ini
expect_exit 2 "$RCUSIM" run two.ini --db e.db
expect_err_line "two.ini:19: [workload.hogs]: a second load named hogs (the first at two.ini:14)"
sed -i '$d' two.ini && sed -i '$d' two.ini && sed -i '$d' two.ini
expect_exit 2 "$RCUSIM" run two.ini --db e.db --set workload.hogs.cpus=4-8
expect_err_line "--set: workload.hogs.cpus: CPUs 4-8: the machine has CPUs 0-7"
sed 's/^cpus = 0-3$/cpus = 0,9/' two.ini >off.ini
expect_exit 2 "$RCUSIM" run off.ini --db e.db
expect_err "^off.ini:11: workload.cpus: .*the machine has CPUs 0-7"
printf '[workload.more]\ncpus = 12\nkind = callrcu\njobs = 1\n' >>off.ini
sed -i 's/^cpus = 0,9$/cpus = 0-3/' off.ini
expect_exit 2 "$RCUSIM" run off.ini --db e.db
expect_err_line "off.ini:20: workload.more.cpus: CPUs 12-12: the machine has CPUs 0-7"
printf '[workload.x]\njobs = 2\n' >nokind.ini
expect_exit 2 "$RCUSIM" run nokind.ini --db e.db
expect_err_line "nokind.ini:1: [workload.x]: a named load says its kind and jobs (workload.x.kind, workload.x.jobs); it has no kind"
printf '[workload.main]\nkind = callrcu\njobs = 2\n' >main.ini
expect_exit 2 "$RCUSIM" run main.ini --db e.db
expect_err "^main.ini:1: \[workload.main\]: a load's name is"
expect_exit 2 "$RCUSIM" run two.ini --db e.db --set workload.hogs.barrier=yes
expect_err_line "--set: workload.hogs.barrier: the run's, not a load's: set workload.barrier in [workload]"
expect_exit 2 "$RCUSIM" run two.ini --db e.db --set workload.hogs.syncrcu_gap=1ms
expect_err "^--set: workload.hogs.syncrcu_gap: applies only with workload.hogs.kind = syncrcu, and workload.hogs.kind is callrcu \(.*two.ini:15\)$"
printf '[workload.k]\nkind = kfree\njobs = 1\n' >>main.ini
sed -i 's/^\[workload.main\]$/[workload]/' main.ini
expect_exit 2 "$RCUSIM" run main.ini --db e.db
expect_err "^main.ini:5: workload.k.kind: kfree cannot be a named load"
printf '[workload]\nkind = queue\n[workload.x]\nkind = callrcu\njobs = 1\n' >q.ini
expect_exit 2 "$RCUSIM" run q.ini --db e.db
expect_err_line "q.ini:2: workload.kind: queue runs alone: the loads of [workload.x] (q.ini:3) need a kernel workload in [workload]"
# syncrcu's own hogs take the callers' kernel share: with no gap they
# would never leave the kernel; a second load says hogs.
sed -e '/^\[workload.hogs\]/,$d' -e 's/^syncrcu_gap = 100us$/syncrcu_gap = 0ns\nsyncrcu_callers = 2/' two.ini >gap0.ini
expect_exit 2 "$RCUSIM" run gap0.ini --db e.db
expect_err_line "gap0.ini:13: workload.syncrcu_callers: 2 callers of 4 jobs with a syncrcu_gap of 0 (gap0.ini:12): the other jobs would be hogs always in the kernel (the callers' share of kernel time, 1); give the callers a gap, or make the hogs a load of their own ([workload.hogs], kind = callrcu)"
[ ! -e e.db ] || [ "$(q e.db 'SELECT count(*) FROM run')" = 0 ] && ok || bad "a refused run was recorded"

finish
