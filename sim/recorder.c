/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * recorder.c - SQLite results database. Every value is bound; SQL text is
 * constant. Several processes may append at once: WAL mode, a busy timeout,
 * and BEGIN IMMEDIATE for every write transaction.
 */
#include "recorder.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BUSY_TIMEOUT_MS 60000

struct rec_db {
	sqlite3 *db;     /* the connection */
	char path[4096]; /* the file, for messages */
};

static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS run("
	" run_id INTEGER PRIMARY KEY, scenario TEXT NOT NULL, policy TEXT NOT NULL,"
	" seed INTEGER NOT NULL, label TEXT,"
	" status TEXT NOT NULL CHECK(status IN ('running','complete','aborted','failed')),"
	" sim_duration_ns INTEGER NOT NULL, sim_end_ns INTEGER, events INTEGER, wall_s REAL,"
	" started_at TEXT NOT NULL, version TEXT NOT NULL, host TEXT,"
	" pid INTEGER, heartbeat_at REAL);"
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

/* Where each parameter's value came from ("default", FILE:LINE, "--set",
 * a kernel parameter), for `rcusim show`. A table of its own, created in
 * every database a run opens to write, so that databases of schema
 * version 2 written before it gain it and stay readable by older rcusims;
 * a run recorded without it has no rows there. */
static const char param_origin_sql[] =
	"CREATE TABLE IF NOT EXISTS param_origin(run_id INTEGER NOT NULL REFERENCES run,"
	" name TEXT NOT NULL, origin TEXT NOT NULL, PRIMARY KEY(run_id, name));";

static int dberr(rec_db *db, char *err, size_t errlen, const char *what)
{
	if (err && errlen)
		snprintf(err, errlen, "database %s: %s: %s", db->path, what, sqlite3_errmsg(db->db));
	return SIM_EIO;
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
		return SIM_EIO;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : SIM_EIO;
}

/* A results database is a file: "" and ":memory:" would take the runs
 * nowhere. 0 or SIM_EINPUT. */
static int check_path(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (*path && strcmp(path, ":memory:")) {
		/* A new file, or a regular one: not a directory, nor a FIFO
		 * that would block the open. */
		if (stat(path, &st) || S_ISREG(st.st_mode))
			return 0;
		snprintf(err, errlen, "database %s: %s", path,
			 S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		return SIM_EINPUT;
	}
	snprintf(err, errlen, "database \"%s\": not a file (a results database must be a file, "
		 "for example rcusim.db)", path);
	return SIM_EINPUT;
}

/* The schema version in *@v and whether the file holds tables (*@tables),
 * read in one statement, so in one snapshot: a database another run is
 * creating is seen before or after its one transaction, never between.
 * 0 or SIM_EIO. */
static int schema_state(rec_db *db, int *v, bool *tables)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->db,
			       "SELECT user_version, (SELECT count(*) FROM sqlite_master)"
			       " FROM pragma_user_version",
			       -1, &st, NULL) != SQLITE_OK)
		return SIM_EIO;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*v = sqlite3_column_int(st, 0);
		*tables = sqlite3_column_int(st, 1) > 0;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : SIM_EIO;
}

/* A schema newer than this rcusim's: SIM_ENEWER, said in @err. */
static int newer(const char *path, int v, char *err, size_t errlen)
{
	snprintf(err, errlen, "database %s: schema version %d is newer than this rcusim knows (%d)",
		 path, v, REC_SCHEMA_VERSION);
	return SIM_ENEWER;
}

/* After schema_state() failed: a file that is not SQLite's at all is an
 * input error (SIM_EINPUT), anything else SIM_EIO. */
static int not_ours(rec_db *db, char *err, size_t errlen)
{
	if (sqlite3_errcode(db->db) != SQLITE_NOTADB)
		return dberr(db, err, errlen, "schema version");
	snprintf(err, errlen, "database %s: not an rcusim results database (not an SQLite file); "
		 "left as it is", db->path);
	return SIM_EINPUT;
}

/* How long a connection waits for a lock: BUSY_TIMEOUT_MS, or
 * RCUSIM_BUSY_TIMEOUT_MS (tests hold locks and wait less). */
static int busy_timeout_ms(void)
{
	const char *bt = getenv("RCUSIM_BUSY_TIMEOUT_MS");
	return bt && atoi(bt) > 0 ? atoi(bt) : BUSY_TIMEOUT_MS;
}

/* The name under which SQLite opens (or attaches) the file @path, in
 * @buf (PATH_MAX + 3 bytes): @path itself, or "./@path" when it begins
 * with "file:", which an SQLite built with SQLITE_USE_URI (Debian's is)
 * reads as a URI even without SQLITE_OPEN_URI ("file::memory:", or
 * "file:x.db?mode=memory", would keep the runs in memory). A database is a
 * plain path: "file:z.db" is the file of that name. */
static const char *sqlite_name(const char *path, char *buf, size_t len)
{
	if (strncasecmp(path, "file:", 5))
		return path;
	snprintf(buf, len, "./%s", path);
	return buf;
}

/* SQLite's handle for @path in *@db, opened with @flags (never as a URI)
 * and the busy timeout; @path kept for messages. 0, SIM_ENOMEM or
 * SIM_EIO (message in @err). */
static int open_handle(rec_db **out, const char *path, int flags, char *err, size_t errlen)
{
	rec_db *db = calloc(1, sizeof(*db));
	*out = NULL;
	if (!db) {
		snprintf(err, errlen, "out of memory");
		return SIM_ENOMEM;
	}
	snprintf(db->path, sizeof(db->path), "%s", path);
	char name[PATH_MAX + 3];
	if (strlen(path) >= PATH_MAX) {
		snprintf(err, errlen, "database %.200s...: path longer than %d bytes", path, PATH_MAX - 1);
		free(db);
		return SIM_EINPUT;
	}
	if (sqlite3_open_v2(sqlite_name(path, name, sizeof(name)), &db->db, flags, NULL) != SQLITE_OK) {
		if (!db->db) {
			snprintf(err, errlen, "database %s: cannot open", path);
			free(db);
			return SIM_EIO;
		}
		snprintf(err, errlen, "database %s: %s", path, sqlite3_errmsg(db->db));
		rec_close(db);
		return SIM_EIO;
	}
	sqlite3_busy_timeout(db->db, busy_timeout_ms());
	*out = db;
	return 0;
}

/* Does a file @path@suffix exist? */
static bool side_file_exists(const char *path, const char *suffix)
{
	char name[PATH_MAX + 8];
	snprintf(name, sizeof(name), "%s%s", path, suffix);
	return !access(name, F_OK);
}

/* How a reader opens @path. A read-only connection to a WAL database makes
 * its -wal and -shm files and cannot remove them when it closes, so they
 * would stay beside the file (another program's database, or ours, for
 * every `rcusim runs`). When neither exists, no connection is open and
 * the log holds nothing: a read-write connection (PRAGMA query_only; it
 * writes nothing) is then the last to close and removes the two files it
 * made, changing no byte of the database. When they exist, or the file
 * cannot be written, read-only: what is there stays as it is. */
static int reader_flags(const char *path)
{
	if (access(path, W_OK) || side_file_exists(path, "-wal") || side_file_exists(path, "-shm"))
		return SQLITE_OPEN_READONLY;
	return SQLITE_OPEN_READWRITE;
}

/* rec_open_ro() for files of schema version @min_v or later. */
static int open_ro(rec_db **out, const char *path, int min_v, char *err, size_t errlen)
{
	rec_db *db;
	int v = 0, rc = check_path(path, err, errlen);
	bool foreign = false, tables = false;
	*out = NULL;
	if (rc || (rc = open_handle(&db, path, reader_flags(path), err, errlen)))
		return rc;
	if ((rc = exec(db, "PRAGMA query_only = ON", err, errlen)))
		goto fail;
	if (schema_state(db, &v, &tables)) {
		rc = not_ours(db, err, errlen);
		goto fail;
	}
	foreign = v == 0 && tables;
	if (v > REC_SCHEMA_VERSION) {
		rc = newer(path, v, err, errlen);
		goto fail;
	}
	if (v == 0) {
		snprintf(err, errlen, "database %s: not an rcusim results database (%s)", path,
			 foreign ? "it holds tables of another program" : "it is empty");
		rc = SIM_EINPUT;
		goto fail;
	}
	if (v < min_v) {
		snprintf(err, errlen,
			 "database %s: schema version %d, written by an older rcusim: `rcusim merge "
			 "NEW.db %s` copies its runs into a current database (reading commands leave it "
			 "as it is)", path, v, path);
		rc = SIM_EINPUT;
		goto fail;
	}
	*out = db;
	return 0;
fail:
	rec_close(db);
	return rc;
}

int rec_open_ro(rec_db **out, const char *path, char *err, size_t errlen)
{
	return open_ro(out, path, REC_SCHEMA_VERSION, err, errlen);
}

int rec_open(rec_db **out, const char *path, char *err, size_t errlen)
{
	rec_db *db;
	int rc = check_path(path, err, errlen), v = 0;
	bool foreign = false, tables = false;
	*out = NULL;
	if (rc || (rc = open_handle(&db, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err, errlen)))
		return rc;
	int busy_ms = busy_timeout_ms();
	/* Another program's database is left as it is. */
	if (schema_state(db, &v, &tables)) {
		rc = not_ours(db, err, errlen);
		goto fail;
	}
	foreign = v == 0 && tables;
	if (foreign) {
		snprintf(err, errlen,
			 "database %s: not an rcusim results database (it holds tables of another "
			 "program); left as it is", path);
		rc = SIM_EINPUT;
		goto fail;
	}
	if (v > REC_SCHEMA_VERSION) {
		rc = newer(path, v, err, errlen);
		goto fail;
	}
	/* Switching a new file to WAL needs an exclusive lock that SQLite does
	 * not wait for with the busy handler: when several runs create the same
	 * database at once, one gets SQLITE_BUSY at once. Retry it for as long
	 * as the busy timeout. */
	for (int waited = 0;; waited += 10) {
		int src = sqlite3_exec(db->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
		if (src == SQLITE_OK)
			break;
		if ((src != SQLITE_BUSY && src != SQLITE_LOCKED) || waited >= busy_ms) {
			rc = dberr(db, err, errlen, "PRAGMA journal_mode=WAL");
			goto fail;
		}
		sqlite3_sleep(10);
	}
	if ((rc = exec(db, "PRAGMA foreign_keys=ON", err, errlen)))
		goto fail;
	if (user_version(db, &v)) {
		rc = dberr(db, err, errlen, path);
		goto fail;
	}
	if (v > REC_SCHEMA_VERSION) { /* another rcusim may have created it meanwhile */
		rc = newer(path, v, err, errlen);
		goto fail;
	}
	if (v < REC_SCHEMA_VERSION) {
		/* Version 0 is a new or empty file: create the tables.
		 * Version 1 lacks the run's owner and heartbeat. Read the version
		 * again under the write lock: another run may have migrated it. */
		if ((rc = exec(db, "BEGIN IMMEDIATE", err, errlen)))
			goto fail;
		if (user_version(db, &v)) {
			rc = dberr(db, err, errlen, path);
			sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
			goto fail;
		}
		if ((v == 0 && (rc = exec(db, schema_sql, err, errlen))) ||
		    (v == 1 && (rc = exec(db, "ALTER TABLE run ADD COLUMN pid INTEGER;"
					  "ALTER TABLE run ADD COLUMN heartbeat_at REAL", err, errlen))) ||
		    (rc = exec(db, "PRAGMA user_version = 2", err, errlen)) ||
		    (rc = exec(db, "COMMIT", err, errlen))) {
			sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
			goto fail;
		}
	}
	if ((rc = exec(db, param_origin_sql, err, errlen)))
		goto fail;
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

const char *rec_path(const rec_db *db)
{
	return db->path;
}

void rec_busy_timeout(rec_db *db, int ms)
{
	sqlite3_busy_timeout(db->db, ms);
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
	char when[64], host[256] = "";
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	/* Microseconds: with the host, the run's identity when databases merge. */
	size_t wl = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + wl, sizeof(when) - wl, ".%06ldZ", ts.tv_nsec / 1000);
	if (gethostname(host, sizeof(host) - 1))
		host[0] = 0;
	if (strlen(info->scenario) > REC_LABEL_MAX || (info->label && strlen(info->label) > REC_LABEL_MAX)) {
		snprintf(err, errlen, "database: a %s longer than %d bytes cannot be recorded",
			 strlen(info->scenario) > REC_LABEL_MAX ? "scenario name" : "label", REC_LABEL_MAX);
		return SIM_EINPUT;
	}
	int rc = exec(db, "BEGIN IMMEDIATE", err, errlen);
	if (rc)
		return rc;
	if ((rc = prep(db, &st,
		       "INSERT INTO run(scenario, policy, seed, label, status, sim_duration_ns,"
		       " started_at, version, host, pid, heartbeat_at)"
		       " VALUES(?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?)",
		       err, errlen)))
		goto fail;
	sqlite3_bind_int64(st, 9, (int64_t)getpid());
	sqlite3_bind_double(st, 10, (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
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
	if ((rc = prep(db, &st, "INSERT INTO param_origin(run_id, name, origin) VALUES(?, ?, ?)", err,
		       errlen)))
		goto fail;
	for (size_t k = 0; k < sim_params_count(p); k++) {
		sqlite3_bind_int64(st, 1, *run_id);
		sqlite3_bind_text(st, 2, sim_params_def(p, k)->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, sim_params_origin(p, k), -1, SQLITE_TRANSIENT);
		if ((rc = step_done(db, st, err, errlen, "insert param origin")))
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

/* Is every metric of @m defined in @defs with its kind? 0, or SIM_EMETRIC
 * naming the first that is not. Cost: each metric (a series per CPU) times
 * the tens of definitions, once per run: small beside writing their rows. */
static int check_registered(const sim_metrics *m, const sim_metric_def *defs, size_t ndefs,
			    char *err, size_t errlen)
{
	const char *name = NULL;
	sim_metric_kind kind = SIM_M_SCALAR;
	for (size_t k = 0; !name && k < sim_metrics_nscalars(m); k++)
		if (!sim_metric_find(defs, ndefs, sim_metrics_scalar_name(m, k), SIM_M_SCALAR))
			name = sim_metrics_scalar_name(m, k);
	for (size_t k = 0; !name && k < sim_metrics_nseries(m); k++)
		if (!sim_metric_find(defs, ndefs, sim_metrics_series_at(m, k)->name, SIM_M_SERIES)) {
			name = sim_metrics_series_at(m, k)->name;
			kind = SIM_M_SERIES;
		}
	for (size_t k = 0; !name && k < sim_metrics_nhists(m); k++)
		if (!sim_metric_find(defs, ndefs, sim_metrics_hist_name(m, k), SIM_M_HIST)) {
			name = sim_metrics_hist_name(m, k);
			kind = SIM_M_HIST;
		}
	if (!name)
		return 0;
	snprintf(err, errlen,
		 "metric \"%s\" (%s) is not in the metric registry: a bug in the model that wrote it; "
		 "nothing recorded",
		 name, sim_metric_kind_name(kind));
	return SIM_EMETRIC;
}

int rec_run_end(rec_db *db, int64_t run_id, const rec_run_result *res, const sim_metrics *m,
		const sim_metric_def *defs, size_t ndefs, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL, *pt = NULL;
	int rc = check_registered(m, defs, ndefs, err, errlen);
	if (rc)
		return rc;
	rc = exec(db, "BEGIN IMMEDIATE", err, errlen);
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

int rec_run_mark_aside(rec_db *db, int64_t run_id, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = prep(db, &st, "UPDATE run SET heartbeat_at = -1 WHERE run_id = ? AND status = 'running'",
		      err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	rc = step_done(db, st, err, errlen, "mark the run's results as in a side database");
	sqlite3_finalize(st);
	return rc;
}

int rec_run_save_side(rec_db *db, int64_t run_id, const char *side_path, const rec_run_result *res,
		      const sim_metrics *m, const sim_metric_def *defs, size_t ndefs, char *err,
		      size_t errlen)
{
	rec_db *side;
	sqlite3_stmt *st = NULL;
	int rc = rec_open(&side, side_path, err, errlen);
	if (rc)
		return rc;
	/* The run's row and parameters as the database holds them (a WAL
	 * reader waits for no writer), under the same identity, so that
	 * merging the side file completes the row in place. */
	if ((rc = prep(side, &st, "ATTACH DATABASE ? AS orig", err, errlen)))
		goto out;
	char orig_name[PATH_MAX + 3];
	sqlite3_bind_text(st, 1, sqlite_name(db->path, orig_name, sizeof(orig_name)), -1, SQLITE_STATIC);
	rc = step_done(side, st, err, errlen, "attach");
	sqlite3_finalize(st);
	st = NULL;
	/* Deferred: BEGIN IMMEDIATE would lock every attached database, and
	 * the original is the one that is locked. */
	if (rc || (rc = exec(side, "BEGIN", err, errlen)))
		goto out;
	if ((rc = prep(side, &st,
		       "INSERT INTO run SELECT * FROM orig.run WHERE run_id = ?1;", err, errlen)))
		goto rollback;
	sqlite3_bind_int64(st, 1, run_id);
	if ((rc = step_done(side, st, err, errlen, "copy run")))
		goto rollback;
	sqlite3_finalize(st);
	if ((rc = prep(side, &st, "INSERT INTO param SELECT * FROM orig.param WHERE run_id = ?1",
		       err, errlen)))
		goto rollback;
	sqlite3_bind_int64(st, 1, run_id);
	if ((rc = step_done(side, st, err, errlen, "copy params")))
		goto rollback;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_changes(side->db) == 0) {
		snprintf(err, errlen, "database %s: run %lld has no parameters to copy", db->path,
			 (long long)run_id);
		rc = SIM_EIO;
		goto rollback;
	}
	if ((rc = prep(side, &st, "INSERT INTO param_origin SELECT * FROM orig.param_origin WHERE run_id = ?1",
		       err, errlen)))
		goto rollback;
	sqlite3_bind_int64(st, 1, run_id);
	if ((rc = step_done(side, st, err, errlen, "copy param origins")))
		goto rollback;
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = exec(side, "COMMIT", err, errlen)))
		goto rollback;
	exec(side, "DETACH DATABASE orig", NULL, 0);
	rc = rec_run_end(side, run_id, res, m, defs, ndefs, err, errlen);
	goto out;
rollback:
	sqlite3_finalize(st);
	st = NULL;
	sqlite3_exec(side->db, "ROLLBACK", NULL, NULL, NULL);
out:
	sqlite3_finalize(st);
	rec_close(side);
	return rc;
}

/* ---- queries -------------------------------------------------------------- */

static void copy_text(char *dst, size_t len, const unsigned char *src)
{
	snprintf(dst, len, "%s", src ? (const char *)src : "");
}

/* Whether the owner of a 'running' row is gone: its process is not alive on
 * this host, or its heartbeat (any host) is older than REC_LOST_AFTER_S. A
 * row without an owner (written before schema version 2) cannot tell. */
static bool run_lost(const char *host, int64_t pid, double heartbeat, bool has_heartbeat)
{
	struct timespec ts;
	char me[256] = "";
	clock_gettime(CLOCK_REALTIME, &ts);
	double now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	if (has_heartbeat && now - heartbeat > REC_LOST_AFTER_S)
		return true;
	if (pid <= 0 || gethostname(me, sizeof(me) - 1) || strcmp(me, host))
		return false;
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

static void fill_row(sqlite3_stmt *st, rec_run_row *r)
{
	r->run_id = sqlite3_column_int64(st, 0);
	copy_text(r->scenario, sizeof(r->scenario), sqlite3_column_text(st, 1));
	copy_text(r->policy, sizeof(r->policy), sqlite3_column_text(st, 2));
	r->seed = sqlite3_column_int64(st, 3);
	copy_text(r->label, sizeof(r->label), sqlite3_column_text(st, 4));
	copy_text(r->status, sizeof(r->status), sqlite3_column_text(st, 5));
	r->sim_end_ns = sqlite3_column_int64(st, 6);
	r->sim_duration_ns = sqlite3_column_int64(st, 7);
	r->wall_s = sqlite3_column_double(st, 8);
	copy_text(r->started_at, sizeof(r->started_at), sqlite3_column_text(st, 9));
	copy_text(r->host, sizeof(r->host), sqlite3_column_text(st, 10));
	r->pid = sqlite3_column_int64(st, 11);
	/* A heartbeat of -1: its results are in a side database
	 * (rec_run_mark_aside()). */
	if (!strcmp(r->status, "running") && sqlite3_column_type(st, 12) != SQLITE_NULL &&
	    sqlite3_column_double(st, 12) < 0)
		snprintf(r->status, sizeof(r->status), "aside");
	else if (!strcmp(r->status, "running") &&
	    run_lost(r->host, r->pid, sqlite3_column_double(st, 12),
		     sqlite3_column_type(st, 12) != SQLITE_NULL))
		snprintf(r->status, sizeof(r->status), "lost");
}

#define RUN_COLS                                                                                  \
	"run_id, scenario, policy, seed, label, status, sim_end_ns, sim_duration_ns, wall_s,"     \
	" started_at, host, pid, heartbeat_at"

/* Every row @st yields, appended to *@out (*@k of *@cap used, grown as
 * needed). 0, SIM_ENOMEM or SIM_EIO (@what names the query). */
static int collect_rows(rec_db *db, sqlite3_stmt *st, rec_run_row **out, size_t *cap, size_t *k,
			const char *what, char *err, size_t errlen)
{
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		if (*k == *cap) {
			rec_run_row *nr = realloc(*out, 2 * *cap * sizeof(*nr));
			if (!nr) {
				snprintf(err, errlen, "out of memory");
				return SIM_ENOMEM;
			}
			*out = nr;
			*cap *= 2;
		}
		fill_row(st, &(*out)[(*k)++]);
	}
	return s == SQLITE_DONE ? 0 : dberr(db, err, errlen, what);
}

int rec_select_runs(rec_db *db, const int64_t *ids, size_t n, rec_run_row **rows, size_t *nrows,
		    char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	size_t cap = n ? n : 8, k = 0;
	rec_run_row *out = malloc(cap * sizeof(*out));
	int rc;
	if (!out) {
		snprintf(err, errlen, "out of memory");
		return SIM_ENOMEM;
	}
	if (n) {
		if ((rc = prep(db, &st, "SELECT " RUN_COLS " FROM run WHERE run_id = ?", err, errlen)))
			goto fail;
		for (size_t i = 0; i < n; i++) {
			sqlite3_bind_int64(st, 1, ids[i]);
			int s = sqlite3_step(st);
			if (s == SQLITE_ROW) {
				fill_row(st, &out[k++]);
			} else if (s == SQLITE_DONE) {
				snprintf(err, errlen, "no run %lld in the database", (long long)ids[i]);
				rc = SIM_ENORUN;
				goto fail;
			} else {
				rc = dberr(db, err, errlen, "select run");
				goto fail;
			}
			sqlite3_reset(st);
		}
	} else {
		if ((rc = prep(db, &st,
			       "SELECT " RUN_COLS " FROM run WHERE run_id IN (SELECT max(run_id) FROM run"
			       " WHERE status = 'complete' GROUP BY policy) ORDER BY policy",
			       err, errlen)))
			goto fail;
		if ((rc = collect_rows(db, st, &out, &cap, &k, "select runs", err, errlen)))
			goto fail;
	}
	sqlite3_finalize(st);
	*rows = out;
	*nrows = k;
	return 0;
fail:
	sqlite3_finalize(st);
	free(out);
	return rc;
}

int rec_list_runs(rec_db *db, rec_run_row **rows, size_t *nrows, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 8, k = 0;
	rec_run_row *out = malloc(cap * sizeof(*out));
	int rc;
	if (!out) {
		snprintf(err, errlen, "out of memory");
		return SIM_ENOMEM;
	}
	if ((rc = prep(db, &st, "SELECT " RUN_COLS " FROM run ORDER BY run_id", err, errlen)) ||
	    (rc = collect_rows(db, st, &out, &cap, &k, "list runs", err, errlen))) {
		sqlite3_finalize(st);
		free(out);
		return rc;
	}
	sqlite3_finalize(st);
	*rows = out;
	*nrows = k;
	return 0;
}

int rec_heartbeat(rec_db *db, int64_t run_id, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int rc = prep(db, &st, "UPDATE run SET heartbeat_at = ? WHERE run_id = ?", err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_double(st, 1, (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
	sqlite3_bind_int64(st, 2, run_id);
	rc = step_done(db, st, err, errlen, "heartbeat");
	sqlite3_finalize(st);
	return rc;
}

int rec_latest_run(rec_db *db, int64_t *run_id, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = prep(db, &st, "SELECT coalesce(max(run_id), 0) FROM run", err, errlen);
	if (rc)
		return rc;
	if (sqlite3_step(st) != SQLITE_ROW)
		rc = dberr(db, err, errlen, "latest run");
	else
		*run_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc;
}

int rec_latest_complete_run(rec_db *db, const char *scenario, const char *policy, int64_t seed,
			    sim_time duration_ns, int64_t *run_id, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = prep(db, &st,
		      "SELECT coalesce(max(run_id), 0) FROM run WHERE status = 'complete'"
		      " AND scenario = ? AND policy = ? AND seed = ? AND sim_duration_ns = ?",
		      err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, scenario, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, policy, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, seed);
	sqlite3_bind_int64(st, 4, duration_ns);
	if (sqlite3_step(st) != SQLITE_ROW)
		rc = dberr(db, err, errlen, "latest complete run");
	else
		*run_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc;
}

int rec_scalar(rec_db *db, int64_t run_id, const char *name, double *v, bool *present, char *err,
	       size_t errlen)
{
	sqlite3_stmt *st;
	int rc = prep(db, &st, "SELECT value FROM scalar WHERE run_id = ? AND name = ?", err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	*present = s == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL;
	if (*present)
		*v = sqlite3_column_double(st, 0);
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		rc = dberr(db, err, errlen, "select scalar");
	sqlite3_finalize(st);
	return rc;
}

int rec_param(rec_db *db, int64_t run_id, const char *name, char *buf, size_t len, char *err,
	      size_t errlen)
{
	sqlite3_stmt *st;
	int rc = prep(db, &st, "SELECT value FROM param WHERE run_id = ? AND name = ?", err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	copy_text(buf, len, s == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL);
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		rc = dberr(db, err, errlen, "select param");
	sqlite3_finalize(st);
	return rc;
}

int64_t rec_export_series(rec_db *db, int64_t run_id, const char *name, int cpu, FILE *out,
			  char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = prep(db, &st,
		      "SELECT p.t_ns, p.value FROM point p JOIN series s USING(series_id)"
		      " WHERE s.run_id = ? AND s.name = ? AND s.cpu = ? ORDER BY p.t_ns",
		      err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, cpu);
	int64_t n = 0;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		fprintf(out, "%.9f %.17g\n", (double)sqlite3_column_int64(st, 0) / 1e9,
			sqlite3_column_double(st, 1));
		n++;
	}
	if (s != SQLITE_DONE)
		n = dberr(db, err, errlen, "select series");
	sqlite3_finalize(st);
	return n;
}

int64_t rec_export_cdf(rec_db *db, int64_t run_id, const char *name, FILE *out, char *err,
		       size_t errlen)
{
	sqlite3_stmt *st;
	int rc = prep(db, &st,
		      "SELECT hi, count, sum(count) OVER (ORDER BY lo), sum(count) OVER () FROM hist"
		      " WHERE run_id = ? AND name = ? ORDER BY lo",
		      err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	int64_t total = 0;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		total = sqlite3_column_int64(st, 3);
		fprintf(out, "%.17g %.17g\n", sqlite3_column_double(st, 0),
			(double)sqlite3_column_int64(st, 2) / (double)total);
	}
	if (s != SQLITE_DONE)
		total = dberr(db, err, errlen, "select hist");
	sqlite3_finalize(st);
	return total;
}


int rec_run_detail_get(rec_db *db, int64_t run_id, rec_run_detail *d, bool *found, char *err,
		       size_t errlen)
{
	sqlite3_stmt *st;
	int rc = prep(db, &st,
		      "SELECT " RUN_COLS ", label IS NOT NULL, wall_s IS NOT NULL, events, host IS NOT NULL,"
		      " version FROM run WHERE run_id = ?",
		      err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	int s = sqlite3_step(st);
	*found = s == SQLITE_ROW;
	if (*found) {
		memset(d, 0, sizeof(*d));
		fill_row(st, &d->row);
		d->has_label = sqlite3_column_int(st, 13);
		d->ended = sqlite3_column_int(st, 14);
		d->events = sqlite3_column_int64(st, 15);
		d->has_host = sqlite3_column_int(st, 16);
		copy_text(d->version, sizeof(d->version), sqlite3_column_text(st, 17));
	} else if (s != SQLITE_DONE) {
		rc = dberr(db, err, errlen, "select run");
	}
	sqlite3_finalize(st);
	return rc;
}

void rec_param_rows_free(rec_param_row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		free(rows[i].name);
		free(rows[i].value);
		free(rows[i].origin);
	}
	free(rows);
}

int rec_run_params(rec_db *db, int64_t run_id, rec_param_row **rows, size_t *n, char *err,
		   size_t errlen)
{
	sqlite3_stmt *st;
	bool origins = false;
	/* Databases from before origins were kept have no table for them. */
	int rc = prep(db, &st, "SELECT 1 FROM sqlite_master WHERE name = 'param_origin'", err, errlen);
	if (rc)
		return rc;
	int s = sqlite3_step(st);
	origins = s == SQLITE_ROW;
	sqlite3_finalize(st);
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		return dberr(db, err, errlen, "select param_origin");
	rc = prep(db, &st,
		  origins ? "SELECT p.name, p.value, o.origin, p.rowid FROM param p LEFT JOIN param_origin o"
			    " ON o.run_id = p.run_id AND o.name = p.name WHERE p.run_id = ? ORDER BY p.name"
			  : "SELECT name, value, NULL, rowid FROM param WHERE run_id = ? ORDER BY name",
		  err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	rec_param_row *out = NULL;
	size_t k = 0, cap = 0;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		if (k == cap) {
			cap = cap ? 2 * cap : 256;
			rec_param_row *nr = realloc(out, cap * sizeof(*nr));
			if (!nr)
				goto nomem;
			out = nr;
		}
		rec_param_row *r = &out[k++];
		const unsigned char *o = sqlite3_column_text(st, 2);
		r->name = strdup((const char *)sqlite3_column_text(st, 0));
		r->value = strdup((const char *)sqlite3_column_text(st, 1));
		r->origin = o ? strdup((const char *)o) : NULL;
		r->seq = sqlite3_column_int64(st, 3);
		if (!r->name || !r->value || (o && !r->origin))
			goto nomem;
	}
	if (s != SQLITE_DONE) {
		rc = dberr(db, err, errlen, "select param");
		sqlite3_finalize(st);
		rec_param_rows_free(out, k);
		return rc;
	}
	sqlite3_finalize(st);
	*rows = out;
	*n = k;
	return 0;
nomem:
	sqlite3_finalize(st);
	rec_param_rows_free(out, k);
	snprintf(err, errlen, "out of memory");
	return SIM_ENOMEM;
}

int rec_each_value(rec_db *db, int64_t run_id, bool hist, rec_value_fn *fn, void *ctx, char *err,
		   size_t errlen)
{
	sqlite3_stmt *st;
	int rc = prep(db, &st,
		      hist ? "SELECT name, lo, hi, count FROM hist WHERE run_id = ?1 ORDER BY name, lo"
			   : "SELECT name, NULL, NULL, value FROM scalar WHERE run_id = ?1 "
			     "UNION ALL SELECT * FROM (SELECT s.name, s.cpu, p.t_ns, p.value FROM series s "
			     "JOIN point p USING (series_id) WHERE s.run_id = ?1 ORDER BY s.name, s.cpu, p.t_ns)",
		      err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		rec_value v = { .name = (const char *)sqlite3_column_text(st, 0) };
		if (hist) {
			v.lo = sqlite3_column_double(st, 1);
			v.hi = sqlite3_column_double(st, 2);
			v.count = sqlite3_column_int64(st, 3);
		} else {
			v.is_point = sqlite3_column_type(st, 1) != SQLITE_NULL;
			if (v.is_point) {
				v.cpu = sqlite3_column_int64(st, 1);
				v.t_ns = sqlite3_column_int64(st, 2);
			}
			v.has_value = sqlite3_column_type(st, 3) != SQLITE_NULL;
			v.value = v.has_value ? sqlite3_column_double(st, 3) : 0;
		}
		if ((rc = fn(ctx, &v))) {
			sqlite3_finalize(st);
			return rc;
		}
	}
	if (s != SQLITE_DONE)
		rc = dberr(db, err, errlen, hist ? "select hist" : "select values");
	sqlite3_finalize(st);
	return rc;
}

int rec_hist_lo(rec_db *db, int64_t run_id, const char *name, double *lo, bool *present, char *err,
		size_t errlen)
{
	sqlite3_stmt *st;
	int rc = prep(db, &st, "SELECT min(lo) FROM hist WHERE run_id = ?1 AND name = ?2", err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	*present = s == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL;
	if (*present)
		*lo = sqlite3_column_double(st, 0);
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		rc = dberr(db, err, errlen, "select hist");
	sqlite3_finalize(st);
	return rc;
}

int rec_series_cpus(rec_db *db, int64_t run_id, const char *name, int *cpus, int max, int *n,
		    char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = prep(db, &st,
		      "SELECT DISTINCT cpu FROM series WHERE run_id = ?1 AND name = ?2 AND cpu >= 0 ORDER BY cpu",
		      err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	int s;
	*n = 0;
	while ((s = sqlite3_step(st)) == SQLITE_ROW && *n < max)
		cpus[(*n)++] = sqlite3_column_int(st, 0);
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		rc = dberr(db, err, errlen, "select series");
	sqlite3_finalize(st);
	return rc;
}

/* Append @id to the malloc'd array *@ids of *@n (NULL @ids: not wanted).
 * 0 or SIM_ENOMEM. */
static int push_id(int64_t **ids, size_t *n, int64_t id, char *err, size_t errlen)
{
	if (!ids)
		return 0;
	if ((*n & (*n - 1)) == 0) { /* 0, 1, 2, 4, ...: grow to twice */
		int64_t *g = realloc(*ids, (*n ? 2 * *n : 1) * sizeof(*g));
		if (!g) {
			snprintf(err, errlen, "out of memory");
			return SIM_ENOMEM;
		}
		*ids = g;
	}
	(*ids)[(*n)++] = id;
	return 0;
}

/* The rows of run @id in every table but run itself, deleted (to be
 * copied again). 0 or SIM_EIO. */
static int delete_children(rec_db *db, int64_t id, char *err, size_t errlen)
{
	static const char *const del[] = {
		"DELETE FROM point WHERE series_id IN (SELECT series_id FROM series WHERE run_id = ?1)",
		"DELETE FROM series WHERE run_id = ?1", "DELETE FROM param WHERE run_id = ?1",
		"DELETE FROM param_origin WHERE run_id = ?1",
		"DELETE FROM scalar WHERE run_id = ?1", "DELETE FROM hist WHERE run_id = ?1",
	};
	for (size_t q = 0; q < sizeof(del) / sizeof(del[0]); q++) {
		sqlite3_stmt *st;
		int rc = prep(db, &st, del[q], err, errlen);
		if (rc)
			return rc;
		sqlite3_bind_int64(st, 1, id);
		rc = step_done(db, st, err, errlen, del[q]);
		sqlite3_finalize(st);
		if (rc)
			return rc;
	}
	return 0;
}

/* Are the files @a and @b one (the same inode, whatever the names)? */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* rec_merge_check(), and @in_path's schema version in *@v. */
static int merge_check(const char *out_path, const char *in_path, int *v, char *err, size_t errlen)
{
	if (same_file(out_path, in_path)) {
		snprintf(err, errlen, "%s is the database merged into (%s): nothing to merge", in_path,
			 out_path);
		return SIM_EINPUT;
	}
	rec_db *in = NULL;
	int rc = open_ro(&in, in_path, 1, err, errlen);
	if (rc)
		return rc;
	if (user_version(in, v)) {
		snprintf(err, errlen, "database %s: cannot read its schema version", in_path);
		rc = SIM_EIO;
	}
	rec_close(in);
	return rc;
}

int rec_merge_check(const char *out_path, const char *in_path, char *err, size_t errlen)
{
	int v;
	return merge_check(out_path, in_path, &v, err, errlen);
}

int rec_merge(rec_db *db, const char *in_path, int64_t *added, int64_t *updated, int64_t *skipped,
	      int64_t **ids, size_t *nids, char *err, size_t errlen)
{
	sqlite3_stmt *runs = NULL, *dup = NULL, *ins = NULL, *ser = NULL, *ins_ser = NULL,
		     *copy = NULL, *upd = NULL;
	int rc, v = 0;
	size_t nid = 0;
	*added = *updated = *skipped = 0;
	if (ids)
		*ids = NULL;
	if ((rc = merge_check(db->path, in_path, &v, err, errlen)))
		return rc;
	if ((rc = prep(db, &copy, "ATTACH DATABASE ? AS src", err, errlen)))
		return rc;
	/* Attached to be read: nothing below writes to src. */
	char in_name[PATH_MAX + 3];
	sqlite3_bind_text(copy, 1, sqlite_name(in_path, in_name, sizeof(in_name)), -1, SQLITE_STATIC);
	rc = step_done(db, copy, err, errlen, "attach");
	sqlite3_finalize(copy);
	copy = NULL;
	if (rc)
		return rc;
	if ((rc = exec(db, "BEGIN IMMEDIATE", err, errlen)))
		goto detach;
	static const char *const per_run[] = {
		"INSERT INTO param(run_id, name, value) SELECT ?2, name, value FROM src.param WHERE run_id = ?1",
		"INSERT INTO scalar(run_id, name, value) SELECT ?2, name, value FROM src.scalar WHERE run_id = ?1",
		"INSERT INTO hist(run_id, name, lo, hi, count) SELECT ?2, name, lo, hi, count FROM src.hist WHERE run_id = ?1",
		/* last: only from a database that has the table */
		"INSERT INTO param_origin(run_id, name, origin) SELECT ?2, name, origin FROM src.param_origin WHERE run_id = ?1",
	};
	size_t nper_run = sizeof(per_run) / sizeof(per_run[0]);
	if ((rc = prep(db, &copy, "SELECT count(*) FROM src.sqlite_master WHERE name = 'param_origin'", err,
		       errlen)))
		goto rollback;
	if (sqlite3_step(copy) != SQLITE_ROW || !sqlite3_column_int(copy, 0))
		nper_run--;
	sqlite3_finalize(copy);
	copy = NULL;
	/* Version 1 rows have no owner and no heartbeat. */
	if ((rc = prep(db, &runs,
		       v >= 2 ? "SELECT run_id, scenario, policy, seed, label, status, sim_duration_ns,"
				" sim_end_ns, events, wall_s, started_at, version, host, pid, heartbeat_at"
				" FROM src.run ORDER BY run_id"
			      : "SELECT run_id, scenario, policy, seed, label, status, sim_duration_ns,"
				" sim_end_ns, events, wall_s, started_at, version, host, NULL, NULL"
				" FROM src.run ORDER BY run_id",
		       err, errlen)) ||
	    (rc = prep(db, &dup,
		       "SELECT run_id, status FROM run WHERE scenario = ?1 AND policy = ?2 AND seed = ?3"
		       " AND label IS ?4 AND started_at = ?5 AND host IS ?6 AND version = ?7"
		       " AND pid IS ?8 ORDER BY run_id LIMIT 1",
		       err, errlen)) ||
	    (rc = prep(db, &ins,
		       "INSERT INTO run(scenario, policy, seed, label, status, sim_duration_ns, sim_end_ns,"
		       " events, wall_s, started_at, version, host, pid, heartbeat_at) VALUES(?1, ?2, ?3,"
		       " ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
		       err, errlen)) ||
	    (rc = prep(db, &upd,
		       "UPDATE run SET status = ?5, sim_end_ns = ?7, events = ?8, wall_s = ?9,"
		       " heartbeat_at = ?14 WHERE run_id = ?15",
		       err, errlen)) ||
	    (rc = prep(db, &ser, "SELECT series_id, name, cpu FROM src.series WHERE run_id = ?",
		       err, errlen)) ||
	    (rc = prep(db, &ins_ser, "INSERT INTO series(run_id, name, cpu) VALUES(?, ?, ?)", err,
		       errlen)))
		goto rollback;
	int s;
	while ((s = sqlite3_step(runs)) == SQLITE_ROW) {
		int64_t old = sqlite3_column_int64(runs, 0);
		/* The same run? (scenario, policy, seed, label, started_at to the
		 * microsecond, host, version, pid: its identity, whatever became
		 * of it since) */
		static const int dcols[8] = { 1, 2, 3, 4, 10, 12, 11, 13 };
		for (int i = 0; i < 8; i++)
			sqlite3_bind_value(dup, i + 1, sqlite3_column_value(runs, dcols[i]));
		int ds = sqlite3_step(dup);
		if (ds != SQLITE_ROW && ds != SQLITE_DONE) {
			rc = dberr(db, err, errlen, "merge: duplicate check");
			goto rollback;
		}
		bool seen = ds == SQLITE_ROW;
		int64_t new_id = seen ? sqlite3_column_int64(dup, 0) : 0;
		/* A run that was still running when it was merged, merged again
		 * once it ended: its row takes the ended run's state. */
		bool ended = seen && !strcmp((const char *)sqlite3_column_text(dup, 1), "running") &&
			     strcmp((const char *)sqlite3_column_text(runs, 5), "running");
		sqlite3_reset(dup);
		if (seen && !ended) {
			(*skipped)++;
			if ((rc = push_id(ids, &nid, new_id, err, errlen)))
				goto rollback;
			continue;
		}
		if (ended) {
			for (int i = 1; i <= 14; i++)
				sqlite3_bind_value(upd, i, sqlite3_column_value(runs, i));
			sqlite3_bind_int64(upd, 15, new_id);
			if ((rc = step_done(db, upd, err, errlen, "merge: update run")) ||
			    (rc = delete_children(db, new_id, err, errlen)))
				goto rollback;
		} else {
			for (int i = 1; i <= 14; i++)
				sqlite3_bind_value(ins, i, sqlite3_column_value(runs, i));
			if ((rc = step_done(db, ins, err, errlen, "merge: insert run")))
				goto rollback;
			new_id = sqlite3_last_insert_rowid(db->db);
		}
		if ((rc = push_id(ids, &nid, new_id, err, errlen)))
			goto rollback;
		for (size_t q = 0; q < nper_run; q++) {
			if ((rc = prep(db, &copy, per_run[q], err, errlen)))
				goto rollback;
			sqlite3_bind_int64(copy, 1, old);
			sqlite3_bind_int64(copy, 2, new_id);
			rc = step_done(db, copy, err, errlen, per_run[q]);
			sqlite3_finalize(copy);
			copy = NULL;
			if (rc)
				goto rollback;
		}
		sqlite3_bind_int64(ser, 1, old);
		int ss;
		while ((ss = sqlite3_step(ser)) == SQLITE_ROW) {
			int64_t osid = sqlite3_column_int64(ser, 0);
			sqlite3_bind_int64(ins_ser, 1, new_id);
			sqlite3_bind_value(ins_ser, 2, sqlite3_column_value(ser, 1));
			sqlite3_bind_value(ins_ser, 3, sqlite3_column_value(ser, 2));
			if ((rc = step_done(db, ins_ser, err, errlen, "merge: insert series")))
				goto rollback;
			int64_t nsid = sqlite3_last_insert_rowid(db->db);
			if ((rc = prep(db, &copy,
				       "INSERT INTO point(series_id, t_ns, value) SELECT ?2, t_ns, value"
				       " FROM src.point WHERE series_id = ?1",
				       err, errlen)))
				goto rollback;
			sqlite3_bind_int64(copy, 1, osid);
			sqlite3_bind_int64(copy, 2, nsid);
			rc = step_done(db, copy, err, errlen, "merge: copy points");
			sqlite3_finalize(copy);
			copy = NULL;
			if (rc)
				goto rollback;
		}
		sqlite3_reset(ser);
		if (ss != SQLITE_DONE) {
			rc = dberr(db, err, errlen, "merge: select series");
			goto rollback;
		}
		if (ended)
			(*updated)++;
		else
			(*added)++;
	}
	if (s != SQLITE_DONE) {
		rc = dberr(db, err, errlen, "merge: select runs");
		goto rollback;
	}
	sqlite3_finalize(runs);
	sqlite3_finalize(dup);
	sqlite3_finalize(ins);
	sqlite3_finalize(ser);
	sqlite3_finalize(ins_ser);
	sqlite3_finalize(upd);
	runs = dup = ins = ser = ins_ser = upd = NULL;
	if ((rc = exec(db, "COMMIT", err, errlen)))
		goto rollback;
	exec(db, "DETACH DATABASE src", NULL, 0);
	if (nids)
		*nids = nid;
	return 0;
rollback:
	if (ids) {
		free(*ids);
		*ids = NULL;
	}
	sqlite3_finalize(runs);
	sqlite3_finalize(dup);
	sqlite3_finalize(ins);
	sqlite3_finalize(ser);
	sqlite3_finalize(ins_ser);
	sqlite3_finalize(upd);
	sqlite3_finalize(copy);
	sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
detach:
	sqlite3_exec(db->db, "DETACH DATABASE src", NULL, NULL, NULL);
	return rc;
}
