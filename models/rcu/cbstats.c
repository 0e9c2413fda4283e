/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cbstats.c - the cb.* metrics and their conservation check (cbstats.h).
 * No kernel counterpart: what rcusim counts of any flavor. */
#include "rcu/cbstats.h"

#include <stdio.h>

#include "registry.h"

int cb_stats_init(cb_stats *s, sim_metrics *m)
{
	*s = (cb_stats){ 0 };
	sim_tavg_init(&s->qtotal, 0, 0);
	s->lat = metric_hist(m, M_CB_LATENCY_NS);
	return s->lat ? 0 : SIM_ENOMEM;
}

int cb_stats_finish(const cb_stats *s, sim_metrics *m, sim_time now, uint64_t pending,
		    int64_t qlen_max)
{
	int rc = metric_scalar(m, M_CB_ENQUEUED, (double)s->enqueued);
	rc |= metric_scalar(m, M_CB_INVOKED, (double)s->invoked);
	rc |= metric_scalar(m, M_CB_PENDING_END, (double)pending);
	rc |= metric_scalar(m, M_CB_QLEN_MAX, (double)qlen_max);
	rc |= metric_scalar(m, M_CB_QLEN_TOTAL_MAX, (double)s->qtotal.max);
	rc |= metric_scalar(m, M_CB_QLEN_TOTAL_MEAN, sim_tavg_mean(&s->qtotal, now));
	rc |= metric_hist_scalars(m, M_CB_LATENCY_NS, s->lat,
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
