#!/bin/sh
# baseline_trips.sh RCUSIM SRCDIR - a real model change trips a baseline:
# with softirq.max_restart = 1 instead of 10, the open/close baseline must
# fail (exit 1) and name the metrics that moved; and a malformed baseline
# is bad input (exit 2) naming file, line and key.
set -u
RCUSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
"$RCUSIM" check --run-scenario --db "$T/b.db" --set softirq.max_restart=1 \
	"$SRC/tests/baselines/openclose-fixed10.ini" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] && grep -q '^FAIL cb.pending_end: got' "$T/out" && grep -q ' failed$' "$T/out"; then
	pass=$((pass + 1))
else
	echo "FAIL: a restart limit of 1 did not trip the baseline (exit $rc)"
	cat "$T/out" "$T/err"
	fail=$((fail + 1))
fi
printf '[baseline]\nscenario = x.ini\n[metric cb.enqueued]\nexpect = lots\n' >"$T/bad.ini"
"$RCUSIM" check --db "$T/b.db" "$T/bad.ini" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && grep -qF "$T/bad.ini:4: cb.enqueued.expect: expected a number, got \"lots\"" "$T/err"; then
	pass=$((pass + 1))
else
	echo "FAIL: malformed baseline: exit $rc: $(cat "$T/err")"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
