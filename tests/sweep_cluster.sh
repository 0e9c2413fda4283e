#!/bin/sh
# sweep_cluster.sh slurm|parallel RCUSIM SRCDIR - `rcusim sweep --backend
# slurm` against a real one-node Slurm that this test starts
# (scripts/slurm-local.sh: munged, slurmctld and slurmd as this user, on
# 127.0.0.1 only, stopped at the end), or `--backend parallel` through GNU
# parallel on this host (--sshlogin :). In order:
#   - bad input exits 2 or 3 with a message, and nothing is submitted;
#   - a 12-run sweep waits, merges 12 complete runs, compares and draws;
#   - in a second 12-run sweep (Slurm: as two arrays, the cluster's
#     MaxArraySize set to 8) one run is killed (SIGKILL) mid-way: the
#     collection reports it lost and exits 3, the sweep submitted again
#     runs that run and no other, and then all 12 are merged; collecting
#     once more adds nothing.
# For parallel, a second host is this machine again as "rcusim-node": an
# sshd the test starts on 127.0.0.1, reached through GNU parallel's
# PARALLEL_SSH, so the commands travel through ssh as to another host.
# Skipped (exit 77) only if the Slurm daemons cannot start on this machine
# (the parallel test then runs without its ssh host), and never under CI
# (CI=true), where they must.
case ${1:-} in
slurm | parallel)
	BACKEND=$1
	shift
	;;
*)
	echo "usage: $0 slurm|parallel RCUSIM SRCDIR" >&2
	exit 2
	;;
esac
. "$(dirname "$0")/lib.sh"
S=$SRC/scenarios/blimit-small.ini
chmod 755 "$T" # munged wants every folder above its socket searchable by all
# At exit, before $T goes: the sshd and the Slurm daemons this test started.
stop_daemons() {
	[ -s "$T/ssh/sshd.pid" ] && kill "$(cat "$T/ssh/sshd.pid")" 2>/dev/null
	[ "$BACKEND" = slurm ] && "$SRC/scripts/slurm-local.sh" stop "$T/slurm" >/dev/null 2>&1
}
at_exit=stop_daemons

# cannot_run WHAT OUTPUT: the machine cannot run WHAT: exit 77 (slurm),
# or fail under CI.
cannot_run() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $1 did not start, and CI must run it:"
		echo "$2"
		exit 1
	fi
	echo "SKIP: this machine cannot run $1:"
	echo "$2"
	[ "$BACKEND" = slurm ] && exit 77
}

# A TCP port nobody listens on here, 20000-49999.
free_port() {
	while :; do
		p=$(($(od -An -N2 -tu2 /dev/urandom) % 30000 + 20000))
		cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk 'NR > 1 { split($2, a, ":"); print a[2] }' |
			grep -qx "$(printf '%04X' "$p")" || { echo "$p"; return; }
	done
}

# sshd on 127.0.0.1 as host "rcusim-node" of $T/ssh/ssh_config, with a key
# of its own; GNU parallel reaches it through PARALLEL_SSH.
start_sshd() {
	mkdir -p "$T/ssh" || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/host_key" >/dev/null &&
		ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/user_key" >/dev/null &&
		cp "$T/ssh/user_key.pub" "$T/ssh/authorized_keys" || return 1
	port=$(free_port)
	cat >"$T/ssh/sshd_config" <<END
ListenAddress 127.0.0.1
Port $port
HostKey $T/ssh/host_key
AuthorizedKeysFile $T/ssh/authorized_keys
PidFile $T/ssh/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
END
	cat >"$T/ssh/ssh_config" <<END
Host rcusim-node
  HostName 127.0.0.1
  Port $port
  User $(id -un)
  IdentityFile $T/ssh/user_key
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  BatchMode yes
  LogLevel ERROR
END
	# Debian's sshd, run by root, wants its privilege separation folder.
	[ "$(id -u)" != 0 ] || mkdir -p /run/sshd
	/usr/sbin/sshd -f "$T/ssh/sshd_config" -E "$T/ssh/sshd.log" || return 1
	i=0
	until ssh -F "$T/ssh/ssh_config" rcusim-node true; do
		i=$((i + 1))
		[ $i -lt 50 ] || return 1
		sleep 0.1
	done
	export PARALLEL_SSH="ssh -F $T/ssh/ssh_config"
}

case $BACKEND in
slurm)
	out=$("$SRC/scripts/slurm-local.sh" start "$T/slurm" 2>&1) ||
		cannot_run "the Slurm daemons (munged, slurmctld, slurmd)" "$out"
	export SLURM_CONF="$T/slurm/slurm.conf"
	;;
parallel)
	hosts="--sshlogin 1/: --sshlogin 1/rcusim-node"
	if ! start_sshd >"$T/sshd.out" 2>&1; then
		cannot_run "sshd (openssh-server) on 127.0.0.1" "$(cat "$T/sshd.out" "$T/ssh/sshd.log" 2>/dev/null)"
		hosts="--sshlogin 2/:"
	fi
	;;
esac
# The sweep of both parts: 4 values x 3 seeds.
sweep() {
	"$RCUSIM" sweep "$S" --vary rcu.blimit=10,100,1000,10000 --seeds 1..3 --backend "$BACKEND" "$@"
}
opts=
[ "$BACKEND" = parallel ] && opts="--jobs 2 --sshlogin :"

# ---- bad input: exit 2 or 3, a message, nothing submitted ----------------
expect_exit 2 "$RCUSIM" sweep "$S" --vary rcu.blimit=10 --backend pbs --results r0
expect_err '^rcusim sweep: --backend: expected local, slurm or parallel, got "pbs"$'
expect_exit 2 sweep
expect_err "needs --results DIR"
other=--sshlogin
[ "$BACKEND" = parallel ] && other=--partition
expect_exit 2 sweep --results r0 $other x
expect_err "^rcusim sweep: $other does not go with --backend $BACKEND\$"
expect_exit 2 "$RCUSIM" sweep --collect "$T"
expect_err 'not the results folder of a sweep'
# The backend's program missing: exit 3 before the folder is made.
prog=sbatch
[ "$BACKEND" = parallel ] && prog=parallel
mkdir nobin
expect_exit 3 env PATH="$T/nobin" "$RCUSIM" sweep "$S" --vary rcu.blimit=10 --backend "$BACKEND" --results r0
expect_err "$prog is not on PATH"
[ ! -e r0 ] && ok || bad "a missing $prog left a results folder"
# A results folder that cannot be made, or written.
: >afile
expect_exit 3 sweep --results afile/r $opts
expect_err '^rcusim sweep: --results afile/r: cannot create the folder: Not a directory$'
if [ "$(id -u)" != 0 ]; then # root writes anywhere
	mkdir ro && chmod 555 ro
	expect_exit 3 sweep --results ro $opts
	expect_err '^rcusim sweep: --results ro: cannot create .*/ro/runs: Permission denied$'
fi
# A run that would fail: refused before anything is written or submitted.
expect_exit 2 "$RCUSIM" sweep "$S" --vary rcu.blimit=10,0 --backend "$BACKEND" --results r0 $opts
expect_err 'rcu.blimit: expected a positive integer'
expect_err 'run "sweep rcu.blimit=0" would fail: nothing was submitted'
[ ! -e r0 ] && ok || bad "a refused sweep left a results folder"
if [ "$BACKEND" = slurm ]; then
	# sbatch refuses the array: exit 3 with its message, nothing recorded.
	expect_exit 3 sweep --results r0 --sbatch-arg=--partition=nosuch
	expect_err 'invalid partition'
	expect_err '^rcusim sweep: sbatch failed \(exit 1\) on .*/r0/submit-1.sbatch$'
	expect_err '^rcusim sweep: nothing was submitted$'
	[ ! -e r0/slurm-arrays ] && [ -z "$(squeue --noheader --user="$(id -un)")" ] && ok ||
		bad "a refused array is recorded or queued"
	expect_exit 2 sweep --results r0 --partition 'two words'
fi

# ---- a sweep of 12 runs: waited for, merged, compared and drawn ----------
# (through parallel: one run at a time here and one on the ssh host)
first=$opts
[ "$BACKEND" = parallel ] && first=$hosts
expect_exit 0 sweep --duration 1s --results r1 --db s1.db --plot --out f1 --wait $first
expect_out "^sweep: 12 runs in $T/r1: 0 complete, 12 to run \\(12 not run\\)\$"
expect_out '^sweep: 12 runs, 12 complete$'
expect_out '^callbacks queued  '
[ "$(q s1.db "SELECT count(*) FROM run WHERE status = 'complete' AND label LIKE 'sweep rcu.blimit=%'")" = 12 ] &&
	[ "$(q s1.db 'SELECT count(*) FROM run')" = 12 ] && ok || bad "s1.db: $(q s1.db 'SELECT status, label FROM run')"
[ "$(q s1.db "SELECT count(DISTINCT value) FROM param WHERE name = 'rcu.blimit'")" = 4 ] && ok || bad "s1.db values"
[ -s f1/sweep_softirq.run_max_ns.png ] && [ -s f1/sweep_cb.qlen_total_max.png ] && ok || bad "no sweep figure"
[ "$(ls r1/runs/*.db | wc -l)" = 12 ] && [ "$(wc -l <r1/submit-1.tasks)" = 12 ] && ok || bad "r1: $(ls r1 r1/runs)"
if [ "$BACKEND" = slurm ]; then
	grep -qx '#SBATCH --array=0-11' r1/submit-1.sbatch && ok || bad "array spec: $(cat r1/submit-1.sbatch)"
	[ "$(ls r1/logs/slurm-*_*.out | wc -l)" = 12 ] && ok || bad "task logs: $(ls r1/logs)"
else
	[ "$(wc -l <r1/logs/parallel-1.log)" = 13 ] && ok || bad "parallel joblog: $(cat r1/logs/parallel-1.log)"
	# Both hosts ran runs, each with exit status 0.
	if [ "$hosts" != "--sshlogin 2/:" ]; then
		awk -F '\t' 'NR > 1 && $7 == 0 { print $2 }' r1/logs/parallel-1.log | sort -u | tr '\n' ' ' >hosts
		[ "$(cat hosts)" = ": rcusim-node " ] && ok || bad "hosts of the runs: $(cat r1/logs/parallel-1.log)"
	fi
fi

# ---- one run killed mid-way, then only it runs again ---------------------
# kill_one DIR: SIGKILL a run of DIR as soon as one is running (its row is
# 'running'), until one is left so (lost); its key on stdout.
kill_one() {
	i=0
	while [ $i -lt 1200 ]; do
		for db in "$1"/runs/*.db; do
			[ -e "$db" ] || continue # no match yet: sqlite3 would make the file
			pid=$(q "$db" "SELECT pid FROM run WHERE status = 'running'" 2>/dev/null) || continue
			[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || continue
			sleep 0.2
			if [ "$(q "$db" 'SELECT status FROM run' 2>/dev/null)" = running ]; then
				basename "$db" .db
				return 0
			fi
		done
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}
# The runs of DIR but KEY: database, label, start, host, process, wall time.
runs_but() {
	for db in "$1"/runs/*.db; do
		[ "$(basename "$db" .db)" = "$2" ] ||
			echo "$db $(q "$db" 'SELECT label, started_at, host, pid, wall_s, status FROM run')"
	done
}
second="--duration 4s --results r2 --db s2.db --plot --out f2 $opts"
if [ "$BACKEND" = slurm ]; then
	# Arrays of at most 8 tasks here: the 12 runs go as two arrays.
	echo MaxArraySize=8 >>"$SLURM_CONF"
	scontrol reconfigure && [ "$(scontrol show config | sed -n 's/^MaxArraySize *= *//p')" = 8 ] && ok ||
		bad "MaxArraySize not set: $(scontrol show config | grep MaxArraySize)"
	# All or none: when sbatch refuses the second array, the first is
	# cancelled (an sbatch that refuses its second call, first on PATH).
	mkdir fakebin
	printf '#!/bin/sh\nn=$(($(cat %s/fakebin/n 2>/dev/null || echo 0) + 1))\necho $n >%s/fakebin/n\n%s\nexec %s "$@"\n' \
		"$T" "$T" '[ $n -lt 2 ] || { echo "sbatch: error: refused by the test" >&2; exit 1; }' \
		"$(command -v sbatch)" >fakebin/sbatch
	chmod +x fakebin/sbatch
	expect_exit 3 env PATH="$T/fakebin:$PATH" "$RCUSIM" sweep "$S" --vary rcu.blimit=10,100,1000,10000 \
		--seeds 1..3 --backend slurm --duration 4s --results r3
	expect_out '^sweep: submitted Slurm array [0-9]+: 8 tasks'
	expect_err '^rcusim sweep: sbatch failed \(exit 1\) on .*/r3/submit-1-2.sbatch$'
	expect_err '^array [0-9]+ of this submission cancelled: nothing of it runs$'
	# (a task that had started may take a moment to end)
	i=0
	while [ -n "$(squeue --noheader --user="$(id -un)")" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -z "$(squeue --noheader --user="$(id -un)")" ] && ok || bad "the first array still runs: $(squeue)"
	expect_exit 0 sweep $second
	expect_out "^sweep: submitted Slurm array [0-9]+: 8 tasks \\($T/r2/submit-1-1.sbatch\\)\$"
	expect_out "^sweep: submitted Slurm array [0-9]+: 4 tasks \\($T/r2/submit-1-2.sbatch\\)\$"
	expect_out "^sweep: collect with: rcusim sweep --collect $T/r2\$"
	grep -qx '#SBATCH --array=0-3' r2/submit-1-2.sbatch && grep -qF '$((8 + SLURM_ARRAY_TASK_ID + 1))' r2/submit-1-2.sbatch &&
		ok || bad "the second array's script: $(cat r2/submit-1-2.sbatch)"
	# While its arrays run: no second submission, no collection.
	expect_exit 2 sweep $second --wait
	expect_err "arrays [0-9]+, [0-9]+ of an earlier submission still have [0-9]+ tasks queued or running"
	expect_exit 3 "$RCUSIM" sweep --collect r2
	expect_err 'still have [0-9]+ tasks queued or running: collect again when they end, or add --wait'
	key=$(kill_one r2) && ok || bad "no run of r2 was seen running to be killed"
	expect_exit 3 "$RCUSIM" sweep --collect r2 --wait
else
	sweep $second >"$T/out" 2>"$T/err" &
	bg=$!
	i=0
	while [ ! -e r2/submit-1.tasks ] && [ $i -lt 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	# While parallel runs them: the results folder is taken.
	"$RCUSIM" sweep "$S" --vary rcu.blimit=10,100,1000,10000 --seeds 1..3 --backend parallel $second \
		>busy.out 2>busy.err
	rc=$?
	[ $rc -eq 3 ] && grep -q 'another rcusim sweep is submitting to or collecting' busy.err && ok ||
		bad "a second sweep into a busy folder: exit $rc: $(cat busy.err)"
	key=$(kill_one r2) && ok || bad "no run of r2 was seen running to be killed"
	wait $bg
	rc=$?
	bg=
	[ $rc -eq 3 ] && ok || bad "the sweep with a killed run: exit $rc, want 3"
fi
label=$(q "r2/runs/$key.db" 'SELECT label FROM run')
expect_out '^sweep: 12 runs, 11 complete, 1 lost$'
expect_err "^rcusim sweep: run \"$label\": lost: its process \\(pid [0-9]+ on .*\\) ended without finishing the run \\($T/r2/runs/$key.db\\)\$"
expect_err '^rcusim sweep: 1 runs did not complete; to run them again, and only them:$'
[ "$(q s2.db "SELECT count(*) FROM run WHERE status = 'complete'")" = 11 ] &&
	[ "$(q s2.db 'SELECT count(*) FROM run')" = 11 ] && ok || bad "s2.db after the kill: $(q s2.db 'SELECT status, label FROM run')"
runs_but r2 "$key" >before
# The same sweep again: only the killed run runs.
expect_exit 0 sweep $second --wait
expect_out "^sweep: 12 runs in $T/r2: 11 complete, 1 to run \\(1 lost\\)\$"
expect_out '^sweep: 12 runs, 12 complete$'
[ "$(wc -l <r2/submit-2.tasks)" = 1 ] && grep -q "/runs/$key.db " r2/submit-2.tasks && ok ||
	bad "submission 2 is not the killed run alone: $(cat r2/submit-2.tasks)"
runs_but r2 "$key" >after
cmp -s before after && ok || { bad "the other 11 runs changed:"; diff before after; }
[ "$(q "r2/runs/$key.db" 'SELECT status FROM run')" = complete ] && [ -e "r2/failed/$key-2.db" ] &&
	[ "$(q "r2/failed/$key-2.db" 'SELECT status FROM run')" = running ] && ok ||
	bad "the killed run's database was not moved aside and run again: $(ls r2/runs r2/failed)"
if [ "$BACKEND" = slurm ]; then
	expect_out '^sweep: submitted Slurm array [0-9]+: 1 task \('
	grep -qx '#SBATCH --array=0-0' r2/submit-2.sbatch && ok || bad "second array spec: $(cat r2/submit-2.sbatch)"
else
	[ "$(wc -l <r2/logs/parallel-2.log)" = 2 ] && ok || bad "second parallel joblog: $(cat r2/logs/parallel-2.log)"
fi
[ "$(q s2.db "SELECT count(*) FROM run WHERE status = 'complete'")" = 12 ] &&
	[ "$(q s2.db 'SELECT count(DISTINCT label) FROM run')" = 12 ] && ok || bad "s2.db: $(q s2.db 'SELECT status, label FROM run')"
[ -s f2/sweep_softirq.run_max_ns.png ] && ok || bad "no figure for the second sweep"
# Collecting again adds nothing.
expect_exit 0 "$RCUSIM" sweep --collect r2
expect_out '^sweep: 12 runs, 12 complete$'
[ "$(q s2.db 'SELECT count(*) FROM run')" = 12 ] && ok || bad "a second collection added runs"

finish
