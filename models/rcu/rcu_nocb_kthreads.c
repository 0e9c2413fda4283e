/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rcu_nocb_kthreads.c - callback offloading's kthreads (rcu_nocbs=) after
 * kernel/rcu/tree_nocb.h of 6.12: an rcuog per group of offloaded CPUs
 * (nocb_gp_wait(): flushes bypasses, waits for grace periods, wakes the
 * rcuo kthreads) on the group's first CPU with the group's deferred-wakeup
 * timer (nocb_timer), and an rcuo per offloaded CPU (nocb_cb_wait():
 * invokes its ready callbacks), there (under irq.nohz_full both on the
 * housekeeping CPUs). Both sleep in swait_event() until their
 * wait's condition holds. The kicks the flavor leaves for them (wakeups,
 * timer changes) are carried out by rcu_nocb_kicks(), which
 * kcpu_rcu_effect() calls after every call into the flavor that may leave
 * some.
 */
#include <stdlib.h>

#include "rcu/mechanisms.h"

/* One nocb_gp_wait() pass of group kt->id at rcu.rcuog_pass_cost. */
static double rcuog_step(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	k->rcu.ops->rcuog_step(k->rcu.rsp, kt->id, t, &kt->nw);
	rcu_effect e = { false, false, kt->nw.wake_gp, false };
	kcpu_rcu_effect(c, t, &e);
	return (double)k->rcu.rcuog_pass_cost;
}

/* One batch of rcuo @kt (nocb_cb_wait(), tree_nocb.h 6.12:883-933) on @c at
 * @t: the ready callbacks after the pass cost, no count or time limit but a
 * cond_resched() after each, so the batch ends at the first callback
 * boundary at or after the CPU's next tick (where need_resched comes from
 * the scheduler); another batch follows at once if callbacks are left.
 * Returns its work, ns at full speed. */
static double rcuo_step(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	sim_time pass = stretch(c, k->rcu.rcuo_pass_cost), cost = stretch(c, k->rcu.cb_cost);
	rcu_core_ctx b = { .now = t, .first_ns = t + pass, .cost_ns = cost,
			   .need_resched = kcpu_need_resched(c), .idle_task = false, .kthread = true };
	sim_time tick = c->tick_when;
	while (tick < b.first_ns)
		tick += k->mach.tick_ns;
	int64_t max = cost > 0 ? (tick - b.first_ns + cost - 1) / cost : 0;
	if (cost > 0 && max < 1)
		max = 1;
	k->rcu.ops->rcuo_step(k->rcu.rsp, kt->id, c->id, &b, max, &kt->nw);
	int64_t n = kt->nw.invoked;
	kt->invoked += (uint64_t)n;
	if (n)
		count_invoked(k, n, b.first_ns, cost);
	rcu_effect e = { false, false, kt->nw.wake_gp, false };
	kcpu_rcu_effect(c, t, &e);
	return (double)(k->rcu.rcuo_pass_cost + n * k->rcu.cb_cost);
}

/* Would a wakeup now end @kt's swait_event() (it may have become true
 * during the step)? */
static bool rcuog_wakeable(kthread *kt)
{
	kmodel *k = kt->cpu->k;
	return k->rcu.ops->rcuog_wakeable(k->rcu.rsp, kt->id);
}

static bool rcuo_wakeable(kthread *kt)
{
	kmodel *k = kt->cpu->k;
	return k->rcu.ops->rcuo_wakeable(k->rcu.rsp, kt->id);
}

/* After a step: on at once while the wait's condition holds, else sleep
 * until a kick (swait_event()). */
static rcu_gp_next rcuog_step_end(kcpu *c, kthread *kt, sim_time t, sim_time *timeout)
{
	return rcuog_wakeable(kt) ? RCU_GP_NEXT_RUN : RCU_GP_NEXT_SLEEP;
}

static rcu_gp_next rcuo_step_end(kcpu *c, kthread *kt, sim_time t, sim_time *timeout)
{
	return rcuo_wakeable(kt) ? RCU_GP_NEXT_RUN : RCU_GP_NEXT_SLEEP;
}

/* A kick or wakeup: it wakes only if its wait would end. */
static bool rcuog_wake_fire(kcpu *c, kthread *kt, sim_time now)
{
	return rcuog_wakeable(kt);
}

static bool rcuo_wake_fire(kcpu *c, kthread *kt, sim_time now)
{
	return rcuo_wakeable(kt);
}

const kthread_ops rcu_nocb_gp_kthread_ops = {
	.name = "rcuog",
	.step = rcuog_step,
	.step_end = rcuog_step_end,
	.wake_fire = rcuog_wake_fire,
};

const kthread_ops rcu_nocb_cb_kthread_ops = {
	.name = "rcuo",
	.step = rcuo_step,
	.step_end = rcuo_step_end,
	.wake_fire = rcuo_wake_fire,
};

void rcu_nocb_kicks(kmodel *k, sim_time now)
{
	const rcu_flavor *rf = k->rcu.ops;
	const rcu_nocb_kick *kk;
	size_t n = rf->nocb_kicks(k->rcu.rsp, &kk);
	for (size_t i = 0; i < n; i++) {
		int id = kk[i].id;
		switch (kk[i].kind) {
		case RCU_KICK_RCUOG:
			kthread_kick(&k->rcu.rcuog[id], now);
			break;
		case RCU_KICK_RCUO:
			kthread_kick(k->cpu[id].rcuo, now);
			break;
		case RCU_KICK_TIMER: {
			sim_timer *tm = &k->rcu.rcuog[id].nocb_timer;
			sim_time when;
			if (!rf->nocb_timer_when(k->rcu.rsp, id, &when)) {
				if (sim_timer_armed(tm))
					sim_timer_cancel(k->eng, tm);
			} else if (sim_timer_at(k->eng, tm, when > now ? when : now)) {
				kfail(k, SIM_ENOMEM);
			}
			break;
		}
		}
	}
}

void rcu_nocb_timer_fire(sim_engine *eng, sim_timer *tm)
{
	kthread *kt = tm->ctx;
	kcpu *c = kt->cpu;
	sim_time now = sim_now(eng);
	rcu_effect none = { false, false, false, false };
	kcpu_settle_now(c);
	c->k->rcu.ops->nocb_timer(c->k->rcu.rsp, kt->id, now);
	kcpu_rcu_effect(c, now, &none);
}

/* An rcuog on the first CPU of each group with an offloaded CPU, with its
 * nocb_timer there, and an rcuo on each offloaded CPU, at @prio as the
 * flavor's other kthreads (rcuo's SCHED_FIFO is
 * CONFIG_RCU_NOCB_CPU_CB_BOOST's, default y with PREEMPT_RT: tree_nocb.h
 * 6.12:1369-1415, kernel/rcu/Kconfig 6.12:279-282). 0 or SIM_ENOMEM. */
int rcu_nocb_kthreads_create(kmodel *k, const sim_params *p, int prio)
{
	krcu *r = &k->rcu;
	if (!r->ops->gp_step)
		return 0; /* a flavor without a GP kthread (classic RCU) */
	int ng = r->ops->nocb_groups(r->rsp);
	if (!ng)
		return 0;
	r->nocb = true;
	r->nrcuog = ng;
	r->rcuog_pass_cost = rcu_cost_param(p, P_RCU_RCUOG_PASS_COST, P_RCU_TASKLET_COST);
	r->rcuo_pass_cost = rcu_cost_param(p, P_RCU_RCUO_PASS_COST, P_RCU_TASKLET_COST);
	if (!(r->rcuog = calloc((size_t)ng, sizeof(*r->rcuog))) ||
	    !(r->rcuo = calloc((size_t)k->mach.ncpus, sizeof(*r->rcuo))))
		return SIM_ENOMEM;
	/* nohz_full=: kthreads on housekeeping CPUs (HK_TYPE_KTHREAD,
	 * kernel/kthread.c 6.12:371), spread round robin as a balanced
	 * scheduler would. */
	const kmachine *mc = &k->mach;
	int next_hk = 0;
	for (int g = 0; g < ng; g++) {
		int leader = r->ops->nocb_leader(r->rsp, g);
		kthread *kt = &r->rcuog[g];
		if (leader < 0)
			continue;
		if (mc->nfull)
			leader = mc->hk[next_hk++ % mc->nhk];
		if (kthread_init(k, kt, &rcu_nocb_gp_kthread_ops, &k->cpu[leader], prio) ||
		    sim_timer_init(k->eng, &kt->nocb_timer, rcu_nocb_timer_fire, kt))
			return SIM_ENOMEM;
		kt->id = g;
	}
	for (int i = 0; i < k->mach.ncpus; i++) {
		if (!r->ops->nocb_offloaded(r->rsp, i))
			continue;
		int on = mc->nfull ? mc->hk[next_hk++ % mc->nhk] : i;
		if (kthread_init(k, &r->rcuo[i], &rcu_nocb_cb_kthread_ops, &k->cpu[on], prio))
			return SIM_ENOMEM;
		r->rcuo[i].id = i;
		k->cpu[i].rcuo = &r->rcuo[i];
	}
	return 0;
}

void rcu_nocb_kthreads_destroy(kmodel *k)
{
	free(k->rcu.rcuog);
	free(k->rcu.rcuo);
}

/* Of the @n kthreads @kts, those set up (a task): the sum of their
 * wakeups in *wakeups and CPU time in *cpu_ns, and the longest wait of a
 * woken one for its CPU (one still waiting at @now counts) in *wait. */
static void kthreads_sum(const kthread *kts, int n, sim_time now, uint64_t *wakeups,
			 sim_time *cpu_ns, sim_time *wait)
{
	*wakeups = 0;
	*cpu_ns = *wait = 0;
	for (int i = 0; i < n; i++) {
		const kthread *t = &kts[i];
		if (!t->cpu)
			continue; /* not set up: no offloaded CPU there */
		*wakeups += t->wakeups;
		*cpu_ns += t->cpu_ns;
		if (t->wait_max > *wait)
			*wait = t->wait_max;
		if (t->waiting && now - t->woken > *wait)
			*wait = now - t->woken;
	}
}

/* The rcuog and rcuo kthreads' scalars. */
int rcu_nocb_kthreads_finish(const kmodel *k, sim_metrics *m, sim_time now)
{
	if (!k->rcu.nocb)
		return 0;
	uint64_t w;
	sim_time cpu, wait;
	kthreads_sum(k->rcu.rcuog, k->rcu.nrcuog, now, &w, &cpu, &wait);
	int rc = metric_scalar(m, M_RCUOG_WAKEUPS, (double)w);
	rc |= metric_scalar(m, M_RCUOG_CPU_NS, (double)cpu);
	rc |= metric_scalar(m, M_RCUOG_WAIT_MAX_NS, (double)wait);
	uint64_t invoked = 0;
	for (int i = 0; i < k->mach.ncpus; i++)
		invoked += k->rcu.rcuo[i].invoked;
	rc |= metric_scalar(m, M_RCUO_INVOKED, (double)invoked);
	kthreads_sum(k->rcu.rcuo, k->mach.ncpus, now, &w, &cpu, &wait);
	rc |= metric_scalar(m, M_RCUO_WAKEUPS, (double)w);
	rc |= metric_scalar(m, M_RCUO_CPU_NS, (double)cpu);
	return rc | metric_scalar(m, M_RCUO_WAIT_MAX_NS, (double)wait);
}
