#!/bin/sh
# baseline_trips.sh RCUSIM SRCDIR - a real model change trips a baseline:
# with softirq.max_restart = 1 instead of 10, the open/close baseline must
# fail (exit 1) and name the metrics that moved, in human units with the
# signed change and which way is worse; a missing database and a baseline
# whose scenario path leads nowhere say what to do and where they looked;
# and a malformed baseline is bad input (exit 2) naming file, line and key.
. "$(dirname "$0")/lib.sh"
case="a restart limit of 1"
expect_exit 1 "$RCUSIM" check --run-scenario --db b.db --set softirq.max_restart=1 \
	"$SRC/tests/baselines/openclose-fixed10.ini"
# In human units, with the signed change and which way it went.
expect_out '^FAIL cb.pending_end: [0-9,]+, expected [0-9,]+ \+/- [0-9.]+% \(\+[0-9.e+]+%, worse\)$'
expect_out '^FAIL cb.latency_p50_ns: [0-9.]+ (ms|s), expected [0-9.]+ (ms|s) \+/- 1% \(\+[0-9.]+%, worse\)$'
expect_out '^FAIL softirq.run_max_ns: [0-9.]+ us, expected [0-9.]+ us \+/- 1% \(-[0-9.]+%, better\)$'
expect_out ' failed$'
grep -q '[0-9]\.5,' "$T/out" && bad "raw ns with .5 fractions: $(cat "$T/out")" || ok
case="hints"
# No database yet: exit 3, with the command that fills it.
expect_exit 3 "$RCUSIM" check --db none.db "$SRC/tests/baselines/openclose-fixed10.ini"
expect_err "none.db: no such database; \`rcusim check --run-scenario --db none.db .*openclose-fixed10.ini\` runs the baseline's scenario into it first"
# A baseline copied away from its relative scenario path: where it looked.
cp "$SRC/tests/baselines/openclose-fixed10.ini" moved.ini
expect_exit 2 "$RCUSIM" check --run-scenario --db b.db moved.ini
expect_err "^moved.ini:[0-9]+: baseline.scenario: ../../scenarios/openclose-small.ini: No such file or directory; looked for $(cd "$T" && pwd -P)/../../scenarios/openclose-small.ini \\(relative to the baseline's folder\\)$"

case="malformed baseline"
printf '[baseline]\nscenario = x.ini\n[metric cb.enqueued]\nexpect = lots\n' >bad.ini
expect_exit 2 "$RCUSIM" check --db b.db "$T/bad.ini"
expect_err_line "$T/bad.ini:4: cb.enqueued.expect: expected a number, got \"lots\""
finish
