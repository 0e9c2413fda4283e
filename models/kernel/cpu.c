/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cpu.c - a CPU's state between events: what settles it before an event
 * touches it, the running task's CPU time, schedule() over the O(1) or
 * EEVDF runqueue (sched/), the return to the interrupted task (what RCU
 * asks of a CPU, kcpu_rcu_effect(), is rcu/rcu_domain.c's). Follows kernel/sched.c and kernel/rcupdate.c of 2.6.14-2.6.16
 * and, for Tree RCU, kernel/sched/core.c and kernel/rcu/tree.c of 6.12.
 *
 * The CPU model is five files (see kernel_int.h): this one; softirq.c
 * (__do_softirq, ksoftirqd); kthread.c (kernel threads of any kind, whose
 * RCU kinds are rcu/rcu_gp_kthread.c, rcu_cpu_kthread.c,
 * rcu_nocb_kthreads.c); tick.c (the timer interrupt); irq.c (IPIs, device
 * interrupts, system-call returns, a job's block and wakeup, injected
 * faults). Tasks preempted inside rcu_read_lock() and their boosting are
 * rcu/rcu_readers.c's.
 *
 * Events: one per tick (a single timer walks the CPUs in their
 * order, each CPU keeping its next tick's time and sequence number), one
 * per softirq run that has something to do at its end (a run that only
 * resumes the interrupted task, or switches to another task that is not
 * ksoftirqd, is settled when its CPU is next touched or a thread of its
 * core changes speed), one per IPI or device interrupt, one per
 * system-call return that runs pending softirqs (sparc64; armed only while
 * one is pending, at the time the job's next system call comes at its
 * current speed), one per kthread step with work, wakeup or timeout. CPU
 * costs are given at full core speed and 1.2 GHz and stretched by the
 * core's clock and by how many hardware threads of the core are busy when
 * the activity starts.
 *
 * RCU is reached only through every RCU domain's hooks (rcu/domain.h:
 * rcu_note_context_switch(), the idle loop's), the jobs
 * only through the workload's run(), whose effects (need_resched, IPIs, a
 * job going to sleep) are applied here.
 */
#include <assert.h>
#include <math.h>

#include "kernel/kernel_int.h"

void kcpu_settle_now(kcpu *c)
{
	kcpu_settle(c, sim_now(c->k->eng), sim_engine_cur_seq(c->k->eng), false);
}

/* @c's thread becomes busy or idle: its core's other threads run slower
 * or faster from now. A lazy run of theirs that ended before now reads the
 * count at its end (a context switch's cost), so it is settled first. */
void kcpu_update_busy(kcpu *c)
{
	bool busy = c->rq.curr || c->in_softirq;
	if (busy == c->busy)
		return;
	kmodel *k = c->k;
	kcpu *first = &k->cpu[c->core * k->mach.tpc];
	for (int i = 0; i < k->mach.tpc; i++)
		if (first[i].run_lazy && &first[i] != c)
			kcpu_settle(&first[i], sim_now(k->eng), sim_engine_cur_seq(k->eng), true);
	k->mach.core_busy[c->core] += busy ? 1 : -1;
	c->busy = busy;
}

/* Before anything touches @c at (@now, @seq) in the event order: a lazy
 * run that ended earlier in that order ends now (at its own time; nothing
 * else depended on it meanwhile), and one still going has its end armed
 * with the sequence number it was given (unless @peek, for a look that
 * changes nothing). */
void kcpu_settle(kcpu *c, sim_time now, uint64_t seq, bool peek)
{
	if (!c->run_lazy)
		return;
	if (c->run_end_at < now || (c->run_end_at == now && c->run_seq < seq)) {
		c->run_lazy = false;
		assert(!c->run_more && !c->run_raised && c->rq.curr);
		kcpu_run_ended(c, c->run_end_at);
	} else if (!peek) {
		c->run_lazy = false;
		if (sim_timer_at_seq(c->k->eng, &c->done, c->run_end_at, c->run_seq))
			kfail(c->k, SIM_ENOMEM);
	}
}

/* sparc64, softirqs pending on @c at @t, a job going on: arm the event of
 * its next system-call return (ret_sys_call -> rtrap), at the time its next
 * system call comes at its current speed. Otherwise none is armed. */
static void arm_sysret(kcpu *c, sim_time t)
{
	kmodel *k = c->k;
	if (!k->mach.sparc64 || !exit_runs_softirqs(c) || !is_job(c, c->rq.curr) ||
	    (c->fault & FAULT_IRQS_OFF)) {
		if (sim_timer_armed(&c->sysret))
			sim_timer_cancel(k->eng, &c->sysret);
		return;
	}
	const job *j = c->rq.curr->owner;
	double work = j->wl->ops->next_syscall(j->wl, j);
	if (!(work < 1e18))
		return; /* it makes no system call */
	sim_time at = t + (sim_time)ceil(work / speed(c));
	if (sim_timer_at(k->eng, &c->sysret, at))
		kfail(k, SIM_ENOMEM);
}

/* The running job at @t: arm the event where it blocks (workload
 * next_block), at the time its work gets there at its current speed;
 * otherwise none is armed. */
static void arm_jobev(kcpu *c, sim_time t)
{
	kmodel *k = c->k;
	if (!k->wl.ops->next_block && !k->nmore)
		return;
	const job *j = is_job(c, c->rq.curr) ? c->rq.curr->owner : NULL;
	double work = j && j->wl->ops->next_block && !(c->fault & FAULT_IRQS_OFF)
			      ? j->wl->ops->next_block(j->wl, j)
			      : INFINITY;
	if (!(work < 1e18)) {
		if (sim_timer_armed(&c->jobev))
			sim_timer_cancel(k->eng, &c->jobev);
		return;
	}
	if (sim_timer_at(k->eng, &c->jobev, t + (sim_time)ceil(work / speed(c))))
		kfail(k, SIM_ENOMEM);
}

/* The task on @c goes on at @t: its events re-armed. */
static void go_on(kcpu *c, sim_time t)
{
	t = kcpu_switch_end(c, t);
	c->seg_start = t;
	arm_sysret(c, t);
	arm_jobev(c, t);
	kthread_arm(c, t);
}

/* Back to the interrupted or returning task at @t: schedule() if
 * need_resched is set, else it goes on (and on sparc64 its next system call
 * returns through rtrap, which runs a softirq still pending). */
void kcpu_return_to_task(kcpu *c, sim_time t)
{
	if (c->need_resched) {
		kcpu_schedule(c, t);
		return;
	}
	go_on(c, t);
}

void kcpu_irq_return(kcpu *c, sim_time t)
{
	kmodel *k = c->k;
	preempt_model m = k->sched.preempt;
	sched_task *curr = c->rq.curr;
	if (c->need_resched && curr && (m == PREEMPT_NONE || m == PREEMPT_VOLUNTARY || c->resched_lazy)) {
		/* No irqentry_exit_cond_resched() (none, voluntary: kernel/sched/
		 * core.c 6.12:7420-7440), or a lazy request, which irq exit does
		 * not read (need_resched() is the full bit; lazy: the tick
		 * promotes it). A kernel thread goes on (under none and
		 * voluntary it reaches a preemption point within its step and is
		 * switched here as before); a job in kernel mode goes on to its
		 * next preemption point: its return to user, or under none and
		 * voluntary also a cond_resched(), a uniform share of its
		 * workload's kernel stretch away (it was interrupted at a uniform
		 * point of it; with workload.kstretch_sigma the stretch is drawn
		 * lognormal and length-biased: an interrupt lands in a long
		 * system call more often than in a short one, and the rest of
		 * the one it lands in is U x L with L lognormal of log-mean
		 * ln(mean) + sigma^2 / 2, as measured on the 6.18 guest's
		 * file churn). A job in a long kernel path (in_kernel) under
		 * lazy has no such point: the next tick preempts it. A job that
		 * blocked in the stretch just accounted calls schedule() itself,
		 * in every model. */
		bool lazy = c->resched_lazy;
		if (is_kthread(c, curr) && lazy) {
			c->irq_mode = IRQ_MODE_UNDRAWN;
			go_on(c, t);
			return;
		}
		if (is_job(c, curr) && !((job *)curr->owner)->sleeping && kcpu_irq_in_kernel(c)) {
			if (!sim_timer_armed(&c->resched_pt) && !(lazy && ((job *)curr->owner)->in_kernel)) {
				const kworkload *wl = ((job *)curr->owner)->wl;
				double work = sim_rng_uniform(c->rng_mode) * wl->kstretch;
				if (__builtin_expect(wl->kstretch_sigma > 0, 0)) {
					double sg = wl->kstretch_sigma;
					work *= sim_rng_lognormal(c->rng_mode, sg * sg / 2, sg);
				}
				if (sim_timer_at(k->eng, &c->resched_pt, t + (sim_time)ceil(work / speed(c))))
					kfail(k, SIM_ENOMEM);
			}
			c->irq_mode = IRQ_MODE_UNDRAWN;
			go_on(c, t);
			return;
		}
	}
	if (c->need_resched && k->rcu.preempt_rcu && is_job(c, curr) &&
	    !((job *)curr->owner)->sleeping && kcpu_irq_in_kernel(c) && kcpu_irq_in_reader(c)) {
		/* preempt=full (or a full request under lazy) with PREEMPT_RCU:
		 * preempted inside rcu_read_lock(), a uniform share of the reader
		 * left; the context switch queues it on its leaf first (unless it
		 * is there already, rcu_note_context_switch(), tree_plugin.h
		 * 6.12:332-353). A job that blocked (synchronize_rcu(), a sleep)
		 * did so outside any reader. */
		job *j = curr->owner;
		if (!j->rdr.queued && !(c->fault & FAULT_NO_QS))
			rcu_note_reader_preempted(&k->doms, c, j);
	}
	c->irq_mode = IRQ_MODE_UNDRAWN;
	kcpu_return_to_task(c, t);
}

/* __schedule()'s preempt for RCU (kernel/sched/core.c 6.12:6604): the task
 * leaving @c stays runnable (not a job or kthread gone to sleep, nor a
 * ksoftirqd with nothing left). */
static inline bool switch_preempts(const kcpu *c)
{
	sched_task *p = c->rq.curr;
	if (!p)
		return false;
	if (is_job(c, p))
		return !((const job *)p->owner)->sleeping;
	if (p == &c->ksoftirqd)
		return c->ksd_runnable;
	return !task_kthread(p)->sleeping;
}

/* schedule() at @now: the quiescent state RCU notes at a context switch,
 * then the pick. */
void kcpu_schedule(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	bool preempt = switch_preempts(c);
	check_settled(c);
	c->need_resched = false;
	c->resched_lazy = false;
	if (__builtin_expect(sim_timer_armed(&c->resched_pt), 0))
		sim_timer_cancel(k->eng, &c->resched_pt);
	if (__builtin_expect(sim_timer_armed(&c->unlock), 0)) {
		/* It leaves the CPU still inside its reader: what it ran of it
		 * (nothing while the switch to it was still under way). */
		job *j = c->rq.curr->owner;
		sim_timer_cancel(k->eng, &c->unlock);
		if (now > j->rdr_start)
			j->rdr_left -= (double)(now - j->rdr_start) * speed(c);
		if (j->rdr_left < 0)
			j->rdr_left = 0;
	}
	now = kcpu_switch_end(c, now);
	if (!(c->fault & FAULT_NO_QS))
		rcu_note_context_switch(&k->doms, c, now, preempt); /* every RCU domain's */
	sched_task *prev = c->rq.curr;
	if (is_kthread(c, prev)) {
		/* A kthread leaves the CPU (or may): its step's end moves. */
		kthread *kt = task_kthread(prev);
		if (sim_timer_armed(&kt->done))
			sim_timer_cancel(k->eng, &kt->done);
	}
	sched_task *next = sched_schedule(&k->sched.cfg, &c->rq, now);
	if (ktr(k) && next != prev)
		ktrace_switch(k, c, now, prev, next);
	if (c->rq.last_wait_ns > k->cnt.wait_max)
		k->cnt.wait_max = c->rq.last_wait_ns;
	if (!prev != !next) {
		/* The idle loop's extended quiescent state. */
		if (next) {
			rcu_idle_exit(&k->doms, c);
			k->cnt.idle_exits++;
			c->idle_exits++;
		} else {
			rcu_idle_enter(&k->doms, c);
			k->cnt.idle_entries++;
		}
	}
	kcpu_update_busy(c);
	sim_time t = now;
	if (next != prev)
		t += stretch(c, k->sched.ctxsw_cost);
	if (next == &c->ksoftirqd) {
		if (c->ksd_waiting) {
			if (now - c->ksd_woken > k->cnt.ksd_wait_max)
				k->cnt.ksd_wait_max = now - c->ksd_woken;
			sim_hist_add(k->h.ksd_wait, (uint64_t)(now - c->ksd_woken));
			c->ksd_waiting = false;
		}
		if (c->softirq_pending || c->run_more) {
			kcpu_do_softirq(c, t, RUN_KSOFTIRQD);
		} else {
			/* Woken but the work was done meanwhile: back to sleep. */
			sched_sleep(&k->sched.cfg, &c->rq, &c->ksoftirqd, t);
			c->ksd_runnable = false;
			kcpu_schedule(c, t);
		}
		return;
	}
	c->seg_start = t;
	if (is_kthread(c, next)) {
		kthread_runs(c, task_kthread(next), t);
		return;
	}
	/* Back in the reader it was preempted in: its unlock comes when it has
	 * run the rest. (rdr lies past the two lines of a job a switch reads:
	 * looked at only under PREEMPT_RCU.) */
	if (__builtin_expect(k->rcu.preempt_rcu, 0) && next && ((job *)next->owner)->rdr.queued) {
		job *j = next->owner;
		j->rdr_start = t;
		if (sim_timer_at(k->eng, &c->unlock, t + (sim_time)ceil(j->rdr_left / speed(c))))
			kfail(k, SIM_ENOMEM);
	}
	arm_sysret(c, t);
	arm_jobev(c, t);
}

void kcpu_extend_run(kcpu *c, sim_time cost_ns)
{
	check_settled(c);
	if (sim_timer_at(c->k->eng, &c->done, c->done.when + stretch(c, cost_ns)))
		kfail(c->k, SIM_ENOMEM);
}
