/* SPDX-License-Identifier: GPL-3.0-or-later */
/* registry.c - the registry table, expanded from params.def. */
#include "registry.h"

const sim_param_def rcusim_params[P_COUNT] = {
#define P(id, name, type, def, min, max, choices, flags, unit, meaning, source) \
	[P_##id] = { name, type, def, min, max, choices, flags, unit, meaning, source },
#include "params.def"
#undef P
};
