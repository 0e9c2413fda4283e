/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tree_gp.c - Tree RCU's grace-period kthread after Linux 6.12: the steps
 * of rcu_gp_kthread() (kernel/rcu/tree.c:2221) as the caller runs them:
 * rcu_gp_init() (tree.c:1796) with record_gp_stall_check_time()
 * (tree_stall.h:173), the FQS loop rcu_gp_fqs_loop() (tree.c:2014) with
 * rcu_gp_fqs(), force_qs_rnp() and the watching snapshots
 * (rcu_watching_snap_save/recheck, tree.c:783-949, which resched_cpu()
 * past jiffies_resched), and rcu_gp_cleanup() (tree.c:2100). Every rule
 * names the function and 6.12 line it follows; the code is ours; the API is
 * tree.h's section 7, and tree.c's header says what is left out (stall
 * warnings themselves, the irq-work IPI, jiffies_kick_kthreads, hotplug).
 * Each step is atomic here: in the kernel other CPUs run between the nodes
 * of a walk.
 */
#include "rcu/tree.h"
#include "rcu/tree_int.h"

#include <assert.h>
#include <string.h>

#include "jiffies.h"

int rcu_tree_gp_init(rcu_tree_state *rsp, int gp_cpu, int64_t jiffies)
{
	/* rcu_gp_init() (tree.c:1796-1949). */
	rsp->gp_state = RCU_GP_DONE_GPS;
	if (!rsp->gp_flags)
		return 0; /* spurious wakeup (:1807-1811) */
	rsp->gp_flags = 0;
	if (rcu_tree_gp_in_progress(rsp))
		return 0; /* cannot happen (:1814-1821) */
	/* record_gp_stall_check_time() (tree_stall.h:173-185). */
	rsp->gp_start = jiffies;
	rsp->jiffies_stall = jiffies + rsp->jiffies_till_stall;
	rsp->jiffies_resched = jiffies + rsp->jiffies_till_stall / 2;
	rcu_seq_start(&rsp->gp_seq);
	/* RCU_GP_ONOFF (:1855-1904): no hotplug, so every leaf is looked at and
	 * left alone. */
	rsp->gp_state = RCU_GP_ONOFF;
	int walked = rsp->nleaves;
	/* RCU_GP_INIT (:1919-1942): breadth first, every node. */
	rsp->gp_state = RCU_GP_INIT;
	int gp_leaf = gp_cpu >= 0 ? rsp->rda[gp_cpu].leaf : -1;
	for (int n = 0; n < rsp->nnodes; n++) {
		rcu_tree_node *rnp = &rsp->node[n];
		assert(!rnp->qsmask && !rnp->gp_blkd);
		rnp->qsmask = rnp->qsmaskinit;
		rnp->gp_seq = rsp->gp_seq;
		/* rcu_preempt_check_blocked_tasks() (tree_plugin.h 6.12:704-721):
		 * every reader preempted here before now blocks this GP. */
		rnp->gp_inits++;
		rnp->gp_blkd = rnp->nblkd;
		/* rcu_preempt_boost_start_gp() (tree.c:1929, tree_plugin.h:1193-1196). */
		rnp->boost_time = jiffies + rsp->cfg.boost_delay_j;
		rnp->boosting = false;
		if (n == gp_leaf)
			(void)rcu_tree_note_gp_changes_locked(rsp, gp_cpu);
		walked++;
	}
	return walked;
}

/* The root has every quiescent state and no preempted reader holds it
 * (rcu_preempt_blocked_readers_cgp(), which matters only when the root is
 * the one leaf: tree.c 6.12:2050-2061). */
static bool root_done(const rcu_tree_state *rsp)
{
	return !rsp->node[0].qsmask && !rsp->node[0].gp_blkd;
}

bool rcu_tree_gp_fqs_check_wake(rcu_tree_state *rsp)
{
	/* rcu_gp_fqs_check_wake() (tree.c:1955-1973); updates the loop's gf. */
	if (rsp->fqs_gf & RCU_GP_FLAG_OVLD)
		return true;
	rsp->fqs_gf = rsp->gp_flags;
	if (rsp->fqs_gf & RCU_GP_FLAG_FQS)
		return true;
	return root_done(rsp);
}

/* The top of rcu_gp_fqs_loop()'s loop (tree.c:2026-2046): shorten the wait
 * under overload, set jiffies_force_qs, and wait (0 when the wake
 * condition already holds). */
static int64_t fqs_loop_top(rcu_tree_state *rsp, int64_t jiffies)
{
	if (rsp->cbovld) {
		rsp->fqs_j = (rsp->fqs_j + 2) / 3;
		if (rsp->fqs_j <= 0)
			rsp->fqs_j = 1;
	}
	if (!rsp->fqs_ret || time_before(jiffies + rsp->fqs_j, rsp->jiffies_force_qs))
		rsp->jiffies_force_qs = jiffies + rsp->fqs_j;
	rsp->gp_state = RCU_GP_WAIT_FQS;
	rsp->fqs_wait_end = jiffies + rsp->fqs_j;
	return rcu_tree_gp_fqs_check_wake(rsp) ? 0 : rsp->fqs_j;
}

int64_t rcu_tree_gp_fqs_loop_start(rcu_tree_state *rsp, int64_t jiffies)
{
	/* tree.c:2016-2025 */
	rsp->fqs_first = true;
	rsp->fqs_j = rsp->jiffies_till_first_fqs;
	rsp->fqs_gf = rsp->cbovld ? RCU_GP_FLAG_OVLD : 0;
	rsp->fqs_ret = false;
	return fqs_loop_top(rsp, jiffies);
}

/* rcu_watching_snap_save() (tree.c:783-801): snapshot the CPU's counter; 1
 * if it is idle now. */
static int watching_snap_save(rcu_tree_state *rsp, rcu_tree_data *rdp)
{
	rdp->watching_snap = rdp->watching;
	if (!(rdp->watching_snap & 1)) {
		rcu_tree_gpnum_ovf(&rsp->node[rdp->leaf], rdp);
		return 1;
	}
	return 0;
}

/* rcu_watching_snap_recheck() (tree.c:815-949) at @jiffies: 1 if the CPU
 * went through an extended QS since the snapshot, -1 to resched_cpu() it,
 * else 0; escalates its urgency with the GP's age. */
static int watching_snap_recheck(rcu_tree_state *rsp, rcu_tree_data *rdp, int64_t jiffies)
{
	int ret = 0;
	/* rcu_watching_snap_stopped_since() (tree.c:324-338). */
	if (!(rdp->watching_snap & 1) || rdp->watching_snap != rdp->watching) {
		rcu_tree_gpnum_ovf(&rsp->node[rdp->leaf], rdp);
		return 1;
	}
	/* :880-890: urgent at age jtsq, heavy at 2 jtsq, past jiffies_resched
	 * or under overload. */
	int64_t jtsq = rsp->jiffies_to_sched_qs;
	if (!rdp->rcu_need_heavy_qs &&
	    (time_after(jiffies, rsp->gp_start + jtsq * 2) ||
	     time_after(jiffies, rsp->jiffies_resched) || rsp->cbovld)) {
		rdp->rcu_need_heavy_qs = true;
		rdp->rcu_urgent_qs = true;
		rsp->n_heavy_qs++;
	} else if (time_after(jiffies, rsp->gp_start + jtsq)) {
		rsp->n_urgent_qs += !rdp->rcu_urgent_qs;
		rdp->rcu_urgent_qs = true;
	}
	/* :900-906: a nohz_full CPU may run in the kernel without a tick:
	 * the resched_cpu() hammer. */
	if (__builtin_expect(rdp->nohz_full, 0) &&
	    (time_after(jiffies, rdp->last_fqs_resched + jtsq * 3) || rsp->cbovld)) {
		rdp->rcu_urgent_qs = true;
		rdp->last_fqs_resched = jiffies;
		ret = -1;
	}
	/* :915-920: past half the stall timeout, resched_cpu() at most once
	 * per jtsq. */
	if (time_after(jiffies, rsp->jiffies_resched) &&
	    time_after(jiffies, rdp->last_fqs_resched + jtsq)) {
		rdp->last_fqs_resched = jiffies;
		ret = -1;
	}
	return ret;
}

/* force_qs_rnp() (tree.c:2684-2737). */
static void force_qs_rnp(rcu_tree_state *rsp, bool first, int64_t jiffies, rcu_tree_fqs_result *res)
{
	rsp->cbovld = rsp->cbovldnext;
	rsp->cbovldnext = false;
	for (int n = rsp->level_first[rsp->nlevels - 1]; n < rsp->nnodes; n++) {
		rcu_tree_node *rnp = &rsp->node[n];
		uint64_t mask = 0, rsmask = 0;
		res->leaves++;
		rsp->cbovldnext |= rnp->cbovldmask != 0;
		if (!rnp->qsmask) {
			/* rcu_initiate_boost() of a leaf whose CPUs all reported
			 * but whose preempted readers hold the GP (:2699-2709,
			 * tree_plugin.h:1163-1186): once the GP is boost_delay
			 * old, or under callback overload. */
			if (rnp->gp_blkd && rsp->cfg.boost && !rnp->boosting &&
			    (!time_after(rnp->boost_time, jiffies) || rsp->cbovld)) {
				rnp->boosting = true;
				rsp->boosts_started++;
				rsp->boost[res->nboost++] = n;
			}
			continue;
		}
		for (uint64_t m = rnp->qsmask; m; m &= m - 1) {
			int cpu = rnp->grplo + __builtin_ctzll(m);
			rcu_tree_data *rdp = &rsp->rda[cpu];
			int ret = first ? watching_snap_save(rsp, rdp)
					: watching_snap_recheck(rsp, rdp, jiffies);
			res->cpus++;
			if (ret > 0) {
				mask |= rdp->grpmask;
				rcu_tree_disable_urgency_upon_qs(rdp);
				res->reported++;
			}
			if (ret < 0)
				rsmask |= rdp->grpmask;
		}
		/* Report for the idle ones; the GP kthread is the caller, so
		 * a wakeup of itself is nothing (rcu_gp_kthread_wake, tree.c:1115). */
		if (mask)
			(void)rcu_tree_report_qs_rnp(rsp, mask, n, rnp->gp_seq);
		for (uint64_t m = rsmask; m; m &= m - 1)
			rsp->resched[res->nresched++] = rnp->grplo + __builtin_ctzll(m);
	}
}

void rcu_tree_gp_fqs(rcu_tree_state *rsp, bool first, int64_t jiffies, rcu_tree_fqs_result *res)
{
	/* rcu_gp_fqs() (tree.c:1978-2009); nr_fqs_jiffies_stall is 0 outside
	 * stall printing, so its countdown is left out. */
	memset(res, 0, sizeof(*res));
	res->resched = rsp->resched;
	rsp->n_force_qs++;
	force_qs_rnp(rsp, first, jiffies, res);
	rsp->gp_flags &= ~RCU_GP_FLAG_FQS; /* no immediate re-entry */
}

rcu_tree_fqs_step rcu_tree_gp_fqs_loop_wake(rcu_tree_state *rsp, int64_t jiffies,
					    rcu_tree_fqs_result *res)
{
	memset(res, 0, sizeof(*res));
	res->resched = rsp->resched;
	/* swait_event_idle_timeout_exclusive(): the condition is evaluated at
	 * every wakeup and at the timeout; a wakeup that finds it false
	 * sleeps on. */
	if (!rcu_tree_gp_fqs_check_wake(rsp) && time_before(jiffies, rsp->fqs_wait_end)) {
		res->wait = rsp->fqs_wait_end - jiffies;
		return RCU_TREE_FQS_SLEEP;
	}
	/* The loop body (tree.c:2048-2093). */
	rsp->gp_state = RCU_GP_DOING_FQS;
	if (root_done(rsp))
		return RCU_TREE_FQS_DONE;
	rcu_tree_fqs_step step;
	if (!time_after(rsp->jiffies_force_qs, jiffies) ||
	    (rsp->fqs_gf & (RCU_GP_FLAG_FQS | RCU_GP_FLAG_OVLD))) {
		rcu_tree_gp_fqs(rsp, rsp->fqs_first, jiffies, res);
		rsp->fqs_gf = 0;
		if (rsp->fqs_first) { /* under overload the second scan is immediate too */
			rsp->fqs_first = false;
			rsp->fqs_gf = rsp->cbovld ? RCU_GP_FLAG_OVLD : 0;
		}
		rsp->fqs_ret = false;
		rsp->fqs_j = rsp->jiffies_till_next_fqs;
		step = RCU_TREE_FQS_SCANNED;
	} else {
		/* A stray wakeup: keep the FQS time (tree.c:2079-2093). */
		rsp->fqs_ret = true;
		rsp->fqs_j = time_after(jiffies, rsp->jiffies_force_qs) ? 1
									: rsp->jiffies_force_qs - jiffies;
		rsp->fqs_gf = 0;
		step = RCU_TREE_FQS_WAIT;
	}
	res->wait = fqs_loop_top(rsp, jiffies);
	return step;
}

/* rcu_future_gp_cleanup() (tree.c:1051-1062): is a later GP requested here? */
static bool future_gp_cleanup(rcu_tree_node *rnp)
{
	bool needmore = rcu_ulong_cmp_lt(rnp->gp_seq, rnp->gp_seq_needed);
	if (!needmore)
		rnp->gp_seq_needed = rnp->gp_seq; /* avoid counter wrap */
	return needmore;
}

int rcu_tree_gp_cleanup(rcu_tree_state *rsp, int gp_cpu, int64_t jiffies, bool *needgp_out)
{
	/* rcu_gp_cleanup() (tree.c:2100-2214). */
	bool needgp = false;
	int walked = 0;
	rsp->gp_state = RCU_GP_CLEANUP;
	rsp->gp_end = jiffies;
	if (jiffies - rsp->gp_start > rsp->gp_max)
		rsp->gp_max = jiffies - rsp->gp_start;
	/* Every node sees the end before rcu_state does (:2139-2165). */
	uint64_t new_gp_seq = rcu_seq_endval(rsp->gp_seq);
	int gp_leaf = gp_cpu >= 0 ? rsp->rda[gp_cpu].leaf : -1;
	int first_leaf = rsp->level_first[rsp->nlevels - 1];
	for (int n = 0; n < rsp->nnodes; n++) {
		rcu_tree_node *rnp = &rsp->node[n];
		assert(!rnp->qsmask);
		rnp->gp_seq = new_gp_seq;
		if (n == gp_leaf)
			needgp = rcu_tree_note_gp_changes_locked(rsp, gp_cpu) || needgp;
		needgp = future_gp_cleanup(rnp) || needgp;
		if (n >= first_leaf) /* CPUs no longer overloaded (:2153-2158) */
			for (uint64_t m = rnp->cbovldmask; m; m &= m - 1)
				rcu_tree_check_cb_ovld(rsp, rnp->grplo + __builtin_ctzll(m));
		walked++;
	}
	rcu_seq_end(&rsp->gp_seq); /* :2171 */
	rsp->gp_state = RCU_GP_IDLE;
	rsp->gp_completed++;
	rcu_tree_node *root = &rsp->node[0];
	if (!needgp && rcu_ulong_cmp_lt(root->gp_seq, root->gp_seq_needed))
		needgp = true; /* requested since the walk (:2176-2180) */
	/* The kthread's own CPU accelerates under the root; that may request
	 * the next GP itself (:2182-2207); not if it is offloaded (:2183). */
	bool accel = gp_cpu >= 0 && !rsp->rda[gp_cpu].offloaded &&
		     rcu_tree_accelerate_cbs(rsp, 0, gp_cpu);
	if (!accel && needgp)
		rsp->gp_flags = RCU_GP_FLAG_INIT;
	else
		rsp->gp_flags &= RCU_GP_FLAG_INIT;
	rsp->gp_state = RCU_GP_CLEANED;
	if (needgp_out)
		*needgp_out = (rsp->gp_flags & RCU_GP_FLAG_INIT) != 0;
	return walked;
}
