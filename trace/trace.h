/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * trace.h - the trace library: a real machine's kernel trace read in any of
 * the forms kernel developers produce, as one kind of event.
 *
 * The forms (one recording gives the same events in each):
 * - the tracefs trace file: "comm-pid [cpu] flags ts: event: fields";
 * - trace-cmd report's text: by default without the flags, with an
 *   instance's buffer prefixed "name: " and the sched plugins' fields
 *   ("comm:pid [prio] CPU:nnn", "prev:pid [prio] S ==> next:pid [prio]");
 *   with -N the kernel's own fields (as tracefs); with -l the latency
 *   columns ("comm-pid cpuflags ts:", the comm cut to 8 characters);
 * - trace.dat (trace-cmd record, KernelShark), read through libtracecmd
 *   (trace/dat.c), its times rounded to the microsecond as the text forms
 *   print them.
 * Either text may be gzip-compressed (a name ending in .gz).
 *
 * This library is the only user of libtracecmd and libtraceevent, below
 * the CLI (cli/import.c) and beside sim/, whose line reader
 * (trace/lines.h) it reads the text with.
 */
#ifndef RCUSIM_TRACE_TRACE_H
#define RCUSIM_TRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lines.h"
#include "metrics.h"

/* The events the library knows (trace/events.def), TEV_OTHER any other. */
typedef enum {
	TEV_OTHER,
#define TEV(id, sys, name, fmt) TEV_##id,
#include "events.def"
#undef TEV
	TEV_COUNT
} trace_ev_type;

/* The kernel's TASK_COMM_LEN, with its NUL. */
#define TRACE_COMM_LEN 16

/* A task as an event's fields name it. */
typedef struct trace_task {
	char comm[TRACE_COMM_LEN];
	int pid;
	int prio;
} trace_task;

/* One event. */
typedef struct trace_ev {
	int64_t ts;                 /* ns */
	int cpu;
	int pid;                    /* of the task it ran in, or -1 */
	char comm[TRACE_COMM_LEN];  /* its name as the line gives it ("<idle>", "<...>") */
	bool comm_cut;              /* report -l: cut to 8 characters */
	char inst[32];              /* the instance's buffer ("" the top one) */
	trace_ev_type type;
	const char *event;          /* its name, not NUL-terminated */
	size_t event_len;
	const char *rest;           /* its fields' text */
	/* Fields, by type: */
	int vec;                    /* softirq_*: the vector */
	trace_task prev, next;      /* sched_switch; sched_wakeup: next is the woken task */
	char prev_state[8];         /* sched_switch */
	int target_cpu;             /* sched_wakeup, or -1 (none); 1000000 past 6 digits */
	bool from_rcu_do_batch;     /* kmem_cache_free, kfree: call_site=rcu_do_batch+... */
	long long sys_arg;          /* sys_enter_membarrier: cmd; sys_exit_membarrier: the
				       return value; -1 unread */
	const char *why;            /* when parse fails: NULL (not an event line), or why a
				       line of the form is refused */
} trace_ev;

/* Parse @l (leading blanks skipped) into *@ev: true, or false if it is not
 * an event line of any form (ev->why says why, if it has the form of one).
 * ev's pointers point into @l. */
bool trace_parse_line(const char *l, trace_ev *ev);
/* The event's name is @name. */
bool trace_ev_is(const trace_ev *ev, const char *name);
/* @type's name (trace/events.def), "" for TEV_OTHER. */
const char *trace_ev_name(trace_ev_type type);

/* A trace being read, text or trace.dat, as lines of the tracefs form. */
typedef struct trace_src {
	trace_lines text;         /* a text form */
	struct trace_dat *dat;      /* or trace.dat (trace/dat.c) */
	const char *path;
	uint64_t lineno;            /* text: its line; trace.dat: its event's number */
	uint64_t lost;              /* events the trace says it lost */
	bool truncated;             /* text: cut; trace.dat: a read failed */
	bool gzip_failed;
	const char *why;            /* when next returns -2 */
	char err[256];              /* trace.dat: why it cannot be read, when open fails */
} trace_src;

/* Open @path: trace.dat (by its magic), else text. 0, or an errno value
 * (EINVAL: a trace.dat libtracecmd cannot read, src->err says why; with
 * src->text.spawn_failed, gzip -dc could not be started). */
int trace_src_open(trace_src *src, const char *path);
/* The next event line: 1 and *@line, 0 at the end, -1 out of memory, -2
 * a header refused (src->why). */
int trace_src_next(trace_src *src, const char **line);
void trace_src_close(trace_src *src);

/* trace.dat, through libtracecmd (trace/dat.c). */
typedef struct trace_dat trace_dat;
/* @path starts with trace.dat's magic: true. */
bool trace_dat_is(const char *path);
int trace_dat_open(trace_dat **out, const char *path, char *err, size_t errlen);
int trace_dat_next(trace_dat *d, const char **line, uint64_t *lost);
void trace_dat_close(trace_dat *d);

/* ---- the tracefs text written (trace/textw.c) ---- */

/* Event @type on @cpu at @ts (ns) in task @comm-@pid, with the flags column
 * @flags (irqs-off, need-resched, hardirq/softirq, preempt depth,
 * migrate-disable: "d.h.."), its fields from @num and @str as
 * trace_datw_event() takes them, as a line of the tracefs trace file into
 * @o. 0 or EINVAL (an event the writer does not know). */
int trace_text_event(FILE *o, int cpu, int64_t ts, const char *comm, int pid, const char *flags,
		     trace_ev_type type, const int64_t *num, const char *const *str);

/* ---- trace.dat written (trace/datw.c) ---- */

typedef struct trace_datw trace_datw;
/* A writer of trace.dat into @f (written at finish) for @ncpus CPUs: 0 or
 * an errno value (a temporary file per CPU holds its pages meanwhile). */
int trace_datw_create(trace_datw **out, FILE *f, int ncpus);
/* Task @pid is named @comm (trace.dat's saved cmdlines). 0 or ENOMEM. */
int trace_datw_comm(trace_datw *w, int pid, const char *comm);
/* Event @type on @cpu at @ts (ns) in task @pid, its fields in its format's
 * order: the numbers from @num, the strings (char arrays, and the const
 * char * the rcu events point at) from @str. 0 or an errno value
 * (EINVAL: an event trace.dat is not written with). */
int trace_datw_event(trace_datw *w, int cpu, int64_t ts, int pid, trace_ev_type type, const int64_t *num,
		     const char *const *str);
/* Write the file: 0 or an errno value. */
int trace_datw_finish(trace_datw *w);
void trace_datw_destroy(trace_datw *w);

/* ---- a recording of this box's tracefs (trace/record.c, libtracefs) ---- */

typedef struct trace_rec trace_rec;
/* Start recording in a private instance of the tracefs at @tracefs_dir
 * (NULL: where libtracefs finds it), on the CPUs of @cpus (a CPU list, or
 * NULL for all), @buffer_kb per CPU (0: the kernel's), with @syscalls also
 * membarrier(2)'s syscall events (required then): every event enabled,
 * the buffer cleared, then tracing on. 0, or an errno value with the
 * message in @err (no tracefs, not allowed, a required event refused);
 * then nothing is left: the instance is removed. */
int trace_rec_start(trace_rec **out, const char *tracefs_dir, const char *cpus, size_t buffer_kb, bool syscalls,
		    char *err, size_t errlen);
/* The optional events not recorded, one a line ("" if none). */
const char *trace_rec_notes(const trace_rec *r);
/* Tracing off, the instance's trace (tracefs text) into @out: 0 or an
 * errno value (@err). */
int trace_rec_stop(trace_rec *r, FILE *out, char *err, size_t errlen);
/* The events the instance's buffers overwrote (each CPU's stats'
 * overrun), after trace_rec_stop(). */
uint64_t trace_rec_lost(const trace_rec *r);
/* Tracing and every event off, the instance removed. NULL is a no-op. */
void trace_rec_destroy(trace_rec *r);

/* ---- the measurer: a trace's events as the metrics the model writes ---- */

typedef struct trace_measure trace_measure;

/* Create it, writing into @m (which it does not own), softirq.busy_frac
 * every @sample_ns, at most @points_max points. 0 or SIM_ENOMEM. */
int trace_measure_create(trace_measure **out, sim_metrics *m, int64_t sample_ns, double points_max);
void trace_measure_destroy(trace_measure *tm);
/* One event, in time order: 0, 1 (refused: *@why says why), -1 (out of
 * memory). */
int trace_measure_event(trace_measure *tm, const trace_ev *ev, const char **why);
/* The trace ended: the scalars into the metrics. What the reader should
 * know (events skipped, a filter found, HZ unknown) into @notes, a line
 * each. 0, -1 (out of memory). *@hz: the box's HZ from its ticks, 0 unknown. */
int trace_measure_finish(trace_measure *tm, long long *hz, char *notes, size_t notes_len);

/* Whether a recording filtered sched_switch to some tasks, for import and
 * calibrate alike, from its @switches sched_switch events, @util_cs
 * rcu_utilization "Start context switch" events and @breaks switches that
 * leave another task than their CPU's last switch entered, on @ncpu CPUs.
 * rcu_note_context_switch() traces "Start context switch" in every
 * __schedule() (kernel/sched/core.c 6.12:6573), sched_switch only when it
 * changes task (:6655, :6690): with rcu_utilization, filtered when the
 * switches are under 90% of it. Without it, when the chain breaks more than
 * once a CPU (each CPU's first switch may leave a task the trace never saw
 * entered) and in over a tenth of the switches: a lost switch breaks it too,
 * and a recording can lose a few (the quiet idle recording lacks 30 of a
 * task's switches out, from rcu_utilization as well). */
bool trace_switch_filtered(uint64_t switches, uint64_t util_cs, uint64_t breaks, int ncpu);

/* What the trace held. */
typedef struct trace_measure_info {
	uint64_t events;            /* events measured */
	int64_t t0, t1;             /* ns: first and last */
	int maxcpu;                 /* highest CPU, -1 none */
	int nseen;                  /* CPUs seen */
	bool over;                  /* more points than points_max: refused */
} trace_measure_info;
void trace_measure_get_info(const trace_measure *tm, trace_measure_info *info);

#endif
