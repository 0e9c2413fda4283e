/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * recorder.h - the results database (SQLite; schema in docs/reference.md
 * section 4). The only module that touches SQLite.
 */
#ifndef RCUSIM_SIM_RECORDER_H
#define RCUSIM_SIM_RECORDER_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include <stdint.h>
#include <stdio.h>

#include "metrics.h"
#include "params.h"

#define REC_SCHEMA_VERSION 2 /* PRAGMA user_version written and understood */
#define REC_LABEL_MAX 1023   /* bytes of a run label, and of a scenario name */
/* A 'running' run whose heartbeat is older than this is reported lost
 * (seconds; runs beat every REC_HEARTBEAT_S). */
#define REC_HEARTBEAT_S 10
#define REC_LOST_AFTER_S 300

typedef struct rec_db rec_db;

/* Errors (error.h): SIM_EIO (SQLite failed), SIM_ENEWER (schema newer than
 * this binary), SIM_ENORUN (no such run), SIM_EMETRIC (a metric not in the
 * registry: a bug, the run failed), SIM_EINPUT (a value the database cannot
 * hold as given), SIM_ENOMEM. */

typedef struct rec_run_info {
	const char *scenario; /* scenario file as given */
	const char *policy;   /* the run's policy label (model_policy_label(): rcu.policy
			       * under classic RCU, else the RCU flavor's name) */
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
 * schema created or migrated. Returns 0, SIM_EIO, SIM_ENEWER, or
 * SIM_EINPUT for a path that is no file ("" or ":memory:") and for another
 * program's database (left untouched). */
int rec_open(rec_db **out, const char *path, char *err, size_t errlen);
/* Open the existing rcusim database at @path to read it, and change
 * nothing in it (no table, no version, no journal mode). SIM_EINPUT for a
 * path that is no file, an empty or foreign file, or one of an older schema
 * (merge reads those); SIM_ENEWER; SIM_EIO. */
int rec_open_ro(rec_db **out, const char *path, char *err, size_t errlen);
/* The file @db was opened on. */
const char *rec_path(const rec_db *db);
/* Wait at most @ms for a lock from now on (0: not at all). */
void rec_busy_timeout(rec_db *db, int ms);
/* NULL is a no-op. */
void rec_close(rec_db *db);

/* Insert the run row as 'running', owned by this process and host with its
 * first heartbeat, and every effective parameter, in one transaction; the
 * new run's id in *run_id. A label or scenario name longer than
 * REC_LABEL_MAX is refused (SIM_EINPUT). */
int rec_run_begin(rec_db *db, const rec_run_info *info, const sim_params *p, int64_t *run_id,
		  char *err, size_t errlen);
/* Write every scalar, series and histogram of @m and set the run's status,
 * end time, events and wall time, all in one transaction: the run is
 * 'complete' only if all its rows are in. Every metric must be defined,
 * with its kind, in the registry @defs (@ndefs entries); if one is not,
 * nothing is written and SIM_EMETRIC names it (the run stays 'running' for
 * the caller to mark 'failed'). */
int rec_run_end(rec_db *db, int64_t run_id, const rec_run_result *res, const sim_metrics *m,
		const sim_metric_def *defs, size_t ndefs, char *err, size_t errlen);
/* The run is alive: its heartbeat is now. */
int rec_heartbeat(rec_db *db, int64_t run_id, char *err, size_t errlen);
/* Where rec_run_end() could not write (a lock held past the busy timeout,
 * a full disk): the run's row and parameters, read from @db, and its
 * results, written to a new database at @side_path under the same run
 * identity, so that `rcusim merge` of it into @db completes the run's row
 * there. 0 or an error. */
int rec_run_save_side(rec_db *db, int64_t run_id, const char *side_path, const rec_run_result *res,
		      const sim_metrics *m, const sim_metric_def *defs, size_t ndefs, char *err,
		      size_t errlen);
/* After rec_run_save_side(): mark the 'running' row of @run_id as one
 * whose results are in a side database (a heartbeat of -1), which queries
 * show as 'aside', not 'lost', until merging the side database completes
 * it. 0 or an error. */
int rec_run_mark_aside(rec_db *db, int64_t run_id, char *err, size_t errlen);
/* Set a run's status alone (e.g. 'failed' after rec_run_end failed). */
int rec_run_mark(rec_db *db, int64_t run_id, const char *status, char *err, size_t errlen);

/* The underlying handle (tests inject failures through it). */
struct sqlite3 *rec_handle(rec_db *db);

/* ---- queries ------------------------------------------------------------ */

typedef struct rec_run_row {
	int64_t run_id;       /* run */
	char scenario[REC_LABEL_MAX + 1]; /* scenario name */
	char policy[32];      /* its policy label (rec_run_info.policy) */
	int64_t seed;         /* scenario.seed */
	char label[REC_LABEL_MAX + 1]; /* --label, "" if none */
	char status[16];      /* running, complete, aborted, failed, or lost: 'running'
			       * in the file, its owner gone (recorder.c's run_lost()), or
			       * aside: 'running', its results in a side database
			       * (rec_run_mark_aside()) */
	sim_time sim_end_ns;  /* simulated time reached */
	sim_time sim_duration_ns; /* simulated time asked for */
	double wall_s;        /* wall-clock seconds it took (0 if not ended) */
	char started_at[40];  /* UTC, ISO 8601 */
	char host[256];       /* the host that ran it */
	int64_t pid;          /* its process there (0: not recorded) */
} rec_run_row;

/* The runs @ids (in that order; an unknown id is an error), or with @n == 0
 * the latest complete run of each policy (by policy name). *rows is
 * malloc'd. */
int rec_select_runs(rec_db *db, const int64_t *ids, size_t n, rec_run_row **rows, size_t *nrows,
		    char *err, size_t errlen);
/* Every run, oldest first (*rows malloc'd). */
int rec_list_runs(rec_db *db, rec_run_row **rows, size_t *nrows, char *err, size_t errlen);
/* The latest run of any status: its id in *run_id (0 if there is none). */
int rec_latest_run(rec_db *db, int64_t *run_id, char *err, size_t errlen);
/* The latest 'complete' run of @scenario (its name) with @policy, @seed and
 * @duration_ns asked for: its id in *run_id (0 if there is none). */
int rec_latest_complete_run(rec_db *db, const char *scenario, const char *policy, int64_t seed,
			    sim_time duration_ns, int64_t *run_id, char *err, size_t errlen);
/* Scalar @name of @run_id: *present false if absent. */
int rec_scalar(rec_db *db, int64_t run_id, const char *name, double *v, bool *present, char *err,
	       size_t errlen);
/* Parameter @name of @run_id as text ("" if absent). */
int rec_param(rec_db *db, int64_t run_id, const char *name, char *buf, size_t len, char *err,
	      size_t errlen);
/* Write series @name/@cpu of @run_id as "seconds value" lines. Returns the
 * number of points, or a negative error. */
int64_t rec_export_series(rec_db *db, int64_t run_id, const char *name, int cpu, FILE *out,
			  char *err, size_t errlen);
/* Write histogram @name of @run_id as a CDF: "upper bin edge, fraction of
 * samples at or below" lines. Returns the number of samples (0: none). */
int64_t rec_export_cdf(rec_db *db, int64_t run_id, const char *name, FILE *out, char *err,
		       size_t errlen);

/* A run's row in full, for `rcusim show`. */
typedef struct rec_run_detail {
	rec_run_row row;     /* as rec_select_runs() gives it (lost and aside said) */
	bool has_label;      /* a label was recorded (row.label may still be "") */
	bool ended;          /* wall_s recorded: the run wrote its end */
	int64_t events;      /* events dispatched (0 if not ended) */
	bool has_host;       /* a host was recorded */
	char version[128];   /* the rcusim version that ran it */
} rec_run_detail;
/* Run @run_id's row into *@d: *@found false (and 0) if there is none. */
int rec_run_detail_get(rec_db *db, int64_t run_id, rec_run_detail *d, bool *found, char *err,
		       size_t errlen);

/* One recorded parameter of a run. */
typedef struct rec_param_row {
	char *name;   /* "rcu.blimit" */
	char *value;  /* as recorded ("10ms", "auto") */
	char *origin; /* where it came from (table param_origin), NULL where not
		       * recorded (a database or run from before origins) */
	int64_t seq;  /* the order recorded (rowid): a named load's place */
} rec_param_row;
/* Every parameter of @run_id, by name (byte order), with its origin:
 * *@rows malloc'd, *@n of them, rec_param_rows_free() frees them. */
int rec_run_params(rec_db *db, int64_t run_id, rec_param_row **rows, size_t *n, char *err,
		   size_t errlen);
/* NULL is a no-op. */
void rec_param_rows_free(rec_param_row *rows, size_t n);

/* One recorded value, for rec_each_value(): a scalar (!is_point), a point
 * of a series (is_point: cpu, t_ns), or with @hist a histogram's bin. */
typedef struct rec_value {
	const char *name; /* the metric */
	bool is_point;    /* a series' point: cpu and t_ns hold */
	int64_t cpu;      /* its CPU, -1 for a machine-wide series */
	int64_t t_ns;     /* its time */
	bool has_value;   /* value recorded (not NULL) */
	double value;     /* the scalar's or point's value */
	double lo, hi;    /* a bin's edges [lo, hi) */
	int64_t count;    /* a bin's samples */
} rec_value;
/* Called for each value; a non-zero return stops the walk and is
 * returned. */
typedef int rec_value_fn(void *ctx, const rec_value *v);
/* Call @fn for every value of @run_id: its scalars (in the order SQLite
 * keeps them) then its series' points (by name, CPU, time); or with @hist
 * its histograms' bins (by name, lower edge). 0, @fn's return, or an
 * error. */
int rec_each_value(rec_db *db, int64_t run_id, bool hist, rec_value_fn *fn, void *ctx, char *err,
		   size_t errlen);
/* The lower edge of histogram @name's first bin in @run_id: *@present
 * false when it has none. */
int rec_hist_lo(rec_db *db, int64_t run_id, const char *name, double *lo, bool *present, char *err,
		size_t errlen);
/* The CPUs (not -1) series @name of @run_id was recorded for, ascending,
 * at most @max of them into @cpus, their number into *@n. */
int rec_series_cpus(rec_db *db, int64_t run_id, const char *name, int *cpus, int max, int *n,
		    char *err, size_t errlen);

/* Copy every run of the database at @in_path (read, never written; schema
 * version 1 or later) into @db under new run ids, with its parameters,
 * scalars, series and histograms, in one transaction; *@added of them. A
 * run already present (same scenario, policy, seed, label, start time to
 * the microsecond, host, version and process) is skipped (*@skipped),
 * unless @db's row is still 'running' and @in_path's has ended: then that
 * row takes the ended run's status, results and rows (*@updated). @in_path
 * naming @db's own file is SIM_EINPUT. With
 * @ids, the id in @db of each run of @in_path (added or already there), in
 * @in_path's run id order, goes to *@ids (malloc'd, *@nids of them). */
/* Can @in_path be merged into the database at @out_path (which need not
 * exist yet)? It is another file than @out_path, under any name, and an
 * rcusim database of schema version 1 or later; nothing is written. 0,
 * SIM_EINPUT, SIM_ENEWER or SIM_EIO with the reason. */
int rec_merge_check(const char *out_path, const char *in_path, char *err, size_t errlen);
int rec_merge(rec_db *db, const char *in_path, int64_t *added, int64_t *updated, int64_t *skipped,
	      int64_t **ids, size_t *nids, char *err, size_t errlen);

#endif
