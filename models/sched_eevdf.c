/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sched_eevdf.c - the fair class of 6.6+ (sched.kind = eevdf), after
 * kernel/sched/fair.c of 6.12: weights from sched_prio_to_weight
 * (kernel/sched/core.c), vruntime advancing by delta x 1024 / weight
 * (calc_delta_fair), the load-weighted average vruntime V kept as
 * sum((v_i - min_vruntime) x w_i) and sum(w_i) over the queued tasks plus
 * curr (avg_vruntime), eligibility lag >= 0 tested without division
 * (vruntime_eligible), the virtual deadline vruntime + slice x 1024 / weight
 * renewed when it is reached (update_deadline, which asks to reschedule),
 * the pick of the eligible task with the earliest deadline through a tree
 * ordered by deadline and augmented with its subtree's least vruntime
 * (pick_eevdf; a treap here, an rbtree there), RUN_TO_PARITY (curr runs on
 * while eligible until its deadline), lag saved at dequeue and clamped to
 * 2 slices (entity_lag), placement on wakeup keeping that lag against the
 * new load (place_entity, PLACE_LAG) and new tasks starting half a slice
 * in (PLACE_DEADLINE_INITIAL), wakeup preemption when the woken task is
 * the pick (check_preempt_wakeup_fair). SCHED_FIFO tasks (sched_task.fifo)
 * run before every fair task, first come first served.
 * Left out: DELAY_DEQUEUE (6.12 keeps a sleeping task with negative lag
 * queued until it is eligible; here its lag is kept as it is), custom
 * slices and PREEMPT_SHORT, buddies, group scheduling, load balancing, the
 * inverse-weight arithmetic of __calc_delta (exact division here); every
 * task's slice is sched.base_slice (no custom slices).
 */
#include "sched.h"

#include <assert.h>
#include <stdlib.h>

/* kernel/sched/core.c sched_prio_to_weight[], nice -20..19. */
static const int32_t prio_to_weight[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548,  7620,  6100,  4904,  3906,  3121,  2501,  1991,  1586,  1277,
	1024,  820,   655,   526,   423,   335,   272,   215,   172,   137,
	110,   87,    70,    56,    45,    36,    29,    23,    18,    15,
};

int64_t sched_nice_weight(int nice)
{
	return prio_to_weight[nice + 20];
}

/* calc_delta_fair(): @delta ns of @p's run in virtual time. */
static inline int64_t vdelta(int64_t delta, const sched_task *p)
{
	return p->weight == 1024 ? delta : delta * 1024 / p->weight;
}

/* ---- the tree: a treap ordered by (deadline, seq), each node keeping its
 * subtree's least vruntime ---------------------------------------------- */

static inline bool before(const sched_task *a, const sched_task *b)
{
	return a->deadline < b->deadline || (a->deadline == b->deadline && a->ev_seq < b->ev_seq);
}

static inline void fix(sched_task *n)
{
	int64_t m = n->vruntime;
	if (n->ev_left && n->ev_left->ev_min_v < m)
		m = n->ev_left->ev_min_v;
	if (n->ev_right && n->ev_right->ev_min_v < m)
		m = n->ev_right->ev_min_v;
	n->ev_min_v = m;
}

static sched_task *merge(sched_task *a, sched_task *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->ev_prio > b->ev_prio) {
		a->ev_right = merge(a->ev_right, b);
		fix(a);
		return a;
	}
	b->ev_left = merge(a, b->ev_left);
	fix(b);
	return b;
}

/* Split @t into the nodes before @k and the others. */
static void split(sched_task *t, const sched_task *k, sched_task **l, sched_task **r)
{
	if (!t) {
		*l = *r = NULL;
		return;
	}
	if (before(t, k)) {
		split(t->ev_right, k, &t->ev_right, r);
		fix(t);
		*l = t;
	} else {
		split(t->ev_left, k, l, &t->ev_left);
		fix(t);
		*r = t;
	}
}

static void tree_insert(sched_rq *rq, sched_task *p)
{
	sched_task *l, *r;
	p->ev_left = p->ev_right = NULL;
	p->ev_min_v = p->vruntime;
	split(rq->ev_root, p, &l, &r);
	rq->ev_root = merge(merge(l, p), r);
}

/* Remove @p from the subtree at *@t. */
static bool tree_remove(sched_task **t, sched_task *p)
{
	if (!*t)
		return false;
	if (*t == p) {
		*t = merge(p->ev_left, p->ev_right);
		p->ev_left = p->ev_right = NULL;
		return true;
	}
	bool found = tree_remove(before(p, *t) ? &(*t)->ev_left : &(*t)->ev_right, p);
	if (found)
		fix(*t);
	return found;
}

static sched_task *tree_first(sched_task *t)
{
	while (t && t->ev_left)
		t = t->ev_left;
	return t;
}

/* ---- the average vruntime ---------------------------------------------- */

/* avg_vruntime_add/sub: the queued tasks' sums (curr is added on the fly). */
static void avg_add(sched_rq *rq, const sched_task *p)
{
	rq->ev_avg += (__int128)(p->vruntime - rq->ev_min_vruntime) * p->weight;
	rq->ev_load += p->weight;
}

static void avg_sub(sched_rq *rq, const sched_task *p)
{
	rq->ev_avg -= (__int128)(p->vruntime - rq->ev_min_vruntime) * p->weight;
	rq->ev_load -= p->weight;
}

static inline bool curr_fair(const sched_rq *rq)
{
	return rq->curr && rq->curr->on_rq && !rq->curr->fifo;
}

/* avg_vruntime(): V, rounded towards -infinity as the kernel does. */
int64_t sched_eevdf_avg_vruntime(const sched_rq *rq)
{
	__int128 avg = rq->ev_avg;
	int64_t load = rq->ev_load;
	if (curr_fair(rq)) {
		avg += (__int128)(rq->curr->vruntime - rq->ev_min_vruntime) * rq->curr->weight;
		load += rq->curr->weight;
	}
	if (load) {
		if (avg < 0)
			avg -= load - 1;
		avg /= load;
	}
	return rq->ev_min_vruntime + (int64_t)avg;
}

/* vruntime_eligible(): a task at @v has lag >= 0. */
static bool eligible_v(const sched_rq *rq, int64_t v)
{
	__int128 avg = rq->ev_avg;
	int64_t load = rq->ev_load;
	if (curr_fair(rq)) {
		avg += (__int128)(rq->curr->vruntime - rq->ev_min_vruntime) * rq->curr->weight;
		load += rq->curr->weight;
	}
	return avg >= (__int128)(v - rq->ev_min_vruntime) * load;
}

bool sched_eevdf_eligible(const sched_rq *rq, const sched_task *p)
{
	return eligible_v(rq, p->vruntime);
}

/* update_min_vruntime(): forward only, moving the sums with it. */
static void update_min_vruntime(sched_rq *rq)
{
	int64_t v = rq->ev_min_vruntime;
	bool have = false;
	if (curr_fair(rq)) {
		v = rq->curr->vruntime;
		have = true;
	}
	if (rq->ev_root) {
		int64_t m = rq->ev_root->ev_min_v;
		v = have && v < m ? v : m;
	}
	int64_t delta = v - rq->ev_min_vruntime;
	if (delta > 0) {
		rq->ev_avg -= (__int128)rq->ev_load * delta;
		rq->ev_min_vruntime = v;
	}
}

/* update_curr() at @now: curr's run since it was last accounted. Returns
 * true if it reached its deadline (update_deadline(): a new one, and a
 * reschedule if another task is runnable). */
static bool update_curr(const sched_cfg *cfg, sched_rq *rq, sim_time now)
{
	sched_task *p = rq->curr;
	if (!p || !p->on_rq || p->fifo || now <= p->exec_start) {
		if (p && now > p->exec_start)
			p->exec_start = now;
		return false;
	}
	int64_t delta = now - p->exec_start;
	p->exec_start = now;
	p->vruntime += vdelta(delta, p);
	bool renew = p->vruntime >= p->deadline;
	if (renew)
		p->deadline = p->vruntime + vdelta(cfg->base_slice, p);
	update_min_vruntime(rq);
	return renew && rq->nr_running > 1;
}

/* entity_lag(): V - v, clamped to calc_delta_fair(max(2 slices, a tick)). */
static int64_t entity_lag(const sched_cfg *cfg, int64_t V, const sched_task *p)
{
	int64_t tick = SIM_NS_PER_S / cfg->hz;
	int64_t limit = vdelta(2 * cfg->base_slice > tick ? 2 * cfg->base_slice : tick, p);
	int64_t lag = V - p->vruntime;
	return lag < -limit ? -limit : lag > limit ? limit : lag;
}

/* place_entity(): vruntime from V and the saved lag, inflated so that it
 * survives the new task's own weight in the average (PLACE_LAG); deadline
 * a slice on, half a slice for a new task (PLACE_DEADLINE_INITIAL). */
static void place(const sched_cfg *cfg, sched_rq *rq, sched_task *p, bool initial)
{
	int64_t V = sched_eevdf_avg_vruntime(rq);
	int64_t lag = 0;
	int64_t vslice = vdelta(cfg->base_slice, p);
	int nr_fair = (int)(rq->ev_load > 0) + (int)curr_fair(rq);
	if (nr_fair) {
		int64_t load = rq->ev_load + (curr_fair(rq) ? rq->curr->weight : 0);
		lag = (int64_t)((__int128)p->vlag * (load + p->weight) / (load ? load : 1));
	}
	p->vruntime = V - lag;
	if (initial)
		vslice /= 2;
	p->deadline = p->vruntime + vslice;
}

/* enqueue_entity() of a task not curr: the tree and the sums, or the FIFO
 * list. */
static void enqueue(sched_rq *rq, sched_task *p)
{
	if (p->fifo) {
		p->ev_left = NULL;
		if (rq->ev_fifo_tail)
			rq->ev_fifo_tail->ev_left = p;
		else
			rq->ev_fifo = p;
		rq->ev_fifo_tail = p;
		return;
	}
	p->ev_seq = ++rq->ev_seq;
	avg_add(rq, p);
	tree_insert(rq, p);
}

static void dequeue_queued(sched_rq *rq, sched_task *p)
{
	if (p->fifo) {
		sched_task **pp = &rq->ev_fifo, *prev = NULL;
		while (*pp && *pp != p) {
			prev = *pp;
			pp = &(*pp)->ev_left;
		}
		assert(*pp == p);
		*pp = p->ev_left;
		if (rq->ev_fifo_tail == p)
			rq->ev_fifo_tail = prev;
		p->ev_left = NULL;
		return;
	}
	bool found = tree_remove(&rq->ev_root, p);
	assert(found);
	(void)found;
	avg_sub(rq, p);
}

/* pick_eevdf(): curr if it is protected to its deadline (RUN_TO_PARITY)
 * and still eligible; else the eligible task with the earliest deadline,
 * curr included. */
static sched_task *pick_eevdf(sched_rq *rq)
{
	sched_task *curr = curr_fair(rq) ? rq->curr : NULL;
	if (curr && !eligible_v(rq, curr->vruntime))
		curr = NULL;
	if (curr && curr->vlag == curr->deadline)
		return curr;
	sched_task *best = NULL, *first = tree_first(rq->ev_root);
	if (first && eligible_v(rq, first->vruntime)) {
		best = first;
	} else {
		for (sched_task *n = rq->ev_root; n;) {
			if (n->ev_left && eligible_v(rq, n->ev_left->ev_min_v)) {
				n = n->ev_left;
				continue;
			}
			if (eligible_v(rq, n->vruntime)) {
				best = n;
				break;
			}
			n = n->ev_right;
		}
	}
	if (!best || (curr && before(curr, best)))
		best = curr;
	if (!best) /* none eligible (rounding): the earliest deadline */
		best = first ? first : curr_fair(rq) ? rq->curr : NULL;
	return best;
}

void sched_eevdf_task_init(sched_task *p, int nice)
{
	p->weight = sched_nice_weight(nice);
	p->ev_prio = (uint32_t)(((uintptr_t)p >> 4) * 2654435761u) ^ (uint32_t)((uintptr_t)p >> 20);
}

void sched_eevdf_add_runnable(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now)
{
	update_curr(cfg, rq, now);
	p->vlag = 0;
	place(cfg, rq, p, true);
	p->on_rq = true;
	p->wait_since = now;
	enqueue(rq, p);
	rq->nr_running++;
}

bool sched_eevdf_wake(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now)
{
	assert(!p->on_rq);
	update_curr(cfg, rq, now);
	if (!p->fifo)
		place(cfg, rq, p, false);
	p->on_rq = true;
	p->wait_since = now;
	enqueue(rq, p);
	rq->nr_running++;
	sched_task *c = rq->curr;
	if (!c)
		return true;
	if (p->fifo)
		return !c->fifo;
	if (c->fifo)
		return false;
	return pick_eevdf(rq) == p;
}

void sched_eevdf_sleep(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now)
{
	assert(p == rq->curr && p->on_rq);
	update_curr(cfg, rq, now);
	if (!p->fifo)
		p->vlag = entity_lag(cfg, sched_eevdf_avg_vruntime(rq), p);
	p->on_rq = false;
	rq->nr_running--;
	p->sleep_since = now;
	p->wait_since = -1;
	update_min_vruntime(rq);
}

void sched_eevdf_remove(sched_rq *rq, sched_task *p)
{
	if (p->on_rq) {
		if (rq->curr != p)
			dequeue_queued(rq, p);
		p->on_rq = false;
		rq->nr_running--;
	}
	if (rq->curr == p)
		rq->curr = NULL;
}

bool sched_eevdf_tick(const sched_cfg *cfg, sched_rq *rq, sim_time now)
{
	sched_task *p = rq->curr;
	if (!p)
		return false;
	if (p->fifo)
		return false; /* SCHED_FIFO runs until it sleeps */
	return update_curr(cfg, rq, now);
}

sched_task *sched_eevdf_schedule(const sched_cfg *cfg, sched_rq *rq, sim_time now)
{
	sched_task *prev = rq->curr, *next;
	if (prev)
		update_curr(cfg, rq, now);
	/* pick_task_fair() with curr still in place, then put_prev_entity()
	 * and set_next_entity(). */
	if (prev && prev->fifo && prev->on_rq)
		next = prev;
	else if (rq->ev_fifo)
		next = rq->ev_fifo;
	else
		next = pick_eevdf(rq);
	rq->curr = NULL;
	if (prev && prev != next && prev->on_rq) {
		prev->wait_since = now;
		enqueue(rq, prev);
	}
	if (next && next != prev) {
		dequeue_queued(rq, next);
		if (!next->fifo)
			next->vlag = next->deadline; /* the HACK that protects its slice */
	}
	if (next != prev)
		rq->nr_switches++;
	rq->last_wait_ns = next && next->wait_since >= 0 ? now - next->wait_since : 0;
	rq->curr = next;
	if (next) {
		if (next != prev)
			next->exec_start = now;
		next->last_ran = now;
		next->wait_since = -1;
	}
	return next;
}
