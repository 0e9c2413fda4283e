/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * import.c - `rcusim import TRACE`: a real machine's trace (the tracefs
 * trace file, or trace-cmd report's text; gzip-compressed if its name ends
 * in .gz) recorded as a run of policy "measured", under the metric names
 * the model writes, so that compare, plot and check show a box beside a
 * simulated one.
 *
 * From the events (include/trace/events/ of 6.x):
 * - softirq_entry vec=9: RCU softirq passes, in ksoftirqd (its comm) or
 *   elsewhere (softirq.passes_ksoftirqd, softirq.passes_irq_exit), and the
 *   time between each entry and its exit: each CPU's share in the RCU
 *   softirq per sample interval (softirq.busy_frac);
 * - sched_switch: context switches (sched.ctxsw); sched_wakeup of
 *   ksoftirqd/N and of the GP kthread (rcu_preempt, rcu_sched):
 *   softirq.ksoftirqd_wakeups (and the longest wait until it ran,
 *   softirq.ksoftirqd_wait_max_ns), gp.kthread_wakeups;
 * - with CONFIG_RCU_TRACE: rcu_grace_period start/end (gp.completed,
 *   gp.duration_ns), rcu_batch_end or rcu_invoke_callback (cb.invoked),
 *   rcu_callback and rcu_invoke_callback paired by rhp (cb.latency_ns).
 * An event a kernel without them does not have is absent, and so is its
 * metric. Parameters recorded: trace.file, trace.cpus, trace.lines,
 * trace.lost (events the ring buffer overwrote or trace-cmd lost).
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
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
#include "tracefile.h"

static const char import_usage[] =
	"usage: rcusim import TRACE [--db FILE] [--label TEXT] [--sample TIME] [--hz N]\n"
	"\n"
	"Record a real machine's trace as a run of policy \"measured\": the tracefs\n"
	"trace file or trace-cmd report's text (gzip-compressed if TRACE ends in .gz)\n"
	"with softirq, sched and (where the kernel has them) rcu events. Its metrics\n"
	"carry the names the model writes (softirq passes per context, ksoftirqd and\n"
	"GP kthread wake-ups, context switches, softirq runs with an RCU pass outside\n"
	"ksoftirqd and their lengths (a CPU's passes with no other event between them;\n"
	"ksoftirqd's back-to-back runs cannot be told apart), the RCU softirq's share\n"
	"of each CPU\n"
	"every --sample, default 100ms; with CONFIG_RCU_TRACE grace periods,\n"
	"callbacks invoked and their latency), so compare, plot and check show the\n"
	"box beside a simulated run. A line that is not a trace line is an error\n"
	"naming it (exit 2); a trace whose last line is cut, or whose buffer lost\n"
	"events, is recorded and said to be so.\n"
	"\n"
	"  --db FILE      results database (default rcusim.db)\n"
	"  --label TEXT   a label stored with the run\n"
	"  --sample TIME  the interval of softirq.busy_frac (default 100ms)\n"
	"  --hz N         the box's HZ, recorded as trace.hz (default: from the interval\n"
	"                 between a CPU's scheduler-tick rcu_utilization events)\n";

/* The parameters a measured run records. */
enum { IP_FILE, IP_CPUS, IP_LINES, IP_LOST, IP_HZ, IP_COUNT };
static const sim_param_def import_params[IP_COUNT] = {
	{ "trace.file", SIM_P_STRING, "-", 0, 0, NULL, 0, NULL, "the trace imported", "the command line" },
	{ "trace.cpus", SIM_P_INT, "0", 0, 1e9, NULL, 0, "CPUs", "CPUs the trace names", "the trace" },
	{ "trace.lines", SIM_P_INT, "0", 0, 1e18, NULL, 0, "lines", "event lines read", "the trace" },
	{ "trace.lost", SIM_P_INT, "0", 0, 1e18, NULL, 0, "events",
	  "events the ring buffer overwrote or trace-cmd reported lost", "the trace" },
	{ "trace.hz", SIM_P_INT, "0", 0, 100000, NULL, 0, "ticks/s",
	  "the box's HZ: --hz, else the median interval between a CPU's ticks (rcu_utilization "
	  "Start scheduler-tick), else 0 (unknown)", "the trace or --hz" },
};

/* Most softirq.busy_frac points an import holds: run's bound, smaller in
 * the fuzz target (tests/fuzz_trace.c), whose inputs must each end fast. */
#ifndef RCUSIM_IMPORT_POINTS_MAX
#define RCUSIM_IMPORT_POINTS_MAX MODEL_SAMPLE_POINTS_MAX
#endif

/* Per CPU. */
typedef struct icpu {
	bool seen;
	int64_t rcu_at;      /* ns: the RCU softirq entry in progress, or -1 */
	int64_t busy;        /* ns in the RCU softirq in the current sample interval */
	int64_t ksd_woken;   /* ns: its ksoftirqd's wakeup not yet followed by its switch in, or -1 */
	int64_t run_at;      /* ns: the softirq run in progress began, or -1 */
	int64_t run_end;     /* ns: its last pass's exit */
	bool run_ksd;        /* it is ksoftirqd's (not counted) */
	bool run_rcu;        /* it made an RCU pass */
	bool in_pass;        /* a pass (any vector) is in progress */
	int64_t last_tick;   /* ns: its last scheduler-tick, or -1 */
} icpu;

typedef struct importer {
	const char *path;
	icpu *cpu;
	int ncpu;            /* slots */
	int maxcpu;          /* highest CPU seen */
	int nseen;           /* CPUs seen */
	int64_t t0, t1;      /* ns: first and last event */
	int64_t sample_ns, next_sample;
	double npoints;      /* softirq.busy_frac points held */
	bool over;           /* more would pass RCUSIM_IMPORT_POINTS_MAX: sampling stopped, refused at the end */
	const char *why;     /* why line() refused a line of an event's form, or NULL */
	uint64_t lines, lost, pk, po, sw, kw, gw, gps, invoked_batch, invoked_cb;
	bool has_batch, has_invoke, has_gp;
	int64_t ksd_wait_max;
	sim_tmap starts;        /* rcu_grace_period start by gp_seq */
	sim_tmap cbs;           /* rcu_callback by rhp */
	sim_metrics *m;
	sim_hist *gp_hist, *lat_hist, *run_hist;
	uint64_t runs_other; /* softirq runs with an RCU pass outside ksoftirqd */
	int64_t *ticks;      /* intervals between a CPU's ticks, ns */
	size_t nticks, capticks;
} importer;

/* The softirq run open on @c ends at its last pass's exit: counted if it
 * made an RCU pass. */
static void run_close(importer *im, icpu *c)
{
	if (c->run_at < 0)
		return;
	/* ksoftirqd's back-to-back runs show no event between them: only
	 * the runs elsewhere are delimited. */
	if (c->run_rcu && !c->run_ksd && !c->in_pass && c->run_end >= c->run_at) {
		sim_hist_add(im->run_hist, (uint64_t)(c->run_end - c->run_at));
		im->runs_other++;
	}
	c->run_at = -1;
}

/* Slots for CPUs 0 to @cpu (below 10^6: the [CPU] field's 6 digits). */
static int grow_cpus(importer *im, int cpu)
{
	assert(cpu >= 0 && cpu < 1000000);
	if (cpu < im->ncpu)
		return 0;
	int n = im->ncpu ? im->ncpu : 8;
	while (n <= cpu)
		n *= 2;
	icpu *c = realloc(im->cpu, (size_t)n * sizeof(*c));
	if (!c)
		return -1;
	for (int i = im->ncpu; i < n; i++)
		c[i] = (icpu){ false, -1, 0, -1, -1, 0, false, false, false, -1 };
	im->cpu = c;
	im->ncpu = n;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The busy shares of every CPU for the sample interval ending at @t. */
static int sample(importer *im, int64_t t)
{
	double sum = 0;
	int n = 0;
	for (int i = 0; i <= im->maxcpu; i++) {
		icpu *c = &im->cpu[i];
		if (!c->seen)
			continue;
		int64_t busy = c->busy;
		if (c->rcu_at >= 0 && c->rcu_at < t) {
			busy += t - c->rcu_at;
			c->rcu_at = t;
		}
		c->busy = 0;
		double f = (double)busy / (double)im->sample_ns;
		sim_series *s = sim_metrics_series(im->m, "softirq.busy_frac", i);
		if (!s || sim_series_append(s, t - im->t0, f))
			return -1;
		sum += f;
		n++;
	}
	sim_series *s = sim_metrics_series(im->m, "softirq.busy_frac", -1);
	if (!s || sim_series_append(s, t - im->t0, n ? sum / n : 0))
		return -1;
	return 0;
}

/* One line of the trace, in time order: 0, 1 (not a trace line; im->why
 * says why, if it has an event's form), or -1 (out of memory). */
static int line(importer *im, const char *l)
{
	sim_ftrace_ev ev;
	im->why = NULL;
	if (!sim_ftrace_parse(l, &ev)) {
		im->why = ev.why;
		return 1;
	}
	int cpu = ev.cpu;
	int64_t ts = ev.ts;
	const char *comm = ev.comm, *rest = ev.rest, *after = ev.event;
	size_t elen = ev.event_len;
	if (grow_cpus(im, cpu))
		return -1;
	if (cpu > im->maxcpu)
		im->maxcpu = cpu;
	if (!im->cpu[cpu].seen)
		im->nseen++;
	im->cpu[cpu].seen = true;
	if (!im->lines++) {
		im->t0 = ts;
		im->next_sample = ts + im->sample_ns;
	}
	assert(ts >= im->t1 || im->lines == 1); /* sim_reorder: in time order */
	/* Every interval's sample, while they fit in RCUSIM_IMPORT_POINTS_MAX
	 * points (run's bound: a trace whose span would pass it is refused at
	 * its end, with the interval that fits). */
	if (!im->over && ts >= im->next_sample &&
	    im->npoints + (floor((double)(ts - im->next_sample) / (double)im->sample_ns) + 1) * (im->nseen + 1) >
		    RCUSIM_IMPORT_POINTS_MAX)
		im->over = true; /* before a sample is taken, however far apart the lines */
	while (!im->over && ts >= im->next_sample) {
		if (sample(im, im->next_sample))
			return -1;
		im->npoints += im->nseen + 1;
		im->next_sample += im->sample_ns;
	}
	im->t1 = ts;
	icpu *c = &im->cpu[cpu];
#define EV(s) (elen == sizeof(s) - 1 && !memcmp(after, s, elen))
	uint64_t v;
	/* Softirq runs: the passes of a CPU with nothing else between them
	 * but what a pass itself traces (events inside a pass). */
	if (EV("softirq_entry")) {
		if (c->run_at < 0) {
			c->run_at = c->run_end = ts;
			c->run_ksd = !strncmp(comm, "ksoftirqd/", 10);
			c->run_rcu = false;
		}
		c->in_pass = true;
		if (strstr(rest, "vec=9 "))
			c->run_rcu = true;
	} else if (EV("softirq_exit")) {
		c->in_pass = false;
		c->run_end = ts;
	} else if (!c->in_pass) {
		run_close(im, c);
	}
	if (EV("rcu_utilization") && strstr(rest, "Start scheduler-tick")) {
		if (c->last_tick >= 0) {
			if (im->nticks == im->capticks) {
				size_t cap = im->capticks ? 2 * im->capticks : 1024;
				int64_t *t = realloc(im->ticks, cap * sizeof(*t));
				if (!t)
					return -1;
				im->ticks = t;
				im->capticks = cap;
			}
			im->ticks[im->nticks++] = ts - c->last_tick;
		}
		c->last_tick = ts;
	}
	if (EV("softirq_entry") && strstr(rest, "vec=9 ")) {
		if (!strncmp(comm, "ksoftirqd/", 10))
			im->pk++;
		else
			im->po++;
		c->rcu_at = ts;
	} else if (EV("softirq_exit") && strstr(rest, "vec=9 ")) {
		if (c->rcu_at >= 0)
			c->busy += ts - c->rcu_at;
		c->rcu_at = -1;
	} else if (EV("sched_switch")) {
		im->sw++;
		const char *n = strstr(rest, "next_comm=");
		if (n && !strncmp(n + 10, "ksoftirqd/", 10) && c->ksd_woken >= 0) {
			if (ts - c->ksd_woken > im->ksd_wait_max)
				im->ksd_wait_max = ts - c->ksd_woken;
			c->ksd_woken = -1;
		}
	} else if (EV("sched_wakeup")) {
		const char *n = strstr(rest, "comm=");
		if (n && !strncmp(n + 5, "ksoftirqd/", 10)) {
			im->kw++;
			uint64_t target;
			int t = cpu;
			if (sim_ftrace_field(rest, "target_cpu=", false, &target)) {
				if (target > 999999) {
					im->why = "target_cpu= is not a CPU number (at most 6 digits, as [CPU])";
					return 1;
				}
				t = (int)target;
			}
			if (grow_cpus(im, t))
				return -1;
			if (im->cpu[t].ksd_woken < 0)
				im->cpu[t].ksd_woken = ts;
		} else if (n && (!strncmp(n + 5, "rcu_preempt ", 12) || !strncmp(n + 5, "rcu_sched ", 10))) {
			im->gw++;
		}
	} else if (EV("rcu_grace_period")) {
		/* "rcu_preempt 12345 start" */
		const char *q = rest;
		while (*q == ' ')
			q++;
		while (*q && *q != ' ')
			q++;
		char *e;
		long long seq = strtoll(q, &e, 10);
		while (*e == ' ')
			e++;
		if (e == q)
			return 1;
		im->has_gp = true;
		if (!strncmp(e, "start", 5)) {
			if (sim_tmap_put(&im->starts, (uint64_t)seq + 1, ts))
				return -1;
		} else if (!strncmp(e, "end", 3) && (e[3] == 0 || e[3] == ' ' || e[3] == '\n')) {
			im->gps++;
			int64_t s = sim_tmap_take(&im->starts, (uint64_t)seq + 1);
			if (s >= 0 && ts >= s)
				sim_hist_add(im->gp_hist, (uint64_t)(ts - s));
		}
	} else if (EV("rcu_batch_end")) {
		im->has_batch = true;
		if (sim_ftrace_field(rest, "CBs-invoked=", false, &v))
			im->invoked_batch += v;
	} else if (EV("rcu_callback")) {
		if (sim_ftrace_field(rest, "rhp=", true, &v) && sim_tmap_put(&im->cbs, v, ts))
			return -1;
	} else if (EV("rcu_invoke_callback")) {
		im->has_invoke = true;
		im->invoked_cb++;
		if (sim_ftrace_field(rest, "rhp=", true, &v)) {
			int64_t s = sim_tmap_take(&im->cbs, v);
			if (s >= 0 && ts >= s)
				sim_hist_add(im->lat_hist, (uint64_t)(ts - s));
		}
	}
#undef EV
	return 0;
}

/* The lines @ro lets go (every one with @all): into line(). 0, -1 (out of
 * memory), or 1 (a line refused, said on stderr). */
static int feed(importer *im, sim_reorder *ro, bool all, const char *trace)
{
	const char *text;
	uint64_t ln;
	int64_t ts;
	while (sim_reorder_take(ro, all, &text, &ln, &ts)) {
		int rc = line(im, text);
		if (rc < 0)
			return -1;
		if (rc) {
			char q[400];
			fprintf(stderr, "%s:%" PRIu64 ": %s: %s\n", trace, ln, im->why ? im->why : "not a trace line",
				sim_trace_quote(text, 80, q, sizeof(q)));
			return 1;
		}
	}
	return 0;
}

int cmd_import(int argc, char **argv)
{
	const char *db_path = "rcusim.db", *label = NULL, *trace = NULL, *sample_s = NULL, *hz_s = NULL;
	const cli_str strs[] = { { "--db", &db_path }, { "--label", &label }, { "--sample", &sample_s },
				 { "--hz", &hz_s }, { NULL, NULL } };
	for (int i = 1; i < argc; i++) {
		int rc;
		if (cli_help(argv[i], import_usage))
			return 0;
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				return EXIT_USAGE;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "rcusim import: unknown option %s\n%s", argv[i], import_usage);
			return EXIT_USAGE;
		} else if (trace) {
			fprintf(stderr, "rcusim import: one trace at a time (got %s and %s)\n", trace, argv[i]);
			return EXIT_USAGE;
		} else {
			trace = argv[i];
		}
	}
	if (!cli_label_ok("import", "--label", label))
		return EXIT_USAGE;
	if (!trace) {
		fprintf(stderr, "rcusim import: no trace given\n%s", import_usage);
		return EXIT_USAGE;
	}
	char err[2048], why[512];
	int64_t sample_ns = 100000000;
	if (sample_s) {
		static const sim_param_def t = { "--sample", SIM_P_TIME, "100ms", 1000, 3600e9,
						 NULL, 0, NULL, NULL, NULL };
		double d;
		bool a;
		if (sim_param_parse(&t, sample_s, &sample_ns, &d, &a, why, sizeof(why))) {
			fprintf(stderr, "rcusim import: --sample %s: %s\n", sample_s, why);
			return EXIT_USAGE;
		}
	}
	long long hz = 0;
	if (hz_s) {
		char *e;
		hz = strtoll(hz_s, &e, 10);
		if (e == hz_s || *e || hz < 10 || hz > 100000) {
			fprintf(stderr, "rcusim import: --hz %s: want ticks a second, 10 to 100000\n", hz_s);
			return EXIT_USAGE;
		}
	}
	sim_tracefile tf;
	int oe = sim_tracefile_open(&tf, trace);
	if (oe) {
		if (tf.spawn_failed) {
			fprintf(stderr, "rcusim import: %s: cannot run gzip -dc to read it: %s\n", trace,
				strerror(oe));
			return cli_exit_status(SIM_EIO);
		}
		fprintf(stderr, "rcusim import: %s: %s\n", trace, strerror(oe));
		return EXIT_USAGE;
	}
	importer im = { .path = trace, .maxcpu = -1, .sample_ns = sample_ns };
	sim_reorder ro = { 0 };
	char q[400];
	int status = EXIT_USAGE;
	sim_params *p = NULL;
	rec_db *db = NULL;
	const char *s;
	int got = 0;
	if (sim_metrics_create(&im.m) || !(im.gp_hist = sim_metrics_hist(im.m, "gp.duration_ns")) ||
	    !(im.lat_hist = sim_metrics_hist(im.m, "cb.latency_ns")) ||
	    !(im.run_hist = sim_metrics_hist(im.m, "softirq.irq_run_ns")))
		goto nomem;
	/* Lines go through ro into time order (SIM_REORDER_WINDOW_NS); each
	 * is parsed as it comes, for its time and so that a bad one is named
	 * at once, and again as it leaves. */
	int fed = 0;
	while (!fed && (got = sim_tracefile_next(&tf, &s)) > 0) {
		sim_ftrace_ev ev;
		if (!sim_ftrace_parse(s, &ev)) {
			fprintf(stderr, "%s:%" PRIu64 ": %s: %s\n", trace, tf.lineno,
				ev.why ? ev.why : "not a trace line", sim_trace_quote(s, 80, q, sizeof(q)));
			status = EXIT_USAGE;
			goto out;
		}
		int rc = sim_reorder_put(&ro, ev.ts, tf.lineno, s);
		if (rc < 0)
			goto nomem;
		if (rc) {
			fprintf(stderr,
				"%s:%" PRIu64 ": its time, %" PRId64 ".%06" PRId64 " s, is %" PRId64 ".%06" PRId64
				" s before line %" PRIu64 "'s: out of order by more than the %d ms import "
				"sorts (traces joined, or a clock that jumped?)\n",
				trace, tf.lineno, ev.ts / 1000000000, ev.ts % 1000000000 / 1000,
				(ro.latest - ev.ts) / 1000000000, (ro.latest - ev.ts) % 1000000000 / 1000,
				ro.latest_line, SIM_REORDER_WINDOW_NS / 1000000);
			status = EXIT_USAGE;
			goto out;
		}
		fed = feed(&im, &ro, false, trace);
	}
	if (!fed && got == -2) {
		fprintf(stderr, "%s:%" PRIu64 ": %s\n", trace, tf.lineno, tf.why);
		status = EXIT_USAGE;
		goto out;
	}
	if (!fed && got < 0)
		goto nomem;
	if (!fed)
		fed = feed(&im, &ro, true, trace);
	if (fed < 0)
		goto nomem;
	if (fed) {
		status = EXIT_USAGE;
		goto out;
	}
	sim_tracefile_close(&tf);
	if (tf.gzip_failed)
		fprintf(stderr, "rcusim import: %s: gzip -dc failed (a truncated or damaged file?)\n",
			trace);
	im.lost = tf.lost;
	if (!im.lines) {
		fprintf(stderr, "rcusim import: %s: no trace events in it\n", trace);
		status = EXIT_USAGE;
		goto out;
	}
	if (im.over) {
		model_samples_fit((double)(im.t1 - im.t0), (double)im.sample_ns, im.nseen + 1,
				  RCUSIM_IMPORT_POINTS_MAX, why, sizeof(why));
		fprintf(stderr, "rcusim import: %s: its %.6f s of %d CPU%s sampled every --sample %s is %s\n",
			trace, (double)(im.t1 - im.t0) / 1e9, im.nseen, im.nseen == 1 ? "" : "s",
			sample_s ? sample_s : "100ms", why);
		status = EXIT_USAGE;
		goto out;
	}
	if (tf.truncated && !tf.gzip_failed)
		fprintf(stderr, "rcusim import: %s is truncated: its last line (%" PRIu64
				") is cut; the %" PRIu64 " events before it are imported\n",
			trace, tf.lineno, im.lines);
	if (im.lost)
		fprintf(stderr, "rcusim import: %s: the trace lost %" PRIu64 " events (its buffer overran)\n",
			trace, im.lost);
	/* The last interval, if partly covered, is left out of the series. */
	sim_metrics *m = im.m;
	int rc = 0;
	rc |= sim_metrics_scalar(m, "softirq.passes_irq_exit", (double)im.po);
	rc |= sim_metrics_scalar(m, "softirq.passes_ksoftirqd", (double)im.pk);
	for (int i = 0; i <= im.maxcpu; i++)
		run_close(&im, &im.cpu[i]);
	rc |= sim_metrics_scalar(m, "softirq.runs_irq_exit", (double)im.runs_other);
	rc |= sim_metrics_hist_scalars(m, "softirq.irq_run", im.run_hist, SIM_Q_P99 | SIM_Q_MAX);
	rc |= sim_metrics_scalar(m, "softirq.ksoftirqd_wakeups", (double)im.kw);
	rc |= sim_metrics_scalar(m, "softirq.ksoftirqd_wait_max_ns", (double)im.ksd_wait_max);
	rc |= sim_metrics_scalar(m, "sched.ctxsw", (double)im.sw);
	rc |= sim_metrics_scalar(m, "gp.kthread_wakeups", (double)im.gw);
	if (im.has_invoke || im.has_batch)
		rc |= sim_metrics_scalar(m, "cb.invoked",
					 (double)(im.has_invoke ? im.invoked_cb : im.invoked_batch));
	if (im.has_gp) {
		rc |= sim_metrics_scalar(m, "gp.completed", (double)im.gps);
		rc |= sim_metrics_hist_scalars(m, "gp.duration", im.gp_hist, SIM_Q_P50 | SIM_Q_P99 | SIM_Q_MAX);
	}
	rc |= sim_metrics_hist_scalars(m, "cb.latency", im.lat_hist,
				       SIM_Q_MEAN | SIM_Q_P50 | SIM_Q_P99 | SIM_Q_P999 | SIM_Q_MAX);
	if (rc)
		goto nomem;
	if (sim_params_create(&p, import_params, IP_COUNT, err, sizeof(err)))
		goto nomem;
	char v[64];
	const char *base = strrchr(trace, '/');
	base = base ? base + 1 : trace;
	if (sim_params_set_value(p, "trace.file", base, "rcusim import", err, sizeof(err)))
		goto bad;
	snprintf(v, sizeof(v), "%d", im.maxcpu + 1);
	if (sim_params_set_value(p, "trace.cpus", v, "the trace", err, sizeof(err)))
		goto bad;
	snprintf(v, sizeof(v), "%" PRIu64, im.lines);
	if (sim_params_set_value(p, "trace.lines", v, "the trace", err, sizeof(err)))
		goto bad;
	snprintf(v, sizeof(v), "%" PRIu64, im.lost);
	if (sim_params_set_value(p, "trace.lost", v, "the trace", err, sizeof(err)))
		goto bad;
	if (!hz && im.nticks) {
		/* The median interval between a CPU's ticks is one jiffy (a
		 * tickless idle CPU's longer ones are fewer on a loaded box). */
		qsort(im.ticks, im.nticks, sizeof(*im.ticks), cmp_i64);
		int64_t jiffy = im.ticks[im.nticks / 2];
		hz = jiffy > 10000 ? llround(1e9 / (double)jiffy) : 0; /* under 10 us: not ticks */
		if (hz > 100000)
			hz = 0;
	}
	snprintf(v, sizeof(v), "%lld", hz);
	if (sim_params_set_value(p, "trace.hz", v, hz_s ? "--hz" : "the trace", err, sizeof(err)))
		goto bad;
	char name[REC_LABEL_MAX + 1];
	snprintf(name, sizeof(name), "%s", base);
	for (char *d; (d = strrchr(name, '.')) && d != name &&
		      (!strcmp(d, ".gz") || !strcmp(d, ".txt") || !strcmp(d, ".dat") || !strcmp(d, ".trace"));)
		*d = 0;
	if ((status = cli_open_db(db_path, false, &db)))
		goto out;
	rec_run_info info = { name, "measured", 0, label, im.t1 - im.t0, RCUSIM_VERSION };
	int64_t run_id;
	if ((rc = rec_run_begin(db, &info, p, &run_id, err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		status = cli_exit_status(rc);
		goto out;
	}
	rec_run_result res = { "complete", im.t1 - im.t0, im.lines, 0 };
	if ((rc = rec_run_end(db, run_id, &res, m, rcusim_metrics, M_COUNT, err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		status = cli_exit_status(rc);
		goto out;
	}
	printf("run %lld complete: %s (measured), %.3f s of %d CPUs, %" PRIu64 " events\n",
	       (long long)run_id, name, (double)(im.t1 - im.t0) / 1e9, im.maxcpu + 1, im.lines);
	for (size_t k = 0; k < sim_metrics_nscalars(m); k++)
		printf("  %-28s %.17g\n", sim_metrics_scalar_name(m, k), sim_metrics_scalar_value(m, k));
	status = 0;
	goto out;
bad:
	fprintf(stderr, "rcusim import: %s\n", err);
	status = EXIT_USAGE;
	goto out;
nomem:
	fprintf(stderr, "rcusim import: out of memory\n");
	status = cli_exit_status(SIM_ENOMEM);
out:
	sim_tracefile_close(&tf);
	sim_reorder_free(&ro);
	free(im.cpu);
	sim_tmap_free(&im.starts);
	sim_tmap_free(&im.cbs);
	free(im.ticks);
	sim_metrics_destroy(im.m);
	sim_params_destroy(p);
	rec_close(db);
	return status;
}
