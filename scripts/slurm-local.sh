#!/bin/sh
# slurm-local.sh start DIR | stop DIR - a one-node Slurm on this machine, for
# trying `rcusim sweep --backend slurm` and for its test (tests/sweep_cluster.sh).
# munged, slurmctld and slurmd run as the current user, with every file they
# use in DIR: the generated slurm.conf and munge key, state, spool, logs, pid
# files and munge's socket. They listen on two free ports and speak only to
# 127.0.0.1. The node is "localhost" with this machine's CPUs in partition
# "test"; no accounting (sacct needs slurmdbd and a MySQL server).
#
# `start` waits until the node is idle and prints the line to source,
#   export SLURM_CONF=DIR/slurm.conf
# which every Slurm command (sbatch, squeue, sinfo, scontrol) then uses.
# `stop` ends the three daemons by the process ids in DIR's pid files. The
# folders above DIR must be searchable by all (munged refuses otherwise).
# Exit status: 0; 2 bad usage; 3 a program missing or a daemon that did not
# start (its log's end is shown). Needs the Debian packages slurm-wlm and
# munge (scripts/setup-debian.sh installs them).
set -eu

usage() {
	echo "usage: $0 start DIR | stop DIR" >&2
	exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
DIR=$2

# The pid in DIR/$1, if that process is alive.
alive_pid() {
	[ -s "$DIR/$1" ] || return 1
	pid=$(cat "$DIR/$1")
	kill -0 "$pid" 2>/dev/null && echo "$pid"
}

stop() {
	pids=
	for f in slurmd.pid slurmctld.pid munged.pid; do
		pid=$(alive_pid $f) || continue
		kill "$pid" 2>/dev/null || true
		pids="$pids $pid"
	done
	i=0
	for pid in $pids; do
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$pid" 2>/dev/null || true
	done
}

# A TCP port nobody listens on (nor uses) here, 20000-49999.
free_port() {
	while :; do
		p=$(($(od -An -N2 -tu2 /dev/urandom) % 30000 + 20000))
		hex=$(printf '%04X' "$p")
		if ! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
			awk 'NR > 1 { split($2, a, ":"); print a[2] }' | grep -qx "$hex"; then
			[ "$p" != "${1:-}" ] && echo "$p" && return
		fi
	done
}

fail() {
	echo "$0: $*" >&2
	for log in munged.log slurmctld.log slurmd.log; do
		if [ -s "$DIR/$log" ]; then
			echo "--- the end of $DIR/$log:" >&2
			tail -15 "$DIR/$log" >&2
		fi
	done
	stop
	exit 3
}

case $cmd in
stop)
	stop
	exit 0
	;;
start) ;;
*) usage ;;
esac

for prog in munged slurmctld slurmd sinfo; do
	command -v $prog >/dev/null 2>&1 || [ -x /usr/sbin/$prog ] ||
		{ echo "$0: $prog not found: install the Debian packages slurm-wlm and munge (scripts/setup-debian.sh)" >&2; exit 3; }
done
PATH=$PATH:/usr/sbin
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
# munged wants its socket's folder, and every folder above it, searchable
# by all, and writable by none but its owner (or sticky, as /tmp).
chmod 755 "$DIR"
mkdir -p "$DIR/state" "$DIR/spool"
me=$(id -un)
host=$(uname -n | cut -d. -f1)

# A fresh munge key (1 KiB of random bytes, only for this user).
(umask 077 && dd if=/dev/urandom of="$DIR/munge.key" bs=1024 count=1 2>/dev/null)
munged --socket="$DIR/munge.sock" --key-file="$DIR/munge.key" --pid-file="$DIR/munged.pid" \
	--log-file="$DIR/munged.log" --seed-file="$DIR/munged.seed" ||
	fail "munged did not start"

ctld_port=$(free_port)
slurmd_port=$(free_port "$ctld_port")
cat >"$DIR/slurm.conf" <<EOF
# Written by rcusim's scripts/slurm-local.sh: a one-node cluster on 127.0.0.1.
ClusterName=rcusim
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$me
SlurmdUser=$me
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge.sock
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: processes are tracked through /proc, tasks are not confined.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# Schedule at once, not every few seconds: a test's tasks last a second.
SchedulerParameters=sched_interval=1,bf_interval=1,sched_min_interval=0
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$DIR/slurm.conf"
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N localhost || fail "slurmd did not start"
i=0
until [ "$(sinfo --noheader --nodes=localhost --format=%T 2>/dev/null)" = idle ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "the node did not become idle in 30 s: $(sinfo 2>&1 | tail -2)"
	sleep 0.1
done
echo "export SLURM_CONF=$SLURM_CONF"
