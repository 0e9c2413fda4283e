/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rcu_hooks.c - what the CPU model and the other mechanisms ask of Tree
 * RCU's state (rcu/tree.h's rcu_state and rcu_data), each by the name of
 * the kernel's call: an interrupt's entry on a nohz_full CPU
 * (__rcu_irq_enter_check_tick()), RCU's tick dependencies, context
 * tracking's user-mode entry and exit, rcu_do_batch()'s limit for the
 * trace, and rcu_state.gp_seq. The kernel model reaches Tree RCU's state
 * only through these (rcu/mechanisms.h).
 */
#include <stdint.h>

#include "rcu/mechanisms.h"
#include "rcu/tree.h"

static rcu_tree_state *tree(const kmodel *k) { return rcu_tree_flavor_state(k->rcu.rsp); }

void rcu_irq_enter_check_tick(kcpu *c)
{
	rcu_tree_data *rdp = &tree(c->k)->rda[c->id];
	if (rdp->rcu_urgent_qs && kcpu_irq_from_kernel(c))
		rdp->rcu_forced_tick = true;
}

bool rcu_tick_dep(const kcpu *c)
{
	return tree(c->k)->rda[c->id].rcu_forced_tick || c->exp_owes;
}

void rcu_ct_user_enter(kmodel *k, int cpu) { rcu_tree_eqs_enter(tree(k), cpu); }

void rcu_ct_user_exit(kmodel *k, int cpu) { rcu_tree_eqs_exit(tree(k), cpu); }

void rcu_ct_user_pass(kmodel *k, int cpu) { rcu_tree_ct_pass(tree(k), cpu); }

int64_t rcu_do_batch_limit(const kmodel *k, int cpu)
{
	if (!k->rcu.ops->gp_step)
		return 0; /* classic RCU: no rcu_batch events */
	return rcu_tree_batch_limit(tree(k), cpu);
}

uint64_t rcu_gp_seq(const kmodel *k) { return tree(k)->gp_seq; }
