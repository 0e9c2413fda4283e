/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * files.h - what the workloads that open files share (files.c): opening
 * through get_empty_filp() with the refusal at file-max handled as
 * workload.on_enfile says, fput() -> file_free() -> call_rcu(), closing all
 * a job holds, and a job's open files as a min-heap on their close times.
 * Follows fs/file_table.c of 2.6.15-2.6.16 (get_empty_filp(), fput(),
 * file_free()).
 */
#ifndef RCUSIM_MODELS_FILES_H
#define RCUSIM_MODELS_FILES_H

#include <stdbool.h>

#include "kernel/kernel.h"

/* ---- fs/files.c: the file table's part ---- */

/* Build the file table and filp slab (k->files.on) and arm each CPU's
 * cache_reap. 0, SIM_EINPUT (message) or SIM_ENOMEM. */
int kfiles_create(kmodel *k, const sim_params *p, char *err, size_t errlen);
/* The knobs it reads, with a workload that opens files (params.h). */
extern const sim_knobs kfiles_knobs;
void kfiles_destroy(kmodel *k);
/* Arm CPU @c's first cache_reap. 0 or SIM_ENOMEM. */
int kfiles_start_cpu(kmodel *k, kcpu *c);
/* Its series at @now (machine-wide queued callbacks @qsum). 0, SIM_ENOMEM
 * or SIM_ECHECK (an accounting invariant failed). */
int kfiles_sample(kmodel *k, sim_time now, int64_t qsum, char *err, size_t errlen);
/* Its scalars. 0 or SIM_ENOMEM. */
int kfiles_finish(kmodel *k, sim_metrics *m);
/* vfs.opens == vfs.closes + vfs.open_end, as many files wait for their
 * grace period as callbacks are queued (@pending), and the filp slab has as
 * many objects handed out as files live and waiting; else SIM_ECHECK. */
int kfiles_check(const kmodel *k, uint64_t pending, char *err, size_t errlen);
/* The callbacks' function: file_free_rcu() -> kmem_cache_free() on @cpu,
 * for each of @objs. */
void file_free_rcu(void *k, int cpu, const uint32_t *objs, size_t n, sim_time first_ns,
		   sim_time cost_ns);

/* ---- what the workloads that open files share ---- */

/* An open refused at file-max at @at: the unit fails, or the job sleeps
 * retry_delay and tries again. Returns true if the job stops running. */
bool job_enfile(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff);
/* Close every file job @j holds, open or mapped, at @at (its unit ended or
 * failed). 0 or -1 (kfail() called). */
int job_close_all(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff);

/* The helpers below run once per file: inline. */

/* An open succeeded, or the job's unit ended: its refusals in a row end.
 * Reads only the flag in the job's first lines, not the count after them. */
static inline void job_refusals_end(job *j)
{
	if (__builtin_expect(j->refused, 0)) {
		j->refused = false;
		j->retries = 0;
	}
}

/* get_empty_filp() for job @j at @at into *@obj. Returns true if no file
 * was had; *@stopped then says whether the job stopped running (out of
 * memory, or asleep to retry a refusal) or goes on (the refused unit
 * failed and the next one took its place). */
static inline bool job_open_filp(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff,
				 slab_obj *obj, bool *stopped)
{
	int rc = vfs_get_empty_filp(&c->k->files.v, c->id, at, obj);
	if (rc < 0) {
		kfail(c->k, SIM_ENOMEM);
		*stopped = true;
	} else if (rc > 0) {
		*stopped = job_enfile(c, j, now, at, eff);
	}
	return rc != 0;
}

/* put_filp() of @obj at @at, a file that was never opened (a failed
 * lookup): file_free() then call_rcu(file_free_rcu). 0 or -1 (kfail()
 * called). */
static inline int job_put_filp(kcpu *c, sim_time now, sim_time at, slab_obj obj, job_effect *eff)
{
	vfs_file_free(&c->k->files.v, c->id);
	return job_call_rcu(rcu_normal(c->k), c, now, at, obj, eff);
}

/* close() of @obj at @at: the close counted, then as job_put_filp(). */
static inline int job_close(kcpu *c, sim_time now, sim_time at, slab_obj obj, job_effect *eff)
{
	c->k->files.closes++;
	return job_put_filp(c, now, at, obj, eff);
}

/* An open that succeeded: counted in vfs.opens. */
static inline void job_opened(kcpu *c)
{
	c->k->files.opens++;
}

/* Push @f onto @j's open files (room must be there). */
static inline void job_files_push(job *j, open_file f)
{
	int i = j->nfiles++;
	while (i > 0 && j->files[(i - 1) / 2].close_at > f.close_at) {
		j->files[i] = j->files[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	j->files[i] = f;
}

/* Pop the open file of @j that closes first (there must be one). */
static inline open_file job_files_pop(job *j)
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

#endif
