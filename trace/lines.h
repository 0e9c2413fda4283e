/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lines.h - reading recorded traces as text, line by line: the tracefs
 * trace file or trace-cmd report's output ("comm-pid [cpu] flags ts:
 * event: fields", the flags absent in trace-cmd report's default), and
 * strace -f -ttt logs ("pid seconds call(args) = result"), either
 * gzip-compressed when the name ends in .gz (through gzip -dc). Shared by
 * `rcusim import` and the trace workload, so that both read a trace alike.
 */
#ifndef RCUSIM_TRACE_LINES_H
#define RCUSIM_TRACE_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Seconds a trace's time may reach: 2^32 - 1 (a Unix time of 2106, 136
 * years of uptime). Any two times in ns then add up below INT64_MAX, so
 * that no difference or sum of two overflows. */
#define TRACE_SEC_MAX 4294967295
/* Events a trace may say it lost, in all: 10^18 (at 10^9 events a
 * second, 31 years of them); a count past it is not a count (exit 2). */
#define TRACE_LOST_MAX 1000000000000000000u

typedef struct trace_lines {
	const char *path;
	void *in;               /* its FILE */
	pid_t gzip;             /* gzip -dc's pid, or 0 */
	char *buf;              /* the current line, without its newline */
	size_t cap;
	uint64_t lineno;        /* of the current line */
	uint64_t lost;          /* events the trace says it lost (buffer overruns) */
	bool truncated;         /* the file ends inside a line, or gzip failed */
	bool gzip_failed;       /* gzip -dc did not end well (a damaged or cut file) */
	bool spawn_failed;      /* open failed to start gzip (a missing program, not file) */
	const char *why;        /* what is wrong with line lineno, when next returns -2 */
} trace_lines;

/* Open @path. 0, or an errno value: the file cannot be read (EISDIR for a
 * directory), or, with spawn_failed set, gzip -dc could not be started. */
int trace_lines_open(trace_lines *t, const char *path);
/* The next line that is not blank, a comment or a trace-cmd header
 * ("version = 6", "cpus=2", "CPU 0 is empty", "CPU:1 [LOST 42 EVENTS]",
 * whose losses, like a tracefs header's entries-in-buffer/written, are
 * counted in lost; a task's line such as "CPU 0/KVM-1234 [001] ..." is
 * no header), leading white space skipped: 1 and *@line, or 0 at the end
 * (a cut last line sets truncated and is not returned), -1 (out of
 * memory), or -2 (a loss count past TRACE_LOST_MAX: why says so). */
int trace_lines_next(trace_lines *t, const char **line);
/* Close it: waits for gzip, whose failure sets truncated. */
void trace_lines_close(trace_lines *t);

/* @p at a run of digits: their value (saturated at UINT64_MAX), *@end
 * after them. */
uint64_t trace_digits(const char *p, const char **end);
/* "12345.678901" followed by @sep -> ns, *@end after @sep; -1 if it is not
 * a time, -2 if its seconds are past TRACE_SEC_MAX. */
int64_t trace_parse_ts(const char *s, char sep, const char **end);

/* Field "name=value" of @rest as a number (base 10, or 16 with @hex). */
bool trace_field(const char *rest, const char *name, bool hex, uint64_t *v);

/* A map from a nonzero key (an rhp, a gp_seq + 1, a pid and fd) to a time,
 * open addressing, for pairing a trace's events (a call with its
 * invocation, an open with its close). Zero-initialised: empty. */
typedef struct trace_tmap {
	uint64_t *key;          /* 0: a free slot */
	int64_t *t;
	size_t cap, n;
} trace_tmap;

/* Set @k (nonzero) to @t. 0 or -1 (out of memory). */
int trace_tmap_put(trace_tmap *m, uint64_t k, int64_t t);
/* The time of @k, removed, or -1 if absent. */
int64_t trace_tmap_take(trace_tmap *m, uint64_t k);
/* The time of @k into *@t, left in: true, or false if absent. */
bool trace_tmap_get(const trace_tmap *m, uint64_t k, int64_t *t);
void trace_tmap_free(trace_tmap *m);

/* One strace -f -ttt line: "PID SECONDS call(args) = result" (a CALL),
 * "... call(args <unfinished ...>" (UNFINISHED: the result comes with a
 * later RESUMED line, "<... call resumed>rest = result"), "+++ exited with
 * N +++" or "+++ killed by SIG +++" (EXITED), "--- SIG... ---" (SIGNAL). */
typedef enum {
	TRACE_STRACE_CALL,
	TRACE_STRACE_UNFINISHED,
	TRACE_STRACE_RESUMED,
	TRACE_STRACE_EXITED,
	TRACE_STRACE_SIGNAL,
} trace_strace_kind;

typedef struct trace_strace_ev {
	int64_t pid;
	int64_t ts;             /* ns */
	trace_strace_kind kind;
	char name[24];          /* the call's name (CALL, UNFINISHED, RESUMED) */
	const char *args;       /* after "call(" (CALL, UNFINISHED) or "resumed>" (RESUMED) */
	bool has_ret;           /* a numeric result ("= ?" has none) */
	long long ret;
	const char *why;        /* when parse fails: NULL, or why a line of the form is refused */
} trace_strace_ev;

/* Parse @l into *@ev: true, or false if it is not an strace -f -ttt line
 * (ev->why says why, if it has the form of one). Any pid from 1 to
 * INT32_MAX is one. */
bool trace_strace_parse(const char *l, trace_strace_ev *ev);

/* @s, at most @max bytes of it, as a message may quote it: a byte outside
 * printable ASCII as \xNN, "..." after a cut. Into @buf (@len > 4 bytes),
 * which it returns. */
const char *trace_quote(const char *s, size_t max, char *buf, size_t len);

/* Lines put back into time order. A trace's lines come in time order but
 * for the skew between CPUs' trace clocks (trace-cmd and tracefs merge the
 * CPUs' buffers by their clocks' times) and strace's between the tasks it
 * follows: a line earlier than the latest one by less than
 * TRACE_REORDER_WINDOW_NS is sorted into place; one earlier by more is
 * refused, for a trace that goes back further is none of one clock's (two
 * traces joined, a clock that jumped), and no duration taken from it would
 * be one. 10 ms: a thousand times the skew of an unsynchronised "local"
 * clock between a machine's CPUs (microseconds), a few ticks' worth of
 * lines held at once, and far below the seconds a join or jump moves. */
#define TRACE_REORDER_WINDOW_NS 10000000

typedef struct trace_reorder_ent {
	int64_t ts;             /* ns */
	uint64_t lineno;
	char *text;             /* a copy of the line */
} trace_reorder_ent;

typedef struct trace_reorder {
	trace_reorder_ent *heap;  /* by (ts, lineno), earliest first */
	size_t n, cap;
	int64_t latest;         /* ns: the latest time put in */
	uint64_t latest_line;   /* its line */
	bool any;               /* a line was put in */
	char *out;              /* the text taken last, freed by the next take */
} trace_reorder;

/* Put line @text (number @lineno, time @ts) in: 0, -1 (out of memory), or
 * 1 when it is earlier than the latest line by more than the window
 * (refused: r->latest and r->latest_line say which line it follows). */
int trace_reorder_put(trace_reorder *r, int64_t ts, uint64_t lineno, const char *text);
/* The earliest line held, if no line still to come can precede it (it is
 * earlier than the latest by more than the window), or any with @all (the
 * input ended): true and its text, line and time (the text valid until the
 * next call), else false. */
bool trace_reorder_take(trace_reorder *r, bool all, const char **text, uint64_t *lineno, int64_t *ts);
void trace_reorder_free(trace_reorder *r);

#endif
