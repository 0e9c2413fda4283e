/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * segcblist.c - the segmented callback list after Linux 6.12
 * (kernel/rcu/rcu_segcblist.c, include/linux/rcu_segcblist.h); segcblist.h
 * lists the API. Every rule names the function and 6.12 line it follows;
 * the code is ours.
 *
 * A callback is its call_rcu time in a ring (and, with payload, the object
 * it frees): the time kept as its low 48 bits (t_lo + t_hi, 6 bytes),
 * rebuilt from the time it is read at (rcu_segcblist_put() packs,
 * rcu_segcblist_call_time() unpacks), or, in run mode, as runs of evenly
 * spaced calls (rcu_cbrun). Growing the ring copies it (O(callbacks)).
 * Left out: rcu_cblist (the bypass is a range of the same ring,
 * tree_nocb.h), the per-segment lengths and the offload flags.
 */
#include "rcu/segcblist.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "error.h"

int rcu_segcblist_init(rcu_segcblist *l, bool payload, bool runs)
{
	memset(l, 0, sizeof(*l));
	assert(!(payload && runs));
	if (runs) {
		l->cap = UINT64_C(1) << 62; /* no ring of callbacks to fill */
		l->rcap = 16;
		l->runs = malloc(l->rcap * sizeof(*l->runs));
		return l->runs ? 0 : SIM_ENOMEM;
	}
	l->cap = 64;
	l->t_lo = malloc(l->cap * sizeof(*l->t_lo));
	l->t_hi = malloc(l->cap * sizeof(*l->t_hi));
	if (payload)
		l->obj = malloc(l->cap * sizeof(*l->obj));
	if (!l->t_lo || !l->t_hi || (payload && !l->obj)) {
		rcu_segcblist_fini(l);
		return SIM_ENOMEM;
	}
	return 0;
}

void rcu_segcblist_fini(rcu_segcblist *l)
{
	free(l->t_lo);
	free(l->t_hi);
	free(l->obj);
	free(l->runs);
	l->t_lo = NULL;
	l->t_hi = NULL;
	l->obj = NULL;
	l->runs = NULL;
}

int rcu_segcblist_run_reserve(rcu_segcblist *l)
{
	if (!l->runs || l->rtail - l->rhead < l->rcap)
		return 0;
	uint64_t m = l->rcap - 1, nm = 2 * l->rcap - 1;
	rcu_cbrun *nr = malloc(2 * l->rcap * sizeof(*nr));
	if (!nr)
		return SIM_ENOMEM;
	for (uint64_t i = l->rhead; i != l->rtail; i++)
		nr[i & nm] = l->runs[i & m];
	free(l->runs);
	l->runs = nr;
	l->rcap *= 2;
	return 0;
}

int rcu_segcblist_run_append(rcu_segcblist *l, uint64_t end, sim_time t0, sim_time step, uint64_t n)
{
	uint64_t m = l->rcap - 1;
	if (!n)
		return 0;
	if (l->rtail != l->rhead) {
		rcu_cbrun *r = &l->runs[(l->rtail - 1) & m];
		assert(r->start + r->n == end);
		sim_time gap = t0 - (r->t0 + (sim_time)(r->n - 1) * r->step);
		/* The calls together still evenly spaced: join the run. */
		if ((r->n == 1 || gap == r->step) && (n == 1 || step == gap)) {
			r->step = gap;
			r->n += n;
			return 0;
		}
	}
	if (rcu_segcblist_run_reserve(l))
		return SIM_ENOMEM;
	m = l->rcap - 1;
	l->runs[l->rtail & m] = (rcu_cbrun){ end, n, t0, n > 1 ? step : 0 };
	l->rtail++;
	return 0;
}

sim_time rcu_segcblist_run_time(const rcu_segcblist *l, uint64_t i)
{
	uint64_t m = l->rcap - 1, lo = l->rhead, hi = l->rtail;
	assert(lo != hi && i - l->head < l->runs[(hi - 1) & m].start + l->runs[(hi - 1) & m].n - l->head);
	while (hi - lo > 1) { /* the last run starting at or before i */
		uint64_t mid = lo + (hi - lo) / 2;
		if (l->runs[mid & m].start - l->head <= i - l->head)
			lo = mid;
		else
			hi = mid;
	}
	const rcu_cbrun *r = &l->runs[lo & m];
	return r->t0 + (sim_time)(i - r->start) * r->step;
}

int rcu_segcblist_grow(rcu_segcblist *l, uint64_t end)
{
	assert(!l->runs); /* run mode never fills its cap */
	uint64_t ncap = l->cap * 2, om = l->cap - 1, nm = ncap - 1;
	uint32_t *lo = malloc(ncap * sizeof(*lo));
	uint16_t *hi = malloc(ncap * sizeof(*hi));
	uint32_t *ob = l->obj ? malloc(ncap * sizeof(*ob)) : NULL;
	if (!lo || !hi || (l->obj && !ob)) {
		free(lo);
		free(hi);
		free(ob);
		return SIM_ENOMEM;
	}
	for (uint64_t i = l->head; i != end; i++) {
		lo[i & nm] = l->t_lo[i & om];
		hi[i & nm] = l->t_hi[i & om];
		if (ob)
			ob[i & nm] = l->obj[i & om];
	}
	free(l->t_lo);
	free(l->t_hi);
	free(l->obj);
	l->t_lo = lo;
	l->t_hi = hi;
	l->obj = ob;
	l->cap = ncap;
	return 0;
}

int rcu_segcblist_enqueue(rcu_segcblist *l, sim_time t, uint32_t obj)
{
	assert(t >= 0);
	if (__builtin_expect(rcu_segcblist_n_cbs(l) == (int64_t)l->cap, 0) &&
	    rcu_segcblist_grow(l, l->tails[RCU_NEXT_TAIL]))
		return SIM_ENOMEM;
	if (l->runs) {
		if (rcu_segcblist_run_append(l, l->tails[RCU_NEXT_TAIL], t, 0, 1))
			return SIM_ENOMEM;
		l->tails[RCU_NEXT_TAIL]++;
		return 0;
	}
	rcu_segcblist_put(l, l->tails[RCU_NEXT_TAIL], t, obj);
	l->tails[RCU_NEXT_TAIL]++;
	return 0;
}

int rcu_segcblist_put_n(rcu_segcblist *l, uint64_t end, sim_time t0, sim_time step, int64_t n)
{
	assert(t0 >= 0 && step >= 0 && n >= 0);
	if (l->runs)
		return rcu_segcblist_run_append(l, end, t0, step, (uint64_t)n);
	while (end - l->head + (uint64_t)n > l->cap)
		if (rcu_segcblist_grow(l, end))
			return SIM_ENOMEM;
	/* In at most two pieces of the ring: up to its end, then from 0. */
	uint64_t k0 = end & (l->cap - 1), left = (uint64_t)n;
	sim_time t = t0;
	while (left) {
		uint64_t len = left < l->cap - k0 ? left : l->cap - k0;
		uint32_t *lo = l->t_lo + k0;
		uint16_t *hi = l->t_hi + k0;
		for (uint64_t i = 0; i < len; i++) {
			uint64_t ti = (uint64_t)t + i * (uint64_t)step;
			lo[i] = (uint32_t)ti;
			hi[i] = (uint16_t)(ti >> 32);
		}
		if (l->obj)
			memset(l->obj + k0, 0, len * sizeof(*l->obj));
		t += (sim_time)len * step;
		left -= len;
		k0 = 0;
	}
	return 0;
}

int rcu_segcblist_enqueue_n(rcu_segcblist *l, sim_time t0, sim_time step, int64_t n)
{
	if (rcu_segcblist_put_n(l, l->tails[RCU_NEXT_TAIL], t0, step, n))
		return SIM_ENOMEM;
	l->tails[RCU_NEXT_TAIL] += (uint64_t)n;
	return 0;
}

/* rcu_segcblist_advance() (rcu_segcblist.c:469-509). With indices for
 * tails, the kernel's seglen moves are implicit. */
void rcu_segcblist_advance(rcu_segcblist *l, uint64_t seq)
{
	int i, j;
	if (rcu_segcblist_restempty(l, RCU_DONE_TAIL))
		return;
	/* WAIT, then NEXT_READY, while its gp_seq has been reached (:481-486). */
	for (i = RCU_WAIT_TAIL; i < RCU_NEXT_TAIL; i++) {
		if (rcu_ulong_cmp_lt(seq, l->gp_seq[i]))
			break;
		l->tails[RCU_DONE_TAIL] = l->tails[i];
	}
	if (i == RCU_WAIT_TAIL) /* nothing moved (:489) */
		return;
	for (j = RCU_WAIT_TAIL; j < i; j++) /* the emptied segments end where DONE does (:493-494) */
		l->tails[j] = l->tails[RCU_DONE_TAIL];
	/* Slide what still waits down to WAIT (:502-507). */
	for (j = RCU_WAIT_TAIL; i < RCU_NEXT_TAIL; i++, j++) {
		if (l->tails[j] == l->tails[RCU_NEXT_TAIL])
			break;
		l->tails[j] = l->tails[i];
		l->gp_seq[j] = l->gp_seq[i];
	}
}

/* rcu_segcblist_accelerate() (rcu_segcblist.c:526-587). */
bool rcu_segcblist_accelerate(rcu_segcblist *l, uint64_t seq)
{
	int i;
	if (rcu_segcblist_restempty(l, RCU_DONE_TAIL))
		return false;
	/* The newest non-empty waiting segment that needs an earlier GP (:542-545). */
	for (i = RCU_NEXT_READY_TAIL; i > RCU_DONE_TAIL; i--)
		if (!rcu_segcblist_segempty(l, i) && rcu_ulong_cmp_lt(l->gp_seq[i], seq))
			break;
	/* Nothing after it, or it is NEXT_READY (NEXT stays unassigned) (:568). */
	if (rcu_segcblist_restempty(l, i) || ++i >= RCU_NEXT_TAIL)
		return false;
	/* Everything after segment i - 1 merges into segment i, waiting for seq (:582-585). */
	for (; i < RCU_NEXT_TAIL; i++) {
		l->tails[i] = l->tails[RCU_NEXT_TAIL];
		l->gp_seq[i] = seq;
	}
	return true;
}

bool rcu_segcblist_sane(const rcu_segcblist *l)
{
	uint64_t prev = l->head;
	for (int s = 0; s < RCU_CBLIST_NSEGS; s++) {
		if (l->tails[s] - l->head < prev - l->head)
			return false;
		prev = l->tails[s];
	}
	if (prev - l->head > l->cap)
		return false;
	/* Run mode: the runs start at the head's and reach the end of NEXT. */
	if (l->runs) {
		uint64_t m = l->rcap - 1;
		if (l->rtail == l->rhead)
			return prev == l->head;
		const rcu_cbrun *f = &l->runs[l->rhead & m], *z = &l->runs[(l->rtail - 1) & m];
		if (l->head - f->start >= f->n || z->start + z->n - l->head < prev - l->head ||
		    l->rtail - l->rhead > l->rcap)
			return false;
	}
	/* include/linux/rcu_segcblist.h:50: WAIT empty implies NEXT_READY empty. */
	return !rcu_segcblist_segempty(l, RCU_WAIT_TAIL) ||
	       rcu_segcblist_segempty(l, RCU_NEXT_READY_TAIL);
}

void rcu_segcblist_add_latencies(const rcu_segcblist *l, int64_t n, sim_time first_ns,
				 sim_time cost_ns, sim_hist *lat)
{
	if (l->runs) {
		/* Run by run: callback k of a run (called at t0 + k step) is
		 * invoked cost_ns after the one before it, so the latencies
		 * within a run step by cost_ns - step. */
		uint64_t idx = l->head, left = (uint64_t)n, m = l->rcap - 1;
		sim_time at = first_ns;
		for (uint64_t r = l->rhead; left; r++) {
			const rcu_cbrun *run = &l->runs[r & m];
			uint64_t off = idx - run->start, take = run->n - off < left ? run->n - off : left;
			sim_time v0 = at - (run->t0 + (sim_time)off * run->step);
			assert(v0 >= 0 && v0 + (sim_time)(take - 1) * (cost_ns - run->step) >= 0);
			sim_hist_add_linear(lat, (uint64_t)v0, cost_ns - run->step, take);
			idx += take;
			left -= take;
			at += (sim_time)take * cost_ns;
		}
		return;
	}
	sim_time at = first_ns;
	for (int64_t k = 0; k < n; k++, at += cost_ns) {
		sim_time t = rcu_segcblist_call_time(l, l->head + (uint64_t)k, at);
		RCUSIM_CHECK(at - t < (INT64_C(1) << 47), "rcu_tree.call_time_window");
		sim_hist_add(lat, (uint64_t)(at - t));
	}
}

void rcu_segcblist_remove_done(rcu_segcblist *l, int64_t n)
{
	assert(n >= 0 && n <= rcu_segcblist_seglen(l, RCU_DONE_TAIL));
	l->head += (uint64_t)n;
	if (l->runs)
		while (l->rhead != l->rtail &&
		       l->runs[l->rhead & (l->rcap - 1)].start + l->runs[l->rhead & (l->rcap - 1)].n <= l->head)
			l->rhead++;
}

int rcu_segcblist_removed_objs(const rcu_segcblist *l, int64_t n, const uint32_t *runs[2],
			       size_t lens[2])
{
	assert(l->obj && n >= 0 && (uint64_t)n <= l->cap);
	if (!n)
		return 0;
	uint64_t first = (l->head - (uint64_t)n) & (l->cap - 1);
	uint64_t len = (uint64_t)n < l->cap - first ? (uint64_t)n : l->cap - first;
	runs[0] = l->obj + first;
	lens[0] = (size_t)len;
	if (len == (uint64_t)n)
		return 1;
	runs[1] = l->obj;
	lens[1] = (size_t)((uint64_t)n - len);
	return 2;
}
