#!/bin/sh
# input_limits.sh RCUSIM SRCDIR - input rcusim must refuse or survive
# rather than misreport: `check` without --run checks the baseline's own
# scenario's run (never the latest of another scenario), a baseline that
# cannot mean what it says is bad input (exit 2, file, line and key), a run
# whose series would not fit in memory is refused up front (exit 2), and a
# machine too large for the memory there is ends in exit 3 "out of memory"
# with the run 'failed', not in GSL's abort() (that last case runs under
# `ulimit -v`, which a sanitized build cannot: skipped there, and said so).
. "$(dirname "$0")/lib.sh" # SRC absolute: the baselines written below name scenarios by it

# A sanitized rcusim reserves terabytes of address space: it cannot run
# under `ulimit -v`. CMake says so (RCUSIM_SANITIZED); by hand, nm tells.
sanitized=${RCUSIM_SANITIZED:-}
if [ -z "$sanitized" ] && nm -D "$RCUSIM" 2>/dev/null | grep -q '__asan_init'; then
	sanitized=1
fi

# ---- check: which run, without --run -------------------------------------
BL=$SRC/tests/baselines/make-small-fixed.ini
DB=$T/c.db
# Run 1: the baseline's scenario as the baseline asks; run 2: queue.ini.
expect_exit 0 "$RCUSIM" check --run-scenario --db "$DB" "$BL"
expect_exit 0 "$RCUSIM" run --quiet --db "$DB" --duration 1s "$SRC/scenarios/queue.ini"
# The latest run is of another scenario: the baseline's own is checked.
expect_exit 0 "$RCUSIM" check --db "$DB" "$BL"
expect_out_line 'check: run 1, the latest complete run of scenario make-small (policy fixed, seed 1, duration 10s)'
expect_out_line "check: run 1 against $BL: 9 passed, 0 failed"
# A baseline whose only bound any run passes: it still checks run 1.
cat >"$T/any.ini" <<EOF
[baseline]
scenario = $SRC/scenarios/make-small.ini
set = rcu.policy=fixed
set = rcu.maxbatch=10000
set = rcu.resched_over=10000
set = vfs.accounting=slab
seed = 1
duration = 10s
[metric cb.enqueued]
min = 0
EOF
expect_exit 0 "$RCUSIM" check --db "$DB" "$T/any.ini"
expect_out_line "check: run 1 against $T/any.ini: 1 passed, 0 failed"
# --run still checks the run it names, whatever its scenario.
expect_exit 0 "$RCUSIM" check --db "$DB" --run 2 "$T/any.ini"
expect_out_line "check: run 2 against $T/any.ini: 1 passed, 0 failed"
# Same scenario, another policy (or seed, or duration): not this baseline's run.
expect_exit 2 "$RCUSIM" check --db "$DB" "$SRC/tests/baselines/make-small-tunable.ini"
expect_err_line "$DB: no complete run of scenario make-small (policy tunable, seed 1, duration 10s) to check against $SRC/tests/baselines/make-small-tunable.ini: run it with --run-scenario, or name a run with --run"
sed 's/^seed = 1/seed = 2/' "$T/any.ini" >"$T/seed2.ini"
expect_exit 2 "$RCUSIM" check --db "$DB" "$T/seed2.ini"
expect_err_line "$DB: no complete run of scenario make-small (policy fixed, seed 2, duration 10s) to check against $T/seed2.ini: run it with --run-scenario, or name a run with --run"
# Only another scenario's runs: exit 2, not a pass nor a regression.
expect_exit 0 "$RCUSIM" run --quiet --db "$T/q.db" --duration 1s "$SRC/scenarios/queue.ini"
expect_exit 2 "$RCUSIM" check --db "$T/q.db" "$T/any.ini"
expect_err_line "$T/q.db: no complete run of scenario make-small (policy fixed, seed 1, duration 10s) to check against $T/any.ini: run it with --run-scenario, or name a run with --run"
expect_exit 2 "$RCUSIM" check --db "$T/q.db" "$BL"
# A baseline's scenario that cannot be read is bad input too.
printf '[baseline]\nscenario = nowhere.ini\n[metric cb.enqueued]\nmin = 0\n' >"$T/nowhere.ini"
expect_exit 2 "$RCUSIM" check --db "$T/q.db" "$T/nowhere.ini"
# --update without --run rewrites from the baseline's own run, not run 2.
cp "$BL" "$T/upd.ini"
sed -i 's|^scenario = .*|scenario = '"$SRC"'/scenarios/make-small.ini|; s/^expect = 121770$/expect = 5/' "$T/upd.ini"
expect_exit 0 "$RCUSIM" check --db "$DB" --update "$T/upd.ini"
grep -qx 'expect = 121770' "$T/upd.ini" && ok || bad "--update did not take cb.enqueued from run 1: $(grep -A1 'cb.enqueued' "$T/upd.ini")"

# ---- baseline files that cannot mean what they say: exit 2 ---------------
# bl NAME BODY: a baseline of make-small with BODY after its [baseline] keys.
bl() {
	printf '[baseline]\nscenario = %s/scenarios/make-small.ini\n%b' "$SRC" "$2" >"$T/$1.ini"
}
bl twice '[metric cb.enqueued]\nexpect = 121770\nexpect = 5\n'
expect_exit 2 "$RCUSIM" check --db "$DB" --run 1 "$T/twice.ini"
expect_err_line "$T/twice.ini:5: cb.enqueued.expect: given twice (first at $T/twice.ini:4)"
bl twice_max '[metric vfs.open_failures]\nmax = 0\nmax = 10\n'
expect_exit 2 "$RCUSIM" check --db "$DB" --run 1 "$T/twice_max.ini"
expect_err_line "$T/twice_max.ini:5: vfs.open_failures.max: given twice (first at $T/twice_max.ini:4)"
bl twice_seed 'seed = 1\nseed = 2\n[metric cb.enqueued]\nmin = 0\n'
expect_exit 2 "$RCUSIM" check --db "$DB" --run 1 "$T/twice_seed.ini"
expect_err_line "$T/twice_seed.ini:4: baseline.seed: given twice (first at $T/twice_seed.ini:3)"
bl both_tol '[metric cb.enqueued]\nexpect = 121770\nrel_tol = 0.001\nabs_tol = 5\n'
expect_exit 2 "$RCUSIM" check --db "$DB" --run 1 "$T/both_tol.ini"
expect_err_line "$T/both_tol.ini:6: cb.enqueued.abs_tol: rel_tol and abs_tol exclude each other (rel_tol at $T/both_tol.ini:5)"
bl min_max '[metric cb.enqueued]\nmin = 200000\nmax = 100000\n'
expect_exit 2 "$RCUSIM" check --db "$DB" --run 1 "$T/min_max.ini"
expect_err_line "$T/min_max.ini:5: cb.enqueued.max: min (200000, $T/min_max.ini:4) is above max (100000, $T/min_max.ini:5)"
bl no_metric 'seed = 1\n'
expect_exit 2 "$RCUSIM" check --db "$DB" --run 1 "$T/no_metric.ini"
expect_err_line "$T/no_metric.ini:1: [baseline]: no [metric NAME] section follows: nothing to check"
bl unknown '[metric cb.enqueud]\nmin = 0\n'
expect_exit 2 "$RCUSIM" check --db "$DB" --run 1 "$T/unknown.ini"
expect_err_line "$T/unknown.ini:3: [metric cb.enqueud]: unknown metric (\`rcusim metrics\` lists the scalars)"
bl series '[metric cb.qlen]\nmax = 10\n'
expect_exit 2 "$RCUSIM" check --db "$DB" --run 1 "$T/series.ini"
expect_err_line "$T/series.ini:3: [metric cb.qlen]: not a scalar metric: only scalars can be checked (\`rcusim metrics\` lists the scalars)"
# min = max is a bound, not a contradiction.
bl min_eq_max '[metric vfs.open_failures]\nmin = 0\nmax = 0\n'
expect_exit 0 "$RCUSIM" check --db "$DB" --run 1 "$T/min_eq_max.ini"

# ---- samples: refused up front when they cannot fit -----------------------
# limited CMD...: CMD under a time limit and, where it can, a memory limit
# (before the fix such a run went on until it filled memory), like
# expect_exit without the check; its exit status in $rc.
limited() {
	if [ -z "$sanitized" ]; then lim='ulimit -v 2000000;'; else lim=; fi
	sh -c "$lim exec timeout 20 \"\$@\"" sh "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
limited "$RCUSIM" run --quiet --db "$T/s.db" --set scenario.sample_interval=1us \
	"$SRC/scenarios/make-small.ini"
[ $rc -eq 2 ] && ok || bad "sample_interval=1us: exit $rc, want 2: $(cat "$T/err")"
expect_err_line '--set: scenario.sample_interval: 1us over scenario.duration = 20s is 20000001 samples of each of at least 11 series (2 per CPU on 4 CPUs, 3 machine-wide): 220000011 points, 3.28 GiB in memory, over the limit of 100000000 points (1.49 GiB); use an interval of at least 3us or a shorter duration'
[ "$(q "$T/s.db" 'SELECT count(*) FROM run' 2>/dev/null || echo 0)" -eq 0 ] && ok || bad "a refused run left a row"
# Named where it was set, in a scenario file.
printf '[scenario]\nduration = 1h\nsample_interval = 10us\n[workload]\nkind = queue\n' >"$T/fine.ini"
limited "$RCUSIM" run --quiet --db "$T/s.db" "$T/fine.ini"
[ $rc -eq 2 ] && ok || bad "sample_interval=10us over 1h: exit $rc, want 2: $(cat "$T/err")"
grep -q "^$T/fine.ini:3: scenario.sample_interval: 10us over scenario.duration = 1h is 360000001 samples of each of at least 33 series" "$T/err" && ok || bad "sample limit message: $(cat "$T/err")"

# ---- a machine too large for the memory there is --------------------------
# 65536 cores x 64 threads = 4,194,304 CPUs, two GSL generators each: GSL's
# allocator fails first, and its default handler called abort().
if [ -n "$sanitized" ]; then
	echo "SKIP: out of memory under ulimit -v: $RCUSIM is sanitized (ASan cannot run under ulimit -v)"
else
	sh -c 'ulimit -v 1000000; exec "$@"' sh "$RCUSIM" run --quiet --db "$T/m.db" \
		--set machine.cores=65536 --set machine.threads_per_core=64 --duration 1ms \
		"$SRC/scenarios/queue.ini" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 3 ] && ok || bad "4M CPUs under ulimit -v: exit $rc, want 3: $(cat "$T/err")"
	grep -q 'out of memory' "$T/err" && ok || bad "4M CPUs: no 'out of memory': $(cat "$T/err")"
	# The model is built before the run is recorded, so a machine that
	# does not fit leaves no row (none running, lost or complete).
	[ ! -e "$T/m.db" ] || [ "$(q "$T/m.db" "SELECT count(*) FROM run WHERE status <> 'failed'")" = 0 ] && ok ||
		bad "4M CPUs: a row not failed: $(q "$T/m.db" 'SELECT run_id, status FROM run')"
fi

finish
