/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kernel.c - the kernel model's table (kernel_model, for every workload in
 * workloads/workload.c's table) over the table of its parts, kparts[]: each
 * part's name, knobs, create, start, destroy, sample and finish, walked in
 * the table's order (destroy in reverse). Each part writes its own metrics,
 * by id (models/registry.h), and frees what its create allocated. The
 * machine, the scheduler, the softirqs, RCU's flavor and the CPUs are
 * parts defined here; the others are in their own files (workloads/,
 * fs/files.c, rcu/'s mechanisms, background.c, fault.c, ktrace.c), some
 * through a line of glue below the table's type. What each CPU does is in
 * cpu.c, softirq.c, kthread.c (and its kinds), tick.c and irq.c; the jobs
 * in workloads/ (shared types in kernel_int.h).
 * Its parts follow 2.6.14-2.6.16 or Linux 6.12 as each file says.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel_int.h"
#include "rcu/mechanisms.h" /* the RCU parts of kparts[] */
#include "model.h"

/* The sums a sample adds up over the CPUs, each written by one part. */
typedef struct ksample {
	int64_t qsum;           /* rcu: callbacks queued on all CPUs */
	int64_t ksd;            /* softirq: ksoftirqds runnable */
	double busy_sum;        /* softirq: the CPUs' fractions of the interval in softirqs */
	uint64_t wake_sum;      /* cpus: idle exits since the last sample */
} ksample;

/*
 * A part of the kernel model: a row of kparts[]. Every operation may be
 * NULL (the part has none).
 *  - knobs: its knob table, and knobs_of its tables when it has several
 *    (a table of kinds): the parameters it reads and when (model_ops.knobs).
 *  - create: from the parameters, after the parts above it in the table.
 *    0, SIM_ENOMEM, or another error with its message in @err.
 *  - start: after every part is created, in the table's order: what the
 *    machine does at boot (the jobs, each CPU's first task and tick, the
 *    background's first events, the fault's window), arming the first
 *    events in an order the results depend on (equal times go by sequence).
 *  - destroy: frees what its create allocated, after a failed or partial
 *    create too; in the reverse order of the table.
 *  - sample_cpu: at a sample, for each CPU in turn once it is settled: its
 *    per-CPU series, and its sums in the ksample; sample: then, its
 *    machine-wide series (from the sums). 0 or SIM_ENOMEM (or the part's
 *    error in @err).
 *  - finish: its scalars at the end of the run (every CPU settled), 0 or
 *    nonzero (out of memory).
 */
typedef struct kpart {
	const char *name;
	const sim_knobs *knobs;
	size_t (*knobs_of)(const sim_knobs **out, size_t max);
	int (*create)(kmodel *k, const model_env *env, char *err, size_t errlen);
	int (*start)(kmodel *k, const model_env *env, char *err, size_t errlen);
	void (*destroy)(kmodel *k);
	int (*sample_cpu)(kmodel *k, kcpu *c, sim_time now, ksample *smp);
	int (*sample)(kmodel *k, sim_time now, const ksample *smp, char *err, size_t errlen);
	int (*finish)(kmodel *k, sim_metrics *m, sim_time now);
} kpart;

/* ---- 1. The machine ------------------------------------------------------ */

/* CPUs, clock, HZ, costs, nohz_full's masks. 0 or SIM_ENOMEM. */
static int machine_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	const sim_params *p = env->p;
	kmachine *mc = &k->mach;
	(void)err;
	(void)errlen;
	mc->ncores = (int)sim_params_int(p, P_MACHINE_CORES);
	mc->tpc = (int)sim_params_int(p, P_MACHINE_THREADS_PER_CORE);
	mc->ncpus = mc->ncores * mc->tpc;
	mc->smt_slowdown = sim_params_real(p, P_MACHINE_SMT_SLOWDOWN);
	mc->clock_scale = REF_CLOCK_HZ / sim_params_real(p, P_MACHINE_CLOCK);
	mc->tick_ns = SIM_NS_PER_S / sim_params_int(p, P_MACHINE_HZ);
	mc->tick_cost = sim_params_int(p, P_IRQ_TICK_COST);
	mc->irq_cost = sim_params_int(p, P_IRQ_COST);
	mc->idle_wake_ns = sim_params_int(p, P_MACHINE_IDLE_WAKE_LATENCY);
	mc->irq_rate = sim_params_real(p, P_IRQ_RATE);
	/* A value of machine.arch, not a part's name. */
	mc->sparc64 = !strcmp(sim_params_text(p, P_MACHINE_ARCH), "sparc64");
	mc->nohz_idle = sim_params_int(p, P_IRQ_NOHZ_IDLE) != 0;
	mc->timer_migration = mc->nohz_idle && sim_params_int(p, P_IRQ_TIMER_MIGRATION) != 0;
	mc->tick_phase = (tick_phase)sim_params_int(p, P_IRQ_TICK_PHASE);
	kbg_settings(k, p);
	mc->core_busy = calloc((size_t)mc->ncores, sizeof(*mc->core_busy));
	if (!mc->core_busy)
		return SIM_ENOMEM;
	if (!strcmp(sim_params_text(p, P_IRQ_NOHZ_FULL), "none"))
		return 0;
	/* irq.nohz_full: the CPUs and the housekeeping ones (validated). */
	char why[512];
	int nfull;
	bool *mask = malloc((size_t)mc->ncpus * sizeof(*mask));
	mc->full = malloc((size_t)mc->ncpus * sizeof(*mc->full));
	mc->hk = malloc((size_t)mc->ncpus * sizeof(*mc->hk));
	if (!mask || !mc->full || !mc->hk) {
		free(mask);
		return SIM_ENOMEM;
	}
	int rc = rcu_nohz_full_mask(p, mc->ncpus, mask, &nfull, why, sizeof(why));
	assert(!rc); /* rcusim_validate() checked */
	(void)rc;
	for (int i = 0; i < mc->ncpus; i++) {
		if (mask[i])
			mc->full[mc->nfull++] = i;
		else
			mc->hk[mc->nhk++] = i;
	}
	free(mask);
	return 0;
}

static void machine_destroy(kmodel *k)
{
	free(k->mach.core_busy);
	free(k->mach.full);
	free(k->mach.hk);
}

/* The tick's counts (tick.c): taken, stopped, and with nohz_full CPUs the
 * busy ones stopped, those kept for RCU and the remote ticks. */
static int machine_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	(void)now;
	int rc = metric_scalar(m, M_TICK_TAKEN, (double)k->cnt.ticks_taken);
	rc |= metric_scalar(m, M_TICK_STOPPED, (double)k->cnt.ticks_stopped);
	if (k->mach.nfull) {
		rc |= metric_scalar(m, M_TICK_STOPPED_BUSY, (double)k->cnt.ticks_stopped_busy);
		rc |= metric_scalar(m, M_TICK_FORCED_RCU, (double)k->cnt.ticks_forced);
		rc |= metric_scalar(m, M_TICK_REMOTE, (double)k->cnt.ticks_remote);
	}
	return rc;
}

/* ---- 2. The scheduler ---------------------------------------------------- */

/* The scheduler's constants and the runqueues' arrays. 0 or SIM_ENOMEM. */
static int scheduler_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	const sim_params *p = env->p;
	kscheduler *s = &k->sched;
	(void)err;
	(void)errlen;
	sched_cfg_init(&s->cfg, (int)sim_params_int(p, P_MACHINE_HZ),
		       sim_params_int(p, P_SCHED_DEF_TIMESLICE),
		       sim_params_is_auto(p, P_SCHED_MIN_TIMESLICE) ? -1
								: sim_params_int(p, P_SCHED_MIN_TIMESLICE),
		       sim_params_int(p, P_SCHED_STARVATION_LIMIT),
		       (int)sim_params_int(p, P_SCHED_MAX_BONUS));
	s->ctxsw_cost = sim_params_int(p, P_SCHED_CTXSW_COST);
	s->preempt = (preempt_model)sim_params_int(p, P_SCHED_PREEMPT);
	/* Which class, not what it can do: the fair class's own constants. */
	if (sched_class_find(p) == &sched_fair_class) {
		/* get_update_sysctl_factor(): 1 + ilog2(min(CPUs, 8)). */
		int cpus = k->mach.ncpus < 8 ? k->mach.ncpus : 8, lg = 0;
		while ((2 << lg) <= cpus)
			lg++;
		s->cfg.class = &sched_fair_class;
		s->cfg.base_slice = sim_params_is_auto(p, P_SCHED_BASE_SLICE)
					    ? 750000 * (1 + lg)
					    : sim_params_int(p, P_SCHED_BASE_SLICE);
		s->cfg.delay_dequeue = sim_params_int(p, P_SCHED_DELAY_DEQUEUE) != 0;
		if (sim_params_int(p, P_SCHED_AUTOGROUP)) {
			s->tg.shares = 1024; /* an autogroup at nice 0 (autogroup.c) */
			s->cfg.tg = &s->tg;
		}
		return 0; /* no priority arrays */
	}
	s->rq_store = calloc((size_t)k->mach.ncpus, sizeof(*s->rq_store));
	return s->rq_store ? 0 : SIM_ENOMEM;
}

static void scheduler_destroy(kmodel *k)
{
	free(k->sched.rq_store);
}

/* Both classes' knob tables (sched/), each saying when its class runs. */
static size_t scheduler_knobs(const sim_knobs **out, size_t max)
{
	assert(max >= 2);
	out[0] = &sched_o1_knobs;
	out[1] = &sched_eevdf_knobs;
	return 2;
}

/* Context switches, the longest runnable wait, resched IPIs sent. */
static int scheduler_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	(void)now;
	uint64_t switches = 0;
	for (int i = 0; i < k->mach.ncpus; i++)
		switches += k->cpu[i].rq.nr_switches;
	int rc = metric_scalar(m, M_SCHED_CTXSW, (double)switches);
	rc |= metric_scalar(m, M_SCHED_WAIT_MAX_NS, (double)k->cnt.wait_max);
	return rc | metric_scalar(m, M_IPI_RESCHED_SENT, (double)k->cnt.ipis);
}

/* ---- 3. Softirqs --------------------------------------------------------- */

/* The softirq settings and their histograms. 0 or SIM_ENOMEM. */
static int softirq_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	const sim_params *p = env->p;
	(void)err;
	(void)errlen;
	k->softirq = (ksoftirq){
		.max_restart = (int)sim_params_int(p, P_SOFTIRQ_MAX_RESTART),
		.in_irq_exit = sim_params_int(p, P_SOFTIRQ_IN_IRQ_EXIT) != 0,
		.stop_on_resched = sim_params_int(p, P_SOFTIRQ_STOP_ON_NEED_RESCHED) != 0,
		.defer = sim_params_int(p, P_SOFTIRQ_DEFER_TO_KSOFTIRQD) != 0,
		.effect_at_pass = sim_params_int(p, P_SOFTIRQ_EFFECT_AT_PASS) != 0,
		.pass_cost = sim_params_int(p, P_SOFTIRQ_PASS_COST),
	};
	/* msecs_to_jiffies() rounds up: 2 ms is 1 jiffy at HZ 100-300, 2 at
	 * HZ 1000 (include/linux/jiffies.h 6.12). */
	int64_t limit = sim_params_int(p, P_SOFTIRQ_TIME_LIMIT), hz = sim_params_int(p, P_MACHINE_HZ);
	k->softirq.budget_j = (int64_t)(((__int128)limit * hz + SIM_NS_PER_S - 1) / SIM_NS_PER_S);
	k->softirq.cut_at_tick = k->softirq.budget_j > 0 || k->softirq.stop_on_resched;
	if (!(k->h.softirq_irq_run = metric_hist(env->m, M_SOFTIRQ_IRQ_RUN_NS)) ||
	    !(k->h.softirq_run = metric_hist(env->m, M_SOFTIRQ_RUN_NS)) ||
	    !(k->h.ksd_wait = metric_hist(env->m, M_SOFTIRQ_KSOFTIRQD_WAIT_NS)))
		return SIM_ENOMEM;
	return 0;
}

/* Its knobs, whatever runs: deferral to ksoftirqd is read only from irq_exit. */
static const sim_knob softirq_knob[] = {
	{ P_SOFTIRQ_DEFER_TO_KSOFTIRQD, { P_SOFTIRQ_IN_IRQ_EXIT, "yes", NULL } },
};
static const sim_knobs softirq_knobs = { SIM_ALWAYS, softirq_knob,
					 sizeof(softirq_knob) / sizeof(softirq_knob[0]) };

/* CPU @c's fraction of the interval since the last sample spent in
 * softirqs (softirq.busy_frac), and its ksoftirqd if runnable. */
static int softirq_sample_cpu(kmodel *k, kcpu *c, sim_time now, ksample *smp)
{
	sim_time sofar = c->softirq_ns + (c->in_softirq && now > c->run_start ? now - c->run_start : 0);
	sim_series *b = metric_series(k->h.m, M_SOFTIRQ_BUSY_FRAC, c->id);
	if (!b)
		return SIM_ENOMEM;
	sim_time interval_ns = b->n ? now - b->t[b->n - 1] : 0;
	double frac = interval_ns > 0 ? (double)(sofar - c->softirq_ns_sampled) / (double)interval_ns : 0;
	c->softirq_ns_sampled = sofar;
	smp->busy_sum += frac;
	smp->ksd += c->ksd_runnable;
	return sim_series_append(b, now, frac) ? SIM_ENOMEM : 0;
}

static int softirq_sample(kmodel *k, sim_time now, const ksample *smp, char *err, size_t errlen)
{
	sim_series *s;
	(void)err;
	(void)errlen;
	if (!(s = metric_series(k->h.m, M_SOFTIRQ_BUSY_FRAC, -1)) ||
	    sim_series_append(s, now, smp->busy_sum / k->mach.ncpus) ||
	    !(s = metric_series(k->h.m, M_KSOFTIRQD_RUNNABLE, -1)) ||
	    sim_series_append(s, now, (double)smp->ksd))
		return SIM_ENOMEM;
	return 0;
}

/* Run lengths, ksoftirqd's wakeups and waits, runs and passes by where they
 * started, runs by why they ended. */
static int softirq_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	int rc = metric_hist_scalars(m, M_SOFTIRQ_RUN_NS, k->h.softirq_run, SIM_Q_P99 | SIM_Q_MAX);
	rc |= metric_hist_scalars(m, M_SOFTIRQ_IRQ_RUN_NS, k->h.softirq_irq_run, SIM_Q_P99 | SIM_Q_MAX);
	rc |= metric_scalar(m, M_SOFTIRQ_KSOFTIRQD_WAKEUPS, (double)k->cnt.ksd_wakeups);
	/* A ksoftirqd still waiting at the end has waited at least this long
	 * (in the histogram too: one sample per wakeup; one woken after the
	 * end, by a pass begun before it, has not waited yet). */
	int64_t ksd_wait = k->cnt.ksd_wait_max;
	for (int i = 0; i < k->mach.ncpus; i++) {
		if (!k->cpu[i].ksd_waiting || k->cpu[i].ksd_woken > now)
			continue;
		sim_hist_add(k->h.ksd_wait, (uint64_t)(now - k->cpu[i].ksd_woken));
		if (now - k->cpu[i].ksd_woken > ksd_wait)
			ksd_wait = now - k->cpu[i].ksd_woken;
	}
	if (k->cnt.ksd_wakeups)
		rc |= metric_scalar(m, M_SOFTIRQ_KSOFTIRQD_WAIT_MAX_NS, (double)ksd_wait);
	rc |= metric_hist_scalars(m, M_SOFTIRQ_KSOFTIRQD_WAIT_NS, k->h.ksd_wait, SIM_Q_P50 | SIM_Q_P99);
	rc |= metric_scalar(m, M_SOFTIRQ_RUNS_IRQ_EXIT, (double)k->cnt.runs[RUN_IRQ_EXIT]);
	rc |= metric_scalar(m, M_SOFTIRQ_RUNS_TRAP_RETURN, (double)k->cnt.runs[RUN_TRAP_RETURN]);
	rc |= metric_scalar(m, M_SOFTIRQ_RUNS_KSOFTIRQD, (double)k->cnt.runs[RUN_KSOFTIRQD]);
	rc |= metric_scalar(m, M_SOFTIRQ_PASSES_IRQ_EXIT, (double)k->cnt.passes[RUN_IRQ_EXIT]);
	rc |= metric_scalar(m, M_SOFTIRQ_PASSES_TRAP_RETURN, (double)k->cnt.passes[RUN_TRAP_RETURN]);
	rc |= metric_scalar(m, M_SOFTIRQ_PASSES_KSOFTIRQD, (double)k->cnt.passes[RUN_KSOFTIRQD]);
	rc |= metric_scalar(m, M_SOFTIRQ_RUNS_ENDED_EMPTY, (double)k->cnt.run_stops[RUN_STOP_EMPTY]);
	rc |= metric_scalar(m, M_SOFTIRQ_RUNS_ENDED_RESTART_LIMIT,
			    (double)k->cnt.run_stops[RUN_STOP_RESTART]);
	rc |= metric_scalar(m, M_SOFTIRQ_RUNS_ENDED_TIME_BUDGET, (double)k->cnt.run_stops[RUN_STOP_BUDGET]);
	return rc | metric_scalar(m, M_SOFTIRQ_RUNS_ENDED_NEED_RESCHED,
				  (double)k->cnt.run_stops[RUN_STOP_RESCHED]);
}

/* ---- 4. RCU: the flavor -------------------------------------------------- */

/* The normal RCU, the run's domain "rcu" (rcu/rcu_domain.c): the flavor
 * rcu.flavor names over the callbacks' counts; after the file table (a
 * callback frees a file when it is modelled). */
static int rcu_create(kmodel *k, const model_env *menv, char *err, size_t errlen)
{
	void *invoke_ctx;
	rcu_invoke_fn *invoke = loads_invoke_fn(k, &invoke_ctx);
	return rcu_domain_create(k, menv->p, menv->m, invoke, invoke_ctx, err, errlen);
}

/* CPU @c's callbacks queued (cb.qlen). */
static int rcu_sample_cpu(kmodel *k, kcpu *c, sim_time now, ksample *smp)
{
	rcu_domain *d = rcu_normal(k);
	int64_t q = d->ops->qlen(d, c->id);
	smp->qsum += q;
	sim_series *s = metric_series(k->h.m, M_CB_QLEN, c->id);
	return !s || sim_series_append(s, now, (double)q) ? SIM_ENOMEM : 0;
}

/* All CPUs' callbacks queued, and the flavor's own series. */
static int rcu_sample(kmodel *k, sim_time now, const ksample *smp, char *err, size_t errlen)
{
	sim_series *s;
	(void)err;
	(void)errlen;
	if (!(s = metric_series(k->h.m, M_CB_QLEN, -1)) || sim_series_append(s, now, (double)smp->qsum) ||
	    rcu_domain_sample(k, now))
		return SIM_ENOMEM;
	return 0;
}

/* ---- The CPUs ------------------------------------------------------------ */

/* Runqueues, ksoftirqd, random streams, timers. 0 or SIM_ENOMEM. */
static int cpus_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	const sim_params *p = env->p;
	int ksd_nice = (int)sim_params_int(p, P_SCHED_KSOFTIRQD_NICE);
	(void)err;
	(void)errlen;
	k->cpu = calloc((size_t)k->mach.ncpus, sizeof(*k->cpu));
	if (!k->cpu)
		return SIM_ENOMEM;
	for (int i = 0; i < k->mach.ncpus; i++) {
		kcpu *c = &k->cpu[i];
		c->k = k;
		c->id = i;
		c->core = i / k->mach.tpc;
		sched_rq_init(&c->rq, k->sched.rq_store ? &k->sched.rq_store[i] : NULL);
		sched_task_init(&k->sched.cfg, &c->ksoftirqd, ksd_nice);
		if (sched_attach(&k->sched.cfg, &c->rq))
			return SIM_ENOMEM;
		if (k->sched.cfg.tg && sched_eevdf_group_init(&k->sched.cfg, &c->rq))
			return SIM_ENOMEM;
		if (sim_rng_create(&c->rng_work, env->rng, env->seed, WORKLOAD_RNG_STREAM, (uint64_t)i) ||
		    sim_rng_create(&c->rng_mode, env->rng, env->seed, "kernel.tick_mode", (uint64_t)i) ||
		    sim_rng_create(&c->rng_irq, env->rng, env->seed, "irq.device", (uint64_t)i))
			return SIM_ENOMEM;
		if (rcu_domains_draw_cost(&k->doms) &&
		    sim_rng_create(&c->rng_cost, env->rng, env->seed, "rcu.core_cost", (uint64_t)i))
			return SIM_ENOMEM;
		sim_timer_init(env->eng, &c->done, kcpu_run_end, c);
		sim_timer_init(env->eng, &c->ipi, kcpu_ipi_fire, c);
		sim_timer_init(env->eng, &c->irq, kcpu_irq_fire, c);
		sim_timer_init(env->eng, &c->sysret, kcpu_sysret_fire, c);
		sim_timer_init(env->eng, &c->jobev, kcpu_jobev_fire, c);
		sim_timer_init(env->eng, &c->resched_pt, kcpu_resched_pt_fire, c);
		sim_timer_init(env->eng, &c->unlock, kcpu_unlock_fire, c);
		sim_timer_init(env->eng, &c->rcu.exp_ipi, kcpu_exp_ipi_fire, c);
		sim_timer_init(env->eng, &c->rcu.exp_rdr, kcpu_exp_rdr_fire, c);
		if (kfiles_start_cpu(k, c))
			return SIM_ENOMEM;
	}
	for (int i = 0; i < k->mach.nfull; i++)
		k->cpu[k->mach.full[i]].nohz_full = true;
	return 0;
}

static void cpus_destroy(kmodel *k)
{
	if (!k->cpu)
		return;
	for (int i = 0; i < k->mach.ncpus; i++) {
		sim_rng_destroy(k->cpu[i].rng_work);
		sim_rng_destroy(k->cpu[i].rng_mode);
		sim_rng_destroy(k->cpu[i].rng_irq);
		sim_rng_destroy(k->cpu[i].rng_cost);
		sched_rq_destroy(&k->cpu[i].rq);
	}
	free(k->cpu);
}

/* The first tick of CPU @i (irq.tick_phase): spread over the first period,
 * all on its end (the first jiffy boundary), or skewed from it by
 * (tick period / 2) / N a CPU (tick-sched.c 6.12:1588-1597). The tick
 * timer visits the CPUs in order (tick.c), so each phase leaves them in
 * order: equal times go by the sequence numbers reserved in this order. */
static sim_time first_tick(const kmachine *mc, int i)
{
	switch (mc->tick_phase) {
	case TICK_ALIGNED:
		return mc->tick_ns;
	case TICK_SKEWED:
		return mc->tick_ns + (mc->tick_ns / 2) / mc->ncpus * i;
	default:
		return mc->tick_ns * (i + 1) / mc->ncpus;
	}
}

/* Boot, after the jobs: every CPU picks its first task, ticks started at
 * their phases, device interrupts start. 0 or SIM_ENOMEM. */
static int cpus_start(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	kmachine *mc = &k->mach;
	(void)env;
	(void)err;
	(void)errlen;
	for (int i = 0; i < mc->ncpus; i++) {
		kcpu *c = &k->cpu[i];
		c->rq.curr = NULL;
		kcpu_schedule(c, 0);
		c->tick_when = first_tick(mc, i);
		c->tick_skip_at = -1;
		c->tick_seq = sim_engine_reserve_seq(k->eng);
		if (mc->irq_rate > 0 &&
		    sim_timer_at(k->eng, &c->irq,
				 (sim_time)llround(sim_rng_exponential(c->rng_irq, 1e9 / mc->irq_rate))))
			return SIM_ENOMEM;
	}
	if (sim_timer_init(k->eng, &mc->tick, kcpu_tick_fire, k) || kcpu_arm_tick(k, 0))
		return SIM_ENOMEM;
	/* sched_tick_start(): queued at bring-up for HZ jiffies on. */
	if (mc->nfull && (sim_timer_init(k->eng, &mc->remote, kcpu_remote_tick_fire, k) ||
			  sim_timer_at(k->eng, &mc->remote, SIM_NS_PER_S)))
		return SIM_ENOMEM;
	return 0;
}

/* CPU @c's idle exits since the last sample (idle.wakeups). */
static int cpus_sample_cpu(kmodel *k, kcpu *c, sim_time now, ksample *smp)
{
	sim_series *w = metric_series(k->h.m, M_IDLE_WAKEUPS, c->id);
	if (!w || sim_series_append(w, now, (double)(c->idle_exits - c->idle_exits_sampled)))
		return SIM_ENOMEM;
	smp->wake_sum += c->idle_exits - c->idle_exits_sampled;
	c->idle_exits_sampled = c->idle_exits;
	return 0;
}

static int cpus_sample(kmodel *k, sim_time now, const ksample *smp, char *err, size_t errlen)
{
	sim_series *s;
	(void)err;
	(void)errlen;
	if (!(s = metric_series(k->h.m, M_IDLE_WAKEUPS, -1)) || sim_series_append(s, now, (double)smp->wake_sum))
		return SIM_ENOMEM;
	return 0;
}

/* Idle entries and exits. */
static int cpus_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	int rc = metric_scalar(m, M_IDLE_ENTRIES, (double)k->cnt.idle_entries);
	rc |= metric_scalar(m, M_IDLE_EXITS, (double)k->cnt.idle_exits);
	if (now > 0)
		rc |= metric_scalar(m, M_IDLE_EXITS_PER_CPU_S,
				    (double)k->cnt.idle_exits / k->mach.ncpus / ((double)now / 1e9));
	return rc;
}

/* ---- The callbacks' objects ---------------------------------------------- */

/* Without the file table, the bytes a queued callback frees when every
 * load's objects are one size (loads_obj_bytes()), else 0: none written. */
static int objects_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	(void)env;
	(void)err;
	(void)errlen;
	if (!k->files.on)
		k->obj_bytes = loads_obj_bytes(k);
	return 0;
}

static int objects_sample(kmodel *k, sim_time now, const ksample *smp, char *err, size_t errlen)
{
	sim_series *s;
	(void)err;
	(void)errlen;
	int64_t q = smp->qsum - kbg_cb_pending(&k->bg); /* the loads' callbacks */
	if (q > k->objq_max)
		k->objq_max = q;
	if (k->obj_bytes && (!(s = metric_series(k->h.m, M_MEM_PENDING_BYTES, -1)) ||
			     sim_series_append(s, now, (double)q * (double)k->obj_bytes)))
		return SIM_ENOMEM;
	return 0;
}

static int objects_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	(void)now;
	if (!k->obj_bytes)
		return 0;
	return metric_scalar(m, M_MEM_PENDING_BYTES_MAX,
			     (double)kobjq_max(&k->rcu.cb, &k->bg, k->objq_max) * (double)k->obj_bytes);
}

/* ---- Glue: the other files' parts in the table's signatures -------------- */

/* The workload: [workload] and each [workload.NAME] (workloads/workload.c),
 * its jobs at start, round-robin over their CPUs (job j on CPU j mod
 * ncpus), each runnable with its first call drawn. */
static int workload_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	return loads_create(k, env->p, err, errlen);
}

static int workload_start(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return loads_jobs_create(k, env->p);
}

static int workload_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	(void)now;
	return loads_finish(k, m);
}

/* What workload_create() reads for every kind it runs. */
static const sim_knob kworkload_knob[] = {
	{ P_WORKLOAD_JOBS, SIM_ALWAYS },
	{ P_WORKLOAD_CPUS, SIM_ALWAYS },
};
static const sim_knobs kworkload_knobs = {
	{ P_WORKLOAD_KIND, "!queue", "a kernel workload (not queue)" }, kworkload_knob,
	sizeof(kworkload_knob) / sizeof(kworkload_knob[0])
};

/* The file table (fs/files.c), with a workload that opens files. */
static int files_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	return kfiles_create(k, env->p, err, errlen);
}

static int files_sample(kmodel *k, sim_time now, const ksample *smp, char *err, size_t errlen)
{
	if (!k->files.on)
		return 0;
	return kfiles_sample(k, now, loads_file_pending(k, smp->qsum - kbg_cb_pending(&k->bg)), err, errlen);
}

static int files_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	(void)now;
	return k->files.on ? kfiles_finish(k, m) : 0;
}

/* The RCU flavor's kthreads, after the CPUs (none for a flavor without a GP
 * kthread, as classic RCU): the GP kthread on rcu.gp_kthread_cpu
 * (rcu/rcu_gp_kthread.c), offloading's rcuog and rcuo
 * (rcu/rcu_nocb_kthreads.c), rcuc on every CPU when RCU core work runs
 * there (rcu/rcu_cpu_kthread.c), each family at rcu.kthread_prio. */
static int gp_kthread_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return rcu_gp_kthread_create(k, env->p, (int)sim_params_int(env->p, P_RCU_KTHREAD_PRIO));
}

static int nocb_kthreads_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return rcu_nocb_kthreads_create(k, env->p, (int)sim_params_int(env->p, P_RCU_KTHREAD_PRIO));
}

static int rcuc_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return rcu_cpu_kthreads_create(k, env->p, (int)sim_params_int(env->p, P_RCU_KTHREAD_PRIO));
}

static int gp_kthread_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	return rcu_gp_kthread_finish(k, m, now);
}

static int nocb_kthreads_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	return rcu_nocb_kthreads_finish(k, m, now);
}

static int rcuc_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	return rcu_cpu_kthreads_finish(k, m, now);
}

/* machine.background (background.c). */
static int background_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return kbg_create(k, env);
}

static int background_start(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	(void)env;
	(void)err;
	(void)errlen;
	return kbg_start(k);
}

static int background_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	(void)now;
	return kbg_finish(k, m);
}

/* RCU's other mechanisms (rcu/): readers preempted inside rcu_read_lock(),
 * expedited grace periods, rcu_barrier(), kfree_rcu(). */
static int readers_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	(void)env;
	(void)err;
	(void)errlen;
	return rcu_readers_create(k);
}

static int readers_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	(void)now;
	return rcu_readers_finish(k, m);
}

static int exp_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return rcu_exp_create(k, env->p, env->m);
}

static int exp_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	(void)now;
	return rcu_exp_finish(k, m);
}

static int barrier_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return rcu_barrier_create(k, env->p, env->m);
}

static int barrier_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	(void)now;
	return rcu_barrier_finish(k, m);
}

static int kfree_create(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return kfree_rcu_create(k, env->p);
}

static int kfree_sample(kmodel *k, sim_time now, const ksample *smp, char *err, size_t errlen)
{
	(void)smp;
	(void)err;
	(void)errlen;
	return kfree_rcu_sample(k, k->h.m, now);
}

static int kfree_finish(kmodel *k, sim_metrics *m, sim_time now)
{
	(void)now;
	return kfree_rcu_finish(k, m);
}

/* The injected fault (fault.c): armed at start, after boot. */
static int fault_start(kmodel *k, const model_env *env, char *err, size_t errlen)
{
	return kfault_create(k, env->p, err, errlen);
}

/*
 * The parts, in the order they are created and started (each create may
 * read the parts above it; the starts arm the first events in this order:
 * the jobs, each CPU's first task and tick, the background's, the fault's).
 * The timeline (ktrace.c) is opened by model_ops.trace after the create
 * and closed by kernel_finish() after every part's scalars.
 */
static const kpart kparts[] = {
	{ .name = "machine", .create = machine_create, .destroy = machine_destroy,
	  .finish = machine_finish },
	{ .name = "scheduler", .knobs_of = scheduler_knobs, .create = scheduler_create,
	  .destroy = scheduler_destroy, .finish = scheduler_finish },
	{ .name = "softirq", .knobs = &softirq_knobs, .create = softirq_create,
	  .sample_cpu = softirq_sample_cpu, .sample = softirq_sample, .finish = softirq_finish },
	{ .name = "workload", .knobs = &kworkload_knobs, .knobs_of = workloads_knobs,
	  .create = workload_create, .start = workload_start, .destroy = loads_destroy,
	  .finish = workload_finish },
	{ .name = "files", .knobs = &kfiles_knobs, .create = files_create, .destroy = kfiles_destroy,
	  .sample = files_sample, .finish = files_finish },
	{ .name = "rcu", .knobs_of = rcu_flavors_knobs, .create = rcu_create, .destroy = rcu_domain_destroy,
	  .sample_cpu = rcu_sample_cpu, .sample = rcu_sample, .finish = rcu_domain_finish },
	{ .name = "cpus", .create = cpus_create, .start = cpus_start, .destroy = cpus_destroy,
	  .sample_cpu = cpus_sample_cpu, .sample = cpus_sample, .finish = cpus_finish },
	{ .name = "rcu_gp_kthread", .create = gp_kthread_create, .destroy = rcu_gp_kthread_destroy,
	  .finish = gp_kthread_finish },
	{ .name = "rcu_nocb_kthreads", .create = nocb_kthreads_create,
	  .destroy = rcu_nocb_kthreads_destroy, .finish = nocb_kthreads_finish },
	{ .name = "rcuc", .create = rcuc_create, .destroy = rcu_cpu_kthreads_destroy,
	  .finish = rcuc_finish },
	{ .name = "background", .knobs = &kbg_knobs, .create = background_create,
	  .start = background_start, .destroy = kbg_destroy, .finish = background_finish },
	{ .name = "rcu_readers", .create = readers_create, .destroy = rcu_readers_destroy,
	  .finish = readers_finish },
	{ .name = "rcu_exp", .create = exp_create, .destroy = rcu_exp_destroy, .finish = exp_finish },
	{ .name = "rcu_barrier", .create = barrier_create, .destroy = rcu_barrier_destroy,
	  .finish = barrier_finish },
	{ .name = "kfree_rcu", .create = kfree_create, .destroy = kfree_rcu_destroy,
	  .sample = kfree_sample, .finish = kfree_finish },
	{ .name = "objects", .create = objects_create, .sample = objects_sample,
	  .finish = objects_finish },
	{ .name = "fault", .knobs = &kfault_knobs, .start = fault_start, .destroy = kfault_destroy },
	{ .name = "ktrace", .destroy = ktrace_destroy },
};
#define NPARTS (sizeof(kparts) / sizeof(kparts[0]))

static void kernel_destroy(void *state)
{
	kmodel *k = state;
	if (!k)
		return;
	for (size_t i = NPARTS; i-- > 0;)
		if (kparts[i].destroy)
			kparts[i].destroy(k);
	free(k);
}

static int kernel_create(void **state, const model_env *env, char *err, size_t errlen)
{
	kmodel *k = calloc(1, sizeof(*k));
	*state = k;
	if (!k)
		goto nomem;
	k->eng = env->eng;
	k->h.m = env->m;
	int rc = 0;
	for (size_t i = 0; i < NPARTS && !rc; i++)
		if (kparts[i].create)
			rc = kparts[i].create(k, env, err, errlen);
	for (size_t i = 0; i < NPARTS && !rc; i++)
		if (kparts[i].start)
			rc = kparts[i].start(k, env, err, errlen);
	if (rc != SIM_ENOMEM)
		return rc;
nomem:
	snprintf(err, errlen, "kernel model: out of memory");
	return SIM_ENOMEM;
}

/* With the checks on: the callbacks and files are conserved at a sample
 * (every count is exact at any event boundary). */
static void check_conservation(const kmodel *k, int64_t qsum)
{
	char why[256];
	RCUSIM_CHECK(cb_stats_conserved(&k->rcu.cb, (uint64_t)qsum), "kernel.cb_conservation");
	int64_t files = qsum - kbg_cb_pending(&k->bg); /* the box's own callbacks free none */
	RCUSIM_CHECK(!k->files.on || !kfiles_check(k, (uint64_t)loads_file_pending(k, files), why, sizeof(why)),
		     "kernel.file_conservation");
}

/* Each CPU settled at @now (every event of the end instant, for the sample
 * at the end) and sampled by every part in turn, then each part's
 * machine-wide series. */
static int kernel_sample(void *state, sim_time now, char *err, size_t errlen)
{
	kmodel *k = state;
	ksample smp = { 0 };
	int rc;
	for (int i = 0; i < k->mach.ncpus; i++) {
		kcpu *c = &k->cpu[i];
		kcpu_settle(c, now, sim_engine_settled_seq(k->eng), true);
		for (size_t j = 0; j < NPARTS; j++)
			if (kparts[j].sample_cpu && (rc = kparts[j].sample_cpu(k, c, now, &smp)))
				return rc;
	}
	if (RCUSIM_CHECKS_ON)
		check_conservation(k, smp.qsum);
	if (ktr(k))
		ktrace_counter(k, now, smp.qsum);
	for (size_t j = 0; j < NPARTS; j++)
		if (kparts[j].sample && (rc = kparts[j].sample(k, now, &smp, err, errlen)))
			return rc;
	return 0;
}

/* A softirq pass, rcuc or rcuo batch begun by the end invoked its callbacks
 * up to cb.last_at (count_invoked()). */
static sim_time kernel_horizon(const void *state, sim_time end)
{
	const kmodel *k = state;
	return k->rcu.cb.last_at > end ? k->rcu.cb.last_at : end;
}

/* Every CPU settled, every part's scalars, the timeline closed, then the
 * conservation of callbacks and files checked. */
static int kernel_finish(void *state, sim_time now, char *err, size_t errlen)
{
	kmodel *k = state;
	if (k->err) {
		snprintf(err, errlen, "kernel model: out of memory");
		return k->err;
	}
	/* Runs that ended by the end of the run (all events at or before it
	 * were dispatched; after a stop, only those before the last one). */
	uint64_t bound = sim_engine_completed(k->eng) ? UINT64_MAX : sim_engine_cur_seq(k->eng);
	for (int i = 0; i < k->mach.ncpus; i++)
		kcpu_settle(&k->cpu[i], now, bound, true);
	int rc = 0;
	for (size_t j = 0; j < NPARTS; j++)
		if (kparts[j].finish)
			rc |= kparts[j].finish(k, k->h.m, now);
	if (rc) {
		snprintf(err, errlen, "kernel model: out of memory");
		return SIM_ENOMEM;
	}
	/* The timeline last: everything the end settled is in it, and a
	 * trace that could not be written leaves the results recorded (the
	 * caller's rcusim_trace_fail says why). */
	ktrace_close(k, now);
	uint64_t pending = 0;
	for (int i = 0; i < k->mach.ncpus; i++)
		pending += (uint64_t)rcu_normal(k)->ops->qlen(rcu_normal(k), i);
	int64_t files = (int64_t)pending - kbg_cb_pending(&k->bg); /* the box's own callbacks free none */
	if (k->files.on && (rc = kfiles_check(k, (uint64_t)loads_file_pending(k, files), err, errlen)))
		return rc;
	return cb_stats_check(&k->rcu.cb, pending, err, errlen);
}

static bool kernel_runs(const char *kind)
{
	return workload_find(kind) != NULL;
}

/* Every part's knob tables, in the table's order. */
static size_t kernel_knobs(const sim_knobs **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < NPARTS; i++) {
		if (kparts[i].knobs) {
			assert(n < max);
			out[n++] = kparts[i].knobs;
		}
		if (kparts[i].knobs_of)
			n += kparts[i].knobs_of(out + n, max - n);
	}
	return n;
}

/* Before the knobs, whatever runs: RCU's (rcu_params_check()) and the
 * fault's (fault_validate()). */
static int kernel_check(const sim_params *p, char *err, size_t errlen)
{
	int rc = rcu_params_check(p, err, errlen);
	return rc ? rc : fault_validate(p, err, errlen);
}

/* After the knobs: the RCU flavor's, the scheduler's, the workload kind's
 * own validate. */
static int kernel_validate(const sim_params *p, char *err, size_t errlen)
{
	const workload_ops *w = workload_find(sim_params_text(p, P_WORKLOAD_KIND));
	int rc = rcu_flavor_validate(p, err, errlen);
	if (rc || (rc = sched_validate(p, err, errlen)) || (rc = kbg_validate(p, err, errlen)))
		return rc;
	if (w && w->validate && (rc = w->validate(p, err, errlen)))
		return rc;
	return loads_validate(p, err, errlen);
}

/* A named load's histograms are in its own container until the end. */
static void kernel_drop_samples(void *state)
{
	kmodel *k = state;
	for_each_load(k, w) if (w->m != k->h.m)
		sim_metrics_drop_hists(w->m);
}

const model_ops kernel_model = {
	.name = "kernel",
	.runs = kernel_runs,
	.kinds = workload_kinds,
	.check = kernel_check,
	.knobs = kernel_knobs,
	.validate = kernel_validate,
	.create = kernel_create,
	.sample = kernel_sample,
	.finish = kernel_finish,
	.horizon = kernel_horizon,
	.drop_samples = kernel_drop_samples,
	.destroy = kernel_destroy,
	.trace = kernel_trace,
};
