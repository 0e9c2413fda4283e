/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * params.c - parameter values, unit parsing and the INI scenario reader.
 *
 * Numbers with units are parsed in fixed point (up to 24 significant
 * digits) so that "1.5ms" is exactly 1500000 ns; a value that is not a whole
 * number of the canonical unit ("0.5ns") is rejected rather than rounded.
 */
#include "params.h"

#include "ini.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_INCLUDE_DEPTH 8
#define MAX_DIGITS 24

typedef struct pval {
	char *text;   /* value as written */
	char *origin; /* "default", "FILE:LINE", "--set" */
	bool is_auto; /* "auto" */
	bool preset;  /* set by an included file */
	int64_t i;    /* INT/TIME/SIZE/BOOL/ENUM */
	double d;     /* REAL/RATE/FREQ, and i converted */
} pval;

/* A load: a [workload.NAME] section (SIM_LOAD_SECTION), with its own
 * copy of every per-load parameter, SIM_LOAD_SECTION.NAME.key. */
typedef struct pload {
	char *name;   /* NAME */
	char *origin; /* "FILE:LINE" of its section, or who added it */
	size_t first; /* index of its first parameter */
} pload;

struct sim_params {
	const sim_param_def *defs; /* the registry (not owned; a view's own copy, view_names) */
	size_t nbase;              /* its definitions */
	size_t n;                  /* definitions: the registry's, then each load's */
	pval *v;                   /* one value per definition */
	sim_param_def *ldefs;      /* the loads' definitions (n - nbase), names owned */
	int *lmap;                 /* per registry entry: its place in a load's block, or -1 */
	size_t nper;               /* parameters in a load's block */
	pload *loads;              /* the loads, in the order their sections came */
	size_t nloads;
	char **view_names;         /* a view (sim_params_load_view()): its renamed names, owned */
	char **files;              /* the files read: the scenario, then its includes */
	size_t nfiles;
	char **search;             /* folders a relative include is looked for in, after its file's */
	const char **search_what;  /* what each is, for a miss's message ("RCUSIM_PATH") */
	size_t nsearch;
};

static void errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Definition @k: the registry's, or a load's. */
static const sim_param_def *def_at(const sim_params *p, size_t k)
{
	return k < p->nbase ? &p->defs[k] : &p->ldefs[k - p->nbase];
}

/* ---- units ------------------------------------------------------------ */

typedef struct unit {
	const char *name; /* suffix */
	int64_t mult;     /* canonical units per one */
} unit;

static const unit time_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	{ "min", INT64_C(60000000000) }, { "h", INT64_C(3600000000000) }, { NULL, 0 },
};
static const unit size_units[] = {
	{ "B", 1 }, { "KiB", 1 << 10 }, { "MiB", 1 << 20 }, { "GiB", INT64_C(1) << 30 },
	{ "TiB", INT64_C(1) << 40 }, { NULL, 0 },
};
static const unit rate_units[] = { /* per: divide the count by this many seconds */
	{ "/ns", -1000000000 }, { "/us", -1000000 }, { "/ms", -1000 }, { "/s", 1 },
	{ "/min", 60 }, { "/h", 3600 }, { NULL, 0 },
};
static const unit freq_units[] = {
	{ "Hz", 1 }, { "kHz", 1000 }, { "MHz", 1000000 }, { "GHz", 1000000000 }, { NULL, 0 },
};

/* Parse an optionally signed decimal with optional fraction at @s: the
 * digits as an integer in *num and the count of fraction digits in *frac.
 * Returns the end, or NULL if there is no number or too many digits. */
static const char *parse_fixed(const char *s, __int128 *num, int *frac)
{
	bool neg = false, dot = false;
	int seen = 0, significant = 0, fd = 0;
	__int128 v = 0;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	for (;; s++) {
		if (*s >= '0' && *s <= '9') {
			seen++;
			if ((v != 0 || *s != '0') && ++significant > MAX_DIGITS)
				return NULL;
			if (dot && fd >= MAX_DIGITS)
				return NULL;
			v = v * 10 + (*s - '0');
			if (dot)
				fd++;
		} else if (*s == '.' && !dot) {
			dot = true;
		} else {
			break;
		}
	}
	if (!seen)
		return NULL;
	*num = neg ? -v : v;
	*frac = fd;
	return s;
}

static const unit *find_unit(const unit *u, const char *s)
{
	for (; u->name; u++)
		if (!strcmp(u->name, s))
			return u;
	return NULL;
}

static const char *unit_list(sim_ptype t)
{
	switch (t) {
	case SIM_P_TIME:
		return "ns, us, ms, s, min, h";
	case SIM_P_SIZE:
		return "B, KiB, MiB, GiB, TiB";
	case SIM_P_RATE:
		return "/s, /ms, /us, /ns, /min, /h";
	case SIM_P_FREQ:
		return "Hz, kHz, MHz, GHz";
	default:
		return "";
	}
}

/* Format a canonical integer value of a TIME or SIZE in its largest exact
 * unit ("3600000000000" ns -> "1h"). */
static void fmt_exact(sim_ptype t, double v, char *buf, size_t len)
{
	const unit *u = t == SIM_P_TIME ? time_units : size_units;
	const unit *best = u;
	if (v >= 9.2e18 || v <= -9.2e18) {
		snprintf(buf, len, "%g%s", v, u->name);
		return;
	}
	int64_t x = (int64_t)v;
	for (; u->name; u++)
		if (x != 0 && x % u->mult == 0)
			best = u;
	snprintf(buf, len, "%lld%s", (long long)(x / best->mult), best->name);
}

static void fmt_bound(const sim_param_def *def, double v, char *buf, size_t len)
{
	switch (def->type) {
	case SIM_P_TIME:
	case SIM_P_SIZE:
		fmt_exact(def->type, v, buf, len);
		break;
	case SIM_P_RATE:
		snprintf(buf, len, "%g/s", v);
		break;
	case SIM_P_FREQ:
		snprintf(buf, len, "%gHz", v);
		break;
	default:
		snprintf(buf, len, "%.15g", v);
		break;
	}
}

static const char *type_word(const sim_param_def *def)
{
	switch (def->type) {
	case SIM_P_INT:
		if (def->min >= 1)
			return "a positive integer";
		if (def->min >= 0)
			return "a non-negative integer";
		return "an integer";
	case SIM_P_REAL:
		return "a number";
	case SIM_P_TIME:
		return "a time with a unit";
	case SIM_P_SIZE:
		return "a size with a unit";
	case SIM_P_RATE:
		return "a rate with a unit";
	case SIM_P_FREQ:
		return "a frequency with a unit";
	case SIM_P_BOOL:
		return "yes or no";
	case SIM_P_ENUM:
		return "one of";
	case SIM_P_STRING:
		return "a non-empty text";
	}
	return "a value";
}

/* Describe what @def accepts, for messages. */
static void expected(const sim_param_def *def, char *buf, size_t len)
{
	char lo[48], hi[48];
	const char *autos = def->flags & SIM_PF_AUTO ? " or auto" : "";
	switch (def->type) {
	case SIM_P_ENUM:
		snprintf(buf, len, "one of %s%s", def->choices, autos);
		return;
	case SIM_P_BOOL:
	case SIM_P_STRING:
		snprintf(buf, len, "%s%s", type_word(def), autos);
		return;
	default:
		break;
	}
	fmt_bound(def, def->min, lo, sizeof(lo));
	fmt_bound(def, def->max, hi, sizeof(hi));
	if (def->type == SIM_P_INT || def->type == SIM_P_REAL)
		snprintf(buf, len, "%s in [%s, %s]%s", type_word(def), lo, hi, autos);
	else
		snprintf(buf, len, "%s (%s) in [%s, %s]%s", type_word(def), unit_list(def->type),
			 lo, hi, autos);
}

static bool is_word_of(const char *choices, const char *w, int64_t *index)
{
	size_t wl = strlen(w);
	int64_t k = 0;
	for (const char *c = choices;; k++) {
		const char *bar = strchr(c, '|');
		size_t cl = bar ? (size_t)(bar - c) : strlen(c);
		if (cl == wl && !strncmp(c, w, wl)) {
			*index = k;
			return true;
		}
		if (!bar)
			return false;
		c = bar + 1;
	}
}

int sim_param_parse(const sim_param_def *def, const char *text, int64_t *iv, double *dv,
		    bool *is_auto, char *why, size_t whylen)
{
	char exp[160], got[80];
	*iv = 0;
	*dv = 0;
	*is_auto = false;
#define BAD() \
	do { \
		expected(def, exp, sizeof(exp)); \
		errf(why, whylen, "expected %s, got \"%s\"", exp, sim_ini_shown(text, got, sizeof(got))); \
		return SIM_EINPUT; \
	} while (0)

	if (!strcmp(text, "auto")) {
		if (!(def->flags & SIM_PF_AUTO))
			BAD();
		*is_auto = true;
		return 0;
	}
	switch (def->type) {
	case SIM_P_STRING:
		if (!*text)
			BAD();
		return 0;
	case SIM_P_BOOL:
		if (!strcmp(text, "yes") || !strcmp(text, "true") || !strcmp(text, "on"))
			*iv = 1;
		else if (!strcmp(text, "no") || !strcmp(text, "false") || !strcmp(text, "off"))
			*iv = 0;
		else
			BAD();
		*dv = (double)*iv;
		return 0;
	case SIM_P_ENUM:
		if (!is_word_of(def->choices, text, iv))
			BAD();
		*dv = (double)*iv;
		return 0;
	case SIM_P_INT:
	case SIM_P_TIME:
	case SIM_P_SIZE: {
		__int128 num;
		int frac;
		const char *end = parse_fixed(text, &num, &frac);
		if (!end)
			BAD();
		int64_t mult = 1;
		if (def->type == SIM_P_INT) {
			if (*end || frac)
				BAD();
		} else {
			const unit *u = find_unit(def->type == SIM_P_TIME ? time_units : size_units,
						  end);
			if (!u) {
				if (!*end) {
					errf(why, whylen,
					     "expected %s (%s), got \"%s\": units are never guessed",
					     type_word(def), unit_list(def->type),
					     sim_ini_shown(text, got, sizeof(got)));
					return SIM_EINPUT;
				}
				BAD();
			}
			mult = u->mult;
		}
		__int128 scaled = num * mult, pow10 = 1;
		for (int k = 0; k < frac; k++)
			pow10 *= 10;
		if (scaled % pow10) {
			expected(def, exp, sizeof(exp));
			errf(why, whylen, "expected %s, got \"%s\": not a whole number of %s", exp,
			     sim_ini_shown(text, got, sizeof(got)),
			     def->type == SIM_P_TIME ? "ns" : "bytes");
			return SIM_EINPUT;
		}
		scaled /= pow10;
		if (scaled > INT64_MAX || scaled < INT64_MIN || (double)scaled < def->min ||
		    (double)scaled > def->max)
			BAD();
		*iv = (int64_t)scaled;
		*dv = (double)*iv;
		if ((def->flags & SIM_PF_POW2) && (*iv <= 0 || (*iv & (*iv - 1)))) {
			errf(why, whylen, "expected a power of two, got \"%s\"",
			     sim_ini_shown(text, got, sizeof(got)));
			return SIM_EINPUT;
		}
		return 0;
	}
	case SIM_P_REAL:
	case SIM_P_RATE:
	case SIM_P_FREQ: {
		if (!*text || isspace((unsigned char)*text))
			BAD();
		/* Only plain decimals: no hex, inf or nan from strtod. */
		for (const char *c = text; *c && !(def->type != SIM_P_REAL && (isalpha((unsigned char)*c) || *c == '/')); c++)
			if (!(isdigit((unsigned char)*c) || *c == '.' || *c == '-' || *c == '+' ||
			      *c == 'e' || *c == 'E'))
				BAD();
		errno = 0;
		char *end;
		double v = strtod(text, &end);
		if (end == text || errno == ERANGE || !isfinite(v))
			BAD();
		if (def->type == SIM_P_REAL) {
			if (*end)
				BAD();
		} else {
			const unit *u = find_unit(def->type == SIM_P_RATE ? rate_units : freq_units,
						  end);
			if (!u) {
				if (!*end) {
					errf(why, whylen,
					     "expected %s (%s), got \"%s\": units are never guessed",
					     type_word(def), unit_list(def->type),
					     sim_ini_shown(text, got, sizeof(got)));
					return SIM_EINPUT;
				}
				BAD();
			}
			if (def->type == SIM_P_FREQ)
				v *= (double)u->mult;
			else /* a rate: per mult seconds, or per 1/-mult of a second */
				v = u->mult > 0 ? v / (double)u->mult : v * (double)-u->mult;
			if (!isfinite(v))
				BAD();
		}
		if (v < def->min || v > def->max)
			BAD();
		*dv = v;
		*iv = (int64_t)v;
		return 0;
	}
	}
	BAD();
#undef BAD
}

/* ---- value set -------------------------------------------------------- */

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* Store @text (already validated into iv, dv, is_auto) in slot @k. */
static int store(sim_params *p, size_t k, const char *text, const char *origin, int64_t iv,
		 double dv, bool is_auto)
{
	char *t = xstrdup(text), *o = xstrdup(origin);
	if (!t || !o) {
		free(t);
		free(o);
		return SIM_ENOMEM;
	}
	free(p->v[k].text);
	free(p->v[k].origin);
	p->v[k] = (pval){ .text = t, .origin = o, .is_auto = is_auto, .i = iv, .d = dv };
	return 0;
}

int sim_params_create(sim_params **out, const sim_param_def *defs, size_t ndefs, char *err,
		      size_t errlen)
{
	sim_params *p = calloc(1, sizeof(*p));
	if (!p)
		goto nomem;
	p->defs = defs;
	p->n = p->nbase = ndefs;
	p->v = calloc(ndefs ? ndefs : 1, sizeof(*p->v));
	p->lmap = malloc((ndefs ? ndefs : 1) * sizeof(*p->lmap));
	if (!p->v || !p->lmap)
		goto nomem;
	/* A load's block: every SIM_LOAD_SECTION parameter but the run's own. */
	size_t sl = strlen(SIM_LOAD_SECTION);
	for (size_t k = 0; k < ndefs; k++)
		p->lmap[k] = !strncmp(defs[k].name, SIM_LOAD_SECTION, sl) && defs[k].name[sl] == '.' &&
				     !(defs[k].flags & SIM_PF_RUN)
				     ? (int)p->nper++
				     : -1;
	for (size_t k = 0; k < ndefs; k++) {
		int64_t iv;
		double dv;
		bool a;
		char why[256];
		int rc = sim_param_parse(&defs[k], defs[k].def, &iv, &dv, &a, why, sizeof(why));
		if (rc) {
			errf(err, errlen, "registry: %s: default: %s", defs[k].name, why);
			sim_params_destroy(p);
			return rc;
		}
		if (store(p, k, defs[k].def, "default", iv, dv, a))
			goto nomem;
	}
	*out = p;
	return 0;
nomem:
	errf(err, errlen, "out of memory");
	sim_params_destroy(p);
	return SIM_ENOMEM;
}

void sim_params_destroy(sim_params *p)
{
	if (!p)
		return;
	if (p->v)
		for (size_t k = 0; k < p->n; k++) {
			free(p->v[k].text);
			free(p->v[k].origin);
		}
	free(p->v);
	for (size_t k = 0; k < p->n - p->nbase; k++)
		free((char *)p->ldefs[k].name);
	free(p->ldefs);
	free(p->lmap);
	for (size_t k = 0; k < p->nloads; k++) {
		free(p->loads[k].name);
		free(p->loads[k].origin);
	}
	free(p->loads);
	if (p->view_names) {
		for (size_t k = 0; k < p->nbase; k++)
			free(p->view_names[k]);
		free(p->view_names);
		free((sim_param_def *)p->defs);
	}
	for (size_t k = 0; k < p->nfiles; k++)
		free(p->files[k]);
	free(p->files);
	for (size_t k = 0; k < p->nsearch; k++)
		free(p->search[k]);
	free(p->search);
	free(p->search_what);
	free(p);
}

int sim_params_search_add(sim_params *p, const char *dir, const char *what)
{
	char **d = realloc(p->search, (p->nsearch + 1) * sizeof(*d));
	if (!d)
		return SIM_ENOMEM;
	p->search = d;
	const char **w = realloc(p->search_what, (p->nsearch + 1) * sizeof(*w));
	if (!w)
		return SIM_ENOMEM;
	p->search_what = w;
	if (!(d[p->nsearch] = xstrdup(dir)))
		return SIM_ENOMEM;
	w[p->nsearch++] = what;
	return 0;
}

const char *sim_params_file(const sim_params *p, size_t i)
{
	return i < p->nfiles ? p->files[i] : NULL;
}

size_t sim_params_count(const sim_params *p)
{
	return p->n;
}

const sim_param_def *sim_params_def(const sim_params *p, size_t i)
{
	return def_at(p, i);
}

int sim_params_index(const sim_params *p, const char *name)
{
	for (size_t k = 0; k < p->n; k++)
		if (!strcmp(def_at(p, k)->name, name))
			return (int)k;
	return -1;
}

/* ---- loads --------------------------------------------------------------- */

/* Is @name a load's name: 1-32 of [a-z0-9_], not "main"? */
static bool load_name_ok(const char *name)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_");
	return n && n <= SIM_LOAD_NAME_MAX && !name[n] && strcmp(name, "main");
}

static int load_find(const sim_params *p, const char *name, size_t len)
{
	for (size_t i = 0; i < p->nloads; i++)
		if (strlen(p->loads[i].name) == len && !strncmp(p->loads[i].name, name, len))
			return (int)i;
	return -1;
}

int sim_params_add_load(sim_params *p, const char *name, const char *origin, char *err,
			size_t errlen)
{
	char got[80];
	if (!load_name_ok(name)) {
		errf(err, errlen,
		     "%s: [%s.%s]: a load's name is 1 to %d of a-z, 0-9 and _, and not main "
		     "([%s] is the main load)",
		     origin, SIM_LOAD_SECTION, sim_ini_shown(name, got, sizeof(got)), SIM_LOAD_NAME_MAX,
		     SIM_LOAD_SECTION);
		return SIM_EINPUT;
	}
	int dup = load_find(p, name, strlen(name));
	if (dup >= 0) {
		errf(err, errlen, "%s: [%s.%s]: a second load named %s (the first at %s)", origin,
		     SIM_LOAD_SECTION, name, name, p->loads[dup].origin);
		return SIM_EINPUT;
	}
	if (p->nloads >= SIM_LOADS_MAX) {
		errf(err, errlen, "%s: [%s.%s]: more than %d named loads", origin, SIM_LOAD_SECTION, name,
		     SIM_LOADS_MAX);
		return SIM_EINPUT;
	}
	size_t nl = p->n - p->nbase, first = p->n;
	pload *ld = realloc(p->loads, (p->nloads + 1) * sizeof(*ld));
	if (ld)
		p->loads = ld;
	sim_param_def *d = ld ? realloc(p->ldefs, (nl + p->nper) * sizeof(*d)) : NULL;
	if (d)
		p->ldefs = d;
	pval *v = d ? realloc(p->v, (p->n + p->nper) * sizeof(*v)) : NULL;
	if (v)
		p->v = v;
	char *nm = xstrdup(name), *org = xstrdup(origin);
	if (!v || !nm || !org) {
		free(nm);
		free(org);
		errf(err, errlen, "out of memory");
		return SIM_ENOMEM;
	}
	p->loads[p->nloads++] = (pload){ nm, org, first };
	size_t sl = strlen(SIM_LOAD_SECTION);
	for (size_t k = 0; k < p->nbase; k++) {
		if (p->lmap[k] < 0)
			continue;
		const sim_param_def *b = &p->defs[k];
		size_t at = first + (size_t)p->lmap[k];
		size_t len = strlen(b->name) + strlen(name) + 2;
		char *full = malloc(len);
		p->v[at] = (pval){ 0 };
		p->ldefs[at - p->nbase] = *b;
		p->ldefs[at - p->nbase].name = full;
		p->n = at + 1; /* destroy frees what is built so far */
		if (!full) {
			errf(err, errlen, "out of memory");
			return SIM_ENOMEM;
		}
		snprintf(full, len, "%.*s.%s.%s", (int)sl, b->name, name, b->name + sl + 1);
		/* The default, parsed as sim_params_create() found it. */
		int64_t iv;
		double dv;
		bool a;
		char why[256];
		(void)sim_param_parse(b, b->def, &iv, &dv, &a, why, sizeof(why));
		if (store(p, at, b->def, "default", iv, dv, a)) {
			errf(err, errlen, "out of memory");
			return SIM_ENOMEM;
		}
	}
	return 0;
}

size_t sim_params_nloads(const sim_params *p)
{
	return p->nloads;
}

const char *sim_params_load_name(const sim_params *p, size_t i)
{
	return p->loads[i].name;
}

const char *sim_params_load_origin(const sim_params *p, size_t i)
{
	return p->loads[i].origin;
}

int sim_params_load_param(const sim_params *p, size_t load, size_t id)
{
	if (id >= p->nbase || p->lmap[id] < 0 || load >= p->nloads)
		return -1;
	return (int)(p->loads[load].first + (size_t)p->lmap[id]);
}

const sim_param_def *sim_param_def_find(const sim_param_def *defs, size_t ndefs, const char *name)
{
	size_t sl = strlen(SIM_LOAD_SECTION);
	char base[256];
	for (size_t k = 0; k < ndefs; k++)
		if (!strcmp(defs[k].name, name))
			return &defs[k];
	/* SIM_LOAD_SECTION.NAME.key: its load's copy of SIM_LOAD_SECTION.key. */
	const char *dot = strchr(name, '.'), *dot2 = dot ? strchr(dot + 1, '.') : NULL;
	if (!dot2 || (size_t)(dot - name) != sl || strncmp(name, SIM_LOAD_SECTION, sl) ||
	    snprintf(base, sizeof(base), "%s.%s", SIM_LOAD_SECTION, dot2 + 1) >= (int)sizeof(base))
		return NULL;
	for (size_t k = 0; k < ndefs; k++)
		if (!strcmp(defs[k].name, base) && !(defs[k].flags & SIM_PF_RUN))
			return &defs[k];
	return NULL;
}

int sim_params_load_view(const sim_params *p, size_t load, sim_params **out)
{
	sim_params *w = calloc(1, sizeof(*w));
	sim_param_def *d = calloc(p->nbase ? p->nbase : 1, sizeof(*d));
	*out = NULL;
	if (!w || !d) {
		free(w);
		free(d);
		return SIM_ENOMEM;
	}
	w->defs = d;
	w->n = w->nbase = p->nbase;
	w->v = calloc(p->nbase ? p->nbase : 1, sizeof(*w->v));
	w->view_names = calloc(p->nbase ? p->nbase : 1, sizeof(*w->view_names));
	w->lmap = malloc((p->nbase ? p->nbase : 1) * sizeof(*w->lmap));
	if (!w->v || !w->view_names || !w->lmap) {
		sim_params_destroy(w);
		return SIM_ENOMEM;
	}
	memcpy(w->lmap, p->lmap, p->nbase * sizeof(*w->lmap));
	w->nper = p->nper;
	for (size_t k = 0; k < p->nbase; k++) {
		int at = sim_params_load_param(p, load, k);
		size_t src = at >= 0 ? (size_t)at : k;
		d[k] = p->defs[k];
		if (at >= 0) {
			if (!(w->view_names[k] = xstrdup(def_at(p, src)->name))) {
				sim_params_destroy(w);
				return SIM_ENOMEM;
			}
			d[k].name = w->view_names[k];
		}
		const pval *s = &p->v[src];
		if (store(w, k, s->text, s->origin, s->i, s->d, s->is_auto)) {
			sim_params_destroy(w);
			return SIM_ENOMEM;
		}
		w->v[k].preset = s->preset;
	}
	*out = w;
	return 0;
}

const char *sim_params_text(const sim_params *p, size_t i)
{
	return p->v[i].text;
}

const char *sim_params_origin(const sim_params *p, size_t i)
{
	return p->v[i].origin;
}

bool sim_params_preset(const sim_params *p, size_t i)
{
	return p->v[i].preset;
}

bool sim_params_is_auto(const sim_params *p, size_t i)
{
	return p->v[i].is_auto;
}

void sim_params_where(const sim_params *p, size_t i, char *buf, size_t len)
{
	const char *o = sim_params_origin(p, i);
	const char *name = sim_params_def(p, i)->name;
	if (!strcmp(o, "default"))
		snprintf(buf, len, "%s (default)", name);
	else
		snprintf(buf, len, "%s: %s", o, name);
}

/* The word of ENUM or BOOL parameter @i's value (an ENUM's choice, "yes" or
 * "no") into @buf. */
static const char *when_word(const sim_params *p, size_t i, char *buf, size_t len)
{
	const sim_param_def *d = sim_params_def(p, i);
	int64_t v = sim_params_int(p, i);
	if (d->type != SIM_P_ENUM)
		return v ? "yes" : "no";
	const char *c = d->choices;
	for (int64_t k = 0; k < v && c; k++)
		if ((c = strchr(c, '|')))
			c++;
	size_t n = c ? strcspn(c, "|") : 0;
	snprintf(buf, len, "%.*s", (int)n, c ? c : "");
	return buf;
}

/* Is @word one of the '|'-separated @list? */
static bool in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *c = list; c; c = strchr(c, '|') ? strchr(c, '|') + 1 : NULL)
		if (strcspn(c, "|") == n && !strncmp(c, word, n))
			return true;
	return false;
}

bool sim_params_when(const sim_params *p, const sim_param_when *w)
{
	char buf[64];
	if (w->param < 0)
		return true;
	const char *word = when_word(p, (size_t)w->param, buf, sizeof(buf));
	if (w->choices[0] == '!')
		return !in_list(w->choices + 1, word);
	return in_list(w->choices, word);
}

/* "param = a or b" for the conditions @w[0..n) on one parameter, their
 * choices in the parameter's order (or the first one's own what). */
static void when_what(const sim_params *p, const sim_param_when *const *w, size_t n, char *buf,
		      size_t len)
{
	if (w[0]->what) {
		snprintf(buf, len, "%s", w[0]->what);
		return;
	}
	const sim_param_def *d = sim_params_def(p, (size_t)w[0]->param);
	const char *all = d->type == SIM_P_ENUM ? d->choices : "yes|no";
	size_t at = (size_t)snprintf(buf, len, "%s = ", d->name);
	bool first = true;
	for (const char *c = all; c && at < len; c = strchr(c, '|') ? strchr(c, '|') + 1 : NULL) {
		char word[64];
		snprintf(word, sizeof(word), "%.*s", (int)strcspn(c, "|"), c);
		bool named = false;
		for (size_t k = 0; k < n && !named; k++)
			named = w[k]->choices[0] != '!' && in_list(w[k]->choices, word);
		if (!named)
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s", first ? "" : " or ", word);
		first = false;
	}
}

bool sim_params_knob_applies(const sim_params *p, const sim_knobs *const *parts, size_t nparts, size_t id)
{
	bool owned = false;
	for (size_t j = 0; j < nparts; j++)
		for (size_t q = 0; q < parts[j]->n; q++) {
			const sim_knob *k = &parts[j]->knob[q];
			if (k->id != (int)id)
				continue;
			owned = true;
			if (sim_params_when(p, &parts[j]->in) && sim_params_when(p, &k->when))
				return true;
		}
	return !owned;
}

int sim_params_check_knobs(const sim_params *p, const sim_knobs *const *parts, size_t nparts,
			   char *err, size_t errlen)
{
	return sim_params_check_knobs_only(p, parts, nparts, NULL, 0, err, errlen);
}

int sim_params_check_knobs_only(const sim_params *p, const sim_knobs *const *parts, size_t nparts,
				const bool *only, size_t nonly, char *err, size_t errlen)
{
	/* In the registry's order, so that of two mistakes the same one is
	 * named whichever part's table lists it. */
	for (int id = 0; id < (int)sim_params_count(p); id++) {
		if (only && ((size_t)id >= nonly || !only[id]))
			continue;
		if (!sim_params_set_by_scenario(p, (size_t)id))
			continue;
		/* Its owners: read in the run by one of them, or the
		 * condition to name. */
		const sim_param_when *failed = NULL, *outs[16];
		size_t nout = 0;
		bool owned = false, applies = false;
		for (size_t j = 0; j < nparts && !applies; j++)
			for (size_t q = 0; q < parts[j]->n && !applies; q++) {
				const sim_knob *k = &parts[j]->knob[q];
				if (k->id != id)
					continue;
				owned = true;
				if (!sim_params_when(p, &parts[j]->in)) {
					if (nout < sizeof(outs) / sizeof(outs[0]) &&
					    (!nout || outs[0]->param == parts[j]->in.param))
						outs[nout++] = &parts[j]->in;
				} else if (!sim_params_when(p, &k->when)) {
					if (!failed)
						failed = &k->when;
				} else {
					applies = true;
				}
			}
		if (!owned || applies)
			continue;
		const sim_param_when *w = failed ? failed : outs[0];
		char a[512], what[256];
		if (failed)
			when_what(p, &failed, 1, what, sizeof(what));
		else
			when_what(p, outs, nout, what, sizeof(what));
		sim_params_where(p, (size_t)id, a, sizeof(a));
		snprintf(err, errlen, "%s: applies only with %s, and %s is %s (%s)", a, what,
			 sim_params_def(p, (size_t)w->param)->name,
			 sim_params_text(p, (size_t)w->param),
			 sim_params_origin(p, (size_t)w->param));
		return SIM_EINPUT;
	}
	return 0;
}

bool sim_params_set_by_scenario(const sim_params *p, size_t i)
{
	const char *origin = sim_params_origin(p, i);
	if (!strncmp(origin, "--", 2))
		return true;
	return strcmp(origin, "default") && strcmp(sim_params_text(p, i), sim_params_def(p, i)->def) &&
	       !sim_params_preset(p, i);
}

int64_t sim_params_int(const sim_params *p, size_t i)
{
	return p->v[i].i;
}

double sim_params_real(const sim_params *p, size_t i)
{
	return p->v[i].d;
}

int sim_params_set_value(sim_params *p, const char *name, const char *value,
			 const char *origin, char *err, size_t errlen)
{
	char got[80], why[320];
	int k = sim_params_index(p, name);
	if (k < 0) {
		/* SIM_LOAD_SECTION.NAME.key: a load the scenario has not, or a
		 * key that is the run's, not a load's. */
		size_t sl = strlen(SIM_LOAD_SECTION);
		const char *rest = !strncmp(name, SIM_LOAD_SECTION ".", sl + 1) ? name + sl + 1 : NULL;
		const char *dot2 = rest ? strchr(rest, '.') : NULL;
		if (dot2 && strlen(name) < 200) {
			int ln = (int)(dot2 - rest);
			char loads[400] = "", run[256];
			for (size_t i = 0; i < p->nloads; i++)
				snprintf(loads + strlen(loads), sizeof(loads) - strlen(loads), "%s%s",
					 i ? ", " : "", p->loads[i].name);
			if (load_find(p, rest, (size_t)ln) < 0) {
				errf(err, errlen,
				     "%s: %s: no load named %.*s in the scenario (%s%s); a [%s.%.*s] "
				     "section adds one",
				     origin, sim_ini_shown(name, got, sizeof(got)), ln, rest,
				     p->nloads ? "its named loads: " : "it has only [" SIM_LOAD_SECTION "]",
				     loads, SIM_LOAD_SECTION, ln, rest);
				return SIM_EINPUT;
			}
			snprintf(run, sizeof(run), "%s.%s", SIM_LOAD_SECTION, dot2 + 1);
			for (size_t r = 0; r < p->nbase; r++)
				if (!strcmp(p->defs[r].name, run) && (p->defs[r].flags & SIM_PF_RUN)) {
					errf(err, errlen, "%s: %s: the run's, not a load's: set %s in [%s]",
					     origin, sim_ini_shown(name, got, sizeof(got)), run,
					     SIM_LOAD_SECTION);
					return SIM_EINPUT;
				}
		}
		errf(err, errlen, "%s: %s: unknown parameter (see `rcusim params`)", origin,
		     sim_ini_shown(name, got, sizeof(got)));
		return SIM_EINPUT;
	}
	int64_t iv;
	double dv;
	bool a;
	if (sim_param_parse(def_at(p, (size_t)k), value, &iv, &dv, &a, why, sizeof(why))) {
		errf(err, errlen, "%s: %s: %s", origin, name, why);
		return SIM_EINPUT;
	}
	if (store(p, (size_t)k, value, origin, iv, dv, a)) {
		errf(err, errlen, "out of memory");
		return SIM_ENOMEM;
	}
	return 0;
}

int sim_params_set(sim_params *p, const char *assignment, char *err, size_t errlen)
{
	char got[80];
	char *copy = xstrdup(assignment);
	if (!copy) {
		errf(err, errlen, "out of memory");
		return SIM_ENOMEM;
	}
	char *eq = strchr(copy, '=');
	int rc;
	if (!eq) {
		errf(err, errlen, "--set: expected section.key=value, got \"%s\"",
		     sim_ini_shown(assignment, got, sizeof(got)));
		rc = SIM_EINPUT;
	} else {
		*eq = 0;
		rc = sim_params_set_value(p, sim_ini_trim(copy), sim_ini_trim(eq + 1), "--set", err, errlen);
	}
	free(copy);
	return rc;
}

/* ---- scenario files ------------------------------------------------------ */

static bool section_known(const sim_params *p, const char *sec)
{
	size_t l = strlen(sec);
	for (size_t k = 0; k < p->n; k++)
		if (!strncmp(def_at(p, k)->name, sec, l) && def_at(p, k)->name[l] == '.')
			return true;
	return false;
}

typedef struct loader {
	sim_params *p;       /* values being set */
	const char *name;    /* the file, for includes relative to it */
	int depth;           /* include nesting */
	bool in_section;     /* a [section] was seen */
	bool any_key;        /* a key was seen (include must come first) */
	unsigned char *seen; /* per parameter: set in this file */
} loader;

static int load(sim_params *p, const char *name, const char *buf, size_t len, int depth,
		char *err, size_t errlen);

static int load_path(sim_params *p, const char *path, int depth, const char *from, char *err,
		     size_t errlen)
{
	char *buf, why[1200];
	size_t n;
	int rc = sim_ini_read_file(path, &buf, &n, why, sizeof(why));
	if (rc) {
		errf(err, errlen, "%s%s%s", from ? from : "", from ? ": include: " : "", why);
		return rc;
	}
	char **files = realloc(p->files, (p->nfiles + 1) * sizeof(*files));
	if (files)
		p->files = files;
	if (!files || !(files[p->nfiles] = xstrdup(path))) {
		free(buf);
		errf(err, errlen, "out of memory");
		return SIM_ENOMEM;
	}
	p->nfiles++;
	rc = load(p, path, buf, n, depth, err, errlen);
	free(buf);
	return rc;
}

static int on_section(void *ctx, const char *sec, const char *where, char *err, size_t errlen)
{
	loader *L = ctx;
	char got[80];
	size_t sl = strlen(SIM_LOAD_SECTION);
	if (!strncmp(sec, SIM_LOAD_SECTION ".", sl + 1)) {
		/* [workload.NAME]: a load of its own, once in the scenario. */
		int rc = sim_params_add_load(L->p, sec + sl + 1, where, err, errlen);
		L->in_section = !rc;
		return rc;
	}
	if (strlen(sec) >= 128 || !section_known(L->p, sec)) {
		errf(err, errlen, "%s: [%s]: unknown section", where, sim_ini_shown(sec, got, sizeof(got)));
		return SIM_EINPUT;
	}
	L->in_section = true;
	return 0;
}

static int on_key(void *ctx, const char *section, const char *key, const char *val,
		  const char *where, char *err, size_t errlen)
{
	loader *L = ctx;
	char got[80];
	if (!strcmp(key, "include") && !L->in_section) {
		if (L->any_key) {
			errf(err, errlen, "%s: include: must come before any other line", where);
			return SIM_EINPUT;
		}
		if (L->depth >= MAX_INCLUDE_DEPTH) {
			errf(err, errlen, "%s: include: nested more than %d deep (a cycle?)", where,
			     MAX_INCLUDE_DEPTH);
			return SIM_EINPUT;
		}
		if (!*val) {
			errf(err, errlen, "%s: include: expected a file name", where);
			return SIM_EINPUT;
		}
		/* Relative to the including file's folder, else to each folder
		 * of the search path in turn (sim_params_search_add()). */
		char path[4096];
		const char *slash = strrchr(L->name, '/');
		if (*val == '/' || !slash)
			snprintf(path, sizeof(path), "%s", val);
		else
			snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - L->name), L->name, val);
		if (*val == '/' || !L->p->nsearch || !access(path, F_OK))
			return load_path(L->p, path, L->depth + 1, where, err, errlen);
		char tried[2048];
		int tl = snprintf(tried, sizeof(tried), "%s", path);
		for (size_t k = 0; k < L->p->nsearch; k++) {
			char alt[4096];
			snprintf(alt, sizeof(alt), "%s/%s", L->p->search[k], val);
			if (!access(alt, F_OK))
				return load_path(L->p, alt, L->depth + 1, where, err, errlen);
			if (tl >= 0 && (size_t)tl < sizeof(tried))
				tl += snprintf(tried + tl, sizeof(tried) - (size_t)tl, ", %s (%s)", alt,
					       L->p->search_what[k]);
		}
		errf(err, errlen, "%s: include: %s: no such file; looked for %s", where, val, tried);
		return SIM_ENOFILE;
	}
	L->any_key = true;
	if (!L->in_section) {
		errf(err, errlen, "%s: %s: key outside a [section]", where, sim_ini_shown(key, got, sizeof(got)));
		return SIM_EINPUT;
	}
	char full[256];
	if (snprintf(full, sizeof(full), "%s.%s", section, key) >= (int)sizeof(full)) {
		errf(err, errlen, "%s: %s: unknown parameter", where, sim_ini_shown(key, got, sizeof(got)));
		return SIM_EINPUT;
	}
	int k = sim_params_index(L->p, full);
	if (k >= 0 && L->seen[k]) {
		errf(err, errlen, "%s: %s: set twice in this file", where, full);
		return SIM_EINPUT;
	}
	int rc = sim_params_set_value(L->p, full, val, where, err, errlen);
	if (k >= 0) {
		L->seen[k] = 1;
		L->p->v[k].preset = !rc && L->depth > 0;
	}
	return rc;
}

static int load(sim_params *p, const char *name, const char *buf, size_t len, int depth,
		char *err, size_t errlen)
{
	static const sim_ini_handlers h = { on_section, on_key };
	/* Room for the loads the file may add. */
	loader L = { p, name, depth, false, false, calloc(p->n + SIM_LOADS_MAX * p->nper + 1, 1) };
	if (!L.seen) {
		errf(err, errlen, "out of memory");
		return SIM_ENOMEM;
	}
	int rc = sim_ini_scan(name, buf, len, &h, &L, err, errlen);
	free(L.seen);
	return rc;
}

int sim_params_load_file(sim_params *p, const char *path, char *err, size_t errlen)
{
	return load_path(p, path, 0, NULL, err, errlen);
}

int sim_params_load_buffer(sim_params *p, const char *name, const char *buf, size_t len,
			   char *err, size_t errlen)
{
	return load(p, name, buf, len, 0, err, errlen);
}

/* ---- listing ---------------------------------------------------------- */

static const char *type_name(sim_ptype t)
{
	static const char *const names[] = { "integer", "real", "time", "size", "rate",
					     "frequency", "choice", "yes/no", "text" };
	return names[t];
}

/* @s as the text of a Markdown table cell: '|' would end the cell and a
 * '*' between two words may start emphasis, so both are escaped. */
static void md_cell(const char *s, FILE *out)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '*')
			fputc('\\', out);
		fputc(*s, out);
	}
}

void sim_params_print(const sim_param_def *defs, size_t ndefs, sim_params_format fmt, FILE *out)
{
	char exp[200], sec[64] = "";
	if (fmt == SIM_PARAMS_MD)
		fprintf(out, "| parameter | default | accepts | unit | meaning | source of the default |\n"
			     "| --- | --- | --- | --- | --- | --- |\n");
	for (size_t k = 0; k < ndefs; k++) {
		const sim_param_def *d = &defs[k];
		expected(d, exp, sizeof(exp));
		const char *what = d->unit ? d->unit : type_name(d->type);
		const char *dot = strchr(d->name, '.');
		switch (fmt) {
		case SIM_PARAMS_TEXT:
			fprintf(out, "%s = %s\n    %s\n    accepts: %s; unit: %s\n    source: %s\n\n",
				d->name, d->def, d->meaning, exp, what, d->source);
			break;
		case SIM_PARAMS_INI:
			if (strncmp(sec, d->name, (size_t)(dot - d->name)) ||
			    sec[dot - d->name] != 0) {
				snprintf(sec, sizeof(sec), "%.*s", (int)(dot - d->name), d->name);
				fprintf(out, "%s[%s]\n", k ? "\n" : "", sec);
			}
			fprintf(out, "; %s\n; accepts %s; unit: %s\n; source: %s\n%s = %s\n", d->meaning,
				exp, what, d->source, dot + 1, d->def);
			break;
		case SIM_PARAMS_MD:
			fprintf(out, "| `%s` | `%s` | ", d->name, d->def);
			md_cell(exp, out);
			fputs(" | ", out);
			md_cell(what, out);
			fputs(" | ", out);
			md_cell(d->meaning, out);
			fputs(" | ", out);
			md_cell(d->source, out);
			fputs(" |\n", out);
			break;
		}
	}
}

int sim_params_resolve_path(const char *value, const char *origin, char *out, size_t len)
{
	const char *colon = origin ? strrchr(origin, ':') : NULL, *slash = NULL;
	for (const char *q = origin; colon && q < colon; q++)
		if (*q == '/')
			slash = q;
	int n;
	if (value[0] == '/' || !colon || !slash)
		n = snprintf(out, len, "%s", value);
	else
		n = snprintf(out, len, "%.*s/%s", (int)(slash - origin), origin, value);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}
