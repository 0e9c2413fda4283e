/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * backend_slurm.c - `rcusim sweep --backend slurm`: the sweep's runs not
 * complete in its results folder as one Slurm job array (sbatch), one task
 * a run, several arrays if they are more than the cluster's MaxArraySize;
 * all or nothing (an array that cannot be submitted cancels the others).
 * With --wait, waits for them and collects; else --collect does, and waits
 * for them with --wait.
 *
 * Slurm is driven through its commands only (sbatch, squeue, scontrol,
 * scancel), never its library, so any version that has them works; an
 * array's end is found by polling squeue, every second at first, every 30 s
 * at most, which is gentle on a shared controller.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"

#ifndef RCUSIM_VERSION
#define RCUSIM_VERSION "unknown"
#endif

#define POLL_MAX_S 30   /* longest pause between two squeue calls */

/* ---- job arrays --------------------------------------------------------- */

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
	if (backend_run_prog(argv, &out, NULL, &st))
		return -1;
	if (backend_exit_code(st)) {
		fprintf(stderr, "rcusim sweep: squeue failed (exit %d): cannot tell whether ",
			backend_exit_code(st));
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

/* Block until no task of the arrays @a is left in the queue, polling
 * squeue every 1 s at first and at most every POLL_MAX_S; progress on
 * stderr when it is a terminal. 0 or EXIT_IO (message printed). */
static int slurm_wait(const arrays *a)
{
	bool tty = isatty(STDERR_FILENO);
	double t0 = cli_monotonic_s();
	for (;;) {
		long q = slurm_queued(a);
		if (q < 0)
			return EXIT_IO;
		if (!q)
			break;
		if (tty) {
			fputc('\r', stderr);
			arrays_print(a, stderr);
			fprintf(stderr, ": %ld tasks queued or running, %.0f s   ", q, cli_monotonic_s() - t0);
		}
		double pause = 1 + (cli_monotonic_s() - t0) / 10;
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
	if (!backend_on_path("scontrol") || backend_run_prog(argv, &out, NULL, &st))
		return (size_t)max;
	for (char *l = out; !backend_exit_code(st) && *l;) {
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
	for (size_t q = 0; q < s->nsbatch; q++) {
		fputc(' ', f);
		cli_shell_word(s->sbatch_args[q], f);
	}
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
	if (results_close_written(f, path))
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
	if (backend_run_prog(argv, &out, NULL, &st))
		goto out;
	if (backend_exit_code(st)) {
		fprintf(stderr, "rcusim sweep: sbatch failed (exit %d) on %s\n", backend_exit_code(st),
			script);
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
	if (!f || (fprintf(f, "%d %s\n", n, id), results_close_written(f, path))) {
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
			if (backend_run_prog(argv, NULL, NULL, &st))
				st = 1;
			free(argv);
		}
		if (!backend_exit_code(st)) {
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

/* ---- the backend -------------------------------------------------------- */

/* Before anything is written: sbatch and squeue on $PATH, and the options
 * that go into #SBATCH lines one word each. 0 or an exit status (message
 * printed). */
static int slurm_check(const sweep *s)
{
	static const char *const slurm_progs[] = { "sbatch", "squeue" };
	for (size_t k = 0; k < 2; k++)
		if (!backend_on_path(slurm_progs[k])) {
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
	return 0;
}

/* The results folder s->results (real path; @given: as given), which
 * #SBATCH lines and Slurm's file name patterns must hold: 0, or EXIT_USAGE
 * (message printed) for a path they cannot. */
static int slurm_check_dir(const sweep *s, const char *given)
{
	if (!s->results[strcspn(s->results, " \t\n\"'\\%$`")])
		return 0;
	fprintf(stderr, "rcusim sweep: --results %s: Slurm cannot take a path with a space, quote, "
			"backslash, %% or $: choose another folder\n", given);
	return EXIT_USAGE;
}

/* One submission of a results folder at a time: EXIT_USAGE (message
 * printed) while the arrays of the last one into s->results still have
 * tasks queued or running, EXIT_IO if that cannot be told, else 0. */
static int slurm_busy(const sweep *s)
{
	arrays a = { NULL, 0 };
	int status = last_arrays(s->results, &a);
	if (status)
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
	}
out:
	free(a.id);
	return status;
}

/* Submit submission @n (@todo runs, its task list @tasks) as arrays and,
 * with --wait, wait for them (the results folder unlocked meanwhile: *@lock
 * is its lock) and collect. The exit status. */
static int slurm_start(sweep *s, const char *tasks, int n, size_t todo, int *lock)
{
	arrays a = { NULL, 0 };
	int status;
	if ((status = slurm_submit_all(s, tasks, n, todo, &a)))
		goto out;
	printf("sweep: collect with: rcusim sweep --collect %s\n", s->results);
	fflush(stdout);
	if (!s->wait)
		goto out;
	/* While the arrays run, --collect may look in (and will be told). */
	results_unlock(lock);
	if ((status = slurm_wait(&a)) || (status = results_lock(s->results, lock)))
		goto out;
	status = results_collect(s, true);
out:
	free(a.id);
	return status;
}

/* Before the runs of the results folder @dir are collected: the arrays of
 * its last Slurm submission, if any, must have ended. With @wait, wait for
 * them (@dir unlocked meanwhile: *@lock is its lock); without, EXIT_IO
 * (message printed) while they still have tasks. Where squeue cannot be
 * asked, *@ended is false: the runs' heartbeats decide. 0 or an exit
 * status. */
static int slurm_settle(const char *dir, bool wait, int *lock, bool *ended)
{
	arrays a = { NULL, 0 };
	int status = last_arrays(dir, &a);
	if (status || !a.n)
		goto out;
	if (!backend_on_path("squeue")) {
		/* Collected away from the cluster: the runs' heartbeats decide. */
		fprintf(stderr, "rcusim sweep: squeue is not on PATH: cannot ask Slurm whether ");
		arrays_print(&a, stderr);
		fprintf(stderr, " still run%s; a run counts as lost once its heartbeat is %d s old\n",
			a.n == 1 ? "s" : "", REC_LOST_AFTER_S);
		*ended = false;
		goto out;
	}
	long q = slurm_queued(&a);
	if (q > 0 && wait) {
		results_unlock(lock);
		if ((status = slurm_wait(&a)) || (status = results_lock(dir, lock)))
			goto out;
	} else if (q > 0) {
		/* Their databases are not read while their tasks write them
		 * (SQLite's WAL, on a network filesystem, wants one host). */
		fprintf(stderr, "rcusim sweep: ");
		arrays_print(&a, stderr);
		fprintf(stderr, " still %s %ld tasks queued or running: collect again when %s, or add "
				"--wait\n", a.n == 1 ? "has" : "have", q, a.n == 1 ? "it ends" : "they end");
		status = EXIT_IO;
	} else if (q < 0) {
		status = EXIT_IO;
	}
out:
	free(a.id);
	return status;
}

static const backend_hooks slurm_hooks = { slurm_check, slurm_check_dir, slurm_busy, slurm_start };

/* Submit the sweep @s as Slurm arrays (backend_submit()). */
static int slurm_run(sweep *s)
{
	return backend_submit(s, &slurm_hooks);
}

const sweep_backend_ops backend_slurm = { "slurm", slurm_run, slurm_settle };
