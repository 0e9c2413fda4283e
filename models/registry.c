/* SPDX-License-Identifier: GPL-3.0-or-later */
/* registry.c - the registry tables, expanded from params.def and metrics.def. */
#include "registry.h"

const sim_param_def rcusim_params[P_COUNT] = {
#define P(id, name, type, def, min, max, choices, flags, unit, meaning, source) \
	[P_##id] = { name, type, def, min, max, choices, flags, unit, meaning, source },
#include "params.def"
#undef P
};

const sim_metric_def rcusim_metrics[M_COUNT] = {
#define M(id, name, kind, unit, meaning) [M_##id] = { name, SIM_M_##kind, unit, meaning },
#include "metrics.def"
#undef M
};
