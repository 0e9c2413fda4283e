/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * domain.h - RCU domains as the CPU model sees them (issue 47, item 2).
 *
 * A kernel runs several RCU domains side by side: the normal RCU (Tree RCU
 * in 6.12, classic RCU in 2.6), and beside it SRCU's srcu_structs and the
 * Tasks RCU flavors, each with its own grace periods and callers. The CPU
 * code calls each one at the same places: rcu_note_context_switch() from
 * __schedule() (kernel/sched/core.c 6.12:6604; Tasks RCU's
 * rcu_tasks_qs() is inside it, include/linux/rcupdate.h 6.12:213),
 * rcu_sched_clock_irq() from update_process_times() (kernel/time/timer.c
 * 6.12:2488), the idle loop's ct_idle_enter()/ct_idle_exit(),
 * rcu_needs_cpu() from tick_nohz_next_event(), rcu_all_qs() from
 * cond_resched(), rcu_softirq_qs() from handle_softirqs(), and RCU_SOFTIRQ's
 * handler rcu_core(). Here each is a hook of rcu_domain_ops, and the CPU
 * model (models/kernel/) calls the hook of every registered domain in turn
 * (the rcu_* inlines below), never one flavor's function: ctest `layers`
 * fails if a file of the CPU model reaches past them.
 *
 * The registry (rcu_domains, in kmodel) holds up to RCU_MAX_DOMAINS, in the
 * order they were registered; a run registers one today, "rcu" (rcu/
 * rcu_domain.c: the flavor rcu.flavor names with Tree RCU's mechanisms),
 * and every metric keeps its name. A fixed small array: the hooks run on
 * the per-tick and per-switch paths. While the normal RCU is the registry's
 * only domain (rcu_domains.normal_only), each inline calls its hook by name
 * (rcu_dom_*(), rcu/rcu_domain.c), as the kernel's rcu_note_context_switch()
 * is the normal RCU's own function: no loop and no call through a table, so
 * link-time optimisation inlines the hook into the CPU model and a tick or a
 * softirq pass costs about what it did before the domains (the loop and the
 * table's call cost the seed 1.6% more instructions, bench/icount.sh; the
 * direct calls 0.2%). With more domains every hook goes through the loop.
 * What the callers' API (call_rcu(), synchronize_rcu(), ...) asks is a
 * domain's too: the domain is its first argument (kernel/kernel.h's job
 * services, rcu/mechanisms.h).
 *
 * Adding a domain (SRCU, Tasks RCU): docs/architecture.md, "Adding an RCU
 * domain".
 */
#ifndef RCUSIM_RCU_DOMAIN_H
#define RCUSIM_RCU_DOMAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "rcu/cbstats.h"
#include "rcu/rcu.h"

typedef struct kcpu kcpu;
typedef struct kmodel kmodel;
typedef struct job job;
typedef struct rcu_domain rcu_domain;

#define RCU_MAX_DOMAINS 4

/* One __do_softirq() run's RCU_SOFTIRQ handler, across its passes: set up
 * by softirq_begin at the run's start, kept by the caller. */
typedef struct rcu_softirq_run {
	rcu_core_ctx b;         /* the handler's context (times, need_resched at the start) */
	sim_time pass;          /* ns: a pass's fixed work (the softirq's and the handler's), stretched */
	rcu_effect e;           /* what its passes asked of the CPU, carried out at the run's end */
	bool first;             /* the next pass is the run's first */
} rcu_softirq_run;

/*
 * A domain's hooks. Each takes the domain and the CPU (kcpu, whose public
 * fields a hook may read: kernel/kernel.h); each may touch only its CPU's
 * state (a context switch may be noted late, at the end of a lazy softirq
 * run: kernel/cpu.c's kcpu_settle()). NULL is not allowed: a domain without
 * a mechanism gives a function that does nothing (rcu_domain_nop_*).
 */
typedef struct rcu_domain_ops {
	const char *name;       /* the domain's kind */
	/* rcu_note_context_switch(bool preempt) (tree_plugin.h 6.12:318-370)
	 * on @c at @now: a quiescent state, and what waits for one there (the
	 * expedited report). @preempt: the task leaves the CPU runnable. Not
	 * called under an injected no-QS fault. */
	void (*note_context_switch)(rcu_domain *d, kcpu *c, sim_time now, bool preempt);
	/* The first half of rcu_note_context_switch(true) for a task @j
	 * preempted inside rcu_read_lock() (rcu_preempt_ctxt_queue(),
	 * tree_plugin.h 6.12:332-353), where the CPU model decides the
	 * preemption (its interrupt's return), before schedule(). */
	void (*note_reader_preempted)(rcu_domain *d, kcpu *c, job *j);
	/* rcu_sched_clock_irq(int user) (tree.c 6.12:2655-2700) on @c at @now,
	 * the tick's RCU part. @user: 0 in a softirq run (the hardirq part only:
	 * in_softirq(), no quiescent state); RCU_USER_ASK otherwise: the
	 * interrupt's mode is drawn by the CPU model when the domain asks
	 * (kcpu_irq_in_kernel(), kcpu_irq_in_reader()), once for every
	 * domain. What it asks of the CPU it carries out itself. */
	void (*sched_clock_irq)(rcu_domain *d, kcpu *c, sim_time now, int user);
	/* ct_idle_enter() / ct_idle_exit(): @c's idle loop, an extended
	 * quiescent state. */
	void (*idle_enter)(rcu_domain *d, kcpu *c);
	void (*idle_exit)(rcu_domain *d, kcpu *c);
	/* rcu_needs_cpu() (tree.c 6.12:...): the domain needs @c's tick while it
	 * idles (irq.nohz_idle). */
	bool (*needs_cpu)(const rcu_domain *d, const kcpu *c);
	/* rcu_all_qs() from cond_resched() on @c. */
	void (*all_qs)(rcu_domain *d, kcpu *c);
	/* rcu_softirq_qs() from ksoftirqd on @c (softirq.c 6.12:566-567). */
	void (*softirq_qs)(rcu_domain *d, kcpu *c);
	/* __rcu_irq_enter_check_tick() (tree.c 6.12:647-681) for an interrupt
	 * entering nohz_full CPU @c. */
	void (*irq_enter_check_tick)(rcu_domain *d, kcpu *c);
	/* The domain's tick dependency on @c (TICK_DEP_BIT_RCU, _RCU_EXP). */
	bool (*tick_dep)(const rcu_domain *d, const kcpu *c);
	/* Context tracking of nohz_full CPU @cpu: user-mode entry
	 * (ct_user_enter(), kernel/context_tracking.c 6.12:320), exit (:338),
	 * and a pass through user mode and back (the watching counter's +2). */
	void (*ct_user_enter)(rcu_domain *d, int cpu);
	void (*ct_user_exit)(rcu_domain *d, int cpu);
	void (*ct_user_pass)(rcu_domain *d, int cpu);
	/* Callbacks queued on @cpu (the timeline's counter, the end's count). */
	int64_t (*qlen)(const rcu_domain *d, int cpu);

	/* RCU_SOFTIRQ's handler, rcu_core() (tree.c 6.12:2760-2803), NULL in a
	 * domain without one (SRCU, Tasks RCU): one domain of a run has it
	 * (rcu_domains.softirq). softirq_begin at a run's start on @c at @t
	 * (the caller's run ctx) fills *@run; softirq_pass runs one pass from
	 * *@at (the pass's work and its callbacks, *@at moved to its end, the
	 * timeline's record written), returns the callbacks invoked and in
	 * *@more whether ready ones remain; softirq_end at the passes' end
	 * carries out what they asked (*@run's e) at @t; softirq_done when the
	 * run ends at @now (a deferred quiescent state). */
	void (*softirq_begin)(rcu_domain *d, kcpu *c, sim_time t, rcu_softirq_run *run);
	int64_t (*softirq_pass)(rcu_domain *d, kcpu *c, rcu_softirq_run *run, sim_time *at, bool *more);
	void (*softirq_end)(rcu_domain *d, kcpu *c, sim_time t, rcu_softirq_run *run);
	void (*softirq_done)(rcu_domain *d, kcpu *c, sim_time now);
} rcu_domain_ops;

/* sched_clock_irq's @user when the CPU model leaves the draw to the domain. */
#define RCU_USER_ASK (-1)

/* A domain of a run: its kind's hooks, its state and the callers' API's
 * fast path (call_rcu() into its callback lists: the flavor's call_rcu
 * over its state, counted in its cb). */
struct rcu_domain {
	const rcu_domain_ops *ops;
	const char *name;       /* "rcu" (the normal RCU), an srcu_struct's name, ... */
	int id;                 /* its index in the registry */
	kmodel *k;              /* the run's model */
	void *state;            /* its kind's own */
	/* call_rcu() (NULL for a domain without callbacks): the flavor's
	 * operations over @rsp, counted in @cb. */
	const rcu_flavor *flavor;
	void *rsp;
	cb_stats *cb;
	bool cost_rng;          /* its hooks draw from each CPU's stream "rcu.core_cost" (kcpu.rng_cost) */
};

/* The registry: every domain of the run, in order. */
typedef struct rcu_domains {
	int n;
	rcu_domain *dom[RCU_MAX_DOMAINS];
	rcu_domain *softirq;    /* the one whose handler RCU_SOFTIRQ runs (NULL: none) */
	rcu_domain *normal_only; /* the normal RCU ("rcu") while it is the only domain, else NULL */
} rcu_domains;

/* Add @d to @ds (its id set). 0, or SIM_EINPUT when full or a second domain
 * has a softirq handler. */
int rcu_domains_register(rcu_domains *ds, rcu_domain *d);
/* The domain named @name, or NULL. */
rcu_domain *rcu_domains_find(const rcu_domains *ds, const char *name);

/* The normal RCU's hooks (rcu/rcu_domain.c), its rcu_domain_ops, called by
 * name while it is the only domain (rcu_domains.normal_only). */
extern const rcu_domain_ops rcu_domain_rcu_ops;
void rcu_dom_note_context_switch(rcu_domain *d, kcpu *c, sim_time now, bool preempt);
void rcu_dom_note_reader_preempted(rcu_domain *d, kcpu *c, job *j);
void rcu_dom_sched_clock_irq(rcu_domain *d, kcpu *c, sim_time now, int user);
void rcu_dom_idle_enter(rcu_domain *d, kcpu *c);
void rcu_dom_idle_exit(rcu_domain *d, kcpu *c);
bool rcu_dom_needs_cpu(const rcu_domain *d, const kcpu *c);
void rcu_dom_all_qs(rcu_domain *d, kcpu *c);
void rcu_dom_softirq_qs(rcu_domain *d, kcpu *c);
void rcu_dom_irq_enter_check_tick(rcu_domain *d, kcpu *c);
bool rcu_dom_tick_dep(const rcu_domain *d, const kcpu *c);
void rcu_dom_ct_user_enter(rcu_domain *d, int cpu);
void rcu_dom_ct_user_exit(rcu_domain *d, int cpu);
void rcu_dom_ct_user_pass(rcu_domain *d, int cpu);
int64_t rcu_dom_qlen(const rcu_domain *d, int cpu);
void rcu_dom_softirq_begin(rcu_domain *d, kcpu *c, sim_time t, rcu_softirq_run *run);
int64_t rcu_dom_softirq_pass(rcu_domain *d, kcpu *c, rcu_softirq_run *run, sim_time *at, bool *more);
void rcu_dom_softirq_end(rcu_domain *d, kcpu *c, sim_time t, rcu_softirq_run *run);
void rcu_dom_softirq_done(rcu_domain *d, kcpu *c, sim_time now);

/* ---- What the CPU model reads of RCU's configuration. ---- */

/* The nohz_full CPUs irq.nohz_full names in @mask[0..CPUs) (CPU 0 cleared:
 * tick_nohz_init() keeps the boot CPU for timekeeping), their count in
 * *nfull: the CPUs rcu_init_nohz() offloads (rcu/tree_nocb.c) and whose
 * ticks the CPU model stops. 0, or SIM_EINPUT with "file:line: key: why" in
 * @err. */
int rcu_nohz_full_mask(const sim_params *p, int ncpus, bool *mask, int *nfull, char *err, size_t errlen);

/* Does a domain of @ds draw from each CPU's stream "rcu.core_cost"
 * (kcpu.rng_cost, created by the CPU model only then)? */
static inline bool rcu_domains_draw_cost(const rcu_domains *ds)
{
	for (int i = 0; i < ds->n; i++)
		if (ds->dom[i]->cost_rng)
			return true;
	return false;
}

/* Hooks that do nothing, for a domain without the mechanism. */
void rcu_domain_nop_cpu(rcu_domain *d, kcpu *c);
void rcu_domain_nop_ct(rcu_domain *d, int cpu);
bool rcu_domain_no_cpu_need(const rcu_domain *d, const kcpu *c);

/* ---- The CPU model's calls: every domain's hook in turn. ---- */

#define for_each_rcu_domain(ds, d)                                                           \
	for (rcu_domain *const *d##_p = (ds)->dom, *const *d##_e = (ds)->dom + (ds)->n, *d;      \
	     d##_p < d##_e && ((d = *d##_p), 1); d##_p++)

/* The normal RCU when it is @ds's only domain (its hooks called by name),
 * else NULL (every domain's through the loop). */
static inline rcu_domain *rcu_domains_normal_only(const rcu_domains *ds)
{
	return ds->normal_only;
}

static inline void rcu_note_context_switch(rcu_domains *ds, kcpu *c, sim_time now, bool preempt)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n) {
		rcu_dom_note_context_switch(n, c, now, preempt);
		return;
	}
	for_each_rcu_domain(ds, d)
		d->ops->note_context_switch(d, c, now, preempt);
}

static inline void rcu_note_reader_preempted(rcu_domains *ds, kcpu *c, job *j)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n) {
		rcu_dom_note_reader_preempted(n, c, j);
		return;
	}
	for_each_rcu_domain(ds, d)
		d->ops->note_reader_preempted(d, c, j);
}

static inline void rcu_sched_clock_irq(rcu_domains *ds, kcpu *c, sim_time now, int user)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n) {
		rcu_dom_sched_clock_irq(n, c, now, user);
		return;
	}
	for_each_rcu_domain(ds, d)
		d->ops->sched_clock_irq(d, c, now, user);
}

static inline void rcu_idle_enter(rcu_domains *ds, kcpu *c)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n) {
		rcu_dom_idle_enter(n, c);
		return;
	}
	for_each_rcu_domain(ds, d)
		d->ops->idle_enter(d, c);
}

static inline void rcu_idle_exit(rcu_domains *ds, kcpu *c)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n) {
		rcu_dom_idle_exit(n, c);
		return;
	}
	for_each_rcu_domain(ds, d)
		d->ops->idle_exit(d, c);
}

static inline bool rcu_needs_cpu(const rcu_domains *ds, const kcpu *c)
{
	const rcu_domain *n = rcu_domains_normal_only(ds);
	if (n)
		return rcu_dom_needs_cpu(n, c);
	for_each_rcu_domain(ds, d)
		if (d->ops->needs_cpu(d, c))
			return true;
	return false;
}

static inline void rcu_all_qs(rcu_domains *ds, kcpu *c)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n) {
		rcu_dom_all_qs(n, c);
		return;
	}
	for_each_rcu_domain(ds, d)
		d->ops->all_qs(d, c);
}

static inline void rcu_softirq_qs(rcu_domains *ds, kcpu *c)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n) {
		rcu_dom_softirq_qs(n, c);
		return;
	}
	for_each_rcu_domain(ds, d)
		d->ops->softirq_qs(d, c);
}

static inline void rcu_irq_enter_check_tick(rcu_domains *ds, kcpu *c)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n) {
		rcu_dom_irq_enter_check_tick(n, c);
		return;
	}
	for_each_rcu_domain(ds, d)
		d->ops->irq_enter_check_tick(d, c);
}

static inline bool rcu_tick_dep(const rcu_domains *ds, const kcpu *c)
{
	const rcu_domain *n = rcu_domains_normal_only(ds);
	if (n)
		return rcu_dom_tick_dep(n, c);
	for_each_rcu_domain(ds, d)
		if (d->ops->tick_dep(d, c))
			return true;
	return false;
}

static inline void rcu_ct_user_enter(rcu_domains *ds, int cpu)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n) {
		rcu_dom_ct_user_enter(n, cpu);
		return;
	}
	for_each_rcu_domain(ds, d)
		d->ops->ct_user_enter(d, cpu);
}

static inline void rcu_ct_user_exit(rcu_domains *ds, int cpu)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n) {
		rcu_dom_ct_user_exit(n, cpu);
		return;
	}
	for_each_rcu_domain(ds, d)
		d->ops->ct_user_exit(d, cpu);
}

static inline void rcu_ct_user_pass(rcu_domains *ds, int cpu)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n) {
		rcu_dom_ct_user_pass(n, cpu);
		return;
	}
	for_each_rcu_domain(ds, d)
		d->ops->ct_user_pass(d, cpu);
}

/* Callbacks queued on @cpu, every domain's. */
static inline int64_t rcu_qlen(const rcu_domains *ds, int cpu)
{
	const rcu_domain *n = rcu_domains_normal_only(ds);
	if (n)
		return rcu_dom_qlen(n, cpu);
	int64_t q = 0;
	for_each_rcu_domain(ds, d)
		q += d->ops->qlen(d, cpu);
	return q;
}

/* RCU_SOFTIRQ's handler (rcu_domains.softirq, which must exist) in a
 * softirq run on @c: its start at @t, each pass, the passes' end at @t
 * (the hooks softirq_begin, _pass and _end). */
static inline void rcu_softirq_begin(rcu_domains *ds, kcpu *c, sim_time t, rcu_softirq_run *run)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n)
		rcu_dom_softirq_begin(n, c, t, run);
	else
		ds->softirq->ops->softirq_begin(ds->softirq, c, t, run);
}

static inline int64_t rcu_softirq_pass(rcu_domains *ds, kcpu *c, rcu_softirq_run *run, sim_time *at,
				       bool *more)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n)
		return rcu_dom_softirq_pass(n, c, run, at, more);
	return ds->softirq->ops->softirq_pass(ds->softirq, c, run, at, more);
}

static inline void rcu_softirq_end(rcu_domains *ds, kcpu *c, sim_time t, rcu_softirq_run *run)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n)
		rcu_dom_softirq_end(n, c, t, run);
	else
		ds->softirq->ops->softirq_end(ds->softirq, c, t, run);
}

/* When a softirq run ends on @c at @now. */
static inline void rcu_softirq_done(rcu_domains *ds, kcpu *c, sim_time now)
{
	rcu_domain *n = rcu_domains_normal_only(ds);
	if (n)
		rcu_dom_softirq_done(n, c, now);
	else if (ds->softirq)
		ds->softirq->ops->softirq_done(ds->softirq, c, now);
}

#endif
