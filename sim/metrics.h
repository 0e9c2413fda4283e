/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * metrics.h - what a run measures: scalars, sampled series, log-bucketed
 * histograms, and time-average integrators. Models fill a sim_metrics; the
 * recorder writes it to the database, each name checked against a registry
 * of definitions (sim_metric_def) the caller supplies. No SQLite here.
 */
#ifndef RCUSIM_SIM_METRICS_H
#define RCUSIM_SIM_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checks.h"
#include "engine.h"

/* ---- histogram of non-negative integers (ns, counts) ------------------
 * Values below 128 have a bin each; above, each power of two is split into
 * 64 bins, so a bin spans at most 1/64 of its lower edge and its midpoint is
 * within 0.8% of any value in it (docs/reference.md section 7).
 * Count, sum (exact, 128-bit), min and max are kept exactly. */
#define SIM_HIST_SUB_BITS 6
#define SIM_HIST_LINEAR 128
#define SIM_HIST_BINS (SIM_HIST_LINEAR + (64 - 7) * (1 << SIM_HIST_SUB_BITS))

typedef struct sim_hist {
	uint64_t count;          /* samples */
	unsigned __int128 sum;   /* exact sum of samples */
	uint64_t min, max;       /* exact extremes (min = UINT64_MAX when empty) */
	uint64_t bins[SIM_HIST_BINS]; /* samples per bin */
	uint64_t dropped;        /* samples forgotten by sim_hist_drop() (scenario.warmup) */
} sim_hist;

void sim_hist_init(sim_hist *h);
/* Forget every sample held (scenario.warmup's end), adding their number to
 * @h->dropped, so that count + dropped still counts every sample added. */
void sim_hist_drop(sim_hist *h);
/* Bin of value @v. */
static inline size_t sim_hist_bin(uint64_t v)
{
	if (v < SIM_HIST_LINEAR)
		return (size_t)v;
	int msb = 63 - __builtin_clzll(v);
	return SIM_HIST_LINEAR + (size_t)(msb - 7) * (1u << SIM_HIST_SUB_BITS) +
	       (size_t)((v >> (msb - SIM_HIST_SUB_BITS)) & ((1u << SIM_HIST_SUB_BITS) - 1));
}
/* The [lo, hi) edges of @bin. */
void sim_hist_edges(size_t bin, uint64_t *lo, uint64_t *hi);
/* Add @n samples of value @v. */
static inline void sim_hist_add_n(sim_hist *h, uint64_t v, uint64_t n)
{
	/* A negative difference cast to uint64_t (every value held is a
	 * count or a duration, far below 2^62). */
	RCUSIM_CHECK(v < (UINT64_C(1) << 62), "metrics.hist_value_wrapped");
	h->count += n;
	h->sum += (unsigned __int128)v * n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->bins[sim_hist_bin(v)] += n;
}
static inline void sim_hist_add(sim_hist *h, uint64_t v)
{
	sim_hist_add_n(h, v, 1);
}
/* @m samples @v0, @v0 + @d, ..., @v0 + (@m - 1) @d (all of them >= 0):
 * the same histogram as sim_hist_add() for each, in one step per bin they
 * cross. */
void sim_hist_add_linear(sim_hist *h, uint64_t v0, int64_t d, uint64_t m);
/* Mean of the samples (exact up to the final division); 0 when empty. */
double sim_hist_mean(const sim_hist *h);
/* The @q quantile (0 <= q <= 1): the midpoint of the bin holding the
 * ceil(q * count)-th smallest sample, clamped to [min, max]. Within 0.8% of
 * the exact order statistic. 0 when empty. */
double sim_hist_quantile(const sim_hist *h, double q);
/* Merge @src into @dst (dropped too). */
void sim_hist_merge(sim_hist *dst, const sim_hist *src);


/* ---- time average of an integer quantity ------------------------------
 * Integrates value x time exactly (128-bit), so the mean over [t0, t] is
 * exact up to the final division. */
typedef struct sim_tavg {
	sim_time t0;           /* ns: start of integration */
	sim_time t_last;       /* ns: time of the last change */
	int64_t value;         /* current value */
	int64_t max;           /* largest value held */
	__int128 area;         /* sum of value x ns up to t_last */
} sim_tavg;

void sim_tavg_init(sim_tavg *a, sim_time t0, int64_t value);
/* The quantity changes to @value at @now (>= the last change). */
static inline void sim_tavg_set(sim_tavg *a, sim_time now, int64_t value)
{
	a->area += (__int128)a->value * (now - a->t_last);
	a->t_last = now;
	a->value = value;
	if (value > a->max)
		a->max = value;
}
static inline void sim_tavg_add(sim_tavg *a, sim_time now, int64_t delta)
{
	sim_tavg_set(a, now, a->value + delta);
}
/* The quantity changes by @delta at @now, but the change belongs at time
 * @at (earlier or later than @now): the integral is corrected as if it had
 * happened then. For work committed in bulk (a batch of callbacks invoked
 * over the next milliseconds, calls applied at the next tick). */
static inline void sim_tavg_add_at(sim_tavg *a, sim_time now, sim_time at, int64_t delta)
{
	sim_tavg_set(a, now, a->value + delta);
	a->area += (__int128)delta * (now - at);
}
/* Time average over [t0, now]; the current value if now == t0. */
double sim_tavg_mean(const sim_tavg *a, sim_time now);

/* ---- series ------------------------------------------------------------ */
typedef struct sim_series {
	const char *name; /* metric name (static string) */
	int cpu;          /* CPU, or -1 machine-wide */
	size_t n, cap;    /* points held, allocated */
	sim_time *t;      /* ns: sample times */
	double *v;        /* values */
} sim_series;

/* ---- the registry of metric names ---------------------------------------
 * What a run may record, as a table of definitions supplied by the caller
 * (models/ owns rcusim's, models/metrics.def), as for parameters. The
 * recorder refuses a metric that is not in it. */
typedef enum sim_metric_kind {
	SIM_M_SCALAR, /* one value per run */
	SIM_M_SERIES, /* points sampled over the run, per CPU and/or machine-wide */
	SIM_M_HIST,   /* a distribution in log-spaced bins */
} sim_metric_kind;

typedef struct sim_metric_def {
	const char *name;     /* "section.what" as stored; unique with its kind */
	sim_metric_kind kind; /* scalar, series or histogram */
	const char *unit;     /* what is counted: "callbacks", "ns", "bytes", "fraction" */
	const char *meaning;  /* one line */
} sim_metric_def;

/* The definition of @name as a @kind in @defs, or NULL if it has none. */
const sim_metric_def *sim_metric_find(const sim_metric_def *defs, size_t ndefs, const char *name,
				      sim_metric_kind kind);
/* "scalar", "series" or "hist". */
const char *sim_metric_kind_name(sim_metric_kind kind);

/* ---- the container ----------------------------------------------------- */
typedef struct sim_metrics sim_metrics;

int sim_metrics_create(sim_metrics **out);
void sim_metrics_destroy(sim_metrics *m); /* NULL is a no-op */

/* Every scalar, histogram and series of @src into @dst, each name with
 * @scope after its first word ("syncrcu.calls" as "syncrcu.SCOPE.calls"):
 * a named load's metrics (sim_metric_find() finds such a name's
 * definition as the unscoped one's). 0 or SIM_ENOMEM. */
int sim_metrics_absorb(sim_metrics *dst, const sim_metrics *src, const char *scope);
/* sim_hist_drop() on every histogram @m holds. */
void sim_metrics_drop_hists(sim_metrics *m);
/* Set scalar @name (a static string) to @v; replaces an earlier value. */
int sim_metrics_scalar(sim_metrics *m, const char *name, double v);
/* A series, created on first use. NULL on allocation failure. */
sim_series *sim_metrics_series(sim_metrics *m, const char *name, int cpu);
/* Append a point. Returns 0 or -1 on allocation failure. */
int sim_series_append(sim_series *s, sim_time t, double v);
/* A histogram, created empty on first use. NULL on allocation failure. */
sim_hist *sim_metrics_hist(sim_metrics *m, const char *name);
/* Record @prefix_mean_ns, _p50_ns, _p99_ns, _p999_ns, _max_ns of @h (with
 * @want a set of SIM_Q_* flags); nothing if @h is empty ("a metric that did
 * not occur is absent"). Names are built into storage @m owns. */
enum { SIM_Q_MEAN = 1, SIM_Q_P50 = 2, SIM_Q_P99 = 4, SIM_Q_P999 = 8, SIM_Q_MAX = 16 };
int sim_metrics_hist_scalars(sim_metrics *m, const char *prefix, const sim_hist *h, unsigned want);

/* Iteration for the recorder and tests. */
size_t sim_metrics_nscalars(const sim_metrics *m);
const char *sim_metrics_scalar_name(const sim_metrics *m, size_t i);
double sim_metrics_scalar_value(const sim_metrics *m, size_t i);
/* Look up a scalar; false if absent. */
bool sim_metrics_get(const sim_metrics *m, const char *name, double *v);
size_t sim_metrics_nseries(const sim_metrics *m);
const sim_series *sim_metrics_series_at(const sim_metrics *m, size_t i);
size_t sim_metrics_nhists(const sim_metrics *m);
const char *sim_metrics_hist_name(const sim_metrics *m, size_t i);
const sim_hist *sim_metrics_hist_at(const sim_metrics *m, size_t i);

#endif
