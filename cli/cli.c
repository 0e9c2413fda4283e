/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cli.c - what the rcusim commands share: option parsing, opening the
 * results database and selecting runs, human number formats, gnuplot and
 * figure folders (plot and sweep), and simulating one run into the
 * database (run and check), with its heartbeat and progress line (its
 * stop signals are status.c's). Commands call these; nothing here calls a
 * command.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "model.h"
#include "params.h"
#include "recorder.h"
#include "registry.h"

#ifndef RCUSIM_VERSION
#define RCUSIM_VERSION "unknown"
#endif
#ifndef RCUSIM_PLOTS_DIR
#define RCUSIM_PLOTS_DIR "plots"
#endif
#ifndef RCUSIM_PLOTS_REL
#define RCUSIM_PLOTS_REL "../share/rcusim/plots"
#endif

/* ---- options ------------------------------------------------------------ */

int cli_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t l = strlen(name);
	if (strncmp(argv[*i], name, l))
		return 0;
	if (argv[*i][l] == '=') {
		*val = argv[*i] + l + 1;
		return 1;
	}
	if (argv[*i][l])
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "rcusim: %s needs a value\n", name);
		return -1;
	}
	*val = argv[++*i];
	return 1;
}

/* The destinations cli_strs() has filled since cli_opts_reset(): an
 * option that takes one value given twice is an error, not "the last
 * wins". */
static const char **strs_seen[64];
static size_t nstrs_seen;

void cli_opts_reset(void)
{
	nstrs_seen = 0;
}

bool cli_opt_once(const char *name, const char **dst)
{
	for (size_t k = 0; k < nstrs_seen; k++)
		if (strs_seen[k] == dst) {
			fprintf(stderr, "rcusim: %s given twice: it takes one value\n", name);
			return false;
		}
	if (nstrs_seen < sizeof(strs_seen) / sizeof(strs_seen[0]))
		strs_seen[nstrs_seen++] = dst;
	return true;
}

int cli_strs(int argc, char **argv, int *i, const cli_str *opts)
{
	for (; opts->name; opts++) {
		const char *v;
		int rc = cli_opt(argc, argv, i, opts->name, &v);
		if (rc > 0) {
			if (!cli_opt_once(opts->name, opts->dst))
				return -1;
			*opts->dst = v;
		}
		if (rc)
			return rc;
	}
	return 0;
}

void cli_shell_quote(const char *s, FILE *out)
{
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	}
	fputc('\'', out);
}

bool cli_help(const char *arg, const char *usage)
{
	if (strcmp(arg, "--help") && strcmp(arg, "-h"))
		return false;
	fputs(usage, stdout);
	return true;
}

bool cli_run_id(const char *cmd, const char *s, int64_t *id)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*s == 0 || *end || errno || v < 1) {
		fprintf(stderr, "rcusim %s: expected a run id (a positive integer), got \"%s\"\n", cmd, s);
		return false;
	}
	*id = v;
	return true;
}

/* ---- the results database ---------------------------------------------- */

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

/* ---- human formats ------------------------------------------------------ */

void cli_fmt_ns(double ns, char *buf, size_t len)
{
	double a = fabs(ns);
	if (a < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else if (a < 60e9)
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else if (a < 3600e9)
		snprintf(buf, len, "%.3g min", ns / 60e9);
	else
		snprintf(buf, len, "%.3g h", ns / 3600e9);
}

void cli_fmt_bytes(double b, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int k = 0;
	while (fabs(b) >= 1024 && k < 4) {
		b /= 1024;
		k++;
	}
	snprintf(buf, len, k ? "%.3g %s" : "%.0f %s", b, u[k]);
}

void cli_fmt_count(double v, char *buf, size_t len)
{
	if (v != floor(v) || fabs(v) >= 1e18) {
		snprintf(buf, len, "%.6g", v);
		return;
	}
	char digits[32];
	snprintf(digits, sizeof(digits), "%.0f", fabs(v));
	size_t n = strlen(digits), k = 0;
	if (v < 0 && k + 1 < len)
		buf[k++] = '-';
	for (size_t i = 0; i < n && k + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = 0;
}

/* ---- figures ------------------------------------------------------------ */

/* The folder holding the gnuplot scripts: $RCUSIM_PLOTS; else, for an
 * installed rcusim, RCUSIM_PLOTS_REL from the folder of the executable
 * (PREFIX/bin/../share/rcusim/plots); else the source tree's plots/, where
 * a build that is not installed finds them. */
const char *cli_plots_dir(void)
{
	static char found[PATH_MAX + 64];
	const char *e = getenv("RCUSIM_PLOTS");
	if (e && *e)
		return e;
	if (found[0])
		return found;
	char self[PATH_MAX], probe[PATH_MAX + 96];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			snprintf(probe, sizeof(probe), "%s/%s/common.gp", self, RCUSIM_PLOTS_REL);
			if (!access(probe, R_OK)) {
				snprintf(found, sizeof(found), "%s/%s", self, RCUSIM_PLOTS_REL);
				return found;
			}
		}
	}
	snprintf(found, sizeof(found), "%s", RCUSIM_PLOTS_DIR);
	return found;
}

void cli_gp_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("''", f);
		else if (*s != '\n' && *s != '\r')
			fputc(*s, f);
	}
	fputc('\'', f);
}

int cli_gnuplot(const char *script, const char *const *args, size_t nargs)
{
	const char *argv[16];
	size_t k = 0;
	argv[k++] = "gnuplot";
	argv[k++] = "-c";
	argv[k++] = script;
	for (size_t i = 0; i < nargs && k < 15; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rcusim plot: fork: %s\n", strerror(errno));
		return EXIT_IO;
	}
	if (pid == 0) {
		if (chdir(cli_plots_dir())) {
			fprintf(stderr, "rcusim plot: %s: %s\n", cli_plots_dir(), strerror(errno));
			_exit(127);
		}
		execvp("gnuplot", (char *const *)argv);
		fprintf(stderr, "rcusim plot: cannot run gnuplot: %s (install the Debian package gnuplot-nox)\n",
			strerror(errno));
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "rcusim plot: gnuplot %s failed\n", script);
		return EXIT_IO;
	}
	return 0;
}

int cli_mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(buf, 0777) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

int cli_plot_dirs(const char *outdir, char *out, char *data)
{
	if (cli_mkdir_p(outdir) || !realpath(outdir, out)) {
		fprintf(stderr, "%s: %s\n", outdir, strerror(errno));
		return EXIT_IO;
	}
	snprintf(data, PATH_MAX + 16, "%s/data", out);
	if (cli_mkdir_p(data)) {
		fprintf(stderr, "%s: %s\n", data, strerror(errno));
		return EXIT_IO;
	}
	return 0;
}

/* ---- one run ------------------------------------------------------------ */

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_scenario_stem(const char *path, char *buf, size_t len)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	if (n > 4 && !strcmp(b + n - 4, ".ini"))
		n -= 4;
	snprintf(buf, len, "%.*s", (int)n, b);
}

static void print_summary(int64_t run_id, const char *status, const char *name,
			  const sim_params *p, const rcusim_outcome *o, double wall,
			  const sim_metrics *m)
{
	printf("run %lld %s: %s (policy %s, seed %s), %.3f s simulated in %.2f s, %llu events\n",
	       (long long)run_id, status, name, model_policy_label(p),
	       sim_params_text(p, P_SCENARIO_SEED), (double)o->sim_end_ns / 1e9, wall,
	       (unsigned long long)o->events);
	for (size_t k = 0; k < sim_metrics_nscalars(m); k++)
		printf("  %-28s %.17g\n", sim_metrics_scalar_name(m, k), sim_metrics_scalar_value(m, k));
}

/* Progress on stderr: simulated time, events/s, ETA; at most twice a second,
 * and only after the first second. */
typedef struct progress {
	double t0, last;   /* wall clock at start and at the last print */
	bool shown;        /* something was printed (clear it at the end) */
	bool tty;          /* print progress (stderr is a terminal, no --quiet) */
} progress;

/* At every sample: progress on a terminal. */
static void show_progress(void *ctx, sim_time now, sim_time end, uint64_t events)
{
	progress *pr = ctx;
	double w = wall_now();
	if (!pr->tty || w - pr->t0 < 1.0 || w - pr->last < 0.5)
		return;
	pr->last = w;
	pr->shown = true;
	double frac = end > 0 ? (double)now / (double)end : 1;
	double eta = frac > 0 ? (w - pr->t0) * (1 - frac) / frac : 0;
	fprintf(stderr, "\r%.1f / %.1f s simulated (%.0f%%), %.2f M events/s, ETA %.0f s   ",
		(double)now / 1e9, (double)end / 1e9, 100 * frac, (double)events / (w - pr->t0) / 1e6,
		eta);
	fflush(stderr);
}

/* The run's heartbeat: a thread of its own, with a connection of its own,
 * writes it every REC_HEARTBEAT_S of wall time (RCUSIM_HEARTBEAT_MS
 * shortens it for tests), whatever the simulation is doing, so that a live
 * run is never taken for lost however far apart its samples are. A beat
 * that finds the database locked is skipped (it waits for no writer): the
 * next one comes a period later. */
typedef struct beat {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;       /* asked to end */
	bool running;    /* the thread exists */
	rec_db *db;      /* its connection */
	int64_t run_id;  /* the run */
	long period_ms;  /* between beats */
} beat;

static void *beat_main(void *arg)
{
	beat *b = arg;
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	pthread_mutex_lock(&b->lock);
	while (!b->stop) {
		until.tv_sec += b->period_ms / 1000;
		until.tv_nsec += (b->period_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!b->stop && pthread_cond_timedwait(&b->cond, &b->lock, &until) != ETIMEDOUT)
			;
		if (b->stop)
			break;
		pthread_mutex_unlock(&b->lock);
		char err[1024];
		rec_heartbeat(b->db, b->run_id, err, sizeof(err));
		pthread_mutex_lock(&b->lock);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* Start @b beating for @run_id of @db_path. A heartbeat that cannot start
 * is said on stderr and the run goes on (it may then be reported lost
 * while it runs). */
static void beat_start(beat *b, const char *db_path, int64_t run_id)
{
	char err[1024];
	const char *e = getenv("RCUSIM_HEARTBEAT_MS");
	*b = (beat){ .run_id = run_id, .period_ms = e && atol(e) > 0 ? atol(e) : REC_HEARTBEAT_S * 1000L };
	if (rec_open(&b->db, db_path, err, sizeof(err))) {
		fprintf(stderr, "rcusim: heartbeat: %s; the run may be shown lost while it runs\n", err);
		return;
	}
	rec_busy_timeout(b->db, 0);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, &ca);
	pthread_condattr_destroy(&ca);
	/* The signals are the simulation's: the thread blocks them all. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&b->thread, NULL, beat_main, b);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		fprintf(stderr, "rcusim: heartbeat: %s; the run may be shown lost while it runs\n",
			strerror(rc));
		rec_close(b->db);
		b->db = NULL;
		return;
	}
	b->running = true;
}

static void beat_stop(beat *b)
{
	if (b->running) {
		pthread_mutex_lock(&b->lock);
		b->stop = true;
		pthread_cond_signal(&b->cond);
		pthread_mutex_unlock(&b->lock);
		pthread_join(b->thread, NULL);
		pthread_cond_destroy(&b->cond);
		pthread_mutex_destroy(&b->lock);
		b->running = false;
	}
	rec_close(b->db);
	b->db = NULL;
}

/* The parameters of @req: its scenario, then its overrides in order,
 * validated, in *@p (the caller destroys it, also on failure); the
 * scenario's name in @name. 0 or an error (error.h) with its message in
 * @err. */
static int load_run(const cli_run_req *req, sim_params **p, char *name, size_t nlen, char *err,
		    size_t errlen)
{
	int rc;
	*p = NULL;
	if ((rc = sim_params_create(p, rcusim_params, P_COUNT, err, errlen)) ||
	    (rc = sim_params_load_file(*p, req->scenario, err, errlen)))
		return rc;
	for (size_t i = 0; i < req->nsets; i++) {
		const cli_set *s = &req->sets[i];
		rc = s->name ? sim_params_set_value(*p, s->name, s->value, s->origin, err, errlen)
			     : sim_params_set(*p, s->value, err, errlen);
		if (rc)
			return rc;
	}
	if (sim_params_is_auto(*p, P_SCENARIO_NAME)) {
		cli_scenario_stem(req->scenario, name, nlen);
	} else if (strlen(sim_params_text(*p, P_SCENARIO_NAME)) > REC_LABEL_MAX) {
		char where[1024];
		model_param_where(*p, P_SCENARIO_NAME, where, sizeof(where));
		snprintf(err, errlen, "%s: %zu bytes, longer than the %d a run's name may have", where,
			 strlen(sim_params_text(*p, P_SCENARIO_NAME)), REC_LABEL_MAX);
		return SIM_EINPUT;
	} else {
		snprintf(name, nlen, "%s", sim_params_text(*p, P_SCENARIO_NAME));
	}
	return rcusim_validate(*p, err, errlen);
}

int cli_check_run(const cli_run_req *req)
{
	char err[2048], name[REC_LABEL_MAX + 1];
	sim_params *p;
	sim_metrics *m = NULL;
	rcusim_sim *sim = NULL;
	/* What `run` checks before it records anything: the parameters, then
	 * the model built from them (some limits are the model's to know). */
	int rc = load_run(req, &p, name, sizeof(name), err, sizeof(err));
	if (!rc && !(rc = sim_metrics_create(&m)))
		rc = rcusim_prepare(p, m, NULL, NULL, NULL, &sim, err, sizeof(err));
	if (rc)
		fprintf(stderr, "%s\n", err);
	rcusim_release(sim);
	sim_metrics_destroy(m);
	sim_params_destroy(p);
	return cli_exit_status(rc);
}

/* Record @res and @m of @run_id into @db or, when that cannot be done,
 * into a side database next to it, named in the message. The exit status
 * (0: recorded in @db). */
static int record_end(rec_db *db, int64_t run_id, const rec_run_result *res, const sim_metrics *m)
{
	char err[1024], side_err[1024], side[PATH_MAX + 64];
	int rc = rec_run_end(db, run_id, res, m, rcusim_metrics, M_COUNT, err, sizeof(err));
	if (!rc)
		return 0;
	if (rc == SIM_EMETRIC) {
		/* A metric missing from the registry is a bug, like a failed
		 * model check: the run is 'failed', exit status 4. */
		fprintf(stderr, "rcusim: run %lld failed: %s\n", (long long)run_id, err);
		rec_run_mark(db, run_id, "failed", side_err, sizeof(side_err));
		return cli_exit_status(rc);
	}
	snprintf(side, sizeof(side), "%s.run%lld-%ld.db", rec_path(db), (long long)run_id, (long)getpid());
	int src = rec_run_save_side(db, run_id, side, res, m, rcusim_metrics, M_COUNT, side_err,
				    sizeof(side_err));
	if (!src) {
		fprintf(stderr,
			"rcusim: run %lld (%s): its results could not be written: %s.\n"
			"They are in %s: `rcusim merge %s %s` completes the run's row there.\n",
			(long long)run_id, res->status, err, side, rec_path(db), side);
	} else {
		fprintf(stderr,
			"rcusim: run %lld (%s): its results could not be written: %s; nor to %s: %s. "
			"They are lost.\n",
			(long long)run_id, res->status, err, side, side_err);
		unlink(side);
		rec_run_mark(db, run_id, "failed", side_err, sizeof(side_err));
	}
	return cli_exit_status(rc);
}

int cli_do_run(const cli_run_req *req, int64_t *run_id_out)
{
	char err[2048], name[REC_LABEL_MAX + 1];
	int rc, status = EXIT_USAGE;
	sim_params *p = NULL;
	sim_metrics *m = NULL;
	rec_db *db = NULL;
	rcusim_sim *sim = NULL;
	beat hb = { 0 };
	double t0 = wall_now();
	progress pr = { t0, t0, false, !req->quiet && isatty(STDERR_FILENO) };
	if ((rc = load_run(req, &p, name, sizeof(name), err, sizeof(err))))
		goto input_error;
	if ((rc = sim_metrics_create(&m))) {
		fprintf(stderr, "rcusim: out of memory\n");
		status = cli_exit_status(rc);
		goto out;
	}
	/* The model is built before the run is recorded: an input error that
	 * only the model can see leaves no row. */
	if ((rc = rcusim_prepare(p, m, cli_stop_flag(), show_progress, &pr, &sim, err, sizeof(err))))
		goto input_error;
	if ((rc = rec_open(&db, req->db_path, err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		status = cli_exit_status(rc);
		goto out;
	}
	rec_run_info info = { name, model_policy_label(p), sim_params_int(p, P_SCENARIO_SEED),
			      req->label, sim_params_int(p, P_SCENARIO_DURATION), RCUSIM_VERSION };
	int64_t run_id;
	if ((rc = rec_run_begin(db, &info, p, &run_id, err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		status = cli_exit_status(rc);
		goto out;
	}

	cli_stop_catch();
	beat_start(&hb, req->db_path, run_id);

	t0 = wall_now();
	pr.t0 = pr.last = t0;
	rcusim_outcome o = { 0 };
	rc = rcusim_run(sim, &o, err, sizeof(err));
	beat_stop(&hb);
	if (pr.shown)
		fprintf(stderr, "\r%*s\r", 78, "");
	rec_run_result res = { "complete", o.sim_end_ns, o.events, wall_now() - t0 };
	if (rc == 0 && o.end == RCUSIM_ABORTED)
		res.status = "aborted";
	else if (rc)
		res.status = "failed";
	int wstatus = record_end(db, run_id, &res, m);
	/* Recorded: from here a signal is the ordinary kind (a reader of the
	 * summary that goes away ends the process quietly, as with any
	 * tool). */
	cli_stop_release();
	if (rc) {
		/* The simulation's failure is the run's cause, written or not. */
		fprintf(stderr, "rcusim: run %lld failed: %s\n", (long long)run_id, err);
		status = cli_exit_status(rc);
		goto out;
	}
	if (wstatus) {
		status = wstatus;
		goto out;
	}
	if (req->summary)
		print_summary(run_id, res.status, name, p, &o, res.wall_s, m);
	if (run_id_out)
		*run_id_out = run_id;
	status = o.end == RCUSIM_ABORTED ? 128 + (int)*cli_stop_flag() : 0;
	goto out;
input_error:
	/* Bad input (exit 2), or no memory to read it (3). */
	fprintf(stderr, "%s\n", err);
	status = cli_exit_status(rc);
out:
	beat_stop(&hb);
	cli_stop_release();
	rcusim_release(sim);
	rec_close(db);
	sim_metrics_destroy(m);
	sim_params_destroy(p);
	return status;
}
