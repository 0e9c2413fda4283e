/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_background.c - step tests of machine.background
 * (models/kernel/background.c, its hook in tick.c): off it creates
 * nothing and draws nothing; on, an idle tickless CPU takes its tick at
 * a jiffy with probability background.timer_ticks / HZ (as a tick: RCU's
 * rcu_sched_clock_irq() from idle), a background task's wake-up is two
 * context switches and an exit from idle, device interrupts come at their
 * rate, and the same seed gives the same run while another seed differs. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kbox.h"
#include "testlib.h"

/* Four idle CPUs (no jobs), HZ 250, NO_HZ_IDLE, EEVDF, Tree RCU, with
 * @sets (NULL-terminated) on top, seed @seed. */
static void box_seed(box *b, uint64_t seed, const char *const *sets)
{
	static const char *const base[] = {
		"workload.kind=callrcu", "workload.callrcu_rate=0/s", "workload.jobs=0",
		"machine.cores=4", "machine.threads_per_core=1", "machine.hz=250",
		"machine.arch=x86_64", "machine.clock=6.9GHz", "sched.kind=eevdf",
		"sched.ksoftirqd_nice=0", "rcu.flavor=tree", "irq.nohz_idle=yes",
		"scenario.duration=1h", NULL
	};
	char err[1024];
	memset(b, 0, sizeof(*b));
	ck_assert_int_eq(sim_params_create(&b->p, rcusim_params, P_COUNT, err, sizeof(err)), 0);
	for (const char *const *s = base; *s; s++)
		ck_assert_msg(sim_params_set(b->p, *s, err, sizeof(err)) == 0, "%s: %s", *s, err);
	for (const char *const *s = sets; *s; s++)
		ck_assert_msg(sim_params_set(b->p, *s, err, sizeof(err)) == 0, "%s: %s", *s, err);
	ck_assert_msg(rcusim_validate(b->p, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(sim_metrics_create(&b->m), 0);
	ck_assert_int_eq(sim_engine_create(&b->eng), 0);
	model_env env = { b->eng, b->p, b->m, seed, SIM_RNG_MT19937 };
	void *state = NULL;
	ck_assert_msg(kernel_model.create(&state, &env, err, sizeof(err)) == 0, "%s", err);
	b->k = state;
}

static uint64_t switches(const box *b)
{
	uint64_t n = 0;
	for (int i = 0; i < b->k->mach.ncpus; i++)
		n += b->k->cpu[i].rq.nr_switches;
	return n;
}

START_TEST(background_off_creates_and_draws_nothing)
{
	/* Off: no stream, no task, no timer; every idle CPU's tick stays
	 * stopped (nothing queued): 250 stopped ticks a second on each. */
	box b;
	const char *sets[] = { NULL };
	box_seed(&b, 1, sets);
	kmodel *k = b.k;
	ck_assert(!k->bg.on);
	ck_assert_ptr_null(k->bg.kt);
	for (int i = 0; i < 4; i++) {
		ck_assert_ptr_null(k->cpu[i].rng_bg);
		ck_assert(!sim_timer_armed(&k->cpu[i].bg_irq));
	}
	run_to(&b, S);
	ck_assert_uint_eq(k->cnt.ticks_taken, 0);
	ck_assert_uint_eq(k->cnt.ticks_stopped, 4 * 250);
	ck_assert_uint_eq(switches(&b), 0);
	ck_assert_uint_eq(k->bg.timer_ticks + k->bg.wakeups + k->bg.irqs, 0);
	box_destroy(&b);
}
END_TEST

START_TEST(background_idle_tick_taken_at_rate)
{
	/* timer_ticks = HZ: p = 1, every stopped jiffy's tick is taken (as
	 * without NO_HZ_IDLE), each counted. */
	box b;
	const char *all[] = { "machine.background=yes", "background.timer_ticks=250/s",
			      "background.wakeups=0/s", "background.irqs=0/s", NULL };
	box_seed(&b, 1, all);
	kmodel *k = b.k;
	ck_assert_ptr_null(k->bg.kt); /* no task without wake-ups */
	run_to(&b, S);
	ck_assert_uint_eq(k->cnt.ticks_stopped, 0);
	ck_assert_uint_eq(k->cnt.ticks_taken, 4 * 250);
	ck_assert_uint_eq(k->bg.timer_ticks, 4 * 250);
	box_destroy(&b);
	/* 25/s at HZ 250: p = 0.1 a jiffy, 100 s on 4 CPUs: 10,000 of 100,000
	 * (binomial sd 95: within 5 sd), taken + stopped = every jiffy. */
	const char *some[] = { "machine.background=yes", "background.timer_ticks=25/s",
			       "background.wakeups=0/s", "background.irqs=0/s", NULL };
	box_seed(&b, 1, some);
	k = b.k;
	ck_assert_double_eq_tol(k->bg.p_tick, 0.1, 1e-12);
	run_to(&b, 100 * S);
	ck_assert_uint_eq(k->cnt.ticks_taken + k->cnt.ticks_stopped, 4 * 250 * 100);
	ck_assert_uint_eq(k->cnt.ticks_taken, k->bg.timer_ticks);
	ck_assert_msg(fabs((double)k->bg.timer_ticks - 10000.0) < 5 * 95, "%llu",
		      (unsigned long long)k->bg.timer_ticks);
	/* An idle tick is a tick from idle: rcu_sched_clock_irq() with no
	 * task (no switch, no exit from idle). */
	ck_assert_uint_eq(switches(&b), 0);
	box_destroy(&b);
}
END_TEST

START_TEST(background_wakeup_is_two_switches_and_an_idle_exit)
{
	/* 20 wake-ups a second on each of 4 idle CPUs for 10 s: 800 expected
	 * (Poisson sd 28: within 5 sd). Each from idle: idle -> task -> idle,
	 * two context switches and one exit from idle's extended quiescent
	 * state; its runs average background.wakeup_cost of wall time (800
	 * exponential draws: sd 3.5%, within 5 sd). */
	box b;
	const char *sets[] = { "machine.background=yes", "background.timer_ticks=0/s",
			       "background.wakeups=20/s", "background.wakeup_cost=20us",
			       "background.irqs=0/s", NULL };
	box_seed(&b, 1, sets);
	kmodel *k = b.k;
	ck_assert_ptr_nonnull(k->bg.kt);
	run_to(&b, 10 * S);
	uint64_t w = k->bg.wakeups, r = k->bg.runs;
	ck_assert_msg(fabs((double)w - 800.0) < 5 * 28.3, "%llu", (unsigned long long)w);
	ck_assert(r <= w && w - r <= 4); /* woken just before the end, not yet run */
	ck_assert_uint_eq(k->cnt.idle_exits, r);
	uint64_t sw = switches(&b);
	ck_assert_msg(sw >= 2 * r - 4 && sw <= 2 * r, "%llu switches, %llu runs", (unsigned long long)sw,
		      (unsigned long long)r);
	sim_time cpu = 0;
	for (int i = 0; i < 4; i++)
		cpu += k->bg.kt[i].cpu_ns;
	double mean = (double)cpu / (double)r;
	ck_assert_msg(mean > 20000 * 0.82 && mean < 20000 * 1.18, "%.0f ns", mean);
	/* Nothing queued: the only ticks are those of a jiffy boundary that
	 * finds a run in progress (800 x 20 us / 4 ms: 4 expected). */
	ck_assert_uint_le(k->cnt.ticks_taken, 20);
	box_destroy(&b);
}
END_TEST

START_TEST(background_irqs_at_rate)
{
	/* 100 device interrupts a second per CPU, 10 s, 4 CPUs: 4000
	 * expected (sd 63, within 5 sd); a hardirq on an idle CPU switches
	 * nothing. */
	box b;
	const char *sets[] = { "machine.background=yes", "background.timer_ticks=0/s",
			       "background.wakeups=0/s", "background.irqs=100/s", NULL };
	box_seed(&b, 1, sets);
	kmodel *k = b.k;
	run_to(&b, 10 * S);
	ck_assert_msg(fabs((double)k->bg.irqs - 4000.0) < 5 * 63.3, "%llu", (unsigned long long)k->bg.irqs);
	ck_assert_uint_eq(switches(&b), 0);
	box_destroy(&b);
}
END_TEST

START_TEST(background_seeded_same_seed_same_run)
{
	/* The stream comes from the scenario seed: seed 1 twice gives the same
	 * counts, seed 2 others. */
	const char *sets[] = { "machine.background=yes", "background.timer_ticks=20/s",
			       "background.wakeups=10/s", "background.irqs=5/s", NULL };
	uint64_t got[3][4];
	uint64_t seeds[3] = { 1, 1, 2 };
	for (int s = 0; s < 3; s++) {
		box b;
		box_seed(&b, seeds[s], sets);
		run_to(&b, 5 * S);
		got[s][0] = b.k->bg.timer_ticks;
		got[s][1] = b.k->bg.wakeups;
		got[s][2] = b.k->bg.irqs;
		got[s][3] = switches(&b);
		box_destroy(&b);
	}
	ck_assert_mem_eq(got[0], got[1], sizeof(got[0]));
	ck_assert(memcmp(got[0], got[2], sizeof(got[0])) != 0);
}
END_TEST

START_TEST(background_idle_tick_reports_the_idle_cpus_qs)
{
	/* tree_idle_machine_nohz_gp_ends_at_fqs (check_tree_cpu.c) with every
	 * stopped tick taken (timer_ticks = HZ): a callback on CPU 1 at 0.5
	 * ms; the GP starts at CPU 1's tick at 4 ms (aligned phase: all on
	 * the jiffy); CPU 0, the GP kthread's, now takes its tick at 8 ms
	 * from idle, rcu_sched_clock_irq() reports its quiescent state and
	 * the GP needs no second FQS scan: it ends by 8 ms, where without
	 * background it ends at the second scan. */
	box b;
	const char *sets[] = { "machine.background=yes", "background.timer_ticks=250/s",
			       "background.wakeups=0/s", "background.irqs=0/s", "irq.tick_phase=aligned",
			       NULL };
	box_seed(&b, 1, sets);
	rcu_tree_state *rs = tree(&b);
	run_to(&b, MS / 2);
	queue_on(&b, 1, 1);
	run_to(&b, 12 * MS + 100000);
	ck_assert_uint_eq(rs->gp_completed, 1);
	ck_assert_uint_le(rs->n_force_qs, 1);
	box_destroy(&b);
	const char *off[] = { "irq.tick_phase=aligned", NULL };
	box_seed(&b, 1, off);
	rs = tree(&b);
	run_to(&b, MS / 2);
	queue_on(&b, 1, 1);
	run_to(&b, 12 * MS + 100000);
	ck_assert_uint_eq(rs->gp_completed, 1);
	ck_assert_uint_eq(rs->n_force_qs, 2);
	box_destroy(&b);
}
END_TEST

START_TEST(core_cost_sigma_spreads_the_first_pass_mean_kept)
{
	/* rcu.core_cost_sigma: the first pass of each RCU_SOFTIRQ run costs
	 * rcu.core_pass_cost times a mean-1 lognormal draw. With a cost that
	 * dominates (100 us a pass, nothing else), two CPUs, 200 callbacks a
	 * second a CPU for 20 s: the runs' mean stays within 10% of the fixed
	 * cost's, their p99 rises (sigma 1: p99 / mean = exp(2.326 - 0.5) =
	 * 6.2 against 1), and sigma 0 draws nothing (no stream). */
	double mean[2], p99[2];
	const char *sig[2] = { "rcu.core_cost_sigma=0", "rcu.core_cost_sigma=1" };
	for (int i = 0; i < 2; i++) {
		box b;
		const char *sets[] = { "machine.cores=2", "workload.jobs=2", "workload.callrcu_rate=200/s",
				       "rcu.core_pass_cost=100us", "rcu.callback_cost=1ns",
				       "softirq.pass_cost=1ns", "machine.clock=1.2GHz", sig[i], NULL };
		box_seed(&b, 1, sets);
		ck_assert(i ? b.k->cpu[0].rng_cost != NULL : b.k->cpu[0].rng_cost == NULL);
		run_to(&b, 20 * S);
		const sim_hist *h = b.k->h.softirq_run;
		ck_assert_uint_gt(h->count, 1000);
		mean[i] = sim_hist_mean(h);
		p99[i] = sim_hist_quantile(h, 0.99);
		box_destroy(&b);
	}
	ck_assert_msg(fabs(mean[1] / mean[0] - 1) < 0.1, "mean %.0f -> %.0f ns", mean[0], mean[1]);
	ck_assert_msg(p99[1] / mean[1] > 3, "p99 %.0f, mean %.0f ns", p99[1], mean[1]);
	ck_assert_msg(p99[0] / mean[0] < 1.5, "fixed: p99 %.0f, mean %.0f ns", p99[0], mean[0]);
}
END_TEST

START_TEST(background_callbacks_queued_by_the_runs_and_invoked_as_no_loads)
{
	/* 20 wake-ups a second on each of 4 idle CPUs, background.callbacks
	 * 10/s in bursts of 4 on average: a run queues a burst with
	 * probability 10 / 4 / 20 = 0.125, 100 bursts and 400 callbacks
	 * expected in 10 s (a geometric burst's variance 12: sd of the total
	 * sqrt(100 x 12 + 16 x 100) = 53, within 5 sd). They are the domain's
	 * callbacks (cb.enqueued), no load's (the load made none); they need
	 * grace periods, and each invoked one is counted as the box's: all
	 * invoked but those queued in the last grace period. */
	box b;
	const char *sets[] = { "machine.background=yes", "background.timer_ticks=0/s",
			       "background.wakeups=20/s", "background.irqs=0/s",
			       "background.callbacks=10/s", "background.callback_batch=4", NULL };
	box_seed(&b, 1, sets);
	kmodel *k = b.k;
	ck_assert_double_eq_tol(k->bg.p_burst, 0.125, 1e-12);
	run_to(&b, 10 * S);
	const cb_stats *cb = rcu_normal(k)->cb;
	uint64_t q = k->bg.cb_queued;
	ck_assert_msg(fabs((double)q - 400.0) < 5 * 53, "%llu callbacks", (unsigned long long)q);
	ck_assert_uint_eq(cb->enqueued, q);
	ck_assert_uint_eq(k->wl.callbacks, 0);
	ck_assert_uint_eq(k->bg.cb_invoked, cb->invoked);
	ck_assert_uint_le(cb->invoked, q);
	ck_assert_msg(q - cb->invoked < 40, "%llu of %llu still queued", (unsigned long long)(q - cb->invoked),
		      (unsigned long long)q);
	ck_assert_int_eq(kbg_cb_pending(&k->bg), (int64_t)(q - cb->invoked));
	box_destroy(&b);
}
END_TEST

START_TEST(background_callbacks_off_draws_nothing_more)
{
	/* background.callbacks = 0 (its default): the runs draw what they drew
	 * before the rule (the same switches and wake-ups as a run with the
	 * rule's batch set but no rate), and queue nothing. */
	const char *off[] = { "machine.background=yes", "background.wakeups=30/s", NULL };
	const char *zero[] = { "machine.background=yes", "background.wakeups=30/s",
			       "background.callback_batch=7", NULL };
	uint64_t got[2][3];
	for (int i = 0; i < 2; i++) {
		box b;
		box_seed(&b, 3, i ? zero : off);
		run_to(&b, 3 * S);
		got[i][0] = b.k->bg.wakeups;
		got[i][1] = switches(&b);
		got[i][2] = rcu_normal(b.k)->cb->enqueued;
		ck_assert_double_eq(b.k->bg.p_burst, 0);
		box_destroy(&b);
	}
	ck_assert_mem_eq(got[0], got[1], sizeof(got[0]));
	ck_assert_uint_eq(got[0][2], 0);
}
END_TEST

START_TEST(background_callbacks_past_the_wakeups_refused)
{
	/* 100 callbacks a second in bursts of 2 are 50 bursts, more than 20
	 * wake-ups a second could queue: refused, naming the key. */
	char err[1024];
	sim_params *p;
	ck_assert_int_eq(sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)), 0);
	const char *sets[] = { "workload.kind=callrcu", "machine.background=yes", "background.wakeups=20/s",
			       "background.callbacks=100/s", "background.callback_batch=2", NULL };
	for (const char *const *s = sets; *s; s++)
		ck_assert_msg(sim_params_set(p, *s, err, sizeof(err)) == 0, "%s: %s", *s, err);
	ck_assert_int_eq(rcusim_validate(p, err, sizeof(err)), SIM_EINPUT);
	ck_assert_msg(strstr(err, "background.callbacks") && strstr(err, "50 bursts"), "%s", err);
	sim_params_destroy(p);
}
END_TEST

static Suite *background_suite(void)
{
	Suite *s = suite_create("background");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, background_off_creates_and_draws_nothing);
	tcase_add_test(tc, background_idle_tick_taken_at_rate);
	tcase_add_test(tc, background_wakeup_is_two_switches_and_an_idle_exit);
	tcase_add_test(tc, background_irqs_at_rate);
	tcase_add_test(tc, background_seeded_same_seed_same_run);
	tcase_add_test(tc, background_idle_tick_reports_the_idle_cpus_qs);
	tcase_add_test(tc, core_cost_sigma_spreads_the_first_pass_mean_kept);
	tcase_add_test(tc, background_callbacks_queued_by_the_runs_and_invoked_as_no_loads);
	tcase_add_test(tc, background_callbacks_off_draws_nothing_more);
	tcase_add_test(tc, background_callbacks_past_the_wakeups_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testlib_run_suite(background_suite());
}
