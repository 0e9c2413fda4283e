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
#   compare_folds   compare folds no run into a mean twice: a repeat (the same
#                   seed, a sweep run again into its database, a trace
#                   imported twice) is counted once, a run named twice is one
#                   column, both said; n counts seeds
#   compare_quoting compare --format csv quotes a label's comma, quote and
#                   newline; --format md escapes its '|' and newline
#   sweep_fit       a sweep whose options set one parameter twice (--vary and
#                   --seeds, --vary and --set, --set and --duration), or whose
#                   --vary spells one value twice (5 and 0x5, n and off), is
#                   refused before any run: "parameters that do not fit together"
#   show_reruns     `rcusim run` of `rcusim show` of a run of every shipped
#                   scenario (100 ms) repeats it bit for bit: the same scalar
#                   and series tables
#   show_text       labels and names with a newline, ';' or '#' leave show's
#                   output a scenario file that runs; a value no scenario file
#                   can hold is a comment, said on stderr; an imported run's
#                   show claims no rerun; a killed run shows lost, as runs says
#   label_utf8      a --label (run, import) or --vary value (sweep) that is
#                   not UTF-8 is refused; export --format json of one already
#                   in a database writes UTF-8 (U+FFFD for the byte)
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
	# ... from either value (a word read as yes or as no would change one).
	expect_exit 0 "$RCUSIM" run "$TS" --duration 10ms --db k.db --quiet --set rcu.nocbs=all --set rcu.lazy=yes \
		--cmdline 'quiet rcutree.enable_rcu_lazy='
	[ "$(param k.db rcu.lazy)" = yes ] && ok || bad "rcu.lazy = $(param k.db rcu.lazy) after yes, rcutree.enable_rcu_lazy="
	expect_exit 0 "$RCUSIM" run "$TS" --duration 10ms --db k.db --quiet --set 'nohz='
	[ "$(param k.db irq.nohz_idle)" = yes ] && ok || bad "irq.nohz_idle = $(param k.db irq.nohz_idle) after nohz="
	expect_err 'warning: --set: nohz=: an empty value is no boolean'
	expect_exit 0 "$RCUSIM" run "$TS" --duration 10ms --db k.db --quiet --set irq.nohz_idle=no --set 'nohz='
	[ "$(param k.db irq.nohz_idle)" = no ] && ok || bad "irq.nohz_idle = $(param k.db irq.nohz_idle) after no, nohz="
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

compare_folds() {
	case=compare_folds
	for s in 1 1 2; do
		"$RCUSIM" run "$TS" --duration 10ms --db f.db --quiet --seed $s >/dev/null 2>&1
	done
	expect_exit 0 "$RCUSIM" compare --db f.db 1 2 3 --metric cb.enqueued --format csv
	[ "$(head -1 "$T/out")" = "metric,runs 1 3 tree (mean of 2)" ] && ok || bad "header: $(head -1 "$T/out")"
	expect_err_line "rcusim compare: run 2 repeats run 1 (the same scenario, policy, label, parameters and seed 1): counted once"
	# Only repeats: one value, no interval.
	expect_exit 0 "$RCUSIM" compare --db f.db 1 2 --metric cb.enqueued
	expect_out '^metric +run 1: tree$'
	grep -q 'n = \|±' "$T/out" && bad "a mean of one run: $(cat "$T/out")" || ok
	# --base a repeat left out: its twin's column.
	expect_exit 0 "$RCUSIM" compare --db f.db 1 2 3 --base 2 --metric cb.enqueued
	expect_out '^metric +runs 1,3: tree$'
	expect_exit 0 "$RCUSIM" compare --db f.db 1 1 --metric cb.enqueued --format csv
	[ "$(head -1 "$T/out")" = "metric,run 1 tree" ] && ok || bad "1 1: $(head -1 "$T/out")"
	expect_err_line "rcusim compare: run 1 is named twice: one column"
	# --each still shows every run.
	expect_exit 0 "$RCUSIM" compare --db f.db 1 2 --each --metric cb.enqueued --format csv
	[ "$(head -1 "$T/out")" = "metric,run 1 tree,run 2 tree" ] && ok || bad "--each: $(head -1 "$T/out")"
	# A sweep run twice into its database: each run once (runs that differ
	# only by the seed=N of their sweep label pool: a column per value).
	for k in 1 2; do
		"$RCUSIM" sweep "$TS" --vary rcu.blimit=5,6 --seeds 1..2 --duration 10ms --jobs 1 --db w.db >/dev/null 2>&1
	done
	expect_exit 0 "$RCUSIM" compare --db w.db --label 'sweep*' --metric cb.enqueued --format csv
	[ "$(head -1 "$T/out")" = "metric,runs 1 2 tree sweep rcu.blimit=5 (mean of 2),runs 3 4 tree sweep rcu.blimit=6 (mean of 2)" ] &&
		ok || bad "sweep twice: $(head -1 "$T/out")"
	expect_err_line "rcusim compare: run 5 repeats run 1 (the same scenario, policy, label, parameters and seed 1): counted once"
	[ "$(grep -c 'repeats run' "$T/err")" = 4 ] && ok || bad "repeats said: $(cat "$T/err")"
	# A trace imported twice is one measured run.
	"$RCUSIM" import "$SRC/tests/data/tracefs-ticks-6.18-hz250.txt" --db i.db >/dev/null 2>&1
	"$RCUSIM" import "$SRC/tests/data/tracefs-ticks-6.18-hz250.txt" --db i.db >/dev/null 2>&1
	expect_exit 0 "$RCUSIM" compare --db i.db 1 2 --metric 'softirq.*'
	expect_out '^metric +run 1: measured$'
	grep -q 'n = 2\|±' "$T/out" && bad "the trace twice: $(cat "$T/out")" || ok
	expect_err_line "rcusim compare: run 2 repeats run 1 (the same scenario, policy, label, parameters and seed 0): counted once"
}

compare_quoting() {
	case=compare_quoting
	"$RCUSIM" run "$TS" --duration 10ms --db q.db --quiet >/dev/null 2>&1
	"$RCUSIM" run "$TS" --duration 10ms --db q.db --quiet --seed 2 --label 'a,b"c|d
e' >/dev/null 2>&1
	expect_exit 0 "$RCUSIM" compare --db q.db 1 2 --metric cb.enqueued --format csv
	want=$(printf 'metric,run 1 tree,"run 2 tree a,b""c|d\ne"')
	[ "$(head -2 "$T/out")" = "$want" ] && ok || bad "csv header: $(cat "$T/out")"
	[ "$(sed -n 3p "$T/out" | tr -cd , | wc -c)" = 2 ] && ok || bad "csv row: $(sed -n 3p "$T/out")"
	expect_exit 0 "$RCUSIM" compare --db q.db 1 2 --metric cb.enqueued --format md
	expect_out_line '| label |  | a,b"c\|d<br>e |'
	# Every line a row of 3 cells: 4 pipes not escaped.
	bad_rows=$(sed 's/\\|//g' "$T/out" | awk -F'|' 'NF != 5' | wc -l)
	[ "$bad_rows" = 0 ] && ok || bad "md rows: $(cat "$T/out")"
}

sweep_fit() {
	case=sweep_fit
	fit='parameters that do not fit together'
	expect_exit 2 "$RCUSIM" sweep "$TS" --vary scenario.seed=1,2 --seeds 1..2 --duration 10ms --db s.db
	expect_err_line "rcusim sweep: --vary scenario.seed=1,2 and --seeds 1..2 both set scenario.seed: $fit (give each parameter once)"
	expect_exit 2 "$RCUSIM" sweep "$TS" --vary rcutree.blimit=5,6 --set rcu.blimit=7 --duration 10ms --db s.db
	expect_err_line "rcusim sweep: --vary rcutree.blimit=5,6 and --set rcu.blimit=7 both set rcu.blimit: $fit (give each parameter once)"
	expect_exit 2 "$RCUSIM" sweep "$TS" --vary rcu.blimit=5,6 --set scenario.duration=20ms --duration 10ms --db s.db
	expect_err "both set scenario.duration: $fit"
	expect_exit 2 "$RCUSIM" sweep "$TS" --vary rcutree.blimit=5,0x5 --duration 10ms --db s.db
	expect_err_line "rcusim sweep: --vary rcutree.blimit=5,0x5: 5 and 0x5 are one value of rcu.blimit: $fit (the same runs under two labels)"
	expect_exit 2 "$RCUSIM" sweep "$TS" --vary rcutree.use_softirq=0,n,no,off --duration 10ms --db s.db
	expect_err_line "rcusim sweep: --vary rcutree.use_softirq=0,n,no,off: 0 and n are one value of rcu.use_softirq: $fit (the same runs under two labels)"
	expect_exit 2 "$RCUSIM" sweep "$TS" --vary workload.callrcu_rate=1000/s,1/ms --duration 10ms --db s.db
	expect_err "1000/s and 1/ms are one value of workload.callrcu_rate: $fit"
	[ ! -e s.db ] && ok || bad "a refused sweep left s.db"
	# Values that differ still sweep.
	expect_exit 0 "$RCUSIM" sweep "$TS" --vary rcutree.use_softirq=0,1 --duration 10ms --jobs 1 --db s.db
	[ "$(q s.db "SELECT group_concat(value) FROM param WHERE name = 'rcu.use_softirq'")" = no,yes ] && ok ||
		bad "use_softirq: $(q s.db "SELECT group_concat(value) FROM param WHERE name = 'rcu.use_softirq'")"
}

# tables DB ID: run ID's scalar and series tables, every digit.
tables() {
	q "$1" "SELECT name, printf('%.17g', value) FROM scalar WHERE run_id = $2 ORDER BY name;
		SELECT s.name, s.cpu, p.t_ns, printf('%.17g', p.value) FROM series s JOIN point p USING (series_id)
		WHERE s.run_id = $2 ORDER BY s.name, s.cpu, p.t_ns"
}

show_reruns() {
	case=show_reruns
	for f in "$SRC"/scenarios/*.ini; do
		# The stall scenarios' fault begins at 10 min: sooner here.
		case $f in *-stall.ini) set -- --set fault.start=20ms ;; *) set -- ;; esac
		"$RCUSIM" run "$f" --duration 100ms "$@" --db a.db --quiet >/dev/null 2>run.err ||
			bad "$(basename "$f"): $(head -c 300 run.err)"
	done
	n=$(q a.db "SELECT count(*) FROM run WHERE status = 'complete'")
	[ "$n" = "$(ls "$SRC"/scenarios/*.ini | wc -l)" ] && ok || bad "$n runs complete"
	for id in $(q a.db "SELECT run_id FROM run"); do
		scen=$(q a.db "SELECT scenario FROM run WHERE run_id = $id")
		"$RCUSIM" show --db a.db $id >s$id.ini 2>show.err
		[ ! -s show.err ] && ok || bad "show $scen: $(cat show.err)"
		if ! "$RCUSIM" run s$id.ini --db b$id.db --quiet >/dev/null 2>run.err; then
			bad "run of show of $scen: $(head -c 300 run.err)"
			continue
		fi
		[ "$(tables a.db $id | md5sum)" = "$(tables b$id.db 1 | md5sum)" ] && ok ||
			bad "run of show of $scen: other results"
		[ "$(tables b$id.db 1 | wc -l)" -gt 20 ] && ok || bad "$scen: $(tables b$id.db 1 | wc -l) rows"
	done
}

show_text() {
	case=show_text
	"$RCUSIM" run "$TS" --duration 10ms --db st.db --quiet --label 'two
lines ; semi # hash' >/dev/null 2>&1
	expect_exit 0 "$RCUSIM" show --db st.db 1
	expect_out_line '; run 1 of st.db: scenario tree-small, policy tree, seed 1, label "two\nlines ; semi # hash", complete'
	cp "$T/out" st1.ini
	expect_exit 0 "$RCUSIM" run st1.ini --db st1.db --quiet
	[ "$(tables st.db 1)" = "$(tables st1.db 1)" ] && ok || bad "run of show of a labelled run: other results"
	# A name no scenario file can hold: a comment, said; the rest runs.
	"$RCUSIM" run "$TS" --duration 10ms --db st.db --quiet --set 'scenario.name=a ;b' >/dev/null 2>&1
	expect_exit 0 "$RCUSIM" show --db st.db 2
	expect_out_line '; name = a ;b ; cannot be written in a scenario file (a control character such as a line break or tab, a blank at an end, or a '"';'"' or '"'#'"' after a blank)'
	expect_err_line 'rcusim show: run 2: scenario.name: its value cannot be written in a scenario file; `rcusim run` of this output differs there'
	cp "$T/out" st2.ini
	expect_exit 0 "$RCUSIM" run st2.ini --db st2.db --quiet
	# An imported run: no scenario repeats it, and none is claimed.
	"$RCUSIM" import "$SRC/tests/data/tracefs-ticks-6.18-hz250.txt" --db si.db >/dev/null 2>&1
	expect_exit 0 "$RCUSIM" show --db si.db 1
	grep -q 'repeats the run' "$T/out" && bad "an imported run claims a rerun: $(cat "$T/out")" || ok
	expect_out_line '; A run imported from a trace (rcusim import): its recorded values, as comments; no scenario of rcusim repeats it.'
	expect_out_line '; trace.cpus = 2 ; the trace'
	grep -v '^;' "$T/out" | grep -q . && bad "an imported run's show sets values: $(cat "$T/out")" || ok
	# A killed run: lost, as runs says.
	"$RCUSIM" run "$SRC/scenarios/queue.ini" --duration 1500s --db sl.db --quiet >/dev/null 2>&1 &
	bg=$!
	i=0
	while [ "$(q sl.db "SELECT status FROM run WHERE run_id = 1" 2>/dev/null)" != running ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -KILL $bg
	wait $bg 2>/dev/null
	bg=
	expect_exit 0 "$RCUSIM" runs --db sl.db
	expect_out '^ +1  lost '
	expect_exit 0 "$RCUSIM" show --db sl.db 1
	expect_out_line '; run 1 of sl.db: scenario queue, policy watermark, seed 1, lost'
}

label_utf8() {
	case=label_utf8
	lab=$(printf 'x\377y')
	expect_exit 2 "$RCUSIM" run "$TS" --duration 10ms --db u.db --quiet --label "$lab"
	expect_err_line "rcusim run: --label: not UTF-8 text (byte 2 is 0xff): a run's label is text every output (JSON, CSV, Markdown, a scenario file) can hold"
	[ ! -e u.db ] && ok || bad "u.db created"
	expect_exit 2 "$RCUSIM" import "$SRC/tests/data/tracefs-ticks-6.18-hz250.txt" --db u.db --label "$lab"
	expect_err 'rcusim import: --label: not UTF-8 text'
	expect_exit 2 "$RCUSIM" sweep "$TS" --vary "workload.jobs=1,$lab" --duration 10ms --db u.db
	expect_err 'rcusim sweep: --vary: not UTF-8 text'
	[ ! -e u.db ] && ok || bad "u.db created"
	# One in a database already (an older rcusim's): JSON out is UTF-8.
	"$RCUSIM" run "$TS" --duration 10ms --db u.db --quiet >/dev/null 2>&1
	q u.db "UPDATE run SET label = CAST(X'78FF79' AS TEXT)"
	expect_exit 0 "$RCUSIM" export --db u.db 1 --format json
	iconv -f UTF-8 -t UTF-8 "$T/out" >/dev/null 2>&1 && ok || bad "export json is not UTF-8"
	expect_out '"label":"x\\ufffdy"'
	jq -e 'length > 10' "$T/out" >/dev/null && ok || bad "export json does not parse"
}

[ $# -gt 0 ] || set -- option_twice kernel_words compare_folds compare_quoting sweep_fit show_reruns show_text label_utf8
for c in "$@"; do
	"$c"
done

finish
