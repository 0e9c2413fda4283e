/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * o1.c - the O(1) scheduler's class (sched_o1_class, sched.kind = o1) and
 * the runqueue setup both classes share, after kernel/sched.c (2.6.16):
 * task_timeslice/SCALE_PRIO, effective_prio, TASK_INTERACTIVE/DELTA,
 * scheduler_tick's expiry and EXPIRED_STARVING, and schedule()'s array
 * switch and pick.
 *
 * Simplified: the sleep average is credited with the whole sleep on wakeup
 * and debited with the whole run when a task is switched out (capped to
 * [0, MAX_SLEEP_AVG]); the kernel's interactive-credit rules, the
 * TIMESLICE_GRANULARITY requeue of interactive tasks, real-time classes and
 * load balancing are left out (jobs stay on their CPU).
 */
#include "sched/sched.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "registry.h"

/* The knobs the O(1) scheduler reads, with sched.kind = o1. */
static const sim_knob o1_knob[] = {
	{ P_SCHED_DEF_TIMESLICE, SIM_ALWAYS },
	{ P_SCHED_MIN_TIMESLICE, SIM_ALWAYS },
	{ P_SCHED_STARVATION_LIMIT, SIM_ALWAYS },
	{ P_SCHED_MAX_BONUS, SIM_ALWAYS },
};
const sim_knobs sched_o1_knobs = { { P_SCHED_KIND, "o1", NULL }, o1_knob,
				   sizeof(o1_knob) / sizeof(o1_knob[0]) };

const sched_class *sched_class_find(const sim_params *p)
{
	static const sched_class *const classes[] = { &sched_o1_class, &sched_fair_class };
	const char *kind = sim_params_text(p, P_SCHED_KIND);
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!strcmp(classes[i]->name, kind))
			return classes[i];
	return NULL;
}

bool sched_has_fifo(const sim_params *p)
{
	const sched_class *c = sched_class_find(p);
	return c && c->set_fifo;
}

bool sched_has_nohz_full(const sim_params *p)
{
	const sched_class *c = sched_class_find(p);
	return c && c->nohz_full;
}

int sched_validate(const sim_params *p, char *err, size_t errlen)
{
	char a[512];
	sim_time def = sim_params_int(p, P_SCHED_DEF_TIMESLICE);
	if (!sim_params_is_auto(p, P_SCHED_MIN_TIMESLICE) &&
	    sim_params_int(p, P_SCHED_MIN_TIMESLICE) > def) {
		sim_params_where(p, P_SCHED_MIN_TIMESLICE, a, sizeof(a));
		snprintf(err, errlen, "%s: must not exceed sched.def_timeslice (%s), got %s", a,
			 sim_params_text(p, P_SCHED_DEF_TIMESLICE),
			 sim_params_text(p, P_SCHED_MIN_TIMESLICE));
		return SIM_EINPUT;
	}
	if (sched_has_fifo(p) && sim_params_int(p, P_SCHED_AUTOGROUP) && sim_params_int(p, P_RCU_BOOST)) {
		/* A boosted reader would leave its group for the RT class. */
		sim_params_where(p, P_SCHED_AUTOGROUP, a, sizeof(a));
		snprintf(err, errlen, "%s: not modelled together with rcu.boost = yes (a boosted reader "
			 "leaves its group)", a);
		return SIM_EINPUT;
	}
	return 0;
}

void sched_cfg_init(sched_cfg *cfg, int hz, sim_time def_timeslice_ns, sim_time min_timeslice_ns,
		    sim_time starvation_ns, int max_bonus)
{
	cfg->class = &sched_o1_class;
	cfg->base_slice = 3000000;
	cfg->delay_dequeue = false;
	cfg->pelt = false;
	cfg->tg = NULL;
	cfg->hz = hz;
	/* DEF_TIMESLICE is (100 * HZ / 1000): the time in jiffies, rounded down. */
	cfg->def_timeslice = (int)(def_timeslice_ns * hz / SIM_NS_PER_S);
	if (cfg->def_timeslice < 1)
		cfg->def_timeslice = 1;
	if (min_timeslice_ns < 0)
		cfg->min_timeslice = 5 * hz / 1000 > 1 ? 5 * hz / 1000 : 1;
	else
		cfg->min_timeslice = (int)(min_timeslice_ns * hz / SIM_NS_PER_S) > 1
					     ? (int)(min_timeslice_ns * hz / SIM_NS_PER_S)
					     : 1;
	cfg->starvation_jiffies = starvation_ns * hz / SIM_NS_PER_S;
	cfg->max_bonus = max_bonus;
	cfg->max_sleep_avg_ns = def_timeslice_ns * cfg->max_bonus;
}

static void array_init(sched_array *a)
{
	memset(a->bitmap, 0, sizeof(a->bitmap));
	a->nr_active = 0;
	for (int i = 0; i < SCHED_MAX_PRIO; i++)
		a->heads[i].next = a->heads[i].prev = &a->heads[i];
}

void sched_rq_init(sched_rq *rq, sched_arrays *store)
{
	memset(rq, 0, sizeof(*rq));
	if (!store)
		return; /* EEVDF: no priority arrays */
	array_init(&store->a[0]);
	array_init(&store->a[1]);
	rq->active = &store->a[0];
	rq->expired = &store->a[1];
	rq->best_expired_prio = SCHED_MAX_PRIO;
}

void sched_rq_destroy(sched_rq *rq)
{
	free(rq->ev_q);
	rq->ev_q = NULL;
	if (rq->ev_gq) {
		sched_rq_destroy(rq->ev_gq);
		free(rq->ev_gq);
		free(rq->ev_gse);
		rq->ev_gq = NULL;
		rq->ev_gse = NULL;
	}
}

void sched_task_init(const sched_cfg *cfg, sched_task *p, int nice)
{
	memset(p, 0, sizeof(*p));
	p->static_prio = SCHED_NICE_TO_PRIO(nice);
	p->weight = (int32_t)sched_nice_weight(nice);
	if (cfg->class == &sched_o1_class) /* the union's other side stays zero */
		p->prio = p->static_prio;
	p->wait_since = -1;
}

int sched_task_timeslice(const sched_cfg *cfg, const sched_task *p)
{
	/* SCALE_PRIO(x, prio) = max(x * (MAX_PRIO - prio) / (MAX_USER_PRIO / 2), MIN_TIMESLICE) */
	int x = p->static_prio < SCHED_NICE_TO_PRIO(0) ? cfg->def_timeslice * 4 : cfg->def_timeslice;
	int ts = x * (SCHED_MAX_PRIO - p->static_prio) / 20;
	return ts > cfg->min_timeslice ? ts : cfg->min_timeslice;
}

int sched_effective_prio(const sched_cfg *cfg, const sched_task *p)
{
	/* CURRENT_BONUS = sleep_avg * MAX_BONUS / MAX_SLEEP_AVG (in jiffies in
	 * the kernel; the same ratio in ns). */
	int bonus = cfg->max_sleep_avg_ns
			    ? (int)(p->sleep_avg_ns * cfg->max_bonus / cfg->max_sleep_avg_ns)
			    : 0;
	int prio = p->static_prio - (bonus - cfg->max_bonus / 2);
	if (prio < SCHED_MAX_RT_PRIO)
		prio = SCHED_MAX_RT_PRIO;
	if (prio > SCHED_MAX_PRIO - 1)
		prio = SCHED_MAX_PRIO - 1;
	return prio;
}

bool sched_task_interactive(const sched_cfg *cfg, const sched_task *p)
{
	/* DELTA(p) = SCALE(TASK_NICE(p), 40, MAX_BONUS) + INTERACTIVE_DELTA (2);
	 * SCALE(v, vmax, max) = v * max / vmax, in C integer division. */
	int nice = p->static_prio - SCHED_NICE_TO_PRIO(0);
	int delta = nice * cfg->max_bonus / 40 + 2;
	return p->prio <= p->static_prio - delta;
}

static void enqueue(sched_task *p, sched_array *a)
{
	sched_link *h = &a->heads[p->prio], *l = &p->run;
	l->prev = h->prev;
	l->next = h;
	h->prev->next = l;
	h->prev = l;
	a->bitmap[p->prio >> 6] |= UINT64_C(1) << (p->prio & 63);
	a->nr_active++;
	p->array = a;
}

static void dequeue(sched_task *p)
{
	sched_array *a = p->array;
	assert(a);
	p->run.prev->next = p->run.next;
	p->run.next->prev = p->run.prev;
	if (a->heads[p->prio].next == &a->heads[p->prio])
		a->bitmap[p->prio >> 6] &= ~(UINT64_C(1) << (p->prio & 63));
	a->nr_active--;
	p->array = NULL;
}

static int o1_attach(sched_rq *rq)
{
	return 0;
}

static void o1_add_runnable(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now)
{
	p->prio = sched_effective_prio(cfg, p);
	p->time_slice = sched_task_timeslice(cfg, p);
	p->wait_since = now;
	enqueue(p, rq->active);
	rq->nr_running++;
}

static bool o1_wake(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now)
{
	assert(!p->array);
	int64_t slept = now - p->sleep_since;
	p->sleep_avg_ns += slept;
	if (p->sleep_avg_ns > cfg->max_sleep_avg_ns)
		p->sleep_avg_ns = cfg->max_sleep_avg_ns;
	p->prio = sched_effective_prio(cfg, p);
	p->wait_since = now;
	enqueue(p, rq->active);
	rq->nr_running++;
	return !rq->curr || p->prio < rq->curr->prio;
}

static void o1_sleep(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now)
{
	assert(p == rq->curr && p->array);
	dequeue(p);
	rq->nr_running--;
	p->sleep_since = now;
	p->wait_since = -1;
}

bool sched_expired_starving(const sched_cfg *cfg, const sched_rq *rq, int64_t jiffies)
{
	if (cfg->starvation_jiffies && rq->expired_timestamp &&
	    jiffies - rq->expired_timestamp >= cfg->starvation_jiffies * rq->nr_running + 1)
		return true;
	return rq->curr && rq->curr->static_prio > rq->best_expired_prio;
}

static bool o1_tick(const sched_cfg *cfg, sched_rq *rq, int64_t jiffies, sim_time now)
{
	sched_task *p = rq->curr;
	if (!p)
		return false;
	if (p->array != rq->active)
		return true; /* already expired: resched */
	if (--p->time_slice > 0)
		return false;
	dequeue(p);
	p->prio = sched_effective_prio(cfg, p);
	p->time_slice = sched_task_timeslice(cfg, p);
	if (!rq->expired_timestamp)
		rq->expired_timestamp = jiffies;
	if (!sched_task_interactive(cfg, p) || sched_expired_starving(cfg, rq, jiffies)) {
		enqueue(p, rq->expired);
		if (p->static_prio < rq->best_expired_prio)
			rq->best_expired_prio = p->static_prio;
	} else {
		enqueue(p, rq->active);
	}
	return true;
}

static int first_bit(const sched_array *a)
{
	for (int w = 0; w < 3; w++)
		if (a->bitmap[w])
			return w * 64 + __builtin_ctzll(a->bitmap[w]);
	return -1;
}

static sched_task *o1_schedule(const sched_cfg *cfg, sched_rq *rq, sim_time now)
{
	sched_task *prev = rq->curr;
	if (prev) {
		prev->sleep_avg_ns -= now - prev->last_ran;
		if (prev->sleep_avg_ns < 0)
			prev->sleep_avg_ns = 0;
		if (prev->array)
			prev->wait_since = now; /* still runnable: starts waiting */
	}
	if (!rq->active->nr_active) {
		sched_array *a = rq->active;
		rq->active = rq->expired;
		rq->expired = a;
		rq->expired_timestamp = 0;
		rq->best_expired_prio = SCHED_MAX_PRIO;
	}
	int idx = first_bit(rq->active);
	sched_task *next = idx < 0 ? NULL : (sched_task *)(void *)rq->active->heads[idx].next;
	if (next != prev)
		rq->nr_switches++;
	rq->last_wait_ns = next && next->wait_since >= 0 ? now - next->wait_since : 0;
	rq->curr = next;
	if (next) {
		next->last_ran = now;
		next->wait_since = -1;
	}
	return next;
}

const sched_class sched_o1_class = {
	.name = "o1",
	.attach = o1_attach,
	.add_runnable = o1_add_runnable,
	.wake = o1_wake,
	.sleep = o1_sleep,
	.tick = o1_tick,
	.schedule = o1_schedule,
};
