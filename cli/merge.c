/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * merge.c - `rcusim merge`: gather the runs of several databases into one,
 * each run once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

static const char merge_usage[] =
	"usage: rcusim merge OUT.db IN.db...\n"
	"\n"
	"Copy every run of each IN.db into OUT.db (created if absent) under new run\n"
	"ids, with its parameters, scalars, series and histograms. A run already in\n"
	"OUT.db (same scenario, policy, seed, label, start time to the microsecond,\n"
	"host, version and process) is skipped: merging twice adds nothing; but a run\n"
	"that OUT.db holds as running and IN.db as ended (merged while it ran, or\n"
	"saved to a side file when its database was locked) takes IN.db's state.\n"
	"The inputs are only read, and are checked before OUT.db is opened: each must\n"
	"be an rcusim database and none may be OUT.db itself (exit 2).\n";

/* The runs of @path that did not complete, noted on stderr (lost ones with
 * their owner): they were merged as they are. */
static void note_unfinished(const char *path)
{
	rec_db *in;
	rec_run_row *rows;
	size_t n;
	char err[1024];
	if (rec_open_ro(&in, path, err, sizeof(err)))
		return;
	if (!rec_list_runs(in, &rows, &n, err, sizeof(err))) {
		for (size_t r = 0; r < n; r++)
			cli_note_status(path, &rows[r]);
		free(rows);
	}
	rec_close(in);
}

int cmd_merge(int argc, char **argv)
{
	if (argc >= 2 && cli_help(argv[1], merge_usage))
		return 0;
	if (argc < 3) {
		fprintf(stderr, "rcusim merge: expected OUT.db and at least one IN.db\n%s", merge_usage);
		return EXIT_USAGE;
	}
	char err[1024];
	/* Every input first: a refused one leaves OUT.db as it was (or absent). */
	for (int i = 2; i < argc; i++) {
		if (access(argv[i], R_OK)) {
			fprintf(stderr, "%s: cannot read: %s\n", argv[i], strerror(errno));
			return EXIT_IO;
		}
		int rc = rec_merge_check(argv[1], argv[i], err, sizeof(err));
		if (rc) {
			fprintf(stderr, "rcusim merge: %s\n", err);
			return cli_exit_status(rc);
		}
	}
	rec_db *db;
	int status = cli_open_db(argv[1], false, &db);
	if (status)
		return status;
	for (int i = 2; i < argc && !status; i++) {
		int64_t added, updated, skipped;
		int rc = rec_merge(db, argv[i], &added, &updated, &skipped, NULL, NULL, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "%s: %s\n", argv[i], err);
			status = cli_exit_status(rc);
		} else {
			printf("%s: %lld runs added, %lld brought up to date, %lld already present\n",
			       argv[i], (long long)added, (long long)updated, (long long)skipped);
			note_unfinished(argv[i]);
		}
	}
	rec_close(db);
	return status;
}
