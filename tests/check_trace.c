/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_trace.c - the trace library's text writer against its reader
 * (trace/textw.c, trace/text.c): each event the model writes reads back
 * with its task, CPU, time and fields; an event the writer does not know
 * is refused with nothing written. */
#include <check.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "trace.h"

/* Write one event into a memory buffer and parse it back into *@ev (its
 * text in @buf). */
static void roundtrip(char *buf, size_t len, trace_ev_type type, const int64_t *num, const char *const *str,
		      trace_ev *ev)
{
	FILE *f = fmemopen(buf, len, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(trace_text_event(f, 1, INT64_C(12345678901234), "cc1", 10007, "d..2.", type, num, str),
			 0);
	fclose(f);
	ck_assert_msg(trace_parse_line(buf, ev), "not read back: %s", buf);
	ck_assert_int_eq(ev->type, type);
	ck_assert_int_eq(ev->cpu, 1);
	ck_assert_int_eq(ev->pid, 10007);
	ck_assert_str_eq(ev->comm, "cc1");
	ck_assert_int_eq(ev->ts, INT64_C(12345678901000)); /* the text's microseconds */
}

START_TEST(trace_switch_and_wakeup_read_back)
{
	char buf[512];
	trace_ev ev;
	const int64_t sw[7] = { 10007, 120, 1, 15, 120 };
	const char *sws[3] = { "cc1", "ksoftirqd/1" };
	roundtrip(buf, sizeof(buf), TEV_SCHED_SWITCH, sw, sws, &ev);
	ck_assert_str_eq(ev.prev.comm, "cc1");
	ck_assert_int_eq(ev.prev.pid, 10007);
	ck_assert_int_eq(ev.prev.prio, 120);
	ck_assert_str_eq(ev.prev_state, "S");
	ck_assert_str_eq(ev.next.comm, "ksoftirqd/1");
	ck_assert_int_eq(ev.next.pid, 15);
	const int64_t wk[7] = { 15, 120, 1 };
	const char *wks[3] = { "ksoftirqd/1" };
	roundtrip(buf, sizeof(buf), TEV_SCHED_WAKEUP, wk, wks, &ev);
	ck_assert_str_eq(ev.next.comm, "ksoftirqd/1");
	ck_assert_int_eq(ev.next.pid, 15);
	ck_assert_int_eq(ev.target_cpu, 1);
}
END_TEST

START_TEST(trace_softirq_and_rcu_events_read_back)
{
	char buf[512];
	trace_ev ev;
	const int64_t vec[7] = { 9 };
	const char *none[3] = { NULL };
	trace_ev_type sirq[] = { TEV_SOFTIRQ_RAISE, TEV_SOFTIRQ_ENTRY, TEV_SOFTIRQ_EXIT };
	for (size_t i = 0; i < 3; i++) {
		roundtrip(buf, sizeof(buf), sirq[i], vec, none, &ev);
		ck_assert_int_eq(ev.vec, 9);
		ck_assert_ptr_nonnull(strstr(buf, "vec=9 [action=RCU]"));
	}
	const int64_t tick[7] = { 236 };
	roundtrip(buf, sizeof(buf), TEV_LOCAL_TIMER_ENTRY, tick, none, &ev);
	ck_assert_ptr_nonnull(strstr(buf, "local_timer_entry: vector=236\n"));
	const char *util[3] = { "Start scheduler-tick" };
	roundtrip(buf, sizeof(buf), TEV_RCU_UTILIZATION, vec, util, &ev);
	ck_assert_ptr_nonnull(strstr(buf, "rcu_utilization: Start scheduler-tick\n"));
	const int64_t gp[7] = { 4 };
	const char *gps[3] = { "rcu_preempt", "start" };
	roundtrip(buf, sizeof(buf), TEV_RCU_GRACE_PERIOD, gp, gps, &ev);
	ck_assert_ptr_nonnull(strstr(buf, "rcu_grace_period: rcu_preempt 4 start\n"));
	const int64_t be[7] = { 10, 1, 0, 0, 1 };
	const char *rn[3] = { "rcu_preempt" };
	roundtrip(buf, sizeof(buf), TEV_RCU_BATCH_END, be, rn, &ev);
	ck_assert_ptr_nonnull(strstr(buf, "rcu_batch_end: rcu_preempt CBs-invoked=10 idle=C..R\n"));
}
END_TEST

/* An event it does not write (a kmem free, a vector past RCU's) is refused
 * before a byte is written: a trace never holds a cut line. */
START_TEST(trace_unknown_event_writes_nothing)
{
	char buf[256];
	memset(buf, 0, sizeof(buf));
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	ck_assert_ptr_nonnull(f);
	const int64_t num[7] = { 10 };
	const char *str[3] = { "x" };
	ck_assert_int_eq(trace_text_event(f, 0, 0, "a", 1, ".....", TEV_KFREE, num, str), EINVAL);
	ck_assert_int_eq(trace_text_event(f, 0, 0, "a", 1, ".....", TEV_SOFTIRQ_ENTRY, num, str), EINVAL);
	ck_assert_int_eq(trace_text_event(f, 0, 0, "a", 1, ".....", TEV_OTHER, num, str), EINVAL);
	ck_assert_int_eq(ftell(f), 0);
	fclose(f);
	ck_assert_str_eq(buf, "");
}
END_TEST

/* A sched_switch line whose "prev_state=" stands after the arrow (inside the
 * next task's text, as a fuzzed or cut line has it) reads no state: the
 * field is the previous task's, and nothing past the line is read. The line
 * is a heap copy of its own length, so a read past its end is ASan's. */
START_TEST(trace_switch_state_after_arrow_reads_nothing)
{
	char *l = strdup("  a-1 [000] d..2. 100.000000: sched_switch: x ==> next_comm=b next_pid=2 prev_comm=prev_state=");
	ck_assert_ptr_nonnull(l);
	trace_ev ev;
	ck_assert(trace_parse_line(l, &ev));
	ck_assert_int_eq(ev.type, TEV_SCHED_SWITCH);
	ck_assert_str_eq(ev.prev_state, "");
	ck_assert_int_eq(ev.next.pid, 2);
	free(l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("textw");
	tcase_add_test(tc, trace_switch_and_wakeup_read_back);
	tcase_add_test(tc, trace_softirq_and_rcu_events_read_back);
	tcase_add_test(tc, trace_unknown_event_writes_nothing);
	tcase_add_test(tc, trace_switch_state_after_arrow_reads_nothing);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
