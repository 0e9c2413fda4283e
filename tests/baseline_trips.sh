#!/bin/sh
# baseline_trips.sh RCUSIM SRCDIR - a real model change trips a baseline:
# with softirq.max_restart = 1 instead of 10, the open/close baseline must
# fail (exit 1) and name the metrics that moved; and a malformed baseline
# is bad input (exit 2) naming file, line and key.
. "$(dirname "$0")/lib.sh"
case="a restart limit of 1"
expect_exit 1 "$RCUSIM" check --run-scenario --db b.db --set softirq.max_restart=1 \
	"$SRC/tests/baselines/openclose-fixed10.ini"
expect_out '^FAIL cb.pending_end: got'
expect_out ' failed$'
case="malformed baseline"
printf '[baseline]\nscenario = x.ini\n[metric cb.enqueued]\nexpect = lots\n' >bad.ini
expect_exit 2 "$RCUSIM" check --db b.db "$T/bad.ini"
expect_err_line "$T/bad.ini:4: cb.enqueued.expect: expected a number, got \"lots\""
finish
