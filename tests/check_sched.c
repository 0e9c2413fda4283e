/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_sched.c - the O(1) runqueue step by step: timeslices per nice and
 * HZ, dynamic priority, TASK_INTERACTIVE, expiry and the array switch,
 * EXPIRED_STARVING, and a nice-19 task among 256 nice-0 hogs; EEVDF: shares
 * by weight, pick order, placement and preemption, FIFO, and every pick of
 * a random run against the rule computed from scratch. */
#include <check.h>

#include "testlib.h"
#include <math.h>
#include <stdlib.h>

#include "sched/sched.h"

static sched_cfg cfg_hz(int hz)
{
	sched_cfg c;
	/* 100 ms, auto min, 1 s starvation, bonus +/-5: the 2.6.16 defaults. */
	sched_cfg_init(&c, hz, 100 * SIM_NS_PER_MS, -1, SIM_NS_PER_S, 10);
	return c;
}

static int slice(const sched_cfg *c, int nice)
{
	sched_task p;
	sched_task_init(c, &p, nice);
	return sched_task_timeslice(c, &p);
}

START_TEST(sched_timeslice_per_nice_and_hz)
{
	/* HZ 1000: DEF 100 jiffies; SCALE_PRIO: x (MAX_PRIO - static_prio) / 20,
	 * static_prio = 120 + nice, x = 100 (nice >= 0) or 400 (nice < 0). */
	sched_cfg c = cfg_hz(1000);
	ck_assert_int_eq(c.def_timeslice, 100);
	ck_assert_int_eq(c.min_timeslice, 5);
	ck_assert_int_eq(slice(&c, 0), 100);  /* 100 ms */
	ck_assert_int_eq(slice(&c, 19), 5);   /* 100 x 1 / 20 = 5 ms */
	ck_assert_int_eq(slice(&c, 10), 50);  /* 100 x 10 / 20 */
	ck_assert_int_eq(slice(&c, -20), 800); /* 400 x 40 / 20 */
	ck_assert_int_eq(slice(&c, -1), 420);  /* 400 x 21 / 20 */
	/* HZ 250: DEF 25; nice 19: 25 / 20 = 1 jiffy (4 ms); MIN = max(1, 1). */
	c = cfg_hz(250);
	ck_assert_int_eq(c.def_timeslice, 25);
	ck_assert_int_eq(c.min_timeslice, 1);
	ck_assert_int_eq(slice(&c, 0), 25);
	ck_assert_int_eq(slice(&c, 19), 1);
	ck_assert_int_eq(slice(&c, -20), 200); /* 800 ms */
	/* HZ 100: DEF 10; nice 19: 10 / 20 = 0 -> MIN_TIMESLICE max(0, 1) = 1 jiffy (10 ms). */
	c = cfg_hz(100);
	ck_assert_int_eq(c.min_timeslice, 1);
	ck_assert_int_eq(slice(&c, 0), 10);
	ck_assert_int_eq(slice(&c, 19), 1);
	ck_assert_int_eq(slice(&c, -20), 80);
}
END_TEST

START_TEST(sched_dynamic_priority_and_interactive)
{
	sched_cfg c = cfg_hz(1000);
	ck_assert_int_eq(c.max_bonus, 10);
	ck_assert_int_eq(c.max_sleep_avg_ns, SIM_NS_PER_S);
	sched_task p;
	sched_task_init(&c, &p, 0);
	p.sleep_avg_ns = 0; /* a hog: bonus 0 - 5 -> prio 125 */
	p.prio = sched_effective_prio(&c, &p);
	ck_assert_int_eq(p.prio, 125);
	ck_assert(!sched_task_interactive(&c, &p));
	p.sleep_avg_ns = SIM_NS_PER_S; /* a sleeper: +5 -> 115 */
	p.prio = sched_effective_prio(&c, &p);
	ck_assert_int_eq(p.prio, 115);
	ck_assert(sched_task_interactive(&c, &p));
	/* Nice 0: interactive iff prio <= 120 - DELTA, DELTA = 0 + 2. */
	p.sleep_avg_ns = 700 * SIM_NS_PER_MS; /* bonus 7 - 5 = 2 -> 118 */
	p.prio = sched_effective_prio(&c, &p);
	ck_assert_int_eq(p.prio, 118);
	ck_assert(sched_task_interactive(&c, &p));
	p.sleep_avg_ns = 600 * SIM_NS_PER_MS; /* 119 */
	p.prio = sched_effective_prio(&c, &p);
	ck_assert_int_eq(p.prio, 119);
	ck_assert(!sched_task_interactive(&c, &p));
	/* Nice 19 is never interactive: best prio 134 > 139 - (19 x 10 / 40 + 2) = 133. */
	sched_task k;
	sched_task_init(&c, &k, 19);
	k.sleep_avg_ns = SIM_NS_PER_S;
	k.prio = sched_effective_prio(&c, &k);
	ck_assert_int_eq(k.prio, 134);
	ck_assert(!sched_task_interactive(&c, &k));
}
END_TEST

START_TEST(sched_expiry_and_array_switch)
{
	/* Three nice-0 hogs: each runs 100 ticks, then expires; after all three
	 * the arrays switch and the first runs again. */
	sched_cfg c = cfg_hz(1000);
	sched_rq rq;
	sched_arrays rq_store;
	sched_rq_init(&rq, &rq_store);
	sched_task t[3];
	for (int i = 0; i < 3; i++) {
		sched_task_init(&c, &t[i], 0);
		ck_assert_int_eq(sched_add_runnable(&c, &rq, &t[i], 0), 0);
	}
	ck_assert_ptr_eq(sched_schedule(&c, &rq, 0), &t[0]);
	sched_array *first_active = rq.active;
	int64_t j = 0;
	for (int round = 0; round < 3; round++) {
		for (int k = 1; k < 100; k++)
			ck_assert(!sched_tick(&c, &rq, ++j, 0));
		ck_assert(sched_tick(&c, &rq, ++j, 0)); /* 100th tick: expired */
		ck_assert_ptr_eq(t[round].array, rq.expired);
		ck_assert_int_eq(t[round].time_slice, 100); /* refilled */
		sched_task *next = sched_schedule(&c, &rq, j * SIM_NS_PER_MS);
		if (round < 2) {
			ck_assert_ptr_eq(next, &t[round + 1]);
			ck_assert_ptr_eq(rq.active, first_active);
		} else {
			ck_assert_ptr_eq(next, &t[0]); /* arrays switched */
			ck_assert_ptr_ne(rq.active, first_active);
			ck_assert_int_eq(rq.expired_timestamp, 0);
		}
	}
	ck_assert_uint_eq(rq.nr_switches, 4); /* idle -> t0, then three */
}
END_TEST

START_TEST(sched_starvation_limit)
{
	/* An interactive task normally stays active when its slice ends; once
	 * the expired array has waited STARVATION_LIMIT x nr_running + 1
	 * jiffies it goes to expired too. */
	sched_cfg c = cfg_hz(1000);
	sched_rq rq;
	sched_arrays rq_store;
	sched_rq_init(&rq, &rq_store);
	sched_task hog, inter;
	sched_task_init(&c, &hog, 0);
	sched_task_init(&c, &inter, 0);
	inter.sleep_avg_ns = SIM_NS_PER_S;
	ck_assert_int_eq(sched_add_runnable(&c, &rq, &inter, 0), 0); /* prio 115: runs first */
	ck_assert_int_eq(sched_add_runnable(&c, &rq, &hog, 0), 0);
	rq.curr = &inter;
	/* Pretend the hog expired at jiffy 10. */
	rq.expired_timestamp = 10;
	inter.time_slice = 1;
	ck_assert(!sched_expired_starving(&c, &rq, 10 + 1000 * 2));
	ck_assert(sched_tick(&c, &rq, 100, 0)); /* not starving: back to active */
	ck_assert_ptr_eq(inter.array, rq.active);
	inter.time_slice = 1;
	ck_assert(sched_expired_starving(&c, &rq, 10 + 1000 * 2 + 1));
	ck_assert(sched_tick(&c, &rq, 10 + 1000 * 2 + 1, 0)); /* starving: expired */
	ck_assert_ptr_eq(inter.array, rq.expired);
}
END_TEST

START_TEST(sched_nice19_once_per_epoch)
{
	/* 256 nice-0 hogs and a nice-19 task, all runnable: the nice-19 task
	 * (prio 139 at zero sleep average) runs only when every hog has used
	 * its 100 ms, i.e. once per array-switch epoch of 256 x 100 = 25600
	 * ticks, and then for its own 5-tick slice. */
	sched_cfg c = cfg_hz(1000);
	sched_rq rq;
	sched_arrays rq_store;
	sched_rq_init(&rq, &rq_store);
	sched_task *hogs = calloc(256, sizeof(*hogs));
	sched_task k;
	for (int i = 0; i < 256; i++) {
		sched_task_init(&c, &hogs[i], 0);
		ck_assert_int_eq(sched_add_runnable(&c, &rq, &hogs[i], 0), 0);
	}
	sched_task_init(&c, &k, 19);
	ck_assert_int_eq(sched_add_runnable(&c, &rq, &k, 0), 0);
	sched_schedule(&c, &rq, 0);
	int64_t runs[4], nruns = 0, ran_for = 0;
	for (int64_t j = 1; j <= 4 * 25605 && nruns < 4; j++) {
		bool resched = sched_tick(&c, &rq, j, 0);
		if (rq.curr == &k)
			ran_for++;
		if (resched) {
			sched_task *next = sched_schedule(&c, &rq, j * SIM_NS_PER_MS);
			if (next == &k)
				runs[nruns++] = j;
		}
	}
	ck_assert_int_ge(nruns, 3);
	ck_assert_int_eq(runs[0], 25600);
	ck_assert_int_eq(runs[1] - runs[0], 25600 + 5);
	ck_assert_int_eq(runs[2] - runs[1], 25600 + 5);
	free(hogs);
}
END_TEST

START_TEST(sched_wake_and_sleep)
{
	sched_cfg c = cfg_hz(1000);
	sched_rq rq;
	sched_arrays rq_store;
	sched_rq_init(&rq, &rq_store);
	sched_task hog, k;
	sched_task_init(&c, &hog, 0);
	sched_task_init(&c, &k, 19);
	ck_assert_int_eq(sched_add_runnable(&c, &rq, &k, 0), 0);
	ck_assert_int_eq(sched_add_runnable(&c, &rq, &hog, 0), 0);
	ck_assert_ptr_eq(sched_schedule(&c, &rq, 0), &hog); /* 125 beats 139 */
	/* No preemption of the hog by a woken nice-19 task. */
	rq.curr = &k;
	sched_sleep(&c, &rq, &k, 0);
	rq.curr = &hog;
	ck_assert_int_eq(rq.nr_running, 1);
	ck_assert(!sched_wake(&c, &rq, &k, 2 * SIM_NS_PER_S));
	ck_assert_int_eq(k.sleep_avg_ns, SIM_NS_PER_S); /* capped at MAX_SLEEP_AVG */
	ck_assert_int_eq(k.prio, 134);
	ck_assert_int_eq(rq.nr_running, 2);
	/* An idle CPU is preempted by any wakeup. */
	sched_rq idle;
	sched_arrays idle_store;
	sched_rq_init(&idle, &idle_store);
	sched_task w;
	sched_task_init(&c, &w, 19);
	w.sleep_since = 0;
	ck_assert(sched_wake(&c, &idle, &w, 5));
}
END_TEST

/* ---- EEVDF ---------------------------------------------------------------- */

static sched_cfg eevdf_cfg(int hz)
{
	sched_cfg c = cfg_hz(hz);
	c.class = &sched_fair_class;
	c.base_slice = 3 * SIM_NS_PER_MS;
	return c;
}

/* Run @n always-runnable tasks of @nice on one runqueue for @dur ns of
 * ticks at HZ @hz (schedule() whenever a tick asks), their CPU time into
 * @ran. */
static void eevdf_run(const int *nice, int n, int hz, sim_time dur, sim_time *ran)
{
	sched_cfg c = eevdf_cfg(hz);
	sched_rq rq;
	sched_rq_init(&rq, NULL);
	sched_task *t = calloc((size_t)n, sizeof(*t));
	for (int i = 0; i < n; i++) {
		sched_task_init(&c, &t[i], nice[i]);
		ck_assert_int_eq(sched_add_runnable(&c, &rq, &t[i], 0), 0);
		ran[i] = 0;
	}
	sim_time tick = SIM_NS_PER_S / hz, since = 0;
	sched_task *cur = sched_schedule(&c, &rq, 0);
	for (sim_time now = tick; now <= dur; now += tick) {
		if (sched_tick(&c, &rq, now / tick, now)) {
			ran[cur - t] += now - since;
			since = now;
			cur = sched_schedule(&c, &rq, now);
		}
	}
	ran[cur - t] += dur - since;
	free(t);
	sched_rq_destroy(&rq);
}

START_TEST(eevdf_shares_by_weight)
{
	/* CPU time in proportion to sched_prio_to_weight over 10 simulated s,
	 * within 1% of each task's share (a few ms of a slice's quantisation
	 * allowed for the smallest). */
	static const int sets[][4] = { { 0, 0, 0, 0 }, { 0, 5, 5, 0 }, { 0, 19, 0, 0 }, { -5, 0, 5, 19 } };
	for (int s = 0; s < 4; s++) {
		sim_time ran[4];
		eevdf_run(sets[s], 4, 1000, 10 * SIM_NS_PER_S, ran);
		double wsum = 0;
		for (int i = 0; i < 4; i++)
			wsum += (double)sched_nice_weight(sets[s][i]);
		for (int i = 0; i < 4; i++) {
			double want = 10e9 * (double)sched_nice_weight(sets[s][i]) / wsum;
			double tol = want * 0.01 > 4e6 ? want * 0.01 : 4e6;
			ck_assert_msg(fabs((double)ran[i] - want) <= tol, "set %d task %d (nice %d): %.1f ms, want %.1f",
				      s, i, sets[s][i], (double)ran[i] / 1e6, want / 1e6);
		}
	}
}
END_TEST

START_TEST(eevdf_pick_is_earliest_eligible_deadline)
{
	/* Three nice-0 tasks added at V = 0: vruntime 0, deadlines 1.5 ms (half a
	 * slice) in the order they came. Picks go by deadline; a task runs its
	 * whole slice (RUN_TO_PARITY), then the next earliest deadline runs. */
	sched_cfg c = eevdf_cfg(1000);
	sched_rq rq;
	sched_rq_init(&rq, NULL);
	sched_task t[3];
	for (int i = 0; i < 3; i++) {
		sched_task_init(&c, &t[i], 0);
		ck_assert_int_eq(sched_add_runnable(&c, &rq, &t[i], 0), 0);
		ck_assert_int_eq(t[i].vruntime, 0);
		ck_assert_int_eq(t[i].deadline, 1500000);
	}
	ck_assert_ptr_eq(sched_schedule(&c, &rq, 0), &t[0]);
	/* 1 ms: deadline not reached, no resched. */
	ck_assert(!sched_tick(&c, &rq, 1, 1000000));
	/* 2 ms: vruntime 2 ms >= 1.5 ms: a new deadline (2 + 3 ms), resched. */
	ck_assert(sched_tick(&c, &rq, 2, 2000000));
	ck_assert_int_eq(t[0].deadline, 5000000);
	ck_assert_ptr_eq(sched_schedule(&c, &rq, 2000000), &t[1]);
	/* V = (2 + 0 + 0) / 3 ms: t[2] (vruntime 0) is eligible, t[0] (2 ms) is not. */
	ck_assert(sched_eevdf_eligible(&rq, &t[2]));
	ck_assert(!sched_eevdf_eligible(&rq, &t[0]));
	ck_assert(sched_tick(&c, &rq, 4, 4000000));
	ck_assert_ptr_eq(sched_schedule(&c, &rq, 4000000), &t[2]);
	sched_rq_destroy(&rq);
}
END_TEST

START_TEST(eevdf_wakeup_placement_and_preemption)
{
	/* A task that slept with lag keeps it: placed at V - lag x (W + w) / W,
	 * so its lag after placement is what it was; a woken task that is the
	 * pick preempts (earlier deadline, eligible), one with negative lag does
	 * not. */
	sched_cfg c = eevdf_cfg(1000);
	sched_rq rq;
	sched_rq_init(&rq, NULL);
	sched_task a, b, w;
	sched_task_init(&c, &a, 0);
	sched_task_init(&c, &b, 0);
	sched_task_init(&c, &w, 0);
	ck_assert_int_eq(sched_add_runnable(&c, &rq, &a, 0), 0);
	ck_assert_int_eq(sched_add_runnable(&c, &rq, &b, 0), 0);
	ck_assert_int_eq(sched_add_runnable(&c, &rq, &w, 0), 0);
	ck_assert_ptr_eq(sched_schedule(&c, &rq, 0), &a);
	/* a runs 2 ms and goes to sleep: V = 2/3 ms, its lag -4/3 ms. */
	sched_sleep(&c, &rq, &a, 2000000);
	ck_assert_int_eq(a.vlag, -1333334); /* V rounds towards -infinity */
	ck_assert_ptr_eq(sched_schedule(&c, &rq, 2000000), &b);
	/* b runs 1 ms; a wakes: not eligible (negative lag), no preemption. */
	ck_assert(!sched_wake(&c, &rq, &a, 3000000));
	int64_t V = sched_eevdf_avg_vruntime(&rq);
	ck_assert_int_le(llabs(V - a.vruntime - a.vlag), 2); /* its lag, kept */
	ck_assert(!sched_eevdf_eligible(&rq, &a));
	/* A task owed 3 ms (positive lag) wakes: placed 4 ms below V (3 ms x
	 * 4096 / 3072), it pulls V below b's vruntime; b, though inside its
	 * protected slice, is no longer eligible, and x is the pick: it
	 * preempts. */
	sched_task x;
	sched_task_init(&c, &x, 0);
	x.vlag = 3000000; /* it was owed 3 ms */
	x.sleep_since = 0;
	ck_assert_int_eq(sched_attach(&c, &rq), 0);
	ck_assert(sched_wake(&c, &rq, &x, 3000000));
	ck_assert(sched_eevdf_eligible(&rq, &x));
	ck_assert_int_lt(x.vruntime, sched_eevdf_avg_vruntime(&rq));
	sched_rq_destroy(&rq);
}
END_TEST

START_TEST(eevdf_delay_dequeue_delay_zero)
{
	/* sched.delay_dequeue (DELAY_DEQUEUE + DELAY_ZERO, fair.c 6.12:
	 * 5468-5501, 5626-5631, 6919-6947). a and b at V = 0; a runs 2 ms and
	 * sleeps with lag -1 ms: it stays queued (delayed), so V stays 1 ms.
	 * b runs to 5 ms (vruntime 3 ms); the tick renews b's deadline and
	 * asks to reschedule because a still counts (without the feature b is
	 * alone: no reschedule). The pick finds a eligible (V = 2.5 ms): it is
	 * dequeued with its lag +0.5 ms clipped to 0, and b runs on. Woken at
	 * 6 ms, a is placed at V with lag 0: eligible. Without the feature it
	 * comes back with the -1 ms it slept with: not eligible. */
	for (int dd = 0; dd < 2; dd++) {
		sched_cfg c = eevdf_cfg(1000);
		c.delay_dequeue = dd;
		sched_rq rq;
		sched_rq_init(&rq, NULL);
		sched_task a, b;
		sched_task_init(&c, &a, 0);
		sched_task_init(&c, &b, 0);
		ck_assert_int_eq(sched_add_runnable(&c, &rq, &a, 0), 0);
		ck_assert_int_eq(sched_add_runnable(&c, &rq, &b, 0), 0);
		ck_assert_ptr_eq(sched_schedule(&c, &rq, 0), &a);
		sched_sleep(&c, &rq, &a, 2000000);
		ck_assert_int_eq(a.delayed, dd);
		ck_assert_int_eq(rq.ev_delayed, dd);
		ck_assert_ptr_eq(sched_schedule(&c, &rq, 2000000), &b);
		ck_assert_int_eq(sched_eevdf_avg_vruntime(&rq), dd ? 1000000 : 0);
		ck_assert_int_eq(sched_tick(&c, &rq, 5, 5000000), dd);
		ck_assert_int_eq(b.deadline, 6000000);
		if (dd) {
			ck_assert_ptr_eq(sched_schedule(&c, &rq, 5000000), &b);
			ck_assert(!a.delayed);
			ck_assert_int_eq(rq.ev_delayed, 0);
			ck_assert_int_eq(a.vlag, 0); /* +0.5 ms, clipped */
		} else {
			ck_assert_int_eq(a.vlag, -1000000);
		}
		ck_assert(!sched_wake(&c, &rq, &a, 6000000));
		ck_assert_int_eq(sched_eevdf_eligible(&rq, &a), dd);
		if (dd)
			ck_assert_int_eq(a.vruntime, 4000000); /* V: b alone at 4 ms */
		sched_rq_destroy(&rq);
	}
}
END_TEST

START_TEST(eevdf_autogroup_hierarchy)
{
	/* sched.autogroup (fair.c 6.12:3925-3946 calc_group_shares(),
	 * pick_task_fair()): a root task k and two group tasks a and b, always
	 * runnable on one CPU that holds all the group's load. The group
	 * entity weighs the group's 1024 shares, so over 10 s k gets half the
	 * CPU and a and b a quarter each (all at the root: a third each). A
	 * second CPU with one group task splits the shares by load, 2048 :
	 * 1024: its entity weighs 341 at once, the first CPU's 682 at its next
	 * tick (update_cfs_group()). */
	sched_tg tg = { 1024, 0 };
	sched_cfg c = eevdf_cfg(1000);
	c.tg = &tg;
	sched_rq rq;
	sched_rq_init(&rq, NULL);
	ck_assert_int_eq(sched_eevdf_group_init(&c, &rq), 0);
	sched_task t[3];
	sim_time ran[3] = { 0, 0, 0 };
	for (int i = 0; i < 3; i++) {
		sched_task_init(&c, &t[i], 0);
		if (i)
			ck_assert_int_eq(sched_eevdf_join_group(&rq, &t[i]), 0);
		ck_assert_int_eq(sched_add_runnable(&c, &rq, &t[i], 0), 0);
	}
	ck_assert_int_eq(rq.ev_gse->weight, 1024);
	ck_assert_int_eq(tg.load, 2048);
	sim_time tick = SIM_NS_PER_MS, since = 0, dur = 10 * SIM_NS_PER_S;
	sched_task *cur = sched_schedule(&c, &rq, 0);
	for (sim_time now = tick; now <= dur; now += tick) {
		if (sched_tick(&c, &rq, now / tick, now)) {
			ran[cur - t] += now - since;
			since = now;
			cur = sched_schedule(&c, &rq, now);
		}
	}
	ran[cur - t] += dur - since;
	static const double want[3] = { 5e9, 2.5e9, 2.5e9 };
	for (int i = 0; i < 3; i++)
		ck_assert_msg(fabs((double)ran[i] - want[i]) <= 0.01 * want[i], "task %d: %.1f ms, want %.1f", i,
			      (double)ran[i] / 1e6, want[i] / 1e6);
	sched_rq rq2;
	sched_rq_init(&rq2, NULL);
	ck_assert_int_eq(sched_eevdf_group_init(&c, &rq2), 0);
	sched_task u;
	sched_task_init(&c, &u, 0);
	ck_assert_int_eq(sched_eevdf_join_group(&rq2, &u), 0);
	ck_assert_int_eq(sched_add_runnable(&c, &rq2, &u, dur), 0);
	ck_assert_int_eq(tg.load, 3072);
	ck_assert_int_eq(rq2.ev_gse->weight, 341);
	ck_assert_int_eq(rq.ev_gse->weight, 1024);
	(void)sched_tick(&c, &rq, dur / tick + 1, dur + tick);
	ck_assert_int_eq(rq.ev_gse->weight, 682);
	sched_rq_destroy(&rq);
	sched_rq_destroy(&rq2);
}
END_TEST

START_TEST(eevdf_fifo_runs_first)
{
	/* A SCHED_FIFO task (an RCU kthread when boosted) preempts a fair task at
	 * once and runs until it sleeps, whatever the fair tasks' deadlines. */
	sched_cfg c = eevdf_cfg(1000);
	sched_rq rq;
	sched_rq_init(&rq, NULL);
	sched_task f, t[2];
	for (int i = 0; i < 2; i++) {
		sched_task_init(&c, &t[i], -20);
		ck_assert_int_eq(sched_add_runnable(&c, &rq, &t[i], 0), 0);
	}
	sched_task_init(&c, &f, 19);
	f.fifo = true;
	ck_assert_int_eq(sched_attach(&c, &rq), 0);
	ck_assert_ptr_eq(sched_schedule(&c, &rq, 0), &t[0]);
	ck_assert(sched_wake(&c, &rq, &f, 1000000));
	ck_assert_ptr_eq(sched_schedule(&c, &rq, 1000000), &f);
	for (int j = 2; j < 50; j++)
		ck_assert(!sched_tick(&c, &rq, j, (sim_time)j * 1000000));
	ck_assert_ptr_eq(sched_schedule(&c, &rq, 50000000), &f);
	sched_sleep(&c, &rq, &f, 50000000);
	sched_task *n = sched_schedule(&c, &rq, 50000000);
	ck_assert(n == &t[0] || n == &t[1]);
	sched_rq_destroy(&rq);
}
END_TEST

/* The pick from scratch, over every task: V = floor(sum v w / sum w) of the
 * runnable ones; curr if it is eligible and inside its protected slice;
 * else the eligible one with the earliest (deadline, enqueue order), curr
 * included; else the earliest deadline queued. */
static sched_task *brute_pick(sched_rq *rq, sched_task *t, int n)
{
	__int128 sum = 0;
	int64_t load = 0;
	for (int i = 0; i < n; i++)
		if (t[i].on_rq) {
			sum += (__int128)t[i].vruntime * t[i].weight;
			load += t[i].weight;
		}
	sched_task *curr = rq->curr && rq->curr->on_rq ? rq->curr : NULL;
#define ELIG(p) (sum >= (__int128)(p)->vruntime * load)
#define BEFORE(a, b)                                                                               \
	((a)->deadline < (b)->deadline || ((a)->deadline == (b)->deadline && (a)->ev_seq < (b)->ev_seq))
	if (curr && ELIG(curr) && curr->vlag == curr->deadline)
		return curr;
	sched_task *best = NULL, *first = NULL;
	for (int i = 0; i < n; i++) {
		sched_task *p = &t[i];
		if (!p->on_rq)
			continue;
		if (p != curr && (!first || BEFORE(p, first)))
			first = p;
		if (ELIG(p) && (!best || BEFORE(p, best)))
			best = p;
	}
	return best ? best : first ? first : curr;
#undef ELIG
#undef BEFORE
}

/* 40 tasks on one runqueue, nice from @nices (8 of them, in turn), 20000
 * random steps: ticks of 0.1-4 ms (whole ms if @whole_ms), sleeps of curr,
 * wakeups of sleepers (with their lag), schedule() when asked or at
 * random. Before each schedule() the rule is computed from scratch; the
 * queue keeps its sums and its order. Returns how many ties of deadline
 * the queue held, summed over the checks. */
static int eevdf_random_steps(const int nices[8], bool whole_ms)
{
	enum { N = 40 };
	sched_cfg c = eevdf_cfg(250);
	sched_rq rq;
	sched_rq_init(&rq, NULL);
	sched_task t[N];
	srand(7);
	for (int i = 0; i < N; i++) {
		sched_task_init(&c, &t[i], nices[i % 8]);
		ck_assert_int_eq(sched_add_runnable(&c, &rq, &t[i], 0), 0);
	}
	sim_time now = 0;
	ck_assert_ptr_nonnull(sched_schedule(&c, &rq, now));
	int checked = 0, ties = 0;
	for (int step = 0; step < 20000; step++) {
		now += whole_ms ? 1000000 * (1 + rand() % 4) : 100000 + rand() % 3900000;
		bool resched = rq.curr && sched_tick(&c, &rq, now / 4000000, now);
		int r = rand() % 8;
		if (r == 0 && rq.curr && rq.nr_running > 1) {
			sched_sleep(&c, &rq, rq.curr, now);
			resched = true;
		} else if (r == 1) {
			sched_task *w = &t[rand() % N];
			if (!w->on_rq && sched_wake(&c, &rq, w, now))
				resched = true;
		}
		if (!resched && rand() % 4)
			continue;
		sched_task *want = brute_pick(&rq, t, N);
		sched_task *got = sched_schedule(&c, &rq, now);
		ck_assert_ptr_eq(got, want);
		checked++;
		/* The queue: every runnable task but curr, by (deadline, order),
		 * and the sums. */
		__int128 sum = 0;
		int64_t load = 0;
		ck_assert_int_eq(rq.ev_n, rq.nr_running - (rq.curr ? 1 : 0));
		for (int32_t i = rq.ev_head; i < rq.ev_head + rq.ev_n; i++) {
			const sched_ev_ent *e = &rq.ev_q[i];
			ck_assert(e->p->on_rq && e->p != rq.curr);
			ck_assert_int_eq(e->deadline, e->p->deadline);
			ck_assert_int_eq(e->vruntime, e->p->vruntime);
			if (i > rq.ev_head) {
				ck_assert(e[-1].deadline < e->deadline ||
					  (e[-1].deadline == e->deadline && e[-1].p->ev_seq < e->p->ev_seq));
				ties += e[-1].deadline == e->deadline;
			}
			sum += (__int128)e->vruntime * e->p->weight;
			load += e->p->weight;
		}
		ck_assert(sum == rq.ev_avg);
		ck_assert_int_eq(load, rq.ev_load);
	}
	ck_assert_int_gt(checked, 10000);
	sched_rq_destroy(&rq);
	return ties;
}

START_TEST(eevdf_random_picks_match_the_rule)
{
	static const int nices[8] = { 0, 0, 0, 5, -5, 19, -20, 10 };
	eevdf_random_steps(nices, false);
}
END_TEST

START_TEST(eevdf_random_ties_keep_enqueue_order)
{
	/* All nice 0 and whole-ms ticks: many tasks share a deadline, so
	 * inserts land among equal deadlines from both ends of the queue
	 * (queue_insert reads from the nearer one), each behind the ones
	 * enqueued before it. The tie count was 5,457 when written. */
	static const int nices[8] = { 0 };
	ck_assert_int_gt(eevdf_random_steps(nices, true), 2000);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("sched");
	tcase_add_test(tc, sched_timeslice_per_nice_and_hz);
	tcase_add_test(tc, sched_dynamic_priority_and_interactive);
	tcase_add_test(tc, sched_expiry_and_array_switch);
	tcase_add_test(tc, sched_starvation_limit);
	tcase_add_test(tc, sched_nice19_once_per_epoch);
	tcase_add_test(tc, sched_wake_and_sleep);
	tcase_add_test(tc, eevdf_shares_by_weight);
	tcase_add_test(tc, eevdf_pick_is_earliest_eligible_deadline);
	tcase_add_test(tc, eevdf_wakeup_placement_and_preemption);
	tcase_add_test(tc, eevdf_delay_dequeue_delay_zero);
	tcase_add_test(tc, eevdf_autogroup_hierarchy);
	tcase_add_test(tc, eevdf_fifo_runs_first);
	tcase_add_test(tc, eevdf_random_picks_match_the_rule);
	tcase_add_test(tc, eevdf_random_ties_keep_enqueue_order);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
