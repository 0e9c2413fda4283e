# sweep.gp - a metric against a swept parameter, one line per policy and
# value of the second swept parameter. The runs file sets param, metric
# (names), subtitle (scenario, kernel, CPUs, duration, seeds), ykind (time,
# bytes, percent or count: the y axis's units), categorical (the values
# are not numbers: one tick each, in the order given, drawn as points, not
# joined), logx, logy, nx (values), single (one line: no key), xticks (the
# values, where few), ymin/ymax for a flat line, defx (where the
# scenario's own value is: a dashed line), zoom (1: the y axis fits the
# values; 0: a linear one starts at 0),
# and for each line i a data
# file sweep_<metric>_<i>.dat (x, mean, min, max over seeds, the value as
# given) and label[i].
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title sprintf("%s against %s\n%s", metric, param, subtitle) noenhanced
set xlabel param noenhanced
# Human units; a linear axis gets a decimal (its ticks may be close).
yscale = 1
if (ykind eq 'percent') {
    yscale = 100
    set format y '%g%%'
} else {
if (ykind eq 'time') {
    yscale = 1e-9
    set format y (logy ? '%.0s %cs' : '%.1s %cs')
} else {
    if (ykind eq 'bytes') {
        set format y (logy ? '%.0s %cB' : '%.1s %cB')
    } else {
        set format y (logy ? '%.0s%c' : '%.1s%c')
    }
}
}
set ylabel sprintf('%s%s', metric, logy ? ' (log scale)' : '') noenhanced
if (logy) { set logscale y }
# A zero reads "0", not "0.0 s" (the SI prefix format at 0).
if (!logy && ykind ne 'percent') { set ytics add ('0' 0) }
if (logx) { set logscale x }
if (exists('ymin')) { set yrange [ymin * yscale:ymax * yscale] }
# Counts, times, bytes and shares from 0, so that a change looks its size.
if (!logy && !zoom) {
    if (exists('ymin')) { set yrange [(ymin < 0 ? ymin : 0) * yscale:ymax * yscale] } else { set yrange [0:*] }
}
if (single) { unset key }
if (exists('xticks')) { eval 'set xtics ' . xticks }
# Room at both ends, so that no tick label at an end is cut.
if (!categorical) { set offsets graph 0.04, graph 0.04, 0, 0 }
if (exists('defx')) { set arrow from defx, graph 0 to defx, graph 1 nohead dt 2 lw 1.5 lc rgb '#555555' front }
if (categorical) {
    # Values with no order between them: points with their range, not lines.
    set xrange [-0.5:nx - 0.5]
    set xtics () noenhanced
    set pointsize 1.5
    plot for [i=1:nruns] sprintf('%s/sweep_%s_%d.dat', datadir, metric, i) \
        using ($1 + (i - (nruns + 1) / 2.0) * 0.08):($2 * yscale):($3 * yscale):($4 * yscale):xtic(5) \
        with yerrorbars ls i pt 7 title label[i]
} else {
    plot for [i=1:nruns] sprintf('%s/sweep_%s_%d.dat', datadir, metric, i) \
        using 1:($2 * yscale):($3 * yscale):($4 * yscale) with yerrorlines ls i title label[i]
}
