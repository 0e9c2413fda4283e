/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * backend_common.c - `rcusim sweep --backend slurm|parallel` and `--collect`: the
 * sweep's runs as tasks that each write a database of their own into a
 * results folder on a shared filesystem, submitted as one Slurm job array
 * (sbatch; several if the runs are more than the cluster's MaxArraySize) or
 * run through GNU parallel (here, or on other hosts over ssh), then merged
 * into the sweep's database and reported as a local sweep is.
 *
 * The results folder DIR holds:
 *   sweep.args        the sweep's arguments, NUL-separated, paths absolute:
 *                     what --collect and the re-submission command read
 *   sweep.lock        flock()ed while a command submits to or collects DIR
 *   runs/KEY.db       each run's database, KEY its run key
 *   failed/KEY-N.db   the database of a run that did not complete, moved
 *                     aside by submission N, which runs it again
 *   submit-N.tasks    submission N's runs, one `rcusim run` command line each
 *   submit-N.sbatch   submission N's batch script (Slurm); submit-N-P.sbatch
 *                     for its array P when it needs more than one
 *   slurm-arrays      "N JOBID" for each array submitted
 *   logs/             each array task's output, parallel's job log and output
 *
 * Slurm is driven through its commands only (sbatch, squeue, scontrol,
 * scancel), never its library, so any version that has them works; an
 * array's end is found by polling squeue, every second at first, every 30 s
 * at most, which is gentle on a shared controller. While a run's task is
 * alive, only that task opens the run's database: the collection reads the
 * databases once no task of the sweep runs, as SQLite's WAL wants on a
 * network filesystem (one host at a time; its file locks must work there).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"

#ifndef RCUSIM_VERSION
#define RCUSIM_VERSION "unknown"
#endif

#define MANIFEST_MAGIC "rcusim sweep arguments 1" /* first entry of sweep.args */
#define MAX_LISTED 20   /* incomplete runs named one by one in a report */
#define POLL_MAX_S 30   /* longest pause between two squeue calls */

/* ---- small helpers ------------------------------------------------------ */

/* Write @s on @out as one shell word: as it is when it holds only
 * characters no shell treats specially, else single-quoted. */
static void shell_word(const char *s, FILE *out)
{
	bool plain = *s != 0;
	for (const char *c = s; *c && plain; c++)
		plain = isalnum((unsigned char)*c) || strchr("_./=:,+-@%", *c);
	if (plain)
		fputs(s, out);
	else
		cli_shell_quote(s, out);
}

/* Is @prog an executable in a folder of $PATH? */
static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".", prog);
		if (!access(buf, X_OK))
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* @path made absolute against the current folder, into @buf (PATH_MAX
 * bytes). false (message printed) if it does not fit. */
static bool absolute(const char *path, char *buf)
{
	char cwd[PATH_MAX];
	int n;
	if (path[0] == '/') {
		n = snprintf(buf, PATH_MAX, "%s", path);
	} else if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "rcusim sweep: the current folder: %s\n", strerror(errno));
		return false;
	} else {
		n = snprintf(buf, PATH_MAX, "%s/%s", cwd, path);
	}
	if (n >= PATH_MAX) {
		fprintf(stderr, "rcusim sweep: %s: path too long\n", path);
		return false;
	}
	return true;
}

/* Run @argv (argv[0] looked up on $PATH) with stdin from /dev/null, stderr
 * ours, and stdout into *@out (malloc'd, NUL-terminated) if @out, else into
 * the file @out_path (created), else ours. Its wait status in *@st. 0, or
 * -1 (message printed) if it could not be started; a program that cannot
 * be executed exits 127 after saying why. */
static int run_prog(const char *const *argv, char **out, const char *out_path, int *st)
{
	int pfd[2] = { -1, -1 };
	if (out) {
		*out = NULL;
		if (pipe(pfd)) {
			fprintf(stderr, "rcusim sweep: pipe: %s\n", strerror(errno));
			return -1;
		}
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rcusim sweep: fork: %s\n", strerror(errno));
		if (out) {
			close(pfd[0]);
			close(pfd[1]);
		}
		return -1;
	}
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		if (in >= 0)
			dup2(in, STDIN_FILENO);
		if (out) {
			dup2(pfd[1], STDOUT_FILENO);
			close(pfd[0]);
			close(pfd[1]);
		} else if (out_path) {
			int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
			if (fd < 0) {
				fprintf(stderr, "rcusim sweep: %s: %s\n", out_path, strerror(errno));
				_exit(127);
			}
			dup2(fd, STDOUT_FILENO);
		}
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "rcusim sweep: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int rc = 0;
	if (out) {
		size_t len = 0, cap = 4096;
		char *buf = malloc(cap);
		close(pfd[1]);
		for (;;) {
			if (buf && len + 1 == cap) {
				char *g = realloc(buf, 2 * cap);
				if (!g) {
					free(buf);
					buf = NULL;
				} else {
					buf = g;
					cap *= 2;
				}
			}
			char sink[4096];
			ssize_t r = read(pfd[0], buf ? buf + len : sink, buf ? cap - 1 - len : sizeof(sink));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			if (buf)
				len += (size_t)r;
		}
		close(pfd[0]);
		if (buf) {
			buf[len] = 0;
			*out = buf;
		} else {
			fprintf(stderr, "rcusim sweep: out of memory reading the output of %s\n", argv[0]);
			rc = -1;
		}
	}
	while (waitpid(pid, st, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "rcusim sweep: waiting for %s: %s\n", argv[0], strerror(errno));
			free(out ? *out : NULL);
			if (out)
				*out = NULL;
			return -1;
		}
	}
	return rc;
}

/* The exit status a wait status @st stands for (128 + signal if killed). */
static int exit_code(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- run keys and states ------------------------------------------------ */

/* The database of job @j in the results folder @dir, into @buf (PATH_MAX). */
static void run_db(const char *dir, const sweep_job *j, char *buf)
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
static int scan_states(sweep *s, const char *dir, bool ended, size_t *idx, bool verbose,
		       size_t count[SWEEP_NSTATES])
{
	char path[PATH_MAX], why[1024];
	size_t listed = 0;
	memset(count, 0, SWEEP_NSTATES * sizeof(count[0]));
	for (size_t j = 0; j < s->njobs; j++) {
		size_t at = 0;
		sweep_job *jb = &s->jobs[j];
		run_db(dir, jb, path);
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

/* ---- the results folder ------------------------------------------------- */

/* Lock the results folder @dir for this process (held until exit or
 * unlock_dir): 0, or EXIT_IO (message printed) if another rcusim sweep
 * holds it or the lock file cannot be made. */
static int lock_dir(const char *dir, int *fd)
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

static void unlock_dir(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Make the results folder s->results and its sub-folders, check that files
 * can be written there, and make s->results its real path (s->abs[3]). 0 or
 * an exit status (message printed). */
static int prepare_dir(sweep *s)
{
	static const char *const subs[] = { "runs", "logs", "failed" };
	char path[PATH_MAX + 32];
	const char *given = s->results;
	if (cli_mkdir_p(given) || !realpath(given, s->abs[3])) {
		fprintf(stderr, "rcusim sweep: --results %s: cannot create the folder: %s\n", given,
			strerror(errno));
		return EXIT_IO;
	}
	s->results = s->abs[3];
	/* #SBATCH lines and Slurm's file name patterns cannot hold these. */
	if (s->backend == SWEEP_SLURM && s->results[strcspn(s->results, " \t\n\"'\\%$`")]) {
		fprintf(stderr, "rcusim sweep: --results %s: Slurm cannot take a path with a space, quote, "
				"backslash, %% or $: choose another folder\n", given);
		return EXIT_USAGE;
	}
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

static void put_nul_terminated(const char *arg, void *ctx)
{
	fputs(arg, ctx);
	fputc(0, ctx);
}

static void put_shell_word(const char *arg, void *ctx)
{
	fputc(' ', ctx);
	shell_word(arg, ctx);
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
static int close_written(FILE *f, const char *path)
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
static int check_same_sweep(const sweep *s, const char *given)
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
static int write_manifest(const sweep *s)
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
	if (close_written(f, tmp))
		return EXIT_IO;
	if (rename(tmp, path)) {
		fprintf(stderr, "rcusim sweep: %s: %s\n", path, strerror(errno));
		return EXIT_IO;
	}
	return 0;
}

/* ---- Slurm -------------------------------------------------------------- */

/* The job ids of the arrays of one submission. */
typedef struct arrays {
	char (*id)[24]; /* job ids, n of them (malloc'd) */
	size_t n;
} arrays;

/* Add job id @id to @a. 0 or EXIT_IO (message printed). */
static int arrays_add(arrays *a, const char *id)
{
	char(*g)[24] = realloc(a->id, (a->n + 1) * sizeof(*g));
	if (!g) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	a->id = g;
	snprintf(a->id[a->n++], sizeof(a->id[0]), "%s", id);
	return 0;
}

/* @a as "array 12" or "arrays 12, 13", on @out. */
static void arrays_print(const arrays *a, FILE *out)
{
	fprintf(out, "array%s", a->n == 1 ? "" : "s");
	for (size_t k = 0; k < a->n; k++)
		fprintf(out, "%s%s", k ? ", " : " ", a->id[k]);
}

/* The arrays of the last submission into @dir, from its slurm-arrays
 * ("SUBMISSION JOBID" lines), into @a (none if there is no such file). 0,
 * or EXIT_IO (message printed). */
static int last_arrays(const char *dir, arrays *a)
{
	char path[PATH_MAX + 32], line[96], id[24];
	long sub, last = -1;
	snprintf(path, sizeof(path), "%s/slurm-arrays", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "rcusim sweep: %s: %s\n", path, strerror(errno));
		return EXIT_IO;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%ld %23[0-9]", &sub, id) != 2 || sub < last)
			continue;
		if (sub > last)
			a->n = 0;
		last = sub;
		if (arrays_add(a, id)) {
			fclose(f);
			return EXIT_IO;
		}
	}
	fclose(f);
	return 0;
}

/* How many tasks of the arrays @a are still queued, running or completing
 * (squeue, this user's jobs), or -1 (message printed) if squeue failed. */
static long slurm_queued(const arrays *a)
{
	char user[300], *out;
	int st;
	struct passwd *pw = getpwuid(getuid());
	snprintf(user, sizeof(user), "--user=%s", pw ? pw->pw_name : getenv("USER") ? getenv("USER") : "");
	const char *argv[] = { "squeue", "--noheader", "--array", user, "--format=%F", NULL };
	if (run_prog(argv, &out, NULL, &st))
		return -1;
	if (exit_code(st)) {
		fprintf(stderr, "rcusim sweep: squeue failed (exit %d): cannot tell whether ", exit_code(st));
		arrays_print(a, stderr);
		fprintf(stderr, " still run%s\n", a->n == 1 ? "s" : "");
		free(out);
		return -1;
	}
	long n = 0;
	for (char *l = out; *l;) {
		size_t ll = strcspn(l, "\n");
		char *t = l + strspn(l, " ");
		size_t tl = strcspn(t, " \n");
		for (size_t k = 0; k < a->n; k++)
			if (tl == strlen(a->id[k]) && !strncmp(t, a->id[k], tl)) {
				n++;
				break;
			}
		l += ll + (l[ll] == '\n');
	}
	free(out);
	return n;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Block until no task of the arrays @a is left in the queue, polling
 * squeue every 1 s at first and at most every POLL_MAX_S; progress on
 * stderr when it is a terminal. 0 or EXIT_IO (message printed). */
static int slurm_wait(const arrays *a)
{
	bool tty = isatty(STDERR_FILENO);
	double t0 = now_s();
	for (;;) {
		long q = slurm_queued(a);
		if (q < 0)
			return EXIT_IO;
		if (!q)
			break;
		if (tty) {
			fputc('\r', stderr);
			arrays_print(a, stderr);
			fprintf(stderr, ": %ld tasks queued or running, %.0f s   ", q, now_s() - t0);
		}
		double pause = 1 + (now_s() - t0) / 10;
		struct timespec ts = { (time_t)(pause < POLL_MAX_S ? pause : POLL_MAX_S), 0 };
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	if (tty)
		fputc('\n', stderr);
	return 0;
}

/* The most tasks one array may have here: the cluster's MaxArraySize
 * (`scontrol show config`), or Slurm's default 1001 if that cannot be
 * read. */
static size_t slurm_max_array(void)
{
	const char *argv[] = { "scontrol", "show", "config", NULL };
	char *out;
	int st;
	long max = 1001;
	if (!on_path("scontrol") || run_prog(argv, &out, NULL, &st))
		return (size_t)max;
	for (char *l = out; !exit_code(st) && *l;) {
		long v;
		if (!strncmp(l, "MaxArraySize", 12) && sscanf(l + 12, " = %ld", &v) == 1 && v > 0)
			max = v;
		l += strcspn(l, "\n");
		l += *l == '\n';
	}
	free(out);
	return (size_t)max;
}

/* Write the batch script @path of submission @n: an array of the @ntasks
 * runs from line @first + 1 on of @tasks. 0 or EXIT_IO (message printed). */
static int write_sbatch(const sweep *s, const char *path, const char *tasks, int n, size_t first,
			size_t ntasks)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "rcusim sweep: %s: %s\n", path, strerror(errno));
		return EXIT_IO;
	}
	fprintf(f, "#!/bin/sh\n"
		   "# rcusim sweep, submission %d: %zu of the sweep's %zu runs, one array task each,\n"
		   "# written by rcusim %s. Task I runs line %zu+I+1 of\n# %s\n"
		   "# (an `rcusim run` command line) into its own database in %s/runs;\n"
		   "# `rcusim sweep --collect %s` merges them. Submitted as:\n#   sbatch --parsable",
		n, ntasks, s->njobs, RCUSIM_VERSION, first, tasks, s->results, s->results);
	for (size_t q = 0; q < s->nsbatch; q++)
		put_shell_word(s->sbatch_args[q], f);
	fprintf(f, " %s\n", path);
	fprintf(f, "#SBATCH --job-name=rcusim-sweep\n#SBATCH --array=0-%zu", ntasks - 1);
	if (s->par_given)
		fprintf(f, "%%%ld", s->par);
	fprintf(f, "\n#SBATCH --ntasks=1\n#SBATCH --chdir=%s\n#SBATCH --output=%s/logs/slurm-%%A_%%a.out\n",
		s->results, s->results);
	if (s->partition)
		fprintf(f, "#SBATCH --partition=%s\n", s->partition);
	if (s->time_limit)
		fprintf(f, "#SBATCH --time=%s\n", s->time_limit);
	if (s->cpus_per_task)
		fprintf(f, "#SBATCH --cpus-per-task=%ld\n", s->cpus_per_task);
	fputs("tasks=", f);
	cli_shell_quote(tasks, f);
	fprintf(f, "\nline=$(sed -n \"$((%zu + SLURM_ARRAY_TASK_ID + 1))p\" \"$tasks\")\n", first);
	fputs("if [ -z \"$line\" ]; then\n"
	      "\techo \"rcusim sweep: array task $SLURM_ARRAY_TASK_ID has no line in $tasks\" >&2\n"
	      "\texit 2\n"
	      "fi\n"
	      "eval \"exec $line\"\n",
	      f);
	if (close_written(f, path))
		return EXIT_IO;
	return 0;
}

/* Submit the batch script @script (an array of @ntasks, of submission @n)
 * with sbatch; add the array's id to @a and record it in the results
 * folder. 0 or EXIT_IO (message printed). */
static int slurm_submit(const sweep *s, const char *script, int n, size_t ntasks, arrays *a)
{
	const char **argv = calloc(s->nsbatch + 4, sizeof(*argv));
	char *out = NULL, path[PATH_MAX + 32], id[24];
	int st, status = EXIT_IO;
	size_t k = 0;
	if (!argv) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	argv[k++] = "sbatch";
	argv[k++] = "--parsable";
	for (size_t q = 0; q < s->nsbatch; q++)
		argv[k++] = s->sbatch_args[q];
	argv[k++] = script;
	argv[k] = NULL;
	if (run_prog(argv, &out, NULL, &st))
		goto out;
	if (exit_code(st)) {
		fprintf(stderr, "rcusim sweep: sbatch failed (exit %d) on %s\n", exit_code(st), script);
		goto out;
	}
	size_t len = strspn(out, "0123456789");
	if (!len || len >= sizeof(id)) {
		fprintf(stderr, "rcusim sweep: sbatch printed no job id (\"%.80s\") for %s: see squeue\n", out,
			script);
		goto out;
	}
	snprintf(id, sizeof(id), "%.*s", (int)len, out);
	if (arrays_add(a, id))
		goto out;
	snprintf(path, sizeof(path), "%s/slurm-arrays", s->results);
	FILE *f = fopen(path, "a");
	if (!f || (fprintf(f, "%d %s\n", n, id), close_written(f, path))) {
		if (!f)
			fprintf(stderr, "rcusim sweep: %s: %s\n", path, strerror(errno));
		fprintf(stderr, "rcusim sweep: array %s cannot be recorded in %s\n", id, path);
		goto out;
	}
	printf("sweep: submitted Slurm array %s: %zu task%s (%s)\n", id, ntasks, ntasks == 1 ? "" : "s",
	       script);
	status = 0;
out:
	free(out);
	free(argv);
	return status;
}

/* Submission @n's @todo runs (its task list @tasks) as Slurm arrays of at
 * most the cluster's MaxArraySize tasks each, their ids in @a. All or
 * nothing: if one cannot be submitted, those already submitted are
 * cancelled (scancel). 0 or EXIT_IO (message printed). */
static int slurm_submit_all(const sweep *s, const char *tasks, int n, size_t todo, arrays *a)
{
	char script[PATH_MAX + 64];
	size_t max = slurm_max_array(), nparts = (todo + max - 1) / max;
	for (size_t p = 0; p < nparts; p++) {
		size_t first = p * max, len = todo - first < max ? todo - first : max;
		if (nparts == 1)
			snprintf(script, sizeof(script), "%s/submit-%d.sbatch", s->results, n);
		else
			snprintf(script, sizeof(script), "%s/submit-%d-%zu.sbatch", s->results, n, p + 1);
		if (!write_sbatch(s, script, tasks, n, first, len) && !slurm_submit(s, script, n, len, a))
			continue;
		if (!a->n) {
			fprintf(stderr, "rcusim sweep: nothing was submitted\n");
			return EXIT_IO;
		}
		/* Never half a submission: take back what went. */
		const char **argv = calloc(a->n + 2, sizeof(*argv));
		int st = 1;
		if (argv) {
			argv[0] = "scancel";
			for (size_t k = 0; k < a->n; k++)
				argv[k + 1] = a->id[k];
			if (run_prog(argv, NULL, NULL, &st))
				st = 1;
			free(argv);
		}
		if (!exit_code(st)) {
			arrays_print(a, stderr);
			fprintf(stderr, " of this submission cancelled: nothing of it runs\n");
		} else {
			fprintf(stderr, "rcusim sweep: cannot cancel ");
			arrays_print(a, stderr);
			fprintf(stderr, ": they run %zu of the %zu runs; cancel them with scancel\n",
				first, todo);
		}
		return EXIT_IO;
	}
	return 0;
}

/* ---- GNU parallel ------------------------------------------------------- */

/* Is `parallel` on $PATH GNU parallel? 0, or EXIT_IO (message printed). */
static int check_parallel(void)
{
	const char *argv[] = { "parallel", "--version", NULL };
	char *out;
	int st;
	if (!on_path("parallel")) {
		fprintf(stderr, "rcusim sweep: --backend parallel: parallel is not on PATH: install GNU "
				"parallel (the Debian package parallel)\n");
		return EXIT_IO;
	}
	if (run_prog(argv, &out, NULL, &st))
		return EXIT_IO;
	bool gnu = !exit_code(st) && strstr(out, "GNU parallel");
	free(out);
	if (!gnu) {
		fprintf(stderr, "rcusim sweep: --backend parallel: the parallel on PATH is not GNU parallel "
				"(moreutils' has the same name): install the Debian package parallel\n");
		return EXIT_IO;
	}
	return 0;
}

/* Run submission @n's task list @tasks through GNU parallel and wait for
 * it. 0, or EXIT_IO (message printed) if parallel itself failed; runs that
 * failed are found in their databases. */
static int parallel_run(const sweep *s, const char *tasks, int n)
{
	char log[PATH_MAX + 64], out[PATH_MAX + 64], jobs[32];
	const char **argv = calloc(2 * s->nssh + 12, sizeof(*argv));
	int st, status = EXIT_IO;
	size_t k = 0;
	if (!argv) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	snprintf(log, sizeof(log), "%s/logs/parallel-%d.log", s->results, n);
	snprintf(out, sizeof(out), "%s/logs/parallel-%d.out", s->results, n);
	argv[k++] = "parallel";
	argv[k++] = "--joblog";
	argv[k++] = log;
	argv[k++] = "--arg-file";
	argv[k++] = tasks;
	if (s->par_given) {
		snprintf(jobs, sizeof(jobs), "%ld", s->par);
		argv[k++] = "--jobs";
		argv[k++] = jobs;
	}
	for (size_t q = 0; q < s->nssh; q++) {
		argv[k++] = "--sshlogin";
		argv[k++] = s->sshlogins[q];
	}
	if (isatty(STDERR_FILENO))
		argv[k++] = "--bar";
	argv[k] = NULL;
	/* The task lines are quoted for a POSIX shell; parallel would use the
	 * caller's (csh, fish) otherwise. */
	if (setenv("PARALLEL_SHELL", "/bin/sh", 1)) {
		fprintf(stderr, "rcusim sweep: setenv: %s\n", strerror(errno));
		goto out;
	}
	if (run_prog(argv, NULL, out, &st))
		goto out;
	/* parallel exits with the number of failed jobs (101: more than 100),
	 * 255 on its own errors. */
	if (exit_code(st) > 101) {
		fprintf(stderr, "rcusim sweep: parallel failed (exit %d); its output is in %s\n",
			exit_code(st), out);
		goto out;
	}
	status = 0;
out:
	free(argv);
	return status;
}

/* ---- submission and collection ----------------------------------------- */

/* Merge every complete run of @s (in its results folder) into s->db_path,
 * then report as a local sweep does: the counts, the runs that did not
 * complete and how to run them again, the comparison and figures. @ended:
 * nothing of the sweep can still be running. Returns the exit status. */
static int collect_runs(sweep *s, bool ended)
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
	if ((status = scan_states(s, s->results, ended, idx, true, count)) ||
	    (status = cli_open_db(s->db_path, false, &db)))
		goto out;
	for (size_t j = 0; j < s->njobs; j++) {
		sweep_job *jb = &s->jobs[j];
		int64_t added, updated, skipped, *got = NULL;
		size_t ngot = 0;
		if (jb->state != SWEEP_COMPLETE)
			continue;
		run_db(s->results, jb, path);
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

/* Move the database of job @j (and its WAL and shared-memory files) from
 * runs/ to failed/KEY-@n.db, so that its new run starts afresh and the old
 * one stays for a look. 0 or EXIT_IO (message printed). */
static int move_aside(const sweep *s, const sweep_job *j, int n)
{
	static const char *const ext[] = { "", "-wal", "-shm", "-journal" };
	char from[PATH_MAX + 16], to[PATH_MAX + 64];
	for (size_t k = 0; k < sizeof(ext) / sizeof(ext[0]); k++) {
		snprintf(from, sizeof(from), "%s/runs/%s.db%s", s->results, j->key, ext[k]);
		snprintf(to, sizeof(to), "%s/failed/%s-%d.db%s", s->results, j->key, n, ext[k]);
		if (rename(from, to) && errno != ENOENT) {
			fprintf(stderr, "rcusim sweep: moving %s aside to %s: %s\n", from, to, strerror(errno));
			return EXIT_IO;
		}
	}
	return 0;
}

/* The next free submission number of the results folder, and its task
 * list created empty at @tasks (PATH_MAX + 64 bytes): -1 (message printed)
 * on failure. */
static int new_submission(const sweep *s, char *tasks, FILE **f)
{
	for (int n = 1; n < 1000000; n++) {
		snprintf(tasks, PATH_MAX + 64, "%s/submit-%d.tasks", s->results, n);
		int fd = open(tasks, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0 || !(*f = fdopen(fd, "w"))) {
			fprintf(stderr, "rcusim sweep: %s: %s\n", tasks, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		return n;
	}
	fprintf(stderr, "rcusim sweep: %s: no free submission number\n", s->results);
	return -1;
}

/* Check what a submission of @s needs before anything is written: the
 * backend's programs, absolute paths, and every run's scenario and
 * overrides. 0 or an exit status (message printed). */
static int check_submission(sweep *s, const char **av)
{
	static const char *const slurm_progs[] = { "sbatch", "squeue" };
	if (s->backend == SWEEP_SLURM) {
		for (size_t k = 0; k < 2; k++)
			if (!on_path(slurm_progs[k])) {
				fprintf(stderr, "rcusim sweep: --backend slurm: %s is not on PATH: run the sweep on "
						"a Slurm submission host (the Debian package slurm-client has "
						"the commands)\n", slurm_progs[k]);
				return EXIT_IO;
			}
		const char *words[] = { s->partition, s->time_limit };
		const char *names[] = { "--partition", "--time-limit" };
		for (size_t k = 0; k < 2; k++)
			if (words[k] && (!*words[k] || words[k][strcspn(words[k], " \t\n\r\"'\\")])) {
				fprintf(stderr, "rcusim sweep: %s: expected one word, got \"%s\"\n", names[k], words[k]);
				return EXIT_USAGE;
			}
	} else if (check_parallel()) {
		return EXIT_IO;
	}
	if (!realpath(s->scenario, s->abs[0])) {
		fprintf(stderr, "%s: cannot read: %s\n", s->scenario, strerror(errno));
		return EXIT_USAGE;
	}
	if (!absolute(s->db_path, s->abs[1]) || !absolute(s->outdir, s->abs[2]))
		return EXIT_USAGE;
	s->scenario = s->abs[0];
	s->db_path = s->abs[1];
	s->outdir = s->abs[2];
	for (size_t j = 0; j < s->njobs; j++) {
		int n = sweep_run_argv(s, &s->jobs[j], "", av);
		for (int k = 8; k + 1 < n; k += 2)
			if (strchr(av[k + 1], '\n')) {
				fprintf(stderr, "rcusim sweep: %s \"%s\": a value with a newline cannot go into a task list\n",
					av[k], av[k + 1]);
				return EXIT_USAGE;
			}
	}
	/* Every run's parameters, here and now, as a local sweep checks them:
	 * never a task that fails on its first line, nor an array half of
	 * whose runs cannot start. */
	return sweep_check_runs(s, av, "nothing was submitted");
}

static int sweep_submit(sweep *s)
{
	char tasks[PATH_MAX + 64];
	const char **av = calloc(sweep_argv_max(s), sizeof(*av));
	arrays a = { NULL, 0 };
	size_t count[SWEEP_NSTATES];
	FILE *f = NULL;
	int status, lock = -1, n;
	if (!av) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	const char *given = s->results;
	if ((status = check_submission(s, av)) || (status = prepare_dir(s)) ||
	    (status = lock_dir(s->results, &lock)) || (status = check_same_sweep(s, given)))
		goto out;
	/* One submission of a results folder at a time. */
	if (s->backend == SWEEP_SLURM) {
		if ((status = last_arrays(s->results, &a)))
			goto out;
		long q = a.n ? slurm_queued(&a) : 0;
		if (q) {
			if (q > 0) {
				fprintf(stderr, "rcusim sweep: %s: ", s->results);
				arrays_print(&a, stderr);
				fprintf(stderr, " of an earlier submission still %s %ld tasks queued or running: "
						"wait for %s (rcusim sweep --collect %s --wait) or cancel %s "
						"(scancel)\n", a.n == 1 ? "has" : "have", q, a.n == 1 ? "it" : "them",
					s->results, a.n == 1 ? "it" : "them");
			}
			status = q > 0 ? EXIT_USAGE : EXIT_IO;
			goto out;
		}
		a.n = 0;
	}
	sweep_set_keys(s, av);
	/* Nothing of this folder runs now (no array queued; parallel runs
	 * under the lock): a run still marked running is lost. */
	if ((status = scan_states(s, s->results, true, NULL, false, count)) ||
	    (status = write_manifest(s)))
		goto out;
	size_t todo = s->njobs - count[SWEEP_COMPLETE];
	printf("sweep: %zu runs in %s: %zu complete, %zu to run", s->njobs, s->results,
	       count[SWEEP_COMPLETE], todo);
	const char *sep = " (";
	for (int k = 0; k < SWEEP_NSTATES; k++)
		if (k != SWEEP_COMPLETE && count[k]) {
			printf("%s%zu %s", sep, count[k], sweep_state_name[k]);
			sep = ", ";
		}
	printf("%s\n", todo ? ")" : "");
	if (!todo) {
		status = collect_runs(s, true);
		goto out;
	}
	if ((n = new_submission(s, tasks, &f)) < 0) {
		status = EXIT_IO;
		goto out;
	}
	for (size_t j = 0; j < s->njobs; j++) {
		const sweep_job *jb = &s->jobs[j];
		char db[PATH_MAX];
		if (jb->state == SWEEP_COMPLETE)
			continue;
		if (jb->state != SWEEP_MISSING && (status = move_aside(s, jb, n)))
			goto out;
		run_db(s->results, jb, db);
		int na = sweep_run_argv(s, jb, db, av);
		shell_word(av[0], f);
		for (int k = 1; k < na; k++)
			put_shell_word(av[k], f);
		fputc('\n', f);
	}
	status = close_written(f, tasks);
	f = NULL;
	if (status)
		goto out;
	if (s->backend == SWEEP_PARALLEL) {
		printf("sweep: running %zu runs through GNU parallel: %s\n", todo, tasks);
		fflush(stdout);
		int prc = parallel_run(s, tasks, n);
		status = collect_runs(s, true);
		if (prc && (!status || status == EXIT_SIMFAIL))
			status = prc;
		goto out;
	}
	if ((status = slurm_submit_all(s, tasks, n, todo, &a)))
		goto out;
	printf("sweep: collect with: rcusim sweep --collect %s\n", s->results);
	fflush(stdout);
	if (!s->wait)
		goto out;
	/* While the arrays run, --collect may look in (and will be told). */
	unlock_dir(&lock);
	if ((status = slurm_wait(&a)) || (status = lock_dir(s->results, &lock)))
		goto out;
	status = collect_runs(s, true);
out:
	if (f)
		fclose(f);
	unlock_dir(&lock);
	free(a.id);
	free(av);
	return status;
}

/* Read the arguments stored in the results folder @dir (sweep.args) into
 * s->manifest and an argument vector *@argv of *@argc (argv[0] "sweep",
 * malloc'd). 0 or an exit status (message printed). */
static int read_manifest(sweep *s, const char *dir, char ***argv, int *argc)
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

int sweep_collect(sweep *s, const char *dir, int argc, char **argv)
{
	char real[PATH_MAX];
	char **margv = NULL;
	arrays a = { NULL, 0 };
	int margc, status, lock = -1;
	/* This command line's options alone first (into a copy that allocates
	 * nothing): bad ones are refused before the folder is read. */
	sweep probe = *s;
	if ((status = sweep_parse(&probe, argc, argv, true)))
		return status;
	if (!realpath(dir, real)) {
		fprintf(stderr, "rcusim sweep: --collect %s: %s\n", dir, strerror(errno));
		return EXIT_USAGE;
	}
	/* The stored sweep, then this command line's options over it. */
	if ((status = read_manifest(s, real, &margv, &margc)))
		goto out;
	if ((status = sweep_parse(s, margc, margv, false))) {
		if (status > 0)
			fprintf(stderr, "rcusim sweep: %s/sweep.args: the stored arguments are refused\n", real);
		goto out;
	}
	if ((status = sweep_parse(s, argc, argv, true)) || (status = sweep_expand(s)))
		goto out;
	bool wait = s->wait;
	if (s->backend == SWEEP_LOCAL) {
		fprintf(stderr, "rcusim sweep: %s/sweep.args: not a Slurm or parallel sweep\n", real);
		status = EXIT_USAGE;
		goto out;
	}
	s->results = real;
	const char **av = calloc(sweep_argv_max(s), sizeof(*av));
	if (!av) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		status = EXIT_IO;
		goto out;
	}
	sweep_set_keys(s, av);
	free(av);
	if ((status = lock_dir(real, &lock)) || (status = last_arrays(real, &a)))
		goto out;
	bool ended = true;
	if (a.n && !on_path("squeue")) {
		/* Collected away from the cluster: the runs' heartbeats decide. */
		fprintf(stderr, "rcusim sweep: squeue is not on PATH: cannot ask Slurm whether ");
		arrays_print(&a, stderr);
		fprintf(stderr, " still run%s; a run counts as lost once its heartbeat is %d s old\n",
			a.n == 1 ? "s" : "", REC_LOST_AFTER_S);
		ended = false;
	} else if (a.n) {
		long q = slurm_queued(&a);
		if (q > 0 && wait) {
			unlock_dir(&lock);
			if ((status = slurm_wait(&a)) || (status = lock_dir(real, &lock)))
				goto out;
		} else if (q > 0) {
			/* Their databases are not read while their tasks write them
			 * (SQLite's WAL, on a network filesystem, wants one host). */
			fprintf(stderr, "rcusim sweep: ");
			arrays_print(&a, stderr);
			fprintf(stderr, " still %s %ld tasks queued or running: collect again when %s, or add "
					"--wait\n", a.n == 1 ? "has" : "have", q, a.n == 1 ? "it ends" : "they end");
			status = EXIT_IO;
			goto out;
		} else if (q < 0) {
			status = EXIT_IO;
			goto out;
		}
	}
	status = collect_runs(s, ended);
out:
	unlock_dir(&lock);
	free(a.id);
	free(margv);
	return status;
}

const sweep_backend_ops backend_slurm = { "slurm", sweep_submit };
const sweep_backend_ops backend_parallel = { "parallel", sweep_submit };
