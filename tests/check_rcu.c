/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_rcu.c - classic RCU step by step: the three list moves and batch
 * numbers, a grace period needing every CPU, rcu_pending, each policy's
 * batch limit, and the watermark raise, IPI condition and restore. */
#include <check.h>

#include "testlib.h"
#include <stdlib.h>

#include "rcu/classic.h"
#include "sched/sched.h"

static rcu_cfg cfg_of(rcu_policy pol)
{
	return (rcu_cfg){ .policy = pol, .maxbatch = 10, .resched_over = 0, .blimit = 10,
			  .qhimark = 10000, .qlowmark = 100, .rsinterval = 1000 };
}

static void call_n(const rcu_cfg *cfg, rcu_ctrlblk *rcp, rcu_data *rdp, int n, sim_time t0,
		   rcu_effect *eff)
{
	for (int i = 0; i < n; i++) {
		rcu_effect e = { false, false, false, false };
		ck_assert_int_eq(call_rcu(cfg, rcp, rdp, t0 + i, 0, &e), 0);
		if (eff) {
			eff->need_resched |= e.need_resched;
			eff->send_ipis |= e.send_ipis;
		}
	}
}

START_TEST(rcu_grace_period_needs_every_cpu)
{
	rcu_cfg cfg = cfg_of(RCU_TUNABLE);
	rcu_ctrlblk rcp;
	rcu_data d0, d1;
	sim_hist *gp = malloc(sizeof(*gp));
	sim_hist_init(gp);
	rcu_ctrlblk_init(&rcp, 2);
	rcp.gp_hist = gp;
	rcu_data_init(&d0, &cfg, 0, false);
	rcu_data_init(&d1, &cfg, 1, false);
	ck_assert(!rcu_pending(&rcp, &d0));
	call_n(&cfg, &rcp, &d0, 3, 100, NULL);
	ck_assert_int_eq(rcu_nxt_len(&d0), 3);
	ck_assert(rcu_pending(&rcp, &d0)); /* new callbacks, no batch */
	/* Tasklet on CPU 0 at t = 1000: nxtlist -> curlist for batch 1, which
	 * starts (cur = 1, both CPUs owe it); CPU 0 notices the new batch. */
	__rcu_process_callbacks(&rcp, &d0, 1000);
	ck_assert_int_eq(rcu_cur_len(&d0), 3);
	ck_assert_int_eq(rcu_nxt_len(&d0), 0);
	ck_assert_int_eq(d0.batch, 1);
	ck_assert_int_eq(rcp.cur, 1);
	ck_assert_int_eq(rcp.completed, 0);
	ck_assert_int_eq(rcp.nmask, 2);
	ck_assert(d0.qs_pending && !d0.passed_quiesc && d0.quiescbatch == 1);
	/* A quiescent state on CPU 0 is reported at its next tasklet run. */
	rcu_qsctr_inc(&d0);
	__rcu_process_callbacks(&rcp, &d0, 2000);
	ck_assert_int_eq(rcp.nmask, 1);
	ck_assert(rcu_cpu_in_mask(&rcp, 1) && !rcu_cpu_in_mask(&rcp, 0));
	/* A quiescent state before CPU 1 noticed the batch does not count. */
	rcu_qsctr_inc(&d1);
	ck_assert(rcu_pending(&rcp, &d1)); /* quiescbatch != cur */
	__rcu_process_callbacks(&rcp, &d1, 3000);
	ck_assert_int_eq(rcp.nmask, 1);
	ck_assert(!d1.passed_quiesc);
	rcu_qsctr_inc(&d1);
	__rcu_process_callbacks(&rcp, &d1, 4000); /* the last CPU completes batch 1 */
	ck_assert_int_eq(rcp.completed, 1);
	ck_assert_uint_eq(rcp.gp_completed, 1);
	ck_assert_uint_eq(gp->count, 1);
	ck_assert_uint_eq(gp->max, 3000); /* started at 1000, ended at 4000 */
	/* CPU 0: curlist's batch is complete, so it moves to donelist. */
	ck_assert(rcu_pending(&rcp, &d0));
	__rcu_process_callbacks(&rcp, &d0, 5000);
	ck_assert_int_eq(rcu_done_len(&d0), 3);
	ck_assert_int_eq(rcu_cur_len(&d0), 0);
	/* Invoke at 6000, 6010, 6020: latencies 5900, 5909, 5918. */
	sim_hist *lat = malloc(sizeof(*lat));
	sim_hist_init(lat);
	bool more;
	ck_assert_int_eq(rcu_do_batch(&cfg, &d0, 6000, 10, lat, &more), 3);
	ck_assert(!more);
	ck_assert_uint_eq(lat->min, 5900);
	ck_assert_uint_eq(lat->max, 5918);
	ck_assert_int_eq(rcu_qlen(&d0), 0);
	ck_assert(!rcu_pending(&rcp, &d0));
	rcu_data_fini(&d0);
	rcu_data_fini(&d1);
	rcu_ctrlblk_fini(&rcp);
	free(gp);
	free(lat);
}
END_TEST

START_TEST(rcu_new_callbacks_wait_for_next_batch)
{
	/* Callbacks queued while a batch is in flight stay in nxtlist until
	 * curlist is done, then wait for a batch of their own. */
	rcu_cfg cfg = cfg_of(RCU_TUNABLE);
	rcu_ctrlblk rcp;
	rcu_data d;
	rcu_ctrlblk_init(&rcp, 1);
	rcu_data_init(&d, &cfg, 0, false);
	call_n(&cfg, &rcp, &d, 2, 0, NULL);
	__rcu_process_callbacks(&rcp, &d, 10); /* batch 1 starts, notice */
	call_n(&cfg, &rcp, &d, 5, 20, NULL);
	__rcu_process_callbacks(&rcp, &d, 30); /* no quiescent state yet */
	ck_assert_int_eq(rcu_cur_len(&d), 2);
	ck_assert_int_eq(rcu_nxt_len(&d), 5);
	rcu_qsctr_inc(&d);
	__rcu_process_callbacks(&rcp, &d, 40); /* completes batch 1 */
	ck_assert_int_eq(rcp.completed, 1);
	__rcu_process_callbacks(&rcp, &d, 50); /* cur -> done, nxt -> cur for batch 2 */
	ck_assert_int_eq(rcu_done_len(&d), 2);
	ck_assert_int_eq(rcu_cur_len(&d), 5);
	ck_assert_int_eq(d.batch, 2);
	ck_assert_int_eq(rcp.cur, 2);
	rcu_data_fini(&d);
	rcu_ctrlblk_fini(&rcp);
}
END_TEST

/* 1 CPU, limit 10, 25 ready callbacks: batches of 10, 10, 5, then the
 * tasklet stops re-raising itself. */
START_TEST(rcu_batch_limit_per_policy)
{
	rcu_policy pols[2] = { RCU_FIXED, RCU_TUNABLE };
	rcu_cfg cfg = cfg_of(pols[_i]);
	rcu_ctrlblk rcp;
	rcu_data d;
	rcu_ctrlblk_init(&rcp, 1);
	rcu_data_init(&d, &cfg, 0, false);
	call_n(&cfg, &rcp, &d, 25, 0, NULL);
	d.q.done_end = d.q.cur_end = d.q.tail; /* all 25 ready */
	sim_hist *lat = malloc(sizeof(*lat));
	sim_hist_init(lat);
	bool more;
	int64_t want[3] = { 10, 10, 5 };
	bool want_more[3] = { true, true, false };
	for (int k = 0; k < 3; k++) {
		ck_assert_int_eq(rcu_do_batch(&cfg, &d, 100, 1, lat, &more), want[k]);
		ck_assert(more == want_more[k]);
	}
	ck_assert_int_eq(rcu_qlen(&d), 0);
	ck_assert_uint_eq(lat->count, 25);
	free(lat);
	rcu_data_fini(&d);
	rcu_ctrlblk_fini(&rcp);
}
END_TEST

START_TEST(rcu_fixed_resched_over)
{
	rcu_cfg cfg = cfg_of(RCU_FIXED);
	cfg.maxbatch = 10000;
	cfg.resched_over = 10000;
	rcu_ctrlblk rcp;
	rcu_data d;
	rcu_ctrlblk_init(&rcp, 1);
	rcu_data_init(&d, &cfg, 0, false);
	rcu_effect e = { false, false, false, false };
	call_n(&cfg, &rcp, &d, 10000, 0, &e);
	ck_assert(!e.need_resched);
	call_n(&cfg, &rcp, &d, 1, 0, &e); /* the 10001st */
	ck_assert(e.need_resched && !e.send_ipis);
	ck_assert_int_eq(rcu_batch_limit(&cfg, &d), 10000);
	rcu_data_fini(&d);
	rcu_ctrlblk_fini(&rcp);
}
END_TEST

START_TEST(rcu_watermark_raise_ipi_and_restore)
{
	/* qhimark 5, qlowmark 2, rsinterval 3, blimit 10. */
	rcu_cfg cfg = cfg_of(RCU_WATERMARK);
	cfg.qhimark = 5;
	cfg.qlowmark = 2;
	cfg.rsinterval = 3;
	cfg.reset_last_rs_qlen = _i;
	rcu_ctrlblk rcp;
	rcu_data d;
	rcu_ctrlblk_init(&rcp, 4);
	rcu_data_init(&d, &cfg, 0, false);
	rcu_effect e = { false, false, false, false };
	call_n(&cfg, &rcp, &d, 5, 0, &e);
	ck_assert(!e.need_resched && d.blimit == 10); /* qlen 5: not above qhimark */
	e = (rcu_effect){ false, false, false, false };
	call_n(&cfg, &rcp, &d, 1, 0, &e); /* qlen 6 > 5: raise, kick; 6 - 0 > 3: IPIs */
	ck_assert(e.need_resched && e.send_ipis);
	ck_assert_int_eq(d.blimit, RCU_INT_MAX);
	ck_assert_int_eq(d.last_rs_qlen, 6);
	for (int q = 7; q <= 9; q++) { /* 9 - 6 = 3, not > 3: no IPIs */
		e = (rcu_effect){ false, false, false, false };
		call_n(&cfg, &rcp, &d, 1, 0, &e);
		ck_assert(e.need_resched && !e.send_ipis);
	}
	e = (rcu_effect){ false, false, false, false };
	call_n(&cfg, &rcp, &d, 1, 0, &e); /* qlen 10: 10 - 6 = 4 > 3 */
	ck_assert(e.send_ipis);
	ck_assert_int_eq(d.last_rs_qlen, 10);
	/* All ready: one batch takes all 10 (INT_MAX), qlen 0 <= 2: restore. */
	d.q.done_end = d.q.cur_end = d.q.tail;
	sim_hist *lat = malloc(sizeof(*lat));
	sim_hist_init(lat);
	bool more;
	ck_assert_int_eq(rcu_do_batch(&cfg, &d, 100, 1, lat, &more), 10);
	ck_assert(!more);
	ck_assert_int_eq(d.blimit, 10);
	/* The kernel never resets last_rs_qlen (Nesterov): above qhimark again,
	 * IPIs wait until qlen exceeds 10 + 3. */
	ck_assert_int_eq(d.last_rs_qlen, _i ? 0 : 10);
	e = (rcu_effect){ false, false, false, false };
	call_n(&cfg, &rcp, &d, 6, 0, &e); /* qlen 6 > 5 */
	ck_assert(e.need_resched);
	ck_assert(e.send_ipis == (bool)_i);
	ck_assert_int_eq(d.blimit, RCU_INT_MAX);
	free(lat);
	rcu_data_fini(&d);
	rcu_ctrlblk_fini(&rcp);
}
END_TEST

START_TEST(rcu_watermark_keeps_int_max_above_qlowmark)
{
	/* After an INT_MAX batch that leaves qlen above qlowmark (callbacks in
	 * nxtlist), blimit stays INT_MAX. */
	rcu_cfg cfg = cfg_of(RCU_WATERMARK);
	cfg.qhimark = 5;
	cfg.qlowmark = 2;
	rcu_ctrlblk rcp;
	rcu_data d;
	rcu_ctrlblk_init(&rcp, 1);
	rcu_data_init(&d, &cfg, 0, false);
	call_n(&cfg, &rcp, &d, 8, 0, NULL);
	d.q.done_end = d.q.cur_end = d.q.head + 4; /* 4 ready, 4 in nxtlist */
	sim_hist *lat = malloc(sizeof(*lat));
	sim_hist_init(lat);
	bool more;
	ck_assert_int_eq(rcu_do_batch(&cfg, &d, 100, 1, lat, &more), 4);
	ck_assert_int_eq(rcu_qlen(&d), 4);
	ck_assert_int_eq(d.blimit, RCU_INT_MAX);
	free(lat);
	rcu_data_fini(&d);
	rcu_ctrlblk_fini(&rcp);
}
END_TEST

/* What a part needs of the flavor or the scheduler is asked, not read off
 * its name (issue 47, item 4): Tree RCU offers preemptible RCU, expedited
 * grace periods and kfree_rcu()'s batching, classic RCU none of them; EEVDF
 * has SCHED_FIFO beside it and models nohz_full, O(1) neither. */
START_TEST(rcu_capabilities_asked_not_named)
{
	sim_params *p;
	char err[512];
	const unsigned all = RCU_CAP_PREEMPT_RCU | RCU_CAP_EXPEDITED | RCU_CAP_KFREE_BATCH;
	ck_assert_int_eq(sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_set(p, "rcu.flavor=classic", err, sizeof(err)), 0);
	ck_assert(!rcu_flavor_can(p, RCU_CAP_PREEMPT_RCU));
	ck_assert(!rcu_flavor_can(p, RCU_CAP_EXPEDITED));
	ck_assert(!rcu_flavor_can(p, RCU_CAP_KFREE_BATCH));
	ck_assert_int_eq(sim_params_set(p, "rcu.flavor=tree", err, sizeof(err)), 0);
	ck_assert(rcu_flavor_can(p, RCU_CAP_PREEMPT_RCU));
	ck_assert(rcu_flavor_can(p, RCU_CAP_EXPEDITED));
	ck_assert(rcu_flavor_can(p, RCU_CAP_KFREE_BATCH));
	ck_assert(rcu_flavor_can(p, all));
	ck_assert_int_eq(sim_params_set(p, "sched.kind=o1", err, sizeof(err)), 0);
	ck_assert_ptr_eq(sched_class_find(p), &sched_o1_class);
	ck_assert(!sched_has_fifo(p));
	ck_assert(!sched_has_nohz_full(p));
	ck_assert_int_eq(sim_params_set(p, "sched.kind=eevdf", err, sizeof(err)), 0);
	ck_assert_ptr_eq(sched_class_find(p), &sched_fair_class);
	ck_assert(sched_has_fifo(p));
	ck_assert(sched_has_nohz_full(p));
	sim_params_destroy(p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rcu");
	TCase *tc = tcase_create("rcu");
	tcase_add_test(tc, rcu_grace_period_needs_every_cpu);
	tcase_add_test(tc, rcu_new_callbacks_wait_for_next_batch);
	tcase_add_loop_test(tc, rcu_batch_limit_per_policy, 0, 2);
	tcase_add_test(tc, rcu_fixed_resched_over);
	tcase_add_loop_test(tc, rcu_watermark_raise_ipi_and_restore, 0, 2);
	tcase_add_test(tc, rcu_watermark_keeps_int_max_above_qlowmark);
	tcase_add_test(tc, rcu_capabilities_asked_not_named);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
