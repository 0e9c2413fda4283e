/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_kfree.c - kfree_rcu() batching step by step (rcu/kfree_rcu.c,
 * after kernel/rcu/tree.c of 6.12): a page filling, the monitor's delay
 * (KFREE_DRAIN_JIFFIES, or a jiffy once a page's worth is queued), one
 * callback per batch, the objects freed at once whose snapshot passed, the
 * head channel when the two-argument form finds no page, the page cache. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kbox.h"
#include "testlib.h"

/* 2 CPUs (no SMT, 1.2 GHz), HZ 250, EEVDF, Tree RCU; one rcuscale kfree
 * thread (job 0, CPU 0) making @n objects at 500 ns each, then ending;
 * @sets on top. */
static void box_create(box *b, int n, const char *const *sets)
{
	char num[64];
	snprintf(num, sizeof(num), "workload.kfree_alloc_num=%d", n);
	const char *const base[] = {
		"machine.cores=2", "machine.threads_per_core=1", "machine.hz=250", "machine.arch=x86_64",
		"machine.clock=1.2GHz", "sched.kind=eevdf", "rcu.flavor=tree", "irq.tick_phase=aligned",
		"workload.kind=kfree", "workload.jobs=1", "workload.kfree_loops=1",
		"workload.kfree_call_cost=500ns", num,
		"scenario.duration=1h", NULL
	};
	box_create_from(b, base, sets);
}

static void conserved(const kkfree *kf)
{
	ck_assert_uint_eq(kf->objects, kf->freed + (uint64_t)kf->pending);
}

START_TEST(small_batch_waits_for_the_drain_delay)
{
	/* 100 objects in the first 50 us (accounted at the first tick), a page's
	 * worth not reached: the monitor runs KFREE_DRAIN_JIFFIES (5 s) after
	 * the first
	 * (schedule_delayed_monitor_work(), tree.c 6.12:3513-3526; later
	 * objects do not push it back), moves the page into a batch and posts
	 * one callback (queue_rcu_work() -> call_rcu_hurry()); after that
	 * grace period the kworker frees the 100, and the page goes back to
	 * the cache (rcu_min_cached_objs 5). */
	box b;
	const char *single[] = { "workload.kfree_single_share=1", NULL };
	box_create(&b, 100, single);
	kkfree *kf = &b.k->kfree;
	run_to(&b, 4900 * MS);
	ck_assert_uint_eq(kf->objects, 100);
	ck_assert_int_eq(kf->pending, 100);
	ck_assert_uint_eq(kf->batches, 0);
	ck_assert_uint_eq(kf->pages_allocated, 1);
	ck_assert(sim_timer_armed(&kf->cpu[0].monitor_work.timer));
	/* The first object: 500 ns after the job's switch in at boot. */
	ck_assert_int_eq(kf->cpu[0].monitor_work.timer.when, 5 * S + b.k->sched.ctxsw_cost + 500);
	run_to(&b, 5 * S + 100000);
	ck_assert_uint_eq(kf->batches, 1);
	ck_assert_uint_eq(b.k->rcu.cb.enqueued, 1);
	run_to(&b, 6 * S);
	ck_assert_uint_eq(kf->freed, 100);
	ck_assert_int_eq(kf->pending, 0);
	ck_assert_int_eq(kf->cpu[0].cached, 1);
	ck_assert_int_eq(kf->pages_held, 1);
	ck_assert_int_ge(kf->lat_max, 5 * S);
	ck_assert_int_lt(kf->lat_max, 5 * S + 50 * MS);
	conserved(kf);
	box_destroy(&b);
}
END_TEST

START_TEST(a_full_page_brings_the_monitor_to_a_jiffy)
{
	/* 2000 objects: once 507 are queued (KVFREE_BULK_MAX_ENTR, a 4 KiB
	 * page's pointers) the monitor is pulled in to one jiffy; every batch
	 * is one callback; all are freed well before 5 s, in 4 pages. */
	box b;
	const char *single[] = { "workload.kfree_single_share=1", NULL };
	box_create(&b, 2000, single);
	kkfree *kf = &b.k->kfree;
	run_to(&b, 200 * MS);
	ck_assert_uint_eq(kf->freed, 2000);
	ck_assert_uint_ge(kf->batches, 1);
	ck_assert_uint_eq(b.k->rcu.cb.enqueued, kf->batches);
	ck_assert_uint_eq(kf->pages_allocated, 4);
	ck_assert_int_lt(kf->lat_max, 100 * MS);
	conserved(kf);
	box_destroy(&b);
}
END_TEST

START_TEST(passed_snapshot_frees_without_a_grace_period)
{
	/* kvfree_rcu_drain_ready() (tree.c 6.12:3528-3564): 100 objects, then
	 * a grace period that other callbacks need passes their page's
	 * snapshot (get_state_synchronize_rcu_full()); the monitor, 5 s on,
	 * frees them at once: no batch, no callback of its own. */
	box b;
	const char *single[] = { "workload.kfree_single_share=1", NULL };
	box_create(&b, 100, single);
	kkfree *kf = &b.k->kfree;
	run_to(&b, 10 * MS); /* accounted at the first tick */
	ck_assert_uint_eq(kf->objects, 100);
	queue_on(&b, 1, 1); /* a callback on CPU 1: two grace periods pass */
	run_to(&b, 6 * S);
	ck_assert_uint_eq(kf->freed, 100);
	ck_assert_uint_eq(kf->freed_no_gp, 100);
	ck_assert_uint_eq(kf->batches, 0);
	conserved(kf);
	box_destroy(&b);
}
END_TEST

START_TEST(two_argument_form_takes_the_head_channel)
{
	/* Only kfree_rcu(ptr, rhf): it never allocates a page
	 * (add_ptr_to_bulk_krc_lock() with can_alloc false, tree.c
	 * 6.12:3734-3753). With the cache empty the first object goes on its
	 * own rcu_head (:3819-3826) and the refill fills the cache (5 pages,
	 * fill_page_cache_func()); 5 x 507 objects later the next one does the
	 * same: of 3000, 2 on the head channel and 10 pages allocated. */
	box b;
	const char *sets[] = { "workload.kfree_single_share=0", NULL };
	box_create(&b, 3000, sets);
	kkfree *kf = &b.k->kfree;
	run_to(&b, 10 * MS);
	ck_assert_uint_eq(kf->objects, 3000);
	ck_assert_uint_eq(kf->head_objects, 2);
	ck_assert_uint_eq(kf->pages_allocated, 10);
	run_to(&b, 6 * S);
	ck_assert_uint_eq(kf->freed, 3000);
	conserved(kf);
	box_destroy(&b);
}
END_TEST

START_TEST(memory_pressure_runs_the_shrinker)
{
	/* rcu.kfree_shrink_at 4 KiB: the 100 objects (2,400 bytes) and their
	 * page (4 KiB) are over it when accounted at the first tick; direct
	 * reclaim runs the shrinker (kfree_rcu_shrink_scan(), tree.c
	 * 6.12:3955-3976): the cached pages go and the monitor runs at once,
	 * so the batch is posted at 4 ms, not 5 s, and freed after its grace
	 * period. */
	box b;
	const char *sets[] = { "workload.kfree_single_share=1", "rcu.kfree_shrink_at=4KiB", NULL };
	box_create(&b, 100, sets);
	kkfree *kf = &b.k->kfree;
	run_to(&b, 10 * MS);
	ck_assert_uint_eq(kf->shrinks, 1);
	ck_assert_uint_eq(kf->batches, 1);
	ck_assert(kf->cpu[0].backoff && kf->cpu[1].backoff);
	run_to(&b, 200 * MS);
	ck_assert_uint_eq(kf->freed, 100);
	ck_assert_int_lt(kf->lat_max, 100 * MS);
	conserved(kf);
	box_destroy(&b);
}
END_TEST

START_TEST(failed_allocation_falls_back_to_synchronize_rcu)
{
	/* rcu.kfree_alloc_fails, rcu.kfree_shrink_at 4 KiB, no cached pages,
	 * every object kfree_rcu_mightsleep(ptr): the first page is allocated
	 * (nothing held yet); the 508th object needs another, and with the
	 * first page and its 507 objects held the allocation fails: the
	 * thread calls synchronize_rcu() (one call_rcu_hurry() for its
	 * wakeup), sleeps a grace period, kvfree()s the object and goes on
	 * (tree.c 6.12:3836-3853). Every object is freed in the end. */
	box b;
	const char *sets[] = { "workload.kfree_single_share=1", "rcu.kfree_shrink_at=4KiB",
			       "rcu.kfree_min_cached_pages=0", "rcu.kfree_alloc_fails=yes", NULL };
	box_create(&b, 2000, sets);
	kkfree *kf = &b.k->kfree;
	job *j = &b.k->wl.jobs[0];
	run_to(&b, 4 * MS + 1); /* the first tick accounts the thread's work: its 1 ms */
	ck_assert_uint_eq(kf->objects, 508);
	ck_assert_uint_eq(kf->sync_fallbacks, 1);
	ck_assert_uint_eq(kf->pages_allocated, 1);
	ck_assert(j->sleeping);
	/* Its wakeup, and the batch of the first page, which the shrinker's
	 * pass posted (the box is over rcu.kfree_shrink_at). */
	ck_assert_uint_eq(kf->batches, 1);
	ck_assert_uint_eq(b.k->rcu.cb.enqueued, 2);
	conserved(kf);
	run_to(&b, 2 * S);
	ck_assert(j->sleeping && j->done_work >= j->unit_work); /* ended, not asleep in it */
	ck_assert_uint_eq(kf->objects, 2000);
	ck_assert_uint_eq(kf->freed, 2000);
	ck_assert_uint_ge(kf->sync_fallbacks, 2);
	ck_assert_uint_eq(b.k->rcu.cb.enqueued, kf->batches + kf->sync_fallbacks);
	/* Each fallback slept at least until the next grace period ended. */
	ck_assert_uint_ge(tree(&b)->gp_completed, kf->sync_fallbacks);
	conserved(kf);
	box_destroy(&b);
	/* The same under preempt=full and PREEMPT_RCU with every kernel tick
	 * inside a reader: a thread that blocked in synchronize_rcu() did so
	 * outside any reader, so its switch queues no preempted reader (one
	 * would hold the grace period it waits for). */
	const char *full[] = { "workload.kfree_single_share=1", "rcu.kfree_shrink_at=4KiB",
			       "rcu.kfree_min_cached_pages=0", "rcu.kfree_alloc_fails=yes",
			       "rcu.preempt_rcu=yes", "sched.preempt=full", "workload.reader_share=1", NULL };
	box_create(&b, 2000, full);
	run_to(&b, 2 * S);
	ck_assert_uint_ge(b.k->kfree.sync_fallbacks, 2);
	ck_assert_uint_eq(b.k->kfree.freed, 2000);
	ck_assert_uint_eq(tree(&b)->readers_blocked, 0);
	box_destroy(&b);
	/* Without failures: never. */
	const char *ok[] = { "workload.kfree_single_share=1", "rcu.kfree_shrink_at=4KiB",
			     "rcu.kfree_min_cached_pages=0", NULL };
	box_create(&b, 2000, ok);
	run_to(&b, 2 * S);
	ck_assert_uint_eq(b.k->kfree.sync_fallbacks, 0);
	ck_assert_uint_eq(b.k->kfree.freed, 2000);
	box_destroy(&b);
}
END_TEST

/* A work item of the test's own on kfree's workqueue: it keeps its
 * worker busy for work_ns. */
typedef struct blocker {
	work_struct w;
	double work_ns;         /* its work */
	sim_time ended;         /* ns: when it ended (0: not yet) */
} blocker;

static double blocker_func(kcpu *c, work_struct *w, sim_time t)
{
	(void)c;
	(void)t;
	return ((blocker *)w->ctx)->work_ns;
}

static void blocker_done(kcpu *c, work_struct *w, sim_time t)
{
	(void)c;
	((blocker *)w->ctx)->ended = t;
}

/* Run @b in 10 us steps until *@v (a counter of the model's) reaches
 * @want, by @limit; returns the time it was seen. */
static sim_time run_until(box *b, const uint64_t *v, uint64_t want, sim_time limit)
{
	while (*v < want) {
		sim_time now = sim_now(b->eng);
		ck_assert_int_lt(now, limit);
		run_to(b, now + 10000);
	}
	return sim_now(b->eng);
}

/* The kfree box (preemptible RCU: a tick in the worker is a quiescent
 * state) with CPU 0's worker of system_unbound_wq held by a 30 ms item of
 * the test's, queued when the monitor has posted the batch of the 2000
 * objects (4.26 ms); monitor_work (nothing left to batch) queued for
 * @mon_after ns after that (> 0), or for -@mon_after ns after the batch's
 * callback queued its work (< 0). Returns within 1 us of the blocker's
 * end, both items having waited on the worklist behind it; *@queued the
 * time the batch's work was queued, *@m0 the monitor runs before. */
static void held_worker(box *b, blocker *bl, sim_time mon_after, sim_time *queued, uint64_t *m0)
{
	const char *sets[] = { "workload.kfree_single_share=1", "rcu.kfree_bulk_cost=1us",
			       "rcu.preempt_rcu=yes", "sched.preempt=voluntary", NULL };
	box_create(b, 2000, sets);
	kmodel *k = b->k;
	kkfree *kf = &k->kfree;
	kfree_cpu *kc = &kf->cpu[0];
	sim_time t1 = run_until(b, &kf->batches, 1, 100 * MS);
	ck_assert_uint_eq(k->rcu.cb.invoked, 0);
	ck_assert(work_pending(&kc->batch[0].rcu_work.work)); /* from queue_rcu_work() on */
	ck_assert(!delayed_work_pending(&kc->monitor_work));
	*m0 = kf->monitors;
	memset(bl, 0, sizeof(*bl));
	bl->work_ns = 30 * MS;
	work_init(&bl->w, blocker_func, blocker_done, bl);
	ck_assert(queue_work_on(0, kf->wq, &bl->w, t1));
	if (mon_after > 0)
		ck_assert(queue_delayed_work_on(0, kf->wq, &kc->monitor_work, t1 + mon_after));
	*queued = run_until(b, &k->rcu.cb.invoked, 1, t1 + 30 * MS);
	if (mon_after < 0)
		ck_assert(queue_delayed_work_on(0, kf->wq, &kc->monitor_work, *queued - mon_after));
	ck_assert_int_gt(*queued, t1 + (mon_after > 0 ? mon_after : 0));
	/* Both wait: the item's 30 ms are not done. */
	run_to(b, t1 + 30 * MS - 1);
	ck_assert_int_eq(bl->ended, 0);
	ck_assert(delayed_work_pending(&kc->monitor_work) && !sim_timer_armed(&kc->monitor_work.timer));
	ck_assert(work_pending(&kc->batch[0].rcu_work.work));
	ck_assert_uint_eq(kf->monitors, *m0);
	while (!bl->ended)
		run_to(b, sim_now(b->eng) + 1000);
	ck_assert_uint_eq(kf->freed, 0);
}

START_TEST(kfree_items_run_oldest_first)
{
	/* The batch's kfree_rcu_work() and monitor_work wait on CPU 0's
	 * worker behind the test's item; the worker takes them in the order
	 * they were queued (worker_thread(), kernel/workqueue.c 6.12:3336).
	 * The monitor queued 1 ms after the batch's post, before its callback
	 * queued its work: 100 us after the item's end the monitor has run
	 * (its work is well under 100 us) and the batch's 2 ms of kfree_bulk()
	 * is under way. The monitor queued 100 us after the batch's work: the
	 * batch is under way and the monitor has not begun; it runs after. */
	const sim_time after[2] = { 1 * MS, -100000 };
	for (int i = 0; i < 2; i++) {
		box b;
		blocker bl;
		sim_time q;
		uint64_t m0;
		held_worker(&b, &bl, after[i], &q, &m0);
		kkfree *kf = &b.k->kfree;
		run_to(&b, bl.ended + 100000);
		ck_assert_uint_eq(kf->monitors, m0 + (i == 0));
		ck_assert_uint_eq(kf->freed, 0);
		run_to(&b, bl.ended + 5 * MS);
		ck_assert_uint_eq(kf->monitors, m0 + 1);
		ck_assert_uint_eq(kf->freed, 2000);
		conserved(kf);
		box_destroy(&b);
	}
}
END_TEST

START_TEST(monitor_is_delayed_work_on_system_unbound_wq)
{
	/* monitor_work on kfree's workqueue, CPU 0's worker idle: queued for
	 * 3 ms on, it has not begun 1 ns before and has begun (CPU 0's worker
	 * woken once) 100 us after; queued again while pending it is not
	 * queued twice, and mod_delayed_work_on() moves it earlier. */
	box b;
	const char *single[] = { "workload.kfree_single_share=1", NULL };
	box_create(&b, 2000, single);
	kkfree *kf = &b.k->kfree;
	delayed_work *dw = &kf->cpu[0].monitor_work;
	run_to(&b, 200 * MS);
	ck_assert_uint_eq(kf->freed, 2000);
	ck_assert(!delayed_work_pending(dw));
	uint64_t m0 = kf->monitors;
	uint64_t w0 = workqueue_wakeups(kf->wq);
	kthread *w = workqueue_worker(kf->wq, 0);
	ck_assert_int_eq(w->cpu->id, 0);
	uint64_t ww0 = w->wakeups;
	sim_time t = sim_now(b.eng);
	ck_assert(queue_delayed_work_on(0, kf->wq, dw, t + 3 * MS));
	ck_assert(!queue_delayed_work_on(0, kf->wq, dw, t + 1 * MS));
	run_to(&b, t + 3 * MS - 1);
	ck_assert_uint_eq(kf->monitors, m0);
	run_to(&b, t + 3 * MS + 100000);
	ck_assert_uint_eq(kf->monitors, m0 + 1);
	ck_assert_uint_eq(workqueue_wakeups(kf->wq), w0 + 1);
	ck_assert_uint_eq(w->wakeups, ww0 + 1);
	t = sim_now(b.eng);
	ck_assert(queue_delayed_work_on(0, kf->wq, dw, t + 9 * MS));
	ck_assert(mod_delayed_work_on(0, kf->wq, dw, t + 2 * MS));
	run_to(&b, t + 2 * MS - 1);
	ck_assert_uint_eq(kf->monitors, m0 + 1);
	run_to(&b, t + 20 * MS);
	ck_assert_uint_eq(kf->monitors, m0 + 2);
	box_destroy(&b);
}
END_TEST

START_TEST(by_call_rcu_is_one_callback_an_object)
{
	/* kfree_by_call_rcu: each object its own call_rcu(); no batching. */
	box b;
	const char *sets[] = { "workload.kfree_by_call_rcu=yes", NULL };
	box_create(&b, 2000, sets);
	run_to(&b, 200 * MS);
	ck_assert(!b.k->kfree.on && b.k->kfree.by_call);
	ck_assert_uint_eq(b.k->rcu.cb.enqueued, 2000);
	ck_assert_uint_eq(b.k->rcu.cb.invoked, 2000);
	box_destroy(&b);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("kfree");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, small_batch_waits_for_the_drain_delay);
	tcase_add_test(tc, a_full_page_brings_the_monitor_to_a_jiffy);
	tcase_add_test(tc, passed_snapshot_frees_without_a_grace_period);
	tcase_add_test(tc, two_argument_form_takes_the_head_channel);
	tcase_add_test(tc, memory_pressure_runs_the_shrinker);
	tcase_add_test(tc, failed_allocation_falls_back_to_synchronize_rcu);
	tcase_add_test(tc, by_call_rcu_is_one_callback_an_object);
	tcase_add_test(tc, kfree_items_run_oldest_first);
	tcase_add_test(tc, monitor_is_delayed_work_on_system_unbound_wq);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testlib_run_suite(suite());
}
