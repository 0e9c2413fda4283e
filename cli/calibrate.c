/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * calibrate.c - `rcusim calibrate TRACE [--out FILE]`: what the model cannot
 * know from the box, fitted from a trace of it (any form the trace library
 * reads), written as a scenario in model units, then run beside the box.
 *
 * Fitted, each value commented in the scenario with its fit and the events
 * it came from:
 * - the load: the task name with the most CPU time outside softirqs over
 *   every CPU (kernel threads and the idle task left out), rcusim record's
 *   rcusim-load where it ran, or --load's; per
 *   CPU its tasks, CPU time and share, a duty cycle (callrcu_busy and
 *   callrcu_sleep) when it ran less than 90% of its CPUs' time, its system calls a second of that time where the trace holds
 *   raw_syscalls' or syscalls' sys_enter events, and its kernel share where
 *   it holds sys_exit too;
 * - callbacks: rcu_invoke_callback events, else kmem_cache_free and kfree
 *   with call_site=rcu_do_batch (each free standing for --callbacks-per-free
 *   callbacks), against the load's CPU time (workload.callrcu_rate, a rate
 *   per second of a job's CPU time) and its system calls (callbacks per
 *   call);
 * - costs: the least-squares line (sim_fit_linear(), gsl_fit_linear) of an
 *   RCU softirq pass's duration (softirq_entry to softirq_exit, vec 9)
 *   against the callbacks it invoked, over every pass, and apart for the
 *   passes in ksoftirqd and elsewhere, with the residuals' spread: the slope
 *   is rcu.callback_cost, the intercept softirq.pass_cost + rcu.tasklet_cost;
 * - the clock conversion: a real ns is machine.clock / 1.2 GHz model ns
 *   (every *_cost is given at the 1.2 GHz reference, kernel/kernel.h's
 *   REF_CLOCK_HZ; machine.clock is the model's x86 calibration, 6.9 GHz);
 * - the box's background: per CPU, the CPU share, switches and wake-ups of
 *   the tasks that are neither the load nor kernel threads, and its ticks
 *   (rcu_utilization "Start scheduler-tick"); where they took 1% of a CPU
 *   or more, a load of their own on it ([workload.backgroundN]: a job that
 *   calls nothing, their CPU share, a stretch per switch into them), less,
 *   with machine.background on, the CPU time and switches its wake-ups
 *   add (background.wakeups x background.wakeup_cost a CPU): no CPU time
 *   counted twice.
 * - the box's background activity (machine.background's parameters,
 *   models/kernel/background.c), counted as tests/background_rates.awk
 *   counts it: background.timer_ticks the ticks taken while the idle task
 *   ran over the idle time, background.wakeups the wake-ups (by target
 *   CPU) of tasks that are not the load, ksoftirqd, the RCU kthreads,
 *   migration or idle, per CPU a second, background.wakeup_cost the median
 *   of their runs (switch in to the next switch) under 1 ms; each kept at
 *   the include's, and said, when the trace cannot give it.
 * A trace without invoked callbacks gives the machine and the background
 * only (not run).
 * The machine is the trace's: its CPUs (highest + 1), its HZ (the import's
 * tick interval), one thread a core. The kernel is a preset (--include,
 * default kernels/linux-6.12.ini; probe's scenario of the box serves).
 * Then the trace is imported (cli_import()), the scenario run (cli_do_run())
 * and the two printed side by side, each figure per second of its run.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "model.h"
#include "params.h"
#include "recorder.h"
#include "registry.h"
#include "stats.h"
#include "trace.h"

static const char calibrate_usage[] =
	"usage: rcusim calibrate TRACE [--out FILE] [--include FILE] [--load NAME]\n"
	"                        [--callbacks-per-free N] [--kernel-share X] [--duration TIME]\n"
	"                        [--db FILE] [--no-run]\n"
	"\n"
	"Fit what the model cannot know from the box to TRACE (any form `rcusim\n"
	"import` reads, recorded under a load: `rcusim record`), write it as a\n"
	"scenario in model units, run it, and print the box beside the model, each\n"
	"figure per second. Fitted: the load's tasks and CPU time per CPU, its duty\n"
	"cycle if it sleeps, its system calls and kernel share where the trace\n"
	"holds sys_enter/sys_exit, the callbacks it queues a second of its CPU time\n"
	"(rcu_invoke_callback, else kmem_cache_free/kfree from rcu_do_batch), the\n"
	"cost of an RCU softirq pass and of each callback (least squares of a\n"
	"pass's duration against its callbacks, with their spread), converted to\n"
	"the model's 1.2 GHz reference by machine.clock / 1.2 GHz, and the box's\n"
	"background (other tasks: their CPU time as loads of their own, less what\n"
	"machine.background's wake-ups add; ticks)\n"
	"and its background activity (machine.background: background.timer_ticks\n"
	"from the ticks an idle CPU took over its idle time, background.wakeups\n"
	"from other tasks' wake-ups per CPU a second, background.wakeup_cost the\n"
	"median of their runs under 1 ms; the include's kept, and said, when the\n"
	"trace cannot give one: under 1 s of idle time or of trace, under 100\n"
	"runs, sched_switch filtered). Each value is commented with its fit and\n"
	"the events it came from. The machine is the trace's (its CPUs, its HZ);\n"
	"the kernel is --include's. A trace without invoked callbacks (an idle\n"
	"box) gives the machine and its background only, not run. A trace without\n"
	"RCU softirq passes (with callbacks) or sched_switch cannot be fitted:\n"
	"exit 2, saying what it lacks, and no scenario is left.\n"
	"\n"
	"  --out FILE               the scenario (default: TRACE's name, .ini, here)\n"
	"  --include FILE           the kernel preset or probe's scenario of the box\n"
	"                           (default kernels/linux-6.12.ini)\n"
	"  --load NAME              the load's task name (default: rcusim record's,\n"
	"                           rcusim-load, else the name with the most CPU time)\n"
	"  --callbacks-per-free N   callbacks each rcu_do_batch free stands for, when\n"
	"                           the recording's filter kept one free of several\n"
	"                           (default 1)\n"
	"  --kernel-share X         the load's share in the kernel when the trace has\n"
	"                           no sys_enter/sys_exit (default 0.95: back-to-back\n"
	"                           system calls, as record's and churn's loads)\n"
	"  --duration TIME          how long the model runs (default 10s)\n"
	"  --db FILE                results database (default rcusim.db)\n"
	"  --no-run                 write the scenario only\n";

/* The reference clock every *_cost is given at (models/kernel/kernel.h
 * REF_CLOCK_HZ). */
#define CAL_REF_CLOCK_HZ 1.2e9
/* A CPU is loaded when the load ran this share of the trace there or more. */
#define CAL_LOADED_SHARE 0.001

/* CPU time and events of one task name on one CPU. */
typedef struct ctask {
	char comm[TRACE_COMM_LEN];
	int64_t run_ns;      /* on the CPU, softirqs it hosted left out */
	uint64_t switches;   /* switches into it */
	uint64_t wakeups;    /* its wake-ups onto this CPU */
	uint64_t sys;        /* sys_enter events */
	int64_t kernel_ns;   /* sys_enter to sys_exit */
	uint64_t sleeps;     /* sleeps ended by a switch into it (out with state S or D) */
	int64_t sleep_ns;    /* their length */
	int npids;           /* its tasks that ran 5% of the trace or more */
} ctask;

/* A pass fit's points. */
typedef struct cpts {
	sim_values x, y;
} cpts;

/* Per CPU. */
typedef struct ccpu {
	bool seen;
	int64_t t0;              /* its first event */
	int cur;                 /* the task running (index in tasks), -1 idle or unknown */
	int cur_pid;
	int64_t cur_since;
	int64_t sirq_at;         /* a softirq pass in progress began, or -1 */
	int sirq_vec;
	bool sirq_ksd;           /* in ksoftirqd */
	int sirq_task;           /* the task it interrupted, or -1 */
	double pass_cbs;         /* callbacks invoked in the RCU pass in progress */
	uint64_t frees_pass;     /* ... as frees */
	int64_t sys_at;          /* the current task's sys_enter, or -1 */
	double cbs;              /* callbacks invoked on it */
	uint64_t queued;         /* rcu_callback events on it */
	uint64_t ticks;
	ctask *tasks;
	size_t ntasks, cap;
	int load;                /* the load's task, or -1 */
} ccpu;

typedef struct cal {
	ccpu *cpu;
	int ncpu;
	int maxcpu;
	int64_t t0, t1;
	double per_free;          /* --callbacks-per-free */
	bool has_invoke, has_free, has_queue, has_sys, has_sysexit, has_switch, has_tick;
	uint64_t frees, invokes, passes, unmatched;
	uint64_t free_hist[64];   /* frees per ksoftirqd pass, the last bucket 63 or more */
	cpts all, ksd, irq;
	trace_tmap asleep;          /* pid + 1: when it went to sleep */
	trace_tmap prun;            /* (CPU + 1) << 32 | pid: its CPU time there, ns */
	trace_tmap ptask;           /* the same key: its task name's index there */
	uint64_t lineno_first_pass, lineno_last_pass;
} cal;

static bool kthread_comm(const char *c, int pid)
{
	static const char *const pre[] = { "swapper", "<idle>", "ksoftirqd/", "rcu_", "rcuc/", "rcuo",
					   "kworker/", "migration/", "cpuhp/", "idle_inject/", "kthreadd",
					   "watchdog/", "irq/" };
	if (pid == 0)
		return true;
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(c, pre[i], strlen(pre[i])))
			return true;
	return false;
}

static int pts_add(cpts *p, double x, double y)
{
	return sim_values_add(&p->x, x) || sim_values_add(&p->y, y) ? -1 : 0;
}

static ccpu *cpu_get(cal *c, int n)
{
	if (n < 0 || n > 100000)
		return NULL;
	if (n >= c->ncpu) {
		int nn = n + 1 > 2 * c->ncpu ? n + 1 : 2 * c->ncpu;
		ccpu *a = realloc(c->cpu, (size_t)nn * sizeof(*a));
		if (!a)
			return NULL;
		memset(a + c->ncpu, 0, (size_t)(nn - c->ncpu) * sizeof(*a));
		c->cpu = a;
		c->ncpu = nn;
	}
	if (n > c->maxcpu)
		c->maxcpu = n;
	return &c->cpu[n];
}

/* The index of task name @comm on @cp, added if new; -1 out of memory. */
static int task_of(ccpu *cp, const char *comm)
{
	for (size_t i = 0; i < cp->ntasks; i++)
		if (!strcmp(cp->tasks[i].comm, comm))
			return (int)i;
	if (cp->ntasks == cp->cap) {
		size_t nc = cp->cap ? 2 * cp->cap : 16;
		ctask *a = realloc(cp->tasks, nc * sizeof(*a));
		if (!a)
			return -1;
		cp->tasks = a;
		cp->cap = nc;
	}
	ctask *t = &cp->tasks[cp->ntasks];
	memset(t, 0, sizeof(*t));
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	return (int)cp->ntasks++;
}

/* The task running on CPU @cpu (@cp) is now @comm (@pid) since @ts. */
static int set_cur(cal *c, int cpu, ccpu *cp, const char *comm, int pid, int64_t ts)
{
	if (cp->cur >= 0 && ts > cp->cur_since) {
		uint64_t k = (uint64_t)(cpu + 1) << 32 | (uint32_t)cp->cur_pid;
		int64_t had = 0;
		cp->tasks[cp->cur].run_ns += ts - cp->cur_since;
		(void)trace_tmap_get(&c->prun, k, &had);
		if (trace_tmap_put(&c->prun, k, had + ts - cp->cur_since) || trace_tmap_put(&c->ptask, k, cp->cur))
			return -1;
	}
	cp->cur_since = ts;
	cp->sys_at = -1;
	cp->cur_pid = pid;
	if (kthread_comm(comm, pid) || !strcmp(comm, "<...>")) {
		cp->cur = -1;
		return 0;
	}
	return (cp->cur = task_of(cp, comm)) < 0 ? -1 : 0;
}

static bool name_is(const trace_ev *ev, const char *s)
{
	size_t n = strlen(s);
	return ev->event_len >= n && !strncmp(ev->event, s, n);
}

/* One event: 0, -1 out of memory. */
static int cal_event(cal *c, const trace_ev *ev, uint64_t lineno)
{
	ccpu *cp = cpu_get(c, ev->cpu);
	if (!cp)
		return -1;
	if (!c->t0 && !c->t1)
		c->t0 = ev->ts;
	c->t1 = ev->ts;
	if (!cp->seen) {
		cp->seen = true;
		cp->t0 = ev->ts;
		cp->cur = -1;
		cp->sirq_at = -1;
		cp->sys_at = -1;
		cp->load = -1;
		if (set_cur(c, ev->cpu, cp, ev->comm, ev->pid, ev->ts))
			return -1;
	}
	switch (ev->type) {
	case TEV_SCHED_SWITCH:
		c->has_switch = true;
		/* A task that leaves the CPU asleep (S, D) sleeps until a switch
		 * enters it again. */
		if (ev->prev.pid > 0 && (ev->prev_state[0] == 'S' || ev->prev_state[0] == 'D') &&
		    trace_tmap_put(&c->asleep, (uint64_t)ev->prev.pid + 1, ev->ts))
			return -1;
		if (set_cur(c, ev->cpu, cp, ev->next.comm, ev->next.pid, ev->ts))
			return -1;
		if (cp->cur >= 0) {
			ctask *t = &cp->tasks[cp->cur];
			int64_t slept = ev->next.pid > 0 ? trace_tmap_take(&c->asleep, (uint64_t)ev->next.pid + 1) : -1;
			t->switches++;
			if (slept >= 0) {
				t->sleeps++;
				t->sleep_ns += ev->ts - slept;
			}
		}
		break;
	case TEV_SCHED_WAKEUP: {
		ccpu *tc = ev->target_cpu >= 0 && ev->target_cpu < 100000 ? cpu_get(c, ev->target_cpu) : NULL;
		if (tc && tc->seen && !kthread_comm(ev->next.comm, ev->next.pid)) {
			int t = task_of(tc, ev->next.comm);
			if (t < 0)
				return -1;
			tc->tasks[t].wakeups++;
		}
		break;
	}
	case TEV_SOFTIRQ_ENTRY:
		cp->sirq_at = ev->ts;
		cp->sirq_vec = ev->vec;
		cp->sirq_ksd = !strncmp(ev->comm, "ksoftirqd/", 10);
		cp->sirq_task = cp->sirq_ksd ? -1 : cp->cur;
		cp->pass_cbs = 0;
		cp->frees_pass = 0;
		break;
	case TEV_SOFTIRQ_EXIT:
		if (cp->sirq_at < 0 || cp->sirq_vec != ev->vec) {
			c->unmatched++;
			cp->sirq_at = -1;
			break;
		}
		if (cp->sirq_task >= 0)
			cp->tasks[cp->sirq_task].run_ns -= ev->ts - cp->sirq_at;
		if (ev->vec == 9) {
			double d = (double)(ev->ts - cp->sirq_at);
			c->passes++;
			if (!c->lineno_first_pass)
				c->lineno_first_pass = lineno;
			c->lineno_last_pass = lineno;
			if (pts_add(&c->all, cp->pass_cbs, d) ||
			    pts_add(cp->sirq_ksd ? &c->ksd : &c->irq, cp->pass_cbs, d))
				return -1;
			if (cp->sirq_ksd)
				c->free_hist[cp->frees_pass < 63 ? cp->frees_pass : 63]++;
		}
		cp->sirq_at = -1;
		break;
	case TEV_RCU_INVOKE_CALLBACK:
		c->has_invoke = true;
		c->invokes++;
		cp->cbs += 1;
		cp->pass_cbs += 1;
		cp->frees_pass++;
		break;
	case TEV_RCU_CALLBACK:
		c->has_queue = true;
		cp->queued++;
		break;
	case TEV_KMEM_CACHE_FREE:
	case TEV_KFREE:
		if (!ev->from_rcu_do_batch)
			break;
		c->has_free = true;
		c->frees++;
		if (!c->has_invoke) {
			cp->cbs += c->per_free;
			cp->pass_cbs += c->per_free;
			cp->frees_pass++;
		}
		break;
	case TEV_RCU_UTILIZATION:
		if (!strncmp(ev->rest, "Start scheduler-tick", 20)) {
			c->has_tick = true;
			cp->ticks++;
		}
		break;
	default:
		if (name_is(ev, "sys_enter")) {
			c->has_sys = true;
			if (cp->cur >= 0)
				cp->tasks[cp->cur].sys++;
			cp->sys_at = ev->ts;
		} else if (name_is(ev, "sys_exit")) {
			c->has_sysexit = true;
			if (cp->cur >= 0 && cp->sys_at >= 0)
				cp->tasks[cp->cur].kernel_ns += ev->ts - cp->sys_at;
			cp->sys_at = -1;
		}
		break;
	}
	return 0;
}

static void cal_free(cal *c)
{
	for (int i = 0; i < c->ncpu; i++)
		free(c->cpu[i].tasks);
	free(c->cpu);
	cpts *pts[] = { &c->all, &c->ksd, &c->irq };
	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		sim_values_free(&pts[i]->x);
		sim_values_free(&pts[i]->y);
	}
	trace_tmap_free(&c->asleep);
	trace_tmap_free(&c->prun);
	trace_tmap_free(&c->ptask);
}

/* Read @path through: 0, or an exit status (message printed). */
static int cal_read(cal *c, const char *path)
{
	trace_src tf;
	int oe = trace_src_open(&tf, path);
	if (oe) {
		fprintf(stderr, "rcusim calibrate: %s: %s\n", path, oe == EINVAL && tf.err[0] ? tf.err : strerror(oe));
		return oe == ENOMEM ? cli_exit_status(SIM_ENOMEM) : EXIT_USAGE;
	}
	const char *s;
	int got, status = 0;
	char q[400];
	while ((got = trace_src_next(&tf, &s)) > 0) {
		trace_ev ev;
		if (!trace_parse_line(s, &ev)) {
			fprintf(stderr, "%s:%" PRIu64 ": %s: %s\n", path, tf.lineno, ev.why ? ev.why : "not a trace line",
				trace_quote(s, 80, q, sizeof(q)));
			status = EXIT_USAGE;
			break;
		}
		if (cal_event(c, &ev, tf.lineno)) {
			fprintf(stderr, "rcusim calibrate: out of memory\n");
			status = cli_exit_status(SIM_ENOMEM);
			break;
		}
	}
	if (!status && got == -2) {
		fprintf(stderr, "%s:%" PRIu64 ": %s\n", path, tf.lineno, tf.why);
		status = EXIT_USAGE;
	} else if (!status && got < 0) {
		fprintf(stderr, "rcusim calibrate: out of memory\n");
		status = cli_exit_status(SIM_ENOMEM);
	}
	trace_src_close(&tf);
	if (status)
		return status;
	/* Close each CPU's last stretch at the trace's end. */
	for (int i = 0; i <= c->maxcpu; i++)
		if (c->cpu[i].seen && set_cur(c, i, &c->cpu[i], "<idle>", 0, c->t1))
			return cli_exit_status(SIM_ENOMEM);
	/* The tasks of each name that ran 5% of its time there or more. */
	for (size_t k = 0; k < c->prun.cap; k++) {
		int64_t idx;
		if (!c->prun.key[k] || !trace_tmap_get(&c->ptask, c->prun.key[k], &idx))
			continue;
		ctask *t = &c->cpu[(int)(c->prun.key[k] >> 32) - 1].tasks[idx];
		if ((double)c->prun.t[k] >= 0.05 * (double)t->run_ns)
			t->npids++;
	}
	return 0;
}

/* ---- the box's background activity (machine.background's parameters) ----
 * Counted as tests/background_rates.awk counts it (docs/validation.md
 * "Background activity and spread"), in a second read once the load is
 * known: a background task is one that is not the load, rcusim's own,
 * ksoftirqd, an RCU kthread (rcu_*, rcuo*, rcuc*), migration or idle. */

/* Runs longer are left out of background.wakeup_cost's fit (the preset's:
 * the 1% over 1 ms were the sandbox agent's workers and kdamond). */
#define CAL_BG_RUN_MAX_NS 1000000
/* What a fitted value needs: wake-ups a trace of 1 s or more, ticks 1 s
 * of idle CPU time (summed over the CPUs), the run length 100 runs. */
#define CAL_BG_MIN_SPAN_NS 1000000000
#define CAL_BG_MIN_IDLE_NS 1000000000
#define CAL_BG_MIN_RUNS 100

typedef struct bgcpu {
	bool known;              /* a sched_switch seen: who runs is known */
	bool idle;               /* the idle task runs */
	bool bg;                 /* a background task runs */
	int64_t since;           /* ns: switched in */
	int last_next;           /* pid its last switch entered (if known) */
	int64_t idle_ns;
	uint64_t idle_ticks, ticks, wakeups;
} bgcpu;

typedef struct bgfit {
	bgcpu *cpu;
	int ncpu;
	int64_t t0, t1;
	bool started;
	uint64_t switches, ctx_util, wakeup_evs, ticks;
	uint64_t breaks;         /* switches leaving another task than their CPU's last entered */
	uint64_t runs_long;      /* runs over CAL_BG_RUN_MAX_NS */
	sim_values runs;         /* ns, the shorter ones */
} bgfit;

static bool bg_comm(const char *comm, int pid, const char *load)
{
	static const char *const pre[] = { "rcusim", "ksoftirqd", "rcu_", "rcuo", "rcuc", "migration", "swapper",
					   "<idle>" };
	if (pid <= 0 || (load[0] && !strcmp(comm, load)))
		return false;
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(comm, pre[i], strlen(pre[i])))
			return false;
	return true;
}

static bgcpu *bg_cpu(bgfit *b, int n)
{
	if (n < 0 || n >= 100000)
		return NULL;
	if (n >= b->ncpu) {
		int nn = n + 1 > 2 * b->ncpu ? n + 1 : 2 * b->ncpu;
		bgcpu *a = realloc(b->cpu, (size_t)nn * sizeof(*a));
		if (!a)
			return NULL;
		memset(a + b->ncpu, 0, (size_t)(nn - b->ncpu) * sizeof(*a));
		b->cpu = a;
		b->ncpu = nn;
	}
	return &b->cpu[n];
}

/* One event: 0, -1 out of memory. */
static int bg_event(bgfit *b, const trace_ev *ev, const char *load)
{
	bgcpu *cp = bg_cpu(b, ev->cpu);
	if (!cp)
		return ev->cpu < 0 || ev->cpu >= 100000 ? 0 : -1;
	if (!b->started) {
		b->t0 = ev->ts;
		b->started = true;
	}
	b->t1 = ev->ts;
	switch (ev->type) {
	case TEV_SCHED_SWITCH:
		b->switches++;
		if (cp->known && ev->prev.pid >= 0 && ev->prev.pid != cp->last_next)
			b->breaks++;
		if (cp->known && ev->ts > cp->since) {
			int64_t d = ev->ts - cp->since;
			if (cp->idle)
				cp->idle_ns += d;
			if (cp->bg && d > CAL_BG_RUN_MAX_NS)
				b->runs_long++;
			else if (cp->bg) {
				if (sim_values_add(&b->runs, (double)d))
					return -1;
			}
		}
		cp->known = true;
		cp->last_next = ev->next.pid;
		cp->idle = ev->next.pid == 0;
		cp->bg = bg_comm(ev->next.comm, ev->next.pid, load);
		cp->since = ev->ts;
		break;
	case TEV_SCHED_WAKEUP: {
		b->wakeup_evs++;
		if (!bg_comm(ev->next.comm, ev->next.pid, load))
			break;
		bgcpu *tc = bg_cpu(b, ev->target_cpu >= 0 && ev->target_cpu < 100000 ? ev->target_cpu : ev->cpu);
		if (!tc)
			return -1;
		tc->wakeups++;
		break;
	}
	case TEV_RCU_UTILIZATION:
		if (!strncmp(ev->rest, "Start scheduler-tick", 20)) {
			b->ticks++;
			cp->ticks++;
			if (cp->known && cp->idle)
				cp->idle_ticks++;
		} else if (!strncmp(ev->rest, "Start context switch", 20)) {
			b->ctx_util++;
		}
		break;
	default:
		break;
	}
	return 0;
}

/* The fitted values: each >= 0, or < 0 not fitted (then @why says why). */
typedef struct bgvals {
	double timer_ticks, wakeups, wakeup_cost;
	char why_ticks[320], why_wakeups[320], why_cost[320];
	char from_ticks[320], from_wakeups[320], from_cost[320];
} bgvals;

/* The trace ended after @ncpu CPUs: fit. */
static void bg_fit(bgfit *b, int ncpu, bgvals *v)
{
	memset(v, 0, sizeof(*v));
	v->timer_ticks = v->wakeups = v->wakeup_cost = -1;
	int64_t span = b->t1 - b->t0, idle = 0;
	uint64_t iticks = 0, wk = 0;
	for (int i = 0; i < b->ncpu && i < ncpu; i++) {
		bgcpu *cp = &b->cpu[i];
		if (cp->known && cp->idle && b->t1 > cp->since)
			cp->idle_ns += b->t1 - cp->since;
		idle += cp->idle_ns;
		iticks += cp->idle_ticks;
		wk += cp->wakeups;
	}
	bool filtered = trace_switch_filtered(b->switches, b->ctx_util, b->breaks, ncpu);
	char filt[200];
	if (b->ctx_util > 0)
		snprintf(filt, sizeof(filt),
			 "sched_switch filtered: %" PRIu64 " of them against %" PRIu64
			 " rcu_utilization Start context switch",
			 b->switches, b->ctx_util);
	else
		snprintf(filt, sizeof(filt),
			 "sched_switch filtered: %" PRIu64 " of its %" PRIu64
			 " events leave another task than their CPU's last switch entered",
			 b->breaks, b->switches);
	/* timer_ticks: ticks the idle task took, over the idle time. */
	if (!b->ticks)
		snprintf(v->why_ticks, sizeof(v->why_ticks), "no tick events (rcu:rcu_utilization Start scheduler-tick)");
	else if (filtered)
		snprintf(v->why_ticks, sizeof(v->why_ticks), "%s: the idle time is not known", filt);
	else if (idle < CAL_BG_MIN_IDLE_NS)
		snprintf(v->why_ticks, sizeof(v->why_ticks), "%s: %.3f s idle of the CPUs' %.3f s, %.0f s wanted",
			 idle < span * ncpu / 100 ? "no idle time" : "too little idle time", (double)idle / 1e9,
			 (double)span * ncpu / 1e9, CAL_BG_MIN_IDLE_NS / 1e9);
	else {
		v->timer_ticks = (double)iticks / ((double)idle / 1e9);
		snprintf(v->from_ticks, sizeof(v->from_ticks),
			 "%" PRIu64 " ticks (rcu_utilization Start scheduler-tick) taken idle over %.3f s idle of "
			 "%d CPUs", iticks, (double)idle / 1e9, ncpu);
	}
	/* wakeups: background tasks' wake-ups by target_cpu, per CPU a second. */
	if (!b->wakeup_evs)
		snprintf(v->why_wakeups, sizeof(v->why_wakeups), "no sched_wakeup events");
	else if (filtered)
		snprintf(v->why_wakeups, sizeof(v->why_wakeups), "%s", filt);
	else if (span < CAL_BG_MIN_SPAN_NS)
		snprintf(v->why_wakeups, sizeof(v->why_wakeups),
			 "the trace is too short: %.4f s, %.0f s wanted (%" PRIu64 " wake-ups in it)", (double)span / 1e9,
			 CAL_BG_MIN_SPAN_NS / 1e9, wk);
	else {
		v->wakeups = (double)wk / ((double)span / 1e9 * ncpu);
		snprintf(v->from_wakeups, sizeof(v->from_wakeups),
			 "%" PRIu64 " sched_wakeup of background tasks (by target_cpu) of %" PRIu64 ", over %.3f s x %d CPUs",
			 wk, b->wakeup_evs, (double)span / 1e9, ncpu);
	}
	/* wakeup_cost: the median of their runs under 1 ms. */
	if (filtered)
		snprintf(v->why_cost, sizeof(v->why_cost), "%s", filt);
	else if (b->runs.n < CAL_BG_MIN_RUNS)
		snprintf(v->why_cost, sizeof(v->why_cost), "too few runs: %zu under %d ms, %d wanted", b->runs.n,
			 CAL_BG_RUN_MAX_NS / 1000000, CAL_BG_MIN_RUNS);
	else {
		double sum = 0;
		for (size_t i = 0; i < b->runs.n; i++)
			sum += b->runs.v[i];
		sim_values_sort(&b->runs);
		size_t n = b->runs.n;
		v->wakeup_cost = n % 2 ? b->runs.v[n / 2] : (b->runs.v[n / 2 - 1] + b->runs.v[n / 2]) / 2;
		snprintf(v->from_cost, sizeof(v->from_cost),
			 "the median of %zu runs under %d ms (sched_switch into a background task to the next; "
			 "p90 %.1f us, mean %.1f us; %" PRIu64 " runs over %d ms left out)",
			 n, CAL_BG_RUN_MAX_NS / 1000000, b->runs.v[n * 9 / 10] / 1e3, sum / (double)n / 1e3, b->runs_long,
			 CAL_BG_RUN_MAX_NS / 1000000);
	}
}

/* The fit into the scenario, and one line for stdout into @summary. */
static void write_background(FILE *f, const bgfit *b, const bgvals *v, const sim_params *pre, int ncpu,
			     char *summary, size_t slen)
{
	bool on = sim_params_int(pre, P_MACHINE_BACKGROUND) != 0;
	double span = (double)(b->t1 - b->t0) / 1e9;
	char kept[3][64];
	snprintf(kept[0], sizeof(kept[0]), "%g/s", sim_params_real(pre, P_BACKGROUND_TIMER_TICKS));
	snprintf(kept[1], sizeof(kept[1]), "%g/s", sim_params_real(pre, P_BACKGROUND_WAKEUPS));
	snprintf(kept[2], sizeof(kept[2]), "%.0fns", (double)sim_params_int(pre, P_BACKGROUND_WAKEUP_COST));
	fprintf(f, "\n; The box's background activity (machine.background; docs/validation.md \"Background\n"
		   "; activity and spread\"; awk -f tests/background_rates.awk counts the same): tasks that are\n"
		   "; not the load, rcusim, ksoftirqd, an RCU kthread, migration or idle. Per CPU:\n");
	for (int i = 0; i < ncpu && i < b->ncpu; i++) {
		const bgcpu *cp = &b->cpu[i];
		fprintf(f, ";   CPU %d: %" PRIu64 " wake-ups (%.1f/s), %.3f s idle, %" PRIu64 " of its %" PRIu64
			   " ticks taken idle\n",
			i, cp->wakeups, span > 0 ? (double)cp->wakeups / span : 0, (double)cp->idle_ns / 1e9,
			cp->idle_ticks, cp->ticks);
	}
	bool any = v->timer_ticks >= 0 || v->wakeups >= 0 || v->wakeup_cost >= 0;
	if (any && !on)
		fprintf(f, "; machine.background is no in the include: the fitted values are not set (they apply\n"
			   "; with machine.background = yes)\n");
	const char *c = on ? "" : "; ";
	if (any)
		fprintf(f, "%s[background]\n", c);
	if (v->timer_ticks >= 0)
		fprintf(f, "%stimer_ticks = %.1f/s ; %s\n", c, v->timer_ticks, v->from_ticks);
	else
		fprintf(f, "; timer_ticks: not fitted (%s): the include's %s kept\n", v->why_ticks, kept[0]);
	if (v->wakeups >= 0)
		fprintf(f, "%swakeups = %.1f/s ; %s\n", c, v->wakeups, v->from_wakeups);
	else
		fprintf(f, "; wakeups: not fitted (%s): the include's %s kept\n", v->why_wakeups, kept[1]);
	if (v->wakeup_cost >= 0)
		fprintf(f, "%swakeup_cost = %.0fns ; %s\n", c, v->wakeup_cost, v->from_cost);
	else
		fprintf(f, "; wakeup_cost: not fitted (%s): the include's %s kept\n", v->why_cost, kept[2]);
	char a[3][96];
	if (v->timer_ticks >= 0)
		snprintf(a[0], sizeof(a[0]), "timer_ticks %.1f/s", v->timer_ticks);
	else
		snprintf(a[0], sizeof(a[0]), "timer_ticks %s kept", kept[0]);
	if (v->wakeups >= 0)
		snprintf(a[1], sizeof(a[1]), "wakeups %.1f/s", v->wakeups);
	else
		snprintf(a[1], sizeof(a[1]), "wakeups %s kept", kept[1]);
	if (v->wakeup_cost >= 0)
		snprintf(a[2], sizeof(a[2]), "wakeup_cost %.0fns", v->wakeup_cost);
	else
		snprintf(a[2], sizeof(a[2]), "wakeup_cost %s kept", kept[2]);
	snprintf(summary, slen, "background: %s, %s, %s%s", a[0], a[1], a[2],
		 any && !on ? " (not set: machine.background is no in the include)" : "");
}

/* The second read, once the load is known: HZ as import measures it (the
 * modal interval between a CPU's ticks) and the background. 0 or -1 out
 * of memory. */
static int second_read(const char *trace, const char *load, long long *hz, bgfit *b)
{
	sim_metrics *m = NULL;
	trace_measure *tm = NULL;
	trace_src tf;
	const char *s, *why;
	char notes[4096];
	int rc = 0;
	*hz = 0;
	if (!sim_metrics_create(&m) && !trace_measure_create(&tm, m, 100000000, 1e9) && !trace_src_open(&tf, trace)) {
		while (!rc && trace_src_next(&tf, &s) > 0) {
			trace_ev ev;
			if (!trace_parse_line(s, &ev))
				continue;
			if (trace_measure_event(tm, &ev, &why) < 0 || bg_event(b, &ev, load))
				rc = -1;
		}
		trace_src_close(&tf);
		(void)trace_measure_finish(tm, hz, notes, sizeof(notes));
	}
	trace_measure_destroy(tm);
	sim_metrics_destroy(m);
	return rc;
}

/* The preset's parameters: 0 or an exit status (message printed). */
static int load_preset(const char *include, sim_params **out)
{
	char err[2048], inc[PATH_MAX + 32];
	int rc, n = snprintf(inc, sizeof(inc), "include = %s\n", include);
	if ((rc = sim_params_create(out, rcusim_params, P_COUNT, err, sizeof(err))) ||
	    (rc = cli_params_search(*out, err, sizeof(err))) ||
	    (rc = sim_params_load_buffer(*out, "--include", inc, (size_t)n, err, sizeof(err)))) {
		fprintf(stderr, "rcusim calibrate: --include %s: %s\n", include, err);
		sim_params_destroy(*out);
		*out = NULL;
		return cli_exit_status(rc);
	}
	return 0;
}

/* The scenario's head: what it is, the include, the machine. */
static void write_head(FILE *f, const char *out, const char *trace, const cal *c, double span, const char *what,
		       const sim_params *pre, double clock, long long hz, const char *include, const char *duration)
{
	double scale = clock / CAL_REF_CLOCK_HZ;
	const char *base = strrchr(trace, '/');
	base = base ? base + 1 : trace;
	fprintf(f, "; %s - the box that recorded %s, as `rcusim calibrate` fitted it:\n", out, base);
	fprintf(f, "; %.3f s of %d CPU%s, %s.\n", span, c->maxcpu + 1, c->maxcpu ? "s" : "", what);
	fprintf(f, "; Model units: every *_cost is CPU time at the 1.2 GHz reference; machine.clock %.3g GHz\n"
		   "; runs them %.3gx faster, so a real ns is %.3g model ns (the clock conversion).\n",
		clock / 1e9, scale, scale);
	if (c->unmatched)
		fprintf(f, "; %" PRIu64 " softirq_exit events without their entry (the trace's start) left out.\n",
			c->unmatched);
	fprintf(f, "include = %s\n\n", include);
	fprintf(f, "[machine]\n");
	fprintf(f, "cores = %d ; the trace's CPUs (0 to %d)\n", c->maxcpu + 1, c->maxcpu);
	fprintf(f, "threads_per_core = 1 ; not in a trace: no SMT siblings assumed\n");
	fprintf(f, "clock = %.4gGHz ; not fitted: %s\n", clock / 1e9,
		sim_params_preset(pre, P_MACHINE_CLOCK) || strcmp(sim_params_origin(pre, P_MACHINE_CLOCK), "default")
			? "the include's"
			: "the model's x86 calibration (machines/x86-2s-256.ini)");
	fprintf(f, "arch = x86_64\n");
	if (hz)
		fprintf(f, "hz = %lld ; the commonest interval between a CPU's ticks (rcu_utilization Start "
			   "scheduler-tick)\n", hz);
	else
		fprintf(f, "; hz: unknown from the trace (no regular ticks), the include's %lld kept\n",
			(long long)sim_params_int(pre, P_MACHINE_HZ));
	fprintf(f, "\n[scenario]\nduration = %s\nsample_interval = 100ms\n\n", duration);
}

static void fit_line(FILE *f, const char *what, const cpts *p, double scale)
{
	sim_fit fit;
	if (sim_fit_linear(p->x.v, p->y.v, p->x.n, &fit)) {
		fprintf(f, ";   %s: %zu passes, too few to fit\n", what, p->x.n);
		return;
	}
	fprintf(f, ";   %s: %.0f ns (+-%.0f) + %.1f ns (+-%.1f) a callback over %zu passes, residuals' SD %.0f ns, "
		   "r2 %.2f (model units: %.0f ns + %.0f ns)\n",
		what, fit.c0, fit.sd0, fit.c1, fit.sd1, fit.n, fit.sd_resid, fit.r2, fit.c0 * scale, fit.c1 * scale);
}

/* A trace without a load (no callbacks invoked): the scenario of the
 * machine and its background, not run (no load to compare). 0 or an exit
 * status. */
static int calibrate_idle(const cal *c, bgfit *bgf, bgvals *bgv, const char *trace, const char *out,
			  const sim_params *pre, double clock, const char *include, const char *duration)
{
	long long hz = 0;
	if (second_read(trace, "", &hz, bgf)) {
		fprintf(stderr, "rcusim calibrate: out of memory\n");
		return cli_exit_status(SIM_ENOMEM);
	}
	bg_fit(bgf, c->maxcpu + 1, bgv);
	char tmp[PATH_MAX + 16], line[512];
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "rcusim calibrate: %s: %s\n", tmp, strerror(errno));
		return EXIT_IO;
	}
	double span = (double)(c->t1 - c->t0) / 1e9;
	write_head(f, out, trace, c, span,
		   "no load: no invoked callbacks (rcu:rcu_invoke_callback, or kmem:kmem_cache_free/kfree with\n"
		   "; call_site=rcu_do_batch), so the machine and its background only; the workload is the\n"
		   "; include's (give one of your own to run it)",
		   pre, clock, hz, include, duration);
	write_background(f, bgf, bgv, pre, c->maxcpu + 1, line, sizeof(line));
	if (ferror(f) | fclose(f) || rename(tmp, out)) {
		fprintf(stderr, "rcusim calibrate: %s: %s\n", out, strerror(errno));
		remove(tmp);
		return EXIT_IO;
	}
	fprintf(stderr, "rcusim calibrate: wrote %s\n", out);
	fprintf(stderr, "rcusim calibrate: %s: no invoked callbacks (rcu:rcu_invoke_callback, or "
			"kmem:kmem_cache_free/kfree with call_site=rcu_do_batch): no load to fit; the machine "
			"and its background only, not run\n", trace);
	printf("%s\n", line);
	return 0;
}

/* The box beside the model, each figure per second. */
static int print_beside(const char *db_path, int64_t box, int64_t box_span_ns, int64_t model, double per_free)
{
	static const char *const names[] = { "softirq.passes_irq_exit", "softirq.passes_ksoftirqd",
					     "softirq.ksoftirqd_wakeups", "gp.kthread_wakeups", "sched.ctxsw",
					     "cb.invoked" };
	rec_db *db = NULL;
	rec_run_row *rows = NULL;
	size_t nrows = 0;
	char err[1024];
	int status = cli_open_db(db_path, true, &db);
	if (status)
		return status;
	int64_t ids[2] = { box, model };
	if (rec_select_runs(db, ids, 2, &rows, &nrows, err, sizeof(err)) || nrows != 2) {
		fprintf(stderr, "rcusim calibrate: %s\n", err);
		rec_close(db);
		return EXIT_IO;
	}
	double span[2] = { (double)box_span_ns / 1e9, (double)rows[1].sim_end_ns / 1e9 };
	printf("\n%-28s %14s %14s %8s\n", "per second", "box", "model", "model/box");
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		double v[2];
		bool has[2];
		for (int r = 0; r < 2; r++)
			if (rec_scalar(db, ids[r], names[k], &v[r], &has[r], err, sizeof(err))) {
				fprintf(stderr, "rcusim calibrate: %s\n", err);
				free(rows);
				rec_close(db);
				return EXIT_IO;
			}
		/* The box's frees from rcu_do_batch as the callbacks they stand for. */
		if (k == 5 && has[0])
			v[0] *= per_free;
		char b[32] = "-", m[32] = "-", ratio[32] = "-";
		if (has[0])
			snprintf(b, sizeof(b), "%.1f", v[0] / span[0]);
		if (has[1])
			snprintf(m, sizeof(m), "%.1f", v[1] / span[1]);
		bool inband = false;
		if (has[0] && has[1] && v[0] > 0) {
			double x = (v[1] / span[1]) / (v[0] / span[0]);
			inband = x >= 0.75 && x <= 1.33;
			snprintf(ratio, sizeof(ratio), "%.2f", x);
		}
		printf("%-28s %14s %14s %8s%s\n", names[k], b, m, ratio,
		       k < 5 && has[0] && has[1] && v[0] > 0 ? (inband ? "" : "  (out of 0.75-1.33)") : "");
	}
	if (per_free != 1)
		printf("(the box's cb.invoked: its frees from rcu_do_batch x %g, --callbacks-per-free)\n", per_free);
	printf("(box: run %" PRId64 ", %.3f s; model: run %" PRId64 ", %.3f s; `rcusim compare --base %" PRId64
	       " %" PRId64 " %" PRId64 "` shows the totals)\n",
	       box, span[0], model, span[1], box, box, model);
	free(rows);
	rec_close(db);
	return 0;
}

int cmd_calibrate(int argc, char **argv)
{
	const char *trace = NULL, *out = NULL, *include = "kernels/linux-6.12.ini", *per_free_s = NULL,
		   *kshare_s = NULL, *duration = "10s", *db_path = "rcusim.db", *load_s = NULL;
	bool run = true;
	const cli_str strs[] = { { "--out", &out },
				 { "--include", &include },
				 { "--callbacks-per-free", &per_free_s },
				 { "--kernel-share", &kshare_s },
				 { "--duration", &duration },
				 { "--db", &db_path },
				 { "--load", &load_s },
				 { NULL, NULL } };
	for (int i = 1; i < argc; i++) {
		int rc;
		if (cli_help(argv[i], calibrate_usage))
			return 0;
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				return EXIT_USAGE;
		} else if (!strcmp(argv[i], "--no-run")) {
			run = false;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "rcusim calibrate: unknown option %s\n%s", argv[i], calibrate_usage);
			return EXIT_USAGE;
		} else if (trace) {
			fprintf(stderr, "rcusim calibrate: one trace at a time (got %s and %s)\n", trace, argv[i]);
			return EXIT_USAGE;
		} else {
			trace = argv[i];
		}
	}
	if (!trace) {
		fprintf(stderr, "rcusim calibrate: no trace given\n%s", calibrate_usage);
		return EXIT_USAGE;
	}
	double per_free = 1, kshare = -1;
	char *e;
	if (per_free_s && ((per_free = strtod(per_free_s, &e)), e == per_free_s || *e || !(per_free >= 0.01) ||
			   per_free > 1000)) {
		fprintf(stderr, "rcusim calibrate: --callbacks-per-free %s: want a number, 0.01 to 1000\n",
			per_free_s);
		return EXIT_USAGE;
	}
	if (kshare_s && ((kshare = strtod(kshare_s, &e)), e == kshare_s || *e || !(kshare >= 0) || kshare > 0.99)) {
		fprintf(stderr, "rcusim calibrate: --kernel-share %s: want a share, 0 to 0.99\n", kshare_s);
		return EXIT_USAGE;
	}
	char outbuf[PATH_MAX];
	if (!out) {
		const char *base = strrchr(trace, '/');
		snprintf(outbuf, sizeof(outbuf), "%s", base ? base + 1 : trace);
		for (char *d; (d = strrchr(outbuf, '.')) && d != outbuf &&
			      (!strcmp(d, ".gz") || !strcmp(d, ".txt") || !strcmp(d, ".dat") || !strcmp(d, ".trace"));)
			*d = 0;
		size_t l = strlen(outbuf);
		snprintf(outbuf + l, sizeof(outbuf) - l, ".ini");
		out = outbuf;
	}
	/* The scenario written must not be the file it includes. */
	{
		char ro[PATH_MAX], ri[PATH_MAX];
		if (realpath(out, ro) && realpath(include, ri) && !strcmp(ro, ri)) {
			fprintf(stderr, "rcusim calibrate: --out %s is the --include %s: give the scenario another "
					"name\n", out, include);
			return EXIT_USAGE;
		}
	}
	sim_params *pre = NULL;
	int status = load_preset(include, &pre);
	if (status)
		return status;
	double clock = sim_params_real(pre, P_MACHINE_CLOCK);
	if (!sim_params_preset(pre, P_MACHINE_CLOCK) && !strcmp(sim_params_origin(pre, P_MACHINE_CLOCK), "default"))
		clock = 6.9e9; /* written below: the model's x86 calibration */
	double scale = clock / CAL_REF_CLOCK_HZ;
	int64_t pass_cost = sim_params_int(pre, P_SOFTIRQ_PASS_COST);
	int64_t blimit = sim_params_int(pre, P_RCU_BLIMIT);

	cal c = { .maxcpu = -1, .per_free = per_free };
	bgfit bgf = { 0 };
	bgvals bgv;
	char bgline[512] = "";
	if ((status = cal_read(&c, trace)))
		goto out;
	/* What the trace must hold. */
	if (c.maxcpu < 0) {
		fprintf(stderr, "rcusim calibrate: %s: no trace events in it\n", trace);
		status = EXIT_USAGE;
		goto out;
	}
	if (!c.has_switch) {
		fprintf(stderr, "rcusim calibrate: %s: no sched:sched_switch events: the load's CPU time "
				"cannot be measured\n", trace);
		status = EXIT_USAGE;
		goto out;
	}
	if (!c.has_invoke && !c.has_free) {
		/* No load: the machine and its background only. */
		status = calibrate_idle(&c, &bgf, &bgv, trace, out, pre, clock, include, duration);
		goto out;
	}
	if (!c.passes) {
		fprintf(stderr, "rcusim calibrate: %s: no RCU softirq passes (irq:softirq_entry/exit vec=9): "
				"nothing to fit the costs to\n", trace);
		status = EXIT_USAGE;
		goto out;
	}
	sim_fit fit;
	if (sim_fit_linear(c.all.x.v, c.all.y.v, c.all.x.n, &fit)) {
		fprintf(stderr, "rcusim calibrate: %s: its %zu RCU passes all invoke the same number of "
				"callbacks: no line to fit\n", trace, c.all.x.n);
		status = EXIT_USAGE;
		goto out;
	}
	double span = (double)(c.t1 - c.t0) / 1e9;
	/* The load: the task name with the most CPU time over every CPU; a CPU
	 * where it ran is loaded. */
	char load_comm[TRACE_COMM_LEN] = "";
	if (load_s)
		snprintf(load_comm, sizeof(load_comm), "%s", load_s);
	else {
		int64_t best_ns = 0;
		for (int i = 0; i <= c.maxcpu; i++)
			for (size_t t = 0; t < c.cpu[i].ntasks; t++) {
				const char *n = c.cpu[i].tasks[t].comm;
				int64_t tot = 0;
				for (int j = 0; j <= c.maxcpu; j++)
					for (size_t u = 0; u < c.cpu[j].ntasks; u++)
						if (!strcmp(c.cpu[j].tasks[u].comm, n))
							tot += c.cpu[j].tasks[u].run_ns;
				if (!strcmp(n, "rcusim-load"))
					tot = INT64_MAX; /* rcusim record's load */
				if (tot > best_ns) {
					best_ns = tot;
					snprintf(load_comm, sizeof(load_comm), "%s", n);
				}
			}
	}
	int jobs = 0, loaded = 0;
	double load_ns = 0, load_cbs = 0, load_sys = 0, load_kns = 0, load_sleeps = 0, load_sleep_ns = 0;
	char cpus[256] = "";
	for (int i = 0; i <= c.maxcpu; i++) {
		ccpu *cp = &c.cpu[i];
		int best = -1;
		for (size_t t = 0; t < cp->ntasks; t++)
			if (!strcmp(cp->tasks[t].comm, load_comm))
				best = (int)t;
		if (best >= 0 && (double)cp->tasks[best].run_ns / 1e9 >= CAL_LOADED_SHARE * span) {
			cp->load = best;
			loaded++;
			jobs += cp->tasks[best].npids > 0 ? cp->tasks[best].npids : 1;
			load_sleeps += (double)cp->tasks[best].sleeps;
			load_sleep_ns += (double)cp->tasks[best].sleep_ns;
			load_ns += (double)cp->tasks[best].run_ns;
			load_cbs += cp->cbs;
			load_sys += (double)cp->tasks[best].sys;
			load_kns += (double)cp->tasks[best].kernel_ns;
			size_t l = strlen(cpus);
			snprintf(cpus + l, sizeof(cpus) - l, "%s%d", l ? "," : "", i);
		}
	}
	if (!jobs || load_cbs <= 0) {
		fprintf(stderr, "rcusim calibrate: %s: no task ran %.1f%% of the trace or more on a CPU that "
				"invoked callbacks: nothing to fit the load to (record it under a load: rcusim "
				"record --load pipe)\n", trace, CAL_LOADED_SHARE * 100);
		status = EXIT_USAGE;
		goto out;
	}
	double rate = load_cbs / (load_ns / 1e9);
	/* A duty cycle when the load ran less than 90% of its CPUs' time: each
	 * job's CPU time between sleeps, and a sleep that gives it its share
	 * (the sleeps measured, switch out asleep to switch in, also hold the
	 * waits for the CPU). */
	double cpu_share = load_ns / 1e9 / ((double)loaded * span);
	double job_share = cpu_share * loaded / jobs;
	bool duty = cpu_share < 0.9;
	double busy_ns = load_ns / (load_sleeps > jobs ? load_sleeps : jobs);
	double sleep_ns = busy_ns * (1 - job_share) / job_share;
	bool kshare_measured = c.has_sys && c.has_sysexit && load_kns > 0 && !kshare_s;
	if (kshare < 0)
		kshare = kshare_measured ? load_kns / load_ns : 0.95;
	if (kshare > 0.99)
		kshare = 0.99;
	double syscall_cost = kshare / rate * 1e9 * scale;
	double cb_cost = fit.c1 * scale, fixed = fit.c0 * scale;
	double tasklet = fixed - (double)pass_cost;
	if (cb_cost < 1)
		cb_cost = 1;
	if (tasklet < 0)
		tasklet = 0;

	/* The scenario. */
	long long hz = 0;
	if (second_read(trace, load_comm, &hz, &bgf)) {
		fprintf(stderr, "rcusim calibrate: out of memory\n");
		status = cli_exit_status(SIM_ENOMEM);
		goto out;
	}
	bg_fit(&bgf, c.maxcpu + 1, &bgv);
	char tmp[PATH_MAX + 16];
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "rcusim calibrate: %s: %s\n", tmp, strerror(errno));
		status = EXIT_IO;
		goto out;
	}
	char what[512];
	snprintf(what, sizeof(what), "%" PRIu64 " RCU softirq passes (lines %" PRIu64 " to %" PRIu64 "), %s",
		 c.passes, c.lineno_first_pass, c.lineno_last_pass,
		 c.has_invoke ? "callbacks from rcu_invoke_callback"
			      : "callbacks from kmem_cache_free/kfree with call_site=rcu_do_batch");
	write_head(f, out, trace, &c, span, what, pre, clock, hz, include, duration);

	fprintf(f, "; The load: '%s', %s; per CPU:\n", load_comm,
		load_s ? "named by --load"
		       : !strcmp(load_comm, "rcusim-load") ? "rcusim record's"
							   : "the task name with the most CPU time (outside softirqs; "
							     "kernel threads and the idle task left out)");
	for (int i = 0; i <= c.maxcpu; i++) {
		ccpu *cp = &c.cpu[i];
		if (cp->load < 0) {
			fprintf(f, ";   CPU %d: '%s' ran less than %.1f%% of the trace there: not loaded\n", i,
				load_comm, CAL_LOADED_SHARE * 100);
			continue;
		}
		ctask *t = &cp->tasks[cp->load];
		fprintf(f, ";   CPU %d: '%s' (%d task%s) %.3f of the time, %.0f callbacks invoked there (%.0f/s of its CPU "
			   "time), %" PRIu64 " sleeps (%.1f us each)",
			i, t->comm, t->npids, t->npids == 1 ? "" : "s", (double)t->run_ns / 1e9 / span, cp->cbs,
			cp->cbs / ((double)t->run_ns / 1e9), t->sleeps, t->sleeps ? (double)t->sleep_ns / 1e3 / (double)t->sleeps : 0);
		if (c.has_sys)
			fprintf(f, ", %" PRIu64 " system calls (%.0f/s of its CPU time, %.2f callbacks each)", t->sys,
				(double)t->sys / ((double)t->run_ns / 1e9), t->sys ? cp->cbs / (double)t->sys : 0);
		fprintf(f, "\n");
	}
	if (!c.has_sys)
		fprintf(f, ";   (no sys_enter events: system calls and callbacks per call not measured)\n");
	else
		fprintf(f, ";   all loaded CPUs: %.2f callbacks per system call\n", load_cbs / load_sys);
	if (!c.has_invoke && per_free != 1)
		fprintf(f, ";   each rcu_do_batch free counted as %g callbacks (--callbacks-per-free)\n", per_free);
	fprintf(f, "[workload]\nkind = callrcu\n");
	fprintf(f, "jobs = %d ; the load's tasks on the loaded CPUs\n", jobs);
	if (loaded != c.maxcpu + 1)
		fprintf(f, "cpus = %s ; the loaded CPUs\n", cpus);
	fprintf(f, "callrcu_rate = %.0f/s ; %.0f callbacks over %.4f s of the load's CPU time\n", rate, load_cbs,
		load_ns / 1e9);
	if (duty)
		fprintf(f, "callrcu_busy = %.0fns ; a job's CPU time between sleeps: %.4f s over %.0f sleeps\n"
			   "callrcu_sleep = %.0fns ; a job ran %.4f of the time: busy x (1 - %.4f) / %.4f (the sleeps "
			   "measured, with the waits for the CPU: %.0f us each)\n",
			busy_ns, load_ns / 1e9, load_sleeps > jobs ? load_sleeps : jobs, sleep_ns, job_share, job_share,
			job_share, load_sleeps > 0 ? load_sleep_ns / 1e3 / load_sleeps : 0);
	else
		fprintf(f, "; a hog: it ran %.3f of its CPUs' time (it slept %.4f s, %.0f sleeps)\n", cpu_share,
			load_sleep_ns / 1e9, load_sleeps);
	if (kshare_measured)
		fprintf(f, "syscall_cost = %.0fns ; kernel share %.3f (sys_enter to sys_exit, %.4f s of %.4f s) "
			   "x 1/callrcu_rate x %.3g\n",
			syscall_cost, kshare, load_kns / 1e9, load_ns / 1e9, scale);
	else
		fprintf(f, "syscall_cost = %.0fns ; kernel share %.2f %s x 1/callrcu_rate x %.3g\n", syscall_cost,
			kshare, kshare_s ? "(--kernel-share)" : "(assumed: no sys_enter/sys_exit in the trace)",
			scale);
	fprintf(f, "\n; An RCU softirq pass's duration against the callbacks it invoked, least squares\n"
		   "; (gsl_fit_linear), real ns:\n");
	fit_line(f, "every pass", &c.all, scale);
	fit_line(f, "in ksoftirqd", &c.ksd, scale);
	fit_line(f, "elsewhere (irq exit, local_bh_enable)", &c.irq, scale);
	fprintf(f, "; The model's costs are fixed: the residuals' spread is not modelled.\n");
	fprintf(f, "[rcu]\ncallback_cost = %.0fns ; the slope %.1f ns x %.3g\n", cb_cost, fit.c1, scale);
	fprintf(f, "tasklet_cost = %.0fns ; the intercept %.0f ns x %.3g = %.0f ns, less softirq.pass_cost %" PRId64
		   " ns\n",
		tasklet, fit.c0, scale, fixed, pass_cost);

	fprintf(f, "\n; The box's background, per CPU a second: the other tasks' CPU share, switches into them\n"
		   "; and their wake-ups; ticks. Where it took 1%% of a CPU or more, a load of its own below\n"
		   "; (CPU time only: its wake-ups, timers and callbacks are not modelled).\n");
	for (int i = 0; i <= c.maxcpu; i++) {
		ccpu *cp = &c.cpu[i];
		if (!cp->seen)
			continue;
		double other = 0, sw = 0, wk = 0;
		for (size_t t = 0; t < cp->ntasks; t++)
			if ((int)t != cp->load) {
				other += (double)cp->tasks[t].run_ns;
				sw += (double)cp->tasks[t].switches;
				wk += (double)cp->tasks[t].wakeups;
			}
		fprintf(f, ";   CPU %d: %.4f of the time, %.1f switches, %.1f wake-ups; %.1f ticks%s\n", i,
			other / 1e9 / span, sw / span, wk / span, (double)cp->ticks / span,
			c.has_tick ? "" : " (no tick events)");
	}
	write_background(f, &bgf, &bgv, pre, c.maxcpu + 1, bgline, sizeof(bgline));
	/* The background as loads of its own where it took 1% of a CPU or
	 * more: a job on that CPU calling nothing, with the other tasks' CPU
	 * share and a stretch per switch into them. With machine.background
	 * on, the model runs beside it, on each CPU, background.wakeups
	 * wake-ups a second of a task running background.wakeup_cost each
	 * (models/kernel/background.c; the values written above, fitted or
	 * the include's): that CPU time is the other tasks' too, so it is left
	 * out here, and no CPU time is counted twice. */
	bool bg_on = sim_params_int(pre, P_MACHINE_BACKGROUND) != 0;
	double bg_wk = bgv.wakeups >= 0 ? bgv.wakeups : sim_params_real(pre, P_BACKGROUND_WAKEUPS);
	double bg_cost = bgv.wakeup_cost >= 0 ? bgv.wakeup_cost : (double)sim_params_int(pre, P_BACKGROUND_WAKEUP_COST);
	double bg_share = bg_on ? bg_wk * bg_cost / 1e9 : 0; /* of a CPU */
	for (int i = 0; i <= c.maxcpu; i++) {
		ccpu *cp = &c.cpu[i];
		double other = 0, sw = 0;
		for (size_t t = 0; cp->seen && t < cp->ntasks; t++)
			if ((int)t != cp->load) {
				other += (double)cp->tasks[t].run_ns;
				sw += (double)cp->tasks[t].switches;
			}
		double all = other / 1e9 / span, sw_all = sw;
		double share = all > bg_share ? all - bg_share : 0;
		/* The switches in the same proportion: the stretches left keep
		 * the other tasks' mean run (the model's wake-ups are a mean
		 * over the CPUs, this CPU's may be fewer). */
		if (all > 0)
			sw *= share / all;
		if (share < 0.01) {
			if (all >= 0.01)
				fprintf(f, "; CPU %d: no load of its own: of the other tasks' %.4f of its time, machine.background's "
					   "%.1f wake-ups a second of %.0f ns are %.4f, %.4f left\n",
					i, all, bg_wk, bg_cost, bg_share, share);
			continue;
		}
		fprintf(f, "\n[workload.background%d] ; the other tasks on CPU %d: %.4f of its time, %.0f switches "
			   "into them",
			i, i, share, sw);
		if (bg_on)
			fprintf(f, " (of %.4f and %.0f, less machine.background's %.1f wake-ups a second of %.0f ns: %.4f)",
				all, sw_all, bg_wk, bg_cost, bg_share);
		fprintf(f, "\nkind = callrcu\njobs = 1\ncpus = %d\ncallrcu_rate = 0/s\nsyscall_cost = 0ns\n", i);
		if (share < 0.9 && sw > 0) {
			double busy = share * 1e9 * span / sw;
			fprintf(f, "callrcu_busy = %.0fns ; their CPU time a switch into them\ncallrcu_sleep = %.0fns ; "
				   "busy x (1 - %.4f) / %.4f\n", busy, busy * (1 - share) / share, share, share);
		}
	}
	/* A hint when frees look like parts of full batches. */
	uint64_t nk = 0, mode = 0;
	for (int k = 0; k < 64; k++) {
		nk += c.free_hist[k];
		if (c.free_hist[k] > c.free_hist[mode])
			mode = (uint64_t)k;
	}
	bool hint = !c.has_invoke && per_free == 1 && nk >= 100 && mode >= 2 && (int64_t)mode < blimit &&
		    blimit % (int64_t)mode == 0 && c.free_hist[mode] * 2 > nk;
	if (ferror(f) | fclose(f) || rename(tmp, out)) {
		fprintf(stderr, "rcusim calibrate: %s: %s\n", out, strerror(errno));
		remove(tmp);
		status = EXIT_IO;
		goto out;
	}
	fprintf(stderr, "rcusim calibrate: wrote %s\n", out);
	printf("fitted: callrcu_rate %.0f/s on %d CPU%s, pass %.0f ns + %.1f ns a callback (real; %zu passes), "
	       "callback_cost %.0fns, tasklet_cost %.0fns, syscall_cost %.0fns\n",
	       rate, jobs, jobs == 1 ? "" : "s", fit.c0, fit.c1, fit.n, cb_cost, tasklet, syscall_cost);
	printf("%s\n", bgline);
	if (hint)
		fprintf(stderr, "rcusim calibrate: %s: %" PRIu64 " of %" PRIu64 " ksoftirqd passes free %" PRIu64
				" objects, rcu.blimit %" PRId64 " is %" PRId64 " times that: if they are full batches, "
				"each free stands for %" PRId64 " callbacks (--callbacks-per-free %" PRId64 ")\n",
			trace, c.free_hist[mode], nk, mode, blimit, blimit / (int64_t)mode, blimit / (int64_t)mode,
			blimit / (int64_t)mode);
	if (!run)
		goto out;
	cli_import_req ir = { "calibrate", trace, db_path, "calibrate: the box", 100000000, NULL, 0, false, true };
	cli_import_res res;
	if ((status = cli_import(&ir, &res)))
		goto out;
	cli_run_req rr = { .scenario = out, .db_path = db_path, .label = "calibrate: the model", .quiet = true };
	int64_t model_id = 0;
	if ((status = cli_do_run(&rr, &model_id)))
		goto out;
	printf("model: run %" PRId64 ", %s\n", model_id, out);
	status = print_beside(db_path, res.run_id, res.span_ns, model_id, c.has_invoke ? 1 : per_free);
out:
	cal_free(&c);
	free(bgf.cpu);
	sim_values_free(&bgf.runs);
	sim_params_destroy(pre);
	return status;
}
