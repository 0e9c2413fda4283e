/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lines.c - reading recorded traces as text (lines.h). */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lines.h"

extern char **environ;

/* @f is no directory (whose read would fail as an empty file's would not):
 * 0, or EISDIR (@f closed). */
static int not_dir(FILE *f)
{
	struct stat st;
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		fclose(f);
		return EISDIR;
	}
	return 0;
}

int trace_lines_open(trace_lines *t, const char *path)
{
	memset(t, 0, sizeof(*t));
	t->path = path;
	size_t n = strlen(path);
	int rc;
	if (n < 3 || strcmp(path + n - 3, ".gz")) {
		if (!(t->in = fopen(path, "r")))
			return errno;
		if ((rc = not_dir(t->in)))
			t->in = NULL;
		return rc;
	}
	/* gzip -dc, and a check that the file is there first: gzip's own
	 * message would otherwise be all the user sees. */
	FILE *probe = fopen(path, "r");
	if (!probe)
		return errno;
	if ((rc = not_dir(probe)))
		return rc;
	fclose(probe);
	int fd[2];
	if (pipe(fd))
		return errno;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	char *argv[] = { "gzip", "-dc", "--", (char *)path, NULL };
	rc = posix_spawnp(&t->gzip, "gzip", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc) {
		close(fd[0]);
		t->gzip = 0;
		t->spawn_failed = true;
		return rc;
	}
	if (!(t->in = fdopen(fd[0], "r"))) {
		rc = errno;
		close(fd[0]);
		waitpid(t->gzip, NULL, 0);
		t->gzip = 0;
		return rc;
	}
	return 0;
}

uint64_t trace_digits(const char *p, const char **end)
{
	uint64_t v = 0;
	while (*p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p++ - '0');
		v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
	}
	*end = p;
	return v;
}

/* @p holds @w, then only blanks to its end: true. */
static bool ends_with_only(const char *p, const char *w)
{
	size_t n = strlen(w);
	if (strncmp(p, w, n))
		return false;
	for (p += n; *p; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r')
			return false;
	return true;
}

/* @s is a trace-cmd header line ("CPU 0 is empty", "CPU:1 [LOST 42
 * EVENTS]", "CPU:1 [LOST EVENTS]", "CPU:1 [42 EVENTS DROPPED]", "CPU:1
 * [EVENTS DROPPED]", "cpus=2", "version = 6"): true, and the events it
 * says were lost into *@lost. Exactly these: a task's line that begins
 * alike (QEMU's vCPU threads, "CPU 0/KVM-1234 [001] ...") is none. */
static bool header_line(const char *s, uint64_t *lost)
{
	const char *p;
	*lost = 0;
	if (!strncmp(s, "CPU ", 4)) {
		trace_digits(s + 4, &p);
		return p > s + 4 && ends_with_only(p, " is empty");
	}
	if (!strncmp(s, "CPU:", 4)) {
		trace_digits(s + 4, &p);
		if (p == s + 4 || strncmp(p, " [", 2))
			return false;
		p += 2;
		if (!strncmp(p, "LOST ", 5)) {
			const char *q = p + 5;
			if (ends_with_only(q, "EVENTS]"))
				return true;
			*lost = trace_digits(q, &p);
			return p > q && ends_with_only(p, " EVENTS]");
		}
		if (ends_with_only(p, "EVENTS DROPPED]"))
			return true;
		const char *q = p;
		*lost = trace_digits(q, &p);
		return p > q && ends_with_only(p, " EVENTS DROPPED]");
	}
	if (!strncmp(s, "cpus=", 5)) {
		trace_digits(s + 5, &p);
		return p > s + 5 && ends_with_only(p, "");
	}
	if (!strncmp(s, "version = ", 10))
		return s[10] && !strchr(s + 10, '[');
	return false;
}

/* Add @n lost events to @t's count: 0, or -2 past TRACE_LOST_MAX. */
static int add_lost(trace_lines *t, uint64_t n)
{
	if (n > TRACE_LOST_MAX || t->lost + n > TRACE_LOST_MAX) {
		t->why = "the trace says it lost more than 10^18 events: not a count a ring buffer "
			 "reaches";
		return -2;
	}
	t->lost += n;
	return 0;
}

int trace_lines_next(trace_lines *t, const char **line)
{
	ssize_t len;
	errno = 0;
	while ((len = getline(&t->buf, &t->cap, t->in)) > 0) {
		t->lineno++;
		if (t->buf[len - 1] != '\n') {
			/* The file ends inside a line: cut, whatever it holds. */
			t->truncated = true;
			return 0;
		}
		t->buf[--len] = 0;
		const char *s = t->buf;
		while (*s == ' ' || *s == '\t')
			s++;
		static const char ew[] = "# entries-in-buffer/entries-written: ";
		uint64_t lost;
		if (!strncmp(s, ew, sizeof(ew) - 1)) {
			const char *p = s + sizeof(ew) - 1, *q;
			uint64_t a = trace_digits(p, &q), b = 0;
			if (q > p && *q == '/') {
				p = q + 1;
				b = trace_digits(p, &q);
			}
			if (q > p && b > a && add_lost(t, b - a))
				return -2;
			continue;
		}
		if (!*s || *s == '#')
			continue;
		if (header_line(s, &lost)) {
			if (add_lost(t, lost))
				return -2;
			continue;
		}
		*line = s;
		return 1;
	}
	if (len < 0 && errno == ENOMEM)
		return -1;
	if (ferror((FILE *)t->in))
		t->truncated = true; /* a read error: what was read is not the whole file */
	return 0;
}

void trace_lines_close(trace_lines *t)
{
	if (t->in)
		fclose(t->in);
	t->in = NULL;
	if (t->gzip) {
		int ws;
		if (waitpid(t->gzip, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws))
			t->truncated = t->gzip_failed = true;
		t->gzip = 0;
	}
	free(t->buf);
	t->buf = NULL;
	t->cap = 0;
}

static const char time_why[] = "its time is past 4294967295 s (TRACE_SEC_MAX)";

int64_t trace_parse_ts(const char *s, char sep, const char **end)
{
	int64_t frac = 0;
	int nd = 0;
	const char *p = s;
	if (*p < '0' || *p > '9')
		return -1;
	uint64_t sec = trace_digits(p, &p);
	if (*p != '.')
		return -1;
	p++;
	while (*p >= '0' && *p <= '9') {
		if (nd < 9) {
			frac = frac * 10 + (*p - '0');
			nd++;
		}
		p++;
	}
	if (!nd || *p != sep)
		return -1;
	if (sec > TRACE_SEC_MAX)
		return -2;
	while (nd++ < 9)
		frac *= 10;
	*end = p + 1;
	return (int64_t)sec * 1000000000 + frac;
}

bool trace_field(const char *rest, const char *name, bool hex, uint64_t *v)
{
	const char *p = strstr(rest, name);
	if (!p)
		return false;
	p += strlen(name);
	char *e;
	*v = strtoull(p, &e, hex ? 16 : 10);
	return e != p;
}

bool trace_strace_parse(const char *l, trace_strace_ev *ev)
{
	char *e;
	const char *p;
	ev->why = NULL;
	if (*l < '1' || *l > '9')
		return false;
	uint64_t pid = trace_digits(l, &p);
	if (*p != ' ')
		return false;
	while (*p == ' ')
		p++;
	int64_t ts = trace_parse_ts(p, ' ', &p);
	if (ts < 0) {
		if (ts == -2)
			ev->why = time_why;
		return false;
	}
	if (pid > INT32_MAX) {
		ev->why = "its pid is past 2147483647";
		return false;
	}
	while (*p == ' ')
		p++;
	ev->pid = (int64_t)pid;
	ev->ts = ts;
	ev->name[0] = 0;
	ev->args = "";
	ev->has_ret = false;
	ev->ret = 0;
	if (!strncmp(p, "+++ ", 4)) {
		ev->kind = TRACE_STRACE_EXITED;
		return true;
	}
	if (!strncmp(p, "--- ", 4)) {
		ev->kind = TRACE_STRACE_SIGNAL;
		return true;
	}
	const char *n = p;
	if (!strncmp(p, "<... ", 5)) {
		n = p + 5;
		ev->kind = TRACE_STRACE_RESUMED;
	} else {
		ev->kind = TRACE_STRACE_CALL;
	}
	size_t k = 0;
	while ((n[k] >= 'a' && n[k] <= 'z') || (n[k] >= '0' && n[k] <= '9') || n[k] == '_' ||
	       (n[k] >= 'A' && n[k] <= 'Z'))
		k++;
	if (!k || k >= sizeof(ev->name))
		return false;
	memcpy(ev->name, n, k);
	ev->name[k] = 0;
	if (ev->kind == TRACE_STRACE_RESUMED) {
		if (strncmp(n + k, " resumed>", 9))
			return false;
		ev->args = n + k + 9;
	} else {
		if (n[k] != '(')
			return false;
		ev->args = n + k + 1;
		if (strstr(ev->args, "<unfinished ...>")) {
			ev->kind = TRACE_STRACE_UNFINISHED;
			return true;
		}
	}
	/* The last " = ", after the closing parenthesis and strace's padding. */
	const char *eq = NULL;
	for (const char *q = strstr(ev->args, " = "); q; q = strstr(q + 1, " = "))
		eq = q;
	if (!eq)
		return false;
	if (ev->kind == TRACE_STRACE_CALL) {
		const char *b = eq;
		while (b > ev->args && *b == ' ')
			b--;
		if (*b != ')')
			return false;
	}
	/* " = N", or " = ?" (the process ended in the call) */
	eq += 3;
	long long r = strtoll(eq, &e, 10);
	if (e != eq) {
		ev->has_ret = true;
		ev->ret = r;
	} else if (*eq != '?') {
		return false;
	}
	return true;
}

/* @k's home slot: the product's bits from 32 on, which every bit of a key
 * below 2^32 and the low ones above reach (a pid in the high half). */
static size_t tmap_home(uint64_t k, size_t cap)
{
	return (size_t)((k * 0x9E3779B97F4A7C15u) >> 32) & (cap - 1);
}

int trace_tmap_put(trace_tmap *m, uint64_t k, int64_t t)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		uint64_t *key = calloc(cap, sizeof(*key));
		int64_t *tt = calloc(cap, sizeof(*tt));
		if (!key || !tt) {
			free(key);
			free(tt);
			return -1;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->key[i]) {
				size_t j = tmap_home(m->key[i], cap);
				while (key[j])
					j = (j + 1) & (cap - 1);
				key[j] = m->key[i];
				tt[j] = m->t[i];
			}
		free(m->key);
		free(m->t);
		m->key = key;
		m->t = tt;
		m->cap = cap;
	}
	size_t j = tmap_home(k, m->cap);
	while (m->key[j] && m->key[j] != k)
		j = (j + 1) & (m->cap - 1);
	if (!m->key[j])
		m->n++;
	m->key[j] = k;
	m->t[j] = t;
	return 0;
}

bool trace_tmap_get(const trace_tmap *m, uint64_t k, int64_t *t)
{
	if (!m->cap)
		return false;
	size_t j = tmap_home(k, m->cap);
	while (m->key[j] && m->key[j] != k)
		j = (j + 1) & (m->cap - 1);
	if (!m->key[j])
		return false;
	*t = m->t[j];
	return true;
}

int64_t trace_tmap_take(trace_tmap *m, uint64_t k)
{
	if (!m->cap)
		return -1;
	size_t j = tmap_home(k, m->cap);
	while (m->key[j] && m->key[j] != k)
		j = (j + 1) & (m->cap - 1);
	if (!m->key[j])
		return -1;
	int64_t t = m->t[j];
	m->key[j] = 0;
	m->n--;
	/* The cluster after it goes back in: no tombstones (re-inserting
	 * never grows the table, which has room for it). */
	for (size_t i = (j + 1) & (m->cap - 1); m->key[i]; i = (i + 1) & (m->cap - 1)) {
		uint64_t kk = m->key[i];
		int64_t tt = m->t[i];
		m->key[i] = 0;
		m->n--;
		(void)trace_tmap_put(m, kk, tt);
	}
	return t;
}

void trace_tmap_free(trace_tmap *m)
{
	free(m->key);
	free(m->t);
	*m = (trace_tmap){ 0 };
}

const char *trace_quote(const char *s, size_t max, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i = 0;
	assert(len > 4);
	for (; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t need = c >= 0x20 && c < 0x7f && c != '\\' ? 1 : c == '\\' ? 2 : 4;
		if (o + need + 4 > len)
			break;
		if (need == 1) {
			buf[o++] = (char)c;
		} else if (need == 2) {
			buf[o++] = '\\';
			buf[o++] = '\\';
		} else {
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[c >> 4];
			buf[o++] = hex[c & 15];
		}
	}
	if (s[i]) { /* cut: by @max or by the room left */
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = 0;
	return buf;
}

/* Entries @a before @b: earlier, or as early and an earlier line. */
static bool ent_before(const trace_reorder_ent *a, const trace_reorder_ent *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->lineno < b->lineno);
}

int trace_reorder_put(trace_reorder *r, int64_t ts, uint64_t lineno, const char *text)
{
	if (r->any && ts < r->latest - TRACE_REORDER_WINDOW_NS)
		return 1;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		trace_reorder_ent *h = realloc(r->heap, cap * sizeof(*h));
		if (!h)
			return -1;
		r->heap = h;
		r->cap = cap;
	}
	trace_reorder_ent e = { ts, lineno, strdup(text) };
	if (!e.text)
		return -1;
	size_t i = r->n++;
	while (i && ent_before(&e, &r->heap[(i - 1) / 2])) {
		r->heap[i] = r->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	r->heap[i] = e;
	if (!r->any || ts > r->latest) {
		r->latest = ts;
		r->latest_line = lineno;
	}
	r->any = true;
	return 0;
}

bool trace_reorder_take(trace_reorder *r, bool all, const char **text, uint64_t *lineno, int64_t *ts)
{
	free(r->out);
	r->out = NULL;
	if (!r->n || (!all && r->heap[0].ts >= r->latest - TRACE_REORDER_WINDOW_NS))
		return false;
	trace_reorder_ent top = r->heap[0], last = r->heap[--r->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= r->n)
			break;
		if (c + 1 < r->n && ent_before(&r->heap[c + 1], &r->heap[c]))
			c++;
		if (!ent_before(&r->heap[c], &last))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	if (r->n)
		r->heap[i] = last;
	r->out = top.text;
	*text = top.text;
	*lineno = top.lineno;
	*ts = top.ts;
	return true;
}

void trace_reorder_free(trace_reorder *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->heap[i].text);
	free(r->heap);
	free(r->out);
	*r = (trace_reorder){ 0 };
}
