/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rcu_exp.c - expedited grace periods (synchronize_rcu_expedited(), and
 * synchronize_rcu() under rcupdate.rcu_expedited), after
 * kernel/rcu/tree_exp.h of 6.12:
 *
 * - a caller snapshots rcu_state.expedited_sequence (rcu_exp_gp_seq_snap(),
 *   :50-58) and sleeps until it passes that value; callers whose snapshot
 *   a grace period already requested share it (exp_funnel_lock(),
 *   :287-338); one expedited grace period runs at a time (exp_mutex,
 *   :995);
 * - the expedited kworker (rcu_exp_gp_kworker, a kthread_worker: SCHED_FIFO
 *   at rcutree.kthread_prio only with CONFIG_RCU_EXP_KTHREAD, rcu.exp_kthread,
 *   which needs RCU_EXPERT and NR_CPUS <= 32, Kconfig:224-236, so not in a
 *   distribution's kernel; tree.c:4915-4942) starts it (rcu_exp_gp_seq_start()), scans the CPUs
 *   (sync_rcu_exp_select_node_cpus(), :344-437): its own CPU and idle ones
 *   are quiescent already, every other one gets an asynchronous IPI
 *   (smp_call_function_single(..., 0), :413); it also waits for every
 *   reader preempted inside rcu_read_lock() then (exp_tasks, :394-395) and
 *   for those preempted later on a CPU it still waits for;
 * - the IPI's handler, rcu_exp_handler() (:724-773 preemptible RCU,
 *   :838-864 otherwise), reports the CPU's quiescent state at once, or
 *   defers it: without PREEMPT_RCU (and so without PREEMPT_COUNT, which
 *   only preemptible builds select) it can report only from idle, and asks
 *   for a reschedule (rcu_exp_need_qs(), tree_plugin.h:859-869), reported
 *   at the next context switch or a tick from user mode or idle; under
 *   PREEMPT_RCU, inside a reader it leaves the report to that reader's
 *   rcu_read_unlock() (exp_hint), with preemption or bottom halves off (a
 *   softirq run, a kernel thread) it asks for a reschedule and
 *   rcu_preempt_deferred_qs() reports at the next context switch, a tick
 *   outside a reader, or the end of the softirq run (rcu_core(),
 *   tree.c:2798-2803);
 * - the last report wakes the kworker, which ends the grace period
 *   (rcu_exp_gp_seq_end()) and wakes every waiter whose snapshot it reached
 *   (wake_up_all() on each rcu_node's exp_wq, :683-699); a stall warning
 *   for each rcu.exp_stall_timeout its wait took (:646-665).
 *
 * On a machine of more than one leaf rcu_node the kworker scans only the
 * last leaf itself and queues each other leaf's scan on that leaf's own
 * kworker (rcu_exp_par_gp_kthread_worker/N, :505-518, tree.c:4897-4917),
 * which runs on a CPU of its leaf beside that CPU's tasks.
 * The kworkers are kthread_workers of kernel/workqueue.c's model (a
 * workqueue of one worker): the kworker's item starts a grace period and
 * scans, and is queued again by the last report to end it (one item that
 * sleeps in between in the kernel, rcu_exp_sel_wait_wake()); each leaf's
 * item is its scan.
 * Modelling choices: the kworker runs on rcu.gp_kthread_cpu, each leaf's on
 * the leaf's first CPU (under nohz_full its first housekeeping one, else
 * a housekeeping CPU); a scan's IPIs leave at its end; the handler costs
 * irq.cost on the CPU it interrupts. With rcu.boost (CONFIG_RCU_BOOST), a
 * leaf whose CPUs have all reported while readers it waits for remain has
 * them boosted at once, newest first (rcu_readers.c's rcu_exp_boost()).
 * nohz_full (irq.nohz_full): a job in user mode there is in an extended
 * QS (drawn, as tick.c's context tracking draws it) and gets no IPI; a CPU
 * the grace period waits for keeps its tick (TICK_DEP_BIT_RCU_EXP, :625-641,
 * at once rather than after a jiffy). Left out: a reader the handler found (exp_hint) being
 * preempted before its unlock (its CPU then reports at the switch, as if
 * the reader had ended).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rcu/mechanisms.h"
#include "rcu/tree.h"

static bool exp_done(const krcu *r)
{
	return r->exp->running && !r->exp->leaves && !r->exp->left && !r->exp->readers;
}

/* Is there work for the kworker: a grace period to end, or one to start? */
static bool exp_wakeable(const krcu *r)
{
	return exp_done(r) || (!r->exp->running && !rcu_seq_done(r->exp->seq, r->exp->need));
}

/* Work for the kworker: its work item queued (kthread_queue_work(), a
 * no-op while queued already). */
static void exp_kick(kmodel *k, sim_time now)
{
	if (exp_wakeable(&k->rcu))
		(void)kthread_queue_work(k->rcu.exp->kworker, &k->rcu.exp->gp_work, now);
}

/* Idle (its idle task, in no interrupt): in an extended quiescent state. */
static bool cpu_idle(const kcpu *c) { return !c->rq.curr && !c->in_softirq; }

/* __sync_rcu_exp_select_node_cpus() of leaf @n from @c (tree_exp.h
 * 6.12:357-387): the CPUs to IPI marked (sent at the scan's end); the
 * scan's work in ns. */
static double scan_leaf(kcpu *c, const rcu_tree_node *n)
{
	kmodel *k = c->k;
	krcu *r = &k->rcu;
	int nipi = 0;
	for (int i = n->grplo; i <= n->grphi; i++) {
		kcpu *o = &k->cpu[i];
		if (o == c || cpu_idle(o) || (o->nohz_full && kcpu_nohz_in_user(o)))
			continue; /* in an extended QS (a nohz_full CPU in user mode too) */
		o->rcu.exp_owes = true;
		o->rcu.exp_ipi_due = true;
		r->exp->left++;
		nipi++;
	}
	return (double)(r->node_cost + (n->grphi - n->grplo + 1) * r->exp->scan_cost +
			nipi * r->exp->send_cost);
}

/* __rcu_report_exp_rnp() (tree_exp.h 6.12:186-196) on leaf @n at @now:
 * every CPU of it has reported, and readers the expedited grace period
 * waits for remain there: rcu_initiate_boost() (CONFIG_RCU_BOOST, at once,
 * tree_plugin.h:1163-1186). */
static void exp_leaf_boost(kmodel *k, const rcu_tree_node *n, sim_time now)
{
	krcu *r = &k->rcu;
	if (!r->exp->boost || !r->exp->readers)
		return;
	for (int i = n->grplo; i <= n->grphi; i++)
		if (k->cpu[i].rcu.exp_owes)
			return;
	rcu_exp_boost(k, (int)(n - rcu_tree_flavor_state(r->rsp)->node), now);
}

/* The IPIs of leaf @n's scan leave at @t; if none does, its quiescent CPUs
 * are reported (rcu_report_exp_cpu_mult(), :433-434). */
static void send_leaf(kmodel *k, const rcu_tree_node *n, sim_time t)
{
	for (int i = n->grplo; i <= n->grphi; i++) {
		kcpu *o = &k->cpu[i];
		if (!o->rcu.exp_ipi_due)
			continue;
		o->rcu.exp_ipi_due = false;
		k->rcu.exp->ipis++;
		if (sim_timer_at(k->eng, &o->rcu.exp_ipi, t))
			kfail(k, SIM_ENOMEM);
	}
	exp_leaf_boost(k, n, t);
}

/* The kworker's work item on @c at @t: end the grace period whose last
 * report queued it (its work: each rcu_node's wait queue, each waiter's
 * wakeup), or start the next one and scan (each leaf, each CPU, each IPI
 * sent). */
static double exp_step(kcpu *c, work_struct *work, sim_time t)
{
	kmodel *k = c->k;
	krcu *r = &k->rcu;
	(void)work;
	uint64_t seq = sim_engine_cur_seq(k->eng);
	for (int i = 0; i < k->mach.ncpus; i++)
		if (&k->cpu[i] != c)
			kcpu_settle(&k->cpu[i], sim_now(k->eng), seq, true);
	const rcu_tree_state *ts = rcu_tree_flavor_state(r->rsp);
	if (exp_done(r)) {
		rcu_seq_end(&r->exp->seq);
		r->exp->running = false;
		sim_time d = t - r->exp->start;
		sim_hist_add(r->exp->dur, (uint64_t)d);
		r->exp->last[0] = r->exp->start;
		r->exp->last[1] = t;
		r->exp->gps++;
		if (d > r->exp->stall_ns)
			r->exp->stalls += 1 + (uint64_t)((d - r->exp->stall_ns) /
							(3 * r->exp->stall_ns + 3 * k->mach.tick_ns));
		/* The waiters whose snapshot it reached, off the list. */
		r->exp->wake.n = 0;
		job **pp = &r->exp->waiters;
		while (*pp) {
			job *j = *pp;
			if (!rcu_seq_done(r->exp->seq, j->exp_s)) {
				pp = &j->wait_next;
				continue;
			}
			*pp = j->wait_next;
			j->wait_next = NULL;
			j->exp_waiting = false;
			j->exp_wake = true;
			if (job_vec_push(&r->exp->wake, j))
				kfail(k, SIM_ENOMEM);
		}
		r->exp->waiters_tail = pp;
		job_vec_sort(&r->exp->wake);
		int64_t woken = r->exp->wake.n;
		r->exp->nwake = woken;
		return (double)(ts->nnodes * r->node_cost + woken * r->exp->wake_cost);
	}
	if (r->exp->running || rcu_seq_done(r->exp->seq, r->exp->need))
		return 0;
	/* sync_exp_reset_tree(); every leaf but the last to its own kworker,
	 * the last scanned here (sync_rcu_exp_select_cpus(), :496-524). */
	rcu_seq_start(&r->exp->seq);
	r->exp->running = true;
	r->exp->start = t;
	r->exp->left = 0;
	r->exp->leaves = r->exp->nleafk;
	for (int l = 0; l < r->exp->nleafk; l++)
		(void)kthread_queue_work(r->exp->leafk[l], &r->exp->leaf_work[l], t);
	/* Every reader preempted inside rcu_read_lock() holds it (exp_tasks). */
	for (int l = 0; l < r->nreader_lists && r->blkd; l++)
		for (job *j = r->blkd[l]; j; j = j->rdr_next) {
			j->exp_blocks = true;
			r->exp->readers++;
			r->exp->readers_waited++;
		}
	r->exp->scanning = true;
	return (double)(ts->nnodes * r->node_cost) + scan_leaf(c, &ts->node[ts->nnodes - 1]);
}

/* Its work ended at @t: the IPIs of its scan leave, or the waiters of the
 * grace period it ended are woken; then the item again if there is more
 * to do (rcu_exp_sel_wait_wake() and rcu_exp_wait_wake() are one item in
 * the kernel, which sleeps in it until the last report: two here). */
static void exp_step_end(kcpu *c, work_struct *work, sim_time t)
{
	kmodel *k = c->k;
	krcu *r = &k->rcu;
	if (r->exp->scanning) {
		const rcu_tree_state *ts = rcu_tree_flavor_state(r->rsp);
		send_leaf(k, &ts->node[ts->nnodes - 1], t);
		r->exp->scanning = false;
	}
	if (r->exp->nwake) {
		for (int64_t i = 0; i < r->exp->wake.n; i++) {
			job *j = r->exp->wake.v[i];
			j->exp_wake = false;
			j->wl->ops->exp_woken(k, j, c, t);
		}
		r->exp->wake.n = 0;
		r->exp->nwake = 0;
	}
	if (exp_wakeable(r))
		(void)kthread_queue_work(r->exp->kworker, work, t);
}

/* Leaf @l among the leaves. */
static const rcu_tree_node *leaf_of(const kmodel *k, int l)
{
	const rcu_tree_state *ts = rcu_tree_flavor_state(k->rcu.rsp);
	return &ts->node[ts->level_first[ts->nlevels - 1] + l];
}

/* The leaf of work item @w, one of leaf_work[]. */
static int leaf_index(const krcu *r, const work_struct *w) { return (int)(w - r->exp->leaf_work); }

/* A leaf's kworker's item (sync_rcu_exp_select_node_cpus()): its leaf's scan. */
static double leaf_step(kcpu *c, work_struct *w, sim_time t)
{
	kmodel *k = c->k;
	uint64_t seq = sim_engine_cur_seq(k->eng);
	const rcu_tree_node *n = leaf_of(k, leaf_index(&k->rcu, w));
	for (int i = n->grplo; i <= n->grphi; i++)
		if (&k->cpu[i] != c)
			kcpu_settle(&k->cpu[i], t, seq, true);
	return scan_leaf(c, n);
}

static void leaf_step_end(kcpu *c, work_struct *w, sim_time t)
{
	kmodel *k = c->k;
	krcu *r = &k->rcu;
	send_leaf(k, leaf_of(k, leaf_index(r, w)), t);
	assert(r->exp->leaves > 0);
	if (--r->exp->leaves == 0 && exp_done(r))
		exp_kick(k, t);
}

int rcu_exp_create(kmodel *k, const sim_params *p, sim_metrics *m)
{
	krcu *r = &k->rcu;
	bool woken = false; /* a load whose jobs wait for a grace period */
	for_each_load(k, w)
		woken |= w->ops->exp_woken != NULL;
	if (!woken || !k->rcu.ops->gp_step || sim_params_int(p, P_RCU_NORMAL) ||
	    !(sim_params_int(p, P_RCU_EXPEDITED) || sim_params_int(p, P_WORKLOAD_SYNCRCU_EXPEDITED)))
		return 0;
	if (!(r->exp = calloc(1, sizeof(*r->exp))))
		return SIM_ENOMEM;
	r->exp->last[0] = r->exp->last[1] = -1;
	r->exp->waiters_tail = &r->exp->waiters;
	/* CONFIG_RCU_BOOST (rcu.boost, preemptible RCU under EEVDF, tree_validate()). */
	r->exp->boost = r->preempt_rcu && sim_params_int(p, P_RCU_BOOST);
	r->exp->send_cost = sim_params_int(p, P_RCU_EXP_IPI_SEND_COST);
	r->exp->scan_cost = rcu_cost_param(p, P_RCU_EXP_SCAN_COST, P_RCU_FQS_CPU_COST);
	r->exp->wake_cost = rcu_cost_param(p, P_RCU_EXP_WAKE_COST, P_RCU_FQS_CPU_COST);
	r->exp->stall_ns = sim_params_int(p, P_RCU_EXP_STALL_TIMEOUT);
	if (!r->exp->stall_ns)
		r->exp->stall_ns = sim_params_int(p, P_RCU_STALL_TIMEOUT);
	/* CONFIG_RCU_EXP_KTHREAD: SCHED_FIFO at kthread_prio (tree.c
	 * 6.12:4915-4916, 4941-4942). */
	int prio = 0;
	if (sched_has_fifo(p) && sim_params_int(p, P_RCU_EXP_KTHREAD)) {
		prio = (int)sim_params_int(p, P_RCU_KTHREAD_PRIO);
		if (prio < 1)
			prio = 1;
	}
	int64_t cpu = rcu_gp_kthread_first_cpu(k, p);
	if (!(r->exp->dur = metric_hist(m, M_EXP_DURATION_NS)) ||
	    kthread_create_worker_on(k, &r->exp->kworker, "rcu_exp_gp_kworker", (int)cpu, prio))
		return SIM_ENOMEM;
	work_init(&r->exp->gp_work, exp_step, exp_step_end, NULL);
	/* Every leaf but the last has its own kworker, on its first CPU; under
	 * nohz_full its first housekeeping CPU, or a housekeeping CPU
	 * (rcu_boost_kthread_setaffinity(): HK_TYPE_RCU, tree.c 6.12:5040-5062). */
	const rcu_tree_state *ts = rcu_tree_flavor_state(r->rsp);
	r->exp->nleafk = ts->nleaves - 1;
	if (r->exp->nleafk > 0 &&
	    (!(r->exp->leafk = calloc((size_t)r->exp->nleafk, sizeof(*r->exp->leafk))) ||
	     !(r->exp->leaf_work = calloc((size_t)r->exp->nleafk, sizeof(*r->exp->leaf_work)))))
		return SIM_ENOMEM;
	for (int l = 0; l < r->exp->nleafk; l++) {
		work_init(&r->exp->leaf_work[l], leaf_step, leaf_step_end, NULL);
		const rcu_tree_node *n = leaf_of(k, l);
		int on = n->grplo;
		while (on <= n->grphi && k->mach.nfull && k->cpu[on].nohz_full)
			on++;
		if (on > n->grphi)
			on = k->mach.hk[l % k->mach.nhk];
		if (kthread_create_worker_on(k, &r->exp->leafk[l], "rcu_exp_par_gp_kworker", on, prio))
			return SIM_ENOMEM;
		workqueue_worker(r->exp->leafk[l], on)->id = l; /* its trace name's number */
	}
	return 0;
}

void rcu_exp_destroy(kmodel *k)
{
	if (!k->rcu.exp)
		return;
	destroy_workqueue(k->rcu.exp->kworker);
	for (int l = 0; l < k->rcu.exp->nleafk && k->rcu.exp->leafk; l++)
		destroy_workqueue(k->rcu.exp->leafk[l]);
	free(k->rcu.exp->leafk);
	free(k->rcu.exp->leaf_work);
	free(k->rcu.exp->wake.v);
	free(k->rcu.exp);
	k->rcu.exp = NULL;
}

uint64_t rcu_exp_seq(const kmodel *k)
{
	return k->rcu.exp ? k->rcu.exp->seq : 0;
}

void rcu_exp_request(kcpu *c, job *j, sim_time now)
{
	kmodel *k = c->k;
	krcu *r = &k->rcu;
	j->exp_s = rcu_seq_snap(r->exp->seq);
	assert(!j->exp_waiting);
	j->exp_waiting = true;
	j->wait_next = NULL;
	*r->exp->waiters_tail = j;
	r->exp->waiters_tail = &j->wait_next;
	if (rcu_ulong_cmp_lt(r->exp->need, j->exp_s))
		r->exp->need = j->exp_s;
	exp_kick(k, now);
}

void rcu_exp_report(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	krcu *r = &k->rcu;
	assert(c->rcu.exp_owes && r->exp->left > 0);
	c->rcu.exp_owes = false;
	c->rcu.exp_deferred = false;
	if (sim_timer_armed(&c->rcu.exp_rdr))
		sim_timer_cancel(k->eng, &c->rcu.exp_rdr);
	r->exp->left--;
	if (exp_done(r))
		exp_kick(k, now);
	else if (__builtin_expect(r->exp->boost, 0)) {
		/* Boosted at the engine's time: @now may be a handler's end,
		 * ahead of it, and the reader's CPU is another one. */
		rcu_tree_state *ts = rcu_tree_flavor_state(r->rsp);
		exp_leaf_boost(k, &ts->node[ts->rda[c->id].leaf], sim_now(k->eng));
	}
}

void rcu_exp_reader_preempted(kcpu *c, job *j)
{
	krcu *r = &c->k->rcu;
	if (!c->rcu.exp_owes)
		return;
	j->exp_blocks = true;
	r->exp->readers++;
	r->exp->readers_waited++;
}

void rcu_exp_reader_unlocked(kcpu *c, job *j, sim_time now)
{
	krcu *r = &c->k->rcu;
	j->exp_blocks = false;
	assert(r->exp->readers > 0);
	if (--r->exp->readers == 0 && exp_done(r))
		exp_kick(c->k, now);
}

/* Defer the report (rcu_exp_need_qs(): cpu_no_qs.b.exp, rcu_urgent_qs and a
 * reschedule). */
static void exp_defer(kcpu *c)
{
	c->rcu.exp_deferred = true;
	c->k->rcu.exp->ndeferred++;
	kcpu_resched(c, false);
}

void kcpu_exp_ipi_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	kmodel *k = c->k;
	krcu *r = &k->rcu;
	sim_time now = sim_now(eng);
	kcpu_settle_now(c);
	if (!c->rcu.exp_owes)
		return;
	if (c->fault & FAULT_IRQS_OFF) {
		/* Latched until interrupts are on again. */
		if (sim_timer_at(eng, &c->rcu.exp_ipi, k->fault.end > now ? k->fault.end : now + 1))
			kfail(k, SIM_ENOMEM);
		return;
	}
	sim_time cost = stretch(c, k->mach.irq_cost);
	r->exp->ipi_cpu_ns += cost;
	if (ktr(k))
		ktrace_irq(k, c, now, now + cost, 251);
	if (c->in_softirq) {
		/* Bottom halves off: deferred (the run's end, or a switch). */
		kcpu_extend_run(c, k->mach.irq_cost);
		exp_defer(c);
		return;
	}
	kcpu_account(c, now);
	c->irq_mode = IRQ_MODE_UNDRAWN;
	sim_time t = now + cost;
	sched_task *curr = c->rq.curr;
	if (!curr) {
		rcu_exp_report(c, t); /* rcu_is_cpu_rrupt_from_idle() */
	} else if (!r->preempt_rcu || !is_job(c, curr)) {
		exp_defer(c);
	} else if (!kcpu_irq_in_kernel(c) || !kcpu_irq_in_reader(c)) {
		rcu_exp_report(c, t);
	} else {
		/* Inside a reader: its rcu_read_unlock() reports (exp_hint),
		 * after a uniform share of a reader more of its work. */
		r->exp->hints++;
		double left = sim_rng_uniform(c->rng_mode) * ((const job *)c->rq.curr->owner)->wl->reader_len;
		if (sim_timer_at(eng, &c->rcu.exp_rdr, t + (sim_time)ceil(left / speed(c))))
			kfail(k, SIM_ENOMEM);
	}
	kcpu_hardirq_return(c, t);
}

void kcpu_exp_rdr_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	sim_time now = sim_now(eng);
	kcpu_settle_now(c);
	if (kcpu_rearm_past_interrupt(c, &c->rcu.exp_rdr, now))
		return; /* interrupted: it gets there once the CPU is its own again */
	if (c->rcu.exp_owes)
		rcu_exp_report(c, now);
}

int rcu_exp_finish(const kmodel *k, sim_metrics *m)
{
	const krcu *r = &k->rcu;
	if (!r->exp)
		return 0;
	int rc = metric_scalar(m, M_EXP_GPS, (double)r->exp->gps);
	rc |= metric_hist_scalars(m, M_EXP_DURATION_NS, r->exp->dur, SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	rc |= metric_scalar(m, M_EXP_IPIS, (double)r->exp->ipis);
	rc |= metric_scalar(m, M_EXP_IPI_CPU_NS, (double)r->exp->ipi_cpu_ns);
	rc |= metric_scalar(m, M_EXP_DEFERRED, (double)r->exp->ndeferred);
	rc |= metric_scalar(m, M_EXP_READER_HINTS, (double)r->exp->hints);
	rc |= metric_scalar(m, M_EXP_READERS_WAITED, (double)r->exp->readers_waited);
	uint64_t wakeups = workqueue_wakeups(r->exp->kworker);
	sim_time cpu_ns = workqueue_cpu_ns(r->exp->kworker);
	for (int l = 0; l < r->exp->nleafk; l++) {
		wakeups += workqueue_wakeups(r->exp->leafk[l]);
		cpu_ns += workqueue_cpu_ns(r->exp->leafk[l]);
	}
	rc |= metric_scalar(m, M_EXP_KWORKER_WAKEUPS, (double)wakeups);
	rc |= metric_scalar(m, M_EXP_KWORKER_CPU_NS, (double)cpu_ns);
	rc |= metric_scalar(m, M_EXP_STALL_WARNINGS, (double)r->exp->stalls);
	return rc ? SIM_ENOMEM : 0;
}
