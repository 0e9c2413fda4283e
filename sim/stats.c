/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * stats.c - running means and their intervals (stats.h); GSL's t
 * distribution underneath.
 */
#include "stats.h"

#include <assert.h>
#include <math.h>

#include <gsl/gsl_cdf.h>

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
