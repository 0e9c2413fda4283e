#!/bin/sh
# golden.sh RCUSIM SRCDIR - every scalar, histogram bin and series point of
# short runs of the small scenarios and of four 6.12 loads on the 256-CPU
# server (every CPU offloaded, synchronize_rcu() callers, the exit flood's
# first 120 ms, rcutorture's flood until it passes), bit for bit (17
# significant digits) against tests/golden/. An optimisation must leave
# them unchanged; a deliberate model change regenerates them with
# GOLDEN_UPDATE=1 and the diff goes into its commit. scripts/same-results.sh
# does the same for two builds on any scenario.
set -u
RCUSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fails=0
for spec in queue:5s callrcu-small:5s make-small:10s openclose-small:3s blimit-small:3s tree-small:3s \
	x86-256-callrcu-6.12-nocbs:1s x86-256-syncrcu-6.12:1s x86-256-exitflood-6.12:400ms \
	x86-256-fwdprog-6.12:200ms; do
	name=${spec%%:*}
	dur=${spec#*:}
	db="$T/$name.db"
	if ! "$RCUSIM" run "$SRC/scenarios/$name.ini" --db "$db" --duration "$dur" --quiet >/dev/null 2>"$T/err"; then
		echo "FAIL: $name: $(cat "$T/err")"
		fails=$((fails + 1))
		continue
	fi
	"$SRC/scripts/dump-results.sh" "$db" >"$T/$name.txt"
	want="$SRC/tests/golden/$name.txt"
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$T/$name.txt" "$want"
		pass=$((pass + 1))
	elif cmp -s "$T/$name.txt" "$want"; then
		pass=$((pass + 1))
	else
		echo "FAIL: $name differs from tests/golden/$name.txt:"
		diff "$want" "$T/$name.txt" | head -10
		fails=$((fails + 1))
	fi
done
echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
