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
	"bit, with this rcusim's version; a value no scenario file can hold (a\n"
	"line break, or a ';' or '#' after a blank) is a comment, said on stderr.\n"
	"A run imported from a trace (rcusim import) is shown as comments only: no\n"
	"scenario repeats it. A path (workload.trace_file) is given\n"
	"absolute (resolved from where the run was started). Runs recorded before rcusim kept\n"
	"origins (its databases from before December 2026) show none.\n";

/* One recorded parameter. */
typedef struct shown {
	const char *name, *value, *origin; /* origin NULL: not recorded */
	bool used;                          /* printed under its registry entry */
	size_t seq;                         /* the order recorded (a load's order matters) */
} shown;

/* Is @name a named load's parameter (workload.NAME.key)? */
static bool load_row(const char *name)
{
	return !strncmp(name, SIM_LOAD_SECTION ".", strlen(SIM_LOAD_SECTION) + 1) &&
	       strchr(name + strlen(SIM_LOAD_SECTION) + 1, '.') &&
	       sim_param_def_find(rcusim_params, P_COUNT, name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const shown *)a)->name, ((const shown *)b)->name);
}

/* Print @s in a comment line: its control characters escaped (\\n, \\t,
 * \\xHH) so that the comment stays one line. */
static void comment_text(const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '\n')
			fputs("\\n", stdout);
		else if (*c == '\t')
			fputs("\\t", stdout);
		else if (*c < 0x20 || *c == 0x7f)
			printf("\\x%02x", *c);
		else
			putchar(*c);
	}
}

/* Does "key = @v" read back as @v (sim/ini.c)? Not with a line break, a
 * blank at either end (trimmed), or a ';' or '#' at its start or after a
 * blank (a comment starts there). */
static bool ini_value_ok(const char *v)
{
	size_t n = strlen(v);
	if (!n || strchr(" \t", v[0]) || strchr(" \t\r", v[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++) {
		/* A control byte (a line break, a tab) would be escaped on the
		 * way out and read back as something else. */
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return false;
		if ((v[i] == ';' || v[i] == '#') && (i == 0 || v[i - 1] == ' ' || v[i - 1] == '\t'))
			return false;
	}
	return true;
}

/* The line "key = value" and its comment, the comment aligned; whole,
 * however long the value. */
static void line(const char *lead, const char *key, const char *value, const char *comment);

/* The named loads' sections ([workload.NAME]), in the order the run had
 * them (it decides the jobs' order, hence the results): each value not
 * its default (with @all, every one) with its origin. @rows sorted by
 * name. */
static void show_loads(shown *rows, size_t n, bool all)
{
	size_t sl = strlen(SIM_LOAD_SECTION);
	for (;;) {
		const shown *first = NULL;
		for (size_t i = 0; i < n; i++)
			if (!rows[i].used && load_row(rows[i].name) && (!first || rows[i].seq < first->seq))
				first = &rows[i];
		if (!first)
			return;
		const char *nm = first->name + sl + 1;
		char load[SIM_LOAD_NAME_MAX + 8];
		snprintf(load, sizeof(load), "%.*s", (int)strcspn(nm, "."), nm);
		printf("\n[%s.%s]\n", SIM_LOAD_SECTION, load);
		for (size_t k = 0; k < P_COUNT; k++) {
			const sim_param_def *d = &rcusim_params[k];
			if (strncmp(d->name, SIM_LOAD_SECTION ".", sl + 1) || (d->flags & SIM_PF_RUN))
				continue;
			char full[256];
			snprintf(full, sizeof(full), "%s.%s.%s", SIM_LOAD_SECTION, load, d->name + sl + 1);
			shown key = { .name = full };
			shown *s = bsearch(&key, rows, n, sizeof(*rows), by_name);
			if (!s)
				continue;
			s->used = true;
			bool dflt = s->origin ? !strcmp(s->origin, "default") : !strcmp(s->value, d->def);
			if (dflt && all)
				line("; ", d->name + sl + 1, s->value, "default");
			else if (!dflt)
				line("", d->name + sl + 1, s->value, s->origin ? s->origin : "origin not recorded");
		}
	}
}

static void line(const char *lead, const char *key, const char *value, const char *comment)
{
	size_t n = strlen(lead) + strlen(key) + 3 + strlen(value);
	printf("%s%s = ", lead, key);
	comment_text(value); /* only a value that reads back is written uncommented */
	if (comment) {
		printf("%*s ; ", n < 40 ? (int)(40 - n) : 0, "");
		comment_text(comment);
	}
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

static int show(rec_db *db, const char *db_path, long long id, bool all)
{
	int status = EXIT_IO;
	shown *rows = NULL;
	rec_param_row *prows = NULL;
	size_t n = 0, np = 0;
	rec_run_detail run;
	bool found;
	char err[1024];
	if (rec_run_detail_get(db, id, &run, &found, err, sizeof(err)))
		goto dberr;
	if (!found) {
		fprintf(stderr, "rcusim show: %s: no run %lld (rcusim runs lists them)\n", db_path, id);
		return EXIT_USAGE;
	}
	char sim[32], dur[32], events[32];
	const char *scen = run.row.scenario;
	bool measured = !strcmp(run.row.policy, "measured");
	cli_fmt_ns((double)run.row.sim_end_ns, sim, sizeof(sim));
	cli_fmt_ns((double)run.row.sim_duration_ns, dur, sizeof(dur));
	cli_fmt_count((double)run.events, events, sizeof(events));
	/* Its status as `rcusim runs` gives it: 'running' with its process
	 * gone is lost. */
	printf("; run %lld of ", id);
	comment_text(db_path);
	printf(": scenario ");
	comment_text(scen);
	printf(", policy %s, seed %lld", run.row.policy, (long long)run.row.seed);
	if (run.has_label) {
		printf(", label \"");
		comment_text(run.row.label);
		printf("\"");
	}
	printf(", %s\n", run.row.status);
	printf("; rcusim %s, started %s%s%s; %s simulated of %s", run.version, run.row.started_at,
	       run.has_host ? " on " : "", run.has_host ? run.row.host : "", sim, dur);
	if (run.ended)
		printf(", %s events in %.2f s", events, run.row.wall_s);
	printf("\n");

	if (rec_run_params(db, id, &prows, &np, err, sizeof(err)))
		goto dberr;
	if (np && !(rows = calloc(np, sizeof(*rows))))
		goto nomem;
	for (; n < np; n++)
		rows[n] = (shown){ prows[n].name, prows[n].value, prows[n].origin, false, (size_t)prows[n].seq };
	qsort(rows, n, sizeof(*rows), by_name);
	bool any_origin = false;
	for (size_t i = 0; i < n; i++)
		any_origin |= rows[i].origin != NULL;
	if (measured) {
		/* rcusim import's: a real machine's trace, no scenario to run. */
		printf("; A run imported from a trace (rcusim import): its recorded values, as comments; no "
		       "scenario of rcusim repeats it.\n");
		for (size_t i = 0; i < n; i++) {
			printf("; %s = ", rows[i].name);
			comment_text(rows[i].value);
			if (rows[i].origin) {
				printf(" ; ");
				comment_text(rows[i].origin);
			}
			putchar('\n');
		}
		status = ferror(stdout) ? EXIT_IO : 0;
		goto out;
	}
	printf("; %s`rcusim run` of this file repeats the run.\n",
	       any_origin ? "Every value that is not its default, with where it came from; "
			  : "Every value that is not its default (this run's database kept no origins); ");

	/* The values as the run had them, to ask which apply: a preset's value
	 * that nothing in the run reads is written as a comment (set in the
	 * scenario itself it would be refused). A value this rcusim cannot
	 * read stays as recorded. */
	sim_params *p = NULL;
	if (sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)))
		goto nomem;
	for (size_t i = 0; i < n; i++)
		if (rows[i].origin ? strcmp(rows[i].origin, "default") : true)
			(void)sim_params_set_value(p, rows[i].name, rows[i].value, "show", err, sizeof(err));
	/* Which of them the run did not read: those the knobs say apply to
	 * nothing, and those the model refuses once they are the scenario's
	 * own, as they are in this output (a preset's rcu.lazy with no CPU
	 * offloaded). Each is reset to its default, as its comment leaves it,
	 * and the rest asked again. */
	bool unread[P_COUNT] = { false };
	for (int round = 0; round < P_COUNT; round++) {
		bool changed = false;
		for (size_t k = 0; k < P_COUNT; k++)
			if (!strcmp(sim_params_origin(p, k), "show") && !rcusim_param_applies(p, k)) {
				unread[k] = changed = true;
				(void)sim_params_set_value(p, rcusim_params[k].name, rcusim_params[k].def, "default", err,
							   sizeof(err));
			}
		if (changed)
			continue;
		if (rcusim_validate(p, err, sizeof(err)) == SIM_EINPUT && !strncmp(err, "show: ", 6)) {
			char name[128];
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(err + 6, ": "), err + 6);
			int k = sim_params_index(p, name);
			if (k >= 0 && !strcmp(sim_params_origin(p, (size_t)k), "show")) {
				unread[k] = true;
				(void)sim_params_set_value(p, name, rcusim_params[k].def, "default", err, sizeof(err));
				continue;
			}
		}
		break;
	}
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
		if (!dflt && !ini_value_ok(v)) {
			/* No scenario file holds it: said, never written broken. */
			printf("; %s = ", dot + 1);
			comment_text(v);
			printf(" ; cannot be written in a scenario file (a control character such as a line break "
			       "or tab, a blank at an end, or a ';' or '#' after a blank)\n");
			fprintf(stderr, "rcusim show: run %lld: %s: its value cannot be written in a scenario file; "
					"`rcusim run` of this output differs there\n", id, d->name);
		} else if (scen_name)
			line("", dot + 1, v, "the run's scenario name (scenario.name was auto)");
		else if (dflt)
			line("; ", dot + 1, v, "default");
		else if (unread[k])
			line("; ", dot + 1, v, why);
		else
			line("", dot + 1, v, s->origin ? s->origin : "origin not recorded");
		free(tp);
	}
	sim_params_destroy(p);
	show_loads(rows, n, all);
	bool header = false;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].used)
			continue;
		if (!header)
			printf("\n; Recorded, but not a parameter of this rcusim:\n");
		header = true;
		printf("; %s = ", rows[i].name);
		comment_text(rows[i].value);
		putchar('\n');
	}
	status = ferror(stdout) ? EXIT_IO : 0;
	goto out;
nomem:
	fprintf(stderr, "rcusim show: out of memory\n");
	status = EXIT_IO;
	goto out;
dberr:
	fprintf(stderr, "rcusim show: %s\n", err);
out:
	free(rows);
	rec_param_rows_free(prows, np);
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
	status = show(db, db_path, id, all);
	rec_close(db);
	return status;
}
