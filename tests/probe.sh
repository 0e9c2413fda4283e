#!/bin/sh
# probe.sh RCUSIM SRCDIR - `rcusim probe --root` on saved /proc and /sys
# trees of two kernels (tests/data/probe/): the 2-CPU 6.18 VM rcusim is
# written on (copied from it whole: its config.gz, command line and
# rcutree/rcupdate parameters), and a 64-CPU Debian 13 6.12 box booted
# preempt=full nohz_full=1-63 rcu_nocbs=1-63 rcutree.blimit=100 (its
# config in /boot, reduced to the lines probe reads, with debugfs
# mounted). Each value is read from where it says and the scenario runs;
# what cannot be read is said; bad --root and --out are refused.
. "$(dirname "$0")/lib.sh"
D=$SRC/tests/data/probe

# The VM: 2 CPUs, one thread a core, HZ 250 and PREEMPT_NONE from
# /proc/config.gz, preemptible RCU, no debugfs (said), autogroup from its
# sysctl, rcutree's
# parameters as it holds them, its lazy callbacks left out (no CPU
# offloaded), its unmodelled words listed.
case=vm
expect_exit 0 "$RCUSIM" probe --root "$D/dev-vm-6.18" --out vm.ini
for l in 'cores = 2 ; /sys/devices/system/cpu/online (2 CPUs) / 1 threads a core' \
	'hz = 250 ; /proc/config.gz CONFIG_HZ=250' \
	'preempt = none ; /proc/config.gz CONFIG_PREEMPT_NONE=y' \
	'preempt_rcu = yes ; /proc/config.gz CONFIG_PREEMPT_RCU=y' \
	'nohz_idle = yes ; /proc/config.gz CONFIG_NO_HZ_IDLE=y' \
	'stall_timeout = 59s ; /sys/module/rcupdate/parameters rcupdate.rcu_cpu_stall_timeout' \
	'normal_wake_from_gp = yes ; /sys/module/rcutree/parameters rcutree.rcu_normal_wake_from_gp' \
	'blimit = 10 ; /sys/module/rcutree/parameters rcutree.blimit' \
	'nocb_gp_stride = auto ; /sys/module/rcutree/parameters rcutree.rcu_nocb_gp_stride' \
	'autogroup = yes ; /proc/sys/kernel/sched_autogroup_enabled'; do
	grep -qxF -- "$l" vm.ini && ok || bad "vm.ini lacks: $l"
done
grep -q '^include = .*/scenarios/kernels/linux-6.12.ini$' vm.ini && ok || bad "vm.ini: no 6.12 preset"
grep -q '^; the preemption mode it runs: .*/sys/kernel/debug/sched/preempt: No such file' vm.ini && ok ||
	bad "vm.ini does not say debugfs was not read"
expect_err 'not read:'
grep -q '^lazy' vm.ini && bad "vm.ini sets rcu.lazy with no CPU offloaded" || ok
grep -q '^; .*enable_rcu_lazy.*no CPU is offloaded' vm.ini && ok || bad "vm.ini: lazy not explained"
grep -q '^; /proc/cmdline, not modelled or not about RCU: mitigations console quiet' vm.ini && ok ||
	bad "vm.ini: the unmodelled words"
grep -q -- '--firecracker-init' vm.ini && bad "init's arguments (after --) read as the kernel's" || ok
expect_exit 0 "$RCUSIM" run vm.ini --duration 200ms --set workload.kind=callrcu --set workload.jobs=2 --db p.db --quiet
[ "$(q p.db "SELECT value FROM param WHERE run_id = 1 AND name = 'machine.threads_per_core'")" = 1 ] && ok ||
	bad "the run's threads_per_core"

# The Debian box: 32 cores of 2 threads, its /boot config (no config.gz),
# preempt=full from debugfs over the build's voluntary, nohz_full and
# rcu_nocbs from the command line, lazy callbacks on its offloaded CPUs,
# blimit 100 as rcutree holds it.
case=debian
expect_exit 0 "$RCUSIM" probe --root "$D/debian-13-6.12-64cpu"
cp "$T/out" deb.ini
for l in 'cores = 32 ; /sys/devices/system/cpu/online (64 CPUs) / 2 threads a core' \
	'threads_per_core = 2 ; /sys/devices/system/cpu/cpu0/topology/thread_siblings_list' \
	'hz = 250 ; /boot/config-6.12.117+deb13-amd64 CONFIG_HZ=250' \
	'preempt = full ; /sys/kernel/debug/sched/preempt' \
	'nohz_idle = yes ; /boot/config-6.12.117+deb13-amd64 CONFIG_NO_HZ_FULL=y' \
	'nohz_full = 1-63 ; /proc/cmdline nohz_full' \
	'nocbs = 1-63 ; /proc/cmdline rcu_nocbs' \
	'lazy = yes ; /sys/module/rcutree/parameters/enable_rcu_lazy' \
	'blimit = 100 ; /sys/module/rcutree/parameters rcutree.blimit' \
	'stall_timeout = 21s ; /sys/module/rcupdate/parameters rcupdate.rcu_cpu_stall_timeout' \
	'boost = no ; /boot/config-6.12.117+deb13-amd64 CONFIG_RCU_BOOST is not set'; do
	grep -qxF -- "$l" deb.ini && ok || bad "deb.ini lacks: $l"
done
grep -q 'Not read' deb.ini && bad "deb.ini: something not read: $(grep -A3 'Not read' deb.ini)" || ok
grep -q '^; .*jiffies_till_first_fqs reads 2: derived at boot' deb.ini && ok || bad "deb.ini: jiffies not said"
grep -qxF 'autogroup = yes ; /boot/config-6.12.117+deb13-amd64 CONFIG_SCHED_AUTOGROUP=y (on at boot; /proc/sys/kernel/sched_autogroup_enabled not read)' deb.ini &&
	ok || bad "deb.ini: autogroup from the build: $(grep autogroup deb.ini)"
expect_exit 0 "$RCUSIM" run deb.ini --duration 100ms --set workload.kind=callrcu --set workload.jobs=64 --db p.db --quiet
[ "$(q p.db "SELECT value FROM param WHERE run_id = 2 AND name = 'rcu.nocbs'")" = 1-63 ] && ok || bad "the run's nocbs"

# What probe cannot do: a --root that is no folder (2), a tree without
# /proc (3), an --out it cannot write (3, nothing left behind), extra
# words (2).
case=errors
expect_exit 2 "$RCUSIM" probe --root "$T/none"
expect_err -- '--root .*/none: No such file'
touch afile
expect_exit 2 "$RCUSIM" probe --root afile
mkdir -p empty
expect_exit 3 "$RCUSIM" probe --root empty
expect_err 'proc/sys/kernel/osrelease: No such file or directory \(no Linux /proc there\)'
expect_exit 3 "$RCUSIM" probe --root "$D/dev-vm-6.18" --out "$T/nodir/x.ini"
expect_err 'nodir/x.ini.tmp: No such file'
expect_exit 2 "$RCUSIM" probe extra
expect_exit 2 "$RCUSIM" probe --out a.ini --out b.ini
# A damaged config.gz is an I/O error, not a quiet fallback.
mkdir -p bad/proc/sys/kernel
echo 6.18.0 >bad/proc/sys/kernel/osrelease
head -c 300 "$D/dev-vm-6.18/proc/config.gz" >bad/proc/config.gz
expect_exit 3 "$RCUSIM" probe --root bad
expect_err 'config.gz: cut short or damaged'
finish
