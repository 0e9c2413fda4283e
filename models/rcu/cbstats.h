/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cbstats.h - what every callback model counts (queued, invoked, the
 * machine-wide queue over time, each callback's latency) and the one
 * writer of the cb.* metrics and their conservation check, shared by the
 * kernel model and the engine's queue check.
 * No kernel counterpart: what rcusim counts of any flavor.
 */
#ifndef RCUSIM_MODELS_CBSTATS_H
#define RCUSIM_MODELS_CBSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"

typedef struct cb_stats {
	uint64_t enqueued;   /* callbacks queued (call_rcu) */
	uint64_t invoked;    /* callbacks invoked */
	sim_tavg qtotal;     /* machine-wide queued callbacks over time */
	sim_hist *lat;       /* call_rcu to invocation, ns ("cb.latency_ns") */
	sim_time last_at;    /* ns: the latest invocation committed (a batch is committed when it
			      * starts, so a batch begun by the run's end reaches past it) */
} cb_stats;

/* Start counting at t = 0; the latency histogram lives in @m. 0 or
 * SIM_ENOMEM. */
int cb_stats_init(cb_stats *s, sim_metrics *m);
/* Write the cb.* scalars at @now: @pending callbacks still queued, @qlen_max
 * the longest single-CPU queue seen. 0 or SIM_ENOMEM. */
int cb_stats_finish(const cb_stats *s, sim_metrics *m, sim_time now, uint64_t pending,
		    int64_t qlen_max);
/* Conservation with @pending callbacks queued: every callback queued is
 * invoked or still queued, each invoked one has its latency, and the
 * machine-wide count is the sum of the queues. */
bool cb_stats_conserved(const cb_stats *s, uint64_t pending);
/* cb_stats_conserved(), or SIM_ECHECK with the numbers in @err. */
int cb_stats_check(const cb_stats *s, uint64_t pending, char *err, size_t errlen);

#endif
