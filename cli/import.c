/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * import.c - `rcusim import TRACE`: a real machine's trace (the tracefs
 * trace file, trace-cmd report's text in its default, -N and -l forms, or
 * trace.dat; text gzip-compressed if its name ends in .gz) recorded as a
 * run of policy "measured", under the metric names the model writes, so
 * that compare, plot and check show a box beside a simulated one. Reading
 * and measuring are the trace library's (trace/trace.h: the events it
 * measures are listed atop trace/measure.c); this file puts the lines in
 * time order, says what the trace lacks and records the run. Parameters
 * recorded: trace.file, trace.cpus, trace.lines, trace.lost, trace.hz.
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
#include "trace.h"

static const char import_usage[] =
	"usage: rcusim import TRACE [--db FILE] [--label TEXT] [--sample TIME] [--hz N]\n"
	"\n"
	"Record a real machine's trace as a run of policy \"measured\". TRACE is the\n"
	"tracefs trace file, trace-cmd report's text (its default, -N or -l form,\n"
	"an instance's lines prefixed \"name: \"), either gzip-compressed if TRACE\n"
	"ends in .gz, or trace.dat (trace-cmd record's, read through libtracecmd,\n"
	"its times rounded to the microsecond as the text forms print them): every\n"
	"form of one recording imports to the same numbers. It wants softirq, sched\n"
	"and rcu events (rcu_utilization; with CONFIG_RCU_TRACE the others, else\n"
	"kmem_cache_free from rcu_do_batch). Its metrics carry the names the model\n"
	"writes (softirq passes per context, ksoftirqd and GP kthread wake-ups and\n"
	"their waits to run, context switches, softirq runs with an RCU pass\n"
	"outside ksoftirqd and their lengths, the RCU softirq's share of each CPU\n"
	"every --sample, grace periods, callbacks invoked and their latency); a\n"
	"metric whose events the trace lacks is absent, and said. Unmatched softirq\n"
	"events (at the trace's start) are skipped and counted; a filtered\n"
	"sched_switch is found by its broken chains and context switches counted\n"
	"from rcu_utilization. A line that is not a trace line is an error naming\n"
	"it (exit 2); a trace whose last line is cut, or whose buffer lost events,\n"
	"is recorded and said to be so.\n"
	"\n"
	"  --db FILE      results database (default rcusim.db)\n"
	"  --label TEXT   a label stored with the run\n"
	"  --sample TIME  the interval of softirq.busy_frac (default 100ms)\n"
	"  --hz N         the box's HZ, recorded as trace.hz (default: the commonest\n"
	"                 interval between a CPU's scheduler-tick rcu_utilization\n"
	"                 events, or 0 and said unknown when none is common enough)\n";

/* The parameters a measured run records. */
enum { IP_FILE, IP_CPUS, IP_LINES, IP_LOST, IP_HZ, IP_COUNT };
static const sim_param_def import_params[IP_COUNT] = {
	{ "trace.file", SIM_P_STRING, "-", 0, 0, NULL, 0, NULL, "the trace imported", "the command line" },
	{ "trace.cpus", SIM_P_INT, "0", 0, 1e9, NULL, 0, "CPUs", "CPUs the trace names", "the trace" },
	{ "trace.lines", SIM_P_INT, "0", 0, 1e18, NULL, 0, "lines", "event lines read", "the trace" },
	{ "trace.lost", SIM_P_INT, "0", 0, 1e18, NULL, 0, "events",
	  "events the ring buffer overwrote or trace-cmd reported lost", "the trace" },
	{ "trace.hz", SIM_P_INT, "0", 0, 100000, NULL, 0, "ticks/s",
	  "the box's HZ: --hz, else the modal interval between a CPU's ticks (rcu_utilization "
	  "Start scheduler-tick), else 0 (unknown)", "the trace or --hz" },
};

/* Most softirq.busy_frac points an import holds: run's bound, smaller in
 * the fuzz target (tests/fuzz_trace.c), whose inputs must each end fast. */
#ifndef RCUSIM_IMPORT_POINTS_MAX
#define RCUSIM_IMPORT_POINTS_MAX MODEL_SAMPLE_POINTS_MAX
#endif

/* The lines @ro lets go (every one with @all): parsed and measured. 0, -1
 * (out of memory), or 1 (a line refused, said on stderr). */
static int feed(trace_measure *tm, trace_reorder *ro, bool all, const char *trace)
{
	const char *text, *why;
	uint64_t ln;
	int64_t ts;
	while (trace_reorder_take(ro, all, &text, &ln, &ts)) {
		trace_ev ev;
		int rc = trace_parse_line(text, &ev) ? trace_measure_event(tm, &ev, &why) : 1;
		if (rc < 0)
			return -1;
		if (rc) {
			char q[400];
			fprintf(stderr, "%s:%" PRIu64 ": %s: %s\n", trace, ln,
				why ? why : ev.why ? ev.why : "not a trace line",
				trace_quote(text, 80, q, sizeof(q)));
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
	char why[512];
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
	cli_import_req req = { "import", trace, db_path, label, sample_ns, sample_s, hz, hz_s != NULL, false };
	return cli_import(&req, NULL);
}

int cli_import(const cli_import_req *req, cli_import_res *out_res)
{
	const char *trace = req->trace, *db_path = req->db_path, *label = req->label, *sample_s = req->sample_s;
	int64_t sample_ns = req->sample_ns;
	long long hz = req->hz;
	bool hz_given = req->hz_given;
	char err[2048], why[512];
	trace_src tf;
	int oe = trace_src_open(&tf, trace);
	if (oe) {
		if (tf.text.spawn_failed) {
			fprintf(stderr, "rcusim %s: %s: cannot run gzip -dc to read it: %s\n", req->cmd, trace,
				strerror(oe));
			return cli_exit_status(SIM_EIO);
		}
		fprintf(stderr, "rcusim %s: %s: %s\n", req->cmd, trace, oe == EINVAL && tf.err[0] ? tf.err : strerror(oe));
		return oe == ENOMEM ? cli_exit_status(SIM_ENOMEM) : EXIT_USAGE;
	}
	sim_metrics *m = NULL;
	trace_measure *tm = NULL;
	trace_measure_info in = { 0 };
	trace_reorder ro = { 0 };
	char q[400];
	int status = EXIT_USAGE;
	sim_params *p = NULL;
	rec_db *db = NULL;
	const char *s;
	int got = 0;
	if (sim_metrics_create(&m) || trace_measure_create(&tm, m, sample_ns, RCUSIM_IMPORT_POINTS_MAX))
		goto nomem;
	/* Lines go through ro into time order (TRACE_REORDER_WINDOW_NS); each
	 * is parsed as it comes, for its time and so that a bad one is named
	 * at once, and again as it leaves. */
	int fed = 0;
	while (!fed && (got = trace_src_next(&tf, &s)) > 0) {
		trace_ev ev;
		if (!trace_parse_line(s, &ev)) {
			fprintf(stderr, "%s:%" PRIu64 ": %s: %s\n", trace, tf.lineno,
				ev.why ? ev.why : "not a trace line", trace_quote(s, 80, q, sizeof(q)));
			status = EXIT_USAGE;
			goto out;
		}
		int rc = trace_reorder_put(&ro, ev.ts, tf.lineno, s);
		if (rc < 0)
			goto nomem;
		if (rc) {
			fprintf(stderr,
				"%s:%" PRIu64 ": its time, %" PRId64 ".%06" PRId64 " s, is %" PRId64 ".%06" PRId64
				" s before line %" PRIu64 "'s: out of order by more than the %d ms import "
				"sorts (traces joined, or a clock that jumped?)\n",
				trace, tf.lineno, ev.ts / 1000000000, ev.ts % 1000000000 / 1000,
				(ro.latest - ev.ts) / 1000000000, (ro.latest - ev.ts) % 1000000000 / 1000,
				ro.latest_line, TRACE_REORDER_WINDOW_NS / 1000000);
			status = EXIT_USAGE;
			goto out;
		}
		fed = feed(tm, &ro, false, trace);
	}
	if (!fed && got == -2) {
		fprintf(stderr, "%s:%" PRIu64 ": %s\n", trace, tf.lineno, tf.why);
		status = EXIT_USAGE;
		goto out;
	}
	if (!fed && got < 0)
		goto nomem;
	if (!fed)
		fed = feed(tm, &ro, true, trace);
	if (fed < 0)
		goto nomem;
	if (fed) {
		status = EXIT_USAGE;
		goto out;
	}
	uint64_t lost = tf.lost;
	uint64_t lastline = tf.lineno;
	trace_src_close(&tf);
	if (tf.gzip_failed)
		fprintf(stderr, "rcusim %s: %s: gzip -dc failed (a truncated or damaged file?)\n", req->cmd,
			trace);
	trace_measure_get_info(tm, &in);
	if (!in.events) {
		fprintf(stderr, "rcusim %s: %s: no trace events in it\n", req->cmd, trace);
		status = EXIT_USAGE;
		goto out;
	}
	if (in.over) {
		model_samples_fit((double)(in.t1 - in.t0), (double)sample_ns, in.nseen + 1,
				  RCUSIM_IMPORT_POINTS_MAX, why, sizeof(why));
		fprintf(stderr, "rcusim %s: %s: its %.6f s of %d CPU%s sampled every --sample %s is %s\n", req->cmd,
			trace, (double)(in.t1 - in.t0) / 1e9, in.nseen, in.nseen == 1 ? "" : "s",
			sample_s ? sample_s : "100ms", why);
		status = EXIT_USAGE;
		goto out;
	}
	if (tf.truncated && !tf.gzip_failed)
		fprintf(stderr, "rcusim %s: %s is truncated: its last line (%" PRIu64
				") is cut; the %" PRIu64 " events before it are imported\n",
			req->cmd, trace, lastline, in.events);
	if (lost)
		fprintf(stderr, "rcusim %s: %s: the trace lost %" PRIu64 " events (its buffer overran)\n",
			req->cmd, trace, lost);
	/* The last interval, if partly covered, is left out of the series. */
	long long thz;
	char notes[4096];
	if (trace_measure_finish(tm, &thz, notes, sizeof(notes)))
		goto nomem;
	for (char *n = notes, *e; *n; n = e + 1) {
		if (!(e = strchr(n, '\n')))
			break;
		if (hz_given && !strncmp(n, "HZ unknown", 10))
			continue;
		fprintf(stderr, "rcusim %s: %s: %.*s\n", req->cmd, trace, (int)(e - n), n);
	}
	if (!hz)
		hz = thz;
	if (sim_params_create(&p, import_params, IP_COUNT, err, sizeof(err)))
		goto nomem;
	char v[64];
	const char *base = strrchr(trace, '/');
	base = base ? base + 1 : trace;
	if (sim_params_set_value(p, "trace.file", base, "rcusim import", err, sizeof(err)))
		goto bad;
	snprintf(v, sizeof(v), "%d", in.maxcpu + 1);
	if (sim_params_set_value(p, "trace.cpus", v, "the trace", err, sizeof(err)))
		goto bad;
	snprintf(v, sizeof(v), "%" PRIu64, in.events);
	if (sim_params_set_value(p, "trace.lines", v, "the trace", err, sizeof(err)))
		goto bad;
	snprintf(v, sizeof(v), "%" PRIu64, lost);
	if (sim_params_set_value(p, "trace.lost", v, "the trace", err, sizeof(err)))
		goto bad;
	snprintf(v, sizeof(v), "%lld", hz);
	if (sim_params_set_value(p, "trace.hz", v, hz_given ? "--hz" : "the trace", err, sizeof(err)))
		goto bad;
	char name[REC_LABEL_MAX + 1];
	snprintf(name, sizeof(name), "%s", base);
	for (char *d; (d = strrchr(name, '.')) && d != name &&
		      (!strcmp(d, ".gz") || !strcmp(d, ".txt") || !strcmp(d, ".dat") || !strcmp(d, ".trace"));)
		*d = 0;
	if ((status = cli_open_db(db_path, false, &db)))
		goto out;
	rec_run_info info = { name, "measured", 0, label, in.t1 - in.t0, RCUSIM_VERSION };
	int64_t run_id;
	int rc;
	if ((rc = rec_run_begin(db, &info, p, &run_id, err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		status = cli_exit_status(rc);
		goto out;
	}
	rec_run_result res = { "complete", in.t1 - in.t0, in.events, 0 };
	if ((rc = rec_run_end(db, run_id, &res, m, rcusim_metrics, M_COUNT, err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		status = cli_exit_status(rc);
		goto out;
	}
	if (out_res)
		*out_res = (cli_import_res){ run_id, hz, in.maxcpu + 1, in.t1 - in.t0 };
	if (req->quiet)
		printf("box: run %lld, %s (measured), %.3f s of %d CPUs, %" PRIu64 " events\n",
		       (long long)run_id, name, (double)(in.t1 - in.t0) / 1e9, in.maxcpu + 1, in.events);
	else
		printf("run %lld complete: %s (measured), %.3f s of %d CPUs, %" PRIu64 " events\n",
		       (long long)run_id, name, (double)(in.t1 - in.t0) / 1e9, in.maxcpu + 1, in.events);
	for (size_t k = 0; !req->quiet && k < sim_metrics_nscalars(m); k++)
		printf("  %-28s %.17g\n", sim_metrics_scalar_name(m, k), sim_metrics_scalar_value(m, k));
	status = 0;
	goto out;
bad:
	fprintf(stderr, "rcusim %s: %s\n", req->cmd, err);
	status = EXIT_USAGE;
	goto out;
nomem:
	fprintf(stderr, "rcusim %s: out of memory\n", req->cmd);
	status = cli_exit_status(SIM_ENOMEM);
out:
	trace_src_close(&tf);
	trace_reorder_free(&ro);
	trace_measure_destroy(tm);
	sim_metrics_destroy(m);
	sim_params_destroy(p);
	rec_close(db);
	return status;
}
