/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kernel.c - the machine and kernel between call_rcu() and the callback:
 * per-CPU timer ticks (update_process_times: rcu_check_callbacks, then
 * scheduler_tick), irq_exit running softirqs (__do_softirq, at most
 * MAX_SOFTIRQ_RESTART passes, then wakeup_softirqd), ksoftirqd at nice 19
 * looping do_softirq/cond_resched, reschedule IPIs, the O(1) scheduler
 * (models/sched.c) and classic RCU (models/rcu.c); the file table over the
 * filp slab (models/vfs.c, models/slab.c) with cache_reap per CPU; and the
 * workloads: callrcu (CPU hogs calling call_rcu from short system calls),
 * openclose (the tight open/close loop) and make (compile jobs that open,
 * hold and close files, fail lookups, keep their processes' mapped files,
 * and are replaced by the next compile when they finish).
 * Kernel sources: kernel/timer.c, kernel/softirq.c, kernel/sched.c,
 * kernel/rcupdate.c of 2.6.14-2.6.16.
 *
 * Events: one per tick per CPU, one per softirq run (irq_exit or one
 * do_softirq call of ksoftirqd), one per IPI or device interrupt. Work done
 * in bulk is computed at once with exact times:
 *  - a job's call_rcu calls (or open attempts) form a Poisson process in
 *    its own CPU time, and a make job's files close after lognormal holds
 *    of its CPU time (a descheduled job keeps its files open); the work of
 *    a stretch of running is applied at the stretch's end (the next tick,
 *    interrupt or switch), each operation at its exact time; what it
 *    triggers (need_resched, the watermark's IPIs, a sleep after a refused
 *    open) takes effect then, at most one tick late;
 *  - a softirq run is committed when it starts: each callback's invocation
 *    time is the run's start plus the pass and callback costs before it.
 *    Timer ticks that land in a run lengthen it by their cost but do not
 *    move the invocation times already recorded (an error below one tick
 *    cost per tick, ~0.2% of the run at HZ 1000);
 *  - whether a tick lands in user or kernel mode is a Bernoulli draw with
 *    the job's share of CPU time in system calls.
 * CPU costs are given at full core speed and 1.2 GHz and stretched by the
 * core's clock and by how many hardware threads of the core are busy when
 * the activity starts (machine.smt_slowdown).
 * Left out: load balancing, the _bh flavour of RCU, nohz, CPU hotplug,
 * softirqs other than the RCU tasklet and (optional) device interrupts'
 * own softirq work; ticks arriving while a CPU is in softirq do only their
 * hardirq part (as in the kernel: in_interrupt() stops irq_exit).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void kfail(kmodel *k, int rc)
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
static sim_time stretch(const kcpu *c, sim_time cost_ns)
{
	const kmodel *k = c->k;
	int busy = k->core_busy[c->core] > 0 ? k->core_busy[c->core] : 1;
	double f = k->clock_scale * (1.0 + (busy - 1) * k->smt_slowdown);
	return round_ns((double)cost_ns * f);
}

/* Speed of @c's thread (work ns per wall ns) now. */
static double speed(const kcpu *c)
{
	const kmodel *k = c->k;
	int busy = k->core_busy[c->core] > 0 ? k->core_busy[c->core] : 1;
	return 1.0 / (k->clock_scale * (1.0 + (busy - 1) * k->smt_slowdown));
}

static void update_busy(kcpu *c)
{
	bool busy = c->rq.curr || c->in_softirq;
	if (busy != c->busy) {
		c->k->core_busy[c->core] += busy ? 1 : -1;
		c->busy = busy;
	}
}

static bool is_job(const kcpu *c, const sched_task *p)
{
	return p && p != &c->ksoftirqd;
}

/* ---- the workloads -------------------------------------------------------- */

static void send_ipis(kcpu *from, sim_time now);
static void do_schedule(kcpu *c, sim_time now);

/* call_rcu() at @at (<= now) on @c, applied at @now; its effects are
 * collected in *eff. */
static int queue_cb(kcpu *c, sim_time now, sim_time at, uint32_t obj, rcu_call_effect *eff)
{
	kmodel *k = c->k;
	rcu_call_effect e = { false, false };
	if (call_rcu(&k->rcu, &k->rcp, &c->rdp, at, obj, &e)) {
		kfail(k, SIM_ENOMEM);
		return -1;
	}
	k->enqueued++;
	sim_tavg_add_at(&k->qtotal, now, at, 1);
	eff->need_resched |= e.need_resched;
	eff->send_ipis |= e.send_ipis;
	return 0;
}

/* fput() -> file_free() -> call_rcu(file_free_rcu). */
static int free_file(kcpu *c, sim_time now, sim_time at, slab_obj obj, rcu_call_effect *eff)
{
	vfs_file_free(&c->k->v, c->id, obj);
	return queue_cb(c, now, at, obj, eff);
}

static void heap_push(job *j, open_file f)
{
	int i = j->nfiles++;
	while (i > 0 && j->files[(i - 1) / 2].close_at > f.close_at) {
		j->files[i] = j->files[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	j->files[i] = f;
}

static open_file heap_pop(job *j)
{
	open_file top = j->files[0], last = j->files[--j->nfiles];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= j->nfiles)
			break;
		if (c + 1 < j->nfiles && j->files[c + 1].close_at < j->files[c].close_at)
			c++;
		if (j->files[c].close_at >= last.close_at)
			break;
		j->files[i] = j->files[c];
		i = c;
	}
	if (j->nfiles)
		j->files[i] = last;
	return top;
}

/* Close everything job @j holds at @at (its end, or its failure). */
static int release_all(kcpu *c, job *j, sim_time now, sim_time at, rcu_call_effect *eff)
{
	kmodel *k = c->k;
	while (j->nfiles) {
		k->closes++;
		if (free_file(c, now, at, heap_pop(j).obj, eff))
			return -1;
	}
	for (int i = 0; i < j->nheld; i++) {
		k->closes++;
		if (free_file(c, now, at, j->held[i], eff))
			return -1;
	}
	j->nheld = 0;
	return 0;
}

/* The work of one compile: lognormal about the mean, or the mean itself. */
static double compile_work(kcpu *c)
{
	const kmodel *k = c->k;
	return k->work_sigma > 0 ? sim_rng_lognormal(c->rng_work, k->work_zeta, k->work_sigma)
				 : k->job_work;
}

/* The next compile takes the job's place (its task and timeslice). */
static void next_compile(kcpu *c, job *j)
{
	j->done_work = 0;
	j->work = compile_work(c);
	j->started = false;
	j->retries = 0;
	j->next_call_work = sim_rng_exponential(c->rng_work, 1.0 / c->k->call_rate);
}

static void wake_fire(sim_engine *eng, sim_timer *tm);

/* An open refused at file-max at @at: the job fails, or sleeps
 * retry_delay and tries again. Returns true if the job stops running. */
static bool enfile(kcpu *c, job *j, sim_time now, sim_time at, rcu_call_effect *eff)
{
	kmodel *k = c->k;
	bool retry = k->on_enfile == 1 || (k->on_enfile == 2 && j->retries < k->retry_max);
	if (!retry) {
		/* The command fails: its processes exit, make starts another. */
		k->jobs_failed++;
		if (release_all(c, j, now, at, eff))
			return true;
		next_compile(c, j);
		return false;
	}
	k->retries++;
	j->retries++;
	j->sleeping = true;
	sched_sleep(&c->rq, &j->task, now);
	c->need_resched = true;
	if (sim_timer_at(k->eng, &j->wake, now + k->retry_delay))
		kfail(k, SIM_ENOMEM);
	return true;
}

/* One open attempt of a file workload at @at. Returns true if the job
 * stopped (sleeps to retry). */
static bool open_attempt(kcpu *c, job *j, sim_time now, sim_time at, rcu_call_effect *eff)
{
	kmodel *k = c->k;
	slab_obj obj;
	int rc = vfs_get_empty_filp(&k->v, c->id, at, &obj);
	if (rc < 0) {
		kfail(k, SIM_ENOMEM);
		return true;
	}
	if (rc > 0)
		return enfile(c, j, now, at, eff);
	j->retries = 0;
	if (k->kind == WL_OPENCLOSE) {
		/* open() then close() at once. */
		k->opens++;
		k->closes++;
		free_file(c, now, at, obj, eff);
		return false;
	}
	if (sim_rng_uniform(c->rng_work) < k->fail_share) {
		/* The lookup failed after get_empty_filp(): release_open_intent ->
		 * put_filp -> file_free -> call_rcu. */
		k->enoent++;
		free_file(c, now, at, obj, eff);
		return false;
	}
	k->opens++;
	if (j->nfiles == j->capfiles) {
		int cap = j->capfiles ? j->capfiles * 2 : 16;
		open_file *nf = realloc(j->files, (size_t)cap * sizeof(*nf));
		if (!nf) {
			kfail(k, SIM_ENOMEM);
			return true;
		}
		j->files = nf;
		j->capfiles = cap;
	}
	double hold = sim_rng_lognormal(c->rng_work, k->hold_zeta, k->hold_sigma);
	heap_push(j, (open_file){ j->done_work + hold, obj });
	return false;
}

/* A compile starts: its processes map their files. Returns true if it
 * stopped (sleeps to retry). */
static bool job_start(kcpu *c, job *j, sim_time now, sim_time at, rcu_call_effect *eff)
{
	kmodel *k = c->k;
	while (j->nheld < k->held_per_job) {
		slab_obj obj;
		int rc = vfs_get_empty_filp(&k->v, c->id, at, &obj);
		if (rc < 0) {
			kfail(k, SIM_ENOMEM);
			return true;
		}
		if (rc > 0)
			return enfile(c, j, now, at, eff);
		k->opens++;
		j->held[j->nheld++] = obj;
	}
	j->started = true;
	j->retries = 0;
	return false;
}

/* Run a make job for @work ns of work from @t0 at speed @s (work per ns). */
static void make_progress(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
			  rcu_call_effect *eff)
{
	kmodel *k = c->k;
	double used = 0;
	while (!k->err) {
		sim_time at = t0 + (sim_time)(used / s);
		if (!j->started && job_start(c, j, now, at, eff))
			return;
		double to_open = j->next_call_work;
		double to_end = j->work - j->done_work;
		double to_close = j->nfiles ? j->files[0].close_at - j->done_work : INFINITY;
		/* The earliest of the three (none is NaN; fmin() is a call). */
		double step = to_end < to_close ? to_end : to_close;
		if (to_open < step)
			step = to_open;
		if (step < 0)
			step = 0;
		if (step > work - used) {
			j->done_work += work - used;
			j->next_call_work -= work - used;
			return;
		}
		used += step;
		j->done_work += step;
		j->next_call_work -= step;
		at = t0 + (sim_time)(used / s);
		if (step == to_close) {
			k->closes++;
			free_file(c, now, at, heap_pop(j).obj, eff);
		} else if (step == to_open) {
			j->next_call_work = sim_rng_exponential(c->rng_work, 1.0 / k->call_rate);
			if (open_attempt(c, j, now, at, eff)) {
				j->next_call_work = 0; /* the refused open is tried again first */
				return;
			}
		} else {
			k->jobs_done++;
			if (release_all(c, j, now, at, eff))
				return;
			next_compile(c, j);
		}
	}
}

/* The running job's work since seg_start, applied now: its call_rcu calls
 * or file operations, each at its own time. */
static void account_job(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	sched_task *p = c->rq.curr;
	if (!is_job(c, p) || now <= c->seg_start) {
		if (now > c->seg_start)
			c->seg_start = now;
		return;
	}
	job *j = p->owner;
	double s = speed(c);
	double work = (double)(now - c->seg_start) * s, used = 0;
	rcu_call_effect eff = { false, false };
	if (k->kind == WL_MAKE) {
		make_progress(c, j, now, c->seg_start, work, s, &eff);
	} else if (k->call_rate > 0) {
		while (j->next_call_work <= work - used && !k->err) {
			used += j->next_call_work;
			sim_time at = c->seg_start + (sim_time)(used / s);
			j->next_call_work = sim_rng_exponential(c->rng_work, 1.0 / k->call_rate);
			if (k->kind == WL_CALLRCU ? queue_cb(c, now, at, 0, &eff) != 0
						  : open_attempt(c, j, now, at, &eff)) {
				j->next_call_work = 0; /* a refused open is tried again first */
				used = work;
				break;
			}
		}
		j->next_call_work -= work - used;
	}
	c->seg_start = now;
	if (eff.need_resched)
		c->need_resched = true;
	if (eff.send_ipis)
		send_ipis(c, now);
}

/* ---- softirq runs ------------------------------------------------------- */

/* __do_softirq() from @ctx starting at @t: the RCU tasklet's list moves,
 * then up to max_restart passes of rcu_do_batch while it re-raises itself.
 * Commits the whole run and arms done at its end. */
static void softirq_run(kcpu *c, sim_time t, run_ctx ctx)
{
	kmodel *k = c->k;
	c->in_softirq = true;
	c->run_ctx = ctx;
	c->run_start = t;
	c->softirq_pending = false;
	update_busy(c);
	sim_time pass = stretch(c, k->pass_cost + k->tasklet_cost);
	sim_time cost = stretch(c, k->cb_cost);
	sim_time at = t;
	bool more = false;
	rcu_process_lists(&k->rcp, &c->rdp, t);
	for (int passes = 0; passes < k->max_restart; passes++) {
		at += pass;
		int64_t n = rcu_do_batch(&k->rcu, &c->rdp, at, cost, k->lat, &more);
		if (n && k->files) /* file_free_rcu -> kmem_cache_free on this CPU */
			for (uint64_t i = c->rdp.q.head - (uint64_t)n; i != c->rdp.q.head; i++)
				vfs_file_free_rcu(&k->v, c->id, rcu_cb_obj(&c->rdp, i));
		if (n) {
			/* The queue shrinks at each invocation time (at, at + cost,
			 * ...), all at or after now: count them until then. */
			sim_time now = sim_now(k->eng);
			sim_tavg_add_at(&k->qtotal, now, now, -n);
			k->qtotal.area += (__int128)n * (at - now) + (__int128)cost * n * (n - 1) / 2;
			k->invoked += (uint64_t)n;
			at += cost * n;
		}
		if (!more || (k->softirq_time_limit && at - t >= k->softirq_time_limit))
			break;
	}
	c->run_more = more;
	if (ctx == RUN_IRQ_EXIT && !more && !c->need_resched && c->rq.curr) {
		/* Nothing happens at its end but the interrupted task going on
		 * (its core stays busy): no event, unless something lands on
		 * this CPU before then (settle()). */
		c->run_lazy = true;
		c->run_end_at = at;
		c->run_seq = sim_engine_reserve_seq(k->eng);
		return;
	}
	if (sim_timer_at(k->eng, &c->done, at))
		kfail(k, SIM_ENOMEM);
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
	k->ksd_wakeups++;
	if (sched_wake(&k->sched, &c->rq, &c->ksoftirqd, now))
		c->need_resched = true;
}

/* The softirq run on @c ends at @now. */
static void run_ended(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	sim_hist_add(k->run, (uint64_t)(now - c->run_start));
	c->softirq_ns += now - c->run_start;
	c->in_softirq = false;
	if (c->run_more)
		c->softirq_pending = true;
	if (c->run_ctx == RUN_IRQ_EXIT) {
		if (c->softirq_pending)
			wakeup_softirqd(c, now);
		update_busy(c);
		if (c->need_resched)
			do_schedule(c, now);
		else
			c->seg_start = now;
		return;
	}
	/* ksoftirqd: cond_resched() between do_softirq() calls; sleep when
	 * nothing is pending. */
	if (c->need_resched) {
		do_schedule(c, now);
	} else if (c->softirq_pending) {
		softirq_run(c, now, RUN_KSOFTIRQD);
	} else {
		sched_sleep(&c->rq, &c->ksoftirqd, now);
		c->ksd_runnable = false;
		do_schedule(c, now);
	}
}

static void run_end(sim_engine *eng, sim_timer *tm)
{
	run_ended(tm->ctx, sim_now(eng));
}

/* Before anything touches @c at (@now, @seq) in the event order: a lazy
 * run that ended earlier in that order ends now (at its own time; nothing
 * else depended on it meanwhile), and one still going has its end armed
 * with the sequence number it was given (unless @peek, for a look that
 * changes nothing). */
static void settle(kcpu *c, sim_time now, uint64_t seq, bool peek)
{
	if (!c->run_lazy)
		return;
	if (c->run_end_at < now || (c->run_end_at == now && c->run_seq < seq)) {
		c->run_lazy = false;
		assert(!c->need_resched && !c->run_more && c->rq.curr);
		run_ended(c, c->run_end_at);
	} else if (!peek) {
		c->run_lazy = false;
		if (sim_timer_at_seq(c->k->eng, &c->done, c->run_end_at, c->run_seq))
			kfail(c->k, SIM_ENOMEM);
	}
}

/* settle() for an event on @c now. */
static void settle_now(kcpu *c)
{
	settle(c, sim_now(c->k->eng), sim_engine_cur_seq(c->k->eng), false);
}

/* irq_exit() at @t: run pending softirqs, else reschedule if asked. */
static void irq_exit(kcpu *c, sim_time t)
{
	if (c->softirq_pending && !c->k->in_irq_exit) {
		/* Softirqs in threads (what-if): only ksoftirqd runs them. */
		wakeup_softirqd(c, t);
		if (c->need_resched)
			do_schedule(c, t);
		else
			c->seg_start = t;
	} else if (c->softirq_pending)
		softirq_run(c, t, RUN_IRQ_EXIT);
	else if (c->need_resched)
		do_schedule(c, t);
	else
		c->seg_start = t;
}

/* ---- scheduling ---------------------------------------------------------- */

/* schedule() at @now: a quiescent state, then the O(1) pick. */
static void do_schedule(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	c->need_resched = false;
	rcu_qsctr_inc(&c->rdp);
	sched_task *prev = c->rq.curr;
	sched_task *next = sched_schedule(&k->sched, &c->rq, now);
	if (c->rq.last_wait_ns > k->wait_max)
		k->wait_max = c->rq.last_wait_ns;
	update_busy(c);
	sim_time t = now;
	if (next != prev)
		t += stretch(c, k->ctxsw_cost);
	if (next == &c->ksoftirqd) {
		if (c->ksd_waiting) {
			if (now - c->ksd_woken > k->ksd_wait_max)
				k->ksd_wait_max = now - c->ksd_woken;
			c->ksd_waiting = false;
		}
		if (c->softirq_pending || c->run_more) {
			softirq_run(c, t, RUN_KSOFTIRQD);
		} else {
			/* Woken but the work was done meanwhile: back to sleep. */
			sched_sleep(&c->rq, &c->ksoftirqd, t);
			c->ksd_runnable = false;
			do_schedule(c, t);
		}
		return;
	}
	c->seg_start = t;
}

/* ---- interrupts ----------------------------------------------------------- */

/* A hardirq of @cost_ns landed in the softirq run in progress: the run
 * ends that much later. */
static void extend_run(kcpu *c, sim_time cost_ns)
{
	if (sim_timer_at(c->k->eng, &c->done, c->done.when + stretch(c, cost_ns)))
		kfail(c->k, SIM_ENOMEM);
}

/* The ticks of a period come round the CPUs in order (they are staggered),
 * so the next ones are known: fetch ahead, in three stages, what they
 * touch first. Prefetches only: no state changes, results are the same. */
static void prefetch_ahead(const kmodel *k, int id)
{
	int n = k->ncpus;
	if (n < 8)
		return;
	const kcpu *c3 = &k->cpu[(id + 3) % n];
	for (size_t off = 0; off < sizeof(*c3); off += 64)
		__builtin_prefetch((const char *)c3 + off, 1);
	const kcpu *c2 = &k->cpu[(id + 2) % n];
	if (c2->rq.curr)
		__builtin_prefetch(c2->rq.curr, 1);
	sim_rng_prefetch(c2->rng_work);
	sim_rng_prefetch(c2->rng_mode);
	const kcpu *c1 = &k->cpu[(id + 1) % n];
	const sched_task *p = c1->rq.curr;
	if (p && p != &c1->ksoftirqd && ((const job *)p->owner)->files)
		__builtin_prefetch(((const job *)p->owner)->files, 1);
	sim_rng_prefetch_state(c1->rng_work);
	sim_rng_prefetch_state(c1->rng_mode);
}

/* Arm the one tick timer for CPU @i's next tick, with the sequence number
 * that tick was given when its previous one fired. */
static int arm_tick(kmodel *k, int i)
{
	k->tick_next = i;
	return sim_timer_at_seq(k->eng, &k->tick, k->cpu[i].tick_when, k->cpu[i].tick_seq);
}

/* The timer interrupts. Every CPU ticks once per period at its own offset
 * (staggered), so they come round the CPUs in a fixed order and one timer
 * serves them all: each CPU keeps its next tick's time and the sequence
 * number its own timer would have been armed with, so every event keeps its
 * place in the (time, seq) order, while the pending set holds one tick
 * instead of one per CPU. */
static void tick_fire(sim_engine *eng, sim_timer *tm)
{
	kmodel *k = tm->ctx;
	kcpu *c = &k->cpu[k->tick_next];
	sim_time now = sim_now(eng);
	int64_t jiffies = now / k->tick_ns;
	prefetch_ahead(k, c->id);
	settle_now(c);
	c->tick_when = now + k->tick_ns;
	c->tick_seq = sim_engine_reserve_seq(eng);
	if (arm_tick(k, c->id + 1 < k->ncpus ? c->id + 1 : 0)) {
		kfail(k, SIM_ENOMEM);
		return;
	}
	if (c->in_softirq) {
		/* Hardirq part only: scheduler_tick charges curr; rcu_check_callbacks
		 * sees in_softirq() (no quiescent state); the run lasts longer. */
		if (sched_tick(&k->sched, &c->rq, jiffies))
			c->need_resched = true;
		extend_run(c, k->tick_cost);
		return;
	}
	account_job(c, now);
	/* update_process_times(): rcu_check_callbacks() if rcu_pending(). */
	if (rcu_pending(&k->rcp, &c->rdp)) {
		bool user = is_job(c, c->rq.curr) && !sim_rng_bernoulli(c->rng_mode, k->p_kernel);
		bool idle = !c->rq.curr;
		if (user || idle)
			rcu_qsctr_inc(&c->rdp);
		c->softirq_pending = true;
	}
	if (sched_tick(&k->sched, &c->rq, jiffies))
		c->need_resched = true;
	irq_exit(c, now + stretch(c, k->tick_cost));
}

/* A device or IPI interrupt at @now: its handler cost, then irq_exit; in a
 * softirq run only its hardirq part, which lengthens the run. */
static void device_irq(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	settle_now(c);
	if (c->in_softirq) {
		extend_run(c, k->irq_cost);
		return;
	}
	account_job(c, now);
	irq_exit(c, now + stretch(c, k->irq_cost));
}

static void ipi_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	settle_now(c);
	c->need_resched = true;
	device_irq(c, sim_now(eng));
}

static void send_ipis(kcpu *from, sim_time now)
{
	kmodel *k = from->k;
	for (int i = 0; i < k->ncpus; i++) {
		if (i == from->id || !rcu_cpu_in_mask(&k->rcp, i))
			continue;
		k->ipis++;
		kcpu *c = &k->cpu[i];
		if (!sim_timer_armed(&c->ipi) && sim_timer_at(k->eng, &c->ipi, now))
			kfail(k, SIM_ENOMEM);
	}
}

static void irq_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	kmodel *k = c->k;
	sim_time now = sim_now(eng);
	double gap = sim_rng_exponential(c->rng_irq, 1e9 / k->irq_rate);
	if (sim_timer_after(eng, tm, (sim_time)llround(gap))) {
		kfail(k, SIM_ENOMEM);
		return;
	}
	device_irq(c, now);
}

/* A job's retry sleep is over: it is runnable again. */
static void wake_fire(sim_engine *eng, sim_timer *tm)
{
	job *j = tm->ctx;
	kcpu *c = j->cpu;
	sim_time now = sim_now(eng);
	j->sleeping = false;
	settle_now(c);
	if (!sched_wake(&c->k->sched, &c->rq, &j->task, now))
		return;
	if (c->in_softirq) {
		c->need_resched = true;
	} else {
		account_job(c, now);
		do_schedule(c, now);
	}
}

/* cache_reap() for this CPU's array, and the node's part when due. Runs
 * from a workqueue; its CPU time is left out. */
static void reap_fire(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	kmodel *k = c->k;
	sim_time now = sim_now(eng);
	bool node_due = now >= k->next_node_reap;
	if (node_due)
		k->next_node_reap = now + k->reap_node_ns;
	slab_reap(&k->v.filp, c->id, node_due);
	if (sim_timer_after(eng, tm, k->reap_ns))
		kfail(k, SIM_ENOMEM);
}

/* ---- model table ----------------------------------------------------------- */

static void kernel_destroy(void *state)
{
	kmodel *k = state;
	if (!k)
		return;
	if (k->cpu)
		for (int i = 0; i < k->ncpus; i++) {
			rcu_data_fini(&k->cpu[i].rdp);
			sim_rng_destroy(k->cpu[i].rng_work);
			sim_rng_destroy(k->cpu[i].rng_mode);
			sim_rng_destroy(k->cpu[i].rng_irq);
		}
	rcu_ctrlblk_fini(&k->rcp);
	if (k->jobs)
		for (int64_t j = 0; j < k->njobs; j++) {
			free(k->jobs[j].files);
			free(k->jobs[j].held);
		}
	if (k->files)
		vfs_fini(&k->v);
	free(k->cpu);
	free(k->rq_store);
	free(k->core_busy);
	free(k->jobs);
	free(k);
}

static int kernel_create(void **state, const model_env *env, char *err, size_t errlen)
{
	const sim_params *p = env->p;
	kmodel *k = calloc(1, sizeof(*k));
	*state = k;
	if (!k)
		goto nomem;
	k->eng = env->eng;
	k->m = env->m;
	k->ncores = (int)sim_params_int(p, P_MACHINE_CORES);
	k->tpc = (int)sim_params_int(p, P_MACHINE_THREADS_PER_CORE);
	k->ncpus = k->ncores * k->tpc;
	k->smt_slowdown = sim_params_real(p, P_MACHINE_SMT_SLOWDOWN);
	k->clock_scale = REF_CLOCK_HZ / sim_params_real(p, P_MACHINE_CLOCK);
	int hz = (int)sim_params_int(p, P_MACHINE_HZ);
	k->tick_ns = SIM_NS_PER_S / hz;
	sched_cfg_init(&k->sched, hz, sim_params_int(p, P_SCHED_DEF_TIMESLICE),
		       sim_params_is_auto(p, P_SCHED_MIN_TIMESLICE) ? -1
								: sim_params_int(p, P_SCHED_MIN_TIMESLICE),
		       sim_params_int(p, P_SCHED_STARVATION_LIMIT),
		       (int)sim_params_int(p, P_SCHED_MAX_BONUS));
	k->rcu = (rcu_cfg){
		.policy = (rcu_policy)sim_params_int(p, P_RCU_POLICY),
		.maxbatch = sim_params_int(p, P_RCU_MAXBATCH),
		.resched_over = sim_params_int(p, P_RCU_RESCHED_OVER),
		.blimit = sim_params_int(p, P_RCU_BLIMIT),
		.qhimark = sim_params_int(p, P_RCU_QHIMARK),
		.qlowmark = sim_params_int(p, P_RCU_QLOWMARK),
		.rsinterval = sim_params_int(p, P_RCU_RSINTERVAL),
		.reset_last_rs_qlen = sim_params_int(p, P_RCU_RESET_LAST_RS_QLEN) != 0,
	};
	k->max_restart = (int)sim_params_int(p, P_SOFTIRQ_MAX_RESTART);
	k->in_irq_exit = sim_params_int(p, P_SOFTIRQ_IN_IRQ_EXIT) != 0;
	k->softirq_time_limit = sim_params_int(p, P_SOFTIRQ_TIME_LIMIT);
	k->tick_cost = sim_params_int(p, P_IRQ_TICK_COST);
	k->irq_cost = sim_params_int(p, P_IRQ_COST);
	k->pass_cost = sim_params_int(p, P_SOFTIRQ_PASS_COST);
	k->tasklet_cost = sim_params_int(p, P_RCU_TASKLET_COST);
	k->cb_cost = sim_params_int(p, P_RCU_CALLBACK_COST);
	k->ctxsw_cost = sim_params_int(p, P_SCHED_CTXSW_COST);
	k->irq_rate = sim_params_real(p, P_IRQ_RATE);
	k->njobs = sim_params_int(p, P_WORKLOAD_JOBS);
	const char *kind = sim_params_str(p, P_WORKLOAD_KIND);
	k->kind = !strcmp(kind, "make") ? WL_MAKE : !strcmp(kind, "openclose") ? WL_OPENCLOSE : WL_CALLRCU;
	k->files = k->kind != WL_CALLRCU;
	char a[512];
	if (k->kind == WL_CALLRCU) {
		k->call_rate = sim_params_real(p, P_WORKLOAD_CALLRCU_RATE) / 1e9;
		k->p_kernel = sim_params_real(p, P_WORKLOAD_CALLRCU_RATE) *
			      (double)sim_params_int(p, P_WORKLOAD_SYSCALL_COST) / 1e9;
		if (k->p_kernel >= 1) {
			model_param_where(p, P_WORKLOAD_CALLRCU_RATE, a, sizeof(a));
			snprintf(err, errlen,
				 "%s: %s x workload.syscall_cost (%s) is %.3g: a job would spend more than "
				 "all its time in system calls",
				 a, sim_params_text(p, P_WORKLOAD_CALLRCU_RATE),
				 sim_params_text(p, P_WORKLOAD_SYSCALL_COST), k->p_kernel);
			return RCUSIM_EINPUT;
		}
	} else if (k->kind == WL_OPENCLOSE) {
		k->call_rate = 1.0 / (double)sim_params_int(p, P_WORKLOAD_OPENCLOSE_PAIR_COST);
		k->p_kernel = 1.0 - sim_params_real(p, P_WORKLOAD_OPENCLOSE_USER_SHARE);
	} else {
		k->job_work = (double)sim_params_int(p, P_WORKLOAD_MAKE_JOB_CPU);
		/* Lognormal with mean job_work: zeta = ln(mean) - sigma^2 / 2. */
		k->work_sigma = sim_params_real(p, P_WORKLOAD_MAKE_JOB_CPU_SIGMA);
		k->work_zeta = log(k->job_work) - k->work_sigma * k->work_sigma / 2.0;
		k->held_per_job = (int)llround(sim_params_real(p, P_WORKLOAD_MAKE_LIVE_PROCS) *
					       (double)sim_params_int(p, P_WORKLOAD_MAKE_MAPPED_FILES));
		int64_t transient = sim_params_int(p, P_WORKLOAD_MAKE_OPENS_PER_JOB) - k->held_per_job;
		if (transient < 0) {
			model_param_where(p, P_WORKLOAD_MAKE_OPENS_PER_JOB, a, sizeof(a));
			snprintf(err, errlen,
				 "%s: must be at least make_live_procs x make_mapped_files (%d), got %s", a,
				 k->held_per_job, sim_params_text(p, P_WORKLOAD_MAKE_OPENS_PER_JOB));
			return RCUSIM_EINPUT;
		}
		k->call_rate = (double)transient / k->job_work;
		k->p_kernel = sim_params_real(p, P_WORKLOAD_MAKE_SYSTEM_SHARE);
		k->fail_share = sim_params_real(p, P_WORKLOAD_MAKE_OPEN_FAIL_SHARE);
		double med = (double)sim_params_int(p, P_WORKLOAD_MAKE_HOLD_MEDIAN);
		double mean = (double)sim_params_int(p, P_WORKLOAD_MAKE_HOLD_MEAN);
		if (mean < med) {
			model_param_where(p, P_WORKLOAD_MAKE_HOLD_MEAN, a, sizeof(a));
			snprintf(err, errlen, "%s: a lognormal's mean is at least its median (%s), got %s",
				 a, sim_params_text(p, P_WORKLOAD_MAKE_HOLD_MEDIAN),
				 sim_params_text(p, P_WORKLOAD_MAKE_HOLD_MEAN));
			return RCUSIM_EINPUT;
		}
		/* Lognormal: median e^zeta, mean e^(zeta + sigma^2 / 2). */
		k->hold_zeta = log(med);
		k->hold_sigma = sqrt(2.0 * log(mean / med));
	}
	const char *on = sim_params_str(p, P_WORKLOAD_ON_ENFILE);
	k->on_enfile = !strcmp(on, "fail") ? 0 : !strcmp(on, "retry") ? 1 : 2;
	k->retry_delay = sim_params_int(p, P_WORKLOAD_RETRY_DELAY);
	k->retry_max = sim_params_int(p, P_WORKLOAD_RETRY_MAX);
	k->reap_ns = sim_params_int(p, P_VFS_REAP_INTERVAL);
	k->reap_node_ns = sim_params_int(p, P_VFS_REAP_NODE_INTERVAL);
	if (k->files) {
		int64_t mem = sim_params_int(p, P_MACHINE_MEMORY), page = sim_params_int(p, P_MACHINE_PAGE_SIZE);
		int64_t max_files = sim_params_is_auto(p, P_VFS_MAX_FILES)
					    ? vfs_default_max_files(mem, page)
					    : sim_params_int(p, P_VFS_MAX_FILES);
		int64_t batch = k->ncpus >= 16 ? 2 * k->ncpus : 4 * k->ncpus;
		if (!sim_params_is_auto(p, P_VFS_PERCPU_BATCH))
			batch = sim_params_int(p, P_VFS_PERCPU_BATCH);
		slab_cfg sc = {
			.obj_size = sim_params_int(p, P_VFS_FILE_SIZE),
			.page_size = page,
			.mgmt = sim_params_int(p, P_VFS_SLAB_MGMT),
			.bufctl = sim_params_int(p, P_VFS_SLAB_BUFCTL),
			.ncpus = k->ncpus,
			.limit = sim_params_is_auto(p, P_VFS_ARRAY_LIMIT) ? 0 : (int)sim_params_int(p, P_VFS_ARRAY_LIMIT),
			.batchcount = sim_params_is_auto(p, P_VFS_ARRAY_BATCHCOUNT)
					      ? 0
					      : (int)sim_params_int(p, P_VFS_ARRAY_BATCHCOUNT),
			.shared_factor = (int)sim_params_int(p, P_VFS_SHARED_FACTOR),
		};
		if (slab_estimate(&sc) < 1) {
			model_param_where(p, P_VFS_FILE_SIZE, a, sizeof(a));
			snprintf(err, errlen, "%s: no object of %s fits a %s slab with its descriptor", a,
				 sim_params_text(p, P_VFS_FILE_SIZE), sim_params_text(p, P_MACHINE_PAGE_SIZE));
			return RCUSIM_EINPUT;
		}
		if (vfs_init(&k->v, (vfs_accounting)sim_params_int(p, P_VFS_ACCOUNTING), max_files, &sc, batch))
			goto nomem;
		k->next_node_reap = k->reap_node_ns;
	}
	sim_tavg_init(&k->qtotal, 0, 0);
	k->lat = sim_metrics_hist(env->m, "cb.latency_ns");
	k->run = sim_metrics_hist(env->m, "softirq.run_ns");
	k->gp = sim_metrics_hist(env->m, "gp.duration_ns");
	k->cpu = calloc((size_t)k->ncpus, sizeof(*k->cpu));
	k->rq_store = calloc((size_t)k->ncpus, sizeof(*k->rq_store));
	k->core_busy = calloc((size_t)k->ncores, sizeof(*k->core_busy));
	k->jobs = calloc(k->njobs ? (size_t)k->njobs : 1, sizeof(*k->jobs));
	if (!k->lat || !k->run || !k->gp || !k->cpu || !k->rq_store || !k->core_busy || !k->jobs ||
	    rcu_ctrlblk_init(&k->rcp, k->ncpus))
		goto nomem;
	k->rcp.gp_hist = k->gp;
	int job_nice = (int)sim_params_int(p, P_SCHED_JOB_NICE);
	int ksd_nice = (int)sim_params_int(p, P_SCHED_KSOFTIRQD_NICE);
	for (int i = 0; i < k->ncpus; i++) {
		kcpu *c = &k->cpu[i];
		c->k = k;
		c->id = i;
		c->core = i / k->tpc;
		sched_rq_init(&c->rq, &k->rq_store[i]);
		sched_task_init(&c->ksoftirqd, ksd_nice);
		if (rcu_data_init(&c->rdp, &k->rcu, i, k->files) ||
		    sim_rng_create(&c->rng_work, env->rng, env->seed, "workload.callrcu", (uint64_t)i) ||
		    sim_rng_create(&c->rng_mode, env->rng, env->seed, "kernel.tick_mode", (uint64_t)i) ||
		    sim_rng_create(&c->rng_irq, env->rng, env->seed, "irq.device", (uint64_t)i))
			goto nomem;
		sim_timer_init(env->eng, &c->done, run_end, c);
		sim_timer_init(env->eng, &c->ipi, ipi_fire, c);
		sim_timer_init(env->eng, &c->irq, irq_fire, c);
		sim_timer_init(env->eng, &c->reap, reap_fire, c);
		/* cache_reap starts HZ + 3 x cpu jiffies after boot (start_cpu_timer). */
		if (k->files && sim_timer_at(env->eng, &c->reap, SIM_NS_PER_S + 3 * i * k->tick_ns))
			goto nomem;
	}
	/* Jobs round-robin over the CPUs: job j on CPU j mod ncpus. */
	for (int64_t j = 0; j < k->njobs; j++) {
		kcpu *c = &k->cpu[j % k->ncpus];
		job *jb = &k->jobs[j];
		sched_task_init(&jb->task, job_nice);
		jb->task.owner = jb;
		jb->cpu = c;
		sim_timer_init(env->eng, &jb->wake, wake_fire, jb);
		if (k->held_per_job && !(jb->held = malloc((size_t)k->held_per_job * sizeof(*jb->held))))
			goto nomem;
		jb->next_call_work = k->call_rate > 0
					     ? sim_rng_exponential(c->rng_work, 1.0 / k->call_rate)
					     : 0;
		if (k->kind == WL_MAKE)
			jb->work = compile_work(c);
		sched_add_runnable(&k->sched, &c->rq, &jb->task, 0);
		c->jobs++;
	}
	for (int i = 0; i < k->ncpus; i++) {
		kcpu *c = &k->cpu[i];
		c->rq.curr = NULL;
		do_schedule(c, 0);
		/* Ticks staggered over one period, as the CPUs' timers are. */
		c->tick_when = k->tick_ns * (i + 1) / k->ncpus;
		c->tick_seq = sim_engine_reserve_seq(env->eng);
		if (k->irq_rate > 0 &&
		    sim_timer_at(env->eng, &c->irq,
				 (sim_time)llround(sim_rng_exponential(c->rng_irq, 1e9 / k->irq_rate))))
			goto nomem;
	}
	if (sim_timer_init(env->eng, &k->tick, tick_fire, k) || arm_tick(k, 0))
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "kernel model: out of memory");
	return SIM_ENOMEM;
}

static int kernel_sample(void *state, sim_time now)
{
	kmodel *k = state;
	sim_metrics *m = k->m;
	sim_time interval_ns = 0;
	int64_t qsum = 0, ksd = 0;
	double busy_sum = 0;
	for (int i = 0; i < k->ncpus; i++) {
		kcpu *c = &k->cpu[i];
		settle(c, now, sim_engine_cur_seq(k->eng), true);
		int64_t q = rcu_qlen(&c->rdp);
		qsum += q;
		ksd += c->ksd_runnable;
		sim_series *s = sim_metrics_series(m, "cb.qlen", i);
		if (!s || sim_series_append(s, now, (double)q))
			return SIM_ENOMEM;
		sim_time sofar = c->softirq_ns + (c->in_softirq && now > c->run_start ? now - c->run_start : 0);
		sim_series *b = sim_metrics_series(m, "softirq.busy_frac", i);
		if (!b)
			return SIM_ENOMEM;
		interval_ns = b->n ? now - b->t[b->n - 1] : 0;
		double frac = interval_ns > 0 ? (double)(sofar - c->softirq_ns_sampled) / (double)interval_ns : 0;
		c->softirq_ns_sampled = sofar;
		busy_sum += frac;
		if (sim_series_append(b, now, frac))
			return SIM_ENOMEM;
	}
	sim_series *s;
	if (!(s = sim_metrics_series(m, "cb.qlen", -1)) || sim_series_append(s, now, (double)qsum) ||
	    !(s = sim_metrics_series(m, "softirq.busy_frac", -1)) ||
	    sim_series_append(s, now, busy_sum / k->ncpus) ||
	    !(s = sim_metrics_series(m, "ksoftirqd.runnable", -1)) ||
	    sim_series_append(s, now, (double)ksd) ||
	    !(s = sim_metrics_series(m, "gp.completed", -1)) ||
	    sim_series_append(s, now, (double)k->rcp.gp_completed))
		return SIM_ENOMEM;
	if (!k->files)
		return 0;
	const slab_cache *sc = &k->v.filp;
	int64_t pinned = slab_pinned_free(sc), slots = slab_total_slots(sc);
	if (slots && (k->frag_max_den == 0 ||
		      (__int128)pinned * k->frag_max_den > (__int128)k->frag_max_num * slots)) {
		k->frag_max_num = pinned;
		k->frag_max_den = slots;
	}
	if (!(s = sim_metrics_series(m, "vfs.nr_files", -1)) ||
	    sim_series_append(s, now, (double)vfs_nr_files(&k->v)) ||
	    !(s = sim_metrics_series(m, "mem.pending_bytes", -1)) ||
	    sim_series_append(s, now, (double)qsum * (double)sc->cfg.obj_size) ||
	    !(s = sim_metrics_series(m, "slab.pages", -1)) ||
	    sim_series_append(s, now, (double)sc->nslabs) ||
	    !(s = sim_metrics_series(m, "slab.fragmentation", -1)) ||
	    sim_series_append(s, now, slots ? (double)pinned / (double)slots : 0))
		return SIM_ENOMEM;
	/* Slab accounting counts every slot: never fewer than the files that
	 * exist (live or waiting for their grace period). */
	if (k->v.acct == VFS_ACCT_SLAB && k->v.nr_slab < k->v.live + k->v.pending)
		return RCUSIM_EFAIL;
	return 0;
}

static int kernel_finish(void *state, sim_time now, char *err, size_t errlen)
{
	kmodel *k = state;
	sim_metrics *m = k->m;
	if (k->err) {
		snprintf(err, errlen, "kernel model: out of memory");
		return k->err;
	}
	uint64_t pending = 0, switches = 0;
	int64_t qlen_max = 0;
	/* Runs that ended by the end of the run (all events at or before it
	 * were dispatched; after a stop, only those before the last one). */
	uint64_t bound = sim_engine_completed(k->eng) ? UINT64_MAX : sim_engine_cur_seq(k->eng);
	for (int i = 0; i < k->ncpus; i++)
		settle(&k->cpu[i], now, bound, true);
	for (int i = 0; i < k->ncpus; i++) {
		kcpu *c = &k->cpu[i];
		pending += (uint64_t)rcu_qlen(&c->rdp);
		switches += c->rq.nr_switches;
		if (c->rdp.qlen_max > qlen_max)
			qlen_max = c->rdp.qlen_max;
	}
	int rc = 0;
	rc |= sim_metrics_scalar(m, "cb.enqueued", (double)k->enqueued);
	rc |= sim_metrics_scalar(m, "cb.invoked", (double)k->invoked);
	rc |= sim_metrics_scalar(m, "cb.pending_end", (double)pending);
	rc |= sim_metrics_scalar(m, "cb.qlen_max", (double)qlen_max);
	rc |= sim_metrics_scalar(m, "cb.qlen_total_max", (double)k->qtotal.max);
	rc |= sim_metrics_scalar(m, "cb.qlen_total_mean", sim_tavg_mean(&k->qtotal, now));
	rc |= sim_metrics_hist_scalars(m, "cb.latency", k->lat,
				       SIM_Q_MEAN | SIM_Q_P50 | SIM_Q_P99 | SIM_Q_P999 | SIM_Q_MAX);
	rc |= sim_metrics_scalar(m, "gp.completed", (double)k->rcp.gp_completed);
	rc |= sim_metrics_hist_scalars(m, "gp.duration", k->gp, SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	rc |= sim_metrics_hist_scalars(m, "softirq.run", k->run, SIM_Q_P99 | SIM_Q_MAX);
	rc |= sim_metrics_scalar(m, "softirq.ksoftirqd_wakeups", (double)k->ksd_wakeups);
	/* A ksoftirqd still waiting at the end has waited at least this long. */
	int64_t ksd_wait = k->ksd_wait_max;
	for (int i = 0; i < k->ncpus; i++)
		if (k->cpu[i].ksd_waiting && now - k->cpu[i].ksd_woken > ksd_wait)
			ksd_wait = now - k->cpu[i].ksd_woken;
	if (k->ksd_wakeups)
		rc |= sim_metrics_scalar(m, "softirq.ksoftirqd_wait_max_ns", (double)ksd_wait);
	rc |= sim_metrics_scalar(m, "sched.ctxsw", (double)switches);
	rc |= sim_metrics_scalar(m, "sched.wait_max_ns", (double)k->wait_max);
	rc |= sim_metrics_scalar(m, "ipi.resched_sent", (double)k->ipis);
	if (k->files) {
		const vfs *v = &k->v;
		rc |= sim_metrics_scalar(m, "vfs.opens", (double)k->opens);
		rc |= sim_metrics_scalar(m, "vfs.closes", (double)k->closes);
		rc |= sim_metrics_scalar(m, "vfs.open_end", (double)v->live);
		rc |= sim_metrics_scalar(m, "vfs.open_failures", (double)v->refused);
		rc |= sim_metrics_scalar(m, "vfs.nr_files_max", (double)v->nr_max);
		rc |= sim_metrics_scalar(m, "vfs.nr_files_end", (double)vfs_nr_files(v));
		rc |= sim_metrics_scalar(m, "vfs.max_files", (double)v->max_files);
		if (v->first_refusal >= 0)
			rc |= sim_metrics_scalar(m, "vfs.file_max_reached_ns", (double)v->first_refusal);
		rc |= sim_metrics_scalar(m, "mem.pending_bytes_max",
					 (double)k->qtotal.max * (double)v->filp.cfg.obj_size);
		rc |= sim_metrics_scalar(m, "slab.pages_max", (double)v->filp.nslabs_max);
		if (k->frag_max_den)
			rc |= sim_metrics_scalar(m, "slab.fragmentation_max",
						 (double)k->frag_max_num / (double)k->frag_max_den);
		rc |= sim_metrics_scalar(m, "slab.grown", (double)v->filp.grown);
		rc |= sim_metrics_scalar(m, "slab.destroyed", (double)v->filp.destroyed);
		if (k->kind == WL_MAKE) {
			rc |= sim_metrics_scalar(m, "vfs.enoent", (double)k->enoent);
			rc |= sim_metrics_scalar(m, "make.jobs_done", (double)k->jobs_done);
			rc |= sim_metrics_scalar(m, "make.jobs_failed", (double)k->jobs_failed);
		}
		rc |= sim_metrics_scalar(m, "make.retries", (double)k->retries);
	}
	if (rc) {
		snprintf(err, errlen, "kernel model: out of memory");
		return SIM_ENOMEM;
	}
	if (k->files && (k->opens != k->closes + (uint64_t)k->v.live ||
			 (uint64_t)k->v.pending != pending)) {
		snprintf(err, errlen,
			 "conservation: vfs.opens %llu != vfs.closes %llu + vfs.open_end %lld "
			 "(files pending %lld, callbacks pending %llu)",
			 (unsigned long long)k->opens, (unsigned long long)k->closes,
			 (long long)k->v.live, (long long)k->v.pending, (unsigned long long)pending);
		return RCUSIM_EFAIL;
	}
	if (k->enqueued != k->invoked + pending || k->invoked != k->lat->count ||
	    (int64_t)pending != k->qtotal.value) {
		snprintf(err, errlen,
			 "conservation: cb.enqueued %llu != cb.invoked %llu + cb.pending_end %llu "
			 "(latencies %llu, queued total %lld)",
			 (unsigned long long)k->enqueued, (unsigned long long)k->invoked,
			 (unsigned long long)pending, (unsigned long long)k->lat->count,
			 (long long)k->qtotal.value);
		return RCUSIM_EFAIL;
	}
	return 0;
}

const model_ops kernel_model = {
	.name = "callrcu, make, openclose",
	.create = kernel_create,
	.sample = kernel_sample,
	.finish = kernel_finish,
	.destroy = kernel_destroy,
};
