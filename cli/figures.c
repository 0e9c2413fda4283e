/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * figures.c - what plot and sweep need to draw: the folder of the gnuplot
 * scripts (installed or in the source tree), text for a generated gnuplot
 * script, running gnuplot (no shell), and the figures folder with its
 * data/ (made as mkdir -p does, cli_mkdir_p(), which the results folder of
 * a cluster sweep is made with too).
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#ifndef RCUSIM_PLOTS_DIR
#define RCUSIM_PLOTS_DIR "plots"
#endif
#ifndef RCUSIM_PLOTS_REL
#define RCUSIM_PLOTS_REL "../share/rcusim/plots"
#endif
#ifndef RCUSIM_SCENARIOS_DIR
#define RCUSIM_SCENARIOS_DIR "scenarios"
#endif
#ifndef RCUSIM_SCENARIOS_REL
#define RCUSIM_SCENARIOS_REL "../share/rcusim/scenarios"
#endif

int cli_data_dir(const char *rel, const char *src, const char *marker, char *out, size_t len)
{
	char self[PATH_MAX], dir[2 * PATH_MAX], probe[3 * PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			snprintf(dir, sizeof(dir), "%s/%s", self, rel);
			snprintf(probe, sizeof(probe), "%s/%s", dir, marker);
			if (!access(probe, R_OK)) {
				char real[PATH_MAX];
				snprintf(out, len, "%s", realpath(dir, real) ? real : dir);
				return 0;
			}
		}
	}
	snprintf(out, len, "%s", src);
	return -1;
}

/* The folder holding the gnuplot scripts: $RCUSIM_PLOTS; else, for an
 * installed rcusim, RCUSIM_PLOTS_REL from the folder of the executable
 * (PREFIX/bin/../share/rcusim/plots); else the source tree's plots/, where
 * a build that is not installed finds them. */
const char *cli_plots_dir(void)
{
	static char found[PATH_MAX + 64];
	const char *e = getenv("RCUSIM_PLOTS");
	if (e && *e)
		return e;
	if (!found[0])
		(void)cli_data_dir(RCUSIM_PLOTS_REL, RCUSIM_PLOTS_DIR, "common.gp", found, sizeof(found));
	return found;
}

int cli_scenarios_dir(char *out, size_t len)
{
	char real[PATH_MAX];
	if (!cli_data_dir(RCUSIM_SCENARIOS_REL, RCUSIM_SCENARIOS_DIR, "kernels/linux-6.12.ini", out, len))
		return 0;
	if (realpath(RCUSIM_SCENARIOS_DIR, real))
		snprintf(out, len, "%s", real);
	return -1;
}

int cli_params_search(sim_params *p, char *err, size_t errlen)
{
	const char *e = getenv("RCUSIM_PATH");
	int rc = 0;
	while (e && *e && !rc) {
		size_t l = strcspn(e, ":");
		char dir[PATH_MAX];
		if (l && l < sizeof(dir)) {
			memcpy(dir, e, l);
			dir[l] = 0;
			rc = sim_params_search_add(p, dir, "RCUSIM_PATH");
		}
		e += l + (e[l] == ':');
	}
	char dir[PATH_MAX];
	bool source = cli_scenarios_dir(dir, sizeof(dir)) != 0;
	if (!rc)
		rc = sim_params_search_add(p, dir, source ? "the source tree's presets" : "the installed presets");
	if (rc)
		snprintf(err, errlen, "out of memory");
	return rc;
}

void cli_gp_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("''", f);
		else if (*s != '\n' && *s != '\r')
			fputc(*s, f);
	}
	fputc('\'', f);
}

int cli_gnuplot(const char *script, const char *const *args, size_t nargs)
{
	const char *argv[16];
	size_t k = 0;
	argv[k++] = "gnuplot";
	argv[k++] = "-c";
	argv[k++] = script;
	for (size_t i = 0; i < nargs && k < 15; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rcusim plot: fork: %s\n", strerror(errno));
		return EXIT_IO;
	}
	if (pid == 0) {
		if (chdir(cli_plots_dir())) {
			fprintf(stderr, "rcusim plot: %s: %s\n", cli_plots_dir(), strerror(errno));
			_exit(127);
		}
		execvp("gnuplot", (char *const *)argv);
		fprintf(stderr, "rcusim plot: cannot run gnuplot: %s (install the Debian package gnuplot-nox)\n",
			strerror(errno));
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "rcusim plot: gnuplot %s failed\n", script);
		return EXIT_IO;
	}
	return 0;
}

int cli_mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(buf, 0777) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

int cli_plot_dirs(const char *outdir, char *out, char *data)
{
	if (cli_mkdir_p(outdir) || !realpath(outdir, out)) {
		fprintf(stderr, "%s: %s\n", outdir, strerror(errno));
		return EXIT_IO;
	}
	snprintf(data, PATH_MAX + 16, "%s/data", out);
	if (cli_mkdir_p(data)) {
		fprintf(stderr, "%s: %s\n", data, strerror(errno));
		return EXIT_IO;
	}
	return 0;
}

/* The value of parameter @name among @ps (@n of them), or NULL. */
static const rec_param_row *param_of(const rec_param_row *ps, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ps[i].name, name))
			return &ps[i];
	return NULL;
}

int cli_run_context(rec_db *db, const rec_run_row *rows, size_t n, char *buf, size_t len)
{
	rec_param_row *ps = NULL;
	size_t np = 0;
	char err[1024], kernel[256] = "";
	assert(n > 0);
	int rc = rec_run_params(db, rows[0].run_id, &ps, &np, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "rcusim: %s\n", err);
		return cli_exit_status(rc);
	}
	/* The kernel presets values came from (files under kernels/): a
	 * distribution's first, the upstream linux-* one it builds on after. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < np; i++) {
			const char *o = ps[i].origin, *k = o ? strstr(o, "kernels/") : NULL;
			char name[128];
			if (!k)
				continue;
			k += strlen("kernels/");
			const char *ini = strstr(k, ".ini");
			snprintf(name, sizeof(name), "%.*s", ini ? (int)(ini - k) : (int)strcspn(k, ":"), k);
			if ((pass == 0) != (strncmp(name, "linux-", 6) != 0) || strstr(kernel, name))
				continue;
			size_t kl = strlen(kernel);
			snprintf(kernel + kl, sizeof(kernel) - kl, "%s%s", kl ? " over " : "", name);
		}
	const rec_param_row *cores = param_of(ps, np, "machine.cores");
	const rec_param_row *tpc = param_of(ps, np, "machine.threads_per_core");
	long cpus = cores && tpc ? atol(cores->value) * atol(tpc->value) : 0;
	/* Scenarios, durations and seeds: one, or a range. */
	bool one_scen = true, one_dur = true;
	int64_t slo = rows[0].seed, shi = rows[0].seed;
	for (size_t r = 1; r < n; r++) {
		one_scen &= !strcmp(rows[r].scenario, rows[0].scenario);
		one_dur &= rows[r].sim_duration_ns == rows[0].sim_duration_ns;
		slo = rows[r].seed < slo ? rows[r].seed : slo;
		shi = rows[r].seed > shi ? rows[r].seed : shi;
	}
	char dur[32];
	cli_fmt_ns((double)rows[0].sim_duration_ns, dur, sizeof(dur));
	size_t l = (size_t)snprintf(buf, len, "%s", one_scen ? rows[0].scenario : "several scenarios");
	/* The first run's machine and kernel stand for the others only when
	 * they ran the same scenario. */
	if (one_scen && kernel[0] && l < len)
		l += (size_t)snprintf(buf + l, len - l, ", kernel %s", kernel);
	if (one_scen && cpus > 0 && l < len)
		l += (size_t)snprintf(buf + l, len - l, ", %ld CPUs", cpus);
	if (l < len)
		l += (size_t)snprintf(buf + l, len - l, ", %s simulated", one_dur ? dur : "durations differ:");
	if (l < len) {
		if (slo == shi)
			snprintf(buf + l, len - l, ", seed %lld", (long long)slo);
		else
			snprintf(buf + l, len - l, ", seeds %lld..%lld", (long long)slo, (long long)shi);
	}
	rec_param_rows_free(ps, np);
	return 0;
}
