/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * params.c - `rcusim params`: every parameter of the registry
 * (models/params.def) as text, a scenario file of defaults, or Markdown.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmdline.h"
#include "commands.h"
#include "params.h"
#include "registry.h"

static const char params_usage[] =
	"usage: rcusim params [--format text|ini|md] [KEY|GLOB]...\n"
	"       rcusim params --kernel\n"
	"\n"
	"List every parameter (or those named: rcu.blimit, 'rcu.*', or a kernel boot\n"
	"parameter such as rcutree.blimit, shown as the one it sets): name, default,\n"
	"accepted values and unit, meaning, and where the default comes from.\n"
	"--format ini prints a scenario file holding every default. --kernel lists\n"
	"the kernel boot parameters rcusim maps (--set and run --cmdline take them).\n";

int cmd_params(int argc, char **argv)
{
	sim_params_format fmt = SIM_PARAMS_TEXT;
	const char *v;
	int rc;
	bool kernel = false;
	bool *pick = calloc(P_COUNT, sizeof(*pick));
	sim_param_def *defs = calloc(P_COUNT, sizeof(*defs));
	int status = EXIT_USAGE, named = 0;
	if (!pick || !defs) {
		fprintf(stderr, "rcusim params: out of memory\n");
		status = 3;
		goto out;
	}
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], params_usage)) {
			status = 0;
			goto out;
		}
		if ((rc = cli_opt(argc, argv, &i, "--format", &v)) == 1) {
			if (!strcmp(v, "text"))
				fmt = SIM_PARAMS_TEXT;
			else if (!strcmp(v, "ini"))
				fmt = SIM_PARAMS_INI;
			else if (!strcmp(v, "md"))
				fmt = SIM_PARAMS_MD;
			else {
				fprintf(stderr, "rcusim params: --format: expected text, ini or md, got \"%s\"\n", v);
				goto out;
			}
			continue;
		}
		if (rc < 0)
			goto out;
		if (!strcmp(argv[i], "--kernel")) {
			kernel = true;
			continue;
		}
		if (argv[i][0] == '-') {
			fprintf(stderr, "rcusim params: unknown option %s\n%s", argv[i], params_usage);
			goto out;
		}
		/* A name, a glob, or a kernel parameter. */
		const char *target = rcusim_kernel_param_target(argv[i]);
		bool any = false;
		for (size_t k = 0; k < P_COUNT; k++)
			if (!fnmatch(argv[i], rcusim_params[k].name, 0) ||
			    (target && !strcmp(target, rcusim_params[k].name)))
				any = pick[k] = true;
		if (!any) {
			char s[300];
			rcusim_param_suggest(argv[i], s, sizeof(s));
			fprintf(stderr, "rcusim params: %s: no such parameter%s\n", argv[i], s);
			goto out;
		}
		if (target)
			printf("%s (kernel boot parameter) sets %s\n", argv[i], target);
		named++;
	}
	if (kernel) {
		rcusim_kernel_params_print(stdout);
	} else if (named) {
		size_t n = 0;
		for (size_t k = 0; k < P_COUNT; k++)
			if (pick[k])
				defs[n++] = rcusim_params[k];
		sim_params_print(defs, n, fmt, stdout);
	} else {
		sim_params_print(rcusim_params, P_COUNT, fmt, stdout);
	}
	status = ferror(stdout) ? EXIT_IO : 0;
out:
	free(pick);
	free(defs);
	return status;
}
