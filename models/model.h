/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * model.h - how a workload model plugs into a run: a table of handlers and
 * the environment they get (after ROSS's model tables, minus the casts).
 */
#ifndef RCUSIM_MODELS_MODEL_H
#define RCUSIM_MODELS_MODEL_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "engine.h"
#include "metrics.h"
#include "rng.h"
#include "registry.h"

/* Errors a model or the runner returns (error.h): SIM_EINPUT (parameters
 * that do not fit together), SIM_ECHECK (a conservation law or invariant
 * failed: the run is 'failed'), SIM_ENOMEM. */

typedef struct model_env {
	sim_engine *eng;     /* the run's engine */
	const sim_params *p; /* effective parameters */
	sim_metrics *m;      /* where results go */
	uint64_t seed;       /* scenario.seed */
	sim_rng_kind rng;    /* scenario.rng */
} model_env;

/* The most knob tables (sim_knobs, params.h) one model names. */
#define MODEL_KNOB_PARTS 64

/* A run's timeline (rcusim run --trace): its format, where it goes, and
 * which part. */
typedef enum rcusim_trace_format { RCUSIM_TRACE_FTRACE, RCUSIM_TRACE_JSON, RCUSIM_TRACE_DAT } rcusim_trace_format;
/* A timeline that could not be written: a write failed (a full disk, a
 * reader of the pipe gone). The trace stops there and the run goes on: its
 * results are not the trace's. */
typedef struct rcusim_trace_fail {
	int err;     /* errno of the first write that failed; 0 while none has */
	sim_time at; /* simulated time of the events it was writing */
} rcusim_trace_fail;
typedef struct rcusim_trace_opts {
	FILE *out;                  /* opened and closed by the caller; NULL: only check the rest */
	const char *path;           /* its name, for messages */
	rcusim_trace_format format; /* tracefs text, Chrome trace-event JSON, or trace.dat */
	sim_time from, to;          /* ns: the window written, [from, to) */
	const char *cpus;           /* the CPUs written (a CPU list), or NULL for all */
	rcusim_trace_fail *fail;    /* set when a write fails, as it fails (may be NULL) */
} rcusim_trace_opts;

typedef struct model_ops {
	const char *name; /* the workload kinds it runs, for messages */
	/* Does it run workload.kind @kind? */
	bool (*runs)(const char *kind);
	/* "queue" or "callrcu, make, ...": the kinds it runs, for messages. */
	const char *(*kinds)(void);
	/* Before the knobs: the values of its parameters that must fit
	 * together whatever runs (qlowmark under qhimark, a fault within the
	 * run). 0 or SIM_EINPUT (message); NULL: none. */
	int (*check)(const sim_params *p, char *err, size_t errlen);
	/* The knob tables of its parts, in order, into @out (room for @max):
	 * their number. */
	size_t (*knobs)(const sim_knobs **out, size_t max);
	/* After the knobs: its parts' own configuration (an RCU flavor's, a
	 * workload kind's), each part checking its own. 0, SIM_EINPUT
	 * (message) or SIM_ENOMEM; NULL: none. */
	int (*validate)(const sim_params *p, char *err, size_t errlen);
	/* Build the model and arm its first events. *state is freed by destroy
	 * even when create fails part-way. */
	int (*create)(void **state, const model_env *env, char *err, size_t errlen);
	/* Append one point to each series at @now and check what can be
	 * checked then: SIM_ENOMEM, or SIM_ECHECK with a message. */
	int (*sample)(void *state, sim_time now, char *err, size_t errlen);
	/* Compute the scalars at @now (the end, or where a stop left the run)
	 * and check the conservation laws: SIM_ECHECK with a message if one
	 * fails. */
	int (*finish)(void *state, sim_time now, char *err, size_t errlen);
	/* The latest instant a sample of the run refers to, at or after the
	 * end: a batch of callbacks begun by the end is committed whole when
	 * it starts, its invocations (and their latencies) up to its length
	 * past the end. NULL: the end. */
	sim_time (*horizon)(const void *state, sim_time end);
	/* scenario.warmup ends: forget the samples of the histograms the model
	 * keeps outside env->m (whose own rcusim drops: sim_hist_drop()).
	 * NULL: it keeps none. */
	void (*drop_samples)(void *state);
	void (*destroy)(void *state); /* NULL state is a no-op */
	/* Write the run's timeline as @o says, from now to its end (finish
	 * flushes it). 0, SIM_EINPUT (message) or SIM_ENOMEM; NULL: the model
	 * has none. */
	int (*trace)(void *state, const rcusim_trace_opts *o, char *err, size_t errlen);
} model_ops;

extern const model_ops queue_model;
extern const model_ops kernel_model; /* every kind of workloads/workload.c's table */

/* The run's policy label (the database's run.policy, the summary line):
 * the RCU flavor's (rcu_policy_label(), rcu/rcu.h): rcu.policy under
 * classic RCU, else the flavor's name ("tree"). */
const char *model_policy_label(const sim_params *p);

/* Most sample points a run's series may hold together (16 bytes each in
 * memory, and as many rows in the database): models/samples.c. */
#define MODEL_SAMPLE_POINTS_MAX 100000000
/* scenario.sample_interval over scenario.duration keeps the series within
 * MODEL_SAMPLE_POINTS_MAX points: 0 or SIM_EINPUT (message naming where the
 * interval was set, the samples, points and bytes needed, the limit, and
 * the shortest interval that fits). */
int model_samples_validate(const sim_params *p, char *err, size_t errlen);
/* @duration_ns sampled every @interval_ns (> 0) into @series (>= 1) series,
 * from its start: 0 if the points fit @max_points (MODEL_SAMPLE_POINTS_MAX
 * but in a test), else SIM_EINPUT and in @msg the samples, points, bytes,
 * the limit and the shortest interval that fits (what `rcusim import`
 * reports). */
int model_samples_fit(double duration_ns, double interval_ns, double series, double max_points, char *msg,
		      size_t len);

/* How a run ended. */
typedef enum rcusim_end { RCUSIM_COMPLETE, RCUSIM_ABORTED } rcusim_end;

typedef struct rcusim_outcome {
	rcusim_end end;     /* complete, or aborted by a stop request */
	sim_time sim_end_ns; /* simulated time reached */
	uint64_t events;    /* events dispatched */
} rcusim_outcome;

/* Check that the parameters fit together and the workload exists, before
 * anything is recorded. Returns 0 or SIM_EINPUT with a message naming
 * where the offending value was set. */
int rcusim_validate(const sim_params *p, char *err, size_t errlen);
/* Does a part of the run @p describes read parameter @id (a value set
 * where none does is refused when a scenario sets it, and ignored when an
 * included preset does)? */
bool rcusim_param_applies(const sim_params *p, size_t id);

/* Called at every sample with the simulated time, the end time and the
 * events so far (for progress reports; it must not touch the model). */
typedef void rcusim_progress(void *ctx, sim_time now, sim_time end, uint64_t events);

/* Simulate the scenario @p into @m. @stop (may be NULL) is watched for a
 * signal. Returns 0 (see out->end), SIM_EINPUT, SIM_ECHECK or
 * SIM_ENOMEM with a message in @err; on SIM_ECHECK @m holds what was
 * measured. @progress (may be NULL) is called at every sample. */
int rcusim_simulate(const sim_params *p, sim_metrics *m, const volatile sig_atomic_t *stop,
		    rcusim_progress *progress, void *progress_ctx, rcusim_outcome *out, char *err,
		    size_t errlen);
/* rcusim_simulate() in three steps, so that a caller can refuse the input
 * before it records anything: rcusim_prepare() validates @p, builds the
 * model and arms its first events (every input error, SIM_EINPUT with its
 * message, is found here; SIM_ENOMEM too), *@out to run, @err holding the
 * model's warnings, one a line, or "" (a replay that carries no call_rcu()
 * load); rcusim_run() runs
 * it to scenario.duration or a stop (returns as rcusim_simulate() does);
 * rcusim_release() frees it (NULL is a no-op). */
typedef struct rcusim_sim rcusim_sim;
int rcusim_prepare(const sim_params *p, sim_metrics *m, const volatile sig_atomic_t *stop,
		   rcusim_progress *progress, void *progress_ctx, rcusim_sim **out, char *err,
		   size_t errlen);
int rcusim_run(rcusim_sim *s, rcusim_outcome *out, char *err, size_t errlen);
/* Before rcusim_run(): write @s's timeline as @o says (with o->out NULL,
 * only check @o). 0, SIM_EINPUT (message: a model without one, CPUs the
 * machine lacks) or SIM_ENOMEM. */
int rcusim_trace(rcusim_sim *s, const rcusim_trace_opts *o, char *err, size_t errlen);
void rcusim_release(rcusim_sim *s);

#endif
