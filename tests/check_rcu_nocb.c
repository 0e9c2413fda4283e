/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_rcu_nocb.c - offloaded and lazy callbacks (6.12) step by step: the
 * rcuog groups for 8 to 4096 CPUs, the rcu_nocbs= CPU list, the per-jiffy
 * allowance of direct enqueues at HZ 250 and 1000, each bypass flush rule
 * (age, qhimark from call_rcu, 2 x qhimark from rcuog), the deferred
 * wakeups and when their timer fires, lazy flushes by age, count and a
 * non-lazy arrival, a callback's whole way through rcuog, the GP and rcuo,
 * rcuscale's 2-3 s check of a lazy callback with the flush set to 2 s,
 * random operations against a reference FIFO with every kthread driven, and
 * bulk calls against the same calls one by one.
 * The numbers in each test are worked out by hand in its comments. */
#include <check.h>

#include "cpulist.h"

#include "testlib.h"
#include <stdlib.h>
#include <string.h>

#include "rcu/tree_nocb.h"

/* A tree of @ncpus at @hz (qhimark @qhimark, 0: default) with the CPUs of
 * @list offloaded under @cfg (NULL: defaults). */
typedef struct world {
	rcu_tree_state *rsp;
	rcu_nocb_state *st;
} world;

static world mk_cfg(int ncpus, int hz, int64_t qhimark, const char *list, const rcu_nocb_cfg *cfg,
		    bool payload)
{
	char err[256];
	rcu_tree_cfg tc;
	rcu_tree_cfg_default(&tc, ncpus, hz);
	if (qhimark)
		tc.qhimark = qhimark;
	world w;
	ck_assert_msg(rcu_tree_create(&w.rsp, &tc, payload, err, sizeof(err)) == 0, "%s", err);
	bool *mask = calloc((size_t)ncpus, sizeof(*mask));
	ck_assert_msg(sim_cpulist_parse("rcu_nocbs", list, ncpus, mask, err, sizeof(err)) == 0, "%s", err);
	rcu_nocb_cfg def;
	rcu_nocb_cfg_default(&def);
	ck_assert_msg(rcu_nocb_create(&w.st, w.rsp, cfg ? cfg : &def, mask, err, sizeof(err)) == 0, "%s",
		      err);
	free(mask);
	return w;
}

static world mk(int ncpus, int hz, int64_t qhimark, bool lazy)
{
	rcu_nocb_cfg cfg;
	rcu_nocb_cfg_default(&cfg);
	cfg.lazy = lazy;
	return mk_cfg(ncpus, hz, qhimark, "all", &cfg, false);
}

static void rm(world w)
{
	rcu_nocb_destroy(w.st);
	rcu_tree_destroy(w.rsp);
}

/* One call_rcu on @cpu at jiffy @j (time j ms); where it went. */
static rcu_nocb_where call1(world w, int cpu, int64_t j, bool lazy, bool irqs_off,
			    rcu_nocb_effect *eff, int64_t *flushed)
{
	rcu_nocb_effect e;
	rcu_nocb_where where;
	int64_t fl;
	rcu_nocb_effect_init(&e);
	ck_assert_int_eq(rcu_nocb_call_rcu(w.st, cpu, j * 1000000, j, 0, lazy, irqs_off, &e, &where, &fl), 0);
	if (eff)
		*eff = e;
	if (flushed)
		*flushed = fl;
	REQUIRE(rcu_nocb_sane(w.st));
	return where;
}

/* The GP kthread runs one whole GP at @j without touching any CPU's
 * callbacks (the offloaded CPUs' lists are rcuog's): init, every CPU's QS
 * reported at its leaf, the FQS wait ends at once, cleanup. Returns
 * whether another GP was requested. */
static bool run_gp(rcu_tree_state *rsp, int64_t j)
{
	rcu_tree_fqs_result res;
	bool needgp;
	REQUIRE(rsp->gp_flags & RCU_GP_FLAG_INIT);
	REQUIRE(rcu_tree_gp_init(rsp, -1, j) > 0);
	for (int n = rsp->level_first[rsp->nlevels - 1]; n < rsp->nnodes; n++)
		rcu_tree_report_qs_rnp(rsp, rsp->node[n].qsmask, n, rsp->node[n].gp_seq);
	REQUIRE_EQ(rcu_tree_gp_fqs_loop_start(rsp, j), 0);
	REQUIRE_EQ(rcu_tree_gp_fqs_loop_wake(rsp, j, &res), RCU_TREE_FQS_DONE);
	rcu_tree_gp_cleanup(rsp, -1, j, &needgp);
	return needgp;
}

/* rcuog of group @g wakes and makes one pass at @j. */
static rcu_nocb_gp_pass pass_at(world w, int g, int64_t j, rcu_nocb_effect *eff)
{
	rcu_nocb_gp_pass p;
	rcu_nocb_effect e;
	rcu_nocb_effect_init(&e);
	rcu_nocb_gp_wait_end(w.st, g, &e);
	rcu_nocb_gp_wait(w.st, g, j, &p, &e);
	if (eff)
		*eff = e;
	REQUIRE(rcu_nocb_sane(w.st));
	return p;
}

/* ---- 1. groups and the CPU list ----------------------------------------------------------- */

START_TEST(nocb_int_sqrt_and_stride)
{
	ck_assert_uint_eq(rcu_nocb_int_sqrt(0), 0);
	ck_assert_uint_eq(rcu_nocb_int_sqrt(1), 1);
	ck_assert_uint_eq(rcu_nocb_int_sqrt(8), 2);
	ck_assert_uint_eq(rcu_nocb_int_sqrt(9), 3);
	ck_assert_uint_eq(rcu_nocb_int_sqrt(32), 5);
	ck_assert_uint_eq(rcu_nocb_int_sqrt(255), 15);
	ck_assert_uint_eq(rcu_nocb_int_sqrt(256), 16);
	ck_assert_uint_eq(rcu_nocb_int_sqrt(4095), 63);
	ck_assert_uint_eq(rcu_nocb_int_sqrt(UINT64_MAX), UINT32_MAX);
	for (uint64_t x = 0; x < 5000; x++) {
		uint64_t r = rcu_nocb_int_sqrt(x);
		REQUIRE(r * r <= x && (r + 1) * (r + 1) > x);
	}
	/* nr_cpu_ids / int_sqrt(nr_cpu_ids): 8/2, 32/5, 256/16, 4096/64,
	 * 1000/31, 100/10, 1/1. */
	ck_assert_int_eq(rcu_nocb_default_stride(8), 4);
	ck_assert_int_eq(rcu_nocb_default_stride(32), 6);
	ck_assert_int_eq(rcu_nocb_default_stride(256), 16);
	ck_assert_int_eq(rcu_nocb_default_stride(4096), 64);
	ck_assert_int_eq(rcu_nocb_default_stride(1000), 32);
	ck_assert_int_eq(rcu_nocb_default_stride(100), 10);
	ck_assert_int_eq(rcu_nocb_default_stride(1), 1);
}
END_TEST

typedef struct layout {
	int ncpus, stride, ngroups, last_lo, probe_cpu, probe_leader;
} layout;

static const layout layouts[] = {
	{ 8, 4, 2, 4, 7, 4 },           /* {0-3} {4-7} */
	{ 32, 6, 6, 30, 29, 24 },       /* 0,6,12,18,24,30; the last group is {30,31} */
	{ 256, 16, 16, 240, 100, 96 },  /* 16 groups of 16 */
	{ 4096, 64, 64, 4032, 1000, 960 }, /* 64 groups of 64 */
};

START_TEST(nocb_group_layout)
{
	const layout *lt = &layouts[_i];
	world w = mk(lt->ncpus, 1000, 0, false);
	rcu_nocb_state *st = w.st;
	ck_assert_int_eq(st->stride, lt->stride);
	ck_assert_int_eq(st->ngroups, lt->ngroups);
	for (int g = 0; g < st->ngroups; g++) {
		ck_assert_int_eq(st->grp[g].leader, g * lt->stride); /* rcuog/<first CPU> */
		ck_assert_int_eq(st->grp[g].lo, g * lt->stride);
		ck_assert(st->grp[g].wait == RCU_NOCB_GP_WAIT_CBS && st->grp[g].gp_sleep);
	}
	ck_assert_int_eq(st->grp[st->ngroups - 1].lo, lt->last_lo);
	ck_assert_int_eq(st->grp[st->ngroups - 1].hi, lt->ncpus - 1);
	ck_assert_int_eq(st->grp[st->ngroups - 1].noffloaded, lt->ncpus - lt->last_lo);
	ck_assert_int_eq(rcu_nocb_group_of(st, lt->probe_cpu)->leader, lt->probe_leader);
	for (int c = 0; c < lt->ncpus; c++)
		REQUIRE(rcu_nocb_is_offloaded(st, c) && st->nd[c].cb_sleep);
	ck_assert(rcu_nocb_sane(st));
	rm(w);
}
END_TEST

START_TEST(nocb_group_layout_partial_mask)
{
	/* 32 CPUs, rcu_nocbs=0-3,8,10-11: every CPU keeps its group (0-5,
	 * 6-11, ...), only the listed ones are on their leader's list: 4 in
	 * group 0, 3 in group 1 (whose leader, CPU 6, is not offloaded: its
	 * rcuog still serves 8, 10 and 11), none elsewhere. */
	rcu_nocb_cfg cfg;
	rcu_nocb_cfg_default(&cfg);
	world w = mk_cfg(32, 1000, 0, "0-3,8,10-11", &cfg, false);
	ck_assert_int_eq(w.st->ngroups, 6);
	ck_assert_int_eq(w.st->grp[0].noffloaded, 4);
	ck_assert_int_eq(w.st->grp[1].noffloaded, 3);
	for (int g = 2; g < 6; g++)
		ck_assert_int_eq(w.st->grp[g].noffloaded, 0);
	ck_assert(!rcu_nocb_is_offloaded(w.st, 6) && rcu_nocb_is_offloaded(w.st, 8));
	ck_assert_int_eq(rcu_nocb_group_of(w.st, 8)->leader, 6);
	ck_assert_int_eq(rcu_nocb_bypass_len(w.st, 6), 0);
	/* An explicit stride of 8: groups of 8, leaders 0, 8, 16, 24. */
	rm(w);
	cfg.gp_stride = 8;
	w = mk_cfg(32, 1000, 0, "all", &cfg, false);
	ck_assert_int_eq(w.st->ngroups, 4);
	ck_assert_int_eq(w.st->grp[3].leader, 24);
	rm(w);
	/* Stride 0 is refused (the kernel would divide by zero). */
	char err[256];
	rcu_tree_cfg tc;
	rcu_tree_cfg_default(&tc, 8, 1000);
	rcu_tree_state *rsp;
	ck_assert_int_eq(rcu_tree_create(&rsp, &tc, false, err, sizeof(err)), 0);
	rcu_nocb_state *st;
	cfg.gp_stride = 0;
	ck_assert_int_eq(rcu_nocb_create(&st, rsp, &cfg, NULL, err, sizeof(err)), SIM_EINPUT);
	ck_assert(st == NULL && strstr(err, "stride") != NULL);
	rcu_tree_destroy(rsp);
}
END_TEST

typedef struct cpulist_case {
	const char *s;
	const char *set; /* '1' for each offloaded CPU of 32 */
} cpulist_case;

static const cpulist_case good_lists[] = {
	{ "", "00000000000000000000000000000000" },
	{ "all", "11111111111111111111111111111111" },
	{ "ALL", "11111111111111111111111111111111" },
	{ "0-3,8,10-11", "11110000101100000000000000000000" },
	{ "N", "00000000000000000000000000000001" },
	{ "28-N", "00000000000000000000000000001111" },
	{ "0-31:2/8", "11000000110000001100000011000000" },
	{ "all:1/16", "10000000000000001000000000000000" },
	{ " 1 , 3\n", "01010000000000000000000000000000" },
	{ ",,5-5,", "00000100000000000000000000000000" },
	{ "0-2:3/3", "11100000000000000000000000000000" },
};

START_TEST(nocb_cpulist_good)
{
	const cpulist_case *c = &good_lists[_i];
	bool mask[32];
	char err[256], got[33];
	ck_assert_msg(sim_cpulist_parse("rcu_nocbs", c->s, 32, mask, err, sizeof(err)) == 0, "%s", err);
	for (int i = 0; i < 32; i++)
		got[i] = mask[i] ? '1' : '0';
	got[32] = '\0';
	ck_assert_str_eq(got, c->set);
}
END_TEST

static const char *const bad_lists[] = {
	"x",          /* not a number */
	"3-1",        /* backwards */
	"0-32",       /* CPU 32 of 0-31 */
	"40",         /* likewise */
	"1-",         /* no end */
	"-1",         /* no start */
	"0-3:3/2",    /* used > group */
	"0-3:1/0",    /* empty group */
	"0-3:1",      /* no group size */
	"4294967296", /* over an unsigned int (-EOVERFLOW) */
	"0x3",        /* decimal only */
	"1;2",        /* ';' is no separator */
	"all-3",      /* all takes no end */
};

START_TEST(nocb_cpulist_bad)
{
	bool mask[32];
	char err[256] = "";
	memset(mask, 1, sizeof(mask));
	ck_assert_int_eq(sim_cpulist_parse("rcu_nocbs", bad_lists[_i], 32, mask, err, sizeof(err)), SIM_EINPUT);
	ck_assert_msg(strncmp(err, "rcu_nocbs=", 10) == 0 && strstr(err, bad_lists[_i]) != NULL, "%s", err);
	for (int i = 0; i < 32; i++)
		ck_assert(!mask[i]);
	if (!strcmp(bad_lists[_i], "0-32"))
		ck_assert_msg(strstr(err, "CPU 32 does not exist (CPUs 0-31)") != NULL, "%s", err);
}
END_TEST

/* ---- 2. the bypass and its flushes ---------------------------------------------------------- */

START_TEST(nocb_allowance_per_jiffy)
{
	/* HZ 1000: 16 * 1000 / 1000 = 16 per jiffy; HZ 250: 64. The count
	 * starts at 0 at a new jiffy and counts every call_rcu(), so calls
	 * 0..lim-1 go direct and the (lim+1)-th goes to the bypass. */
	const int hz = _i ? 250 : 1000;
	const int64_t lim = _i ? 64 : 16;
	world w = mk(8, hz, 0, false);
	ck_assert_int_eq(w.st->lim, lim);
	rcu_nocb_effect e;
	/* The first one finds nothing pending: rcuog (group 0, asleep for
	 * callbacks) is woken at once; later ones do not wake it again. */
	ck_assert_int_eq(call1(w, 1, 10, false, false, &e, NULL), RCU_NOCB_DIRECT);
	ck_assert_int_eq(e.wake_rcuog, 0);
	ck_assert(!w.st->grp[0].gp_sleep);
	ck_assert_int_eq(w.rsp->rda[1].qlen_last_fqs_check, 1);
	for (int64_t k = 1; k < lim; k++) {
		ck_assert_int_eq(call1(w, 1, 10, false, false, &e, NULL), RCU_NOCB_DIRECT);
		ck_assert_int_eq(e.wake_rcuog, -1);
	}
	ck_assert_int_eq(w.st->nd[1].nobypass_count, lim - 1);
	/* The (lim+1)-th in the same jiffy: the bypass (its first callback,
	 * but ->cblist has pending ones: no wakeup). */
	ck_assert_int_eq(call1(w, 1, 10, false, false, &e, NULL), RCU_NOCB_BYPASS);
	ck_assert(e.wake_rcuog == -1 && e.timer_grp == -1);
	ck_assert_int_eq(w.st->nd[1].bypass_first, 10);
	for (int k = 0; k < 23; k++)
		ck_assert_int_eq(call1(w, 1, 10, false, false, NULL, NULL), RCU_NOCB_BYPASS);
	/* lim + 24 calls: count lim + 23, bypass 24, main lim; the kernel's
	 * len counts both. */
	ck_assert_int_eq(w.st->nd[1].nobypass_count, lim + 23);
	ck_assert_int_eq(rcu_nocb_bypass_len(w.st, 1), 24);
	ck_assert_int_eq(rcu_segcblist_n_cbs(&w.rsp->rda[1].cblist), lim);
	ck_assert_int_eq(rcu_nocb_len(w.st, 1), lim + 24);
	/* Jiffy 11: the count drops by lim, at most to lim: at HZ 1000
	 * 39 - 16 = 23 > 16 gives 16, still no direct enqueue; the bypass is a jiffy old (j != nocb_bypass_first), so it
	 * is flushed and the new callback is left alone in it. */
	int64_t fl;
	if (hz == 1000) {
		ck_assert_int_eq(call1(w, 1, 11, false, false, &e, &fl), RCU_NOCB_FLUSHED);
		ck_assert_int_eq(fl, 24);
		ck_assert_int_eq(w.st->nd[1].nobypass_count, 16);
		ck_assert_int_eq(rcu_nocb_bypass_len(w.st, 1), 1);
		ck_assert_int_eq(w.st->nd[1].bypass_first, 11);
		ck_assert_int_eq(rcu_segcblist_n_cbs(&w.rsp->rda[1].cblist), 16 + 24);
		/* Jiffy 12: 16 - 16 = 0: direct again, flushing that one. */
		ck_assert_int_eq(call1(w, 1, 12, false, false, &e, &fl), RCU_NOCB_DIRECT);
		ck_assert_int_eq(fl, 1);
		ck_assert_int_eq(w.st->nd[1].nobypass_count, 0);
	} else {
		/* 87 - 64 = 23 < 64: direct, after flushing the 24. */
		ck_assert_int_eq(call1(w, 1, 11, false, false, &e, &fl), RCU_NOCB_DIRECT);
		ck_assert_int_eq(fl, 24);
		ck_assert_int_eq(w.st->nd[1].nobypass_count, 23);
	}
	ck_assert_int_eq(rcu_nocb_bypass_len(w.st, 1), 0);
	ck_assert_int_eq(rcu_nocb_len(w.st, 1), hz == 1000 ? lim + 26 : lim + 25);
	rm(w);
}
END_TEST

START_TEST(nocb_allowance_decay)
{
	/* HZ 1000. Jiffy 20: 21 calls (counts 0-20): 16 direct, 5 bypass.
	 * Jiffy 21: 20 - 16 = 4, so counts 4..15 go direct (12 calls, the
	 * first flushing the 5), and the 13th (count 16) to the bypass. */
	world w = mk(4, 1000, 0, false);
	int direct = 0, bypass = 0;
	for (int k = 0; k < 21; k++) {
		rcu_nocb_where wh = call1(w, 2, 20, false, false, NULL, NULL);
		direct += wh == RCU_NOCB_DIRECT;
		bypass += wh == RCU_NOCB_BYPASS;
	}
	ck_assert_int_eq(direct, 16);
	ck_assert_int_eq(bypass, 5);
	int64_t fl;
	ck_assert_int_eq(call1(w, 2, 21, false, false, NULL, &fl), RCU_NOCB_DIRECT);
	ck_assert_int_eq(fl, 5);
	for (int k = 1; k < 12; k++)
		ck_assert_int_eq(call1(w, 2, 21, false, false, NULL, NULL), RCU_NOCB_DIRECT);
	ck_assert_int_eq(call1(w, 2, 21, false, false, NULL, NULL), RCU_NOCB_BYPASS);
	ck_assert_int_eq(rcu_nocb_len(w.st, 2), 34);
	rm(w);
}
END_TEST

/* Fill @cpu's bypass with @n non-lazy callbacks at jiffy @j, after using
 * up the jiffy's allowance with direct ones (16 at HZ 1000 from a fresh
 * jiffy: counts 0-15). */
static void fill_bypass(world w, int cpu, int64_t j, int64_t n)
{
	while (w.st->nd[cpu].nobypass_last != j || w.st->nd[cpu].nobypass_count < w.st->lim - 1)
		REQUIRE_EQ(call1(w, cpu, j, false, false, NULL, NULL), RCU_NOCB_DIRECT);
	for (int64_t k = 0; k < n; k++)
		REQUIRE_EQ(call1(w, cpu, j, false, false, NULL, NULL), RCU_NOCB_BYPASS);
}

START_TEST(nocb_flush_rcuog_age)
{
	/* rcuog flushes a non-lazy bypass older than one jiffy:
	 * time_after(j, nocb_bypass_first + 1), so first = 10 flushes at 12,
	 * not 11; at 11 it defers a BYPASS wakeup to 11 + 2. */
	world w = mk(8, 1000, 0, false);
	fill_bypass(w, 3, 10, 7);
	ck_assert_int_eq(w.st->nd[3].bypass_first, 10);
	rcu_nocb_effect e;
	rcu_nocb_gp_pass p = pass_at(w, 0, 11, &e);
	ck_assert_int_eq(p.flushed, 0);
	ck_assert(w.st->grp[0].gp_bypass && !w.st->grp[0].gp_lazy);
	ck_assert_int_eq(e.timer_grp, 0);
	ck_assert_int_eq(w.st->grp[0].defer_wakeup, RCU_NOCB_WAKE_BYPASS);
	ck_assert(w.st->grp[0].timer_pending && w.st->grp[0].timer_expires == 13);
	/* It advanced the 16 direct ones and asked for a GP: it waits for it. */
	ck_assert(e.wake_gp_kthread);
	ck_assert_int_eq(w.st->grp[0].wait, RCU_NOCB_GP_WAIT_GP);
	ck_assert_uint_eq(w.st->grp[0].wait_seq, rcu_seq_snap(w.rsp->gp_seq));
	ck_assert(p.sleep);
	/* At 12 (woken by anything): flushed. */
	p = pass_at(w, 0, 12, &e);
	ck_assert_int_eq(p.flushed, 7);
	ck_assert_int_eq(p.flushed_cpus, 1);
	ck_assert_int_eq(rcu_nocb_bypass_len(w.st, 3), 0);
	ck_assert_int_eq(w.st->nd[3].bypass_first, 12);
	/* Nothing left in a bypass: no deferral; the timer was deleted when
	 * the wait ended. */
	ck_assert(!w.st->grp[0].gp_bypass && !w.st->grp[0].timer_pending);
	rm(w);
}
END_TEST

START_TEST(nocb_flush_call_rcu_qhimark)
{
	/* qhimark 100: within one jiffy the bypass grows to 100 and the next
	 * call_rcu (ncbs >= qhimark) flushes them, staying alone in the
	 * bypass. The bypass never holds more than qhimark. */
	world w = mk(4, 1000, 100, false);
	fill_bypass(w, 0, 5, 100);
	ck_assert_int_eq(rcu_nocb_bypass_len(w.st, 0), 100);
	int64_t fl;
	ck_assert_int_eq(call1(w, 0, 5, false, false, NULL, &fl), RCU_NOCB_FLUSHED);
	ck_assert_int_eq(fl, 100);
	ck_assert_int_eq(rcu_nocb_bypass_len(w.st, 0), 1);
	ck_assert_int_eq(rcu_segcblist_n_cbs(&w.rsp->rda[0].cblist), 116);
	int64_t most = 0;
	for (int k = 0; k < 1000; k++) {
		call1(w, 0, 5, false, false, NULL, NULL);
		if (rcu_nocb_bypass_len(w.st, 0) > most)
			most = rcu_nocb_bypass_len(w.st, 0);
	}
	ck_assert_int_eq(most, 100);
	ck_assert_int_eq(rcu_nocb_len(w.st, 0), 1117);
	rm(w);
}
END_TEST

START_TEST(nocb_flush_rcuog_twice_qhimark)
{
	/* rcuog flushes a bypass over 2 x qhimark whatever its age. call_rcu
	 * flushes at qhimark, and qhimark is read-only at run time
	 * (module_param 0444, tree.c:435), so in 6.12 the rule never fires:
	 * here qhimark is lowered under a full bypass to show its threshold.
	 * 1000 callbacks at jiffy 10, rcuog at 11 (one jiffy: too young). */
	world w = mk(4, 1000, 1000, false);
	fill_bypass(w, 1, 10, 1000);
	w.rsp->cfg.qhimark = 500; /* 1000 > 2 x 500 is false */
	rcu_nocb_gp_pass p = pass_at(w, 0, 11, NULL);
	ck_assert_int_eq(p.flushed, 0);
	w.rsp->cfg.qhimark = 499; /* 1000 > 998 */
	p = pass_at(w, 0, 11, NULL);
	ck_assert_int_eq(p.flushed, 1000);
	ck_assert_int_eq(rcu_nocb_bypass_len(w.st, 1), 0);
	rm(w);
}
END_TEST

/* ---- 3. deferred wakeups and their timer ----------------------------------------------------- */

START_TEST(nocb_timer_wheel_fires_late)
{
	/* calc_index(): ((expires >> 3 lvl) + 1) << 3 lvl, the level from
	 * expires - clk against LVL_START(n) = 63 << 3 (n - 1). */
	ck_assert_int_eq(rcu_nocb_timer_fire_jiffies(1, 0, 1000), 2);       /* +1: next tick but one */
	ck_assert_int_eq(rcu_nocb_timer_fire_jiffies(102, 100, 1000), 103); /* +2 */
	ck_assert_int_eq(rcu_nocb_timer_fire_jiffies(62, 0, 1000), 63);
	ck_assert_int_eq(rcu_nocb_timer_fire_jiffies(63, 0, 1000), 64);     /* level 1, 8 jiffies */
	ck_assert_int_eq(rcu_nocb_timer_fire_jiffies(100, 0, 1000), 104);
	ck_assert_int_eq(rcu_nocb_timer_fire_jiffies(504, 0, 1000), 512);   /* level 2, 64 */
	/* 10 s: HZ 1000, 10000 jiffies, level 3 (512): 20 x 512; HZ 250,
	 * 2500, level 2 (64): 40 x 64. */
	ck_assert_int_eq(rcu_nocb_timer_fire_jiffies(10000, 0, 1000), 10240);
	ck_assert_int_eq(rcu_nocb_timer_fire_jiffies(2500, 0, 250), 2560);
	ck_assert_int_eq(rcu_nocb_timer_fire_jiffies(5, 10, 1000), 10);     /* already due */
	/* Beyond the wheel (LVL_START(9) = 63 << 24): capped at clk +
	 * WHEEL_TIMEOUT_MAX, level 8: 63 << 24. */
	ck_assert_int_eq(rcu_nocb_timer_fire_jiffies(INT64_C(1) << 40, 0, 1000), INT64_C(63) << 24);
	for (int64_t clk = 0; clk < 300; clk += 7)
		for (int64_t d = 0; d < 20000; d += 13) {
			int64_t f = rcu_nocb_timer_fire_jiffies(clk + d, clk, 1000);
			REQUIRE(f > clk + d && f - (clk + d) <= (d < 63 ? 1 : d < 504 ? 8 : d < 4032 ? 64 : 512));
		}
}
END_TEST

START_TEST(nocb_wake_delays)
{
	/* 8 CPUs, groups {0-3} {4-7}. */
	world w = mk(8, 1000, 0, false);
	rcu_nocb_group *g1 = &w.st->grp[1];
	rcu_nocb_effect e;
	/* call_rcu with irqs off onto an empty list: RCU_NOCB_WAKE, +1 jiffy. */
	call1(w, 5, 100, false, true, &e, NULL);
	ck_assert(e.wake_rcuog == -1 && e.timer_grp == 1);
	ck_assert(g1->defer_wakeup == RCU_NOCB_WAKE && g1->timer_expires == 101);
	/* rcu_pending() sees it on the leader only (tree.c:4421 reads the
	 * CPU's own rdp). */
	ck_assert(rcu_nocb_need_deferred_wakeup(w.st, 4, RCU_NOCB_WAKE));
	ck_assert(!rcu_nocb_need_deferred_wakeup(w.st, 5, RCU_NOCB_WAKE));
	/* A BYPASS deferral overrides it: +2, level BYPASS. */
	rcu_nocb_effect_init(&e);
	rcu_nocb_wake_defer(w.st, 6, RCU_NOCB_WAKE_BYPASS, 100, &e);
	ck_assert(g1->defer_wakeup == RCU_NOCB_WAKE_BYPASS && g1->timer_expires == 102);
	/* WAKE again: below WAKE, so the timer moves to +1. */
	rcu_nocb_wake_defer(w.st, 6, RCU_NOCB_WAKE, 100, &e);
	ck_assert(g1->defer_wakeup == RCU_NOCB_WAKE && g1->timer_expires == 101);
	/* FORCE on top: level 4, the timer stays. */
	rcu_nocb_wake_defer(w.st, 6, RCU_NOCB_WAKE_FORCE, 100, &e);
	ck_assert(g1->defer_wakeup == RCU_NOCB_WAKE_FORCE && g1->timer_expires == 101);
	/* 6.12: LAZY from a non-leader tests its own (never set) level: it
	 * re-arms the timer 10 s out and replaces FORCE. */
	rcu_nocb_wake_defer(w.st, 6, RCU_NOCB_WAKE_LAZY, 100, &e);
	ck_assert(g1->defer_wakeup == RCU_NOCB_WAKE_LAZY && g1->timer_expires == 10100);
	/* From the leader, LAZY with LAZY pending: the else branch, +1 jiffy. */
	rcu_nocb_wake_defer(w.st, 4, RCU_NOCB_WAKE_LAZY, 200, &e);
	ck_assert(g1->defer_wakeup == RCU_NOCB_WAKE_LAZY && g1->timer_expires == 201);
	/* do_nocb_deferred_wakeup() only acts on WAKE and FORCE. */
	rcu_nocb_effect_init(&e);
	ck_assert(!rcu_nocb_do_deferred_wakeup(w.st, 5, &e));
	ck_assert(g1->timer_pending);
	/* The timer acts on any level: rcuog (asleep for callbacks) runs. */
	rcu_nocb_timer(w.st, 1, &e);
	ck_assert(e.wake_rcuog == 1 && !g1->timer_pending && g1->defer_wakeup == RCU_NOCB_WAKE_NOT);
	ck_assert(!g1->gp_sleep);
	ck_assert(rcu_nocb_sane(w.st));
	rm(w);
	/* 6.19's test of the leader's level: the non-leader's LAZY leaves a
	 * pending WAKE alone. */
	rcu_nocb_cfg cfg;
	rcu_nocb_cfg_default(&cfg);
	cfg.lazy_defer_reads_gp = true;
	w = mk_cfg(8, 1000, 0, "all", &cfg, false);
	g1 = &w.st->grp[1];
	call1(w, 5, 100, false, true, &e, NULL);
	rcu_nocb_effect_init(&e);
	rcu_nocb_wake_defer(w.st, 6, RCU_NOCB_WAKE_LAZY, 100, &e);
	ck_assert(g1->defer_wakeup == RCU_NOCB_WAKE && g1->timer_expires == 101);
	/* do_nocb_deferred_wakeup() (rcu_core, idle entry) on any CPU of the
	 * group does the pending WAKE. */
	ck_assert(rcu_nocb_do_deferred_wakeup(w.st, 7, &e));
	ck_assert(e.wake_rcuog == 1 && !g1->timer_pending);
	rm(w);
}
END_TEST

START_TEST(nocb_wake_force_on_overflow)
{
	/* qhimark 50. CPU 1 has callbacks pending (not all done), so
	 * was_alldone is false; once the length passes qlen_last_fqs_check
	 * + 50 a FORCE wakeup is deferred (+1 jiffy) as rcuo sleeps. */
	world w = mk(4, 1000, 50, false);
	call1(w, 1, 1, false, false, NULL, NULL); /* qlen_last_fqs_check = 1, rcuog woken */
	rcu_nocb_effect e;
	int64_t j = 2;
	for (int k = 0; k < 50; k++, j++) /* one per jiffy: all direct */
		call1(w, 1, j, false, false, &e, NULL);
	ck_assert_int_eq(rcu_nocb_len(w.st, 1), 51);
	ck_assert(e.timer_grp == -1 && w.st->grp[0].defer_wakeup == RCU_NOCB_WAKE_NOT);
	call1(w, 1, j, false, false, &e, NULL); /* 52 > 1 + 50 */
	ck_assert_int_eq(e.timer_grp, 0);
	ck_assert(w.st->grp[0].defer_wakeup == RCU_NOCB_WAKE_FORCE &&
		  w.st->grp[0].timer_expires == j + 1);
	ck_assert_int_eq(w.rsp->rda[1].qlen_last_fqs_check, 52);
	/* The timer forces the wakeup even though nocb_gp_sleep is clear. */
	ck_assert(!w.st->grp[0].gp_sleep);
	rcu_nocb_effect_init(&e);
	rcu_nocb_timer(w.st, 0, &e);
	ck_assert_int_eq(e.wake_rcuog, 0);
	rm(w);
}
END_TEST

/* ---- 4. lazy callbacks ------------------------------------------------------------------------- */

START_TEST(nocb_lazy_off_by_default)
{
	/* CONFIG_RCU_LAZY=n (the default): call_rcu is a hurry one. */
	world w = mk(4, 1000, 0, false);
	ck_assert_int_eq(call1(w, 0, 1, true, false, NULL, NULL), RCU_NOCB_DIRECT);
	ck_assert_int_eq(w.st->nd[0].lazy_len, 0);
	rm(w);
}
END_TEST

START_TEST(nocb_lazy_flush_by_age)
{
	/* HZ 1000, lazy flush 10 s = 10000 jiffies; 4 CPUs, groups {0,1}
	 * and {2,3}. A lazy call_rcu on CPU 2 at 100 goes to the bypass and
	 * defers group 1's wakeup (LAZY) to 10100. */
	world w = mk(4, 1000, 0, true);
	rcu_nocb_effect e;
	ck_assert_int_eq(call1(w, 2, 100, true, false, &e, NULL), RCU_NOCB_BYPASS);
	ck_assert(e.wake_rcuog == -1 && e.timer_grp == 1);
	ck_assert_int_eq(w.st->nd[2].lazy_len, 1);
	ck_assert(w.st->grp[1].defer_wakeup == RCU_NOCB_WAKE_LAZY &&
		  w.st->grp[1].timer_expires == 10100);
	/* rcuog at exactly 10100: time_after(10100, 100 + 10000) is false, no
	 * flush; it defers LAZY again, 10 s from now. */
	rcu_nocb_gp_pass p = pass_at(w, 1, 10100, &e);
	ck_assert_int_eq(p.flushed, 0);
	ck_assert(w.st->grp[1].gp_lazy && !w.st->grp[1].gp_bypass);
	ck_assert(w.st->grp[1].timer_expires == 20100 && w.st->grp[1].wait == RCU_NOCB_GP_WAIT_CBS);
	/* One jiffy later: flushed, a GP requested. */
	p = pass_at(w, 1, 10101, &e);
	ck_assert_int_eq(p.flushed, 1);
	ck_assert(e.wake_gp_kthread && w.st->grp[1].wait == RCU_NOCB_GP_WAIT_GP);
	ck_assert_int_eq(w.st->nd[2].lazy_len, 0);
	/* From call_rcu: a lazy arrival past the age flushes them all, itself
	 * included (it joins the bypass first). */
	call1(w, 3, 200, true, false, NULL, NULL);
	call1(w, 3, 300, true, false, NULL, NULL);
	int64_t fl;
	ck_assert_int_eq(call1(w, 3, 10200, true, false, &e, &fl), RCU_NOCB_BYPASS); /* not after */
	ck_assert_int_eq(call1(w, 3, 10201, true, false, &e, &fl), RCU_NOCB_FLUSHED);
	ck_assert_int_eq(fl, 4);
	ck_assert_int_eq(rcu_nocb_bypass_len(w.st, 3), 0);
	ck_assert_int_eq(rcu_segcblist_n_cbs(&w.rsp->rda[3].cblist), 4);
	rm(w);
}
END_TEST

START_TEST(nocb_lazy_flush_by_count)
{
	/* qhimark 50: 50 lazy callbacks wait in the bypass; the 51st
	 * (ncbs >= qhimark) flushes all 51 and wakes rcuog now. */
	world w = mk(4, 1000, 50, true);
	for (int k = 0; k < 50; k++)
		ck_assert_int_eq(call1(w, 1, 7, true, false, NULL, NULL), RCU_NOCB_BYPASS);
	ck_assert_int_eq(w.st->nd[1].lazy_len, 50);
	rcu_nocb_effect e;
	int64_t fl;
	ck_assert_int_eq(call1(w, 1, 7, true, false, &e, &fl), RCU_NOCB_FLUSHED);
	ck_assert_int_eq(fl, 51);
	ck_assert_int_eq(rcu_nocb_bypass_len(w.st, 1), 0);
	ck_assert_int_eq(w.st->nd[1].lazy_len, 0);
	/* ->cblist had nothing pending: rcuog woken at once (the LAZY timer
	 * of the first one deleted). */
	ck_assert_int_eq(e.wake_rcuog, 0);
	ck_assert(!w.st->grp[0].timer_pending);
	rm(w);
}
END_TEST

START_TEST(nocb_lazy_flush_by_nonlazy)
{
	world w = mk(4, 1000, 0, true);
	rcu_nocb_effect e;
	int64_t fl;
	/* Three lazy ones at 100 (they count against the allowance too). */
	for (int k = 0; k < 3; k++)
		call1(w, 2, 100, true, false, NULL, NULL);
	ck_assert_int_eq(w.st->nd[2].nobypass_count, 2);
	/* A hurry one at 101, under the allowance: it flushes the lazy ones
	 * and goes direct after them; ->cblist was empty: rcuog of group 1
	 * ({2,3}) woken now. */
	ck_assert_int_eq(call1(w, 2, 101, false, false, &e, &fl), RCU_NOCB_DIRECT);
	ck_assert_int_eq(fl, 3);
	ck_assert_int_eq(e.wake_rcuog, 1);
	ck_assert_int_eq(rcu_segcblist_n_cbs(&w.rsp->rda[2].cblist), 4);
	ck_assert_int_eq(w.st->nd[2].lazy_len, 0);
	/* Over the allowance: 16 lazy ones on CPU 3 at 200 use it up, so the
	 * hurry one joins the bypass; the bypass is no longer lazy-only and
	 * CPU 3's ->cblist has nothing pending: rcuog is kicked (it sleeps in
	 * a GP wait for CPU 2's callbacks: only its nocb_gp_sleep clears). */
	rcu_nocb_gp_pass p = pass_at(w, 1, 101, NULL);
	ck_assert(p.sleep && w.st->grp[1].wait == RCU_NOCB_GP_WAIT_GP);
	for (int k = 0; k < 16; k++)
		call1(w, 3, 200, true, false, NULL, NULL);
	ck_assert_int_eq(call1(w, 3, 200, false, false, &e, NULL), RCU_NOCB_BYPASS);
	ck_assert(e.wake_rcuog == -1 && !w.st->grp[1].gp_sleep);
	ck_assert(rcu_nocb_gp_wait_cond(w.st, 1));
	/* rcuog at 201: not lazy-only, but only one jiffy old; at 202 flushed. */
	p = pass_at(w, 1, 201, NULL);
	ck_assert_int_eq(p.flushed, 0);
	ck_assert_int_eq(w.st->grp[1].timer_expires, 203);
	p = pass_at(w, 1, 202, NULL);
	ck_assert_int_eq(p.flushed, 17);
	rm(w);
}
END_TEST

/* ---- 5. the whole way: rcuog, the GP, rcuo ------------------------------------------------------ */

START_TEST(nocb_callback_through_rcuog_gp_rcuo)
{
	/* 32 CPUs (leaves 0-15, 16-31), groups of 6; CPU 20 is in group 3
	 * (18-23), led by CPU 18. */
	world w = mk(32, 1000, 0, false);
	const uint64_t g0 = w.rsp->gp_seq;
	rcu_nocb_effect e;
	call1(w, 20, 1, false, false, &e, NULL);
	ck_assert_int_eq(e.wake_rcuog, 3);
	/* rcuog's pass: advance (assign g0 + 4, request it: wake the GP
	 * kthread), wait for g0 + 4 on CPU 18's leaf. */
	rcu_nocb_gp_pass p = pass_at(w, 3, 1, &e);
	ck_assert(p.sleep && e.wake_gp_kthread && p.advanced == 1 && p.cpus == 6);
	ck_assert(w.st->grp[3].wait == RCU_NOCB_GP_WAIT_GP && w.st->grp[3].wait_seq == g0 + 4);
	ck_assert_int_eq(w.st->grp[3].wait_node, w.rsp->rda[18].leaf);
	ck_assert_int_eq(e.nwake_rcuo, 0);
	/* CPU 21's first callback kicks rcuog, but rcuog sleeps in its GP
	 * wait, on another queue: only its nocb_gp_sleep clears. */
	call1(w, 21, 2, false, false, &e, NULL);
	ck_assert_int_eq(e.wake_rcuog, -1);
	ck_assert(!w.st->grp[3].gp_sleep);
	/* The GP ends: rcuog's queue is woken, its condition holds. */
	int woken[8];
	ck_assert(!run_gp(w.rsp, 3));
	ck_assert_uint_eq(w.rsp->gp_seq, g0 + 4);
	ck_assert_int_eq(rcu_nocb_gp_cleanup(w.st, woken), 1);
	ck_assert_int_eq(woken[0], 3);
	/* Its pass: CPU 20's callback is done (wake its rcuo); CPU 21's
	 * needs g0 + 8 (requested); rcuog waits for that. */
	p = pass_at(w, 3, 3, &e);
	ck_assert_int_eq(e.nwake_rcuo, 1);
	ck_assert_int_eq(e.wake_rcuo[0], 20);
	ck_assert(e.wake_gp_kthread && w.st->grp[3].wait_seq == g0 + 8);
	/* rcuo of CPU 20: one callback, called at 1 ms, invoked at 10 ms. */
	sim_hist *lat = malloc(sizeof(*lat));
	sim_hist_init(lat);
	rcu_nocb_batch b = { 10000000, 1000, 0 };
	rcu_nocb_cb_out out;
	ck_assert(rcu_nocb_cb_wait_cond(w.st, 20));
	ck_assert_int_eq(rcu_nocb_cb_wait(w.st, 20, &b, lat, &out), 1);
	ck_assert(out.sleep && !out.wake_gp_kthread && out.cond_resched == 1);
	ck_assert_uint_eq(lat->max, 9000000);
	ck_assert_int_eq(rcu_nocb_len(w.st, 20), 0);
	/* The GP ending at g0 + 8 wakes it again. */
	ck_assert(!run_gp(w.rsp, 4));
	ck_assert_int_eq(rcu_nocb_gp_cleanup(w.st, woken), 1);
	free(lat);
	rm(w);
}
END_TEST

START_TEST(nocb_gp_wait_other_parity_sleeps_on)
{
	/* 8 CPUs, groups {0-3} {4-7}. CPU 0's callback makes rcuog 0 request
	 * g0 + 4, which starts; CPU 5 queues mid-GP, so rcuog 1 waits for
	 * g0 + 8, on its leaf's queue ctr(g0 + 8) & 1. The end of g0 + 4 wakes
	 * queue ctr(g0 + 4) & 1: rcuog 0 runs, rcuog 1 sleeps on, even after
	 * CPU 6's first callback cleared its nocb_gp_sleep (its condition
	 * holds, but nobody wakes its queue). The end of g0 + 8 wakes it. */
	world w = mk(8, 1000, 0, false);
	const uint64_t g0 = w.rsp->gp_seq;
	int woken[2];
	rcu_nocb_effect e;
	call1(w, 0, 1, false, false, NULL, NULL);
	pass_at(w, 0, 1, &e);
	ck_assert(e.wake_gp_kthread && w.st->grp[0].wait_seq == g0 + 4);
	ck_assert_int_eq(rcu_tree_gp_init(w.rsp, -1, 2), w.rsp->nnodes + w.rsp->nleaves);
	call1(w, 5, 2, false, false, &e, NULL);
	ck_assert_int_eq(e.wake_rcuog, 1);
	rcu_nocb_gp_pass p = pass_at(w, 1, 2, &e);
	ck_assert(p.sleep && !e.wake_gp_kthread && w.st->grp[1].wait_seq == g0 + 8);
	call1(w, 6, 3, false, false, &e, NULL);
	ck_assert(e.wake_rcuog == -1 && !w.st->grp[1].gp_sleep && rcu_nocb_gp_wait_cond(w.st, 1));
	/* End g0 + 4 (every QS reported at the leaves). */
	rcu_tree_fqs_result res;
	bool needgp;
	for (int n = w.rsp->level_first[w.rsp->nlevels - 1]; n < w.rsp->nnodes; n++)
		rcu_tree_report_qs_rnp(w.rsp, w.rsp->node[n].qsmask, n, w.rsp->node[n].gp_seq);
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_start(w.rsp, 4), 0);
	ck_assert_int_eq(rcu_tree_gp_fqs_loop_wake(w.rsp, 4, &res), RCU_TREE_FQS_DONE);
	rcu_tree_gp_cleanup(w.rsp, -1, 4, &needgp);
	ck_assert(needgp); /* g0 + 8 was requested for CPU 5 */
	ck_assert_uint_eq(w.rsp->gp_seq, g0 + 4);
	ck_assert_int_eq(rcu_nocb_gp_cleanup(w.st, woken), 1);
	ck_assert_int_eq(woken[0], 0);
	ck_assert(run_gp(w.rsp, 5) == false);
	ck_assert_int_eq(rcu_nocb_gp_cleanup(w.st, woken), 1);
	ck_assert_int_eq(woken[0], 1);
	rm(w);
}
END_TEST

START_TEST(nocb_rcuo_batch_without_limits)
{
	/* 5000 ready callbacks: rcuo invokes them all in one batch (softirq
	 * would stop at blimit 10), one cond_resched each. Meanwhile 16 more
	 * went direct and 3 to the bypass: qlen_last_fqs_check is the length
	 * before the batch, 5019 with the bypass; after it 19 are left (not
	 * 0) and 19 < 5019 - 10000 is false, so it stays. */
	world w = mk(4, 1000, 0, false);
	for (int j = 0; j < 5000; j++)
		call1(w, 1, 10 + j, false, false, NULL, NULL);
	pass_at(w, 0, 6000, NULL);
	run_gp(w.rsp, 6001);
	int woken[1];
	ck_assert_int_eq(rcu_nocb_gp_cleanup(w.st, woken), 1);
	rcu_nocb_effect e;
	pass_at(w, 0, 6001, &e);
	ck_assert_int_eq(e.nwake_rcuo, 1);
	fill_bypass(w, 1, 6002, 3);
	ck_assert_int_eq(rcu_nocb_bypass_len(w.st, 1), 3);
	rcu_nocb_batch b = { 0, 100, 0 };
	rcu_nocb_cb_out out;
	ck_assert_int_eq(rcu_nocb_cb_wait(w.st, 1, &b, NULL, &out), 5000);
	ck_assert_int_eq(out.cond_resched, 5000);
	ck_assert(out.sleep);
	ck_assert_int_eq(w.rsp->rda[1].n_cbs_invoked, 5000);
	ck_assert_int_eq(w.rsp->rda[1].qlen_last_fqs_check, 5000 + 16 + 3);
	ck_assert_int_eq(rcu_nocb_len(w.st, 1), 19);
	rm(w);
}
END_TEST

START_TEST(nocb_rcuo_advances_after_batch)
{
	/* 4 CPUs, CPU 1 in group 0. cb1 is ready (GP g0 + 4 over, rcuo
	 * woken); cb2 waits for g0 + 8, cb3 (queued behind it, nothing new
	 * pending) has no GP yet. g0 + 8 ends before rcuog runs again: rcuo's
	 * own advance after its batch (tree_nocb.h:916-921) moves cb2 into
	 * DONE, gives cb3 g0 + 12 and requests it, and rcuo stays awake. */
	world w = mk(4, 1000, 0, false);
	const uint64_t g0 = w.rsp->gp_seq;
	rcu_nocb_effect e;
	int woken[2];
	call1(w, 1, 1, false, false, NULL, NULL);
	pass_at(w, 0, 1, NULL);
	run_gp(w.rsp, 2);
	ck_assert_int_eq(rcu_nocb_gp_cleanup(w.st, woken), 1);
	pass_at(w, 0, 2, &e);
	ck_assert(e.nwake_rcuo == 1 && w.st->grp[0].wait == RCU_NOCB_GP_WAIT_CBS);
	call1(w, 1, 3, false, false, &e, NULL); /* cb2: nothing pending, rcuog woken */
	ck_assert_int_eq(e.wake_rcuog, 0);
	pass_at(w, 0, 3, &e);
	ck_assert(e.wake_gp_kthread && w.st->grp[0].wait_seq == g0 + 8);
	call1(w, 1, 4, false, false, &e, NULL); /* cb3: cb2 pending, no wakeup */
	ck_assert_int_eq(e.wake_rcuog, -1);
	run_gp(w.rsp, 5);
	ck_assert_uint_eq(w.rsp->gp_seq, g0 + 8);
	rcu_nocb_batch b = { 6000000, 100, 0 };
	rcu_nocb_cb_out out;
	ck_assert_int_eq(rcu_nocb_cb_wait(w.st, 1, &b, NULL, &out), 1);
	ck_assert(!out.sleep && out.wake_gp_kthread && rcu_nocb_cb_wait_cond(w.st, 1));
	ck_assert_int_eq(rcu_segcblist_seglen(&w.rsp->rda[1].cblist, RCU_DONE_TAIL), 1);
	ck_assert_uint_eq(w.rsp->rda[1].cblist.gp_seq[RCU_WAIT_TAIL], g0 + 12);
	ck_assert_int_eq(rcu_nocb_cb_wait(w.st, 1, &b, NULL, &out), 1);
	ck_assert(out.sleep && !out.wake_gp_kthread);
	rm(w);
}
END_TEST

/* ---- 6. rcuscale's lazy check -------------------------------------------------------------------- */

/* Drive one group's kthreads, its timer and the GP kthread jiffy by jiffy
 * from @j0 until CPU @cpu's callbacks are all ready (rcuo woken): the GP
 * kthread starts a requested GP the jiffy after, and it ends @gp_len
 * jiffies later. Returns the jiffy its rcuo was woken, or -1. */
static int64_t drive_until_ready(world w, int cpu, int64_t j0, int64_t gp_len, int64_t limit)
{
	int g = w.st->nd[cpu].group;
	int64_t fire = -1, gp_start = -1, gp_end = -1;
	bool runnable = false;
	for (int64_t j = j0; j < limit; j++) {
		/* The GP kthread. */
		if (gp_start < 0 && (w.rsp->gp_flags & RCU_GP_FLAG_INIT) && j > j0) {
			gp_start = j;
			gp_end = j + gp_len;
		}
		if (gp_end == j) {
			run_gp(w.rsp, j);
			gp_start = gp_end = -1;
			int woken[64];
			runnable |= rcu_nocb_gp_cleanup(w.st, woken) > 0;
		}
		/* The timer wheel. */
		if (w.st->grp[g].timer_pending && fire == j) {
			rcu_nocb_effect e;
			rcu_nocb_effect_init(&e);
			rcu_nocb_timer(w.st, g, &e);
			runnable |= e.wake_rcuog == g;
			fire = -1;
		}
		/* rcuog, as often as it has work this jiffy. */
		while (runnable) {
			rcu_nocb_effect e;
			rcu_nocb_gp_pass p = pass_at(w, g, j, &e);
			for (int k = 0; k < e.nwake_rcuo; k++)
				if (e.wake_rcuo[k] == cpu)
					return j;
			if (e.timer_grp == g && w.st->grp[g].timer_pending)
				fire = rcu_nocb_timer_fire_jiffies(w.st->grp[g].timer_expires, j,
								   w.rsp->cfg.hz);
			runnable = !p.sleep;
		}
		if (w.st->grp[g].timer_pending && fire < 0)
			fire = rcu_nocb_timer_fire_jiffies(w.st->grp[g].timer_expires, j, w.rsp->cfg.hz);
	}
	return -1;
}

START_TEST(nocb_rcuscale_lazy_two_seconds)
{
	/* rcuscale's kfree_scale_init() (kernel/rcu/rcuscale.c:878-900): lazy
	 * flush 2 s, one call_rcu on an idle system, the callback must run
	 * no sooner than 2 s and no later than 3 s. At HZ 250 the 500-jiffy
	 * timer fires 1-8 jiffies late (wheel level 1), at HZ 1000 the
	 * 2000-jiffy one 1-64 late (level 2); rcuog then flushes (the bypass
	 * is now older than 2 s), a GP of 4 jiffies follows. Every start
	 * jiffy of a wheel period is tried. */
	const int hz = _i ? 1000 : 250;
	for (int64_t j0 = 1000; j0 < 1000 + 64; j0++) {
		rcu_nocb_cfg cfg;
		rcu_nocb_cfg_default(&cfg);
		cfg.lazy = true;
		cfg.jiffies_lazy_flush = 2 * hz;
		world w = mk_cfg(16, hz, 0, "all", &cfg, false);
		rcu_nocb_effect e;
		ck_assert_int_eq(call1(w, 5, j0, true, false, &e, NULL), RCU_NOCB_BYPASS);
		ck_assert(e.wake_rcuog == -1 && w.st->grp[1].defer_wakeup == RCU_NOCB_WAKE_LAZY);
		int64_t ready = drive_until_ready(w, 5, j0, 4, j0 + 10 * hz);
		ck_assert_msg(ready >= j0 + 2 * hz && ready <= j0 + 3 * hz,
			      "HZ %d, call at %lld, ready at %lld", hz, (long long)j0, (long long)ready);
		/* Not before the timer's fire time, and at most a GP later. */
		int64_t fire = rcu_nocb_timer_fire_jiffies(j0 + 2 * hz, j0, hz);
		ck_assert_int_ge(ready, fire);
		ck_assert_int_le(ready, fire + 6);
		rm(w);
	}
}
END_TEST

/* ---- 7. random operations against a reference ------------------------------------------------------ */

typedef struct ref_cb {
	sim_time t;    /* call_rcu time */
	uint32_t obj;  /* object */
	uint64_t snap; /* rcu_seq_snap(rcu_state.gp_seq) at call_rcu */
} ref_cb;

#define REF_CAP 16384

static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

START_TEST(nocb_random_conservation)
{
	/* 24 CPUs (leaf fanout 4: 6 leaves), rcu_nocbs=0-9,12-23 (CPUs 10, 11
	 * stay on softirq and get no callbacks here), 4 groups of 6 (24 /
	 * int_sqrt(24) = 24 / 4).
	 * Random lazy and hurry call_rcu, with irqs on or off, rcuog passes
	 * when woken, the group timers at their wheel times, deferred
	 * wakeups, bypass flushes (rcu_barrier's), GPs at a random pace and
	 * rcuo batches, from the kernel's boot gp_seq (so it wraps through 0);
	 * then a drain with no new callbacks. Every invoked callback must be
	 * its CPU's next by FIFO with its time and object, after a full GP
	 * since its call_rcu; main lists plus bypasses always hold exactly
	 * the enqueued minus the invoked; nothing may be stranded. The fourth
	 * pass keeps the call times as runs (bulk calls' mode) and no objects:
	 * every time read from the runs before a batch must be the
	 * reference's. */
	rcu_nocb_cfg cfg;
	rcu_nocb_cfg_default(&cfg);
	cfg.lazy = true;
	cfg.jiffies_lazy_flush = 40;
	cfg.lazy_defer_reads_gp = _i == 2;
	rcu_tree_cfg tc;
	rcu_tree_cfg_default(&tc, 24, 1000);
	tc.rcu_fanout_leaf = 4;
	tc.qhimark = 60;
	tc.qovld = 100;
	tc.cb_runs = _i == 3;
	char err[256];
	rcu_tree_state *rsp;
	ck_assert_int_eq(rcu_tree_create(&rsp, &tc, !tc.cb_runs, err, sizeof(err)), 0);
	ck_assert(!rsp->rda[0].cblist.runs == !tc.cb_runs);
	sim_time *snap = malloc(REF_CAP * sizeof(*snap));
	bool mask[24];
	ck_assert_int_eq(sim_cpulist_parse("rcu_nocbs", "0-9,12-23", 24, mask, err, sizeof(err)), 0);
	rcu_nocb_state *st;
	ck_assert_int_eq(rcu_nocb_create(&st, rsp, &cfg, mask, err, sizeof(err)), 0);
	ck_assert_int_eq(st->ngroups, 4);
	ref_cb *rq[24];
	size_t rh[24] = { 0 }, rt[24] = { 0 };
	for (int c = 0; c < 24; c++)
		rq[c] = malloc(REF_CAP * sizeof(ref_cb));
	bool runnable[4] = { false };
	int64_t fire[4];
	for (int g = 0; g < 4; g++)
		fire[g] = -1;
	uint64_t seed = 0x2545f4914f6cdd1du + (uint64_t)_i * 7919;
	sim_time now = 0;
	int64_t j = 0, enqueued = 0, invoked = 0, gp_start = -1, flushes = 0, bypassed = 0;
	uint32_t obj = 0;
	bool wrapped = false;
	long step;
	for (step = 0;; step++) {
		REQUIRE(step < 4000000);
		bool drain = rsp->gp_completed >= 1000;
		uint64_t r = xs(&seed);
		now += (sim_time)(r >> 44 & 0xfff) * 100;
		int64_t nj = now / 1000000;
		/* Timers due by the new jiffy fire first. */
		for (; j < nj; j++)
			for (int g = 0; g < 4; g++)
				if (st->grp[g].timer_pending && fire[g] >= 0 && fire[g] <= j + 1) {
					rcu_nocb_effect e;
					rcu_nocb_effect_init(&e);
					rcu_nocb_timer(st, g, &e);
					fire[g] = -1;
					if (e.wake_rcuog >= 0)
						runnable[e.wake_rcuog] = true;
				}
		int cpu = (int)(r % 24);
		rcu_nocb_effect e;
		rcu_nocb_effect_init(&e);
		switch ((r >> 8) % 9) {
		case 0:
		case 1: /* call_rcu bursts */
			if (drain || !st->nd[cpu].offloaded)
				break;
			for (int k = 0; k < (int)(r >> 16 & 31) + 1; k++) {
				REQUIRE(rt[cpu] - rh[cpu] < REF_CAP);
				rq[cpu][rt[cpu]++ % REF_CAP] = (ref_cb){ now, obj, rcu_seq_snap(rsp->gp_seq) };
				REQUIRE_EQ(rcu_nocb_call_rcu(st, cpu, now, j, obj, (r >> 24) & 1,
							     (r >> 25 & 7) == 0, &e, NULL, NULL), 0);
				obj++;
				enqueued++;
			}
			break;
		case 2: /* a woken rcuog runs */
		case 3: {
			int g = (int)((r >> 16) % 4);
			if (!runnable[g])
				break;
			rcu_nocb_gp_pass p;
			rcu_nocb_gp_wait_end(st, g, &e);
			rcu_nocb_gp_wait(st, g, j, &p, &e);
			runnable[g] = !p.sleep;
			wrapped |= rsp->gp_seq < 4096;
			break;
		}
		case 4: { /* an rcuo runs */
			if (!st->nd[cpu].offloaded || st->nd[cpu].cb_sleep)
				break;
			rcu_segcblist *l = &rsp->rda[cpu].cblist;
			rcu_nocb_batch b = { now, 100, 0 };
			rcu_nocb_cb_out out;
			/* Run mode: the runs of what it invokes are gone after. */
			int64_t nq = rcu_segcblist_n_cbs(l);
			for (int64_t k = 0; l->runs && k < nq; k++)
				snap[k] = rcu_segcblist_call_time(l, l->head + (uint64_t)k, now);
			int64_t n = rcu_nocb_cb_wait(st, cpu, &b, NULL, &out);
			for (int64_t k = 0; k < n; k++) {
				uint64_t i = l->head - (uint64_t)n + (uint64_t)k;
				const ref_cb *rc = &rq[cpu][rh[cpu]++ % REF_CAP];
				if (l->runs) {
					REQUIRE_EQ(snap[k], rc->t);
				} else {
					REQUIRE_EQ(rcu_segcblist_call_time(l, i, now + k * 100), rc->t);
					REQUIRE_EQ(l->obj[i & (l->cap - 1)], rc->obj);
				}
				REQUIRE(rcu_seq_done(rsp->gp_seq, rc->snap));
			}
			invoked += n;
			if (out.wake_gp_kthread)
				e.wake_gp_kthread = true;
			break;
		}
		case 5: /* the GP kthread: start a requested GP, end it later */
			if (gp_start < 0 && (rsp->gp_flags & RCU_GP_FLAG_INIT)) {
				gp_start = j;
			} else if (gp_start >= 0 && j >= gp_start + 2 && (r >> 16 & 3) == 0) {
				run_gp(rsp, j);
				gp_start = -1;
				int woken[4];
				int n = rcu_nocb_gp_cleanup(st, woken);
				for (int k = 0; k < n; k++)
					runnable[woken[k]] = true;
			}
			break;
		case 6: /* idle entry or rcu_core: the deferred wakeup */
			rcu_nocb_do_deferred_wakeup(st, cpu, &e);
			break;
		case 7: /* rcu_barrier()'s flush, then its wake of rcuog */
			if (!st->nd[cpu].offloaded || (r >> 16 & 7))
				break;
			if (rcu_nocb_flush_bypass(st, cpu, j) > 0)
				rcu_nocb_wake_nocb_gp(st, cpu, false, &e);
			break;
		default: /* time passes */
			now += (sim_time)(r >> 16 & 0xff) * 100000;
			break;
		}
		if (e.wake_rcuog >= 0)
			runnable[e.wake_rcuog] = true;
		for (int g = 0; g < 4; g++)
			if (st->grp[g].timer_pending && fire[g] < 0)
				fire[g] = rcu_nocb_timer_fire_jiffies(st->grp[g].timer_expires, j, 1000);
			else if (e.timer_grp == g)
				fire[g] = st->grp[g].timer_pending
						  ? rcu_nocb_timer_fire_jiffies(st->grp[g].timer_expires, j, 1000)
						  : -1;
		/* Conservation and layout. */
		int64_t held = 0;
		for (int c = 0; c < 24; c++) {
			held += rcu_nocb_len(st, c);
			if (step % 256 == 0)
				REQUIRE_EQ(rcu_nocb_len(st, c), (int64_t)(rt[c] - rh[c]));
		}
		REQUIRE_EQ(held, enqueued - invoked);
		REQUIRE(rcu_nocb_sane(st));
		REQUIRE(rcu_tree_sane(rsp));
		if (drain && held == 0 && gp_start < 0)
			break;
	}
	for (int c = 0; c < 24; c++) {
		REQUIRE_EQ(rh[c], rt[c]);
		flushes += (int64_t)st->nd[c].n_flushes;
		bypassed += (int64_t)st->nd[c].n_bypassed;
		free(rq[c]);
	}
	free(snap);
	REQUIRE(wrapped);
	REQUIRE(enqueued > 100000);
	REQUIRE_EQ(invoked, enqueued);
	REQUIRE(bypassed > 50000 && flushes > 1000);
	rcu_nocb_destroy(st);
	rcu_tree_destroy(rsp);
}
END_TEST

/* ---- 7. bulk calls against the same calls one by one ------------------------------------ */

/* A pair of 4-CPU trees (leaf fanout 2), all offloaded, HZ 1000, qhimark
 * 50, qovld 70, lazy flush 3 jiffies; call times as runs if @runs, else
 * in the ring with objects. */
static world mk_pair(bool runs, bool lazy)
{
	char err[256];
	rcu_tree_cfg tc;
	rcu_tree_cfg_default(&tc, 4, 1000);
	tc.rcu_fanout_leaf = 2;
	tc.qhimark = 50;
	tc.qlowmark = 10;
	tc.qovld = 70;
	tc.cb_runs = runs;
	world w;
	ck_assert_msg(rcu_tree_create(&w.rsp, &tc, !runs, err, sizeof(err)) == 0, "%s", err);
	rcu_nocb_cfg cfg;
	rcu_nocb_cfg_default(&cfg);
	cfg.lazy = lazy;
	cfg.jiffies_lazy_flush = 3;
	bool mask[4] = { true, true, true, true };
	ck_assert_msg(rcu_nocb_create(&w.st, w.rsp, &cfg, mask, err, sizeof(err)) == 0, "%s", err);
	return w;
}

/* The effects a call had, in order, when it had any: rcuog woken, timer
 * touched, rcuo woken, GP kthread woken. */
typedef struct efflog {
	int64_t v[4096];
	int n;
} efflog;

static void log_effect(efflog *lg, const rcu_nocb_effect *e)
{
	if (e->wake_rcuog < 0 && e->timer_grp < 0 && !e->nwake_rcuo && !e->wake_gp_kthread)
		return;
	REQUIRE(lg->n < 4096);
	lg->v[lg->n++] = (int64_t)(e->wake_rcuog + 1) | (int64_t)(e->timer_grp + 1) << 8 |
			 (int64_t)e->nwake_rcuo << 16 | (int64_t)e->wake_gp_kthread << 24;
}

/* call_rcu() on @cpu at @at, alone. */
static void call_one(world w, int cpu, sim_time at, bool lazy, efflog *lg)
{
	rcu_nocb_effect e;
	rcu_nocb_effect_init(&e);
	REQUIRE_EQ(rcu_nocb_call_rcu(w.st, cpu, at, at / 1000000, 0, lazy, false, &e, NULL, NULL), 0);
	log_effect(lg, &e);
}

/* @n calls at @t0 + i * @step as the Tree RCU flavor makes them in bulk:
 * the stretch of each jiffy that only joins the bypass at once, the
 * others alone. Returns how many went at once. */
static int64_t call_bulk(world w, int cpu, sim_time t0, sim_time step, int64_t n, bool lazy,
			 efflog *lg)
{
	int64_t at_once = 0;
	for (int64_t i = 0; i < n;) {
		sim_time t = t0 + i * step;
		int64_t j = t / 1000000, m = n - i;
		if (step > 0 && ((j + 1) * 1000000 - t0 + step - 1) / step - i < m)
			m = ((j + 1) * 1000000 - t0 + step - 1) / step - i;
		int64_t k = rcu_nocb_bypass_n(w.st, cpu, t, step, m, j, lazy);
		REQUIRE(k >= 0 && k <= m);
		if (k == 0) {
			call_one(w, cpu, t, lazy, lg);
			k = 1;
		}
		at_once += k > 1 ? k : 0;
		i += k;
	}
	return at_once;
}

/* Everything call_rcu() touches is the same in @a and @b at @now. */
static void same_state(world a, world b, sim_time now)
{
	for (int c = 0; c < 4; c++) {
		const rcu_nocb_data *x = &a.st->nd[c], *y = &b.st->nd[c];
		REQUIRE_EQ(x->bypass_tail, y->bypass_tail);
		REQUIRE_EQ(x->lazy_len, y->lazy_len);
		REQUIRE_EQ(x->bypass_first, y->bypass_first);
		REQUIRE_EQ(x->nobypass_last, y->nobypass_last);
		REQUIRE_EQ(x->nobypass_count, y->nobypass_count);
		REQUIRE_EQ(x->gp_adv_time, y->gp_adv_time);
		REQUIRE_EQ(x->n_bypassed, y->n_bypassed);
		REQUIRE_EQ(x->n_flushes, y->n_flushes);
		const rcu_tree_data *p = &a.rsp->rda[c], *q = &b.rsp->rda[c];
		REQUIRE_EQ(p->qlen_max, q->qlen_max);
		REQUIRE_EQ(p->qlen_last_fqs_check, q->qlen_last_fqs_check);
		const rcu_segcblist *l = &p->cblist, *m = &q->cblist;
		REQUIRE_EQ(l->head, m->head);
		for (int s = 0; s < RCU_CBLIST_NSEGS; s++) {
			REQUIRE_EQ(l->tails[s], m->tails[s]);
			REQUIRE_EQ(l->gp_seq[s], m->gp_seq[s]);
		}
		for (uint64_t i = l->head; i != x->bypass_tail; i++) {
			REQUIRE_EQ(rcu_segcblist_call_time(l, i, now), rcu_segcblist_call_time(m, i, now));
			if (l->obj)
				REQUIRE_EQ(l->obj[i & (l->cap - 1)], m->obj[i & (m->cap - 1)]);
		}
	}
	for (int g = 0; g < a.st->ngroups; g++) {
		REQUIRE_EQ(a.st->grp[g].defer_wakeup, b.st->grp[g].defer_wakeup);
		REQUIRE_EQ(a.st->grp[g].timer_pending, b.st->grp[g].timer_pending);
		REQUIRE_EQ(a.st->grp[g].timer_expires, b.st->grp[g].timer_expires);
		REQUIRE_EQ(a.st->grp[g].gp_sleep, b.st->grp[g].gp_sleep);
	}
	for (int n = 0; n < a.rsp->nnodes; n++)
		REQUIRE_EQ(a.rsp->node[n].cbovldmask, b.rsp->node[n].cbovldmask);
	REQUIRE_EQ(a.rsp->gp_flags, b.rsp->gp_flags);
}

START_TEST(nocb_bypass_n_matches_one_by_one)
{
	/* Bursts of 1 to 200 calls, 0 to 20 us or 0 to 300 us apart (up to
	 * 60 ms a burst, so they cross jiffies), lazy or not, on random
	 * CPUs, with time passing, rcu_barrier's flushes and, every 40
	 * bursts, fresh lists (so qovld's 70 is crossed again and again). Bulk and one by one
	 * must leave the same state and the same effects in the same order:
	 * the allowance count, the bypass and its age, the lazy count, each
	 * flush (age, qhimark 50, a non-lazy arrival), qovld's mask, the
	 * longest queue, every call time. Passes: ring or runs, lazy off or
	 * on (3-jiffy lazy flush). */
	bool runs = _i & 1, lazy_on = _i & 2;
	uint64_t seed = 0x9e3779b97f4a7c15u + (uint64_t)_i;
	world a = mk_pair(runs, lazy_on), b = mk_pair(runs, lazy_on);
	static efflog la, lb;
	sim_time now = 5000000;
	int64_t at_once = 0, calls = 0;
	for (int op = 0; op < 3000; op++) {
		uint64_t r = xs(&seed);
		int cpu = (int)(r & 3);
		la.n = lb.n = 0;
		if (op % 40 == 39) {
			rm(a);
			rm(b);
			a = mk_pair(runs, lazy_on);
			b = mk_pair(runs, lazy_on);
		} else if ((r >> 2 & 15) == 0) {
			int64_t j = now / 1000000;
			REQUIRE_EQ(rcu_nocb_flush_bypass(a.st, cpu, j), rcu_nocb_flush_bypass(b.st, cpu, j));
		} else {
			int64_t n = (int64_t)((r >> 8) % 200) + 1;
			sim_time spread = (r >> 23 & 1) ? 300000 : 20000;
			sim_time step = (r >> 20 & 7) == 0 ? 0 : (sim_time)((r >> 24) % (uint64_t)spread);
			bool lazy = r >> 50 & 1;
			at_once += call_bulk(a, cpu, now, step, n, lazy, &la);
			for (int64_t i = 0; i < n; i++)
				call_one(b, cpu, now + i * step, lazy, &lb);
			calls += n;
			now += (n - 1) * step;
		}
		REQUIRE_EQ(la.n, lb.n);
		for (int i = 0; i < la.n; i++)
			REQUIRE_EQ(la.v[i], lb.v[i]);
		same_state(a, b, now);
		REQUIRE(rcu_nocb_sane(a.st));
		now += (sim_time)(xs(&seed) & 0xfff) * 1000;
	}
	/* Most calls went at once (55% to 74% by pass), so the
	 * comparison covers the bulk path. */
	REQUIRE(at_once > calls / 2);
	rm(a);
	rm(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rcu_nocb");
	TCase *tc = tcase_create("rcu_nocb");
	tcase_add_test(tc, nocb_int_sqrt_and_stride);
	tcase_add_loop_test(tc, nocb_group_layout, 0, (int)(sizeof(layouts) / sizeof(layouts[0])));
	tcase_add_test(tc, nocb_group_layout_partial_mask);
	tcase_add_loop_test(tc, nocb_cpulist_good, 0, (int)(sizeof(good_lists) / sizeof(good_lists[0])));
	tcase_add_loop_test(tc, nocb_cpulist_bad, 0, (int)(sizeof(bad_lists) / sizeof(bad_lists[0])));
	tcase_add_loop_test(tc, nocb_allowance_per_jiffy, 0, 2);
	tcase_add_test(tc, nocb_allowance_decay);
	tcase_add_test(tc, nocb_flush_rcuog_age);
	tcase_add_test(tc, nocb_flush_call_rcu_qhimark);
	tcase_add_test(tc, nocb_flush_rcuog_twice_qhimark);
	tcase_add_test(tc, nocb_timer_wheel_fires_late);
	tcase_add_test(tc, nocb_wake_delays);
	tcase_add_test(tc, nocb_wake_force_on_overflow);
	tcase_add_test(tc, nocb_lazy_off_by_default);
	tcase_add_test(tc, nocb_lazy_flush_by_age);
	tcase_add_test(tc, nocb_lazy_flush_by_count);
	tcase_add_test(tc, nocb_lazy_flush_by_nonlazy);
	tcase_add_test(tc, nocb_callback_through_rcuog_gp_rcuo);
	tcase_add_test(tc, nocb_gp_wait_other_parity_sleeps_on);
	tcase_add_test(tc, nocb_rcuo_batch_without_limits);
	tcase_add_test(tc, nocb_rcuo_advances_after_batch);
	tcase_add_loop_test(tc, nocb_rcuscale_lazy_two_seconds, 0, 2);
	tcase_add_loop_test(tc, nocb_random_conservation, 0, 4);
	tcase_add_loop_test(tc, nocb_bypass_n_matches_one_by_one, 0, 4);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
