/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * figures.c - what plot and sweep need to draw: the folder of the gnuplot
 * scripts (installed or in the source tree), text for a generated gnuplot
 * script, running gnuplot (no shell), and the figures folder with its
 * data/ (made as mkdir -p does, cli_mkdir_p(), which the results folder of
 * a cluster sweep is made with too).
 */
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
