/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * commands.h - the commands of rcusim, one file each, for main.c's table
 * (the top of cli/'s layers, see cli.h).
 */
#ifndef RCUSIM_CLI_COMMANDS_H
#define RCUSIM_CLI_COMMANDS_H

/* The commands (argv[0] is the command's name): each returns its exit
 * status, messages printed. */
int cmd_run(int argc, char **argv);     /* run.c */
int cmd_params(int argc, char **argv);  /* params.c */
int cmd_metrics(int argc, char **argv); /* metrics.c */
int cmd_runs(int argc, char **argv);    /* runs.c */
int cmd_compare(int argc, char **argv); /* compare.c */
int cmd_merge(int argc, char **argv);   /* merge.c */
int cmd_plot(int argc, char **argv);    /* plot.c */
int cmd_check(int argc, char **argv);   /* check.c */
int cmd_sweep(int argc, char **argv);   /* sweep.c */
int cmd_import(int argc, char **argv);  /* import.c */
int cmd_tracestats(int argc, char **argv); /* tracestats.c */
int cmd_export(int argc, char **argv);  /* export.c */
int cmd_show(int argc, char **argv);    /* show.c */
int cmd_probe(int argc, char **argv);   /* probe.c */
int cmd_record(int argc, char **argv);  /* record.c */
int cmd_calibrate(int argc, char **argv); /* calibrate.c */

#endif
