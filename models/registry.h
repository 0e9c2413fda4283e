/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * registry.h - rcusim's registries: the parameters (models/params.def;
 * models read values by id: sim_params_int(p, P_RCU_BLIMIT)) and the
 * metrics (models/metrics.def; the recorder is given the table and records
 * nothing else).
 */
#ifndef RCUSIM_MODELS_REGISTRY_H
#define RCUSIM_MODELS_REGISTRY_H

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

/* Number of CPUs the machine section describes (machine.cores x
 * machine.threads_per_core). */
static inline int machine_ncpus(const sim_params *p)
{
	return (int)(sim_params_int(p, P_MACHINE_CORES) * sim_params_int(p, P_MACHINE_THREADS_PER_CORE));
}

#endif
