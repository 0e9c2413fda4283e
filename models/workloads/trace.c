/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * trace.c - workload trace: a recorded machine's tasks replayed (the
 * recording is workload.trace_file, read through the trace library,
 * trace/trace.h, as `rcusim import` reads it: the tracefs text, trace-cmd
 * report's default, -N and -l text, trace.dat; an strace log through
 * trace/lines.h's reader).
 *
 * A kernel trace becomes one script per task:
 * from sched_switch and sched_wakeup, its CPU bursts (the time it ran
 * between being switched in and blocking, however often it was preempted
 * in between: prev_state R) and its sleeps (from blocking to its wakeup);
 * an rcu_callback while it ran is a call_rcu() at that point of its burst;
 * raw_syscalls sys_enter/sys_exit give the kernel's share of its CPU time.
 * A task starts asleep until it was first seen, runs on the CPU it ran on
 * most (a weighted majority vote), and is left out if rcusim has its own
 * (the idle task, ksoftirqd, the RCU kthreads, migration, cpuhp).
 *
 * An strace -f -ttt log becomes one script per process: each gap between
 * its calls CPU work (workload.trace_strace_cpu of it; the rest a sleep),
 * a call strace shows unfinished then resumed a sleep, open/openat/creat
 * an open on the file table (a failed one get_empty_filp() then put_filp():
 * a filp and its callback, as make's failed lookups), close of a file it
 * opened a close, execve one file held to the exit (a failed one as a failed
 * open), exit_group or "+++ exited" the end: every file it holds closed.
 *
 * The replay is closed-loop: each burst is as long on the simulated
 * machine (at full speed, machine.clock) as it was recorded, each
 * sleep as long as recorded, from when the replayed task blocks; with
 * workload.trace_loop each task starts its next round when the recording's
 * span has passed since its last round began (or at once when late).
 * A load, not kernel code; the kernel paths it exercises are the flavor's
 * and fs/'s.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/files.h"
#include "kernel/kernel.h"
#include "trace.h"

enum { OP_RUN, OP_SLEEP, OP_CALL, OP_OPEN, OP_OPEN_FAIL, OP_EXEC, OP_CLOSE, OP_EXIT };

typedef struct rop {
	int64_t ns;             /* RUN: ns of work; SLEEP: ns asleep; OPEN, CLOSE: the fd */
	uint8_t kind;
} rop;

/* One recorded task's script, and what building it needs. */
typedef struct rtask {
	rop *op;
	int64_t n, cap;
	int home;               /* CPU it ran on most (strace: its order of appearance) */
	/* Building (ftrace). */
	int vote_cpu;
	int64_t vote_w;
	int64_t pending;        /* ns run since its last op */
	int64_t asleep_at;      /* ns it blocked, or -1 */
	int64_t woke_at;        /* ns of its wakeup since, or -1 */
	bool seen, dead, in_sys;
	/* Building (strace). */
	int64_t last;           /* ns: its last call's end */
	int64_t unfinished_at;  /* ns a call strace left unfinished started, or -1 */
} rtask;

/* Per job: where it is in its task's script. */
typedef struct rjob {
	int32_t task;
	int64_t pc;             /* the op it is at */
	double left;            /* RUN: ns of work left in it */
	sim_time round0;        /* ns: its current round's start */
	struct rfd {
		int64_t fd;     /* -1: the executable, held to the exit */
		slab_obj obj;
	} *fd;
	int nfd, capfd;
} rjob;

typedef struct trace_wl {
	rtask *task;
	int64_t ntask;
	trace_tmap by_pid;        /* pid -> its task now (an index of task), or -1: left out */
	int trace_cpus;
	bool strace;
	int64_t span;           /* ns of one round, scaled */
	double scale;
	double work_per_ns;     /* ns of work per ns of the machine's CPU time (machine.clock) */
	bool loop;
	int64_t copies;
	rjob *st;               /* per job */
	int64_t *toblock;       /* per op of each task (offset op_base[t]): ns of RUN to the next block */
	int64_t *op_base;
	/* What the replay did. */
	uint64_t rounds, sleeps, calls;
	double work;
	double kshare;
} trace_wl;

/* ---- building the scripts ---- */

/* @a + @b (both >= 0), at most INT64_MAX: a malformed trace's sums (a task
 * running on two CPUs at once) must not wrap. */
static int64_t sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int push(rtask *t, int kind, int64_t ns)
{
	if (kind == OP_RUN && t->n && t->op[t->n - 1].kind == OP_RUN) {
		t->op[t->n - 1].ns = sat_add(t->op[t->n - 1].ns, ns > 0 ? ns : 0);
		return 0;
	}
	if (kind == OP_SLEEP && ns <= 0)
		return 0;
	if (kind == OP_RUN && ns <= 0)
		return 0;
	if (t->n == t->cap) {
		int64_t cap = t->cap ? 2 * t->cap : 16;
		rop *o = realloc(t->op, (size_t)cap * sizeof(*o));
		if (!o)
			return -1;
		t->op = o;
		t->cap = cap;
	}
	t->op[t->n++] = (rop){ ns, (uint8_t)kind };
	return 0;
}

/* The task of @pid, made on first sight (@comm for the kthread check),
 * and made anew, with @reuse, when the pid's task is dead (the pid was
 * reused: a task's line after it exited is another's); NULL if it is left
 * out, *@nomem on out of memory. */
static rtask *task_of(trace_wl *tw, int64_t pid, const char *comm, size_t clen, bool reuse, bool *nomem)
{
	static const char *const own[] = { "swapper", "ksoftirqd/", "rcu_preempt", "rcu_sched",
					   "rcu_exp", "rcuc/", "rcuog/", "rcuop/", "rcuos/", "rcub/",
					   "migration/", "cpuhp/", "idle_inject/" };
	if (pid <= 0 || pid > INT32_MAX)
		return NULL;
	int64_t i;
	if (trace_tmap_get(&tw->by_pid, (uint64_t)pid, &i)) {
		if (i < 0)
			return NULL;
		if (!reuse || !tw->task[i].dead)
			return &tw->task[i];
	}
	for (size_t k = 0; comm && k < sizeof(own) / sizeof(own[0]); k++) {
		size_t l = strlen(own[k]);
		if (clen >= l && !memcmp(comm, own[k], l)) {
			if (trace_tmap_put(&tw->by_pid, (uint64_t)pid, -1))
				*nomem = true;
			return NULL;
		}
	}
	if (tw->ntask == INT32_MAX - 1) {
		*nomem = true;
		return NULL;
	}
	rtask *t = realloc(tw->task, (size_t)(tw->ntask + 1) * sizeof(*t));
	if (!t) {
		*nomem = true;
		return NULL;
	}
	tw->task = t;
	t = &tw->task[tw->ntask];
	memset(t, 0, sizeof(*t));
	t->home = tw->strace ? (int)tw->ntask : -1;
	t->vote_cpu = -1;
	t->asleep_at = t->woke_at = t->unfinished_at = -1;
	if (trace_tmap_put(&tw->by_pid, (uint64_t)pid, tw->ntask)) {
		*nomem = true;
		return NULL;
	}
	tw->ntask++;
	return t;
}

/* A run of @d ns on @cpu: into the pending burst and the vote for its CPU. */
static void ran(rtask *t, int cpu, int64_t d)
{
	if (d <= 0)
		return;
	t->pending = sat_add(t->pending, d);
	if (cpu == t->vote_cpu)
		t->vote_w += d;
	else if (t->vote_w >= d)
		t->vote_w -= d;
	else {
		t->vote_cpu = cpu;
		t->vote_w = d - t->vote_w;
	}
}

typedef struct ftcpu {
	int64_t cur;            /* pid running, or -1 unknown */
	int64_t in_at;          /* ns it was switched in (or the trace's start) */
	int64_t sys_at;         /* ns its system call began or it came back in one */
} ftcpu;

typedef struct builder {
	trace_wl *tw;
	ftcpu *cpu;
	int ncpu;
	int64_t t0, t1;
	bool started;
	double scale;
	double work_per_ns;     /* machine.clock / REF_CLOCK_HZ */
	double ktime, runtime;  /* ns: in system calls, running (exact to 2^53 ns, 104 days) */
	int64_t nsys;
	double strace_cpu;
	uint64_t ncalls;        /* rcu_callback events replayed as call_rcu() */
} builder;

/* Scaled times are at most 2^62 ns: the recording's span, scaled, is
 * (load() refuses a longer one), and only a malformed trace's sums (a task
 * on two CPUs at once) could pass it. */
static int64_t clamp62(double ns)
{
	return ns < 0x1p62 ? (int64_t)llround(ns) : (int64_t)1 << 62;
}

static int64_t scaled(const builder *b, int64_t ns)
{
	return clamp62((double)ns * b->scale);
}

/* @ns of CPU time on the simulated machine as ns of work at the reference
 * clock (REF_CLOCK_HZ, which the model's work is counted in), scaled. */
static int64_t scaled_work(const builder *b, int64_t ns)
{
	return clamp62((double)ns * b->scale * b->work_per_ns);
}

static int flush_run(builder *b, rtask *t)
{
	int rc = push(t, OP_RUN, scaled_work(b, t->pending));
	t->pending = 0;
	return rc;
}

/* First sight of @t at @ts: asleep from the trace's start until then. */
static int first_seen(builder *b, rtask *t, int64_t ts, bool running_before)
{
	t->seen = true;
	if (running_before)
		return 0;
	return push(t, OP_SLEEP, scaled(b, ts - b->t0));
}

static ftcpu *cpu_at(builder *b, int cpu)
{
	if (cpu >= b->ncpu) {
		int n = b->ncpu ? b->ncpu : 8;
		while (n <= cpu)
			n *= 2;
		ftcpu *c = realloc(b->cpu, (size_t)n * sizeof(*c));
		if (!c)
			return NULL;
		for (int i = b->ncpu; i < n; i++)
			c[i] = (ftcpu){ -1, -1, -1 };
		b->cpu = c;
		b->ncpu = n;
	}
	if (cpu + 1 > b->tw->trace_cpus)
		b->tw->trace_cpus = cpu + 1;
	return &b->cpu[cpu];
}

/* The name of a task an event names, for task_of(): NULL if the event
 * does not give it. */
static const char *comm_or_null(const char *comm)
{
	return comm[0] ? comm : NULL;
}

/* One kernel trace event: 0, 1 (refused: its fields are not there), or -1
 * out of memory. */
static int ftrace_event(builder *b, const trace_ev *ev)
{
	trace_wl *tw = b->tw;
	bool nomem = false;
	ftcpu *c = cpu_at(b, ev->cpu);
	if (!c)
		return -1;
	int64_t ts = ev->ts;
	if (c->in_at < 0)
		c->in_at = ts; /* this CPU's first event: its buffer may begin after the others' */
	if (ev->type == TEV_SCHED_SWITCH) {
		const char *pc = ev->prev.comm, *nc = ev->next.comm, *st = ev->prev_state;
		if (ev->prev.pid < 0 || ev->next.pid < 0 || !st[0])
			return 1;
		int64_t pp = ev->prev.pid, np = ev->next.pid;
		rtask *p = task_of(tw, pp, comm_or_null(pc), strlen(pc), true, &nomem);
		if (p && !p->dead) {
			if (!p->seen && first_seen(b, p, ts, true))
				return -1;
			ran(p, ev->cpu, ts - c->in_at);
			b->runtime += (double)(ts - c->in_at > 0 ? ts - c->in_at : 0);
			if (p->in_sys && c->sys_at >= 0)
				b->ktime += (double)(ts - c->sys_at);
			if (st[0] != 'R') {
				if (flush_run(b, p))
					return -1;
				if (strchr(st, 'X') || strchr(st, 'Z'))
					p->dead = true;
				p->asleep_at = ts;
				p->woke_at = -1;
			}
		}
		rtask *n = task_of(tw, np, comm_or_null(nc), strlen(nc), true, &nomem);
		c->cur = np;
		c->in_at = ts;
		c->sys_at = -1;
		if (n && !n->dead) {
			if (!n->seen) {
				if (first_seen(b, n, ts, false))
					return -1;
			} else if (n->asleep_at >= 0) {
				int64_t w = n->woke_at >= 0 ? n->woke_at : ts;
				if (push(n, OP_SLEEP, scaled(b, w - n->asleep_at)))
					return -1;
			}
			n->asleep_at = n->woke_at = -1;
			if (n->in_sys)
				c->sys_at = ts;
		}
	} else if (ev->type == TEV_SCHED_WAKEUP || trace_ev_is(ev, "sched_wakeup_new")) {
		if (ev->next.pid < 0)
			return 1;
		rtask *t = task_of(tw, ev->next.pid, comm_or_null(ev->next.comm), strlen(ev->next.comm), true, &nomem);
		if (t && !t->dead) {
			if (!t->seen) {
				if (first_seen(b, t, ts, false))
					return -1;
				t->asleep_at = -1;
			} else if (t->asleep_at >= 0 && t->woke_at < 0) {
				t->woke_at = ts;
			}
		}
	} else if (ev->type == TEV_RCU_CALLBACK) {
		rtask *t = c->cur > 0 ? task_of(tw, c->cur, NULL, 0, false, &nomem) : NULL;
		if (t && !t->dead && t->seen && t->asleep_at < 0) {
			ran(t, ev->cpu, ts - c->in_at);
			b->runtime += (double)(ts - c->in_at > 0 ? ts - c->in_at : 0);
			if (t->in_sys && c->sys_at >= 0) {
				b->ktime += (double)(ts - c->sys_at);
				c->sys_at = ts;
			}
			c->in_at = ts;
			if (flush_run(b, t) || push(t, OP_CALL, 0))
				return -1;
			b->ncalls++;
		}
	} else if (trace_ev_is(ev, "sys_enter") || trace_ev_is(ev, "sys_exit")) {
		rtask *t = c->cur > 0 ? task_of(tw, c->cur, NULL, 0, false, &nomem) : NULL;
		if (t) {
			bool enter = ev->event_len == 9;
			if (enter) {
				c->sys_at = ts;
				t->in_sys = true;
			} else if (t->in_sys) {
				if (c->sys_at >= 0)
					b->ktime += (double)(ts - c->sys_at);
				b->nsys++;
				t->in_sys = false;
				c->sys_at = -1;
			}
		}
	}
	return nomem ? -1 : 0;
}

/* One strace -f -ttt line: 0, 1 (not such a line) or -1 (out of memory). */
static int strace_line(builder *b, const char *l)
{
	trace_wl *tw = b->tw;
	trace_strace_ev ev;
	if (!trace_strace_parse(l, &ev))
		return 1;
	int64_t ts = ev.ts;
	if (!b->started) {
		b->t0 = ts;
		b->started = true;
	}
	if (ts > b->t1)
		b->t1 = ts;
	bool nomem = false;
	/* A line of a pid whose process exited is a new process's (the pid
	 * reused), but for the "+++ exited" after exit_group. */
	rtask *t = task_of(tw, ev.pid, NULL, 0, ev.kind != TRACE_STRACE_EXITED, &nomem);
	if (!t)
		return nomem ? -1 : 1;
	if (t->dead || ev.kind == TRACE_STRACE_SIGNAL)
		return 0;
	if (!t->seen) {
		if (first_seen(b, t, ts, false))
			return -1;
		t->last = ts;
	}
	bool resumed = ev.kind == TRACE_STRACE_RESUMED && t->unfinished_at >= 0;
	/* The gap since its last call (to this one's start): run, then the rest
	 * asleep. */
	if (!resumed) {
		int64_t gap = ts - t->last;
		if (gap > 0) {
			int64_t r = (int64_t)llround((double)gap * b->strace_cpu);
			b->runtime += (double)r;
			if (push(t, OP_RUN, scaled_work(b, r)) || push(t, OP_SLEEP, scaled(b, gap - r)))
				return -1;
		}
	}
	t->last = ts;
	if (ev.kind == TRACE_STRACE_UNFINISHED) {
		t->unfinished_at = ts;
		return 0;
	}
	if (resumed) {
		/* Blocked in the call from its start to here. */
		if (push(t, OP_SLEEP, scaled(b, ts - t->unfinished_at)))
			return -1;
		t->unfinished_at = -1;
	}
	const char *n = ev.name;
	if (ev.kind == TRACE_STRACE_EXITED || !strcmp(n, "exit_group") || !strcmp(n, "exit")) {
		t->dead = true;
		return push(t, OP_EXIT, 0);
	}
	if (!ev.has_ret)
		return 0; /* "= ?": the process died in it */
	if (!strcmp(n, "open") || !strcmp(n, "openat") || !strcmp(n, "creat"))
		return push(t, ev.ret >= 0 ? OP_OPEN : OP_OPEN_FAIL, ev.ret >= 0 ? ev.ret : 0);
	if (!strcmp(n, "execve"))
		return push(t, ev.ret >= 0 ? OP_EXEC : OP_OPEN_FAIL, 0);
	if (!strcmp(n, "close") && ev.ret == 0 && ev.kind == TRACE_STRACE_CALL) {
		char *e;
		long long fd = strtoll(ev.args, &e, 10);
		if (e != ev.args)
			return push(t, OP_CLOSE, fd);
	}
	return 0;
}

/* Read the recording into tw's scripts, its lines in time order
 * (trace_reorder: sorted within TRACE_REORDER_WINDOW_NS, refused beyond). 0,
 * SIM_EINPUT, SIM_EIO (gzip cannot be started) or SIM_ENOMEM. */
static int load(trace_wl *tw, const sim_params *p, const char *path, builder *b, char *err,
		size_t errlen)
{
	char where[512];
	sim_params_where(p, P_WORKLOAD_TRACE_FILE, where, sizeof(where));
	trace_src tf;
	int oe = trace_src_open(&tf, path);
	if (oe) {
		if (oe == ENOMEM)
			return SIM_ENOMEM;
		snprintf(err, errlen, "%s: %s: %s%s", where, path,
			 tf.text.spawn_failed ? "cannot run gzip -dc to read it: " : "",
			 oe == EINVAL && tf.err[0] ? tf.err : strerror(oe));
		return tf.text.spawn_failed ? SIM_EIO : SIM_EINPUT;
	}
	const char *fmt = sim_params_text(p, P_WORKLOAD_TRACE_FORMAT);
	int kind = !strcmp(fmt, "ftrace") ? 1 : !strcmp(fmt, "strace") ? 2 : 0;
	const char *l = NULL, *why = NULL;
	int got = 0, rc = 0;
	bool end = false;
	uint64_t lineno = 0;
	int64_t back = 0;          /* ns a refused line is before the latest */
	uint64_t latest_line = 0;  /* the latest's line */
	trace_ev ev;
	trace_strace_ev sev;
	trace_reorder ro = { 0 };
	char text[400];
	while (!rc && !end) {
		got = trace_src_next(&tf, &l);
		if (got < 0)
			break;
		end = !got;
		if (got) {
			lineno = tf.lineno;
			if (!kind) {
				/* A tracefs line refused only for its time or pid
				 * (ev.why) is still a tracefs trace: said as such. */
				kind = trace_parse_line(l, &ev) || ev.why ? 1 : 2;
				tw->strace = kind == 2;
			}
			int64_t ts;
			if (kind == 1) {
				if (!trace_parse_line(l, &ev)) {
					why = ev.why;
					rc = 1;
					break;
				}
				ts = ev.ts;
			} else {
				if (!strncmp(l, "strace: ", 8))
					continue;
				if (!trace_strace_parse(l, &sev)) {
					why = sev.why;
					rc = 1;
					break;
				}
				ts = sev.ts;
			}
			int pr = trace_reorder_put(&ro, ts, lineno, l);
			if (pr) {
				rc = pr < 0 ? -1 : 2;
				back = ro.latest - ts;
				latest_line = ro.latest_line;
				break;
			}
		}
		const char *t;
		int64_t ts;
		while (!rc && trace_reorder_take(&ro, end, &t, &lineno, &ts)) {
			l = t;
			if (kind == 1) {
				(void)trace_parse_line(l, &ev); /* parsed as it came */
				if (!b->started) {
					b->t0 = ev.ts;
					b->started = true;
				}
				b->t1 = ev.ts;
				rc = ftrace_event(b, &ev);
			} else {
				rc = strace_line(b, l);
			}
		}
	}
	if (got == -1)
		rc = -1;
	if (rc > 0)
		trace_quote(l, 80, text, sizeof(text));
	trace_src_close(&tf);
	trace_reorder_free(&ro);
	if (rc < 0)
		return SIM_ENOMEM;
	if (got == -2) {
		snprintf(err, errlen, "%s: %s:%llu: %s", where, path, (unsigned long long)tf.lineno, tf.why);
		return SIM_EINPUT;
	}
	if (rc == 2) {
		snprintf(err, errlen,
			 "%s: %s:%llu: its time is %lld.%06lld s before line %llu's: out of order by more "
			 "than the %d ms a replay sorts (traces joined, or a clock that jumped?)",
			 where, path, (unsigned long long)lineno, (long long)(back / 1000000000),
			 (long long)(back % 1000000000 / 1000), (unsigned long long)latest_line,
			 TRACE_REORDER_WINDOW_NS / 1000000);
		return SIM_EINPUT;
	}
	if (rc > 0) {
		snprintf(err, errlen, "%s: %s:%llu: %s: %s", where, path, (unsigned long long)lineno,
			 why			 ? why
			 : kind == 1 ? "not a tracefs event line (sched_switch needs prev_pid, prev_state and "
				       "next_pid; sched_wakeup pid)"
				     : "not an strace -f -ttt line",
			 text);
		return SIM_EINPUT;
	}
	if (tf.truncated) {
		snprintf(err, errlen, "%s: %s is truncated (line %llu is cut%s): record it again",
			 where, path, (unsigned long long)tf.lineno, tf.gzip_failed ? ", or gzip -dc failed" : "");
		return SIM_EINPUT;
	}
	if (!b->started || !tw->ntask) {
		snprintf(err, errlen, "%s: %s has no task to replay (%s)", where, path,
			 !b->started ? "no events"
			 : tw->strace ? "no process"
				      : "no sched_switch or sched_wakeup of a task rcusim does not run itself");
		return SIM_EINPUT;
	}
	/* The ends: what runs at the last event ran until it, a burst in
	 * progress is flushed. */
	for (int i = 0; !tw->strace && i < b->ncpu; i++) {
		ftcpu *c = &b->cpu[i];
		bool nomem = false;
		rtask *t = c->cur > 0 ? task_of(tw, c->cur, NULL, 0, false, &nomem) : NULL;
		if (nomem)
			return SIM_ENOMEM;
		if (t && !t->dead && t->asleep_at < 0) {
			ran(t, i, b->t1 - c->in_at);
			b->runtime += (double)(b->t1 - c->in_at);
		}
	}
	for (int64_t i = 0; i < tw->ntask; i++) {
		rtask *t = &tw->task[i];
		if (flush_run(b, t))
			return SIM_ENOMEM;
		if (!tw->strace) {
			if (t->asleep_at >= 0 && t->woke_at >= 0 &&
			    push(t, OP_SLEEP, scaled(b, t->woke_at - t->asleep_at)))
				return SIM_ENOMEM;
			t->home = t->vote_cpu >= 0 ? t->vote_cpu : 0;
		}
	}
	/* Every sleep, gap and burst is within the span: at most 2^62 ns
	 * scaled, so that their sums and the engine's times cannot wrap. */
	double far = (double)(b->t1 - b->t0) * b->scale * (b->work_per_ns > 1 ? b->work_per_ns : 1);
	if (far > 0x1p62) {
		char a[512];
		sim_params_where(p, P_WORKLOAD_TRACE_TIME_SCALE, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: %s spans %.0f s, which at workload.trace_time_scale %g (and machine.clock) is "
			 "past 2^62 ns (146 years) of simulated time (%s)",
			 where, path, (double)(b->t1 - b->t0) / 1e9, b->scale, a);
		return SIM_EINPUT;
	}
	tw->span = scaled(b, b->t1 - b->t0);
	if (tw->span < 1)
		tw->span = 1;
	return 0;
}

/* workload.trace_file, relative to the scenario file that set it. */
static int trace_path(const sim_params *p, char *out, size_t len)
{
	return sim_params_resolve_path(sim_params_text(p, P_WORKLOAD_TRACE_FILE),
				       sim_params_origin(p, P_WORKLOAD_TRACE_FILE), out, len);
}

static void trace_destroy(kworkload *w)
{
	trace_wl *tw = w->priv;
	if (!tw)
		return;
	for (int64_t i = 0; i < tw->ntask; i++)
		free(tw->task[i].op);
	free(tw->task);
	trace_tmap_free(&tw->by_pid);
	if (tw->st)
		for (int64_t j = 0; j < w->njobs; j++)
			free(tw->st[j].fd);
	free(tw->st);
	free(tw->toblock);
	free(tw->op_base);
	free(tw);
	w->priv = NULL;
}

static int trace_create(kworkload *w, const sim_params *p, char *err, size_t errlen)
{
	trace_wl *tw = calloc(1, sizeof(*tw));
	if (!(w->priv = tw))
		return SIM_ENOMEM;
	char where[512], path[4096];
	if (!strcmp(sim_params_text(p, P_WORKLOAD_TRACE_FILE), "none")) {
		sim_params_where(p, P_WORKLOAD_TRACE_FILE, where, sizeof(where));
		snprintf(err, errlen, "%s: workload.kind = trace replays a recording: name it", where);
		return SIM_EINPUT;
	}
	if (trace_path(p, path, sizeof(path))) {
		sim_params_where(p, P_WORKLOAD_TRACE_FILE, where, sizeof(where));
		snprintf(err, errlen, "%s: the path is too long", where);
		return SIM_EINPUT;
	}
	tw->scale = sim_params_real(p, P_WORKLOAD_TRACE_TIME_SCALE);
	tw->loop = sim_params_int(p, P_WORKLOAD_TRACE_LOOP);
	tw->copies = sim_params_int(p, P_WORKLOAD_TRACE_TASKS);
	tw->work_per_ns = sim_params_real(p, P_MACHINE_CLOCK) / REF_CLOCK_HZ;
	builder b = { .tw = tw, .scale = tw->scale, .work_per_ns = tw->work_per_ns,
		      .strace_cpu = sim_params_real(p, P_WORKLOAD_TRACE_STRACE_CPU) };
	tw->strace = !strcmp(sim_params_text(p, P_WORKLOAD_TRACE_FORMAT), "strace");
	int rc = load(tw, p, path, &b, err, errlen);
	free(b.cpu);
	if (rc)
		return rc;
	if (tw->ntask > (int64_t)1e8 / tw->copies) {
		sim_params_where(p, P_WORKLOAD_TRACE_TASKS, where, sizeof(where));
		snprintf(err, errlen, "%s: %lld tasks x %lld copies is more than 10^8 jobs", where,
			 (long long)tw->ntask, (long long)tw->copies);
		return SIM_EINPUT;
	}
	w->njobs = tw->ntask * tw->copies;
	w->opens_files = tw->strace;
	w->call_rate = 0;
	if (!tw->strace && b.nsys && b.runtime > 0) {
		tw->kshare = (double)b.ktime / (double)b.runtime;
		w->kstretch = (double)b.ktime / (double)b.nsys * tw->scale * tw->work_per_ns;
	} else {
		tw->kshare = sim_params_real(p, P_WORKLOAD_TRACE_SYSTEM_SHARE);
		w->kstretch = (double)sim_params_int(p, P_WORKLOAD_SYSCALL_COST);
	}
	if (tw->kshare > 0.99)
		tw->kshare = 0.99;
	w->p_kernel = tw->kshare;
	/* Work to the next block from each op. */
	if (!(tw->op_base = calloc((size_t)tw->ntask + 1, sizeof(*tw->op_base))))
		return SIM_ENOMEM;
	for (int64_t i = 0; i < tw->ntask; i++)
		tw->op_base[i + 1] = tw->op_base[i] + tw->task[i].n + 1;
	if (!(tw->toblock = malloc((size_t)tw->op_base[tw->ntask] * sizeof(*tw->toblock))))
		return SIM_ENOMEM;
	for (int64_t i = 0; i < tw->ntask; i++) {
		const rtask *t = &tw->task[i];
		int64_t *tb = tw->toblock + tw->op_base[i];
		tb[t->n] = 0;
		for (int64_t o = t->n - 1; o >= 0; o--) {
			const rop *op = &t->op[o];
			tb[o] = op->kind == OP_SLEEP || op->kind == OP_EXIT ? 0
				: op->kind == OP_RUN		    ? sat_add(op->ns, tb[o + 1])
								    : tb[o + 1];
		}
	}
	if (!(tw->st = calloc((size_t)w->njobs, sizeof(*tw->st))))
		return SIM_ENOMEM;
	/* A recording without rcu_callback (CONFIG_RCU_TRACE off) carries no
	 * call_rcu() load: the run goes on, and rcusim_prepare()'s caller
	 * says so (its message buffer on success). */
	if (!tw->strace && !b.ncalls) {
		sim_params_where(p, P_WORKLOAD_TRACE_FILE, where, sizeof(where));
		snprintf(err, errlen,
			 "warning: %s: %s has no rcu_callback events (CONFIG_RCU_TRACE off, or not "
			 "recorded): the replay carries no call_rcu() of its own, only its tasks' "
			 "scheduling",
			 where, path);
	}
	return 0;
}

/* Job j is copy j / ntask of task j % ntask; its CPU. */
static int trace_job_cpu(const kworkload *w, int64_t j, int ncpus)
{
	const trace_wl *tw = w->priv;
	int64_t t = j % tw->ntask, copy = j / tw->ntask;
	if (tw->strace)
		return (int)(j % ncpus);
	return (int)(((int64_t)tw->task[t].home + copy * tw->trace_cpus) % ncpus);
}

/* Enter op @pc of @st's script. */
static void go_to(const trace_wl *tw, rjob *st, int64_t pc)
{
	const rtask *t = &tw->task[st->task];
	st->pc = pc;
	if (pc < t->n && t->op[pc].kind == OP_RUN)
		st->left = (double)t->op[pc].ns;
}

/* Sleep job @j from @at for @ns. */
static void sleep_for(kmodel *k, job *j, sim_time now, sim_time at, int64_t ns, job_effect *eff)
{
	j->sleeping = true;
	eff->slept = true;
	sim_time t = at + ns;
	if (sim_timer_at(k->eng, &j->wake, t > now ? t : now))
		kfail(k, SIM_ENOMEM);
}

static int trace_job_start(kmodel *k, kcpu *c, job *j)
{
	(void)c;
	trace_wl *tw = j->wl->priv;
	rjob *st = &tw->st[j - j->wl->jobs];
	st->task = (int32_t)((j - j->wl->jobs) % tw->ntask);
	st->round0 = 0;
	const rtask *t = &tw->task[st->task];
	/* Asleep until it was first seen: not runnable at the start. */
	if (t->n && t->op[0].kind == OP_SLEEP) {
		go_to(tw, st, 1);
		j->sleeping = true;
		if (sim_timer_at(k->eng, &j->wake, t->op[0].ns))
			return SIM_ENOMEM;
	} else {
		go_to(tw, st, 0);
	}
	return 0;
}

/* Close every file @st holds. 0 or -1 (kfail() called). */
static int close_all(kcpu *c, rjob *st, sim_time now, sim_time at, job_effect *eff)
{
	for (int i = 0; i < st->nfd; i++)
		if (job_close(c, now, at, st->fd[i].obj, eff))
			return -1;
	st->nfd = 0;
	return 0;
}

/* The script's end: the next round when its time comes, or never. */
static void round_end(kcpu *c, job *j, rjob *st, sim_time now, sim_time at, job_effect *eff)
{
	kmodel *k = c->k;
	trace_wl *tw = j->wl->priv;
	const rtask *t = &tw->task[st->task];
	tw->rounds++;
	if (close_all(c, st, now, at, eff))
		return;
	j->sleeping = true;
	eff->slept = true;
	if (!tw->loop) {
		st->pc = t->n;
		return;
	}
	st->round0 += tw->span;
	sim_time start = st->round0;
	if (t->n && t->op[0].kind == OP_SLEEP) {
		start += t->op[0].ns;
		go_to(tw, st, 1);
	} else {
		go_to(tw, st, 0);
	}
	if (start < at)
		start = at;
	if (sim_timer_at(k->eng, &j->wake, start > now ? start : now))
		kfail(k, SIM_ENOMEM);
}

static int add_fd(kmodel *k, rjob *st, int64_t fd, slab_obj obj)
{
	if (st->nfd == st->capfd) {
		int cap = st->capfd ? 2 * st->capfd : 8;
		struct rfd *f = realloc(st->fd, (size_t)cap * sizeof(*f));
		if (!f) {
			kfail(k, SIM_ENOMEM);
			return -1;
		}
		st->fd = f;
		st->capfd = cap;
	}
	st->fd[st->nfd++] = (struct rfd){ fd, obj };
	return 0;
}

static void trace_run(kcpu *c, job *j, sim_time now, sim_time t0, double work, double s,
		      job_effect *eff)
{
	kmodel *k = c->k;
	trace_wl *tw = j->wl->priv;
	rjob *st = &tw->st[j - j->wl->jobs];
	const rtask *t = &tw->task[st->task];
	double used = 0;
	while (!k->err) {
		sim_time at = t0 + (sim_time)(used / s);
		if (at > now)
			at = now;
		if (st->pc >= t->n) {
			round_end(c, j, st, now, at, eff);
			return;
		}
		const rop *o = &t->op[st->pc];
		switch (o->kind) {
		case OP_RUN:
			if (st->left > work - used) {
				st->left -= work - used;
				tw->work += work - used;
				return;
			}
			used += st->left;
			tw->work += st->left;
			go_to(tw, st, st->pc + 1);
			break;
		case OP_SLEEP:
			tw->sleeps++;
			go_to(tw, st, st->pc + 1);
			sleep_for(k, j, now, at, o->ns, eff);
			return;
		case OP_CALL:
			tw->calls++;
			go_to(tw, st, st->pc + 1);
			if (job_call_rcu(rcu_normal(c->k), c, now, at, 0, eff))
				return;
			break;
		case OP_OPEN:
		case OP_EXEC:
		case OP_OPEN_FAIL: {
			slab_obj obj;
			bool stopped;
			if (job_open_filp(c, j, now, at, eff, &obj, &stopped)) {
				if (stopped)
					return; /* the open is tried again when it wakes */
				break;      /* the process failed: unit_failed moved it on */
			}
			job_refusals_end(j);
			go_to(tw, st, st->pc + 1);
			if (o->kind == OP_OPEN_FAIL) {
				job_put_filp(c, now, at, obj, eff);
				break;
			}
			job_opened(c);
			if (o->kind == OP_EXEC)
				/* The old image's executable goes with its mm. */
				for (int i = 0; i < st->nfd; i++)
					if (st->fd[i].fd == -1) {
						slab_obj old = st->fd[i].obj;
						st->fd[i] = st->fd[--st->nfd];
						job_close(c, now, at, old, eff);
						break;
					}
			if (add_fd(k, st, o->kind == OP_EXEC ? -1 : o->ns, obj))
				return;
			break;
		}
		case OP_CLOSE:
			go_to(tw, st, st->pc + 1);
			for (int i = st->nfd - 1; i >= 0; i--)
				if (st->fd[i].fd == o->ns) {
					slab_obj obj = st->fd[i].obj;
					st->fd[i] = st->fd[--st->nfd];
					job_close(c, now, at, obj, eff);
					break;
				}
			break;
		case OP_EXIT:
			go_to(tw, st, st->pc + 1);
			if (close_all(c, st, now, at, eff))
				return;
			break;
		}
	}
}

/* A process refused at file-max fails: it exits (its files closed), its
 * script goes on after its exit. */
static int trace_unit_failed(kcpu *c, job *j, sim_time now, sim_time at, job_effect *eff)
{
	trace_wl *tw = j->wl->priv;
	rjob *st = &tw->st[j - j->wl->jobs];
	const rtask *t = &tw->task[st->task];
	job_refusals_end(j);
	if (close_all(c, st, now, at, eff))
		return SIM_ENOMEM;
	int64_t pc = st->pc;
	while (pc < t->n && t->op[pc].kind != OP_EXIT)
		pc++;
	go_to(tw, st, pc < t->n ? pc + 1 : pc);
	return 0;
}

/* Work to the next op that is not a run (a system call). */
static double trace_next_syscall(const kworkload *w, const job *j)
{
	const trace_wl *tw = w->priv;
	const rjob *st = &tw->st[j - w->jobs];
	const rtask *t = &tw->task[st->task];
	if (j->sleeping)
		return INFINITY;
	if (st->pc < t->n && t->op[st->pc].kind == OP_RUN)
		return st->left;
	return 0;
}

/* Work to the next sleep or the script's end. At least 1 ns of work: the
 * CPU model applies a job's work (and so reaches its block) only when time
 * has passed, and a task woken to a sleep, an exit or its script's end with
 * nothing recorded to run before it (it woke and blocked again at once)
 * gets there a nanosecond later. */
static double trace_next_block(const kworkload *w, const job *j)
{
	const trace_wl *tw = w->priv;
	const rjob *st = &tw->st[j - w->jobs];
	const rtask *t = &tw->task[st->task];
	if (j->sleeping)
		return INFINITY;
	double work = 0;
	if (st->pc < t->n) {
		const int64_t *tb = tw->toblock + tw->op_base[st->task];
		work = t->op[st->pc].kind == OP_RUN ? st->left + (double)tb[st->pc + 1]
						     : (double)tb[st->pc];
	}
	return work > 1 ? work : 1;
}

static int trace_finish(const kmodel *k, const kworkload *w, sim_metrics *m)
{
	const trace_wl *tw = w->priv;
	int rc = metric_scalar(m, M_REPLAY_TASKS, (double)tw->ntask);
	rc |= metric_scalar(m, M_REPLAY_ROUNDS, (double)tw->rounds);
	rc |= metric_scalar(m, M_REPLAY_WORK_NS, tw->work / tw->work_per_ns);
	rc |= metric_scalar(m, M_REPLAY_SLEEPS, (double)tw->sleeps);
	rc |= metric_scalar(m, M_REPLAY_SPAN_NS, (double)tw->span);
	rc |= metric_scalar(m, M_REPLAY_KERNEL_SHARE, tw->kshare);
	if (!tw->strace)
		rc |= metric_scalar(m, M_REPLAY_CALL_RCU, (double)tw->calls);
	return rc ? SIM_ENOMEM : 0;
}

/* The tasks come from the recording. */
static int trace_validate(const sim_params *p, char *err, size_t errlen)
{
	char a[512];
	if (sim_params_set_by_scenario(p, P_WORKLOAD_JOBS)) {
		sim_params_where(p, P_WORKLOAD_JOBS, a, sizeof(a));
		snprintf(err, errlen,
			 "%s: the trace workload's tasks are the recording's (workload.trace_tasks copies "
			 "each)", a);
		return SIM_EINPUT;
	}
	return 0;
}

static const sim_knob trace_knob[] = {
	{ P_WORKLOAD_TRACE_FILE, SIM_ALWAYS },
	{ P_WORKLOAD_OBJECT_SIZE, SIM_ALWAYS },
	{ P_WORKLOAD_TRACE_FORMAT, SIM_ALWAYS },
	{ P_WORKLOAD_TRACE_TIME_SCALE, SIM_ALWAYS },
	{ P_WORKLOAD_TRACE_TASKS, SIM_ALWAYS },
	{ P_WORKLOAD_TRACE_LOOP, SIM_ALWAYS },
	{ P_WORKLOAD_TRACE_SYSTEM_SHARE, SIM_ALWAYS },
	{ P_WORKLOAD_TRACE_STRACE_CPU, SIM_ALWAYS },
	{ P_WORKLOAD_SYSCALL_COST, SIM_ALWAYS },
	{ P_WORKLOAD_ON_ENFILE, SIM_ALWAYS },
	{ P_WORKLOAD_RETRY_DELAY, SIM_ALWAYS },
	{ P_WORKLOAD_RETRY_MAX, SIM_ALWAYS },
};
static const sim_knobs trace_knobs = { { P_WORKLOAD_KIND, "trace", NULL }, trace_knob,
				       sizeof(trace_knob) / sizeof(trace_knob[0]) };

const workload_ops trace_workload = {
	.kind = "trace",
	.knobs = &trace_knobs,
	.validate = trace_validate,
	.frees_files = false, /* an strace log's do: create sets kworkload.opens_files */
	.holds_objects = true,
	.create = trace_create,
	.destroy = trace_destroy,
	.job_cpu = trace_job_cpu,
	.job_start = trace_job_start,
	.run = trace_run,
	.unit_failed = trace_unit_failed,
	.finish = trace_finish,
	.next_syscall = trace_next_syscall,
	.next_block = trace_next_block,
};
