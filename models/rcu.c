/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rcu.c - classic RCU's state machine after kernel/rcupdate.c: 2.6.14
 * (maxbatch, set_need_resched above 10000) and 2.6.16 (blimit, qhimark,
 * qlowmark, rsinterval, force_quiescent_state; commit 21a1ea9eb404).
 * One rcu_ctrlblk (the kernel's rcu_ctrlblk and rcu_state together); the
 * _bh flavour is left out (nothing in the modelled loads uses call_rcu_bh).
 */
#include "rcu.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

int rcu_ctrlblk_init(rcu_ctrlblk *rcp, int ncpus)
{
	memset(rcp, 0, sizeof(*rcp));
	rcp->ncpus = ncpus;
	rcp->cpumask = calloc((size_t)(ncpus + 63) / 64, sizeof(uint64_t));
	return rcp->cpumask ? 0 : -1;
}

void rcu_ctrlblk_fini(rcu_ctrlblk *rcp)
{
	free(rcp->cpumask);
	rcp->cpumask = NULL;
}

int rcu_data_init(rcu_data *rdp, const rcu_cfg *cfg, int cpu, bool payload)
{
	memset(rdp, 0, sizeof(*rdp));
	rdp->cpu = cpu;
	rdp->blimit = cfg->blimit;
	rdp->q.cap = 64;
	rdp->q.t = malloc(rdp->q.cap * sizeof(*rdp->q.t));
	if (payload)
		rdp->q.obj = malloc(rdp->q.cap * sizeof(*rdp->q.obj));
	return rdp->q.t && (!payload || rdp->q.obj) ? 0 : -1;
}

void rcu_data_fini(rcu_data *rdp)
{
	free(rdp->q.t);
	free(rdp->q.obj);
	rdp->q.t = NULL;
	rdp->q.obj = NULL;
}

bool rcu_cpu_in_mask(const rcu_ctrlblk *rcp, int cpu)
{
	return rcp->cpumask[cpu >> 6] >> (cpu & 63) & 1;
}

/* Double the ring, keeping every index valid (indices grow forever; the
 * ring position is index & (cap - 1)). */
static int cbq_grow(rcu_cbq *q)
{
	uint64_t ncap = q->cap * 2;
	sim_time *nt = malloc(ncap * sizeof(*nt));
	uint32_t *no = q->obj ? malloc(ncap * sizeof(*no)) : NULL;
	if (!nt || (q->obj && !no)) {
		free(nt);
		free(no);
		return -1;
	}
	for (uint64_t i = q->head; i != q->tail; i++) {
		nt[i & (ncap - 1)] = q->t[i & (q->cap - 1)];
		if (no)
			no[i & (ncap - 1)] = q->obj[i & (q->cap - 1)];
	}
	free(q->t);
	free(q->obj);
	q->t = nt;
	q->obj = no;
	q->cap = ncap;
	return 0;
}

int call_rcu(const rcu_cfg *cfg, const rcu_ctrlblk *rcp, rcu_data *rdp, sim_time now,
	     uint32_t obj, rcu_call_effect *eff)
{
	rcu_cbq *q = &rdp->q;
	if (q->tail - q->head == q->cap && cbq_grow(q))
		return -1;
	q->t[q->tail & (q->cap - 1)] = now;
	if (q->obj)
		q->obj[q->tail & (q->cap - 1)] = obj;
	q->tail++;
	int64_t qlen = rcu_qlen(rdp);
	if (qlen > rdp->qlen_max)
		rdp->qlen_max = qlen;
	switch (cfg->policy) {
	case RCU_FIXED:
		/* 2.6.14: if (unlikely(++rdp->count > 10000)) set_need_resched(); */
		if (cfg->resched_over && qlen > cfg->resched_over)
			eff->need_resched = true;
		break;
	case RCU_TUNABLE:
		break;
	case RCU_WATERMARK:
		/* 2.6.16: if (unlikely(++rdp->qlen > qhimark)) { blimit = INT_MAX;
		 * force_quiescent_state(): set_need_resched(), and IPIs when the
		 * queue grew by more than rsinterval since the last round. */
		if (qlen > cfg->qhimark) {
			rdp->blimit = RCU_INT_MAX;
			eff->need_resched = true;
			if (qlen - rdp->last_rs_qlen > cfg->rsinterval) {
				rdp->last_rs_qlen = qlen;
				eff->send_ipis = true;
			}
		}
		break;
	}
	(void)rcp;
	return 0;
}

bool rcu_pending(const rcu_ctrlblk *rcp, const rcu_data *rdp)
{
	/* Callbacks whose grace period has completed. */
	if (rcu_cur_len(rdp) && rcp->completed >= rdp->batch)
		return true;
	/* No batch waiting, but new callbacks. */
	if (!rcu_cur_len(rdp) && rcu_nxt_len(rdp))
		return true;
	/* Callbacks ready to invoke. */
	if (rcu_done_len(rdp))
		return true;
	/* The RCU core waits for a quiescent state from this CPU. */
	return rdp->quiescbatch != rcp->cur || rdp->qs_pending;
}

void rcu_start_batch(rcu_ctrlblk *rcp, bool next_pending, sim_time now)
{
	if (next_pending)
		rcp->next_pending = true;
	if (rcp->next_pending && rcp->completed == rcp->cur) {
		/* cpus_andnot(cpumask, cpu_online_map, nohz_cpu_mask): all CPUs. */
		memset(rcp->cpumask, 0, (size_t)(rcp->ncpus + 63) / 64 * sizeof(uint64_t));
		for (int c = 0; c < rcp->ncpus; c++)
			rcp->cpumask[c >> 6] |= UINT64_C(1) << (c & 63);
		rcp->nmask = rcp->ncpus;
		rcp->next_pending = false;
		rcp->cur++;
		rcp->gp_start = now;
	}
}

/* cpu_quiet(): clear this CPU's bit; the last one completes the batch. */
static void cpu_quiet(rcu_ctrlblk *rcp, int cpu, sim_time now)
{
	if (!rcu_cpu_in_mask(rcp, cpu))
		return;
	rcp->cpumask[cpu >> 6] &= ~(UINT64_C(1) << (cpu & 63));
	if (--rcp->nmask == 0) {
		rcp->completed = rcp->cur;
		rcp->gp_completed++;
		if (rcp->gp_hist)
			sim_hist_add(rcp->gp_hist, (uint64_t)(now - rcp->gp_start));
		rcu_start_batch(rcp, false, now);
	}
}

/* rcu_check_quiescent_state(). */
static void check_quiescent_state(rcu_ctrlblk *rcp, rcu_data *rdp, sim_time now)
{
	if (rdp->quiescbatch != rcp->cur) {
		/* A new grace period: owe it a quiescent state from now on. */
		rdp->qs_pending = true;
		rdp->passed_quiesc = false;
		rdp->quiescbatch = rcp->cur;
		return;
	}
	if (!rdp->qs_pending || !rdp->passed_quiesc)
		return;
	rdp->qs_pending = false;
	if (rdp->quiescbatch == rcp->cur)
		cpu_quiet(rcp, rdp->cpu, now);
}

void rcu_process_lists(rcu_ctrlblk *rcp, rcu_data *rdp, sim_time now)
{
	rcu_cbq *q = &rdp->q;
	/* curlist's grace period is over: append it to donelist. */
	if (rcu_cur_len(rdp) && rcp->completed >= rdp->batch)
		q->done_end = q->cur_end;
	/* No batch in flight: nxtlist becomes curlist, waiting for cur + 1. */
	if (rcu_nxt_len(rdp) && !rcu_cur_len(rdp)) {
		q->cur_end = q->tail;
		rdp->batch = rcp->cur + 1;
		if (!rcp->next_pending)
			rcu_start_batch(rcp, true, now);
	}
	check_quiescent_state(rcp, rdp, now);
}

int64_t rcu_batch_limit(const rcu_cfg *cfg, const rcu_data *rdp)
{
	return cfg->policy == RCU_FIXED ? cfg->maxbatch : rdp->blimit;
}

int64_t rcu_do_batch(const rcu_cfg *cfg, rcu_data *rdp, sim_time first_ns, sim_time cost_ns,
		     sim_hist *lat, bool *more)
{
	rcu_cbq *q = &rdp->q;
	int64_t limit = rcu_batch_limit(cfg, rdp);
	int64_t n = rcu_done_len(rdp);
	if (n > limit)
		n = limit;
	sim_time at = first_ns;
	for (int64_t k = 0; k < n; k++) {
		sim_time t = q->t[(q->head + (uint64_t)k) & (q->cap - 1)];
		sim_hist_add(lat, (uint64_t)(at - t));
		at += cost_ns;
	}
	q->head += (uint64_t)n;
	if (cfg->policy == RCU_WATERMARK && rdp->blimit == RCU_INT_MAX &&
	    rcu_qlen(rdp) <= cfg->qlowmark) {
		rdp->blimit = cfg->blimit;
		if (cfg->reset_last_rs_qlen)
			rdp->last_rs_qlen = 0;
	}
	*more = rcu_done_len(rdp) > 0;
	return n;
}
