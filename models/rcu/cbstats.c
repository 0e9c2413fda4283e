/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cbstats.c - the cb.* metrics and their conservation check (cbstats.h).
 * No kernel counterpart: what rcusim counts of any flavor. */
#include "rcu/cbstats.h"

#include <stdio.h>


int cb_stats_init(cb_stats *s, sim_metrics *m)
{
	*s = (cb_stats){ 0 };
	sim_tavg_init(&s->qtotal, 0, 0);
	s->lat = sim_metrics_hist(m, "cb.latency_ns");
	return s->lat ? 0 : SIM_ENOMEM;
}

int cb_stats_finish(const cb_stats *s, sim_metrics *m, sim_time now, uint64_t pending,
		    int64_t qlen_max)
{
	int rc = sim_metrics_scalar(m, "cb.enqueued", (double)s->enqueued);
	rc |= sim_metrics_scalar(m, "cb.invoked", (double)s->invoked);
	rc |= sim_metrics_scalar(m, "cb.pending_end", (double)pending);
	rc |= sim_metrics_scalar(m, "cb.qlen_max", (double)qlen_max);
	rc |= sim_metrics_scalar(m, "cb.qlen_total_max", (double)s->qtotal.max);
	rc |= sim_metrics_scalar(m, "cb.qlen_total_mean", sim_tavg_mean(&s->qtotal, now));
	rc |= sim_metrics_hist_scalars(m, "cb.latency", s->lat,
				       SIM_Q_MEAN | SIM_Q_P50 | SIM_Q_P99 | SIM_Q_P999 | SIM_Q_MAX);
	return rc ? SIM_ENOMEM : 0;
}

bool cb_stats_conserved(const cb_stats *s, uint64_t pending)
{
	return s->enqueued == s->invoked + pending && s->invoked == s->lat->count + s->lat->dropped &&
	       (int64_t)pending == s->qtotal.value;
}

int cb_stats_check(const cb_stats *s, uint64_t pending, char *err, size_t errlen)
{
	if (cb_stats_conserved(s, pending))
		return 0;
	snprintf(err, errlen,
		 "conservation: cb.enqueued %llu != cb.invoked %llu + cb.pending_end %llu "
		 "(latencies %llu, queued total %lld)",
		 (unsigned long long)s->enqueued, (unsigned long long)s->invoked,
		 (unsigned long long)pending, (unsigned long long)(s->lat->count + s->lat->dropped),
		 (long long)s->qtotal.value);
	return SIM_ECHECK;
}
