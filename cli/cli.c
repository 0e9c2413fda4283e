/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cli.c - what the rcusim commands share: option parsing, opening the
 * results database and selecting runs, human number formats, gnuplot and
 * figure folders (plot and sweep). Commands call these; nothing here
 * calls a command.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "recorder.h"

#ifndef RCUSIM_PLOTS_DIR
#define RCUSIM_PLOTS_DIR "plots"
#endif
#ifndef RCUSIM_PLOTS_REL
#define RCUSIM_PLOTS_REL "../share/rcusim/plots"
#endif

/* ---- options ------------------------------------------------------------ */

int cli_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t l = strlen(name);
	if (strncmp(argv[*i], name, l))
		return 0;
	if (argv[*i][l] == '=') {
		*val = argv[*i] + l + 1;
		return 1;
	}
	if (argv[*i][l])
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "rcusim: %s needs a value\n", name);
		return -1;
	}
	*val = argv[++*i];
	return 1;
}

/* The destinations cli_strs() has filled since cli_opts_reset(): an
 * option that takes one value given twice is an error, not "the last
 * wins". */
static const char **strs_seen[64];
static size_t nstrs_seen;

void cli_opts_reset(void)
{
	nstrs_seen = 0;
}

bool cli_opt_once(const char *name, const char **dst)
{
	for (size_t k = 0; k < nstrs_seen; k++)
		if (strs_seen[k] == dst) {
			fprintf(stderr, "rcusim: %s given twice: it takes one value\n", name);
			return false;
		}
	if (nstrs_seen < sizeof(strs_seen) / sizeof(strs_seen[0]))
		strs_seen[nstrs_seen++] = dst;
	return true;
}

int cli_strs(int argc, char **argv, int *i, const cli_str *opts)
{
	for (; opts->name; opts++) {
		const char *v;
		int rc = cli_opt(argc, argv, i, opts->name, &v);
		if (rc > 0) {
			if (!cli_opt_once(opts->name, opts->dst))
				return -1;
			*opts->dst = v;
		}
		if (rc)
			return rc;
	}
	return 0;
}

void cli_shell_quote(const char *s, FILE *out)
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

bool cli_help(const char *arg, const char *usage)
{
	if (strcmp(arg, "--help") && strcmp(arg, "-h"))
		return false;
	fputs(usage, stdout);
	return true;
}

bool cli_run_id(const char *cmd, const char *s, int64_t *id)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*s == 0 || *end || errno || v < 1) {
		fprintf(stderr, "rcusim %s: expected a run id (a positive integer), got \"%s\"\n", cmd, s);
		return false;
	}
	*id = v;
	return true;
}

/* ---- the results database ---------------------------------------------- */

int cli_open_db(const char *path, bool must_exist, rec_db **db)
{
	char err[1024];
	if (must_exist && *path && access(path, F_OK)) {
		fprintf(stderr, "%s: cannot read: %s\n", path, strerror(errno));
		return EXIT_IO;
	}
	int rc = must_exist ? rec_open_ro(db, path, err, sizeof(err)) : rec_open(db, path, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return cli_exit_status(rc);
	}
	return 0;
}

int cli_load_runs(const char *db_path, const int64_t *ids, size_t nids, const char *what,
		  rec_db **db, rec_run_row **rows, size_t *nrows)
{
	char err[1024];
	int status = cli_open_db(db_path, true, db);
	if (status)
		return status;
	int rc = rec_select_runs(*db, ids, nids, rows, nrows, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: %s\n", db_path, err);
		return cli_exit_status(rc);
	}
	if (!*nrows) {
		fprintf(stderr, "%s: no complete run to %s\n", db_path, what);
		return EXIT_USAGE;
	}
	for (size_t r = 0; r < *nrows; r++)
		cli_note_status(db_path, &(*rows)[r]);
	return 0;
}

void cli_note_status(const char *db_path, const rec_run_row *row)
{
	if (!strcmp(row->status, "complete"))
		return;
	if (!strcmp(row->status, "lost"))
		fprintf(stderr, "%s: run %lld is lost: its process (pid %lld on %s) is gone or stopped "
				"beating; it never completed and its results are missing\n",
			db_path, (long long)row->run_id, (long long)row->pid, row->host[0] ? row->host : "?");
	else
		fprintf(stderr, "%s: run %lld is %s, not complete\n", db_path, (long long)row->run_id,
			row->status);
}

/* ---- human formats ------------------------------------------------------ */

void cli_fmt_ns(double ns, char *buf, size_t len)
{
	double a = fabs(ns);
	if (a < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else if (a < 60e9)
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else if (a < 3600e9)
		snprintf(buf, len, "%.3g min", ns / 60e9);
	else
		snprintf(buf, len, "%.3g h", ns / 3600e9);
}

void cli_fmt_bytes(double b, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int k = 0;
	while (fabs(b) >= 1024 && k < 4) {
		b /= 1024;
		k++;
	}
	snprintf(buf, len, k ? "%.3g %s" : "%.0f %s", b, u[k]);
}

void cli_fmt_count(double v, char *buf, size_t len)
{
	if (v != floor(v) || fabs(v) >= 1e18) {
		snprintf(buf, len, "%.6g", v);
		return;
	}
	char digits[32];
	snprintf(digits, sizeof(digits), "%.0f", fabs(v));
	size_t n = strlen(digits), k = 0;
	if (v < 0 && k + 1 < len)
		buf[k++] = '-';
	for (size_t i = 0; i < n && k + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = 0;
}

/* ---- figures ------------------------------------------------------------ */

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
	if (found[0])
		return found;
	char self[PATH_MAX], probe[PATH_MAX + 96];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			snprintf(probe, sizeof(probe), "%s/%s/common.gp", self, RCUSIM_PLOTS_REL);
			if (!access(probe, R_OK)) {
				snprintf(found, sizeof(found), "%s/%s", self, RCUSIM_PLOTS_REL);
				return found;
			}
		}
	}
	snprintf(found, sizeof(found), "%s", RCUSIM_PLOTS_DIR);
	return found;
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
