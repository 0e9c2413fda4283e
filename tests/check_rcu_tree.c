/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_rcu_tree.c - Tree RCU (6.12) step by step: gp_seq arithmetic and its
 * wrap, the rcu_node tree's shapes, the segmented callback list's accelerate
 * and advance, a callback queued mid-GP waiting out that GP and one more,
 * quiescent-state reports up the tree, FQS waits and escalation, callback
 * overload, rcu_do_batch's limits (6.12 and before 5.4), call_rcu's overflow
 * path and the blimit restore, rcu_pending, the tick, and a random sequence
 * of operations against a reference FIFO. The numbers in each test are
 * worked out by hand in its comments. */
#include <check.h>

#include "testlib.h"
#include <stdlib.h>
#include <string.h>

#include "rcu/tree.h"

static rcu_tree_state *mk_cfg(const rcu_tree_cfg *cfg, bool payload)
{
	char err[256];
	rcu_tree_state *rsp;
	ck_assert_msg(rcu_tree_create(&rsp, cfg, payload, err, sizeof(err)) == 0, "%s", err);
	return rsp;
}

static rcu_tree_state *mk(int ncpus, int hz)
{
	rcu_tree_cfg cfg;
	rcu_tree_cfg_default(&cfg, ncpus, hz);
	return mk_cfg(&cfg, false);
}

static void call_n(rcu_tree_state *rsp, int cpu, int64_t n, sim_time at, rcu_effect *eff)
{
	for (int64_t i = 0; i < n; i++) {
		rcu_effect e = { 0 };
		ck_assert_int_eq(rcu_tree_call_rcu(rsp, cpu, at, (uint32_t)i, false, &e), 0);
		if (eff) {
			eff->wake_gp |= e.wake_gp;
			eff->raise |= e.raise;
			eff->need_resched |= e.need_resched;
		}
	}
}

/* Every CPU but @skip (-1: none) notices the GP, passes a QS and reports
 * it, in CPU order; whether a report asked to wake the GP kthread. */
static bool report_all(rcu_tree_state *rsp, int skip)
{
	bool wake = false;
	for (int c = 0; c < rsp->ncpus; c++) {
		if (c == skip)
			continue;
		wake |= rcu_tree_check_quiescent_state(rsp, c);
		rcu_tree_qs(rsp, c);
		wake |= rcu_tree_check_quiescent_state(rsp, c);
		ck_assert(rcu_tree_sane(rsp));
	}
	return wake;
}

/* The GP kthread (on @gp_cpu) ends a GP whose QSes are all in: its FQS wait
 * ends at once, then cleanup. Returns whether it must start another. */
static bool finish_gp(rcu_tree_state *rsp, int gp_cpu, int64_t j)
{
	rcu_tree_fqs_result res;
	bool needgp;
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_start(rsp, j), 0);
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_wake(rsp, j, &res), RCU_TREE_FQS_DONE);
	ck_assert_int_eq(rcu_tree_gp_cleanup(rsp, gp_cpu, j, &needgp), rsp->nnodes);
	ck_assert(rcu_tree_sane(rsp));
	return needgp;
}

/* Make every callback of @cpu ready (as if its GPs were over). */
static void all_done(rcu_tree_state *rsp, int cpu)
{
	rcu_segcblist *l = &rsp->rda[cpu].cblist;
	for (int s = 0; s < RCU_NEXT_TAIL; s++)
		l->tails[s] = l->tails[RCU_NEXT_TAIL];
}

/* ---- 1. gp_seq ---------------------------------------------------------- */

START_TEST(tree_seq_arithmetic)
{
	/* Idle at 0: the next GP (0 -> 1 -> 4) is a full one: snap 4. With GP 1
	 * running, it may have started before a reader: wait for the next
	 * one's end, 8. */
	ck_assert_uint_eq(rcu_seq_snap(0), 4);
	ck_assert_uint_eq(rcu_seq_snap(1), 8);
	ck_assert_uint_eq(rcu_seq_snap(4), 8);
	ck_assert_uint_eq(rcu_seq_snap(5), 12);
	uint64_t s = 0;
	rcu_seq_start(&s);
	ck_assert_uint_eq(s, 1);
	ck_assert_int_eq(rcu_seq_state(s), 1);
	ck_assert(!rcu_seq_done(s, 4));
	ck_assert(rcu_seq_started(s, 4));
	ck_assert(!rcu_seq_started(0, 4));
	rcu_seq_end(&s);
	ck_assert_uint_eq(s, 4);
	ck_assert_int_eq(rcu_seq_state(s), 0);
	ck_assert_uint_eq(rcu_seq_ctr(s), 1);
	ck_assert(rcu_seq_done(s, 4) && !rcu_seq_done(s, 8));
	ck_assert(rcu_seq_completed_gp(0, 4) && rcu_seq_completed_gp(1, 4));
	ck_assert(!rcu_seq_completed_gp(0, 1) && !rcu_seq_completed_gp(4, 5));
	ck_assert(rcu_seq_new_gp(0, 1) && rcu_seq_new_gp(1, 5));
	ck_assert(!rcu_seq_new_gp(1, 1) && !rcu_seq_new_gp(4, 4) && !rcu_seq_new_gp(1, 4));
	/* The kernel's boot value wraps through 0 after 300 GPs; the
	 * comparisons hold across it. */
	s = RCU_TREE_GP_SEQ_INIT;
	ck_assert_uint_eq(s, UINT64_MAX - 1199);
	bool passed_zero = false;
	for (int gp = 0; gp < 400; gp++) {
		uint64_t old = s, snap_idle = rcu_seq_snap(s);
		ck_assert_uint_eq(snap_idle, old + 4);
		rcu_seq_start(&s);
		uint64_t snap_busy = rcu_seq_snap(s);
		ck_assert_uint_eq(snap_busy, old + 8);
		ck_assert(!rcu_seq_done(s, snap_idle));
		ck_assert(rcu_seq_new_gp(old, s));
		rcu_seq_end(&s);
		ck_assert(rcu_seq_done(s, snap_idle) && !rcu_seq_done(s, snap_busy));
		ck_assert(rcu_seq_completed_gp(old, s));
		ck_assert(rcu_ulong_cmp_lt(old, s));
		passed_zero |= s == 0;
	}
	ck_assert(passed_zero);
	ck_assert_uint_eq(s, 400 * 4 - 1200);
}
END_TEST

/* ---- 2. geometry ----------------------------------------------------------- */

typedef struct shape {
	int ncpus, leaf, levels, count[3], nnodes;
} shape;

static const shape shapes[] = {
	{ 32, 16, 2, { 1, 2 }, 3 },
	{ 256, 16, 2, { 1, 16 }, 17 },
	{ 1024, 16, 2, { 1, 64 }, 65 },
	{ 2048, 16, 3, { 1, 2, 128 }, 131 },
	{ 4096, 16, 3, { 1, 4, 256 }, 261 },
	{ 16, 16, 1, { 1 }, 1 },
	{ 100, 16, 2, { 1, 7 }, 8 },
	{ 4096, 64, 2, { 1, 64 }, 65 },
	{ 256, 2, 3, { 1, 2, 128 }, 131 },
};

START_TEST(tree_geometry_shapes)
{
	const shape *sh = &shapes[_i];
	int levels, count[RCU_TREE_MAX_LVLS];
	ck_assert_int_eq(rcu_tree_geometry(sh->ncpus, sh->leaf, 64, &levels, count), 0);
	ck_assert_int_eq(levels, sh->levels);
	for (int i = 0; i < levels; i++)
		ck_assert_int_eq(count[i], sh->count[i]);
	rcu_tree_cfg cfg;
	rcu_tree_cfg_default(&cfg, sh->ncpus, 1000);
	cfg.rcu_fanout_leaf = sh->leaf;
	rcu_tree_state *rsp = mk_cfg(&cfg, false);
	ck_assert_int_eq(rsp->nnodes, sh->nnodes);
	ck_assert_int_eq(rsp->nleaves, sh->count[levels - 1]);
	/* Each node's CPUs are its children's, without gaps; each child's bit
	 * is set in its parent's qsmaskinit; the root covers every CPU. */
	ck_assert_int_eq(rsp->node[0].grplo, 0);
	ck_assert_int_eq(rsp->node[0].grphi, sh->ncpus - 1);
	ck_assert_int_eq(rsp->node[0].parent, -1);
	for (int n = 1; n < rsp->nnodes; n++) {
		const rcu_tree_node *rnp = &rsp->node[n], *up = &rsp->node[rnp->parent];
		ck_assert_int_eq(up->level, rnp->level - 1);
		ck_assert(rnp->grplo >= up->grplo && rnp->grphi <= up->grphi);
		ck_assert_uint_eq(rnp->grpmask, UINT64_C(1) << rnp->grpnum);
		ck_assert(up->qsmaskinit & rnp->grpmask);
		if (n + 1 < rsp->nnodes && rsp->node[n + 1].level == rnp->level)
			ck_assert_int_eq(rsp->node[n + 1].grplo, rnp->grphi + 1);
	}
	for (int c = 0; c < sh->ncpus; c++) {
		const rcu_tree_node *leaf = rcu_tree_leaf(rsp, c);
		ck_assert_int_eq(leaf->level, levels - 1);
		ck_assert(c >= leaf->grplo && c <= leaf->grphi);
		ck_assert_uint_eq(rsp->rda[c].grpmask, UINT64_C(1) << (c - leaf->grplo));
		ck_assert(leaf->qsmaskinit & rsp->rda[c].grpmask);
	}
	ck_assert(rcu_tree_sane(rsp));
	/* Worked examples. */
	if (sh->ncpus == 4096 && sh->leaf == 16) {
		/* Level 1: nodes 1-4, 1024 CPUs each; leaves 5-260, 16 each, 64
		 * under each level-1 node. CPU 1000: leaf 5 + 62 = 67, bit 8. */
		ck_assert_uint_eq(rsp->node[0].qsmaskinit, 0xf);
		ck_assert_int_eq(rsp->node[2].grplo, 1024);
		ck_assert_uint_eq(rsp->node[2].qsmaskinit, UINT64_MAX);
		ck_assert_int_eq(rsp->rda[1000].leaf, 67);
		ck_assert_uint_eq(rsp->rda[1000].grpmask, 1u << 8);
		ck_assert_int_eq(rsp->node[67].parent, 1);
		ck_assert_uint_eq(rsp->node[67].grpmask, UINT64_C(1) << 62);
		ck_assert_int_eq(rsp->node[69].parent, 2); /* leaf 64: the first under node 2 */
		ck_assert_uint_eq(rsp->node[69].grpmask, 1);
		ck_assert_int_eq(rsp->rda[4095].leaf, 260);
		ck_assert_uint_eq(rsp->node[260].qsmaskinit, 0xffff);
	}
	if (sh->ncpus == 100) {
		/* 7 leaves: ceil(100 / 7) = 15 CPUs each, the last 90-99. */
		ck_assert_int_eq(rsp->node[1].grphi, 14);
		ck_assert_int_eq(rsp->node[7].grplo, 90);
		ck_assert_int_eq(rsp->node[7].grphi, 99);
		ck_assert_uint_eq(rsp->node[7].qsmaskinit, 0x3ff);
		ck_assert_uint_eq(rsp->rda[99].grpmask, 1u << 9);
	}
	if (sh->ncpus == 16)
		ck_assert_int_eq(rsp->rda[15].leaf, 0); /* the root is the leaf */
	if (sh->leaf == 2) {
		/* Leaves of 2 CPUs, 64 under each of the 2 level-1 nodes. */
		ck_assert_int_eq(rsp->node[3].grphi, 1);
		ck_assert_int_eq(rsp->node[3 + 64].parent, 2);
		ck_assert_int_eq(rsp->node[2].grplo, 128);
	}
	rcu_tree_destroy(rsp);
}
END_TEST

START_TEST(tree_geometry_limits)
{
	int levels, count[RCU_TREE_MAX_LVLS];
	/* 16 x 64^3 CPUs fit 4 levels; one more does not. */
	ck_assert_int_eq(rcu_tree_geometry(4194304, 16, 64, &levels, count), 0);
	ck_assert_int_eq(levels, 4);
	ck_assert_int_eq(count[1], 64);
	ck_assert_int_eq(rcu_tree_geometry(4194305, 16, 64, &levels, count), SIM_EINPUT);
	ck_assert_int_eq(rcu_tree_geometry(32, 1, 64, &levels, count), SIM_EINPUT);
	ck_assert_int_eq(rcu_tree_geometry(32, 65, 64, &levels, count), SIM_EINPUT);
	/* GP init walks the leaves (RCU_GP_ONOFF) and every node; cleanup every
	 * node: 256 + 261 and 261 at 4096 CPUs. */
	rcu_tree_state *rsp = mk(4096, 250);
	rsp->gp_flags = RCU_GP_FLAG_INIT;
	ck_assert_int_eq(rcu_tree_gp_init(rsp, -1, 0), 517);
	ck_assert_uint_eq(rsp->node[0].qsmask, 0xf);
	ck_assert_uint_eq(rsp->node[260].qsmask, 0xffff);
	ck_assert_int_eq(rcu_tree_gp_init(rsp, -1, 0), 0); /* nothing requested */
	rcu_tree_destroy(rsp);
	rcu_tree_destroy(NULL);
}
END_TEST

/* ---- 3. the segmented list ------------------------------------------------ */

static void seglens(const rcu_segcblist *l, int64_t d, int64_t w, int64_t r, int64_t n)
{
	ck_assert_int_eq(rcu_segcblist_seglen(l, RCU_DONE_TAIL), d);
	ck_assert_int_eq(rcu_segcblist_seglen(l, RCU_WAIT_TAIL), w);
	ck_assert_int_eq(rcu_segcblist_seglen(l, RCU_NEXT_READY_TAIL), r);
	ck_assert_int_eq(rcu_segcblist_seglen(l, RCU_NEXT_TAIL), n);
	ck_assert_int_eq(rcu_segcblist_n_cbs(l), d + w + r + n);
	ck_assert(rcu_segcblist_sane(l));
}

START_TEST(tree_segcblist_accelerate_advance)
{
	rcu_segcblist l;
	ck_assert_int_eq(rcu_segcblist_init(&l, true, false), 0);
	ck_assert(!rcu_segcblist_accelerate(&l, 8)); /* empty */
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(rcu_segcblist_enqueue(&l, 1 + i, 10 + i), 0);
	seglens(&l, 0, 0, 0, 3);
	/* NEXT gets GP 8 and becomes WAIT. */
	ck_assert(rcu_segcblist_accelerate(&l, 8));
	seglens(&l, 0, 3, 0, 0);
	ck_assert_uint_eq(l.gp_seq[RCU_WAIT_TAIL], 8);
	/* Two more for GP 12: NEXT_READY. */
	rcu_segcblist_enqueue(&l, 4, 13);
	rcu_segcblist_enqueue(&l, 5, 14);
	ck_assert(rcu_segcblist_accelerate(&l, 12));
	seglens(&l, 0, 3, 2, 0);
	ck_assert_uint_eq(l.gp_seq[RCU_NEXT_READY_TAIL], 12);
	/* One more for GP 12 joins NEXT_READY. */
	rcu_segcblist_enqueue(&l, 6, 15);
	ck_assert(rcu_segcblist_accelerate(&l, 12));
	seglens(&l, 0, 3, 3, 0);
	/* One for GP 16: no segment left, NEXT keeps it unassigned. */
	rcu_segcblist_enqueue(&l, 7, 16);
	ck_assert(!rcu_segcblist_accelerate(&l, 16));
	seglens(&l, 0, 3, 3, 1);
	/* GP 7 is not 8; GP 8 done: WAIT -> DONE, NEXT_READY slides to WAIT. */
	rcu_segcblist_advance(&l, 7);
	seglens(&l, 0, 3, 3, 1);
	rcu_segcblist_advance(&l, 8);
	seglens(&l, 3, 3, 0, 1);
	ck_assert_uint_eq(l.gp_seq[RCU_WAIT_TAIL], 12);
	ck_assert(rcu_segcblist_accelerate(&l, 16));
	seglens(&l, 3, 3, 1, 0);
	ck_assert_uint_eq(l.gp_seq[RCU_NEXT_READY_TAIL], 16);
	/* Better news: all of it can go with GP 12 (labelled early under a
	 * node that had not seen GP 12 start): NEXT_READY merges into WAIT. */
	ck_assert(rcu_segcblist_accelerate(&l, 12));
	seglens(&l, 3, 4, 0, 0);
	ck_assert_uint_eq(l.gp_seq[RCU_WAIT_TAIL], 12);
	/* Both waiting segments done at once. */
	rcu_segcblist_enqueue(&l, 8, 17);
	ck_assert(rcu_segcblist_accelerate(&l, 16));
	seglens(&l, 3, 4, 1, 0);
	rcu_segcblist_advance(&l, 16);
	seglens(&l, 8, 0, 0, 0);
	ck_assert(!rcu_segcblist_pend_cbs(&l) && rcu_segcblist_ready_cbs(&l));
	/* FIFO order: call times 1..8 and objects 10..17. */
	for (uint64_t i = 0; i < 8; i++) {
		ck_assert_int_eq(rcu_segcblist_call_time(&l, l.head + i, 1000), 1 + (int64_t)i);
		ck_assert_uint_eq(l.obj[(l.head + i) & (l.cap - 1)], 10 + i);
	}
	rcu_segcblist_fini(&l);
}
END_TEST

START_TEST(tree_segcblist_ring_and_times)
{
	/* 48-bit call times rebuilt from the reading time, across 2^32 and
	 * 2^48; the ring grows past 64 keeping segments and order. */
	rcu_segcblist l;
	ck_assert_int_eq(rcu_segcblist_init(&l, false, false), 0);
	const sim_time big = INT64_C(1) << 48;
	rcu_segcblist_enqueue(&l, big - 1, 0);
	rcu_segcblist_enqueue(&l, big + 5, 0);
	rcu_segcblist_enqueue(&l, (INT64_C(1) << 32) + 7, 0);
	ck_assert_int_eq(rcu_segcblist_call_time(&l, 0, big + 10), big - 1);
	ck_assert_int_eq(rcu_segcblist_call_time(&l, 1, big + 100), big + 5);
	ck_assert_int_eq(rcu_segcblist_call_time(&l, 2, (INT64_C(1) << 32) + 100), (INT64_C(1) << 32) + 7);
	ck_assert(rcu_segcblist_accelerate(&l, 4));
	for (int i = 0; i < 200; i++)
		rcu_segcblist_enqueue(&l, 1000 + i, 0);
	ck_assert_uint_eq(l.cap, 256);
	seglens(&l, 0, 3, 0, 200);
	ck_assert_int_eq(rcu_segcblist_call_time(&l, 3 + 199, 5000), 1199);
	rcu_segcblist_fini(&l);
}
END_TEST

/* ---- 4. a grace period end to end ------------------------------------------- */

START_TEST(tree_mid_gp_callback_waits_rest_plus_one_gp)
{
	/* 32 CPUs: root 0, leaves 1 (CPUs 0-15) and 2 (16-31); the GP kthread
	 * runs on CPU 31. */
	rcu_tree_state *rsp = mk(32, 1000);
	const uint64_t g0 = rsp->gp_seq;
	rcu_effect eff = { 0 };
	ck_assert(!rcu_tree_pending(rsp, 0));
	call_n(rsp, 0, 1, 100, &eff);
	ck_assert(!eff.wake_gp && !eff.raise);
	ck_assert(rcu_tree_pending(rsp, 0)); /* RCU idle, NEXT needs a GP */
	/* CPU 0's RCU core: NEXT waits for g0 + 4, requested up to the root. */
	ck_assert(rcu_tree_core(rsp, 0));
	ck_assert_int_eq(rsp->gp_flags, RCU_GP_FLAG_INIT);
	ck_assert_uint_eq(rsp->rda[0].cblist.gp_seq[RCU_WAIT_TAIL], g0 + 4);
	ck_assert_uint_eq(rsp->node[1].gp_seq_needed, g0 + 4);
	ck_assert_uint_eq(rsp->node[0].gp_seq_needed, g0 + 4);
	ck_assert(!rcu_tree_pending(rsp, 0)); /* waiting for the kthread */
	/* CPU 20 asks for the same GP: recorded in its leaf, stops at the
	 * root, which has it: no second wakeup. */
	call_n(rsp, 20, 1, 110, NULL);
	ck_assert(!rcu_tree_core(rsp, 20));
	ck_assert_uint_eq(rsp->node[2].gp_seq_needed, g0 + 4);
	/* The GP starts: 2 leaves + 3 nodes walked. */
	ck_assert_int_eq(rcu_tree_gp_init(rsp, 31, 1), 5);
	ck_assert_uint_eq(rsp->gp_seq, g0 + 1);
	ck_assert_uint_eq(rsp->node[0].qsmask, 0x3);
	ck_assert_uint_eq(rsp->node[1].qsmask, 0xffff);
	ck_assert(rsp->rda[31].core_needs_qs && rsp->rda[31].gp_seq == g0 + 1); /* its own CPU */
	ck_assert_uint_eq(rsp->jiffies_resched, 1 + 21000 / 2);
	/* CPU 5 queues mid-GP: it must wait for g0 + 8, the end of the GP
	 * after this one (the reader may predate this GP's start). */
	call_n(rsp, 5, 1, 200, NULL);
	ck_assert(!rcu_tree_core(rsp, 5));
	ck_assert_uint_eq(rsp->rda[5].cblist.gp_seq[RCU_WAIT_TAIL], g0 + 8);
	ck_assert_uint_eq(rsp->node[1].gp_seq_needed, g0 + 8); /* the leaf records it */
	ck_assert_uint_eq(rsp->node[0].gp_seq_needed, g0 + 4); /* the GP running will see it */
	ck_assert(report_all(rsp, -1));
	/* The GP ends; leaf 1 wants g0 + 8: the next one starts back to back. */
	ck_assert(finish_gp(rsp, 31, 2));
	ck_assert_uint_eq(rsp->gp_seq, g0 + 4);
	ck_assert_int_eq(rsp->gp_flags, RCU_GP_FLAG_INIT);
	ck_assert_uint_eq(rsp->gp_completed, 1);
	/* CPU 0 sees the end: its callback is ready; CPU 5's is not. */
	ck_assert(rcu_tree_pending(rsp, 0));
	rcu_tree_core(rsp, 0);
	ck_assert_int_eq(rcu_segcblist_seglen(&rsp->rda[0].cblist, RCU_DONE_TAIL), 1);
	rcu_tree_core(rsp, 5);
	ck_assert_int_eq(rcu_segcblist_seglen(&rsp->rda[5].cblist, RCU_DONE_TAIL), 0);
	ck_assert_int_eq(rcu_segcblist_seglen(&rsp->rda[5].cblist, RCU_WAIT_TAIL), 1);
	/* One whole GP more. */
	ck_assert_int_eq(rcu_tree_gp_init(rsp, 31, 3), 5);
	report_all(rsp, -1);
	ck_assert(!finish_gp(rsp, 31, 4));
	ck_assert_uint_eq(rsp->gp_seq, g0 + 8);
	rcu_tree_core(rsp, 5);
	ck_assert_int_eq(rcu_segcblist_seglen(&rsp->rda[5].cblist, RCU_DONE_TAIL), 1);
	/* Invoked at 10000: latency 9800. */
	sim_hist *lat = malloc(sizeof(*lat));
	sim_hist_init(lat);
	rcu_tree_batch b = { RCU_TREE_SOFTIRQ, false, false, 10000, 100 };
	rcu_tree_batch_out out;
	ck_assert_int_eq(rcu_tree_do_batch(rsp, 5, &b, lat, &out), 1);
	ck_assert(!out.more);
	ck_assert_uint_eq(lat->max, 9800);
	ck_assert(!rcu_tree_pending(rsp, 5));
	free(lat);
	rcu_tree_destroy(rsp);
}
END_TEST

START_TEST(tree_qs_reports_clear_bits_up_the_tree)
{
	rcu_tree_state *rsp = mk(32, 1000);
	call_n(rsp, 0, 1, 0, NULL);
	rcu_tree_core(rsp, 0);
	ck_assert_int_eq(rcu_tree_gp_init(rsp, -1, 0), 5);
	const uint64_t gp = rsp->gp_seq;
	/* A QS noted before CPU 3 saw the GP does not count: noticing the GP
	 * sets cpu_no_qs again. */
	rcu_tree_qs(rsp, 3);
	ck_assert(!rcu_tree_check_quiescent_state(rsp, 3));
	ck_assert(rsp->rda[3].cpu_no_qs && rsp->rda[3].core_needs_qs);
	ck_assert(rsp->node[1].qsmask & (1u << 3));
	ck_assert(!rcu_tree_pending(rsp, 3)); /* nothing to do until a QS */
	rcu_tree_qs(rsp, 3);
	ck_assert(rcu_tree_pending(rsp, 3)); /* a QS to report */
	ck_assert(!rcu_tree_check_quiescent_state(rsp, 3));
	ck_assert(!(rsp->node[1].qsmask & (1u << 3)));
	ck_assert(!rsp->rda[3].core_needs_qs);
	/* CPUs 0-15: the last clears leaf 1's bit in the root. */
	for (int c = 0; c < 16; c++) {
		ck_assert_uint_eq(rsp->node[0].qsmask, 0x3);
		rcu_tree_check_quiescent_state(rsp, c);
		rcu_tree_qs(rsp, c);
		ck_assert(!rcu_tree_check_quiescent_state(rsp, c));
	}
	ck_assert_uint_eq(rsp->node[1].qsmask, 0);
	ck_assert_uint_eq(rsp->node[1].completedqs, gp);
	ck_assert_uint_eq(rsp->node[0].qsmask, 0x2);
	/* CPUs 16-30 leave only CPU 31. CPU 20 queues a callback after it saw
	 * the GP: its report classifies it (GP gp + 7) and records the request
	 * in its leaf, so the next GP follows this one at once. */
	for (int c = 16; c < 31; c++) {
		rcu_tree_check_quiescent_state(rsp, c);
		if (c == 20)
			call_n(rsp, 20, 1, 0, NULL);
		rcu_tree_qs(rsp, c);
		ck_assert(!rcu_tree_check_quiescent_state(rsp, c));
	}
	ck_assert_int_eq(rcu_segcblist_seglen(&rsp->rda[20].cblist, RCU_WAIT_TAIL), 1);
	ck_assert_uint_eq(rsp->rda[20].cblist.gp_seq[RCU_WAIT_TAIL], gp + 7);
	ck_assert_uint_eq(rsp->node[2].gp_seq_needed, gp + 7);
	ck_assert_uint_eq(rsp->node[2].qsmask, UINT64_C(1) << 15);
	ck_assert_uint_eq(rsp->node[0].qsmask, 0x2);
	ck_assert(!(rsp->gp_flags & RCU_GP_FLAG_FQS));
	/* A report for an old GP, or an already cleared bit, changes nothing. */
	ck_assert(!rcu_tree_report_qs_rnp(rsp, UINT64_C(1) << 15, 2, gp - 4));
	ck_assert(!rcu_tree_report_qs_rnp(rsp, 1, 2, gp));
	ck_assert_uint_eq(rsp->node[2].qsmask, UINT64_C(1) << 15);
	/* The last one reaches the root: the GP kthread is to wake. */
	rcu_tree_check_quiescent_state(rsp, 31);
	rcu_tree_qs(rsp, 31);
	ck_assert(rcu_tree_check_quiescent_state(rsp, 31));
	ck_assert_uint_eq(rsp->node[0].qsmask, 0);
	ck_assert(rsp->gp_flags & RCU_GP_FLAG_FQS);
	ck_assert(rcu_tree_gp_fqs_check_wake(rsp));
	ck_assert(!rcu_tree_check_quiescent_state(rsp, 31)); /* again: nothing */
	ck_assert(finish_gp(rsp, -1, 1)); /* CPU 20's GP */
	ck_assert_uint_eq(rsp->gp_seq, gp + 3);
	ck_assert_int_eq(rsp->gp_flags, RCU_GP_FLAG_INIT);
	ck_assert_int_eq(rsp->gp_state, RCU_GP_CLEANED);
	rcu_tree_destroy(rsp);
}
END_TEST

/* ---- 5. FQS ------------------------------------------------------------------- */

typedef struct fqs_case {
	int hz, ncpus;
	int64_t fqs, jtsq, ovld_fqs;
} fqs_case;

/* 1 + (HZ > 250) + (HZ > 500) + CPUs / 256; jtsq = max(3 fqs, HZ / 10 +
 * CPUs / 256); under overload (fqs + 2) / 3. */
static const fqs_case fqs_cases[] = {
	{ 250, 32, 1, 25, 1 },   { 250, 256, 2, 26, 1 },   { 250, 4096, 17, 51, 6 },
	{ 1000, 32, 3, 100, 1 }, { 1000, 256, 4, 101, 2 }, { 1000, 4096, 19, 116, 7 },
};

START_TEST(tree_fqs_intervals)
{
	const fqs_case *fc = &fqs_cases[_i];
	rcu_tree_state *rsp = mk(fc->ncpus, fc->hz);
	ck_assert_int_eq(rsp->jiffies_till_first_fqs, fc->fqs);
	ck_assert_int_eq(rsp->jiffies_till_next_fqs, fc->fqs);
	ck_assert_int_eq(rsp->jiffies_to_sched_qs, fc->jtsq);
	ck_assert_int_eq(rsp->jiffies_till_stall, 21 * fc->hz);
	/* A GP at jiffies 100 whose CPUs all owe a QS: the first scan after
	 * the first wait; under overload the wait shrinks. */
	rsp->gp_flags = RCU_GP_FLAG_INIT;
	rcu_tree_gp_init(rsp, -1, 100);
	ck_assert_int_eq(rsp->jiffies_resched, 100 + 21 * fc->hz / 2);
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_start(rsp, 100), fc->fqs);
	ck_assert_int_eq(rsp->jiffies_force_qs, 100 + fc->fqs);
	rcu_tree_fqs_result res;
	/* A wakeup that asks nothing: sleep on. */
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_wake(rsp, 100, &res), RCU_TREE_FQS_SLEEP);
	ck_assert_int_eq(res.wait, fc->fqs);
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_wake(rsp, 100 + fc->fqs, &res), RCU_TREE_FQS_SCANNED);
	ck_assert_int_eq(res.leaves, rsp->nleaves);
	ck_assert_int_eq(res.cpus, fc->ncpus);
	ck_assert_int_eq(res.reported, 0);
	ck_assert_int_eq(res.wait, fc->fqs);
	ck_assert_uint_eq(rsp->n_force_qs, 1);
	rsp->cbovldnext = true; /* this scan runs under overload */
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_wake(rsp, 100 + 2 * fc->fqs, &res), RCU_TREE_FQS_SCANNED);
	ck_assert(rsp->cbovld);
	ck_assert_int_eq(res.wait, fc->ovld_fqs);
	rcu_tree_destroy(rsp);
}
END_TEST

START_TEST(tree_fqs_tunables_clamped)
{
	rcu_tree_cfg cfg;
	rcu_tree_cfg_default(&cfg, 32, 1000);
	cfg.jiffies_till_first_fqs = 5000; /* at most HZ */
	cfg.jiffies_till_next_fqs = 0;     /* 0 means 1 */
	rcu_tree_state *rsp = mk_cfg(&cfg, false);
	ck_assert_int_eq(rsp->jiffies_till_first_fqs, 1000);
	ck_assert_int_eq(rsp->jiffies_till_next_fqs, 1);
	ck_assert_int_eq(rsp->jiffies_to_sched_qs, 1002); /* max(1000 + 2, 100) */
	rcu_tree_destroy(rsp);
	cfg.jiffies_till_first_fqs = 0;
	cfg.jiffies_till_sched_qs = 7;
	cfg.stall_timeout_ns = INT64_C(60000000000);
	rsp = mk_cfg(&cfg, false);
	ck_assert_int_eq(rsp->jiffies_till_first_fqs, 0);
	ck_assert_int_eq(rsp->jiffies_to_sched_qs, 7);
	ck_assert_int_eq(rsp->jiffies_till_stall, 60000);
	rcu_tree_destroy(rsp);
}
END_TEST

/* One FQS-loop step at @j that must scan; returns the result. */
static rcu_tree_fqs_result scan_at(rcu_tree_state *rsp, int64_t j)
{
	rcu_tree_fqs_result res;
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_wake(rsp, j, &res), RCU_TREE_FQS_SCANNED);
	ck_assert(rcu_tree_sane(rsp));
	return res;
}

START_TEST(tree_fqs_idle_cpus_and_escalation)
{
	/* 32 CPUs at HZ 1000, the first scan after 3 jiffies, then (for the
	 * test) one every jiffy: jtsq max(3 + 2, 100) = 100, stall 21000.
	 * The GP starts at jiffies 1000: urgent after 1100 (not at it), heavy
	 * after 1200, resched_cpu() after 1000 + 10500, then at most once per
	 * 100 jiffies. */
	rcu_tree_cfg cfg;
	rcu_tree_cfg_default(&cfg, 32, 1000);
	cfg.jiffies_till_next_fqs = 1;
	rcu_tree_state *rsp = mk_cfg(&cfg, false);
	ck_assert_int_eq(rsp->jiffies_to_sched_qs, 100);
	rcu_tree_eqs_enter(rsp, 7); /* CPU 7 idle throughout */
	rsp->gp_flags = RCU_GP_FLAG_INIT;
	rcu_tree_gp_init(rsp, -1, 1000);
	/* Everyone but 5, 7 and 9 reports. */
	for (int c = 0; c < 32; c++) {
		if (c == 5 || c == 7 || c == 9)
			continue;
		rcu_tree_check_quiescent_state(rsp, c);
		rcu_tree_qs(rsp, c);
		rcu_tree_check_quiescent_state(rsp, c);
	}
	ck_assert_uint_eq(rsp->node[1].qsmask, (1u << 5) | (1u << 7) | (1u << 9));
	ck_assert_uint_eq(rsp->node[2].qsmask, 0);
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_start(rsp, 1000), 3);
	/* First scan: snapshots; idle CPU 7 is reported for. */
	rcu_tree_fqs_result res = scan_at(rsp, 1003);
	ck_assert_int_eq(res.cpus, 3);
	ck_assert_int_eq(res.reported, 1);
	ck_assert_int_eq(res.nresched, 0);
	ck_assert_uint_eq(rsp->node[1].qsmask, (1u << 5) | (1u << 9));
	/* CPU 9 idles a moment between scans: the counter moved. */
	rcu_tree_eqs_enter(rsp, 9);
	rcu_tree_eqs_exit(rsp, 9);
	res = scan_at(rsp, 1004);
	ck_assert_int_eq(res.cpus, 2);
	ck_assert_int_eq(res.reported, 1);
	ck_assert_uint_eq(rsp->node[1].qsmask, 1u << 5);
	/* CPU 5 never reports: escalate. */
	rcu_tree_data *rdp = &rsp->rda[5];
	int64_t first_urgent = -1, first_heavy = -1, resched[4];
	int nresched = 0;
	for (int64_t j = 1005; j <= 11800; j++) {
		res = scan_at(rsp, j);
		ck_assert_int_eq(res.wait, 1);
		ck_assert_int_eq(res.cpus, 1);
		if (rdp->rcu_urgent_qs && first_urgent < 0)
			first_urgent = j;
		if (rdp->rcu_need_heavy_qs && first_heavy < 0)
			first_heavy = j;
		if (res.nresched) {
			ck_assert_int_eq(res.nresched, 1);
			ck_assert_int_eq(res.resched[0], 5);
			ck_assert_int_lt(nresched, 4);
			resched[nresched++] = j;
		}
	}
	ck_assert_int_eq(first_urgent, 1101); /* the first scan after 1100 */
	ck_assert_int_eq(first_heavy, 1201);  /* the first after 1200 */
	ck_assert_int_eq(nresched, 3);
	ck_assert_int_eq(resched[0], 11501); /* after 11500 */
	ck_assert_int_eq(resched[1], 11602); /* after 11501 + 100 */
	ck_assert_int_eq(resched[2], 11703);
	/* A context switch with heavy QS asked: a momentary extended QS,
	 * which the next scan sees; urgency is over. */
	rcu_tree_note_context_switch(rsp, 5);
	ck_assert(!rdp->rcu_urgent_qs && !rdp->rcu_need_heavy_qs);
	ck_assert_uint_eq(rdp->watching, 3);
	res = scan_at(rsp, 11801);
	ck_assert_int_eq(res.reported, 1);
	ck_assert_uint_eq(rsp->node[0].qsmask, 0);
	ck_assert_int_eq(res.wait, 0); /* the root is clear: no wait */
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_wake(rsp, 11801, &res), RCU_TREE_FQS_DONE);
	bool needgp;
	rcu_tree_gp_cleanup(rsp, -1, 11801, &needgp);
	ck_assert_int_eq(rsp->gp_max, 10801);
	rcu_tree_destroy(rsp);
}
END_TEST

START_TEST(tree_fqs_force_quiescent_state_wakes_early)
{
	rcu_tree_state *rsp = mk(32, 250);
	ck_assert(!rcu_tree_force_quiescent_state(rsp)); /* no GP */
	rsp->gp_flags = RCU_GP_FLAG_INIT;
	rcu_tree_gp_init(rsp, -1, 0);
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_start(rsp, 0), 1);
	rcu_tree_fqs_result res;
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_wake(rsp, 0, &res), RCU_TREE_FQS_SLEEP);
	/* A new GP request does not end the FQS wait; an FQS request does. */
	rsp->gp_flags |= RCU_GP_FLAG_INIT;
	ck_assert(!rcu_tree_gp_fqs_check_wake(rsp));
	rsp->gp_flags &= ~RCU_GP_FLAG_INIT;
	ck_assert(rcu_tree_force_quiescent_state(rsp));
	ck_assert(!rcu_tree_force_quiescent_state(rsp)); /* already asked */
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_wake(rsp, 0, &res), RCU_TREE_FQS_SCANNED);
	ck_assert(!(rsp->gp_flags & RCU_GP_FLAG_FQS));
	ck_assert_int_eq(res.wait, 1);
	rcu_tree_destroy(rsp);
}
END_TEST

START_TEST(tree_fqs_overload)
{
	/* qovld 5 for the test: CPU 0's sixth call_rcu sees 5 queued and
	 * marks it. 32 CPUs at HZ 1000 (FQS waits 3, under overload 1). */
	rcu_tree_cfg cfg;
	rcu_tree_cfg_default(&cfg, 32, 1000);
	cfg.qovld = 5;
	rcu_tree_state *rsp = mk_cfg(&cfg, false);
	call_n(rsp, 0, 5, 0, NULL);
	ck_assert_uint_eq(rsp->node[1].cbovldmask, 0);
	call_n(rsp, 0, 1, 0, NULL);
	ck_assert_uint_eq(rsp->node[1].cbovldmask, 1);
	/* GP 1: cbovld follows the masks one scan late. */
	rcu_tree_core(rsp, 0);
	rcu_tree_gp_init(rsp, -1, 0);
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_start(rsp, 0), 3);
	scan_at(rsp, 3);
	ck_assert(!rsp->cbovld && rsp->cbovldnext);
	ck_assert(!rsp->rda[20].rcu_need_heavy_qs);
	rcu_tree_fqs_result res = scan_at(rsp, 6); /* under overload from here */
	ck_assert(rsp->cbovld);
	ck_assert(rsp->rda[20].rcu_need_heavy_qs && rsp->rda[20].rcu_urgent_qs); /* at age 6 */
	ck_assert_int_eq(res.wait, 1);
	/* CPU 0's callbacks drain; its bit stays until the GP's cleanup. */
	report_all(rsp, -1);
	all_done(rsp, 0);
	rcu_tree_batch b = { RCU_TREE_SOFTIRQ, false, true, 100, 10 };
	rcu_tree_batch_out out;
	ck_assert_int_eq(rcu_tree_do_batch(rsp, 0, &b, NULL, &out), 6);
	ck_assert_uint_eq(rsp->node[1].cbovldmask, 1);
	ck_assert(!finish_gp(rsp, -1, 7));
	ck_assert_uint_eq(rsp->node[1].cbovldmask, 0);
	/* GP 2 starts with cbovld still set (from GP 1's last scan): the first
	 * two scans come at once; the first sees GP 1's cbovldnext (set), the
	 * second the masks (clear): then waits of 3 again. */
	call_n(rsp, 0, 1, 10, NULL);
	rcu_tree_core(rsp, 0);
	rcu_tree_gp_init(rsp, -1, 10);
	ck_assert(rsp->cbovld);
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_start(rsp, 10), 0);
	res = scan_at(rsp, 10);
	ck_assert_int_eq(res.wait, 0);
	ck_assert(rsp->cbovld && !rsp->cbovldnext);
	res = scan_at(rsp, 10);
	ck_assert(!rsp->cbovld);
	ck_assert_int_eq(res.wait, 3);
	ck_assert_uint_eq(rsp->n_force_qs, 4);
	/* qovld 0: never marked. */
	rcu_tree_destroy(rsp);
	cfg.qovld = 0;
	rsp = mk_cfg(&cfg, false);
	call_n(rsp, 0, 10, 0, NULL);
	ck_assert_uint_eq(rsp->node[1].cbovldmask, 0);
	rcu_tree_destroy(rsp);
}
END_TEST

/* ---- 6. the tick and quiescent states ------------------------------------------ */

START_TEST(tree_tick_and_urgent_qs)
{
	rcu_tree_state *rsp = mk(2, 1000);
	rcu_tree_data *rdp = &rsp->rda[1];
	rcu_effect eff = { 0 };
	/* Urgency from a kernel-mode tick becomes need_resched, once. */
	rdp->rcu_urgent_qs = true;
	rcu_tree_sched_clock_irq(rsp, 1, false, false, &eff);
	ck_assert(eff.need_resched && !rdp->rcu_urgent_qs && rdp->cpu_no_qs);
	eff = (rcu_effect){ 0 };
	rcu_tree_sched_clock_irq(rsp, 1, false, false, &eff);
	ck_assert(!eff.need_resched && !eff.raise);
	/* A user-mode tick is a QS and needs no resched. */
	rdp->rcu_urgent_qs = true;
	rcu_tree_sched_clock_irq(rsp, 1, true, false, &eff);
	ck_assert(!eff.need_resched && !rdp->cpu_no_qs && !rdp->rcu_urgent_qs);
	/* cond_resched() reports only when asked; heavy adds a momentary
	 * extended QS to the watching counter. */
	rdp->cpu_no_qs = true;
	rcu_tree_all_qs(rsp, 1);
	ck_assert(rdp->cpu_no_qs);
	rdp->rcu_urgent_qs = rdp->rcu_need_heavy_qs = true;
	rcu_tree_all_qs(rsp, 1);
	ck_assert(!rdp->cpu_no_qs && !rdp->rcu_urgent_qs && !rdp->rcu_need_heavy_qs);
	ck_assert_uint_eq(rdp->watching, 3);
	/* A context switch is always a QS; urgent alone leaves the counter. */
	rdp->cpu_no_qs = true;
	rdp->rcu_urgent_qs = true;
	rcu_tree_note_context_switch(rsp, 1);
	ck_assert(!rdp->cpu_no_qs && !rdp->rcu_urgent_qs);
	ck_assert_uint_eq(rdp->watching, 3);
	/* call_rcu from idle invokes RCU core; a tick with callbacks in
	 * NEXT and RCU idle does too. */
	rcu_tree_eqs_enter(rsp, 1);
	ck_assert(rcu_tree_in_eqs(rsp, 1));
	eff = (rcu_effect){ 0 };
	call_n(rsp, 1, 1, 0, &eff);
	ck_assert(eff.raise);
	ck_assert(rcu_tree_needs_cpu(rsp, 1));
	rcu_tree_eqs_exit(rsp, 1);
	eff = (rcu_effect){ 0 };
	rcu_tree_sched_clock_irq(rsp, 1, false, false, &eff);
	ck_assert(eff.raise);
	rcu_tree_destroy(rsp);
}
END_TEST

START_TEST(tree_pending_conditions)
{
	/* One CPU through one callback's life: rcu_pending() at each step. */
	rcu_tree_state *rsp = mk(1, 250);
	ck_assert(!rcu_tree_pending(rsp, 0));
	call_n(rsp, 0, 1, 0, NULL);
	ck_assert(rcu_tree_pending(rsp, 0));  /* RCU idle, NEXT not empty */
	ck_assert(rcu_tree_core(rsp, 0));
	ck_assert(!rcu_tree_pending(rsp, 0)); /* waiting for the GP kthread */
	rcu_tree_gp_init(rsp, -1, 0);
	ck_assert(rcu_tree_pending(rsp, 0));  /* a GP started */
	rcu_tree_core(rsp, 0);
	ck_assert(!rcu_tree_pending(rsp, 0)); /* owes a QS, none yet */
	rcu_tree_qs(rsp, 0);
	ck_assert(rcu_tree_pending(rsp, 0));  /* a QS to report */
	ck_assert(rcu_tree_core(rsp, 0));     /* the last QS: wake the kthread */
	ck_assert(!rcu_tree_pending(rsp, 0));
	finish_gp(rsp, -1, 1);
	ck_assert(rcu_tree_pending(rsp, 0));  /* the GP ended */
	rcu_tree_core(rsp, 0);
	ck_assert(rcu_tree_pending(rsp, 0));  /* callbacks ready */
	rcu_tree_batch b = { RCU_TREE_SOFTIRQ, false, false, 10, 10 };
	rcu_tree_batch_out out;
	ck_assert_int_eq(rcu_tree_do_batch(rsp, 0, &b, NULL, &out), 1);
	ck_assert(!rcu_tree_pending(rsp, 0));
	ck_assert(!rcu_tree_needs_cpu(rsp, 0));
	rcu_tree_destroy(rsp);
}
END_TEST

/* ---- 7. rcu_do_batch ---------------------------------------------------------------- */

typedef struct batch_case {
	int64_t ready;           /* callbacks in DONE */
	rcu_tree_invoker where;
	bool need_resched, idle;
	sim_time cost_ns;
	sim_time resched_ns;     /* rcu_resched_ns */
	int64_t bl, invoked;
	bool time_limited;
	rcu_tree_batch_stop stop; /* why it stopped */
} batch_case;

static const batch_case batch_cases[] = {
	/* 10000 >> 7 = 78 > blimit 10, not above 100: no time limit. */
	{ 10000, RCU_TREE_SOFTIRQ, false, false, 400, 3000000, 78, 78, false, RCU_TREE_STOP_COUNT },
	/* 100000 >> 7 = 781: 781 x 400 ns = 0.31 ms, under 3 ms. */
	{ 100000, RCU_TREE_SOFTIRQ, false, false, 400, 3000000, 781, 781, true, RCU_TREE_STOP_COUNT },
	/* At 5 us a callback, 3 ms is 600 callbacks: cut at 608 = 19 x 32. */
	{ 100000, RCU_TREE_SOFTIRQ, false, false, 5000, 3000000, 781, 608, true, RCU_TREE_STOP_TIME },
	/* The idle task without need_resched runs past bl to the time limit:
	 * 7500 callbacks are 3 ms, the check falls at 7520 = 235 x 32. */
	{ 100000, RCU_TREE_SOFTIRQ, false, true, 400, 3000000, 781, 7520, true, RCU_TREE_STOP_TIME },
	/* ... and with need_resched stops at bl. */
	{ 100000, RCU_TREE_SOFTIRQ, true, true, 400, 3000000, 781, 781, true, RCU_TREE_STOP_RESCHED },
	/* bl 10, no time limit: the idle task takes all 50; others 10. */
	{ 50, RCU_TREE_SOFTIRQ, false, true, 400, 3000000, 10, 50, false, RCU_TREE_STOP_EMPTY },
	{ 50, RCU_TREE_SOFTIRQ, false, false, 400, 3000000, 10, 10, false, RCU_TREE_STOP_COUNT },
	/* rcuc: no count limit, the time limit. */
	{ 100000, RCU_TREE_RCUC, true, false, 400, 3000000, 781, 7520, true, RCU_TREE_STOP_TIME },
	{ 5000, RCU_TREE_RCUC, true, false, 400, 3000000, 39, 5000, false, RCU_TREE_STOP_EMPTY },
	/* rcu_resched_ns 0.5 ms counts as 1 ms: 2500 callbacks, cut at 2528. */
	{ 100000, RCU_TREE_SOFTIRQ, false, true, 400, 500000, 781, 2528, true, RCU_TREE_STOP_TIME },
};

START_TEST(tree_do_batch_limits)
{
	const batch_case *bc = &batch_cases[_i];
	rcu_tree_cfg cfg;
	rcu_tree_cfg_default(&cfg, 1, 1000);
	cfg.rcu_resched_ns = bc->resched_ns;
	rcu_tree_state *rsp = mk_cfg(&cfg, true);
	for (int64_t i = 0; i < bc->ready; i++)
		rcu_segcblist_enqueue(&rsp->rda[0].cblist, i, (uint32_t)i);
	all_done(rsp, 0);
	ck_assert_int_eq(rcu_tree_batch_limit(rsp, 0), bc->bl);
	sim_hist *lat = malloc(sizeof(*lat));
	sim_hist_init(lat);
	const sim_time first = 1000000000;
	rcu_tree_batch b = { bc->where, bc->need_resched, bc->idle, first, bc->cost_ns };
	rcu_tree_batch_out out;
	int64_t n = rcu_tree_do_batch(rsp, 0, &b, lat, &out);
	ck_assert_int_eq(n, bc->invoked);
	ck_assert_int_eq(out.bl, bc->bl);
	ck_assert(out.time_limited == bc->time_limited);
	ck_assert_int_eq(out.stop, bc->stop);
	ck_assert(out.more == (n < bc->ready));
	ck_assert_int_eq(rcu_segcblist_n_cbs(&rsp->rda[0].cblist), bc->ready - n);
	/* Callback k, queued at k, runs at first + k x cost. */
	ck_assert_uint_eq(lat->count, (uint64_t)n);
	ck_assert_uint_eq(lat->min, (uint64_t)first);
	ck_assert_uint_eq(lat->max, (uint64_t)(first + (n - 1) * (bc->cost_ns - 1)));
	const uint32_t *runs[2];
	size_t lens[2];
	ck_assert_int_eq(rcu_tree_invoked_objs(rsp, 0, n, runs, lens), 1);
	ck_assert_uint_eq(lens[0], (size_t)n);
	ck_assert_uint_eq(runs[0][n - 1], (uint32_t)(n - 1));
	free(lat);
	rcu_tree_destroy(rsp);
}
END_TEST

START_TEST(tree_do_batch_pre_5_4_limits)
{
	/* Before 5.4: bl = blimit (no divisor), no time limit, and the flood
	 * blimit was LONG_MAX. */
	rcu_tree_cfg cfg;
	rcu_tree_cfg_default(&cfg, 2, 1000);
	cfg.rcu_divisor = RCU_TREE_NO_DIVISOR;
	cfg.rcu_resched_ns = 0;
	cfg.flood_blimit = INT64_MAX;
	rcu_tree_state *rsp = mk_cfg(&cfg, false);
	for (int64_t i = 0; i < 100000; i++)
		rcu_segcblist_enqueue(&rsp->rda[0].cblist, 0, 0);
	all_done(rsp, 0);
	rcu_tree_batch b = { RCU_TREE_SOFTIRQ, false, false, 1000, 400 };
	rcu_tree_batch_out out;
	ck_assert_int_eq(rcu_tree_do_batch(rsp, 0, &b, NULL, &out), 10);
	ck_assert(!out.time_limited);
	b.idle_task = true; /* the idle task, no time limit: everything */
	ck_assert_int_eq(rcu_tree_do_batch(rsp, 0, &b, NULL, &out), 99990);
	/* A flood during a GP: blimit LONG_MAX, so the next batch takes all. */
	rsp->gp_flags = RCU_GP_FLAG_INIT;
	rcu_tree_gp_init(rsp, -1, 0);
	rcu_tree_core(rsp, 1);
	call_n(rsp, 1, 10001, 0, NULL);
	ck_assert_int_eq(rsp->rda[1].blimit, INT64_MAX);
	all_done(rsp, 1);
	b.idle_task = false;
	ck_assert_int_eq(rcu_tree_do_batch(rsp, 1, &b, NULL, &out), 10001);
	ck_assert_int_eq(rsp->rda[1].blimit, 10); /* drained: restored */
	rcu_tree_destroy(rsp);
}
END_TEST

/* ---- 8. call_rcu's overflow path --------------------------------------------------------- */

START_TEST(tree_overflow_kicks_and_restore)
{
	rcu_tree_state *rsp = mk(2, 1000);
	rcu_tree_data *rdp = &rsp->rda[0];
	/* A GP running, CPU 0 with one callback waiting for it. */
	call_n(rsp, 0, 1, 0, NULL);
	rcu_tree_core(rsp, 0);
	rcu_tree_gp_init(rsp, 1, 0);
	/* 10000 more: the queue of 10001 exceeds 0 + qhimark: blimit 10000,
	 * an FQS is forced (none ran since the snapshot) and the trigger moves
	 * to 10001. The new callbacks got their GP on the way. */
	rcu_effect eff = { 0 };
	call_n(rsp, 0, 9999, 0, &eff);
	ck_assert(!eff.wake_gp && rdp->blimit == 10);
	call_n(rsp, 0, 1, 0, &eff);
	ck_assert(eff.wake_gp);
	ck_assert(rsp->gp_flags & RCU_GP_FLAG_FQS);
	ck_assert_int_eq(rdp->blimit, 10000);
	ck_assert_int_eq(rdp->qlen_last_fqs_check, 10001);
	ck_assert_int_eq(rcu_segcblist_seglen(&rdp->cblist, RCU_NEXT_READY_TAIL), 10000);
	/* An FQS scan runs; at 20002 no second kick (one ran since). */
	rcu_tree_fqs_result res;
	rcu_tree_gp_fqs(rsp, true, 1, &res);
	eff = (rcu_effect){ 0 };
	call_n(rsp, 0, 10001, 0, &eff);
	ck_assert(!eff.wake_gp && !(rsp->gp_flags & RCU_GP_FLAG_FQS));
	ck_assert_int_eq(rdp->qlen_last_fqs_check, 20002);
	ck_assert_uint_eq(rdp->n_force_qs_snap, 1);
	/* At 30003 none ran since 20002: kick. */
	call_n(rsp, 0, 10000, 0, &eff);
	ck_assert(!eff.wake_gp);
	call_n(rsp, 0, 1, 0, &eff);
	ck_assert(eff.wake_gp);
	ck_assert_int_eq(rdp->qlen_last_fqs_check, 30003);
	/* Drain (cost 100 ns: 10000 take 1 ms, under the 3 ms limit). */
	all_done(rsp, 0);
	rcu_tree_batch b = { RCU_TREE_SOFTIRQ, false, false, 1000, 100 };
	rcu_tree_batch_out out;
	ck_assert_int_eq(rcu_tree_do_batch(rsp, 0, &b, NULL, &out), 10000); /* 20003 left */
	ck_assert_int_eq(rdp->qlen_last_fqs_check, 30003); /* 20003 is not below 30003 - 10000 */
	ck_assert_int_eq(rcu_tree_do_batch(rsp, 0, &b, NULL, &out), 10000); /* 10003 left */
	ck_assert_int_eq(rdp->qlen_last_fqs_check, 10003);
	ck_assert_int_eq(rdp->blimit, 10000);
	ck_assert_int_eq(rcu_tree_do_batch(rsp, 0, &b, NULL, &out), 10000); /* 3 left <= 100 */
	ck_assert_int_eq(rdp->blimit, 10);
	ck_assert_int_eq(rcu_tree_do_batch(rsp, 0, &b, NULL, &out), 3);
	ck_assert_int_eq(rdp->qlen_last_fqs_check, 0);
	ck_assert_uint_eq(rdp->n_force_qs_snap, rsp->n_force_qs);
	/* The restore's edge: 101 left keeps the flood blimit, 100 ends it. */
	for (int left = 101; left >= 100; left--) {
		rcu_tree_data *r1 = &rsp->rda[1];
		r1->blimit = 10000;
		for (int i = 0; i < 10000 + left; i++)
			rcu_segcblist_enqueue(&r1->cblist, 0, 0);
		all_done(rsp, 1);
		ck_assert_int_eq(rcu_tree_do_batch(rsp, 1, &b, NULL, &out), 10000);
		ck_assert_int_eq(r1->blimit, left == 100 ? 10 : 10000);
		r1->blimit = 10;
		ck_assert_int_eq(rcu_tree_do_batch(rsp, 1, &b, NULL, &out), 10); /* bl = 10 */
		while (rcu_tree_do_batch(rsp, 1, &b, NULL, &out))
			;
	}
	rcu_tree_destroy(rsp);
}
END_TEST

START_TEST(tree_overflow_without_gp_requests_one)
{
	/* No GP running: the overflow path accelerates, which requests one;
	 * blimit and the trigger stay, so the next call takes the path again
	 * but finds its request recorded. */
	rcu_tree_state *rsp = mk(2, 1000);
	rcu_tree_data *rdp = &rsp->rda[0];
	rcu_effect eff = { 0 };
	call_n(rsp, 0, 10000, 0, &eff);
	ck_assert(!eff.wake_gp);
	ck_assert_int_eq(rsp->gp_flags, 0);
	call_n(rsp, 0, 1, 0, &eff);
	ck_assert(eff.wake_gp);
	ck_assert_int_eq(rsp->gp_flags, RCU_GP_FLAG_INIT);
	ck_assert_int_eq(rcu_segcblist_seglen(&rdp->cblist, RCU_WAIT_TAIL), 10001);
	ck_assert_int_eq(rdp->blimit, 10);
	ck_assert_int_eq(rdp->qlen_last_fqs_check, 0);
	eff = (rcu_effect){ 0 };
	call_n(rsp, 0, 1, 0, &eff);
	ck_assert(!eff.wake_gp);
	ck_assert_int_eq(rcu_segcblist_seglen(&rdp->cblist, RCU_WAIT_TAIL), 10002);
	/* With irqs disabled call_rcu_core() stops before the path. */
	rcu_tree_destroy(rsp);
	rsp = mk(2, 1000);
	for (int i = 0; i < 10001; i++)
		ck_assert_int_eq(rcu_tree_call_rcu(rsp, 0, 0, 0, true, &eff), 0);
	ck_assert_int_eq(rsp->gp_flags, 0);
	rcu_tree_destroy(rsp);
	/* The only pending callback does not force an FQS (qhimark 0, so the
	 * first call_rcu overflows). */
	rcu_tree_cfg cfg;
	rcu_tree_cfg_default(&cfg, 2, 1000);
	cfg.qhimark = 0;
	cfg.qlowmark = 0;
	rsp = mk_cfg(&cfg, false);
	rsp->gp_flags = RCU_GP_FLAG_INIT;
	rcu_tree_gp_init(rsp, -1, 0);
	eff = (rcu_effect){ 0 };
	call_n(rsp, 0, 1, 0, &eff);
	ck_assert(!eff.wake_gp && !(rsp->gp_flags & RCU_GP_FLAG_FQS));
	ck_assert_int_eq(rsp->rda[0].blimit, 10000);
	call_n(rsp, 0, 1, 0, &eff);
	ck_assert(eff.wake_gp && (rsp->gp_flags & RCU_GP_FLAG_FQS));
	rcu_tree_destroy(rsp);
}
END_TEST

/* The state call_rcu acts on, equal in @a and @b (CPU @cpu and its leaf,
 * the GP flags), with every queued callback's time. */
static void same_call_state(const rcu_tree_state *a, const rcu_tree_state *b, int cpu, sim_time now)
{
	const rcu_tree_data *x = &a->rda[cpu], *y = &b->rda[cpu];
	const rcu_segcblist *l = &x->cblist, *m = &y->cblist;
	ck_assert_uint_eq(l->head, m->head);
	ck_assert_uint_eq(l->cap, m->cap);
	for (int s = 0; s < RCU_CBLIST_NSEGS; s++) {
		ck_assert_uint_eq(l->tails[s], m->tails[s]);
		if (s == RCU_WAIT_TAIL || s == RCU_NEXT_READY_TAIL)
			ck_assert_uint_eq(l->gp_seq[s], m->gp_seq[s]);
	}
	for (uint64_t i = l->head; i != l->tails[RCU_NEXT_TAIL]; i++)
		ck_assert_int_eq(rcu_segcblist_call_time(l, i, now), rcu_segcblist_call_time(m, i, now));
	ck_assert_int_eq(x->qlen_last_fqs_check, y->qlen_last_fqs_check);
	ck_assert_uint_eq(x->n_force_qs_snap, y->n_force_qs_snap);
	ck_assert_int_eq(x->blimit, y->blimit);
	ck_assert_int_eq(x->qlen_max, y->qlen_max);
	ck_assert_uint_eq(x->gp_seq_needed, y->gp_seq_needed);
	ck_assert_uint_eq(a->node[x->leaf].cbovldmask, b->node[y->leaf].cbovldmask);
	ck_assert_uint_eq(a->node[0].gp_seq_needed, b->node[0].gp_seq_needed);
	ck_assert_int_eq(a->gp_flags, b->gp_flags);
	ck_assert_uint_eq(a->n_force_qs, b->n_force_qs);
}

/* @n calls at @t0, @t0 + @step, ...: one by one into @a, as one
 * rcu_tree_call_rcu_n() into @b; the effects must match too. */
static void call_both(rcu_tree_state *a, rcu_tree_state *b, int cpu, sim_time t0, sim_time step,
		      int64_t n)
{
	rcu_effect ea = { 0 }, eb = { 0 };
	for (int64_t i = 0; i < n; i++)
		ck_assert_int_eq(rcu_tree_call_rcu(a, cpu, t0 + i * step, 0, false, &ea), 0);
	ck_assert_int_eq(rcu_tree_call_rcu_n(b, cpu, t0, step, n, &eb), 0);
	ck_assert_int_eq(ea.wake_gp, eb.wake_gp);
	ck_assert_int_eq(ea.raise, eb.raise);
	ck_assert_int_eq(ea.need_resched, eb.need_resched);
	same_call_state(a, b, cpu, t0 + n * step);
}

START_TEST(tree_call_rcu_n_matches_one_by_one)
{
	/* qhimark 50, qovld 70: the bulk call crosses both thresholds in the
	 * middle of its callbacks; without a GP every call past the trigger
	 * takes the overflow path. Each step's state is compared with the
	 * same calls made one by one. */
	rcu_tree_cfg cfg;
	rcu_tree_cfg_default(&cfg, 4, 1000);
	cfg.qhimark = 50;
	cfg.qlowmark = 10;
	cfg.qovld = 70;
	rcu_tree_state *a = mk_cfg(&cfg, false), *b = mk_cfg(&cfg, false);
	/* No GP: 60 calls, the 51st to the 60th overflow (each accelerates
	 * and the first requests a GP). */
	call_both(a, b, 0, 1000, 7, 60);
	ck_assert_int_eq(b->gp_flags, RCU_GP_FLAG_INIT);
	ck_assert_int_eq(rcu_segcblist_n_cbs(&b->rda[0].cblist), 60);
	ck_assert_uint_eq(b->node[b->rda[0].leaf].cbovldmask, 0);
	/* A GP running: 200 more, overloaded at the 71st queued, a flood
	 * blimit and a forced QS at 61 + 50 = 111 ... */
	for (rcu_tree_state *r = a; r; r = r == a ? b : NULL) {
		rcu_tree_core(r, 0);
		rcu_tree_gp_init(r, 1, 1);
	}
	call_both(a, b, 0, 2000, 3, 200);
	ck_assert_uint_eq(b->node[b->rda[0].leaf].cbovldmask, 1);
	ck_assert_int_eq(b->rda[0].blimit, 10000);
	ck_assert(b->gp_flags & RCU_GP_FLAG_FQS);
	ck_assert_int_eq(b->rda[0].qlen_max, 260);
	/* ... and after an FQS scan another overflow at the next 50. */
	rcu_tree_fqs_result res;
	rcu_tree_gp_fqs(a, true, 2, &res);
	rcu_tree_gp_fqs(b, true, 2, &res);
	call_both(a, b, 0, 3000, 0, 120);
	/* Drained below qovld with the bit still set: the first call clears
	 * it, the one that finds 70 sets it again. */
	all_done(a, 0);
	all_done(b, 0);
	rcu_tree_batch bt = { RCU_TREE_SOFTIRQ, false, true, 100000, 100 }; /* idle: no count limit */
	rcu_tree_batch_out out;
	ck_assert_int_eq(rcu_tree_do_batch(a, 0, &bt, NULL, &out), 380);
	ck_assert_int_eq(rcu_tree_do_batch(b, 0, &bt, NULL, &out), 380);
	call_both(a, b, 0, 4000, 11, 5);
	ck_assert_uint_eq(b->node[b->rda[0].leaf].cbovldmask, 0);
	call_both(a, b, 0, 5000, 11, 100);
	ck_assert_uint_eq(b->node[b->rda[0].leaf].cbovldmask, 1);
	/* From idle (an extended QS): invoke RCU core; a ring that wraps and
	 * grows on another CPU; none at all. */
	rcu_tree_eqs_enter(a, 2);
	rcu_tree_eqs_enter(b, 2);
	call_both(a, b, 2, 6000, 1, 1);
	call_both(a, b, 3, 7000, 5, 50);
	all_done(a, 3);
	all_done(b, 3);
	ck_assert_int_eq(rcu_tree_do_batch(a, 3, &bt, NULL, &out), 50);
	ck_assert_int_eq(rcu_tree_do_batch(b, 3, &bt, NULL, &out), 50);
	call_both(a, b, 3, 8000, 5, 1000);
	call_both(a, b, 3, 9000, 5, 0);
	/* The last of 71 finds qovld (70) queued: CPU 1 is marked. */
	call_both(a, b, 1, 10000, 2, 71);
	ck_assert_uint_eq(b->node[b->rda[1].leaf].cbovldmask & b->rda[1].grpmask, b->rda[1].grpmask);
	rcu_tree_destroy(a);
	rcu_tree_destroy(b);
}
END_TEST

START_TEST(tree_run_mode_matches_ring)
{
	/* Call times kept as runs (cfg.cb_runs, for bulk calls) against the
	 * ring of one time per callback: random single and bulk calls, RCU
	 * core passes, GPs made over and batches invoked at random costs give
	 * the same lists, the same call time at every index and the same
	 * latency histogram, bin for bin. Calls that continue a run's spacing
	 * join it. */
	rcu_tree_cfg cfg;
	rcu_tree_cfg_default(&cfg, 2, 1000);
	cfg.qhimark = 300;
	rcu_tree_state *a = mk_cfg(&cfg, false);
	cfg.cb_runs = true;
	rcu_tree_state *b = mk_cfg(&cfg, false);
	ck_assert(b->rda[0].cblist.runs && !a->rda[0].cblist.runs);
	sim_hist *ha = malloc(sizeof(*ha)), *hb = malloc(sizeof(*hb));
	sim_hist_init(ha);
	sim_hist_init(hb);
	uint64_t s = 0x9e3779b97f4a7c15ULL;
	sim_time now = 1000;
	for (int step = 0; step < 20000; step++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		int cpu = (int)(s & 1), op = (int)((s >> 1) % 6);
		now += (sim_time)((s >> 8) % 5000);
		rcu_effect e = { 0 };
		if (op == 0) {
			sim_time t = now - (sim_time)((s >> 24) % 100);
			REQUIRE_EQ(rcu_tree_call_rcu(a, cpu, t, 0, false, &e), 0);
			REQUIRE_EQ(rcu_tree_call_rcu(b, cpu, t, 0, false, &e), 0);
		} else if (op == 1) {
			sim_time st = (sim_time)((s >> 24) % 60);
			int64_t n = (int64_t)((s >> 32) % 120);
			REQUIRE_EQ(rcu_tree_call_rcu_n(a, cpu, now, st, n, &e), 0);
			REQUIRE_EQ(rcu_tree_call_rcu_n(b, cpu, now, st, n, &e), 0);
			now += n * st;
		} else if (op == 2) {
			rcu_tree_core(a, cpu);
			rcu_tree_core(b, cpu);
		} else if (op == 3) {
			all_done(a, cpu);
			all_done(b, cpu);
		} else {
			rcu_tree_batch bt = { RCU_TREE_SOFTIRQ, false, (s >> 40) & 1, now,
					      (sim_time)((s >> 44) % 3000) };
			rcu_tree_batch_out oa, ob;
			int64_t na = rcu_tree_do_batch(a, cpu, &bt, ha, &oa);
			REQUIRE_EQ(rcu_tree_do_batch(b, cpu, &bt, hb, &ob), na);
			now += na * bt.cost_ns;
		}
		for (int c = 0; c < 2; c++) {
			const rcu_segcblist *l = &a->rda[c].cblist, *m = &b->rda[c].cblist;
			REQUIRE_EQ(l->head, m->head);
			for (int g = 0; g < RCU_CBLIST_NSEGS; g++)
				REQUIRE_EQ(l->tails[g], m->tails[g]);
			for (uint64_t i = l->head; i != l->tails[RCU_NEXT_TAIL]; i++)
				REQUIRE_EQ(rcu_segcblist_call_time(l, i, now), rcu_segcblist_call_time(m, i, now));
			REQUIRE(rcu_segcblist_sane(m));
		}
	}
	ck_assert_uint_gt(ha->count, 100000);
	testlib_same_hist(ha, hb);
	/* Evenly spaced single calls make one run; a bulk call at the next
	 * place in the spacing joins it, one off it starts another. */
	rcu_tree_destroy(b);
	b = mk_cfg(&cfg, false);
	rcu_segcblist *l = &b->rda[1].cblist;
	rcu_effect e = { 0 };
	for (int i = 0; i < 50; i++)
		ck_assert_int_eq(rcu_tree_call_rcu(b, 1, 100 + 7 * i, 0, false, &e), 0);
	ck_assert_int_eq(rcu_tree_call_rcu_n(b, 1, 100 + 7 * 50, 7, 30, &e), 0);
	ck_assert_uint_eq(l->rtail - l->rhead, 1);
	ck_assert_int_eq(rcu_tree_call_rcu_n(b, 1, 100 + 7 * 80 + 1, 7, 30, &e), 0);
	ck_assert_uint_eq(l->rtail - l->rhead, 2);
	ck_assert_int_eq(rcu_segcblist_call_time(l, 79, 0), 100 + 7 * 79);
	ck_assert_int_eq(rcu_segcblist_call_time(l, 80, 0), 100 + 7 * 80 + 1);
	ck_assert_int_eq(rcu_segcblist_call_time(l, 109, 0), 100 + 7 * 109 + 1);
	rcu_tree_destroy(a);
	rcu_tree_destroy(b);
	free(ha);
	free(hb);
}
END_TEST

/* ---- 9. random operations against a reference ------------------------------------------------ */


typedef struct ref_cb {
	sim_time t;    /* call_rcu time */
	uint32_t obj;  /* object */
	uint64_t snap; /* rcu_seq_snap(rcu_state.gp_seq) at call_rcu */
} ref_cb;

typedef struct ref_q {
	ref_cb *cb;          /* ring */
	size_t head, tail;   /* indices; slot = index % REF_CAP */
} ref_q;

#define REF_CAP 8192

/* The gp_seq at which a callback queued now may run, written out without
 * rcu_seq_snap(): the end of the next GP if none runs, else of the one
 * after the running one. */
static uint64_t ref_snap(uint64_t s)
{
	uint64_t base = s & ~(uint64_t)3;
	return (s & 3) ? base + 8 : base + 4;
}

static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Every callback still waiting was given a GP at least as late as the
 * one it needs, and the reference matches the list. */
static void check_against_ref(const rcu_tree_state *rsp, const ref_q *rq)
{
	for (int c = 0; c < rsp->ncpus; c++) {
		const rcu_segcblist *l = &rsp->rda[c].cblist;
		REQUIRE_EQ(rcu_segcblist_n_cbs(l), (int64_t)(rq[c].tail - rq[c].head));
		for (int s = RCU_WAIT_TAIL; s <= RCU_NEXT_READY_TAIL; s++)
			for (uint64_t i = l->tails[s - 1]; i != l->tails[s]; i++) {
				const ref_cb *r = &rq[c].cb[(rq[c].head + (i - l->head)) % REF_CAP];
				REQUIRE(rcu_ulong_cmp_ge(l->gp_seq[s], r->snap));
			}
		if (!rcu_segcblist_segempty(l, RCU_WAIT_TAIL) &&
		    !rcu_segcblist_segempty(l, RCU_NEXT_READY_TAIL))
			REQUIRE(rcu_ulong_cmp_lt(l->gp_seq[RCU_WAIT_TAIL], l->gp_seq[RCU_NEXT_READY_TAIL]));
	}
}

START_TEST(tree_random_conservation)
{
	/* 40 CPUs, leaf fanout 4, fanout 4: 3 levels (1 + 3 + 10). Random
	 * call_rcu, RCU core, QSes, idle periods, ticks, batches and GP kthread
	 * steps for 350 GPs from the kernel's boot gp_seq, so the counter wraps
	 * through 0; then a drain. Every invoked callback must be the
	 * reference FIFO's next one with its time and object, its GP must be
	 * over, and nothing may be lost. */
	rcu_tree_cfg cfg;
	rcu_tree_cfg_default(&cfg, 40, 1000);
	cfg.rcu_fanout_leaf = 4;
	cfg.rcu_fanout = 4;
	cfg.qhimark = 50; /* take the overflow path now and then */
	cfg.qlowmark = 5;
	cfg.qovld = 80;
	rcu_tree_state *rsp = mk_cfg(&cfg, true);
	REQUIRE_EQ(rsp->nlevels, 3);
	REQUIRE_EQ(rsp->nnodes, 14);
	ref_q rq[40];
	for (int c = 0; c < 40; c++) {
		rq[c].cb = malloc(REF_CAP * sizeof(ref_cb));
		rq[c].head = rq[c].tail = 0;
	}
	uint64_t seed = 0x9e3779b97f4a7c15u + (uint64_t)_i;
	sim_time now = 0;
	int64_t jiffies = 0, enqueued = 0, invoked = 0;
	bool idle[40] = { false }, wrapped = false;
	enum { KT_WAIT_GPS, KT_FQS } kt = KT_WAIT_GPS;
	int64_t kt_wait_end = 0;
	uint32_t obj = 0;
	const int gp_cpu = 39;
	for (long step = 0;; step++) {
		REQUIRE_LT(step, 5000000);
		bool drain = rsp->gp_completed >= 350;
		uint64_t r = xs(&seed);
		int cpu = (int)(r % 40);
		now += (sim_time)(r >> 40 & 0xffff);
		jiffies = now / 1000000;
		bool wake = false;
		switch ((r >> 8) % 10) {
		case 0:
		case 1: /* call_rcu */
			if (drain)
				break;
			for (int k = 0; k < (int)(r >> 16 & 7) + 1; k++) {
				rcu_effect eff = { 0 };
				REQUIRE_EQ(rcu_tree_call_rcu(rsp, cpu, now, obj, false, &eff), 0);
				REQUIRE_LT(rq[cpu].tail - rq[cpu].head, REF_CAP);
				rq[cpu].cb[rq[cpu].tail++ % REF_CAP] =
					(ref_cb){ now, obj, ref_snap(rsp->gp_seq) };
				obj++;
				enqueued++;
				wake |= eff.wake_gp;
			}
			break;
		case 2: /* RCU core */
			wake |= rcu_tree_core(rsp, cpu);
			break;
		case 3: /* a context switch, or a user tick */
			if (idle[cpu])
				break;
			if (r & 0x10000) {
				rcu_tree_note_context_switch(rsp, cpu);
			} else {
				rcu_effect eff = { 0 };
				rcu_tree_sched_clock_irq(rsp, cpu, true, false, &eff);
			}
			break;
		case 4: /* idle entry or exit */
			if (drain && !idle[cpu])
				break;
			if (idle[cpu])
				rcu_tree_eqs_exit(rsp, cpu);
			else
				rcu_tree_eqs_enter(rsp, cpu);
			idle[cpu] = !idle[cpu];
			break;
		case 5:
		case 6: { /* a batch */
			rcu_segcblist *l = &rsp->rda[cpu].cblist;
			rcu_tree_batch b = { (r & 0x10000) ? RCU_TREE_RCUC : RCU_TREE_SOFTIRQ,
					     (r & 0x20000) != 0, (r & 0x40000) != 0, now, 1000 };
			rcu_tree_batch_out out;
			int64_t n = rcu_tree_do_batch(rsp, cpu, &b, NULL, &out);
			for (int64_t k = 0; k < n; k++) {
				uint64_t i = l->head - (uint64_t)n + (uint64_t)k;
				const ref_cb *rc = &rq[cpu].cb[rq[cpu].head++ % REF_CAP];
				REQUIRE_EQ(rcu_segcblist_call_time(l, i, now + k * 1000), rc->t);
				REQUIRE_EQ(l->obj[i & (l->cap - 1)], rc->obj);
				REQUIRE(rcu_seq_done(rsp->gp_seq, rc->snap)); /* its GP is over */
				REQUIRE(rcu_seq_done(rcu_tree_leaf(rsp, cpu)->gp_seq, rc->snap));
			}
			invoked += n;
			break;
		}
		default: /* the GP kthread's turn */
			if (kt == KT_WAIT_GPS) {
				if (rsp->gp_flags & RCU_GP_FLAG_INIT) {
					REQUIRE_GT(rcu_tree_gp_init(rsp, gp_cpu, jiffies), 0);
					kt_wait_end = jiffies + rcu_tree_gp_fqs_loop_start(rsp, jiffies);
					kt = KT_FQS;
				}
			} else {
				/* Woken (by anyone, or its timeout): a wakeup that
				 * asks nothing leaves it asleep. */
				rcu_tree_fqs_result res;
				rcu_tree_fqs_step st = rcu_tree_gp_fqs_loop_wake(rsp, jiffies, &res);
				if (st == RCU_TREE_FQS_SLEEP) {
					REQUIRE_EQ(jiffies + res.wait, kt_wait_end);
				} else if (st == RCU_TREE_FQS_DONE) {
					bool needgp;
					rcu_tree_gp_cleanup(rsp, gp_cpu, jiffies, &needgp);
					kt = KT_WAIT_GPS;
					wrapped |= rsp->gp_seq < 4096;
				} else {
					kt_wait_end = jiffies + res.wait;
				}
			}
			break;
		}
		(void)wake;
		REQUIRE(rcu_tree_sane(rsp));
		if (step % 64 == 0)
			check_against_ref(rsp, rq);
		if (drain) {
			bool empty = true;
			for (int c = 0; c < 40; c++)
				empty &= rcu_segcblist_empty(&rsp->rda[c].cblist);
			if (empty && kt == KT_WAIT_GPS && !rsp->gp_flags)
				break;
		}
	}
	check_against_ref(rsp, rq);
	REQUIRE(wrapped);
	REQUIRE_GT(enqueued, 10000);
	REQUIRE_EQ(invoked, enqueued);
	for (int c = 0; c < 40; c++) {
		REQUIRE(rcu_segcblist_empty(&rsp->rda[c].cblist));
		REQUIRE_EQ(rq[c].head, rq[c].tail);
		free(rq[c].cb);
	}
	rcu_tree_destroy(rsp);
}
END_TEST

/* ---- 10. parameters --------------------------------------------------------------------- */

START_TEST(tree_cfg_from_params)
{
	char err[512];
	sim_params *p;
	ck_assert_int_eq(sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)), 0);
	rcu_tree_cfg cfg, def;
	ck_assert_int_eq(rcu_tree_cfg_from_params(&cfg, p, err, sizeof(err)), 0);
	rcu_tree_cfg_default(&def, 32, 250); /* 8 cores x 4 threads, HZ 250 */
	ck_assert(cfg.ncpus == def.ncpus && cfg.hz == def.hz);
	ck_assert(cfg.rcu_fanout_leaf == 16 && cfg.rcu_fanout == 64);
	ck_assert(cfg.blimit == 10 && cfg.qhimark == 10000 && cfg.qlowmark == 100);
	ck_assert(cfg.qovld == 20000 && cfg.flood_blimit == 10000 && cfg.rcu_divisor == 7);
	ck_assert(cfg.rcu_resched_ns == 3000000 && cfg.stall_timeout_ns == INT64_C(21000000000));
	ck_assert(cfg.jiffies_till_first_fqs < 0 && cfg.jiffies_till_next_fqs < 0 &&
		  cfg.jiffies_till_sched_qs < 0);
	ck_assert(cfg.use_softirq && cfg.gp_seq_init == RCU_TREE_GP_SEQ_INIT);
	/* Before 5.4, and qovld auto = 2 x qhimark. */
	const char *sets[] = { "rcu.rcu_divisor=-1", "rcu.rcu_resched_ns=0ns",
			       "rcu.flood_blimit=9200000000000000000", "rcu.qovld=auto",
			       "rcu.qhimark=5000", "rcu.jiffies_till_first_fqs=7",
			       "rcu.use_softirq=no", "rcu.stall_timeout=60s", "machine.hz=1000" };
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		ck_assert_msg(sim_params_set(p, sets[i], err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(rcu_tree_cfg_from_params(&cfg, p, err, sizeof(err)), 0);
	ck_assert_int_eq(cfg.rcu_divisor, RCU_TREE_NO_DIVISOR);
	ck_assert_int_eq(cfg.rcu_resched_ns, 0);
	ck_assert_int_eq(cfg.flood_blimit, INT64_C(9200000000000000000));
	ck_assert_int_eq(cfg.qovld, 10000);
	ck_assert_int_eq(cfg.jiffies_till_first_fqs, 7);
	ck_assert_int_eq(cfg.jiffies_till_next_fqs, -1);
	ck_assert(!cfg.use_softirq);
	ck_assert_int_eq(cfg.stall_timeout_ns, INT64_C(60000000000));
	ck_assert_int_eq(cfg.hz, 1000);
	sim_params_destroy(p);
	/* The 6.12 preset: qovld is DEFAULT_RCU_QOVLD (tree.c 6.12:429-431),
	 * 20000 whatever qhimark is; 2 x qhimark only for qovld < 0. */
	ck_assert_int_eq(sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)), 0);
	ck_assert_msg(sim_params_load_file(p, RCUSIM_SOURCE_DIR "/scenarios/kernels/linux-6.12.ini", err,
					   sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(sim_params_set(p, "rcu.qhimark=5000", err, sizeof(err)), 0);
	ck_assert_int_eq(rcu_tree_cfg_from_params(&cfg, p, err, sizeof(err)), 0);
	ck_assert_int_eq(cfg.qhimark, 5000);
	ck_assert_int_eq(cfg.qovld, 20000);
	/* 4194305 CPUs do not fit 4 levels. */
	ck_assert_int_eq(sim_params_set(p, "machine.cores=65536", err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_set(p, "machine.threads_per_core=64", err, sizeof(err)), 0);
	ck_assert_int_eq(rcu_tree_cfg_from_params(&cfg, p, err, sizeof(err)), 0); /* exactly 4M */
	ck_assert_int_eq(sim_params_set(p, "rcu.rcu_fanout_leaf=8", err, sizeof(err)), 0);
	ck_assert_int_eq(rcu_tree_cfg_from_params(&cfg, p, err, sizeof(err)), SIM_EINPUT);
	ck_assert_msg(strstr(err, "rcu.rcu_fanout_leaf") != NULL, "%s", err);
	sim_params_destroy(p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rcu_tree");
	TCase *tc = tcase_create("rcu_tree");
	tcase_add_test(tc, tree_seq_arithmetic);
	tcase_add_loop_test(tc, tree_geometry_shapes, 0, (int)(sizeof(shapes) / sizeof(shapes[0])));
	tcase_add_test(tc, tree_geometry_limits);
	tcase_add_test(tc, tree_segcblist_accelerate_advance);
	tcase_add_test(tc, tree_segcblist_ring_and_times);
	tcase_add_test(tc, tree_mid_gp_callback_waits_rest_plus_one_gp);
	tcase_add_test(tc, tree_qs_reports_clear_bits_up_the_tree);
	tcase_add_loop_test(tc, tree_fqs_intervals, 0, (int)(sizeof(fqs_cases) / sizeof(fqs_cases[0])));
	tcase_add_test(tc, tree_fqs_tunables_clamped);
	tcase_add_test(tc, tree_fqs_idle_cpus_and_escalation);
	tcase_add_test(tc, tree_fqs_force_quiescent_state_wakes_early);
	tcase_add_test(tc, tree_fqs_overload);
	tcase_add_test(tc, tree_tick_and_urgent_qs);
	tcase_add_test(tc, tree_pending_conditions);
	tcase_add_loop_test(tc, tree_do_batch_limits, 0,
			    (int)(sizeof(batch_cases) / sizeof(batch_cases[0])));
	tcase_add_test(tc, tree_do_batch_pre_5_4_limits);
	tcase_add_test(tc, tree_overflow_kicks_and_restore);
	tcase_add_test(tc, tree_overflow_without_gp_requests_one);
	tcase_add_test(tc, tree_call_rcu_n_matches_one_by_one);
	tcase_add_test(tc, tree_run_mode_matches_ring);
	tcase_add_loop_test(tc, tree_random_conservation, 0, 3);
	tcase_add_test(tc, tree_cfg_from_params);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
