/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tree_nocb_flavor.c - offloaded (rcu_nocbs) and lazy callbacks inside the
 * Tree RCU flavor (tree_flavor.c), over the state machine of tree_nocb.c
 * (Linux 6.12 kernel/rcu/tree_nocb.h): call_rcu on an offloaded CPU goes to
 * rcu_nocb_call_rcu() (bypass, lazy); rcuog passes (nocb_gp_wait) and rcuo
 * batches (nocb_cb_wait) are the CPU model's kthreads, and what they are to
 * do (wake an rcuog or an rcuo, (re)arm a group's nocb_timer) is gathered
 * as kicks, deduplicated, for the caller to take (rcu.h). A group's timer
 * fires at the jiffy the timer wheel gives its expiry at the time it was
 * armed (rcu_nocb_timer_fire_jiffies()). Bypass flushes and lazy callbacks
 * are counted by cause (tree_flavor.c's header says which), and the
 * "rcu-lazy" shrinker's pass under memory pressure is modelled here
 * (rcu.lazy_shrink_at, tree_nocb.h:1199-1281). Without offloaded CPUs
 * none of this runs.
 */
#include "rcu/tree_flavor_int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

/* Offload the CPUs rcu.nocbs names (none: tf->nocb stays NULL). 0,
 * SIM_EINPUT (message) or SIM_ENOMEM. */
int rcu_tree_nocb_create(tree_flavor *tf, const rcu_flavor_env *env, char *err, size_t errlen)
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
	int nfull;
	bool *full = malloc((size_t)n * sizeof(*full));
	if (!full)
		return SIM_ENOMEM;
	rc = rcu_nohz_full_mask(env->p, n, full, &nfull, err, errlen);
	for (int i = 0; i < n && !rc; i++)
		tf->rs->rda[i].nohz_full = full[i];
	free(full);
	if (rc)
		return rc;
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
void rcu_tree_nocb_kick(tree_flavor *tf, rcu_nocb_kick_kind kind, int id)
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
void rcu_tree_nocb_effect(tree_flavor *tf, const rcu_nocb_effect *e, int64_t j)
{
	if (e->wake_rcuog >= 0)
		rcu_tree_nocb_kick(tf, RCU_KICK_RCUOG, e->wake_rcuog);
	if (e->timer_grp >= 0) {
		const rcu_nocb_group *grp = &tf->nocb->grp[e->timer_grp];
		if (grp->timer_pending)
			tf->timer_fire[e->timer_grp] =
				rcu_nocb_timer_fire_jiffies(grp->timer_expires, j, tf->hz) * tf->tick_ns;
		rcu_tree_nocb_kick(tf, RCU_KICK_TIMER, e->timer_grp);
	}
	for (int i = 0; i < e->nwake_rcuo; i++)
		rcu_tree_nocb_kick(tf, RCU_KICK_RCUO, e->wake_rcuo[i]);
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
		rcu_tree_nocb_effect(tf, &e, j);
	}
	tf->shrink_check = tf->shrink_at;
}

/* call_rcu() on offloaded @cpu: rcu_nocb_call_rcu(), lazy unless the call
 * site hurries (and lazy at all only with rcu.lazy). */
int rcu_tree_nocb_call_rcu(tree_flavor *tf, int cpu, sim_time at, uint32_t obj, rcu_effect *eff)
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
	rcu_tree_nocb_effect(tf, &e, j);
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

/* @n call_rcu()s at @t0 + i * @step on offloaded @cpu, with the state and
 * effects of rcu_tree_nocb_call_rcu() one by one: the stretches of them within one
 * jiffy that only join the bypass in one rcu_nocb_bypass_n() each (short
 * of the call that makes nocb_lazy_shrink() count), every other call
 * alone. */
int rcu_tree_nocb_call_rcu_n(tree_flavor *tf, int cpu, sim_time t0, sim_time step, int64_t n,
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
			if (rcu_tree_nocb_call_rcu(tf, cpu, t, 0, eff))
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

/* Offloading's series (the bypasses, all CPUs) and, with the checks on,
 * its accounting: every lazy callback queued is in a bypass or was flushed
 * with a cause, every flush rcu_nocb counted has a cause, the state sane. */
int rcu_tree_nocb_sample(tree_flavor *tf, sim_metrics *m, sim_time now)
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
	sim_series *s = metric_series(m, M_CB_BYPASS, -1);
	if (!s || sim_series_append(s, now, (double)bypass))
		return SIM_ENOMEM;
	return 0;
}

int rcu_tree_nocb_groups(const void *state)
{
	const tree_flavor *tf = state;
	return tf->nocb ? tf->nocb->ngroups : 0;
}

int rcu_tree_nocb_leader(const void *state, int g)
{
	const tree_flavor *tf = state;
	const rcu_nocb_group *grp = &tf->nocb->grp[g];
	return grp->noffloaded ? grp->leader : -1;
}

bool rcu_tree_nocb_offloaded(const void *state, int cpu)
{
	const tree_flavor *tf = state;
	return tf->nocb->nd[cpu].offloaded;
}

/* One pass of group @g's rcuog at @now: the end of its wait if it was
 * waiting (rcu_nocb_gp_wait_end()), then nocb_gp_wait(), its flushes
 * counted by cause (from each CPU's bypass before the pass). */
void rcu_tree_rcuog_step(void *state, int g, sim_time now, rcu_nocb_work *w)
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
	rcu_tree_nocb_effect(tf, &e, j);
}

bool rcu_tree_rcuog_wakeable(const void *state, int g)
{
	const tree_flavor *tf = state;
	return rcu_nocb_gp_wait_cond(tf->nocb, g);
}

/* One batch of @cpu's rcuo, running on CPU @on: the momentary extended QS
 * nocb_cb_wait() begins with (tree_nocb.h:903), rcu_do_batch() of at most
 * @max ready callbacks with each one's function, the cond_resched() after
 * each (rcu_all_qs() on CPU @on: one suffices, tree.c:2586-2590), then the
 * advance. */
void rcu_tree_rcuo_step(void *state, int cpu, int on, const rcu_core_ctx *b, int64_t max,
			   rcu_nocb_work *w)
{
	tree_flavor *tf = state;
	rcu_tree_state *rs = tf->rs;
	rcu_nocb_batch nb = { b->first_ns, b->cost_ns, max };
	rcu_nocb_cb_out out;
	rcu_tree_momentary_eqs(rs, on);
	int64_t n = rcu_nocb_cb_wait(tf->nocb, cpu, &nb, tf->lat, &out);
	if (n) {
		rcu_tree_all_qs(rs, on);
		rcu_tree_flavor_invoke_objs(tf, cpu, on, n, b->first_ns, b->cost_ns);
	}
	w->invoked = n;
	w->sleep = out.sleep;
	w->wake_gp = out.wake_gp_kthread;
}

bool rcu_tree_rcuo_wakeable(const void *state, int cpu)
{
	const tree_flavor *tf = state;
	return rcu_nocb_cb_wait_cond(tf->nocb, cpu);
}

/* Group @g's nocb_timer at @now: do_nocb_deferred_wakeup_timer(). */
void rcu_tree_nocb_timer(void *state, int g, sim_time now)
{
	tree_flavor *tf = state;
	rcu_nocb_effect e;
	if (!tf->nocb->grp[g].timer_pending)
		return; /* deleted meanwhile: the caller cancels its event, this cannot happen */
	rcu_nocb_effect_init(&e);
	rcu_nocb_timer(tf->nocb, g, &e);
	rcu_tree_nocb_effect(tf, &e, now / tf->tick_ns);
}

bool rcu_tree_nocb_timer_when(const void *state, int g, sim_time *when)
{
	const tree_flavor *tf = state;
	if (!tf->nocb->grp[g].timer_pending)
		return false;
	*when = tf->timer_fire[g];
	return true;
}

size_t rcu_tree_nocb_kicks(void *state, const rcu_nocb_kick **kicks)
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

void rcu_tree_nocb_destroy(tree_flavor *tf)
{
	rcu_nocb_destroy(tf->nocb);
	free(tf->timer_fire);
	free(tf->woken);
	free(tf->snap);
	free(tf->kicks);
	free(tf->kick_og);
	free(tf->kick_timer);
	free(tf->kick_o);
}

void rcu_tree_nocb_gp_cleanup(tree_flavor *tf)
{
	/* rcu_nocb_gp_cleanup() of each node (tree.c:2159-2161). */
	int n = rcu_nocb_gp_cleanup(tf->nocb, tf->woken);
	for (int i = 0; i < n; i++)
		rcu_tree_nocb_kick(tf, RCU_KICK_RCUOG, tf->woken[i]);
}

int rcu_tree_nocb_finish(tree_flavor *tf, sim_metrics *m, sim_time now)
{
	const rcu_tree_state *rs = tf->rs;
	int rc = 0;
	uint64_t bypassed = 0;
	for (int i = 0; i < rs->ncpus; i++)
		bypassed += tf->nocb->nd[i].n_bypassed;
	if (now > 0)
		rc |= metric_scalar(m, M_GP_PER_HOUR,
					 (double)rs->gp_completed * 3600e9 / (double)now);
	rc |= metric_scalar(m, M_CB_BYPASSED, (double)bypassed);
	rc |= metric_scalar(m, M_CB_BYPASS_MAX, (double)tf->bypass_max);
	rc |= metric_scalar(m, M_NOCB_FLUSH_ALLOWANCE, (double)tf->flush_allowance);
	rc |= metric_scalar(m, M_NOCB_FLUSH_AGE, (double)tf->flush_age);
	rc |= metric_scalar(m, M_NOCB_FLUSH_LENGTH, (double)tf->flush_length);
	if (tf->nocb->cfg.lazy) {
		rc |= metric_scalar(m, M_LAZY_QUEUED, (double)tf->lazy_queued);
		rc |= metric_scalar(m, M_LAZY_FLUSHED_AGE, (double)tf->lazy_age);
		rc |= metric_scalar(m, M_LAZY_FLUSHED_COUNT, (double)tf->lazy_count);
		rc |= metric_scalar(m, M_LAZY_FLUSHED_HURRY, (double)tf->lazy_hurry);
		if (tf->shrink_at) {
			rc |= metric_scalar(m, M_LAZY_FLUSHED_MEMORY,
						 (double)tf->lazy_memory);
			rc |= metric_scalar(m, M_LAZY_SHRINKS, (double)tf->shrinks);
		}
	}
	return rc;
}
