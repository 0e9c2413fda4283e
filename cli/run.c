/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * run.c - `rcusim run`: simulate one scenario into the results database
 * (the work is cli_do_run, which check --run-scenario shares).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
	"  --quiet            no progress on stderr\n"
	"\n"
	"An option that takes one value (all but --set) may be given once.\n";

int cmd_run(int argc, char **argv)
{
	const char *v, *seed = NULL, *duration = NULL;
	int rc;
	cli_run_req req = { .db_path = "rcusim.db", .summary = true };
	cli_set *sets = calloc((size_t)argc + 1, sizeof(*sets));
	if (!sets) {
		fprintf(stderr, "rcusim run: out of memory\n");
		return cli_exit_status(SIM_ENOMEM);
	}
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
			if (!cli_opt_once("--seed", &seed))
				goto out;
			sets[req.nsets++] = (cli_set){ "--seed", "scenario.seed", v };
		} else if ((rc = cli_opt(argc, argv, &i, "--duration", &v))) {
			if (rc < 0)
				goto out;
			if (!cli_opt_once("--duration", &duration))
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
