#!/bin/sh
# commands.sh BUILD_DIR SRCDIR - the command summaries are made from one
# table (issue 51, item 6): README.md's and docs/usage.md's are what
# scripts/gen-commands.sh makes from BUILD_DIR/rcusim (the difference shown
# when one is stale); and the man page, installed with `cmake --install`,
# is found by `man rcusim` through MANPATH and holds every command of
# `rcusim --help` and every option of each command's --help.
lib_args="B SRC"
. "$(dirname "$0")/lib.sh"
RCUSIM=$B/rcusim

# The summaries are up to date.
if "$SRC/scripts/gen-commands.sh" "$RCUSIM" check "$SRC/README.md" "$SRC/docs/usage.md" >"$T/stale" 2>&1; then
	ok
else
	bad "$(cat "$T/stale")"
fi
# Each holds a row per command, with its synopsis.
"$RCUSIM" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' >"$T/cmds"
[ "$(wc -l <"$T/cmds")" -ge 14 ] && ok || bad "only $(wc -l <"$T/cmds") commands in rcusim --help"
for f in README.md docs/usage.md docs/reference.md; do
	while read -r c; do
		grep -q "^| \`rcusim $c[ \`]" "$SRC/$f" && ok || bad "$f: no row for rcusim $c"
	done <"$T/cmds"
done
grep -qxF '| `rcusim export [--db FILE] [--format csv\|json] [--hist \| --long] [RUNS]` | runs'"'"' results as tidy rows, CSV (RFC 4180) or JSON |' \
	"$SRC/README.md" && ok || bad "README.md: export's row is not the generated one"

# man rcusim, installed.
P=$T/prefix
expect_exit 0 cmake --install "$B" --prefix "$P"
[ -s "$P/share/man/man1/rcusim.1" ] && ok || bad "not installed: share/man/man1/rcusim.1"
[ "$(MANPATH="$P/share/man" man -w rcusim)" = "$P/share/man/man1/rcusim.1" ] && ok ||
	bad "man -w rcusim with MANPATH=$P/share/man: $(MANPATH="$P/share/man" man -w rcusim 2>&1)"
MANPATH="$P/share/man" MANWIDTH=200 man rcusim 2>"$T/manerr" >"$T/man"
[ -s "$T/man" ] && ok || bad "man rcusim printed nothing: $(cat "$T/manerr")"
grep -q '^COMMANDS' "$T/man" && ok || bad "man rcusim: no COMMANDS section"
grep -q "Tree RCU" "$T/man" && ok || bad "man rcusim: describes no Tree RCU"
while read -r c; do
	grep -qE "^ +rcusim $c\$" "$T/man" && ok || bad "man rcusim: no subsection for rcusim $c"
	"$RCUSIM" "$c" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u >"$T/opts"
	while read -r o; do
		# Within the command's own subsection.
		awk -v c="rcusim $c" '$0 ~ "^ +" c "$" { on = 1; next } on && /^ +rcusim [a-z-]+$/ { exit } on' "$T/man" |
			grep -qF -- "$o" && ok || bad "man rcusim: $c's option $o is missing"
	done <"$T/opts"
done <"$T/cmds"
finish
