#!/bin/sh
# install.sh BUILD_DIR SRCDIR - `cmake --install BUILD --prefix DIR` puts
# rcusim, its man page, plot scripts, scenarios and docs under DIR; the
# installed rcusim, run from another folder, simulates an installed scenario
# and draws its figures with the installed plot scripts (a marker they write
# proves it is those, not the source tree's).
set -u
B=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fails=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
P=$T/prefix
cmake --install "$B" --prefix "$P" >"$T/install.out" 2>&1 && ok || bad "install: $(cat "$T/install.out")"
for f in bin/rcusim share/man/man1/rcusim.1 share/rcusim/plots/common.gp share/rcusim/plots/nr_files.gp \
	share/rcusim/scenarios/make-small.ini share/rcusim/scenarios/niagara-make.ini \
	share/doc/rcusim/README.md share/doc/rcusim/LICENSE share/doc/rcusim/architecture.md; do
	[ -s "$P/$f" ] && ok || bad "not installed: $f"
done
man -l "$P/share/man/man1/rcusim.1" 2>/dev/null | grep -q 'EXIT STATUS' && ok || bad "man page"
# The installed plot scripts announce themselves.
echo "system('touch installed-scripts-used')" >>"$P/share/rcusim/plots/common.gp"
mkdir "$T/elsewhere"
cd "$T/elsewhere" || exit 1
"$P/bin/rcusim" run "$P/share/rcusim/scenarios/make-small.ini" --duration 2s --quiet >run.out 2>&1 && ok || bad "installed run: $(cat run.out)"
"$P/bin/rcusim" plot --out figs >plot.out 2>&1 && ok || bad "installed plot: $(cat plot.out)"
[ -s figs/nr_files.png ] && ok || bad "no figure"
[ -e "$P/share/rcusim/plots/installed-scripts-used" ] && ok || bad "the installed plot scripts were not the ones used"
echo "$pass passed, $fails failed"
[ $fails -eq 0 ]
