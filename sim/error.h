/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * error.h - the one error type of rcusim. Every function of the engine,
 * the models and the recorder that can fail returns SIM_OK or one of these
 * negative codes, each meaning one cause, with a message in the caller's
 * buffer where it takes one. The code travels up unchanged to the command
 * line, where cli_exit_status() alone turns it into the exit status that
 * docs/reference.md lists: 2 bad input, 3 I/O, database or resources, 4 a
 * failed model check, 128 + signal.
 */
#ifndef RCUSIM_SIM_ERROR_H
#define RCUSIM_SIM_ERROR_H

typedef enum sim_err {
	SIM_OK = 0,
	SIM_ENOMEM = -1,   /* out of memory: exit status 3 */
	SIM_EINPUT = -2,   /* bad input (scenario text, value, option, parameters that do not fit): 2 */
	SIM_ESTOPPED = -3, /* stopped by a signal before its end: 128 + the signal */
	SIM_EIO = -4,      /* a file or the database failed (SQLite, disk, lock): 3 */
	SIM_ENEWER = -5,   /* a database of a newer schema than this rcusim knows: 3 */
	SIM_ENORUN = -6,   /* no such run in the database: 2 */
	SIM_ECHECK = -7,   /* a model check, conservation law or invariant failed: 4 */
	SIM_EMETRIC = -8,  /* a metric missing from the registry (a bug): 4 */
	SIM_ENOFILE = -9,  /* an input file (scenario, include) cannot be read: 2 */
} sim_err;

/* A short name for @err ("out of memory", "bad input", ...). */
static inline const char *sim_err_name(int err)
{
	switch (err) {
	case SIM_OK: return "success";
	case SIM_ENOMEM: return "out of memory";
	case SIM_EINPUT: return "bad input";
	case SIM_ESTOPPED: return "stopped";
	case SIM_EIO: return "I/O or database failure";
	case SIM_ENEWER: return "database of a newer schema";
	case SIM_ENORUN: return "no such run";
	case SIM_ECHECK: return "model check failed";
	case SIM_EMETRIC: return "metric not in the registry";
	case SIM_ENOFILE: return "file cannot be read";
	default: return "unknown error";
	}
}

#endif
