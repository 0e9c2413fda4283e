/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cli.h - what the files of the rcusim executable share: the helpers of
 * every command, and the work of run and compare that others use too.
 *
 * The layers of cli/, top to bottom. A file calls into its own layer and
 * those below, never above, and includes only the headers of its layer and
 * below: cli.h <- sweep_plan.h <- backend.h, and commands.h, are a DAG.
 *
 *   6 main.c        the command table, the exit status      commands.h
 *   5 commands      run.c compare.c params.c metrics.c      commands.h
 *                   runs.c merge.c plot.c check.c sweep.c
 *                   (sweep.c: the table of backends)
 *   4 backends      backend_local.c, backend_slurm.c,       backend.h
 *                   backend_parallel.c; below them
 *                   backend_common.c (the cluster flow,
 *                   the programs it runs), below that
 *                   backend_results.c (the results folder)
 *   3 sweep plan    sweep_plan.c (options, runs, keys),     sweep_plan.h
 *                   sweep_report.c (the table, figures)
 *   2 shared work   run.c: one run, cli_do_run() and        cli.h
 *                   cli_check_run(); compare.c: the
 *                   comparison tables, cli_compare_groups()
 *                   and cli_compare_long()
 *   1 helpers       status.c opts.c format.c db.c           cli.h
 *                   figures.c
 *   0 libraries     models/ and sim/ (model.h, registry.h, recorder.h, ...)
 *
 * run.c and compare.c each hold a command (5) and the work of it that
 * others share (2). A command never calls another command.
 */
#ifndef RCUSIM_CLI_CLI_H
#define RCUSIM_CLI_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "recorder.h"

enum { EXIT_REGRESSION = 1, EXIT_USAGE = 2, EXIT_IO = 3, EXIT_SIMFAIL = 4 };

/* ---- status.c: the exit status and the signals that stop a run ---------- */

/* The exit status for error @rc (error.h): the one place that chooses it.
 * 0 success, 2 bad input, 3 I/O, database or resources, 4 a failed model
 * check, 128 + signal when a signal stopped a run. */
int cli_exit_status(int rc);
/* Catch the signals that stop a run (INT, TERM, HUP, PIPE; one that the
 * caller ignores stays ignored): from now on they only set the flag of
 * cli_stop_flag(). Not while caught already. */
void cli_stop_catch(void);
/* Give the signals back the actions they had before cli_stop_catch(); a
 * no-op when they are not caught. */
void cli_stop_release(void);
/* The signal that asked a run to stop, 0 while none has: the flag the
 * engine watches (rcusim_prepare()). */
const volatile sig_atomic_t *cli_stop_flag(void);

/* ---- opts.c: options ---------------------------------------------------- */

/* Match "--name VALUE" or "--name=VALUE" at argv[*i] (advancing *i): 1 and
 * *val on a match, 0 if argv[*i] is another argument, -1 (message printed)
 * if the value is missing. */
int cli_opt(int argc, char **argv, int *i, const char *name, const char **val);
/* A string option of a command and where its value goes. */
typedef struct cli_str {
	const char *name;  /* "--db" */
	const char **dst;  /* set to its value */
} cli_str;
/* cli_opt() for each of @opts (ended by a NULL name): 1 with the value
 * stored, 0 if none matches argv[*i], -1 (message printed) if the value is
 * missing or the option was given before (cli_opt_once()). */
int cli_strs(int argc, char **argv, int *i, const cli_str *opts);
/* Is this the first time option @name fills @dst since cli_opts_reset()
 * (main() calls it before each command)? false, message printed, if not. */
bool cli_opt_once(const char *name, const char **dst);
/* Forget the options cli_opt_once() has seen: a new command line. */
void cli_opts_reset(void);
/* Is @arg --help or -h? Then @usage has been printed on stdout. */
bool cli_help(const char *arg, const char *usage);
/* Parse a run id; false (message printed) if @s is not one. */
bool cli_run_id(const char *cmd, const char *s, int64_t *id);

/* ---- format.c: values for a reader -------------------------------------- */

/* Seconds on the monotonic clock (CLOCK_MONOTONIC), for elapsed wall time. */
double cli_monotonic_s(void);

/* Human forms: "12.3 ms", "1.50 MiB", "1,234,567". */
void cli_fmt_ns(double ns, char *buf, size_t len);
void cli_fmt_bytes(double b, char *buf, size_t len);
void cli_fmt_count(double v, char *buf, size_t len);
void cli_fmt_count_pm(double m, double hw, char *buf, size_t len);
/* Write @s on @out for a POSIX shell, single-quoted ('\'' for '). */
void cli_shell_quote(const char *s, FILE *out);
/* Write @s on @out as one shell word: as it is when no shell treats any of
 * its characters specially, else single-quoted (cli_shell_quote()). */
void cli_shell_word(const char *s, FILE *out);
/* Write @s on @out as an RFC 4180 field: quoted when it holds a comma, a
 * quote, CR or LF, its quotes doubled. */
void cli_csv_field(const char *s, FILE *out);
/* Write @s on @out as the text of a Markdown table cell: '|' and '\'
 * escaped with '\', a newline as <br>. */
void cli_md_cell(const char *s, FILE *out);
/* Write @s on @out as a JSON string: '"', '\' and control characters
 * escaped; each byte that is not part of UTF-8 text as U+FFFD. */
void cli_json_str(const char *s, FILE *out);
/* The offset of the first byte of @s that is not part of well-formed UTF-8
 * (no overlong forms, surrogates or code points past U+10FFFF), or -1. */
long cli_utf8_bad(const char *s);
/* Is @label (NULL: none) UTF-8? Else false, said on stderr as "rcusim
 * @cmd: @opt: not UTF-8 text ...". */
bool cli_label_ok(const char *cmd, const char *opt, const char *label);

/* ---- db.c: the results database ----------------------------------------- */

/* Open the results database @path: with @must_exist, an existing rcusim
 * database to read, changing nothing in it (rec_open_ro()); else to write,
 * created if absent (rec_open()). 0, or the exit status (message printed):
 * 2 for a path that is no file or a file that is not an rcusim database. */
int cli_open_db(const char *path, bool must_exist, rec_db **db);
/* Open the existing database @db_path and select the runs @ids (all of
 * them known) or, with @nids 0, the latest complete run of each policy;
 * none is an error ("no complete run to @what"). A selected run that is not
 * complete (lost, running, failed, aborted) is noted on stderr. 0 or an exit
 * status. */
int cli_load_runs(const char *db_path, const int64_t *ids, size_t nids, const char *what,
		  rec_db **db, rec_run_row **rows, size_t *nrows);
/* Which runs compare and plot work on: ids and ranges given, a label or
 * scenario glob, the last N; all empty: the latest complete run of each
 * policy, said on stderr. */
typedef struct cli_runsel {
	int64_t *lo, *hi;       /* ids and ranges (lo == hi for one id), room for argc */
	size_t n;
	const char *label;      /* --label GLOB */
	const char *scenario;   /* --scenario GLOB */
	int64_t last;           /* --last N, 0 none */
} cli_runsel;
/* Room in @sel for the ids and ranges of @argc arguments: 0 or -1 (out of
 * memory). cli_runsel_free() frees it. */
int cli_runsel_init(cli_runsel *sel, int argc);
void cli_runsel_free(cli_runsel *sel);
/* The selection options of @argv[*i] (--label GLOB, --scenario GLOB,
 * --last N, ID, A-B, A..B): 1 taken (*i moved on), 0 not one, -1 bad
 * (message printed). */
int cli_runsel_arg(int argc, char **argv, int *i, cli_runsel *sel, const char *cmd);
/* "RUN_ID... | A-B | --label GLOB | --scenario GLOB | --last N" help lines. */
extern const char cli_runsel_help[];
/* cli_load_runs() for a selection: ids alone in the order given; with a
 * range or a filter, the runs in id order (each once) that an id or range
 * names and the globs match, of them the last N, complete ones only (an id
 * named alone may be incomplete). What the default chose is said on stderr. */
int cli_load_runsel(const char *db_path, const cli_runsel *sel, const char *what, rec_db **db,
		    rec_run_row **rows, size_t *nrows);
/* On stderr: @row of @db_path is not complete, and why (lost: its owner is
 * gone). Nothing for a complete run. */
void cli_note_status(const char *db_path, const rec_run_row *row);

/* ---- figures.c: gnuplot and folders ------------------------------------- */

/* The folder of the gnuplot scripts (see figures.c). */
const char *cli_plots_dir(void);
/* A folder of rcusim's data (plots, scenarios) into @out: for an installed
 * rcusim, @rel from the executable's folder (bin/../share/rcusim/...),
 * absolute, where it holds @marker (0); else @src, the source tree's
 * (-1). */
int cli_data_dir(const char *rel, const char *src, const char *marker, char *out, size_t len);
/* The folder of the scenarios and presets, absolute, into @out: the
 * installed one (0), else the source tree's (-1). */
int cli_scenarios_dir(char *out, size_t len);
/* Where a scenario's relative include is looked for when it is not beside
 * the including file: each folder of $RCUSIM_PATH (colon-separated), then
 * the presets (installed, else the source tree's). 0 or SIM_ENOMEM
 * (message in @err). */
int cli_params_search(sim_params *p, char *err, size_t errlen);
/* Write @s to @f as a gnuplot single-quoted string ('' for '), one line:
 * the only way text reaches a generated gnuplot script. */
void cli_gp_string(FILE *f, const char *s);
/* Run gnuplot on plots/@script with @args (no shell). 0 or an exit status. */
int cli_gnuplot(const char *script, const char *const *args, size_t nargs);
/* What a figure of @rows (@n > 0) shows, for its subtitle, into @buf:
 * "x86-256-fwdprog-6.12, kernel linux-6.12, 256 CPUs, 1 s simulated, seeds
 * 1..3" (the scenario, or "several scenarios"; the kernel preset a value
 * came from, where one did; the CPUs, duration and seeds of the runs).
 * 0 or an exit status (message printed). */
int cli_run_context(rec_db *db, const rec_run_row *rows, size_t n, char *buf, size_t len);
/* mkdir -p: 0 or -1 (errno set). */
int cli_mkdir_p(const char *path);
/* Make the figures folder @outdir and its data/ (message printed on
 * failure): their absolute paths in @out and @data (PATH_MAX and
 * PATH_MAX + 16 bytes). 0 or EXIT_IO. */
int cli_plot_dirs(const char *outdir, char *out, char *data);

/* ---- run.c: one run (run, check --run-scenario, sweep) ------------------ */

/* One parameter override: @name = @value from @origin, or (name NULL)
 * @value is a "section.key=value" assignment from --set. */
typedef struct cli_set {
	const char *origin; /* the option that gave it, for messages: "--seed" */
	const char *name;   /* the parameter, or NULL for a --set assignment */
	const char *value;  /* its value, or the whole assignment (section.key=value or a
			     * kernel boot parameter, models/cmdline.h) */
	bool cmdline;       /* value is a whole kernel command line (--cmdline, --cmdline-file) */
} cli_set;

/* Apply @s to @p: a parameter by name, an assignment (rcusim's or a
 * kernel boot parameter's, models/cmdline.h) or a whole command line,
 * whose words rcusim does not model are named on stderr. 0 or an error
 * (error.h) with its message in @err. */
int cli_apply_set(sim_params *p, const cli_set *s, char *err, size_t errlen);
/* The text of a small file (at most 64 KiB: a command line), or NULL with
 * "@what: FILE: why" on stderr. */
char *cli_read_small_file(const char *path, const char *what);

typedef struct cli_run_req {
	const char *scenario; /* scenario file */
	const char *db_path;  /* results database */
	const char *label;    /* run label, or NULL */
	bool quiet;           /* no progress on stderr */
	bool summary;         /* print the summary on stdout */
	cli_set *sets;        /* overrides, applied in order after the file */
	size_t nsets;         /* how many */
	const char *trace;    /* --trace FILE: the run's timeline, or NULL */
	const char *trace_format; /* --trace-format ftrace|json, or NULL (by FILE's name) */
	const char *trace_window; /* --trace-window A..B, or NULL (the whole run) */
	const char *trace_cpus;   /* --trace-cpus LIST, or NULL (every CPU) */
} cli_run_req;

/* Simulate and record one run; its id in *run_id (may be NULL). Returns the
 * exit status of `rcusim run` (messages printed). */
int cli_do_run(const cli_run_req *req, int64_t *run_id);
/* Read and validate the scenario and overrides of @req as cli_do_run()
 * would, and run nothing: 0, or the exit status of `rcusim run` for them
 * (message printed). */
int cli_check_run(const cli_run_req *req);
/* "scenarios/seed.ini" -> "seed" into @buf: a run's scenario name when
 * scenario.name is auto (run, and check looking for a baseline's runs). */
void cli_scenario_stem(const char *path, char *buf, size_t len);

/* ---- import.c: a real machine's trace as a run (import, calibrate) ------- */

typedef struct cli_import_req {
	const char *cmd;       /* the command, for messages: "import" */
	const char *trace;     /* the trace, in any form the trace library reads */
	const char *db_path;   /* results database */
	const char *label;     /* run label, or NULL */
	int64_t sample_ns;     /* softirq.busy_frac's interval */
	const char *sample_s;  /* its text as given, or NULL (100ms) */
	long long hz;          /* the box's HZ as given, or 0 (from the trace) */
	bool hz_given;         /* hz came from --hz */
	bool quiet;            /* one line on stdout, not every scalar */
} cli_import_req;

typedef struct cli_import_res {
	int64_t run_id;        /* the measured run */
	long long hz;          /* the box's HZ (given or from the ticks), 0 unknown */
	int cpus;              /* CPUs the trace names */
	int64_t span_ns;       /* its first to its last event */
} cli_import_res;

/* Import @req->trace as a run of policy "measured" (what `rcusim import`
 * does); its id and what it held into *@res (may be NULL). Returns the exit
 * status of `rcusim import` (messages printed). */
int cli_import(const cli_import_req *req, cli_import_res *res);

/* ---- compare.c: the comparison table (compare, sweep) ------------------- */

/* The comparison of @rows pooled by @heads (each run's column heading):
 * a column per distinct heading, in the order they first come, holding the
 * mean of its runs with a 95% interval (Student's t) and n; rows: the
 * scalars @metrics names (names or globs, @nmetrics of them) or, NULL, the
 * key scalars; text on @out, columns identical in every row said below. */
int cli_compare_groups(rec_db *db, const rec_run_row *rows, size_t n, const char *const *heads,
		       const char *const *metrics, size_t nmetrics, FILE *out);
/* The long form of @rows on @out: one row per run (run, scenario, policy,
 * seed, label, each parameter whose value differs among them, then the
 * scalars @metrics names, or with NULL the key scalars, those some run
 * holds); @format text (human units), csv (ns, bytes), md or json. 0 or an
 * exit status (message printed). */
int cli_compare_long(rec_db *db, const rec_run_row *rows, size_t n, const char *const *metrics, size_t nmetrics,
		     const char *format, FILE *out);

#endif
