/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * compare.c - `rcusim compare`: the key scalars of runs side by side, in
 * human units, or CSV and Markdown for scripts and reports; and the table
 * itself, cli_compare_print(), which sweep prints too. Which scalars, in
 * which order and under which label, is key_metrics[] below; their names
 * and units come from the metric registry (models/metrics.def).
 */
#include <assert.h>
#include <stdlib.h>
#include <fnmatch.h>
#include <math.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "registry.h"
#include "stats.h"

/* How a key scalar is shown. */
typedef enum cli_unit { CLI_COUNT, CLI_NS, CLI_BYTES, CLI_FRAC, CLI_WHEN } cli_unit;

/* A key scalar of a comparison: its name and unit come from the metric
 * registry, its label (shorter than the registry's meaning) is the table's. */
typedef struct key_metric {
	enum rcusim_metric_id id; /* a scalar of rcusim_metrics */
	const char *label;        /* what a reader sees */
	bool when;                /* a moment, not a length: "never" when absent from a run with files */
} key_metric;

/* In display order. */
static const key_metric key_metrics[] = {
	{ M_CB_ENQUEUED, "callbacks queued", false },
	{ M_CB_PENDING_END, "callbacks pending at the end", false },
	{ M_CB_QLEN_MAX, "largest queue on one CPU", false },
	{ M_CB_QLEN_TOTAL_MAX, "largest queue, all CPUs", false },
	{ M_CB_LATENCY_P50_NS, "callback latency, median", false },
	{ M_CB_LATENCY_P99_NS, "callback latency, p99", false },
	{ M_CB_LATENCY_MAX_NS, "callback latency, max", false },
	{ M_GP_DURATION_P99_NS, "grace period, p99", false },
	{ M_SOFTIRQ_RUN_P99_NS, "softirq run, p99", false },
	{ M_SOFTIRQ_RUN_MAX_NS, "softirq run, max", false },
	{ M_SOFTIRQ_RUNS_ENDED_EMPTY, "softirq runs ended: none pending", false },
	{ M_SOFTIRQ_RUNS_ENDED_RESTART_LIMIT, "softirq runs ended: restart limit", false },
	{ M_SOFTIRQ_RUNS_ENDED_TIME_BUDGET, "softirq runs ended: time budget", false },
	{ M_SOFTIRQ_RUNS_ENDED_NEED_RESCHED, "softirq runs ended: need_resched", false },
	{ M_RCU_BATCHES_ENDED_EMPTY, "rcu_do_batch ended: all invoked", false },
	{ M_RCU_BATCHES_ENDED_COUNT, "rcu_do_batch ended: batch limit", false },
	{ M_RCU_BATCHES_ENDED_NEED_RESCHED, "rcu_do_batch ended: need_resched", false },
	{ M_RCU_BATCHES_ENDED_TIME, "rcu_do_batch ended: time limit", false },
	{ M_SOFTIRQ_PASSES_KSOFTIRQD, "RCU softirq passes in ksoftirqd", false },
	{ M_SOFTIRQ_PASSES_IRQ_EXIT, "RCU softirq passes at irq exit", false },
	{ M_SOFTIRQ_RUNS_IRQ_EXIT, "softirq runs at irq exit", false },
	{ M_SOFTIRQ_IRQ_RUN_P99_NS, "softirq run at irq exit, p99", false },
	{ M_SCHED_CTXSW, "context switches", false },
	{ M_GP_KTHREAD_WAKEUPS, "GP kthread wakeups", false },
	{ M_SOFTIRQ_KSOFTIRQD_WAKEUPS, "ksoftirqd wakeups", false },
	{ M_SOFTIRQ_KSOFTIRQD_WAIT_MAX_NS, "ksoftirqd longest wait", false },
	{ M_SCHED_WAIT_MAX_NS, "longest runnable wait", false },
	{ M_IPI_RESCHED_SENT, "reschedule IPIs", false },
	{ M_GP_QS_WAIT_MAX_NS, "grace period's QS wait, max", false },
	{ M_GP_KTHREAD_WAIT_MAX_NS, "GP kthread's longest wait", false },
	{ M_FQS_SCANS, "FQS scans", false },
	{ M_FQS_RESCHED_CPU, "resched_cpu() by FQS", false },
	{ M_RCU_STALL_WARNINGS, "RCU stall warnings", false },
	{ M_RCUC_RUN_MAX_NS, "rcuc run, max", false },
	{ M_VFS_OPENS, "files opened", false },
	{ M_VFS_NR_FILES_MAX, "nr_files, peak", false },
	{ M_VFS_MAX_FILES, "file-max", false },
	{ M_VFS_FILE_MAX_REACHED_NS, "file-max reached at", true },
	{ M_VFS_FILE_MAX_LAST_NS, "last open refused at", true },
	{ M_VFS_OPEN_FAILURES, "opens refused at file-max", false },
	{ M_MEM_PENDING_BYTES_MAX, "memory pinned by callbacks, peak", false },
	{ M_SLAB_PAGES_MAX, "filp slab pages, peak", false },
	{ M_SLAB_FRAGMENTATION_MAX, "slab slots free but pinned, peak", false },
};
static const size_t nkey_metrics = sizeof(key_metrics) / sizeof(key_metrics[0]);

/* How @m is shown, from its unit in the registry. */
static cli_unit key_unit(const key_metric *m)
{
	const char *u = rcusim_metrics[m->id].unit;
	assert(rcusim_metrics[m->id].kind == SIM_M_SCALAR);
	if (m->when)
		return CLI_WHEN;
	if (!strcmp(u, "ns"))
		return CLI_NS;
	if (!strcmp(u, "bytes"))
		return CLI_BYTES;
	if (!strcmp(u, "fraction"))
		return CLI_FRAC;
	return CLI_COUNT;
}

#define W 28 /* least width of a run's column in text output */

/* A column of the table: one run, or runs that differ only by their seed
 * (a run per seed: a repeat of one is left out). */
typedef struct ccol {
	const int64_t *ids;     /* its runs */
	size_t n;               /* their number, one per distinct seed */
} ccol;

static int compare_table(rec_db *db, const rec_run_row *rows, size_t n, const char *format,
			 const key_metric *metrics, size_t nk, long base, const ccol *cols, FILE *out);

/* Cell text of @m's value @v (@present in the run; @files: the run models
 * the file table). */
static void fmt_value(const key_metric *m, bool present, double v, bool files, char *buf,
		      size_t len)
{
	if (!present) {
		snprintf(buf, len, "%s", key_unit(m) == CLI_WHEN && files ? "never" : "-");
		return;
	}
	switch (key_unit(m)) {
	case CLI_COUNT:
		cli_fmt_count(v, buf, len);
		break;
	case CLI_NS:
	case CLI_WHEN:
		cli_fmt_ns(v, buf, len);
		break;
	case CLI_BYTES:
		cli_fmt_bytes(v, buf, len);
		break;
	case CLI_FRAC:
		snprintf(buf, len, "%.1f%%", 100 * v);
		break;
	}
}

int cli_compare_print(rec_db *db, const rec_run_row *rows, size_t n, const char *format, FILE *out)
{
	return compare_table(db, rows, n, format, key_metrics, nkey_metrics, -1, NULL, out);
}

/* The text of a cell: @m's value @v (or "-"), "± @hw" when @nv > 1 values
 * made it a mean, and with @b (@hb) its ratio to the base's. */
static void cell_text(const key_metric *m, bool has, double v, bool files, size_t nv, double hw, bool hb,
		      double b, char *cell, size_t len)
{
	fmt_value(m, has, v, files, cell, len);
	size_t l = strlen(cell);
	if (has && nv > 1 && l + 4 < len) {
		snprintf(cell + l, len - l, " \u00b1 ");
		l = strlen(cell);
		fmt_value(m, true, hw, files, cell + l, len - l);
		l = strlen(cell);
	}
	if (hb && has) {
		if (b != 0)
			snprintf(cell + l, len - l, " (%.3gx)", v / b);
		else if (v == 0)
			snprintf(cell + l, len - l, " (=)");
	}
}

/* A cell of a name's or label's row after @sep: right-aligned in @width
 * columns in text; in Markdown, escaped so that a '|' or a newline of the
 * text stays in its cell. */
static void text_cell(FILE *out, bool md, const char *sep, int width, const char *text)
{
	if (md) {
		fputs(sep, out);
		cli_md_cell(text, out);
	} else {
		fprintf(out, "%s%*s", sep, width, text);
	}
}

/* The comparison of @rows over @metrics (@nk of them), a column each or,
 * with @cols, a column per entry of @cols (n of them: the mean of its runs
 * with a 95% interval, Student's t); with @base >= 0, each other column's
 * cell also shows its ratio to column @base's. */
static int compare_table(rec_db *db, const rec_run_row *rows, size_t n, const char *format,
			 const key_metric *metrics, size_t nk, long base, const ccol *cols, FILE *out)
{
	char err[1024], cell[160];
	bool csv = !strcmp(format, "csv"), md = !strcmp(format, "md");
	double *vals = calloc(n * nk + 1, sizeof(double));
	double *hw = calloc(n * nk + 1, sizeof(double));
	size_t *nv = calloc(n * nk + 1, sizeof(size_t));
	bool *has = calloc(n * nk + 1, sizeof(bool));
	bool *files = calloc(n + 1, sizeof(bool));
	int *width = calloc(n + 1, sizeof(int));
	int status = 0;
	if (!vals || !hw || !nv || !has || !files || !width) {
		fprintf(stderr, "rcusim: out of memory\n");
		status = EXIT_IO;
		goto out;
	}
	for (size_t r = 0; r < n; r++)
		for (size_t k = 0; k < nk; k++) {
			size_t nm = cols ? cols[r].n : 1;
			sim_mean mean = { 0 };
			for (size_t j = 0; j < nm; j++) {
				double v;
				bool present;
				int rc = rec_scalar(db, cols ? cols[r].ids[j] : rows[r].run_id,
						    rcusim_metrics[metrics[k].id].name, &v, &present, err, sizeof(err));
				if (rc) {
					fprintf(stderr, "%s\n", err);
					status = cli_exit_status(rc);
					goto out;
				}
				if (present)
					sim_mean_add(&mean, v);
			}
			size_t i = r * nk + k;
			has[i] = mean.n > 0;
			nv[i] = mean.n;
			vals[i] = mean.mean;
			hw[i] = sim_mean_ci95(&mean);
			if (!strcmp(rcusim_metrics[metrics[k].id].name, "vfs.max_files") && has[i])
				files[r] = true;
		}
	/* Each column as wide as its scenario, label and cells (never cut). */
	for (size_t r = 0; r < n; r++) {
		width[r] = W;
		if ((int)strlen(rows[r].scenario) > width[r])
			width[r] = (int)strlen(rows[r].scenario);
		if ((int)strlen(rows[r].label) > width[r])
			width[r] = (int)strlen(rows[r].label);
		for (size_t k = 0; k < nk; k++) {
			size_t i = r * nk + k;
			bool hb = base >= 0 && (size_t)base != r && has[(size_t)base * nk + k];
			cell_text(&metrics[k], has[i], vals[i], files[r], nv[i], hw[i], hb,
				  hb ? vals[(size_t)base * nk + k] : 0, cell, sizeof(cell));
			if ((int)strlen(cell) > width[r])
				width[r] = (int)strlen(cell) - (strstr(cell, "\u00b1") ? 1 : 0);
		}
	}
	/* Header: one column per run. */
	char head[3][256];
	if (csv) {
		fprintf(out, "metric");
		for (size_t r = 0; r < n; r++) {
			/* A field of its own, quoted as RFC 4180 says: a label may
			 * hold a comma, a quote or a newline. */
			char *h = NULL;
			size_t hl = 0;
			FILE *f = open_memstream(&h, &hl);
			if (!f) {
				fprintf(stderr, "rcusim: out of memory\n");
				status = EXIT_IO;
				goto out;
			}
			fprintf(f, "%s", cols && cols[r].n > 1 ? "runs" : "run");
			for (size_t j = 0; j < (cols ? cols[r].n : 1); j++)
				fprintf(f, " %lld", (long long)(cols ? cols[r].ids[j] : rows[r].run_id));
			fprintf(f, " %s%s%s", rows[r].policy, rows[r].label[0] ? " " : "", rows[r].label);
			if (cols && cols[r].n > 1)
				fprintf(f, " (mean of %zu)", cols[r].n);
			if (fclose(f) || !h) {
				free(h);
				fprintf(stderr, "rcusim: out of memory\n");
				status = EXIT_IO;
				goto out;
			}
			fputc(',', out);
			cli_csv_field(h, out);
			free(h);
		}
		fprintf(out, "\n");
	} else {
		int w0 = 34;
		const char *sep = md ? " | " : "  ";
		if (md)
			fprintf(out, "| ");
		fprintf(out, "%-*s", md ? 0 : w0, "metric");
		for (size_t r = 0; r < n; r++) {
			if (cols && cols[r].n > 1) {
				size_t l = (size_t)snprintf(head[0], sizeof(head[0]), "runs");
				for (size_t j = 0; j < cols[r].n && l < sizeof(head[0]); j++)
					l += (size_t)snprintf(head[0] + l, sizeof(head[0]) - l, "%s%lld", j ? "," : " ",
							      (long long)cols[r].ids[j]);
				if (l < sizeof(head[0]))
					snprintf(head[0] + l, sizeof(head[0]) - l, ": %s", rows[r].policy);
			} else {
				snprintf(head[0], sizeof(head[0]), "run %lld: %s", (long long)rows[r].run_id,
					 rows[r].policy);
			}
			if ((int)strlen(head[0]) > width[r])
				width[r] = (int)strlen(head[0]);
			fprintf(out, "%s%*s", sep, md ? 0 : width[r], head[0]);
		}
		fprintf(out, "%s\n", md ? " |" : "");
		if (md) {
			fprintf(out, "| ---");
			for (size_t r = 0; r < n; r++)
				fprintf(out, " | ---:");
			fprintf(out, " |\n| scenario");
		} else {
			fprintf(out, "%-*s", w0, "scenario");
		}
		for (size_t r = 0; r < n; r++)
			text_cell(out, md, sep, width[r], rows[r].scenario);
		fprintf(out, "%s\n", md ? " |" : "");
		bool labels = false;
		for (size_t r = 0; r < n; r++)
			labels |= rows[r].label[0] != 0;
		if (labels) {
			fprintf(out, md ? "| label" : "%-34s", "label");
			for (size_t r = 0; r < n; r++)
				text_cell(out, md, sep, width[r], rows[r].label);
			fprintf(out, "%s\n", md ? " |" : "");
		}
		bool seeds = false;
		for (size_t r = 0; cols && r < n; r++)
			seeds |= cols[r].n > 1;
		if (seeds) {
			fprintf(out, md ? "| seeds (mean \u00b1 95%% interval)" : "%-34s", "seeds (mean \u00b1 95% interval)");
			if (!md)
				fputc(' ', out); /* the \u00b1 takes two bytes, one column */
			for (size_t r = 0; r < n; r++) {
				snprintf(cell, sizeof(cell), "n = %zu", cols[r].n);
				fprintf(out, "%s%*s", sep, md ? 0 : width[r], cell);
			}
			fprintf(out, "%s\n", md ? " |" : "");
		}
		fprintf(out, md ? "| simulated" : "%-34s", "simulated");
		for (size_t r = 0; r < n; r++) {
			cli_fmt_ns((double)rows[r].sim_end_ns, cell, sizeof(cell));
			if (strcmp(rows[r].status, "complete")) {
				size_t l = strlen(cell);
				snprintf(cell + l, sizeof(cell) - l, " (%s)", rows[r].status);
			}
			fprintf(out, "%s%*s", sep, md ? 0 : width[r], cell);
		}
		fprintf(out, "%s\n", md ? " |" : "");
	}
	for (size_t k = 0; k < nk; k++) {
		const key_metric *m = &metrics[k];
		bool any = false;
		for (size_t r = 0; r < n; r++)
			any |= has[r * nk + k] || (key_unit(m) == CLI_WHEN && files[r]);
		if (!any)
			continue;
		if (csv) {
			fprintf(out, "%s", rcusim_metrics[m->id].name);
			for (size_t r = 0; r < n; r++) {
				if (has[r * nk + k])
					fprintf(out, ",%.17g", vals[r * nk + k]);
				else
					fprintf(out, ",");
			}
			fprintf(out, "\n");
			continue;
		}
		if (md)
			fprintf(out, "| %s", m->label);
		else
			fprintf(out, "%-34s", m->label);
		for (size_t r = 0; r < n; r++) {
			size_t i = r * nk + k;
			bool hb = base >= 0 && (size_t)base != r && has[(size_t)base * nk + k];
			cell_text(m, has[i], vals[i], files[r], nv[i], hw[i], hb,
				  hb ? vals[(size_t)base * nk + k] : 0, cell, sizeof(cell));
			/* printf pads by bytes: the two-byte \u00b1 is one column. */
			int pad = md ? 0 : width[r] + (strstr(cell, "\u00b1") ? 1 : 0);
			fprintf(out, "%s%*s", md ? " | " : "  ", pad, cell);
		}
		fprintf(out, "%s\n", md ? " |" : "");
	}
out:
	free(vals);
	free(hw);
	free(nv);
	free(has);
	free(files);
	free(width);
	return status;
}

static const char compare_usage[] =
	"usage: rcusim compare [--db FILE] [--format text|csv|md] [--metric NAME|GLOB]...\n"
	"                      [--base RUN_ID] [--each] [RUNS]\n"
	"\n"
	"The key scalars of several runs side by side (default: the latest complete\n"
	"run of each policy). Text and Markdown in human units; CSV in ns and bytes.\n"
	"Runs that differ only by their seed make one column: the mean, its 95%\n"
	"interval (Student's t) and n, the number of seeds; a run that repeats\n"
	"another (the same seed too) is counted once, a run named twice is one\n"
	"column, both said on stderr; --each shows every run on its own.\n"
	"  --metric NAME|GLOB  these recorded scalars instead ('softirq.*', rcusim\n"
	"                      metrics lists them), by their names (repeatable)\n"
	"  --base RUN_ID       each other run's value also as a ratio to this run's\n"
	"                      (text and md)\n";

/* What makes runs the same but for their seed: scenario, policy, label and
 * every parameter but scenario.seed (malloc'd), or NULL (message printed). */
static char *run_key(rec_db *db, const rec_run_row *r)
{
	char *key = NULL, err[1024];
	size_t len = 0, np = 0;
	rec_param_row *ps = NULL;
	if (rec_run_params(db, r->run_id, &ps, &np, err, sizeof(err))) {
		fprintf(stderr, "rcusim compare: %s\n", err);
		return NULL;
	}
	FILE *f = open_memstream(&key, &len);
	if (!f) {
		rec_param_rows_free(ps, np);
		return NULL;
	}
	fprintf(f, "%s\n%s\n%s\n%s\n", r->scenario, r->policy, r->label, r->status);
	for (size_t i = 0; i < np; i++)
		if (strcmp(ps[i].name, "scenario.seed"))
			fprintf(f, "%s=%s\n", ps[i].name, ps[i].value);
	rec_param_rows_free(ps, np);
	if (fclose(f)) {
		free(key);
		return NULL;
	}
	return key;
}

int cmd_compare(int argc, char **argv)
{
	const char *db_path = "rcusim.db", *format = "text", *base_s = NULL, *mv;
	const cli_str strs[] = { { "--db", &db_path }, { "--format", &format }, { "--base", &base_s },
				 { NULL, NULL } };
	const char **globs = calloc((size_t)argc + 1, sizeof(*globs));
	size_t nglobs = 0;
	bool aggregate = true;
	key_metric *picked = NULL;
	cli_runsel sel;
	int selrc = cli_runsel_init(&sel, argc);
	int rc, status = EXIT_USAGE;
	rec_db *db = NULL;
	rec_run_row *rows = NULL;
	size_t nrows = 0;
	if (selrc || !globs) {
		cli_runsel_free(&sel);
		free(globs);
		return EXIT_IO;
	}
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], compare_usage)) {
			fputs(cli_runsel_help, stdout);
			status = 0;
			goto out;
		}
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				goto out;
			continue;
		}
		if (!strcmp(argv[i], "--each")) {
			aggregate = false;
			continue;
		}
		if ((rc = cli_opt(argc, argv, &i, "--metric", &mv))) {
			if (rc < 0)
				goto out;
			globs[nglobs++] = mv;
			continue;
		}
		if ((rc = cli_runsel_arg(argc, argv, &i, &sel, "compare"))) {
			if (rc < 0)
				goto out;
			continue;
		}
		fprintf(stderr, "rcusim compare: unknown argument %s\n%s%s", argv[i], compare_usage,
			cli_runsel_help);
		goto out;
	}
	if (strcmp(format, "text") && strcmp(format, "csv") && strcmp(format, "md")) {
		fprintf(stderr, "rcusim compare: --format: expected text, csv or md, got \"%s\"\n", format);
		goto out;
	}
	int64_t base_id = 0;
	if (base_s && !cli_run_id("compare", base_s, &base_id))
		goto out;
	/* The scalars --metric names: every registry scalar a glob matches. */
	size_t npicked = 0;
	if (nglobs) {
		if (!(picked = calloc(M_COUNT, sizeof(*picked))))
			goto out;
		for (size_t g = 0; g < nglobs; g++) {
			bool any = false;
			for (size_t k = 0; k < M_COUNT; k++) {
				if (rcusim_metrics[k].kind != SIM_M_SCALAR || fnmatch(globs[g], rcusim_metrics[k].name, 0))
					continue;
				any = true;
				bool dup = false;
				for (size_t j = 0; j < npicked; j++)
					dup |= picked[j].id == (enum rcusim_metric_id)k;
				if (!dup)
					picked[npicked++] = (key_metric){ (enum rcusim_metric_id)k, rcusim_metrics[k].name, false };
			}
			if (!any) {
				fprintf(stderr, "rcusim compare: --metric %s: no recorded scalar has that name (rcusim metrics lists them)\n",
					globs[g]);
				goto out;
			}
		}
	}
	if ((status = cli_load_runsel(db_path, &sel, "compare", &db, &rows, &nrows)))
		goto out;
	/* A run named twice is one column. */
	size_t kept = 0;
	for (size_t r = 0; r < nrows; r++) {
		bool seen = false;
		for (size_t q = 0; q < kept && !seen; q++)
			seen = rows[q].run_id == rows[r].run_id;
		if (seen)
			fprintf(stderr, "rcusim compare: run %lld is named twice: one column\n",
				(long long)rows[r].run_id);
		else
			rows[kept++] = rows[r];
	}
	nrows = kept;
	/* Runs that differ only by their seed make one column. */
	ccol *cols = calloc(nrows + 1, sizeof(*cols));
	int64_t *members = calloc(nrows + 1, sizeof(*members));
	char **keys = calloc(nrows + 1, sizeof(*keys));
	rec_run_row *heads = calloc(nrows + 1, sizeof(*heads));
	size_t *colof = NULL; /* each run's column, a repeat's too */
	size_t ncols = 0;
	if (!cols || !members || !keys || !heads) {
		fprintf(stderr, "rcusim compare: out of memory\n");
		status = EXIT_IO;
		goto out_cols;
	}
	for (size_t r = 0; r < nrows; r++)
		if (!(keys[r] = aggregate ? run_key(db, &rows[r]) : NULL) && aggregate) {
			status = EXIT_IO;
			goto out_cols;
		}
	size_t used = 0;
	bool *done = calloc(nrows + 1, sizeof(*done));
	colof = calloc(nrows + 1, sizeof(*colof));
	if (!done || !colof) {
		free(done);
		status = EXIT_IO;
		goto out_cols;
	}
	for (size_t r = 0; r < nrows; r++) {
		if (done[r])
			continue;
		cols[ncols].ids = members + used;
		heads[ncols] = rows[r];
		for (size_t q = r; q < nrows; q++) {
			if (q != r && (!aggregate || done[q] || strcmp(keys[q], keys[r])))
				continue;
			done[q] = true;
			colof[q] = ncols;
			/* The same parameters and the same seed: the same run again
			 * (a rerun, a trace imported twice), one value, not two. */
			size_t twin = nrows;
			for (size_t m = r; m < q && twin == nrows; m++)
				if (!strcmp(keys[m], keys[q]) && rows[m].seed == rows[q].seed)
					twin = m;
			if (twin < nrows) {
				fprintf(stderr, "rcusim compare: run %lld repeats run %lld (the same scenario, policy, "
						"label, parameters and seed %lld): counted once\n",
					(long long)rows[q].run_id, (long long)rows[twin].run_id, (long long)rows[q].seed);
				continue;
			}
			members[used++] = rows[q].run_id;
			cols[ncols].n++;
		}
		ncols++;
	}
	free(done);
	long base = -1;
	if (base_s) {
		/* A repeat left out names its twin's column. */
		for (size_t r = 0; r < nrows; r++)
			if (rows[r].run_id == base_id)
				base = (long)colof[r];
		if (base < 0) {
			fprintf(stderr, "rcusim compare: --base %s: not among the runs compared\n", base_s);
			status = EXIT_USAGE;
			goto out_cols;
		}
	}
	status = compare_table(db, heads, ncols, format, nglobs ? picked : key_metrics,
			       nglobs ? npicked : nkey_metrics, base, cols, stdout);
out_cols:
	free(colof);
	for (size_t r = 0; keys && r < nrows; r++)
		free(keys[r]);
	free(keys);
	free(cols);
	free(members);
	free(heads);
out:
	free(rows);
	cli_runsel_free(&sel);
	free(globs);
	free(picked);
	rec_close(db);
	return status;
}
