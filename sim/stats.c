/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * stats.c - running means and their intervals, least-squares lines
 * (stats.h), values sorted for their quantiles; GSL's t distribution,
 * gsl_fit_linear and gsl_sort underneath.
 */
#include "stats.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>

void sim_mean_add(sim_mean *m, double v)
{
	assert(m);
	m->n++;
	double d = v - m->mean;
	m->mean += d / (double)m->n;
	m->m2 += d * (v - m->mean);
}

double sim_mean_ci95(const sim_mean *m)
{
	assert(m);
	if (m->n < 2)
		return 0;
	double var = m->m2 / (double)(m->n - 1);
	return gsl_cdf_tdist_Pinv(0.975, (double)(m->n - 1)) * sqrt(var > 0 ? var : 0) / sqrt((double)m->n);
}

int sim_fit_linear(const double *x, const double *y, size_t n, sim_fit *out)
{
	assert(x && y && out);
	*out = (sim_fit){ .n = n };
	if (n < 3)
		return -1;
	size_t i = 1;
	while (i < n && x[i] == x[0])
		i++;
	if (i == n)
		return -1;
	double c0, c1, cov00, cov01, cov11, sumsq;
	if (gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq))
		return -1;
	double tss = gsl_stats_tss(y, 1, n);
	out->c0 = c0;
	out->c1 = c1;
	out->sd0 = sqrt(cov00 > 0 ? cov00 : 0);
	out->sd1 = sqrt(cov11 > 0 ? cov11 : 0);
	out->sd_resid = sqrt(sumsq / (double)(n - 2));
	out->r2 = tss > 0 ? 1 - sumsq / tss : 0;
	return 0;
}

int sim_values_add(sim_values *a, double x)
{
	if (a->n == a->cap) {
		size_t nc = a->cap ? 2 * a->cap : 1024;
		double *v = realloc(a->v, nc * sizeof(*v));
		if (!v)
			return -1;
		a->v = v;
		a->cap = nc;
	}
	a->v[a->n++] = x;
	return 0;
}

void sim_values_sort(sim_values *a)
{
	if (a->n)
		gsl_sort(a->v, 1, a->n);
}

void sim_values_free(sim_values *a)
{
	free(a->v);
	*a = (sim_values){ 0 };
}
