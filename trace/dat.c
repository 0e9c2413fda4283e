/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * dat.c - trace.dat (trace-cmd.dat(5): trace-cmd record's and KernelShark's
 * file) read through libtracecmd, as lines of the tracefs form: each event
 * printed by libtraceevent with the kernel's own print formats (no plugin:
 * what report -N prints), its time rounded to the microsecond as report
 * and tracefs print it, an instance's buffer prefixed "name: " as report does.
 * The buffers' CPUs are merged in time order (ties: the earlier buffer,
 * the lower CPU), as report merges them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd/trace-cmd.h>

#include "trace.h"

/* One buffer's CPU. */
typedef struct dcpu {
	struct tracecmd_input *h; /* its buffer's handle */
	int buf;                  /* its buffer's index: 0 the top one */
	int cpu;
	struct tep_record *rec;   /* its next record, or NULL at its end */
} dcpu;

struct trace_dat {
	struct tracecmd_input *top;
	struct tracecmd_input **inst; /* the instances' handles */
	char **inst_name;
	int ninst;
	dcpu *c;
	int nc;
	struct trace_seq seq;
	char *line;
	size_t cap;
};

bool trace_dat_is(const char *path)
{
	static const char magic[] = "\027\010\104tracing";
	char b[sizeof(magic) - 1];
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	bool is = fread(b, 1, sizeof(b), f) == sizeof(b) && !memcmp(b, magic, sizeof(b));
	fclose(f);
	return is;
}

void trace_dat_close(trace_dat *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->nc; i++)
		if (d->c[i].rec)
			tracecmd_free_record(d->c[i].rec);
	free(d->c);
	for (int i = 0; i < d->ninst; i++) {
		if (d->inst[i])
			tracecmd_close(d->inst[i]);
		free(d->inst_name[i]);
	}
	free(d->inst);
	free(d->inst_name);
	if (d->top)
		tracecmd_close(d->top);
	trace_seq_destroy(&d->seq);
	free(d->line);
	free(d);
}

/* The CPUs of buffer @h (index @buf) into d->c. */
static int add_cpus(trace_dat *d, struct tracecmd_input *h, int buf)
{
	int n = tep_get_cpus(tracecmd_get_tep(h));
	if (n <= 0)
		return 0;
	dcpu *c = realloc(d->c, (size_t)(d->nc + n) * sizeof(*c));
	if (!c)
		return -1;
	d->c = c;
	for (int i = 0; i < n; i++)
		d->c[d->nc++] = (dcpu){ h, buf, i, tracecmd_read_data(h, i) };
	return 0;
}

int trace_dat_open(trace_dat **out, const char *path, char *err, size_t errlen)
{
	*out = NULL;
	trace_dat *d = calloc(1, sizeof(*d));
	if (!d)
		return ENOMEM;
	trace_seq_init(&d->seq);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* No plugin: the kernel's own print formats, report -N's. */
	d->top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!d->top) {
		snprintf(err, errlen, "libtracecmd cannot read it as trace.dat (a damaged or cut file, or a "
				      "version it does not know)");
		trace_dat_close(d);
		return EINVAL;
	}
	int n = tracecmd_buffer_instances(d->top);
	if (n > 0) {
		d->inst = calloc((size_t)n, sizeof(*d->inst));
		d->inst_name = calloc((size_t)n, sizeof(*d->inst_name));
		if (!d->inst || !d->inst_name)
			goto nomem;
		d->ninst = n;
	}
	if (add_cpus(d, d->top, 0))
		goto nomem;
	for (int i = 0; i < n; i++) {
		const char *name = tracecmd_buffer_instance_name(d->top, i);
		if (!(d->inst_name[i] = strdup(name ? name : "")))
			goto nomem;
		d->inst[i] = tracecmd_buffer_instance_handle(d->top, i);
		if (!d->inst[i]) {
			snprintf(err, errlen, "libtracecmd cannot read its buffer \"%s\"", d->inst_name[i]);
			trace_dat_close(d);
			return EINVAL;
		}
		if (add_cpus(d, d->inst[i], i + 1))
			goto nomem;
	}
	*out = d;
	return 0;
nomem:
	trace_dat_close(d);
	return ENOMEM;
}

int trace_dat_next(trace_dat *d, const char **line, uint64_t *lost)
{
	dcpu *m = NULL;
	for (int i = 0; i < d->nc; i++) {
		dcpu *c = &d->c[i];
		if (c->rec && (!m || c->rec->ts < m->rec->ts))
			m = c;
	}
	if (!m)
		return 0;
	struct tep_record *r = m->rec;
	if (r->missed_events > 0)
		*lost += (uint64_t)r->missed_events;
	struct tep_handle *tep = tracecmd_get_tep(m->h);
	trace_seq_reset(&d->seq);
	if (m->buf)
		trace_seq_printf(&d->seq, "%s: ", d->inst_name[m->buf - 1]);
	tep_print_event(tep, &d->seq, r, "%s-%d [%03d] ", TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU);
	/* The nearest microsecond, as tracefs (ns2usecs()) and report print it. */
	unsigned long long us = (r->ts + 500) / 1000;
	trace_seq_printf(&d->seq, "%llu.%06llu: ", us / 1000000, us % 1000000);
	tep_print_event(tep, &d->seq, r, "%s: %s", TEP_PRINT_NAME, TEP_PRINT_INFO);
	trace_seq_terminate(&d->seq);
	if (d->seq.state != TRACE_SEQ__GOOD)
		return -1;
	size_t n = strlen(d->seq.buffer);
	if (n + 1 > d->cap) {
		char *l = realloc(d->line, n + 1);
		if (!l)
			return -1;
		d->line = l;
		d->cap = n + 1;
	}
	/* One line: a field's own newlines become blanks. */
	for (size_t i = 0; i <= n; i++)
		d->line[i] = d->seq.buffer[i] == '\n' ? ' ' : d->seq.buffer[i];
	tracecmd_free_record(r);
	m->rec = tracecmd_read_data(m->h, m->cpu);
	*line = d->line;
	return 1;
}
