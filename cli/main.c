/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * main.c - the rcusim command: git-style subcommands (docs/reference.md
 * section 1), one row of the table below each, plus --help and --version.
 * Only main() decides the exit status, which is the command's:
 *   0 success, 1 a check found a regression, 2 bad usage or input,
 *   3 I/O or database failure, 4 the simulation failed an internal check,
 *   128 + signal when SIGINT/SIGTERM aborted a run (recorded as 'aborted').
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

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
	{ "runs", "", cmd_runs, "list the runs of a database with their status (lost ones too)" },
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

/* Transparent huge pages for the simulation's memory: a run touches
 * hundreds of MiB at random (a task, its files and slab objects per
 * context switch), and with 4 KiB pages most of those touches also miss
 * the TLB. glibc backs its heap with huge pages (madvise) only when its
 * tunable glibc.malloc.hugetlb=1 is set at start (tunables are read once),
 * so run and sweep execute themselves again with it added, unless it is
 * there already or RCUSIM_HUGEPAGES=0. Memory layout does not change any
 * result. If the exec fails, the command goes on without. */
static void use_huge_pages(char **argv)
{
	const char *off = getenv("RCUSIM_HUGEPAGES");
	const char *t = getenv("GLIBC_TUNABLES");
	if ((off && !strcmp(off, "0")) || (t && strstr(t, "glibc.malloc.hugetlb")))
		return;
	char buf[4096];
	int n = snprintf(buf, sizeof(buf), "%s%sglibc.malloc.hugetlb=1", t ? t : "", t && *t ? ":" : "");
	if (n < 0 || (size_t)n >= sizeof(buf) || setenv("GLIBC_TUNABLES", buf, 1))
		return;
	execv("/proc/self/exe", argv);
	if (t)
		setenv("GLIBC_TUNABLES", t, 1);
	else
		unsetenv("GLIBC_TUNABLES");
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "run") || !strcmp(argv[1], "sweep")))
		use_huge_pages(argv);
	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		main_usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("rcusim %s\n", RCUSIM_VERSION);
		return 0;
	}
	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
		if (!strcmp(cmd, commands[k].name))
			return commands[k].fn(argc - 1, argv + 1);
	fprintf(stderr, "rcusim: unknown command \"%s\"\n", cmd);
	main_usage(stderr);
	return EXIT_USAGE;
}
