#!/bin/sh
# Install the Debian packages rcusim needs to build, test and plot.
# Idempotent: apt-get skips what is already installed. Run as root (or via sudo).
set -eu

# slurm-wlm and munge: a one-node Slurm for the sweep_slurm test
# (scripts/slurm-local.sh); parallel and openssh-server: GNU parallel for
# sweep_parallel, with an sshd on 127.0.0.1 as its second host.
PKGS="build-essential cmake pkg-config libgsl-dev libsqlite3-dev sqlite3 check gnuplot-nox clang libclang-rt-dev bc time valgrind help2man slurm-wlm munge parallel openssh-server"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "setup: all packages present"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi
echo "setup: installing$missing"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
