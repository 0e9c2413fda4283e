/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * workqueue.c - work items and the kworkers that run them, after
 * kernel/workqueue.c of 6.12, over the kthread runner (kthread.c):
 *
 * - queue_work_on() (:2380-2395) sets WORK_STRUCT_PENDING and queues the
 *   item, or does nothing and returns false if it is pending already; the
 *   item goes at the tail of its pool's worklist (insert_work(),
 *   list_add_tail(), :2187, 2339), and the pool's worker is woken;
 * - the worker takes the items from the head, one at a time
 *   (worker_thread(), :3336; process_one_work(), :3128), and clears
 *   PENDING before it calls the function (set_work_pool_and_clear_pending(),
 *   :3195, so the function may queue its own item again);
 * - queue_delayed_work_on() (:2540-2556) arms the item's timer and sets
 *   PENDING; the timer's expiry queues it (delayed_work_timer_fn(),
 *   :2480-2487); mod_delayed_work_on() (:2579-2593) moves a pending
 *   one to a new expiry;
 * - queue_rcu_work() (:2615-2631) sets PENDING and posts an RCU callback
 *   (call_rcu_hurry()); the callback (rcu_work_rcufn(), :2595-2603) queues
 *   the item on the workqueue named at the call, for the CPU it runs on
 *   (WORK_CPU_UNBOUND);
 * - a per-CPU workqueue runs the work queued for CPU N on CPU N's pool; an
 *   unbound one (WQ_UNBOUND) on workers whose CPUs are the housekeeping
 *   ones (wq_unbound_cpumask restricted to HK_TYPE_WQ and HK_TYPE_DOMAIN,
 *   :7723-7724; nohz_full= takes HK_FLAG_WQ away from its CPUs,
 *   kernel/sched/isolation.c 6.12:194-199).
 *
 * Modelling choices: a work item's function is two halves, as a
 * kthread's step is (work_func begins it and returns its CPU time,
 * work_done_func is its end); each workqueue has a worker of its own per
 * CPU (a kworker of its pool that is always free for it: the kernel's
 * concurrency management wakes another worker only when the running one
 * sleeps, so two workqueues' items on one CPU can wait for each other
 * there and not here); an unbound workqueue's work queued for a
 * housekeeping CPU runs on that CPU's worker, for a nohz_full CPU on the
 * housekeeping CPU hk[cpu % nhk] (one LLC, one pod: any of them would do).
 * A kthread_worker (kthread_create_worker_on_cpu(), kthread_queue_work(),
 * kernel/kthread.c 6.12:961-975, 1024-1038: one dedicated thread taking its
 * items oldest first, kthread_worker_fn(), :804-857) is a workqueue of one
 * worker here. queue_rcu_work()'s callback is posted by the caller (the
 * model's callbacks are its mechanisms' objects), which calls
 * rcu_work_rcufn() when it is invoked, naming the CPU. Left out: max_active and ordered workqueues, rescuers, cancel_work(),
 * flush_work(), the worker pools' idle management.
 */
#include <assert.h>
#include <stddef.h>
#include <stdlib.h>

#include "kernel/kernel_int.h"

/* A worker of one workqueue on one CPU. */
typedef struct kworker {
	kthread kt;              /* its thread (kt.id = its CPU) */
	work_struct *head, *tail; /* its worklist, oldest first (linked by work_struct.next) */
	work_struct *cur;        /* the item whose work is in progress, or NULL */
} kworker;

struct workqueue {
	kmodel *k;               /* the model */
	unsigned flags;          /* WQ_* */
	kthread_ops ops;         /* its workers' kind (ops.name: the workqueue's name) */
	kworker *w;              /* its workers */
	int nw;                  /* how many */
	int *slot;               /* per CPU: the worker that runs the work queued for it */
};

static kworker *kworker_of(kthread *kt)
{
	return (kworker *)((char *)kt - offsetof(kworker, kt));
}

/* The worker's next item on @c at @t: the worklist's head, PENDING
 * cleared; its work in ns (0: none left). */
static double kworker_step(kcpu *c, kthread *kt, sim_time t)
{
	kworker *w = kworker_of(kt);
	work_struct *wk = w->head;
	if (!wk)
		return 0;
	w->head = wk->next;
	if (!w->head)
		w->tail = NULL;
	wk->next = NULL;
	wk->pending = false;
	w->cur = wk;
	return wk->func(c, wk, t);
}

/* The item's work ended at @t: its end, then the next item or sleep. */
static rcu_gp_next kworker_step_end(kcpu *c, kthread *kt, sim_time t, sim_time *timeout)
{
	kworker *w = kworker_of(kt);
	*timeout = 0;
	work_struct *wk = w->cur;
	if (wk) {
		w->cur = NULL;
		if (wk->done)
			wk->done(c, wk, t);
	}
	return w->head ? RCU_GP_NEXT_RUN : RCU_GP_NEXT_SLEEP;
}

static bool kworker_wake_fire(kcpu *c, kthread *kt, sim_time now)
{
	(void)c;
	(void)now;
	return kworker_of(kt)->head != NULL;
}

int alloc_workqueue(kmodel *k, workqueue **out, const char *name, unsigned flags, int prio)
{
	const kmachine *mc = &k->mach;
	*out = NULL;
	workqueue *wq = calloc(1, sizeof(*wq));
	if (!wq)
		return SIM_ENOMEM;
	wq->k = k;
	wq->flags = flags;
	wq->ops = (kthread_ops){ .name = name, .step = kworker_step, .step_end = kworker_step_end,
				 .wake_fire = kworker_wake_fire };
	bool unbound = flags & WQ_UNBOUND;
	wq->nw = unbound && mc->nfull ? mc->nhk : mc->ncpus;
	if (!(wq->w = calloc((size_t)wq->nw, sizeof(*wq->w))) ||
	    !(wq->slot = malloc((size_t)mc->ncpus * sizeof(*wq->slot))))
		goto err;
	for (int i = 0; i < wq->nw; i++) {
		int cpu = wq->nw == mc->ncpus ? i : mc->hk[i];
		wq->w[i].kt.id = cpu;
		if (kthread_init(k, &wq->w[i].kt, &wq->ops, &k->cpu[cpu], prio))
			goto err;
	}
	for (int cpu = 0, h = 0; cpu < mc->ncpus; cpu++) {
		if (wq->nw == mc->ncpus)
			wq->slot[cpu] = cpu;
		else if (h < mc->nhk && mc->hk[h] == cpu)
			wq->slot[cpu] = h++;
		else
			wq->slot[cpu] = cpu % mc->nhk;
	}
	*out = wq;
	return 0;
err:
	destroy_workqueue(wq);
	return SIM_ENOMEM;
}

int kthread_create_worker_on(kmodel *k, workqueue **out, const char *name, int cpu, int prio)
{
	*out = NULL;
	workqueue *wq = calloc(1, sizeof(*wq));
	if (!wq)
		return SIM_ENOMEM;
	wq->k = k;
	wq->ops = (kthread_ops){ .name = name, .step = kworker_step, .step_end = kworker_step_end,
				 .wake_fire = kworker_wake_fire };
	wq->nw = 1;
	if (!(wq->w = calloc(1, sizeof(*wq->w))) ||
	    !(wq->slot = calloc((size_t)k->mach.ncpus, sizeof(*wq->slot))))
		goto err;
	wq->w[0].kt.id = cpu;
	if (kthread_init(k, &wq->w[0].kt, &wq->ops, &k->cpu[cpu], prio))
		goto err;
	*out = wq;
	return 0;
err:
	destroy_workqueue(wq);
	return SIM_ENOMEM;
}

bool kthread_queue_work(workqueue *wq, work_struct *w, sim_time t)
{
	return queue_work_on(wq->w[0].kt.cpu->id, wq, w, t);
}

void destroy_workqueue(workqueue *wq)
{
	if (!wq)
		return;
	free(wq->w);
	free(wq->slot);
	free(wq);
}

void work_init(work_struct *w, work_func *func, work_done_func *done, void *ctx)
{
	*w = (work_struct){ .func = func, .done = done, .ctx = ctx };
}

/* Put pending @w at the tail of the worklist of @wq's worker for @cpu and
 * wake that worker at @t (insert_work(), :2177; kick_pool(), :1233). */
static void insert_work(workqueue *wq, int cpu, work_struct *w, sim_time t)
{
	assert(cpu >= 0 && cpu < wq->k->mach.ncpus && w->pending && !w->next);
	kworker *kw = &wq->w[wq->slot[cpu]];
	if (kw->tail)
		kw->tail->next = w;
	else
		kw->head = w;
	kw->tail = w;
	kthread_kick(&kw->kt, t);
}

bool queue_work_on(int cpu, workqueue *wq, work_struct *w, sim_time t)
{
	if (w->pending)
		return false;
	w->pending = true;
	insert_work(wq, cpu, w, t);
	return true;
}

void rcu_work_init(rcu_work *rw, work_func *func, work_done_func *done, void *ctx)
{
	work_init(&rw->work, func, done, ctx);
	rw->wq = NULL;
}

bool queue_rcu_work(workqueue *wq, rcu_work *rw)
{
	if (rw->work.pending)
		return false;
	rw->work.pending = true;
	rw->wq = wq;
	return true;
}

void rcu_work_rcufn(rcu_work *rw, int cpu, sim_time t)
{
	assert(rw->wq && rw->work.pending);
	insert_work(rw->wq, cpu, &rw->work, t);
}

static void delayed_work_timer_fn(sim_engine *eng, sim_timer *tm)
{
	delayed_work *dw = tm->ctx;
	insert_work(dw->wq, dw->cpu, &dw->work, sim_now(eng));
}

void delayed_work_init(kmodel *k, delayed_work *dw, work_func *func, work_done_func *done, void *ctx)
{
	work_init(&dw->work, func, done, ctx);
	dw->wq = NULL;
	dw->cpu = -1;
	sim_timer_init(k->eng, &dw->timer, delayed_work_timer_fn, dw);
}

/* Arm @dw's timer at @at for @cpu on @wq (__queue_delayed_work(),
 * :2489-2532: the timer's CPU is the model's business, not the work's). */
static void arm_delayed(int cpu, workqueue *wq, delayed_work *dw, sim_time at)
{
	dw->wq = wq;
	dw->cpu = cpu;
	if (sim_timer_at(wq->k->eng, &dw->timer, at))
		kfail(wq->k, SIM_ENOMEM);
}

bool queue_delayed_work_on(int cpu, workqueue *wq, delayed_work *dw, sim_time at)
{
	if (dw->work.pending)
		return false;
	dw->work.pending = true;
	arm_delayed(cpu, wq, dw, at);
	return true;
}

bool mod_delayed_work_on(int cpu, workqueue *wq, delayed_work *dw, sim_time at)
{
	bool was = dw->work.pending;
	if (was && !sim_timer_armed(&dw->timer)) {
		/* On a worklist: taken off it (try_to_grab_pending()). */
		kworker *kw = &dw->wq->w[dw->wq->slot[dw->cpu]];
		work_struct *prev = NULL;
		for (work_struct *x = kw->head; x; prev = x, x = x->next)
			if (x == &dw->work) {
				if (prev)
					prev->next = x->next;
				else
					kw->head = x->next;
				if (kw->tail == x)
					kw->tail = prev;
				x->next = NULL;
				break;
			}
	}
	dw->work.pending = true;
	arm_delayed(cpu, wq, dw, at);
	return was;
}

kthread *workqueue_worker(const workqueue *wq, int cpu)
{
	assert(cpu >= 0 && cpu < wq->k->mach.ncpus);
	return &wq->w[wq->slot[cpu]].kt;
}

uint64_t workqueue_wakeups(const workqueue *wq)
{
	uint64_t n = 0;
	for (int i = 0; i < wq->nw; i++)
		n += wq->w[i].kt.wakeups;
	return n;
}

sim_time workqueue_cpu_ns(const workqueue *wq)
{
	sim_time ns = 0;
	for (int i = 0; i < wq->nw; i++)
		ns += wq->w[i].kt.cpu_ns;
	return ns;
}
