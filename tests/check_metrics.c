/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_metrics.c - histogram bins and quantiles, time averages, and the
 * container, checked against GSL's own statistics on the same data; and
 * rcusim's registry of metric names (models/metrics.def). */
#include <check.h>

#include "testlib.h"
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "registry.h"
#include "rng.h"

START_TEST(hist_bins_cover_and_bound_error)
{
	/* Bins tile [0, 2^64) in order; each bin's width is at most 1/64 of
	 * its lower edge above 128. */
	uint64_t prev_hi = 0;
	for (size_t b = 0; b < SIM_HIST_BINS - 1; b++) {
		uint64_t lo, hi;
		sim_hist_edges(b, &lo, &hi);
		ck_assert_uint_eq(lo, prev_hi);
		ck_assert_uint_gt(hi, lo);
		if (lo >= 128)
			ck_assert_uint_le((hi - lo) * 64, lo);
		ck_assert_uint_eq(sim_hist_bin(lo), b);
		ck_assert_uint_eq(sim_hist_bin(hi - 1), b);
		prev_hi = hi;
	}
	ck_assert_uint_eq(sim_hist_bin(UINT64_MAX), SIM_HIST_BINS - 1);
}
END_TEST

START_TEST(hist_matches_gsl)
{
	enum { N = 100000 };
	sim_rng *r;
	sim_rng_create(&r, SIM_RNG_MT19937, 3, "test.hist", 0);
	double *x = malloc(N * sizeof(*x));
	sim_hist *h = malloc(sizeof(*h));
	sim_hist_init(h);
	for (int i = 0; i < N; i++) {
		/* Lognormal latencies around 1 ms with a heavy tail. */
		uint64_t v = (uint64_t)sim_rng_lognormal(r, log(1e6), 1.5);
		x[i] = (double)v;
		sim_hist_add(h, v);
	}
	gsl_sort(x, 1, N);
	ck_assert_uint_eq(h->count, N);
	ck_assert_double_eq_tol(sim_hist_mean(h), gsl_stats_mean(x, 1, N),
				1e-9 * gsl_stats_mean(x, 1, N));
	ck_assert_double_eq(h->min, x[0]);
	ck_assert_double_eq(h->max, x[N - 1]);
	const double qs[] = { 0.01, 0.1, 0.5, 0.9, 0.99, 0.999 };
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		/* The order statistic of rank ceil(q N), as sim_hist_quantile defines. */
		double exact = x[(size_t)ceil(qs[k] * N) - 1];
		double got = sim_hist_quantile(h, qs[k]);
		ck_assert_double_le(fabs(got - exact), 0.01 * exact);
		/* And GSL's interpolated quantile differs from it by no more than
		 * the gap between neighbouring samples plus the bin error. */
		double g = gsl_stats_quantile_from_sorted_data(x, 1, N, qs[k]);
		ck_assert_double_le(fabs(got - g), 0.01 * g + (x[(size_t)ceil(qs[k] * N)] - exact));
	}
	ck_assert_double_eq(sim_hist_quantile(h, 1.0), x[N - 1]);
	sim_rng_destroy(r);
	free(x);
	free(h);
}
END_TEST

START_TEST(hist_small_values_exact)
{
	sim_hist *h = malloc(sizeof(*h));
	sim_hist_init(h);
	ck_assert_double_eq(sim_hist_quantile(h, 0.5), 0); /* empty */
	for (uint64_t v = 1; v <= 100; v++)
		sim_hist_add(h, v);
	ck_assert_double_eq(sim_hist_quantile(h, 0.5), 50);
	ck_assert_double_eq(sim_hist_quantile(h, 0.99), 99);
	ck_assert_double_eq(sim_hist_mean(h), 50.5);
	sim_hist_add_n(h, 1000, 100);
	ck_assert_uint_eq(h->count, 200);
	ck_assert_double_eq(sim_hist_mean(h), (5050.0 + 100000.0) / 200);
	free(h);
}
END_TEST

START_TEST(hist_linear_matches_one_by_one)
{
	/* sim_hist_add_linear() gives the histogram that
	 * adding each sample gives: count, exact sum, extremes and every bin,
	 * for progressions up and down, flat, across the linear bins and the
	 * top octaves, one sample or many. */
	sim_hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	sim_hist_init(a);
	sim_hist_init(b);
	uint64_t s = 88172645463325252ULL;
	for (int t = 0; t < 3000; t++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		uint64_t m = 1 + s % (t % 3 ? 40 : 5000);
		int shift = (int)((s >> 20) % 56);
		uint64_t v0 = (s >> 8) >> (8 + shift);
		int64_t d = (int64_t)((s >> 30) % 4001) - 2000;
		if (t % 7 == 0)
			d *= 100000;
		if (t % 11 == 0)
			d = 0;
		if (d < 0 && (m - 1) * (uint64_t)-d > v0) /* keep every sample >= 0 */
			v0 += (m - 1) * (uint64_t)-d;
		sim_hist_add_linear(a, v0, d, m);
		for (uint64_t i = 0; i < m; i++)
			sim_hist_add(b, v0 + i * (uint64_t)d);
	}
	sim_hist_add_linear(a, 5, 3, 0); /* nothing */
	testlib_same_hist(a, b);
	free(a);
	free(b);
}
END_TEST

START_TEST(tavg_matches_gsl_wmean)
{
	/* A random step function: its time average is GSL's weighted mean of
	 * the values with the holding times as weights. */
	enum { N = 10000 };
	sim_rng *r;
	sim_rng_create(&r, SIM_RNG_TAUS2, 4, "test.tavg", 0);
	double *v = malloc(N * sizeof(*v)), *w = malloc(N * sizeof(*w));
	sim_tavg a;
	sim_tavg_init(&a, 1000, 0);
	sim_time t = 1000;
	int64_t val = 0, mx = 0;
	for (int i = 0; i < N; i++) {
		sim_time dt = 1 + (sim_time)sim_rng_uniform_int(r, 100000);
		v[i] = (double)val;
		w[i] = (double)dt;
		t += dt;
		val = (int64_t)sim_rng_uniform_int(r, 1000000);
		if (val > mx)
			mx = val;
		sim_tavg_set(&a, t, val);
	}
	double want = gsl_stats_wmean(w, 1, v, 1, N);
	ck_assert_double_eq_tol(sim_tavg_mean(&a, t), want, 1e-9 * want);
	ck_assert_int_eq(a.max, mx);
	/* Holding the last value further moves the mean toward it. */
	double later = sim_tavg_mean(&a, t + 1000000000);
	ck_assert((later - want) * ((double)val - want) >= 0);
	sim_rng_destroy(r);
	free(v);
	free(w);
}
END_TEST

START_TEST(metrics_container)
{
	sim_metrics *m;
	ck_assert_int_eq(sim_metrics_create(&m), 0);
	sim_metrics_scalar(m, "a", 1);
	sim_metrics_scalar(m, "b", 2);
	sim_metrics_scalar(m, "a", 3); /* replaces */
	ck_assert_uint_eq(sim_metrics_nscalars(m), 2);
	double v;
	ck_assert(sim_metrics_get(m, "a", &v));
	ck_assert_double_eq(v, 3);
	ck_assert(!sim_metrics_get(m, "c", &v));
	sim_series *s0 = sim_metrics_series(m, "q", 0), *s1 = sim_metrics_series(m, "q", -1);
	ck_assert_ptr_ne(s0, s1);
	ck_assert_ptr_eq(sim_metrics_series(m, "q", 0), s0);
	for (int i = 0; i < 1000; i++)
		sim_series_append(s0, i, i * 2.0);
	ck_assert_uint_eq(s0->n, 1000);
	ck_assert_double_eq(s0->v[999], 1998);
	sim_hist *h = sim_metrics_hist(m, "lat");
	ck_assert_int_eq(sim_metrics_hist_scalars(m, "lat", h, SIM_Q_MEAN | SIM_Q_MAX), 0);
	ck_assert(!sim_metrics_get(m, "lat_mean_ns", &v)); /* empty: absent, not 0 */
	sim_hist_add(h, 100);
	sim_hist_add(h, 300);
	ck_assert_int_eq(sim_metrics_hist_scalars(m, "lat", h, SIM_Q_MEAN | SIM_Q_MAX), 0);
	ck_assert(sim_metrics_get(m, "lat_mean_ns", &v));
	ck_assert_double_eq(v, 200);
	ck_assert(sim_metrics_get(m, "lat_max_ns", &v));
	ck_assert_double_eq(v, 300);
	ck_assert(!sim_metrics_get(m, "lat_p50_ns", &v));
	sim_metrics_destroy(m);
}
END_TEST

START_TEST(metrics_registry_unique_and_documented)
{
	/* Every entry: a section.name, a kind, a unit and a meaning; no name
	 * twice with the same kind (gp.completed is both a scalar, the count
	 * at the end, and a series, docs/reference.md section 7), so each is
	 * found as itself. */
	ck_assert_int_ge(M_COUNT, 50);
	for (size_t k = 0; k < M_COUNT; k++) {
		const sim_metric_def *d = &rcusim_metrics[k];
		ck_assert_ptr_nonnull(d->name);
		ck_assert_msg(strchr(d->name, '.') && d->name[0] != '.', "%s: not section.name", d->name);
		ck_assert_msg(d->kind == SIM_M_SCALAR || d->kind == SIM_M_SERIES || d->kind == SIM_M_HIST,
			      "%s: kind %d", d->name, (int)d->kind);
		ck_assert_msg(d->unit && d->unit[0], "%s: no unit", d->name);
		ck_assert_msg(d->meaning && d->meaning[0], "%s: no meaning", d->name);
		for (size_t j = 0; j < k; j++)
			ck_assert_msg(strcmp(rcusim_metrics[j].name, d->name) ||
					      rcusim_metrics[j].kind != d->kind,
				      "%s (%s) listed twice", d->name, sim_metric_kind_name(d->kind));
		ck_assert_ptr_eq(sim_metric_find(rcusim_metrics, M_COUNT, d->name, d->kind), d);
	}
	/* Lookups by id, and by name and kind. */
	ck_assert_str_eq(rcusim_metrics[M_CB_ENQUEUED].name, "cb.enqueued");
	ck_assert_str_eq(rcusim_metrics[M_VFS_NR_FILES].name, "vfs.nr_files");
	ck_assert_int_eq(rcusim_metrics[M_VFS_NR_FILES].kind, SIM_M_SERIES);
	ck_assert_ptr_null(sim_metric_find(rcusim_metrics, M_COUNT, "cb.latency_ns", SIM_M_SCALAR));
	ck_assert_ptr_null(sim_metric_find(rcusim_metrics, M_COUNT, "cb.bogus", SIM_M_SCALAR));
	ck_assert_str_eq(sim_metric_kind_name(SIM_M_HIST), "hist");
}
END_TEST

/* A named load's metrics: absorbed with the load's name after the first
 * word, values, bins and points unchanged; their definition is the
 * unscoped name's. */
START_TEST(metrics_absorb_scoped)
{
	sim_metrics *src, *dst;
	ck_assert_int_eq(sim_metrics_create(&src), 0);
	ck_assert_int_eq(sim_metrics_create(&dst), 0);
	ck_assert_int_eq(sim_metrics_scalar(src, "syncrcu.calls", 7), 0);
	sim_hist *h = sim_metrics_hist(src, "syncrcu.latency_ns");
	ck_assert_ptr_nonnull(h);
	sim_hist_add(h, 1000);
	sim_hist_add(h, 5000);
	ck_assert_int_eq(sim_series_append(sim_metrics_series(src, "cb.qlen", 2), 10, 3), 0);
	ck_assert_int_eq(sim_metrics_scalar(dst, "syncrcu.calls", 1), 0);
	ck_assert_int_eq(sim_metrics_absorb(dst, src, "callers"), 0);
	double v;
	ck_assert(sim_metrics_get(dst, "syncrcu.calls", &v));
	ck_assert_double_eq(v, 1);
	ck_assert(sim_metrics_get(dst, "syncrcu.callers.calls", &v));
	ck_assert_double_eq(v, 7);
	ck_assert_int_eq((int)sim_metrics_nhists(dst), 1);
	ck_assert_str_eq(sim_metrics_hist_name(dst, 0), "syncrcu.callers.latency_ns");
	ck_assert_int_eq((int)sim_metrics_hist_at(dst, 0)->count, 2);
	ck_assert_int_eq((int)sim_metrics_hist_at(dst, 0)->max, 5000);
	ck_assert_str_eq(sim_metrics_series_at(dst, 0)->name, "cb.callers.qlen");
	ck_assert_int_eq(sim_metrics_series_at(dst, 0)->cpu, 2);
	ck_assert_double_eq(sim_metrics_series_at(dst, 0)->v[0], 3);
	sim_metrics_destroy(src); /* dst owns its names */
	ck_assert_ptr_eq(sim_metric_find(rcusim_metrics, M_COUNT, "syncrcu.callers.latency_p99_ns", SIM_M_SCALAR),
			 &rcusim_metrics[M_SYNCRCU_LATENCY_P99_NS]);
	ck_assert_ptr_eq(sim_metric_find(rcusim_metrics, M_COUNT, "load.main.jobs", SIM_M_SCALAR),
			 &rcusim_metrics[M_LOAD_JOBS]);
	ck_assert_ptr_null(sim_metric_find(rcusim_metrics, M_COUNT, "syncrcu.a.b.calls", SIM_M_SCALAR));
	ck_assert_ptr_null(sim_metric_find(rcusim_metrics, M_COUNT, "syncrcu.callers.latency_ns", SIM_M_SCALAR));
	sim_metrics_destroy(dst);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("metrics");
	tcase_add_test(tc, hist_bins_cover_and_bound_error);
	tcase_add_test(tc, hist_matches_gsl);
	tcase_add_test(tc, hist_small_values_exact);
	tcase_add_test(tc, hist_linear_matches_one_by_one);
	tcase_add_test(tc, tavg_matches_gsl_wmean);
	tcase_add_test(tc, metrics_container);
	tcase_add_test(tc, metrics_absorb_scoped);
	tcase_add_test(tc, metrics_registry_unique_and_documented);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
