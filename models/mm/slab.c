/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * slab.c - the filp cache, after mm/slab.c of 2.6.14: cache_estimate,
 * enable_cpucache, ____cache_alloc / cache_alloc_refill (BATCHREFILL_LIMIT
 * 16 when the array was not touched), cache_grow, __cache_free /
 * cache_flusharray, free_block, drain_array_locked and cache_reap.
 * One node (UltraSPARC T1 is not NUMA); no alien caches; colouring and the
 * debug paths are left out.
 */
#include "mm/slab.h"
#include "error.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define BATCHREFILL_LIMIT 16
enum { L_FULL, L_PARTIAL, L_FREE };

int slab_estimate(const slab_cfg *cfg)
{
	int64_t n = (cfg->page_size - cfg->mgmt) / (cfg->obj_size + cfg->bufctl);
	return n > 0 ? (int)n : 0;
}

int slab_default_limit(int64_t obj_size, int64_t page_size)
{
	if (obj_size > 131072)
		return 1;
	if (obj_size > page_size)
		return 8;
	if (obj_size > 1024)
		return 24;
	if (obj_size > 256)
		return 54;
	return 120;
}


static void list_del(slab_cache *sc, int32_t id)
{
	int l = sc->list[id];
	int32_t p = sc->prev[id], n = sc->next[id];
	sc->nlist[l]--;
	if (p >= 0)
		sc->next[p] = n;
	else
		sc->head[l] = n;
	if (n >= 0)
		sc->prev[n] = p;
	else
		sc->tail[l] = p;
}

static void list_add(slab_cache *sc, int l, int32_t id)
{
	sc->nlist[l]++;
	sc->list[id] = (uint8_t)l;
	sc->prev[id] = -1;
	sc->next[id] = sc->head[l];
	if (sc->head[l] >= 0)
		sc->prev[sc->head[l]] = id;
	else
		sc->tail[l] = id;
	sc->head[l] = id;
}

static void list_add_tail(slab_cache *sc, int l, int32_t id)
{
	sc->nlist[l]++;
	sc->list[id] = (uint8_t)l;
	sc->next[id] = -1;
	sc->prev[id] = sc->tail[l];
	if (sc->tail[l] >= 0)
		sc->next[sc->tail[l]] = id;
	else
		sc->head[l] = id;
	sc->tail[l] = id;
}

static int array_init(slab_array *a, int limit)
{
	a->limit = limit;
	a->avail = 0;
	a->touched = false;
	a->entry = limit ? malloc((size_t)limit * sizeof(*a->entry)) : NULL;
	return limit && !a->entry ? -1 : 0;
}

int slab_cache_init(slab_cache *sc, const slab_cfg *cfg, slab_ctor_fn *ctor, slab_ctor_fn *dtor,
		    void *ctx)
{
	memset(sc, 0, sizeof(*sc));
	sc->cfg = *cfg;
	sc->num = slab_estimate(cfg);
	if (sc->num < 1)
		return SIM_EINPUT;
	int limit = cfg->limit ? cfg->limit : slab_default_limit(cfg->obj_size, cfg->page_size);
	sc->batchcount = cfg->batchcount ? cfg->batchcount : (limit + 1) / 2;
	sc->cfg.limit = limit;
	sc->cfg.batchcount = sc->batchcount;
	sc->free_limit = (int64_t)(1 + cfg->ncpus) * sc->batchcount + sc->num;
	sc->ctor = ctor;
	sc->dtor = dtor;
	sc->ctx = ctx;
	for (int l = 0; l < 3; l++)
		sc->head[l] = sc->tail[l] = -1;
	sc->cpu = calloc((size_t)cfg->ncpus, sizeof(*sc->cpu));
	if (!sc->cpu || array_init(&sc->shared, cfg->shared_factor * sc->batchcount))
		return SIM_ENOMEM;
	for (int c = 0; c < cfg->ncpus; c++)
		if (array_init(&sc->cpu[c], limit))
			return SIM_ENOMEM;
	return 0;
}

void slab_cache_fini(slab_cache *sc)
{
	if (sc->cpu)
		for (int c = 0; c < sc->cfg.ncpus; c++)
			free(sc->cpu[c].entry);
	free(sc->cpu);
	free(sc->shared.entry);
	free(sc->inuse);
	free(sc->free_head);
	free(sc->prev);
	free(sc->next);
	free(sc->list);
	free(sc->bufctl);
	free(sc->state);
	free(sc->recycled);
	memset(sc, 0, sizeof(*sc));
}

#define GROW(field, n) \
	do { \
		void *p_ = realloc(sc->field, (size_t)(n) * sizeof(*sc->field)); \
		if (!p_) \
			return SIM_ENOMEM; \
		sc->field = p_; \
	} while (0)

/* Make room for one more slab id; returns it or -1. */
static int32_t new_slab_id(slab_cache *sc)
{
	if (sc->nrecycled)
		return sc->recycled[--sc->nrecycled];
	if (sc->nslab_ids == sc->cap_ids) {
		int32_t cap = sc->cap_ids ? sc->cap_ids * 2 : 64;
		if ((int64_t)cap * sc->num > UINT32_MAX)
			return -1;
		GROW(inuse, cap);
		GROW(free_head, cap);
		GROW(prev, cap);
		GROW(next, cap);
		GROW(list, cap);
		GROW(recycled, cap);
		GROW(bufctl, (int64_t)cap * sc->num);
		if (RCUSIM_CHECKS_ON)
			GROW(state, (int64_t)cap * sc->num);
		sc->cap_ids = cap;
	}
	return sc->nslab_ids++;
}

/* cache_grow(): a new slab on the free list; the constructor runs for every
 * object. */
static int cache_grow(slab_cache *sc)
{
	int32_t id = new_slab_id(sc);
	if (id < 0)
		return SIM_ENOMEM;
	int64_t base = (int64_t)id * sc->num;
	for (int i = 0; i < sc->num; i++)
		sc->bufctl[base + i] = i + 1 < sc->num ? i + 1 : -1;
	if (RCUSIM_CHECKS_ON)
		memset(sc->state + base, SLAB_S_FREE, (size_t)sc->num);
	sc->inuse[id] = 0;
	sc->free_head[id] = 0;
	list_add_tail(sc, L_FREE, id);
	sc->free_objects += sc->num;
	sc->nslabs++;
	if (sc->nslabs > sc->nslabs_max)
		sc->nslabs_max = sc->nslabs;
	sc->grown++;
	if (sc->ctor)
		sc->ctor(sc->ctx, sc->num);
	return 0;
}

/* slab_destroy(): the destructor runs for every object. */
static void slab_destroy(slab_cache *sc, int32_t id)
{
	assert(sc->inuse[id] == 0);
	sc->inuse[id] = -1;
	sc->recycled[sc->nrecycled++] = id;
	sc->nslabs--;
	sc->destroyed++;
	if (sc->dtor)
		sc->dtor(sc->ctx, sc->num);
}

static slab_obj slab_get_obj(slab_cache *sc, int32_t id)
{
	int32_t i = sc->free_head[id];
	assert(i >= 0);
	int64_t o = (int64_t)id * sc->num + i;
	sc->free_head[id] = sc->bufctl[o];
	sc->inuse[id]++;
	if (RCUSIM_CHECKS_ON) {
		RCUSIM_CHECK(sc->state[o] == SLAB_S_FREE, "slab.get_free");
		sc->state[o] = SLAB_S_CACHED;
	}
	return (slab_obj)o;
}

static void slab_put_obj(slab_cache *sc, int32_t id, slab_obj o)
{
	int32_t i = (int32_t)(o - (int64_t)id * sc->num);
	sc->bufctl[o] = sc->free_head[id];
	sc->free_head[id] = i;
	sc->inuse[id]--;
	if (RCUSIM_CHECKS_ON) {
		RCUSIM_CHECK(sc->state[o] == SLAB_S_CACHED, "slab.put_cached");
		sc->state[o] = SLAB_S_FREE;
	}
}

/* free_block(): return @n objects to their slabs. */
static void free_block(slab_cache *sc, const slab_obj *objs, int n)
{
	for (int k = 0; k < n; k++) {
		slab_obj o = objs[k];
		int32_t id = slab_of(sc, o);
		list_del(sc, id);
		slab_put_obj(sc, id, o);
		sc->free_objects++;
		if (sc->inuse[id] == 0) {
			if (sc->free_objects > sc->free_limit) {
				sc->free_objects -= sc->num;
				slab_destroy(sc, id);
			} else {
				list_add(sc, L_FREE, id);
			}
		} else {
			/* To the end of the partial list: the most time for its
			 * other objects to be freed too. */
			list_add_tail(sc, L_PARTIAL, id);
		}
	}
}

int cache_alloc_refill(slab_cache *sc, slab_array *ac)
{
	for (;;) {
		int batch = sc->batchcount;
		if (!ac->touched && batch > BATCHREFILL_LIMIT)
			batch = BATCHREFILL_LIMIT;
		slab_array *sh = &sc->shared;
		if (sh->avail) {
			if (batch > sh->avail)
				batch = sh->avail;
			sh->avail -= batch;
			memcpy(ac->entry, sh->entry + sh->avail, (size_t)batch * sizeof(*ac->entry));
			ac->avail = batch;
			sh->touched = true;
			return 0;
		}
		while (batch > 0) {
			int32_t id = sc->head[L_PARTIAL];
			if (id < 0) {
				sc->free_touched = true;
				id = sc->head[L_FREE];
				if (id < 0)
					break;
			}
			while (sc->inuse[id] < sc->num && batch-- > 0)
				ac->entry[ac->avail++] = slab_get_obj(sc, id);
			list_del(sc, id);
			list_add(sc, sc->free_head[id] < 0 ? L_FULL : L_PARTIAL, id);
		}
		sc->free_objects -= ac->avail;
		if (ac->avail)
			return 0;
		if (cache_grow(sc))
			return SIM_ENOMEM;
	}
}


/* cache_flusharray(): the oldest batchcount objects of @ac go to the shared
 * array if it has room, else back to their slabs. */
void cache_flusharray(slab_cache *sc, slab_array *ac)
{
	int batch = sc->batchcount;
	slab_array *sh = &sc->shared;
	int room = sh->limit - sh->avail;
	if (room) {
		if (batch > room)
			batch = room;
		memcpy(sh->entry + sh->avail, ac->entry, (size_t)batch * sizeof(*ac->entry));
		sh->avail += batch;
	} else {
		free_block(sc, ac->entry, batch);
	}
	ac->avail -= batch;
	memmove(ac->entry, ac->entry + batch, (size_t)ac->avail * sizeof(*ac->entry));
}

/* drain_array_locked(@force = 0). */
static void drain_array(slab_cache *sc, slab_array *ac)
{
	if (ac->touched) {
		ac->touched = false;
		return;
	}
	if (!ac->avail)
		return;
	int tofree = (ac->limit + 4) / 5;
	if (tofree > ac->avail)
		tofree = (ac->avail + 1) / 2;
	free_block(sc, ac->entry, tofree);
	ac->avail -= tofree;
	memmove(ac->entry, ac->entry + tofree, (size_t)ac->avail * sizeof(*ac->entry));
}

void cache_reap(slab_cache *sc, int cpu, bool node_due)
{
	drain_array(sc, &sc->cpu[cpu]);
	if (!node_due)
		return;
	if (sc->shared.limit)
		drain_array(sc, &sc->shared);
	if (sc->free_touched) {
		sc->free_touched = false;
		return;
	}
	int64_t tofree = (sc->free_limit + 5 * sc->num - 1) / (5 * sc->num);
	do {
		int32_t id = sc->head[L_FREE];
		if (id < 0)
			break;
		list_del(sc, id);
		sc->free_objects -= sc->num;
		slab_destroy(sc, id);
	} while (--tofree > 0);
}

int64_t slab_pinned_free(const slab_cache *sc)
{
	/* The slabs holding anything are those on the full and partial
	 * lists, and every object handed out is in one of them. */
	return (sc->nlist[L_FULL] + sc->nlist[L_PARTIAL]) * sc->num - sc->out;
}

int64_t slab_total_slots(const slab_cache *sc)
{
	return sc->nslabs * sc->num;
}

int64_t slab_cached(const slab_cache *sc)
{
	int64_t n = sc->shared.avail;
	for (int c = 0; c < sc->cfg.ncpus; c++)
		n += sc->cpu[c].avail;
	return n;
}
