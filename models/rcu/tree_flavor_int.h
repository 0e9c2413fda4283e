/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tree_flavor_int.h - what the Tree RCU flavor's two files share: its
 * state (tree_flavor), and the offloading glue of tree_nocb_flavor.c that
 * tree_flavor.c calls or puts in the rcu_tree table. Nothing else uses it.
 * Linux 6.12, as tree_flavor.c and tree_nocb_flavor.c.
 */
#ifndef RCUSIM_MODELS_RCU_TREE_FLAVOR_INT_H
#define RCUSIM_MODELS_RCU_TREE_FLAVOR_INT_H

#include "rcu/rcu.h"
#include "rcu/tree.h"
#include "rcu/tree_nocb.h"

/* Where the GP kthread is in its loop. */
enum { GPK_IDLE, GPK_FQS_START, GPK_FQS, GPK_CLEANUP, GPK_CLEANED };

typedef struct tree_flavor {
	rcu_tree_state *rs;     /* the state machine */
	sim_time tick_ns;       /* ns per jiffy */
	int64_t timer_slack;    /* jiffies a timer fires after its expiry (irq.timer_round_up: 1) */
	sim_hist *lat;          /* call_rcu to invocation */
	rcu_invoke_fn *invoke;  /* the callbacks' function, or NULL */
	void *invoke_ctx;       /* its first argument */
	/* The GP kthread. */
	int phase;              /* GPK_* */
	sim_time gp_start_ns;   /* ns: the current GP's init step began */
	sim_time *last_gp;      /* [2] ns: start and end (cleanup step) of the last GP, or NULL */
	sim_time fqs_start_ns;  /* ns: its FQS loop began */
	sim_time cleanup_ns;    /* ns: its cleanup step began */
	sim_hist *gp_hist;      /* gp.duration_ns */
	sim_hist *init_hist;    /* gp.init_ns */
	sim_hist *wait_hist;    /* gp.qs_wait_ns */
	sim_hist *cleanup_hist; /* gp.cleanup_ns */
	uint64_t gp_done;       /* grace periods timed to their end */
	uint64_t batch_stops[RCU_TREE_NSTOP]; /* rcu_do_batch() calls that invoked something, by why they stopped */
	uint64_t stall_warnings; /* RCU CPU stall warnings the kernel would print */
	/* Offloading (NULL nocb: no CPU offloaded, nothing below used). */
	rcu_nocb_state *nocb;   /* rcu_nocb's state */
	bool hurry;             /* call sites are call_rcu_hurry: never lazy */
	int hz;                 /* HZ, for the timer wheel */
	sim_time *timer_fire;   /* per group: ns its armed nocb_timer fires */
	int *woken;             /* scratch: groups rcu_nocb_gp_cleanup() woke (ngroups slots) */
	int64_t *snap;          /* scratch: per group CPU, n_flushes, bypass and lazy lengths (3 x stride) */
	rcu_nocb_kick *kicks;   /* kicks not yet taken */
	size_t nkicks;          /* how many */
	bool *kick_og, *kick_timer; /* per group: a kick of that kind is in kicks */
	bool *kick_o;           /* per CPU: an rcuo kick is in kicks */
	int64_t bypass_max;     /* longest bypass of one CPU seen */
	uint64_t flush_allowance, flush_age, flush_length; /* bypass flushes by cause */
	uint64_t flush_memory;  /* bypass flushes by the lazy shrinker */
	uint64_t lazy_queued;   /* lazy callbacks queued */
	uint64_t lazy_age, lazy_count, lazy_hurry; /* lazy callbacks flushed, by cause */
	uint64_t lazy_memory;   /* lazy callbacks flushed by the shrinker */
	int64_t shrink_at;      /* rcu.lazy_shrink_at: lazy callbacks that make memory pressure, 0 = none */
	int64_t shrink_check;   /* lazy call_rcu()s before the total can reach shrink_at again */
	uint64_t shrinks;       /* shrinker passes that flushed */
} tree_flavor;

/* tree_flavor.c: the function of each of the @n callbacks just invoked
 * from @cpu's list on CPU @on, the first at @first_ns and each @cost_ns
 * after. */
void rcu_tree_flavor_invoke_objs(tree_flavor *tf, int cpu, int on, int64_t n, sim_time first_ns,
				 sim_time cost_ns);

/* tree_nocb_flavor.c: offloading inside the flavor. */
/* Offload the CPUs rcu.nocbs names (none: tf->nocb stays NULL). 0,
 * SIM_EINPUT (message) or SIM_ENOMEM. */
int rcu_tree_nocb_create(tree_flavor *tf, const rcu_flavor_env *env, char *err, size_t errlen);
/* Free what rcu_tree_nocb_create() allocated (any part of it). */
void rcu_tree_nocb_destroy(tree_flavor *tf);
/* A kick of @kind for group or CPU @id, once until taken. */
void rcu_tree_nocb_kick(tree_flavor *tf, rcu_nocb_kick_kind kind, int id);
/* What rcu_nocb asked for in @e at @j jiffies, as kicks. */
void rcu_tree_nocb_effect(tree_flavor *tf, const rcu_nocb_effect *e, int64_t j);
/* call_rcu() on offloaded @cpu, one (0 or SIM_ENOMEM) or @n in bulk. */
int rcu_tree_nocb_call_rcu(tree_flavor *tf, int cpu, sim_time at, uint32_t obj, rcu_effect *eff);
int rcu_tree_nocb_call_rcu_n(tree_flavor *tf, int cpu, sim_time t0, sim_time step, int64_t n,
			     rcu_effect *eff);
/* rcu_gp_cleanup()'s rcu_nocb_gp_cleanup(): kick the rcuog kthreads woken. */
void rcu_tree_nocb_gp_cleanup(tree_flavor *tf);
/* Offloading's series at @now and its scalars at the end. 0 or SIM_ENOMEM
 * (sample), 0 or nonzero (finish: some scalar failed). */
int rcu_tree_nocb_sample(tree_flavor *tf, sim_metrics *m, sim_time now);
int rcu_tree_nocb_finish(tree_flavor *tf, sim_metrics *m, sim_time now);
/* The rcu_flavor operations of offloading (rcu.h), for the rcu_tree table. */
int rcu_tree_nocb_groups(const void *state);
int rcu_tree_nocb_leader(const void *state, int g);
bool rcu_tree_nocb_offloaded(const void *state, int cpu);
void rcu_tree_rcuog_step(void *state, int g, sim_time now, rcu_nocb_work *w);
bool rcu_tree_rcuog_wakeable(const void *state, int g);
void rcu_tree_rcuo_step(void *state, int cpu, int on, const rcu_core_ctx *b, int64_t max, rcu_nocb_work *w);
bool rcu_tree_rcuo_wakeable(const void *state, int cpu);
void rcu_tree_nocb_timer(void *state, int g, sim_time now);
bool rcu_tree_nocb_timer_when(const void *state, int g, sim_time *when);
size_t rcu_tree_nocb_kicks(void *state, const rcu_nocb_kick **kicks);

#endif
