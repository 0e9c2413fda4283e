#!/bin/sh
# record.sh RCUSIM SRCDIR - rcusim record: this box's tracefs through
# libtracefs, in a private instance, nothing left enabled.
# - no tracefs where RCUSIM_TRACEFS points: said, exit 3, no output left;
# - a tracefs that refuses what recording needs (a directory that is no
#   tracefs: the instance's buffer size and events cannot be set): said,
#   exit 3, and its instance removed again;
# - not root (setpriv to nobody): said, exit 3, no instance;
# - as root with tracefs (skipped, saying so, elsewhere): 1 s of the pipe
#   load on CPU 0 recorded, imported with RCU passes and (when the kernel
#   takes the kmem filter) callbacks invoked; the box's own events
#   (set_event, tracing_on) as they were, no instance left.
. "$(dirname "$0")/lib.sh"

case=notracefs
RCUSIM_TRACEFS=$T/none expect_exit 3 "$RCUSIM" record out.txt --seconds 1 --load none
expect_err 'no tracefs'
[ ! -e out.txt ] && ok || bad "a failed recording left its output"

case=refused
mkdir -p fake/instances
RCUSIM_TRACEFS=$T/fake expect_exit 3 "$RCUSIM" record out.txt --seconds 1 --load none
expect_err 'rcusim record: tracefs: '
[ -z "$(ls fake/instances)" ] && ok || bad "an instance was left: $(ls fake/instances)"

case=usage
expect_exit 2 "$RCUSIM" record out.txt --load fork
expect_err '--load fork: pipe, socket, file, sync or none'
expect_exit 2 "$RCUSIM" record out.txt --seconds 0
expect_err '--seconds 0: want whole seconds'
expect_exit 2 "$RCUSIM" record out.txt --loops 0
expect_err '--loops 0: want a whole number, 1 to 64'
expect_exit 2 "$RCUSIM" record out.txt --buffer-kb 12x
expect_err '--buffer-kb 12x: want a whole number'

# The membarrier syscall events in both text forms (tracefs' own,
# kernel/trace/trace_syscalls.c 6.18:149-172 and :203, and the print fmt
# trace-cmd uses), paired by pid: the calls of MEMBARRIER_CMD_GLOBAL (cmd
# 1) timed, another command (0x10, private expedited) and an exit with no
# entry not counted: 3 calls of 8, 16 and 12 ms.
case=syscall-events
cat >sc.txt <<'TRACE'
# tracer: nop
     rcusim-load-10  [000] .....   100.000000: sys_membarrier(cmd: 1, flags: 0, cpu_id: 0)
     rcusim-load-11  [001] .....   100.001000: sys_membarrier -> 0x0
     rcusim-load-12  [001] .....   100.002000: sys_membarrier(cmd: 0x10, flags: 0, cpu_id: 0)
     rcusim-load-12  [001] .....   100.003000: sys_membarrier -> 0x0
     rcusim-load-10  [000] .....   100.008000: sys_membarrier -> 0x0
     rcusim-load-11  [001] .....   100.009000: sys_enter_membarrier: cmd: 0x00000001, flags: 0x00000000, cpu_id: 0x00000000
     rcusim-load-10  [000] .....   100.010000: sys_membarrier(cmd: 1, flags: 0, cpu_id: 0)
     rcusim-load-10  [000] .....   100.022000: sys_membarrier -> 0x0
     rcusim-load-11  [001] .....   100.025000: sys_exit_membarrier: 0x0
     rcusim-load-10  [000] .....   100.027000: rcu_utilization: Start context switch
TRACE
expect_exit 0 "$RCUSIM" import sc.txt --db sc.db
sc() { q sc.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE name = '$1'"; }
[ "$(sc syncrcu.calls)/$(sc syncrcu.returned)" = 3/3 ] && ok || bad "calls $(sc syncrcu.calls), returned $(sc syncrcu.returned) (wanted 3/3)"
[ "$(sc syncrcu.latency_mean_ns)/$(sc syncrcu.latency_max_ns)" = 12000000/16000000 ] && ok ||
	bad "latency mean $(sc syncrcu.latency_mean_ns) max $(sc syncrcu.latency_max_ns) (wanted 12 and 16 ms)"

TR=/sys/kernel/tracing
if [ "$(id -u)" != 0 ] || [ ! -w $TR/instances ]; then
	echo "SKIP: not root with a writable tracefs at $TR: the real recording and the non-root refusal not run"
	finish
	exit $?
fi

case=nonroot
if command -v setpriv >/dev/null 2>&1; then
	chmod 777 "$T"
	expect_exit 3 setpriv --reuid=65534 --regid=65534 --clear-groups "$RCUSIM" record "$T/nr.txt" --seconds 1 --load none
	expect_err 'needs root'
	[ -z "$(ls $TR/instances | grep rcusim-record)" ] && ok || bad "a non-root recording left an instance"
else
	echo "SKIP: no setpriv: the non-root refusal not run"
fi

case=real
before=$(cat $TR/set_event $TR/tracing_on | md5sum)
expect_exit 0 "$RCUSIM" record rec.txt --seconds 1 --load pipe --cpus 0
expect_out 'recorded 1 s of CPUs 0 under the pipe load \(1 a CPU\) into rec.txt, 0 events lost'
[ "$(cat $TR/set_event $TR/tracing_on | md5sum)" = "$before" ] && ok || bad "the box's own set_event or tracing_on changed"
[ -z "$(ls $TR/instances | grep rcusim-record)" ] && ok || bad "the instance was left: $(ls $TR/instances)"
expect_exit 0 "$RCUSIM" import rec.txt --db rec.db
n=$(q rec.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE name = 'softirq.passes_irq_exit'")
m=$(q rec.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE name = 'softirq.passes_ksoftirqd'")
[ -n "$n" ] && [ $((n + m)) -gt 0 ] && ok || bad "no RCU softirq pass recorded"
[ "$(q rec.db "SELECT value FROM param WHERE name = 'trace.cpus'")" -ge 1 ] && ok || bad "trace.cpus"
if grep -q 'kmem_cache_free: call_site=rcu_do_batch' rec.txt; then
	[ "$(q rec.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE name = 'cb.invoked'")" -gt 0 ] && ok ||
		bad "callbacks invoked from the kmem frees"
else
	echo "SKIP: the kernel took no kmem_cache_free filter on rcu_do_batch: cb.invoked not checked"
fi
# Only CPU 0 traced.
[ "$(grep -v '^#' rec.txt | grep -vc '\[000\]')" = 0 ] && ok || bad "events of other CPUs than 0"
# Nothing lost: the header's entries in the buffer are the entries written.
grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' rec.txt && ok ||
	bad "the 1 s recording lost events: $(sed -n 3p rec.txt)"

# The sync load: membarrier(MEMBARRIER_CMD_GLOBAL) back to back on CPU 0,
# each one synchronize_rcu() of at least a jiffy's FQS wait and less than
# a second (an idle guest's is 2-4 jiffies).
case=sync
expect_exit 0 "$RCUSIM" record sync.txt --seconds 1 --load sync --cpus 0
expect_out 'under the sync load \(1 a CPU\) into sync.txt'
[ "$(cat $TR/set_event $TR/tracing_on | md5sum)" = "$before" ] && ok || bad "the box's own set_event or tracing_on changed"
expect_exit 0 "$RCUSIM" import sync.txt --db sync.db
n=$(q sync.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE name = 'syncrcu.returned'")
l=$(q sync.db "SELECT CAST(value AS INTEGER) FROM scalar WHERE name = 'syncrcu.latency_mean_ns'")
[ -n "$n" ] && [ "$n" -ge 5 ] && [ "$l" -ge 1000000 ] && [ "$l" -lt 1000000000 ] && ok ||
	bad "the sync load: $n calls returned, mean $l ns"

# A buffer too small for four pipe loops (64 KB, a few thousand events):
# the overrun said, with the count the kernel gives (its header's entries
# written less those in the buffer), and the trace still a trace.
case=overrun
expect_exit 0 "$RCUSIM" record small.txt --seconds 1 --load pipe --loops 4 --cpus 0 --buffer-kb 64
lost=$(sed -n 's/.*entries-in-buffer\/entries-written: \([0-9]*\)\/\([0-9]*\) .*/\2 \1/p' small.txt | awk '{print $1 - $2}')
[ -n "$lost" ] && [ "$lost" -gt 0 ] && ok || bad "64 KB under four loops lost nothing ($(sed -n 3p small.txt))"
expect_err "rcusim record: the buffer \(64 KB a CPU\) overwrote $lost events: small.txt keeps the last part of the 1 s only"
expect_out "\(4 a CPU\) into small.txt, $lost events lost"
[ -z "$(ls $TR/instances | grep rcusim-record)" ] && ok || bad "the instance was left: $(ls $TR/instances)"
finish
