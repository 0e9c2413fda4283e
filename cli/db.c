/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db.c - the results database as the commands open it: to read (an
 * existing rcusim database, changed in nothing) or to write (created if
 * absent), the runs a command works on (given by id, or the latest
 * complete run of each policy), and a note for a selected run that is not
 * complete.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
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
	else if (!strcmp(row->status, "aside"))
		fprintf(stderr, "%s: run %lld is not complete here: its results are in a side database, "
				"named when it ended (`rcusim merge %s SIDE.db` completes it)\n",
			db_path, (long long)row->run_id, db_path);
	else
		fprintf(stderr, "%s: run %lld is %s, not complete\n", db_path, (long long)row->run_id,
			row->status);
}

const char cli_runsel_help[] =
	"Runs: RUN_ID..., ranges A-B or A..B, --label GLOB, --scenario GLOB (shell\n"
	"patterns, e.g. 'tree-*'), --last N (of those, the last N); combined, all must\n"
	"hold. None: the latest complete run of each policy (said on stderr).\n";

int cli_runsel_init(cli_runsel *sel, int argc)
{
	*sel = (cli_runsel){ 0 };
	if (!(sel->lo = calloc(2 * ((size_t)argc + 1), sizeof(*sel->lo))))
		return -1;
	sel->hi = sel->lo + argc + 1;
	return 0;
}

void cli_runsel_free(cli_runsel *sel)
{
	free(sel->lo);
	*sel = (cli_runsel){ 0 };
}

int cli_runsel_arg(int argc, char **argv, int *i, cli_runsel *sel, const char *cmd)
{
	const char *a = argv[*i];
	if (!strcmp(a, "--label") || !strcmp(a, "--scenario") || !strcmp(a, "--last")) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "rcusim %s: %s needs a value\n", cmd, a);
			return -1;
		}
		const char *v = argv[++*i];
		if (!strcmp(a, "--last")) {
			char *e;
			if (sel->last) {
				fprintf(stderr, "rcusim %s: --last given twice: it takes one value\n", cmd);
				return -1;
			}
			errno = 0;
			long long n = strtoll(v, &e, 10);
			if (!*v || *e || errno || n < 1) {
				fprintf(stderr, "rcusim %s: --last: expected a positive count, got \"%s\"\n", cmd, v);
				return -1;
			}
			sel->last = n;
		} else if ((!strcmp(a, "--label") ? sel->label : sel->scenario)) {
			fprintf(stderr, "rcusim %s: %s given twice\n", cmd, a);
			return -1;
		} else {
			*(!strcmp(a, "--label") ? &sel->label : &sel->scenario) = v;
		}
		return 1;
	}
	if (a[0] < '0' || a[0] > '9')
		return 0;
	/* ID, A-B or A..B */
	char *e;
	errno = 0;
	long long lo = strtoll(a, &e, 10), hi = lo;
	if (!errno && (*e == '-' || (e[0] == '.' && e[1] == '.'))) {
		const char *b = e + (*e == '-' ? 1 : 2);
		hi = strtoll(b, &e, 10);
		if (e == b)
			e = (char *)b - 1; /* no second number: bad */
	}
	if (*e || errno || lo < 1 || hi < lo) {
		fprintf(stderr, "rcusim %s: expected a run id or a range A-B of ids, got \"%s\"\n", cmd, a);
		return -1;
	}
	sel->lo[sel->n] = lo;
	sel->hi[sel->n++] = hi;
	return 1;
}

int cli_load_runsel(const char *db_path, const cli_runsel *sel, const char *what, rec_db **db,
		    rec_run_row **rows, size_t *nrows)
{
	bool ranges = false;
	for (size_t k = 0; k < sel->n; k++)
		ranges |= sel->lo[k] != sel->hi[k];
	if (!sel->label && !sel->scenario && !sel->last && !ranges) {
		/* Ids only, or nothing. */
		int status = cli_load_runs(db_path, sel->lo, sel->n, what, db, rows, nrows);
		if (!status && !sel->n) {
			fprintf(stderr, "rcusim %s: runs", what);
			for (size_t r = 0; r < *nrows; r++)
				fprintf(stderr, "%s %lld", r ? "," : "", (long long)(*rows)[r].run_id);
			fprintf(stderr, ": the latest complete run of each policy (choose with ids, A-B, "
					"--label, --scenario or --last N)\n");
		}
		return status;
	}
	char err[1024];
	int status = cli_open_db(db_path, true, db);
	if (status)
		return status;
	rec_run_row *all = NULL;
	size_t nall = 0;
	int rc = rec_list_runs(*db, &all, &nall, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: %s\n", db_path, err);
		return cli_exit_status(rc);
	}
	size_t n = 0;
	for (size_t r = 0; r < nall; r++) {
		const rec_run_row *x = &all[r];
		bool in = !sel->n;
		bool named = false; /* a single id names it: incomplete allowed */
		for (size_t k = 0; k < sel->n; k++)
			if (x->run_id >= sel->lo[k] && x->run_id <= sel->hi[k]) {
				in = true;
				named |= sel->lo[k] == sel->hi[k];
			}
		if (!in || (!named && strcmp(x->status, "complete")))
			continue;
		if (sel->label && fnmatch(sel->label, x->label, 0))
			continue;
		if (sel->scenario && fnmatch(sel->scenario, x->scenario, 0))
			continue;
		all[n++] = *x;
	}
	size_t first = sel->last && (size_t)sel->last < n ? n - (size_t)sel->last : 0;
	memmove(all, all + first, (n - first) * sizeof(*all));
	n -= first;
	*rows = all;
	*nrows = n;
	if (!n) {
		fprintf(stderr, "%s: no complete run to %s matches the selection\n", db_path, what);
		return EXIT_USAGE;
	}
	for (size_t r = 0; r < n; r++)
		cli_note_status(db_path, &all[r]);
	return 0;
}
