/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * percpu.h - the normal RCU's per-CPU state that the kernel model embeds in
 * each kcpu (kernel/kernel.h, for locality: the context switch and the tick
 * read it), owned by rcu/: read and written only by the "rcu" domain's
 * hooks and its mechanisms (rcu/rcu_domain.c, rcu_exp.c), as the kernel
 * keeps it in struct rcu_data (kernel/rcu/tree.h 6.12:186-273) and the
 * leaf's expmask. Today the expedited grace period's part (issue 47,
 * item 3); the CPU model only initialises its timers.
 */
#ifndef RCUSIM_RCU_PERCPU_H
#define RCUSIM_RCU_PERCPU_H

#include <stdbool.h>

#include "engine.h"

typedef struct rcu_percpu {
	bool exp_owes;          /* the expedited grace period in progress waits for it (expmask) */
	bool exp_deferred;      /* its handler deferred the report (cpu_no_qs.b.exp) */
	bool exp_ipi_due;       /* a scan marked it for an IPI at the scan's end */
	sim_timer exp_ipi;      /* the expedited grace period's IPI on its way */
	sim_timer exp_rdr;      /* PREEMPT_RCU: the rcu_read_unlock() its IPI's handler left
				 * the report to (exp_hint) */
} rcu_percpu;

#endif
