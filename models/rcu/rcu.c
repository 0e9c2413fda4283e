/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rcu.c - the RCU flavors rcu.flavor chooses from (rcu.h). */
#include "rcu/rcu.h"

#include <string.h>

/* Every flavor (its file, rcu_NAME.c or rcu_NAME_flavor.c, defines rcu_NAME); params.def's
 * rcu.flavor lists their names. */
extern const rcu_flavor rcu_classic, rcu_tree;
static const rcu_flavor *const rcu_flavors[] = { &rcu_classic, &rcu_tree };

const rcu_flavor *rcu_flavor_find(const sim_params *p)
{
	const char *name = sim_params_text(p, P_RCU_FLAVOR);
	for (size_t i = 0; i < sizeof(rcu_flavors) / sizeof(rcu_flavors[0]); i++)
		if (!strcmp(rcu_flavors[i]->name, name))
			return rcu_flavors[i];
	return NULL;
}
