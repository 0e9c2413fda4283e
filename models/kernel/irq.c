/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * irq.c - the other events that land on a CPU: reschedule IPIs
 * (smp_send_reschedule(), resched_cpu()), device interrupts, on sparc64 a
 * system-call return that runs pending softirqs, the running job reaching
 * its block, a job's wakeup, and an injected fault's start and end.
 * Follows arch/x86_64/kernel/smp.c (2.6.16), arch/sparc64/kernel/smp.c and
 * entry.S (2.6.18), kernel/sched.c (2.6.16) and kernel/sched/core.c (6.12).
 * A reschedule IPI sets no need_resched on either architecture (only its
 * sender could).
 */
#include <assert.h>
#include <math.h>

#include "kernel/kernel_int.h"

/* A hardirq (device interrupt or IPI) lands on @c at @now: latched while
 * interrupts are off, or lengthening the softirq run in progress by its
 * cost (false: nothing more happens now); else the running job's work is
 * accounted up to it (true: its handler runs). */
static bool hardirq_lands(kcpu *c, sim_time now)
{
	kcpu_settle_now(c);
	if (c->fault & FAULT_IRQS_OFF) {
		c->fault_latched = true;
		return false;
	}
	if (c->in_softirq) {
		kcpu_extend_run(c, c->k->mach.irq_cost);
		return false;
	}
	kcpu_account(c, now);
	c->irq_mode = IRQ_MODE_UNDRAWN;
	return true;
}

/* A reschedule IPI (smp_send_reschedule()) lands. It sets no need_resched:
 * only a sender that set it first (resched_task(), not
 * force_quiescent_state()) makes the CPU switch. sparc64: one trap, whose
 * handler (smp_receive_signal_client) only clears the softint; rtrap runs
 * pending softirqs. x86_64: smp_reschedule_interrupt() only acks the APIC:
 * no irq_exit, no softirqs. */
void kcpu_ipi_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	kmodel *k = c->k;
	sim_time now = sim_now(eng);
	if (c->ipi_resched) {
		/* resched_cpu(): its sender set need_resched first (resched_curr()). */
		kcpu_settle_now(c);
		c->ipi_resched = false;
		kcpu_resched(c, false);
	}
	if (!hardirq_lands(c, now))
		return;
	kcpu_nohz_irq_enter(c);
	if (ktr(k))
		ktrace_irq(k, c, now, now + stretch(c, k->mach.irq_cost), 253);
	kcpu_hardirq_return(c, now + stretch(c, k->mach.irq_cost));
}

void kcpu_hardirq_return(kcpu *c, sim_time t)
{
	if (c->k->mach.sparc64)
		kcpu_trap_return(c, t);
	else
		kcpu_irq_return(c, t);
}

bool kcpu_rearm_past_interrupt(kcpu *c, sim_timer *tm, sim_time now)
{
	kmodel *k = c->k;
	if (!c->in_softirq && !(c->fault & FAULT_IRQS_OFF))
		return false;
	sim_time at = c->in_softirq ? (c->run_lazy ? c->run_end_at : c->done.when) : k->fault.end;
	if (sim_timer_at(k->eng, tm, at > now ? at : now + 1))
		kfail(k, SIM_ENOMEM);
	return true;
}

/* A device interrupt at @now: its handler cost, then irq_exit; the next
 * one a Poisson gap later. */
void kcpu_irq_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	kmodel *k = c->k;
	sim_time now = sim_now(eng);
	double gap = sim_rng_exponential(c->rng_irq, 1e9 / k->mach.irq_rate);
	if (sim_timer_after(eng, tm, (sim_time)llround(gap))) {
		kfail(k, SIM_ENOMEM);
		return;
	}
	kcpu_device_irq(c, now);
}

void kcpu_device_irq(kcpu *c, sim_time now)
{
	if (hardirq_lands(c, now)) {
		kcpu_nohz_irq_enter(c);
		kcpu_irq_exit(c, now + stretch(c, c->k->mach.irq_cost));
	}
}

void kcpu_sysret_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	sim_time now = sim_now(eng);
	kcpu_settle_now(c);
	if (c->in_softirq || !is_job(c, c->rq.curr) || (c->fault & FAULT_IRQS_OFF))
		return;
	kcpu_account(c, now);
	c->irq_mode = IRQ_MODE_USER; /* returning to user mode */
	kcpu_trap_return(c, now);
}

/* The running job reaches its block (synchronize_rcu): its work up to now,
 * then schedule() as it went to sleep. */
void kcpu_jobev_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	sim_time now = sim_now(eng);
	kcpu_settle_now(c);
	if (c->in_softirq || !is_job(c, c->rq.curr) || (c->fault & FAULT_IRQS_OFF))
		return; /* armed again when the job runs again */
	kcpu_account(c, now);
	kcpu_return_to_task(c, now);
}

/* try_to_wake_up() of a job whose retry sleep is over: runnable again,
 * and running now if it preempts (a softirq run in progress reschedules
 * at its end). */
void kcpu_job_wake_fire(sim_engine *eng, sim_timer *tm)
{
	job *j = tm->ctx;
	kcpu *c = j->cpu;
	sim_time now = sim_now(eng);
	j->sleeping = false;
	kcpu_settle_now(c);
	if (ktr(c->k))
		ktrace_wakeup(c->k, c, now, &j->task);
	if (!sched_wake(&c->k->sched.cfg, &c->rq, &j->task, now))
		return;
	kcpu_resched(c, true); /* a fair task's wakeup preemption */
	if (!c->in_softirq && !(c->fault & FAULT_IRQS_OFF)) {
		/* The hrtimer interrupt's return. */
		kcpu_account(c, now);
		c->irq_mode = IRQ_MODE_UNDRAWN;
		kcpu_irq_return(c, now);
	}
}

void kcpu_resched_pt_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	sim_time now = sim_now(eng);
	kcpu_settle_now(c);
	if (c->in_softirq || !is_job(c, c->rq.curr) || !c->need_resched || (c->fault & FAULT_IRQS_OFF))
		return; /* switched meanwhile, or in a softirq run whose end reschedules */
	kcpu_account(c, now);
	kcpu_schedule(c, now);
}

void kcpu_fault_begin(kcpu *c, sim_time now, unsigned kind)
{
	kmodel *k = c->k;
	kcpu_settle_now(c);
	if (ktr(k))
		ktrace_fault(k, c, now, k->fault.end, kind);
	if (kind == FAULT_IRQS_OFF) {
		if (c->in_softirq) {
			/* The run in progress spins through the window. */
			if (sim_timer_at(k->eng, &c->done, c->done.when + (k->fault.end - now)))
				kfail(k, SIM_ENOMEM);
		} else {
			kcpu_account(c, now);
		}
		if (sim_timer_armed(&c->sysret))
			sim_timer_cancel(k->eng, &c->sysret);
	}
	c->fault |= kind;
}

void kcpu_fault_end(kcpu *c, sim_time now)
{
	kcpu_settle_now(c);
	bool irqs_off = c->fault & FAULT_IRQS_OFF;
	c->fault = 0;
	if (!irqs_off || c->in_softirq)
		return;
	/* The task made no progress with interrupts off; the interrupt that
	 * came meanwhile is taken now (irq_exit), else it just goes on. */
	c->seg_start = now;
	c->irq_mode = IRQ_MODE_UNDRAWN;
	if (c->fault_latched) {
		c->fault_latched = false;
		kcpu_irq_exit(c, now + stretch(c, c->k->mach.irq_cost));
	} else {
		kcpu_irq_return(c, now);
	}
}
