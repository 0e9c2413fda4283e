/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * main.c - the rcusim command: git-style subcommands (docs/reference.md
 * section 1), one row of the table below each, plus --help and --version.
 * Only main() decides the exit status, which is the command's:
 *   0 success, 1 a check found a regression, 2 bad usage or input,
 *   3 I/O or database failure (writing standard output too), 4 the
 *   simulation failed an internal check,
 *   128 + signal when SIGINT/SIGTERM aborted a run (recorded as 'aborted').
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

#ifndef RCUSIM_VERSION
#define RCUSIM_VERSION "unknown"
#endif

/* A command: `rcusim NAME ARGS...` runs fn(argc - 1, argv + 1). */
typedef struct command {
	const char *name;    /* "run" */
	const char *args;    /* its main arguments in the listing, "" if none */
	int (*fn)(int argc, char **argv); /* the command; returns the exit status */
	const char *summary; /* one line for `rcusim --help` */
} command;

static const command commands[] = {
	{ "run", "SCENARIO.ini", cmd_run, "simulate one scenario and append the run to a database" },
	{ "params", "", cmd_params, "list every parameter with its default, unit and source" },
	{ "metrics", "", cmd_metrics, "list every metric with its kind, unit and meaning" },
	{ "compare", "", cmd_compare, "the key results of several runs side by side" },
	{ "plot", "", cmd_plot, "draw the standard figures of several runs (gnuplot)" },
	{ "check", "BASELINE", cmd_check, "check a run against a regression baseline" },
	{ "sweep", "SCENARIO.ini", cmd_sweep, "run the cross product of parameter values and seeds" },
	{ "merge", "OUT IN...", cmd_merge, "gather the runs of several databases into one" },
	{ "import", "TRACE", cmd_import, "record a real machine's trace as a run of policy measured" },
	{ "export", "[RUNS]", cmd_export, "runs' results as tidy rows, CSV (RFC 4180) or JSON" },
	{ "trace-stats", "STRACE", cmd_tracestats, "a build's file-opening behaviour from its strace log" },
	{ "runs", "", cmd_runs, "list the runs of a database with their status (lost ones too)" },
	{ "show", "RUN", cmd_show, "a run's resolved scenario, each value with where it came from" },
	{ "probe", "", cmd_probe, "a scenario for this box: CPUs, kernel build, boot and RCU parameters" },
	{ "record", "OUT", cmd_record, "record this box's kernel trace (tracefs) under a pinned load" },
	{ "calibrate", "TRACE", cmd_calibrate, "fit a scenario to a trace of this box, run it, show both" },
};

/* The usage of rcusim itself, with the command table, on @out. */
static void main_usage(FILE *out)
{
	fputs("usage: rcusim [--version] [--help] COMMAND [ARGS]\n"
	      "\n"
	      "Simulate Linux RCU callback queues on many-CPU machines.\n"
	      "\n"
	      "commands:\n",
	      out);
	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++) {
		char use[64];
		snprintf(use, sizeof(use), "%s%s%s", commands[k].name, commands[k].args[0] ? " " : "",
			 commands[k].args);
		fprintf(out, "  %-18s  %s\n", use, commands[k].summary);
	}
	fputs("\n"
	      "`rcusim COMMAND --help` describes a command.\n",
	      out);
}

/* @status, or 3 if what the command printed did not all reach standard
 * output (a full disk, a closed pipe): its reader has a partial result
 * and must not take it for whole. The cause goes to stderr. */
static int output_status(int status)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	if (errno)
		fprintf(stderr, "rcusim: writing standard output: %s; what it shows is incomplete\n",
			strerror(errno));
	else
		fprintf(stderr, "rcusim: writing standard output failed; what it shows is incomplete\n");
	return status == 0 || status == EXIT_REGRESSION ? EXIT_IO : status;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		main_usage(stdout);
		return output_status(0);
	}
	if (!strcmp(cmd, "--version")) {
		printf("rcusim %s\n", RCUSIM_VERSION);
		return output_status(0);
	}
	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
		if (!strcmp(cmd, commands[k].name)) {
			cli_opts_reset();
			return output_status(commands[k].fn(argc - 1, argv + 1));
		}
	fprintf(stderr, "rcusim: unknown command \"%s\"\n", cmd);
	main_usage(stderr);
	return EXIT_USAGE;
}
