/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tracestats.c - `rcusim trace-stats STRACE [--jobs N]`: the file-opening
 * behaviour of a build from its strace -f -ttt log, the source of the
 * workload.make_* defaults (docs/model.md, "How the make defaults were
 * measured"). Reads the log through trace/lines.h as the trace workload
 * does.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "lines.h"
#include "stats.h"

static const char tracestats_usage[] =
	"usage: rcusim trace-stats STRACE [--jobs N]\n"
	"\n"
	"The file-opening behaviour of a build, from\n"
	"  strace -f -ttt -e trace=openat,open,close,execve,exit_group,wait4 -o STRACE make -jN\n"
	"(gzip-compressed if STRACE ends in .gz). Prints per program (by the file it\n"
	"exec'd; the 12 with most processes): processes, open attempts per process,\n"
	"the share that failed, and .so/locale opens per process (files a process\n"
	"keeps through its mappings); over all: open attempts, failures, processes,\n"
	"compile units (cc1 processes, or ccache ones when a warm cache runs few\n"
	"cc1), and per unit; the open-to-close hold times. With --jobs N (the make\n"
	"-j of the log): processes alive at once per job slot (lifetimes, first\n"
	"call to last, of all but make, over the log's span, divided by N), the .so\n"
	"and locale files they hold, and the compile unit's run time (mean, median,\n"
	"lognormal sigma = sqrt(2 ln(mean / median))). These are the sources of the\n"
	"workload.make_* defaults (rcusim params workload.make_opens_per_job, ...).\n"
	"The same log replays as a load: workload.kind = trace.\n"
	"\n"
	"  --jobs N   the make -j the log was recorded with\n";

typedef struct prog {
	char *name;
	uint64_t procs, opens, fails, mapped;
} prog;

typedef struct proc {
	int64_t pid;
	int64_t first, last;    /* ns: its first and last completed call */
	int exe;                /* program it exec'd last, or -1 */
	int64_t exe_order;      /* when it first exec'd (for the programs' order), or -1 */
	uint64_t mapped;        /* .so and locale files opened */
	int64_t index;          /* in stats.proc */
	bool pending;           /* a call unfinished */
	char pname[24];
	char *pargs;            /* that call's arguments */
} proc;

typedef struct stats {
	prog *prog;
	int nprog;
	proc *proc;
	int64_t nproc, capproc;
	trace_tmap by_pid;        /* pid -> proc index, while the process lives */
	int64_t exec_seq;
	trace_tmap open;          /* open files: (proc, fd) -> time opened */
	sim_values holds;       /* s */
} stats;

/* The process that @pid is now: the one last seen under it, or a new one
 * (its first line, or a reuse of the pid after the last one's "+++
 * exited" or "+++ killed"). NULL: out of memory. */
static proc *proc_of(stats *s, int64_t pid)
{
	assert(pid > 0);
	int64_t i;
	if (trace_tmap_get(&s->by_pid, (uint64_t)pid, &i))
		return &s->proc[i];
	if (s->nproc == s->capproc) {
		int64_t cap = s->capproc ? 2 * s->capproc : 256;
		proc *p = realloc(s->proc, (size_t)cap * sizeof(*p));
		if (!p)
			return NULL;
		s->proc = p;
		s->capproc = cap;
	}
	if (trace_tmap_put(&s->by_pid, (uint64_t)pid, s->nproc))
		return NULL;
	proc *p = &s->proc[s->nproc];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->index = s->nproc++;
	p->first = -1;
	p->exe = -1;
	p->exe_order = -1;
	return p;
}

static int prog_of(stats *s, const char *name, size_t len)
{
	for (int i = 0; i < s->nprog; i++)
		if (strlen(s->prog[i].name) == len && !memcmp(s->prog[i].name, name, len))
			return i;
	prog *p = realloc(s->prog, (size_t)(s->nprog + 1) * sizeof(*p));
	if (!p)
		return -1;
	s->prog = p;
	p = &s->prog[s->nprog];
	memset(p, 0, sizeof(*p));
	if (!(p->name = strndup(name, len)))
		return -1;
	return s->nprog++;
}

/* The key of (process, fd) in the open files' map: nonzero. By process,
 * not pid, so that a reused pid's close never pairs with an open of the
 * pid's earlier process. */
static uint64_t open_key(const proc *p, int64_t fd)
{
	return (uint64_t)(p->index + 1) << 32 | (uint32_t)fd;
}

/* The first quoted string of @args. */
static size_t first_quoted(const char *args, const char **out)
{
	const char *q = strchr(args, '"');
	if (!q)
		return 0;
	const char *e = strchr(q + 1, '"');
	if (!e)
		return 0;
	*out = q + 1;
	return (size_t)(e - q - 1);
}

static bool has(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, w, k))
			return true;
	return false;
}

/* A completed call of @p at @t. 0 or -1 (out of memory). */
static int call(stats *s, proc *p, int64_t t, const char *name, const char *args, long long ret)
{
	if (p->first < 0)
		p->first = t;
	p->last = t;
	if (!strcmp(name, "execve") && ret == 0) {
		/* args.split(',')[0].strip('"').split('/')[-1] */
		size_t n = strcspn(args, ",");
		const char *a = args;
		while (n && *a == '"') {
			a++;
			n--;
		}
		while (n && a[n - 1] == '"')
			n--;
		const char *b = a;
		for (size_t i = 0; i < n; i++)
			if (a[i] == '/')
				b = a + i + 1;
		int e = prog_of(s, b, n - (size_t)(b - a));
		if (e < 0)
			return -1;
		p->exe = e;
		if (p->exe_order < 0)
			p->exe_order = s->exec_seq++;
	} else if (!strcmp(name, "openat") || !strcmp(name, "open")) {
		int e = p->exe;
		if (e < 0 && (e = prog_of(s, "?", 1)) < 0)
			return -1;
		prog *g = &s->prog[e];
		g->opens++;
		const char *f = "";
		size_t fl = first_quoted(args, &f);
		if (ret < 0) {
			g->fails++;
		} else {
			if (trace_tmap_put(&s->open, open_key(p, ret), t))
				return -1;
			if ((fl >= 3 && !memcmp(f + fl - 3, ".so", 3)) || has(f, fl, ".so.") || has(f, fl, "locale")) {
				g->mapped++;
				p->mapped++;
			}
		}
	} else if (!strcmp(name, "close") && ret == 0) {
		/* The first argument, "3" of "close(3)", blanks trimmed. */
		const char *a = args;
		size_t n = strcspn(a, ",)");
		while (n && (*a == ' ' || *a == '\t')) {
			a++;
			n--;
		}
		while (n && (a[n - 1] == ' ' || a[n - 1] == '\t'))
			n--;
		bool digits = n > 0;
		for (size_t i = 0; i < n; i++)
			digits &= a[i] >= '0' && a[i] <= '9';
		if (digits) {
			int64_t at = trace_tmap_take(&s->open, open_key(p, strtoll(a, NULL, 10)));
			if (at >= 0) {
				if (sim_values_add(&s->holds, (double)(t - at) / 1e9))
					return -1;
			}
		}
	}
	return 0;
}

static void report(stats *s, long jobs)
{
	/* Programs by processes (their last exec), most first, ties in the order
	 * their first process exec'd. */
	int64_t *order = calloc((size_t)s->nprog + 1, sizeof(*order));
	int *idx = calloc((size_t)s->nprog + 1, sizeof(*idx));
	if (!order || !idx) {
		free(order);
		free(idx);
		fprintf(stderr, "rcusim trace-stats: out of memory\n");
		return;
	}
	for (int i = 0; i < s->nprog; i++)
		order[i] = -1;
	uint64_t nexe = 0;
	for (int64_t i = 0; i < s->nproc; i++) {
		proc *p = &s->proc[i];
		if (p->exe < 0)
			continue;
		nexe++;
		s->prog[p->exe].procs++;
		if (order[p->exe] < 0 || p->exe_order < order[p->exe])
			order[p->exe] = p->exe_order;
	}
	int n = 0;
	for (int i = 0; i < s->nprog; i++)
		if (s->prog[i].procs)
			idx[n++] = i;
	for (int i = 1; i < n; i++) /* insertion sort: stable, few programs */
		for (int j = i; j > 0; j--) {
			prog *a = &s->prog[idx[j - 1]], *b = &s->prog[idx[j]];
			if (b->procs > a->procs ||
			    (b->procs == a->procs && order[idx[j]] < order[idx[j - 1]])) {
				int t = idx[j];
				idx[j] = idx[j - 1];
				idx[j - 1] = t;
			} else {
				break;
			}
		}
	for (int i = 0; i < n && i < 12; i++) {
		prog *g = &s->prog[idx[i]];
		printf("%-10s processes %6" PRIu64 "  opens/process %8.1f  failed %.3f  .so+locale/process %.1f\n",
		       g->name, g->procs, (double)g->opens / (double)g->procs,
		       (double)g->fails / (double)(g->opens ? g->opens : 1), (double)g->mapped / (double)g->procs);
	}
	uint64_t total = 0, failed = 0, cc1 = 0, ccache = 0;
	for (int i = 0; i < s->nprog; i++) {
		total += s->prog[i].opens;
		failed += s->prog[i].fails;
		if (!strcmp(s->prog[i].name, "cc1"))
			cc1 = s->prog[i].procs;
		if (!strcmp(s->prog[i].name, "ccache"))
			ccache = s->prog[i].procs;
	}
	uint64_t units = (double)cc1 > (double)ccache / 2 ? cc1 : ccache;
	printf("opens %" PRIu64 "  failed %" PRIu64 " (%.3f)  processes %" PRIu64 "  compile units %" PRIu64 "\n",
	       total, failed, (double)failed / (double)(total ? total : 1), nexe, units);
	if (units)
		printf("per compile unit: opens %.0f  processes %.1f\n", (double)total / (double)units,
		       (double)nexe / (double)units);
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	for (int64_t i = 0; i < s->nproc; i++)
		if (s->proc[i].first >= 0) {
			if (s->proc[i].first < t0)
				t0 = s->proc[i].first;
			if (s->proc[i].last > t1)
				t1 = s->proc[i].last;
		}
	if (jobs && t0 <= t1) {
		double span = (double)(t1 - t0) / 1e9, alive = 0, held = 0;
		const char *unit = units == cc1 ? "cc1" : "ccache";
		sim_values life = { 0 };
		bool oom = false;
		for (int64_t i = 0; i < s->nproc; i++) {
			proc *p = &s->proc[i];
			if (p->first < 0)
				continue;
			double l = (double)(p->last - p->first) / 1e9;
			const char *e = p->exe >= 0 ? s->prog[p->exe].name : "";
			if (strcmp(e, "make")) {
				alive += l;
				held += l * (double)p->mapped;
			}
			if (!oom && !strcmp(e, unit))
				oom = sim_values_add(&life, l) != 0;
		}
		printf("processes alive per job slot: %.2f (%.0f process-seconds over %.1f s, -j%ld), holding "
		       "%.1f .so+locale files each on average (lifetime-weighted)\n",
		       alive / span / (double)jobs, alive, span, jobs, held / alive);
		if (life.n && !oom) {
			sim_values_sort(&life);
			size_t nl = life.n;
			double mean = 0;
			for (size_t i = 0; i < nl; i++)
				mean += life.v[i];
			mean /= (double)nl;
			double med = life.v[nl / 2];
			double sigma = mean > med && med > 0 ? sqrt(2 * log(mean / med)) : 0.0;
			printf("%s run time: mean %.1f ms  median %.1f ms  lognormal sigma %.3f\n", unit,
			       mean * 1e3, med * 1e3, sigma);
		}
		sim_values_free(&life);
	}
	if (s->holds.n) {
		size_t k = s->holds.n;
		sim_values_sort(&s->holds);
		double sum = 0;
		for (size_t i = 0; i < k; i++)
			sum += s->holds.v[i];
		printf("hold times (%zu files): median %.0f us  mean %.2f ms  p90 %.2f ms  p99 %.1f ms\n", k,
		       s->holds.v[k / 2] * 1e6, sum / (double)k * 1e3, s->holds.v[(size_t)((double)k * 0.9)] * 1e3,
		       s->holds.v[(size_t)((double)k * 0.99)] * 1e3);
	}
	free(order);
	free(idx);
}

int cmd_tracestats(int argc, char **argv)
{
	const char *path = NULL, *jobs_s = NULL;
	const cli_str strs[] = { { "--jobs", &jobs_s }, { NULL, NULL } };
	for (int i = 1; i < argc; i++) {
		int rc;
		if (cli_help(argv[i], tracestats_usage))
			return 0;
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				return EXIT_USAGE;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "rcusim trace-stats: unknown option %s\n%s", argv[i], tracestats_usage);
			return EXIT_USAGE;
		} else if (path) {
			fprintf(stderr, "rcusim trace-stats: one log at a time (got %s and %s)\n", path, argv[i]);
			return EXIT_USAGE;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		fprintf(stderr, "rcusim trace-stats: no strace log given\n%s", tracestats_usage);
		return EXIT_USAGE;
	}
	long jobs = 0;
	if (jobs_s) {
		char *e;
		errno = 0;
		jobs = strtol(jobs_s, &e, 10);
		if (e == jobs_s || *e || errno || jobs < 1 || jobs > 1000000) {
			fprintf(stderr, "rcusim trace-stats: --jobs %s: want a whole number from 1 to 1000000\n",
				jobs_s);
			return EXIT_USAGE;
		}
	}
	trace_lines tf;
	int oe = trace_lines_open(&tf, path);
	if (oe) {
		if (tf.spawn_failed) {
			fprintf(stderr, "rcusim trace-stats: %s: cannot run gzip -dc to read it: %s\n", path,
				strerror(oe));
			return 3;
		}
		fprintf(stderr, "rcusim trace-stats: %s: %s\n", path, strerror(oe));
		return EXIT_USAGE;
	}
	stats s = { 0 };
	trace_reorder ro = { 0 };
	int status = 0, got;
	const char *l;
	char q[400];
	uint64_t lines = 0;
	bool end = false;
	/* Lines into time order through ro (TRACE_REORDER_WINDOW_NS), then
	 * taken in it. */
	while (!end) {
		got = trace_lines_next(&tf, &l);
		if (got == -2) {
			fprintf(stderr, "%s:%" PRIu64 ": %s\n", path, tf.lineno, tf.why);
			status = EXIT_USAGE;
			goto out;
		}
		if (got < 0)
			goto nomem;
		end = !got;
		trace_strace_ev ev;
		if (got) {
			if (!strncmp(l, "strace: ", 8))
				continue;
			if (!trace_strace_parse(l, &ev)) {
				fprintf(stderr, "%s:%" PRIu64 ": %s: %s\n", path, tf.lineno,
					ev.why ? ev.why : "not an strace -f -ttt line",
					trace_quote(l, 80, q, sizeof(q)));
				status = EXIT_USAGE;
				goto out;
			}
			lines++;
			int rc = trace_reorder_put(&ro, ev.ts, tf.lineno, l);
			if (rc < 0)
				goto nomem;
			if (rc) {
				fprintf(stderr,
					"%s:%" PRIu64 ": its time is %" PRId64 ".%06" PRId64 " s before line %" PRIu64
					"'s: out of order by more than the %d ms trace-stats sorts\n",
					path, tf.lineno, (ro.latest - ev.ts) / 1000000000,
					(ro.latest - ev.ts) % 1000000000 / 1000, ro.latest_line,
					TRACE_REORDER_WINDOW_NS / 1000000);
				status = EXIT_USAGE;
				goto out;
			}
		}
		const char *text;
		uint64_t ln;
		int64_t ts;
		while (trace_reorder_take(&ro, end, &text, &ln, &ts)) {
			if (!trace_strace_parse(text, &ev))
				abort(); /* parsed as it came */
			if (ev.kind == TRACE_STRACE_SIGNAL)
				continue;
			if (ev.kind == TRACE_STRACE_EXITED) {
				/* The process is gone: its pid may be another's later. */
				(void)trace_tmap_take(&s.by_pid, (uint64_t)ev.pid);
				continue;
			}
			proc *p = proc_of(&s, ev.pid);
			if (!p)
				goto nomem;
			if (ev.kind == TRACE_STRACE_UNFINISHED) {
				free(p->pargs);
				const char *u = strstr(ev.args, " <unfinished ...>");
				if (!(p->pargs = strndup(ev.args, u ? (size_t)(u - ev.args) : strlen(ev.args))))
					goto nomem;
				snprintf(p->pname, sizeof(p->pname), "%s", ev.name);
				p->pending = true;
				continue;
			}
			if (ev.kind == TRACE_STRACE_RESUMED) {
				if (!p->pending || !ev.has_ret)
					continue;
				p->pending = false;
				if (call(&s, p, ev.ts, p->pname, p->pargs, ev.ret))
					goto nomem;
				continue;
			}
			if (ev.has_ret && call(&s, p, ev.ts, ev.name, ev.args, ev.ret))
				goto nomem;
		}
	}
	trace_lines_close(&tf);
	if (tf.truncated) {
		fprintf(stderr, "rcusim trace-stats: %s is truncated (line %" PRIu64 " is cut%s)\n", path,
			tf.lineno, tf.gzip_failed ? ", or gzip -dc failed" : "");
		status = EXIT_USAGE;
		goto out;
	}
	if (!lines) {
		fprintf(stderr, "rcusim trace-stats: %s: no strace lines in it\n", path);
		status = EXIT_USAGE;
		goto out;
	}
	report(&s, jobs);
	goto out;
nomem:
	fprintf(stderr, "rcusim trace-stats: out of memory\n");
	status = 3;
out:
	trace_lines_close(&tf);
	for (int i = 0; i < s.nprog; i++)
		free(s.prog[i].name);
	for (int64_t i = 0; i < s.nproc; i++)
		free(s.proc[i].pargs);
	free(s.prog);
	free(s.proc);
	trace_tmap_free(&s.by_pid);
	trace_reorder_free(&ro);
	trace_tmap_free(&s.open);
	sim_values_free(&s.holds);
	return status;
}
