/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * run.c - `rcusim run`: simulate one scenario into the results database.
 * Its work, cli_do_run(), is shared with check --run-scenario, and its
 * checks, cli_check_run(), with sweep, which runs them for every run before
 * it starts any: read and validate the scenario and overrides, build the
 * model, record the run as running, run it with a heartbeat thread and a
 * progress line, record its results (or a side database when the database
 * cannot take them) and print the summary. The signals that stop a run are
 * caught with status.c's cli_stop_catch().
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "model.h"
#include "params.h"
#include "recorder.h"
#include "registry.h"

#ifndef RCUSIM_VERSION
#define RCUSIM_VERSION "unknown"
#endif

/* ---- one run ------------------------------------------------------------ */

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
	const char *trace; /* the --trace file, or NULL */
	const rcusim_trace_fail *trace_fail; /* its failed write, if any */
	bool trace_said;   /* the failure has been said */
} progress;

/* "--trace FILE: why, at T s simulated; the trace stops there" for @pr's
 * failed trace, on stderr. */
static void say_trace_fail(const progress *pr, const char *more)
{
	fprintf(stderr, "rcusim: --trace %s: %s (writing events at %.6f s simulated); the trace stops there%s\n",
		pr->trace, strerror(pr->trace_fail->err), (double)pr->trace_fail->at / 1e9, more);
}

/* At every sample: a trace that has just failed, said at once, and
 * progress on a terminal. */
static void show_progress(void *ctx, sim_time now, sim_time end, uint64_t events)
{
	progress *pr = ctx;
	if (pr->trace_fail && pr->trace_fail->err && !pr->trace_said) {
		if (pr->shown)
			fprintf(stderr, "\r%*s\r", 78, "");
		say_trace_fail(pr, ", the run goes on");
		pr->trace_said = true;
	}
	double w = cli_monotonic_s();
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
	    (rc = cli_params_search(*p, err, errlen)) || (rc = sim_params_load_file(*p, req->scenario, err, errlen)))
		return rc;
	for (size_t i = 0; i < req->nsets; i++)
		if ((rc = cli_apply_set(*p, &req->sets[i], err, errlen)))
			return rc;
	if (sim_params_is_auto(*p, P_SCENARIO_NAME)) {
		cli_scenario_stem(req->scenario, name, nlen);
	} else if (strlen(sim_params_text(*p, P_SCENARIO_NAME)) > REC_LABEL_MAX) {
		char where[1024];
		sim_params_where(*p, P_SCENARIO_NAME, where, sizeof(where));
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
 * into a side database where there is room: next to the database, else in
 * the current folder, else in $TMPDIR (or /tmp); named in the message, and
 * the run's row marked so that it is shown 'aside', not lost. The exit
 * status (0: recorded in @db). */
static int record_end(rec_db *db, int64_t run_id, const rec_run_result *res, const sim_metrics *m)
{
	char err[1024], side_err[1024], side[PATH_MAX + 64], tried[3 * (PATH_MAX + 64) + 64] = "";
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
	const char *path = rec_path(db), *base = strrchr(path, '/');
	const char *tmp = getenv("TMPDIR");
	char dirs[3][PATH_MAX];
	/* The database's folder ("/" for /x.db, "." for x.db). */
	snprintf(dirs[0], PATH_MAX, "%.*s", base ? (int)(base - path) + (base == path) : 1, base ? path : ".");
	snprintf(dirs[1], PATH_MAX, ".");
	snprintf(dirs[2], PATH_MAX, "%s", tmp && *tmp ? tmp : "/tmp");
	base = base ? base + 1 : path;
	struct stat seen[3];
	bool statted[3] = { false, false, false };
	int src = -1;
	for (int k = 0; k < 3 && src; k++) {
		/* Each folder once, whatever its names (and none that is not there). */
		statted[k] = stat(dirs[k], &seen[k]) == 0;
		bool again = !statted[k];
		for (int j = 0; j < k && !again; j++)
			again = statted[j] && seen[j].st_dev == seen[k].st_dev && seen[j].st_ino == seen[k].st_ino;
		if (again)
			continue;
		snprintf(side, sizeof(side), "%s%s%s.run%lld-%ld.db", dirs[k], strcmp(dirs[k], "/") ? "/" : "",
			 base, (long long)run_id, (long)getpid());
		src = rec_run_save_side(db, run_id, side, res, m, rcusim_metrics, M_COUNT, side_err,
					sizeof(side_err));
		if (src) {
			unlink(side);
			size_t l = strlen(tried);
			snprintf(tried + l, sizeof(tried) - l, "%s%s: %s", l ? "; " : "", side, side_err);
		}
	}
	if (!src) {
		char mark_err[1024];
		/* The lock may still be held: the mark waits for none. */
		rec_busy_timeout(db, 0);
		bool marked = !rec_run_mark_aside(db, run_id, mark_err, sizeof(mark_err));
		fprintf(stderr,
			"rcusim: run %lld (%s): its results could not be written: %s.\n"
			"They are in %s: `rcusim merge %s %s` completes the run's row there%s.\n",
			(long long)run_id, res->status, err, side, path, side,
			marked ? "" : " (until then `rcusim runs` shows it lost)");
	} else {
		fprintf(stderr,
			"rcusim: run %lld (%s): its results could not be written: %s; nor to a side "
			"database (%s). They are lost.\n",
			(long long)run_id, res->status, err, tried);
		rec_run_mark(db, run_id, "failed", side_err, sizeof(side_err));
	}
	return cli_exit_status(rc);
}

/* Where @path leads, for comparing with another name that need not exist
 * yet: with @exists, the file's device and inode in *@st; else, in @out
 * (PATH_MAX bytes), the absolute path of the file that writing @path
 * would create (its folder resolved, a dangling symbolic link followed).
 * false if the folder cannot be resolved. */
static bool file_identity(const char *path, bool *exists, struct stat *st, char *out)
{
	char cur[PATH_MAX], link[PATH_MAX], dir[PATH_MAX];
	*exists = !stat(path, st);
	if (*exists)
		return true;
	if (strlen(path) >= sizeof(cur))
		return false;
	snprintf(cur, sizeof(cur), "%s", path);
	for (int hops = 0; hops < 40; hops++) {
		ssize_t n = readlink(cur, link, sizeof(link) - 1);
		char *slash = strrchr(cur, '/');
		if (n < 0) {
			/* Not a link: its folder resolved, and its name. */
			const char *base = slash ? slash + 1 : cur;
			if (slash == cur)
				snprintf(dir, sizeof(dir), "/");
			else if (slash)
				snprintf(dir, sizeof(dir), "%.*s", (int)(slash - cur), cur);
			else
				snprintf(dir, sizeof(dir), ".");
			char real[PATH_MAX];
			if (!realpath(dir, real))
				return false;
			return snprintf(out, PATH_MAX, "%s/%s", strcmp(real, "/") ? real : "", base) <
			       PATH_MAX;
		}
		link[n] = 0;
		/* A dangling link: where it points, relative to its folder. */
		if (link[0] == '/' || !slash)
			snprintf(dir, sizeof(dir), "%s", link);
		else if (snprintf(dir, sizeof(dir), "%.*s/%s", (int)(slash - cur), cur, link) >=
			 (int)sizeof(dir))
			return false;
		snprintf(cur, sizeof(cur), "%s", dir);
	}
	return false;
}

/* Is @a the file @b, under whatever names: the same device and inode
 * where both exist, the same resolved path where neither does? */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char ra[PATH_MAX], rb[PATH_MAX];
	bool ea, eb;
	if (!file_identity(a, &ea, &sa, ra) || !file_identity(b, &eb, &sb, rb))
		return false;
	if (ea != eb)
		return false;
	if (ea)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	return !strcmp(ra, rb);
}

/* Would writing the --trace file of @req destroy one of the run's own
 * files: the database, its -wal or -shm, the scenario or a file it
 * includes (@p has read them)? Checked before anything is opened:
 * SIM_EINPUT with the message in @err, or 0. */
static int trace_target_check(const cli_run_req *req, const sim_params *p, char *err, size_t errlen)
{
	static const char *const db_suffix[] = { "", "-wal", "-shm" };
	static const char *const db_what[] = { "the database", "the database's write-ahead log",
					       "the database's shared-memory file" };
	char name[PATH_MAX + 8];
	for (size_t k = 0; k < sizeof(db_suffix) / sizeof(db_suffix[0]); k++) {
		snprintf(name, sizeof(name), "%s%s", req->db_path, db_suffix[k]);
		if (same_file(req->trace, name)) {
			snprintf(err, errlen, "rcusim run: --trace %s: is %s (%s); writing the trace "
				 "would destroy it", req->trace, db_what[k], name);
			return SIM_EINPUT;
		}
	}
	const char *f;
	for (size_t i = 0; (f = sim_params_file(p, i)); i++)
		if (same_file(req->trace, f)) {
			snprintf(err, errlen, "rcusim run: --trace %s: is %s %s; writing the trace would "
				 "destroy it", req->trace, i ? "a file the scenario includes," : "the scenario",
				 f);
			return SIM_EINPUT;
		}
	return 0;
}

/* The --trace options of @req into @o (its file not yet open) for a run
 * of @p: 0, or SIM_EINPUT with the message in @err. */
static int trace_opts(const cli_run_req *req, const sim_params *p, rcusim_trace_opts *o, char *err,
		      size_t errlen)
{
	*o = (rcusim_trace_opts){ .out = NULL, .path = req->trace, .format = RCUSIM_TRACE_FTRACE,
				  .from = 0, .to = INT64_MAX, .cpus = req->trace_cpus };
	if (req->trace_cpus && !*req->trace_cpus) {
		snprintf(err, errlen, "--trace-cpus \"\": no CPU named (a CPU list: 0-3,8; leave the "
			 "option out for every CPU)");
		return SIM_EINPUT;
	}
	const char *f = req->trace_format;
	size_t n = strlen(req->trace);
	if (!f)
		f = n > 5 && !strcmp(req->trace + n - 5, ".json") ? "json"
		    : n > 4 && !strcmp(req->trace + n - 4, ".dat") ? "dat"
								     : "ftrace";
	if (!strcmp(f, "json")) {
		o->format = RCUSIM_TRACE_JSON;
	} else if (!strcmp(f, "dat")) {
		o->format = RCUSIM_TRACE_DAT;
	} else if (strcmp(f, "ftrace")) {
		snprintf(err, errlen, "--trace-format %s: ftrace, json or dat", f);
		return SIM_EINPUT;
	}
	if (req->trace_window) {
		const char *w = req->trace_window, *dots = strstr(w, "..");
		static const sim_param_def t = { "--trace-window", SIM_P_TIME, "0s", 0, 1e18,
						 NULL, 0, NULL, NULL, NULL };
		char a[64], why[512];
		int64_t v[2];
		double d;
		bool is_auto;
		if (!dots || dots == w || !dots[2] || dots[2] == '.' || (size_t)(dots - w) >= sizeof(a)) {
			snprintf(err, errlen, "--trace-window %s: A..B, two times with their units (1s..2s)", w);
			return SIM_EINPUT;
		}
		snprintf(a, sizeof(a), "%.*s", (int)(dots - w), w);
		if (sim_param_parse(&t, a, &v[0], &d, &is_auto, why, sizeof(why)) ||
		    sim_param_parse(&t, dots + 2, &v[1], &d, &is_auto, why, sizeof(why))) {
			snprintf(err, errlen, "--trace-window %s: %s", w, why);
			return SIM_EINPUT;
		}
		if (v[1] <= v[0]) {
			snprintf(err, errlen, "--trace-window %s: the end is not after the start", w);
			return SIM_EINPUT;
		}
		int64_t duration = sim_params_int(p, P_SCENARIO_DURATION);
		if (v[0] >= duration) {
			snprintf(err, errlen, "--trace-window %s: starts at or after the run's end "
				 "(scenario.duration = %s): the trace would hold no event", w,
				 sim_params_text(p, P_SCENARIO_DURATION));
			return SIM_EINPUT;
		}
		o->from = v[0];
		o->to = v[1];
	}
	return 0;
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
	rcusim_trace_opts topts;
	rcusim_trace_fail tfail = { 0, 0 };
	FILE *trace_out = NULL;
	double t0 = cli_monotonic_s();
	progress pr = { t0, t0, false, !req->quiet && isatty(STDERR_FILENO), req->trace, &tfail, false };
	if ((rc = load_run(req, &p, name, sizeof(name), err, sizeof(err))) ||
	    (req->trace && (rc = trace_target_check(req, p, err, sizeof(err)))))
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
	if (err[0])
		fprintf(stderr, "rcusim run: %s\n", err);
	/* The --trace options checked before the file is touched. */
	if (req->trace && ((rc = trace_opts(req, p, &topts, err, sizeof(err))) ||
			   (rc = rcusim_trace(sim, &topts, err, sizeof(err)))))
		goto input_error;
	if ((rc = rec_open(&db, req->db_path, err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		status = cli_exit_status(rc);
		goto out;
	}
	if (req->trace) {
		if (!(trace_out = fopen(req->trace, "w"))) {
			fprintf(stderr, "rcusim: --trace %s: %s\n", req->trace, strerror(errno));
			status = cli_exit_status(SIM_EIO);
			goto out;
		}
		topts.out = trace_out;
		topts.fail = &tfail;
		if ((rc = rcusim_trace(sim, &topts, err, sizeof(err)))) {
			fprintf(stderr, "%s\n", err);
			status = cli_exit_status(rc);
			goto out;
		}
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

	t0 = cli_monotonic_s();
	pr.t0 = pr.last = t0;
	rcusim_outcome o = { 0 };
	rc = rcusim_run(sim, &o, err, sizeof(err));
	beat_stop(&hb);
	/* The trace closed while the stop signals are still caught: a reader
	 * of it gone is its EPIPE, not a SIGPIPE that kills the process. */
	if (trace_out) {
		errno = 0;
		if (fclose(trace_out) && !tfail.err)
			tfail = (rcusim_trace_fail){ errno ? errno : EIO, o.sim_end_ns };
		trace_out = NULL;
	}
	if (pr.shown)
		fprintf(stderr, "\r%*s\r", 78, "");
	rec_run_result res = { "complete", o.sim_end_ns, o.events, cli_monotonic_s() - t0 };
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
	if (tfail.err) {
		/* The run's results stand; its trace is cut. A signal that
		 * stopped the run says so in the status, else the I/O error. */
		char more[96];
		snprintf(more, sizeof(more), "; run %lld is recorded %s", (long long)run_id, res.status);
		say_trace_fail(&pr, more);
		if (!status)
			status = EXIT_IO;
	}
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
	if (trace_out && fclose(trace_out) && !status) {
		fprintf(stderr, "rcusim: --trace %s: %s\n", req->trace, strerror(errno));
		status = cli_exit_status(SIM_EIO);
	}
	return status;
}

/* ---- the command -------------------------------------------------------- */

static const char run_usage[] =
	"usage: rcusim run SCENARIO.ini [--db FILE] [--set KEY=VALUE]... [--seed N]\n"
	"                  [--cmdline TEXT | --cmdline-file FILE]\n"
	"                  [--duration TIME] [--label TEXT] [--quiet]\n"
	"                  [--trace FILE [--trace-format ftrace|json|dat] [--trace-window A..B]\n"
	"                   [--trace-cpus LIST]]\n"
	"\n"
	"Simulate SCENARIO.ini and append one run to the database (default rcusim.db):\n"
	"parameters, scalars, series and histograms. Prints a summary and the run id.\n"
	"\n"
	"  --db FILE          results database (created if absent)\n"
	"  --set KEY=VALUE    override a parameter after the file is read (repeatable)\n"
	"                     KEY may be a kernel boot parameter rcusim maps, as the\n"
	"                     kernel reads it: rcutree.blimit=1000, rcu_nocbs=1-63,\n"
	"                     preempt=full (rcusim params --kernel lists them)\n"
	"  --cmdline \"...\"    a whole kernel command line: what rcusim maps is set, the\n"
	"                     rest named on stderr as not modelled\n"
	"  --cmdline-file F   the same from a file (/proc/cmdline)\n"
	"  --seed N           same as --set scenario.seed=N\n"
	"  --duration TIME    same as --set scenario.duration=TIME (e.g. 10s, 1h)\n"
	"  --label TEXT       a label stored with the run (shown in comparisons)\n"
	"  --quiet            no progress on stderr\n"
	"  --trace FILE       write the run's timeline to FILE: the kernel's trace events\n"
	"                     (sched_switch, sched_wakeup, softirq_*, local_timer_*, IPIs,\n"
	"                     rcu_utilization, rcu_grace_period, rcu_batch_*) as the\n"
	"                     tracefs trace file prints them, Chrome trace-event JSON\n"
	"                     (Perfetto, chrome://tracing, speedscope), or trace.dat with\n"
	"                     the kernel's event formats (trace-cmd report, KernelShark)\n"
	"  --trace-format F   ftrace, json or dat (default: json if FILE ends in .json,\n"
	"                     dat if it ends in .dat)\n"
	"  --trace-window A..B  only events from A to B of simulated time (e.g. 1s..1.1s)\n"
	"  --trace-cpus LIST  only these CPUs (e.g. 0-3,8)\n"
	"\n"
	"An option that takes one value (all but --set) may be given once.\n";

int cmd_run(int argc, char **argv)
{
	const char *v, *seed = NULL, *duration = NULL, *cmdline = NULL;
	char *cmdline_text = NULL;
	int rc;
	cli_run_req req = { .db_path = "rcusim.db", .summary = true };
	cli_set *sets = calloc((size_t)argc + 1, sizeof(*sets));
	if (!sets) {
		fprintf(stderr, "rcusim run: out of memory\n");
		return cli_exit_status(SIM_ENOMEM);
	}
	req.sets = sets;
	const cli_str strs[] = { { "--db", &req.db_path },
				 { "--label", &req.label },
				 { "--trace", &req.trace },
				 { "--trace-format", &req.trace_format },
				 { "--trace-window", &req.trace_window },
				 { "--trace-cpus", &req.trace_cpus },
				 { NULL, NULL } };
	int status = EXIT_USAGE;
	/* Overrides apply after the file, in the order given. */
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], run_usage)) {
			status = 0;
			goto out;
		}
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				goto out;
		} else if ((rc = cli_opt(argc, argv, &i, "--set", &v))) {
			if (rc < 0)
				goto out;
			sets[req.nsets++] = (cli_set){ "--set", NULL, v, false };
		} else if ((rc = cli_opt(argc, argv, &i, "--cmdline", &v))) {
			if (rc < 0 || !cli_opt_once("--cmdline", &cmdline))
				goto out;
			sets[req.nsets++] = (cli_set){ "--cmdline", NULL, v, true };
		} else if ((rc = cli_opt(argc, argv, &i, "--cmdline-file", &v))) {
			if (rc < 0 || !cli_opt_once("--cmdline", &cmdline))
				goto out;
			if (!(cmdline_text = cli_read_small_file(v, "rcusim run: --cmdline-file")))
				goto out;
			sets[req.nsets++] = (cli_set){ "--cmdline-file", NULL, cmdline_text, true };
		} else if ((rc = cli_opt(argc, argv, &i, "--seed", &v))) {
			if (rc < 0)
				goto out;
			if (!cli_opt_once("--seed", &seed))
				goto out;
			sets[req.nsets++] = (cli_set){ "--seed", "scenario.seed", v, false };
		} else if ((rc = cli_opt(argc, argv, &i, "--duration", &v))) {
			if (rc < 0)
				goto out;
			if (!cli_opt_once("--duration", &duration))
				goto out;
			sets[req.nsets++] = (cli_set){ "--duration", "scenario.duration", v, false };
		} else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
			req.quiet = true;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "rcusim run: unknown option %s\n%s", argv[i], run_usage);
			goto out;
		} else if (req.scenario) {
			fprintf(stderr, "rcusim run: one scenario at a time (got %s and %s)\n", req.scenario,
				argv[i]);
			goto out;
		} else {
			req.scenario = argv[i];
		}
	}
	if (!req.scenario) {
		fprintf(stderr, "rcusim run: no scenario file given\n%s", run_usage);
		goto out;
	}
	if (!cli_label_ok("run", "--label", req.label))
		goto out;
	if (!req.trace && (req.trace_format || req.trace_window || req.trace_cpus)) {
		fprintf(stderr, "rcusim run: --trace-format, --trace-window and --trace-cpus need --trace FILE\n");
		goto out;
	}
	status = cli_do_run(&req, NULL);
out:
	free(sets);
	free(cmdline_text);
	return status;
}
