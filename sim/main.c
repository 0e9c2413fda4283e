/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * main.c - the rcusim command: git-style subcommands (SPEC section 1).
 * Only this file decides exit statuses:
 *   0 success, 1 a check found a regression, 2 bad usage or input,
 *   3 I/O or database failure, 4 the simulation failed an internal check,
 *   128 + signal when SIGINT/SIGTERM aborted a run (recorded as 'aborted').
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../models/model.h"
#include "../models/registry.h"
#include "cli.h"
#include "params.h"
#include "recorder.h"

#ifndef RCUSIM_VERSION
#define RCUSIM_VERSION "unknown"
#endif

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static const char main_usage[] =
	"usage: rcusim [--version] [--help] COMMAND [ARGS]\n"
	"\n"
	"Simulate Linux RCU callback queues on many-CPU machines.\n"
	"\n"
	"commands:\n"
	"  run SCENARIO.ini   simulate one scenario and append the run to a database\n"
	"  params             list every parameter with its default, unit and source\n"
	"  compare            the key results of several runs side by side\n"
	"  plot               draw the standard figures of several runs (gnuplot)\n"
	"  check BASELINE     check a run against a regression baseline\n"
	"  sweep SCENARIO.ini run the cross product of parameter values and seeds\n"
	"  merge OUT IN...    gather the runs of several databases into one\n"
	"\n"
	"`rcusim COMMAND --help` describes a command.\n";

static const char run_usage[] =
	"usage: rcusim run SCENARIO.ini [--db FILE] [--set KEY=VALUE]... [--seed N]\n"
	"                  [--duration TIME] [--label TEXT] [--quiet]\n"
	"\n"
	"Simulate SCENARIO.ini and append one run to the database (default rcusim.db):\n"
	"parameters, scalars, series and histograms. Prints a summary and the run id.\n"
	"\n"
	"  --db FILE          results database (created if absent)\n"
	"  --set KEY=VALUE    override a parameter after the file is read (repeatable)\n"
	"  --seed N           same as --set scenario.seed=N\n"
	"  --duration TIME    same as --set scenario.duration=TIME (e.g. 10s, 1h)\n"
	"  --label TEXT       a label stored with the run (shown in comparisons)\n"
	"  --quiet            no progress on stderr\n";

static const char params_usage[] =
	"usage: rcusim params [--format text|ini|md]\n"
	"\n"
	"List every parameter: name, default, accepted values and unit, meaning,\n"
	"and where the default comes from. --format ini prints a scenario file\n"
	"holding every default.\n";

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "scenarios/seed.ini" -> "seed" into @buf. */
static void stem(const char *path, char *buf, size_t len)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	if (n > 4 && !strcmp(b + n - 4, ".ini"))
		n -= 4;
	snprintf(buf, len, "%.*s", (int)n, b);
}

static void print_summary(int64_t run_id, const char *status, const char *name,
			  const sim_params *p, const rcusim_outcome *o, double wall,
			  const sim_metrics *m)
{
	printf("run %lld %s: %s (policy %s, seed %s), %.3f s simulated in %.2f s, %llu events\n",
	       (long long)run_id, status, name, sim_params_str(p, P_RCU_POLICY),
	       sim_params_text(p, P_SCENARIO_SEED), (double)o->sim_end_ns / 1e9, wall,
	       (unsigned long long)o->events);
	for (size_t k = 0; k < sim_metrics_nscalars(m); k++)
		printf("  %-28s %.17g\n", sim_metrics_scalar_name(m, k), sim_metrics_scalar_value(m, k));
}

/* Progress on stderr: simulated time, events/s, ETA; at most twice a second,
 * and only after the first second. */
typedef struct progress {
	double t0, last;   /* wall clock at start and at the last print */
	bool shown;        /* something was printed (clear it at the end) */
} progress;

static void show_progress(void *ctx, sim_time now, sim_time end, uint64_t events)
{
	progress *pr = ctx;
	double w = wall_now();
	if (w - pr->t0 < 1.0 || w - pr->last < 0.5)
		return;
	pr->last = w;
	pr->shown = true;
	double frac = end > 0 ? (double)now / (double)end : 1;
	double eta = frac > 0 ? (w - pr->t0) * (1 - frac) / frac : 0;
	fprintf(stderr, "\r%.1f / %.1f s simulated (%.0f%%), %.2f M events/s, ETA %.0f s   ",
		(double)now / 1e9, (double)end / 1e9, 100 * frac, (double)events / (w - pr->t0) / 1e6,
		eta);
	fflush(stderr);
}

int cli_do_run(const cli_run_req *req, int64_t *run_id_out)
{
	char err[2048], name[256];
	int rc, status = EXIT_USAGE;
	sim_params *p = NULL;
	sim_metrics *m = NULL;
	rec_db *db = NULL;
	if (sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)) ||
	    sim_params_load_file(p, req->scenario, err, sizeof(err)))
		goto input_error;
	for (size_t i = 0; i < req->nsets; i++) {
		const cli_set *s = &req->sets[i];
		rc = s->name ? sim_params_set_value(p, s->name, s->value, s->origin, err, sizeof(err))
			     : sim_params_set(p, s->value, err, sizeof(err));
		if (rc)
			goto input_error;
	}
	if (sim_params_is_auto(p, P_SCENARIO_NAME))
		stem(req->scenario, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s", sim_params_str(p, P_SCENARIO_NAME));
	if (rcusim_validate(p, err, sizeof(err)))
		goto input_error;

	if (sim_metrics_create(&m)) {
		fprintf(stderr, "rcusim: out of memory\n");
		status = EXIT_SIMFAIL;
		goto out;
	}
	if (rec_open(&db, req->db_path, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		status = EXIT_IO;
		goto out;
	}
	rec_run_info info = { name, sim_params_str(p, P_RCU_POLICY), sim_params_int(p, P_SCENARIO_SEED),
			      req->label, sim_params_int(p, P_SCENARIO_DURATION), RCUSIM_VERSION };
	int64_t run_id;
	if (rec_run_begin(db, &info, p, &run_id, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		status = EXIT_IO;
		goto out;
	}

	struct sigaction sa = { 0 };
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	double t0 = wall_now();
	progress pr = { t0, t0, false };
	bool tty = !req->quiet && isatty(STDERR_FILENO);
	rcusim_outcome o = { 0 };
	rc = rcusim_simulate(p, m, &stop_signal, tty ? show_progress : NULL, &pr, &o, err, sizeof(err));
	if (pr.shown)
		fprintf(stderr, "\r%*s\r", 78, "");
	rec_run_result res = { "complete", o.sim_end_ns, o.events, wall_now() - t0 };
	if (rc == 0 && o.end == RCUSIM_ABORTED)
		res.status = "aborted";
	else if (rc)
		res.status = "failed";
	char dberr[1024];
	if (rec_run_end(db, run_id, &res, m, dberr, sizeof(dberr))) {
		fprintf(stderr, "%s\n", dberr);
		rec_run_mark(db, run_id, "failed", dberr, sizeof(dberr));
		status = EXIT_IO;
		goto out;
	}
	if (rc) {
		fprintf(stderr, "rcusim: run %lld failed: %s\n", (long long)run_id, err);
		status = rc == RCUSIM_EINPUT ? EXIT_USAGE : EXIT_SIMFAIL;
		goto out;
	}
	if (req->summary)
		print_summary(run_id, res.status, name, p, &o, res.wall_s, m);
	if (run_id_out)
		*run_id_out = run_id;
	status = o.end == RCUSIM_ABORTED ? 128 + (int)stop_signal : 0;
	goto out;
input_error:
	fprintf(stderr, "%s\n", err);
	status = EXIT_USAGE;
out:
	rec_close(db);
	sim_metrics_destroy(m);
	sim_params_destroy(p);
	return status;
}

int cmd_run(int argc, char **argv)
{
	const char *v;
	int rc;
	cli_run_req req = { .db_path = "rcusim.db", .summary = true };
	cli_set *sets = calloc((size_t)argc + 1, sizeof(*sets));
	if (!sets)
		return EXIT_IO;
	req.sets = sets;
	const cli_str strs[] = { { "--db", &req.db_path }, { "--label", &req.label }, { NULL, NULL } };
	int status = EXIT_USAGE;
	/* Overrides apply after the file, in the order given. */
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], run_usage)) {
			status = 0;
			goto out;
		}
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				goto out;
		} else if ((rc = cli_opt(argc, argv, &i, "--set", &v))) {
			if (rc < 0)
				goto out;
			sets[req.nsets++] = (cli_set){ "--set", NULL, v };
		} else if ((rc = cli_opt(argc, argv, &i, "--seed", &v))) {
			if (rc < 0)
				goto out;
			sets[req.nsets++] = (cli_set){ "--seed", "scenario.seed", v };
		} else if ((rc = cli_opt(argc, argv, &i, "--duration", &v))) {
			if (rc < 0)
				goto out;
			sets[req.nsets++] = (cli_set){ "--duration", "scenario.duration", v };
		} else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
			req.quiet = true;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "rcusim run: unknown option %s\n%s", argv[i], run_usage);
			goto out;
		} else if (req.scenario) {
			fprintf(stderr, "rcusim run: one scenario at a time (got %s and %s)\n", req.scenario,
				argv[i]);
			goto out;
		} else {
			req.scenario = argv[i];
		}
	}
	if (!req.scenario) {
		fprintf(stderr, "rcusim run: no scenario file given\n%s", run_usage);
		goto out;
	}
	status = cli_do_run(&req, NULL);
out:
	free(sets);
	return status;
}

static int cmd_params(int argc, char **argv)
{
	sim_params_format fmt = SIM_PARAMS_TEXT;
	const char *v;
	int rc;
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], params_usage))
			return 0;
		if ((rc = cli_opt(argc, argv, &i, "--format", &v)) == 1) {
			if (!strcmp(v, "text"))
				fmt = SIM_PARAMS_TEXT;
			else if (!strcmp(v, "ini"))
				fmt = SIM_PARAMS_INI;
			else if (!strcmp(v, "md"))
				fmt = SIM_PARAMS_MD;
			else {
				fprintf(stderr, "rcusim params: --format: expected text, ini or md, got \"%s\"\n", v);
				return EXIT_USAGE;
			}
			continue;
		}
		if (rc < 0)
			return EXIT_USAGE;
		fprintf(stderr, "rcusim params: unknown argument %s\n%s", argv[i], params_usage);
		return EXIT_USAGE;
	}
	sim_params_print(rcusim_params, P_COUNT, fmt, stdout);
	return ferror(stdout) ? EXIT_IO : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(main_usage, stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(main_usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("rcusim %s\n", RCUSIM_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "params"))
		return cmd_params(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return cmd_compare(argc - 1, argv + 1);
	if (!strcmp(cmd, "plot"))
		return cmd_plot(argc - 1, argv + 1);
	if (!strcmp(cmd, "merge"))
		return cmd_merge(argc - 1, argv + 1);
	if (!strcmp(cmd, "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(cmd, "sweep"))
		return cmd_sweep(argc - 1, argv + 1);
	fprintf(stderr, "rcusim: unknown command \"%s\"\n%s", cmd, main_usage);
	return EXIT_USAGE;
}
