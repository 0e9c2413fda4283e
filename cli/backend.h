/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * backend.h - the backends of `rcusim sweep`, one file each behind one row
 * of sweep.c's table: backend_local.c (processes on this machine),
 * backend_slurm.c (Slurm job arrays), backend_parallel.c (GNU parallel);
 * and what the two cluster backends share: the flow of a submission and of
 * --collect, with the programs they run (backend_common.c), over their
 * results folder (backend_results.c). Above the plan (sweep_plan.h), below
 * the command: nothing here calls sweep.c.
 */
#ifndef RCUSIM_CLI_BACKEND_H
#define RCUSIM_CLI_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sweep_plan.h"

/* A backend: a row of sweep.c's table. */
typedef struct sweep_backend_ops {
	const char *name; /* its --backend value, as sweep_backend_name[] has it */
	/* Run, or submit, every run of the expanded sweep @s, and report: the
	 * sweep's exit status. */
	int (*run)(sweep *s);
	/* Before the runs of the results folder @dir are collected: wait for
	 * (with @wait) or refuse the tasks this backend left queued or running
	 * there, unlocking the folder's lock *@lock while it waits; *@ended
	 * false if it cannot tell whether they ended. 0 or an exit status
	 * (message printed). NULL: the backend leaves no task behind. */
	int (*settle)(const char *dir, bool wait, int *lock, bool *ended);
} sweep_backend_ops;

extern const sweep_backend_ops backend_local;    /* backend_local.c */
extern const sweep_backend_ops backend_slurm;    /* backend_slurm.c */
extern const sweep_backend_ops backend_parallel; /* backend_parallel.c */

/* ---- backend_common.c: the cluster backends' flow and programs ---------- */

/* What a cluster backend adds to backend_submit(); each returns 0 or an
 * exit status (message printed). */
typedef struct backend_hooks {
	/* Its programs and options, before anything else is checked or written. */
	int (*check)(const sweep *s);
	/* Can the results folder be s->results (its real path; @given: as
	 * given)? Before anything is made in it. NULL: anywhere. */
	int (*check_dir)(const sweep *s, const char *given);
	/* Does an earlier submission into s->results still run? NULL: not asked. */
	int (*busy)(const sweep *s);
	/* Start submission @n, its @todo runs listed in @tasks, and collect when
	 * it waits for them; *@lock is the results folder's lock. The status. */
	int (*start)(sweep *s, const char *tasks, int n, size_t todo, int *lock);
} backend_hooks;

/* Submit the expanded sweep @s on the cluster backend of hooks @h. */
int backend_submit(sweep *s, const backend_hooks *h);
/* `rcusim sweep --collect DIR` of the sweep @s as sweep_init() left it. */
int backend_collect(sweep *s, const char *dir, int argc, char **argv,
		    const sweep_backend_ops *const backends[SWEEP_NBACKENDS]);
/* Is @prog an executable in a folder of $PATH? */
bool backend_on_path(const char *prog);
/* Run @argv (no shell), stdout into *@out or the file @out_path. */
int backend_run_prog(const char *const *argv, char **out, const char *out_path, int *st);
/* The exit status a wait status @st stands for (128 + signal if killed). */
int backend_exit_code(int st);

/* ---- backend_results.c: the results folder ------------------------------ */

/* Make s->results, its sub-folders, and make it absolute. */
int results_prepare(sweep *s, int (*check_dir)(const sweep *s, const char *given));
/* Lock the results folder @dir (flock on sweep.lock) into *@fd. */
int results_lock(const char *dir, int *fd);
/* Unlock what results_lock() locked; *@fd -1 is a no-op. */
void results_unlock(int *fd);
/* Refuse the results folder s->results if it holds another sweep. */
int results_check_same(const sweep *s, const char *given);
/* Store the arguments of @s in s->results/sweep.args. */
int results_write_args(const sweep *s);
/* Read the arguments stored in @dir into an argument vector. */
int results_read_args(sweep *s, const char *dir, char ***argv, int *argc);
/* The database of job @j in the results folder @dir, into @buf. */
void results_run_db(const char *dir, const sweep_job *j, char *buf);
/* Where each job of @s stands in @dir, and how many in each state. */
int results_scan(sweep *s, const char *dir, bool ended, size_t *idx, bool verbose,
		 size_t count[SWEEP_NSTATES]);
/* Close @f, written to @path: 0 or EXIT_IO. */
int results_close_written(FILE *f, const char *path);
/* Merge the complete runs of s->results into s->db_path and report. */
int results_collect(sweep *s, bool ended);

#endif
