#!/bin/sh
# slurm-local.sh start DIR [--accounting] | stop DIR - a one-node Slurm on
# this machine, for trying `rcusim sweep --backend slurm` and for its test
# (tests/sweep_cluster.sh).
# munged, slurmctld and slurmd run as the current user, with every file they
# use in DIR: the generated slurm.conf and munge key, state, spool, logs, pid
# files and munge's socket. They listen on two free ports and speak only to
# 127.0.0.1. The node is "localhost" with this machine's CPUs in partition
# "test". No accounting unless --accounting: then a MariaDB server (its
# data in DIR/mysql) and slurmdbd start too, on 127.0.0.1, so that sacct
# works; that needs the Debian packages mariadb-server and slurmdbd, which
# the tests do not use (scripts/setup-debian.sh leaves them out).
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
	echo "usage: $0 start DIR [--accounting] | stop DIR" >&2
	exit 2
}
[ $# -ge 2 ] || usage
cmd=$1
DIR=$2
accounting=
case $cmd/$# in
start/3) [ "$3" = --accounting ] && accounting=yes || usage ;;
*/2) ;;
*) usage ;;
esac

# The pid in DIR/$1, if that process is alive.
alive_pid() {
	[ -s "$DIR/$1" ] || return 1
	pid=$(cat "$DIR/$1")
	kill -0 "$pid" 2>/dev/null && echo "$pid"
}

stop() {
	pids=
	for f in slurmd.pid slurmctld.pid slurmdbd.pid mariadbd.pid munged.pid; do
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

# A TCP port nobody uses here, 20000-49999, and none of those given.
free_port() {
	while :; do
		p=$(($(od -An -N2 -tu2 /dev/urandom) % 30000 + 20000))
		case " $* " in *" $p "*) continue ;; esac
		hex=$(printf '%04X' "$p")
		if ! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
			awk 'NR > 1 { split($2, a, ":"); print a[2] }' | grep -qx "$hex"; then
			echo "$p"
			return
		fi
	done
}

fail() {
	echo "$0: $*" >&2
	for log in munged.log mariadbd.log slurmdbd.log slurmctld.log slurmd.log; do
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
for prog in ${accounting:+mariadbd mariadb-install-db mariadb slurmdbd sacctmgr}; do
	command -v $prog >/dev/null 2>&1 || [ -x /usr/sbin/$prog ] ||
		{ echo "$0: --accounting: $prog not found: install the Debian packages mariadb-server and slurmdbd" >&2; exit 3; }
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

gather=none
storage=none
[ -z "$accounting" ] || { gather=linux; storage=slurmdbd; }
ctld_port=$(free_port)
slurmd_port=$(free_port "$ctld_port")
dbd_port=$(free_port "$ctld_port" "$slurmd_port")
db_port=$(free_port "$ctld_port" "$slurmd_port" "$dbd_port")
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
JobAcctGatherType=jobacct_gather/$gather
AccountingStorageType=accounting_storage/$storage
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

if [ -n "$accounting" ]; then
	# slurmdbd, and the MariaDB server it keeps its records in.
	cat >>"$SLURM_CONF" <<EOF
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
# For slurmdbd, the password is the socket of munged.
AccountingStoragePass=$DIR/munge.sock
EOF
	pass=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	mkdir -p "$DIR/mysql"
	mariadb-install-db --no-defaults --datadir="$DIR/mysql" --user="$me" \
		--auth-root-authentication-method=normal --skip-test-db >"$DIR/mariadbd.log" 2>&1 ||
		fail "mariadb-install-db failed"
	mariadbd --no-defaults --datadir="$DIR/mysql" --socket="$DIR/mysql.sock" --port="$db_port" \
		--bind-address=127.0.0.1 --skip-name-resolve --user="$me" --pid-file="$DIR/mariadbd.pid" \
		--log-error="$DIR/mariadbd.log" >/dev/null 2>&1 &
	i=0
	until mariadb --no-defaults --socket="$DIR/mysql.sock" -u root -e 'SELECT 1' >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 300 ] || fail "mariadbd did not start in 30 s"
		sleep 0.1
	done
	mariadb --no-defaults --socket="$DIR/mysql.sock" -u root -e "CREATE USER 'slurm'@'127.0.0.1'
		IDENTIFIED BY '$pass'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1'" ||
		fail "cannot make slurmdbd's database user"
	# slurmdbd reads slurmdbd.conf beside $SLURM_CONF; only its user may.
	(umask 077 && cat >"$DIR/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$DIR/munge.sock
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=$me
LogFile=$DIR/slurmdbd.log
PidFile=$DIR/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=$pass
StorageLoc=slurm_acct_db
EOF
	)
	slurmdbd || fail "slurmdbd did not start"
	i=0
	until sacctmgr --immediate add cluster rcusim >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 300 ] || fail "slurmdbd did not answer in 30 s"
		sleep 0.1
	done
fi
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N localhost || fail "slurmd did not start"
i=0
until [ "$(sinfo --noheader --nodes=localhost --format=%T 2>/dev/null)" = idle ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "the node did not become idle in 30 s: $(sinfo 2>&1 | tail -2)"
	sleep 0.1
done
echo "export SLURM_CONF=$SLURM_CONF"
