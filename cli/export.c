/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * export.c - `rcusim export`: runs' results as tidy rows, one value each
 * (run, label, metric, cpu, time_ns, value): the scalars (no cpu, no
 * time) and the series' points (cpu empty for the machine-wide series),
 * or with --hist the histograms' bins (run, label, metric, lo, hi, count);
 * CSV quoted as RFC 4180 says, or a JSON array of objects.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static const char export_usage[] =
	"usage: rcusim export [--db FILE] [--format csv|json] [--hist] [RUNS]\n"
	"\n"
	"Write runs' results to stdout as tidy rows, one value each: run, label,\n"
	"metric, cpu, time_ns, value. Scalars have no cpu and no time; series points\n"
	"their CPU (empty for the machine-wide series) and time. --hist writes the\n"
	"histograms' bins instead: run, label, metric, lo, hi, count. CSV quoted as\n"
	"RFC 4180 says (default), or --format json: an array of objects.\n";

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

/* The rows of run @r. 0 or an SQLite error code. */
static int export_run(exporter *x, sqlite3 *db, const rec_run_row *r)
{
	static const char *const cols[] = { "run", "label", "metric", "cpu", "time_ns", "value" };
	static const char *const hcols[] = { "run", "label", "metric", "lo", "hi", "count" };
	static const bool num[] = { true, false, false, true, true, true };
	const char *sql = x->hist ? "SELECT name, lo, hi, count FROM hist WHERE run_id = ?1 ORDER BY name, lo"
				  : "SELECT name, NULL, NULL, value FROM scalar WHERE run_id = ?1 "
				    "UNION ALL SELECT * FROM (SELECT s.name, s.cpu, p.t_ns, p.value FROM series s "
				    "JOIN point p USING (series_id) WHERE s.run_id = ?1 ORDER BY s.name, s.cpu, p.t_ns)";
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, r->run_id);
	char id[32], a[64], b[64], v[64];
	snprintf(id, sizeof(id), "%lld", (long long)r->run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *vals[6] = { id, r->label[0] ? r->label : NULL, (const char *)sqlite3_column_text(st, 0),
					NULL, NULL, NULL };
		if (x->hist) {
			snprintf(a, sizeof(a), "%.17g", sqlite3_column_double(st, 1));
			snprintf(b, sizeof(b), "%.17g", sqlite3_column_double(st, 2));
			snprintf(v, sizeof(v), "%lld", (long long)sqlite3_column_int64(st, 3));
			vals[3] = a;
			vals[4] = b;
			vals[5] = v;
		} else {
			if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
				long long cpu = sqlite3_column_int64(st, 1);
				snprintf(a, sizeof(a), "%lld", cpu);
				vals[3] = cpu >= 0 ? a : NULL; /* -1: the machine-wide series */
				snprintf(b, sizeof(b), "%lld", (long long)sqlite3_column_int64(st, 2));
				vals[4] = b;
			}
			if (sqlite3_column_type(st, 3) != SQLITE_NULL && isfinite(sqlite3_column_double(st, 3))) {
				snprintf(v, sizeof(v), "%.17g", sqlite3_column_double(st, 3));
				vals[5] = v; /* else empty, null in JSON */
			}
		}
		row(x, x->hist ? hcols : cols, vals, num, 6);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : rc;
}

int cmd_export(int argc, char **argv)
{
	const char *db_path = "rcusim.db", *format = "csv";
	const cli_str strs[] = { { "--db", &db_path }, { "--format", &format }, { NULL, NULL } };
	cli_runsel sel;
	int selrc = cli_runsel_init(&sel, argc);
	exporter x = { .out = stdout };
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
	x.json = !strcmp(format, "json");
	if ((status = cli_load_runsel(db_path, &sel, "export", &db, &rows, &nrows)))
		goto out;
	for (size_t r = 0; r < nrows; r++)
		if ((rc = export_run(&x, rec_handle(db), &rows[r]))) {
			fprintf(stderr, "rcusim export: %s: %s\n", db_path, sqlite3_errstr(rc));
			status = EXIT_IO;
			goto out;
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
