/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rcu.h - an RCU implementation as the CPU model sees it: a table of
 * operations (rcu_flavor) over a state the flavor owns, after the hooks the
 * kernel's CPU code calls: call_rcu(), rcu_pending() and
 * rcu_check_callbacks() from the tick, the quiescent state at context
 * switch, the softirq (tasklet) handler, and what a run samples and
 * reports. Classic RCU (models/rcu_classic.c, 2.6.14-2.6.16) is the first
 * flavor; a new one is one file and its entry (with its extern
 * declaration) in rcu_flavors[] (rcu.c).
 * The flavor decides nothing about CPU time: the caller pays for every
 * call at the costs it holds and decides when each runs.
 */
#ifndef RCUSIM_MODELS_RCU_H
#define RCUSIM_MODELS_RCU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "metrics.h"
#include "registry.h"

/* What call_rcu asks of its caller. */
typedef struct rcu_call_effect {
	bool need_resched;   /* set_need_resched() on this CPU */
	bool send_ipis;      /* smp_send_reschedule() to every other CPU rcu_cpu_owes_qs() names */
} rcu_call_effect;

/* The callbacks' function: what invoking the callbacks of the @n objects
 * @objs on @cpu, in order, does (file_free_rcu -> kmem_cache_free for
 * struct file; wakeme_after_rcu -> complete() for synchronize_rcu), the
 * first at @first_ns and each @cost_ns after the one before. Called with
 * each run of consecutive callbacks a batch invokes, so that the function
 * costs one call per run, not per callback. */
typedef void rcu_invoke_fn(void *ctx, int cpu, const uint32_t *objs, size_t n, sim_time first_ns,
			   sim_time cost_ns);

/* What a flavor is built from. */
typedef struct rcu_flavor_env {
	const sim_params *p; /* its rcu.* parameters */
	sim_metrics *m;      /* where its own metrics (gp.*) go */
	sim_hist *lat;       /* call_rcu to invocation, ns, of every invoked callback */
	int ncpus;           /* CPUs */
	rcu_invoke_fn *invoke; /* each callback's function, or NULL: callbacks carry no object */
	void *invoke_ctx;    /* its first argument */
} rcu_flavor_env;

typedef struct rcu_flavor {
	const char *name; /* the rcu.flavor value */
	/* Build the state from @env into *rsp (freed by destroy even when
	 * create fails part-way). 0, SIM_ENOMEM or SIM_EINPUT (message). */
	int (*create)(void **rsp, const rcu_flavor_env *env, char *err, size_t errlen);
	void (*destroy)(void *rsp); /* NULL is a no-op */
	/* call_rcu() on @cpu at @at (<= now) for object @obj; effects for
	 * the caller in *eff. 0 or SIM_ENOMEM. */
	int (*call_rcu)(void *rsp, int cpu, sim_time at, uint32_t obj, rcu_call_effect *eff);
	/* rcu_pending(): has @cpu RCU work, so that the tick calls
	 * rcu_check_callbacks()? */
	bool (*rcu_pending)(const void *rsp, int cpu);
	/* rcu_check_callbacks() from the tick on @cpu: @user (user mode or
	 * idle) is a quiescent state. The caller raises the RCU softirq. */
	void (*rcu_check_callbacks)(void *rsp, int cpu, bool user);
	/* The quiescent state schedule() reports on @cpu (rcu_qsctr_inc). It
	 * may be called after later events on other CPUs (a context switch at
	 * the end of a lazy softirq run, kcpu.c), so it changes only @cpu's own
	 * state, read by nothing but @cpu's own handlers. */
	void (*rcu_note_context_switch)(void *rsp, int cpu);
	/* The RCU softirq handler on @cpu, the first pass of a __do_softirq
	 * run at @now: list moves and the quiescent-state check, then
	 * rcu_do_batch() as below from @first_ns. */
	int64_t (*rcu_process_callbacks)(void *rsp, int cpu, sim_time now, sim_time first_ns,
					 sim_time cost_ns, bool *more);
	/* rcu_do_batch() on @cpu, the handler's later passes in the same run:
	 * invoke up to the batch limit, the first at @first_ns and each
	 * @cost_ns later. Returns how many; *more says whether ready
	 * callbacks remain (the handler re-raises itself). */
	int64_t (*rcu_do_batch)(void *rsp, int cpu, sim_time first_ns, sim_time cost_ns, bool *more);
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
} rcu_flavor;

/* The flavor rcu.flavor names. */
const rcu_flavor *rcu_flavor_find(const sim_params *p);

#endif
