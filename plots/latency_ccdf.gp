# latency_ccdf.gp - call_rcu-to-invocation latency as a survival curve
# (CCDF: the share of callbacks that waited longer than x), log-log, so
# that the millisecond tail is as visible as the median.
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title sprintf("%s\n%s", 'RCU callback latency: share of callbacks that waited longer', subtitle) noenhanced
set xlabel 'latency, call\_rcu() to invocation (log scale)'
set ylabel 'fraction of callbacks longer (log scale)'
set logscale xy
set format x '%.0s %cs'
set format y '%g'
set yrange [*:1.05]
plot for [i=1:nruns] f('latency_ccdf', i) using ($1 / 1e9):2 with steps ls i title (has_latency[i] ? label[i] : '')
