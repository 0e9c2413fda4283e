/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * exitflood.c - workload exitflood: Dumazet's case for commit
 * cfcdef5e3046 ("rcu: Allow rcu_do_batch() to dynamically adjust batch
 * sizes", 5.4): a process with millions of sockets exits, and closing them
 * queues two RCU callbacks per socket on its CPU, as fast as it closes
 * them. Job 0 (on CPU 0) does workload.exitflood_at of CPU work, then
 * closes workload.exitflood_sockets sockets at
 * workload.exitflood_close_cost each in the exit path (kernel mode: no
 * tick finds it in user mode), two call_rcu() per socket, and is gone. The
 * other jobs are CPU hogs in user mode that call nothing: the rest of the
 * machine, whose waits (sched.wait_max_ns) and softirq runs
 * (softirq.run_max_ns) show what the flood costs them.
 * Left out: cond_resched() in close_files() (it reschedules only when
 * asked), the sockets' own memory.
 */
#include <math.h>
#include <stdlib.h>

#include "kernel/kernel.h"

typedef struct exitflood_wl {
	int64_t sockets;       /* to close */
	double at_work;        /* ns of work before the exit */
	double close_cost;     /* ns of work per socket */
	int phase;             /* 0 running, 1 closing, 2 gone */
	int64_t closed;        /* sockets closed */
	sim_time exit_start;   /* ns: first close began */
	sim_time exit_end;     /* ns: last close done */
} exitflood_wl;

static int exitflood_create(kworkload *w, const sim_params *p, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	exitflood_wl *x = calloc(1, sizeof(*x));
	if (!x)
		return SIM_ENOMEM;
	w->priv = x;
	x->sockets = sim_params_int(p, P_WORKLOAD_EXITFLOOD_SOCKETS);
	x->at_work = (double)sim_params_int(p, P_WORKLOAD_EXITFLOOD_AT);
	x->close_cost = (double)sim_params_int(p, P_WORKLOAD_EXITFLOOD_CLOSE_COST);
	x->exit_start = x->exit_end = -1;
	w->call_rate = 0;
	w->p_kernel = 0; /* the hogs; the exiting job says in_kernel */
	w->kstretch = x->close_cost; /* close_files(): cond_resched() after each (fs/file.c 6.12:419) */
	return 0;
}

static void exitflood_destroy(kworkload *w)
{
	free(w->priv);
	w->priv = NULL;
}

static int exitflood_job_start(kmodel *k, kcpu *c, job *j)
{
	(void)c;
	const exitflood_wl *x = j->wl->priv;
	j->next_call_work = j == &j->wl->jobs[0] ? x->at_work : INFINITY;
	return 0;
}

/* Job 0's @work ns from @t0: up to its exit, then one close after another,
 * each queueing its two callbacks at its end; gone after the last. */
static void exitflood_run(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
			  job_effect *eff)
{
	kmodel *k = c->k;
	exitflood_wl *x = j->wl->priv;
	if (j != &j->wl->jobs[0] || x->phase == 2)
		return;
	double used = 0;
	if (x->phase == 0) {
		if (j->next_call_work > work) {
			j->next_call_work -= work;
			return;
		}
		used = j->next_call_work;
		x->phase = 1;
		x->exit_start = t0 + (sim_time)(used / s);
		j->in_kernel = true;
		j->next_call_work = x->close_cost;
	}
	while (j->next_call_work <= work - used && !k->err) {
		used += j->next_call_work;
		sim_time at = t0 + (sim_time)(used / s);
		if (at > now)
			at = now;
		if (job_call_rcu(rcu_normal(c->k), c, now, at, 0, eff) || job_call_rcu(rcu_normal(c->k), c, now, at, 0, eff))
			return;
		if (++x->closed == x->sockets) {
			x->phase = 2;
			x->exit_end = at;
			j->blocked_at = at;
			j->sleeping = true; /* exited: never runs again */
			eff->slept = true;
			return;
		}
		j->next_call_work = x->close_cost;
	}
	j->next_call_work -= work - used;
}

/* Job 0 blocks for good when its last socket is closed. */
static double exitflood_next_block(const kworkload *w, const job *j)
{
	const exitflood_wl *x = w->priv;
	if (j != &w->jobs[0] || x->phase == 2)
		return INFINITY;
	double closes = (double)(x->sockets - x->closed) * x->close_cost;
	return x->phase == 0 ? j->next_call_work + closes : j->next_call_work + closes - x->close_cost;
}

static int exitflood_finish(const kmodel *k, const kworkload *w, sim_metrics *m)
{
	const exitflood_wl *x = w->priv;
	int rc = metric_scalar(m, M_EXITFLOOD_CLOSED, (double)x->closed);
	if (x->exit_start >= 0)
		rc |= metric_scalar(m, M_EXITFLOOD_EXIT_START_NS, (double)x->exit_start);
	if (x->exit_end >= 0)
		rc |= metric_scalar(m, M_EXITFLOOD_EXIT_END_NS, (double)x->exit_end);
	return rc ? SIM_ENOMEM : 0;
}

/* The knobs the exitflood workload reads (its own), with workload.kind = exitflood. */
static const sim_knob exitflood_knob[] = {
	{ P_WORKLOAD_EXITFLOOD_SOCKETS, SIM_ALWAYS },
	{ P_WORKLOAD_EXITFLOOD_AT, SIM_ALWAYS },
	{ P_WORKLOAD_EXITFLOOD_CLOSE_COST, SIM_ALWAYS },
	{ P_WORKLOAD_OBJECT_SIZE, SIM_ALWAYS },
};
static const sim_knobs exitflood_knobs = { { P_WORKLOAD_KIND, "exitflood", NULL }, exitflood_knob,
				 sizeof(exitflood_knob) / sizeof(exitflood_knob[0]) };

const workload_ops exitflood_workload = {
	.kind = "exitflood",
	.knobs = &exitflood_knobs,
	.frees_files = false,
	.holds_objects = true,
	.create = exitflood_create,
	.destroy = exitflood_destroy,
	.job_start = exitflood_job_start,
	.run = exitflood_run,
	.finish = exitflood_finish,
	.next_syscall = workload_no_syscall, /* hogs, and an exit path that returns to no user mode */
	.next_block = exitflood_next_block,
};
