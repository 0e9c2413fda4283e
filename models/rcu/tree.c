/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tree.c - Tree RCU's state machine after Linux 6.12 (kernel/rcu/tree.c,
 * tree.h, rcu.h, tree_plugin.h for CONFIG_PREEMPT_RCU=n; include/linux/
 * rcu_node_tree.h): configuration and the rcu_node tree, grace-period
 * requests and callback classification, call_rcu, quiescent states and
 * their reports up the tree, and rcu_do_batch. The segmented callback list
 * is segcblist.c's, the grace-period kthread's steps tree_gp.c's.
 * Every rule below names the function and 6.12 line it follows; the code is
 * ours. tree.h lists the API; the flavor (tree_flavor.c) builds the
 * rcu_flavor on it.
 *
 * What it deliberately leaves out, and why:
 * - CPU hotplug: every CPU is online from boot, so qsmaskinit never changes
 *   and rcu_gp_init()'s RCU_GP_ONOFF pass finds nothing to do (its walk over
 *   the leaves is still counted); no offline-CPU reports.
 * - nohz_full CPUs: only what RCU does for them here (rdp->nohz_full: the
 *   resched_cpu() hammer, the forced tick's flag); their ticks and context
 *   tracking are the CPU model's. Offloaded (rcu_nocbs) CPUs are
 *   tree_nocb.c's; here only rdp->offloaded skips what 6.12 skips for them
 *   (__note_gp_changes, rcu_report_qs_rdp, rcu_core, rcu_pending's
 *   callback terms, rcu_gp_cleanup's accelerate, rcu_needs_cpu).
 * - PREEMPT_RCU (blocked readers, boosting), expedited and polled grace
 *   periods, synchronize_rcu()'s wakeups, Tasks RCU: not in the loads.
 * - Stall warnings: jiffies_stall and jiffies_resched are kept (the latter
 *   drives resched_cpu()), nothing is printed; rcu_check_gp_start_stall(),
 *   the irq-work IPI once per GP past jiffies_resched (irq_work_queue_on in
 *   rcu_watching_snap_recheck) and jiffies_kick_kthreads are left out.
 * - Locks: every lock is taken at once and every trylock succeeds (no
 *   contention), and each function is atomic: the caller charges its CPU
 *   time and decides when its effect lands. rcu_gp_init()'s node walk is
 *   one step here; in the kernel other CPUs can run between its nodes.
 * - gpwrap starts false (the kernel's static initializer has it true until
 *   each CPU's first note_gp_changes(): a boot-time artefact); it is set as
 *   the kernel does when a CPU falls ULONG_MAX/4 behind (never, in practice).
 * - CONFIG_RCU_DOUBLE_CHECK_CB_TIME's jiffies backstop (off by default).
 */
#include "rcu/tree.h"
#include "rcu/tree_int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

#define NSEC_PER_MSEC INT64_C(1000000)
#define NSEC_PER_SEC INT64_C(1000000000)

/* ---- configuration and geometry ------------------------------------------------- */

void rcu_tree_cfg_default(rcu_tree_cfg *cfg, int ncpus, int hz)
{
	*cfg = (rcu_tree_cfg){
		.ncpus = ncpus,
		.hz = hz,
		.rcu_fanout_leaf = 16,           /* RCU_FANOUT_LEAF (rcu_node_tree.h:46) */
		.rcu_fanout = 64,                /* RCU_FANOUT on 64-bit (rcu_node_tree.h:37) */
		.blimit = 10,                    /* DEFAULT_RCU_BLIMIT (tree.c:421) */
		.qhimark = 10000,                /* DEFAULT_RCU_QHIMARK (tree.c:425) */
		.qlowmark = 100,                 /* DEFAULT_RCU_QLOMARK (tree.c:427) */
		.qovld = 20000,                  /* DEFAULT_RCU_QOVLD (tree.c:430), qovld_calc (:5734-5737) */
		.flood_blimit = 10000,           /* DEFAULT_MAX_RCU_BLIMIT (tree.c:423) */
		.rcu_divisor = 7,                /* tree.c:442 */
		.rcu_resched_ns = 3 * NSEC_PER_MSEC, /* tree.c:446 */
		.jiffies_till_first_fqs = -1,    /* ULONG_MAX: computed (tree.c:439, 5563-5565) */
		.jiffies_till_next_fqs = -1,     /* tree.c:440, 5566-5567 */
		.jiffies_till_sched_qs = -1,     /* tree.c:453, 464-480 */
		.stall_timeout_ns = 21 * NSEC_PER_SEC, /* CONFIG_RCU_CPU_STALL_TIMEOUT (Kconfig.debug:71-75) */
		.use_softirq = true,             /* tree.c:106 (not PREEMPT_RT) */
		.gp_seq_init = RCU_TREE_GP_SEQ_INIT,
	};
}

int rcu_tree_cfg_from_params(rcu_tree_cfg *cfg, const sim_params *p, char *err, size_t errlen)
{
	rcu_tree_cfg_default(cfg, machine_ncpus(p), (int)sim_params_int(p, P_MACHINE_HZ));
	cfg->rcu_fanout_leaf = (int)sim_params_int(p, P_RCU_RCU_FANOUT_LEAF);
	cfg->blimit = sim_params_int(p, P_RCU_BLIMIT);
	cfg->qhimark = sim_params_int(p, P_RCU_QHIMARK);
	cfg->qlowmark = sim_params_int(p, P_RCU_QLOWMARK);
	/* rcu_init() (tree.c:5734-5737): qovld < 0 means 2 x qhimark. */
	cfg->qovld = sim_params_is_auto(p, P_RCU_QOVLD) ? 2 * cfg->qhimark
						       : sim_params_int(p, P_RCU_QOVLD);
	cfg->flood_blimit = sim_params_int(p, P_RCU_FLOOD_BLIMIT);
	cfg->rcu_divisor = (int)sim_params_int(p, P_RCU_RCU_DIVISOR);
	cfg->rcu_resched_ns = sim_params_int(p, P_RCU_RCU_RESCHED_NS);
	if (!sim_params_is_auto(p, P_RCU_JIFFIES_TILL_FIRST_FQS))
		cfg->jiffies_till_first_fqs = sim_params_int(p, P_RCU_JIFFIES_TILL_FIRST_FQS);
	if (!sim_params_is_auto(p, P_RCU_JIFFIES_TILL_NEXT_FQS))
		cfg->jiffies_till_next_fqs = sim_params_int(p, P_RCU_JIFFIES_TILL_NEXT_FQS);
	if (!sim_params_is_auto(p, P_RCU_JIFFIES_TILL_SCHED_QS))
		cfg->jiffies_till_sched_qs = sim_params_int(p, P_RCU_JIFFIES_TILL_SCHED_QS);
	cfg->stall_timeout_ns = sim_params_int(p, P_RCU_STALL_TIMEOUT);
	cfg->use_softirq = sim_params_int(p, P_RCU_USE_SOFTIRQ) != 0;
	cfg->preempt_rcu = sim_params_int(p, P_RCU_PREEMPT_RCU) != 0;
	cfg->boost = cfg->preempt_rcu && sim_params_int(p, P_RCU_BOOST) != 0;
	cfg->boost_delay_j = (int64_t)(((__int128)sim_params_int(p, P_RCU_BOOST_DELAY) * cfg->hz +
					SIM_NS_PER_S - 1) / SIM_NS_PER_S);
	int levels, count[RCU_TREE_MAX_LVLS];
	if (rcu_tree_geometry(cfg->ncpus, cfg->rcu_fanout_leaf, cfg->rcu_fanout, &levels, count)) {
		char a[512];
		sim_params_where(p, P_RCU_RCU_FANOUT_LEAF, a, sizeof(a));
		snprintf(err, errlen, "%s: %d CPUs need more than %d rcu_node levels with %d CPUs per leaf",
			 a, cfg->ncpus, RCU_TREE_MAX_LVLS, cfg->rcu_fanout_leaf);
		return SIM_EINPUT;
	}
	return 0;
}

int rcu_tree_geometry(int ncpus, int leaf, int fanout, int *nlevels, int level_count[RCU_TREE_MAX_LVLS])
{
	int64_t cap[RCU_TREE_MAX_LVLS];
	int i;
	/* The leaf fanout must fit the masks (tree.c:5583-5588); RCU_FANOUT's
	 * Kconfig range is 2-64. */
	if (ncpus < 1 || leaf < 2 || leaf > 64 || fanout < 2 || fanout > 64)
		return SIM_EINPUT;
	cap[0] = leaf; /* rcu_capacity[] (tree.c:5594-5596) */
	for (i = 1; i < RCU_TREE_MAX_LVLS; i++)
		cap[i] = cap[i - 1] * fanout;
	if (ncpus > cap[RCU_TREE_MAX_LVLS - 1]) /* tree.c:5601-5605 */
		return SIM_EINPUT;
	for (i = 0; ncpus > cap[i]; i++) /* levels (tree.c:5608-5611) */
		;
	*nlevels = i + 1;
	for (i = 0; i < *nlevels; i++) /* num_rcu_lvl[] (tree.c:5614-5617) */
		level_count[i] = (int)((ncpus + cap[*nlevels - 1 - i] - 1) / cap[*nlevels - 1 - i]);
	for (; i < RCU_TREE_MAX_LVLS; i++)
		level_count[i] = 0;
	return 0;
}

/* Resolve the FQS and stall tunables at boot: rcu_init_geometry()
 * (tree.c:5563-5567), the module-parameter clamps (tree.c:482-503),
 * adjust_jiffies_till_sched_qs() (tree.c:464-480) and
 * rcu_jiffies_till_stall_check() (tree_stall.h:60-76, without PROVE_RCU's
 * extra 5 s). */
static void resolve_tunables(rcu_tree_state *rsp)
{
	const rcu_tree_cfg *c = &rsp->cfg;
	int64_t hz = c->hz, d = 1 + (hz > 250) + (hz > 500) + c->ncpus / 256;
	int64_t first = c->jiffies_till_first_fqs, next = c->jiffies_till_next_fqs;
	if (first < 0)
		first = d;
	else if (first > hz)
		first = hz;
	if (next < 0)
		next = d;
	else
		next = next > hz ? hz : next ? next : 1;
	rsp->jiffies_till_first_fqs = first;
	rsp->jiffies_till_next_fqs = next;
	if (c->jiffies_till_sched_qs >= 0) {
		rsp->jiffies_to_sched_qs = c->jiffies_till_sched_qs;
	} else {
		int64_t j = first + 2 * next, least = hz / 10 + c->ncpus / 256;
		rsp->jiffies_to_sched_qs = j < least ? least : j;
	}
	/* Clamped to 3..300 s; the kernel counts whole seconds, a fraction
	 * given here is kept (in whole jiffies). */
	int64_t s = c->stall_timeout_ns / NSEC_PER_SEC;
	rsp->jiffies_till_stall = s < 3 ? 3 * hz : s > 300 ? 300 * hz
						      : c->stall_timeout_ns * hz / NSEC_PER_SEC;
}

void rcu_tree_destroy(rcu_tree_state *rsp)
{
	if (!rsp)
		return;
	if (rsp->rda)
		for (int i = 0; i < rsp->ncpus; i++)
			rcu_segcblist_fini(&rsp->rda[i].cblist);
	free(rsp->rda);
	free(rsp->node);
	free(rsp->resched);
	free(rsp->boost);
	free(rsp);
}

int rcu_tree_create(rcu_tree_state **out, const rcu_tree_cfg *cfg, bool payload, char *err,
		    size_t errlen)
{
	int levels, count[RCU_TREE_MAX_LVLS];
	*out = NULL;
	if (rcu_tree_geometry(cfg->ncpus, cfg->rcu_fanout_leaf, cfg->rcu_fanout, &levels, count)) {
		snprintf(err, errlen, "tree RCU: %d CPUs do not fit %d levels of rcu_node with leaf "
			 "fanout %d and fanout %d", cfg->ncpus, RCU_TREE_MAX_LVLS, cfg->rcu_fanout_leaf,
			 cfg->rcu_fanout);
		return SIM_EINPUT;
	}
	rcu_tree_state *rsp = calloc(1, sizeof(*rsp));
	if (!rsp)
		goto nomem;
	rsp->cfg = *cfg;
	rsp->ncpus = cfg->ncpus;
	rsp->nlevels = levels;
	for (int i = 0; i < levels; i++) {
		rsp->level_count[i] = count[i];
		rsp->level_first[i] = rsp->nnodes;
		rsp->nnodes += count[i];
	}
	rsp->nleaves = count[levels - 1];
	rsp->node = calloc((size_t)rsp->nnodes, sizeof(*rsp->node));
	rsp->rda = calloc((size_t)rsp->ncpus, sizeof(*rsp->rda));
	rsp->resched = calloc((size_t)rsp->ncpus, sizeof(*rsp->resched));
	rsp->boost = calloc((size_t)rsp->nnodes, sizeof(*rsp->boost));
	if (!rsp->node || !rsp->rda || !rsp->resched || !rsp->boost)
		goto nomem;
	resolve_tunables(rsp);
	rsp->gp_seq = cfg->gp_seq_init; /* tree.c:86 */
	rsp->gp_state = RCU_GP_IDLE;

	/* rcu_init_levelspread() without rcu_fanout_exact (rcu.h:353-374):
	 * children per node at each level, balanced. */
	int spread[RCU_TREE_MAX_LVLS];
	for (int i = levels - 1, cprv = cfg->ncpus; i >= 0; i--) {
		spread[i] = (cprv + count[i] - 1) / count[i];
		cprv = count[i];
	}
	/* rcu_init_one() (tree.c:5424-5505), from the leaves up. */
	int64_t stride = 1;
	for (int i = levels - 1; i >= 0; i--) {
		stride *= spread[i];
		for (int j = 0; j < count[i]; j++) {
			rcu_tree_node *rnp = &rsp->node[rsp->level_first[i] + j];
			rnp->gp_seq = rnp->gp_seq_needed = rnp->completedqs = rsp->gp_seq;
			rnp->grplo = (int)(j * stride);
			int64_t hi = (j + 1) * stride - 1;
			rnp->grphi = (int)(hi >= cfg->ncpus ? cfg->ncpus - 1 : hi);
			rnp->level = i;
			if (i == 0) {
				rnp->parent = -1;
			} else {
				rnp->grpnum = j % spread[i - 1];
				rnp->grpmask = UINT64_C(1) << rnp->grpnum;
				rnp->parent = rsp->level_first[i - 1] + j / spread[i - 1];
			}
		}
	}
	/* Every CPU online: its bit in its leaf's qsmaskinit, each node's bit
	 * in its parent's, as rcutree_report_cpu_starting() (tree.c:5121) and
	 * the first GP's RCU_GP_ONOFF pass with rcu_init_new_rnp() (tree.c:4849)
	 * leave them after boot. */
	for (int n = rsp->nnodes - 1; n > 0; n--)
		rsp->node[rsp->node[n].parent].qsmaskinit |= rsp->node[n].grpmask;
	int leaf = rsp->level_first[levels - 1];
	for (int cpu = 0; cpu < rsp->ncpus; cpu++) {
		rcu_tree_data *rdp = &rsp->rda[cpu];
		while (cpu > rsp->node[leaf].grphi) /* mynode (tree.c:5499-5502) */
			leaf++;
		rcu_tree_node *rnp = &rsp->node[leaf];
		rdp->cpu = cpu;
		rdp->leaf = leaf;
		rdp->grpmask = UINT64_C(1) << (cpu - rnp->grplo); /* leaf_node_cpu_bit() */
		rnp->qsmaskinit |= rdp->grpmask;
		/* rcutree_prepare_cpu() (tree.c:4965-5008). */
		rdp->qlen_last_fqs_check = 0;
		rdp->n_force_qs_snap = rsp->n_force_qs;
		rdp->blimit = cfg->blimit;
		rdp->gp_seq = rdp->gp_seq_needed = rnp->gp_seq;
		rdp->cpu_no_qs = true;
		rdp->core_needs_qs = false;
		rdp->watching = 1; /* CT_RCU_WATCHING: running, not idle (context_tracking.c:34) */
		rdp->barrier_mark = RCU_TREE_NO_BARRIER;
		if (rcu_segcblist_init(&rdp->cblist, payload, cfg->cb_runs && !payload))
			goto nomem;
	}
	*out = rsp;
	return 0;
nomem:
	rcu_tree_destroy(rsp);
	snprintf(err, errlen, "tree RCU: out of memory");
	return SIM_ENOMEM;
}

/* ---- grace-period requests and callback classification --------------------- */

bool rcu_tree_start_this_gp(rcu_tree_state *rsp, int rnp_start, int cpu, uint64_t gp_seq_req)
{
	rcu_tree_node *start = &rsp->node[rnp_start], *rnp = start;
	bool ret = false;
	/* Funnel up (tree.c:993-1019): stop where the request is already
	 * recorded or its GP started, at an inner node with a GP running, or
	 * (after recording it) wherever a GP is running: cleanup will see it. */
	for (;;) {
		if (rcu_ulong_cmp_ge(rnp->gp_seq_needed, gp_seq_req) ||
		    rcu_seq_started(rnp->gp_seq, gp_seq_req) ||
		    (rnp != start && rcu_seq_state(rnp->gp_seq)))
			goto out;
		rnp->gp_seq_needed = gp_seq_req;
		if (rcu_seq_state(rnp->gp_seq))
			goto out;
		if (rnp->parent < 0)
			break;
		rnp = &rsp->node[rnp->parent];
	}
	/* At the root: start one unless a GP runs (tree.c:1022-1035). */
	if (rcu_tree_gp_in_progress(rsp))
		goto out;
	rsp->gp_flags |= RCU_GP_FLAG_INIT;
	ret = true;
out:
	/* Push the furthest request down to the leaf and the CPU (tree.c:1037-1041). */
	if (rcu_ulong_cmp_lt(gp_seq_req, rnp->gp_seq_needed)) {
		start->gp_seq_needed = rnp->gp_seq_needed;
		rsp->rda[cpu].gp_seq_needed = rnp->gp_seq_needed;
	}
	return ret;
}

bool rcu_tree_accelerate_cbs(rcu_tree_state *rsp, int rnp, int cpu)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	/* tree.c:1144-1162 */
	if (!rcu_segcblist_pend_cbs(&rdp->cblist))
		return false;
	uint64_t gp_seq_req = rcu_seq_snap(rsp->gp_seq);
	if (rcu_segcblist_accelerate(&rdp->cblist, gp_seq_req))
		return rcu_tree_start_this_gp(rsp, rnp, cpu, gp_seq_req);
	return false;
}

bool rcu_tree_accelerate_cbs_unlocked(rcu_tree_state *rsp, int cpu)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	/* tree.c:1188-1198: an old request still covers this one. */
	uint64_t c = rcu_seq_snap(rsp->gp_seq);
	if (!rdp->gpwrap && rcu_ulong_cmp_ge(rdp->gp_seq_needed, c)) {
		(void)rcu_segcblist_accelerate(&rdp->cblist, c);
		return false;
	}
	return rcu_tree_accelerate_cbs(rsp, rdp->leaf, cpu);
}

bool rcu_tree_advance_cbs(rcu_tree_state *rsp, int cpu)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	/* tree.c:1217-1227 */
	if (!rcu_segcblist_pend_cbs(&rdp->cblist))
		return false;
	rcu_segcblist_advance(&rdp->cblist, rsp->node[rdp->leaf].gp_seq);
	return rcu_tree_accelerate_cbs(rsp, rdp->leaf, cpu);
}

bool rcu_tree_note_gp_changes_locked(rcu_tree_state *rsp, int cpu)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	rcu_tree_node *rnp = &rsp->node[rdp->leaf];
	if (rdp->gp_seq == rnp->gp_seq)
		return false;
	bool ret = false;
	/* Not an offloaded CPU's callbacks: rcuog's (:1280, 1285). */
	if (rcu_seq_completed_gp(rdp->gp_seq, rnp->gp_seq) || rdp->gpwrap) {
		if (!rdp->offloaded)
			ret = rcu_tree_advance_cbs(rsp, cpu); /* a GP ended: advance (:1277-1282) */
		rdp->core_needs_qs = false;
	} else {
		if (!rdp->offloaded)
			ret = rcu_tree_accelerate_cbs(rsp, rdp->leaf, cpu); /* :1283-1287 */
		if (rdp->core_needs_qs)
			rdp->core_needs_qs = (rnp->qsmask & rdp->grpmask) != 0;
	}
	/* A GP new to this CPU: owe it a QS if it waits for this CPU (:1291-1303). */
	if (rcu_seq_new_gp(rdp->gp_seq, rnp->gp_seq) || rdp->gpwrap) {
		bool need_qs = (rnp->qsmask & rdp->grpmask) != 0;
		rdp->cpu_no_qs = need_qs;
		rdp->core_needs_qs = need_qs;
		/* zero_cpu_stall_ticks() (tree_stall.h 6.12:188-193): jiffies
		 * then; the grace period's start here, a jiffy or so before. */
		rdp->last_fqs_resched = rsp->gp_start;
	}
	rdp->gp_seq = rnp->gp_seq;
	if (rcu_ulong_cmp_lt(rdp->gp_seq_needed, rnp->gp_seq_needed) || rdp->gpwrap)
		rdp->gp_seq_needed = rnp->gp_seq_needed;
	rdp->gpwrap = false;
	rcu_tree_gpnum_ovf(rnp, rdp);
	return ret;
}

bool rcu_tree_note_gp_changes(rcu_tree_state *rsp, int cpu)
{
	const rcu_tree_data *rdp = &rsp->rda[cpu];
	/* note_gp_changes() (tree.c:1314-1333); its trylock always succeeds here. */
	if (rdp->gp_seq == rsp->node[rdp->leaf].gp_seq && !rdp->gpwrap)
		return false;
	return rcu_tree_note_gp_changes_locked(rsp, cpu);
}

/* ---- call_rcu and its kicks ----------------------------------------------------- */

void rcu_tree_check_cb_ovld(rcu_tree_state *rsp, int cpu)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	rcu_tree_node *rnp = &rsp->node[rdp->leaf];
	/* check_cb_ovld_locked() (tree.c:3024-3033) */
	if (rsp->cfg.qovld <= 0)
		return;
	if (rcu_segcblist_n_cbs(&rdp->cblist) >= rsp->cfg.qovld)
		rnp->cbovldmask |= rdp->grpmask;
	else
		rnp->cbovldmask &= ~rdp->grpmask;
}

bool rcu_tree_force_quiescent_state(rcu_tree_state *rsp)
{
	/* tree.c:2743-2775: the fqslock funnel never finds a holder here. */
	if (!rcu_tree_gp_in_progress(rsp) || (rsp->gp_flags & RCU_GP_FLAG_FQS))
		return false;
	rsp->gp_flags |= RCU_GP_FLAG_FQS;
	return true;
}

/* call_rcu_core()'s overflow path (tree.c:2990-3006) on @cpu, whose new
 * callback is at ring index @idx. */
static __attribute__((noinline)) void call_rcu_overflow(rcu_tree_state *rsp, int cpu, uint64_t idx,
							rcu_effect *eff)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	eff->wake_gp |= rcu_tree_note_gp_changes(rsp, cpu);
	if (!rcu_tree_gp_in_progress(rsp)) {
		eff->wake_gp |= rcu_tree_accelerate_cbs_unlocked(rsp, cpu);
		return;
	}
	rdp->blimit = rsp->cfg.flood_blimit;
	/* No FQS since the last kick, and not the only pending callback
	 * (rcu_segcblist_first_pend_cb() != head). */
	if (rsp->n_force_qs == rdp->n_force_qs_snap && rdp->cblist.tails[RCU_DONE_TAIL] != idx)
		eff->wake_gp |= rcu_tree_force_quiescent_state(rsp);
	rdp->n_force_qs_snap = rsp->n_force_qs;
	rdp->qlen_last_fqs_check = rcu_segcblist_n_cbs(&rdp->cblist);
}

int rcu_tree_call_rcu(rcu_tree_state *rsp, int cpu, sim_time at, uint32_t obj, bool irqs_disabled,
		      rcu_effect *eff)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	rcu_tree_node *rnp = &rsp->node[rdp->leaf];
	/* __call_rcu_common() (tree.c:3102): check_cb_ovld() before queueing
	 * (tree.c:3047-3058: only when the bit is wrong). */
	if (rsp->cfg.qovld > 0 && (rcu_segcblist_n_cbs(&rdp->cblist) >= rsp->cfg.qovld) !=
					  ((rnp->cbovldmask & rdp->grpmask) != 0))
		rcu_tree_check_cb_ovld(rsp, cpu);
	uint64_t idx = rdp->cblist.tails[RCU_NEXT_TAIL];
	if (rcu_segcblist_enqueue(&rdp->cblist, at, obj)) /* rcutree_enqueue() (tree.c:2952) */
		return SIM_ENOMEM;
	int64_t n = rcu_segcblist_n_cbs(&rdp->cblist);
	if (n > rdp->qlen_max)
		rdp->qlen_max = n;
	/* call_rcu_core() (tree.c:2968-3008). */
	if (rcu_tree_in_eqs(rsp, cpu)) /* !rcu_is_watching() */
		eff->raise = true;
	if (irqs_disabled)
		return 0;
	if (__builtin_expect(n > rdp->qlen_last_fqs_check + rsp->cfg.qhimark, 0))
		call_rcu_overflow(rsp, cpu, idx, eff);
	RCUSIM_CHECK(rcu_segcblist_sane(&rdp->cblist), "rcu_tree.cblist_layout");
	return 0;
}

int rcu_tree_call_rcu_n(rcu_tree_state *rsp, int cpu, sim_time t0, sim_time step, int64_t n,
			rcu_effect *eff)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	rcu_tree_node *rnp = &rsp->node[rdp->leaf];
	rcu_segcblist *l = &rdp->cblist;
	const int64_t qovld = rsp->cfg.qovld;
	/* Room for all of them first, so that nothing below fails (in run
	 * mode one run: the stretches below continue one another's spacing). */
	while ((uint64_t)(rcu_segcblist_n_cbs(l) + n) > l->cap)
		if (rcu_segcblist_grow(l, l->tails[RCU_NEXT_TAIL]))
			return SIM_ENOMEM;
	if (rcu_segcblist_run_reserve(l))
		return SIM_ENOMEM;
	bool eqs = rcu_tree_in_eqs(rsp, cpu);
	while (n > 0) {
		int64_t q = rcu_segcblist_n_cbs(l), k = n;
		/* check_cb_ovld() before each call acts only where the bit is
		 * wrong: now, or at the call that finds qovld queued. */
		if (qovld > 0) {
			if ((q >= qovld) != ((rnp->cbovldmask & rdp->grpmask) != 0))
				rcu_tree_check_cb_ovld(rsp, cpu);
			if (q < qovld && qovld - q < k)
				k = qovld - q;
		}
		/* The overflow path at the first call whose queue exceeds
		 * qlen_last_fqs_check + qhimark. */
		int64_t first_over = rdp->qlen_last_fqs_check + rsp->cfg.qhimark - q + 1;
		bool over = false;
		if (first_over < 1)
			first_over = 1;
		if (first_over <= k) {
			k = first_over;
			over = true;
		}
		int rc = rcu_segcblist_enqueue_n(l, t0, step, k);
		assert(rc == 0); /* the ring has room */
		(void)rc;
		if (q + k > rdp->qlen_max)
			rdp->qlen_max = q + k;
		if (eqs)
			eff->raise = true;
		if (over)
			call_rcu_overflow(rsp, cpu, l->tails[RCU_NEXT_TAIL] - 1, eff);
		t0 += k * step;
		n -= k;
	}
	RCUSIM_CHECK(rcu_segcblist_sane(l), "rcu_tree.cblist_layout");
	return 0;
}

/* ---- quiescent states --------------------------------------------------------------- */

/* rcu_momentary_eqs() (tree.c:370-379): a zero-length extended QS other CPUs
 * see in the watching counter. */
static void momentary_eqs(rcu_tree_data *rdp)
{
	assert(rdp->watching & 1);
	rdp->rcu_need_heavy_qs = false;
	rdp->watching += 2;
}

void rcu_tree_momentary_eqs(rcu_tree_state *rsp, int cpu)
{
	momentary_eqs(&rsp->rda[cpu]);
}

void rcu_tree_ct_pass(rcu_tree_state *rsp, int cpu)
{
	assert(rsp->rda[cpu].watching & 1);
	rsp->rda[cpu].watching += 2;
}

void rcu_tree_note_context_switch(rcu_tree_state *rsp, int cpu)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	rdp->cpu_no_qs = false; /* rcu_qs() */
	if (rsp->cfg.preempt_rcu)
		return; /* PREEMPT_RCU's (tree_plugin.h 6.12:323-373) reads no urgency */
	if (!rdp->rcu_urgent_qs)
		return;
	rdp->rcu_urgent_qs = false;
	if (rdp->rcu_need_heavy_qs)
		momentary_eqs(rdp);
}

void rcu_tree_all_qs(rcu_tree_state *rsp, int cpu)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	if (rsp->cfg.preempt_rcu)
		return; /* __cond_resched() calls it only #ifndef CONFIG_PREEMPT_RCU (core.c:7231-7234) */
	if (!rdp->rcu_urgent_qs)
		return;
	rdp->rcu_urgent_qs = false;
	if (rdp->rcu_need_heavy_qs)
		momentary_eqs(rdp);
	rdp->cpu_no_qs = false; /* rcu_qs() */
}

void rcu_tree_eqs_enter(rcu_tree_state *rsp, int cpu)
{
	assert(rsp->rda[cpu].watching & 1);
	rsp->rda[cpu].watching++;
}

void rcu_tree_eqs_exit(rcu_tree_state *rsp, int cpu)
{
	assert(!(rsp->rda[cpu].watching & 1));
	rsp->rda[cpu].watching++;
}

bool rcu_tree_pending(const rcu_tree_state *rsp, int cpu)
{
	const rcu_tree_data *rdp = &rsp->rda[cpu];
	bool gp_in_progress = rcu_tree_gp_in_progress(rsp);
	/* tree.c:4433-4451, past the stall, nocb and nohz_full checks. */
	if (rdp->core_needs_qs && !rdp->cpu_no_qs && gp_in_progress)
		return true; /* a QS to report */
	if (rcu_segcblist_ready_cbs(&rdp->cblist) && !rdp->offloaded)
		return true; /* callbacks to invoke (rcuo's if offloaded, :4438-4440) */
	if (!gp_in_progress && !rdp->offloaded &&
	    !rcu_segcblist_restempty(&rdp->cblist, RCU_NEXT_READY_TAIL))
		return true; /* RCU idle, NEXT needs a grace period (:4442-4446) */
	return rsp->node[rdp->leaf].gp_seq != rdp->gp_seq || rdp->gpwrap; /* a GP started or ended */
}

void rcu_tree_sched_clock_irq(rcu_tree_state *rsp, int cpu, bool user, bool reader, rcu_effect *eff)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	/* tree.c:2659-2666: urgency turns into need_resched in the kernel. */
	if (rdp->rcu_urgent_qs) {
		if (!user)
			eff->need_resched = true;
		rdp->rcu_urgent_qs = false;
	}
	/* rcu_flavor_sched_clock_irq(): PREEMPT_RCU (tree_plugin.h:730-747)
	 * rcu_qs() unless rcu_preempt_depth() or the preempt/softirq count;
	 * else (:975-991) from user mode or idle only. */
	if (rsp->cfg.preempt_rcu ? !reader : user)
		rdp->cpu_no_qs = false;
	if (rcu_tree_pending(rsp, cpu)) /* tree.c:2668-2669 */
		eff->raise = true;
}

void rcu_tree_reader_preempted(rcu_tree_state *rsp, int cpu, rcu_reader *r)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	rcu_tree_node *rnp = &rsp->node[rdp->leaf];
	assert(rsp->cfg.preempt_rcu && !r->queued);
	r->leaf = rdp->leaf;
	r->q_init = rnp->gp_inits;
	r->q_blocks = rcu_seq_state(rnp->gp_seq) && (rnp->qsmask & rdp->grpmask);
	r->queued = true;
	rnp->nblkd++;
	if (r->q_blocks)
		rnp->gp_blkd++;
	rsp->readers_blocked++;
}

/* rcu_report_qs_rsp() (tree.c:2265-2273): all QSes in; the GP kthread
 * (woken) ends the grace period. */
static bool report_qs_rsp(rcu_tree_state *rsp)
{
	assert(rcu_tree_gp_in_progress(rsp));
	rsp->gp_flags |= RCU_GP_FLAG_FQS;
	return true;
}

bool rcu_tree_report_qs_rnp(rcu_tree_state *rsp, uint64_t mask, int rnp_idx, uint64_t gps)
{
	rcu_tree_node *rnp = &rsp->node[rnp_idx];
	/* tree.c:2298-2342 */
	for (;;) {
		if ((!(rnp->qsmask & mask) && mask) || rnp->gp_seq != gps)
			return false; /* already reported, or that GP is over */
		rnp->qsmask &= ~mask;
		if (rnp->qsmask)
			return false; /* others still owe it at this level */
		if (rnp->gp_blkd)
			return false; /* readers preempted here still hold it (:2317-2322) */
		rnp->completedqs = rnp->gp_seq;
		mask = rnp->grpmask;
		if (rnp->parent < 0)
			break;
		rnp = &rsp->node[rnp->parent];
	}
	return report_qs_rsp(rsp);
}

bool rcu_tree_reader_blocks_gp(const rcu_tree_state *rsp, const rcu_reader *r)
{
	/* It blocks the one in progress if that one began after it queued
	 * (and adopted the list) or it queued owing that one. */
	const rcu_tree_node *rnp = &rsp->node[r->leaf];
	return r->queued && rcu_seq_state(rnp->gp_seq) && (r->q_init != rnp->gp_inits || r->q_blocks);
}

bool rcu_tree_reader_unlock(rcu_tree_state *rsp, rcu_reader *r)
{
	rcu_tree_node *rnp = &rsp->node[r->leaf];
	assert(r->queued && rnp->nblkd > 0);
	bool blocks = rcu_tree_reader_blocks_gp(rsp, r);
	r->queued = false;
	rnp->nblkd--;
	if (!blocks)
		return false;
	assert(rnp->gp_blkd > 0);
	rsp->readers_held_gp++;
	if (--rnp->gp_blkd)
		return false;
	rnp->boosting = false; /* boost_tasks ran off the list's end (:542-551) */
	if (rnp->qsmask)
		return false;
	/* rcu_report_unblock_qs_rnp() (tree.c:2353-2386). */
	rnp->completedqs = rnp->gp_seq;
	if (rnp->parent < 0)
		return report_qs_rsp(rsp);
	return rcu_tree_report_qs_rnp(rsp, rnp->grpmask, rnp->parent, rnp->gp_seq);
}

bool rcu_tree_report_qs_rdp(rcu_tree_state *rsp, int cpu)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	rcu_tree_node *rnp = &rsp->node[rdp->leaf];
	/* tree.c:2401-2440 */
	if (rdp->cpu_no_qs || rdp->gp_seq != rnp->gp_seq || rdp->gpwrap) {
		rdp->cpu_no_qs = true; /* that QS belonged to an earlier GP */
		return false;
	}
	rdp->core_needs_qs = false;
	if (!(rnp->qsmask & rdp->grpmask))
		return false;
	/* The GP cannot end before this report: classify callbacks for the
	 * next one (a wakeup cannot be needed, the kernel warns if it is);
	 * not an offloaded CPU's (:2426). */
	if (!rdp->offloaded)
		(void)rcu_tree_accelerate_cbs(rsp, rdp->leaf, cpu);
	rcu_tree_disable_urgency_upon_qs(rdp);
	return rcu_tree_report_qs_rnp(rsp, rdp->grpmask, rdp->leaf, rnp->gp_seq);
}

bool rcu_tree_check_quiescent_state(rcu_tree_state *rsp, int cpu)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	/* tree.c:2448-2472 */
	bool wake = rcu_tree_note_gp_changes(rsp, cpu);
	if (!rdp->core_needs_qs || rdp->cpu_no_qs)
		return wake;
	return rcu_tree_report_qs_rdp(rsp, cpu) || wake;
}

bool rcu_tree_core(rcu_tree_state *rsp, int cpu)
{
	/* rcu_core() (tree.c:2806-2816), not an offloaded CPU's callbacks (:2811) */
	bool wake = rcu_tree_check_quiescent_state(rsp, cpu);
	if (!rcu_tree_gp_in_progress(rsp) && !rsp->rda[cpu].offloaded &&
	    !rcu_segcblist_restempty(&rsp->rda[cpu].cblist, RCU_NEXT_READY_TAIL))
		wake |= rcu_tree_accelerate_cbs_unlocked(rsp, cpu);
	RCUSIM_CHECK(rcu_segcblist_sane(&rsp->rda[cpu].cblist), "rcu_tree.cblist_layout");
	return wake;
}

/* ---- invoking callbacks ------------------------------------------------------------------ */

int64_t rcu_tree_batch_limit(const rcu_tree_state *rsp, int cpu)
{
	const rcu_tree_data *rdp = &rsp->rda[cpu];
	int div = rsp->cfg.rcu_divisor;
	if (div == RCU_TREE_NO_DIVISOR)
		return rdp->blimit; /* before 5.4 */
	/* tree.c:2528-2531 (a negative divisor is the kernel's 7; -1 is ours). */
	div = div < 0 ? 7 : div > 62 ? 62 : div;
	int64_t pending = rcu_segcblist_seglen(&rdp->cblist, RCU_DONE_TAIL) >> div;
	return rdp->blimit > pending ? rdp->blimit : pending;
}

void rcu_tree_invoke_done(rcu_tree_state *rsp, int cpu, int64_t n, sim_time first_ns,
			  sim_time cost_ns, sim_hist *lat, int64_t elsewhere)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	rcu_segcblist *l = &rdp->cblist;
	const rcu_tree_cfg *c = &rsp->cfg;
	/* Each callback's latency from its call_rcu time; the rest go back to
	 * the front of DONE. */
	if (lat)
		rcu_segcblist_add_latencies(l, n, first_ns, cost_ns, lat);
	rcu_segcblist_remove_done(l, n);
	rdp->n_cbs_invoked += (uint64_t)n;
	rdp->batch_end_ns = first_ns + (sim_time)n * cost_ns;
	if (__builtin_expect(rdp->barrier_mark != RCU_TREE_NO_BARRIER, 0) &&
	    l->head >= rdp->barrier_mark) {
		/* rcu_barrier_callback(), right after the callback before it. */
		uint64_t k = rdp->barrier_mark - (l->head - (uint64_t)n);
		rdp->barrier_mark = RCU_TREE_NO_BARRIER;
		rsp->barrier_done(rsp->barrier_ctx, cpu, first_ns + (sim_time)k * cost_ns);
	}
	/* tree.c:2611-2620: restore blimit once the flood has drained; reset
	 * the overflow trigger. */
	int64_t count = rcu_segcblist_n_cbs(l) + elsewhere;
	if (rdp->blimit >= c->flood_blimit && count <= c->qlowmark)
		rdp->blimit = c->blimit;
	if (count == 0 && rdp->qlen_last_fqs_check != 0) {
		rdp->qlen_last_fqs_check = 0;
		rdp->n_force_qs_snap = rsp->n_force_qs;
	} else if (count < rdp->qlen_last_fqs_check - c->qhimark) {
		rdp->qlen_last_fqs_check = count;
	}
}

int64_t rcu_tree_do_batch(rcu_tree_state *rsp, int cpu, const rcu_tree_batch *b, sim_hist *lat,
			  rcu_tree_batch_out *out)
{
	rcu_tree_data *rdp = &rsp->rda[cpu];
	rcu_segcblist *l = &rdp->cblist;
	const rcu_tree_cfg *c = &rsp->cfg;
	memset(out, 0, sizeof(*out));
	if (!rcu_segcblist_ready_cbs(l)) /* tree.c:2505-2513 */
		return 0;
	int64_t pending = rcu_segcblist_seglen(l, RCU_DONE_TAIL);
	int64_t bl = rcu_tree_batch_limit(rsp, cpu);
	out->bl = bl;
	/* How many run (tree.c:2555-2599), worked out before the loop: the
	 * count check and the time check both fall after a callback, so the
	 * batch ends at the first count either rule stops. */
	int64_t n = pending;
	out->stop = RCU_TREE_STOP_EMPTY;
	if (b->where == RCU_TREE_SOFTIRQ && (b->need_resched || !b->idle_task) && bl < n) {
		n = bl; /* count >= bl && (need_resched() || !is_idle_task(current)) */
		out->stop = b->idle_task ? RCU_TREE_STOP_RESCHED : RCU_TREE_STOP_COUNT;
	}
	/* The time limit (tree.c:2532-2541), in softirq and rcuc, when bl >
	 * 100: local_clock() >= tlimit checked when count is a multiple of 32
	 * (rcu_do_batch_check_time(), tree.c:2475-2485). Callback k (from 1)
	 * ends at first_ns + k cost_ns; tlimit is first_ns + rrn. */
	if (bl > 100 && c->rcu_resched_ns > 0) {
		int64_t rrn = c->rcu_resched_ns < NSEC_PER_MSEC ? NSEC_PER_MSEC
			      : c->rcu_resched_ns > NSEC_PER_SEC ? NSEC_PER_SEC : c->rcu_resched_ns;
		out->time_limited = true;
		if (b->cost_ns > 0) {
			int64_t k = (rrn + b->cost_ns - 1) / b->cost_ns; /* first k with k cost >= rrn */
			k = (k + 31) / 32 * 32;
			if (k < n) {
				n = k;
				out->stop = RCU_TREE_STOP_TIME;
			}
		}
	}
	rcu_tree_invoke_done(rsp, cpu, n, b->first_ns, b->cost_ns, lat, 0);
	out->more = rcu_segcblist_ready_cbs(l);
	RCUSIM_CHECK(rcu_segcblist_sane(l), "rcu_tree.cblist_layout");
	return n;
}

int rcu_tree_invoked_objs(const rcu_tree_state *rsp, int cpu, int64_t n, const uint32_t *runs[2],
			  size_t lens[2])
{
	return rcu_segcblist_removed_objs(&rsp->rda[cpu].cblist, n, runs, lens);
}

bool rcu_tree_sane(const rcu_tree_state *rsp)
{
	bool gp = rcu_tree_gp_in_progress(rsp);
	for (int n = 0; n < rsp->nnodes; n++) {
		const rcu_tree_node *rnp = &rsp->node[n];
		if ((rnp->qsmask & ~rnp->qsmaskinit) || (rnp->cbovldmask & ~rnp->qsmaskinit))
			return false;
		if (rnp->qsmask && (!gp || rnp->gp_seq != rsp->gp_seq))
			return false;
		/* A node with its qsmask empty and no preempted reader holding
		 * the GP has reported to its parent. */
		if (gp && rnp->gp_seq == rsp->gp_seq && rnp->parent >= 0 && !rnp->qsmask &&
		    !rnp->gp_blkd && (rsp->node[rnp->parent].qsmask & rnp->grpmask))
			return false;
		/* The readers a GP waits for are among those listed, and only a
		 * GP in progress here waits for any; only leaves list them. */
		if (rnp->nblkd < 0 || rnp->gp_blkd < 0 || rnp->gp_blkd > rnp->nblkd ||
		    (rnp->gp_blkd && !rcu_seq_state(rnp->gp_seq)) || (rnp->boosting && !rnp->gp_blkd) ||
		    (rnp->nblkd && n < rsp->level_first[rsp->nlevels - 1]))
			return false;
	}
	for (int cpu = 0; cpu < rsp->ncpus; cpu++)
		if (!rcu_segcblist_sane(&rsp->rda[cpu].cblist))
			return false;
	return true;
}
