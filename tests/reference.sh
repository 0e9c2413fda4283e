#!/bin/sh
# reference.sh RCUSIM SRCDIR - the documentation matches the program:
# docs/reference.md is what scripts/gen-reference.sh makes from RCUSIM (the
# difference is shown when it is not); every parameter of `rcusim params
# --format ini` and every metric of `rcusim metrics` is in it; every
# "docs/model.md section N" or "docs/reference.md section N" cited in the
# sources and the output of `rcusim params` names a section that exists;
# and every relative link of README.md and docs/*.md leads to a file that
# exists (and, into docs/, to a heading that exists).
. "$(dirname "$0")/lib.sh"
REF=$SRC/docs/reference.md

# docs/reference.md is up to date.
if ! "$SRC/scripts/gen-reference.sh" "$RCUSIM" "$T/reference.md" 2>"$T/err"; then
	bad "scripts/gen-reference.sh failed: $(cat "$T/err")"
elif diff -u "$REF" "$T/reference.md" >"$T/diff"; then
	ok
else
	bad "docs/reference.md is out of date; regenerate it with scripts/gen-reference.sh $RCUSIM. The difference (- the file, + the program):"
	head -60 "$T/diff"
fi

# Every parameter and every metric is in it, as a row of its table.
if "$RCUSIM" params --format ini >"$T/params.ini"; then
	awk '/^\[.*\]$/ { s = substr($0, 2, length($0) - 2) } /^[a-z0-9_]+ = / { print s "." $1 }' \
		"$T/params.ini" >"$T/params"
	n=$(wc -l <"$T/params")
	[ "$n" -ge 50 ] && ok || bad "only $n parameters in rcusim params --format ini"
	while read -r name; do
		grep -qF "| \`$name\` |" "$REF" && ok || bad "parameter $name is missing from docs/reference.md"
	done <"$T/params"
else
	bad "rcusim params --format ini"
fi
if "$RCUSIM" metrics >"$T/metrics.txt"; then
	awk 'NR > 1 { print $1 }' "$T/metrics.txt" >"$T/metrics"
	n=$(wc -l <"$T/metrics")
	[ "$n" -ge 50 ] && ok || bad "only $n metrics in rcusim metrics"
	while read -r name; do
		grep -qF "| \`$name\` |" "$REF" && ok || bad "metric $name is missing from docs/reference.md"
	done <"$T/metrics"
else
	bad "rcusim metrics"
fi

# Cited sections exist: "docs/X.md section N" needs a heading "## N. " in
# docs/X.md.
"$RCUSIM" params >"$T/params.txt" || bad "rcusim params"
find "$SRC/README.md" "$SRC/cli" "$SRC/sim" "$SRC/models" "$SRC/tests" "$SRC/scripts" "$SRC/docs" \
	"$SRC/scenarios" "$SRC/bench" "$SRC/plots" -type f \
	\( -name '*.c' -o -name '*.h' -o -name '*.def' -o -name '*.md' -o -name '*.sh' -o -name '*.ini' \
	-o -name '*.gp' -o -name '*.py' -o -name '*.txt' \) >"$T/files"
while read -r f; do
	tr '\n' ' ' <"$f" | grep -oE 'docs/(model|reference)\.md[ *]*section [0-9]+' | sed 's/[ *]* / /g'
done <"$T/files" >"$T/cited"
tr '\n' ' ' <"$T/params.txt" | grep -oE 'docs/(model|reference)\.md section [0-9]+' >>"$T/cited"
sort -u "$T/cited" >"$T/sections"
[ -s "$T/sections" ] && ok || bad "no section of docs/model.md or docs/reference.md cited anywhere"
while read -r doc _ n; do
	grep -q "^## $n\. " "$SRC/$doc" && ok || bad "$doc section $n is cited but $doc has no heading \"## $n. \""
done <"$T/sections"

# Relative links lead somewhere: [text](path#anchor) in README.md and
# docs/*.md; an anchor into docs/*.md must be a heading's (lower case,
# punctuation dropped, spaces as hyphens).
slugs() {
	awk '/^```/ { code = !code } !code && /^#+ / {
		h = $0
		sub(/^#+ +/, "", h)
		h = tolower(h)
		gsub(/[^a-z0-9 _-]/, "", h)
		gsub(/ /, "-", h)
		print h
	}' "$1"
}
for md in "$SRC/README.md" "$SRC"/docs/*.md; do
	dir=$(dirname "$md")
	grep -oE '\]\([^)]+\)' "$md" | sed 's/^](//; s/)$//' | grep -vE '^[a-z]+:' >"$T/links" || true
	while read -r link; do
		path=${link%%#*}
		anchor=
		case $link in *'#'*) anchor=${link#*#} ;; esac
		target=$md
		[ -n "$path" ] && target=$dir/$path
		if [ ! -e "$target" ]; then
			bad "${md#"$SRC"/}: link to $link: no such file"
			continue
		fi
		case $target in
		*/docs/*.md | *README.md)
			if [ -n "$anchor" ] && ! slugs "$target" | grep -qx "$anchor"; then
				bad "${md#"$SRC"/}: link to $link: no such heading"
				continue
			fi
			;;
		esac
		ok
	done <"$T/links"
done

finish
