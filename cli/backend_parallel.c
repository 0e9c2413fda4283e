/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * backend_parallel.c - `rcusim sweep --backend parallel`: the sweep's runs
 * not complete in its results folder through GNU parallel, here or on the
 * --sshlogin hosts (which must see rcusim, the scenario and the folder at
 * the same paths), one task a run; waits for them, then collects.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"

/* ---- GNU parallel ------------------------------------------------------- */

/* Is `parallel` on $PATH GNU parallel? 0, or EXIT_IO (message printed). */
static int check_parallel(void)
{
	const char *argv[] = { "parallel", "--version", NULL };
	char *out;
	int st;
	if (!backend_on_path("parallel")) {
		fprintf(stderr, "rcusim sweep: --backend parallel: parallel is not on PATH: install GNU "
				"parallel (the Debian package parallel)\n");
		return EXIT_IO;
	}
	if (backend_run_prog(argv, &out, NULL, &st))
		return EXIT_IO;
	bool gnu = !backend_exit_code(st) && strstr(out, "GNU parallel");
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
	if (backend_run_prog(argv, NULL, out, &st))
		goto out;
	/* parallel exits with the number of failed jobs (101: more than 100),
	 * 255 on its own errors. */
	if (backend_exit_code(st) > 101) {
		fprintf(stderr, "rcusim sweep: parallel failed (exit %d); its output is in %s\n",
			backend_exit_code(st), out);
		goto out;
	}
	status = 0;
out:
	free(argv);
	return status;
}

/* ---- the backend -------------------------------------------------------- */

/* Before anything is written: GNU parallel on $PATH. */
static int parallel_check(const sweep *s)
{
	return check_parallel();
}

/* Run submission @n (@todo runs, its task list @tasks) through GNU
 * parallel, under the results folder's lock, then collect. The exit
 * status: parallel's own failure, else the collection's. */
static int parallel_start(sweep *s, const char *tasks, int n, size_t todo, int *lock)
{
	/* Runs found live at submission (tasks of an earlier one whose sweep
	 * was killed) may outlive ours: then a running row is what the
	 * recorder says, else every task has ended. */
	bool others = false;
	for (size_t j = 0; j < s->njobs; j++)
		others |= s->jobs[j].state == SWEEP_RUNNING;
	printf("sweep: running %zu runs through GNU parallel: %s\n", todo, tasks);
	fflush(stdout);
	int prc = parallel_run(s, tasks, n);
	int status = results_collect(s, !others);
	if (prc && (!status || status == EXIT_SIMFAIL))
		status = prc;
	return status;
}

static const backend_hooks parallel_hooks = { parallel_check, NULL, NULL, parallel_start };

/* Run the sweep @s through GNU parallel (backend_submit()). */
static int parallel_sweep(sweep *s)
{
	return backend_submit(s, &parallel_hooks);
}

/* Its tasks end with the command that started them: none is left behind
 * for a collection to wait for (no settle). */
const sweep_backend_ops backend_parallel = { "parallel", parallel_sweep, NULL };
