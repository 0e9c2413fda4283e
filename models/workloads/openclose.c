/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * openclose.c - workload openclose: the tight open()/close() loop of the
 * October 2005 reports, one pair per workload.openclose_pair_cost of CPU
 * time (a Poisson process), workload.openclose_user_share of it in user
 * mode. Each close queues the file's RCU callback at once.
 * A load, not kernel code: the reports were against 2.6.14.
 */
#include "fs/files.h"
#include "kernel/kernel.h"

static int openclose_create(kworkload *w, const sim_params *p, char *err, size_t errlen)
{
	w->call_rate = 1.0 / (double)sim_params_int(p, P_WORKLOAD_OPENCLOSE_PAIR_COST);
	w->p_kernel = 1.0 - sim_params_real(p, P_WORKLOAD_OPENCLOSE_USER_SHARE);
	w->kstretch = (double)sim_params_int(p, P_WORKLOAD_OPENCLOSE_PAIR_COST) / 2; /* open(), close() */
	(void)err;
	(void)errlen;
	return 0;
}

/* open() then close() at @at; true if the job stopped (asleep to retry a
 * refusal, or out of memory). */
static bool openclose_call(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff)
{
	slab_obj obj;
	bool stopped;
	if (job_open_filp(c, j, now, at, eff, &obj, &stopped))
		return stopped;
	job_refusals_end(j);
	job_opened(c);
	job_close(c, now, at, obj, eff);
	return false;
}

static void openclose_run(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
			  job_effect *eff)
{
	kmodel *k = c->k;
	workload_calls(c, j, now, t0, work, s, eff, j->wl->call_rate, c->rng_work, &k->err,
		       openclose_call);
}

/* The loop failed at file-max: a new one starts (it holds nothing). */
static int openclose_unit_failed(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff)
{
	(void)now;
	(void)at;
	(void)eff;
	job_refusals_end(j);
	j->next_call_work = sim_rng_exponential(c->rng_work, 1.0 / j->wl->call_rate);
	return 0;
}

/* The knobs the openclose workload reads (its own, and the refused-open knobs kernel.c reads for the kinds that open files), with workload.kind = openclose. */
static const sim_knob openclose_knob[] = {
	{ P_WORKLOAD_ON_ENFILE, SIM_ALWAYS },
	{ P_WORKLOAD_RETRY_DELAY, SIM_ALWAYS },
	{ P_WORKLOAD_RETRY_MAX, SIM_ALWAYS },
	{ P_WORKLOAD_OPENCLOSE_PAIR_COST, SIM_ALWAYS },
	{ P_WORKLOAD_OPENCLOSE_USER_SHARE, SIM_ALWAYS },
};
static const sim_knobs openclose_knobs = { { P_WORKLOAD_KIND, "openclose", NULL }, openclose_knob,
				 sizeof(openclose_knob) / sizeof(openclose_knob[0]) };

const workload_ops openclose_workload = {
	.kind = "openclose",
	.knobs = &openclose_knobs,
	.frees_files = true,
	.create = openclose_create,
	.run = openclose_run,
	.next_syscall = workload_next_call,
	.unit_failed = openclose_unit_failed,
};
