/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * recorder.c - SQLite results database. Every value is bound; SQL text is
 * constant. Several processes may append at once: WAL mode, a busy timeout,
 * and BEGIN IMMEDIATE for every write transaction.
 */
#include "recorder.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUSY_TIMEOUT_MS 60000

struct rec_db {
	sqlite3 *db; /* the connection */
};

static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS run("
	" run_id INTEGER PRIMARY KEY, scenario TEXT NOT NULL, policy TEXT NOT NULL,"
	" seed INTEGER NOT NULL, label TEXT,"
	" status TEXT NOT NULL CHECK(status IN ('running','complete','aborted','failed')),"
	" sim_duration_ns INTEGER NOT NULL, sim_end_ns INTEGER, events INTEGER, wall_s REAL,"
	" started_at TEXT NOT NULL, version TEXT NOT NULL, host TEXT);"
	"CREATE TABLE IF NOT EXISTS param(run_id INTEGER NOT NULL REFERENCES run,"
	" name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(run_id, name));"
	"CREATE TABLE IF NOT EXISTS scalar(run_id INTEGER NOT NULL REFERENCES run,"
	" name TEXT NOT NULL, value REAL, PRIMARY KEY(run_id, name));"
	"CREATE TABLE IF NOT EXISTS series(series_id INTEGER PRIMARY KEY,"
	" run_id INTEGER NOT NULL REFERENCES run, name TEXT NOT NULL, cpu INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS point(series_id INTEGER NOT NULL REFERENCES series,"
	" t_ns INTEGER NOT NULL, value REAL NOT NULL);"
	"CREATE TABLE IF NOT EXISTS hist(run_id INTEGER NOT NULL REFERENCES run,"
	" name TEXT NOT NULL, lo REAL NOT NULL, hi REAL NOT NULL, count INTEGER NOT NULL);"
	"CREATE INDEX IF NOT EXISTS series_run ON series(run_id, name, cpu);"
	"CREATE INDEX IF NOT EXISTS point_series ON point(series_id, t_ns);"
	"CREATE INDEX IF NOT EXISTS hist_run ON hist(run_id, name);";

static int dberr(rec_db *db, char *err, size_t errlen, const char *what)
{
	if (err && errlen)
		snprintf(err, errlen, "database: %s: %s", what, sqlite3_errmsg(db->db));
	return REC_EDB;
}

static int exec(rec_db *db, const char *sql, char *err, size_t errlen)
{
	if (sqlite3_exec(db->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return dberr(db, err, errlen, sql);
	return 0;
}

static int user_version(rec_db *db, int *v)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return REC_EDB;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : REC_EDB;
}

int rec_open(rec_db **out, const char *path, char *err, size_t errlen)
{
	rec_db *db = calloc(1, sizeof(*db));
	int rc, v = 0;
	if (!db) {
		snprintf(err, errlen, "out of memory");
		return REC_EDB;
	}
	if (sqlite3_open_v2(path, &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		if (!db->db) {
			snprintf(err, errlen, "database: %s: cannot open", path);
			free(db);
			return REC_EDB;
		}
		snprintf(err, errlen, "database: %s: %s", path, sqlite3_errmsg(db->db));
		rec_close(db);
		return REC_EDB;
	}
	sqlite3_busy_timeout(db->db, BUSY_TIMEOUT_MS);
	if ((rc = exec(db, "PRAGMA journal_mode=WAL", err, errlen)) ||
	    (rc = exec(db, "PRAGMA foreign_keys=ON", err, errlen)))
		goto fail;
	if (user_version(db, &v)) {
		rc = dberr(db, err, errlen, path);
		goto fail;
	}
	if (v > REC_SCHEMA_VERSION) {
		snprintf(err, errlen,
			 "database: %s: schema version %d is newer than this rcusim knows (%d)", path,
			 v, REC_SCHEMA_VERSION);
		rc = REC_ENEWER;
		goto fail;
	}
	if (v < REC_SCHEMA_VERSION) {
		/* Version 0 is an empty (or foreign) file: create the tables. Later
		 * versions migrate step by step here. */
		if ((rc = exec(db, "BEGIN IMMEDIATE", err, errlen)))
			goto fail;
		if ((rc = exec(db, schema_sql, err, errlen)) ||
		    (rc = exec(db, "PRAGMA user_version = 1", err, errlen)) ||
		    (rc = exec(db, "COMMIT", err, errlen))) {
			sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
			goto fail;
		}
	}
	*out = db;
	return 0;
fail:
	rec_close(db);
	return rc;
}

void rec_close(rec_db *db)
{
	if (!db)
		return;
	sqlite3_close(db->db);
	free(db);
}

sqlite3 *rec_handle(rec_db *db)
{
	return db->db;
}

/* Prepare @sql into *st or report. */
static int prep(rec_db *db, sqlite3_stmt **st, const char *sql, char *err, size_t errlen)
{
	if (sqlite3_prepare_v2(db->db, sql, -1, st, NULL) != SQLITE_OK)
		return dberr(db, err, errlen, sql);
	return 0;
}

/* Step a bound statement to completion and reset it for reuse. */
static int step_done(rec_db *db, sqlite3_stmt *st, char *err, size_t errlen, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return dberr(db, err, errlen, what);
	return 0;
}

int rec_run_begin(rec_db *db, const rec_run_info *info, const sim_params *p, int64_t *run_id,
		  char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	char when[32], host[256] = "";
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (gethostname(host, sizeof(host) - 1))
		host[0] = 0;
	int rc = exec(db, "BEGIN IMMEDIATE", err, errlen);
	if (rc)
		return rc;
	if ((rc = prep(db, &st,
		       "INSERT INTO run(scenario, policy, seed, label, status, sim_duration_ns,"
		       " started_at, version, host) VALUES(?, ?, ?, ?, 'running', ?, ?, ?, ?)",
		       err, errlen)))
		goto fail;
	sqlite3_bind_text(st, 1, info->scenario, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, info->policy, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, info->seed);
	if (info->label)
		sqlite3_bind_text(st, 4, info->label, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 5, info->duration_ns);
	sqlite3_bind_text(st, 6, when, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 7, info->version, -1, SQLITE_TRANSIENT);
	if (host[0])
		sqlite3_bind_text(st, 8, host, -1, SQLITE_TRANSIENT);
	if ((rc = step_done(db, st, err, errlen, "insert run")))
		goto fail;
	sqlite3_finalize(st);
	st = NULL;
	*run_id = sqlite3_last_insert_rowid(db->db);
	if ((rc = prep(db, &st, "INSERT INTO param(run_id, name, value) VALUES(?, ?, ?)", err,
		       errlen)))
		goto fail;
	for (size_t k = 0; k < sim_params_count(p); k++) {
		sqlite3_bind_int64(st, 1, *run_id);
		sqlite3_bind_text(st, 2, sim_params_def(p, k)->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, sim_params_text(p, k), -1, SQLITE_TRANSIENT);
		if ((rc = step_done(db, st, err, errlen, "insert param")))
			goto fail;
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = exec(db, "COMMIT", err, errlen)))
		goto fail;
	return 0;
fail:
	sqlite3_finalize(st);
	sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int rec_run_end(rec_db *db, int64_t run_id, const rec_run_result *res, const sim_metrics *m,
		char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL, *pt = NULL;
	int rc = exec(db, "BEGIN IMMEDIATE", err, errlen);
	if (rc)
		return rc;
	if ((rc = prep(db, &st, "INSERT INTO scalar(run_id, name, value) VALUES(?, ?, ?)", err,
		       errlen)))
		goto fail;
	for (size_t k = 0; k < sim_metrics_nscalars(m); k++) {
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_text(st, 2, sim_metrics_scalar_name(m, k), -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 3, sim_metrics_scalar_value(m, k));
		if ((rc = step_done(db, st, err, errlen, "insert scalar")))
			goto fail;
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = prep(db, &st, "INSERT INTO series(run_id, name, cpu) VALUES(?, ?, ?)", err,
		       errlen)) ||
	    (rc = prep(db, &pt, "INSERT INTO point(series_id, t_ns, value) VALUES(?, ?, ?)", err,
		       errlen)))
		goto fail;
	for (size_t k = 0; k < sim_metrics_nseries(m); k++) {
		const sim_series *s = sim_metrics_series_at(m, k);
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_text(st, 2, s->name, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, s->cpu);
		if ((rc = step_done(db, st, err, errlen, "insert series")))
			goto fail;
		int64_t sid = sqlite3_last_insert_rowid(db->db);
		for (size_t j = 0; j < s->n; j++) {
			sqlite3_bind_int64(pt, 1, sid);
			sqlite3_bind_int64(pt, 2, s->t[j]);
			sqlite3_bind_double(pt, 3, s->v[j]);
			if ((rc = step_done(db, pt, err, errlen, "insert point")))
				goto fail;
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(pt);
	st = pt = NULL;
	if ((rc = prep(db, &st, "INSERT INTO hist(run_id, name, lo, hi, count) VALUES(?, ?, ?, ?, ?)",
		       err, errlen)))
		goto fail;
	for (size_t k = 0; k < sim_metrics_nhists(m); k++) {
		const sim_hist *h = sim_metrics_hist_at(m, k);
		for (size_t b = 0; b < SIM_HIST_BINS; b++) {
			if (!h->bins[b])
				continue;
			uint64_t lo, hi;
			sim_hist_edges(b, &lo, &hi);
			sqlite3_bind_int64(st, 1, run_id);
			sqlite3_bind_text(st, 2, sim_metrics_hist_name(m, k), -1, SQLITE_STATIC);
			sqlite3_bind_double(st, 3, (double)lo);
			sqlite3_bind_double(st, 4, hi ? (double)hi : 18446744073709551616.0);
			sqlite3_bind_int64(st, 5, (sqlite3_int64)h->bins[b]);
			if ((rc = step_done(db, st, err, errlen, "insert hist")))
				goto fail;
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = prep(db, &st,
		       "UPDATE run SET status = ?, sim_end_ns = ?, events = ?, wall_s = ?"
		       " WHERE run_id = ?",
		       err, errlen)))
		goto fail;
	sqlite3_bind_text(st, 1, res->status, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, res->sim_end_ns);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)res->events);
	sqlite3_bind_double(st, 4, res->wall_s);
	sqlite3_bind_int64(st, 5, run_id);
	if ((rc = step_done(db, st, err, errlen, "update run")))
		goto fail;
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = exec(db, "COMMIT", err, errlen)))
		goto fail;
	return 0;
fail:
	sqlite3_finalize(st);
	sqlite3_finalize(pt);
	sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int rec_run_mark(rec_db *db, int64_t run_id, const char *status, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = prep(db, &st, "UPDATE run SET status = ? WHERE run_id = ?", err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, run_id);
	rc = step_done(db, st, err, errlen, "update run status");
	sqlite3_finalize(st);
	return rc;
}
