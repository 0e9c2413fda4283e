#!/bin/sh
# record-churn-trace.sh OUT [SECONDS [KIND [LOOPS]]] - record, as root, what
# tests/data/tracefs-churn-6.18-hz250.txt.gz holds, on this machine: LOOPS
# (default 1) churn loops pinned to each CPU (scripts/churn.c; KIND file,
# the default: create, close and unlink a file; pipe: pipe() and close();
# socket: an AF_UNIX socket() and close()), and SECONDS (default 0.5) of
# irq:softirq_entry/exit/raise, sched:sched_switch/wakeup,
# rcu:rcu_utilization and kmem:kmem_cache_free filtered to the frees RCU
# callbacks make (ext4 and socket inodes, and whatever rcu_do_batch() frees
# itself: the LSM blobs), in the tracefs text format with the mono clock,
# one second into the load. Mounts tracefs if it is not, and puts back
# every setting it changed. Needs gcc, and /tmp on ext4 for the inode
# frees of KIND file (another file system frees its own cache).
set -eu
out=$1
secs=${2:-0.5}
kind=${3:-file}
loops=${4:-1}
src=$(cd "$(dirname "$0")" && pwd)
T=/sys/kernel/tracing
work=$(mktemp -d)
mounted=
pids=
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
	[ -z "$pids" ] || kill $pids 2>/dev/null || true
	wait
	rm -rf "$work"
	[ -z "$mounted" ] || umount $T
}
trap cleanup EXIT
gcc -O2 -o "$work/churn" "$src/churn.c"
echo mono >$T/trace_clock
echo 65536 >$T/buffer_size_kb
echo 'name == "ext4_inode_cache" || name == "sock_inode_cache" || call_site.function == rcu_do_batch' \
	>$T/events/kmem/kmem_cache_free/filter
echo >$T/trace
n=$(nproc)
i=0
while [ $i -lt "$n" ]; do
	j=0
	while [ $j -lt "$loops" ]; do
		mkdir -p "$work/d$i.$j"
		taskset -c $i "$work/churn" "$work/d$i.$j" 1000000 "$kind" >/dev/null &
		pids="$pids $!"
		j=$((j + 1))
	done
	i=$((i + 1))
done
sleep 1
for e in $events; do echo 1 >$T/events/$e/enable; done
sleep "$secs"
for e in $events; do echo 0 >$T/events/$e/enable; done
cat $T/trace >"$out"
grep -H -E 'overrun|dropped' $T/per_cpu/cpu*/stats >&2
