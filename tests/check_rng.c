/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_rng.c - random streams: determinism, independence of parts, the
 * distributions' first moments, and the ziggurat draws against GSL's
 * distributions. */
#include <check.h>

#include "testlib.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>

#include "rng.h"

START_TEST(rng_same_seed_same_stream)
{
	sim_rng *a, *b;
	sim_rng_create(&a, SIM_RNG_MT19937, 5, "rcu.callrcu", 3);
	sim_rng_create(&b, SIM_RNG_MT19937, 5, "rcu.callrcu", 3);
	for (int i = 0; i < 1000; i++)
		ck_assert(sim_rng_uniform(a) == sim_rng_uniform(b));
	sim_rng_destroy(a);
	sim_rng_destroy(b);
}
END_TEST

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

START_TEST(rng_streams_differ)
{
	/* Seed, part and index each change the stream. */
	uint32_t base = sim_rng_derive_seed(5, "rcu.callrcu", 3);
	ck_assert_uint_ne(base, sim_rng_derive_seed(6, "rcu.callrcu", 3));
	ck_assert_uint_ne(base, sim_rng_derive_seed(5, "rcu.callrcv", 3));
	ck_assert_uint_ne(base, sim_rng_derive_seed(5, "rcu.callrcu", 4));
	/* 4096 CPUs x 8 parts: count seed collisions (expected ~0.06). */
	enum { N = 4096 * 8 };
	uint32_t *s = malloc(N * sizeof(*s));
	const char *parts[8] = { "a", "b", "sched", "rcu", "vfs", "slab", "workload", "irq" };
	for (int p = 0; p < 8; p++)
		for (int i = 0; i < 4096; i++)
			s[p * 4096 + i] = sim_rng_derive_seed(1, parts[p], (uint64_t)i);
	qsort(s, N, sizeof(*s), cmp_u32);
	int dup = 0;
	for (int i = 1; i < N; i++)
		dup += s[i] == s[i - 1];
	ck_assert_int_le(dup, 2);
	free(s);
}
END_TEST

START_TEST(rng_parts_are_independent)
{
	/* Drawing from part "x" never changes what part "y" yields. */
	sim_rng *x, *y1, *y2;
	sim_rng_create(&x, SIM_RNG_TAUS2, 9, "x", 0);
	sim_rng_create(&y1, SIM_RNG_TAUS2, 9, "y", 0);
	double ref[100];
	for (int i = 0; i < 100; i++)
		ref[i] = sim_rng_uniform(y1);
	for (int i = 0; i < 12345; i++)
		sim_rng_uniform(x);
	sim_rng_create(&y2, SIM_RNG_TAUS2, 9, "y", 0);
	for (int i = 0; i < 100; i++) {
		sim_rng_uniform(x);
		ck_assert(sim_rng_uniform(y2) == ref[i]);
	}
	sim_rng_destroy(x);
	sim_rng_destroy(y1);
	sim_rng_destroy(y2);
}
END_TEST

START_TEST(rng_moments)
{
	sim_rng *r;
	sim_rng_create(&r, (sim_rng_kind)_i, 1, "moments", 0);
	enum { N = 200000 };
	double se = 0, su = 0;
	uint64_t big = 0, n_big = (UINT64_C(1) << 40) + 7;
	for (int i = 0; i < N; i++) {
		se += sim_rng_exponential(r, 2.0);
		double u = sim_rng_uniform(r);
		ck_assert(u >= 0 && u < 1);
		su += u;
		uint64_t k = sim_rng_uniform_int(r, n_big);
		ck_assert_uint_lt(k, n_big);
		big += k >> 20;
	}
	/* Means within 5 standard errors. */
	ck_assert_double_lt(fabs(se / N - 2.0), 5 * 2.0 / sqrt(N));
	ck_assert_double_lt(fabs(su / N - 0.5), 5 * sqrt(1.0 / 12) / sqrt(N));
	double mean_big = (double)big / N, want = (double)(n_big >> 20) / 2;
	ck_assert_double_lt(fabs(mean_big - want), 5 * want / sqrt(3.0 * N));
	sim_rng_destroy(r);
}
END_TEST

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The Kolmogorov-Smirnov distance between @n sorted draws and @cdf. */
static double ks_distance(double *x, int n, double (*cdf)(double, const double *), const double *par)
{
	qsort(x, (size_t)n, sizeof(*x), cmp_double);
	double d = 0;
	for (int i = 0; i < n; i++) {
		double f = cdf(x[i], par);
		d = fmax(d, fmax(f - (double)i / n, (double)(i + 1) / n - f));
	}
	return d;
}

static double exp_cdf(double x, const double *par)
{
	return gsl_cdf_exponential_P(x, par[0]);
}

static double lognormal_cdf(double x, const double *par)
{
	return gsl_cdf_lognormal_P(x, par[0], par[1]);
}

/* The ziggurat's base edge R (Marsaglia and Tsang 2000; sim/rng.c's
 * ZIG_R): draws past it come from the tail, drawn apart. */
static const double zig_r = 7.69711747013104972;

/* The ziggurat's exponential draws (sim/rng.c) against GSL's exponential
 * distribution, for each generator: the Kolmogorov-Smirnov distance of a
 * 4 million draws below its 0.1% critical value (1.95 / sqrt(n)); the share
 * past the ziggurat's base edge R = 7.697 (the tail, drawn apart) and past
 * 1 (wedge and body) within 5 standard errors of e^-x; and the tail
 * memoryless: the draws past R exceed it by 1 on average. */
START_TEST(rng_exponential_is_gsls_distribution)
{
	sim_rng *r;
	sim_rng_create(&r, (sim_rng_kind)_i, 3, "exp.ks", 0);
	enum { N = 4000000 };
	double *x = malloc(N * sizeof(*x)), mean = 0.25, par[1] = { mean };
	int tail = 0, past1 = 0, bad = 0;
	double over = 0;
	for (int i = 0; i < N; i++) { /* (a ck_assert() a draw would cost a write each) */
		x[i] = sim_rng_exponential(r, mean);
		bad += !(x[i] >= 0 && isfinite(x[i]));
		double e = x[i] / mean;
		past1 += e > 1;
		if (e > zig_r) {
			tail++;
			over += e - zig_r;
		}
	}
	ck_assert_int_eq(bad, 0);
	double pt = exp(-zig_r), p1 = exp(-1.0);
	ck_assert_double_lt(fabs(tail - N * pt), 5 * sqrt(N * pt * (1 - pt)));
	ck_assert_double_lt(fabs(past1 - N * p1), 5 * sqrt(N * p1 * (1 - p1)));
	ck_assert_int_gt(tail, 300);
	ck_assert_double_lt(fabs(over / tail - 1.0), 5.0 / sqrt(tail));
	ck_assert_double_lt(ks_distance(x, N, exp_cdf, par), 1.95 / sqrt(N));
	free(x);
	sim_rng_destroy(r);
}
END_TEST

/* Lognormal draws (GSL's ziggurat Gaussian, exponentiated) against GSL's
 * lognormal distribution: the make workload's hold times (median 5 ms,
 * sigma 1.2) and a narrow one. */
START_TEST(rng_lognormal_is_gsls_distribution)
{
	static const double cases[][2] = { { 15.42, 1.2 }, { 0.0, 0.1 } };
	for (int c = 0; c < 2; c++) {
		sim_rng *r;
		sim_rng_create(&r, (sim_rng_kind)_i, 4, "lognormal.ks", (uint64_t)c);
		enum { N = 400000 };
		double *x = malloc(N * sizeof(*x));
		double sl = 0;
		int bad = 0;
		for (int i = 0; i < N; i++) {
			x[i] = sim_rng_lognormal(r, cases[c][0], cases[c][1]);
			bad += !(x[i] > 0 && isfinite(x[i]));
			sl += log(x[i]);
		}
		ck_assert_int_eq(bad, 0);
		ck_assert_double_lt(fabs(sl / N - cases[c][0]), 5 * cases[c][1] / sqrt(N));
		ck_assert_double_lt(ks_distance(x, N, lognormal_cdf, cases[c]), 1.95 / sqrt(N));
		free(x);
		sim_rng_destroy(r);
	}
}
END_TEST

/* Poisson draws (Hormann's PTRS from mean 10, GSL's below) against GSL's
 * Poisson distribution, for means either side of 10 and the bulk callers'
 * range: a chi-square over the counts (the tails pooled until each class
 * expects 20), its p-value above 1e-4, and the mean within 5 standard
 * errors. */
START_TEST(rng_poisson_is_gsls_distribution)
{
	static const double mus[] = { 3.5, 9.99, 10.0, 17.3, 57.5, 1000.0 };
	enum { N = 400000 };
	for (size_t c = 0; c < sizeof(mus) / sizeof(mus[0]); c++) {
		double mu = mus[c];
		sim_rng *r;
		sim_rng_create(&r, (sim_rng_kind)_i, 5, "poisson.chi2", c);
		unsigned kmax = (unsigned)(mu + 12 * sqrt(mu) + 20);
		uint64_t *obs = calloc(kmax + 1, sizeof(*obs));
		double sum = 0;
		for (int i = 0; i < N; i++) {
			unsigned k = sim_rng_poisson(r, mu);
			obs[k < kmax ? k : kmax]++;
			sum += k;
		}
		ck_assert_double_lt(fabs(sum / N - mu), 5 * sqrt(mu / N));
		/* classes of counts, each closed once it expects 20 and the
		 * counts above it expect 20 more; the last takes the tail */
		double chi2 = 0, e = 0, o = 0;
		int classes = 0;
		for (unsigned k = 0; k < kmax; k++) {
			e += N * gsl_ran_poisson_pdf(k, mu);
			o += (double)obs[k];
			if (e >= 20 && N * gsl_cdf_poisson_Q(k, mu) >= 20) {
				chi2 += (o - e) * (o - e) / e;
				classes++;
				e = o = 0;
			}
		}
		e += N * gsl_cdf_poisson_Q(kmax - 1, mu);
		o += (double)obs[kmax];
		chi2 += (o - e) * (o - e) / e;
		int df = classes;
		ck_assert_int_gt(df, 3);
		ck_assert_msg(gsl_cdf_chisq_Q(chi2, df) > 1e-4, "mean %g: chi-square %g on %d degrees", mu,
			      chi2, df);
		free(obs);
		sim_rng_destroy(r);
	}
}
END_TEST

START_TEST(rng_gsl_error_returns)
{
	/* Once a stream exists, a GSL error (here the one gsl_rng_alloc()
	 * raises when malloc fails) returns to its caller, which checks it,
	 * instead of GSL's default handler aborting the process (a run under
	 * `ulimit -v` died of SIGABRT, its row left 'running'). Under the
	 * default handler this test aborts the suite. */
	sim_rng *r;
	ck_assert_int_eq(sim_rng_create(&r, SIM_RNG_TAUS2, 1, "gsl.error", 0), 0);
	gsl_error("failed to allocate space for rng state", __FILE__, __LINE__, GSL_ENOMEM);
	sim_rng_destroy(r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rng");
	TCase *tc = tcase_create("rng");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, rng_same_seed_same_stream);
	tcase_add_test(tc, rng_streams_differ);
	tcase_add_test(tc, rng_parts_are_independent);
	tcase_add_loop_test(tc, rng_moments, SIM_RNG_MT19937, SIM_RNG_RANLXD2 + 1);
	tcase_add_loop_test(tc, rng_exponential_is_gsls_distribution, SIM_RNG_MT19937,
			    SIM_RNG_RANLXD2 + 1);
	tcase_add_loop_test(tc, rng_lognormal_is_gsls_distribution, SIM_RNG_MT19937,
			    SIM_RNG_RANLXD2 + 1);
	tcase_add_loop_test(tc, rng_poisson_is_gsls_distribution, SIM_RNG_MT19937,
			    SIM_RNG_RANLXD2 + 1);
	tcase_add_test(tc, rng_gsl_error_returns);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
