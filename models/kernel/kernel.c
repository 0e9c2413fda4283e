/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kernel.c - the kernel model's table (kernel_model, for every workload in
 * workloads/workload.c's table): creating its parts from the parameters, one function
 * each (machine, scheduler, softirqs, RCU, file table in files.c, workload,
 * metric handles, then the CPUs and the jobs), sampling the series, and
 * the end-of-run scalars with the conservation checks. What each CPU does
 * is in cpu.c, softirq.c, kthread.c (and its kinds), tick.c and irq.c; the
 * jobs in workloads/ (shared types in kernel_int.h).
 * Its parts follow 2.6.14-2.6.16 or Linux 6.12 as each file says.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel_int.h"
#include "rcu/tree_nocb.h"
#include "model.h"

static void kernel_destroy(void *state)
{
	kmodel *k = state;
	if (!k)
		return;
	if (k->cpu)
		for (int i = 0; i < k->mach.ncpus; i++) {
			sim_rng_destroy(k->cpu[i].rng_work);
			sim_rng_destroy(k->cpu[i].rng_mode);
			sim_rng_destroy(k->cpu[i].rng_irq);
			sim_rng_destroy(k->cpu[i].rng_cost);
			sched_rq_destroy(&k->cpu[i].rq);
		}
	kbg_destroy(k);
	if (k->rcu.ops)
		k->rcu.ops->destroy(k->rcu.rsp);
	free(k->rcu.gpk);
	free(k->rcu.srsk);
	free(k->rcu.rcuc);
	free(k->rcu.rcuog);
	free(k->rcu.rcuo);
	rcu_readers_destroy(k);
	rcu_exp_destroy(k);
	rcu_barrier_destroy(k);
	ktrace_destroy(k);
	kfree_rcu_destroy(k);
	loads_destroy(k);
	kfiles_destroy(k);
	kfault_destroy(k);
	free(k->cpu);
	free(k->sched.rq_store);
	free(k->mach.core_busy);
	free(k->mach.full);
	free(k->mach.hk);
	free(k);
}

/* 1. The machine. 0 or SIM_ENOMEM. */
static int machine_create(kmodel *k, const sim_params *p)
{
	kmachine *mc = &k->mach;
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
	mc->sparc64 = !strcmp(sim_params_text(p, P_MACHINE_ARCH), "sparc64");
	mc->nohz_idle = sim_params_int(p, P_IRQ_NOHZ_IDLE) != 0;
	mc->timer_migration = mc->nohz_idle && sim_params_int(p, P_IRQ_TIMER_MIGRATION) != 0;
	mc->tick_phase = (tick_phase)sim_params_int(p, P_IRQ_TICK_PHASE);
	mc->core_busy = calloc((size_t)mc->ncores, sizeof(*mc->core_busy));
	if (!mc->core_busy)
		return SIM_ENOMEM;
	if (!strcmp(sim_params_text(p, P_IRQ_NOHZ_FULL), "none"))
		return 0;
	/* irq.nohz_full: the CPUs and the housekeeping ones (validated). */
	char err[512];
	int nfull;
	bool *mask = malloc((size_t)mc->ncpus * sizeof(*mask));
	mc->full = malloc((size_t)mc->ncpus * sizeof(*mc->full));
	mc->hk = malloc((size_t)mc->ncpus * sizeof(*mc->hk));
	if (!mask || !mc->full || !mc->hk) {
		free(mask);
		return SIM_ENOMEM;
	}
	int rc = rcu_nohz_full_mask(p, mc->ncpus, mask, &nfull, err, sizeof(err));
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

/* 2. The scheduler's constants and the runqueues' arrays. 0 or SIM_ENOMEM. */
static int scheduler_create(kmodel *k, const sim_params *p)
{
	kscheduler *s = &k->sched;
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

/* 3. Softirqs. */
static void softirq_create(kmodel *k, const sim_params *p)
{
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
}

/* 4. RCU: the flavor rcu.flavor names, over the callbacks' counts; after
 * the file table (a callback frees a file when it is modelled). */
static int rcu_create(kmodel *k, const sim_params *p, sim_metrics *m, char *err, size_t errlen)
{
	krcu *r = &k->rcu;
	/* rcu.core_pass_cost is Tree RCU's knob (never set under classic, so
	 * rcu.tasklet_cost there). */
	r->handler_cost = rcu_cost_param(p, P_RCU_CORE_PASS_COST, P_RCU_TASKLET_COST);
	r->core_sigma = !strcmp(sim_params_text(p, P_RCU_FLAVOR), "tree") ? sim_params_real(p, P_RCU_CORE_COST_SIGMA) : 0;
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
	void *invoke_ctx;
	rcu_invoke_fn *invoke = loads_invoke_fn(k, &invoke_ctx);
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
	r->exp_last[0] = r->exp_last[1] = -1;
	return r->ops->create(&r->rsp, &env, err, errlen);
}

/* The kernel threads, after the CPUs, one family per line, in this order:
 * the RCU flavor's GP kthread on rcu.gp_kthread_cpu (rcu/rcu_gp_kthread.c),
 * offloading's rcuog and rcuo (rcu/rcu_nocb_kthreads.c), rcuc on every CPU
 * when RCU core work runs there (rcu/rcu_cpu_kthread.c). A family creates
 * nothing when its mechanism is off. */
static int (*const kthread_families[])(kmodel *k, const sim_params *p, int prio) = {
	rcu_gp_kthread_create,
	rcu_nocb_kthreads_create,
	rcu_cpu_kthreads_create,
};

/* The flavor's kthreads (none for a flavor without a GP kthread, as
 * classic RCU). 0 or SIM_ENOMEM. */
static int rcu_kthreads_create(kmodel *k, const sim_params *p)
{
	int prio = (int)sim_params_int(p, P_RCU_KTHREAD_PRIO);
	if (!k->rcu.ops->gp_step)
		return 0;
	for (size_t i = 0; i < sizeof(kthread_families) / sizeof(kthread_families[0]); i++)
		if (kthread_families[i](k, p, prio))
			return SIM_ENOMEM;
	return 0;
}

/* 6. The loads: [workload] and each [workload.NAME] (workloads/workload.c). */
static int workload_create(kmodel *k, const sim_params *p, char *err, size_t errlen)
{
	return loads_create(k, p, err, errlen);
}

/* The CPUs: runqueues, ksoftirqd, random streams, timers. 0 or SIM_ENOMEM. */
static int cpus_create(kmodel *k, const model_env *env)
{
	const sim_params *p = env->p;
	int ksd_nice = (int)sim_params_int(p, P_SCHED_KSOFTIRQD_NICE);
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
		if (k->rcu.core_sigma > 0 &&
		    sim_rng_create(&c->rng_cost, env->rng, env->seed, "rcu.core_cost", (uint64_t)i))
			return SIM_ENOMEM;
		sim_timer_init(env->eng, &c->done, kcpu_run_end, c);
		sim_timer_init(env->eng, &c->ipi, kcpu_ipi_fire, c);
		sim_timer_init(env->eng, &c->irq, kcpu_irq_fire, c);
		sim_timer_init(env->eng, &c->sysret, kcpu_sysret_fire, c);
		sim_timer_init(env->eng, &c->jobev, kcpu_jobev_fire, c);
		sim_timer_init(env->eng, &c->resched_pt, kcpu_resched_pt_fire, c);
		sim_timer_init(env->eng, &c->unlock, kcpu_unlock_fire, c);
		sim_timer_init(env->eng, &c->exp_ipi, kcpu_exp_ipi_fire, c);
		sim_timer_init(env->eng, &c->exp_rdr, kcpu_exp_rdr_fire, c);
		if (kfiles_start_cpu(k, c))
			return SIM_ENOMEM;
	}
	for (int i = 0; i < k->mach.nfull; i++)
		k->cpu[k->mach.full[i]].nohz_full = true;
	return 0;
}

/* The jobs of every load, round-robin over its CPUs (job j on CPU j mod
 * ncpus), each runnable with its first call drawn. 0 or SIM_ENOMEM. */
static int jobs_create(kmodel *k, const sim_params *p)
{
	return loads_jobs_create(k, p);
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

/* Boot: every CPU picks its first task, ticks started at their phases,
 * device interrupts start. 0 or SIM_ENOMEM. */
static int machine_start(kmodel *k)
{
	kmachine *mc = &k->mach;
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

static int kernel_create(void **state, const model_env *env, char *err, size_t errlen)
{
	const sim_params *p = env->p;
	kmodel *k = calloc(1, sizeof(*k));
	*state = k;
	if (!k)
		goto nomem;
	k->eng = env->eng;
	k->h.m = env->m;
	int rc = machine_create(k, p);
	if (!rc)
		rc = scheduler_create(k, p);
	if (!rc) {
		softirq_create(k, p);
		rc = workload_create(k, p, err, errlen);
	}
	if (!rc)
		rc = kfiles_create(k, p, err, errlen);
	if (!rc)
		rc = rcu_create(k, p, env->m, err, errlen);
	if (!rc && !(k->h.softirq_irq_run = sim_metrics_hist(env->m, "softirq.irq_run_ns")))
		rc = SIM_ENOMEM;
	if (!rc && !(k->h.softirq_run = sim_metrics_hist(env->m, "softirq.run_ns")))
		rc = SIM_ENOMEM;
	if (!rc && !(k->h.ksd_wait = sim_metrics_hist(env->m, "softirq.ksoftirqd_wait_ns")))
		rc = SIM_ENOMEM;
	if (!rc)
		rc = cpus_create(k, env);
	if (!rc)
		rc = rcu_kthreads_create(k, p);
	if (!rc)
		rc = kbg_create(k, env);
	if (!rc)
		rc = rcu_readers_create(k);
	if (!rc)
		rc = rcu_exp_create(k, p, env->m);
	if (!rc)
		rc = rcu_barrier_create(k, p, env->m);
	if (!rc && !k->files.on)
		k->obj_bytes = loads_obj_bytes(k);
	if (!rc && k->wl.ops->kfree_batched) {
		if (sim_params_int(p, P_WORKLOAD_KFREE_BY_CALL_RCU)) {
			k->kfree.by_call = true;
			k->kfree.obj_size = 24 * sim_params_int(p, P_WORKLOAD_KFREE_MULT);
		} else {
			rc = kfree_rcu_create(k, p);
		}
	}
	if (!rc)
		rc = jobs_create(k, p);
	if (!rc)
		rc = machine_start(k);
	if (!rc)
		rc = kbg_start(k);
	if (!rc)
		rc = kfault_create(k, p, err, errlen);
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
	RCUSIM_CHECK(!k->files.on || !kfiles_check(k, (uint64_t)loads_file_pending(k, qsum), why, sizeof(why)),
		     "kernel.file_conservation");
}

static int kernel_sample(void *state, sim_time now, char *err, size_t errlen)
{
	kmodel *k = state;
	sim_metrics *m = k->h.m;
	const rcu_flavor *rf = k->rcu.ops;
	sim_time interval_ns = 0;
	int64_t qsum = 0, ksd = 0;
	uint64_t wake_sum = 0;
	double busy_sum = 0;
	for (int i = 0; i < k->mach.ncpus; i++) {
		kcpu *c = &k->cpu[i];
		/* every event of the end instant, for the sample at the end */
		kcpu_settle(c, now, sim_engine_settled_seq(k->eng), true);
		int64_t q = rf->qlen(k->rcu.rsp, i);
		qsum += q;
		ksd += c->ksd_runnable;
		sim_series *s = sim_metrics_series(m, "cb.qlen", i);
		if (!s || sim_series_append(s, now, (double)q))
			return SIM_ENOMEM;
		sim_time sofar = c->softirq_ns + (c->in_softirq && now > c->run_start ? now - c->run_start : 0);
		sim_series *b = sim_metrics_series(m, "softirq.busy_frac", i);
		if (!b)
			return SIM_ENOMEM;
		interval_ns = b->n ? now - b->t[b->n - 1] : 0;
		double frac = interval_ns > 0 ? (double)(sofar - c->softirq_ns_sampled) / (double)interval_ns : 0;
		c->softirq_ns_sampled = sofar;
		busy_sum += frac;
		if (sim_series_append(b, now, frac))
			return SIM_ENOMEM;
		sim_series *w = sim_metrics_series(m, "idle.wakeups", i);
		if (!w || sim_series_append(w, now, (double)(c->idle_exits - c->idle_exits_sampled)))
			return SIM_ENOMEM;
		wake_sum += c->idle_exits - c->idle_exits_sampled;
		c->idle_exits_sampled = c->idle_exits;
	}
	if (RCUSIM_CHECKS_ON)
		check_conservation(k, qsum);
	if (ktr(k))
		ktrace_counter(k, now, qsum);
	sim_series *s;
	if (!(s = sim_metrics_series(m, "cb.qlen", -1)) || sim_series_append(s, now, (double)qsum) ||
	    !(s = sim_metrics_series(m, "softirq.busy_frac", -1)) ||
	    sim_series_append(s, now, busy_sum / k->mach.ncpus) ||
	    !(s = sim_metrics_series(m, "ksoftirqd.runnable", -1)) ||
	    sim_series_append(s, now, (double)ksd) || !(s = sim_metrics_series(m, "idle.wakeups", -1)) ||
	    sim_series_append(s, now, (double)wake_sum) || rf->sample(k->rcu.rsp, m, now))
		return SIM_ENOMEM;
	if ((k->kfree.on || k->kfree.by_call) && (!(s = sim_metrics_series(m, "mem.pending_bytes", -1)) ||
			    sim_series_append(s, now, (double)kfree_rcu_bytes(k))))
		return SIM_ENOMEM;
	if (k->obj_bytes && (!(s = sim_metrics_series(m, "mem.pending_bytes", -1)) ||
			     sim_series_append(s, now, (double)qsum * (double)k->obj_bytes)))
		return SIM_ENOMEM;
	return k->files.on ? kfiles_sample(k, now, loads_file_pending(k, qsum), err, errlen) : 0;
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

/* The rcuog and rcuo kthreads' scalars. 0 or nonzero (out of memory). */
static int nocb_kthreads_finish(const kmodel *k, sim_metrics *m, sim_time now)
{
	uint64_t w;
	sim_time cpu, wait;
	kthreads_sum(k->rcu.rcuog, k->rcu.nrcuog, now, &w, &cpu, &wait);
	int rc = sim_metrics_scalar(m, "rcuog.wakeups", (double)w);
	rc |= sim_metrics_scalar(m, "rcuog.cpu_ns", (double)cpu);
	rc |= sim_metrics_scalar(m, "rcuog.wait_max_ns", (double)wait);
	uint64_t invoked = 0;
	for (int i = 0; i < k->mach.ncpus; i++)
		invoked += k->rcu.rcuo[i].invoked;
	rc |= sim_metrics_scalar(m, "rcuo.invoked", (double)invoked);
	kthreads_sum(k->rcu.rcuo, k->mach.ncpus, now, &w, &cpu, &wait);
	rc |= sim_metrics_scalar(m, "rcuo.wakeups", (double)w);
	rc |= sim_metrics_scalar(m, "rcuo.cpu_ns", (double)cpu);
	return rc | sim_metrics_scalar(m, "rcuo.wait_max_ns", (double)wait);
}

/* A softirq pass, rcuc or rcuo batch begun by the end invoked its callbacks
 * up to cb.last_at (count_invoked()). */
static sim_time kernel_horizon(const void *state, sim_time end)
{
	const kmodel *k = state;
	return k->rcu.cb.last_at > end ? k->rcu.cb.last_at : end;
}

static int kernel_finish(void *state, sim_time now, char *err, size_t errlen)
{
	kmodel *k = state;
	sim_metrics *m = k->h.m;
	const rcu_flavor *rf = k->rcu.ops;
	if (k->err) {
		snprintf(err, errlen, "kernel model: out of memory");
		return k->err;
	}
	uint64_t pending = 0, switches = 0;
	int64_t qlen_max = 0;
	/* Runs that ended by the end of the run (all events at or before it
	 * were dispatched; after a stop, only those before the last one). */
	uint64_t bound = sim_engine_completed(k->eng) ? UINT64_MAX : sim_engine_cur_seq(k->eng);
	for (int i = 0; i < k->mach.ncpus; i++)
		kcpu_settle(&k->cpu[i], now, bound, true);
	for (int i = 0; i < k->mach.ncpus; i++) {
		pending += (uint64_t)rf->qlen(k->rcu.rsp, i);
		switches += k->cpu[i].rq.nr_switches;
		if (rf->qlen_max(k->rcu.rsp, i) > qlen_max)
			qlen_max = rf->qlen_max(k->rcu.rsp, i);
	}
	int rc = cb_stats_finish(&k->rcu.cb, m, now, pending, qlen_max);
	rc |= rf->finish(k->rcu.rsp, m, now);
	rc |= sim_metrics_hist_scalars(m, "softirq.run", k->h.softirq_run, SIM_Q_P99 | SIM_Q_MAX);
	rc |= sim_metrics_hist_scalars(m, "softirq.irq_run", k->h.softirq_irq_run, SIM_Q_P99 | SIM_Q_MAX);
	rc |= sim_metrics_scalar(m, "softirq.ksoftirqd_wakeups", (double)k->cnt.ksd_wakeups);
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
		rc |= sim_metrics_scalar(m, "softirq.ksoftirqd_wait_max_ns", (double)ksd_wait);
	rc |= sim_metrics_hist_scalars(m, "softirq.ksoftirqd_wait", k->h.ksd_wait, SIM_Q_P50 | SIM_Q_P99);
	rc |= sim_metrics_scalar(m, "sched.ctxsw", (double)switches);
	rc |= kbg_finish(k, m);
	rc |= sim_metrics_scalar(m, "idle.entries", (double)k->cnt.idle_entries);
	rc |= sim_metrics_scalar(m, "idle.exits", (double)k->cnt.idle_exits);
	if (now > 0)
		rc |= sim_metrics_scalar(m, "idle.exits_per_cpu_s",
					 (double)k->cnt.idle_exits / k->mach.ncpus / ((double)now / 1e9));
	rc |= sim_metrics_scalar(m, "tick.taken", (double)k->cnt.ticks_taken);
	rc |= sim_metrics_scalar(m, "tick.stopped", (double)k->cnt.ticks_stopped);
	if (k->mach.nfull) {
		rc |= sim_metrics_scalar(m, "tick.stopped_busy", (double)k->cnt.ticks_stopped_busy);
		rc |= sim_metrics_scalar(m, "tick.forced_rcu", (double)k->cnt.ticks_forced);
		rc |= sim_metrics_scalar(m, "tick.remote", (double)k->cnt.ticks_remote);
	}
	rc |= sim_metrics_scalar(m, "sched.wait_max_ns", (double)k->cnt.wait_max);
	rc |= sim_metrics_scalar(m, "ipi.resched_sent", (double)k->cnt.ipis);
	rc |= sim_metrics_scalar(m, "softirq.runs_irq_exit", (double)k->cnt.runs[RUN_IRQ_EXIT]);
	rc |= sim_metrics_scalar(m, "softirq.runs_trap_return", (double)k->cnt.runs[RUN_TRAP_RETURN]);
	rc |= sim_metrics_scalar(m, "softirq.runs_ksoftirqd", (double)k->cnt.runs[RUN_KSOFTIRQD]);
	rc |= sim_metrics_scalar(m, "softirq.passes_irq_exit", (double)k->cnt.passes[RUN_IRQ_EXIT]);
	rc |= sim_metrics_scalar(m, "softirq.passes_trap_return",
				 (double)k->cnt.passes[RUN_TRAP_RETURN]);
	rc |= sim_metrics_scalar(m, "softirq.passes_ksoftirqd", (double)k->cnt.passes[RUN_KSOFTIRQD]);
	rc |= sim_metrics_scalar(m, "softirq.runs_ended_empty", (double)k->cnt.run_stops[RUN_STOP_EMPTY]);
	rc |= sim_metrics_scalar(m, "softirq.runs_ended_restart_limit",
				 (double)k->cnt.run_stops[RUN_STOP_RESTART]);
	rc |= sim_metrics_scalar(m, "softirq.runs_ended_time_budget",
				 (double)k->cnt.run_stops[RUN_STOP_BUDGET]);
	rc |= sim_metrics_scalar(m, "softirq.runs_ended_need_resched",
				 (double)k->cnt.run_stops[RUN_STOP_RESCHED]);
	if (k->rcu.gpk) {
		const kthread *g = k->rcu.gpk;
		sim_time wait = g->wait_max;
		if (g->waiting && g->woken <= now) { /* still waiting at the end */
			sim_hist_add(g->wait_hist, (uint64_t)(now - g->woken));
			if (now - g->woken > wait)
				wait = now - g->woken;
		}
		rc |= sim_metrics_scalar(m, "gp.kthread_wakeups", (double)g->wakeups);
		rc |= sim_metrics_scalar(m, "gp.kthread_wait_max_ns", (double)wait);
		rc |= sim_metrics_hist_scalars(m, "gp.kthread_wait", g->wait_hist, SIM_Q_P50 | SIM_Q_P99);
		rc |= sim_metrics_scalar(m, "gp.kthread_cpu_ns", (double)g->cpu_ns);
		if (g->unbound) {
			rc |= sim_metrics_scalar(m, "gp.kthread_migrations", (double)g->migrations);
			rc |= sim_metrics_scalar(m, "gp.kthread_remote_wakeups", (double)g->remote_wakes);
			rc |= sim_metrics_scalar(m, "gp.kthread_on_waker", (double)g->on_waker);
		}
		rc |= sim_metrics_scalar(m, "fqs.resched_cpu", (double)k->rcu.resched_ipis);
	}
	if (k->rcu.preempt_rcu && k->sched.cfg.class == &sched_fair_class)
		rc |= sim_metrics_scalar(m, "kernel.readers_boosted", (double)k->rcu.readers_boosted);
	if (k->rcu.rcuc) {
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
		rc |= sim_metrics_scalar(m, "rcuc.wakeups", (double)wakeups);
		rc |= sim_metrics_scalar(m, "rcuc.wait_max_ns", (double)wait);
		rc |= sim_metrics_scalar(m, "rcuc.cpu_ns", (double)cpu_ns);
		rc |= sim_metrics_hist_scalars(m, "rcuc.run", k->rcu.rcuc_run, SIM_Q_P99 | SIM_Q_MAX);
	}
	if (k->rcu.nocb)
		rc |= nocb_kthreads_finish(k, m, now);
	rc |= rcu_exp_finish(k, m);
	rc |= rcu_barrier_finish(k, m);
	if (k->rcu.srs) {
		rc |= sim_metrics_scalar(m, "syncrcu.woken_by_gp_kthread", (double)k->rcu.srs_woken_gp);
		rc |= sim_metrics_scalar(m, "syncrcu.woken_by_kworker", (double)k->rcu.srs_woken_wq);
		rc |= sim_metrics_scalar(m, "syncrcu.wait_heads_exhausted", (double)k->rcu.srs_no_head);
	}
	rc |= kfree_rcu_finish(k, m);
	if (k->obj_bytes)
		rc |= sim_metrics_scalar(m, "mem.pending_bytes_max", (double)k->rcu.cb.qtotal.max * (double)k->obj_bytes);
	if (k->files.on)
		rc |= kfiles_finish(k, m);
	rc |= loads_finish(k, m);
	if (rc) {
		snprintf(err, errlen, "kernel model: out of memory");
		return SIM_ENOMEM;
	}
	/* The timeline last: everything the end settled is in it, and a
	 * trace that could not be written leaves the results recorded (the
	 * caller's rcusim_trace_fail says why). */
	ktrace_close(k, now);
	if (k->files.on && (rc = kfiles_check(k, (uint64_t)loads_file_pending(k, (int64_t)pending), err, errlen)))
		return rc;
	return cb_stats_check(&k->rcu.cb, pending, err, errlen);
}

static bool kernel_runs(const char *kind)
{
	return workload_find(kind) != NULL;
}

/* The kernel's own knobs, whatever runs: softirqs (softirq.c), with
 * deferral to ksoftirqd read only from irq_exit. */
static const sim_knob machine_knob[] = {
	{ P_SOFTIRQ_DEFER_TO_KSOFTIRQD, { P_SOFTIRQ_IN_IRQ_EXIT, "yes", NULL } },
	/* background.c reads its rates and cost only when it is on. */
	{ P_BACKGROUND_TIMER_TICKS, { P_MACHINE_BACKGROUND, "yes", NULL } },
	{ P_BACKGROUND_WAKEUPS, { P_MACHINE_BACKGROUND, "yes", NULL } },
	{ P_BACKGROUND_WAKEUP_COST, { P_MACHINE_BACKGROUND, "yes", NULL } },
	{ P_BACKGROUND_IRQS, { P_MACHINE_BACKGROUND, "yes", NULL } },
	{ P_MACHINE_IDLE_WAKE_LATENCY, SIM_ALWAYS },
};
static const sim_knobs machine_knobs = { SIM_ALWAYS, machine_knob,
					 sizeof(machine_knob) / sizeof(machine_knob[0]) };
/* What workload_create() reads for every kind it runs. */
static const sim_knob kworkload_knob[] = {
	{ P_WORKLOAD_JOBS, SIM_ALWAYS },
	{ P_WORKLOAD_CPUS, SIM_ALWAYS },
};
static const sim_knobs kworkload_knobs = {
	{ P_WORKLOAD_KIND, "!queue", "a kernel workload (not queue)" }, kworkload_knob,
	sizeof(kworkload_knob) / sizeof(kworkload_knob[0])
};

/* The kernel model's parts, in order: the schedulers, softirqs, the file
 * table, the injected fault, the RCU flavors (rcu.c's table), the
 * workload, each kind (workload.c's table). */
static size_t kernel_knobs(const sim_knobs **out, size_t max)
{
	size_t n = 0;
	assert(max >= 6);
	out[n++] = &sched_o1_knobs;
	out[n++] = &sched_eevdf_knobs;
	out[n++] = &machine_knobs;
	out[n++] = &kfiles_knobs;
	out[n++] = &kfault_knobs;
	n += rcu_flavors_knobs(out + n, max - n - 1);
	out[n++] = &kworkload_knobs;
	n += workloads_knobs(out + n, max - n);
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
	if (rc || (rc = sched_validate(p, err, errlen)))
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
