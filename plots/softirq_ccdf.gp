# softirq_ccdf.gp - the length of one softirq run as a survival curve
# (CCDF: the share of runs longer than x), log-log, so that the long runs
# (the latency cost of big batches) show beside the common short ones.
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title sprintf("%s\n%s", 'Softirq runs: share of runs longer than x', subtitle) noenhanced
set xlabel 'length of one softirq run (log scale)'
set ylabel 'fraction of runs longer (log scale)'
set logscale xy
set format x '%.0s %cs'
set format y '%g'
set yrange [*:1.05]
plot for [i=1:nruns] f('softirq_ccdf', i) using ($1 / 1e9):2 with steps ls i title (has_softirq[i] ? label[i] : '')
