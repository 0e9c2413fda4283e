/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * compare.c - `rcusim compare`: the key scalars of runs side by side, in
 * human units, or CSV and Markdown for scripts and reports; and the
 * tables that sweep and export print too (cli_compare_groups(),
 * cli_compare_long()). Which scalars, in which order and under which
 * label, is key_metrics[] below; their names
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
	const char *name;         /* as recorded when not the registry's: a named load's
				   * ("syncrcu.callers.latency_p50_ns", defined as
				   * "syncrcu.latency_p50_ns"); NULL: rcusim_metrics[id].name */
} key_metric;

/* The name @m is recorded under. */
static const char *km_name(const key_metric *m)
{
	return m->name ? m->name : rcusim_metrics[m->id].name;
}

/* In display order: the workload's own results first (those of a run that
 * has them: synchronize_rcu() callers, kfree_rcu(), expedited grace
 * periods), then the machine's. A row no run holds is left out. */
static const key_metric key_metrics[] = {
	{ M_SYNCRCU_CALLS, "synchronize_rcu() calls", false, NULL },
	{ M_SYNCRCU_LATENCY_P50_NS, "synchronize_rcu() latency, median", false, NULL },
	{ M_SYNCRCU_LATENCY_P99_NS, "synchronize_rcu() latency, p99", false, NULL },
	{ M_SYNCRCU_LATENCY_MAX_NS, "synchronize_rcu() latency, max", false, NULL },
	{ M_SYNCRCU_WAIT_GP_START_P50_NS, "syncrcu: to GP start, median", false, NULL },
	{ M_SYNCRCU_WAIT_GP_START_P99_NS, "syncrcu: to GP start, p99", false, NULL },
	{ M_SYNCRCU_GP_P50_NS, "syncrcu: its GP, median", false, NULL },
	{ M_SYNCRCU_GP_P99_NS, "syncrcu: its GP, p99", false, NULL },
	{ M_SYNCRCU_WAKE_P50_NS, "syncrcu: GP end to wakeup, median", false, NULL },
	{ M_SYNCRCU_WAKE_P99_NS, "syncrcu: GP end to wakeup, p99", false, NULL },
	{ M_SYNCRCU_WOKEN_BY_GP_KTHREAD, "synchronize_rcu() woken by GP kthread", false, NULL },
	{ M_EXP_GPS, "expedited grace periods", false, NULL },
	{ M_EXP_DURATION_P99_NS, "expedited grace period, p99", false, NULL },
	{ M_EXP_DURATION_MAX_NS, "expedited grace period, max", false, NULL },
	{ M_EXP_IPIS, "expedited IPIs", false, NULL },
	{ M_KFREE_OBJECTS, "kfree_rcu() objects", false, NULL },
	{ M_KFREE_LATENCY_MEAN_NS, "kfree_rcu() latency, mean", false, NULL },
	{ M_KFREE_LATENCY_MAX_NS, "kfree_rcu() latency, max", false, NULL },
	{ M_KFREE_PENDING_MAX, "kfree_rcu() objects pending, peak", false, NULL },
	{ M_KFREE_SYNC_FALLBACKS, "kfree_rcu() synchronous fallbacks", false, NULL },
	{ M_CB_ENQUEUED, "callbacks queued", false, NULL },
	{ M_CB_PENDING_END, "callbacks pending at the end", false, NULL },
	{ M_CB_QLEN_MAX, "largest queue on one CPU", false, NULL },
	{ M_CB_QLEN_TOTAL_MAX, "largest queue, all CPUs", false, NULL },
	{ M_CB_LATENCY_P50_NS, "callback latency, median", false, NULL },
	{ M_CB_LATENCY_P99_NS, "callback latency, p99", false, NULL },
	{ M_CB_LATENCY_MAX_NS, "callback latency, max", false, NULL },
	{ M_GP_DURATION_P99_NS, "grace period, p99", false, NULL },
	{ M_SOFTIRQ_RUN_P99_NS, "softirq run, p99", false, NULL },
	{ M_SOFTIRQ_RUN_MAX_NS, "softirq run, max", false, NULL },
	{ M_SOFTIRQ_RUNS_ENDED_EMPTY, "softirq runs ended: none pending", false, NULL },
	{ M_SOFTIRQ_RUNS_ENDED_RESTART_LIMIT, "softirq runs ended: restart limit", false, NULL },
	{ M_SOFTIRQ_RUNS_ENDED_TIME_BUDGET, "softirq runs ended: time budget", false, NULL },
	{ M_SOFTIRQ_RUNS_ENDED_NEED_RESCHED, "softirq runs ended: need_resched", false, NULL },
	{ M_RCU_BATCHES_ENDED_EMPTY, "rcu_do_batch ended: all invoked", false, NULL },
	{ M_RCU_BATCHES_ENDED_COUNT, "rcu_do_batch ended: batch limit", false, NULL },
	{ M_RCU_BATCHES_ENDED_NEED_RESCHED, "rcu_do_batch ended: need_resched", false, NULL },
	{ M_RCU_BATCHES_ENDED_TIME, "rcu_do_batch ended: time limit", false, NULL },
	{ M_SOFTIRQ_PASSES_KSOFTIRQD, "RCU softirq passes in ksoftirqd", false, NULL },
	{ M_SOFTIRQ_PASSES_IRQ_EXIT, "RCU softirq passes at irq exit", false, NULL },
	{ M_SOFTIRQ_RUNS_IRQ_EXIT, "softirq runs at irq exit", false, NULL },
	{ M_SOFTIRQ_IRQ_RUN_P99_NS, "softirq run at irq exit, p99", false, NULL },
	{ M_SCHED_CTXSW, "context switches", false, NULL },
	{ M_GP_KTHREAD_WAKEUPS, "GP kthread wakeups", false, NULL },
	{ M_SOFTIRQ_KSOFTIRQD_WAKEUPS, "ksoftirqd wakeups", false, NULL },
	{ M_SOFTIRQ_KSOFTIRQD_WAIT_MAX_NS, "ksoftirqd longest wait", false, NULL },
	{ M_SCHED_WAIT_MAX_NS, "longest runnable wait", false, NULL },
	{ M_IPI_RESCHED_SENT, "reschedule IPIs", false, NULL },
	{ M_GP_QS_WAIT_MAX_NS, "grace period's QS wait, max", false, NULL },
	{ M_GP_KTHREAD_WAIT_MAX_NS, "GP kthread's longest wait", false, NULL },
	{ M_FQS_SCANS, "FQS scans", false, NULL },
	{ M_FQS_RESCHED_CPU, "resched_cpu() by FQS", false, NULL },
	{ M_RCU_STALL_WARNINGS, "RCU stall warnings", false, NULL },
	{ M_RCUC_RUN_MAX_NS, "rcuc run, max", false, NULL },
	{ M_VFS_OPENS, "files opened", false, NULL },
	{ M_VFS_NR_FILES_MAX, "nr_files, peak", false, NULL },
	{ M_VFS_MAX_FILES, "file-max", false, NULL },
	{ M_VFS_FILE_MAX_REACHED_NS, "file-max reached at", true, NULL },
	{ M_VFS_FILE_MAX_LAST_NS, "last open refused at", true, NULL },
	{ M_VFS_OPEN_FAILURES, "opens refused at file-max", false, NULL },
	{ M_MEM_PENDING_BYTES_MAX, "memory pinned by callbacks, peak", false, NULL },
	{ M_SLAB_PAGES_MAX, "filp slab pages, peak", false, NULL },
	{ M_SLAB_FRAGMENTATION_MAX, "slab slots free but pinned, peak", false, NULL },
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
	const char *head;       /* its heading, or NULL: "runs IDS: policy" */
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

/* The text of a cell: @m's value @v (or "-"), "± @hw" when @nv > 1 values
 * made it a mean, and with @b (@hb) its ratio to the base's. */
static void cell_text(const key_metric *m, bool has, double v, bool files, size_t nv, double hw, bool hb,
		      double b, char *cell, size_t len)
{
	if (has && nv > 1 && key_unit(m) == CLI_COUNT) {
		cli_fmt_count_pm(v, hw, cell, len);
	} else {
		fmt_value(m, has, v, files, cell, len);
		size_t l = strlen(cell);
		if (has && nv > 1 && l + 4 < len) {
			snprintf(cell + l, len - l, " \u00b1 ");
			l = strlen(cell);
			if (hw == 0)
				snprintf(cell + l, len - l, "0");
			else
				fmt_value(m, true, hw, files, cell + l, len - l);
		}
	}
	size_t l = strlen(cell);
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

/* The heading of column @r, as the table's first row shows it, into @buf. */
static void col_name(const rec_run_row *rows, const ccol *cols, size_t r, char *buf, size_t len)
{
	if (cols && cols[r].head)
		snprintf(buf, len, "%s", cols[r].head);
	else if (rows[r].label[0])
		snprintf(buf, len, "run %lld (%s)", (long long)rows[r].run_id, rows[r].label);
	else
		snprintf(buf, len, "run %lld", (long long)rows[r].run_id);
}

/* Below the table: which columns hold the same values in every row shown
 * (@has, @vals, @hw: @n columns of @nk metrics), so that a reader sees at
 * once that a change changed nothing; all of them, "all identical". */
static void identical_note(const rec_run_row *rows, size_t n, size_t nk, const bool *has, const double *vals,
			   const double *hw, const ccol *cols, bool md, FILE *out)
{
	if (n < 2 || !nk)
		return;
	size_t *group = calloc(n, sizeof(*group));
	if (!group)
		return;
	size_t ngroups = 0, biggest = 0;
	for (size_t r = 0; r < n; r++) {
		group[r] = n;
		for (size_t q = 0; q < r && group[r] == n; q++) {
			bool same = true;
			for (size_t k = 0; k < nk && same; k++) {
				size_t a = q * nk + k, b = r * nk + k;
				same = has[a] == has[b] && (!has[a] || (vals[a] == vals[b] && hw[a] == hw[b]));
			}
			if (same)
				group[r] = group[q];
		}
		if (group[r] == n)
			group[r] = ngroups++;
	}
	for (size_t g = 0; g < ngroups; g++) {
		size_t members = 0;
		for (size_t r = 0; r < n; r++)
			members += group[r] == g;
		if (members > biggest)
			biggest = members;
	}
	if (biggest == n) {
		fprintf(out, "\nAll %zu columns are identical in every row shown.\n", n);
	} else if (biggest > 1) {
		fputc('\n', out);
		for (size_t g = 0; g < ngroups; g++) {
			size_t members = 0;
			for (size_t r = 0; r < n; r++)
				members += group[r] == g;
			if (members < 2)
				continue;
			fprintf(out, "%sidentical in every row shown:", md ? "- " : "");
			bool first = true;
			for (size_t r = 0; r < n; r++) {
				char name[2 * REC_LABEL_MAX + 64];
				if (group[r] != g)
					continue;
				col_name(rows, cols, r, name, sizeof(name));
				fprintf(out, "%s %s", first ? "" : ",", name);
				first = false;
			}
			fputc('\n', out);
		}
	}
	free(group);
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
						    km_name(&metrics[k]), &v, &present, err, sizeof(err));
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
			if (!strcmp(km_name(&metrics[k]), "vfs.max_files") && has[i])
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
			if (cols && cols[r].head)
				fprintf(f, " %s", cols[r].head);
			else
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
			if (cols && cols[r].head) {
				snprintf(head[0], sizeof(head[0]), "%s", cols[r].head);
			} else if (cols && cols[r].n > 1) {
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
		/* Columns headed by what was varied: their runs' ids. */
		bool named = false;
		for (size_t r = 0; cols && r < n; r++)
			named |= cols[r].head != NULL;
		if (named) {
			fprintf(out, md ? "| runs" : "%-34s", "runs");
			for (size_t r = 0; r < n; r++) {
				size_t l = 0;
				cell[0] = 0;
				for (size_t j = 0; j < cols[r].n && l < sizeof(cell); j++)
					l += (size_t)snprintf(cell + l, sizeof(cell) - l, "%s%lld", j ? "," : "",
							      (long long)cols[r].ids[j]);
				text_cell(out, md, sep, width[r], cell);
			}
			fprintf(out, "%s\n", md ? " |" : "");
		}
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
			fprintf(out, "%s", km_name(m));
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
	if (!csv)
		identical_note(rows, n, nk, has, vals, hw, cols, md, out);
out:
	free(vals);
	free(hw);
	free(nv);
	free(has);
	free(files);
	free(width);
	return status;
}

/* @names (@nnames of them, each a registry scalar or a glob) as the rows of
 * a table, into *@out (malloc'd, *@nout of them): every scalar a name or
 * glob matches, each once, in the order named; @cmd for the message when
 * one matches none. 0, EXIT_USAGE or EXIT_IO (message printed). */
static int pick_metrics(const char *cmd, const char *const *names, size_t nnames, key_metric **out, size_t *nout)
{
	key_metric *picked = calloc(M_COUNT, sizeof(*picked));
	size_t npicked = 0;
	if (!picked) {
		fprintf(stderr, "rcusim %s: out of memory\n", cmd);
		return EXIT_IO;
	}
	for (size_t g = 0; g < nnames; g++) {
		bool any = false;
		for (size_t k = 0; k < M_COUNT; k++) {
			if (rcusim_metrics[k].kind != SIM_M_SCALAR || fnmatch(names[g], rcusim_metrics[k].name, 0))
				continue;
			any = true;
			bool dup = false;
			for (size_t j = 0; j < npicked; j++)
				dup |= picked[j].id == (enum rcusim_metric_id)k;
			if (!dup)
				picked[npicked++] = (key_metric){ (enum rcusim_metric_id)k, rcusim_metrics[k].name, false, NULL };
		}
		/* A named load's metric (workload.NAME sections), by its whole name. */
		const sim_metric_def *d;
		if (!any && !strpbrk(names[g], "*?[") &&
		    (d = sim_metric_find(rcusim_metrics, M_COUNT, names[g], SIM_M_SCALAR)) && npicked < M_COUNT) {
			any = true;
			picked[npicked++] = (key_metric){ (enum rcusim_metric_id)(d - rcusim_metrics), names[g], false,
							  names[g] };
		}
		if (!any) {
			fprintf(stderr, "rcusim %s: --metric %s: no recorded scalar has that name (rcusim metrics lists them)\n",
				cmd, names[g]);
			free(picked);
			return EXIT_USAGE;
		}
	}
	*out = picked;
	*nout = npicked;
	return 0;
}

/* A cell of the long form: @text on @out as @format wants it (@num: a
 * number, bare in JSON; NULL: empty, null in JSON). */
static void long_cell(const char *format, bool first, int width, bool num, const char *text, FILE *out)
{
	if (!strcmp(format, "csv")) {
		if (!first)
			fputc(',', out);
		if (text)
			cli_csv_field(text, out);
	} else if (!strcmp(format, "md")) {
		fputs(first ? "| " : " | ", out);
		cli_md_cell(text ? text : "", out);
	} else {
		/* Numbers right-aligned, text left. */
		fprintf(out, "%s%*s", first ? "" : "  ", num ? width : -width, text ? text : "-");
	}
}

/* *@dst = a copy of @s (NULL stays NULL): false when out of memory. */
static bool set_cell(char **dst, const char *s)
{
	*dst = s ? strdup(s) : NULL;
	return !s || *dst;
}

int cli_compare_long(rec_db *db, const rec_run_row *rows, size_t n, const char *const *metrics, size_t nmetrics,
		     const char *format, FILE *out)
{
	char err[1024];
	bool json = !strcmp(format, "json"), text = !json && strcmp(format, "csv"); /* text: human units */
	int status = EXIT_IO;
	key_metric *km = NULL;
	size_t nk = 0;
	rec_param_row **ps = calloc(n + 1, sizeof(*ps));
	size_t *nps = calloc(n + 1, sizeof(*nps));
	const char **varied = NULL;
	size_t nvaried = 0;
	char ***cells = NULL; /* [run][column] */
	size_t ncols = 0;
	int *width = NULL;
	if (!ps || !nps)
		goto nomem;
	if (metrics) {
		if ((status = pick_metrics("compare", metrics, nmetrics, &km, &nk)))
			goto out;
		status = EXIT_IO;
	} else {
		km = malloc(sizeof(key_metrics));
		if (!km)
			goto nomem;
		memcpy(km, key_metrics, sizeof(key_metrics));
		nk = nkey_metrics;
	}
	/* The varied parameters: each name whose value is not the same in
	 * every run (absent counts as a value); the seed has its own column. */
	for (size_t r = 0; r < n; r++) {
		int rc = rec_run_params(db, rows[r].run_id, &ps[r], &nps[r], err, sizeof(err));
		if (rc) {
			fprintf(stderr, "rcusim: %s\n", err);
			status = cli_exit_status(rc);
			goto out;
		}
	}
	size_t cap = 0;
	for (size_t r = 0; r < n; r++)
		for (size_t i = 0; i < nps[r]; i++) {
			const char *name = ps[r][i].name, *v0 = NULL;
			bool differs = false, seen = false;
			if (!strcmp(name, "scenario.seed"))
				continue;
			for (size_t j = 0; j < nvaried && !seen; j++)
				seen = !strcmp(varied[j], name);
			for (size_t q = 0; q < n && !seen && !differs; q++) {
				const char *v = NULL;
				for (size_t k = 0; k < nps[q] && !v; k++)
					if (!strcmp(ps[q][k].name, name))
						v = ps[q][k].value;
				if (q == 0)
					v0 = v;
				differs = !v || !v0 || strcmp(v, v0);
			}
			if (seen || !differs)
				continue;
			if (nvaried == cap) {
				cap = cap ? 2 * cap : 16;
				const char **nv = realloc(varied, cap * sizeof(*nv));
				if (!nv)
					goto nomem;
				varied = nv;
			}
			varied[nvaried++] = name;
		}
	/* The metrics some run holds. */
	bool *shown = calloc(nk + 1, sizeof(*shown));
	double *vals = calloc(n * nk + 1, sizeof(*vals));
	bool *has = calloc(n * nk + 1, sizeof(*has));
	if (!shown || !vals || !has) {
		free(shown);
		free(vals);
		free(has);
		goto nomem;
	}
	for (size_t r = 0; r < n; r++)
		for (size_t k = 0; k < nk; k++) {
			int rc = rec_scalar(db, rows[r].run_id, km_name(&km[k]), &vals[r * nk + k],
					    &has[r * nk + k], err, sizeof(err));
			if (rc) {
				fprintf(stderr, "rcusim: %s\n", err);
				free(shown);
				free(vals);
				free(has);
				status = cli_exit_status(rc);
				goto out;
			}
			shown[k] |= has[r * nk + k];
		}
	/* The cells, header first: run, scenario, policy, seed, label, the
	 * varied parameters, the metrics. */
	ncols = 5 + nvaried;
	for (size_t k = 0; k < nk; k++)
		ncols += shown[k];
	cells = calloc(n + 1, sizeof(*cells));
	width = calloc(ncols + 1, sizeof(*width));
	bool *num = calloc(ncols + 1, sizeof(*num));
	bool ok = cells && width && num;
	for (size_t r = 0; ok && r <= n; r++)
		ok = (cells[r] = calloc(ncols, sizeof(**cells))) != NULL;
	for (size_t r = 0; ok && r <= n; r++) {
		const rec_run_row *x = r ? &rows[r - 1] : NULL;
		char buf[160];
		size_t c = 0;
		bool files = false;
		for (size_t k = 0; x && k < nk; k++)
			files |= has[(r - 1) * nk + k] && km[k].id == M_VFS_MAX_FILES;
#define CELL(s) (ok = ok && set_cell(&cells[r][c], (s)), c++)
		snprintf(buf, sizeof(buf), "%lld", x ? (long long)x->run_id : 0LL);
		num[c] = true;
		CELL(x ? buf : "run");
		CELL(x ? x->scenario : "scenario");
		CELL(x ? x->policy : "policy");
		snprintf(buf, sizeof(buf), "%lld", x ? (long long)x->seed : 0LL);
		num[c] = true;
		CELL(x ? buf : "seed");
		CELL(x ? (x->label[0] ? x->label : NULL) : "label");
		for (size_t v = 0; v < nvaried; v++) {
			const char *val = NULL;
			for (size_t k = 0; x && k < nps[r - 1] && !val; k++)
				if (!strcmp(ps[r - 1][k].name, varied[v]))
					val = ps[r - 1][k].value;
			CELL(x ? val : varied[v]);
		}
		for (size_t k = 0; k < nk; k++) {
			if (!shown[k])
				continue;
			size_t i = x ? (r - 1) * nk + k : 0;
			num[c] = true;
			if (!x) {
				CELL(km_name(&km[k]));
			} else if (!has[i] && !(key_unit(&km[k]) == CLI_WHEN && files && text)) {
				CELL((const char *)NULL);
			} else {
				if (text)
					fmt_value(&km[k], has[i], vals[i], files, buf, sizeof(buf));
				else
					snprintf(buf, sizeof(buf), "%.17g", vals[i]);
				CELL(buf);
			}
		}
#undef CELL
	}
	free(shown);
	free(vals);
	free(has);
	if (!ok) {
		free(num);
		goto nomem;
	}
	for (size_t r = 0; r <= n; r++)
		for (size_t c = 0; c < ncols; c++) {
			int l = cells[r][c] ? (int)strlen(cells[r][c]) : 1;
			if (l > width[c])
				width[c] = l;
		}
	if (json) {
		fputs(n ? "[\n" : "[]\n", out);
		for (size_t r = 1; r <= n; r++) {
			fputc('{', out);
			for (size_t c = 0; c < ncols; c++) {
				if (c)
					fputc(',', out);
				cli_json_str(cells[0][c], out);
				fputc(':', out);
				if (!cells[r][c])
					fputs("null", out);
				else if (num[c])
					fputs(cells[r][c], out);
				else
					cli_json_str(cells[r][c], out);
			}
			fputs(r < n ? "},\n" : "}\n]\n", out);
		}
	} else {
		bool md = !strcmp(format, "md");
		for (size_t r = 0; r <= n; r++) {
			for (size_t c = 0; c < ncols; c++)
				long_cell(format, c == 0, c + 1 == ncols && !num[c] ? 0 : width[c], num[c] && r > 0, cells[r][c], out);
			fputs(md ? " |\n" : !strcmp(format, "csv") ? "\r\n" : "\n", out);
			if (md && r == 0) {
				for (size_t c = 0; c < ncols; c++)
					fputs(c ? (num[c] ? " | ---:" : " | ---") : "| ---:", out);
				fputs(" |\n", out);
			}
		}
	}
	free(num);
	status = 0;
	goto out;
nomem:
	fprintf(stderr, "rcusim: out of memory\n");
	status = EXIT_IO;
out:
	for (size_t r = 0; cells && r <= n; r++) {
		for (size_t c = 0; cells[r] && c < ncols; c++)
			free(cells[r][c]);
		free(cells[r]);
	}
	free(cells);
	free(width);
	for (size_t r = 0; ps && r < n; r++)
		rec_param_rows_free(ps[r], nps[r]);
	free(ps);
	free(nps);
	free(varied);
	free(km);
	return status;
}

int cli_compare_groups(rec_db *db, const rec_run_row *rows, size_t n, const char *const *heads,
		       const char *const *metrics, size_t nmetrics, FILE *out)
{
	key_metric *km = NULL;
	size_t nk = nkey_metrics;
	int status = 0;
	if (metrics && (status = pick_metrics("sweep", metrics, nmetrics, &km, &nk)))
		return status;
	ccol *cols = calloc(n + 1, sizeof(*cols));
	int64_t *members = calloc(n + 1, sizeof(*members));
	rec_run_row *first = calloc(n + 1, sizeof(*first));
	bool *done = calloc(n + 1, sizeof(*done));
	size_t ncols = 0, used = 0;
	if (!cols || !members || !first || !done) {
		fprintf(stderr, "rcusim: out of memory\n");
		status = EXIT_IO;
		goto out;
	}
	/* A column per heading, in the order the headings first come; the
	 * label row would show one seed's label: left out. */
	for (size_t r = 0; r < n; r++) {
		if (done[r])
			continue;
		cols[ncols] = (ccol){ members + used, 0, heads[r] };
		first[ncols] = rows[r];
		first[ncols].label[0] = 0;
		for (size_t q = r; q < n; q++)
			if (!done[q] && !strcmp(heads[q], heads[r])) {
				done[q] = true;
				members[used++] = rows[q].run_id;
				cols[ncols].n++;
			}
		ncols++;
	}
	status = compare_table(db, first, ncols, "text", km ? km : key_metrics, nk, -1, cols, out);
out:
	free(cols);
	free(members);
	free(first);
	free(done);
	free(km);
	return status;
}

static const char compare_usage[] =
	"usage: rcusim compare [--db FILE] [--format text|csv|md] [--metric NAME|GLOB]...\n"
	"                      [--base RUN_ID] [--each] [--long] [RUNS]\n"
	"\n"
	"The key scalars of several runs side by side (default: the latest complete\n"
	"run of each policy, said above the table with the runs that share a policy\n"
	"and were left out): the workload's own results first (synchronize_rcu(),\n"
	"kfree_rcu(), expedited grace periods, where a run has them), then the\n"
	"machine's. Text and Markdown in human units; CSV in ns and bytes.\n"
	"Runs that differ only by their seed make one column: the mean, its 95%\n"
	"interval (Student's t) and n, the number of seeds; a run that repeats\n"
	"another (the same seed too) is counted once, a run named twice is one\n"
	"column, both said on stderr; --each shows every run on its own. Columns\n"
	"identical in every row are said below the table.\n"
	"  --long              one row per run instead: run, scenario, policy, seed,\n"
	"                      label, each parameter whose value differs among the\n"
	"                      runs, then the metrics (by name; CSV and Markdown too)\n"
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
	/* A sweep's label ends in its run's seed: the rest is what it varied. */
	size_t ll = strlen(r->label);
	const char *seed = strstr(r->label, " seed=");
	if (!strncmp(r->label, "sweep ", 6) && seed && strspn(seed + 6, "0123456789") == strlen(seed + 6) &&
	    seed[6])
		ll = (size_t)(seed - r->label);
	fprintf(f, "%s\n%s\n%.*s\n%s\n", r->scenario, r->policy, (int)ll, r->label, r->status);
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

/* Above the table, when compare chose its runs (@rows, the latest complete
 * run of each policy): which they are and which complete runs share a
 * policy with them and were left out, on @out. 0 or an exit status. */
static int default_note(rec_db *db, const rec_run_row *rows, size_t n, FILE *out)
{
	rec_run_row *all = NULL;
	size_t nall = 0, left = 0;
	char err[1024];
	int rc = rec_list_runs(db, &all, &nall, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "rcusim compare: %s\n", err);
		return cli_exit_status(rc);
	}
	fprintf(out, "Runs");
	for (size_t r = 0; r < n; r++)
		fprintf(out, "%s %lld", r ? "," : "", (long long)rows[r].run_id);
	fprintf(out, ": the latest complete run of each policy.");
	for (size_t a = 0; a < nall; a++) {
		bool chosen = false, shares = false;
		for (size_t r = 0; r < n; r++) {
			chosen |= rows[r].run_id == all[a].run_id;
			shares |= !strcmp(rows[r].policy, all[a].policy);
		}
		if (chosen || !shares || strcmp(all[a].status, "complete"))
			continue;
		fprintf(out, "%s %lld", left ? "," : " Left out, sharing a policy with them: runs", (long long)all[a].run_id);
		left++;
	}
	if (left)
		fprintf(out, " (name runs, a range A-B or --last N to compare them)");
	fprintf(out, "\n\n");
	free(all);
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	const char *db_path = "rcusim.db", *format = "text", *base_s = NULL, *mv;
	const cli_str strs[] = { { "--db", &db_path }, { "--format", &format }, { "--base", &base_s },
				 { NULL, NULL } };
	const char **globs = calloc((size_t)argc + 1, sizeof(*globs));
	size_t nglobs = 0;
	bool aggregate = true, long_form = false;
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
		if (!strcmp(argv[i], "--long")) {
			long_form = true;
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
	if (nglobs && (status = pick_metrics("compare", globs, nglobs, &picked, &npicked)))
		goto out;
	status = EXIT_USAGE;
	if (long_form && (base_s || !aggregate)) {
		fprintf(stderr, "rcusim compare: --long shows every run on its own row: not with %s\n",
			base_s ? "--base" : "--each");
		goto out;
	}
	if ((status = cli_load_runsel(db_path, &sel, "compare", &db, &rows, &nrows)))
		goto out;
	if (!sel.n && !sel.label && !sel.scenario && !sel.last && strcmp(format, "csv") &&
	    (status = default_note(db, rows, nrows, stdout)))
		goto out;
	if (long_form) {
		status = cli_compare_long(db, rows, nrows, nglobs ? globs : NULL, nglobs, format, stdout);
		goto out;
	}
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
		/* A sweep's seeds pooled: its label without the seed. */
		char *seed = strstr(heads[ncols].label, " seed=");
		if (cols[ncols].n > 1 && !strncmp(heads[ncols].label, "sweep ", 6) && seed)
			*seed = 0;
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
