/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * textw.c - an event written as a line of the tracefs trace file (trace.h),
 * the form trace/text.c reads: "comm-pid [cpu] flags secs.usecs: event:
 * fields", the fields as include/trace/events/ of 6.12 prints them
 * (trace/events.def), from the same numbers and strings trace/datw.c
 * writes trace.dat with.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "trace.h"

/* kernel/softirq.c 6.12:64-67, softirq_to_name[], the names softirq_entry's
 * show_softirq_name() prints (include/trace/events/irq.h 6.12:13-23, :39). */
static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

/* The fields of an event of @type into @b (@n bytes), as snprintf(): the
 * length they need, or -1 when the writer does not know @type (or, for a
 * softirq, its vector). One list of the events written. */
static int fields(char *b, size_t n, trace_ev_type type, const int64_t *num, const char *const *str)
{
	switch (type) {
	case TEV_SOFTIRQ_RAISE:
	case TEV_SOFTIRQ_ENTRY:
	case TEV_SOFTIRQ_EXIT:
		if (num[0] < 0 || num[0] >= (int64_t)(sizeof(softirq_names) / sizeof(softirq_names[0])))
			return -1;
		return snprintf(b, n, "vec=%" PRId64 " [action=%s]\n", num[0], softirq_names[num[0]]);
	case TEV_SCHED_SWITCH:
		/* prev_state: TASK_INTERRUPTIBLE (1) prints S, 0 (running) R */
		return snprintf(b, n,
				"prev_comm=%s prev_pid=%" PRId64 " prev_prio=%" PRId64 " prev_state=%c ==> "
				"next_comm=%s next_pid=%" PRId64 " next_prio=%" PRId64 "\n",
				str[0], num[0], num[1], num[2] == 1 ? 'S' : 'R', str[1], num[3], num[4]);
	case TEV_SCHED_WAKEUP:
		return snprintf(b, n, "comm=%s pid=%" PRId64 " prio=%" PRId64 " target_cpu=%03" PRId64 "\n", str[0],
				num[0], num[1], num[2]);
	case TEV_RCU_UTILIZATION:
		return snprintf(b, n, "%s\n", str[0]);
	case TEV_LOCAL_TIMER_ENTRY:
	case TEV_LOCAL_TIMER_EXIT:
	case TEV_RESCHEDULE_ENTRY:
	case TEV_RESCHEDULE_EXIT:
	case TEV_CALL_FUNCTION_SINGLE_ENTRY:
	case TEV_CALL_FUNCTION_SINGLE_EXIT:
		return snprintf(b, n, "vector=%" PRId64 "\n", num[0]);
	case TEV_RCU_GRACE_PERIOD:
		return snprintf(b, n, "%s %" PRId64 " %s\n", str[0], num[0], str[1]);
	case TEV_RCU_BATCH_START:
		return snprintf(b, n, "%s CBs=%" PRId64 " bl=%" PRId64 "\n", str[0], num[0], num[1]);
	case TEV_RCU_BATCH_END:
		return snprintf(b, n, "%s CBs-invoked=%" PRId64 " idle=%c%c%c%c\n", str[0], num[0],
				num[1] ? 'C' : '.', num[2] ? 'S' : '.', num[3] ? 'I' : '.', num[4] ? 'R' : '.');
	default:
		return -1;
	}
}

int trace_text_event(FILE *o, int cpu, int64_t ts, const char *comm, int pid, const char *flags,
		     trace_ev_type type, const int64_t *num, const char *const *str)
{
	char b[512];
	int len = fields(b, sizeof(b), type, num, str);
	if (len < 0 || (size_t)len >= sizeof(b))
		return EINVAL; /* before a byte is written: no line is left cut */
	int64_t sec = ts / 1000000000, usec = (ts % 1000000000) / 1000;
	fprintf(o, "%16s-%-7d [%03d] %s %5" PRId64 ".%06" PRId64 ": %s: %s", comm, pid, cpu, flags, sec, usec,
		trace_ev_name(type), b);
	return 0;
}
