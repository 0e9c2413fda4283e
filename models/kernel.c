/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kernel.c - the kernel model's table (kernel_model: workloads callrcu,
 * openclose and make): creating the machine, its CPUs, jobs, RCU, file
 * table and filp slab from the parameters; sampling the series; and the
 * end-of-run scalars with the conservation checks. What each CPU does is
 * in kcpu.c, the jobs in workload.c (shared types in kernel_int.h).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_int.h"

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
	if (k->jobs)
		for (int64_t j = 0; j < k->njobs; j++) {
			free(k->jobs[j].files);
			free(k->jobs[j].held);
		}
	if (k->files)
		vfs_fini(&k->v);
	free(k->cpu);
	free(k->rq_store);
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
	k->in_irq_exit = sim_params_int(p, P_SOFTIRQ_IN_IRQ_EXIT) != 0;
	k->softirq_time_limit = sim_params_int(p, P_SOFTIRQ_TIME_LIMIT);
	k->tick_cost = sim_params_int(p, P_IRQ_TICK_COST);
	k->irq_cost = sim_params_int(p, P_IRQ_COST);
	k->pass_cost = sim_params_int(p, P_SOFTIRQ_PASS_COST);
	k->tasklet_cost = sim_params_int(p, P_RCU_TASKLET_COST);
	k->cb_cost = sim_params_int(p, P_RCU_CALLBACK_COST);
	k->ctxsw_cost = sim_params_int(p, P_SCHED_CTXSW_COST);
	k->irq_rate = sim_params_real(p, P_IRQ_RATE);
	k->njobs = sim_params_int(p, P_WORKLOAD_JOBS);
	const char *kind = sim_params_str(p, P_WORKLOAD_KIND);
	k->kind = !strcmp(kind, "make") ? WL_MAKE : !strcmp(kind, "openclose") ? WL_OPENCLOSE : WL_CALLRCU;
	k->files = k->kind != WL_CALLRCU;
	char a[512];
	if (k->kind == WL_CALLRCU) {
		k->call_rate = sim_params_real(p, P_WORKLOAD_CALLRCU_RATE) / 1e9;
		k->p_kernel = sim_params_real(p, P_WORKLOAD_CALLRCU_RATE) *
			      (double)sim_params_int(p, P_WORKLOAD_SYSCALL_COST) / 1e9;
		if (k->p_kernel >= 1) {
			model_param_where(p, P_WORKLOAD_CALLRCU_RATE, a, sizeof(a));
			snprintf(err, errlen,
				 "%s: %s x workload.syscall_cost (%s) is %.3g: a job would spend more than "
				 "all its time in system calls",
				 a, sim_params_text(p, P_WORKLOAD_CALLRCU_RATE),
				 sim_params_text(p, P_WORKLOAD_SYSCALL_COST), k->p_kernel);
			return RCUSIM_EINPUT;
		}
	} else if (k->kind == WL_OPENCLOSE) {
		k->call_rate = 1.0 / (double)sim_params_int(p, P_WORKLOAD_OPENCLOSE_PAIR_COST);
		k->p_kernel = 1.0 - sim_params_real(p, P_WORKLOAD_OPENCLOSE_USER_SHARE);
	} else {
		k->job_work = (double)sim_params_int(p, P_WORKLOAD_MAKE_JOB_CPU);
		/* Lognormal with mean job_work: zeta = ln(mean) - sigma^2 / 2. */
		k->work_sigma = sim_params_real(p, P_WORKLOAD_MAKE_JOB_CPU_SIGMA);
		k->work_zeta = log(k->job_work) - k->work_sigma * k->work_sigma / 2.0;
		k->held_per_job = (int)llround(sim_params_real(p, P_WORKLOAD_MAKE_LIVE_PROCS) *
					       (double)sim_params_int(p, P_WORKLOAD_MAKE_MAPPED_FILES));
		int64_t transient = sim_params_int(p, P_WORKLOAD_MAKE_OPENS_PER_JOB) - k->held_per_job;
		if (transient < 0) {
			model_param_where(p, P_WORKLOAD_MAKE_OPENS_PER_JOB, a, sizeof(a));
			snprintf(err, errlen,
				 "%s: must be at least make_live_procs x make_mapped_files (%d), got %s", a,
				 k->held_per_job, sim_params_text(p, P_WORKLOAD_MAKE_OPENS_PER_JOB));
			return RCUSIM_EINPUT;
		}
		k->call_rate = (double)transient / k->job_work;
		k->p_kernel = sim_params_real(p, P_WORKLOAD_MAKE_SYSTEM_SHARE);
		k->fail_share = sim_params_real(p, P_WORKLOAD_MAKE_OPEN_FAIL_SHARE);
		double med = (double)sim_params_int(p, P_WORKLOAD_MAKE_HOLD_MEDIAN);
		double mean = (double)sim_params_int(p, P_WORKLOAD_MAKE_HOLD_MEAN);
		if (mean < med) {
			model_param_where(p, P_WORKLOAD_MAKE_HOLD_MEAN, a, sizeof(a));
			snprintf(err, errlen, "%s: a lognormal's mean is at least its median (%s), got %s",
				 a, sim_params_text(p, P_WORKLOAD_MAKE_HOLD_MEDIAN),
				 sim_params_text(p, P_WORKLOAD_MAKE_HOLD_MEAN));
			return RCUSIM_EINPUT;
		}
		/* Lognormal: median e^zeta, mean e^(zeta + sigma^2 / 2). */
		k->hold_zeta = log(med);
		k->hold_sigma = sqrt(2.0 * log(mean / med));
	}
	const char *on = sim_params_str(p, P_WORKLOAD_ON_ENFILE);
	k->on_enfile = !strcmp(on, "fail") ? 0 : !strcmp(on, "retry") ? 1 : 2;
	k->retry_delay = sim_params_int(p, P_WORKLOAD_RETRY_DELAY);
	k->retry_max = sim_params_int(p, P_WORKLOAD_RETRY_MAX);
	k->reap_ns = sim_params_int(p, P_VFS_REAP_INTERVAL);
	k->reap_node_ns = sim_params_int(p, P_VFS_REAP_NODE_INTERVAL);
	if (k->files) {
		int64_t mem = sim_params_int(p, P_MACHINE_MEMORY), page = sim_params_int(p, P_MACHINE_PAGE_SIZE);
		int64_t max_files = sim_params_is_auto(p, P_VFS_MAX_FILES)
					    ? vfs_default_max_files(mem, page)
					    : sim_params_int(p, P_VFS_MAX_FILES);
		int64_t batch = k->ncpus >= 16 ? 2 * k->ncpus : 4 * k->ncpus;
		if (!sim_params_is_auto(p, P_VFS_PERCPU_BATCH))
			batch = sim_params_int(p, P_VFS_PERCPU_BATCH);
		slab_cfg sc = {
			.obj_size = sim_params_int(p, P_VFS_FILE_SIZE),
			.page_size = page,
			.mgmt = sim_params_int(p, P_VFS_SLAB_MGMT),
			.bufctl = sim_params_int(p, P_VFS_SLAB_BUFCTL),
			.ncpus = k->ncpus,
			.limit = sim_params_is_auto(p, P_VFS_ARRAY_LIMIT) ? 0 : (int)sim_params_int(p, P_VFS_ARRAY_LIMIT),
			.batchcount = sim_params_is_auto(p, P_VFS_ARRAY_BATCHCOUNT)
					      ? 0
					      : (int)sim_params_int(p, P_VFS_ARRAY_BATCHCOUNT),
			.shared_factor = (int)sim_params_int(p, P_VFS_SHARED_FACTOR),
		};
		if (slab_estimate(&sc) < 1) {
			model_param_where(p, P_VFS_FILE_SIZE, a, sizeof(a));
			snprintf(err, errlen, "%s: no object of %s fits a %s slab with its descriptor", a,
				 sim_params_text(p, P_VFS_FILE_SIZE), sim_params_text(p, P_MACHINE_PAGE_SIZE));
			return RCUSIM_EINPUT;
		}
		if (vfs_init(&k->v, (vfs_accounting)sim_params_int(p, P_VFS_ACCOUNTING), max_files, &sc, batch))
			goto nomem;
		k->next_node_reap = k->reap_node_ns;
	}
	sim_tavg_init(&k->qtotal, 0, 0);
	k->lat = sim_metrics_hist(env->m, "cb.latency_ns");
	k->run = sim_metrics_hist(env->m, "softirq.run_ns");
	k->gp = sim_metrics_hist(env->m, "gp.duration_ns");
	k->cpu = calloc((size_t)k->ncpus, sizeof(*k->cpu));
	k->rq_store = calloc((size_t)k->ncpus, sizeof(*k->rq_store));
	k->core_busy = calloc((size_t)k->ncores, sizeof(*k->core_busy));
	k->jobs = calloc(k->njobs ? (size_t)k->njobs : 1, sizeof(*k->jobs));
	if (!k->lat || !k->run || !k->gp || !k->cpu || !k->rq_store || !k->core_busy || !k->jobs ||
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
		sched_rq_init(&c->rq, &k->rq_store[i]);
		sched_task_init(&c->ksoftirqd, ksd_nice);
		if (rcu_data_init(&c->rdp, &k->rcu, i, k->files) ||
		    sim_rng_create(&c->rng_work, env->rng, env->seed, "workload.callrcu", (uint64_t)i) ||
		    sim_rng_create(&c->rng_mode, env->rng, env->seed, "kernel.tick_mode", (uint64_t)i) ||
		    sim_rng_create(&c->rng_irq, env->rng, env->seed, "irq.device", (uint64_t)i))
			goto nomem;
		sim_timer_init(env->eng, &c->done, kcpu_run_end, c);
		sim_timer_init(env->eng, &c->ipi, kcpu_ipi_fire, c);
		sim_timer_init(env->eng, &c->irq, kcpu_irq_fire, c);
		sim_timer_init(env->eng, &c->reap, kcpu_reap_fire, c);
		/* cache_reap starts HZ + 3 x cpu jiffies after boot (start_cpu_timer). */
		if (k->files && sim_timer_at(env->eng, &c->reap, SIM_NS_PER_S + 3 * i * k->tick_ns))
			goto nomem;
	}
	/* Jobs round-robin over the CPUs: job j on CPU j mod ncpus. */
	for (int64_t j = 0; j < k->njobs; j++) {
		kcpu *c = &k->cpu[j % k->ncpus];
		job *jb = &k->jobs[j];
		sched_task_init(&jb->task, job_nice);
		jb->task.owner = jb;
		jb->cpu = c;
		sim_timer_init(env->eng, &jb->wake, job_wake_fire, jb);
		if (k->held_per_job && !(jb->held = malloc((size_t)k->held_per_job * sizeof(*jb->held))))
			goto nomem;
		jb->next_call_work = k->call_rate > 0
					     ? sim_rng_exponential(c->rng_work, 1.0 / k->call_rate)
					     : 0;
		if (k->kind == WL_MAKE)
			jb->work = job_compile_work(c);
		sched_add_runnable(&k->sched, &c->rq, &jb->task, 0);
		c->jobs++;
	}
	for (int i = 0; i < k->ncpus; i++) {
		kcpu *c = &k->cpu[i];
		c->rq.curr = NULL;
		kcpu_schedule(c, 0);
		/* Ticks staggered over one period, as the CPUs' timers are. */
		c->tick_when = k->tick_ns * (i + 1) / k->ncpus;
		c->tick_seq = sim_engine_reserve_seq(env->eng);
		if (k->irq_rate > 0 &&
		    sim_timer_at(env->eng, &c->irq,
				 (sim_time)llround(sim_rng_exponential(c->rng_irq, 1e9 / k->irq_rate))))
			goto nomem;
	}
	if (sim_timer_init(env->eng, &k->tick, kcpu_tick_fire, k) || kcpu_arm_tick(k, 0))
		goto nomem;
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
		kcpu_settle(c, now, sim_engine_cur_seq(k->eng), true);
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
	if (!k->files)
		return 0;
	const slab_cache *sc = &k->v.filp;
	int64_t pinned = slab_pinned_free(sc), slots = slab_total_slots(sc);
	if (slots && (k->frag_max_den == 0 ||
		      (__int128)pinned * k->frag_max_den > (__int128)k->frag_max_num * slots)) {
		k->frag_max_num = pinned;
		k->frag_max_den = slots;
	}
	if (!(s = sim_metrics_series(m, "vfs.nr_files", -1)) ||
	    sim_series_append(s, now, (double)vfs_nr_files(&k->v)) ||
	    !(s = sim_metrics_series(m, "mem.pending_bytes", -1)) ||
	    sim_series_append(s, now, (double)qsum * (double)sc->cfg.obj_size) ||
	    !(s = sim_metrics_series(m, "slab.pages", -1)) ||
	    sim_series_append(s, now, (double)sc->nslabs) ||
	    !(s = sim_metrics_series(m, "slab.fragmentation", -1)) ||
	    sim_series_append(s, now, slots ? (double)pinned / (double)slots : 0))
		return SIM_ENOMEM;
	/* Slab accounting counts every slot: never fewer than the files that
	 * exist (live or waiting for their grace period). */
	if (k->v.acct == VFS_ACCT_SLAB && k->v.nr_slab < k->v.live + k->v.pending)
		return RCUSIM_EFAIL;
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
	/* Runs that ended by the end of the run (all events at or before it
	 * were dispatched; after a stop, only those before the last one). */
	uint64_t bound = sim_engine_completed(k->eng) ? UINT64_MAX : sim_engine_cur_seq(k->eng);
	for (int i = 0; i < k->ncpus; i++)
		kcpu_settle(&k->cpu[i], now, bound, true);
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
	if (k->files) {
		const vfs *v = &k->v;
		rc |= sim_metrics_scalar(m, "vfs.opens", (double)k->opens);
		rc |= sim_metrics_scalar(m, "vfs.closes", (double)k->closes);
		rc |= sim_metrics_scalar(m, "vfs.open_end", (double)v->live);
		rc |= sim_metrics_scalar(m, "vfs.open_failures", (double)v->refused);
		rc |= sim_metrics_scalar(m, "vfs.nr_files_max", (double)v->nr_max);
		rc |= sim_metrics_scalar(m, "vfs.nr_files_end", (double)vfs_nr_files(v));
		rc |= sim_metrics_scalar(m, "vfs.max_files", (double)v->max_files);
		if (v->first_refusal >= 0)
			rc |= sim_metrics_scalar(m, "vfs.file_max_reached_ns", (double)v->first_refusal);
		rc |= sim_metrics_scalar(m, "mem.pending_bytes_max",
					 (double)k->qtotal.max * (double)v->filp.cfg.obj_size);
		rc |= sim_metrics_scalar(m, "slab.pages_max", (double)v->filp.nslabs_max);
		if (k->frag_max_den)
			rc |= sim_metrics_scalar(m, "slab.fragmentation_max",
						 (double)k->frag_max_num / (double)k->frag_max_den);
		rc |= sim_metrics_scalar(m, "slab.grown", (double)v->filp.grown);
		rc |= sim_metrics_scalar(m, "slab.destroyed", (double)v->filp.destroyed);
		if (k->kind == WL_MAKE) {
			rc |= sim_metrics_scalar(m, "vfs.enoent", (double)k->enoent);
			rc |= sim_metrics_scalar(m, "make.jobs_done", (double)k->jobs_done);
			rc |= sim_metrics_scalar(m, "make.jobs_failed", (double)k->jobs_failed);
		}
		rc |= sim_metrics_scalar(m, "make.retries", (double)k->retries);
	}
	if (rc) {
		snprintf(err, errlen, "kernel model: out of memory");
		return SIM_ENOMEM;
	}
	if (k->files && (k->opens != k->closes + (uint64_t)k->v.live ||
			 (uint64_t)k->v.pending != pending)) {
		snprintf(err, errlen,
			 "conservation: vfs.opens %llu != vfs.closes %llu + vfs.open_end %lld "
			 "(files pending %lld, callbacks pending %llu)",
			 (unsigned long long)k->opens, (unsigned long long)k->closes,
			 (long long)k->v.live, (long long)k->v.pending, (unsigned long long)pending);
		return RCUSIM_EFAIL;
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

const model_ops kernel_model = {
	.name = "callrcu, make, openclose",
	.create = kernel_create,
	.sample = kernel_sample,
	.finish = kernel_finish,
	.destroy = kernel_destroy,
};
