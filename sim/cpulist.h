/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cpulist.h - CPU lists as parameters give them, on a machine of @ncpus
 * CPUs. Two grammars, kept apart because their users' messages and
 * results depend on them: the kernel's cpulist_parse() for boot parameters
 * (rcu.nocbs: "N", "all", groups, repeats allowed, a mask out), and a plain
 * list of distinct CPUs in the order named (fault.cpus, whose faults begin
 * in that order).
 */
#ifndef RCUSIM_SIM_CPULIST_H
#define RCUSIM_SIM_CPULIST_H

#include <stdbool.h>
#include <stddef.h>

/* cpulist_parse() = bitmap_parselist() (lib/bitmap-str.c:374) of @s into
 * @mask[0..ncpus): "" none, "all", "N" (the last CPU), "a-b", "a-b:used/group"
 * (and "all:used/group"), separated by commas or white space. 0, or
 * SIM_EINPUT with "NAME=S: why" in @err, @name the boot parameter
 * ("rcu_nocbs": the kernel warns and offloads every CPU instead,
 * tree_nocb.h:63-66); @mask is then all false. */
int sim_cpulist_parse(const char *name, const char *s, int ncpus, bool *mask, char *err,
		      size_t errlen);
/* "0,5,8-11" (spaces allowed around the numbers): distinct CPUs below
 * @ncpus, in the order named, into @out (may be NULL), their count into
 * *n. 0, or -1 with the reason in @why. */
int sim_cpulist_parse_distinct(const char *s, int ncpus, int *out, int *n, char *why,
			       size_t whylen);

#endif
