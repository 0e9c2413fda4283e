/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_slab.c - the filp slab and the file table step by step: objects per
 * slab, growth running the constructor for every object, refill sizes,
 * frees landing in the freeing CPU's array, the shared array, free_block's
 * immediate destruction above free_limit, slots held at the high-water mark, cache_reap's drain and tofree
 * bound, the fragmentation count (slots pinned) against one made from
 * scratch, and nr_files under the three accountings. */
#include <check.h>
#include <stdlib.h>

#include "mm/slab.h"
#include "testlib.h"
#include "fs/file_table.h"

static slab_cfg filp(int ncpus)
{
	/* sparc64: 8 KiB slabs, 256-byte filps, 48-byte descriptor + 4 per object. */
	return (slab_cfg){ .obj_size = 256, .page_size = 8192, .mgmt = 48, .bufctl = 4,
			   .ncpus = ncpus, .shared_factor = 8 };
}

static int ctor_calls, ctor_objs, dtor_objs;
static void ctor(void *ctx, int n)
{
	(void)ctx;
	ctor_calls++;
	ctor_objs += n;
}
static void dtor(void *ctx, int n)
{
	(void)ctx;
	dtor_objs += n;
}

START_TEST(slab_geometry)
{
	slab_cfg c = filp(32);
	ck_assert_int_eq(slab_estimate(&c), 31); /* (8192 - 48) / 260 */
	c.page_size = 4096;
	ck_assert_int_eq(slab_estimate(&c), 15); /* (4096 - 48) / 260 */
	ck_assert_int_eq(slab_default_limit(256, 8192), 120);
	ck_assert_int_eq(slab_default_limit(257, 8192), 54);
	ck_assert_int_eq(slab_default_limit(2048, 8192), 24);
	slab_cache sc;
	c = filp(32);
	ck_assert_int_eq(slab_cache_init(&sc, &c, NULL, NULL, NULL), 0);
	ck_assert_int_eq(sc.batchcount, 60);
	ck_assert_int_eq(sc.shared.limit, 480);
	ck_assert_int_eq(sc.free_limit, 2011); /* (1 + 32) x 60 + 31 */
	/* tofree per node reap: (2011 + 5 x 31 - 1) / (5 x 31) = 13 slabs. */
	ck_assert_int_eq((sc.free_limit + 5 * sc.num - 1) / (5 * sc.num), 13);
	slab_cache_fini(&sc);
}
END_TEST

START_TEST(slab_grow_runs_ctor_and_refill_sizes)
{
	slab_cache sc;
	slab_cfg c = filp(2);
	ctor_calls = ctor_objs = dtor_objs = 0;
	ck_assert_int_eq(slab_cache_init(&sc, &c, ctor, dtor, NULL), 0);
	/* First allocation: empty cache, untouched array: grow one slab (ctor
	 * for all 31), refill BATCHREFILL_LIMIT = 16, hand out the last. */
	int64_t o = kmem_cache_alloc(&sc, 0);
	ck_assert_int_ge(o, 0);
	ck_assert_int_eq(ctor_calls, 1);
	ck_assert_int_eq(ctor_objs, 31);
	ck_assert_int_eq(sc.cpu[0].avail, 15);
	ck_assert_int_eq(sc.free_objects, 31 - 16);
	ck_assert(sc.cpu[0].touched);
	/* Empty the array; the next refill is touched (batch 60) but takes
	 * only the 15 left in the partial slab: with some objects in hand,
	 * cache_alloc_refill does not grow. */
	for (int i = 0; i < 15; i++)
		kmem_cache_alloc(&sc, 0);
	ck_assert_int_eq(sc.cpu[0].avail, 0);
	kmem_cache_alloc(&sc, 0);
	ck_assert_int_eq(ctor_calls, 1);
	ck_assert_int_eq(sc.cpu[0].avail, 14);
	ck_assert_int_eq(sc.free_objects, 0);
	/* Empty again: now nothing is left, so it grows one slab and takes a
	 * full batch: 31 (the whole slab) of the 60 it wanted. */
	for (int i = 0; i < 14; i++)
		kmem_cache_alloc(&sc, 0);
	kmem_cache_alloc(&sc, 0);
	ck_assert_int_eq(ctor_calls, 2);
	ck_assert_int_eq(sc.cpu[0].avail, 30);
	ck_assert_int_eq(sc.nslabs, 2);
	ck_assert_int_eq(sc.free_objects, 0);
	slab_cache_fini(&sc);
}
END_TEST

START_TEST(slab_free_to_callers_array_and_shared)
{
	slab_cache sc;
	slab_cfg c = filp(2);
	slab_cache_init(&sc, &c, NULL, NULL, NULL);
	slab_obj objs[200];
	for (int i = 0; i < 200; i++)
		objs[i] = (slab_obj)kmem_cache_alloc(&sc, 0);
	int before0 = sc.cpu[0].avail;
	/* Frees go to the array of the CPU that frees (the RCU callback's). */
	for (int i = 0; i < 120; i++)
		kmem_cache_free(&sc, 1, objs[i]);
	ck_assert_int_eq(sc.cpu[1].avail, 120);
	ck_assert_int_eq(sc.cpu[0].avail, before0);
	/* The 121st: cache_flusharray moves the oldest 60 to the shared array. */
	kmem_cache_free(&sc, 1, objs[120]);
	ck_assert_int_eq(sc.shared.avail, 60);
	ck_assert_int_eq(sc.cpu[1].avail, 61);
	ck_assert_uint_eq(sc.shared.entry[0], objs[0]);
	ck_assert_uint_eq(sc.cpu[1].entry[0], objs[60]);
	slab_cache_fini(&sc);
}
END_TEST

START_TEST(slab_free_block_destroys_above_free_limit)
{
	/* 1 CPU, no shared array, limit 2, batch 1: free_limit = 2 x 1 + 4 = 6.
	 * 64-byte slabs of 16-byte objects: 4 per slab. */
	slab_cfg c = { .obj_size = 16, .page_size = 64, .ncpus = 1, .limit = 2, .batchcount = 1 };
	slab_cache sc;
	ctor_calls = ctor_objs = dtor_objs = 0;
	ck_assert_int_eq(slab_cache_init(&sc, &c, ctor, dtor, NULL), 0);
	ck_assert_int_eq(sc.num, 4);
	ck_assert_int_eq(sc.free_limit, 6);
	slab_obj o[12];
	for (int i = 0; i < 12; i++)
		o[i] = (slab_obj)kmem_cache_alloc(&sc, 0);
	ck_assert_int_eq(sc.nslabs, 3);
	ck_assert_int_eq(sc.free_objects, 0);
	/* Free in allocation order: the array holds 2, each further free
	 * flushes the oldest one to its slab. */
	for (int i = 0; i < 12; i++)
		kmem_cache_free(&sc, 0, o[i]);
	ck_assert_int_eq(sc.cpu[0].avail, 2);
	/* 10 objects went back: slab 0 emptied at 4 free (kept: 4 <= 6), slab
	 * 1 at 8 free (> 6: destroyed, 4 left), the third has 2 back. */
	ck_assert_int_eq(sc.destroyed, 1);
	ck_assert_int_eq(dtor_objs, 4);
	ck_assert_int_eq(sc.nslabs, 2);
	ck_assert_int_eq(sc.free_objects, 6);
	/* Nothing is handed out: the third slab's 4 slots (2 free in it, 2
	 * cached) are all pinned; the empty slab 0 pins nothing. */
	ck_assert_int_eq(slab_pinned_free(&sc), 4);
	ck_assert_int_eq(slab_total_slots(&sc), 8);
	slab_cache_fini(&sc);
}
END_TEST

START_TEST(slab_slots_stay_at_the_high_water_mark)
{
	/* What makes 2.6.15's slot count of nr_files a high-water mark: the
	 * cache grows only when no free object is left, and a slab is given
	 * back only when all its objects are free and the cache holds more
	 * than free_limit free ones. 4 objects per slab, free_limit 6. */
	slab_cfg c = { .obj_size = 16, .page_size = 64, .ncpus = 1, .limit = 2, .batchcount = 1 };
	slab_cache sc;
	ctor_calls = ctor_objs = dtor_objs = 0;
	ck_assert_int_eq(slab_cache_init(&sc, &c, ctor, dtor, NULL), 0);
	slab_obj o[12];
	for (int i = 0; i < 12; i++)
		o[i] = (slab_obj)kmem_cache_alloc(&sc, 0);
	ck_assert_int_eq(sc.nslabs, 3);
	ck_assert_int_eq(ctor_objs, 12);
	ck_assert_int_eq(slab_pinned_free(&sc), 0);
	/* Free all but one object of each slab: 9 frees, 2 kept in the array,
	 * 7 back in their slabs - more than free_limit, but no slab is empty,
	 * so every slot stays (and stays counted). */
	for (int i = 0; i < 12; i++)
		if (i % 4)
			kmem_cache_free(&sc, 0, o[i]);
	ck_assert_int_eq(sc.cpu[0].avail, 2);
	ck_assert_int_eq(sc.free_objects, 7);
	ck_assert_int_gt(sc.free_objects, sc.free_limit);
	ck_assert_int_eq(sc.destroyed, 0);
	ck_assert_int_eq(dtor_objs, 0);
	ck_assert_int_eq(sc.nslabs, 3);
	ck_assert_int_eq(slab_pinned_free(&sc), 9); /* 12 slots, 3 handed out */
	/* 9 allocations find the 9 free objects: no growth. */
	for (int i = 0; i < 12; i++)
		if (i % 4)
			o[i] = (slab_obj)kmem_cache_alloc(&sc, 0);
	ck_assert_int_eq(sc.nslabs, 3);
	ck_assert_int_eq(ctor_calls, 3);
	ck_assert_int_eq(sc.free_objects, 0);
	ck_assert_int_eq(sc.cpu[0].avail, 0);
	ck_assert_int_eq(slab_pinned_free(&sc), 0);
	/* The 13th allocation finds nothing free: now it grows. */
	kmem_cache_alloc(&sc, 0);
	ck_assert_int_eq(sc.nslabs, 4);
	ck_assert_int_eq(ctor_calls, 4);
	ck_assert_int_eq(slab_pinned_free(&sc), 3); /* the new slab's other 3 */
	slab_cache_fini(&sc);
}
END_TEST

START_TEST(slab_reap_drains_and_bounds_tofree)
{
	slab_cache sc;
	slab_cfg c = filp(1);
	c.shared_factor = 0;
	ctor_calls = ctor_objs = dtor_objs = 0;
	slab_cache_init(&sc, &c, ctor, dtor, NULL);
	slab_obj o[100];
	for (int i = 0; i < 100; i++)
		o[i] = (slab_obj)kmem_cache_alloc(&sc, 0);
	for (int i = 0; i < 100; i++)
		kmem_cache_free(&sc, 0, o[i]);
	int avail = sc.cpu[0].avail;
	ck_assert(sc.cpu[0].touched);
	cache_reap(&sc, 0, false); /* touched: only clears the flag */
	ck_assert_int_eq(sc.cpu[0].avail, avail);
	ck_assert(!sc.cpu[0].touched);
	cache_reap(&sc, 0, false); /* untouched: (120 + 4) / 5 = 24 go back */
	ck_assert_int_eq(sc.cpu[0].avail, avail - 24);
	/* Node reap: free_touched was set by refills, so the first clears it,
	 * the next destroys free slabs, at most tofree = (91 + 154) / 155 = 1 here. */
	ck_assert_int_eq(sc.free_limit, 2 * 60 + 31);
	int64_t slabs = sc.nslabs;
	cache_reap(&sc, 0, true);
	ck_assert_int_eq(sc.nslabs, slabs);
	ck_assert(!sc.free_touched);
	while (sc.cpu[0].avail) /* drain the array into the slabs */
		cache_reap(&sc, 0, false);
	slabs = sc.nslabs;
	cache_reap(&sc, 0, true);
	ck_assert_int_eq(sc.nslabs, slabs - 1);
	ck_assert_int_eq(dtor_objs, 31 * (int)(sc.destroyed));
	slab_cache_fini(&sc);
}
END_TEST

/* The fragmentation count against one made from scratch: random
 * allocations and frees on 3 CPUs with reaps, and after each step the
 * slots of every slab still holding anything (inuse > 0) less the objects
 * the test holds must be what slab_pinned_free() says, as must the slot
 * total and the objects handed out. */
START_TEST(slab_pinned_free_matches_a_count_from_scratch)
{
	slab_cfg c = filp(3);
	c.limit = 8;
	c.batchcount = 3;
	c.shared_factor = 2;
	slab_cache sc;
	ck_assert_int_eq(slab_cache_init(&sc, &c, NULL, NULL, NULL), 0);
	enum { MAXOUT = 600 };
	slab_obj held[MAXOUT];
	int nheld = 0;
	uint64_t x = 12345;
	for (int step = 0; step < 20000; step++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		int r = (int)((x >> 33) % 100), cpu = (int)((x >> 20) % 3);
		/* Phases of growth and of shrinking, so slabs empty and go. */
		bool grow = (step / 2000) % 2 == 0;
		if (r < 3) {
			cache_reap(&sc, cpu, r == 0);
		} else if (nheld < MAXOUT && (nheld == 0 || r < (grow ? 65 : 35))) {
			int64_t o = kmem_cache_alloc(&sc, cpu);
			ck_assert_int_ge(o, 0);
			held[nheld++] = (slab_obj)o;
		} else if (nheld) {
			int i = (int)((x >> 40) % (uint64_t)nheld);
			kmem_cache_free(&sc, cpu, held[i]);
			held[i] = held[--nheld];
		}
		int64_t pinned = 0, slots = 0;
		for (int32_t id = 0; id < sc.nslab_ids; id++) {
			if (sc.inuse[id] >= 0)
				slots += sc.num;
			if (sc.inuse[id] > 0)
				pinned += sc.num;
		}
		bool in_used_slabs = true; /* (one check a step: ck_assert is slow) */
		for (int i = 0; i < nheld; i++) {
			in_used_slabs &= sc.inuse[slab_of(&sc, held[i])] > 0;
			pinned--;
		}
		ck_assert(in_used_slabs);
		ck_assert_int_eq(slab_pinned_free(&sc), pinned);
		ck_assert_int_eq(slab_total_slots(&sc), slots);
		ck_assert_int_eq(sc.out, nheld);
	}
	/* The phases did what they are for: slabs emptied and were destroyed
	 * (44 with this generator), and the cache grew past 15 slabs (19 here;
	 * 600 objects held would fill 20 of 31). */
	ck_assert_int_gt((int64_t)sc.destroyed, 10);
	ck_assert_int_gt(sc.nslabs_max, 15);
	slab_cache_fini(&sc);
}
END_TEST

START_TEST(vfs_three_accountings)
{
	slab_cfg c = filp(1);
	vfs v[3];
	for (int a = 0; a < 3; a++)
		ck_assert_int_eq(vfs_init(&v[a], (vfs_accounting)a, 1000, &c, 2), 0);
	slab_obj o[3][3];
	for (int a = 0; a < 3; a++)
		for (int i = 0; i < 3; i++)
			ck_assert_int_eq(vfs_get_empty_filp(&v[a], 0, 10, &o[a][i]), 0);
	/* slab: one slab grown, 31 objects counted; rcu: 3; percpu (batch 2):
	 * +1 (delta 1), +1 (2: folds), +1 (delta 1) -> reads 2, sums to 3. */
	ck_assert_int_eq(vfs_nr_files(&v[VFS_ACCT_SLAB]), 31);
	ck_assert_int_eq(vfs_nr_files(&v[VFS_ACCT_RCU]), 3);
	ck_assert_int_eq(vfs_nr_files(&v[VFS_ACCT_PERCPU]), 2);
	ck_assert_int_eq(vfs_nr_files_exact(&v[VFS_ACCT_PERCPU]), 3);
	/* close: file_free before call_rcu. */
	for (int a = 0; a < 3; a++)
		vfs_file_free(&v[a], 0);
	ck_assert_int_eq(vfs_nr_files(&v[VFS_ACCT_SLAB]), 31);
	ck_assert_int_eq(vfs_nr_files(&v[VFS_ACCT_RCU]), 3);         /* until the callback */
	ck_assert_int_eq(vfs_nr_files_exact(&v[VFS_ACCT_PERCPU]), 2); /* at once */
	/* the RCU callback: kmem_cache_free. */
	for (int a = 0; a < 3; a++)
		vfs_file_free_rcu(&v[a], 0, o[a][0]);
	ck_assert_int_eq(vfs_nr_files(&v[VFS_ACCT_SLAB]), 31); /* the slab stays */
	ck_assert_int_eq(vfs_nr_files(&v[VFS_ACCT_RCU]), 2);
	ck_assert_int_eq(vfs_nr_files_exact(&v[VFS_ACCT_PERCPU]), 2);
	for (int a = 0; a < 3; a++) {
		ck_assert_int_eq(v[a].live, 2);
		ck_assert_int_eq(v[a].pending, 0);
		vfs_fini(&v[a]);
	}
	ck_assert_int_eq(vfs_default_max_files(INT64_C(16) << 30, 8192), 1677721);
	ck_assert_int_eq(vfs_default_max_files(INT64_C(64) << 20, 4096), 8192);
}
END_TEST

START_TEST(vfs_file_max)
{
	slab_cfg c = filp(2);
	vfs v;
	slab_obj o;
	/* rcu accounting, file-max 3: the fourth is refused, the time kept. */
	vfs_init(&v, VFS_ACCT_RCU, 3, &c, 4);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(vfs_get_empty_filp(&v, 0, 100 + i, &o), 0);
	ck_assert_int_eq(vfs_get_empty_filp(&v, 1, 200, &o), 1);
	ck_assert_int_eq(vfs_get_empty_filp(&v, 1, 300, &o), 1);
	ck_assert_uint_eq(v.refused, 2);
	ck_assert_int_eq(v.first_refusal, 200);
	vfs_fini(&v);
	/* percpu, FBC_BATCH 100: the approximate count stays 0, so the check
	 * never looks closer and the limit is exceeded, as in 2.6.16. */
	vfs_init(&v, VFS_ACCT_PERCPU, 3, &c, 100);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(vfs_get_empty_filp(&v, i % 2, 100, &o), 0);
	ck_assert_int_eq(vfs_nr_files(&v), 0);
	ck_assert_int_eq(vfs_nr_files_exact(&v), 5);
	vfs_fini(&v);
	/* percpu, FBC_BATCH 2 on 2 CPUs: reads 2 (>= max 2) but sums to 2 or 3... */
	vfs_init(&v, VFS_ACCT_PERCPU, 2, &c, 2);
	ck_assert_int_eq(vfs_get_empty_filp(&v, 0, 1, &o), 0); /* cpu0 delta 1 */
	ck_assert_int_eq(vfs_get_empty_filp(&v, 1, 1, &o), 0); /* cpu1 delta 1 */
	ck_assert_int_eq(vfs_get_empty_filp(&v, 0, 1, &o), 0); /* cpu0 folds: count 2 */
	ck_assert_int_eq(vfs_nr_files(&v), 2);
	/* ...reads 2 >= 2, and the exact sum 3 >= 2: refused. */
	ck_assert_int_eq(vfs_get_empty_filp(&v, 1, 5, &o), 1);
	vfs_fini(&v);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("slab");
	TCase *tc = tcase_create("slab");
	tcase_add_test(tc, slab_geometry);
	tcase_add_test(tc, slab_grow_runs_ctor_and_refill_sizes);
	tcase_add_test(tc, slab_free_to_callers_array_and_shared);
	tcase_add_test(tc, slab_free_block_destroys_above_free_limit);
	tcase_add_test(tc, slab_slots_stay_at_the_high_water_mark);
	tcase_add_test(tc, slab_reap_drains_and_bounds_tofree);
	tcase_add_test(tc, slab_pinned_free_matches_a_count_from_scratch);
	tcase_add_test(tc, vfs_three_accountings);
	tcase_add_test(tc, vfs_file_max);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
