# common.gp - called by every figure (call, so that it sees the arguments): the terminal and output from the
# arguments `rcusim plot` passes (ARG1 runs file, ARG2 data folder, ARG3
# output file, ARG4 png or svg), then the runs file it wrote (nruns, id[],
# label[], maxfiles[], subtitle: what ran, for the second line of a title).
datadir = ARG2
if (ARG4 eq 'svg') {
    set terminal svg size 960,600 dynamic enhanced font 'sans,12'
} else {
    set terminal pngcairo size 1200,750 enhanced font 'sans,12'
}
set output ARG3
load ARG1
set grid lw 0.5 lc rgb '#cccccc'
set key tmargin center horizontal box opaque noenhanced
set border lw 1
set style line 1 lw 2 lc rgb '#1f77b4'
set style line 2 lw 2 lc rgb '#d62728'
set style line 3 lw 2 lc rgb '#2ca02c'
set style line 4 lw 2 lc rgb '#9467bd'
set style line 5 lw 2 lc rgb '#ff7f0e'
set style line 6 lw 2 lc rgb '#8c564b'
set style increment user
f(name, i) = sprintf('%s/run%d_%s.dat', datadir, id[i], name)
