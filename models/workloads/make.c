/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * make.c - workload make: make -jN compile jobs that open, hold and
 * close files, fail lookups, keep their processes' mapped files, and are
 * replaced by the next compile when they finish. A running job's work is
 * applied in bulk at the next accounting point (tick, interrupt, switch),
 * each file operation at its exact time: opens form a Poisson process in
 * the job's own CPU time, files close after lognormal holds of its CPU time
 * (a descheduled job keeps its files open), and a compile's work is
 * lognormal about its mean. Parameters measured from traced builds
 * (workload.make_* in `rcusim params`). Left out: load balancing (jobs stay
 * on the CPU they start on).
 * Kernel sources: fs/open.c, fs/namei.c (open intents), fs/file_table.c.
 * A load, not kernel code; the kernel paths it exercises are the
 * flavor's and fs/'s, each of its version.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fs/files.h"
#include "kernel/kernel.h"

/* make's settings and counters (kworkload.priv). */
typedef struct make_wl {
	double job_work;        /* mean ns of work per compile */
	double work_zeta, work_sigma; /* lognormal compile work (sigma 0: all job_work) */
	double fail_share;      /* open attempts that fail (ENOENT) */
	double hold_zeta, hold_sigma; /* lognormal hold time (ns of job work) */
	double open_gap;        /* mean ns of work between two open attempts, 1 / call_rate
				 * (divided once: a division per attempt sat on the step loop's path) */
	int held_per_job;       /* files held through mappings */
	uint64_t enoent;        /* failed lookups */
	uint64_t jobs_done;     /* compiles finished */
} make_wl;

static void make_destroy(kworkload *w)
{
	free(w->priv);
	w->priv = NULL;
}

static int make_create(kworkload *w, const sim_params *p, char *err, size_t errlen)
{
	make_wl *mk = calloc(1, sizeof(*mk));
	if (!(w->priv = mk))
		return SIM_ENOMEM;
	char a[512];
	mk->job_work = (double)sim_params_int(p, P_WORKLOAD_MAKE_JOB_CPU);
	/* Lognormal with mean job_work: zeta = ln(mean) - sigma^2 / 2. */
	mk->work_sigma = sim_params_real(p, P_WORKLOAD_MAKE_JOB_CPU_SIGMA);
	mk->work_zeta = log(mk->job_work) - mk->work_sigma * mk->work_sigma / 2.0;
	mk->held_per_job = (int)llround(sim_params_real(p, P_WORKLOAD_MAKE_LIVE_PROCS) *
					(double)sim_params_int(p, P_WORKLOAD_MAKE_MAPPED_FILES));
	int64_t transient = sim_params_int(p, P_WORKLOAD_MAKE_OPENS_PER_JOB) - mk->held_per_job;
	if (transient < 0) {
		sim_params_where(p, P_WORKLOAD_MAKE_OPENS_PER_JOB, a, sizeof(a));
		snprintf(err, errlen, "%s: must be at least make_live_procs x make_mapped_files (%d), got %s",
			 a, mk->held_per_job, sim_params_text(p, P_WORKLOAD_MAKE_OPENS_PER_JOB));
		return SIM_EINPUT;
	}
	w->call_rate = (double)transient / mk->job_work;
	mk->open_gap = 1.0 / w->call_rate;
	w->p_kernel = sim_params_real(p, P_WORKLOAD_MAKE_SYSTEM_SHARE);
	w->kstretch = w->p_kernel / w->call_rate; /* the kernel time between two opens, as one */
	mk->fail_share = sim_params_real(p, P_WORKLOAD_MAKE_OPEN_FAIL_SHARE);
	double med = (double)sim_params_int(p, P_WORKLOAD_MAKE_HOLD_MEDIAN);
	double mean = (double)sim_params_int(p, P_WORKLOAD_MAKE_HOLD_MEAN);
	if (mean < med) {
		sim_params_where(p, P_WORKLOAD_MAKE_HOLD_MEAN, a, sizeof(a));
		snprintf(err, errlen, "%s: a lognormal's mean is at least its median (%s), got %s", a,
			 sim_params_text(p, P_WORKLOAD_MAKE_HOLD_MEDIAN),
			 sim_params_text(p, P_WORKLOAD_MAKE_HOLD_MEAN));
		return SIM_EINPUT;
	}
	/* Lognormal: median e^zeta, mean e^(zeta + sigma^2 / 2). */
	mk->hold_zeta = log(med);
	mk->hold_sigma = sqrt(2.0 * log(mean / med));
	return 0;
}

/* The work of one compile: lognormal about the mean, or the mean itself. */
static double compile_work(kcpu *c, const make_wl *mk)
{
	return mk->work_sigma > 0 ? sim_rng_lognormal(c->rng_work, mk->work_zeta, mk->work_sigma)
				  : mk->job_work;
}

static int make_job_start(kmodel *k, kcpu *c, job *j)
{
	const make_wl *mk = j->wl->priv;
	if (mk->held_per_job && !(j->held = malloc((size_t)mk->held_per_job * sizeof(*j->held))))
		return SIM_ENOMEM;
	j->unit_work = compile_work(c, mk);
	return 0;
}

/* The next compile takes the job's place (its task and timeslice). */
static void next_compile(kcpu *c, job *j)
{
	j->done_work = 0;
	j->unit_work = compile_work(c, j->wl->priv);
	j->started = false;
	job_refusals_end(j);
	j->next_call_work = sim_rng_exponential(c->rng_work, ((const make_wl *)j->wl->priv)->open_gap);
}

/* A compile refused at file-max fails: its processes exit, make starts
 * another. */
static int make_unit_failed(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff)
{
	if (job_close_all(c, j, now, at, eff))
		return SIM_ENOMEM;
	next_compile(c, j);
	return 0;
}

/* One open attempt at @at. Returns true if the job stopped (asleep to
 * retry, or out of memory). */
static bool open_attempt(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff)
{
	kmodel *k = c->k;
	make_wl *mk = j->wl->priv;
	slab_obj obj;
	bool stopped;
	if (job_open_filp(c, j, now, at, eff, &obj, &stopped))
		return stopped;
	job_refusals_end(j);
	if (sim_rng_uniform(c->rng_work) < mk->fail_share) {
		/* The lookup failed after get_empty_filp(): release_open_intent ->
		 * put_filp -> file_free -> call_rcu. */
		mk->enoent++;
		job_put_filp(c, now, at, obj, eff);
		return false;
	}
	job_opened(c);
	if (!j->files_order || j->nfiles == (int64_t)8 << j->files_order) {
		size_t cap = (size_t)16 << j->files_order; /* 16, then twice the room */
		open_file *nf = realloc(j->files, cap * sizeof(*nf));
		if (!nf) {
			kfail(k, SIM_ENOMEM);
			return true;
		}
		j->files = nf;
		j->files_order++;
	}
	double hold = sim_rng_lognormal(c->rng_work, mk->hold_zeta, mk->hold_sigma);
	job_files_push(j, (open_file){ j->done_work + hold, obj });
	return false;
}

/* A compile starts: its processes map their files. Returns true if it
 * stopped (asleep to retry, or out of memory). */
static bool compile_start(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff)
{
	const make_wl *mk = j->wl->priv;
	while (j->nheld < mk->held_per_job) {
		slab_obj obj;
		bool stopped;
		if (job_open_filp(c, j, now, at, eff, &obj, &stopped))
			return stopped;
		job_opened(c);
		j->held[j->nheld++] = obj;
	}
	j->started = true;
	job_refusals_end(j);
	return false;
}

/* Run a make job for @work ns of work from @t0 at speed @s (work per ns):
 * whichever of its next open, its next close and the compile's end comes
 * first, until the work is used. */
static void make_run(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
		     job_effect *eff)
{
	kmodel *k = c->k;
	make_wl *mk = j->wl->priv;
	double used = 0;
	while (!k->err) {
		/* The time of a compile's start only where one starts (a division
		 * and a conversion the loop's other iterations need not wait on). */
		if (__builtin_expect(!j->started, 0) &&
		    compile_start(c, j, now, t0 + (sim_time)(used / s), eff))
			return;
		double to_open = j->next_call_work;
		double to_end = j->unit_work - j->done_work;
		double to_close = j->nfiles ? j->files[0].close_at - j->done_work : INFINITY;
		/* The earliest of the three (none is NaN; fmin() is a call). */
		double step = to_end < to_close ? to_end : to_close;
		if (to_open < step)
			step = to_open;
		if (step < 0)
			step = 0;
		if (step > work - used) {
			j->done_work += work - used;
			j->next_call_work -= work - used;
			return;
		}
		used += step;
		j->done_work += step;
		j->next_call_work -= step;
		sim_time at = t0 + (sim_time)(used / s);
		if (step == to_close) {
			job_close(c, now, at, job_files_pop(j).obj, eff);
		} else if (step == to_open) {
			j->next_call_work = sim_rng_exponential(c->rng_work, mk->open_gap);
			if (open_attempt(c, j, now, at, eff)) {
				j->next_call_work = 0; /* the refused open is tried again first */
				return;
			}
		} else {
			mk->jobs_done++;
			if (job_close_all(c, j, now, at, eff))
				return;
			next_compile(c, j);
		}
	}
}

/* Its next open, close or exit (the compile's end), whichever comes
 * first; at once if the compile has not mapped its files yet. */
static double make_next_syscall(const kworkload *w, const job *j)
{
	(void)w;
	if (!j->started)
		return 0;
	double next = j->unit_work - j->done_work;
	if (j->nfiles && j->files[0].close_at - j->done_work < next)
		next = j->files[0].close_at - j->done_work;
	if (j->next_call_work < next)
		next = j->next_call_work;
	return next > 0 ? next : 0;
}

static int make_finish(const kmodel *k, const kworkload *w, sim_metrics *m)
{
	const make_wl *mk = w->priv;
	int rc = metric_scalar(m, M_VFS_ENOENT, (double)mk->enoent);
	rc |= metric_scalar(m, M_MAKE_JOBS_DONE, (double)mk->jobs_done);
	rc |= metric_scalar(m, M_MAKE_JOBS_FAILED, (double)w->jobs_failed);
	return rc ? SIM_ENOMEM : 0;
}

/* The knobs the make workload reads (its own, and the refused-open knobs kernel.c reads for the kinds that open files), with workload.kind = make. */
static const sim_knob make_knob[] = {
	{ P_WORKLOAD_MAKE_JOB_CPU, SIM_ALWAYS },
	{ P_WORKLOAD_MAKE_JOB_CPU_SIGMA, SIM_ALWAYS },
	{ P_WORKLOAD_MAKE_SYSTEM_SHARE, SIM_ALWAYS },
	{ P_WORKLOAD_MAKE_OPENS_PER_JOB, SIM_ALWAYS },
	{ P_WORKLOAD_MAKE_OPEN_FAIL_SHARE, SIM_ALWAYS },
	{ P_WORKLOAD_MAKE_HOLD_MEDIAN, SIM_ALWAYS },
	{ P_WORKLOAD_MAKE_HOLD_MEAN, SIM_ALWAYS },
	{ P_WORKLOAD_MAKE_MAPPED_FILES, SIM_ALWAYS },
	{ P_WORKLOAD_MAKE_LIVE_PROCS, SIM_ALWAYS },
	{ P_WORKLOAD_ON_ENFILE, SIM_ALWAYS },
	{ P_WORKLOAD_RETRY_DELAY, SIM_ALWAYS },
	{ P_WORKLOAD_RETRY_MAX, SIM_ALWAYS },
};
static const sim_knobs make_knobs = { { P_WORKLOAD_KIND, "make", NULL }, make_knob,
				 sizeof(make_knob) / sizeof(make_knob[0]) };

const workload_ops make_workload = {
	.kind = "make",
	.knobs = &make_knobs,
	.frees_files = true,
	.create = make_create,
	.destroy = make_destroy,
	.job_start = make_job_start,
	.run = make_run,
	.unit_failed = make_unit_failed,
	.finish = make_finish,
	.next_syscall = make_next_syscall,
};
