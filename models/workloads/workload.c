/* SPDX-License-Identifier: GPL-3.0-or-later */
/* workload.c - the table of workload kinds (workload.h).
 * Loads, not kernel code; each kind names the kernel it was measured on. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "fs/files.h"
#include "kernel/kernel.h"

/* Every kind (its file, workloads/KIND.c, defines KIND_workload); params.def's
 * workload.kind lists their names. */
extern const workload_ops callrcu_workload, openclose_workload, make_workload, syncrcu_workload,
	exitflood_workload, fwdprog_workload, kfree_workload, trace_workload;
static const workload_ops *const workloads[] = { &callrcu_workload, &openclose_workload,
						 &make_workload, &syncrcu_workload,
						 &exitflood_workload, &fwdprog_workload,
						 &kfree_workload, &trace_workload };
#define NWORKLOADS (sizeof(workloads) / sizeof(workloads[0]))

const workload_ops *workload_find(const char *kind)
{
	for (size_t i = 0; i < NWORKLOADS; i++)
		if (!strcmp(workloads[i]->kind, kind))
			return workloads[i];
	return NULL;
}

const char *workload_kinds(void)
{
	static char buf[256];
	if (!buf[0])
		for (size_t i = 0; i < NWORKLOADS; i++) {
			if (i)
				strcat(buf, ", ");
			strcat(buf, workloads[i]->kind);
		}
	return buf;
}

size_t workloads_knobs(const sim_knobs **out, size_t max)
{
	assert(max >= NWORKLOADS);
	for (size_t i = 0; i < NWORKLOADS; i++)
		out[i] = workloads[i]->knobs;
	return NWORKLOADS;
}

/* ---- several loads ------------------------------------------------------- */

/* Build load @w from @p (the scenario's values, or a named load's view
 * of them): its kind's settings, its CPUs (workload.cpus), its jobs'
 * array. @name is NULL for [workload]. 0, SIM_EINPUT or SIM_ENOMEM. */
static int load_create(kmodel *k, kworkload *w, const sim_params *p, const char *name, char *err,
		       size_t errlen)
{
	w->k = k;
	w->name = name;
	w->ops = workload_find(sim_params_text(p, P_WORKLOAD_KIND));
	assert(w->ops); /* rcusim_validate() checked */
	w->njobs = sim_params_int(p, P_WORKLOAD_JOBS);
	const char *on = sim_params_text(p, P_WORKLOAD_ON_ENFILE);
	w->on_enfile = !strcmp(on, "fail") ? 0 : !strcmp(on, "retry") ? 1 : 2;
	w->retry_delay = sim_params_int(p, P_WORKLOAD_RETRY_DELAY);
	w->retry_max = sim_params_int(p, P_WORKLOAD_RETRY_MAX);
	w->reader_share = sim_params_real(p, P_WORKLOAD_READER_SHARE);
	w->reader_len = (double)sim_params_int(p, P_WORKLOAD_READER_LEN);
	w->kstretch_sigma = sim_params_real(p, P_WORKLOAD_KSTRETCH_SIGMA);
	if (name && sim_metrics_create(&w->m))
		return SIM_ENOMEM;
	if (!name)
		w->m = k->h.m;
	int rc = w->ops->create(w, p, err, errlen);
	if (rc)
		return rc;
	if (w->ops->holds_objects)
		w->obj_bytes = sim_params_is_auto(p, P_WORKLOAD_OBJECT_SIZE) ? 64
									 : sim_params_int(p, P_WORKLOAD_OBJECT_SIZE);
	if (strcmp(sim_params_text(p, P_WORKLOAD_CPUS), "all")) {
		char why[256];
		if (!(w->cpus = malloc((size_t)k->mach.ncpus * sizeof(*w->cpus))))
			return SIM_ENOMEM;
		rc = sim_cpulist_parse_distinct(sim_params_text(p, P_WORKLOAD_CPUS), k->mach.ncpus, w->cpus,
						&w->ncpus, why, sizeof(why));
		assert(!rc); /* loads_validate() checked */
	}
	/* Cache-line aligned, as struct job asks (a multiple of its size). */
	size_t n = w->njobs ? (size_t)w->njobs : 1;
	if (n > SIZE_MAX / sizeof(*w->jobs) || !(w->jobs = aligned_alloc(_Alignof(job), n * sizeof(*w->jobs))))
		return SIM_ENOMEM;
	memset(w->jobs, 0, n * sizeof(*w->jobs));
	return 0;
}

int loads_create(kmodel *k, const sim_params *p, char *err, size_t errlen)
{
	int rc = load_create(k, &k->wl, p, NULL, err, errlen);
	size_t nl = sim_params_nloads(p);
	if (!rc && nl && !(k->more = calloc(nl, sizeof(*k->more))))
		rc = SIM_ENOMEM;
	int64_t first = k->wl.njobs;
	for (size_t i = 0; i < nl && !rc; i++) {
		sim_params *v;
		kworkload *w = &k->more[i];
		k->nmore++;
		w->tag = (uint32_t)(i + 1) << LOAD_TAG_SHIFT;
		w->first = first;
		if ((rc = sim_params_load_view(p, i, &v)))
			break;
		rc = load_create(k, w, v, sim_params_load_name(p, i), err, errlen);
		sim_params_destroy(v);
		first += w->njobs;
	}
	k->files.on = false;
	for_each_load(k, w)
		k->files.on |= w->ops->frees_files || w->opens_files;
	return rc;
}

void loads_destroy(kmodel *k)
{
	for_each_load(k, w) {
		if (w->jobs)
			for (int64_t j = 0; j < w->njobs; j++) {
				free(w->jobs[j].files);
				free(w->jobs[j].held);
			}
		if (w->ops && w->ops->destroy)
			w->ops->destroy(w);
		if (w->name)
			sim_metrics_destroy(w->m);
		free(w->cpus);
		free(w->jobs);
	}
	free(k->more);
}

int loads_jobs_create(kmodel *k, const sim_params *p)
{
	int job_nice = (int)sim_params_int(p, P_SCHED_JOB_NICE);
	for_each_load(k, w) {
		int n = w->ncpus ? w->ncpus : k->mach.ncpus;
		for (int64_t j = 0; j < w->njobs; j++) {
			int at = w->ops->job_cpu ? w->ops->job_cpu(w, j, n) : (int)(j % n);
			kcpu *c = &k->cpu[w->ncpus ? w->cpus[at] : at];
			job *jb = &w->jobs[j];
			sched_task_init(&k->sched.cfg, &jb->task, job_nice);
			jb->task.owner = jb;
			/* Every load's jobs are one session's autogroup (sched.autogroup). */
			if (k->sched.cfg.tg && sched_eevdf_join_group(&c->rq, &jb->task))
				return SIM_ENOMEM;
			jb->cpu = c;
			jb->wl = w;
			sim_timer_init(k->eng, &jb->wake, kcpu_job_wake_fire, jb);
			jb->next_call_work = w->call_rate > 0
						     ? sim_rng_exponential(c->rng_work, 1.0 / w->call_rate)
						     : 0;
			if (w->ops->job_start && w->ops->job_start(k, c, jb))
				return SIM_ENOMEM;
			if (!jb->sleeping && sched_add_runnable(&k->sched.cfg, &c->rq, &jb->task, 0))
				return SIM_ENOMEM;
			c->jobs++;
		}
	}
	return 0;
}

/* A run of @n objects of load @w, their tags cleared, to its function. */
static void load_invoke(kmodel *k, kworkload *w, int cpu, const uint32_t *objs, size_t n,
			sim_time first_ns, sim_time cost_ns)
{
	uint32_t buf[256];
	bool files = w->ops->frees_files || w->opens_files;
	w->invoked += n;
	if (!files && !w->ops->invoke)
		return; /* its callbacks free nothing the model tracks */
	for (size_t at = 0; at < n; at += sizeof(buf) / sizeof(buf[0])) {
		size_t m = n - at < sizeof(buf) / sizeof(buf[0]) ? n - at : sizeof(buf) / sizeof(buf[0]);
		for (size_t i = 0; i < m; i++)
			buf[i] = objs[at + i] & ~LOAD_TAG_MASK;
		sim_time t = first_ns + (sim_time)at * cost_ns;
		if (files)
			file_free_rcu(k, cpu, buf, m, t, cost_ns);
		else
			w->ops->invoke(w, cpu, buf, m, t, cost_ns);
	}
}

/* The callbacks of several loads: each run of one load's objects (their
 * tag, kworkload.tag) to that load's function. */
static void loads_invoke(void *ctx, int cpu, const uint32_t *objs, size_t n, sim_time first_ns,
			 sim_time cost_ns)
{
	kmodel *k = ctx;
	for (size_t i = 0; i < n;) {
		uint32_t tag = objs[i] & LOAD_TAG_MASK;
		size_t e = i + 1;
		while (e < n && (objs[e] & LOAD_TAG_MASK) == tag)
			e++;
		if (tag == LOAD_TAG_BACKGROUND) { /* the box's own: they free nothing tracked */
			k->bg.cb_invoked += e - i;
			i = e;
			continue;
		}
		uint32_t li = tag >> LOAD_TAG_SHIFT;
		assert((int)li <= k->nmore);
		load_invoke(k, li ? &k->more[li - 1] : &k->wl, cpu, objs + i, e - i,
			    first_ns + (sim_time)i * cost_ns, cost_ns);
		i = e;
	}
}

rcu_invoke_fn *loads_invoke_fn(kmodel *k, void **ctx)
{
	if (k->bg.p_burst > 0) { /* the box's callbacks among the loads': each run to its own */
		*ctx = k;
		return loads_invoke;
	}
	if (!k->nmore) {
		*ctx = k->files.on ? (void *)k : (void *)&k->wl;
		return k->files.on ? file_free_rcu : k->wl.ops->invoke;
	}
	*ctx = k;
	for_each_load(k, w)
		if (w->ops->invoke || w->ops->frees_files || w->opens_files)
			return loads_invoke;
	return NULL; /* no load's callbacks free anything tracked */
}

int64_t loads_file_pending(const kmodel *k, int64_t qsum)
{
	if (!k->nmore)
		return qsum;
	int64_t n = 0;
	for_each_load((kmodel *)k, w)
		if (w->ops->frees_files || w->opens_files)
			n += (int64_t)(w->callbacks - w->invoked);
	return n;
}

int64_t loads_obj_bytes(const kmodel *k)
{
	int64_t b = k->wl.obj_bytes;
	for_each_load((kmodel *)k, w)
		if (w->obj_bytes != b)
			return 0; /* some hold none, or other sizes: not one size */
	return b;
}

/* The scalars of every load when there are several: load.NAME.jobs,
 * .callbacks, .cpu_ns (the main load as NAME main). */
static int loads_own_scalars(const kmodel *k, const kworkload *w, sim_metrics *m)
{
	sim_metrics *t;
	if (sim_metrics_create(&t))
		return SIM_ENOMEM;
	int rc = metric_scalar(t, M_LOAD_JOBS, (double)w->njobs);
	rc |= metric_scalar(t, M_LOAD_CALLBACKS, (double)w->callbacks);
	rc |= metric_scalar(t, M_LOAD_CPU_NS, (double)w->cpu_ns);
	rc |= sim_metrics_absorb(m, t, w->name ? w->name : "main");
	sim_metrics_destroy(t);
	(void)k;
	return rc ? SIM_ENOMEM : 0;
}

int loads_finish(const kmodel *k, sim_metrics *m)
{
	int rc = 0;
	for_each_load((kmodel *)k, w) {
		if (w->ops->finish)
			rc |= w->ops->finish(k, w, w->m);
		/* A named load's own metrics, KIND.rest, as KIND.NAME.rest. */
		if (w->name)
			rc |= sim_metrics_absorb(m, w->m, w->name);
		if (k->nmore)
			rc |= loads_own_scalars(k, w, m);
	}
	return rc ? SIM_ENOMEM : 0;
}

/* The rules of named load @i, in its view @v of the parameters, after
 * its knobs: a kind of the kernel model that can run beside others, its
 * kind's own rules, what only [workload] may say. */
static int named_load_validate(const sim_params *p, size_t i, const sim_params *v, char *err,
			       size_t errlen)
{
	char a[512];
	const char *kind = sim_params_text(v, P_WORKLOAD_KIND);
	const workload_ops *ops = workload_find(kind);
	const char *name = sim_params_load_name(p, i);
	bool kind_set = strcmp(sim_params_origin(v, P_WORKLOAD_KIND), "default") != 0;
	if (!kind_set || !strcmp(sim_params_origin(v, P_WORKLOAD_JOBS), "default")) {
		snprintf(err, errlen, "%s: [workload.%s]: a named load says its kind and jobs "
			 "(workload.%s.kind, workload.%s.jobs); it has no %s",
			 sim_params_load_origin(p, i), name, name, name,
			 !kind_set ? "kind" : "jobs");
		return SIM_EINPUT;
	}
	sim_params_where(v, P_WORKLOAD_KIND, a, sizeof(a));
	if (!ops || ops->kfree_batched) {
		snprintf(err, errlen,
			 "%s: %s %s: a named load is one of %s but kfree (queue is a model of its own; "
			 "kfree_rcu()'s batching is the machine's: make it [workload])",
			 a, kind, ops ? "cannot be a named load" : "is not a kernel workload",
			 workload_kinds());
		return SIM_EINPUT;
	}
	if (!strcmp(kind, "callrcu") && sim_params_int(v, P_WORKLOAD_CALLRCU_ARRIVALS) == 1) {
		sim_params_where(v, P_WORKLOAD_CALLRCU_ARRIVALS, a, sizeof(a));
		snprintf(err, errlen, "%s: bulk arrivals are [workload]'s only (their callbacks carry no "
			 "load); say each here, or make this load [workload]", a);
		return SIM_EINPUT;
	}
	if (!strcmp(kind, "syncrcu") && sim_params_int(v, P_WORKLOAD_SYNCRCU_EXPEDITED)) {
		sim_params_where(v, P_WORKLOAD_SYNCRCU_EXPEDITED, a, sizeof(a));
		snprintf(err, errlen, "%s: expedited grace periods are the run's: set rcu.expedited = yes "
			 "(every synchronize_rcu() of every load), or make this load [workload]", a);
		return SIM_EINPUT;
	}
	return ops->validate ? ops->validate(v, err, errlen) : 0;
}

/* workload.cpus of @v: all, or distinct CPUs of the machine. */
static int cpus_validate(const sim_params *v, char *err, size_t errlen)
{
	char a[512], why[256];
	int n;
	if (!strcmp(sim_params_text(v, P_WORKLOAD_CPUS), "all"))
		return 0;
	if (!sim_cpulist_parse_distinct(sim_params_text(v, P_WORKLOAD_CPUS), machine_ncpus(v), NULL, &n, why, sizeof(why)))
		return 0;
	sim_params_where(v, P_WORKLOAD_CPUS, a, sizeof(a));
	snprintf(err, errlen, "%s: %s", a, why);
	return SIM_EINPUT;
}

int loads_validate(const sim_params *p, char *err, size_t errlen)
{
	int rc = cpus_validate(p, err, errlen);
	if (rc)
		return rc;
	if (sim_params_nloads(p) && !workload_find(sim_params_text(p, P_WORKLOAD_KIND))) {
		char a[512];
		sim_params_where(p, P_WORKLOAD_KIND, a, sizeof(a));
		snprintf(err, errlen, "%s: %s runs alone: the loads of [workload.%s] (%s) need a kernel "
			 "workload in [workload]", a, sim_params_text(p, P_WORKLOAD_KIND),
			 sim_params_load_name(p, 0), sim_params_load_origin(p, 0));
		return SIM_EINPUT;
	}
	for (size_t i = 0; i < sim_params_nloads(p) && !rc; i++) {
		sim_params *v;
		if (sim_params_load_view(p, i, &v)) {
			snprintf(err, errlen, "out of memory");
			return SIM_ENOMEM;
		}
		rc = named_load_validate(p, i, v, err, errlen);
		if (!rc)
			rc = cpus_validate(v, err, errlen);
		sim_params_destroy(v);
	}
	return rc;
}
