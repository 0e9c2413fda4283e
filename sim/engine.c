/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * engine.c - pending-event set and run loop.
 *
 * Entries are {time, sequence, timer}; sequences are unique, so (time,
 * sequence) is a total order and equal times fire in arming order. The set
 * has three tiers, after the ladder queue (Tang, Goh and Thng, ACM TOMACS
 * 15(3), 2005), with a heap as its bottom:
 *
 *   near   every entry earlier than near_end: a d-ary min-heap (d =
 *          SIM_HEAP_ARITY) and in front of it at most one entry, the
 *          earliest of the tier, kept out of the heap; the only tier that
 *          is ordered;
 *   window buckets of 2^shift ns covering [win_start, win_end), unsorted;
 *          bucket cur is the one loaded into the heap;
 *   far    an unsorted array of entries at or after win_end.
 *
 * Arming appends to a bucket or to far in O(1), or pushes on the heap; an
 * entry earlier than the whole near tier takes the front slot instead (the
 * one it displaces goes on the heap), and the next pop takes it in O(1).
 * That is the usual fate of a timer re-armed a little ahead of everything
 * else, as the kernel model's one tick timer, which on 4096 CPUs fires
 * every microsecond: with other events pending near (a heap of tens of
 * entries) it no longer sifts up to the root and down again each time.
 * When the near tier runs dry the next non-empty bucket is heapified into
 * the heap; when the
 * buckets run out, far is spread over new buckets sized so that each holds
 * about BUCKET_TARGET entries. Every entry thus moves at most three times,
 * and the heap stays small. Where times cluster (one bucket holding most
 * entries) this degrades gracefully to a plain heap, never worse.
 *
 * Cancellation is lazy: a cancelled or re-armed timer leaves its old entry
 * behind, recognised as stale when it reaches the front because the timer's
 * key no longer equals the entry's sequence. When stale entries outnumber
 * live ones all tiers are compacted in O(n). Each timer counts the entries
 * pointing at it, so that finishing a timer purges its stale entries and no
 * entry ever points at freed memory.
 */
#include "engine.h"

#include "checks.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#ifndef SIM_HEAP_ARITY
#define SIM_HEAP_ARITY 4
#endif
#define D SIM_HEAP_ARITY

#ifndef SIM_BUCKET_TARGET
#define SIM_BUCKET_TARGET 4 /* entries per bucket aimed at (bench/README.md) */
#endif
#define BUCKET_TARGET SIM_BUCKET_TARGET
#define MAX_BUCKETS (1u << 22)
#define COMPACT_MIN 1024 /* entries: below this, stale entries are left alone */

typedef struct heap_ent {
	sim_time time; /* ns: when the entry fires */
	uint64_t seq;  /* arming order: breaks ties in time */
	sim_timer *t;  /* the timer armed */
} heap_ent;

typedef struct vec {
	heap_ent *e;     /* entries, unsorted */
	uint32_t n, cap; /* held, allocated: 16-byte headers, 4 to a cache line */
} vec;

struct sim_engine {
	heap_ent *h;         /* near heap, root at h[0] */
	size_t n, cap;       /* heap entries (stale included), allocated */
	heap_ent front;      /* the near tier's earliest entry, outside the heap (if has_front) */
	bool has_front;      /* front holds an entry (stale or not): it comes before h[0] */
	sim_time near_end;   /* ns: entries before this go to the heap */

	vec *b;              /* window buckets; b[i] covers [win_start + i << shift, ...) */
	size_t nb, nb_cap;   /* buckets in the window, allocated */
	size_t cur;          /* next bucket to load into the heap */
	sim_time win_start;  /* ns: start of bucket 0 */
	sim_time win_end;    /* ns: end of the last bucket */
	unsigned shift;      /* log2 of the bucket width in ns */

	vec far;             /* entries at or after win_end */

	size_t count;        /* entries in all tiers, stale included */
	size_t stale;        /* entries whose timer was cancelled or re-armed */
	uint64_t seq;        /* last sequence number handed out */
	uint64_t cur_seq;    /* sequence number of the event being dispatched */
	bool in_run;         /* sim_engine_run() is dispatching */
	sim_time now;        /* ns: current simulated time */
	uint64_t events;     /* events dispatched */
	int stop;            /* non-zero: leave the run loop (SIM_ESTOPPED or an error) */
	const volatile sig_atomic_t *watch; /* external stop flag, or NULL */
};

static inline bool ent_less(heap_ent a, heap_ent b)
{
	return a.time < b.time || (a.time == b.time && a.seq < b.seq);
}

int sim_engine_create(sim_engine **out)
{
	sim_engine *eng = calloc(1, sizeof(*eng));
	if (!eng)
		return SIM_ENOMEM;
	eng->near_end = INT64_MIN; /* everything goes to far until the first load */
	eng->win_start = eng->win_end = INT64_MIN;
	*out = eng;
	return SIM_OK;
}

void sim_engine_destroy(sim_engine *eng)
{
	if (!eng)
		return;
	free(eng->h);
	for (size_t i = 0; i < eng->nb_cap; i++)
		free(eng->b[i].e);
	free(eng->b);
	free(eng->far.e);
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
	return eng->count - eng->stale;
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

/* ---- the near heap ----------------------------------------------------- */

/* Make room for @need entries in the heap. */
static int heap_reserve(sim_engine *eng, size_t need)
{
	if (need <= eng->cap)
		return SIM_OK;
	size_t cap = eng->cap ? eng->cap : 256;
	while (cap < need)
		cap *= 2;
	heap_ent *nh = realloc(eng->h, cap * sizeof(*nh));
	if (!nh)
		return SIM_ENOMEM;
	eng->h = nh;
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

static void heapify(heap_ent *h, size_t n)
{
	if (n < 2)
		return;
	for (size_t i = (n - 2) / D + 1; i-- > 0;)
		sift_down(h, n, i, h[i]);
}

/* ---- buckets and far --------------------------------------------------- */

static inline int vec_push(vec *v, heap_ent e)
{
	if (v->n == v->cap) {
		if (v->cap > UINT32_MAX / 2)
			return SIM_ENOMEM;
		uint32_t cap = v->cap ? v->cap * 2 : 4;
		heap_ent *ne = realloc(v->e, cap * sizeof(*ne));
		if (!ne)
			return SIM_ENOMEM;
		v->e = ne;
		v->cap = cap;
	}
	v->e[v->n++] = e;
	return SIM_OK;
}

/* File @e in the tier its time belongs to. */
static inline int place(sim_engine *eng, heap_ent e)
{
	if (e.time < eng->near_end) {
		if (!eng->has_front) {
			if (!eng->n || ent_less(e, eng->h[0])) {
				eng->front = e;
				eng->has_front = true;
				return SIM_OK;
			}
		} else if (ent_less(e, eng->front)) {
			heap_ent was = eng->front; /* to the heap, where it is the least */
			eng->front = e;
			e = was;
		}
		if (eng->n == eng->cap && heap_reserve(eng, eng->n + 1))
			return SIM_ENOMEM;
		sift_up(eng->h, eng->n++, e);
		return SIM_OK;
	}
	if (e.time < eng->win_end)
		return vec_push(&eng->b[(uint64_t)(e.time - eng->win_start) >> eng->shift], e);
	return vec_push(&eng->far, e);
}

/* Spread far over a new window of buckets. Precondition: heap and window
 * empty, far not. */
static int rebuild(sim_engine *eng)
{
	vec *far = &eng->far;
	assert(eng->n == 0 && !eng->has_front && eng->cur >= eng->nb && far->n > 0);
	sim_time lo = far->e[0].time, hi = lo;
	for (size_t i = 1; i < far->n; i++) {
		if (far->e[i].time < lo)
			lo = far->e[i].time;
		if (far->e[i].time > hi)
			hi = far->e[i].time;
	}
	size_t want = far->n / BUCKET_TARGET;
	if (want < 1)
		want = 1;
	if (want > MAX_BUCKETS)
		want = MAX_BUCKETS;
	uint64_t span = (uint64_t)(hi - lo) + 1;
	unsigned shift = 0;
	while (shift < 62 && (span >> shift) > want)
		shift++;
	size_t nb = (size_t)((span - 1) >> shift) + 1;
	if (nb > eng->nb_cap) {
		vec *nbv = realloc(eng->b, nb * sizeof(*nbv));
		if (!nbv)
			return SIM_ENOMEM;
		memset(nbv + eng->nb_cap, 0, (nb - eng->nb_cap) * sizeof(*nbv));
		eng->b = nbv;
		eng->nb_cap = nb;
	}
	eng->nb = nb;
	eng->cur = 0;
	eng->shift = shift;
	eng->win_start = lo;
	/* hi < win_end <= hi + 2^shift: cannot overflow past INT64_MAX by much,
	 * so clamp (an entry at INT64_MAX then stays in the last bucket). */
	uint64_t width = (uint64_t)nb << shift;
	eng->win_end = width > (uint64_t)(INT64_MAX - lo) ? INT64_MAX : lo + (sim_time)width;
	eng->near_end = lo;
	size_t n = far->n;
	far->n = 0;
	for (size_t i = 0; i < n; i++) {
		heap_ent e = far->e[i];
		if (vec_push(&eng->b[(uint64_t)(e.time - lo) >> shift], e))
			return SIM_ENOMEM;
	}
	return SIM_OK;
}

/* Refill the empty heap from the next bucket (rebuilding the window from
 * far when the buckets are used up). Returns SIM_OK with the heap non-empty,
 * SIM_OK with it empty if nothing is pending, or SIM_ENOMEM. */
static int refill(sim_engine *eng)
{
	assert(eng->n == 0 && !eng->has_front);
	for (;;) {
		while (eng->cur < eng->nb) {
			vec *b = &eng->b[eng->cur++];
			/* The end of the bucket just taken; the last one ends at
			 * win_end, which is clamped, so nothing here overflows. */
			eng->near_end = eng->cur == eng->nb
						? eng->win_end
						: eng->win_start + (sim_time)((uint64_t)eng->cur << eng->shift);
			if (!b->n)
				continue;
			if (heap_reserve(eng, b->n))
				return SIM_ENOMEM;
			memcpy(eng->h, b->e, b->n * sizeof(*b->e));
			eng->n = b->n;
			b->n = 0;
			heapify(eng->h, eng->n);
			return SIM_OK;
		}
		if (!eng->far.n)
			return SIM_OK;
		int rc = rebuild(eng);
		if (rc)
			return rc;
	}
}

/* ---- stale entries ----------------------------------------------------- */

/* Move the live entries of @e[0..@n) that do not belong to @also to its
 * front; returns how many there are. */
static size_t filter(heap_ent *e, size_t n, const sim_timer *also)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (e[i].t->key == e[i].seq && e[i].t != also)
			e[k++] = e[i];
		else
			e[i].t->refs--;
	}
	return k;
}

/* Drop stale entries (and every entry of @also, if not NULL) from all
 * tiers: O(n). */
static void compact(sim_engine *eng, const sim_timer *also)
{
	eng->n = filter(eng->h, eng->n, also);
	heapify(eng->h, eng->n);
	if (eng->has_front)
		eng->has_front = filter(&eng->front, 1, also) == 1;
	size_t count = eng->n + eng->has_front;
	for (size_t i = eng->cur; i < eng->nb; i++) {
		eng->b[i].n = (uint32_t)filter(eng->b[i].e, eng->b[i].n, also);
		count += eng->b[i].n;
	}
	eng->far.n = (uint32_t)filter(eng->far.e, eng->far.n, also);
	eng->count = count + eng->far.n;
	eng->stale = 0;
}

/* One more entry became stale; compact if they dominate. */
static inline void note_stale(sim_engine *eng)
{
	eng->stale++;
	if (eng->stale * 2 > eng->count && eng->count >= COMPACT_MIN)
		compact(eng, NULL);
}

/* ---- timers ------------------------------------------------------------ */

int sim_timer_init(sim_engine *eng, sim_timer *t, sim_handler *fn, void *ctx)
{
	(void)eng;
	*t = (sim_timer){ .fn = fn, .ctx = ctx };
	return SIM_OK;
}

void sim_timer_fini(sim_engine *eng, sim_timer *t)
{
	sim_timer_cancel(eng, t);
	if (t->refs)
		compact(eng, t);
	assert(t->refs == 0);
}

static int arm(sim_engine *eng, sim_timer *t, sim_time when, uint64_t seq)
{
	assert(when >= eng->now);
	heap_ent e = { when, seq, t };
	if (place(eng, e))
		return SIM_ENOMEM;
	eng->count++;
	bool rearmed = t->key != 0;
	t->when = when;
	t->key = e.seq; /* the old entry is stale from now: a compaction drops it */
	t->refs++;
	/* Only now, with the key the new entry's: a compaction here used to
	 * find the timer keyless and drop the new entry too, so that a timer
	 * re-armed at that moment looked armed and never fired. */
	if (rearmed)
		note_stale(eng);
	return SIM_OK;
}

int sim_timer_at(sim_engine *eng, sim_timer *t, sim_time when)
{
	int rc = arm(eng, t, when, eng->seq + 1);
	if (!rc)
		eng->seq++;
	return rc;
}

int sim_timer_at_seq(sim_engine *eng, sim_timer *t, sim_time when, uint64_t seq)
{
	assert(seq && seq <= eng->seq);
	return arm(eng, t, when, seq);
}

uint64_t sim_engine_reserve_seq(sim_engine *eng)
{
	return ++eng->seq;
}

uint64_t sim_engine_cur_seq(const sim_engine *eng)
{
	return eng->cur_seq;
}

uint64_t sim_engine_settled_seq(const sim_engine *eng)
{
	return eng->in_run ? eng->cur_seq : UINT64_MAX;
}

bool sim_engine_completed(const sim_engine *eng)
{
	return eng->stop == 0;
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

/* ---- the run loop ------------------------------------------------------ */

int sim_engine_run(sim_engine *eng, sim_time end)
{
	/* A stop request ends one run; a failure stays (it may have been raised
	 * while the model was built, before any run). */
	if (eng->stop == SIM_ESTOPPED)
		eng->stop = 0;
	if (eng->stop)
		return eng->stop;
	eng->in_run = true;
	for (;;) {
		if (eng->stop || (eng->watch && *eng->watch))
			break;
		if (!eng->n && !eng->has_front) {
			int rc = refill(eng);
			if (rc) {
				eng->stop = rc;
				break;
			}
			if (!eng->n)
				break;
		}
		heap_ent *h = eng->h;
		heap_ent top;
		if (eng->has_front) {
			top = eng->front;
			if (top.time > end)
				break;
			eng->has_front = false;
			if (eng->n)
				__builtin_prefetch(h[0].t, 1);
		} else {
			top = h[0];
			if (top.time > end)
				break;
			size_t n = --eng->n;
			if (n) {
				sift_down(h, n, 0, h[n]);
				__builtin_prefetch(h[0].t, 1);
			}
		}
		eng->count--;
		sim_timer *t = top.t;
		t->refs--;
		if (t->key != top.seq) {
			eng->stale--;
			continue;
		}
		t->key = 0;
		/* Every event after the one before it in (time, seq) order. */
		RCUSIM_CHECK(top.time > eng->now || (top.time == eng->now && top.seq > eng->cur_seq) ||
				     eng->events == 0,
			     "engine.event_order");
		eng->now = top.time;
		eng->cur_seq = top.seq;
		eng->events++;
		t->fn(eng, t);
	}
	eng->in_run = false;
	if (!eng->stop && eng->watch && *eng->watch)
		eng->stop = SIM_ESTOPPED;
	if (eng->stop)
		return eng->stop;
	if (end != SIM_TIME_MAX && eng->now < end)
		eng->now = end;
	return SIM_OK;
}
