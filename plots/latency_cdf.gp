# latency_cdf.gp - CDF of call_rcu-to-invocation latency, per run.
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title 'RCU callback latency (call\_rcu to invocation)'
set xlabel 'latency (ms, log scale)'
set ylabel 'fraction of callbacks at or below'
set logscale x
set yrange [0:1]
set key left top inside noenhanced
plot for [i=1:nruns] f('latency_cdf', i) using ($1 / 1e6):2 with steps ls i title label[i]
