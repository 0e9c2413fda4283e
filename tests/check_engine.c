/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_engine.c - the event engine: order, ties, cancel, re-arm, fini,
 * determinism, and agreement with a sorted reference on random loads. */
#include <check.h>

#include "testlib.h"
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks.h"
#include "engine.h"
#include "rng.h"

typedef struct rec {
	sim_timer t;
	int id;
	int *log;
	int *nlog;
} rec;

static void log_fire(sim_engine *eng, sim_timer *t)
{
	rec *r = t->ctx;
	(void)eng;
	r->log[(*r->nlog)++] = r->id;
}

START_TEST(engine_reserved_seq_keeps_order)
{
	/* A number reserved before B is armed puts A, armed later at the same
	 * time, ahead of B: the order is as if A had been armed first. */
	sim_engine *eng;
	ck_assert_int_eq(sim_engine_create(&eng), SIM_OK);
	int log[4], n = 0;
	rec a = { .id = 0, .log = log, .nlog = &n }, b = { .id = 1, .log = log, .nlog = &n };
	sim_timer_init(eng, &a.t, log_fire, &a);
	sim_timer_init(eng, &b.t, log_fire, &b);
	uint64_t s = sim_engine_reserve_seq(eng);
	ck_assert_int_eq(sim_timer_at(eng, &b.t, 10), SIM_OK);
	ck_assert_int_eq(sim_timer_at_seq(eng, &a.t, 10, s), SIM_OK);
	ck_assert_int_eq(sim_engine_run(eng, 100), SIM_OK);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(log[0], 0);
	ck_assert_int_eq(log[1], 1);
	/* The last dispatched event was B, armed with s + 1. */
	ck_assert_uint_eq(sim_engine_cur_seq(eng), s + 1);
	ck_assert(sim_engine_completed(eng));
	sim_timer_fini(eng, &a.t);
	sim_timer_fini(eng, &b.t);
	sim_engine_destroy(eng);
}
END_TEST

START_TEST(engine_time_order)
{
	sim_engine *eng;
	ck_assert_int_eq(sim_engine_create(&eng), SIM_OK);
	int log[8], n = 0;
	rec r[5];
	sim_time when[5] = { 50, 10, 40, 20, 30 };
	for (int i = 0; i < 5; i++) {
		r[i] = (rec){ .id = i, .log = log, .nlog = &n };
		sim_timer_init(eng, &r[i].t, log_fire, &r[i]);
		ck_assert_int_eq(sim_timer_at(eng, &r[i].t, when[i]), SIM_OK);
	}
	ck_assert_uint_eq(sim_pending(eng), 5);
	ck_assert_int_eq(sim_engine_run(eng, 100), SIM_OK);
	int want[5] = { 1, 3, 4, 2, 0 };
	ck_assert_int_eq(n, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(log[i], want[i]);
	ck_assert_int_eq(sim_now(eng), 100); /* clock advanced to the end */
	ck_assert_uint_eq(sim_events(eng), 5);
	sim_engine_destroy(eng);
}
END_TEST

START_TEST(engine_equal_time_fifo)
{
	sim_engine *eng;
	sim_engine_create(&eng);
	int log[100], n = 0;
	rec r[100];
	for (int i = 0; i < 100; i++) {
		r[i] = (rec){ .id = i, .log = log, .nlog = &n };
		sim_timer_init(eng, &r[i].t, log_fire, &r[i]);
		sim_timer_at(eng, &r[i].t, 7);
	}
	sim_engine_run(eng, SIM_TIME_MAX);
	ck_assert_int_eq(n, 100);
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(log[i], i); /* arming order */
	sim_engine_destroy(eng);
}
END_TEST

START_TEST(engine_end_is_inclusive)
{
	sim_engine *eng;
	sim_engine_create(&eng);
	int log[4], n = 0;
	rec a = { .id = 1, .log = log, .nlog = &n }, b = { .id = 2, .log = log, .nlog = &n };
	sim_timer_init(eng, &a.t, log_fire, &a);
	sim_timer_init(eng, &b.t, log_fire, &b);
	sim_timer_at(eng, &a.t, 100);
	sim_timer_at(eng, &b.t, 101);
	sim_engine_run(eng, 100);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(sim_now(eng), 100);
	ck_assert(sim_timer_armed(&b.t));
	sim_engine_run(eng, 200); /* resumes */
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(log[1], 2);
	sim_engine_destroy(eng);
}
END_TEST

START_TEST(engine_cancel_and_rearm)
{
	sim_engine *eng;
	sim_engine_create(&eng);
	int log[8], n = 0;
	rec r[3];
	for (int i = 0; i < 3; i++) {
		r[i] = (rec){ .id = i, .log = log, .nlog = &n };
		sim_timer_init(eng, &r[i].t, log_fire, &r[i]);
		sim_timer_at(eng, &r[i].t, 10 * (i + 1));
	}
	sim_timer_cancel(eng, &r[0].t);
	ck_assert(!sim_timer_armed(&r[0].t));
	sim_timer_at(eng, &r[1].t, 35); /* re-arm: fires once, at 35 */
	ck_assert_uint_eq(sim_pending(eng), 2);
	sim_engine_run(eng, SIM_TIME_MAX);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(log[0], 2);
	ck_assert_int_eq(log[1], 1);
	ck_assert_int_eq(sim_now(eng), 35);
	sim_engine_destroy(eng);
}
END_TEST

START_TEST(engine_rearm_that_compacts_keeps_the_new_entry)
{
	/* 2048 armed timers, 1024 of them cancelled: stale entries are half the
	 * queue, not yet more. Re-arming one more makes them more than half (1025
	 * of 2049), so the re-arm itself compacts. Its new entry must survive: it
	 * fires once, at its new time, and so does every timer still armed. (It
	 * used to be dropped with the old one: the timer looked armed and never
	 * fired.) */
	enum { N = 2048, CANCELLED = 1024 };
	sim_engine *eng;
	sim_engine_create(&eng);
	static rec r[N];
	static int log[N];
	int n = 0;
	for (int i = 0; i < N; i++) {
		r[i] = (rec){ .id = i, .log = log, .nlog = &n };
		sim_timer_init(eng, &r[i].t, log_fire, &r[i]);
		sim_timer_at(eng, &r[i].t, 1000 + i);
	}
	for (int i = 0; i < CANCELLED; i++)
		sim_timer_cancel(eng, &r[i].t);
	sim_timer_at(eng, &r[N - 1].t, 10);
	ck_assert(sim_timer_armed(&r[N - 1].t));
	ck_assert_uint_eq(sim_pending(eng), N - CANCELLED);
	sim_engine_run(eng, SIM_TIME_MAX);
	ck_assert_int_eq(n, N - CANCELLED);
	ck_assert_int_eq(log[0], N - 1); /* the re-armed one, first, at 10 */
	for (int i = 1; i < n; i++)
		ck_assert_int_eq(log[i], CANCELLED + i - 1);
	for (int i = 0; i < N; i++)
		sim_timer_fini(eng, &r[i].t);
	sim_engine_destroy(eng);
}
END_TEST

/* A handler that cancels its victim, re-arms itself once, and finishes a
 * third timer whose stale entries are still queued. */
typedef struct killer {
	sim_timer t;
	sim_timer *victim;
	int fired;
} killer;

static void kill_fire(sim_engine *eng, sim_timer *t)
{
	killer *k = t->ctx;
	k->fired++;
	sim_timer_cancel(eng, k->victim);
	if (k->fired == 1)
		sim_timer_after(eng, t, 0); /* same time: after everything already armed */
}

START_TEST(engine_cancel_during_dispatch)
{
	sim_engine *eng;
	sim_engine_create(&eng);
	int log[8], n = 0;
	rec v = { .id = 9, .log = log, .nlog = &n };
	killer k = { .victim = &v.t };
	sim_timer_init(eng, &k.t, kill_fire, &k);
	sim_timer_init(eng, &v.t, log_fire, &v);
	sim_timer_at(eng, &k.t, 5);
	sim_timer_at(eng, &v.t, 5); /* same time, armed later: cancelled before it fires */
	sim_engine_run(eng, SIM_TIME_MAX);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(k.fired, 2);
	sim_engine_destroy(eng);
}
END_TEST

START_TEST(engine_fini_purges_stale)
{
	sim_engine *eng;
	sim_engine_create(&eng);
	int log[8], n = 0;
	rec *r = malloc(sizeof(*r));
	rec other = { .id = 2, .log = log, .nlog = &n };
	*r = (rec){ .id = 1, .log = log, .nlog = &n };
	sim_timer_init(eng, &r->t, log_fire, r);
	sim_timer_init(eng, &other.t, log_fire, &other);
	for (int i = 0; i < 10; i++)
		sim_timer_at(eng, &r->t, 100 + i); /* nine stale entries */
	sim_timer_at(eng, &other.t, 200);
	ck_assert_uint_eq(r->t.refs, 10);
	sim_timer_fini(eng, &r->t);
	ck_assert_uint_eq(r->t.refs, 0);
	free(r); /* under ASan, a dangling entry would be a use-after-free */
	ck_assert_int_eq(sim_engine_run(eng, SIM_TIME_MAX), SIM_OK);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(log[0], 2);
	sim_engine_destroy(eng);
}
END_TEST

/* engine_front_slot_keeps_order: timers armed from a handler, each earlier
 * than everything near (the front slot), displacing one another, cancelled
 * and re-armed there, and one re-armed 1 ns ahead from its own handler as
 * the kernel model's tick is. */
typedef struct front_case {
	sim_timer drv, tick;
	rec anchor, w, y, z, x, p;
	int ticks;
	int *log, *nlog;
} front_case;

static void front_tick_fire(sim_engine *eng, sim_timer *t)
{
	front_case *f = t->ctx;
	f->log[(*f->nlog)++] = 100 + (int)sim_now(eng);
	if (++f->ticks < 5)
		ck_assert_int_eq(sim_timer_after(eng, t, 1), SIM_OK);
}

static void front_drv_fire(sim_engine *eng, sim_timer *t)
{
	front_case *f = t->ctx;
	f->log[(*f->nlog)++] = 0;
	/* The anchor (t = 1000) is in the heap: each of these is the front in
	 * turn, the one before it pushed on the heap. */
	ck_assert_int_eq(sim_timer_at(eng, &f->x.t, 10), SIM_OK);
	ck_assert_int_eq(sim_timer_at(eng, &f->y.t, 4), SIM_OK);
	ck_assert_int_eq(sim_timer_at(eng, &f->z.t, 4), SIM_OK); /* behind y: the heap */
	ck_assert_int_eq(sim_timer_at(eng, &f->w.t, 2), SIM_OK);
	sim_timer_cancel(eng, &f->y.t); /* y re-armed behind z */
	ck_assert_int_eq(sim_timer_at(eng, &f->y.t, 4), SIM_OK);
	sim_timer_cancel(eng, &f->w.t); /* the front goes stale; w again, behind it */
	ck_assert_int_eq(sim_timer_at(eng, &f->w.t, 2), SIM_OK);
	ck_assert_int_eq(sim_timer_at(eng, &f->p.t, 22), SIM_OK);
	ck_assert_int_eq(sim_timer_at(eng, &f->tick, 20), SIM_OK);
}

START_TEST(engine_front_slot_keeps_order)
{
	sim_engine *eng;
	ck_assert_int_eq(sim_engine_create(&eng), SIM_OK);
	int log[16], n = 0;
	front_case f = { .log = log, .nlog = &n };
	rec *r[] = { &f.anchor, &f.w, &f.y, &f.z, &f.x, &f.p };
	int id[] = { 1000, 2, 4, 5, 10, 22 }; /* z logs 5: it fires at 4, before y */
	for (int i = 0; i < 6; i++) {
		*r[i] = (rec){ .id = id[i], .log = log, .nlog = &n };
		sim_timer_init(eng, &r[i]->t, log_fire, r[i]);
	}
	sim_timer_init(eng, &f.drv, front_drv_fire, &f);
	sim_timer_init(eng, &f.tick, front_tick_fire, &f);
	ck_assert_int_eq(sim_timer_at(eng, &f.drv, 1), SIM_OK);
	ck_assert_int_eq(sim_timer_at(eng, &f.anchor.t, 1000), SIM_OK);
	ck_assert_int_eq(sim_engine_run(eng, SIM_TIME_MAX), SIM_OK);
	/* driver, w, z, y (re-armed after z), x, the ticks at 20 and 21, p
	 * (armed before the tick at 22 was), the ticks at 22-24, the anchor */
	int want[] = { 0, 2, 5, 4, 10, 120, 121, 22, 122, 123, 124, 1000 };
	ck_assert_int_eq(n, 12);
	for (int i = 0; i < 12; i++)
		ck_assert_int_eq(log[i], want[i]);
	ck_assert_uint_eq(sim_events(eng), 12);
	ck_assert_uint_eq(sim_pending(eng), 0);
	sim_engine_destroy(eng);
}
END_TEST

START_TEST(engine_after_clamps_overflow)
{
	sim_engine *eng;
	sim_engine_create(&eng);
	int log[2], n = 0;
	rec a = { .id = 1, .log = log, .nlog = &n };
	sim_timer_init(eng, &a.t, log_fire, &a);
	sim_timer_at(eng, &a.t, 1000);
	sim_engine_run(eng, 1000);
	sim_timer_after(eng, &a.t, SIM_TIME_MAX);
	ck_assert_int_eq(a.t.when, SIM_TIME_MAX);
	sim_engine_run(eng, SIM_TIME_MAX);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(sim_now(eng), SIM_TIME_MAX);
	sim_engine_destroy(eng);
}
END_TEST

static void stopper(sim_engine *eng, sim_timer *t)
{
	int *count = t->ctx;
	if (++*count == 3)
		sim_engine_stop(eng);
	sim_timer_after(eng, t, 10);
}

START_TEST(engine_stop_and_watch)
{
	sim_engine *eng;
	sim_engine_create(&eng);
	int count = 0;
	sim_timer t;
	sim_timer_init(eng, &t, stopper, &count);
	sim_timer_at(eng, &t, 0);
	ck_assert_int_eq(sim_engine_run(eng, 1000), SIM_ESTOPPED);
	ck_assert_int_eq(count, 3);
	ck_assert_int_eq(sim_now(eng), 20); /* stays at the last event */
	volatile sig_atomic_t flag = 1;
	sim_engine_watch(eng, &flag);
	ck_assert_int_eq(sim_engine_run(eng, 1000), SIM_ESTOPPED);
	ck_assert_int_eq(count, 3);
	flag = 0;
	ck_assert_int_eq(sim_engine_run(eng, 1000), SIM_OK);
	ck_assert_int_eq(count, 101); /* t = 0, 10, ..., 1000 */
	sim_engine_destroy(eng);
}
END_TEST

START_TEST(engine_failure_before_run_is_kept)
{
	/* A failure raised while the model is built (an allocation that failed
	 * when arming its first events) must end the first run with that
	 * error, not be wiped by it (it was: the run reset it and went on). */
	sim_engine *eng;
	sim_engine_create(&eng);
	int count = 0;
	sim_timer t;
	sim_timer_init(eng, &t, stopper, &count);
	sim_timer_at(eng, &t, 0);
	sim_engine_fail(eng, SIM_ENOMEM);
	ck_assert_int_eq(sim_engine_run(eng, 1000), SIM_ENOMEM);
	ck_assert_int_eq(count, 0);
	ck_assert_int_eq(sim_engine_run(eng, 1000), SIM_ENOMEM);
	sim_engine_destroy(eng);
}
END_TEST

/* Random load: N timers re-arming themselves at random offsets (some zero,
 * some far, some cancelling a random other timer). The firing sequence must
 * equal the (time, arming sequence) order computed independently. */
typedef struct rnd {
	sim_timer t;
	struct rload *L;
} rnd;

typedef struct rload {
	rnd *tm;
	int n;
	sim_rng *rng;
	uint64_t hash;       /* FNV of the (time, id) firing trace */
	sim_time last;       /* last firing time */
	uint64_t fired;      /* events */
	uint64_t limit;      /* stop re-arming after this many */
	int order_ok;        /* times never went backwards */
} rload;

static void rnd_fire(sim_engine *eng, sim_timer *t)
{
	rnd *r = t->ctx;
	rload *L = r->L;
	sim_time now = sim_now(eng);
	if (now < L->last)
		L->order_ok = 0;
	L->last = now;
	uint64_t id = (uint64_t)(r - L->tm);
	L->hash = (L->hash ^ (uint64_t)now) * UINT64_C(0x100000001b3);
	L->hash = (L->hash ^ id) * UINT64_C(0x100000001b3);
	if (++L->fired >= L->limit)
		return;
	double u = sim_rng_uniform(L->rng);
	sim_time d;
	if (u < 0.05)
		d = 0;
	else if (u < 0.07)
		d = (sim_time)sim_rng_uniform_int(L->rng, 1000000000); /* far */
	else
		d = (sim_time)sim_rng_exponential(L->rng, 1000.0);
	sim_timer_after(eng, t, d);
	if (sim_rng_uniform(L->rng) < 0.1) {
		rnd *o = &L->tm[sim_rng_uniform_int(L->rng, (uint64_t)L->n)];
		if (o != r) {
			if (sim_rng_uniform(L->rng) < 0.5)
				sim_timer_cancel(eng, &o->t);
			else
				sim_timer_after(eng, &o->t, (sim_time)sim_rng_exponential(L->rng, 500.0));
		}
	}
}

static uint64_t run_random(int n, uint64_t events, uint64_t seed, int *order_ok)
{
	sim_engine *eng;
	sim_engine_create(&eng);
	rload L = { .n = n, .hash = UINT64_C(0xcbf29ce484222325), .limit = events, .order_ok = 1 };
	L.tm = calloc((size_t)n, sizeof(*L.tm));
	sim_rng_create(&L.rng, SIM_RNG_TAUS2, seed, "test.engine", 0);
	for (int i = 0; i < n; i++) {
		L.tm[i].L = &L;
		sim_timer_init(eng, &L.tm[i].t, rnd_fire, &L.tm[i]);
		sim_timer_at(eng, &L.tm[i].t, (sim_time)sim_rng_uniform_int(L.rng, 10000));
	}
	sim_engine_run(eng, SIM_TIME_MAX);
	*order_ok = L.order_ok;
	sim_rng_destroy(L.rng);
	sim_engine_destroy(eng);
	free(L.tm);
	return L.hash ^ L.fired;
}

/* A failed invariant check: with RCUSIM_CHECKS, the process aborts naming
 * the invariant; without, the condition is not even evaluated. */
START_TEST(engine_check_aborts_with_name)
{
	int fd[2];
	ck_assert_int_eq(pipe(fd), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int evaluated = 0;
		dup2(fd[1], 2);
		RCUSIM_CHECK((evaluated = 1) == 0, "test.always_false");
		_exit(evaluated ? 3 : 0);
	}
	close(fd[1]);
	char buf[512] = "";
	ssize_t got, n = 0;
	while (n < (ssize_t)sizeof(buf) - 1 && (got = read(fd[0], buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
		n += got;
	close(fd[0]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (RCUSIM_CHECKS_ON) {
		ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "status %d", status);
		ck_assert_msg(strstr(buf, "invariant test.always_false failed at"), "stderr: %s", buf);
	} else {
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
		ck_assert_str_eq(buf, "");
	}
}
END_TEST

START_TEST(engine_determinism_1m)
{
	int ok1, ok2, ok3;
	uint64_t a = run_random(5000, 1000000, 42, &ok1);
	uint64_t b = run_random(5000, 1000000, 42, &ok2);
	uint64_t c = run_random(5000, 1000000, 43, &ok3);
	ck_assert(ok1 && ok2 && ok3);
	ck_assert_uint_eq(a, b);
	ck_assert_uint_ne(a, c);
}
END_TEST

/* Reference check: timers armed once each at random times (many equal) fire
 * in (time, arming order) exactly. */
typedef struct ref {
	sim_timer t;
	sim_time when;
	int idx;
	int *out;
	int *nout;
} ref;

static void ref_fire(sim_engine *eng, sim_timer *t)
{
	ref *r = t->ctx;
	(void)eng;
	r->out[(*r->nout)++] = r->idx;
}

static int cmp_ref(const void *a, const void *b)
{
	const ref *x = a, *y = b;
	if (x->when != y->when)
		return x->when < y->when ? -1 : 1;
	return x->idx - y->idx;
}

START_TEST(engine_matches_sorted_reference)
{
	enum { N = 200000 };
	sim_engine *eng;
	sim_engine_create(&eng);
	sim_rng *rng;
	sim_rng_create(&rng, SIM_RNG_TAUS2, 7, "test.ref", 0);
	ref *r = calloc(N, sizeof(*r)), *sorted = calloc(N, sizeof(*r));
	int *out = calloc(N, sizeof(int)), nout = 0;
	for (int i = 0; i < N; i++) {
		/* Clustered times: many ties, a few huge values. */
		sim_time w = (sim_time)sim_rng_uniform_int(rng, 5000) * 1000;
		if (i % 1000 == 0)
			w = INT64_C(1) << 60;
		r[i] = (ref){ .when = w, .idx = i, .out = out, .nout = &nout };
		sim_timer_init(eng, &r[i].t, ref_fire, &r[i]);
		sim_timer_at(eng, &r[i].t, w);
	}
	/* Cancel every 7th, then re-arm every 14th at its old time (new seq). */
	for (int i = 0; i < N; i += 7)
		sim_timer_cancel(eng, &r[i].t);
	for (int i = 0; i < N; i += 14) {
		r[i].idx = N + i; /* re-armed later: sorts after its equal-time peers */
		sim_timer_at(eng, &r[i].t, r[i].when);
	}
	int m = 0;
	for (int i = 0; i < N; i++)
		if (i % 7 || i % 14 == 0)
			sorted[m++] = r[i];
	qsort(sorted, (size_t)m, sizeof(*sorted), cmp_ref);
	sim_engine_run(eng, SIM_TIME_MAX);
	ck_assert_int_eq(nout, m);
	for (int i = 0; i < m; i++)
		ck_assert_int_eq(out[i], sorted[i].idx);
	sim_rng_destroy(rng);
	sim_engine_destroy(eng);
	free(r);
	free(sorted);
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, engine_time_order);
	tcase_add_test(tc, engine_reserved_seq_keeps_order);
	tcase_add_test(tc, engine_equal_time_fifo);
	tcase_add_test(tc, engine_end_is_inclusive);
	tcase_add_test(tc, engine_cancel_and_rearm);
	tcase_add_test(tc, engine_rearm_that_compacts_keeps_the_new_entry);
	tcase_add_test(tc, engine_cancel_during_dispatch);
	tcase_add_test(tc, engine_front_slot_keeps_order);
	tcase_add_test(tc, engine_fini_purges_stale);
	tcase_add_test(tc, engine_after_clamps_overflow);
	tcase_add_test(tc, engine_stop_and_watch);
	tcase_add_test(tc, engine_determinism_1m);
	tcase_add_test(tc, engine_check_aborts_with_name);
	tcase_add_test(tc, engine_failure_before_run_is_kept);
	tcase_add_test(tc, engine_matches_sorted_reference);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
