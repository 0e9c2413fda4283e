/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kernel_int.h - what the kernel model's own files (models/kernel/) share
 * beyond its public face (kernel.h): the context switch's rest, softirq
 * runs (softirq.c), the kthread runner's insides (kthread.c), the tick and
 * the events that land on a CPU (tick.c, irq.c), the timeline's writer
 * (ktrace.c) and the injected fault (fault.c). Private to models/kernel/:
 * ctest `layers` (tests/layers.sh) fails if a file elsewhere under models/
 * or cli/ includes it. The parts the kernel model creates and calls are
 * included here: RCU's mechanisms (rcu/mechanisms.h) and the file table
 * (fs/files.h).
 */
#ifndef RCUSIM_KERNEL_INT_H
#define RCUSIM_KERNEL_INT_H

#include "kernel/kernel.h"
#include "fs/files.h"

/* ---- the CPU model's own (cpu.c, softirq.c, kthread.c, tick.c, irq.c) ---- */

/* context_switch() runs with interrupts off (__schedule() disables them
 * and takes the runqueue lock, kernel/sched/core.c 6.12:6572, 6592;
 * finish_task_switch() -> finish_lock_switch() releases it with them
 * enabled, :5200, 5073-5082), so an
 * interrupt that comes during a switch is taken after it. The model takes
 * it at once and keeps the switch's rest (c->switch_left, noted by
 * kcpu_account()); the task goes on, or the next switch begins, that much
 * later than the interrupt's return at @t. */
static inline sim_time kcpu_switch_end(kcpu *c, sim_time t)
{
	t += c->switch_left;
	c->switch_left = 0;
	return t;
}

/* Pending softirqs run here, at an exit point (irq_exit, a trap return):
 * unless they run only in threads (softirq.in_irq_exit = no), or a runnable
 * ksoftirqd is left to do them (ksoftirqd_running(), 4.9-6.4). */
static inline bool exit_runs_softirqs(const kcpu *c)
{
	return c->softirq_pending && c->k->softirq.in_irq_exit &&
	       !(c->k->softirq.defer && c->ksd_runnable);
}

/* cpu.c */

/* @c's thread became busy or idle: its core's other threads' speed. */
void kcpu_update_busy(kcpu *c);

/* softirq.c: __do_softirq(), ksoftirqd, the exits that run softirqs. */

/* __do_softirq() on @c from @ctx starting at @t. */
void kcpu_do_softirq(kcpu *c, sim_time t, run_ctx ctx);
/* irq_exit() at @t: run pending softirqs, else back to the task. */
void kcpu_irq_exit(kcpu *c, sim_time t);
/* A trap return on sparc64 at @t that is not an interrupt's. */
void kcpu_trap_return(kcpu *c, sim_time t);
/* Timer handler: the softirq run in progress on a CPU ends. */
void kcpu_run_end(sim_engine *eng, sim_timer *tm);
/* The softirq run on @c ends at @now. */
void kcpu_run_ended(kcpu *c, sim_time now);

/* kthread.c: the runner's insides. */

/* Is a kthread bound to @c runnable (its pick would start a step)? */
bool kthread_runnable_on(const kcpu *c);
/* @kt was picked to run on @c from @t. */
void kthread_runs(kcpu *c, kthread *kt, sim_time t);
/* The running task of @c at @t, if a kthread in a step: arm its end. */
void kthread_arm(kcpu *c, sim_time t);
/* Timer handlers: a kthread's step ends; a sleeping kthread is woken (or
 * its sleep times out). */
void kthread_done_fire(sim_engine *eng, sim_timer *tm);
void kthread_wake_fire(sim_engine *eng, sim_timer *tm);

/* tick.c: nohz_full. An interrupt's entry on @c (RCU may force its tick). */
void kcpu_nohz_irq_enter_slow(kcpu *c);
static inline void kcpu_nohz_irq_enter(kcpu *c)
{
	if (__builtin_expect(c->nohz_full, 0))
		kcpu_nohz_irq_enter_slow(c);
}

/* Timer handler: sched_tick_remote() on a housekeeping CPU. */
void kcpu_remote_tick_fire(sim_engine *eng, sim_timer *tm);

/* tick.c, irq.c: the events that land on a CPU. */

/* Arm the one tick timer for CPU @i's next tick. Returns SIM_OK or SIM_ENOMEM. */
int kcpu_arm_tick(kmodel *k, int i);
/* Timer handler: the next CPU in turn takes its timer interrupt. */
void kcpu_tick_fire(sim_engine *eng, sim_timer *tm);
/* Timer handler: a reschedule IPI lands. */
void kcpu_ipi_fire(sim_engine *eng, sim_timer *tm);
/* Timer handler: a device interrupt lands. */
void kcpu_irq_fire(sim_engine *eng, sim_timer *tm);
/* A device interrupt lands on @c at @now: its hardirq (irq.cost) and
 * irq_exit(), or latched or folded into a softirq run as any hardirq. */
void kcpu_device_irq(kcpu *c, sim_time now);

/* background.c: machine.background. */
struct model_env;
/* Its parameters, and with it on each CPU's stream, background task and
 * interrupt timer (nothing when off). 0 or SIM_ENOMEM. */
int kbg_create(kmodel *k, const struct model_env *env);
/* machine.background's rates read into k->bg (the machine's part, before
 * RCU's: its invoke function depends on background.callbacks). */
void kbg_settings(kmodel *k, const sim_params *p);
/* background.callbacks' bursts no more than the wake-ups that queue them:
 * 0 or SIM_EINPUT (@err names the file, line and key). */
int kbg_validate(const sim_params *p, char *err, size_t errlen);
/* Its knobs: the rates and cost, with machine.background on. */
extern const sim_knobs kbg_knobs;
/* Boot: each CPU's first background wake-up and interrupt armed. 0 or SIM_ENOMEM. */
int kbg_start(kmodel *k);
/* Its streams and tasks freed (after a failed create too). */
void kbg_destroy(kmodel *k);
/* Its counters as scalars (none when off). 0 or nonzero (out of memory). */
int kbg_finish(const kmodel *k, sim_metrics *m);
/* Does idle @c, its tick stopped, take this jiffy's tick for a timer due
 * (a draw of background.timer_ticks / HZ)? Background on only. */
bool kbg_timer_tick(kcpu *c);
/* A Poisson gap of @rate per second on @c's background stream, ns >= 1. */
sim_time kbg_gap(kcpu *c, double rate);
/* Timer handler: the running job reaches the point where it blocks. */
void kcpu_jobev_fire(sim_engine *eng, sim_timer *tm);
/* Timer handler: sparc64, the running job returns from a system call with a
 * softirq pending. */
void kcpu_sysret_fire(sim_engine *eng, sim_timer *tm);
/* Timer handler: the running job reaches its next preemption point (its
 * return to user mode or a cond_resched()) with need_resched set. */
void kcpu_resched_pt_fire(sim_engine *eng, sim_timer *tm);
/* The fault @kind begins or ends on @c at @now. */
void kcpu_fault_begin(kcpu *c, sim_time now, unsigned kind);
void kcpu_fault_end(kcpu *c, sim_time now);

/* ---- ktrace.c: the timeline's writer ---- */

/* model_ops.trace: start writing the timeline as @o says. */
int kernel_trace(void *state, const rcusim_trace_opts *o, char *err, size_t errlen);
/* At the run's end (@now): everything written, the file flushed. A write
 * that fails (here or during the run) is the caller's rcusim_trace_fail,
 * not the run's failure. */
void ktrace_close(kmodel *k, sim_time now);
void ktrace_destroy(kmodel *k);

/* The trace's id of task @p on @c (NULL: the idle task). */
int ktrace_task_id(const kmodel *k, const kcpu *c, const sched_task *p);
/* sched_switch on @c at @t from @prev to @next (NULL: idle). */
void ktrace_switch(kmodel *k, const kcpu *c, sim_time t, const sched_task *prev,
		   const sched_task *next);
/* sched_wakeup of @p, queued on @c, at @t. */
void ktrace_wakeup(kmodel *k, const kcpu *c, sim_time t, const sched_task *p);
/* The same, the line on the waking CPU @waker (target_cpu @c's). */
void ktrace_wakeup_from(kmodel *k, const kcpu *waker, const kcpu *c, sim_time t, const sched_task *p);
/* An injected fault (FAULT_* @kind) on @c from @t0 to @t1 (a JSON slice). */
void ktrace_fault(kmodel *k, const kcpu *c, sim_time t0, sim_time t1, unsigned kind);
/* The machine's queued callbacks at @t (a JSON counter track). */
void ktrace_counter(kmodel *k, sim_time t, int64_t queued);

/* ---- fault.c ---- */

/* The fault of fault.* (none: nothing armed). 0, SIM_EINPUT (message) or
 * SIM_ENOMEM. */
int kfault_create(kmodel *k, const sim_params *p, char *err, size_t errlen);
/* Its knobs, with fault.kind other than none (params.h). */
extern const sim_knobs kfault_knobs;
/* The fault.* parameters fit the machine and the run: 0 or SIM_EINPUT
 * (message naming where the value was set). */
int fault_validate(const sim_params *p, char *err, size_t errlen);
void kfault_destroy(kmodel *k);

#endif
