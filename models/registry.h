/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * registry.h - rcusim's parameter registry (the table is models/params.def).
 * Models read values by id: sim_params_int(p, P_RCU_BLIMIT).
 */
#ifndef RCUSIM_MODELS_REGISTRY_H
#define RCUSIM_MODELS_REGISTRY_H

#include "params.h"

enum rcusim_param_id {
#define P(id, ...) P_##id,
#include "params.def"
#undef P
	P_COUNT
};

extern const sim_param_def rcusim_params[P_COUNT];

#endif
