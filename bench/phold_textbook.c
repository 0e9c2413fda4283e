/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * phold_textbook.c - the baseline PHOLD is compared with: a plain textbook
 * 4-ary min-heap of event structs (swap-based sift up and down, ordered by
 * (time, sequence)), and the same GSL stream per LP, seeded the same
 * way and drawn in the same order, so both programs simulate the same events
 * (the checksums agree).
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "hash.h"
#include "phold_common.h"

/* Same seeds as sim/rng.c: FNV-1a of the part name, splitmix64 finaliser. */
static uint64_t mix64(uint64_t z)
{
	z += UINT64_C(0x9e3779b97f4a7c15);
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static unsigned long seed_of(uint64_t seed, const char *part, uint64_t index)
{
	uint64_t h = sim_fnv1a_str(SIM_FNV1A_BASIS, part);
	uint64_t z = mix64(mix64(mix64(seed) ^ h) ^ index);
	uint32_t s = (uint32_t)(z ^ (z >> 32));
	return s ? s : 1;
}

typedef struct event {
	int64_t time;  /* ns */
	uint64_t seq;  /* tie-breaker: scheduling order */
	uint32_t dst;  /* destination LP */
} event;

static event *heap;
static size_t n;
static uint64_t seq;

static int before(const event *a, const event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void swap(size_t i, size_t j)
{
	event t = heap[i];
	heap[i] = heap[j];
	heap[j] = t;
}

static void push(int64_t time, uint32_t dst)
{
	size_t i = n++;
	heap[i] = (event){ time, ++seq, dst };
	while (i > 0 && before(&heap[i], &heap[(i - 1) / 4])) {
		swap(i, (i - 1) / 4);
		i = (i - 1) / 4;
	}
}

static event pop(void)
{
	event top = heap[0];
	heap[0] = heap[--n];
	size_t i = 0;
	for (;;) {
		size_t best = i;
		for (size_t c = 4 * i + 1; c <= 4 * i + 4 && c < n; c++)
			if (before(&heap[c], &heap[best]))
				best = c;
		if (best == i)
			break;
		swap(i, best);
		i = best;
	}
	return top;
}

int main(int argc, char **argv)
{
	phold_opts o;
	if (phold_parse(argc, argv, &o))
		return 2;
	double exp_mean = o.mean - o.lookahead;
	size_t nev = (size_t)o.nlp * o.start_events;
	gsl_rng **lps = calloc(o.nlp, sizeof(*lps));
	heap = malloc((nev + 1) * sizeof(*heap));
	if (!lps || !heap)
		return 3;
	for (uint32_t i = 0; i < o.nlp; i++) {
		lps[i] = gsl_rng_alloc(o.taus2 ? gsl_rng_taus2 : gsl_rng_mt19937);
		if (!lps[i])
			return 3;
		gsl_rng_set(lps[i], seed_of(o.seed, "phold.lp", i));
	}
	for (size_t k = 0; k < nev; k++) {
		uint32_t dst = (uint32_t)(k / o.start_events);
		push(phold_ns(o.lookahead + gsl_ran_exponential(lps[dst], exp_mean)), dst);
	}
	int64_t end = phold_ns(o.end);
	uint64_t events = 0, checksum = 0;
	double t0 = phold_clock();
	while (n && heap[0].time <= end) {
		event e = pop();
		events++;
		gsl_rng *r = lps[e.dst];
		int64_t inc = phold_ns(o.lookahead + gsl_ran_exponential(r, exp_mean));
		uint32_t dst = e.dst;
		if (gsl_rng_uniform(r) < o.remote)
			dst = (uint32_t)gsl_rng_uniform_int(r, o.nlp);
		checksum += dst;
		push(e.time + inc, dst);
	}
	double wall = phold_clock() - t0;
	phold_report(events, wall, checksum);
	for (uint32_t i = 0; i < o.nlp; i++)
		gsl_rng_free(lps[i]);
	free(lps);
	free(heap);
	return 0;
}
