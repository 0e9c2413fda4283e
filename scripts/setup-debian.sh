#!/bin/sh
# setup-debian.sh [run|test] [--list]: install the Debian packages rcusim
# needs, and nothing more.
#   run   (the default; scripts/main.sh) what building, running and plotting
#         need: compiler, CMake, GSL, SQLite, gnuplot, help2man for the man
#         page the build makes, libtracecmd, libtraceevent and libtracefs
#         (the trace library: import of trace.dat, rcusim record). No server
#         and no daemon.
#   test  (scripts/test.sh) those, and what the test suite uses: trace-cmd
#         (its report reads the trace.dat a run writes), Check, clang
#         and its sanitizer runtime (the fuzz build), bc and time, valgrind
#         (instruction counts), man-db (the install test reads the man page),
#         GNU parallel, jq (the trace test checks the exported JSON timeline),
#         openssh-server, slurm-wlm and munge (the sweep tests
#         start a one-node Slurm and an sshd on 127.0.0.1 of their own, and
#         stop them). Their packages would start sshd, munged, slurmctld and
#         slurmd at installation and at every boot: they are installed with
#         service starts refused (policy-rc.d) and, where this script
#         installed them, their services are disabled, so no daemon is left
#         running by the setup.
#   --list  print the profile's packages, one a line, and install nothing.
# Idempotent: what is installed already is skipped. Run as root (or via sudo).
set -eu

RUN_PKGS="build-essential cmake pkg-config libgsl-dev libsqlite3-dev sqlite3 gnuplot-nox help2man libtracecmd-dev libtraceevent-dev libtracefs-dev"
TEST_PKGS="trace-cmd check clang libclang-rt-dev bc time valgrind man-db parallel jq openssh-server slurm-wlm munge"
# The services that TEST_PKGS' packages register (name, package).
SERVICES="ssh:openssh-server munge:munge slurmctld:slurm-wlm slurmd:slurm-wlm"

profile=run
list=no
for a in "$@"; do
	case $a in
	run | test) profile=$a ;;
	--list) list=yes ;;
	*)
		echo "usage: $0 [run|test] [--list]" >&2
		exit 2
		;;
	esac
done
PKGS=$RUN_PKGS
[ "$profile" = test ] && PKGS="$RUN_PKGS $TEST_PKGS"

if [ $list = yes ]; then
	for p in $PKGS; do echo "$p"; done
	exit 0
fi

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

missing=""
for p in $PKGS; do
	installed "$p" || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "setup: all packages present ($profile)"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi
echo "setup: installing$missing"
$SUDO apt-get update -q

# Service starts refused while the packages install (Debian's policy-rc.d,
# read by invoke-rc.d and deb-systemd-invoke), unless the machine has a
# policy of its own already.
policy=/usr/sbin/policy-rc.d
own_policy=no
if [ "$profile" = test ] && [ ! -e $policy ]; then
	printf '#!/bin/sh\n# rcusim setup-debian.sh: no service starts while it installs\nexit 101\n' |
		$SUDO tee $policy >/dev/null
	$SUDO chmod 755 $policy
	own_policy=yes
	trap '$SUDO rm -f $policy' EXIT
	trap '$SUDO rm -f $policy; exit 130' INT TERM HUP
fi
# shellcheck disable=SC2086 # the packages are words
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing

# The services of the packages this run installed stay off at boot too.
for s in $SERVICES; do
	name=${s%%:*}
	pkg=${s#*:}
	case " $missing " in *" $pkg "*) ;; *) continue ;; esac
	if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
		$SUDO systemctl disable --now "$name" >/dev/null 2>&1 || true
	elif command -v update-rc.d >/dev/null && [ -e "/etc/init.d/$name" ]; then
		$SUDO update-rc.d "$name" disable >/dev/null 2>&1 || true
	fi
done
if [ $own_policy = yes ]; then
	$SUDO rm -f $policy
	trap - EXIT
fi
