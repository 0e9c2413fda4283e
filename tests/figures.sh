#!/bin/sh
# figures.sh RCUSIM SRCDIR - figures with context (issue 51, item 4): what
# rcusim hands gnuplot, exactly: a sweep's figure names its scenario, CPUs,
# duration and seeds and the scenario's own value of the parameter (a
# dashed line at it), draws values that are not numbers as points
# (categorical), a fraction in percent, a linear y axis from 0 unless
# --zoom; plot's standard figures carry the same subtitle and give a run
# with nothing to draw on a log axis no legend entry (and a run without a
# file table no nr_files curve: that figure failed before); plot --vs draws
# a trade-off, a point per run labelled by what differs (runs at the same
# point share one). Each figure is drawn (a PNG is written).
. "$(dirname "$0")/lib.sh"
S=$SRC/scenarios
command -v gnuplot >/dev/null || { echo "gnuplot is missing (scripts/setup-debian.sh installs gnuplot-nox)"; exit 1; }
# want_lines FILE LINE...: FILE holds each LINE exactly.
want_lines() {
	wl_f=$1
	shift
	for wl_l in "$@"; do
		grep -qxF -- "$wl_l" "$wl_f" && ok || bad "$wl_f lacks: $wl_l; got: $(cat "$wl_f")"
	done
}
png() { [ -s "$1" ] && [ "$(head -c 4 "$1" | tail -c 3)" = PNG ] && ok || bad "no figure $1"; }

case=sweep
expect_exit 0 "$RCUSIM" sweep "$S/make-small.ini" --duration 100ms --vary softirq.stop_on_need_resched=no,yes \
	--seeds 1..2 --plot --metric slab.fragmentation_max --metric cb.latency_p99_ns --out figs --db fig.db --jobs 1
png figs/sweep_slab.fragmentation_max.png
png figs/sweep_cb.latency_p99_ns.png
want_lines figs/data/sweep_slab.fragmentation_max.gp \
	"subtitle = 'make-small, 4 CPUs, 100 ms simulated, seeds 1..2; the scenario''s softirq.stop_on_need_resched = no (dashed)'" \
	'defx = 0' 'zoom = 0' "ykind = 'percent'" 'categorical = 1'
want_lines figs/data/sweep_cb.latency_p99_ns.gp "ykind = 'time'" 'categorical = 1' 'defx = 0'
# --zoom, and a numeric parameter whose scenario value is not swept: no line.
expect_exit 0 "$RCUSIM" sweep "$S/make-small.ini" --duration 100ms --set rcu.policy=tunable --vary rcu.blimit=100,1000 \
	--plot --zoom --metric cb.enqueued --out figz --db figz.db --jobs 1
png figz/sweep_cb.enqueued.png
want_lines figz/data/sweep_cb.enqueued.gp 'zoom = 1' 'categorical = 0' "ykind = 'count'" \
	"subtitle = 'make-small, 4 CPUs, 100 ms simulated, seed 1; the scenario''s rcu.blimit = 10'"
grep -q '^defx' figz/data/sweep_cb.enqueued.gp && bad "defx for a value not swept" || ok

case=plot
expect_exit 0 "$RCUSIM" run "$S/openclose-small.ini" --duration 100ms --db fig.db --quiet
# Run 5 has a file table and no callback invoked yet; run 1 (make-small) both.
expect_exit 0 "$RCUSIM" plot --db fig.db --out figp 5 1
for f in qlen latency_ccdf softirq_ccdf nr_files pinned slab_pages; do png "figp/$f.png"; done
want_lines figp/data/runs.gp "subtitle = 'several scenarios, 100 ms simulated, seed 1'" \
	'has_latency[1] = 0' 'has_latency[2] = 1' 'has_files[1] = 1' 'has_qlen[1] = 1'
# A run without a file table beside one with: no nr_files curve for it.
expect_exit 0 "$RCUSIM" run "$S/tree-small.ini" --duration 50ms --db fig.db --quiet
expect_exit 0 "$RCUSIM" plot --db fig.db --out figf 6 5
png figf/nr_files.png
want_lines figf/data/runs.gp 'has_files[1] = 0' 'has_files[2] = 1'
# One scenario: its kernel preset and CPUs; a run shorter than its sample
# interval has no queue to draw on a log axis: said, not a failed figure.
expect_exit 0 "$RCUSIM" plot --db fig.db --out fig6 6
png fig6/qlen.png
want_lines fig6/data/runs.gp "subtitle = 'tree-small, kernel linux-6.12, 16 CPUs, 50 ms simulated, seed 1'" 'has_qlen[1] = 0'

case=vs
expect_exit 0 "$RCUSIM" plot --db fig.db --vs cb.latency_p99_ns --metric cb.enqueued --out figv 1-4
png figv/vs_cb.enqueued_cb.latency_p99_ns.png
printf '%s\n' '43253759.5 1159 "scenario.seed=1 softirq.stop_on_need_resched=no, scenario.seed=1 softirq.stop_on_need_resched=yes"' \
	'39583743.5 1124 "scenario.seed=2 softirq.stop_on_need_resched=no, scenario.seed=2 softirq.stop_on_need_resched=yes"' >want
cmp -s want figv/data/vs_cb.enqueued_cb.latency_p99_ns.dat && ok ||
	bad "vs data: $(cat figv/data/vs_cb.enqueued_cb.latency_p99_ns.dat)"
want_lines figv/data/vs_cb.enqueued_cb.latency_p99_ns.gp "xkind = 'time'" "ykind = 'count'" 'zoom = 0' \
	"subtitle = 'make-small, 4 CPUs, 100 ms simulated, seeds 1..2'"
# One parameter varied: its values label the points, its name the subtitle.
expect_exit 0 "$RCUSIM" plot --db figz.db --vs cb.latency_p99_ns --metric cb.enqueued --zoom --out figw 1-2
printf '%s\n' '43253759.5 1159 "100, 1000"' >want
cmp -s want figw/data/vs_cb.enqueued_cb.latency_p99_ns.dat && ok ||
	bad "vs data, one parameter: $(cat figw/data/vs_cb.enqueued_cb.latency_p99_ns.dat)"
want_lines figw/data/vs_cb.enqueued_cb.latency_p99_ns.gp 'zoom = 1' \
	"subtitle = 'make-small, 4 CPUs, 100 ms simulated, seed 1; each point labelled by its rcu.blimit'"
# Without RUNS: every complete run of the database (here the sweep's two),
# said; not the latest run of each policy (one point).
expect_exit 0 "$RCUSIM" plot --db figz.db --vs cb.latency_p99_ns --metric cb.enqueued --zoom --out figx
expect_err_line "rcusim plot: --vs: every complete run of figz.db (choose with ids, A-B, --label, --scenario or --last N)"
cmp -s want figx/data/vs_cb.enqueued_cb.latency_p99_ns.dat && ok ||
	bad "vs without runs: $(cat figx/data/vs_cb.enqueued_cb.latency_p99_ns.dat)"
expect_exit 2 "$RCUSIM" plot --db fig.db --vs cb.nope --metric cb.enqueued
expect_err_line "rcusim plot: --vs cb.nope: no recorded scalar has that name (rcusim metrics lists them)"
expect_exit 2 "$RCUSIM" plot --db fig.db --vs cb.enqueued
expect_err_line "rcusim plot: --vs: which --metric against it?"
expect_exit 2 "$RCUSIM" plot --db fig.db --vs cb.enqueued --metric cb.qlen
expect_err_line "rcusim plot: --vs: --metric cb.qlen is not a scalar (one value per run)"
expect_exit 2 "$RCUSIM" plot --db fig.db --zoom
expect_err_line "rcusim plot: --zoom: with --vs only"
finish
