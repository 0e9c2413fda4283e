#!/bin/sh
# cli_libs.sh SRCDIR - each outside library is touched by one module
# (../shared/STYLE.md, issue 47): SQLite by sim/recorder.c alone, GSL by
# sim/ alone. No file of cli/ or models/ includes <sqlite3.h> or a
# <gsl/...> header, or names a sqlite3_ or gsl_ function; the recorder and
# sim/stats.h are what they ask instead.
lib_args=SRC
. "$(dirname "$0")/lib.sh"

for dir in cli models; do
	find "$SRC/$dir" -type f \( -name '*.c' -o -name '*.h' \) | sort >"$T/files"
	[ -s "$T/files" ] && ok || bad "no source files under $dir/"
	while read -r f; do
		rel=${f#"$SRC"/}
		if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](sqlite3\.h|gsl/)' "$f" >"$T/hits"; then
			bad "$rel includes $(sed 's/^\([0-9]*\):.*include[[:space:]]*/line \1: /' "$T/hits" | tr '\n' ' ')(SQLite is the recorder's, GSL is sim/'s)"
		else
			ok
		fi
		if grep -nE '\b(sqlite3_[a-z_]+|gsl_[a-z_]+)[[:space:]]*\(' "$f" >"$T/hits"; then
			bad "$rel calls $(head -3 "$T/hits" | tr '\n' ' ')(SQLite is the recorder's, GSL is sim/'s)"
		else
			ok
		fi
	done <"$T/files"
done
# The only SQLite user is the recorder; GSL stays in sim/.
grep -lE '#[[:space:]]*include[[:space:]]*<sqlite3\.h>' "$SRC"/sim/*.c "$SRC"/sim/*.h | sed "s|^$SRC/||" >"$T/sqlite"
[ "$(cat "$T/sqlite")" = "sim/recorder.c" ] && ok || bad "SQLite included by: $(tr '\n' ' ' <"$T/sqlite")(want sim/recorder.c alone)"
finish
