/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fwdprog.c - workload fwdprog: rcutorture's forward-progress callback
 * flood (rcu_torture_fwd_prog_cr(), kernel/rcu/rcutorture.c, 6.12). Job 0,
 * on CPU 0, is the flooding kthread (kernel mode: no tick finds it in user
 * mode); for at most workload.fwdprog_duration (MAX_FWD_CB_JIFFIES, 8 s) it
 * loops at workload.fwdprog_call_cost a turn, posting with call_rcu() the
 * oldest of its callbacks already invoked ("laundering" it, one more grace
 * period through) or, when none is, a newly allocated one. It stops early,
 * and the test passes, once MIN_FWD_CBS_LAUNDERED (100) callbacks have each
 * been posted again MIN_FWD_CB_LAUNDERS (3) times; otherwise it fails. The
 * other jobs are user-mode CPU hogs that call nothing.
 * The flooder stops at the turn that passes or runs out of time; it
 * leaves the CPU at its next accounting point (a tick at most later).
 * Left out: the final rcu_barrier(), the per-0.1 s histogram, and
 * cond_resched() in the loop (it reschedules only when asked).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "kernel/kernel.h"

#define FWD_MIN_CBS_LAUNDERED 100 /* MIN_FWD_CBS_LAUNDERED */
#define FWD_MIN_LAUNDERS 3        /* MIN_FWD_CB_LAUNDERS */

typedef struct fwdprog_wl {
	sim_time duration;     /* ns the flood lasts at most */
	double turn;           /* ns of work a turn */
	uint8_t *launders;     /* per callback: times posted again (saturating) */
	uint32_t *ready;       /* invoked callbacks, oldest first (ring) */
	uint64_t ready_head, ready_tail, cap; /* ring indices, capacity (power of two) */
	uint64_t ncbs;         /* callbacks allocated */
	uint64_t nlaunders;    /* posts of invoked callbacks */
	uint64_t n_done;       /* callbacks laundered FWD_MIN_LAUNDERS times */
	sim_time start, pass;  /* ns: the flood's start, when it passed (-1: not) */
	bool over;             /* the flood ended */
} fwdprog_wl;

static int fwdprog_create(kworkload *w, const sim_params *p, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	fwdprog_wl *f = calloc(1, sizeof(*f));
	if (!f)
		return SIM_ENOMEM;
	w->priv = f;
	f->duration = sim_params_int(p, P_WORKLOAD_FWDPROG_DURATION);
	f->turn = (double)sim_params_int(p, P_WORKLOAD_FWDPROG_CALL_COST);
	f->start = -1;
	f->pass = -1;
	w->call_rate = 0;
	w->p_kernel = 0; /* the hogs; the flooder says in_kernel */
	w->kstretch = f->turn; /* a cond_resched() each turn of its loop */
	return 0;
}

static void fwdprog_destroy(kworkload *w)
{
	fwdprog_wl *f = w->priv;
	if (f) {
		free(f->launders);
		free(f->ready);
		free(f);
	}
	w->priv = NULL;
}

static int fwdprog_job_start(kmodel *k, kcpu *c, job *j)
{
	(void)c;
	const fwdprog_wl *f = j->wl->priv;
	if (j == &j->wl->jobs[0]) {
		j->in_kernel = true;
		j->next_call_work = f->turn;
	} else {
		j->next_call_work = INFINITY;
	}
	return 0;
}

/* Room for callback @n's launder count and for every allocated callback
 * in the ready ring. 0 or -1. */
static int grow(fwdprog_wl *f)
{
	if (f->ncbs < f->cap)
		return 0;
	uint64_t cap = f->cap ? 2 * f->cap : 1024;
	uint8_t *l = realloc(f->launders, cap);
	if (!l)
		return -1;
	f->launders = l;
	uint32_t *r = malloc(cap * sizeof(*r));
	if (!r)
		return -1;
	for (uint64_t i = f->ready_head; i < f->ready_tail; i++)
		r[i & (cap - 1)] = f->ready[i & (f->cap - 1)];
	free(f->ready);
	f->ready = r;
	f->cap = cap;
	return 0;
}

/* The flood ends at @at (passed or out of time): the kthread sleeps. */
static void end_flood(job *j, fwdprog_wl *f, sim_time at, job_effect *eff)
{
	f->over = true;
	j->blocked_at = at;
	j->sleeping = true;
	eff->slept = true;
}

static void fwdprog_run(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
			job_effect *eff)
{
	kmodel *k = c->k;
	fwdprog_wl *f = j->wl->priv;
	if (j != &j->wl->jobs[0] || f->over)
		return;
	if (f->start < 0)
		f->start = t0;
	double used = 0;
	while (j->next_call_work <= work - used && !k->err) {
		used += j->next_call_work;
		sim_time at = t0 + (sim_time)(used / s);
		if (at > now)
			at = now;
		if (at - f->start >= f->duration) {
			end_flood(j, f, f->start + f->duration, eff);
			return;
		}
		uint32_t cb;
		if (f->ready_head < f->ready_tail) {
			cb = f->ready[f->ready_head++ & (f->cap - 1)];
			f->nlaunders++;
			if (f->launders[cb] < UINT8_MAX && ++f->launders[cb] == FWD_MIN_LAUNDERS)
				f->n_done++;
		} else {
			if (f->ncbs >= UINT32_MAX || grow(f)) {
				kfail(k, SIM_ENOMEM);
				return;
			}
			cb = (uint32_t)f->ncbs++;
			f->launders[cb] = 0;
		}
		if (job_call_rcu(rcu_normal(c->k), c, now, at, cb, eff))
			return;
		j->next_call_work = f->turn;
		if (f->n_done >= FWD_MIN_CBS_LAUNDERED) {
			f->pass = at;
			end_flood(j, f, at, eff);
			return;
		}
	}
	j->next_call_work -= work - used;
}

/* rcu_torture_fwd_cb_cr(): an invoked callback goes back on the flooder's
 * list, to be posted again. */
static void fwdprog_invoke(void *ctx, int cpu, const uint32_t *objs, size_t n, sim_time first_ns,
			   sim_time cost_ns)
{
	const kworkload *w = ctx;
	fwdprog_wl *f = w->priv;
	(void)cpu;
	(void)first_ns;
	(void)cost_ns;
	for (size_t i = 0; i < n; i++)
		f->ready[f->ready_tail++ & (f->cap - 1)] = objs[i];
}

static int fwdprog_finish(const kmodel *k, const kworkload *w, sim_metrics *m)
{
	const fwdprog_wl *f = w->priv;
	int rc = metric_scalar(m, M_FWDPROG_CBS_ALLOCATED, (double)f->ncbs);
	rc |= metric_scalar(m, M_FWDPROG_LAUNDERS, (double)f->nlaunders);
	rc |= metric_scalar(m, M_FWDPROG_PASSED, f->pass >= 0 ? 1 : 0);
	if (f->pass >= 0)
		rc |= metric_scalar(m, M_FWDPROG_PASS_NS, (double)(f->pass - f->start));
	return rc ? SIM_ENOMEM : 0;
}

/* The knobs the fwdprog workload reads (its own), with workload.kind = fwdprog. */
static const sim_knob fwdprog_knob[] = {
	{ P_WORKLOAD_FWDPROG_DURATION, SIM_ALWAYS },
	{ P_WORKLOAD_FWDPROG_CALL_COST, SIM_ALWAYS },
	{ P_WORKLOAD_OBJECT_SIZE, SIM_ALWAYS },
};
static const sim_knobs fwdprog_knobs = { { P_WORKLOAD_KIND, "fwdprog", NULL }, fwdprog_knob,
				 sizeof(fwdprog_knob) / sizeof(fwdprog_knob[0]) };

const workload_ops fwdprog_workload = {
	.kind = "fwdprog",
	.knobs = &fwdprog_knobs,
	.frees_files = false,
	.holds_objects = true,
	.create = fwdprog_create,
	.destroy = fwdprog_destroy,
	.job_start = fwdprog_job_start,
	.run = fwdprog_run,
	.finish = fwdprog_finish,
	.next_syscall = workload_no_syscall, /* hogs, and a kthread */
	.invoke = fwdprog_invoke,
	.hurry = true, /* rcu_ops.call = call_rcu_hurry (kernel/rcu/rcutorture.c 6.12:571) */
};
