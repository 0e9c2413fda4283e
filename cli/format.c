/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * format.c - how values are written for a reader: times, sizes and counts
 * in human form ("12.3 ms", "1.50 MiB", "1,234,567"), and any text as one
 * word for a POSIX shell, a CSV field, a Markdown table cell or a JSON
 * string; whether text is UTF-8; and the monotonic clock elapsed times are
 * read from.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
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

/* @v with @dec decimals, its integer part's digits grouped by commas
 * ("1,234,567.5"). */
static void fmt_grouped(double v, int dec, char *buf, size_t len)
{
	char digits[48];
	snprintf(digits, sizeof(digits), "%.*f", dec, fabs(v));
	size_t n = strcspn(digits, "."), k = 0;
	if (v < 0 && strspn(digits, "0.") != strlen(digits) && k + 1 < len)
		buf[k++] = '-';
	for (size_t i = 0; digits[i] && k + 2 < len; i++) {
		if (i && i < n && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = 0;
}

void cli_fmt_count(double v, char *buf, size_t len)
{
	if (fabs(v) >= 1e18 || !isfinite(v)) {
		snprintf(buf, len, "%.6g", v);
		return;
	}
	if (v != floor(v)) {
		/* a mean or a rate: whole above a thousand, else four digits */
		if (fabs(v) >= 1e3)
			fmt_grouped(v, 0, buf, len);
		else
			snprintf(buf, len, "%.4g", v);
		return;
	}
	fmt_grouped(v, 0, buf, len);
}

/* A count's mean @m and its interval's half-width @hw as "m ± hw", both
 * to the interval's second significant digit ("14,775 ± 718", "2.50 ±
 * 0.71"); a zero interval, "m ± 0". */
void cli_fmt_count_pm(double m, double hw, char *buf, size_t len)
{
	if (!(hw > 0) || !isfinite(hw) || fabs(m) >= 1e18) {
		cli_fmt_count(m, buf, len);
		size_t l = strlen(buf);
		snprintf(buf + l, len - l, " \u00b1 0");
		return;
	}
	int dec = 1 - (int)floor(log10(hw));
	if (dec < 0)
		dec = 0;
	if (dec > 6)
		dec = 6;
	fmt_grouped(m, dec, buf, len);
	size_t l = strlen(buf);
	snprintf(buf + l, len - l, " \u00b1 ");
	l = strlen(buf);
	fmt_grouped(hw, dec, buf + l, len - l);
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

long cli_utf8_bad(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; p[i];) {
		unsigned c = p[i];
		size_t n = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 9;
		if (n == 9 || c == 0xc0 || c == 0xc1 || c > 0xf4)
			return (long)i;
		uint32_t cp = n ? c & (0x3fu >> n) : c;
		for (size_t k = 1; k <= n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return (long)i;
			cp = cp << 6 | (p[i + k] & 0x3fu);
		}
		/* Overlong forms, UTF-16 surrogates, past U+10FFFF. */
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
		    cp > 0x10ffff)
			return (long)i;
		i += n + 1;
	}
	return -1;
}

bool cli_label_ok(const char *cmd, const char *opt, const char *label)
{
	long at = label ? cli_utf8_bad(label) : -1;
	if (at < 0)
		return true;
	fprintf(stderr, "rcusim %s: %s: not UTF-8 text (byte %ld is 0x%02x): a run's label is text every output "
			"(JSON, CSV, Markdown, a scenario file) can hold\n",
		cmd, opt, at + 1, (unsigned char)label[at]);
	return false;
}

void cli_csv_field(const char *s, FILE *out)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void cli_md_cell(const char *s, FILE *out)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("<br>", out);
		else if (*s != '\r')
			fputc(*s, out);
	}
}

void cli_json_str(const char *s, FILE *out)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		long bad = cli_utf8_bad((const char *)p);
		if (bad == 0) {
			fputs("\\ufffd", out); /* a byte that is no UTF-8: U+FFFD, as a decoder would */
			continue;
		}
		/* The valid run up to the next bad byte, escaped where JSON says. */
		const unsigned char *end = bad > 0 ? p + bad : p + strlen((const char *)p);
		for (; p < end; p++) {
			if (*p == '"' || *p == '\\')
				fprintf(out, "\\%c", *p);
			else if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
		p--;
	}
	fputc('"', out);
}
