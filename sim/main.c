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

int cmd_run(int argc, char **argv)
{
	const char *scenario = NULL, *db_path = "rcusim.db", *label = NULL, *v;
	char err[2048], name[256];
	int quiet = 0, rc, status = EXIT_USAGE;
	sim_params *p = NULL;
	sim_metrics *m = NULL;
	rec_db *db = NULL;

	/* Options are applied after the file, so remember their places. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(run_usage, stdout);
			return 0;
		}
		if ((rc = cli_opt(argc, argv, &i, "--db", &v)) || (rc = cli_opt(argc, argv, &i, "--set", &v)) ||
		    (rc = cli_opt(argc, argv, &i, "--seed", &v)) ||
		    (rc = cli_opt(argc, argv, &i, "--duration", &v)) ||
		    (rc = cli_opt(argc, argv, &i, "--label", &v))) {
			if (rc < 0)
				return EXIT_USAGE;
			continue;
		}
		if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
			quiet = 1;
			continue;
		}
		if (argv[i][0] == '-') {
			fprintf(stderr, "rcusim run: unknown option %s\n%s", argv[i], run_usage);
			return EXIT_USAGE;
		}
		if (scenario) {
			fprintf(stderr, "rcusim run: one scenario at a time (got %s and %s)\n", scenario,
				argv[i]);
			return EXIT_USAGE;
		}
		scenario = argv[i];
	}
	(void)quiet; /* nothing is printed on stderr during a run yet, so nothing to silence */
	if (!scenario) {
		fprintf(stderr, "rcusim run: no scenario file given\n%s", run_usage);
		return EXIT_USAGE;
	}
	if (sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)) ||
	    sim_params_load_file(p, scenario, err, sizeof(err)))
		goto input_error;
	for (int i = 1; i < argc; i++) {
		if (cli_opt(argc, argv, &i, "--db", &v) == 1) {
			db_path = v;
		} else if (cli_opt(argc, argv, &i, "--label", &v) == 1) {
			label = v;
		} else if (cli_opt(argc, argv, &i, "--set", &v) == 1) {
			if (sim_params_set(p, v, err, sizeof(err)))
				goto input_error;
		} else if (cli_opt(argc, argv, &i, "--seed", &v) == 1) {
			if (sim_params_set_value(p, "scenario.seed", v, "--seed", err, sizeof(err)))
				goto input_error;
		} else if (cli_opt(argc, argv, &i, "--duration", &v) == 1) {
			if (sim_params_set_value(p, "scenario.duration", v, "--duration", err,
						 sizeof(err)))
				goto input_error;
		}
	}
	if (sim_params_is_auto(p, P_SCENARIO_NAME))
		stem(scenario, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s", sim_params_str(p, P_SCENARIO_NAME));
	if (rcusim_validate(p, err, sizeof(err)))
		goto input_error;

	if (sim_metrics_create(&m)) {
		fprintf(stderr, "rcusim: out of memory\n");
		status = EXIT_SIMFAIL;
		goto out;
	}
	if (rec_open(&db, db_path, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		status = EXIT_IO;
		goto out;
	}
	rec_run_info info = { name, sim_params_str(p, P_RCU_POLICY), sim_params_int(p, P_SCENARIO_SEED),
			      label, sim_params_int(p, P_SCENARIO_DURATION), RCUSIM_VERSION };
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
	rcusim_outcome o = { 0 };
	rc = rcusim_simulate(p, m, &stop_signal, &o, err, sizeof(err));
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
	print_summary(run_id, res.status, name, p, &o, res.wall_s, m);
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

static int cmd_params(int argc, char **argv)
{
	sim_params_format fmt = SIM_PARAMS_TEXT;
	const char *v;
	int rc;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(params_usage, stdout);
			return 0;
		}
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
	fprintf(stderr, "rcusim: unknown command \"%s\"\n%s", cmd, main_usage);
	return EXIT_USAGE;
}
