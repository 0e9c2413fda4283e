/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * backend_local.c - `rcusim sweep --backend local`, the default: each run
 * an `rcusim run` process on this machine, --jobs N at a time, all into
 * the sweep's one database (WAL and a busy timeout let them append
 * together); a failed run is reported and the rest go on. Each process's
 * summary names the run it made. Ends with the counts, the comparison and,
 * with --plot, the figures (sweep_report()). --emit-jobs prints the
 * command lines instead and runs nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"

/* --emit-jobs: one `rcusim run` command line per run on stdout, values
 * single-quoted. */
static void emit_jobs(const sweep *s, const char **av)
{
	for (size_t j = 0; j < s->njobs; j++) {
		int n = sweep_run_argv(s, &s->jobs[j], s->db_path, av);
		fputs("rcusim run", stdout);
		for (int k = 2; k < n; k++) {
			/* Option names (at 3, 5, 6 and every even place from 8 on,
			 * see sweep_run_argv) and the seed's digits as they are. */
			bool name = k == 3 || k == 5 || k == 6 || (k >= 8 && k % 2 == 0);
			putchar(' ');
			if (name || !strcmp(av[k - 1], "--seed"))
				fputs(av[k], stdout);
			else
				cli_shell_quote(av[k], stdout);
		}
		putchar('\n');
	}
}

/* Start job @jb of @s: an `rcusim run` process whose stdout goes into a
 * temporary file, where its summary names the run it made (never another
 * process's run with the same label in the same database). 0, or EXIT_IO
 * (message printed) with nothing started. */
static int start_job(const sweep *s, sweep_job *jb, const char **av)
{
	sweep_run_argv(s, jb, s->db_path, av);
	jb->out = tmpfile();
	if (!jb->out) {
		fprintf(stderr, "rcusim sweep: a temporary file: %s\n", strerror(errno));
		return EXIT_IO;
	}
	/* The runs started while this one runs do not hold its file open. */
	fcntl(fileno(jb->out), F_SETFD, FD_CLOEXEC);
	fflush(NULL);
	jb->pid = fork();
	if (jb->pid < 0) {
		fprintf(stderr, "rcusim sweep: fork: %s\n", strerror(errno));
		fclose(jb->out);
		jb->out = NULL;
		jb->pid = 0;
		return EXIT_IO;
	}
	if (jb->pid == 0) {
		if (dup2(fileno(jb->out), STDOUT_FILENO) < 0)
			_exit(127);
		execv(s->self, (char *const *)av);
		fprintf(stderr, "rcusim sweep: cannot run %s: %s\n", s->self, strerror(errno));
		_exit(127);
	}
	return 0;
}

/* Job @jb's process ended with wait status @st: its state and, complete,
 * its run (from the first line of its summary, "run ID STATUS: ..."); for
 * a run that did not complete, why in @why. Closes its output. */
static void job_ended(sweep_job *jb, int st, char *why, size_t len)
{
	char line[256], state[16] = "";
	long long id = 0;
	rewind(jb->out);
	if (!fgets(line, sizeof(line), jb->out) || sscanf(line, "run %lld %15[a-z]:", &id, state) != 2)
		id = 0;
	fclose(jb->out);
	jb->out = NULL;
	/* `rcusim run` exits 128 + the signal when SIGINT or SIGTERM stopped
	 * its run (recorded 'aborted'); killed outright, it left its run
	 * 'running', and nothing will end it: lost. */
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	int sig = WIFSIGNALED(st) ? WTERMSIG(st) : code > 128 ? code - 128 : 0;
	why[0] = 0;
	if (code == 0 && id > 0 && !strcmp(state, "complete")) {
		jb->state = SWEEP_COMPLETE;
		jb->run_id = id;
	} else if (code == EXIT_SIMFAIL) {
		jb->state = SWEEP_FAILED;
		snprintf(why, len, "failed a model check (exit 4; its message is above)");
	} else if (sig == SIGINT || sig == SIGTERM) {
		jb->state = SWEEP_ABORTED;
		snprintf(why, len, "stopped by %s (%s %d)", sig == SIGINT ? "SIGINT" : "SIGTERM",
			 WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? sig : code);
	} else if (WIFSIGNALED(st)) {
		jb->state = SWEEP_LOST;
		snprintf(why, len, "its process (pid %lld) was killed by signal %d (%s) before the run ended",
			 (long long)jb->pid, sig, strsignal(sig));
	} else {
		jb->state = SWEEP_MISSING;
		if (code)
			snprintf(why, len, "exit %d (its message is above)", code);
		else
			snprintf(why, len, "exit 0 without the summary of a complete run");
	}
	jb->pid = 0;
}

/* The local backend: every run of @s, s->par at a time, into s->db_path,
 * each checked before any starts; then the comparison of the runs this
 * sweep made (another command's runs in the same database, even with the
 * same labels, are not its) and figures. Returns the exit status: 3 if a
 * run was lost, aborted or did not run, else 4 if one failed. */
static int sweep_local(sweep *s, const char **av)
{
	rec_db *db = NULL;
	rec_run_row *rows = NULL;
	int64_t *ids = NULL;
	size_t count[SWEEP_NSTATES] = { 0 };
	char err[1024], why[256];
	int status, rc;
	/* A bad value is refused now, not found after the others ran. */
	if ((status = sweep_check_runs(s, av, "no run was started")))
		return status;
	ids = calloc(s->njobs, sizeof(*ids));
	if (!ids) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	/* Create the database (schema, WAL) before the runs share it. */
	if ((status = cli_open_db(s->db_path, false, &db)))
		goto out;
	size_t next = 0, running = 0, done = 0;
	bool tty = isatty(STDERR_FILENO);
	/* A signal that stops a run (SIGTERM, SIGINT, SIGHUP) stops the
	 * sweep: it is sent on to every run that runs (they end 'aborted'),
	 * no other run starts, and the sweep reports what ran. */
	const volatile sig_atomic_t *stop = cli_stop_flag();
	int forwarded = 0;
	cli_stop_catch();
	while (done < next || (!*stop && next < s->njobs)) {
		while (!*stop && running < (size_t)s->par && next < s->njobs) {
			if ((status = start_job(s, &s->jobs[next++], av)))
				goto out;
			running++;
		}
		if (*stop && !forwarded) {
			forwarded = (int)*stop;
			for (size_t j = 0; j < next; j++)
				if (s->jobs[j].pid > 0)
					kill(s->jobs[j].pid, forwarded);
		}
		if (!running)
			continue;
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid == 0) {
			/* None has ended: a short sleep, which a stop signal cuts
			 * short; one that came between the check above and the
			 * sleep is forwarded at most 50 ms late (wait() would
			 * hold it until a run ended on its own). */
			struct timespec nap = { 0, 50000000 };
			nanosleep(&nap, NULL);
			continue;
		}
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0) {
			fprintf(stderr, "rcusim sweep: wait: %s\n", strerror(errno));
			status = EXIT_IO;
			goto out;
		}
		for (size_t j = 0; j < s->njobs; j++) {
			sweep_job *jb = &s->jobs[j];
			if (jb->pid != pid)
				continue;
			job_ended(jb, st, why, sizeof(why));
			count[jb->state]++;
			if (jb->state != SWEEP_COMPLETE)
				fprintf(stderr, "%srcusim sweep: run \"%s\": %s: %s\n", tty ? "\r" : "", jb->label,
					sweep_state_name[jb->state], why);
			running--;
			done++;
			break;
		}
		if (tty)
			fprintf(stderr, "\r%zu of %zu runs done (%zu did not complete)   ", done, s->njobs,
				done - count[SWEEP_COMPLETE]);
	}
	if (tty)
		fputc('\n', stderr);
	if (*stop && !forwarded)
		forwarded = (int)*stop; /* it came as the last run ended: the sweep was stopped all the same */
	cli_stop_release();
	/* The runs a stop left unstarted. */
	for (size_t j = next; j < s->njobs; j++) {
		s->jobs[j].state = SWEEP_MISSING;
		count[SWEEP_MISSING]++;
		fprintf(stderr, "rcusim sweep: run \"%s\": %s: the sweep was stopped by signal %d (%s) "
				"before it started\n", s->jobs[j].label, sweep_state_name[SWEEP_MISSING],
			forwarded, strsignal(forwarded));
	}
	/* The runs the processes reported, in the sweep's order. */
	size_t nids = 0, nrows = 0;
	for (size_t j = 0; j < s->njobs; j++)
		if (s->jobs[j].state == SWEEP_COMPLETE)
			ids[nids++] = s->jobs[j].run_id;
	/* (No ids would select the latest run of each policy: none.) */
	if (nids && (rc = rec_select_runs(db, ids, nids, &rows, &nrows, err, sizeof(err)))) {
		fprintf(stderr, "%s: %s\n", s->db_path, err);
		status = cli_exit_status(rc);
		goto out;
	}
	for (size_t j = 0, r = 0; j < s->njobs && r < nrows; j++) {
		const sweep_job *jb = &s->jobs[j];
		if (jb->state != SWEEP_COMPLETE)
			continue;
		if (strcmp(rows[r].status, "complete") || strcmp(rows[r].label, jb->label)) {
			fprintf(stderr, "rcusim sweep: run \"%s\" reported run %lld, which %s holds as %s, "
					"labelled \"%s\"\n", jb->label, (long long)jb->run_id, s->db_path,
				rows[r].status, rows[r].label);
			status = EXIT_IO;
			goto out;
		}
		r++;
	}
	printf("sweep: %zu runs, %zu complete, %zu failed", s->njobs, count[SWEEP_COMPLETE],
	       count[SWEEP_FAILED]);
	for (int k = 0; k < SWEEP_NSTATES; k++)
		if (k != SWEEP_COMPLETE && k != SWEEP_FAILED && count[k])
			printf(", %zu %s", count[k], sweep_state_name[k]);
	putchar('\n');
	status = sweep_report(s, db, rows, nrows);
	if (forwarded)
		status = 128 + forwarded; /* stopped, as `rcusim run` says it */
	else if (!status && count[SWEEP_COMPLETE] + count[SWEEP_FAILED] < s->njobs)
		status = EXIT_IO; /* lost, aborted, not run */
	else if (!status && count[SWEEP_FAILED])
		status = EXIT_SIMFAIL;
out:
	cli_stop_release();
	for (size_t j = 0; j < s->njobs; j++)
		if (s->jobs[j].out) {
			fclose(s->jobs[j].out);
			s->jobs[j].out = NULL;
		}
	free(rows);
	free(ids);
	rec_close(db);
	return status;
}

/* Run, or with --emit-jobs print, every run of @s. The exit status. */
static int local_run(sweep *s)
{
	const char **av = calloc(sweep_argv_max(s), sizeof(*av));
	int status;
	if (!av) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	if (s->emit) {
		emit_jobs(s, av);
		status = 0;
	} else {
		status = sweep_local(s, av);
	}
	free(av);
	return status;
}

const sweep_backend_ops backend_local = { "local", local_run, NULL };
