/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rcu_barrier.c - rcu_barrier() called in a loop (workload.barrier), after
 * kernel/rcu/tree.c of 6.12:4477-4645:
 *
 * - the caller (a kworker on workload.barrier_cpu, as cleanup_net()'s)
 *   starts a barrier sequence with barrier_cpu_count = 2 (:4568-4583) and
 *   looks at every CPU in turn (:4589-4621): one with no callbacks queued
 *   is skipped; its own CPU runs the handler inline
 *   (smp_call_function_single() to itself, irqs off); every other one gets
 *   an IPI, and the caller spins until its handler has run (wait = 1,
 *   csd_lock_wait()), so the IPIs go one after another;
 * - the handler, rcu_barrier_handler() -> rcu_barrier_entrain()
 *   (:4493-4540), flushes an offloaded CPU's bypass (its lazy callbacks
 *   become ordinary ones, rcuog woken when the list had nothing pending)
 *   and entrains rcu_barrier_callback() after the CPU's last callback,
 *   counting it (the flavor's barrier_entrain);
 * - after the loop the count drops by 2 (:4627-4628); each barrier
 *   callback's invocation drops it by 1 (:4477-4489), and the one that
 *   brings it to 0 complete()s: the caller wakes, ends the sequence and
 *   returns (:4630-4644); the next call comes workload.barrier_gap later.
 *
 * Modelling choices: the IPI lands when the caller's send (rcu.exp_ipi_send_cost)
 * ends, its handler costs irq.cost on the CPU it interrupts (latched while
 * that CPU has interrupts off), and the caller spins that long; the scan
 * costs rcu.barrier_scan_cost per CPU. Left out: CPU hotplug (every CPU is
 * online, so the offline branch :4606-4611 never runs), the retry when
 * smp_call_function_single() fails (:4614-4617: only for an offline CPU),
 * callers sharing a sequence (one caller here), and kvfree_rcu_barrier().
 */
#include <assert.h>
#include <stdlib.h>

#include "rcu/mechanisms.h"
#include "rcu/tree.h"

enum { BAR_IDLE, BAR_SCAN, BAR_SPIN, BAR_WAIT, BAR_DONE };

/* rcu_barrier_handler() on @cpu at @t: rcu_barrier_entrain(). */
static void bar_entrain(kmodel *k, int cpu, sim_time t)
{
	krcu *r = &k->rcu;
	int64_t flushed, lazy;
	sim_time batch_end;
	bool queued = r->ops->barrier_entrain(r->rsp, cpu, t, &flushed, &lazy, &batch_end);
	r->bar->flushed += (uint64_t)flushed;
	r->bar->lazy += (uint64_t)lazy;
	if (queued) {
		r->bar->count++;
		r->bar->waited++;
	} else if (batch_end > t) {
		/* The list's last callbacks are a batch still being invoked:
		 * the barrier callback goes in DONE and runs right after it. */
		r->bar->waited++;
		if (batch_end > r->bar->not_before)
			r->bar->not_before = batch_end;
	}
	if (r->nocb)
		rcu_nocb_kicks(k, t);
}

/* Has @cpu callbacks queued, or a batch of them still being invoked
 * (rcu_segcblist_n_cbs() counts those until the batch ends)? */
static bool bar_has_cbs(const kmodel *k, int cpu, sim_time t)
{
	const krcu *r = &k->rcu;
	return r->ops->qlen(r->rsp, cpu) > 0 ||
	       rcu_tree_flavor_state(r->rsp)->rda[cpu].batch_end_ns > t;
}

/* rcu_barrier_callback(): the entrained callback on @cpu is invoked at @t. */
void rcu_barrier_callback(void *ctx, int cpu, sim_time t)
{
	kmodel *k = ctx;
	krcu *r = &k->rcu;
	(void)cpu;
	assert(r->bar->count > 0);
	if (t > r->bar->not_before)
		r->bar->not_before = t;
	if (--r->bar->count == 0 && r->bar->phase == BAR_WAIT)
		kthread_kick(r->bar->caller, r->bar->not_before); /* complete() */
}

/* The caller's step on @c at @t. */
static double bar_step(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	krcu *r = &k->rcu;
	(void)kt;
	uint64_t seq = sim_engine_cur_seq(k->eng);
	switch (r->bar->phase) {
	case BAR_IDLE: /* rcu_barrier(): rcu_seq_start(), the count at 2 */
		r->bar->calls++;
		r->bar->start = t;
		r->bar->count = 2;
		r->bar->cursor = 0;
		r->bar->not_before = 0;
		r->bar->phase = BAR_SCAN;
		/* fallthrough */
	case BAR_SCAN: {
		double work = 0;
		while (r->bar->cursor < k->mach.ncpus) {
			int i = r->bar->cursor++;
			kcpu *o = &k->cpu[i];
			work += (double)r->bar->scan_cost;
			if (o != c)
				kcpu_settle(o, t, seq, true);
			if (!bar_has_cbs(k, i, t))
				continue;
			if (o == c) {
				bar_entrain(k, i, t); /* inline, interrupts off */
				continue;
			}
			r->bar->target = i;
			return work + (double)r->bar->send_cost;
		}
		r->bar->target = -1;
		return work;
	}
	case BAR_SPIN: { /* csd_lock_wait(): until the handler has run there */
		kcpu *o = &k->cpu[r->bar->target];
		kcpu_settle(o, t, seq, true);
		sim_time at = t;
		if ((o->fault & FAULT_IRQS_OFF) && k->fault.end > t)
			at = k->fault.end;
		/* +1 ns: the handler's end is seen after it, whatever the costs. */
		return (double)(at - t + stretch(o, k->mach.irq_cost) + 1) * speed(c);
	}
	case BAR_WAIT: /* woken by complete() */
	case BAR_DONE: { /* rcu_seq_end(); the mutex released */
		sim_time d = t - r->bar->start;
		sim_hist_add(r->bar->dur, (uint64_t)d);
		r->bar->returned++;
		r->bar->phase = BAR_DONE;
		return 0;
	}
	}
	return 0;
}

static rcu_gp_next bar_step_end(kcpu *c, kthread *kt, sim_time t, sim_time *timeout)
{
	kmodel *k = c->k;
	krcu *r = &k->rcu;
	(void)kt;
	*timeout = 0;
	switch (r->bar->phase) {
	case BAR_SCAN:
		if (r->bar->target >= 0) { /* the IPI leaves */
			r->bar->ipis++;
			if (sim_timer_at(k->eng, &r->bar->ipi, t))
				kfail(k, SIM_ENOMEM);
			r->bar->phase = BAR_SPIN;
			return RCU_GP_NEXT_RUN;
		}
		r->bar->count -= 2; /* atomic_sub_and_test(2, ...) */
		if (r->bar->count == 0 && r->bar->not_before <= t) {
			r->bar->phase = BAR_DONE;
			return RCU_GP_NEXT_RUN;
		}
		r->bar->phase = BAR_WAIT;
		if (r->bar->count)
			return RCU_GP_NEXT_SLEEP; /* wait_for_completion() */
		*timeout = r->bar->not_before;
		return RCU_GP_NEXT_TIMEOUT;
	case BAR_SPIN:
		RCUSIM_CHECK(!sim_timer_armed(&r->bar->ipi), "kernel.barrier_spin");
		r->bar->phase = BAR_SCAN;
		return RCU_GP_NEXT_RUN;
	case BAR_DONE:
		r->bar->phase = BAR_IDLE;
		*timeout = t + r->bar->gap;
		return RCU_GP_NEXT_TIMEOUT;
	default:
		assert(0);
		return RCU_GP_NEXT_SLEEP;
	}
}

static bool bar_wake_fire(kcpu *c, kthread *kt, sim_time now)
{
	const krcu *r = &c->k->rcu;
	(void)kt;
	if (r->bar->phase == BAR_IDLE)
		return true; /* its gap's timeout: the next call */
	return r->bar->phase == BAR_WAIT && r->bar->count == 0 && now >= r->bar->not_before;
}

static const kthread_ops rcu_barrier_caller_ops = {
	.name = "rcu_barrier",
	.step = bar_step,
	.step_end = bar_step_end,
	.wake_fire = bar_wake_fire,
};

/* Timer handler: the IPI lands on the CPU the caller spins for. */
static void bar_ipi_fire(sim_engine *eng, sim_timer *tm)
{
	kmodel *k = tm->ctx;
	krcu *r = &k->rcu;
	kcpu *c = &k->cpu[r->bar->target];
	sim_time now = sim_now(eng);
	kcpu_settle_now(c);
	if (c->fault & FAULT_IRQS_OFF) {
		/* Latched until interrupts are on again. */
		if (sim_timer_at(eng, &r->bar->ipi, k->fault.end > now ? k->fault.end : now + 1))
			kfail(k, SIM_ENOMEM);
		return;
	}
	r->bar->ipi_cpu_ns += stretch(c, k->mach.irq_cost);
	if (ktr(k))
		ktrace_irq(k, c, now, now + stretch(c, k->mach.irq_cost), 251);
	bar_entrain(k, c->id, now);
	if (c->in_softirq) {
		kcpu_extend_run(c, k->mach.irq_cost);
		return;
	}
	kcpu_account(c, now);
	c->irq_mode = IRQ_MODE_UNDRAWN;
	kcpu_hardirq_return(c, now + stretch(c, k->mach.irq_cost));
}

int rcu_barrier_create(kmodel *k, const sim_params *p, sim_metrics *m)
{
	krcu *r = &k->rcu;
	if (!r->ops->barrier_entrain || !sim_params_int(p, P_WORKLOAD_BARRIER))
		return 0;
	if (!(r->bar = calloc(1, sizeof(*r->bar))))
		return SIM_ENOMEM;
	r->bar->gap = sim_params_int(p, P_WORKLOAD_BARRIER_GAP);
	r->bar->target = -1;
	r->bar->send_cost = sim_params_int(p, P_RCU_EXP_IPI_SEND_COST);
	r->bar->scan_cost = rcu_cost_param(p, P_RCU_BARRIER_SCAN_COST, P_RCU_FQS_CPU_COST);
	sim_timer_init(k->eng, &r->bar->ipi, bar_ipi_fire, k);
	int64_t cpu = sim_params_int(p, P_WORKLOAD_BARRIER_CPU);
	if (!(r->bar->dur = metric_hist(m, M_BARRIER_DURATION_NS)) ||
	    !(r->bar->caller = calloc(1, sizeof(*r->bar->caller))) ||
	    kthread_init(k, r->bar->caller, &rcu_barrier_caller_ops, &k->cpu[cpu], 0))
		return SIM_ENOMEM;
	/* The first call at barrier_gap. */
	if (sim_timer_at(k->eng, &r->bar->caller->wake, r->bar->gap))
		return SIM_ENOMEM;
	return 0;
}

void rcu_barrier_destroy(kmodel *k)
{
	if (k->rcu.bar)
		free(k->rcu.bar->caller);
	free(k->rcu.bar);
	k->rcu.bar = NULL;
}

int rcu_barrier_finish(const kmodel *k, sim_metrics *m)
{
	const krcu *r = &k->rcu;
	if (!r->bar)
		return 0;
	int rc = metric_scalar(m, M_BARRIER_CALLS, (double)r->bar->calls);
	rc |= metric_scalar(m, M_BARRIER_RETURNED, (double)r->bar->returned);
	rc |= metric_hist_scalars(m, M_BARRIER_DURATION_NS, r->bar->dur,
				       SIM_Q_MEAN | SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	rc |= metric_scalar(m, M_BARRIER_IPIS, (double)r->bar->ipis);
	rc |= metric_scalar(m, M_BARRIER_IPI_CPU_NS, (double)r->bar->ipi_cpu_ns);
	rc |= metric_scalar(m, M_BARRIER_CPUS_WAITED, (double)r->bar->waited);
	rc |= metric_scalar(m, M_BARRIER_BYPASS_FLUSHED, (double)r->bar->flushed);
	rc |= metric_scalar(m, M_BARRIER_LAZY_FLUSHED, (double)r->bar->lazy);
	rc |= metric_scalar(m, M_BARRIER_CALLER_CPU_NS, (double)r->bar->caller->cpu_ns);
	return rc ? SIM_ENOMEM : 0;
}
