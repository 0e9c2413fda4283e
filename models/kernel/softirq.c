/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * softirq.c - softirq runs: irq_exit() running pending softirqs
 * (__do_softirq, at most MAX_SOFTIRQ_RESTART passes, then
 * wakeup_softirqd()), ksoftirqd at nice 19 looping do_softirq/cond_resched,
 * and on sparc64 the trap returns that run them too. Follows
 * kernel/softirq.c of 2.6.14-2.6.16 and, with the softirq.* knobs, of 6.12
 * (handle_softirqs(): the time limit, need_resched, ksoftirqd_running() of
 * 4.9-6.4); arch/sparc64/kernel/rtrap.S (2.6.18).
 *
 * Where pending softirqs run depends on machine.arch: on x86_64 at irq_exit
 * only; on sparc64 also at every trap return (rtrap runs do_softirq before
 * it tests for a return to user or kernel mode): right after irq_exit's
 * run, at a reschedule IPI, and at every system-call return of the running
 * job. A softirq run is committed when it starts: each callback's
 * invocation time is the run's start plus the pass and callback costs
 * before it; ticks that land in a run lengthen it by their cost but do not
 * move the invocation times already recorded (an error below one tick cost
 * per tick, ~0.2% of the run at HZ 1000). Ticks arriving while a CPU is in
 * softirq do only their hardirq part (in_interrupt() stops irq_exit), which
 * re-raises the tasklet: the run then restarts at its end if it has passes
 * left. Left out: softirqs other than the RCU tasklet and device
 * interrupts' own softirq work.
 */
#include <assert.h>

#include "kernel/kernel_int.h"

/* May __do_softirq() go round again at @now? 2.6.16: while it has passes
 * left; 6.12 handle_softirqs() (kernel/softirq.c:569-574): also while
 * jiffies is before its end and need_resched() is clear. */
static bool may_restart(const kcpu *c, sim_time now)
{
	const ksoftirq *s = &c->k->softirq;
	return c->run_passes < s->max_restart &&
	       !(s->budget_j && now / c->k->mach.tick_ns >= c->run_end_j) &&
	       !(s->stop_on_resched && kcpu_need_resched(c));
}

/* Why may_restart() said no at @now: the first rule that stops it in
 * handle_softirqs()'s order (6.12 kernel/softirq.c:569-574: the time
 * budget, need_resched(), then --max_restart). */
static run_stop restart_refused(const kcpu *c, sim_time now)
{
	const ksoftirq *s = &c->k->softirq;
	if (s->budget_j && now / c->k->mach.tick_ns >= c->run_end_j)
		return RUN_STOP_BUDGET;
	if (s->stop_on_resched && kcpu_need_resched(c))
		return RUN_STOP_RESCHED;
	return RUN_STOP_RESTART;
}

/* The restart loop of __do_softirq() from @t, as many passes as the run
 * has left and may take (at least one): the RCU handler's list moves and a
 * batch, then rcu_do_batch once a pass while it re-raises itself (each
 * invoked callback runs its function, for files file_free_rcu ->
 * kmem_cache_free on this CPU). Under 6.x's restart rule the passes are
 * committed up to the first that the CPU's next tick lands in: that tick
 * may set need_resched (and moves jiffies), so whether the run goes on is
 * decided at that pass's end (kcpu_run_ended()). ksoftirqd reports
 * rcu_softirq_qs() after each pass (softirq.c 6.12:566-567). Commits every
 * invocation and arms the run's end (see kcpu_do_softirq()). */
static void do_softirq_passes(kcpu *c, sim_time t)
{
	kmodel *k = c->k;
	rcu_softirq_run run; /* RCU_SOFTIRQ's handler (k->doms.softirq) across the passes */
	sim_time at = t;
	bool more = false;
	check_settled(c);
	assert(c->run_passes < k->softirq.max_restart);
	rcu_softirq_begin(&k->doms, c, t, &run);
	c->run_cut = false;
	for (;;) {
		c->run_passes++;
		k->cnt.passes[c->run_ctx]++;
		rcu_softirq_pass(&k->doms, c, &run, &at, &more);
		if (c->run_ctx == RUN_KSOFTIRQD && !(c->fault & FAULT_NO_QS))
			rcu_softirq_qs(&k->doms, c);
		if (!more) {
			c->run_stop = RUN_STOP_EMPTY;
			break;
		}
		if (!may_restart(c, at)) {
			c->run_stop = restart_refused(c, at);
			break;
		}
		if (k->softirq.cut_at_tick && at > c->tick_when) {
			c->run_cut = true;
			break;
		}
	}
	c->run_more = more;
	rcu_softirq_end(&k->doms, c, t, &run); /* rcu_core()'s GP kthread wakeup, a deferred rcuog wakeup */
	if (c->run_ctx != RUN_KSOFTIRQD && !more && !c->run_raised && is_job(c, c->rq.curr) &&
	    !((const job *)c->rq.curr->owner)->wl->ops->next_block &&
	    !kthread_runnable_on(c) &&
	    (!c->need_resched || (!c->ksd_runnable && c->rq.nr_running > 0 &&
				  k->sched.preempt == PREEMPT_FULL && !k->rcu.preempt_rcu))) {
		/* Nothing happens at its end but the interrupted task going on,
		 * or a context switch to another task that is not ksoftirqd
		 * (schedule() changes only this CPU's state, and its core stays
		 * busy): no event, unless something lands on this CPU before
		 * then (kcpu_settle()), or one of its core's other threads
		 * changes speed (kcpu_update_busy()). Not where jobs block: the
		 * task going on arms its block's event from the run's end; nor
		 * where the switch may not happen (preempt=none or voluntary: a
		 * preemption point to arm) or the next task may arm its
		 * reader's unlock (PREEMPT_RCU). */
		c->run_lazy = true;
		c->run_end_at = at;
		c->run_seq = sim_engine_reserve_seq(k->eng);
		return;
	}
	if (sim_timer_at(k->eng, &c->done, at))
		kfail(k, SIM_ENOMEM);
}

/* __do_softirq() from @ctx starting at @t: up to max_restart passes.
 * Commits the whole run; arms done at its end, unless all that end does is
 * resume the interrupted task (then kcpu_settle() ends it lazily). */
void kcpu_do_softirq(kcpu *c, sim_time t, run_ctx ctx)
{
	c->in_softirq = true;
	c->run_ctx = ctx;
	c->run_start = t;
	c->run_passes = 0;
	c->run_raised = false;
	c->run_end_j = t / c->k->mach.tick_ns + c->k->softirq.budget_j;
	c->softirq_pending = false;
	c->k->cnt.runs[ctx]++;
	kcpu_update_busy(c);
	do_softirq_passes(c, t);
}

/* wakeup_softirqd(): wake this CPU's ksoftirqd if it sleeps. */
static void wakeup_softirqd(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	if (c->ksd_runnable)
		return;
	c->ksd_runnable = true;
	c->ksd_woken = now;
	c->ksd_waiting = true;
	k->cnt.ksd_wakeups++;
	if (ktr(k))
		ktrace_wakeup(k, c, now, &c->ksoftirqd);
	if (sched_wake(&k->sched.cfg, &c->rq, &c->ksoftirqd, now))
		kcpu_resched(c, true);
}

void kcpu_run_ended(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	if (c->run_cut || (c->run_raised && !c->run_more)) {
		/* Its passes stopped at a tick (6.x), or a tick in the run
		 * re-raised the tasklet (rcu_check_callbacks ->
		 * tasklet_schedule): __do_softirq restarts if its rule lets it,
		 * else the softirq stays pending. */
		c->run_raised = false;
		c->run_cut = false;
		if (may_restart(c, now)) {
			do_softirq_passes(c, now);
			return;
		}
		c->run_stop = restart_refused(c, now);
		c->softirq_pending = true;
	}
	k->cnt.run_stops[c->run_stop]++;
	sim_hist_add(k->h.softirq_run, (uint64_t)(now - c->run_start));
	if (c->run_ctx != RUN_KSOFTIRQD)
		sim_hist_add(k->h.softirq_irq_run, (uint64_t)(now - c->run_start));
	c->softirq_ns += now - c->run_start;
	c->in_softirq = false;
	rcu_softirq_done(&k->doms, c, now); /* rcu_core()'s deferred quiescent state */
	if (c->run_more)
		c->softirq_pending = true;
	if (c->run_ctx != RUN_KSOFTIRQD) {
		if (c->softirq_pending)
			wakeup_softirqd(c, now);
		if (c->run_ctx == RUN_IRQ_EXIT && k->mach.sparc64 && exit_runs_softirqs(c)) {
			/* rtrap_irq after irq_exit(): the bits __do_softirq left
			 * set send it to do_softirq() once more. */
			kcpu_do_softirq(c, now, RUN_TRAP_RETURN);
			return;
		}
		kcpu_update_busy(c);
		kcpu_irq_return(c, now);
		return;
	}
	/* ksoftirqd: rcu_softirq_qs() at the end of its handle_softirqs(), then
	 * cond_resched() between do_softirq() calls; sleep when nothing is
	 * pending. */
	if (!(c->fault & FAULT_NO_QS)) {
		rcu_softirq_qs(&k->doms, c);
		rcu_all_qs(&k->doms, c);
	}
	if (kcpu_need_resched(c)) {
		kcpu_schedule(c, now);
	} else if (c->softirq_pending) {
		kcpu_do_softirq(c, now, RUN_KSOFTIRQD);
	} else {
		sched_sleep(&k->sched.cfg, &c->rq, &c->ksoftirqd, now);
		c->ksd_runnable = false;
		kcpu_schedule(c, now);
	}
}

void kcpu_run_end(sim_engine *eng, sim_timer *tm)
{
	kcpu_run_ended(tm->ctx, sim_now(eng));
}

/* irq_exit() at @t: run pending softirqs (or, in the threaded-softirq
 * what-if, wake ksoftirqd for them), else reschedule if asked. On sparc64
 * the rtrap that follows finds nothing pending unless irq_exit's run left
 * it so (kcpu_run_ended()). */
void kcpu_irq_exit(kcpu *c, sim_time t)
{
	if (exit_runs_softirqs(c)) {
		kcpu_do_softirq(c, t, RUN_IRQ_EXIT);
		return;
	}
	if (c->softirq_pending)
		wakeup_softirqd(c, t);
	kcpu_irq_return(c, t);
}

/* A trap return on sparc64 at @t that is not an interrupt's (an IPI, a
 * system call): rtrap runs pending softirqs, then back to the task. */
void kcpu_trap_return(kcpu *c, sim_time t)
{
	if (exit_runs_softirqs(c)) {
		kcpu_do_softirq(c, t, RUN_TRAP_RETURN);
		return;
	}
	kcpu_irq_return(c, t);
}
