# vs.gp - a trade-off: one metric against another, a point per run,
# labelled with what differs between the runs (rcusim plot --vs). The runs
# file sets xmetric, ymetric (names), xkind, ykind (time, bytes, percent or
# count), subtitle, zoom (1: axes fit the points; 0: linear axes from 0)
# and file, the data: x, y, the run's label in double quotes.
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title sprintf("%s against %s, a point per run\n%s", ymetric, xmetric, subtitle) noenhanced
set xlabel xmetric noenhanced
set ylabel ymetric noenhanced
unset key
xscale = 1
yscale = 1
if (xkind eq 'time') { xscale = 1e-9; set format x '%.1s %cs' }
if (xkind eq 'bytes') { set format x '%.1s %cB' }
if (xkind eq 'percent') { xscale = 100; set format x '%g%%' }
if (ykind eq 'time') { yscale = 1e-9; set format y '%.1s %cs' }
if (ykind eq 'bytes') { set format y '%.1s %cB' }
if (ykind eq 'percent') { yscale = 100; set format y '%g%%' }
if (!zoom) { set xrange [0:*]; set yrange [0:*] }
# A zero reads "0", not "0.0 s" (the SI prefix format at 0).
if (xkind ne 'percent') { set xtics add ('0' 0) }
if (ykind ne 'percent') { set ytics add ('0' 0) }
set offsets graph 0.05, graph 0.15, graph 0.08, graph 0.02
set pointsize 1.5
# Labels above and below in turn, so that two close points stay readable.
plot file using ($1 * xscale):($2 * yscale) with points ls 1 pt 7, \
     file every 2 using ($1 * xscale):($2 * yscale):3 with labels offset char 1, char 0.9 left noenhanced, \
     file every 2::1 using ($1 * xscale):($2 * yscale):3 with labels offset char 1, char -0.9 left noenhanced
