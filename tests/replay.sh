#!/bin/sh
# replay.sh RCUSIM SRCDIR - workload.kind = trace: recordings replayed.
# - a hand-written tracefs trace (tests/data/replay-2cpu-ftrace.txt) on the
#   2-CPU guest: every figure computed by hand from its events (CPU time,
#   rounds, sleeps, call_rcu()s), once, looped, twice as fast
#   (trace_time_scale), three copies on 6 CPUs (trace_tasks), each copy on
#   the CPU the rule names;
# - a hand-written strace log: opens, closes, failed opens and their
#   callbacks, CPU time and the blocked wait4 as a sleep;
# - the recorded churn trace of the guest replays (7 tasks, rounds of its
#   496.765 ms span), saying it carries no call_rcu() (no rcu: events);
# - one recording in every form (tracefs text, trace-cmd report default,
#   -N, -l, trace.dat) replays bit for bit alike;
# - errors: no file named, a missing file, a bad line (file and line), a
#   cut file, workload.jobs set, all exit 2 with no run.
. "$(dirname "$0")/lib.sh"
D=$SRC/tests/data
cat >ft.ini <<EOI
include = $SRC/scenarios/machines/dev-vm-2.ini
include = $SRC/scenarios/kernels/dev-vm-6.18.ini
[scenario]
sample_interval = 10ms
[workload]
kind = trace
trace_file = $D/replay-2cpu-ftrace.txt
EOI
sed "s#replay-2cpu-ftrace.txt#replay-strace.txt#" ft.ini >st.ini

# One round (no loop): worker 2 + 0.9 + 0.5 + 1 ms, hog 7 ms of CPU; one
# sleep (the worker's 3 ms; the hog's start at 3 ms is its start, not a
# sleep replayed); one call_rcu().
case=once
expect_exit 0 "$RCUSIM" run ft.ini --duration 50ms --set workload.trace_loop=no --db r.db --quiet
want_scalars r.db "replay.tasks=2 replay.rounds=2 replay.work_ns=11400000 replay.sleeps=1 replay.call_rcu=1 cb.enqueued=1 replay.span_ns=10000000"
# Looped for 92.5 ms: 9 rounds of each, and the worker's tenth begun (its
# 2 ms burst and its sleep at 92 ms); both asleep at the end.
case=loop
expect_exit 0 "$RCUSIM" run ft.ini --duration 92500us --db r.db --quiet
want_scalars r.db "replay.rounds=18 replay.work_ns=104600000 replay.sleeps=10 replay.call_rcu=9 cb.enqueued=9"
# Twice as fast over half the time: the same counts, half the CPU time.
case=scale
expect_exit 0 "$RCUSIM" run ft.ini --duration 46250us --set workload.trace_time_scale=0.5 --db r.db --quiet
want_scalars r.db "replay.rounds=18 replay.work_ns=52300000 replay.sleeps=10 replay.call_rcu=9 replay.span_ns=5000000"
# Three copies on 6 CPUs: three times everything; the worker (task 0, CPU 0
# of 2) copies on CPUs 0, 2 and 4 (jobs 0, 2, 4 = pids 10000, 10002, 10004
# in the exported timeline), the hog's on 1, 3 and 5.
case=copies
expect_exit 0 "$RCUSIM" run ft.ini --duration 92500us --set workload.trace_tasks=3 --set machine.cores=6 \
	--db r.db --quiet --trace t.txt --trace-format ftrace
want_scalars r.db "replay.rounds=54 replay.work_ns=313800000 replay.sleeps=30 replay.call_rcu=27 cb.enqueued=27"
placed=$(awk '/sched_switch:/ { for (i = 1; i <= NF; i++) if ($i ~ /^next_pid=1000[0-9]$/) {
	cpu = $0; sub(/.*\[/, "", cpu); sub(/\].*/, "", cpu); print substr($i, 10) "@" cpu + 0 } }' t.txt | sort -u | tr '\n' ' ')
[ "$placed" = "10000@0 10001@1 10002@2 10003@3 10004@4 10005@5 " ] && ok || bad "placement: $placed"

# The strace log, once: sh's exec, ld.so.cache and cc's exec, a.c opened
# (4 opens), all closed (ld.so.cache by close(), the rest at the exits:
# 4 closes), the failed open's filp freed too (5 callbacks); CPU 4.0 + 0.8
# ms (sh) + 4.5 ms (cc); one sleep: sh's wait4, unfinished then resumed.
case=strace
expect_exit 0 "$RCUSIM" run st.ini --duration 50ms --set workload.trace_loop=no --db r.db --quiet
want_scalars r.db "replay.tasks=2 replay.rounds=2 vfs.opens=4 vfs.closes=4 cb.enqueued=5 replay.work_ns=9300000 replay.sleeps=1 replay.span_ns=10100000"
[ -z "$(last_scalar r.db replay.call_rcu)" ] && ok || bad "replay.call_rcu in an strace replay"

# A real build's log (make -j2 of rcusim's engine library, 68 processes):
# every open that succeeded opened a file and was closed (by close() or at
# its process's exit), every failed one freed its filp; so the callbacks
# are the opens and the failures counted by hand.
case=build
B=$D/strace-make-j2-rcusim-sim.txt.gz
gzip -dc "$B" | awk -f "$SRC/tests/strace_counts.awk" >hand
opens=$(awk '$1 == "opens" { print $2 }' hand)
failed=$(awk '$1 == "failed" { print $2 }' hand)
sed "s#replay-2cpu-ftrace.txt#strace-make-j2-rcusim-sim.txt.gz#" ft.ini >b.ini
expect_exit 0 "$RCUSIM" run b.ini --duration 30s --set workload.trace_loop=no --db r.db --quiet
want_scalars r.db "replay.tasks=68 replay.rounds=68 vfs.opens=$opens vfs.closes=$opens cb.enqueued=$((opens + failed)) cb.invoked=$((opens + failed)) vfs.nr_files_end=0"
# trace-stats on it: what the Python analysis it replaces printed for this log.
expect_exit 0 "$RCUSIM" trace-stats "$B" --jobs 2
cat >want.txt <<'EOT'
cmake      processes     20  opens/process     50.3  failed 0.003  .so+locale/process 47.0
sh         processes     12  opens/process      2.0  failed 0.000  .so+locale/process 2.0
cc         processes      9  opens/process     14.0  failed 0.429  .so+locale/process 6.0
cc1        processes      9  opens/process    407.3  failed 0.683  .so+locale/process 14.6
as         processes      9  opens/process     19.0  failed 0.316  .so+locale/process 10.0
make       processes      5  opens/process     34.0  failed 0.382  .so+locale/process 17.0
gcc-ar-12  processes      1  opens/process      2.0  failed 0.000  .so+locale/process 2.0
ar         processes      1  opens/process     45.0  failed 0.067  .so+locale/process 19.0
gcc-ranlib-12 processes      1  opens/process      2.0  failed 0.000  .so+locale/process 2.0
ranlib     processes      1  opens/process     27.0  failed 0.111  .so+locale/process 19.0
opens 5239  failed 2686 (0.513)  processes 68  compile units 9
per compile unit: opens 582  processes 7.6
processes alive per job slot: 1.35 (9 process-seconds over 3.4 s, -j2), holding 15.4 .so+locale files each on average (lifetime-weighted)
cc1 run time: mean 302.9 ms  median 315.8 ms  lognormal sigma 0.000
hold times (2544 files): median 406 us  mean 1.82 ms  p90 0.97 ms  p99 16.5 ms
EOT
cmp -s out want.txt && ok || bad "trace-stats: $(diff want.txt out | head -5)"
# Its opens and failures agree with the count by hand (execve's aside).
execs=$(awk '$1 == "execs" { print $2 }' hand)
fexecs=$(awk '$1 == "failed_execs" { print $2 }' hand)
[ $((5239 - 2686)) -eq $((opens - execs)) ] && [ 2686 -eq $((failed - fexecs)) ] && ok ||
	bad "trace-stats opens against the hand count: $opens/$failed, execve $execs/$fexecs"
expect_exit 2 "$RCUSIM" trace-stats "$D/replay-2cpu-ftrace.txt"
expect_err "replay-2cpu-ftrace.txt:7: not an strace -f -ttt line"

# The recorded trace of the guest's churn loop.
case=recorded
cat >rec.ini <<EOI
include = $SRC/scenarios/dev-vm-replay.ini
EOI
expect_exit 0 "$RCUSIM" run rec.ini --duration 1s --db r.db --quiet
# By hand: the tasks sched_switch and sched_wakeup name but those rcusim
# runs itself, and the span from the first event to the last.
hand=$(gzip -dc "$D/tracefs-churn-6.18-hz250.txt.gz" | awk '
/^#/ { next }
{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
	t = substr($i, 1, length($i) - 1) + 0; if (!n++) t0 = t1 = t; if (t > t1) t1 = t; ev = $(i + 1); break } }
function add(comm, pid) { if (pid > 0 && comm !~ /^(swapper|ksoftirqd\/|rcu_preempt|rcu_sched|rcu_exp|rcuc\/|rcuog\/|rcuop\/|rcuos\/|rcub\/|migration\/|cpuhp\/|idle_inject\/)/) seen[pid] = 1 }
ev == "sched_switch:" { match($0, /prev_comm=[^ ]* prev_pid=[0-9]+/); split(substr($0, RSTART, RLENGTH), a, /[= ]/); add(a[2], a[4])
	match($0, /next_comm=[^ ]* next_pid=[0-9]+/); split(substr($0, RSTART, RLENGTH), b, /[= ]/); add(b[2], b[4]) }
ev == "sched_wakeup:" { match($0, /comm=[^ ]* pid=[0-9]+/); split(substr($0, RSTART, RLENGTH), c, /[= ]/); add(c[2], c[4]) }
END { for (p in seen) k++; printf "replay.tasks=%d replay.span_ns=%.0f", k, (t1 - t0) * 1e9 }')
want_scalars r.db "$hand"
# Its recording has no rcu: events (CONFIG_RCU_TRACE off): the replay says
# it carries no call_rcu(), and carries none.
expect_err "warning: .*tracefs-churn-6.18-hz250.txt.gz has no rcu_callback events \(CONFIG_RCU_TRACE off, or not recorded\): the replay carries no call_rcu\(\) of its own"
want_scalars r.db "replay.call_rcu=0"

# One recording in every form the trace library reads (tracefs text,
# trace-cmd report's default, -N and -l text, trace.dat) replays to the
# same results, bit for bit.
case=forms
for f in tracefs.txt.gz report.txt.gz report-N.txt.gz report-l.txt.gz dat; do
	n=rec-pipe-6.18-$f
	[ $f = dat ] && n=rec-pipe-6.18.dat
	expect_exit 0 "$RCUSIM" run rec.ini --duration 200ms --set "workload.trace_file=$D/$n" --db "f-$f.db" --quiet
	"$SRC/scripts/dump-results.sh" "f-$f.db" >"f-$f.txt"
done
nt=$(q f-dat.db "SELECT value FROM scalar WHERE name = 'replay.tasks'")
awk -v v="$nt" 'BEGIN { exit !(v > 0) }' && ok || bad "trace.dat: replay.tasks $nt"
for f in report.txt.gz report-N.txt.gz report-l.txt.gz dat; do
	cmp -s f-tracefs.txt.gz.txt "f-$f.txt" && ok || bad "$f replays otherwise than the tracefs text: $(diff f-tracefs.txt.gz.txt "f-$f.txt" | head -3)"
done

case=errors
sed "/trace_file/d" ft.ini >none.ini
expect_exit 2 "$RCUSIM" run none.ini --duration 10ms --db e.db --quiet
expect_err "workload.trace_file \(default\): workload.kind = trace replays a recording: name it"
expect_exit 2 "$RCUSIM" run ft.ini --duration 10ms --set workload.trace_file=missing.txt --db e.db --quiet
expect_err "^--set: workload.trace_file: missing.txt: No such file or directory"
{ head -8 "$D/replay-2cpu-ftrace.txt"; echo "worker-100 [000] d..2. 1000.009: sched_switch: prev_comm=worker"; } >bad.txt
expect_exit 2 "$RCUSIM" run ft.ini --duration 10ms --set workload.trace_file=bad.txt --db e.db --quiet
expect_err "bad.txt:9: not a tracefs event"
{ cat "$D/replay-strace.txt"; printf '100 1000.011 close(3'; } >cut.txt
expect_exit 2 "$RCUSIM" run st.ini --duration 10ms --set workload.trace_file=cut.txt --db e.db --quiet
expect_err "cut.txt is truncated \(line 19 is cut\)"
expect_exit 2 "$RCUSIM" run ft.ini --duration 10ms --set workload.jobs=4 --db e.db --quiet
expect_err "^--set: workload.jobs: the trace workload's tasks are the recording's"
[ "$(q e.db "SELECT count(*) FROM run" 2>/dev/null || echo 0)" = 0 ] && ok || bad "a run was recorded"
finish
