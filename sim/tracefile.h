/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tracefile.h - reading recorded traces as text, line by line: the tracefs
 * trace file or trace-cmd report's output ("comm-pid [cpu] flags ts:
 * event: fields", the flags absent in trace-cmd report's default), and
 * strace -f -ttt logs ("pid seconds call(args) = result"), either
 * gzip-compressed when the name ends in .gz (through gzip -dc). Shared by
 * `rcusim import` and the trace workload, so that both read a trace alike.
 */
#ifndef RCUSIM_SIM_TRACEFILE_H
#define RCUSIM_SIM_TRACEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct sim_tracefile {
	const char *path;
	void *in;               /* its FILE */
	pid_t gzip;             /* gzip -dc's pid, or 0 */
	char *buf;              /* the current line, without its newline */
	size_t cap;
	uint64_t lineno;        /* of the current line */
	uint64_t lost;          /* events the trace says it lost (buffer overruns) */
	bool truncated;         /* the file ends inside a line, or gzip failed */
	bool gzip_failed;       /* gzip -dc did not end well (a damaged or cut file) */
} sim_tracefile;

/* Open @path. 0, or an errno value (the file cannot be read). */
int sim_tracefile_open(sim_tracefile *t, const char *path);
/* The next line that is not blank, a comment or a trace-cmd header
 * ("version =", "cpus=", "CPU 0 is empty", "CPU:1 [LOST 42 EVENTS]",
 * whose losses, like a tracefs header's entries-in-buffer/written, are
 * counted in lost), leading white space skipped: 1 and *@line, or 0 at
 * the end (a cut last line sets truncated and is not returned), or -1
 * (out of memory). */
int sim_tracefile_next(sim_tracefile *t, const char **line);
/* Close it: waits for gzip, whose failure sets truncated. */
void sim_tracefile_close(sim_tracefile *t);

/* One tracefs event line. comm and event are not NUL-terminated. */
typedef struct sim_ftrace_ev {
	const char *comm;       /* the task's name, as the line gives it */
	size_t comm_len;
	int pid;
	int cpu;
	int64_t ts;             /* ns */
	const char *event;      /* "sched_switch" */
	size_t event_len;
	const char *rest;       /* its fields, after "event:" */
} sim_ftrace_ev;

/* Parse @l into *@ev: true, or false if it is not a tracefs event line. */
bool sim_ftrace_parse(const char *l, sim_ftrace_ev *ev);
/* The event is @name. */
bool sim_ftrace_is(const sim_ftrace_ev *ev, const char *name);
/* Field "name=value" of @rest as a number (base 10, or 16 with @hex). */
bool sim_ftrace_field(const char *rest, const char *name, bool hex, uint64_t *v);

/* A map from a nonzero key (an rhp, a gp_seq + 1, a pid and fd) to a time,
 * open addressing, for pairing a trace's events (a call with its
 * invocation, an open with its close). Zero-initialised: empty. */
typedef struct sim_tmap {
	uint64_t *key;          /* 0: a free slot */
	int64_t *t;
	size_t cap, n;
} sim_tmap;

/* Set @k (nonzero) to @t. 0 or -1 (out of memory). */
int sim_tmap_put(sim_tmap *m, uint64_t k, int64_t t);
/* The time of @k, removed, or -1 if absent. */
int64_t sim_tmap_take(sim_tmap *m, uint64_t k);
void sim_tmap_free(sim_tmap *m);

/* One strace -f -ttt line: "PID SECONDS call(args) = result" (a CALL),
 * "... call(args <unfinished ...>" (UNFINISHED: the result comes with a
 * later RESUMED line, "<... call resumed>rest = result"), "+++ exited with
 * N +++" or "+++ killed by SIG +++" (EXITED), "--- SIG... ---" (SIGNAL). */
typedef enum {
	SIM_STRACE_CALL,
	SIM_STRACE_UNFINISHED,
	SIM_STRACE_RESUMED,
	SIM_STRACE_EXITED,
	SIM_STRACE_SIGNAL,
} sim_strace_kind;

typedef struct sim_strace_ev {
	int64_t pid;
	int64_t ts;             /* ns */
	sim_strace_kind kind;
	char name[24];          /* the call's name (CALL, UNFINISHED, RESUMED) */
	const char *args;       /* after "call(" (CALL, UNFINISHED) or "resumed>" (RESUMED) */
	bool has_ret;           /* a numeric result ("= ?" has none) */
	long long ret;
} sim_strace_ev;

/* Parse @l into *@ev: true, or false if it is not an strace -f -ttt line. */
bool sim_strace_parse(const char *l, sim_strace_ev *ev);

#endif
