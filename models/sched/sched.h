/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched.h - the per-CPU runqueue and the scheduling classes that run it
 * (struct sched_class, below): the O(1) scheduler of kernel/sched.c
 * (2.6.16: active and expired priority arrays, nice-based timeslices in
 * jiffies, array switch, EXPIRED_STARVING, a dynamic priority bonus from a
 * simplified sleep average; o1.c) and the EEVDF fair class of
 * kernel/sched/fair.c (6.12; fair.c). Pure data structures: no events, no
 * engine.
 */
#ifndef RCUSIM_MODELS_SCHED_H
#define RCUSIM_MODELS_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "error.h"
#include "params.h"

#define SCHED_MAX_PRIO 140     /* MAX_PRIO: priorities 100..139 are nice -20..19 */
#define SCHED_MAX_RT_PRIO 100  /* MAX_RT_PRIO */
#define SCHED_NICE_TO_PRIO(n) (SCHED_MAX_RT_PRIO + (n) + 20)

typedef struct sched_task sched_task;
typedef struct sched_array sched_array;

/* A run-list link; a task's is its first member, so a link that is not a
 * list head is the task itself. */
typedef struct sched_link {
	struct sched_link *next, *prev;
} sched_link;

struct sched_task {
	/* Each scheduler's own state, sched.kind choosing which (one per run). */
	union {
		struct { /* O(1) */
			sched_link run;      /* run list of its priority (first member) */
			sched_array *array;  /* array it is queued on, NULL when sleeping */
			int prio;            /* dynamic priority: static_prio -/+ bonus */
			int time_slice;      /* jiffies left */
			int64_t sleep_avg_ns; /* ns: sleep average, 0..max_sleep_avg */
		};
		struct { /* EEVDF (fair.c) */
			sched_task *ev_next; /* next on the FIFO list */
			int64_t vruntime;    /* ns of virtual time */
			int64_t deadline;    /* virtual deadline */
			int64_t vlag;        /* lag saved at dequeue; = deadline while its slice is protected */
			sim_time exec_start; /* ns: its run accounted up to here */
		};
	};
	int static_prio;         /* from nice */
	int32_t weight;          /* EEVDF: sched_prio_to_weight[nice] */
	uint32_t ev_seq;         /* EEVDF: enqueue order, breaks deadline ties */
	bool on_rq;              /* EEVDF: runnable (queued, or curr) */
	bool fifo;               /* EEVDF: SCHED_FIFO, before every fair task */
	bool delayed;            /* EEVDF: asleep but still queued (DELAY_DEQUEUE: sched_delayed) */
	bool grouped;            /* EEVDF: a task of its CPU's group (sched.autogroup: rq->ev_gq) */
	sim_time last_ran;       /* ns: when it last started running */
	sim_time sleep_since;    /* ns: when it went to sleep */
	sim_time wait_since;     /* ns: runnable but not running since (or -1) */
	void *owner;             /* the model's object (job, ksoftirqd); NULL for a group entity */
};

struct sched_array {
	int nr_active;                       /* tasks queued */
	uint64_t bitmap[3];                  /* non-empty priority lists */
	sched_link heads[SCHED_MAX_PRIO];    /* list heads (sentinels) */
};

typedef struct sched_class sched_class;

/* The knobs each scheduler reads (params.h), with sched.kind = o1 (o1.c)
 * or eevdf (fair.c). */
extern const sim_knobs sched_o1_knobs, sched_eevdf_knobs;
/* sched.min_timeslice does not exceed sched.def_timeslice: 0 or
 * SIM_EINPUT (message naming where the value was set). Checked whichever
 * scheduler runs, as a preset's values must fit together too. */
int sched_validate(const sim_params *p, char *err, size_t errlen);

/* EEVDF: a task group (an autogroup: one session's tasks), what
 * calc_group_shares() reads: tg->shares and the group's load summed over
 * the CPUs. */
typedef struct sched_tg {
	int64_t shares;          /* tg->shares: 1024 for an autogroup at nice 0 */
	int64_t load;            /* the sum of each CPU's group load (sched_rq.ev_contrib) */
} sched_tg;

typedef struct sched_cfg {
	const sched_class *class; /* the scheduler (sched.kind) */
	sched_tg *tg;            /* EEVDF: the jobs' group (sched.autogroup), or NULL */
	int64_t base_slice;      /* EEVDF: ns, sysctl_sched_base_slice */
	bool delay_dequeue;      /* EEVDF: DELAY_DEQUEUE with DELAY_ZERO (sched.delay_dequeue) */
	bool pelt;               /* EEVDF: keep each runqueue's load average (sched_eevdf_cpu_load()) */
	int hz;                  /* ticks per second */
	int def_timeslice;       /* jiffies at nice 0 (DEF_TIMESLICE) */
	int min_timeslice;       /* jiffies (MIN_TIMESLICE) */
	int64_t starvation_jiffies; /* STARVATION_LIMIT in jiffies (0 = off) */
	int max_bonus;           /* MAX_BONUS (10: bonus -5..+5) */
	int64_t max_sleep_avg_ns; /* MAX_SLEEP_AVG = DEF_TIMESLICE x MAX_BONUS */
} sched_cfg;

typedef struct sched_rq {
	sched_task *curr;        /* running task, or NULL for the idle task */
	sched_array *active;     /* tasks with timeslice left */
	sched_array *expired;    /* tasks that used theirs */
	int nr_running;          /* runnable tasks, curr included */
	int64_t expired_timestamp; /* jiffies when the first task expired, 0 = none */
	int best_expired_prio;   /* best static_prio in expired */
	uint64_t nr_switches;    /* context switches (prev != next) */
	int64_t last_wait_ns;    /* ns the task last picked had waited runnable */
	/* EEVDF: the queued fair tasks (curr is not among them) in deadline
	 * order, ev_q[ev_head .. ev_head + ev_n), room for every task attached
	 * (sched_attach) twice over; the sums behind the average vruntime; the
	 * FIFO tasks in arrival order. */
	struct sched_ev_ent *ev_q;
	int32_t ev_head, ev_n, ev_cap, ev_tasks;
	sched_task *ev_fifo, *ev_fifo_tail;
	__int128 ev_avg;         /* sum(vruntime x weight), queued */
	int64_t ev_load;         /* sum(weight), queued */
	uint32_t ev_seq;         /* enqueues so far */
	int32_t ev_delayed;      /* delayed tasks queued (counted by the tick's nr_running > 1) */
	/* EEVDF group scheduling: on a CPU's runqueue, the jobs' group's queue
	 * on this CPU and the group entity that stands for it here; on that
	 * queue, ev_group set, curr its running task (or NULL) and its load
	 * as last counted in the group's sum. */
	struct sched_rq *ev_gq;
	sched_task *ev_gse;
	bool ev_group;
	int64_t ev_contrib;
	/* EEVDF with sched_cfg.pelt: the root's load average up to ev_pelt_t
	 * (sched_eevdf_cpu_load()). */
	double ev_pelt;
	sim_time ev_pelt_t;
} sched_rq;

/* EEVDF: a queued task's place in deadline order, with the two keys the
 * pick reads, so that it reads no task it does not take. */
typedef struct sched_ev_ent {
	int64_t deadline;
	int64_t vruntime;
	sched_task *p;
} sched_ev_ent;

/* EEVDF, some events before a likely schedule() on @rq: fetch the two
 * ends of the queue (the pick reads the first entry, prev's insert the
 * last and the slot after it). A prefetch only; nothing for O(1). */
static inline void sched_prefetch_queue(const sched_rq *rq)
{
	if (!rq->ev_n)
		return;
	__builtin_prefetch(&rq->ev_q[rq->ev_head]);
	__builtin_prefetch(&rq->ev_q[rq->ev_head + rq->ev_n - 1], 1);
	__builtin_prefetch(&rq->ev_q[rq->ev_head + rq->ev_n], 1);
}

/* EEVDF: the task schedule() will most likely pick next (the earliest
 * deadline), for prefetching; NULL when none is queued, and for O(1). */
static inline const sched_task *sched_peek_next(const sched_rq *rq)
{
	return rq->ev_n ? rq->ev_q[rq->ev_head].p : NULL;
}

/* Storage of a runqueue's two priority arrays (5 KiB), kept apart from the
 * runqueue so that its few hot fields pack densely across many CPUs. */
typedef struct sched_arrays {
	sched_array a[2];
} sched_arrays;

/* Fill @cfg from HZ and the sched.* parameters (times in ns; min_timeslice_ns
 * < 0 means auto: max(5 * HZ / 1000, 1) jiffies). */
void sched_cfg_init(sched_cfg *cfg, int hz, sim_time def_timeslice_ns, sim_time min_timeslice_ns,
		    sim_time starvation_ns, int max_bonus);

/* @store holds the active and expired arrays for as long as @rq lives
 * (NULL for EEVDF, which has none). */
void sched_rq_init(sched_rq *rq, sched_arrays *store);
/* Free what @rq allocated (EEVDF's queue). */
void sched_rq_destroy(sched_rq *rq);
void sched_task_init(const sched_cfg *cfg, sched_task *p, int nice);
/* task_timeslice(): SCALE_PRIO(DEF_TIMESLICE x (4 if nice < 0), static_prio)
 * in jiffies, at least MIN_TIMESLICE. */
int sched_task_timeslice(const sched_cfg *cfg, const sched_task *p);
/* effective_prio(): static_prio - (CURRENT_BONUS - MAX_BONUS / 2). */
int sched_effective_prio(const sched_cfg *cfg, const sched_task *p);
/* TASK_INTERACTIVE(p): prio <= static_prio - DELTA(p). */
bool sched_task_interactive(const sched_cfg *cfg, const sched_task *p);

/* EXPIRED_STARVING(rq) at @jiffies. */
bool sched_expired_starving(const sched_cfg *cfg, const sched_rq *rq, int64_t jiffies);

/* ---- EEVDF (fair.c) ------------------------------------------------------ */

/* sched.autogroup: give @rq the group's queue and entity for this CPU (the
 * cfg's tg). 0 or SIM_ENOMEM. */
int sched_eevdf_group_init(const sched_cfg *cfg, sched_rq *rq);
/* Make @p (before it is added or woken) a task of @rq's group, and make
 * room for it there. 0 or SIM_ENOMEM. */
int sched_eevdf_join_group(sched_rq *rq, sched_task *p);

/* sched_prio_to_weight[] of @nice. */
int64_t sched_nice_weight(int nice);
/* V, the load-weighted average vruntime (avg_vruntime()). */
int64_t sched_eevdf_avg_vruntime(const sched_rq *rq);
/* @p's lag is >= 0 (entity_eligible()). */
bool sched_eevdf_eligible(const sched_rq *rq, const sched_task *p);
/* cpu_load() of @rq at @now (fair.c 6.12:7190-7193: the root cfs_rq's
 * PELT load_avg), with sched_cfg.pelt: the weight runnable at its root
 * (curr's entity included, a group as its entity) averaged with PELT's
 * 32 ms half-life (kernel/sched/pelt.c 6.12:1-60: y^32 = 0.5), as a
 * continuous exponential rather than PELT's 1024 us steps. */
double sched_eevdf_cpu_load(const sched_rq *rq, sim_time now);

/* ---- the classes ---------------------------------------------------------
 *
 * A scheduling class, after the kernel's struct sched_class: what the CPU
 * model asks of a runqueue. sched.kind chooses one per run:
 * sched_o1_class (o1.c: 2.6.16's O(1) scheduler) or sched_fair_class
 * (fair.c: 6.6+'s EEVDF, with SCHED_FIFO tasks first). A new scheduler is
 * a file with its table and a value of sched.kind (kernel/kernel.c). */
struct sched_class {
	const char *name;        /* its sched.kind value */
	bool nohz_full;          /* 6.x's stopped tick on irq.nohz_full CPUs is modelled with it */
	/* A task will live on @rq (added, or woken later): make room, so that
	 * enqueueing never allocates (EEVDF's queue). 0 or SIM_ENOMEM. */
	int (*attach)(sched_rq *rq);
	/* A new attached task, runnable at @now (O(1): on the active array
	 * with a full timeslice; EEVDF: placed half a slice in). */
	void (*add_runnable)(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now);
	/* activate_task() on wakeup at @now. Returns true if it should preempt
	 * curr (TASK_PREEMPTS_CURR, wakeup preemption, or the CPU is idle). */
	bool (*wake)(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now);
	/* deactivate_task(): @p (which must be curr) goes to sleep at @now; the
	 * caller then calls sched_schedule(). */
	void (*sleep)(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now);
	/* scheduler_tick()/sched_tick() for curr at jiffy @jiffies, @now (O(1):
	 * the timeslice, expiry and EXPIRED_STARVING; EEVDF: update_curr()).
	 * Returns true if need_resched was set. */
	bool (*tick)(const sched_cfg *cfg, sched_rq *rq, int64_t jiffies, sim_time now);
	/* The picking half of schedule() at @now: make the pick curr (NULL if
	 * none: idle) and return it. */
	sched_task *(*schedule)(const sched_cfg *cfg, sched_rq *rq, sim_time now);
	/* rt_mutex_setprio() as priority inheritance does it at @now: @p
	 * (curr, queued or asleep) becomes SCHED_FIFO above every fair task
	 * (@fifo) or fair again. Returns true if curr should be preempted.
	 * NULL where the class has no SCHED_FIFO (O(1)). */
	bool (*set_fifo)(const sched_cfg *cfg, sched_rq *rq, sched_task *p, bool fifo, sim_time now);
};

extern const sched_class sched_o1_class, sched_fair_class;

/* The class sched.kind names, or NULL. The parts that need something of
 * the scheduler ask these instead of comparing its name: */
const sched_class *sched_class_find(const sim_params *p);
/* has it a SCHED_FIFO class beside it (set_fifo: boosting, FIFO kthreads)? */
bool sched_has_fifo(const sim_params *p);
/* is irq.nohz_full's stopped tick modelled with it? */
bool sched_has_nohz_full(const sim_params *p);

static inline int sched_attach(const sched_cfg *cfg, sched_rq *rq)
{
	return cfg->class->attach(rq);
}

/* Attach a new task (sched_attach) and make it runnable. 0 or SIM_ENOMEM. */
static inline int sched_add_runnable(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now)
{
	if (sched_attach(cfg, rq))
		return SIM_ENOMEM;
	cfg->class->add_runnable(cfg, rq, p, now);
	return 0;
}

static inline bool sched_wake(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now)
{
	return cfg->class->wake(cfg, rq, p, now);
}

static inline void sched_sleep(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now)
{
	cfg->class->sleep(cfg, rq, p, now);
}

static inline bool sched_tick(const sched_cfg *cfg, sched_rq *rq, int64_t jiffies, sim_time now)
{
	return cfg->class->tick(cfg, rq, jiffies, now);
}

static inline sched_task *sched_schedule(const sched_cfg *cfg, sched_rq *rq, sim_time now)
{
	return cfg->class->schedule(cfg, rq, now);
}

static inline bool sched_set_fifo(const sched_cfg *cfg, sched_rq *rq, sched_task *p, bool fifo, sim_time now)
{
	return cfg->class->set_fifo(cfg, rq, p, fifo, now);
}

#endif
