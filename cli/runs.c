/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * runs.c - `rcusim runs`: every run of a database, one line each: its
 * status (a 'running' row whose process is gone, or whose heartbeat
 * stopped, is shown as lost), label, scenario, policy, seed, simulated and
 * wall time, start and host.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static const char runs_usage[] =
	"usage: rcusim runs [--db FILE]\n"
	"\n"
	"List every run of the database (default rcusim.db), oldest first: id,\n"
	"status, simulated time reached of the time asked for, wall time, start\n"
	"(UTC), host, scenario, policy, seed and label. A run still marked running\n"
	"whose process is gone (on this host), or whose heartbeat stopped more than\n"
	"5 minutes ago (any host), is shown as lost: it will never complete.\n";

int cmd_runs(int argc, char **argv)
{
	const char *db_path = "rcusim.db";
	const cli_str strs[] = { { "--db", &db_path }, { NULL, NULL } };
	for (int i = 1; i < argc; i++) {
		int rc;
		if (cli_help(argv[i], runs_usage))
			return 0;
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				return EXIT_USAGE;
			continue;
		}
		fprintf(stderr, "rcusim runs: unexpected argument %s\n%s", argv[i], runs_usage);
		return EXIT_USAGE;
	}
	rec_db *db;
	int status = cli_open_db(db_path, true, &db);
	if (status)
		return status;
	rec_run_row *rows = NULL;
	size_t n = 0;
	char err[1024];
	int rc = rec_list_runs(db, &rows, &n, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: %s\n", db_path, err);
		rec_close(db);
		return cli_exit_status(rc);
	}
	printf("%6s  %-8s  %-19s  %9s  %-20s  %-16s  %-28s  %-9s  %6s  %s\n", "run", "status",
	       "simulated", "wall", "started (UTC)", "host", "scenario", "policy", "seed", "label");
	for (size_t r = 0; r < n; r++) {
		const rec_run_row *x = &rows[r];
		char sim[32], dur[32], wall[32], simd[72], started[20];
		cli_fmt_ns((double)x->sim_end_ns, sim, sizeof(sim));
		cli_fmt_ns((double)x->sim_duration_ns, dur, sizeof(dur));
		snprintf(simd, sizeof(simd), "%s of %s", sim, dur);
		if (strcmp(x->status, "running") && strcmp(x->status, "lost") && strcmp(x->status, "aside"))
			snprintf(wall, sizeof(wall), "%.2f s", x->wall_s);
		else
			snprintf(wall, sizeof(wall), "-");
		snprintf(started, sizeof(started), "%.19s", x->started_at);
		printf("%6lld  %-8s  %-19s  %9s  %-20s  %-16s  %-28s  %-9s  %6lld  %s\n",
		       (long long)x->run_id, x->status, simd, wall, started, x->host, x->scenario,
		       x->policy, (long long)x->seed, x->label);
	}
	free(rows);
	rec_close(db);
	return 0;
}
