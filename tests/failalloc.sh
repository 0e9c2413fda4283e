#!/bin/sh
# failalloc.sh RCUSIM SRCDIR - every allocation rcusim's own code makes in
# a short run of make-small (files, slab, RCU, recorder, CLI), of
# callrcu-small, and of collecting a sweep's databases fails in turn
# (RCUSIM_FAIL_ALLOC=N, the test hook of tests/failalloc.c; RCUSIM is built
# with -DRCUSIM_FAILALLOC=ON and, in scripts/test.sh, ASan with leak
# detection). Each run must either complete as if nothing failed, or exit 3
# with "out of memory" and leave no complete run: no crash, no sanitizer
# report, no leak, no run that looks complete.
. "$(dirname "$0")/lib.sh"
for spec in make-small:200ms callrcu-small:50ms; do
	sc=${spec%%:*}
	dur=${spec#*:}
	set -- run "$SRC/scenarios/$sc.ini" --duration "$dur" --quiet
	RCUSIM_COUNT_ALLOCS=1 "$RCUSIM" "$@" --db count.db >/dev/null 2>count.err
	n=$(sed -n 's/^rcusim allocations: //p' count.err)
	[ -n "$n" ] || { bad "$sc: no allocation count (built without -DRCUSIM_FAILALLOC=ON?): $(cat count.err)"; continue; }
	i=1
	while [ "$i" -le "$n" ]; do
		rm -f f.db*
		RCUSIM_FAIL_ALLOC=$i "$RCUSIM" "$@" --db f.db >out 2>err
		rc=$?
		complete=$( [ -s f.db ] && sqlite3 f.db "SELECT count(*) FROM run WHERE status = 'complete'" 2>/dev/null || echo 0)
		if [ $rc -eq 0 ] && [ "$complete" -eq 1 ]; then
			ok
		elif [ $rc -eq 3 ] && grep -q 'out of memory' err && [ "$complete" -eq 0 ]; then
			ok
		else
			bad "$sc, allocation $i of $n failing: exit $rc, $complete complete runs: $(head -c 600 err)"
		fi
		i=$((i + 1))
	done
done
# Collecting a cluster sweep (two runs made through GNU parallel): each
# allocation failing in turn either changes nothing or ends in exit 3 with
# "out of memory", never in a run reported failed or lost (exit 4).
if "$RCUSIM" sweep "$SRC/scenarios/callrcu-small.ini" --vary rcu.blimit=10,100 --duration 50ms \
	--backend parallel --results res --db c.db >out 2>err; then
	set -- sweep --collect res --db f.db
	RCUSIM_COUNT_ALLOCS=1 "$RCUSIM" "$@" >/dev/null 2>count.err
	n=$(sed -n 's/^rcusim allocations: //p' count.err)
	i=1
	while [ "$i" -le "${n:-0}" ]; do
		rm -f f.db*
		RCUSIM_FAIL_ALLOC=$i "$RCUSIM" "$@" >out 2>err
		rc=$?
		if [ $rc -eq 0 ] && grep -qx 'sweep: 2 runs, 2 complete' out &&
			[ "$(sqlite3 f.db "SELECT count(*) FROM run WHERE status = 'complete'")" -eq 2 ]; then
			ok
		elif [ $rc -eq 3 ] && grep -q 'out of memory' err; then
			ok
		else
			bad "sweep --collect, allocation $i of $n failing: exit $rc: $(head -c 600 out err)"
		fi
		i=$((i + 1))
	done
	[ "${n:-0}" -gt 10 ] || bad "sweep --collect: ${n:-no} allocations counted: $(cat count.err)"
else
	bad "the parallel sweep to collect: $(cat out err)"
fi
finish
