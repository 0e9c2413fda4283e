/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_recorder.c - the results database: schema, a run's rows, status
 * transitions, schema versions, failures that leave nothing 'complete', and
 * the refusal of a metric the registry does not define. */
#include <check.h>

#include "testlib.h"
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder.h"
#include "registry.h"

static char dir[64], path[128], err[1024];

static void setup(void)
{
	strcpy(dir, "/tmp/rcusim-rec-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.db", dir);
}

static void teardown(void)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* One integer from @sql on @file. */
static long long q1(const char *file, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	ck_assert_int_eq(sqlite3_open(file, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	long long v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static sim_metrics *sample_metrics(void)
{
	sim_metrics *m;
	sim_metrics_create(&m);
	sim_metrics_scalar(m, "cb.enqueued", 10);
	sim_metrics_scalar(m, "cb.invoked", 7);
	sim_series *s = sim_metrics_series(m, "cb.qlen", -1);
	for (int i = 0; i < 5; i++)
		sim_series_append(s, i * 1000, i);
	sim_series_append(sim_metrics_series(m, "cb.qlen", 3), 0, 1);
	sim_hist *h = sim_metrics_hist(m, "cb.latency_ns");
	sim_hist_add(h, 5);
	sim_hist_add(h, 5);
	sim_hist_add(h, 1000000);
	return m;
}

START_TEST(recorder_run_lifecycle)
{
	rec_db *db;
	sim_params *p;
	ck_assert_int_eq(sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)), 0);
	ck_assert_int_eq(rec_open(&db, path, err, sizeof(err)), 0);
	rec_run_info info = { "x", "fixed", 7, "lbl", 1000000, "test" };
	int64_t id;
	ck_assert_int_eq(rec_run_begin(db, &info, p, &id, err, sizeof(err)), 0);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM run WHERE status = 'running'"), 1);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM param"), P_COUNT);
	sim_metrics *m = sample_metrics();
	rec_run_result res = { "complete", 1000000, 42, 0.5 };
	ck_assert_int_eq(rec_run_end(db, id, &res, m, rcusim_metrics, M_COUNT, err, sizeof(err)), 0);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM run WHERE status = 'complete'"), 1);
	ck_assert_int_eq(q1(path, "SELECT events FROM run"), 42);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM scalar"), 2);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM series"), 2);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM point"), 6);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM hist"), 2); /* two non-empty bins */
	ck_assert_int_eq(q1(path, "SELECT sum(count) FROM hist"), 3);
	ck_assert_int_eq(q1(path, "SELECT user_version FROM pragma_user_version"), REC_SCHEMA_VERSION);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
	rec_close(db);
	sim_metrics_destroy(m);
	sim_params_destroy(p);
}
END_TEST

START_TEST(recorder_newer_schema_refused)
{
	sqlite3 *raw;
	ck_assert_int_eq(sqlite3_open(path, &raw), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(raw, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	rec_db *db = NULL;
	ck_assert_int_eq(rec_open(&db, path, err, sizeof(err)), SIM_ENEWER);
	ck_assert_ptr_nonnull(strstr(err, "schema version 99 is newer"));
}
END_TEST

START_TEST(recorder_failed_write_leaves_running)
{
	/* A run whose results cannot be written stays 'running' (never
	 * 'complete'), and rec_run_mark can then say 'failed'. Inject the
	 * failure with a trigger that rejects scalar rows. */
	rec_db *db;
	sim_params *p;
	sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err));
	ck_assert_int_eq(rec_open(&db, path, err, sizeof(err)), 0);
	ck_assert_int_eq(sqlite3_exec(rec_handle(db),
				      "CREATE TRIGGER boom BEFORE INSERT ON point "
				      "BEGIN SELECT RAISE(ABORT, 'injected'); END",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	rec_run_info info = { "x", "fixed", 7, NULL, 1000000, "test" };
	int64_t id;
	ck_assert_int_eq(rec_run_begin(db, &info, p, &id, err, sizeof(err)), 0);
	sim_metrics *m = sample_metrics();
	rec_run_result res = { "complete", 1000000, 42, 0.5 };
	ck_assert_int_eq(rec_run_end(db, id, &res, m, rcusim_metrics, M_COUNT, err, sizeof(err)), SIM_EIO);
	ck_assert_ptr_nonnull(strstr(err, "injected"));
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM run WHERE status = 'running'"), 1);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM scalar"), 0); /* rolled back */
	ck_assert_int_eq(rec_run_mark(db, id, "failed", err, sizeof(err)), 0);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM run WHERE status = 'failed'"), 1);
	rec_close(db);
	sim_metrics_destroy(m);
	sim_params_destroy(p);
}
END_TEST

/* A registry of three, for the refusal test: cb.enqueued is a scalar only,
 * cb.qlen a series only, cb.latency_ns a histogram only. */
static const sim_metric_def small_registry[] = {
	{ "cb.enqueued", SIM_M_SCALAR, "callbacks", "queued" },
	{ "cb.invoked", SIM_M_SCALAR, "callbacks", "invoked" },
	{ "cb.qlen", SIM_M_SERIES, "callbacks", "queued" },
	{ "cb.latency_ns", SIM_M_HIST, "ns", "latency" },
};

/* The metric sample_metrics() lacks that each case adds, and its kind. */
static const struct {
	const char *name;
	sim_metric_kind kind;
} unregistered[] = {
	{ "cb.bogus", SIM_M_SCALAR },      /* not in the registry at all */
	{ "cb.qlen", SIM_M_SCALAR },       /* a series name written as a scalar */
	{ "cb.enqueued", SIM_M_SERIES },   /* a scalar name written as a series */
	{ "cb.qlen", SIM_M_HIST },         /* a series name written as a histogram */
};

START_TEST(recorder_unregistered_metric_refused)
{
	/* A metric the registry does not define (with its kind) is a bug:
	 * rec_run_end writes nothing, names it, and the run stays 'running'
	 * for the caller to mark 'failed'. */
	rec_db *db;
	sim_params *p;
	const char *name = unregistered[_i].name;
	ck_assert_int_eq(sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)), 0);
	ck_assert_int_eq(rec_open(&db, path, err, sizeof(err)), 0);
	rec_run_info info = { "x", "fixed", 7, NULL, 1000000, "test" };
	int64_t id;
	ck_assert_int_eq(rec_run_begin(db, &info, p, &id, err, sizeof(err)), 0);
	rec_run_result res = { "complete", 1000000, 42, 0.5 };
	size_t nreg = sizeof(small_registry) / sizeof(small_registry[0]);
	/* Every metric of sample_metrics() is in the small registry; the one
	 * added is not. */
	sim_metrics *m = sample_metrics();
	switch (unregistered[_i].kind) {
	case SIM_M_SCALAR:
		ck_assert_int_eq(sim_metrics_scalar(m, name, 1), 0);
		break;
	case SIM_M_SERIES:
		ck_assert_int_eq(sim_series_append(sim_metrics_series(m, name, 0), 0, 1), 0);
		break;
	case SIM_M_HIST:
		sim_hist_add(sim_metrics_hist(m, name), 3);
		break;
	}
	ck_assert_int_eq(rec_run_end(db, id, &res, m, small_registry, nreg, err, sizeof(err)), SIM_EMETRIC);
	char want[128];
	snprintf(want, sizeof(want), "metric \"%s\" (%s) is not in the metric registry", name,
		 sim_metric_kind_name(unregistered[_i].kind));
	ck_assert_msg(strstr(err, want), "got: %s", err);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM run WHERE status = 'running'"), 1);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM scalar"), 0);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM series"), 0);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM hist"), 0);
	ck_assert_int_eq(rec_run_mark(db, id, "failed", err, sizeof(err)), 0);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM run WHERE status = 'failed'"), 1);
	/* The next run, its metrics all registered, is recorded. */
	sim_metrics_destroy(m);
	m = sample_metrics();
	ck_assert_int_eq(rec_run_begin(db, &info, p, &id, err, sizeof(err)), 0);
	ck_assert_int_eq(rec_run_end(db, id, &res, m, small_registry, nreg, err, sizeof(err)), 0);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM run WHERE status = 'complete'"), 1);
	ck_assert_int_eq(q1(path, "SELECT count(*) FROM scalar"), 2);
	rec_close(db);
	sim_metrics_destroy(m);
	sim_params_destroy(p);
}
END_TEST

START_TEST(recorder_unwritable_path)
{
	rec_db *db = NULL;
	char bad[256];
	snprintf(bad, sizeof(bad), "%s/no/such/dir/r.db", dir);
	ck_assert_int_eq(rec_open(&db, bad, err, sizeof(err)), SIM_EIO);
	ck_assert_ptr_nonnull(strstr(err, "database "));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("recorder");
	TCase *tc = tcase_create("recorder");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, recorder_run_lifecycle);
	tcase_add_test(tc, recorder_newer_schema_refused);
	tcase_add_test(tc, recorder_failed_write_leaves_running);
	tcase_add_loop_test(tc, recorder_unregistered_metric_refused, 0,
			    (int)(sizeof(unregistered) / sizeof(unregistered[0])));
	tcase_add_test(tc, recorder_unwritable_path);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
