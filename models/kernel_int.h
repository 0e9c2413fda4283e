/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kernel_int.h - what the kernel model's files share: the per-CPU state
 * (kcpu), the jobs, the model (kmodel), the machine's speed helpers, and
 * the entry points each file offers the others. kernel.c holds the model
 * table, kcpu.c what each CPU does (ticks, interrupts, softirq runs,
 * schedule()), workload.c the jobs (callrcu, openclose, make).
 */
#ifndef RCUSIM_KERNEL_INT_H
#define RCUSIM_KERNEL_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "rcu.h"
#include "sched.h"
#include "vfs.h"

#define REF_CLOCK_HZ 1.2e9 /* the clock at which every *_cost is given */

typedef struct kcpu kcpu;

typedef enum wl_kind { WL_CALLRCU, WL_OPENCLOSE, WL_MAKE } wl_kind;

typedef struct open_file {
	double close_at;        /* the job's done_work at which it closes */
	slab_obj obj;           /* its struct file */
} open_file;

typedef struct job {
	sched_task task;        /* its scheduling state; task.owner = this */
	kcpu *cpu;              /* the CPU it stays on */
	sim_timer wake;         /* end of a retry sleep */
	double next_call_work;  /* ns of its CPU work until its next call_rcu or open */
	double done_work;       /* make: ns of work done in this compile */
	double work;            /* make: ns of work this compile needs */
	bool started;           /* make: its held files are allocated */
	bool sleeping;          /* waiting to retry an open refused at file-max */
	int retries;            /* consecutive refusals */
	open_file *files;       /* make: open files, a min-heap on close_at */
	int nfiles, capfiles;
	slab_obj *held;         /* make: files its processes keep through mappings */
	int nheld;
} job;

/* What a softirq run is doing the work for. */
typedef enum run_ctx { RUN_IRQ_EXIT, RUN_KSOFTIRQD } run_ctx;

struct kcpu {
	struct kmodel *k;       /* the model */
	int id, core;           /* CPU number, core number */
	sched_rq rq;            /* runqueue */
	sched_task ksoftirqd;   /* this CPU's ksoftirqd */
	rcu_data rdp;           /* RCU per-CPU data */
	sim_time tick_when;     /* ns: its next timer interrupt */
	uint64_t tick_seq;      /* and that event's sequence number */
	sim_timer done;         /* end of the softirq run in progress */
	sim_timer ipi;          /* a reschedule IPI on its way */
	sim_timer irq;          /* next device interrupt */
	sim_timer reap;         /* next cache_reap */
	sim_rng *rng_work;      /* stream "workload.callrcu", this CPU */
	sim_rng *rng_mode;      /* stream "kernel.tick_mode", this CPU */
	sim_rng *rng_irq;       /* stream "irq.device", this CPU */

	bool busy;              /* counted in its core's busy threads */
	sim_time seg_start;     /* ns: the running job's unaccounted CPU time starts here */
	bool need_resched;      /* TIF_NEED_RESCHED */
	bool softirq_pending;   /* the RCU tasklet is raised */
	bool in_softirq;        /* a softirq run is in progress, ends at done */
	bool run_lazy;          /* its end needs no event: done is not armed */
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
	int64_t jobs;           /* jobs on this CPU */
};

typedef struct kmodel {
	sim_engine *eng;        /* the run's engine */
	sim_metrics *m;         /* results */
	int ncpus, ncores, tpc; /* CPUs, cores, threads per core */
	kcpu *cpu;              /* per CPU */
	sim_timer tick;         /* the next timer interrupt of any CPU (tick_next's) */
	int tick_next;          /* the CPU it is for */
	sched_arrays *rq_store; /* per CPU: its runqueue's priority arrays */
	int *core_busy;         /* busy threads per core */
	double smt_slowdown;    /* machine.smt_slowdown */
	double clock_scale;     /* REF_CLOCK_HZ / machine.clock */
	sim_time tick_ns;       /* ns between ticks */
	sched_cfg sched;        /* scheduler constants */
	rcu_cfg rcu;            /* policy and knobs */
	rcu_ctrlblk rcp;        /* the global RCU state */
	int max_restart;        /* softirq.max_restart */
	bool in_irq_exit;       /* softirq.in_irq_exit: irq_exit() runs softirqs */
	sim_time softirq_time_limit; /* ns, 0 = none */
	/* costs at full core speed and 1.2 GHz, ns */
	sim_time tick_cost, irq_cost, pass_cost, tasklet_cost, cb_cost, ctxsw_cost;
	double irq_rate;        /* device interrupts per second per CPU */
	/* workload */
	wl_kind kind;           /* workload.kind */
	job *jobs;              /* all jobs */
	int64_t njobs;
	double call_rate;       /* call_rcu or open attempts per ns of job CPU work */
	double p_kernel;        /* share of job CPU time in system calls */
	double job_work;        /* make: mean ns of work per compile */
	double work_zeta, work_sigma; /* make: lognormal compile work (sigma 0: all job_work) */
	double fail_share;      /* make: open attempts that fail (ENOENT) */
	double hold_zeta, hold_sigma; /* make: lognormal hold time (ns of job work) */
	int held_per_job;       /* make: files held through mappings */
	int on_enfile;          /* 0 fail, 1 retry, 2 both */
	sim_time retry_delay;   /* ns */
	int64_t retry_max;
	vfs v;                  /* file table and filp slab (file workloads) */
	bool files;             /* a file workload: callbacks free struct files */
	sim_time reap_ns, reap_node_ns, next_node_reap; /* cache_reap periods, next node reap */
	uint64_t opens, closes, enoent, jobs_done, jobs_failed, retries;
	int64_t frag_max_num, frag_max_den; /* largest pinned-free / slots seen */
	int64_t pages_max;      /* most filp slab pages */
	int64_t pending_bytes_max; /* most memory held by queued callbacks */
	/* measurements */
	uint64_t enqueued, invoked;
	sim_tavg qtotal;        /* machine-wide queued callbacks */
	sim_hist *lat;          /* call_rcu to invocation, ns */
	sim_hist *run;          /* softirq run lengths, ns */
	sim_hist *gp;           /* grace periods, ns */
	uint64_t ksd_wakeups;   /* wakeup_softirqd() that woke it */
	int64_t ksd_wait_max;   /* ns */
	int64_t wait_max;       /* ns: longest runnable wait of any task */
	uint64_t ipis;          /* reschedule IPIs sent */
	int err;                /* first failure inside a handler */
} kmodel;

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
	const kmodel *k = c->k;
	int busy = k->core_busy[c->core] > 0 ? k->core_busy[c->core] : 1;
	double f = k->clock_scale * (1.0 + (busy - 1) * k->smt_slowdown);
	return round_ns((double)cost_ns * f);
}

/* Speed of @c's thread (work ns per wall ns) now. */
static inline double speed(const kcpu *c)
{
	const kmodel *k = c->k;
	int busy = k->core_busy[c->core] > 0 ? k->core_busy[c->core] : 1;
	return 1.0 / (k->clock_scale * (1.0 + (busy - 1) * k->smt_slowdown));
}

static inline void update_busy(kcpu *c)
{
	bool busy = c->rq.curr || c->in_softirq;
	if (busy != c->busy) {
		c->k->core_busy[c->core] += busy ? 1 : -1;
		c->busy = busy;
	}
}

static inline bool is_job(const kcpu *c, const sched_task *p)
{
	return p && p != &c->ksoftirqd;
}

/* ---- workload.c ---- */

/* The work of one compile (ns at full speed): lognormal about the mean, or the mean. */
double job_compile_work(kcpu *c);
/* Apply the running job's work since seg_start, up to @now: its call_rcu calls or file operations, each at its own time. */
void job_account(kcpu *c, sim_time now);
/* Timer handler: a job's retry sleep is over. */
void job_wake_fire(sim_engine *eng, sim_timer *tm);

/* ---- kcpu.c ---- */

/* Timer handler: the softirq run in progress on a CPU ends. */
void kcpu_run_end(sim_engine *eng, sim_timer *tm);
/* Before anything touches @c at (@now, @seq): end or arm a lazy softirq run (no arming if @peek). */
void kcpu_settle(kcpu *c, sim_time now, uint64_t seq, bool peek);
/* kcpu_settle() for an event on @c being dispatched now. */
void kcpu_settle_now(kcpu *c);
/* schedule() on @c at @now: a quiescent state, then the O(1) pick. */
void kcpu_schedule(kcpu *c, sim_time now);
/* Arm the one tick timer for CPU @i's next tick. Returns SIM_OK or SIM_ENOMEM. */
int kcpu_arm_tick(kmodel *k, int i);
/* Timer handler: the next CPU in turn takes its timer interrupt. */
void kcpu_tick_fire(sim_engine *eng, sim_timer *tm);
/* Timer handler: a reschedule IPI lands. */
void kcpu_ipi_fire(sim_engine *eng, sim_timer *tm);
/* smp_send_reschedule() from @from to every other CPU still in the cpumask. */
void kcpu_send_ipis(kcpu *from, sim_time now);
/* Timer handler: a device interrupt lands. */
void kcpu_irq_fire(sim_engine *eng, sim_timer *tm);
/* Timer handler: cache_reap() for a CPU (and its node when due). */
void kcpu_reap_fire(sim_engine *eng, sim_timer *tm);

#endif
