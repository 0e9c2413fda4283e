/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * datw.c - writing trace.dat (trace-cmd.dat(5), version 6: libtracecmd 1.3
 * has no public output API) with the kernel's own event formats, for
 * `rcusim run --trace FILE.dat`, so that `trace-cmd report` and KernelShark
 * read a simulated run as a recorded one.
 *
 * The file: the magic, "6", little endian, 8-byte longs, 4096-byte pages;
 * the ring buffer's header_page and header_event as the kernel gives them;
 * no ftrace events; the event formats of the systems written (as
 * /sys/kernel/tracing/events/SYSTEM/EVENT/format of 6.12 prints them: the
 * field layout of include/trace/events/); no kallsyms; the printk strings
 * the rcu events' const char * fields point at (fake addresses, as the
 * kernel's rodata); the saved cmdlines; then "flyrecord" and each CPU's
 * ring-buffer pages, page-aligned. Each page: its time stamp (u64), its
 * commit (the bytes of events in it, u64) and the events, each a 4-byte
 * header (type_len: the length in 4-byte words, 1 to 28; time_delta: 27
 * bits of ns since the previous event, a time-extend event before it when
 * the delta needs more) and its data: the common fields (type, flags,
 * preempt count, pid) and the event's own. While the run goes each CPU's
 * pages go to a temporary file of their own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

enum { PAGE = 4096, PAGE_HDR = 16, DELTA_MAX = (1 << 27) - 1 };

/* One field of an event's format. */
typedef struct dfield {
	const char *decl;   /* as the format file declares it: "char prev_comm[16]" */
	const char *name;
	int offset, size, is_signed;
	char kind;          /* 'n' a number, 'c' a char array, 'p' a const char * into printk */
} dfield;

typedef struct dformat {
	trace_ev_type type;
	int id;                 /* its ID in this file */
	const char *system, *name;
	int size;               /* of its data, common fields included */
	dfield f[7];
	const char *print;      /* print fmt */
} dformat;

#define SOFTIRQ_PRINT                                                                              \
	"\"vec=%u [action=%s]\", REC->vec, __print_symbolic(REC->vec, { 0, \"HI\" }, { 1, \"TIMER\" }, " \
	"{ 2, \"NET_TX\" }, { 3, \"NET_RX\" }, { 4, \"BLOCK\" }, { 5, \"IRQ_POLL\" }, { 6, \"TASKLET\" }, " \
	"{ 7, \"SCHED\" }, { 8, \"HRTIMER\" }, { 9, \"RCU\" })"
#define VEC_FIELD { { "unsigned int vec", "vec", 8, 4, 0, 'n' } }
#define VECTOR_FIELD { { "int vector", "vector", 8, 4, 1, 'n' } }
#define SWITCH_STATE_MASK "(((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | " \
	"0x00000020 | 0x00000040) + 1) << 1)"

/* The events rcusim writes, as 6.12 formats them (sched.h, irq.h,
 * irq_vectors.h, rcu.h). */
static const dformat formats[] = {
	{ TEV_SCHED_SWITCH, 1, "sched", "sched_switch", 64,
	  { { "char prev_comm[16]", "prev_comm", 8, 16, 0, 'c' },
	    { "pid_t prev_pid", "prev_pid", 24, 4, 1, 'n' },
	    { "int prev_prio", "prev_prio", 28, 4, 1, 'n' },
	    { "long prev_state", "prev_state", 32, 8, 1, 'n' },
	    { "char next_comm[16]", "next_comm", 40, 16, 0, 'c' },
	    { "pid_t next_pid", "next_pid", 56, 4, 1, 'n' },
	    { "int next_prio", "next_prio", 60, 4, 1, 'n' } },
	  "\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
	  "next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & "
	  "(" SWITCH_STATE_MASK " - 1)) ? __print_flags(REC->prev_state & (" SWITCH_STATE_MASK " - 1), \"|\", "
	  "{ 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, "
	  "{ 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : "
	  "\"R\", REC->prev_state & " SWITCH_STATE_MASK " ? \"+\" : \"\", REC->next_comm, REC->next_pid, "
	  "REC->next_prio" },
	{ TEV_SCHED_WAKEUP, 2, "sched", "sched_wakeup", 36,
	  { { "char comm[16]", "comm", 8, 16, 0, 'c' },
	    { "pid_t pid", "pid", 24, 4, 1, 'n' },
	    { "int prio", "prio", 28, 4, 1, 'n' },
	    { "int target_cpu", "target_cpu", 32, 4, 1, 'n' } },
	  "\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, REC->target_cpu" },
	{ TEV_SOFTIRQ_RAISE, 3, "irq", "softirq_raise", 12, VEC_FIELD, SOFTIRQ_PRINT },
	{ TEV_SOFTIRQ_ENTRY, 4, "irq", "softirq_entry", 12, VEC_FIELD, SOFTIRQ_PRINT },
	{ TEV_SOFTIRQ_EXIT, 5, "irq", "softirq_exit", 12, VEC_FIELD, SOFTIRQ_PRINT },
	{ TEV_LOCAL_TIMER_ENTRY, 6, "irq_vectors", "local_timer_entry", 12, VECTOR_FIELD,
	  "\"vector=%d\", REC->vector" },
	{ TEV_LOCAL_TIMER_EXIT, 7, "irq_vectors", "local_timer_exit", 12, VECTOR_FIELD, "\"vector=%d\", REC->vector" },
	{ TEV_RESCHEDULE_ENTRY, 8, "irq_vectors", "reschedule_entry", 12, VECTOR_FIELD, "\"vector=%d\", REC->vector" },
	{ TEV_RESCHEDULE_EXIT, 9, "irq_vectors", "reschedule_exit", 12, VECTOR_FIELD, "\"vector=%d\", REC->vector" },
	{ TEV_CALL_FUNCTION_SINGLE_ENTRY, 10, "irq_vectors", "call_function_single_entry", 12, VECTOR_FIELD,
	  "\"vector=%d\", REC->vector" },
	{ TEV_CALL_FUNCTION_SINGLE_EXIT, 11, "irq_vectors", "call_function_single_exit", 12, VECTOR_FIELD,
	  "\"vector=%d\", REC->vector" },
	{ TEV_RCU_UTILIZATION, 12, "rcu", "rcu_utilization", 16, { { "const char * s", "s", 8, 8, 0, 'p' } },
	  "\"%s\", REC->s" },
	{ TEV_RCU_GRACE_PERIOD, 13, "rcu", "rcu_grace_period", 32,
	  { { "const char * rcuname", "rcuname", 8, 8, 0, 'p' },
	    { "long gp_seq", "gp_seq", 16, 8, 1, 'n' },
	    { "const char * gpevent", "gpevent", 24, 8, 0, 'p' } },
	  "\"%s %ld %s\", REC->rcuname, REC->gp_seq, REC->gpevent" },
	{ TEV_RCU_BATCH_START, 14, "rcu", "rcu_batch_start", 32,
	  { { "const char * rcuname", "rcuname", 8, 8, 0, 'p' },
	    { "long qlen", "qlen", 16, 8, 1, 'n' },
	    { "long blimit", "blimit", 24, 8, 1, 'n' } },
	  "\"%s CBs=%ld bl=%ld\", REC->rcuname, REC->qlen, REC->blimit" },
	{ TEV_RCU_BATCH_END, 15, "rcu", "rcu_batch_end", 24,
	  { { "const char * rcuname", "rcuname", 8, 8, 0, 'p' },
	    { "int callbacks_invoked", "callbacks_invoked", 16, 4, 1, 'n' },
	    { "char cb", "cb", 20, 1, 1, 'n' },
	    { "char nr", "nr", 21, 1, 1, 'n' },
	    { "char iit", "iit", 22, 1, 1, 'n' },
	    { "char risk", "risk", 23, 1, 1, 'n' } },
	  "\"%s CBs-invoked=%d idle=%c%c%c%c\", REC->rcuname, REC->callbacks_invoked, REC->cb ? 'C' : '.', "
	  "REC->nr ? 'S' : '.', REC->iit ? 'I' : '.', REC->risk ? 'R' : '.'" },
};
enum { NFORMATS = sizeof(formats) / sizeof(formats[0]) };

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char header_event[] = "# compressed entry header\n"
				   "\ttype_len    :    5 bits\n"
				   "\ttime_delta  :   27 bits\n"
				   "\tarray       :   32 bits\n"
				   "\n"
				   "\tpadding     : type == 29\n"
				   "\ttime_extend : type == 30\n"
				   "\ttime_stamp : type == 31\n"
				   "\tdata max type_len  == 28\n";

/* The printk strings' fake addresses: from here, 4096 apart. */
#define PRINTK_BASE 0xffffffff82000000ull

typedef struct dcpu_w {
	FILE *tmp;              /* its full pages */
	unsigned char page[PAGE];
	size_t used;            /* bytes of events in page */
	int64_t page_ts, last_ts;
	uint64_t npages;
} dcpu_w;

struct trace_datw {
	FILE *out;
	int ncpus;
	dcpu_w *c;
	char **str;             /* the printk strings */
	size_t nstr;
	char *cmdlines;         /* "pid comm\n"... */
	size_t ncmd, capcmd;
	int err;                /* the first errno */
};

int trace_datw_create(trace_datw **out, FILE *f, int ncpus)
{
	trace_datw *w = calloc(1, sizeof(*w));
	if (!w || !(w->c = calloc((size_t)ncpus, sizeof(*w->c)))) {
		free(w);
		return ENOMEM;
	}
	w->out = f;
	w->ncpus = ncpus;
	for (int i = 0; i < ncpus; i++) {
		if (!(w->c[i].tmp = tmpfile())) {
			int e = errno;
			trace_datw_destroy(w);
			return e ? e : EIO;
		}
	}
	*out = w;
	return 0;
}

void trace_datw_destroy(trace_datw *w)
{
	if (!w)
		return;
	for (int i = 0; w->c && i < w->ncpus; i++)
		if (w->c[i].tmp)
			fclose(w->c[i].tmp);
	free(w->c);
	for (size_t i = 0; i < w->nstr; i++)
		free(w->str[i]);
	free(w->str);
	free(w->cmdlines);
	free(w);
}

int trace_datw_comm(trace_datw *w, int pid, const char *comm)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%d %.15s\n", pid, comm);
	if (w->ncmd + (size_t)n + 1 > w->capcmd) {
		size_t cap = w->capcmd ? 2 * w->capcmd : 4096;
		while (cap < w->ncmd + (size_t)n + 1)
			cap *= 2;
		char *c = realloc(w->cmdlines, cap);
		if (!c)
			return ENOMEM;
		w->cmdlines = c;
		w->capcmd = cap;
	}
	memcpy(w->cmdlines + w->ncmd, line, (size_t)n + 1);
	w->ncmd += (size_t)n;
	return 0;
}

/* The fake address of printk string @s (added on first use), 0 out of memory. */
static uint64_t str_addr(trace_datw *w, const char *s)
{
	for (size_t i = 0; i < w->nstr; i++)
		if (!strcmp(w->str[i], s))
			return PRINTK_BASE + 4096 * i;
	char **n = realloc(w->str, (w->nstr + 1) * sizeof(*n));
	if (!n)
		return 0;
	w->str = n;
	if (!(n[w->nstr] = strdup(s)))
		return 0;
	return PRINTK_BASE + 4096 * w->nstr++;
}

static void put_le(unsigned char *p, uint64_t v, int size)
{
	for (int i = 0; i < size; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Write @c's page out and start a new one. */
static int flush_page(trace_datw *w, dcpu_w *c)
{
	if (!c->used)
		return 0;
	put_le(c->page, (uint64_t)c->page_ts, 8);
	put_le(c->page + 8, c->used, 8);
	memset(c->page + PAGE_HDR + c->used, 0, PAGE - PAGE_HDR - c->used);
	if (fwrite(c->page, PAGE, 1, c->tmp) != 1)
		return errno ? errno : EIO;
	c->npages++;
	c->used = 0;
	return 0;
}

int trace_datw_event(trace_datw *w, int cpu, int64_t ts, int pid, trace_ev_type type, const int64_t *num,
		     const char *const *str)
{
	const dformat *f = NULL;
	for (int i = 0; i < NFORMATS; i++)
		if (formats[i].type == type)
			f = &formats[i];
	if (!f || cpu < 0 || cpu >= w->ncpus)
		return EINVAL;
	dcpu_w *c = &w->c[cpu];
	if (ts < c->last_ts)
		ts = c->last_ts; /* a CPU's events in time order */
	int words = (f->size + 3) / 4;
	size_t need = 4 + 4 * (size_t)words;
	int64_t delta = c->used ? ts - c->last_ts : 0;
	if (delta > DELTA_MAX)
		need += 8;
	if (c->used + need > PAGE - PAGE_HDR) {
		int rc = flush_page(w, c);
		if (rc)
			return rc;
		delta = 0;
		need = 4 + 4 * (size_t)words;
	}
	if (!c->used)
		c->page_ts = ts;
	unsigned char *p = c->page + PAGE_HDR + c->used;
	if (delta > DELTA_MAX) {
		put_le(p, 30u | ((uint32_t)(delta & DELTA_MAX) << 5), 4);
		put_le(p + 4, (uint64_t)(delta >> 27), 4);
		p += 8;
		delta = 0;
	}
	put_le(p, (uint32_t)words | ((uint32_t)delta << 5), 4);
	unsigned char *d = p + 4;
	memset(d, 0, 4 * (size_t)words);
	put_le(d, (uint64_t)f->id, 2); /* common_type; flags, preempt_count 0 */
	put_le(d + 4, (uint64_t)(uint32_t)pid, 4);
	int ni = 0, si = 0;
	for (int i = 0; i < 7 && f->f[i].name; i++) {
		const dfield *fl = &f->f[i];
		if (fl->kind == 'n') {
			put_le(d + fl->offset, (uint64_t)num[ni++], fl->size);
		} else if (fl->kind == 'c') {
			strncpy((char *)d + fl->offset, str[si++], (size_t)fl->size - 1);
		} else {
			uint64_t a = str_addr(w, str[si++]);
			if (!a)
				return ENOMEM;
			put_le(d + fl->offset, a, 8);
		}
	}
	c->used += need;
	c->last_ts = ts;
	return 0;
}

static int w8(FILE *o, uint64_t v)
{
	unsigned char b[8];
	put_le(b, v, 8);
	return fwrite(b, 8, 1, o) == 1 ? 0 : -1;
}

static int w4(FILE *o, uint32_t v)
{
	unsigned char b[4];
	put_le(b, v, 4);
	return fwrite(b, 4, 1, o) == 1 ? 0 : -1;
}

/* Format text of @f, into a malloc'd string. */
static char *format_text(const dformat *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return NULL;
	fprintf(m, "name: %s\nID: %d\nformat:\n", f->name, f->id);
	fputs("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	      "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	      "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	      "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n",
	      m);
	for (int i = 0; i < 7 && f->f[i].name; i++)
		fprintf(m, "\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n", f->f[i].decl, f->f[i].offset,
			f->f[i].size, f->f[i].is_signed);
	fprintf(m, "\nprint fmt: %s\n", f->print);
	if (fclose(m))
		return NULL;
	return buf;
}

int trace_datw_finish(trace_datw *w)
{
	FILE *o = w->out;
	for (int i = 0; i < w->ncpus; i++) {
		int rc = flush_page(w, &w->c[i]);
		if (rc)
			return rc;
	}
	errno = 0;
	int bad = 0;
	bad |= fwrite("\027\010\104tracing6", 11, 1, o) != 1 || fputc(0, o) == EOF;
	bad |= fputc(0, o) == EOF || fputc(8, o) == EOF || w4(o, PAGE);
	bad |= fwrite("header_page", 12, 1, o) != 1 || w8(o, sizeof(header_page) - 1) ||
	       fwrite(header_page, sizeof(header_page) - 1, 1, o) != 1;
	bad |= fwrite("header_event", 13, 1, o) != 1 || w8(o, sizeof(header_event) - 1) ||
	       fwrite(header_event, sizeof(header_event) - 1, 1, o) != 1;
	bad |= w4(o, 0); /* no ftrace events */
	/* The systems, in the table's order of first appearance. */
	const char *sys[NFORMATS];
	int nsys = 0;
	for (int i = 0; i < NFORMATS; i++) {
		int j = 0;
		while (j < nsys && strcmp(sys[j], formats[i].system))
			j++;
		if (j == nsys)
			sys[nsys++] = formats[i].system;
	}
	bad |= w4(o, (uint32_t)nsys);
	for (int s = 0; s < nsys; s++) {
		uint32_t n = 0;
		for (int i = 0; i < NFORMATS; i++)
			n += !strcmp(formats[i].system, sys[s]);
		bad |= fwrite(sys[s], strlen(sys[s]) + 1, 1, o) != 1 || w4(o, n);
		for (int i = 0; i < NFORMATS; i++) {
			if (strcmp(formats[i].system, sys[s]))
				continue;
			char *t = format_text(&formats[i]);
			if (!t)
				return ENOMEM;
			bad |= w8(o, strlen(t)) || fwrite(t, strlen(t), 1, o) != 1;
			free(t);
		}
	}
	bad |= w4(o, 0); /* no kallsyms */
	/* printk: "0xADDR : \"text\"\n" */
	char *pk = NULL;
	size_t pklen = 0;
	FILE *m = open_memstream(&pk, &pklen);
	if (!m)
		return ENOMEM;
	for (size_t i = 0; i < w->nstr; i++)
		fprintf(m, "0x%" PRIx64 " : \"%s\"\n", (uint64_t)(PRINTK_BASE + 4096 * i), w->str[i]);
	if (fclose(m)) {
		free(pk);
		return ENOMEM;
	}
	bad |= w4(o, (uint32_t)pklen) || (pklen && fwrite(pk, pklen, 1, o) != 1);
	free(pk);
	bad |= w8(o, w->ncmd) || (w->ncmd && fwrite(w->cmdlines, w->ncmd, 1, o) != 1);
	bad |= w4(o, (uint32_t)w->ncpus);
	bad |= fwrite("flyrecord", 10, 1, o) != 1;
	if (bad)
		return errno ? errno : EIO;
	long pos = ftell(o);
	if (pos < 0)
		return errno;
	uint64_t off = ((uint64_t)pos + 16 * (uint64_t)w->ncpus + PAGE - 1) / PAGE * PAGE;
	for (int i = 0; i < w->ncpus; i++) {
		uint64_t size = w->c[i].npages * PAGE;
		bad |= w8(o, off) || w8(o, size);
		off += size;
	}
	/* Padding to the first page, then each CPU's pages. */
	pos = ftell(o);
	if (bad || pos < 0)
		return errno ? errno : EIO;
	for (long p = pos; p % PAGE; p++)
		if (fputc(0, o) == EOF)
			return errno ? errno : EIO;
	unsigned char page[PAGE];
	for (int i = 0; i < w->ncpus; i++) {
		FILE *t = w->c[i].tmp;
		if (fflush(t) || fseek(t, 0, SEEK_SET))
			return errno ? errno : EIO;
		for (uint64_t n = 0; n < w->c[i].npages; n++)
			if (fread(page, PAGE, 1, t) != 1 || fwrite(page, PAGE, 1, o) != 1)
				return errno ? errno : EIO;
	}
	return fflush(o) ? (errno ? errno : EIO) : 0;
}
