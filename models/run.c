/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * run.c - one simulation run: pick the workload model, sample its series
 * every scenario.sample_interval, run to scenario.duration (or a stop), and
 * have the model compute and check its results.
 */
#include "model.h"
#include "rcu/rcu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *model_policy_label(const sim_params *p)
{
	return rcu_policy_label(p);
}

typedef struct sampler {
	sim_timer timer;      /* fires every interval */
	sim_time interval_ns; /* scenario.sample_interval */
	const model_ops *ops; /* model to sample */
	void *state;          /* its state */
	int err;              /* first error from the model's sample */
	char msg[1024];       /* and its message */
	sim_time end;         /* ns: the run's end */
	bool at_end;          /* a sample falls at the end: rcusim_run() takes it */
	rcusim_progress *progress; /* progress report, or NULL */
	void *progress_ctx;   /* its argument */
} sampler;

/* One sample of the model at @now; 0, or the error (its message in s->msg). */
static int sample_take(sampler *s, sim_engine *eng, sim_time now)
{
	int rc = s->ops->sample(s->state, now, s->msg, sizeof(s->msg));
	if (rc) {
		if (rc == SIM_ENOMEM)
			snprintf(s->msg, sizeof(s->msg), "out of memory at a sample, t = %lld ns",
				 (long long)now);
		s->err = rc;
		return rc;
	}
	if (s->progress)
		s->progress(s->progress_ctx, now, s->end, sim_events(eng));
	return 0;
}

/* Every interval from 0. The sample at the run's end is not taken here,
 * among the events of that instant, but by rcusim_run() after all of them,
 * so that the last sample and the run's totals count the same events (an
 * idle exit at the end, after a sample at the end, was in idle.exits and in
 * no sample of idle.wakeups). */
static void sample_fire(sim_engine *eng, sim_timer *t)
{
	sampler *s = t->ctx;
	sim_time now = sim_now(eng);
	if (now == s->end) {
		s->at_end = true;
		return;
	}
	int rc = sample_take(s, eng, now);
	if (rc)
		sim_engine_fail(eng, rc);
	else if (sim_timer_after(eng, t, s->interval_ns))
		sim_engine_fail(eng, SIM_ENOMEM);
}

/* Every model, in the order their checks and knob tables are walked:
 * queue.c's engine check, and the kernel model for every kind in
 * workload.c's table. */
static const model_ops *const models[] = { &queue_model, &kernel_model };
#define NMODELS (sizeof(models) / sizeof(models[0]))

/* The model that runs workload @kind, or NULL. */
static const model_ops *find_model(const char *kind)
{
	for (size_t i = 0; i < NMODELS; i++)
		if (models[i]->runs(kind))
			return models[i];
	return NULL;
}

/* A knob set away from its default by the scenario itself or --set, that
 * no part in the run reads, is a mistake to report, not to ignore
 * (sim_params_check_knobs()). One set by an included file is not: a kernel
 * preset gives every version-specific value, for whichever scheduler or
 * policy a scenario built on it chooses; nor is a default written out
 * (`rcusim params --format ini`). Each model names its parts' knob tables;
 * the parts of every model are walked, so that a knob of a model not in
 * the run is refused too. */
static size_t knob_parts(const sim_knobs **parts)
{
	size_t n = 0;
	for (size_t i = 0; i < NMODELS; i++)
		n += models[i]->knobs(parts + n, MODEL_KNOB_PARTS);
	return n;
}

/* With several loads ([workload.NAME], sim_params_load_view()): each
 * load's own knobs are checked in its view of the parameters (its kind
 * reads them), every other knob is refused only if the parts of no load
 * read it (vfs.* read beside a make load, whatever [workload] is). */
static int check_knobs(const sim_params *p, char *err, size_t errlen)
{
	const sim_knobs *parts[NMODELS * MODEL_KNOB_PARTS];
	size_t n = knob_parts(parts), nl = sim_params_nloads(p);
	if (!nl)
		return sim_params_check_knobs(p, parts, n, err, errlen);
	sim_params *views[SIM_LOADS_MAX + 1] = { NULL };
	bool only[P_COUNT];
	int rc = 0;
	views[0] = (sim_params *)p;
	for (size_t i = 0; i < nl && !rc; i++)
		rc = sim_params_load_view(p, i, &views[i + 1]);
	for (size_t v = 0; v <= nl && !rc; v++) {
		for (size_t id = 0; id < P_COUNT; id++) {
			bool any = false;
			for (size_t u = 0; u <= nl && !any; u++)
				any = sim_params_knob_applies(views[u], parts, n, id);
			only[id] = sim_params_load_param(p, 0, id) >= 0 ? true : !any && v == 0;
		}
		rc = sim_params_check_knobs_only(views[v], parts, n, only, P_COUNT, err, errlen);
	}
	for (size_t i = 0; i < nl; i++)
		sim_params_destroy(views[i + 1]);
	if (rc == SIM_ENOMEM)
		snprintf(err, errlen, "out of memory");
	return rc;
}

bool rcusim_param_applies(const sim_params *p, size_t id)
{
	const sim_knobs *parts[NMODELS * MODEL_KNOB_PARTS];
	size_t n = knob_parts(parts);
	return sim_params_knob_applies(p, parts, n, id);
}

int rcusim_validate(const sim_params *p, char *err, size_t errlen)
{
	char a[512], avail[512] = "";
	const char *kind = sim_params_text(p, P_WORKLOAD_KIND);
	if (!find_model(kind)) {
		for (size_t i = 0; i < NMODELS; i++)
			snprintf(avail + strlen(avail), sizeof(avail) - strlen(avail), "%s%s",
				 i ? ", " : "", models[i]->kinds());
		sim_params_where(p, P_WORKLOAD_KIND, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: workload \"%s\" is not implemented in this version of rcusim (available: %s)",
			 a, kind, avail);
		return SIM_EINPUT;
	}
	if (sim_params_int(p, P_SCENARIO_WARMUP) >= sim_params_int(p, P_SCENARIO_DURATION)) {
		sim_params_where(p, P_SCENARIO_WARMUP, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: the warm-up %s would cover the whole run (scenario.duration = %s, %s): "
			 "it must be shorter",
			 a, sim_params_text(p, P_SCENARIO_WARMUP), sim_params_text(p, P_SCENARIO_DURATION),
			 sim_params_origin(p, P_SCENARIO_DURATION));
		return SIM_EINPUT;
	}
	int rc = 0;
	for (size_t i = 0; i < NMODELS && !rc; i++)
		if (models[i]->check)
			rc = models[i]->check(p, err, errlen);
	if (rc || (rc = model_samples_validate(p, err, errlen)) || (rc = check_knobs(p, err, errlen)))
		return rc;
	for (size_t i = 0; i < NMODELS && !rc; i++)
		if (models[i]->validate)
			rc = models[i]->validate(p, err, errlen);
	return rc;
}

/* A model built and armed, to run. */
struct rcusim_sim {
	sim_engine *eng;      /* its engine */
	const model_ops *ops; /* the model */
	void *state;          /* its state */
	sampler smp;          /* the sample timer */
	sim_time duration;    /* scenario.duration */
	sim_metrics *m;       /* where the run's metrics go (the caller's) */
	sim_timer warm;       /* fires at scenario.warmup, if not 0 */
};

/* scenario.warmup ends: the histograms forget their samples so far. */
static void warmup_fire(sim_engine *eng, sim_timer *t)
{
	rcusim_sim *s = t->ctx;
	(void)eng;
	sim_metrics_drop_hists(s->m);
	if (s->ops->drop_samples)
		s->ops->drop_samples(s->state);
}

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
	if (!rc && errlen)
		err[0] = 0; /* on success: the model's warnings, if any */
	if (rc)
		return rc;
	rcusim_sim *s = calloc(1, sizeof(*s));
	if (!s || (rc = sim_engine_create(&s->eng)))
		goto nomem;
	s->ops = find_model(kind);
	s->duration = sim_params_int(p, P_SCENARIO_DURATION);
	s->m = m;
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
	/* No timer without a warm-up: a run without one is the same event for
	 * event as before scenario.warmup existed. */
	sim_time warmup = sim_params_int(p, P_SCENARIO_WARMUP);
	if (warmup && ((rc = sim_timer_init(s->eng, &s->warm, warmup_fire, s)) ||
		       (rc = sim_timer_at(s->eng, &s->warm, warmup))))
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

/* Is @name a metric in nanoseconds (of @kind)? */
static bool is_ns(const char *name, sim_metric_kind kind)
{
	const sim_metric_def *d = sim_metric_find(rcusim_metrics, M_COUNT, name, kind);
	return d && !strcmp(d->unit, "ns");
}

/* No duration a run measured is negative or wrapped: every histogram in
 * ns holds intervals inside the run and what it committed by its end, so
 * its samples lie in [0, @end] (@end: the model's horizon); every
 * scalar and series point in ns is finite and in [0, 2^62) (a difference
 * taken the wrong way round and cast to uint64_t is about 1.8e19). Always
 * on (a walk over tens of metrics at the run's end); a failure is a bug in
 * the model (SIM_ECHECK, exit status 4), named with its value. */
static int check_durations(const sim_metrics *m, sim_time end, char *err, size_t errlen)
{
	const double wrap = 0x1p62;
	for (size_t i = 0; i < sim_metrics_nhists(m); i++) {
		const sim_hist *h = sim_metrics_hist_at(m, i);
		const char *name = sim_metrics_hist_name(m, i);
		if (h->count && is_ns(name, SIM_M_HIST) && h->max > (uint64_t)end) {
			snprintf(err, errlen,
				 "simulation: %s holds a duration of %.17g ns, past the run's %lld ns "
				 "(negative or wrapped): a model bug",
				 name, (double)h->max, (long long)end);
			return SIM_ECHECK;
		}
	}
	for (size_t i = 0; i < sim_metrics_nscalars(m); i++) {
		const char *name = sim_metrics_scalar_name(m, i);
		double v = sim_metrics_scalar_value(m, i);
		if (is_ns(name, SIM_M_SCALAR) && !(v >= 0 && v < wrap)) {
			snprintf(err, errlen, "simulation: %s = %.17g ns is negative or wrapped: a model bug",
				 name, v);
			return SIM_ECHECK;
		}
	}
	for (size_t i = 0; i < sim_metrics_nseries(m); i++) {
		const sim_series *sr = sim_metrics_series_at(m, i);
		if (!is_ns(sr->name, SIM_M_SERIES))
			continue;
		for (size_t k = 0; k < sr->n; k++)
			if (!(sr->v[k] >= 0 && sr->v[k] < wrap)) {
				snprintf(err, errlen,
					 "simulation: %s at t = %lld ns is %.17g ns, negative or wrapped: "
					 "a model bug",
					 sr->name, (long long)sr->t[k], sr->v[k]);
				return SIM_ECHECK;
			}
	}
	return 0;
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
	if (s->smp.at_end && (rc = sample_take(&s->smp, s->eng, sim_now(s->eng)))) {
		snprintf(err, errlen, "simulation: %s", s->smp.msg);
		return rc;
	}
	out->sim_end_ns = sim_now(s->eng);
	out->events = sim_events(s->eng);
	if ((rc = s->ops->finish(s->state, sim_now(s->eng), err, errlen)))
		return rc;
	sim_time end = sim_now(s->eng);
	if (s->ops->horizon)
		end = s->ops->horizon(s->state, end);
	return check_durations(s->m, end, err, errlen);
}

int rcusim_trace(rcusim_sim *s, const rcusim_trace_opts *o, char *err, size_t errlen)
{
	if (!s->ops->trace) {
		snprintf(err, errlen, "--trace: the %s model has no timeline", s->ops->name);
		return SIM_EINPUT;
	}
	return s->ops->trace(s->state, o, err, errlen);
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
