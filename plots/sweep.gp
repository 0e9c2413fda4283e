# sweep.gp - a metric against a swept parameter, one line per policy and
# value of the second swept parameter. The runs file sets param, metric
# (names), ykind (time, bytes or count: the y axis's units), categorical
# (the values are not numbers: one tick each, in the order given), logx,
# logy, nx (values), single (one line: no key), xticks (the values, where
# few), ymin/ymax for a flat line,
# and for each line i a data
# file sweep_<metric>_<i>.dat (x, mean, min, max over seeds, the value as
# given) and label[i].
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title sprintf('%s against %s', metric, param) noenhanced
set xlabel param noenhanced
# Human units; a linear axis gets a decimal (its ticks may be close).
yscale = 1
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
set ylabel sprintf('%s%s', metric, logy ? ' (log scale)' : '') noenhanced
if (logy) { set logscale y }
if (logx) { set logscale x }
if (exists('ymin')) { set yrange [ymin * yscale:ymax * yscale] }
if (single) { unset key }
if (exists('xticks')) { eval 'set xtics ' . xticks }
if (categorical) {
    set xrange [-0.5:nx - 0.5]
    set xtics () noenhanced
    plot for [i=1:nruns] sprintf('%s/sweep_%s_%d.dat', datadir, metric, i) \
        using 1:($2 * yscale):($3 * yscale):($4 * yscale):xtic(5) with yerrorlines ls i title label[i]
} else {
    plot for [i=1:nruns] sprintf('%s/sweep_%s_%d.dat', datadir, metric, i) \
        using 1:($2 * yscale):($3 * yscale):($4 * yscale) with yerrorlines ls i title label[i]
}
