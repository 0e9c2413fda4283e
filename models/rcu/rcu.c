/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rcu.c - the RCU flavors rcu.flavor chooses from (rcu.h), and what is
 * checked of the rcu.* parameters whichever runs.
 * The table has no kernel counterpart; each flavor names its version. */
#include "rcu/rcu.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* Every flavor (its file, rcu/NAME.c or rcu/NAME_flavor.c, defines rcu_NAME); params.def's
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

bool rcu_flavor_can(const sim_params *p, unsigned caps)
{
	const rcu_flavor *f = rcu_flavor_find(p);
	return f && (f->caps & caps) == caps;
}

/* The defaults of the optional operations: a kernel without the mechanism. */
static void no_cpu_op(void *rsp, int cpu) {}
static bool no_core_kthread(const void *rsp) { return false; }
static bool tick_always(const void *rsp, int cpu) { return true; }
static int no_nocb_groups(const void *rsp) { return 0; }

void rcu_flavor_fill(rcu_flavor *out, const rcu_flavor *f)
{
	*out = *f;
	if (!out->idle_enter)
		out->idle_enter = no_cpu_op;
	if (!out->idle_exit)
		out->idle_exit = no_cpu_op;
	if (!out->core_kthread)
		out->core_kthread = no_core_kthread;
	if (!out->cond_resched)
		out->cond_resched = no_cpu_op;
	if (!out->needs_cpu)
		out->needs_cpu = tick_always;
	if (!out->softirq_qs)
		out->softirq_qs = no_cpu_op;
	if (!out->nocb_groups)
		out->nocb_groups = no_nocb_groups;
}

size_t rcu_flavors_knobs(const sim_knobs **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < sizeof(rcu_flavors) / sizeof(rcu_flavors[0]); i++)
		for (const sim_knobs *const *k = rcu_flavors[i]->knobs; k && *k; k++) {
			assert(n < max);
			out[n++] = *k;
		}
	return n;
}

int rcu_params_check(const sim_params *p, char *err, size_t errlen)
{
	char a[512], b[512];
	if (!rcu_flavor_find(p)) {
		sim_params_where(p, P_RCU_FLAVOR, a, sizeof(a));
		snprintf(err, errlen, "%s: RCU flavor \"%s\" is not implemented in this version of rcusim",
			 a, sim_params_text(p, P_RCU_FLAVOR));
		return SIM_EINPUT;
	}
	if (sim_params_int(p, P_RCU_QLOWMARK) >= sim_params_int(p, P_RCU_QHIMARK)) {
		sim_params_where(p, P_RCU_QLOWMARK, a, sizeof(a));
		sim_params_where(p, P_RCU_QHIMARK, b, sizeof(b));
		snprintf(err, errlen, "%s: must be below rcu.qhimark (%s = %s), got %s", a, b,
			 sim_params_text(p, P_RCU_QHIMARK), sim_params_text(p, P_RCU_QLOWMARK));
		return SIM_EINPUT;
	}
	return 0;
}

const char *rcu_policy_label(const sim_params *p)
{
	const rcu_flavor *f = rcu_flavor_find(p);
	if (!f)
		return sim_params_text(p, P_RCU_FLAVOR);
	return f->policy_label ? f->policy_label(p) : f->name;
}

int rcu_flavor_validate(const sim_params *p, char *err, size_t errlen)
{
	const rcu_flavor *f = rcu_flavor_find(p);
	return f && f->validate ? f->validate(p, err, errlen) : 0;
}
