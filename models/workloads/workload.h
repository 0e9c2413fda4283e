/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * workload.h - the jobs on the kernel model's CPUs, one workload kind per
 * file of workloads/ behind a table of operations (workload_ops): make.c
 * (make -jN compiles), openclose.c (the October 2005 open/close loop),
 * callrcu.c (CPU hogs calling call_rcu), syncrcu.c (synchronize_rcu()
 * callers), exitflood.c (a process with many sockets exits), fwdprog.c
 * (rcutorture's forward-progress flood); the file-opening helpers they
 * share are fs/files.h's, the table is workload.c's. docs/architecture.md
 * counts what adding a kind touches.
 *
 * A workload never touches its CPU's scheduling or softirq state: what a
 * job's work asks of the CPU (need_resched, reschedule IPIs, going to
 * sleep) comes back as a job_effect, and the CPU model acts on it
 * (kcpu_account(), kernel/kernel.h).
 * Loads, not kernel code; each kind names the kernel it was measured on.
 */
#ifndef RCUSIM_MODELS_WORKLOAD_H
#define RCUSIM_MODELS_WORKLOAD_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "metrics.h"
#include "rcu/rcu.h"
#include "registry.h"
#include "rng.h"
#include "sched/sched.h"
#include "mm/slab.h"

typedef struct kcpu kcpu;
typedef struct kmodel kmodel;

/* A file a job holds open until its work reaches close_at. */
typedef struct open_file {
	double close_at;        /* the job's done_work at which it closes */
	slab_obj obj;           /* its struct file */
} open_file;

/* A job: a task that stays on one CPU and runs units of work one after
 * another (a compile for make), calling into the kernel as it goes.
 * Cache-line aligned, with what a context switch to it and its run read
 * (its task, its work and its open files' heap) in its first two lines and
 * the rest after: a job switched in after a long wait costs two lines
 * from memory, not four or five. */
typedef struct job {
	sched_task task;        /* its scheduling state; task.owner = this */
	double next_call_work;  /* ns of its CPU work until its next call_rcu or open */
	double done_work;       /* ns of work done in this unit */
	double unit_work;       /* ns of work this unit needs */
	open_file *files;       /* open files, a min-heap on close_at */
	int nfiles;             /* files open */
	uint8_t files_order;    /* room in files: none if 0, else 8 << files_order */
	bool started;           /* this unit's held files are allocated */
	bool in_kernel;         /* in a long kernel path (exit): every tick finds it in kernel mode */
	bool refused;           /* its last open was refused: retries counts on (fs/files.h) */
	/* Read only now and then: */
	bool sleeping;          /* waiting to retry an open refused at file-max */
	int retries;            /* consecutive refusals while refused, else 0 */
	kcpu *cpu;              /* the CPU it stays on */
	struct kworkload *wl;   /* its load */
	sim_timer wake;         /* end of a retry sleep (handler in kernel/irq.c) */
	slab_obj *held;         /* files its processes keep through mappings */
	int nheld;              /* held files allocated */
	sim_time blocked_at;    /* ns: when it last blocked waiting (synchronize_rcu) */
	/* PREEMPT_RCU: preempted inside rcu_read_lock(), on its leaf's list. */
	rcu_reader rdr;         /* its place there (rdr.queued) */
	struct job *rdr_next;   /* the next newer one on its leaf's list (rcu/rcu_readers.c) */
	double rdr_left;        /* ns of work to its rcu_read_unlock() */
	sim_time rdr_start;     /* ns: it last went on running with rdr_left to do */
	/* Expedited grace periods (rcu/rcu_exp.c). */
	uint64_t exp_s;         /* its synchronize_rcu_expedited()'s snapshot */
	bool exp_waiting;       /* waiting for that snapshot */
	bool exp_wake;          /* reached: woken at the kworker's step end */
	bool exp_blocks;        /* preempted inside a reader the one in progress waits for */
	struct job *wait_next;  /* the next on the wait list it is on (rcu_exp.c's, or
				 * rcu_gp_kthread.c's srs lists) */
	/* synchronize_rcu() on the srs list (rcu.normal_wake_from_gp). */
	bool srs_waiting;       /* on the list, not yet woken */
	bool srs_assigned;      /* taken by a grace period's start (srs_gp) */
	bool srs_wq;            /* left to the sync_wq kworker */
	uint64_t srs_gp;        /* that grace period's gp_seq while it ran */
} __attribute__((aligned(64))) job;
_Static_assert(offsetof(job, sleeping) <= 128, "what a switch reads fits a job's first two lines");

/* What a job's work asks of its CPU; the CPU model acts on it. */
typedef struct job_effect {
	rcu_effect rcu;         /* what its call_rcu()s ask of the CPU (rcu.h), carried out by
				 * kcpu_rcu_effect() */
	bool slept;             /* the job went to sleep (deactivate it, reschedule) */
} job_effect;

/* The objects of a named load's callbacks carry its index in these bits
 * (kworkload.tag; several loads only): loads_invoke() hands each to its
 * load with them cleared. Below them a file's slab number or a job's;
 * kfree's bit 31 is the main load's only. The last index (all four bits,
 * past SIM_LOADS_MAX) is no load's: the box's own callbacks
 * (background.callbacks), which loads_invoke() counts and drops. */
#define LOAD_TAG_SHIFT 27
#define LOAD_TAG_MASK (UINT32_C(15) << LOAD_TAG_SHIFT)
#define LOAD_TAG_BACKGROUND LOAD_TAG_MASK

/* What the workload part of the kernel model holds: one per load, the
 * scenario's [workload] (k->wl) and each [workload.NAME] (k->more). */
typedef struct kworkload {
	const struct workload_ops *ops; /* the kind's operations */
	void *priv;             /* the kind's own settings and counters (its create) */
	sim_metrics *m;         /* where its own metrics go: the run's for [workload], a named
				 * load's own (its names scoped at the end, loads_finish()) */
	kmodel *k;              /* the model it runs in */
	const char *name;       /* NULL for [workload], else NAME of [workload.NAME] */
	uint32_t tag;           /* its callbacks' objects carry it: index << LOAD_TAG_SHIFT */
	int64_t first;          /* its first job's number among every load's (the timeline) */
	int *cpus;              /* workload.cpus: the CPUs its jobs go to, in order */
	int ncpus;              /* how many (0: every CPU, job j on CPU j mod ncpus) */
	uint64_t callbacks;     /* call_rcu()s its jobs made (load.callbacks) */
	uint64_t invoked;       /* of them, invoked (counted with several loads only) */
	int64_t obj_bytes;      /* workload.object_size if its kind holds objects, else 0 */
	sim_time cpu_ns;        /* ns its jobs ran (load.cpu_ns) */
	job *jobs;              /* its jobs */
	int64_t njobs;          /* workload.jobs */
	double call_rate;       /* call_rcu or open attempts per ns of job CPU work */
	double p_kernel;        /* share of job CPU time in system calls */
	double kstretch;        /* ns of work: a job's kernel stretch between two preemption
				 * points (its return to user, a cond_resched()) */
	double kstretch_sigma;  /* workload.kstretch_sigma: their lognormal spread (0: all kstretch) */
	double reader_share;    /* share of its kernel time in rcu_read_lock() sections */
	double reader_len;      /* ns of work: one such section */
	bool bulk_calls;        /* callrcu: calls drawn per stretch (workload.callrcu_arrivals = bulk) */
	bool opens_files;       /* its create() found it opens files (trace: an strace log), as
				 * workload_ops.frees_files says for a whole kind */
	/* Refused opens (workloads that open files, fs/files.c). */
	int on_enfile;          /* 0 fail, 1 retry, 2 retry then fail */
	sim_time retry_delay;   /* ns asleep before retrying */
	int64_t retry_max;      /* retries before failing (on_enfile both) */
	uint64_t retries;       /* refusals retried */
	uint64_t jobs_failed;   /* units failed at a refusal */
} kworkload;

typedef struct workload_ops {
	const char *kind;       /* its workload.kind */
	/* The knobs it reads (params.h), with workload.kind = kind. */
	const sim_knobs *knobs;
	/* Its parameters fit the machine, before anything is built: 0 or
	 * SIM_EINPUT (message naming where the value was set). Called with
	 * workload.kind = kind, after the knobs. May be NULL. */
	int (*validate)(const sim_params *p, char *err, size_t errlen);
	bool frees_files;       /* its callbacks free struct files: file table and filp slab modelled */
	bool kfree_batched;     /* its calls are kfree_rcu()'s, batched machine-wide (rcu/kfree_rcu.c):
				 * [workload] only, never a named load */
	bool holds_objects;     /* each of its callbacks holds a workload.object_size object
				 * (mem.pending_bytes; an strace replay's are files instead) */
	/* Read and check its parameters: w->call_rate, w->p_kernel,
	 * w->kstretch, w->priv (and w->njobs, w->opens_files if it decides
	 * them; w->jobs is allocated after it).
	 * 0, SIM_EINPUT (message naming where the value was set) or
	 * SIM_ENOMEM. */
	int (*create)(kworkload *w, const sim_params *p, char *err, size_t errlen);
	void (*destroy)(kworkload *w); /* frees w->priv; may be NULL */
	/* The CPU of job @j on @ncpus CPUs; NULL: j mod ncpus. */
	int (*job_cpu)(const kworkload *w, int64_t j, int ncpus);
	/* A new job on @c, after its first call was drawn: its own draws and
	 * memory; it may start asleep (j->sleeping, its wake timer armed), and
	 * is then not runnable until that fires. 0 or SIM_ENOMEM. May be NULL. */
	int (*job_start)(kmodel *k, kcpu *c, job *j);
	/* Run job @j on @c for @work ns of work from @t0 at @s work ns per
	 * ns, applied at @now: its calls and file operations at their own
	 * times, effects into *eff. Out of memory goes to kfail(). */
	void (*run)(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
		    job_effect *eff);
	/* The unit @j was running failed at a refused open at @at: its
	 * processes exit, the next unit takes its place. 0 or -1 (kfail()
	 * called). NULL for workloads that open no files. */
	int (*unit_failed)(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff);
	/* Load @w's scalars at the end, into @m. 0 or SIM_ENOMEM. May be NULL. */
	int (*finish)(const kmodel *k, const struct kworkload *w, sim_metrics *m);
	/* ns of work until job @j's next system call returns (every open,
	 * close, call_rcu and exit is one), or INFINITY if it makes none: where
	 * sparc64's rtrap next runs a pending softirq. */
	double (*next_syscall)(const kworkload *w, const job *j);
	/* ns of work until running job @j blocks (synchronize_rcu), or
	 * INFINITY: the CPU model has an event there (kcpu.jobev, armed in
	 * kernel/cpu.c, handled in kernel/irq.c). NULL for
	 * workloads whose jobs block only at a refused open. */
	double (*next_block)(const kworkload *w, const job *j);
	/* The function of its callbacks' objects (rcu.h), given the load
	 * (kworkload *) as its context, or NULL: for workloads that free files
	 * it is file_free_rcu. */
	rcu_invoke_fn *invoke;
	/* Its call site is call_rcu_hurry() in 6.12 (never lazy, rcu.lazy),
	 * not call_rcu() (rcu.call_site = auto). */
	bool hurry;
	/* Its synchronize_rcu_expedited(), or a synchronize_rcu() woken from the
	 * GP kthread, of job @j returns: the waiter is woken at @t from
	 * @waker, the CPU of the kthread or kworker that completes it
	 * (rcu/rcu_exp.c, rcu_gp_kthread.c; kcpu_remote_wake_at()). NULL for
	 * workloads that make none. */
	void (*exp_woken)(kmodel *k, job *j, const kcpu *waker, sim_time t);
} workload_ops;

/* The kernel model's loads (workload.c): build the main one ([workload])
 * and each named one from its own view of the parameters; their jobs on
 * the CPUs; the invoke function of their callbacks and its context; the
 * knobs and rules of the named loads; their scalars at the end (the
 * named loads' own scoped as KIND.NAME.*, and load.NAME.* for each with
 * several). 0, SIM_EINPUT (message) or SIM_ENOMEM. */
int loads_create(kmodel *k, const sim_params *p, char *err, size_t errlen);
int loads_jobs_create(kmodel *k, const sim_params *p);
void loads_destroy(kmodel *k);
rcu_invoke_fn *loads_invoke_fn(kmodel *k, void **ctx);
int loads_validate(const sim_params *p, char *err, size_t errlen);
int loads_finish(const kmodel *k, sim_metrics *m);
/* Of the @qsum callbacks queued, those freeing files (the file loads'
 * callbacks queued and not invoked; all @qsum with one load). */
int64_t loads_file_pending(const kmodel *k, int64_t qsum);
/* Bytes a pending callback holds: every load's workload.object_size when
 * all hold one and of one size, else 0 (no mem.pending_bytes). */
int64_t loads_obj_bytes(const kmodel *k);

/* The kind workload.kind names, or NULL. */
const workload_ops *workload_find(const char *kind);
/* "callrcu, make, ...": every kind, for messages. */
const char *workload_kinds(void);
/* The knob tables of every kind, in the table's order, into @out (room for
 * @max): their number. */
size_t workloads_knobs(const sim_knobs **out, size_t max);

/* next_syscall for workloads whose only system calls are their Poisson
 * calls (workload_calls()). */
static inline double workload_next_call(const kworkload *w, const job *j)
{
	return w->call_rate > 0 ? j->next_call_work : INFINITY;
}

/* next_syscall for workloads whose jobs return from no system call (hogs,
 * an exit path, a kthread). */
static inline double workload_no_syscall(const kworkload *w, const job *j)
{
	(void)w;
	(void)j;
	return INFINITY;
}

/* Run a Poisson process of calls in a job's CPU time: @call at each call's
 * time, until @work is used or @call returns true (the job stopped: the
 * call is tried again first when it next runs). Inline so that each
 * workload's @call is a direct call. */
static inline void workload_calls(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
				  job_effect *eff, double call_rate, sim_rng *rng, const int *err,
				  bool (*call)(kcpu *, job *, sim_time, sim_time, job_effect *))
{
	double used = 0;
	if (call_rate <= 0)
		return;
	while (j->next_call_work <= work - used && !*err) {
		used += j->next_call_work;
		sim_time at = t0 + (sim_time)(used / s);
		j->next_call_work = sim_rng_exponential(rng, 1.0 / call_rate);
		if (call(c, j, now, at, eff)) {
			j->next_call_work = 0; /* a refused open is tried again first */
			used = work;
			break;
		}
	}
	j->next_call_work -= work - used;
}

#endif
