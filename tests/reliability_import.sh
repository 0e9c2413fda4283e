#!/bin/sh
# reliability_import.sh RCUSIM SRCDIR [CASE...] - traces are imported,
# replayed and summed without losing or misreading a line (issue 46). One
# function per case (all of them, or the CASEs named):
#   kvm_tasks     lines of QEMU's vCPU threads ("CPU 0/KVM-1234 [001] ...")
#                 are events, not trace-cmd's "CPU 0 is empty" header, in
#                 import and replay; the headers themselves still are skipped
#   order         lines out of order within the 10 ms window are sorted into
#                 place (no wrapped grace period); beyond it, exit 2 naming
#                 the line, in import, replay and trace-stats; times past
#                 2^32 s are refused by name, never overflowed
#   pid_reuse     a pid reused after its process exited is a new process, in
#                 trace-stats and the replay of an strace log and a tracefs
#                 trace
#   target_cpu    target_cpu= outside 6 digits is exit 2 naming the line (it
#                 crashed, hung or wrote out of bounds)
#   span          a span whose samples would pass run's limit of points is
#                 exit 2 with the interval that fits, before any is taken
#   no_gzip       a .gz with no gzip to run is exit 3 naming gzip, not the
#                 file, in import, trace-stats and replay
#   smaller       a directory is exit 2 saying so; a pid above 2^22 is an
#                 strace line; loss counts past 10^18 (and their wrap) are
#                 exit 2 with one message; non-printable bytes are escaped
#                 when a message quotes a line
. "$(dirname "$0")/lib.sh"
# Every command under a time limit: some of these inputs hung rcusim.
to() { timeout "${TIMEOUT_S:-60}" "$@"; }
# A scenario replaying FILE on the 2-CPU guest, as tests/replay.sh's.
replay_ini() {
	cat >"$1" <<EOI
include = $SRC/scenarios/machines/dev-vm-2.ini
include = $SRC/scenarios/kernels/dev-vm-6.18.ini
[scenario]
sample_interval = 10ms
[workload]
kind = trace
trace_file = $2
trace_loop = no
EOI
}
sw() { # sw CPU TIME PREV_COMM PREV_PID STATE NEXT_COMM NEXT_PID
	printf '%16s-%-5s [%03d] d..2. %s: sched_switch: prev_comm=%s prev_pid=%s prev_prio=120 prev_state=%s ==> next_comm=%s next_pid=%s next_prio=120\n' \
		"$3" "$4" "$1" "$2" "$3" "$4" "$5" "$6" "$7"
}
runs() { q "$1" 'SELECT count(*) FROM run'; }

kvm_tasks() {
	case=kvm_tasks
	{
		echo 'cpus=2'
		echo 'version = 6'
		echo 'CPU 1 is empty'
		echo 'CPU:0 [LOST 3 EVENTS]'
		sw 0 100.000000 swapper/0 0 R 'CPU 0/KVM' 1234
		sw 0 100.002000 'CPU 0/KVM' 1234 S swapper/0 0
		sw 0 100.003000 swapper/0 0 R 'CPU 0/KVM' 1234
		sw 0 100.004000 'CPU 0/KVM' 1234 S swapper/0 0
	} >kvm.txt
	expect_exit 0 to "$RCUSIM" import kvm.txt --db k.db
	want_scalars k.db "sched.ctxsw=4"
	[ "$(q k.db "SELECT value FROM param WHERE name = 'trace.lines'")" = 4 ] && ok || bad "trace.lines"
	[ "$(q k.db "SELECT value FROM param WHERE name = 'trace.lost'")" = 3 ] && ok || bad "trace.lost"
	replay_ini kvm.ini "$T/kvm.txt"
	expect_exit 0 to "$RCUSIM" run kvm.ini --duration 20ms --db kr.db --quiet
	# The vCPU thread: 2 ms + 1 ms of CPU, one 1 ms sleep between.
	want_scalars kr.db "replay.tasks=1 replay.work_ns=3000000 replay.sleeps=1"
}

order() {
	case=order
	cat >near.txt <<'EOF'
  rcu_preempt-15 [001] d..1. 100.000000: rcu_grace_period: rcu_preempt 5 start
  rcu_preempt-15 [000] d..1. 99.995000: rcu_grace_period: rcu_preempt 4 end
  rcu_preempt-15 [001] d..1. 100.000500: rcu_grace_period: rcu_preempt 5 end
  rcu_preempt-15 [000] d..1. 99.994000: rcu_grace_period: rcu_preempt 4 start
EOF
	# Sorted: 4 from 99.994 to 99.995, 5 from 100.0 to 100.0005; 6.5 ms.
	expect_exit 0 to "$RCUSIM" import near.txt --db n.db
	want_scalars n.db "gp.completed=2 gp.duration_max_ns=1000000"
	[ "$(q n.db 'SELECT sim_duration_ns FROM run')" = 6500000 ] && ok || bad "run length $(q n.db 'SELECT sim_duration_ns FROM run')"
	cat >far.txt <<'EOF'
  rcu_preempt-15 [001] d..1. 100.000000: rcu_grace_period: rcu_preempt 5 start
  rcu_preempt-15 [001] d..1. 100.050000: rcu_grace_period: rcu_preempt 5 end
  rcu_preempt-15 [000] d..1. 99.999900: rcu_grace_period: rcu_preempt 6 start
EOF
	expect_exit 2 to "$RCUSIM" import far.txt --db f.db
	expect_err_line 'far.txt:3: its time, 99.999900 s, is 0.050100 s before line 2'"'"'s: out of order by more than the 10 ms import sorts (traces joined, or a clock that jumped?)'
	[ ! -e f.db ] || [ "$(runs f.db)" = 0 ] && ok || bad "a refused import left a run"
	replay_ini far.ini "$T/far.txt"
	expect_exit 2 to "$RCUSIM" run far.ini --duration 10ms --db fr.db --quiet
	expect_err 'far.txt:3: its time is 0.050100 s before line 2.s: out of order'
	printf '100 1000.000000 close(3) = 0\n101 1000.500000 close(3) = 0\n100 1000.000100 close(4) = 0\n' >far.st
	expect_exit 2 to "$RCUSIM" trace-stats far.st
	expect_err 'far.st:3: its time is 0.499900 s before line 2.s: out of order'
	# Times past 2^32 s: refused by name (they overflowed the ns product).
	sw 0 9300000000.000000 a 1 S b 2 >huge.txt
	expect_exit 2 to "$RCUSIM" import huge.txt --db h.db
	expect_err 'huge.txt:1: its time is past 4294967295 s'
	printf '100 9300000000.000000 close(3) = 0\n' >huge.st
	expect_exit 2 to "$RCUSIM" trace-stats huge.st
	expect_err 'huge.st:1: its time is past 4294967295 s'
	replay_ini huge.ini "$T/huge.st"
	expect_exit 2 to "$RCUSIM" run huge.ini --duration 10ms --db hr.db --quiet
	expect_err 'huge.st:1: its time is past 4294967295 s'
}

pid_reuse() {
	case=pid_reuse
	cat >reuse.st <<'EOF'
100 1000.000000 execve("/usr/bin/cc1", ["cc1"], 0x7ffc /* 20 vars */) = 0
100 1000.001000 openat(AT_FDCWD, "a.c", O_RDONLY) = 3
100 1000.002000 exit_group(0)           = ?
100 1000.002000 +++ exited with 0 +++
100 1000.003000 execve("/usr/bin/cc1", ["cc1"], 0x7ffc /* 20 vars */) = 0
100 1000.004000 close(3)                = 0
100 1000.005000 exit_group(0)           = ?
100 1000.005000 +++ exited with 0 +++
EOF
	expect_exit 0 to "$RCUSIM" trace-stats reuse.st
	expect_out '^cc1 +processes +2 '
	# The second process's close(3) is of no file it opened: no hold time.
	grep -q 'hold times' "$T/out" && bad "a close paired with another process's open" || ok
	replay_ini reuse.ini "$T/reuse.st"
	expect_exit 0 to "$RCUSIM" run reuse.ini --duration 20ms --db r.db --quiet
	want_scalars r.db "replay.tasks=2"
	{
		sw 0 100.000000 swapper/0 0 R worker 100
		sw 0 100.001000 worker 100 X swapper/0 0
		sw 0 100.002000 swapper/0 0 R worker 100
		sw 0 100.004000 worker 100 S swapper/0 0
	} >reuse.txt
	replay_ini reuseft.ini "$T/reuse.txt"
	expect_exit 0 to "$RCUSIM" run reuseft.ini --duration 20ms --db rf.db --quiet
	want_scalars rf.db "replay.tasks=2 replay.work_ns=3000000"
}

target_cpu() {
	case=target_cpu
	for v in 2147483648 1500000000 4294967295 1000000000; do
		printf '  x-1 [000] d..1. 100.000000: sched_wakeup: comm=ksoftirqd/0 pid=3 prio=120 target_cpu=%s\n' "$v" >tc.txt
		expect_exit 2 to "$RCUSIM" import tc.txt --db t.db
		expect_err '^tc.txt:1: target_cpu= is not a CPU number \(at most 6 digits, as \[CPU\]\)'
	done
	printf '  x-1 [000] d..1. 100.000000: sched_wakeup: comm=ksoftirqd/0 pid=3 prio=120 target_cpu=999\n' >tc.txt
	expect_exit 0 to "$RCUSIM" import tc.txt --db t.db
	[ "$(runs t.db)" = 1 ] && ok || bad "runs: $(runs t.db)"
}

span() {
	case=span
	{
		sw 0 100.000000 a 1 S b 2
		sw 0 9000000.000000 a 1 S b 2
	} >span.txt
	expect_exit 2 to "$RCUSIM" import span.txt --db s.db
	expect_err_line 'rcusim import: span.txt: its 8999900.000000 s of 1 CPU sampled every --sample 100ms is 89999001 samples of each of 2 series: 179998002 points, 2.68 GiB in memory, over the limit of 100000000 points (1.49 GiB); use an interval of at least 180ms'
	[ ! -e s.db ] || [ "$(runs s.db)" = 0 ] && ok || bad "a refused import left a run"
}

no_gzip() {
	case=no_gzip
	sw 0 100.000000 a 1 S b 2 | gzip >t.txt.gz
	printf '100 1000.000000 close(3) = 0\n' | gzip >t.st.gz
	expect_exit 3 env PATH=/nonexistent "$RCUSIM" import t.txt.gz --db g.db
	expect_err_line 'rcusim import: t.txt.gz: cannot run gzip -dc to read it: No such file or directory'
	expect_exit 3 env PATH=/nonexistent "$RCUSIM" trace-stats t.st.gz
	expect_err_line 'rcusim trace-stats: t.st.gz: cannot run gzip -dc to read it: No such file or directory'
	replay_ini gz.ini "$T/t.st.gz"
	expect_exit 3 env PATH=/nonexistent "$RCUSIM" run gz.ini --duration 10ms --db gr.db --quiet
	expect_err 't.st.gz: cannot run gzip -dc to read it: No such file or directory'
	# A missing file is still the file's fault.
	expect_exit 2 "$RCUSIM" import missing.txt.gz --db g.db
	expect_err_line 'rcusim import: missing.txt.gz: No such file or directory'
}

smaller() {
	case=smaller
	mkdir dir dir.gz
	for d in dir dir.gz; do
		expect_exit 2 to "$RCUSIM" import $d --db d.db
		expect_err_line "rcusim import: $d: Is a directory"
		expect_exit 2 to "$RCUSIM" trace-stats $d
		expect_err_line "rcusim trace-stats: $d: Is a directory"
	done
	replay_ini dir.ini "$T/dir"
	expect_exit 2 to "$RCUSIM" run dir.ini --duration 10ms --db dr.db --quiet
	expect_err 'dir: Is a directory'
	# A pid above PID_MAX_LIMIT's 2^22 (4194304) is still a pid.
	cat >bigpid.st <<'EOF'
5000000 1000.000000 execve("/usr/bin/cc1", ["cc1"], 0x7ffc /* 20 vars */) = 0
5000000 1000.001000 exit_group(0)           = ?
EOF
	expect_exit 0 to "$RCUSIM" trace-stats bigpid.st
	expect_out '^cc1 +processes +1 '
	replay_ini bigpid.ini "$T/bigpid.st"
	expect_exit 0 to "$RCUSIM" run bigpid.ini --duration 10ms --db bp.db --quiet
	want_scalars bp.db "replay.tasks=1"
	# Loss counts: summed past 2^64 (they wrapped) or near it, one message.
	{
		echo 'CPU:0 [LOST 18446744073709551615 EVENTS]'
		echo 'CPU:1 [LOST 2 EVENTS]'
		sw 0 100.000000 a 1 S b 2
	} >wrap.txt
	expect_exit 2 to "$RCUSIM" import wrap.txt --db w.db
	expect_err_line 'wrap.txt:1: the trace says it lost more than 10^18 events: not a count a ring buffer reaches'
	{
		echo '# entries-in-buffer/entries-written: 5/18446744073709551615   #P:2'
		sw 0 100.000000 a 1 S b 2
	} >written.txt
	expect_exit 2 to "$RCUSIM" import written.txt --db w.db
	expect_err_line 'written.txt:1: the trace says it lost more than 10^18 events: not a count a ring buffer reaches'
	[ "$(wc -l <"$T/err")" = 1 ] && ok || bad "more than one message: $(cat "$T/err")"
	[ ! -e w.db ] || [ "$(runs w.db)" = 0 ] && ok || bad "a refused import left a run"
	# Bytes a terminal would act on, escaped.
	printf 'x\001\033[2J\377y\n' >bin.txt
	expect_exit 2 to "$RCUSIM" import bin.txt --db b.db
	expect_err_line 'bin.txt:1: not a trace line: x\x01\x1b[2J\xffy'
	cp bin.txt bin.st
	expect_exit 2 to "$RCUSIM" trace-stats bin.st
	expect_err_line 'bin.st:1: not an strace -f -ttt line: x\x01\x1b[2J\xffy'
	replay_ini bin.ini "$T/bin.st"
	expect_exit 2 to "$RCUSIM" run bin.ini --duration 10ms --db br.db --quiet
	expect_err 'bin.st:1: not an strace -f -ttt line: x\\x01\\x1b\[2J\\xffy'
}

for c in ${@:-kvm_tasks order pid_reuse target_cpu span no_gzip smaller}; do
	$c
done
finish
