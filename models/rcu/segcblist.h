/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * segcblist.h - the segmented callback list of Linux 6.12
 * (include/linux/rcu_segcblist.h, kernel/rcu/rcu_segcblist.[ch]): one CPU's
 * callbacks in four segments (DONE, WAIT, NEXT_READY, NEXT), each waiting
 * segment tagged with the gp_seq it waits for; enqueue, advance, accelerate
 * and the removal of invoked callbacks. Tree RCU (tree.c) keeps one per CPU
 * in its rcu_data; offloading (tree_nocb.c) keeps each CPU's bypass in the
 * same ring, right after NEXT.
 *
 * Unlike the kernel's linked list of rcu_head, a callback here is its
 * call_rcu time (and, optionally, the object it frees) in a ring, and the
 * tails are indices into it (segcblist.c says how the times are packed).
 * Left out: the per-segment lengths (the indices give them), the
 * SEGCBLIST_* offload flags (rcu_data.offloaded in tree.h), rcu_cblist (the
 * bypass is a range of the same ring, tree_nocb.h), and every lock.
 */
#ifndef RCUSIM_MODELS_RCU_SEGCBLIST_H
#define RCUSIM_MODELS_RCU_SEGCBLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "metrics.h"

/* ULONG_CMP_GE / ULONG_CMP_LT (include/linux/rcupdate.h:34-35): a >= b and
 * a < b modulo 2^64, for values less than 2^63 apart. */
static inline bool rcu_ulong_cmp_ge(uint64_t a, uint64_t b) { return UINT64_MAX / 2 >= a - b; }
static inline bool rcu_ulong_cmp_lt(uint64_t a, uint64_t b) { return UINT64_MAX / 2 < a - b; }

/* Segments (include/linux/rcu_segcblist.h:31-64). */
enum {
	RCU_DONE_TAIL,       /* grace period over: ready to invoke */
	RCU_WAIT_TAIL,       /* waiting for gp_seq[RCU_WAIT_TAIL] */
	RCU_NEXT_READY_TAIL, /* waiting for gp_seq[RCU_NEXT_READY_TAIL] */
	RCU_NEXT_TAIL,       /* newest: no grace period assigned yet */
	RCU_CBLIST_NSEGS
};

/* One CPU's callbacks: a FIFO ring of call_rcu times (and, optionally, the
 * object each frees), the four segments back to back in it as the kernel's
 * tails[] cut one linked list: segment s is [tails[s-1], tails[s]) with
 * tails[-1] = head. Indices grow for ever; slot = index & (cap - 1).
 * A call time is kept as its low 48 bits (6 bytes: t_lo + t_hi) and
 * rebuilt from the time it is read at, so a callback costs 6 bytes, 10
 * with its object; it must be read within 2^48 ns (78 hours) of its
 * call_rcu. */
/* A run of callbacks called at evenly spaced times (bulk calls): the
 * callbacks [start, start + n), called at t0, t0 + step, ... */
typedef struct rcu_cbrun {
	uint64_t start;      /* index of its first callback */
	uint64_t n;          /* callbacks in it */
	sim_time t0;         /* ns: call time of the first */
	sim_time step;       /* ns: from one call to the next (0 for a run of one) */
} rcu_cbrun;

typedef struct rcu_segcblist {
	uint32_t *t_lo;      /* ns: bits 0-31 of each callback's call_rcu time (ring) */
	uint16_t *t_hi;      /* ns: bits 32-47 of it (ring) */
	uint32_t *obj;       /* the object each frees (ring), or NULL without payload */
	uint64_t cap;        /* ring size, a power of two */
	uint64_t head;       /* index of the oldest callback */
	uint64_t tails[RCU_CBLIST_NSEGS]; /* index one past each segment's last callback */
	uint64_t gp_seq[RCU_CBLIST_NSEGS]; /* WAIT, NEXT_READY: gp_seq at which they are ready */
	/* Run mode (rcu_segcblist_init() with @runs): the call times as runs
	 * instead of one per callback (t_lo, t_hi and obj unused, cap never
	 * reached): a ring of runs covering [head, end of the list), a call
	 * that continues the last run's spacing joining it. */
	rcu_cbrun *runs;     /* ring of runs, or NULL */
	uint64_t rcap;       /* its size, a power of two */
	uint64_t rhead, rtail; /* run indices: the head callback's run, one past the last */
} rcu_segcblist;

/* An empty list with a ring of 64 (rcu_segcblist_init, rcu_segcblist.c:237);
 * @payload keeps an object number with each callback; @runs (not with
 * @payload) keeps the call times as runs (rcu_cbrun), for callbacks queued
 * in bulk: a run costs 32 bytes, a callback within one nothing. 0 or
 * SIM_ENOMEM. */
int rcu_segcblist_init(rcu_segcblist *l, bool payload, bool runs);
void rcu_segcblist_fini(rcu_segcblist *l);
/* rcu_segcblist_n_cbs() (rcu_segcblist.h:49): callbacks queued. */
static inline int64_t rcu_segcblist_n_cbs(const rcu_segcblist *l)
{
	return (int64_t)(l->tails[RCU_NEXT_TAIL] - l->head);
}
/* rcu_segcblist_get_seglen() (rcu_segcblist.c:92): callbacks in @seg. */
static inline int64_t rcu_segcblist_seglen(const rcu_segcblist *l, int seg)
{
	return (int64_t)(l->tails[seg] - (seg ? l->tails[seg - 1] : l->head));
}
/* rcu_segcblist_empty() (rcu_segcblist.h:43). */
static inline bool rcu_segcblist_empty(const rcu_segcblist *l) { return l->tails[RCU_NEXT_TAIL] == l->head; }
/* rcu_segcblist_segempty() (rcu_segcblist.h:112): is @seg empty? */
static inline bool rcu_segcblist_segempty(const rcu_segcblist *l, int seg) { return !rcu_segcblist_seglen(l, seg); }
/* rcu_segcblist_restempty() (rcu_segcblist.h:103): are the segments after
 * @seg empty? (restempty(NEXT_READY) is "NEXT is empty".) */
static inline bool rcu_segcblist_restempty(const rcu_segcblist *l, int seg)
{
	return l->tails[seg] == l->tails[RCU_NEXT_TAIL];
}
/* rcu_segcblist_ready_cbs() (rcu_segcblist.c:267): DONE is not empty. */
static inline bool rcu_segcblist_ready_cbs(const rcu_segcblist *l) { return l->tails[RCU_DONE_TAIL] != l->head; }
/* rcu_segcblist_pend_cbs() (rcu_segcblist.c:277): WAIT..NEXT not empty. */
static inline bool rcu_segcblist_pend_cbs(const rcu_segcblist *l) { return !rcu_segcblist_restempty(l, RCU_DONE_TAIL); }
/* Double @l's ring, keeping the callbacks [head, @end) at their indices
 * (@end: tails[RCU_NEXT_TAIL], or past a bypass kept after NEXT in the same
 * ring, tree_nocb.h). 0 or SIM_ENOMEM (the list unchanged). */
int rcu_segcblist_grow(rcu_segcblist *l, uint64_t end);
/* rcu_segcblist_enqueue() (rcu_segcblist.c:329): append a callback called
 * at @t (>= 0) for object @obj to NEXT, growing the ring when full. 0 or
 * SIM_ENOMEM (the list unchanged). */
int rcu_segcblist_enqueue(rcu_segcblist *l, sim_time t, uint32_t obj);
/* Store the call times @t0, @t0 + @step, ... (@t0 >= 0, @step >= 0) of @n
 * callbacks of object 0 at indices @end, @end + 1, ... (the list's end:
 * tails[RCU_NEXT_TAIL], or a bypass's end), growing the ring to fit, or
 * as a run. Moves no tail. 0 or SIM_ENOMEM (nothing stored; the ring may
 * have grown). */
int rcu_segcblist_put_n(rcu_segcblist *l, uint64_t end, sim_time t0, sim_time step, int64_t n);
/* @n rcu_segcblist_enqueue()s of object 0, called at @t0, @t0 + @step, ...
 * (@n >= 0): rcu_segcblist_put_n() at NEXT's end. 0 or SIM_ENOMEM (none
 * queued; the ring may have grown). */
int rcu_segcblist_enqueue_n(rcu_segcblist *l, sim_time t0, sim_time step, int64_t n);
/* rcu_segcblist_advance() (rcu_segcblist.c:469): move WAIT and NEXT_READY
 * into DONE while their gp_seq is at or below @seq, then close the gap. */
void rcu_segcblist_advance(rcu_segcblist *l, uint64_t seq);
/* rcu_segcblist_accelerate() (rcu_segcblist.c:526): give NEXT, and any
 * later segment waiting for @seq or later, the grace period @seq, merging
 * them into the first such segment. True if some callback now waits for
 * @seq (the caller must make sure that grace period is requested). */
bool rcu_segcblist_accelerate(rcu_segcblist *l, uint64_t seq);
/* Run mode: room for one more run (none needed otherwise). 0 or
 * SIM_ENOMEM. */
int rcu_segcblist_run_reserve(rcu_segcblist *l);
/* Run mode: append @n callbacks called at @t0, @t0 + @step, ... at the
 * list's end (index @end), joining the last run where they continue its
 * spacing. 0 or SIM_ENOMEM (none added). */
int rcu_segcblist_run_append(rcu_segcblist *l, uint64_t end, sim_time t0, sim_time step, uint64_t n);
/* Run mode: the call time of the callback at index @i. */
sim_time rcu_segcblist_run_time(const rcu_segcblist *l, uint64_t i);
/* The call_rcu time of the callback at index @i, read at @now (which must
 * be at or after it, by less than 2^48 ns). */
static inline sim_time rcu_segcblist_call_time(const rcu_segcblist *l, uint64_t i, sim_time now)
{
	if (l->runs)
		return rcu_segcblist_run_time(l, i);
	uint64_t k = i & (l->cap - 1);
	uint64_t low = (uint64_t)l->t_hi[k] << 32 | l->t_lo[k];
	return now - (sim_time)(((uint64_t)now - low) & ((UINT64_C(1) << 48) - 1));
}
/* Is the layout sane (head <= tails[0] <= ... <= tails[3], at most cap
 * queued, WAIT empty only with NEXT_READY empty)? For checks. */
bool rcu_segcblist_sane(const rcu_segcblist *l);

/* Store the callback called at @t (>= 0) for object @obj (ignored without
 * payload) at ring index @idx, past the list's tails (the end of NEXT, or a
 * bypass kept after it): the 48-bit packing of the call time that
 * rcu_segcblist_call_time() undoes. The ring must have room for @idx; not
 * in run mode. Moves no tail. */
static inline void rcu_segcblist_put(rcu_segcblist *l, uint64_t idx, sim_time t, uint32_t obj)
{
	uint64_t k = idx & (l->cap - 1);
	l->t_lo[k] = (uint32_t)t;
	l->t_hi[k] = (uint16_t)((uint64_t)t >> 32);
	if (l->obj)
		l->obj[k] = obj;
}
/* Record in @lat the call_rcu-to-invocation time of the first @n
 * callbacks from the head (DONE must hold them), the k-th (from 0) invoked
 * at @first_ns + k x @cost_ns. */
void rcu_segcblist_add_latencies(const rcu_segcblist *l, int64_t n, sim_time first_ns,
				 sim_time cost_ns, sim_hist *lat);
/* Remove the first @n callbacks from the head of DONE, which must hold
 * them (rcu_segcblist_extract_done_cbs() and insert_done_cbs() with the
 * length update, rcu_segcblist.c:380, 436): only head moves. */
void rcu_segcblist_remove_done(rcu_segcblist *l, int64_t n);
/* The objects of the @n callbacks just before the head (the last ones
 * removed; with payload): at most two runs of the ring, in order; returns
 * how many (0 with n = 0). */
int rcu_segcblist_removed_objs(const rcu_segcblist *l, int64_t n, const uint32_t *runs[2],
			       size_t lens[2]);

#endif
