/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ini.c - the INI line scanner (see ini.h). */
#include "ini.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *sim_ini_trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	char *e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

const char *sim_ini_shown(const char *s, char *buf, size_t len)
{
	size_t k = 0;
	for (; *s && k + 4 < len && k < 60; s++)
		buf[k++] = isprint((unsigned char)*s) ? *s : '?';
	if (*s && k + 4 < len) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = 0;
	return buf;
}

int sim_ini_scan(const char *name, const char *buf, size_t len, const sim_ini_handlers *h,
		 void *ctx, char *err, size_t errlen)
{
	char got[80], where[1100], *line = NULL, *section = calloc(1, 1);
	int rc = section ? 0 : -1;
	size_t pos = 0;
	for (unsigned lineno = 1; pos < len && rc == 0; lineno++) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		free(line);
		if (!(line = malloc(ll + 1))) {
			rc = SIM_ENOMEM;
			break;
		}
		memcpy(line, buf + pos, ll);
		line[ll] = 0;
		pos += ll + 1;
		/* A path too long for the messages keeps its end: the file's
		 * name and the line survive any buffer. */
		size_t namelen = strlen(name);
		if (namelen > SIM_INI_WHERE_PATH)
			snprintf(where, sizeof(where), "...%s:%u", name + namelen - SIM_INI_WHERE_PATH,
				 lineno);
		else
			snprintf(where, sizeof(where), "%s:%u", name, lineno);
		if (strlen(line) != ll) {
			snprintf(err, errlen, "%s: line contains a NUL byte", where);
			rc = SIM_EINPUT;
			break;
		}
		char *s = sim_ini_trim(line);
		if (!*s || *s == ';' || *s == '#')
			continue;
		if (*s == '[') {
			char *close = strchr(s, ']');
			char *rest = close ? sim_ini_trim(close + 1) : NULL;
			if (!close || (*rest && *rest != ';' && *rest != '#')) {
				snprintf(err, errlen, "%s: expected \"[section]\", got \"%s\"", where,
					 sim_ini_shown(s, got, sizeof(got)));
				rc = SIM_EINPUT;
				break;
			}
			*close = 0;
			char *sec = sim_ini_trim(s + 1);
			free(section);
			if (!(section = strdup(sec))) {
				rc = -1;
				break;
			}
			rc = h->section(ctx, sec, where, err, errlen);
			continue;
		}
		char *eq = strchr(s, '=');
		if (!eq) {
			snprintf(err, errlen, "%s: expected \"key = value\" or \"[section]\", got \"%s\"",
				 where, sim_ini_shown(s, got, sizeof(got)));
			rc = SIM_EINPUT;
			break;
		}
		*eq = 0;
		char *key = sim_ini_trim(s), *val = eq + 1;
		/* An inline comment starts at ';' or '#' after white space. */
		for (char *c = val; *c; c++)
			if ((*c == ';' || *c == '#') && (c == val || c[-1] == ' ' || c[-1] == '\t')) {
				*c = 0;
				break;
			}
		val = sim_ini_trim(val);
		if (!*key) {
			snprintf(err, errlen, "%s: expected \"key = value\", got no key", where);
			rc = SIM_EINPUT;
			break;
		}
		rc = h->key(ctx, section, key, val, where, err, errlen);
	}
	if (rc == SIM_ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(line);
	free(section);
	return rc;
}

int sim_ini_read_file(const char *path, char **out, size_t *outlen, char *err, size_t errlen)
{
	/* Opened without waiting (a FIFO with no writer would block the open
	 * for ever), then looked at before it is read. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return errno == EISDIR ? SIM_EINPUT : SIM_ENOFILE;
	}
	if (fstat(fd, &st) || S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "%s: %s: a scenario is a file", path,
			 S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		close(fd);
		return SIM_EINPUT;
	}
	/* A pipe (a FIFO, or the shell's <(...)) is read as it comes; one with
	 * no writer reads as empty at once. */
	bool fifo = S_ISFIFO(st.st_mode);
	FILE *f = fcntl(fd, F_SETFL, 0) ? NULL : fdopen(fd, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		close(fd);
		return SIM_ENOFILE;
	}
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap && cap >= SIM_INI_MAX_FILE) {
			/* A scenario is a few KiB; this is not one (/dev/zero?). */
			fclose(f);
			free(buf);
			snprintf(err, errlen, "%s: more than %d MiB: not a scenario", path,
				 SIM_INI_MAX_FILE >> 20);
			return SIM_EINPUT;
		}
		if (n == cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (!buf || bad) {
		free(buf);
		snprintf(err, errlen, "%s: %s", path, bad ? "read error" : "out of memory");
		return bad ? SIM_EIO : SIM_ENOMEM;
	}
	if (fifo && n == 0) {
		free(buf);
		snprintf(err, errlen, "%s: a FIFO with nothing to read (no writer): not a scenario", path);
		return SIM_EINPUT;
	}
	*out = buf;
	*outlen = n;
	return 0;
}
