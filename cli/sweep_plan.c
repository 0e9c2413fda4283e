/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep_plan.c - `rcusim sweep`: the cross product of --vary values and seeds.
 * On this machine (--backend local) each run is an `rcusim run` process, N
 * at a time, all into one database (WAL and a busy timeout let them append
 * together); a failed run is reported and the rest go on. Ends with the
 * comparison table and, with --plot, metrics against the first varied
 * parameter, one line per policy. --emit-jobs prints the command lines
 * instead. The Slurm and GNU parallel backends, which give each run a
 * database of its own in a results folder and merge them, are backend.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "registry.h"
#include "sweep_plan.h"

static const char sweep_usage[] =
	"usage: rcusim sweep SCENARIO.ini --vary KEY=V1,V2,... [--vary ...] [--seeds A..B]\n"
	"                    [--set KEY=VALUE]... [--duration TIME] [--jobs N] [--db FILE]\n"
	"                    [--plot] [--out DIR] [--format png|svg] [--metric NAME]...\n"
	"                    [--emit-jobs | --backend slurm|parallel --results DIR ...]\n"
	"       rcusim sweep --collect DIR [--wait] [--db FILE] [--plot] [--out DIR]\n"
	"                    [--format png|svg] [--metric NAME]...\n"
	"\n"
	"Run SCENARIO.ini for every combination of the varied values and seeds and\n"
	"print the comparison of the sweep's runs (its own: not other runs of the\n"
	"database, even with the same labels); --plot draws each --metric (default\n"
	"softirq.run_max_ns and cb.qlen_total_max) against the first varied\n"
	"parameter, whose values must be numbers, one line per policy. Every run's\n"
	"scenario and overrides are checked before any starts or is submitted.\n"
	"\n"
	"  --vary KEY=V1,V2,...  a parameter and its values, none empty or repeated\n"
	"                        (at most 8 --vary, each a different KEY)\n"
	"  --seeds A..B          every combination with each seed from A to B\n"
	"  --set KEY=VALUE       an override for every run (repeatable)\n"
	"  --duration TIME       same as --set scenario.duration=TIME\n"
	"  --db FILE             the sweep's database (default rcusim.db)\n"
	"  --jobs N              runs at a time: local, default the CPUs; slurm, at\n"
	"                        most N tasks of each array at once; parallel, per host\n"
	"  --emit-jobs           print one `rcusim run` command line per run; run\n"
	"                        (and check) none\n"
	"\n"
	"  --backend local       (default) N `rcusim run` processes at a time on this\n"
	"                        machine, into --db\n"
	"  --backend slurm       one Slurm job array (sbatch), one task per run, each\n"
	"                        writing its own database in --results DIR; more than\n"
	"                        the cluster's MaxArraySize runs go as several arrays\n"
	"  --backend parallel    the same tasks through GNU parallel, here or on the\n"
	"                        --sshlogin hosts; waits for them and collects\n"
	"  --results DIR         (slurm, parallel) the results folder, on a filesystem\n"
	"                        every node shares: runs/KEY.db per run, logs/, the\n"
	"                        task lists and batch scripts. A run is keyed by its\n"
	"                        scenario, overrides, seed and rcusim version: a\n"
	"                        submission again into DIR runs only the runs not\n"
	"                        complete there (not run, failed, lost or aborted);\n"
	"                        DIR holding another sweep (another scenario,\n"
	"                        --vary, --seeds, --set or --duration) is refused\n"
	"  --wait                (slurm) wait for the arrays to end, then collect\n"
	"  --partition NAME      (slurm) sbatch --partition\n"
	"  --time-limit TIME     (slurm) sbatch --time, per task (Slurm's format, 30:00)\n"
	"  --cpus-per-task N     (slurm) sbatch --cpus-per-task\n"
	"  --sbatch-arg ARG      (slurm) one more sbatch argument (repeatable)\n"
	"  --sshlogin LOGIN      (parallel) parallel --sshlogin (repeatable): rcusim,\n"
	"                        the scenario and DIR must be at the same paths there\n"
	"  --collect DIR         merge the complete runs of results folder DIR into the\n"
	"                        sweep's database, report what is missing, print the\n"
	"                        comparison (and, with --plot, the figures); --wait\n"
	"                        first waits for its Slurm arrays to end\n"
	"\n"
	"Bad input, a run that would fail included, exits 2 before any run starts.\n"
	"A sweep whose runs did not all complete exits 3 if one was lost (its process\n"
	"killed), aborted (SIGINT or SIGTERM) or not run, else 4 (one failed a model\n"
	"check); collecting while tasks are still queued or running also exits 3.\n";

const char *const sweep_state_name[SWEEP_NSTATES] = {
	[SWEEP_MISSING] = "not run",  [SWEEP_COMPLETE] = "complete", [SWEEP_RUNNING] = "running",
	[SWEEP_LOST] = "lost",        [SWEEP_ABORTED] = "aborted",   [SWEEP_FAILED] = "failed",
};

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
 * axis; NAN if it has none (a choice, a text, auto) or if @text is not a
 * value of @key at all (then *@bad is set, if @bad). */
static double canonical(const char *key, const char *text, bool *bad)
{
	if (bad)
		*bad = false;
	for (int k = 0; k < P_COUNT; k++)
		if (!strcmp(rcusim_params[k].name, key)) {
			int64_t i;
			double d;
			bool a;
			char why[256];
			const sim_param_def *def = &rcusim_params[k];
			if (sim_param_parse(def, text, &i, &d, &a, why, sizeof(why))) {
				if (bad)
					*bad = true;
				return NAN;
			}
			if (a || def->type == SIM_P_ENUM || def->type == SIM_P_BOOL || def->type == SIM_P_STRING)
				return NAN;
			return d;
		}
	return NAN;
}

static int plot_sweep(rec_db *db, const rec_run_row *rows, size_t n, const sweep_job *jobs,
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
		if (!rf) {
			fprintf(stderr, "%s: %s\n", runs, strerror(errno));
			return EXIT_IO;
		}
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
			if (!f) {
				fprintf(stderr, "%s: %s\n", path, strerror(errno));
				fclose(rf);
				return EXIT_IO;
			}
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
		if (cli_gnuplot("sweep.gp", args, 4)) {
			/* gnuplot opens the figure before it draws: never leave an
			 * empty or half-written one that looks like a result. */
			if (unlink(file) && errno != ENOENT)
				fprintf(stderr, "rcusim sweep: %s: %s\n", file, strerror(errno));
			return EXIT_IO;
		}
		printf("%s\n", file);
	}
	return 0;
}


int sweep_report(const sweep *s, rec_db *db, const rec_run_row *rows, size_t nrows)
{
	int status = 0;
	if (nrows && (status = cli_compare_print(db, rows, nrows, "text", stdout)))
		return status;
	if (s->plot && nrows)
		status = plot_sweep(db, rows, nrows, s->jobs, s->njobs, s->vary[0].key, s->metrics,
				    s->nmetrics, s->outdir, s->format);
	return status;
}

int sweep_check_runs(const sweep *s, const char **av, const char *none)
{
	cli_set *sets = calloc(sweep_argv_max(s), sizeof(*sets));
	if (!sets) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	int status = 0;
	for (size_t j = 0; j < s->njobs && !status; j++) {
		int n = sweep_run_argv(s, &s->jobs[j], "", av);
		cli_run_req req = { .scenario = s->scenario, .sets = sets };
		/* The overrides after "--label" LABEL: "--set" K=V, "--duration"
		 * TIME, "--seed" N, as `rcusim run` applies them. */
		for (int k = 8; k + 1 < n; k += 2) {
			const char *name = !strcmp(av[k], "--duration") ? "scenario.duration"
					   : !strcmp(av[k], "--seed")   ? "scenario.seed"
									: NULL;
			sets[req.nsets++] = (cli_set){ av[k], name, av[k + 1] };
		}
		if ((status = cli_check_run(&req)))
			fprintf(stderr, "rcusim sweep: run \"%s\" would fail: %s\n", s->jobs[j].label, none);
	}
	free(sets);
	return status;
}

size_t sweep_argv_max(const sweep *s)
{
	/* self run SCENARIO --db DB --quiet --label L, --duration D, --seed N, NULL */
	return 14 + 2 * ((size_t)s->nvary + s->nsets);
}

int sweep_run_argv(const sweep *s, const sweep_job *j, const char *db_path, const char **av)
{
	int k = 0;
	av[k++] = s->self;
	av[k++] = "run";
	av[k++] = s->scenario;
	av[k++] = "--db";
	av[k++] = db_path;
	av[k++] = "--quiet";
	av[k++] = "--label";
	av[k++] = j->label;
	for (size_t q = 0; q < s->nsets; q++) {
		av[k++] = "--set";
		av[k++] = s->sets[q];
	}
	if (s->duration) {
		av[k++] = "--duration";
		av[k++] = s->duration;
	}
	for (int q = 0; q < s->nvary; q++) {
		av[k++] = "--set";
		av[k++] = j->sets[q];
	}
	if (j->seed[0]) {
		av[k++] = "--seed";
		av[k++] = j->seed;
	}
	av[k] = NULL;
	return k;
}

/* Set @s to the defaults of a sweep with nothing given. */
static void sweep_init(sweep *s)
{
	memset(s, 0, sizeof(*s));
	s->db_path = "rcusim.db";
	s->outdir = "figures";
	s->format = "png";
	s->seed_lo = s->seed_hi = -1;
	s->par = sysconf(_SC_NPROCESSORS_ONLN);
	ssize_t sl = readlink("/proc/self/exe", s->self, sizeof(s->self) - 1);
	if (sl < 0)
		snprintf(s->self, sizeof(s->self), "rcusim");
	else
		s->self[sl] = 0;
}

static void sweep_free(sweep *s)
{
	for (int q = 0; q < s->nvary; q++) {
		free(s->vary[q].buf);
		free(s->vary[q].values);
	}
	free(s->jobs);
	free(s->argv_buf);
	free(s->manifest);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Parse "--vary KEY=V1,V2" value @v into the next of s->vary: a known
 * parameter that no other --vary gives, and values neither empty nor
 * repeated (each run's label, and on a cluster its key, names one run). */
static int parse_vary(sweep *s, const char *v)
{
	const char *eq = strchr(v, '=');
	if (!eq || eq == v || !eq[1] || s->nvary == SWEEP_MAX_VARY ||
	    (size_t)(eq - v) >= sizeof(s->vary[0].key)) {
		fprintf(stderr, "rcusim sweep: --vary: expected section.key=V1,V2,... (at most %d), got \"%s\"\n",
			SWEEP_MAX_VARY, v);
		return EXIT_USAGE;
	}
	sweep_vary *x = &s->vary[s->nvary++];
	x->arg = v;
	snprintf(x->key, sizeof(x->key), "%.*s", (int)(eq - v), v);
	if (!known_param(x->key)) {
		fprintf(stderr, "rcusim sweep: --vary: %s: unknown parameter (see `rcusim params`)\n", x->key);
		return EXIT_USAGE;
	}
	/* The later one would silently override the earlier in every run. */
	for (int q = 0; q < s->nvary - 1; q++)
		if (!strcmp(s->vary[q].key, x->key)) {
			fprintf(stderr, "rcusim sweep: --vary %s: %s is varied already (--vary %s): give all its "
					"values in one --vary\n", v, x->key, s->vary[q].arg);
			return EXIT_USAGE;
		}
	size_t commas = 1;
	for (const char *c = eq + 1; *c; c++)
		commas += *c == ',';
	if (commas > SWEEP_MAX_RUNS) {
		fprintf(stderr, "rcusim sweep: more than %d runs: sweep in parts (--seeds, fewer values)\n",
			SWEEP_MAX_RUNS);
		return EXIT_USAGE;
	}
	x->buf = strdup(eq + 1);
	x->values = calloc(commas, sizeof(*x->values));
	const char **sorted = calloc(commas, sizeof(*sorted));
	if (!x->buf || !x->values || !sorted) {
		free(sorted);
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	/* Split at every comma, so that an empty value is seen (strtok would
	 * skip it, and the sweep would quietly lack a run). */
	for (char *tok = x->buf, *comma = tok; comma; tok = comma + 1) {
		if ((comma = strchr(tok, ',')))
			*comma = 0;
		if (!*tok) {
			fprintf(stderr, "rcusim sweep: --vary %s: value %d is empty\n", v, x->n + 1);
			free(sorted);
			return EXIT_USAGE;
		}
		sorted[x->n] = tok;
		x->values[x->n++] = tok;
	}
	qsort(sorted, (size_t)x->n, sizeof(*sorted), cmp_str);
	for (int k = 1; k < x->n; k++)
		if (!strcmp(sorted[k - 1], sorted[k])) {
			fprintf(stderr, "rcusim sweep: --vary %s: value %s is given twice\n", v, sorted[k]);
			free(sorted);
			return EXIT_USAGE;
		}
	free(sorted);
	return 0;
}

/* A positive integer option value, or false (message printed). */
static bool positive(const char *opt, const char *v, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < 1) {
		fprintf(stderr, "rcusim sweep: %s: expected a positive integer, got \"%s\"\n", opt, v);
		return false;
	}
	*out = n;
	return true;
}

int sweep_parse(sweep *s, int argc, char **argv, bool collect_only)
{
	const char *v, *backend = NULL;
	const cli_str strs[] = { { "--db", &s->db_path }, { "--out", &s->outdir },
				 { "--format", &s->format }, { NULL, NULL } };
	const cli_str cluster[] = { { "--results", &s->results }, { "--partition", &s->partition },
				    { "--time-limit", &s->time_limit }, { "--duration", &s->duration },
				    { NULL, NULL } };
	bool metric_seen = false;
	/* Identities for cli_opt_once() of the options stored as numbers. */
	const char *once_seeds = NULL, *once_jobs = NULL, *once_cpus = NULL;
	int rc;
	/* One command line: an option given twice in it is an error; the
	 * stored arguments a collection parses first are another line. */
	cli_opts_reset();
	if (!collect_only) {
		/* Room for every --set, --sbatch-arg and --sshlogin. */
		s->argv_buf = calloc(3 * (size_t)argc + 3, sizeof(*s->argv_buf));
		if (!s->argv_buf) {
			fprintf(stderr, "rcusim sweep: out of memory\n");
			return EXIT_IO;
		}
		s->sets = s->argv_buf;
		s->sbatch_args = s->argv_buf + argc + 1;
		s->sshlogins = s->argv_buf + 2 * argc + 2;
	}
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], sweep_usage))
			return -1;
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				return EXIT_USAGE;
		} else if ((rc = cli_opt(argc, argv, &i, "--metric", &v))) {
			if (rc < 0)
				return EXIT_USAGE;
			if (!known_scalar(v)) {
				fprintf(stderr, "rcusim sweep: --metric: \"%s\": unknown metric, or not a scalar (see `rcusim metrics`)\n",
					v);
				return EXIT_USAGE;
			}
			/* Those of a collection replace the stored ones. */
			if (collect_only && !metric_seen)
				s->nmetrics = 0;
			metric_seen = true;
			if (s->nmetrics == SWEEP_MAX_METRICS) {
				fprintf(stderr, "rcusim sweep: --metric: at most %d\n", SWEEP_MAX_METRICS);
				return EXIT_USAGE;
			}
			s->metrics[s->nmetrics++] = v;
			s->metrics_given = true;
		} else if (!strcmp(argv[i], "--plot")) {
			s->plot = true;
		} else if (!strcmp(argv[i], "--wait")) {
			s->wait = true;
		} else if (collect_only) {
			if ((rc = cli_opt(argc, argv, &i, "--collect", &v))) {
				if (rc < 0)
					return EXIT_USAGE;
				if (s->collect && strcmp(s->collect, v)) {
					fprintf(stderr, "rcusim sweep: --collect: one results folder at a time\n");
					return EXIT_USAGE;
				}
				s->collect = v;
				continue;
			}
			fprintf(stderr, "rcusim sweep: --collect takes only --wait, --db, --plot, --out, --format "
					"and --metric (the rest of the sweep is in its results folder), got %s\n",
				argv[i]);
			return EXIT_USAGE;
		} else if ((rc = cli_opt(argc, argv, &i, "--vary", &v))) {
			if (rc < 0)
				return EXIT_USAGE;
			if ((rc = parse_vary(s, v)))
				return rc;
		} else if ((rc = cli_opt(argc, argv, &i, "--seeds", &v))) {
			char *end;
			if (rc < 0 || !cli_opt_once("--seeds", &once_seeds))
				return EXIT_USAGE;
			errno = 0;
			s->seeds = v;
			s->seed_lo = strtol(v, &end, 10);
			if (end == v || strncmp(end, "..", 2) || (s->seed_hi = strtol(end + 2, &end, 10), *end) ||
			    errno || s->seed_lo < 0 || s->seed_hi < s->seed_lo || s->seed_hi > 4294967295L) {
				fprintf(stderr, "rcusim sweep: --seeds: expected A..B with 0 <= A <= B <= 4294967295, got \"%s\"\n", v);
				return EXIT_USAGE;
			}
		} else if ((rc = cli_opt(argc, argv, &i, "--jobs", &v))) {
			if (rc < 0 || !cli_opt_once("--jobs", &once_jobs) || !positive("--jobs", v, &s->par))
				return EXIT_USAGE;
			s->par_given = true;
		} else if ((rc = cli_opt(argc, argv, &i, "--set", &v))) {
			if (rc < 0)
				return EXIT_USAGE;
			if (!strchr(v, '=')) {
				fprintf(stderr, "rcusim sweep: --set: expected section.key=VALUE, got \"%s\"\n", v);
				return EXIT_USAGE;
			}
			s->sets[s->nsets++] = v;
		} else if ((rc = cli_strs(argc, argv, &i, cluster))) {
			if (rc < 0)
				return EXIT_USAGE;
		} else if ((rc = cli_opt(argc, argv, &i, "--backend", &v))) {
			if (rc < 0 || !cli_opt_once("--backend", &backend))
				return EXIT_USAGE;
			backend = v;
			if (!strcmp(v, "local")) {
				s->backend = SWEEP_LOCAL;
			} else if (!strcmp(v, "slurm")) {
				s->backend = SWEEP_SLURM;
			} else if (!strcmp(v, "parallel")) {
				s->backend = SWEEP_PARALLEL;
			} else {
				fprintf(stderr, "rcusim sweep: --backend: expected local, slurm or parallel, got \"%s\"\n", v);
				return EXIT_USAGE;
			}
		} else if ((rc = cli_opt(argc, argv, &i, "--cpus-per-task", &v))) {
			if (rc < 0 || !cli_opt_once("--cpus-per-task", &once_cpus) ||
			    !positive("--cpus-per-task", v, &s->cpus_per_task))
				return EXIT_USAGE;
		} else if ((rc = cli_opt(argc, argv, &i, "--sbatch-arg", &v))) {
			if (rc < 0)
				return EXIT_USAGE;
			s->sbatch_args[s->nsbatch++] = v;
		} else if ((rc = cli_opt(argc, argv, &i, "--sshlogin", &v))) {
			if (rc < 0)
				return EXIT_USAGE;
			s->sshlogins[s->nssh++] = v;
		} else if (!strcmp(argv[i], "--emit-jobs")) {
			s->emit = true;
		} else if (argv[i][0] == '-' || s->scenario) {
			fprintf(stderr, "rcusim sweep: unexpected argument %s\n%s", argv[i], sweep_usage);
			return EXIT_USAGE;
		} else {
			s->scenario = argv[i];
		}
	}
	if (strcmp(s->format, "png") && strcmp(s->format, "svg")) {
		fprintf(stderr, "rcusim sweep: --format: expected png or svg, got \"%s\"\n", s->format);
		return EXIT_USAGE;
	}
	if (collect_only)
		return 0;
	if (!s->scenario || !s->nvary) {
		fprintf(stderr, "rcusim sweep: a scenario and at least one --vary are needed\n%s", sweep_usage);
		return EXIT_USAGE;
	}
	/* Options of one backend given to another: a mistake, never ignored. */
	const char *name = backend ? backend : "local";
	const struct {
		bool given;
		const char *opt;
		bool ok;
	} only[] = {
		{ s->emit, "--emit-jobs", s->backend == SWEEP_LOCAL },
		{ s->results != NULL, "--results", s->backend != SWEEP_LOCAL },
		{ s->partition != NULL, "--partition", s->backend == SWEEP_SLURM },
		{ s->time_limit != NULL, "--time-limit", s->backend == SWEEP_SLURM },
		{ s->cpus_per_task != 0, "--cpus-per-task", s->backend == SWEEP_SLURM },
		{ s->nsbatch != 0, "--sbatch-arg", s->backend == SWEEP_SLURM },
		{ s->nssh != 0, "--sshlogin", s->backend == SWEEP_PARALLEL },
	};
	for (size_t k = 0; k < sizeof(only) / sizeof(only[0]); k++)
		if (only[k].given && !only[k].ok) {
			fprintf(stderr, "rcusim sweep: %s does not go with --backend %s\n", only[k].opt, name);
			return EXIT_USAGE;
		}
	if (s->backend != SWEEP_LOCAL && !s->results) {
		fprintf(stderr, "rcusim sweep: --backend %s needs --results DIR, a folder on a filesystem that "
				"the nodes running the tasks share\n", name);
		return EXIT_USAGE;
	}
	if (!s->nmetrics) {
		s->metrics[s->nmetrics++] = "softirq.run_max_ns";
		s->metrics[s->nmetrics++] = "cb.qlen_total_max";
	}
	return 0;
}

int sweep_expand(sweep *s)
{
	/* The cross product, seeds innermost; at most SWEEP_MAX_RUNS runs. */
	size_t total = 1;
	if (s->seed_lo >= 0 && (s->seed_hi - s->seed_lo >= SWEEP_MAX_RUNS))
		total = SWEEP_MAX_RUNS + 1;
	else if (s->seed_lo >= 0)
		total = (size_t)(s->seed_hi - s->seed_lo + 1);
	for (int k = 0; k < s->nvary && total <= SWEEP_MAX_RUNS; k++)
		total *= (size_t)s->vary[k].n;
	if (total > SWEEP_MAX_RUNS) {
		fprintf(stderr, "rcusim sweep: more than %d runs: sweep in parts (--seeds, fewer values)\n",
			SWEEP_MAX_RUNS);
		return EXIT_USAGE;
	}
	/* --plot's x axis is the first varied parameter: its values must be
	 * numbers, known before any run starts. (A value that is no value of
	 * the parameter at all is left to the runs' check, which says why.) */
	for (int v = 0; s->plot && v < s->vary[0].n; v++) {
		bool bad;
		if (isnan(canonical(s->vary[0].key, s->vary[0].values[v], &bad)) && !bad) {
			fprintf(stderr, "rcusim sweep: --plot: the x axis is the first --vary, and \"%s\" of %s "
					"is not a number: vary a numeric parameter first, or leave out --plot\n",
				s->vary[0].values[v], s->vary[0].key);
			return EXIT_USAGE;
		}
	}
	s->jobs = calloc(total, sizeof(*s->jobs));
	if (!s->jobs) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	for (size_t j = 0; j < total; j++) {
		size_t rest = j;
		sweep_job *jb = &s->jobs[s->njobs++];
		long nseeds = s->seed_lo >= 0 ? s->seed_hi - s->seed_lo + 1 : 1;
		long seed = s->seed_lo >= 0 ? s->seed_lo + (long)(rest % (size_t)nseeds) : -1;
		rest /= (size_t)nseeds;
		size_t l = 0;
		l += (size_t)snprintf(jb->label + l, sizeof(jb->label) - l, "sweep");
		jb->x = NAN;
		for (int k = s->nvary - 1; k >= 0; k--) {
			const char *val = s->vary[k].values[rest % (size_t)s->vary[k].n];
			rest /= (size_t)s->vary[k].n;
			snprintf(jb->sets[k], sizeof(jb->sets[k]), "%s=%s", s->vary[k].key, val);
			if (k == 0)
				jb->x = canonical(s->vary[k].key, val, NULL);
		}
		for (int k = 0; k < s->nvary && l < sizeof(jb->label); k++)
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
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* --emit-jobs: one `rcusim run` command line per run on stdout, values
 * single-quoted. */
static void emit_jobs(const sweep *s, const char **av)
{
	for (size_t j = 0; j < s->njobs; j++) {
		int n = sweep_run_argv(s, &s->jobs[j], s->db_path, av);
		fputs("rcusim run", stdout);
		for (int k = 2; k < n; k++) {
			/* Option names (at 3, 5, 6 and every even place from 8 on,
			 * see sweep_run_argv) and the seed's digits as they are. */
			bool name = k == 3 || k == 5 || k == 6 || (k >= 8 && k % 2 == 0);
			putchar(' ');
			if (name || !strcmp(av[k - 1], "--seed"))
				fputs(av[k], stdout);
			else
				cli_shell_quote(av[k], stdout);
		}
		putchar('\n');
	}
}

/* Start job @jb of @s: an `rcusim run` process whose stdout goes into a
 * temporary file, where its summary names the run it made (never another
 * process's run with the same label in the same database). 0, or EXIT_IO
 * (message printed) with nothing started. */
static int start_job(const sweep *s, sweep_job *jb, const char **av)
{
	sweep_run_argv(s, jb, s->db_path, av);
	jb->out = tmpfile();
	if (!jb->out) {
		fprintf(stderr, "rcusim sweep: a temporary file: %s\n", strerror(errno));
		return EXIT_IO;
	}
	/* The runs started while this one runs do not hold its file open. */
	fcntl(fileno(jb->out), F_SETFD, FD_CLOEXEC);
	fflush(NULL);
	jb->pid = fork();
	if (jb->pid < 0) {
		fprintf(stderr, "rcusim sweep: fork: %s\n", strerror(errno));
		fclose(jb->out);
		jb->out = NULL;
		jb->pid = 0;
		return EXIT_IO;
	}
	if (jb->pid == 0) {
		if (dup2(fileno(jb->out), STDOUT_FILENO) < 0)
			_exit(127);
		execv(s->self, (char *const *)av);
		fprintf(stderr, "rcusim sweep: cannot run %s: %s\n", s->self, strerror(errno));
		_exit(127);
	}
	return 0;
}

/* Job @jb's process ended with wait status @st: its state and, complete,
 * its run (from the first line of its summary, "run ID STATUS: ..."); for
 * a run that did not complete, why in @why. Closes its output. */
static void job_ended(sweep_job *jb, int st, char *why, size_t len)
{
	char line[256], state[16] = "";
	long long id = 0;
	rewind(jb->out);
	if (!fgets(line, sizeof(line), jb->out) || sscanf(line, "run %lld %15[a-z]:", &id, state) != 2)
		id = 0;
	fclose(jb->out);
	jb->out = NULL;
	/* `rcusim run` exits 128 + the signal when SIGINT or SIGTERM stopped
	 * its run (recorded 'aborted'); killed outright, it left its run
	 * 'running', and nothing will end it: lost. */
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	int sig = WIFSIGNALED(st) ? WTERMSIG(st) : code > 128 ? code - 128 : 0;
	why[0] = 0;
	if (code == 0 && id > 0 && !strcmp(state, "complete")) {
		jb->state = SWEEP_COMPLETE;
		jb->run_id = id;
	} else if (code == EXIT_SIMFAIL) {
		jb->state = SWEEP_FAILED;
		snprintf(why, len, "failed a model check (exit 4; its message is above)");
	} else if (sig == SIGINT || sig == SIGTERM) {
		jb->state = SWEEP_ABORTED;
		snprintf(why, len, "stopped by %s (%s %d)", sig == SIGINT ? "SIGINT" : "SIGTERM",
			 WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? sig : code);
	} else if (WIFSIGNALED(st)) {
		jb->state = SWEEP_LOST;
		snprintf(why, len, "its process (pid %lld) was killed by signal %d (%s) before the run ended",
			 (long long)jb->pid, sig, strsignal(sig));
	} else {
		jb->state = SWEEP_MISSING;
		if (code)
			snprintf(why, len, "exit %d (its message is above)", code);
		else
			snprintf(why, len, "exit 0 without the summary of a complete run");
	}
	jb->pid = 0;
}

/* The local backend: every run of @s, s->par at a time, into s->db_path,
 * each checked before any starts; then the comparison of the runs this
 * sweep made (another command's runs in the same database, even with the
 * same labels, are not its) and figures. Returns the exit status: 3 if a
 * run was lost, aborted or did not run, else 4 if one failed. */
static int sweep_local(sweep *s, const char **av)
{
	rec_db *db = NULL;
	rec_run_row *rows = NULL;
	int64_t *ids = NULL;
	size_t count[SWEEP_NSTATES] = { 0 };
	char err[1024], why[256];
	int status, rc;
	/* A bad value is refused now, not found after the others ran. */
	if ((status = sweep_check_runs(s, av, "no run was started")))
		return status;
	ids = calloc(s->njobs, sizeof(*ids));
	if (!ids) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	/* Create the database (schema, WAL) before the runs share it. */
	if ((status = cli_open_db(s->db_path, false, &db)))
		goto out;
	size_t next = 0, running = 0, done = 0;
	bool tty = isatty(STDERR_FILENO);
	while (done < s->njobs) {
		while (running < (size_t)s->par && next < s->njobs) {
			if ((status = start_job(s, &s->jobs[next++], av)))
				goto out;
			running++;
		}
		int st;
		pid_t pid = wait(&st);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0) {
			fprintf(stderr, "rcusim sweep: wait: %s\n", strerror(errno));
			status = EXIT_IO;
			goto out;
		}
		for (size_t j = 0; j < s->njobs; j++) {
			sweep_job *jb = &s->jobs[j];
			if (jb->pid != pid)
				continue;
			job_ended(jb, st, why, sizeof(why));
			count[jb->state]++;
			if (jb->state != SWEEP_COMPLETE)
				fprintf(stderr, "%srcusim sweep: run \"%s\": %s: %s\n", tty ? "\r" : "", jb->label,
					sweep_state_name[jb->state], why);
			running--;
			done++;
			break;
		}
		if (tty)
			fprintf(stderr, "\r%zu of %zu runs done (%zu did not complete)   ", done, s->njobs,
				done - count[SWEEP_COMPLETE]);
	}
	if (tty)
		fputc('\n', stderr);
	/* The runs the processes reported, in the sweep's order. */
	size_t nids = 0, nrows = 0;
	for (size_t j = 0; j < s->njobs; j++)
		if (s->jobs[j].state == SWEEP_COMPLETE)
			ids[nids++] = s->jobs[j].run_id;
	/* (No ids would select the latest run of each policy: none.) */
	if (nids && (rc = rec_select_runs(db, ids, nids, &rows, &nrows, err, sizeof(err)))) {
		fprintf(stderr, "%s: %s\n", s->db_path, err);
		status = cli_exit_status(rc);
		goto out;
	}
	for (size_t j = 0, r = 0; j < s->njobs && r < nrows; j++) {
		const sweep_job *jb = &s->jobs[j];
		if (jb->state != SWEEP_COMPLETE)
			continue;
		if (strcmp(rows[r].status, "complete") || strcmp(rows[r].label, jb->label)) {
			fprintf(stderr, "rcusim sweep: run \"%s\" reported run %lld, which %s holds as %s, "
					"labelled \"%s\"\n", jb->label, (long long)jb->run_id, s->db_path,
				rows[r].status, rows[r].label);
			status = EXIT_IO;
			goto out;
		}
		r++;
	}
	printf("sweep: %zu runs, %zu complete, %zu failed", s->njobs, count[SWEEP_COMPLETE],
	       count[SWEEP_FAILED]);
	for (int k = 0; k < SWEEP_NSTATES; k++)
		if (k != SWEEP_COMPLETE && k != SWEEP_FAILED && count[k])
			printf(", %zu %s", count[k], sweep_state_name[k]);
	putchar('\n');
	status = sweep_report(s, db, rows, nrows);
	if (!status && count[SWEEP_COMPLETE] + count[SWEEP_FAILED] < s->njobs)
		status = EXIT_IO; /* lost, aborted, not run */
	else if (!status && count[SWEEP_FAILED])
		status = EXIT_SIMFAIL;
out:
	for (size_t j = 0; j < s->njobs; j++)
		if (s->jobs[j].out) {
			fclose(s->jobs[j].out);
			s->jobs[j].out = NULL;
		}
	free(rows);
	free(ids);
	rec_close(db);
	return status;
}

int cmd_sweep(int argc, char **argv)
{
	sweep s;
	const char **av = NULL;
	const char *collect = NULL;
	int status;
	sweep_init(&s);
	/* --collect DIR: the sweep's other options are in DIR. */
	for (int i = 1; i < argc; i++) {
		const char *v;
		int rc = cli_opt(argc, argv, &i, "--collect", &v);
		if (rc < 0) {
			status = EXIT_USAGE;
			goto out;
		}
		if (rc > 0)
			collect = v;
	}
	if (collect) {
		status = sweep_collect(&s, collect, argc, argv);
		goto out;
	}
	if ((status = sweep_parse(&s, argc, argv, false)) || (status = sweep_expand(&s)))
		goto out;
	if (s.backend != SWEEP_LOCAL) {
		status = sweep_submit(&s);
		goto out;
	}
	av = calloc(sweep_argv_max(&s), sizeof(*av));
	if (!av) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		status = EXIT_IO;
		goto out;
	}
	if (s.emit) {
		emit_jobs(&s, av);
		status = 0;
	} else {
		status = sweep_local(&s, av);
	}
out:
	free(av);
	sweep_free(&s);
	/* -1: --help was printed. */
	return status < 0 ? 0 : status;
}
