/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * phold_textbook.c - the baseline PHOLD is compared with: a plain textbook
 * 4-ary min-heap of event structs (swap-based sift up and down, ordered by
 * (time, sequence)), and the same stream per LP (sim/rng.c's, seeded the
 * same way and drawn in the same order), so both programs simulate the same
 * events (the checksums agree) and differ only in the pending set.
 */
#include <stdlib.h>

#include "phold_common.h"
#include "rng.h"

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
	sim_rng **lps = calloc(o.nlp, sizeof(*lps));
	heap = malloc((nev + 1) * sizeof(*heap));
	if (!lps || !heap)
		return 3;
	for (uint32_t i = 0; i < o.nlp; i++) {
		if (sim_rng_create(&lps[i], o.taus2 ? SIM_RNG_TAUS2 : SIM_RNG_MT19937, o.seed, "phold.lp", i))
			return 3;
	}
	for (size_t k = 0; k < nev; k++) {
		uint32_t dst = (uint32_t)(k / o.start_events);
		push(phold_ns(o.lookahead + sim_rng_exponential(lps[dst], exp_mean)), dst);
	}
	int64_t end = phold_ns(o.end);
	uint64_t events = 0, checksum = 0;
	double t0 = phold_clock();
	while (n && heap[0].time <= end) {
		event e = pop();
		events++;
		sim_rng *r = lps[e.dst];
		int64_t inc = phold_ns(o.lookahead + sim_rng_exponential(r, exp_mean));
		uint32_t dst = e.dst;
		if (sim_rng_uniform(r) < o.remote)
			dst = (uint32_t)sim_rng_uniform_int(r, o.nlp);
		checksum += dst;
		push(e.time + inc, dst);
	}
	double wall = phold_clock() - t0;
	phold_report(events, wall, checksum);
	for (uint32_t i = 0; i < o.nlp; i++)
		sim_rng_destroy(lps[i]);
	free(lps);
	free(heap);
	return 0;
}
