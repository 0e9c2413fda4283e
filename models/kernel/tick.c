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
 *
 * nohz_full (irq.nohz_full, 6.12): at each of its tick times a nohz_full
 * CPU running one task takes no tick unless a softirq is pending, RCU
 * needs the CPU (rcu_needs_cpu(): never on these offloaded CPUs) or RCU
 * forced the tick (TICK_DEP_BIT_RCU); the kernel restarts a stopped tick
 * by IPI when a second task arrives, the model at the next tick time.
 * Once a second from boot sched_tick_remote() does the scheduler's tick of
 * each of them whose tick is stopped (kcpu_remote_tick_fire(); in the
 * kernel a kworker on a housekeeping CPU, whose few microseconds a second
 * per nohz_full CPU the model does not charge). Their
 * context tracking is drawn when the GP kthread looks (nohz_ct_enter()).
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

/* The task @c will most likely switch to at its next tick: the one a
 * pending switch takes, else under EEVDF the queue's head (NULL if none,
 * and under O(1)). For prefetching only. */
static inline const sched_task *likely_next(const kcpu *c)
{
	const sched_task *p = likely_curr(c);
	return p == c->rq.curr ? sched_peek_next(&c->rq) : p;
}

/* The ticks of a period come round the CPUs in order, so the next ones are
 * known: fetch ahead, in four stages two ticks apart, what they touch
 * first, each stage what the one before brought in leads to: the CPU; its
 * task and queue; the job that will run (its first two lines) and the
 * CPU's filp array; that job's first open file and the array's last entry.
 * The job that will run is the one a pending switch will take, else, under
 * EEVDF, the queue's head as well as curr: a tick finds most of a busy
 * CPU's jobs past their deadline (6.12's 3 ms slice against a 4 ms tick),
 * and the switch it makes takes the head. Two ticks apart because under
 * EEVDF nearly every tick switches to a job last run a second before,
 * whose lines often miss the TLB as well as the cache: one tick's work
 * (about a microsecond) was not always enough for them to arrive.
 * Prefetches only: no state changes, results are the same.
 */
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
	const sched_task *p = likely_next(c4);
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
	const sched_task *h = likely_next(c2);
	if (h && h != p && h->owner && ((const job *)h->owner)->files)
		__builtin_prefetch(((const job *)h->owner)->files, 1);
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

/* __rcu_irq_enter_check_tick() (tree.c 6.12:647-681): an interrupt on a
 * nohz_full CPU, in the kernel, while RCU's need is urgent turns its tick
 * on until it reports (rcu_disable_urgency_upon_qs(), :705-715). */
void kcpu_nohz_irq_enter_slow(kcpu *c)
{
	rcu_irq_enter_check_tick(&c->k->doms, c);
}

/* From kernel mode only: irqentry_enter() returns early from user mode
 * (kernel/entry/common.c 6.12:242-245); the interrupt's one draw (under an
 * injected no-QS fault, kernel mode, as at its ticks). */
bool kcpu_irq_from_kernel(kcpu *c)
{
	return c->rq.curr && ((c->fault & FAULT_NO_QS) || kcpu_irq_in_kernel(c));
}

/* can_stop_full_tick() at @now for a nohz_full CPU running a task, no
 * softirq pending and no callbacks of its own (the caller checked): one
 * task (sched_can_stop_tick(), kernel/sched/core.c 6.12:1268-1310) and no
 * dependency RCU set. The job's work is accounted first, as at a tick (its
 * calls happen in the kernel whether a tick comes or not; the model applies
 * them at the CPU's tick times); what that asks of the CPU (a switch, a
 * softirq) keeps the tick. True if the tick is stopped (counted). */
static bool nohz_full_stops(kmodel *k, kcpu *c, sim_time now)
{
	if (c->rq.nr_running != 1)
		return false;
	kcpu_account(c, now);
	if (c->need_resched || c->softirq_pending || c->rq.nr_running != 1)
		return false;
	/* TICK_DEP_BIT_RCU or TICK_DEP_BIT_RCU_EXP. */
	if (rcu_tick_dep(&k->doms, c)) {
		k->cnt.ticks_forced++;
		return false;
	}
	k->cnt.ticks_stopped++;
	k->cnt.ticks_stopped_busy++;
	c->tick_stopped = true;
	return true;
}

/* sched_tick_remote() (kernel/sched/core.c 6.12:5669-5716), once a
 * second from the first second on, for every nohz_full CPU whose tick is
 * stopped (tick_nohz_tick_stopped_cpu()): its task's class's tick
 * (update_curr(); nothing for the idle task). */
void kcpu_remote_tick_fire(sim_engine *eng, sim_timer *tm)
{
	kmodel *k = tm->ctx;
	kmachine *mc = &k->mach;
	sim_time now = sim_now(eng);
	int64_t jiffies = now / mc->tick_ns;
	uint64_t seq = sim_engine_cur_seq(eng);
	if (sim_timer_after(eng, tm, SIM_NS_PER_S)) {
		kfail(k, SIM_ENOMEM);
		return;
	}
	for (int i = 0; i < mc->nfull; i++) {
		kcpu *o = &k->cpu[mc->full[i]];
		if (!o->tick_stopped)
			continue;
		kcpu_settle(o, now, seq, true);
		k->cnt.ticks_remote++;
		if (o->rq.curr && sched_tick(&k->sched.cfg, &o->rq, jiffies, now))
			kcpu_resched(o, true);
	}
}

/* Context tracking on the nohz_full CPUs for the GP kthread's step on
 * @self: a job's user mode is an extended quiescent state, its
 * RCU-watching counter moving at each entry and exit. A job that mixes
 * user and kernel time has passed through user mode since the kthread's
 * last look (rcu_momentary_eqs()'s +2; its steps that scan are a jiffy or
 * more apart); it is in user mode now with probability 1 - its workload's
 * kernel share (ct_user: in the EQS for the step, left by nohz_ct_exit()).
 * The pass is counted once a jiffy at most (ct_pass_at): under callback
 * overload the second scan follows the first at once. A job in the kernel
 * (in_kernel, a share of 1), a kthread, a softirq or an injected no-QS
 * fault shows no EQS. */
/* Can the job on nohz_full CPU @o be in user mode (not a kthread, a
 * softirq, a job in the kernel or an injected no-QS fault)? */
static bool nohz_user_capable(const kcpu *o)
{
	if (!is_job(o, o->rq.curr) || o->in_softirq || (o->fault & FAULT_NO_QS))
		return false;
	const job *j = o->rq.curr->owner;
	if (j->wl->p_kernel >= 1)
		return false;
	return !j->in_kernel && !j->sleeping;
}

bool kcpu_nohz_in_user(kcpu *o)
{
	if (!nohz_user_capable(o))
		return false;
	double pk = ((const job *)o->rq.curr->owner)->wl->p_kernel;
	return pk <= 0 || !sim_rng_bernoulli(o->rng_mode, pk);
}

void kcpu_nohz_ct_enter(kmodel *k, const kcpu *self)
{
	sim_time now = sim_now(k->eng);
	for (int i = 0; i < k->mach.nfull; i++) {
		kcpu *o = &k->cpu[k->mach.full[i]];
		if (o == self || !nohz_user_capable(o))
			continue;
		if (((const job *)o->rq.curr->owner)->wl->p_kernel > 0 &&
		    now - o->ct_pass_at >= k->mach.tick_ns) {
			rcu_ct_user_pass(&k->doms, o->id);
			o->ct_pass_at = now;
		}
		if (kcpu_nohz_in_user(o)) {
			rcu_ct_user_enter(&k->doms, o->id);
			o->ct_user = true;
		}
	}
}

void kcpu_nohz_ct_exit(kmodel *k)
{
	for (int i = 0; i < k->mach.nfull; i++) {
		kcpu *o = &k->cpu[k->mach.full[i]];
		if (o->ct_user) {
			rcu_ct_user_exit(&k->doms, o->id);
			o->ct_user = false;
		}
	}
}

bool kcpu_irq_in_kernel(kcpu *c)
{
	if (c->irq_mode == IRQ_MODE_UNDRAWN) {
		const sched_task *t = c->rq.curr;
		bool kernel = t != NULL;
		if (t && is_job(c, t)) {
			kernel = sim_rng_bernoulli(c->rng_mode, ((const job *)t->owner)->wl->p_kernel);
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
		bool in = !is_job(c, t) ||
			  sim_rng_bernoulli(c->rng_mode, ((const job *)t->owner)->wl->reader_share);
		c->irq_mode = in ? IRQ_MODE_READER : IRQ_MODE_NOT_READER;
	}
	return c->irq_mode == IRQ_MODE_READER;
}

/* Would @c, idle, keep its tick stopped now (tick_nohz_idle_stop_tick():
 * no softirq pending, rcu_needs_cpu() false)? */
static bool idle_tickless(kmodel *k, const kcpu *c)
{
	return !c->rq.curr && !c->in_softirq && !c->softirq_pending &&
	       !rcu_needs_cpu(&k->doms, c);
}

/* Timer migration (kernel/time/timer_migration.c 6.12:55-82): the GP
 * kthread's schedule_timeout() timer is a global one (no TIMER_PINNED,
 * timer.c 6.12:2610-2614). Its CPU, idle with its tick stopped, left it to
 * the hierarchy; an active CPU, the migrator, expires it from its own tick
 * (tmigr_handle_remote(), :1044-1060) and the wake-up brings @c out of
 * idle, whose tick restarts a period later (tick_nohz_restart(),
 * tick-sched.c 6.12:844-850): @c takes no tick at this jiffy, and the FQS
 * scan finds it running the kthread, not idle. With no CPU active the last
 * one to go idle armed its own timer for the event (:79-81): @c's tick
 * comes as without migration (the model does not track which CPU went idle
 * last; the kthread's, which sleeps last, is taken). */
void kcpu_timer_migrated(kmodel *k, kcpu *c, sim_time now)
{
	if (!idle_tickless(k, c))
		return;
	for (int i = 0; i < k->mach.ncpus; i++) {
		const kcpu *o = &k->cpu[i];
		if (o != c && !idle_tickless(k, o)) {
			c->tick_skip_at = now;
			return;
		}
	}
}

void kcpu_tick_fire(sim_engine *eng, sim_timer *tm)
{
	kmodel *k = tm->ctx;
	kcpu *c = &k->cpu[k->mach.tick_next];
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
	if (__builtin_expect(c->tick_skip_at == now, 0)) {
		k->cnt.ticks_stopped++; /* kcpu_timer_migrated(): its tick restarts a period on */
		return;
	}
	if (__builtin_expect(k->mach.nohz_idle, 0) && (!c->rq.curr || c->nohz_full) && !c->in_softirq &&
	    !c->softirq_pending && !rcu_needs_cpu(&k->doms, c)) {
		if (!c->rq.curr) {
			/* idle with its tick stopped (tick_nohz_idle_stop_tick()),
			 * unless a timer is due at this jiffy (machine.background) */
			if (!__builtin_expect(k->bg.on, 0) || !kbg_timer_tick(c)) {
				c->tick_stopped = true;
				k->cnt.ticks_stopped++;
				return;
			}
		} else if (nohz_full_stops(k, c, now)) {
			return; /* tick_nohz_full_update_tick() */
		}
	}
	sim_time cost = k->mach.tick_cost;
	if (__builtin_expect(k->mach.nfull, 0))
		c->tick_stopped = false;
	k->cnt.ticks_taken++;
	if (ktr(k))
		ktrace_irq(k, c, now, now + stretch(c, cost), 236);
	if (c->in_softirq) {
		/* Hardirq part only: RCU's tick sees in_softirq() (no quiescent
		 * state) but re-raises the softirq (the run restarts);
		 * scheduler_tick charges curr; the run lasts longer. */
		rcu_sched_clock_irq(&k->doms, c, now, 0);
		c->resched_lazy = false; /* sched_tick() promotes the lazy bit */
		if (sched_tick(&k->sched.cfg, &c->rq, jiffies, now))
			kcpu_resched(c, true);
		kcpu_extend_run(c, cost);
		return;
	}
	kcpu_account(c, now);
	/* update_process_times(): every RCU domain's part (2.6:
	 * rcu_check_callbacks() if rcu_pending(); 6.x: rcu_sched_clock_irq()),
	 * which asks whether the tick came from user mode or idle (and under
	 * PREEMPT_RCU, from a reader) only when that matters. */
	rcu_sched_clock_irq(&k->doms, c, now, RCU_USER_ASK);
	/* sched_tick(): the lazy bit promoted to a full request first
	 * (kernel/sched/core.c 6.13.7:5651-5652), then the class's tick, whose
	 * request (a slice used up) is a lazy one. */
	c->resched_lazy = false;
	if (sched_tick(&k->sched.cfg, &c->rq, jiffies, now))
		kcpu_resched(c, true);
	kcpu_irq_exit(c, now + stretch(c, cost));
}
