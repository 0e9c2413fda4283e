/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jiffies.h - comparing jiffies that may wrap, after include/linux/jiffies.h
 * (time_after(), time_before()). Jiffies exist only at a model's boundary
 * (STYLE.md): the models that count them (Tree RCU, offloading) compare
 * them here; they are 64-bit and start at 0, where the kernel's start 5
 * minutes before wrapping (INITIAL_JIFFIES).
 */
#ifndef RCUSIM_SIM_JIFFIES_H
#define RCUSIM_SIM_JIFFIES_H

#include <stdbool.h>
#include <stdint.h>

/* time_after(a, b): is jiffy @a after @b (include/linux/jiffies.h:128)? */
static inline bool time_after(int64_t a, int64_t b) { return b - a < 0; }
/* time_before(a, b): is jiffy @a before @b (include/linux/jiffies.h:130)? */
static inline bool time_before(int64_t a, int64_t b) { return a - b < 0; }

#endif
