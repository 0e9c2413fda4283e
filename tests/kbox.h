/* SPDX-License-Identifier: GPL-3.0-or-later */
/* kbox.h - what the CPU model's step tests share: a kernel model built from
 * parameters (a base set and a test's own), its engine run to a time, and
 * call_rcu() from outside as a job's system call would make it. */
#ifndef RCUSIM_TESTS_KBOX_H
#define RCUSIM_TESTS_KBOX_H

#include <check.h>
#include <string.h>

#include "kernel/kernel.h"
#include "rcu/mechanisms.h"
#include "model.h"
#include "rcu/tree.h"

typedef struct box {
	sim_params *p;
	sim_metrics *m;
	sim_engine *eng;
	kmodel *k;
} box;

#define MS INT64_C(1000000)
#define S INT64_C(1000000000)

/* The kernel model of the parameters @base, then @sets, on top of the
 * defaults (each list NULL-terminated), seed 1, MT19937. */
static inline void box_create_from(box *b, const char *const *base, const char *const *sets)
{
	char err[1024];
	memset(b, 0, sizeof(*b));
	ck_assert_int_eq(sim_params_create(&b->p, rcusim_params, P_COUNT, err, sizeof(err)), 0);
	for (; *base; base++)
		ck_assert_msg(sim_params_set(b->p, *base, err, sizeof(err)) == 0, "%s: %s", *base, err);
	for (; *sets; sets++)
		ck_assert_msg(sim_params_set(b->p, *sets, err, sizeof(err)) == 0, "%s: %s", *sets, err);
	ck_assert_msg(rcusim_validate(b->p, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(sim_metrics_create(&b->m), 0);
	ck_assert_int_eq(sim_engine_create(&b->eng), 0);
	model_env env = { b->eng, b->p, b->m, 1, SIM_RNG_MT19937 };
	void *state = NULL;
	ck_assert_msg(kernel_model.create(&state, &env, err, sizeof(err)) == 0, "%s", err);
	b->k = state;
}

/* Tree RCU's state in @b's model (rcu.flavor = tree). */
static inline rcu_tree_state *tree(box *b)
{
	return rcu_tree_flavor_state(b->k->rcu.rsp);
}

static inline void box_destroy(box *b)
{
	kernel_model.destroy(b->k);
	sim_engine_destroy(b->eng);
	sim_metrics_destroy(b->m);
	sim_params_destroy(b->p);
}

static inline void run_to(box *b, sim_time t)
{
	ck_assert_int_eq(sim_engine_run(b->eng, t), 0);
}

/* call_rcu() of @n callbacks on @cpu now, counted as job_call_rcu()
 * counts them; what they ask of the CPU model is carried out as
 * kcpu_account() does: a GP kthread wakeup (Tree RCU's overflow path) as
 * an event at now, then the offloading's kicks. */
static inline void queue_on(box *b, int cpu, int n)
{
	kmodel *k = b->k;
	bool wake = false;
	for (int i = 0; i < n; i++) {
		rcu_effect e = { false, false, false, false };
		ck_assert_int_eq(k->rcu.ops->call_rcu(k->rcu.rsp, cpu, sim_now(b->eng), 0, &e), 0);
		k->rcu.cb.enqueued++;
		sim_tavg_add_at(&k->rcu.cb.qtotal, sim_now(b->eng), sim_now(b->eng), 1);
		wake |= e.wake_gp;
	}
	if (wake)
		ck_assert_int_eq(sim_timer_at(b->eng, &k->rcu.gpk->wake, sim_now(b->eng)), 0);
	if (k->rcu.nocb)
		kcpu_rcu_effect(&k->cpu[cpu], sim_now(b->eng), &(rcu_effect){ false, false, false, false });
}

#endif
