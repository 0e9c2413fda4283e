# pinned.gp - memory held by callbacks waiting for their grace period (each
# the size of its struct file), all CPUs, over simulated time, per run.
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title sprintf("%s\n%s", 'Memory pinned by RCU callbacks (struct files waiting for a grace period)', subtitle) noenhanced
set xlabel 'simulated time (s)'
set ylabel 'bytes'
set format y '%.1s%cB'
set ytics add ('0' 0) # a zero reads "0", not "0.0"
set yrange [0:*]
plot for [i=1:nruns] f('pinned', i) using 1:2 with lines ls i title (has_files[i] ? label[i] : '')
