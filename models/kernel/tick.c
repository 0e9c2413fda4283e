/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tick.c - the timer interrupt: update_process_times() of 2.6.14-2.6.16
 * (rcu_check_callbacks() when rcu_pending(), then scheduler_tick()) and of
 * 6.12 (rcu_sched_clock_irq(), sched_tick(): kernel/time/timer.c), then
 * irq_exit(); nohz idle (an idle CPU without callbacks takes no tick,
 * tick_nohz_idle_stop_tick()). Whether a tick lands in user or kernel mode
 * is a Bernoulli draw with the job's share of CPU time in system calls,
 * drawn only when RCU reads it.
 *
 * Every CPU ticks once per period at its own phase (irq.tick_phase: spread
 * over the period as 2.6's per-CPU timers, all on the jiffy boundary as
 * 6.x, or skewed as skew_tick=1), so the ticks come round the CPUs in a
 * fixed order (equal times by sequence number) and one timer serves them
 * all: each CPU keeps its next tick's time and the sequence number its own
 * timer would have been armed with, so every event keeps its place in the
 * (time, seq) order, while the pending set holds one tick instead of one
 * per CPU. RCUSIM_CHECKS: the one tick timer fires for the CPU and
 * sequence number it was armed with ("kcpu.tick").
 */
#include "kernel/kernel_int.h"

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

/* The ticks of a period come round the CPUs in order, so the next ones
 * are known: fetch ahead, in four stages two ticks apart,
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

bool kcpu_irq_in_kernel(kcpu *c)
{
	if (c->irq_mode == IRQ_MODE_UNDRAWN) {
		const sched_task *t = c->rq.curr;
		bool kernel = t != NULL;
		if (t && is_job(c, t)) {
			kernel = sim_rng_bernoulli(c->rng_mode, c->k->wl.p_kernel);
			kernel |= ((const job *)t->owner)->in_kernel;
		}
		c->irq_mode = kernel ? IRQ_MODE_KERNEL : IRQ_MODE_USER;
	}
	return c->irq_mode >= IRQ_MODE_KERNEL;
}

/* Where PREEMPT_RCU sees no quiescent state (tree_plugin.h 6.12:735-736): a
 * kernel thread always (the GP kthread under its rcu_node locks, rcuc and
 * rcuo invoking with BH off), a job with its workload's reader share. */
bool kcpu_irq_in_reader(kcpu *c)
{
	if (c->irq_mode == IRQ_MODE_KERNEL) {
		const sched_task *t = c->rq.curr;
		bool in = !is_job(c, t) || sim_rng_bernoulli(c->rng_mode, c->k->wl.reader_share);
		c->irq_mode = in ? IRQ_MODE_READER : IRQ_MODE_NOT_READER;
	}
	return c->irq_mode == IRQ_MODE_READER;
}

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
	c->irq_mode = IRQ_MODE_UNDRAWN;
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
	    !c->softirq_pending && !rf->needs_cpu(k->rcu.rsp, c->id)) {
		k->cnt.ticks_stopped++;
		return; /* idle with its tick stopped (tick_nohz_idle_stop_tick()) */
	}
	k->cnt.ticks_taken++;
	if (ktr(k))
		ktrace_irq(k, c, now, now + stretch(c, k->mach.tick_cost), 236);
	if (c->in_softirq) {
		/* Hardirq part only: RCU's tick sees in_softirq() (no quiescent
		 * state) but re-raises the softirq (the run restarts);
		 * scheduler_tick charges curr; the run lasts longer. */
		rcu_effect e = { false, false, false, false };
		rf->sched_clock_irq(k->rcu.rsp, c->id, now, false, true, &e);
		kcpu_rcu_effect(c, now, &e);
		c->resched_lazy = false; /* sched_tick() promotes the lazy bit */
		if (sched_tick(&k->sched.cfg, &c->rq, jiffies, now))
			kcpu_resched(c, true);
		kcpu_extend_run(c, k->mach.tick_cost);
		return;
	}
	kcpu_account(c, now);
	/* update_process_times(): RCU's part (2.6: rcu_check_callbacks() if
	 * rcu_pending(); 6.x: rcu_sched_clock_irq()), which reads whether the
	 * tick came from user mode or idle (and under PREEMPT_RCU, from a
	 * reader) only when that matters. */
	bool user = false, reader = false;
	if (rf->tick_reads_mode(k->rcu.rsp, c->id)) {
		user = !kcpu_irq_in_kernel(c);
		reader = !user && k->rcu.preempt_rcu && kcpu_irq_in_reader(c);
	}
	if (c->fault & FAULT_NO_QS) {
		user = false;
		reader = true;
	} else if (__builtin_expect(c->exp_deferred, 0)) {
		/* A deferred expedited report: rcu_qs() from user mode or idle
		 * (tree_plugin.h 6.12:975-992); under PREEMPT_RCU
		 * rcu_preempt_deferred_qs() outside a reader (:730-748). */
		bool u = !kcpu_irq_in_kernel(c);
		if (u || (k->rcu.preempt_rcu && !kcpu_irq_in_reader(c)))
			rcu_exp_report(c, now);
	}
	rcu_effect e = { false, false, false, false };
	rf->sched_clock_irq(k->rcu.rsp, c->id, now, user, reader, &e);
	kcpu_rcu_effect(c, now, &e);
	/* sched_tick(): the lazy bit promoted to a full request first
	 * (kernel/sched/core.c 6.13.7:5651-5652), then the class's tick, whose
	 * request (a slice used up) is a lazy one. */
	c->resched_lazy = false;
	if (sched_tick(&k->sched.cfg, &c->rq, jiffies, now))
		kcpu_resched(c, true);
	kcpu_irq_exit(c, now + stretch(c, k->mach.tick_cost));
}
