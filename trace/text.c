/* SPDX-License-Identifier: GPL-3.0-or-later */
/* text.c - an event line of any text form, and a trace as lines (trace.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

static const char *const ev_names[TEV_COUNT] = {
	[TEV_OTHER] = "",
#define TEV(id, sys, name, fmt) [TEV_##id] = name,
#include "events.def"
#undef TEV
};

/* Copy [s, e) into @dst (TRACE_COMM_LEN), cut; empty when e is not past s. */
static void copy_comm(char *dst, const char *s, const char *e)
{
	size_t n = e > s ? (size_t)(e - s) : 0;
	if (n >= TRACE_COMM_LEN)
		n = TRACE_COMM_LEN - 1;
	memcpy(dst, s, n);
	dst[n] = 0;
}

/* "comm-pid" in [l, e) (trailing blanks trimmed): into ev. false if the
 * pid is past INT32_MAX (ev->why). */
static bool task_of(trace_ev *ev, const char *l, const char *e)
{
	while (e > l && e[-1] == ' ')
		e--;
	const char *d = e;
	while (d > l && d[-1] >= '0' && d[-1] <= '9')
		d--;
	if (d < e && d > l && d[-1] == '-') {
		const char *q;
		uint64_t pid = trace_digits(d, &q);
		if (pid > INT32_MAX) {
			ev->why = "its pid is past 2147483647";
			return false;
		}
		ev->pid = (int)pid;
		copy_comm(ev->comm, l, d - 1);
	} else {
		ev->pid = -1;
		copy_comm(ev->comm, l, e);
	}
	return true;
}

/* "comm=X pid=" style: the text of @key ("prev_comm=") up to @next (" prev_pid="). */
static bool kv_comm(const char *rest, const char *key, const char *next, char *dst)
{
	const char *p = strstr(rest, key);
	if (!p)
		return false;
	p += strlen(key);
	const char *e = strstr(p, next);
	if (!e)
		return false;
	copy_comm(dst, p, e);
	return true;
}

/* Number after @key in @rest: true and *@v. */
static bool kv_int(const char *rest, const char *key, long long *v)
{
	const char *p = strstr(rest, key);
	if (!p)
		return false;
	p += strlen(key);
	char *e;
	*v = strtoll(p, &e, 10);
	return e != p;
}

/* The sched plugin's "comm:pid [prio]" in [s, e): into *@t, *@after past
 * "]". */
static bool plugin_task(const char *s, const char *e, trace_task *t, const char **after)
{
	/* The last " [" before e: the prio; before it "comm:pid". */
	const char *b = NULL;
	for (const char *q = s; q + 1 < e; q++)
		if (q[0] == ' ' && q[1] == '[')
			b = q;
	if (!b)
		return false;
	const char *d = b;
	while (d > s && d[-1] >= '0' && d[-1] <= '9')
		d--;
	if (d == b || d == s || d[-1] != ':')
		return false;
	const char *q;
	t->pid = (int)trace_digits(d, &q);
	copy_comm(t->comm, s, d - 1);
	char *pe;
	t->prio = (int)strtol(b + 2, &pe, 10);
	if (*pe != ']')
		return false;
	*after = pe + 1;
	return true;
}

/* sched_wakeup's fields (sched_wakeup_new's too: the same format), the
 * kernel's "comm=X pid=N prio=P target_cpu=C" or the plugin's "comm:pid
 * [prio] CPU:nnn": the woken task into ev->next. */
static void wakeup_fields(trace_ev *ev)
{
	const char *r = ev->rest;
	long long v;
	if (strstr(r, "comm=") == r || strstr(r, " comm=") || !strncmp(r, "comm=", 5)) {
		kv_comm(r, "comm=", " pid=", ev->next.comm);
		ev->next.pid = kv_int(r, " pid=", &v) ? (int)v : -1;
		ev->next.prio = kv_int(r, "prio=", &v) ? (int)v : 0;
		ev->target_cpu = !kv_int(r, "target_cpu=", &v) ? -1 : v < 0 || v > 999999 ? 1000000 : (int)v;
		return;
	}
	/* "comm:pid [prio] CPU:nnn" (older: " success=1" before CPU) */
	const char *c = strstr(r, " CPU:");
	const char *end = r + strlen(r), *after;
	if (!plugin_task(r, c ? c : end, &ev->next, &after))
		return;
	ev->target_cpu = !c || !kv_int(c, "CPU:", &v) ? -1 : v < 0 || v > 999999 ? 1000000 : (int)v;
}

/* The fields of the events measured, in the kernel's form or a plugin's. */
static void fields(trace_ev *ev)
{
	const char *r = ev->rest;
	long long v;
	switch (ev->type) {
	case TEV_SOFTIRQ_ENTRY:
	case TEV_SOFTIRQ_EXIT:
	case TEV_SOFTIRQ_RAISE:
		ev->vec = kv_int(r, "vec=", &v) ? (int)v : -1;
		break;
	case TEV_SCHED_SWITCH: {
		const char *arrow = strstr(r, " ==> ");
		if (!arrow)
			break;
		if (strstr(r, "prev_comm=")) {
			kv_comm(r, "prev_comm=", " prev_pid=", ev->prev.comm);
			kv_comm(arrow, "next_comm=", " next_pid=", ev->next.comm);
			ev->prev.pid = kv_int(r, "prev_pid=", &v) ? (int)v : -1;
			ev->prev.prio = kv_int(r, "prev_prio=", &v) ? (int)v : 0;
			ev->next.pid = kv_int(arrow, "next_pid=", &v) ? (int)v : -1;
			ev->next.prio = kv_int(arrow, "next_prio=", &v) ? (int)v : 0;
			const char *s = strstr(r, "prev_state=");
			if (s && s < arrow) /* the previous task's field, not a comm's text after the arrow */
				copy_comm(ev->prev_state, s + 11, arrow);
			break;
		}
		const char *after;
		if (!plugin_task(r, arrow, &ev->prev, &after))
			break;
		while (*after == ' ')
			after++;
		copy_comm(ev->prev_state, after, arrow);
		const char *end = arrow + 5 + strlen(arrow + 5);
		if (!plugin_task(arrow + 5, end, &ev->next, &after))
			ev->next.pid = -1;
		break;
	}
	case TEV_SCHED_WAKEUP:
		wakeup_fields(ev);
		break;
	case TEV_KMEM_CACHE_FREE:
	case TEV_KFREE: {
		const char *p = strstr(r, "call_site=");
		ev->from_rcu_do_batch = p && !strncmp(p + 10, "rcu_do_batch", 12) &&
					(p[22] == '+' || p[22] == ' ' || p[22] == 0);
		break;
	}
	case TEV_SYS_ENTER_MEMBARRIER: {
		/* "cmd: 1, ..." (tracefs, decimal below 10) or "cmd: 0x00000001, ..." */
		const char *p = strstr(r, "cmd: ");
		ev->sys_arg = p ? strtoll(p + 5, NULL, 0) : -1;
		break;
	}
	case TEV_SYS_EXIT_MEMBARRIER: {
		/* "0x0" (after "-> " in tracefs' form); a negative errno
		 * prints as 0xfffffffffffffff2 */
		const char *p = strstr(r, "0x");
		ev->sys_arg = p ? (long long)strtoull(p, NULL, 16) : -1;
		break;
	}
	default:
		if (trace_ev_is(ev, "sched_wakeup_new"))
			wakeup_fields(ev);
		break;
	}
}

/* tracefs' own form of a syscall event (kernel/trace/trace_syscalls.c
 * 6.18:149 and :203): "sys_NAME(args)" entering, "sys_NAME -> 0xRET"
 * leaving, with no "name:". The type, or TEV_OTHER. */
static trace_ev_type syscall_form(const char *after, const char **rest)
{
	static const char name[] = "sys_membarrier";
	size_t n = sizeof(name) - 1;
	if (strncmp(after, name, n))
		return TEV_OTHER;
	if (after[n] == '(') {
		*rest = after + n + 1;
		return TEV_SYS_ENTER_MEMBARRIER;
	}
	if (!strncmp(after + n, " -> ", 4)) {
		*rest = after + n + 4;
		return TEV_SYS_EXIT_MEMBARRIER;
	}
	return TEV_OTHER;
}

/* Leading "name: " of report's instance buffers: its length, or 0. */
static size_t inst_prefix(const char *l)
{
	size_t i = 0;
	while (l[i] && l[i] != ' ' && l[i] != ':' && l[i] != '[')
		i++;
	if (!i || l[i] != ':' || l[i + 1] != ' ')
		return 0;
	return i + 1;
}

bool trace_parse_line(const char *l, trace_ev *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->target_cpu = -1;
	ev->prev.pid = ev->next.pid = -1;
	ev->vec = -1;
	ev->sys_arg = -1;
	while (*l == ' ' || *l == '\t')
		l++;
	size_t ip = inst_prefix(l);
	if (ip) {
		copy_comm(ev->inst, l, l + (ip - 1 < sizeof(ev->inst) ? ip - 1 : sizeof(ev->inst) - 1));
		l += ip;
		while (*l == ' ')
			l++;
	}
	const char *after = NULL;
	int64_t ts = -1;
	/* "comm-pid [cpu] (flags) ts:" (tracefs; report, report -N): the
	 * first "[digits] " followed by a time; a comm may itself hold
	 * brackets and blanks ("[pango] FcInit-21735"). */
	for (const char *b = strstr(l, "] "); b && ts == -1; b = strstr(b + 1, "] ")) {
		const char *o = b;
		while (o > l && o[-1] >= '0' && o[-1] <= '9')
			o--;
		if (o == b || o == l || o[-1] != '[' || b - o > 6) /* no machine has a million CPUs */
			continue;
		const char *p = b + 2;
		while (*p == ' ')
			p++;
		ts = trace_parse_ts(p, ':', &after);
		if (ts == -1) {
			while (*p && *p != ' ')
				p++; /* the flags */
			while (*p == ' ')
				p++;
			ts = trace_parse_ts(p, ':', &after);
		}
		if (ts != -1) {
			ev->cpu = atoi(o);
			if (!task_of(ev, l, o - 1))
				return false;
		}
	}
	if (ts == -1) {
		/* "comm-pid   NFLAGS ts:" (report -l): the time is the first
		 * word that is one, the word before it the CPU and flags. */
		const char *w = l, *prev = NULL, *prev_end = NULL;
		while (*w) {
			const char *we = w;
			while (*we && *we != ' ')
				we++;
			if (prev && (ts = trace_parse_ts(w, ':', &after)) != -1)
				break;
			prev = w;
			prev_end = we;
			w = we;
			while (*w == ' ')
				w++;
		}
		if (ts == -1 || !prev || prev == l)
			return false;
		const char *q;
		uint64_t cpu = trace_digits(prev, &q);
		if (q == prev || q - prev > 6 || prev_end - q < 4 || prev_end - q > 6)
			return false;
		if (ts >= 0) {
			ev->cpu = (int)cpu;
			if (!task_of(ev, l, prev))
				return false;
			ev->comm_cut = true;
		}
	}
	if (ts < 0) {
		if (ts == -2)
			ev->why = "its time is past 4294967295 s (TRACE_SEC_MAX)";
		return false;
	}
	while (*after == ' ')
		after++;
	const char *srest;
	trace_ev_type st = syscall_form(after, &srest);
	if (st != TEV_OTHER) {
		ev->ts = ts;
		ev->event = after;
		ev->event_len = strlen("sys_membarrier");
		ev->rest = srest;
		ev->type = st;
		fields(ev);
		return true;
	}
	const char *colon = strchr(after, ':');
	if (!colon || colon == after)
		return false;
	ev->ts = ts;
	ev->event = after;
	ev->event_len = (size_t)(colon - after);
	ev->rest = colon + 1;
	while (*ev->rest == ' ')
		ev->rest++;
	ev->type = TEV_OTHER;
	for (int i = 1; i < TEV_COUNT; i++)
		if (trace_ev_is(ev, ev_names[i])) {
			ev->type = (trace_ev_type)i;
			break;
		}
	fields(ev);
	return true;
}

const char *trace_ev_name(trace_ev_type type)
{
	return type >= TEV_OTHER && type < TEV_COUNT ? ev_names[type] : "";
}

bool trace_ev_is(const trace_ev *ev, const char *name)
{
	size_t n = strlen(name);
	return ev->event_len == n && !memcmp(ev->event, name, n);
}

int trace_src_open(trace_src *src, const char *path)
{
	memset(src, 0, sizeof(*src));
	src->path = path;
	if (trace_dat_is(path)) {
		int rc = trace_dat_open(&src->dat, path, src->err, sizeof(src->err));
		return rc;
	}
	return trace_lines_open(&src->text, path);
}

int trace_src_next(trace_src *src, const char **line)
{
	if (src->dat) {
		int rc = trace_dat_next(src->dat, line, &src->lost);
		if (rc > 0)
			src->lineno++;
		else if (rc == -2)
			src->truncated = true, rc = 0;
		return rc;
	}
	int rc = trace_lines_next(&src->text, line);
	src->lineno = src->text.lineno;
	src->lost = src->text.lost;
	src->truncated = src->text.truncated;
	src->why = src->text.why;
	return rc;
}

void trace_src_close(trace_src *src)
{
	if (src->dat) {
		trace_dat_close(src->dat);
		src->dat = NULL;
		return;
	}
	trace_lines_close(&src->text);
	src->truncated = src->text.truncated;
	src->gzip_failed = src->text.gzip_failed;
}
