/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * metrics.c - histograms, time averages, series, the metric container and
 * lookups in a registry of metric names. Lookups by name are linear: a run has tens of metrics, touched at the end
 * or once per sample, never per event.
 */
#include "hash.h"
#include "metrics.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_hist_init(sim_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void sim_hist_drop(sim_hist *h)
{
	uint64_t dropped = h->dropped + h->count;
	sim_hist_init(h);
	h->dropped = dropped;
}

void sim_hist_edges(size_t bin, uint64_t *lo, uint64_t *hi)
{
	assert(bin < SIM_HIST_BINS);
	if (bin < SIM_HIST_LINEAR) {
		*lo = bin;
		*hi = bin + 1;
		return;
	}
	size_t k = bin - SIM_HIST_LINEAR;
	unsigned msb = 7 + (unsigned)(k >> SIM_HIST_SUB_BITS);
	uint64_t sub = k & ((1u << SIM_HIST_SUB_BITS) - 1);
	uint64_t width = UINT64_C(1) << (msb - SIM_HIST_SUB_BITS);
	*lo = (UINT64_C(1) << msb) + sub * width;
	*hi = *lo + width; /* wraps to 0 only for the very last bin */
}

void sim_hist_add_linear(sim_hist *h, uint64_t v0, int64_t d, uint64_t m)
{
	if (!m)
		return;
	uint64_t vl = v0 + (m - 1) * (uint64_t)d; /* modular: exact when the last is >= 0 */
	assert(d >= 0 || (m - 1) * (uint64_t)-d <= v0);
	h->count += m;
	h->sum += (unsigned __int128)((__int128)m * (__int128)v0 +
				      (__int128)d * (__int128)(m * (m - 1) / 2));
	uint64_t lo_v = d >= 0 ? v0 : vl, hi_v = d >= 0 ? vl : v0;
	if (lo_v < h->min)
		h->min = lo_v;
	if (hi_v > h->max)
		h->max = hi_v;
	size_t b_last = sim_hist_bin(vl);
	if (d == 0 || sim_hist_bin(v0) == b_last) { /* monotone: all in one bin */
		h->bins[b_last] += m;
		return;
	}
	/* Bin by bin, when the bins spanned are no more than the samples: each
	 * bin's count is the difference of two counts of samples beyond an
	 * edge, each a division of its own, so the divisions do not wait
	 * for one another as they do sample run by sample run below. */
	size_t b0 = sim_hist_bin(v0);
	uint64_t ad = d > 0 ? (uint64_t)d : (uint64_t)-d;
	if (d < 0 && b0 - b_last < m) {
		uint64_t prev = 0; /* samples >= the upper edge of bin b */
		for (size_t b = b0; b + 1 > b_last; b--) {
			uint64_t lo, hi;
			sim_hist_edges(b, &lo, &hi);
			uint64_t c = b == b_last ? m : (v0 - lo) / ad + 1; /* samples >= lo */
			h->bins[b] += c - prev;
			prev = c;
		}
		return;
	}
	if (d > 0 && b_last - b0 < m) {
		uint64_t prev = 0; /* samples below the lower edge of bin b */
		for (size_t b = b0; b <= b_last; b++) {
			uint64_t lo, hi;
			sim_hist_edges(b, &lo, &hi);
			uint64_t c = b == b_last ? m : (hi - v0 + ad - 1) / ad; /* samples < hi */
			h->bins[b] += c - prev;
			prev = c;
		}
		return;
	}
	for (uint64_t i = 0; i < m;) {
		uint64_t v = v0 + i * (uint64_t)d, lo, hi, k;
		size_t b = sim_hist_bin(v);
		sim_hist_edges(b, &lo, &hi);
		if (d > 0) /* v + k d reaches hi (or never, in the last bin) */
			k = hi ? (hi - v + (uint64_t)d - 1) / (uint64_t)d : m - i;
		else       /* v - k |d| stays at or above lo for k + 1 samples */
			k = (v - lo) / (uint64_t)-d + 1;
		if (k > m - i)
			k = m - i;
		h->bins[b] += k;
		i += k;
	}
}

double sim_hist_mean(const sim_hist *h)
{
	if (!h->count)
		return 0;
	/* Split the division so that the 128-bit sum keeps its precision. */
	unsigned __int128 q = h->sum / h->count, r = h->sum % h->count;
	return (double)q + (double)r / (double)h->count;
}

double sim_hist_quantile(const sim_hist *h, double q)
{
	if (!h->count)
		return 0;
	if (q <= 0)
		return (double)h->min;
	if (q >= 1)
		return (double)h->max;
	uint64_t rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (size_t b = 0; b < SIM_HIST_BINS; b++) {
		seen += h->bins[b];
		if (seen >= rank) {
			uint64_t lo, hi;
			sim_hist_edges(b, &lo, &hi);
			double mid = b < SIM_HIST_LINEAR ? (double)lo
							 : ((double)lo + (double)(hi - 1)) / 2;
			if (mid < (double)h->min)
				mid = (double)h->min;
			if (mid > (double)h->max)
				mid = (double)h->max;
			return mid;
		}
	}
	return (double)h->max;
}

void sim_hist_merge(sim_hist *dst, const sim_hist *src)
{
	dst->count += src->count;
	dst->dropped += src->dropped;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (size_t b = 0; b < SIM_HIST_BINS; b++)
		dst->bins[b] += src->bins[b];
}

void sim_tavg_init(sim_tavg *a, sim_time t0, int64_t value)
{
	a->t0 = t0;
	a->t_last = t0;
	a->value = value;
	a->max = value;
	a->area = 0;
}

double sim_tavg_mean(const sim_tavg *a, sim_time now)
{
	assert(now >= a->t_last);
	if (now == a->t0)
		return (double)a->value;
	__int128 area = a->area + (__int128)a->value * (now - a->t_last);
	__int128 span = now - a->t0;
	__int128 q = area / span, r = area % span;
	return (double)q + (double)r / (double)span;
}

/* ---- registry ---------------------------------------------------------- */

/* Linear in @ndefs (tens of entries). */
const sim_metric_def *sim_metric_find(const sim_metric_def *defs, size_t ndefs, const char *name,
				      sim_metric_kind kind)
{
	for (size_t k = 0; k < ndefs; k++)
		if (defs[k].kind == kind && !strcmp(defs[k].name, name))
			return &defs[k];
	/* A load's: "a.LOAD.b" is defined as "a.b" (sim_metrics_absorb()). */
	const char *d1 = strchr(name, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
	char base[256];
	if (!d2 || strchr(d2 + 1, '.') ||
	    snprintf(base, sizeof(base), "%.*s%s", (int)(d1 - name), name, d2) >= (int)sizeof(base))
		return NULL;
	for (size_t k = 0; k < ndefs; k++)
		if (defs[k].kind == kind && !strcmp(defs[k].name, base))
			return &defs[k];
	return NULL;
}

/* A static string; "?" for a value outside the enum. */
const char *sim_metric_kind_name(sim_metric_kind kind)
{
	switch (kind) {
	case SIM_M_SCALAR:
		return "scalar";
	case SIM_M_SERIES:
		return "series";
	case SIM_M_HIST:
		return "hist";
	}
	return "?";
}

/* ---- container --------------------------------------------------------- */

typedef struct scalar {
	const char *name; /* static, or owned (see owned names) */
	double v;
} scalar;

typedef struct named_hist {
	const char *name;
	sim_hist *h;
} named_hist;

struct sim_metrics {
	scalar *sc;          /* scalars in order of first setting */
	size_t nsc, capsc;
	sim_series **se;     /* series in order of creation */
	size_t nse, capse;
	uint32_t *se_index;  /* open-addressing hash of (name, cpu) -> se index + 1; 0 = empty */
	size_t se_slots;     /* slots in se_index, a power of two (0 before the first series) */
	named_hist *hi;      /* histograms in order of creation */
	size_t nhi, caphi;
	char **names;        /* names built by sim_metrics_hist_scalars, owned */
	size_t nnames, capnames;
};

/* Make room for one more element of size @sz in *@arr. */
static int grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	void *na = realloc(*arr, nc * sz);
	if (!na)
		return SIM_ENOMEM;
	*arr = na;
	*cap = nc;
	return 0;
}

int sim_metrics_create(sim_metrics **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -1;
}

void sim_metrics_destroy(sim_metrics *m)
{
	if (!m)
		return;
	for (size_t k = 0; k < m->nse; k++) {
		free(m->se[k]->t);
		free(m->se[k]->v);
		free(m->se[k]);
	}
	for (size_t k = 0; k < m->nhi; k++)
		free(m->hi[k].h);
	for (size_t k = 0; k < m->nnames; k++)
		free(m->names[k]);
	free(m->sc);
	free(m->se);
	free(m->se_index);
	free(m->hi);
	free(m->names);
	free(m);
}

/* @name with @scope after its first word ("a.b" -> "a.SCOPE.b"), owned
 * by @m; NULL if out of memory. */
static const char *scoped_name(sim_metrics *m, const char *name, const char *scope)
{
	const char *dot = strchr(name, '.');
	size_t len = strlen(name) + strlen(scope) + 2;
	char *s = malloc(len);
	if (!s || grow((void **)&m->names, &m->capnames, m->nnames, sizeof(*m->names))) {
		free(s);
		return NULL;
	}
	if (dot)
		snprintf(s, len, "%.*s.%s%s", (int)(dot - name), name, scope, dot);
	else
		snprintf(s, len, "%s.%s", name, scope);
	m->names[m->nnames++] = s;
	return s;
}

int sim_metrics_absorb(sim_metrics *dst, const sim_metrics *src, const char *scope)
{
	for (size_t k = 0; k < src->nsc; k++) {
		const char *n = scoped_name(dst, src->sc[k].name, scope);
		if (!n || sim_metrics_scalar(dst, n, src->sc[k].v))
			return SIM_ENOMEM;
	}
	for (size_t k = 0; k < src->nhi; k++) {
		const char *n = scoped_name(dst, src->hi[k].name, scope);
		sim_hist *h = n ? sim_metrics_hist(dst, n) : NULL;
		if (!h)
			return SIM_ENOMEM;
		sim_hist_merge(h, src->hi[k].h);
	}
	for (size_t k = 0; k < src->nse; k++) {
		const sim_series *s = src->se[k];
		const char *n = scoped_name(dst, s->name, scope);
		sim_series *d = n ? sim_metrics_series(dst, n, s->cpu) : NULL;
		if (!d)
			return SIM_ENOMEM;
		for (size_t i = 0; i < s->n; i++)
			if (sim_series_append(d, s->t[i], s->v[i]))
				return SIM_ENOMEM;
	}
	return 0;
}

int sim_metrics_scalar(sim_metrics *m, const char *name, double v)
{
	for (size_t k = 0; k < m->nsc; k++)
		if (!strcmp(m->sc[k].name, name)) {
			m->sc[k].v = v;
			return 0;
		}
	if (grow((void **)&m->sc, &m->capsc, m->nsc, sizeof(*m->sc)))
		return SIM_ENOMEM;
	m->sc[m->nsc++] = (scalar){ name, v };
	return 0;
}

static uint64_t series_hash(const char *name, int cpu)
{
	uint64_t h = sim_fnv1a_str(SIM_FNV1A_BASIS, name);
	return (h ^ (uint64_t)(uint32_t)cpu) * UINT64_C(0x9e3779b97f4a7c15);
}

/* Rebuild the series index with @slots slots. */
static int series_reindex(sim_metrics *m, size_t slots)
{
	uint32_t *idx = calloc(slots, sizeof(*idx));
	if (!idx)
		return SIM_ENOMEM;
	for (size_t k = 0; k < m->nse; k++) {
		size_t i = series_hash(m->se[k]->name, m->se[k]->cpu) & (slots - 1);
		while (idx[i])
			i = (i + 1) & (slots - 1);
		idx[i] = (uint32_t)(k + 1);
	}
	free(m->se_index);
	m->se_index = idx;
	m->se_slots = slots;
	return 0;
}

sim_series *sim_metrics_series(sim_metrics *m, const char *name, int cpu)
{
	/* Hashed: models with thousands of CPUs look up a series per CPU per
	 * sample. */
	size_t i = 0;
	if (m->se_slots) {
		i = series_hash(name, cpu) & (m->se_slots - 1);
		for (; m->se_index[i]; i = (i + 1) & (m->se_slots - 1)) {
			sim_series *s = m->se[m->se_index[i] - 1];
			if (s->cpu == cpu && !strcmp(s->name, name))
				return s;
		}
	}
	if (grow((void **)&m->se, &m->capse, m->nse, sizeof(*m->se)))
		return NULL;
	sim_series *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->name = name;
	s->cpu = cpu;
	m->se[m->nse++] = s;
	if (2 * m->nse > m->se_slots) {
		if (series_reindex(m, m->se_slots ? 2 * m->se_slots : 64))
			return NULL;
	} else {
		m->se_index[i] = (uint32_t)m->nse;
	}
	return s;
}

int sim_series_append(sim_series *s, sim_time t, double v)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		sim_time *nt = realloc(s->t, nc * sizeof(*nt));
		if (!nt)
			return SIM_ENOMEM;
		s->t = nt;
		double *nv = realloc(s->v, nc * sizeof(*nv));
		if (!nv)
			return SIM_ENOMEM;
		s->v = nv;
		s->cap = nc;
	}
	s->t[s->n] = t;
	s->v[s->n] = v;
	s->n++;
	return 0;
}

sim_hist *sim_metrics_hist(sim_metrics *m, const char *name)
{
	for (size_t k = 0; k < m->nhi; k++)
		if (!strcmp(m->hi[k].name, name))
			return m->hi[k].h;
	if (grow((void **)&m->hi, &m->caphi, m->nhi, sizeof(*m->hi)))
		return NULL;
	sim_hist *h = malloc(sizeof(*h));
	if (!h)
		return NULL;
	sim_hist_init(h);
	m->hi[m->nhi++] = (named_hist){ name, h };
	return h;
}

void sim_metrics_drop_hists(sim_metrics *m)
{
	for (size_t k = 0; k < m->nhi; k++)
		sim_hist_drop(m->hi[k].h);
}

/* A name "prefix" + "suffix" that lives as long as @m. */
static const char *own_name(sim_metrics *m, const char *prefix, const char *suffix)
{
	if (grow((void **)&m->names, &m->capnames, m->nnames, sizeof(*m->names)))
		return NULL;
	size_t len = strlen(prefix) + strlen(suffix) + 1;
	char *s = malloc(len);
	if (!s)
		return NULL;
	snprintf(s, len, "%s%s", prefix, suffix);
	m->names[m->nnames++] = s;
	return s;
}

int sim_metrics_hist_scalars(sim_metrics *m, const char *prefix, const sim_hist *h, unsigned want)
{
	static const struct {
		unsigned flag;
		const char *suffix;
		double q; /* < 0: mean */
	} qs[] = {
		{ SIM_Q_MEAN, "_mean_ns", -1 }, { SIM_Q_P50, "_p50_ns", 0.5 },
		{ SIM_Q_P99, "_p99_ns", 0.99 }, { SIM_Q_P999, "_p999_ns", 0.999 },
		{ SIM_Q_MAX, "_max_ns", 1.0 },
	};
	if (!h->count)
		return 0;
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		if (!(want & qs[k].flag))
			continue;
		const char *name = own_name(m, prefix, qs[k].suffix);
		double v = qs[k].q < 0 ? sim_hist_mean(h) : sim_hist_quantile(h, qs[k].q);
		if (!name || sim_metrics_scalar(m, name, v))
			return SIM_ENOMEM;
	}
	return 0;
}

size_t sim_metrics_nscalars(const sim_metrics *m)
{
	return m->nsc;
}

const char *sim_metrics_scalar_name(const sim_metrics *m, size_t i)
{
	return m->sc[i].name;
}

double sim_metrics_scalar_value(const sim_metrics *m, size_t i)
{
	return m->sc[i].v;
}

bool sim_metrics_get(const sim_metrics *m, const char *name, double *v)
{
	for (size_t k = 0; k < m->nsc; k++)
		if (!strcmp(m->sc[k].name, name)) {
			*v = m->sc[k].v;
			return true;
		}
	return false;
}

size_t sim_metrics_nseries(const sim_metrics *m)
{
	return m->nse;
}

const sim_series *sim_metrics_series_at(const sim_metrics *m, size_t i)
{
	return m->se[i];
}

size_t sim_metrics_nhists(const sim_metrics *m)
{
	return m->nhi;
}

const char *sim_metrics_hist_name(const sim_metrics *m, size_t i)
{
	return m->hi[i].name;
}

const sim_hist *sim_metrics_hist_at(const sim_metrics *m, size_t i)
{
	return m->hi[i].h;
}
