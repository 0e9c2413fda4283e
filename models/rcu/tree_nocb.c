/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tree_nocb.c - offloaded (rcu_nocbs) and lazy callbacks after Linux 6.12
 * (kernel/rcu/tree_nocb.h; tree.h's nocb fields; tree.c's __call_rcu_common
 * and rcu_do_batch; lib/math/int_sqrt.c;
 * kernel/time/timer.c's wheel for when nocb_timer fires). Every rule names
 * the function and 6.12 line it follows; the code is ours. tree_nocb.h lists
 * the API; the tree flavor (tree_flavor.c, tree_nocb_flavor.c) drives it in a run.
 *
 * What it deliberately leaves out, and why:
 * - CPU hotplug and runtime (de-)offloading (rcu_nocb_cpu_offload, the
 *   nocb_toggling_rdp hand-over in nocb_gp_wait): every CPU is online from
 *   boot and keeps its state, as in tree.c.
 * - rcu_nocb_poll: the kthreads sleep and are woken (the default).
 * - Early boot: the bypass is not used before the scheduler runs and
 *   rcu_async_should_hurry() makes every call_rcu() a hurry one until
 *   rcu_end_inkernel_boot(); the model starts after both.
 * - CONFIG_RCU_NOCB_CPU_DEFAULT_ALL: rcu.nocbs = all. nohz_full='s CPUs
 *   (irq.nohz_full) are added to the mask as rcu_init_nohz() adds them.
 * - The "rcu-lazy" shrinker (tree_nocb.h:1198-1282) and rcu_barrier(): only
 *   the flush they use is here (rcu_nocb_flush_bypass); the shrinker's pass
 *   is the tree flavor's (tree_nocb_flavor.c, rcu.lazy_shrink_at).
 * - Locks: every trylock succeeds (rcu_nocb_try_flush_bypass always
 *   flushes, rcu_advance_cbs_nowake and nocb_cb_wait's advance always get
 *   the leaf), and each function is atomic.
 * - Trace events, rcu_nocb_gp_kthread's cond_resched_tasks_rcu_qs() between
 *   passes (the caller's scheduling), kthread creation failure.
 */
#include "rcu/tree_nocb.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "cpulist.h"
#include "jiffies.h"

/* ---- configuration and groups ------------------------------------------------------- */

void rcu_nocb_cfg_default(rcu_nocb_cfg *cfg)
{
	*cfg = (rcu_nocb_cfg){
		.gp_stride = -1,              /* rcu_nocb_gp_stride (tree_nocb.h:1435) */
		.nobypass_lim_per_jiffy = -1, /* 16 * 1000 / HZ (tree_nocb.h:85) */
		.jiffies_lazy_flush = -1,     /* LAZY_FLUSH_JIFFIES = 10 * HZ (tree_nocb.h:245-246) */
		.lazy = false,                /* CONFIG_RCU_LAZY is default n (kernel/rcu/Kconfig:313-316) */
		.lazy_defer_reads_gp = false, /* 6.12's wake_nocb_gp_defer() (tree_nocb.h:278-279) */
	};
}

uint64_t rcu_nocb_int_sqrt(uint64_t x)
{
	/* int_sqrt() (lib/math/int_sqrt.c:20-40): shift and subtract. */
	uint64_t b, m, y = 0;
	if (x <= 1)
		return x;
	m = UINT64_C(1) << ((63 - __builtin_clzll(x)) & ~1);
	while (m != 0) {
		b = y + m;
		y >>= 1;
		if (x >= b) {
			x -= b;
			y += m;
		}
		m >>= 2;
	}
	return y;
}

int rcu_nocb_default_stride(int ncpus)
{
	assert(ncpus >= 1);
	return (int)((uint64_t)ncpus / rcu_nocb_int_sqrt((uint64_t)ncpus));
}

int rcu_nohz_full_mask(const sim_params *p, int ncpus, bool *mask, int *nfull, char *err, size_t errlen)
{
	char a[512], why[256];
	const char *list = sim_params_text(p, P_IRQ_NOHZ_FULL);
	*nfull = 0;
	memset(mask, 0, (size_t)ncpus * sizeof(*mask));
	if (!strcmp(list, "none"))
		return 0;
	if (sim_cpulist_parse("nohz_full", list, ncpus, mask, why, sizeof(why))) {
		sim_params_where(p, P_IRQ_NOHZ_FULL, a, sizeof(a));
		snprintf(err, errlen, "%s: %s", a, why);
		return SIM_EINPUT;
	}
	mask[0] = false; /* tick_nohz_init() (tick-sched.c 6.12:651-659) */
	for (int i = 0; i < ncpus; i++)
		*nfull += mask[i];
	return 0;
}

int rcu_nocb_cfg_from_params(rcu_nocb_cfg *cfg, bool *mask, int *noffloaded, const sim_params *p,
			     char *err, size_t errlen)
{
	char a[512], why[256];
	int ncpus = machine_ncpus(p);
	int64_t hz = sim_params_int(p, P_MACHINE_HZ);
	const char *list = sim_params_text(p, P_RCU_NOCBS);
	rcu_nocb_cfg_default(cfg);
	*noffloaded = 0;
	memset(mask, 0, (size_t)ncpus * sizeof(*mask));
	if (strcmp(list, "none") && sim_cpulist_parse("rcu_nocbs", list, ncpus, mask, why, sizeof(why))) {
		sim_params_where(p, P_RCU_NOCBS, a, sizeof(a));
		snprintf(err, errlen, "%s: %s", a, why);
		return SIM_EINPUT;
	}
	int nfull;
	bool *full = malloc((size_t)ncpus * sizeof(*full));
	if (!full) {
		snprintf(err, errlen, "out of memory");
		return SIM_ENOMEM;
	}
	int rc = rcu_nohz_full_mask(p, ncpus, full, &nfull, err, errlen);
	for (int i = 0; i < ncpus; i++) {
		mask[i] |= full[i]; /* rcu_init_nohz() (tree_nocb.h 6.12:1292-1309) */
		*noffloaded += mask[i];
	}
	free(full);
	if (rc)
		return rc;
	if (!sim_params_is_auto(p, P_RCU_NOCB_GP_STRIDE))
		cfg->gp_stride = (int)sim_params_int(p, P_RCU_NOCB_GP_STRIDE);
	cfg->lazy = sim_params_int(p, P_RCU_LAZY) != 0;
	/* rcu_set_jiffies_lazy_flush() takes jiffies: whole ones here. */
	cfg->jiffies_lazy_flush = sim_params_int(p, P_RCU_LAZY_FLUSH) * hz / 1000000000;
	if (cfg->jiffies_lazy_flush < 1) {
		sim_params_where(p, P_RCU_LAZY_FLUSH, a, sizeof(a));
		snprintf(err, errlen, "%s: %s is less than one jiffy at machine.hz = %lld", a,
			 sim_params_text(p, P_RCU_LAZY_FLUSH), (long long)hz);
		return SIM_EINPUT;
	}
	return 0;
}

/* The knobs of offloading and lazy callbacks, with rcu.flavor = tree: read
 * by rcu_nocb_cfg_from_params() and the flavor (tree_nocb_flavor.c:
 * rcu.lazy_shrink_at; the workload's call site, rcu.call_site). */
static const sim_knob nocb_knob[] = {
	{ P_RCU_NOCBS, SIM_ALWAYS },
	{ P_IRQ_NOHZ_FULL, SIM_ALWAYS },
	{ P_RCU_NOCB_GP_STRIDE, SIM_ALWAYS },
	{ P_RCU_LAZY, SIM_ALWAYS },
	{ P_RCU_LAZY_FLUSH, { P_RCU_LAZY, "yes", NULL } },
	{ P_RCU_LAZY_SHRINK_AT, { P_RCU_LAZY, "yes", NULL } },
	{ P_RCU_CALL_SITE, { P_RCU_LAZY, "yes", NULL } },
};
const sim_knobs rcu_nocb_knobs = { { P_RCU_FLAVOR, "tree", NULL }, nocb_knob,
				   sizeof(nocb_knob) / sizeof(nocb_knob[0]) };

int rcu_nocb_validate(const sim_params *p, char *err, size_t errlen)
{
	/* The knobs that act only on offloaded CPUs. */
	static const int need_offload[] = { P_RCU_NOCB_GP_STRIDE, P_RCU_LAZY, P_RCU_LAZY_FLUSH,
					    P_RCU_LAZY_SHRINK_AT, P_RCU_CALL_SITE };
	char a[512];
	rcu_nocb_cfg cfg;
	int noff;
	bool *mask = malloc((size_t)machine_ncpus(p) * sizeof(*mask));
	if (!mask) {
		snprintf(err, errlen, "out of memory");
		return SIM_ENOMEM;
	}
	int rc = rcu_nocb_cfg_from_params(&cfg, mask, &noff, p, err, errlen);
	free(mask);
	if (rc || noff)
		return rc;
	for (size_t i = 0; i < sizeof(need_offload) / sizeof(need_offload[0]); i++) {
		if (!sim_params_set_by_scenario(p, (size_t)need_offload[i]))
			continue;
		sim_params_where(p, (size_t)need_offload[i], a, sizeof(a));
		snprintf(err, errlen, "%s: applies only to offloaded CPUs, and rcu.nocbs names none "
			 "(%s, %s)", a, sim_params_text(p, P_RCU_NOCBS), sim_params_origin(p, P_RCU_NOCBS));
		return SIM_EINPUT;
	}
	return 0;
}

void rcu_nocb_destroy(rcu_nocb_state *st)
{
	if (!st)
		return;
	free(st->grp);
	free(st->nd);
	free(st->wake_cpus);
	free(st);
}

int rcu_nocb_create(rcu_nocb_state **out, rcu_tree_state *rsp, const rcu_nocb_cfg *cfg,
		    const bool *mask, char *err, size_t errlen)
{
	*out = NULL;
	int hz = rsp->cfg.hz, n = rsp->ncpus;
	if ((cfg->gp_stride < 1 && cfg->gp_stride != -1) || cfg->nobypass_lim_per_jiffy < -1 ||
	    cfg->jiffies_lazy_flush < -1) {
		snprintf(err, errlen, "nocb: rcu_nocb_gp_stride %d, nocb_nobypass_lim_per_jiffy %lld, "
			 "jiffies_lazy_flush %lld: need a stride >= 1 (or -1) and values >= 0 (or -1)",
			 cfg->gp_stride, (long long)cfg->nobypass_lim_per_jiffy,
			 (long long)cfg->jiffies_lazy_flush);
		return SIM_EINPUT;
	}
	rcu_nocb_state *st = calloc(1, sizeof(*st));
	if (!st)
		goto nomem;
	st->cfg = *cfg;
	st->rsp = rsp;
	st->ncpus = n;
	/* rcu_organize_nocb_kthreads() (tree_nocb.h:1454-1457). */
	st->stride = cfg->gp_stride == -1 ? rcu_nocb_default_stride(n) : cfg->gp_stride;
	st->lim = cfg->nobypass_lim_per_jiffy == -1 ? 16 * 1000 / hz : cfg->nobypass_lim_per_jiffy;
	st->lazy_flush = cfg->jiffies_lazy_flush == -1 ? 10 * (int64_t)hz : cfg->jiffies_lazy_flush;
	st->ngroups = (n + st->stride - 1) / st->stride;
	st->grp = calloc((size_t)st->ngroups, sizeof(*st->grp));
	st->nd = calloc((size_t)n, sizeof(*st->nd));
	st->wake_cpus = calloc((size_t)(st->stride < n ? st->stride : n), sizeof(*st->wake_cpus));
	if (!st->grp || !st->nd || !st->wake_cpus)
		goto nomem;
	/* Groups of consecutive CPU numbers, each led by its first CPU: a CPU
	 * at or past nl starts one and sets nl = DIV_ROUND_UP(cpu + 1, ls) * ls
	 * (tree_nocb.h:1464-1490), so group g is [g ls, (g + 1) ls). Every CPU
	 * has its nocb_gp_rdp; only offloaded ones join the leader's list. */
	for (int g = 0; g < st->ngroups; g++) {
		rcu_nocb_group *grp = &st->grp[g];
		grp->lo = grp->leader = g * st->stride;
		grp->hi = grp->lo + st->stride - 1 < n - 1 ? grp->lo + st->stride - 1 : n - 1;
		/* After boot: each rcuog made one pass over nothing and sleeps
		 * for callbacks (nocb_gp_sleep set, tree_nocb.h:827). */
		grp->gp_sleep = true;
		grp->wait = RCU_NOCB_GP_WAIT_CBS;
		grp->gp_seq = UINT64_MAX;
	}
	for (int cpu = 0; cpu < n; cpu++) {
		rcu_nocb_data *nd = &st->nd[cpu];
		const rcu_segcblist *l = &rsp->rda[cpu].cblist;
		assert(rcu_segcblist_empty(l));
		nd->offloaded = mask && mask[cpu];
		nd->group = cpu / st->stride;
		nd->bypass_tail = l->tails[RCU_NEXT_TAIL];
		/* The kernel's zeroed fields meet jiffies that start 5 minutes
		 * before 0 (INITIAL_JIFFIES); here jiffies start at 0, so "never"
		 * is -1. */
		nd->nobypass_last = -1;
		nd->gp_adv_time = -1;
		nd->cb_sleep = true; /* rcuo ran once and found nothing (tree_nocb.h:923-925) */
		if (nd->offloaded)
			st->grp[nd->group].noffloaded++;
	}
	*out = st;
	return 0;
nomem:
	rcu_nocb_destroy(st);
	snprintf(err, errlen, "nocb: out of memory");
	return SIM_ENOMEM;
}

/* ---- the ring shared by the main list and the bypass ------------------------------- */

/* rcu_cblist_enqueue(&rdp->nocb_bypass) (rcu_segcblist.c:26) with the
 * ->cblist.len increment that precedes it (tree_nocb.h:485-486). The ring
 * has room (rcu_nocb_call_rcu made it). */
static void bypass_enqueue(rcu_nocb_state *st, int cpu, sim_time t, uint32_t obj)
{
	rcu_segcblist *l = &st->rsp->rda[cpu].cblist;
	rcu_nocb_data *nd = &st->nd[cpu];
	assert(t >= 0 && nd->bypass_tail - l->head < l->cap);
	if (l->runs) {
		int rc = rcu_segcblist_run_append(l, nd->bypass_tail, t, 0, 1);
		assert(rc == 0); /* a run's room was made */
		(void)rc;
		nd->bypass_tail++;
		nd->n_bypassed++;
		return;
	}
	rcu_segcblist_put(l, nd->bypass_tail, t, obj);
	nd->bypass_tail++;
	nd->n_bypassed++;
}

int64_t rcu_nocb_flush_bypass(rcu_nocb_state *st, int cpu, int64_t jiffies)
{
	rcu_nocb_data *nd = &st->nd[cpu];
	rcu_segcblist *l = &st->rsp->rda[cpu].cblist;
	if (!nd->offloaded) /* tree_nocb.h:355-356 */
		return 0;
	/* rcu_nocb_do_flush_bypass() (:308-342) without a callback:
	 * rcu_cblist_flush_enqueue() and rcu_segcblist_insert_pend_cbs()
	 * (rcu_segcblist.c:454) append the bypass to NEXT. */
	int64_t n = (int64_t)(nd->bypass_tail - l->tails[RCU_NEXT_TAIL]);
	l->tails[RCU_NEXT_TAIL] = nd->bypass_tail;
	nd->lazy_len = 0;
	nd->bypass_first = jiffies;
	nd->n_flushes += n > 0;
	return n;
}

/* rcu_segcblist_nextgp() (rcu_segcblist.c:312): the GP WAIT waits for
 * (read even when WAIT is empty and NEXT is not, as the kernel does). */
static bool segcblist_nextgp(const rcu_segcblist *l, uint64_t *seq)
{
	if (!rcu_segcblist_pend_cbs(l))
		return false;
	*seq = l->gp_seq[RCU_WAIT_TAIL];
	return true;
}

/* Is the next GP of @cpu's callbacks over by its leaf? */
static bool nextgp_done(const rcu_nocb_state *st, int cpu)
{
	const rcu_tree_state *rsp = st->rsp;
	uint64_t cur;
	return segcblist_nextgp(&rsp->rda[cpu].cblist, &cur) &&
	       rcu_seq_done(rsp->node[rsp->rda[cpu].leaf].gp_seq, cur);
}

/* rcu_advance_cbs_nowake() (tree.c:1234-1244): advance only while the
 * leaf sees a GP running (then no new GP can need a wakeup). */
static void advance_cbs_nowake(rcu_nocb_state *st, int cpu)
{
	rcu_tree_state *rsp = st->rsp;
	if (!rcu_seq_state(rsp->node[rsp->rda[cpu].leaf].gp_seq))
		return;
	bool wake = rcu_tree_advance_cbs(rsp, cpu);
	assert(!wake); /* WARN_ON_ONCE in the kernel */
	(void)wake;
}

/* call_rcu's advance after a flush or an overflow (tree_nocb.h:467-472,
 * 578-583): once per jiffy, when the next GP is already over. */
static void call_rcu_advance(rcu_nocb_state *st, int cpu, int64_t jiffies)
{
	rcu_nocb_data *nd = &st->nd[cpu];
	if (jiffies != nd->gp_adv_time && nextgp_done(st, cpu)) {
		advance_cbs_nowake(st, cpu);
		nd->gp_adv_time = jiffies;
	}
}

/* ---- waking rcuog -------------------------------------------------------------------- */

/* mod_timer(&rdp_gp->nocb_timer, @expires). */
static void gp_mod_timer(rcu_nocb_state *st, int g, int64_t expires, rcu_nocb_effect *eff)
{
	st->grp[g].timer_pending = true;
	st->grp[g].timer_expires = expires;
	eff->timer_grp = g;
}

/* __wake_nocb_gp() (tree_nocb.h:193-223) on group @g: the kernel's needwake. */
static bool wake_nocb_gp_grp(rcu_nocb_state *st, int g, bool force, rcu_nocb_effect *eff)
{
	rcu_nocb_group *grp = &st->grp[g];
	bool needwake = false;
	if (grp->defer_wakeup > RCU_NOCB_WAKE_NOT) { /* :207-210: del_timer() */
		grp->defer_wakeup = RCU_NOCB_WAKE_NOT;
		if (grp->timer_pending) {
			grp->timer_pending = false;
			eff->timer_grp = g;
		}
	}
	if (force || grp->gp_sleep) { /* :212-215 */
		grp->gp_sleep = false;
		needwake = true;
	}
	/* swake_up_one_online(&rdp_gp->nocb_gp_wq) (:219) reaches rcuog only
	 * when it sleeps there (nocb_gp_sleep()), not in a GP wait. */
	if (needwake && grp->wait == RCU_NOCB_GP_WAIT_CBS)
		eff->wake_rcuog = g;
	return needwake;
}

bool rcu_nocb_wake_nocb_gp(rcu_nocb_state *st, int cpu, bool force, rcu_nocb_effect *eff)
{
	return wake_nocb_gp_grp(st, st->nd[cpu].group, force, eff);
}

void rcu_nocb_wake_defer(rcu_nocb_state *st, int cpu, int waketype, int64_t jiffies,
			 rcu_nocb_effect *eff)
{
	int g = st->nd[cpu].group;
	rcu_nocb_group *grp = &st->grp[g];
	assert(waketype > RCU_NOCB_WAKE_NOT && waketype <= RCU_NOCB_WAKE_FORCE);
	/* wake_nocb_gp_defer() (tree_nocb.h:266-295). 6.12 tests the caller's
	 * rdp->nocb_defer_wakeup (:279), which only a leader's rdp ever has
	 * set: from any other CPU of the group a LAZY deferral always re-arms
	 * the timer and overrides a pending WAKE or FORCE. 6.19 tests rdp_gp's. */
	int mine = (st->cfg.lazy_defer_reads_gp || cpu == grp->leader) ? grp->defer_wakeup
									  : RCU_NOCB_WAKE_NOT;
	if (waketype == RCU_NOCB_WAKE_LAZY && mine == RCU_NOCB_WAKE_NOT) {
		gp_mod_timer(st, g, jiffies + st->lazy_flush, eff);
		grp->defer_wakeup = waketype;
	} else if (waketype == RCU_NOCB_WAKE_BYPASS) {
		gp_mod_timer(st, g, jiffies + 2, eff); /* bypass overrides earlier deferrals */
		grp->defer_wakeup = waketype;
	} else {
		if (grp->defer_wakeup < RCU_NOCB_WAKE)
			gp_mod_timer(st, g, jiffies + 1, eff);
		if (grp->defer_wakeup < waketype)
			grp->defer_wakeup = waketype;
	}
}

bool rcu_nocb_need_deferred_wakeup(const rcu_nocb_state *st, int cpu, int level)
{
	const rcu_nocb_group *grp = &st->grp[st->nd[cpu].group];
	int mine = cpu == grp->leader ? grp->defer_wakeup : RCU_NOCB_WAKE_NOT;
	return mine >= level;
}

/* do_nocb_deferred_wakeup_common() (tree_nocb.h:959-977) on group @g. */
static bool deferred_wakeup_common(rcu_nocb_state *st, int g, int level, rcu_nocb_effect *eff)
{
	int ndw = st->grp[g].defer_wakeup;
	if (ndw < level)
		return false;
	return wake_nocb_gp_grp(st, g, ndw == RCU_NOCB_WAKE_FORCE, eff);
}

bool rcu_nocb_do_deferred_wakeup(rcu_nocb_state *st, int cpu, rcu_nocb_effect *eff)
{
	/* do_nocb_deferred_wakeup() (tree_nocb.h:998-1008): the group's level. */
	return deferred_wakeup_common(st, st->nd[cpu].group, RCU_NOCB_WAKE, eff);
}

void rcu_nocb_timer(rcu_nocb_state *st, int g, rcu_nocb_effect *eff)
{
	/* do_nocb_deferred_wakeup_timer() (tree_nocb.h:980-991). */
	assert(st->grp[g].timer_pending);
	st->grp[g].timer_pending = false;
	eff->timer_grp = g;
	(void)deferred_wakeup_common(st, g, RCU_NOCB_WAKE_BYPASS, eff);
}

int64_t rcu_nocb_timer_fire_jiffies(int64_t expires, int64_t clk, int hz)
{
	/* kernel/time/timer.c:154-182: LVL_CLK_SHIFT 3, LVL_BITS 6, LVL_DEPTH
	 * 9 above HZ 100 (else 8); LVL_START(n) = 63 << 3 (n - 1). */
	const int depth = hz > 100 ? 9 : 8;
#define LVL_START(n) ((INT64_C(63)) << (3 * ((n) - 1)))
	int64_t delta = expires - clk;
	int lvl;
	if (delta < 0) /* :606-608: already due, fires at the next tick of clk */
		return clk;
	for (lvl = 0; lvl < depth - 1; lvl++)
		if (delta < LVL_START(lvl + 1))
			break;
	if (lvl == depth - 1 && delta >= LVL_START(depth)) /* :612-616: capped */
		expires = clk + LVL_START(depth) - (INT64_C(1) << (3 * (depth - 1)));
#undef LVL_START
	/* calc_index() (:567-582): round up to the level's granularity,
	 * strictly later than expires. */
	return ((expires >> (3 * lvl)) + 1) << (3 * lvl);
}

/* ---- call_rcu ----------------------------------------------------------------------- */

/* check_cb_ovld() (tree.c:3047-3058) with ->cblist.len, which on an
 * offloaded CPU counts the bypass. */
static void check_cb_ovld(rcu_nocb_state *st, int cpu)
{
	rcu_tree_state *rsp = st->rsp;
	rcu_tree_data *rdp = &rsp->rda[cpu];
	rcu_tree_node *rnp = &rsp->node[rdp->leaf];
	if (rsp->cfg.qovld <= 0)
		return;
	if (rcu_nocb_len(st, cpu) >= rsp->cfg.qovld)
		rnp->cbovldmask |= rdp->grpmask;
	else
		rnp->cbovldmask &= ~rdp->grpmask;
}

/* __call_rcu_nocb_wake() (tree_nocb.h:526-599) on @cpu at @jiffies. */
static void call_rcu_nocb_wake(rcu_nocb_state *st, int cpu, bool was_alldone, bool irqs_disabled,
			       int64_t jiffies, rcu_nocb_effect *eff)
{
	rcu_tree_data *rdp = &st->rsp->rda[cpu];
	rcu_nocb_data *nd = &st->nd[cpu];
	int64_t len = rcu_nocb_len(st, cpu), bypass_len = rcu_nocb_bypass_len(st, cpu);
	if (was_alldone) {
		rdp->qlen_last_fqs_check = len;
		if (nd->lazy_len && bypass_len == nd->lazy_len) /* lazy only: :553-556 */
			rcu_nocb_wake_defer(st, cpu, RCU_NOCB_WAKE_LAZY, jiffies, eff);
		else if (!irqs_disabled) /* :557-562 */
			(void)rcu_nocb_wake_nocb_gp(st, cpu, false, eff);
		else /* :563-573 */
			rcu_nocb_wake_defer(st, cpu, RCU_NOCB_WAKE, jiffies, eff);
	} else if (len > rdp->qlen_last_fqs_check + st->rsp->cfg.qhimark) {
		/* Many callbacks queued (:574-594). */
		rdp->qlen_last_fqs_check = len;
		call_rcu_advance(st, cpu, jiffies);
		if ((nd->cb_sleep || !rcu_segcblist_ready_cbs(&rdp->cblist)) &&
		    !st->grp[nd->group].timer_pending)
			rcu_nocb_wake_defer(st, cpu, RCU_NOCB_WAKE_FORCE, jiffies, eff);
	}
}

/* rcu_nocb_try_bypass() (tree_nocb.h:393-518) after early boot. True if
 * the callback was queued (bypass, or with a flush); false: the caller
 * enqueues it onto ->cblist, *was_alldone set. */
static bool try_bypass(rcu_nocb_state *st, int cpu, sim_time at, int64_t j, uint32_t obj, bool lazy,
		       bool irqs_disabled, bool *was_alldone, rcu_nocb_effect *eff,
		       rcu_nocb_where *where, int64_t *flushed)
{
	rcu_segcblist *l = &st->rsp->rda[cpu].cblist;
	rcu_nocb_data *nd = &st->nd[cpu];
	int64_t ncbs = rcu_nocb_bypass_len(st, cpu);
	bool bypass_is_lazy = ncbs == nd->lazy_len;
	int64_t lim = st->lim, c;
	/* The allowance (:420-433): counted per jiffy, and at a new jiffy the
	 * count drops by one jiffy's worth (to 0 if below it, at most lim). */
	if (j == nd->nobypass_last) {
		c = nd->nobypass_count + 1;
	} else {
		nd->nobypass_last = j;
		c = nd->nobypass_count - lim;
		if (nd->nobypass_count < lim)
			c = 0;
		else if (c > lim)
			c = lim;
	}
	nd->nobypass_count = c;
	/* Few enqueues this jiffy and not lazy: flush the bypass, then the
	 * caller enqueues directly (:438-449). */
	if (nd->nobypass_count < lim && !lazy) {
		*was_alldone = !rcu_segcblist_pend_cbs(l);
		*flushed = rcu_nocb_flush_bypass(st, cpu, j);
		return false;
	}
	/* The bypass used too long or too full: flush it (:453-480). */
	if ((ncbs && !bypass_is_lazy && j != nd->bypass_first) ||
	    (ncbs && bypass_is_lazy && time_after(j, nd->bypass_first + st->lazy_flush)) ||
	    ncbs >= st->rsp->cfg.qhimark) {
		*was_alldone = !rcu_segcblist_pend_cbs(l);
		if (!ncbs) /* rcu_nocb_do_flush_bypass() with a callback and nothing to flush (:317-320) */
			return false;
		/* rcu_nocb_do_flush_bypass(rdp, rhp, j, lazy) (:321-341): a lazy
		 * callback goes into the bypass first and is flushed with it; a
		 * non-lazy one is left as the bypass's only callback
		 * (rcu_cblist_flush_enqueue, rcu_segcblist.c:43-61). */
		if (lazy) {
			bypass_enqueue(st, cpu, at, obj);
			*flushed = rcu_nocb_flush_bypass(st, cpu, j);
		} else {
			*flushed = rcu_nocb_flush_bypass(st, cpu, j);
			bypass_enqueue(st, cpu, at, obj);
		}
		*where = RCU_NOCB_FLUSHED;
		call_rcu_advance(st, cpu, j);
		call_rcu_nocb_wake(st, cpu, *was_alldone, irqs_disabled, j, eff);
		return true;
	}
	/* Into the bypass (:482-495). */
	bypass_enqueue(st, cpu, at, obj);
	if (lazy)
		nd->lazy_len++;
	if (!ncbs)
		nd->bypass_first = j;
	*where = RCU_NOCB_BYPASS;
	/* The first bypass callback, or the first non-lazy one after lazy
	 * ones, wakes rcuog if ->cblist has nothing pending (:504-516). */
	if ((!ncbs || (bypass_is_lazy && !lazy)) && !rcu_segcblist_pend_cbs(l))
		call_rcu_nocb_wake(st, cpu, true, irqs_disabled, j, eff);
	return true;
}

int rcu_nocb_call_rcu(rcu_nocb_state *st, int cpu, sim_time at, int64_t jiffies, uint32_t obj,
		      bool lazy_in, bool irqs_disabled, rcu_nocb_effect *eff, rcu_nocb_where *where,
		      int64_t *flushed)
{
	rcu_tree_data *rdp = &st->rsp->rda[cpu];
	rcu_segcblist *l = &rdp->cblist;
	rcu_nocb_data *nd = &st->nd[cpu];
	rcu_nocb_where w = RCU_NOCB_DIRECT;
	int64_t fl = 0;
	bool was_alldone;
	assert(nd->offloaded && at >= 0);
	/* Room for one more in the ring first, so that nothing below fails. */
	if ((nd->bypass_tail - l->head == l->cap && rcu_segcblist_grow(l, nd->bypass_tail)) ||
	    rcu_segcblist_run_reserve(l))
		return SIM_ENOMEM;
	/* __call_rcu_common() (tree.c:3089, 3102-3105). */
	bool lazy = lazy_in && st->cfg.lazy;
	check_cb_ovld(st, cpu);
	if (!try_bypass(st, cpu, at, jiffies, obj, lazy, irqs_disabled, &was_alldone, eff, &w, &fl)) {
		/* call_rcu_nocb() (tree_nocb.h:606-610): rcutree_enqueue(). */
		assert(rcu_nocb_bypass_len(st, cpu) == 0);
		int rc = rcu_segcblist_enqueue(l, at, obj);
		assert(rc == 0); /* the ring has room */
		(void)rc;
		nd->bypass_tail = l->tails[RCU_NEXT_TAIL];
		w = RCU_NOCB_DIRECT;
		call_rcu_nocb_wake(st, cpu, was_alldone, irqs_disabled, jiffies, eff);
	}
	int64_t n = rcu_nocb_len(st, cpu);
	if (n > rdp->qlen_max)
		rdp->qlen_max = n;
	if (where)
		*where = w;
	if (flushed)
		*flushed = fl;
	RCUSIM_CHECK(rcu_segcblist_sane(l), "rcu_nocb.cblist_layout");
	return 0;
}

int64_t rcu_nocb_bypass_n(rcu_nocb_state *st, int cpu, sim_time t0, sim_time step, int64_t n,
			  int64_t jiffies, bool lazy_in)
{
	rcu_tree_data *rdp = &st->rsp->rda[cpu];
	rcu_segcblist *l = &rdp->cblist;
	rcu_nocb_data *nd = &st->nd[cpu];
	int64_t ncbs = rcu_nocb_bypass_len(st, cpu), qhimark = st->rsp->cfg.qhimark;
	bool lazy = lazy_in && st->cfg.lazy, bypass_is_lazy = ncbs == nd->lazy_len;
	assert(nd->offloaded && t0 >= 0 && step >= 0);
	/* What would make the first call do more than join the bypass, in
	 * try_bypass()'s order: the allowance (a new jiffy's count, or still
	 * under it and not lazy), a flush (too long or too full), the
	 * bypass's first callback or the first non-lazy one after lazy ones
	 * (a wakeup). With the jiffy and the bypass's age fixed, the next
	 * calls meet the same tests until the bypass reaches qhimark. */
	if (n <= 0 || !ncbs || jiffies != nd->nobypass_last ||
	    (!lazy && nd->nobypass_count + 1 < st->lim) || (bypass_is_lazy && !lazy) ||
	    (!bypass_is_lazy && jiffies != nd->bypass_first) ||
	    (bypass_is_lazy && time_after(jiffies, nd->bypass_first + st->lazy_flush)) ||
	    ncbs >= qhimark)
		return 0;
	int64_t k = n < qhimark - ncbs ? n : qhimark - ncbs, len0 = rcu_nocb_len(st, cpu);
	if (rcu_segcblist_put_n(l, nd->bypass_tail, t0, step, k))
		return SIM_ENOMEM;
	nd->bypass_tail += (uint64_t)k;
	nd->n_bypassed += (uint64_t)k;
	nd->nobypass_count += k;
	if (lazy)
		nd->lazy_len += k;
	/* check_cb_ovld() before each: the last one's length decides. */
	rcu_tree_node *rnp = &st->rsp->node[rdp->leaf];
	if (st->rsp->cfg.qovld > 0) {
		if (len0 + k - 1 >= st->rsp->cfg.qovld)
			rnp->cbovldmask |= rdp->grpmask;
		else
			rnp->cbovldmask &= ~rdp->grpmask;
	}
	if (len0 + k > rdp->qlen_max)
		rdp->qlen_max = len0 + k;
	RCUSIM_CHECK(rcu_segcblist_sane(l), "rcu_nocb.cblist_layout");
	return k;
}

/* ---- the rcuog kthread ---------------------------------------------------------------- */

void rcu_nocb_gp_wait(rcu_nocb_state *st, int g, int64_t j, rcu_nocb_gp_pass *pass,
		      rcu_nocb_effect *eff)
{
	rcu_tree_state *rsp = st->rsp;
	rcu_nocb_group *grp = &st->grp[g];
	const int64_t qhimark = rsp->cfg.qhimark;
	bool bypass = false, lazy = false, needwait_gp = false;
	uint64_t wait_gp_seq = 0;
	int nwake = 0;
	assert(grp->wait == RCU_NOCB_GP_RUNNING);
	memset(pass, 0, sizeof(*pass));
	grp->gp_loops++; /* rcu_nocb_gp_kthread() (tree_nocb.h:867) */
	/* Each offloaded CPU of the group, in CPU order (:691-769). */
	for (int cpu = grp->lo; cpu <= grp->hi; cpu++) {
		rcu_nocb_data *nd = &st->nd[cpu];
		rcu_segcblist *l = &rsp->rda[cpu].cblist;
		if (!nd->offloaded)
			continue;
		pass->cpus++;
		int64_t bypass_ncbs = rcu_nocb_bypass_len(st, cpu), lazy_ncbs = nd->lazy_len;
		bool flush = false;
		if (bypass_ncbs && lazy_ncbs == bypass_ncbs &&
		    (time_after(j, nd->bypass_first + st->lazy_flush) || bypass_ncbs > 2 * qhimark))
			flush = true; /* lazy only: old, or long (:702-705) */
		else if (bypass_ncbs && lazy_ncbs != bypass_ncbs &&
			 (time_after(j, nd->bypass_first + 1) || bypass_ncbs > 2 * qhimark))
			flush = true; /* :706-709 */
		else if (!bypass_ncbs && rcu_segcblist_empty(l))
			continue; /* nothing here (:710-713) */
		if (flush) { /* rcu_nocb_try_flush_bypass() (:715-720) */
			pass->flushed += rcu_nocb_flush_bypass(st, cpu, j);
			pass->flushed_cpus++;
			bypass_ncbs = rcu_nocb_bypass_len(st, cpu);
			lazy_ncbs = nd->lazy_len;
		}
		if (bypass_ncbs) { /* :722-729 */
			if (bypass_ncbs == lazy_ncbs)
				lazy = true;
			else
				bypass = true;
		}
		/* Advance when NEXT has callbacks or the next GP is over
		 * (:733-743); this may request a GP. */
		if (!rcu_segcblist_restempty(l, RCU_NEXT_READY_TAIL) || nextgp_done(st, cpu)) {
			if (rcu_tree_advance_cbs(rsp, cpu))
				eff->wake_gp_kthread = true;
			pass->advanced++;
		}
		uint64_t cur;
		if (segcblist_nextgp(l, &cur)) { /* the earliest GP to wait for (:748-755) */
			if (!needwait_gp || rcu_ulong_cmp_lt(cur, wait_gp_seq))
				wait_gp_seq = cur;
			needwait_gp = true;
		}
		if (rcu_segcblist_ready_cbs(l) && nd->cb_sleep) { /* wake rcuo (:756-766) */
			nd->cb_sleep = false;
			st->wake_cpus[nwake++] = cpu;
		}
	}
	grp->gp_bypass = bypass; /* :771-773 */
	grp->gp_lazy = lazy;
	grp->gp_gp = needwait_gp;
	grp->gp_seq = needwait_gp ? wait_gp_seq : 0;
	/* Leftover bypasses: a deferred wakeup so they are not stranded
	 * (:777-787). */
	if (lazy && !bypass)
		rcu_nocb_wake_defer(st, grp->leader, RCU_NOCB_WAKE_LAZY, j, eff);
	else if (bypass)
		rcu_nocb_wake_defer(st, grp->leader, RCU_NOCB_WAKE_BYPASS, j, eff);
	/* The wait (:803-814): for callbacks, or for the GP on the leader's leaf. */
	if (!needwait_gp) {
		grp->wait = RCU_NOCB_GP_WAIT_CBS;
	} else {
		grp->wait = RCU_NOCB_GP_WAIT_GP;
		grp->wait_seq = wait_gp_seq;
		grp->wait_node = rsp->rda[grp->leader].leaf;
	}
	pass->sleep = !rcu_nocb_gp_wait_cond(st, g);
	eff->nwake_rcuo = nwake;
	eff->wake_rcuo = st->wake_cpus;
}

bool rcu_nocb_gp_wait_cond(const rcu_nocb_state *st, int g)
{
	const rcu_nocb_group *grp = &st->grp[g];
	switch (grp->wait) {
	case RCU_NOCB_GP_WAIT_CBS:
		return !grp->gp_sleep;
	case RCU_NOCB_GP_WAIT_GP:
		return rcu_seq_done(st->rsp->node[grp->wait_node].gp_seq, grp->wait_seq) ||
		       !grp->gp_sleep;
	default:
		return true;
	}
}

void rcu_nocb_gp_wait_end(rcu_nocb_state *st, int g, rcu_nocb_effect *eff)
{
	rcu_nocb_group *grp = &st->grp[g];
	/* tree_nocb.h:816-828, 850. */
	if (grp->defer_wakeup > RCU_NOCB_WAKE_NOT) {
		grp->defer_wakeup = RCU_NOCB_WAKE_NOT;
		if (grp->timer_pending) {
			grp->timer_pending = false;
			eff->timer_grp = g;
		}
	}
	grp->gp_sleep = true;
	grp->gp_seq = UINT64_MAX;
	grp->wait = RCU_NOCB_GP_RUNNING;
}

int rcu_nocb_gp_cleanup(rcu_nocb_state *st, int *woken)
{
	const rcu_tree_state *rsp = st->rsp;
	int n = 0;
	for (int g = 0; g < st->ngroups; g++) {
		const rcu_nocb_group *grp = &st->grp[g];
		if (grp->wait != RCU_NOCB_GP_WAIT_GP)
			continue;
		/* rcu_nocb_gp_get() (tree_nocb.h:182-185): the queue of the
		 * node's new gp_seq; rcuog sleeps on that of its wait_seq. */
		uint64_t node_seq = rsp->node[grp->wait_node].gp_seq;
		if ((rcu_seq_ctr(node_seq) & 1) != (rcu_seq_ctr(grp->wait_seq) & 1))
			continue;
		if (rcu_nocb_gp_wait_cond(st, g))
			woken[n++] = g;
	}
	return n;
}

/* ---- the rcuo kthread ------------------------------------------------------------------ */

int64_t rcu_nocb_cb_wait(rcu_nocb_state *st, int cpu, const rcu_nocb_batch *b, sim_hist *lat,
			 rcu_nocb_cb_out *out)
{
	rcu_tree_state *rsp = st->rsp;
	rcu_tree_data *rdp = &rsp->rda[cpu];
	rcu_segcblist *l = &rdp->cblist;
	rcu_nocb_data *nd = &st->nd[cpu];
	int64_t n = 0;
	assert(nd->offloaded);
	memset(out, 0, sizeof(*out));
	/* rcu_do_batch() (tree.c:2490-2635) in rcuo: neither in softirq nor
	 * an rcuc kthread, so no count limit and no time limit, and a
	 * cond_resched_tasks_rcu_qs() after each callback (:2583-2590). */
	if (rcu_segcblist_ready_cbs(l)) {
		n = rcu_segcblist_seglen(l, RCU_DONE_TAIL);
		if (b->max > 0 && b->max < n)
			n = b->max; /* the rest after the caller's cut, in DONE */
		/* Offloaded: the trigger is the length before the batch, bypass
		 * included (:2544-2546). */
		rdp->qlen_last_fqs_check = rcu_nocb_len(st, cpu);
		/* :2606-2620, with ->cblist.len counting the bypass. */
		rcu_tree_invoke_done(rsp, cpu, n, b->first_ns, b->cost_ns, lat,
				     rcu_nocb_bypass_len(st, cpu));
	}
	out->invoked = n;
	out->cond_resched = n;
	/* nocb_cb_wait() (tree_nocb.h:915-928): advance when the next GP is
	 * over; sleep when nothing is ready. */
	if (nextgp_done(st, cpu))
		out->wake_gp_kthread = rcu_tree_advance_cbs(rsp, cpu);
	nd->cb_sleep = !rcu_segcblist_ready_cbs(l);
	out->sleep = nd->cb_sleep;
	RCUSIM_CHECK(rcu_segcblist_sane(l), "rcu_nocb.cblist_layout");
	return n;
}

/* ---- checks ------------------------------------------------------------------------------ */

bool rcu_nocb_sane(const rcu_nocb_state *st)
{
	const rcu_tree_state *rsp = st->rsp;
	int next_lo = 0;
	for (int g = 0; g < st->ngroups; g++) {
		const rcu_nocb_group *grp = &st->grp[g];
		int off = 0;
		if (grp->lo != next_lo || grp->leader != grp->lo || grp->hi < grp->lo ||
		    grp->hi - grp->lo >= st->stride || grp->hi >= st->ncpus)
			return false;
		next_lo = grp->hi + 1;
		for (int cpu = grp->lo; cpu <= grp->hi; cpu++)
			off += st->nd[cpu].offloaded && st->nd[cpu].group == g;
		if (off != grp->noffloaded)
			return false;
		/* A deferred wakeup always has its timer, and only it arms one. */
		if (grp->defer_wakeup < RCU_NOCB_WAKE_NOT || grp->defer_wakeup > RCU_NOCB_WAKE_FORCE ||
		    grp->timer_pending != (grp->defer_wakeup > RCU_NOCB_WAKE_NOT))
			return false;
		if (grp->wait == RCU_NOCB_GP_WAIT_GP && !grp->gp_gp)
			return false;
	}
	if (next_lo != st->ncpus)
		return false;
	for (int cpu = 0; cpu < st->ncpus; cpu++) {
		const rcu_nocb_data *nd = &st->nd[cpu];
		const rcu_segcblist *l = &rsp->rda[cpu].cblist;
		if (!rcu_segcblist_sane(l))
			return false;
		if (!nd->offloaded)
			continue;
		uint64_t b = nd->bypass_tail - l->tails[RCU_NEXT_TAIL];
		if (b > l->cap || nd->bypass_tail - l->head > l->cap)
			return false;
		if (nd->lazy_len < 0 || (uint64_t)nd->lazy_len > b)
			return false;
	}
	return true;
}
