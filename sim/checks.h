/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * checks.h - invariant checks for the engine and the models.
 * RCUSIM_CHECK(cond, "name") asserts an invariant where it can break (the
 * engine's event order; in the models a lazy softirq run settled before its
 * CPU is touched, callback list layouts, conservation at every sample). Built with -DRCUSIM_CHECKS=ON (the
 * ASan/UBSan build of scripts/test.sh has them on), a failed check prints
 * the invariant's name with the file and line and aborts: it is a bug in
 * rcusim, never bad input. Off (the Release default), the condition is not
 * evaluated and costs nothing.
 */
#ifndef RCUSIM_SIM_CHECKS_H
#define RCUSIM_SIM_CHECKS_H

#include <stdbool.h>

/* Report the failed invariant @name at @file:@line on stderr and abort. */
_Noreturn void rcusim_check_failed(const char *name, const char *file, int line);

#ifdef RCUSIM_CHECKS
#define RCUSIM_CHECKS_ON true
#define RCUSIM_CHECK(cond, name) \
	((cond) ? (void)0 : rcusim_check_failed((name), __FILE__, __LINE__))
#else
#define RCUSIM_CHECKS_ON false
/* Not evaluated; sizeof keeps what it names used. */
#define RCUSIM_CHECK(cond, name) ((void)sizeof(!(cond)))
#endif

#endif
