# qlen.gp - queued RCU callbacks, all CPUs, over simulated time, per run.
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title sprintf("%s\n%s", 'Queued RCU callbacks, all CPUs', subtitle) noenhanced
set xlabel 'simulated time (s)'
set ylabel 'callbacks queued (log scale)'
set logscale y
set format y '10^{%L}'
nq = 0
do for [i=1:nruns] { nq = nq + has_qlen[i] }
if (nq == 0) {
    # Nothing above 0 at any sample (a run shorter than its sample interval):
    # said, not an error.
    unset logscale y
    set format y '%g'
    set yrange [0:1]
    set label 1 'no callback queued at any sample' at graph 0.5, graph 0.5 center
    plot [0:1] NaN notitle
} else {
    plot for [i=1:nruns] f('qlen', i) using 1:($2 > 0 ? $2 : NaN) with lines ls i title (has_qlen[i] ? label[i] : '')
}
