/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep.c - `rcusim sweep`: its usage, and the choice of what to do: run
 * or submit the sweep on its backend (the table below, one file each:
 * backend_local.c, backend_slurm.c, backend_parallel.c), or collect a
 * results folder (--collect). What a sweep is, its options, runs and
 * report, is sweep_plan.c's and sweep_report.c's.
 */
#include <assert.h>
#include <string.h>

#include "backend.h"
#include "commands.h"

static const char sweep_usage[] =
	"usage: rcusim sweep SCENARIO.ini --vary KEY=V1,V2,... [--vary ...] [--seeds A..B]\n"
	"                    [--set KEY=VALUE]... [--duration TIME] [--jobs N] [--db FILE]\n"
	"                    [--plot] [--out DIR] [--format png|svg] [--metric NAME]...\n"
	"                    [--zoom] [--long] [--emit-jobs | --backend slurm|parallel --results DIR ...]\n"
	"       rcusim sweep --collect DIR [--wait] [--db FILE] [--plot] [--out DIR]\n"
	"                    [--format png|svg] [--metric NAME]... [--zoom] [--long]\n"
	"\n"
	"Run SCENARIO.ini for every combination of the varied values and seeds and\n"
	"print the comparison of the sweep's runs (its own: not other runs of the\n"
	"database, even with the same labels): a column per combination, in the\n"
	"--vary order, the mean over its seeds with a 95% interval and n; rows, each\n"
	"--metric (a name or a glob, syncrcu.*; default the key scalars, as\n"
	"compare shows them); columns\n"
	"identical in every row said below it. --long prints one row per run\n"
	"instead (run, scenario, policy, seed, label, the varied parameters, the\n"
	"metrics). --plot draws each --metric (default\n"
	"softirq.run_max_ns and cb.qlen_total_max) against the first varied\n"
	"parameter (values that are not all numbers, such as yes/no or CPU lists,\n"
	"as categories in the order given), one line per value of the second\n"
	"(and per policy where one cell holds several), the mean over the seeds\n"
	"with their minimum and maximum: points, not lines, for values that are not\n"
	"numbers; a dashed line at the value the scenario itself gives the parameter\n"
	"(its kernel's default, or its preset's); a linear y axis from 0 (--zoom:\n"
	"fitted to the values), fractions in percent; the subtitle names the\n"
	"scenario, kernel preset, CPUs, duration and seeds. Every run's scenario\n"
	"and overrides are checked before any starts or is submitted.\n"
	"\n"
	"  --vary KEY=V1,V2,...  a parameter and its values, none empty or repeated\n"
	"                        (at most 8 --vary, each a different KEY; a kernel\n"
	"                        boot parameter rcusim maps, rcutree.rcu_divisor=7,9,\n"
	"                        as run --set takes it)\n"
	"  --seeds A..B          every combination with each seed from A to B\n"
	"  --set KEY=VALUE       an override for every run (repeatable)\n"
	"  --duration TIME       same as --set scenario.duration=TIME\n"
	"  --db FILE             the sweep's database (default rcusim.db)\n"
	"  --jobs N              runs at a time: local, default the CPUs; slurm, at\n"
	"                        most N tasks of each array at once; parallel, per host\n"
	"  --emit-jobs           print one `rcusim run` command line per run; run\n"
	"                        (and check) none\n"
	"\n"
	"  --backend local       (default) N `rcusim run` processes at a time on this\n"
	"                        machine, into --db\n"
	"  --backend slurm       one Slurm job array (sbatch), one task per run, each\n"
	"                        writing its own database in --results DIR; more than\n"
	"                        the cluster's MaxArraySize runs go as several arrays\n"
	"  --backend parallel    the same tasks through GNU parallel, here or on the\n"
	"                        --sshlogin hosts; waits for them and collects\n"
	"  --results DIR         (slurm, parallel) the results folder, on a filesystem\n"
	"                        every node shares: runs/KEY.db per run, logs/, the\n"
	"                        task lists and batch scripts. A run is keyed by its\n"
	"                        scenario, overrides, seed and rcusim version: a\n"
	"                        submission again into DIR runs only the runs not\n"
	"                        complete there (not run, failed, lost or aborted);\n"
	"                        DIR holding another sweep (another scenario,\n"
	"                        --vary, --seeds, --set or --duration) is refused\n"
	"  --wait                (slurm) wait for the arrays to end, then collect\n"
	"  --partition NAME      (slurm) sbatch --partition\n"
	"  --time-limit TIME     (slurm) sbatch --time, per task (Slurm's format, 30:00)\n"
	"  --cpus-per-task N     (slurm) sbatch --cpus-per-task\n"
	"  --sbatch-arg ARG      (slurm) one more sbatch argument (repeatable)\n"
	"  --sshlogin LOGIN      (parallel) parallel --sshlogin (repeatable): rcusim,\n"
	"                        the scenario and DIR must be at the same paths there\n"
	"  --collect DIR         merge the complete runs of results folder DIR into the\n"
	"                        sweep's database, report what is missing, print the\n"
	"                        comparison (and, with --plot, the figures); --wait\n"
	"                        first waits for its Slurm arrays to end\n"
	"\n"
	"Bad input, a run that would fail included, exits 2 before any run starts.\n"
	"A sweep whose runs did not all complete exits 3 if one was lost (its process\n"
	"killed), aborted (SIGINT or SIGTERM) or not run, else 4 (one failed a model\n"
	"check); collecting while tasks are still queued or running also exits 3. A\n"
	"local sweep stopped by SIGINT, SIGTERM or SIGHUP sends it on to its runs\n"
	"(recorded aborted), starts no other, reports what ran and exits 128 + the\n"
	"signal.\n";

/* The backends, by the --backend value that sweep_parse() read. */
static const sweep_backend_ops *const backends[SWEEP_NBACKENDS] = {
	[SWEEP_LOCAL] = &backend_local,
	[SWEEP_SLURM] = &backend_slurm,
	[SWEEP_PARALLEL] = &backend_parallel,
};

int cmd_sweep(int argc, char **argv)
{
	sweep s;
	const char *collect = NULL;
	int status;
	sweep_init(&s, sweep_usage);
	/* --collect DIR: the sweep's other options are in DIR. */
	for (int i = 1; i < argc; i++) {
		const char *v;
		int rc = cli_opt(argc, argv, &i, "--collect", &v);
		if (rc < 0) {
			status = EXIT_USAGE;
			goto out;
		}
		if (rc > 0)
			collect = v;
	}
	if (collect) {
		status = backend_collect(&s, collect, argc, argv, backends);
		goto out;
	}
	if ((status = sweep_parse(&s, argc, argv, false)) || (status = sweep_expand(&s)))
		goto out;
	assert(!strcmp(backends[s.backend]->name, sweep_backend_name[s.backend]));
	status = backends[s.backend]->run(&s);
out:
	sweep_free(&s);
	/* -1: --help was printed. */
	return status < 0 ? 0 : status;
}
