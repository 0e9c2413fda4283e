/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rcu.h - an RCU implementation as the CPU model sees it: a table of
 * operations (rcu_flavor) over a state the flavor owns, after the hooks the
 * kernel's CPU code calls: call_rcu(), the tick's RCU part (2.6:
 * rcu_check_callbacks() when rcu_pending(); 6.x: rcu_sched_clock_irq()),
 * the quiescent state at context switch, the softirq (tasklet) handler,
 * and what a run samples and reports. Classic RCU (rcu/classic.c,
 * 2.6.14-2.6.16) is the first flavor, Tree RCU of 6.12 (rcu/tree_flavor.c
 * over tree.c) the second; a new one is one file and its entry (with its
 * extern declaration) in rcu_flavors[] (rcu.c).
 * The flavor decides nothing about CPU time: the caller pays for every
 * call at the costs it holds and decides when each runs, including the
 * steps of a flavor's grace-period kthread (gp_step), which the caller runs
 * as a task on a CPU.
 * The operations marked optional may be NULL in a flavor without them
 * (classic): rcu_flavor_fill() puts in each one's default, so the caller
 * calls them without a test, but for call_rcu_n, gp_step and
 * barrier_entrain, which it asks for; gp_wakeable is called only with gp_step, and the offloading
 * operations after nocb_groups only when it is above 0.
 */
#ifndef RCUSIM_MODELS_RCU_H
#define RCUSIM_MODELS_RCU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "metrics.h"
#include "registry.h"

/* A cost knob of one mechanism (issue 47, item 7) whose default, "auto",
 * is the older knob @alias that priced that mechanism with others
 * (rcu.tasklet_cost, rcu.fqs_cpu_cost): @id's value if set, else @alias's,
 * so that a scenario file setting the old name moves every mechanism it
 * priced, and one setting the new name only its own. */
static inline int64_t rcu_cost_param(const sim_params *p, int id, int alias)
{
	return sim_params_is_auto(p, (size_t)id) ? sim_params_int(p, (size_t)alias)
						 : sim_params_int(p, (size_t)id);
}

/* What call_rcu, the tick or the RCU core work asks of its caller (or'ed
 * in; the name is call_rcu's, the first to have one). */
typedef struct rcu_effect {
	bool need_resched;   /* set_need_resched() on this CPU */
	bool send_ipis;      /* smp_send_reschedule() to every other CPU rcu_cpu_owes_qs() names */
	bool wake_gp;        /* wake the grace-period kthread (rcu_gp_kthread_wake()) */
	bool raise;          /* invoke_rcu_core(): RCU core work for this CPU (its softirq,
				or its rcuc kthread when core_kthread says so) */
} rcu_effect;

/* A task preempted inside rcu_read_lock() under PREEMPT_RCU, as its leaf
 * rcu_node's blocked-tasks list knows it (tree_plugin.h 6.12:162-278):
 * kept by the task, filled in by the flavor. */
typedef struct rcu_reader {
	int leaf;            /* the leaf rcu_node it queued on (rcu_blocked_node) */
	uint64_t q_init;     /* that node's grace periods begun when it queued */
	bool q_blocks;       /* it blocked the one in progress then (its CPU owed it) */
	bool queued;         /* on the list (rcu_read_unlock_special.b.blocked) */
} rcu_reader;

/* How the RCU core work on a CPU runs: its handler's context and times. */
typedef struct rcu_core_ctx {
	sim_time now;        /* ns: the run's start */
	sim_time first_ns;   /* ns: the first callback's start */
	sim_time cost_ns;    /* ns: each callback's CPU time */
	bool need_resched;   /* need_resched() is set on the CPU */
	bool idle_task;      /* the CPU runs its idle task (a softirq at irq_exit from idle) */
	bool kthread;        /* in the per-CPU rcuc kthread, not the softirq */
} rcu_core_ctx;

/* What a grace-period kthread's step leaves its caller to do. */
typedef enum rcu_gp_next {
	RCU_GP_NEXT_RUN,     /* run the next step at once (after this one's CPU time) */
	RCU_GP_NEXT_SLEEP,   /* sleep until woken (gp_wakeable) */
	RCU_GP_NEXT_TIMEOUT, /* sleep until woken or until timeout_ns */
} rcu_gp_next;

typedef struct rcu_gp_work {
	int64_t nodes;       /* rcu_node structures the step walked (init, cleanup, FQS leaves) */
	int64_t cpus;        /* CPUs whose state it examined (FQS) */
	const int *resched;  /* CPUs to resched_cpu() at the step's end, valid until the next step */
	int nresched;        /* how many */
	const int *boost;    /* leaves whose blocked readers to start boosting (rcu_initiate_boost()) */
	int nboost;          /* how many */
	rcu_gp_next next;    /* then */
	sim_time timeout_ns; /* ns: RCU_GP_NEXT_TIMEOUT's deadline (absolute) */
} rcu_gp_work;

/* The callbacks' function: what invoking the callbacks of the @n objects
 * @objs on @cpu, in order, does (file_free_rcu -> kmem_cache_free for
 * struct file; wakeme_after_rcu -> complete() for synchronize_rcu), the
 * first at @first_ns and each @cost_ns after the one before. Called with
 * each run of consecutive callbacks a batch invokes, so that the function
 * costs one call per run, not per callback. */
typedef void rcu_invoke_fn(void *ctx, int cpu, const uint32_t *objs, size_t n, sim_time first_ns,
			   sim_time cost_ns);
/* rcu_barrier_callback() (tree.c 6.12:4477-4489): the callback
 * rcu_barrier() entrained on @cpu (barrier_entrain) is invoked at @t. */
typedef void rcu_barrier_fn(void *ctx, int cpu, sim_time t);

/* Offloading (rcu_nocbs): what the flavor leaves its caller to do for the
 * rcuog and rcuo kthreads and the groups' deferred-wakeup timers, gathered
 * between calls and taken with nocb_kicks(). */
typedef enum rcu_nocb_kick_kind {
	RCU_KICK_RCUOG,      /* wake group id's rcuog kthread (if its wait would end) */
	RCU_KICK_RCUO,       /* wake CPU id's rcuo kthread (if its wait would end) */
	RCU_KICK_TIMER,      /* group id's nocb_timer was armed, moved or deleted (nocb_timer_when) */
} rcu_nocb_kick_kind;

typedef struct rcu_nocb_kick {
	rcu_nocb_kick_kind kind; /* what */
	int id;              /* its group or CPU */
} rcu_nocb_kick;

/* What one step of an rcuog or rcuo kthread did. */
typedef struct rcu_nocb_work {
	int64_t invoked;     /* rcuo: callbacks invoked, the first at b->first_ns, each b->cost_ns on */
	bool sleep;          /* it waits (for a wakeup) after this step; else another step at once */
	bool wake_gp;        /* wake the grace-period kthread */
} rcu_nocb_work;

/* What a flavor is built from. */
typedef struct rcu_flavor_env {
	const sim_params *p; /* its rcu.* parameters */
	sim_metrics *m;      /* where its own metrics (gp.*) go */
	sim_hist *lat;       /* call_rcu to invocation, ns, of every invoked callback */
	int ncpus;           /* CPUs */
	rcu_invoke_fn *invoke; /* each callback's function, or NULL: callbacks carry no object */
	void *invoke_ctx;    /* its first argument */
	sim_time tick_ns;    /* ns between ticks: one jiffy */
	bool hurry;          /* the workload's call site is call_rcu_hurry() (never lazy) */
	bool bulk_calls;     /* the workload queues its callbacks in bulk (call_rcu_n) */
	rcu_barrier_fn *barrier_done; /* an entrained rcu_barrier() callback's function, or NULL */
	void *barrier_ctx;   /* its first argument */
	sim_time *last_gp;   /* [2] ns: the flavor writes each grace period's start and end
			      * there as it ends (synchronize_rcu()'s breakdown), or NULL */
} rcu_flavor_env;

/* What a flavor offers besides the table's operations (rcu_flavor.caps),
 * asked by the parts that need it (rcu_flavor_can()) instead of comparing
 * its name. */
enum {
	RCU_CAP_PREEMPT_RCU = 1u << 0, /* preemptible RCU (rcu.preempt_rcu): readers preempted,
					* boosted (rcu/rcu_readers.c) */
	RCU_CAP_EXPEDITED = 1u << 1,   /* synchronize_rcu_expedited() (rcu/rcu_exp.c) */
	RCU_CAP_KFREE_BATCH = 1u << 2, /* kfree_rcu()'s batching (rcu/kfree_rcu.c) */
	RCU_CAP_CORE_COST_SPREAD = 1u << 3, /* its RCU_SOFTIRQ handler's first pass of a run
					     * costs a lognormal draw (rcu.core_cost_sigma) */
};

typedef struct rcu_flavor {
	const char *name; /* the rcu.flavor value */
	unsigned caps;    /* RCU_CAP_* it offers */
	/* The knob tables of the flavor's parts (params.h), NULL-terminated:
	 * the knobs each reads, with rcu.flavor = name, and when. */
	const sim_knobs *const *knobs;
	/* Its own configuration from the parameters fits the machine: 0,
	 * SIM_EINPUT (message naming where the value was set) or SIM_ENOMEM.
	 * Called with rcu.flavor = name, after the knobs. NULL: nothing to
	 * check. */
	int (*validate)(const sim_params *p, char *err, size_t errlen);
	/* The run's policy label (the database's run.policy), when it is not
	 * the flavor's name: classic RCU's is rcu.policy. NULL: the name. */
	const char *(*policy_label)(const sim_params *p);
	/* Build the state from @env into *rsp (freed by destroy even when
	 * create fails part-way). 0, SIM_ENOMEM or SIM_EINPUT (message). */
	int (*create)(void **rsp, const rcu_flavor_env *env, char *err, size_t errlen);
	void (*destroy)(void *rsp); /* NULL is a no-op */
	/* call_rcu() on @cpu at @at (<= now) for object @obj; effects for
	 * the caller in *eff. 0 or SIM_ENOMEM. */
	int (*call_rcu)(void *rsp, int cpu, sim_time at, uint32_t obj, rcu_effect *eff);
	/* @n call_rcu()s on @cpu of object 0, called at @t0, @t0 + @step,
	 * ... (all <= now), with the state and effects of the calls one by
	 * one; NULL: the caller makes them one by one. 0 or SIM_ENOMEM. */
	int (*call_rcu_n)(void *rsp, int cpu, sim_time t0, sim_time step, int64_t n,
			  rcu_effect *eff);
	/* The tick on @cpu at @now: update_process_times()'s RCU part
	 * (2.6: rcu_check_callbacks() when rcu_pending(); 6.x:
	 * rcu_sched_clock_irq()), @user meaning from user mode or the idle
	 * task; effects in *eff (raise: RCU core work; need_resched: an
	 * urgent quiescent state). In a softirq run @user is false and a
	 * raise restarts the run. */
	void (*sched_clock_irq)(void *rsp, int cpu, sim_time now, bool user, bool reader,
				rcu_effect *eff);
	/* Does the tick on @cpu read @user now (2.6: rcu_pending(); 6.x: a
	 * quiescent state or urgency pending)? The caller draws it only then. */
	bool (*tick_reads_mode)(const void *rsp, int cpu);
	/* The quiescent state schedule() reports on @cpu (rcu_qsctr_inc). It
	 * may be called after later events on other CPUs (a context switch at
	 * the end of a lazy softirq run, kernel/cpu.c's kcpu_settle()), so it changes only @cpu's own
	 * state, read by nothing but @cpu's own handlers. */
	void (*rcu_note_context_switch)(void *rsp, int cpu);
	/* The RCU softirq handler on @cpu, the first pass of a __do_softirq
	 * run (or an rcuc kthread's pass) as @b says: list moves and the
	 * quiescent-state check, then rcu_do_batch() as below. Effects in
	 * *eff (a grace period to start or end: wake_gp). */
	int64_t (*rcu_process_callbacks)(void *rsp, int cpu, const rcu_core_ctx *b, bool *more,
					 rcu_effect *eff);
	/* The handler's later passes in the same run: classic's tasklet
	 * re-raised itself and runs rcu_do_batch() only; Tree RCU's rcu_core()
	 * runs whole again. Invoke up to the batch limit, the first at
	 * b->first_ns and each b->cost_ns later. Returns how many; *more says
	 * whether ready callbacks remain (the handler re-raises itself). */
	int64_t (*rcu_do_batch)(void *rsp, int cpu, const rcu_core_ctx *b, bool *more,
				rcu_effect *eff);
	/* Does @cpu still owe the current grace period a quiescent state
	 * (the CPUs force_quiescent_state() sends reschedule IPIs to)? */
	bool (*rcu_cpu_owes_qs)(const void *rsp, int cpu);
	/* Callbacks queued on @cpu. */
	int64_t (*qlen)(const void *rsp, int cpu);
	/* The largest queue @cpu has held. */
	int64_t (*qlen_max)(const void *rsp, int cpu);
	/* Append the flavor's series points at @now. 0 or SIM_ENOMEM. */
	int (*sample)(void *rsp, sim_metrics *m, sim_time now);
	/* Write the flavor's scalars at the end. 0 or SIM_ENOMEM. */
	int (*finish)(void *rsp, sim_metrics *m, sim_time now);

	/* The operations below are optional: where a flavor leaves one NULL,
	 * rcu_flavor_fill() puts in what a kernel without the mechanism does
	 * (nothing, or the answer noted), so the CPU model calls every one
	 * without a test. gp_step (a grace-period kthread), call_rcu_n
	 * (bulk calls) and barrier_entrain stay NULL where absent: the caller
	 * asks for them; gp_wakeable is called only with gp_step, the
	 * offloading operations after nocb_groups only when it is above 0.
	 *
	 * @cpu enters or leaves its idle loop (an extended quiescent
	 * state, ct_idle_enter()/ct_idle_exit()). Own state only, as
	 * rcu_note_context_switch. Default: nothing. */
	void (*idle_enter)(void *rsp, int cpu);
	void (*idle_exit)(void *rsp, int cpu);
	/* Optional, NULL when the flavor has no grace-period kthread (classic
	 * RCU): the kthread's next step, run on @cpu at @now
	 * (its state changes at once; the caller charges the work in *w, then
	 * does w->next). */
	void (*gp_step)(void *rsp, int cpu, sim_time now, rcu_gp_work *w);
	/* With gp_step: would a wakeup now end the sleeping kthread's wait? */
	bool (*gp_wakeable)(void *rsp);
	/* Does RCU core work run in per-CPU rcuc kthreads (true) or in the
	 * softirq? Default: the softirq. */
	bool (*core_kthread)(const void *rsp);
	/* A quiescent state at cond_resched() on @cpu (rcu_all_qs(), only
	 * when urgency was asked). Own state only. Default: nothing. */
	void (*cond_resched)(void *rsp, int cpu);
	/* rcu_needs_cpu(): callbacks queued on @cpu, so that its tick does
	 * not stop while it idles (irq.nohz_idle). Default: true, the tick
	 * never stops. */
	bool (*needs_cpu)(const void *rsp, int cpu);
	/* ksoftirqd's quiescent state at the end of its softirq run
	 * (rcu_softirq_qs()). Own state only. Default: nothing. */
	void (*softirq_qs)(void *rsp, int cpu);
	/* PREEMPT_RCU, called only by a flavor with preemptible readers: the
	 * task @r on @cpu is preempted inside rcu_read_lock() (before the
	 * context switch's own quiescent state), and later its
	 * rcu_read_unlock() takes it off the list, the last one to block its
	 * node's grace period reporting for it (effects in *eff). NULL
	 * without the mechanism. */
	void (*reader_preempted)(void *rsp, int cpu, rcu_reader *r);
	void (*reader_unlock)(void *rsp, rcu_reader *r, rcu_effect *eff);
	/* Does the grace period in progress wait for @r? Is leaf @leaf still
	 * boosting (rnp->boost_tasks: some reader it waits for is left)? */
	bool (*reader_blocks_gp)(const void *rsp, const rcu_reader *r);
	bool (*boosting)(const void *rsp, int leaf);
	/* rcu_barrier_entrain() (tree.c 6.12:4493-4525) on @cpu at @now, from
	 * its IPI handler: flush an offloaded CPU's bypass (its lazy
	 * callbacks become ordinary ones, rcuog woken if the list had nothing
	 * pending), then, if any callback is queued, entrain one after the
	 * last, whose invocation calls env->barrier_done. True if entrained;
	 * *flushed and *lazy: callbacks moved from the bypass, and of them
	 * lazy ones; *batch_end: when the batch last taken off the list ends
	 * (rcu_do_batch() counts its callbacks as queued until then, so a
	 * list emptied by a batch still in progress has the barrier callback
	 * invoked right after it, tree.c:2608). NULL without rcu_barrier()
	 * (the caller asks for it). */
	bool (*barrier_entrain)(void *rsp, int cpu, sim_time now, int64_t *flushed, int64_t *lazy,
				sim_time *batch_end);

	/* Callback offloading (rcu_nocbs). nocb_groups: the rcuog groups, 0
	 * when no CPU is offloaded (then none of the others is called;
	 * default: 0, none ever). call_rcu, rcu_process_callbacks, gp_step
	 * and the four below may leave kicks, which the caller takes with
	 * nocb_kicks() after each and carries out. */
	int (*nocb_groups)(const void *rsp);
	/* The CPU group @g's rcuog runs on (its leader), or -1 when no CPU of
	 * the group is offloaded (no rcuog). */
	int (*nocb_leader)(const void *rsp, int g);
	/* Is @cpu offloaded (an rcuo kthread invokes its callbacks)? */
	bool (*nocb_offloaded)(const void *rsp, int cpu);
	/* One pass of group @g's rcuog at @now (nocb_gp_wait), its state
	 * changed at once. */
	void (*rcuog_step)(void *rsp, int g, sim_time now, rcu_nocb_work *w);
	/* Would a wakeup now end sleeping rcuog @g's wait? */
	bool (*rcuog_wakeable)(const void *rsp, int g);
	/* One batch of @cpu's rcuo (nocb_cb_wait) running on CPU @on, as @b
	 * says, at most @max callbacks (0: all ready), each callback's
	 * function called there. */
	void (*rcuo_step)(void *rsp, int cpu, int on, const rcu_core_ctx *b, int64_t max, rcu_nocb_work *w);
	/* Would a wakeup now end sleeping rcuo @cpu's wait? */
	bool (*rcuo_wakeable)(const void *rsp, int cpu);
	/* Group @g's nocb_timer fires at @now. */
	void (*nocb_timer)(void *rsp, int g, sim_time now);
	/* When group @g's nocb_timer fires (ns), if it is armed. */
	bool (*nocb_timer_when)(const void *rsp, int g, sim_time *when);
	/* Take the kicks left since the last call: their number, *kicks valid
	 * until the next call into the flavor. */
	size_t (*nocb_kicks)(void *rsp, const rcu_nocb_kick **kicks);
} rcu_flavor;

/* The flavor rcu.flavor names. */
const rcu_flavor *rcu_flavor_find(const sim_params *p);
/* Does rcu.flavor's flavor offer every RCU_CAP_* of @caps? (False for a
 * flavor that does not exist: rcu_params_check() names it.) */
bool rcu_flavor_can(const sim_params *p, unsigned caps);
/* @f into @out with every optional operation it leaves NULL filled with
 * its default (see above), but gp_step and call_rcu_n. */
void rcu_flavor_fill(rcu_flavor *out, const rcu_flavor *f);
/* The knob tables of every flavor, in rcu_flavors[]'s order, into @out
 * (room for @max): their number. */
size_t rcu_flavors_knobs(const sim_knobs **out, size_t max);
/* What every flavor needs whatever runs: rcu.flavor names one, and
 * rcu.qlowmark is below rcu.qhimark (both flavors read them). 0 or
 * SIM_EINPUT (message naming where the values were set). */
int rcu_params_check(const sim_params *p, char *err, size_t errlen);
/* The run's policy label: the flavor's policy_label, else its name. */
const char *rcu_policy_label(const sim_params *p);
/* The validate of the flavor rcu.flavor names (0 without one). */
int rcu_flavor_validate(const sim_params *p, char *err, size_t errlen);

#endif
