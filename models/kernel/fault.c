/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fault.c - an injected fault (fault.*): chosen CPUs stop taking interrupts,
 * stop taking ticks, or report no quiescent state, over one window of
 * simulated time. A stand-in for a stall whose cause no source records;
 * what each kind does to a CPU is in irq.c (kcpu_fault_begin/end) and
 * tick.c (no tick, or one latched).
 * Follows no kernel source: the seed story records the stall, not its cause.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel_int.h"
#include "cpulist.h"

static unsigned fault_kind(const sim_params *p)
{
	const char *kind = sim_params_text(p, P_FAULT_KIND);
	return !strcmp(kind, "irqs_off") ? FAULT_IRQS_OFF
	       : !strcmp(kind, "no_ticks") ? FAULT_NO_TICKS
	       : !strcmp(kind, "no_qs")    ? FAULT_NO_QS
					   : 0;
}

int fault_validate(const sim_params *p, char *err, size_t errlen)
{
	if (!fault_kind(p))
		return 0;
	char a[512], why[256];
	int ncpus = machine_ncpus(p);
	int *cpus = malloc((size_t)ncpus * sizeof(*cpus)), n;
	if (!cpus) {
		snprintf(err, errlen, "fault: out of memory");
		return SIM_ENOMEM;
	}
	int bad = sim_cpulist_parse_distinct(sim_params_text(p, P_FAULT_CPUS), ncpus, cpus, &n, why, sizeof(why));
	free(cpus);
	if (bad) {
		sim_params_where(p, P_FAULT_CPUS, a, sizeof(a));
		snprintf(err, errlen, "%s: %s", a, why);
		return SIM_EINPUT;
	}
	if (sim_params_int(p, P_FAULT_START) >= sim_params_int(p, P_SCENARIO_DURATION)) {
		sim_params_where(p, P_FAULT_START, a, sizeof(a));
		snprintf(err, errlen, "%s: the fault would begin at or after the run's end (scenario.duration = %s), got %s",
			 a, sim_params_text(p, P_SCENARIO_DURATION), sim_params_text(p, P_FAULT_START));
		return SIM_EINPUT;
	}
	return 0;
}

static void fault_on_fire(sim_engine *eng, sim_timer *tm)
{
	kmodel *k = tm->ctx;
	for (int i = 0; i < k->fault.ncpus; i++)
		kcpu_fault_begin(&k->cpu[k->fault.cpus[i]], sim_now(eng), k->fault.kind);
}

static void fault_off_fire(sim_engine *eng, sim_timer *tm)
{
	kmodel *k = tm->ctx;
	for (int i = 0; i < k->fault.ncpus; i++)
		kcpu_fault_end(&k->cpu[k->fault.cpus[i]], sim_now(eng));
}

/* The knobs of an injected fault, with fault.kind other than none. */
static const sim_knob kfault_knob[] = {
	{ P_FAULT_CPUS, SIM_ALWAYS },
	{ P_FAULT_START, SIM_ALWAYS },
	{ P_FAULT_DURATION, SIM_ALWAYS },
};
const sim_knobs kfault_knobs = { { P_FAULT_KIND, "!none", "an injected fault (fault.kind)" }, kfault_knob,
				 sizeof(kfault_knob) / sizeof(kfault_knob[0]) };

int kfault_create(kmodel *k, const sim_params *p, char *err, size_t errlen)
{
	kfault *f = &k->fault;
	int rc = fault_validate(p, err, errlen);
	if (rc || !(f->kind = fault_kind(p)))
		return rc;
	if (!(f->cpus = malloc((size_t)k->mach.ncpus * sizeof(*f->cpus))))
		return SIM_ENOMEM;
	char why[256];
	sim_cpulist_parse_distinct(sim_params_text(p, P_FAULT_CPUS), k->mach.ncpus, f->cpus, &f->ncpus, why,
			 sizeof(why));
	f->start = sim_params_int(p, P_FAULT_START);
	f->end = f->start + sim_params_int(p, P_FAULT_DURATION);
	if (sim_timer_init(k->eng, &f->on, fault_on_fire, k) ||
	    sim_timer_init(k->eng, &f->off, fault_off_fire, k) ||
	    sim_timer_at(k->eng, &f->on, f->start) || sim_timer_at(k->eng, &f->off, f->end))
		return SIM_ENOMEM;
	return 0;
}

void kfault_destroy(kmodel *k)
{
	free(k->fault.cpus);
	k->fault.cpus = NULL;
}
