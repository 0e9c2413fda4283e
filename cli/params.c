/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * params.c - `rcusim params`: every parameter of the registry
 * (models/params.def) as text, a scenario file of defaults, or Markdown.
 */
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "params.h"
#include "registry.h"

static const char params_usage[] =
	"usage: rcusim params [--format text|ini|md]\n"
	"\n"
	"List every parameter: name, default, accepted values and unit, meaning,\n"
	"and where the default comes from. --format ini prints a scenario file\n"
	"holding every default.\n";

int cmd_params(int argc, char **argv)
{
	sim_params_format fmt = SIM_PARAMS_TEXT;
	const char *v;
	int rc;
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], params_usage))
			return 0;
		if ((rc = cli_opt(argc, argv, &i, "--format", &v)) == 1) {
			if (!strcmp(v, "text"))
				fmt = SIM_PARAMS_TEXT;
			else if (!strcmp(v, "ini"))
				fmt = SIM_PARAMS_INI;
			else if (!strcmp(v, "md"))
				fmt = SIM_PARAMS_MD;
			else {
				fprintf(stderr, "rcusim params: --format: expected text, ini or md, got \"%s\"\n", v);
				return EXIT_USAGE;
			}
			continue;
		}
		if (rc < 0)
			return EXIT_USAGE;
		fprintf(stderr, "rcusim params: unknown argument %s\n%s", argv[i], params_usage);
		return EXIT_USAGE;
	}
	sim_params_print(rcusim_params, P_COUNT, fmt, stdout);
	return ferror(stdout) ? EXIT_IO : 0;
}
