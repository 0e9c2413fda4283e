#!/bin/sh
# warmup.sh RCUSIM SRCDIR - scenario.warmup (issue 49): tests/tree-small's
# 16 CPUs for 400 ms, W = 150.1 ms (off the 1 ms tick, so no sample falls
# at W itself).
# - Every histogram of the run with warm-up W is, bin for bin, the whole
#   run's minus the run that stops at W (runs are deterministic, so the
#   first W of both is the same run): the samples recorded before W, and
#   only they, are gone; their _max/_p99 scalars follow the histogram.
# - Counters (cb.invoked, gp.completed) are the whole run's, unchanged.
# - warmup >= duration: exit 2 naming file, line and key; no run.
. "$(dirname "$0")/lib.sh"
S="$SRC/scenarios/tree-small.ini"
expect_exit 0 "$RCUSIM" run "$S" --db w.db --quiet --duration 400ms
expect_exit 0 "$RCUSIM" run "$S" --db w.db --quiet --duration 400ms --set scenario.warmup=150100us
expect_exit 0 "$RCUSIM" run "$S" --db w.db --quiet --duration 150100us
# bins where whole - warm - prefix != 0, over every histogram; and the
# histograms compared (all of the whole run's).
off=$(q w.db "WITH a AS (SELECT name, lo, count c FROM hist WHERE run_id = 1),
	b AS (SELECT name, lo, count c FROM hist WHERE run_id = 2),
	p AS (SELECT name, lo, count c FROM hist WHERE run_id = 3),
	k AS (SELECT name, lo FROM a UNION SELECT name, lo FROM b UNION SELECT name, lo FROM p)
	SELECT count(*) FROM k LEFT JOIN a USING(name, lo) LEFT JOIN b USING(name, lo)
	LEFT JOIN p USING(name, lo) WHERE coalesce(a.c, 0) - coalesce(b.c, 0) - coalesce(p.c, 0) != 0")
[ "$off" = 0 ] && ok || bad "warm-up histograms: $off bins differ from whole - prefix"
[ "$(q w.db "SELECT count(DISTINCT name) FROM hist WHERE run_id = 1")" -ge 8 ] && ok || bad "histograms compared"
[ "$(q w.db "SELECT sum(count) FROM hist WHERE run_id = 2 AND name = 'cb.latency_ns'")" -lt \
  "$(q w.db "SELECT sum(count) FROM hist WHERE run_id = 1 AND name = 'cb.latency_ns'")" ] && ok || bad "samples dropped"
for s in cb.invoked gp.completed cb.qlen_max; do
	[ "$(q w.db "SELECT count(DISTINCT value) FROM scalar WHERE run_id IN (1, 2) AND name = '$s'")" = 1 ] &&
		ok || bad "$s differs with a warm-up"
done
# the warm run's max is its histogram's top sample, not the whole run's
[ "$(q w.db "SELECT value <= (SELECT value FROM scalar WHERE run_id = 1 AND name = 'cb.latency_max_ns')
	FROM scalar WHERE run_id = 2 AND name = 'cb.latency_max_ns'")" = 1 ] && ok || bad "max"
[ "$(q w.db "SELECT value >= (SELECT max(lo) FROM hist WHERE run_id = 2 AND name = 'cb.latency_ns')
	FROM scalar WHERE run_id = 2 AND name = 'cb.latency_max_ns'")" = 1 ] && ok || bad "max in the top bin"
printf '[scenario]\nduration = 1s\nwarmup = 1s\n' >bw.ini
expect_exit 2 "$RCUSIM" run bw.ini --db bw.db
expect_err_line 'bw.ini:3: scenario.warmup: the warm-up 1s would cover the whole run (scenario.duration = 1s, bw.ini:2): it must be shorter'
expect_exit 2 "$RCUSIM" run "$S" --db bw.db --duration 10ms --set scenario.warmup=20ms
expect_err_line '--set: scenario.warmup: the warm-up 20ms would cover the whole run (scenario.duration = 10ms, --duration): it must be shorter'
[ ! -s bw.db ] || [ "$(q bw.db 'SELECT count(*) FROM run')" = 0 ] && ok || bad "no run recorded"
finish
