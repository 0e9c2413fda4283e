#!/bin/sh
# golden.sh RCUSIM SRCDIR - every scalar, histogram bin and series point of
# short runs of the small scenarios and of four 6.12 loads on the 256-CPU
# server (every CPU offloaded, synchronize_rcu() callers, the exit flood's
# first 120 ms, rcutorture's flood until it passes), bit for bit (17
# significant digits) against tests/golden/. An optimisation must leave
# them unchanged; a deliberate model change regenerates them with
# GOLDEN_UPDATE=1 and the diff goes into its commit. scripts/same-results.sh
# does the same for two builds on any scenario.
. "$(dirname "$0")/lib.sh" # RCUSIM and SRC absolute: `sh tests/golden.sh build/rcusim .` works
for spec in queue:5s callrcu-small:5s make-small:10s openclose-small:3s blimit-small:3s tree-small:3s \
	x86-256-callrcu-6.12-nocbs:1s x86-256-syncrcu-6.12:1s x86-256-exitflood-6.12:400ms \
	x86-256-fwdprog-6.12:200ms; do
	name=${spec%%:*}
	dur=${spec#*:}
	case=$name
	if ! "$RCUSIM" run "$SRC/scenarios/$name.ini" --db "$name.db" --duration "$dur" --quiet >/dev/null 2>err; then
		bad "$(cat err)"
		continue
	fi
	"$SRC/scripts/dump-results.sh" "$name.db" >"$name.txt"
	golden="$SRC/tests/golden/$name.txt"
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$name.txt" "$golden" && ok || bad "cannot write $golden"
	elif cmp -s "$name.txt" "$golden"; then
		ok
	else
		bad "differs from tests/golden/$name.txt:"
		diff "$golden" "$name.txt" | head -10
	fi
done
finish
