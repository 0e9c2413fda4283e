/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * slab.h - the filp cache of the SLAB allocator (mm/slab.c, 2.6.14; 2.6.16
 * differs only by renames): slabs of num objects on full/partial/free lists,
 * per-CPU array caches (LIFO, touched), a shared per-node array,
 * cache_alloc_refill, cache_grow (constructor on every object),
 * cache_flusharray and free_block (a slab that empties is destroyed at once
 * above free_limit), and cache_reap. One node. Pure data structure: the
 * callers (fs/file_table.c, fs/files.c) decide when each function runs.
 *
 * Objects are numbered: slab id x num + index in the slab. The
 * fragmentation metric needs only how many objects are handed out and how
 * many slabs hold any (every handed-out object is in one): both are counts,
 * so a free touches nothing of its slab's that the allocator does not. With
 * RCUSIM_CHECKS, each object's state (free in its slab, cached in an array,
 * or handed out) is kept too, and a double free or a free of an object never
 * handed out is caught where it happens.
 */
#ifndef RCUSIM_MODELS_SLAB_H
#define RCUSIM_MODELS_SLAB_H

#include <stdbool.h>
#include <stdint.h>

#include "checks.h"

typedef uint32_t slab_obj; /* object number */

enum slab_obj_state { SLAB_S_FREE, SLAB_S_CACHED, SLAB_S_OUT };

typedef struct slab_cfg {
	int64_t obj_size;    /* bytes per object (after alignment) */
	int64_t page_size;   /* bytes per slab (one page) */
	int64_t mgmt;        /* on-slab descriptor bytes */
	int64_t bufctl;      /* bytes per object in the descriptor */
	int ncpus;           /* CPUs */
	int limit;           /* per-CPU array limit (0: by object size) */
	int batchcount;      /* refill/flush batch (0: (limit + 1) / 2) */
	int shared_factor;   /* shared array = this x batchcount (0: none) */
} slab_cfg;

typedef struct slab_array {
	slab_obj *entry;     /* objects, oldest first */
	int avail;           /* held */
	int limit;           /* capacity */
	bool touched;        /* used since the last reap */
} slab_array;

typedef struct slab_cache slab_cache;

/* Callbacks for nr_files under slab accounting (filp_ctor, filp_dtor). */
typedef void slab_ctor_fn(void *ctx, int nobjs);

struct slab_cache {
	slab_cfg cfg;        /* parameters, with limit and batchcount resolved */
	int num;             /* objects per slab */
	int batchcount;      /* resolved batchcount */
	int64_t free_limit;  /* (1 + CPUs) x batchcount + num */
	slab_array *cpu;     /* per-CPU arrays */
	slab_array shared;   /* per-node shared array (limit 0 if none) */
	/* slabs, by id */
	int32_t nslab_ids;   /* ids allocated (live or recycled) */
	int32_t cap_ids;     /* capacity of the per-id arrays */
	int32_t *inuse;      /* objects handed out of the slab, per slab; -1 = destroyed */
	int32_t *free_head;  /* first free object index in the slab, -1 none */
	int32_t *prev, *next; /* list links; list heads are ids -1 (full), -2, -3 */
	uint8_t *list;       /* which list: 0 full, 1 partial, 2 free */
	int32_t *bufctl;     /* per object: next free index in its slab */
	uint8_t *state;      /* per object: slab_obj_state (RCUSIM_CHECKS only, else NULL) */
	int32_t *recycled;   /* destroyed slab ids to reuse */
	int32_t nrecycled;
	int32_t head[3], tail[3]; /* list heads/tails (-1 = empty) */
	int64_t free_objects; /* free slots in partial and free slabs */
	int64_t nlist[3];    /* slabs on each list */
	int64_t out;         /* objects handed out (allocated, not yet freed) */
	bool free_touched;   /* the free list was used since the last reap */
	int64_t nslabs;      /* slabs that exist */
	int64_t nslabs_max;  /* most at once */
	uint64_t grown, destroyed; /* slabs created, destroyed */
	slab_ctor_fn *ctor, *dtor; /* per-slab constructor and destructor calls */
	void *ctx;           /* their argument */
};

/* Objects per slab for @cfg (cache_estimate, descriptor on the slab). */
int slab_estimate(const slab_cfg *cfg);
/* Per-CPU array limit from the object size (enable_cpucache). */
int slab_default_limit(int64_t obj_size, int64_t page_size);

int slab_cache_init(slab_cache *sc, const slab_cfg *cfg, slab_ctor_fn *ctor, slab_ctor_fn *dtor,
		    void *ctx);
void slab_cache_fini(slab_cache *sc);

/* The slab of object @o. */
static inline int32_t slab_of(const slab_cache *sc, slab_obj o)
{
	return (int32_t)(o / (uint32_t)sc->num);
}
/* cache_alloc_refill() of the empty array @ac. Returns 0 (ac->avail > 0) or
 * -1. */
int cache_alloc_refill(slab_cache *sc, slab_array *ac);
/* kmem_cache_alloc() on @cpu: the object, handed out, or -1 on allocation
 * failure of the model itself (never a kernel outcome). Inline (once per
 * open); the refill is not. */
static inline int64_t kmem_cache_alloc(slab_cache *sc, int cpu)
{
	slab_array *ac = &sc->cpu[cpu];
	if (!ac->avail && cache_alloc_refill(sc, ac))
		return -1;
	ac->touched = true;
	slab_obj o = ac->entry[--ac->avail];
	sc->out++;
	if (RCUSIM_CHECKS_ON) {
		RCUSIM_CHECK(sc->state[o] == SLAB_S_CACHED, "slab.alloc_cached");
		sc->state[o] = SLAB_S_OUT;
	}
	return o;
}
/* cache_flusharray() of @cpu's full array @ac. */
void cache_flusharray(slab_cache *sc, slab_array *ac);
/* kmem_cache_free() on @cpu of an object handed out. Inline (once per
 * callback); the flush is not. Returns 0. */
static inline int kmem_cache_free(slab_cache *sc, int cpu, slab_obj o)
{
	slab_array *ac = &sc->cpu[cpu];
	sc->out--;
	if (RCUSIM_CHECKS_ON) {
		RCUSIM_CHECK(sc->state[o] == SLAB_S_OUT, "slab.free_handed_out");
		sc->state[o] = SLAB_S_CACHED;
	}
	if (ac->avail >= ac->limit)
		cache_flusharray(sc, ac);
	ac->entry[ac->avail++] = o;
	return 0;
}
/* cache_reap() on @cpu; @node_due says REAPTIMEOUT_LIST3 has passed, so the
 * shared array and the free slabs are reaped too. */
void cache_reap(slab_cache *sc, int cpu, bool node_due);

/* Slots in slabs that hold something but not an object handed out (a live
 * file, or one waiting for its grace period): free in the slab, or cached
 * in an array. The fragmentation. */
int64_t slab_pinned_free(const slab_cache *sc);
int64_t slab_total_slots(const slab_cache *sc);
/* Objects cached in all arrays. */
int64_t slab_cached(const slab_cache *sc);

#endif
