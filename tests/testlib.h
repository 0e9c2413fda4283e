/* SPDX-License-Identifier: GPL-3.0-or-later */
/* testlib.h - what the Check suites share: running a suite, comparing two
 * histograms, and running a workload model in-process with KEY=VALUE
 * overrides. */
#ifndef RCUSIM_TESTS_TESTLIB_H
#define RCUSIM_TESTS_TESTLIB_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

/* Check's ck_assert records its line through a pipe at every pass; these
 * only act on failure, for hot loops. */
#define REQUIRE(c) \
	do { \
		if (!(c)) \
			ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #c); \
	} while (0)
#define REQUIRE_EQ(a, b) REQUIRE((a) == (b))
#define REQUIRE_LT(a, b) REQUIRE((a) < (b))
#define REQUIRE_GT(a, b) REQUIRE((a) > (b))

/* Run every test of @s; the process exit status. */
static inline int testlib_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* @a and @b hold the same samples: count, exact sum, extremes, every bin. */
static inline void testlib_same_hist(const sim_hist *a, const sim_hist *b)
{
	ck_assert_uint_eq(a->count, b->count);
	ck_assert(a->sum == b->sum);
	ck_assert_uint_eq(a->min, b->min);
	ck_assert_uint_eq(a->max, b->max);
	ck_assert_int_eq(memcmp(a->bins, b->bins, sizeof(a->bins)), 0);
}

#ifdef RCUSIM_MODELS_MODEL_H
/* Simulate workload @kind with the overrides @sets (NULL-terminated) into a
 * new *m; returns rcusim_simulate()'s code, message in @err. */
static inline int testlib_simulate(const char *kind, const char *const *sets, sim_metrics **m,
				   char *err, size_t errlen)
{
	sim_params *p;
	char kindset[64];
	ck_assert_int_eq(sim_params_create(&p, rcusim_params, P_COUNT, err, errlen), 0);
	snprintf(kindset, sizeof(kindset), "workload.kind=%s", kind);
	ck_assert_int_eq(sim_params_set(p, kindset, err, errlen), 0);
	for (; *sets; sets++)
		ck_assert_msg(sim_params_set(p, *sets, err, errlen) == 0, "%s", err);
	ck_assert_int_eq(sim_metrics_create(m), 0);
	rcusim_outcome o;
	int rc = rcusim_simulate(p, *m, NULL, NULL, NULL, &o, err, errlen);
	sim_params_destroy(p);
	return rc;
}

/* Scalar @name of @m, which must be present. */
static inline double testlib_get(sim_metrics *m, const char *name)
{
	double v;
	ck_assert_msg(sim_metrics_get(m, name, &v), "missing %s", name);
	return v;
}
#endif

#endif
