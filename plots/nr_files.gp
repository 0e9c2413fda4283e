# nr_files.gp - nr_files as each run's accounting read it, with its file-max.
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title 'nr\_files (as the configured accounting counts) and file-max'
set xlabel 'simulated time (s)' offset 0,0.7
set ylabel 'files'
set format y '%.1s%c'
set yrange [0:*]
set key below box opaque noenhanced
plot for [i=1:nruns] f('nr_files', i) using 1:2 with lines ls i title label[i], \
     for [i=1:nruns] maxfiles[i] with lines ls i dt 2 lw 1 title sprintf('file-max (%s)', label[i])
