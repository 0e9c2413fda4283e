/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * backend_common.c - what the cluster backends of `rcusim sweep` (Slurm,
 * GNU parallel) share besides their results folder: the flow of a
 * submission (check every run and option, prepare and lock the folder,
 * write the task list of what is not complete there, the databases of the
 * runs to run again moved aside, submit it, collect), each backend's part
 * in it given as hooks (backend_hooks); `rcusim sweep --collect DIR`; and
 * running the programs they drive (sbatch, squeue, parallel: found on
 * $PATH, run without a shell, their output captured).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"

/* ---- the programs the backends run -------------------------------------- */

/* Is @prog an executable in a folder of $PATH? */
bool backend_on_path(const char *prog)
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
int backend_run_prog(const char *const *argv, char **out, const char *out_path, int *st)
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
int backend_exit_code(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- submission and collection ------------------------------------------ */

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
 * backend's programs and options (@h->check), absolute paths, and every
 * run's scenario and overrides. 0 or an exit status (message printed). */
static int check_submission(sweep *s, const backend_hooks *h, const char **av)
{
	int status = h->check(s);
	if (status)
		return status;
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

/* The flow of a cluster submission, each backend's part in @h: check
 * everything, prepare and lock the results folder, submit what is not
 * complete there, and (by @h->start) collect. The exit status. */
int backend_submit(sweep *s, const backend_hooks *h)
{
	char tasks[PATH_MAX + 64];
	const char **av = calloc(sweep_argv_max(s), sizeof(*av));
	size_t count[SWEEP_NSTATES];
	FILE *f = NULL;
	int status, lock = -1, n;
	if (!av) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	const char *given = s->results;
	if ((status = check_submission(s, h, av)) || (status = results_prepare(s, h->check_dir)) ||
	    (status = results_lock(s->results, &lock)) || (status = results_check_same(s, given)))
		goto out;
	/* One submission of a results folder at a time. */
	if (h->busy && (status = h->busy(s)))
		goto out;
	sweep_set_keys(s, av);
	/* A backend that can tell (Slurm: no array queued) knows that nothing
	 * of this folder runs now: a run still marked running is lost. Else
	 * (GNU parallel, whose tasks outlive a sweep killed under them) a
	 * running row is lost only when the recorder finds its process gone
	 * from this host or its heartbeat stale; a live one is neither moved
	 * aside nor run again. */
	bool sure = h->busy != NULL;
	if ((status = results_scan(s, s->results, sure, NULL, false, count)) ||
	    (status = results_write_args(s)))
		goto out;
	size_t todo = s->njobs - count[SWEEP_COMPLETE] - count[SWEEP_RUNNING];
	printf("sweep: %zu runs in %s: %zu complete, %zu to run", s->njobs, s->results,
	       count[SWEEP_COMPLETE], todo);
	const char *sep = " (";
	for (int k = 0; k < SWEEP_NSTATES; k++)
		if (k != SWEEP_COMPLETE && count[k]) {
			printf("%s%zu %s", sep, count[k], sweep_state_name[k]);
			sep = ", ";
		}
	printf("%s\n", strcmp(sep, " (") ? ")" : "");
	if (!todo) {
		status = results_collect(s, sure);
		goto out;
	}
	if ((n = new_submission(s, tasks, &f)) < 0) {
		status = EXIT_IO;
		goto out;
	}
	for (size_t j = 0; j < s->njobs; j++) {
		const sweep_job *jb = &s->jobs[j];
		char db[PATH_MAX];
		if (jb->state == SWEEP_COMPLETE || jb->state == SWEEP_RUNNING)
			continue;
		if (jb->state != SWEEP_MISSING && (status = move_aside(s, jb, n)))
			goto out;
		results_run_db(s->results, jb, db);
		int na = sweep_run_argv(s, jb, db, av);
		cli_shell_word(av[0], f);
		for (int k = 1; k < na; k++) {
			fputc(' ', f);
			cli_shell_word(av[k], f);
		}
		fputc('\n', f);
	}
	status = results_close_written(f, tasks);
	f = NULL;
	if (status)
		goto out;
	status = h->start(s, tasks, n, todo, &lock);
out:
	if (f)
		fclose(f);
	results_unlock(&lock);
	free(av);
	return status;
}

/* `rcusim sweep --collect DIR`: read the sweep of @dir into @s (its
 * stored arguments, then @argc/@argv's), let each of @backends settle the
 * tasks it left there, merge what completed, report. The exit status. */
int backend_collect(sweep *s, const char *dir, int argc, char **argv,
		    const sweep_backend_ops *const backends[SWEEP_NBACKENDS])
{
	char real[PATH_MAX];
	char **margv = NULL;
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
	if ((status = results_read_args(s, real, &margv, &margc)))
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
	if ((status = results_lock(real, &lock)))
		goto out;
	/* The folder may hold the tasks of an earlier submission by another
	 * backend than the stored arguments name (two submissions are the same
	 * sweep by their runs, whatever ran them): every backend that leaves
	 * tasks behind looks for its own. */
	bool ended = true;
	for (int k = 0; k < SWEEP_NBACKENDS; k++)
		if (backends[k]->settle && (status = backends[k]->settle(real, wait, &lock, &ended)))
			goto out;
	status = results_collect(s, ended);
out:
	results_unlock(&lock);
	free(margv);
	return status;
}
