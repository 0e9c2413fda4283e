/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracefile.c - reading recorded traces as text (tracefile.h). */
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracefile.h"

extern char **environ;

int sim_tracefile_open(sim_tracefile *t, const char *path)
{
	memset(t, 0, sizeof(*t));
	t->path = path;
	size_t n = strlen(path);
	if (n < 3 || strcmp(path + n - 3, ".gz")) {
		if (!(t->in = fopen(path, "r")))
			return errno;
		return 0;
	}
	/* gzip -dc, and a check that the file is there first: gzip's own
	 * message would otherwise be all the user sees. */
	FILE *probe = fopen(path, "r");
	if (!probe)
		return errno;
	fclose(probe);
	int fd[2];
	if (pipe(fd))
		return errno;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	char *argv[] = { "gzip", "-dc", "--", (char *)path, NULL };
	int rc = posix_spawnp(&t->gzip, "gzip", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc) {
		close(fd[0]);
		t->gzip = 0;
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

int sim_tracefile_next(sim_tracefile *t, const char **line)
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
		if (!*s || *s == '#') {
			uint64_t a, b;
			if (sscanf(s, "# entries-in-buffer/entries-written: %" SCNu64 "/%" SCNu64, &a, &b) == 2 &&
			    b > a)
				t->lost += b - a;
			continue;
		}
		if (!strncmp(s, "CPU ", 4) || !strncmp(s, "CPU:", 4)) {
			/* trace-cmd report: "CPU:1 [LOST 42 EVENTS]", "CPU 0 is empty" */
			const char *lost = strstr(s, "[LOST ");
			if (lost)
				t->lost += strtoull(lost + 6, NULL, 10);
			continue;
		}
		if (!strncmp(s, "version =", 9) || !strncmp(s, "cpus=", 5))
			continue; /* trace-cmd report's header */
		*line = s;
		return 1;
	}
	if (len < 0 && errno == ENOMEM)
		return -1;
	if (ferror((FILE *)t->in))
		t->truncated = true; /* a read error: what was read is not the whole file */
	return 0;
}

void sim_tracefile_close(sim_tracefile *t)
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

/* "12345.678901" followed by ':' -> ns; -1 if it is not a time. */
static int64_t parse_ts(const char *s, const char **end)
{
	int64_t sec = 0, frac = 0;
	int nd = 0;
	const char *p = s;
	if (*p < '0' || *p > '9')
		return -1;
	for (int d = 0; *p >= '0' && *p <= '9'; d++) {
		if (d == 12)
			return -1; /* no trace runs for 10^12 s: not a time */
		sec = sec * 10 + (*p++ - '0');
	}
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
	if (!nd || *p != ':')
		return -1;
	while (nd++ < 9)
		frac *= 10;
	*end = p + 1;
	return sec * 1000000000 + frac;
}

bool sim_ftrace_parse(const char *l, sim_ftrace_ev *ev)
{
	const char *b = strstr(l, "] ");
	const char *o = b;
	while (o && o > l && o[-1] >= '0' && o[-1] <= '9')
		o--;
	if (!b || o == b || o == l || o[-1] != '[')
		return false;
	if (b - o > 6)
		return false; /* no machine has a million CPUs: not a CPU number */
	ev->cpu = atoi(o);
	/* "comm-pid   [": the pid's digits before the blanks, a '-' before them. */
	const char *e = o - 1;
	while (e > l && e[-1] == ' ')
		e--;
	const char *d = e;
	while (d > l && d[-1] >= '0' && d[-1] <= '9')
		d--;
	ev->comm = l;
	if (d < e && d > l && d[-1] == '-') {
		ev->pid = atoi(d);
		ev->comm_len = (size_t)(d - 1 - l);
	} else {
		ev->pid = -1;
		ev->comm_len = (size_t)(e - l);
	}
	const char *p = b + 2;
	while (*p == ' ')
		p++;
	const char *after;
	int64_t ts = parse_ts(p, &after);
	if (ts < 0) {
		while (*p && *p != ' ')
			p++; /* the flags */
		while (*p == ' ')
			p++;
		if ((ts = parse_ts(p, &after)) < 0)
			return false;
	}
	while (*after == ' ')
		after++;
	const char *colon = strchr(after, ':');
	if (!colon || colon == after)
		return false;
	ev->ts = ts;
	ev->event = after;
	ev->event_len = (size_t)(colon - after);
	ev->rest = colon + 1;
	return true;
}

bool sim_ftrace_is(const sim_ftrace_ev *ev, const char *name)
{
	size_t n = strlen(name);
	return ev->event_len == n && !memcmp(ev->event, name, n);
}

bool sim_ftrace_field(const char *rest, const char *name, bool hex, uint64_t *v)
{
	const char *p = strstr(rest, name);
	if (!p)
		return false;
	p += strlen(name);
	char *e;
	*v = strtoull(p, &e, hex ? 16 : 10);
	return e != p;
}

bool sim_strace_parse(const char *l, sim_strace_ev *ev)
{
	char *e;
	long long pid = strtoll(l, &e, 10);
	if (e == l || *e != ' ' || pid <= 0)
		return false;
	const char *p = e;
	while (*p == ' ')
		p++;
	int64_t sec = 0, frac = 0;
	int nd = 0;
	if (*p < '0' || *p > '9')
		return false;
	for (int d = 0; *p >= '0' && *p <= '9'; d++) {
		if (d == 12)
			return false; /* seconds since 1970 have 10 digits */
		sec = sec * 10 + (*p++ - '0');
	}
	if (*p++ != '.')
		return false;
	while (*p >= '0' && *p <= '9') {
		if (nd < 9) {
			frac = frac * 10 + (*p - '0');
			nd++;
		}
		p++;
	}
	if (!nd || *p != ' ')
		return false;
	while (nd++ < 9)
		frac *= 10;
	while (*p == ' ')
		p++;
	ev->pid = pid;
	ev->ts = sec * 1000000000 + frac;
	ev->name[0] = 0;
	ev->args = "";
	ev->has_ret = false;
	ev->ret = 0;
	if (!strncmp(p, "+++ ", 4)) {
		ev->kind = SIM_STRACE_EXITED;
		return true;
	}
	if (!strncmp(p, "--- ", 4)) {
		ev->kind = SIM_STRACE_SIGNAL;
		return true;
	}
	const char *n = p;
	if (!strncmp(p, "<... ", 5)) {
		n = p + 5;
		ev->kind = SIM_STRACE_RESUMED;
	} else {
		ev->kind = SIM_STRACE_CALL;
	}
	size_t k = 0;
	while ((n[k] >= 'a' && n[k] <= 'z') || (n[k] >= '0' && n[k] <= '9') || n[k] == '_' ||
	       (n[k] >= 'A' && n[k] <= 'Z'))
		k++;
	if (!k || k >= sizeof(ev->name))
		return false;
	memcpy(ev->name, n, k);
	ev->name[k] = 0;
	if (ev->kind == SIM_STRACE_RESUMED) {
		if (strncmp(n + k, " resumed>", 9))
			return false;
		ev->args = n + k + 9;
	} else {
		if (n[k] != '(')
			return false;
		ev->args = n + k + 1;
		if (strstr(ev->args, "<unfinished ...>")) {
			ev->kind = SIM_STRACE_UNFINISHED;
			return true;
		}
	}
	/* The last " = ", after the closing parenthesis and strace's padding. */
	const char *eq = NULL;
	for (const char *q = strstr(ev->args, " = "); q; q = strstr(q + 1, " = "))
		eq = q;
	if (!eq)
		return false;
	if (ev->kind == SIM_STRACE_CALL) {
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

int sim_tmap_put(sim_tmap *m, uint64_t k, int64_t t)
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

int64_t sim_tmap_take(sim_tmap *m, uint64_t k)
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
		(void)sim_tmap_put(m, kk, tt);
	}
	return t;
}

void sim_tmap_free(sim_tmap *m)
{
	free(m->key);
	free(m->t);
	*m = (sim_tmap){ 0 };
}
