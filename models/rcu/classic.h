/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * classic.h - classic RCU (kernel/rcupdate.c, 2.6.14-2.6.16): the
 * global control block, per-CPU callback lists, grace periods, quiescent
 * states, and rcu_do_batch under the three batch policies. Pure state
 * machine: the caller decides when each function runs and pays for the CPU
 * time. The flavor rcu_classic (rcu.h) wraps it for the CPU model; the
 * functions below are its parts, public for the step tests.
 */
#ifndef RCUSIM_MODELS_RCU_CLASSIC_H
#define RCUSIM_MODELS_RCU_CLASSIC_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "metrics.h"
#include "rcu/rcu.h"

typedef enum rcu_policy { RCU_FIXED, RCU_TUNABLE, RCU_WATERMARK } rcu_policy;

#define RCU_INT_MAX INT64_C(2147483647) /* blimit while above qhimark */

typedef struct rcu_cfg {
	rcu_policy policy;   /* batch policy */
	int64_t maxbatch;    /* fixed: callbacks per rcu_do_batch */
	int64_t resched_over; /* fixed: set_need_resched() above this qlen (0 = off) */
	int64_t blimit;      /* tunable, watermark: default batch limit */
	int64_t qhimark;     /* watermark: qlen above which blimit = INT_MAX and kick */
	int64_t qlowmark;    /* watermark: restore blimit at or below */
	int64_t rsinterval;  /* watermark: qlen growth between IPI rounds */
	bool reset_last_rs_qlen; /* watermark: reset last_rs_qlen on restore (not the kernel) */
} rcu_cfg;

/* rcu_ctrlblk + rcu_state: batch numbers and the CPUs that still owe a
 * quiescent state for batch cur. */
typedef struct rcu_ctrlblk {
	int64_t cur;         /* current batch number */
	int64_t completed;   /* last batch completed */
	bool next_pending;   /* another batch is wanted after cur */
	uint64_t *cpumask;   /* CPUs yet to pass a quiescent state for cur */
	int ncpus;           /* CPUs */
	int nmask;           /* bits set in cpumask */
	sim_time gp_start;   /* ns: when batch cur started */
	uint64_t gp_completed; /* grace periods completed */
	sim_hist *gp_hist;   /* grace-period durations (ns), or NULL */
	sim_time *last_gp;   /* [2] ns: start and end of the last batch to complete, or NULL */
} rcu_ctrlblk;

/* The per-CPU callback queue: one FIFO of call_rcu times holding donelist,
 * curlist and nxtlist back to back (lists only ever move whole, oldest
 * first): [head, done_end) done, [done_end, cur_end) cur, [cur_end, tail)
 * nxt. 8 bytes per queued callback, 12 with an object number. */
typedef struct rcu_cbq {
	sim_time *t;         /* ns: call_rcu time of each callback (ring) */
	uint32_t *obj;       /* the object each frees (ring), or NULL without payload */
	uint64_t cap;        /* ring size, a power of two */
	uint64_t head;       /* oldest queued (first of donelist) */
	uint64_t done_end;   /* end of donelist = start of curlist */
	uint64_t cur_end;    /* end of curlist = start of nxtlist */
	uint64_t tail;       /* end of nxtlist */
} rcu_cbq;

typedef struct rcu_data {
	rcu_cbq q;           /* the three lists */
	int cpu;             /* this CPU */
	int64_t batch;       /* batch that curlist waits for */
	int64_t quiescbatch; /* batch for which qs_pending was set */
	bool passed_quiesc;  /* a quiescent state since quiescbatch began */
	bool qs_pending;     /* this CPU still owes cur a quiescent state */
	int64_t blimit;      /* current batch limit (tunable, watermark) */
	int64_t last_rs_qlen; /* watermark: qlen at the last IPI round */
	int64_t qlen_max;    /* largest qlen seen */
} rcu_data;

int rcu_ctrlblk_init(rcu_ctrlblk *rcp, int ncpus);
void rcu_ctrlblk_fini(rcu_ctrlblk *rcp);
/* @payload: keep an object number with each callback. */
int rcu_data_init(rcu_data *rdp, const rcu_cfg *cfg, int cpu, bool payload);
void rcu_data_fini(rcu_data *rdp);
bool rcu_cpu_in_mask(const rcu_ctrlblk *rcp, int cpu);

static inline int64_t rcu_qlen(const rcu_data *rdp)
{
	return (int64_t)(rdp->q.tail - rdp->q.head);
}
static inline int64_t rcu_done_len(const rcu_data *rdp)
{
	return (int64_t)(rdp->q.done_end - rdp->q.head);
}
static inline int64_t rcu_cur_len(const rcu_data *rdp)
{
	return (int64_t)(rdp->q.cur_end - rdp->q.done_end);
}
static inline int64_t rcu_nxt_len(const rcu_data *rdp)
{
	return (int64_t)(rdp->q.tail - rdp->q.cur_end);
}

/* call_rcu() at @now: append to nxtlist, then the policy's check (2.6.14
 * resched_over, 2.6.16 qhimark / force_quiescent_state()). Returns 0 or
 * SIM_ENOMEM when the ring cannot grow. */
int call_rcu(const rcu_cfg *cfg, const rcu_ctrlblk *rcp, rcu_data *rdp, sim_time now,
	     uint32_t obj, rcu_effect *eff);
/* The object of the callback at queue index @i (with payload). */
static inline uint32_t rcu_cb_obj(const rcu_data *rdp, uint64_t i)
{
	return rdp->q.obj[i & (rdp->q.cap - 1)];
}
/* rcu_qsctr_inc(): a quiescent state passed on this CPU. */
static inline void rcu_qsctr_inc(rcu_data *rdp)
{
	rdp->passed_quiesc = true;
}
/* rcu_pending(): does this CPU have RCU work (so the tick schedules the
 * tasklet)? */
bool rcu_pending(const rcu_ctrlblk *rcp, const rcu_data *rdp);
/* rcu_start_batch(): ask for a new batch (@next_pending) and start one if
 * none is in progress. */
void rcu_start_batch(rcu_ctrlblk *rcp, bool next_pending, sim_time now);
/* The list moves and quiescent-state check of __rcu_process_callbacks(),
 * everything before its rcu_do_batch() (which the softirq pass loop calls,
 * once a pass). */
void __rcu_process_callbacks(rcu_ctrlblk *rcp, rcu_data *rdp, sim_time now);
/* The batch limit rcu_do_batch() applies now. */
int64_t rcu_batch_limit(const rcu_cfg *cfg, const rcu_data *rdp);
/* rcu_do_batch(): invoke up to the batch limit from donelist, the first
 * at @first_ns and each @cost_ns after the previous, recording each
 * call_rcu-to-invocation latency in @lat. Applies the watermark restore.
 * Returns the number invoked; *more says whether donelist is non-empty
 * (the tasklet re-raises itself). */
int64_t rcu_do_batch(const rcu_cfg *cfg, rcu_data *rdp, sim_time first_ns, sim_time cost_ns,
		     sim_hist *lat, bool *more);

/* Is the queue's layout sane (head <= done_end <= cur_end <= tail, at
 * most cap queued)? For checks. */
bool rcu_cbq_sane(const rcu_cbq *q);

#endif
