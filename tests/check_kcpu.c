/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_kcpu.c - step tests of the CPU model (models/kernel/: cpu.c,
 * softirq.c, tick.c, irq.c): a kernel model built from parameters, a state
 * set up by hand, the engine run up to one handler, the next state checked.
 * What a reschedule IPI does and where pending softirqs run on sparc64 and
 * x86_64 (machine.arch), and what each injected fault (fault.kind) stops. */
#include <check.h>

#include "cpulist.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kbox.h"
#include "testlib.h"

static const char *const arch[] = { "sparc64", "x86_64" };

/* One CPU, HZ 10 (a tick every 100 ms, nothing else between), the callrcu
 * workload with its settings @sets (NULL-terminated) on top. */
static void box_create(box *b, const char *a, const char *const *sets)
{
	char as[64];
	snprintf(as, sizeof(as), "machine.arch=%s", a);
	const char *base[] = { "workload.kind=callrcu", "machine.cores=1", "machine.threads_per_core=1",
			       "machine.hz=10", "scenario.duration=1h", as, NULL };
	box_create_from(b, base, sets);
}

/* Queue @n callbacks on CPU 0 at the current time, as call_rcu() would. */
static void queue(box *b, int n)
{
	kmodel *k = b->k;
	for (int i = 0; i < n; i++) {
		rcu_effect e = { false, false, false, false };
		ck_assert_int_eq(k->rcu.ops->call_rcu(k->rcu.rsp, 0, sim_now(b->eng), 0, &e), 0);
		k->rcu.cb.enqueued++;
		sim_tavg_add_at(&k->rcu.cb.qtotal, sim_now(b->eng), sim_now(b->eng), 1);
	}
}

START_TEST(ipi_sets_no_need_resched)
{
	/* A job runs; a softirq is pending (as __do_softirq leaves it when it
	 * hands over to ksoftirqd); a reschedule IPI lands at 1 ms. On both
	 * arches it sets no need_resched and forces no context switch; on
	 * sparc64 the trap's rtrap runs the pending softirq, on x86_64 the
	 * handler only acks the APIC and the softirq stays pending. */
	box b;
	const char *sets[] = { "workload.jobs=2", "workload.callrcu_rate=1/s", NULL };
	box_create(&b, arch[_i], sets);
	kcpu *c = &b.k->cpu[0];
	run_to(&b, 1000000);
	const sched_task *curr = c->rq.curr;
	ck_assert_ptr_nonnull(curr);
	uint64_t switches = c->rq.nr_switches;
	c->softirq_pending = true;
	c->need_resched = false;
	ck_assert_int_eq(sim_timer_at(b.eng, &c->ipi, 1000000), 0);
	run_to(&b, 1000001);
	ck_assert(!c->need_resched);
	ck_assert_ptr_eq(c->rq.curr, curr);
	ck_assert_uint_eq(c->rq.nr_switches, switches);
	ck_assert_uint_eq(b.k->cnt.runs[RUN_IRQ_EXIT], 0);
	if (_i == 0) {
		ck_assert_uint_eq(b.k->cnt.runs[RUN_TRAP_RETURN], 1);
		ck_assert(!c->softirq_pending);
	} else {
		ck_assert_uint_eq(b.k->cnt.runs[RUN_TRAP_RETURN], 0);
		ck_assert(c->softirq_pending);
		ck_assert(!c->in_softirq);
	}
	box_destroy(&b);
}
END_TEST

/* The first tick at which callbacks are invoked, up to @max ticks of 100
 * ms, with need_resched set on CPU 0 before every tick if @resched; the box
 * is left 1 ms after it. */
static int first_invoking_tick(box *b, int max, bool resched)
{
	for (int t = 1; t <= max; t++) {
		if (resched) {
			/* Set from outside between events: the CPU's lazy run
			 * (and the switch at its end) is settled first. */
			kcpu_settle(&b->k->cpu[0], sim_now(b->eng), UINT64_MAX, false);
			b->k->cpu[0].need_resched = true;
		}
		run_to(b, (sim_time)t * 100000000 + 1000000);
		if (b->k->rcu.cb.invoked)
			return t;
	}
	ck_abort_msg("no callback invoked in %d ticks", max);
	return -1;
}

START_TEST(rtrap_runs_softirqs_after_irq_exit_and_at_syscall_return)
{
	/* 1000 callbacks on CPU 0, maxbatch 10 and one __do_softirq pass: a
	 * softirq run invokes 10 and leaves the rest pending. At the tick that
	 * finds them done, irq_exit() runs 10; on sparc64 rtrap_irq then
	 * calls do_softirq() once more (10 more) before the job goes on, and
	 * the job's next system-call return runs 10 again; on x86_64 nothing
	 * runs until the next interrupt or ksoftirqd. The job is nice -20
	 * (800 ms slices), so nice-19 ksoftirqd does not get the CPU. */
	box b;
	const char *sets[] = { "workload.jobs=1", "workload.callrcu_rate=100/s", "sched.job_nice=-20",
			       "rcu.policy=fixed", "rcu.maxbatch=10", "rcu.resched_over=0",
			       "softirq.max_restart=1", NULL };
	box_create(&b, arch[_i], sets);
	kmodel *k = b.k;
	kcpu *c = &k->cpu[0];
	run_to(&b, 1000000);
	queue(&b, 1000);
	int t = first_invoking_tick(&b, 10, false);
	ck_assert_uint_eq(k->cnt.runs[RUN_KSOFTIRQD], 0);
	ck_assert(c->softirq_pending);
	if (_i == 1) {
		ck_assert_uint_eq(k->rcu.cb.invoked, 10);
		ck_assert_uint_eq(k->cnt.runs[RUN_TRAP_RETURN], 0);
		ck_assert(!sim_timer_armed(&c->sysret));
		box_destroy(&b);
		return;
	}
	ck_assert_uint_eq(k->rcu.cb.invoked, 20);
	ck_assert_uint_eq(k->cnt.runs[RUN_TRAP_RETURN], 1);
	/* The job's next system call: its remaining work at its speed (one
	 * thread alone on its core: full speed) from when it went on. */
	ck_assert(sim_timer_armed(&c->sysret));
	ck_assert(is_job(c, c->rq.curr));
	const job *j = c->rq.curr->owner;
	ck_assert_int_eq(c->sysret.when, c->seg_start + (sim_time)ceil(j->next_call_work));
	ck_assert_int_lt(c->sysret.when, (sim_time)(t + 1) * 100000000);
	sim_time at = c->sysret.when;
	run_to(&b, at);
	ck_assert_uint_eq(k->cnt.runs[RUN_TRAP_RETURN], 2);
	ck_assert_uint_eq(k->rcu.cb.invoked, 30);
	box_destroy(&b);
}
END_TEST

/* The box of the rtrap test with @extra on top (x86_64, @ncb callbacks
 * queued at 1 ms): the number invoked at the first tick that invokes any,
 * with need_resched set before every tick if @resched. */
static uint64_t invoked_at_first_tick_of(const char *const *extra, int ncb, bool resched, box *b)
{
	const char *sets[16] = { "workload.jobs=1", "workload.callrcu_rate=100/s", "sched.job_nice=-20",
				 "rcu.policy=fixed", "rcu.maxbatch=10", "rcu.resched_over=0" };
	int n = 6;
	for (; *extra; extra++)
		sets[n++] = *extra;
	sets[n] = NULL;
	box_create(b, arch[1], sets);
	run_to(b, 1000000);
	queue(b, ncb);
	first_invoking_tick(b, 10, resched);
	return b->k->rcu.cb.invoked;
}

static uint64_t invoked_at_first_tick(const char *const *extra, bool resched, box *b)
{
	return invoked_at_first_tick_of(extra, 1000, resched, b);
}

START_TEST(softirq_budget_passes_or_time)
{
	/* 6.x handle_softirqs(): at most MAX_SOFTIRQ_RESTART passes, and no
	 * restart once jiffies has reached its end, jiffies +
	 * msecs_to_jiffies(MAX_SOFTIRQ_TIME) at its start (6.12
	 * kernel/softirq.c:513, 569-574): 2 ms is one jiffy at HZ 10 (rounded
	 * up), so the run may restart until the next tick, 100 ms on, whatever
	 * 2 ms says. 20000 callbacks, 1000 a pass at 20 us each plus 1.5 us of
	 * pass and handler: a pass is 20.0015 ms. The run starts at a tick,
	 * on the boundary: its 5th pass ends just past the next one (100.0075
	 * ms), where it stops: 5000 invoked, the rest left to ksoftirqd. Without
	 * the limit, 10 passes (10000); with 3 passes, the passes end it first
	 * (3000). */
	box b;
	const char *t2[] = { "rcu.maxbatch=1000", "rcu.callback_cost=20us", "softirq.time_limit=2ms", NULL };
	const char *t0[] = { "rcu.maxbatch=1000", "rcu.callback_cost=20us", "softirq.time_limit=0ns", NULL };
	const char *p3[] = { "rcu.maxbatch=1000", "rcu.callback_cost=20us", "softirq.time_limit=2ms",
			     "softirq.max_restart=3", NULL };
	ck_assert_uint_eq(invoked_at_first_tick_of(t2, 20000, false, &b), 5000);
	ck_assert_uint_eq(b.k->cpu[0].run_passes, 5);
	ck_assert_int_eq(b.k->cpu[0].run_start % 100000000, 2000); /* after the tick's 2 us */
	ck_assert_uint_eq(b.k->cnt.ksd_wakeups, 0);
	/* Its end, past the next tick's 2 us: it wakes ksoftirqd for the rest. */
	run_to(&b, b.k->cpu[0].run_start + 5 * 20001500 + 2000 + 1);
	ck_assert_uint_eq(b.k->cnt.ksd_wakeups, 1);
	box_destroy(&b);
	ck_assert_uint_eq(invoked_at_first_tick_of(t0, 20000, false, &b), 10000);
	box_destroy(&b);
	ck_assert_uint_eq(invoked_at_first_tick_of(p3, 20000, false, &b), 3000);
	box_destroy(&b);
}
END_TEST

START_TEST(rt_softirqs_run_only_in_ksoftirqd)
{
	/* PREEMPT_RT (softirq.in_irq_exit = no; 6.12 kernel/softirq.c
	 * invoke_softirq(): wakeup_softirqd() when no task here is inside a
	 * local_bh_disable() section, and the loads have none): the tick that
	 * finds the callbacks done runs nothing at irq_exit, nor at the trap
	 * return on sparc64; it wakes ksoftirqd, which invokes them when EEVDF
	 * gives it the CPU (nice 0 against one nice-0 job: within a tick). */
	box b;
	const char *sets[] = { "workload.jobs=1", "workload.callrcu_rate=100/s", "rcu.policy=fixed",
			       "rcu.maxbatch=10", "rcu.resched_over=0", "sched.kind=eevdf",
			       "sched.ksoftirqd_nice=0", "softirq.in_irq_exit=no", NULL };
	box_create(&b, arch[_i], sets);
	kmodel *k = b.k;
	kcpu *c = &k->cpu[0];
	run_to(&b, 1000000);
	queue(&b, 1000);
	uint64_t woken = 0;
	for (int t = 1; t <= 10 && !k->rcu.cb.invoked; t++) {
		run_to(&b, (sim_time)t * 100000000 + 1);
		woken = k->cnt.ksd_wakeups;
	}
	ck_assert_uint_gt(woken, 0);
	ck_assert_uint_eq(k->cnt.runs[RUN_IRQ_EXIT], 0);
	ck_assert_uint_eq(k->cnt.runs[RUN_TRAP_RETURN], 0);
	run_to(&b, sim_now(b.eng) + 100000000);
	ck_assert_uint_gt(k->cnt.runs[RUN_KSOFTIRQD], 0);
	ck_assert_uint_gt(k->rcu.cb.invoked, 0);
	ck_assert_uint_eq(k->cnt.runs[RUN_IRQ_EXIT], 0);
	ck_assert_uint_eq(k->cnt.runs[RUN_TRAP_RETURN], 0);
	(void)c;
	box_destroy(&b);
}
END_TEST

START_TEST(softirq_stops_restarting_on_need_resched)
{
	/* 6.x (3.8+, commit c10d73671ad3): with need_resched set, __do_softirq
	 * does one pass (10 callbacks at maxbatch 10) and leaves the rest to
	 * ksoftirqd; 2.6.16 does all 10 passes (100). */
	box b;
	const char *on[] = { "softirq.stop_on_need_resched=yes", NULL };
	const char *off[] = { "softirq.stop_on_need_resched=no", NULL };
	ck_assert_uint_eq(invoked_at_first_tick(on, true, &b), 10);
	ck_assert(b.k->cpu[0].softirq_pending || b.k->cpu[0].ksd_runnable);
	box_destroy(&b);
	ck_assert_uint_eq(invoked_at_first_tick(off, true, &b), 100);
	box_destroy(&b);
	ck_assert_uint_eq(invoked_at_first_tick(on, false, &b), 100);
	box_destroy(&b);
}
END_TEST

START_TEST(softirq_deferred_to_a_runnable_ksoftirqd)
{
	/* 4.9-6.4 (commit 4cd13c21b207, reverted by d15121be7485): while
	 * ksoftirqd is runnable, irq_exit leaves RCU's softirq to it. One pass
	 * a run: the first tick invokes 10 and wakes ksoftirqd (nice 19, behind
	 * a nice -20 job, it stays runnable); the next tick invokes 10 more
	 * without the rule, none with it. */
	box b;
	const char *on[] = { "softirq.max_restart=1", "softirq.defer_to_ksoftirqd=yes", NULL };
	const char *off[] = { "softirq.max_restart=1", "softirq.defer_to_ksoftirqd=no", NULL };
	for (int d = 0; d < 2; d++) {
		ck_assert_uint_eq(invoked_at_first_tick(d ? on : off, false, &b), 10);
		kcpu *c = &b.k->cpu[0];
		ck_assert(c->ksd_runnable);
		uint64_t runs = b.k->cnt.runs[RUN_IRQ_EXIT];
		run_to(&b, sim_now(b.eng) + 100000000);
		ck_assert(c->ksd_runnable);
		ck_assert_uint_eq(b.k->rcu.cb.invoked, d ? 10 : 20);
		ck_assert_uint_eq(b.k->cnt.runs[RUN_IRQ_EXIT], d ? runs : runs + 1);
		box_destroy(&b);
	}
}
END_TEST

START_TEST(syncrcu_blocks_at_its_call_and_wakes_at_its_callback)
{
	/* One task calling synchronize_rcu() back to back on one CPU: it runs
	 * from the first switch (ctxsw 5 us), its system call ends 500 ns of
	 * work later, and it blocks there (the CPU model's event, not the next
	 * tick, 100 ms away): one callback queued, the CPU idle. Each wakeup
	 * comes at its callback's invocation, so the latencies recorded are the
	 * callbacks' own, sample for sample; one call is always outstanding. */
	box b;
	const char *sets[] = { "workload.kind=syncrcu", "workload.jobs=1", "workload.syncrcu_gap=0ns",
			       "workload.syscall_cost=500ns", NULL };
	box_create(&b, arch[_i], sets);
	kmodel *k = b.k;
	kcpu *c = &k->cpu[0];
	job *j = &k->wl.jobs[0];
	run_to(&b, 1000000);
	ck_assert_int_eq(j->blocked_at, 5500);
	ck_assert(j->sleeping);
	ck_assert_ptr_null(c->rq.curr);
	ck_assert_uint_eq(k->rcu.cb.enqueued, 1);
	run_to(&b, 2000000000);
	const sim_hist *lat = sim_metrics_hist(b.m, "syncrcu.latency_ns");
	ck_assert_ptr_nonnull(lat);
	ck_assert_uint_ge(lat->count, 5);
	ck_assert_uint_eq(lat->count, k->rcu.cb.lat->count);
	ck_assert(lat->sum == k->rcu.cb.lat->sum);
	ck_assert_uint_eq(lat->max, k->rcu.cb.lat->max);
	ck_assert_uint_eq(k->rcu.cb.enqueued, lat->count + 1);
	ck_assert_uint_eq(k->rcu.cb.invoked, lat->count);
	box_destroy(&b);
}
END_TEST

START_TEST(exitflood_queues_two_callbacks_per_close_then_exits)
{
	/* The exiting process alone on one CPU: it runs from the first switch
	 * (5 us), exits after 1 ms of work, closes 1000 sockets at 1 us each
	 * (two call_rcu() at the end of each), and is gone at exactly 2.005 ms
	 * (the CPU model's event, not the tick 100 ms away): 2000 callbacks,
	 * the CPU idle. */
	box b;
	const char *sets[] = { "workload.kind=exitflood", "workload.jobs=1",
			       "workload.exitflood_sockets=1000", "workload.exitflood_at=1ms",
			       "workload.exitflood_close_cost=1us", NULL };
	box_create(&b, arch[_i], sets);
	kmodel *k = b.k;
	kcpu *c = &k->cpu[0];
	run_to(&b, 3000000);
	ck_assert_uint_eq(k->rcu.cb.enqueued, 2000);
	ck_assert(k->wl.jobs[0].sleeping && k->wl.jobs[0].in_kernel);
	ck_assert_int_eq(k->wl.jobs[0].blocked_at, 5000 + 1000000 + 1000 * 1000);
	ck_assert_ptr_null(c->rq.curr);
	ck_assert_int_eq(c->rq.nr_running, 0);
	box_destroy(&b);
}
END_TEST

START_TEST(fwdprog_launders_its_callbacks_until_it_passes)
{
	/* rcutorture's flood alone on one CPU, in kernel mode (no tick is a
	 * quiescent state): past qhimark the watermark policy's need_resched
	 * makes schedule() note one, so grace periods go on; every post is of a
	 * new callback or of one already invoked, and the flood passes once 100
	 * callbacks were posted again 3 times each (at least 300 launders). */
	box b;
	char err[256];
	const char *sets[] = { "workload.kind=fwdprog", "workload.jobs=1", NULL };
	box_create(&b, arch[_i], sets);
	kmodel *k = b.k;
	run_to(&b, 10000000000);
	ck_assert_int_eq(kernel_model.finish(b.k, sim_now(b.eng), err, sizeof(err)), 0);
	double allocated, launders, passed, pass_ns;
	ck_assert(sim_metrics_get(b.m, "fwdprog.cbs_allocated", &allocated));
	ck_assert(sim_metrics_get(b.m, "fwdprog.launders", &launders));
	ck_assert(sim_metrics_get(b.m, "fwdprog.passed", &passed));
	ck_assert(sim_metrics_get(b.m, "fwdprog.pass_ns", &pass_ns));
	ck_assert_double_eq(passed, 1);
	ck_assert_double_ge(launders, 300);
	ck_assert_double_lt(pass_ns, 8e9);
	ck_assert_double_eq(allocated + launders, (double)k->rcu.cb.enqueued);
	ck_assert(k->wl.jobs[0].sleeping);
	box_destroy(&b);
}
END_TEST

START_TEST(fault_irqs_off_stops_everything_on_the_cpu)
{
	/* Interrupts off from 1 ms for 1 s: no tick is handled (9 come and
	 * go), no callback is invoked, the job makes no progress (its call_rcu
	 * count stays), and the latched interrupt is taken at the end. */
	box b;
	const char *sets[] = { "workload.jobs=1", "workload.callrcu_rate=1000/s",
			       "fault.kind=irqs_off", "fault.cpus=0", "fault.start=1ms",
			       "fault.duration=1s", NULL };
	box_create(&b, arch[_i], sets);
	kmodel *k = b.k;
	kcpu *c = &k->cpu[0];
	run_to(&b, 1000001);
	ck_assert_uint_eq(c->fault, FAULT_IRQS_OFF);
	uint64_t enq = k->rcu.cb.enqueued, runs = k->cnt.runs[RUN_IRQ_EXIT];
	run_to(&b, 1000000999);
	ck_assert_uint_eq(k->rcu.cb.enqueued, enq);
	ck_assert_uint_eq(k->cnt.runs[RUN_IRQ_EXIT], runs);
	ck_assert(c->fault_latched);
	run_to(&b, 1001000001);
	ck_assert_uint_eq(c->fault, 0);
	ck_assert(!c->fault_latched);
	/* From the end on the job runs: its work since the end, not since 1 ms. */
	ck_assert_int_ge(c->seg_start, 1001000000);
	run_to(&b, 1200000001);
	ck_assert_uint_gt(k->rcu.cb.enqueued, enq);
	ck_assert_uint_lt(k->rcu.cb.enqueued - enq, 400); /* ~200 in 200 ms, not ~1200 */
	box_destroy(&b);
}
END_TEST

START_TEST(fault_no_qs_holds_the_grace_period)
{
	/* 2 CPUs; CPU 1 reports no quiescent state for 2 s: the grace period
	 * CPU 0's callbacks wait for cannot end, so none is invoked until the
	 * fault is over, then they are. Without the fault they are invoked
	 * within a few ticks. */
	box b;
	const char *sets[] = { "machine.cores=2", "workload.jobs=2", "workload.callrcu_rate=1/s",
			       "fault.kind=no_qs", "fault.cpus=1", "fault.start=1ms",
			       "fault.duration=2s", NULL };
	box_create(&b, arch[_i], sets);
	kmodel *k = b.k;
	run_to(&b, 2000000);
	queue(&b, 100);
	run_to(&b, 2000000000);
	ck_assert_uint_eq(k->rcu.cb.invoked, 0);
	run_to(&b, 2600000000);
	ck_assert_uint_ge(k->rcu.cb.invoked, 100); /* and the jobs' own, 1/s */
	box_destroy(&b);
}
END_TEST

START_TEST(sample_check_failure_has_its_message)
{
	/* The slab accounting check at a sample fails with a message that says
	 * what failed (the caller printed an uninitialised buffer before). */
	box b;
	char err[256];
	const char *sets[] = { "workload.kind=make", "workload.jobs=4", "vfs.accounting=slab", NULL };
	box_create(&b, arch[0], sets);
	run_to(&b, 100000000);
	ck_assert_int_eq(kernel_model.sample(b.k, sim_now(b.eng), err, sizeof(err)), 0);
	b.k->files.v.nr_slab = b.k->files.v.live + b.k->files.v.pending - 1;
	memset(err, 'X', sizeof(err));
	ck_assert_int_eq(kernel_model.sample(b.k, sim_now(b.eng), err, sizeof(err)), SIM_ECHECK);
	ck_assert_ptr_nonnull(memchr(err, 0, sizeof(err)));
	ck_assert_msg(strstr(err, "slab accounting counts") && strstr(err, "t = 100000000 ns"), "%s", err);
	b.k->files.v.nr_slab = b.k->files.v.live + b.k->files.v.pending;
	box_destroy(&b);
}
END_TEST

START_TEST(sim_cpulist_parse_distinct_and_reject)
{
	int cpus[8], n;
	char why[256];
	ck_assert_int_eq(sim_cpulist_parse_distinct("0,5, 2-4", 8, cpus, &n, why, sizeof(why)), 0);
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(cpus[0], 0);
	ck_assert_int_eq(cpus[1], 5);
	ck_assert_int_eq(cpus[4], 4);
	ck_assert_int_eq(sim_cpulist_parse_distinct("8", 8, cpus, &n, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "0-7"));
	ck_assert_int_eq(sim_cpulist_parse_distinct("1,1", 8, cpus, &n, why, sizeof(why)), -1);
	ck_assert_int_eq(sim_cpulist_parse_distinct("3-1", 8, cpus, &n, why, sizeof(why)), -1);
	ck_assert_int_eq(sim_cpulist_parse_distinct("a", 8, cpus, &n, why, sizeof(why)), -1);
	ck_assert_int_eq(sim_cpulist_parse_distinct("1;2", 8, cpus, &n, why, sizeof(why)), -1);
	ck_assert_int_eq(sim_cpulist_parse_distinct("", 8, cpus, &n, why, sizeof(why)), -1);
}
END_TEST

START_TEST(interrupt_during_a_switch_is_taken_after_it)
{
	/* context_switch() runs with interrupts off: an interrupt that comes
	 * 2 us into a 10 us switch delays the task by its own 1 us, so the
	 * task starts at 11 us, not at the interrupt's return (3 us); with
	 * nothing left of the switch, the task goes on at the return. */
	box b;
	const char *sets[] = { "workload.jobs=2", "sched.ctxsw_cost=10us", NULL };
	box_create(&b, "x86_64", sets);
	run_to(&b, MS);
	kcpu *c = &b.k->cpu[0];
	sim_time t0 = sim_now(b.eng);
	sched_task *prev = c->rq.curr;
	ck_assert_ptr_nonnull(prev);
	kcpu_account(c, t0);
	sched_sleep(&b.k->sched.cfg, &c->rq, prev, t0); /* it blocks */
	kcpu_schedule(c, t0);
	ck_assert_ptr_nonnull(c->rq.curr);
	ck_assert_ptr_ne(c->rq.curr, prev);
	ck_assert_int_eq(c->seg_start, t0 + 10000);
	kcpu_account(c, t0 + 2000); /* the interrupt's entry */
	ck_assert_int_eq(c->seg_start, t0 + 10000);
	kcpu_return_to_task(c, t0 + 3000);
	ck_assert_int_eq(c->seg_start, t0 + 11000);
	ck_assert_int_eq(c->switch_left, 0);
	kcpu_account(c, t0 + 20000);
	kcpu_return_to_task(c, t0 + 21000);
	ck_assert_int_eq(c->seg_start, t0 + 21000);
	box_destroy(&b);
}
END_TEST

/* Two CPUs, Tree RCU, x86_64, HZ 250, one call_rcu() hog that never calls
 * (job 0, on CPU 0), the GP kthread pinned to @gpcpu, a remote wake-up
 * reaching an idle CPU after @lat (machine.idle_wake_latency=...). */
static void wake_box(box *b, int gpcpu, const char *lat)
{
	char g[64];
	snprintf(g, sizeof(g), "rcu.gp_kthread_cpu=%d", gpcpu);
	const char *base[] = { "workload.kind=callrcu", "workload.jobs=1", "workload.callrcu_rate=0/s",
			       "rcu.flavor=tree", "machine.cores=2", "machine.threads_per_core=1",
			       "machine.arch=x86_64", "machine.hz=250", "scenario.duration=1h", NULL };
	const char *sets[] = { g, lat, NULL };
	box_create_from(b, base, sets);
}

START_TEST(remote_wake_of_an_idle_cpu_waits_for_the_ipi)
{
	/* try_to_wake_up() -> ttwu_queue() (kernel/sched/core.c 6.12:3943-3955):
	 * a task whose CPU is another, idle one (nr_running 0: ttwu_queue_cond(),
	 * :3874-3921) goes on that CPU's wake list and is enqueued when the IPI
	 * lands (sched_ttwu_pending(), :3762-3797): woken, and running, exactly
	 * machine.idle_wake_latency later; a second wake-up meanwhile is a no-op
	 * (TASK_WAKING) and another task's rides the same IPI. From the task's
	 * own CPU, or onto a busy CPU, the waker enqueues it at once
	 * (ttwu_do_activate()). Cases: 0 idle remote, 1 local, 2 busy remote,
	 * 3 idle remote with the latency 0. */
	box b;
	int gpcpu = _i == 2 ? 0 : 1, waker = _i == 0 || _i == 3 ? 0 : 1;
	sim_time lat = _i == 3 ? 0 : 40000;
	wake_box(&b, gpcpu, _i == 3 ? "machine.idle_wake_latency=0ns" : "machine.idle_wake_latency=40us");
	kmodel *k = b.k;
	kthread *g = k->rcu.gpk;
	run_to(&b, 10 * MS);
	sim_time t = sim_now(b.eng);
	kcpu_settle_now(&k->cpu[0]);
	kcpu_settle_now(&k->cpu[1]);
	kcpu *tc = &k->cpu[gpcpu];
	ck_assert(g->sleeping);
	ck_assert_ptr_eq(g->cpu, tc);
	ck_assert_ptr_nonnull(k->cpu[0].rq.curr); /* the hog */
	ck_assert_ptr_null(k->cpu[1].rq.curr);    /* idle */
	ck_assert_int_eq(k->cpu[1].rq.nr_running, 0);
	uint64_t wakeups = g->wakeups;
	bool ipi = _i == 0;
	sim_time due = ipi ? t + lat : t;
	kthread_wake_by(g, t, true, waker);
	ck_assert_int_eq(g->ttwu_queued, ipi);
	ck_assert_uint_eq(g->wakeups, wakeups + !ipi);
	if (ipi) {
		ck_assert_int_eq(tc->ttwu_ipi_at, due);
		/* Woken again meanwhile: nothing changes. */
		kthread_wake_by(g, t + 1000, true, waker);
		kthread_kick_by(g, waker, t + 1000);
		ck_assert_int_eq(g->wake.when, due);
		/* Another task woken onto the CPU meanwhile lands with it. */
		ck_assert_int_eq(kcpu_remote_wake_at(&k->cpu[0], tc, t + 2000), due);
		run_to(&b, due - 1);
		ck_assert(g->sleeping && g->ttwu_queued);
		ck_assert_uint_eq(g->wakeups, wakeups);
	}
	run_to(&b, due);
	ck_assert(!g->ttwu_queued);
	ck_assert_uint_eq(g->wakeups, wakeups + 1);
	ck_assert_int_eq(g->woken, due);
	if (_i != 2) /* the idle CPU runs it at once (its step finds nothing to do) */
		ck_assert(!g->waiting);
	box_destroy(&b);
}
END_TEST

/* A second RCU domain beside "rcu" that counts the hooks the CPU model
 * calls and asks nothing (rcu/domain.h): with it registered, every hook
 * goes through the registry's loop instead of calling the normal RCU's by
 * name. */
typedef struct count_dom {
	rcu_domain d;
	uint64_t ctxsw, rdr, tick, idle_in, idle_out, needs, all_qs, sirq_qs, irq_enter, tick_dep, ct;
} count_dom;

static count_dom *cd(const rcu_domain *d) { return (count_dom *)d->state; }
static void cd_ctxsw(rcu_domain *d, kcpu *c, sim_time now, bool preempt)
{
	(void)c, (void)now, (void)preempt;
	cd(d)->ctxsw++;
}
static void cd_rdr(rcu_domain *d, kcpu *c, job *j)
{
	(void)c, (void)j;
	cd(d)->rdr++;
}
static void cd_tick(rcu_domain *d, kcpu *c, sim_time now, int user)
{
	(void)c, (void)now, (void)user;
	cd(d)->tick++;
}
static void cd_idle_in(rcu_domain *d, kcpu *c) { (void)c, cd(d)->idle_in++; }
static void cd_idle_out(rcu_domain *d, kcpu *c) { (void)c, cd(d)->idle_out++; }
static bool cd_needs(const rcu_domain *d, const kcpu *c) { return (void)c, cd(d)->needs++, false; }
static void cd_all_qs(rcu_domain *d, kcpu *c) { (void)c, cd(d)->all_qs++; }
static void cd_sirq_qs(rcu_domain *d, kcpu *c) { (void)c, cd(d)->sirq_qs++; }
static void cd_irq_enter(rcu_domain *d, kcpu *c) { (void)c, cd(d)->irq_enter++; }
static bool cd_tick_dep(const rcu_domain *d, const kcpu *c) { return (void)c, cd(d)->tick_dep++, false; }
static void cd_ct(rcu_domain *d, int cpu) { (void)cpu, cd(d)->ct++; }
static int64_t cd_qlen(const rcu_domain *d, int cpu) { return (void)d, (void)cpu, 0; }

static const rcu_domain_ops count_dom_ops = {
	.name = "count",
	.note_context_switch = cd_ctxsw,
	.note_reader_preempted = cd_rdr,
	.sched_clock_irq = cd_tick,
	.idle_enter = cd_idle_in,
	.idle_exit = cd_idle_out,
	.needs_cpu = cd_needs,
	.all_qs = cd_all_qs,
	.softirq_qs = cd_sirq_qs,
	.irq_enter_check_tick = cd_irq_enter,
	.tick_dep = cd_tick_dep,
	.ct_user_enter = cd_ct,
	.ct_user_exit = cd_ct,
	.ct_user_pass = cd_ct,
	.qlen = cd_qlen,
};

START_TEST(domains_second_domain_gets_every_hook_and_rcu_runs_the_same)
{
	/* Four CPUs of 6.12 (Tree RCU, EEVDF, nohz idle, CPU 3 nohz_full),
	 * four tasks calling synchronize_rcu() 1 ms apart: the same second with
	 * "rcu" alone (its hooks called by name) and with a counting domain
	 * registered after it (the loop). The counting domain sees every idle
	 * entry and exit and a tick hook for each tick taken from then on, the
	 * nohz_full CPU's tick dependency and context tracking, and the normal
	 * RCU's results, the CPU model's counters, each CPU's switches and the
	 * events are the same in both. */
	const char *const base[] = {
		"workload.kind=syncrcu", "workload.jobs=4", "workload.syncrcu_gap=1ms",
		"machine.cores=4", "machine.threads_per_core=1", "machine.hz=250",
		"machine.arch=x86_64", "sched.kind=eevdf", "rcu.flavor=tree", "irq.nohz_idle=yes",
		"irq.nohz_full=3", "scenario.duration=1h", NULL
	};
	const char *const none[] = { NULL };
	box a, b;
	box_create_from(&a, base, none);
	box_create_from(&b, base, none);
	ck_assert_ptr_eq(b.k->doms.normal_only, rcu_normal(b.k));
	count_dom x = { .d = { .ops = &count_dom_ops, .name = "count", .k = b.k, .state = &x } };
	kcounters at = b.k->cnt; /* the first switches happened at create */
	ck_assert_int_eq(rcu_domains_register(&b.k->doms, &x.d), 0);
	ck_assert_int_eq(b.k->doms.n, 2);
	ck_assert_ptr_null(b.k->doms.normal_only);
	ck_assert_ptr_eq(b.k->doms.softirq, rcu_normal(b.k));
	ck_assert_ptr_eq(rcu_domains_find(&b.k->doms, "count"), &x.d);
	run_to(&a, 1000 * MS);
	run_to(&b, 1000 * MS);

	ck_assert_uint_gt(b.k->cnt.idle_entries, 1000);
	ck_assert_uint_eq(x.idle_in, b.k->cnt.idle_entries - at.idle_entries);
	ck_assert_uint_eq(x.idle_out, b.k->cnt.idle_exits - at.idle_exits);
	ck_assert_uint_eq(x.tick, b.k->cnt.ticks_taken - at.ticks_taken);
	ck_assert_uint_gt(x.ctxsw, x.idle_in + x.idle_out);
	ck_assert_uint_gt(x.needs, 0);
	ck_assert_uint_gt(x.tick_dep, 0); /* CPU 3, nohz_full */
	ck_assert_uint_gt(x.ct, 0);

	ck_assert_uint_gt(a.k->rcu.cb.invoked, 0);
	ck_assert_uint_eq(b.k->rcu.cb.enqueued, a.k->rcu.cb.enqueued);
	ck_assert_uint_eq(b.k->rcu.cb.invoked, a.k->rcu.cb.invoked);
	ck_assert_uint_eq(rcu_gp_seq(b.k), rcu_gp_seq(a.k));
	ck_assert(!memcmp(&b.k->cnt, &a.k->cnt, sizeof(a.k->cnt)));
	for (int i = 0; i < a.k->mach.ncpus; i++)
		ck_assert_uint_eq(b.k->cpu[i].rq.nr_switches, a.k->cpu[i].rq.nr_switches);
	ck_assert_int_eq(sim_events(b.eng), sim_events(a.eng));
	box_destroy(&a);
	box_destroy(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kcpu");
	TCase *tc = tcase_create("kcpu");
	tcase_add_loop_test(tc, ipi_sets_no_need_resched, 0, 2);
	tcase_add_loop_test(tc, rtrap_runs_softirqs_after_irq_exit_and_at_syscall_return, 0, 2);
	tcase_add_loop_test(tc, fault_irqs_off_stops_everything_on_the_cpu, 0, 2);
	tcase_add_loop_test(tc, fault_no_qs_holds_the_grace_period, 0, 2);
	tcase_add_test(tc, sim_cpulist_parse_distinct_and_reject);
	tcase_add_test(tc, softirq_stops_restarting_on_need_resched);
	tcase_add_test(tc, softirq_deferred_to_a_runnable_ksoftirqd);
	tcase_add_test(tc, softirq_budget_passes_or_time);
	tcase_add_loop_test(tc, syncrcu_blocks_at_its_call_and_wakes_at_its_callback, 0, 2);
	tcase_add_loop_test(tc, exitflood_queues_two_callbacks_per_close_then_exits, 0, 2);
	tcase_add_loop_test(tc, fwdprog_launders_its_callbacks_until_it_passes, 0, 2);
	tcase_add_loop_test(tc, rt_softirqs_run_only_in_ksoftirqd, 0, 2);
	tcase_add_test(tc, sample_check_failure_has_its_message);
	tcase_add_test(tc, interrupt_during_a_switch_is_taken_after_it);
	tcase_add_loop_test(tc, remote_wake_of_an_idle_cpu_waits_for_the_ipi, 0, 4);
	tcase_add_test(tc, domains_second_domain_gets_every_hook_and_rcu_runs_the_same);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
