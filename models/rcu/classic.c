/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * classic.c - classic RCU's state machine after kernel/rcupdate.c:
 * 2.6.14 (maxbatch, set_need_resched above 10000) and 2.6.16 (blimit,
 * qhimark, qlowmark, rsinterval, force_quiescent_state; commit
 * 21a1ea9eb404). One rcu_ctrlblk (the kernel's rcu_ctrlblk and rcu_state
 * together); the _bh flavour is left out (nothing in the modelled loads
 * uses call_rcu_bh). At the end, the flavor rcu_classic (rcu.h) over it.
 */
#include "rcu/classic.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

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

/* force_quiescent_state() (kernel/rcupdate.c 2.6.16), called by call_rcu
 * above qhimark with the queue at @qlen: set_need_resched() on this CPU and,
 * when the queue grew by more than rsinterval since the last round,
 * smp_send_reschedule() to every other CPU still in rcp->cpumask. Both
 * reach the caller as effects; it sends the IPIs (rcu_cpu_in_mask() names
 * the CPUs). */
static void force_quiescent_state(const rcu_cfg *cfg, rcu_data *rdp, int64_t qlen,
				  rcu_effect *eff)
{
	eff->need_resched = true;
	if (qlen - rdp->last_rs_qlen > cfg->rsinterval) {
		rdp->last_rs_qlen = qlen;
		eff->send_ipis = true;
	}
}

/* call_rcu() with a full ring: grow it, then queue. Out of line and
 * reached by a tail call, so that the common path saves no registers. */
static __attribute__((noinline, cold)) int
call_rcu_grow(const rcu_cfg *cfg, const rcu_ctrlblk *rcp, rcu_data *rdp, sim_time now,
	      uint32_t obj, rcu_effect *eff)
{
	if (cbq_grow(&rdp->q))
		return SIM_ENOMEM;
	return call_rcu(cfg, rcp, rdp, now, obj, eff);
}

int call_rcu(const rcu_cfg *cfg, const rcu_ctrlblk *rcp, rcu_data *rdp, sim_time now,
	     uint32_t obj, rcu_effect *eff)
{
	rcu_cbq *q = &rdp->q;
	if (__builtin_expect(q->tail - q->head == q->cap, 0))
		return call_rcu_grow(cfg, rcp, rdp, now, obj, eff);
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
		/* 2.6.16: if (unlikely(++rdp->qlen > qhimark)) { rdp->blimit =
		 * INT_MAX; force_quiescent_state(rdp, &rcu_ctrlblk); } */
		if (qlen > cfg->qhimark) {
			rdp->blimit = RCU_INT_MAX;
			force_quiescent_state(cfg, rdp, qlen, eff);
		}
		break;
	}
	(void)rcp;
	RCUSIM_CHECK(rcu_cbq_sane(q), "rcu_classic.cbq_layout");
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
		if (rcp->last_gp) {
			rcp->last_gp[0] = rcp->gp_start;
			rcp->last_gp[1] = now;
		}
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

void __rcu_process_callbacks(rcu_ctrlblk *rcp, rcu_data *rdp, sim_time now)
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

bool rcu_cbq_sane(const rcu_cbq *q)
{
	return q->head <= q->done_end && q->done_end <= q->cur_end && q->cur_end <= q->tail &&
	       q->tail - q->head <= q->cap;
}

/* ---- the flavor --------------------------------------------------------- */

/* The classic flavor's state: the policy, the control block, and every
 * CPU's rcu_data. */
typedef struct classic_state {
	rcu_cfg cfg;            /* policy and knobs */
	rcu_ctrlblk rcp;        /* the global state */
	rcu_data *rda;          /* per CPU */
	int ncpus;              /* CPUs */
	sim_hist *lat;          /* call_rcu to invocation, ns */
	rcu_invoke_fn *invoke;  /* each callback's function, or NULL */
	void *invoke_ctx;       /* its first argument */
} classic_state;

static void classic_destroy(void *state)
{
	classic_state *rs = state;
	if (!rs)
		return;
	if (rs->rda)
		for (int i = 0; i < rs->ncpus; i++)
			rcu_data_fini(&rs->rda[i]);
	rcu_ctrlblk_fini(&rs->rcp);
	free(rs->rda);
	free(rs);
}

static int classic_create(void **state, const rcu_flavor_env *env, char *err, size_t errlen)
{
	const sim_params *p = env->p;
	classic_state *rs = calloc(1, sizeof(*rs));
	*state = rs;
	if (!rs)
		goto nomem;
	rs->cfg = (rcu_cfg){
		.policy = (rcu_policy)sim_params_int(p, P_RCU_POLICY),
		.maxbatch = sim_params_int(p, P_RCU_MAXBATCH),
		.resched_over = sim_params_int(p, P_RCU_RESCHED_OVER),
		.blimit = sim_params_int(p, P_RCU_BLIMIT),
		.qhimark = sim_params_int(p, P_RCU_QHIMARK),
		.qlowmark = sim_params_int(p, P_RCU_QLOWMARK),
		.rsinterval = sim_params_int(p, P_RCU_RSINTERVAL),
		.reset_last_rs_qlen = sim_params_int(p, P_RCU_RESET_LAST_RS_QLEN) != 0,
	};
	rs->ncpus = env->ncpus;
	rs->lat = env->lat;
	rs->invoke = env->invoke;
	rs->invoke_ctx = env->invoke_ctx;
	rs->rda = calloc((size_t)env->ncpus, sizeof(*rs->rda));
	if (!rs->rda || rcu_ctrlblk_init(&rs->rcp, env->ncpus) ||
	    !(rs->rcp.gp_hist = metric_hist(env->m, M_GP_DURATION_NS)))
		goto nomem;
	rs->rcp.last_gp = env->last_gp;
	for (int i = 0; i < env->ncpus; i++)
		if (rcu_data_init(&rs->rda[i], &rs->cfg, i, env->invoke != NULL))
			goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "classic RCU: out of memory");
	return SIM_ENOMEM;
}

static int classic_call_rcu(void *state, int cpu, sim_time at, uint32_t obj, rcu_effect *eff)
{
	classic_state *rs = state;
	return call_rcu(&rs->cfg, &rs->rcp, &rs->rda[cpu], at, obj, eff);
}

/* The tick reads whether it came from user mode or idle only when
 * rcu_pending() (update_process_times() calls rcu_check_callbacks() only
 * then). */
static bool classic_tick_reads_mode(const void *state, int cpu)
{
	const classic_state *rs = state;
	return rcu_pending(&rs->rcp, &rs->rda[cpu]);
}

/* update_process_times() (kernel/timer.c 2.6.14-2.6.16): if rcu_pending(),
 * rcu_check_callbacks(), where a user tick or the idle task is a quiescent
 * state, and which schedules the RCU tasklet (raise). */
static void classic_sched_clock_irq(void *state, int cpu, sim_time now, bool user, bool reader,
				    rcu_effect *eff)
{
	(void)reader; /* non-preemptible: only user mode and idle count */
	classic_state *rs = state;
	if (!rcu_pending(&rs->rcp, &rs->rda[cpu]))
		return;
	if (user)
		rcu_qsctr_inc(&rs->rda[cpu]);
	eff->raise = true;
}

static void classic_note_context_switch(void *state, int cpu)
{
	classic_state *rs = state;
	rcu_qsctr_inc(&rs->rda[cpu]);
}

/* rcu_do_batch(), then each invoked callback's function on this CPU.
 * Inlined into both handler entries (a call per softirq pass is measurable
 * in bench/icount.sh). */
static inline __attribute__((always_inline)) int64_t
do_batch_invoke(classic_state *rs, int cpu, sim_time first_ns, sim_time cost_ns, bool *more)
{
	rcu_data *rdp = &rs->rda[cpu];
	int64_t n = rcu_do_batch(&rs->cfg, rdp, first_ns, cost_ns, rs->lat, more);
	if (n && rs->invoke) {
		/* The invoked callbacks' objects: one run of the ring, or two
		 * where it wraps. */
		uint64_t mask = rdp->q.cap - 1, first = (rdp->q.head - (uint64_t)n) & mask;
		uint64_t len = (uint64_t)n < rdp->q.cap - first ? (uint64_t)n : rdp->q.cap - first;
		rs->invoke(rs->invoke_ctx, cpu, rdp->q.obj + first, (size_t)len, first_ns, cost_ns);
		if (len < (uint64_t)n)
			rs->invoke(rs->invoke_ctx, cpu, rdp->q.obj, (size_t)((uint64_t)n - len),
				   first_ns + (sim_time)len * cost_ns, cost_ns);
	}
	RCUSIM_CHECK(rcu_cbq_sane(&rdp->q), "rcu_classic.cbq_layout");
	return n;
}

static int64_t classic_do_batch(void *state, int cpu, const rcu_core_ctx *b, bool *more,
				rcu_effect *eff)
{
	(void)eff;
	return do_batch_invoke(state, cpu, b->first_ns, b->cost_ns, more);
}

/* rcu_process_callbacks() (the tasklet): __rcu_process_callbacks()'s list
 * moves and quiescent-state check, then its rcu_do_batch(). */
static int64_t classic_process_callbacks(void *state, int cpu, const rcu_core_ctx *b, bool *more,
					 rcu_effect *eff)
{
	classic_state *rs = state;
	(void)eff;
	__rcu_process_callbacks(&rs->rcp, &rs->rda[cpu], b->now);
	RCUSIM_CHECK(rcu_cbq_sane(&rs->rda[cpu].q), "rcu_classic.cbq_layout");
	return do_batch_invoke(rs, cpu, b->first_ns, b->cost_ns, more);
}

static bool classic_cpu_owes_qs(const void *state, int cpu)
{
	const classic_state *rs = state;
	return rcu_cpu_in_mask(&rs->rcp, cpu);
}

static int64_t classic_qlen(const void *state, int cpu)
{
	const classic_state *rs = state;
	return rcu_qlen(&rs->rda[cpu]);
}

static int64_t classic_qlen_max(const void *state, int cpu)
{
	const classic_state *rs = state;
	return rs->rda[cpu].qlen_max;
}

static int classic_sample(void *state, sim_metrics *m, sim_time now)
{
	classic_state *rs = state;
	sim_series *s = metric_series(m, M_GP_COMPLETED_SERIES, -1);
	if (!s || sim_series_append(s, now, (double)rs->rcp.gp_completed))
		return SIM_ENOMEM;
	return 0;
}

static int classic_finish(void *state, sim_metrics *m, sim_time now)
{
	classic_state *rs = state;
	int rc = metric_scalar(m, M_GP_COMPLETED, (double)rs->rcp.gp_completed);
	rc |= metric_hist_scalars(m, M_GP_DURATION_NS, rs->rcp.gp_hist,
				       SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	(void)now;
	return rc ? SIM_ENOMEM : 0;
}

/* The knobs classic RCU reads, with rcu.flavor = classic, and the batch
 * policies (rcu.policy) that read each. */
static const sim_knob classic_knob[] = {
	{ P_RCU_POLICY, SIM_ALWAYS },
	{ P_RCU_MAXBATCH, { P_RCU_POLICY, "fixed", NULL } },
	{ P_RCU_RESCHED_OVER, { P_RCU_POLICY, "fixed", NULL } },
	{ P_RCU_BLIMIT, { P_RCU_POLICY, "tunable|watermark", NULL } },
	{ P_RCU_QHIMARK, { P_RCU_POLICY, "watermark", NULL } },
	{ P_RCU_QLOWMARK, { P_RCU_POLICY, "watermark", NULL } },
	{ P_RCU_RSINTERVAL, { P_RCU_POLICY, "watermark", NULL } },
	{ P_RCU_RESET_LAST_RS_QLEN, { P_RCU_POLICY, "watermark", NULL } },
};
static const sim_knobs classic_knobs = { { P_RCU_FLAVOR, "classic", NULL }, classic_knob,
					 sizeof(classic_knob) / sizeof(classic_knob[0]) };
static const sim_knobs *const classic_parts[] = { &classic_knobs, NULL };

/* Classic RCU's runs are told apart by their batch policy. */
static const char *classic_policy_label(const sim_params *p)
{
	return sim_params_text(p, P_RCU_POLICY);
}

const rcu_flavor rcu_classic = {
	.name = "classic",
	.knobs = classic_parts,
	.policy_label = classic_policy_label,
	.create = classic_create,
	.destroy = classic_destroy,
	.call_rcu = classic_call_rcu,
	.sched_clock_irq = classic_sched_clock_irq,
	.tick_reads_mode = classic_tick_reads_mode,
	.rcu_note_context_switch = classic_note_context_switch,
	.rcu_process_callbacks = classic_process_callbacks,
	.rcu_do_batch = classic_do_batch,
	.rcu_cpu_owes_qs = classic_cpu_owes_qs,
	.qlen = classic_qlen,
	.qlen_max = classic_qlen_max,
	.sample = classic_sample,
	.finish = classic_finish,
};
