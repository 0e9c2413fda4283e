/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * phold_common.h - PHOLD's command line and report, shared by the engine
 * benchmark and the textbook-heap baseline so that both run the same model.
 *
 * Flags and meanings follow ROSS's phold (--nlp, --start-events, --remote,
 * --lookahead, --mean, --end), except that --mean is the total mean
 * increment: lookahead plus an exponential with mean (mean - lookahead).
 * One time unit is one simulated second (10^9 ns); times are integer ns.
 * Each LP has its own GSL stream, taus2 by default: like ROSS's per-LP
 * CLCG4 its state is a few bytes, where MT19937's 5 KiB per LP would make
 * the benchmark measure cache misses on generator state (--rng mt19937).
 */
#ifndef RCUSIM_BENCH_PHOLD_COMMON_H
#define RCUSIM_BENCH_PHOLD_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct phold_opts {
	uint32_t nlp;          /* logical processes */
	uint32_t start_events; /* events per LP at t = 0 */
	double remote;         /* probability an event goes to a random LP */
	double lookahead;      /* minimum increment, time units */
	double mean;           /* mean increment, time units */
	double end;            /* end time, time units */
	uint64_t seed;         /* seed of the LP streams */
	int taus2;             /* 1: GSL taus2 streams (24-byte state), 0: MT19937 */
} phold_opts;

static inline int phold_parse(int argc, char **argv, phold_opts *o)
{
	*o = (phold_opts){ 4096, 16, 0.25, 0.1, 1.0, 200, 1, 1 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[i + 1] : NULL);
		size_t kl = eq ? (size_t)(eq - a) : strlen(a);
		if (!v) {
			fprintf(stderr, "phold: %s needs a value\n", a);
			return -1;
		}
		if (!eq)
			i++;
#define IS(s) (kl == strlen(s) && !strncmp(a, s, kl))
		if (IS("--rng")) {
			if (strcmp(v, "taus2") && strcmp(v, "mt19937")) {
				fprintf(stderr, "phold: --rng: expected taus2 or mt19937, got \"%s\"\n", v);
				return -1;
			}
			o->taus2 = !strcmp(v, "taus2");
			continue;
		}
		char *end;
		double d = strtod(v, &end);
		if (*end || end == v) {
			fprintf(stderr, "phold: %.*s: expected a number, got \"%s\"\n", (int)kl, a, v);
			return -1;
		}
		if (IS("--nlp") && d >= 1)
			o->nlp = (uint32_t)d;
		else if (IS("--start-events") && d >= 1)
			o->start_events = (uint32_t)d;
		else if (IS("--remote") && d >= 0 && d <= 1)
			o->remote = d;
		else if (IS("--lookahead") && d >= 0)
			o->lookahead = d;
		else if (IS("--mean") && d > 0)
			o->mean = d;
		else if (IS("--end") && d > 0)
			o->end = d;
		else if (IS("--seed") && d >= 0)
			o->seed = (uint64_t)d;
		else {
			fprintf(stderr,
				"usage: %s [--nlp N] [--start-events K] [--remote P] [--lookahead L] "
				"[--mean M] [--end T] [--seed S] [--rng taus2|mt19937]\n",
				argv[0]);
			return -1;
		}
#undef IS
	}
	if (o->mean < o->lookahead) {
		fprintf(stderr, "phold: --mean must be at least --lookahead\n");
		return -1;
	}
	return 0;
}

static inline double phold_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int64_t phold_ns(double units)
{
	return (int64_t)(units * 1e9 + 0.5);
}

static inline void phold_report(uint64_t events, double wall, uint64_t check)
{
	printf("events: %llu\nevents/s: %.0f\nwall_s: %.3f\nchecksum: %llu\n",
	       (unsigned long long)events, (double)events / wall, wall,
	       (unsigned long long)check);
}

#endif
