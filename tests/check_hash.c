/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_hash.c - the 64-bit FNV-1a hash (sim/hash.h): the published test
 * vectors, strings against bytes, and folding in pieces. */
#include <check.h>

#include <string.h>

#include "hash.h"
#include "testlib.h"

/* The FNV-1a 64-bit vectors of the FNV reference code (test_fnv.c) and
 * draft-eastlake-fnv: "" is the offset basis itself. */
START_TEST(hash_fnv1a_vectors)
{
	ck_assert_uint_eq(sim_fnv1a_str(SIM_FNV1A_BASIS, ""), UINT64_C(0xcbf29ce484222325));
	ck_assert_uint_eq(sim_fnv1a_str(SIM_FNV1A_BASIS, "a"), UINT64_C(0xaf63dc4c8601ec8c));
	ck_assert_uint_eq(sim_fnv1a_str(SIM_FNV1A_BASIS, "foobar"), UINT64_C(0x85944171f73967e8));
}
END_TEST

/* A string hashes as its bytes without the NUL; with the NUL (as a run
 * key folds each field, cli/sweep_plan.c) it is one byte more. */
START_TEST(hash_fnv1a_str_is_bytes)
{
	const char *s = "rcusim run key 1";
	uint64_t h = sim_fnv1a_str(SIM_FNV1A_BASIS, s);
	ck_assert_uint_eq(h, sim_fnv1a(SIM_FNV1A_BASIS, s, strlen(s)));
	ck_assert_uint_eq(sim_fnv1a(SIM_FNV1A_BASIS, s, strlen(s) + 1), (h ^ 0) * SIM_FNV1A_PRIME);
	ck_assert_uint_ne(sim_fnv1a(SIM_FNV1A_BASIS, s, strlen(s) + 1), h);
}
END_TEST

/* Folding "foo" then "bar" is folding "foobar": the hash continues. */
START_TEST(hash_fnv1a_folds_in_pieces)
{
	uint64_t h = sim_fnv1a_str(sim_fnv1a_str(SIM_FNV1A_BASIS, "foo"), "bar");
	ck_assert_uint_eq(h, sim_fnv1a_str(SIM_FNV1A_BASIS, "foobar"));
	ck_assert_uint_eq(sim_fnv1a(SIM_FNV1A_BASIS, NULL, 0), SIM_FNV1A_BASIS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hash");
	TCase *tc = tcase_create("hash");
	tcase_add_test(tc, hash_fnv1a_vectors);
	tcase_add_test(tc, hash_fnv1a_str_is_bytes);
	tcase_add_test(tc, hash_fnv1a_folds_in_pieces);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
