/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * plot.c - `rcusim plot`: export the runs' series and distributions
 * from the database into data files and draw the standard figures with the
 * gnuplot scripts in plots/ (run as `gnuplot -c SCRIPT ARGS`: no shell, user
 * text only inside quoted gnuplot strings, quotes doubled).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "cpulist.h"
#include "registry.h"

#define PLOT_MAX_METRICS 16
#define PLOT_MAX_CPUS 4096 /* a CPU list's range, for --cpus */

/* The CDF rec_export_cdf() writes ("hi F" lines) as a survival curve:
 * "x 1-F", the share above each bin's upper edge, where it is not 0 (a log
 * axis has no 0), after "lo 1" at the first bin's lower edge. Returns the
 * samples (0: none), or -1 with the reason in @err. */
static int64_t export_ccdf(rec_db *db, int64_t id, const char *name, FILE *f, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int64_t n = rec_export_cdf(db, id, name, m, err, errlen);
	fclose(m);
	double lo, x, cdf;
	bool has = false;
	if (n > 0 && rec_hist_lo(db, id, name, &lo, &has, err, errlen)) {
		free(buf);
		return -1;
	}
	if (has && lo > 0)
		fprintf(f, "%.17g 1\n", lo); /* a log axis has no 0 */
	for (char *l = buf; n > 0 && l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (sscanf(l, "%lf %lf", &x, &cdf) == 2 && 1 - cdf > 1e-12)
			fprintf(f, "%.17g %.17g\n", x, 1 - cdf);
	free(buf);
	return n;
}

/* Export one series or survival curve of one run to DATA/run<id>_<what>.dat.
 * Returns the number of points (0: nothing there), or -1. */
static int64_t export(rec_db *db, const char *data, int64_t id, const char *what,
		      const char *name, bool ccdf)
{
	char path[PATH_MAX + 160], err[1024];
	snprintf(path, sizeof(path), "%s/run%lld_%s.dat", data, (long long)id, what);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	int64_t n = ccdf ? export_ccdf(db, id, name, f, err, sizeof(err))
			 : rec_export_series(db, id, name, -1, f, err, sizeof(err));
	if (fclose(f) || n < 0) {
		fprintf(stderr, "%s: %s\n", path, n < 0 ? err : strerror(errno));
		return -1;
	}
	return n;
}

/* Write the standard figures of @rows into @outdir (png or svg). */
static int plot_runs(rec_db *db, const rec_run_row *rows, size_t n, const char *outdir,
		     const char *format)
{
	char out[PATH_MAX], data[PATH_MAX + 16], runs[PATH_MAX + 32], file[PATH_MAX + 96], err[1024];
	if (cli_plot_dirs(outdir, out, data))
		return EXIT_IO;
	snprintf(runs, sizeof(runs), "%s/runs.gp", data);
	FILE *f = fopen(runs, "w");
	if (!f) {
		fprintf(stderr, "%s: %s\n", runs, strerror(errno));
		return EXIT_IO;
	}
	char context[1024];
	int crc = cli_run_context(db, rows, n, context, sizeof(context));
	if (crc) {
		fclose(f);
		return crc;
	}
	fprintf(f, "nruns = %zu\narray id[%zu]\narray label[%zu]\narray maxfiles[%zu]\nsubtitle = ", n, n, n, n);
	cli_gp_string(f, context);
	fputc('\n', f);
	/* Which runs have something to draw on a log axis: a run with none
	 * (no callback, or an empty queue throughout) gets no legend entry. */
	fprintf(f, "array has_qlen[%zu]\narray has_latency[%zu]\narray has_softirq[%zu]\narray has_files[%zu]\n", n, n,
		n, n);
	bool files = false;
	int status = 0;
	for (size_t i = 0; i < n; i++) {
		const rec_run_row *r = &rows[i];
		char lab[2 * REC_LABEL_MAX + 96];
		/* "policy: label (run N)", the label (or scenario) left out
		 * where it only repeats the policy. */
		const char *what = r->label[0] ? r->label : r->scenario;
		if (!strcmp(what, r->policy))
			snprintf(lab, sizeof(lab), "%s (run %lld)", r->policy, (long long)r->run_id);
		else
			snprintf(lab, sizeof(lab), "%s: %s (run %lld)", r->policy, what, (long long)r->run_id);
		fprintf(f, "id[%zu] = %lld\nlabel[%zu] = ", i + 1, (long long)r->run_id, i + 1);
		cli_gp_string(f, lab);
		double mf = 0;
		bool has;
		if (rec_scalar(db, r->run_id, "vfs.max_files", &mf, &has, err, sizeof(err)) || !has)
			mf = 0;
		fprintf(f, "\nmaxfiles[%zu] = %.17g\n", i + 1, mf);
		int64_t nq = export(db, data, r->run_id, "qlen", "cb.qlen", false);
		/* A log axis shows only values above 0: were there any? */
		bool qpos = false;
		char qpath[PATH_MAX + 160], line[128];
		snprintf(qpath, sizeof(qpath), "%s/run%lld_qlen.dat", data, (long long)r->run_id);
		FILE *qf = nq > 0 ? fopen(qpath, "r") : NULL;
		double t, v;
		while (qf && !qpos && fgets(line, sizeof(line), qf))
			qpos = sscanf(line, "%lf %lf", &t, &v) == 2 && v > 0;
		if (qf)
			fclose(qf);
		int64_t nl = nq < 0 ? -1 : export(db, data, r->run_id, "latency_ccdf", "cb.latency_ns", true);
		int64_t ns = nl < 0 ? -1 : export(db, data, r->run_id, "softirq_ccdf", "softirq.run_ns", true);
		if (ns < 0) {
			status = EXIT_IO;
			break;
		}
		fprintf(f, "has_qlen[%zu] = %d\nhas_latency[%zu] = %d\nhas_softirq[%zu] = %d\n", i + 1,
			qpos, i + 1, nl > 0, i + 1, ns > 0);
		int64_t nf = export(db, data, r->run_id, "nr_files", "vfs.nr_files", false);
		if (nf < 0 || export(db, data, r->run_id, "pinned", "mem.pending_bytes", false) < 0 ||
		    export(db, data, r->run_id, "slab_pages", "slab.pages", false) < 0) {
			status = EXIT_IO;
			break;
		}
		files |= nf > 0;
		fprintf(f, "has_files[%zu] = %d\n", i + 1, nf > 0);
	}
	if (fclose(f) && !status) {
		fprintf(stderr, "%s: %s\n", runs, strerror(errno));
		status = EXIT_IO;
	}
	if (status)
		return status;
	static const char *const figs[] = { "qlen", "latency_ccdf", "softirq_ccdf", "nr_files", "pinned",
					    "slab_pages" };
	/* The first three are every run's; the others need the file table. */
	for (size_t k = 0; k < sizeof(figs) / sizeof(figs[0]); k++) {
		if (k >= 3 && !files)
			continue;
		char script[64];
		snprintf(script, sizeof(script), "%s.gp", figs[k]);
		snprintf(file, sizeof(file), "%s/%s.%s", out, figs[k], format);
		const char *args[] = { runs, data, file, format };
		if ((status = cli_gnuplot(script, args, 4))) {
			unlink(file); /* a failed figure leaves no file */
			return status;
		}
		printf("%s\n", file);
	}
	return 0;
}

/* The CPUs series @name of run @id was recorded for, per CPU (not -1),
 * into @cpus (room for @max): how many, or -1 (message printed). */
static int recorded_cpus(rec_db *db, int64_t id, const char *name, int *cpus, int max)
{
	char err[1024];
	int n = 0;
	if (rec_series_cpus(db, id, name, cpus, max, &n, err, sizeof(err))) {
		fprintf(stderr, "rcusim plot: %s\n", err);
		return -1;
	}
	return n;
}

/* Draw metric @d (a series: over time, machine-wide or, with @want, one
 * line per CPU of @want that has one; a histogram: its survival curve) of
 * @rows into @outdir by plots/metric.gp. 0, EXIT_USAGE (nothing of it
 * recorded) or EXIT_IO. */
static int plot_metric(rec_db *db, const rec_run_row *rows, size_t n, const sim_metric_def *d, const bool *want,
		       const char *outdir, const char *format)
{
	char out[PATH_MAX], data[PATH_MAX + 16], runs[PATH_MAX + 160], file[PATH_MAX + 160], path[PATH_MAX + 300];
	char err[1024];
	static int cpus[PLOT_MAX_CPUS];
	if (cli_plot_dirs(outdir, out, data))
		return EXIT_IO;
	snprintf(runs, sizeof(runs), "%s/metric_%s.gp", data, d->name);
	FILE *rf = fopen(runs, "w");
	if (!rf) {
		fprintf(stderr, "%s: %s\n", runs, strerror(errno));
		return EXIT_IO;
	}
	bool hist = d->kind == SIM_M_HIST;
	size_t nl = 0;
	int status = 0;
	/* Lines first into a buffer: nruns comes first in the file. */
	char *lines = NULL;
	size_t llen = 0;
	FILE *lf = open_memstream(&lines, &llen);
	if (!lf) {
		fclose(rf);
		fprintf(stderr, "rcusim plot: out of memory\n");
		return EXIT_IO;
	}
	for (size_t i = 0; i < n && !status; i++) {
		const rec_run_row *r = &rows[i];
		int nc = 1;
		if (want && !hist) {
			if ((nc = recorded_cpus(db, r->run_id, d->name, cpus, PLOT_MAX_CPUS)) < 0) {
				status = EXIT_IO;
				break;
			}
			int k = 0;
			for (int c = 0; c < nc; c++)
				if (cpus[c] < PLOT_MAX_CPUS && want[cpus[c]])
					cpus[k++] = cpus[c];
			nc = k;
		} else {
			cpus[0] = -1;
		}
		for (int c = 0; c < nc; c++) {
			snprintf(path, sizeof(path), "%s/metric_%s_run%lld_%d.dat", data, d->name, (long long)r->run_id,
				 cpus[c]);
			FILE *f = fopen(path, "w");
			if (!f) {
				fprintf(stderr, "%s: %s\n", path, strerror(errno));
				status = EXIT_IO;
				break;
			}
			int64_t pts = hist ? export_ccdf(db, r->run_id, d->name, f, err, sizeof(err))
					   : rec_export_series(db, r->run_id, d->name, cpus[c], f, err, sizeof(err));
			if (fclose(f) || pts < 0) {
				fprintf(stderr, "%s: %s\n", path, pts < 0 ? err : strerror(errno));
				status = EXIT_IO;
				break;
			}
			if (!pts)
				continue;
			char lab[2 * REC_LABEL_MAX + 128];
			const char *what = r->label[0] ? r->label : r->scenario;
			if (cpus[c] >= 0)
				snprintf(lab, sizeof(lab), "%s (run %lld), CPU %d", what, (long long)r->run_id, cpus[c]);
			else
				snprintf(lab, sizeof(lab), "%s (run %lld)", what, (long long)r->run_id);
			nl++;
			fprintf(lf, "label[%zu] = ", nl);
			cli_gp_string(lf, lab);
			fprintf(lf, "\nfile[%zu] = ", nl);
			cli_gp_string(lf, path);
			fputc('\n', lf);
		}
	}
	fclose(lf);
	if (!status && !nl) {
		fprintf(stderr, "rcusim plot: --metric %s: none of the runs recorded it%s\n", d->name,
			want && !hist ? " for those CPUs (rcusim metrics says which series are per CPU)" : "");
		status = EXIT_USAGE;
	}
	if (!status) {
		const char *unit = d->unit;
		fprintf(rf, "nruns = %zu\narray label[%zu]\narray file[%zu]\narray id[%zu]\narray maxfiles[%zu]\n", nl,
			nl, nl, nl, nl);
		fputs(lines ? lines : "", rf);
		char context[1024];
		if (!cli_run_context(db, rows, n, context, sizeof(context))) {
			fputs("subtitle = ", rf);
			cli_gp_string(rf, context);
			fputc('\n', rf);
		} else {
			fputs("subtitle = ''\n", rf);
		}
		fputs("metric = ", rf);
		cli_gp_string(rf, d->name);
		fputs("\nunit = ", rf);
		cli_gp_string(rf, unit);
		fprintf(rf, "\nkind = '%s'\nykind = '%s'\n", hist ? "ccdf" : "series",
			!strcmp(unit, "ns") ? "time" : !strcmp(unit, "bytes") ? "bytes" : "count");
		for (size_t k = 1; k <= nl; k++)
			fprintf(rf, "id[%zu] = 0\nmaxfiles[%zu] = 0\n", k, k);
	}
	free(lines);
	if (fclose(rf) && !status) {
		fprintf(stderr, "%s: %s\n", runs, strerror(errno));
		status = EXIT_IO;
	}
	if (status)
		return status;
	snprintf(file, sizeof(file), "%s/metric_%s.%s", out, d->name, format);
	const char *args[] = { runs, data, file, format };
	if ((status = cli_gnuplot("metric.gp", args, 4))) {
		unlink(file); /* a failed figure leaves no file */
		return status;
	}
	printf("%s\n", file);
	return 0;
}

/* The y or x axis's kind of metric @d: time, bytes, percent or count. */
static const char *axis_kind(const sim_metric_def *d)
{
	return !strcmp(d->unit, "ns") ? "time" : !strcmp(d->unit, "bytes") ? "bytes"
		 : !strcmp(d->unit, "fraction") ? "percent" : "count";
}

/* Each run's label for a trade-off: the parameters whose values differ
 * among @rows ("rcu.blimit=10 rcu.lazy=yes"; where one alone does, its
 * value, and its name into @key), "run N" where nothing does; into
 * @labels[@n] (malloc'd each). 0 or an exit status. */
static int varied_labels(rec_db *db, const rec_run_row *rows, size_t n, char **labels, char *key, size_t keylen)
{
	char err[1024];
	rec_param_row **ps = calloc(n + 1, sizeof(*ps));
	size_t *nps = calloc(n + 1, sizeof(*nps));
	int status = 0;
	if (!ps || !nps) {
		status = EXIT_IO;
		goto out;
	}
	for (size_t r = 0; r < n; r++) {
		int rc = rec_run_params(db, rows[r].run_id, &ps[r], &nps[r], err, sizeof(err));
		if (rc) {
			fprintf(stderr, "rcusim plot: %s\n", err);
			status = cli_exit_status(rc);
			goto out;
		}
	}
	for (size_t r = 0; r < n; r++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (!f) {
			status = EXIT_IO;
			goto out;
		}
		bool any = false;
		/* One parameter varied: its values alone (plot_vs names it). */
		size_t nvaried = 0;
		const char *only = NULL;
		for (size_t i = 0; i < nps[0]; i++) {
			bool differs = false;
			for (size_t q = 1; q < n && !differs; q++) {
				const char *w = NULL;
				for (size_t k = 0; k < nps[q] && !w; k++)
					if (!strcmp(ps[q][k].name, ps[0][i].name))
						w = ps[q][k].value;
				differs = !w || strcmp(w, ps[0][i].value);
			}
			if (differs) {
				nvaried++;
				only = ps[0][i].name;
			}
		}
		if (nvaried == 1 && key)
			snprintf(key, keylen, "%s", only);
		for (size_t i = 0; i < nps[r]; i++) {
			const char *name = ps[r][i].name, *v = ps[r][i].value;
			bool differs = false;
			for (size_t q = 0; q < n && !differs; q++) {
				const char *w = NULL;
				for (size_t k = 0; k < nps[q] && !w; k++)
					if (!strcmp(ps[q][k].name, name))
						w = ps[q][k].value;
				differs = !w || strcmp(w, v);
			}
			if (!differs)
				continue;
			if (nvaried == 1 && !strcmp(name, only))
				fprintf(f, "%s%s", any ? " " : "", v);
			else
				fprintf(f, "%s%s=%s", any ? " " : "", name, v);
			any = true;
		}
		if (!any)
			fprintf(f, "run %lld", (long long)rows[r].run_id);
		if (fclose(f) || !buf) {
			free(buf);
			status = EXIT_IO;
			goto out;
		}
		labels[r] = buf;
	}
out:
	for (size_t r = 0; ps && r < n; r++)
		rec_param_rows_free(ps[r], nps[r]);
	free(ps);
	free(nps);
	if (status == EXIT_IO)
		fprintf(stderr, "rcusim plot: out of memory\n");
	return status;
}

/* The trade-off figure of scalar @y against scalar @x: a point per run of
 * @rows holding both, labelled by varied_labels(), into
 * @outdir/vs_Y_X.FORMAT by plots/vs.gp. 0, EXIT_USAGE (no run holds both)
 * or EXIT_IO. */
static int plot_vs(rec_db *db, const rec_run_row *rows, size_t n, const sim_metric_def *y, const sim_metric_def *x,
		   bool zoom, const char *outdir, const char *format)
{
	char out[PATH_MAX], data[PATH_MAX + 16], runs[PATH_MAX + 300], file[PATH_MAX + 300], path[PATH_MAX + 300];
	char err[1024], context[1024];
	char **labels = calloc(n + 1, sizeof(*labels));
	int status;
	size_t points = 0;
	if (!labels)
		return EXIT_IO;
	char key[256] = "";
	if ((status = varied_labels(db, rows, n, labels, key, sizeof(key))) ||
	    (status = cli_run_context(db, rows, n, context, sizeof(context))))
		goto out;
	if (key[0]) {
		size_t cl = strlen(context);
		snprintf(context + cl, sizeof(context) - cl, "; each point labelled by its %s", key);
	}
	if (cli_plot_dirs(outdir, out, data)) {
		status = EXIT_IO;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/vs_%s_%s.dat", data, y->name, x->name);
	snprintf(runs, sizeof(runs), "%s/vs_%s_%s.gp", data, y->name, x->name);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		status = EXIT_IO;
		goto out;
	}
	double *xs = calloc(n + 1, sizeof(*xs)), *ys = calloc(n + 1, sizeof(*ys));
	bool *has = calloc(n + 1, sizeof(*has));
	if (!xs || !ys || !has) {
		free(xs);
		free(ys);
		free(has);
		fclose(f);
		status = EXIT_IO;
		goto out;
	}
	for (size_t r = 0; r < n; r++) {
		double xv, yv;
		bool hx, hy;
		int rc;
		if ((rc = rec_scalar(db, rows[r].run_id, x->name, &xv, &hx, err, sizeof(err))) ||
		    (rc = rec_scalar(db, rows[r].run_id, y->name, &yv, &hy, err, sizeof(err)))) {
			fprintf(stderr, "rcusim plot: %s\n", err);
			fclose(f);
			status = cli_exit_status(rc);
			goto out;
		}
		if (!hx || !hy) {
			fprintf(stderr, "rcusim plot: --vs: run %lld has no %s: left out\n", (long long)rows[r].run_id,
				hx ? y->name : x->name);
			continue;
		}
		xs[r] = xv;
		ys[r] = yv;
		has[r] = true;
	}
	/* Runs at the same point: one point, their labels joined. */
	for (size_t r = 0; r < n; r++) {
		if (!has[r])
			continue;
		fprintf(f, "%.17g %.17g \"", xs[r], ys[r]);
		for (size_t q = r; q < n; q++) {
			if (!has[q] || xs[q] != xs[r] || ys[q] != ys[r])
				continue;
			if (q != r)
				fputs(", ", f);
			for (const char *c = labels[q]; *c; c++)
				fputc(*c == '"' ? '\'' : *c, f);
			has[q] = q == r;
		}
		fputs("\"\n", f);
		has[r] = false;
		points++;
	}
	free(xs);
	free(ys);
	free(has);
	if (fclose(f)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		status = EXIT_IO;
		goto out;
	}
	if (!points) {
		fprintf(stderr, "rcusim plot: --vs %s --metric %s: no run recorded both\n", x->name, y->name);
		status = EXIT_USAGE;
		goto out;
	}
	FILE *rf = fopen(runs, "w");
	if (!rf) {
		fprintf(stderr, "%s: %s\n", runs, strerror(errno));
		status = EXIT_IO;
		goto out;
	}
	fputs("nruns = 0\nxmetric = ", rf);
	cli_gp_string(rf, x->name);
	fputs("\nymetric = ", rf);
	cli_gp_string(rf, y->name);
	fputs("\nsubtitle = ", rf);
	cli_gp_string(rf, context);
	fputs("\nfile = ", rf);
	cli_gp_string(rf, path);
	fprintf(rf, "\nxkind = '%s'\nykind = '%s'\nzoom = %d\n", axis_kind(x), axis_kind(y), zoom);
	if (fclose(rf)) {
		fprintf(stderr, "%s: %s\n", runs, strerror(errno));
		status = EXIT_IO;
		goto out;
	}
	snprintf(file, sizeof(file), "%s/vs_%s_%s.%s", out, y->name, x->name, format);
	const char *args[] = { runs, data, file, format };
	if ((status = cli_gnuplot("vs.gp", args, 4))) {
		unlink(file); /* a failed figure leaves no file */
		goto out;
	}
	printf("%s\n", file);
out:
	for (size_t r = 0; r < n; r++)
		free(labels[r]);
	free(labels);
	return status;
}

static const char plot_usage[] =
	"usage: rcusim plot [--db FILE] [--out DIR] [--format png|svg]\n"
	"                   [--metric NAME [--cpus LIST]]... [RUNS]\n"
	"       rcusim plot --vs SCALAR --metric SCALAR... [--zoom] [--db FILE] [--out DIR]\n"
	"                   [--format png|svg] [RUNS]\n"
	"\n"
	"Draw the standard figures of several runs (default: the latest complete run\n"
	"of each policy) into DIR (default figures/): queued callbacks over time,\n"
	"nr_files over time with file-max, the memory callbacks pin and the filp\n"
	"slab's pages over time, and as survival curves on log axes (the share\n"
	"above x, so that the tail shows) the callback latency and the softirq run\n"
	"length. The data behind them goes to DIR/data/. A figure gnuplot fails on\n"
	"leaves no file.\n"
	"\n"
	"  --metric NAME   instead, the figure of any series (over time) or histogram\n"
	"                  (its survival curve) the runs recorded (rcusim metrics lists\n"
	"                  them), DIR/metric_NAME.png; repeatable\n"
	"  --cpus LIST     a series per CPU, one line per CPU of LIST (0-3,8; all)\n"
	"                  where the runs recorded it per CPU (cb.qlen,\n"
	"                  softirq.busy_frac, idle.wakeups), not the machine's sum\n"
	"  --vs SCALAR     a trade-off: each --metric (scalars) against SCALAR, a\n"
	"                  point per run labelled with what differs between the runs\n"
	"                  (their varied parameters), DIR/vs_METRIC_SCALAR.png;\n"
	"                  without RUNS, every complete run of the database\n"
	"  --zoom          (--vs) axes fitted to the points, not from 0\n"
	"\n"
	"Each figure's subtitle names the scenario, kernel preset, CPUs, duration\n"
	"and seeds of its runs.\n";

int cmd_plot(int argc, char **argv)
{
	const char *db_path = "rcusim.db", *outdir = "figures", *format = "png";
	const char *cpus = NULL, *metrics[PLOT_MAX_METRICS];
	size_t nmetrics = 0;
	const char *vs = NULL;
	bool zoom = false;
	const cli_str strs[] = { { "--db", &db_path }, { "--out", &outdir }, { "--format", &format },
				 { "--cpus", &cpus }, { "--vs", &vs }, { NULL, NULL } };
	bool *want = NULL;
	cli_runsel sel;
	int selrc = cli_runsel_init(&sel, argc);
	size_t nrows = 0;
	int rc, status = EXIT_USAGE;
	rec_db *db = NULL;
	rec_run_row *rows = NULL;
	if (selrc)
		return EXIT_IO;
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], plot_usage)) {
			fputs(cli_runsel_help, stdout);
			status = 0;
			goto out;
		}
		const char *v;
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				goto out;
		} else if ((rc = cli_opt(argc, argv, &i, "--metric", &v))) {
			if (rc < 0)
				goto out;
			if (nmetrics == PLOT_MAX_METRICS) {
				fprintf(stderr, "rcusim plot: --metric: at most %d\n", PLOT_MAX_METRICS);
				goto out;
			}
			metrics[nmetrics++] = v;
		} else if (!strcmp(argv[i], "--zoom")) {
			zoom = true;
		} else if ((rc = cli_runsel_arg(argc, argv, &i, &sel, "plot"))) {
			if (rc < 0)
				goto out;
		} else {
			fprintf(stderr, "rcusim plot: unknown argument %s\n%s%s", argv[i], plot_usage,
				cli_runsel_help);
			goto out;
		}
	}
	if (strcmp(format, "png") && strcmp(format, "svg")) {
		fprintf(stderr, "rcusim plot: --format: expected png or svg, got \"%s\"\n", format);
		goto out;
	}
	/* The metrics: series or histograms of the registry. */
	const sim_metric_def *defs[PLOT_MAX_METRICS];
	for (size_t m = 0; m < nmetrics; m++) {
		defs[m] = NULL;
		for (size_t k = 0; k < M_COUNT; k++)
			if (!strcmp(rcusim_metrics[k].name, metrics[m]))
				defs[m] = &rcusim_metrics[k];
		if (!defs[m]) {
			fprintf(stderr, "rcusim plot: --metric %s: no such metric (rcusim metrics lists them)\n",
				metrics[m]);
			goto out;
		}
		if (vs && defs[m]->kind != SIM_M_SCALAR) {
			fprintf(stderr, "rcusim plot: --vs: --metric %s is not a scalar (one value per run)\n", metrics[m]);
			goto out;
		}
		if (!vs && defs[m]->kind == SIM_M_SCALAR) {
			fprintf(stderr, "rcusim plot: --metric %s: a scalar, one value per run: rcusim compare --metric "
					"%s shows it\n", metrics[m], metrics[m]);
			goto out;
		}
	}
	const sim_metric_def *vsdef = NULL;
	if (vs) {
		for (size_t k = 0; k < M_COUNT; k++)
			if (!strcmp(rcusim_metrics[k].name, vs) && rcusim_metrics[k].kind == SIM_M_SCALAR)
				vsdef = &rcusim_metrics[k];
		if (!vsdef) {
			fprintf(stderr, "rcusim plot: --vs %s: no recorded scalar has that name (rcusim metrics lists them)\n",
				vs);
			goto out;
		}
		if (!nmetrics || cpus) {
			fprintf(stderr, "rcusim plot: --vs: %s\n", cpus ? "not with --cpus" : "which --metric against it?");
			goto out;
		}
	} else if (zoom) {
		fprintf(stderr, "rcusim plot: --zoom: with --vs only\n");
		goto out;
	}
	if (cpus && !nmetrics) {
		fprintf(stderr, "rcusim plot: --cpus: with --metric only\n");
		goto out;
	}
	if (cpus) {
		char why[256];
		if (!(want = calloc(PLOT_MAX_CPUS, sizeof(*want)))) {
			status = EXIT_IO;
			goto out;
		}
		if (sim_cpulist_parse("--cpus", cpus, PLOT_MAX_CPUS, want, why, sizeof(why))) {
			fprintf(stderr, "rcusim plot: --cpus %s: %s\n", cpus, why);
			goto out;
		}
	}
	if (vsdef && !sel.n && !sel.label && !sel.scenario && !sel.last) {
		/* A trade-off wants its points: every complete run, said. */
		sel.label = "*";
		fprintf(stderr, "rcusim plot: --vs: every complete run of %s (choose with ids, A-B, --label, "
				"--scenario or --last N)\n", db_path);
	}
	if ((status = cli_load_runsel(db_path, &sel, "plot", &db, &rows, &nrows)))
		goto out;
	if (!nmetrics)
		status = plot_runs(db, rows, nrows, outdir, format);
	for (size_t m = 0; m < nmetrics && !status; m++)
		status = vsdef ? plot_vs(db, rows, nrows, defs[m], vsdef, zoom, outdir, format)
			       : plot_metric(db, rows, nrows, defs[m], want, outdir, format);
out:
	free(want);
	free(rows);
	cli_runsel_free(&sel);
	rec_close(db);
	return status;
}
