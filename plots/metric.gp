# metric.gp - any series (over simulated time) or histogram (its survival
# curve, log-log) of several runs, one line each (a series per CPU with
# rcusim plot --cpus). The runs file sets nruns, label[i] and file[i] (the
# data: "seconds value" or "value share-above" lines), metric, unit, kind
# (series or ccdf) and ykind (time, bytes or count: the axis's units).
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set key noenhanced
if (kind eq 'ccdf') {
    set title sprintf("%s: share of samples above x\n%s", metric, subtitle) noenhanced
    set ylabel 'fraction of samples above (log scale)'
    set xlabel sprintf('%s (log scale)', metric) noenhanced
    set logscale xy
    set format y '%g'
    set yrange [*:1.05]
    xscale = 1
    if (ykind eq 'time') {
        xscale = 1e-9
        set format x '%.0s %cs'
    } else {
        if (ykind eq 'bytes') { set format x '%.0s %cB' } else { set format x '%.0s%c' }
    }
    plot for [i=1:nruns] file[i] using ($1 * xscale):2 with steps ls i title label[i]
} else {
    set title sprintf("%s\n%s", metric, subtitle) noenhanced
    set xlabel 'simulated time (s)'
    set ylabel sprintf('%s (%s)', metric, unit) noenhanced
    yscale = 1
    if (ykind eq 'time') {
        yscale = 1e-9
        set format y '%.1s %cs'
    } else {
        if (ykind eq 'bytes') { set format y '%.1s %cB' } else { set format y '%.1s%c' }
    }
    set ytics add ('0' 0) # a zero reads "0", not "0.0 s"
    plot for [i=1:nruns] file[i] using 1:($2 * yscale) with steps ls i title label[i]
}
