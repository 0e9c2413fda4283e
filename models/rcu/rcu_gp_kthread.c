/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rcu_gp_kthread.c - the RCU grace-period kthread (rcu_gp_kthread(),
 * kernel/rcu/tree.c of 6.12) as a kthread kind: each step is the flavor's
 * next one (rcu_flavor.gp_step: start a GP, an FQS scan, clean up), whose
 * work is the rcu_nodes it walks and the CPUs it checks; after an FQS scan
 * it resched_cpu()s the CPUs the scan named; it sleeps in swait_event() or
 * swait_event_timeout() until rcu_gp_kthread_wake() ends its wait.
 */
#include <assert.h>
#include <stdlib.h>

#include "rcu/mechanisms.h"
#include "rcu/tree.h"

/* rcu_state.srs_wait_nodes[] (tree.h 6.12:323, 419). */
#define SR_NORMAL_GP_WAIT_HEAD_MAX 5

/* Is the sync_wq work item queued or running (srs_cleanups_pending)? It
 * is queued only with waiters or wait heads left to it. */
static bool srs_work_pending(const krcu *r) { return r->srs->left || r->srs->heads_work; }

/* The waiters a grace period's end woke: those woken here at @t, and the
 * sync_wq kworker woken for the rest. */
static void srs_step_end(kmodel *k, const kcpu *c, sim_time t)
{
	krcu *r = &k->rcu;
	for (int64_t i = 0; i < r->srs->direct.n; i++) {
		job *j = r->srs->direct.v[i];
		j->exp_wake = false;
		r->srs->woken_gp++;
		j->wl->ops->exp_woken(k, j, c, t);
	}
	r->srs->direct.n = 0;
	if (srs_work_pending(r)) {
		/* queue_work(sync_wq) (tree.c 6.12:1748): a per-CPU workqueue
		 * (alloc_workqueue() without WQ_UNBOUND, :5729), the work on the
		 * GP kthread's CPU's kworker. */
		kthread *wk = r->srs->kworker;
		if (wk->cpu != r->gpk->cpu && wk->sleeping && !wk->task.delayed &&
		    !sim_timer_armed(&wk->wake)) {
			kthread_move(wk, r->gpk->cpu);
			kcpu_settle_now(wk->cpu);
		}
		kthread_kick(wk, t);
	}
}

/* The synchronize_rcu() waiters of rcu.normal_wake_from_gp around a step
 * on @cpu that moved gp_seq from @before to @after:
 * - a grace period's start (rcu_sr_normal_gp_init(), tree.c
 *   6.12:1756-1786) takes every waiter queued so far behind a wait head,
 *   one of five (rcu_sr_get_wait_head(), :1605-1618); with all five in
 *   use it takes none and asks for the grace period after it
 *   (start_poll_synchronize_rcu(), :1843-1844);
 * - its end (rcu_sr_normal_gp_cleanup(), :1695-1751) wakes the first
 *   SR_MAX_USERS_WAKE_FROM_GP (5) from here (complete(), at the step's
 *   end) and leaves the rest to the sync_wq work item; its wait head
 *   becomes the done tail, and the previous done tail's is put back at
 *   once when nothing else is left and no work is pending (:1725-1731),
 *   else by the work (rcu_sr_normal_gp_cleanup_work(), :1647-1690, which
 *   puts every wait head behind the done tail).
 * The extra work in ns: a complete() each. */
static double srs_gp_step(kmodel *k, int cpu, uint64_t before, uint64_t after)
{
	krcu *r = &k->rcu;
	if (!rcu_seq_state(before) && rcu_seq_state(after)) {
		if (!r->srs->pending)
			return 0;
		if (r->srs->heads == SR_NORMAL_GP_WAIT_HEAD_MAX) {
			rcu_tree_state *ts = rcu_tree_flavor_state(r->rsp);
			r->srs->no_head++;
			(void)rcu_tree_start_this_gp(ts, ts->rda[cpu].leaf, cpu, rcu_seq_snap(ts->gp_seq));
			return 0;
		}
		r->srs->heads++;
		r->srs->cur_head = true;
		job *last = NULL;
		for (job *j = r->srs->pending; j; j = j->wait_next) {
			j->srs_assigned = true;
			j->srs_gp = after;
			last = j;
		}
		last->wait_next = r->srs->taken;
		r->srs->taken = r->srs->pending;
		r->srs->pending = NULL;
		r->srs->pending_tail = &r->srs->pending;
		return 0;
	}
	if (!rcu_seq_state(before) || rcu_seq_state(after) || !r->srs->cur_head)
		return 0;
	r->srs->cur_head = false;
	/* Those it took, off the list, in the jobs' order: the first five
	 * woken here, the rest left to the kworker. */
	job_vec *d = &r->srs->direct;
	assert(d->n == 0);
	for (job **pp = &r->srs->taken; *pp;) {
		job *j = *pp;
		if (j->srs_gp != before) {
			pp = &j->wait_next;
			continue;
		}
		*pp = j->wait_next;
		j->wait_next = NULL;
		j->srs_waiting = false;
		if (job_vec_push(d, j))
			kfail(k, SIM_ENOMEM);
	}
	job_vec_sort(d);
	int direct = d->n < 5 ? (int)d->n : 5;
	int64_t left = d->n - direct;
	for (int64_t i = 0; i < d->n; i++) {
		job *j = d->v[i];
		if (i < direct) {
			j->exp_wake = true;
		} else {
			j->srs_wq = true;
			if (job_vec_push(&r->srs->wq, j))
				kfail(k, SIM_ENOMEM);
		}
	}
	d->n = direct;
	if (r->srs->dummy) {
		if (!left && !srs_work_pending(r))
			r->srs->heads--; /* rcu_sr_put_wait_head() of the old done tail */
		else
			r->srs->heads_work++;
	}
	r->srs->dummy = true;
	r->srs->left += left;
	RCUSIM_CHECK(r->srs->heads >= 1 && r->srs->heads <= SR_NORMAL_GP_WAIT_HEAD_MAX &&
			     r->srs->heads_work < r->srs->heads,
		     "kernel.srs_wait_heads");
	return (double)(direct * r->srs->wake_cost);
}

/* The flavor's next step, on @c at @t: every other CPU is settled first,
 * as the FQS scan reads them. */
static double gp_step(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	uint64_t seq = sim_engine_cur_seq(k->eng);
	for (int i = 0; i < k->mach.ncpus; i++)
		if (&k->cpu[i] != c)
			kcpu_settle(&k->cpu[i], sim_now(k->eng), seq, true);
	uint64_t before = k->rcu.srs || ktr(k) ? rcu_tree_flavor_state(k->rcu.rsp)->gp_seq : 0;
	if (__builtin_expect(k->mach.nfull, 0))
		kcpu_nohz_ct_enter(k, c);
	k->rcu.ops->gp_step(k->rcu.rsp, c->id, t, &kt->gpw);
	if (__builtin_expect(k->mach.nfull, 0))
		kcpu_nohz_ct_exit(k);
	if (ktr(k)) {
		uint64_t after = rcu_tree_flavor_state(k->rcu.rsp)->gp_seq;
		/* rcu_gp_cleanup() traces "end" before rcu_seq_end(), with the
		 * old number (tree.c 6.12:2204-2206): the same as "start". */
		if (after != before)
			ktrace_gp(k, c, t, rcu_seq_state(after) ? after : before,
				  rcu_seq_state(after) ? "start" : "end");
		else if (rcu_seq_state(after) && kt->gpw.cpus)
			ktrace_gp(k, c, t, after, "fqsstart");
	}
	double work = (double)(kt->gpw.nodes * k->rcu.node_cost + kt->gpw.cpus * k->rcu.fqs_cpu_cost);
	if (__builtin_expect(k->rcu.srs != NULL, 0))
		work += srs_gp_step(k, c->id, before, rcu_tree_flavor_state(k->rcu.rsp)->gp_seq);
	rcu_effect none = { false, false, false, false };
	kcpu_rcu_effect(c, t, &none); /* rcu_nocb_gp_cleanup()'s kicks */
	return work;
}

/* resched_cpu() of the CPUs its FQS scan named, then its wait (a wakeup
 * during the step, the last quiescent state or a request, found it
 * running; its swait re-checks the condition before it sleeps). */
static rcu_gp_next gp_step_end(kcpu *c, kthread *kt, sim_time t, sim_time *timeout)
{
	kmodel *k = c->k;
	for (int i = 0; i < kt->gpw.nresched; i++) {
		int cpu = kt->gpw.resched[i];
		kcpu *o = &k->cpu[cpu];
		k->rcu.resched_ipis++;
		if (o == c) { /* resched_curr() of its own CPU */
			kcpu_resched(c, false);
			continue;
		}
		k->cnt.ipis++;
		o->ipi_resched = true;
		if (!sim_timer_armed(&o->ipi) && sim_timer_at(k->eng, &o->ipi, t))
			kfail(k, SIM_ENOMEM);
	}
	kt->gpw.nresched = 0;
	if (__builtin_expect(k->rcu.srs != NULL, 0))
		srs_step_end(k, c, t);
	if (__builtin_expect(kt->gpw.nboost, 0))
		rcu_boost_leaves(k, kt->gpw.boost, kt->gpw.nboost, t);
	kt->gpw.nboost = 0;
	rcu_gp_next next = kt->gpw.next;
	*timeout = kt->gpw.timeout_ns;
	if (next != RCU_GP_NEXT_RUN && k->rcu.ops->gp_wakeable(k->rcu.rsp))
		next = RCU_GP_NEXT_RUN;
	return next;
}

/* A wakeup whose wait condition no longer holds sleeps on until the wait's
 * timeout (the step finds out which it is). */
static bool gp_wake_fire(kcpu *c, kthread *kt, sim_time now)
{
	kmodel *k = c->k;
	if (kt->gpw.next == RCU_GP_NEXT_TIMEOUT && now < kt->gpw.timeout_ns &&
	    !k->rcu.ops->gp_wakeable(k->rcu.rsp)) {
		if (sim_timer_at(k->eng, &kt->wake, kt->gpw.timeout_ns))
			kfail(k, SIM_ENOMEM);
		return false;
	}
	if (kt->gpw.next == RCU_GP_NEXT_SLEEP && !k->rcu.ops->gp_wakeable(k->rcu.rsp))
		return false;
	/* Its FQS wait's timer expiring (a rcu_gp_kthread_wake() at that same
	 * instant shares the one wake-up, kthread_kick()). */
	if (k->mach.timer_migration && kt->gpw.next == RCU_GP_NEXT_TIMEOUT && now == kt->gpw.timeout_ns)
		kcpu_timer_migrated(k, c, now);
	return true;
}

const kthread_ops rcu_gp_kthread_ops = {
	.name = "rcu_gp_kthread",
	.step = gp_step,
	.step_end = gp_step_end,
	.wake_fire = gp_wake_fire,
};

void rcu_gp_kthread_kick(kmodel *k, int waker, sim_time now)
{
	kthread *kt = k->rcu.gpk;
	if (kt && k->rcu.ops->gp_wakeable(k->rcu.rsp))
		kthread_kick_by(kt, waker, now);
}

/* The sync_wq kworker (rcu_sr_normal_gp_cleanup_work(), tree.c
 * 6.12:1647-1690): complete() of every waiter left to it, and the wait
 * heads behind the done tail put back, a step. */
static double srs_step(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	(void)kt;
	(void)t;
	int64_t n = k->rcu.srs->left;
	return (double)(n * k->rcu.srs->wake_cost);
}

static rcu_gp_next srs_step_end_wq(kcpu *c, kthread *kt, sim_time t, sim_time *timeout)
{
	kmodel *k = c->k;
	(void)kt;
	*timeout = 0;
	job_vec *q = &k->rcu.srs->wq;
	job_vec_sort(q);
	for (int64_t i = 0; i < q->n; i++) {
		job *j = q->v[i];
		j->srs_wq = false;
		k->rcu.srs->left--;
		k->rcu.srs->woken_wq++;
		j->wl->ops->exp_woken(k, j, c, t);
	}
	q->n = 0;
	k->rcu.srs->heads -= k->rcu.srs->heads_work; /* every wait head behind the done tail */
	k->rcu.srs->heads_work = 0;
	return RCU_GP_NEXT_SLEEP;
}

static bool srs_wake_fire(kcpu *c, kthread *kt, sim_time now)
{
	(void)kt;
	(void)now;
	return srs_work_pending(&c->k->rcu);
}

static const kthread_ops srs_kworker_ops = {
	.name = "sync_wq",
	.step = srs_step,
	.step_end = srs_step_end_wq,
	.wake_fire = srs_wake_fire,
};

void rcu_srs_request(kcpu *c, job *j, sim_time now)
{
	kmodel *k = c->k;
	rcu_tree_state *ts = rcu_tree_flavor_state(k->rcu.rsp);
	assert(!j->srs_waiting);
	j->srs_waiting = true;
	j->srs_assigned = false;
	j->wait_next = NULL;
	*k->rcu.srs->pending_tail = j;
	k->rcu.srs->pending_tail = &j->wait_next;
	/* start_poll_synchronize_rcu() (tree.c 6.12:4190-4212). */
	if (rcu_tree_start_this_gp(ts, ts->rda[c->id].leaf, c->id, rcu_seq_snap(ts->gp_seq)))
		rcu_gp_kthread_kick(k, c->id, now);
}

int rcu_gp_kthread_first_cpu(const kmodel *k, const sim_params *p)
{
	if (!sim_params_is_auto(p, P_RCU_GP_KTHREAD_CPU))
		return (int)sim_params_int(p, P_RCU_GP_KTHREAD_CPU);
	int cpu = k->mach.ncpus - 1;
	while (cpu > 0 && k->cpu[cpu].nohz_full)
		cpu--;
	return cpu;
}

/* The GP kthread on rcu.gp_kthread_cpu, or with auto unbound, first on the
 * last housekeeping CPU. 0 or SIM_ENOMEM. */
int rcu_gp_kthread_create(kmodel *k, const sim_params *p, int prio)
{
	krcu *r = &k->rcu;
	if (!r->ops->gp_step)
		return 0; /* a flavor without a GP kthread (classic RCU) */
	r->node_cost = sim_params_int(p, P_RCU_GP_NODE_COST);
	r->fqs_cpu_cost = sim_params_int(p, P_RCU_FQS_CPU_COST);
	int gp_cpu = rcu_gp_kthread_first_cpu(k, p);
	bool unbound = sim_params_is_auto(p, P_RCU_GP_KTHREAD_CPU);
	assert(gp_cpu < k->mach.ncpus); /* rcusim_validate() checked */
	if (!(r->gpk = calloc(1, sizeof(*r->gpk))) ||
	    kthread_init(k, r->gpk, &rcu_gp_kthread_ops, &k->cpu[gp_cpu], prio) ||
	    !(r->gpk->wait_hist = metric_hist(k->h.m, M_GP_KTHREAD_WAIT_NS)) ||
	    (unbound && kthread_unbind(k, r->gpk)))
		return SIM_ENOMEM;
	/* rcu.normal_wake_from_gp, for a workload that calls synchronize_rcu()
	 * (auto: 6.19's rule, at most 16 CPUs). */
	int64_t wfg = sim_params_int(p, P_RCU_NORMAL_WAKE_FROM_GP);
	bool exp = !sim_params_int(p, P_RCU_NORMAL) && (sim_params_int(p, P_RCU_EXPEDITED) ||
							 sim_params_int(p, P_WORKLOAD_SYNCRCU_EXPEDITED));
	bool woken = false; /* a load whose jobs wait for a grace period */
	for_each_load(k, w)
		woken |= w->ops->exp_woken != NULL;
	if (woken && !exp && (wfg == 1 || (wfg == 2 && k->mach.ncpus <= 16))) {
		if (!(r->srs = calloc(1, sizeof(*r->srs))))
			return SIM_ENOMEM;
		r->srs->wake_cost = rcu_cost_param(p, P_RCU_SRS_WAKE_COST, P_RCU_FQS_CPU_COST);
		r->srs->pending_tail = &r->srs->pending;
		if (!(r->srs->kworker = calloc(1, sizeof(*r->srs->kworker))) ||
		    kthread_init(k, r->srs->kworker, &srs_kworker_ops, &k->cpu[gp_cpu], 0) ||
		    (unbound && kthread_unbind(k, r->srs->kworker)))
			return SIM_ENOMEM;
		r->srs->kworker->unbound = false; /* moved with the GP kthread, not placed */
	}
	return 0;
}

void rcu_gp_kthread_destroy(kmodel *k)
{
	free(k->rcu.gpk);
	if (k->rcu.srs) {
		free(k->rcu.srs->kworker);
		free(k->rcu.srs->direct.v);
		free(k->rcu.srs->wq.v);
	}
	free(k->rcu.srs);
	k->rcu.srs = NULL;
}

int rcu_gp_kthread_finish(const kmodel *k, sim_metrics *m, sim_time now)
{
	const krcu *r = &k->rcu;
	int rc = 0;
	if (r->gpk) {
		const kthread *g = r->gpk;
		sim_time wait = g->wait_max;
		if (g->waiting && g->woken <= now) { /* still waiting at the end */
			sim_hist_add(g->wait_hist, (uint64_t)(now - g->woken));
			if (now - g->woken > wait)
				wait = now - g->woken;
		}
		rc |= metric_scalar(m, M_GP_KTHREAD_WAKEUPS, (double)g->wakeups);
		rc |= metric_scalar(m, M_GP_KTHREAD_WAIT_MAX_NS, (double)wait);
		rc |= metric_hist_scalars(m, M_GP_KTHREAD_WAIT_NS, g->wait_hist, SIM_Q_P50 | SIM_Q_P99);
		rc |= metric_scalar(m, M_GP_KTHREAD_CPU_NS, (double)g->cpu_ns);
		if (g->unbound) {
			rc |= metric_scalar(m, M_GP_KTHREAD_MIGRATIONS, (double)g->migrations);
			rc |= metric_scalar(m, M_GP_KTHREAD_REMOTE_WAKEUPS, (double)g->remote_wakes);
			rc |= metric_scalar(m, M_GP_KTHREAD_ON_WAKER, (double)g->on_waker);
		}
		rc |= metric_scalar(m, M_FQS_RESCHED_CPU, (double)r->resched_ipis);
	}
	if (r->srs) {
		rc |= metric_scalar(m, M_SYNCRCU_WOKEN_BY_GP_KTHREAD, (double)r->srs->woken_gp);
		rc |= metric_scalar(m, M_SYNCRCU_WOKEN_BY_KWORKER, (double)r->srs->woken_wq);
		rc |= metric_scalar(m, M_SYNCRCU_WAIT_HEADS_EXHAUSTED, (double)r->srs->no_head);
	}
	return rc;
}
