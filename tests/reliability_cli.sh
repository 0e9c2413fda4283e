#!/bin/sh
# reliability_cli.sh RCUSIM SRCDIR [CASE...] - nothing lost, nothing
# misread by the commands that read, compare, sweep and show runs (issue
# 46). One function per case (all of them, or the CASEs named):
#   option_twice    --last N given twice is refused (compare, export, plot)
#   kernel_words    the kernel's spellings read as 6.12 reads them: an empty
#                   boolean leaves the parameter as it was, with a warning; a
#                   second nohz_full= is refused, the first kept, with a
#                   warning; a word quoted whole is unquoted as next_arg()
#                   unquotes it
. "$(dirname "$0")/lib.sh"
TS=$SRC/scenarios/tree-small.ini
# param DB NAME: parameter NAME of DB's last run.
param() { q "$1" "SELECT value FROM param WHERE run_id = (SELECT max(run_id) FROM run) AND name = '$2'"; }
origin() { q "$1" "SELECT origin FROM param_origin WHERE run_id = (SELECT max(run_id) FROM run) AND name = '$2'"; }

option_twice() {
	case=option_twice
	"$RCUSIM" run "$TS" --duration 10ms --db t.db --quiet >/dev/null 2>&1
	for cmd in compare export plot; do
		expect_exit 2 "$RCUSIM" $cmd --db t.db --last 1 --last 2
		expect_err_line "rcusim $cmd: --last given twice: it takes one value"
	done
}

kernel_words() {
	case=kernel_words
	# rcutree.enable_rcu_lazy= (empty): kstrtobool("") is -EINVAL, the
	# kernel boots with the parameter as it was.
	expect_exit 0 "$RCUSIM" run "$TS" --duration 10ms --db k.db --quiet --cmdline 'quiet rcutree.enable_rcu_lazy='
	[ "$(param k.db rcu.lazy)" = no ] && ok || bad "rcu.lazy = $(param k.db rcu.lazy) after rcutree.enable_rcu_lazy="
	expect_err_line 'rcusim: warning: --cmdline: rcutree.enable_rcu_lazy=: an empty value is no boolean to the kernel (kstrtobool("") is -EINVAL): it ignores the word and rcu.lazy keeps its value'
	expect_exit 0 "$RCUSIM" run "$TS" --duration 10ms --db k.db --quiet --set 'nohz='
	[ "$(param k.db irq.nohz_idle)" = yes ] && ok || bad "irq.nohz_idle = $(param k.db irq.nohz_idle) after nohz="
	expect_err 'warning: --set: nohz=: an empty value is no boolean'
	# Without "=" a bool module parameter is true.
	expect_exit 0 "$RCUSIM" run "$TS" --duration 10ms --db k.db --quiet --cmdline 'rcutree.use_softirq'
	[ "$(param k.db rcu.use_softirq)" = yes ] && ok || bad "rcu.use_softirq = $(param k.db rcu.use_softirq)"
	# A second nohz_full= that differs: the first stays, a warning.
	expect_exit 0 "$RCUSIM" run "$TS" --duration 10ms --db k.db --quiet --cmdline 'nohz_full=1-3 nohz_full=4-5'
	[ "$(param k.db irq.nohz_full)" = 1-3 ] && ok || bad "irq.nohz_full = $(param k.db irq.nohz_full)"
	expect_err_line 'rcusim: warning: --cmdline: nohz_full=4-5: a second nohz_full=, refused as the kernel refuses it ("Housekeeping: nohz_full= must match isolcpus="): the first, nohz_full=1-3, stays'
	# Quoted whole, or its value quoted: next_arg() strips the quotes.
	expect_exit 0 "$RCUSIM" run "$TS" --duration 10ms --db k.db --quiet --cmdline '"rcutree.blimit=5" quiet'
	[ "$(param k.db rcu.blimit)" = 5 ] && ok || bad "rcu.blimit = $(param k.db rcu.blimit) after \"rcutree.blimit=5\""
	[ "$(origin k.db rcu.blimit)" = "--cmdline rcutree.blimit" ] && ok || bad "origin $(origin k.db rcu.blimit)"
	grep -q 'left out:.*blimit' "$T/err" && bad "stderr: $(cat "$T/err")" || ok
	expect_exit 0 "$RCUSIM" run "$TS" --duration 10ms --db k.db --quiet --cmdline 'rcutree.blimit="6'
	[ "$(param k.db rcu.blimit)" = 6 ] && ok || bad "rcu.blimit = $(param k.db rcu.blimit) after rcutree.blimit=\"6"
	# A quoted value keeps its blanks: one word, not modelled, left out.
	expect_exit 0 "$RCUSIM" run "$TS" --duration 10ms --db k.db --quiet --cmdline 'dyndbg="file rcu +p" rcutree.blimit=7'
	[ "$(param k.db rcu.blimit)" = 7 ] && ok || bad "rcu.blimit = $(param k.db rcu.blimit)"
	expect_err_line 'rcusim: --cmdline: not modelled, left out: dyndbg'
}

[ $# -gt 0 ] || set -- option_twice kernel_words
for c in "$@"; do
	"$c"
done

finish
