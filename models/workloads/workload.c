/* SPDX-License-Identifier: GPL-3.0-or-later */
/* workload.c - the table of workload kinds (workload.h).
 * Loads, not kernel code; each kind names the kernel it was measured on. */
#include <assert.h>
#include <string.h>

#include "kernel/kernel_int.h"

/* Every kind (its file, workloads/KIND.c, defines KIND_workload); params.def's
 * workload.kind lists their names. */
extern const workload_ops callrcu_workload, openclose_workload, make_workload, syncrcu_workload,
	exitflood_workload, fwdprog_workload, kfree_workload, trace_workload;
static const workload_ops *const workloads[] = { &callrcu_workload, &openclose_workload,
						 &make_workload, &syncrcu_workload,
						 &exitflood_workload, &fwdprog_workload,
						 &kfree_workload, &trace_workload };
#define NWORKLOADS (sizeof(workloads) / sizeof(workloads[0]))

const workload_ops *workload_find(const char *kind)
{
	for (size_t i = 0; i < NWORKLOADS; i++)
		if (!strcmp(workloads[i]->kind, kind))
			return workloads[i];
	return NULL;
}

const char *workload_kinds(void)
{
	static char buf[256];
	if (!buf[0])
		for (size_t i = 0; i < NWORKLOADS; i++) {
			if (i)
				strcat(buf, ", ");
			strcat(buf, workloads[i]->kind);
		}
	return buf;
}

size_t workloads_knobs(const sim_knobs **out, size_t max)
{
	assert(max >= NWORKLOADS);
	for (size_t i = 0; i < NWORKLOADS; i++)
		out[i] = workloads[i]->knobs;
	return NWORKLOADS;
}
