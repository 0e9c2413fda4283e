/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rcu_tree_flavor.c - Tree RCU of Linux 6.12 (models/rcu_tree.c) as the
 * CPU model sees it (rcu.h): call_rcu, the tick (rcu_sched_clock_irq), the
 * context switch, idle entry and exit, rcu_core() with rcu_do_batch() in
 * RCU_SOFTIRQ or an rcuc kthread, and the grace-period kthread's loop
 * (rcu_gp_kthread(), kernel/rcu/tree.c 6.12:2221-2262) cut into steps:
 *
 *   IDLE      wait for RCU_GP_FLAG_INIT; rcu_gp_init() walks every node
 *   FQS_START rcu_gp_fqs_loop() begins: the first wait
 *   FQS       each wakeup or timeout: sleep on, an FQS scan, or done
 *   CLEANUP   rcu_gp_cleanup() walks every node, ends gp_seq
 *   CLEANED   the GP's end is recorded; a GP needed already starts at once
 *
 * A step's state changes when it starts (the caller charges its work
 * after: nodes walked, CPUs scanned), as softirq runs are committed when
 * they start. A grace period is timed from its init step's start to its
 * cleanup step's end, its phases as init (to the FQS loop), waiting for
 * quiescent states (to the loop's end, the kthread's own scheduling delay
 * included), and cleanup.
 *
 * Offloaded CPUs (rcu.nocbs, models/rcu_nocb.c): call_rcu goes to
 * rcu_nocb_call_rcu() (bypass, lazy), rcu_core() invokes nothing there,
 * rcuog passes (nocb_gp_wait) and rcuo batches (nocb_cb_wait) are the CPU
 * model's kthreads, and what they are to do (wake an rcuog or an rcuo,
 * (re)arm a group's nocb_timer) is gathered as kicks, deduplicated, for
 * the caller to take (rcu.h). rcu_gp_cleanup() wakes the rcuog kthreads
 * waiting for the GP (rcu_nocb_gp_cleanup()). A group's timer fires at
 * the jiffy the timer wheel gives its expiry at the time it was armed
 * (rcu_nocb_timer_fire_jiffies()). Bypass flushes are counted by cause:
 * allowance (a non-lazy call_rcu under 16 x 1000 / HZ a jiffy flushes
 * it), age (a jiffy, or rcu.lazy_flush for a lazy-only bypass) and length
 * (qhimark from call_rcu, 2 x qhimark from rcuog); lazy callbacks leave
 * the bypass by age, count (length), or hurry (a non-lazy arrival made
 * the bypass non-lazy). Without offloaded CPUs none of this runs.
 *
 * Stall warnings are counted where the kernel prints them (check_cpu_stall()
 * from rcu_pending() on the tick, tree_stall.h 6.12:762-830): the first tick
 * at or after jiffies_stall while the GP runs; the next one is due
 * 3 x the stall time + 3 jiffies later (print_other_cpu_stall(),
 * tree_stall.h 6.12:628).
 */
#include "rcu/rcu.h"
#include "rcu/tree_nocb.h"
#include "rcu/tree.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

/* Where the GP kthread is in its loop. */
enum { GPK_IDLE, GPK_FQS_START, GPK_FQS, GPK_CLEANUP, GPK_CLEANED };

typedef struct tree_flavor {
	rcu_tree_state *rs;     /* the state machine */
	sim_time tick_ns;       /* ns per jiffy */
	sim_hist *lat;          /* call_rcu to invocation */
	rcu_invoke_fn *invoke;  /* the callbacks' function, or NULL */
	void *invoke_ctx;       /* its first argument */
	/* The GP kthread. */
	int phase;              /* GPK_* */
	sim_time gp_start_ns;   /* ns: the current GP's init step began */
	sim_time fqs_start_ns;  /* ns: its FQS loop began */
	sim_time cleanup_ns;    /* ns: its cleanup step began */
	sim_hist *gp_hist;      /* gp.duration_ns */
	sim_hist *init_hist;    /* gp.init_ns */
	sim_hist *wait_hist;    /* gp.qs_wait_ns */
	sim_hist *cleanup_hist; /* gp.cleanup_ns */
	uint64_t gp_done;       /* grace periods timed to their end */
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

rcu_tree_state *rcu_tree_flavor_state(void *rsp)
{
	return ((tree_flavor *)rsp)->rs;
}

/* Offload the CPUs rcu.nocbs names (none: tf->nocb stays NULL). 0,
 * SIM_EINPUT (message) or SIM_ENOMEM. */
static int nocb_create(tree_flavor *tf, const rcu_flavor_env *env, char *err, size_t errlen)
{
	rcu_nocb_cfg cfg;
	int noff, n = env->ncpus;
	bool *mask = malloc((size_t)n * sizeof(*mask));
	if (!mask)
		return SIM_ENOMEM;
	int rc = rcu_nocb_cfg_from_params(&cfg, mask, &noff, env->p, err, errlen);
	if (!rc && noff)
		rc = rcu_nocb_create(&tf->nocb, tf->rs, &cfg, mask, err, errlen);
	free(mask);
	if (rc || !noff)
		return rc;
	rcu_nocb_state *st = tf->nocb;
	tf->hurry = env->hurry;
	tf->hz = tf->rs->cfg.hz;
	tf->shrink_at = cfg.lazy ? sim_params_int(env->p, P_RCU_LAZY_SHRINK_AT) : 0;
	tf->shrink_check = tf->shrink_at;
	for (int i = 0; i < n; i++)
		tf->rs->rda[i].offloaded = st->nd[i].offloaded;
	size_t ng = (size_t)st->ngroups;
	tf->timer_fire = calloc(ng, sizeof(*tf->timer_fire));
	tf->woken = calloc(ng, sizeof(*tf->woken));
	tf->snap = calloc(3 * (size_t)st->stride, sizeof(*tf->snap));
	tf->kicks = calloc(2 * ng + (size_t)n, sizeof(*tf->kicks));
	tf->kick_og = calloc(ng, sizeof(*tf->kick_og));
	tf->kick_timer = calloc(ng, sizeof(*tf->kick_timer));
	tf->kick_o = calloc((size_t)n, sizeof(*tf->kick_o));
	if (!tf->timer_fire || !tf->woken || !tf->snap || !tf->kicks || !tf->kick_og ||
	    !tf->kick_timer || !tf->kick_o)
		return SIM_ENOMEM;
	return 0;
}

/* A kick of @kind for group or CPU @id, once until taken. */
static void nocb_kick(tree_flavor *tf, rcu_nocb_kick_kind kind, int id)
{
	bool *seen = kind == RCU_KICK_RCUO ? &tf->kick_o[id]
		     : kind == RCU_KICK_RCUOG ? &tf->kick_og[id] : &tf->kick_timer[id];
	if (*seen)
		return;
	*seen = true;
	tf->kicks[tf->nkicks++] = (rcu_nocb_kick){ kind, id };
}

/* What rcu_nocb asked for in @e at @j jiffies, as kicks: rcuog and rcuo
 * wakeups, and a group timer's new state (the jiffy it fires, from the
 * wheel at @j). The GP kthread's wakeup is the caller's. */
static void nocb_effect(tree_flavor *tf, const rcu_nocb_effect *e, int64_t j)
{
	if (e->wake_rcuog >= 0)
		nocb_kick(tf, RCU_KICK_RCUOG, e->wake_rcuog);
	if (e->timer_grp >= 0) {
		const rcu_nocb_group *grp = &tf->nocb->grp[e->timer_grp];
		if (grp->timer_pending)
			tf->timer_fire[e->timer_grp] =
				rcu_nocb_timer_fire_jiffies(grp->timer_expires, j, tf->hz) * tf->tick_ns;
		nocb_kick(tf, RCU_KICK_TIMER, e->timer_grp);
	}
	for (int i = 0; i < e->nwake_rcuo; i++)
		nocb_kick(tf, RCU_KICK_RCUO, e->wake_rcuo[i]);
}

/* A bypass of @nb callbacks, @nl of them lazy, was flushed for @cause
 * (0 allowance, 1 age, 2 length), with @extra lazy ones that went through
 * it at once: count the flush and the lazy callbacks by cause. */
static void nocb_count_flush(tree_flavor *tf, int cause, int64_t nb, int64_t nl, int64_t extra)
{
	uint64_t lazy = (uint64_t)(nl + extra);
	if (cause == 0) {
		tf->flush_allowance++;
		tf->lazy_hurry += lazy; /* a non-lazy call_rcu flushed them */
	} else if (cause == 2) {
		tf->flush_length++;
		tf->lazy_count += lazy;
	} else {
		tf->flush_age++;
		if (nl == nb) /* lazy only: rcu.lazy_flush old */
			tf->lazy_age += lazy;
		else          /* a non-lazy one made the bypass a jiffy's */
			tf->lazy_hurry += lazy;
	}
}

/* Memory pressure as rcusim models it (rcu.lazy_shrink_at): the
 * allocation behind a lazy call_rcu() that finds that many lazy callbacks
 * queued on the offloaded CPUs enters direct reclaim, and the "rcu-lazy"
 * shrinker's pass covers them all: lazy_rcu_shrink_count(), then
 * lazy_rcu_shrink_scan() (tree_nocb.h 6.12:1199-1281) flushing each CPU's
 * bypass that holds lazy callbacks (rcu_nocb_try_flush_bypass()) and
 * waking its rcuog (wake_nocb_gp(rdp, false)). The total grows only by
 * lazy call_rcu()s, so it is summed only when it could have reached the
 * threshold. */
static void nocb_lazy_shrink(tree_flavor *tf, int64_t j)
{
	rcu_nocb_state *st = tf->nocb;
	if (--tf->shrink_check > 0)
		return;
	int64_t total = 0;
	for (int i = 0; i < st->ncpus; i++)
		total += st->nd[i].lazy_len;
	if (total < tf->shrink_at) {
		tf->shrink_check = tf->shrink_at - total;
		return;
	}
	tf->shrinks++;
	for (int i = 0; i < st->ncpus; i++) {
		int64_t nl = st->nd[i].lazy_len;
		if (!nl)
			continue;
		rcu_nocb_effect e;
		rcu_nocb_effect_init(&e);
		(void)rcu_nocb_flush_bypass(st, i, j);
		tf->flush_memory++;
		tf->lazy_memory += (uint64_t)nl;
		(void)rcu_nocb_wake_nocb_gp(st, i, false, &e);
		nocb_effect(tf, &e, j);
	}
	tf->shrink_check = tf->shrink_at;
}

/* call_rcu() on offloaded @cpu: rcu_nocb_call_rcu(), lazy unless the call
 * site hurries (and lazy at all only with rcu.lazy). */
static int nocb_call_rcu(tree_flavor *tf, int cpu, sim_time at, uint32_t obj, rcu_effect *eff)
{
	rcu_nocb_state *st = tf->nocb;
	rcu_nocb_data *nd = &st->nd[cpu];
	int64_t j = at / tf->tick_ns;
	int64_t nb = rcu_nocb_bypass_len(st, cpu), nl = nd->lazy_len, flushed;
	bool lazy = !tf->hurry && st->cfg.lazy;
	rcu_nocb_effect e;
	rcu_nocb_where where;
	rcu_nocb_effect_init(&e);
	if (rcu_nocb_call_rcu(st, cpu, at, j, obj, lazy, false, &e, &where, &flushed))
		return SIM_ENOMEM;
	tf->lazy_queued += lazy;
	if (where == RCU_NOCB_DIRECT && flushed)
		nocb_count_flush(tf, 0, nb, nl, 0);
	else if (where == RCU_NOCB_FLUSHED) /* tree_nocb.h:453-480: too full, else too old */
		nocb_count_flush(tf, nb >= st->rsp->cfg.qhimark ? 2 : 1, nb, nl, lazy);
	int64_t b = rcu_nocb_bypass_len(st, cpu);
	if (b > tf->bypass_max)
		tf->bypass_max = b;
	nocb_effect(tf, &e, j);
	if (lazy && tf->shrink_at)
		nocb_lazy_shrink(tf, j);
	eff->wake_gp |= e.wake_gp_kthread;
	return 0;
}

rcu_nocb_state *rcu_tree_flavor_nocb(void *rsp)
{
	return ((tree_flavor *)rsp)->nocb;
}

void rcu_tree_flavor_set_hurry(void *rsp, bool hurry)
{
	((tree_flavor *)rsp)->hurry = hurry;
}

static void tree_destroy(void *state)
{
	tree_flavor *tf = state;
	if (!tf)
		return;
	rcu_nocb_destroy(tf->nocb);
	free(tf->timer_fire);
	free(tf->woken);
	free(tf->snap);
	free(tf->kicks);
	free(tf->kick_og);
	free(tf->kick_timer);
	free(tf->kick_o);
	rcu_tree_destroy(tf->rs);
	free(tf);
}

static int tree_create(void **out, const rcu_flavor_env *env, char *err, size_t errlen)
{
	rcu_tree_cfg cfg;
	tree_flavor *tf = calloc(1, sizeof(*tf));
	*out = tf;
	if (!tf)
		goto nomem;
	int rc = rcu_tree_cfg_from_params(&cfg, env->p, err, errlen);
	cfg.cb_runs = env->bulk_calls; /* call times as runs, for bulk calls */
	if (!rc)
		rc = rcu_tree_create(&tf->rs, &cfg, env->invoke != NULL, err, errlen);
	if (rc)
		return rc;
	/* The CPUs boot idle, in an extended quiescent state; the CPU model
	 * calls idle_exit() when each picks its first task. */
	for (int i = 0; i < tf->rs->ncpus; i++)
		tf->rs->rda[i].watching = 2;
	tf->tick_ns = env->tick_ns;
	tf->lat = env->lat;
	tf->invoke = env->invoke;
	tf->invoke_ctx = env->invoke_ctx;
	tf->phase = GPK_IDLE;
	if ((rc = nocb_create(tf, env, err, errlen)))
		return rc;
	if (!(tf->gp_hist = sim_metrics_hist(env->m, "gp.duration_ns")) ||
	    !(tf->init_hist = sim_metrics_hist(env->m, "gp.init_ns")) ||
	    !(tf->wait_hist = sim_metrics_hist(env->m, "gp.qs_wait_ns")) ||
	    !(tf->cleanup_hist = sim_metrics_hist(env->m, "gp.cleanup_ns")))
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "Tree RCU: out of memory");
	return SIM_ENOMEM;
}

/* The function of each of the @n callbacks just invoked on @cpu (the
 * last @n taken off its list), the first at @first_ns and each @cost_ns
 * after: one call per run of the ring. */
static void invoke_objs(tree_flavor *tf, int cpu, int64_t n, sim_time first_ns, sim_time cost_ns)
{
	if (!n || !tf->invoke)
		return;
	const uint32_t *runs[2];
	size_t lens[2];
	int nr = rcu_tree_invoked_objs(tf->rs, cpu, n, runs, lens);
	for (int i = 0; i < nr; i++) {
		tf->invoke(tf->invoke_ctx, cpu, runs[i], lens[i], first_ns, cost_ns);
		first_ns += (sim_time)lens[i] * cost_ns;
	}
}

static int tree_call_rcu(void *state, int cpu, sim_time at, uint32_t obj, rcu_effect *eff)
{
	tree_flavor *tf = state;
	if (__builtin_expect(tf->nocb != NULL, 0) && tf->rs->rda[cpu].offloaded)
		return nocb_call_rcu(tf, cpu, at, obj, eff);
	return rcu_tree_call_rcu(tf->rs, cpu, at, obj, false, eff);
}

/* @n call_rcu()s at @t0 + i * @step on offloaded @cpu, with the state and
 * effects of nocb_call_rcu() one by one: the stretches of them within one
 * jiffy that only join the bypass in one rcu_nocb_bypass_n() each (short
 * of the call that makes nocb_lazy_shrink() count), every other call
 * alone. */
static int nocb_call_rcu_n(tree_flavor *tf, int cpu, sim_time t0, sim_time step, int64_t n,
			   rcu_effect *eff)
{
	rcu_nocb_state *st = tf->nocb;
	bool lazy = !tf->hurry && st->cfg.lazy;
	for (int64_t i = 0; i < n;) {
		sim_time t = t0 + i * step;
		int64_t j = t / tf->tick_ns, m = n - i;
		if (step > 0) { /* the calls left in jiffy j: t0 + c * step < (j + 1) * tick */
			int64_t end = ((j + 1) * tf->tick_ns - t0 + step - 1) / step;
			if (end - i < m)
				m = end - i;
		}
		if (lazy && tf->shrink_at && m > tf->shrink_check - 1)
			m = tf->shrink_check - 1;
		int64_t k = m > 0 ? rcu_nocb_bypass_n(st, cpu, t, step, m, j, lazy) : 0;
		if (k < 0)
			return SIM_ENOMEM;
		if (k == 0) {
			if (nocb_call_rcu(tf, cpu, t, 0, eff))
				return SIM_ENOMEM;
			i++;
			continue;
		}
		if (lazy) {
			tf->lazy_queued += (uint64_t)k;
			if (tf->shrink_at)
				tf->shrink_check -= k;
		}
		int64_t b = rcu_nocb_bypass_len(st, cpu);
		if (b > tf->bypass_max)
			tf->bypass_max = b;
		i += k;
	}
	return 0;
}

/* @n call_rcu()s from task context: rcu_tree_call_rcu_n(), or
 * nocb_call_rcu_n() on an offloaded CPU. */
static int tree_call_rcu_n(void *state, int cpu, sim_time t0, sim_time step, int64_t n,
			   rcu_effect *eff)
{
	tree_flavor *tf = state;
	if (__builtin_expect(tf->nocb != NULL, 0) && tf->rs->rda[cpu].offloaded)
		return nocb_call_rcu_n(tf, cpu, t0, step, n, eff);
	return rcu_tree_call_rcu_n(tf->rs, cpu, t0, step, n, eff);
}

/* rcu_pending() (tree.c 6.12:4409): a deferred rcuog wakeup of this CPU's
 * (a group leader's) first. */
static bool tree_pending(const void *state, int cpu)
{
	const tree_flavor *tf = state;
	if (tf->nocb && rcu_nocb_need_deferred_wakeup(tf->nocb, cpu, RCU_NOCB_WAKE))
		return true;
	return rcu_tree_pending(tf->rs, cpu);
}

static void tree_note_context_switch(void *state, int cpu)
{
	tree_flavor *tf = state;
	rcu_tree_note_context_switch(tf->rs, cpu);
}

/* rcu_core() (tree.c 6.12:2787-2830): the quiescent-state check and, with
 * no GP running, acceleration; then rcu_do_batch() if DONE is not empty,
 * and each invoked callback's function on this CPU. */
static int64_t tree_core(void *state, int cpu, const rcu_core_ctx *b, bool *more,
			 rcu_effect *eff)
{
	tree_flavor *tf = state;
	rcu_tree_state *rs = tf->rs;
	if (rcu_tree_core(rs, cpu))
		eff->wake_gp = true;
	*more = false;
	if (__builtin_expect(tf->nocb != NULL, 0)) {
		/* do_nocb_deferred_wakeup() (:2830) on a group leader; an
		 * offloaded CPU's callbacks are rcuo's (:2819). */
		if (rcu_nocb_need_deferred_wakeup(tf->nocb, cpu, RCU_NOCB_WAKE)) {
			rcu_nocb_effect ne;
			rcu_nocb_effect_init(&ne);
			(void)rcu_nocb_do_deferred_wakeup(tf->nocb, cpu, &ne);
			nocb_effect(tf, &ne, b->now / tf->tick_ns);
		}
		if (rs->rda[cpu].offloaded)
			return 0;
	}
	if (!rcu_segcblist_ready_cbs(&rs->rda[cpu].cblist))
		return 0;
	rcu_tree_batch bt = {
		.where = b->kthread ? RCU_TREE_RCUC : RCU_TREE_SOFTIRQ,
		.need_resched = b->need_resched,
		.idle_task = b->idle_task,
		.first_ns = b->first_ns,
		.cost_ns = b->cost_ns,
	};
	rcu_tree_batch_out out;
	int64_t n = rcu_tree_do_batch(rs, cpu, &bt, tf->lat, &out);
	*more = out.more;
	invoke_objs(tf, cpu, n, b->first_ns, b->cost_ns);
	return n;
}

static bool tree_owes_qs(const void *state, int cpu)
{
	const tree_flavor *tf = state;
	const rcu_tree_data *rdp = &tf->rs->rda[cpu];
	return (tf->rs->node[rdp->leaf].qsmask & rdp->grpmask) != 0;
}

/* Callbacks queued on @cpu: its segments and, offloaded, its bypass (the
 * kernel's ->cblist.len). */
static int64_t tree_qlen(const void *state, int cpu)
{
	const tree_flavor *tf = state;
	int64_t n = rcu_segcblist_n_cbs(&tf->rs->rda[cpu].cblist);
	return tf->nocb ? n + rcu_nocb_bypass_len(tf->nocb, cpu) : n;
}

static int64_t tree_qlen_max(const void *state, int cpu)
{
	const tree_flavor *tf = state;
	return tf->rs->rda[cpu].qlen_max;
}

/* Offloading's series (the bypasses, all CPUs) and, with the checks on,
 * its accounting: every lazy callback queued is in a bypass or was flushed
 * with a cause, every flush rcu_nocb counted has a cause, the state sane. */
static int nocb_sample(tree_flavor *tf, sim_metrics *m, sim_time now)
{
	const rcu_nocb_state *st = tf->nocb;
	int64_t bypass = 0, lazy = 0;
	uint64_t flushes = 0;
	for (int i = 0; i < st->ncpus; i++) {
		bypass += rcu_nocb_bypass_len(st, i);
		lazy += st->nd[i].lazy_len;
		flushes += st->nd[i].n_flushes;
	}
	RCUSIM_CHECK(tf->lazy_queued == tf->lazy_age + tf->lazy_count + tf->lazy_hurry +
						tf->lazy_memory + (uint64_t)lazy,
		     "rcu_nocb.lazy_accounted");
	RCUSIM_CHECK(flushes == tf->flush_allowance + tf->flush_age + tf->flush_length +
					tf->flush_memory,
		     "rcu_nocb.flushes_accounted");
	RCUSIM_CHECK(rcu_nocb_sane(st), "rcu_nocb.sane");
	(void)lazy;
	(void)flushes;
	sim_series *s = sim_metrics_series(m, "cb.bypass", -1);
	if (!s || sim_series_append(s, now, (double)bypass))
		return SIM_ENOMEM;
	return 0;
}

/* Series: grace periods so far, and the callbacks in each segment, all
 * CPUs together (which add up to cb.qlen: checked). */
static int tree_sample(void *state, sim_metrics *m, sim_time now)
{
	static const char *const seg_names[RCU_CBLIST_NSEGS] = {
		"cb.seg_done", "cb.seg_wait", "cb.seg_next_ready", "cb.seg_next"
	};
	tree_flavor *tf = state;
	const rcu_tree_state *rs = tf->rs;
	int64_t seg[RCU_CBLIST_NSEGS] = { 0 }, total = 0;
	for (int i = 0; i < rs->ncpus; i++) {
		const rcu_segcblist *l = &rs->rda[i].cblist;
		for (int s = 0; s < RCU_CBLIST_NSEGS; s++)
			seg[s] += rcu_segcblist_seglen(l, s);
		total += rcu_segcblist_n_cbs(l);
	}
	RCUSIM_CHECK(seg[0] + seg[1] + seg[2] + seg[3] == total, "rcu_tree.segments_add_up");
	RCUSIM_CHECK(rcu_tree_sane(rs), "rcu_tree.sane");
	sim_series *s = sim_metrics_series(m, "gp.completed", -1);
	if (!s || sim_series_append(s, now, (double)rs->gp_completed))
		return SIM_ENOMEM;
	for (int i = 0; i < RCU_CBLIST_NSEGS; i++)
		if (!(s = sim_metrics_series(m, seg_names[i], -1)) ||
		    sim_series_append(s, now, (double)seg[i]))
			return SIM_ENOMEM;
	return tf->nocb ? nocb_sample(tf, m, now) : 0;
}

static int tree_finish(void *state, sim_metrics *m, sim_time now)
{
	tree_flavor *tf = state;
	const rcu_tree_state *rs = tf->rs;
	int rc = sim_metrics_scalar(m, "gp.completed", (double)rs->gp_completed);
	rc |= sim_metrics_hist_scalars(m, "gp.duration", tf->gp_hist,
				       SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	rc |= sim_metrics_hist_scalars(m, "gp.init", tf->init_hist, SIM_Q_P50 | SIM_Q_MAX);
	rc |= sim_metrics_hist_scalars(m, "gp.qs_wait", tf->wait_hist,
				       SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	rc |= sim_metrics_hist_scalars(m, "gp.cleanup", tf->cleanup_hist, SIM_Q_P50 | SIM_Q_MAX);
	rc |= sim_metrics_scalar(m, "fqs.scans", (double)rs->n_force_qs);
	rc |= sim_metrics_scalar(m, "qs.urgent_asked", (double)rs->n_urgent_qs);
	rc |= sim_metrics_scalar(m, "qs.heavy_asked", (double)rs->n_heavy_qs);
	rc |= sim_metrics_scalar(m, "rcu.stall_warnings", (double)tf->stall_warnings);
	/* A grace period still running at the end has lasted at least this. */
	if (rcu_tree_gp_in_progress(rs) && tf->phase != GPK_IDLE)
		rc |= sim_metrics_scalar(m, "gp.open_ns", (double)(now - tf->gp_start_ns));
	if (tf->nocb) {
		uint64_t bypassed = 0;
		for (int i = 0; i < rs->ncpus; i++)
			bypassed += tf->nocb->nd[i].n_bypassed;
		if (now > 0)
			rc |= sim_metrics_scalar(m, "gp.per_hour",
						 (double)rs->gp_completed * 3600e9 / (double)now);
		rc |= sim_metrics_scalar(m, "cb.bypassed", (double)bypassed);
		rc |= sim_metrics_scalar(m, "cb.bypass_max", (double)tf->bypass_max);
		rc |= sim_metrics_scalar(m, "nocb.flush_allowance", (double)tf->flush_allowance);
		rc |= sim_metrics_scalar(m, "nocb.flush_age", (double)tf->flush_age);
		rc |= sim_metrics_scalar(m, "nocb.flush_length", (double)tf->flush_length);
		if (tf->nocb->cfg.lazy) {
			rc |= sim_metrics_scalar(m, "lazy.queued", (double)tf->lazy_queued);
			rc |= sim_metrics_scalar(m, "lazy.flushed_age", (double)tf->lazy_age);
			rc |= sim_metrics_scalar(m, "lazy.flushed_count", (double)tf->lazy_count);
			rc |= sim_metrics_scalar(m, "lazy.flushed_hurry", (double)tf->lazy_hurry);
			if (tf->shrink_at) {
				rc |= sim_metrics_scalar(m, "lazy.flushed_memory",
							 (double)tf->lazy_memory);
				rc |= sim_metrics_scalar(m, "lazy.shrinks", (double)tf->shrinks);
			}
		}
	}
	return rc ? SIM_ENOMEM : 0;
}

/* rcu_sched_clock_irq() (tree.c 6.12:2646-2673), with check_cpu_stall()
 * counting the warnings it would print. */
static void tree_sched_clock_irq(void *state, int cpu, sim_time now, bool user, rcu_effect *eff)
{
	tree_flavor *tf = state;
	rcu_tree_state *rs = tf->rs;
	rcu_tree_sched_clock_irq(rs, cpu, user, eff);
	if (__builtin_expect(tf->nocb != NULL, 0) &&
	    rcu_nocb_need_deferred_wakeup(tf->nocb, cpu, RCU_NOCB_WAKE))
		eff->raise = true; /* rcu_pending()'s first test (tree.c:4421) */
	if (rcu_tree_gp_in_progress(rs)) {
		int64_t j = now / tf->tick_ns;
		if (j - rs->jiffies_stall >= 0) {
			tf->stall_warnings++;
			rs->jiffies_stall = j + 3 * rs->jiffies_till_stall + 3;
		}
	}
}

/* Does the tick read user mode: a QS this CPU still owes (rcu_qs() on a
 * user tick) or urgency to turn into need_resched (not from user)? */
static bool tree_tick_reads_mode(const void *state, int cpu)
{
	const tree_flavor *tf = state;
	const rcu_tree_data *rdp = &tf->rs->rda[cpu];
	return rdp->cpu_no_qs || rdp->rcu_urgent_qs;
}

static void tree_idle_enter(void *state, int cpu)
{
	tree_flavor *tf = state;
	rcu_tree_eqs_enter(tf->rs, cpu);
}

static void tree_idle_exit(void *state, int cpu)
{
	tree_flavor *tf = state;
	rcu_tree_eqs_exit(tf->rs, cpu);
}

/* The GP kthread's next step on @cpu at @now (see the file comment). */
static void tree_gp_step(void *state, int cpu, sim_time now, rcu_gp_work *w)
{
	tree_flavor *tf = state;
	rcu_tree_state *rs = tf->rs;
	int64_t j = now / tf->tick_ns;
	rcu_tree_fqs_result res;
	memset(w, 0, sizeof(*w));
	switch (tf->phase) {
	case GPK_CLEANED:
		/* The last GP ended; a new one requested meanwhile starts now
		 * (the kthread's wait for RCU_GP_FLAG_INIT falls through). */
		sim_hist_add(tf->cleanup_hist, (uint64_t)(now - tf->cleanup_ns));
		sim_hist_add(tf->gp_hist, (uint64_t)(now - tf->gp_start_ns));
		tf->gp_done++;
		tf->phase = GPK_IDLE;
		rs->gp_state = RCU_GP_WAIT_GPS;
		if (!(rs->gp_flags & RCU_GP_FLAG_INIT)) {
			w->next = RCU_GP_NEXT_SLEEP;
			return;
		}
		/* fall through */
	case GPK_IDLE:
		w->nodes = rcu_tree_gp_init(rs, cpu, j);
		if (!w->nodes) {
			rs->gp_state = RCU_GP_WAIT_GPS;
			w->next = RCU_GP_NEXT_SLEEP;
			return;
		}
		tf->gp_start_ns = now;
		tf->phase = GPK_FQS_START;
		w->next = RCU_GP_NEXT_RUN;
		return;
	case GPK_FQS_START:
		sim_hist_add(tf->init_hist, (uint64_t)(now - tf->gp_start_ns));
		tf->fqs_start_ns = now;
		tf->phase = GPK_FQS;
		if (rcu_tree_gp_fqs_loop_start(rs, j) > 0) {
			w->next = RCU_GP_NEXT_TIMEOUT;
			w->timeout_ns = rs->fqs_wait_end * tf->tick_ns;
		} else {
			w->next = RCU_GP_NEXT_RUN;
		}
		return;
	case GPK_FQS:
		switch (rcu_tree_gp_fqs_loop_wake(rs, j, &res)) {
		case RCU_TREE_FQS_DONE:
			sim_hist_add(tf->wait_hist, (uint64_t)(now - tf->fqs_start_ns));
			tf->phase = GPK_CLEANUP;
			w->next = RCU_GP_NEXT_RUN;
			return;
		case RCU_TREE_FQS_SCANNED:
			w->nodes = res.leaves;
			w->cpus = res.cpus;
			w->resched = res.resched;
			w->nresched = res.nresched;
			break;
		case RCU_TREE_FQS_SLEEP:
		case RCU_TREE_FQS_WAIT:
			break;
		}
		if (res.wait > 0) {
			w->next = RCU_GP_NEXT_TIMEOUT;
			w->timeout_ns = rs->fqs_wait_end * tf->tick_ns;
		} else {
			w->next = RCU_GP_NEXT_RUN;
		}
		return;
	case GPK_CLEANUP: {
		bool needgp;
		tf->cleanup_ns = now;
		w->nodes = rcu_tree_gp_cleanup(rs, cpu, j, &needgp);
		if (tf->nocb) {
			/* rcu_nocb_gp_cleanup() of each node (tree.c:2159-2161). */
			int n = rcu_nocb_gp_cleanup(tf->nocb, tf->woken);
			for (int i = 0; i < n; i++)
				nocb_kick(tf, RCU_KICK_RCUOG, tf->woken[i]);
		}
		tf->phase = GPK_CLEANED;
		w->next = RCU_GP_NEXT_RUN;
		return;
	}
	}
}

/* Would a wakeup end the kthread's wait: a GP requested while idle, or
 * rcu_gp_fqs_check_wake() in the FQS loop. rcu_gp_kthread_wake() wakes
 * nothing while gp_flags is 0 (tree.c 6.12:1109-1118). */
static bool tree_gp_wakeable(void *state)
{
	tree_flavor *tf = state;
	rcu_tree_state *rs = tf->rs;
	if (tf->phase == GPK_IDLE)
		return (rs->gp_flags & RCU_GP_FLAG_INIT) != 0;
	if (tf->phase == GPK_FQS)
		return rs->gp_flags && rcu_tree_gp_fqs_check_wake(rs);
	return false;
}

static bool tree_core_kthread(const void *state)
{
	const tree_flavor *tf = state;
	return !tf->rs->cfg.use_softirq;
}

static void tree_cond_resched(void *state, int cpu)
{
	tree_flavor *tf = state;
	rcu_tree_all_qs(tf->rs, cpu);
}

static bool tree_needs_cpu(const void *state, int cpu)
{
	const tree_flavor *tf = state;
	return rcu_tree_needs_cpu(tf->rs, cpu);
}

/* rcu_softirq_qs() (tree.c 6.12:247-258) from ksoftirqd: rcu_qs(). */
static void tree_softirq_qs(void *state, int cpu)
{
	tree_flavor *tf = state;
	rcu_tree_qs(tf->rs, cpu);
}

static int tree_nocb_groups(const void *state)
{
	const tree_flavor *tf = state;
	return tf->nocb ? tf->nocb->ngroups : 0;
}

static int tree_nocb_leader(const void *state, int g)
{
	const tree_flavor *tf = state;
	const rcu_nocb_group *grp = &tf->nocb->grp[g];
	return grp->noffloaded ? grp->leader : -1;
}

static bool tree_nocb_offloaded(const void *state, int cpu)
{
	const tree_flavor *tf = state;
	return tf->nocb->nd[cpu].offloaded;
}

/* One pass of group @g's rcuog at @now: the end of its wait if it was
 * waiting (rcu_nocb_gp_wait_end()), then nocb_gp_wait(), its flushes
 * counted by cause (from each CPU's bypass before the pass). */
static void tree_rcuog_step(void *state, int g, sim_time now, rcu_nocb_work *w)
{
	tree_flavor *tf = state;
	rcu_nocb_state *st = tf->nocb;
	rcu_nocb_group *grp = &st->grp[g];
	int64_t j = now / tf->tick_ns, *snap = tf->snap;
	rcu_nocb_effect e;
	rcu_nocb_gp_pass pass;
	rcu_nocb_effect_init(&e);
	memset(w, 0, sizeof(*w));
	if (grp->wait != RCU_NOCB_GP_RUNNING) {
		assert(rcu_nocb_gp_wait_cond(st, g)); /* it stays true once true */
		rcu_nocb_gp_wait_end(st, g, &e);
	}
	for (int cpu = grp->lo; cpu <= grp->hi; cpu++) {
		int64_t *sn = &snap[3 * (cpu - grp->lo)];
		sn[0] = (int64_t)st->nd[cpu].n_flushes;
		sn[1] = rcu_nocb_bypass_len(st, cpu);
		sn[2] = st->nd[cpu].lazy_len;
	}
	rcu_nocb_gp_wait(st, g, j, &pass, &e);
	for (int cpu = grp->lo; pass.flushed_cpus && cpu <= grp->hi; cpu++) {
		const int64_t *sn = &snap[3 * (cpu - grp->lo)];
		if ((int64_t)st->nd[cpu].n_flushes != sn[0]) /* tree_nocb.h:702-709 */
			nocb_count_flush(tf, sn[1] > 2 * st->rsp->cfg.qhimark ? 2 : 1, sn[1], sn[2], 0);
	}
	w->sleep = pass.sleep;
	w->wake_gp = e.wake_gp_kthread;
	nocb_effect(tf, &e, j);
}

static bool tree_rcuog_wakeable(const void *state, int g)
{
	const tree_flavor *tf = state;
	return rcu_nocb_gp_wait_cond(tf->nocb, g);
}

/* One rcuo batch on @cpu: the momentary extended QS nocb_cb_wait() begins
 * with (tree_nocb.h:903), rcu_do_batch() of at most @max ready callbacks
 * with each one's function, the cond_resched() after each (rcu_all_qs() on
 * this CPU: one suffices, tree.c:2586-2590), then the advance. */
static void tree_rcuo_step(void *state, int cpu, const rcu_core_ctx *b, int64_t max,
			   rcu_nocb_work *w)
{
	tree_flavor *tf = state;
	rcu_tree_state *rs = tf->rs;
	rcu_nocb_batch nb = { b->first_ns, b->cost_ns, max };
	rcu_nocb_cb_out out;
	rcu_tree_momentary_eqs(rs, cpu);
	int64_t n = rcu_nocb_cb_wait(tf->nocb, cpu, &nb, tf->lat, &out);
	if (n) {
		rcu_tree_all_qs(rs, cpu);
		invoke_objs(tf, cpu, n, b->first_ns, b->cost_ns);
	}
	w->invoked = n;
	w->sleep = out.sleep;
	w->wake_gp = out.wake_gp_kthread;
}

static bool tree_rcuo_wakeable(const void *state, int cpu)
{
	const tree_flavor *tf = state;
	return rcu_nocb_cb_wait_cond(tf->nocb, cpu);
}

/* Group @g's nocb_timer at @now: do_nocb_deferred_wakeup_timer(). */
static void tree_nocb_timer(void *state, int g, sim_time now)
{
	tree_flavor *tf = state;
	rcu_nocb_effect e;
	if (!tf->nocb->grp[g].timer_pending)
		return; /* deleted meanwhile: the caller cancels its event, this cannot happen */
	rcu_nocb_effect_init(&e);
	rcu_nocb_timer(tf->nocb, g, &e);
	nocb_effect(tf, &e, now / tf->tick_ns);
}

static bool tree_nocb_timer_when(const void *state, int g, sim_time *when)
{
	const tree_flavor *tf = state;
	if (!tf->nocb->grp[g].timer_pending)
		return false;
	*when = tf->timer_fire[g];
	return true;
}

static size_t tree_nocb_kicks(void *state, const rcu_nocb_kick **kicks)
{
	tree_flavor *tf = state;
	size_t n = tf->nkicks;
	for (size_t i = 0; i < n; i++) {
		const rcu_nocb_kick *kk = &tf->kicks[i];
		if (kk->kind == RCU_KICK_RCUO)
			tf->kick_o[kk->id] = false;
		else if (kk->kind == RCU_KICK_RCUOG)
			tf->kick_og[kk->id] = false;
		else
			tf->kick_timer[kk->id] = false;
	}
	tf->nkicks = 0;
	*kicks = tf->kicks;
	return n;
}

const rcu_flavor rcu_tree = {
	.name = "tree",
	.create = tree_create,
	.destroy = tree_destroy,
	.call_rcu = tree_call_rcu,
	.call_rcu_n = tree_call_rcu_n,
	.rcu_pending = tree_pending,
	.rcu_note_context_switch = tree_note_context_switch,
	.rcu_process_callbacks = tree_core,
	.rcu_do_batch = tree_core,
	.rcu_cpu_owes_qs = tree_owes_qs,
	.qlen = tree_qlen,
	.qlen_max = tree_qlen_max,
	.sample = tree_sample,
	.finish = tree_finish,
	.sched_clock_irq = tree_sched_clock_irq,
	.tick_reads_mode = tree_tick_reads_mode,
	.idle_enter = tree_idle_enter,
	.idle_exit = tree_idle_exit,
	.gp_step = tree_gp_step,
	.gp_wakeable = tree_gp_wakeable,
	.core_kthread = tree_core_kthread,
	.cond_resched = tree_cond_resched,
	.softirq_qs = tree_softirq_qs,
	.needs_cpu = tree_needs_cpu,
	.nocb_groups = tree_nocb_groups,
	.nocb_leader = tree_nocb_leader,
	.nocb_offloaded = tree_nocb_offloaded,
	.rcuog_step = tree_rcuog_step,
	.rcuog_wakeable = tree_rcuog_wakeable,
	.rcuo_step = tree_rcuo_step,
	.rcuo_wakeable = tree_rcuo_wakeable,
	.nocb_timer = tree_nocb_timer,
	.nocb_timer_when = tree_nocb_timer_when,
	.nocb_kicks = tree_nocb_kicks,
};
