/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_compare.c - `rcusim compare` (key scalars of runs side by side, in
 * human units, or CSV and Markdown for scripts and reports), `rcusim merge`,
 * and the helpers the subcommands share.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const cli_metric cli_key_metrics[] = {
	{ "cb.enqueued", "callbacks queued", CLI_COUNT },
	{ "cb.pending_end", "callbacks pending at the end", CLI_COUNT },
	{ "cb.qlen_max", "largest queue on one CPU", CLI_COUNT },
	{ "cb.qlen_total_max", "largest queue, all CPUs", CLI_COUNT },
	{ "cb.latency_p50_ns", "callback latency, median", CLI_NS },
	{ "cb.latency_p99_ns", "callback latency, p99", CLI_NS },
	{ "cb.latency_max_ns", "callback latency, max", CLI_NS },
	{ "gp.duration_p99_ns", "grace period, p99", CLI_NS },
	{ "softirq.run_p99_ns", "softirq run, p99", CLI_NS },
	{ "softirq.run_max_ns", "softirq run, max", CLI_NS },
	{ "softirq.ksoftirqd_wakeups", "ksoftirqd wakeups", CLI_COUNT },
	{ "softirq.ksoftirqd_wait_max_ns", "ksoftirqd longest wait", CLI_NS },
	{ "sched.wait_max_ns", "longest runnable wait", CLI_NS },
	{ "ipi.resched_sent", "reschedule IPIs", CLI_COUNT },
	{ "vfs.opens", "files opened", CLI_COUNT },
	{ "vfs.nr_files_max", "nr_files, peak", CLI_COUNT },
	{ "vfs.max_files", "file-max", CLI_COUNT },
	{ "vfs.file_max_reached_ns", "file-max reached at", CLI_WHEN },
	{ "vfs.open_failures", "opens refused at file-max", CLI_COUNT },
	{ "mem.pending_bytes_max", "memory pinned by callbacks, peak", CLI_BYTES },
	{ "slab.pages_max", "filp slab pages, peak", CLI_COUNT },
	{ "slab.fragmentation_max", "slab slots free but pinned, peak", CLI_FRAC },
};
const size_t cli_nkey_metrics = sizeof(cli_key_metrics) / sizeof(cli_key_metrics[0]);

#define W 28 /* width of a run's column in text output */

int cli_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t l = strlen(name);
	if (strncmp(argv[*i], name, l))
		return 0;
	if (argv[*i][l] == '=') {
		*val = argv[*i] + l + 1;
		return 1;
	}
	if (argv[*i][l])
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "rcusim: %s needs a value\n", name);
		return -1;
	}
	*val = argv[++*i];
	return 1;
}

int cli_strs(int argc, char **argv, int *i, const cli_str *opts)
{
	for (; opts->name; opts++) {
		const char *v;
		int rc = cli_opt(argc, argv, i, opts->name, &v);
		if (rc > 0)
			*opts->dst = v;
		if (rc)
			return rc;
	}
	return 0;
}

bool cli_help(const char *arg, const char *usage)
{
	if (strcmp(arg, "--help") && strcmp(arg, "-h"))
		return false;
	fputs(usage, stdout);
	return true;
}

bool cli_run_id(const char *cmd, const char *s, int64_t *id)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*s == 0 || *end || errno || v < 1) {
		fprintf(stderr, "rcusim %s: expected a run id (a positive integer), got \"%s\"\n", cmd, s);
		return false;
	}
	*id = v;
	return true;
}

int cli_db_status(int rc)
{
	return rc == REC_ENORUN ? EXIT_USAGE : EXIT_IO;
}

int cli_open_db(const char *path, bool must_exist, rec_db **db)
{
	char err[1024];
	if (must_exist && access(path, F_OK)) {
		fprintf(stderr, "%s: cannot read: %s\n", path, strerror(errno));
		return EXIT_IO;
	}
	int rc = rec_open(db, path, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return EXIT_IO;
	}
	return 0;
}

int cli_load_runs(const char *db_path, const int64_t *ids, size_t nids, const char *what,
		  rec_db **db, rec_run_row **rows, size_t *nrows)
{
	char err[1024];
	int status = cli_open_db(db_path, true, db);
	if (status)
		return status;
	int rc = rec_select_runs(*db, ids, nids, rows, nrows, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: %s\n", db_path, err);
		return cli_db_status(rc);
	}
	if (!*nrows) {
		fprintf(stderr, "%s: no complete run to %s\n", db_path, what);
		return EXIT_USAGE;
	}
	return 0;
}

void cli_fmt_ns(double ns, char *buf, size_t len)
{
	double a = fabs(ns);
	if (a < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else if (a < 60e9)
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else if (a < 3600e9)
		snprintf(buf, len, "%.3g min", ns / 60e9);
	else
		snprintf(buf, len, "%.3g h", ns / 3600e9);
}

void cli_fmt_bytes(double b, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int k = 0;
	while (fabs(b) >= 1024 && k < 4) {
		b /= 1024;
		k++;
	}
	snprintf(buf, len, k ? "%.3g %s" : "%.0f %s", b, u[k]);
}

void cli_fmt_count(double v, char *buf, size_t len)
{
	if (v != floor(v) || fabs(v) >= 1e18) {
		snprintf(buf, len, "%.6g", v);
		return;
	}
	char digits[32];
	snprintf(digits, sizeof(digits), "%.0f", fabs(v));
	size_t n = strlen(digits), k = 0;
	if (v < 0 && k + 1 < len)
		buf[k++] = '-';
	for (size_t i = 0; i < n && k + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = 0;
}

static void fmt_value(const cli_metric *m, bool present, double v, bool files, char *buf,
		      size_t len)
{
	if (!present) {
		snprintf(buf, len, "%s", m->unit == CLI_WHEN && files ? "never" : "-");
		return;
	}
	switch (m->unit) {
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
	char err[1024], cell[64];
	bool csv = !strcmp(format, "csv"), md = !strcmp(format, "md");
	double *vals = calloc(n * cli_nkey_metrics + 1, sizeof(double));
	bool *has = calloc(n * cli_nkey_metrics + 1, sizeof(bool));
	bool *files = calloc(n + 1, sizeof(bool));
	int status = 0;
	if (!vals || !has || !files) {
		fprintf(stderr, "rcusim: out of memory\n");
		status = EXIT_IO;
		goto out;
	}
	for (size_t r = 0; r < n; r++)
		for (size_t k = 0; k < cli_nkey_metrics; k++) {
			int rc = rec_scalar(db, rows[r].run_id, cli_key_metrics[k].name,
					    &vals[r * cli_nkey_metrics + k], &has[r * cli_nkey_metrics + k],
					    err, sizeof(err));
			if (rc) {
				fprintf(stderr, "%s\n", err);
				status = cli_db_status(rc);
				goto out;
			}
			if (!strcmp(cli_key_metrics[k].name, "vfs.max_files") && has[r * cli_nkey_metrics + k])
				files[r] = true;
		}
	/* Header: one column per run. */
	char head[3][256];
	if (csv) {
		fprintf(out, "metric");
		for (size_t r = 0; r < n; r++)
			fprintf(out, ",run %lld %s%s%s", (long long)rows[r].run_id, rows[r].policy,
				rows[r].label[0] ? " " : "", rows[r].label);
		fprintf(out, "\n");
	} else {
		int w0 = 34;
		const char *sep = md ? " | " : "  ";
		if (md)
			fprintf(out, "| ");
		fprintf(out, "%-*s", md ? 0 : w0, "metric");
		for (size_t r = 0; r < n; r++) {
			snprintf(head[0], sizeof(head[0]), "run %lld: %s", (long long)rows[r].run_id,
				 rows[r].policy);
			fprintf(out, "%s%*s", sep, md ? 0 : W, head[0]);
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
			fprintf(out, "%s%*.*s", sep, md ? 0 : W, W, rows[r].scenario);
		fprintf(out, "%s\n", md ? " |" : "");
		bool labels = false;
		for (size_t r = 0; r < n; r++)
			labels |= rows[r].label[0] != 0;
		if (labels) {
			fprintf(out, md ? "| label" : "%-34s", "label");
			for (size_t r = 0; r < n; r++)
				fprintf(out, "%s%*.*s", sep, md ? 0 : W, W, rows[r].label);
			fprintf(out, "%s\n", md ? " |" : "");
		}
		fprintf(out, md ? "| simulated" : "%-34s", "simulated");
		for (size_t r = 0; r < n; r++) {
			cli_fmt_ns((double)rows[r].sim_end_ns, cell, sizeof(cell));
			if (strcmp(rows[r].status, "complete")) {
				size_t l = strlen(cell);
				snprintf(cell + l, sizeof(cell) - l, " (%s)", rows[r].status);
			}
			fprintf(out, "%s%*s", sep, md ? 0 : W, cell);
		}
		fprintf(out, "%s\n", md ? " |" : "");
	}
	for (size_t k = 0; k < cli_nkey_metrics; k++) {
		const cli_metric *m = &cli_key_metrics[k];
		bool any = false;
		for (size_t r = 0; r < n; r++)
			any |= has[r * cli_nkey_metrics + k] || (m->unit == CLI_WHEN && files[r]);
		if (!any)
			continue;
		if (csv) {
			fprintf(out, "%s", m->name);
			for (size_t r = 0; r < n; r++) {
				if (has[r * cli_nkey_metrics + k])
					fprintf(out, ",%.17g", vals[r * cli_nkey_metrics + k]);
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
			fmt_value(m, has[r * cli_nkey_metrics + k], vals[r * cli_nkey_metrics + k], files[r],
				  cell, sizeof(cell));
			fprintf(out, "%s%*s", md ? " | " : "  ", md ? 0 : W, cell);
		}
		fprintf(out, "%s\n", md ? " |" : "");
	}
out:
	free(vals);
	free(has);
	free(files);
	return status;
}

static const char compare_usage[] =
	"usage: rcusim compare [--db FILE] [--format text|csv|md] [RUN_ID...]\n"
	"\n"
	"The key scalars of several runs side by side (default: the latest complete\n"
	"run of each policy). Text and Markdown in human units; CSV in ns and bytes.\n";

int cmd_compare(int argc, char **argv)
{
	const char *db_path = "rcusim.db", *format = "text";
	const cli_str strs[] = { { "--db", &db_path }, { "--format", &format }, { NULL, NULL } };
	int64_t *ids = calloc((size_t)argc + 1, sizeof(*ids));
	size_t nids = 0;
	int rc, status = EXIT_USAGE;
	rec_db *db = NULL;
	rec_run_row *rows = NULL;
	size_t nrows = 0;
	if (!ids)
		return EXIT_IO;
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], compare_usage)) {
			status = 0;
			goto out;
		}
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				goto out;
			continue;
		}
		if (argv[i][0] == '-' || !cli_run_id("compare", argv[i], &ids[nids])) {
			if (argv[i][0] == '-')
				fprintf(stderr, "rcusim compare: unknown option %s\n%s", argv[i], compare_usage);
			goto out;
		}
		nids++;
	}
	if (strcmp(format, "text") && strcmp(format, "csv") && strcmp(format, "md")) {
		fprintf(stderr, "rcusim compare: --format: expected text, csv or md, got \"%s\"\n", format);
		goto out;
	}
	if ((status = cli_load_runs(db_path, ids, nids, "compare", &db, &rows, &nrows)))
		goto out;
	status = cli_compare_print(db, rows, nrows, format, stdout);
out:
	free(rows);
	free(ids);
	rec_close(db);
	return status;
}

static const char merge_usage[] =
	"usage: rcusim merge OUT.db IN.db...\n"
	"\n"
	"Copy every run of each IN.db into OUT.db (created if absent) under new run\n"
	"ids, with its parameters, scalars, series and histograms. A run already in\n"
	"OUT.db (same scenario, policy, seed, label, start time to the microsecond,\n"
	"host, version, wall time and events) is skipped: merging twice adds nothing.\n";

int cmd_merge(int argc, char **argv)
{
	if (argc >= 2 && cli_help(argv[1], merge_usage))
		return 0;
	if (argc < 3) {
		fprintf(stderr, "rcusim merge: expected OUT.db and at least one IN.db\n%s", merge_usage);
		return EXIT_USAGE;
	}
	rec_db *db;
	int status = cli_open_db(argv[1], false, &db);
	if (status)
		return status;
	char err[1024];
	for (int i = 2; i < argc && !status; i++) {
		if (access(argv[i], R_OK)) {
			fprintf(stderr, "%s: cannot read: %s\n", argv[i], strerror(errno));
			status = EXIT_IO;
			break;
		}
		int64_t added, skipped;
		int rc = rec_merge(db, argv[i], &added, &skipped, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "%s: %s\n", argv[i], err);
			status = EXIT_IO;
		} else {
			printf("%s: %lld runs added, %lld already present\n", argv[i], (long long)added,
			       (long long)skipped);
		}
	}
	rec_close(db);
	return status;
}
