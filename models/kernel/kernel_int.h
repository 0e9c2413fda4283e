/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kernel_int.h - what the kernel model's files share: its state, one
 * struct per part (machine, scheduler, softirqs, RCU, file table, workload,
 * counters, metric handles), the per-CPU state (kcpu), the machine's speed
 * helpers, and the entry points each file offers the others.
 *
 * Files and who calls whom (one way only): kernel.c creates the parts and
 * samples and finishes the run; kcpu.c is what each CPU does (ticks,
 * interrupts, softirq runs, schedule()) and calls the workload's run and
 * the RCU flavor; the workloads (workload.h) call the RCU flavor and the
 * file table (files.c) and never the CPU model.
 */
#ifndef RCUSIM_KERNEL_INT_H
#define RCUSIM_KERNEL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rcu/cbstats.h"
#include "checks.h"
#include "model.h"
#include "rcu/rcu.h"
#include "sched/sched.h"
#include "fs/file_table.h"
#include "workloads/workload.h"

#define REF_CLOCK_HZ 1.2e9 /* the clock at which every *_cost is given */

/* Where a softirq run was started: irq_exit() (timer and device
 * interrupts), a trap return (sparc64's rtrap: after irq_exit, at an IPI, at
 * a system-call return), or ksoftirqd. The first two resume the interrupted
 * or returning task at their end. */
typedef enum run_ctx { RUN_IRQ_EXIT, RUN_TRAP_RETURN, RUN_KSOFTIRQD } run_ctx;

/* Injected faults (fault.kind), as bits of kcpu.fault. */
enum {
	FAULT_IRQS_OFF = 1, /* spinning with interrupts off */
	FAULT_NO_TICKS = 2, /* no timer interrupts */
	FAULT_NO_QS = 4,    /* no quiescent state reported */
};

/* The name of the per-CPU stream every workload draws from. It says
 * callrcu for historical reasons: the name seeds the stream, so renaming it
 * would change every result. */
#define WORKLOAD_RNG_STREAM "workload.callrcu"

/* Which of the RCU flavor's kernel threads a kthread is. */
typedef enum kthread_kind { KT_GP, KT_RCUC, KT_RCUOG, KT_RCUO } kthread_kind;

/* A kernel thread of the RCU flavor's, bound to one CPU: the grace-period
 * kthread (rcu_flavor.gp_step), a CPU's rcuc kthread (RCU core work with
 * rcu.use_softirq = no), an offloading group's rcuog kthread (on the
 * group's first CPU) or an offloaded CPU's rcuo kthread (rcu.nocbs). Its work comes in steps, each a number of ns of
 * CPU time at full speed, whose state changes when it starts; the step's
 * end is an event while the thread runs (done), moved by whatever
 * interrupts it. It is not a job: its task's owner is NULL. */
typedef struct kthread {
	sched_task task;        /* its task (owner NULL) */
	kthread_kind kind;      /* which */
	kcpu *cpu;              /* where it runs */
	double work;            /* ns at full speed left of the step in progress */
	bool in_step;           /* a step's work is in progress */
	bool step_due;          /* runnable with its next step to run when it gets the CPU */
	bool sleeping;          /* off the runqueue until woken (wake, or its timeout) */
	bool waiting;           /* woken and not yet run */
	sim_time woken;         /* ns: when it was last woken */
	sim_time wait_max;      /* ns: longest a woken one waited to run */
	sim_time cpu_ns;        /* ns of CPU time it used (wall, steps ended) */
	uint64_t wakeups;       /* times woken */
	sim_timer done;         /* the step in progress ends (armed while it runs) */
	sim_timer wake;         /* its wakeup, or its sleep's timeout */
	/* KT_GP: the step in progress. */
	rcu_gp_work gpw;
	/* KT_RCUC: rcu_cpu_kthread()'s state. */
	bool has_work;          /* rcu_cpu_has_work */
	bool yielding;          /* RCU_KTHREAD_YIELDING: sleeping 2 jiffies after 10 passes */
	int spincnt;            /* passes in this wakeup */
	sim_time step_start;    /* ns: the current step began (rcuc run lengths) */
	/* KT_RCUOG, KT_RCUO. */
	rcu_nocb_work nw;       /* what its last step did */
	uint64_t invoked;       /* KT_RCUO: callbacks it invoked */
	int id;                 /* its group (rcuog) or CPU (rcuo) */
	sim_timer nocb_timer;   /* KT_RCUOG: its group's deferred-wakeup timer (nocb_timer) */
} kthread;

struct kcpu {
	/* 1. Identity. */
	kmodel *k;              /* the model */
	int id, core;           /* CPU number, core number */

	/* 2. Scheduler. */
	sched_rq rq;            /* runqueue */
	sched_task ksoftirqd;   /* this CPU's ksoftirqd */
	bool need_resched;      /* TIF_NEED_RESCHED */
	bool busy;              /* counted in its core's busy threads */
	sim_time seg_start;     /* ns: the running job's unaccounted CPU time starts here */
	int64_t jobs;           /* jobs on this CPU */

	/* 3. Softirqs: the run in progress (one of __do_softirq) and ksoftirqd. */
	bool softirq_pending;   /* the RCU tasklet is raised */
	bool in_softirq;        /* a softirq run is in progress, ends at done */
	bool run_lazy;          /* its end needs no event: done is not armed (kcpu_settle) */
	sim_time run_end_at;    /* ns: end of a lazy run */
	uint64_t run_seq;       /* the sequence number done would have had */
	run_ctx run_ctx;        /* whose run */
	sim_time run_start;     /* ns: start of the run in progress */
	bool run_more;          /* the run left callbacks ready (tasklet re-raised) */
	int run_passes;         /* __do_softirq passes the run has made */
	bool run_raised;        /* a tick in the run re-raised the tasklet */
	bool ksd_runnable;      /* ksoftirqd is on the runqueue */
	sim_time ksd_woken;     /* ns: when ksoftirqd was last woken */
	bool ksd_waiting;       /* woken and not yet run */
	sim_time softirq_ns;    /* ns spent in softirq runs, completed ones */
	sim_time softirq_ns_sampled; /* softirq_ns + partial run, at the last sample */

	/* 4. Events. */
	sim_time tick_when;     /* ns: its next timer interrupt (the shared tick timer) */
	uint64_t tick_seq;      /* and that event's sequence number */
	sim_timer done;         /* end of the softirq run in progress */
	sim_timer ipi;          /* a reschedule IPI on its way */
	sim_timer irq;          /* next device interrupt */
	sim_timer reap;         /* next cache_reap (file workloads) */
	sim_timer jobev;        /* the running job's next block (workload next_block), armed
				 * while it runs */
	sim_timer sysret;       /* sparc64: the running job's next system-call return, armed
				 * while a softirq is pending (rtrap runs it there) */
	bool ipi_resched;       /* the reschedule IPI on its way sets need_resched (resched_cpu()) */
	kthread *rcuc;          /* its rcuc kthread (rcu.use_softirq = no), else NULL */
	kthread *rcuog;         /* the rcuog kthread it runs (a group's first CPU), else NULL */
	kthread *rcuo;          /* its rcuo kthread (offloaded), else NULL */

	/* 5. An injected fault (fault.*). */
	unsigned fault;         /* FAULT_* bits in force */
	bool fault_latched;     /* an interrupt arrived with interrupts off: taken at the end */

	/* 6. Random streams. */
	sim_rng *rng_work;      /* stream WORKLOAD_RNG_STREAM, this CPU */
	sim_rng *rng_mode;      /* stream "kernel.tick_mode", this CPU */
	sim_rng *rng_irq;       /* stream "irq.device", this CPU */
};

/* 1. The machine: geometry, speed, the timer and interrupt costs. */
typedef struct kmachine {
	int ncpus, ncores, tpc; /* CPUs, cores, threads per core */
	int *core_busy;         /* busy threads per core */
	double smt_slowdown;    /* machine.smt_slowdown */
	double clock_scale;     /* REF_CLOCK_HZ / machine.clock */
	sim_time tick_ns;       /* ns between ticks (1 / machine.hz) */
	sim_time tick_cost;     /* ns: a tick's hardirq work, at full speed */
	sim_time irq_cost;      /* ns: a device interrupt's or IPI's hardirq work */
	double irq_rate;        /* device interrupts per second per CPU */
	bool nohz_idle;         /* irq.nohz_idle: an idle CPU without callbacks takes no tick */
	bool sparc64;           /* machine.arch: trap returns run pending softirqs, an IPI is a
				 * trap through rtrap (else x86_64: irq_exit only, an IPI acks) */
	sim_timer tick;         /* the next timer interrupt of any CPU (tick_next's) */
	int tick_next;          /* the CPU it is for */
} kmachine;

/* 2. The scheduler. */
typedef struct kscheduler {
	sched_cfg cfg;          /* O(1) constants */
	sched_arrays *rq_store; /* per CPU: its runqueue's priority arrays */
	sim_time ctxsw_cost;    /* ns: one context switch, at full speed */
} kscheduler;

/* 3. Softirqs. */
typedef struct ksoftirq {
	int max_restart;        /* MAX_SOFTIRQ_RESTART */
	bool in_irq_exit;       /* irq_exit() runs softirqs (no: only ksoftirqd does) */
	bool stop_on_resched;   /* no restart with need_resched set (3.8+) */
	bool defer;             /* leave them to a runnable ksoftirqd (4.9-6.4) */
	sim_time time_limit;    /* ns a run may take before it stops restarting, 0 = none */
	sim_time pass_cost;     /* ns: one __do_softirq pass, at full speed */
} ksoftirq;

/* 4. RCU: the flavor, its state, its costs, and the callbacks' counts. */
typedef struct krcu {
	const rcu_flavor *ops;  /* rcu.flavor */
	void *rsp;              /* its state */
	sim_time handler_cost;  /* ns: the RCU softirq handler's fixed work per pass */
	sim_time cb_cost;       /* ns: one callback */
	cb_stats cb;            /* queued, invoked, queue over time, latencies */
	/* The flavor's kthreads (Tree RCU). */
	kthread *gpk;           /* the GP kthread, or NULL (classic) */
	kthread *rcuc;          /* per CPU rcuc kthreads, or NULL (softirq) */
	sim_time node_cost;     /* ns: the GP kthread's work per rcu_node it walks */
	sim_time fqs_cpu_cost;  /* ns: its work per CPU an FQS scan checks */
	sim_hist *rcuc_run;     /* rcuc step lengths, ns */
	uint64_t resched_ipis;  /* resched_cpu() calls of FQS scans */
	/* Offloading (rcu.nocbs): rcuog per group, rcuo per offloaded CPU. */
	bool nocb;              /* some CPU is offloaded: the kthreads below exist */
	kthread *rcuog;         /* per group (only those with an offloaded CPU are set up), or NULL */
	int nrcuog;             /* groups */
	kthread *rcuo;          /* per CPU (only offloaded ones set up), or NULL */
} krcu;

/* 5. The file table and the filp slab (workloads whose callbacks free files). */
typedef struct kfiles {
	bool on;                /* modelled: the workload frees files */
	vfs v;                  /* file table and filp slab */
	sim_time reap_ns;       /* cache_reap period per CPU */
	sim_time reap_node_ns;  /* period of its node part */
	sim_time next_node_reap; /* ns: next node part due */
	uint64_t opens, closes; /* files opened and closed by jobs */
	int64_t frag_max_num, frag_max_den; /* largest pinned-free / slots sampled */
} kfiles;

/* 7. Machine-wide counters. */
typedef struct kcounters {
	uint64_t ksd_wakeups;   /* wakeup_softirqd() that woke it */
	int64_t ksd_wait_max;   /* ns: longest a woken ksoftirqd waited to run */
	int64_t wait_max;       /* ns: longest runnable wait of any task */
	uint64_t ipis;          /* reschedule IPIs sent */
	uint64_t runs[3];       /* softirq runs started, by run_ctx */
} kcounters;

/* 9. The injected fault (fault.*): which CPUs, when, and its two events. */
typedef struct kfault {
	unsigned kind;          /* FAULT_* bit, 0 = none */
	int *cpus;              /* the CPUs it hits */
	int ncpus;              /* how many */
	sim_time start, end;    /* ns: its window */
	sim_timer on, off;      /* its start and its end */
} kfault;

/* 8. Metric handles. */
typedef struct khandles {
	sim_metrics *m;         /* results */
	sim_hist *softirq_run;  /* softirq run lengths, ns */
} khandles;

struct kmodel {
	sim_engine *eng;        /* the run's engine */
	kcpu *cpu;              /* per CPU */
	kmachine mach;          /* 1 */
	kscheduler sched;       /* 2 */
	ksoftirq softirq;       /* 3 */
	krcu rcu;               /* 4 */
	kfiles files;           /* 5 */
	kworkload wl;           /* 6 (workload.h) */
	kcounters cnt;          /* 7 */
	khandles h;             /* 8 */
	kfault fault;           /* 9 */
	int err;                /* first failure inside a handler */
};

/* Record the first failure inside a handler and stop the run. */
static inline void kfail(kmodel *k, int rc)
{
	if (!k->err)
		k->err = rc;
	sim_engine_fail(k->eng, rc);
}

/* ---- machine ------------------------------------------------------------ */

/* llround() of @x >= 0 below 2^52, inline: x - trunc(x) is exact there,
 * so halves round up exactly as llround() rounds them away from zero. */
static inline sim_time round_ns(double x)
{
	sim_time r = (sim_time)x;
	return x - (double)r >= 0.5 ? r + 1 : r;
}

/* Wall-clock ns that @cost_ns of work at full speed takes on @c now. */
static inline sim_time stretch(const kcpu *c, sim_time cost_ns)
{
	const kmachine *mc = &c->k->mach;
	int busy = mc->core_busy[c->core] > 0 ? mc->core_busy[c->core] : 1;
	double f = mc->clock_scale * (1.0 + (busy - 1) * mc->smt_slowdown);
	return round_ns((double)cost_ns * f);
}

/* Speed of @c's thread (work ns per wall ns) now. */
static inline double speed(const kcpu *c)
{
	const kmachine *mc = &c->k->mach;
	int busy = mc->core_busy[c->core] > 0 ? mc->core_busy[c->core] : 1;
	return 1.0 / (mc->clock_scale * (1.0 + (busy - 1) * mc->smt_slowdown));
}

/* Is @p a job (not idle, ksoftirqd or a kthread)? Only jobs have an owner. */
static inline bool is_job(const kcpu *c, const sched_task *p)
{
	(void)c;
	return p && p->owner;
}

/* The kthread whose task @p is (a task of neither a job nor ksoftirqd). */
static inline kthread *task_kthread(sched_task *p)
{
	return (kthread *)((char *)p - offsetof(kthread, task));
}

/* ---- jobs ---- */

/* call_rcu() from job code on @c at @at (<= @now), for object @obj, through
 * the flavor, counted. 0 or -1 (kfail() called). Inline: once per
 * callback. */
static inline int job_call_rcu(kcpu *c, sim_time now, sim_time at, uint32_t obj, job_effect *eff)
{
	kmodel *k = c->k;
	rcu_call_effect e = { false, false, false, false };
	if (k->rcu.ops->call_rcu(k->rcu.rsp, c->id, at, obj, &e)) {
		kfail(k, SIM_ENOMEM);
		return -1;
	}
	k->rcu.cb.enqueued++;
	sim_tavg_add_at(&k->rcu.cb.qtotal, now, at, 1);
	eff->need_resched |= e.need_resched;
	eff->send_ipis |= e.send_ipis;
	eff->wake_gp |= e.wake_gp;
	eff->raise |= e.raise;
	return 0;
}

/* @n call_rcu()s of object 0 from @c's running job, called at @t0, @t0 +
 * @step, ... (the last <= @now), applied at @now: the same state,
 * counts, integral and effects as job_call_rcu() for each. 0, or -1 if
 * out of memory (kfail() called). */
static inline int job_call_rcu_n(kcpu *c, sim_time now, sim_time t0, sim_time step, int64_t n,
				 job_effect *eff)
{
	kmodel *k = c->k;
	rcu_call_effect e = { false, false, false, false };
	int rc = 0;
	if (n <= 0)
		return 0;
	if (k->rcu.ops->call_rcu_n)
		rc = k->rcu.ops->call_rcu_n(k->rcu.rsp, c->id, t0, step, n, &e);
	else
		for (int64_t i = 0; i < n && !rc; i++)
			rc = k->rcu.ops->call_rcu(k->rcu.rsp, c->id, t0 + i * step, 0, &e);
	if (rc) {
		kfail(k, SIM_ENOMEM);
		return -1;
	}
	k->rcu.cb.enqueued += (uint64_t)n;
	/* Each one's sim_tavg_add_at(now, t0 + i step, 1): the sum of
	 * now - t0 - i step over i < n. */
	sim_tavg *q = &k->rcu.cb.qtotal;
	sim_tavg_set(q, now, q->value + n);
	q->area += (__int128)n * (now - t0) - (__int128)step * n * (n - 1) / 2;
	eff->need_resched |= e.need_resched;
	eff->send_ipis |= e.send_ipis;
	eff->wake_gp |= e.wake_gp;
	eff->raise |= e.raise;
	return 0;
}

/* ---- files.c: the file table's part ---- */

/* Build the file table and filp slab (k->files.on) and arm each CPU's
 * cache_reap. 0, SIM_EINPUT (message) or SIM_ENOMEM. */
int kfiles_create(kmodel *k, const sim_params *p, char *err, size_t errlen);
void kfiles_destroy(kmodel *k);
/* Arm CPU @c's first cache_reap. 0 or SIM_ENOMEM. */
int kfiles_start_cpu(kmodel *k, kcpu *c);
/* Its series at @now (machine-wide queued callbacks @qsum). 0, SIM_ENOMEM
 * or SIM_ECHECK (an accounting invariant failed). */
int kfiles_sample(kmodel *k, sim_time now, int64_t qsum, char *err, size_t errlen);
/* Its scalars. 0 or SIM_ENOMEM. */
int kfiles_finish(kmodel *k, sim_metrics *m);
/* vfs.opens == vfs.closes + vfs.open_end, as many files wait for their
 * grace period as callbacks are queued (@pending), and the filp slab has as
 * many objects handed out as files live and waiting; else SIM_ECHECK. */
int kfiles_check(const kmodel *k, uint64_t pending, char *err, size_t errlen);
/* The callbacks' function: file_free_rcu() -> kmem_cache_free() on @cpu,
 * for each of @objs. */
void file_free_rcu(void *k, int cpu, const uint32_t *objs, size_t n, sim_time first_ns,
		   sim_time cost_ns);

/* ---- kcpu.c ---- */

/* Timer handler: the softirq run in progress on a CPU ends. */
void kcpu_run_end(sim_engine *eng, sim_timer *tm);
/* Timer handler: the running job reaches the point where it blocks. */
void kcpu_jobev_fire(sim_engine *eng, sim_timer *tm);
/* Before anything touches @c at (@now, @seq): end or arm a lazy softirq run (no arming if @peek). */
void kcpu_settle(kcpu *c, sim_time now, uint64_t seq, bool peek);
/* schedule() on @c at @now: a quiescent state, then the O(1) pick. */
void kcpu_schedule(kcpu *c, sim_time now);
/* Arm the one tick timer for CPU @i's next tick. Returns SIM_OK or SIM_ENOMEM. */
int kcpu_arm_tick(kmodel *k, int i);
/* Timer handler: the next CPU in turn takes its timer interrupt. */
void kcpu_tick_fire(sim_engine *eng, sim_timer *tm);
/* Timer handler: a reschedule IPI lands. */
void kcpu_ipi_fire(sim_engine *eng, sim_timer *tm);
/* Timer handler: a device interrupt lands. */
void kcpu_irq_fire(sim_engine *eng, sim_timer *tm);
/* Timer handler: a job's retry sleep is over. */
void kcpu_job_wake_fire(sim_engine *eng, sim_timer *tm);
/* Timer handler: sparc64, the running job returns from a system call with a
 * softirq pending. */
void kcpu_sysret_fire(sim_engine *eng, sim_timer *tm);
/* Timer handlers: a kthread's step ends; a sleeping kthread is woken (or
 * its sleep times out). */
void kcpu_kthread_done_fire(sim_engine *eng, sim_timer *tm);
void kcpu_kthread_wake_fire(sim_engine *eng, sim_timer *tm);
/* Timer handler: an offloading group's nocb_timer fires on its rcuog's CPU. */
void kcpu_nocb_timer_fire(sim_engine *eng, sim_timer *tm);
/* Carry out at @now the kicks the flavor left (rcu_flavor.nocb_kicks):
 * wakeups of rcuog and rcuo kthreads as events on their CPUs at @now, and
 * each group timer armed or cancelled. Only with k->rcu.nocb. */
void kcpu_nocb_kicks(kmodel *k, sim_time now);
/* The fault @kind begins or ends on @c at @now. */
void kcpu_fault_begin(kcpu *c, sim_time now, unsigned kind);
void kcpu_fault_end(kcpu *c, sim_time now);

/* ---- fault.c ---- */

/* The fault of fault.* (none: nothing armed). 0, SIM_EINPUT (message) or
 * SIM_ENOMEM. */
int kfault_create(kmodel *k, const sim_params *p, char *err, size_t errlen);
void kfault_destroy(kmodel *k);

#endif
