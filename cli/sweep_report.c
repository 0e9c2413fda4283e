/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep_report.c - how a sweep ends, whatever ran it: the comparison table
 * of its complete runs and, with --plot, each --metric against the first
 * varied parameter, one line per policy (mean, min and max over the
 * seeds), drawn by plots/sweep.gp.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sweep_plan.h"

/* Draw each of @metrics of the runs @rows (from @db) against the first
 * varied parameter @key, one line per policy, into @outdir as @format:
 * the data files into its data/, the figures' paths on stdout. The runs'
 * x values are @jobs' (matched by label). 0 or EXIT_IO (message printed). */
static int plot_sweep(rec_db *db, const rec_run_row *rows, size_t n, const sweep_job *jobs,
		      size_t njobs, const char *key, const char *const *metrics, size_t nmetrics,
		      const char *outdir, const char *format)
{
	char out[PATH_MAX], data[PATH_MAX + 16], runs[PATH_MAX + 32], file[PATH_MAX + 160], err[1024];
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
	if (cli_plot_dirs(outdir, out, data))
		return EXIT_IO;
	for (size_t mi = 0; mi < nmetrics; mi++) {
		snprintf(runs, sizeof(runs), "%s/sweep_%s.gp", data, metrics[mi]);
		FILE *rf = fopen(runs, "w");
		if (!rf) {
			fprintf(stderr, "%s: %s\n", runs, strerror(errno));
			return EXIT_IO;
		}
		fprintf(rf, "nruns = %zu\narray label[%zu]\narray id[%zu]\narray maxfiles[%zu]\n", npol,
			npol, npol, npol);
		fputs("param = ", rf);
		cli_gp_string(rf, key);
		fputs("\nmetric = ", rf);
		cli_gp_string(rf, metrics[mi]);
		fprintf(rf, "\nunit = '%s'\n",
			strstr(metrics[mi], "_ns") ? "ns (log scale)" : strstr(metrics[mi], "bytes") ? "bytes (log scale)" : "count (log scale)");
		for (size_t p = 0; p < npol; p++) {
			fprintf(rf, "label[%zu] = ", p + 1);
			cli_gp_string(rf, pol[p]);
			fprintf(rf, "\nid[%zu] = 0\nmaxfiles[%zu] = 0\n", p + 1, p + 1);
			char path[PATH_MAX + 256];
			snprintf(path, sizeof(path), "%s/sweep_%s_%zu.dat", data, metrics[mi], p + 1);
			FILE *f = fopen(path, "w");
			if (!f) {
				fprintf(stderr, "%s: %s\n", path, strerror(errno));
				fclose(rf);
				return EXIT_IO;
			}
			/* One line per distinct x: mean, min and max over seeds. */
			for (size_t j = 0; j < njobs; j++) {
				bool first = true;
				for (size_t e = 0; e < j; e++)
					first &= jobs[e].x != jobs[j].x;
				if (!first || isnan(jobs[j].x))
					continue;
				double sum = 0, lo = INFINITY, hi = -INFINITY;
				int cnt = 0;
				for (size_t r = 0; r < n; r++) {
					if (strcmp(rows[r].policy, pol[p]))
						continue;
					for (size_t e = 0; e < njobs; e++)
						if (!strcmp(jobs[e].label, rows[r].label) && jobs[e].x == jobs[j].x) {
							double v;
							bool has;
							if (!rec_scalar(db, rows[r].run_id, metrics[mi], &v, &has, err,
									sizeof(err)) && has) {
								sum += v;
								lo = fmin(lo, v);
								hi = fmax(hi, v);
								cnt++;
							}
						}
				}
				if (cnt)
					fprintf(f, "%.17g %.17g %.17g %.17g\n", jobs[j].x, sum / cnt, lo, hi);
			}
			fclose(f);
		}
		fclose(rf);
		snprintf(file, sizeof(file), "%s/sweep_%s.%s", out, metrics[mi], format);
		const char *args[] = { runs, data, file, format };
		if (cli_gnuplot("sweep.gp", args, 4)) {
			/* gnuplot opens the figure before it draws: never leave an
			 * empty or half-written one that looks like a result. */
			if (unlink(file) && errno != ENOENT)
				fprintf(stderr, "rcusim sweep: %s: %s\n", file, strerror(errno));
			return EXIT_IO;
		}
		printf("%s\n", file);
	}
	return 0;
}

int sweep_report(const sweep *s, rec_db *db, const rec_run_row *rows, size_t nrows)
{
	int status = 0;
	if (nrows && (status = cli_compare_print(db, rows, nrows, "text", stdout)))
		return status;
	if (s->plot && nrows)
		status = plot_sweep(db, rows, nrows, s->jobs, s->njobs, s->vary[0].key, s->metrics,
				    s->nmetrics, s->outdir, s->format);
	return status;
}
