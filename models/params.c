/* SPDX-License-Identifier: GPL-3.0-or-later */
/* params.c - the registry table, expanded from params.def. */
#include "params.h"

const sim_param_def rcusim_params[P_COUNT] = {
#define P(id, name, type, def, min, max, choices, flags, unit, meaning, source) \
	[P_##id] = { name, type, def, min, max, choices, flags, unit, meaning, source },
#include "params.def"
#undef P
};
