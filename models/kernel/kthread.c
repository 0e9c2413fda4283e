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

void kthread_kick(kthread *kt, sim_time t)
{
	kmodel *k = kt->cpu->k;
	if (!kt->sleeping || (sim_timer_armed(&kt->wake) && kt->wake.when <= t))
		return;
	if (sim_timer_at(k->eng, &kt->wake, t))
		kfail(k, SIM_ENOMEM);
}

void kthread_wake(kthread *kt, sim_time now, bool event)
{
	kcpu *c = kt->cpu;
	kmodel *k = c->k;
	if (!kt->sleeping)
		return;
	kt->sleeping = false;
	kt->step_due = true;
	kt->waiting = true;
	kt->woken = now;
	kt->wakeups++;
	if (sim_timer_armed(&kt->wake))
		sim_timer_cancel(k->eng, &kt->wake);
	if (ktr(k))
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
	kcpu_settle_now(c);
	if (kt->sleeping && kt->ops->wake_fire(c, kt, now))
		kthread_wake(kt, now, true);
}
