/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmdline.h - the kernel's own spellings of what rcusim models: boot
 * parameters as Documentation/admin-guide/kernel-parameters.txt (6.12)
 * documents them (rcutree.blimit=1000, rcupdate.rcu_expedited=1,
 * rcu_nocbs=1-63, skew_tick=1, preempt=full, ...), their value syntax
 * (kstrtobool's booleans, jiffies where the kernel takes jiffies, seconds
 * or milliseconds where it does), mapped to rcusim's parameters (cmdline.c).
 */
#ifndef RCUSIM_MODELS_CMDLINE_H
#define RCUSIM_MODELS_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "params.h"

/* A kernel parameter rcusim knows but does not model (rcutree.gp_init_delay,
 * nohz_full, root, quiet, ...): rcusim_set() returns it with the message. */
#define RCUSIM_KP_UNMODELLED 1
/* A value the kernel refuses without stopping (rcutree.enable_rcu_lazy=,
 * empty: kstrtobool("") is -EINVAL), so that the parameter keeps its value:
 * rcusim_set() returns it, @p unchanged, with the warning in @err. */
#define RCUSIM_KP_KEPT 2

/* Apply "KEY=VALUE" (or a bare KEY, as the kernel takes "rcu_nocbs") to @p:
 * an rcusim parameter (section.key), or a kernel boot parameter mapped to
 * one, the value as the kernel reads it. @origin ("--set", "--cmdline")
 * prefixes messages and, with the kernel name, the value's origin.
 * 0; SIM_EINPUT (a bad value, an unknown key with the nearest names
 * suggested); RCUSIM_KP_UNMODELLED; RCUSIM_KP_KEPT; SIM_ENOMEM. Message
 * in @err. */
int rcusim_set(sim_params *p, const char *assignment, const char *origin, char *err, size_t errlen);

/* Apply a whole kernel command line (words separated by blanks outside
 * double quotes, unquoted as the kernel's next_arg() does): each modelled
 * word as rcusim_set(); the words rcusim does not model are listed,
 * blank-separated, in @ignored (room @ilen) and skipped, except those that
 * would change what it models (threadirqs, rcu_nocb_poll, isolcpus,
 * rcutree.gp_init_delay, ...), which are skipped with a warning saying
 * what they would change; the words the kernel would refuse and boot on
 * (RCUSIM_KP_KEPT, a second nohz_full= that differs from the first) are
 * skipped with a warning. Warnings go one a line in @warn (room @wlen). 0 or an error as rcusim_set()'s (never
 * RCUSIM_KP_UNMODELLED or RCUSIM_KP_KEPT). */
int rcusim_set_cmdline(sim_params *p, const char *cmdline, const char *origin, char *ignored,
		       size_t ilen, char *warn, size_t wlen, char *err, size_t errlen);

/* "; did you mean a, b?" for an unknown @key (nearest rcusim and kernel
 * names), or "" if none is near, into @buf. */
void rcusim_param_suggest(const char *key, char *buf, size_t len);
/* The rcusim parameter kernel parameter @kernel maps to, or NULL. */
const char *rcusim_kernel_param_target(const char *kernel);

/* The kernel parameters rcusim maps, one "kernel -> rcusim: meaning" line
 * each, to @out (rcusim params --kernel). */
void rcusim_kernel_params_print(void *out);

#endif
