/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ktrace.c - a run's timeline (rcusim run --trace): the kernel model's
 * events under the kernel's own tracepoint names and fields, written as
 * text in the format of the tracefs trace file,
 * or as Chrome trace-event JSON for Perfetto, chrome://tracing and
 * speedscope: per CPU a track (pid 0, tid = CPU) of task slices and
 * wakeups, one (tid 100000 + CPU) of its ticks, IPIs, softirq passes and
 * rcu_do_batch()es, and one (tid 200000 + CPU) of injected faults, every
 * slice a begin and an end event; and an RCU track
 * (pid 1) of grace periods (async begin/end by gp_seq; one cut by the
 * window begins at its start or ends at its end, marked "cut") and the
 * queued callbacks (the machine's at each sample, and each CPU's wherever
 * an event of the CPU finds it changed); an injected fault is a slice on
 * each CPU it hits (JSON only: the kernel has no tracepoint for it).
 * Or trace.dat (trace-cmd.dat(5)) with the kernel's event formats, written
 * by the trace library (trace/datw.c): the text's events.
 *
 * Events (include/trace/events/ of 6.12):
 * - sched_switch, sched_wakeup (sched.h): each context switch, and the
 *   wakeup of a job, ksoftirqd or kthread;
 * - softirq_raise, softirq_entry, softirq_exit (irq.h, vec=9 RCU): each
 *   raise of the RCU softirq and each pass of a run;
 * - local_timer_entry/exit (irq_vectors.h, vector=236), reschedule_entry/
 *   exit (253) and call_function_single_entry/exit (251): the tick, the
 *   reschedule IPI, the expedited grace period's and rcu_barrier()'s IPIs;
 * - rcu_utilization (rcu.h, always on): Start/End scheduler-tick, RCU core,
 *   context switch;
 * - rcu_grace_period (start, end, fqsstart), rcu_batch_start and
 *   rcu_batch_end (rcu.h, CONFIG_RCU_TRACE): Tree RCU's grace periods and
 *   each rcu_do_batch().
 * A job's task is named after its workload kind (pid 10000 + its index),
 * ksoftirqd/N and the kthreads after the kernel's (pids from 2 on), the
 * idle task swapper/N (pid 0).
 *
 * The model makes events out of time order (a softirq run's passes when it
 * starts, a lazily settled run's end later): they wait in a heap and are
 * written in time order once the run is KTRACE_LAG past them. Memory is
 * that lag's events. An event older than one already written (none in the
 * shipped scenarios) is written where it comes and counted (late).
 * Outside the window [from, to) only context switches are kept (each
 * CPU's task at the window's start); outside the CPU list nothing.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "kernel/kernel_int.h"
#include "trace.h"

/* How far behind the run the writer stays: well past a lazy run's end and
 * a softirq run's committed passes. */
#define KTRACE_LAG (50 * INT64_C(1000000))

enum {
	TE_SWITCH,
	TE_WAKEUP,
	TE_RAISE,
	TE_ENTRY,
	TE_EXIT,
	TE_UTIL,
	TE_IRQ_ENTRY,
	TE_IRQ_EXIT,
	TE_GP,
	TE_BATCH_START,
	TE_BATCH_END,
	TE_COUNTER,
	TE_FAULT,
};

typedef struct trec {
	sim_time ts;
	uint64_t seq;           /* emission order: ties keep it */
	int32_t cpu;
	uint8_t type;
	char state;             /* sched_switch: prev_state */
	int32_t a, b;           /* task ids (switch: prev, next; wakeup: woken, target CPU) */
	int64_t x, y;           /* numbers (gp_seq; batch: CBs, bl / invoked; vector) */
	sim_time t1;            /* JSON: the end of what starts here (a pass, an irq, a batch) */
	int64_t z;              /* JSON: a batch's callbacks invoked */
	const char *s;          /* static text (rcu_utilization, gp event, batch flags) */
} trec;

/* A task as the trace names it. */
typedef struct ttask {
	char comm[16];          /* TASK_COMM_LEN: truncated as the kernel truncates */
	int pid;
	int prio;
} ttask;

struct ktrace {
	FILE *out;
	const char *path;
	rcusim_trace_fail *fail; /* the caller's: set at the first write that fails */
	bool dead;              /* a write failed: nothing more is kept or written */
	bool window_flushed;    /* the writer has passed the window's end: flushed once */
	bool json;
	trace_datw *dat;        /* trace.dat (the trace library's writer), or NULL */
	int lib_err;            /* the trace library's first error writing (an errno value), or 0 */
	sim_time from, to;
	bool *cpus;             /* per CPU: traced */
	int ncpus;
	/* Tasks: ids 0..ncpus-1 the idle tasks, then ksoftirqd/N, the kthreads,
	 * the jobs. */
	ttask *task;
	int ntask;
	int ksd0, kt0, job0;    /* first id of each family */
	const kthread **kts;    /* kthread of id kt0 + i */
	int nkt;
	/* The heap. */
	trec *h;
	size_t n, cap;
	uint64_t seq;
	sim_time written;       /* ts of the last record written */
	uint64_t late;          /* records older than one written */
	uint64_t lines;
	int *curr;              /* per CPU: the task running, as written */
	int64_t *qlast;         /* JSON: per CPU, its queued callbacks as last counted, or -1 */
	bool gp_open;           /* JSON: a grace period's begin is written, its end not yet */
	int64_t gp_seq;         /* ... its gp_seq */
	sim_time *slice_start;  /* JSON: per CPU, when curr began */
	struct pend_end *pend;  /* JSON: per CPU, PEND_MAX ends of its interrupt track's open slices */
	int *npend;
	bool first_json;
	const char *rcuname;
};

/* An interrupt-track slice whose end is not written yet (JSON). */
struct pend_end {
	sim_time end;
	const char *name;       /* static text */
	const char *cat;
	bool fault;             /* "injected fault: " + name */
};
enum { PEND_MAX = 8 };

/* ---- tasks ---- */

int ktrace_task_id(const kmodel *k, const kcpu *c, const sched_task *p)
{
	const ktrace *tr = k->tr;
	if (!p)
		return c->id;
	if (p == &c->ksoftirqd)
		return tr->ksd0 + c->id;
	if (is_kthread(c, p)) {
		const kthread *kt = task_kthread((sched_task *)p);
		for (int i = 0; i < tr->nkt; i++)
			if (tr->kts[i] == kt)
				return tr->kt0 + i;
		return c->id;
	}
	const job *j = p->owner;
	return tr->job0 + (int)(j->wl->first + (j - j->wl->jobs));
}

/* The kernel's name of kthread @kt. */
static void kthread_comm(const kmodel *k, const kthread *kt, char *buf, size_t len)
	__attribute__((nonnull));
static void kthread_comm(const kmodel *k, const kthread *kt, char *buf, size_t len)
{
	const char *n = kt->ops->name;
	const krcu *r = &k->rcu;
	if (kt == r->gpk)
		snprintf(buf, len, "%s", r->preempt_rcu ? "rcu_preempt" : "rcu_sched");
	else if (!strcmp(n, "rcuc"))
		snprintf(buf, len, "rcuc/%d", kt->cpu->id);
	else if (!strcmp(n, "rcuog")) /* named by its group's first CPU, wherever it runs */
		snprintf(buf, len, "rcuog/%d", r->ops->nocb_leader(r->rsp, kt->id));
	else if (!strcmp(n, "rcuo"))
		snprintf(buf, len, "%s/%d", r->preempt_rcu ? "rcuop" : "rcuos", kt->id);
	else if (!strcmp(n, "rcu_exp_gp_kworker"))
		snprintf(buf, len, "rcu_exp_gp_kthread_worker");
	else if (!strcmp(n, "rcu_exp_par_gp_kworker"))
		snprintf(buf, len, "rcu_exp_par_gp_kthread_worker/%d", kt->id);
	else
		snprintf(buf, len, "kworker/%d:%s", kt->cpu->id, n);
}

/* @t's comm from @fmt, cut to TASK_COMM_LEN - 1 characters as the kernel
 * cuts it. */
static void set_comm(ttask *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_comm(ttask *t, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(t->comm, sizeof(t->comm), "%.15s", buf);
}

static int tasks_init(kmodel *k, ktrace *tr)
{
	int ncpus = k->mach.ncpus, nkt = 0;
	for (int i = 0; i < ncpus; i++)
		for (const kthread *kt = k->cpu[i].kthreads; kt; kt = kt->next)
			nkt++;
	int64_t njobs = 0;
	for_each_load(k, w)
		njobs += w->njobs;
	tr->ntask = 2 * ncpus + nkt + (int)njobs;
	tr->ksd0 = ncpus;
	tr->kt0 = 2 * ncpus;
	tr->job0 = 2 * ncpus + nkt;
	tr->nkt = nkt;
	if (!(tr->task = calloc((size_t)tr->ntask, sizeof(*tr->task))) ||
	    !(tr->kts = calloc((size_t)(nkt ? nkt : 1), sizeof(*tr->kts))))
		return SIM_ENOMEM;
	int pid = 2;
	for (int i = 0; i < ncpus; i++) {
		ttask *t = &tr->task[i];
		set_comm(t, "swapper/%d", i);
		t->pid = 0;
		t->prio = 120;
		t = &tr->task[tr->ksd0 + i];
		set_comm(t, "ksoftirqd/%d", i);
		t->pid = pid++;
		t->prio = 120;
	}
	int id = 0;
	for (int i = 0; i < ncpus; i++)
		for (const kthread *kt = k->cpu[i].kthreads; kt; kt = kt->next) {
			ttask *t = &tr->task[tr->kt0 + id];
			tr->kts[id++] = kt;
			char name[128];
			kthread_comm(k, kt, name, sizeof(name));
			set_comm(t, "%s", name);
			t->pid = pid++;
			t->prio = kt->task.fifo ? 98 : 120;
		}
	/* A named load's jobs by its name (the main load's by its kind). */
	for_each_load(k, w) for (int64_t j = 0; j < w->njobs; j++) {
		ttask *t = &tr->task[tr->job0 + w->first + j];
		set_comm(t, "%s", w->name ? w->name : w->ops->kind);
		t->pid = 10000 + (int)(w->first + j);
		t->prio = 120 + w->jobs[j].task.static_prio - 120;
	}
	return 0;
}

/* ---- the heap ---- */

static bool before(const trec *a, const trec *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

static void write_rec(ktrace *tr, const trec *r);

static void heap_pop(ktrace *tr, trec *out)
{
	*out = tr->h[0];
	trec last = tr->h[--tr->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= tr->n)
			break;
		if (c + 1 < tr->n && before(&tr->h[c + 1], &tr->h[c]))
			c++;
		if (!before(&tr->h[c], &last))
			break;
		tr->h[i] = tr->h[c];
		i = c;
	}
	if (tr->n)
		tr->h[i] = last;
}

/* Write every record up to @upto. */
static void drain(ktrace *tr, sim_time upto)
{
	while (tr->n && !tr->dead && tr->h[0].ts <= upto) {
		trec r;
		heap_pop(tr, &r);
		write_rec(tr, &r);
	}
}

static void push(kmodel *k, trec *r)
{
	ktrace *tr = k->tr;
	if (tr->dead)
		return;
	if (r->cpu >= 0 && !tr->cpus[r->cpu] && !(tr->json && r->type == TE_GP))
		return; /* (JSON: grace periods are the RCU track's, not a CPU's) */
	if (tr->json && (r->type == TE_EXIT || r->type == TE_IRQ_EXIT || r->type == TE_BATCH_END ||
			 r->type == TE_UTIL || r->type == TE_RAISE))
		return;
	if (r->type != TE_SWITCH && (r->ts < tr->from || r->ts >= tr->to))
		return;
	if (tr->n == tr->cap) {
		size_t cap = tr->cap ? 2 * tr->cap : 4096;
		trec *h = realloc(tr->h, cap * sizeof(*h));
		if (!h) {
			kfail(k, SIM_ENOMEM);
			return;
		}
		tr->h = h;
		tr->cap = cap;
	}
	r->seq = tr->seq++;
	size_t i = tr->n++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(r, &tr->h[p]))
			break;
		tr->h[i] = tr->h[p];
		i = p;
	}
	tr->h[i] = *r;
	sim_time now = sim_now(k->eng);
	/* JSON: the CPU's queued callbacks, a counter of its own, wherever an
	 * event of it shows them changed (at the model's time of the event's
	 * making: the queue as it is now). */
	if (tr->json && r->cpu >= 0 && r->type != TE_COUNTER) {
		int64_t q = rcu_qlen(&k->doms, r->cpu);
		if (q != tr->qlast[r->cpu]) {
			tr->qlast[r->cpu] = q;
			trec c = { .ts = now, .cpu = r->cpu, .type = TE_COUNTER, .x = q };
			push(k, &c);
		}
	}
	if (now - KTRACE_LAG > tr->written)
		drain(tr, now - KTRACE_LAG);
}

/* ---- writing ---- */

static const char *irq_name(int64_t vector)
{
	switch (vector) {
	case 236: return "local_timer";
	case 253: return "reschedule";
	default: return "call_function_single";
	}
}

/* The JSON name of a task slice's thread: CPU n. */
static void json_event(ktrace *tr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void json_event(ktrace *tr, const char *fmt, ...)
{
	va_list ap;
	if (!tr->first_json)
		fputs(",\n", tr->out);
	tr->first_json = false;
	va_start(ap, fmt);
	vfprintf(tr->out, fmt, ap);
	va_end(ap);
	tr->lines++;
}

static double us(sim_time t) { return (double)t / 1e3; }

/* The interrupt track of CPU @cpu: its ticks, IPIs, softirq passes,
 * rcu_do_batch()es and faults, apart from its task slices (tid = CPU), so
 * that neither track's slices end where the other's do. */
#define IRQ_TID(cpu) (IRQ_TID_BASE + (cpu))
#define FAULT_TID(cpu) (FAULT_TID_BASE + (cpu))
enum { IRQ_TID_BASE = 100000, FAULT_TID_BASE = 200000 };

static void json_end(ktrace *tr, int tid, const struct pend_end *p)
{
	json_event(tr, "{\"name\":\"%s%s\",\"cat\":\"%s\",\"ph\":\"E\",\"ts\":%.3f,\"pid\":0,\"tid\":%d}",
		   p->fault ? "injected fault: " : "", p->name, p->cat, us(p->end), tid);
}

/* Write the ends of CPU @cpu's interrupt-track slices that are over by
 * @t, innermost first. */
static void json_irq_flush(ktrace *tr, int cpu, sim_time t)
{
	struct pend_end *st = tr->pend + (size_t)cpu * PEND_MAX;
	while (tr->npend[cpu] && st[tr->npend[cpu] - 1].end <= t)
		json_end(tr, IRQ_TID(cpu), &st[--tr->npend[cpu]]);
}

/* A slice from @s to @e ns on CPU @cpu's interrupt track: its begin now,
 * its end once what nests in it (a pass's rcu_do_batch(), which may end
 * with it) is written, so that the track's begins and ends nest as
 * written; a viewer ordering equal times as written (speedscope) reads
 * them as they are. @args is "" or ",\"args\":{...}". */
static void json_irq_slice(ktrace *tr, int cpu, const char *name, bool fault, const char *cat, sim_time s,
			   sim_time e, const char *args)
{
	json_irq_flush(tr, cpu, s);
	json_event(tr, "{\"name\":\"%s%s\",\"cat\":\"%s\",\"ph\":\"B\",\"ts\":%.3f,\"pid\":0,\"tid\":%d%s}",
		   fault ? "injected fault: " : "", name, cat, us(s), IRQ_TID(cpu), args);
	struct pend_end p = { e, name, cat, fault };
	struct pend_end *st = tr->pend + (size_t)cpu * PEND_MAX;
	if (tr->npend[cpu] == PEND_MAX) /* deeper than anything nests: end the innermost now */
		json_irq_flush(tr, cpu, st[tr->npend[cpu] - 1].end);
	st[tr->npend[cpu]++] = p;
}

/* A task slice from @s to @e ns on CPU @cpu's task track: its begin and
 * end, the end's time to the digit the next slice's begin (a complete
 * event's ts + dur, added as doubles by a viewer, can pass it by a
 * rounding, and speedscope then nests the next slice in it). */
static void json_task_slice(ktrace *tr, int cpu, const char *name, sim_time s, sim_time e, int pid)
{
	json_event(tr, "{\"name\":\"%s\",\"cat\":\"sched\",\"ph\":\"B\",\"ts\":%.3f,\"pid\":0,\"tid\":%d,"
		   "\"args\":{\"pid\":%d}}", name, us(s), cpu, pid);
	json_event(tr, "{\"name\":\"%s\",\"cat\":\"sched\",\"ph\":\"E\",\"ts\":%.3f,\"pid\":0,\"tid\":%d}",
		   name, us(e), cpu);
}

static void json_slice_end(ktrace *tr, int cpu, sim_time t)
{
	int id = tr->curr[cpu];
	sim_time s = tr->slice_start[cpu] > tr->from ? tr->slice_start[cpu] : tr->from;
	if (id < tr->ncpus || t <= s)
		return; /* idle: no slice */
	const ttask *tk = &tr->task[id];
	json_task_slice(tr, cpu, tk->comm, s, t, tk->pid);
}

/* A grace period's begin or end (@ph "b", "e") on the RCU track, @cut
 * saying where the window cut it (or NULL). */
static void json_gp(ktrace *tr, const char *ph, int64_t seq, sim_time t, const char *cut)
{
	json_event(tr,
		   "{\"name\":\"grace period\",\"cat\":\"rcu\",\"ph\":\"%s\",\"id\":%" PRId64
		   ",\"ts\":%.3f,\"pid\":1,\"tid\":0,\"args\":{\"gp_seq\":%" PRId64 "%s%s%s}}",
		   ph, seq, us(t), seq, cut ? ",\"cut\":\"" : "", cut ? cut : "", cut ? "\"" : "");
}

static void write_json(ktrace *tr, const trec *r)
{
	int cpu = r->cpu;
	char args[160];
	switch (r->type) {
	case TE_SWITCH:
		if (r->ts >= tr->from && tr->slice_start[cpu] < tr->to)
			json_slice_end(tr, cpu, r->ts < tr->to ? r->ts : tr->to);
		tr->curr[cpu] = r->b;
		tr->slice_start[cpu] = r->ts;
		break;
	case TE_WAKEUP:
		json_event(tr,
			   "{\"name\":\"wakeup %s\",\"cat\":\"sched\",\"ph\":\"i\",\"s\":\"t\",\"ts\":%.3f,"
			   "\"pid\":0,\"tid\":%d,\"args\":{\"pid\":%d,\"target_cpu\":%d}}",
			   tr->task[r->a].comm, us(r->ts), cpu, tr->task[r->a].pid, r->b);
		break;
	case TE_ENTRY:
		json_irq_slice(tr, cpu, "RCU softirq", false, "softirq", r->ts, r->t1, ",\"args\":{\"vec\":9}");
		break;
	case TE_EXIT:
	case TE_IRQ_EXIT:
	case TE_BATCH_END:
		break; /* in the X event of its start */
	case TE_RAISE:
	case TE_UTIL:
		break; /* the slices say it */
	case TE_IRQ_ENTRY:
		snprintf(args, sizeof(args), ",\"args\":{\"vector\":%" PRId64 "}", r->x);
		json_irq_slice(tr, cpu, irq_name(r->x), false, "irq", r->ts, r->t1, args);
		break;
	case TE_GP:
		/* Start and end carry the same gp_seq (the kernel traces "end"
		 * before rcu_seq_end()): the pair's id. */
		if (!strcmp(r->s, "start")) {
			json_gp(tr, "b", r->x, r->ts, NULL);
			tr->gp_open = true;
			tr->gp_seq = r->x;
		} else if (!strcmp(r->s, "end")) {
			/* Begun before the window: its begin at the window's
			 * start, so that no end is an orphan. */
			if (!tr->gp_open || tr->gp_seq != r->x)
				json_gp(tr, "b", r->x, tr->from, "before the window");
			json_gp(tr, "e", r->x, r->ts, NULL);
			tr->gp_open = false;
		} else
			json_event(tr,
				   "{\"name\":\"%s\",\"cat\":\"rcu\",\"ph\":\"i\",\"s\":\"p\",\"ts\":%.3f,"
				   "\"pid\":1,\"tid\":0,\"args\":{\"gp_seq\":%" PRId64 "}}",
				   r->s, us(r->ts), r->x);
		break;
	case TE_BATCH_START:
		snprintf(args, sizeof(args),
			 ",\"args\":{\"CBs\":%" PRId64 ",\"bl\":%" PRId64 ",\"CBs-invoked\":%" PRId64 "}", r->x,
			 r->y, r->z);
		json_irq_slice(tr, cpu, "rcu_do_batch", false, "rcu", r->ts, r->t1, args);
		break;
	case TE_FAULT:
		/* Its own track: a fault that leaves interrupts on overlaps the
		 * interrupt track's slices without nesting. */
		json_event(tr, "{\"name\":\"injected fault: %s\",\"cat\":\"fault\",\"ph\":\"B\",\"ts\":%.3f,"
			   "\"pid\":0,\"tid\":%d}", r->s, us(r->ts), FAULT_TID(cpu));
		json_event(tr, "{\"name\":\"injected fault: %s\",\"cat\":\"fault\",\"ph\":\"E\",\"ts\":%.3f,"
			   "\"pid\":0,\"tid\":%d}", r->s, us(r->t1), FAULT_TID(cpu));
		break;
	case TE_COUNTER:
		if (cpu >= 0)
			json_event(tr,
				   "{\"name\":\"callbacks queued CPU %d\",\"ph\":\"C\",\"ts\":%.3f,\"pid\":1,"
				   "\"args\":{\"queued\":%" PRId64 "}}",
				   cpu, us(r->ts), r->x);
		else
			json_event(tr,
				   "{\"name\":\"callbacks queued\",\"ph\":\"C\",\"ts\":%.3f,\"pid\":1,"
				   "\"args\":{\"queued\":%" PRId64 "}}",
				   us(r->ts), r->x);
		break;
	}
}

/* The flags column (irqs-off, need-resched, hardirq/softirq, preempt
 * depth, migrate-disable): what the kernel's context gives each event. */
static const char *flags_of(const trec *r)
{
	switch (r->type) {
	case TE_RAISE:
	case TE_IRQ_ENTRY:
	case TE_IRQ_EXIT:
		return "d.h..";
	case TE_UTIL:
		return strstr(r->s, "tick") ? "d.h.." : strstr(r->s, "RCU core") ? "..s.." : "d..2.";
	case TE_ENTRY:
	case TE_EXIT:
	case TE_BATCH_START:
	case TE_BATCH_END:
		return "..s..";
	case TE_SWITCH:
		return "d..2.";
	default:
		return "d..3.";
	}
}

/* @r as the trace library's event (trace.h): its type, and its fields as
 * trace_text_event() and trace_datw_event() take them, the one form both
 * the text and trace.dat are written from. */
static trace_ev_type ev_of(const ktrace *tr, const trec *r, int64_t num[7], const char *str[3])
{
	switch (r->type) {
	case TE_SWITCH: {
		const ttask *p = &tr->task[r->a], *n = &tr->task[r->b];
		str[0] = p->comm;
		str[1] = n->comm;
		num[0] = p->pid;
		num[1] = p->prio;
		num[2] = r->state == 'S' ? 1 : 0; /* TASK_INTERRUPTIBLE, or running */
		num[3] = n->pid;
		num[4] = n->prio;
		return TEV_SCHED_SWITCH;
	}
	case TE_WAKEUP: {
		const ttask *w = &tr->task[r->a];
		str[0] = w->comm;
		num[0] = w->pid;
		num[1] = w->prio;
		num[2] = r->b;
		return TEV_SCHED_WAKEUP;
	}
	case TE_RAISE:
	case TE_ENTRY:
	case TE_EXIT:
		num[0] = 9; /* RCU_SOFTIRQ */
		return r->type == TE_RAISE ? TEV_SOFTIRQ_RAISE : r->type == TE_ENTRY ? TEV_SOFTIRQ_ENTRY
										    : TEV_SOFTIRQ_EXIT;
	case TE_UTIL:
		str[0] = r->s;
		return TEV_RCU_UTILIZATION;
	case TE_IRQ_ENTRY:
	case TE_IRQ_EXIT: {
		bool in = r->type == TE_IRQ_ENTRY;
		num[0] = r->x;
		/* as irq_name() */
		return r->x == 236   ? (in ? TEV_LOCAL_TIMER_ENTRY : TEV_LOCAL_TIMER_EXIT)
		       : r->x == 253 ? (in ? TEV_RESCHEDULE_ENTRY : TEV_RESCHEDULE_EXIT)
				     : (in ? TEV_CALL_FUNCTION_SINGLE_ENTRY : TEV_CALL_FUNCTION_SINGLE_EXIT);
	}
	case TE_GP:
		str[0] = tr->rcuname;
		str[1] = r->s;
		num[0] = r->x;
		return TEV_RCU_GRACE_PERIOD;
	case TE_BATCH_START:
		str[0] = tr->rcuname;
		num[0] = r->x;
		num[1] = r->y;
		return TEV_RCU_BATCH_START;
	case TE_BATCH_END:
		/* idle=....: rcu_do_batch()'s end says no callbacks left, no
		 * need_resched, not the idle task, no risky invocation as the
		 * model has them (num[1..4] zero) */
		str[0] = tr->rcuname;
		num[0] = r->x;
		return TEV_RCU_BATCH_END;
	default:
		return TEV_OTHER; /* no tracepoint of the kernel's says it */
	}
}

/* @r into the tracefs text or trace.dat, through the trace library. */
static void write_event(ktrace *tr, const trec *r)
{
	int cpu = r->cpu;
	if (r->type == TE_SWITCH && (r->ts < tr->from || r->ts >= tr->to)) {
		tr->curr[cpu] = r->b;
		return;
	}
	int64_t num[7] = { 0 };
	const char *str[3] = { NULL };
	trace_ev_type type = ev_of(tr, r, num, str);
	if (type == TEV_OTHER)
		return;
	const ttask *cur = &tr->task[cpu >= 0 ? tr->curr[cpu] : 0];
	int rc = tr->dat ? trace_datw_event(tr->dat, cpu, r->ts, cur->pid, type, num, str)
			 : trace_text_event(tr->out, cpu, r->ts, cur->comm, cur->pid, flags_of(r), type, num, str);
	if (rc && !tr->lib_err)
		tr->lib_err = rc; /* write_failed() says it */
	if (r->type == TE_SWITCH)
		tr->curr[cpu] = r->b;
	tr->lines++;
}

/* Has a write to the trace failed (its errno is the one this write left)?
 * Then say so in the caller's rcusim_trace_fail, at once, with @at, and
 * write nothing more: the heap is emptied and later events dropped. */
static bool write_failed(ktrace *tr, sim_time at)
{
	if (tr->dead)
		return true;
	if (!ferror(tr->out) && !tr->lib_err)
		return false;
	int e = tr->lib_err ? tr->lib_err : errno ? errno : EIO;
	tr->dead = true;
	tr->n = 0;
	if (tr->fail && !tr->fail->err)
		*tr->fail = (rcusim_trace_fail){ e, at };
	return true;
}

static void write_rec(ktrace *tr, const trec *r)
{
	if (tr->dead)
		return;
	if (r->ts < tr->written)
		tr->late++;
	else
		tr->written = r->ts;
	errno = 0;
	if (tr->json)
		write_json(tr, r);
	else
		write_event(tr, r);
	/* Past the window's end nothing more is written but switches' state:
	 * what is written is on disk now, not at the end of the run (a run
	 * killed later leaves no line cut). */
	if (r->ts >= tr->to && !tr->window_flushed) {
		tr->window_flushed = true;
		fflush(tr->out);
	}
	write_failed(tr, r->ts);
}

/* ---- the model's events ---- */

void ktrace_switch(kmodel *k, const kcpu *c, sim_time t, const sched_task *prev,
		   const sched_task *next)
{
	char state = 'R';
	if (prev && prev == &c->ksoftirqd)
		state = c->ksd_runnable ? 'R' : 'S';
	else if (prev && is_kthread(c, prev))
		state = task_kthread((sched_task *)prev)->sleeping ? 'S' : 'R';
	else if (prev)
		state = ((const job *)prev->owner)->sleeping ? 'S' : 'R';
	trec r = { .ts = t, .cpu = c->id, .type = TE_SWITCH, .state = state,
		   .a = ktrace_task_id(k, c, prev), .b = ktrace_task_id(k, c, next) };
	if (r.a == r.b)
		return;
	trec u = { .ts = t, .cpu = c->id, .type = TE_UTIL, .s = "Start context switch" };
	push(k, &u);
	push(k, &r);
	trec e = { .ts = t, .cpu = c->id, .type = TE_UTIL, .s = "End context switch" };
	push(k, &e);
}

void ktrace_wakeup(kmodel *k, const kcpu *c, sim_time t, const sched_task *p)
{
	trec r = { .ts = t, .cpu = c->id, .type = TE_WAKEUP, .a = ktrace_task_id(k, c, p), .b = c->id };
	push(k, &r);
}

void ktrace_wakeup_from(kmodel *k, const kcpu *waker, const kcpu *c, sim_time t, const sched_task *p)
{
	trec r = { .ts = t, .cpu = waker->id, .type = TE_WAKEUP, .a = ktrace_task_id(k, c, p), .b = c->id };
	push(k, &r);
}

void ktrace_softirq_raise(kmodel *k, const kcpu *c, sim_time t)
{
	trec r = { .ts = t, .cpu = c->id, .type = TE_RAISE };
	push(k, &r);
}

void ktrace_softirq_pass(kmodel *k, const kcpu *c, sim_time t0, sim_time t1, int64_t invoked,
			 int64_t qlen, int64_t bl)
{
	trec r = { .ts = t0, .t1 = t1, .cpu = c->id, .type = TE_ENTRY };
	push(k, &r);
	trec u = { .ts = t0, .cpu = c->id, .type = TE_UTIL, .s = "Start RCU core" };
	push(k, &u);
	if (invoked > 0 && bl > 0) {
		trec b = { .ts = t0, .t1 = t1, .cpu = c->id, .type = TE_BATCH_START, .x = qlen, .y = bl,
			   .z = invoked };
		push(k, &b);
		trec e = { .ts = t1, .cpu = c->id, .type = TE_BATCH_END, .x = invoked, .s = "...." };
		push(k, &e);
	}
	trec v = { .ts = t1, .cpu = c->id, .type = TE_UTIL, .s = "End RCU core" };
	push(k, &v);
	trec x = { .ts = t1, .cpu = c->id, .type = TE_EXIT };
	push(k, &x);
}

void ktrace_irq(kmodel *k, const kcpu *c, sim_time t0, sim_time t1, int vector)
{
	trec r = { .ts = t0, .t1 = t1, .cpu = c->id, .type = TE_IRQ_ENTRY, .x = vector };
	push(k, &r);
	if (vector == 236) {
		trec u = { .ts = t0, .cpu = c->id, .type = TE_UTIL, .s = "Start scheduler-tick" };
		push(k, &u);
		trec v = { .ts = t1, .cpu = c->id, .type = TE_UTIL, .s = "End scheduler-tick" };
		push(k, &v);
	}
	trec x = { .ts = t1, .cpu = c->id, .type = TE_IRQ_EXIT, .x = vector };
	push(k, &x);
}

void ktrace_gp(kmodel *k, const kcpu *c, sim_time t, uint64_t gp_seq, const char *what)
{
	trec r = { .ts = t, .cpu = c->id, .type = TE_GP, .x = (int64_t)gp_seq, .s = what };
	push(k, &r);
}

void ktrace_fault(kmodel *k, const kcpu *c, sim_time t0, sim_time t1, unsigned kind)
{
	if (!k->tr->json)
		return;
	const char *what = kind == FAULT_IRQS_OFF ? "interrupts off" : kind == FAULT_NO_TICKS ? "no ticks"
										  : "no quiescent state";
	trec r = { .ts = t0, .t1 = t1, .cpu = c->id, .type = TE_FAULT, .s = what };
	push(k, &r);
}

void ktrace_counter(kmodel *k, sim_time t, int64_t queued)
{
	if (!k->tr->json)
		return;
	trec r = { .ts = t, .cpu = -1, .type = TE_COUNTER, .x = queued };
	push(k, &r);
}

/* ---- open, close ---- */

int kernel_trace(void *state, const rcusim_trace_opts *o, char *err, size_t errlen)
{
	kmodel *k = state;
	if (o->cpus) {
		/* Checked before anything is written (or, with no file, only
		 * checked). */
		char why[512];
		bool *m = calloc((size_t)k->mach.ncpus, sizeof(bool));
		if (!m)
			goto nomem;
		int rc = sim_cpulist_parse("--trace-cpus", o->cpus, k->mach.ncpus, m, why, sizeof(why));
		free(m);
		if (rc) {
			snprintf(err, errlen, "%s", why);
			return SIM_EINPUT;
		}
	}
	if (!o->out)
		return 0;
	ktrace *tr = calloc(1, sizeof(*tr));
	if (!tr)
		goto nomem;
	k->tr = tr;
	tr->out = o->out;
	tr->path = o->path;
	tr->fail = o->fail;
	tr->json = o->format == RCUSIM_TRACE_JSON;
	tr->from = o->from;
	tr->to = o->to;
	tr->ncpus = k->mach.ncpus;
	tr->first_json = true;
	tr->rcuname = k->rcu.preempt_rcu ? "rcu_preempt" : "rcu_sched";
	if (!(tr->cpus = calloc((size_t)tr->ncpus, sizeof(bool))) ||
	    !(tr->curr = calloc((size_t)tr->ncpus, sizeof(int))) ||
	    !(tr->slice_start = calloc((size_t)tr->ncpus, sizeof(sim_time))) ||
	    !(tr->pend = calloc((size_t)tr->ncpus * PEND_MAX, sizeof(*tr->pend))) ||
	    !(tr->npend = calloc((size_t)tr->ncpus, sizeof(int))) ||
	    !(tr->qlast = malloc((size_t)tr->ncpus * sizeof(*tr->qlast))))
		goto nomem;
	for (int i = 0; i < tr->ncpus; i++)
		tr->qlast[i] = -1;
	if (o->cpus) {
		char why[512];
		(void)sim_cpulist_parse("--trace-cpus", o->cpus, tr->ncpus, tr->cpus, why, sizeof(why));
	} else {
		for (int i = 0; i < tr->ncpus; i++)
			tr->cpus[i] = true;
	}
	if (tasks_init(k, tr))
		goto nomem;
	if (o->format == RCUSIM_TRACE_DAT) {
		int rc = trace_datw_create(&tr->dat, tr->out, tr->ncpus);
		if (rc == ENOMEM)
			goto nomem;
		if (rc) {
			snprintf(err, errlen, "--trace %s: no temporary file for its CPUs' pages: %s", tr->path,
				 strerror(rc));
			return SIM_EIO;
		}
		for (int i = 0; i < tr->ntask; i++)
			if (tr->task[i].pid > 0 && trace_datw_comm(tr->dat, tr->task[i].pid, tr->task[i].comm))
				goto nomem;
	}
	for (int i = 0; i < tr->ncpus; i++)
		tr->curr[i] = ktrace_task_id(k, &k->cpu[i], k->cpu[i].rq.curr);
	if (tr->dat) {
		/* trace.dat is written whole at the end (trace/datw.c). */
	} else if (tr->json) {
		fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", tr->out);
		json_event(tr, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"CPUs\"}}");
		json_event(tr, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"RCU\"}}");
		for (int i = 0; i < tr->ncpus; i++)
			if (tr->cpus[i])
				json_event(tr,
					   "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,"
					   "\"args\":{\"name\":\"CPU %d\"}},\n"
					   "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,"
					   "\"args\":{\"name\":\"CPU %d irq+softirq\"}},\n"
					   "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,"
					   "\"args\":{\"name\":\"CPU %d injected faults\"}}",
					   i, i, IRQ_TID(i), i, FAULT_TID(i), i);
	} else {
		fprintf(tr->out,
			"# tracer: nop\n#\n# rcusim timeline: %d CPUs\n#\n"
			"#                                _-----=> irqs-off/BH-disabled\n"
			"#                               / _----=> need-resched\n"
			"#                              | / _---=> hardirq/softirq\n"
			"#                              || / _--=> preempt-depth\n"
			"#                              ||| / _-=> migrate-disable\n"
			"#                              |||| /     delay\n"
			"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
			"#              | |         |   |||||     |         |\n",
			tr->ncpus);
	}
	return 0;
nomem:
	snprintf(err, errlen, "--trace: out of memory");
	return SIM_ENOMEM;
}

void ktrace_close(kmodel *k, sim_time now)
{
	ktrace *tr = k->tr;
	if (!tr || tr->dead)
		return;
	drain(tr, INT64_MAX);
	if (tr->dead)
		return;
	if (tr->json) {
		sim_time end = now < tr->to ? now : tr->to;
		/* A grace period still open at the window's end (or the run's)
		 * ends there: no begin is left unterminated. */
		if (tr->gp_open)
			json_gp(tr, "e", tr->gp_seq, end, tr->to <= now ? "after the window" : "after the run");
		tr->gp_open = false;
		for (int i = 0; i < tr->ncpus; i++)
			if (tr->cpus[i]) {
				json_slice_end(tr, i, end);
				json_irq_flush(tr, i, INT64_MAX);
			}
		fputs("\n]}\n", tr->out);
	}
	errno = 0;
	if (tr->dat && !tr->lib_err)
		tr->lib_err = trace_datw_finish(tr->dat);
	fflush(tr->out);
	if (!write_failed(tr, now) && tr->late)
		fprintf(stderr, "rcusim: --trace %s: %" PRIu64 " events written out of time order\n",
			tr->path, tr->late);
}

void ktrace_destroy(kmodel *k)
{
	ktrace *tr = k->tr;
	if (!tr)
		return;
	trace_datw_destroy(tr->dat);
	free(tr->qlast);
	free(tr->cpus);
	free(tr->curr);
	free(tr->slice_start);
	free(tr->pend);
	free(tr->npend);
	free(tr->task);
	free(tr->kts);
	free(tr->h);
	free(tr);
	k->tr = NULL;
}
