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
int64_t vfs_nr_files(const vfs *v);
/* The exact count (percpu_counter_sum; the others are exact already). */
int64_t vfs_nr_files_exact(const vfs *v);

/* get_empty_filp() on @cpu at @now: 0 and the object in *obj, 1 if refused
 * at file-max (ENFILE), -1 if the model ran out of memory. */
int vfs_get_empty_filp(vfs *v, int cpu, sim_time now, slab_obj *obj);
/* file_free() on @cpu, just before call_rcu(file_free_rcu): the file
 * stops being live and waits for its grace period. */
void vfs_file_free(vfs *v, int cpu);
/* file_free_rcu() -> kmem_cache_free() on the CPU running the callback. */
void vfs_file_free_rcu(vfs *v, int cpu, slab_obj obj);

#endif
