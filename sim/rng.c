/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rng.c - GSL generator streams with seeds derived per (part, index).
 *
 * The derivation hashes the scenario seed, an FNV-1a hash of the part name
 * and the index through the splitmix64 finaliser (a bit mixer, not a
 * generator: every draw comes from GSL). GSL seeds its generators from 32
 * bits, so two streams of one run collide with probability about
 * k^2 / 2^33 for k streams (about 2e-3 for 4096); a collision makes two
 * streams equal, never breaks determinism. (A benchmark-only build,
 * SIM_RNG_NULL_DRAWS, replaces the draws; see below.)
 *
 * GSL's default error handler aborts the process (on a failed allocation in
 * gsl_rng_alloc(), for one): sim_rng_create() turns it off, so that GSL
 * returns its error instead and a run out of memory ends as SIM_ENOMEM
 * (exit status 3, the run 'failed'), never in abort().
 */
#include "rng.h"
#include "error.h"
#include "hash.h"

#include <assert.h>
#ifdef SIM_RNG_NULL_DRAWS
#include <math.h>
#endif

/* GSL's inline gsl_rng_uniform() and friends: a call through the generator's
 * get_double pointer instead of a call to a function that makes it. */
#define HAVE_INLINE 1
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

/* sim_rng is never defined: a sim_rng * is a gsl_rng * under another name,
 * so that models cannot reach GSL and draws cost no extra indirection. */
static inline gsl_rng *G(sim_rng *r)
{
	return (gsl_rng *)(void *)r;
}

static uint64_t mix64(uint64_t z)
{
	z += UINT64_C(0x9e3779b97f4a7c15);
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

#ifdef SIM_RNG_NULL_DRAWS
/* Benchmark builds only (rcusim_nodraws, bench/nodraws.sh): the uniform,
 * exponential, lognormal and Bernoulli draws (all the models make) do not
 * touch GSL. Each takes u from the bit mixer above applied to a counter, and
 * returns the distribution's mean scaled by 2u (a uniform, u itself), so
 * that a run keeps its load on average (the same opens, holds and
 * callbacks) while a draw costs a few instructions. What such a build
 * records is not the model's result: its version ends in "-nodraws". */
static _Thread_local uint64_t null_n;
static inline double null_u(void)
{
	return (double)(mix64(++null_n) >> 11) * 0x1.0p-53;
}
#endif

uint32_t sim_rng_derive_seed(uint64_t seed, const char *part, uint64_t index)
{
	uint64_t h = sim_fnv1a_str(SIM_FNV1A_BASIS, part);
	uint64_t z = mix64(mix64(mix64(seed) ^ h) ^ index);
	uint32_t s = (uint32_t)(z ^ (z >> 32));
	return s ? s : 1; /* some GSL generators treat 0 as "default seed" */
}

int sim_rng_create(sim_rng **out, sim_rng_kind kind, uint64_t seed, const char *part,
		   uint64_t index)
{
	const gsl_rng_type *type;
	switch (kind) {
	case SIM_RNG_TAUS2:
		type = gsl_rng_taus2;
		break;
	case SIM_RNG_RANLXD2:
		type = gsl_rng_ranlxd2;
		break;
	case SIM_RNG_MT19937:
	default:
		type = gsl_rng_mt19937;
		break;
	}
	/* Process-wide, and idempotent: the only GSL calls that can fail are
	 * this module's allocations, and each result is checked. */
	gsl_set_error_handler_off();
	gsl_rng *r = gsl_rng_alloc(type);
	if (!r)
		return SIM_ENOMEM;
	gsl_rng_set(r, sim_rng_derive_seed(seed, part, index));
	*out = (sim_rng *)(void *)r;
	return 0;
}

void sim_rng_destroy(sim_rng *r)
{
	if (r)
		gsl_rng_free(G(r));
}

double sim_rng_uniform(sim_rng *r)
{
#ifdef SIM_RNG_NULL_DRAWS
	return null_u();
#endif
	return gsl_rng_uniform(G(r));
}

double sim_rng_uniform_pos(sim_rng *r)
{
#ifdef SIM_RNG_NULL_DRAWS
	double u = null_u();
	return u > 0 ? u : 0x1.0p-53;
#endif
	return gsl_rng_uniform_pos(G(r));
}

uint64_t sim_rng_uniform_int(sim_rng *r, uint64_t n)
{
	gsl_rng *g = G(r);
	assert(n >= 1);
	if (n <= gsl_rng_max(g) - gsl_rng_min(g))
		return gsl_rng_uniform_int(g, (unsigned long)n);
	/* Wider than one draw: 64 bits from two full-range 32-bit draws (all
	 * three generators offered have min 0, max 2^32 - 1), tail rejected. */
	assert(gsl_rng_min(g) == 0 && gsl_rng_max(g) == UINT32_MAX);
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	for (;;) {
		uint64_t hi = gsl_rng_get(g); /* two statements: draw order is fixed */
		uint64_t v = hi << 32 | gsl_rng_get(g);
		if (v < limit)
			return v % n;
	}
}

double sim_rng_exponential(sim_rng *r, double mean)
{
#ifdef SIM_RNG_NULL_DRAWS
	return mean * 2 * null_u();
#endif
	return gsl_ran_exponential(G(r), mean);
}

unsigned int sim_rng_poisson(sim_rng *r, double mu)
{
	return gsl_ran_poisson(G(r), mu);
}

double sim_rng_lognormal(sim_rng *r, double zeta, double sigma)
{
#ifdef SIM_RNG_NULL_DRAWS
	/* The mean, exp(zeta + sigma^2 / 2), kept for the last (zeta, sigma). */
	static _Thread_local double lz = NAN, ls = NAN, lm;
	if (zeta != lz || sigma != ls) {
		lz = zeta;
		ls = sigma;
		lm = exp(zeta + sigma * sigma / 2);
	}
	return lm * 2 * null_u();
#endif
	return gsl_ran_lognormal(G(r), zeta, sigma);
}

int sim_rng_bernoulli(sim_rng *r, double p)
{
#ifdef SIM_RNG_NULL_DRAWS
	return null_u() < p;
#endif
	return (int)gsl_ran_bernoulli(G(r), p);
}

void sim_rng_prefetch_state(const sim_rng *r)
{
	__builtin_prefetch(((const gsl_rng *)(const void *)r)->state, 1);
}
