/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rcu_gp_kthread.c - the RCU grace-period kthread (rcu_gp_kthread(),
 * kernel/rcu/tree.c of 6.12) as a kthread kind: each step is the flavor's
 * next one (rcu_flavor.gp_step: start a GP, an FQS scan, clean up), whose
 * work is the rcu_nodes it walks and the CPUs it checks; after an FQS scan
 * it resched_cpu()s the CPUs the scan named; it sleeps in swait_event() or
 * swait_event_timeout() until rcu_gp_kthread_wake() ends its wait.
 */
#include <assert.h>
#include <stdlib.h>

#include "kernel/kernel_int.h"

/* The flavor's next step, on @c at @t: every other CPU is settled first,
 * as the FQS scan reads them. */
static double gp_step(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	uint64_t seq = sim_engine_cur_seq(k->eng);
	for (int i = 0; i < k->mach.ncpus; i++)
		if (&k->cpu[i] != c)
			kcpu_settle(&k->cpu[i], sim_now(k->eng), seq, true);
	k->rcu.ops->gp_step(k->rcu.rsp, c->id, t, &kt->gpw);
	double work = (double)(kt->gpw.nodes * k->rcu.node_cost + kt->gpw.cpus * k->rcu.fqs_cpu_cost);
	rcu_effect none = { false, false, false, false };
	kcpu_rcu_effect(c, t, &none); /* rcu_nocb_gp_cleanup()'s kicks */
	return work;
}

/* resched_cpu() of the CPUs its FQS scan named, then its wait (a wakeup
 * during the step, the last quiescent state or a request, found it
 * running; its swait re-checks the condition before it sleeps). */
static rcu_gp_next gp_step_end(kcpu *c, kthread *kt, sim_time t, sim_time *timeout)
{
	kmodel *k = c->k;
	for (int i = 0; i < kt->gpw.nresched; i++) {
		int cpu = kt->gpw.resched[i];
		kcpu *o = &k->cpu[cpu];
		k->rcu.resched_ipis++;
		if (o == c) { /* resched_curr() of its own CPU */
			kcpu_resched(c, false);
			continue;
		}
		k->cnt.ipis++;
		o->ipi_resched = true;
		if (!sim_timer_armed(&o->ipi) && sim_timer_at(k->eng, &o->ipi, t))
			kfail(k, SIM_ENOMEM);
	}
	kt->gpw.nresched = 0;
	if (__builtin_expect(kt->gpw.nboost, 0))
		rcu_boost_leaves(k, kt->gpw.boost, kt->gpw.nboost, t);
	kt->gpw.nboost = 0;
	rcu_gp_next next = kt->gpw.next;
	*timeout = kt->gpw.timeout_ns;
	if (next != RCU_GP_NEXT_RUN && k->rcu.ops->gp_wakeable(k->rcu.rsp))
		next = RCU_GP_NEXT_RUN;
	return next;
}

/* A wakeup whose wait condition no longer holds sleeps on until the wait's
 * timeout (the step finds out which it is). */
static bool gp_wake_fire(kcpu *c, kthread *kt, sim_time now)
{
	kmodel *k = c->k;
	if (kt->gpw.next == RCU_GP_NEXT_TIMEOUT && now < kt->gpw.timeout_ns &&
	    !k->rcu.ops->gp_wakeable(k->rcu.rsp)) {
		if (sim_timer_at(k->eng, &kt->wake, kt->gpw.timeout_ns))
			kfail(k, SIM_ENOMEM);
		return false;
	}
	return !(kt->gpw.next == RCU_GP_NEXT_SLEEP && !k->rcu.ops->gp_wakeable(k->rcu.rsp));
}

const kthread_ops rcu_gp_kthread_ops = {
	.name = "rcu_gp_kthread",
	.step = gp_step,
	.step_end = gp_step_end,
	.wake_fire = gp_wake_fire,
};

void rcu_gp_kthread_kick(kmodel *k, sim_time now)
{
	kthread *kt = k->rcu.gpk;
	if (!kt || !kt->sleeping || (sim_timer_armed(&kt->wake) && kt->wake.when <= now) ||
	    !k->rcu.ops->gp_wakeable(k->rcu.rsp))
		return;
	if (sim_timer_at(k->eng, &kt->wake, now))
		kfail(k, SIM_ENOMEM);
}

/* The GP kthread on rcu.gp_kthread_cpu. 0 or SIM_ENOMEM. */
int rcu_gp_kthread_create(kmodel *k, const sim_params *p, int prio)
{
	krcu *r = &k->rcu;
	r->node_cost = sim_params_int(p, P_RCU_GP_NODE_COST);
	r->fqs_cpu_cost = sim_params_int(p, P_RCU_FQS_CPU_COST);
	int64_t gp_cpu = sim_params_int(p, P_RCU_GP_KTHREAD_CPU);
	assert(gp_cpu < k->mach.ncpus); /* rcusim_validate() checked */
	if (!(r->gpk = calloc(1, sizeof(*r->gpk))) ||
	    kthread_init(k, r->gpk, &rcu_gp_kthread_ops, &k->cpu[gp_cpu], prio))
		return SIM_ENOMEM;
	return 0;
}
