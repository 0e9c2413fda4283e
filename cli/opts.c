/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * opts.c - the options of the commands: "--name VALUE" and "--name=VALUE",
 * an option that takes one value given once, --help, and run ids.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmdline.h"

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


int cli_apply_set(sim_params *p, const cli_set *s, char *err, size_t errlen)
{
	if (s->name)
		return sim_params_set_value(p, s->name, s->value, s->origin, err, errlen);
	if (s->cmdline) {
		char ignored[4096], warn[4096];
		int rc = rcusim_set_cmdline(p, s->value, s->origin, ignored, sizeof(ignored), warn,
					    sizeof(warn), err, errlen);
		if (!rc && ignored[0])
			fprintf(stderr, "rcusim: %s: not modelled, left out: %s\n", s->origin, ignored);
		for (const char *w = warn; !rc && *w;) {
			size_t l = strcspn(w, "\n");
			fprintf(stderr, "rcusim: warning: %.*s\n", (int)l, w);
			w += l + (w[l] == '\n');
		}
		return rc;
	}
	int rc = rcusim_set(p, s->value, s->origin, err, errlen);
	if (rc == RCUSIM_KP_KEPT) {
		fprintf(stderr, "rcusim: warning: %s\n", err);
		err[0] = 0;
		return 0;
	}
	return rc == RCUSIM_KP_UNMODELLED ? SIM_EINPUT : rc;
}

char *cli_read_small_file(const char *path, const char *what)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", what, path, strerror(errno));
		return NULL;
	}
	char *buf = malloc(65537);
	size_t n = buf ? fread(buf, 1, 65537, f) : 0;
	bool bad = ferror(f);
	fclose(f);
	if (!buf || bad || n > 65536) {
		fprintf(stderr, "%s: %s: %s\n", what, path,
			!buf ? "out of memory" : bad ? "cannot be read" : "longer than 64 KiB: not a command line");
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	if (strlen(buf) != n) {
		fprintf(stderr, "%s: %s: holds a NUL byte: not a command line\n", what, path);
		free(buf);
		return NULL;
	}
	return buf;
}
