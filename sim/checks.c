/* SPDX-License-Identifier: GPL-3.0-or-later */
/* checks.c - what a failed invariant check does (checks.h). */
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>

void rcusim_check_failed(const char *name, const char *file, int line)
{
	fprintf(stderr, "rcusim: invariant %s failed at %s:%d: this is a bug in rcusim\n", name,
		file, line);
	abort();
}
