# lib.sh - what the shell tests share; sourced as `. "$(dirname "$0")/lib.sh"`
# by a test called as `TEST RCUSIM SRCDIR [ARGS...]`. It sets RCUSIM and
# SRC from $1 and $2, absolute (the test works in a folder of its own), and
# shifts them off. A test whose leading arguments are other paths names them
# in lib_args before sourcing (lib_args=SRC for `TEST SRCDIR`, lib_args="B
# SRC" for `TEST BUILD_DIR SRCDIR`); each is made absolute and shifted off
# the same way (a word such as a backend the test shifts off itself first).
# It makes the scratch folder $T and works in it, removing it at exit with
# the background run $bg, if any, after the command $at_exit, if the test
# sets one (unmounting, stopping daemons under $T); counts checks with ok
# and bad (named after $case when a test sets it); and gives:
#   q DB SQL            sqlite3 on DB
#   last_scalar DB NAME, want_scalars DB "NAME=VALUE ..."   the last run's scalars
#   expect_exit CODE CMD...  run CMD (stdout to $T/out, stderr to $T/err) and
#                       check its exit status
#   expect_err RE, expect_out RE    $T/err, $T/out match the extended regex
#   expect_err_line L, expect_out_line L    ... hold the exact line L
#   finish              the closing "N passed, N failed" line, and status 0
#                       if none failed and at least one passed
set -u
# lib_abs PATH: PATH made absolute (a folder by itself, a file by its folder).
lib_abs() {
	if [ -d "$1" ]; then
		(cd "$1" && pwd)
	else
		echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
	fi
}
for lib_v in ${lib_args:-RCUSIM SRC}; do
	eval "$lib_v=\$(lib_abs \"\$1\")"
	shift
done
T=$(mktemp -d)
bg=
at_exit=
case=
fails=0
pass=0
lib_cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null
	[ -n "$at_exit" ] && eval "$at_exit"
	rm -rf "$T"
}
trap lib_cleanup EXIT
trap 'exit 1' HUP INT TERM
cd "$T" || exit 1

ok() { pass=$((pass + 1)); }
bad() {
	echo "FAIL: ${case:+$case: }$*"
	fails=$((fails + 1))
}
q() { sqlite3 "$1" "$2"; }
# last_scalar DB NAME: scalar NAME of DB's last run, to 17 digits.
last_scalar() { q "$1" "SELECT printf('%.17g', value) FROM scalar WHERE run_id = (SELECT max(run_id) FROM run) AND name = '$2'"; }
# want_scalars DB "NAME=VALUE ...": each scalar of DB's last run as given.
want_scalars() {
	for ws_kv in $2; do
		ws_got=$(last_scalar "$1" "${ws_kv%%=*}")
		[ "$ws_got" = "${ws_kv#*=}" ] && ok || bad "${ws_kv%%=*} = $ws_got, want ${ws_kv#*=}"
	done
}

expect_exit() {
	want=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok; else
		bad "exit $got, want $want: $*"
		head -c 2000 "$T/out" "$T/err"
	fi
}
expect_err() { grep -qE -- "$1" "$T/err" && ok || bad "stderr lacks /$1/: $(head -c 1000 "$T/err")"; }
expect_out() { grep -qE -- "$1" "$T/out" && ok || bad "stdout lacks /$1/: $(head -c 1000 "$T/out")"; }
expect_err_line() { grep -qxF -- "$1" "$T/err" && ok || bad "stderr lacks: $1; got: $(head -c 1000 "$T/err")"; }
expect_out_line() { grep -qxF -- "$1" "$T/out" && ok || bad "stdout lacks: $1; got: $(head -c 1000 "$T/out")"; }

finish() {
	echo "$pass passed, $fails failed"
	[ $fails -eq 0 ] && [ $pass -gt 0 ]
}
