/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_nocb_cpu.c - offloaded (rcu.nocbs) and lazy (rcu.lazy) callbacks of
 * 6.12 on the CPU model: a callback's way through the bypass, rcuog, a
 * grace period and rcuo, invoked by rcuo and never in softirq; rcuog's
 * deferred wakeup and its timer on the wheel's jiffy; rcuscale's lazy check
 * (rcu.lazy_flush = 2 s: invoked between 2 and 3 s after call_rcu); lazy
 * callbacks flushed by a non-lazy arrival; the tick not kept for an
 * offloaded CPU's callbacks; conservation across main lists and bypasses
 * at every sample of a flood; a mixed machine where only the offloaded
 * CPUs' callbacks go to rcuo; and the knobs' validation. Step tests build
 * a kernel model (check_tree_cpu.c's box) and run its engine to a time;
 * each worked-out case is written down in its test. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "kbox.h"
#include "rcu/tree_nocb.h"
#include "rcu/tree.h"
#include "testlib.h"

/* Four CPUs (no SMT), HZ 250, EEVDF, Tree RCU with every CPU offloaded, the
 * callrcu workload at no rate and no jobs (every CPU idle), with @sets
 * (NULL-terminated) on top. Groups: 4 / int_sqrt(4) = 2 CPUs, {0, 1} with
 * rcuog on CPU 0 and {2, 3} with rcuog on CPU 2. */
static void box_create(box *b, const char *const *sets)
{
	static const char *const base[] = {
		"workload.kind=callrcu", "workload.callrcu_rate=0/s", "workload.jobs=0",
		"machine.cores=4", "machine.threads_per_core=1", "machine.hz=250",
		"machine.arch=x86_64", "sched.kind=eevdf", "sched.ksoftirqd_nice=0",
		"rcu.flavor=tree", "softirq.time_limit=2ms", "softirq.stop_on_need_resched=yes",
		"scenario.duration=1h", "rcu.nocbs=all", NULL
	};
	box_create_from(b, base, sets);
}

static rcu_nocb_state *nocb(box *b)
{
	return rcu_tree_flavor_nocb(b->k->rcu.rsp);
}

/* Callbacks the rcuo kthreads invoked so far (counted by the CPU model),
 * checking that each offloaded CPU's callbacks were invoked by its rcuo
 * only, none in softirq (rcu_data's count of all its invocations). */
static uint64_t rcuo_invoked(box *b)
{
	uint64_t n = 0;
	for (int i = 0; i < b->k->mach.ncpus; i++) {
		const kthread *o = b->k->cpu[i].rcuo;
		if (!o)
			continue;
		ck_assert_uint_eq(o->invoked, tree(b)->rda[i].n_cbs_invoked);
		n += o->invoked;
	}
	return n;
}

/* The rcuog kthread bound to @c (a group's first CPU), or NULL. */
static kthread *rcuog_on(kcpu *c)
{
	for (kthread *kt = c->kthreads; kt; kt = kt->next)
		if (kt->ops == &rcu_nocb_gp_kthread_ops)
			return kt;
	return NULL;
}
/* The scalar @name after finishing the run at now. */
static double finish_get(box *b, const char *name)
{
	char err[256];
	double v;
	ck_assert_int_eq(kernel_model.finish(b->k, sim_now(b->eng), err, sizeof(err)), 0);
	ck_assert_msg(sim_metrics_get(b->m, name, &v), "%s absent", name);
	return v;
}

START_TEST(nocb_callback_path_bypass_rcuog_gp_rcuo)
{
	/* 100 callbacks on idle CPU 1 at 0.5 ms, in jiffy 0. The allowance is
	 * 16 x 1000 / 250 = 64 direct enqueues a jiffy (tree_nocb.h:85,
	 * 420-449): the first 64 go onto ->cblist, the next 36 onto the
	 * bypass (its first does not wake rcuog: ->cblist has callbacks
	 * pending, :504-516). The first direct one found everything done and
	 * woke rcuog of group {0, 1} (on CPU 0): its pass at 0.5 ms leaves the
	 * bypass (not older than a jiffy), defers a BYPASS wakeup to jiffy
	 * 0 + 2 (the wheel fires it one jiffy later, at jiffy 3 = 12 ms),
	 * advances CPU 1's 64, which requests a grace period, and waits for
	 * it. The GP (started at once on CPU 0) ends at CPU 0's idle tick
	 * after its first FQS scan (4 ms): 5 ms. rcu_gp_cleanup() wakes rcuog,
	 * whose pass moves the 64 to DONE and wakes rcuo on CPU 1, which
	 * invokes them; the 36 stay in the bypass (jiffy 1 is not after
	 * bypass_first + 1 = 1), and the BYPASS deferral is re-armed: jiffy
	 * 1 + 2, firing at jiffy 4 = 16 ms. Then rcuog flushes the 36 (jiffy 4
	 * is after 1: a flush for age), a second GP, and rcuo invokes them.
	 * No callback is invoked in softirq. */
	box b;
	const char *sets[] = { NULL };
	box_create(&b, sets);
	kmodel *k = b.k;
	rcu_nocb_state *st = nocb(&b);
	ck_assert_int_eq(st->stride, 2);
	ck_assert_int_eq(st->lim, 64);
	ck_assert_ptr_eq(rcuog_on(&k->cpu[0]), &k->rcu.rcuog[0]);
	ck_assert_ptr_eq(rcuog_on(&k->cpu[2]), &k->rcu.rcuog[1]);
	ck_assert_ptr_null(rcuog_on(&k->cpu[1]));
	for (int i = 0; i < 4; i++)
		ck_assert_ptr_nonnull(k->cpu[i].rcuo);
	run_to(&b, MS / 2);
	queue_on(&b, 1, 100);
	ck_assert_int_eq(rcu_segcblist_n_cbs(&tree(&b)->rda[1].cblist), 64);
	ck_assert_int_eq(rcu_nocb_bypass_len(st, 1), 36);
	ck_assert_int_eq(k->rcu.ops->qlen(k->rcu.rsp, 1), 100); /* the bypass counts */
	ck_assert(!k->rcu.rcuog[0].sleeping || sim_timer_armed(&k->rcu.rcuog[0].wake));
	run_to(&b, MS / 2 + 100000);
	/* rcuog ran once; its BYPASS timer is at jiffy 3; a GP runs. */
	ck_assert_uint_eq(k->rcu.rcuog[0].wakeups, 1);
	ck_assert(k->rcu.rcuog[0].sleeping);
	ck_assert_int_eq(st->grp[0].wait, RCU_NOCB_GP_WAIT_GP);
	ck_assert_int_eq(st->grp[0].defer_wakeup, RCU_NOCB_WAKE_BYPASS);
	ck_assert(sim_timer_armed(&k->rcu.rcuog[0].nocb_timer));
	ck_assert_int_eq(k->rcu.rcuog[0].nocb_timer.when, 12 * MS);
	ck_assert(rcu_tree_gp_in_progress(tree(&b)));
	ck_assert_uint_eq(k->rcu.rcuo[1].wakeups, 0);
	run_to(&b, 5 * MS + 100000);
	/* The first GP ended at 5 ms; rcuo invoked the 64. */
	ck_assert_uint_eq(tree(&b)->gp_completed, 1);
	ck_assert_uint_eq(k->rcu.cb.invoked, 64);
	ck_assert_uint_eq(rcuo_invoked(&b), 64);
	ck_assert_uint_eq(k->rcu.rcuo[1].wakeups, 1);
	ck_assert(k->rcu.rcuo[1].sleeping);
	ck_assert_int_eq(rcu_nocb_bypass_len(st, 1), 36);
	ck_assert_int_eq(k->rcu.rcuog[0].nocb_timer.when, 16 * MS);
	run_to(&b, 16 * MS - 1);
	ck_assert_int_eq(rcu_nocb_bypass_len(st, 1), 36);
	ck_assert_uint_eq(st->nd[1].n_flushes, 0);
	run_to(&b, 16 * MS + 100000);
	/* The timer woke rcuog: the 36 flushed for age, a GP requested. */
	ck_assert_int_eq(rcu_nocb_bypass_len(st, 1), 0);
	ck_assert_uint_eq(st->nd[1].n_flushes, 1);
	ck_assert(rcu_tree_gp_in_progress(tree(&b)));
	run_to(&b, 100 * MS);
	ck_assert_uint_eq(k->rcu.cb.invoked, 100);
	ck_assert_uint_eq(rcuo_invoked(&b), 100);
	ck_assert_uint_eq(tree(&b)->gp_completed, 2);
	ck_assert_uint_eq(k->rcu.rcuo[1].wakeups, 2);
	/* Nothing else to do: every kthread sleeps, no timer armed. */
	for (int i = 0; i < 4; i++)
		ck_assert(k->rcu.rcuo[i].sleeping);
	ck_assert(!sim_timer_armed(&k->rcu.rcuog[0].nocb_timer));
	ck_assert_double_eq(finish_get(&b, "nocb.flush_age"), 1);
	ck_assert_double_eq(finish_get(&b, "cb.bypassed"), 36);
	ck_assert_double_eq(finish_get(&b, "rcuo.invoked"), 100);
	box_destroy(&b);
}
END_TEST

START_TEST(nocb_tick_not_kept_for_offloaded_callbacks)
{
	/* rcu_needs_cpu() (tree.c:695-699) is false on an offloaded CPU even
	 * with callbacks queued, so with irq.nohz_idle its idle tick stops;
	 * the same callback on a CPU not offloaded keeps its tick. */
	box b;
	const char *sets[] = { "irq.nohz_idle=yes", "rcu.nocbs=1", NULL };
	box_create(&b, sets);
	run_to(&b, MS / 2);
	queue_on(&b, 1, 1);
	queue_on(&b, 2, 1);
	ck_assert(!b.k->rcu.ops->needs_cpu(b.k->rcu.rsp, 1));
	ck_assert(b.k->rcu.ops->needs_cpu(b.k->rcu.rsp, 2));
	run_to(&b, 100 * MS);
	ck_assert_uint_eq(b.k->rcu.cb.invoked, 2);
	ck_assert_uint_eq(rcuo_invoked(&b), 1);
	box_destroy(&b);
}
END_TEST

/* One lazy callback on idle CPU 1 at 0.5 s with rcu.lazy_flush @flush;
 * returns the call_rcu-to-invocation time, or -1 if not invoked by 15 s. */
static sim_time lazy_one(const char *flush)
{
	box b;
	const char *sets[] = { "rcu.lazy=yes", flush, NULL };
	box_create(&b, sets);
	kmodel *k = b.k;
	run_to(&b, S / 2);
	queue_on(&b, 1, 1);
	/* Lazy-only bypass, no rcuog wakeup: a LAZY deferral on its timer. */
	ck_assert_int_eq(rcu_nocb_bypass_len(nocb(&b), 1), 1);
	ck_assert_int_eq(nocb(&b)->nd[1].lazy_len, 1);
	ck_assert_int_eq(nocb(&b)->grp[0].defer_wakeup, RCU_NOCB_WAKE_LAZY);
	ck_assert(!sim_timer_armed(&k->rcu.rcuog[0].wake));
	sim_time lat = -1;
	for (sim_time t = S / 2; t < 15 * S && lat < 0; t += MS) {
		run_to(&b, t);
		if (k->rcu.cb.invoked)
			lat = (sim_time)k->rcu.cb.lat->max;
	}
	if (lat >= 0) {
		ck_assert_uint_eq(rcuo_invoked(&b), 1);
		ck_assert_double_eq(finish_get(&b, "lazy.flushed_age"), 1);
		ck_assert_double_eq(finish_get(&b, "lazy.queued"), 1);
		ck_assert_double_eq(finish_get(&b, "gp.completed"), 1);
	}
	box_destroy(&b);
	return lat;
}

START_TEST(nocb_lazy_flush_by_age_rcuscale)
{
	/* rcuscale's self-test (kernel/rcu/rcuscale.c 6.12:870-900): with the
	 * lazy flush set to 2 s, a call_rcu() callback is invoked no sooner
	 * than 2 s and no later than 3 s after it. Here: jiffy 125, a lazy-only
	 * bypass, a LAZY deferral to jiffy 125 + 500 = 625, which the wheel
	 * (level 1, 8 jiffies) fires at 632 (2.528 s); rcuog flushes it (older
	 * than 500 jiffies), a GP of a few ms, rcuo invokes it: about 2.03 s.
	 * At the default 10 s it waits 10 s and more. */
	sim_time lat = lazy_one("rcu.lazy_flush=2s");
	ck_assert_int_ge(lat, 2 * S);
	ck_assert_int_le(lat, 3 * S);
	sim_time lat10 = lazy_one("rcu.lazy_flush=10s");
	ck_assert_int_ge(lat10, 10 * S);
	ck_assert_int_le(lat10, 11 * S);
}
END_TEST

START_TEST(nocb_lazy_flushed_by_hurry_arrival)
{
	/* rcu.lazy: 5 lazy callbacks on CPU 1 at 0.5 ms wait in its bypass
	 * (a LAZY deferral, 10 s). A call_rcu_hurry() on CPU 1 at 1 ms, still
	 * under the jiffy's allowance of 64 (the lazy ones counted 5), flushes
	 * the bypass and goes onto ->cblist (tree_nocb.h:438-449): 5 lazy
	 * callbacks flushed by a non-lazy arrival; was_alldone wakes rcuog,
	 * and all 6 are invoked after one GP, well before 100 ms. */
	box b;
	const char *sets[] = { "rcu.lazy=yes", NULL };
	box_create(&b, sets);
	kmodel *k = b.k;
	run_to(&b, MS / 2);
	queue_on(&b, 1, 5);
	ck_assert_int_eq(nocb(&b)->nd[1].lazy_len, 5);
	run_to(&b, MS);
	ck_assert_uint_eq(k->rcu.cb.invoked, 0);
	ck_assert_uint_eq(k->rcu.rcuog[0].wakeups, 0);
	rcu_tree_flavor_set_hurry(k->rcu.rsp, true);
	queue_on(&b, 1, 1);
	ck_assert_int_eq(rcu_nocb_bypass_len(nocb(&b), 1), 0);
	ck_assert_int_eq(rcu_segcblist_n_cbs(&tree(&b)->rda[1].cblist), 6);
	run_to(&b, 100 * MS);
	ck_assert_uint_eq(k->rcu.cb.invoked, 6);
	ck_assert_uint_eq(rcuo_invoked(&b), 6);
	ck_assert_double_eq(finish_get(&b, "lazy.flushed_hurry"), 5);
	ck_assert_double_eq(finish_get(&b, "lazy.flushed_age"), 0);
	ck_assert_double_eq(finish_get(&b, "nocb.flush_allowance"), 1);
	box_destroy(&b);
}
END_TEST

/* Callbacks queued on all CPUs: main lists plus bypasses. */
START_TEST(nocb_lazy_flushed_by_memory_pressure)
{
	/* rcu.lazy with rcu.lazy_shrink_at = 100: 60 lazy callbacks on CPU 1
	 * and 39 on CPU 3 at 0.5 ms wait in their bypasses (lazy callbacks go
	 * there whatever the allowance): 99 in all, under the threshold. The
	 * 100th, on CPU 3 at 1 ms,
	 * finds 100 lazy callbacks: the shrinker flushes both bypasses (2
	 * flushes, 100 lazy callbacks) and wakes both groups' rcuog, so all
	 * are invoked after a grace period or two, long before rcu.lazy_flush
	 * (10 s). Without the threshold they wait the 10 s. */
	box b;
	const char *sets[] = { "rcu.lazy=yes", "rcu.lazy_shrink_at=100", NULL };
	box_create(&b, sets);
	kmodel *k = b.k;
	run_to(&b, MS / 2);
	queue_on(&b, 1, 60);
	queue_on(&b, 3, 39);
	ck_assert_int_eq(nocb(&b)->nd[1].lazy_len + nocb(&b)->nd[3].lazy_len, 99);
	run_to(&b, MS);
	queue_on(&b, 3, 1);
	ck_assert_int_eq(nocb(&b)->nd[1].lazy_len + nocb(&b)->nd[3].lazy_len, 0);
	ck_assert_int_eq(rcu_nocb_bypass_len(nocb(&b), 1) + rcu_nocb_bypass_len(nocb(&b), 3), 0);
	run_to(&b, 100 * MS);
	ck_assert_uint_eq(k->rcu.cb.invoked, 100);
	ck_assert_uint_eq(rcuo_invoked(&b), 100);
	ck_assert_double_eq(finish_get(&b, "lazy.flushed_memory"), 100);
	ck_assert_double_eq(finish_get(&b, "lazy.shrinks"), 1);
	ck_assert_double_eq(finish_get(&b, "lazy.flushed_age"), 0);
	box_destroy(&b);

	const char *no[] = { "rcu.lazy=yes", NULL };
	box_create(&b, no);
	k = b.k;
	run_to(&b, MS / 2);
	queue_on(&b, 1, 60);
	queue_on(&b, 3, 40);
	run_to(&b, 5 * S);
	ck_assert_uint_eq(k->rcu.cb.invoked, 0);
	box_destroy(&b);
}
END_TEST

static int64_t queued(box *b, int64_t *bypass)
{
	int64_t n = 0;
	*bypass = 0;
	for (int i = 0; i < b->k->mach.ncpus; i++) {
		n += rcu_segcblist_n_cbs(&tree(b)->rda[i].cblist);
		*bypass += rcu_nocb_bypass_len(nocb(b), i);
	}
	return n + *bypass;
}

START_TEST(nocb_flood_conservation_every_sample)
{
	/* Four hogs a CPU calling call_rcu 10,000 times a second of their CPU
	 * time on 4 CPUs (no nohz), all offloaded, lazy on, for 3 s, looked at
	 * every 10 ms: callbacks queued = invoked + in the main lists + in the
	 * bypasses, and the queue the model counts (cb.qlen) is that sum;
	 * every invocation was rcuo's; the lazy callbacks are in a bypass or
	 * were flushed with a cause. The bypass is used (36,000 a second a
	 * CPU is past 64 a jiffy). */
	box b;
	const char *sets[] = { "workload.jobs=16", "workload.callrcu_rate=10000/s", "rcu.lazy=yes",
			       "rcu.lazy_flush=100ms", NULL };
	box_create(&b, sets);
	kmodel *k = b.k;
	int64_t bypass_seen = 0;
	for (sim_time t = 10 * MS; t <= 3 * S; t += 10 * MS) {
		run_to(&b, t);
		for (int i = 0; i < 4; i++)
			kcpu_settle(&k->cpu[i], t, sim_engine_cur_seq(b.eng), true);
		int64_t bypass, q = queued(&b, &bypass), qlen = 0;
		for (int i = 0; i < 4; i++)
			qlen += k->rcu.ops->qlen(k->rcu.rsp, i);
		ck_assert_int_eq(qlen, q);
		ck_assert_msg(cb_stats_conserved(&k->rcu.cb, (uint64_t)q),
			      "t %lld: enqueued %llu, invoked %llu, queued %lld", (long long)t,
			      (unsigned long long)k->rcu.cb.enqueued,
			      (unsigned long long)k->rcu.cb.invoked, (long long)q);
		ck_assert_uint_eq(rcuo_invoked(&b), k->rcu.cb.invoked);
		ck_assert(rcu_nocb_sane(nocb(&b)));
		if (bypass > bypass_seen)
			bypass_seen = bypass;
	}
	ck_assert_int_gt(bypass_seen, 0);
	ck_assert_uint_gt(k->rcu.cb.invoked, 100000);
	double lq = finish_get(&b, "lazy.queued");
	double left = 0;
	for (int i = 0; i < 4; i++)
		left += (double)nocb(&b)->nd[i].lazy_len;
	ck_assert_double_eq(lq, finish_get(&b, "lazy.flushed_age") + finish_get(&b, "lazy.flushed_count") +
					finish_get(&b, "lazy.flushed_hurry") + left);
	ck_assert_double_eq(finish_get(&b, "cb.invoked"), finish_get(&b, "rcuo.invoked"));
	ck_assert_double_gt(finish_get(&b, "rcuo.cpu_ns"), 0);
	ck_assert_double_gt(finish_get(&b, "rcuog.wakeups"), 0);
	box_destroy(&b);
}
END_TEST

START_TEST(nocb_mixed_machine_softirq_only_where_not_offloaded)
{
	/* rcu.nocbs = 1-3: CPU 0's callbacks are invoked in RCU_SOFTIRQ, the
	 * others' by their rcuo kthreads only; group {0, 1}'s rcuog runs on
	 * CPU 0, which is not offloaded itself. 2 s of the flood. */
	box b;
	const char *sets[] = { "workload.jobs=16", "workload.callrcu_rate=10000/s", "rcu.nocbs=1-3",
			       NULL };
	box_create(&b, sets);
	kmodel *k = b.k;
	ck_assert_ptr_null(k->cpu[0].rcuo);
	ck_assert_ptr_nonnull(rcuog_on(&k->cpu[0]));
	run_to(&b, 2 * S);
	uint64_t cpu0 = tree(&b)->rda[0].n_cbs_invoked;
	ck_assert_uint_gt(cpu0, 10000);
	ck_assert_uint_gt(rcuo_invoked(&b), 3 * 10000);
	ck_assert_uint_eq(cpu0 + rcuo_invoked(&b), k->rcu.cb.invoked);
	ck_assert_double_eq(finish_get(&b, "rcuo.invoked"), (double)rcuo_invoked(&b));
	box_destroy(&b);
}
END_TEST

/* rcusim_validate() on the box's base with @set: the message, "" if valid. */
static const char *validate_with(const char *set, const char *set2, char *err, size_t errlen)
{
	sim_params *p;
	ck_assert_int_eq(sim_params_create(&p, rcusim_params, P_COUNT, err, errlen), 0);
	const char *base[] = { "workload.kind=callrcu", "machine.cores=4", "machine.threads_per_core=1",
			       "sched.kind=eevdf", "rcu.flavor=tree", set, set2, NULL };
	for (const char *const *s = base; *s; s++)
		ck_assert_msg(sim_params_set(p, *s, err, errlen) == 0, "%s: %s", *s, err);
	err[0] = 0;
	int rc = rcusim_validate(p, err, errlen);
	ck_assert_int_eq(rc != 0, err[0] != 0);
	sim_params_destroy(p);
	return err;
}

START_TEST(nocb_knobs_validated)
{
	char err[1024];
	ck_assert_str_eq(validate_with("rcu.nocbs=0-2,3", NULL, err, sizeof(err)), "");
	ck_assert_str_eq(validate_with("rcu.nocbs=all", "rcu.lazy=yes", err, sizeof(err)), "");
	ck_assert_ptr_nonnull(strstr(validate_with("rcu.nocbs=0-4", NULL, err, sizeof(err)), "rcu.nocbs"));
	ck_assert_ptr_nonnull(strstr(validate_with("rcu.nocbs=x", NULL, err, sizeof(err)), "rcu.nocbs"));
	/* Lazy without an offloaded CPU does nothing: refused. */
	ck_assert_ptr_nonnull(strstr(validate_with("rcu.lazy=yes", NULL, err, sizeof(err)),
				     "applies only to offloaded CPUs"));
	/* The flush time and the call site only with rcu.lazy. */
	ck_assert_ptr_nonnull(strstr(validate_with("rcu.nocbs=all", "rcu.lazy_flush=2s", err, sizeof(err)),
				     "rcu.lazy = yes"));
	ck_assert_ptr_nonnull(strstr(validate_with("rcu.nocbs=all", "rcu.call_site=call_rcu", err,
						   sizeof(err)), "rcu.lazy = yes"));
	/* Only with Tree RCU. */
	ck_assert_ptr_nonnull(strstr(validate_with("rcu.flavor=classic", "rcu.nocbs=all", err, sizeof(err)),
				     "rcu.flavor = tree"));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("nocb_cpu");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, nocb_callback_path_bypass_rcuog_gp_rcuo);
	tcase_add_test(tc, nocb_tick_not_kept_for_offloaded_callbacks);
	tcase_add_test(tc, nocb_lazy_flush_by_age_rcuscale);
	tcase_add_test(tc, nocb_lazy_flushed_by_hurry_arrival);
	tcase_add_test(tc, nocb_lazy_flushed_by_memory_pressure);
	tcase_add_test(tc, nocb_flood_conservation_every_sample);
	tcase_add_test(tc, nocb_mixed_machine_softirq_only_where_not_offloaded);
	tcase_add_test(tc, nocb_knobs_validated);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testlib_run_suite(suite());
}
