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
#include <math.h>
#include <pthread.h>

/* GSL's inline gsl_rng_uniform() and friends: a call through the generator's
 * get_double pointer instead of a call to a function that makes it. */
#define HAVE_INLINE 1
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>

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
 * exponential, lognormal and Bernoulli draws do not touch GSL (Poisson
 * counts, which only the bulk calls of the 4096-CPU callback floods draw,
 * and integers wider than one draw still do). Each takes u from the bit mixer above applied to a counter, and
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

/*
 * Exponential draws by Marsaglia and Tsang's ziggurat ("The Ziggurat Method
 * for Generating Random Variables", J. Statistical Software 5(8), 2000):
 * 256 strips of equal area under e^-x, the base strip holding the tail past
 * R. One 32-bit draw gives the strip (its low 8 bits) and the point across
 * it (the other 24 bits, as GSL's gsl_ran_gaussian_ziggurat() splits its
 * draw, so that the two are independent); 97.8% of draws end there, with
 * no logarithm. GSL has a ziggurat for the Gaussian only; its
 * gsl_ran_exponential() takes a log1p() per draw, the largest single cost of
 * the seed hour. tests/check_rng.c holds the draws to GSL's
 * exponential distribution (Kolmogorov-Smirnov, moments, the tail).
 */
#define ZIG_R 7.69711747013104972     /* the base strip's edge */
#define ZIG_V 3.949659822581572e-3    /* each strip's area */
#define ZIG_M 16777216.0              /* 2^24: the point's resolution */
static uint32_t zig_k[256];           /* strip i: points below zig_k[i] lie under the curve */
static double zig_w[256], zig_f[256]; /* strip i: x per point, e^-x at its edge */
static pthread_once_t zig_once = PTHREAD_ONCE_INIT;

/* Marsaglia and Tsang's zigset() for the exponential, at 24 bits. */
static void zig_init(void)
{
	double de = ZIG_R, te = de;
	double q = ZIG_V / exp(-de);
	zig_k[0] = (uint32_t)((de / q) * ZIG_M);
	zig_k[1] = 0;
	zig_w[0] = q / ZIG_M;
	zig_w[255] = de / ZIG_M;
	zig_f[0] = 1.0;
	zig_f[255] = exp(-de);
	for (int i = 254; i >= 1; i--) {
		de = -log(ZIG_V / de + exp(-de));
		zig_k[i + 1] = (uint32_t)((de / te) * ZIG_M);
		te = de;
		zig_f[i] = exp(-de);
		zig_w[i] = de / ZIG_M;
	}
}

/* The slow path: the tail past R, or a point in a strip's wedge, accepted
 * against e^-x or rejected for a fresh draw. */
static double zig_exp_slow(gsl_rng *g, uint32_t u)
{
	for (;;) {
		uint32_t i = u & 0xff, j = u >> 8;
		if (i == 0 && j >= zig_k[0])
			return ZIG_R - log(gsl_rng_uniform_pos(g)); /* memoryless tail */
		double x = j * zig_w[i];
		if (j < zig_k[i])
			return x;
		if (i != 0 && zig_f[i] + gsl_rng_uniform(g) * (zig_f[i - 1] - zig_f[i]) < exp(-x))
			return x;
		u = (uint32_t)gsl_rng_get(g);
	}
}

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
	pthread_once(&zig_once, zig_init);
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
	gsl_rng *g = G(r);
	uint32_t u = (uint32_t)gsl_rng_get(g), i = u & 0xff, j = u >> 8;
	if (__builtin_expect(j < zig_k[i], 1))
		return mean * (j * zig_w[i]);
	return mean * zig_exp_slow(g, u);
}

/*
 * Poisson draws of mean 10 or more by Hormann's transformed rejection with
 * squeeze, PTRS ("The transformed rejection method for generating Poisson
 * random variables", Insurance: Mathematics and Economics 12(1), 1993; the
 * method NumPy uses): two uniforms, and mostly nothing else (the squeeze
 * accepts 86% or more). GSL's gsl_ran_poisson() takes a gamma draw of
 * about 7/8 of the mean (a rejection on tan()), a binomial, and its
 * product of uniforms below mean 10, at a cost that showed as a fifth of
 * the 4096-CPU offloaded minute, whose hogs draw a Poisson count for each
 * stretch they run. Below mean 10, GSL's own (a product of about mean + 1
 * uniforms). tests/check_rng.c holds the draws to GSL's
 * Poisson distribution (chi-square).
 */
static unsigned int ptrs_poisson(gsl_rng *g, double mu)
{
	double smu = sqrt(mu), b = 0.931 + 2.53 * smu, a = -0.059 + 0.02483 * b;
	double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
	for (;;) {
		/* uniform_pos: us > 0, and log(v) finite */
		double u = gsl_rng_uniform_pos(g) - 0.5, v = gsl_rng_uniform_pos(g);
		double us = 0.5 - fabs(u);
		double kf = floor((2 * a / us + b) * u + mu + 0.43);
		if (us >= 0.07 && v <= vr && kf <= UINT32_MAX) /* the squeeze: kf >= 0 from mean 10 */
			return (unsigned int)kf;
		if (kf < 0 || kf > UINT32_MAX || (us < 0.013 && v > us))
			continue;
		unsigned int k = (unsigned int)kf;
		if (log(v) + log(inv_alpha) - log(a / (us * us) + b) <=
		    -mu + kf * log(mu) - gsl_sf_lnfact(k))
			return k;
	}
}

unsigned int sim_rng_poisson(sim_rng *r, double mu)
{
	return mu >= 10 ? ptrs_poisson(G(r), mu) : gsl_ran_poisson(G(r), mu);
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
	/* GSL's gsl_ran_lognormal() takes its Gaussian by the polar method (two
	 * to three uniforms, a log and a square root); its ziggurat takes one
	 * draw mostly. */
	return exp(zeta + gsl_ran_gaussian_ziggurat(G(r), sigma));
}

int sim_rng_bernoulli(sim_rng *r, double p)
{
#ifdef SIM_RNG_NULL_DRAWS
	return null_u() < p;
#endif
	return (int)gsl_ran_bernoulli(G(r), p);
}

unsigned int sim_rng_geometric(sim_rng *r, double p)
{
	return gsl_ran_geometric(G(r), p);
}

void sim_rng_prefetch_state(const sim_rng *r)
{
	__builtin_prefetch(((const gsl_rng *)(const void *)r)->state, 1);
}
