/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_exp.c - expedited grace periods step by step (rcu/rcu_exp.c,
 * after kernel/rcu/tree_exp.h of 6.12): which CPUs the kworker IPIs, when
 * each handler reports or defers, the readers an expedited grace period
 * waits for, its stall warnings, and rcu.normal turning it back into a
 * normal one. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kbox.h"
#include "testlib.h"

/* 8 CPUs (no SMT, 1.2 GHz: every cost at face value), HZ 250, EEVDF, Tree
 * RCU; 4 syncrcu jobs (CPUs 0-3), only job 0 calling
 * synchronize_rcu_expedited(), the others CPU hogs; CPUs 4-7 idle. @sets
 * on top. */
static void box_create(box *b, const char *const *sets)
{
	const char *const base[] = {
		"machine.cores=8", "machine.threads_per_core=1", "machine.hz=250", "machine.arch=x86_64",
		"machine.clock=1.2GHz", "sched.kind=eevdf", "rcu.flavor=tree", "irq.tick_phase=aligned",
		"workload.kind=syncrcu", "workload.jobs=4", "workload.syncrcu_callers=1",
		"workload.syncrcu_expedited=yes", "workload.syncrcu_gap=1ms", "workload.syscall_cost=2us",
		"scenario.duration=1h", NULL
	};
	box_create_from(b, base, sets);
}

/* The kworker's first step in ns at 1.2 GHz on 8 CPUs (one rcu_node):
 * sync_exp_reset_tree() over the node, then the leaf's scan (the node, 8
 * CPUs, @nipi IPIs sent). */
static sim_time scan_ns(const box *b, int nipi)
{
	const krcu *r = &b->k->rcu;
	return 2 * r->node_cost + 8 * r->exp->scan_cost + nipi * r->exp->send_cost;
}

START_TEST(only_busy_cpus_are_ipied)
{
	/* sync_rcu_exp_select_node_cpus() (tree_exp.h 6.12:357-387): the
	 * kworker's own CPU (0) and the idle CPUs 4-7 are quiescent already;
	 * CPUs 1-3, running hogs, get one IPI each, every grace period. */
	box b;
	const char *none[] = { NULL };
	box_create(&b, none);
	krcu *r = &b.k->rcu;
	ck_assert(r->exp);
	run_to(&b, 100 * MS);
	ck_assert_uint_gt(r->exp->gps, 50);
	ck_assert_uint_eq(r->exp->ipis, 3 * r->exp->gps + 3 * r->exp->running);
	for (int i = 4; i < 8; i++)
		ck_assert(!b.k->cpu[i].rcu.exp_owes);
	box_destroy(&b);
}
END_TEST

START_TEST(each_leaf_scans_on_its_own_kworker)
{
	/* 32 busy CPUs, two leaves of 16 (rcu_fanout_leaf 16): the kworker
	 * (CPU 0) hands leaf 0 to its own kworker (on CPU 0, its first CPU)
	 * and scans leaf 1 itself (tree_exp.h 6.12:505-518): CPUs 1-15 and
	 * 16-31 get an IPI each, 31 a grace period, CPU 0 none (it runs the
	 * scan); the leaf's kworker is woken once a grace period. */
	box b;
	const char *sets[] = { "machine.cores=32", "workload.jobs=32", "rcu.rcu_fanout_leaf=16", NULL };
	box_create(&b, sets);
	krcu *r = &b.k->rcu;
	ck_assert_int_eq(r->exp->nleafk, 1);
	run_to(&b, 100 * MS);
	ck_assert_uint_gt(r->exp->gps, 20);
	ck_assert_uint_ge(r->exp->ipis, 31 * r->exp->gps);
	ck_assert_uint_le(r->exp->ipis, 31 * (r->exp->gps + 1));
	ck_assert_uint_ge(workqueue_wakeups(r->exp->leafk[0]), r->exp->gps);
	ck_assert_uint_le(workqueue_wakeups(r->exp->leafk[0]), r->exp->gps + 1);
	box_destroy(&b);
}
END_TEST

START_TEST(non_preemptible_handler_defers_to_the_switch)
{
	/* Without PREEMPT_RCU (no PREEMPT_COUNT) rcu_exp_handler() reports
	 * only from idle (tree_exp.h 6.12:858-861); elsewhere
	 * rcu_exp_need_qs() asks for a reschedule (:839-846). Under
	 * preempt=none CPU 1's hog, held in the kernel, goes on to its next
	 * preemption point (at most one system call, 2 us, on) and reports at
	 * that context switch (rcu_note_context_switch() -> rcu_qs(),
	 * tree_plugin.h:904-907). */
	box b;
	const char *sets[] = { "sched.preempt=none", "rcu.preempt_rcu=no", NULL };
	box_create(&b, sets);
	krcu *r = &b.k->rcu;
	kcpu *c1 = &b.k->cpu[1];
	((job *)c1->rq.curr->owner)->in_kernel = true;
	run_to(&b, 50 * MS);
	ck_assert_uint_gt(r->exp->gps, 10);
	ck_assert_uint_eq(r->exp->ndeferred, r->exp->ipis - (sim_timer_armed(&c1->rcu.exp_ipi) ? 3 : 0));
	/* One more: stop just after CPU 1's next IPI has landed. */
	for (int i = 0; i < 100000 && !c1->rcu.exp_deferred; i++)
		run_to(&b, sim_now(b.eng) + 500);
	sim_time at = sim_now(b.eng);
	ck_assert(c1->rcu.exp_owes && c1->rcu.exp_deferred && c1->need_resched);
	ck_assert(sim_timer_armed(&c1->resched_pt));
	sim_time pt = c1->resched_pt.when;
	ck_assert_int_le(pt, at + b.k->mach.irq_cost + 2000 + 1);
	uint64_t gps = r->exp->gps;
	run_to(&b, pt - 1);
	ck_assert(c1->rcu.exp_owes);
	run_to(&b, pt);
	ck_assert(!c1->rcu.exp_owes);
	run_to(&b, pt + 20000); /* the kworker's end step */
	ck_assert_uint_eq(r->exp->gps, gps + 1);
	box_destroy(&b);
}
END_TEST

START_TEST(preemptible_handler_reports_at_once)
{
	/* PREEMPT_RCU, no reader: rcu_exp_handler() reports at once
	 * (tree_exp.h 6.12:737-740). Each grace period then lasts the scan,
	 * one IPI handler (irq.cost) and the kworker's switch back in
	 * (sched.ctxsw_cost): from rcu_exp_gp_seq_start() to the step that
	 * ends it (a tick in the way makes one longer by its cost). */
	box b;
	const char *sets[] = { "rcu.preempt_rcu=yes", "workload.reader_share=0", NULL };
	box_create(&b, sets);
	krcu *r = &b.k->rcu;
	run_to(&b, 50 * MS);
	ck_assert_uint_gt(r->exp->gps, 10);
	ck_assert_uint_eq(r->exp->ndeferred, 0);
	ck_assert_uint_eq(r->exp->hints, 0);
	double want = (double)(scan_ns(&b, 3) + b.k->mach.irq_cost + b.k->sched.ctxsw_cost);
	ck_assert_double_eq_tol(sim_hist_quantile(r->exp->dur, 0.5), want, want * 0.01);
	/* At worst a tick lands in the scan or a handler. */
	ck_assert_double_le(sim_hist_quantile(r->exp->dur, 1.0), want + b.k->mach.tick_cost + 100);
	box_destroy(&b);
}
END_TEST

START_TEST(reader_reports_at_its_unlock)
{
	/* PREEMPT_RCU, every kernel tick inside a reader, CPU 1's hog held
	 * in the kernel: the handler leaves the report to the reader's
	 * rcu_read_unlock() (exp_hint, tree_exp.h 6.12:761-768; tree_plugin.h
	 * :516-517), a uniform share of workload.reader_len (20 us here)
	 * later; nothing is deferred. */
	box b;
	const char *sets[] = { "rcu.preempt_rcu=yes", "workload.reader_share=1", "workload.reader_len=20us",
			       NULL };
	box_create(&b, sets);
	krcu *r = &b.k->rcu;
	((job *)b.k->cpu[1].rq.curr->owner)->in_kernel = true;
	run_to(&b, 50 * MS);
	ck_assert_uint_gt(r->exp->gps, 10);
	ck_assert_uint_ge(r->exp->hints, r->exp->gps);
	ck_assert_uint_eq(r->exp->ndeferred, 0);
	double base = (double)(scan_ns(&b, 3) + b.k->mach.irq_cost + b.k->sched.ctxsw_cost);
	ck_assert_double_gt(sim_hist_quantile(r->exp->dur, 1.0), base + 5000);
	ck_assert_double_le(sim_hist_quantile(r->exp->dur, 1.0), base + 20000 + 100);
	box_destroy(&b);
}
END_TEST

START_TEST(interrupts_off_stall_holds_it_and_warns)
{
	/* CPU 2 with interrupts off for 30 s from 1 s: its IPI is latched, so
	 * the expedited grace period in progress waits the 30 s; its wait
	 * times out at rcu.stall_timeout (21 s; CONFIG_RCU_EXP_CPU_STALL_TIMEOUT
	 * 0 means the normal one, tree_stall.h 6.12:37-39), one warning, the
	 * next due 3 x 21 s + 3 jiffies later (tree_exp.h :660). */
	box b;
	const char *sets[] = { "rcu.preempt_rcu=yes", "workload.reader_share=0", "fault.kind=irqs_off",
			       "fault.cpus=2", "fault.start=1s", "fault.duration=30s", NULL };
	box_create(&b, sets);
	krcu *r = &b.k->rcu;
	run_to(&b, 2 * S);
	uint64_t gps = r->exp->gps;
	ck_assert(r->exp->running && b.k->cpu[2].rcu.exp_owes);
	run_to(&b, 30 * S);
	ck_assert_uint_eq(r->exp->gps, gps);
	run_to(&b, 32 * S);
	ck_assert_uint_gt(r->exp->gps, gps);
	ck_assert_uint_eq(r->exp->stalls, 1);
	ck_assert_double_ge(sim_hist_quantile(r->exp->dur, 1.0), 29.0 * S);
	box_destroy(&b);
}
END_TEST

/* The box of the preempted-reader tests (preempt=full, PREEMPT_RCU, every
 * kernel tick in a reader, 12 jobs, job 0 calling every 20 ms of its work),
 * @extra on top; CPU 1's running hog (jobs 1 and 9 share CPU 1) is made to
 * be preempted inside a reader at 0.5 ms, with far more of it left than a
 * test runs (it unlocks when the test says). Returns that job. */
static job *preempt_reader_on_cpu1(box *b, const char *extra)
{
	const char *sets[] = { "rcu.preempt_rcu=yes", "sched.preempt=full", "workload.reader_share=1",
			       "workload.jobs=12", "workload.syncrcu_gap=20ms", extra, NULL };
	box_create(b, sets);
	kcpu *c1 = &b->k->cpu[1];
	run_to(b, MS / 2);
	job *j = c1->rq.curr->owner;
	j->in_kernel = true;
	kcpu_settle_now(c1);
	c1->need_resched = true;
	ck_assert_int_eq(sim_timer_at(b->eng, &c1->ipi, sim_now(b->eng)), 0);
	run_to(b, sim_now(b->eng) + 20000);
	ck_assert(j->rdr.queued);
	j->in_kernel = false;
	j->rdr_left = 1e9;
	return j;
}

START_TEST(preempted_reader_holds_it_until_unlock)
{
	/* preempt=full, PREEMPT_RCU: CPU 1's hog is preempted inside a reader
	 * (queued on its leaf's blkd_tasks) with 40 ms of it left; the next
	 * expedited grace period waits for it (exp_tasks = blkd_tasks.next,
	 * tree_exp.h 6.12:394-395) until its rcu_read_unlock(), though every
	 * CPU reports. */
	box b;
	job *j = preempt_reader_on_cpu1(&b, NULL);
	krcu *r = &b.k->rcu;
	kcpu *c1 = &b.k->cpu[1];
	uint64_t gps = r->exp->gps;
	run_to(&b, 60 * MS); /* job 0's next call, at 20 ms of its work */
	ck_assert_uint_eq(r->exp->gps, gps);
	ck_assert(r->exp->running && !r->exp->left && r->exp->readers == 1 && j->exp_blocks);
	ck_assert_uint_eq(r->exp->readers_waited, 1);
	/* The reader's unlock: the grace period ends. */
	kcpu_settle_now(c1);
	if (c1->rq.curr == &j->task) {
		j->rdr_left = 0;
		ck_assert_int_eq(sim_timer_at(b.eng, &c1->unlock, sim_now(b.eng)), 0);
	} else {
		j->rdr_left = 1; /* when it next runs */
	}
	run_to(&b, 200 * MS);
	ck_assert(!j->exp_blocks);
	ck_assert_uint_gt(r->exp->gps, gps);
	box_destroy(&b);
}
END_TEST

START_TEST(expedited_reader_boosted_at_once)
{
	/* The same reader under CONFIG_RCU_BOOST (rcu.boost): once every CPU
	 * of its leaf has reported, __rcu_report_exp_rnp() finds exp_tasks
	 * and calls rcu_initiate_boost() (tree_exp.h 6.12:193-195), which for
	 * an expedited grace period does not wait for rcu.boost_delay
	 * (tree_plugin.h:1172-1178): the reader gets SCHED_FIFO and CPU 1
	 * at once, and its unlock, 2 ms of its work later, ends the grace
	 * period and its boost. Without rcu.boost nothing is boosted. */
	for (int boost = 1; boost >= 0; boost--) {
		box b;
		job *j = preempt_reader_on_cpu1(&b, boost ? "rcu.boost=yes" : "rcu.boost=no");
		krcu *r = &b.k->rcu;
		kcpu *c1 = &b.k->cpu[1];
		while (!(r->exp->running && !r->exp->left && r->exp->readers == 1))
			run_to(&b, sim_now(b.eng) + 1000);
		sim_time all_reported = sim_now(b.eng);
		run_to(&b, all_reported + 100000); /* the resched IPI and the switch */
		if (!boost) {
			ck_assert_ptr_null(r->boosted[j->rdr.leaf]);
			ck_assert_uint_eq(r->readers_boosted, 0);
			box_destroy(&b);
			continue;
		}
		ck_assert_ptr_eq(r->boosted[j->rdr.leaf], j);
		ck_assert(j->task.fifo);
		kcpu_settle_now(c1);
		ck_assert_ptr_eq(c1->rq.curr, &j->task);
		/* 2 ms more of its reader: it unlocks, the grace period ends. */
		j->rdr_left = 2e6;
		kcpu_settle_now(c1);
		ck_assert_int_eq(sim_timer_at(b.eng, &c1->unlock, sim_now(b.eng) + 2 * MS), 0);
		uint64_t gps = r->exp->gps;
		run_to(&b, sim_now(b.eng) + 2 * MS + 100000);
		ck_assert(!j->exp_blocks && !j->task.fifo);
		ck_assert_ptr_null(r->boosted[j->rdr.leaf]);
		ck_assert_uint_eq(r->exp->gps, gps + 1);
		box_destroy(&b);
	}
}
END_TEST

START_TEST(rcu_normal_wins)
{
	/* rcupdate.rcu_normal: synchronize_rcu_expedited() waits for a normal
	 * grace period (tree_exp.h 6.12:969-972): no kworker, no IPI. */
	box b;
	const char *sets[] = { "rcu.normal=yes", NULL };
	box_create(&b, sets);
	ck_assert(!b.k->rcu.exp);
	run_to(&b, 200 * MS);
	ck_assert_uint_gt(b.k->rcu.cb.invoked, 0);
	box_destroy(&b);
}
END_TEST

START_TEST(wake_from_gp_wakes_five_and_leaves_the_rest)
{
	/* rcu.normal_wake_from_gp: synchronize_rcu() queues no callback; the
	 * grace period that starts next takes the waiters (rcu_sr_normal_gp_init(),
	 * tree.c 6.12:1756-1786) and its end wakes the first 5 from the GP
	 * kthread (SR_MAX_USERS_WAKE_FROM_GP, :1711-1721), the rest from the
	 * sync_wq work item. */
	box b;
	const char *sets[] = { "workload.syncrcu_expedited=no", "workload.jobs=8", "workload.syncrcu_callers=-1",
			       "workload.syncrcu_gap=0ns", "rcu.normal_wake_from_gp=yes", NULL };
	box_create(&b, sets);
	krcu *r = &b.k->rcu;
	ck_assert(r->srs && !r->exp);
	run_to(&b, 500 * MS);
	ck_assert_uint_eq(b.k->rcu.cb.enqueued, 0);
	/* Never more than 5 a grace period from the kthread; the 3 the
	 * kworker wakes call again after the next grace period has taken the
	 * 5 (gap 0), so the groups alternate: 8 waiters every 2 GPs. */
	uint64_t gps = tree(&b)->gp_completed;
	ck_assert_uint_gt(gps, 20);
	ck_assert_uint_le(r->srs->woken_gp, 5 * gps);
	ck_assert_uint_gt(r->srs->woken_wq, 0);
	ck_assert_uint_ge(r->srs->woken_gp + r->srs->woken_wq, 4 * (gps - 2));
	box_destroy(&b);
}
END_TEST

START_TEST(wake_from_gp_five_wait_heads)
{
	/* The same 8 waiters: in steady state two wait heads are in use (the
	 * done tail's and the grace period's in progress), never more than
	 * five. With all five taken (as when the sync_wq kworker has not run
	 * for three grace-period ends) a grace period that starts with
	 * waiters takes none of them (rcu_sr_normal_gp_init(), tree.c
	 * 6.12:1766-1770) and asks for the next one (:1843-1844), which takes
	 * them once a head is free again. */
	box b;
	const char *sets[] = { "workload.syncrcu_expedited=no", "workload.jobs=8", "workload.syncrcu_callers=-1",
			       "workload.syncrcu_gap=0ns", "rcu.normal_wake_from_gp=yes", NULL };
	box_create(&b, sets);
	krcu *r = &b.k->rcu;
	rcu_tree_state *ts = tree(&b);
	int most = 0;
	while (sim_now(b.eng) < 200 * MS) {
		run_to(&b, sim_now(b.eng) + 100000);
		if (r->srs->heads > most)
			most = r->srs->heads;
	}
	ck_assert_int_ge(most, 2);
	ck_assert_int_le(most, 3);
	ck_assert_uint_eq(r->srs->no_head, 0);
	/* Between grace periods, with the kworker done, only the done tail
	 * holds a head: hold the
	 * other four, as wait heads a kworker four grace-period ends behind
	 * has yet to put back. */
	while (r->srs->cur_head || r->srs->left || r->srs->heads_work)
		run_to(&b, sim_now(b.eng) + 1000);
	ck_assert_int_eq(r->srs->heads, 1);
	int held = 4;
	r->srs->heads += held;
	uint64_t gps = ts->gp_completed, woken = r->srs->woken_gp + r->srs->woken_wq;
	for (int64_t i = 0; i < b.k->wl.njobs; i++)
		woken += b.k->wl.jobs[i].exp_wake; /* woken by the last end, at its step's end */
	run_to(&b, sim_now(b.eng) + 200 * MS);
	/* Every grace period found no head and asked for the next: none
	 * served a waiter. */
	ck_assert_uint_gt(ts->gp_completed, gps + 5);
	ck_assert_uint_ge(r->srs->no_head, ts->gp_completed - gps);
	ck_assert_uint_eq(r->srs->woken_gp + r->srs->woken_wq, woken);
	r->srs->heads -= held;
	woken = r->srs->woken_gp + r->srs->woken_wq;
	run_to(&b, sim_now(b.eng) + 100 * MS);
	ck_assert_uint_ge(r->srs->woken_gp + r->srs->woken_wq, woken + 8 * 3);
	box_destroy(&b);
}
END_TEST

START_TEST(wake_from_gp_small_is_for_16_cpus_at_most)
{
	/* small, 6.19's default (-1): on when num_possible_cpus() <= 16
	 * (tree.c 6.19:4895-4899). */
	for (int v = 0; v < 2; v++) {
		box b;
		const char *sets[] = { "workload.syncrcu_expedited=no", v ? "machine.cores=17" : "machine.cores=16",
				       "rcu.normal_wake_from_gp=small", NULL };
		box_create(&b, sets);
		ck_assert((b.k->rcu.srs != NULL) == (v == 0));
		box_destroy(&b);
	}
}
END_TEST

START_TEST(wake_from_gp_remote_idle_waiter_misses_the_next_gp)
{
	/* Two callers back to back, one per CPU of two, the GP kthread on
	 * CPU 0. The GP kthread wakes both at a grace period's end; the
	 * waiter on idle CPU 1 is queued on its wake list and enqueued there
	 * when the IPI lands (ttwu_queue_cond(), kernel/sched/core.c
	 * 6.18:3899-3946; sched_ttwu_pending(), :3785), while the one on CPU 0
	 * runs at once, calls again and wakes the kthread, whose
	 * rcu_gp_init() takes the waiters queued so far (rcu_sr_normal_gp_init(),
	 * tree.c 6.12:1756-1786). With the wake-up instant
	 * (machine.idle_wake_latency 0) both make the next grace period: two
	 * waiters each; with 40 us (the 2-vCPU guest's) CPU 1's caller misses
	 * it, the callers alternate, one waiter each, and every call waits two
	 * grace periods. */
	for (int v = 0; v < 2; v++) {
		box b;
		const char *sets[] = { "workload.syncrcu_expedited=no", "machine.cores=2", "workload.jobs=2",
				       "workload.syncrcu_callers=-1", "workload.syncrcu_gap=0ns",
				       "rcu.normal_wake_from_gp=yes", "rcu.gp_kthread_cpu=0",
				       v ? "machine.idle_wake_latency=40us" : "machine.idle_wake_latency=0ns", NULL };
		box_create(&b, sets);
		krcu *r = &b.k->rcu;
		ck_assert(r->srs);
		kmodel *k = b.k;
		/* The rule itself: from CPU 0 to idle CPU 1 the latency, to
		 * itself or to a busy CPU none. */
		while (k->cpu[1].rq.curr || k->cpu[1].rq.nr_running || k->cpu[1].in_softirq)
			run_to(&b, sim_now(b.eng) + 10000);
		sim_time t = sim_now(b.eng);
		ck_assert_int_eq(kcpu_remote_wake_at(&k->cpu[0], &k->cpu[1], t), t + (v ? 40000 : 0));
		ck_assert_int_eq(kcpu_remote_wake_at(&k->cpu[1], &k->cpu[1], t), t);
		run_to(&b, 1000 * MS);
		uint64_t gps = tree(&b)->gp_completed, woken = r->srs->woken_gp + r->srs->woken_wq;
		ck_assert_uint_gt(gps, 100);
		if (v) {
			ck_assert_uint_ge(woken, gps - 2);
			ck_assert_uint_le(woken, gps + 2);
		} else {
			ck_assert_uint_ge(woken, 2 * (gps - 2));
		}
		box_destroy(&b);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("exp");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, only_busy_cpus_are_ipied);
	tcase_add_test(tc, each_leaf_scans_on_its_own_kworker);
	tcase_add_test(tc, non_preemptible_handler_defers_to_the_switch);
	tcase_add_test(tc, preemptible_handler_reports_at_once);
	tcase_add_test(tc, reader_reports_at_its_unlock);
	tcase_add_test(tc, interrupts_off_stall_holds_it_and_warns);
	tcase_add_test(tc, preempted_reader_holds_it_until_unlock);
	tcase_add_test(tc, expedited_reader_boosted_at_once);
	tcase_add_test(tc, rcu_normal_wins);
	tcase_add_test(tc, wake_from_gp_wakes_five_and_leaves_the_rest);
	tcase_add_test(tc, wake_from_gp_five_wait_heads);
	tcase_add_test(tc, wake_from_gp_small_is_for_16_cpus_at_most);
	tcase_add_test(tc, wake_from_gp_remote_idle_waiter_misses_the_next_gp);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testlib_run_suite(suite());
}
