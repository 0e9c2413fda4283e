/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * engine.h - the discrete-event core of rcusim.
 *
 * Simulated time is integer nanoseconds. Work is scheduled through timers
 * that a model embeds in its own objects (no allocation per event); a timer
 * fires by calling its handler. Events are ordered by (time, sequence), the
 * sequence being the order in which they were armed, so equal times fire in
 * arming order and runs are deterministic.
 */
#ifndef RCUSIM_SIM_ENGINE_H
#define RCUSIM_SIM_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"

typedef int64_t sim_time; /* simulated ns since t = 0 */

#define SIM_TIME_MAX INT64_MAX
#define SIM_NS_PER_US INT64_C(1000)
#define SIM_NS_PER_MS INT64_C(1000000)
#define SIM_NS_PER_S INT64_C(1000000000)

typedef struct sim_engine sim_engine;
typedef struct sim_timer sim_timer;

/* A timer's action: runs when the timer fires; may arm, cancel or finish any
 * timer, including the one that fired. */
typedef void sim_handler(sim_engine *eng, sim_timer *timer);

/* Embed in the object whose work it schedules; initialise with
 * sim_timer_init() before use. Fields are the engine's; read them through
 * the accessors below. */
struct sim_timer {
	sim_handler *fn; /* action on expiry */
	void *ctx;       /* the owner's data, untouched by the engine */
	sim_time when;   /* ns: expiry time while armed */
	uint64_t key;    /* sequence number of the live heap entry, 0 when idle */
	uint32_t refs;   /* heap entries (live or stale) that point here */
};

/* Errors: negative values, the one type of error.h. */

/* Create an engine at t = 0. Returns SIM_OK or SIM_ENOMEM. */
int sim_engine_create(sim_engine **out);
/* Free the engine. Timers must have been finished or be abandoned with it.
 * NULL is a no-op. */
void sim_engine_destroy(sim_engine *eng);

/* Current simulated time (ns). */
sim_time sim_now(const sim_engine *eng);
/* Events dispatched so far. */
uint64_t sim_events(const sim_engine *eng);
/* Sequence number of the event being dispatched (the last one, between
 * runs); with sim_now() it places a moment in the (time, seq) order. */
uint64_t sim_engine_cur_seq(const sim_engine *eng);
/* The sequence number up to which the events of the current instant have
 * run: the current event's while sim_engine_run() dispatches, every one
 * (UINT64_MAX) between runs. */
uint64_t sim_engine_settled_seq(const sim_engine *eng);
/* Did the last sim_engine_run() reach its end (no stop, no error)? */
bool sim_engine_completed(const sim_engine *eng);
/* Hand out the next sequence number without arming anything: a model that
 * may never need an event (an end it can settle when it is next touched)
 * takes the number the event would have had, and arms it with
 * sim_timer_at_seq() if it turns out to be needed, so that the order of
 * every other event is exactly as if it had been armed at once. */
uint64_t sim_engine_reserve_seq(sim_engine *eng);
/* Armed timers (excluding cancelled entries still in the heap). */
uint64_t sim_pending(const sim_engine *eng);

/* Run events in (time, seq) order until none is left at or before @end, or
 * a stop is requested. On a normal end the clock is advanced to @end (unless
 * @end is SIM_TIME_MAX). Returns SIM_OK, or SIM_ESTOPPED if stopped (the
 * clock then stays at the last event), or the error a handler raised with
 * sim_engine_fail(). */
int sim_engine_run(sim_engine *eng, sim_time end);
/* Ask the loop to return after the current event. Safe from handlers. */
void sim_engine_stop(sim_engine *eng);
/* Stop the loop with an error code that sim_engine_run() returns. */
void sim_engine_fail(sim_engine *eng, int err);
/* Watch an async-signal flag (set by a signal handler): the loop stops when
 * it becomes non-zero. NULL watches nothing. */
void sim_engine_watch(sim_engine *eng, const volatile sig_atomic_t *flag);

/* Set up a timer with its handler and owner data. Returns SIM_OK. */
int sim_timer_init(sim_engine *eng, sim_timer *t, sim_handler *fn, void *ctx);
/* Cancel a timer for good; its memory may then be reused or freed. O(1)
 * unless stale heap entries still point at it (then O(pending)). */
void sim_timer_fini(sim_engine *eng, sim_timer *t);
/* Arm (or re-arm) @t to fire at absolute time @when (>= now). */
int sim_timer_at(sim_engine *eng, sim_timer *t, sim_time when);
/* Arm @t at @when (>= now) with a number from sim_engine_reserve_seq(). */
int sim_timer_at_seq(sim_engine *eng, sim_timer *t, sim_time when, uint64_t seq);
/* Arm (or re-arm) @t to fire @delay_ns from now; the sum is clamped to
 * SIM_TIME_MAX on overflow. */
int sim_timer_after(sim_engine *eng, sim_timer *t, sim_time delay_ns);
/* Disarm @t if armed. O(1): the heap entry is dropped lazily. */
void sim_timer_cancel(sim_engine *eng, sim_timer *t);

/* Is @t armed? */
static inline bool sim_timer_armed(const sim_timer *t)
{
	return t->key != 0;
}

#endif
