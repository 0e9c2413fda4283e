/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_queue.c - the queue workload as the engine's check: conservation,
 * Little's law, the M/M/1 closed form, drain capacity, determinism. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "testlib.h"

static char err[1024];

/* Run the queue workload with the given overrides; results in *m. */
static int run(sim_metrics **m, const char *const *sets)
{
	int rc = testlib_simulate("queue", sets, m, err, sizeof(err));
	return rc;
}

static double get(sim_metrics *m, const char *name)
{
	return testlib_get(m, name);
}

START_TEST(queue_mm1_closed_form_and_little)
{
	/* rho = 0.5 on 8 CPUs for 60 s: L = rho / (1 - rho) = 1 per CPU, W =
	 * 1 / (mu - lambda) = 2 ms. The time average's standard error here is
	 * about 0.6% (asymptotic variance 2 rho (1 + rho) / (mu (1 - rho)^4)
	 * per unit time, over 8 x 60 s), so 3% is five standard errors. */
	sim_metrics *m;
	const char *sets[] = { "machine.cores=2", "scenario.duration=60s",
			       "workload.queue_rate=500/s", "workload.queue_service_rate=1000/s",
			       "workload.queue_service=exp", NULL };
	ck_assert_int_eq(run(&m, sets), 0);
	double ncpu = 8, T = 60;
	double L = get(m, "cb.qlen_total_mean") / ncpu;
	double W = get(m, "cb.latency_mean_ns") / 1e9;
	double lambda = get(m, "cb.enqueued") / T / ncpu;
	ck_assert_double_le(fabs(L - 1.0), 0.03);
	ck_assert_double_le(fabs(W - 0.002) / 0.002, 0.03);
	/* Little's law: L = lambda W within 1%. */
	ck_assert_double_le(fabs(L - lambda * W) / L, 0.01);
	/* Conservation. */
	ck_assert_double_eq(get(m, "cb.enqueued"), get(m, "cb.invoked") + get(m, "cb.pending_end"));
	sim_metrics_destroy(m);
}
END_TEST

START_TEST(queue_tick_little)
{
	/* Batch service at HZ = 250 with limit 4: capacity 1000/s per CPU,
	 * arrivals 600/s: stable. Little's law must hold for any discipline. */
	sim_metrics *m;
	const char *sets[] = { "machine.cores=4", "machine.threads_per_core=1",
			       "scenario.duration=100s", "machine.hz=250",
			       "workload.queue_service=tick", "workload.queue_batch=4",
			       "workload.queue_rate=600/s", NULL };
	ck_assert_int_eq(run(&m, sets), 0);
	double L = get(m, "cb.qlen_total_mean");
	double W = get(m, "cb.latency_mean_ns") / 1e9;
	double lambda = get(m, "cb.enqueued") / 100.0;
	ck_assert_double_le(fabs(L - lambda * W) / L, 0.01);
	/* Nothing waits less than zero or more than a few ticks at this load. */
	ck_assert_double_lt(get(m, "cb.latency_p99_ns"), 5 * 4e6);
	sim_metrics_destroy(m);
}
END_TEST

START_TEST(queue_overload_grows_at_the_difference)
{
	/* HZ = 100, 10 per tick: drain 1000/s per CPU by construction, arrivals
	 * 1500/s: the backlog grows at 500/s per CPU, 2 CPUs x 20 s -> 20000. */
	sim_metrics *m;
	const char *sets[] = { "machine.cores=2", "machine.threads_per_core=1",
			       "scenario.duration=20s", "machine.hz=100",
			       "workload.queue_service=tick", "workload.queue_batch=10",
			       "workload.queue_rate=1500/s", NULL };
	ck_assert_int_eq(run(&m, sets), 0);
	double pending = get(m, "cb.pending_end");
	ck_assert_double_le(fabs(pending - 20000) / 20000, 0.05);
	/* Served capacity, 2 CPUs x 2000 ticks x 10 = 40000, less what the
	 * first ticks found missing: CPU 0 ticks first at 5 ms, when 7.5
	 * arrivals are expected, so a few at most. */
	double invoked = get(m, "cb.invoked");
	ck_assert_double_le(invoked, 40000);
	ck_assert_double_ge(invoked, 40000 - 20);
	/* The time-average backlog of a linear ramp is half its end value. */
	ck_assert_double_le(fabs(get(m, "cb.qlen_total_mean") - pending / 2) / (pending / 2), 0.05);
	sim_metrics_destroy(m);
}
END_TEST

START_TEST(queue_deterministic)
{
	sim_metrics *a, *b, *c;
	const char *s1[] = { "scenario.duration=5s", "scenario.seed=11", NULL };
	const char *s2[] = { "scenario.duration=5s", "scenario.seed=12", NULL };
	ck_assert_int_eq(run(&a, s1), 0);
	ck_assert_int_eq(run(&b, s1), 0);
	ck_assert_int_eq(run(&c, s2), 0);
	ck_assert_uint_eq(sim_metrics_nscalars(a), sim_metrics_nscalars(b));
	int differs = 0;
	for (size_t k = 0; k < sim_metrics_nscalars(a); k++) {
		ck_assert_str_eq(sim_metrics_scalar_name(a, k), sim_metrics_scalar_name(b, k));
		ck_assert(sim_metrics_scalar_value(a, k) == sim_metrics_scalar_value(b, k));
		differs += sim_metrics_scalar_value(a, k) != sim_metrics_scalar_value(c, k);
	}
	ck_assert_int_gt(differs, 0);
	ck_assert_uint_eq(sim_metrics_nseries(a), sim_metrics_nseries(b));
	for (size_t k = 0; k < sim_metrics_nseries(a); k++) {
		const sim_series *x = sim_metrics_series_at(a, k), *y = sim_metrics_series_at(b, k);
		ck_assert_uint_eq(x->n, y->n);
		ck_assert_int_eq(memcmp(x->v, y->v, x->n * sizeof(double)), 0);
	}
	const sim_hist *ha = sim_metrics_hist_at(a, 0), *hb = sim_metrics_hist_at(b, 0);
	testlib_same_hist(ha, hb);
	sim_metrics_destroy(a);
	sim_metrics_destroy(b);
	sim_metrics_destroy(c);
}
END_TEST

START_TEST(queue_series_sampled)
{
	/* 2 s at 100 ms: samples at 0, 100 ms, ..., 2 s = 21 points, per CPU
	 * and machine-wide; the machine-wide one is the sum of the CPUs'. */
	sim_metrics *m;
	const char *sets[] = { "scenario.duration=2s", "scenario.sample_interval=100ms",
			       "machine.cores=1", NULL };
	ck_assert_int_eq(run(&m, sets), 0);
	ck_assert_uint_eq(sim_metrics_nseries(m), 5);
	const sim_series *all = NULL;
	for (size_t k = 0; k < sim_metrics_nseries(m); k++)
		if (sim_metrics_series_at(m, k)->cpu == -1)
			all = sim_metrics_series_at(m, k);
	ck_assert_ptr_nonnull(all);
	ck_assert_uint_eq(all->n, 21);
	ck_assert_int_eq(all->t[20], 2000000000);
	for (size_t j = 0; j < all->n; j++) {
		double sum = 0;
		for (size_t k = 0; k < sim_metrics_nseries(m); k++)
			if (sim_metrics_series_at(m, k)->cpu >= 0)
				sum += sim_metrics_series_at(m, k)->v[j];
		ck_assert_double_eq(sum, all->v[j]);
	}
	sim_metrics_destroy(m);
}
END_TEST

START_TEST(queue_validate_rejects)
{
	sim_metrics *m;
	const char *sets[] = { "rcu.qlowmark=20000", NULL };
	ck_assert_int_eq(run(&m, sets), SIM_EINPUT);
	ck_assert_str_eq(err, "--set: rcu.qlowmark: must be below rcu.qhimark (rcu.qhimark (default) = 10000), got 20000");
	sim_metrics_destroy(m);
}
END_TEST

START_TEST(queue_samples_limit)
{
	/* 1 CPU: 2 series (cb.qlen of CPU 0 and of all). Sampled every 1 ms,
	 * 49,999,999 ms is 50,000,000 samples of each, 1e8 points: the limit,
	 * accepted. One millisecond more is refused before anything runs,
	 * naming the interval (the sample arrays grew without bound). */
	sim_params *p;
	ck_assert_int_eq(sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)), 0);
	const char *sets[] = { "workload.kind=queue", "machine.cores=1", "machine.threads_per_core=1",
			       "scenario.sample_interval=1ms", "scenario.duration=49999999ms" };
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		ck_assert_msg(sim_params_set(p, sets[i], err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(rcusim_validate(p, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(sim_params_set(p, "scenario.duration=50000000ms", err, sizeof(err)), 0);
	ck_assert_int_eq(rcusim_validate(p, err, sizeof(err)), SIM_EINPUT);
	ck_assert_str_eq(err, "--set: scenario.sample_interval: 1ms over scenario.duration = 50000000ms "
			      "is 50000001 samples of each of at least 2 series (1 per CPU on 1 CPU, 1 "
			      "machine-wide): 100000002 points, 1.49 GiB in memory, over the limit of "
			      "100000000 points (1.49 GiB); use an interval of at least 2ms or a shorter "
			      "duration");
	sim_params_destroy(p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("queue");
	TCase *tc = tcase_create("queue");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, queue_mm1_closed_form_and_little);
	tcase_add_test(tc, queue_tick_little);
	tcase_add_test(tc, queue_overload_grows_at_the_difference);
	tcase_add_test(tc, queue_deterministic);
	tcase_add_test(tc, queue_series_sampled);
	tcase_add_test(tc, queue_validate_rejects);
	tcase_add_test(tc, queue_samples_limit);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
