/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_params.c - the registry, unit parsing and the INI reader: values,
 * and every error naming file, line and key. */
#include <check.h>

#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "registry.h"

static sim_params *P;
static char err[1024];

static void setup(void)
{
	err[0] = 0;
	ck_assert_int_eq(sim_params_create(&P, rcusim_params, P_COUNT, err, sizeof(err)), 0);
}

static void teardown(void)
{
	sim_params_destroy(P);
	P = NULL;
}

static int load(const char *text)
{
	return sim_params_load_buffer(P, "t.ini", text, strlen(text), err, sizeof(err));
}

START_TEST(params_defaults_parse)
{
	/* Every default of the table parses (setup would have failed) and has a
	 * meaning and a source. */
	for (int k = 0; k < P_COUNT; k++) {
		ck_assert_ptr_nonnull(rcusim_params[k].meaning);
		ck_assert_ptr_nonnull(rcusim_params[k].source);
		ck_assert_int_gt((int)strlen(rcusim_params[k].source), 3);
		ck_assert_str_eq(sim_params_origin(P, (size_t)k), "default");
	}
	ck_assert_int_eq(sim_params_int(P, P_SCENARIO_DURATION), INT64_C(3600000000000));
	ck_assert_int_eq(sim_params_int(P, P_MACHINE_MEMORY), INT64_C(16) << 30);
	ck_assert_int_eq(sim_params_int(P, P_MACHINE_PAGE_SIZE), 8192);
	ck_assert_double_eq(sim_params_real(P, P_MACHINE_CLOCK), 1.2e9);
	ck_assert(sim_params_is_auto(P, P_VFS_MAX_FILES));
	ck_assert_str_eq(sim_params_text(P, P_RCU_POLICY), "watermark");
	ck_assert_int_eq(sim_params_int(P, P_RCU_POLICY), 2);
}
END_TEST

START_TEST(params_units)
{
	ck_assert_int_eq(load("[scenario]\nduration = 1.5ms\nsample_interval = 250us\n"
			      "[machine]\nmemory = 2GiB\nclock = 1400MHz\n"
			      "[workload]\nqueue_rate = 3/ms\ncallrcu_rate = 120/min\n"),
			 0);
	ck_assert_int_eq(sim_params_int(P, P_SCENARIO_DURATION), 1500000);
	ck_assert_int_eq(sim_params_int(P, P_SCENARIO_SAMPLE_INTERVAL), 250000);
	ck_assert_int_eq(sim_params_int(P, P_MACHINE_MEMORY), INT64_C(2) << 30);
	ck_assert_double_eq_tol(sim_params_real(P, P_MACHINE_CLOCK), 1.4e9, 1e-3);
	ck_assert_double_eq_tol(sim_params_real(P, P_WORKLOAD_QUEUE_RATE), 3000, 1e-9);
	ck_assert_double_eq_tol(sim_params_real(P, P_WORKLOAD_CALLRCU_RATE), 2, 1e-12);
	ck_assert_str_eq(sim_params_text(P, P_SCENARIO_DURATION), "1.5ms");
	ck_assert_str_eq(sim_params_origin(P, P_SCENARIO_DURATION), "t.ini:2");
}
END_TEST

START_TEST(params_comments_and_whitespace)
{
	ck_assert_int_eq(load("; leading comment\n# another\n\n  [ rcu ]  ; trailing\n"
			      "\tblimit\t=\t42   ; inline comment\r\n"
			      "qhimark = 20000 # inline too\n"),
			 0);
	ck_assert_int_eq(sim_params_int(P, P_RCU_BLIMIT), 42);
	ck_assert_int_eq(sim_params_int(P, P_RCU_QHIMARK), 20000);
}
END_TEST

/* Each bad input: (text, expected message). */
static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	{ "[rcu]\nblimit = ten\n", "t.ini:2: rcu.blimit: expected a positive integer in [1, 2147483647], got \"ten\"" },
	{ "[rcu]\nblimit = -5\n", "t.ini:2: rcu.blimit: expected a positive integer in [1, 2147483647], got \"-5\"" },
	{ "[rcu]\nqlowmark = -1\n", "t.ini:2: rcu.qlowmark: expected a non-negative integer in [0, 2147483647], got \"-1\"" },
	{ "[scenario]\nduration = 10\n", "t.ini:2: scenario.duration: expected a time with a unit (ns, us, ms, s, min, h), got \"10\": units are never guessed" },
	{ "[scenario]\nduration = 10 parsecs\n", "t.ini:2: scenario.duration: expected a time with a unit (ns, us, ms, s, min, h) in [1ns, 1000h], got \"10 parsecs\"" },
	{ "[scenario]\nduration = 0.5ns\n", "t.ini:2: scenario.duration: expected a time with a unit (ns, us, ms, s, min, h) in [1ns, 1000h], got \"0.5ns\": not a whole number of ns" },
	{ "[machine]\nmemory = 16\n", "t.ini:2: machine.memory: expected a size with a unit (B, KiB, MiB, GiB, TiB), got \"16\": units are never guessed" },
	{ "[machine]\npage_size = 3KiB\n", "t.ini:2: machine.page_size: expected a power of two, got \"3KiB\"" },
	{ "[workload]\nqueue_rate = 500\n", "t.ini:2: workload.queue_rate: expected a rate with a unit (/s, /ms, /us, /ns, /min, /h), got \"500\": units are never guessed" },
	{ "[rcu]\npolicy = fast\n", "t.ini:2: rcu.policy: expected one of fixed|tunable|watermark, got \"fast\"" },
	{ "[rcu]\nreset_last_rs_qlen = maybe\n", "t.ini:2: rcu.reset_last_rs_qlen: expected yes or no, got \"maybe\"" },
	{ "[rcu]\nblimit = auto\n", "t.ini:2: rcu.blimit: expected a positive integer in [1, 2147483647], got \"auto\"" },
	{ "[rcu]\nbmilit = 5\n", "t.ini:2: rcu.bmilit: unknown parameter (see `rcusim params`)" },
	{ "[rcuu]\n", "t.ini:1: [rcuu]: unknown section" },
	{ "blimit = 5\n", "t.ini:1: blimit: key outside a [section]" },
	{ "[rcu\n", "t.ini:1: expected \"[section]\", got \"[rcu\"" },
	{ "[rcu]\njust words\n", "t.ini:2: expected \"key = value\" or \"[section]\", got \"just words\"" },
	{ "[rcu]\n = 5\n", "t.ini:2: expected \"key = value\", got no key" },
	{ "[rcu]\nblimit = 5\nblimit = 6\n", "t.ini:3: rcu.blimit: set twice in this file" },
	{ "[rcu]\nblimit = 1e3\n", "t.ini:2: rcu.blimit: expected a positive integer in [1, 2147483647], got \"1e3\"" },
	{ "[rcu]\nblimit = 99999999999999999999999999\n", "t.ini:2: rcu.blimit: expected a positive integer in [1, 2147483647], got \"99999999999999999999999999\"" },
	{ "[machine]\nsmt_slowdown = nan\n", "t.ini:2: machine.smt_slowdown: expected a number in [0, 1], got \"nan\"" },
	{ "[scenario]\nname =\n", "t.ini:2: scenario.name: expected a non-empty text or auto, got \"\"" },
	{ "[rcu]\nblimit = 5\ninclude = x.ini\n", "t.ini:3: rcu.include: unknown parameter (see `rcusim params`)" },
};

START_TEST(params_errors_name_file_line_key)
{
	int rc = load(bad[_i].text);
	ck_assert_int_eq(rc, SIM_EINPUT);
	ck_assert_str_eq(err, bad[_i].msg);
}
END_TEST

START_TEST(params_nul_byte)
{
	const char text[] = "[rcu]\nblimit = 5\0\n";
	ck_assert_int_eq(sim_params_load_buffer(P, "t.ini", text, sizeof(text) - 1, err, sizeof(err)),
			 SIM_EINPUT);
	ck_assert_str_eq(err, "t.ini:2: line contains a NUL byte");
}
END_TEST

START_TEST(params_set_overrides)
{
	ck_assert_int_eq(load("[rcu]\nblimit = 5\n"), 0);
	ck_assert_int_eq(sim_params_set(P, "rcu.blimit=7", err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_int(P, P_RCU_BLIMIT), 7);
	ck_assert_str_eq(sim_params_origin(P, P_RCU_BLIMIT), "--set");
	ck_assert_int_eq(sim_params_set(P, " rcu.qhimark = 123 ", err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_int(P, P_RCU_QHIMARK), 123);
	ck_assert_int_eq(sim_params_set(P, "rcu.blimit", err, sizeof(err)), SIM_EINPUT);
	ck_assert_str_eq(err, "--set: expected section.key=value, got \"rcu.blimit\"");
	ck_assert_int_eq(sim_params_set(P, "rcu.nope=1", err, sizeof(err)), SIM_EINPUT);
	ck_assert_str_eq(err, "--set: rcu.nope: unknown parameter (see `rcusim params`)");
	ck_assert_int_eq(sim_params_set(P, "scenario.duration=5", err, sizeof(err)),
			 SIM_EINPUT);
	ck_assert_ptr_nonnull(strstr(err, "--set: scenario.duration: expected a time with a unit"));
}
END_TEST

static char dir[64];

static void write_file(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(params_include_and_override)
{
	strcpy(dir, "/tmp/rcusim-params-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file("base.ini", "[rcu]\nblimit = 5\nqhimark = 500\n");
	write_file("child.ini", "include = base.ini\n[rcu]\nblimit = 9\n");
	write_file("loop.ini", "include = loop.ini\n");
	write_file("late.ini", "[rcu]\nblimit = 9\ninclude = base.ini\n");
	write_file("bad.ini", "include = base.ini\n[rcu]\nqhimark = many\n");
	char path[256];
	snprintf(path, sizeof(path), "%s/child.ini", dir);
	ck_assert_int_eq(sim_params_load_file(P, path, err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_int(P, P_RCU_BLIMIT), 9);
	ck_assert_int_eq(sim_params_int(P, P_RCU_QHIMARK), 500);
	char want[512];
	snprintf(want, sizeof(want), "%s/base.ini:3", dir);
	ck_assert_str_eq(sim_params_origin(P, P_RCU_QHIMARK), want);

	snprintf(path, sizeof(path), "%s/loop.ini", dir);
	ck_assert_int_eq(sim_params_load_file(P, path, err, sizeof(err)), SIM_EINPUT);
	ck_assert_ptr_nonnull(strstr(err, "include: nested more than 8 deep (a cycle?)"));

	snprintf(path, sizeof(path), "%s/late.ini", dir);
	ck_assert_int_eq(sim_params_load_file(P, path, err, sizeof(err)), SIM_EINPUT);
	snprintf(want, sizeof(want), "%s/late.ini:3: rcu.include: unknown parameter", dir);
	ck_assert_ptr_nonnull(strstr(err, want));

	snprintf(path, sizeof(path), "%s/bad.ini", dir);
	ck_assert_int_eq(sim_params_load_file(P, path, err, sizeof(err)), SIM_EINPUT);
	snprintf(want, sizeof(want), "%s/bad.ini:3: rcu.qhimark: expected", dir);
	ck_assert_ptr_nonnull(strstr(err, want));

	snprintf(path, sizeof(path), "%s/missing.ini", dir);
	ck_assert_int_eq(sim_params_load_file(P, path, err, sizeof(err)), SIM_ENOFILE);
	ck_assert_ptr_nonnull(strstr(err, "missing.ini: cannot read: No such file or directory"));

	const char *names[] = { "base.ini", "child.ini", "loop.ini", "late.ini", "bad.ini" };
	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}
END_TEST

START_TEST(params_listing_has_every_parameter)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sim_params_print(rcusim_params, P_COUNT, SIM_PARAMS_INI, f);
	fclose(f);
	/* The ini listing is itself a valid scenario holding every default. */
	ck_assert_int_eq(sim_params_load_buffer(P, "listing.ini", buf, len, err, sizeof(err)), 0);
	for (int k = 0; k < P_COUNT; k++)
		ck_assert_str_eq(sim_params_text(P, (size_t)k), rcusim_params[k].def);
	free(buf);
	f = open_memstream(&buf, &len);
	sim_params_print(rcusim_params, P_COUNT, SIM_PARAMS_MD, f);
	fclose(f);
	for (int k = 0; k < P_COUNT; k++) {
		char name[128];
		snprintf(name, sizeof(name), "| `%s` |", rcusim_params[k].name);
		ck_assert_ptr_nonnull(strstr(buf, name));
	}
	free(buf);
}
END_TEST

/* Two parts reading workload.syscall_cost (callrcu and syncrcu), one
 * reading rcu.lazy_flush only with rcu.lazy = yes: a knob at its default is
 * never refused; one set where no part in the run reads it is, naming the
 * failed condition of the part in the run, else the parts' kinds together,
 * in the choices' order; of two, the first in the registry is named. */
static const sim_knob callrcu_knob[] = { { P_WORKLOAD_SYSCALL_COST, SIM_ALWAYS } };
static const sim_knob syncrcu_knob[] = { { P_WORKLOAD_SYSCALL_COST, SIM_ALWAYS },
					{ P_WORKLOAD_SYNCRCU_GAP, SIM_ALWAYS } };
static const sim_knob lazy_knob[] = { { P_RCU_LAZY_FLUSH, { P_RCU_LAZY, "yes", NULL } } };
static const sim_knobs syncrcu_part = { { P_WORKLOAD_KIND, "syncrcu", NULL }, syncrcu_knob, 2 };
static const sim_knobs callrcu_part = { { P_WORKLOAD_KIND, "callrcu", NULL }, callrcu_knob, 1 };
static const sim_knobs lazy = { { P_RCU_FLAVOR, "tree", NULL }, lazy_knob, 1 };

/* [workload.NAME]: a load of its own, its parameters workload.NAME.key from
 * the registry's defaults; its view names them as its own; a second one of
 * a name, a bad name, an unknown load in --set and the run's key in a
 * load are refused naming file, line and key. */
START_TEST(params_loads)
{
	ck_assert_int_eq(load("[workload]\nkind = syncrcu\njobs = 4\n"
			      "[workload.hogs]\nkind = callrcu\njobs = 2\ncpus = 1-3\n"),
			 0);
	ck_assert_int_eq((int)sim_params_nloads(P), 1);
	ck_assert_str_eq(sim_params_load_name(P, 0), "hogs");
	ck_assert_str_eq(sim_params_load_origin(P, 0), "t.ini:4");
	int jobs = sim_params_load_param(P, 0, P_WORKLOAD_JOBS);
	ck_assert_int_ge(jobs, P_COUNT);
	ck_assert_str_eq(sim_params_def(P, (size_t)jobs)->name, "workload.hogs.jobs");
	ck_assert_int_eq(sim_params_int(P, (size_t)jobs), 2);
	ck_assert_str_eq(sim_params_origin(P, (size_t)jobs), "t.ini:6");
	ck_assert_int_eq(sim_params_load_param(P, 0, P_WORKLOAD_BARRIER), -1);
	ck_assert_int_eq(sim_params_load_param(P, 0, P_RCU_BLIMIT), -1);
	/* Unset, a load's value is the registry's default, not [workload]'s. */
	int rate = sim_params_load_param(P, 0, P_WORKLOAD_CALLRCU_RATE);
	ck_assert_str_eq(sim_params_text(P, (size_t)rate), "20000/s");
	ck_assert_str_eq(sim_params_origin(P, (size_t)rate), "default");
	ck_assert_int_eq(sim_params_set(P, "workload.hogs.callrcu_rate=5/s", err, sizeof(err)), 0);
	ck_assert_double_eq(sim_params_real(P, (size_t)rate), 5);
	/* The view: the load's values under the registry's ids, named as its
	 * own; every other parameter the scenario's. */
	sim_params *v;
	ck_assert_int_eq(sim_params_load_view(P, 0, &v), 0);
	ck_assert_str_eq(sim_params_text(v, P_WORKLOAD_KIND), "callrcu");
	ck_assert_int_eq(sim_params_int(v, P_WORKLOAD_JOBS), 2);
	ck_assert_str_eq(sim_params_text(v, P_WORKLOAD_CPUS), "1-3");
	ck_assert_double_eq(sim_params_real(v, P_WORKLOAD_CALLRCU_RATE), 5);
	ck_assert_str_eq(sim_params_def(v, P_WORKLOAD_JOBS)->name, "workload.hogs.jobs");
	ck_assert_str_eq(sim_params_def(v, P_RCU_BLIMIT)->name, "rcu.blimit");
	ck_assert_int_eq((int)sim_params_count(v), P_COUNT);
	ck_assert(sim_params_set_by_scenario(v, P_WORKLOAD_KIND));
	char a[256];
	sim_params_where(v, P_WORKLOAD_CPUS, a, sizeof(a));
	ck_assert_str_eq(a, "t.ini:7: workload.hogs.cpus");
	sim_params_destroy(v);
	ck_assert_ptr_eq(sim_param_def_find(rcusim_params, P_COUNT, "workload.any.jobs"),
			 &rcusim_params[P_WORKLOAD_JOBS]);
	ck_assert_ptr_null(sim_param_def_find(rcusim_params, P_COUNT, "workload.any.barrier"));
	ck_assert_ptr_null(sim_param_def_find(rcusim_params, P_COUNT, "rcu.any.blimit"));

	ck_assert_int_eq(sim_params_set(P, "workload.hugs.jobs=1", err, sizeof(err)), SIM_EINPUT);
	ck_assert_str_eq(err, "--set: workload.hugs.jobs: no load named hugs in the scenario (its named "
			      "loads: hogs); a [workload.hugs] section adds one");
	ck_assert_int_eq(sim_params_set(P, "workload.hogs.barrier_gap=2s", err, sizeof(err)), SIM_EINPUT);
	ck_assert_str_eq(err, "--set: workload.hogs.barrier_gap: the run's, not a load's: set "
			      "workload.barrier_gap in [workload]");
	ck_assert_int_eq(load("[workload.x]\nkind = make\n\n[workload.hogs]\n"), SIM_EINPUT);
	ck_assert_str_eq(err, "t.ini:4: [workload.hogs]: a second load named hogs (the first at t.ini:4)");
	ck_assert_int_eq(load("[workload.Hogs2]\n"), SIM_EINPUT);
	ck_assert_str_eq(err, "t.ini:1: [workload.Hogs2]: a load's name is 1 to 32 of a-z, 0-9 and _, "
			      "and not main ([workload] is the main load)");
	ck_assert_int_eq(load("[workload.y]\nbarrier = yes\n"), SIM_EINPUT);
	ck_assert_str_eq(err, "t.ini:2: workload.y.barrier: the run's, not a load's: set workload.barrier "
			      "in [workload]");
}
END_TEST

START_TEST(params_knobs_refused_where_no_part_reads_them)
{
	const sim_knobs *parts[] = { &syncrcu_part, &callrcu_part, &lazy };
	ck_assert_int_eq(sim_params_set(P, "workload.kind=make", err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_check_knobs(P, parts, 3, err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_set(P, "workload.syscall_cost=1us", err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_check_knobs(P, parts, 3, err, sizeof(err)), SIM_EINPUT);
	ck_assert_str_eq(err, "--set: workload.syscall_cost: applies only with workload.kind = "
			      "callrcu or syncrcu, and workload.kind is make (--set)");
	ck_assert_int_eq(sim_params_set(P, "workload.kind=callrcu", err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_check_knobs(P, parts, 3, err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_set(P, "rcu.flavor=tree", err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_set(P, "rcu.lazy_flush=5s", err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_set(P, "workload.syncrcu_gap=1ms", err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_check_knobs(P, parts, 3, err, sizeof(err)), SIM_EINPUT);
	ck_assert_str_eq(err, "--set: rcu.lazy_flush: applies only with rcu.lazy = yes, and rcu.lazy "
			      "is no (default)");
	ck_assert_int_eq(sim_params_set(P, "rcu.lazy=yes", err, sizeof(err)), 0);
	ck_assert_int_eq(sim_params_check_knobs(P, parts, 3, err, sizeof(err)), SIM_EINPUT);
	ck_assert_str_eq(err, "--set: workload.syncrcu_gap: applies only with workload.kind = "
			      "syncrcu, and workload.kind is callrcu (--set)");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("params");
	TCase *tc = tcase_create("params");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, params_defaults_parse);
	tcase_add_test(tc, params_loads);
	tcase_add_test(tc, params_knobs_refused_where_no_part_reads_them);
	tcase_add_test(tc, params_units);
	tcase_add_test(tc, params_comments_and_whitespace);
	tcase_add_loop_test(tc, params_errors_name_file_line_key, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, params_nul_byte);
	tcase_add_test(tc, params_set_overrides);
	tcase_add_test(tc, params_include_and_override);
	tcase_add_test(tc, params_listing_has_every_parameter);
	suite_add_tcase(s, tc);
	return testlib_run_suite(s);
}
