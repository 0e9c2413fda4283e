/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * params.h - the parameter registry and the scenario (INI) reader.
 *
 * A registry is a table of sim_param_def supplied by the caller (models/
 * owns rcusim's table). A sim_params holds one value per definition,
 * starting from the defaults; scenario files and KEY=VALUE overrides change
 * them, each validated against its definition: type, unit, range, choices.
 *
 * Values with units are written with them: times 250ns 10us 1ms 2s 5min 1h,
 * sizes 192B 8KiB 16GiB, rates 1000/s, frequencies 1.2GHz. A bare number for
 * a time, size, rate or frequency is an error; units are never guessed.
 */
#ifndef RCUSIM_SIM_PARAMS_H
#define RCUSIM_SIM_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

typedef enum sim_ptype {
	SIM_P_INT,    /* integer count */
	SIM_P_REAL,   /* real number */
	SIM_P_TIME,   /* duration, canonical ns (int64) */
	SIM_P_SIZE,   /* size, canonical bytes (int64) */
	SIM_P_RATE,   /* events per time, canonical per second (double) */
	SIM_P_FREQ,   /* frequency, canonical Hz (double) */
	SIM_P_ENUM,   /* one of a fixed list of words; value = index */
	SIM_P_BOOL,   /* yes/no */
	SIM_P_STRING, /* free text */
} sim_ptype;

#define SIM_PF_AUTO 1u  /* accepts "auto": a default derived from other parameters */
#define SIM_PF_POW2 2u  /* value must be a power of two */
#define SIM_PF_RUN 4u   /* in SIM_LOAD_SECTION, but the run's: no load has a copy */

/* Loads: a scenario's [SIM_LOAD_SECTION] is its main load; each
 * [SIM_LOAD_SECTION.NAME] section adds one more, with its own copy of every
 * SIM_LOAD_SECTION parameter (but SIM_PF_RUN ones), named
 * SIM_LOAD_SECTION.NAME.key (workload.hogs.jobs), starting from the
 * registry's defaults (not from [SIM_LOAD_SECTION]'s values). Its
 * parameters follow the registry's in the value set (index P_COUNT on). */
#define SIM_LOAD_SECTION "workload"
#define SIM_LOADS_MAX 14    /* named loads in one scenario (a callback's object has 4 bits for
			    * its load: 1-14, and 15 for the box's own, models/workloads/workload.h) */
#define SIM_LOAD_NAME_MAX 32 /* characters of a load's name */

typedef struct sim_param_def {
	const char *name;    /* "section.key" */
	sim_ptype type;      /* how the value is written and stored */
	const char *def;     /* default, as it would be written in a scenario */
	double min, max;     /* allowed range in canonical units (ignored for ENUM/BOOL/STRING) */
	const char *choices; /* ENUM only: "a|b|c" */
	unsigned flags;      /* SIM_PF_* */
	const char *unit;    /* what is counted, for the listing ("callbacks", "tasks") */
	const char *meaning; /* one line */
	const char *source;  /* where the default comes from: kernel file and version,
				publication, measurement, or "modelling choice: why" */
} sim_param_def;

typedef struct sim_params sim_params;

/* Errors returned by the functions below (message in the caller's buffer):
 * SIM_EINPUT (bad scenario text or value), SIM_ENOFILE (a file could not be
 * read), SIM_ENOMEM; see error.h. */

/* Create a value set holding every default of @defs (which must outlive it).
 * A default that does not parse is a bug in the table: returns
 * SIM_EINPUT naming it. */
int sim_params_create(sim_params **out, const sim_param_def *defs, size_t ndefs, char *err,
		      size_t errlen);
/* NULL is a no-op. */
void sim_params_destroy(sim_params *p);

/* Read a scenario file (and what it includes) over the current values. */
int sim_params_load_file(sim_params *p, const char *path, char *err, size_t errlen);
/* Add @dir to the folders a relative include that is not beside the file
 * including it is looked for in, in the order added; @what (static) names
 * it in the message of a miss, which lists every place looked. 0 or
 * SIM_ENOMEM. */
int sim_params_search_add(sim_params *p, const char *dir, const char *what);
/* File @i of those sim_params_load_file() has read, in the order read
 * (the scenario, then each file it includes, as opened), NULL past the
 * last. */
const char *sim_params_file(const sim_params *p, size_t i);
/* The same for text in memory; @name is used in messages and to resolve
 * includes (relative to its folder). */
int sim_params_load_buffer(sim_params *p, const char *name, const char *buf, size_t len,
			   char *err, size_t errlen);
/* Apply one "section.key=value" override (as given to --set). */
int sim_params_set(sim_params *p, const char *assignment, char *err, size_t errlen);
/* Set @name to @value; @origin names where it came from in messages. */
int sim_params_set_value(sim_params *p, const char *name, const char *value,
			 const char *origin, char *err, size_t errlen);

/* Add a load named @name (1-32 of a-z, 0-9, _; not "main"), its
 * parameters at their defaults; @origin ("FILE:LINE") for messages.
 * SIM_EINPUT for a bad or a second name (naming the first's origin), more
 * than SIM_LOADS_MAX; SIM_ENOMEM. */
int sim_params_add_load(sim_params *p, const char *name, const char *origin, char *err,
			size_t errlen);
/* The named loads, in the order added. */
size_t sim_params_nloads(const sim_params *p);
const char *sim_params_load_name(const sim_params *p, size_t i);
/* Where load @i's section is ("FILE:LINE"). */
const char *sim_params_load_origin(const sim_params *p, size_t i);
/* The index of load @load's copy of registry parameter @id, or -1 if a
 * load has none (not in SIM_LOAD_SECTION, or SIM_PF_RUN). */
int sim_params_load_param(const sim_params *p, size_t load, size_t id);
/* A value set of the registry's parameters as load @load sees them: its
 * own SIM_LOAD_SECTION values (their definitions named as the load's,
 * "workload.hogs.jobs", for messages), every other one @p's. For the
 * model to build and check a load with the code that reads [workload].
 * The caller destroys it; it holds no loads. 0 or SIM_ENOMEM. */
int sim_params_load_view(const sim_params *p, size_t load, sim_params **out);
/* The definition of @name in @defs, a load's parameter
 * (SIM_LOAD_SECTION.NAME.key) as its registry entry; NULL if none. */
const sim_param_def *sim_param_def_find(const sim_param_def *defs, size_t ndefs, const char *name);

size_t sim_params_count(const sim_params *p);
const sim_param_def *sim_params_def(const sim_params *p, size_t i);
/* Index of @name, or -1. */
int sim_params_index(const sim_params *p, const char *name);

/* The value as written (after trimming), e.g. "10ms" or "auto"; for an
 * ENUM the chosen word, for a STRING the text. */
const char *sim_params_text(const sim_params *p, size_t i);
/* Where the value came from: "default", "FILE:LINE" or "--set". */
const char *sim_params_origin(const sim_params *p, size_t i);
/* Set by a file that another one includes (a kernel or machine preset,
 * a scenario built upon), not by the file read first or by --set. */
bool sim_params_preset(const sim_params *p, size_t i);
bool sim_params_is_auto(const sim_params *p, size_t i);
/* Where parameter @i was set, for messages, into @buf: "FILE:LINE: name",
 * "--set: name", or "name (default)". */
void sim_params_where(const sim_params *p, size_t i, char *buf, size_t len);
/* A path @value set at @origin ("FILE:LINE", or "--set"...), as the file
 * that set it means it: relative to that file's folder, else as given.
 * 0, or -1 if it does not fit in @len. */
int sim_params_resolve_path(const char *value, const char *origin, char *out, size_t len);
/* Was @i set by the user: on the command line (--set, whatever the value),
 * or away from its default by the scenario itself (not by an included
 * preset, nor a file's default written out, as `rcusim params --format
 * ini` writes every one)? */
bool sim_params_set_by_scenario(const sim_params *p, size_t i);
/* INT, TIME (ns), SIZE (bytes), BOOL (0/1), ENUM (index). 0 when auto. */
int64_t sim_params_int(const sim_params *p, size_t i);
/* REAL, RATE (/s), FREQ (Hz); INT/TIME/SIZE converted. 0 when auto. */
double sim_params_real(const sim_params *p, size_t i);

/* ---- which knobs apply ------------------------------------------------------
 * Each part of a model (a scheduler, an RCU flavor, a workload kind) names
 * the knobs it reads in a table (sim_knobs) and when it is in the run; a
 * knob that the user set (sim_params_set_by_scenario(): with --set, or in
 * the scenario file itself unless the file writes out its default) and
 * that no part in the run reads is refused, whatever its value. */

/* A condition on one ENUM or BOOL parameter. */
typedef struct sim_param_when {
	int param;           /* the parameter whose value decides; -1: always holds */
	const char *choices; /* the values for which it holds, "a|b" (BOOL: yes, no); "!a": all but a */
	const char *what;    /* for messages, or NULL: "param = a or b" */
} sim_param_when;

/* The condition that always holds. */
#define SIM_ALWAYS { -1, NULL, NULL }

/* A knob a part reads, and when (besides the part being in the run). */
typedef struct sim_knob {
	int id;              /* the knob */
	sim_param_when when; /* param -1: whenever the part is in the run */
} sim_knob;

/* The knobs one part reads. */
typedef struct sim_knobs {
	sim_param_when in;   /* when the part is in the run (param -1: always) */
	const sim_knob *knob; /* its knobs */
	size_t n;            /* how many */
} sim_knobs;

/* Does @w hold for the values of @p? */
bool sim_params_when(const sim_params *p, const sim_param_when *w);
/* Refuse the first knob (in the registry's order) that a table of @parts
 * names, that the user set, and that no part in the run reads with these
 * values: SIM_EINPUT with "WHERE:
 * applies only with WHAT, and PARAM is VALUE (ORIGIN)", naming the
 * condition that failed (of an owner in the run, else the owners' "in"
 * together); else 0. */
int sim_params_check_knobs(const sim_params *p, const sim_knobs *const *parts, size_t nparts,
			   char *err, size_t errlen);
/* The same for the parameters @only[id] marks (of @nonly) only. */
int sim_params_check_knobs_only(const sim_params *p, const sim_knobs *const *parts, size_t nparts,
				const bool *only, size_t nonly, char *err, size_t errlen);
/* Does a part in the run read knob @id with these values (or does no table
 * of @parts name it)? */
bool sim_params_knob_applies(const sim_params *p, const sim_knobs *const *parts, size_t nparts, size_t id);

/* Listing formats for `rcusim params`. */
typedef enum sim_params_format { SIM_PARAMS_TEXT, SIM_PARAMS_INI, SIM_PARAMS_MD } sim_params_format;
/* Print every definition: name, default, unit, meaning, source (as Markdown,
 * with '|' and '*' escaped in the cells). */
void sim_params_print(const sim_param_def *defs, size_t ndefs, sim_params_format fmt, FILE *out);

/* Parse @text as a value of @def without storing it (for tests and tools).
 * On success fills *i or *d per type and returns 0; *is_auto says "auto". */
int sim_param_parse(const sim_param_def *def, const char *text, int64_t *i, double *d,
		    bool *is_auto, char *why, size_t whylen);

#endif
