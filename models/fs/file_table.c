/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * file_table.c - the file table over the filp slab. nr_files three ways:
 *  slab   (2.6.14-2.6.15): filp_ctor adds one per object of every new slab,
 *         filp_dtor takes one per object of every destroyed slab: nr_files
 *         counts every slot of every filp slab;
 *  rcu    : one per allocation, minus one in the RCU callback: live files
 *         plus those waiting for a grace period;
 *  percpu (2.6.16, "fix file counting"): a percpu_counter incremented in
 *         get_empty_filp and decremented in file_free before call_rcu: live
 *         files only, read approximately (per-CPU deltas fold in at
 *         FBC_BATCH) and summed exactly before refusing.
 * Root's exemption from file-max is left out: the jobs are not root.
 */
#include "fs/file_table.h"

#include <stdlib.h>
#include <string.h>

int64_t vfs_default_max_files(int64_t memory, int64_t page_size)
{
	int64_t pages = memory / page_size;
	int64_t n = pages * (page_size / 1024) / 10;
	return n < 8192 ? 8192 : n;
}

static void on_ctor(void *ctx, int nobjs)
{
	((vfs *)ctx)->nr_slab += nobjs;
}

static void on_dtor(void *ctx, int nobjs)
{
	((vfs *)ctx)->nr_slab -= nobjs;
}

int vfs_init(vfs *v, vfs_accounting acct, int64_t max_files, const slab_cfg *slab,
	     int64_t percpu_batch)
{
	memset(v, 0, sizeof(*v));
	v->acct = acct;
	v->max_files = max_files;
	v->ncpus = slab->ncpus;
	v->pc_batch = percpu_batch;
	v->first_refusal = -1;
	v->last_refusal = -1;
	v->pc_cpu = calloc((size_t)slab->ncpus, sizeof(*v->pc_cpu));
	if (!v->pc_cpu)
		return SIM_ENOMEM;
	return slab_cache_init(&v->filp, slab, on_ctor, on_dtor, v);
}

void vfs_fini(vfs *v)
{
	slab_cache_fini(&v->filp);
	free(v->pc_cpu);
	v->pc_cpu = NULL;
}

int64_t vfs_nr_files_exact(const vfs *v)
{
	if (v->acct != VFS_ACCT_PERCPU)
		return vfs_nr_files(v);
	int64_t n = v->pc_count;
	for (int c = 0; c < v->ncpus; c++)
		n += v->pc_cpu[c];
	return n;
}

bool vfs_refuse(vfs *v, sim_time now)
{
	if (v->acct == VFS_ACCT_PERCPU && vfs_nr_files_exact(v) < v->max_files)
		return false;
	v->refused++;
	if (v->first_refusal < 0)
		v->first_refusal = now;
	v->last_refusal = now;
	return true;
}
