/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * show.c - `rcusim show RUN`: a run's resolved scenario as a scenario file,
 * every value that is not its parameter's default with where it came from
 * (a scenario file and line, --set, --duration, a kernel parameter of
 * --cmdline), after comment lines with the run's identity; --all adds the
 * defaults as comments. Running the output repeats the run.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cli.h"
#include "commands.h"
#include "model.h"
#include "registry.h"

static const char show_usage[] =
	"usage: rcusim show [--db FILE] [--all] RUN\n"
	"\n"
	"Print run RUN's scenario as it was resolved, as a scenario file: every\n"
	"parameter whose value is not its default, section by section, each with\n"
	"where the value came from (a scenario file and line, --set, --duration,\n"
	"or a kernel boot parameter of --cmdline), after comment lines naming the\n"
	"run (scenario, policy, seed, label, status, rcusim version, start, host,\n"
	"simulated and wall time). [scenario] name keeps the run's scenario name.\n"
	"--all lists every other parameter too, at its default, as a comment.\n"
	"`rcusim run` of the output repeats the run: the same results, bit for\n"
	"bit, with this rcusim's version. A path (workload.trace_file) is given\n"
	"absolute (resolved from where the run was started). Runs recorded before rcusim kept\n"
	"origins (its databases from before December 2026) show none.\n";

/* One recorded parameter. */
typedef struct shown {
	const char *name, *value, *origin; /* origin NULL: not recorded */
	bool used;                          /* printed under its registry entry */
} shown;

static int by_name(const void *a, const void *b)
{
	return strcmp(((const shown *)a)->name, ((const shown *)b)->name);
}

/* Does the database hold the table of origins? */
static bool has_origins(sqlite3 *h)
{
	sqlite3_stmt *st;
	bool yes = false;
	if (sqlite3_prepare_v2(h, "SELECT 1 FROM sqlite_master WHERE name = 'param_origin'", -1, &st,
			       NULL) == SQLITE_OK)
		yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

/* The line "key = value" and its comment, the comment aligned; whole,
 * however long the value. */
static void line(const char *lead, const char *key, const char *value, const char *comment)
{
	size_t n = strlen(lead) + strlen(key) + 3 + strlen(value);
	printf("%s%s = %s", lead, key, value);
	if (comment)
		printf("%*s ; %s", n < 40 ? (int)(40 - n) : 0, "", comment);
	putchar('\n');
}

/* workload.trace_file as the run read it (sim_params_resolve_path()),
 * made absolute so that the output runs from anywhere; as the run read it
 * if the file is gone. Returns a string to free, or NULL. */
static char *trace_path(const char *f, const char *origin)
{
	char joined[PATH_MAX];
	if (!strcmp(f, "none") || sim_params_resolve_path(f, origin, joined, sizeof(joined)))
		return strdup(f);
	char *abs = realpath(joined, NULL);
	return abs ? abs : strdup(joined);
}

static int show(sqlite3 *h, const char *db_path, long long id, bool all)
{
	sqlite3_stmt *st = NULL;
	int status = EXIT_IO;
	shown *rows = NULL;
	size_t n = 0, cap = 0;
	if (sqlite3_prepare_v2(h,
			       "SELECT scenario, policy, seed, label, status, sim_duration_ns, sim_end_ns,"
			       " events, wall_s, started_at, version, host FROM run WHERE run_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		fprintf(stderr, "rcusim show: %s: no run %lld (rcusim runs lists them)\n", db_path, id);
		sqlite3_finalize(st);
		return EXIT_USAGE;
	}
	if (rc != SQLITE_ROW)
		goto dberr;
	char scen[512], sim[32], dur[32], events[32];
	snprintf(scen, sizeof(scen), "%s", (const char *)sqlite3_column_text(st, 0));
	const char *label = (const char *)sqlite3_column_text(st, 3);
	cli_fmt_ns((double)sqlite3_column_int64(st, 6), sim, sizeof(sim));
	cli_fmt_ns((double)sqlite3_column_int64(st, 5), dur, sizeof(dur));
	cli_fmt_count((double)sqlite3_column_int64(st, 7), events, sizeof(events));
	printf("; run %lld of %s: scenario %s, policy %s, seed %lld%s%s%s, %s\n", id, db_path, scen,
	       (const char *)sqlite3_column_text(st, 1), (long long)sqlite3_column_int64(st, 2),
	       label ? ", label \"" : "", label ? label : "", label ? "\"" : "",
	       (const char *)sqlite3_column_text(st, 4));
	printf("; rcusim %s, started %s%s%s; %s simulated of %s", (const char *)sqlite3_column_text(st, 10),
	       (const char *)sqlite3_column_text(st, 9), sqlite3_column_text(st, 11) ? " on " : "",
	       sqlite3_column_text(st, 11) ? (const char *)sqlite3_column_text(st, 11) : "", sim, dur);
	if (sqlite3_column_type(st, 8) != SQLITE_NULL)
		printf(", %s events in %.2f s", events, sqlite3_column_double(st, 8));
	printf("\n");
	sqlite3_finalize(st);
	st = NULL;

	bool origins = has_origins(h);
	if (sqlite3_prepare_v2(h,
			       origins ? "SELECT p.name, p.value, o.origin FROM param p LEFT JOIN param_origin o"
					 " ON o.run_id = p.run_id AND o.name = p.name WHERE p.run_id = ?"
				       : "SELECT name, value, NULL FROM param WHERE run_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			shown *r = realloc(rows, cap * sizeof(*rows));
			if (!r)
				goto nomem;
			rows = r;
		}
		shown *s = &rows[n++];
		s->name = strdup((const char *)sqlite3_column_text(st, 0));
		s->value = strdup((const char *)sqlite3_column_text(st, 1));
		s->origin = sqlite3_column_type(st, 2) == SQLITE_NULL
				    ? NULL
				    : strdup((const char *)sqlite3_column_text(st, 2));
		s->used = false;
		if (!s->name || !s->value || (sqlite3_column_type(st, 2) != SQLITE_NULL && !s->origin))
			goto nomem;
	}
	if (rc != SQLITE_DONE)
		goto dberr;
	sqlite3_finalize(st);
	st = NULL;
	qsort(rows, n, sizeof(*rows), by_name);
	bool any_origin = false;
	for (size_t i = 0; i < n; i++)
		any_origin |= rows[i].origin != NULL;
	printf("; %s`rcusim run` of this file repeats the run.\n",
	       any_origin ? "Every value that is not its default, with where it came from; "
			  : "Every value that is not its default (this run's database kept no origins); ");

	/* The values as the run had them, to ask which apply: a preset's value
	 * that nothing in the run reads is written as a comment (set in the
	 * scenario itself it would be refused). A value this rcusim cannot
	 * read stays as recorded. */
	sim_params *p = NULL;
	char err[1024];
	if (sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)))
		goto nomem;
	for (size_t i = 0; i < n; i++)
		if (rows[i].origin ? strcmp(rows[i].origin, "default") : true)
			(void)sim_params_set_value(p, rows[i].name, rows[i].value, "show", err, sizeof(err));
	/* The registry's order, section by section. */
	char section[64] = "";
	for (size_t k = 0; k < P_COUNT; k++) {
		const sim_param_def *d = &rcusim_params[k];
		shown key = { .name = d->name };
		shown *s = bsearch(&key, rows, n, sizeof(*rows), by_name);
		if (!s)
			continue; /* a parameter newer than the run: its default */
		s->used = true;
		const char *dot = strchr(d->name, '.');
		bool dflt = s->origin ? !strcmp(s->origin, "default") : !strcmp(s->value, d->def);
		bool scen_name = k == P_SCENARIO_NAME && dflt;
		if (dflt && !all && !scen_name)
			continue;
		if (strncmp(section, d->name, (size_t)(dot - d->name)) || section[dot - d->name]) {
			snprintf(section, sizeof(section), "%.*s", (int)(dot - d->name), d->name);
			printf("\n[%s]\n", section);
		}
		char *tp = k == P_WORKLOAD_TRACE_FILE ? trace_path(s->value, s->origin) : NULL;
		if (k == P_WORKLOAD_TRACE_FILE && !tp) {
			sim_params_destroy(p);
			goto nomem;
		}
		const char *v = tp ? tp : scen_name ? scen : s->value;
		char why[600];
		snprintf(why, sizeof(why), "%s, not read in this run", s->origin ? s->origin : "origin not recorded");
		if (scen_name)
			line("", dot + 1, v, "the run's scenario name (scenario.name was auto)");
		else if (dflt)
			line("; ", dot + 1, v, "default");
		else if (!rcusim_param_applies(p, k))
			line("; ", dot + 1, v, why);
		else
			line("", dot + 1, v, s->origin ? s->origin : "origin not recorded");
		free(tp);
	}
	sim_params_destroy(p);
	bool header = false;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].used)
			continue;
		if (!header)
			printf("\n; Recorded, but not a parameter of this rcusim:\n");
		header = true;
		printf("; %s = %s\n", rows[i].name, rows[i].value);
	}
	status = ferror(stdout) ? EXIT_IO : 0;
	goto out;
nomem:
	fprintf(stderr, "rcusim show: out of memory\n");
	status = EXIT_IO;
	goto out;
dberr:
	fprintf(stderr, "rcusim show: %s: %s\n", db_path, sqlite3_errmsg(h));
out:
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++) {
		free((void *)rows[i].name);
		free((void *)rows[i].value);
		free((void *)rows[i].origin);
	}
	free(rows);
	return status;
}

int cmd_show(int argc, char **argv)
{
	const char *db_path = "rcusim.db", *run = NULL;
	bool all = false;
	const cli_str strs[] = { { "--db", &db_path }, { NULL, NULL } };
	for (int i = 1; i < argc; i++) {
		int rc;
		if (cli_help(argv[i], show_usage))
			return 0;
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				return EXIT_USAGE;
			continue;
		}
		if (!strcmp(argv[i], "--all")) {
			all = true;
			continue;
		}
		if (argv[i][0] == '-' || run) {
			fprintf(stderr, "rcusim show: unexpected argument %s\n%s", argv[i], show_usage);
			return EXIT_USAGE;
		}
		run = argv[i];
	}
	char *end;
	long long id = run ? strtoll(run, &end, 10) : 0;
	if (!run || !*run || *end || id < 1) {
		fprintf(stderr, "rcusim show: %s\n%s", run ? "RUN is a run id (a positive number)" : "no RUN given",
			show_usage);
		return EXIT_USAGE;
	}
	rec_db *db;
	int status = cli_open_db(db_path, true, &db);
	if (status)
		return status;
	status = show(rec_handle(db), db_path, id, all);
	rec_close(db);
	return status;
}
