/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tree_flavor.c - Tree RCU of Linux 6.12 (tree.c, tree_gp.c) as the CPU
 * model sees it (rcu.h): call_rcu, the tick (rcu_sched_clock_irq), the
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
 * Offloaded CPUs (rcu.nocbs: tree_nocb.c, glued in by tree_nocb_flavor.c):
 * call_rcu goes to rcu_nocb_call_rcu() (bypass, lazy), rcu_core() invokes nothing there,
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
#include "rcu/tree_flavor_int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "sched/sched.h"

rcu_tree_state *rcu_tree_flavor_state(void *rsp)
{
	return ((tree_flavor *)rsp)->rs;
}

static void tree_destroy(void *state)
{
	tree_flavor *tf = state;
	if (!tf)
		return;
	rcu_tree_nocb_destroy(tf);
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
	tf->timer_slack = sim_params_int(env->p, P_IRQ_TIMER_ROUND_UP) ? 1 : 0;
	tf->lat = env->lat;
	tf->invoke = env->invoke;
	tf->invoke_ctx = env->invoke_ctx;
	tf->last_gp = env->last_gp;
	tf->rs->barrier_done = env->barrier_done;
	tf->rs->barrier_ctx = env->barrier_ctx;
	tf->phase = GPK_IDLE;
	if ((rc = rcu_tree_nocb_create(tf, env, err, errlen)))
		return rc;
	if (!(tf->gp_hist = metric_hist(env->m, M_GP_DURATION_NS)) ||
	    !(tf->init_hist = metric_hist(env->m, M_GP_INIT_NS)) ||
	    !(tf->wait_hist = metric_hist(env->m, M_GP_QS_WAIT_NS)) ||
	    !(tf->cleanup_hist = metric_hist(env->m, M_GP_CLEANUP_NS)))
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "Tree RCU: out of memory");
	return SIM_ENOMEM;
}

/* The function of each of the @n callbacks just invoked from @cpu's list
 * (the last @n taken off it) on CPU @on, the first at @first_ns and each
 * @cost_ns after: one call per run of the ring. */
void rcu_tree_flavor_invoke_objs(tree_flavor *tf, int cpu, int on, int64_t n, sim_time first_ns,
				 sim_time cost_ns)
{
	if (!n || !tf->invoke)
		return;
	const uint32_t *runs[2];
	size_t lens[2];
	int nr = rcu_tree_invoked_objs(tf->rs, cpu, n, runs, lens);
	for (int i = 0; i < nr; i++) {
		tf->invoke(tf->invoke_ctx, on, runs[i], lens[i], first_ns, cost_ns);
		first_ns += (sim_time)lens[i] * cost_ns;
	}
}

static int tree_call_rcu(void *state, int cpu, sim_time at, uint32_t obj, rcu_effect *eff)
{
	tree_flavor *tf = state;
	if (__builtin_expect(tf->nocb != NULL, 0) && tf->rs->rda[cpu].offloaded)
		return rcu_tree_nocb_call_rcu(tf, cpu, at, obj, eff);
	return rcu_tree_call_rcu(tf->rs, cpu, at, obj, false, eff);
}

/* @n call_rcu()s from task context: rcu_tree_call_rcu_n(), or
 * rcu_tree_nocb_call_rcu_n() on an offloaded CPU. */
static int tree_call_rcu_n(void *state, int cpu, sim_time t0, sim_time step, int64_t n,
			   rcu_effect *eff)
{
	tree_flavor *tf = state;
	if (__builtin_expect(tf->nocb != NULL, 0) && tf->rs->rda[cpu].offloaded)
		return rcu_tree_nocb_call_rcu_n(tf, cpu, t0, step, n, eff);
	return rcu_tree_call_rcu_n(tf->rs, cpu, t0, step, n, eff);
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
			rcu_tree_nocb_effect(tf, &ne, b->now / tf->tick_ns);
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
	if (n)
		tf->batch_stops[out.stop]++;
	rcu_tree_flavor_invoke_objs(tf, cpu, cpu, n, b->first_ns, b->cost_ns);
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

/* Series: grace periods so far, and the callbacks in each segment, all
 * CPUs together (which add up to cb.qlen: checked). */
static int tree_sample(void *state, sim_metrics *m, sim_time now)
{
	static const enum rcusim_metric_id seg_ids[RCU_CBLIST_NSEGS] = {
		M_CB_SEG_DONE, M_CB_SEG_WAIT, M_CB_SEG_NEXT_READY, M_CB_SEG_NEXT
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
	sim_series *s = metric_series(m, M_GP_COMPLETED_SERIES, -1);
	if (!s || sim_series_append(s, now, (double)rs->gp_completed))
		return SIM_ENOMEM;
	for (int i = 0; i < RCU_CBLIST_NSEGS; i++)
		if (!(s = metric_series(m, seg_ids[i], -1)) ||
		    sim_series_append(s, now, (double)seg[i]))
			return SIM_ENOMEM;
	return tf->nocb ? rcu_tree_nocb_sample(tf, m, now) : 0;
}

static int tree_finish(void *state, sim_metrics *m, sim_time now)
{
	tree_flavor *tf = state;
	const rcu_tree_state *rs = tf->rs;
	int rc = metric_scalar(m, M_GP_COMPLETED, (double)rs->gp_completed);
	rc |= metric_hist_scalars(m, M_GP_DURATION_NS, tf->gp_hist,
				       SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	rc |= metric_hist_scalars(m, M_GP_INIT_NS, tf->init_hist, SIM_Q_P50 | SIM_Q_MAX);
	rc |= metric_hist_scalars(m, M_GP_QS_WAIT_NS, tf->wait_hist,
				       SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	rc |= metric_hist_scalars(m, M_GP_CLEANUP_NS, tf->cleanup_hist, SIM_Q_P50 | SIM_Q_MAX);
	rc |= metric_scalar(m, M_FQS_SCANS, (double)rs->n_force_qs);
	rc |= metric_scalar(m, M_QS_URGENT_ASKED, (double)rs->n_urgent_qs);
	rc |= metric_scalar(m, M_QS_HEAVY_ASKED, (double)rs->n_heavy_qs);
	rc |= metric_scalar(m, M_RCU_STALL_WARNINGS, (double)tf->stall_warnings);
	rc |= metric_scalar(m, M_RCU_BATCHES_ENDED_EMPTY, (double)tf->batch_stops[RCU_TREE_STOP_EMPTY]);
	rc |= metric_scalar(m, M_RCU_BATCHES_ENDED_COUNT, (double)tf->batch_stops[RCU_TREE_STOP_COUNT]);
	rc |= metric_scalar(m, M_RCU_BATCHES_ENDED_NEED_RESCHED,
				 (double)tf->batch_stops[RCU_TREE_STOP_RESCHED]);
	rc |= metric_scalar(m, M_RCU_BATCHES_ENDED_TIME, (double)tf->batch_stops[RCU_TREE_STOP_TIME]);
	if (rs->cfg.preempt_rcu) {
		rc |= metric_scalar(m, M_RCU_READERS_BLOCKED, (double)rs->readers_blocked);
		rc |= metric_scalar(m, M_RCU_READERS_HELD_GP, (double)rs->readers_held_gp);
		if (rs->cfg.boost)
			rc |= metric_scalar(m, M_RCU_BOOSTS_STARTED, (double)rs->boosts_started);
	}
	/* A grace period still running at the end has lasted at least this. */
	if (rcu_tree_gp_in_progress(rs) && tf->phase != GPK_IDLE)
		rc |= metric_scalar(m, M_GP_OPEN_NS, (double)(now - tf->gp_start_ns));
	if (tf->nocb)
		rc |= rcu_tree_nocb_finish(tf, m, now);
	return rc ? SIM_ENOMEM : 0;
}

/* rcu_sched_clock_irq() (tree.c 6.12:2646-2673), with check_cpu_stall()
 * counting the warnings it would print. */
static void tree_sched_clock_irq(void *state, int cpu, sim_time now, bool user, bool reader,
				 rcu_effect *eff)
{
	tree_flavor *tf = state;
	rcu_tree_state *rs = tf->rs;
	rcu_tree_sched_clock_irq(rs, cpu, user, reader, eff);
	/* rcu_pending() (tree.c 6.12:4423-4429, nohz_full_patience_delay 0):
	 * a nohz_full CPU in user mode or idle ignores RCU unless a grace
	 * period has run a second (rcu_nohz_full_cpu(), tree_plugin.h
	 * 6.12:1261-1270). */
	if (__builtin_expect(rs->rda[cpu].nohz_full, 0) && user &&
	    (!rcu_tree_gp_in_progress(rs) || now / tf->tick_ns < rs->gp_start + rs->cfg.hz))
		eff->raise = false;
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
	return rdp->cpu_no_qs || rdp->rcu_urgent_qs || rdp->nohz_full;
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

/* When the FQS wait's schedule_timeout() ends: at the tick of its expiry
 * jiffy, or with irq.timer_round_up at the one after it (the level-0
 * bucket of expires + 1: calc_index(), kernel/time/timer.c 6.12:567-582).
 * rcu_gp_fqs_loop() then finds jiffies past jiffies_force_qs either way. */
static sim_time fqs_timeout_ns(const tree_flavor *tf, const rcu_tree_state *rs)
{
	return (rs->fqs_wait_end + tf->timer_slack) * tf->tick_ns;
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
			w->timeout_ns = fqs_timeout_ns(tf, rs);
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
			w->boost = rs->boost;
			w->nboost = res.nboost;
			break;
		case RCU_TREE_FQS_SLEEP:
		case RCU_TREE_FQS_WAIT:
			break;
		}
		if (res.wait > 0) {
			w->next = RCU_GP_NEXT_TIMEOUT;
			w->timeout_ns = fqs_timeout_ns(tf, rs);
		} else {
			w->next = RCU_GP_NEXT_RUN;
		}
		return;
	case GPK_CLEANUP: {
		bool needgp;
		tf->cleanup_ns = now;
		/* rcu_gp_cleanup() ends gp_seq in this step: the GP is over for
		 * its callbacks and its synchronize_rcu() waiters from here. */
		if (tf->last_gp) {
			tf->last_gp[0] = tf->gp_start_ns;
			tf->last_gp[1] = now;
		}
		w->nodes = rcu_tree_gp_cleanup(rs, cpu, j, &needgp);
		if (tf->nocb)
			rcu_tree_nocb_gp_cleanup(tf);
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

static void tree_reader_preempted(void *state, int cpu, rcu_reader *r)
{
	tree_flavor *tf = state;
	rcu_tree_reader_preempted(tf->rs, cpu, r);
}

static void tree_reader_unlock(void *state, rcu_reader *r, rcu_effect *eff)
{
	tree_flavor *tf = state;
	if (rcu_tree_reader_unlock(tf->rs, r))
		eff->wake_gp = true;
}

static bool tree_reader_blocks_gp(const void *state, const rcu_reader *r)
{
	const tree_flavor *tf = state;
	return rcu_tree_reader_blocks_gp(tf->rs, r);
}

static bool tree_boosting(const void *state, int leaf)
{
	const tree_flavor *tf = state;
	return tf->rs->node[leaf].boosting;
}

static bool tree_needs_cpu(const void *state, int cpu)
{
	const tree_flavor *tf = state;
	return rcu_tree_needs_cpu(tf->rs, cpu);
}

/* rcu_barrier_entrain() (tree.c 6.12:4493-4525) on @cpu at @now. */
static bool tree_barrier_entrain(void *state, int cpu, sim_time now, int64_t *flushed, int64_t *lazy,
				 sim_time *batch_end)
{
	tree_flavor *tf = state;
	rcu_tree_data *rdp = &tf->rs->rda[cpu];
	rcu_segcblist *l = &rdp->cblist;
	*flushed = *lazy = 0;
	*batch_end = rdp->batch_end_ns;
	assert(rdp->barrier_mark == RCU_TREE_NO_BARRIER); /* barrier_mutex: one at a time */
	if (tf->nocb && rdp->offloaded) {
		/* Flush the bypass, lazy callbacks and all (lazy_len = 0), and
		 * wake rcuog if the list had nothing pending before (:4507-4516). */
		int64_t j = now / tf->tick_ns;
		bool was_alldone = !rcu_segcblist_pend_cbs(l);
		*lazy = tf->nocb->nd[cpu].lazy_len;
		*flushed = rcu_nocb_flush_bypass(tf->nocb, cpu, j);
		if (was_alldone && rcu_segcblist_pend_cbs(l)) {
			rcu_nocb_effect e;
			rcu_nocb_effect_init(&e);
			(void)rcu_nocb_wake_nocb_gp(tf->nocb, cpu, false, &e);
			rcu_tree_nocb_effect(tf, &e, j);
		}
	}
	/* rcu_segcblist_entrain() (rcu_segcblist.c:349-367): after the last
	 * callback, in its segment; nothing to entrain behind on an empty list. */
	if (rcu_segcblist_empty(l))
		return false;
	rdp->barrier_mark = l->tails[RCU_NEXT_TAIL];
	return true;
}

/* rcu_softirq_qs() (tree.c 6.12:247-258) from ksoftirqd: rcu_qs(). */
static void tree_softirq_qs(void *state, int cpu)
{
	tree_flavor *tf = state;
	rcu_tree_qs(tf->rs, cpu);
}

/* The knobs Tree RCU reads, with rcu.flavor = tree: rcu_tree_cfg_from_params()
 * (tree.c), the CPU model's GP and rcuc kthreads (kthread_prio only under
 * EEVDF, which has the SCHED_FIFO class it sets) and its idle tick
 * (irq.nohz_idle: rcu_needs_cpu()). */
static const sim_knob tree_knob[] = {
	{ P_RCU_RCU_FANOUT_LEAF, SIM_ALWAYS },
	{ P_RCU_JIFFIES_TILL_FIRST_FQS, SIM_ALWAYS },
	{ P_RCU_JIFFIES_TILL_NEXT_FQS, SIM_ALWAYS },
	{ P_RCU_JIFFIES_TILL_SCHED_QS, SIM_ALWAYS },
	{ P_RCU_STALL_TIMEOUT, SIM_ALWAYS },
	{ P_RCU_RCU_DIVISOR, SIM_ALWAYS },
	{ P_RCU_RCU_RESCHED_NS, SIM_ALWAYS },
	{ P_RCU_FLOOD_BLIMIT, SIM_ALWAYS },
	{ P_RCU_QOVLD, SIM_ALWAYS },
	{ P_RCU_USE_SOFTIRQ, SIM_ALWAYS },
	{ P_RCU_PREEMPT_RCU, SIM_ALWAYS },
	{ P_WORKLOAD_READER_SHARE, { P_RCU_PREEMPT_RCU, "yes", NULL } },
	{ P_WORKLOAD_READER_LEN, { P_RCU_PREEMPT_RCU, "yes", NULL } },
	{ P_RCU_BOOST, { P_RCU_PREEMPT_RCU, "yes", NULL } },
	{ P_RCU_BOOST_DELAY, { P_RCU_BOOST, "yes", NULL } },
	/* A knob's condition names a choice by design (sim_knob.when): the
	 * SCHED_FIFO kthreads are modelled under EEVDF only (sched_has_fifo()). */
	{ P_RCU_KTHREAD_PRIO, { P_SCHED_KIND, "eevdf", NULL } },
	{ P_RCU_GP_KTHREAD_CPU, SIM_ALWAYS },
	{ P_RCU_GP_NODE_COST, SIM_ALWAYS },
	{ P_RCU_FQS_CPU_COST, SIM_ALWAYS },
	/* One cost per mechanism (rcu_cost_param()). */
	{ P_RCU_CORE_PASS_COST, SIM_ALWAYS },
	{ P_RCU_CORE_COST_SIGMA, SIM_ALWAYS },
	{ P_RCU_RCUC_PASS_COST, SIM_ALWAYS },
	{ P_RCU_RCUOG_PASS_COST, SIM_ALWAYS },
	{ P_RCU_RCUO_PASS_COST, SIM_ALWAYS },
	{ P_RCU_SRS_WAKE_COST, SIM_ALWAYS },
	{ P_RCU_EXP_SCAN_COST, SIM_ALWAYS },
	{ P_RCU_EXP_WAKE_COST, SIM_ALWAYS },
	{ P_RCU_BARRIER_SCAN_COST, { P_WORKLOAD_BARRIER, "yes", NULL } },
	{ P_RCU_EXPEDITED, SIM_ALWAYS },
	{ P_RCU_NORMAL, SIM_ALWAYS },
	{ P_RCU_NORMAL_WAKE_FROM_GP, SIM_ALWAYS },
	{ P_RCU_EXP_IPI_SEND_COST, SIM_ALWAYS },
	{ P_RCU_EXP_KTHREAD, { P_SCHED_KIND, "eevdf", NULL } }, /* SCHED_FIFO, as above */
	{ P_RCU_EXP_STALL_TIMEOUT, SIM_ALWAYS },
	{ P_WORKLOAD_BARRIER, SIM_ALWAYS },
	{ P_WORKLOAD_BARRIER_GAP, { P_WORKLOAD_BARRIER, "yes", NULL } },
	{ P_WORKLOAD_BARRIER_CPU, { P_WORKLOAD_BARRIER, "yes", NULL } },
	{ P_IRQ_NOHZ_IDLE, SIM_ALWAYS },
	{ P_IRQ_TIMER_ROUND_UP, SIM_ALWAYS },
	{ P_IRQ_TIMER_MIGRATION, SIM_ALWAYS }, /* nothing without irq.nohz_idle (nohz=off) */
	{ P_RCU_BLIMIT, SIM_ALWAYS },
	{ P_RCU_QHIMARK, SIM_ALWAYS },
	{ P_RCU_QLOWMARK, SIM_ALWAYS },
};
static const sim_knobs tree_knobs = { { P_RCU_FLAVOR, "tree", NULL }, tree_knob,
				      sizeof(tree_knob) / sizeof(tree_knob[0]) };
/* Tree RCU's parts: the tree, and offloading (tree_nocb.c). */
static const sim_knobs *const tree_parts[] = { &tree_knobs, &rcu_nocb_knobs, NULL };

/* irq.nohz_full: a list, with nohz (irq.nohz_idle) and EEVDF, the GP
 * kthread on a housekeeping CPU (housekeeping_affine(HK_TYPE_RCU)). */
static int nohz_full_validate(const sim_params *p, char *err, size_t errlen)
{
	char a[512];
	int n = machine_ncpus(p), nfull;
	bool *mask = malloc((size_t)n * sizeof(*mask));
	if (!mask) {
		snprintf(err, errlen, "out of memory");
		return SIM_ENOMEM;
	}
	int rc = rcu_nohz_full_mask(p, n, mask, &nfull, err, errlen);
	int64_t gp_cpu = sim_params_int(p, P_RCU_GP_KTHREAD_CPU);
	bool gp_full = !rc && nfull && !sim_params_is_auto(p, P_RCU_GP_KTHREAD_CPU) && mask[gp_cpu];
	free(mask);
	if (rc || !nfull)
		return rc;
	sim_params_where(p, P_IRQ_NOHZ_FULL, a, sizeof(a));
	if (!sim_params_int(p, P_IRQ_NOHZ_IDLE)) {
		snprintf(err, errlen, "%s: nohz_full needs the tickless mode irq.nohz_idle = no turns off "
			 "(nohz=off: TS_FLAG_NOHZ is never set, tick-sched.c 6.12:1129-1130) (irq.nohz_idle: %s)",
			 a, sim_params_origin(p, P_IRQ_NOHZ_IDLE));
		return SIM_EINPUT;
	}
	if (!sched_has_nohz_full(p)) {
		snprintf(err, errlen, "%s: nohz_full is a 6.x mechanism modelled with sched.kind = eevdf, "
			 "and sched.kind is %s (%s)", a, sim_params_text(p, P_SCHED_KIND),
			 sim_params_origin(p, P_SCHED_KIND));
		return SIM_EINPUT;
	}
	if (gp_full) {
		sim_params_where(p, P_RCU_GP_KTHREAD_CPU, a, sizeof(a));
		snprintf(err, errlen, "%s: CPU %lld is in irq.nohz_full (%s), and the GP kthread runs on "
			 "housekeeping CPUs only (rcu_bind_gp_kthread(): housekeeping_affine(HK_TYPE_RCU))",
			 a, (long long)gp_cpu, sim_params_text(p, P_IRQ_NOHZ_FULL));
		return SIM_EINPUT;
	}
	return 0;
}

/* The tree fits the machine, the GP kthread's CPU exists, offloading's
 * knobs fit (rcu_nocb_validate()). */
static int tree_validate(const sim_params *p, char *err, size_t errlen)
{
	char a[512];
	rcu_tree_cfg cfg;
	int rc = rcu_tree_cfg_from_params(&cfg, p, err, errlen);
	if (rc)
		return rc;
	if (sim_params_int(p, P_RCU_PREEMPT_RCU) && sim_params_int(p, P_RCU_BOOST) &&
	    !sched_has_fifo(p)) {
		sim_params_where(p, P_RCU_BOOST, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: boosting lends SCHED_FIFO priority, which only sched.kind = eevdf models, "
			 "and sched.kind is %s (%s)",
			 a, sim_params_text(p, P_SCHED_KIND), sim_params_origin(p, P_SCHED_KIND));
		return SIM_EINPUT;
	}
	if (sim_params_is_auto(p, P_RCU_GP_KTHREAD_CPU) && !sched_has_nohz_full(p)) {
		sim_params_where(p, P_RCU_GP_KTHREAD_CPU, a, sizeof(a));
		snprintf(err, errlen, "%s: auto places the GP kthread as the fair class does "
			 "(select_task_rq_fair()), which only sched.kind = eevdf models, and sched.kind "
			 "is %s (%s)", a, sim_params_text(p, P_SCHED_KIND), sim_params_origin(p, P_SCHED_KIND));
		return SIM_EINPUT;
	}
	if (sim_params_int(p, P_RCU_GP_KTHREAD_CPU) >= machine_ncpus(p)) {
		sim_params_where(p, P_RCU_GP_KTHREAD_CPU, a, sizeof(a));
		snprintf(err, errlen, "%s: CPU %s, but the machine has CPUs 0-%d", a,
			 sim_params_text(p, P_RCU_GP_KTHREAD_CPU), machine_ncpus(p) - 1);
		return SIM_EINPUT;
	}
	if (sim_params_int(p, P_WORKLOAD_BARRIER) &&
	    sim_params_int(p, P_WORKLOAD_BARRIER_CPU) >= machine_ncpus(p)) {
		sim_params_where(p, P_WORKLOAD_BARRIER_CPU, a, sizeof(a));
		snprintf(err, errlen, "%s: CPU %s, but the machine has CPUs 0-%d", a,
			 sim_params_text(p, P_WORKLOAD_BARRIER_CPU), machine_ncpus(p) - 1);
		return SIM_EINPUT;
	}
	if ((rc = rcu_nocb_validate(p, err, errlen)))
		return rc;
	return nohz_full_validate(p, err, errlen);
}

const rcu_flavor rcu_tree = {
	.name = "tree",
	.caps = RCU_CAP_PREEMPT_RCU | RCU_CAP_EXPEDITED | RCU_CAP_KFREE_BATCH | RCU_CAP_CORE_COST_SPREAD,
	.knobs = tree_parts,
	.validate = tree_validate,
	.create = tree_create,
	.destroy = tree_destroy,
	.call_rcu = tree_call_rcu,
	.call_rcu_n = tree_call_rcu_n,
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
	.reader_preempted = tree_reader_preempted,
	.reader_unlock = tree_reader_unlock,
	.reader_blocks_gp = tree_reader_blocks_gp,
	.boosting = tree_boosting,
	.barrier_entrain = tree_barrier_entrain,
	.needs_cpu = tree_needs_cpu,
	.nocb_groups = rcu_tree_nocb_groups,
	.nocb_leader = rcu_tree_nocb_leader,
	.nocb_offloaded = rcu_tree_nocb_offloaded,
	.rcuog_step = rcu_tree_rcuog_step,
	.rcuog_wakeable = rcu_tree_rcuog_wakeable,
	.rcuo_step = rcu_tree_rcuo_step,
	.rcuo_wakeable = rcu_tree_rcuo_wakeable,
	.nocb_timer = rcu_tree_nocb_timer,
	.nocb_timer_when = rcu_tree_nocb_timer_when,
	.nocb_kicks = rcu_tree_nocb_kicks,
};
