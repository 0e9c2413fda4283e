/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * check.c - `rcusim check`: compare a run's scalars with a regression
 * baseline (docs/reference.md section 5), optionally running the
 * baseline's scenario first; `--update` rewrites the expected values from
 * the run.
 *
 * Baseline file:
 *   [baseline]
 *   scenario = ../../scenarios/make-small.ini   ; relative to this file
 *   set = rcu.policy=fixed                      ; repeatable, in order
 *   seed = 1
 *   seeds = 8                                   ; or a list: 1, 2, 3; optional
 *   duration = 5s                               ; optional
 *   fast = yes                                  ; ctest runs it
 *   [metric cb.latency_p99_ns]
 *   expect = 14614527.5
 *   rel_tol = 0.001                             ; or abs_tol, or min/max
 *
 * Each key once (set excepted), one tolerance, min <= max, scalars of the
 * registry only, one [metric NAME] at least: anything else is bad input.
 * Without --run the run checked is the latest complete one of the
 * baseline's own scenario (name, policy, seed, duration), never simply the
 * latest run of the database.
 *
 * With seeds (two or more: N seeds from seed, or 1, or a list of them) the
 * scenario is run (or its latest run found) once per seed and each metric
 * is judged on the runs' mean m and the half-width h of its 95% confidence
 * interval (Student's t, n - 1 degrees of freedom): it passes when the
 * expectation lies within the interval widened by the tolerance, |m -
 * expect| <= h + tol (tol: rel_tol x |expect|, abs_tol, or 0), and a min or
 * max when some of [m - h, m + h] is within it. A shift of the mean that
 * the seeds' spread cannot explain fails; a seed's luck does not. --update
 * writes the mean.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "ini.h"
#include "model.h"
#include "params.h"
#include "registry.h"
#include "stats.h"

#define MAX_SETS 64
#define MAX_SEEDS 64

/* The keys of a [metric NAME] section, each given at most once. */
enum { BL_EXPECT, BL_REL_TOL, BL_ABS_TOL, BL_MIN, BL_MAX, BL_NKEYS };
static const char *const bl_keys[BL_NKEYS] = { "expect", "rel_tol", "abs_tol", "min", "max" };

typedef struct bl_metric {
	char name[96];        /* scalar */
	char where[1100];     /* FILE:LINE of its section */
	bool has_expect, has_rel, has_abs, has_min, has_max;
	double expect, rel_tol, abs_tol, min, max;
	char key_where[BL_NKEYS][1100]; /* FILE:LINE of each key of bl_keys[] ("" if not given) */
} bl_metric;

/* The [baseline] keys given at most once (set is repeatable). */
enum { BL_NONCE = 5 };
static const char *const bl_once[BL_NONCE] = { "scenario", "seed", "duration", "fast", "seeds" };

typedef struct baseline {
	const char *path;     /* the file */
	char scenario[4096];  /* resolved scenario path */
	char scenario_val[1100]; /* as the baseline gives it */
	char seed[64], duration[64];
	bool fast;
	int64_t seeds[MAX_SEEDS]; /* seeds = ...: the seeds to run, in order */
	size_t nseeds;        /* how many (0: one run, seed) */
	bool seeds_list;      /* seeds was a list, not a count */
	char seed_text[MAX_SEEDS][24]; /* each as text, for the override */
	char set_text[MAX_SETS][256];
	char set_where[MAX_SETS][1100];
	size_t nsets;
	bl_metric *m;
	size_t nm, cap;
	bool in_baseline;     /* inside [baseline] */
	char where[1100];     /* FILE:LINE of the first [baseline] ("" if none) */
	char key_where[BL_NONCE][1100]; /* FILE:LINE of each key of bl_once[] ("" if not given) */
} baseline;

static int bl_section(void *ctx, const char *name, const char *where, char *err, size_t errlen)
{
	baseline *b = ctx;
	b->in_baseline = false;
	if (!strcmp(name, "baseline")) {
		b->in_baseline = true;
		if (!b->where[0])
			snprintf(b->where, sizeof(b->where), "%s", where);
		return 0;
	}
	if (strncmp(name, "metric", 6) || (name[6] != ' ' && name[6] != '\t')) {
		snprintf(err, errlen, "%s: [%s]: unknown section (expected [baseline] or [metric NAME])",
			 where, name);
		return SIM_EINPUT;
	}
	const char *metric = name + 6;
	while (*metric == ' ' || *metric == '\t')
		metric++;
	if (!*metric || strlen(metric) >= sizeof(b->m->name)) {
		snprintf(err, errlen, "%s: [%s]: expected [metric NAME]", where, name);
		return SIM_EINPUT;
	}
	for (size_t i = 0; i < b->nm; i++)
		if (!strcmp(b->m[i].name, metric)) {
			snprintf(err, errlen, "%s: [metric %s]: listed twice", where, metric);
			return SIM_EINPUT;
		}
	/* Only a scalar of the registry can be in a run: any other name would
	 * fail every check as "absent" (exit 1) instead of as a typo. */
	if (!sim_metric_find(rcusim_metrics, M_COUNT, metric, SIM_M_SCALAR)) {
		bool other = sim_metric_find(rcusim_metrics, M_COUNT, metric, SIM_M_SERIES) ||
			     sim_metric_find(rcusim_metrics, M_COUNT, metric, SIM_M_HIST);
		snprintf(err, errlen, "%s: [metric %s]: %s (`rcusim metrics` lists the scalars)", where,
			 metric, other ? "not a scalar metric: only scalars can be checked"
				       : "unknown metric");
		return SIM_EINPUT;
	}
	if (b->nm == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		bl_metric *nm = realloc(b->m, cap * sizeof(*nm));
		if (!nm)
			return SIM_ENOMEM;
		b->m = nm;
		b->cap = cap;
	}
	bl_metric *m = &b->m[b->nm++];
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", metric);
	snprintf(m->where, sizeof(m->where), "%s", where);
	return 0;
}

static bool number(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return *s && !*end && !errno && isfinite(*v);
}

static int bl_key(void *ctx, const char *section, const char *key, const char *val,
		  const char *where, char *err, size_t errlen)
{
	baseline *b = ctx;
	if (b->in_baseline) {
		for (size_t k = 0; k < BL_NONCE; k++) {
			if (strcmp(key, bl_once[k]))
				continue;
			if (b->key_where[k][0]) {
				snprintf(err, errlen, "%s: baseline.%s: given twice (first at %s)", where,
					 key, b->key_where[k]);
				return SIM_EINPUT;
			}
			snprintf(b->key_where[k], sizeof(b->key_where[k]), "%s", where);
		}
		if (!strcmp(key, "scenario")) {
			snprintf(b->scenario_val, sizeof(b->scenario_val), "%s", val);
			const char *slash = strrchr(b->path, '/');
			if (*val == '/' || !slash)
				snprintf(b->scenario, sizeof(b->scenario), "%s", val);
			else
				snprintf(b->scenario, sizeof(b->scenario), "%.*s/%s",
					 (int)(slash - b->path), b->path, val);
		} else if (!strcmp(key, "set")) {
			if (b->nsets == MAX_SETS || strlen(val) >= sizeof(b->set_text[0]) || !strchr(val, '=')) {
				snprintf(err, errlen, "%s: baseline.set: expected section.key=value (at most %d), got \"%s\"",
					 where, MAX_SETS, val);
				return SIM_EINPUT;
			}
			snprintf(b->set_text[b->nsets], sizeof(b->set_text[0]), "%s", val);
			snprintf(b->set_where[b->nsets], sizeof(b->set_where[0]), "%s", where);
			b->nsets++;
		} else if (!strcmp(key, "seed") || !strcmp(key, "duration")) {
			snprintf(!strcmp(key, "seed") ? b->seed : b->duration, sizeof(b->seed), "%s", val);
		} else if (!strcmp(key, "seeds")) {
			/* A count N >= 2, or a list of distinct seeds. */
			char *end;
			const char *c = val;
			size_t n = 0;
			bool list = strpbrk(val, ", ") != NULL;
			while (*c) {
				errno = 0;
				long long x = strtoll(c, &end, 10);
				if (end == c || errno || x < 0 || x > 4294967295LL || n == MAX_SEEDS) {
					snprintf(err, errlen,
						 "%s: baseline.seeds: expected a count of 2 to %d seeds or a list of "
						 "seeds (0 to 4294967295, comma-separated), got \"%s\"",
						 where, MAX_SEEDS, val);
					return SIM_EINPUT;
				}
				for (size_t i = 0; i < n; i++)
					if (b->seeds[i] == x) {
						snprintf(err, errlen, "%s: baseline.seeds: seed %lld listed twice", where, x);
						return SIM_EINPUT;
					}
				b->seeds[n++] = x;
				c = end;
				while (*c == ',' || *c == ' ' || *c == '\t')
					c++;
			}
			if (!list && (n != 1 || b->seeds[0] < 2 || b->seeds[0] > MAX_SEEDS)) {
				snprintf(err, errlen,
					 "%s: baseline.seeds: expected a count of 2 to %d seeds or a list of two or "
					 "more, got \"%s\"",
					 where, MAX_SEEDS, val);
				return SIM_EINPUT;
			}
			if (list && n < 2) {
				snprintf(err, errlen, "%s: baseline.seeds: a list needs two seeds or more, got \"%s\"",
					 where, val);
				return SIM_EINPUT;
			}
			b->seeds_list = list;
			b->nseeds = list ? n : (size_t)b->seeds[0];
		} else if (!strcmp(key, "fast")) {
			if (strcmp(val, "yes") && strcmp(val, "no")) {
				snprintf(err, errlen, "%s: baseline.fast: expected yes or no, got \"%s\"", where, val);
				return SIM_EINPUT;
			}
			b->fast = !strcmp(val, "yes");
		} else {
			snprintf(err, errlen, "%s: baseline.%s: unknown key (scenario, set, seed, seeds, duration, fast)",
				 where, key);
			return SIM_EINPUT;
		}
		return 0;
	}
	if (!b->nm || !*section) {
		snprintf(err, errlen, "%s: %s: key outside a [baseline] or [metric NAME] section", where, key);
		return SIM_EINPUT;
	}
	bl_metric *m = &b->m[b->nm - 1];
	double v;
	if (!number(val, &v)) {
		snprintf(err, errlen, "%s: %s.%s: expected a number, got \"%s\"", where, m->name, key, val);
		return SIM_EINPUT;
	}
	size_t k = 0;
	while (k < BL_NKEYS && strcmp(key, bl_keys[k]))
		k++;
	if (k == BL_NKEYS) {
		snprintf(err, errlen, "%s: %s.%s: unknown key (expect, rel_tol, abs_tol, min, max)", where,
			 m->name, key);
		return SIM_EINPUT;
	}
	if (m->key_where[k][0]) {
		snprintf(err, errlen, "%s: %s.%s: given twice (first at %s)", where, m->name, key,
			 m->key_where[k]);
		return SIM_EINPUT;
	}
	snprintf(m->key_where[k], sizeof(m->key_where[k]), "%s", where);
	size_t other_tol = k == BL_REL_TOL ? BL_ABS_TOL : BL_REL_TOL;
	switch (k) {
	case BL_EXPECT:
		m->expect = v;
		m->has_expect = true;
		break;
	case BL_REL_TOL:
	case BL_ABS_TOL:
		if (v < 0) {
			snprintf(err, errlen, "%s: %s.%s: expected a non-negative number, got \"%s\"", where,
				 m->name, key, val);
			return SIM_EINPUT;
		}
		/* One tolerance: with both, which one held would be a guess. */
		if (m->key_where[other_tol][0]) {
			snprintf(err, errlen, "%s: %s.%s: rel_tol and abs_tol exclude each other (%s at %s)",
				 where, m->name, key, bl_keys[other_tol], m->key_where[other_tol]);
			return SIM_EINPUT;
		}
		if (k == BL_REL_TOL) {
			m->rel_tol = v;
			m->has_rel = true;
		} else {
			m->abs_tol = v;
			m->has_abs = true;
		}
		break;
	case BL_MIN:
		m->min = v;
		m->has_min = true;
		break;
	default:
		m->max = v;
		m->has_max = true;
		break;
	}
	/* No value passes min > max: a mistake in the file, not a regression. */
	if ((k == BL_MIN || k == BL_MAX) && m->has_min && m->has_max && m->min > m->max) {
		snprintf(err, errlen, "%s: %s.%s: min (%.10g, %s) is above max (%.10g, %s)", where, m->name,
			 key, m->min, m->key_where[BL_MIN], m->max, m->key_where[BL_MAX]);
		return SIM_EINPUT;
	}
	return 0;
}

static int load_baseline(baseline *b, const char *path, char *err, size_t errlen)
{
	static const sim_ini_handlers h = { bl_section, bl_key };
	char *buf;
	size_t len;
	memset(b, 0, sizeof(*b));
	b->path = path;
	int rc = sim_ini_read_file(path, &buf, &len, err, errlen);
	if (rc)
		return rc;
	rc = sim_ini_scan(path, buf, len, &h, b, err, errlen);
	free(buf);
	if (rc)
		return rc;
	if (!b->scenario[0]) {
		snprintf(err, errlen, "%s: baseline.scenario: missing", path);
		return SIM_EINPUT;
	}
	if (b->nseeds) {
		/* seeds = N counts from seed (1 if not given); a list names them
		 * all, so a seed beside it would say two things. */
		if (b->seeds_list && b->seed[0]) {
			snprintf(err, errlen, "%s: baseline.seed: given with a list of seeds (baseline.seeds, %s)",
				 b->key_where[1], b->key_where[4]);
			return SIM_EINPUT;
		}
		if (!b->seeds_list) {
			long long first = 1;
			char *end;
			if (b->seed[0]) {
				errno = 0;
				first = strtoll(b->seed, &end, 10);
				if (*end || errno || first < 0 || first + (long long)b->nseeds - 1 > 4294967295LL) {
					snprintf(err, errlen, "%s: baseline.seed: expected a seed from which %zu "
						 "follow, got \"%s\"", b->key_where[1], b->nseeds, b->seed);
					return SIM_EINPUT;
				}
			}
			for (size_t i = 0; i < b->nseeds; i++)
				b->seeds[i] = first + (long long)i;
		}
		for (size_t i = 0; i < b->nseeds; i++)
			snprintf(b->seed_text[i], sizeof(b->seed_text[i]), "%lld", (long long)b->seeds[i]);
	}
	if (!b->nm) {
		snprintf(err, errlen, "%s: [baseline]: no [metric NAME] section follows: nothing to check",
			 b->where[0] ? b->where : path);
		return SIM_EINPUT;
	}
	for (size_t i = 0; i < b->nm; i++) {
		bl_metric *m = &b->m[i];
		if (!m->has_expect && !m->has_min && !m->has_max) {
			snprintf(err, errlen, "%s: [metric %s]: needs expect, or min and/or max", m->where, m->name);
			return SIM_EINPUT;
		}
		if ((m->has_rel || m->has_abs) && !m->has_expect) {
			snprintf(err, errlen, "%s: [metric %s]: a tolerance needs expect", m->where, m->name);
			return SIM_EINPUT;
		}
	}
	return 0;
}

/* The key of a "section.key=value" override, as @len bytes at its start
 * (blanks around it left out). */
static size_t set_key_len(const char *set)
{
	const char *eq = strchr(set, '=');
	size_t n = eq ? (size_t)(eq - set) : strlen(set);
	while (n && (set[n - 1] == ' ' || set[n - 1] == '\t'))
		n--;
	return n;
}

/* Which of the @nextra overrides @extra a [baseline] line @s (@ll bytes,
 * blanks before it skipped) stands for: a "set = K=..." of the same key K, or
 * "seed"/"duration" for scenario.seed/scenario.duration; -1 if none. */
static int override_of(const char *s, size_t ll, const char *const *extra, size_t nextra)
{
	static const char *const own[2][2] = { { "seed", "scenario.seed" },
					       { "duration", "scenario.duration" } };
	const char *eq = memchr(s, '=', ll);
	if (!eq)
		return -1;
	size_t kl = (size_t)(eq - s);
	while (kl && (s[kl - 1] == ' ' || s[kl - 1] == '\t'))
		kl--;
	const char *v = eq + 1;
	while (v < s + ll && (*v == ' ' || *v == '\t'))
		v++;
	for (size_t i = 0; i < nextra; i++) {
		size_t xl = set_key_len(extra[i]);
		if (kl == 3 && !strncmp(s, "set", 3)) {
			size_t vl = set_key_len(v);
			if (vl == xl && (size_t)(s + ll - v) >= vl && !strncmp(v, extra[i], xl))
				return (int)i;
			continue;
		}
		for (int k = 0; k < 2; k++)
			if (kl == strlen(own[k][0]) && !strncmp(s, own[k][0], kl) &&
			    xl == strlen(own[k][1]) && !strncmp(extra[i], own[k][1], xl))
				return (int)i;
	}
	return -1;
}

/* Write override @x (section.key=value) as its [baseline] line to @f. */
static void put_override(FILE *f, const char *x)
{
	size_t xl = set_key_len(x);
	const char *v = strchr(x, '=') + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	if (xl == 13 && !strncmp(x, "scenario.seed", 13))
		fprintf(f, "seed = %s\n", v);
	else if (xl == 17 && !strncmp(x, "scenario.duration", 17))
		fprintf(f, "duration = %s\n", v);
	else
		fprintf(f, "set = %s\n", x);
}

/* Rewrite each "expect = ..." of @b's file with the run's value, and record
 * the @nextra overrides @extra the run had besides the baseline's own (check
 * --run-scenario --set): each replaces the baseline's line for the same key
 * (a set of it, its seed or duration) or is added after the [baseline]
 * section's last line, so that the baseline then runs as the run it was
 * updated from. */
static int update_baseline(const baseline *b, rec_db *db, const int64_t *run_ids, size_t nruns,
			   const char *const *extra, size_t nextra)
{
	char *buf, err[1024], tmp[4200];
	size_t len;
	if (sim_ini_read_file(b->path, &buf, &len, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return EXIT_IO;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", b->path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "%s: %s\n", tmp, strerror(errno));
		free(buf);
		return EXIT_IO;
	}
	/* Where the [baseline] section's last key line ends: the added
	 * overrides go after it. */
	size_t bl_end = len;
	bool in_bl = false;
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - buf - pos) : len - pos;
		const char *s = buf + pos;
		while (s < buf + pos + ll && (*s == ' ' || *s == '\t'))
			s++;
		if (*s == '[')
			in_bl = !strncmp(s, "[baseline]", 10);
		else if (in_bl && s < buf + pos + ll && *s != ';' && *s != '#')
			bl_end = pos + ll + (nl ? 1 : 0);
		pos += ll + (nl ? 1 : 0);
	}
	bool *used = calloc(nextra + 1, sizeof(*used));
	if (!used) {
		fclose(f);
		remove(tmp);
		free(buf);
		fprintf(stderr, "rcusim: out of memory\n");
		return EXIT_IO;
	}
	const char *metric = NULL;
	int status = 0;
	in_bl = false;
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - buf - pos) : len - pos;
		const char *line = buf + pos, *s = line;
		while (s < line + ll && (*s == ' ' || *s == '\t'))
			s++;
		if (*s == '[')
			in_bl = !strncmp(s, "[baseline]", 10);
		int o = in_bl && *s != '[' ? override_of(s, ll - (size_t)(s - line), extra, nextra) : -1;
		if (*s == '[') {
			/* [metric NAME]: find NAME among the baseline's metrics. */
			metric = NULL;
			const char *n = s + 1, *end = memchr(s, ']', ll - (size_t)(s - line));
			if (end && !strncmp(n, "metric", 6)) {
				n += 6;
				while (n < end && (*n == ' ' || *n == '\t'))
					n++;
				const char *e = end;
				while (e > n && (e[-1] == ' ' || e[-1] == '\t'))
					e--;
				for (size_t i = 0; i < b->nm; i++)
					if (strlen(b->m[i].name) == (size_t)(e - n) &&
					    !strncmp(b->m[i].name, n, (size_t)(e - n)))
						metric = b->m[i].name;
			}
		}
		double v = 0;
		bool present = false;
		if (metric && !strncmp(s, "expect", 6) && (s[6] == ' ' || s[6] == '=' || s[6] == '\t')) {
			/* The mean over the runs (the value of the one run), if
			 * every run has it. */
			sim_mean mean = { 0 };
			present = true;
			for (size_t r = 0; r < nruns && present && !status; r++) {
				double x;
				if (rec_scalar(db, run_ids[r], metric, &x, &present, err, sizeof(err))) {
					fprintf(stderr, "%s\n", err);
					status = EXIT_IO;
				}
				sim_mean_add(&mean, x);
			}
			present &= !status;
			v = mean.mean;
		}
		if (present) {
			fprintf(f, "expect = %.17g\n", v);
		} else if (o >= 0) {
			put_override(f, extra[o]);
			used[o] = true;
		} else {
			fprintf(f, "%.*s%s", (int)ll, line, nl ? "\n" : "");
		}
		pos += ll + (nl ? 1 : 0);
		if (pos == bl_end) {
			if (!nl && ll)
				fputc('\n', f);
			for (size_t i = 0; i < nextra; i++)
				if (!used[i]) {
					put_override(f, extra[i]);
					used[i] = true;
				}
		}
	}
	free(used);
	free(buf);
	if (fclose(f) || status || rename(tmp, b->path)) {
		if (!status)
			fprintf(stderr, "%s: %s\n", b->path, strerror(errno));
		remove(tmp);
		return EXIT_IO;
	}
	if (nruns == 1)
		printf("%s: expected values updated from run %lld\n", b->path, (long long)run_ids[0]);
	else
		printf("%s: expected values updated from the mean of runs %lld to %lld (%zu seeds)\n", b->path,
		       (long long)run_ids[0], (long long)run_ids[nruns - 1], nruns);
	for (size_t i = 0; i < nextra; i++)
		printf("%s: recorded the override --set %s\n", b->path, extra[i]);
	return 0;
}

/* The run @b describes, without --run: the latest complete run in @db with
 * the scenario name, policy, seed and duration that @b's scenario with
 * @sets (@n of them: its set, seed and duration) gives, as --run-scenario
 * would run it. Its id in *run_id and a line saying which on stdout, and 0;
 * or an exit status (message printed): 2 if the scenario cannot be read or
 * no such run exists. */
static int latest_run_of(const baseline *b, const char *path, const cli_set *sets, size_t n,
			 rec_db *db, const char *db_path, int64_t *run_id)
{
	char err[2048], name[REC_LABEL_MAX + 1], dur[64];
	sim_params *p = NULL;
	int rc = sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err));
	if (!rc)
		rc = cli_params_search(p, err, sizeof(err));
	if (!rc)
		rc = sim_params_load_file(p, b->scenario, err, sizeof(err));
	for (size_t i = 0; !rc && i < n; i++)
		rc = cli_apply_set(p, &sets[i], err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s\n", err);
		sim_params_destroy(p);
		return cli_exit_status(rc);
	}
	if (sim_params_is_auto(p, P_SCENARIO_NAME))
		cli_scenario_stem(b->scenario, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s", sim_params_text(p, P_SCENARIO_NAME));
	const char *policy = model_policy_label(p);
	int64_t seed = sim_params_int(p, P_SCENARIO_SEED);
	sim_time duration = sim_params_int(p, P_SCENARIO_DURATION);
	snprintf(dur, sizeof(dur), "%s", sim_params_text(p, P_SCENARIO_DURATION));
	rc = rec_latest_complete_run(db, name, policy, seed, duration, run_id, err, sizeof(err));
	int status = 0;
	if (rc) {
		fprintf(stderr, "%s\n", err);
		status = cli_exit_status(rc);
	} else if (!*run_id) {
		fprintf(stderr,
			"%s: no complete run of scenario %s (policy %s, seed %lld, duration %s) to check "
			"against %s: run it with --run-scenario, or name a run with --run\n",
			db_path, name, policy, (long long)seed, dur, path);
		status = EXIT_USAGE;
	} else {
		printf("check: run %lld, the latest complete run of scenario %s (policy %s, seed %lld, "
		       "duration %s)\n",
		       (long long)*run_id, name, policy, (long long)seed, dur);
	}
	sim_params_destroy(p);
	return status;
}

static const char check_usage[] =
	"usage: rcusim check [--db FILE] [--run RUN_ID | --run-scenario [--set KEY=VALUE]...]\n"
	"                    [--update] BASELINE\n"
	"\n"
	"Check a run against BASELINE: --run RUN_ID, or by default the latest complete\n"
	"run of the baseline's scenario (its name, policy, seed and duration, with the\n"
	"baseline's overrides; none is an error, exit 2); with --run-scenario, first\n"
	"run the baseline's scenario (with its overrides, seed and duration, then any\n"
	"--set) into the database. Lists every metric in human units with its signed\n"
	"change against the expectation and whether that way is worse (latencies,\n"
	"queues, memory up; callbacks invoked, objects freed down), and exits 1 if one\n"
	"is outside its tolerance. --update rewrites the baseline's expected values from the\n"
	"run, for a deliberate change, and records each --set in the baseline (it\n"
	"replaces the baseline's set of the same key, or its seed or duration), so\n"
	"that the baseline then passes on its own scenario.\n"
	"A baseline stating seeds (seeds = N, or a list) is checked over one run per\n"
	"seed: a metric passes when its expectation lies within the runs' mean +/- the\n"
	"95% interval (Student's t), widened by its tolerance; --update writes the mean.\n";

/* @v of metric @name in human units (ns as times, bytes, fractions as
 * percent, counts with separators), into @buf. */
static void human(const char *name, double v, char *buf, size_t len)
{
	const sim_metric_def *d = sim_metric_find(rcusim_metrics, M_COUNT, name, SIM_M_SCALAR);
	const char *unit = d ? d->unit : "";
	if (!strcmp(unit, "ns"))
		cli_fmt_ns(v, buf, len);
	else if (!strcmp(unit, "bytes"))
		cli_fmt_bytes(v, buf, len);
	else if (!strcmp(unit, "fraction") || !strcmp(unit, "share"))
		snprintf(buf, len, "%.4g%%", 100 * v);
	else
		cli_fmt_count(v, buf, len);
}

/* Which way metric @name gets worse: +1 higher (latencies, waits, queue
 * lengths, memory, failures, stalls), -1 lower (what is done: callbacks
 * invoked, objects freed, calls, opens), 0 neither (counts of events that
 * are neither good nor bad: context switches, wakeups, grace periods). */
static int worse_way(const char *name)
{
	const sim_metric_def *d = sim_metric_find(rcusim_metrics, M_COUNT, name, SIM_M_SCALAR);
	static const char *const higher[] = { "qlen",	 "pending", "failures", "stall", "wait",  "latency",
					      "duration", "_max",	"retries",	  "bytes",	"open_ns" };
	static const char *const lower[] = { "invoked", "freed", "calls", "objects", "opens" };
	if (d && !strcmp(d->unit, "ns") && !strstr(name, "cpu_ns"))
		return 1;
	for (size_t i = 0; i < sizeof(higher) / sizeof(higher[0]); i++)
		if (strstr(name, higher[i]))
			return 1;
	for (size_t i = 0; i < sizeof(lower) / sizeof(lower[0]); i++)
		if (strstr(name, lower[i]))
			return -1;
	return 0;
}

int cmd_check(int argc, char **argv)
{
	const char *db_path = "rcusim.db", *path = NULL, *v;
	int64_t run_id = 0;
	const char *run_arg = NULL; /* identity for cli_opt_once() */
	bool run_scenario = false, update = false;
	char err[2048];
	int rc, status = EXIT_USAGE;
	const char **extra = calloc((size_t)argc + 1, sizeof(*extra));
	size_t nextra = 0;
	baseline *b = calloc(1, sizeof(*b));
	rec_db *db = NULL;
	cli_set *sets = NULL;
	if (!extra || !b) {
		free(extra);
		free(b);
		return EXIT_IO;
	}
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], check_usage)) {
			status = 0;
			goto out;
		}
		if ((rc = cli_opt(argc, argv, &i, "--db", &v))) {
			if (rc < 0 || !cli_opt_once("--db", &db_path))
				goto out;
			db_path = v;
		} else if ((rc = cli_opt(argc, argv, &i, "--run", &v))) {
			if (rc < 0 || !cli_opt_once("--run", &run_arg) || !cli_run_id("check", v, &run_id))
				goto out;
		} else if ((rc = cli_opt(argc, argv, &i, "--set", &v))) {
			if (rc < 0)
				goto out;
			extra[nextra++] = v;
		} else if (!strcmp(argv[i], "--run-scenario")) {
			run_scenario = true;
		} else if (!strcmp(argv[i], "--update")) {
			update = true;
		} else if (argv[i][0] == '-' || path) {
			fprintf(stderr, "rcusim check: unexpected argument %s\n%s", argv[i], check_usage);
			goto out;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		fprintf(stderr, "rcusim check: no baseline given\n%s", check_usage);
		goto out;
	}
	if ((run_id && run_scenario) || (nextra && !run_scenario)) {
		fprintf(stderr, "rcusim check: --run and --set go with and without --run-scenario respectively\n");
		goto out;
	}
	if ((rc = load_baseline(b, path, err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		status = cli_exit_status(rc);
		goto out;
	}
	if (access(b->scenario, F_OK)) {
		/* A copied baseline whose relative scenario path no longer
		 * leads anywhere: say what it resolved to. */
		int e = errno;
		char folder[PATH_MAX], real[PATH_MAX];
		const char *slash = strrchr(b->path, '/');
		snprintf(folder, sizeof(folder), "%.*s", slash ? (int)(slash - b->path) : 1, slash ? b->path : ".");
		if (b->scenario_val[0] != '/' && realpath(folder, real))
			fprintf(stderr, "%s: baseline.scenario: %s: %s; looked for %s/%s (relative to the baseline's folder)\n",
				b->key_where[0], b->scenario_val, strerror(e), real, b->scenario_val);
		else
			fprintf(stderr, "%s: baseline.scenario: %s: %s\n", b->key_where[0], b->scenario_val,
				strerror(e));
		status = EXIT_USAGE;
		goto out;
	}
	if (b->nseeds && run_id) {
		fprintf(stderr, "rcusim check: --run names one run, and %s states %zu seeds (%s): check "
				"them with --run-scenario, or without --run (each seed's latest run)\n",
			path, b->nseeds, b->key_where[4]);
		goto out;
	}
	sets = calloc(b->nsets + nextra + 3, sizeof(*sets));
	if (!sets) {
		fprintf(stderr, "rcusim: out of memory\n");
		status = EXIT_IO;
		goto out;
	}
	size_t n = 0;
	for (size_t i = 0; i < b->nsets; i++)
		sets[n++] = (cli_set){ b->set_where[i], NULL, b->set_text[i], false };
	if (b->seed[0] && !b->nseeds)
		sets[n++] = (cli_set){ path, "scenario.seed", b->seed, false };
	if (b->duration[0])
		sets[n++] = (cli_set){ path, "scenario.duration", b->duration, false };
	for (size_t i = 0; i < nextra; i++)
		sets[n++] = (cli_set){ "--set", NULL, extra[i], false };
	/* One run, or one per seed (its seed the last override). */
	size_t nruns = b->nseeds ? b->nseeds : 1;
	int64_t run_ids[MAX_SEEDS] = { run_id };
	if (run_scenario) {
		char label[300];
		const char *base = strrchr(path, '/');
		snprintf(label, sizeof(label), "check %s", base ? base + 1 : path);
		for (size_t r = 0; r < nruns; r++) {
			if (b->nseeds)
				sets[n] = (cli_set){ b->key_where[4], "scenario.seed", b->seed_text[r], false };
			cli_run_req req = { .scenario = b->scenario, .db_path = db_path, .label = label,
					    .quiet = true, .summary = false, .sets = sets,
					    .nsets = n + (b->nseeds ? 1 : 0) };
			if ((status = cli_do_run(&req, &run_ids[r])))
				goto out;
		}
	}
	if (!run_scenario && access(db_path, F_OK) && errno == ENOENT) {
		fprintf(stderr,
			"rcusim check: %s: no such database; `rcusim check --run-scenario%s%s %s` runs the "
			"baseline's scenario into it first\n",
			db_path, strcmp(db_path, "rcusim.db") ? " --db " : "", strcmp(db_path, "rcusim.db") ? db_path : "",
			path);
		status = EXIT_IO;
		goto out;
	}
	if ((status = cli_open_db(db_path, true, &db)))
		goto out;
	for (size_t r = 0; r < nruns; r++) {
		if (b->nseeds)
			sets[n] = (cli_set){ b->key_where[4], "scenario.seed", b->seed_text[r], false };
		if (!run_ids[r] && (status = latest_run_of(b, path, sets, n + (b->nseeds ? 1 : 0), db, db_path,
							   &run_ids[r])))
			goto out;
		rec_run_row *row = NULL;
		size_t nrow = 0;
		if ((rc = rec_select_runs(db, &run_ids[r], 1, &row, &nrow, err, sizeof(err)))) {
			fprintf(stderr, "%s: %s\n", db_path, err);
			status = cli_exit_status(rc);
			goto out;
		}
		if (strcmp(row->status, "complete")) {
			fprintf(stderr, "%s: run %lld is %s, not complete\n", db_path, (long long)run_ids[r],
				row->status);
			free(row);
			status = EXIT_USAGE;
			goto out;
		}
		free(row);
	}
	if (update) {
		status = update_baseline(b, db, run_ids, nruns, extra, nextra);
		goto out;
	}
	int failed = 0;
	for (size_t i = 0; i < b->nm; i++) {
		bl_metric *m = &b->m[i];
		/* The runs' mean and the half-width of its 95% interval (0 for
		 * one run). */
		sim_mean mean = { 0 };
		bool present = true;
		for (size_t r = 0; r < nruns && present; r++) {
			double x;
			if ((rc = rec_scalar(db, run_ids[r], m->name, &x, &present, err, sizeof(err)))) {
				fprintf(stderr, "%s\n", err);
				status = EXIT_IO;
				goto out;
			}
			sim_mean_add(&mean, x);
		}
		double got = mean.mean, h = nruns > 1 ? sim_mean_ci95(&mean) : 0;
		char want[160] = "", tol[64] = "";
		bool ok = present;
		if (present && m->has_expect) {
			double d = fabs(got - m->expect);
			if (m->has_rel) {
				ok &= d <= h + m->rel_tol * fabs(m->expect);
				snprintf(tol, sizeof(tol), " +/- %g%%", 100 * m->rel_tol);
			} else if (m->has_abs) {
				ok &= d <= h + m->abs_tol;
				char a[48];
				human(m->name, m->abs_tol, a, sizeof(a));
				snprintf(tol, sizeof(tol), " +/- %s", a);
			} else {
				ok &= d <= h;
				snprintf(tol, sizeof(tol), " exactly");
			}
			char e[48];
			human(m->name, m->expect, e, sizeof(e));
			snprintf(want, sizeof(want), "expected %s%s", e, tol);
		}
		if (present && m->has_min) {
			ok &= got + h >= m->min;
			size_t l = strlen(want);
			char e[48];
			human(m->name, m->min, e, sizeof(e));
			snprintf(want + l, sizeof(want) - l, "%smin %s", l ? ", " : "", e);
		}
		if (present && m->has_max) {
			ok &= got - h <= m->max;
			size_t l = strlen(want);
			char e[48];
			human(m->name, m->max, e, sizeof(e));
			snprintf(want + l, sizeof(want) - l, "%smax %s", l ? ", " : "", e);
		}
		if (!ok)
			failed++;
		if (present) {
			/* The signed change against the expectation (or the bound
			 * crossed), and whether it goes the worse way. */
			char g[48], change[96] = "", spread[96] = "";
			human(m->name, got, g, sizeof(g));
			if (nruns > 1) {
				char hh[48];
				human(m->name, h, hh, sizeof(hh));
				snprintf(spread, sizeof(spread), " +/- %s (mean, 95%%, %zu seeds)", hh, nruns);
			}
			double ref = m->has_expect ? m->expect : m->has_min && got < m->min ? m->min
						   : m->has_max && got > m->max ? m->max : NAN;
			if (!isnan(ref) && got != ref) {
				int way = worse_way(m->name);
				const char *verdict = !way ? "" : (got > ref) == (way > 0) ? ", worse" : ", better";
				if (ref != 0)
					snprintf(change, sizeof(change), " (%+.3g%%%s)", 100 * (got - ref) / fabs(ref),
						 verdict);
				else
					snprintf(change, sizeof(change), " (%s%s)", got > 0 ? "up from 0" : "down from 0",
						 verdict);
			}
			printf("%-4s %s: %s%s, %s%s\n", ok ? "ok" : "FAIL", m->name, g, spread, want, change);
		} else
			printf("FAIL %s: absent from run %lld\n", m->name, (long long)run_ids[0]);
	}
	if (nruns > 1) {
		printf("check: runs %lld to %lld (%zu seeds) against %s: %zu passed, %d failed\n",
		       (long long)run_ids[0], (long long)run_ids[nruns - 1], nruns, path, b->nm - (size_t)failed,
		       failed);
		status = failed ? EXIT_REGRESSION : 0;
		goto out;
	}
	run_id = run_ids[0];
	printf("check: run %lld against %s: %zu passed, %d failed\n", (long long)run_id, path,
	       b->nm - (size_t)failed, failed);
	status = failed ? EXIT_REGRESSION : 0;
out:
	rec_close(db);
	free(sets);
	free(b->m);
	free(b);
	free(extra);
	return status;
}
