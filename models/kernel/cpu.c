/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kcpu.c - what each CPU does between call_rcu() and the callback: timer
 * ticks (update_process_times: rcu_check_callbacks, then scheduler_tick),
 * irq_exit running softirqs (__do_softirq, at most MAX_SOFTIRQ_RESTART
 * passes, then wakeup_softirqd), ksoftirqd at nice 19 looping
 * do_softirq/cond_resched, schedule() over the O(1) or EEVDF runqueue
 * (models/sched.c, sched_eevdf.c), reschedule IPIs and device interrupts,
 * and cache_reap; for Tree RCU also its kernel threads (the GP kthread,
 * rcuc, rcuog and rcuo: struct kthread, steps of CPU time), resched_cpu()
 * IPIs that set need_resched, the idle loop's extended quiescent state,
 * and nohz idle (an idle CPU without callbacks takes no tick).
 * Where pending softirqs run depends on machine.arch: on x86_64 at irq_exit
 * only; on sparc64 also at every trap return (rtrap runs do_softirq before
 * it tests for a return to user or kernel mode): right after irq_exit's
 * run, at a reschedule IPI (a trap whose handler only clears the softint),
 * and at every system-call return of the running job. A reschedule IPI
 * sets no need_resched on either (only its sender could).
 * Kernel sources: kernel/timer.c, kernel/softirq.c, kernel/sched.c,
 * kernel/rcupdate.c, mm/slab.c of 2.6.14-2.6.16; arch/sparc64/kernel/
 * rtrap.S, entry.S and smp.c (2.6.18), arch/x86_64/kernel/smp.c (2.6.16).
 *
 * Events: one per tick (a single timer walks the CPUs in their staggered
 * order, each CPU keeping its next tick's time and sequence number), one
 * per softirq run that has something to do at its end (a run that only
 * resumes the interrupted task, or switches to another task that is not
 * ksoftirqd, is settled when its CPU is next touched or a thread of its
 * core changes speed),
 * one per IPI or device interrupt, one per system-call return that runs
 * pending softirqs (sparc64; armed only while one is pending, at the time
 * the job's next system call comes at its current speed), one per kthread
 * step with work, wakeup or timeout. A softirq run is committed when it
 * starts: each callback's invocation time is the run's start plus the pass
 * and callback costs before it; ticks that land in a run lengthen it by
 * their cost but do not move the invocation times already recorded (an
 * error below one tick cost per tick, ~0.2% of the run at HZ 1000).
 * Whether a tick lands in user or kernel mode is a Bernoulli draw with the
 * job's share of CPU time in system calls. CPU costs are given at full core
 * speed and 1.2 GHz and stretched by the core's clock and by how many
 * hardware threads of the core are busy when the activity starts.
 * Left out: the _bh flavour of RCU, nohz_full's tick stop, CPU hotplug,
 * softirqs other than the RCU tasklet and device interrupts' own softirq
 * work. Ticks arriving
 * while a CPU is in softirq do only their hardirq part (in_interrupt()
 * stops irq_exit), which re-raises the tasklet: the run then restarts at
 * its end if it has passes left.
 *
 * RCU is reached only through the flavor's table (k->rcu.ops), the jobs
 * only through the workload's run(), whose effects (need_resched, IPIs, a
 * job going to sleep) are applied here.
 *
 * What the speed relies on, checked with RCUSIM_CHECKS: a lazy run is
 * settled (kcpu_settle) before anything touches its CPU, so every handler
 * that reaches a CPU settles it first ("kcpu.settled"); the one tick timer
 * fires for the CPU and sequence number it was armed with ("kcpu.tick").
 */
#include <assert.h>
#include <math.h>

#include "kernel/kernel_int.h"

/* With the checks on: no lazy softirq run on @c ends before the event being
 * dispatched (it was settled). */
static inline void check_settled(const kcpu *c)
{
	RCUSIM_CHECK(!c->run_lazy || c->run_end_at > sim_now(c->k->eng) ||
			     (c->run_end_at == sim_now(c->k->eng) &&
			      c->run_seq > sim_engine_cur_seq(c->k->eng)),
		     "kcpu.settled");
}

/* kcpu_settle() for an event on @c being dispatched now. */
static void kcpu_settle_now(kcpu *c)
{
	kcpu_settle(c, sim_now(c->k->eng), sim_engine_cur_seq(c->k->eng), false);
}

/* @c's thread becomes busy or idle: its core's other threads run slower
 * or faster from now. A lazy run of theirs that ended before now reads the
 * count at its end (a context switch's cost), so it is settled first. */
static inline void update_busy(kcpu *c)
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

/* ---- softirq runs ------------------------------------------------------- */

static void arm_sysret(kcpu *c, sim_time t);
static void arm_jobev(kcpu *c, sim_time t);
static void arm_kthread(kcpu *c, sim_time t);
static inline __attribute__((always_inline)) void kcpu_account(kcpu *c, sim_time now);
static void gp_kthread_kick(kmodel *k, sim_time now);
static void rcuc_raise(kcpu *c, sim_time now);

/* Is one of the RCU flavor's kthreads runnable on @c (its pick would start
 * a step: no lazy context switch)? */
static inline bool kthread_runnable_on(const kcpu *c)
{
	const kthread *g = c->k->rcu.gpk;
	return (g && g->cpu == c && !g->sleeping) || (c->rcuc && !c->rcuc->sleeping) ||
	       (c->rcuog && !c->rcuog->sleeping) || (c->rcuo && !c->rcuo->sleeping);
}

/* @n callbacks invoked, the first at @at and each @cost later (all at or
 * after now): the machine-wide queue shrinks at each of those times. */
static inline void count_invoked(kmodel *k, int64_t n, sim_time at, sim_time cost)
{
	cb_stats *cb = &k->rcu.cb;
	sim_time now = sim_now(k->eng);
	sim_tavg_add_at(&cb->qtotal, now, now, -n);
	cb->qtotal.area += (__int128)n * (at - now) + (__int128)cost * n * (n - 1) / 2;
	cb->invoked += (uint64_t)n;
}

/* Pending softirqs run here, at an exit point (irq_exit, a trap return):
 * unless they run only in threads (softirq.in_irq_exit = no), or a runnable
 * ksoftirqd is left to do them (ksoftirqd_running(), 4.9-6.4). */
static inline bool exit_runs_softirqs(const kcpu *c)
{
	return c->softirq_pending && c->k->softirq.in_irq_exit &&
	       !(c->k->softirq.defer && c->ksd_runnable);
}

/* The restart loop of __do_softirq() from @t, as many passes as the run
 * has left (at least one): the RCU handler's list moves and a batch, then
 * rcu_do_batch once a pass while it re-raises itself (each invoked callback
 * runs its function, for files file_free_rcu -> kmem_cache_free on this
 * CPU). Commits every invocation and arms the run's end (see
 * __do_softirq()). */
static void do_softirq_passes(kcpu *c, sim_time t)
{
	kmodel *k = c->k;
	const rcu_flavor *rf = k->rcu.ops;
	sim_time pass = stretch(c, k->softirq.pass_cost + k->rcu.handler_cost);
	sim_time cost = stretch(c, k->rcu.cb_cost);
	sim_time at = t;
	bool more = false;
	bool first = true;
	rcu_core_ctx b = { .now = t, .cost_ns = cost, .need_resched = c->need_resched,
			   .idle_task = !c->rq.curr, .kthread = false };
	rcu_call_effect e = { false, false, false, false };
	check_settled(c);
	assert(c->run_passes < k->softirq.max_restart);
	while (c->run_passes < k->softirq.max_restart) {
		c->run_passes++;
		at += pass;
		b.first_ns = at;
		int64_t n = first ? rf->rcu_process_callbacks(k->rcu.rsp, c->id, &b, &more, &e)
				  : rf->rcu_do_batch(k->rcu.rsp, c->id, &b, &more, &e);
		first = false;
		if (n) {
			/* The queue shrinks at each invocation time (at, at + cost,
			 * ...), all at or after now: count them until then. */
			count_invoked(k, n, at, cost);
			at += cost * n;
		}
		if (!more || (k->softirq.time_limit && at - c->run_start >= k->softirq.time_limit) ||
		    (k->softirq.stop_on_resched && c->need_resched))
			break;
	}
	c->run_more = more;
	if (e.wake_gp)
		gp_kthread_kick(k, t);
	if (__builtin_expect(k->rcu.nocb, 0))
		kcpu_nocb_kicks(k, t); /* a deferred rcuog wakeup from rcu_core() */
	if (c->run_ctx != RUN_KSOFTIRQD && !more && is_job(c, c->rq.curr) && !k->wl.ops->next_block &&
	    !kthread_runnable_on(c) &&
	    (!c->need_resched || (!c->ksd_runnable && c->rq.nr_running > 0))) {
		/* Nothing happens at its end but the interrupted task going on,
		 * or a context switch to another task that is not ksoftirqd
		 * (schedule() changes only this CPU's state, and its core stays
		 * busy): no event, unless something lands on this CPU before
		 * then (kcpu_settle()), or one of its core's other threads
		 * changes speed (update_busy()). Not where jobs block: the
		 * task going on arms its block's event from the run's end. */
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
static void __do_softirq(kcpu *c, sim_time t, run_ctx ctx)
{
	c->in_softirq = true;
	c->run_ctx = ctx;
	c->run_start = t;
	c->run_passes = 0;
	c->run_raised = false;
	c->softirq_pending = false;
	c->k->cnt.runs[ctx]++;
	update_busy(c);
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
	if (sched_wake(&k->sched.cfg, &c->rq, &c->ksoftirqd, now))
		c->need_resched = true;
}

/* Back to the interrupted or returning task at @t: schedule() if
 * need_resched is set, else it goes on (and on sparc64 its next system call
 * returns through rtrap, which runs a softirq still pending). */
static void return_to_task(kcpu *c, sim_time t)
{
	if (c->need_resched) {
		kcpu_schedule(c, t);
		return;
	}
	c->seg_start = t;
	arm_sysret(c, t);
	arm_jobev(c, t);
	arm_kthread(c, t);
}

/* The softirq run on @c ends at @now. */
static void run_ended(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	if (c->run_raised && !c->run_more) {
		/* A tick in the run re-raised the tasklet (rcu_check_callbacks ->
		 * tasklet_schedule): __do_softirq restarts if it has passes left,
		 * else the softirq stays pending. */
		c->run_raised = false;
		if (c->run_passes < k->softirq.max_restart) {
			do_softirq_passes(c, now);
			return;
		}
		c->softirq_pending = true;
	}
	sim_hist_add(k->h.softirq_run, (uint64_t)(now - c->run_start));
	c->softirq_ns += now - c->run_start;
	c->in_softirq = false;
	if (c->run_more)
		c->softirq_pending = true;
	if (c->run_ctx != RUN_KSOFTIRQD) {
		if (c->softirq_pending)
			wakeup_softirqd(c, now);
		if (c->run_ctx == RUN_IRQ_EXIT && k->mach.sparc64 && exit_runs_softirqs(c)) {
			/* rtrap_irq after irq_exit(): the bits __do_softirq left
			 * set send it to do_softirq() once more. */
			__do_softirq(c, now, RUN_TRAP_RETURN);
			return;
		}
		update_busy(c);
		return_to_task(c, now);
		return;
	}
	/* ksoftirqd: rcu_softirq_qs() at the end of its handle_softirqs(), then
	 * cond_resched() between do_softirq() calls; sleep when nothing is
	 * pending. */
	if (k->rcu.ops->softirq_qs && !(c->fault & FAULT_NO_QS)) {
		k->rcu.ops->softirq_qs(k->rcu.rsp, c->id);
		k->rcu.ops->cond_resched(k->rcu.rsp, c->id);
	}
	if (c->need_resched) {
		kcpu_schedule(c, now);
	} else if (c->softirq_pending) {
		__do_softirq(c, now, RUN_KSOFTIRQD);
	} else {
		sched_sleep(&k->sched.cfg, &c->rq, &c->ksoftirqd, now);
		c->ksd_runnable = false;
		kcpu_schedule(c, now);
	}
}

void kcpu_run_end(sim_engine *eng, sim_timer *tm)
{
	run_ended(tm->ctx, sim_now(eng));
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
		run_ended(c, c->run_end_at);
	} else if (!peek) {
		c->run_lazy = false;
		if (sim_timer_at_seq(c->k->eng, &c->done, c->run_end_at, c->run_seq))
			kfail(c->k, SIM_ENOMEM);
	}
}

/* irq_exit() at @t: run pending softirqs (or, in the threaded-softirq
 * what-if, wake ksoftirqd for them), else reschedule if asked. On sparc64
 * the rtrap that follows finds nothing pending unless irq_exit's run left
 * it so (run_ended()). */
static void irq_exit(kcpu *c, sim_time t)
{
	if (exit_runs_softirqs(c)) {
		__do_softirq(c, t, RUN_IRQ_EXIT);
		return;
	}
	if (c->softirq_pending)
		wakeup_softirqd(c, t);
	return_to_task(c, t);
}

/* A trap return on sparc64 at @t that is not an interrupt's (an IPI, a
 * system call): rtrap runs pending softirqs, then back to the task. */
static void trap_return(kcpu *c, sim_time t)
{
	if (exit_runs_softirqs(c)) {
		__do_softirq(c, t, RUN_TRAP_RETURN);
		return;
	}
	return_to_task(c, t);
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
	double work = k->wl.ops->next_syscall(&k->wl, c->rq.curr->owner);
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
	if (!k->wl.ops->next_block)
		return;
	double work = is_job(c, c->rq.curr) && !(c->fault & FAULT_IRQS_OFF)
			      ? k->wl.ops->next_block(&k->wl, c->rq.curr->owner)
			      : INFINITY;
	if (!(work < 1e18)) {
		if (sim_timer_armed(&c->jobev))
			sim_timer_cancel(k->eng, &c->jobev);
		return;
	}
	if (sim_timer_at(k->eng, &c->jobev, t + (sim_time)ceil(work / speed(c))))
		kfail(k, SIM_ENOMEM);
}

/* ---- the RCU flavor's kthreads ------------------------------------------- */

static void kthread_step(kcpu *c, kthread *kt, sim_time t);

/* The running kthread @kt's work since seg_start, at @now: its step's end
 * is no longer where it was armed (re-armed by arm_kthread()). */
static void kthread_progress(kcpu *c, kthread *kt, sim_time now)
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

/* The running task of @c at @t, if it is a kthread in a step: arm the
 * step's end at its current speed. */
static void arm_kthread(kcpu *c, sim_time t)
{
	sched_task *p = c->rq.curr;
	if (!p || p->owner || p == &c->ksoftirqd)
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

/* @kt was picked to run on @c from @t. */
static void kthread_runs(kcpu *c, kthread *kt, sim_time t)
{
	if (kt->waiting) {
		if (t - kt->woken > kt->wait_max)
			kt->wait_max = t - kt->woken;
		kt->waiting = false;
	}
	arm_kthread(c, t);
}

/* Wake @kt at @now. From its CPU's own event (@event), a preempting
 * wakeup reschedules at once; from inside a handler, it sets need_resched
 * for the handler's return. */
static void kthread_wake(kthread *kt, sim_time now, bool event)
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
	if (!sched_wake(&k->sched.cfg, &c->rq, &kt->task, now))
		return;
	if (!event || c->in_softirq || (c->fault & FAULT_IRQS_OFF)) {
		c->need_resched = true;
		return;
	}
	kcpu_account(c, now);
	kcpu_schedule(c, now);
}

/* rcu_gp_kthread_wake() from anywhere at @now: the GP kthread, if it
 * sleeps and its wait would end, is woken on its CPU (an event there). */
static void gp_kthread_kick(kmodel *k, sim_time now)
{
	kthread *kt = k->rcu.gpk;
	if (!kt || !kt->sleeping || (sim_timer_armed(&kt->wake) && kt->wake.when <= now) ||
	    !k->rcu.ops->gp_wakeable(k->rcu.rsp))
		return;
	if (sim_timer_at(k->eng, &kt->wake, now))
		kfail(k, SIM_ENOMEM);
}

/* invoke_rcu_core() on @c at @now with RCU core work in rcuc kthreads
 * (invoke_rcu_core_kthread(), tree.c 6.12:2848-2862): work for rcuc,
 * woken unless it is yielding (then only from idle). */
static void rcuc_raise(kcpu *c, sim_time now)
{
	kthread *kt = c->rcuc;
	kt->has_work = true;
	if (kt->sleeping && (!kt->yielding || !c->rq.curr))
		kthread_wake(kt, now, false);
}

/* What invoke_rcu_core() does on @c: RCU_SOFTIRQ or rcuc. */
static inline void rcu_raise(kcpu *c, sim_time now)
{
	if (c->rcuc)
		rcuc_raise(c, now);
	else
		c->softirq_pending = true;
}

/* One pass of rcu_cpu_kthread() (tree.c 6.12:2894-2921) on @c at @t:
 * rcu_core() if it has work, invoking without a count limit. Returns
 * its work, ns at full speed. */
static double rcuc_pass(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	if (!kt->spincnt)
		kt->step_start = t;
	kt->spincnt++;
	if (!kt->has_work)
		return 0;
	kt->has_work = false;
	sim_time pass = stretch(c, k->rcu.handler_cost), cost = stretch(c, k->rcu.cb_cost);
	rcu_core_ctx b = { .now = t, .first_ns = t + pass, .cost_ns = cost,
			   .need_resched = c->need_resched, .idle_task = false, .kthread = true };
	rcu_call_effect e = { false, false, false, false };
	bool more = false;
	int64_t n = k->rcu.ops->rcu_process_callbacks(k->rcu.rsp, c->id, &b, &more, &e);
	if (n)
		count_invoked(k, n, t + pass, cost);
	if (more)
		kt->has_work = true;
	if (e.wake_gp)
		gp_kthread_kick(k, t);
	if (k->rcu.nocb)
		kcpu_nocb_kicks(k, t);
	return (double)(k->rcu.handler_cost + n * k->rcu.cb_cost);
}

/* Wake @kt (rcuog or rcuo) from anywhere at @now: an event on its CPU at
 * now, which wakes it if it still sleeps and its wait would end (a kick
 * while it runs is seen when its step ends: kthread_step_end()). */
static void nocb_kthread_kick(kmodel *k, kthread *kt, sim_time now)
{
	if (!kt->sleeping || (sim_timer_armed(&kt->wake) && kt->wake.when <= now))
		return;
	if (sim_timer_at(k->eng, &kt->wake, now))
		kfail(k, SIM_ENOMEM);
}

void kcpu_nocb_kicks(kmodel *k, sim_time now)
{
	const rcu_flavor *rf = k->rcu.ops;
	const rcu_nocb_kick *kk;
	size_t n = rf->nocb_kicks(k->rcu.rsp, &kk);
	for (size_t i = 0; i < n; i++) {
		int id = kk[i].id;
		switch (kk[i].kind) {
		case RCU_KICK_RCUOG:
			nocb_kthread_kick(k, &k->rcu.rcuog[id], now);
			break;
		case RCU_KICK_RCUO:
			nocb_kthread_kick(k, k->cpu[id].rcuo, now);
			break;
		case RCU_KICK_TIMER: {
			sim_timer *tm = &k->rcu.rcuog[id].nocb_timer;
			sim_time when;
			if (!rf->nocb_timer_when(k->rcu.rsp, id, &when)) {
				if (sim_timer_armed(tm))
					sim_timer_cancel(k->eng, tm);
			} else if (sim_timer_at(k->eng, tm, when > now ? when : now)) {
				kfail(k, SIM_ENOMEM);
			}
			break;
		}
		}
	}
}

/* One batch of rcuo @kt (nocb_cb_wait(), tree_nocb.h 6.12:883-933) on @c at
 * @t: the ready callbacks after the pass cost, no count or time limit but a
 * cond_resched() after each, so the batch ends at the first callback
 * boundary at or after the CPU's next tick (where need_resched comes from
 * the scheduler); another batch follows at once if callbacks are left.
 * Returns its work, ns at full speed. */
static double rcuo_pass(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	sim_time pass = stretch(c, k->rcu.handler_cost), cost = stretch(c, k->rcu.cb_cost);
	rcu_core_ctx b = { .now = t, .first_ns = t + pass, .cost_ns = cost,
			   .need_resched = c->need_resched, .idle_task = false, .kthread = true };
	sim_time tick = c->tick_when;
	while (tick < b.first_ns)
		tick += k->mach.tick_ns;
	int64_t max = cost > 0 ? (tick - b.first_ns + cost - 1) / cost : 0;
	if (cost > 0 && max < 1)
		max = 1;
	k->rcu.ops->rcuo_step(k->rcu.rsp, c->id, &b, max, &kt->nw);
	int64_t n = kt->nw.invoked;
	kt->invoked += (uint64_t)n;
	if (n)
		count_invoked(k, n, b.first_ns, cost);
	if (kt->nw.wake_gp)
		gp_kthread_kick(k, t);
	return (double)(k->rcu.handler_cost + n * k->rcu.cb_cost);
}

/* The step of @kt that began at its CPU's seg_start ends at @t: what the
 * GP kthread leaves to do (resched_cpu() the CPUs its FQS scan named),
 * then the next step at once (true), or it sleeps, or it is preempted
 * (false: the CPU rescheduled). */
static bool kthread_step_end(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	rcu_gp_next next;
	sim_time timeout = 0;
	if (kt->kind == KT_GP) {
		for (int i = 0; i < kt->gpw.nresched; i++) {
			int cpu = kt->gpw.resched[i];
			kcpu *o = &k->cpu[cpu];
			k->rcu.resched_ipis++;
			if (o == c) { /* resched_curr() of its own CPU */
				c->need_resched = true;
				continue;
			}
			k->cnt.ipis++;
			o->ipi_resched = true;
			if (!sim_timer_armed(&o->ipi) && sim_timer_at(k->eng, &o->ipi, t))
				kfail(k, SIM_ENOMEM);
		}
		kt->gpw.nresched = 0;
		next = kt->gpw.next;
		timeout = kt->gpw.timeout_ns;
		/* A wakeup during the step (the last quiescent state, a request)
		 * found it running; its swait re-checks the condition before it
		 * sleeps. */
		if (next != RCU_GP_NEXT_RUN && k->rcu.ops->gp_wakeable(k->rcu.rsp))
			next = RCU_GP_NEXT_RUN;
	} else if (kt->kind == KT_RCUOG || kt->kind == KT_RCUO) {
		/* swait_event(): on while the wait's condition holds (it may
		 * have become true during the step). */
		bool on = kt->kind == KT_RCUOG ? k->rcu.ops->rcuog_wakeable(k->rcu.rsp, kt->id)
					       : k->rcu.ops->rcuo_wakeable(k->rcu.rsp, kt->id);
		next = on ? RCU_GP_NEXT_RUN : RCU_GP_NEXT_SLEEP;
	} else if (kt->has_work && kt->spincnt < 10) {
		next = RCU_GP_NEXT_RUN;
	} else {
		/* Ten passes with work left: schedule_timeout_idle(2); else
		 * wait for work. */
		sim_hist_add(k->rcu.rcuc_run, (uint64_t)(t - kt->step_start));
		kt->spincnt = 0;
		kt->yielding = kt->has_work;
		next = kt->yielding ? RCU_GP_NEXT_TIMEOUT : RCU_GP_NEXT_SLEEP;
		timeout = t + 2 * k->mach.tick_ns;
	}
	if (next == RCU_GP_NEXT_RUN) {
		if (!c->need_resched)
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

/* @kt, running on @c, begins its next step at @t: the GP kthread's
 * (rcu_flavor.gp_step: every CPU is settled first, as its FQS scan reads
 * them) or an rcuc pass; a step of no work ends at once. */
static void kthread_step(kcpu *c, kthread *kt, sim_time t)
{
	kmodel *k = c->k;
	for (;;) {
		double work;
		kt->step_due = false;
		if (kt->kind == KT_GP) {
			uint64_t seq = sim_engine_cur_seq(k->eng);
			for (int i = 0; i < k->mach.ncpus; i++)
				if (&k->cpu[i] != c)
					kcpu_settle(&k->cpu[i], sim_now(k->eng), seq, true);
			k->rcu.ops->gp_step(k->rcu.rsp, c->id, t, &kt->gpw);
			work = (double)(kt->gpw.nodes * k->rcu.node_cost +
					kt->gpw.cpus * k->rcu.fqs_cpu_cost);
			if (k->rcu.nocb)
				kcpu_nocb_kicks(k, t); /* rcu_nocb_gp_cleanup() */
		} else if (kt->kind == KT_RCUOG) {
			/* One nocb_gp_wait() pass at rcu.tasklet_cost. */
			k->rcu.ops->rcuog_step(k->rcu.rsp, kt->id, t, &kt->nw);
			work = (double)k->rcu.handler_cost;
			if (kt->nw.wake_gp)
				gp_kthread_kick(k, t);
			kcpu_nocb_kicks(k, t);
		} else if (kt->kind == KT_RCUO) {
			work = rcuo_pass(c, kt, t);
		} else {
			work = rcuc_pass(c, kt, t);
		}
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

void kcpu_kthread_done_fire(sim_engine *eng, sim_timer *tm)
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
	if (kthread_step_end(c, kt, now))
		kthread_step(c, kt, now);
}

void kcpu_kthread_wake_fire(sim_engine *eng, sim_timer *tm)
{
	kthread *kt = tm->ctx;
	kcpu *c = kt->cpu;
	kmodel *k = c->k;
	sim_time now = sim_now(eng);
	kcpu_settle_now(c);
	if (!kt->sleeping)
		return;
	if (kt->kind == KT_RCUOG || kt->kind == KT_RCUO) {
		if (kt->kind == KT_RCUOG ? k->rcu.ops->rcuog_wakeable(k->rcu.rsp, kt->id)
					 : k->rcu.ops->rcuo_wakeable(k->rcu.rsp, kt->id))
			kthread_wake(kt, now, true);
		return;
	}
	if (kt->kind == KT_RCUC) {
		/* The yield is over: on with the work, if any is left. */
		kt->yielding = false;
		if (kt->has_work)
			kthread_wake(kt, now, true);
		return;
	}
	/* GP kthread: a wakeup whose wait condition no longer holds sleeps
	 * on until the wait's timeout (the step finds out which it is). */
	if (kt->gpw.next == RCU_GP_NEXT_TIMEOUT && now < kt->gpw.timeout_ns &&
	    !k->rcu.ops->gp_wakeable(k->rcu.rsp)) {
		if (sim_timer_at(eng, &kt->wake, kt->gpw.timeout_ns))
			kfail(k, SIM_ENOMEM);
		return;
	}
	if (kt->gpw.next == RCU_GP_NEXT_SLEEP && !k->rcu.ops->gp_wakeable(k->rcu.rsp))
		return;
	kthread_wake(kt, now, true);
}

void kcpu_nocb_timer_fire(sim_engine *eng, sim_timer *tm)
{
	kthread *kt = tm->ctx;
	kmodel *k = kt->cpu->k;
	sim_time now = sim_now(eng);
	kcpu_settle_now(kt->cpu);
	k->rcu.ops->nocb_timer(k->rcu.rsp, kt->id, now);
	kcpu_nocb_kicks(k, now);
}

/* ---- scheduling ---------------------------------------------------------- */

/* schedule() at @now: the quiescent state RCU notes at a context switch,
 * then the O(1) pick. */
void kcpu_schedule(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	const rcu_flavor *rf = k->rcu.ops;
	check_settled(c);
	c->need_resched = false;
	if (!(c->fault & FAULT_NO_QS))
		rf->rcu_note_context_switch(k->rcu.rsp, c->id);
	sched_task *prev = c->rq.curr;
	if (prev && !prev->owner && prev != &c->ksoftirqd) {
		/* A kthread leaves the CPU (or may): its step's end moves. */
		kthread *kt = task_kthread(prev);
		if (sim_timer_armed(&kt->done))
			sim_timer_cancel(k->eng, &kt->done);
	}
	sched_task *next = sched_schedule(&k->sched.cfg, &c->rq, now);
	if (c->rq.last_wait_ns > k->cnt.wait_max)
		k->cnt.wait_max = c->rq.last_wait_ns;
	if (rf->idle_enter && !prev != !next) {
		/* The idle loop's extended quiescent state. */
		if (next)
			rf->idle_exit(k->rcu.rsp, c->id);
		else
			rf->idle_enter(k->rcu.rsp, c->id);
	}
	update_busy(c);
	sim_time t = now;
	if (next != prev)
		t += stretch(c, k->sched.ctxsw_cost);
	if (next == &c->ksoftirqd) {
		if (c->ksd_waiting) {
			if (now - c->ksd_woken > k->cnt.ksd_wait_max)
				k->cnt.ksd_wait_max = now - c->ksd_woken;
			c->ksd_waiting = false;
		}
		if (c->softirq_pending || c->run_more) {
			__do_softirq(c, t, RUN_KSOFTIRQD);
		} else {
			/* Woken but the work was done meanwhile: back to sleep. */
			sched_sleep(&k->sched.cfg, &c->rq, &c->ksoftirqd, t);
			c->ksd_runnable = false;
			kcpu_schedule(c, t);
		}
		return;
	}
	c->seg_start = t;
	if (next && !next->owner) {
		kthread_runs(c, task_kthread(next), t);
		return;
	}
	arm_sysret(c, t);
	arm_jobev(c, t);
}

/* ---- interrupts ----------------------------------------------------------- */

/* A hardirq of @cost_ns landed in the softirq run in progress: the run
 * ends that much later. */
static void extend_run(kcpu *c, sim_time cost_ns)
{
	check_settled(c);
	if (sim_timer_at(c->k->eng, &c->done, c->done.when + stretch(c, cost_ns)))
		kfail(c->k, SIM_ENOMEM);
}

/* The task @c will run once what is pending on it is settled: when a lazy
 * run ends in a context switch, the one the pick will most likely take;
 * else curr. For prefetching only. */
static inline const sched_task *likely_curr(const kcpu *c)
{
	const sched_task *next;
	if (c->run_lazy && c->need_resched && (next = sched_peek_next(&c->rq)))
		return next;
	return c->rq.curr;
}

/* The ticks of a period come round the CPUs in order (they are staggered),
 * so the next ones are known: fetch ahead, in four stages two ticks apart,
 * what they touch first, each stage what the one before brought in leads
 * to: the CPU; its task and queue; the job that will run (its first two
 * lines) and the CPU's filp array; that job's first open file and the
 * array's last entry. Two ticks apart because under EEVDF nearly every tick
 * switches to a job last run a second before, whose lines often miss the
 * TLB as well as the cache: one tick's work (about a microsecond) was not
 * always enough for them to arrive. Prefetches only: no state changes,
 * results are the same. */
static void prefetch_ahead(const kmodel *k, int id)
{
	int n = k->mach.ncpus;
	if (n < 16)
		return;
	const kcpu *c8 = &k->cpu[(id + 8) % n];
	for (size_t off = 0; off < sizeof(*c8); off += 64)
		__builtin_prefetch((const char *)c8 + off, 1);
	const kcpu *c6 = &k->cpu[(id + 6) % n];
	if (c6->rq.curr) {
		__builtin_prefetch(c6->rq.curr, 1);
		__builtin_prefetch(&c6->rq.curr->owner);
	}
	sched_prefetch_queue(&c6->rq);
	const slab_cache *sc = k->files.on ? &k->files.v.filp : NULL;
	const kcpu *c4 = &k->cpu[(id + 4) % n];
	const sched_task *p = likely_curr(c4);
	if (p && p != c4->rq.curr)
		for (size_t off = 0; off < offsetof(job, sleeping); off += 64) /* its hot lines */
			__builtin_prefetch((const char *)p + off, 1);
	if (sc)
		__builtin_prefetch(&sc->cpu[c4->id], 1);
	sim_rng_prefetch(c4->rng_work);
	sim_rng_prefetch(c4->rng_mode);
	const kcpu *c2 = &k->cpu[(id + 2) % n];
	p = likely_curr(c2);
	if (p && p->owner && ((const job *)p->owner)->files)
		__builtin_prefetch(((const job *)p->owner)->files, 1);
	if (sc && sc->cpu[c2->id].avail)
		__builtin_prefetch(&sc->cpu[c2->id].entry[sc->cpu[c2->id].avail - 1], 1);
	sim_rng_prefetch_state(c2->rng_work);
	sim_rng_prefetch_state(c2->rng_mode);
}

/* Arm the one tick timer for CPU @i's next tick, with the sequence number
 * that tick was given when its previous one fired. */
int kcpu_arm_tick(kmodel *k, int i)
{
	k->mach.tick_next = i;
	return sim_timer_at_seq(k->eng, &k->mach.tick, k->cpu[i].tick_when, k->cpu[i].tick_seq);
}

/* smp_send_reschedule() from @from to every other CPU that still owes
 * the grace period a quiescent state: force_quiescent_state()'s IPIs. */
static void send_reschedule_ipis(kcpu *from, sim_time now)
{
	kmodel *k = from->k;
	for (int i = 0; i < k->mach.ncpus; i++) {
		if (i == from->id || !k->rcu.ops->rcu_cpu_owes_qs(k->rcu.rsp, i))
			continue;
		k->cnt.ipis++;
		kcpu *c = &k->cpu[i];
		if (!sim_timer_armed(&c->ipi) && sim_timer_at(k->eng, &c->ipi, now))
			kfail(k, SIM_ENOMEM);
	}
}

/* The running job's work since seg_start, applied at @now through its
 * workload's run(); then what it asked of this CPU: a job that went to
 * sleep leaves the runqueue, need_resched, and force_quiescent_state()'s
 * IPIs. */
static inline __attribute__((always_inline)) void kcpu_account(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	sched_task *p = c->rq.curr;
	check_settled(c);
	if (!is_job(c, p) || now <= c->seg_start) {
		if (__builtin_expect(p && !p->owner && p != &c->ksoftirqd, 0))
			kthread_progress(c, task_kthread(p), now);
		if (now > c->seg_start)
			c->seg_start = now;
		return;
	}
	job *j = p->owner;
	double s = speed(c);
	job_effect eff = { false, false, false, false, false };
	k->wl.ops->run(c, j, now, c->seg_start, (double)(now - c->seg_start) * s, s, &eff);
	c->seg_start = now;
	if (eff.slept) {
		sched_sleep(&k->sched.cfg, &c->rq, &j->task, now);
		c->need_resched = true;
	}
	if (eff.need_resched)
		c->need_resched = true;
	if (eff.send_ipis)
		send_reschedule_ipis(c, now);
	if (__builtin_expect(eff.wake_gp, 0))
		gp_kthread_kick(k, now);
	if (__builtin_expect(eff.raise, 0))
		rcu_raise(c, now);
	if (__builtin_expect(k->rcu.nocb, 0))
		kcpu_nocb_kicks(k, now); /* call_rcu on offloaded CPUs */
}

/* The timer interrupts. Every CPU ticks once per period at its own offset
 * (staggered), so they come round the CPUs in a fixed order and one timer
 * serves them all: each CPU keeps its next tick's time and the sequence
 * number its own timer would have been armed with, so every event keeps its
 * place in the (time, seq) order, while the pending set holds one tick
 * instead of one per CPU. */
void kcpu_tick_fire(sim_engine *eng, sim_timer *tm)
{
	kmodel *k = tm->ctx;
	kcpu *c = &k->cpu[k->mach.tick_next];
	const rcu_flavor *rf = k->rcu.ops;
	sim_time now = sim_now(eng);
	int64_t jiffies = now / k->mach.tick_ns;
	RCUSIM_CHECK(c->tick_when == now && c->tick_seq == sim_engine_cur_seq(eng), "kcpu.tick");
	prefetch_ahead(k, c->id);
	kcpu_settle_now(c);
	c->tick_when = now + k->mach.tick_ns;
	c->tick_seq = sim_engine_reserve_seq(eng);
	if (kcpu_arm_tick(k, c->id + 1 < k->mach.ncpus ? c->id + 1 : 0)) {
		kfail(k, SIM_ENOMEM);
		return;
	}
	if (__builtin_expect(c->fault & (FAULT_IRQS_OFF | FAULT_NO_TICKS), 0)) {
		/* No timer interrupt: none at all, or latched until interrupts
		 * are on again. */
		if (c->fault & FAULT_IRQS_OFF)
			c->fault_latched = true;
		return;
	}
	if (__builtin_expect(k->mach.nohz_idle, 0) && !c->rq.curr && !c->in_softirq &&
	    !c->softirq_pending && rf->needs_cpu && !rf->needs_cpu(k->rcu.rsp, c->id))
		return; /* idle with its tick stopped (tick_nohz_idle_stop_tick()) */
	if (c->in_softirq) {
		/* Hardirq part only: rcu_check_callbacks sees in_softirq() (no
		 * quiescent state) but re-raises the tasklet; scheduler_tick
		 * charges curr; the run lasts longer. */
		if (rf->sched_clock_irq) {
			rcu_call_effect e = { false, false, false, false };
			rf->sched_clock_irq(k->rcu.rsp, c->id, now, false, &e);
			c->run_raised |= e.raise;
			c->need_resched |= e.need_resched;
		} else if (rf->rcu_pending(k->rcu.rsp, c->id)) {
			rf->rcu_check_callbacks(k->rcu.rsp, c->id, false);
			c->run_raised = true;
		}
		if (sched_tick(&k->sched.cfg, &c->rq, jiffies, now))
			c->need_resched = true;
		extend_run(c, k->mach.tick_cost);
		return;
	}
	kcpu_account(c, now);
	if (rf->sched_clock_irq) {
		/* 6.x update_process_times(): rcu_sched_clock_irq(), which reads
		 * whether the tick came from user mode or idle only when a
		 * quiescent state or urgency is pending. */
		bool user = false;
		if (rf->tick_reads_mode(k->rcu.rsp, c->id))
			user = !c->rq.curr ||
			       (is_job(c, c->rq.curr) && !sim_rng_bernoulli(c->rng_mode, k->wl.p_kernel) &&
				!((const job *)c->rq.curr->owner)->in_kernel);
		rcu_call_effect e = { false, false, false, false };
		rf->sched_clock_irq(k->rcu.rsp, c->id, now, user && !(c->fault & FAULT_NO_QS), &e);
		c->need_resched |= e.need_resched;
		if (e.raise)
			rcu_raise(c, now);
	} else if (rf->rcu_pending(k->rcu.rsp, c->id)) {
		/* update_process_times(): rcu_check_callbacks() if rcu_pending(),
		 * a quiescent state if the tick came from user mode or the idle
		 * task; it raises the RCU softirq. */
		bool user = is_job(c, c->rq.curr) && !sim_rng_bernoulli(c->rng_mode, k->wl.p_kernel) &&
			    !((const job *)c->rq.curr->owner)->in_kernel;
		bool idle = !c->rq.curr;
		rf->rcu_check_callbacks(k->rcu.rsp, c->id, (user || idle) && !(c->fault & FAULT_NO_QS));
		c->softirq_pending = true;
	}
	if (sched_tick(&k->sched.cfg, &c->rq, jiffies, now))
		c->need_resched = true;
	irq_exit(c, now + stretch(c, k->mach.tick_cost));
}

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
		extend_run(c, c->k->mach.irq_cost);
		return false;
	}
	kcpu_account(c, now);
	return true;
}

/* A device interrupt at @now: its handler cost, then irq_exit. */
static void device_irq(kcpu *c, sim_time now)
{
	if (hardirq_lands(c, now))
		irq_exit(c, now + stretch(c, c->k->mach.irq_cost));
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
		c->need_resched = true;
	}
	if (!hardirq_lands(c, now))
		return;
	sim_time t = now + stretch(c, k->mach.irq_cost);
	if (k->mach.sparc64)
		trap_return(c, t);
	else
		return_to_task(c, t);
}

void kcpu_sysret_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	sim_time now = sim_now(eng);
	kcpu_settle_now(c);
	if (c->in_softirq || !is_job(c, c->rq.curr) || (c->fault & FAULT_IRQS_OFF))
		return;
	kcpu_account(c, now);
	trap_return(c, now);
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
	return_to_task(c, now);
}

void kcpu_fault_begin(kcpu *c, sim_time now, unsigned kind)
{
	kmodel *k = c->k;
	kcpu_settle_now(c);
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
	if (c->fault_latched) {
		c->fault_latched = false;
		irq_exit(c, now + stretch(c, c->k->mach.irq_cost));
	} else {
		return_to_task(c, now);
	}
}

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
	device_irq(c, now);
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
	if (!sched_wake(&c->k->sched.cfg, &c->rq, &j->task, now))
		return;
	if (c->in_softirq || (c->fault & FAULT_IRQS_OFF)) {
		c->need_resched = true;
	} else {
		kcpu_account(c, now);
		kcpu_schedule(c, now);
	}
}
