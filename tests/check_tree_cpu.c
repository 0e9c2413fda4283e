/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_tree_cpu.c - Tree RCU (rcu.flavor = tree) on the CPU model: the
 * grace-period kthread as a task, a grace period on an idle machine, a
 * stalled CPU's escalation on the kernel's schedule (urgent and heavy
 * quiescent states, resched_cpu(), stall warnings), rcuc's ten passes and
 * its yield, the GP kthread's wait at nice 0 and at SCHED_FIFO, and the
 * queueing identities of a stationary flood (conservation, Little's law,
 * determinism). Step tests build a kernel model and run its engine to a
 * time; model tests run whole workloads in-process. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kbox.h"
#include "rcu/tree.h"
#include "testlib.h"

/* Four CPUs (no SMT), HZ 250, EEVDF, Tree RCU, the callrcu workload at no
 * rate, with @sets (NULL-terminated) on top. */
static void box_create(box *b, const char *const *sets)
{
	static const char *const base[] = {
		"workload.kind=callrcu", "workload.callrcu_rate=0/s", "machine.cores=4",
		"machine.threads_per_core=1", "machine.hz=250", "machine.arch=x86_64",
		"sched.kind=eevdf", "sched.ksoftirqd_nice=0", "rcu.flavor=tree",
		"softirq.time_limit=2ms", "softirq.stop_on_need_resched=yes", "scenario.duration=1h",
		NULL
	};
	box_create_from(b, base, sets);
}

START_TEST(tree_idle_machine_gp_and_invocation)
{
	/* No jobs: every CPU idle (in an extended QS), ticks staggered at
	 * CPU i's (i + 1) ms of each 4 ms jiffy. One callback on CPU 1 at
	 * 0.5 ms. CPU 1's tick at 2 ms finds NEXT waiting with RCU idle
	 * (rcu_pending), its softirq's rcu_core() accelerates it to the next
	 * GP and wakes the GP kthread on CPU 0, idle, which runs
	 * rcu_gp_init() at once: the GP starts in jiffy 0. Its first FQS scan
	 * is due 1 jiffy later (jiffies_till_first_fqs = 1 + 0 + 4 / 256 at
	 * HZ 250), at 4 ms: CPUs 1-3 idle are reported there; CPU 0 runs the
	 * kthread. It reports at its own tick at 5 ms (idle: a QS), which
	 * ends the GP and wakes the kthread for cleanup. CPU 1's tick at 6 ms
	 * sees the GP ended (rcu_pending), advances, and invokes. */
	box b;
	const char *sets[] = { "workload.jobs=0", NULL };
	box_create(&b, sets);
	kmodel *k = b.k;
	rcu_tree_state *rs = tree(&b);
	uint64_t seq0 = rs->gp_seq;
	run_to(&b, MS / 2);
	queue_on(&b, 1, 1);
	ck_assert(k->rcu.gpk->sleeping);
	run_to(&b, 2 * MS + 100000);
	/* The GP started at CPU 1's tick, its kthread ran on CPU 0. */
	ck_assert_uint_eq(rs->gp_seq, seq0 + 1);
	ck_assert_int_eq(rs->gp_start, 0);
	ck_assert(k->rcu.gpk->sleeping); /* waiting for its first FQS */
	ck_assert_int_eq(rs->fqs_wait_end, 1);
	ck_assert_uint_eq(rs->node[0].qsmask, 0xf);
	run_to(&b, 4 * MS + 100000);
	/* The first scan reported the idle CPUs 1-3 (not 0, running it). */
	ck_assert_uint_eq(rs->n_force_qs, 1);
	ck_assert_uint_eq(rs->node[0].qsmask, 0x1);
	ck_assert_uint_eq(k->rcu.cb.invoked, 0);
	run_to(&b, 5 * MS + 100000);
	/* CPU 0's idle tick ended it. */
	ck_assert_uint_eq(rs->gp_seq, seq0 + 4);
	ck_assert_uint_eq(rs->gp_completed, 1);
	ck_assert_uint_eq(k->rcu.cb.invoked, 0);
	run_to(&b, 6 * MS + 100000);
	ck_assert_uint_eq(k->rcu.cb.invoked, 1);
	/* Nothing more to do: no further GP, the kthread sleeps. */
	run_to(&b, 100 * MS);
	ck_assert_uint_eq(rs->gp_completed, 1);
	ck_assert(k->rcu.gpk->sleeping);
	ck_assert_uint_eq(rs->n_force_qs, 1);
	box_destroy(&b);
}
END_TEST

START_TEST(tree_idle_machine_nohz_gp_ends_at_fqs)
{
	/* The same with irq.nohz_idle: the idle CPUs without callbacks (0, 2,
	 * 3) take no tick; CPU 1 keeps its own (rcu_needs_cpu()). The first
	 * FQS scan at 4 ms reports CPUs 1-3 as idle; CPU 0, running the
	 * kthread at that scan, went idle and came back since (the RCU
	 * watching counter moved), so the second scan at 8 ms reports it and
	 * the GP ends there. CPU 1's tick at 10 ms invokes the callback. */
	box b;
	const char *sets[] = { "workload.jobs=0", "irq.nohz_idle=yes", NULL };
	box_create(&b, sets);
	kmodel *k = b.k;
	rcu_tree_state *rs = tree(&b);
	run_to(&b, MS / 2);
	queue_on(&b, 1, 1);
	run_to(&b, 4 * MS + 100000);
	ck_assert_uint_eq(rs->n_force_qs, 1);
	ck_assert_uint_eq(rs->node[0].qsmask, 0x1);
	run_to(&b, 8 * MS);
	ck_assert(rcu_tree_gp_in_progress(rs));
	run_to(&b, 8 * MS + 100000);
	ck_assert_uint_eq(rs->n_force_qs, 2);
	ck_assert_uint_eq(rs->gp_completed, 1);
	run_to(&b, 10 * MS - 1);
	ck_assert_uint_eq(k->rcu.cb.invoked, 0);
	run_to(&b, 10 * MS + 100000);
	ck_assert_uint_eq(k->rcu.cb.invoked, 1);
	box_destroy(&b);
}
END_TEST

START_TEST(tree_fqs_wait_rounds_up_one_jiffy)
{
	/* tree_idle_machine_nohz_gp_ends_at_fqs with irq.timer_round_up: the
	 * FQS wait's schedule_timeout(1) from jiffy 0 expires at jiffy 1, and
	 * the timer wheel puts a level-0 timer in the bucket of expires + 1
	 * (calc_index(), kernel/time/timer.c 6.12:567-582), so the first scan
	 * comes at jiffy 2 (8 ms), not 1 (4 ms). It reports CPUs 1-3; CPU 0,
	 * running the kthread, is left. The second wait, from jiffy 2,
	 * expires at 3 and fires at 4 (16 ms): that scan ends the GP. CPU 1's
	 * tick at 18 ms invokes the callback. */
	box b;
	const char *sets[] = { "workload.jobs=0", "irq.nohz_idle=yes", "irq.timer_round_up=yes", NULL };
	box_create(&b, sets);
	kmodel *k = b.k;
	rcu_tree_state *rs = tree(&b);
	run_to(&b, MS / 2);
	queue_on(&b, 1, 1);
	run_to(&b, 2 * MS + 100000);
	ck_assert_int_eq(rs->gp_start, 0);
	ck_assert_int_eq(rs->fqs_wait_end, 1);
	run_to(&b, 8 * MS - 1);
	ck_assert_uint_eq(rs->n_force_qs, 0);
	run_to(&b, 8 * MS + 100000);
	ck_assert_uint_eq(rs->n_force_qs, 1);
	ck_assert_uint_eq(rs->node[0].qsmask, 0x1);
	ck_assert_int_eq(rs->fqs_wait_end, 3);
	run_to(&b, 16 * MS - 1);
	ck_assert(rcu_tree_gp_in_progress(rs));
	ck_assert_uint_eq(rs->n_force_qs, 1);
	run_to(&b, 16 * MS + 100000);
	ck_assert_uint_eq(rs->n_force_qs, 2);
	ck_assert_uint_eq(rs->gp_completed, 1);
	run_to(&b, 18 * MS - 1);
	ck_assert_uint_eq(k->rcu.cb.invoked, 0);
	run_to(&b, 18 * MS + 100000);
	ck_assert_uint_eq(k->rcu.cb.invoked, 1);
	box_destroy(&b);
}
END_TEST

/* The idle box of tree_fqs_wait_rounds_up_one_jiffy with every tick on the
 * jiffy boundary (6.x), irq.timer_migration as @migration: the scans it
 * took to end the GP started by a callback on CPU 1 at 0.5 ms. */
static uint64_t aligned_gp_scans(const char *migration, sim_time *skip_at)
{
	box b;
	const char *sets[] = { "workload.jobs=0", "irq.nohz_idle=yes", "irq.tick_phase=aligned",
			       "irq.timer_round_up=yes", migration, NULL };
	box_create(&b, sets);
	rcu_tree_state *rs = tree(&b);
	run_to(&b, MS / 2);
	queue_on(&b, 1, 1);
	run_to(&b, 4 * MS + 100000);
	/* CPU 1's tick at 4 ms started it; the first wait fires at jiffy 3. */
	ck_assert_int_eq(rs->gp_start, 1);
	ck_assert_int_eq(rs->fqs_wait_end, 2);
	run_to(&b, 12 * MS + 100000);
	ck_assert_uint_eq(rs->n_force_qs, 1);
	*skip_at = b.k->cpu[0].tick_skip_at;
	run_to(&b, 100 * MS);
	ck_assert_uint_eq(rs->gp_completed, 1);
	uint64_t n = rs->n_force_qs;
	box_destroy(&b);
	return n;
}

START_TEST(tree_timer_migration_leaves_the_kthread_cpu_a_holdout)
{
	/* At 12 ms the kthread's timer wakes it on CPU 0, then CPU 0's tick
	 * comes at the same instant. Without timer migration CPU 0 took that
	 * tick itself (its own timer): the tick, from the kthread outside a
	 * reader, reports its quiescent state before the scan and the first
	 * scan ends the GP. With it, CPU 1 (its tick kept by its callback:
	 * active) expires the global timer and wakes the kthread; CPU 0 leaves
	 * idle by that wake-up and takes no tick at 12 ms (tick_nohz_restart()
	 * forwards it a period, tick-sched.c 6.12:844-850): the first scan finds
	 * CPU 0 running, not idle, and the second (20 ms: wait 1 from jiffy 3,
	 * rounded up) ends it - Joel Fernandes' "GP kthread's CPU is the
	 * holdout" on an idle box. */
	sim_time own, mig;
	ck_assert_uint_eq(aligned_gp_scans("irq.timer_migration=no", &own), 1);
	ck_assert_int_eq(own, -1);
	ck_assert_uint_eq(aligned_gp_scans("irq.timer_migration=yes", &mig), 2);
	ck_assert_int_eq(mig, 12 * MS);
}
END_TEST

START_TEST(tree_timer_migration_needs_an_active_cpu)
{
	/* kcpu_timer_migrated(): with every other CPU idle and tickless the
	 * last one to go idle armed its own timer (timer_migration.c
	 * 6.12:79-81), so the kthread's CPU takes its tick; once CPU 2 has a
	 * callback queued (rcu_needs_cpu(): its tick runs) it is the
	 * migrator and CPU 0 takes none at that instant. A CPU running a task
	 * is not idle: nothing to skip. */
	box b;
	const char *sets[] = { "workload.jobs=0", "irq.nohz_idle=yes", "irq.timer_migration=yes", NULL };
	box_create(&b, sets);
	kmodel *k = b.k;
	run_to(&b, MS / 2);
	kcpu *c0 = &k->cpu[0];
	kcpu_timer_migrated(k, c0, sim_now(b.eng));
	ck_assert_int_eq(c0->tick_skip_at, -1);
	queue_on(&b, 2, 1);
	kcpu_timer_migrated(k, c0, sim_now(b.eng));
	ck_assert_int_eq(c0->tick_skip_at, MS / 2);
	/* CPU 2's own timer: CPU 2 has callbacks, so its tick runs anyway. */
	kcpu *c2 = &k->cpu[2];
	kcpu_timer_migrated(k, c2, sim_now(b.eng));
	ck_assert_int_eq(c2->tick_skip_at, -1);
	box_destroy(&b);
}
END_TEST

START_TEST(tree_stalled_cpu_escalation)
{
	/* One hog per CPU; CPU 2 reports no QS from 0 on (fault no_qs: no
	 * context-switch or tick QS, and it never idles). A callback on CPU 1
	 * starts a GP that cannot end. With rcu.stall_timeout = 3 s (750
	 * jiffies) the FQS scans, one a jiffy after the first, escalate on the
	 * kernel's schedule (rcu_watching_snap_recheck(), tree.c 6.12:815-949;
	 * jiffies_till_sched_qs = max(1 + 2 x 1, 250 / 10 + 0) = 25):
	 * urgent once the GP is older than 25 jiffies, heavy once older than
	 * 50, resched_cpu() from jiffies_resched = start + 375 and then at
	 * most once per 25 jiffies (every 26th scan); the stall warning at
	 * start + 750, the next 3 x 750 + 3 jiffies later. The GP kthread is
	 * SCHED_FIFO, so each scan runs just after its jiffy begins. CPU 2's
	 * tick (at 3 ms into each jiffy) clears rcu_urgent_qs, turning it into
	 * need_resched, and the next scan sets it again. */
	box b;
	const char *sets[] = { "workload.jobs=4", "fault.kind=no_qs", "fault.cpus=2",
			       "fault.start=0ns", "fault.duration=1h", "rcu.stall_timeout=3s",
			       "rcu.kthread_prio=1", NULL };
	box_create(&b, sets);
	kmodel *k = b.k;
	rcu_tree_state *rs = tree(&b);
	run_to(&b, MS / 2);
	queue_on(&b, 1, 1);
	run_to(&b, 20 * MS);
	ck_assert(rcu_tree_gp_in_progress(rs));
	int64_t j0 = rs->gp_start;
	ck_assert_uint_eq(rs->node[0].qsmask, 1u << 2);
	ck_assert_int_eq(rs->jiffies_to_sched_qs, 25);
	/* Before 25 jiffies: nothing asked. */
	/* A scan each jiffy from the first (scan k at jiffy j0 + k); up to
	 * age 25, nothing asked. */
	run_to(&b, (j0 + 25) * 4 * MS + 10000);
	ck_assert_uint_eq(rs->n_force_qs, 25);
	ck_assert_uint_eq(rs->n_urgent_qs, 0);
	ck_assert(!rs->rda[2].rcu_urgent_qs);
	/* Past 25: urgent at every scan (its tick turns it into need_resched,
	 * which the fault keeps from reporting); past 50: heavy, once. */
	run_to(&b, (j0 + 27) * 4 * MS + 10000);
	ck_assert_uint_eq(rs->n_urgent_qs, 2);
	ck_assert(rs->rda[2].rcu_urgent_qs);
	run_to(&b, (j0 + 52) * 4 * MS);
	ck_assert_uint_eq(rs->n_heavy_qs, 1);
	ck_assert(rs->rda[2].rcu_need_heavy_qs);
	/* No resched_cpu() before jiffies_resched. */
	run_to(&b, (j0 + 375) * 4 * MS);
	ck_assert_uint_eq(k->rcu.resched_ipis, 0);
	run_to(&b, (j0 + 377) * 4 * MS);
	ck_assert_uint_eq(k->rcu.resched_ipis, 1);
	ck_assert_int_eq(rs->rda[2].last_fqs_resched, j0 + 376);
	/* Then one every 26 jiffies: at j0 + 376 + 26 m. */
	run_to(&b, (j0 + 376 + 26 * 10 + 1) * 4 * MS);
	ck_assert_uint_eq(k->rcu.resched_ipis, 11);
	/* The stall warning at start + 750 jiffies, once. */
	double w;
	run_to(&b, (j0 + 749) * 4 * MS);
	ck_assert_uint_eq(rs->n_force_qs > 700, 1);
	ck_assert_int_eq(rs->jiffies_stall, j0 + 750);
	run_to(&b, (j0 + 752) * 4 * MS);
	ck_assert_int_eq(rs->jiffies_stall - j0 - 3 * 750 - 3 >= 750, 1);
	ck_assert_int_eq(rs->jiffies_stall - j0 - 3 * 750 - 3 <= 751, 1);
	ck_assert(rcu_tree_gp_in_progress(rs));
	ck_assert_int_eq(kernel_model.finish(k, sim_now(b.eng), (char[256]){ 0 }, 256), 0);
	ck_assert(sim_metrics_get(b.m, "rcu.stall_warnings", &w) && w == 1);
	box_destroy(&b);
}
END_TEST

START_TEST(tree_rcuc_ten_passes_then_yields)
{
	/* rcu.use_softirq = no: one hog on CPU 0, 100,000 callbacks queued
	 * there. Once they are ready, rcu_core() runs in CPU 0's rcuc kthread:
	 * no count limit, but with bl = max(10, DONE >> 7) > 100 the 3 ms
	 * time limit, checked every 32 callbacks, ends each pass; after 10
	 * passes with work left it sleeps 2 jiffies (schedule_timeout_idle(2),
	 * tree.c 6.12:2894-2921) and runs again. No softirq run happens. */
	box b;
	const char *sets[] = { "workload.jobs=4", "rcu.use_softirq=no", "rcu.kthread_prio=1", NULL };
	box_create(&b, sets);
	kmodel *k = b.k;
	ck_assert_ptr_nonnull(k->cpu[0].rcuc);
	run_to(&b, MS / 2);
	queue_on(&b, 0, 100000);
	run_to(&b, 200 * MS);
	ck_assert_uint_eq(k->cnt.runs[RUN_IRQ_EXIT] + k->cnt.runs[RUN_KSOFTIRQD], 0);
	ck_assert_uint_gt(k->rcu.cb.invoked, 0);
	/* One run: 10 passes, each at least the 3 ms limit and at most 3 ms
	 * plus 31 callbacks past it (12.4 us at 400 ns), its 1 us pass cost
	 * and the ticks landing in it (2 us each): 100 us a pass is ample. */
	ck_assert_uint_gt(k->rcu.rcuc_run->count, 0);
	ck_assert_int_le((sim_time)k->rcu.rcuc_run->max, 10 * 3 * MS + 10 * 100000);
	ck_assert_int_ge((sim_time)k->rcu.rcuc_run->max, 10 * 3 * MS);
	run_to(&b, 2000 * MS);
	ck_assert_uint_eq(k->rcu.cb.invoked, 100000);
	box_destroy(&b);
}
END_TEST

/* The GP kthread's longest wait for CPU 0 over 10 s of 4 hogs a CPU with
 * a callback every ms on CPU 1, its priority @prio. */
static sim_time gp_kthread_wait(const char *prio)
{
	box b;
	const char *sets[] = { "workload.jobs=16", "workload.callrcu_rate=100/s", prio, NULL };
	box_create(&b, sets);
	run_to(&b, 10000 * MS);
	sim_time w = b.k->rcu.gpk->wait_max;
	ck_assert_uint_gt(b.k->rcu.gpk->wakeups, 100);
	box_destroy(&b);
	return w;
}

START_TEST(tree_gp_kthread_wait_nice0_vs_fifo)
{
	/* At nice 0 under EEVDF the woken GP kthread, placed at V with
	 * deadline V + 3 ms, waits for the running hog to reach the first tick
	 * past its 3 ms slice (a hog that started between two ticks, after
	 * the kthread's last run, runs up to a slice and a tick, 7 ms) and
	 * then for any of the other 3 queued hogs whose deadline is earlier,
	 * each running from a tick to the next: at most 19 ms, and the
	 * interrupts in them (under 1 ms: 20 ms asserted; measured: 18.0 ms). Over more than 100 wakeups at random phases
	 * of the 4 ms tick the longest wait passes 1 ms. At SCHED_FIFO
	 * (rcu.kthread_prio = 1) it preempts at once: a context switch (5
	 * us), behind at most a tick's hardirq (2 us) and the short softirq
	 * run after it (a pass, 1.5 us, and a callback or two): under 10 us
	 * (measured: 6.9 us). */
	sim_time fair = gp_kthread_wait("rcu.kthread_prio=0");
	sim_time fifo = gp_kthread_wait("rcu.kthread_prio=1");
	ck_assert_int_gt(fair, 1 * MS);
	ck_assert_int_le(fair, 20 * MS);
	ck_assert_int_le(fifo, 10000); /* a context switch */
}
END_TEST

/* x86-256-callrcu-6.12's hogs on 32 CPUs for @dur with @extra set. */
static sim_metrics *flood(const char *dur, const char *extra)
{
	char err[1024], d[64];
	sim_metrics *m;
	snprintf(d, sizeof(d), "scenario.duration=%s", dur);
	const char *sets[] = { d, "machine.cores=16", "machine.threads_per_core=2", "machine.hz=250",
			       "machine.arch=x86_64", "machine.clock=3.0GHz", "sched.kind=eevdf",
			       "sched.ksoftirqd_nice=0", "softirq.time_limit=2ms",
			       "softirq.stop_on_need_resched=yes", "rcu.flavor=tree",
			       "workload.jobs=128", "workload.callrcu_rate=10000/s",
			       "workload.syscall_cost=500ns", "scenario.sample_interval=100ms", extra,
			       NULL };
	int rc = testlib_simulate("callrcu", sets, &m, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	return m;
}

START_TEST(tree_flood_littles_law_and_determinism)
{
	/* A stationary flood: L = lambda W, the time-average number queued
	 * against the invocation rate times the mean call_rcu-to-invocation
	 * time, within 1% over 10 s (the end's queue is the only edge
	 * effect); conservation (enqueued = invoked + pending) is checked by
	 * the model at every sample and at the end. The same seed gives the
	 * same scalars bit for bit. */
	sim_metrics *m = flood("10s", "scenario.seed=7");
	double L = testlib_get(m, "cb.qlen_total_mean");
	double n = testlib_get(m, "cb.invoked");
	double W = testlib_get(m, "cb.latency_mean_ns") / 1e9;
	double lambda = n / 10.0;
	ck_assert_msg(fabs(L - lambda * W) / L < 0.01, "L %g, lambda W %g", L, lambda * W);
	ck_assert_double_eq(testlib_get(m, "cb.enqueued"),
			    n + testlib_get(m, "cb.pending_end"));
	/* A callback waits the rest of a GP and one whole one, about a tick
	 * each side: more than one GP's median, less than three. */
	double gp = testlib_get(m, "gp.duration_p50_ns") / 1e9;
	ck_assert_msg(W > gp && W < 3 * gp + 0.008, "W %g, GP %g", W, gp);
	sim_metrics *m2 = flood("10s", "scenario.seed=7");
	for (size_t i = 0; i < sim_metrics_nscalars(m); i++) {
		double v2;
		ck_assert(sim_metrics_get(m2, sim_metrics_scalar_name(m, i), &v2));
		ck_assert_msg(v2 == sim_metrics_scalar_value(m, i), "%s differs",
			      sim_metrics_scalar_name(m, i));
	}
	sim_metrics_destroy(m);
	sim_metrics_destroy(m2);
}
END_TEST

START_TEST(tree_flood_bulk_calls_match_each)
{
	/* workload.callrcu_arrivals = bulk: a Poisson count of calls per
	 * stretch of a hog's CPU time, evenly spread. The same load as one
	 * call at a time (each) in what a user reads: calls within 1% (3.2
	 * million in 10 s; a Poisson count's spread is 0.06%), mean latency
	 * within 3% (an even spread moves a callback by less than its
	 * stretch, and the two runs' grace periods differ as two seeds'
	 * would). Little's law holds as tightly: the queue's integral adds
	 * each call at its own time. */
	sim_metrics *e = flood("10s", "workload.callrcu_arrivals=each");
	sim_metrics *b = flood("10s", "workload.callrcu_arrivals=bulk");
	double ne = testlib_get(e, "cb.enqueued"), nb = testlib_get(b, "cb.enqueued");
	ck_assert_msg(fabs(nb - ne) / ne < 0.01, "enqueued: each %g, bulk %g", ne, nb);
	double we = testlib_get(e, "cb.latency_mean_ns"), wb = testlib_get(b, "cb.latency_mean_ns");
	ck_assert_msg(fabs(wb - we) / we < 0.03, "latency mean: each %g, bulk %g", we, wb);
	double L = testlib_get(b, "cb.qlen_total_mean");
	double lambda = testlib_get(b, "cb.invoked") / 10.0;
	ck_assert_msg(fabs(L - lambda * wb / 1e9) / L < 0.01, "L %g, lambda W %g", L, lambda * wb / 1e9);
	ck_assert_double_eq(nb, testlib_get(b, "cb.invoked") + testlib_get(b, "cb.pending_end"));
	sim_metrics_destroy(e);
	sim_metrics_destroy(b);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tree_cpu");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, tree_idle_machine_gp_and_invocation);
	tcase_add_test(tc, tree_idle_machine_nohz_gp_ends_at_fqs);
	tcase_add_test(tc, tree_fqs_wait_rounds_up_one_jiffy);
	tcase_add_test(tc, tree_timer_migration_leaves_the_kthread_cpu_a_holdout);
	tcase_add_test(tc, tree_timer_migration_needs_an_active_cpu);
	tcase_add_test(tc, tree_stalled_cpu_escalation);
	tcase_add_test(tc, tree_rcuc_ten_passes_then_yields);
	tcase_add_test(tc, tree_gp_kthread_wait_nice0_vs_fifo);
	tcase_add_test(tc, tree_flood_littles_law_and_determinism);
	tcase_add_test(tc, tree_flood_bulk_calls_match_each);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testlib_run_suite(suite());
}
