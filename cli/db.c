/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db.c - the results database as the commands open it: to read (an
 * existing rcusim database, changed in nothing) or to write (created if
 * absent), the runs a command works on (given by id, or the latest
 * complete run of each policy), and a note for a selected run that is not
 * complete.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_open_db(const char *path, bool must_exist, rec_db **db)
{
	char err[1024];
	if (must_exist && *path && access(path, F_OK)) {
		fprintf(stderr, "%s: cannot read: %s\n", path, strerror(errno));
		return EXIT_IO;
	}
	int rc = must_exist ? rec_open_ro(db, path, err, sizeof(err)) : rec_open(db, path, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return cli_exit_status(rc);
	}
	return 0;
}

int cli_load_runs(const char *db_path, const int64_t *ids, size_t nids, const char *what,
		  rec_db **db, rec_run_row **rows, size_t *nrows)
{
	char err[1024];
	int status = cli_open_db(db_path, true, db);
	if (status)
		return status;
	int rc = rec_select_runs(*db, ids, nids, rows, nrows, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: %s\n", db_path, err);
		return cli_exit_status(rc);
	}
	if (!*nrows) {
		fprintf(stderr, "%s: no complete run to %s\n", db_path, what);
		return EXIT_USAGE;
	}
	for (size_t r = 0; r < *nrows; r++)
		cli_note_status(db_path, &(*rows)[r]);
	return 0;
}

void cli_note_status(const char *db_path, const rec_run_row *row)
{
	if (!strcmp(row->status, "complete"))
		return;
	if (!strcmp(row->status, "lost"))
		fprintf(stderr, "%s: run %lld is lost: its process (pid %lld on %s) is gone or stopped "
				"beating; it never completed and its results are missing\n",
			db_path, (long long)row->run_id, (long long)row->pid, row->host[0] ? row->host : "?");
	else
		fprintf(stderr, "%s: run %lld is %s, not complete\n", db_path, (long long)row->run_id,
			row->status);
}
