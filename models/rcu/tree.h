/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tree.h - Tree RCU of Linux 6.12 (kernel/rcu/tree.c, tree.h, rcu.h,
 * tree_plugin.h's !PREEMPT_RCU part, tree_stall.h's stall times) for
 * non-offloaded CPUs without nohz_full: gp_seq arithmetic, the rcu_node
 * tree, the per-CPU segmented callback list (rcu/segcblist.h), grace-period
 * requests, quiescent states and their reports up the tree (tree.c), the GP
 * kthread's init / FQS / cleanup steps (tree_gp.c), and rcu_do_batch with
 * its limits (tree.c). Pure state
 * machine: the caller decides when each function runs and pays for the CPU
 * time; functions that in the kernel wake the GP kthread, raise RCU_SOFTIRQ,
 * set need_resched or resched_cpu() another CPU say so in their results.
 * Times are sim_time ns; where the kernel counts jiffies the caller passes
 * jiffies (int64_t, from 0 at boot, the scenario's HZ).
 *
 * Names: the kernel's segcblist and gp_seq helpers keep their names
 * (rcu_segcblist_*, rcu_seq_*); every other public name is rcu_tree_ plus
 * the kernel function's name without its rcu_ (classic RCU, rcu/classic.h,
 * already owns rcu_pending, rcu_do_batch, call_rcu and rcu_data). Each
 * comment names the kernel function and its 6.12 file:line.
 *
 * Offloaded CPUs (rcu_nocbs, rcu/tree_nocb.h) are marked in their
 * rcu_data (offloaded): the callback handling 6.12 skips for them is
 * skipped here; their callbacks are queued and invoked by tree_nocb.c.
 *
 * Left out (the file header of tree.c says why): CPU hotplug, nohz_full's
 * tick and context tracking (the CPU model's), PREEMPT_RCU's blocked readers, expedited grace periods, stall warnings themselves, polled grace periods,
 * and lock contention (every trylock succeeds).
 */
#ifndef RCUSIM_MODELS_RCU_TREE_H
#define RCUSIM_MODELS_RCU_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "metrics.h"
#include "registry.h"
#include "rcu/rcu.h"
#include "rcu/segcblist.h"

/* ---- 1. gp_seq arithmetic (kernel/rcu/rcu.h:66-205 6.12) -------------- */

/* include/linux/rcupdate.h:37-38: two low state bits, a counter above. */
#define RCU_SEQ_CTR_SHIFT 2
#define RCU_SEQ_STATE_MASK ((UINT64_C(1) << RCU_SEQ_CTR_SHIFT) - 1)
/* rcu_state.gp_seq at boot (tree.c:86): 300 grace periods before the counter
 * wraps through 0, so that wrap bugs show early. The model starts there. */
#define RCU_TREE_GP_SEQ_INIT ((UINT64_C(0) - 300) << RCU_SEQ_CTR_SHIFT)
/* (ULONG_CMP_GE and ULONG_CMP_LT, rcu_ulong_cmp_ge/lt: rcu/segcblist.h.) */

/* rcu_seq_ctr() (rcu.h:66): the grace-period count of @s. */
static inline uint64_t rcu_seq_ctr(uint64_t s) { return s >> RCU_SEQ_CTR_SHIFT; }
/* rcu_seq_state() (rcu.h:75): 0 idle, 1 a grace period in progress. */
static inline int rcu_seq_state(uint64_t s) { return (int)(s & RCU_SEQ_STATE_MASK); }
/* rcu_seq_start() (rcu.h:91): a grace period starts. */
static inline void rcu_seq_start(uint64_t *sp) { *sp += 1; }
/* rcu_seq_endval() (rcu.h:99): the value rcu_seq_end() gives. */
static inline uint64_t rcu_seq_endval(uint64_t s) { return (s | RCU_SEQ_STATE_MASK) + 1; }
/* rcu_seq_end() (rcu.h:105): the grace period ends (next multiple of 4). */
static inline void rcu_seq_end(uint64_t *sp) { *sp = rcu_seq_endval(*sp); }
/* rcu_seq_snap() (rcu.h:123): the first value of @s at which a full grace
 * period has elapsed since now: s + 4 rounded up to a multiple of 4 when no
 * grace period runs, the end of the next one when one does. */
static inline uint64_t rcu_seq_snap(uint64_t s)
{
	return (s + 2 * RCU_SEQ_STATE_MASK + 1) & ~RCU_SEQ_STATE_MASK;
}
/* rcu_seq_started() (rcu.h:142): has the grace period of snapshot @snap
 * started by @s? */
static inline bool rcu_seq_started(uint64_t s, uint64_t snap)
{
	return rcu_ulong_cmp_lt((snap - 1) & ~RCU_SEQ_STATE_MASK, s);
}
/* rcu_seq_done() (rcu.h:151): has the grace period of snapshot @snap ended
 * by @s? */
static inline bool rcu_seq_done(uint64_t s, uint64_t snap) { return rcu_ulong_cmp_ge(s, snap); }
/* rcu_seq_completed_gp() (rcu.h:171): has a grace period ended between
 * @old and @new? */
static inline bool rcu_seq_completed_gp(uint64_t old, uint64_t new_)
{
	return rcu_ulong_cmp_lt(old, new_ & ~RCU_SEQ_STATE_MASK);
}
/* rcu_seq_new_gp() (rcu.h:179): has a grace period started between @old
 * and @new? */
static inline bool rcu_seq_new_gp(uint64_t old, uint64_t new_)
{
	return rcu_ulong_cmp_lt((old + RCU_SEQ_STATE_MASK) & ~RCU_SEQ_STATE_MASK, new_);
}

/* ---- 2. the segmented callback list: rcu/segcblist.h -------------------- */

/* ---- 3. configuration --------------------------------------------------- */

#define RCU_TREE_MAX_LVLS 4       /* RCU_NUM_LVLS at most (include/linux/rcu_node_tree.h:79) */
#define RCU_TREE_NO_DIVISOR (-1)  /* rcu_divisor: no DONE >> divisor term (before 5.4) */

typedef struct rcu_tree_cfg {
	int ncpus;           /* nr_cpu_ids: every CPU online */
	int hz;              /* HZ */
	int rcu_fanout_leaf; /* CPUs per leaf rcu_node, 2..64 (default 16) */
	int rcu_fanout;      /* children per inner rcu_node, 2..64 (RCU_FANOUT 64 on 64-bit) */
	int64_t blimit;      /* rcu_do_batch's batch limit (DEFAULT_RCU_BLIMIT 10) */
	int64_t qhimark;     /* queue growth since qlen_last_fqs_check that triggers call_rcu's overflow path (10000) */
	int64_t qlowmark;    /* blimit returns to its default at or below this (100) */
	int64_t qovld;       /* qovld_calc: callbacks that mark a CPU overloaded (20000); 0 = off */
	int64_t flood_blimit; /* blimit during a flood (DEFAULT_MAX_RCU_BLIMIT 10000; INT64_MAX before d5a9a8c3bc80) */
	int rcu_divisor;     /* bl = max(blimit, DONE >> this) (7); RCU_TREE_NO_DIVISOR before 5.4 */
	sim_time rcu_resched_ns; /* ns: rcu_do_batch's time limit when bl > 100 (3 ms); 0 = none (before 5.4) */
	int64_t jiffies_till_first_fqs; /* jiffies to the first FQS scan; < 0 = the kernel's default */
	int64_t jiffies_till_next_fqs;  /* jiffies between later FQS scans; < 0 = default */
	int64_t jiffies_till_sched_qs;  /* GP age that asks for urgent QSes; < 0 = default */
	sim_time stall_timeout_ns; /* ns: rcu_cpu_stall_timeout (21 s), whole jiffies */
	bool use_softirq;    /* RCU core in RCU_SOFTIRQ (true) or rcuc/N kthreads */
	bool preempt_rcu;    /* CONFIG_PREEMPT_RCU: a kernel tick outside a reader is a QS */
	bool boost;          /* CONFIG_RCU_BOOST (with preempt_rcu) */
	int64_t boost_delay_j; /* RCU_BOOST_DELAY_JIFFIES */
	bool cb_runs;        /* keep call times as runs (rcu_segcblist_init()): bulk calls */
	uint64_t gp_seq_init; /* rcu_state.gp_seq at boot (RCU_TREE_GP_SEQ_INIT) */
} rcu_tree_cfg;

/* The 6.12 defaults for @ncpus CPUs at @hz (tree.c:421-447, 5536-5567). */
void rcu_tree_cfg_default(rcu_tree_cfg *cfg, int ncpus, int hz);
/* The configuration the parameters @p give (rcu.*, machine.hz, the CPUs).
 * 0, or SIM_EINPUT with a message for a machine the tree cannot hold. */
int rcu_tree_cfg_from_params(rcu_tree_cfg *cfg, const sim_params *p, char *err, size_t errlen);

/* ---- 4. the tree, the per-CPU data and the global state ----------------- */

/* rcu_state.gp_flags (tree.h:430-432). */
#define RCU_GP_FLAG_INIT 0x1 /* a grace period is requested */
#define RCU_GP_FLAG_FQS 0x2  /* an FQS scan is requested (or the GP may end) */
#define RCU_GP_FLAG_OVLD 0x4 /* callback overload (the FQS loop's gf only) */

/* rcu_state.gp_state (tree.h:435-443): what the GP kthread is doing. */
enum {
	RCU_GP_IDLE, RCU_GP_WAIT_GPS, RCU_GP_DONE_GPS, RCU_GP_ONOFF, RCU_GP_INIT,
	RCU_GP_WAIT_FQS, RCU_GP_DOING_FQS, RCU_GP_CLEANUP, RCU_GP_CLEANED
};

/* struct rcu_node (tree.h:41): one node of the combining tree. Masks are
 * 64 bits: at most 64 CPUs per leaf, 64 children per node. */
typedef struct rcu_tree_node {
	uint64_t gp_seq;        /* this node's view of the grace-period number */
	uint64_t gp_seq_needed; /* furthest grace period requested through here */
	uint64_t completedqs;   /* gp_seq whose quiescent states all arrived here */
	uint64_t qsmask;        /* CPUs (leaf) or children still owing the current GP */
	uint64_t qsmaskinit;    /* every CPU or child (all online, no hotplug) */
	uint64_t cbovldmask;    /* leaf: CPUs with at least qovld callbacks */
	uint64_t grpmask;       /* this node's bit in its parent's masks (0 at the root) */
	int grpnum;             /* that bit's number */
	int grplo, grphi;       /* lowest and highest CPU below */
	int level;              /* 0 = root */
	int parent;             /* index of the parent in rcu_tree_state.node, -1 at the root */
	/* Leaf, PREEMPT_RCU: the blocked-tasks list by its counts (blkd_tasks,
	 * gp_tasks: tree_plugin.h 6.12:162-278). */
	int64_t nblkd;          /* readers preempted here and not yet unlocked */
	int64_t gp_blkd;        /* of them, those the grace period in progress waits for */
	uint64_t gp_inits;      /* grace periods begun on this node */
	int64_t boost_time;     /* jiffy from which its readers may be boosted */
	bool boosting;          /* boost_tasks != NULL: its rcub boosts them one by one */
} rcu_tree_node;

/* struct rcu_data (tree.h:178): one CPU's RCU state. */
typedef struct rcu_tree_data {
	/* 1. grace-period tracking */
	uint64_t gp_seq;        /* the grace period this CPU has seen (its leaf's gp_seq) */
	uint64_t gp_seq_needed; /* cache of the furthest GP requested for this CPU */
	bool cpu_no_qs;         /* cpu_no_qs.b.norm: no quiescent state yet this GP */
	bool core_needs_qs;     /* the GP waits for this CPU's report */
	bool gpwrap;            /* gp_seq may have wrapped while away (not at boot here) */
	int leaf;               /* mynode: index of its leaf rcu_node */
	uint64_t grpmask;       /* its bit in the leaf's masks */
	int cpu;                /* this CPU */
	bool offloaded;         /* rcu_rdp_is_offloaded(): its callbacks are rcu_nocb's (rcuog and
				   rcuo kthreads); the callback handling below is skipped for it */
	bool nohz_full;         /* tick_nohz_full_cpu() (irq.nohz_full): resched_cpu()ed every
				   3 x jiffies_to_sched_qs while it owes a QS */
	bool rcu_forced_tick;   /* nohz_full: its tick is on for RCU (TICK_DEP_BIT_RCU, set by
				   the CPU model at an interrupt, __rcu_irq_enter_check_tick()) */
	/* 2. callbacks */
	rcu_segcblist cblist;   /* the four segments */
	int64_t qlen_last_fqs_check; /* n_cbs when call_rcu last kicked the GP */
	uint64_t n_force_qs_snap; /* rcu_state.n_force_qs then */
	int64_t blimit;         /* current batch limit */
	/* 3. quiescent-state forcing */
	uint64_t watching;      /* context-tracking RCU-watching counter: odd = watching,
				   +1 at every idle entry and exit, +2 at rcu_momentary_eqs() */
	uint64_t watching_snap; /* its value at this GP's first FQS scan */
	bool rcu_urgent_qs;     /* GP old: cond_resched() and the tick report a QS */
	bool rcu_need_heavy_qs; /* GP older: the QS is a momentary extended QS */
	int64_t last_fqs_resched; /* jiffies: last resched_cpu() from an FQS scan */
	/* 4. statistics (not the kernel's) */
	int64_t qlen_max;       /* most callbacks queued at once */
	uint64_t n_cbs_invoked; /* callbacks invoked */
	/* 5. rcu_barrier() (tree.c:4493-4525): its barrier_head, entrained after
	 * the callback at ring index barrier_mark - 1 and invoked right after
	 * it (a mark, not a ring entry: it carries no object and costs no
	 * callback time); RCU_TREE_NO_BARRIER when none is queued. */
	uint64_t barrier_mark;
	sim_time batch_end_ns;  /* ns: the last callback taken off the list ends (a batch's
				   callbacks are counted until it ends, tree.c:2608) */
} rcu_tree_data;

#define RCU_TREE_NO_BARRIER UINT64_MAX

/* struct rcu_state (tree.h:340) with its tree, its CPUs and the FQS
 * loop's locals. */
typedef struct rcu_tree_state {
	rcu_tree_cfg cfg;       /* what it was built from */
	/* 1. geometry (rcu_init_geometry, rcu_init_one) */
	int ncpus;              /* CPUs */
	int nlevels;            /* rcu_num_lvls */
	int level_first[RCU_TREE_MAX_LVLS]; /* index of each level's first node */
	int level_count[RCU_TREE_MAX_LVLS]; /* num_rcu_lvl[]: nodes per level */
	int nnodes;             /* rcu_num_nodes */
	int nleaves;            /* nodes of the last level */
	rcu_tree_node *node;    /* breadth first: root at 0, leaves last */
	rcu_tree_data *rda;     /* per CPU */
	/* 2. tunables resolved at boot */
	int64_t jiffies_till_first_fqs; /* jiffies */
	int64_t jiffies_till_next_fqs;  /* jiffies */
	int64_t jiffies_to_sched_qs;    /* jiffies */
	int64_t jiffies_till_stall;     /* rcu_jiffies_till_stall_check(): jiffies */
	/* 3. grace periods */
	uint64_t gp_seq;        /* the grace-period number */
	int gp_flags;           /* RCU_GP_FLAG_* */
	int gp_state;           /* RCU_GP_* */
	int64_t gp_start;       /* jiffies: start of the current GP */
	int64_t gp_end;         /* jiffies: end of the last GP */
	int64_t gp_max;         /* jiffies: longest GP */
	int64_t jiffies_stall;  /* jiffies: the current GP's stall warning time */
	int64_t jiffies_resched; /* jiffies: from then FQS scans resched_cpu() holdouts */
	int64_t jiffies_force_qs; /* jiffies: when the next FQS scan is due */
	uint64_t n_force_qs;    /* FQS scans so far */
	bool cbovld;            /* some CPU overloaded at the last scan */
	bool cbovldnext;        /* some leaf's cbovldmask set during the last scan */
	uint64_t gp_completed;  /* grace periods ended (not the kernel's) */
	uint64_t n_urgent_qs;   /* FQS rechecks that set a CPU's rcu_urgent_qs alone (not the kernel's) */
	uint64_t readers_blocked; /* PREEMPT_RCU: readers preempted inside rcu_read_lock() */
	uint64_t readers_held_gp; /* of them, unlocks that a grace period had waited for */
	uint64_t boosts_started;  /* rcu_initiate_boost() calls that woke a leaf's rcub */
	int *boost;               /* the last scan's leaves to boost (nleaves slots) */
	uint64_t n_heavy_qs;    /* FQS rechecks that set its rcu_need_heavy_qs (not the kernel's) */
	/* 4. rcu_gp_fqs_loop()'s locals between its steps */
	bool fqs_first;         /* first_gp_fqs */
	int fqs_gf;             /* gf: RCU_GP_FLAG_FQS / _OVLD seen by the wait */
	bool fqs_ret;           /* ret: keep the old FQS time after a stray wakeup */
	int64_t fqs_j;          /* j: the wait, jiffies */
	int64_t fqs_wait_end;   /* jiffies: the current wait's timeout */
	int *resched;           /* the last scan's CPUs to resched_cpu() (ncpus slots) */
	/* 5. rcu_barrier_callback()'s function (NULL: never entrained) */
	void (*barrier_done)(void *ctx, int cpu, sim_time t);
	void *barrier_ctx;
} rcu_tree_state;

/* Build the tree for @cfg with every CPU online and idle RCU (rcu_init,
 * rcu_init_geometry, rcu_init_one, rcutree_prepare_cpu); @payload keeps an
 * object number with each callback. 0, SIM_ENOMEM, or SIM_EINPUT (message)
 * for a shape the tree cannot hold. *out is NULL on failure. */
int rcu_tree_create(rcu_tree_state **out, const rcu_tree_cfg *cfg, bool payload, char *err,
		    size_t errlen);
void rcu_tree_destroy(rcu_tree_state *rsp); /* NULL is a no-op */

/* rcu_init_geometry() (tree.c:5536): levels and nodes per level for @ncpus
 * CPUs, @leaf CPUs per leaf, @fanout children per node. 0, or SIM_EINPUT
 * when more than 4 levels would be needed or a fanout is outside 2..64. */
int rcu_tree_geometry(int ncpus, int leaf, int fanout, int *nlevels,
		      int level_count[RCU_TREE_MAX_LVLS]);

/* rcu_gp_in_progress() (tree.c:232). */
static inline bool rcu_tree_gp_in_progress(const rcu_tree_state *rsp) { return rcu_seq_state(rsp->gp_seq) != 0; }
/* The leaf rcu_node of @cpu. */
static inline rcu_tree_node *rcu_tree_leaf(rcu_tree_state *rsp, int cpu) { return &rsp->node[rsp->rda[cpu].leaf]; }
/* Is @cpu in an extended quiescent state (idle) as RCU sees it? */
static inline bool rcu_tree_in_eqs(const rcu_tree_state *rsp, int cpu) { return !(rsp->rda[cpu].watching & 1); }

/* ---- 5. callbacks and grace-period requests ----------------------------- */

/* rcu_start_this_gp() (tree.c:976): request grace period @gp_seq_req from
 * node @rnp_start for @cpu, recording it in gp_seq_needed up the tree until
 * a node has it already or sees a GP running. True if the GP kthread must
 * be woken (RCU_GP_FLAG_INIT set at the root). */
bool rcu_tree_start_this_gp(rcu_tree_state *rsp, int rnp_start, int cpu, uint64_t gp_seq_req);
/* rcu_accelerate_cbs() (tree.c:1135) for @cpu under node @rnp (its leaf,
 * or the root from rcu_gp_cleanup): give NEXT a grace period (snap of
 * rcu_state.gp_seq) and request it. True: wake the GP kthread. */
bool rcu_tree_accelerate_cbs(rcu_tree_state *rsp, int rnp, int cpu);
/* rcu_accelerate_cbs_unlocked() (tree.c:1181): the same, skipping the
 * request when the CPU's gp_seq_needed already covers it. */
bool rcu_tree_accelerate_cbs_unlocked(rcu_tree_state *rsp, int cpu);
/* rcu_advance_cbs() (tree.c:1211): move what its leaf's gp_seq says is
 * done into DONE, then accelerate. True: wake the GP kthread. */
bool rcu_tree_advance_cbs(rcu_tree_state *rsp, int cpu);
/* note_gp_changes() / __note_gp_changes() (tree.c:1314, 1265): @cpu
 * catches up with its leaf's gp_seq: advance after a GP end, accelerate
 * otherwise, and owe a QS to a new GP that waits for it. True: wake. */
bool rcu_tree_note_gp_changes(rcu_tree_state *rsp, int cpu);

/* call_rcu() on @cpu at @at (>= 0) for object @obj: __call_rcu_common()
 * (tree.c:3061): check_cb_ovld(), then call_rcu_core() (tree.c:2968):
 * enqueue to NEXT; from an extended QS invoke RCU core; unless
 * @irqs_disabled, the overflow path when the queue grew by more than
 * qhimark since qlen_last_fqs_check (request a GP if none runs, else
 * blimit = flood_blimit and rcu_force_quiescent_state() if no FQS ran
 * since the last check and this is not the only pending callback).
 * Effects in *eff (or'ed in). 0 or SIM_ENOMEM (nothing queued). */
int rcu_tree_call_rcu(rcu_tree_state *rsp, int cpu, sim_time at, uint32_t obj, bool irqs_disabled,
		      rcu_effect *eff);
/* @n rcu_tree_call_rcu()s on @cpu with interrupts on, of object 0, called
 * at @t0, @t0 + @step, ...: the same state and effects as the calls one by
 * one, worked out in stretches between the counts where check_cb_ovld()
 * or the overflow path acts. 0 or SIM_ENOMEM (nothing queued). */
int rcu_tree_call_rcu_n(rcu_tree_state *rsp, int cpu, sim_time t0, sim_time step, int64_t n,
			rcu_effect *eff);
/* check_cb_ovld() / check_cb_ovld_locked() (tree.c:3047, 3024): set or
 * clear @cpu's bit in its leaf's cbovldmask by n_cbs >= qovld. */
void rcu_tree_check_cb_ovld(rcu_tree_state *rsp, int cpu);
/* rcu_force_quiescent_state() (tree.c:2743): ask for an FQS scan now.
 * True: wake the GP kthread. */
bool rcu_tree_force_quiescent_state(rcu_tree_state *rsp);
/* rcu_needs_cpu() (tree.c:695): non-offloaded callbacks queued, so keep
 * the tick. */
static inline bool rcu_tree_needs_cpu(const rcu_tree_state *rsp, int cpu)
{
	return !rcu_segcblist_empty(&rsp->rda[cpu].cblist) && !rsp->rda[cpu].offloaded;
}

/* ---- 6. quiescent states ------------------------------------------------ */

/* rcu_qs() (tree_plugin.h:859): note a QS on @cpu (clears cpu_no_qs;
 * reported later by rcu_tree_check_quiescent_state). */
static inline void rcu_tree_qs(rcu_tree_state *rsp, int cpu) { rsp->rda[cpu].cpu_no_qs = false; }
/* rcu_note_context_switch() (tree_plugin.h:904): a context switch on @cpu:
 * rcu_qs(), and if urgency was asked, clear it (a momentary extended QS
 * when heavy). */
void rcu_tree_note_context_switch(rcu_tree_state *rsp, int cpu);
/* rcu_momentary_eqs() (tree.c:370): a zero-length extended QS on @cpu,
 * which must be watching (rcuo's, nocb_cb_wait(), tree_nocb.h:903). */
void rcu_tree_momentary_eqs(rcu_tree_state *rsp, int cpu);
/* A pass through an extended QS and back (a nohz_full CPU's user mode,
 * context tracking): the watching counter's +2 alone. */
void rcu_tree_ct_pass(rcu_tree_state *rsp, int cpu);
/* rcu_all_qs() (tree_plugin.h:878): cond_resched() on @cpu, a QS only when
 * rcu_urgent_qs is set. */
void rcu_tree_all_qs(rcu_tree_state *rsp, int cpu);
/* The RCU-watching counter of @cpu: idle entry (ct_idle_enter,
 * kernel/context_tracking.c:320) and exit (:338). */
void rcu_tree_eqs_enter(rcu_tree_state *rsp, int cpu);
void rcu_tree_eqs_exit(rcu_tree_state *rsp, int cpu);
/* rcu_pending() (tree.c:4409) for a non-offloaded CPU outside nohz_full:
 * has @cpu RCU core work? */
bool rcu_tree_pending(const rcu_tree_state *rsp, int cpu);
/* rcu_sched_clock_irq() (tree.c:2646): the tick on @cpu, @user meaning
 * taken from user mode or from idle (rcu_is_cpu_rrupt_from_idle), @reader
 * inside a read-side critical section or with preemption or softirqs off:
 * urgency turns into need_resched in the kernel; a QS is user/idle
 * (non-preemptible RCU: rcu_flavor_sched_clock_irq, tree_plugin.h:975), or
 * anything but a reader (PREEMPT_RCU: tree_plugin.h:730-757); and
 * rcu_pending() invokes RCU core. Effects in *eff. */
void rcu_tree_sched_clock_irq(rcu_tree_state *rsp, int cpu, bool user, bool reader, rcu_effect *eff);
/* rcu_note_context_switch() with @cpu's task preempted inside a reader
 * (tree_plugin.h 6.12:332-353, rcu_preempt_ctxt_queue()): @r queues on
 * the CPU's leaf, blocking the grace period in progress if the CPU had not
 * reported to it (RCU_GP_BLKD), else only the next (rcu_gp_init() adopts
 * the whole list, :704-721). */
void rcu_tree_reader_preempted(rcu_tree_state *rsp, int cpu, rcu_reader *r);
/* @r's rcu_read_unlock() (rcu_read_unlock_special() ->
 * rcu_preempt_deferred_qs_irqrestore(), tree_plugin.h 6.12:476-586): off
 * its node's list; if it was the last the grace period waited for there
 * and the node's CPUs have all reported, rcu_report_unblock_qs_rnp()
 * (tree.c:2353-2386). True: the grace period may end (wake its kthread). */
bool rcu_tree_reader_unlock(rcu_tree_state *rsp, rcu_reader *r);
/* Does the grace period in progress on @r's leaf wait for @r? */
bool rcu_tree_reader_blocks_gp(const rcu_tree_state *rsp, const rcu_reader *r);
/* rcu_check_quiescent_state() (tree.c:2448): note_gp_changes(), then
 * report @cpu's QS if the GP needs it and one was noted. True: wake. */
bool rcu_tree_check_quiescent_state(rcu_tree_state *rsp, int cpu);
/* rcu_report_qs_rdp() (tree.c:2393): report @cpu's noted QS to its leaf.
 * True: wake the GP kthread. */
bool rcu_tree_report_qs_rdp(rcu_tree_state *rsp, int cpu);
/* rcu_report_qs_rnp() (tree.c:2289): clear @mask in node @rnp for grace
 * period @gps and walk up while a node's qsmask empties; at the root,
 * rcu_report_qs_rsp() (tree.c:2265) sets RCU_GP_FLAG_FQS. True: wake. */
bool rcu_tree_report_qs_rnp(rcu_tree_state *rsp, uint64_t mask, int rnp, uint64_t gps);
/* rcu_disable_urgency_upon_qs() (tree.c:706-715): a nohz_full CPU's
 * forced tick goes too. */
static inline void rcu_tree_disable_urgency_upon_qs(rcu_tree_data *rdp)
{
	rdp->rcu_urgent_qs = false;
	rdp->rcu_need_heavy_qs = false;
	rdp->rcu_forced_tick = false;
}
/* rcu_core() (tree.c:2787) on @cpu up to its rcu_do_batch(): the QS check
 * and, with no GP running and NEXT not empty, acceleration. The caller
 * then runs rcu_tree_do_batch() when DONE is not empty. True: wake. */
bool rcu_tree_core(rcu_tree_state *rsp, int cpu);

/* ---- 7. the GP kthread (rcu_gp_kthread, tree.c:2221) --------------------- */

/* What one FQS scan did. */
typedef struct rcu_tree_fqs_result {
	int leaves;          /* leaf nodes visited */
	int cpus;            /* CPUs checked (holdouts) */
	int reported;        /* of them, reported quiescent (idle, or were) */
	int nresched;        /* CPUs to resched_cpu(): an IPI each */
	int nboost;          /* leaves to start boosting (rcu_tree_state.boost) */
	const int *resched;  /* their numbers (rcu_tree_state.resched, until the next scan) */
	int64_t wait;        /* jiffies to wait before the next step (0 = at once) */
} rcu_tree_fqs_result;

/* rcu_gp_init() (tree.c:1796) at @jiffies, with the GP kthread on
 * @gp_cpu (-1: none of the CPUs, skipping its __note_gp_changes): clear
 * gp_flags, record the stall times, start gp_seq, then set qsmask and
 * gp_seq on every node. Returns the nodes walked (the leaves of the
 * RCU_GP_ONOFF pass plus every node of the RCU_GP_INIT pass), or 0 when
 * no GP was requested (a spurious wakeup). */
int rcu_tree_gp_init(rcu_tree_state *rsp, int gp_cpu, int64_t jiffies);
/* rcu_gp_fqs_loop() (tree.c:2014) entered at @jiffies: the first wait,
 * jiffies (0: scan at once, as under callback overload). */
int64_t rcu_tree_gp_fqs_loop_start(rcu_tree_state *rsp, int64_t jiffies);
/* rcu_gp_fqs_check_wake() (tree.c:1955): would a wakeup end the FQS wait
 * now (overload, RCU_GP_FLAG_FQS, or the root's qsmask empty)? */
bool rcu_tree_gp_fqs_check_wake(rcu_tree_state *rsp);
/* What rcu_tree_gp_fqs_loop_wake() did. */
typedef enum rcu_tree_fqs_step {
	RCU_TREE_FQS_SLEEP,   /* a wakeup that does not end the wait: sleep res->wait more */
	RCU_TREE_FQS_DONE,    /* the root's qsmask is empty: run rcu_tree_gp_cleanup() */
	RCU_TREE_FQS_SCANNED, /* one FQS scan (in *res); then wait res->wait */
	RCU_TREE_FQS_WAIT,    /* woken early without cause: wait res->wait (the old FQS time) */
} rcu_tree_fqs_step;
/* The FQS loop after its wait ends at @jiffies (timeout or wakeup): the
 * body of rcu_gp_fqs_loop() and the next wait. */
rcu_tree_fqs_step rcu_tree_gp_fqs_loop_wake(rcu_tree_state *rsp, int64_t jiffies,
					    rcu_tree_fqs_result *res);
/* rcu_gp_fqs() (tree.c:1978): one scan at @jiffies, force_qs_rnp() (tree.c:2684)
 * with rcu_watching_snap_save() (tree.c:783) when @first, else
 * rcu_watching_snap_recheck() (tree.c:815); res->wait is 0 (the loop sets it). */
void rcu_tree_gp_fqs(rcu_tree_state *rsp, bool first, int64_t jiffies, rcu_tree_fqs_result *res);
/* rcu_gp_cleanup() (tree.c:2100) at @jiffies, GP kthread on @gp_cpu (or
 * -1): end gp_seq on every node, recheck each leaf's overloaded CPUs, end
 * rcu_state.gp_seq, and request the next GP at once if one is needed
 * (*needgp: RCU_GP_FLAG_INIT set, the kthread starts it without sleeping).
 * Returns the nodes walked. */
int rcu_tree_gp_cleanup(rcu_tree_state *rsp, int gp_cpu, int64_t jiffies, bool *needgp);

/* ---- 8. invoking callbacks (rcu_do_batch, tree.c:2490) ------------------- */

typedef enum rcu_tree_invoker {
	RCU_TREE_SOFTIRQ, /* RCU_SOFTIRQ: count limit bl (not for the idle task), time limit */
	RCU_TREE_RCUC,    /* the rcuc/N kthread: no count limit, time limit */
} rcu_tree_invoker;

/* How a batch runs. */
typedef struct rcu_tree_batch {
	rcu_tree_invoker where; /* softirq or rcuc */
	bool need_resched;   /* need_resched() throughout the batch */
	bool idle_task;      /* the softirq runs on the idle task (then only need_resched stops it at bl) */
	sim_time first_ns;   /* ns: the first callback's start; also local_clock() for the time limit */
	sim_time cost_ns;    /* ns: each callback's CPU time */
} rcu_tree_batch;

/* Why a batch stopped (tree.c:2555-2599). */
typedef enum rcu_tree_batch_stop {
	RCU_TREE_STOP_EMPTY,    /* DONE ran out */
	RCU_TREE_STOP_COUNT,    /* count >= bl on a task that is not the idle task */
	RCU_TREE_STOP_RESCHED,  /* count >= bl on the idle task with need_resched() */
	RCU_TREE_STOP_TIME,     /* the time limit (rcu_do_batch_check_time()) */
	RCU_TREE_NSTOP
} rcu_tree_batch_stop;

/* What a batch did besides its count. */
typedef struct rcu_tree_batch_out {
	int64_t bl;          /* its batch limit */
	bool time_limited;   /* a time limit applied (bl > 100) */
	bool more;           /* DONE not empty: rcu_core invokes itself again */
	rcu_tree_batch_stop stop; /* why it stopped */
} rcu_tree_batch_out;

/* The batch limit rcu_do_batch() computes for @cpu now (tree.c:2527-2530). */
int64_t rcu_tree_batch_limit(const rcu_tree_state *rsp, int cpu);
/* rcu_do_batch() on @cpu: invoke DONE's callbacks from the oldest, the
 * k-th (from 0) at first_ns + k x cost_ns, adding each call_rcu-to-
 * invocation time to @lat (or not, NULL); stop by the rules of @b; leave
 * the rest in DONE; restore blimit and reset qlen_last_fqs_check as the
 * kernel does. Returns the number invoked (0 when DONE is empty); they
 * are the ring's indices [head - n, head). */
int64_t rcu_tree_do_batch(rcu_tree_state *rsp, int cpu, const rcu_tree_batch *b, sim_hist *lat,
			  rcu_tree_batch_out *out);
/* Invoke the first @n callbacks of @cpu's DONE segment, the k-th (from 0)
 * at first_ns + k x cost_ns: record each one's call_rcu-to-invocation time
 * in @lat (or not, NULL), remove them, then restore blimit and reset the
 * overflow trigger by the callbacks left, those of the list and
 * @elsewhere more (an offloaded CPU's bypass: ->cblist.len counts it).
 * rcu_do_batch()'s loop and end (tree.c 6.12:2555-2620), for
 * rcu_tree_do_batch() and the offloaded batches of tree_nocb.c. DONE must
 * hold @n. */
void rcu_tree_invoke_done(rcu_tree_state *rsp, int cpu, int64_t n, sim_time first_ns,
			  sim_time cost_ns, sim_hist *lat, int64_t elsewhere);
/* The objects of the last @n callbacks rcu_tree_do_batch() invoked on
 * @cpu (with payload): at most two runs of the ring, in order; returns
 * how many (0 with n = 0). */
int rcu_tree_invoked_objs(const rcu_tree_state *rsp, int cpu, int64_t n, const uint32_t *runs[2],
			  size_t lens[2]);

/* The Tree RCU state inside the flavor rcu_tree's state @rsp
 * (rcu/tree_flavor.c), for rcu/'s mechanisms and the tests; the kernel
 * model asks through rcu/rcu_domain.c. */
rcu_tree_state *rcu_tree_flavor_state(void *rsp);

/* Are the tree and every list consistent (masks within their nodes, no
 * qsmask without a GP, lists sane)? O(CPUs); for checks and tests. */
bool rcu_tree_sane(const rcu_tree_state *rsp);

#endif
