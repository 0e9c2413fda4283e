/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * phold.c - the PHOLD benchmark on rcusim's engine (sim/engine.c) with one
 * GSL stream per LP (sim/rng.c). Each event is a timer that re-arms itself
 * for its next destination: no allocation per event.
 */
#include <stddef.h>

#include "engine.h"
#include "phold_common.h"
#include "rng.h"

typedef struct ev {
	sim_timer t;  /* the pending event */
	uint32_t dst; /* LP it is addressed to */
} ev;

static sim_rng **lps;
static phold_opts o;
static double exp_mean;     /* mean of the exponential part, time units */
static uint64_t checksum;   /* sum of destinations, to compare implementations */

static sim_time increment(sim_rng *r)
{
	return phold_ns(o.lookahead + sim_rng_exponential(r, exp_mean));
}

static void phold_event(sim_engine *eng, sim_timer *t)
{
	ev *e = t->ctx;
	sim_rng *r = lps[e->dst];
	sim_time inc = increment(r);
	if (sim_rng_uniform(r) < o.remote)
		e->dst = (uint32_t)sim_rng_uniform_int(r, o.nlp);
	checksum += e->dst;
	sim_timer_after(eng, t, inc);
}

int main(int argc, char **argv)
{
	if (phold_parse(argc, argv, &o))
		return 2;
	exp_mean = o.mean - o.lookahead;
	sim_engine *eng;
	size_t nev = (size_t)o.nlp * o.start_events;
	ev *evs = calloc(nev, sizeof(*evs));
	lps = calloc(o.nlp, sizeof(*lps));
	if (!evs || !lps || sim_engine_create(&eng))
		return 3;
	for (uint32_t i = 0; i < o.nlp; i++)
		if (sim_rng_create(&lps[i], o.taus2 ? SIM_RNG_TAUS2 : SIM_RNG_MT19937, o.seed, "phold.lp", i))
			return 3;
	for (size_t k = 0; k < nev; k++) {
		ev *e = &evs[k];
		e->dst = (uint32_t)(k / o.start_events);
		if (sim_timer_init(eng, &e->t, phold_event, e) ||
		    sim_timer_at(eng, &e->t, increment(lps[e->dst])))
			return 3;
	}
	double t0 = phold_clock();
	sim_engine_run(eng, phold_ns(o.end));
	double wall = phold_clock() - t0;
	phold_report(sim_events(eng), wall, checksum);
	for (uint32_t i = 0; i < o.nlp; i++)
		sim_rng_destroy(lps[i]);
	sim_engine_destroy(eng);
	free(evs);
	free(lps);
	return 0;
}
