/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kernel.h - the kernel model's public face: what the parts outside
 * models/kernel/ (Tree RCU's mechanisms in rcu/, the workloads, fs/) may
 * use of it. Its state, one struct per part (machine, scheduler, softirqs,
 * RCU, file table, workload, counters, metric handles) and the per-CPU
 * state (kcpu); the machine's speed helpers; the job services
 * (job_call_rcu(), kfail()); a CPU settled and accounted before a handler
 * touches it; what RCU asks of a CPU (kcpu_rcu_effect()); the kthread API
 * (kthread_init(), kthread_wake(), kthread_kick()); the interrupt helpers
 * an IPI's handler needs; the timeline's hooks that RCU's files write.
 *
 * What only the CPU model's own files share (softirq runs, the tick and
 * the events that land on a CPU, the kthread runner's insides, the
 * timeline's writer, the injected fault) is kernel_int.h's, private to
 * models/kernel/ (ctest `layers` fails if a file elsewhere includes it).
 * The structs stay visible here: the per-callback and per-tick paths
 * (job_call_rcu(), stretch(), kcpu_account()) are inline over them.
 *
 * Who calls whom: kernel.c walks its table of parts (kparts[]: create,
 * start, sample, finish, destroy; each part writes its own metrics); the
 * CPU model (cpu.c, softirq.c, kthread.c, tick.c, irq.c) is what each CPU
 * does and calls the workload's run, the scheduling class (sched/),
 * the RCU flavor (rcu/) and RCU's mechanisms (rcu/mechanisms.h); those
 * mechanisms are kthreads, IPIs and work of the CPU model and reach it
 * only through this header; the workloads call the RCU flavor through the
 * job services here, RCU's mechanisms (rcu/mechanisms.h) and the file
 * table (fs/files.h), never the CPU model's insides: what they ask of it
 * comes back as a job_effect.
 * Its parts follow 2.6.14-2.6.16 or Linux 6.12 as each file says.
 */
#ifndef RCUSIM_KERNEL_H
#define RCUSIM_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rcu/cbstats.h"
#include "checks.h"
#include "rcu/domain.h"
#include "rcu/percpu.h"
#include "rcu/rcu.h"
#include "sched/sched.h"
#include "fs/file_table.h"
#include "workloads/workload.h"
#include "model.h"

typedef struct ktrace ktrace;

#define REF_CLOCK_HZ 1.2e9 /* the clock at which every *_cost is given */

/* Where a softirq run was started: irq_exit() (timer and device
 * interrupts), a trap return (sparc64's rtrap: after irq_exit, at an IPI, at
 * a system-call return), or ksoftirqd. The first two resume the interrupted
 * or returning task at their end. */
typedef enum run_ctx { RUN_IRQ_EXIT, RUN_TRAP_RETURN, RUN_KSOFTIRQD } run_ctx;

/* Why a softirq run ended: nothing left pending, or __do_softirq() /
 * handle_softirqs() refused another pass with the RCU softirq still
 * pending (MAX_SOFTIRQ_RESTART passes, the time budget MAX_SOFTIRQ_TIME in
 * jiffies, need_resched()), which leaves it to ksoftirqd. */
typedef enum run_stop { RUN_STOP_EMPTY, RUN_STOP_RESTART, RUN_STOP_BUDGET, RUN_STOP_RESCHED,
			RUN_NSTOP } run_stop;

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

typedef struct kthread kthread;

/* What makes a kernel thread one kind or another (kthread.c runs them all):
 * its work comes in steps, each a number of ns of CPU time at full speed
 * whose state changes when it starts. A new kind is a file with its table
 * and its family's create, destroy and finish, declared beside the RCU
 * kthreads' (rcu/mechanisms.h), and a row of kernel.c's kparts[]. */
typedef struct kthread_ops {
	const char *name;
	/* @kt, running on @c, begins its next step at @t: its state changes
	 * now; returns the step's work, ns at full speed (0: it ends at once). */
	double (*step)(kcpu *c, kthread *kt, sim_time t);
	/* Its step ended at @t: run the next one at once (RCU_GP_NEXT_RUN),
	 * sleep until woken (_SLEEP), or sleep until woken or *@timeout
	 * (_TIMEOUT). */
	rcu_gp_next (*step_end)(kcpu *c, kthread *kt, sim_time t, sim_time *timeout);
	/* Its wake timer fired at @now while it sleeps (a kick, or its sleep's
	 * timeout): does it wake now? It may re-arm kt->wake instead. */
	bool (*wake_fire)(kcpu *c, kthread *kt, sim_time now);
} kthread_ops;

/* A kernel thread bound to one CPU, of a kind (kthread_ops): today the RCU
 * flavor's grace-period kthread (rcu_gp_kthread.c), a CPU's rcuc kthread
 * (rcu_cpu_kthread.c: RCU core work with rcu.use_softirq = no), an
 * offloading group's rcuog kthread and an offloaded CPU's rcuo kthread
 * (rcu_nocb_kthreads.c). The step in progress ends in an event while the
 * thread runs (done), moved by whatever interrupts it. It is not a job:
 * its task's owner is NULL. The fields after the common ones are its
 * kind's. */
struct kthread {
	sched_task task;        /* its task (owner NULL) */
	const kthread_ops *ops; /* what kind of kthread */
	kcpu *cpu;              /* where it runs */
	kthread *next;          /* the next kthread bound to its CPU (kcpu.kthreads) */
	double work;            /* ns at full speed left of the step in progress */
	bool in_step;           /* a step's work is in progress */
	bool step_due;          /* runnable with its next step to run when it gets the CPU */
	bool sleeping;          /* off the runqueue until woken (wake, or its timeout) */
	bool waiting;           /* woken and not yet run */
	bool ttwu_queued;       /* on its CPU's wake list: enqueued when the IPI lands (wake) */
	sim_time woken;         /* ns: when it was last woken */
	sim_time wait_max;      /* ns: longest a woken one waited to run */
	sim_hist *wait_hist;    /* each wake-to-run wait, ns; NULL: not kept (the GP kthread's only) */
	sim_time cpu_ns;        /* ns of CPU time it used (wall, steps ended) */
	uint64_t wakeups;       /* times woken */
	sim_timer done;         /* the step in progress ends (armed while it runs) */
	sim_timer wake;         /* its wakeup, or its sleep's timeout */
	/* Unbound (kthread_unbind()): placed at each wake-up as
	 * select_task_rq_fair() places it. */
	bool unbound;
	int waker;              /* the CPU whose kick armed wake, -1: its timeout (its own CPU's timer) */
	int recent_cpu;         /* p->recent_used_cpu, -1 none yet */
	uint64_t migrations;    /* wake-ups that placed it on another CPU */
	uint64_t on_waker;      /* wake-ups from another CPU that placed it on the waker's */
	uint64_t remote_wakes;  /* wake-ups from a CPU other than its previous one */
	/* The GP kthread: the step in progress. */
	rcu_gp_work gpw;
	/* rcuc: rcu_cpu_kthread()'s state. */
	bool has_work;          /* rcu_cpu_has_work */
	bool yielding;          /* RCU_KTHREAD_YIELDING: sleeping 2 jiffies after 10 passes */
	int spincnt;            /* passes in this wakeup */
	sim_time step_start;    /* ns: the current step began (rcuc run lengths) */
	/* rcuog, rcuo. */
	rcu_nocb_work nw;       /* what its last step did */
	uint64_t invoked;       /* rcuo: callbacks it invoked */
	int id;                 /* its group (rcuog) or CPU (rcuo) */
	sim_timer nocb_timer;   /* rcuog: its group's deferred-wakeup timer (nocb_timer) */
};

/* workqueue.c: work items and the kworkers that run them (kernel/
 * workqueue.c of 6.12). A work item's function comes in two halves, as a
 * kthread's step: work_func begins it on @c at @t (its state changes now)
 * and returns its work, ns at full speed (0: it ends at once); its
 * work_done_func (NULL: none) runs when that work is done, at @t. */
typedef struct workqueue workqueue;
typedef struct work_struct work_struct;
typedef double work_func(kcpu *c, work_struct *w, sim_time t);
typedef void work_done_func(kcpu *c, work_struct *w, sim_time t);
struct work_struct {
	work_func *func;        /* its work's beginning */
	work_done_func *done;   /* its work's end, or NULL */
	void *ctx;              /* the owner's data */
	work_struct *next;      /* the next on its worker's worklist */
	bool pending;           /* WORK_STRUCT_PENDING: queued or its timer armed, not yet begun */
};
typedef struct delayed_work {
	work_struct work;       /* the item */
	sim_timer timer;        /* its delay (delayed_work_timer_fn() queues it) */
	workqueue *wq;          /* where the timer queues it */
	int cpu;                /* for which CPU */
} delayed_work;
typedef struct rcu_work {
	work_struct work;       /* the item, pending from queue_rcu_work() on */
	workqueue *wq;          /* where its callback queues it */
} rcu_work;
enum { WQ_UNBOUND = 1 };  /* alloc_workqueue()'s flags: workers on housekeeping CPUs only */

struct kcpu {
	/* 1. Identity. */
	kmodel *k;              /* the model */
	int id, core;           /* CPU number, core number */

	/* 2. Scheduler. */
	sched_rq rq;            /* runqueue */
	sched_task ksoftirqd;   /* this CPU's ksoftirqd */
	bool need_resched;      /* TIF_NEED_RESCHED, or TIF_NEED_RESCHED_LAZY alone if resched_lazy */
	bool resched_lazy;      /* sched.preempt = lazy: the request pending is only the lazy bit */
	bool busy;              /* counted in its core's busy threads */
	sim_time seg_start;     /* ns: the running job's unaccounted CPU time starts here */
	sim_time switch_left;   /* ns: the rest of the context switch an interrupt came into (taken after it) */
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
	bool run_cut;           /* its passes stopped at a tick: the restart rule decides at its end */
	run_stop run_stop;      /* why its passes stopped (counted when it ends) */
	int64_t run_end_j;      /* handle_softirqs()'s end: no restart from this jiffy on */
	bool ksd_runnable;      /* ksoftirqd is on the runqueue */
	sim_time ksd_woken;     /* ns: when ksoftirqd was last woken */
	bool ksd_waiting;       /* woken and not yet run */
	sim_time softirq_ns;    /* ns spent in softirq runs, completed ones */
	sim_time softirq_ns_sampled; /* softirq_ns + partial run, at the last sample */
	uint64_t idle_exits;    /* its switches away from its idle task */
	uint64_t idle_exits_sampled; /* idle_exits at the last sample */

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
	sim_timer resched_pt;   /* sched.preempt none/voluntary: the running job's next
				 * preemption point, armed while need_resched waits for it */
	sim_timer unlock;       /* PREEMPT_RCU: the running job's rcu_read_unlock() of the
				 * reader it was preempted in, armed while it runs */
	signed char irq_mode;   /* IRQ_MODE_*: what the interrupt in progress found the task
				 * in (one draw serves RCU and the scheduler) */
	bool ipi_resched;       /* the reschedule IPI on its way sets need_resched (resched_cpu()) */
	sim_time ttwu_ipi_at;   /* ns: the wake-list IPI on its way lands then (rq->ttwu_pending
				 * while later than now; machine.idle_wake_latency) */
	bool nohz_full;         /* in irq.nohz_full */
	bool tick_stopped;      /* nohz_full: its last tick was stopped (idle or one task) */
	sim_time tick_skip_at;  /* ns: a tick it does not take (irq.timer_migration: left idle by a
				 * remote wake-up at that jiffy, its tick restarting a period on);
				 * -1: none */
	bool ct_user;           /* nohz_full: in user mode for the GP kthread's step (an EQS) */
	sim_time ct_pass_at;    /* nohz_full: when its last pass through user mode was counted */
	rcu_percpu rcu;         /* the normal RCU's per-CPU state (rcu/percpu.h), rcu/'s own */
	kthread *kthreads;      /* the kthreads bound to it (linked by kthread.next) */
	kthread *rcuc;          /* its rcuc kthread (rcu.use_softirq = no), else NULL */
	kthread *rcuo;          /* its rcuo kthread (offloaded), else NULL */

	/* 5. An injected fault (fault.*). */
	unsigned fault;         /* FAULT_* bits in force */
	bool fault_latched;     /* an interrupt arrived with interrupts off: taken at the end */

	/* 6. Random streams. */
	sim_rng *rng_work;      /* stream WORKLOAD_RNG_STREAM, this CPU */
	sim_rng *rng_mode;      /* stream "kernel.tick_mode", this CPU */
	sim_rng *rng_irq;       /* stream "irq.device", this CPU */
	sim_rng *rng_bg;        /* stream "machine.background", this CPU (NULL: background off) */
	sim_rng *rng_cost;      /* stream "rcu.core_cost", this CPU (NULL: rcu.core_cost_sigma 0) */
	sim_timer bg_irq;       /* machine.background: its next background device interrupt */
};

/* kcpu.irq_mode: not drawn yet, user mode (or idle), kernel mode, and in
 * kernel mode inside a read-side critical section or outside one (drawn
 * only under PREEMPT_RCU). */
enum { IRQ_MODE_UNDRAWN, IRQ_MODE_USER, IRQ_MODE_KERNEL, IRQ_MODE_READER, IRQ_MODE_NOT_READER };

/* irq.tick_phase: where each CPU's tick falls in the period. */
typedef enum tick_phase { TICK_SPREAD, TICK_ALIGNED, TICK_SKEWED } tick_phase;

/* 1. The machine: geometry, speed, the timer and interrupt costs. */
typedef struct kmachine {
	int ncpus, ncores, tpc; /* CPUs, cores, threads per core */
	int *core_busy;         /* busy threads per core */
	double smt_slowdown;    /* machine.smt_slowdown */
	double clock_scale;     /* REF_CLOCK_HZ / machine.clock */
	sim_time tick_ns;       /* ns between ticks (1 / machine.hz) */
	sim_time tick_cost;     /* ns: a tick's hardirq work, at full speed */
	sim_time irq_cost;      /* ns: a device interrupt's or IPI's hardirq work */
	sim_time idle_wake_ns;  /* machine.idle_wake_latency: a remote wake-up reaching an idle CPU */
	double irq_rate;        /* device interrupts per second per CPU */
	bool nohz_idle;         /* irq.nohz_idle: an idle CPU without callbacks takes no tick */
	bool timer_migration;   /* irq.timer_migration: the GP kthread's FQS timer is expired by an
				 * active CPU while its own idles tickless */
	tick_phase tick_phase;  /* irq.tick_phase */
	int nfull;              /* irq.nohz_full: how many CPUs */
	int *full;              /* their numbers, ascending */
	int nhk;                /* housekeeping CPUs (the others) */
	int *hk;                /* their numbers, ascending */
	sim_timer remote;       /* nohz_full: the next round of sched_tick_remote() */
	bool sparc64;           /* machine.arch: trap returns run pending softirqs, an IPI is a
				 * trap through rtrap (else x86_64: irq_exit only, an IPI acks) */
	sim_timer tick;         /* the next timer interrupt of any CPU (tick_next's) */
	int tick_next;          /* the CPU it is for */
} kmachine;

/* 2. The scheduler. */
/* sched.preempt, in its values' order. */
typedef enum preempt_model { PREEMPT_NONE, PREEMPT_VOLUNTARY, PREEMPT_FULL, PREEMPT_LAZY } preempt_model;

typedef struct kscheduler {
	sched_cfg cfg;          /* the class (sched.kind) and its constants */
	preempt_model preempt;  /* sched.preempt: who an interrupt's return preempts */
	sched_arrays *rq_store; /* per CPU: its runqueue's priority arrays */
	sim_time ctxsw_cost;    /* ns: one context switch, at full speed */
	sched_tg tg;            /* sched.autogroup: the jobs' group */
} kscheduler;

/* 3. Softirqs. */
typedef struct ksoftirq {
	int max_restart;        /* MAX_SOFTIRQ_RESTART */
	bool in_irq_exit;       /* irq_exit() runs softirqs (no: only ksoftirqd does) */
	bool stop_on_resched;   /* no restart with need_resched set (3.8+) */
	bool defer;             /* leave them to a runnable ksoftirqd (4.9-6.4) */
	bool effect_at_pass;    /* rcu_core()'s wake-ups before the restart test (softirq.effect_at_pass) */
	int64_t budget_j;       /* jiffies a run may restart in (msecs_to_jiffies(time_limit)),
				 * 0 = no limit */
	bool cut_at_tick;       /* a run's passes are committed up to the CPU's next tick
				 * only, where need_resched may change (3.8+ restart rule) */
	sim_time pass_cost;     /* ns: one __do_softirq pass, at full speed */
} ksoftirq;

/* 4. RCU: the flavor, its state, its costs, and the callbacks' counts. */
typedef struct krcu {
	const rcu_flavor *ops;  /* rcu.flavor's table, every optional operation filled (&flavor) */
	rcu_flavor flavor;      /* that table (rcu_flavor_fill()) */
	void *rsp;              /* its state */
	sim_time handler_cost;  /* ns: the RCU softirq handler's fixed work per pass
				 * (classic: rcu.tasklet_cost; tree: rcu.core_pass_cost) */
	double core_sigma;      /* rcu.core_cost_sigma: log-sd of the first pass's handler cost (0: fixed) */
	bool preempt_rcu;       /* rcu.preempt_rcu: a kernel tick outside a reader is a QS */
	sim_time cb_cost;       /* ns: one callback */
	cb_stats cb;            /* queued, invoked, queue over time, latencies */
	/* The flavor's kthreads (Tree RCU). */
	kthread *gpk;           /* the GP kthread, or NULL (classic) */
	kthread *rcuc;          /* per CPU rcuc kthreads, or NULL (softirq) */
	sim_time node_cost;     /* ns: the GP kthread's work per rcu_node it walks */
	sim_time fqs_cpu_cost;  /* ns: its work per CPU an FQS scan checks */
	sim_time rcuc_pass_cost; /* ns: rcu.rcuc_pass_cost, an rcuc pass's fixed work */
	sim_time rcuog_pass_cost; /* ns: rcu.rcuog_pass_cost, an rcuog pass */
	sim_time rcuo_pass_cost; /* ns: rcu.rcuo_pass_cost, an rcuo batch's fixed work */
	sim_hist *rcuc_run;     /* rcuc step lengths, ns */
	uint64_t resched_ipis;  /* resched_cpu() calls of FQS scans */
	/* Offloading (rcu.nocbs): rcuog per group, rcuo per offloaded CPU. */
	bool nocb;              /* some CPU is offloaded: the kthreads below exist */
	kthread *rcuog;         /* per group (only those with an offloaded CPU are set up), or NULL */
	int nrcuog;             /* groups */
	kthread *rcuo;          /* per CPU (only offloaded ones set up), or NULL */
	/* Readers preempted inside rcu_read_lock() (rcu.preempt_rcu,
	 * rcu_readers.c), per leaf rcu_node by its index. */
	int nreader_lists;      /* slots below */
	job **blkd;             /* each leaf's, oldest first (linked by job.rdr_next) */
	job **boosted;          /* each leaf's reader its rcub is boosting now, or NULL */
	uint64_t readers_boosted; /* readers lent SCHED_FIFO priority */
	sim_time last_gp[2];    /* ns: start and end of the last normal GP to end (-1: none;
				 * rcu_flavor_env.last_gp) */
	/* Tree RCU's expedited grace periods (rcu_exp.c), synchronize_rcu()'s
	 * wake-from-GP (rcu_gp_kthread.c) and rcu_barrier() (rcu_barrier.c):
	 * each mechanism's own state (rcu/mechanisms.h), NULL when not modelled. */
	struct rcu_exp_state *exp;
	struct rcu_srs_state *srs;
	struct rcu_barrier_state *bar;
	rcu_domain dom;         /* this RCU as the run's domain "rcu" (rcu/rcu_domain.c) */
} krcu;

/* kfree_rcu() batching (kfree_rcu.c), with the kfree workload. */
typedef struct kfree_page {
	int32_t n;              /* pointers in it */
	uint64_t snap_norm, snap_exp; /* its full snapshot, refreshed at each insert */
	sim_time first;         /* ns: its first insert */
	double sum;             /* ns: its inserts' times, summed (mean latency) */
} kfree_page;
typedef struct kfree_pages {
	kfree_page *pg;         /* oldest first */
	int n, cap;
} kfree_pages;
typedef struct kfree_batch {    /* kfree_rcu_cpu_work: krw_arr[i] */
	kfree_pages pages;      /* bulk_head_free */
	int64_t head_n;         /* head_free: objects on their own rcu_head */
	double head_sum;        /* their inserts' times, summed */
	sim_time head_first;    /* the first one's */
	bool busy;              /* its callback or its free pending */
	rcu_work rcu_work;      /* kfree_rcu_work(), queued by queue_rcu_work() */
	int cpu;                /* its kfree_rcu_cpu's CPU (krwp->krcp) */
} kfree_batch;
typedef struct kfree_cpu {      /* kfree_rcu_cpu */
	kfree_pages pages;      /* bulk_head[0] */
	int64_t head_n;         /* the head channel */
	double head_sum;
	sim_time head_first;
	uint64_t head_snap;     /* head_gp_snap */
	int cached;             /* empty pages cached (bkvcache) */
	bool backoff;           /* backoff_page_cache_fill: the next refill is one page */
	int64_t count;          /* krc_count() */
	kfree_batch batch[2];   /* krw_arr */
	delayed_work monitor_work; /* kfree_rcu_monitor() */
	int cpu;                /* its CPU */
} kfree_cpu;
typedef struct kkfree {
	bool on;                /* modelled (workload.kind = kfree, not by call_rcu) */
	bool by_call;           /* workload.kind = kfree by call_rcu(): each callback an object */
	kfree_cpu *cpu;         /* per CPU */
	workqueue *wq;          /* system_unbound_wq: the monitors and the batches' frees */
	sim_time drain_ns;      /* KFREE_DRAIN_JIFFIES */
	sim_time bulk_cost;     /* ns: rcu.kfree_bulk_cost */
	sim_time mon_cost;      /* ns: the monitor's fixed work */
	int min_cached;         /* rcu.kfree_min_cached_pages */
	int64_t shrink_at;      /* bytes: rcu.kfree_shrink_at (0: never) */
	bool alloc_fails;       /* rcu.kfree_alloc_fails: page allocations fail over shrink_at */
	uint64_t alloc_failures, sync_fallbacks; /* failed page allocations; objects freed inline */
	sim_time shrunk_at;     /* ns: the shrinker's last run (-1: none) */
	uint64_t shrinks;       /* shrinker runs */
	double single_share;    /* workload.kfree_single_share */
	int64_t obj_size;       /* bytes an object */
	int64_t pending, pending_max; /* objects queued and not yet freed */
	int64_t pages_held;     /* bulk pages allocated and not freed (cached ones too) */
	int64_t bytes_max;      /* peak of pending x obj_size + pages_held x 4 KiB */
	uint64_t objects, freed, batches, monitors, freed_no_gp, head_objects, pages_allocated;
	double lat_sum;         /* ns: kfree_rcu() to free, summed over freed objects */
	sim_time lat_max;       /* ns: longest */
} kkfree;

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
	uint64_t passes[3];     /* their __do_softirq passes, by run_ctx */
	uint64_t run_stops[RUN_NSTOP]; /* softirq runs ended, by why */
	uint64_t idle_entries;  /* a CPU's switches to its idle task */
	uint64_t idle_exits;    /* and away from it: wake-ups from idle */
	uint64_t ticks_taken;   /* tick interrupts whose handler ran */
	uint64_t ticks_stopped; /* ticks a tickless idle CPU did not take (irq.nohz_idle) */
	uint64_t ticks_stopped_busy; /* of them, a nohz_full CPU's running one task */
	uint64_t ticks_forced;  /* ticks a nohz_full CPU took only for RCU (TICK_DEP_BIT_RCU) */
	uint64_t ticks_remote;  /* sched_tick_remote() calls on a housekeeping CPU */
} kcounters;

/* 10. Background activity (machine.background, background.c). */
typedef struct kbackground {
	bool on;                /* machine.background */
	double p_tick;          /* an idle stopped tick taken: background.timer_ticks / HZ */
	double wakeup_rate;     /* background.wakeups, per second per CPU */
	sim_time wakeup_cost;   /* ns: background.wakeup_cost, mean wall time at the box's speed */
	double irq_rate;        /* background.irqs, per second per CPU */
	double p_burst;         /* a run queues a burst of callbacks: background.callbacks /
				 * background.callback_batch / background.wakeups (0: none) */
	double p_burst_end;     /* a burst's next callback is its last: 1 / background.callback_batch */
	kthread *kt;            /* per CPU: its background task (NULL: wakeup_rate 0) */
	uint64_t timer_ticks;   /* idle stopped ticks taken for a timer */
	uint64_t wakeups;       /* background task wake-ups */
	uint64_t runs;          /* their runs begun */
	uint64_t irqs;          /* background device interrupts */
	uint64_t cb_queued;     /* call_rcu()s of the background tasks */
	uint64_t cb_invoked;    /* of them, invoked (loads_invoke()) */
} kbackground;

/* The background tasks' callbacks queued and not yet invoked: in the
 * callbacks queued (cb.qlen), none of a load's objects. */
static inline int64_t kbg_cb_pending(const kbackground *bg)
{
	return (int64_t)(bg->cb_queued - bg->cb_invoked);
}

/* The loads' callbacks queued at their peak, for mem.pending_bytes_max:
 * the exact peak of all callbacks queued, or with the box's own among them
 * (background.callbacks) the loads' peak at the samples. */
static inline int64_t kobjq_max(const cb_stats *cb, const kbackground *bg, int64_t objq_max)
{
	return bg->p_burst > 0 ? objq_max : (int64_t)cb->qtotal.max;
}

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
	sim_hist *softirq_irq_run; /* of them, the runs outside ksoftirqd */
	sim_hist *ksd_wait;     /* each woken ksoftirqd's wait to run, ns */
} khandles;

struct kmodel {
	sim_engine *eng;        /* the run's engine */
	kcpu *cpu;              /* per CPU */
	kmachine mach;          /* 1 */
	kscheduler sched;       /* 2 */
	ksoftirq softirq;       /* 3 */
	krcu rcu;               /* 4 */
	rcu_domains doms;       /* every RCU domain of the run (rcu/domain.h): today rcu.dom */
	kfiles files;           /* 5 */
	kkfree kfree;           /* kfree_rcu() batching */
	kworkload wl;           /* 6 (workload.h): [workload] */
	kworkload *more;        /* the named loads, [workload.NAME] (workloads/workload.c) */
	int nmore;              /* how many */
	kcounters cnt;          /* 7 */
	khandles h;             /* 8 */
	kfault fault;           /* 9 */
	kbackground bg;         /* 10 */
	ktrace *tr;             /* the timeline being written (rcusim run --trace), or NULL */
	int64_t obj_bytes;      /* workload.object_size: bytes a pending callback holds (0: the
				 * workload sizes its own, kfree and files, or has none) */
	int64_t objq_max;       /* with background.callbacks: the loads' callbacks queued at
				 * their peak over the samples (the box's own hold none of
				 * their objects); else unused: cb.qtotal's exact peak is */
	int err;                /* first failure inside a handler */
};

/* Every load of @k: [workload], then the named ones. */
static inline kworkload *kload_next(kmodel *k, kworkload *w)
{
	if (w == &k->wl)
		return k->nmore ? k->more : NULL;
	return w + 1 < k->more + k->nmore ? w + 1 : NULL;
}
#define for_each_load(k, w) for (kworkload *w = &(k)->wl; w; w = kload_next((k), w))

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

/* resched_curr() on @c (a full request), or, from the fair class (@lazy: a
 * slice used up, a fair task's wakeup), resched_curr_lazy(), which under
 * sched.preempt = lazy sets only TIF_NEED_RESCHED_LAZY, and the full bit in
 * every other model (kernel/sched/core.c 6.19:1099-1169); the idle task
 * always gets the full bit. A full request stays full. */
static inline void kcpu_resched(kcpu *c, bool lazy)
{
	if (lazy && c->k->sched.preempt == PREEMPT_LAZY && c->rq.curr) {
		if (!c->need_resched) {
			c->need_resched = true;
			c->resched_lazy = true;
		}
		return;
	}
	c->need_resched = true;
	c->resched_lazy = false;
}

/* need_resched(): the full bit only (the lazy one is read at the return to
 * user mode and promoted at the next tick). */
/* When a task of idle CPU @target woken from @waker at @t is enqueued there:
 * try_to_wake_up() -> ttwu_queue() (kernel/sched/core.c 6.12:3943-3955)
 * puts it on @target's wake list and sends the IPI when @target is another
 * CPU with nr_running 0 (ttwu_queue_wakelist(), ttwu_queue_cond(),
 * :3874-3932; every CPU here shares the LLC), and @target enqueues it in
 * sched_ttwu_pending() (:3762-3797) once the IPI lands,
 * machine.idle_wake_latency later. A wake-up while that IPI is on its way
 * joins the list and lands with it (__smp_call_single_queue() sends the IPI
 * only for the list's first entry). @t itself when @target is @waker or not
 * idle (the waker enqueues it, ttwu_do_activate()). Records the IPI's
 * landing (rq->ttwu_pending, :3821-3829). */
static inline sim_time kcpu_remote_wake_at(const kcpu *waker, kcpu *target, sim_time t)
{
	if (waker == target || target->rq.curr || target->rq.nr_running || target->in_softirq)
		return t;
	if (target->ttwu_ipi_at > t)
		return target->ttwu_ipi_at;
	if (!target->k->mach.idle_wake_ns)
		return t;
	return target->ttwu_ipi_at = t + target->k->mach.idle_wake_ns;
}

static inline bool kcpu_need_resched(const kcpu *c)
{
	return c->need_resched && !c->resched_lazy;
}

/* The kthread whose task @p is (a task of neither a job nor ksoftirqd). */
static inline kthread *task_kthread(sched_task *p)
{
	return (kthread *)((char *)p - offsetof(kthread, task));
}

/* ---- jobs ---- */

/* The run's normal RCU, the domain named "rcu" (rcu/rcu_domain.c): the one
 * the kernel's call_rcu(), synchronize_rcu() and kfree_rcu() go to. */
static inline rcu_domain *rcu_normal(kmodel *k) { return &k->rcu.dom; }

/* call_rcu() in domain @d on @c at @at (<= @now), for object @obj, through
 * its flavor, counted in its cb; what it asks of the CPU or'ed into @e.
 * 0 or -1 (kfail() called). Inline: once per callback. */
static inline int domain_call_rcu(rcu_domain *d, kcpu *c, sim_time now, sim_time at, uint32_t obj,
				  rcu_effect *e)
{
	if (d->flavor->call_rcu(d->rsp, c->id, at, obj, e)) {
		kfail(c->k, SIM_ENOMEM);
		return -1;
	}
	d->cb->enqueued++;
	sim_tavg_add_at(&d->cb->qtotal, now, at, 1);
	return 0;
}

/* call_rcu() in domain @d from job code on @c at @at (<= @now), for object
 * @obj: domain_call_rcu(), counted in the calling job's load too. */
static inline int job_call_rcu(rcu_domain *d, kcpu *c, sim_time now, sim_time at, uint32_t obj,
			       job_effect *eff)
{
	kworkload *w = ((job *)c->rq.curr->owner)->wl; /* the calling job's load */
	if (domain_call_rcu(d, c, now, at, obj | w->tag, &eff->rcu))
		return -1;
	w->callbacks++;
	return 0;
}

/* call_rcu() in domain @d for object @obj from a kthread's run on @c at
 * @now (kernel code, no job: no load counts it), for the caller's
 * kcpu_rcu_effect() of @e. */
static inline int kthread_call_rcu(rcu_domain *d, kcpu *c, sim_time now, uint32_t obj, rcu_effect *e)
{
	return domain_call_rcu(d, c, now, now, obj, e);
}

/* @n call_rcu()s of object 0 from @c's running job, called at @t0, @t0 +
 * @step, ... (the last <= @now), applied at @now: the same state,
 * counts, integral and effects as job_call_rcu() for each. 0, or -1 if
 * out of memory (kfail() called). */
static inline int job_call_rcu_n(rcu_domain *d, kcpu *c, sim_time now, sim_time t0, sim_time step,
				 int64_t n, job_effect *eff)
{
	const rcu_flavor *f = d->flavor;
	int rc = 0;
	if (n <= 0)
		return 0;
	if (f->call_rcu_n)
		rc = f->call_rcu_n(d->rsp, c->id, t0, step, n, &eff->rcu);
	else
		for (int64_t i = 0; i < n && !rc; i++)
			rc = f->call_rcu(d->rsp, c->id, t0 + i * step, 0, &eff->rcu);
	if (rc) {
		kfail(c->k, SIM_ENOMEM);
		return -1;
	}
	((job *)c->rq.curr->owner)->wl->callbacks += (uint64_t)n;
	d->cb->enqueued += (uint64_t)n;
	/* Each one's sim_tavg_add_at(now, t0 + i step, 1): the sum of
	 * now - t0 - i step over i < n. */
	sim_tavg *q = &d->cb->qtotal;
	sim_tavg_set(q, now, q->value + n);
	q->area += (__int128)n * (now - t0) - (__int128)step * n * (n - 1) / 2;
	return 0;
}

/* ---- the CPU model (cpu.c, softirq.c, kthread.c, tick.c, irq.c) -------
 *
 * RCUSIM_CHECKS relies on: a lazy softirq run is settled (kcpu_settle)
 * before anything touches its CPU, so every handler that reaches a CPU
 * settles it first ("kcpu.settled"). */

/* With the checks on: no lazy softirq run on @c ends before the event being
 * dispatched (it was settled). */
static inline void check_settled(const kcpu *c)
{
	RCUSIM_CHECK(!c->run_lazy || c->run_end_at > sim_now(c->k->eng) ||
			     (c->run_end_at == sim_now(c->k->eng) &&
			      c->run_seq > sim_engine_cur_seq(c->k->eng)),
		     "kcpu.settled");
}

/* Is @p one of @c's kthreads (a task of neither a job nor ksoftirqd)? */
static inline bool is_kthread(const kcpu *c, const sched_task *p)
{
	return p && !p->owner && p != &c->ksoftirqd;
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
	if (n > 0 && at + (n - 1) * cost > cb->last_at)
		cb->last_at = at + (n - 1) * cost;
}

/* cpu.c: a CPU's state between events. */

/* Before anything touches @c at (@now, @seq): end or arm a lazy softirq run (no arming if @peek). */
void kcpu_settle(kcpu *c, sim_time now, uint64_t seq, bool peek);
/* kcpu_settle() for an event on @c being dispatched now. */
void kcpu_settle_now(kcpu *c);
/* schedule() on @c at @now: a quiescent state, then the pick. */
void kcpu_schedule(kcpu *c, sim_time now);
/* What the normal RCU (the domain "rcu") asked of CPU @c at @now, carried
 * out in one place (rcu/rcu_domain.c), in this order: need_resched,
 * force_quiescent_state()'s reschedule IPIs, the GP kthread's wakeup,
 * invoke_rcu_core() (in a softirq run: the run restarts), then the kicks
 * the flavor left for the offloading kthreads. kcpu_rcu_effect() is its
 * inline front: most calls ask nothing. */
void kcpu_rcu_effect_apply(kcpu *c, sim_time now, const rcu_effect *e);
static inline void kcpu_rcu_effect(kcpu *c, sim_time now, const rcu_effect *e)
{
	if (e->need_resched || e->send_ipis || e->wake_gp || e->raise || c->k->rcu.nocb)
		kcpu_rcu_effect_apply(c, now, e);
}
/* A hardirq of @cost_ns landed in the softirq run in progress on @c: the
 * run ends that much later. */
void kcpu_extend_run(kcpu *c, sim_time cost_ns);

/* kthread.c: kthreads of any kind (kthread_ops). */

/* @kt, of kind @ops, on @c: sleeping until woken, SCHED_FIFO when @prio >
 * 0, else nice 0. 0 or SIM_ENOMEM. */
int kthread_init(kmodel *k, kthread *kt, const kthread_ops *ops, kcpu *c, int prio);
/* Wake @kt at @now. From its CPU's own event (@event), a preempting
 * wakeup reschedules at once; from inside a handler, it sets need_resched
 * for the handler's return. */
void kthread_wake(kthread *kt, sim_time now, bool event);
/* Wake @kt from anywhere at @t: an event on its CPU at @t, unless it runs
 * (a kick then is seen when its step ends) or a wakeup is already due by
 * then; its kind's wake_fire decides whether its wait ends. */
void kthread_kick(kthread *kt, sim_time t);
/* The same from CPU @waker (the waking CPU select_task_rq_fair() reads
 * for an unbound kthread; -1: its own CPU's timer). */
void kthread_kick_by(kthread *kt, int waker, sim_time t);
/* Make @kt unbound (the GP kthread with rcu.gp_kthread_cpu = auto): room
 * on every housekeeping CPU's runqueue. 0 or SIM_ENOMEM. */
int kthread_unbind(kmodel *k, kthread *kt);
/* The CPU select_task_rq_fair() places @kt on when @waker (-1: its own
 * CPU) wakes it at @now; with @commit, p->recent_used_cpu is updated. */
int kthread_select_cpu(kthread *kt, int waker, sim_time now, bool commit);
/* Move sleeping @kt to @to (set_task_cpu()); @to settled to its state at
 * now by the caller. */
void kthread_move(kthread *kt, kcpu *to);
/* Wake @kt at @now from CPU @waker (-1: its own CPU's event), as
 * kthread_wake(): an unbound one is placed first. */
void kthread_wake_by(kthread *kt, sim_time now, bool event, int waker);
/* The running kthread @kt's work up to @now (its step's end moves). */
void kthread_progress(kcpu *c, kthread *kt, sim_time now);
/* workqueue.c: work items (their types above, beside kthread's). */
/* A workqueue named @name (its workers' kind, trace comm kworker/N:name)
 * with a worker per CPU, or with WQ_UNBOUND per housekeeping CPU;
 * SCHED_FIFO at @prio > 0. 0 or SIM_ENOMEM (*@out NULL). */
int alloc_workqueue(kmodel *k, workqueue **out, const char *name, unsigned flags, int prio);
/* A kthread_worker (kthread_create_worker_on_cpu()): a workqueue of one
 * worker, on @cpu, that runs whatever is queued on it. 0 or SIM_ENOMEM. */
int kthread_create_worker_on(kmodel *k, workqueue **out, const char *name, int cpu, int prio);
/* kthread_queue_work(): queue_work_on() of @w on kthread_worker @wq at @t. */
bool kthread_queue_work(workqueue *wq, work_struct *w, sim_time t);
/* Free @wq (NULL: no-op); its workers stay in their CPUs' lists (the model's end). */
void destroy_workqueue(workqueue *wq);
/* INIT_WORK(): @w not pending, running @func then @done with @ctx. */
void work_init(work_struct *w, work_func *func, work_done_func *done, void *ctx);
/* INIT_DELAYED_WORK(): the same, with its timer. */
void delayed_work_init(kmodel *k, delayed_work *dw, work_func *func, work_done_func *done, void *ctx);
/* INIT_RCU_WORK(): the same for @rw. */
void rcu_work_init(rcu_work *rw, work_func *func, work_done_func *done, void *ctx);
/* queue_work_on(): @w at the tail of the worklist that runs @wq's work for
 * @cpu, its worker woken at @t; false (nothing done) if @w is pending. */
bool queue_work_on(int cpu, workqueue *wq, work_struct *w, sim_time t);
/* queue_delayed_work_on(): @dw queued for @cpu on @wq at @at (ns, absolute:
 * the kernel's delay is @at - now); false (nothing done) if pending. */
bool queue_delayed_work_on(int cpu, workqueue *wq, delayed_work *dw, sim_time at);
/* mod_delayed_work_on(): @dw queued at @at whether pending or not (taken
 * off a worklist, or its timer moved); returns whether it was pending. */
bool mod_delayed_work_on(int cpu, workqueue *wq, delayed_work *dw, sim_time at);
/* queue_rcu_work(): @rw pending, to go on @wq once a grace period has
 * passed; false (nothing done) if pending. The caller posts the callback
 * (call_rcu_hurry()): the model's callbacks are its mechanisms' objects,
 * and the one posted for @rw calls rcu_work_rcufn() when invoked. */
bool queue_rcu_work(workqueue *wq, rcu_work *rw);
/* rcu_work_rcufn(): @rw's callback invoked: @rw queued for @cpu at @t. */
void rcu_work_rcufn(rcu_work *rw, int cpu, sim_time t);
static inline bool work_pending(const work_struct *w) { return w->pending; }
static inline bool delayed_work_pending(const delayed_work *dw) { return dw->work.pending; }
/* The worker that runs @wq's work queued for @cpu. */
kthread *workqueue_worker(const workqueue *wq, int cpu);
/* Wake-ups and CPU time (ns) of all of @wq's workers. */
uint64_t workqueue_wakeups(const workqueue *wq);
sim_time workqueue_cpu_ns(const workqueue *wq);

/* tick.c: nohz_full. Context tracking drawn for the GP kthread's step on
 * @self, and undone after it (kcpu_nohz_ct_exit()). */
void kcpu_nohz_ct_enter(kmodel *k, const kcpu *self);
/* Is the job on nohz_full CPU @o in user mode now (an EQS; drawn)? */
bool kcpu_nohz_in_user(kcpu *o);
void kcpu_nohz_ct_exit(kmodel *k);

/* The running job's work since seg_start, applied at @now through its
 * workload's run(); then what it asked of this CPU: a job that went to
 * sleep leaves the runqueue, and RCU's effects. */
static inline __attribute__((always_inline)) void kcpu_account(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	sched_task *p = c->rq.curr;
	check_settled(c);
	if (!is_job(c, p) || now <= c->seg_start) {
		if (__builtin_expect(is_kthread(c, p), 0))
			kthread_progress(c, task_kthread(p), now);
		if (now > c->seg_start) {
			c->seg_start = now;
			c->switch_left = 0;
		} else if (__builtin_expect(c->seg_start - now > c->switch_left, 0)) {
			c->switch_left = c->seg_start - now; /* see kcpu_switch_end() */
		}
		return;
	}
	c->switch_left = 0;
	job *j = p->owner;
	double s = speed(c);
	job_effect eff = { { false, false, false, false }, false };
	j->wl->ops->run(c, j, now, c->seg_start, (double)(now - c->seg_start) * s, s, &eff);
	j->wl->cpu_ns += now - c->seg_start;
	c->seg_start = now;
	if (eff.slept) {
		sched_sleep(&k->sched.cfg, &c->rq, &j->task, now);
		c->need_resched = true;
	}
	kcpu_rcu_effect(c, now, &eff.rcu); /* call_rcu's, on offloaded CPUs too */
}

/* Timer handler: a job's retry sleep is over. */
void kcpu_job_wake_fire(sim_engine *eng, sim_timer *tm);
/* Is the running job of @c in kernel mode at this interrupt? Drawn once
 * per interrupt (irq_mode): inside a system call it is; otherwise with its
 * workload's share of CPU time in system calls. */
bool kcpu_irq_in_kernel(kcpu *c);
/* Does the interrupt entering @c come from kernel mode, where
 * irqentry_enter() lets RCU look (rcu_irq_enter_check_tick())? Draws
 * kcpu_irq_in_kernel() unless @c is idle or under a no-QS fault. */
bool kcpu_irq_from_kernel(kcpu *c);
/* And inside a read-side critical section (or with preemption or BH off)?
 * A kernel thread always is; a job with its workload's reader share.
 * Drawn once per interrupt, only in kernel mode. */
bool kcpu_irq_in_reader(kcpu *c);
/* irq.timer_migration: the GP kthread's FQS timer on idle CPU @c, due at
 * @now, is expired by another CPU: @c takes no tick at @now. */
void kcpu_timer_migrated(kmodel *k, kcpu *c, sim_time now);
/* Timer @tm of @c fired at @now while @c runs a softirq or has interrupts
 * off: re-armed for when the CPU is its own again (the run's end, the
 * fault's end), true; false if @c is free (irq.c). */
bool kcpu_rearm_past_interrupt(kcpu *c, sim_timer *tm, sim_time now);
/* A hardirq's handler ended on @c at @t: back through sparc64's rtrap or
 * x86's irq return (irq.c). */
void kcpu_hardirq_return(kcpu *c, sim_time t);
/* Back to the interrupted or returning task at @t: schedule() if
 * need_resched is set, else it goes on. */
void kcpu_return_to_task(kcpu *c, sim_time t);
/* An interrupt returns to the task at @t: kcpu_return_to_task(), except
 * that under sched.preempt none or voluntary a job interrupted in kernel
 * mode is not preempted there but at its next preemption point
 * (resched_pt). */
void kcpu_irq_return(kcpu *c, sim_time t);

/* ---- ktrace.c: the timeline (rcusim run --trace) ---- */

/* Is a timeline being written? Every hook is behind this test. */
static inline bool ktr(const kmodel *k) { return __builtin_expect(k->tr != NULL, 0); }
/* A hardirq on @c, @t0 to @t1: the tick (vector 236), a reschedule IPI
 * (253), a function-call IPI (251). */
void ktrace_irq(kmodel *k, const kcpu *c, sim_time t0, sim_time t1, int vector);
/* rcu_grace_period on @c at @t: @what ("start", "end", "fqsstart") of @gp_seq. */
void ktrace_gp(kmodel *k, const kcpu *c, sim_time t, uint64_t gp_seq, const char *what);
/* softirq_raise of the RCU softirq on @c at @t. */
void ktrace_softirq_raise(kmodel *k, const kcpu *c, sim_time t);
/* One pass of a softirq run on @c, @t0 to @t1, its rcu_do_batch()
 * invoking @invoked of @qlen callbacks under batch limit @bl (@bl <= 0:
 * no rcu_batch_start/end events). */
void ktrace_softirq_pass(kmodel *k, const kcpu *c, sim_time t0, sim_time t1, int64_t invoked,
			 int64_t qlen, int64_t bl);

#endif
