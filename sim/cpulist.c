/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cpulist.c - CPU lists as parameters give them (cpulist.h): the kernel's
 * grammar of bitmap_parselist() (lib/bitmap-str.c of Linux 6.12, with
 * _parse_integer() of lib/kstrtox.c) for rcu.nocbs, and the plain list of
 * distinct CPUs that fault.cpus takes.
 */
#include "cpulist.h"

#include <assert.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"

/* bitmap_getnum() (lib/bitmap-str.c:239-257): "N" is @lastbit, else a
 * decimal unsigned int. The end, or NULL with @why set. */
static const char *cpulist_getnum(const char *s, unsigned *num, unsigned lastbit, const char **why)
{
	if (*s == 'N') {
		*num = lastbit;
		return s + 1;
	}
	/* _parse_integer(s, 10) (lib/kstrtox.c:52-99): digits only, no sign. */
	uint64_t n = 0;
	const char *p = s;
	for (; isdigit((unsigned char)*p); p++) {
		n = n * 10 + (uint64_t)(*p - '0');
		if (n > UINT32_MAX) {
			*why = "number too large";
			return NULL;
		}
	}
	if (p == s) {
		*why = "expected a CPU number, N or all";
		return NULL;
	}
	*num = (unsigned)n;
	return p;
}

/* end_of_str(), __end_of_region() (lib/bitmap-str.c:259-272). */
static bool end_of_str(char c) { return c == '\0' || c == '\n'; }
static bool sep_char(char c) { return isspace((unsigned char)c) || c == ','; }

int sim_cpulist_parse(const char *name, const char *s, int ncpus, bool *mask, char *err, size_t errlen)
{
	assert(ncpus >= 1);
	memset(mask, 0, (size_t)ncpus * sizeof(*mask));
	const unsigned lastbit = (unsigned)ncpus - 1;
	const char *p = s, *why = NULL;
	/* bitmap_parselist() (lib/bitmap-str.c:374-398) and
	 * bitmap_parse_region() (:295-344). */
	for (;;) {
		while (sep_char(*p)) /* bitmap_find_region() */
			p++;
		if (end_of_str(*p))
			return 0;
		const char *at = p;
		unsigned start, end, off, group_len;
		if (!strncasecmp(p, "all", 3)) {
			start = 0;
			end = lastbit;
			p += 3;
		} else {
			if (!(p = cpulist_getnum(p, &start, lastbit, &why)))
				goto bad;
			end = start;
			if (!sep_char(*p) && !end_of_str(*p)) {
				if (*p != '-') {
					why = "expected '-', ':', ',' or the end";
					goto bad;
				}
				if (!(p = cpulist_getnum(p + 1, &end, lastbit, &why)))
					goto bad;
			}
		}
		off = group_len = end + 1;
		if (!sep_char(*p) && !end_of_str(*p)) {
			if (*p != ':') {
				why = "expected ':', ',' or the end";
				goto bad;
			}
			if (!(p = cpulist_getnum(p + 1, &off, lastbit, &why)))
				goto bad;
			if (*p != '/') {
				why = "expected '/' after the used count";
				goto bad;
			}
			if (!(p = cpulist_getnum(p + 1, &group_len, lastbit, &why)))
				goto bad;
		}
		/* bitmap_check_region() (:228-237). */
		if (start > end || group_len == 0 || off > group_len) {
			why = start > end ? "range runs backwards"
					  : "bad used/group sizes (need 0 < group, used <= group)";
			goto bad_region;
		}
		if (end > lastbit) {
			snprintf(err, errlen, "%s=%s: CPU %u does not exist (CPUs 0-%u)", name, s, end,
				 lastbit);
			memset(mask, 0, (size_t)ncpus * sizeof(*mask));
			return SIM_EINPUT;
		}
		/* bitmap_set_region() (:220-226). */
		for (uint64_t b = start; b <= end; b += group_len)
			for (uint64_t k = 0; k < off && b + k <= end; k++)
				mask[b + k] = true;
		continue;
bad_region:
		snprintf(err, errlen, "%s=%s: %s in \"%.*s\"", name, s, why, (int)(p - at), at);
		memset(mask, 0, (size_t)ncpus * sizeof(*mask));
		return SIM_EINPUT;
	}
bad:
	snprintf(err, errlen, "%s=%s: %s at offset %d", name, s, why, (int)(p ? p - s : 0));
	memset(mask, 0, (size_t)ncpus * sizeof(*mask));
	return SIM_EINPUT;
}

int sim_cpulist_parse_distinct(const char *s, int ncpus, int *out, int *n, char *why, size_t whylen)
{
	*n = 0;
	const char *q = s;
	for (;;) {
		char *end;
		while (*q == ' ')
			q++;
		if (*q < '0' || *q > '9') {
			snprintf(why, whylen, "expected a CPU number at \"%s\"", q);
			return -1;
		}
		long a = strtol(q, &end, 10), b = a;
		q = end;
		if (*q == '-') {
			q++;
			if (*q < '0' || *q > '9') {
				snprintf(why, whylen, "expected the end of a CPU range at \"%s\"", q);
				return -1;
			}
			b = strtol(q, &end, 10);
			q = end;
		}
		if (a > b || b >= ncpus) {
			snprintf(why, whylen, "CPUs %ld-%ld: the machine has CPUs 0-%d", a, b, ncpus - 1);
			return -1;
		}
		for (long i = a; i <= b; i++) {
			for (int j = 0; j < *n; j++)
				if (out && out[j] == i) {
					snprintf(why, whylen, "CPU %ld named twice", i);
					return -1;
				}
			if (out)
				out[*n] = (int)i;
			(*n)++;
			if (*n > ncpus) {
				snprintf(why, whylen, "more CPUs than the machine has (%d)", ncpus);
				return -1;
			}
		}
		while (*q == ' ')
			q++;
		if (!*q)
			return 0;
		if (*q != ',') {
			snprintf(why, whylen, "expected ',' at \"%s\"", q);
			return -1;
		}
		q++;
	}
}
