/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rcu_cpu_kthread.c - the per-CPU rcuc kthreads that run RCU core work
 * when rcutree.use_softirq=0 (rcu.use_softirq = no): rcu_cpu_kthread() and
 * invoke_rcu_core_kthread() of kernel/rcu/tree.c, 6.12:2848-2921. Each pass
 * is rcu_core() with callbacks invoked without a count limit; after ten
 * passes with work left it yields for two jiffies.
 */
#include <stdlib.h>

#include "rcu/mechanisms.h"

/* One pass of rcu_cpu_kthread() (tree.c 6.12:2894-2921) on @c at @t:
 * rcu_core() if it has work, invoking without a count limit. Returns
 * its work, ns at full speed. */
static double rcuc_step(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	if (!kt->spincnt)
		kt->step_start = t;
	kt->spincnt++;
	if (!kt->has_work)
		return 0;
	kt->has_work = false;
	sim_time pass = stretch(c, k->rcu.rcuc_pass_cost), cost = stretch(c, k->rcu.cb_cost);
	rcu_core_ctx b = { .now = t, .first_ns = t + pass, .cost_ns = cost,
			   .need_resched = kcpu_need_resched(c), .idle_task = false, .kthread = true };
	rcu_effect e = { false, false, false, false };
	bool more = false;
	int64_t n = k->rcu.ops->rcu_process_callbacks(k->rcu.rsp, c->id, &b, &more, &e);
	if (n)
		count_invoked(k, n, t + pass, cost);
	if (more)
		kt->has_work = true;
	kcpu_rcu_effect(c, t, &e);
	return (double)(k->rcu.rcuc_pass_cost + n * k->rcu.cb_cost);
}

/* On while it has work and fewer than ten passes in this wakeup; then
 * schedule_timeout_idle(2) if work is left, else wait for work. */
static rcu_gp_next rcuc_step_end(kcpu *c, kthread *kt, sim_time t, sim_time *timeout)
{
	kmodel *k = c->k;
	if (kt->has_work && kt->spincnt < 10)
		return RCU_GP_NEXT_RUN;
	sim_hist_add(k->rcu.rcuc_run, (uint64_t)(t - kt->step_start));
	kt->spincnt = 0;
	kt->yielding = kt->has_work;
	*timeout = t + 2 * k->mach.tick_ns;
	return kt->yielding ? RCU_GP_NEXT_TIMEOUT : RCU_GP_NEXT_SLEEP;
}

/* The yield is over: on with the work, if any is left. */
static bool rcuc_wake_fire(kcpu *c, kthread *kt, sim_time now)
{
	kt->yielding = false;
	return kt->has_work;
}

const kthread_ops rcu_cpu_kthread_ops = {
	.name = "rcuc",
	.step = rcuc_step,
	.step_end = rcuc_step_end,
	.wake_fire = rcuc_wake_fire,
};

/* invoke_rcu_core() on @c at @now: RCU_SOFTIRQ raised; or, with RCU core
 * work in rcuc kthreads (invoke_rcu_core_kthread(), tree.c 6.12:2848-2862),
 * work for this CPU's rcuc, which is woken unless it is yielding (then only
 * from idle). */
void rcu_invoke_core(kcpu *c, sim_time now)
{
	kthread *kt = c->rcuc;
	if (!kt) {
		c->softirq_pending = true;
		return;
	}
	kt->has_work = true;
	if (kt->sleeping && (!kt->yielding || !c->rq.curr))
		kthread_wake(kt, now, false);
}

/* rcuc on every CPU when the flavor runs its core work in kthreads
 * (rcu_flavor.core_kthread). 0 or SIM_ENOMEM. */
int rcu_cpu_kthreads_create(kmodel *k, const sim_params *p, int prio)
{
	krcu *r = &k->rcu;
	if (!r->ops->gp_step)
		return 0; /* a flavor without a GP kthread (classic RCU) */
	if (!r->ops->core_kthread(r->rsp))
		return 0;
	r->rcuc_pass_cost = rcu_cost_param(p, P_RCU_RCUC_PASS_COST, P_RCU_TASKLET_COST);
	if (!(r->rcuc = calloc((size_t)k->mach.ncpus, sizeof(*r->rcuc))) ||
	    !(r->rcuc_run = metric_hist(k->h.m, M_RCUC_RUN_NS)))
		return SIM_ENOMEM;
	for (int i = 0; i < k->mach.ncpus; i++) {
		if (kthread_init(k, &r->rcuc[i], &rcu_cpu_kthread_ops, &k->cpu[i], prio))
			return SIM_ENOMEM;
		k->cpu[i].rcuc = &r->rcuc[i];
	}
	return 0;
}

void rcu_cpu_kthreads_destroy(kmodel *k)
{
	free(k->rcu.rcuc);
}

/* rcuc's scalars: wakeups, CPU time, the longest wait of a woken one for
 * its CPU (one still waiting at @now counts), its step lengths. */
int rcu_cpu_kthreads_finish(const kmodel *k, sim_metrics *m, sim_time now)
{
	if (!k->rcu.rcuc)
		return 0;
	uint64_t wakeups = 0;
	sim_time wait = 0, cpu_ns = 0;
	for (int i = 0; i < k->mach.ncpus; i++) {
		const kthread *t = &k->rcu.rcuc[i];
		wakeups += t->wakeups;
		cpu_ns += t->cpu_ns;
		if (t->wait_max > wait)
			wait = t->wait_max;
		if (t->waiting && now - t->woken > wait)
			wait = now - t->woken;
	}
	int rc = metric_scalar(m, M_RCUC_WAKEUPS, (double)wakeups);
	rc |= metric_scalar(m, M_RCUC_WAIT_MAX_NS, (double)wait);
	rc |= metric_scalar(m, M_RCUC_CPU_NS, (double)cpu_ns);
	return rc | metric_hist_scalars(m, M_RCUC_RUN_NS, k->rcu.rcuc_run, SIM_Q_P99 | SIM_Q_MAX);
}
