/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * recorder.h - the results database (SQLite; SPEC section 3). The only
 * module that touches SQLite.
 */
#ifndef RCUSIM_SIM_RECORDER_H
#define RCUSIM_SIM_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "params.h"

#define REC_SCHEMA_VERSION 1 /* PRAGMA user_version written and understood */

typedef struct rec_db rec_db;

enum {
	REC_EDB = -3,     /* SQLite failed: exit status 3 */
	REC_ENEWER = -5,  /* schema newer than this binary: exit status 3 */
};

typedef struct rec_run_info {
	const char *scenario; /* scenario file as given */
	const char *policy;   /* rcu.policy (or the workload for non-RCU runs) */
	int64_t seed;         /* scenario.seed */
	const char *label;    /* --label, or NULL */
	sim_time duration_ns; /* scenario.duration */
	const char *version;  /* rcusim version */
} rec_run_info;

typedef struct rec_run_result {
	const char *status; /* "complete", "aborted" or "failed" */
	sim_time sim_end_ns; /* simulated time reached */
	uint64_t events;    /* events dispatched */
	double wall_s;      /* wall-clock seconds the run took */
} rec_run_result;

/* Open (creating if needed) the database at @path: WAL mode, busy timeout,
 * schema created or migrated. Returns 0, REC_EDB or REC_ENEWER. */
int rec_open(rec_db **out, const char *path, char *err, size_t errlen);
/* NULL is a no-op. */
void rec_close(rec_db *db);

/* Insert the run row as 'running' and every effective parameter, in one
 * transaction; the new run's id in *run_id. */
int rec_run_begin(rec_db *db, const rec_run_info *info, const sim_params *p, int64_t *run_id,
		  char *err, size_t errlen);
/* Write every scalar, series and histogram of @m and set the run's status,
 * end time, events and wall time, all in one transaction: the run is
 * 'complete' only if all its rows are in. */
int rec_run_end(rec_db *db, int64_t run_id, const rec_run_result *res, const sim_metrics *m,
		char *err, size_t errlen);
/* Set a run's status alone (e.g. 'failed' after rec_run_end failed). */
int rec_run_mark(rec_db *db, int64_t run_id, const char *status, char *err, size_t errlen);

/* The underlying handle, for tools in sim/ that query (compare, check). */
struct sqlite3 *rec_handle(rec_db *db);

#endif
