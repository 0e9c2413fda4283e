#!/bin/sh
# install.sh BUILD_DIR SRCDIR - `cmake --install BUILD --prefix DIR` puts
# rcusim, its man page, plot scripts, scenarios and docs under DIR; the
# installed rcusim, run from another folder, simulates an installed scenario
# and draws its figures with the installed plot scripts (a marker they write
# proves it is those, not the source tree's); the installed scenario that
# replays a recording finds it; probe's scenario includes the installed
# kernel preset.
lib_args="B SRC"
. "$(dirname "$0")/lib.sh"
P=$T/prefix
expect_exit 0 cmake --install "$B" --prefix "$P"
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
expect_exit 0 "$P/bin/rcusim" run "$P/share/rcusim/scenarios/make-small.ini" --duration 2s --quiet
expect_exit 0 "$P/bin/rcusim" plot --out figs
[ -s figs/nr_files.png ] && ok || bad "no figure"
[ -e "$P/share/rcusim/plots/installed-scripts-used" ] && ok || bad "the installed plot scripts were not the ones used"
# An installed scenario that replays a recording finds it.
expect_exit 0 "$P/bin/rcusim" run "$P/share/rcusim/scenarios/dev-vm-replay.ini" --duration 1s --quiet
# A scenario elsewhere includes an installed preset by its short name.
printf 'include = kernels/linux-6.12.ini\n[workload]\nkind = callrcu\n' >short.ini
expect_exit 0 "$P/bin/rcusim" run short.ini --duration 100ms --db short.db --quiet
expect_exit 0 "$P/bin/rcusim" show --db short.db 1
expect_out "$(cd "$P" && pwd -P)/share/rcusim/scenarios/kernels/linux-6.12.ini:[0-9]+"
# probe's scenario includes the installed kernel preset, not the source tree's.
expect_exit 0 "$P/bin/rcusim" probe --root "$SRC/tests/data/probe/dev-vm-6.18" --out box.ini
grep -qx "include = $(cd "$P" && pwd -P)/share/rcusim/scenarios/kernels/linux-6.12.ini" box.ini && ok ||
	bad "probe's include: $(grep '^include' box.ini)"
expect_exit 0 "$P/bin/rcusim" run box.ini --duration 100ms --set workload.kind=callrcu --quiet
finish
