/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep_report.c - how a sweep ends, whatever ran it: the comparison table
 * of its complete runs and, with --plot, each --metric against the first
 * varied parameter, one line per policy and value of the second (mean,
 * min and max over the seeds), drawn by plots/sweep.gp.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "registry.h"
#include "sweep_plan.h"

/* The index of the value job set @set ("key=value") gives among @v's. */
static int value_index(const sweep_vary *v, const char *set)
{
	const char *val = strchr(set, '=');
	for (int k = 0; val && k < v->n; k++)
		if (!strcmp(v->values[k], val + 1))
			return k;
	return -1;
}

/* What the y axis shows, from the metric's unit in the registry: time,
 * bytes, percent (a fraction) or count. */
static const char *y_kind(const char *metric)
{
	for (size_t k = 0; k < M_COUNT; k++)
		if (!strcmp(rcusim_metrics[k].name, metric)) {
			const char *u = rcusim_metrics[k].unit;
			return !strcmp(u, "ns") ? "time" : !strcmp(u, "bytes") ? "bytes"
							  : !strcmp(u, "fraction") ? "percent" : "count";
		}
	return "count";
}

/* Draw each of s->metrics of the runs @rows (from @db) against the first
 * varied parameter, one line per policy and value of the second varied
 * parameter (mean, min and max over the seeds), into s->outdir as
 * s->format: the data files into its data/, the figures' paths on stdout.
 * A first parameter whose values are not all numbers (yes/no, CPU lists)
 * is a categorical axis, its values in the order given. Runs are matched
 * to s->jobs by label. 0 or EXIT_IO (message printed). */
static int plot_sweep(const sweep *s, rec_db *db, const rec_run_row *rows, size_t n)
{
	char out[PATH_MAX], data[PATH_MAX + 16], runs[PATH_MAX + 32], file[PATH_MAX + 160], err[1024];
	const sweep_vary *vx = &s->vary[0], *vl = s->nvary > 1 ? &s->vary[1] : NULL;
	/* Policies, in the order they appear. */
	const char *pol[16];
	size_t npol = 0;
	for (size_t r = 0; r < n; r++) {
		size_t k = 0;
		while (k < npol && strcmp(pol[k], rows[r].policy))
			k++;
		if (k == npol && npol < 16)
			pol[npol++] = rows[r].policy;
	}
	/* Each run's job, and each value's x. */
	int *job_of = malloc(n * sizeof(*job_of));
	double *xs = malloc((size_t)vx->n * sizeof(*xs));
	if (!job_of || !xs) {
		free(job_of);
		free(xs);
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	for (size_t r = 0; r < n; r++) {
		job_of[r] = -1;
		for (size_t e = 0; e < s->njobs; e++)
			if (!strcmp(s->jobs[e].label, rows[r].label))
				job_of[r] = (int)e;
	}
	bool numeric = true, xpos = true;
	double xmin = INFINITY, xmax = -INFINITY;
	for (int v = 0; v < vx->n; v++)
		xs[v] = NAN;
	for (size_t e = 0; e < s->njobs; e++) {
		int v = value_index(vx, s->jobs[e].sets[0]);
		if (v >= 0)
			xs[v] = s->jobs[e].x;
	}
	for (int v = 0; v < vx->n; v++) {
		numeric &= !isnan(xs[v]);
		xpos &= xs[v] > 0;
		xmin = fmin(xmin, xs[v]);
		xmax = fmax(xmax, xs[v]);
	}
	/* A line per policy only where a cell (a value of each parameter) holds
	 * runs of more than one: a varied rcu.policy makes the policies
	 * points of its own axis, not lines. */
	bool split = false;
	for (size_t r = 0; r < n && !split; r++)
		for (size_t q = r + 1; q < n && !split; q++) {
			const sweep_job *a = job_of[r] >= 0 ? &s->jobs[job_of[r]] : NULL;
			const sweep_job *b = job_of[q] >= 0 ? &s->jobs[job_of[q]] : NULL;
			split = a && b && strcmp(rows[r].policy, rows[q].policy) &&
				value_index(vx, a->sets[0]) == value_index(vx, b->sets[0]) &&
				(!vl || value_index(vl, a->sets[1]) == value_index(vl, b->sets[1]));
		}
	if (!split)
		npol = 1;
	int nl = vl ? vl->n : 1, status = 0;
	/* The subtitle: what ran, and the value the scenario itself gives the
	 * first varied parameter (the kernel's default, or the preset's),
	 * marked on the x axis where it is one of the values. */
	char context[1024], deftext[256], subtitle[1600];
	if ((status = cli_run_context(db, rows, n, context, sizeof(context))))
		goto done;
	int defidx = sweep_default_index(s, vx, deftext, sizeof(deftext));
	if (deftext[0])
		snprintf(subtitle, sizeof(subtitle), "%s; the scenario's %s = %s%s", context, vx->key, deftext,
			 defidx >= 0 ? " (dashed)" : "");
	else
		snprintf(subtitle, sizeof(subtitle), "%s", context);
	if (cli_plot_dirs(s->outdir, out, data)) {
		status = EXIT_IO;
		goto done;
	}
	for (size_t mi = 0; mi < s->nmetrics && !status; mi++) {
		const char *metric = s->metrics[mi];
		double ylo = INFINITY, yhi = -INFINITY;
		size_t nlines = 0;
		snprintf(runs, sizeof(runs), "%s/sweep_%s.gp", data, metric);
		FILE *rf = fopen(runs, "w");
		if (!rf) {
			fprintf(stderr, "%s: %s\n", runs, strerror(errno));
			status = EXIT_IO;
			break;
		}
		fprintf(rf, "nruns = %zu\narray label[%zu]\narray id[%zu]\narray maxfiles[%zu]\n", npol * (size_t)nl,
			npol * (size_t)nl, npol * (size_t)nl, npol * (size_t)nl);
		fputs("param = ", rf);
		cli_gp_string(rf, vx->key);
		fputs("\nmetric = ", rf);
		cli_gp_string(rf, metric);
		fputs("\nsubtitle = ", rf);
		cli_gp_string(rf, subtitle);
		if (defidx >= 0)
			fprintf(rf, "\ndefx = %.17g", numeric ? xs[defidx] : (double)defidx);
		fprintf(rf, "\nzoom = %d", s->zoom);
		/* A log x axis where the values span a decade or more; ticks at
		 * the values where there are few. */
		fprintf(rf, "\nykind = '%s'\ncategorical = %d\nlogx = %d\nnx = %d\nsingle = %d\n", y_kind(metric),
			!numeric, numeric && xpos && vx->n > 2 && xmax >= 10 * xmin, vx->n, npol * (size_t)nl == 1);
		if (numeric && vx->n <= 12) {
			fputs("xticks = '(", rf);
			for (int v = 0; v < vx->n; v++)
				fprintf(rf, "%s%.6g", v ? ", " : "", xs[v]);
			fputs(")'\n", rf);
		}
		for (size_t p = 0; p < npol && !status; p++)
			for (int l = 0; l < nl && !status; l++) {
				char lab[512], path[PATH_MAX + 256];
				size_t li = ++nlines;
				if (vl && npol > 1)
					snprintf(lab, sizeof(lab), "%s, %s=%s", pol[p], vl->key, vl->values[l]);
				else if (vl)
					snprintf(lab, sizeof(lab), "%s=%s", vl->key, vl->values[l]);
				else if (split)
					snprintf(lab, sizeof(lab), "%s", pol[p]);
				else
					snprintf(lab, sizeof(lab), "%s", metric);
				fprintf(rf, "label[%zu] = ", li);
				cli_gp_string(rf, lab);
				fprintf(rf, "\nid[%zu] = 0\nmaxfiles[%zu] = 0\n", li, li);
				snprintf(path, sizeof(path), "%s/sweep_%s_%zu.dat", data, metric, li);
				FILE *f = fopen(path, "w");
				if (!f) {
					fprintf(stderr, "%s: %s\n", path, strerror(errno));
					status = EXIT_IO;
					break;
				}
				/* One line per value of the first parameter: mean, min and
				 * max over the seeds, and the value as given. */
				for (int v = 0; v < vx->n; v++) {
					double sum = 0, lo = INFINITY, hi = -INFINITY, val;
					int cnt = 0;
					bool has;
					for (size_t r = 0; r < n; r++) {
						const sweep_job *jb = job_of[r] >= 0 ? &s->jobs[job_of[r]] : NULL;
						if (!jb || (split && strcmp(rows[r].policy, pol[p])) || value_index(vx, jb->sets[0]) != v ||
						    (vl && value_index(vl, jb->sets[1]) != l))
							continue;
						if (!rec_scalar(db, rows[r].run_id, metric, &val, &has, err, sizeof(err)) && has) {
							sum += val;
							lo = fmin(lo, val);
							hi = fmax(hi, val);
							cnt++;
						}
					}
					if (!cnt)
						continue;
					ylo = fmin(ylo, lo);
					yhi = fmax(yhi, hi);
					/* In double quotes: gnuplot reads them as one column,
					 * without them (a double quote in it becomes a single). */
					fprintf(f, "%.17g %.17g %.17g %.17g \"", numeric ? xs[v] : (double)v, sum / cnt, lo, hi);
					for (const char *c = vx->values[v]; *c; c++)
						fputc(*c == '"' ? '\'' : *c, f);
					fputs("\"\n", f);
				}
				fclose(f);
			}
		/* A log y axis for values all above 0 spanning a factor of 10;
		 * a flat line gets a range around it. */
		if (ylo <= yhi) {
			fprintf(rf, "logy = %d\n", ylo > 0 && yhi >= 10 * ylo);
			if (ylo == yhi)
				fprintf(rf, "ymin = %.17g\nymax = %.17g\n", ylo ? ylo - fabs(ylo) / 2 : -1,
					ylo ? yhi + fabs(yhi) / 2 : 1);
		} else {
			fputs("logy = 0\n", rf);
		}
		fclose(rf);
		if (status)
			break;
		snprintf(file, sizeof(file), "%s/sweep_%s.%s", out, metric, s->format);
		const char *args[] = { runs, data, file, s->format };
		if (cli_gnuplot("sweep.gp", args, 4)) {
			/* gnuplot opens the figure before it draws: never leave an
			 * empty or half-written one that looks like a result. */
			if (unlink(file) && errno != ENOENT)
				fprintf(stderr, "rcusim sweep: %s: %s\n", file, strerror(errno));
			status = EXIT_IO;
			break;
		}
		printf("%s\n", file);
	}
done:
	free(job_of);
	free(xs);
	return status;
}

/* The table of the sweep's runs @rows: in the order of its jobs (the
 * --vary order, seeds innermost), a column per combination of the varied
 * values pooling its seeds, headed by those values; or with --long a row
 * per run. Rows: --metric, else the key scalars. 0 or an exit status. */
static int sweep_table(const sweep *s, rec_db *db, const rec_run_row *rows, size_t nrows)
{
	rec_run_row *ordered = calloc(nrows + 1, sizeof(*ordered));
	char **heads = calloc(nrows + 1, sizeof(*heads));
	bool *taken = calloc(nrows + 1, sizeof(*taken));
	size_t n = 0;
	int status = 0;
	if (!ordered || !heads || !taken) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		status = EXIT_IO;
		goto out;
	}
	for (size_t e = 0; e <= s->njobs; e++)
		for (size_t r = 0; r < nrows; r++) {
			/* A run no job names (e == njobs) goes last, as it is. */
			if (taken[r] || (e < s->njobs && strcmp(rows[r].label, s->jobs[e].label)))
				continue;
			char head[SWEEP_MAX_VARY * 384 + 8] = "";
			size_t l = 0;
			for (int v = 0; e < s->njobs && v < s->nvary && l < sizeof(head); v++)
				l += (size_t)snprintf(head + l, sizeof(head) - l, "%s%s", v ? " " : "",
						      strchr(s->jobs[e].sets[v], '=') ? strchr(s->jobs[e].sets[v], '=') + 1
										      : s->jobs[e].sets[v]);
			if (e == s->njobs)
				snprintf(head, sizeof(head), "run %lld", (long long)rows[r].run_id);
			taken[r] = true;
			ordered[n] = rows[r];
			if (!(heads[n++] = strdup(head))) {
				fprintf(stderr, "rcusim sweep: out of memory\n");
				status = EXIT_IO;
				goto out;
			}
		}
	const char *const *metrics = s->metrics_given ? s->metrics : NULL;
	size_t nmetrics = s->metrics_given ? s->nmetrics : 0;
	if (!s->long_form) {
		/* The keys once, above: each column is headed by their values. */
		printf("Columns: ");
		for (int v = 0; v < s->nvary; v++)
			printf("%s%s", v ? " " : "", s->vary[v].key);
		printf(" (each headed by its values; the mean over its seeds)\n\n");
	}
	if (s->long_form)
		status = cli_compare_long(db, ordered, n, metrics, nmetrics, "text", stdout);
	else
		status = cli_compare_groups(db, ordered, n, (const char *const *)heads, metrics, nmetrics, stdout);
out:
	for (size_t r = 0; heads && r < n; r++)
		free(heads[r]);
	free(heads);
	free(ordered);
	free(taken);
	return status;
}

int sweep_report(const sweep *s, rec_db *db, const rec_run_row *rows, size_t nrows)
{
	int status = 0;
	if (nrows && (status = sweep_table(s, db, rows, nrows)))
		return status;
	if (s->plot && nrows)
		status = plot_sweep(s, db, rows, nrows);
	return status;
}
