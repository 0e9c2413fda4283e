/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep_plan.c - what a sweep is, whatever runs it: its options
 * (sweep_parse(), every check that needs no run), the cross product of the
 * --vary values and seeds (sweep_expand(), seeds innermost, one label per
 * run), each run's `rcusim run` arguments (sweep_run_argv()) and their
 * check before any starts (sweep_check_runs()), and each run's key
 * (sweep_set_keys()). Below the sweep command and its backends: it calls
 * neither. Its report is sweep_report.c.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "hash.h"
#include "registry.h"
#include "sweep_plan.h"

#ifndef RCUSIM_VERSION
#define RCUSIM_VERSION "unknown"
#endif

const char *const sweep_backend_name[SWEEP_NBACKENDS] = {
	[SWEEP_LOCAL] = "local", [SWEEP_SLURM] = "slurm", [SWEEP_PARALLEL] = "parallel",
};

const char *const sweep_state_name[SWEEP_NSTATES] = {
	[SWEEP_MISSING] = "not run",  [SWEEP_COMPLETE] = "complete", [SWEEP_RUNNING] = "running",
	[SWEEP_LOST] = "lost",        [SWEEP_ABORTED] = "aborted",   [SWEEP_FAILED] = "failed",
};

/* rcusim's parameter, or a kernel boot parameter it maps (run --set takes
 * both). */
static bool known_param(const char *key)
{
	/* A named load's, workload.NAME.key, too: the scenario says whether
	 * it has that load (the runs' check). */
	if (sim_param_def_find(rcusim_params, P_COUNT, key))
		return true;
	return rcusim_kernel_param_target(key) != NULL;
}

static bool known_scalar(const char *name)
{
	/* A named load's (syncrcu.NAME.calls) as its registry entry's. */
	return sim_metric_find(rcusim_metrics, M_COUNT, name, SIM_M_SCALAR) != NULL;
}

/* The canonical value (ns, bytes, /s, count) of @text for @key, for the x
 * axis; NAN if it has none (a choice, a text, auto) or if @text is not a
 * value of @key at all (then *@bad is set, if @bad). */
static double canonical(const char *key, const char *text, bool *bad)
{
	if (bad)
		*bad = false;
	const char *target = rcusim_kernel_param_target(key);
	char mapped[256];
	if (target) {
		/* A kernel parameter's value as rcusim's parameter takes it. */
		sim_params *p;
		char asg[512], err[1024];
		if (sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)))
			return NAN;
		snprintf(asg, sizeof(asg), "%s=%s", key, text);
		int rc = rcusim_set(p, asg, "--vary", err, sizeof(err));
		if (!rc)
			snprintf(mapped, sizeof(mapped), "%s", sim_params_text(p, (size_t)sim_params_index(p, target)));
		sim_params_destroy(p);
		if (rc) {
			if (bad)
				*bad = true;
			return NAN;
		}
		key = target;
		text = mapped;
	}
	const sim_param_def *def = sim_param_def_find(rcusim_params, P_COUNT, key);
	if (def) {
		int64_t i;
		double d;
		bool a;
		char why[256];
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
			sets[req.nsets++] = (cli_set){ av[k], name, av[k + 1], false };
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

void sweep_init(sweep *s, const char *usage)
{
	memset(s, 0, sizeof(*s));
	s->usage = usage;
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

void sweep_free(sweep *s)
{
	for (int q = 0; q < s->nvary; q++) {
		free(s->vary[q].buf);
		free(s->vary[q].values);
	}
	free(s->jobs);
	free(s->argv_buf);
	free(s->manifest);
}

/* What a value @text of @key (an rcusim or a mapped kernel parameter) sets,
 * into @buf: the rcusim parameter and its parsed value ("rcu.blimit 5 5"
 * for rcutree.blimit=0x5 as for rcu.blimit=5), so that two spellings of one
 * value compare equal; "" if @text is no value of @key (the runs' check
 * says so later). */
static void value_id(const char *key, const char *text, char *buf, size_t len)
{
	sim_params *p;
	char asg[1024], err[1024];
	buf[0] = 0;
	if (sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)))
		return;
	/* A named load's value as its registry entry's. */
	const sim_param_def *ld = sim_param_def_find(rcusim_params, P_COUNT, key);
	if (ld)
		key = ld->name;
	snprintf(asg, sizeof(asg), "%s=%s", key, text);
	const char *target = rcusim_kernel_param_target(key);
	int k = sim_params_index(p, target ? target : key);
	if (k >= 0 && !rcusim_set(p, asg, "--vary", err, sizeof(err))) {
		const sim_param_def *def = sim_params_def(p, (size_t)k);
		const char *v = sim_params_text(p, (size_t)k);
		int64_t i;
		double d;
		bool a;
		char why[256];
		if (!sim_param_parse(def, v, &i, &d, &a, why, sizeof(why))) {
			if (a || def->type == SIM_P_STRING)
				snprintf(buf, len, "%s %s", def->name, a ? "auto" : v);
			else
				snprintf(buf, len, "%s %lld %.17g", def->name, (long long)i, d);
		}
	}
	sim_params_destroy(p);
}

/* The rcusim parameter that @kv ("KEY=VALUE" or a KEY) sets, into @buf:
 * a kernel parameter's target, else the key (blanks around it dropped). */
static void set_target(const char *kv, char *buf, size_t len)
{
	size_t kl = strcspn(kv, "=");
	while (*kv == ' ' || *kv == '\t') {
		kv++;
		kl--;
	}
	while (kl && (kv[kl - 1] == ' ' || kv[kl - 1] == '\t'))
		kl--;
	snprintf(buf, len, "%.*s", (int)kl, kv);
	const char *t = rcusim_kernel_param_target(buf);
	if (t)
		snprintf(buf, len, "%s", t);
}

/* Do the options that set a parameter of every run set each parameter
 * once? --vary, --set, --seeds (scenario.seed) and --duration
 * (scenario.duration): one of them would silently override the other, and
 * a run's label would name a value it did not run with. 0 or EXIT_USAGE
 * (message printed). */
static int sweep_fit(const sweep *s)
{
	size_t n = (size_t)s->nvary + s->nsets + 2, m = 0;
	struct claim {
		char target[128];
		const char *opt, *arg;
	} *c = calloc(n, sizeof(*c));
	if (!c) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	for (int q = 0; q < s->nvary; q++) {
		set_target(s->vary[q].key, c[m].target, sizeof(c[m].target));
		c[m].opt = "--vary";
		c[m++].arg = s->vary[q].arg;
	}
	for (size_t q = 0; q < s->nsets; q++) {
		set_target(s->sets[q], c[m].target, sizeof(c[m].target));
		c[m].opt = "--set";
		c[m++].arg = s->sets[q];
	}
	if (s->seeds) {
		snprintf(c[m].target, sizeof(c[m].target), "scenario.seed");
		c[m].opt = "--seeds";
		c[m++].arg = s->seeds;
	}
	if (s->duration) {
		snprintf(c[m].target, sizeof(c[m].target), "scenario.duration");
		c[m].opt = "--duration";
		c[m++].arg = s->duration;
	}
	int status = 0;
	for (size_t a = 0; a < m && !status; a++)
		for (size_t b = a + 1; b < m && !status; b++)
			if (!strcmp(c[a].target, c[b].target)) {
				fprintf(stderr, "rcusim sweep: %s %s and %s %s both set %s: parameters that do not fit "
						"together (give each parameter once)\n",
					c[a].opt, c[a].arg, c[b].opt, c[b].arg, c[a].target);
				status = EXIT_USAGE;
			}
	free(c);
	return status;
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
	/* Each value goes into its runs' labels. */
	if (!cli_label_ok("sweep", "--vary", v))
		return EXIT_USAGE;
	sweep_vary *x = &s->vary[s->nvary++];
	x->arg = v;
	snprintf(x->key, sizeof(x->key), "%.*s", (int)(eq - v), v);
	if (!known_param(x->key)) {
		char sug[300];
		rcusim_param_suggest(x->key, sug, sizeof(sug));
		fprintf(stderr, "rcusim sweep: --vary: %s: unknown parameter, neither rcusim's nor a kernel "
				"parameter it maps%s\n", x->key, sug);
		return EXIT_USAGE;
	}
	/* The later one would silently override the earlier in every run:
	 * compared as the parameters they set (rcutree.rcu_divisor is
	 * rcu.rcu_divisor, and so is rcutree.rcu-divisor). */
	const char *xt = rcusim_kernel_param_target(x->key);
	for (int q = 0; q < s->nvary - 1; q++) {
		const char *qt = rcusim_kernel_param_target(s->vary[q].key);
		if (strcmp(qt ? qt : s->vary[q].key, xt ? xt : x->key))
			continue;
		{
			fprintf(stderr, "rcusim sweep: --vary %s: %s is varied already (--vary %s): give all its "
					"values in one --vary\n", v, xt ? xt : x->key, s->vary[q].arg);
			return EXIT_USAGE;
		}
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
	/* Two spellings of one value (5 and 0x5, n and off) would make the
	 * same runs under two labels. */
	char (*ids)[256] = calloc((size_t)x->n, sizeof(*ids));
	if (!ids) {
		fprintf(stderr, "rcusim sweep: out of memory\n");
		return EXIT_IO;
	}
	int status = 0;
	for (int k = 0; k < x->n && !status; k++) {
		value_id(x->key, x->values[k], ids[k], sizeof(ids[k]));
		for (int q = 0; q < k && !status && ids[k][0]; q++)
			if (!strcmp(ids[q], ids[k])) {
				fprintf(stderr, "rcusim sweep: --vary %s: %s and %s are one value of %s: parameters that "
						"do not fit together (the same runs under two labels)\n",
					v, x->values[q], x->values[k], strtok(ids[k], " "));
				status = EXIT_USAGE;
			}
	}
	free(ids);
	return status;
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
		if (cli_help(argv[i], s->usage))
			return -1;
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				return EXIT_USAGE;
		} else if ((rc = cli_opt(argc, argv, &i, "--metric", &v))) {
			if (rc < 0)
				return EXIT_USAGE;
			bool glob = strpbrk(v, "*?[") != NULL;
			if (!glob && !known_scalar(v)) {
				fprintf(stderr, "rcusim sweep: --metric: \"%s\": unknown metric, or not a scalar (see `rcusim metrics`)\n",
					v);
				return EXIT_USAGE;
			}
			/* Those of a collection replace the stored ones. */
			if (collect_only && !metric_seen)
				s->nmetrics = 0;
			metric_seen = true;
			/* A glob ("syncrcu.*"): every registry scalar it matches, in
			 * the registry's order, as compare takes it. */
			size_t matched = 0;
			for (size_t k = 0; k < (glob ? (size_t)M_COUNT : 1); k++) {
				const char *name = v;
				if (glob) {
					if (rcusim_metrics[k].kind != SIM_M_SCALAR ||
					    fnmatch(v, rcusim_metrics[k].name, 0))
						continue;
					name = rcusim_metrics[k].name;
				}
				bool dup = false;
				for (size_t j = 0; j < s->nmetrics; j++)
					dup |= !strcmp(s->metrics[j], name);
				matched++;
				if (dup)
					continue;
				if (s->nmetrics == SWEEP_MAX_METRICS) {
					fprintf(stderr, "rcusim sweep: --metric %s: at most %d metrics\n", v,
						SWEEP_MAX_METRICS);
					return EXIT_USAGE;
				}
				s->metrics[s->nmetrics++] = name;
			}
			if (!matched) {
				fprintf(stderr, "rcusim sweep: --metric: \"%s\" matches no scalar (see `rcusim metrics`)\n", v);
				return EXIT_USAGE;
			}
			s->metrics_given = true;
		} else if (!strcmp(argv[i], "--plot")) {
			s->plot = true;
		} else if (!strcmp(argv[i], "--long")) {
			s->long_form = true;
		} else if (!strcmp(argv[i], "--zoom")) {
			s->zoom = true;
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
			int k = 0;
			while (k < SWEEP_NBACKENDS && strcmp(v, sweep_backend_name[k]))
				k++;
			if (k == SWEEP_NBACKENDS) {
				fprintf(stderr, "rcusim sweep: --backend: expected local, slurm or parallel, got \"%s\"\n", v);
				return EXIT_USAGE;
			}
			s->backend = (sweep_backend)k;
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
			fprintf(stderr, "rcusim sweep: unexpected argument %s\n%s", argv[i], s->usage);
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
		fprintf(stderr, "rcusim sweep: a scenario and at least one --vary are needed\n%s", s->usage);
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
	if ((rc = sweep_fit(s)))
		return rc;
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

/* Fold @s and its terminating NUL into the FNV-1a hash @h (the NUL keeps
 * "ab","c" apart from "a","bc"). */
static uint64_t fnv1a(uint64_t h, const char *s)
{
	return sim_fnv1a(h, s, strlen(s) + 1);
}

void sweep_set_keys(sweep *s, const char **av)
{
	for (size_t j = 0; j < s->njobs; j++) {
		int n = sweep_run_argv(s, &s->jobs[j], "", av);
		uint64_t h = fnv1a(SIM_FNV1A_BASIS, "rcusim run key 1");
		h = fnv1a(h, s->scenario);
		for (int k = 8; k < n; k++) /* after "--label" LABEL */
			h = fnv1a(h, av[k]);
		h = fnv1a(h, RCUSIM_VERSION);
		snprintf(s->jobs[j].key, sizeof(s->jobs[j].key), "%016llx", (unsigned long long)h);
	}
}

int sweep_default_index(const sweep *s, const sweep_vary *v, char *text, size_t len)
{
	sim_params *p = NULL;
	char err[2048], want[1024], got[1024];
	int found = -1;
	text[0] = 0;
	const char *target = rcusim_kernel_param_target(v->key);
	if (sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)) || cli_params_search(p, err, sizeof(err)) ||
	    sim_params_load_file(p, s->scenario, err, sizeof(err)))
		goto out;
	for (size_t i = 0; i < s->nsets; i++)
		if (rcusim_set(p, s->sets[i], "--set", err, sizeof(err)))
			goto out;
	int k = sim_params_index(p, target ? target : v->key);
	if (k < 0)
		goto out;
	snprintf(text, len, "%s", sim_params_text(p, (size_t)k));
	value_id(target ? target : v->key, text, want, sizeof(want));
	for (int i = 0; want[0] && i < v->n && found < 0; i++) {
		value_id(v->key, v->values[i], got, sizeof(got));
		if (!strcmp(got, want))
			found = i;
	}
out:
	sim_params_destroy(p);
	return found;
}
