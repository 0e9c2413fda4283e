/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * file_table.h - the file table (fs/file_table.c, 2.6.15 and 2.6.16): max_files,
 * get_empty_filp with its file-max check, file_free / file_free_rcu, and
 * nr_files under the three accountings, over the filp slab (models/mm/slab.c).
 */
#ifndef RCUSIM_MODELS_VFS_H
#define RCUSIM_MODELS_VFS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "error.h"
#include "mm/slab.h"

typedef enum vfs_accounting { VFS_ACCT_SLAB, VFS_ACCT_RCU, VFS_ACCT_PERCPU } vfs_accounting;

typedef struct vfs {
	vfs_accounting acct;    /* how nr_files is counted */
	int64_t max_files;      /* file-max */
	slab_cache filp;        /* the filp cache */
	int64_t nr_slab;        /* slab accounting: objects of all filp slabs (ctor - dtor) */
	int64_t nr_rcu;         /* rcu accounting: allocated, not yet freed by the callback */
	int64_t pc_count;       /* percpu accounting: the shared count */
	int64_t *pc_cpu;        /* percpu accounting: per-CPU deltas */
	int64_t pc_batch;       /* FBC_BATCH */
	int ncpus;              /* CPUs */
	int64_t live;           /* files allocated and not yet file_free'd */
	int64_t pending;        /* file_free'd, waiting for the RCU callback */
	uint64_t refused;       /* get_empty_filp refusals at file-max */
	sim_time first_refusal; /* ns: first "VFS: file-max limit reached", -1 = never */
	sim_time last_refusal;  /* ns: the last refused open, -1 = never */
	int64_t nr_max;         /* largest nr_files read */
} vfs;

/* files_init(): max_files = pages x (page size / 1024) / 10, at least 8192. */
int64_t vfs_default_max_files(int64_t memory, int64_t page_size);

int vfs_init(vfs *v, vfs_accounting acct, int64_t max_files, const slab_cfg *slab,
	     int64_t percpu_batch);
void vfs_fini(vfs *v);

/* nr_files as the accounting reads it (percpu: the approximate counter,
 * percpu_counter_read_positive). */
static inline int64_t vfs_nr_files(const vfs *v)
{
	switch (v->acct) {
	case VFS_ACCT_SLAB:
		return v->nr_slab;
	case VFS_ACCT_RCU:
		return v->nr_rcu;
	case VFS_ACCT_PERCPU:
		return v->pc_count > 0 ? v->pc_count : 0;
	}
	return 0;
}
/* The exact count (percpu_counter_sum; the others are exact already). */
int64_t vfs_nr_files_exact(const vfs *v);

/* get_empty_filp()'s refusal at file-max at @now, nr_files as read at or
 * above max_files: with percpu accounting the exact sum decides. Returns
 * true (refused, counted) or false (the sum is below file-max). */
bool vfs_refuse(vfs *v, sim_time now);
/* percpu_counter_mod() of 2.6.16 on @cpu. */
static inline void vfs_pc_mod(vfs *v, int cpu, int64_t amount)
{
	int64_t count = v->pc_cpu[cpu] + amount;
	if (count >= v->pc_batch || count <= -v->pc_batch) {
		v->pc_count += count;
		v->pc_cpu[cpu] = 0;
	} else {
		v->pc_cpu[cpu] = count;
	}
}

/* get_empty_filp() on @cpu at @now: 0 and the object in *obj, 1 if refused
 * at file-max (ENFILE), -1 if the model ran out of memory. Inline: once
 * per open attempt. */
static inline int vfs_get_empty_filp(vfs *v, int cpu, sim_time now, slab_obj *obj)
{
	if (__builtin_expect(vfs_nr_files(v) >= v->max_files, 0) && vfs_refuse(v, now))
		return 1;
	int64_t o = kmem_cache_alloc(&v->filp, cpu);
	if (o < 0)
		return SIM_ENOMEM;
	*obj = (slab_obj)o;
	v->live++;
	int64_t nr;
	switch (v->acct) {
	case VFS_ACCT_RCU:
		nr = ++v->nr_rcu;
		break;
	case VFS_ACCT_PERCPU:
		vfs_pc_mod(v, cpu, 1);
		nr = v->pc_count > 0 ? v->pc_count : 0;
		break;
	default:
		nr = v->nr_slab; /* after the allocation: a new slab's objects counted */
		break;
	}
	if (nr > v->nr_max)
		v->nr_max = nr;
	return 0;
}
/* file_free() on @cpu, just before call_rcu(file_free_rcu): the file
 * stops being live and waits for its grace period. */
static inline void vfs_file_free(vfs *v, int cpu)
{
	v->live--;
	v->pending++; /* its object stays handed out until file_free_rcu() */
	if (v->acct == VFS_ACCT_PERCPU)
		vfs_pc_mod(v, cpu, -1);
}
/* file_free_rcu() -> kmem_cache_free() on the CPU running the callback. */
static inline void vfs_file_free_rcu(vfs *v, int cpu, slab_obj obj)
{
	v->pending--;
	kmem_cache_free(&v->filp, cpu, obj);
	if (v->acct == VFS_ACCT_RCU)
		v->nr_rcu--;
}

#endif
