/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * measure.c - a trace's events as the metrics the model writes (trace.h),
 * for `rcusim import`. From the events (include/trace/events/ of 6.x):
 * - softirq_entry/exit vec=9: RCU softirq passes, in ksoftirqd (its comm, or
 *   a pid a switch or wakeup named ksoftirqd/N) or elsewhere
 *   (softirq.passes_ksoftirqd, softirq.passes_irq_exit); each CPU's share in
 *   the RCU softirq per sample interval (softirq.busy_frac); softirq runs
 *   with an RCU pass outside ksoftirqd and their lengths. A CPU's entry
 *   followed by another entry with no exit between (a recording that enabled
 *   softirq_entry before softirq_exit), or an exit with no entry, is
 *   unmatched: skipped, and counted in a note;
 * - sched_switch: context switches (sched.ctxsw). When the recording
 *   filtered sched_switch to some tasks (trace_switch_filtered(): fewer than
 *   rcu_utilization's "Start context switch", rcu_note_context_switch() in
 *   every __schedule(); without it, switches that do not chain: a CPU's next
 *   switch leaves another task than the last one entered), or there are
 *   none, sched.ctxsw counts rcu_utilization's "Start context switch"
 *   instead, and a note says so. Switches that do not chain in a trace
 *   that was not filtered are switches it lacks: said;
 * - sched_wakeup of ksoftirqd/N and of the GP kthread (rcu_preempt,
 *   rcu_sched): softirq.ksoftirqd_wakeups, gp.kthread_wakeups, and each
 *   wait until ksoftirqd ran (softirq.ksoftirqd_wait_ns, its longest
 *   softirq.ksoftirqd_wait_max_ns), ended by the switch into it or by its
 *   own first event on its CPU, whichever comes first (a switch the trace
 *   lost); the GP kthread's waits the same way (gp.kthread_wait_ns, by its
 *   pid, on any CPU). A wakeup followed by another before the task ran
 *   waits from the first; one still waiting when the trace ends is not
 *   counted;
 * - rcu_utilization "Start scheduler-tick": the box's HZ, the modal
 *   interval between a CPU's ticks;
 * - with CONFIG_RCU_TRACE: rcu_grace_period start/end (gp.completed,
 *   gp.duration_ns), rcu_batch_end or rcu_invoke_callback (cb.invoked),
 *   rcu_callback and rcu_invoke_callback paired by rhp (cb.latency_ns);
 *   without it, cb.invoked counts kmem_cache_free and kfree called from
 *   rcu_do_batch (call_site=rcu_do_batch+..., a recording filtered to them);
 * - syscalls' sys_enter/exit_membarrier of MEMBARRIER_CMD_GLOBAL (cmd 1),
 *   paired by pid: one synchronize_rcu() each (kernel/sched/membarrier.c
 *   6.18:651-657, on a box of more than one CPU), from entry to exit
 *   (syncrcu.calls, syncrcu.returned, syncrcu.latency_ns); rcusim record
 *   --load sync records them.
 * A metric whose events the trace does not hold is absent, not 0.
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* Per CPU. */
typedef struct mcpu {
	bool seen;
	int64_t rcu_at;      /* ns: the RCU softirq entry in progress, or -1 */
	int64_t busy;        /* ns in the RCU softirq in the current sample interval */
	int64_t ksd_woken;   /* ns: its ksoftirqd's wakeup not yet followed by it running, or -1 */
	int ksd_pid;         /* the pid that wakeup named */
	int64_t run_at;      /* ns: the softirq run in progress began, or -1 */
	int64_t run_end;     /* ns: its last pass's exit */
	bool run_ksd;        /* it is ksoftirqd's (not counted) */
	bool run_rcu;        /* it made an RCU pass */
	bool in_pass;        /* a pass (any vector) is in progress */
	bool pass_rcu;       /* ... of the RCU softirq */
	bool pass_ksd;       /* ... in ksoftirqd */
	int64_t last_tick;   /* ns: its last scheduler-tick, or -1 */
	int last_next;       /* the pid its last switch entered, or -1 */
} mcpu;

struct trace_measure {
	mcpu *cpu;
	int ncpu;            /* slots */
	int maxcpu;          /* highest CPU seen */
	int nseen;           /* CPUs seen */
	int64_t t0, t1;      /* ns: first and last event */
	int64_t sample_ns, next_sample;
	double npoints, points_max;
	bool over;
	uint64_t events, pk, po, sw, util_cs, kw, gw, gps, invoked_batch, invoked_cb, invoked_free;
	uint64_t unmatched, chain_breaks;
	bool has_softirq, has_switch, has_util_cs, has_wakeup, has_batch, has_invoke, has_gp, has_free;
	int64_t ksd_wait_max;
	int64_t gp_woken;    /* ns: the GP kthread's wakeup not yet followed by it running, or -1 */
	int gp_pid;          /* the pid that wakeup named */
	int *ksd_pids;       /* pids named ksoftirqd/N by a switch or wakeup */
	size_t nksd;
	trace_tmap starts;     /* rcu_grace_period start by gp_seq */
	trace_tmap cbs;        /* rcu_callback by rhp */
	trace_tmap sys;        /* sys_enter_membarrier(MEMBARRIER_CMD_GLOBAL) by pid */
	uint64_t sys_calls, sys_returned;
	sim_hist *sys_hist;
	sim_metrics *m;
	sim_hist *gp_hist, *lat_hist, *run_hist, *ksd_wait_hist, *gp_wait_hist;
	uint64_t runs_other;
	int64_t *ticks;      /* intervals between a CPU's ticks, ns */
	size_t nticks, capticks;
	char inst[32];       /* the buffer the events are of */
	bool inst_set;
};

int trace_measure_create(trace_measure **out, sim_metrics *m, int64_t sample_ns, double points_max)
{
	trace_measure *tm = calloc(1, sizeof(*tm));
	if (!tm)
		return SIM_ENOMEM;
	tm->m = m;
	tm->maxcpu = -1;
	tm->sample_ns = sample_ns;
	tm->points_max = points_max;
	tm->gp_woken = -1;
	if (!(tm->gp_hist = sim_metrics_hist(m, "gp.duration_ns")) ||
	    !(tm->ksd_wait_hist = sim_metrics_hist(m, "softirq.ksoftirqd_wait_ns")) ||
	    !(tm->gp_wait_hist = sim_metrics_hist(m, "gp.kthread_wait_ns")) ||
	    !(tm->lat_hist = sim_metrics_hist(m, "cb.latency_ns")) ||
	    !(tm->sys_hist = sim_metrics_hist(m, "syncrcu.latency_ns")) ||
	    !(tm->run_hist = sim_metrics_hist(m, "softirq.irq_run_ns"))) {
		free(tm);
		return SIM_ENOMEM;
	}
	*out = tm;
	return 0;
}

void trace_measure_destroy(trace_measure *tm)
{
	if (!tm)
		return;
	free(tm->cpu);
	free(tm->ksd_pids);
	trace_tmap_free(&tm->starts);
	trace_tmap_free(&tm->cbs);
	trace_tmap_free(&tm->sys);
	free(tm->ticks);
	free(tm);
}

void trace_measure_get_info(const trace_measure *tm, trace_measure_info *info)
{
	*info = (trace_measure_info){ tm->events, tm->t0, tm->t1, tm->maxcpu, tm->nseen, tm->over };
}

/* The softirq run open on @c ends at its last pass's exit: counted if it
 * made an RCU pass outside ksoftirqd. */
static void run_close(trace_measure *tm, mcpu *c)
{
	if (c->run_at < 0)
		return;
	if (c->run_rcu && !c->run_ksd && !c->in_pass && c->run_end >= c->run_at) {
		sim_hist_add(tm->run_hist, (uint64_t)(c->run_end - c->run_at));
		tm->runs_other++;
	}
	c->run_at = -1;
}

/* Slots for CPUs 0 to @cpu (below 10^6). */
static int grow_cpus(trace_measure *tm, int cpu)
{
	assert(cpu >= 0 && cpu < 1000000);
	if (cpu < tm->ncpu)
		return 0;
	int n = tm->ncpu ? tm->ncpu : 8;
	while (n <= cpu)
		n *= 2;
	mcpu *c = realloc(tm->cpu, (size_t)n * sizeof(*c));
	if (!c)
		return -1;
	for (int i = tm->ncpu; i < n; i++)
		c[i] = (mcpu){ .rcu_at = -1, .ksd_woken = -1, .ksd_pid = -1, .run_at = -1, .last_tick = -1,
			       .last_next = -1 };
	tm->cpu = c;
	tm->ncpu = n;
	return 0;
}

/* The busy shares of every CPU for the sample interval ending at @t. */
static int sample(trace_measure *tm, int64_t t)
{
	double sum = 0;
	int n = 0;
	for (int i = 0; i <= tm->maxcpu; i++) {
		mcpu *c = &tm->cpu[i];
		if (!c->seen)
			continue;
		int64_t busy = c->busy;
		if (c->rcu_at >= 0 && c->rcu_at < t) {
			busy += t - c->rcu_at;
			c->rcu_at = t;
		}
		c->busy = 0;
		double f = (double)busy / (double)tm->sample_ns;
		sim_series *s = sim_metrics_series(tm->m, "softirq.busy_frac", i);
		if (!s || sim_series_append(s, t - tm->t0, f))
			return -1;
		sum += f;
		n++;
	}
	sim_series *s = sim_metrics_series(tm->m, "softirq.busy_frac", -1);
	if (!s || sim_series_append(s, t - tm->t0, n ? sum / n : 0))
		return -1;
	return 0;
}

static bool is_ksd_pid(const trace_measure *tm, int pid)
{
	for (size_t i = 0; i < tm->nksd; i++)
		if (tm->ksd_pids[i] == pid)
			return true;
	return false;
}

/* Remember @t as ksoftirqd if its name says so. */
static int note_task(trace_measure *tm, const trace_task *t)
{
	if (t->pid <= 0 || strncmp(t->comm, "ksoftirqd/", 10) || is_ksd_pid(tm, t->pid))
		return 0;
	int *p = realloc(tm->ksd_pids, (tm->nksd + 1) * sizeof(*p));
	if (!p)
		return -1;
	tm->ksd_pids = p;
	p[tm->nksd++] = t->pid;
	return 0;
}

/* The event ran in ksoftirqd: its comm (cut to 8 by report -l) or its pid. */
static bool in_ksoftirqd(const trace_measure *tm, const trace_ev *ev)
{
	if (!strncmp(ev->comm, "ksoftirqd/", 10) || (ev->comm_cut && !strcmp(ev->comm, "ksoftirq")))
		return true;
	return ev->pid > 0 && is_ksd_pid(tm, ev->pid);
}

int trace_measure_event(trace_measure *tm, const trace_ev *ev, const char **why)
{
	*why = NULL;
	int cpu = ev->cpu;
	int64_t ts = ev->ts;
	if (!tm->inst_set) {
		snprintf(tm->inst, sizeof(tm->inst), "%s", ev->inst);
		tm->inst_set = true;
	} else if (strcmp(tm->inst, ev->inst)) {
		*why = "an event of another buffer than the trace's first event (trace-cmd record -B): one "
		       "buffer's events at a time (trace-cmd report -B NAME, or --topt)";
		return 1;
	}
	if (grow_cpus(tm, cpu))
		return -1;
	if (cpu > tm->maxcpu)
		tm->maxcpu = cpu;
	if (!tm->cpu[cpu].seen)
		tm->nseen++;
	tm->cpu[cpu].seen = true;
	if (!tm->events++) {
		tm->t0 = ts;
		tm->next_sample = ts + tm->sample_ns;
	}
	assert(ts >= tm->t1 || tm->events == 1); /* trace_reorder: in time order */
	if (!tm->over && ts >= tm->next_sample &&
	    tm->npoints + (floor((double)(ts - tm->next_sample) / (double)tm->sample_ns) + 1) * (tm->nseen + 1) >
		    tm->points_max)
		tm->over = true;
	while (!tm->over && ts >= tm->next_sample) {
		if (sample(tm, tm->next_sample))
			return -1;
		tm->npoints += tm->nseen + 1;
		tm->next_sample += tm->sample_ns;
	}
	tm->t1 = ts;
	mcpu *c = &tm->cpu[cpu];
	if (note_task(tm, &ev->prev) || note_task(tm, &ev->next))
		return -1;
	bool ksd = in_ksoftirqd(tm, ev);
	/* ksoftirqd woken on this CPU runs: its wait ends (at the switch into
	 * it, or at its first event when the trace lost that switch). */
	if (c->ksd_woken >= 0 &&
	    ((ev->type == TEV_SCHED_SWITCH && (ev->next.pid == c->ksd_pid ||
					       !strncmp(ev->next.comm, "ksoftirqd/", 10))) ||
	     (ev->pid >= 0 && ev->pid == c->ksd_pid))) {
		if (ts - c->ksd_woken > tm->ksd_wait_max)
			tm->ksd_wait_max = ts - c->ksd_woken;
		sim_hist_add(tm->ksd_wait_hist, (uint64_t)(ts - c->ksd_woken));
		c->ksd_woken = -1;
	}
	/* The GP kthread woken runs, on whichever CPU. */
	if (tm->gp_woken >= 0 &&
	    ((ev->type == TEV_SCHED_SWITCH && ev->next.pid == tm->gp_pid) || ev->pid == tm->gp_pid)) {
		sim_hist_add(tm->gp_wait_hist, (uint64_t)(ts - tm->gp_woken));
		tm->gp_woken = -1;
	}
	uint64_t v;
	switch (ev->type) {
	case TEV_SOFTIRQ_ENTRY:
		tm->has_softirq = true;
		if (c->in_pass) {
			/* The last entry had no exit: unmatched (softirqs do not
			 * nest on a CPU). Its pass is not counted, its run starts
			 * over. */
			tm->unmatched++;
			c->run_at = -1;
			c->rcu_at = -1;
		}
		if (c->run_at < 0) {
			c->run_at = c->run_end = ts;
			c->run_ksd = ksd;
			c->run_rcu = false;
		}
		c->in_pass = true;
		c->pass_rcu = ev->vec == 9;
		c->pass_ksd = ksd;
		if (c->pass_rcu) {
			c->run_rcu = true;
			c->rcu_at = ts;
		}
		break;
	case TEV_SOFTIRQ_EXIT:
		tm->has_softirq = true;
		if (!c->in_pass) {
			tm->unmatched++; /* its entry is before the trace */
			break;
		}
		c->in_pass = false;
		c->run_end = ts;
		if (c->pass_rcu) {
			if (c->pass_ksd)
				tm->pk++;
			else
				tm->po++;
			if (c->rcu_at >= 0)
				c->busy += ts - c->rcu_at;
			c->rcu_at = -1;
		}
		break;
	default:
		if (!c->in_pass)
			run_close(tm, c);
		break;
	}
	switch (ev->type) {
	case TEV_RCU_UTILIZATION:
		if (!strncmp(ev->rest, "Start context switch", 20)) {
			tm->has_util_cs = true;
			tm->util_cs++;
		} else if (!strncmp(ev->rest, "Start scheduler-tick", 20)) {
			if (c->last_tick >= 0) {
				if (tm->nticks == tm->capticks) {
					size_t cap = tm->capticks ? 2 * tm->capticks : 1024;
					int64_t *t = realloc(tm->ticks, cap * sizeof(*t));
					if (!t)
						return -1;
					tm->ticks = t;
					tm->capticks = cap;
				}
				tm->ticks[tm->nticks++] = ts - c->last_tick;
			}
			c->last_tick = ts;
		}
		break;
	case TEV_SCHED_SWITCH:
		tm->has_switch = true;
		tm->sw++;
		if (c->last_next >= 0 && ev->prev.pid >= 0 && ev->prev.pid != c->last_next)
			tm->chain_breaks++;
		c->last_next = ev->next.pid;
		break;
	case TEV_SCHED_WAKEUP: {
		tm->has_wakeup = true;
		const char *n = ev->next.comm;
		if (!strncmp(n, "ksoftirqd/", 10)) {
			tm->kw++;
			int t = cpu;
			if (ev->target_cpu >= 0) {
				if (ev->target_cpu > 999999) {
					*why = "target_cpu= is not a CPU number (at most 6 digits, as [CPU])";
					return 1;
				}
				t = ev->target_cpu;
			}
			if (grow_cpus(tm, t))
				return -1;
			if (tm->cpu[t].ksd_woken < 0) {
				tm->cpu[t].ksd_woken = ts;
				tm->cpu[t].ksd_pid = ev->next.pid;
			}
		} else if (!strcmp(n, "rcu_preempt") || !strcmp(n, "rcu_sched")) {
			tm->gw++;
			if (tm->gp_woken < 0 && ev->next.pid > 0) {
				tm->gp_woken = ts;
				tm->gp_pid = ev->next.pid;
			}
		}
		break;
	}
	case TEV_RCU_GRACE_PERIOD: {
		/* "rcu_preempt 12345 start" */
		const char *q = ev->rest;
		while (*q && *q != ' ')
			q++;
		char *e;
		long long seq = strtoll(q, &e, 10);
		while (*e == ' ')
			e++;
		if (e == q)
			return 1;
		tm->has_gp = true;
		if (!strncmp(e, "start", 5)) {
			if (trace_tmap_put(&tm->starts, (uint64_t)seq + 1, ts))
				return -1;
		} else if (!strncmp(e, "end", 3) && (e[3] == 0 || e[3] == ' ' || e[3] == '\n')) {
			tm->gps++;
			int64_t s = trace_tmap_take(&tm->starts, (uint64_t)seq + 1);
			if (s >= 0 && ts >= s)
				sim_hist_add(tm->gp_hist, (uint64_t)(ts - s));
		}
		break;
	}
	case TEV_RCU_BATCH_END:
		tm->has_batch = true;
		if (trace_field(ev->rest, "CBs-invoked=", false, &v))
			tm->invoked_batch += v;
		break;
	case TEV_RCU_CALLBACK:
		if (trace_field(ev->rest, "rhp=", true, &v) && trace_tmap_put(&tm->cbs, v, ts))
			return -1;
		break;
	case TEV_RCU_INVOKE_CALLBACK:
		tm->has_invoke = true;
		tm->invoked_cb++;
		if (trace_field(ev->rest, "rhp=", true, &v)) {
			int64_t s = trace_tmap_take(&tm->cbs, v);
			if (s >= 0 && ts >= s)
				sim_hist_add(tm->lat_hist, (uint64_t)(ts - s));
		}
		break;
	case TEV_SYS_ENTER_MEMBARRIER:
		/* MEMBARRIER_CMD_GLOBAL (include/uapi/linux/membarrier.h: 1 << 0):
		 * the command that calls synchronize_rcu(). */
		if (ev->sys_arg == 1 && ev->pid > 0) {
			tm->sys_calls++;
			if (trace_tmap_put(&tm->sys, (uint64_t)ev->pid, ts))
				return -1;
		}
		break;
	case TEV_SYS_EXIT_MEMBARRIER:
		if (ev->pid > 0) {
			int64_t s = trace_tmap_take(&tm->sys, (uint64_t)ev->pid);
			if (s >= 0 && ts >= s) {
				tm->sys_returned++;
				sim_hist_add(tm->sys_hist, (uint64_t)(ts - s));
			}
		}
		break;
	case TEV_KMEM_CACHE_FREE:
	case TEV_KFREE:
		if (ev->from_rcu_do_batch) {
			tm->has_free = true;
			tm->invoked_free++;
		}
		break;
	default:
		break;
	}
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The box's HZ from the intervals between a CPU's ticks: their mode, in
 * bins 2% wide from 0.2 ms to 50 ms (HZ 20 to 5000), if at least 8 and a
 * tenth of the intervals fall in it and its neighbours (a busy CPU ticks
 * every jiffy; a tickless idle one at longer, scattered intervals, so that
 * the median of an idle trace is no jiffy); 0 (unknown) else. */
static long long modal_hz(int64_t *t, size_t n, char *why, size_t len)
{
	enum { NB = 280 }; /* ln(250) / ln(1.02) */
	size_t bin[NB] = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (t[i] < 200000 || t[i] >= 50000000)
			continue;
		int b = (int)(log((double)t[i] / 200000.0) / log(1.02));
		if (b >= 0 && b < NB)
			bin[b]++;
	}
	int best = -1;
	size_t bestn = 0;
	for (int b = 0; b < NB; b++) {
		size_t s = bin[b] + (b ? bin[b - 1] : 0) + (b + 1 < NB ? bin[b + 1] : 0);
		if (s > bestn) {
			bestn = s;
			best = b;
		}
	}
	if (best < 0 || bestn < 8 || (double)bestn < 0.1 * (double)n) {
		snprintf(why, len, "%zu intervals between a CPU's ticks, %zu of them at the commonest length: "
				   "no interval is common enough to be a jiffy",
			 n, bestn);
		return 0;
	}
	/* The median of the intervals in the modal bins. */
	double lo = 200000.0 * pow(1.02, best - 1), hi = 200000.0 * pow(1.02, best + 2);
	qsort(t, n, sizeof(*t), cmp_i64);
	size_t a = 0, b = 0;
	while (a < n && (double)t[a] < lo)
		a++;
	b = a;
	while (b < n && (double)t[b] < hi)
		b++;
	if (b == a)
		return 0;
	int64_t jiffy = t[a + (b - a) / 2];
	return llround(1e9 / (double)jiffy);
}

bool trace_switch_filtered(uint64_t switches, uint64_t util_cs, uint64_t breaks, int ncpu)
{
	if (!switches)
		return false;
	if (util_cs > 0)
		return (double)switches < 0.9 * (double)util_cs;
	return breaks > (uint64_t)(ncpu > 0 ? ncpu : 0) && breaks * 10 > switches;
}

int trace_measure_finish(trace_measure *tm, long long *hz, char *notes, size_t notes_len)
{
	sim_metrics *m = tm->m;
	size_t o = 0;
	notes[0] = 0;
#define NOTE(...)                                                                   \
	do {                                                                        \
		if (o < notes_len)                                                  \
			o += (size_t)snprintf(notes + o, notes_len - o, __VA_ARGS__); \
	} while (0)
	int rc = 0;
	for (int i = 0; i <= tm->maxcpu; i++) {
		mcpu *c = &tm->cpu[i];
		/* A pass the trace ends in: counted (it ran), its run not
		 * delimited. */
		if (c->in_pass && c->pass_rcu) {
			if (c->pass_ksd)
				tm->pk++;
			else
				tm->po++;
		}
		run_close(tm, c);
	}
	if (tm->unmatched)
		NOTE("%" PRIu64 " unmatched softirq_entry/exit event%s skipped (an entry with no exit before the "
		     "next entry, as when a recording enabled softirq_entry first; an exit whose entry is before "
		     "the trace)\n",
		     tm->unmatched, tm->unmatched == 1 ? "" : "s");
	if (tm->has_softirq) {
		rc |= sim_metrics_scalar(m, "softirq.passes_irq_exit", (double)tm->po);
		rc |= sim_metrics_scalar(m, "softirq.passes_ksoftirqd", (double)tm->pk);
		rc |= sim_metrics_scalar(m, "softirq.runs_irq_exit", (double)tm->runs_other);
		rc |= sim_metrics_hist_scalars(m, "softirq.irq_run", tm->run_hist, SIM_Q_P99 | SIM_Q_MAX);
	} else {
		NOTE("no softirq_entry/exit events: no softirq metric\n");
	}
	if (tm->has_wakeup) {
		rc |= sim_metrics_scalar(m, "softirq.ksoftirqd_wakeups", (double)tm->kw);
		rc |= sim_metrics_scalar(m, "softirq.ksoftirqd_wait_max_ns", (double)tm->ksd_wait_max);
		rc |= sim_metrics_hist_scalars(m, "softirq.ksoftirqd_wait", tm->ksd_wait_hist,
					       SIM_Q_P50 | SIM_Q_P99);
		rc |= sim_metrics_scalar(m, "gp.kthread_wakeups", (double)tm->gw);
		rc |= sim_metrics_hist_scalars(m, "gp.kthread_wait", tm->gp_wait_hist,
					       SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	} else {
		NOTE("no sched_wakeup events: no wake-up metric\n");
	}
	bool filtered = tm->has_switch && trace_switch_filtered(tm->sw, tm->util_cs, tm->chain_breaks, tm->nseen);
	if (tm->has_switch && !filtered) {
		rc |= sim_metrics_scalar(m, "sched.ctxsw", (double)tm->sw);
		if (tm->chain_breaks > (uint64_t)tm->nseen)
			NOTE("%" PRIu64 " of the %" PRIu64 " sched_switch events leave another task than the one "
			     "their CPU's last switch entered: switches the trace lacks, not a filter (%s); "
			     "sched.ctxsw counts the %" PRIu64 " recorded\n",
			     tm->chain_breaks, tm->sw,
			     tm->has_util_cs ? "rcu_utilization's \"Start context switch\" lacks them too"
					     : "no rcu_utilization, and under a tenth of them",
			     tm->sw);
	} else if (tm->has_util_cs) {
		rc |= sim_metrics_scalar(m, "sched.ctxsw", (double)tm->util_cs);
		if (filtered)
			NOTE("sched_switch was filtered (%" PRIu64 " of its %" PRIu64 " events leave another task "
			     "than the one their CPU's last switch entered): sched.ctxsw counts rcu_utilization's "
			     "%" PRIu64 " \"Start context switch\" instead\n",
			     tm->chain_breaks, tm->sw, tm->util_cs);
		else
			NOTE("no sched_switch events: sched.ctxsw counts rcu_utilization's \"Start context "
			     "switch\"\n");
	} else if (filtered) {
		NOTE("sched_switch was filtered (%" PRIu64 " of its %" PRIu64 " events leave another task than "
		     "the one their CPU's last switch entered) and there is no rcu_utilization: no sched.ctxsw\n",
		     tm->chain_breaks, tm->sw);
	} else {
		NOTE("no sched_switch or rcu_utilization events: no sched.ctxsw\n");
	}
	if (tm->has_invoke || tm->has_batch) {
		rc |= sim_metrics_scalar(m, "cb.invoked",
					 (double)(tm->has_invoke ? tm->invoked_cb : tm->invoked_batch));
	} else if (tm->has_free) {
		rc |= sim_metrics_scalar(m, "cb.invoked", (double)tm->invoked_free);
		NOTE("no rcu: callback events (CONFIG_RCU_TRACE off): cb.invoked counts the %" PRIu64
		     " kmem_cache_free/kfree called from rcu_do_batch\n",
		     tm->invoked_free);
	}
	if (tm->has_gp) {
		rc |= sim_metrics_scalar(m, "gp.completed", (double)tm->gps);
		rc |= sim_metrics_hist_scalars(m, "gp.duration", tm->gp_hist, SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	}
	rc |= sim_metrics_hist_scalars(m, "cb.latency", tm->lat_hist,
				       SIM_Q_MEAN | SIM_Q_P50 | SIM_Q_P99 | SIM_Q_P999 | SIM_Q_MAX);
	if (tm->sys_calls) {
		rc |= sim_metrics_scalar(m, "syncrcu.calls", (double)tm->sys_calls);
		rc |= sim_metrics_scalar(m, "syncrcu.returned", (double)tm->sys_returned);
		rc |= sim_metrics_hist_scalars(m, "syncrcu.latency", tm->sys_hist,
					       SIM_Q_MEAN | SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	}
	char why[256];
	*hz = 0;
	if (tm->nticks) {
		*hz = modal_hz(tm->ticks, tm->nticks, why, sizeof(why));
		if (!*hz)
			NOTE("HZ unknown: %s\n", why);
	} else {
		NOTE("HZ unknown: no rcu_utilization \"Start scheduler-tick\" events\n");
	}
#undef NOTE
	return rc ? -1 : 0;
}
