# sweep.gp - a metric against a swept parameter, one line per policy. The
# runs file sets param, metric (names), unit (its axis label), and for each
# policy i a data file sweep_<i>.dat (parameter value, mean, min, max over
# seeds) and label[i].
call 'common.gp' ARG1 ARG2 ARG3 ARG4
set title sprintf('%s against %s', metric, param) noenhanced
set xlabel param noenhanced
set ylabel unit
set logscale x
set logscale y
set key top left inside
plot for [i=1:nruns] sprintf('%s/sweep_%s_%d.dat', datadir, metric, i) using 1:2:3:4 with yerrorlines ls i title label[i]
