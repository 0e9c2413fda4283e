/* SPDX-License-Identifier: GPL-3.0-or-later */
/* registry.c - the registry tables, expanded from params.def and metrics.def. */
#include <string.h>

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

int metric_hist_scalars(sim_metrics *m, enum rcusim_metric_id id, const sim_hist *h, unsigned want)
{
	assert(id < M_COUNT && rcusim_metrics[id].kind == SIM_M_HIST);
	const char *name = rcusim_metrics[id].name;
	size_t n = strlen(name);
	char prefix[128];
	assert(n > 3 && n - 3 < sizeof(prefix) && !strcmp(name + n - 3, "_ns"));
	memcpy(prefix, name, n - 3);
	prefix[n - 3] = '\0';
	return sim_metrics_hist_scalars(m, prefix, h, want);
}
