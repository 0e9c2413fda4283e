/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * workload.c - the jobs on the CPUs: callrcu (CPU hogs calling call_rcu
 * from short system calls), openclose (the tight open/close loop of the
 * October 2005 reports) and make (compile jobs that open, hold and close
 * files, fail lookups, keep their processes' mapped files, and are replaced
 * by the next compile when they finish). A running job's work is applied in
 * bulk at the next accounting point (tick, interrupt, switch), each call or
 * file operation at its exact time: the calls form a Poisson process in the
 * job's own CPU time, a make job's files close after lognormal holds of its
 * CPU time (a descheduled job keeps its files open), and what they trigger
 * (need_resched, the watermark's IPIs, a sleep after a refused open) takes
 * effect at that point, at most one tick late. Left out: load balancing
 * (jobs stay on the CPU they start on).
 * Kernel sources: fs/open.c, fs/namei.c (open intents), fs/file_table.c.
 */
#include <math.h>
#include <stdlib.h>

#include "kernel_int.h"

/* call_rcu() at @at (<= now) on @c, applied at @now; its effects are
 * collected in *eff. */
static int job_queue_cb(kcpu *c, sim_time now, sim_time at, uint32_t obj, rcu_call_effect *eff)
{
	kmodel *k = c->k;
	rcu_call_effect e = { false, false };
	if (call_rcu(&k->rcu, &k->rcp, &c->rdp, at, obj, &e)) {
		kfail(k, SIM_ENOMEM);
		return -1;
	}
	k->enqueued++;
	sim_tavg_add_at(&k->qtotal, now, at, 1);
	eff->need_resched |= e.need_resched;
	eff->send_ipis |= e.send_ipis;
	return 0;
}

/* fput() -> file_free() -> call_rcu(file_free_rcu). */
static int free_file(kcpu *c, sim_time now, sim_time at, slab_obj obj, rcu_call_effect *eff)
{
	vfs_file_free(&c->k->v, c->id, obj);
	return job_queue_cb(c, now, at, obj, eff);
}

static void heap_push(job *j, open_file f)
{
	int i = j->nfiles++;
	while (i > 0 && j->files[(i - 1) / 2].close_at > f.close_at) {
		j->files[i] = j->files[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	j->files[i] = f;
}

static open_file heap_pop(job *j)
{
	open_file top = j->files[0], last = j->files[--j->nfiles];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= j->nfiles)
			break;
		if (c + 1 < j->nfiles && j->files[c + 1].close_at < j->files[c].close_at)
			c++;
		if (j->files[c].close_at >= last.close_at)
			break;
		j->files[i] = j->files[c];
		i = c;
	}
	if (j->nfiles)
		j->files[i] = last;
	return top;
}

/* Close everything job @j holds at @at (its end, or its failure). */
static int release_all(kcpu *c, job *j, sim_time now, sim_time at, rcu_call_effect *eff)
{
	kmodel *k = c->k;
	while (j->nfiles) {
		k->closes++;
		if (free_file(c, now, at, heap_pop(j).obj, eff))
			return -1;
	}
	for (int i = 0; i < j->nheld; i++) {
		k->closes++;
		if (free_file(c, now, at, j->held[i], eff))
			return -1;
	}
	j->nheld = 0;
	return 0;
}

/* The work of one compile: lognormal about the mean, or the mean itself. */
double job_compile_work(kcpu *c)
{
	const kmodel *k = c->k;
	return k->work_sigma > 0 ? sim_rng_lognormal(c->rng_work, k->work_zeta, k->work_sigma)
				 : k->job_work;
}

/* The next compile takes the job's place (its task and timeslice). */
static void next_compile(kcpu *c, job *j)
{
	j->done_work = 0;
	j->work = job_compile_work(c);
	j->started = false;
	j->retries = 0;
	j->next_call_work = sim_rng_exponential(c->rng_work, 1.0 / c->k->call_rate);
}


/* An open refused at file-max at @at: the job fails, or sleeps
 * retry_delay and tries again. Returns true if the job stops running. */
static bool enfile(kcpu *c, job *j, sim_time now, sim_time at, rcu_call_effect *eff)
{
	kmodel *k = c->k;
	bool retry = k->on_enfile == 1 || (k->on_enfile == 2 && j->retries < k->retry_max);
	if (!retry) {
		/* The command fails: its processes exit, make starts another. */
		k->jobs_failed++;
		if (release_all(c, j, now, at, eff))
			return true;
		next_compile(c, j);
		return false;
	}
	k->retries++;
	j->retries++;
	j->sleeping = true;
	sched_sleep(&c->rq, &j->task, now);
	c->need_resched = true;
	if (sim_timer_at(k->eng, &j->wake, now + k->retry_delay))
		kfail(k, SIM_ENOMEM);
	return true;
}

/* get_empty_filp() for job @j at @at into *@obj. Returns true if no file
 * was had; *@stopped then says whether the job stopped running (out of
 * memory, or asleep to retry a refusal) or goes on (the refused compile
 * failed and the next one took its place). */
static bool no_filp(kcpu *c, job *j, sim_time now, sim_time at, rcu_call_effect *eff,
		    slab_obj *obj, bool *stopped)
{
	int rc = vfs_get_empty_filp(&c->k->v, c->id, at, obj);
	if (rc < 0) {
		kfail(c->k, SIM_ENOMEM);
		*stopped = true;
	} else if (rc > 0) {
		*stopped = enfile(c, j, now, at, eff);
	}
	return rc != 0;
}

/* One open attempt of a file workload at @at. Returns true if the job
 * stopped (sleeps to retry). */
static bool open_attempt(kcpu *c, job *j, sim_time now, sim_time at, rcu_call_effect *eff)
{
	kmodel *k = c->k;
	slab_obj obj;
	bool stopped;
	if (no_filp(c, j, now, at, eff, &obj, &stopped))
		return stopped;
	j->retries = 0;
	if (k->kind == WL_OPENCLOSE) {
		/* open() then close() at once. */
		k->opens++;
		k->closes++;
		free_file(c, now, at, obj, eff);
		return false;
	}
	if (sim_rng_uniform(c->rng_work) < k->fail_share) {
		/* The lookup failed after get_empty_filp(): release_open_intent ->
		 * put_filp -> file_free -> call_rcu. */
		k->enoent++;
		free_file(c, now, at, obj, eff);
		return false;
	}
	k->opens++;
	if (j->nfiles == j->capfiles) {
		int cap = j->capfiles ? j->capfiles * 2 : 16;
		open_file *nf = realloc(j->files, (size_t)cap * sizeof(*nf));
		if (!nf) {
			kfail(k, SIM_ENOMEM);
			return true;
		}
		j->files = nf;
		j->capfiles = cap;
	}
	double hold = sim_rng_lognormal(c->rng_work, k->hold_zeta, k->hold_sigma);
	heap_push(j, (open_file){ j->done_work + hold, obj });
	return false;
}

/* A compile starts: its processes map their files. Returns true if it
 * stopped (sleeps to retry). */
static bool job_start(kcpu *c, job *j, sim_time now, sim_time at, rcu_call_effect *eff)
{
	kmodel *k = c->k;
	while (j->nheld < k->held_per_job) {
		slab_obj obj;
		bool stopped;
		if (no_filp(c, j, now, at, eff, &obj, &stopped))
			return stopped;
		k->opens++;
		j->held[j->nheld++] = obj;
	}
	j->started = true;
	j->retries = 0;
	return false;
}

/* Run a make job for @work ns of work from @t0 at speed @s (work per ns). */
static void make_progress(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
			  rcu_call_effect *eff)
{
	kmodel *k = c->k;
	double used = 0;
	while (!k->err) {
		sim_time at = t0 + (sim_time)(used / s);
		if (!j->started && job_start(c, j, now, at, eff))
			return;
		double to_open = j->next_call_work;
		double to_end = j->work - j->done_work;
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
		at = t0 + (sim_time)(used / s);
		if (step == to_close) {
			k->closes++;
			free_file(c, now, at, heap_pop(j).obj, eff);
		} else if (step == to_open) {
			j->next_call_work = sim_rng_exponential(c->rng_work, 1.0 / k->call_rate);
			if (open_attempt(c, j, now, at, eff)) {
				j->next_call_work = 0; /* the refused open is tried again first */
				return;
			}
		} else {
			k->jobs_done++;
			if (release_all(c, j, now, at, eff))
				return;
			next_compile(c, j);
		}
	}
}

/* The running job's work since seg_start, applied now: its call_rcu calls
 * or file operations, each at its own time. */
void job_account(kcpu *c, sim_time now)
{
	kmodel *k = c->k;
	sched_task *p = c->rq.curr;
	if (!is_job(c, p) || now <= c->seg_start) {
		if (now > c->seg_start)
			c->seg_start = now;
		return;
	}
	job *j = p->owner;
	double s = speed(c);
	double work = (double)(now - c->seg_start) * s, used = 0;
	rcu_call_effect eff = { false, false };
	if (k->kind == WL_MAKE) {
		make_progress(c, j, now, c->seg_start, work, s, &eff);
	} else if (k->call_rate > 0) {
		while (j->next_call_work <= work - used && !k->err) {
			used += j->next_call_work;
			sim_time at = c->seg_start + (sim_time)(used / s);
			j->next_call_work = sim_rng_exponential(c->rng_work, 1.0 / k->call_rate);
			if (k->kind == WL_CALLRCU ? job_queue_cb(c, now, at, 0, &eff) != 0
						  : open_attempt(c, j, now, at, &eff)) {
				j->next_call_work = 0; /* a refused open is tried again first */
				used = work;
				break;
			}
		}
		j->next_call_work -= work - used;
	}
	c->seg_start = now;
	if (eff.need_resched)
		c->need_resched = true;
	if (eff.send_ipis)
		kcpu_send_ipis(c, now);
}

/* A job's retry sleep is over: it is runnable again. */
void job_wake_fire(sim_engine *eng, sim_timer *tm)
{
	job *j = tm->ctx;
	kcpu *c = j->cpu;
	sim_time now = sim_now(eng);
	j->sleeping = false;
	kcpu_settle_now(c);
	if (!sched_wake(&c->k->sched, &c->rq, &j->task, now))
		return;
	if (c->in_softirq) {
		c->need_resched = true;
	} else {
		job_account(c, now);
		kcpu_schedule(c, now);
	}
}
