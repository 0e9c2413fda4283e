# nr_files.gp - nr_files as each run's accounting read it, with its
# file-max: a dashed line where the limit is near the data, else a note in
# the corner (a limit far above would flatten the curves).
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title sprintf("%s\n%s", 'nr_files (as the configured accounting counts) and file-max', subtitle) noenhanced
set xlabel 'simulated time (s)'
set ylabel 'files'
set format y '%.1s%c'
set ytics add ('0' 0) # a zero reads "0", not "0.0"
set yrange [0:*]
dmax = 0
# Runs without a file table (has_files[i] 0) have no curve and no entry.
do for [i=1:nruns] {
    if (has_files[i]) {
        stats f('nr_files', i) using 2 nooutput
        if (STATS_max > dmax) { dmax = STATS_max }
    }
}
far = 0
do for [i=1:nruns] { if (has_files[i] && maxfiles[i] > 3 * dmax) { far = 1 } }
# One file-max for every run: one line and one legend entry, not a line per run.
same = 1
first = -1
do for [i=1:nruns] {
    if (has_files[i]) {
        if (first < 0) { first = maxfiles[i] } else { if (maxfiles[i] != first) { same = 0 } }
    }
}
if (far) {
    if (same) {
        note = sprintf('file-max, far above the data: %.0f', first)
    } else {
        note = 'file-max, far above the data:'
        do for [i=1:nruns] { if (has_files[i]) { note = note . sprintf("\n%s: %.0f", label[i], maxfiles[i]) } }
    }
    set label 1 note at graph 0.02, graph 0.95 left front noenhanced
    plot for [i=1:nruns] f('nr_files', i) using 1:2 with lines ls i title (has_files[i] ? label[i] : '')
} else {
    if (same) {
        plot for [i=1:nruns] f('nr_files', i) using 1:2 with lines ls i title (has_files[i] ? label[i] : ''), \
             first with lines lc rgb '#555555' dt 2 lw 1 title sprintf('file-max (%.0f)', first)
    } else {
        plot for [i=1:nruns] f('nr_files', i) using 1:2 with lines ls i title (has_files[i] ? label[i] : ''), \
             for [i=1:nruns] (has_files[i] ? maxfiles[i] : NaN) with lines ls i dt 2 lw 1 \
                 title (has_files[i] ? sprintf('file-max (%s)', label[i]) : '')
    }
}
