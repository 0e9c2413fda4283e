#!/bin/sh
# record-churn-trace.sh OUT [SECONDS] - record, as root, what
# tests/data/tracefs-churn-6.18-hz250.txt.gz holds, on this machine: one
# file-churn loop (scripts/churn.c: create, close and unlink a file) pinned
# to each CPU, and SECONDS (default 0.5) of irq:softirq_entry/exit/raise,
# sched:sched_switch/wakeup, rcu:rcu_utilization and kmem:kmem_cache_free
# filtered to ext4_inode_cache, in the tracefs text format with the mono
# clock, one second into the load. Mounts tracefs if it is not, and puts
# back every setting it changed. Needs gcc, and /tmp on ext4 for the inode
# frees (another file system frees its own cache: change the filter).
set -eu
out=$1
secs=${2:-0.5}
src=$(cd "$(dirname "$0")" && pwd)
T=/sys/kernel/tracing
work=$(mktemp -d)
mounted=
[ -e $T/trace ] || { mount -t tracefs nodev $T; mounted=1; }
clock=$(sed 's/.*\[\(.*\)\].*/\1/' $T/trace_clock)
size=$(cat $T/buffer_size_kb | sed 's/ .*//')
events="irq/softirq_entry irq/softirq_exit irq/softirq_raise sched/sched_switch sched/sched_wakeup
rcu/rcu_utilization kmem/kmem_cache_free"
cleanup() {
	for e in $events; do echo 0 >$T/events/$e/enable; done
	echo 0 >$T/events/kmem/kmem_cache_free/filter
	echo "$clock" >$T/trace_clock
	echo "$size" >$T/buffer_size_kb
	echo >$T/trace
	pkill -f "$work/churn" 2>/dev/null || true
	rm -rf "$work"
	[ -z "$mounted" ] || umount $T
}
trap cleanup EXIT
gcc -O2 -o "$work/churn" "$src/churn.c"
echo mono >$T/trace_clock
echo 65536 >$T/buffer_size_kb
echo 'name == "ext4_inode_cache"' >$T/events/kmem/kmem_cache_free/filter
echo >$T/trace
n=$(nproc)
i=0
while [ $i -lt "$n" ]; do
	mkdir -p "$work/d$i"
	taskset -c $i "$work/churn" "$work/d$i" 1000000 >/dev/null &
	i=$((i + 1))
done
sleep 1
for e in $events; do echo 1 >$T/events/$e/enable; done
sleep "$secs"
for e in $events; do echo 0 >$T/events/$e/enable; done
cat $T/trace >"$out"
grep -H -E 'overrun|dropped' $T/per_cpu/cpu*/stats >&2
