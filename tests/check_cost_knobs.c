/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_cost_knobs.c - one cost per mechanism (issue 47, item 7): each of
 * rcu.core_pass_cost, rcu.rcuc_pass_cost, rcu.rcuog_pass_cost,
 * rcu.rcuo_pass_cost (once all rcu.tasklet_cost) and rcu.srs_wake_cost,
 * rcu.exp_scan_cost, rcu.exp_wake_cost, rcu.barrier_scan_cost (once all
 * rcu.fqs_cpu_cost) defaults to the old knob, which stays an alias: set,
 * it moves every mechanism it priced; a new knob set moves its own
 * mechanism only. Then one mechanism's CPU time, step by step. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "kbox.h"
#include "testlib.h"

/* 8 CPUs at 1.2 GHz without SMT (every cost at face value), HZ 250, EEVDF,
 * Tree RCU; the mechanism's own settings @mech, then @sets. */
static void box_mech(box *b, const char *const *mech, const char *const *sets)
{
	const char *all[32] = {
		"machine.cores=8", "machine.threads_per_core=1", "machine.hz=250",
		"machine.arch=x86_64", "machine.clock=1.2GHz", "sched.kind=eevdf",
		"rcu.flavor=tree", "irq.tick_phase=aligned", "workload.jobs=4",
		"scenario.duration=1h",
	};
	size_t n = 10;
	for (; *mech; mech++)
		all[n++] = *mech;
	all[n] = NULL;
	box_create_from(b, all, sets);
}

/* rcuc on CPUs 4-7, rcuog and rcuo for CPUs 0-3: every pass cost read. */
static const char *const passes[] = { "workload.kind=callrcu", "rcu.use_softirq=no",
				      "rcu.nocbs=0-3", NULL };

START_TEST(pass_costs_default_to_the_tasklet_cost)
{
	box b;
	const char *none[] = { NULL };
	box_mech(&b, passes, none);
	const krcu *r = &b.k->rcu;
	ck_assert_ptr_nonnull(r->rcuc);
	ck_assert(r->nocb);
	ck_assert_int_eq(r->handler_cost, 1000); /* rcu.tasklet_cost's 1us */
	ck_assert_int_eq(r->rcuc_pass_cost, 1000);
	ck_assert_int_eq(r->rcuog_pass_cost, 1000);
	ck_assert_int_eq(r->rcuo_pass_cost, 1000);
	box_destroy(&b);
}
END_TEST

START_TEST(tasklet_cost_is_an_alias_of_every_pass_cost)
{
	box b;
	const char *sets[] = { "rcu.tasklet_cost=2us", NULL };
	box_mech(&b, passes, sets);
	const krcu *r = &b.k->rcu;
	ck_assert_int_eq(r->handler_cost, 2000);
	ck_assert_int_eq(r->rcuc_pass_cost, 2000);
	ck_assert_int_eq(r->rcuog_pass_cost, 2000);
	ck_assert_int_eq(r->rcuo_pass_cost, 2000);
	box_destroy(&b);
}
END_TEST

START_TEST(a_pass_cost_moves_its_mechanism_only)
{
	/* Each new knob set over the alias: its own field moves, the others
	 * keep the alias's value. */
	static const struct {
		const char *set;
		int which; /* 0 core, 1 rcuc, 2 rcuog, 3 rcuo */
	} cases[] = {
		{ "rcu.core_pass_cost=5us", 0 },
		{ "rcu.rcuc_pass_cost=5us", 1 },
		{ "rcu.rcuog_pass_cost=5us", 2 },
		{ "rcu.rcuo_pass_cost=5us", 3 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		box b;
		const char *sets[] = { "rcu.tasklet_cost=2us", cases[i].set, NULL };
		box_mech(&b, passes, sets);
		const krcu *r = &b.k->rcu;
		sim_time got[4] = { r->handler_cost, r->rcuc_pass_cost, r->rcuog_pass_cost,
				    r->rcuo_pass_cost };
		for (int m = 0; m < 4; m++)
			ck_assert_msg(got[m] == (m == cases[i].which ? 5000 : 2000),
				      "%s: cost %d is %lld", cases[i].set, m, (long long)got[m]);
		box_destroy(&b);
	}
}
END_TEST

/* The mechanisms rcu.fqs_cpu_cost priced, each with what creates it. */
static const char *const exp_mech[] = { "workload.kind=syncrcu", "workload.syncrcu_expedited=yes",
					NULL };
static const char *const srs_mech[] = { "workload.kind=syncrcu", "rcu.normal_wake_from_gp=yes",
					NULL };
static const char *const bar_mech[] = { "workload.kind=callrcu", "workload.barrier=yes",
					"workload.barrier_cpu=7", NULL };

/* Each scan or wake cost of @b's model: exp scan, exp wake, srs, barrier
 * (0 where its mechanism is not in the run), and the FQS scan's. */
static void scan_costs(const box *b, sim_time out[5])
{
	const krcu *r = &b->k->rcu;
	out[0] = r->exp ? r->exp->scan_cost : 0;
	out[1] = r->exp ? r->exp->wake_cost : 0;
	out[2] = r->srs ? r->srs->wake_cost : 0;
	out[3] = r->bar ? r->bar->scan_cost : 0;
	out[4] = r->fqs_cpu_cost;
}

START_TEST(fqs_cpu_cost_is_an_alias_and_each_scan_cost_its_own)
{
	static const struct {
		const char *const *mech;
		const char *set;   /* the new knob, or NULL: the alias alone */
		int which;         /* its slot in scan_costs() */
		int also;          /* another slot its mechanism fills, -1 */
	} cases[] = {
		{ exp_mech, NULL, 0, 1 },
		{ exp_mech, "rcu.exp_scan_cost=900ns", 0, -1 },
		{ exp_mech, "rcu.exp_wake_cost=900ns", 1, -1 },
		{ srs_mech, NULL, 2, -1 },
		{ srs_mech, "rcu.srs_wake_cost=900ns", 2, -1 },
		{ bar_mech, NULL, 3, -1 },
		{ bar_mech, "rcu.barrier_scan_cost=900ns", 3, -1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		box b;
		const char *sets[] = { "rcu.fqs_cpu_cost=700ns", cases[i].set, NULL };
		box_mech(&b, cases[i].mech, sets);
		sim_time c[5];
		scan_costs(&b, c);
		ck_assert_int_eq(c[4], 700); /* the FQS scan's own, always the old knob */
		if (!cases[i].set) {
			/* The alias alone: every cost of the mechanism follows it. */
			ck_assert_msg(c[cases[i].which] == 700, "case %zu: %lld", i,
				      (long long)c[cases[i].which]);
			if (cases[i].also >= 0)
				ck_assert_int_eq(c[cases[i].also], 700);
		} else {
			for (int m = 0; m < 4; m++)
				if (c[m])
					ck_assert_msg(c[m] == (m == cases[i].which ? 900 : 700),
						      "%s: cost %d is %lld", cases[i].set, m,
						      (long long)c[m]);
			ck_assert_int_eq(c[cases[i].which], 900);
		}
		box_destroy(&b);
	}
}
END_TEST

START_TEST(barrier_scan_cost_prices_the_barrier_loop_not_the_fqs_scan)
{
	/* No CPU has a callback: rcu_barrier() returns after its loop over
	 * the 8 CPUs (tree.c 6.12:4589-4621), 8 x rcu.barrier_scan_cost of
	 * its caller's CPU time, whatever rcu.fqs_cpu_cost is. */
	box b;
	const char *sets[] = { "rcu.fqs_cpu_cost=700ns", "rcu.barrier_scan_cost=2us",
			       "workload.callrcu_rate=0/s", "workload.barrier_gap=10ms", NULL };
	box_mech(&b, bar_mech, sets);
	krcu *r = &b.k->rcu;
	while (r->bar->returned == 0 && sim_now(b.eng) < 20 * MS)
		run_to(&b, sim_now(b.eng) + 1000);
	ck_assert_uint_eq(r->bar->returned, 1);
	ck_assert_uint_eq(r->bar->ipis, 0);
	ck_assert_int_eq((sim_time)r->bar->dur->max, 8 * 2000);
	ck_assert_int_eq(r->bar->caller->cpu_ns, 8 * 2000);
	box_destroy(&b);
}
END_TEST

START_TEST(classic_rcu_refuses_tree_cost_knobs)
{
	/* The new knobs are Tree RCU's: under classic RCU only
	 * rcu.tasklet_cost prices the tasklet. */
	sim_params *p;
	char err[1024];
	ck_assert_int_eq(sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_set(p, "rcu.flavor=classic", err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_set(p, "rcu.core_pass_cost=2us", err, sizeof(err)), 0);
	ck_assert_int_eq(rcusim_validate(p, err, sizeof(err)), SIM_EINPUT);
	ck_assert_msg(strstr(err, "rcu.core_pass_cost"), "%s", err);
	sim_params_destroy(p);
}
END_TEST

static Suite *cost_knobs_suite(void)
{
	Suite *s = suite_create("cost_knobs");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, pass_costs_default_to_the_tasklet_cost);
	tcase_add_test(tc, tasklet_cost_is_an_alias_of_every_pass_cost);
	tcase_add_test(tc, a_pass_cost_moves_its_mechanism_only);
	tcase_add_test(tc, fqs_cpu_cost_is_an_alias_and_each_scan_cost_its_own);
	tcase_add_test(tc, barrier_scan_cost_prices_the_barrier_loop_not_the_fqs_scan);
	tcase_add_test(tc, classic_rcu_refuses_tree_cost_knobs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testlib_run_suite(cost_knobs_suite());
}
