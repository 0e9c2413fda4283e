/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_distro.c - the kernel as distributions ship it, rule by rule: where
 * each CPU's tick falls (aligned on the jiffy boundary, skewed with
 * skew_tick=1, spread as 2.6's per-CPU timers were), checked against a
 * tick trace recorded on a 6.18 box (tests/data/); call rates per second
 * of CPU time on any machine.clock. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbox.h"
#include "testlib.h"

#ifndef RCUSIM_SOURCE_DIR
#error "RCUSIM_SOURCE_DIR: the source tree, for tests/data"
#endif

static char err[1024];

/* @n CPUs (no SMT), HZ 250, 6.12's scheduler and Tree RCU, no load, with
 * @sets on top. */
static void box_create(box *b, int n, const char *const *sets)
{
	char cores[64];
	snprintf(cores, sizeof(cores), "machine.cores=%d", n);
	const char *const base[] = {
		"workload.kind=callrcu", "workload.callrcu_rate=0/s", cores,
		"machine.threads_per_core=1", "machine.hz=250", "machine.arch=x86_64",
		"sched.kind=eevdf", "sched.ksoftirqd_nice=0", "rcu.flavor=tree",
		"workload.jobs=0", "scenario.duration=1h", NULL
	};
	box_create_from(b, base, sets);
}

/* @d reduced to [-period / 2, period / 2). */
static int64_t phase_diff(int64_t d, int64_t period)
{
	d %= period;
	if (d < -period / 2)
		d += period;
	if (d >= period / 2)
		d -= period;
	return d;
}

START_TEST(tick_phase_at_boot_and_after)
{
	/* 8 CPUs at HZ 250 (4 ms): aligned = every CPU at 4 ms; skewed = CPU i
	 * at 4 ms + i x (2 ms / 8) = 4 ms + i x 250 us (tick-sched.c
	 * 6.12:1592-1597); spread = CPU i at (i + 1) x 0.5 ms. A second of
	 * ticks later each CPU keeps its phase: the tick timer visits the
	 * CPUs in order whatever their times. */
	static const char *const phase[] = { "irq.tick_phase=aligned", "irq.tick_phase=skewed",
					     "irq.tick_phase=spread" };
	for (int v = 0; v < 3; v++) {
		box b;
		const char *sets[] = { phase[v], NULL };
		box_create(&b, 8, sets);
		for (int i = 0; i < 8; i++) {
			sim_time want = v == 0 ? 4 * MS : v == 1 ? 4 * MS + i * 250000 : (i + 1) * MS / 2;
			ck_assert_int_eq(b.k->cpu[i].tick_when, want);
		}
		run_to(&b, S + 1);
		for (int i = 0; i < 8; i++) {
			sim_time want = v == 0 ? 4 * MS : v == 1 ? 4 * MS + i * 250000 : (i + 1) * MS / 2;
			sim_time when = b.k->cpu[i].tick_when;
			ck_assert_int_gt(when, S + 1); /* the next one */
			ck_assert_int_le(when, S + 4 * MS);
			ck_assert_int_eq((when - want) % (4 * MS), 0);
		}
		box_destroy(&b);
	}
}
END_TEST

/* The tick handler's times (tick_nohz_handler's hrtimer_expire_entry now=,
 * ns) per CPU of a tracefs `trace` file, and their count. */
typedef struct ticks {
	int64_t *t[2];
	size_t n[2], cap[2];
} ticks;

static void read_ticks(const char *path, ticks *tk)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s", path);
	memset(tk, 0, sizeof(*tk));
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		const char *cpu = strstr(line, "] "), *fn = strstr(line, "function=tick_nohz_handler");
		const char *now = fn ? strstr(fn, "now=") : NULL;
		if (line[0] == '#' || !cpu || !now || !strstr(line, "hrtimer_expire_entry:"))
			continue;
		int c = (int)strtol(cpu - 3, NULL, 10);
		ck_assert(c == 0 || c == 1);
		if (tk->n[c] == tk->cap[c]) {
			tk->cap[c] = tk->cap[c] ? 2 * tk->cap[c] : 1024;
			tk->t[c] = realloc(tk->t[c], tk->cap[c] * sizeof(int64_t));
			ck_assert_ptr_nonnull(tk->t[c]);
		}
		tk->t[c][tk->n[c]++] = strtoll(now + 4, NULL, 10);
	}
	fclose(f);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t median(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return v[n / 2];
}

START_TEST(tick_phase_matches_a_real_box)
{
	/* tests/data/tracefs-ticks-6.18-hz250.txt: 2 s of a 2-CPU 6.18 guest
	 * (HZ 250, no skew_tick on its command line), both CPUs busy, the
	 * tick's hrtimer_expire_entry recorded with trace_clock=mono. Its
	 * period is 4 ms and CPU 1's ticks come within tens of us of CPU 0's
	 * (the median phase difference is under a microsecond): aligned. The
	 * model's aligned phase is the recorded one within 50 us; spread (2.6)
	 * is 2 ms off it, half a period. */
	ticks tk;
	read_ticks(RCUSIM_SOURCE_DIR "/tests/data/tracefs-ticks-6.18-hz250.txt", &tk);
	ck_assert_uint_gt(tk.n[0], 400);
	ck_assert_uint_gt(tk.n[1], 400);
	const int64_t period = 4000000;
	int64_t *gap = malloc(tk.n[0] * sizeof(int64_t)), *off = malloc(tk.n[1] * sizeof(int64_t));
	ck_assert(gap && off);
	for (size_t i = 1; i < tk.n[0]; i++)
		gap[i - 1] = tk.t[0][i] - tk.t[0][i - 1];
	ck_assert_int_lt(llabs(median(gap, tk.n[0] - 1) - period), 1000);
	for (size_t i = 0; i < tk.n[1]; i++)
		off[i] = phase_diff(tk.t[1][i] - tk.t[0][0], period);
	int64_t real = median(off, tk.n[1]);
	ck_assert_int_lt(llabs(real), 50000);

	static const char *const phase[] = { "irq.tick_phase=aligned", "irq.tick_phase=spread" };
	for (int v = 0; v < 2; v++) {
		box b;
		const char *sets[] = { phase[v], NULL };
		box_create(&b, 2, sets);
		run_to(&b, S);
		int64_t model = phase_diff(b.k->cpu[1].tick_when - b.k->cpu[0].tick_when, period);
		if (v == 0)
			ck_assert_int_lt(llabs(model - real), 50000);
		else
			ck_assert_int_gt(llabs(model - real), period / 2 - 50000);
		box_destroy(&b);
	}
	free(gap);
	free(off);
	free(tk.t[0]);
	free(tk.t[1]);
}
END_TEST

START_TEST(softirq_budget_in_jiffies)
{
	/* msecs_to_jiffies(2) rounds up (include/linux/jiffies.h): 1 jiffy at
	 * HZ 100, 250 and 300, 2 at HZ 1000. */
	static const int hz[] = { 100, 250, 300, 1000 }, want[] = { 1, 1, 1, 2 };
	for (int v = 0; v < 4; v++) {
		box b;
		char set[64];
		snprintf(set, sizeof(set), "machine.hz=%d", hz[v]);
		const char *sets[] = { set, "softirq.time_limit=2ms", NULL };
		box_create(&b, 2, sets);
		ck_assert_int_eq(b.k->softirq.budget_j, want[v]);
		box_destroy(&b);
	}
}
END_TEST

/* The longest softirq run, ns, of a flood on CPU 1 of 2 (one task a CPU,
 * ticks aligned): 20,000 callbacks at 4 us each, qhimark above them, so
 * each rcu_do_batch() takes max(blimit, 20000 >> 7) = 156 of the
 * callbacks left (about 624 us) and re-raises RCU_SOFTIRQ; @sets on top. */
static sim_time flood_run_max(const char *const *sets, uint64_t stops[RUN_NSTOP])
{
	box b;
	const char *base[16] = { "irq.tick_phase=aligned", "workload.jobs=2", "rcu.qhimark=100000",
				 "rcu.callback_cost=4us", "softirq.max_restart=10",
				 "softirq.stop_on_need_resched=yes" };
	int n = 6;
	for (; *sets; sets++)
		base[n++] = *sets;
	base[n] = NULL;
	box_create(&b, 2, base);
	run_to(&b, MS / 2);
	queue_on(&b, 1, 20000);
	run_to(&b, S);
	ck_assert_uint_eq(b.k->rcu.cb.invoked, 20000);
	sim_time max = (sim_time)b.k->h.softirq_run->max;
	for (int i = 0; i < RUN_NSTOP; i++)
		stops[i] = b.k->cnt.run_stops[i];
	box_destroy(&b);
	return max;
}

START_TEST(softirq_run_ends_at_the_jiffy)
{
	/* handle_softirqs() restarts while jiffies is before its end (6.12
	 * kernel/softirq.c:513, 569-574). The run starts at a tick's irq_exit,
	 * on the jiffy boundary: at HZ 250 its passes go on until the first
	 * that ends past the next boundary, 4 ms on (the tick landing in that
	 * pass moves jiffies): 4 ms plus at most a pass (and the ticks' own
	 * cost); at HZ 1000, 2 jiffies: 2 ms plus a pass. 2 ms of time, as
	 * rcusim had it, would end both at 2-2.6 ms. */
	const sim_time pass = 156 * 4000 + 3000;
	uint64_t stops[RUN_NSTOP];
	const char *hz250[] = { "machine.hz=250", "softirq.time_limit=2ms", NULL };
	sim_time m = flood_run_max(hz250, stops);
	ck_assert_msg(m >= 4 * MS && m <= 4 * MS + pass + 10000, "HZ 250: %lld ns", (long long)m);
	/* Its longest runs end on the budget (softirq.runs_ended_time_budget);
	 * once the batches are down to blimit, 10 short passes come first
	 * (restart limit), and the last run empties the list. */
	ck_assert_uint_ge(stops[RUN_STOP_BUDGET], 1);
	ck_assert_uint_ge(stops[RUN_STOP_EMPTY], 1);
	const char *hz1000[] = { "machine.hz=1000", "softirq.time_limit=2ms", NULL };
	m = flood_run_max(hz1000, stops);
	ck_assert_msg(m >= 2 * MS && m <= 2 * MS + pass + 10000, "HZ 1000: %lld ns", (long long)m);
	ck_assert_uint_ge(stops[RUN_STOP_BUDGET], 1);
}
END_TEST

START_TEST(softirq_rereads_need_resched_after_the_tick)
{
	/* No time budget, HZ 1000, two tasks on CPU 1 under EEVDF: a tick in
	 * the run that finds the running task's slice (2.25 ms with 2 CPUs:
	 * 0.75 ms x (1 + ilog2(2))) used up sets need_resched, and the run
	 * stops at the end of the pass that tick lands in (handle_softirqs()
	 * reads need_resched() after every pass): within a slice, a tick and a
	 * pass. Without the rule (stop_on_need_resched = no) it makes all 10
	 * passes, 6 ms (each batch a little smaller than the last). */
	const sim_time pass = 156 * 4000 + 3000;
	uint64_t stops[RUN_NSTOP];
	const char *on[] = { "machine.hz=1000", "softirq.time_limit=0ns", "workload.jobs=4", NULL };
	sim_time m = flood_run_max(on, stops);
	ck_assert_msg(m <= 2250000 + MS + pass + 10000, "%lld ns", (long long)m);
	ck_assert_uint_ge(stops[RUN_STOP_RESCHED], 1); /* softirq.runs_ended_need_resched */
	ck_assert_uint_eq(stops[RUN_STOP_BUDGET], 0);
	const char *off[] = { "machine.hz=1000", "softirq.time_limit=0ns", "workload.jobs=4",
			      "softirq.stop_on_need_resched=no", NULL };
	m = flood_run_max(off, stops);
	ck_assert_msg(m >= 6 * MS, "%lld ns", (long long)m);
	ck_assert_uint_ge(stops[RUN_STOP_RESTART], 1); /* all 10 passes made */
	ck_assert_uint_eq(stops[RUN_STOP_RESCHED], 0);
}
END_TEST

/* One CPU, two jobs (no calls: always in user mode unless told), ticks
 * aligned, sched.preempt @model: the running job, made to be in a system
 * call when @kernel, is asked to reschedule and a reschedule IPI's
 * interrupt returns at 1 ms. */
static void irq_return_with_resched(box *b, const char *model, bool kernel)
{
	char set[64];
	snprintf(set, sizeof(set), "sched.preempt=%s", model);
	const char *sets[] = { set, "workload.jobs=2", "irq.tick_phase=aligned", "workload.syscall_cost=2us",
			       NULL };
	box_create(b, 1, sets);
	run_to(b, MS / 2);
	kcpu *c = &b->k->cpu[0];
	ck_assert(is_job(c, c->rq.curr));
	((job *)c->rq.curr->owner)->in_kernel = kernel;
	kcpu_settle_now(c);
	c->need_resched = true;
	ck_assert_int_eq(sim_timer_at(b->eng, &c->ipi, MS), 0);
}

START_TEST(preemption_at_irq_return_per_model)
{
	/* full: the interrupted job is preempted as the interrupt returns
	 * (irqentry_exit_cond_resched(), kernel/entry/common.c 6.12:303-313,
	 * 353-354), in kernel mode too. none and voluntary: not in kernel mode
	 * (sched_dynamic_update() leaves it off, kernel/sched/core.c
	 * 6.12:7420-7440); the job goes on to its next preemption point, at
	 * most one system call's 2 us on (1.2 GHz, alone on its core), and
	 * switches there; from user mode it switches at once
	 * (exit_to_user_mode_loop(), common.c:101). */
	static const char *const model[] = { "full", "none", "voluntary" };
	for (int v = 0; v < 3; v++) {
		for (int kernel = 0; kernel < 2; kernel++) {
			box b;
			irq_return_with_resched(&b, model[v], kernel);
			kcpu *c = &b.k->cpu[0];
			const sched_task *before = c->rq.curr;
			uint64_t sw = c->rq.nr_switches;
			run_to(&b, MS + 1000); /* the IPI's handler (irq.cost) has returned */
			bool deferred = v > 0 && kernel;
			if (deferred) {
				ck_assert_ptr_eq(c->rq.curr, before);
				ck_assert(c->need_resched);
				ck_assert(sim_timer_armed(&c->resched_pt));
				ck_assert_int_le(c->resched_pt.when, MS + 5000 + 2000 + 1);
				run_to(&b, c->resched_pt.when + 1);
			}
			ck_assert_msg(c->rq.curr != before, "%s, %s mode", model[v], kernel ? "kernel" : "user");
			ck_assert_uint_eq(c->rq.nr_switches, sw + 1);
			ck_assert(!c->need_resched && !sim_timer_armed(&c->resched_pt));
			box_destroy(&b);
		}
	}
}
END_TEST

/* The rest of the kernel stretch a job in kernel mode runs on to its return
 * to user after an interrupt that asks it to reschedule returns (none), over
 * @n interrupt returns at one instant, with workload.kstretch_sigma @sigma:
 * their mean and largest in ns, and the share over @over ns. */
static void kstretch_rests(const char *sigma, int n, double over, double *mean, double *max, double *share)
{
	const char *sets[] = { "sched.preempt=none", "workload.jobs=2", "irq.tick_phase=aligned",
			       "workload.syscall_cost=2us", sigma, NULL };
	box b;
	box_create(&b, 1, sets);
	run_to(&b, MS / 2);
	kcpu *c = &b.k->cpu[0];
	ck_assert(is_job(c, c->rq.curr));
	kcpu_settle_now(c);
	sim_time t = sim_now(b.eng);
	double sum = 0, big = 0;
	int above = 0;
	for (int i = 0; i < n; i++) {
		c->need_resched = true;
		c->irq_mode = IRQ_MODE_KERNEL; /* the interrupt found it in a system call */
		kcpu_irq_return(c, t);
		ck_assert(sim_timer_armed(&c->resched_pt));
		double rest = (double)(c->resched_pt.when - t) * speed(c);
		sum += rest;
		big = rest > big ? rest : big;
		above += rest > over;
		sim_timer_cancel(b.eng, &c->resched_pt);
	}
	*mean = sum / n;
	*max = big;
	*share = (double)above / n;
	box_destroy(&b);
}

START_TEST(kstretch_sigma_draws_the_stretch_length_biased)
{
	/* workload.kstretch_sigma: an interrupt lands in a system call with
	 * probability in proportion to its length, so the stretch it finds is
	 * length-biased (lognormal of log-mean ln m + sigma^2 / 2 for a
	 * lognormal of mean m) and the rest to its return to user a uniform
	 * share of it: mean m e^(sigma^2) / 2. With m = 2 us of work, 20,000
	 * interrupt returns: sigma 0, every rest within [0, m], mean m / 2
	 * (uniform); sigma 0.5, mean m e^0.25 / 2 = 1,284 ns within 3%, and a
	 * share of rests longer than the mean stretch itself (P(U L > m) =
	 * E[(1 - m / L)+] = 0.197 for that L) within 0.17-0.23. */
	double mean, max, share;
	kstretch_rests("workload.kstretch_sigma=0", 20000, 2000, &mean, &max, &share);
	ck_assert_msg(fabs(mean / 1000 - 1) < 0.03, "sigma 0: mean %.0f ns", mean);
	ck_assert_msg(max <= 2000 + 2, "sigma 0: longest %.0f ns", max);
	ck_assert_msg(share == 0, "sigma 0: %.3f over the stretch", share);
	kstretch_rests("workload.kstretch_sigma=0.5", 20000, 2000, &mean, &max, &share);
	ck_assert_msg(fabs(mean / (1000 * exp(0.25)) - 1) < 0.03, "sigma 0.5: mean %.0f ns", mean);
	ck_assert_msg(share > 0.17 && share < 0.23, "sigma 0.5: %.3f over the mean stretch", share);
}
END_TEST

START_TEST(blocked_job_switches_at_irq_return_in_every_model)
{
	/* A job that blocked in the stretch an interrupt accounts (a refused
	 * open's retry sleep, synchronize_rcu(), an exit) calls schedule()
	 * itself: under every preemption model the CPU switches as the
	 * interrupt returns, with no preemption point to wait for (a regression
	 * test: under none it once ran on, asleep, until one). */
	static const char *const model[] = { "full", "none", "voluntary", "lazy" };
	for (int v = 0; v < 4; v++) {
		box b;
		irq_return_with_resched(&b, model[v], true);
		kcpu *c = &b.k->cpu[0];
		sched_task *before = c->rq.curr;
		job *j = before->owner;
		j->sleeping = true; /* what kcpu_account() does for a job whose run slept */
		sched_sleep(&b.k->sched.cfg, &c->rq, before, MS / 2);
		run_to(&b, MS + 1000);
		ck_assert_msg(c->rq.curr != before, "%s", model[v]);
		ck_assert_msg(!sim_timer_armed(&c->resched_pt), "%s", model[v]);
		box_destroy(&b);
	}
}
END_TEST

START_TEST(lazy_preemption_waits_for_the_tick)
{
	/* preempt=lazy (6.13+): a fair request sets only the lazy bit, which
	 * the interrupt's return does not read (need_resched() is the full
	 * bit); a job in a long kernel path goes on until the next tick
	 * promotes the bit (sched_tick(), kernel/sched/core.c 6.13.7:5651-5652)
	 * and that tick's return preempts it. From user mode the return acts on
	 * either bit (kernel/entry/common.c 6.19:31-32); a full request
	 * (resched_curr()) preempts in kernel mode at once, as under full. */
	for (int v = 0; v < 3; v++) {
		box b;
		const char *sets[] = { "sched.preempt=lazy", "workload.jobs=2", "irq.tick_phase=aligned", NULL };
		box_create(&b, 1, sets);
		run_to(&b, MS / 2);
		kcpu *c = &b.k->cpu[0];
		const sched_task *before = c->rq.curr;
		((job *)before->owner)->in_kernel = v != 1;
		kcpu_settle_now(c);
		kcpu_resched(c, v != 2);
		ck_assert(c->resched_lazy == (v != 2));
		ck_assert_int_eq(sim_timer_at(b.eng, &c->ipi, MS), 0);
		run_to(&b, MS + 20000);
		if (v == 0) { /* lazy, kernel mode: on until the tick at 4 ms */
			ck_assert_ptr_eq(c->rq.curr, before);
			ck_assert(c->need_resched && c->resched_lazy);
			ck_assert(!sim_timer_armed(&c->resched_pt));
			run_to(&b, 4 * MS - 1);
			ck_assert_ptr_eq(c->rq.curr, before);
			run_to(&b, 4 * MS + 20000);
		}
		ck_assert_msg(c->rq.curr != before, "case %d", v);
		ck_assert(!c->need_resched && !c->resched_lazy);
		box_destroy(&b);
	}
}
END_TEST

/* When the one callback queued at 0.5 ms on CPU 0 of 2 is invoked (ns),
 * with CPU 1's job always in a system call, or 0 if not by 300 ms;
 * preempt=none, @sets on top. */
static sim_time gp_with_cpu_in_kernel(const char *const *sets)
{
	box b;
	const char *base[16] = { "workload.jobs=2", "irq.tick_phase=aligned", "sched.preempt=none" };
	int n = 3;
	for (; *sets; sets++)
		base[n++] = *sets;
	base[n] = NULL;
	box_create(&b, 2, base);
	run_to(&b, MS / 2);
	((job *)b.k->cpu[1].rq.curr->owner)->in_kernel = true;
	queue_on(&b, 0, 1);
	sim_time t = 0;
	for (sim_time at = MS; at <= 300 * MS && !t; at += MS) {
		run_to(&b, at);
		if (b.k->rcu.cb.invoked)
			t = at;
	}
	box_destroy(&b);
	return t;
}

START_TEST(preempt_rcu_tick_in_kernel_is_a_qs)
{
	/* A grace period that needs CPU 1, whose job never leaves the kernel.
	 * PREEMPT_RCU (rcu_flavor_sched_clock_irq(), tree_plugin.h
	 * 6.12:730-747): its tick outside a reader is a quiescent state, so
	 * the GP ends within a few ticks (the callback is invoked by 20 ms).
	 * Non-preemptible RCU (:975-991), or PREEMPT_RCU with every tick
	 * inside a reader: no tick of it is one; the GP waits for RCU's
	 * urgency (jiffies_to_sched_qs = 25 jiffies at HZ 250 with 2 CPUs: the
	 * FQS scan after jiffy 26, about 108 ms) to set need_resched at its
	 * next tick, the job's next preemption point to switch, the next tick
	 * to report it, and the GP's end to reach the callback: 100-130 ms. */
	const char *yes[] = { "rcu.preempt_rcu=yes", "workload.reader_share=0", NULL };
	const char *no[] = { "rcu.preempt_rcu=no", NULL };
	const char *all[] = { "rcu.preempt_rcu=yes", "workload.reader_share=1", NULL };
	sim_time t = gp_with_cpu_in_kernel(yes);
	ck_assert_msg(t > 0 && t <= 20 * MS, "PREEMPT_RCU: %lld", (long long)t);
	t = gp_with_cpu_in_kernel(no);
	ck_assert_msg(t >= 100 * MS && t <= 130 * MS, "non-preemptible: %lld", (long long)t);
	t = gp_with_cpu_in_kernel(all);
	ck_assert_msg(t >= 100 * MS && t <= 130 * MS, "all in readers: %lld", (long long)t);
}
END_TEST

START_TEST(cond_resched_reports_only_without_preempt_rcu)
{
	/* __cond_resched() without need_resched: rcu_all_qs() only #ifndef
	 * CONFIG_PREEMPT_RCU (kernel/sched/core.c 6.12:7231-7234), and that
	 * reports a QS only when RCU marked the CPU urgent
	 * (tree_plugin.h:878-899). */
	for (int prcu = 0; prcu < 2; prcu++) {
		box b;
		const char *sets[] = { prcu ? "rcu.preempt_rcu=yes" : "rcu.preempt_rcu=no", "sched.preempt=none",
				       NULL };
		box_create(&b, 2, sets);
		rcu_tree_data *rdp = &tree(&b)->rda[1];
		rdp->cpu_no_qs = true;
		rdp->rcu_urgent_qs = false;
		b.k->rcu.ops->cond_resched(b.k->rcu.rsp, 1);
		ck_assert(rdp->cpu_no_qs); /* not urgent: nothing */
		rdp->rcu_urgent_qs = true;
		b.k->rcu.ops->cond_resched(b.k->rcu.rsp, 1);
		ck_assert(rdp->cpu_no_qs == (prcu == 1));
		ck_assert(rdp->rcu_urgent_qs == (prcu == 1));
		box_destroy(&b);
	}
}
END_TEST

/* preempt=full, PREEMPT_RCU (every kernel tick in a reader), 2 CPUs, jobs
 * 1 and 3 on CPU 1, ticks aligned, @extra (NULL-terminated) on top; one
 * callback queued on CPU 0 at 0.5 ms. */
static void reader_box(box *b, const char *const *extra)
{
	const char *sets[16] = { "workload.jobs=4", "irq.tick_phase=aligned", "sched.preempt=full",
				 "rcu.preempt_rcu=yes", "workload.reader_share=1" };
	int n = 5;
	for (; *extra; extra++)
		sets[n++] = *extra;
	sets[n] = NULL;
	box_create(b, 2, sets);
	run_to(b, MS / 2);
	queue_on(b, 0, 1);
}

/* CPU 1's running job, in a system call, is asked to reschedule and an
 * IPI's return preempts it inside a reader now; @left ns of the reader
 * remain. Returns the job, queued on CPU 1's leaf. */
static job *preempt_in_reader(box *b, double left)
{
	kcpu *c = &b->k->cpu[1];
	job *j = c->rq.curr->owner;
	j->in_kernel = true;
	kcpu_settle_now(c);
	c->need_resched = true;
	ck_assert_int_eq(sim_timer_at(b->eng, &c->ipi, sim_now(b->eng)), 0);
	run_to(b, sim_now(b->eng) + 20000); /* the IPI's handler and the switch */
	ck_assert(j->rdr.queued);
	ck_assert_ptr_ne(c->rq.curr, &j->task);
	j->rdr_left = left; /* the reader's rest, set for the test */
	j->in_kernel = false;
	return j;
}

START_TEST(preempted_reader_blocks_the_gp)
{
	/* preempt=full, PREEMPT_RCU, 2 CPUs, 2 jobs on CPU 1 (jobs 1 and 3).
	 * A grace period starts for a callback queued at 0.5 ms; as it does,
	 * before CPU 1 has reported, CPU 1's job is preempted inside a
	 * reader with 40 ms left (every kernel tick of it in one): it queues on the leaf
	 * and blocks the GP (RCU_GP_BLKD, tree_plugin.h 6.12:165-168,
	 * 254-257), while the context switch reports CPU 1's own quiescent
	 * state. No tick of CPU 1 can end it, nor can FQS (force_qs_rnp()
	 * skips a leaf whose CPUs reported, tree.c 6.12:2699-2709): the
	 * callback waits until the job has run the rest of its reader and
	 * unlocks (rcu_report_unblock_qs_rnp(), tree.c:2353-2386); then the GP
	 * ends within a few ticks. */
	box b;
	const char *none[] = { NULL };
	reader_box(&b, none);
	kmodel *k = b.k;
	rcu_tree_state *rs = tree(&b);
	while (!rcu_tree_gp_in_progress(rs)) {
		REQUIRE(sim_now(b.eng) < 20 * MS);
		run_to(&b, sim_now(b.eng) + 10000);
	}
	ck_assert(rs->node[0].qsmask & rs->rda[1].grpmask); /* CPU 1 still owes it */
	sim_time preempted = sim_now(b.eng);
	job *j = preempt_in_reader(&b, 40 * MS);
	ck_assert(j->rdr.q_blocks);
	ck_assert_int_eq(rs->node[0].nblkd, 1);
	ck_assert_int_eq(rs->node[0].gp_blkd, 1);
	ck_assert_uint_eq(rs->readers_blocked, 1);
	while (j->rdr.queued) {
		REQUIRE(sim_now(b.eng) < 200 * MS);
		ck_assert_uint_eq(k->rcu.cb.invoked, 0);
		if (sim_now(b.eng) > preempted + 2 * 4 * MS) /* CPU 1 reported at a tick */
			ck_assert(!(rs->node[0].qsmask & rs->rda[1].grpmask));
		run_to(&b, sim_now(b.eng) + 100000);
	}
	sim_time unlocked = sim_now(b.eng);
	ck_assert_int_gt(unlocked, preempted + 40 * MS); /* it ran 40 ms of it, sharing the CPU */
	ck_assert_uint_eq(rs->readers_held_gp, 1);
	ck_assert_int_eq(rs->node[0].gp_blkd, 0);
	run_to(&b, unlocked + 5 * 4 * MS);
	ck_assert_uint_eq(k->rcu.cb.invoked, 1);
	box_destroy(&b);
}
END_TEST

START_TEST(reader_preempted_after_its_cpu_reported_waits_for_the_next_gp)
{
	/* The same, but the reader is preempted after CPU 1 reported: it
	 * queues at the head and blocks only the next grace period, which
	 * rcu_gp_init() makes wait for every task then on the list
	 * (rcu_preempt_check_blocked_tasks(), tree_plugin.h 6.12:704-721). */
	box b;
	const char *none[] = { NULL };
	reader_box(&b, none);
	kmodel *k = b.k;
	rcu_tree_state *rs = tree(&b);
	while (rs->node[0].qsmask & rs->rda[1].grpmask || !rcu_tree_gp_in_progress(rs)) {
		REQUIRE(sim_now(b.eng) < 100 * MS);
		run_to(&b, sim_now(b.eng) + 100000);
	}
	/* CPU 1 has reported; the GP still waits for CPU 0 or its end. */
	job *j = preempt_in_reader(&b, 60 * MS);
	ck_assert(!j->rdr.q_blocks);
	ck_assert_int_eq(rs->node[0].gp_blkd, 0);
	/* That GP ends and its callback is invoked while the reader is still
	 * out; a second callback's GP waits for it. */
	run_to(&b, sim_now(b.eng) + 5 * 4 * MS);
	ck_assert(j->rdr.queued);
	ck_assert_uint_eq(k->rcu.cb.invoked, 1);
	queue_on(&b, 0, 1);
	run_to(&b, sim_now(b.eng) + 3 * 4 * MS);
	ck_assert(j->rdr.queued); /* it has run at most 32 of its 60 ms */
	ck_assert(rcu_tree_gp_in_progress(rs));
	ck_assert_int_eq(rs->node[0].gp_blkd, 1);
	ck_assert_uint_eq(k->rcu.cb.invoked, 1);
	while (k->rcu.cb.invoked < 2) {
		REQUIRE(sim_now(b.eng) < 400 * MS);
		ck_assert(!j->rdr.queued || k->rcu.cb.invoked == 1);
		run_to(&b, sim_now(b.eng) + 100000);
	}
	ck_assert(!j->rdr.queued);
	box_destroy(&b);
}
END_TEST

/* reader_box() with @sets: CPU 1's job is preempted inside a reader as a
 * grace period begins (it blocks it), with 100 ms of the reader left. When
 * it unlocks (ns after the preemption), how many readers were boosted, and
 * whether it is still SCHED_FIFO after. */
static sim_time boosted_unlock(const char *const *sets, uint64_t *boosted, bool *fifo_after)
{
	box b;
	reader_box(&b, sets);
	kmodel *k = b.k;
	kcpu *c = &k->cpu[1];
	rcu_tree_state *rs = tree(&b);
	while (!rcu_tree_gp_in_progress(rs))
		run_to(&b, sim_now(b.eng) + 10000);
	sim_time preempted = sim_now(b.eng);
	job *j = preempt_in_reader(&b, 100 * MS);
	ck_assert(j->rdr.q_blocks);
	*boosted = 0;
	while (j->rdr.queued) {
		REQUIRE(sim_now(b.eng) < 2 * S);
		if (j->task.fifo)
			ck_assert_ptr_eq(c->rq.curr, &j->task); /* FIFO: nothing fair runs over it */
		run_to(&b, sim_now(b.eng) + 100000);
	}
	*boosted = k->rcu.readers_boosted;
	*fifo_after = j->task.fifo;
	sim_time t = sim_now(b.eng) - preempted;
	box_destroy(&b);
	return t;
}

START_TEST(boosting_ends_a_starved_reader)
{
	/* Without boosting the preempted reader shares CPU 1 with the other
	 * job (EEVDF, equal weights): its 100 ms take about 200 ms. With
	 * RCU_BOOST and a 20 ms delay (RCU_BOOST_DELAY_JIFFIES = 5 at HZ 250),
	 * the first FQS scan after that finds CPU 1's leaf reported but held by
	 * the reader (rcu_initiate_boost(), tree_plugin.h 6.12:1163-1186) and
	 * its rcub lends SCHED_FIFO: the reader runs alone to its unlock, about
	 * 20 + (100 - 10) ms after, and is deboosted there. */
	uint64_t boosted;
	bool fifo;
	const char *off[] = { "rcu.boost=no", NULL };
	sim_time t = boosted_unlock(off, &boosted, &fifo);
	ck_assert_msg(t >= 180 * MS && t <= 220 * MS, "no boost: %lld", (long long)t);
	ck_assert_uint_eq(boosted, 0);
	const char *on[] = { "rcu.boost=yes", "rcu.boost_delay=20ms", NULL };
	t = boosted_unlock(on, &boosted, &fifo);
	ck_assert_msg(t >= 105 * MS && t <= 125 * MS, "boost: %lld", (long long)t);
	ck_assert_uint_eq(boosted, 1);
	ck_assert(!fifo);
}
END_TEST

START_TEST(callrcu_rate_is_per_second_on_any_clock)
{
	/* One hog alone on a one-thread CPU, 100,000 call_rcu() a second of its
	 * CPU time, 10 s: a million calls at 1.2 GHz and at 6.9 GHz alike (a
	 * Poisson count, sd 1000), less the share of the CPU its callbacks
	 * take from it: 100,000 x rcu.callback_cost (400 ns at 1.2 GHz, so 4%;
	 * 1.2 / 6.9 of that at 6.9 GHz), within 0.5% for the passes and ticks.
	 * Before, the rate was per ns of work at 1.2 GHz: 5.75 million calls
	 * at 6.9 GHz. */
	static const char *const clock[] = { "machine.clock=1.2GHz", "machine.clock=6.9GHz" };
	for (int v = 0; v < 2; v++) {
		sim_metrics *m;
		const char *sets[] = { clock[v], "machine.cores=1", "machine.threads_per_core=1",
				       "machine.arch=x86_64", "workload.jobs=1",
				       "workload.callrcu_rate=100000/s", "workload.syscall_cost=500ns",
				       "scenario.duration=10s", NULL };
		ck_assert_msg(testlib_simulate("callrcu", sets, &m, err, sizeof(err)) == 0, "%s", err);
		double enq = testlib_get(m, "cb.enqueued");
		double want = 1e6 * (1 - 1e5 * 400e-9 * (v == 0 ? 1 : 1.2 / 6.9));
		ck_assert_msg(enq > want * 0.995 - 3000 && enq < want + 3000, "%s: %.0f calls, %.0f expected",
			      clock[v], enq, want);
		sim_metrics_destroy(m);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("distro");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, tick_phase_at_boot_and_after);
	tcase_add_test(tc, tick_phase_matches_a_real_box);
	tcase_add_test(tc, softirq_budget_in_jiffies);
	tcase_add_test(tc, softirq_run_ends_at_the_jiffy);
	tcase_add_test(tc, softirq_rereads_need_resched_after_the_tick);
	tcase_add_test(tc, preemption_at_irq_return_per_model);
	tcase_add_test(tc, kstretch_sigma_draws_the_stretch_length_biased);
	tcase_add_test(tc, blocked_job_switches_at_irq_return_in_every_model);
	tcase_add_test(tc, lazy_preemption_waits_for_the_tick);
	tcase_add_test(tc, preempt_rcu_tick_in_kernel_is_a_qs);
	tcase_add_test(tc, cond_resched_reports_only_without_preempt_rcu);
	tcase_add_test(tc, preempted_reader_blocks_the_gp);
	tcase_add_test(tc, reader_preempted_after_its_cpu_reported_waits_for_the_next_gp);
	tcase_add_test(tc, boosting_ends_a_starved_reader);
	tcase_add_test(tc, callrcu_rate_is_per_second_on_any_clock);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testlib_run_suite(suite());
}
