/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ini.h - the INI line scanner shared by scenario files and regression
 * baselines: [section] headers, key = value lines, ';' and '#' comments
 * (inline after white space), errors as "FILE:LINE: what".
 */
#ifndef RCUSIM_SIM_INI_H
#define RCUSIM_SIM_INI_H

#include <stddef.h>

#include "error.h"

typedef struct sim_ini_handlers {
	/* A [section] header (trimmed name). Return 0, or a negative error
	 * with the message in @err. */
	int (*section)(void *ctx, const char *name, const char *where, char *err, size_t errlen);
	/* key = value in @section ("" before any header). */
	int (*key)(void *ctx, const char *section, const char *key, const char *value,
		   const char *where, char *err, size_t errlen);
} sim_ini_handlers;


/* Scan @buf (@len bytes, named @name in messages), calling @h for each
 * header and key. @where passed to the handlers is "NAME:LINE". Returns 0,
 * SIM_EINPUT (malformed text), SIM_ENOMEM, or the first handler error. */
int sim_ini_scan(const char *name, const char *buf, size_t len, const sim_ini_handlers *h,
		 void *ctx, char *err, size_t errlen);

/* Trim blanks (and a trailing CR) off @s in place; returns its start. */
char *sim_ini_trim(char *s);
/* @s for a message, into @buf: at most 60 characters, non-printing bytes
 * as '?', "..." if cut. Returns @buf. */
const char *sim_ini_shown(const char *s, char *buf, size_t len);

/* bytes of a file's path kept in a "FILE:LINE" (its end, after "..."):
 * short enough that a message with its key and value fits the callers'
 * 1 KiB buffers */
#define SIM_INI_WHERE_PATH 400
#define SIM_INI_MAX_FILE (64 << 20) /* bytes: larger files are refused */

/* Read the whole file at @path into a malloc'd buffer (at most
 * SIM_INI_MAX_FILE). Returns 0, or
 * SIM_ENOFILE ("PATH: cannot read: REASON" in @err), SIM_EIO (a read
 * error) or SIM_ENOMEM. */
int sim_ini_read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen);

#endif
