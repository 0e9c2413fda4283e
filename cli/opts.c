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

