/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * metrics.c - `rcusim metrics`: every metric of the registry
 * (models/metrics.def) with its kind, unit and meaning, as aligned text or
 * a Markdown table; what `rcusim params` is for parameters.
 */
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "registry.h"

static const char metrics_usage[] =
	"usage: rcusim metrics [--format text|md]\n"
	"\n"
	"List every metric a run can record: name, kind, unit and meaning. Kinds:\n"
	"scalar (one value per run, table scalar), series (sampled every\n"
	"scenario.sample_interval, tables series and point; cpu -1 is machine-wide)\n"
	"and hist (a distribution in log-spaced bins, table hist). A metric that did\n"
	"not occur in a run is absent from it, not 0.\n";

/* @s as the text of a Markdown table cell: '|' would end the cell and a
 * '*' between two words may start emphasis, so both are escaped. */
static void md_cell(const char *s, FILE *out)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '*')
			fputc('\\', out);
		fputc(*s, out);
	}
}

/* Print @defs on @out: aligned columns (@md false) or a Markdown table. */
static void print_metrics(const sim_metric_def *defs, size_t n, bool md, FILE *out)
{
	if (md) {
		fprintf(out, "| metric | kind | unit | meaning |\n| --- | --- | --- | --- |\n");
		for (size_t k = 0; k < n; k++) {
			fprintf(out, "| `%s` | %s | ", defs[k].name, sim_metric_kind_name(defs[k].kind));
			md_cell(defs[k].unit, out);
			fputs(" | ", out);
			md_cell(defs[k].meaning, out);
			fputs(" |\n", out);
		}
		return;
	}
	int wname = (int)strlen("metric"), wkind = (int)strlen("kind"), wunit = (int)strlen("unit");
	for (size_t k = 0; k < n; k++) {
		int l = (int)strlen(defs[k].name);
		wname = l > wname ? l : wname;
		l = (int)strlen(sim_metric_kind_name(defs[k].kind));
		wkind = l > wkind ? l : wkind;
		l = (int)strlen(defs[k].unit);
		wunit = l > wunit ? l : wunit;
	}
	fprintf(out, "%-*s  %-*s  %-*s  %s\n", wname, "metric", wkind, "kind", wunit, "unit", "meaning");
	for (size_t k = 0; k < n; k++)
		fprintf(out, "%-*s  %-*s  %-*s  %s\n", wname, defs[k].name, wkind,
			sim_metric_kind_name(defs[k].kind), wunit, defs[k].unit, defs[k].meaning);
}

int cmd_metrics(int argc, char **argv)
{
	bool md = false;
	const char *v;
	int rc;
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], metrics_usage))
			return 0;
		if ((rc = cli_opt(argc, argv, &i, "--format", &v)) == 1) {
			if (!strcmp(v, "text"))
				md = false;
			else if (!strcmp(v, "md"))
				md = true;
			else {
				fprintf(stderr, "rcusim metrics: --format: expected text or md, got \"%s\"\n", v);
				return EXIT_USAGE;
			}
			continue;
		}
		if (rc < 0)
			return EXIT_USAGE;
		fprintf(stderr, "rcusim metrics: unknown argument %s\n%s", argv[i], metrics_usage);
		return EXIT_USAGE;
	}
	print_metrics(rcusim_metrics, M_COUNT, md, stdout);
	return ferror(stdout) ? EXIT_IO : 0;
}
