/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * engine.c - pending-event set and run loop.
 *
 * The pending set is an implicit d-ary min-heap (d = SIM_HEAP_ARITY, 4 by
 * default: see bench/README.md for the arity benchmark) of 16-byte entries
 * {time, key}, key = sequence << 24 | timer id. Comparing (time, key) orders
 * by (time, sequence) because sequences are unique. The heap is offset so
 * that each group of d children shares one 64-byte cache line.
 *
 * Cancellation is lazy: a cancelled or re-armed timer leaves its old entry in
 * the heap, recognised as stale on pop because the timer's key no longer
 * matches. When stale entries outnumber live ones the heap is compacted in
 * O(n). This keeps push and pop free of position bookkeeping.
 *
 * Limits: 2^24 live timers, 2^40 armings per run (about 3 hours at 10^8
 * armings per second); past either a call returns SIM_ELIMIT.
 */
#include "engine.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#ifndef SIM_HEAP_ARITY
#define SIM_HEAP_ARITY 4
#endif
#define D SIM_HEAP_ARITY

#define ID_BITS 24
#define ID_MASK ((UINT64_C(1) << ID_BITS) - 1)
#define SEQ_LIMIT (UINT64_C(1) << (64 - ID_BITS))
#define COMPACT_MIN 1024 /* entries: below this, stale entries are left alone */

typedef struct heap_ent {
	sim_time time; /* ns: when the entry fires */
	uint64_t key;  /* sequence << ID_BITS | timer id */
} heap_ent;

struct sim_engine {
	heap_ent *base;      /* allocation backing the heap (64-byte aligned) */
	heap_ent *h;         /* heap root, base + (D - 1) */
	size_t n;            /* entries in the heap, stale included */
	size_t cap;          /* entries the heap can hold */
	size_t stale;        /* entries whose timer was cancelled or re-armed */

	sim_timer **timers;  /* timer table, indexed by id; NULL = free slot */
	uint32_t ntimers;    /* slots in use or freed (high-water mark) */
	uint32_t timers_cap; /* slots allocated */
	uint32_t *free_ids;  /* freed ids, reused last-in first-out */
	uint32_t nfree;      /* entries in free_ids */

	uint64_t seq;        /* last sequence number handed out */
	sim_time now;        /* ns: current simulated time */
	uint64_t events;     /* events dispatched */
	int stop;            /* non-zero: leave the run loop (SIM_ESTOPPED or an error) */
	const volatile sig_atomic_t *watch; /* external stop flag, or NULL */
};

static inline bool ent_less(heap_ent a, heap_ent b)
{
	return a.time < b.time || (a.time == b.time && a.key < b.key);
}

int sim_engine_create(sim_engine **out)
{
	sim_engine *eng = calloc(1, sizeof(*eng));
	if (!eng)
		return SIM_ENOMEM;
	*out = eng;
	return SIM_OK;
}

void sim_engine_destroy(sim_engine *eng)
{
	if (!eng)
		return;
	free(eng->base);
	free(eng->timers);
	free(eng->free_ids);
	free(eng);
}

sim_time sim_now(const sim_engine *eng)
{
	return eng->now;
}

uint64_t sim_events(const sim_engine *eng)
{
	return eng->events;
}

uint64_t sim_pending(const sim_engine *eng)
{
	return eng->n - eng->stale;
}

void sim_engine_stop(sim_engine *eng)
{
	if (!eng->stop)
		eng->stop = SIM_ESTOPPED;
}

void sim_engine_fail(sim_engine *eng, int err)
{
	assert(err < 0);
	eng->stop = err;
}

void sim_engine_watch(sim_engine *eng, const volatile sig_atomic_t *flag)
{
	eng->watch = flag;
}

/* Grow the heap to hold at least one more entry. */
static int heap_grow(sim_engine *eng)
{
	size_t cap = eng->cap ? eng->cap * 2 : 256;
	size_t bytes = (cap + D) * sizeof(heap_ent);
	bytes = (bytes + 63) & ~(size_t)63;
	heap_ent *nb = aligned_alloc(64, bytes);
	if (!nb)
		return SIM_ENOMEM;
	if (eng->n)
		memcpy(nb + (D - 1), eng->h, eng->n * sizeof(heap_ent));
	free(eng->base);
	eng->base = nb;
	eng->h = nb + (D - 1);
	eng->cap = cap;
	return SIM_OK;
}

/* Move the hole at @i down until @e fits, and put @e there. */
static inline void sift_down(heap_ent *h, size_t n, size_t i, heap_ent e)
{
	for (;;) {
		size_t c = D * i + 1;
		if (c >= n)
			break;
		size_t end = c + D < n ? c + D : n;
		size_t m = c;
		for (size_t j = c + 1; j < end; j++)
			if (ent_less(h[j], h[m]))
				m = j;
		if (!ent_less(h[m], e))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = e;
}

static inline void sift_up(heap_ent *h, size_t i, heap_ent e)
{
	while (i > 0) {
		size_t p = (i - 1) / D;
		if (!ent_less(e, h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

/* Drop stale entries and rebuild the heap bottom-up: O(n). */
static void heap_compact(sim_engine *eng)
{
	size_t k = 0;
	for (size_t i = 0; i < eng->n; i++) {
		heap_ent e = eng->h[i];
		sim_timer *t = eng->timers[e.key & ID_MASK];
		if (t && t->key == e.key)
			eng->h[k++] = e;
	}
	eng->n = k;
	eng->stale = 0;
	if (k < 2)
		return;
	for (size_t i = (k - 2) / D + 1; i-- > 0;)
		sift_down(eng->h, k, i, eng->h[i]);
}

/* One more entry became stale; compact if they dominate. */
static inline void note_stale(sim_engine *eng)
{
	eng->stale++;
	if (eng->stale * 2 > eng->n && eng->n >= COMPACT_MIN)
		heap_compact(eng);
}

int sim_timer_init(sim_engine *eng, sim_timer *t, sim_handler *fn, void *ctx)
{
	uint32_t id;
	if (eng->nfree) {
		id = eng->free_ids[--eng->nfree];
	} else {
		if (eng->ntimers >= ID_MASK)
			return SIM_ELIMIT;
		if (eng->ntimers == eng->timers_cap) {
			uint32_t cap = eng->timers_cap ? eng->timers_cap * 2 : 64;
			sim_timer **nt = realloc(eng->timers, cap * sizeof(*nt));
			if (!nt)
				return SIM_ENOMEM;
			uint32_t *nf = realloc(eng->free_ids, cap * sizeof(*nf));
			if (!nf) {
				eng->timers = nt;
				return SIM_ENOMEM;
			}
			eng->timers = nt;
			eng->free_ids = nf;
			eng->timers_cap = cap;
		}
		id = eng->ntimers++;
	}
	eng->timers[id] = t;
	t->fn = fn;
	t->ctx = ctx;
	t->when = 0;
	t->key = 0;
	t->id = id;
	return SIM_OK;
}

void sim_timer_fini(sim_engine *eng, sim_timer *t)
{
	assert(eng->timers[t->id] == t);
	sim_timer_cancel(eng, t);
	eng->timers[t->id] = NULL;
	eng->free_ids[eng->nfree++] = t->id;
}

int sim_timer_at(sim_engine *eng, sim_timer *t, sim_time when)
{
	assert(eng->timers[t->id] == t);
	assert(when >= eng->now);
	if (eng->seq + 1 >= SEQ_LIMIT)
		return SIM_ELIMIT;
	if (eng->n == eng->cap && heap_grow(eng))
		return SIM_ENOMEM;
	if (t->key) {
		t->key = 0; /* so that a compaction drops the old entry */
		note_stale(eng);
	}
	heap_ent e = { when, (++eng->seq << ID_BITS) | t->id };
	t->when = when;
	t->key = e.key;
	sift_up(eng->h, eng->n++, e);
	return SIM_OK;
}

int sim_timer_after(sim_engine *eng, sim_timer *t, sim_time delay_ns)
{
	assert(delay_ns >= 0);
	sim_time when = delay_ns > SIM_TIME_MAX - eng->now ? SIM_TIME_MAX
							    : eng->now + delay_ns;
	return sim_timer_at(eng, t, when);
}

void sim_timer_cancel(sim_engine *eng, sim_timer *t)
{
	if (!t->key)
		return;
	t->key = 0;
	note_stale(eng);
}

int sim_engine_run(sim_engine *eng, sim_time end)
{
	heap_ent *h;
	eng->stop = 0;
	while (eng->n) {
		if (eng->stop || (eng->watch && *eng->watch))
			break;
		h = eng->h;
		heap_ent top = h[0];
		if (top.time > end)
			break;
		size_t n = --eng->n;
		if (n)
			sift_down(h, n, 0, h[n]);
		sim_timer *t = eng->timers[top.key & ID_MASK];
		if (!t || t->key != top.key) {
			eng->stale--;
			continue;
		}
		t->key = 0;
		eng->now = top.time;
		eng->events++;
		t->fn(eng, t);
	}
	if (!eng->stop && eng->watch && *eng->watch)
		eng->stop = SIM_ESTOPPED;
	if (eng->stop)
		return eng->stop;
	if (end != SIM_TIME_MAX && eng->now < end)
		eng->now = end;
	return SIM_OK;
}
