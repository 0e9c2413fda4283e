/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kernel.c - the machine and kernel between call_rcu() and the callback:
 * per-CPU timer ticks (update_process_times: rcu_check_callbacks, then
 * scheduler_tick), irq_exit running softirqs (__do_softirq, at most
 * MAX_SOFTIRQ_RESTART passes, then wakeup_softirqd), ksoftirqd at nice 19
 * looping do_softirq/cond_resched, reschedule IPIs, the O(1) scheduler
 * (models/sched.c) and classic RCU (models/rcu.c); and the callrcu
 * workload: CPU-hog jobs that call call_rcu from short system calls.
 * Kernel sources: kernel/timer.c, kernel/softirq.c, kernel/sched.c,
 * kernel/rcupdate.c of 2.6.14-2.6.16.
 *
 * Events: one per tick per CPU, one per softirq run (irq_exit or one
 * do_softirq call of ksoftirqd), one per IPI or device interrupt. Work done
 * in bulk is computed at once with exact times:
 *  - a job's call_rcu calls form a Poisson process in its own CPU time; the
 *    calls of a stretch of running are applied at the stretch's end (the
 *    next tick, interrupt or switch), each with its exact time; what a call
 *    triggers (need_resched, the watermark's IPIs) takes effect then, at
 *    most one tick late;
 *  - a softirq run is committed when it starts: each callback's invocation
 *    time is the run's start plus the pass and callback costs before it.
 *    Timer ticks that land in a run lengthen it by their cost but do not
 *    move the invocation times already recorded (an error below one tick
 *    cost per tick, ~0.2% of the run at HZ 1000);
 *  - whether a tick lands in user or kernel mode is a Bernoulli draw with
 *    the job's share of CPU time in system calls.
 * CPU costs are given at full core speed and 1.2 GHz and stretched by the
 * core's clock and by how many hardware threads of the core are busy when
 * the activity starts (machine.smt_slowdown).
 * Left out: load balancing, the _bh flavour of RCU, nohz, CPU hotplug,
 * softirqs other than the RCU tasklet and (optional) device interrupts'
 * own softirq work; ticks arriving while a CPU is in softirq do only their
 * hardirq part (as in the kernel: in_interrupt() stops irq_exit).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "rcu.h"
#include "sched.h"

#define REF_CLOCK_HZ 1.2e9 /* the clock at which every *_cost is given */

typedef struct kcpu kcpu;

typedef struct job {
	sched_task task;        /* its scheduling state; task.owner = this */
	double next_call_work;  /* ns of its CPU work until its next call_rcu */
} job;

/* What a softirq run is doing the work for. */
typedef enum run_ctx { RUN_IRQ_EXIT, RUN_KSOFTIRQD } run_ctx;

struct kcpu {
	struct kmodel *k;       /* the model */
	int id, core;           /* CPU number, core number */
	sched_rq rq;            /* runqueue */
	sched_task ksoftirqd;   /* this CPU's ksoftirqd */
	rcu_data rdp;           /* RCU per-CPU data */
	sim_timer tick;         /* next timer interrupt */
	sim_timer done;         /* end of the softirq run in progress */
	sim_timer ipi;          /* a reschedule IPI on its way */
	sim_timer irq;          /* next device interrupt */
	sim_rng *rng_work;      /* stream "workload.callrcu", this CPU */
	sim_rng *rng_mode;      /* stream "kernel.tick_mode", this CPU */
	sim_rng *rng_irq;       /* stream "irq.device", this CPU */

	bool busy;              /* counted in its core's busy threads */
	sim_time seg_start;     /* ns: the running job's unaccounted CPU time starts here */
	bool need_resched;      /* TIF_NEED_RESCHED */
	bool softirq_pending;   /* the RCU tasklet is raised */
	bool in_softirq;        /* a softirq run is in progress, ends at done */
	run_ctx run_ctx;        /* whose run */
	sim_time run_start;     /* ns: start of the run in progress */
	bool run_more;          /* the run left callbacks ready (tasklet re-raised) */
	bool ksd_runnable;      /* ksoftirqd is on the runqueue */
	sim_time ksd_woken;     /* ns: when ksoftirqd was last woken */
	bool ksd_waiting;       /* woken and not yet run */
	sim_time softirq_ns;    /* ns spent in softirq runs, completed ones */
	sim_time softirq_ns_sampled; /* softirq_ns + partial run, at the last sample */
	int64_t jobs;           /* jobs on this CPU */
};

typedef struct kmodel {
	sim_engine *eng;        /* the run's engine */
	sim_metrics *m;         /* results */
	int ncpus, ncores, tpc; /* CPUs, cores, threads per core */
	kcpu *cpu;              /* per CPU */
	int *core_busy;         /* busy threads per core */
	double smt_slowdown;    /* machine.smt_slowdown */
	double clock_scale;     /* REF_CLOCK_HZ / machine.clock */
	sim_time tick_ns;       /* ns between ticks */
	sched_cfg sched;        /* scheduler constants */
	rcu_cfg rcu;            /* policy and knobs */
	rcu_ctrlblk rcp;        /* the global RCU state */
	int max_restart;        /* softirq.max_restart */
	sim_time softirq_time_limit; /* ns, 0 = none */
	/* costs at full core speed and 1.2 GHz, ns */
	sim_time tick_cost, irq_cost, pass_cost, tasklet_cost, cb_cost, ctxsw_cost;
	double irq_rate;        /* device interrupts per second per CPU */
	/* workload */
	job *jobs;              /* all jobs */
	int64_t njobs;
	double call_rate;       /* call_rcu per ns of job CPU work */
	double p_kernel;        /* share of job CPU time in system calls */
	/* measurements */
	uint64_t enqueued, invoked;
	sim_tavg qtotal;        /* machine-wide queued callbacks */
	sim_hist *lat;          /* call_rcu to invocation, ns */
	sim_hist *run;          /* softirq run lengths, ns */
	sim_hist *gp;           /* grace periods, ns */
	uint64_t ksd_wakeups;   /* wakeup_softirqd() that woke it */
	int64_t ksd_wait_max;   /* ns */
	int64_t wait_max;       /* ns: longest runnable wait of any task */
	uint64_t ipis;          /* reschedule IPIs sent */
	int err;                /* first failure inside a handler */
} kmodel;

static void kfail(kmodel *k, int rc)
{
	if (!k->err)
		k->err = rc;
	sim_engine_fail(k->eng, rc);
}

/* ---- machine ------------------------------------------------------------ */

/* Wall-clock ns that @cost_ns of work at full speed takes on @c now. */
static sim_time stretch(const kcpu *c, sim_time cost_ns)
{
	const kmodel *k = c->k;
	int busy = k->core_busy[c->core] > 0 ? k->core_busy[c->core] : 1;
	double f = k->clock_scale * (1.0 + (busy - 1) * k->smt_slowdown);
	return (sim_time)llround((double)cost_ns * f);
}

/* Speed of @c's thread (work ns per wall ns) now. */
static double speed(const kcpu *c)
{
	const kmodel *k = c->k;
	int busy = k->core_busy[c->core] > 0 ? k->core_busy[c->core] : 1;
	return 1.0 / (k->clock_scale * (1.0 + (busy - 1) * k->smt_slowdown));
}

static void update_busy(kcpu *c)
{
	bool busy = c->rq.curr || c->in_softirq;
	if (busy != c->busy) {
		c->k->core_busy[c->core] += busy ? 1 : -1;
		c->busy = busy;
	}
}

static bool is_job(const kcpu *c, const sched_task *p)
{
	return p && p != &c->ksoftirqd;
}

/* ---- the callrcu workload ---------------------------------------------- */

static void send_ipis(kcpu *from, sim_time now);

/* The running job's calls since seg_start, applied now (each at its time). */
static void account_job(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	sched_task *p = c->rq.curr;
	if (!is_job(c, p) || now <= c->seg_start) {
		if (now > c->seg_start)
			c->seg_start = now;
		return;
	}
	job *j = p->owner;
	double s = speed(c);
	double work = (double)(now - c->seg_start) * s, used = 0;
	bool resched = false, ipis = false;
	while (k->call_rate > 0 && j->next_call_work <= work - used) {
		used += j->next_call_work;
		sim_time at = c->seg_start + (sim_time)(used / s);
		rcu_call_effect eff = { false, false };
		if (call_rcu(&k->rcu, &k->rcp, &c->rdp, at, &eff)) {
			kfail(k, SIM_ENOMEM);
			return;
		}
		k->enqueued++;
		sim_tavg_add_at(&k->qtotal, now, at, 1);
		resched |= eff.need_resched;
		ipis |= eff.send_ipis;
		j->next_call_work = sim_rng_exponential(c->rng_work, 1.0 / k->call_rate);
	}
	if (k->call_rate > 0)
		j->next_call_work -= work - used;
	c->seg_start = now;
	if (resched)
		c->need_resched = true;
	if (ipis)
		send_ipis(c, now);
}

/* ---- softirq runs ------------------------------------------------------- */

static void do_schedule(kcpu *c, sim_time now);

/* __do_softirq() from @ctx starting at @t: the RCU tasklet's list moves,
 * then up to max_restart passes of rcu_do_batch while it re-raises itself.
 * Commits the whole run and arms done at its end. */
static void softirq_run(kcpu *c, sim_time t, run_ctx ctx)
{
	kmodel *k = c->k;
	c->in_softirq = true;
	c->run_ctx = ctx;
	c->run_start = t;
	c->softirq_pending = false;
	update_busy(c);
	sim_time pass = stretch(c, k->pass_cost + k->tasklet_cost);
	sim_time cost = stretch(c, k->cb_cost);
	sim_time at = t;
	bool more = false;
	rcu_process_lists(&k->rcp, &c->rdp, t);
	for (int passes = 0; passes < k->max_restart; passes++) {
		at += pass;
		int64_t n = rcu_do_batch(&k->rcu, &c->rdp, at, cost, k->lat, &more);
		if (n) {
			/* The queue shrinks at each invocation time (at, at + cost,
			 * ...), all at or after now: count them until then. */
			sim_time now = sim_now(k->eng);
			sim_tavg_add_at(&k->qtotal, now, now, -n);
			k->qtotal.area += (__int128)n * (at - now) + (__int128)cost * n * (n - 1) / 2;
			k->invoked += (uint64_t)n;
			at += cost * n;
		}
		if (!more || (k->softirq_time_limit && at - t >= k->softirq_time_limit))
			break;
	}
	c->run_more = more;
	if (sim_timer_at(k->eng, &c->done, at))
		kfail(k, SIM_ENOMEM);
}

/* wakeup_softirqd(): wake this CPU's ksoftirqd if it sleeps. */
static void wakeup_softirqd(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	if (c->ksd_runnable)
		return;
	c->ksd_runnable = true;
	c->ksd_woken = now;
	c->ksd_waiting = true;
	k->ksd_wakeups++;
	if (sched_wake(&k->sched, &c->rq, &c->ksoftirqd, now))
		c->need_resched = true;
}

static void run_end(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	kmodel *k = c->k;
	sim_time now = sim_now(eng);
	sim_hist_add(k->run, (uint64_t)(now - c->run_start));
	c->softirq_ns += now - c->run_start;
	c->in_softirq = false;
	if (c->run_more)
		c->softirq_pending = true;
	if (c->run_ctx == RUN_IRQ_EXIT) {
		if (c->softirq_pending)
			wakeup_softirqd(c, now);
		update_busy(c);
		if (c->need_resched)
			do_schedule(c, now);
		else
			c->seg_start = now;
		return;
	}
	/* ksoftirqd: cond_resched() between do_softirq() calls; sleep when
	 * nothing is pending. */
	if (c->need_resched) {
		do_schedule(c, now);
	} else if (c->softirq_pending) {
		softirq_run(c, now, RUN_KSOFTIRQD);
	} else {
		sched_sleep(&c->rq, &c->ksoftirqd, now);
		c->ksd_runnable = false;
		do_schedule(c, now);
	}
}

/* irq_exit() at @t: run pending softirqs, else reschedule if asked. */
static void irq_exit(kcpu *c, sim_time t)
{
	if (c->softirq_pending)
		softirq_run(c, t, RUN_IRQ_EXIT);
	else if (c->need_resched)
		do_schedule(c, t);
	else
		c->seg_start = t;
}

/* ---- scheduling ---------------------------------------------------------- */

/* schedule() at @now: a quiescent state, then the O(1) pick. */
static void do_schedule(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	c->need_resched = false;
	rcu_qsctr_inc(&c->rdp);
	sched_task *prev = c->rq.curr;
	sched_task *next = sched_schedule(&k->sched, &c->rq, now);
	if (c->rq.last_wait_ns > k->wait_max)
		k->wait_max = c->rq.last_wait_ns;
	update_busy(c);
	sim_time t = now;
	if (next != prev)
		t += stretch(c, k->ctxsw_cost);
	if (next == &c->ksoftirqd) {
		if (c->ksd_waiting) {
			if (now - c->ksd_woken > k->ksd_wait_max)
				k->ksd_wait_max = now - c->ksd_woken;
			c->ksd_waiting = false;
		}
		if (c->softirq_pending || c->run_more) {
			softirq_run(c, t, RUN_KSOFTIRQD);
		} else {
			/* Woken but the work was done meanwhile: back to sleep. */
			sched_sleep(&c->rq, &c->ksoftirqd, t);
			c->ksd_runnable = false;
			do_schedule(c, t);
		}
		return;
	}
	c->seg_start = t;
}

/* ---- interrupts ----------------------------------------------------------- */

static void tick_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	kmodel *k = c->k;
	sim_time now = sim_now(eng);
	int64_t jiffies = now / k->tick_ns;
	if (sim_timer_after(eng, tm, k->tick_ns)) {
		kfail(k, SIM_ENOMEM);
		return;
	}
	if (c->in_softirq) {
		/* Hardirq part only: scheduler_tick charges curr; rcu_check_callbacks
		 * sees in_softirq() (no quiescent state); the run lasts longer. */
		if (sched_tick(&k->sched, &c->rq, jiffies))
			c->need_resched = true;
		if (sim_timer_at(eng, &c->done, c->done.when + stretch(c, k->tick_cost)))
			kfail(k, SIM_ENOMEM);
		return;
	}
	account_job(c, now);
	/* update_process_times(): rcu_check_callbacks() if rcu_pending(). */
	if (rcu_pending(&k->rcp, &c->rdp)) {
		bool user = is_job(c, c->rq.curr) && !sim_rng_bernoulli(c->rng_mode, k->p_kernel);
		bool idle = !c->rq.curr;
		if (user || idle)
			rcu_qsctr_inc(&c->rdp);
		c->softirq_pending = true;
	}
	if (sched_tick(&k->sched, &c->rq, jiffies))
		c->need_resched = true;
	irq_exit(c, now + stretch(c, k->tick_cost));
}

static void ipi_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	kmodel *k = c->k;
	sim_time now = sim_now(eng);
	c->need_resched = true;
	if (c->in_softirq) {
		if (sim_timer_at(eng, &c->done, c->done.when + stretch(c, k->irq_cost)))
			kfail(k, SIM_ENOMEM);
		return;
	}
	account_job(c, now);
	irq_exit(c, now + stretch(c, k->irq_cost));
}

static void send_ipis(kcpu *from, sim_time now)
{
	kmodel *k = from->k;
	for (int i = 0; i < k->ncpus; i++) {
		if (i == from->id || !rcu_cpu_in_mask(&k->rcp, i))
			continue;
		k->ipis++;
		kcpu *c = &k->cpu[i];
		if (!sim_timer_armed(&c->ipi) && sim_timer_at(k->eng, &c->ipi, now))
			kfail(k, SIM_ENOMEM);
	}
}

static void irq_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	kmodel *k = c->k;
	sim_time now = sim_now(eng);
	double gap = sim_rng_exponential(c->rng_irq, 1e9 / k->irq_rate);
	if (sim_timer_after(eng, tm, (sim_time)llround(gap))) {
		kfail(k, SIM_ENOMEM);
		return;
	}
	if (c->in_softirq) {
		if (sim_timer_at(eng, &c->done, c->done.when + stretch(c, k->irq_cost)))
			kfail(k, SIM_ENOMEM);
		return;
	}
	account_job(c, now);
	irq_exit(c, now + stretch(c, k->irq_cost));
}

/* ---- model table ----------------------------------------------------------- */

static void kernel_destroy(void *state)
{
	kmodel *k = state;
	if (!k)
		return;
	if (k->cpu)
		for (int i = 0; i < k->ncpus; i++) {
			rcu_data_fini(&k->cpu[i].rdp);
			sim_rng_destroy(k->cpu[i].rng_work);
			sim_rng_destroy(k->cpu[i].rng_mode);
			sim_rng_destroy(k->cpu[i].rng_irq);
		}
	rcu_ctrlblk_fini(&k->rcp);
	free(k->cpu);
	free(k->core_busy);
	free(k->jobs);
	free(k);
}

static int kernel_create(void **state, const model_env *env, char *err, size_t errlen)
{
	const sim_params *p = env->p;
	kmodel *k = calloc(1, sizeof(*k));
	*state = k;
	if (!k)
		goto nomem;
	k->eng = env->eng;
	k->m = env->m;
	k->ncores = (int)sim_params_int(p, P_MACHINE_CORES);
	k->tpc = (int)sim_params_int(p, P_MACHINE_THREADS_PER_CORE);
	k->ncpus = k->ncores * k->tpc;
	k->smt_slowdown = sim_params_real(p, P_MACHINE_SMT_SLOWDOWN);
	k->clock_scale = REF_CLOCK_HZ / sim_params_real(p, P_MACHINE_CLOCK);
	int hz = (int)sim_params_int(p, P_MACHINE_HZ);
	k->tick_ns = SIM_NS_PER_S / hz;
	sched_cfg_init(&k->sched, hz, sim_params_int(p, P_SCHED_DEF_TIMESLICE),
		       sim_params_is_auto(p, P_SCHED_MIN_TIMESLICE) ? -1
								: sim_params_int(p, P_SCHED_MIN_TIMESLICE),
		       sim_params_int(p, P_SCHED_STARVATION_LIMIT),
		       (int)sim_params_int(p, P_SCHED_MAX_BONUS));
	k->rcu = (rcu_cfg){
		.policy = (rcu_policy)sim_params_int(p, P_RCU_POLICY),
		.maxbatch = sim_params_int(p, P_RCU_MAXBATCH),
		.resched_over = sim_params_int(p, P_RCU_RESCHED_OVER),
		.blimit = sim_params_int(p, P_RCU_BLIMIT),
		.qhimark = sim_params_int(p, P_RCU_QHIMARK),
		.qlowmark = sim_params_int(p, P_RCU_QLOWMARK),
		.rsinterval = sim_params_int(p, P_RCU_RSINTERVAL),
		.reset_last_rs_qlen = sim_params_int(p, P_RCU_RESET_LAST_RS_QLEN) != 0,
	};
	k->max_restart = (int)sim_params_int(p, P_SOFTIRQ_MAX_RESTART);
	k->softirq_time_limit = sim_params_int(p, P_SOFTIRQ_TIME_LIMIT);
	k->tick_cost = sim_params_int(p, P_IRQ_TICK_COST);
	k->irq_cost = sim_params_int(p, P_IRQ_COST);
	k->pass_cost = sim_params_int(p, P_SOFTIRQ_PASS_COST);
	k->tasklet_cost = sim_params_int(p, P_RCU_TASKLET_COST);
	k->cb_cost = sim_params_int(p, P_RCU_CALLBACK_COST);
	k->ctxsw_cost = sim_params_int(p, P_SCHED_CTXSW_COST);
	k->irq_rate = sim_params_real(p, P_IRQ_RATE);
	k->njobs = sim_params_int(p, P_WORKLOAD_JOBS);
	k->call_rate = sim_params_real(p, P_WORKLOAD_CALLRCU_RATE) / 1e9;
	k->p_kernel = sim_params_real(p, P_WORKLOAD_CALLRCU_RATE) *
		      (double)sim_params_int(p, P_WORKLOAD_SYSCALL_COST) / 1e9;
	if (k->p_kernel >= 1) {
		char a[512];
		model_param_where(p, P_WORKLOAD_CALLRCU_RATE, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: %s x workload.syscall_cost (%s) is %.3g: a job would spend more than all "
			 "its time in system calls",
			 a, sim_params_text(p, P_WORKLOAD_CALLRCU_RATE),
			 sim_params_text(p, P_WORKLOAD_SYSCALL_COST), k->p_kernel);
		return RCUSIM_EINPUT;
	}
	sim_tavg_init(&k->qtotal, 0, 0);
	k->lat = sim_metrics_hist(env->m, "cb.latency_ns");
	k->run = sim_metrics_hist(env->m, "softirq.run_ns");
	k->gp = sim_metrics_hist(env->m, "gp.duration_ns");
	k->cpu = calloc((size_t)k->ncpus, sizeof(*k->cpu));
	k->core_busy = calloc((size_t)k->ncores, sizeof(*k->core_busy));
	k->jobs = calloc(k->njobs ? (size_t)k->njobs : 1, sizeof(*k->jobs));
	if (!k->lat || !k->run || !k->gp || !k->cpu || !k->core_busy || !k->jobs ||
	    rcu_ctrlblk_init(&k->rcp, k->ncpus))
		goto nomem;
	k->rcp.gp_hist = k->gp;
	int job_nice = (int)sim_params_int(p, P_SCHED_JOB_NICE);
	int ksd_nice = (int)sim_params_int(p, P_SCHED_KSOFTIRQD_NICE);
	for (int i = 0; i < k->ncpus; i++) {
		kcpu *c = &k->cpu[i];
		c->k = k;
		c->id = i;
		c->core = i / k->tpc;
		sched_rq_init(&c->rq);
		sched_task_init(&c->ksoftirqd, ksd_nice);
		if (rcu_data_init(&c->rdp, &k->rcu, i) ||
		    sim_rng_create(&c->rng_work, env->rng, env->seed, "workload.callrcu", (uint64_t)i) ||
		    sim_rng_create(&c->rng_mode, env->rng, env->seed, "kernel.tick_mode", (uint64_t)i) ||
		    sim_rng_create(&c->rng_irq, env->rng, env->seed, "irq.device", (uint64_t)i))
			goto nomem;
		sim_timer_init(env->eng, &c->tick, tick_fire, c);
		sim_timer_init(env->eng, &c->done, run_end, c);
		sim_timer_init(env->eng, &c->ipi, ipi_fire, c);
		sim_timer_init(env->eng, &c->irq, irq_fire, c);
	}
	/* Jobs round-robin over the CPUs: job j on CPU j mod ncpus. */
	for (int64_t j = 0; j < k->njobs; j++) {
		kcpu *c = &k->cpu[j % k->ncpus];
		job *jb = &k->jobs[j];
		sched_task_init(&jb->task, job_nice);
		jb->task.owner = jb;
		jb->next_call_work = k->call_rate > 0
					     ? sim_rng_exponential(c->rng_work, 1.0 / k->call_rate)
					     : 0;
		sched_add_runnable(&k->sched, &c->rq, &jb->task, 0);
		c->jobs++;
	}
	for (int i = 0; i < k->ncpus; i++) {
		kcpu *c = &k->cpu[i];
		c->rq.curr = NULL;
		do_schedule(c, 0);
		/* Ticks staggered over one period, as the CPUs' timers are. */
		if (sim_timer_at(env->eng, &c->tick, k->tick_ns * (i + 1) / k->ncpus))
			goto nomem;
		if (k->irq_rate > 0 &&
		    sim_timer_at(env->eng, &c->irq,
				 (sim_time)llround(sim_rng_exponential(c->rng_irq, 1e9 / k->irq_rate))))
			goto nomem;
	}
	return 0;
nomem:
	snprintf(err, errlen, "kernel model: out of memory");
	return SIM_ENOMEM;
}

static int kernel_sample(void *state, sim_time now)
{
	kmodel *k = state;
	sim_metrics *m = k->m;
	sim_time interval_ns = 0;
	int64_t qsum = 0, ksd = 0;
	double busy_sum = 0;
	for (int i = 0; i < k->ncpus; i++) {
		kcpu *c = &k->cpu[i];
		int64_t q = rcu_qlen(&c->rdp);
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
	}
	sim_series *s;
	if (!(s = sim_metrics_series(m, "cb.qlen", -1)) || sim_series_append(s, now, (double)qsum) ||
	    !(s = sim_metrics_series(m, "softirq.busy_frac", -1)) ||
	    sim_series_append(s, now, busy_sum / k->ncpus) ||
	    !(s = sim_metrics_series(m, "ksoftirqd.runnable", -1)) ||
	    sim_series_append(s, now, (double)ksd) ||
	    !(s = sim_metrics_series(m, "gp.completed", -1)) ||
	    sim_series_append(s, now, (double)k->rcp.gp_completed))
		return SIM_ENOMEM;
	return 0;
}

static int kernel_finish(void *state, sim_time now, char *err, size_t errlen)
{
	kmodel *k = state;
	sim_metrics *m = k->m;
	if (k->err) {
		snprintf(err, errlen, "kernel model: out of memory");
		return k->err;
	}
	uint64_t pending = 0, switches = 0;
	int64_t qlen_max = 0;
	for (int i = 0; i < k->ncpus; i++) {
		kcpu *c = &k->cpu[i];
		pending += (uint64_t)rcu_qlen(&c->rdp);
		switches += c->rq.nr_switches;
		if (c->rdp.qlen_max > qlen_max)
			qlen_max = c->rdp.qlen_max;
	}
	int rc = 0;
	rc |= sim_metrics_scalar(m, "cb.enqueued", (double)k->enqueued);
	rc |= sim_metrics_scalar(m, "cb.invoked", (double)k->invoked);
	rc |= sim_metrics_scalar(m, "cb.pending_end", (double)pending);
	rc |= sim_metrics_scalar(m, "cb.qlen_max", (double)qlen_max);
	rc |= sim_metrics_scalar(m, "cb.qlen_total_max", (double)k->qtotal.max);
	rc |= sim_metrics_scalar(m, "cb.qlen_total_mean", sim_tavg_mean(&k->qtotal, now));
	rc |= sim_metrics_hist_scalars(m, "cb.latency", k->lat,
				       SIM_Q_MEAN | SIM_Q_P50 | SIM_Q_P99 | SIM_Q_P999 | SIM_Q_MAX);
	rc |= sim_metrics_scalar(m, "gp.completed", (double)k->rcp.gp_completed);
	rc |= sim_metrics_hist_scalars(m, "gp.duration", k->gp, SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	rc |= sim_metrics_hist_scalars(m, "softirq.run", k->run, SIM_Q_P99 | SIM_Q_MAX);
	rc |= sim_metrics_scalar(m, "softirq.ksoftirqd_wakeups", (double)k->ksd_wakeups);
	/* A ksoftirqd still waiting at the end has waited at least this long. */
	int64_t ksd_wait = k->ksd_wait_max;
	for (int i = 0; i < k->ncpus; i++)
		if (k->cpu[i].ksd_waiting && now - k->cpu[i].ksd_woken > ksd_wait)
			ksd_wait = now - k->cpu[i].ksd_woken;
	if (k->ksd_wakeups)
		rc |= sim_metrics_scalar(m, "softirq.ksoftirqd_wait_max_ns", (double)ksd_wait);
	rc |= sim_metrics_scalar(m, "sched.ctxsw", (double)switches);
	rc |= sim_metrics_scalar(m, "sched.wait_max_ns", (double)k->wait_max);
	rc |= sim_metrics_scalar(m, "ipi.resched_sent", (double)k->ipis);
	if (rc) {
		snprintf(err, errlen, "kernel model: out of memory");
		return SIM_ENOMEM;
	}
	if (k->enqueued != k->invoked + pending || k->invoked != k->lat->count ||
	    (int64_t)pending != k->qtotal.value) {
		snprintf(err, errlen,
			 "conservation: cb.enqueued %llu != cb.invoked %llu + cb.pending_end %llu "
			 "(latencies %llu, queued total %lld)",
			 (unsigned long long)k->enqueued, (unsigned long long)k->invoked,
			 (unsigned long long)pending, (unsigned long long)k->lat->count,
			 (long long)k->qtotal.value);
		return RCUSIM_EFAIL;
	}
	return 0;
}

const model_ops callrcu_model = {
	.name = "callrcu",
	.create = kernel_create,
	.sample = kernel_sample,
	.finish = kernel_finish,
	.destroy = kernel_destroy,
};
