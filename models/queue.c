/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * queue.c - the engine's check: one callback queue per CPU.
 *
 * Poisson arrivals at workload.queue_rate per CPU. Service is either
 *  - exp:  one server with exponential service times (an M/M/1 queue per
 *          CPU, whose mean number in system rho / (1 - rho) is known), or
 *  - tick: at every timer tick (machine.hz, staggered across CPUs) up to
 *          workload.queue_batch items leave at once, as rcu_do_batch would
 *          invoke callbacks (no service time: the batch is instantaneous).
 * It measures what the RCU model measures (cb.* metrics), so Little's law and
 * the closed forms test the engine, the RNG streams and the statistics
 * before any kernel mechanism is involved. Leaves out everything else.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcu/cbstats.h"
#include "checks.h"
#include "model.h"

typedef struct qcpu {
	sim_timer arrive;    /* next arrival */
	sim_timer serve;     /* next departure (exp) or tick (tick) */
	sim_rng *arr_rng;    /* stream "queue.arrival", this CPU */
	sim_rng *svc_rng;    /* stream "queue.service", this CPU */
	sim_time *ring;      /* ns: arrival times of queued items, FIFO */
	size_t head, n, cap; /* ring position, items queued, ring size (power of 2) */
	struct qmodel *q;    /* back pointer */
} qcpu;

typedef struct qmodel {
	sim_engine *eng;      /* the run's engine */
	sim_metrics *m;       /* results */
	int ncpus;            /* CPUs */
	qcpu *cpu;            /* per-CPU queues */
	double mean_gap_s;    /* s: mean time between arrivals on one CPU */
	double mean_svc_s;    /* s: mean service time (exp) */
	bool tick;            /* tick service */
	sim_time tick_ns;     /* ns: tick period (tick) */
	int64_t batch;        /* items per tick (tick) */
	cb_stats cb;          /* arrivals, departures, queue over time, latencies */
	int64_t qlen_max;     /* largest single-CPU queue */
	int err;              /* first allocation failure inside a handler */
} qmodel;

static sim_time secs_to_ns(double s)
{
	double ns = s * 1e9;
	return ns >= 9.2e18 ? SIM_TIME_MAX : (sim_time)llround(ns);
}

static void fail(qmodel *q, int rc)
{
	q->err = rc;
	sim_engine_fail(q->eng, rc);
}

static void pop_n(qmodel *q, qcpu *c, size_t k, sim_time now)
{
	for (size_t j = 0; j < k; j++) {
		sim_time t = c->ring[c->head];
		c->head = (c->head + 1) & (c->cap - 1);
		sim_hist_add(q->cb.lat, (uint64_t)(now - t));
	}
	c->n -= k;
	q->cb.invoked += k;
	sim_tavg_add(&q->cb.qtotal, now, -(int64_t)k);
}

static void arrive_fire(sim_engine *eng, sim_timer *t)
{
	qcpu *c = t->ctx;
	qmodel *q = c->q;
	sim_time now = sim_now(eng);
	if (c->n == c->cap) {
		size_t nc = c->cap * 2;
		sim_time *nr = malloc(nc * sizeof(*nr));
		if (!nr) {
			fail(q, SIM_ENOMEM);
			return;
		}
		for (size_t j = 0; j < c->n; j++)
			nr[j] = c->ring[(c->head + j) & (c->cap - 1)];
		free(c->ring);
		c->ring = nr;
		c->head = 0;
		c->cap = nc;
	}
	c->ring[(c->head + c->n) & (c->cap - 1)] = now;
	c->n++;
	q->cb.enqueued++;
	sim_tavg_add(&q->cb.qtotal, now, 1);
	if ((int64_t)c->n > q->qlen_max)
		q->qlen_max = (int64_t)c->n;
	int rc = sim_timer_after(eng, t, secs_to_ns(sim_rng_exponential(c->arr_rng, q->mean_gap_s)));
	if (!rc && !q->tick && c->n == 1)
		rc = sim_timer_after(eng, &c->serve,
				     secs_to_ns(sim_rng_exponential(c->svc_rng, q->mean_svc_s)));
	if (rc)
		fail(q, rc);
}

static void serve_fire(sim_engine *eng, sim_timer *t)
{
	qcpu *c = t->ctx;
	qmodel *q = c->q;
	sim_time now = sim_now(eng);
	int rc = 0;
	if (q->tick) {
		size_t k = c->n < (size_t)q->batch ? c->n : (size_t)q->batch;
		pop_n(q, c, k, now);
		rc = sim_timer_after(eng, t, q->tick_ns);
	} else {
		pop_n(q, c, 1, now);
		if (c->n)
			rc = sim_timer_after(eng, t,
					     secs_to_ns(sim_rng_exponential(c->svc_rng, q->mean_svc_s)));
	}
	if (rc)
		fail(q, rc);
}

static void queue_destroy(void *state)
{
	qmodel *q = state;
	if (!q)
		return;
	if (q->cpu)
		for (int i = 0; i < q->ncpus; i++) {
			sim_rng_destroy(q->cpu[i].arr_rng);
			sim_rng_destroy(q->cpu[i].svc_rng);
			free(q->cpu[i].ring);
		}
	free(q->cpu);
	free(q);
}

static int queue_create(void **state, const model_env *env, char *err, size_t errlen)
{
	const sim_params *p = env->p;
	qmodel *q = calloc(1, sizeof(*q));
	*state = q;
	if (!q)
		goto nomem;
	q->eng = env->eng;
	q->m = env->m;
	q->ncpus = machine_ncpus(p);
	double rate = sim_params_real(p, P_WORKLOAD_QUEUE_RATE);
	q->mean_gap_s = rate > 0 ? 1.0 / rate : INFINITY;
	q->mean_svc_s = 1.0 / sim_params_real(p, P_WORKLOAD_QUEUE_SERVICE_RATE);
	q->tick = !strcmp(sim_params_text(p, P_WORKLOAD_QUEUE_SERVICE), "tick");
	q->tick_ns = SIM_NS_PER_S / sim_params_int(p, P_MACHINE_HZ);
	q->batch = sim_params_int(p, P_WORKLOAD_QUEUE_BATCH);
	q->cpu = calloc((size_t)q->ncpus, sizeof(*q->cpu));
	if (cb_stats_init(&q->cb, env->m) || !q->cpu)
		goto nomem;
	for (int i = 0; i < q->ncpus; i++) {
		qcpu *c = &q->cpu[i];
		c->q = q;
		c->cap = 64;
		c->ring = malloc(c->cap * sizeof(*c->ring));
		if (!c->ring ||
		    sim_rng_create(&c->arr_rng, env->rng, env->seed, "queue.arrival", (uint64_t)i) ||
		    sim_rng_create(&c->svc_rng, env->rng, env->seed, "queue.service", (uint64_t)i) ||
		    sim_timer_init(env->eng, &c->arrive, arrive_fire, c) ||
		    sim_timer_init(env->eng, &c->serve, serve_fire, c))
			goto nomem;
		if (rate > 0 &&
		    sim_timer_at(env->eng, &c->arrive,
				 secs_to_ns(sim_rng_exponential(c->arr_rng, q->mean_gap_s))))
			goto nomem;
		/* Ticks staggered across CPUs, as the kernel staggers them. */
		if (q->tick && sim_timer_at(env->eng, &c->serve,
					    q->tick_ns * (i + 1) / q->ncpus))
			goto nomem;
	}
	return 0;
nomem:
	snprintf(err, errlen, "queue model: out of memory");
	return SIM_ENOMEM;
}

static int queue_sample(void *state, sim_time now, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	qmodel *q = state;
	for (int i = 0; i < q->ncpus; i++) {
		sim_series *s = metric_series(q->m, M_CB_QLEN, i);
		if (!s || sim_series_append(s, now, (double)q->cpu[i].n))
			return SIM_ENOMEM;
	}
	sim_series *s = metric_series(q->m, M_CB_QLEN, -1);
	if (!s || sim_series_append(s, now, (double)q->cb.qtotal.value))
		return SIM_ENOMEM;
	if (RCUSIM_CHECKS_ON) {
		uint64_t pending = 0;
		for (int i = 0; i < q->ncpus; i++)
			pending += q->cpu[i].n;
		RCUSIM_CHECK(cb_stats_conserved(&q->cb, pending), "queue.cb_conservation");
	}
	return 0;
}

static int queue_finish(void *state, sim_time now, char *err, size_t errlen)
{
	qmodel *q = state;
	sim_metrics *m = q->m;
	uint64_t pending = 0;
	for (int i = 0; i < q->ncpus; i++)
		pending += q->cpu[i].n;
	if (cb_stats_finish(&q->cb, m, now, pending, q->qlen_max)) {
		snprintf(err, errlen, "queue model: out of memory");
		return SIM_ENOMEM;
	}
	return cb_stats_check(&q->cb, pending, err, errlen);
}

static bool queue_runs(const char *kind)
{
	return !strcmp(kind, "queue");
}

static const char *queue_kinds(void)
{
	return "queue";
}

/* The knobs queue.c reads, with workload.kind = queue. */
static const sim_knob queue_knob[] = {
	{ P_WORKLOAD_QUEUE_RATE, SIM_ALWAYS },
	{ P_WORKLOAD_QUEUE_SERVICE, SIM_ALWAYS },
	{ P_WORKLOAD_QUEUE_SERVICE_RATE, SIM_ALWAYS },
	{ P_WORKLOAD_QUEUE_BATCH, SIM_ALWAYS },
};
static const sim_knobs queue_knobs = { { P_WORKLOAD_KIND, "queue", NULL }, queue_knob,
				       sizeof(queue_knob) / sizeof(queue_knob[0]) };

static size_t queue_knobs_list(const sim_knobs **out, size_t max)
{
	assert(max >= 1);
	out[0] = &queue_knobs;
	return 1;
}

const model_ops queue_model = {
	.name = "queue",
	.runs = queue_runs,
	.kinds = queue_kinds,
	.knobs = queue_knobs_list,
	.create = queue_create,
	.sample = queue_sample,
	.finish = queue_finish,
	.destroy = queue_destroy,
};
