/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kfree_rcu.c - kfree_rcu()/kvfree_rcu() batching, after kernel/rcu/tree.c
 * of 6.12 (:3194-3988; mm/slab_common.c from 6.14, the same mechanism):
 *
 * - kvfree_call_rcu() (:3784-3854) puts each pointer into its CPU's newest
 *   bulk page (struct kvfree_rcu_bulk_data: 507 pointers in a 4 KiB page on
 *   64-bit, KVFREE_BULK_MAX_ENTR :3218-3219) and refreshes the page's full
 *   grace-period snapshot (get_state_synchronize_rcu_full(), :3764-3767);
 *   a full page takes a cached empty page (rcutree.rcu_min_cached_objs, 5
 *   a CPU), or the single-argument kfree_rcu() allocates one (GFP_KERNEL,
 *   :3734-3753); the two-argument form with no cached page links the
 *   object through its own rcu_head instead (the head channel, :3819-3826)
 *   and starts the cache's refill (run_page_cache_worker());
 * - the monitor (monitor_work, a delayed work item) runs KFREE_DRAIN_JIFFIES
 *   (5 s, :3195) after the first object, or one jiffy once the CPU holds
 *   KVFREE_BULK_MAX_ENTR objects (schedule_delayed_monitor_work(),
 *   :3513-3526); it frees at once the pages whose snapshot has passed
 *   (kvfree_rcu_drain_ready(), :3528-3564: no further grace period), then
 *   moves everything else into one of the CPU's two batches
 *   (kvfree_rcu_queue_batch(), :3569-3621) and posts one callback for the
 *   whole batch (queue_rcu_work() -> call_rcu_hurry(), kernel/workqueue.c
 *   :2615-2631); with both batches in flight it tries again later (:3642);
 * - the batch's callback queues kfree_rcu_work() (:3434-3476), which frees
 *   its pages with kfree_bulk() and its head list one by one, and keeps up
 *   to rcu_min_cached_objs pages.
 *
 * The monitor and the batches' frees are work items on system_unbound_wq
 * (kernel/workqueue.c's model, workqueue.c), as in the kernel:
 * monitor_work is delayed work (INIT_DELAYED_WORK(), :5681;
 * queue_delayed_work()/mod_delayed_work() on system_unbound_wq,
 * :3520-3525), each batch an rcu_work (INIT_RCU_WORK(), :5671;
 * queue_rcu_work(system_unbound_wq), :3613), rcu.kfree_bulk_cost a
 * pointer freed. The kernel queues both WORK_CPU_UNBOUND
 * (queue_delayed_work(), include/linux/workqueue.h 6.12:673-678): on the
 * pool of the CPU the monitor's timer fires on, or that invokes the
 * batch's callback (__queue_work(), kernel/workqueue.c 6.12:2262-2266,
 * wq_select_unbound_cpu(), :2212-2233); here both go to the worker of
 * the kfree_rcu_cpu's own CPU (with nohz_full, a housekeeping CPU's), at
 * nice 0, one worker a CPU taking them one at a time (the kernel's
 * unbound pool wakes another worker for each item, need_more_worker(),
 * :932-935). The worker takes them oldest first, as the kernel's worklist
 * does (insert_work(), kernel/workqueue.c 6.12:2187, 2339; worker_thread(),
 * :3336): a batch whose callback came after the monitor's timer waits for
 * the monitor. The pages' snapshots are taken when
 * the objects are accounted (at most a tick after their kfree_rcu()).
 * Memory pressure (rcu.kfree_shrink_at) runs the shrinker
 * (kfree_rcu_shrink_count()/_scan(), :3937-3976) from the reclaiming
 * CPU. With rcu.kfree_alloc_fails the bulk page allocations fail while
 * the box is over that mark, and a kfree_rcu_mightsleep() that finds no
 * page falls back to synchronize_rcu() and kvfree() inline (:3836-3853):
 * its thread sleeps for a grace period. Left out: vmalloc'd pointers (the
 * second bulk channel).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rcu/mechanisms.h"
#include "rcu/tree.h"

#define KFREE_PAGE_SIZE 4096
#define KFREE_MAX_ENTR 507 /* (4096 - 40) / 8 */

/* Has the full snapshot (@norm, @exp) passed (poll_state_synchronize_rcu_full(),
 * tree.c 6.12:4334-4347)? */
static bool snap_done(const kmodel *k, uint64_t norm, uint64_t exp)
{
	return rcu_seq_done(rcu_gp_seq(k), norm) || (k->rcu.exp && rcu_seq_done(rcu_exp_seq(k), exp));
}

static void snap_now(const kmodel *k, uint64_t *norm, uint64_t *exp)
{
	*norm = rcu_seq_snap(rcu_gp_seq(k));
	*exp = rcu_seq_snap(rcu_exp_seq(k));
}

static int pages_push(kfree_pages *l, const kfree_page *pg)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 8;
		kfree_page *a = realloc(l->pg, (size_t)cap * sizeof(*a));
		if (!a)
			return -1;
		l->pg = a;
		l->cap = cap;
	}
	l->pg[l->n++] = *pg;
	return 0;
}

static sim_time jiffy(const kmodel *k) { return k->mach.tick_ns; }

/* schedule_delayed_monitor_work() (:3513-3526) at @t (accounted at
 * @now): 1 jiffy once the CPU holds a page's worth (@full), else
 * KFREE_DRAIN_JIFFIES; a pending one only moves earlier
 * (mod_delayed_work() when the new delay is shorter than what is left of
 * the timer's, :3519-3523: never once it is on the worklist, its delay
 * left then not positive), an idle one is queued (queue_delayed_work(),
 * :3525). */
static void monitor_arm(kcpu *c, kfree_cpu *kc, bool full, sim_time t, sim_time now)
{
	kmodel *k = c->k;
	delayed_work *dw = &kc->monitor_work;
	sim_time at = t + (full ? jiffy(k) : k->kfree.drain_ns);
	if (at < now)
		at = now;
	if (!delayed_work_pending(dw))
		(void)queue_delayed_work_on(kc->cpu, k->kfree.wq, dw, at);
	else if (sim_timer_armed(&dw->timer) && at < dw->timer.when)
		(void)mod_delayed_work_on(kc->cpu, k->kfree.wq, dw, at);
}

static int64_t monitor_run(kcpu *c, kfree_cpu *kc, sim_time t, rcu_effect *e);

/* Direct reclaim from @c at @now (rcu.kfree_shrink_at): the shrinker
 * (kfree_rcu_shrink_count(): backoff on every CPU; kfree_rcu_shrink_scan():
 * each CPU's cached pages freed and its monitor run at once). */
static void shrink(kcpu *c, sim_time now, rcu_effect *e)
{
	kmodel *k = c->k;
	kkfree *kf = &k->kfree;
	kf->shrinks++;
	kf->shrunk_at = now;
	for (int i = 0; i < k->mach.ncpus; i++) {
		kfree_cpu *kc = &kf->cpu[i];
		kc->backoff = true;
		kf->pages_held -= kc->cached;
		kc->cached = 0;
		if (kc->count)
			(void)monitor_run(c, kc, now, e);
	}
}

/* Does a bulk page allocation fail now (rcu.kfree_alloc_fails: the box
 * over rcu.kfree_shrink_at)? */
static bool alloc_fails(const kkfree *kf)
{
	return kf->alloc_fails &&
	       kf->pending * kf->obj_size + kf->pages_held * KFREE_PAGE_SIZE >= kf->shrink_at;
}

int64_t kfree_rcu_n(kcpu *c, int64_t n, sim_time t0, sim_time step, sim_time now, rcu_effect *e,
		    sim_time *sync_at)
{
	kmodel *k = c->k;
	kkfree *kf = &k->kfree;
	kfree_cpu *kc = &kf->cpu[c->id];
	uint64_t norm, exp;
	snap_now(k, &norm, &exp);
	/* The monitor is asked for at the first object (KFREE_DRAIN_JIFFIES on),
	 * and again at the one that makes a page's worth (a jiffy on). */
	int64_t before = kc->count;
	if (!before)
		monitor_arm(c, kc, false, t0, now);
	sim_time t = t0;
	int64_t left = n;
	*sync_at = -1;
	while (n > 0) {
		kfree_page *pg = kc->pages.n ? &kc->pages.pg[kc->pages.n - 1] : NULL;
		if (!pg || pg->n == KFREE_MAX_ENTR) {
			bool page = kc->cached > 0;
			if (page) {
				kc->cached--;
			} else if (sim_rng_bernoulli(c->rng_work, kf->single_share)) {
				if (__builtin_expect(alloc_fails(kf), 0)) {
					/* kfree_rcu_mightsleep(ptr) with no page to be had:
					 * synchronize_rcu(), then kvfree() inline
					 * (:3836-3840, 3846-3853); the refill's allocations
					 * fail as well. */
					kf->alloc_failures++;
					kf->sync_fallbacks++;
					kf->pending++;
					*sync_at = t;
					n--;
					break;
				}
				/* kfree_rcu(ptr): a new page, GFP_KERNEL. */
				kf->pages_allocated++;
				kf->pages_held++;
				page = true;
			} else {
				/* kfree_rcu(ptr, rhf) with no cached page: its own
				 * rcu_head; the cache refilled (fill_page_cache_func()). */
				if (!kc->head_n)
					kc->head_first = t;
				kc->head_n++;
				kc->head_sum += (double)t;
				snap_now(k, &kc->head_snap, &exp);
				kf->head_objects++;
				kc->count++;
				kf->pending++;
				n--;
				t += step;
				int fill = kf->min_cached - kc->cached;
				if (kc->backoff && fill > 1)
					fill = 1; /* fill_page_cache_func() under backoff */
				if (__builtin_expect(alloc_fails(kf), 0)) {
					kf->alloc_failures++;
					fill = 0;
				}
				kc->backoff = false;
				kc->cached += fill;
				kf->pages_allocated += (uint64_t)fill;
				kf->pages_held += fill;
				continue;
			}
			kfree_page fresh = { 0, 0, 0, t, 0 };
			if (pages_push(&kc->pages, &fresh)) {
				kfail(k, SIM_ENOMEM);
				return left - n;
			}
			pg = &kc->pages.pg[kc->pages.n - 1];
		}
		int64_t fill = KFREE_MAX_ENTR - pg->n;
		if (fill > n)
			fill = n;
		/* The inserts at t, t + step, ...: their times' sum. */
		pg->sum += (double)fill * (double)t + (double)step * (double)fill * (double)(fill - 1) / 2;
		pg->n += (int32_t)fill;
		pg->snap_norm = norm;
		pg->snap_exp = exp;
		kc->count += fill;
		kf->pending += fill;
		n -= fill;
		t += fill * step;
	}
	if (before < KFREE_MAX_ENTR && kc->count >= KFREE_MAX_ENTR)
		monitor_arm(c, kc, true, t0 + (KFREE_MAX_ENTR - 1 - before) * step, now);
	if (kf->pending > kf->pending_max)
		kf->pending_max = kf->pending;
	int64_t bytes = kf->pending * kf->obj_size + kf->pages_held * KFREE_PAGE_SIZE;
	if (bytes > kf->bytes_max)
		kf->bytes_max = bytes;
	if (kf->shrink_at && bytes >= kf->shrink_at &&
	    (kf->shrunk_at < 0 || now - kf->shrunk_at >= jiffy(k)))
		shrink(c, now, e);
	return left - n;
}


/* Objects freed at @t: their latencies (inserted at times summing to @sum,
 * the first at @first). */
static void freed(kkfree *kf, int64_t n, double sum, sim_time first, sim_time t)
{
	kf->freed += (uint64_t)n;
	kf->pending -= n;
	kf->lat_sum += (double)n * (double)t - sum;
	if (n && t - first > kf->lat_max)
		kf->lat_max = t - first;
}

void kfree_rcu_sync_done(kmodel *k, sim_time at, sim_time t)
{
	freed(&k->kfree, 1, (double)at, at, t);
}

/* A page emptied: back to the cache while it holds fewer than
 * rcu_min_cached_objs, else free_page(). */
static void page_done(kkfree *kf, kfree_cpu *kc)
{
	if (kc->cached < kf->min_cached)
		kc->cached++;
	else
		kf->pages_held--;
}

/* kfree_rcu_monitor() of @kc at @t, from @c (its kworker, or the
 * shrinker on the reclaiming CPU): kvfree_rcu_drain_ready(), then
 * kvfree_rcu_queue_batch(), whose callback goes on @c (effects in *@e).
 * Returns the objects it freed. */
static int64_t monitor_run(kcpu *c, kfree_cpu *kc, sim_time t, rcu_effect *e)
{
	kmodel *k = c->k;
	kkfree *kf = &k->kfree;
	kf->monitors++;
	/* kvfree_rcu_drain_ready(): the oldest pages whose snapshot passed,
	 * and the head list if its snapshot passed, freed now. */
	int drained = 0;
	while (drained < kc->pages.n &&
	       snap_done(k, kc->pages.pg[drained].snap_norm, kc->pages.pg[drained].snap_exp))
		drained++;
	int64_t objs = 0;
	for (int i = 0; i < drained; i++) {
		const kfree_page *pg = &kc->pages.pg[i];
		objs += pg->n;
		freed(kf, pg->n, pg->sum, pg->first, t);
		kc->count -= pg->n;
		page_done(kf, kc);
	}
	if (drained) {
		memmove(kc->pages.pg, kc->pages.pg + drained, (size_t)(kc->pages.n - drained) * sizeof(kfree_page));
		kc->pages.n -= drained;
	}
	if (kc->head_n && rcu_seq_done(rcu_gp_seq(k), kc->head_snap)) {
		objs += kc->head_n;
		freed(kf, kc->head_n, kc->head_sum, kc->head_first, t);
		kc->count -= kc->head_n;
		kc->head_n = 0;
		kc->head_sum = 0;
	}
	kf->freed_no_gp += (uint64_t)objs;
	/* kvfree_rcu_queue_batch(): everything left into an idle batch, its
	 * rcu_work queued (queue_rcu_work(system_unbound_wq), :3613): one
	 * call_rcu_hurry() for it (kernel/workqueue.c 6.12:2626). */
	if (kc->pages.n || kc->head_n) {
		int b = !kc->batch[0].busy ? 0 : !kc->batch[1].busy ? 1 : -1;
		if (b >= 0) {
			kfree_batch *bt = &kc->batch[b];
			kfree_pages tmp = bt->pages;
			bt->pages = kc->pages;
			kc->pages = tmp;
			kc->pages.n = 0;
			bt->head_n = kc->head_n;
			bt->head_sum = kc->head_sum;
			bt->head_first = kc->head_first;
			kc->head_n = 0;
			kc->head_sum = 0;
			kc->count = 0;
			bt->busy = true;
			kf->batches++;
			bool queued = queue_rcu_work(kf->wq, &bt->rcu_work);
			assert(queued); /* WARN_ON_ONCE(!queued), :3614: an idle batch's is never pending */
			(void)queued;
			if (kthread_call_rcu(rcu_normal(k), c, t, (uint32_t)(1 + kc->cpu * 2 + b), e))
				return objs;
		}
	}
	return objs;
}

/* kfree_rcu_work() (:3434-3476), the work of a batch whose grace period
 * passed, begun on @c at @t: kfree_bulk() of each page, kvfree() of each
 * head object, freed at its end (kfree_rcu_work_done()). Work in ns. */
static double kfree_rcu_work(kcpu *c, work_struct *w, sim_time t)
{
	const kfree_batch *bt = w->ctx;
	(void)t;
	int64_t objs = bt->head_n;
	for (int i = 0; i < bt->pages.n; i++)
		objs += bt->pages.pg[i].n;
	return (double)objs * (double)c->k->kfree.bulk_cost;
}

/* Its end at @t: the objects freed, the pages cached or freed, the batch
 * idle; the monitor queued if objects wait and it is not pending. */
static void kfree_rcu_work_done(kcpu *c, work_struct *w, sim_time t)
{
	kkfree *kf = &c->k->kfree;
	kfree_batch *bt = w->ctx;
	kfree_cpu *kc = &kf->cpu[bt->cpu];
	for (int i = 0; i < bt->pages.n; i++) {
		const kfree_page *pg = &bt->pages.pg[i];
		freed(kf, pg->n, pg->sum, pg->first, t);
		page_done(kf, kc);
	}
	bt->pages.n = 0;
	freed(kf, bt->head_n, bt->head_sum, bt->head_first, t);
	bt->head_n = 0;
	bt->head_sum = 0;
	bt->busy = false;
	if (kc->count && !delayed_work_pending(&kc->monitor_work))
		monitor_arm(c, kc, kc->count >= KFREE_MAX_ENTR, t, t);
}

/* kfree_rcu_monitor() (:3626-3644), monitor_work begun on @c at @t:
 * monitor_run(), then itself again while objects wait
 * (schedule_delayed_monitor_work(), :3642-3643). Work in ns. */
static double kfree_rcu_monitor(kcpu *c, work_struct *w, sim_time t)
{
	kkfree *kf = &c->k->kfree;
	kfree_cpu *kc = w->ctx;
	rcu_effect e = { false, false, false, false };
	int64_t objs = monitor_run(c, kc, t, &e);
	kcpu_rcu_effect(c, t, &e);
	if (kc->count)
		monitor_arm(c, kc, kc->count >= KFREE_MAX_ENTR, t, t);
	return (double)objs * (double)kf->bulk_cost + (double)kf->mon_cost;
}

void kfree_rcu_batch_invoke(kmodel *k, uint32_t obj, sim_time t)
{
	if (!obj)
		return; /* not a batch's */
	kfree_cpu *kc = &k->kfree.cpu[(obj - 1) / 2];
	kfree_batch *bt = &kc->batch[(obj - 1) % 2];
	assert(bt->busy);
	/* rcu_work_rcufn() (kernel/workqueue.c 6.12:2595-2603). */
	rcu_work_rcufn(&bt->rcu_work, kc->cpu, t);
}

/* Batching on: the per-CPU state and system_unbound_wq (alloc_workqueue(),
 * kernel/workqueue.c 6.12:7793). 0 or SIM_ENOMEM. */
static int kfree_batching_create(kmodel *k, const sim_params *p)
{
	kkfree *kf = &k->kfree;
	kf->on = true;
	kf->drain_ns = 5 * sim_params_int(p, P_MACHINE_HZ) * k->mach.tick_ns; /* KFREE_DRAIN_JIFFIES = 5 * HZ */
	kf->min_cached = (int)sim_params_int(p, P_RCU_KFREE_MIN_CACHED_PAGES);
	kf->shrink_at = sim_params_int(p, P_RCU_KFREE_SHRINK_AT);
	kf->alloc_fails = sim_params_int(p, P_RCU_KFREE_ALLOC_FAILS);
	kf->shrunk_at = -1;
	kf->bulk_cost = sim_params_int(p, P_RCU_KFREE_BULK_COST);
	kf->mon_cost = sim_params_int(p, P_RCU_GP_NODE_COST);
	kf->obj_size = 24 * sim_params_int(p, P_WORKLOAD_KFREE_MULT);
	kf->single_share = sim_params_real(p, P_WORKLOAD_KFREE_SINGLE_SHARE);
	if (!(kf->cpu = calloc((size_t)k->mach.ncpus, sizeof(*kf->cpu))) ||
	    alloc_workqueue(k, &kf->wq, "events_unbound", WQ_UNBOUND, 0))
		return SIM_ENOMEM;
	for (int i = 0; i < k->mach.ncpus; i++) {
		kfree_cpu *kc = &kf->cpu[i];
		kc->cpu = i;
		delayed_work_init(k, &kc->monitor_work, kfree_rcu_monitor, NULL, kc);
		for (int b = 0; b < 2; b++) {
			kc->batch[b].cpu = i;
			rcu_work_init(&kc->batch[b].rcu_work, kfree_rcu_work, kfree_rcu_work_done, &kc->batch[b]);
		}
	}
	return 0;
}

int kfree_rcu_create(kmodel *k, const sim_params *p)
{
	if (!k->wl.ops->kfree_batched)
		return 0;
	if (!sim_params_int(p, P_WORKLOAD_KFREE_BY_CALL_RCU))
		return kfree_batching_create(k, p);
	k->kfree.by_call = true;
	k->kfree.obj_size = 24 * sim_params_int(p, P_WORKLOAD_KFREE_MULT);
	return 0;
}

void kfree_rcu_destroy(kmodel *k)
{
	kkfree *kf = &k->kfree;
	destroy_workqueue(kf->wq);
	if (!kf->cpu)
		return;
	for (int i = 0; i < k->mach.ncpus; i++) {
		free(kf->cpu[i].pages.pg);
		free(kf->cpu[i].batch[0].pages.pg);
		free(kf->cpu[i].batch[1].pages.pg);
	}
	free(kf->cpu);
}

int64_t kfree_rcu_bytes(const kmodel *k)
{
	const kkfree *kf = &k->kfree;
	if (kf->by_call)
		return k->rcu.cb.qtotal.value * kf->obj_size;
	return kf->pending * kf->obj_size + kf->pages_held * KFREE_PAGE_SIZE;
}

int kfree_rcu_sample(const kmodel *k, sim_metrics *m, sim_time now)
{
	sim_series *s;
	if (!k->kfree.on && !k->kfree.by_call)
		return 0;
	if (!(s = metric_series(m, M_MEM_PENDING_BYTES, -1)) ||
	    sim_series_append(s, now, (double)kfree_rcu_bytes(k)))
		return SIM_ENOMEM;
	return 0;
}

int kfree_rcu_finish(const kmodel *k, sim_metrics *m)
{
	const kkfree *kf = &k->kfree;
	if (kf->by_call)
		return metric_scalar(m, M_MEM_PENDING_BYTES_MAX,
					  (double)k->rcu.cb.qtotal.max * (double)kf->obj_size) ? SIM_ENOMEM : 0;
	if (!kf->on)
		return 0;
	uint64_t wakeups = workqueue_wakeups(kf->wq);
	sim_time cpu_ns = workqueue_cpu_ns(kf->wq);
	int rc = metric_scalar(m, M_KFREE_OBJECTS, (double)kf->objects);
	rc |= metric_scalar(m, M_KFREE_FREED, (double)kf->freed);
	rc |= metric_scalar(m, M_KFREE_PENDING_END, (double)kf->pending);
	rc |= metric_scalar(m, M_KFREE_PENDING_MAX, (double)kf->pending_max);
	rc |= metric_scalar(m, M_MEM_PENDING_BYTES_MAX, (double)kf->bytes_max);
	rc |= metric_scalar(m, M_KFREE_BATCHES, (double)kf->batches);
	rc |= metric_scalar(m, M_KFREE_MONITORS, (double)kf->monitors);
	rc |= metric_scalar(m, M_KFREE_FREED_WITHOUT_GP, (double)kf->freed_no_gp);
	rc |= metric_scalar(m, M_KFREE_HEAD_OBJECTS, (double)kf->head_objects);
	rc |= metric_scalar(m, M_KFREE_PAGES_ALLOCATED, (double)kf->pages_allocated);
	if (kf->shrink_at)
		rc |= metric_scalar(m, M_KFREE_SHRINKS, (double)kf->shrinks);
	if (kf->alloc_fails) {
		rc |= metric_scalar(m, M_KFREE_ALLOC_FAILURES, (double)kf->alloc_failures);
		rc |= metric_scalar(m, M_KFREE_SYNC_FALLBACKS, (double)kf->sync_fallbacks);
	}
	if (kf->freed) {
		rc |= metric_scalar(m, M_KFREE_LATENCY_MEAN_NS, kf->lat_sum / (double)kf->freed);
		rc |= metric_scalar(m, M_KFREE_LATENCY_MAX_NS, (double)kf->lat_max);
	}
	rc |= metric_scalar(m, M_KFREE_KWORKER_WAKEUPS, (double)wakeups);
	rc |= metric_scalar(m, M_KFREE_KWORKER_CPU_NS, (double)cpu_ns);
	return rc ? SIM_ENOMEM : 0;
}
