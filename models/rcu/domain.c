/* SPDX-License-Identifier: GPL-3.0-or-later */
/* domain.c - the registry of a run's RCU domains (rcu/domain.h) and the
 * hooks a domain without a mechanism gives. No kernel counterpart: the
 * kernel calls each domain's hooks by name (rcu_note_context_switch()
 * calling rcu_tasks_qs(), ...); a table is the model's way to say the same. */
#include "rcu/domain.h"

#include <string.h>

int rcu_domains_register(rcu_domains *ds, rcu_domain *d)
{
	if (ds->n >= RCU_MAX_DOMAINS || (d->ops->softirq_pass && ds->softirq))
		return SIM_EINPUT;
	d->id = ds->n;
	ds->dom[ds->n++] = d;
	if (d->ops->softirq_pass)
		ds->softirq = d;
	/* The hooks call the normal RCU's by name only while it is alone. */
	ds->normal_only = ds->n == 1 && d->ops == &rcu_domain_rcu_ops ? d : NULL;
	return 0;
}

rcu_domain *rcu_domains_find(const rcu_domains *ds, const char *name)
{
	for (int i = 0; i < ds->n; i++)
		if (!strcmp(ds->dom[i]->name, name))
			return ds->dom[i];
	return NULL;
}

void rcu_domain_nop_cpu(rcu_domain *d, kcpu *c)
{
	(void)d;
	(void)c;
}

void rcu_domain_nop_ct(rcu_domain *d, int cpu)
{
	(void)d;
	(void)cpu;
}

bool rcu_domain_no_cpu_need(const rcu_domain *d, const kcpu *c)
{
	(void)d;
	(void)c;
	return false;
}
