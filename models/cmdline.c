/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmdline.c - the kernel's boot parameters mapped to rcusim's (cmdline.h).
 * Names and value syntax: Documentation/admin-guide/kernel-parameters.txt
 * of 6.12; booleans as the kernel's kstrtobool() reads them
 * (lib/kstrtox.c: 1/y/Y/t/T/on true, 0/n/N/f/F/off false; a bool module
 * parameter with no "=" true, with "=" and nothing refused and left as it
 * was); words split and unquoted as next_arg() (lib/cmdline.c) does;
 * jiffies, seconds and milliseconds where the kernel takes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "error.h"
#include "registry.h"

/* How a kernel value becomes an rcusim one. */
typedef enum {
	KV_SAME,   /* the number as it is (counts, jiffies where rcusim takes jiffies too) */
	KV_BOOL,   /* kstrtobool() -> yes/no */
	KV_NS,     /* nanoseconds */
	KV_S,      /* seconds */
	KV_MS,     /* milliseconds */
	KV_LIST,   /* a CPU list, optional: none without "=" */
	KV_WORD,   /* the word itself (preempt=) */
	KV_SKEW,   /* 0/1 -> aligned/skewed */
	KV_ONOFF,  /* kstrtobool -> yes/no (nohz=on|off) */
	KV_INTBOOL, /* an int module parameter read as a flag: nonzero -> yes */
	KV_DIVISOR, /* rcu_divisor: a negative one is 7, at most 62 (tree.c 6.12:2530) */
	KV_RESCHED, /* rcu_resched_ns: clamped to [1 ms, 1 s] (tree.c 6.12:2537) */
	KV_QOVLD,   /* qovld: a negative one is 2 x qhimark (tree.c 6.12:5734-5737): auto */
	KV_STRIDE,  /* rcu_nocb_gp_stride: -1 is nr_cpu_ids / int_sqrt(nr_cpu_ids) (tree_nocb.h 6.12:1454-1457): auto */
	KV_NOHZ_FULL, /* nohz_full=LIST */
} kv_kind;

/* How each kind reads a value, for `rcusim params --kernel`. */
static const char *const kv_how[] = {
	[KV_SAME] = "as the kernel's number",
	[KV_BOOL] = "kstrtobool (1/y/on, 0/n/off) -> yes/no",
	[KV_NS] = "nanoseconds",
	[KV_S] = "seconds",
	[KV_MS] = "milliseconds",
	[KV_LIST] = "CPU list; alone: none offloaded",
	[KV_WORD] = "none|voluntary|full|lazy",
	[KV_SKEW] = "an int: 0 aligned, else skewed",
	[KV_ONOFF] = "kstrtobool (on/off) -> yes/no",
	[KV_INTBOOL] = "an int, nonzero -> yes",
	[KV_DIVISOR] = "negative -> 7, at most 62",
	[KV_RESCHED] = "ns, clamped to 1 ms..1 s",
	[KV_QOVLD] = "negative -> auto (2 x qhimark)",
	[KV_NOHZ_FULL] = "CPU list (its CPUs offloaded too, as rcu_init_nohz() does)",
};

typedef struct kparam {
	const char *kernel;     /* its name on the command line */
	const char *rcusim;     /* rcusim's parameter */
	kv_kind kind;
	const char *line;       /* kernel-parameters.txt 6.12 line */
} kparam;

static const kparam kparams[] = {
	{ "rcutree.blimit", "rcu.blimit", KV_SAME, "5005" },
	{ "rcutree.qhimark", "rcu.qhimark", KV_SAME, "5098" },
	{ "rcutree.qlowmark", "rcu.qlowmark", KV_SAME, "5102" },
	{ "rcutree.qovld", "rcu.qovld", KV_QOVLD, "5106" },
	{ "rcutree.rcu_divisor", "rcu.rcu_divisor", KV_DIVISOR, "5120" },
	{ "rcutree.rcu_resched_ns", "rcu.rcu_resched_ns", KV_RESCHED, "5172" },
	{ "rcutree.rcu_fanout_leaf", "rcu.rcu_fanout_leaf", KV_SAME, "5141" },
	{ "rcutree.jiffies_till_first_fqs", "rcu.jiffies_till_first_fqs", KV_SAME, "5039" },
	{ "rcutree.jiffies_till_next_fqs", "rcu.jiffies_till_next_fqs", KV_SAME, "5045" },
	{ "rcutree.jiffies_till_sched_qs", "rcu.jiffies_till_sched_qs", KV_SAME, "5050" },
	{ "rcutree.kthread_prio", "rcu.kthread_prio", KV_SAME, "5064" },
	{ "rcutree.rcu_min_cached_objs", "rcu.kfree_min_cached_pages", KV_SAME, "5149" },
	{ "rcutree.rcu_nocb_gp_stride", "rcu.nocb_gp_stride", KV_STRIDE, "5157" },
	{ "rcutree.use_softirq", "rcu.use_softirq", KV_BOOL, "5193" },
	{ "rcutree.enable_rcu_lazy", "rcu.lazy", KV_BOOL, "5203" },
	{ "rcutree.rcu_normal_wake_from_gp", "rcu.normal_wake_from_gp", KV_INTBOOL, "5208" },
	{ "rcupdate.rcu_cpu_stall_timeout", "rcu.stall_timeout", KV_S, "5524" },
	{ "rcupdate.rcu_exp_cpu_stall_timeout", "rcu.exp_stall_timeout", KV_MS, "5529" },
	{ "rcupdate.rcu_expedited", "rcu.expedited", KV_INTBOOL, "5550" },
	{ "rcupdate.rcu_normal", "rcu.normal", KV_INTBOOL, "5558" },
	{ "rcu_nocbs", "rcu.nocbs", KV_LIST, "4966" },
	{ "preempt", "sched.preempt", KV_WORD, "4805" },
	{ "skew_tick", "irq.tick_phase", KV_SKEW, "6063" },
	{ "nohz", "irq.nohz_idle", KV_ONOFF, "3959" },
	{ "nohz_full", "irq.nohz_full", KV_NOHZ_FULL, "3963" },
};
#define NKPARAMS (sizeof(kparams) / sizeof(kparams[0]))

/* Kernel parameters (or prefixes, ending in '.') that rcusim does not
 * model: named as such, not as unknown. */
static const char *const unmodelled[] = {
	"rcutree.", "rcupdate.", "rcutorture.", "rcuscale.", "refscale.", "rcu_nocb_poll", "isolcpus", "irqaffinity", "threadirqs", "nosmt", "maxcpus", "nr_cpus",
	"mitigations", "processor.", "intel_idle.", "idle", "tsc", "clocksource", "hpet",
	"nosoftlockup", "nowatchdog", "nmi_watchdog", "audit", "quiet", "splash", "ro", "rw",
	"root", "rootfstype", "rootflags", "init", "initrd", "BOOT_IMAGE", "console", "loglevel",
	"earlyprintk", "crashkernel", "resume", "apparmor", "security", "selinux", "lsm",
	"systemd.", "rd.", "net.", "vt.", "cgroup_enable", "cgroup_disable", "transparent_hugepage",
	"hugepages", "default_hugepagesz", "hugepagesz", "iommu", "intel_iommu", "amd_iommu", "pci",
	"acpi", "noapic", "nolapic", "panic", "debug", "ignore_loglevel", "random.", "page_poison",
	"slub_debug", "kasan", "kfence.", "mem", "memmap", "numa", "numa_balancing", "zswap.",
	"module_blacklist", "modprobe.", "nokaslr", "kaslr", "efi", "noefi", "video", "fbcon",
	"nomodeset", "psi", "rcu_nocb_poll",
};

/* Unmodelled words that change what rcusim models (RCU, softirqs, the
 * tick, the CPUs): --cmdline warns of each with what it would change,
 * instead of leaving it among words like "quiet". A name ending in '.' is
 * a prefix. From kernel-parameters.txt and the sources of 6.12. */
static const struct {
	const char *word;
	const char *changes;
} relevant[] = {
	{ "threadirqs", "device interrupts run in threads and irq_exit() wakes ksoftirqd instead of running "
			"pending softirqs (invoke_softirq(), kernel/softirq.c 6.12:419-440): the nearest "
			"model is softirq.in_irq_exit = no" },
	{ "rcu_nocb_poll", "the rcuog kthreads poll each jiffy instead of being woken by call_rcu() "
			   "(kernel/rcu/tree_nocb.h 6.12:540, 777-800): offloaded callbacks wait for the "
			   "next poll, and no call_rcu() wakes a kthread" },
	{ "isolcpus", "CPUs taken out of load balancing (and with its nohz flag, out of the tick like "
		      "nohz_full=): rcusim does not balance load, so only its nohz flag would change a "
		      "run; say nohz_full= for that" },
	{ "irqaffinity", "the CPUs device interrupts go to: rcusim's irq.rate interrupts come to every "
			 "CPU alike" },
	{ "nosmt", "one thread a core: set machine.threads_per_core = 1" },
	{ "maxcpus", "fewer CPUs brought up at boot: set machine.cores and machine.threads_per_core" },
	{ "nr_cpus", "fewer CPUs possible: set machine.cores and machine.threads_per_core" },
	{ "idle", "idle=poll keeps idle CPUs out of the idle loop's extended quiescent state, which "
		  "rcusim's idle CPUs always enter" },
	{ "rcutree.gp_preinit_delay", "a delay in every grace period's initialization (a debugging "
				      "aid): longer grace periods" },
	{ "rcutree.gp_init_delay", "a delay in every grace period's initialization (a debugging aid): "
				   "longer grace periods" },
	{ "rcutree.gp_cleanup_delay", "a delay in every grace period's cleanup (a debugging aid): "
				      "longer grace periods" },
	{ "rcutree.rcu_kick_kthreads", "a starved grace-period kthread is kicked awake" },
	{ "rcutree.rcu_fanout_exact", "the rcu_node tree's fanout taken as given: rcusim balances it "
				      "as the default does" },
	{ "rcupdate.rcu_cpu_stall_suppress", "no stall warnings: rcusim still counts them "
					     "(rcu.stall_warnings)" },
	{ "rcupdate.rcu_task", "Tasks RCU, which rcusim does not model" },
};

/* What @word would change, if rcusim ought to warn of it, else NULL;
 * '-' and '_' alike, as parameq() takes them. */
static const char *relevant_change(const char *word)
{
	for (size_t i = 0; i < sizeof(relevant) / sizeof(relevant[0]); i++) {
		const char *a = word, *b = relevant[i].word;
		for (; *a && *b; a++, b++)
			if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
				break;
		if (!*b && (!*a || !strcmp(relevant[i].word, "rcupdate.rcu_task")))
			return relevant[i].changes;
	}
	return NULL;
}

/* parameq() (kernel/params.c 6.12): '-' and '_' alike. */
static bool kname_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return false;
	return *a == *b;
}

static const kparam *kparam_find(const char *key)
{
	for (size_t i = 0; i < NKPARAMS; i++)
		if (kname_eq(kparams[i].kernel, key))
			return &kparams[i];
	return NULL;
}

static bool is_unmodelled(const char *key)
{
	for (size_t i = 0; i < sizeof(unmodelled) / sizeof(unmodelled[0]); i++) {
		size_t l = strlen(unmodelled[i]);
		if (unmodelled[i][l - 1] == '.' ? !strncmp(key, unmodelled[i], l) : !strcmp(key, unmodelled[i]))
			return true;
	}
	return false;
}

/* kstrtobool() (lib/kstrtox.c 6.12:348-382), which reads the first
 * character (the second after 'o'): 1, 0, or -1 if not a boolean. A
 * missing value is true, as for a bool module parameter. */
static int kbool(const char *v)
{
	if (!v || !*v)
		return 1;
	switch (v[0]) {
	case '1': case 'y': case 'Y': case 't': case 'T':
		return 1;
	case '0': case 'n': case 'N': case 'f': case 'F':
		return 0;
	case 'o': case 'O':
		return v[1] == 'n' || v[1] == 'N' ? 1 : v[1] == 'f' || v[1] == 'F' ? 0 : -1;
	default:
		return -1;
	}
}

/* A whole number as a module parameter's kstrtol() takes it (base 0:
 * 0x hex, a leading 0 octal, an optional sign and newline): true and *@n. */
static bool knum(const char *v, long long *n)
{
	char *e;
	errno = 0;
	*n = strtoll(v, &e, 0);
	if (e == v || errno)
		return false;
	if (*e == '\n')
		e++;
	return !*e;
}

/* Levenshtein distance, for "did you mean". */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return 64;
	size_t d[64][64];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < c)
				c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c)
				c = d[i][j - 1] + 1;
			d[i][j] = c;
		}
	return d[la][lb];
}

/* ", did you mean a, b?" for @key: the nearest rcusim and kernel names
 * (also a name whose part after the section is @key), into @buf. */
static void suggest(const sim_params *p, const char *key, char *buf, size_t len)
{
	(void)p;
	rcusim_param_suggest(key, buf, len);
}

void rcusim_param_suggest(const char *key, char *buf, size_t len)
{
	const char *best[3] = { NULL, NULL, NULL };
	size_t bd[3] = { 99, 99, 99 };
	size_t limit = strlen(key) / 4 + 1;
	if (limit > 3)
		limit = 3;
	for (size_t i = 0; i < P_COUNT + NKPARAMS; i++) {
		const char *n = i < P_COUNT ? rcusim_params[i].name : kparams[i - P_COUNT].kernel;
		const char *dot = strchr(n, '.');
		size_t d = distance(key, n);
		if (dot && distance(key, dot + 1) < d)
			d = distance(key, dot + 1);
		if (d > limit)
			continue;
		for (int k = 0; k < 3; k++)
			if (d < bd[k]) {
				for (int m = 2; m > k; m--) {
					best[m] = best[m - 1];
					bd[m] = bd[m - 1];
				}
				best[k] = n;
				bd[k] = d;
				break;
			}
	}
	buf[0] = 0;
	if (!best[0])
		return;
	snprintf(buf, len, "; did you mean %s%s%s%s%s?", best[0], best[1] ? ", " : "", best[1] ? best[1] : "",
		 best[2] ? ", " : "", best[2] ? best[2] : "");
}

/* rcusim_set(), and *@unknown: the key is neither rcusim's nor mapped,
 * its section (before the first '.') not one of rcusim's. @unquote: strip
 * one pair of double quotes around the value (--set; a command line's
 * words come unquoted by next_arg()). */
static int set_one(sim_params *p, const char *assignment, const char *origin, bool unquote, char *err,
		   size_t errlen, bool *unknown)
{
	*unknown = false;
	char key[128], val[512], org[192], v[600];
	const char *eq = strchr(assignment, '=');
	size_t kl = eq ? (size_t)(eq - assignment) : strlen(assignment);
	while (kl && (assignment[kl - 1] == ' ' || assignment[kl - 1] == '\t'))
		kl--;
	const char *ks = assignment;
	while (*ks == ' ' || *ks == '\t') {
		ks++;
		kl--;
	}
	if (!kl || kl >= sizeof(key)) {
		snprintf(err, errlen, "%s: expected section.key=value or a kernel parameter, got \"%.80s\"", origin,
			 assignment);
		return SIM_EINPUT;
	}
	memcpy(key, ks, kl);
	key[kl] = 0;
	/* The kernel takes '-' and '_' in a parameter's name alike (parameq(),
	 * kernel/params.c); rcusim's names have no '-'. */
	for (char *c = key; *c && *c != '='; c++)
		if (*c == '-')
			*c = '_';
	const char *vs = eq ? eq + 1 : NULL;
	if (vs) {
		while (*vs == ' ' || *vs == '\t')
			vs++;
		size_t vl = strlen(vs);
		while (vl && (vs[vl - 1] == ' ' || vs[vl - 1] == '\t'))
			vl--;
		if (vl >= sizeof(val)) {
			snprintf(err, errlen, "%s: %s: value too long", origin, key);
			return SIM_EINPUT;
		}
		/* The kernel strips one pair of double quotes. */
		if (unquote && vl >= 2 && vs[0] == '"' && vs[vl - 1] == '"') {
			vs++;
			vl -= 2;
		}
		memcpy(val, vs, vl);
		val[vl] = 0;
	}
	/* A named load's (workload.NAME.key): sim_params_set_value() says
	 * which load or key is not there. */
	bool load_key = !strncmp(key, SIM_LOAD_SECTION ".", strlen(SIM_LOAD_SECTION) + 1) &&
			strchr(key + strlen(SIM_LOAD_SECTION) + 1, '.');
	if (sim_params_index(p, key) >= 0 || load_key) {
		if (!eq) {
			snprintf(err, errlen, "%s: %s: no value (section.key=value)", origin, key);
			return SIM_EINPUT;
		}
		return sim_params_set_value(p, key, val, origin, err, errlen);
	}
	const kparam *kp = kparam_find(key);
	if (!kp) {
		size_t near = 99;
		for (size_t i = 0; i < NKPARAMS; i++) {
			size_t d = distance(key, kparams[i].kernel);
			if (d < near)
				near = d;
		}
		if (is_unmodelled(key) && near > 2) {
			snprintf(err, errlen, "%s: %s: a kernel parameter rcusim does not model (rcusim params --kernel lists those it maps)",
				 origin, key);
			return RCUSIM_KP_UNMODELLED;
		}
		char s[300];
		const char *dot = strchr(key, '.');
		*unknown = true;
		for (size_t i = 0; dot && i < P_COUNT; i++)
			if (!strncmp(sim_params_def(p, i)->name, key, (size_t)(dot - key) + 1))
				*unknown = false; /* rcusim's section: a misspelt key */
		suggest(p, key, s, sizeof(s));
		snprintf(err, errlen, "%s: %s: unknown parameter, neither rcusim's nor a kernel parameter it maps%s", origin,
			 key, s);
		return SIM_EINPUT;
	}
	const char *x = eq ? val : NULL;
	int b;
	long long num;
	switch (kp->kind) {
	case KV_SAME:
	case KV_NS:
	case KV_S:
	case KV_MS:
	case KV_DIVISOR:
	case KV_RESCHED:
	case KV_QOVLD:
	case KV_STRIDE:
	case KV_INTBOOL:
		if (!x || !knum(x, &num)) {
			snprintf(err, errlen, "%s: %s=%s: the kernel takes a whole number here", origin, key, x ? x : "");
			return SIM_EINPUT;
		}
		if (kp->kind == KV_DIVISOR)
			num = num < 0 ? 7 : num > 62 ? 62 : num;
		if (kp->kind == KV_RESCHED)
			num = num < 1000000 ? 1000000 : num > 1000000000 ? 1000000000 : num;
		if ((kp->kind == KV_QOVLD && num < 0) || (kp->kind == KV_STRIDE && num == -1))
			snprintf(v, sizeof(v), "auto");
		else if (kp->kind == KV_INTBOOL)
			snprintf(v, sizeof(v), "%s", num ? "yes" : "no");
		else
			snprintf(v, sizeof(v), "%lld%s", num,
				 kp->kind == KV_NS || kp->kind == KV_RESCHED ? "ns"
				 : kp->kind == KV_S			 ? "s"
				 : kp->kind == KV_MS			 ? "ms"
									 : "");
		break;
	case KV_BOOL:
	case KV_ONOFF:
		/* "KEY=" hands kstrtobool() an empty string: -EINVAL, and the
		 * kernel boots with the parameter as it was (parse_args() only
		 * prints "`' invalid for parameter", kernel/params.c 6.12; an
		 * __setup() handler such as nohz='s returns 0, unhandled). */
		if (x && !*x) {
			snprintf(err, errlen, "%s: %s=: an empty value is no boolean to the kernel (kstrtobool(\"\") "
					      "is -EINVAL): it ignores the word and %s keeps its value",
				 origin, key, kp->rcusim);
			return RCUSIM_KP_KEPT;
		}
		if ((b = kbool(x)) < 0 || (kp->kind == KV_ONOFF && !x)) {
			snprintf(err, errlen, "%s: %s=%s: the kernel takes a boolean here (kstrtobool: 1/y/on, 0/n/off)",
				 origin, key, x ? x : "");
			return SIM_EINPUT;
		}
		snprintf(v, sizeof(v), "%s", b ? "yes" : "no");
		break;
	case KV_SKEW:
		/* get_option(): an integer, nonzero skews (tick-sched.c 6.12:1564-1570). */
		if (!x || !knum(x, &num)) {
			snprintf(err, errlen, "%s: %s=%s: the kernel takes a whole number here", origin, key, x ? x : "");
			return SIM_EINPUT;
		}
		snprintf(v, sizeof(v), "%s", num ? "skewed" : "aligned");
		break;
	case KV_LIST:
		/* "rcu_nocbs" alone sets up offloading with no CPU offloaded
		 * (tree_nocb.h 6.12:59-70). */
		snprintf(v, sizeof(v), "%s", x && *x ? x : "none");
		break;
	case KV_NOHZ_FULL:
		/* The model adds these CPUs to the offloaded ones, as
		 * rcu_init_nohz() does (tree_nocb.h 6.12:1292-1309). */
		if (!x || !*x) {
			snprintf(err, errlen, "%s: %s: no CPU list", origin, key);
			return SIM_EINPUT;
		}
		snprintf(v, sizeof(v), "%s", x);
		break;
	case KV_WORD:
		if (!x || !*x) {
			snprintf(err, errlen, "%s: %s: no value", origin, key);
			return SIM_EINPUT;
		}
		snprintf(v, sizeof(v), "%s", x);
		break;
	}
	snprintf(org, sizeof(org), "%s %s", origin, key);
	return sim_params_set_value(p, kp->rcusim, v, org, err, errlen);
}

int rcusim_set(sim_params *p, const char *assignment, const char *origin, char *err, size_t errlen)
{
	bool unknown;
	return set_one(p, assignment, origin, true, err, errlen, &unknown);
}

/* Append line @msg to @buf (room @len), as far as it fits. */
static void add_line(char *buf, size_t len, const char *msg)
{
	size_t used = strlen(buf);
	if (used + 1 < len)
		snprintf(buf + used, len - used, "%s%s", used ? "\n" : "", msg);
}

/* next_arg() (lib/cmdline.c 6.12) on the word @w (blanks outside quotes
 * already split off): a leading '"' of the word and one of the value are
 * dropped, with the word's last character if it is a '"'. The key into
 * *@param, the value into *@val (NULL: no '='), both pointing into @w,
 * which is changed. */
static void next_arg(char *w, char **param, char **val)
{
	size_t equals = 0, i = strlen(w);
	bool quoted = false;
	if (*w == '"') {
		w++;
		i--;
		quoted = true;
	}
	for (size_t k = 0; k < i; k++)
		if (!equals && w[k] == '=')
			equals = k;
	*param = w;
	*val = NULL;
	if (equals) {
		w[equals] = 0;
		*val = w + equals + 1;
		if (**val == '"') {
			(*val)++;
			if (w[i - 1] == '"')
				w[i - 1] = 0;
		}
	}
	if (quoted && i > 0 && w[i - 1] == '"')
		w[i - 1] = 0;
}

int rcusim_set_cmdline(sim_params *p, const char *cmdline, const char *origin, char *ignored,
		       size_t ilen, char *warn, size_t wlen, char *err, size_t errlen)
{
	char word[1024], asg[1024], nohz_full[1024] = "", msg[2400];
	bool nohz_full_seen = false;
	size_t used = 0;
	if (ilen)
		ignored[0] = 0;
	if (wlen)
		warn[0] = 0;
	const char *s = cmdline;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (!*s)
			break;
		size_t n = 0;
		bool quoted = false;
		while (*s && (quoted || (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r'))) {
			if (*s == '"')
				quoted = !quoted;
			if (n + 1 < sizeof(word))
				word[n++] = *s;
			else
				n = sizeof(word); /* too long: said below */
			s++;
		}
		if (n >= sizeof(word)) {
			snprintf(err, errlen, "%s: a word of more than %zu characters", origin, sizeof(word) - 1);
			return SIM_EINPUT;
		}
		word[n] = 0;
		char *param, *val;
		next_arg(word, &param, &val);
		if (!val && !strcmp(param, "--"))
			break; /* the rest is init's */
		/* A second nohz_full= that differs is refused by
		 * housekeeping_setup() (kernel/sched/isolation.c 6.12): "nohz_full=
		 * must match isolcpus=", and the first stays. */
		const kparam *kp = kparam_find(param);
		if (kp && kp->kind == KV_NOHZ_FULL && val && *val) {
			if (nohz_full_seen) {
				if (strcmp(val, nohz_full)) {
					snprintf(msg, sizeof(msg), "%s: %s=%s: a second nohz_full=, refused as the "
								   "kernel refuses it (\"Housekeeping: nohz_full= "
								   "must match isolcpus=\"): the first, nohz_full=%s, stays",
						 origin, param, val, nohz_full);
					add_line(warn, wlen, msg);
				}
				continue;
			}
			nohz_full_seen = true;
			snprintf(nohz_full, sizeof(nohz_full), "%s", val);
		}
		snprintf(asg, sizeof(asg), "%s%s%s", param, val ? "=" : "", val ? val : "");
		bool unknown;
		int rc = set_one(p, asg, origin, false, err, errlen, &unknown);
		if (rc == RCUSIM_KP_UNMODELLED || (rc == SIM_EINPUT && unknown)) {
			/* Not modelled: a warning where it would change the run,
			 * else listed; never fatal. */
			const char *what = relevant_change(param);
			if (what) {
				snprintf(msg, sizeof(msg), "%s: %s%s%s: not modelled, and it would change the run: %s",
					 origin, param, val ? "=" : "", val ? val : "", what);
				add_line(warn, wlen, msg);
				err[0] = 0;
				continue;
			}
			size_t wl = strlen(param);
			if (used + wl + 2 < ilen) {
				if (used)
					ignored[used++] = ' ';
				memcpy(ignored + used, param, wl);
				used += wl;
				ignored[used] = 0;
			}
			continue;
		}
		if (rc == RCUSIM_KP_KEPT) {
			add_line(warn, wlen, err);
			err[0] = 0;
			continue;
		}
		if (rc)
			return rc;
	}
	return 0;
}

const char *rcusim_kernel_param_target(const char *kernel)
{
	const kparam *k = kparam_find(kernel);
	return k ? k->rcusim : NULL;
}

void rcusim_kernel_params_print(void *out)
{
	FILE *f = out;
	for (size_t i = 0; i < NKPARAMS; i++) {
		const kparam *k = &kparams[i];
		fprintf(f, "%-36s %-28s %s (kernel-parameters.txt 6.12:%s)\n", k->kernel, k->rcusim,
			kv_how[k->kind], k->line);
	}
}
