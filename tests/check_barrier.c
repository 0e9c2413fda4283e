/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_barrier.c - rcu_barrier() step by step (rcu/rcu_barrier.c, after
 * kernel/rcu/tree.c 6.12:4477-4645): which CPUs its caller IPIs and in what
 * order, that it returns only after every callback queued before it was
 * invoked, its flush of offloaded CPUs' lazy callbacks, and an IPI held
 * by a CPU with interrupts off. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "kbox.h"
#include "testlib.h"

/* 8 CPUs (no SMT, 1.2 GHz: every cost at face value), HZ 250 with aligned
 * ticks, EEVDF, Tree RCU; 4 CPU hogs on CPUs 0-3 (callrcu jobs, at rate 0
 * unless @hogs is false), CPUs 4-7 idle; rcu_barrier() called from CPU 7 at 10 ms, then
 * 10 ms after each return. @sets on top. */
static void box_create_kind(box *b, const char *const *sets, bool hogs)
{
	const char *all[64] = {
		"machine.cores=8", "machine.threads_per_core=1", "machine.hz=250", "machine.arch=x86_64",
		"machine.clock=1.2GHz", "sched.kind=eevdf", "rcu.flavor=tree", "irq.tick_phase=aligned",
		"workload.jobs=4", "workload.barrier=yes", "workload.barrier_gap=10ms",
		"workload.barrier_cpu=7", "scenario.duration=1h",
	};
	size_t n = 13;
	all[n++] = "workload.kind=callrcu";
	if (hogs) /* no call_rcu() of their own: the callbacks are the test's (queue_on()) */
		all[n++] = "workload.callrcu_rate=0/s";
	all[n] = NULL;
	box_create_from(b, all, sets);
}

static void box_create(box *b, const char *const *sets)
{
	box_create_kind(b, sets, true);
}

/* Run until the first rcu_barrier() has returned (within @limit). */
static void run_to_return(box *b, sim_time limit)
{
	krcu *r = &b->k->rcu;
	while (r->bar->returned == 0 && sim_now(b->eng) < limit)
		run_to(b, sim_now(b->eng) + 1000);
	ck_assert_uint_eq(r->bar->returned, 1);
}

START_TEST(nothing_queued_returns_after_the_scan)
{
	/* No CPU has a callback: every one is skipped ("NQ", :4600-4605), no
	 * IPI, nothing to wait for; the count drops from 2 to 0 at the loop's
	 * end and the call returns after its scan: 8 CPUs x rcu.barrier_scan_cost. */
	box b;
	const char *none[] = { NULL };
	box_create(&b, none);
	krcu *r = &b.k->rcu;
	run_to_return(&b, 20 * MS);
	ck_assert_uint_eq(r->bar->calls, 1);
	ck_assert_uint_eq(r->bar->ipis, 0);
	ck_assert_uint_eq(r->bar->waited, 0);
	ck_assert_int_eq((sim_time)r->bar->dur->max, 8 * r->bar->scan_cost);
	ck_assert_int_eq(r->bar->caller->cpu_ns, 8 * r->bar->scan_cost);
	box_destroy(&b);
}
END_TEST

START_TEST(ipis_only_cpus_with_callbacks_one_at_a_time)
{
	/* Callbacks on CPU 2 (a hog) and CPU 5 (idle) just before the call,
	 * and on CPU 7, the caller's own: CPUs 2 and 5 get an IPI each (idle
	 * or not: rcu_barrier() skips only CPUs without callbacks), CPU 7's
	 * handler runs inline. The caller spins on each IPI until its handler
	 * has run (wait = 1), so its CPU time is the scan, two sends and two
	 * handlers, exactly (and 1 ns a spin to see the handler's end). It
	 * returns after all 6 callbacks were invoked,
	 * which needs a grace period. */
	box b;
	const char *none[] = { NULL };
	box_create(&b, none);
	krcu *r = &b.k->rcu;
	run_to(&b, 10 * MS - 1000);
	queue_on(&b, 2, 3);
	queue_on(&b, 5, 1);
	queue_on(&b, 7, 2);
	run_to_return(&b, 200 * MS);
	ck_assert_uint_eq(r->bar->ipis, 2);
	ck_assert_uint_eq(r->bar->waited, 3);
	ck_assert_int_eq(r->bar->caller->cpu_ns, 8 * r->bar->scan_cost + 2 * r->bar->send_cost +
						  2 * (b.k->mach.irq_cost + 1)); /* +1 ns a spin */
	ck_assert_int_eq(r->bar->ipi_cpu_ns, 2 * b.k->mach.irq_cost);
	const rcu_tree_state *ts = tree(&b);
	ck_assert_uint_eq(ts->rda[2].n_cbs_invoked, 3);
	ck_assert_uint_eq(ts->rda[5].n_cbs_invoked, 1);
	ck_assert_uint_eq(ts->rda[7].n_cbs_invoked, 2);
	/* Returned no earlier than the last of them was invoked, and it
	 * waited for a grace period (at least until the next tick, 12 ms). */
	sim_time last = 0;
	for (int i = 0; i < 8; i++)
		if (ts->rda[i].batch_end_ns > last)
			last = ts->rda[i].batch_end_ns;
	ck_assert_int_ge(r->bar->start + (sim_time)r->bar->dur->max, last);
	ck_assert_int_ge((sim_time)r->bar->dur->max, 2 * MS);
	ck_assert_uint_ge(ts->gp_completed, 1);
	box_destroy(&b);
}
END_TEST

START_TEST(every_earlier_callback_invoked_under_a_flood)
{
	/* A call_rcu() flood on every CPU (callrcu, 100k/s per CPU, 4 hogs):
	 * at each rcu_barrier()'s return, every CPU has invoked at least as
	 * many callbacks as it had queued when the call began. */
	box b;
	const char *sets[] = { "workload.jobs=8", "workload.callrcu_rate=100000/s",
			       "workload.barrier_gap=5ms", NULL };
	box_create_kind(&b, sets, false);
	krcu *r = &b.k->rcu;
	const rcu_tree_state *ts = tree(&b);
	uint64_t before[8] = { 0 };
	uint64_t checked = 0;
	while (sim_now(b.eng) < 600 * MS) {
		bool idle = r->bar->phase == 0; /* no call in progress: one may begin in the next step */
		if (idle && sim_timer_armed(&r->bar->caller->wake) && r->bar->caller->wake.when > sim_now(b.eng) + 1)
			run_to(&b, r->bar->caller->wake.when - 1); /* none begins before its gap's end */
		if (idle)
			for (int i = 0; i < 8; i++)
				before[i] = ts->rda[i].n_cbs_invoked + (uint64_t)r->ops->qlen(r->rsp, i);
		uint64_t calls = r->bar->calls, ret = r->bar->returned;
		run_to(&b, sim_now(b.eng) + (idle ? 200 : 20000)); /* 200: shorter than a scan */
		ck_assert(r->bar->calls == calls || (idle && r->bar->calls == calls + 1));
		if (r->bar->returned > ret) {
			for (int i = 0; i < 8; i++)
				ck_assert_uint_ge(ts->rda[i].n_cbs_invoked, before[i]);
			checked++;
		}
	}
	ck_assert_uint_ge(checked, 8);
	ck_assert_uint_gt(r->bar->ipis, 5 * checked);
	box_destroy(&b);
}
END_TEST

START_TEST(a_batch_in_progress_is_waited_for)
{
	/* Three callbacks of 1 ms each on idle CPU 5: their batch takes them
	 * all off the list, but rcu_do_batch() counts them as queued until
	 * it ends (rcu_segcblist_add_len(-count), tree.c:2608). An
	 * rcu_barrier() called in the middle still IPIs CPU 5, and its
	 * callback, entrained behind the batch, runs when the batch ends: the
	 * call returns no earlier. */
	box b;
	const char *sets[] = { "rcu.callback_cost=1ms", "workload.barrier_gap=1h", NULL };
	box_create(&b, sets);
	krcu *r = &b.k->rcu;
	const rcu_tree_state *ts = tree(&b);
	run_to(&b, 1 * MS);
	queue_on(&b, 5, 3);
	while (!(ts->rda[5].batch_end_ns > sim_now(b.eng) + MS && r->ops->qlen(r->rsp, 5) == 0))
		run_to(&b, sim_now(b.eng) + 10000);
	sim_time end = ts->rda[5].batch_end_ns;
	kthread_kick(r->bar->caller, sim_now(b.eng)); /* rcu_barrier() now */
	run_to_return(&b, 1 * S);
	ck_assert_uint_eq(r->bar->ipis, 1);
	ck_assert_uint_eq(r->bar->waited, 1);
	ck_assert_int_ge(r->bar->start + (sim_time)r->bar->dur->max, end);
	ck_assert_int_lt(r->bar->start + (sim_time)r->bar->dur->max, end + MS);
	box_destroy(&b);
}
END_TEST

START_TEST(lazy_callbacks_flushed_not_left_for_ten_seconds)
{
	/* Every CPU offloaded with lazy callbacks (rcu.lazy): 100 lazy
	 * call_rcu()s on CPU 3 at 1 ms sit in its bypass for
	 * jiffies_lazy_flush (10 s). rcu_barrier() at 50 ms flushes them into
	 * the list (lazy_len = 0, :4507-4513), wakes rcuog (the list had
	 * nothing pending) and returns once they are invoked, after the one
	 * grace period they need; without it none is invoked in 5 s. */
	const char *lazy[] = { "rcu.nocbs=all", "rcu.lazy=yes", "rcu.call_site=call_rcu",
			       "workload.barrier_gap=50ms", NULL };
	const char *nobar[] = { "rcu.nocbs=all", "rcu.lazy=yes", "rcu.call_site=call_rcu",
				"workload.barrier_gap=1h", NULL }; /* no call in 5 s */
	for (int with = 1; with >= 0; with--) {
		box b;
		box_create(&b, with ? lazy : nobar);
		krcu *r = &b.k->rcu;
		run_to(&b, 1 * MS);
		queue_on(&b, 3, 100);
		if (!with) {
			run_to(&b, 5 * S);
			ck_assert_uint_eq(tree(&b)->rda[3].n_cbs_invoked, 0);
			box_destroy(&b);
			continue;
		}
		run_to_return(&b, 1 * S);
		ck_assert_uint_eq(r->bar->flushed, 100);
		ck_assert_uint_eq(r->bar->lazy, 100);
		ck_assert_uint_eq(r->bar->ipis, 1);
		ck_assert_uint_eq(tree(&b)->rda[3].n_cbs_invoked, 100);
		/* One grace period (as long as the hogs' CPUs take to report),
		 * not the 10 s lazy flush. */
		ck_assert_uint_eq(tree(&b)->gp_completed, 1);
		ck_assert_int_le((sim_time)r->bar->dur->max,
				 (tree(&b)->gp_max + 2) * b.k->mach.tick_ns);
		box_destroy(&b);
	}
}
END_TEST

START_TEST(ipi_waits_for_interrupts_on)
{
	/* CPU 2 has interrupts off from 5 ms for 100 ms with a callback
	 * queued: the caller's IPI is latched until 105 ms and the caller
	 * spins until then (smp_call_function_single(..., wait=1)); the call
	 * returns after it. */
	box b;
	const char *sets[] = { "fault.kind=irqs_off", "fault.cpus=2", "fault.start=5ms",
			       "fault.duration=100ms", NULL };
	box_create(&b, sets);
	krcu *r = &b.k->rcu;
	run_to(&b, 4 * MS);
	queue_on(&b, 2, 1);
	run_to(&b, 10 * MS + 100000);
	ck_assert_uint_eq(r->bar->ipis, 1);
	ck_assert_uint_eq(r->bar->waited, 0); /* not entrained yet */
	run_to(&b, 104 * MS);
	ck_assert_uint_eq(r->bar->waited, 0);
	run_to_return(&b, 1 * S);
	ck_assert_uint_eq(r->bar->waited, 1);
	ck_assert_int_ge(r->bar->caller->cpu_ns, 95 * MS);
	ck_assert_int_ge(r->bar->start + (sim_time)r->bar->dur->max, 105 * MS);
	box_destroy(&b);
}
END_TEST

START_TEST(classic_rcu_does_not_read_it)
{
	/* rcu_barrier() here is Tree RCU's: with classic RCU the knob is not
	 * read, and setting it is refused with where it was set. */
	sim_params *p;
	char err[1024];
	ck_assert_int_eq(sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_set(p, "rcu.flavor=classic", err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_set(p, "workload.barrier=yes", err, sizeof(err)), 0);
	ck_assert_int_eq(rcusim_validate(p, err, sizeof(err)), SIM_EINPUT);
	ck_assert_msg(strstr(err, "workload.barrier"), "%s", err);
	sim_params_destroy(p);
}
END_TEST

static Suite *barrier_suite(void)
{
	Suite *s = suite_create("rcu_barrier");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, nothing_queued_returns_after_the_scan);
	tcase_add_test(tc, ipis_only_cpus_with_callbacks_one_at_a_time);
	tcase_add_test(tc, every_earlier_callback_invoked_under_a_flood);
	tcase_add_test(tc, a_batch_in_progress_is_waited_for);
	tcase_add_test(tc, lazy_callbacks_flushed_not_left_for_ten_seconds);
	tcase_add_test(tc, ipi_waits_for_interrupts_on);
	tcase_add_test(tc, classic_rcu_does_not_read_it);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testlib_run_suite(barrier_suite());
}
