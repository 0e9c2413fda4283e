#!/bin/sh
# faults.sh RCUSIM SRCDIR - what rcusim does when the world fails under it:
# a run killed with SIGKILL at several points (the database stays intact and
# the run is reported lost, never complete), 8 runs writing one database at
# once (none lost), a read-only database, a lock held past the busy timeout,
# a database on a full filesystem (skipped, saying so, where this machine
# cannot mount a small tmpfs). Every failure must exit with the status the
# reference gives (3: I/O or database) and a message naming its cause.
. "$(dirname "$0")/lib.sh"
MNT=
at_exit='[ -n "$MNT" ] && umount "$MNT" 2>/dev/null'
SEED=$SRC/scenarios/niagara-make.ini
SMALL=$SRC/scenarios/make-small.ini

# SIGKILL at three points of the seed hour (it takes about 15 s here): the
# file passes integrity_check, the row is never 'complete', and runs,
# compare and check call it lost. On a busy machine the kill can come
# before the database has its tables, or before it exists: nothing was
# recorded then, and nothing is lost (a valid outcome, counted as such).
for at in 0.3 1 2.5; do
	rm -f k.db*
	"$RCUSIM" run "$SEED" --db k.db --quiet --label "killed at $at s" >/dev/null 2>&1 &
	pid=$!
	sleep "$at"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	if [ ! -e k.db ] || [ "$(q k.db "SELECT count(*) FROM sqlite_master WHERE name = 'run'")" != 1 ]; then
		# Killed before the schema was written: no row, no file or an
		# empty one (never a file sqlite3 cannot read).
		[ ! -s k.db ] || [ "$(q k.db 'PRAGMA integrity_check')" = ok ] && ok || bad "killed at $at s before the schema: integrity_check"
		echo "faults.sh: killed at $at s before the schema existed (a slow machine): nothing to report"
		continue
	fi
	[ "$(q k.db 'PRAGMA integrity_check')" = ok ] && ok || bad "killed at $at s: integrity_check"
	[ "$(q k.db "SELECT count(*) FROM run WHERE status = 'complete'")" = 0 ] && ok || bad "killed at $at s: a complete run"
	if [ "$(q k.db 'SELECT count(*) FROM run')" = 1 ]; then
		"$RCUSIM" runs --db k.db >runs.out 2>&1 && grep -q '^ *1  lost ' runs.out && ok || bad "killed at $at s: runs: $(cat runs.out)"
		"$RCUSIM" compare --db k.db 1 >/dev/null 2>cmp.err
		grep -q 'run 1 is lost: its process (pid [0-9]* on .*) is gone' cmp.err && ok || bad "killed at $at s: compare: $(cat cmp.err)"
		expect_exit 2 "$RCUSIM" check --db k.db --run 1 "$SRC/tests/baselines/make-small-fixed.ini"
		expect_err 'run 1 is lost, not complete'
	else
		# Killed before its row was written: nothing to report, nothing lost.
		[ "$(q k.db 'SELECT count(*) FROM run')" = 0 ] && ok || bad "killed at $at s: rows"
	fi
done

# 8 writers at once into one new database: 8 complete runs, none lost.
i=0
while [ $i -lt 8 ]; do
	"$RCUSIM" run "$SMALL" --db w.db --duration 2s --seed $i --quiet >/dev/null 2>w.$i.err &
	i=$((i + 1))
done
wait
[ "$(q w.db "SELECT count(*) FROM run WHERE status = 'complete'")" = 8 ] && ok || bad "8 writers: $(q w.db 'SELECT status FROM run'; cat w.*.err)"
[ "$(q w.db "SELECT count(DISTINCT seed) FROM run")" = 8 ] && ok || bad "8 writers: seeds"

# A read-only database (a file without write permission, or, as root, on a
# filesystem mounted read-only): exit 3, the cause named, nothing written.
readonly_case() { # readonly_case DB
	expect_exit 3 "$RCUSIM" run "$SMALL" --db "$1" --duration 1s --quiet
	grep -qi 'readonly\|read-only\|read only' "$T/err" && ok || bad "read-only database: $(cat "$T/err")"
	[ "$(q "$1" 'SELECT count(*) FROM run')" = 1 ] && ok || bad "read-only database changed"
}
"$RCUSIM" run "$SMALL" --db ro.db --duration 1s --quiet >/dev/null 2>&1
chmod 0444 ro.db
if [ ! -w ro.db ]; then
	readonly_case ro.db
elif mkdir -p rofs && mount -t tmpfs -o size=1m tmpfs rofs 2>/dev/null; then
	"$RCUSIM" run "$SMALL" --db rofs/ro.db --duration 1s --quiet >/dev/null 2>&1
	# WAL needs its -shm and -wal files; checkpoint and drop them first.
	sqlite3 rofs/ro.db 'PRAGMA journal_mode=DELETE' >/dev/null
	mount -o remount,ro rofs && readonly_case rofs/ro.db
	umount rofs
else
	echo "faults.sh: running as root without mount: read-only case not tested"
fi
chmod 0644 ro.db

# A lock held past the busy timeout: exit 3, "locked", no run row left.
# The holder says when it holds the lock (a file), and keeps it until the
# run has ended (another file), however slow the machine.
"$RCUSIM" run "$SMALL" --db lk.db --duration 1s --quiet >/dev/null 2>&1
(
	printf 'BEGIN EXCLUSIVE;\nINSERT INTO param VALUES (1, "held", "x");\n.shell touch held\n'
	i=0
	while [ ! -e released ] && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	printf 'ROLLBACK;\n'
) | sqlite3 lk.db &
holder=$!
i=0
while [ ! -e held ] && [ $i -lt 1200 ]; do
	sleep 0.05
	i=$((i + 1))
done
[ -e held ] && ok || bad "the lock holder never held the lock"
expect_exit 3 env RCUSIM_BUSY_TIMEOUT_MS=500 "$RCUSIM" run "$SMALL" --db lk.db --duration 1s --quiet
touch released
wait $holder
expect_err 'locked'
[ "$(q lk.db 'SELECT count(*) FROM run')" = 1 ] && ok || bad "lock held: rows $(q lk.db 'SELECT run_id, status FROM run')"

# A database on a full filesystem: exit 3, the cause named; no complete run.
MNT=$T/small
mkdir -p "$MNT"
if mount -t tmpfs -o size=192k tmpfs "$MNT" 2>/dev/null; then
	expect_exit 3 "$RCUSIM" run "$SRC/scenarios/make-small.ini" --db "$MNT/f.db" --duration 20s --quiet
	grep -qi 'full\|disk' "$T/err" && ok || bad "full filesystem: $(cat "$T/err")"
	if [ -s "$MNT/f.db" ]; then
		n=$(q "$MNT/f.db" "SELECT count(*) FROM run WHERE status = 'complete'" 2>/dev/null || echo 0)
		[ "$n" = 0 ] && ok || bad "full filesystem: a complete run"
	fi
else
	MNT=
	echo "faults.sh: cannot mount a tmpfs here (not root?): full-filesystem case not tested"
fi

finish
