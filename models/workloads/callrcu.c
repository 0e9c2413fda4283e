/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * wl_callrcu.c - workload callrcu: CPU hogs that call call_rcu() from short
 * system calls, a Poisson process at workload.callrcu_rate per second of
 * their CPU time: drawn call by call, or (workload.callrcu_arrivals = bulk)
 * as a Poisson count per stretch of CPU time, spread evenly over it.
 * Callbacks free nothing the model tracks.
 */
#include <stdio.h>

#include "kernel/kernel_int.h"

static int callrcu_create(kworkload *w, const sim_params *p, char *err, size_t errlen)
{
	double rate = sim_params_real(p, P_WORKLOAD_CALLRCU_RATE);
	w->call_rate = rate / 1e9;
	w->p_kernel = rate * (double)sim_params_int(p, P_WORKLOAD_SYSCALL_COST) / 1e9;
	if (w->p_kernel >= 1) {
		char a[512];
		sim_params_where(p, P_WORKLOAD_CALLRCU_RATE, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: %s x workload.syscall_cost (%s) is %.3g: a job would spend more than "
			 "all its time in system calls",
			 a, sim_params_text(p, P_WORKLOAD_CALLRCU_RATE),
			 sim_params_text(p, P_WORKLOAD_SYSCALL_COST), w->p_kernel);
		return SIM_EINPUT;
	}
	w->bulk_calls = sim_params_int(p, P_WORKLOAD_CALLRCU_ARRIVALS) == 1; /* x86_64 only (rcusim_validate()) */
	return 0;
}

/* One call_rcu(); true if the job cannot go on (out of memory). */
static bool callrcu_call(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff)
{
	(void)j;
	return job_call_rcu(c, now, at, 0, eff) != 0;
}

static void callrcu_run(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
			job_effect *eff)
{
	kmodel *k = c->k;
	if (!k->wl.bulk_calls) {
		workload_calls(c, j, now, t0, work, s, eff, k->wl.call_rate, c->rng_work, &k->err,
			       callrcu_call);
		return;
	}
	/* The stretch [t0, t0 + work / s) cut into n equal parts, a call at
	 * the middle of each (in whole ns). */
	unsigned n = sim_rng_poisson(c->rng_work, k->wl.call_rate * work);
	if (!n)
		return;
	sim_time step = (sim_time)(work / s / n);
	(void)job_call_rcu_n(c, now, t0 + step / 2, step, n, eff);
}

const workload_ops callrcu_workload = {
	.kind = "callrcu",
	.frees_files = false,
	.create = callrcu_create,
	.run = callrcu_run,
	.next_syscall = workload_next_call,
};
