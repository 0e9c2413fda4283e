#!/bin/sh
# scenarios.sh RCUSIM SRCDIR - every scenario in scenarios/ runs to a
# complete run with a short end time.
set -u
RCUSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fails=0
for f in "$SRC"/scenarios/*.ini; do
	if "$RCUSIM" run "$f" --db "$T/s.db" --duration 2s --quiet >"$T/out" 2>"$T/err"; then
		pass=$((pass + 1))
	else
		echo "FAIL: $f: $(cat "$T/err")"
		fails=$((fails + 1))
	fi
done
n=$(sqlite3 "$T/s.db" "SELECT count(*) FROM run WHERE status = 'complete'")
[ "$n" -eq "$pass" ] || { echo "FAIL: $n complete runs for $pass scenarios"; fails=$((fails + 1)); }
echo "$pass passed, $fails failed"
[ $fails -eq 0 ] && [ $pass -gt 0 ]
