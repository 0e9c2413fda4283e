/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tree_nocb.h - callback offloading (rcu_nocbs=) and lazy callbacks of Linux
 * 6.12 (kernel/rcu/tree_nocb.h, tree.h's nocb fields of struct rcu_data,
 * tree.c's __call_rcu_common and rcu_do_batch for offloaded CPUs) on top of
 * tree.h, for CPUs that are online from boot and never change their
 * offload state: the rcuog groups, the per-CPU bypass list with its per-jiffy
 * allowance and its flush rules, lazy callbacks, the rcuog kthread's passes
 * (nocb_gp_wait), its deferred wakeups and their timer, and the rcuo
 * kthread's batches (nocb_cb_wait). Pure state machine like tree.h: the
 * caller decides when each function runs, pays its CPU time, and carries out
 * what the results ask (wake rcuog of a group, wake the rcuo kthread of a
 * CPU, wake the GP kthread, (re)arm or delete a group's timer). Jiffies are
 * passed in by the caller (int64_t from 0 at boot, the scenario's HZ).
 *
 * The bypass of a CPU lives in its rcu_segcblist's ring, right after NEXT:
 * callbacks [cblist.tails[RCU_NEXT_TAIL], nocb.bypass_tail). The kernel
 * enqueues onto ->cblist only when the bypass is empty, so this holds for
 * ever; a flush into NEXT is one index move (rcu_segcblist_insert_pend_cbs),
 * and a bypass entry costs what a list entry costs (6 bytes, 10 with its
 * object). rcu_segcblist_n_cbs() counts the main list only; the kernel's
 * ->cblist.len, which counts the bypass too, is rcu_nocb_len().
 *
 * For offloaded CPUs the caller must not use rcu_tree_call_rcu() (use
 * rcu_nocb_call_rcu()) nor rcu_tree_do_batch() (use rcu_nocb_cb_wait()), and
 * must skip the callback handling that 6.12 skips on them: advance/
 * accelerate in __note_gp_changes (tree.c:1278-1286), the accelerate of
 * rcu_report_qs_rdp (tree.c:2426) and of rcu_core (tree.c:2811), the
 * rcu_pending terms for callbacks (tree.c:4438-4446), and the kthread CPU's
 * accelerate in rcu_gp_cleanup (tree.c:2182-2183): rcu_tree_data.offloaded
 * makes tree.c skip them (set by the tree flavor, tree_nocb_flavor.c,
 * which drives this state machine in a run).
 *
 * Left out (tree_nocb.c's file header says why): CPU hotplug and runtime
 * (de-)offloading, rcu_nocb_poll, early boot (no bypass before the
 * scheduler runs, rcu_async_should_hurry), the lazy shrinker (the tree flavor runs its pass with this flush),
 * rcu_barrier itself (its flush is here), and lock
 * contention (every trylock succeeds).
 */
#ifndef RCUSIM_MODELS_RCU_NOCB_H
#define RCUSIM_MODELS_RCU_NOCB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rcu/domain.h" /* rcu_nohz_full_mask() */
#include "rcu/tree.h"

/* ---- 1. configuration and groups -------------------------------------------- */

/* nocb_defer_wakeup levels (tree.h:287-292). */
#define RCU_NOCB_WAKE_NOT 0    /* no deferred wakeup */
#define RCU_NOCB_WAKE_BYPASS 1 /* timer at +2 jiffies: a bypass to flush */
#define RCU_NOCB_WAKE_LAZY 2   /* timer at +jiffies_lazy_flush: lazy callbacks only */
#define RCU_NOCB_WAKE 3        /* timer at +1 jiffy: callbacks queued with irqs off */
#define RCU_NOCB_WAKE_FORCE 4  /* timer at +1 jiffy, wakes even an awake rcuog: overflow */

typedef struct rcu_nocb_cfg {
	int gp_stride;           /* rcu_nocb_gp_stride: CPUs per rcuog group; -1 = ncpus / int_sqrt(ncpus) */
	int64_t nobypass_lim_per_jiffy; /* nocb_nobypass_lim_per_jiffy; -1 = 16 * 1000 / HZ */
	int64_t jiffies_lazy_flush; /* jiffies_lazy_flush (rcu.lazy_flush); -1 = LAZY_FLUSH_JIFFIES, 10 * HZ */
	bool lazy;               /* enable_rcu_lazy (tree.c:3112): CONFIG_RCU_LAZY=y and not _DEFAULT_OFF;
				    off by default (RCU_LAZY is default n, kernel/rcu/Kconfig:313-316) */
	bool lazy_defer_reads_gp; /* wake_nocb_gp_defer() tests the group leader's nocb_defer_wakeup
				     (6.19) instead of the caller's (6.12, false) */
} rcu_nocb_cfg;

/* The 6.12 defaults (tree_nocb.h:85, 245-246, 1435; tree.c:3112). */
void rcu_nocb_cfg_default(rcu_nocb_cfg *cfg);

/* int_sqrt() (lib/math/int_sqrt.c:20): floor(sqrt(x)). */
uint64_t rcu_nocb_int_sqrt(uint64_t x);
/* rcu_organize_nocb_kthreads() (tree_nocb.h:1454-1457): the default stride
 * nr_cpu_ids / int_sqrt(nr_cpu_ids) for @ncpus >= 1 (8 -> 4, 32 -> 6,
 * 256 -> 16, 4096 -> 64). */
int rcu_nocb_default_stride(int ncpus);

/* The knobs offloading reads (params.h), with rcu.flavor = tree. */
extern const sim_knobs rcu_nocb_knobs;
/* rcu.nocbs parses, rcu.lazy_flush is a jiffy or more, and the knobs that
 * act only on offloaded CPUs are not set without one: 0, SIM_EINPUT
 * (message naming where the value was set) or SIM_ENOMEM. */
int rcu_nocb_validate(const sim_params *p, char *err, size_t errlen);

/* The configuration and the mask of offloaded CPUs (@mask[0..CPUs)) the
 * parameters @p give (rcu.nocbs, "none" or a CPU list, with irq.nohz_full's
 * CPUs added as rcu_init_nohz() adds them; rcu.nocb_gp_stride;
 * rcu.lazy; rcu.lazy_flush in whole jiffies of machine.hz), and how many
 * CPUs are offloaded in *noffloaded. 0, or SIM_EINPUT with "file:line:
 * key: why" in @err for a list cpulist_parse() refuses or a flush time
 * below one jiffy. */
int rcu_nocb_cfg_from_params(rcu_nocb_cfg *cfg, bool *mask, int *noffloaded, const sim_params *p,
			     char *err, size_t errlen);

/* rcu_nohz_full_mask(), the nohz_full CPUs rcu_init_nohz() offloads, is
 * rcu/domain.h's: the CPU model reads it too. */

/* ---- 2. state ------------------------------------------------------------------- */

/* What a group's rcuog kthread is waiting for (not the kernel's: its place
 * in nocb_gp_wait). */
typedef enum rcu_nocb_gp_waitkind {
	RCU_NOCB_GP_RUNNING,  /* between a wakeup and the end of its pass */
	RCU_NOCB_GP_WAIT_CBS, /* nocb_gp_sleep() (tree_nocb.h:642): for !nocb_gp_sleep */
	RCU_NOCB_GP_WAIT_GP,  /* tree_nocb.h:809: its leaf's gp_seq done with wait_seq, or !nocb_gp_sleep */
} rcu_nocb_gp_waitkind;

/* The nocb fields of struct rcu_data (tree.h:221-283) for one CPU. */
typedef struct rcu_nocb_data {
	bool offloaded;          /* in rcu_nocb_mask (SEGCBLIST_OFFLOADED) */
	int group;               /* index of its rcuog group (nocb_gp_rdp) */
	/* 1. the bypass (tree.h:233-237) */
	uint64_t bypass_tail;    /* ring index one past the newest bypass callback */
	int64_t lazy_len;        /* lazy_len: lazy callbacks in the bypass (tree.h:283) */
	int64_t bypass_first;    /* nocb_bypass_first: jiffies of the bypass's first enqueue or last flush */
	int64_t nobypass_last;   /* nocb_nobypass_last: jiffies of the last count update */
	int64_t nobypass_count;  /* nocb_nobypass_count: call_rcu()s counted against the allowance */
	int64_t gp_adv_time;     /* nocb_gp_adv_time: jiffies of the last advance from call_rcu */
	/* 2. the rcuo kthread */
	bool cb_sleep;           /* nocb_cb_sleep: rcuo waits for a wakeup */
	/* 3. statistics (not the kernel's) */
	uint64_t n_bypassed;     /* callbacks that went through the bypass */
	uint64_t n_flushes;      /* non-empty bypass flushes */
} rcu_nocb_data;

/* One rcuog kthread and the leader's rcu_data fields it uses (tree.h:224-257). */
typedef struct rcu_nocb_group {
	int leader;              /* the CPU whose rdp is nocb_gp_rdp (rcuog/leader) */
	int lo, hi;              /* its CPUs (offloaded or not): lo..hi */
	int noffloaded;          /* how many of them are offloaded (on nocb_head_rdp) */
	int defer_wakeup;        /* leader's nocb_defer_wakeup: RCU_NOCB_WAKE_* */
	bool timer_pending;      /* leader's nocb_timer armed */
	int64_t timer_expires;   /* jiffies: its expires (mod_timer()'s argument) */
	bool gp_sleep;           /* nocb_gp_sleep: rcuog may sleep */
	bool gp_bypass;          /* nocb_gp_bypass: a non-lazy bypass at the last pass */
	bool gp_lazy;            /* a lazy-only bypass at the last pass (nocb_gp_wait's lazy) */
	bool gp_gp;              /* nocb_gp_gp: a GP to wait for at the last pass */
	uint64_t gp_seq;         /* nocb_gp_seq: that GP (UINT64_MAX = -1 after the wait) */
	uint64_t gp_loops;       /* nocb_gp_loops: passes */
	rcu_nocb_gp_waitkind wait; /* where rcuog is */
	uint64_t wait_seq;       /* WAIT_GP: the gp_seq it waits for */
	int wait_node;           /* WAIT_GP: the rcu_node (leader's leaf) whose nocb_gp_wq it sleeps on */
} rcu_nocb_group;

typedef struct rcu_nocb_state {
	rcu_nocb_cfg cfg;        /* what it was built from (defaults resolved) */
	rcu_tree_state *rsp;     /* the tree it offloads from (not owned) */
	int ncpus;               /* CPUs */
	int stride;              /* rcu_nocb_gp_stride in force */
	int64_t lim;             /* nocb_nobypass_lim_per_jiffy in force */
	int64_t lazy_flush;      /* jiffies_lazy_flush in force, jiffies */
	int ngroups;             /* rcuog kthreads */
	rcu_nocb_group *grp;     /* per group */
	rcu_nocb_data *nd;       /* per CPU */
	int *wake_cpus;          /* scratch: rcuo kthreads a pass wakes (stride slots) */
} rcu_nocb_state;

/* Offload the CPUs of @mask (NULL: none) of @rsp, whose callback lists must be
 * empty, with every kthread asleep as after boot (rcu_init_nohz,
 * rcu_organize_nocb_kthreads, rcu_boot_init_nocb_percpu_data). 0,
 * SIM_ENOMEM, or SIM_EINPUT (message) for a stride below 1 (other than -1),
 * a negative allowance or lazy flush time. *out is NULL on failure. */
int rcu_nocb_create(rcu_nocb_state **out, rcu_tree_state *rsp, const rcu_nocb_cfg *cfg,
		    const bool *mask, char *err, size_t errlen);
void rcu_nocb_destroy(rcu_nocb_state *st); /* NULL is a no-op */

/* rcu_rdp_is_offloaded() (tree_plugin.h:16). */
static inline bool rcu_nocb_is_offloaded(const rcu_nocb_state *st, int cpu) { return st->nd[cpu].offloaded; }
/* The group of @cpu and its leader (rdp->nocb_gp_rdp). */
static inline rcu_nocb_group *rcu_nocb_group_of(rcu_nocb_state *st, int cpu) { return &st->grp[st->nd[cpu].group]; }
/* rcu_cblist_n_cbs(&rdp->nocb_bypass): callbacks in @cpu's bypass. */
static inline int64_t rcu_nocb_bypass_len(const rcu_nocb_state *st, int cpu)
{
	if (!st->nd[cpu].offloaded)
		return 0;
	return (int64_t)(st->nd[cpu].bypass_tail - st->rsp->rda[cpu].cblist.tails[RCU_NEXT_TAIL]);
}
/* rcu_segcblist_n_cbs(&rdp->cblist) of @cpu: main list plus bypass. */
static inline int64_t rcu_nocb_len(const rcu_nocb_state *st, int cpu)
{
	return rcu_segcblist_n_cbs(&st->rsp->rda[cpu].cblist) + rcu_nocb_bypass_len(st, cpu);
}

/* What a step asks of its caller. Groups are indices in st->grp. */
typedef struct rcu_nocb_effect {
	bool wake_gp_kthread;    /* rcu_gp_kthread_wake() */
	int wake_rcuog;          /* group whose rcuog sleeps for callbacks and must run now, or -1.
				    (A kick of an rcuog in a GP wait only clears its nocb_gp_sleep: the
				    kernel's swake_up_one() goes to a queue it is not on; it runs at the
				    GP's end, rcu_nocb_gp_cleanup()) */
	int timer_grp;           /* group whose nocb_timer was armed, moved or deleted, or -1: (re)arm
				    the caller's timer from grp->timer_pending / timer_expires */
	int nwake_rcuo;          /* rcuo kthreads to wake (their nocb_cb_sleep was cleared) */
	const int *wake_rcuo;    /* their CPUs (st->wake_cpus, until the next pass) */
} rcu_nocb_effect;

/* An effect that asks nothing. */
static inline void rcu_nocb_effect_init(rcu_nocb_effect *eff)
{
	*eff = (rcu_nocb_effect){ .wake_rcuog = -1, .timer_grp = -1 };
}

/* ---- 3. call_rcu on an offloaded CPU ----------------------------------------- */

/* Where rcu_nocb_call_rcu() put the callback. */
typedef enum rcu_nocb_where {
	RCU_NOCB_DIRECT,   /* onto ->cblist's NEXT (under the allowance, or a flush of an empty bypass) */
	RCU_NOCB_BYPASS,   /* onto the bypass */
	RCU_NOCB_FLUSHED,  /* the bypass was flushed into NEXT first: a lazy callback went with it,
			      a non-lazy one is now the bypass's only callback (tree_nocb.h:331-335) */
} rcu_nocb_where;

/* call_rcu() (@lazy: call_rcu, else call_rcu_hurry) on offloaded @cpu at
 * @at ns, @jiffies, for object @obj: __call_rcu_common() (tree.c:3061):
 * lazy only if cfg.lazy (enable_rcu_lazy); check_cb_ovld() on the length
 * with the bypass; call_rcu_nocb() (tree_nocb.h:601): rcu_nocb_try_bypass()
 * (:393), else rcutree_enqueue() (tree.c:2952) and __call_rcu_nocb_wake()
 * (:526). @irqs_disabled: called with irqs off (a wakeup is deferred).
 * Effects in *eff (or'ed in); where it went in *where (or NULL); the number
 * flushed from the bypass in *flushed (or NULL). 0 or SIM_ENOMEM (nothing
 * queued, no state changed). */
int rcu_nocb_call_rcu(rcu_nocb_state *st, int cpu, sim_time at, int64_t jiffies, uint32_t obj,
		      bool lazy, bool irqs_disabled, rcu_nocb_effect *eff, rcu_nocb_where *where,
		      int64_t *flushed);
/* Up to @n call_rcu()s (@lazy as for rcu_nocb_call_rcu(), irqs on) on
 * offloaded @cpu at @t0, @t0 + @step, ..., all within jiffy @jiffies (the
 * caller bounds @n), for object 0: as many from the first as would each
 * only join the bypass (rcu_nocb_try_bypass(), tree_nocb.h:482-495, with
 * no allowance count reset, flush or wakeup), queued at once with the state
 * rcu_nocb_call_rcu() leaves after the same calls one by one, and no
 * effects. Returns how many (0: the first would do more, so make it with
 * rcu_nocb_call_rcu()), or SIM_ENOMEM (none queued). */
int64_t rcu_nocb_bypass_n(rcu_nocb_state *st, int cpu, sim_time t0, sim_time step, int64_t n,
			  int64_t jiffies, bool lazy);
/* rcu_nocb_flush_bypass(rdp, NULL, j, false) (tree_nocb.h:352) and
 * rcu_nocb_do_flush_bypass() (:308): move @cpu's whole bypass to the end of
 * NEXT, lazy_len = 0, nocb_bypass_first = @jiffies (as rcu_barrier_entrain,
 * tree.c:4513, and rcuog do). Returns how many moved. */
int64_t rcu_nocb_flush_bypass(rcu_nocb_state *st, int cpu, int64_t jiffies);

/* ---- 4. waking rcuog ----------------------------------------------------------- */

/* wake_nocb_gp() / __wake_nocb_gp() (tree_nocb.h:228, 193) for @cpu's
 * group: cancel a deferred wakeup and its timer; clear nocb_gp_sleep if set
 * (or @force). True if it was cleared (the kernel's needwake). */
bool rcu_nocb_wake_nocb_gp(rcu_nocb_state *st, int cpu, bool force, rcu_nocb_effect *eff);
/* wake_nocb_gp_defer() (tree_nocb.h:266): defer @cpu's group's wakeup to
 * its timer at @jiffies: LAZY +jiffies_lazy_flush (only if no deferral is
 * pending, see cfg.lazy_defer_reads_gp), BYPASS +2 (overrides any), WAKE
 * and FORCE +1 (unless WAKE or FORCE is pending). */
void rcu_nocb_wake_defer(rcu_nocb_state *st, int cpu, int waketype, int64_t jiffies,
			 rcu_nocb_effect *eff);
/* rcu_nocb_need_deferred_wakeup() (tree_nocb.h:953) for @cpu's own rdp, as
 * rcu_pending() (tree.c:4421) asks with RCU_NOCB_WAKE: only a group leader's
 * field is ever set. */
bool rcu_nocb_need_deferred_wakeup(const rcu_nocb_state *st, int cpu, int level);
/* do_nocb_deferred_wakeup() (tree_nocb.h:998) on @cpu (rcu_core, tree.c:2830;
 * idle entry via rcu_nocb_flush_deferred_wakeup, kernel/sched/idle.c:314):
 * do its group's WAKE or FORCE deferral now. True if rcuog's nocb_gp_sleep
 * was cleared. */
bool rcu_nocb_do_deferred_wakeup(rcu_nocb_state *st, int cpu, rcu_nocb_effect *eff);
/* do_nocb_deferred_wakeup_timer() (tree_nocb.h:980): group @g's timer fired
 * (it is no longer pending): any deferral (level >= BYPASS) wakes rcuog,
 * forced for FORCE. */
void rcu_nocb_timer(rcu_nocb_state *st, int g, rcu_nocb_effect *eff);
/* The jiffy at which a timer_list armed at base clock @clk (about jiffies)
 * with @expires fires: calc_wheel_index() / calc_index()
 * (kernel/time/timer.c:567-619 6.12) round the expiry up to the
 * granularity of the wheel level its distance falls in (8^level jiffies),
 * and never fire it early: at least @expires + 1. @hz picks the depth. */
int64_t rcu_nocb_timer_fire_jiffies(int64_t expires, int64_t clk, int hz);

/* ---- 5. the rcuog kthread (rcu_nocb_gp_kthread, tree_nocb.h:862) ----------------- */

/* What one nocb_gp_wait() pass did. */
typedef struct rcu_nocb_gp_pass {
	int cpus;                /* offloaded CPUs of the group looked at */
	int flushed_cpus;        /* bypasses flushed (old or too long) */
	int64_t flushed;         /* callbacks they held */
	int advanced;            /* CPUs whose callbacks were advanced */
	bool sleep;              /* the wait's condition is false now: rcuog sleeps (else it runs
				    rcu_nocb_gp_wait_end() and another pass at once) */
} rcu_nocb_gp_pass;

/* nocb_gp_wait() (tree_nocb.h:654-814) of group @g at @jiffies, up to its
 * sleep: for each offloaded CPU, flush an old or long bypass (lazy-only:
 * older than jiffies_lazy_flush or over 2 x qhimark; else older than one
 * jiffy or over 2 x qhimark), advance (requesting a GP), note the earliest
 * GP to wait for, wake rcuo where callbacks are ready; then defer a LAZY or
 * BYPASS wakeup for leftover bypasses, and choose the wait (for callbacks,
 * or for that GP on the leader's leaf). Effects in *eff (wake_rcuo,
 * wake_gp_kthread, timer_grp); counts in *pass. rcuog must be running
 * (woken, or after rcu_nocb_gp_wait_end()). */
void rcu_nocb_gp_wait(rcu_nocb_state *st, int g, int64_t jiffies, rcu_nocb_gp_pass *pass,
		      rcu_nocb_effect *eff);
/* The condition rcuog of group @g sleeps on, now (tree_nocb.h:646, 811-812). */
bool rcu_nocb_gp_wait_cond(const rcu_nocb_state *st, int g);
/* The end of nocb_gp_wait() (tree_nocb.h:816-850) once the wait is over:
 * cancel a deferred wakeup and its timer, nocb_gp_sleep = true. rcuog is
 * then running. */
void rcu_nocb_gp_wait_end(rcu_nocb_state *st, int g, rcu_nocb_effect *eff);
/* rcu_nocb_gp_cleanup() (tree_nocb.h:177) for every rcu_node as
 * rcu_gp_cleanup() (tree.c:2159-2161) ends a GP (call after
 * rcu_tree_gp_cleanup()): swake_up_all() of nocb_gp_wq[ctr(gp_seq) & 1]
 * wakes the rcuog kthreads in a GP wait on that queue; those whose
 * condition holds run. Returns how many, their groups in @woken (ngroups
 * slots); the others sleep on. */
int rcu_nocb_gp_cleanup(rcu_nocb_state *st, int *woken);

/* ---- 6. the rcuo kthread (rcu_nocb_cb_kthread, tree_nocb.h:939) ------------------ */

/* How one rcuo batch runs. */
typedef struct rcu_nocb_batch {
	sim_time first_ns;       /* ns: the first callback's start */
	sim_time cost_ns;        /* ns: each callback's CPU time */
	int64_t max;             /* invoke at most this many, the rest left in DONE (the caller's
				    cut at a cond_resched() that reschedules); 0 = all */
} rcu_nocb_batch;

/* What nocb_cb_wait() did. */
typedef struct rcu_nocb_cb_out {
	int64_t invoked;         /* callbacks invoked (the ring's [head - invoked, head)) */
	int64_t cond_resched;    /* cond_resched_tasks_rcu_qs() points: one per callback
				    (tree.c:2586-2590), each rcu_all_qs() on the rcuo's CPU */
	bool wake_gp_kthread;    /* rcu_gp_kthread_wake() after its advance */
	bool sleep;              /* nocb_cb_sleep: DONE is empty, rcuo waits for rcuog */
} rcu_nocb_cb_out;

/* nocb_cb_wait() (tree_nocb.h:883-933) for offloaded @cpu after its wait:
 * (the caller does rcu_momentary_eqs() on the CPU rcuo runs on first,
 * :903) rcu_do_batch() (tree.c:2490) as in rcuo: every DONE callback (or
 * the first b->max), no count or time limit, the k-th (from 0) at first_ns + k x cost_ns, its
 * call_rcu-to-invocation time into @lat (or NULL); ->qlen_last_fqs_check
 * and blimit as the kernel keeps them with the bypass counted; then
 * advance when the next GP is done; rcuo sleeps if DONE is empty. Returns
 * the number invoked. */
int64_t rcu_nocb_cb_wait(rcu_nocb_state *st, int cpu, const rcu_nocb_batch *b, sim_hist *lat,
			 rcu_nocb_cb_out *out);
/* nocb_cb_wait_cond() (tree_nocb.h:874): rcuo of @cpu would run. */
static inline bool rcu_nocb_cb_wait_cond(const rcu_nocb_state *st, int cpu) { return !st->nd[cpu].cb_sleep; }

/* The offloading state inside the tree flavor's state @rsp
 * (rcu/tree_nocb_flavor.c), NULL when no CPU is offloaded; and, for
 * tests, switch its call site between call_rcu_hurry (@hurry) and call_rcu. */
rcu_nocb_state *rcu_tree_flavor_nocb(void *rsp);
void rcu_tree_flavor_set_hurry(void *rsp, bool hurry);

/* Is every offloaded CPU's bypass after its NEXT, lazy_len within it,
 * every non-offloaded CPU's bypass empty, and every group consistent?
 * O(CPUs); for checks and tests. */
bool rcu_nocb_sane(const rcu_nocb_state *st);

#endif
