/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * syncrcu.c - workload syncrcu: tasks calling synchronize_rcu() in a
 * loop, as rcuscale's writers do (kernel/rcu/rcuscale.c, 6.12). Each does
 * workload.syncrcu_gap of CPU work, then the system call (its
 * workload.syscall_cost), whose synchronize_rcu() queues one callback on
 * the task's CPU (wait_rcu_gp(): call_rcu_hurry(wakeme_after_rcu)) and
 * sleeps until that callback runs; its complete() wakes the task at the
 * callback's invocation time, and the next iteration starts when the task
 * next runs. The latency recorded is the grace-period latency a caller
 * feels: from the call to the wakeup (syncrcu.latency_ns). The CPU model
 * has an event where a running task blocks (workload next_block), so the
 * sleep starts at the call, not at the next tick.
 * With workload.syncrcu_expedited (or rcu.expedited) each call is
 * synchronize_rcu_expedited() (rcu/rcu_exp.c), whose end wakes the task
 * (exp_woken()); rcu.normal turns it back into a normal one. With
 * workload.syncrcu_callers only the first jobs call; the others are CPU
 * hogs. With rcu.normal_wake_from_gp the call queues no callback: the
 * grace-period kthread wakes the waiter (rcu/rcu_gp_kthread.c).
 * Each call's latency is split at the grace period that satisfied it (the
 * last to end by the wakeup: for a callback, by the start of the batch
 * invoking it; the expedited one for synchronize_rcu_expedited()): the wait
 * for it to start (syncrcu.wait_gp_start_ns), the grace period
 * (syncrcu.gp_ns, from its start to the step that ends gp_seq) and the
 * wake-up (syncrcu.wake_ns: callback invocation behind the others, or the
 * GP kthread's or kworker's complete()); the three sum to the latency.
 * Shortcut: when a later grace period also ended before the callback's
 * batch began (a backlog), the split is at that one, and the invocation
 * delay shows as a longer wait for it to start.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "rcu/mechanisms.h"

typedef struct syncrcu_wl {
	double per_call;      /* ns of work per iteration: gap + the system call */
	int64_t callers;      /* jobs that call (the first ones); the rest are hogs */
	sim_hist *lat;        /* syncrcu.latency_ns */
	sim_hist *wait_start; /* syncrcu.wait_gp_start_ns */
	sim_hist *gp;         /* syncrcu.gp_ns */
	sim_hist *wake;       /* syncrcu.wake_ns */
	uint64_t unsplit;     /* calls with no grace period within [call, wakeup] */
	uint64_t calls;       /* synchronize_rcu() calls */
	uint64_t returned;    /* of them, waiters woken */
} syncrcu_wl;

static int syncrcu_create(kworkload *w, const sim_params *p, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	syncrcu_wl *sy = calloc(1, sizeof(*sy));
	if (!sy)
		return SIM_ENOMEM;
	w->priv = sy;
	double gap = (double)sim_params_int(p, P_WORKLOAD_SYNCRCU_GAP);
	double sys = (double)sim_params_int(p, P_WORKLOAD_SYSCALL_COST);
	sy->per_call = gap + sys;
	sy->callers = sim_params_int(p, P_WORKLOAD_SYNCRCU_CALLERS);
	w->call_rate = 0; /* no Poisson calls: the loop's own */
	w->p_kernel = sy->per_call > 0 ? sys / sy->per_call : 1;
	w->kstretch = sys;
	sy->lat = metric_hist(w->m, M_SYNCRCU_LATENCY_NS);
	sy->wait_start = metric_hist(w->m, M_SYNCRCU_WAIT_GP_START_NS);
	sy->gp = metric_hist(w->m, M_SYNCRCU_GP_NS);
	sy->wake = metric_hist(w->m, M_SYNCRCU_WAKE_NS);
	return sy->lat && sy->wait_start && sy->gp && sy->wake ? 0 : SIM_ENOMEM;
}

/* @j's call returns at @t: its latency, split at the grace period @gp
 * ([start, end] ns, -1 if none has ended) that satisfied it. */
static void syncrcu_returns(syncrcu_wl *sy, const job *j, sim_time t, const sim_time gp[2])
{
	sim_time call = j->blocked_at;
	sim_hist_add(sy->lat, (uint64_t)(t - call));
	sy->returned++;
	if (gp[0] < call || gp[1] < gp[0] || gp[1] > t) {
		sy->unsplit++;
		return;
	}
	sim_hist_add(sy->wait_start, (uint64_t)(gp[0] - call));
	sim_hist_add(sy->gp, (uint64_t)(gp[1] - gp[0]));
	sim_hist_add(sy->wake, (uint64_t)(t - gp[1]));
}

static void syncrcu_destroy(kworkload *w)
{
	free(w->priv);
	w->priv = NULL;
}

static int syncrcu_job_start(kmodel *k, kcpu *c, job *j)
{
	(void)c;
	const syncrcu_wl *sy = j->wl->priv;
	bool caller = sy->callers < 0 || j - j->wl->jobs < sy->callers;
	j->next_call_work = caller ? sy->per_call : INFINITY;
	return 0;
}

/* @work ns of work from @t0: the iteration goes on, or it reaches its
 * synchronize_rcu(): call_rcu of the task's own wakeup, and sleep. */
static void syncrcu_run(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
			job_effect *eff)
{
	kmodel *k = c->k;
	syncrcu_wl *sy = j->wl->priv;
	if (j->next_call_work > work) {
		j->next_call_work -= work;
		return;
	}
	sim_time at = t0 + (sim_time)(j->next_call_work / s);
	if (at > now)
		at = now;
	j->next_call_work = sy->per_call;
	j->blocked_at = at;
	if (job_synchronize_rcu(rcu_normal(k), c, j, now, at, (uint32_t)(j - j->wl->jobs), eff))
		return;
	sy->calls++;
	j->sleeping = true;
	eff->slept = true;
}

/* wakeme_after_rcu() of each waiter: complete() wakes it at its
 * callback's invocation time. */
static void syncrcu_invoke(void *ctx, int cpu, const uint32_t *objs, size_t n, sim_time first_ns,
			   sim_time cost_ns)
{
	kworkload *w = ctx;
	kmodel *k = w->k;
	syncrcu_wl *sy = w->priv;
	(void)cpu;
	for (size_t i = 0; i < n; i++) {
		job *j = &w->jobs[objs[i]];
		sim_time t = first_ns + (sim_time)i * cost_ns;
		syncrcu_returns(sy, j, t, k->rcu.last_gp);
		if (sim_timer_at(k->eng, &j->wake, t))
			kfail(k, SIM_ENOMEM);
	}
}

/* synchronize_rcu_expedited() returns, or synchronize_rcu() under
 * rcu.normal_wake_from_gp: its waiter is woken from @waker at @t, on its
 * own CPU once the wake-up reaches it (machine.idle_wake_latency when that
 * CPU is idle and another: kcpu_remote_wake_at()). */
static void syncrcu_exp_woken(kmodel *k, job *j, const kcpu *waker, sim_time t)
{
	syncrcu_wl *sy = j->wl->priv;
	t = kcpu_remote_wake_at(waker, j->cpu, t);
	syncrcu_returns(sy, j, t, k->rcu.exp ? k->rcu.exp->last : k->rcu.last_gp);
	if (sim_timer_at(k->eng, &j->wake, t))
		kfail(k, SIM_ENOMEM);
}

static double syncrcu_next_block(const kworkload *w, const job *j)
{
	(void)w;
	return j->sleeping ? INFINITY : j->next_call_work;
}

static int syncrcu_finish(const kmodel *k, const kworkload *w, sim_metrics *m)
{
	const syncrcu_wl *sy = w->priv;
	int rc = metric_scalar(m, M_SYNCRCU_CALLS, (double)sy->calls);
	rc |= metric_scalar(m, M_SYNCRCU_RETURNED, (double)sy->returned);
	rc |= metric_hist_scalars(m, M_SYNCRCU_LATENCY_NS, sy->lat,
				       SIM_Q_MEAN | SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	rc |= metric_hist_scalars(m, M_SYNCRCU_WAIT_GP_START_NS, sy->wait_start,
				       SIM_Q_MEAN | SIM_Q_P50 | SIM_Q_P99);
	rc |= metric_hist_scalars(m, M_SYNCRCU_GP_NS, sy->gp, SIM_Q_MEAN | SIM_Q_P50 | SIM_Q_P99);
	rc |= metric_hist_scalars(m, M_SYNCRCU_WAKE_NS, sy->wake, SIM_Q_MEAN | SIM_Q_P50 | SIM_Q_P99);
	if (sy->unsplit)
		rc |= metric_scalar(m, M_SYNCRCU_UNSPLIT, (double)sy->unsplit);
	return rc ? SIM_ENOMEM : 0;
}

/* Callers among the jobs; synchronize_rcu_expedited() is Tree RCU's. */
static int syncrcu_validate(const sim_params *p, char *err, size_t errlen)
{
	char a[512];
	if (sim_params_int(p, P_WORKLOAD_SYNCRCU_CALLERS) > sim_params_int(p, P_WORKLOAD_JOBS)) {
		sim_params_where(p, P_WORKLOAD_SYNCRCU_CALLERS, a, sizeof(a));
		snprintf(err, errlen, "%s: %s callers, more than workload.jobs (%s, %s)", a,
			 sim_params_text(p, P_WORKLOAD_SYNCRCU_CALLERS), sim_params_text(p, P_WORKLOAD_JOBS),
			 sim_params_origin(p, P_WORKLOAD_JOBS));
		return SIM_EINPUT;
	}
	/* The hogs among the jobs share the callers' kernel time: with no gap
	 * they would be in-kernel loops whose ticks land in readers. Hogs of
	 * their own are a second load. */
	int64_t callers = sim_params_int(p, P_WORKLOAD_SYNCRCU_CALLERS);
	if (callers >= 0 && callers < sim_params_int(p, P_WORKLOAD_JOBS) &&
	    !sim_params_int(p, P_WORKLOAD_SYNCRCU_GAP)) {
		sim_params_where(p, P_WORKLOAD_SYNCRCU_CALLERS, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: %lld callers of %s jobs with a syncrcu_gap of 0 (%s): the other jobs would "
			 "be hogs always in the kernel (the callers' share of kernel time, 1); give the "
			 "callers a gap, or make the hogs a load of their own ([workload.hogs], kind = "
			 "callrcu)",
			 a, (long long)callers, sim_params_text(p, P_WORKLOAD_JOBS),
			 sim_params_origin(p, P_WORKLOAD_SYNCRCU_GAP));
		return SIM_EINPUT;
	}
	if (sim_params_int(p, P_WORKLOAD_SYNCRCU_EXPEDITED) && !rcu_flavor_can(p, RCU_CAP_EXPEDITED)) {
		sim_params_where(p, P_WORKLOAD_SYNCRCU_EXPEDITED, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: synchronize_rcu_expedited() needs rcu.flavor = tree, and rcu.flavor is %s (%s)",
			 a, sim_params_text(p, P_RCU_FLAVOR), sim_params_origin(p, P_RCU_FLAVOR));
		return SIM_EINPUT;
	}
	return 0;
}

/* The knobs the syncrcu workload reads (its own), with workload.kind = syncrcu. */
static const sim_knob syncrcu_knob[] = {
	{ P_WORKLOAD_SYSCALL_COST, SIM_ALWAYS },
	{ P_WORKLOAD_SYNCRCU_GAP, SIM_ALWAYS },
	{ P_WORKLOAD_SYNCRCU_EXPEDITED, SIM_ALWAYS },
	{ P_WORKLOAD_SYNCRCU_CALLERS, SIM_ALWAYS },
};
static const sim_knobs syncrcu_knobs = { { P_WORKLOAD_KIND, "syncrcu", NULL }, syncrcu_knob,
				 sizeof(syncrcu_knob) / sizeof(syncrcu_knob[0]) };

const workload_ops syncrcu_workload = {
	.kind = "syncrcu",
	.knobs = &syncrcu_knobs,
	.validate = syncrcu_validate,
	.frees_files = false,
	.create = syncrcu_create,
	.destroy = syncrcu_destroy,
	.job_start = syncrcu_job_start,
	.run = syncrcu_run,
	.finish = syncrcu_finish,
	.next_syscall = syncrcu_next_block,
	.next_block = syncrcu_next_block,
	.invoke = syncrcu_invoke,
	.hurry = true, /* wait_rcu_gp(call_rcu_hurry) (kernel/rcu/tree.c 6.12:4018-4019) */
	.exp_woken = syncrcu_exp_woken,
};
