/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_trace.c - libFuzzer target for the trace readers: the input, as a
 * trace file, goes through trace/lines.c's line reader, both line
 * parsers and the reorder window, through `rcusim import` (cmd_import,
 * the executable's sources built in with main renamed), and through the
 * trace workload's loader (workload.kind = trace: its create, which reads
 * the recording into scripts, as an ftrace or an strace log by the first
 * byte). Each must end in success or a clean error with a message - never
 * a crash, leak, hang or undefined behaviour (built with ASan and UBSan).
 * The target works in an empty folder of its own; import's limit of
 * points is lowered (RCUSIM_IMPORT_POINTS_MAX) so that every input ends
 * fast, and a span past it is the refusal it would be at full size.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "registry.h"
#include "trace.h"
#include "workloads/workload.h"

extern const workload_ops trace_workload;  /* models/workloads/trace.c */
int rcusim_main(int argc, char **argv);    /* cli/main.c, built with -Dmain=rcusim_main */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char trace_path[4096]; /* the input's file, absolute (workload.trace_file) */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	char dir[] = "/tmp/rcusim-fuzz-trace.XXXXXX";
	if (!mkdtemp(dir) || chdir(dir) || !freopen("/dev/null", "w", stdout))
		abort();
	setenv("RCUSIM_BUSY_TIMEOUT_MS", "100", 1);
	if (!getcwd(trace_path, sizeof(trace_path) - 6))
		abort();
	strcat(trace_path, "/t.txt");
	return 0;
}

/* The reader and parsers by themselves, as import and the replay use them. */
static void read_lines(const char *path)
{
	trace_lines tf;
	if (trace_lines_open(&tf, path))
		abort(); /* the file was just written */
	trace_reorder ro = { 0 };
	const char *l, *text;
	char q[400];
	int got;
	uint64_t ln;
	int64_t ts, last = INT64_MIN;
	while ((got = trace_lines_next(&tf, &l)) > 0) {
		trace_ev ev;
		trace_strace_ev sev;
		trace_quote(l, 80, q, sizeof(q));
		assert(strlen(q) < sizeof(q));
		for (const char *c = q; *c; c++)
			assert(*c >= 0x20 && *c < 0x7f);
		bool f = trace_parse_line(l, &ev), s = trace_strace_parse(l, &sev);
		if (f) {
			assert(ev.ts >= 0 && ev.ts / 1000000000 <= TRACE_SEC_MAX && ev.cpu >= 0 && ev.cpu < 1000000);
			assert(ev.target_cpu >= -1 && ev.target_cpu <= 1000000);
			uint64_t v;
			(void)trace_field(ev.rest, "target_cpu=", false, &v);
		}
		if (s)
			assert(sev.ts >= 0 && sev.pid > 0 && sev.pid <= INT32_MAX);
		if (!f && !s)
			continue;
		if (trace_reorder_put(&ro, f ? ev.ts : sev.ts, tf.lineno, l) < 0)
			abort();
		while (trace_reorder_take(&ro, false, &text, &ln, &ts)) {
			assert(ts >= last);
			last = ts;
		}
	}
	assert(got == 0 || (got == -2 && tf.why));
	while (trace_reorder_take(&ro, true, &text, &ln, &ts)) {
		assert(ts >= last);
		last = ts;
	}
	assert(tf.lost <= TRACE_LOST_MAX);
	trace_reorder_free(&ro);
	trace_lines_close(&tf);
}

/* The trace workload's loader on @path, as format @fmt. */
static void replay(const char *path, const char *fmt, bool fast)
{
	sim_params *p;
	char err[4096], set[256];
	if (sim_params_create(&p, rcusim_params, P_COUNT, err, sizeof(err)) ||
	    sim_params_set(p, "workload.kind=trace", err, sizeof(err)))
		abort();
	snprintf(set, sizeof(set), "workload.trace_file=%s", path);
	if (sim_params_set(p, set, err, sizeof(err)))
		abort();
	snprintf(set, sizeof(set), "workload.trace_format=%s", fmt);
	if (sim_params_set(p, set, err, sizeof(err)))
		abort();
	if (fast && sim_params_set(p, "workload.trace_time_scale=1000", err, sizeof(err)))
		abort();
	kworkload w = { .ops = &trace_workload };
	err[0] = 0;
	int rc = trace_workload.create(&w, p, err, sizeof(err));
	assert(rc == 0 || ((rc == SIM_EINPUT || rc == SIM_ENOMEM || rc == SIM_EIO) && err[0]));
	trace_workload.destroy(&w);
	sim_params_destroy(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fopen("t.txt", "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	read_lines("t.txt");
	char *argv[] = { "rcusim", "import", "t.txt", "--db", "t.db", NULL };
	int rc = rcusim_main(5, argv);
	if (rc != 0 && rc != 2)
		abort(); /* no input is a missing resource or a failed check */
	unlink("t.db");
	static const char *const fmt[] = { "detect", "ftrace", "strace" };
	replay(trace_path, fmt[size ? data[0] % 3 : 0], size && data[0] & 4);
	fflush(NULL);
	return 0;
}
