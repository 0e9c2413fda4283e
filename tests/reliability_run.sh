#!/bin/sh
# reliability_run.sh RCUSIM SRCDIR [CASE...] - a run's results and files
# are never lost or misread (issue 46). One function per case (all of
# them, or the CASEs named):
#   trace_target     --trace naming the database (by any name, a hard or a
#                    dangling symbolic link), its -wal or -shm, the scenario
#                    or a file it includes is refused (exit 2) before
#                    anything is opened: the database keeps every run
#   uri_names        --db names are plain paths: file::memory: and
#                    file:x.db?mode=memory are files of those names, for run,
#                    import, merge and sweep; file:z.db writes no z.db
#   read_no_files    reading commands leave no -wal or -shm beside a WAL
#                    database (another program's, or ours)
#   trace_errors     a --trace write that fails (a full disk, a reader of the
#                    pipe gone) is said with its errno as it happens; the
#                    run's results stand (complete, or aborted by a signal),
#                    exit 3
#   trace_options    malformed --trace-window, an empty --trace-cpus and a
#                    window after the run's end are refused (exit 2); a
#                    window closed before a SIGKILL is in the file whole
#   side_full_disk   a run whose database's disk is full writes its side
#                    database in the current folder, else $TMPDIR, names it,
#                    and its row is shown aside, not lost (skipped, saying
#                    so, where no tmpfs can be mounted)
#   parallel_live    --backend parallel submitted again while the runs of a
#                    killed submission still run: they are running, neither
#                    lost, moved aside nor run twice
#   sweep_stopped    a local sweep stopped by SIGTERM stops its run (aborted),
#                    starts no other, says what ran, exits 143
. "$(dirname "$0")/lib.sh"
MNT=
at_exit='[ -n "$MNT" ] && umount "$MNT" 2>/dev/null'
Q=$SRC/scenarios/queue.ini
C=$SRC/scenarios/callrcu-small.ini

trace_target() {
	case=trace_target
	"$RCUSIM" run "$Q" --duration 1s --db a.db --quiet >/dev/null 2>&1
	ln a.db hard.db
	ln -s new.db dangling
	for t in a.db ./a.db "$T/a.db" hard.db a.db-wal a.db-shm; do
		expect_exit 2 "$RCUSIM" run "$C" --duration 1s --db a.db --trace "$t" --quiet
		expect_err "^rcusim run: --trace $t: is the database"
	done
	[ "$(q a.db "SELECT count(*) || ' ' || group_concat(status) FROM run")" = "1 complete" ] && ok ||
		bad "a.db after the refused traces: $(q a.db 'SELECT run_id, status FROM run' 2>&1)"
	# A database not yet made, reached through a dangling link: refused,
	# and nothing made.
	expect_exit 2 timeout -s KILL 20 "$RCUSIM" run "$C" --duration 1s --db new.db --trace dangling --quiet
	expect_err_line 'rcusim run: --trace dangling: is the database (new.db); writing the trace would destroy it'
	[ ! -e new.db ] && ok || bad "new.db made"
	printf 'include = %s\n[scenario]\nduration = 1s\n' "$C" >inc.ini
	cp inc.ini inc.orig
	expect_exit 2 "$RCUSIM" run inc.ini --db b.db --trace inc.ini --quiet
	expect_err_line 'rcusim run: --trace inc.ini: is the scenario inc.ini; writing the trace would destroy it'
	cp "$C" c.orig
	expect_exit 2 "$RCUSIM" run inc.ini --db b.db --trace "$C" --quiet
	expect_err 'is a file the scenario includes'
	cmp -s inc.ini inc.orig && cmp -s "$C" c.orig && ok || bad "a scenario file changed"
	[ ! -e b.db ] && ok || bad "b.db made before the refusal"
	# Another file is written as before.
	expect_exit 0 "$RCUSIM" run inc.ini --db b.db --trace t.txt --quiet
	grep -q '^# tracer: nop' t.txt && ok || bad "t.txt: $(head -c 200 t.txt)"
}

uri_names() {
	case=uri_names
	for db in 'file::memory:' 'file:x.db?mode=memory' 'file:z.db'; do
		expect_exit 0 "$RCUSIM" run "$Q" --duration 1s --db "$db" --quiet
		[ -f "./$db" ] && [ "$(q "./$db" 'SELECT count(*) FROM run')" = 1 ] && ok ||
			bad "run --db '$db': no file of that name holds the run: $(ls)"
		expect_exit 0 "$RCUSIM" runs --db "$db"
		expect_out '^ *1  complete '
	done
	[ ! -e z.db ] && [ ! -e x.db ] && ok || bad "a URI was opened: $(ls)"
	expect_exit 0 "$RCUSIM" merge 'file:m.db?mode=memory' 'file:z.db'
	expect_out '1 runs added'
	[ "$(q './file:m.db?mode=memory' 'SELECT count(*) FROM run')" = 1 ] && ok || bad "merge into a URI name: $(ls)"
	expect_exit 0 "$RCUSIM" import "$SRC/tests/data/tracefs-churn-6.18-hz250.txt.gz" --db 'file::memory:'
	[ "$(q './file::memory:' "SELECT count(*) FROM run WHERE policy = 'measured'")" = 1 ] && ok ||
		bad "import into file::memory:: $(cat "$T/err")"
	expect_exit 0 "$RCUSIM" sweep "$Q" --vary workload.queue_batch=1,2 --set scenario.duration=1s \
		--db 'file:s.db?mode=memory'
	[ "$(q './file:s.db?mode=memory' "SELECT count(*) FROM run WHERE status = 'complete'")" = 2 ] && ok ||
		bad "sweep into a URI name: $(cat "$T/err")"
}

read_no_files() {
	case=read_no_files
	sqlite3 f.db 'PRAGMA journal_mode=WAL; CREATE TABLE t(a); INSERT INTO t VALUES(1);' >/dev/null
	cp f.db f.orig
	expect_exit 2 "$RCUSIM" runs --db f.db
	expect_err 'not an rcusim results database'
	[ ! -e f.db-wal ] && [ ! -e f.db-shm ] && ok || bad "runs left files beside f.db: $(ls)"
	cmp -s f.db f.orig && ok || bad "f.db changed"
	"$RCUSIM" run "$Q" --duration 1s --db o.db --quiet >/dev/null 2>&1
	cp o.db o.orig
	for cmd in runs compare show; do
		"$RCUSIM" $cmd --db o.db >/dev/null 2>&1
		[ ! -e o.db-wal ] && [ ! -e o.db-shm ] && ok || bad "$cmd left files beside o.db: $(ls)"
	done
	expect_exit 0 "$RCUSIM" merge m.db o.db
	[ ! -e o.db-wal ] && [ ! -e o.db-shm ] && ok || bad "merge left files beside o.db: $(ls)"
	cmp -s o.db o.orig && ok || bad "o.db changed"
}

trace_errors() {
	case=trace_errors
	# A full disk under the trace: said with its errno while the run runs
	# (the run is stopped once it is said, and is aborted by that signal).
	"$RCUSIM" run "$C" --duration 3000s --db e.db --trace /dev/full --quiet >/dev/null 2>e.err &
	bg=$!
	i=0
	while ! grep -q 'No space left on device' e.err && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 $bg 2>/dev/null && ok || bad "the write error was not said while the run ran: $(cat e.err)"
	grep -q '^rcusim: --trace /dev/full: No space left on device (writing events at [0-9.]* s simulated); the trace stops there, the run goes on$' e.err &&
		ok || bad "the error as it happened: $(cat e.err)"
	kill -TERM $bg
	wait $bg
	rc=$?
	bg=
	[ $rc -eq 143 ] && [ "$(q e.db 'SELECT status FROM run')" = aborted ] && ok ||
		bad "stopped run: exit $rc, $(q e.db 'SELECT status FROM run'): $(cat e.err)"
	# To its end: complete, with its results, exit 3 with the cause.
	expect_exit 3 "$RCUSIM" run "$C" --duration 2s --db e2.db --trace /dev/full --quiet
	expect_err '^rcusim: --trace /dev/full: No space left on device \(writing events at [0-9.]* s simulated\); the trace stops there; run 1 is recorded complete$'
	[ "$(q e2.db 'SELECT status FROM run')" = complete ] && [ "$(q e2.db 'SELECT count(*) FROM scalar')" -gt 10 ] &&
		ok || bad "e2.db: $(q e2.db 'SELECT status FROM run')"
	grep -q 'written whole' "$T/err" && bad "a cause-less message: $(cat "$T/err")" || ok
	# A reader of the trace gone: its EPIPE, not a signal that stops the run.
	mkfifo pipe
	(head -c 1000 pipe >/dev/null) &
	expect_exit 3 "$RCUSIM" run "$C" --duration 2s --db e3.db --trace pipe --quiet
	expect_err '^rcusim: --trace pipe: Broken pipe \(writing events at .*; run 1 is recorded complete$'
	[ "$(q e3.db 'SELECT status FROM run')" = complete ] && ok || bad "e3.db: $(q e3.db 'SELECT status FROM run')"
}

trace_options() {
	case=trace_options
	for w in 1s...2s 0s...2s; do
		expect_exit 2 "$RCUSIM" run "$C" --duration 2s --db w.db --trace w.txt --trace-window "$w" --quiet
		expect_err_line "--trace-window $w: A..B, two times with their units (1s..2s)"
	done
	expect_exit 2 "$RCUSIM" run "$C" --duration 2s --db w.db --trace w.txt --trace-window 2s..3s --quiet
	expect_err_line "--trace-window 2s..3s: starts at or after the run's end (scenario.duration = 2s): the trace would hold no event"
	expect_exit 2 "$RCUSIM" run "$C" --duration 2s --db w.db --trace w.txt --trace-cpus '' --quiet
	expect_err '^--trace-cpus "": no CPU named'
	[ ! -e w.db ] && [ ! -e w.txt ] && ok || bad "a refused trace made files: $(ls)"
	# A window closed long before a SIGKILL: its events are all in the
	# file, which ends with a whole line.
	"$RCUSIM" run "$C" --duration 3000s --db k.db --trace k.txt --trace-window 0s..1s --quiet >/dev/null 2>&1 &
	bg=$!
	sleep 1.5
	kill -KILL $bg
	wait $bg 2>/dev/null
	bg=
	[ "$(tail -c 1 k.txt | od -An -c | tr -d ' ')" = '\n' ] && ok || bad "k.txt ends mid-line: $(tail -c 80 k.txt)"
	last=$(tail -n 1 k.txt | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); print $i; exit } }')
	[ -n "$last" ] && [ "$(echo "$last > 0.99" | bc)" = 1 ] && ok || bad "k.txt's last event at ${last:-?} s: $(tail -n 1 k.txt)"
}

side_full_disk() {
	case=side_full_disk
	MNT=$T/small
	mkdir -p "$MNT" tmpd
	if ! mount -t tmpfs -o size=192k tmpfs "$MNT" 2>/dev/null; then
		MNT=
		echo "reliability_run.sh: cannot mount a tmpfs here (not root?): side_full_disk not tested"
		return
	fi
	# The database's folder is full: the side database goes to the
	# current folder, named; the row is shown aside, not lost.
	expect_exit 3 "$RCUSIM" run "$SRC/scenarios/make-small.ini" --db "$MNT/f.db" --duration 20s --quiet
	side=$(sed -n 's/^They are in \(.*\): `rcusim merge.*/\1/p' "$T/err")
	case $side in
	./f.db.run1-*.db) [ -s "$side" ] && ok || bad "side database $side empty or absent" ;;
	*) bad "side database not in the current folder: $(cat "$T/err")" ;;
	esac
	[ -n "$side" ] && [ "$(q "$side" 'SELECT status FROM run')" = complete ] &&
		[ "$(q "$side" 'SELECT count(*) FROM scalar')" -gt 10 ] && ok || bad "side database: $(q "$side" 'SELECT status FROM run' 2>&1)"
	expect_exit 0 "$RCUSIM" runs --db "$MNT/f.db"
	expect_out '^ *1  aside '
	grep -q lost "$T/out" && bad "runs calls it lost: $(cat "$T/out")" || ok
	expect_exit 0 "$RCUSIM" compare --db "$MNT/f.db" 1
	expect_err 'run 1 is not complete here: its results are in a side database'
	# The current folder full too: $TMPDIR.
	rm -f "$MNT"/f.db*
	(cd "$MNT" && TMPDIR=$T/tmpd "$RCUSIM" run "$SRC/scenarios/make-small.ini" --db g.db --duration 20s --quiet \
		>/dev/null 2>"$T/err")
	side=$(sed -n 's/^They are in \(.*\): `rcusim merge.*/\1/p' "$T/err")
	case $side in
	"$T"/tmpd/g.db.run1-*.db) [ "$(q "$side" 'SELECT status FROM run')" = complete ] && ok || bad "$side" ;;
	*) bad "side database not in \$TMPDIR: $(cat "$T/err")" ;;
	esac
	umount "$MNT" && MNT=
}

# n_running DIR N: until N run databases of DIR/runs hold a running run
# (20 s at most).
n_running() {
	i=0
	while [ $i -lt 400 ]; do
		n=0
		for db in "$1"/runs/*.db; do
			[ -e "$db" ] || continue
			[ "$(q "$db" 'SELECT status FROM run' 2>/dev/null)" = running ] && n=$((n + 1))
		done
		[ $n -ge "$2" ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

parallel_live() {
	case=parallel_live
	if ! parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
		echo "reliability_run.sh: no GNU parallel: parallel_live not tested"
		return
	fi
	# A sweep killed while its runs go on (GNU parallel's tasks outlive
	# it); submitted again: the live runs are running, not lost, neither
	# moved aside nor run twice.
	set -- "$Q" --vary workload.queue_batch=1,2 --duration 600s --backend parallel --results r --db s.db
	"$RCUSIM" sweep "$@" >p1.out 2>p1.err &
	sweep=$!
	n_running r 2 && ok || bad "the runs never showed running: $(cat p1.err)"
	kill -KILL $sweep
	wait $sweep 2>/dev/null
	expect_exit 3 "$RCUSIM" sweep "$@"
	expect_out "^sweep: 2 runs in $T/r: 0 complete, 0 to run \\(2 running\\)\$"
	[ -z "$(ls r/failed 2>/dev/null)" ] && ok || bad "live databases moved aside: $(ls r/failed)"
	[ ! -e r/submit-2.tasks ] && ok || bad "the live runs submitted again: $(cat r/submit-2.tasks)"
	# Once they end: each run once, complete.
	i=0
	while [ "$(cat r/runs/*.db 2>/dev/null | wc -c)" -gt 0 ] && [ $i -lt 600 ] &&
		[ "$(for db in r/runs/*.db; do q "$db" 'SELECT status FROM run'; done | sort -u)" != complete ]; do
		sleep 0.1
		i=$((i + 1))
	done
	expect_exit 0 "$RCUSIM" sweep --collect r
	expect_out '^sweep: 2 runs, 2 complete$'
	for db in r/runs/*.db; do
		[ "$(q "$db" "SELECT count(*) || ' ' || group_concat(status) FROM run")" = "1 complete" ] && ok ||
			bad "$db: $(q "$db" 'SELECT run_id, status FROM run')"
	done
}

sweep_stopped() {
	case=sweep_stopped
	# One run at a time of three; SIGTERM while the first runs.
	"$RCUSIM" sweep "$Q" --vary workload.queue_batch=1,2,3 --duration 600s --jobs 1 --db sw.db \
		>sw.out 2>sw.err &
	sweep=$!
	i=0
	while [ "$(q sw.db "SELECT count(*) FROM run WHERE status = 'running'" 2>/dev/null)" != 1 ] && [ $i -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	pid=$(q sw.db 'SELECT pid FROM run')
	kill -TERM $sweep
	wait $sweep
	rc=$?
	[ $rc -eq 143 ] && ok || bad "the stopped sweep: exit $rc, want 143: $(cat sw.err)"
	[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && ok || bad "its run (pid ${pid:-?}) still runs"
	[ "$(q sw.db "SELECT count(*) || ' ' || group_concat(status) FROM run")" = "1 aborted" ] && ok ||
		bad "sw.db: $(q sw.db 'SELECT run_id, status FROM run')"
	grep -qx 'sweep: 3 runs, 0 complete, 0 failed, 2 not run, 1 aborted' sw.out && ok || bad "the sweep's report: $(cat sw.out)"
	grep -q 'run "sweep workload.queue_batch=1": aborted: stopped by SIGTERM' sw.err && ok || bad "$(cat sw.err)"
	[ "$(grep -c 'not run: the sweep was stopped by signal 15 (Terminated) before it started' sw.err)" = 2 ] &&
		ok || bad "the runs not started: $(cat sw.err)"
}

[ $# -gt 0 ] || set -- trace_target uri_names read_no_files trace_errors trace_options side_full_disk parallel_live \
	sweep_stopped
for c in "$@"; do
	"$c"
done

finish
