/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rcu_domain.c - the normal RCU as a domain (rcu/domain.h), named "rcu":
 * the flavor rcu.flavor names (classic RCU of 2.6, Tree RCU of 6.12) with
 * Tree RCU's mechanisms around it (rcu/mechanisms.h). Here are the hooks
 * the CPU model calls, each after the kernel's call: the quiescent state
 * at a context switch with the expedited report that waits for it
 * (rcu_note_context_switch(), tree_plugin.h 6.12:318-370), the tick
 * (rcu_sched_clock_irq(), tree.c 6.12:2655-2700), the idle loop, cond_resched()
 * (rcu_all_qs()), ksoftirqd's rcu_softirq_qs(), rcu_needs_cpu(), the
 * RCU_SOFTIRQ handler rcu_core() pass by pass, an interrupt's entry on a
 * nohz_full CPU (__rcu_irq_enter_check_tick()), RCU's tick dependencies,
 * context tracking's user-mode entry and exit; what RCU asks of a CPU
 * (kcpu_rcu_effect_apply(): need_resched, force_quiescent_state()'s IPIs,
 * the GP kthread's wakeup, invoke_rcu_core(), offloading's kicks); and what
 * the other mechanisms ask of Tree RCU's state (rcu/tree.h's rcu_state and
 * rcu_data): rcu_do_batch()'s limit, rcu_state.gp_seq.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "rcu/domain.h"
#include "rcu/mechanisms.h"
#include "rcu/tree.h"

static rcu_tree_state *tree(const kmodel *k) { return rcu_tree_flavor_state(k->rcu.rsp); }

/* ---- What RCU asks of a CPU -------------------------------------------- */

/* smp_send_reschedule() from @from to every other CPU that still owes
 * the grace period a quiescent state: force_quiescent_state()'s IPIs. */
static void send_reschedule_ipis(kcpu *from, sim_time now)
{
	kmodel *k = from->k;
	for (int i = 0; i < k->mach.ncpus; i++) {
		if (i == from->id || !k->rcu.ops->rcu_cpu_owes_qs(k->rcu.rsp, i))
			continue;
		k->cnt.ipis++;
		kcpu *c = &k->cpu[i];
		if (!sim_timer_armed(&c->ipi) && sim_timer_at(k->eng, &c->ipi, now))
			kfail(k, SIM_ENOMEM);
	}
}

void kcpu_rcu_effect_apply(kcpu *c, sim_time now, const rcu_effect *e)
{
	kmodel *k = c->k;
	if (e->need_resched)
		kcpu_resched(c, false); /* set_tsk_need_resched(): the full bit */
	if (e->send_ipis)
		send_reschedule_ipis(c, now);
	if (__builtin_expect(e->wake_gp, 0))
		rcu_gp_kthread_kick(k, c->id, now);
	if (__builtin_expect(e->raise, 0)) {
		if (ktr(k))
			ktrace_softirq_raise(k, c, now);
		if (c->in_softirq)
			c->run_raised = true; /* the run restarts (or leaves it pending) */
		else
			rcu_invoke_core(c, now);
	}
	if (__builtin_expect(k->rcu.nocb, 0))
		rcu_nocb_kicks(k, now);
}

/* ---- The hooks ------------------------------------------------------------ */

/* Each is an external inline definition (rcu/domain.h declares it without
 * `inline`): domain.h's inlines call it by name while "rcu" is the run's
 * only domain, and the hint lets link-time optimisation inline it there, in
 * the tick, the switch and the softirq pass (without it the tick's and the
 * pass's stayed calls: 0.8% more instructions in a 10 s seed run, callgrind);
 * rcu_domain_rcu_ops below takes their addresses for the loop. */

inline void rcu_dom_note_context_switch(rcu_domain *d, kcpu *c, sim_time now, bool preempt)
{
	kmodel *k = c->k;
	(void)d;
	(void)preempt;
	k->rcu.ops->rcu_note_context_switch(k->rcu.rsp, c->id);
	/* rcu_qs() or rcu_preempt_deferred_qs(): a deferred expedited
	 * report, or the reader its handler found (it ends here). */
	if (__builtin_expect(c->rcu.exp_owes, 0) && (c->rcu.exp_deferred || sim_timer_armed(&c->rcu.exp_rdr)))
		rcu_exp_report(c, now);
}

inline void rcu_dom_note_reader_preempted(rcu_domain *d, kcpu *c, job *j)
{
	(void)d;
	kcpu_reader_preempted(c, j);
}

inline void rcu_dom_sched_clock_irq(rcu_domain *d, kcpu *c, sim_time now, int user_arg)
{
	kmodel *k = c->k;
	const rcu_flavor *rf = k->rcu.ops;
	rcu_effect e = { false, false, false, false };
	(void)d;
	if (c->in_softirq) {
		/* in_softirq(): no quiescent state, but the softirq re-raised
		 * (the run restarts). */
		rf->sched_clock_irq(k->rcu.rsp, c->id, now, false, true, &e);
		kcpu_rcu_effect(c, now, &e);
		return;
	}
	/* 2.6: rcu_check_callbacks() if rcu_pending(); 6.x:
	 * rcu_sched_clock_irq(), which reads whether the tick came from user
	 * mode or idle (and under PREEMPT_RCU, from a reader) only when that
	 * matters: drawn by the CPU model then. */
	bool user = false, reader = false;
	if (rf->tick_reads_mode(k->rcu.rsp, c->id)) {
		user = user_arg == RCU_USER_ASK ? !kcpu_irq_in_kernel(c) : user_arg != 0;
		reader = !user && k->rcu.preempt_rcu && kcpu_irq_in_reader(c);
	}
	if (c->fault & FAULT_NO_QS) {
		user = false;
		reader = true;
	} else if (__builtin_expect(c->rcu.exp_deferred, 0)) {
		/* A deferred expedited report: rcu_qs() from user mode or idle
		 * (tree_plugin.h 6.12:975-992); under PREEMPT_RCU
		 * rcu_preempt_deferred_qs() outside a reader (:730-748). */
		bool u = !kcpu_irq_in_kernel(c);
		if (u || (k->rcu.preempt_rcu && !kcpu_irq_in_reader(c)))
			rcu_exp_report(c, now);
	}
	rf->sched_clock_irq(k->rcu.rsp, c->id, now, user, reader, &e);
	kcpu_rcu_effect(c, now, &e);
}

inline void rcu_dom_idle_enter(rcu_domain *d, kcpu *c)
{
	(void)d;
	c->k->rcu.ops->idle_enter(c->k->rcu.rsp, c->id);
}

inline void rcu_dom_idle_exit(rcu_domain *d, kcpu *c)
{
	(void)d;
	c->k->rcu.ops->idle_exit(c->k->rcu.rsp, c->id);
}

inline bool rcu_dom_needs_cpu(const rcu_domain *d, const kcpu *c)
{
	(void)d;
	return c->k->rcu.ops->needs_cpu(c->k->rcu.rsp, c->id);
}

inline void rcu_dom_all_qs(rcu_domain *d, kcpu *c)
{
	(void)d;
	c->k->rcu.ops->cond_resched(c->k->rcu.rsp, c->id);
}

inline void rcu_dom_softirq_qs(rcu_domain *d, kcpu *c)
{
	(void)d;
	c->k->rcu.ops->softirq_qs(c->k->rcu.rsp, c->id);
}

/* While RCU's need of @c is urgent (rcu_urgent_qs), an interrupt from kernel
 * mode (kcpu_irq_from_kernel()) turns its tick on until it reports
 * (rcu_forced_tick, rcu_disable_urgency_upon_qs(), tree.c 6.12:705-715). */
/* Called for nohz_full CPUs only (Tree RCU's state), as tick_dep. */
inline void rcu_dom_irq_enter_check_tick(rcu_domain *d, kcpu *c)
{
	(void)d;
	rcu_tree_data *rdp = &tree(c->k)->rda[c->id];
	if (rdp->rcu_urgent_qs && kcpu_irq_from_kernel(c))
		rdp->rcu_forced_tick = true;
}

/* TICK_DEP_BIT_RCU (rcu_forced_tick), or TICK_DEP_BIT_RCU_EXP while an
 * expedited grace period waits for @c (tree_exp.h 6.12:625-641, which sets
 * it after a jiffy's wait; here at once). */
inline bool rcu_dom_tick_dep(const rcu_domain *d, const kcpu *c)
{
	(void)d;
	return tree(c->k)->rda[c->id].rcu_forced_tick || c->rcu.exp_owes;
}

inline void rcu_dom_ct_user_enter(rcu_domain *d, int cpu) { rcu_tree_eqs_enter(tree(d->k), cpu); }

inline void rcu_dom_ct_user_exit(rcu_domain *d, int cpu) { rcu_tree_eqs_exit(tree(d->k), cpu); }

inline void rcu_dom_ct_user_pass(rcu_domain *d, int cpu) { rcu_tree_ct_pass(tree(d->k), cpu); }

inline int64_t rcu_dom_qlen(const rcu_domain *d, int cpu)
{
	return d->flavor->qlen(d->rsp, cpu);
}

/* ---- RCU_SOFTIRQ: rcu_core() (6.x), rcu_process_callbacks() (2.6) ---- */

/* Would rcu_core()'s wake-up of the GP kthread on @c at @t run it on @c:
 * pinned there, or unbound and placed there (kthread_select_cpu())? */
static bool gp_wakes_here(kmodel *k, kcpu *c, sim_time t)
{
	kthread *g = k->rcu.gpk;
	if (!g->unbound || !g->sleeping || g->task.delayed)
		return g->cpu == c;
	return kthread_select_cpu(g, c->id, t, false) == c->id;
}

inline void rcu_dom_softirq_begin(rcu_domain *d, kcpu *c, sim_time t, rcu_softirq_run *run)
{
	kmodel *k = c->k;
	(void)d;
	run->pass = stretch(c, k->softirq.pass_cost + k->rcu.handler_cost);
	run->b = (rcu_core_ctx){ .now = t, .cost_ns = stretch(c, k->rcu.cb_cost),
				 .need_resched = kcpu_need_resched(c), .idle_task = !c->rq.curr,
				 .kthread = false };
	run->e = (rcu_effect){ false, false, false, false };
	run->first = true;
}

/* One pass of the handler from *@at: its work (the softirq's pass too), the
 * list moves and a batch (each invoked callback runs its function, for
 * files file_free_rcu -> kmem_cache_free on this CPU), the timeline's
 * record, and, with softirq.effect_at_pass, the GP kthread's wake-up on
 * this CPU. */
inline int64_t rcu_dom_softirq_pass(rcu_domain *d, kcpu *c, rcu_softirq_run *run, sim_time *at,
			     bool *more)
{
	kmodel *k = c->k;
	const rcu_flavor *rf = k->rcu.ops;
	sim_time pass_start = *at;
	sim_time cost = run->b.cost_ns;
	(void)d;
	if (__builtin_expect(run->first && k->rcu.core_sigma > 0, 0)) {
		/* rcu_core()'s own work varies pass by pass (note_gp_changes(),
		 * rcu_check_quiescent_state(), acceleration: tree.c
		 * 6.12:2760-2803): the first pass's handler cost drawn
		 * lognormal, mean rcu.core_pass_cost (rcu.core_cost_sigma). */
		double s = k->rcu.core_sigma;
		double h = (double)k->rcu.handler_cost * sim_rng_lognormal(c->rng_cost, -s * s / 2, s);
		*at += stretch(c, k->softirq.pass_cost + (sim_time)llround(h));
	} else {
		*at += run->pass;
	}
	run->b.first_ns = *at;
	int64_t n = run->first ? rf->rcu_process_callbacks(k->rcu.rsp, c->id, &run->b, more, &run->e)
			       : rf->rcu_do_batch(k->rcu.rsp, c->id, &run->b, more, &run->e);
	run->first = false;
	if (n) {
		/* The queue shrinks at each invocation time (at, at + cost,
		 * ...), all at or after now: count them until then. */
		count_invoked(k, n, *at, cost);
		*at += cost * n;
	}
	if (ktr(k)) /* CBs= at the batch's start: those left and those it took */
		ktrace_softirq_pass(k, c, pass_start, *at, n, rf->qlen(k->rcu.rsp, c->id) + n,
				    n ? rcu_do_batch_limit(k, c->id) : 0);
	sim_time t = run->b.now;
	if (k->softirq.effect_at_pass && run->e.wake_gp && k->rcu.gpk && gp_wakes_here(k, c, t) &&
	    rf->gp_wakeable(k->rcu.rsp)) {
		/* The pass's rcu_core() woke the GP kthread on this CPU
		 * (rcu_report_qs_rsp() -> rcu_gp_kthread_wake()): a wake-up
		 * that preempts the interrupted task sets need_resched
		 * before handle_softirqs() tests it (softirq.c 6.12:
		 * 569-574). At the run's start, as the kick after the loop
		 * would have it. */
		kthread_wake_by(k->rcu.gpk, t, false, c->id);
		run->e.wake_gp = false;
	}
	return n;
}

inline void rcu_dom_softirq_end(rcu_domain *d, kcpu *c, sim_time t, rcu_softirq_run *run)
{
	(void)d;
	kcpu_rcu_effect(c, t, &run->e); /* rcu_core()'s GP kthread wakeup, a deferred rcuog wakeup */
}

inline void rcu_dom_softirq_done(rcu_domain *d, kcpu *c, sim_time now)
{
	(void)d;
	if (__builtin_expect(c->rcu.exp_deferred, 0) && c->k->rcu.preempt_rcu)
		rcu_exp_report(c, now); /* rcu_core()'s rcu_preempt_deferred_qs() (tree.c 6.12:2798-2803) */
}

const rcu_domain_ops rcu_domain_rcu_ops = {
	.name = "rcu",
	.note_context_switch = rcu_dom_note_context_switch,
	.note_reader_preempted = rcu_dom_note_reader_preempted,
	.sched_clock_irq = rcu_dom_sched_clock_irq,
	.idle_enter = rcu_dom_idle_enter,
	.idle_exit = rcu_dom_idle_exit,
	.needs_cpu = rcu_dom_needs_cpu,
	.all_qs = rcu_dom_all_qs,
	.softirq_qs = rcu_dom_softirq_qs,
	.irq_enter_check_tick = rcu_dom_irq_enter_check_tick,
	.tick_dep = rcu_dom_tick_dep,
	.ct_user_enter = rcu_dom_ct_user_enter,
	.ct_user_exit = rcu_dom_ct_user_exit,
	.ct_user_pass = rcu_dom_ct_user_pass,
	.qlen = rcu_dom_qlen,
	.softirq_begin = rcu_dom_softirq_begin,
	.softirq_pass = rcu_dom_softirq_pass,
	.softirq_end = rcu_dom_softirq_end,
	.softirq_done = rcu_dom_softirq_done,
};

/* ---- The part of kernel.c's kparts[]: create, destroy, sample, finish ---- */

int rcu_domain_create(kmodel *k, const sim_params *p, sim_metrics *m, rcu_invoke_fn *invoke,
		      void *invoke_ctx, char *err, size_t errlen)
{
	krcu *r = &k->rcu;
	/* rcu.core_pass_cost is Tree RCU's knob (never set under classic, so
	 * rcu.tasklet_cost there). */
	r->handler_cost = rcu_cost_param(p, P_RCU_CORE_PASS_COST, P_RCU_TASKLET_COST);
	r->core_sigma = rcu_flavor_can(p, RCU_CAP_CORE_COST_SPREAD) ? sim_params_real(p, P_RCU_CORE_COST_SIGMA)
								    : 0;
	r->preempt_rcu = rcu_flavor_can(p, RCU_CAP_PREEMPT_RCU) &&
			 sim_params_int(p, P_RCU_PREEMPT_RCU);
	r->cb_cost = sim_params_int(p, P_RCU_CALLBACK_COST);
	if (cb_stats_init(&r->cb, m))
		return SIM_ENOMEM;
	const rcu_flavor *f = rcu_flavor_find(p);
	assert(f); /* rcusim_validate() checked */
	rcu_flavor_fill(&r->flavor, f);
	r->ops = &r->flavor;
	/* rcu.call_site (call_rcu|call_rcu_hurry): auto is the workload's. */
	bool hurry = sim_params_is_auto(p, P_RCU_CALL_SITE) ? k->wl.ops->hurry
							    : sim_params_int(p, P_RCU_CALL_SITE) == 1;
	rcu_flavor_env env = {
		.hurry = hurry,
		.p = p,
		.m = m,
		.lat = r->cb.lat,
		.ncpus = k->mach.ncpus,
		.invoke = invoke,
		.invoke_ctx = invoke_ctx,
		.tick_ns = k->mach.tick_ns,
		.bulk_calls = k->wl.bulk_calls,
		.barrier_done = rcu_barrier_callback,
		.barrier_ctx = k,
		.last_gp = r->last_gp,
	};
	r->last_gp[0] = r->last_gp[1] = -1;
	int rc = r->ops->create(&r->rsp, &env, err, errlen);
	if (rc)
		return rc;
	/* The run's one RCU domain, "rcu" (rcu/rcu_domain.c). */
	r->dom = (rcu_domain){ .ops = &rcu_domain_rcu_ops, .name = "rcu", .k = k, .state = r,
			       .flavor = r->ops, .rsp = r->rsp, .cb = &r->cb,
			       .cost_rng = r->core_sigma > 0 };
	if (rcu_domains_register(&k->doms, &r->dom)) {
		snprintf(err, errlen, "rcu: no room for the domain \"rcu\" (%d domains at most)",
			 RCU_MAX_DOMAINS);
		return SIM_EINPUT;
	}
	return 0;
}

void rcu_domain_destroy(kmodel *k)
{
	if (k->rcu.ops)
		k->rcu.ops->destroy(k->rcu.rsp);
}

int rcu_domain_sample(kmodel *k, sim_time now)
{
	return k->rcu.ops->sample(k->rcu.rsp, k->h.m, now);
}

/* The callbacks' counts and latencies (rcu/cbstats.c) and the flavor's own. */
int rcu_domain_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	const rcu_flavor *rf = k->rcu.ops;
	uint64_t pending = 0;
	int64_t qlen_max = 0;
	for (int i = 0; i < k->mach.ncpus; i++) {
		pending += (uint64_t)rf->qlen(k->rcu.rsp, i);
		if (rf->qlen_max(k->rcu.rsp, i) > qlen_max)
			qlen_max = rf->qlen_max(k->rcu.rsp, i);
	}
	int rc = cb_stats_finish(&k->rcu.cb, m, now, pending, qlen_max);
	return rc | rf->finish(k->rcu.rsp, m, now);
}

/* ---- The callers' API ------------------------------------------------------ */

int job_synchronize_rcu(rcu_domain *d, kcpu *c, job *j, sim_time now, sim_time at, uint32_t obj,
			job_effect *eff)
{
	const krcu *r = d->state;
	if (r->exp) {
		rcu_exp_request(c, j, now);
		return 0;
	}
	if (r->srs) {
		rcu_srs_request(c, j, now);
		return 0;
	}
	return job_call_rcu(d, c, now, at, obj, eff);
}

int64_t job_kfree_rcu_n(rcu_domain *d, kcpu *c, int64_t n, sim_time t0, sim_time step, sim_time now,
			rcu_effect *e, sim_time *sync_at)
{
	(void)d; /* the normal RCU's: kfree_rcu.c's state is k->kfree */
	return kfree_rcu_n(c, n, t0, step, now, e, sync_at);
}

/* ---- What the other mechanisms ask of Tree RCU's state ---------------- */

int64_t rcu_do_batch_limit(const kmodel *k, int cpu)
{
	if (!k->rcu.ops->gp_step)
		return 0; /* classic RCU: no rcu_batch events */
	return rcu_tree_batch_limit(tree(k), cpu);
}

uint64_t rcu_gp_seq(const kmodel *k) { return tree(k)->gp_seq; }
