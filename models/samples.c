/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * samples.c - the bound on what a run's series may hold. Every series is
 * sampled every scenario.sample_interval from t = 0 to scenario.duration,
 * held in memory for the whole run (16 bytes a point: its time and value)
 * and written to the database at its end; some series are per CPU. A run
 * whose series would exceed MODEL_SAMPLE_POINTS_MAX points is refused
 * before anything is recorded, with what it would need, rather than left
 * to exhaust memory hours into the run. The count is a lower bound: the
 * series every run of the model records (the kernel model adds up to ten
 * machine-wide series for Tree RCU, offloading and the file table).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

/* Bytes a sample point takes in memory (sim_series: a sim_time and a double). */
#define POINT_BYTES 16

/* @ns (> 0) rounded up to a whole number of the largest unit it reaches, as
 * a scenario file writes a time ("3s", "480us"). */
static void fmt_time_up(double ns, char *buf, size_t len)
{
	static const struct { double ns; const char *unit; } u[] = {
		{ 3600e9, "h" }, { 60e9, "min" }, { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" },
	};
	size_t k = 0;
	while (k + 1 < sizeof(u) / sizeof(u[0]) && ns < u[k].ns)
		k++;
	snprintf(buf, len, "%.0f%s", ceil(ns / u[k].ns), u[k].unit);
}

/* @b bytes as "1.5 GiB". */
static void fmt_bytes(double b, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	size_t k = 0;
	while (b >= 1024 && k + 1 < sizeof(u) / sizeof(u[0])) {
		b /= 1024;
		k++;
	}
	snprintf(buf, len, k ? "%.3g %s" : "%.0f %s", b, u[k]);
}

int model_samples_validate(const sim_params *p, char *err, size_t errlen)
{
	sim_time interval = sim_params_int(p, P_SCENARIO_SAMPLE_INTERVAL);
	sim_time duration = sim_params_int(p, P_SCENARIO_DURATION);
	double ncpus = machine_ncpus(p);
	/* Which model runs (run.c's choice by workload.kind), not a part's name. */
	bool queue = !strcmp(sim_params_text(p, P_WORKLOAD_KIND), "queue");
	/* queue: cb.qlen of each CPU and of all; kernel: cb.qlen and
	 * softirq.busy_frac of each CPU and of all, ksoftirqd.runnable. */
	double per_cpu = queue ? 1 : 2, machine = queue ? 1 : 3;
	double series = per_cpu * ncpus + machine;
	double samples = (double)(duration / interval) + 1;
	double points = samples * series;
	if (points <= MODEL_SAMPLE_POINTS_MAX)
		return 0;
	/* At most 2 x 65536 x 64 + 3 series: each can hold 11 points or more. */
	double per_series = floor((double)MODEL_SAMPLE_POINTS_MAX / series);
	assert(per_series >= 2);
	char a[512], need[32], cap[32], least[32];
	sim_params_where(p, P_SCENARIO_SAMPLE_INTERVAL, a, sizeof(a));
	fmt_bytes(points * POINT_BYTES, need, sizeof(need));
	fmt_bytes((double)MODEL_SAMPLE_POINTS_MAX * POINT_BYTES, cap, sizeof(cap));
	fmt_time_up((double)duration / (per_series - 1), least, sizeof(least));
	snprintf(err, errlen,
		 "%s: %s over scenario.duration = %s is %.0f samples of each of at least %.0f series "
		 "(%.0f per CPU on %.0f CPU%s, %.0f machine-wide): %.0f points, %s in memory, over the "
		 "limit of %.0f points (%s); use an interval of at least %s or a shorter duration",
		 a, sim_params_text(p, P_SCENARIO_SAMPLE_INTERVAL),
		 sim_params_text(p, P_SCENARIO_DURATION), samples, series, per_cpu, ncpus, ncpus == 1 ? "" : "s", machine,
		 points, need, (double)MODEL_SAMPLE_POINTS_MAX, cap, least);
	return SIM_EINPUT;
}

int model_samples_fit(double duration_ns, double interval_ns, double series, double max_points, char *msg,
		      size_t len)
{
	assert(interval_ns > 0 && series >= 1 && max_points >= 1);
	double samples = floor(duration_ns / interval_ns) + 1;
	double points = samples * series;
	if (points <= max_points)
		return 0;
	char need[32], cap[32], least[32];
	fmt_bytes(points * POINT_BYTES, need, sizeof(need));
	fmt_bytes(max_points * POINT_BYTES, cap, sizeof(cap));
	double per_series = floor(max_points / series);
	if (per_series >= 2)
		fmt_time_up(duration_ns / (per_series - 1), least, sizeof(least));
	snprintf(msg, len,
		 "%.0f samples of each of %.0f series: %.0f points, %s in memory, over the limit of %.0f "
		 "points (%s); %s%s",
		 samples, series, points, need, max_points, cap,
		 per_series >= 2 ? "use an interval of at least " : "no interval fits so many series",
		 per_series >= 2 ? least : "");
	return SIM_EINPUT;
}
