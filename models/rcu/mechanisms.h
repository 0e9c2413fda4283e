/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * mechanisms.h - Tree RCU's mechanisms that run on the CPU model, as the
 * kernel keeps them in kernel/rcu/ (6.12): the grace-period kthread with
 * synchronize_rcu()'s wake-from-GP (rcu_gp_kthread.c, tree.c), rcuc
 * (rcu_cpu_kthread.c, tree_plugin.h), offloading's rcuog and rcuo
 * (rcu_nocb_kthreads.c, tree_nocb.h), expedited grace periods
 * (rcu_exp.c, tree_exp.h), readers preempted inside rcu_read_lock() and
 * their boosting (rcu_readers.c, tree_plugin.h), kfree_rcu() batching
 * (kfree_rcu.c, tree.c) and rcu_barrier() (rcu_barrier.c, tree.c). They are
 * kthreads, IPIs and work items of the CPU model and reach it only through
 * kernel/kernel.h. Called by the kernel model (each a part of kernel.c's
 * kparts[], writing its own metrics; the CPU model delivers their events) and by the workloads (the callers' API:
 * rcu_srs_request(), rcu_exp_request(), kfree_rcu_n()).
 */
#ifndef RCUSIM_RCU_MECHANISMS_H
#define RCUSIM_RCU_MECHANISMS_H

#include <stdlib.h>

#include "kernel/kernel.h"

/* ---- Wait lists: jobs waiting for a grace period are on their
 * mechanism's list (linked by job.wait_next), and those one end wakes are
 * gathered in an array, woken in the jobs' order (every load's jobs
 * numbered in turn, job_number()), as the scans over all jobs they
 * replace woke them. */
static inline int64_t job_number(const job *j) { return j->wl->first + (j - j->wl->jobs); }

static inline int job_number_cmp(const void *a, const void *b)
{
	int64_t x = job_number(*(job *const *)a), y = job_number(*(job *const *)b);
	return (x > y) - (x < y);
}

/* A growable array of jobs. */
typedef struct job_vec {
	job **v;                /* the jobs */
	int64_t n, cap;         /* how many, room */
} job_vec;

/* Append @j to @a. 0 or SIM_ENOMEM. */
static inline int job_vec_push(job_vec *a, job *j)
{
	if (a->n == a->cap) {
		int64_t cap = a->cap ? 2 * a->cap : 16;
		job **v = realloc(a->v, (size_t)cap * sizeof(*v));
		if (!v)
			return SIM_ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = j;
	return 0;
}

/* @a's jobs in the jobs' order. */
static inline void job_vec_sort(job_vec *a)
{
	if (a->n > 1)
		qsort(a->v, (size_t)a->n, sizeof(*a->v), job_number_cmp);
}

/*
 * Tree RCU's state of three mechanisms, kept as the kernel keeps it in
 * struct rcu_state (kernel/rcu/tree.h 6.12:340-427): the expedited grace
 * periods' (375-380, rcu_exp.c), synchronize_rcu()'s wake-from-GP's
 * (416-421, rcu_gp_kthread.c) and rcu_barrier()'s (366-371, rcu_barrier.c).
 * Each file allocates its own in its create when its mechanism is modelled
 * (krcu.exp, .srs, .bar: NULL when not) and frees it in its destroy; the
 * kernel model sees only the pointers (kernel/kernel.h).
 */
struct rcu_exp_state {
	bool running;           /* one is in progress (started, not ended) */
	bool boost;             /* rcu.boost: readers it waits for are boosted (rcu_exp_boost()) */
	workqueue *kworker;     /* rcu_exp_gp_kworker, a kthread_worker */
	work_struct gp_work;    /* its work: start the next grace period, or end the one done */
	uint64_t seq;           /* rcu_state.expedited_sequence */
	uint64_t need;          /* the newest snapshot a caller waits for */
	int64_t left;           /* CPUs the one in progress still waits for */
	int64_t readers;        /* preempted readers it still waits for */
	sim_time start;         /* ns: it started */
	sim_time last[2];       /* ns: start and end of the last expedited GP to end (-1: none) */
	workqueue **leafk;      /* each leaf's kthread_worker but the last leaf's (nleafk) */
	work_struct *leaf_work; /* the scan queued on each (rnp->rew.rew_work) */
	int nleafk;             /* leaves - 1 */
	int leaves;             /* leaf scans of the one in progress not yet done */
	bool scanning;          /* the kworker's step is its scan (its IPIs at the end) */
	int64_t nwake;          /* waiters its end wakes at the kworker's step end */
	job *waiters;           /* callers waiting for their snapshot, oldest first (job.wait_next) */
	job **waiters_tail;     /* where the next one goes */
	job_vec wake;           /* those its end wakes, in the jobs' order */
	sim_time send_cost;     /* ns: rcu.exp_ipi_send_cost */
	sim_time scan_cost;     /* ns: rcu.exp_scan_cost, a CPU its leaf scans look at */
	sim_time wake_cost;     /* ns: rcu.exp_wake_cost, a caller woken at its end */
	sim_time stall_ns;      /* ns: the expedited stall timeout */
	sim_hist *dur;          /* exp.duration_ns */
	uint64_t gps, ipis, ndeferred, hints, readers_waited, stalls;
	sim_time ipi_cpu_ns;    /* ns: the handlers' CPU time */
};

struct rcu_srs_state {
	sim_time wake_cost;     /* ns: rcu.srs_wake_cost, a waiter woken */
	kthread *kworker;       /* the sync_wq kworker waking the waiters past the first 5 */
	int64_t left;           /* waiters it has yet to wake */
	uint64_t woken_gp, woken_wq; /* waiters woken by the GP kthread, by the kworker */
	int heads;              /* wait heads in use (of SR_NORMAL_GP_WAIT_HEAD_MAX) */
	int heads_work;         /* of them, left to the kworker to put back (srs_cleanups_pending) */
	bool dummy;             /* one of them is the done tail (srs_done_tail) */
	bool cur_head;          /* one of them marks the grace period in progress (srs_wait_tail) */
	uint64_t no_head;       /* grace periods that started with waiters and no free wait head */
	job *pending;           /* waiters no grace period has taken yet, oldest first (job.wait_next) */
	job **pending_tail;     /* where the next one goes */
	job *taken;             /* waiters grace periods took (srs_assigned), not yet woken */
	job_vec direct;         /* woken at the GP kthread's step end, in the jobs' order */
	job_vec wq;             /* left to the kworker (srs_wq) */
};

struct rcu_barrier_state {
	kthread *caller;        /* the thread calling rcu_barrier() in a loop */
	int phase;              /* where the caller is (rcu_barrier.c's BAR_*) */
	int cursor;             /* the next CPU its loop looks at */
	int target;             /* the CPU its IPI goes to, -1 at the loop's end */
	int64_t count;          /* rcu_state.barrier_cpu_count */
	sim_time start;         /* ns: the call in progress began */
	sim_time not_before;    /* ns: the latest barrier callback's invocation so far */
	sim_time gap;           /* ns: workload.barrier_gap */
	sim_time send_cost;     /* ns: rcu.exp_ipi_send_cost */
	sim_time scan_cost;     /* ns: rcu.barrier_scan_cost, a CPU its loop looks at */
	sim_timer ipi;          /* its IPI on its way to target */
	sim_hist *dur;          /* barrier.duration_ns */
	uint64_t calls, returned, ipis, waited, flushed, lazy;
	sim_time ipi_cpu_ns;    /* ns: the handlers' CPU time */
};

/* rcu_gp_kthread.c, rcu_cpu_kthread.c, rcu_nocb_kthreads.c: the RCU
 * flavor's kthreads, each family a part of kernel.c's kparts[] (create,
 * destroy, finish). A family creates nothing when its mechanism is off;
 * its destroy frees what its create allocated (after a failed create too);
 * its finish writes its scalars (none when off), 0 or nonzero (out of
 * memory). */
extern const kthread_ops rcu_gp_kthread_ops;
extern const kthread_ops rcu_cpu_kthread_ops;
extern const kthread_ops rcu_nocb_gp_kthread_ops, rcu_nocb_cb_kthread_ops;
int rcu_gp_kthread_create(kmodel *k, const sim_params *p, int prio);
int rcu_cpu_kthreads_create(kmodel *k, const sim_params *p, int prio);
int rcu_nocb_kthreads_create(kmodel *k, const sim_params *p, int prio);
void rcu_gp_kthread_destroy(kmodel *k);
void rcu_cpu_kthreads_destroy(kmodel *k);
void rcu_nocb_kthreads_destroy(kmodel *k);
/* gp.kthread_* and fqs.resched_cpu, and syncrcu.woken_by_* (wake-from-GP);
 * a GP kthread still waiting at @now has waited until then. */
int rcu_gp_kthread_finish(const kmodel *k, sim_metrics *m, sim_time now);
int rcu_cpu_kthreads_finish(const kmodel *k, sim_metrics *m, sim_time now);
int rcu_nocb_kthreads_finish(const kmodel *k, sim_metrics *m, sim_time now);
/* synchronize_rcu() of job @j on @c at @now under rcu.normal_wake_from_gp:
 * on the srs list, a grace period asked for; the job sleeps until woken. */
void rcu_srs_request(kcpu *c, job *j, sim_time now);
/* rcu_gp_kthread_wake() from CPU @waker (-1: none in particular) at @now. */
void rcu_gp_kthread_kick(kmodel *k, int waker, sim_time now);
/* The GP kthread's CPU at the start: rcu.gp_kthread_cpu, or with auto the
 * last housekeeping CPU (where it last ran before the run is unknown; the
 * highest-numbered CPU is the one scenarios' loads fill last). */
int rcu_gp_kthread_first_cpu(const kmodel *k, const sim_params *p);
/* invoke_rcu_core() on @c at @now: RCU_SOFTIRQ, or its rcuc kthread. */
void rcu_invoke_core(kcpu *c, sim_time now);
/* Carry out at @now the kicks the flavor left (rcu_flavor.nocb_kicks).
 * Only with k->rcu.nocb; called by kcpu_rcu_effect() only. */
void rcu_nocb_kicks(kmodel *k, sim_time now);
/* Timer handler: an offloading group's nocb_timer fires on its rcuog's CPU. */
void rcu_nocb_timer_fire(sim_engine *eng, sim_timer *tm);

/* rcu_domain.c: the normal RCU as the run's domain "rcu" (rcu/domain.h
 * declares its hooks and rcu_domain_rcu_ops), its hooks over the flavor and
 * the mechanisms here, and what RCU asks of a CPU (kernel.h's
 * kcpu_rcu_effect_apply()). */
/* The part "rcu" of kernel.c's kparts[]: the flavor rcu.flavor names over
 * krcu's costs and callbacks' counts (each callback's function @invoke),
 * registered as the domain "rcu". 0, SIM_ENOMEM or SIM_EINPUT (message);
 * destroy frees it after a failed create too. sample: the flavor's series;
 * finish: the cb.* scalars and the flavor's. 0 or SIM_ENOMEM. */
int rcu_domain_create(kmodel *k, const sim_params *p, sim_metrics *m, rcu_invoke_fn *invoke,
		      void *invoke_ctx, char *err, size_t errlen);
void rcu_domain_destroy(kmodel *k);
int rcu_domain_sample(kmodel *k, sim_time now);
int rcu_domain_finish(kmodel *k, sim_metrics *m, sim_time now);
/* The callers' API beside kernel.h's job_call_rcu(), each in domain @d.
 * synchronize_rcu() of job @j on @c at @now, reached at @at: expedited when
 * the domain's callers expedite (rcu.expedited: rcu_gp_is_expedited(), or
 * workload.syncrcu_expedited: synchronize_rcu_expedited()), on the srs list
 * under rcu.normal_wake_from_gp, else call_rcu(wakeme_after_rcu) of @obj
 * (the caller's callback function wakes it). The caller puts the job to
 * sleep. 0 or -1 (kfail() called). */
int job_synchronize_rcu(rcu_domain *d, kcpu *c, job *j, sim_time now, sim_time at, uint32_t obj,
			job_effect *eff);
/* kfree_rcu() of @n objects (kfree_rcu_n() below) in domain @d. */
int64_t job_kfree_rcu_n(rcu_domain *d, kcpu *c, int64_t n, sim_time t0, sim_time step, sim_time now,
			rcu_effect *e, sim_time *sync_at);
/* The batch limit rcu_do_batch() computes for @cpu now (tree.c
 * 6.12:2527-2530); 0 with classic RCU (no rcu_batch events). */
int64_t rcu_do_batch_limit(const kmodel *k, int cpu);
/* rcu_state.gp_seq (tree.h 6.12:350). */
uint64_t rcu_gp_seq(const kmodel *k);

/* kfree_rcu.c: kfree_rcu() batching. */

/* With a workload whose kfree_rcu()s are batched (workload_ops.kfree_batched):
 * the per-CPU state and system_unbound_wq, or with workload.kfree_by_call_rcu each
 * object a call_rcu(). 0 or SIM_ENOMEM; destroy frees them. */
int kfree_rcu_create(kmodel *k, const sim_params *p);
void kfree_rcu_destroy(kmodel *k);
/* Its point of mem.pending_bytes at @now, when modelled. 0 or SIM_ENOMEM. */
int kfree_rcu_sample(const kmodel *k, sim_metrics *m, sim_time now);
/* @n kfree_rcu()s on @c, made at @t0, @t0 + @step, ..., accounted at @now;
 * what the shrinker's callbacks ask of @c in *@e. Returns how many were
 * made: all, or up to one that found no page (rcu.kfree_alloc_fails), made
 * at *@sync_at (else -1), whose thread must synchronize_rcu() and then
 * free it (kfree_rcu_sync_done()). */
int64_t kfree_rcu_n(kcpu *c, int64_t n, sim_time t0, sim_time step, sim_time now, rcu_effect *e,
		    sim_time *sync_at);
/* The object of a synchronous fallback made at @at is freed at @t. */
void kfree_rcu_sync_done(kmodel *k, sim_time at, sim_time t);
/* The callback of batch @obj (1 + CPU x 2 + batch; 0: not a batch's) invoked at @t:
 * its kfree_rcu_work() queued (rcu_work_rcufn()). */
void kfree_rcu_batch_invoke(kmodel *k, uint32_t obj, sim_time t);
/* Bytes held now: pending objects and the pages holding them (cached too). */
int64_t kfree_rcu_bytes(const kmodel *k);
/* Its scalars (kfree.*), when modelled. 0 or SIM_ENOMEM. */
int kfree_rcu_finish(const kmodel *k, sim_metrics *m);

/* rcu_exp.c: expedited grace periods. */

/* The kworker and its state, when a caller asks for expedited grace
 * periods (rcu.expedited or workload.syncrcu_expedited, not rcu.normal,
 * Tree RCU). 0 or SIM_ENOMEM; destroy frees them. */
int rcu_exp_create(kmodel *k, const sim_params *p, sim_metrics *m);
void rcu_exp_destroy(kmodel *k);
/* synchronize_rcu_expedited() of job @j on @c at @now: its snapshot, the
 * kworker woken if it has work; the job sleeps until exp_woken(). */
void rcu_exp_request(kcpu *c, job *j, sim_time now);
/* @c's quiescent state for the expedited grace period in progress, at
 * @now (it owes one). */
void rcu_exp_report(kcpu *c, sim_time now);
/* Job @j, preempted inside a reader on @c, joins the readers the grace
 * period in progress waits for if @c still owes it one. */
void rcu_exp_reader_preempted(kcpu *c, job *j);
/* Job @j (exp_blocks) reached its rcu_read_unlock() at @now. */
void rcu_exp_reader_unlocked(kcpu *c, job *j, sim_time now);
/* rcu_state.expedited_sequence (tree.h 6.12:377): 0 when not modelled. */
uint64_t rcu_exp_seq(const kmodel *k);
/* Its scalars (exp.*), when modelled. 0 or SIM_ENOMEM. */
int rcu_exp_finish(const kmodel *k, sim_metrics *m);
/* Timer handlers: an expedited IPI lands; a reader the handler found
 * reaches its rcu_read_unlock(). */
void kcpu_exp_ipi_fire(sim_engine *eng, sim_timer *tm);
void kcpu_exp_rdr_fire(sim_engine *eng, sim_timer *tm);

/* rcu_readers.c: readers preempted inside rcu_read_lock(). */

/* The lists (with rcu.preempt_rcu). 0 or SIM_ENOMEM; destroy frees them. */
int rcu_readers_create(kmodel *k);
void rcu_readers_destroy(kmodel *k);
/* kernel.readers_boosted, when readers are boosted (preemptible RCU under
 * EEVDF). 0 or nonzero (out of memory). */
int rcu_readers_finish(const kmodel *k, sim_metrics *m);
/* @j, running on @c, is preempted inside a reader: on its leaf's list
 * (the flavor decides whether it blocks the grace period), a uniform share
 * of a reader left to run. */
void kcpu_reader_preempted(kcpu *c, job *j);
/* The FQS scan asked to boost the readers of @n leaves at @now. */
void rcu_boost_leaves(kmodel *k, const int *leaves, int n, sim_time now);
/* rcu_boost() for an expedited grace period on leaf rcu_node @leaf at
 * @now: with rcu.boost, unless a reader there is boosted already, boost the
 * newest one the expedited grace period waits for (exp_tasks). */
void rcu_exp_boost(kmodel *k, int leaf, sim_time now);
/* Timer handler: the running job's rcu_read_unlock() of the reader it was
 * preempted in. */
void kcpu_unlock_fire(sim_engine *eng, sim_timer *tm);

/* ---- rcu_barrier.c ---- */

/* The rcu_barrier() caller of workload.barrier on Tree RCU (nothing
 * otherwise). 0 or SIM_ENOMEM. */
int rcu_barrier_create(kmodel *k, const sim_params *p, sim_metrics *m);
void rcu_barrier_destroy(kmodel *k);
/* rcu_barrier_callback() (the flavor's env.barrier_done): an entrained
 * barrier callback on @cpu is invoked at @t. */
void rcu_barrier_callback(void *ctx, int cpu, sim_time t);
/* Its barrier.* scalars, when it exists. 0 or SIM_ENOMEM. */
int rcu_barrier_finish(const kmodel *k, sim_metrics *m);

#endif
