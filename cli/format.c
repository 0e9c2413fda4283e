/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * format.c - how values are written for a reader: times, sizes and counts
 * in human form ("12.3 ms", "1.50 MiB", "1,234,567"), and any text as one
 * word for a POSIX shell; and the monotonic clock elapsed times are read
 * from.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"

double cli_monotonic_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_fmt_ns(double ns, char *buf, size_t len)
{
	double a = fabs(ns);
	if (a < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else if (a < 60e9)
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else if (a < 3600e9)
		snprintf(buf, len, "%.3g min", ns / 60e9);
	else
		snprintf(buf, len, "%.3g h", ns / 3600e9);
}

void cli_fmt_bytes(double b, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int k = 0;
	while (fabs(b) >= 1024 && k < 4) {
		b /= 1024;
		k++;
	}
	snprintf(buf, len, k ? "%.3g %s" : "%.0f %s", b, u[k]);
}

void cli_fmt_count(double v, char *buf, size_t len)
{
	if (v != floor(v) || fabs(v) >= 1e18) {
		snprintf(buf, len, "%.6g", v);
		return;
	}
	char digits[32];
	snprintf(digits, sizeof(digits), "%.0f", fabs(v));
	size_t n = strlen(digits), k = 0;
	if (v < 0 && k + 1 < len)
		buf[k++] = '-';
	for (size_t i = 0; i < n && k + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = 0;
}

void cli_shell_quote(const char *s, FILE *out)
{
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	}
	fputc('\'', out);
}

/* Write @s on @out as one shell word: as it is when it holds only
 * characters no shell treats specially, else single-quoted. */
void cli_shell_word(const char *s, FILE *out)
{
	bool plain = *s != 0;
	for (const char *c = s; *c && plain; c++)
		plain = isalnum((unsigned char)*c) || strchr("_./=:,+-@%", *c);
	if (plain)
		fputs(s, out);
	else
		cli_shell_quote(s, out);
}
