/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rng.h - random number streams (GSL underneath; models never see GSL).
 *
 * Every stream is named by (model part, index) - e.g. ("rcu.callrcu", cpu) -
 * and seeded from a hash of the scenario seed, the part name and the index,
 * so that adding draws in one part never perturbs another part's stream.
 */
#ifndef RCUSIM_SIM_RNG_H
#define RCUSIM_SIM_RNG_H

#include <stdint.h>

typedef struct sim_rng sim_rng;

/* Generators that a scenario can choose (scenario.rng). */
typedef enum sim_rng_kind {
	SIM_RNG_MT19937 = 0, /* Mersenne Twister: GSL's default, 2.5 KiB state */
	SIM_RNG_TAUS2 = 1,   /* L'Ecuyer's maximally equidistributed Tausworthe: 24 B state */
	SIM_RNG_RANLXD2 = 2, /* RANLUX, luxury level 2: slow, highest quality */
} sim_rng_kind;

/* Create the stream (@part, @index) of scenario seed @seed. Returns 0 or
 * SIM_ENOMEM on allocation failure (GSL's aborting error handler is turned
 * off, process-wide, first). Free with sim_rng_destroy(). */
int sim_rng_create(sim_rng **out, sim_rng_kind kind, uint64_t seed, const char *part,
		   uint64_t index);
/* NULL is a no-op. */
void sim_rng_destroy(sim_rng *r);

/* The 32-bit seed that sim_rng_create() hands to GSL for this stream (GSL's
 * generators take 32 bits of seed). */
uint32_t sim_rng_derive_seed(uint64_t seed, const char *part, uint64_t index);

/* Uniform on [0, 1). */
double sim_rng_uniform(sim_rng *r);
/* Uniform on (0, 1). */
double sim_rng_uniform_pos(sim_rng *r);
/* Uniform integer on [0, n), n >= 1 (n may exceed the generator's range:
 * then two draws are combined). */
uint64_t sim_rng_uniform_int(sim_rng *r, uint64_t n);
/* Exponential with mean @mean (Marsaglia and Tsang's ziggurat). */
double sim_rng_exponential(sim_rng *r, double mean);
/* Poisson count with mean @mu (Hormann's PTRS from mean 10, GSL's below). */
unsigned int sim_rng_poisson(sim_rng *r, double mu);
/* Lognormal with log-mean @zeta and log-sd @sigma (e to GSL's ziggurat
 * Gaussian). */
double sim_rng_lognormal(sim_rng *r, double zeta, double sigma);
/* Hints that @r will be drawn from soon: fetch its handle (no load), or
 * its state (which loads the handle). Draws are unaffected. */
static inline void sim_rng_prefetch(const sim_rng *r)
{
	__builtin_prefetch(r);
}
void sim_rng_prefetch_state(const sim_rng *r);
/* Bernoulli trial: 1 with probability @p. */
int sim_rng_bernoulli(sim_rng *r, double p);
/* Geometric: the trials up to and including the first success of
 * probability @p (>= 1, mean 1 / @p; GSL's gsl_ran_geometric). */
unsigned int sim_rng_geometric(sim_rng *r, double p);

#endif
