#!/bin/sh
# presets.sh RCUSIM SRCDIR - a scenario outside the source tree includes the
# presets by their short names: a relative include is looked for beside the
# including file, then in each folder of $RCUSIM_PATH, then in rcusim's
# presets (installed, else the source tree's; tests/install.sh checks the
# installed ones); a miss says every place it looked (exit 2).
. "$(dirname "$0")/lib.sh"
hz_of() { q "$1" "SELECT value FROM param WHERE run_id = (SELECT max(run_id) FROM run) AND name = 'machine.hz'"; }
mkdir -p mine/kernels mine2/kernels here/kernels
cat >box.ini <<-EOF2
	include = kernels/debian-13-6.12.ini
	include = machines/x86-16.ini
	[workload]
	kind = callrcu
	jobs = 16
EOF2
# Found among the source tree's presets.
expect_exit 0 "$RCUSIM" run box.ini --duration 100ms --db p.db --quiet
[ "$(hz_of p.db)" = 250 ] && ok || bad "debian preset: hz $(hz_of p.db)"
# A folder of RCUSIM_PATH comes first, in the order given.
printf 'include = %s/scenarios/kernels/debian-13-6.12.ini\n[machine]\nhz = 1000\n' "$SRC" >mine/kernels/debian-13-6.12.ini
printf 'include = %s/scenarios/kernels/debian-13-6.12.ini\n[machine]\nhz = 100\n' "$SRC" >mine2/kernels/debian-13-6.12.ini
expect_exit 0 env RCUSIM_PATH="$T/mine:$T/mine2" "$RCUSIM" run box.ini --duration 100ms --db p.db --quiet
[ "$(hz_of p.db)" = 1000 ] && ok || bad "RCUSIM_PATH: hz $(hz_of p.db)"
expect_exit 0 env RCUSIM_PATH="$T/empty-folder:$T/mine2" "$RCUSIM" run box.ini --duration 100ms --db p.db --quiet
[ "$(hz_of p.db)" = 100 ] && ok || bad "RCUSIM_PATH's second folder: hz $(hz_of p.db)"
# Beside the including file comes before RCUSIM_PATH.
cp box.ini here/box.ini
printf 'include = %s/scenarios/kernels/debian-13-6.12.ini\n[machine]\nhz = 300\n' "$SRC" >here/kernels/debian-13-6.12.ini
expect_exit 0 env RCUSIM_PATH="$T/mine" "$RCUSIM" run here/box.ini --duration 100ms --db p.db --quiet
[ "$(hz_of p.db)" = 300 ] && ok || bad "beside the file: hz $(hz_of p.db)"
# A miss names every place looked, and no run is recorded.
printf 'include = kernels/nope.ini\n' >miss.ini
n=$(q p.db 'SELECT count(*) FROM run')
expect_exit 2 env RCUSIM_PATH="$T/mine" "$RCUSIM" run miss.ini --duration 100ms --db p.db --quiet
expect_err "miss.ini:1: include: kernels/nope.ini: no such file; looked for kernels/nope.ini, $T/mine/kernels/nope.ini \\(RCUSIM_PATH\\), .*/scenarios/kernels/nope.ini \\(the source tree's presets\\)"
[ "$(q p.db 'SELECT count(*) FROM run')" = "$n" ] && ok || bad "a miss recorded a run"
# check --run-scenario reads a baseline's scenario the same way.
cat >bl.ini <<-EOF2
	[baseline]
	scenario = box.ini
	duration = 100ms
	[metric cb.enqueued]
	min = 1
EOF2
expect_exit 0 "$RCUSIM" check --run-scenario --db p.db bl.ini
finish
