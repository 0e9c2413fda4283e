/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep.c - `rcusim sweep`: the cross product of --vary values and
 * seeds, each an `rcusim run` process, N at a time, all into one database
 * (WAL and a busy timeout let them append together); a failed run is
 * reported and the rest go on. Ends with the comparison table and, with
 * --plot, metrics against the first varied parameter, one line per policy.
 * --emit-jobs prints the command lines instead, for GNU parallel or a batch
 * scheduler.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "registry.h"

#define MAX_VARY 8
#define MAX_RUNS 20000 /* runs in one sweep (each job's table row is about 4 KiB) */

typedef struct vary {
	char key[128];         /* section.key */
	char **values;         /* its values (into a copy of the argument), n of them */
	int n;
	char *buf;             /* the copy */
} vary;

typedef struct job {
	char label[REC_LABEL_MAX + 1]; /* sweep label, unique per run */
	char sets[MAX_VARY][384]; /* --set arguments */
	char seed[32];         /* --seed value, "" for the scenario's own */
	double x;              /* first varied parameter, canonical units */
	pid_t pid;             /* while running */
} job;

static const char sweep_usage[] =
	"usage: rcusim sweep SCENARIO.ini --vary KEY=V1,V2,... [--vary ...] [--seeds A..B]\n"
	"                    [--jobs N] [--db FILE] [--plot] [--out DIR] [--format png|svg]\n"
	"                    [--metric NAME]... [--emit-jobs]\n"
	"\n"
	"Run SCENARIO.ini for every combination of the varied values and seeds,\n"
	"N runs at a time (default: the number of CPUs), into one database (default\n"
	"rcusim.db). Prints the comparison of the sweep's runs; --plot draws each\n"
	"--metric (default softirq.run_max_ns and cb.qlen_total_max) against the\n"
	"first varied parameter, one line per policy. --emit-jobs prints one\n"
	"`rcusim run` command line per run instead of running them.\n";

/* Print @s for a POSIX shell, single-quoted. */
static void shell_quote(const char *s, FILE *out)
{
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	}
	fputc('\'', out);
}

static bool known_param(const char *key)
{
	for (int k = 0; k < P_COUNT; k++)
		if (!strcmp(rcusim_params[k].name, key))
			return true;
	return false;
}

static bool known_scalar(const char *name)
{
	for (int k = 0; k < M_COUNT; k++)
		if (rcusim_metrics[k].kind == SIM_M_SCALAR && !strcmp(rcusim_metrics[k].name, name))
			return true;
	return false;
}

/* The canonical value (ns, bytes, /s, count) of @text for @key, for the x
 * axis; NAN if it has none (a choice, a text). */
static double canonical(const char *key, const char *text)
{
	for (int k = 0; k < P_COUNT; k++)
		if (!strcmp(rcusim_params[k].name, key)) {
			int64_t i;
			double d;
			bool a;
			char why[256];
			const sim_param_def *def = &rcusim_params[k];
			if (sim_param_parse(def, text, &i, &d, &a, why, sizeof(why)) || a ||
			    def->type == SIM_P_ENUM || def->type == SIM_P_BOOL || def->type == SIM_P_STRING)
				return NAN;
			return d;
		}
	return NAN;
}

static int plot_sweep(rec_db *db, const rec_run_row *rows, size_t n, const job *jobs,
		      size_t njobs, const char *key, const char *const *metrics, size_t nmetrics,
		      const char *outdir, const char *format)
{
	char out[PATH_MAX], data[PATH_MAX + 16], runs[PATH_MAX + 32], file[PATH_MAX + 160], err[1024];
	/* Policies, in the order they appear. */
	const char *pol[16];
	size_t npol = 0;
	for (size_t r = 0; r < n; r++) {
		size_t k = 0;
		while (k < npol && strcmp(pol[k], rows[r].policy))
			k++;
		if (k == npol && npol < 16)
			pol[npol++] = rows[r].policy;
	}
	if (cli_plot_dirs(outdir, out, data))
		return EXIT_IO;
	for (size_t mi = 0; mi < nmetrics; mi++) {
		snprintf(runs, sizeof(runs), "%s/sweep_%s.gp", data, metrics[mi]);
		FILE *rf = fopen(runs, "w");
		if (!rf)
			return EXIT_IO;
		fprintf(rf, "nruns = %zu\narray label[%zu]\narray id[%zu]\narray maxfiles[%zu]\n", npol,
			npol, npol, npol);
		fputs("param = ", rf);
		cli_gp_string(rf, key);
		fputs("\nmetric = ", rf);
		cli_gp_string(rf, metrics[mi]);
		fprintf(rf, "\nunit = '%s'\n",
			strstr(metrics[mi], "_ns") ? "ns (log scale)" : strstr(metrics[mi], "bytes") ? "bytes (log scale)" : "count (log scale)");
		for (size_t p = 0; p < npol; p++) {
			fprintf(rf, "label[%zu] = ", p + 1);
			cli_gp_string(rf, pol[p]);
			fprintf(rf, "\nid[%zu] = 0\nmaxfiles[%zu] = 0\n", p + 1, p + 1);
			char path[PATH_MAX + 256];
			snprintf(path, sizeof(path), "%s/sweep_%s_%zu.dat", data, metrics[mi], p + 1);
			FILE *f = fopen(path, "w");
			if (!f)
				return EXIT_IO;
			/* One line per distinct x: mean, min and max over seeds. */
			for (size_t j = 0; j < njobs; j++) {
				bool first = true;
				for (size_t e = 0; e < j; e++)
					first &= jobs[e].x != jobs[j].x;
				if (!first || isnan(jobs[j].x))
					continue;
				double sum = 0, lo = INFINITY, hi = -INFINITY;
				int cnt = 0;
				for (size_t r = 0; r < n; r++) {
					if (strcmp(rows[r].policy, pol[p]))
						continue;
					for (size_t e = 0; e < njobs; e++)
						if (!strcmp(jobs[e].label, rows[r].label) && jobs[e].x == jobs[j].x) {
							double v;
							bool has;
							if (!rec_scalar(db, rows[r].run_id, metrics[mi], &v, &has, err,
									sizeof(err)) && has) {
								sum += v;
								lo = fmin(lo, v);
								hi = fmax(hi, v);
								cnt++;
							}
						}
				}
				if (cnt)
					fprintf(f, "%.17g %.17g %.17g %.17g\n", jobs[j].x, sum / cnt, lo, hi);
			}
			fclose(f);
		}
		fclose(rf);
		snprintf(file, sizeof(file), "%s/sweep_%s.%s", out, metrics[mi], format);
		const char *args[] = { runs, data, file, format };
		if (cli_gnuplot("sweep.gp", args, 4))
			return EXIT_IO;
		printf("%s\n", file);
	}
	return 0;
}

int cmd_sweep(int argc, char **argv)
{
	const char *scenario = NULL, *db_path = "rcusim.db", *outdir = "figures", *format = "png", *v;
	const cli_str strs[] = { { "--db", &db_path }, { "--out", &outdir }, { "--format", &format },
				 { NULL, NULL } };
	const char *metrics[16] = { 0 };
	size_t nmetrics = 0;
	vary vs[MAX_VARY];
	int nv = 0, rc, status = EXIT_USAGE;
	long seed_lo = -1, seed_hi = -1, par = sysconf(_SC_NPROCESSORS_ONLN);
	bool plot = false, emit = false;
	job *jobs = NULL;
	size_t njobs = 0;
	rec_db *db = NULL;
	rec_run_row *rows = NULL;
	char err[1024];
	memset(vs, 0, sizeof(vs));
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], sweep_usage)) {
			status = 0;
			goto out;
		}
		if ((rc = cli_opt(argc, argv, &i, "--vary", &v))) {
			const char *eq = rc > 0 ? strchr(v, '=') : NULL;
			if (rc < 0 || !eq || eq == v || !eq[1] || nv == MAX_VARY ||
			    (size_t)(eq - v) >= sizeof(vs[0].key)) {
				fprintf(stderr, "rcusim sweep: --vary: expected section.key=V1,V2,... (at most %d), got \"%s\"\n",
					MAX_VARY, rc > 0 ? v : "");
				goto out;
			}
			vary *x = &vs[nv++];
			snprintf(x->key, sizeof(x->key), "%.*s", (int)(eq - v), v);
			if (!known_param(x->key)) {
				fprintf(stderr, "rcusim sweep: --vary: %s: unknown parameter (see `rcusim params`)\n",
					x->key);
				goto out;
			}
			size_t commas = 1;
			for (const char *c = eq + 1; *c; c++)
				commas += *c == ',';
			x->buf = strdup(eq + 1);
			x->values = calloc(commas, sizeof(*x->values));
			if (!x->buf || !x->values) {
				status = EXIT_IO;
				goto out;
			}
			for (char *tok = strtok(x->buf, ","); tok; tok = strtok(NULL, ","))
				x->values[x->n++] = tok;
			if (!x->n) {
				fprintf(stderr, "rcusim sweep: --vary %s: no values\n", x->key);
				goto out;
			}
		} else if ((rc = cli_opt(argc, argv, &i, "--seeds", &v))) {
			char *end;
			if (rc < 0)
				goto out;
			errno = 0;
			seed_lo = strtol(v, &end, 10);
			if (end == v || strncmp(end, "..", 2) || (seed_hi = strtol(end + 2, &end, 10), *end) ||
			    errno || seed_lo < 0 || seed_hi < seed_lo || seed_hi > 4294967295L) {
				fprintf(stderr, "rcusim sweep: --seeds: expected A..B with 0 <= A <= B <= 4294967295, got \"%s\"\n", v);
				goto out;
			}
		} else if ((rc = cli_opt(argc, argv, &i, "--jobs", &v))) {
			char *end;
			if (rc < 0 || (par = strtol(v, &end, 10), *end) || par < 1) {
				fprintf(stderr, "rcusim sweep: --jobs: expected a positive integer\n");
				goto out;
			}
		} else if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				goto out;
		} else if ((rc = cli_opt(argc, argv, &i, "--metric", &v))) {
			if (rc < 0)
				goto out;
			if (!known_scalar(v)) {
				fprintf(stderr, "rcusim sweep: --metric: \"%s\": unknown metric, or not a scalar (see `rcusim metrics`)\n",
					v);
				goto out;
			}
			if (nmetrics == 16) {
				fprintf(stderr, "rcusim sweep: --metric: at most 16\n");
				goto out;
			}
			metrics[nmetrics++] = v;
		} else if (!strcmp(argv[i], "--plot")) {
			plot = true;
		} else if (!strcmp(argv[i], "--emit-jobs")) {
			emit = true;
		} else if (argv[i][0] == '-' || scenario) {
			fprintf(stderr, "rcusim sweep: unexpected argument %s\n%s", argv[i], sweep_usage);
			goto out;
		} else {
			scenario = argv[i];
		}
	}
	if (!scenario || !nv) {
		fprintf(stderr, "rcusim sweep: a scenario and at least one --vary are needed\n%s", sweep_usage);
		goto out;
	}
	if (strcmp(format, "png") && strcmp(format, "svg")) {
		fprintf(stderr, "rcusim sweep: --format: expected png or svg, got \"%s\"\n", format);
		goto out;
	}
	if (!nmetrics) {
		metrics[nmetrics++] = "softirq.run_max_ns";
		metrics[nmetrics++] = "cb.qlen_total_max";
	}
	/* The cross product, seeds innermost; at most MAX_RUNS runs. */
	size_t total = 1;
	if (seed_lo >= 0 && (seed_hi - seed_lo >= MAX_RUNS))
		total = MAX_RUNS + 1;
	else if (seed_lo >= 0)
		total = (size_t)(seed_hi - seed_lo + 1);
	for (int k = 0; k < nv && total <= MAX_RUNS; k++)
		total *= (size_t)vs[k].n;
	if (total > MAX_RUNS) {
		fprintf(stderr, "rcusim sweep: more than %d runs: sweep in parts (--seeds, fewer values)\n",
			MAX_RUNS);
		goto out;
	}
	jobs = calloc(total, sizeof(*jobs));
	if (!jobs) {
		status = EXIT_IO;
		goto out;
	}
	for (size_t j = 0; j < total; j++) {
		size_t rest = j;
		job *jb = &jobs[njobs++];
		long nseeds = seed_lo >= 0 ? seed_hi - seed_lo + 1 : 1;
		long seed = seed_lo >= 0 ? seed_lo + (long)(rest % (size_t)nseeds) : -1;
		rest /= (size_t)nseeds;
		size_t l = 0;
		l += (size_t)snprintf(jb->label + l, sizeof(jb->label) - l, "sweep");
		for (int k = nv - 1; k >= 0; k--) {
			const char *val = vs[k].values[rest % (size_t)vs[k].n];
			rest /= (size_t)vs[k].n;
			snprintf(jb->sets[k], sizeof(jb->sets[k]), "%s=%s", vs[k].key, val);
			if (k == 0)
				jb->x = canonical(vs[k].key, val);
		}
		for (int k = 0; k < nv && l < sizeof(jb->label); k++)
			l += (size_t)snprintf(jb->label + l, sizeof(jb->label) - l, " %s", jb->sets[k]);
		if (seed >= 0) {
			snprintf(jb->seed, sizeof(jb->seed), "%ld", seed);
			if (l < sizeof(jb->label))
				l += (size_t)snprintf(jb->label + l, sizeof(jb->label) - l, " seed=%ld", seed);
		}
		/* The label finds the run again in the database: it must fit. */
		if (l >= sizeof(jb->label)) {
			fprintf(stderr, "rcusim sweep: the run label \"%.60s...\" would be %zu bytes, more than "
					"the %d a run label holds: vary fewer or shorter values\n",
				jb->label, l, REC_LABEL_MAX);
			goto out;
		}
	}
	char self[PATH_MAX];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl < 0) {
		snprintf(self, sizeof(self), "%s", argv[0]);
	} else {
		self[sl] = 0;
	}
	if (emit) {
		for (size_t j = 0; j < njobs; j++) {
			fputs("rcusim run ", stdout);
			shell_quote(scenario, stdout);
			fputs(" --db ", stdout);
			shell_quote(db_path, stdout);
			fputs(" --quiet --label ", stdout);
			shell_quote(jobs[j].label, stdout);
			for (int k = 0; k < nv; k++) {
				fputs(" --set ", stdout);
				shell_quote(jobs[j].sets[k], stdout);
			}
			if (jobs[j].seed[0])
				printf(" --seed %s", jobs[j].seed);
			putchar('\n');
		}
		status = 0;
		goto out;
	}
	/* Create the database (schema, WAL) before the runs share it. */
	int64_t before;
	if ((status = cli_open_db(db_path, false, &db)))
		goto out;
	if (rec_latest_run(db, &before, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		status = EXIT_IO;
		goto out;
	}
	size_t next = 0, running = 0, done = 0, failed = 0;
	bool tty = isatty(STDERR_FILENO);
	while (done < njobs) {
		while (running < (size_t)par && next < njobs) {
			job *jb = &jobs[next++];
			const char *av[8 + 2 * MAX_VARY + 4];
			int k = 0;
			av[k++] = self;
			av[k++] = "run";
			av[k++] = scenario;
			av[k++] = "--db";
			av[k++] = db_path;
			av[k++] = "--quiet";
			av[k++] = "--label";
			av[k++] = jb->label;
			for (int q = 0; q < nv; q++) {
				av[k++] = "--set";
				av[k++] = jb->sets[q];
			}
			if (jb->seed[0]) {
				av[k++] = "--seed";
				av[k++] = jb->seed;
			}
			av[k] = NULL;
			fflush(NULL);
			jb->pid = fork();
			if (jb->pid < 0) {
				fprintf(stderr, "rcusim sweep: fork: %s\n", strerror(errno));
				status = EXIT_IO;
				goto out;
			}
			if (jb->pid == 0) {
				if (!freopen("/dev/null", "w", stdout))
					_exit(127);
				execv(self, (char *const *)av);
				_exit(127);
			}
			running++;
		}
		int st;
		pid_t pid = wait(&st);
		if (pid < 0) {
			fprintf(stderr, "rcusim sweep: wait: %s\n", strerror(errno));
			status = EXIT_IO;
			goto out;
		}
		for (size_t j = 0; j < njobs; j++)
			if (jobs[j].pid == pid) {
				jobs[j].pid = 0;
				if (!WIFEXITED(st) || WEXITSTATUS(st)) {
					failed++;
					fprintf(stderr, "%srcusim sweep: run \"%s\" failed (exit %d)\n", tty ? "\r" : "",
						jobs[j].label, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
				}
			}
		running--;
		done++;
		if (tty)
			fprintf(stderr, "\r%zu of %zu runs done (%zu failed)   ", done, njobs, failed);
	}
	if (tty)
		fputc('\n', stderr);
	/* The sweep's runs: newer than before, labelled by this sweep. */
	int64_t last;
	if (rec_latest_run(db, &last, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		status = EXIT_IO;
		goto out;
	}
	size_t nrows = 0;
	int64_t *ids = calloc((size_t)(last - before) + 1, sizeof(*ids));
	if (!ids) {
		status = EXIT_IO;
		goto out;
	}
	size_t nids = 0;
	for (int64_t id = before + 1; id <= last; id++)
		ids[nids++] = id;
	rc = rec_select_runs(db, ids, nids, &rows, &nrows, err, sizeof(err));
	free(ids);
	if (rc) {
		fprintf(stderr, "%s\n", err);
		status = EXIT_IO;
		goto out;
	}
	size_t k = 0;
	for (size_t r = 0; r < nrows; r++) {
		bool ours = false;
		for (size_t j = 0; j < njobs; j++)
			ours |= !strcmp(rows[r].label, jobs[j].label);
		if (ours && !strcmp(rows[r].status, "complete"))
			rows[k++] = rows[r];
	}
	nrows = k;
	printf("sweep: %zu runs, %zu complete, %zu failed\n", njobs, nrows, failed);
	if (nrows + failed != njobs) {
		/* Every run exited 0 or was counted failed; one that did neither
		 * is missing from the database: never report a sweep complete. */
		fprintf(stderr, "rcusim sweep: %zu runs ended without a complete run in %s\n",
			njobs - nrows - failed, db_path);
		status = EXIT_IO;
		if (nrows)
			cli_compare_print(db, rows, nrows, "text", stdout);
		goto out;
	}
	if (nrows && (status = cli_compare_print(db, rows, nrows, "text", stdout)))
		goto out;
	if (plot && nrows)
		status = plot_sweep(db, rows, nrows, jobs, njobs, vs[0].key, metrics, nmetrics, outdir, format);
	if (!status && failed)
		status = EXIT_SIMFAIL;
out:
	for (int q = 0; q < nv; q++) {
		free(vs[q].buf);
		free(vs[q].values);
	}
	free(jobs);
	free(rows);
	rec_close(db);
	return status;
}
