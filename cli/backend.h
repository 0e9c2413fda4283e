/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * backend.h - the backends of `rcusim sweep`, one file each, behind one
 * table row each: how the runs of an expanded sweep are run.
 */
#ifndef RCUSIM_CLI_BACKEND_H
#define RCUSIM_CLI_BACKEND_H

#include "sweep_plan.h"

/* A backend. */
typedef struct sweep_backend_ops {
	const char *name;      /* its --backend value (sweep_backend_name[]) */
	/* Run, or submit, every run of the expanded sweep @s, and report:
	 * the exit status of the sweep. */
	int (*run)(sweep *s);
} sweep_backend_ops;

extern const sweep_backend_ops backend_local;    /* backend_local.c */
extern const sweep_backend_ops backend_slurm;    /* backend_common.c */
extern const sweep_backend_ops backend_parallel; /* backend_common.c */

/* `rcusim sweep --collect DIR`: read the sweep of @dir into @s (parsing
 * its stored arguments, then @argc/@argv's), wait for its array with
 * --wait, merge what completed, report. Returns the exit status. */
int sweep_collect(sweep *s, const char *dir, int argc, char **argv);

#endif
