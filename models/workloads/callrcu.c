/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * callrcu.c - workload callrcu: CPU hogs that call call_rcu() from short
 * system calls, a Poisson process at workload.callrcu_rate per second of
 * their CPU time at the machine's full speed (a thread alone on its core;
 * with its core's other threads busy, fewer in proportion to its speed):
 * the rate is converted once to calls per ns of work at the reference
 * speed, in which the CPU model counts a job's progress. Drawn call by call, or (workload.callrcu_arrivals = bulk)
 * as a Poisson count per stretch of CPU time, spread evenly over it.
 * With workload.callrcu_busy, a task sleeps workload.callrcu_sleep after
 * each busy stretch of CPU time (a duty cycle; its CPU may go idle).
 * Callbacks free nothing the model tracks.
 * A load, not kernel code: its calls go to the flavor (call_rcu() of
 * 2.6.14-2.6.16 or 6.12).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"

/* workload.callrcu_busy > 0: the duty cycle. j->done_work is the work done
 * in the current busy stretch. */
typedef struct callrcu_duty {
	double busy_work;   /* work ns of a busy stretch */
	sim_time sleep_ns;  /* then asleep */
} callrcu_duty;

extern const workload_ops callrcu_duty_workload;

static int callrcu_create(kworkload *w, const sim_params *p, char *err, size_t errlen)
{
	/* Calls per ns of work: a second of full-speed CPU time on a machine
	 * at machine.clock is 1e9 x clock / REF_CLOCK_HZ ns of work. */
	double rate = sim_params_real(p, P_WORKLOAD_CALLRCU_RATE);
	double scale = REF_CLOCK_HZ / sim_params_real(p, P_MACHINE_CLOCK);
	w->call_rate = rate / 1e9 * scale;
	w->p_kernel = rate * (double)sim_params_int(p, P_WORKLOAD_SYSCALL_COST) / 1e9 * scale;
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
	w->kstretch = (double)sim_params_int(p, P_WORKLOAD_SYSCALL_COST);
	w->bulk_calls = sim_params_int(p, P_WORKLOAD_CALLRCU_ARRIVALS) == 1; /* x86_64 only (callrcu_validate()) */
	int64_t busy = sim_params_int(p, P_WORKLOAD_CALLRCU_BUSY);
	if (busy > 0) {
		/* The duty cycle's variant of the ops: a hog's path stays free of
		 * next_block. Work ns of a busy stretch (see call_rate). */
		callrcu_duty *d = calloc(1, sizeof(*d));
		if (!d)
			return SIM_ENOMEM;
		d->busy_work = (double)busy / scale;
		d->sleep_ns = sim_params_int(p, P_WORKLOAD_CALLRCU_SLEEP);
		w->priv = d;
		w->ops = &callrcu_duty_workload;
	}
	return 0;
}

static void callrcu_destroy(kworkload *w)
{
	free(w->priv);
	w->priv = NULL;
}

/* One call_rcu(); true if the job cannot go on (out of memory). */
static bool callrcu_call(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff)
{
	(void)j;
	return job_call_rcu(rcu_normal(c->k), c, now, at, 0, eff) != 0;
}

static void callrcu_run(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
			job_effect *eff);

/* The duty cycle: the stretch's calls, then asleep once its busy work is
 * done (the CPU model's jobev event lands there: next_block). */
static void callrcu_duty_run(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
			     job_effect *eff)
{
	kmodel *k = c->k;
	const callrcu_duty *d = j->wl->priv;
	if (j->sleeping)
		return;
	callrcu_run(c, j, now, t0, work, s, eff);
	j->done_work += work;
	if (j->done_work < d->busy_work - 1e-6)
		return;
	j->done_work = 0;
	j->sleeping = true;
	eff->slept = true;
	if (sim_timer_at(k->eng, &j->wake, now + d->sleep_ns))
		kfail(k, SIM_ENOMEM);
}

static double callrcu_next_block(const kworkload *w, const job *j)
{
	const callrcu_duty *d = w->priv;
	if (j->sleeping)
		return INFINITY;
	double left = d->busy_work - j->done_work;
	return left > 1 ? left : 1;
}

static void callrcu_run(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
			job_effect *eff)
{
	kmodel *k = c->k;
	if (!j->wl->bulk_calls) {
		workload_calls(c, j, now, t0, work, s, eff, j->wl->call_rate, c->rng_work, &k->err,
			       callrcu_call);
		return;
	}
	/* The stretch [t0, t0 + work / s) cut into n equal parts, a call at
	 * the middle of each (in whole ns). */
	unsigned n = sim_rng_poisson(c->rng_work, j->wl->call_rate * work);
	if (!n)
		return;
	sim_time step = (sim_time)(work / s / n);
	(void)job_call_rcu_n(rcu_normal(c->k), c, now, t0 + step / 2, step, n, eff);
}

/* The knobs the callrcu workload reads (its own), with workload.kind = callrcu. */
static const sim_knob callrcu_knob[] = {
	{ P_WORKLOAD_SYSCALL_COST, SIM_ALWAYS },
	{ P_WORKLOAD_CALLRCU_RATE, SIM_ALWAYS },
	{ P_WORKLOAD_CALLRCU_ARRIVALS, SIM_ALWAYS },
	{ P_WORKLOAD_CALLRCU_BUSY, SIM_ALWAYS },
	{ P_WORKLOAD_CALLRCU_SLEEP, SIM_ALWAYS }, /* with callrcu_busy (callrcu_validate()) */
	{ P_WORKLOAD_OBJECT_SIZE, SIM_ALWAYS },
};
static const sim_knobs callrcu_knobs = { { P_WORKLOAD_KIND, "callrcu", NULL }, callrcu_knob,
				 sizeof(callrcu_knob) / sizeof(callrcu_knob[0]) };

/* Bulk calls draw no time for each system call's return, where sparc64
 * runs pending softirqs (kernel/cpu.c, arm_sysret()): bulk is x86_64's only. */
static int callrcu_validate(const sim_params *p, char *err, size_t errlen)
{
	char a[512];
	if (sim_params_int(p, P_WORKLOAD_CALLRCU_ARRIVALS) == 1 &&
	    !strcmp(sim_params_text(p, P_MACHINE_ARCH), "sparc64")) {
		sim_params_where(p, P_WORKLOAD_CALLRCU_ARRIVALS, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: bulk needs machine.arch = x86_64, and machine.arch is sparc64 (%s): sparc64 "
			 "runs pending softirqs at each system call's return, whose times bulk does not "
			 "draw", a, sim_params_origin(p, P_MACHINE_ARCH));
		return SIM_EINPUT;
	}
	if (sim_params_set_by_scenario(p, P_WORKLOAD_CALLRCU_SLEEP) && !sim_params_int(p, P_WORKLOAD_CALLRCU_BUSY)) {
		sim_params_where(p, P_WORKLOAD_CALLRCU_SLEEP, a, sizeof(a));
		snprintf(err, errlen, "%s: applies only with workload.callrcu_busy above 0, and it is %s (%s)", a,
			 sim_params_text(p, P_WORKLOAD_CALLRCU_BUSY), sim_params_origin(p, P_WORKLOAD_CALLRCU_BUSY));
		return SIM_EINPUT;
	}
	return 0;
}

const workload_ops callrcu_workload = {
	.kind = "callrcu",
	.knobs = &callrcu_knobs,
	.validate = callrcu_validate,
	.frees_files = false,
	.holds_objects = true,
	.create = callrcu_create,
	.destroy = callrcu_destroy,
	.run = callrcu_run,
	.next_syscall = workload_next_call,
};

/* The same with a duty cycle (workload.callrcu_busy; callrcu_create()
 * picks it). */
const workload_ops callrcu_duty_workload = {
	.kind = "callrcu",
	.knobs = &callrcu_knobs,
	.validate = callrcu_validate,
	.frees_files = false,
	.holds_objects = true,
	.create = callrcu_create,
	.destroy = callrcu_destroy,
	.run = callrcu_duty_run,
	.next_syscall = workload_next_call,
	.next_block = callrcu_next_block,
};
