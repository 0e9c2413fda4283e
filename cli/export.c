/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * export.c - `rcusim export`: runs' results as tidy rows, one value each
 * (run, label, metric, cpu, time_ns, value): the scalars (no cpu, no
 * time) and the series' points (cpu empty for the machine-wide series),
 * or with --hist the histograms' bins (run, label, metric, lo, hi, count);
 * CSV quoted as RFC 4180 says, or a JSON array of objects.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static const char export_usage[] =
	"usage: rcusim export [--db FILE] [--format csv|json] [--hist | --long] [RUNS]\n"
	"\n"
	"Write runs' results to stdout as tidy rows, one value each: run, label,\n"
	"metric, cpu, time_ns, value. Scalars have no cpu and no time; series points\n"
	"their CPU (empty for the machine-wide series) and time. --hist writes the\n"
	"histograms' bins instead: run, label, metric, lo, hi, count. CSV quoted as\n"
	"RFC 4180 says (default), or --format json: an array of objects.\n"
	"--long writes one row per run instead: run, scenario, policy, seed, label,\n"
	"each parameter whose value differs among the runs, then every scalar some\n"
	"run holds, by name (empty, or null in JSON, where a run has none).\n";

typedef struct exporter {
	FILE *out;
	bool json, hist;
	size_t rows;
} exporter;

/* One row: @cols names, @vals texts (NULL: empty / null), @num which are
 * numbers. */
static void row(exporter *x, const char *const *cols, const char *const *vals, const bool *num, int n)
{
	if (x->json) {
		fputs(x->rows ? ",\n{" : "[\n{", x->out);
		for (int i = 0; i < n; i++) {
			if (i)
				fputc(',', x->out);
			cli_json_str(cols[i], x->out);
			fputc(':', x->out);
			if (!vals[i])
				fputs("null", x->out);
			else if (num[i])
				fputs(vals[i], x->out);
			else
				cli_json_str(vals[i], x->out);
		}
		fputc('}', x->out);
	} else {
		if (!x->rows) {
			for (int i = 0; i < n; i++) {
				if (i)
					fputc(',', x->out);
				fputs(cols[i], x->out);
			}
			fputs("\r\n", x->out);
		}
		for (int i = 0; i < n; i++) {
			if (i)
				fputc(',', x->out);
			if (vals[i])
				cli_csv_field(vals[i], x->out);
		}
		fputs("\r\n", x->out);
	}
	x->rows++;
}

/* What export_value() needs: the exporter and the run. */
typedef struct export_ctx {
	exporter *x;
	const rec_run_row *r;
} export_ctx;

/* The row of one value of a run (rec_each_value()). */
static int export_value(void *ctx, const rec_value *val)
{
	static const char *const cols[] = { "run", "label", "metric", "cpu", "time_ns", "value" };
	static const char *const hcols[] = { "run", "label", "metric", "lo", "hi", "count" };
	static const bool num[] = { true, false, false, true, true, true };
	const export_ctx *c = ctx;
	exporter *x = c->x;
	char id[32], a[64], b[64], v[64];
	snprintf(id, sizeof(id), "%lld", (long long)c->r->run_id);
	const char *vals[6] = { id, c->r->label[0] ? c->r->label : NULL, val->name, NULL, NULL, NULL };
	if (x->hist) {
		snprintf(a, sizeof(a), "%.17g", val->lo);
		snprintf(b, sizeof(b), "%.17g", val->hi);
		snprintf(v, sizeof(v), "%lld", (long long)val->count);
		vals[3] = a;
		vals[4] = b;
		vals[5] = v;
	} else {
		if (val->is_point) {
			snprintf(a, sizeof(a), "%lld", (long long)val->cpu);
			vals[3] = val->cpu >= 0 ? a : NULL; /* -1: the machine-wide series */
			snprintf(b, sizeof(b), "%lld", (long long)val->t_ns);
			vals[4] = b;
		}
		if (val->has_value && isfinite(val->value)) {
			snprintf(v, sizeof(v), "%.17g", val->value);
			vals[5] = v; /* else empty, null in JSON */
		}
	}
	row(x, x->hist ? hcols : cols, vals, num, 6);
	return 0;
}

int cmd_export(int argc, char **argv)
{
	const char *db_path = "rcusim.db", *format = "csv";
	const cli_str strs[] = { { "--db", &db_path }, { "--format", &format }, { NULL, NULL } };
	cli_runsel sel;
	int selrc = cli_runsel_init(&sel, argc);
	exporter x = { .out = stdout };
	bool long_form = false;
	int rc, status = EXIT_USAGE;
	rec_db *db = NULL;
	rec_run_row *rows = NULL;
	size_t nrows = 0;
	if (selrc)
		return EXIT_IO;
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], export_usage)) {
			fputs(cli_runsel_help, stdout);
			status = 0;
			goto out;
		}
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				goto out;
		} else if (!strcmp(argv[i], "--hist")) {
			x.hist = true;
		} else if (!strcmp(argv[i], "--long")) {
			long_form = true;
		} else if ((rc = cli_runsel_arg(argc, argv, &i, &sel, "export"))) {
			if (rc < 0)
				goto out;
		} else {
			fprintf(stderr, "rcusim export: unknown argument %s\n%s%s", argv[i], export_usage,
				cli_runsel_help);
			goto out;
		}
	}
	if (strcmp(format, "csv") && strcmp(format, "json")) {
		fprintf(stderr, "rcusim export: --format: expected csv or json, got \"%s\"\n", format);
		goto out;
	}
	if (long_form && x.hist) {
		fprintf(stderr, "rcusim export: --long and --hist: one or the other\n");
		goto out;
	}
	x.json = !strcmp(format, "json");
	if ((status = cli_load_runsel(db_path, &sel, "export", &db, &rows, &nrows)))
		goto out;
	if (long_form) {
		static const char *const every[] = { "*" }; /* every scalar, in the registry's order */
		if (!(status = cli_compare_long(db, rows, nrows, every, 1, format, stdout)))
			status = fflush(stdout) || ferror(stdout) ? EXIT_IO : 0;
		goto out;
	}
	for (size_t r = 0; r < nrows; r++) {
		export_ctx c = { &x, &rows[r] };
		char err[1024];
		if ((rc = rec_each_value(db, rows[r].run_id, x.hist, export_value, &c, err, sizeof(err)))) {
			fprintf(stderr, "rcusim export: %s\n", err);
			status = cli_exit_status(rc);
			goto out;
		}
	}
	if (x.json)
		fputs(x.rows ? "\n]\n" : "[]\n", stdout);
	else if (!x.rows)
		fputs(x.hist ? "run,label,metric,lo,hi,count\r\n" : "run,label,metric,cpu,time_ns,value\r\n", stdout);
	status = fflush(stdout) || ferror(stdout) ? EXIT_IO : 0;
out:
	free(rows);
	cli_runsel_free(&sel);
	rec_close(db);
	return status;
}
