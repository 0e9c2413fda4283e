#!/bin/sh
# reliability.sh RCUSIM SRCDIR [CASE...] - results are never lost or
# misreported, and commands that read change nothing. One function per
# case (all of them, or the CASEs named):
#   db_not_file      --db "" and --db :memory: are input errors (exit 2), for
#                    run and merge, and store nothing anywhere
#   stdout_errors    a command whose output cannot be written (a full disk)
#                    exits 3 with the cause
#   busy_side_file   a run whose final write finds its database locked past
#                    the busy timeout saves its results to a side database,
#                    named in the message; merging it completes the row in
#                    place; heartbeats never wait for the lock
#   heartbeat_wall   a live run beats on wall time, however far apart its
#                    samples are
#   merge_ended      a run merged while running, merged again once complete,
#                    is one complete row; merge into itself (by any name) is
#                    refused at once
#   read_only        reading commands leave another program's database, a
#                    newer one and their own byte for byte as they were, and
#                    merge creates no output before refusing an input
#   scenario_files   a FIFO scenario with no writer and a directory are input
#                    errors, at once; an input error only the model sees
#                    leaves no row
#   smaller          long scenario names, database errors naming the file,
#                    file:line of long paths, SIGHUP and SIGPIPE, options
#                    given twice, an inapplicable knob at its default value
#                    and workload knobs of another kind, no stray files in
#                    plots/
#   durations        no duration a run measures is negative or wrapped
#   check_update_sets  check --run-scenario --set --update records the
#                    override in the baseline, which then passes on its own
. "$(dirname "$0")/lib.sh"
Q=$SRC/scenarios/queue.ini
# wait_status DB ID STATUS: until run ID of DB is STATUS (10 s at most).
wait_status() {
	i=0
	while [ "$(q "$1" "SELECT status FROM run WHERE run_id = $2" 2>/dev/null)" != "$3" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ $i -lt 200 ]
}
now() { date +%s.%N; }

db_not_file() {
	case=db_not_file
	for db in "" ":memory:"; do
		expect_exit 2 "$RCUSIM" run "$Q" --duration 1s --db "$db" --quiet
		expect_err 'not a file'
		grep -q complete "$T/out" && bad "run --db '$db' says it completed" || ok
	done
	"$RCUSIM" run "$Q" --duration 1s --db c.db --quiet >/dev/null 2>&1
	expect_exit 2 "$RCUSIM" merge "" c.db
	expect_exit 2 "$RCUSIM" merge :memory: c.db
	grep -q 'runs added' "$T/out" && bad "merge into '' reports runs added" || ok
	[ -z "$(ls | grep -v '^c\.db\|^out$\|^err$')" ] && ok || bad "files left: $(ls)"
}

stdout_errors() {
	case=stdout_errors
	"$RCUSIM" run "$Q" --duration 1s --db s.db --quiet >/dev/null 2>&1
	"$RCUSIM" run "$Q" --duration 2s --db s.db --quiet >/dev/null 2>&1
	expect_exit 3 sh -c "'$RCUSIM' runs --db s.db >/dev/full"
	expect_err 'writing standard output: No space left on device'
	expect_exit 3 sh -c "'$RCUSIM' compare --db s.db 1 2 >/dev/full"
	expect_exit 3 sh -c "'$RCUSIM' params >/dev/full"
	expect_exit 3 sh -c "'$RCUSIM' metrics --format md >/dev/full"
	expect_exit 0 sh -c "'$RCUSIM' runs --db s.db >/dev/null"
}

busy_side_file() {
	case=busy_side_file
	# A run of a few seconds, and a lock taken by another process once it
	# runs and held until it has ended; it may wait 0.5 s for the lock.
	RCUSIM_BUSY_TIMEOUT_MS=500 RCUSIM_HEARTBEAT_MS=100 "$RCUSIM" run "$Q" --duration 1500s --db b.db \
		--quiet >b.out 2>b.err &
	bg=$!
	wait_status b.db 1 running && ok || bad "the run never showed as running"
	# The run waits (SIGSTOP) until the lock is held: on a loaded machine it
	# could otherwise end before the locker starts.
	kill -STOP $bg
	(
		echo 'BEGIN IMMEDIATE;'
		echo "UPDATE run SET label = label WHERE run_id = 0;"
		echo '.shell touch locked'
		i=0
		while kill -0 $bg 2>/dev/null && [ $i -lt 1200 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		echo 'COMMIT;'
	) | sqlite3 b.db &
	locker=$!
	i=0
	while [ ! -e locked ] && [ $i -lt 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -e locked ] && ok || bad "the locker never held the lock"
	kill -CONT $bg
	wait $bg
	rc=$?
	bg=
	wait $locker
	[ $rc -eq 3 ] && ok || bad "exit $rc, want 3: $(cat b.err)"
	side=$(sed -n 's/^They are in \(.*\): `rcusim merge.*/\1/p' b.err)
	[ -n "$side" ] && [ -s "$side" ] && ok || bad "no side database named: $(cat b.err)"
	[ -n "$side" ] || return
	# Its beats (every 0.1 s here) waited for no lock: had each one held up
	# the simulation for the busy timeout, as beats at samples did, the
	# simulation would take seconds more than the same run unlocked.
	RCUSIM_HEARTBEAT_MS=100 "$RCUSIM" run "$Q" --duration 1500s --db ref.db --quiet >/dev/null 2>&1
	wall=$(q "$side" 'SELECT wall_s FROM run')
	ref=$(q ref.db 'SELECT wall_s FROM run')
	[ "$(echo "$wall < 2 * $ref + 1" | bc)" = 1 ] && ok || bad "the run stalled: $wall s, $ref s unlocked"
	expect_exit 0 "$RCUSIM" merge b.db "$side"
	grep -q '0 runs added, 1 brought up to date' "$T/out" && ok || bad "merge: $(cat "$T/out")"
	[ "$(q b.db "SELECT count(*) || ' ' || group_concat(status) FROM run")" = "1 complete" ] && ok ||
		bad "rows after the merge: $(q b.db 'SELECT run_id, status FROM run')"
	[ "$(q b.db "SELECT count(*) FROM scalar WHERE run_id = 1")" -gt 5 ] && ok || bad "no scalars in place"
	expect_exit 0 "$RCUSIM" compare --db b.db 1
}

heartbeat_wall() {
	case=heartbeat_wall
	# Samples 2 h apart: the only one at t = 0. The run would last about a
	# minute; it is stopped once its heartbeat is read.
	RCUSIM_HEARTBEAT_MS=200 "$RCUSIM" run "$Q" --duration 20000s --set scenario.sample_interval=2h \
		--db h.db --quiet >/dev/null 2>h.err &
	bg=$!
	wait_status h.db 1 running && ok || bad "the run never showed as running"
	sleep 1.5
	age=$(q h.db "SELECT (julianday('now') - 2440587.5) * 86400 - heartbeat_at FROM run WHERE run_id = 1 AND status = 'running'")
	[ -n "$age" ] && [ "$(echo "$age < 1.0" | bc)" = 1 ] && ok || bad "heartbeat ${age:-?} s old at 1.5 s"
	kill -TERM $bg
	wait $bg
	bg=
	[ "$(q h.db 'SELECT status FROM run')" = aborted ] && ok || bad "run: $(cat h.err)"
}

merge_ended() {
	case=merge_ended
	"$RCUSIM" run "$Q" --duration 300s --db live.db --quiet >/dev/null 2>&1 &
	bg=$!
	wait_status live.db 1 running && ok || bad "the run never showed as running"
	sqlite3 live.db ".backup snap.db"
	wait $bg
	bg=
	expect_exit 0 "$RCUSIM" merge m.db snap.db
	grep -q '1 runs added' "$T/out" && ok || bad "first merge: $(cat "$T/out")"
	expect_exit 0 "$RCUSIM" merge m.db live.db
	grep -q '0 runs added, 1 brought up to date' "$T/out" && ok || bad "second merge: $(cat "$T/out")"
	[ "$(q m.db "SELECT count(*) || ' ' || group_concat(status) FROM run")" = "1 complete" ] && ok ||
		bad "rows: $(q m.db 'SELECT run_id, status FROM run')"
	[ "$(q m.db 'SELECT count(*) FROM scalar')" = "$(q live.db 'SELECT count(*) FROM scalar')" ] && ok ||
		bad "scalars differ"
	[ "$(q m.db 'SELECT count(*) FROM point')" = "$(q live.db 'SELECT count(*) FROM point')" ] && ok ||
		bad "points differ"
	expect_exit 0 "$RCUSIM" merge m.db live.db
	grep -q '0 runs added, 0 brought up to date, 1 already present' "$T/out" && ok || bad "third merge: $(cat "$T/out")"
	# Into itself, by its name, another path and a symlink: refused at once.
	ln -s m.db link.db
	for other in m.db ./m.db link.db "$T/m.db"; do
		t0=$(now)
		expect_exit 2 timeout 20 "$RCUSIM" merge m.db "$other"
		expect_err 'is the database merged into'
		[ "$(echo "$(now) - $t0 < 5" | bc)" = 1 ] && ok || bad "merge into itself as $other waited"
	done
}

read_only() {
	case=read_only
	sqlite3 other.db 'CREATE TABLE notes(a TEXT); INSERT INTO notes VALUES ("mine");'
	cp other.db other.orig
	for cmd in runs compare plot; do
		expect_exit 2 "$RCUSIM" $cmd --db other.db
		expect_err 'not an rcusim results database'
	done
	expect_exit 2 "$RCUSIM" run "$Q" --duration 1s --db other.db
	expect_exit 2 "$RCUSIM" merge other.db "$SRC/tests/golden/../../scenarios/queue.ini"
	cmp -s other.db other.orig && ok || bad "other.db changed"
	[ ! -e other.db-wal ] && [ "$(q other.db 'PRAGMA journal_mode')" = delete ] && ok || bad "other.db switched to WAL"
	# A database of a newer rcusim: merge refuses it before it creates OUT.
	sqlite3 future.db 'PRAGMA user_version = 99;'
	expect_exit 3 "$RCUSIM" merge out.db future.db
	expect_err 'newer than this rcusim'
	[ ! -e out.db ] && ok || bad "merge created out.db before refusing its input"
	# An empty file is not a database to read.
	: >empty.db
	expect_exit 2 "$RCUSIM" runs --db empty.db
	[ ! -s empty.db ] && ok || bad "runs wrote into an empty file"
	# Our own: reading changes no byte of it.
	"$RCUSIM" run "$Q" --duration 1s --db own.db --quiet >/dev/null 2>&1
	sqlite3 own.db 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
	cp own.db own.orig
	"$RCUSIM" runs --db own.db >/dev/null 2>&1
	"$RCUSIM" compare --db own.db >/dev/null 2>&1
	"$RCUSIM" merge m2.db own.db >/dev/null 2>&1
	cmp -s own.db own.orig && ok || bad "reading own.db changed it"
}

scenario_files() {
	case=scenario_files
	mkfifo fifo.ini
	t0=$(now)
	expect_exit 2 timeout 10 "$RCUSIM" run fifo.ini --db f.db
	expect_err 'FIFO with nothing to read'
	[ "$(echo "$(now) - $t0 < 5" | bc)" = 1 ] && ok || bad "a FIFO scenario hung"
	# A pipe with a writer is read (the shell's <(...) is one).
	cat "$Q" | "$RCUSIM" run /dev/stdin --db f.db --duration 1s --quiet >/dev/null 2>"$T/err" && ok ||
		bad "a scenario through a pipe: $(cat "$T/err")"
	mkdir dir.ini
	expect_exit 2 "$RCUSIM" run dir.ini --db f.db
	expect_err 'dir.ini: is a directory'
	# Nor is a database: a directory or a FIFO, at once.
	mkfifo fifo.db
	expect_exit 2 timeout 10 "$RCUSIM" runs --db fifo.db
	expect_err 'fifo.db: not a regular file'
	expect_exit 2 "$RCUSIM" run "$Q" --db dir.ini --duration 1s
	expect_err 'dir.ini: is a directory'
	expect_exit 2 "$RCUSIM" run "$SRC/scenarios/callrcu-small.ini" --db g.db --set workload.callrcu_rate=1/ns
	expect_err 'workload.callrcu_rate'
	[ ! -e g.db ] || [ "$(q g.db 'SELECT count(*) FROM run')" = 0 ] && ok || bad "an input error left a row"
}

smaller() {
	case=smaller
	long=$(printf '%0300d' 0 | tr 0 n)
	expect_exit 0 "$RCUSIM" run "$Q" --duration 1s --db n.db --quiet --set "scenario.name=$long"
	[ "$(q n.db 'SELECT length(scenario) FROM run')" = 300 ] && ok || bad "a 300-byte name is stored as $(q n.db 'SELECT length(scenario) FROM run') bytes"
	toolong=$(printf '%01100d' 0 | tr 0 n)
	expect_exit 2 "$RCUSIM" run "$Q" --duration 1s --db n.db --quiet --set "scenario.name=$toolong"
	[ "$(q n.db 'SELECT count(*) FROM run')" = 1 ] && ok || bad "a refused name left a row"
	# A database error names its file.
	echo "not a database at all, longer than a header would be ......................................" >garbage.db
	expect_exit 2 "$RCUSIM" run "$Q" --duration 1s --db garbage.db
	expect_err 'database garbage\.db: not an rcusim results database \(not an SQLite file\)'
	# FILE:LINE of a path over a thousand bytes.
	d=$T/$(printf '%0200d' 0 | tr 0 d)/$(printf '%0200d' 0 | tr 0 d)/$(printf '%0200d' 0 | tr 0 d)
	d=$d/$(printf '%0200d' 0 | tr 0 d)/$(printf '%0200d' 0 | tr 0 d)/$(printf '%0200d' 0 | tr 0 d)
	mkdir -p "$d"
	printf '[workload]\nkind = queue\nbogus = 1\n' >"$d/long.ini"
	expect_exit 2 "$RCUSIM" run "$d/long.ini" --db n.db
	expect_err 'long\.ini:3: workload\.bogus: unknown parameter'
	# SIGHUP and SIGPIPE stop a run as SIGTERM does: recorded as aborted.
	# A signal its caller ignores stays ignored (nohup).
	nohup "$RCUSIM" run "$Q" --duration 300s --db nohup.db --quiet >/dev/null 2>&1 &
	bg=$!
	wait_status nohup.db 1 running && ok || bad "nohup: never running"
	kill -HUP $bg
	wait $bg
	rc=$?
	bg=
	[ $rc -eq 0 ] && [ "$(q nohup.db 'SELECT status FROM run')" = complete ] && ok || bad "nohup run: exit $rc"
	for sig in HUP PIPE; do
		"$RCUSIM" run "$Q" --duration 3000s --db sig$sig.db --quiet >/dev/null 2>&1 &
		bg=$!
		wait_status sig$sig.db 1 running && ok || bad "SIG$sig: never running"
		sleep 0.2
		kill -$sig $bg
		wait $bg
		rc=$?
		bg=
		st=$(q sig$sig.db 'SELECT status FROM run')
		[ "$st" = aborted ] && [ $rc -gt 128 ] && ok || bad "SIG$sig: exit $rc, row $st"
	done
	# One value each.
	expect_exit 2 "$RCUSIM" run "$Q" --db x1.db --db x2.db
	expect_err '--db given twice'
	expect_exit 2 "$RCUSIM" run "$Q" --seed 1 --seed=2
	expect_exit 2 "$RCUSIM" run "$Q" --label a --label b
	expect_exit 2 "$RCUSIM" run "$Q" --duration 1s --duration 2s
	expect_exit 2 "$RCUSIM" compare --db x1.db --db x2.db
	expect_exit 2 "$RCUSIM" check --db x1.db --db x2.db "$SRC/tests/baselines/make-small-fixed.ini"
	expect_exit 2 "$RCUSIM" check --run 1 --run 2 "$SRC/tests/baselines/make-small-fixed.ini"
	expect_err '--run given twice'
	expect_exit 2 "$RCUSIM" sweep "$Q" --vary workload.queue_batch=1,2 --seeds 1..1 --seeds 5..5 --emit-jobs
	expect_exit 2 "$RCUSIM" sweep "$Q" --vary workload.queue_batch=1,2 --backend slurm --backend local --emit-jobs
	[ ! -e x1.db ] && [ ! -e x2.db ] && [ ! -e rcusim.db ] && ok || bad "a refused command made a database: $(ls)"
	# A knob the policy does not read, set at its default value, is still
	# a mistake (2.6.15's fixed policy has no blimit).
	expect_exit 2 "$RCUSIM" run "$SRC/scenarios/niagara-make-2.6.15.ini" --set rcu.blimit=10 --duration 1ms --db k.db
	expect_err 'rcu.blimit: applies only with rcu.policy = tunable or watermark'
	expect_exit 2 "$RCUSIM" run "$SRC/scenarios/niagara-make-2.6.15.ini" --set rcu.blimit=100 --duration 1ms --db k.db
	# Workload knobs too: each applies to the kinds that read it.
	expect_exit 2 "$RCUSIM" run "$SRC/scenarios/callrcu-small.ini" --set workload.syncrcu_gap=1ms --db k.db
	expect_err 'workload.syncrcu_gap: applies only with workload.kind = syncrcu, and workload.kind is callrcu'
	printf 'include = %s\n[workload]\nexitflood_sockets = 5\n' "$SRC/scenarios/callrcu-small.ini" >wk.ini
	expect_exit 2 "$RCUSIM" run wk.ini --db k.db
	expect_err '^wk.ini:3: workload.exitflood_sockets: applies only with workload.kind = exitflood'
	expect_exit 2 "$RCUSIM" run "$Q" --set workload.jobs=4 --db k.db
	# The file table's knobs only where jobs open files; a fault's only
	# with a fault.
	expect_exit 2 "$RCUSIM" run "$SRC/scenarios/callrcu-small.ini" --set vfs.max_files=100 --db k.db
	expect_err 'vfs.max_files: applies only with a workload that opens files \(make, openclose, trace of an strace log\), and workload.kind is callrcu'
	expect_exit 2 "$RCUSIM" run "$SRC/scenarios/x86-256-syncrcu-6.12.ini" --set machine.memory=1GiB --db k.db
	expect_err 'machine.memory: applies only with a workload that opens files'
	expect_exit 2 "$RCUSIM" run "$SRC/scenarios/callrcu-small.ini" --set fault.cpus=1 --db k.db
	expect_err 'fault.cpus: applies only with an injected fault \(fault.kind\), and fault.kind is none'
	expect_exit 0 "$RCUSIM" run "$SRC/scenarios/make-small.ini" --set vfs.max_files=100000 --duration 10ms --db k2.db --quiet
	[ ! -e k.db ] && ok || bad "refused knobs left k.db"
	# plots/ holds the scripts, and nothing a test left behind.
	stray=$(find "$SRC/plots" -type f ! -name '*.gp')
	[ -z "$stray" ] && ok || bad "stray files in plots/: $stray"
}

# No duration a run measures is negative or wrapped (issue 46, item 5):
# rcuscale's kfree test on 16 CPUs under 6.12 at HZ 1000 recorded
# gp.cleanup_max_ns = 1.8e19 between 4 and 5 s (the GP kthread's next step
# began before its cleanup step: an interrupt during the switch to it cut
# the switch short). Every ns metric lies in [0, the run's length].
durations() {
	case=durations
	cat >kf.ini <<-EOF
		include = $SRC/scenarios/machines/x86-16.ini
		include = $SRC/scenarios/kernels/linux-6.12.ini
		[scenario]
		duration = 5s
		[machine]
		hz = 1000
		[sched]
		job_nice = 19
		[workload]
		kind = kfree
		jobs = 16
		kfree_loops = 1000000000
	EOF
	expect_exit 0 "$RCUSIM" run kf.ini --db kf.db --quiet
	bad_ns=$(q kf.db "SELECT s.name || ' = ' || s.value FROM scalar s JOIN run r USING (run_id)
		WHERE s.name LIKE '%_ns' AND (s.value < 0 OR s.value > 5e9 * 16)")
	[ -z "$bad_ns" ] && ok || bad "durations out of [0, 16 CPUs x 5 s]: $bad_ns"
	max=$(last_scalar kf.db gp.cleanup_max_ns)
	[ "$(echo "$max <= 1000000" | bc)" = 1 ] && ok || bad "gp.cleanup_max_ns = $max"
}

# check --run-scenario --set K=V --update records the override in the
# baseline (issue 46, item 13): the baseline then passes on its own
# scenario, its set of the same key replaced, its duration rewritten, a new
# key added inside [baseline].
check_update_sets() {
	case=check_update_sets
	sed "s#^scenario = ../../#scenario = $SRC/#" "$SRC/tests/baselines/make-small-fixed.ini" >bl.ini
	expect_exit 0 "$RCUSIM" check --run-scenario --db bl.db --update --set rcu.maxbatch=20 \
		--set scenario.duration=2s --set vfs.max_files=100000 bl.ini
	expect_out_line 'bl.ini: recorded the override --set rcu.maxbatch=20'
	[ "$(grep -c '^set = rcu.maxbatch=' bl.ini)" = 1 ] && grep -qx 'set = rcu.maxbatch=20' bl.ini && ok ||
		bad "maxbatch not replaced: $(grep maxbatch bl.ini)"
	grep -qx 'duration = 2s' bl.ini && ! grep -qx 'duration = 10s' bl.ini && ok || bad "duration: $(grep duration bl.ini)"
	awk '/^\[/ { sec = $0 } /^set = vfs.max_files=100000$/ { print sec }' bl.ini | grep -qx '\[baseline\]' && ok ||
		bad "vfs.max_files not in [baseline]"
	expect_exit 0 "$RCUSIM" check --run-scenario --db bl.db bl.ini
	expect_out 'passed, 0 failed'
	[ "$(last_scalar bl.db cb.enqueued)" = "$(q bl.db "SELECT printf('%.17g', value) FROM scalar WHERE run_id = 1 AND name = 'cb.enqueued'")" ] &&
		ok || bad "the baseline's own run differs from the run it was updated from"
}

[ $# -gt 0 ] || set -- db_not_file stdout_errors busy_side_file heartbeat_wall merge_ended read_only \
	scenario_files smaller durations
for c in "$@"; do
	"$c"
done

finish
