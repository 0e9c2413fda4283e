/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fair.c - the fair class of 6.6+ (sched.kind = eevdf), after
 * kernel/sched/fair.c of 6.12: weights from sched_prio_to_weight
 * (kernel/sched/core.c), vruntime advancing by delta x 1024 / weight
 * (calc_delta_fair), the load-weighted average vruntime V kept as
 * sum(v_i x w_i) and sum(w_i) over the queued tasks plus curr
 * (avg_vruntime), eligibility lag >= 0 tested without division
 * (vruntime_eligible), the virtual deadline vruntime + slice x 1024 / weight
 * renewed when it is reached (update_deadline, which asks to reschedule),
 * the pick of the eligible task with the earliest deadline (pick_eevdf;
 * the kernel's augmented rbtree is a sorted array here, see "the queue"
 * below), RUN_TO_PARITY (curr runs on while eligible until its deadline), lag saved at dequeue and clamped to
 * 2 slices (entity_lag), placement on wakeup keeping that lag against the
 * new load (place_entity, PLACE_LAG) and new tasks starting half a slice
 * in (PLACE_DEADLINE_INITIAL), wakeup preemption when the woken task is
 * the pick (check_preempt_wakeup_fair). SCHED_FIFO tasks (sched_task.fifo)
 * run before every fair task, first come first served.
 * DELAY_DEQUEUE with DELAY_ZERO (sched.delay_dequeue; sched/features.h
 * 6.12:49-50): a task that goes to sleep while not eligible stays queued
 * (dequeue_entity(), fair.c 6.12:5495-5501), competing until a pick finds
 * it, which dequeues it with its lag clipped to 0 (pick_next_entity()
 * :5626-5631, finish_delayed_dequeue_entity() :5468-5473), or until it is
 * woken, re-placed with lag 0 if its lag has become positive
 * (requeue_delayed_entity() :6919-6947); while queued it counts in the
 * tick's nr_running > 1 (update_deadline()). Group scheduling of the
 * jobs as one autogroup (sched.autogroup): see "group scheduling" below.
 * Left out: custom
 * slices and PREEMPT_SHORT, buddies, cgroups, load balancing, the
 * inverse-weight arithmetic of __calc_delta (exact division here); every
 * task's slice is sched.base_slice (no custom slices).
 */
#include "sched/sched.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "registry.h"

/* The knobs the EEVDF scheduler reads, with sched.kind = eevdf. */
static const sim_knob eevdf_knob[] = {
	{ P_SCHED_BASE_SLICE, SIM_ALWAYS },
	{ P_SCHED_DELAY_DEQUEUE, SIM_ALWAYS },
	{ P_SCHED_AUTOGROUP, SIM_ALWAYS },
};
const sim_knobs sched_eevdf_knobs = { { P_SCHED_KIND, "eevdf", NULL }, eevdf_knob,
				      sizeof(eevdf_knob) / sizeof(eevdf_knob[0]) };

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

/* ---- the queue: the queued fair tasks in (deadline, enqueue order), a
 * sorted array with room at both ends. The kernel keeps them in an rbtree
 * augmented with each subtree's least vruntime, which finds the earliest
 * eligible deadline in O(log n); here the pick scans from the earliest
 * deadline for the first eligible task, the same task, found at once when
 * the earliest is eligible (the usual case: a task whose deadline comes
 * first has, with equal slices, run least), at worst after every queued
 * task. A task enqueued behind all the others is appended; one placed
 * among them moves the shorter side by one, its place found by reading
 * entries from the end nearer it in deadline. With 256 nice-0 jobs a CPU
 * (sgi-4096-make under EEVDF, its first 3 simulated seconds) three in four
 * of the jobs switched out go among the others (their runs differ by the
 * interrupts they took, so each round's order is new), with 22 entries
 * moved on average. Every access but the pick's scan is to the two ends, a
 * run of entries from one end, or a binary search (queue_find), in one
 * contiguous array per runqueue. ------------------------------------------ */

static inline bool before(const sched_task *a, const sched_task *b)
{
	return a->deadline < b->deadline || (a->deadline == b->deadline && a->ev_seq < b->ev_seq);
}

static int fair_attach(sched_rq *rq)
{
	int32_t need = 2 * (rq->ev_tasks + 1) + 2;
	if (rq->ev_cap < need) {
		int32_t cap = rq->ev_cap ? rq->ev_cap : 16;
		while (cap < need)
			cap *= 2;
		sched_ev_ent *q = realloc(rq->ev_q, (size_t)cap * sizeof(*q));
		if (!q)
			return SIM_ENOMEM;
		rq->ev_q = q;
		rq->ev_cap = cap;
	}
	rq->ev_tasks++;
	return 0;
}

/* Move the queue to the middle of its array. */
static void recentre(sched_rq *rq)
{
	int32_t head = (rq->ev_cap - rq->ev_n) / 2;
	memmove(&rq->ev_q[head], &rq->ev_q[rq->ev_head], (size_t)rq->ev_n * sizeof(*rq->ev_q));
	rq->ev_head = head;
}

/* Insert @p behind every task of its deadline or earlier (enqueue order
 * among equal deadlines: @p was enqueued last). */
static void queue_insert(sched_rq *rq, sched_task *p)
{
	assert(rq->ev_n + 2 <= rq->ev_cap); /* sched_attach() made room */
	/* The first entry with a later deadline, read for one by one from
	 * the end nearer it in deadline (the side of the deadline half way
	 * between the first and the last, both read anyway: a middle entry
	 * would be a cold line), in order and fetched a few entries ahead:
	 * mostly just the entries the move below shifts. */
	const sched_ev_ent *q = rq->ev_q;
	int32_t head = rq->ev_head, end = head + rq->ev_n, lo = end;
	if (rq->ev_n && p->deadline < q[end - 1].deadline) {
		int64_t first = q[head].deadline, last = q[end - 1].deadline;
		if (p->deadline >= first + (last - first) / 2) {
			lo = end - 1; /* stops at head + 1 at the latest: first <= p's */
			while (q[lo - 1].deadline > p->deadline) {
				if (lo - 8 >= head)
					__builtin_prefetch(&q[lo - 8]);
				lo--;
			}
		} else {
			lo = head;
			while (q[lo].deadline <= p->deadline) {
				if (lo + 8 < end)
					__builtin_prefetch(&q[lo + 8]);
				lo++;
			}
		}
	}
	int32_t before_n = lo - rq->ev_head, after_n = rq->ev_n - before_n;
	bool front = before_n < after_n;
	if (front ? rq->ev_head == 0 : rq->ev_head + rq->ev_n == rq->ev_cap) {
		int32_t old = rq->ev_head;
		recentre(rq);
		lo += rq->ev_head - old;
	}
	if (front) {
		memmove(&rq->ev_q[rq->ev_head - 1], &rq->ev_q[rq->ev_head],
			(size_t)before_n * sizeof(*rq->ev_q));
		rq->ev_head--;
		lo--;
	} else if (after_n) {
		memmove(&rq->ev_q[lo + 1], &rq->ev_q[lo], (size_t)after_n * sizeof(*rq->ev_q));
	}
	rq->ev_q[lo] = (sched_ev_ent){ p->deadline, p->vruntime, p };
	rq->ev_n++;
}

/* Remove the entry at index @i. */
static void queue_remove_at(sched_rq *rq, int32_t i)
{
	int32_t before_n = i - rq->ev_head, after_n = rq->ev_n - 1 - before_n;
	if (before_n < after_n) {
		memmove(&rq->ev_q[rq->ev_head + 1], &rq->ev_q[rq->ev_head],
			(size_t)before_n * sizeof(*rq->ev_q));
		rq->ev_head++;
	} else {
		memmove(&rq->ev_q[i], &rq->ev_q[i + 1], (size_t)after_n * sizeof(*rq->ev_q));
	}
	rq->ev_n--;
}

/* The index of queued @p. */
static int32_t queue_find(const sched_rq *rq, const sched_task *p)
{
	int32_t lo = rq->ev_head, hi = rq->ev_head + rq->ev_n;
	while (lo < hi) { /* the first entry of @p's deadline */
		int32_t mid = lo + (hi - lo) / 2;
		if (rq->ev_q[mid].deadline < p->deadline)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (rq->ev_q[lo].p != p)
		lo++;
	assert(lo < rq->ev_head + rq->ev_n);
	return lo;
}

/* ---- the average vruntime ---------------------------------------------- *
 * The kernel sums (v - min_vruntime) x w, a 64-bit offset form of the sum
 * of v x w; here the sum itself, in 128 bits. V = floor(sum / load) and
 * the test sum >= v x load come out the same either way (the offset
 * cancels), so min_vruntime, which exists for the offset, is not kept. */

/* avg_vruntime_add/sub: the queued tasks' sums (curr is added on the fly). */
static void avg_add(sched_rq *rq, const sched_task *p)
{
	rq->ev_avg += (__int128)p->vruntime * p->weight;
	rq->ev_load += p->weight;
}

static void avg_sub(sched_rq *rq, const sched_task *p)
{
	rq->ev_avg -= (__int128)p->vruntime * p->weight;
	rq->ev_load -= p->weight;
}

/* The entity running at @rq's level: on a group's queue its running task;
 * on a CPU's runqueue the running task, or the group entity of the group
 * it runs in. */
static inline sched_task *cur(const sched_rq *rq)
{
	sched_task *p = rq->curr;
	return p && p->grouped && !rq->ev_group ? rq->ev_gse : p;
}

static inline bool curr_fair(const sched_rq *rq)
{
	const sched_task *c = cur(rq);
	return c && (c->on_rq || c->delayed) && !c->fifo;
}

/* @n / @d truncated towards zero as __int128 division, @d > 0: a 64-bit
 * division when @n fits in 64 bits (the usual case, the same quotient),
 * else __divti3. */
static inline int64_t div_load(__int128 n, int64_t d)
{
	if (n >= INT64_MIN && n <= INT64_MAX)
		return (int64_t)n / d;
	return (int64_t)(n / d);
}

/* The sums with curr. */
static inline __int128 sums(const sched_rq *rq, int64_t *load)
{
	__int128 avg = rq->ev_avg;
	*load = rq->ev_load;
	if (curr_fair(rq)) {
		const sched_task *c = cur(rq);
		avg += (__int128)c->vruntime * c->weight;
		*load += c->weight;
	}
	return avg;
}

/* avg_vruntime(): V, rounded towards -infinity as the kernel does. */
int64_t sched_eevdf_avg_vruntime(const sched_rq *rq)
{
	int64_t load;
	__int128 avg = sums(rq, &load);
	if (!load)
		return 0;
	if (avg < 0)
		avg -= load - 1;
	return div_load(avg, load);
}

/* vruntime_eligible(): a task at @v has lag >= 0, given the sums. */
static inline bool eligible_v(__int128 avg, int64_t load, int64_t v)
{
	return avg >= (__int128)v * load;
}

bool sched_eevdf_eligible(const sched_rq *rq, const sched_task *p)
{
	int64_t load;
	__int128 avg = sums(rq, &load);
	return eligible_v(avg, load, p->vruntime);
}

/* The entities runnable at @rq's level, delayed ones included (the
 * kernel's cfs_rq->nr_running): on a CPU's runqueue its tasks less the
 * group's, plus the group entity. */
static inline int level_nr(const sched_rq *rq)
{
	int n = rq->nr_running + rq->ev_delayed;
	if (rq->ev_gq)
		n += (int)rq->ev_gse->on_rq - rq->ev_gq->nr_running;
	return n;
}

/* @se ran @delta ns at @rq's level: its vruntime, and a new deadline if it
 * reached its own (update_deadline()). True if that asks to reschedule. */
static bool charge(const sched_cfg *cfg, const sched_rq *rq, sched_task *se, int64_t delta)
{
	se->vruntime += vdelta(delta, se);
	bool renew = se->vruntime >= se->deadline;
	if (renew)
		se->deadline = se->vruntime + vdelta(cfg->base_slice, se);
	return renew && level_nr(rq) > 1;
}

/* update_curr() at @now: curr's run since it was last accounted, charged
 * to it and to its group's entity (for_each_sched_entity()). Returns true
 * if either reached its deadline (update_deadline(): a new one, and a
 * reschedule if another entity is runnable at its level). */
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
	if (!p->grouped)
		return charge(cfg, rq, p, delta);
	bool r = charge(cfg, rq->ev_gq, p, delta);
	return charge(cfg, rq, rq->ev_gse, delta) || r;
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
		int64_t load = rq->ev_load + (curr_fair(rq) ? cur(rq)->weight : 0);
		lag = div_load((__int128)p->vlag * (load + p->weight), load ? load : 1);
	}
	p->vruntime = V - lag;
	if (initial)
		vslice /= 2;
	p->deadline = p->vruntime + vslice;
}

/* enqueue_entity() of a task not curr: the queue and the sums, or the
 * FIFO list. */
static void enqueue(sched_rq *rq, sched_task *p)
{
	if (p->fifo) {
		p->ev_next = NULL;
		if (rq->ev_fifo_tail)
			rq->ev_fifo_tail->ev_next = p;
		else
			rq->ev_fifo = p;
		rq->ev_fifo_tail = p;
		return;
	}
	p->ev_seq = ++rq->ev_seq;
	avg_add(rq, p);
	queue_insert(rq, p);
}

/* dequeue of queued @p, at index @i of the queue if known (else -1). */
static void dequeue_queued(sched_rq *rq, sched_task *p, int32_t i)
{
	if (p->fifo) {
		sched_task **pp = &rq->ev_fifo, *prev = NULL;
		while (*pp && *pp != p) {
			prev = *pp;
			pp = &(*pp)->ev_next;
		}
		assert(*pp == p);
		*pp = p->ev_next;
		if (rq->ev_fifo_tail == p)
			rq->ev_fifo_tail = prev;
		p->ev_next = NULL;
		return;
	}
	queue_remove_at(rq, i >= 0 ? i : queue_find(rq, p));
	avg_sub(rq, p);
}

/* pick_eevdf(): curr if it is protected to its deadline (RUN_TO_PARITY)
 * and still eligible; else the eligible task with the earliest deadline,
 * curr included. A queued task's index goes to *@at (else -1). */
static sched_task *pick_eevdf(sched_rq *rq, int32_t *at)
{
	int64_t load;
	__int128 avg = sums(rq, &load);
	sched_task *curr = curr_fair(rq) ? cur(rq) : NULL;
	*at = -1;
	if (curr && !eligible_v(avg, load, curr->vruntime))
		curr = NULL;
	if (curr && curr->vlag == curr->deadline)
		return curr;
	sched_task *best = NULL;
	const sched_ev_ent *q = rq->ev_q;
	for (int32_t i = rq->ev_head, end = rq->ev_head + rq->ev_n; i < end; i++) {
		if (eligible_v(avg, load, q[i].vruntime)) {
			best = q[i].p;
			*at = i;
			break;
		}
	}
	if (!best || (curr && before(curr, best))) {
		best = curr;
		*at = -1;
	}
	if (!best) { /* none eligible (rounding): the earliest deadline */
		if (rq->ev_n) {
			*at = rq->ev_head;
			best = q[rq->ev_head].p;
		} else {
			best = curr_fair(rq) ? cur(rq) : NULL;
		}
	}
	return best;
}

/* dequeue_entity(DEQUEUE_DELAYED) of delayed @p, queued at index @i (or
 * -1): its lag taken against V with it still queued, then clipped to 0
 * if positive (finish_delayed_dequeue_entity(), DELAY_ZERO). */
static void finish_delayed(const sched_cfg *cfg, sched_rq *rq, sched_task *p, int32_t i)
{
	p->vlag = entity_lag(cfg, sched_eevdf_avg_vruntime(rq), p);
	if (p->vlag > 0)
		p->vlag = 0;
	dequeue_queued(rq, p, i);
	p->delayed = false;
	rq->ev_delayed--;
}

/* ---- group scheduling (sched.autogroup) --------------------------------- *
 * The jobs form one task group, an autogroup (a session's tasks,
 * kernel/sched/autogroup.c): on each CPU a queue of its own, which a group
 * entity stands for on the CPU's runqueue beside the root tasks (ksoftirqd,
 * the kthreads); the pick takes an entity at the root, and within the
 * group if that is the group's (pick_task_fair()); time is charged at both
 * levels (for_each_sched_entity()); a wake-up preempts if the woken task's
 * entity is the pick at the level where it meets curr's
 * (find_matching_se()). The group entity's weight is the group's shares
 * split by load, calc_group_shares() (fair.c 6.12:3925-3946), with each
 * CPU's queued weight standing for its load_avg, updated where the kernel
 * calls update_cfs_group(): at enqueue, dequeue and the tick; a reweight
 * keeps its lag and the rest of its slice in real time (reweight_eevdf(),
 * :3720-3826). Left out: more than one group, cgroup hierarchies deeper
 * than one level, PELT. */

static inline sched_rq *level_of(sched_rq *rq, const sched_task *p)
{
	return p->grouped ? rq->ev_gq : rq;
}

/* reweight_entity() of @rq's group entity to calc_group_shares(). */
static void group_reweight(const sched_cfg *cfg, sched_rq *rq)
{
	sched_rq *gq = rq->ev_gq;
	sched_task *se = rq->ev_gse;
	sched_tg *tg = cfg->tg;
	int64_t load;
	(void)sums(gq, &load);
	tg->load += load - gq->ev_contrib;
	gq->ev_contrib = load;
	if (!load || tg->load <= 0)
		return;
	int64_t w = tg->shares * load / tg->load;
	w = w < 2 ? 2 : w > tg->shares ? tg->shares : w; /* MIN_SHARES .. tg->shares */
	if (w == se->weight)
		return;
	if (!se->on_rq && !se->delayed) {
		se->vlag = se->vlag * se->weight / w;
		se->weight = (int32_t)w;
		return;
	}
	bool queued = se != cur(rq);
	bool prot = se->vlag == se->deadline;
	int64_t V = sched_eevdf_avg_vruntime(rq);
	if (queued)
		dequeue_queued(rq, se, -1);
	int64_t lag = (V - se->vruntime) * se->weight / w;
	int64_t vsl = (se->deadline - se->vruntime) * se->weight / w;
	se->vruntime = V - lag;
	se->deadline = se->vruntime + vsl;
	if (prot)
		se->vlag = se->deadline;
	se->weight = (int32_t)w;
	if (queued)
		enqueue(rq, se);
}

/* enqueue_entity() of woken @p on its level's queue @lq: a delayed one
 * requeued (requeue_delayed_entity()), else placed. */
static void level_wake(const sched_cfg *cfg, sched_rq *lq, sched_task *p)
{
	if (p->delayed) {
		/* ttwu_runnable() -> requeue_delayed_entity(): where it is, or
		 * placed anew with lag 0 once its lag is positive. */
		int64_t V = sched_eevdf_avg_vruntime(lq);
		if (entity_lag(cfg, V, p) > 0) {
			if (p == cur(lq)) {
				p->vruntime = V;
				p->deadline = V + vdelta(cfg->base_slice, p);
			} else {
				dequeue_queued(lq, p, -1);
				p->vlag = 0;
				place(cfg, lq, p, false);
				enqueue(lq, p);
			}
		}
		p->delayed = false;
		lq->ev_delayed--;
		return;
	}
	if (!p->fifo)
		place(cfg, lq, p, false);
	if (p != lq->ev_gse || p != cur(lq)) /* a group entity still curr stays so */
		enqueue(lq, p);
}

/* dequeue_entity(DEQUEUE_SLEEP) of runnable @p on @lq: delayed if it is
 * not eligible (DELAY_DEQUEUE), else its lag saved (and, not curr, off
 * the queue). */
static void level_sleep(const sched_cfg *cfg, sched_rq *lq, sched_task *p)
{
	if (!p->fifo && cfg->delay_dequeue && !sched_eevdf_eligible(lq, p)) {
		p->delayed = true; /* still queued: fair_schedule() puts it back */
		lq->ev_delayed++;
	} else if (!p->fifo) {
		p->vlag = entity_lag(cfg, sched_eevdf_avg_vruntime(lq), p);
		if (p != cur(lq))
			dequeue_queued(lq, p, -1);
	}
	p->on_rq = false;
}

/* The group entity follows its queue: runnable at the root while the
 * group has a task queued on this CPU (delayed ones too: the kernel
 * dequeues a group entity only when its cfs_rq's load is 0), then its
 * weight. */
static void group_sync(const sched_cfg *cfg, sched_rq *rq)
{
	sched_rq *gq = rq->ev_gq;
	sched_task *se = rq->ev_gse;
	bool queued = gq->nr_running + gq->ev_delayed > 0;
	if (queued && !se->on_rq) {
		level_wake(cfg, rq, se);
		se->on_rq = true;
	} else if (!queued && se->on_rq) {
		level_sleep(cfg, rq, se);
	}
	group_reweight(cfg, rq);
}

int sched_eevdf_group_init(const sched_cfg *cfg, sched_rq *rq)
{
	rq->ev_gq = calloc(1, sizeof(*rq->ev_gq));
	rq->ev_gse = calloc(1, sizeof(*rq->ev_gse));
	if (!rq->ev_gq || !rq->ev_gse)
		return SIM_ENOMEM; /* sched_rq_destroy() frees what there is */
	sched_rq_init(rq->ev_gq, NULL);
	rq->ev_gq->ev_group = true;
	sched_task_init(cfg, rq->ev_gse, 0);
	rq->ev_gse->weight = (int32_t)cfg->tg->shares;
	return fair_attach(rq);
}

int sched_eevdf_join_group(sched_rq *rq, sched_task *p)
{
	p->grouped = true;
	return fair_attach(rq->ev_gq);
}

/* The weight runnable at @rq's root: the queued entities and curr's
 * (a group as its entity), as the root cfs_rq's load counts them. */
static int64_t root_load(const sched_rq *rq)
{
	return rq->ev_load + (curr_fair(rq) ? cur(rq)->weight : 0);
}

/* PELT's time constant: 32 periods of 1024 us halve a contribution
 * (pelt.c 6.12:160-175), tau = 32 x 1024 us / ln 2. */
#define PELT_TAU_NS (32.0 * 1024e3 / 0.69314718055994530942)

/* The load average of @rq brought to @now, the root's weight unchanged
 * since the last update (each class entry point that may change it
 * updates it first). */
static inline double pelt_at(const sched_rq *rq, sim_time now)
{
	double l = (double)root_load(rq);
	if (now <= rq->ev_pelt_t)
		return rq->ev_pelt;
	return l + (rq->ev_pelt - l) * exp(-(double)(now - rq->ev_pelt_t) / PELT_TAU_NS);
}

static inline void pelt_update(const sched_cfg *cfg, sched_rq *rq, sim_time now)
{
	if (!cfg->pelt || now <= rq->ev_pelt_t)
		return;
	rq->ev_pelt = pelt_at(rq, now);
	rq->ev_pelt_t = now;
}

double sched_eevdf_cpu_load(const sched_rq *rq, sim_time now)
{
	return pelt_at(rq, now);
}

static void fair_add_runnable(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now)
{
	pelt_update(cfg, rq, now);
	update_curr(cfg, rq, now);
	sched_rq *lq = level_of(rq, p);
	p->vlag = 0;
	place(cfg, lq, p, true);
	p->on_rq = true;
	p->wait_since = now;
	enqueue(lq, p);
	rq->nr_running++;
	if (p->grouped) {
		lq->nr_running++;
		group_sync(cfg, rq);
	}
}

static bool fair_wake(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now)
{
	pelt_update(cfg, rq, now);
	assert(!p->on_rq);
	update_curr(cfg, rq, now);
	sched_rq *lq = level_of(rq, p);
	level_wake(cfg, lq, p);
	p->on_rq = true;
	p->wait_since = now;
	rq->nr_running++;
	if (p->grouped) {
		lq->nr_running++;
		group_sync(cfg, rq);
	}
	sched_task *c = rq->curr;
	if (!c)
		return true;
	if (p->fifo)
		return !c->fifo;
	if (c->fifo)
		return false;
	/* check_preempt_wakeup_fair(): find_matching_se(), then the pick at
	 * the level where the two meet. */
	int32_t at;
	if (p->grouped && c->grouped)
		return pick_eevdf(lq, &at) == p;
	return pick_eevdf(rq, &at) == (p->grouped ? rq->ev_gse : p);
}

static void fair_sleep(const sched_cfg *cfg, sched_rq *rq, sched_task *p, sim_time now)
{
	pelt_update(cfg, rq, now);
	assert(p == rq->curr && p->on_rq);
	update_curr(cfg, rq, now);
	sched_rq *lq = level_of(rq, p);
	level_sleep(cfg, lq, p);
	rq->nr_running--;
	p->sleep_since = now;
	p->wait_since = -1;
	if (p->grouped) {
		lq->nr_running--;
		group_sync(cfg, rq);
	}
}

static bool fair_tick(const sched_cfg *cfg, sched_rq *rq, int64_t jiffies, sim_time now)
{
	pelt_update(cfg, rq, now);
	sched_task *p = rq->curr;
	if (!p)
		return false;
	if (p->fifo)
		return false; /* SCHED_FIFO runs until it sleeps */
	bool r = update_curr(cfg, rq, now);
	if (rq->ev_gq && rq->ev_gse->on_rq)
		group_reweight(cfg, rq); /* entity_tick() -> update_cfs_group() */
	return r;
}

/* pick_next_entity() on @lq until it finds one that is not delayed
 * (dequeueing those it finds), its index to *@at. */
static sched_task *pick_level(const sched_cfg *cfg, sched_rq *lq, int32_t *at)
{
	sched_task *next;
	while ((next = pick_eevdf(lq, at)) && next->delayed)
		finish_delayed(cfg, lq, next, *at);
	return next;
}

static sched_task *fair_schedule(const sched_cfg *cfg, sched_rq *rq, sim_time now)
{
	sched_task *prev = rq->curr, *next;
	sched_rq *gq = rq->ev_gq;
	int32_t at = -1, gat = -1;
	pelt_update(cfg, rq, now);
	if (prev)
		update_curr(cfg, rq, now);
	if (prev && prev->grouped && prev->delayed) {
		/* Asleep but queued in its group (DELAY_DEQUEUE). */
		gq->curr = NULL;
		prev->wait_since = -1;
		enqueue(gq, prev);
	}
	sched_task *ptop = prev && prev->grouped ? rq->ev_gse : prev;
	if (ptop && ptop->delayed) {
		/* Asleep but queued (DELAY_DEQUEUE): among the others for the
		 * pick, which the kernel makes with it still curr. */
		rq->curr = NULL;
		prev->wait_since = -1;
		enqueue(rq, ptop);
	}
	sched_task *rcur = rq->curr ? ptop : NULL; /* the root's curr entity */
	/* pick_task_fair() with curr still in place, then put_prev_entity()
	 * and set_next_entity(); a delayed entity picked is dequeued and the
	 * pick made again (pick_next_entity()); a group's entity picked, the
	 * pick goes on in its queue. */
	if (prev && prev->fifo && prev->on_rq) {
		next = prev;
	} else if (rq->ev_fifo) {
		next = rq->ev_fifo;
	} else {
		for (;;) {
			next = pick_level(cfg, rq, &at);
			if (!next || !gq || next != rq->ev_gse)
				break;
			sched_task *t = pick_level(cfg, gq, &gat);
			if (t) {
				next = t;
				break;
			}
			/* Only delayed tasks were queued there: the group leaves. */
			group_sync(cfg, rq);
			if (rcur == rq->ev_gse && rq->ev_gse->delayed) {
				rq->curr = NULL;
				enqueue(rq, rq->ev_gse);
				rcur = NULL;
			}
		}
	}
	rq->curr = NULL;
	sched_task *ntop = next && next->grouped ? rq->ev_gse : next;
	if (ntop && ntop != rcur) {
		/* Taken out before prev goes in (the kernel puts prev back
		 * first; the order changes nothing but where next is). */
		dequeue_queued(rq, ntop, at);
		if (!ntop->fifo)
			ntop->vlag = ntop->deadline; /* the HACK that protects its slice */
	}
	if (rcur && rcur != ntop && rcur->on_rq) {
		rcur->wait_since = now;
		enqueue(rq, rcur);
	}
	if (gq) {
		sched_task *gcur = gq->curr, *gnext = next && next->grouped ? next : NULL;
		if (gnext && gnext != gcur) {
			dequeue_queued(gq, gnext, gat);
			gnext->vlag = gnext->deadline;
		}
		if (gcur && gcur != gnext && gcur->on_rq) {
			gcur->wait_since = now;
			enqueue(gq, gcur);
		}
		gq->curr = gnext;
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

/* rt_mutex_setprio(): to SCHED_FIFO (boosted) and back. A task leaving
 * FIFO is placed as a waking one with no lag (switched_to_fair()). */
static bool fair_set_fifo(const sched_cfg *cfg, sched_rq *rq, sched_task *p, bool fifo, sim_time now)
{
	if (p->fifo == fifo)
		return false;
	assert(!p->grouped); /* sched_validate(): not with rcu.boost */
	pelt_update(cfg, rq, now);
	update_curr(cfg, rq, now);
	if (p->delayed && p != rq->curr)
		finish_delayed(cfg, rq, p, -1);
	bool queued = p->on_rq && p != rq->curr;
	if (queued)
		dequeue_queued(rq, p, -1);
	p->fifo = fifo;
	if (!fifo) {
		p->vlag = 0;
		place(cfg, rq, p, false);
		if (p == rq->curr)
			p->exec_start = now;
	}
	if (queued)
		enqueue(rq, p);
	if (p == rq->curr)
		return !fifo; /* back among the fair tasks: let the pick decide */
	return fifo && p->on_rq && (!rq->curr || !rq->curr->fifo);
}

const sched_class sched_fair_class = {
	.name = "eevdf",
	.nohz_full = true,
	.attach = fair_attach,
	.add_runnable = fair_add_runnable,
	.wake = fair_wake,
	.sleep = fair_sleep,
	.tick = fair_tick,
	.schedule = fair_schedule,
	.set_fifo = fair_set_fifo,
};
