/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * background.c - what a real box does beside the load (machine.background):
 * the activity that makes its runs differ from one another where a quiet
 * model is phase-locked to the jiffy. Three sources, each CPU on its own
 * random stream "machine.background" derived from the scenario seed:
 *
 * - timer ticks of an idle CPU whose tick is stopped: under NO_HZ_IDLE the
 *   tick is programmed for the CPU's next timer (tick_nohz_next_event(),
 *   kernel/time/tick-sched.c 6.12:899-920), so it comes on a jiffy boundary
 *   when one is due; the model takes the tick at each stopped jiffy with
 *   probability background.timer_ticks / HZ (tick.c), running
 *   rcu_sched_clock_irq() from idle as any tick does;
 * - other tasks' wake-ups (kworkers, daemons, a VM's agent): a nice-0 task
 *   bound to each CPU (a kthread of kind "bg") woken at Poisson times of
 *   rate background.wakeups, running an exponential share of mean
 *   background.wakeup_cost and sleeping: the scheduler's own rules give
 *   its two context switches (rcu_note_context_switch(), a quiescent
 *   state), the idle loop's extended quiescent state left and re-entered,
 *   and the queueing of ksoftirqd or the GP kthread behind it;
 * - device interrupts at Poisson times of rate background.irqs, irq.cost
 *   each, ending in irq_exit() (irq.c's path);
 * - the box's own callbacks (background.callbacks): a background task's
 *   run queues, with the probability that gives the rate, a geometric
 *   burst of call_rcu()s of mean background.callback_batch, objects of no
 *   load. They need grace periods of their own, which a synchronize_rcu()
 *   may find in progress (one caller's calls then spread upward: the
 *   waiters queued while a grace period runs wait for the next,
 *   rcu_sr_normal_gp_init(), kernel/rcu/tree.c 6.12:1756-1786).
 *
 * None of it reaches a nohz_full CPU: nohz_full= takes the CPUs it names
 * out of the housekeeping masks for the tick, timers, workqueues and
 * kthreads (housekeeping_nohz_full_setup(), kernel/sched/isolation.c
 * 6.12:194-203: HK_FLAG_TICK | HK_FLAG_WQ | HK_FLAG_TIMER | HK_FLAG_RCU |
 * HK_FLAG_MISC | HK_FLAG_KTHREAD), so the unbound kworkers, timers and
 * daemons that make this activity run on the housekeeping CPUs; the few
 * per-CPU works left on an isolated CPU (vmstat, which quiet_vmstat()
 * stops when its tick does) are not modelled. The housekeeping CPUs keep
 * the measured per-CPU rates.
 *
 * Off (the default), nothing here is created and no draw is made: results
 * are those of a model without it, bit for bit.
 */
#include <math.h>
#include <stdlib.h>

#include "kernel/kernel_int.h"

/* A burst of the box's own callbacks from the background task's run on @c
 * at @t: call_rcu() from task context (kernel/rcu/tree.c 6.12:3060-3109,
 * __call_rcu_common()), each object no load's (LOAD_TAG_BACKGROUND), what
 * they ask of the CPU (the softirq raised past qhimark, or nothing until
 * its tick's rcu_pending()) carried out at once. */
static void bg_callbacks(kcpu *c, sim_time t)
{
	kmodel *k = c->k;
	unsigned n = sim_rng_geometric(c->rng_bg, k->bg.p_burst_end);
	rcu_effect e = { false, false, false, false };
	for (unsigned i = 0; i < n; i++)
		if (kthread_call_rcu(rcu_normal(k), c, t, LOAD_TAG_BACKGROUND, &e))
			return;
	k->bg.cb_queued += n;
	kcpu_rcu_effect(c, t, &e);
}

/* The background task's one step per wake-up: its run, drawn. */
static double bg_step(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	(void)t;
	if (!kt->has_work)
		return 0;
	kt->has_work = false;
	k->bg.runs++;
	/* background.wakeup_cost is wall time at the box's speed: in the
	 * model's full-speed units it is divided by machine.clock's scale. */
	double w = sim_rng_exponential(c->rng_bg, (double)k->bg.wakeup_cost) / k->mach.clock_scale;
	if (k->bg.p_burst > 0 && sim_rng_bernoulli(c->rng_bg, k->bg.p_burst))
		bg_callbacks(c, t);
	return w < 1 ? 1 : w;
}

/* Its run is over: asleep until its next wake-up, a Poisson gap on. */
static rcu_gp_next bg_step_end(kcpu *c, kthread *kt, sim_time t, sim_time *timeout)
{
	(void)kt;
	*timeout = t + kbg_gap(c, c->k->bg.wakeup_rate);
	return RCU_GP_NEXT_TIMEOUT;
}

/* Its timer: it wakes with a run to do. */
static bool bg_wake_fire(kcpu *c, kthread *kt, sim_time now)
{
	(void)now;
	kt->has_work = true;
	c->k->bg.wakeups++;
	return true;
}

const kthread_ops kbg_kthread_ops = {
	.name = "bg",
	.step = bg_step,
	.step_end = bg_step_end,
	.wake_fire = bg_wake_fire,
};

sim_time kbg_gap(kcpu *c, double rate)
{
	double gap = sim_rng_exponential(c->rng_bg, 1e9 / rate);
	return gap < 1 ? 1 : (sim_time)llround(gap);
}

bool kbg_timer_tick(kcpu *c)
{
	kmodel *k = c->k;
	if (c->nohz_full || !sim_rng_bernoulli(c->rng_bg, k->bg.p_tick))
		return false;
	k->bg.timer_ticks++;
	return true;
}

/* A background device interrupt on @c: the next one armed, then irq.c's
 * hardirq and irq_exit(). */
static void bg_irq_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	kmodel *k = c->k;
	if (sim_timer_after(eng, tm, kbg_gap(c, k->bg.irq_rate))) {
		kfail(k, SIM_ENOMEM);
		return;
	}
	k->bg.irqs++;
	kcpu_device_irq(c, sim_now(eng));
}

/* Its rates and cost, read only when it is on. */
static const sim_knob kbg_knob[] = {
	{ P_BACKGROUND_TIMER_TICKS, { P_MACHINE_BACKGROUND, "yes", NULL } },
	{ P_BACKGROUND_WAKEUPS, { P_MACHINE_BACKGROUND, "yes", NULL } },
	{ P_BACKGROUND_WAKEUP_COST, { P_MACHINE_BACKGROUND, "yes", NULL } },
	{ P_BACKGROUND_IRQS, { P_MACHINE_BACKGROUND, "yes", NULL } },
	{ P_BACKGROUND_CALLBACKS, { P_MACHINE_BACKGROUND, "yes", NULL } },
	{ P_BACKGROUND_CALLBACK_BATCH, { P_MACHINE_BACKGROUND, "yes", NULL } },
};
const sim_knobs kbg_knobs = { SIM_ALWAYS, kbg_knob, sizeof(kbg_knob) / sizeof(kbg_knob[0]) };

void kbg_settings(kmodel *k, const sim_params *p)
{
	kbackground *bg = &k->bg;
	bg->on = sim_params_int(p, P_MACHINE_BACKGROUND) != 0;
	if (!bg->on)
		return;
	double hz = (double)SIM_NS_PER_S / (double)k->mach.tick_ns;
	bg->p_tick = sim_params_real(p, P_BACKGROUND_TIMER_TICKS) / hz;
	if (bg->p_tick > 1)
		bg->p_tick = 1;
	bg->wakeup_rate = sim_params_real(p, P_BACKGROUND_WAKEUPS);
	bg->wakeup_cost = sim_params_int(p, P_BACKGROUND_WAKEUP_COST);
	bg->irq_rate = sim_params_real(p, P_BACKGROUND_IRQS);
	double cbs = sim_params_real(p, P_BACKGROUND_CALLBACKS);
	double batch = sim_params_real(p, P_BACKGROUND_CALLBACK_BATCH);
	if (cbs > 0 && bg->wakeup_rate > 0) { /* kbg_validate(): cbs / batch <= wakeups */
		bg->p_burst = cbs / batch / bg->wakeup_rate;
		bg->p_burst_end = 1 / batch;
	}
}

int kbg_validate(const sim_params *p, char *err, size_t errlen)
{
	if (!sim_params_int(p, P_MACHINE_BACKGROUND))
		return 0;
	double cbs = sim_params_real(p, P_BACKGROUND_CALLBACKS);
	double batch = sim_params_real(p, P_BACKGROUND_CALLBACK_BATCH);
	double wk = sim_params_real(p, P_BACKGROUND_WAKEUPS);
	if (cbs > 0 && cbs / batch > wk) {
		char a[512];
		sim_params_where(p, P_BACKGROUND_CALLBACKS, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: %s call_rcu()s a second in bursts of %g make %g bursts a second per CPU, more than "
			 "the background tasks' %g wake-ups (background.wakeups, %s), each of which queues one "
			 "burst at most: raise background.callback_batch or background.wakeups",
			 a, sim_params_text(p, P_BACKGROUND_CALLBACKS), batch, cbs / batch, wk,
			 sim_params_origin(p, P_BACKGROUND_WAKEUPS));
		return SIM_EINPUT;
	}
	return 0;
}

int kbg_create(kmodel *k, const model_env *env)
{
	kbackground *bg = &k->bg;
	if (!bg->on)
		return 0;
	if (bg->wakeup_rate > 0 && !(bg->kt = calloc((size_t)k->mach.ncpus, sizeof(*bg->kt))))
		return SIM_ENOMEM;
	for (int i = 0; i < k->mach.ncpus; i++) {
		kcpu *c = &k->cpu[i];
		if (sim_rng_create(&c->rng_bg, env->rng, env->seed, "machine.background", (uint64_t)i))
			return SIM_ENOMEM;
		if (bg->wakeup_rate > 0 && !c->nohz_full && kthread_init(k, &bg->kt[i], &kbg_kthread_ops, c, 0))
			return SIM_ENOMEM;
		sim_timer_init(env->eng, &c->bg_irq, bg_irq_fire, c);
	}
	return 0;
}

int kbg_start(kmodel *k)
{
	kbackground *bg = &k->bg;
	if (!bg->on)
		return 0;
	for (int i = 0; i < k->mach.ncpus; i++) {
		kcpu *c = &k->cpu[i];
		if (c->nohz_full) /* isolated: no housekeeping work (above) */
			continue;
		if (bg->wakeup_rate > 0 && sim_timer_at(k->eng, &bg->kt[i].wake, kbg_gap(c, bg->wakeup_rate)))
			return SIM_ENOMEM;
		if (bg->irq_rate > 0 && sim_timer_at(k->eng, &c->bg_irq, kbg_gap(c, bg->irq_rate)))
			return SIM_ENOMEM;
	}
	return 0;
}

void kbg_destroy(kmodel *k)
{
	if (k->cpu)
		for (int i = 0; i < k->mach.ncpus; i++)
			sim_rng_destroy(k->cpu[i].rng_bg);
	free(k->bg.kt);
}

int kbg_finish(const kmodel *k, sim_metrics *m)
{
	const kbackground *bg = &k->bg;
	if (!bg->on)
		return 0;
	int rc = metric_scalar(m, M_BACKGROUND_TIMER_TICKS, (double)bg->timer_ticks);
	rc |= metric_scalar(m, M_BACKGROUND_WAKEUPS, (double)bg->wakeups);
	rc |= metric_scalar(m, M_BACKGROUND_IRQS, (double)bg->irqs);
	if (bg->p_burst > 0)
		rc |= metric_scalar(m, M_BACKGROUND_CALLBACKS, (double)bg->cb_queued);
	return rc;
}
