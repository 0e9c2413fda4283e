/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * record.c - a recording of this box's tracefs through libtracefs (trace.h),
 * for `rcusim record`: a private instance (its own buffers, events and
 * tracing_on: the top-level settings are never touched, so there is
 * nothing to restore but the instance, which is removed), every event
 * enabled before tracing starts, the instance's trace file (tracefs text)
 * copied out when it stops.
 *
 * The events: those import and calibration need. Required: irq's
 * softirq_entry/exit, sched's sched_switch and sched_wakeup, rcu's
 * rcu_utilization (the ticks, context switches, RCU core). Where the kernel
 * has them: rcu_grace_period, rcu_callback, rcu_invoke_callback,
 * rcu_batch_start/end (CONFIG_RCU_TRACE), and kmem_cache_free and kfree
 * filtered to call_site.function == rcu_do_batch (callbacks invoked, when
 * there are no rcu: callback events; a kernel that refuses the filter does
 * not get the event, so that the buffer is not flooded by every free).
 * With syscalls asked for (rcusim record --load sync), also syscalls'
 * sys_enter_membarrier and sys_exit_membarrier, required then: each
 * membarrier(MEMBARRIER_CMD_GLOBAL) call is one synchronize_rcu(), timed
 * from them. Only then: a syscall tracepoint enabled sets
 * SYSCALL_WORK_SYSCALL_TRACEPOINT on every task (kernel/tracepoint.c
 * 6.18 syscall_regfunc()), a cost on each system call of the other loads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "trace.h"

struct trace_rec {
	struct tracefs_instance *inst;
	char optional[512];     /* the optional events the kernel lacks or refused, said */
};

static const struct {
	const char *sys, *name;
	bool required;
	const char *filter;
} rec_events[] = {
	{ "irq", "softirq_entry", true, NULL },
	{ "irq", "softirq_exit", true, NULL },
	{ "sched", "sched_switch", true, NULL },
	{ "sched", "sched_wakeup", true, NULL },
	{ "rcu", "rcu_utilization", true, NULL },
	{ "rcu", "rcu_grace_period", false, NULL },
	{ "rcu", "rcu_callback", false, NULL },
	{ "rcu", "rcu_invoke_callback", false, NULL },
	{ "rcu", "rcu_batch_start", false, NULL },
	{ "rcu", "rcu_batch_end", false, NULL },
	{ "kmem", "kmem_cache_free", false, "call_site.function == rcu_do_batch" },
	{ "kmem", "kfree", false, "call_site.function == rcu_do_batch" },
	/* Last, and only with syscalls asked for (REC_SYSCALLS of them). */
	{ "syscalls", "sys_enter_membarrier", true, NULL },
	{ "syscalls", "sys_exit_membarrier", true, NULL },
};
enum { REC_SYSCALLS = 2 };

void trace_rec_destroy(trace_rec *r)
{
	if (!r)
		return;
	if (r->inst) {
		tracefs_trace_off(r->inst);
		/* Events off first: a removed instance takes them with it, but an
		 * instance that cannot be removed (a reader holds it) is left
		 * with nothing enabled. */
		tracefs_event_disable(r->inst, NULL, NULL);
		tracefs_instance_destroy(r->inst);
		tracefs_instance_free(r->inst);
	}
	free(r);
}

const char *trace_rec_notes(const trace_rec *r)
{
	return r->optional;
}

int trace_rec_start(trace_rec **out, const char *tracefs_dir, const char *cpus, size_t buffer_kb, bool syscalls,
		    char *err, size_t errlen)
{
	*out = NULL;
	trace_rec *r = calloc(1, sizeof(*r));
	if (!r)
		return ENOMEM;
	if (tracefs_dir) {
		char *d = strdup(tracefs_dir);
		if (!d || tracefs_set_tracing_dir(d)) {
			free(d);
			snprintf(err, errlen, "tracefs: cannot use %s", tracefs_dir);
			free(r);
			return EIO;
		}
		free(d);
	}
	const char *dir = tracefs_tracing_dir();
	char path[4096];
	if (dir && (snprintf(path, sizeof(path), "%s/instances", dir), access(path, F_OK)) && errno == EACCES) {
		snprintf(err, errlen, "tracefs: %s: %s (recording needs root, or CAP_SYS_ADMIN)", path,
			 strerror(EACCES));
		free(r);
		return EACCES;
	}
	if (!dir || access(path, F_OK)) {
		snprintf(err, errlen, "no tracefs (looked at %s; mount -t tracefs nodev /sys/kernel/tracing)",
			 dir ? path : "/sys/kernel/tracing and the mounts");
		free(r);
		return ENOENT;
	}
	if (access(path, W_OK)) {
		int e = errno;
		snprintf(err, errlen, "tracefs: %s: %s (recording needs root, or CAP_SYS_ADMIN)", path, strerror(e));
		free(r);
		return e;
	}
	char name[64];
	snprintf(name, sizeof(name), "rcusim-record-%ld", (long)getpid());
	r->inst = tracefs_instance_create(name);
	if (!r->inst) {
		int e = errno ? errno : EIO;
		snprintf(err, errlen, "tracefs: cannot create the instance %s/%s: %s", path, name, strerror(e));
		free(r);
		return e;
	}
	int rc = 0;
	tracefs_trace_off(r->inst);
	if (cpus && tracefs_instance_set_affinity(r->inst, cpus) < 0) {
		rc = errno ? errno : EINVAL;
		snprintf(err, errlen, "tracefs: the instance's CPU mask %s: %s", cpus, strerror(rc));
		goto fail;
	}
	if (buffer_kb && tracefs_instance_set_buffer_size(r->inst, buffer_kb, -1) < 0) {
		rc = errno ? errno : EIO;
		snprintf(err, errlen, "tracefs: a buffer of %zu KB per CPU: %s", buffer_kb, strerror(rc));
		goto fail;
	}
	size_t o = 0;
	size_t nev = sizeof(rec_events) / sizeof(rec_events[0]) - (syscalls ? 0 : REC_SYSCALLS);
	for (size_t i = 0; i < nev; i++) {
		const char *sys = rec_events[i].sys, *ev = rec_events[i].name;
		if (rec_events[i].filter &&
		    tracefs_event_file_write(r->inst, sys, ev, "filter", rec_events[i].filter) < 0) {
			if (o < sizeof(r->optional))
				o += (size_t)snprintf(r->optional + o, sizeof(r->optional) - o,
						      "%s:%s not recorded (the kernel %s the filter %s)\n", sys, ev,
						      tracefs_event_file_exists(r->inst, sys, ev, "filter") ? "refused"
													    : "lacks",
						      rec_events[i].filter);
			continue;
		}
		if (tracefs_event_enable(r->inst, sys, ev) == 0)
			continue;
		if (rec_events[i].required) {
			rc = errno ? errno : ENOENT;
			snprintf(err, errlen, "tracefs: the kernel refuses the event %s:%s (%s): nothing recorded",
				 sys, ev, tracefs_event_file_exists(r->inst, sys, ev, "enable") ? strerror(rc)
											: "it has no such event");
			if (rc == ENOENT)
				rc = EIO;
			goto fail;
		}
		if (o < sizeof(r->optional))
			o += (size_t)snprintf(r->optional + o, sizeof(r->optional) - o,
					      "%s:%s not recorded (the kernel lacks it)\n", sys, ev);
	}
	/* Every event on, the buffer empty: now tracing. */
	tracefs_instance_file_clear(r->inst, "trace");
	if (tracefs_trace_on(r->inst) < 0) {
		rc = errno ? errno : EIO;
		snprintf(err, errlen, "tracefs: tracing_on: %s", strerror(rc));
		goto fail;
	}
	*out = r;
	return 0;
fail:
	trace_rec_destroy(r);
	return rc;
}

uint64_t trace_rec_lost(const trace_rec *r)
{
	/* Each CPU's ring buffer says the events it overwrote in its stats
	 * ("overrun: N", kernel/trace/trace.c tracing_stats_read()). */
	uint64_t lost = 0;
	for (int cpu = 0;; cpu++) {
		char f[64];
		snprintf(f, sizeof(f), "per_cpu/cpu%d/stats", cpu);
		if (!tracefs_file_exists(r->inst, f))
			break;
		char *t = tracefs_instance_file_read(r->inst, f, NULL);
		const char *o = t ? strstr(t, "overrun: ") : NULL;
		if (o)
			lost += strtoull(o + 9, NULL, 10);
		free(t);
	}
	return lost;
}

int trace_rec_stop(trace_rec *r, FILE *out, char *err, size_t errlen)
{
	tracefs_trace_off(r->inst);
	int fd = tracefs_instance_file_open(r->inst, "trace", O_RDONLY);
	if (fd < 0) {
		int e = errno ? errno : EIO;
		snprintf(err, errlen, "tracefs: the instance's trace file: %s", strerror(e));
		return e;
	}
	char buf[65536];
	ssize_t n;
	int rc = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, out) != (size_t)n) {
			rc = errno ? errno : EIO;
			snprintf(err, errlen, "writing the trace: %s", strerror(rc));
			break;
		}
	if (n < 0 && !rc) {
		rc = errno;
		snprintf(err, errlen, "tracefs: reading the instance's trace file: %s", strerror(rc));
	}
	close(fd);
	return rc;
}
