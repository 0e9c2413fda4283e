/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kthread.c - kernel threads bound to one CPU, of any kind (kthread_ops in
 * kernel_int.h): their wakeup (try_to_wake_up()), their work in steps of
 * CPU time that whatever interrupts them moves, and their sleep
 * (schedule() or schedule_timeout()). What a step does, what follows it and
 * whether a wakeup ends its wait are its kind's: rcu/rcu_gp_kthread.c,
 * rcu/rcu_cpu_kthread.c, rcu/rcu_nocb_kthreads.c. Follows kernel/kthread.c and
 * kernel/sched/core.c of 6.12 as far as a bound kthread needs them.
 */
#include <assert.h>
#include <math.h>

#include "kernel/kernel_int.h"

static void kthread_step(kcpu *c, kthread *kt, sim_time t);

int kthread_init(kmodel *k, kthread *kt, const kthread_ops *ops, kcpu *c, int prio)
{
	kt->ops = ops;
	kt->cpu = c;
	kt->sleeping = true;
	kt->waker = -1;
	kt->recent_cpu = -1;
	kt->next = c->kthreads;
	c->kthreads = kt;
	sched_task_init(&k->sched.cfg, &kt->task, 0);
	kt->task.fifo = prio > 0;
	sim_timer_init(k->eng, &kt->done, kthread_done_fire, kt);
	sim_timer_init(k->eng, &kt->wake, kthread_wake_fire, kt);
	return sched_attach(&k->sched.cfg, &c->rq);
}

bool kthread_runnable_on(const kcpu *c)
{
	for (const kthread *kt = c->kthreads; kt; kt = kt->next)
		if (!kt->sleeping)
			return true;
	return false;
}

void kthread_progress(kcpu *c, kthread *kt, sim_time now)
{
	if (now > c->seg_start) {
		kt->work -= (double)(now - c->seg_start) * speed(c);
		if (kt->work < 0)
			kt->work = 0;
		kt->cpu_ns += now - c->seg_start;
	}
	if (sim_timer_armed(&kt->done))
		sim_timer_cancel(c->k->eng, &kt->done);
}

void kthread_arm(kcpu *c, sim_time t)
{
	sched_task *p = c->rq.curr;
	if (!is_kthread(c, p))
		return;
	kthread *kt = task_kthread(p);
	if (!kt->in_step) {
		if (kt->step_due)
			kthread_step(c, kt, t);
		return;
	}
	if (sim_timer_at(c->k->eng, &kt->done, t + (sim_time)ceil(kt->work / speed(c))))
		kfail(c->k, SIM_ENOMEM);
}

void kthread_runs(kcpu *c, kthread *kt, sim_time t)
{
	if (kt->waiting) {
		if (t - kt->woken > kt->wait_max)
			kt->wait_max = t - kt->woken;
		if (kt->wait_hist)
			sim_hist_add(kt->wait_hist, (uint64_t)(t - kt->woken));
		kt->waiting = false;
	}
	kthread_arm(c, t);
}

void kthread_kick_by(kthread *kt, int waker, sim_time t)
{
	kmodel *k = kt->cpu->k;
	if (!kt->sleeping || kt->ttwu_queued || (sim_timer_armed(&kt->wake) && kt->wake.when <= t))
		return;
	kt->waker = waker;
	if (sim_timer_at(k->eng, &kt->wake, t))
		kfail(k, SIM_ENOMEM);
}

void kthread_kick(kthread *kt, sim_time t)
{
	kthread_kick_by(kt, -1, t);
}

/* ---- An unbound kthread's CPU: select_task_rq_fair() (kernel/sched/
 * fair.c 6.12:8589-8656) for a wake-up (WF_TTWU, no WF_SYNC: swake_up_one()
 * -> try_to_wake_up(p, TASK_NORMAL, 0)). The machine is one LLC (every
 * CPU shares it: cpus_share_cache()), its domains SMT (imbalance_pct 110)
 * and MC (117; topology.c 6.12:1660-1665); the kthread may run on the
 * housekeeping CPUs only (kthread(): housekeeping_cpumask(HK_TYPE_KTHREAD),
 * kernel/kthread.c 6.12:371; nohz_full= takes HK_FLAG_KTHREAD away from its
 * CPUs, isolation.c 6.12:194-199). Left out: wake_wide() (the GP kthread
 * wakes few tasks, its wakee_flips stay below sd_llc_size: 6.12:7331-
 * 7342), energy-aware placement (not on symmetric x86), SIS_UTIL's limit on
 * the idle scan, vcpu_is_preempted(), the CPUs' capacities (equal), and
 * task_h_load() of the kthread itself (a task asleep 99% of the time: its
 * load average is a few units against the hundreds of a busy CPU's). */

static bool allowed(const kcpu *c) { return !c->nohz_full; }

/* available_idle_cpu() (kernel/sched/syscalls.c 6.12:202-235): the idle
 * task current, nothing queued and no wake-list IPI on its way (idle_cpu()'s
 * rq->ttwu_pending, :212-215; kcpu_remote_wake_at()); a softirq run on the
 * idle task counts as idle. */
static bool idle_avail(const kcpu *c)
{
	return !c->rq.curr && c->rq.nr_running == 0 && c->ttwu_ipi_at <= sim_now(c->k->eng);
}

/* CPU @i as it is now in the event order (a lazy softirq run that ended
 * earlier ended: kcpu_settle() peeking, as the FQS scan reads CPUs). */
static kcpu *look(kmodel *k, int i)
{
	kcpu *c = &k->cpu[i];
	kcpu_settle(c, sim_now(k->eng), sim_engine_cur_seq(k->eng), true);
	return c;
}

static bool idle_at(kmodel *k, int i) { return idle_avail(look(k, i)); }

/* wake_affine() (fair.c 6.12:7426-7443): wake_affine_idle() (:7357-7381),
 * then wake_affine_weight() (:7383-7424, WA_BIAS): the waker's CPU @this
 * or the previous one. */
static int wake_affine(kmodel *k, int this, int prev, sim_time now)
{
	const kcpu *tc = look(k, this), *pc = look(k, prev);
	if (idle_avail(tc))
		return idle_avail(pc) ? prev : this;
	if (idle_avail(pc))
		return prev;
	/* The lowest domain spanning both: SMT siblings, or the LLC. */
	int pct = tc->core == pc->core ? 110 : 117;
	double this_eff = sched_eevdf_cpu_load(&tc->rq, now) * 100;
	double prev_eff = sched_eevdf_cpu_load(&pc->rq, now) * (100 + (pct - 100) / 2);
	return this_eff < prev_eff ? this : prev;
}

/* Are all of @cpu's core's threads allowed and idle (select_idle_core(),
 * fair.c 6.12:7612-7641)? */
static bool core_idle(kmodel *k, int cpu)
{
	int first = cpu - cpu % k->mach.tpc;
	for (int i = first; i < first + k->mach.tpc; i++)
		if (!allowed(&k->cpu[i]) || !idle_at(k, i))
			return false;
	return true;
}

/* select_idle_sibling() (fair.c 6.12:7843-7968) from @target. */
static int select_idle_sibling(kthread *kt, int prev, int target, bool commit)
{
	kmodel *k = kt->cpu->k;
	int n = k->mach.ncpus;
	if (idle_at(k, target))
		return target;
	if (prev != target && idle_at(k, prev))
		return prev; /* "the previous CPU is cache affine and idle" */
	int recent = kt->recent_cpu;
	if (commit)
		kt->recent_cpu = prev;
	if (recent >= 0 && recent != prev && recent != target && allowed(&k->cpu[recent]) &&
	    idle_at(k, recent))
		return recent;
	bool has_idle_core = false;
	if (k->mach.tpc > 1) {
		/* test_idle_cores(): the LLC's hint, taken as exact. */
		for (int i = 0; i < n && !has_idle_core; i += k->mach.tpc)
			has_idle_core = core_idle(k, i);
		if (!has_idle_core) { /* select_idle_smt() of prev (:7660-7677) */
			int first = prev - prev % k->mach.tpc;
			for (int i = first; i < first + k->mach.tpc; i++)
				if (i != prev && allowed(&k->cpu[i]) && idle_at(k, i))
					return i;
		}
	}
	/* select_idle_cpu() (:7708-7770): the LLC from target + 1 on. */
	int idle_cpu = -1;
	for (int j = 1; j <= n; j++) {
		int i = (target + j) % n;
		if (!allowed(&k->cpu[i]))
			continue;
		if (has_idle_core) {
			if (core_idle(k, i))
				return i;
			if (idle_cpu < 0 && idle_at(k, i))
				idle_cpu = i;
		} else if (idle_at(k, i)) {
			return i;
		}
	}
	return idle_cpu >= 0 ? idle_cpu : target;
}

int kthread_select_cpu(kthread *kt, int waker, sim_time now, bool commit)
{
	kmodel *k = kt->cpu->k;
	int prev = kt->cpu->id, target = prev;
	/* want_affine needs the waker's CPU among the task's (:8617); without
	 * it no domain has SD_BALANCE_WAKE and the fast path starts at prev. */
	if (waker >= 0 && waker != prev && allowed(&k->cpu[waker]))
		target = wake_affine(k, waker, prev, now);
	return select_idle_sibling(kt, prev, target, commit);
}

int kthread_unbind(kmodel *k, kthread *kt)
{
	kt->unbound = true;
	k->sched.cfg.pelt = true;
	for (int i = 0; i < k->mach.ncpus; i++)
		if (&k->cpu[i] != kt->cpu && allowed(&k->cpu[i]) &&
		    sched_attach(&k->sched.cfg, &k->cpu[i].rq))
			return SIM_ENOMEM;
	return 0;
}

void kthread_move(kthread *kt, kcpu *to)
{
	kcpu *from = kt->cpu;
	assert(kt->sleeping && !kt->task.on_rq && !kt->task.delayed);
	for (kthread **pp = &from->kthreads; *pp; pp = &(*pp)->next)
		if (*pp == kt) {
			*pp = kt->next;
			break;
		}
	kt->next = to->kthreads;
	to->kthreads = kt;
	kt->cpu = to;
}

void kthread_wake(kthread *kt, sim_time now, bool event)
{
	kthread_wake_by(kt, now, event, -1);
}

/* ttwu_do_activate() of @kt on its CPU at @now: enqueued, and the CPU
 * rescheduled if it preempts (an IPI's or the timer interrupt's return
 * when @event). @waker: the CPU the trace names, -1 the wakee's. */
static void kthread_activate(kthread *kt, sim_time now, bool event, int waker)
{
	kcpu *c = kt->cpu;
	kmodel *k = c->k;
	kt->sleeping = false;
	kt->step_due = true;
	kt->waiting = true;
	kt->woken = now;
	kt->wakeups++;
	if (sim_timer_armed(&kt->wake))
		sim_timer_cancel(k->eng, &kt->wake);
	if (ktr(k) && kt->unbound && waker >= 0)
		ktrace_wakeup_from(k, &k->cpu[waker], c, now, &kt->task);
	else if (ktr(k))
		ktrace_wakeup(k, c, now, &kt->task);
	if (!sched_wake(&k->sched.cfg, &c->rq, &kt->task, now))
		return;
	kcpu_resched(c, !kt->task.fifo); /* a SCHED_FIFO kthread's request is full */
	if (!event || c->in_softirq || (c->fault & FAULT_IRQS_OFF))
		return;
	/* The timer interrupt's return (under preempt=none or voluntary a job
	 * in kernel mode goes on to its next preemption point). */
	kcpu_account(c, now);
	c->irq_mode = IRQ_MODE_UNDRAWN;
	kcpu_irq_return(c, now);
}

void kthread_wake_by(kthread *kt, sim_time now, bool event, int waker)
{
	kcpu *c = kt->cpu;
	kmodel *k = c->k;
	if (!kt->sleeping || kt->ttwu_queued)
		return; /* already TASK_WAKING: on a wake list (try_to_wake_up()'s p->__state test) */
	/* ttwu_runnable() (core.c 6.12:3735-3759, 4195): one still queued
	 * (DELAY_DEQUEUE) is requeued where it is, unplaced. */
	if (kt->unbound && !kt->task.delayed) {
		int to = kthread_select_cpu(kt, waker, now, true);
		if (waker >= 0 && waker != c->id) {
			kt->remote_wakes++;
			kt->on_waker += to == waker;
		}
		if (to != c->id) {
			kt->migrations++;
			kthread_move(kt, &k->cpu[to]);
			c = kt->cpu;
			if (event) /* else the caller runs on it (its softirq run) */
				kcpu_settle_now(c);
			/* The wake-up reaches its new CPU as an IPI (its return
			 * reschedules there). */
			event = true;
		}
	}
	if (waker >= 0 && waker != c->id && !kt->task.delayed) {
		/* ttwu_queue(): to an idle CPU through its wake list, enqueued
		 * when the IPI lands (kcpu_remote_wake_at()). */
		sim_time at = kcpu_remote_wake_at(&k->cpu[waker], c, now);
		if (at > now) {
			kt->ttwu_queued = true;
			if (sim_timer_at(k->eng, &kt->wake, at))
				kfail(k, SIM_ENOMEM);
			return;
		}
	}
	kthread_activate(kt, now, event, waker);
}

/* The step of @kt that began at its CPU's seg_start ends at @t: what its
 * kind does then, and the next step at once (true), or it sleeps, or it is
 * preempted (false: the CPU rescheduled). */
static bool kthread_step_end(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	sim_time timeout = 0;
	rcu_gp_next next = kt->ops->step_end(c, kt, t, &timeout);
	if (next == RCU_GP_NEXT_RUN) {
		if (!kcpu_need_resched(c))
			return true;
		kt->step_due = true; /* preempted between steps */
		kcpu_schedule(c, t);
		return false;
	}
	kt->sleeping = true;
	sched_sleep(&k->sched.cfg, &c->rq, &kt->task, t);
	if (next == RCU_GP_NEXT_TIMEOUT &&
	    sim_timer_at(k->eng, &kt->wake, timeout > t ? timeout : t))
		kfail(k, SIM_ENOMEM);
	kcpu_schedule(c, t);
	return false;
}

/* @kt, running on @c, begins its next step at @t (its kind's); a step of
 * no work ends at once. */
static void kthread_step(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	for (;;) {
		kt->step_due = false;
		double work = kt->ops->step(c, kt, t);
		c->seg_start = t;
		if (work > 0) {
			kt->work = work;
			kt->in_step = true;
			if (sim_timer_at(k->eng, &kt->done, t + (sim_time)ceil(work / speed(c))))
				kfail(k, SIM_ENOMEM);
			return;
		}
		if (!kthread_step_end(c, kt, t))
			return;
	}
}

void kthread_done_fire(sim_engine *eng, sim_timer *tm)
{
	kthread *kt = tm->ctx;
	kcpu *c = kt->cpu;
	sim_time now = sim_now(eng);
	kcpu_settle_now(c);
	assert(c->rq.curr == &kt->task && !c->in_softirq && kt->in_step);
	kt->cpu_ns += now - c->seg_start;
	kt->work = 0;
	kt->in_step = false;
	c->seg_start = now;
	c->switch_left = 0;
	if (kthread_step_end(c, kt, now))
		kthread_step(c, kt, now);
}

void kthread_wake_fire(sim_engine *eng, sim_timer *tm)
{
	kthread *kt = tm->ctx;
	kcpu *c = kt->cpu;
	sim_time now = sim_now(eng);
	int waker = kt->waker;
	kt->waker = -1;
	kcpu_settle_now(c);
	if (kt->ttwu_queued) {
		/* The wake-list IPI lands: sched_ttwu_pending() enqueues it
		 * (core.c 6.12:3762-3797), the IPI's return reschedules. */
		kt->ttwu_queued = false;
		kthread_activate(kt, now, true, -1);
		return;
	}
	if (kt->sleeping && kt->ops->wake_fire(c, kt, now))
		kthread_wake_by(kt, now, true, waker);
}
