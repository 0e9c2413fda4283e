/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * backend_results.c - the results folder of a cluster sweep (Slurm, GNU
 * parallel), where each run's task writes a database of its own: making,
 * locking and checking the folder, the sweep's stored arguments, each run's
 * database and where it stands, and the collection of the complete runs
 * into the sweep's database with the report of what is missing. (A
 * submission's task list and the databases it moves aside are written by
 * backend_common.c.)
 *
 * The results folder DIR holds:
 *   sweep.args        the sweep's arguments, NUL-separated, paths absolute:
 *                     what --collect and the re-submission command read
 *   sweep.lock        flock()ed while a command submits to or collects DIR
 *   runs/KEY.db       each run's database, KEY its run key (sweep_set_keys())
 *   failed/KEY-N.db   the database of a run that did not complete, moved
 *                     aside by submission N, which runs it again
 *   submit-N.tasks    submission N's runs, one `rcusim run` command line each
 *   submit-N.sbatch   submission N's batch script (Slurm); submit-N-P.sbatch
 *                     for its array P when it needs more than one
 *   slurm-arrays      "N JOBID" for each array submitted
 *   logs/             each array task's output, parallel's job log and output
 *
 * While a run's task is alive, only that task opens the run's database:
 * the collection reads the databases once no task of the sweep runs, as
 * SQLite's WAL wants on a network filesystem (one host at a time; its file
 * locks must work there).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "backend.h"

#define MANIFEST_MAGIC "rcusim sweep arguments 1" /* first entry of sweep.args */
#define MAX_LISTED 20   /* incomplete runs named one by one in a report */

/* ---- each run's database and where it stands ---------------------------- */

/* The database of job @j in the results folder @dir, into @buf (PATH_MAX). */
void results_run_db(const char *dir, const sweep_job *j, char *buf)
{
	snprintf(buf, PATH_MAX, "%s/runs/%s.db", dir, j->key);
}

/* Where job @j stands, from its database @path, in *@st; the position of
 * its complete run among the database's runs in *@idx, and for another
 * state why in @why. With @ended, no task of the sweep can still be
 * running, so a run still marked running is lost. A database that cannot
 * be read is a failed run (it runs again); 0, or EXIT_IO (message in @why)
 * if this process ran out of memory reading it. */
static int job_state(const sweep_job *j, const char *path, bool ended, sweep_state *st,
		     size_t *idx, char *why, size_t len)
{
	rec_db *db;
	rec_run_row *rows;
	size_t n;
	snprintf(why, len, "no database: its task did not start it (see the task's output in logs/)");
	*st = SWEEP_MISSING;
	if (access(path, F_OK))
		return 0;
	why[0] = 0;
	*st = SWEEP_FAILED;
	int rc = rec_open(&db, path, why, len);
	if (!rc) {
		rc = rec_list_runs(db, &rows, &n, why, len);
		rec_close(db);
	}
	if (rc)
		return rc == SIM_ENOMEM ? EXIT_IO : 0;
	*st = SWEEP_MISSING;
	if (!n)
		snprintf(why, len, "its database holds no run: its task ended before the run began");
	for (size_t r = 0; r < n && *st != SWEEP_COMPLETE; r++)
		if (!strcmp(rows[r].status, "complete") && !strcmp(rows[r].label, j->label)) {
			*st = SWEEP_COMPLETE;
			*idx = r;
		}
	if (*st != SWEEP_COMPLETE && n) {
		const rec_run_row *x = &rows[n - 1];
		if (!strcmp(x->status, "running") && !ended) {
			*st = SWEEP_RUNNING;
		} else if (!strcmp(x->status, "aside")) {
			*st = SWEEP_LOST;
			snprintf(why, len, "its results could not be written to its database: they are in a "
				 "side database, which its task's output names");
		} else if (!strcmp(x->status, "running") || !strcmp(x->status, "lost")) {
			*st = SWEEP_LOST;
			snprintf(why, len, "its process (pid %lld on %s) ended without finishing the run",
				 (long long)x->pid, x->host);
		} else if (!strcmp(x->status, "aborted")) {
			*st = SWEEP_ABORTED;
			snprintf(why, len, "stopped by SIGINT or SIGTERM at %.3f s simulated (scancel or a time limit?)",
				 (double)x->sim_end_ns / 1e9);
		} else if (!strcmp(x->status, "failed")) {
			*st = SWEEP_FAILED;
			snprintf(why, len, "failed a model check (its task's output says which)");
		} else {
			*st = SWEEP_FAILED;
			snprintf(why, len, "its run is %s, labelled \"%s\", not this run", x->status, x->label);
		}
	}
	free(rows);
	return 0;
}

/* The state of every job of @s in @dir; the count of each state in
 * @count. @idx (one per job, may be NULL) gets each complete run's
 * position in its database; with @verbose, each run that is neither
 * complete nor running is named on stderr (the first MAX_LISTED). 0, or
 * EXIT_IO (message printed) if this process ran out of memory. */
int results_scan(sweep *s, const char *dir, bool ended, size_t *idx, bool verbose,
		       size_t count[SWEEP_NSTATES])
{
	char path[PATH_MAX], why[1024];
	size_t listed = 0;
	memset(count, 0, SWEEP_NSTATES * sizeof(count[0]));
	for (size_t j = 0; j < s->njobs; j++) {
		size_t at = 0;
		sweep_job *jb = &s->jobs[j];
		results_run_db(dir, jb, path);
		if (job_state(jb, path, ended, &jb->state, &at, why, sizeof(why))) {
			fprintf(stderr, "rcusim sweep: %s: %s\n", path, why);
			return EXIT_IO;
		}
		if (idx)
			idx[j] = at;
		count[jb->state]++;
		if (!verbose || jb->state == SWEEP_COMPLETE || jb->state == SWEEP_RUNNING)
			continue;
		if (listed++ < MAX_LISTED)
			fprintf(stderr, "rcusim sweep: run \"%s\": %s%s%s (%s)\n", jb->label,
				sweep_state_name[jb->state], why[0] ? ": " : "", why, path);
	}
	if (listed > MAX_LISTED)
		fprintf(stderr, "rcusim sweep: ... and %zu more runs that did not complete\n",
			listed - MAX_LISTED);
	return 0;
}

/* "N runs, C complete, L lost, ..." on stdout: the states that occur. */
static void print_counts(const char *prefix, size_t njobs, const size_t count[SWEEP_NSTATES])
{
	printf("%s%zu runs, %zu complete", prefix, njobs, count[SWEEP_COMPLETE]);
	for (int k = 0; k < SWEEP_NSTATES; k++)
		if (k != SWEEP_COMPLETE && count[k])
			printf(", %zu %s", count[k], sweep_state_name[k]);
	putchar('\n');
}

/* ---- the folder and sweep.args ------------------------------------------ */

/* Lock the results folder @dir for this process (held until exit or
 * results_unlock): 0, or EXIT_IO (message printed) if another rcusim sweep
 * holds it or the lock file cannot be made. */
int results_lock(const char *dir, int *fd)
{
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/sweep.lock", dir);
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (*fd < 0) {
		fprintf(stderr, "rcusim sweep: %s: %s\n", path, strerror(errno));
		return EXIT_IO;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB)) {
		int e = errno;
		close(*fd);
		*fd = -1;
		if (e == EWOULDBLOCK)
			fprintf(stderr, "rcusim sweep: %s: another rcusim sweep is submitting to or collecting "
					"this results folder: wait for it to end\n", dir);
		else
			fprintf(stderr, "rcusim sweep: %s: lock: %s\n", path, strerror(e));
		return EXIT_IO;
	}
	return 0;
}

/* Close the lock of results_lock() in *@fd, if any, and set it to -1. */
void results_unlock(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Make the results folder s->results and its sub-folders, check that files
 * can be written there, and make s->results its real path (s->abs[3]);
 * @check_dir (may be NULL) refuses a real path before anything is made in
 * it. 0 or an exit status (message printed). */
int results_prepare(sweep *s, int (*check_dir)(const sweep *s, const char *given))
{
	static const char *const subs[] = { "runs", "logs", "failed" };
	char path[PATH_MAX + 32];
	const char *given = s->results;
	int status;
	if (cli_mkdir_p(given) || !realpath(given, s->abs[3])) {
		fprintf(stderr, "rcusim sweep: --results %s: cannot create the folder: %s\n", given,
			strerror(errno));
		return EXIT_IO;
	}
	s->results = s->abs[3];
	if (check_dir && (status = check_dir(s, given)))
		return status;
	for (size_t k = 0; k < sizeof(subs) / sizeof(subs[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s", s->results, subs[k]);
		if (cli_mkdir_p(path)) {
			fprintf(stderr, "rcusim sweep: --results %s: cannot create %s: %s\n", given, path,
				strerror(errno));
			return EXIT_IO;
		}
	}
	/* A write, not access(): root passes access() on a read-only folder. */
	snprintf(path, sizeof(path), "%s/.probe-XXXXXX", s->results);
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, "x", 1) != 1) {
		fprintf(stderr, "rcusim sweep: --results %s: the folder is not writable: %s\n", given,
			strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return EXIT_IO;
	}
	close(fd);
	unlink(path);
	return 0;
}

/* Call @fn with each argument of the sweep @s that decides which runs it
 * has (the scenario, --vary, --seeds, --set, --duration), in the order
 * sweep.args holds them, first. */
static void each_run_arg(const sweep *s, void (*fn)(const char *arg, void *ctx), void *ctx)
{
	fn(s->scenario, ctx);
	for (int q = 0; q < s->nvary; q++) {
		fn("--vary", ctx);
		fn(s->vary[q].arg, ctx);
	}
	if (s->seeds) {
		fn("--seeds", ctx);
		fn(s->seeds, ctx);
	}
	for (size_t q = 0; q < s->nsets; q++) {
		fn("--set", ctx);
		fn(s->sets[q], ctx);
	}
	if (s->duration) {
		fn("--duration", ctx);
		fn(s->duration, ctx);
	}
}

/* Call @fn with each argument of the sweep @s as it is stored in its
 * results folder (paths absolute; --wait and --collect left out): its
 * runs' (each_run_arg), then "--db" and the others. */
static void each_arg(const sweep *s, void (*fn)(const char *arg, void *ctx), void *ctx)
{
	char num[32];
	each_run_arg(s, fn, ctx);
	fn("--db", ctx);
	fn(s->db_path, ctx);
	if (s->plot)
		fn("--plot", ctx);
	fn("--out", ctx);
	fn(s->outdir, ctx);
	fn("--format", ctx);
	fn(s->format, ctx);
	for (size_t q = 0; s->metrics_given && q < s->nmetrics; q++) {
		fn("--metric", ctx);
		fn(s->metrics[q], ctx);
	}
	if (s->par_given) {
		snprintf(num, sizeof(num), "%ld", s->par);
		fn("--jobs", ctx);
		fn(num, ctx);
	}
	fn("--backend", ctx);
	fn(sweep_backend_name[s->backend], ctx);
	fn("--results", ctx);
	fn(s->results, ctx);
	if (s->partition) {
		fn("--partition", ctx);
		fn(s->partition, ctx);
	}
	if (s->time_limit) {
		fn("--time-limit", ctx);
		fn(s->time_limit, ctx);
	}
	if (s->cpus_per_task) {
		snprintf(num, sizeof(num), "%ld", s->cpus_per_task);
		fn("--cpus-per-task", ctx);
		fn(num, ctx);
	}
	for (size_t q = 0; q < s->nsbatch; q++) {
		fn("--sbatch-arg", ctx);
		fn(s->sbatch_args[q], ctx);
	}
	for (size_t q = 0; q < s->nssh; q++) {
		fn("--sshlogin", ctx);
		fn(s->sshlogins[q], ctx);
	}
}

/* each_arg() callback: @arg and its NUL on the FILE @ctx (sweep.args). */
static void put_nul_terminated(const char *arg, void *ctx)
{
	fputs(arg, ctx);
	fputc(0, ctx);
}

/* each_arg() callback: a space and @arg as a shell word on the FILE @ctx. */
static void put_shell_word(const char *arg, void *ctx)
{
	fputc(' ', ctx);
	cli_shell_word(arg, ctx);
}

/* Print the command that submits the sweep @s again, on @out. */
static void print_resubmit(const sweep *s, FILE *out)
{
	fputs("rcusim sweep", out);
	each_arg(s, put_shell_word, out);
	if (s->backend == SWEEP_SLURM)
		fputs(" --wait", out);
	fputc('\n', out);
}

/* Close @f, written to @path: 0, or EXIT_IO (message printed) if a write
 * failed. */
int results_close_written(FILE *f, const char *path)
{
	bool bad = ferror(f) != 0;
	if (fclose(f) || bad) {
		fprintf(stderr, "rcusim sweep: %s: %s\n", path, strerror(errno ? errno : EIO));
		return EXIT_IO;
	}
	return 0;
}

/* The whole of the open file @f (@path, for messages), NUL-terminated,
 * into *@buf (malloc'd) and its length (without the NUL) into *@len;
 * closes @f. 0 or EXIT_IO (message printed). */
static int read_all(FILE *f, const char *path, char **buf, size_t *len)
{
	size_t cap = 4096;
	char *b = malloc(cap);
	*len = 0;
	while (b) {
		*len += fread(b + *len, 1, cap - *len - 1, f);
		if (*len + 1 < cap)
			break; /* end of file, or an error */
		char *g = realloc(b, 2 * cap);
		if (!g)
			free(b);
		b = g;
		cap *= 2;
	}
	bool bad = ferror(f) != 0;
	fclose(f);
	if (!b || bad) {
		fprintf(stderr, "rcusim sweep: %s: %s\n", path, bad ? "read error" : "out of memory");
		free(b);
		return EXIT_IO;
	}
	b[*len] = 0;
	*buf = b;
	return 0;
}

/* Refuse the results folder of another sweep: one whose sweep.args holds
 * other runs (scenario, --vary, --seeds, --set or --duration) than @s's.
 * Its runs/ would mix two sweeps, and its sweep.args, which --collect
 * reads, would be the later one's. The same runs with other options
 * (--jobs, --time-limit, --db, --plot, ...) are this sweep submitted
 * again, which goes on. @given: --results as given. 0 or an exit status
 * (message printed). */
int results_check_same(const sweep *s, const char *given)
{
	char path[PATH_MAX + 32], *theirs = NULL, *mine = NULL;
	size_t ntheirs, nmine = 0;
	int status;
	snprintf(path, sizeof(path), "%s/sweep.args", s->results);
	FILE *f = fopen(path, "r");
	if (!f && errno == ENOENT)
		return 0; /* a new folder */
	if (!f) {
		fprintf(stderr, "rcusim sweep: %s: %s\n", path, strerror(errno));
		return EXIT_IO;
	}
	if ((status = read_all(f, path, &theirs, &ntheirs)))
		return status;
	/* Its runs' arguments come first, ended by "--db" (each_arg). */
	FILE *m = open_memstream(&mine, &nmine);
	if (!m) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		free(theirs);
		return EXIT_IO;
	}
	put_nul_terminated(MANIFEST_MAGIC, m);
	each_run_arg(s, put_nul_terminated, m);
	put_nul_terminated("--db", m);
	if (fclose(m)) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		free(mine);
		free(theirs);
		return EXIT_IO;
	}
	if (ntheirs < nmine || memcmp(theirs, mine, nmine)) {
		fprintf(stderr, "rcusim sweep: --results %s: %s holds another sweep (other runs: a scenario, "
				"--vary, --seeds, --set or --duration of its own): sweep into a new folder",
			given, s->results);
		if (ntheirs && !theirs[ntheirs - 1] && !strcmp(theirs, MANIFEST_MAGIC)) {
			fputs("; that sweep is\n  rcusim sweep", stderr);
			for (size_t k = strlen(theirs) + 1; k < ntheirs; k += strlen(theirs + k) + 1)
				put_shell_word(theirs + k, stderr);
		}
		fputc('\n', stderr);
		status = EXIT_USAGE;
	}
	free(mine);
	free(theirs);
	return status;
}

/* Store the arguments of @s in its results folder (sweep.args, replaced
 * whole). 0 or EXIT_IO (message printed). */
int results_write_args(const sweep *s)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 48];
	snprintf(path, sizeof(path), "%s/sweep.args", s->results);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "rcusim sweep: %s: %s\n", tmp, strerror(errno));
		return EXIT_IO;
	}
	put_nul_terminated(MANIFEST_MAGIC, f);
	each_arg(s, put_nul_terminated, f);
	if (results_close_written(f, tmp))
		return EXIT_IO;
	if (rename(tmp, path)) {
		fprintf(stderr, "rcusim sweep: %s: %s\n", path, strerror(errno));
		return EXIT_IO;
	}
	return 0;
}

/* Read the arguments stored in the results folder @dir (sweep.args) into
 * s->manifest and an argument vector *@argv of *@argc (argv[0] "sweep",
 * malloc'd). 0 or an exit status (message printed). */
int results_read_args(sweep *s, const char *dir, char ***argv, int *argc)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/sweep.args", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "rcusim sweep: --collect %s: not the results folder of a sweep (%s: %s)\n",
			dir, path, strerror(errno));
		return errno == ENOENT ? EXIT_USAGE : EXIT_IO;
	}
	size_t len;
	char *buf;
	int status = read_all(f, path, &buf, &len);
	if (status)
		return status;
	s->manifest = buf;
	size_t n = 0;
	for (size_t k = 0; k < len; k++)
		n += buf[k] == 0;
	if (!len || buf[len - 1] || strcmp(buf, MANIFEST_MAGIC)) {
		fprintf(stderr, "rcusim sweep: %s: not the arguments of a sweep of this rcusim\n", path);
		return EXIT_USAGE;
	}
	*argv = calloc(n + 1, sizeof(**argv));
	if (!*argv) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	*argc = 0;
	(*argv)[(*argc)++] = "sweep";
	for (size_t k = strlen(buf) + 1; k < len; k += strlen(buf + k) + 1)
		(*argv)[(*argc)++] = buf + k;
	return 0;
}

/* ---- collection --------------------------------------------------------- */

/* Merge every complete run of @s (in its results folder) into s->db_path,
 * then report as a local sweep does: the counts, the runs that did not
 * complete and how to run them again, the comparison and figures. @ended:
 * nothing of the sweep can still be running. Returns the exit status. */
int results_collect(sweep *s, bool ended)
{
	char path[PATH_MAX], err[1024];
	size_t count[SWEEP_NSTATES], nids = 0, nrows = 0;
	size_t *idx = calloc(s->njobs, sizeof(*idx));
	int64_t *ids = calloc(s->njobs, sizeof(*ids));
	rec_run_row *rows = NULL;
	rec_db *db = NULL;
	int status = EXIT_IO;
	if (!idx || !ids) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		goto out;
	}
	if ((status = results_scan(s, s->results, ended, idx, true, count)) ||
	    (status = cli_open_db(s->db_path, false, &db)))
		goto out;
	for (size_t j = 0; j < s->njobs; j++) {
		sweep_job *jb = &s->jobs[j];
		int64_t added, updated, skipped, *got = NULL;
		size_t ngot = 0;
		if (jb->state != SWEEP_COMPLETE)
			continue;
		results_run_db(s->results, jb, path);
		int rc = rec_merge(db, path, &added, &updated, &skipped, &got, &ngot, err, sizeof(err));
		if (rc || idx[j] >= ngot) {
			fprintf(stderr, "rcusim sweep: merging %s into %s: %s\n", path, s->db_path,
				rc ? err : "its run is gone");
			free(got);
			status = rc ? cli_exit_status(rc) : EXIT_IO;
			goto out;
		}
		jb->run_id = ids[nids++] = got[idx[j]];
		free(got);
	}
	/* (No ids would select the latest run of each policy, of any sweep.) */
	int rc = nids ? rec_select_runs(db, ids, nids, &rows, &nrows, err, sizeof(err)) : 0;
	if (rc) {
		fprintf(stderr, "%s: %s\n", s->db_path, err);
		status = cli_exit_status(rc);
		goto out;
	}
	print_counts("sweep: ", s->njobs, count);
	size_t undone = s->njobs - count[SWEEP_COMPLETE] - count[SWEEP_RUNNING];
	if (count[SWEEP_RUNNING])
		fprintf(stderr, "rcusim sweep: %zu runs are still running: collect again when they end\n",
			count[SWEEP_RUNNING]);
	if (undone) {
		fprintf(stderr, "rcusim sweep: %zu runs did not complete; to run them again, and only them:\n  ",
			undone);
		print_resubmit(s, stderr);
	}
	if ((status = sweep_report(s, db, rows, nrows)))
		goto out;
	if (count[SWEEP_COMPLETE] + count[SWEEP_FAILED] < s->njobs)
		status = EXIT_IO; /* lost, aborted, not run, still running */
	else if (count[SWEEP_FAILED])
		status = EXIT_SIMFAIL;
out:
	rec_close(db);
	free(rows);
	free(ids);
	free(idx);
	return status;
}
