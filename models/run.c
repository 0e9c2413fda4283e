/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * run.c - one simulation run: pick the workload model, sample its series
 * every scenario.sample_interval, run to scenario.duration (or a stop), and
 * have the model compute and check its results.
 */
#include "model.h"

#include "rcu/rcu.h"
#include "rcu/classic.h"
#include "rcu/tree_nocb.h"
#include "rcu/tree.h"
#include "workloads/workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int model_ncpus(const sim_params *p)
{
	return (int)(sim_params_int(p, P_MACHINE_CORES) * sim_params_int(p, P_MACHINE_THREADS_PER_CORE));
}

/* rcu.flavor's choices (params.def). */
enum { FLAVOR_CLASSIC, FLAVOR_TREE };

const char *model_policy_label(const sim_params *p)
{
	return sim_params_int(p, P_RCU_FLAVOR) == FLAVOR_TREE ? "tree" : sim_params_text(p, P_RCU_POLICY);
}

typedef struct sampler {
	sim_timer timer;      /* fires every interval */
	sim_time interval_ns; /* scenario.sample_interval */
	const model_ops *ops; /* model to sample */
	void *state;          /* its state */
	int err;              /* first error from the model's sample */
	char msg[1024];       /* and its message */
	sim_time end;         /* ns: the run's end, for progress */
	rcusim_progress *progress; /* progress report, or NULL */
	void *progress_ctx;   /* its argument */
} sampler;

static void sample_fire(sim_engine *eng, sim_timer *t)
{
	sampler *s = t->ctx;
	int rc = s->ops->sample(s->state, sim_now(eng), s->msg, sizeof(s->msg));
	if (rc) {
		if (rc == SIM_ENOMEM)
			snprintf(s->msg, sizeof(s->msg), "out of memory at a sample, t = %lld ns",
				 (long long)sim_now(eng));
		s->err = rc;
		sim_engine_fail(eng, rc);
		return;
	}
	if (s->progress)
		s->progress(s->progress_ctx, sim_now(eng), s->end, sim_events(eng));
	if (sim_timer_after(eng, t, s->interval_ns))
		sim_engine_fail(eng, SIM_ENOMEM);
}

/* The model that runs workload @kind: the engine's queue check, or the
 * kernel model for every kind in workload.c's table. */
static const model_ops *find_model(const char *kind)
{
	if (!strcmp(kind, "queue"))
		return &queue_model;
	return workload_find(kind) ? &kernel_model : NULL;
}

/* Knobs that only one kind of a model reads: each with the parameter that
 * chooses, and the choices (ENUM indices, as a bit set) it applies to. */
typedef struct applies {
	int id;          /* the knob */
	int chooser;     /* the parameter whose value decides */
	unsigned when;   /* bit i: applies when chooser's value is i */
	const char *what; /* "the O(1) scheduler" */
	bool classic;    /* the rule holds only with rcu.flavor = classic */
} applies;

/* workload.kind's values as bits of applies.when (params.def's order). */
enum {
	WL_MAKE = 1u << 0,
	WL_OPENCLOSE = 1u << 1,
	WL_CALLRCU = 1u << 2,
	WL_SYNCRCU = 1u << 3,
	WL_EXITFLOOD = 1u << 4,
	WL_FWDPROG = 1u << 5,
	WL_QUEUE = 1u << 6,
	WL_OPENS = WL_MAKE | WL_OPENCLOSE,   /* the kinds whose jobs open files */
	WL_KERNEL = (1u << 6) - 1,           /* every kind but the engine's queue */
};

static const applies applicability[] = {
	{ P_SCHED_DEF_TIMESLICE, P_SCHED_KIND, 1u << 0, "sched.kind = o1", false },
	{ P_SCHED_MIN_TIMESLICE, P_SCHED_KIND, 1u << 0, "sched.kind = o1", false },
	{ P_SCHED_STARVATION_LIMIT, P_SCHED_KIND, 1u << 0, "sched.kind = o1", false },
	{ P_SCHED_MAX_BONUS, P_SCHED_KIND, 1u << 0, "sched.kind = o1", false },
	{ P_SCHED_BASE_SLICE, P_SCHED_KIND, 1u << 1, "sched.kind = eevdf", false },
	{ P_SOFTIRQ_DEFER_TO_KSOFTIRQD, P_SOFTIRQ_IN_IRQ_EXIT, 1u << 1, "softirq.in_irq_exit = yes",
	  false },
	/* Classic RCU's batch policies. */
	{ P_RCU_POLICY, P_RCU_FLAVOR, 1u << FLAVOR_CLASSIC, "rcu.flavor = classic", false },
	{ P_RCU_MAXBATCH, P_RCU_FLAVOR, 1u << FLAVOR_CLASSIC, "rcu.flavor = classic", false },
	{ P_RCU_RESCHED_OVER, P_RCU_FLAVOR, 1u << FLAVOR_CLASSIC, "rcu.flavor = classic", false },
	{ P_RCU_RSINTERVAL, P_RCU_FLAVOR, 1u << FLAVOR_CLASSIC, "rcu.flavor = classic", false },
	{ P_RCU_RESET_LAST_RS_QLEN, P_RCU_FLAVOR, 1u << FLAVOR_CLASSIC, "rcu.flavor = classic",
	  false },
	{ P_RCU_MAXBATCH, P_RCU_POLICY, 1u << RCU_FIXED, "rcu.policy = fixed", true },
	{ P_RCU_RESCHED_OVER, P_RCU_POLICY, 1u << RCU_FIXED, "rcu.policy = fixed", true },
	{ P_RCU_BLIMIT, P_RCU_POLICY, 1u << RCU_TUNABLE | 1u << RCU_WATERMARK,
	  "rcu.policy = tunable or watermark", true },
	{ P_RCU_QHIMARK, P_RCU_POLICY, 1u << RCU_WATERMARK, "rcu.policy = watermark", true },
	{ P_RCU_QLOWMARK, P_RCU_POLICY, 1u << RCU_WATERMARK, "rcu.policy = watermark", true },
	{ P_RCU_RSINTERVAL, P_RCU_POLICY, 1u << RCU_WATERMARK, "rcu.policy = watermark", true },
	{ P_RCU_RESET_LAST_RS_QLEN, P_RCU_POLICY, 1u << RCU_WATERMARK, "rcu.policy = watermark",
	  true },
	/* Tree RCU's (models/rcu_tree.c); it reads rcu.blimit, rcu.qhimark
	 * and rcu.qlowmark too. */
	{ P_RCU_RCU_FANOUT_LEAF, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_JIFFIES_TILL_FIRST_FQS, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_JIFFIES_TILL_NEXT_FQS, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_JIFFIES_TILL_SCHED_QS, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_STALL_TIMEOUT, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_RCU_DIVISOR, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_RCU_RESCHED_NS, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_FLOOD_BLIMIT, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_QOVLD, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_USE_SOFTIRQ, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_KTHREAD_PRIO, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_KTHREAD_PRIO, P_SCHED_KIND, 1u << 1, "sched.kind = eevdf", false },
	{ P_RCU_GP_KTHREAD_CPU, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_GP_NODE_COST, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_FQS_CPU_COST, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_IRQ_NOHZ_IDLE, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	/* Offloading and lazy callbacks (models/rcu_nocb.c); the first four
	 * also need an offloaded CPU (rcusim_validate()). */
	{ P_RCU_NOCBS, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_NOCB_GP_STRIDE, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_LAZY, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_LAZY_FLUSH, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_LAZY_FLUSH, P_RCU_LAZY, 1u << 1, "rcu.lazy = yes", false },
	{ P_RCU_LAZY_SHRINK_AT, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_LAZY_SHRINK_AT, P_RCU_LAZY, 1u << 1, "rcu.lazy = yes", false },
	{ P_RCU_CALL_SITE, P_RCU_FLAVOR, 1u << FLAVOR_TREE, "rcu.flavor = tree", false },
	{ P_RCU_CALL_SITE, P_RCU_LAZY, 1u << 1, "rcu.lazy = yes", false },
	/* Each workload's own knobs (workload.kind's values, in order: make 0,
	 * openclose 1, callrcu 2, syncrcu 3, exitflood 4, fwdprog 5, queue 6;
	 * the readers are wl_*.c, queue.c and kernel.c's workload_create()). */
	{ P_WORKLOAD_JOBS, P_WORKLOAD_KIND, WL_KERNEL, "a kernel workload (not queue)", false },
	{ P_WORKLOAD_MAKE_JOB_CPU, P_WORKLOAD_KIND, WL_MAKE, "workload.kind = make", false },
	{ P_WORKLOAD_MAKE_JOB_CPU_SIGMA, P_WORKLOAD_KIND, WL_MAKE, "workload.kind = make", false },
	{ P_WORKLOAD_MAKE_SYSTEM_SHARE, P_WORKLOAD_KIND, WL_MAKE, "workload.kind = make", false },
	{ P_WORKLOAD_MAKE_OPENS_PER_JOB, P_WORKLOAD_KIND, WL_MAKE, "workload.kind = make", false },
	{ P_WORKLOAD_MAKE_OPEN_FAIL_SHARE, P_WORKLOAD_KIND, WL_MAKE, "workload.kind = make", false },
	{ P_WORKLOAD_MAKE_HOLD_MEDIAN, P_WORKLOAD_KIND, WL_MAKE, "workload.kind = make", false },
	{ P_WORKLOAD_MAKE_HOLD_MEAN, P_WORKLOAD_KIND, WL_MAKE, "workload.kind = make", false },
	{ P_WORKLOAD_MAKE_MAPPED_FILES, P_WORKLOAD_KIND, WL_MAKE, "workload.kind = make", false },
	{ P_WORKLOAD_MAKE_LIVE_PROCS, P_WORKLOAD_KIND, WL_MAKE, "workload.kind = make", false },
	{ P_WORKLOAD_ON_ENFILE, P_WORKLOAD_KIND, WL_OPENS, "workload.kind = make or openclose", false },
	{ P_WORKLOAD_RETRY_DELAY, P_WORKLOAD_KIND, WL_OPENS, "workload.kind = make or openclose", false },
	{ P_WORKLOAD_RETRY_MAX, P_WORKLOAD_KIND, WL_OPENS, "workload.kind = make or openclose", false },
	{ P_WORKLOAD_OPENCLOSE_PAIR_COST, P_WORKLOAD_KIND, WL_OPENCLOSE, "workload.kind = openclose",
	  false },
	{ P_WORKLOAD_OPENCLOSE_USER_SHARE, P_WORKLOAD_KIND, WL_OPENCLOSE, "workload.kind = openclose",
	  false },
	{ P_WORKLOAD_SYSCALL_COST, P_WORKLOAD_KIND, WL_CALLRCU | WL_SYNCRCU,
	  "workload.kind = callrcu or syncrcu", false },
	{ P_WORKLOAD_SYNCRCU_GAP, P_WORKLOAD_KIND, WL_SYNCRCU, "workload.kind = syncrcu", false },
	{ P_WORKLOAD_EXITFLOOD_SOCKETS, P_WORKLOAD_KIND, WL_EXITFLOOD, "workload.kind = exitflood", false },
	{ P_WORKLOAD_EXITFLOOD_AT, P_WORKLOAD_KIND, WL_EXITFLOOD, "workload.kind = exitflood", false },
	{ P_WORKLOAD_EXITFLOOD_CLOSE_COST, P_WORKLOAD_KIND, WL_EXITFLOOD, "workload.kind = exitflood",
	  false },
	{ P_WORKLOAD_FWDPROG_DURATION, P_WORKLOAD_KIND, WL_FWDPROG, "workload.kind = fwdprog", false },
	{ P_WORKLOAD_FWDPROG_CALL_COST, P_WORKLOAD_KIND, WL_FWDPROG, "workload.kind = fwdprog", false },
	{ P_WORKLOAD_CALLRCU_RATE, P_WORKLOAD_KIND, WL_CALLRCU, "workload.kind = callrcu", false },
	{ P_WORKLOAD_CALLRCU_ARRIVALS, P_WORKLOAD_KIND, WL_CALLRCU, "workload.kind = callrcu", false },
	{ P_WORKLOAD_QUEUE_RATE, P_WORKLOAD_KIND, WL_QUEUE, "workload.kind = queue", false },
	{ P_WORKLOAD_QUEUE_SERVICE, P_WORKLOAD_KIND, WL_QUEUE, "workload.kind = queue", false },
	{ P_WORKLOAD_QUEUE_SERVICE_RATE, P_WORKLOAD_KIND, WL_QUEUE, "workload.kind = queue", false },
	{ P_WORKLOAD_QUEUE_BATCH, P_WORKLOAD_KIND, WL_QUEUE, "workload.kind = queue", false },
};

/* A knob set away from its default by the scenario itself or --set, that
 * the model it chose does not read, is a mistake to report, not to ignore.
 * One set by an included file is not: a kernel preset gives every
 * version-specific value, for whichever scheduler or policy a scenario
 * built on it chooses; nor is a default written out (`rcusim params
 * --format ini`). */
static int check_applicable(const sim_params *p, char *err, size_t errlen)
{
	char a[512];
	for (size_t i = 0; i < sizeof(applicability) / sizeof(applicability[0]); i++) {
		const applies *r = &applicability[i];
		if (!sim_params_set_by_scenario(p, r->id) ||
		    (r->classic && sim_params_int(p, P_RCU_FLAVOR) != FLAVOR_CLASSIC) ||
		    (r->when >> sim_params_int(p, (size_t)r->chooser) & 1))
			continue;
		sim_params_where(p, r->id, a, sizeof(a));
		snprintf(err, errlen, "%s: applies only with %s, and %s is %s (%s)", a, r->what,
			 sim_params_def(p, (size_t)r->chooser)->name,
			 sim_params_text(p, (size_t)r->chooser), sim_params_origin(p, (size_t)r->chooser));
		return SIM_EINPUT;
	}
	return 0;
}

/* Tree RCU's offloading knobs: rcu.nocbs parses, rcu.lazy_flush is a jiffy
 * or more, and the knobs that act only on offloaded CPUs are not set
 * without one. 0, SIM_EINPUT (message) or SIM_ENOMEM. */
static int validate_nocb(const sim_params *p, char *err, size_t errlen)
{
	static const int need_offload[] = { P_RCU_NOCB_GP_STRIDE, P_RCU_LAZY, P_RCU_LAZY_FLUSH,
					    P_RCU_LAZY_SHRINK_AT, P_RCU_CALL_SITE };
	char a[512];
	rcu_nocb_cfg cfg;
	int noff;
	bool *mask = malloc((size_t)model_ncpus(p) * sizeof(*mask));
	if (!mask) {
		snprintf(err, errlen, "out of memory");
		return SIM_ENOMEM;
	}
	int rc = rcu_nocb_cfg_from_params(&cfg, mask, &noff, p, err, errlen);
	free(mask);
	if (rc || noff)
		return rc;
	for (size_t i = 0; i < sizeof(need_offload) / sizeof(need_offload[0]); i++) {
		if (!sim_params_set_by_scenario(p, need_offload[i]))
			continue;
		sim_params_where(p, need_offload[i], a, sizeof(a));
		snprintf(err, errlen, "%s: applies only to offloaded CPUs, and rcu.nocbs names none "
			 "(%s, %s)", a, sim_params_text(p, P_RCU_NOCBS), sim_params_origin(p, P_RCU_NOCBS));
		return SIM_EINPUT;
	}
	return 0;
}

int rcusim_validate(const sim_params *p, char *err, size_t errlen)
{
	char a[512], b[512];
	const char *kind = sim_params_text(p, P_WORKLOAD_KIND);
	if (!find_model(kind)) {
		sim_params_where(p, P_WORKLOAD_KIND, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: workload \"%s\" is not implemented in this version of rcusim (available: queue, %s)",
			 a, kind, workload_kinds());
		return SIM_EINPUT;
	}
	if (!rcu_flavor_find(p)) {
		sim_params_where(p, P_RCU_FLAVOR, a, sizeof(a));
		snprintf(err, errlen, "%s: RCU flavor \"%s\" is not implemented in this version of rcusim",
			 a, sim_params_text(p, P_RCU_FLAVOR));
		return SIM_EINPUT;
	}
	if (sim_params_int(p, P_RCU_QLOWMARK) >= sim_params_int(p, P_RCU_QHIMARK)) {
		sim_params_where(p, P_RCU_QLOWMARK, a, sizeof(a));
		sim_params_where(p, P_RCU_QHIMARK, b, sizeof(b));
		snprintf(err, errlen, "%s: must be below rcu.qhimark (%s = %s), got %s", a, b,
			 sim_params_text(p, P_RCU_QHIMARK), sim_params_text(p, P_RCU_QLOWMARK));
		return SIM_EINPUT;
	}
	int rc = fault_validate(p, err, errlen);
	if (rc || (rc = model_samples_validate(p, err, errlen)) ||
	    (rc = check_applicable(p, err, errlen)))
		return rc;
	if (sim_params_int(p, P_RCU_FLAVOR) == FLAVOR_TREE) {
		rcu_tree_cfg cfg;
		if ((rc = rcu_tree_cfg_from_params(&cfg, p, err, errlen)))
			return rc;
		if (sim_params_int(p, P_RCU_GP_KTHREAD_CPU) >= model_ncpus(p)) {
			sim_params_where(p, P_RCU_GP_KTHREAD_CPU, a, sizeof(a));
			snprintf(err, errlen, "%s: CPU %s, but the machine has CPUs 0-%d", a,
				 sim_params_text(p, P_RCU_GP_KTHREAD_CPU), model_ncpus(p) - 1);
			return SIM_EINPUT;
		}
		if ((rc = validate_nocb(p, err, errlen)))
			return rc;
	}
	sim_time def = sim_params_int(p, P_SCHED_DEF_TIMESLICE);
	if (!sim_params_is_auto(p, P_SCHED_MIN_TIMESLICE) &&
	    sim_params_int(p, P_SCHED_MIN_TIMESLICE) > def) {
		sim_params_where(p, P_SCHED_MIN_TIMESLICE, a, sizeof(a));
		snprintf(err, errlen, "%s: must not exceed sched.def_timeslice (%s), got %s", a,
			 sim_params_text(p, P_SCHED_DEF_TIMESLICE),
			 sim_params_text(p, P_SCHED_MIN_TIMESLICE));
		return SIM_EINPUT;
	}
	/* Bulk calls draw no time for each system call's return, where sparc64
	 * runs pending softirqs (kcpu.c, arm_sysret()). */
	if (!strcmp(kind, "callrcu") && sim_params_int(p, P_WORKLOAD_CALLRCU_ARRIVALS) == 1 &&
	    !strcmp(sim_params_text(p, P_MACHINE_ARCH), "sparc64")) {
		sim_params_where(p, P_WORKLOAD_CALLRCU_ARRIVALS, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: bulk needs machine.arch = x86_64, and machine.arch is sparc64 (%s): sparc64 "
			 "runs pending softirqs at each system call's return, whose times bulk does not "
			 "draw", a, sim_params_origin(p, P_MACHINE_ARCH));
		return SIM_EINPUT;
	}
	return 0;
}

/* A model built and armed, to run. */
struct rcusim_sim {
	sim_engine *eng;      /* its engine */
	const model_ops *ops; /* the model */
	void *state;          /* its state */
	sampler smp;          /* the sample timer */
	sim_time duration;    /* scenario.duration */
};

void rcusim_release(rcusim_sim *s)
{
	if (!s)
		return;
	if (s->ops)
		s->ops->destroy(s->state);
	sim_engine_destroy(s->eng);
	free(s);
}

int rcusim_prepare(const sim_params *p, sim_metrics *m, const volatile sig_atomic_t *stop,
		   rcusim_progress *progress, void *progress_ctx, rcusim_sim **out, char *err,
		   size_t errlen)
{
	const char *kind = sim_params_text(p, P_WORKLOAD_KIND);
	int rc = rcusim_validate(p, err, errlen);
	*out = NULL;
	if (rc)
		return rc;
	rcusim_sim *s = calloc(1, sizeof(*s));
	if (!s || (rc = sim_engine_create(&s->eng)))
		goto nomem;
	s->ops = find_model(kind);
	s->duration = sim_params_int(p, P_SCENARIO_DURATION);
	sim_engine_watch(s->eng, stop);
	model_env env = { s->eng, p, m, (uint64_t)sim_params_int(p, P_SCENARIO_SEED),
			  (sim_rng_kind)sim_params_int(p, P_SCENARIO_RNG) };
	rc = s->ops->create(&s->state, &env, err, errlen);
	if (rc)
		goto fail;
	s->smp = (sampler){ .interval_ns = sim_params_int(p, P_SCENARIO_SAMPLE_INTERVAL),
			    .ops = s->ops,
			    .state = s->state,
			    .end = s->duration,
			    .progress = progress,
			    .progress_ctx = progress_ctx };
	if ((rc = sim_timer_init(s->eng, &s->smp.timer, sample_fire, &s->smp)) ||
	    (rc = sim_timer_at(s->eng, &s->smp.timer, 0)))
		goto nomem;
	*out = s;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	rc = SIM_ENOMEM;
fail:
	rcusim_release(s);
	return rc;
}

int rcusim_run(rcusim_sim *s, rcusim_outcome *out, char *err, size_t errlen)
{
	int rc = sim_engine_run(s->eng, s->duration);
	out->end = RCUSIM_COMPLETE;
	if (rc == SIM_ESTOPPED) {
		out->end = RCUSIM_ABORTED;
	} else if (rc) {
		/* The cause travels as it is (out of memory is exit status 3, a
		 * failed check 4), with its message. */
		if (s->smp.err)
			snprintf(err, errlen, "simulation: %s", s->smp.msg);
		else
			snprintf(err, errlen, "simulation: %s at t = %lld ns", sim_err_name(rc),
				 (long long)sim_now(s->eng));
		return rc;
	}
	out->sim_end_ns = sim_now(s->eng);
	out->events = sim_events(s->eng);
	return s->ops->finish(s->state, sim_now(s->eng), err, errlen);
}

int rcusim_simulate(const sim_params *p, sim_metrics *m, const volatile sig_atomic_t *stop,
		    rcusim_progress *progress, void *progress_ctx, rcusim_outcome *out, char *err,
		    size_t errlen)
{
	rcusim_sim *s;
	int rc = rcusim_prepare(p, m, stop, progress, progress_ctx, &s, err, errlen);
	if (rc)
		return rc;
	rc = rcusim_run(s, out, err, errlen);
	rcusim_release(s);
	return rc;
}
