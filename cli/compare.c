/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * compare.c - `rcusim compare`: the key scalars of runs side by side, in
 * human units, or CSV and Markdown for scripts and reports (the table
 * itself is cli_compare_print, which sweep prints too).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
