# slab_pages.gp - pages of the filp slab (one page per slab), over simulated
# time, per run: what the file table holds in memory, live, pending or free.
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title sprintf("%s\n%s", 'filp slab pages (one machine page each)', subtitle) noenhanced
set xlabel 'simulated time (s)'
set ylabel 'pages'
set format y '%.1s%c'
set ytics add ('0' 0) # a zero reads "0", not "0.0"
set yrange [0:*]
plot for [i=1:nruns] f('slab_pages', i) using 1:2 with lines ls i title (has_files[i] ? label[i] : '')
