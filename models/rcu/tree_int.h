/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tree_int.h - what Tree RCU's own files (tree.c, tree_gp.c) share and
 * nothing else uses.
 * Linux 6.12 (kernel/rcu/tree.c), as tree.c and tree_gp.c.
 */
#ifndef RCUSIM_MODELS_RCU_TREE_INT_H
#define RCUSIM_MODELS_RCU_TREE_INT_H

#include "rcu/tree.h"

/* rcu_gpnum_ovf() (tree.c:768-775): flag a CPU that fell a quarter of the
 * counter behind its leaf. */
static inline void rcu_tree_gpnum_ovf(const rcu_tree_node *rnp, rcu_tree_data *rdp)
{
	if (rcu_ulong_cmp_lt(rdp->gp_seq + UINT64_MAX / 4, rnp->gp_seq))
		rdp->gpwrap = true;
}

/* __note_gp_changes() (tree.c:1265-1311) for @cpu under its leaf (the
 * leaf's lock held, in the kernel). True: wake the GP kthread. */
bool rcu_tree_note_gp_changes_locked(rcu_tree_state *rsp, int cpu);

#endif
