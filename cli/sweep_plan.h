/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep_plan.h - the plan of `rcusim sweep`, below both the command
 * (sweep.c) and its backends (backend.h): what a sweep is (struct sweep,
 * its runs, their states), parsing its options, expanding its runs, each
 * run's arguments, check and key (sweep_plan.c), and its report
 * (sweep_report.c).
 */
#ifndef RCUSIM_CLI_SWEEP_PLAN_H
#define RCUSIM_CLI_SWEEP_PLAN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli.h"

#define SWEEP_MAX_VARY 8      /* --vary options */
#define SWEEP_MAX_RUNS 20000  /* runs in one sweep (each job's table row is about 4 KiB) */
#define SWEEP_MAX_METRICS 16  /* --metric options */
#define SWEEP_KEY_LEN 16      /* hex digits of a run key */

typedef enum sweep_backend {
	SWEEP_LOCAL,    /* rcusim run processes on this machine, into one database */
	SWEEP_SLURM,    /* one Slurm job array, one task a run, a database each */
	SWEEP_PARALLEL, /* GNU parallel, here or over ssh, a database a run */
	SWEEP_NBACKENDS
} sweep_backend;

/* Where a run of a results folder stands, read from its own database. */
typedef enum sweep_state {
	SWEEP_MISSING,  /* no database, or no run in it: not run (yet) */
	SWEEP_COMPLETE, /* a complete run with the job's label */
	SWEEP_RUNNING,  /* its process is alive (or its task still queued or running) */
	SWEEP_LOST,     /* 'running', its process gone: killed, timed out, node lost */
	SWEEP_ABORTED,  /* stopped by SIGINT or SIGTERM (scancel, a time limit) */
	SWEEP_FAILED,   /* failed a model check, or its database cannot be read */
	SWEEP_NSTATES
} sweep_state;

typedef struct sweep_vary {
	char key[128];       /* section.key */
	char **values;       /* its values (into buf), n of them */
	int n;
	char *buf;           /* a copy of the values */
	const char *arg;     /* the --vary argument as given: "key=V1,V2" */
} sweep_vary;

typedef struct sweep_job {
	char label[REC_LABEL_MAX + 1];    /* run label "sweep K=V ... seed=N", unique per run */
	char sets[SWEEP_MAX_VARY][384];   /* its --set arguments, one per --vary */
	char seed[32];                    /* --seed value, "" for the scenario's own */
	double x;                         /* first varied parameter, canonical units (NAN: none) */
	pid_t pid;                        /* local backend, while running */
	FILE *out;                        /* local backend, while running: its stdout (the summary) */
	char key[SWEEP_KEY_LEN + 1];      /* run key (cluster backends) */
	sweep_state state;                /* from its database (cluster backends) or its end (local) */
	int64_t run_id;                   /* its run in the sweep's database once collected, or 0 */
} sweep_job;

typedef struct sweep {
	const char *usage;                /* the command's usage, printed by --help and some errors */
	/* 1. What to run. */
	const char *scenario;             /* as given (local) or absolute (cluster backends) */
	sweep_vary vary[SWEEP_MAX_VARY];  /* the varied parameters */
	int nvary;
	const char *seeds;                /* --seeds A..B as given, or NULL */
	long seed_lo, seed_hi;            /* its bounds; -1 without --seeds */
	const char **sets;                /* --set KEY=VALUE for every run, in order */
	size_t nsets;
	const char *duration;             /* --duration TIME for every run, or NULL */
	/* 2. Where results go. */
	const char *db_path;              /* the sweep's database (absolute for cluster backends) */
	bool plot;                        /* draw metrics against the first varied parameter */
	bool long_form;                   /* --long: the table as one row per run */
	bool zoom;                        /* --zoom: y axes fit the values, not from 0 */
	const char *outdir;               /* figures folder */
	const char *format;               /* png or svg */
	const char *metrics[SWEEP_MAX_METRICS]; /* scalars to draw */
	size_t nmetrics;
	bool metrics_given;               /* --metric was given on this command line */
	/* 3. How. */
	long par;                         /* --jobs: runs at a time (local: default CPUs) */
	bool par_given;                   /* --jobs was given */
	bool emit;                        /* --emit-jobs: print the command lines only */
	sweep_backend backend;            /* --backend */
	const char *results;              /* --results DIR (cluster backends), absolute once checked */
	const char *collect;              /* --collect DIR, or NULL */
	bool wait;                        /* --wait (Slurm): block until the array ends */
	const char *partition;            /* --partition (Slurm), or NULL */
	const char *time_limit;           /* --time-limit (Slurm), or NULL */
	long cpus_per_task;               /* --cpus-per-task (Slurm), 0: not given */
	const char **sbatch_args;         /* --sbatch-arg, each one sbatch argument */
	size_t nsbatch;
	const char **sshlogins;           /* --sshlogin (parallel), each passed to parallel */
	size_t nssh;
	/* 4. The cross product and what the command owns. */
	sweep_job *jobs;                  /* one per run, seeds innermost */
	size_t njobs;
	char self[PATH_MAX];              /* this rcusim, absolute */
	char abs[4][PATH_MAX];            /* absolute scenario, db, figures and results paths */
	char *manifest;                   /* the arguments read from a results folder (--collect) */
	const char **argv_buf;            /* the --set, --sbatch-arg and --sshlogin arrays' storage */
} sweep;

/* Set @s to the defaults of a sweep with nothing given; @usage is the
 * command's. */
void sweep_init(sweep *s, const char *usage);
/* Free what @s allocated (not @s). */
void sweep_free(sweep *s);
/* The argument vector of one run of @s: `rcusim run` of @j into @db_path
 * (NULL-terminated, at most sweep_argv_max(@s) entries, pointing into @s
 * and @j). Returns the number of arguments. */
int sweep_run_argv(const sweep *s, const sweep_job *j, const char *db_path, const char **av);
/* The size of an argument vector for sweep_run_argv() of @s. */
size_t sweep_argv_max(const sweep *s);
/* Parse the arguments of `rcusim sweep` (argv[0] is a name) into @s;
 * @collect_only: only the options that a collection takes (--db, --plot,
 * --out, --format, --metric, --wait). 0 or an exit status (message
 * printed). */
int sweep_parse(sweep *s, int argc, char **argv, bool collect_only);
/* The cross product of @s's values and seeds into s->jobs. 0 or an exit
 * status (message printed). */
int sweep_expand(sweep *s);
/* Check every run of @s as `rcusim run` would (its scenario and overrides,
 * cli_check_run()) before any starts or is submitted: 0, or the exit
 * status of the first that would fail, its message printed and then "run
 * LABEL would fail: @none". @av holds sweep_argv_max(@s) entries. */
int sweep_check_runs(const sweep *s, const char **av, const char *none);
/* How each backend is named by --backend and in sweep.args. */
extern const char *const sweep_backend_name[SWEEP_NBACKENDS];
/* How each state is named in reports ("not run", "lost", ...). */
extern const char *const sweep_state_name[SWEEP_NSTATES];
/* The run key of each job of @s (cluster backends), into its key: a
 * 64-bit FNV-1a hash of what decides a run, its scenario (absolute path),
 * its overrides and seed in order (its `rcusim run` arguments after the
 * label) and the rcusim version. It leaves out the scenario file's
 * content: edit the file (or an include) and the runs of a results folder
 * still count as done; sweep into a new folder then. @av holds
 * sweep_argv_max(@s) entries. */
void sweep_set_keys(sweep *s, const char **av);

/* sweep_report.c: print the comparison of the sweep's complete runs @rows
 * (from @db) and, with s->plot, draw its figures. 0 or an exit status. */
int sweep_report(const sweep *s, rec_db *db, const rec_run_row *rows, size_t nrows);
/* The value the sweep's scenario (with its --set) gives @v's parameter,
 * before --vary: its text into @text ("" if it cannot be read), and the
 * index of the value of @v that is the same value (10ms and 10000us are),
 * or -1 when none is. */
int sweep_default_index(const sweep *s, const sweep_vary *v, char *text, size_t len);

#endif
