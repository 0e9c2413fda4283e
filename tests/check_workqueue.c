/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_workqueue.c - the workqueue (kernel/workqueue.c's model,
 * after kernel/workqueue.c of 6.12) step by step: work queued for a CPU
 * runs on that CPU's worker, oldest first; queuing a pending item does
 * nothing and returns false (queue_work_on(), :2380-2395); delayed work
 * runs no earlier than its expiry (queue_delayed_work_on(), :2540-2556)
 * and mod_delayed_work_on() moves it; queue_rcu_work()'s item waits for
 * its callback (:2595-2631); an unbound workqueue's work never
 * runs on a nohz_full CPU (wq_unbound_cpumask, :7723-7724). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "kbox.h"
#include "testlib.h"

#define US INT64_C(1000)

/* 4 idle CPUs (no SMT, 1.2 GHz: speed 1), HZ 250, EEVDF, Tree RCU, no
 * jobs; @sets on top. */
static void box_create(box *b, const char *const *sets)
{
	const char *const base[] = {
		"workload.kind=callrcu", "workload.callrcu_rate=0/s", "workload.jobs=0",
		"machine.cores=4", "machine.threads_per_core=1", "machine.hz=250",
		"machine.arch=x86_64", "machine.clock=1.2GHz", "sched.kind=eevdf",
		"rcu.flavor=tree", "scenario.duration=1h", NULL
	};
	box_create_from(b, base, sets);
}

/* What a test item did: where and when it began and ended. */
typedef struct item {
	work_struct w;
	delayed_work dw;
	double work_ns;         /* its work */
	int runs;               /* times begun */
	int cpu;                /* the CPU it last began on */
	sim_time began, ended;  /* ns: its last run */
	int order;              /* its last run's place among all items begun */
} item;

static int begun;

static double item_func(kcpu *c, work_struct *w, sim_time t)
{
	item *it = w->ctx;
	it->runs++;
	it->cpu = c->id;
	it->began = t;
	it->order = begun++;
	ck_assert(!work_pending(w)); /* PENDING is cleared before the function runs */
	return it->work_ns;
}

static void item_done(kcpu *c, work_struct *w, sim_time t)
{
	item *it = w->ctx;
	ck_assert_int_eq(c->id, it->cpu);
	it->ended = t;
}

static void item_init(box *b, item *it, double work_ns)
{
	memset(it, 0, sizeof(*it));
	it->work_ns = work_ns;
	it->cpu = -1;
	work_init(&it->w, item_func, item_done, it);
	delayed_work_init(b->k, &it->dw, item_func, item_done, it);
}

START_TEST(work_queued_on_a_cpu_runs_there_oldest_first)
{
	/* Three items of 10 us queued for CPU 1 at 1 ms: its worker (woken
	 * at 1 ms) begins them in the order they were queued, each as the
	 * one before ends (nothing else wants the CPU: no switch between). */
	box b;
	box_create(&b, (const char *const[]){ NULL });
	workqueue *wq;
	ck_assert_int_eq(alloc_workqueue(b.k, &wq, "test", 0, 0), 0);
	ck_assert_int_eq(workqueue_worker(wq, 1)->cpu->id, 1);
	item it[3];
	for (int i = 0; i < 3; i++)
		item_init(&b, &it[i], 10 * US);
	begun = 0;
	run_to(&b, 1 * MS);
	for (int i = 0; i < 3; i++)
		ck_assert(queue_work_on(1, wq, &it[i].w, sim_now(b.eng)));
	run_to(&b, 2 * MS);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(it[i].runs, 1);
		ck_assert_int_eq(it[i].cpu, 1);
		ck_assert_int_eq(it[i].order, i);
		ck_assert_int_eq(it[i].ended, it[i].began + 10 * US);
	}
	ck_assert_int_ge(it[0].began, 1 * MS);
	ck_assert_int_eq(it[1].began, it[0].ended);
	ck_assert_int_eq(it[2].began, it[1].ended);
	ck_assert_uint_eq(workqueue_wakeups(wq), 1);
	ck_assert_int_eq(workqueue_cpu_ns(wq), 30 * US);
	box_destroy(&b);
	destroy_workqueue(wq);
}
END_TEST

START_TEST(queuing_a_pending_item_does_nothing)
{
	/* queue_work_on() of an item already queued returns false and queues
	 * nothing: it runs once. Once it has begun it is no longer pending,
	 * and queuing it again runs it again. */
	box b;
	box_create(&b, (const char *const[]){ NULL });
	workqueue *wq;
	ck_assert_int_eq(alloc_workqueue(b.k, &wq, "test", 0, 0), 0);
	item it;
	item_init(&b, &it, 10 * US);
	run_to(&b, 1 * MS);
	ck_assert(queue_work_on(2, wq, &it.w, sim_now(b.eng)));
	ck_assert(work_pending(&it.w));
	ck_assert(!queue_work_on(2, wq, &it.w, sim_now(b.eng)));
	ck_assert(!queue_work_on(3, wq, &it.w, sim_now(b.eng)));
	run_to(&b, 2 * MS);
	ck_assert_int_eq(it.runs, 1);
	ck_assert_int_eq(it.cpu, 2);
	ck_assert(!work_pending(&it.w));
	ck_assert(queue_work_on(3, wq, &it.w, sim_now(b.eng)));
	run_to(&b, 3 * MS);
	ck_assert_int_eq(it.runs, 2);
	ck_assert_int_eq(it.cpu, 3);
	box_destroy(&b);
	destroy_workqueue(wq);
}
END_TEST

START_TEST(delayed_work_runs_no_earlier_than_its_expiry)
{
	/* queue_delayed_work_on() at 1 ms for 6 ms: pending at once (a second
	 * queue returns false), not begun at 5.9 ms, begun at 6 ms or later;
	 * mod_delayed_work_on() of another from 9 ms to 4 ms runs it from 4
	 * ms on, once. */
	box b;
	box_create(&b, (const char *const[]){ NULL });
	workqueue *wq;
	ck_assert_int_eq(alloc_workqueue(b.k, &wq, "test", 0, 0), 0);
	item a, c;
	item_init(&b, &a, 10 * US);
	item_init(&b, &c, 10 * US);
	run_to(&b, 1 * MS);
	ck_assert(queue_delayed_work_on(0, wq, &a.dw, 6 * MS));
	ck_assert(delayed_work_pending(&a.dw));
	ck_assert(!queue_delayed_work_on(0, wq, &a.dw, 2 * MS));
	ck_assert(queue_delayed_work_on(1, wq, &c.dw, 9 * MS));
	ck_assert(mod_delayed_work_on(1, wq, &c.dw, 4 * MS)); /* it was pending */
	run_to(&b, 6 * MS - 100 * US);
	ck_assert_int_eq(a.runs, 0);
	ck_assert_int_eq(c.runs, 1);
	ck_assert_int_ge(c.began, 4 * MS);
	ck_assert_int_lt(c.began, 5 * MS);
	run_to(&b, 20 * MS);
	ck_assert_int_eq(a.runs, 1);
	ck_assert_int_eq(a.cpu, 0);
	ck_assert_int_ge(a.began, 6 * MS);
	ck_assert_int_eq(c.runs, 1);
	ck_assert(!delayed_work_pending(&a.dw) && !delayed_work_pending(&c.dw));
	box_destroy(&b);
	destroy_workqueue(wq);
}
END_TEST

START_TEST(rcu_work_is_queued_by_its_callback)
{
	/* queue_rcu_work() (:2615-2631) makes the item pending and queues
	 * nothing (a second call returns false); only its callback
	 * (rcu_work_rcufn(), :2595-2603, here called as the callback's
	 * invocation would) puts it on the worklist of the CPU it names. */
	box b;
	box_create(&b, (const char *const[]){ NULL });
	workqueue *wq;
	ck_assert_int_eq(alloc_workqueue(b.k, &wq, "test", WQ_UNBOUND, 0), 0);
	item it;
	item_init(&b, &it, 10 * US);
	rcu_work rw;
	rcu_work_init(&rw, item_func, item_done, &it);
	run_to(&b, 1 * MS);
	ck_assert(queue_rcu_work(wq, &rw));
	ck_assert(work_pending(&rw.work));
	ck_assert(!queue_rcu_work(wq, &rw));
	run_to(&b, 5 * MS);
	ck_assert_int_eq(it.runs, 0);
	rcu_work_rcufn(&rw, 2, sim_now(b.eng));
	run_to(&b, 6 * MS);
	ck_assert_int_eq(it.runs, 1);
	ck_assert_int_eq(it.cpu, 2);
	ck_assert_int_ge(it.began, 5 * MS);
	ck_assert(!work_pending(&rw.work));
	box_destroy(&b);
	destroy_workqueue(wq);
}
END_TEST

START_TEST(unbound_work_never_lands_on_a_nohz_full_cpu)
{
	/* nohz_full=2-3: an unbound workqueue's workers are on the
	 * housekeeping CPUs 0 and 1 only; work queued for CPU 0 or 1 runs
	 * there, for 2 on CPU 0 and for 3 on CPU 1 (hk[cpu % 2]). A per-CPU
	 * workqueue's work for CPU 3 runs on CPU 3. */
	box b;
	box_create(&b, (const char *const[]){ "irq.nohz_idle=yes", "irq.nohz_full=2-3", NULL });
	workqueue *ub, *pc;
	ck_assert_int_eq(alloc_workqueue(b.k, &ub, "unbound", WQ_UNBOUND, 0), 0);
	ck_assert_int_eq(alloc_workqueue(b.k, &pc, "percpu", 0, 0), 0);
	item it[4], p3;
	for (int i = 0; i < 4; i++)
		item_init(&b, &it[i], 10 * US);
	item_init(&b, &p3, 10 * US);
	run_to(&b, 1 * MS);
	for (int i = 0; i < 4; i++) {
		ck_assert(!workqueue_worker(ub, i)->cpu->nohz_full);
		ck_assert(queue_work_on(i, ub, &it[i].w, sim_now(b.eng)));
	}
	ck_assert(queue_work_on(3, pc, &p3.w, sim_now(b.eng)));
	run_to(&b, 2 * MS);
	const int want[4] = { 0, 1, 0, 1 };
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(it[i].runs, 1);
		ck_assert_int_eq(it[i].cpu, want[i]);
		ck_assert(!b.k->cpu[it[i].cpu].nohz_full);
	}
	ck_assert_int_eq(p3.cpu, 3);
	box_destroy(&b);
	destroy_workqueue(ub);
	destroy_workqueue(pc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("workqueue");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, work_queued_on_a_cpu_runs_there_oldest_first);
	tcase_add_test(tc, queuing_a_pending_item_does_nothing);
	tcase_add_test(tc, delayed_work_runs_no_earlier_than_its_expiry);
	tcase_add_test(tc, rcu_work_is_queued_by_its_callback);
	tcase_add_test(tc, unbound_work_never_lands_on_a_nohz_full_cpu);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
