/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * files.c - the kernel model's file table part: the file table and filp
 * slab (file_table.c, mm/slab.c) built from the parameters, cache_reap per CPU, the
 * callbacks' function (file_free_rcu), its series and scalars; and what
 * the workloads that open files share (files.h): get_empty_filp() with the
 * refusal at file-max handled as workload.on_enfile says, put_filp()/fput()
 * -> file_free() -> call_rcu(), closing everything a job holds.
 * Kernel sources: fs/file_table.c, fs/open.c, fs/namei.c (open intents),
 * mm/slab.c of 2.6.14-2.6.16.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fs/files.h"

/* cache_reap() for this CPU's array, and the node's part when due. Runs
 * from a workqueue; its CPU time is left out. */
static void cache_reap_timer(sim_engine *eng, sim_timer *tm)
{
	kcpu *c = tm->ctx;
	kfiles *f = &c->k->files;
	sim_time now = sim_now(eng);
	bool node_due = now >= f->next_node_reap;
	if (node_due)
		f->next_node_reap = now + f->reap_node_ns;
	cache_reap(&f->v.filp, c->id, node_due);
	if (sim_timer_after(eng, tm, f->reap_ns))
		kfail(c->k, SIM_ENOMEM);
}

/* The knobs the file table and the filp slab read, with a workload whose
 * callbacks free files (workload_ops.frees_files: make, openclose). */
static const sim_knob kfiles_knob[] = {
	{ P_MACHINE_MEMORY, SIM_ALWAYS },
	{ P_MACHINE_PAGE_SIZE, SIM_ALWAYS },
	{ P_VFS_MAX_FILES, SIM_ALWAYS },
	{ P_VFS_ACCOUNTING, SIM_ALWAYS },
	{ P_VFS_PERCPU_BATCH, SIM_ALWAYS },
	{ P_VFS_FILE_SIZE, SIM_ALWAYS },
	{ P_VFS_SLAB_MGMT, SIM_ALWAYS },
	{ P_VFS_SLAB_BUFCTL, SIM_ALWAYS },
	{ P_VFS_ARRAY_LIMIT, SIM_ALWAYS },
	{ P_VFS_ARRAY_BATCHCOUNT, SIM_ALWAYS },
	{ P_VFS_SHARED_FACTOR, SIM_ALWAYS },
	{ P_VFS_REAP_INTERVAL, SIM_ALWAYS },
	{ P_VFS_REAP_NODE_INTERVAL, SIM_ALWAYS },
};
const sim_knobs kfiles_knobs = {
	{ P_WORKLOAD_KIND, "make|openclose|trace", "a workload that opens files (make, openclose, trace of an strace log)" },
	kfiles_knob, sizeof(kfiles_knob) / sizeof(kfiles_knob[0])
};

int kfiles_create(kmodel *k, const sim_params *p, char *err, size_t errlen)
{
	kfiles *f = &k->files;
	f->reap_ns = sim_params_int(p, P_VFS_REAP_INTERVAL);
	f->reap_node_ns = sim_params_int(p, P_VFS_REAP_NODE_INTERVAL);
	if (!f->on)
		return 0;
	int ncpus = k->mach.ncpus;
	int64_t mem = sim_params_int(p, P_MACHINE_MEMORY), page = sim_params_int(p, P_MACHINE_PAGE_SIZE);
	int64_t max_files = sim_params_is_auto(p, P_VFS_MAX_FILES) ? vfs_default_max_files(mem, page)
								   : sim_params_int(p, P_VFS_MAX_FILES);
	int64_t batch = ncpus >= 16 ? 2 * ncpus : 4 * ncpus;
	if (!sim_params_is_auto(p, P_VFS_PERCPU_BATCH))
		batch = sim_params_int(p, P_VFS_PERCPU_BATCH);
	slab_cfg sc = {
		.obj_size = sim_params_int(p, P_VFS_FILE_SIZE),
		.page_size = page,
		.mgmt = sim_params_int(p, P_VFS_SLAB_MGMT),
		.bufctl = sim_params_int(p, P_VFS_SLAB_BUFCTL),
		.ncpus = ncpus,
		.limit = sim_params_is_auto(p, P_VFS_ARRAY_LIMIT) ? 0 : (int)sim_params_int(p, P_VFS_ARRAY_LIMIT),
		.batchcount = sim_params_is_auto(p, P_VFS_ARRAY_BATCHCOUNT)
				      ? 0
				      : (int)sim_params_int(p, P_VFS_ARRAY_BATCHCOUNT),
		.shared_factor = (int)sim_params_int(p, P_VFS_SHARED_FACTOR),
	};
	if (slab_estimate(&sc) < 1) {
		char a[512];
		sim_params_where(p, P_VFS_FILE_SIZE, a, sizeof(a));
		snprintf(err, errlen, "%s: no object of %s fits a %s slab with its descriptor", a,
			 sim_params_text(p, P_VFS_FILE_SIZE), sim_params_text(p, P_MACHINE_PAGE_SIZE));
		return SIM_EINPUT;
	}
	if (vfs_init(&f->v, (vfs_accounting)sim_params_int(p, P_VFS_ACCOUNTING), max_files, &sc, batch))
		return SIM_ENOMEM; /* kfiles_destroy() frees what was made */
	f->next_node_reap = f->reap_node_ns;
	return 0;
}

void kfiles_destroy(kmodel *k)
{
	if (k->files.on)
		vfs_fini(&k->files.v);
}

int kfiles_start_cpu(kmodel *k, kcpu *c)
{
	sim_timer_init(k->eng, &c->reap, cache_reap_timer, c);
	/* cache_reap starts HZ + 3 x cpu jiffies after boot (start_cpu_timer). */
	if (k->files.on && sim_timer_at(k->eng, &c->reap, SIM_NS_PER_S + 3 * c->id * k->mach.tick_ns))
		return SIM_ENOMEM;
	return 0;
}

void file_free_rcu(void *ctx, int cpu, const uint32_t *objs, size_t n, sim_time first_ns,
		   sim_time cost_ns)
{
	kmodel *k = ctx;
	(void)first_ns;
	(void)cost_ns;
	for (size_t i = 0; i < n; i++)
		vfs_file_free_rcu(&k->files.v, cpu, objs[i]);
}

int kfiles_sample(kmodel *k, sim_time now, int64_t qsum, char *err, size_t errlen)
{
	kfiles *f = &k->files;
	sim_metrics *m = k->h.m;
	const slab_cache *sc = &f->v.filp;
	sim_series *s;
	int64_t pinned = slab_pinned_free(sc), slots = slab_total_slots(sc);
	if (slots && (f->frag_max_den == 0 ||
		      (__int128)pinned * f->frag_max_den > (__int128)f->frag_max_num * slots)) {
		f->frag_max_num = pinned;
		f->frag_max_den = slots;
	}
	if (!(s = metric_series(m, M_VFS_NR_FILES, -1)) ||
	    sim_series_append(s, now, (double)vfs_nr_files(&f->v)) ||
	    !(s = metric_series(m, M_MEM_PENDING_BYTES, -1)) ||
	    sim_series_append(s, now, (double)qsum * (double)sc->cfg.obj_size) ||
	    !(s = metric_series(m, M_SLAB_PAGES, -1)) ||
	    sim_series_append(s, now, (double)sc->nslabs) ||
	    !(s = metric_series(m, M_SLAB_FRAGMENTATION, -1)) ||
	    sim_series_append(s, now, slots ? (double)pinned / (double)slots : 0))
		return SIM_ENOMEM;
	/* Slab accounting counts every slot: never fewer than the files that
	 * exist (live or waiting for their grace period). */
	if (f->v.acct == VFS_ACCT_SLAB && f->v.nr_slab < f->v.live + f->v.pending) {
		snprintf(err, errlen,
			 "file table at t = %lld ns: slab accounting counts %lld slots, fewer than the %lld "
			 "files that exist (%lld live, %lld waiting for a grace period)",
			 (long long)now, (long long)f->v.nr_slab, (long long)(f->v.live + f->v.pending),
			 (long long)f->v.live, (long long)f->v.pending);
		return SIM_ECHECK;
	}
	return 0;
}

int kfiles_finish(kmodel *k, sim_metrics *m)
{
	const kfiles *f = &k->files;
	const vfs *v = &f->v;
	int rc = metric_scalar(m, M_VFS_OPENS, (double)f->opens);
	rc |= metric_scalar(m, M_VFS_CLOSES, (double)f->closes);
	rc |= metric_scalar(m, M_VFS_OPEN_END, (double)v->live);
	rc |= metric_scalar(m, M_VFS_OPEN_FAILURES, (double)v->refused);
	rc |= metric_scalar(m, M_VFS_NR_FILES_MAX, (double)v->nr_max);
	rc |= metric_scalar(m, M_VFS_NR_FILES_END, (double)vfs_nr_files(v));
	rc |= metric_scalar(m, M_VFS_MAX_FILES, (double)v->max_files);
	if (v->first_refusal >= 0)
		rc |= metric_scalar(m, M_VFS_FILE_MAX_REACHED_NS, (double)v->first_refusal);
	if (v->last_refusal >= 0)
		rc |= metric_scalar(m, M_VFS_FILE_MAX_LAST_NS, (double)v->last_refusal);
	rc |= metric_scalar(m, M_MEM_PENDING_BYTES_MAX,
				 (double)kobjq_max(&k->rcu.cb, &k->bg, k->objq_max) * (double)v->filp.cfg.obj_size);
	rc |= metric_scalar(m, M_SLAB_PAGES_MAX, (double)v->filp.nslabs_max);
	if (f->frag_max_den)
		rc |= metric_scalar(m, M_SLAB_FRAGMENTATION_MAX,
					 (double)f->frag_max_num / (double)f->frag_max_den);
	rc |= metric_scalar(m, M_SLAB_GROWN, (double)v->filp.grown);
	rc |= metric_scalar(m, M_SLAB_DESTROYED, (double)v->filp.destroyed);
	uint64_t retries = 0; /* every load's */
	for_each_load((kmodel *)k, w)
		retries += w->retries;
	rc |= metric_scalar(m, M_MAKE_RETRIES, (double)retries);
	return rc ? SIM_ENOMEM : 0;
}

int kfiles_check(const kmodel *k, uint64_t pending, char *err, size_t errlen)
{
	const kfiles *f = &k->files;
	if (f->v.filp.out != f->v.live + f->v.pending) {
		snprintf(err, errlen,
			 "conservation: the filp slab has %lld objects handed out, not the %lld live and "
			 "%lld waiting files",
			 (long long)f->v.filp.out, (long long)f->v.live, (long long)f->v.pending);
		return SIM_ECHECK;
	}
	if (f->opens == f->closes + (uint64_t)f->v.live && (uint64_t)f->v.pending == pending)
		return 0;
	snprintf(err, errlen,
		 "conservation: vfs.opens %llu != vfs.closes %llu + vfs.open_end %lld "
		 "(files pending %lld, callbacks pending %llu)",
		 (unsigned long long)f->opens, (unsigned long long)f->closes, (long long)f->v.live,
		 (long long)f->v.pending, (unsigned long long)pending);
	return SIM_ECHECK;
}

/* ---- what the file-opening workloads share ---- */

int job_close_all(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff)
{
	while (j->nfiles)
		if (job_close(c, now, at, job_files_pop(j).obj, eff))
			return SIM_ENOMEM;
	for (int i = 0; i < j->nheld; i++)
		if (job_close(c, now, at, j->held[i], eff))
			return SIM_ENOMEM;
	j->nheld = 0;
	return 0;
}

bool job_enfile(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff)
{
	kmodel *k = c->k;
	kworkload *w = j->wl;
	bool retry = w->on_enfile == 1 || (w->on_enfile == 2 && j->retries < w->retry_max);
	if (!retry) {
		/* The command fails: its processes exit, another takes its place. */
		w->jobs_failed++;
		return w->ops->unit_failed(c, j, now, at, eff) != 0;
	}
	w->retries++;
	j->retries++;
	j->refused = true;
	j->sleeping = true;
	eff->slept = true;
	if (sim_timer_at(k->eng, &j->wake, now + w->retry_delay))
		kfail(k, SIM_ENOMEM);
	return true;
}
