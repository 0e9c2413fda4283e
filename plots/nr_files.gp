# nr_files.gp - nr_files as each run's accounting read it, with its
# file-max: a dashed line where the limit is near the data, else a note in
# the corner (a limit far above would flatten the curves).
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title 'nr\_files (as the configured accounting counts) and file-max'
set xlabel 'simulated time (s)'
set ylabel 'files'
set format y '%.1s%c'
set yrange [0:*]
dmax = 0
do for [i=1:nruns] {
    stats f('nr_files', i) using 2 nooutput
    if (STATS_max > dmax) { dmax = STATS_max }
}
far = 0
do for [i=1:nruns] { if (maxfiles[i] > 3 * dmax) { far = 1 } }
if (far) {
    note = 'file-max, far above the data:'
    do for [i=1:nruns] { note = note . sprintf("\n%s: %.0f", label[i], maxfiles[i]) }
    set label 1 note at graph 0.02, graph 0.95 left front noenhanced
    plot for [i=1:nruns] f('nr_files', i) using 1:2 with lines ls i title label[i]
} else {
    plot for [i=1:nruns] f('nr_files', i) using 1:2 with lines ls i title label[i], \
         for [i=1:nruns] maxfiles[i] with lines ls i dt 2 lw 1 title sprintf('file-max (%s)', label[i])
}
