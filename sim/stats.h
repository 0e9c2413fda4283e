/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * stats.h - the statistics the reports need over a few runs' values (GSL
 * underneath; cli/ never sees GSL): a running mean and its confidence
 * interval by Student's t, the least-squares line calibrate fits, and the
 * values a report collects one at a time to sort for its quantiles.
 */
#ifndef RCUSIM_SIM_STATS_H
#define RCUSIM_SIM_STATS_H

#include <stddef.h>

/* A running mean of values added one at a time (Welford's method: the
 * mean and the sum of squared deviations from it, stable in one pass).
 * Zero-initialised it holds no value. */
typedef struct sim_mean {
	size_t n;    /* values added */
	double mean; /* their mean (0 while none) */
	double m2;   /* the sum of their squared deviations from the mean */
} sim_mean;

/* Add @v to @m. */
void sim_mean_add(sim_mean *m, double v);
/* The half-width of the 95% confidence interval of @m's mean, Student's t
 * with n - 1 degrees of freedom: t(0.975, n - 1) * s / sqrt(n), s the
 * sample standard deviation. 0 while @m holds fewer than two values. */
double sim_mean_ci95(const sim_mean *m);

/* A least-squares line y = c0 + c1 x (gsl_fit_linear). */
typedef struct sim_fit {
	size_t n;        /* points */
	double c0, c1;   /* intercept, slope */
	double sd0, sd1; /* their standard errors (sqrt of the covariance's diagonal) */
	double sd_resid; /* the residuals' standard deviation, sqrt(sumsq / (n - 2)) */
	double r2;       /* the share of y's variance the line explains */
} sim_fit;

/* Fit @n points (@x[i], @y[i]): 0, or -1 when they cannot make a line
 * (fewer than 3, or every x the same). */
int sim_fit_linear(const double *x, const double *y, size_t n, sim_fit *out);

/* Values collected one at a time (a trace's run lengths, hold times, a
 * fit's coordinates). Zero-initialised: empty. */
typedef struct sim_values {
	double *v;
	size_t n, cap;
} sim_values;

/* Add @x: 0, or -1 (out of memory; @a is as it was). */
int sim_values_add(sim_values *a, double x);
/* Sort @a's values ascending (gsl_sort), for a quantile by index. */
void sim_values_sort(sim_values *a);
void sim_values_free(sim_values *a);

#endif
