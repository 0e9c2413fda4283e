/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * failalloc.c - a test hook, linked into rcusim only when configured with
 * -DRCUSIM_FAILALLOC=ON (never in Release): with -Wl,--wrap, every malloc,
 * calloc, realloc, aligned_alloc and strdup made by rcusim's own code (sim/, models/,
 * cli/; not SQLite's or GSL's inside their libraries) comes here.
 * RCUSIM_FAIL_ALLOC=N makes the Nth of them fail (once, returning NULL);
 * RCUSIM_COUNT_ALLOCS=1 prints how many there were at exit.
 * tests/failalloc.sh fails each allocation in turn.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t align, size_t n);
char *__wrap_strdup(const char *s);

static long calls, fail_at = -2;

static void report(void)
{
	fprintf(stderr, "rcusim allocations: %ld\n", calls);
}

static bool fail_now(void)
{
	if (fail_at == -2) {
		const char *e = getenv("RCUSIM_FAIL_ALLOC");
		fail_at = e ? atol(e) : -1;
		if (getenv("RCUSIM_COUNT_ALLOCS"))
			atexit(report);
	}
	return ++calls == fail_at;
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
	return fail_now() ? NULL : __real_aligned_alloc(align, n);
}

char *__wrap_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = __wrap_malloc(n);
	return d ? memcpy(d, s, n) : NULL;
}
