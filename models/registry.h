/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * registry.h - rcusim's registries: the parameters (models/params.def;
 * models read values by id: sim_params_int(p, P_RCU_BLIMIT)) and the
 * metrics (models/metrics.def; the recorder is given the table and records
 * nothing else).
 */
#ifndef RCUSIM_MODELS_REGISTRY_H
#define RCUSIM_MODELS_REGISTRY_H

#include <assert.h>

#include "metrics.h"
#include "params.h"

enum rcusim_param_id {
#define P(id, ...) P_##id,
#include "params.def"
#undef P
	P_COUNT
};

extern const sim_param_def rcusim_params[P_COUNT];

enum rcusim_metric_id {
#define M(id, ...) M_##id,
#include "metrics.def"
#undef M
	M_COUNT
};

extern const sim_metric_def rcusim_metrics[M_COUNT];

/* Metrics written by id: a part names what it writes with its M_ id, so that
 * a misspelt metric fails the build, not the run at its end (the recorder
 * refuses a name metrics.def lacks). The kind is asserted: a scalar's id
 * given to metric_series() is a bug. Named loads' metrics are scoped
 * afterwards (sim_metrics_absorb()), so the names here are the plain ones. */
static inline int metric_scalar(sim_metrics *m, enum rcusim_metric_id id, double v)
{
	assert(id < M_COUNT && rcusim_metrics[id].kind == SIM_M_SCALAR);
	return sim_metrics_scalar(m, rcusim_metrics[id].name, v);
}

/* Series @id of CPU @cpu (-1: the machine's), created on first use; NULL
 * when out of memory. */
static inline sim_series *metric_series(sim_metrics *m, enum rcusim_metric_id id, int cpu)
{
	assert(id < M_COUNT && rcusim_metrics[id].kind == SIM_M_SERIES);
	return sim_metrics_series(m, rcusim_metrics[id].name, cpu);
}

/* Histogram @id, created on first use; NULL when out of memory. */
static inline sim_hist *metric_hist(sim_metrics *m, enum rcusim_metric_id id)
{
	assert(id < M_COUNT && rcusim_metrics[id].kind == SIM_M_HIST);
	return sim_metrics_hist(m, rcusim_metrics[id].name);
}

/* The @want scalars (SIM_Q_*) of @h, histogram @id's: for "gp.duration_ns",
 * gp.duration_p50_ns and so on (sim_metrics_hist_scalars() with the name
 * less its "_ns"). 0 or SIM_ENOMEM. */
int metric_hist_scalars(sim_metrics *m, enum rcusim_metric_id id, const sim_hist *h, unsigned want);

/* Number of CPUs the machine section describes (machine.cores x
 * machine.threads_per_core). */
static inline int machine_ncpus(const sim_params *p)
{
	return (int)(sim_params_int(p, P_MACHINE_CORES) * sim_params_int(p, P_MACHINE_THREADS_PER_CORE));
}

#endif
