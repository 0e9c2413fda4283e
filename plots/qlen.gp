# qlen.gp - queued RCU callbacks, all CPUs, over simulated time, per run.
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title 'Queued RCU callbacks, all CPUs'
set xlabel 'simulated time (s)'
set ylabel 'callbacks queued (log scale)'
set logscale y
set format y '10^{%L}'
plot for [i=1:nruns] f('qlen', i) using 1:($2 > 0 ? $2 : NaN) with lines ls i title label[i]
