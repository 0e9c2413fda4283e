/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rcu_readers.c - tasks preempted inside rcu_read_lock() under PREEMPT_RCU
 * (rcu.preempt_rcu with sched.preempt = full), the CPU model's side:
 * rcu_note_context_switch() queueing one on its leaf rcu_node, its
 * rcu_read_unlock() once it has run the rest of its reader, and RCU
 * priority boosting (CONFIG_RCU_BOOST), where a leaf's rcub kthread lends
 * its SCHED_FIFO priority through an rt_mutex to the readers the grace
 * period waits for, the oldest first, one at a time. Follows
 * kernel/rcu/tree_plugin.h of 6.12 (:323-373, 476-586, 1060-1196); the
 * lists' rules are the flavor's (rcu/tree.c). Left out: the rcub kthread's
 * own CPU time and wakeup (the boost takes effect at the FQS scan that asks
 * for it). The readers an expedited grace period waits for (exp_tasks) are
 * rcu_exp.c's; it has them boosted here (rcu_exp_boost()), newest first.
 *
 * Each leaf keeps its preempted readers oldest first (the kernel's
 * blkd_tasks is newest first; gp_tasks and boost_tasks walk toward its
 * oldest end, which is this list's start).
 */
#include <assert.h>
#include <stdlib.h>

#include "rcu/mechanisms.h"

int rcu_readers_create(kmodel *k)
{
	krcu *r = &k->rcu;
	if (!r->preempt_rcu)
		return 0;
	/* Leaves are numbered among all rcu_nodes, fewer than 2 per CPU. */
	r->nreader_lists = 2 * k->mach.ncpus + 8;
	r->blkd = calloc((size_t)r->nreader_lists, sizeof(*r->blkd));
	r->boosted = calloc((size_t)r->nreader_lists, sizeof(*r->boosted));
	return r->blkd && r->boosted ? 0 : SIM_ENOMEM;
}

void rcu_readers_destroy(kmodel *k)
{
	free(k->rcu.blkd);
	free(k->rcu.boosted);
}

void kcpu_reader_preempted(kcpu *c, job *j)
{
	kmodel *k = c->k;
	krcu *r = &k->rcu;
	r->ops->reader_preempted(r->rsp, c->id, &j->rdr);
	assert(j->rdr.leaf >= 0 && j->rdr.leaf < r->nreader_lists);
	job **pp = &r->blkd[j->rdr.leaf];
	while (*pp)
		pp = &(*pp)->rdr_next;
	*pp = j;
	j->rdr_next = NULL;
	j->rdr_left = sim_rng_uniform(c->rng_mode) * j->wl->reader_len;
	if (__builtin_expect(r->exp != NULL, 0))
		rcu_exp_reader_preempted(c, j);
}

/* rcu_boost() (tree_plugin.h 6.12:1060-1121) on @leaf at @now: lend the
 * rcub kthread's priority to reader @j through the rt_mutex. */
static void boost_job(kmodel *k, int leaf, job *j, sim_time now)
{
	krcu *r = &k->rcu;
	r->boosted[leaf] = j;
	r->readers_boosted++;
	kcpu *o = j->cpu;
	kcpu_settle(o, now, sim_engine_cur_seq(k->eng), false);
	if (!sched_set_fifo(&k->sched.cfg, &o->rq, &j->task, true, now))
		return;
	/* Its priority now beats o's current task: resched_curr(). */
	kcpu_resched(o, false);
	if (!o->in_softirq && !(o->fault & FAULT_IRQS_OFF)) {
		k->cnt.ipis++;
		o->ipi_resched = true;
		if (!sim_timer_armed(&o->ipi) && sim_timer_at(k->eng, &o->ipi, now))
			kfail(k, SIM_ENOMEM);
	}
}

/* The rcub kthread of @leaf at @now: lend its priority to the oldest reader
 * there the grace period waits for, unless one is boosted already
 * (rcu_boost(): one at a time). */
static void boost_next(kmodel *k, int leaf, sim_time now)
{
	krcu *r = &k->rcu;
	if (r->boosted[leaf])
		return;
	job *j = r->blkd[leaf];
	while (j && !r->ops->reader_blocks_gp(r->rsp, &j->rdr))
		j = j->rdr_next;
	if (j)
		boost_job(k, leaf, j, now);
}

void rcu_exp_boost(kmodel *k, int leaf, sim_time now)
{
	krcu *r = &k->rcu;
	if (!r->exp || !r->exp->boost || r->boosted[leaf])
		return;
	/* rnp->exp_tasks: the newest reader the expedited grace period waits
	 * for; after its unlock, the next older one (:1085-1088, 490-491). */
	job *pick = NULL;
	for (job *j = r->blkd[leaf]; j; j = j->rdr_next)
		if (j->exp_blocks)
			pick = j;
	if (pick)
		boost_job(k, leaf, pick, now);
}

void rcu_boost_leaves(kmodel *k, const int *leaves, int n, sim_time now)
{
	for (int i = 0; i < n; i++) {
		rcu_exp_boost(k, leaves[i], now); /* rcu_boost() prefers exp_tasks */
		boost_next(k, leaves[i], now);
	}
}

void kcpu_unlock_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	kmodel *k = c->k;
	krcu *r = &k->rcu;
	sim_time now = sim_now(eng);
	kcpu_settle_now(c);
	if (kcpu_rearm_past_interrupt(c, &c->unlock, now))
		return; /* interrupted: it gets there once the CPU is its own again */
	assert(is_job(c, c->rq.curr)); /* the timer leaves with it (kcpu_schedule()) */
	job *j = c->rq.curr->owner;
	int leaf = j->rdr.leaf;
	job **pp = &r->blkd[leaf];
	while (*pp != j)
		pp = &(*pp)->rdr_next;
	*pp = j->rdr_next;
	j->rdr_next = NULL;
	j->rdr_left = 0;
	rcu_effect e = { false, false, false, false };
	r->ops->reader_unlock(r->rsp, &j->rdr, &e);
	if (__builtin_expect(j->exp_blocks, 0))
		rcu_exp_reader_unlocked(c, j, now);
	if (r->boosted[leaf] == j) {
		/* rt_mutex_futex_unlock() of the boost mutex: its own priority
		 * back; rcub boosts the next reader, if any is left. */
		r->boosted[leaf] = NULL;
		kcpu_account(c, now);
		if (sched_set_fifo(&k->sched.cfg, &c->rq, &j->task, false, now))
			e.need_resched = true;
		rcu_exp_boost(k, leaf, now); /* rcu_boost() prefers exp_tasks (:1085-1088) */
		if (!r->boosted[leaf] && r->ops->boosting(r->rsp, leaf))
			boost_next(k, leaf, now);
	}
	kcpu_rcu_effect(c, now, &e);
}

int rcu_readers_finish(const kmodel *k, sim_metrics *m)
{
	/* Boosting lends SCHED_FIFO: a class that has it (sched_has_fifo()). */
	if (!k->rcu.preempt_rcu || !k->sched.cfg.class->set_fifo)
		return 0;
	return metric_scalar(m, M_KERNEL_READERS_BOOSTED, (double)k->rcu.readers_boosted);
}
