#!/bin/sh
# setup.sh SRCDIR - what scripts/setup-debian.sh installs. The main job's
# profile (run) holds no server: none of its packages ships a service or an
# init script, and none of the daemons the test profile brings (sshd,
# munged, slurmctld, slurmd) is among them or what they depend on. The test
# profile (test) installs every program the tests and benchmarks call: each
# such program found here belongs to a package of that profile or to one it
# depends on (so a fresh machine has it after scripts/test.sh's setup).
lib_args=SRC
. "$(dirname "$0")/lib.sh"
SETUP=$SRC/scripts/setup-debian.sh

run_pkgs=$(sh "$SETUP" run --list) && [ -n "$run_pkgs" ] && ok || bad "setup-debian.sh run --list"
test_pkgs=$(sh "$SETUP" test --list) && [ -n "$test_pkgs" ] && ok || bad "setup-debian.sh test --list"
expect_exit 2 sh "$SETUP" nonsense
for p in $run_pkgs; do
	echo "$test_pkgs" | grep -qx "$p" && ok || bad "the test profile lacks the main job's $p"
done

# The installed closure (what apt pulled in for a profile), one a line.
closure() {
	# shellcheck disable=SC2086 # the packages are words
	apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances $1 2>/dev/null | grep -v '^ ' | sed 's/:.*//' | sort -u
}
DAEMONS="openssh-server munge slurmd slurmctld slurmdbd slurm-wlm"
run_closure=$(closure "$run_pkgs")
for d in $DAEMONS; do
	echo "$run_closure" | grep -qx "$d" && bad "the main job installs $d" || ok
done
for p in $run_pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		bad "$p (main job) is not installed here"
		continue
	fi
	svc=$(dpkg -L "$p" | grep -E '^/(usr/)?lib/systemd/system/[^/]+\.(service|socket)$|^/etc/init\.d/')
	[ -z "$svc" ] && ok || bad "the main job's $p ships a service: $svc"
done

# Every program the tests call, by the package that owns it here.
test_closure=$(closure "$test_pkgs")
for prog in man gnuplot sqlite3 bc /usr/bin/time valgrind parallel jq /usr/sbin/sshd ssh ssh-keygen \
	munged slurmctld slurmd sbatch squeue sinfo scontrol clang help2man cmake trace-cmd; do
	path=$(command -v "$prog") || { bad "$prog: not found (scripts/setup-debian.sh test should install it)"; continue; }
	real=$(readlink -f "$path")
	owner=$(dpkg -S "$real" 2>/dev/null | grep -v '^diversion' | head -1 | sed 's/:.*//')
	[ -z "$owner" ] && owner=$(dpkg -S "$path" 2>/dev/null | grep -v '^diversion' | head -1 | sed 's/:.*//')
	if [ -z "$owner" ]; then
		bad "$prog ($real) belongs to no package"
	elif echo "$test_closure" | grep -qx "$owner"; then
		ok
	else
		bad "$prog is in $owner, which scripts/setup-debian.sh test does not install"
	fi
done
finish
