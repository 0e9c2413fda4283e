/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kfree.c - workload kfree: rcuscale's kfree test (kfree_scale_thread(),
 * kernel/rcu/rcuscale.c 6.12:732-809). Each job is one of its kthreads
 * (in the kernel all the time), bound to its CPU: workload.kfree_loops
 * loops of workload.kfree_alloc_num objects, each a kmalloc() of
 * workload.kfree_mult x 24 bytes and its kfree_rcu() (rcu/kfree_rcu.c),
 * or with workload.kfree_by_call_rcu its own call_rcu() whose callback
 * kfree()s it; workload.kfree_call_cost of CPU work an object, a
 * cond_resched() after each loop; then the thread ends. rcuscale sets its
 * threads to nice 19 (sched.job_nice). Objects are accounted in bulk per
 * stretch of CPU time, evenly spread over it. A kfree_rcu_mightsleep()
 * that finds no page (rcu.kfree_alloc_fails) puts its thread to sleep in
 * synchronize_rcu() from that object on (the work it did past it in the
 * stretch is redone after its wakeup).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "rcu/mechanisms.h"

/* The callback object of a thread's synchronize_rcu() (its job's index
 * below it); a batch's are 1 + CPU x 2 + batch. */
#define KFREE_SYNC_OBJ UINT32_C(0x80000000)

typedef struct kfree_wl {
	double cost;          /* ns of work an object */
	double total;         /* ns of work a thread does in all */
	bool by_call_rcu;     /* call_rcu() per object */
} kfree_wl;

static int kfree_create(kworkload *w, const sim_params *p, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	kfree_wl *f = calloc(1, sizeof(*f));
	if (!f)
		return SIM_ENOMEM;
	w->priv = f;
	f->cost = (double)sim_params_int(p, P_WORKLOAD_KFREE_CALL_COST);
	double n = (double)sim_params_int(p, P_WORKLOAD_KFREE_ALLOC_NUM);
	f->total = f->cost * n * (double)sim_params_int(p, P_WORKLOAD_KFREE_LOOPS);
	f->by_call_rcu = sim_params_int(p, P_WORKLOAD_KFREE_BY_CALL_RCU);
	w->call_rate = 0;
	w->p_kernel = 1;
	w->kstretch = f->cost * n; /* cond_resched() after each loop */
	return 0;
}

static void kfree_destroy(kworkload *w)
{
	free(w->priv);
	w->priv = NULL;
}

static int kfree_job_start(kmodel *k, kcpu *c, job *j)
{
	(void)c;
	const kfree_wl *f = j->wl->priv;
	j->in_kernel = true;
	j->done_work = 0;
	j->unit_work = f->total;
	j->next_call_work = INFINITY;
	return 0;
}

/* @work ns of work from @t0: the objects whose turn falls in it, then the
 * thread's end once it has done them all. */
static void kfree_run(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
		      job_effect *eff)
{
	kmodel *k = c->k;
	const kfree_wl *f = j->wl->priv;
	double before = j->done_work;
	double after = before + work;
	if (after > j->unit_work)
		after = j->unit_work;
	j->done_work = after;
	double first = floor(before / f->cost);
	int64_t n = (int64_t)(floor(after / f->cost) - first);
	if (n > 0) {
		sim_time t = t0 + (sim_time)(((first + 1) * f->cost - before) / s);
		sim_time step = (sim_time)(f->cost / s);
		if (t > now)
			t = now;
		if (t + (n - 1) * step > now)
			step = n > 1 ? (now - t) / (n - 1) : 0;
		if (f->by_call_rcu) {
			if (job_call_rcu_n(rcu_normal(c->k), c, now, t, step, n, eff))
				return;
		} else {
			sim_time sync_at;
			int64_t made = job_kfree_rcu_n(rcu_normal(k), c, n, t, step, now, &eff->rcu, &sync_at);
			k->kfree.objects += (uint64_t)made;
			if (__builtin_expect(sync_at >= 0, 0)) {
				/* kfree_rcu_mightsleep()'s fallback: the objects after
				 * it wait; synchronize_rcu() queues its wakeup
				 * (wait_rcu_gp(): call_rcu_hurry()) and the thread
				 * sleeps from that object on. */
				j->done_work = (first + (double)made) * f->cost;
				j->blocked_at = sync_at;
				if (job_call_rcu(rcu_normal(c->k), c, now, sync_at, KFREE_SYNC_OBJ | (uint32_t)(j - j->wl->jobs), eff))
					return;
				j->sleeping = true;
				eff->slept = true;
				return;
			}
		}
	}
	if (after >= j->unit_work && !j->sleeping) {
		j->sleeping = true; /* the thread ends */
		eff->slept = true;
	}
}

/* A batch's callback (rcu_work_rcufn() queueing kfree_rcu_work()); with
 * kfree_by_call_rcu each callback kfree()s its object (its cost is
 * rcu.callback_cost). */
static void kfree_invoke(void *ctx, int cpu, const uint32_t *objs, size_t n, sim_time first_ns,
			 sim_time cost_ns)
{
	kworkload *w = ctx;
	kmodel *k = w->k;
	(void)cpu;
	if (!k->kfree.on)
		return;
	for (size_t i = 0; i < n; i++) {
		sim_time t = first_ns + (sim_time)i * cost_ns;
		if (__builtin_expect(objs[i] & KFREE_SYNC_OBJ, 0)) {
			/* wakeme_after_rcu(): the thread wakes and kvfree()s its object. */
			job *j = &w->jobs[objs[i] & ~KFREE_SYNC_OBJ];
			kfree_rcu_sync_done(k, j->blocked_at, t);
			if (sim_timer_at(k->eng, &j->wake, t))
				kfail(k, SIM_ENOMEM);
			continue;
		}
		kfree_rcu_batch_invoke(k, objs[i], t);
	}
}

/* kfree_rcu() is Tree RCU's; the batching's state when it is used. */
static int kfree_validate(const sim_params *p, char *err, size_t errlen)
{
	char a[512];
	if (!rcu_flavor_can(p, RCU_CAP_KFREE_BATCH)) {
		sim_params_where(p, P_WORKLOAD_KIND, a, sizeof(a));
		snprintf(err, errlen, "%s: kfree needs rcu.flavor = tree, and rcu.flavor is %s (%s)", a,
			 sim_params_text(p, P_RCU_FLAVOR), sim_params_origin(p, P_RCU_FLAVOR));
		return SIM_EINPUT;
	}
	if (sim_params_int(p, P_RCU_KFREE_ALLOC_FAILS) && !sim_params_int(p, P_RCU_KFREE_SHRINK_AT)) {
		sim_params_where(p, P_RCU_KFREE_ALLOC_FAILS, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: page allocations fail under memory pressure, which needs rcu.kfree_shrink_at "
			 "(0 here, %s)",
			 a, sim_params_origin(p, P_RCU_KFREE_SHRINK_AT));
		return SIM_EINPUT;
	}
	return 0;
}

static const sim_knob kfree_knob[] = {
	{ P_WORKLOAD_KFREE_ALLOC_NUM, SIM_ALWAYS },
	{ P_WORKLOAD_KFREE_LOOPS, SIM_ALWAYS },
	{ P_WORKLOAD_KFREE_MULT, SIM_ALWAYS },
	{ P_WORKLOAD_KFREE_SINGLE_SHARE, { P_WORKLOAD_KFREE_BY_CALL_RCU, "no", NULL } },
	{ P_WORKLOAD_KFREE_BY_CALL_RCU, SIM_ALWAYS },
	{ P_WORKLOAD_KFREE_CALL_COST, SIM_ALWAYS },
	{ P_RCU_KFREE_MIN_CACHED_PAGES, { P_WORKLOAD_KFREE_BY_CALL_RCU, "no", NULL } },
	{ P_RCU_KFREE_BULK_COST, { P_WORKLOAD_KFREE_BY_CALL_RCU, "no", NULL } },
	{ P_RCU_KFREE_SHRINK_AT, { P_WORKLOAD_KFREE_BY_CALL_RCU, "no", NULL } },
	{ P_RCU_KFREE_ALLOC_FAILS, { P_WORKLOAD_KFREE_BY_CALL_RCU, "no", NULL } },
};
static const sim_knobs kfree_knobs = { { P_WORKLOAD_KIND, "kfree", NULL }, kfree_knob,
				       sizeof(kfree_knob) / sizeof(kfree_knob[0]) };

const workload_ops kfree_workload = {
	.kind = "kfree",
	.kfree_batched = true,
	.knobs = &kfree_knobs,
	.validate = kfree_validate,
	.frees_files = false,
	.create = kfree_create,
	.destroy = kfree_destroy,
	.job_start = kfree_job_start,
	.run = kfree_run,
	.next_syscall = workload_next_call,
	.invoke = kfree_invoke,
	.hurry = true, /* queue_rcu_work(): call_rcu_hurry() (kernel/workqueue.c 6.12:2626) */
};
