# softirq_cdf.gp - CDF of the length of one softirq run, per run.
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title 'Length of one softirq run (the latency cost of big batches)'
set xlabel 'softirq run length (us, log scale)'
set ylabel 'fraction of runs at or below'
set logscale x
set yrange [0:1]
set key left top inside noenhanced
plot for [i=1:nruns] f('softirq_cdf', i) using ($1 / 1e3):2 with steps ls i title label[i]
