/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probe.c - `rcusim probe [--out FILE] [--root DIR]`: a scenario describing
 * the running box (or a saved /proc and /sys tree under DIR), every value
 * with where it was read: the CPUs and their SMT siblings from sysfs, the
 * kernel's build from /proc/config.gz or /boot/config-RELEASE, its command
 * line through the kernel-parameter mapping (--cmdline's), the dynamic
 * preemption mode from debugfs where it is mounted, rcu_expedited and
 * rcu_normal, and rcutree's and rcupdate's module parameters as the kernel
 * holds them now. It includes the 6.12 kernel preset the box's kernel is
 * modelled with; what it cannot read, and what it read but rcusim does not
 * model, is said in comments and on stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cmdline.h"
#include "commands.h"
#include "cpulist.h"
#include "lines.h"
#include "model.h"
#include "registry.h"

static const char probe_usage[] =
	"usage: rcusim probe [--out FILE] [--root DIR]\n"
	"\n"
	"Write a scenario describing this box: its CPUs and SMT siblings\n"
	"(/sys/devices/system/cpu), its kernel's build (/proc/config.gz, else\n"
	"/boot/config-RELEASE: HZ, the preemption model, PREEMPT_RCU, NO_HZ,\n"
	"RCU_NOCB_CPU and RCU_LAZY, the fanout, the stall timeout, RCU_BOOST), its\n"
	"command line (/proc/cmdline, mapped as --cmdline maps it), the preemption\n"
	"mode it runs (/sys/kernel/debug/sched/preempt, where debugfs is mounted),\n"
	"/sys/kernel/rcu_expedited and rcu_normal, and rcutree's and rcupdate's\n"
	"parameters (/sys/module/*/parameters). Every value is commented with\n"
	"where it was read; what could not be read, and what was read but is not\n"
	"modelled, is listed in comments at the top and on stderr. The scenario\n"
	"includes the kernel preset the box is modelled with (kernels/linux-6.12.ini,\n"
	"or linux-6.12-rt.ini for PREEMPT_RT) and runs the default load: add a\n"
	"[workload] or include it from a scenario of your own. The machine's clock\n"
	"is the model's x86 calibration (machines/x86-2s-256.ini), not read.\n"
	"  --out FILE   write it to FILE (replaced whole) instead of standard output\n"
	"  --root DIR   read DIR/proc and DIR/sys instead of /proc and /sys (a saved\n"
	"               tree of another box)\n";

/* The build options probe reads, by name without CONFIG_. */
enum {
	C_HZ,
	C_PREEMPT_NONE,
	C_PREEMPT_VOLUNTARY,
	C_PREEMPT,
	C_PREEMPT_LAZY,
	C_PREEMPT_RT,
	C_PREEMPT_RCU,
	C_NO_HZ_IDLE,
	C_NO_HZ_FULL,
	C_RCU_NOCB_CPU,
	C_RCU_NOCB_CPU_DEFAULT_ALL,
	C_RCU_LAZY,
	C_RCU_LAZY_DEFAULT_OFF,
	C_RCU_FANOUT_LEAF,
	C_RCU_CPU_STALL_TIMEOUT,
	C_RCU_BOOST,
	C_SCHED_AUTOGROUP,
	C_FAIR_GROUP_SCHED,
	C_COUNT
};
static const char *const config_names[C_COUNT] = {
	"HZ",			"PREEMPT_NONE",	    "PREEMPT_VOLUNTARY", "PREEMPT",
	"PREEMPT_LAZY",		"PREEMPT_RT",	    "PREEMPT_RCU",	 "NO_HZ_IDLE",
	"NO_HZ_FULL",		"RCU_NOCB_CPU",	    "RCU_NOCB_CPU_DEFAULT_ALL",
	"RCU_LAZY",		"RCU_LAZY_DEFAULT_OFF", "RCU_FANOUT_LEAF", "RCU_CPU_STALL_TIMEOUT",
	"RCU_BOOST",		"SCHED_AUTOGROUP",  "FAIR_GROUP_SCHED",
};

/* What one probe found. */
typedef struct probe {
	const char *root;          /* "" or --root, no trailing slash */
	sim_params *p;             /* the scenario as read */
	char config_path[PATH_MAX]; /* the build's config it read, "" if none */
	char config[C_COUNT][32];  /* each option's value ("y", "250"), "" if not set */
	char *unread;              /* "; LINE\n" lines: what could not be read */
	size_t unread_len;
	char *unmodelled;          /* "; LINE\n" lines: read, not modelled */
	size_t unmodelled_len;
	char err[2048];            /* the first error */
} probe;

/* Append a "; ..." line to *@buf (grown). 0 or -1 (out of memory). */
static int note(char **buf, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int note(char **buf, size_t *len, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	size_t n = strlen(line);
	char *nb = realloc(*buf, *len + n + 4);
	if (!nb)
		return -1;
	*buf = nb;
	memcpy(*buf + *len, "; ", 2);
	memcpy(*buf + *len + 2, line, n);
	(*buf)[*len + 2 + n] = '\n';
	(*buf)[*len + 3 + n] = 0;
	*len += n + 3;
	return 0;
}

/* ROOT/@rel into @out. */
static void at_root(const probe *pr, const char *rel, char *out, size_t len)
{
	snprintf(out, len, "%s%s", pr->root, rel);
}

/* The first line of ROOT/@rel (a sysfs or procfs value), blanks at its end
 * dropped, into @out: 0, or an errno value. */
static int read_value(const probe *pr, const char *rel, char *out, size_t len)
{
	char path[PATH_MAX + 256];
	at_root(pr, rel, path, sizeof(path));
	FILE *f = fopen(path, "r");
	if (!f)
		return errno;
	out[0] = 0;
	int rc = 0;
	if (!fgets(out, (int)len, f))
		rc = ferror(f) ? EIO : 0;
	fclose(f);
	size_t n = strlen(out);
	while (n && (out[n - 1] == '\n' || out[n - 1] == ' ' || out[n - 1] == '\t'))
		out[--n] = 0;
	return rc;
}

/* Set rcusim parameter @name to @value, read from @origin. */
static int put(probe *pr, const char *name, const char *value, const char *origin)
{
	int rc = sim_params_set_value(pr->p, name, value, origin, pr->err, sizeof(pr->err));
	return rc ? rc : 0;
}

/* How many CPUs list @s names ("0-3,8"), or -1. */
static int count_cpus(const char *s)
{
	int n = 0;
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s || a < 0)
			return -1;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -1;
			s = end;
		}
		if (b - a + 1 > 1000000 - n)
			return -1;
		n += (int)(b - a + 1);
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

/* The CPUs online and the SMT siblings of CPU 0 (its core's threads). */
static int probe_cpus(probe *pr)
{
	char v[4096], num[32];
	int rc = read_value(pr, "/sys/devices/system/cpu/online", v, sizeof(v));
	int ncpus = rc ? -1 : count_cpus(v);
	if (ncpus <= 0) {
		if (note(&pr->unread, &pr->unread_len, "the CPUs: %s/sys/devices/system/cpu/online: %s",
			 pr->root, rc ? strerror(rc) : "not a CPU list"))
			return SIM_ENOMEM;
		return 0;
	}
	int threads = 1;
	rc = read_value(pr, "/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", v, sizeof(v));
	if (!rc && count_cpus(v) > 0)
		threads = count_cpus(v);
	else if (note(&pr->unread, &pr->unread_len,
		      "SMT siblings: %s/sys/devices/system/cpu/cpu0/topology/thread_siblings_list: %s "
		      "(one thread a core assumed)",
		      pr->root, rc ? strerror(rc) : "not a CPU list"))
		return SIM_ENOMEM;
	if (ncpus % threads) {
		if (note(&pr->unread, &pr->unread_len,
			 "%d CPUs online are not whole cores of %d threads: one thread a core assumed", ncpus,
			 threads))
			return SIM_ENOMEM;
		threads = 1;
	}
	char origin[256];
	snprintf(num, sizeof(num), "%d", ncpus / threads);
	snprintf(origin, sizeof(origin), "/sys/devices/system/cpu/online (%d CPUs) / %d threads a core",
		 ncpus, threads);
	if ((rc = put(pr, "machine.cores", num, origin)))
		return rc;
	snprintf(num, sizeof(num), "%d", threads);
	return put(pr, "machine.threads_per_core", num,
		   "/sys/devices/system/cpu/cpu0/topology/thread_siblings_list");
}

/* The build's config: /proc/config.gz (CONFIG_IKCONFIG_PROC), else
 * /boot/config-@release; each option probe reads into pr->config. */
static int probe_config(probe *pr, const char *release)
{
	char path[PATH_MAX + 256], rel[PATH_MAX];
	trace_lines t;
	at_root(pr, "/proc/config.gz", path, sizeof(path));
	int rc = trace_lines_open(&t, path);
	if (rc) {
		snprintf(rel, sizeof(rel), "/boot/config-%s", release);
		at_root(pr, rel, path, sizeof(path));
		rc = trace_lines_open(&t, path);
	}
	if (rc)
		return note(&pr->unread, &pr->unread_len,
			    "the kernel's build: neither %s/proc/config.gz nor %s/boot/config-%s (%s): "
			    "the preset's HZ, preemption model and RCU options kept",
			    pr->root, pr->root, release, strerror(rc))
			       ? SIM_ENOMEM
			       : 0;
	const char *line;
	int more;
	while ((more = trace_lines_next(&t, &line)) == 1) {
		if (strncmp(line, "CONFIG_", 7))
			continue;
		const char *eq = strchr(line, '=');
		if (!eq)
			continue;
		size_t kl = (size_t)(eq - line - 7);
		for (int c = 0; c < C_COUNT; c++)
			if (strlen(config_names[c]) == kl && !strncmp(line + 7, config_names[c], kl))
				snprintf(pr->config[c], sizeof(pr->config[c]), "%s", eq + 1);
	}
	bool cut = t.truncated;
	trace_lines_close(&t);
	if (more < 0)
		return SIM_ENOMEM;
	if (cut || t.truncated) {
		snprintf(pr->err, sizeof(pr->err), "%.1900s: cut short or damaged", path);
		return SIM_EIO;
	}
	snprintf(pr->config_path, sizeof(pr->config_path), "%s", path + strlen(pr->root));
	return 0;
}

static bool config_y(const probe *pr, int c)
{
	return !strcmp(pr->config[c], "y");
}

/* What the build says: HZ, the preemption model (the default mode of a
 * PREEMPT_DYNAMIC kernel), PREEMPT_RCU, NO_HZ, RCU_NOCB_CPU_DEFAULT_ALL,
 * RCU_FANOUT_LEAF, the stall timeout, RCU_BOOST. */
static int apply_config(probe *pr)
{
	char origin[PATH_MAX + 160], v[64];
	int rc;
#define FROM(c) (snprintf(origin, sizeof(origin), "%s CONFIG_%s%s%s", pr->config_path, config_names[c], \
			  pr->config[c][0] ? "=" : " is not set", pr->config[c]),                    \
		 origin)
	if (pr->config[C_HZ][0] && (rc = put(pr, "machine.hz", pr->config[C_HZ], FROM(C_HZ))))
		return rc;
	static const struct {
		int c;
		const char *mode;
	} modes[] = { { C_PREEMPT_NONE, "none" },
		      { C_PREEMPT_VOLUNTARY, "voluntary" },
		      { C_PREEMPT, "full" },
		      { C_PREEMPT_LAZY, "lazy" } };
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (config_y(pr, modes[i].c) && !config_y(pr, C_PREEMPT_RT) &&
		    (rc = put(pr, "sched.preempt", modes[i].mode, FROM(modes[i].c))))
			return rc;
	if ((rc = put(pr, "rcu.preempt_rcu", config_y(pr, C_PREEMPT_RCU) ? "yes" : "no",
		      FROM(C_PREEMPT_RCU))))
		return rc;
	int nohz = config_y(pr, C_NO_HZ_FULL) ? C_NO_HZ_FULL : C_NO_HZ_IDLE;
	if ((rc = put(pr, "irq.nohz_idle", config_y(pr, nohz) ? "yes" : "no", FROM(nohz))))
		return rc;
	if (config_y(pr, C_RCU_NOCB_CPU_DEFAULT_ALL) &&
	    (rc = put(pr, "rcu.nocbs", "all", FROM(C_RCU_NOCB_CPU_DEFAULT_ALL))))
		return rc;
	if (pr->config[C_RCU_FANOUT_LEAF][0] &&
	    (rc = put(pr, "rcu.rcu_fanout_leaf", pr->config[C_RCU_FANOUT_LEAF], FROM(C_RCU_FANOUT_LEAF))))
		return rc;
	if (pr->config[C_RCU_CPU_STALL_TIMEOUT][0]) {
		snprintf(v, sizeof(v), "%ss", pr->config[C_RCU_CPU_STALL_TIMEOUT]);
		if ((rc = put(pr, "rcu.stall_timeout", v, FROM(C_RCU_CPU_STALL_TIMEOUT))))
			return rc;
	}
	if (config_y(pr, C_PREEMPT_RCU) &&
	    (rc = put(pr, "rcu.boost", config_y(pr, C_RCU_BOOST) ? "yes" : "no", FROM(C_RCU_BOOST))))
		return rc;
	/* Autogroup: built (both options), and on unless the sysctl says not
	 * (it holds noautogroup too); the kernel boots it on
	 * (kernel/sched/autogroup.c, sysctl_sched_autogroup_enabled = 1). */
	if (!config_y(pr, C_FAIR_GROUP_SCHED) || !config_y(pr, C_SCHED_AUTOGROUP)) {
		int c = config_y(pr, C_FAIR_GROUP_SCHED) ? C_SCHED_AUTOGROUP : C_FAIR_GROUP_SCHED;
		if ((rc = put(pr, "sched.autogroup", "no", FROM(c))))
			return rc;
	} else if (!read_value(pr, "/proc/sys/kernel/sched_autogroup_enabled", v, sizeof(v)) && v[0]) {
		if ((rc = put(pr, "sched.autogroup", strcmp(v, "0") ? "yes" : "no",
			      "/proc/sys/kernel/sched_autogroup_enabled")))
			return rc;
	} else {
		snprintf(origin, sizeof(origin),
			 "%s CONFIG_SCHED_AUTOGROUP=y (on at boot; /proc/sys/kernel/sched_autogroup_enabled not read)",
			 pr->config_path);
		if ((rc = put(pr, "sched.autogroup", "yes", origin)))
			return rc;
	}
#undef FROM
	return 0;
}

/* /proc/cmdline, the kernel's part (before " -- "), as --cmdline maps it. */
static int probe_cmdline(probe *pr)
{
	char v[8192], ignored[4096], warn[4096];
	int rc = read_value(pr, "/proc/cmdline", v, sizeof(v));
	if (rc)
		return note(&pr->unread, &pr->unread_len, "the command line: %s/proc/cmdline: %s", pr->root,
			    strerror(rc))
			       ? SIM_ENOMEM
			       : 0;
	char *init = strstr(v, " -- ");
	if (init)
		*init = 0;
	else if (!strncmp(v, "-- ", 3))
		v[0] = 0;
	ignored[0] = warn[0] = 0;
	if ((rc = rcusim_set_cmdline(pr->p, v, "/proc/cmdline", ignored, sizeof(ignored), warn,
				     sizeof(warn), pr->err, sizeof(pr->err))))
		return rc;
	for (const char *w = warn; *w;) {
		size_t l = strcspn(w, "\n");
		if (note(&pr->unmodelled, &pr->unmodelled_len, "%.*s", (int)l, w))
			return SIM_ENOMEM;
		w += l + (w[l] == '\n');
	}
	if (ignored[0] && note(&pr->unmodelled, &pr->unmodelled_len,
			       "/proc/cmdline, not modelled or not about RCU: %s", ignored))
		return SIM_ENOMEM;
	return 0;
}

/* The preemption mode a PREEMPT_DYNAMIC kernel runs: debugfs's
 * sched/preempt lists the modes with the current one in parentheses. */
static int probe_preempt(probe *pr)
{
	char v[256];
	int rc = read_value(pr, "/sys/kernel/debug/sched/preempt", v, sizeof(v));
	if (rc)
		return note(&pr->unread, &pr->unread_len,
			    "the preemption mode it runs: %s/sys/kernel/debug/sched/preempt: %s (debugfs "
			    "not mounted?): the build's default and preempt= kept",
			    pr->root, strerror(rc))
			       ? SIM_ENOMEM
			       : 0;
	char *open = strchr(v, '('), *close = open ? strchr(open, ')') : NULL;
	if (!close)
		return note(&pr->unread, &pr->unread_len,
			    "the preemption mode: /sys/kernel/debug/sched/preempt reads \"%.60s\"", v)
			       ? SIM_ENOMEM
			       : 0;
	*close = 0;
	return put(pr, "sched.preempt", open + 1, "/sys/kernel/debug/sched/preempt");
}

/* rcu_expedited and rcu_normal (/sys/kernel, the runtime values). */
static int probe_rcu_sysfs(probe *pr)
{
	static const char *const files[2][2] = { { "/sys/kernel/rcu_expedited", "rcu.expedited" },
						 { "/sys/kernel/rcu_normal", "rcu.normal" } };
	for (int i = 0; i < 2; i++) {
		char v[64];
		int rc = read_value(pr, files[i][0], v, sizeof(v));
		if (rc) {
			if (note(&pr->unread, &pr->unread_len, "%s%s: %s", pr->root, files[i][0], strerror(rc)))
				return SIM_ENOMEM;
			continue;
		}
		if (strcmp(v, "0") && strcmp(v, "1")) {
			snprintf(pr->err, sizeof(pr->err), "%s%s: expected 0 or 1, got \"%.40s\"", pr->root,
				 files[i][0], v);
			return SIM_EINPUT;
		}
		if ((rc = put(pr, files[i][1], !strcmp(v, "1") ? "yes" : "no", files[i][0])))
			return rc;
	}
	return 0;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A module's parameters (/sys/module/@mod/parameters/NAME), each as the
 * kernel parameter @mod.NAME=VALUE through the mapping; the jiffies of
 * the FQS loop and of sched_qs, which the kernel derives from HZ and the
 * CPUs at boot as rcusim does (auto), are said but not set. */
static int probe_module(probe *pr, const char *mod)
{
	char dir[PATH_MAX + 128], rel[256];
	snprintf(rel, sizeof(rel), "/sys/module/%s/parameters", mod);
	at_root(pr, rel, dir, sizeof(dir));
	DIR *d = opendir(dir);
	if (!d)
		return note(&pr->unread, &pr->unread_len, "%s: %s", dir, strerror(errno)) ? SIM_ENOMEM : 0;
	char *names[256];
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < sizeof(names) / sizeof(names[0]))
		if (e->d_name[0] != '.' && !(names[n++] = strdup(e->d_name))) {
			closedir(d);
			for (size_t i = 0; i + 1 < n; i++)
				free(names[i]);
			return SIM_ENOMEM;
		}
	closedir(d);
	qsort(names, n, sizeof(names[0]), by_str);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		char v[256], file[512], kp[600];
		snprintf(file, sizeof(file), "%s/%s", rel, names[i]);
		if (read_value(pr, file, v, sizeof(v)) || !strcmp(names[i], "enable_rcu_lazy"))
			continue; /* write-only (dump_tree), unreadable, or read by apply_lazy() */
		snprintf(kp, sizeof(kp), "%s.%s=%s", mod, names[i], v);
		if (!strncmp(names[i], "jiffies_t", 9)) {
			if (note(&pr->unmodelled, &pr->unmodelled_len,
				 "%s reads %s: derived at boot from HZ and the CPUs, as rcusim's auto does",
				 file, v))
				rc = SIM_ENOMEM;
			continue;
		}
		char err[1024];
		int r = rcusim_set(pr->p, kp, rel, err, sizeof(err));
		if (r == RCUSIM_KP_KEPT) {
			if (note(&pr->unmodelled, &pr->unmodelled_len, "%s", err))
				rc = SIM_ENOMEM;
		} else if (r == RCUSIM_KP_UNMODELLED || r == SIM_EINPUT) {
			/* Not modelled, not mapped, or a value rcusim refuses: said
			 * with rcusim's reason, never set. */
			if (note(&pr->unmodelled, &pr->unmodelled_len, "%s = %s: %s", file, v,
				 r == RCUSIM_KP_UNMODELLED ? "not modelled" : err))
				rc = SIM_ENOMEM;
		} else if (r) {
			snprintf(pr->err, sizeof(pr->err), "%s", err);
			rc = r;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	return rc;
}

/* Lazy callbacks: built (RCU_LAZY, not RCU_LAZY_DEFAULT_OFF) or switched by
 * rcutree.enable_rcu_lazy, they apply only to offloaded CPUs. */
static int apply_lazy(probe *pr)
{
	char v[16], origin[PATH_MAX + 160];
	bool lazy = config_y(pr, C_RCU_LAZY) && !config_y(pr, C_RCU_LAZY_DEFAULT_OFF);
	snprintf(origin, sizeof(origin), "%s CONFIG_RCU_LAZY=%s, CONFIG_RCU_LAZY_DEFAULT_OFF=%s",
		 pr->config_path, pr->config[C_RCU_LAZY][0] ? pr->config[C_RCU_LAZY] : "n",
		 pr->config[C_RCU_LAZY_DEFAULT_OFF][0] ? pr->config[C_RCU_LAZY_DEFAULT_OFF] : "n");
	if (!read_value(pr, "/sys/module/rcutree/parameters/enable_rcu_lazy", v, sizeof(v))) {
		lazy = v[0] == 'Y' || v[0] == 'y' || v[0] == '1';
		snprintf(origin, sizeof(origin), "/sys/module/rcutree/parameters/enable_rcu_lazy");
	} else if (!config_y(pr, C_RCU_LAZY)) {
		return 0;
	}
	int nocbs = sim_params_index(pr->p, "rcu.nocbs");
	bool offloaded = strcmp(sim_params_text(pr->p, (size_t)nocbs), "none") != 0;
	if (!offloaded)
		return lazy && note(&pr->unmodelled, &pr->unmodelled_len,
				    "lazy callbacks are on (%s) but no CPU is offloaded (rcu_nocbs=): none "
				    "is lazy, rcu.lazy left out",
				    origin)
			       ? SIM_ENOMEM
			       : 0;
	return put(pr, "rcu.lazy", lazy ? "yes" : "no", origin);
}

/* Everything probe reads, in the order that makes the runtime values win:
 * the build, the command line, then what the kernel holds now. */
static int probe_all(probe *pr, char *preset, size_t plen)
{
	char release[256], dir[PATH_MAX];
	int rc = read_value(pr, "/proc/sys/kernel/osrelease", release, sizeof(release));
	if (rc) {
		snprintf(pr->err, sizeof(pr->err), "%s/proc/sys/kernel/osrelease: %s (no Linux /proc there)",
			 pr->root, strerror(rc));
		return SIM_EIO;
	}
	if ((rc = probe_config(pr, release)))
		return rc;
	(void)cli_scenarios_dir(dir, sizeof(dir));
	snprintf(preset, plen, "%s/kernels/%s", dir,
		 config_y(pr, C_PREEMPT_RT) ? "linux-6.12-rt.ini" : "linux-6.12.ini");
	/* Read as the scenario reads it, an include: its values are the
	 * preset's (not written out), and ours are set over them. */
	char inc[PATH_MAX + 128];
	int il = snprintf(inc, sizeof(inc), "include = %s\n", preset);
	if (access(preset, R_OK)) {
		snprintf(pr->err, sizeof(pr->err), "%s: %s (rcusim's presets are not installed?)", preset,
			 strerror(errno));
		return SIM_EIO;
	}
	if ((rc = sim_params_load_buffer(pr->p, "probe", inc, (size_t)il, pr->err, sizeof(pr->err))))
		return rc;
	if ((rc = put(pr, "machine.arch", "x86_64", "the model's: softirqs at irq_exit only (every "
						     "architecture but 2006's sparc64)")) ||
	    (rc = put(pr, "machine.clock", "6.9GHz",
		      "not read: the model's x86 calibration (machines/x86-2s-256.ini)")) ||
	    (rc = probe_cpus(pr)))
		return rc;
	if (pr->config_path[0] && (rc = apply_config(pr)))
		return rc;
	if ((rc = probe_cmdline(pr)) || (rc = probe_preempt(pr)) || (rc = probe_rcu_sysfs(pr)) ||
	    (rc = probe_module(pr, "rcutree")) || (rc = probe_module(pr, "rcupdate")) ||
	    (rc = apply_lazy(pr)))
		return rc;
	return rcusim_validate(pr->p, pr->err, sizeof(pr->err));
}

/* Was parameter @i set by the probe (not the preset's, not a default)? */
static bool probed(const probe *pr, size_t i)
{
	return strcmp(sim_params_origin(pr->p, i), "default") && !sim_params_preset(pr->p, i);
}

/* The scenario: a header, the preset, each probed value with its origin. */
static void write_scenario(const probe *pr, const char *preset, FILE *f)
{
	char host[256] = "", release[256] = "";
	(void)read_value(pr, "/proc/sys/kernel/hostname", host, sizeof(host));
	(void)read_value(pr, "/proc/sys/kernel/osrelease", release, sizeof(release));
	fprintf(f, "; %s: Linux %s, as `rcusim probe%s%s` read it, modelled with rcusim's 6.12 kernel.\n",
		host[0] ? host : "this box", release, pr->root[0] ? " --root " : "", pr->root);
	fprintf(f, "; Every value names where it was read. Add a [workload] (the default is make -j8192),\n"
		   "; or include this file from a scenario of your own.\n");
	if (pr->unread_len)
		fprintf(f, ";\n; Not read:\n%s", pr->unread);
	if (pr->unmodelled_len)
		fprintf(f, ";\n; Read, not set:\n%s", pr->unmodelled);
	fprintf(f, "include = %s\n", preset);
	const char *section = NULL;
	size_t slen = 0;
	for (size_t i = 0; i < sim_params_count(pr->p); i++) {
		if (!probed(pr, i))
			continue;
		const char *name = sim_params_def(pr->p, i)->name, *dot = strchr(name, '.');
		if (!section || (size_t)(dot - name) != slen || strncmp(section, name, slen)) {
			section = name;
			slen = (size_t)(dot - name);
			fprintf(f, "\n[%.*s]\n", (int)slen, name);
		}
		fprintf(f, "%s = %s ; %s\n", dot + 1, sim_params_text(pr->p, i), sim_params_origin(pr->p, i));
	}
}

int cmd_probe(int argc, char **argv)
{
	const char *out = NULL, *root = NULL, *v;
	int rc;
	for (int i = 1; i < argc; i++) {
		if (cli_help(argv[i], probe_usage))
			return 0;
		if ((rc = cli_opt(argc, argv, &i, "--out", &v))) {
			if (rc < 0 || !cli_opt_once("--out", &out))
				return EXIT_USAGE;
			out = v;
		} else if ((rc = cli_opt(argc, argv, &i, "--root", &v))) {
			if (rc < 0 || !cli_opt_once("--root", &root))
				return EXIT_USAGE;
			root = v;
		} else {
			fprintf(stderr, "rcusim probe: unexpected argument %s\n%s", argv[i], probe_usage);
			return EXIT_USAGE;
		}
	}
	char rootbuf[PATH_MAX] = "";
	if (root) {
		struct stat st;
		if (!*root) {
			fprintf(stderr, "rcusim probe: --root: empty\n");
			return EXIT_USAGE;
		}
		if (stat(root, &st)) {
			fprintf(stderr, "rcusim probe: --root %s: %s\n", root, strerror(errno));
			return EXIT_USAGE;
		}
		if (!S_ISDIR(st.st_mode)) {
			fprintf(stderr, "rcusim probe: --root %s: not a folder\n", root);
			return EXIT_USAGE;
		}
		if (!realpath(root, rootbuf)) {
			fprintf(stderr, "rcusim probe: --root %s: %s\n", root, strerror(errno));
			return EXIT_USAGE;
		}
		if (!strcmp(rootbuf, "/"))
			rootbuf[0] = 0;
	}
	probe pr = { .root = rootbuf };
	char preset[PATH_MAX + 64], err[1024];
	if ((rc = sim_params_create(&pr.p, rcusim_params, P_COUNT, err, sizeof(err)))) {
		fprintf(stderr, "rcusim probe: %s\n", err);
		return cli_exit_status(rc);
	}
	int status = 0;
	if ((rc = probe_all(&pr, preset, sizeof(preset)))) {
		fprintf(stderr, "rcusim probe: %s\n", rc == SIM_ENOMEM ? "out of memory" : pr.err);
		status = cli_exit_status(rc);
		goto out;
	}
	if (pr.unread_len)
		fprintf(stderr, "rcusim probe: not read:\n%s", pr.unread);
	FILE *f = stdout;
	char tmp[PATH_MAX + 16];
	if (out) {
		snprintf(tmp, sizeof(tmp), "%s.tmp", out);
		if (!(f = fopen(tmp, "w"))) {
			fprintf(stderr, "rcusim probe: %s: %s\n", tmp, strerror(errno));
			status = EXIT_IO;
			goto out;
		}
	}
	write_scenario(&pr, preset, f);
	if (out) {
		if (ferror(f) | fclose(f) || rename(tmp, out)) {
			fprintf(stderr, "rcusim probe: %s: %s\n", out, strerror(errno));
			remove(tmp);
			status = EXIT_IO;
		} else {
			fprintf(stderr, "rcusim probe: wrote %s\n", out);
		}
	}
out:
	sim_params_destroy(pr.p);
	free(pr.unread);
	free(pr.unmodelled);
	return status;
}
