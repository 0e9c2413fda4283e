/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * record.c - `rcusim record OUT [--seconds N] [--load pipe|socket|file|none]
 * [--cpus LIST]`: this box's kernel trace, in the tracefs text `rcusim
 * import` reads, recorded through the trace library (trace/record.c:
 * libtracefs, a private instance, every event enabled before tracing
 * starts, nothing of the box's own settings touched, the instance removed),
 * under a built-in load pinned to each CPU of the list: pipe() and close()
 * (one callback each: the pipe's inode), socketpair(AF_UNIX) and close (two
 * sockets), open(O_CREAT) and close of a file of its own; 20 of them, then
 * 1 ms asleep, over and over (--loops such tasks on each CPU). Or sync:
 * membarrier(MEMBARRIER_CMD_GLOBAL) back to back, with no sleep: on a box
 * of more than one CPU each call is one synchronize_rcu()
 * (kernel/sched/membarrier.c 6.18:651-657; -EINVAL under nohz_full, :653),
 * the call the syncrcu workload models; the recording then also holds
 * syscalls' sys_enter/exit_membarrier, from which `rcusim import` measures
 * each call (syncrcu.latency_*).
 *
 * The buffer: 20 MB per CPU a second recorded (this project's 2-vCPU guest
 * writes 45 bytes an event, 1.2 MB a CPU a second under the pipe load, 4.5
 * under four pipe loops a CPU, 14.6 under four socket loops), at most a
 * quarter of MemAvailable over the CPUs (at least 8 MB); --buffer-kb sets
 * it. Events the buffer overwrote anyway are said (each CPU's stats'
 * overrun): the trace keeps the last part of the recording.
 */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "cpulist.h"
#include "trace.h"

static const char record_usage[] =
	"usage: rcusim record OUT [--seconds N] [--load pipe|socket|file|sync|none] [--loops N]\n"
	"                     [--cpus LIST] [--buffer-kb N]\n"
	"\n"
	"Record this box's kernel trace into OUT, as the tracefs trace file's text that\n"
	"`rcusim import` reads: softirq_entry/exit, sched_switch, sched_wakeup and\n"
	"rcu_utilization, and where the kernel has them the CONFIG_RCU_TRACE events and\n"
	"kmem_cache_free/kfree filtered to rcu_do_batch's. Through libtracefs, in a\n"
	"private instance (rcusim-record-PID) with every event enabled before tracing\n"
	"starts; the box's own tracing settings are not touched, and the instance is\n"
	"removed at the end, or at INT, TERM or HUP. Needs root and tracefs: without\n"
	"them, or when the kernel refuses a required event, it says so and exits 3,\n"
	"leaving nothing enabled. RCUSIM_TRACEFS names another tracefs mount.\n"
	"\n"
	"  --seconds N    how long to record (default 10, at most 3600)\n"
	"  --load L       a load pinned to each CPU of the list while it records\n"
	"                 (its tasks named rcusim-load):\n"
	"                 pipe (pipe() and close(): 1 callback each), socket\n"
	"                 (socketpair(AF_UNIX) and close: 2), file (open(O_CREAT) and\n"
	"                 close), or none (default pipe); 20 calls, then 1 ms asleep;\n"
	"                 or sync: membarrier(MEMBARRIER_CMD_GLOBAL), one\n"
	"                 synchronize_rcu() each, back to back, the syscall's\n"
	"                 sys_enter/exit_membarrier events recorded too (import\n"
	"                 measures each call: syncrcu.latency_*)\n"
	"  --loops N      tasks of the load on each CPU (default 1, at most 64)\n"
	"  --cpus LIST    the CPUs recorded and loaded (default all online)\n"
	"  --buffer-kb N  the ring buffer of each CPU (default 20480 a second\n"
	"                 recorded, at most a quarter of MemAvailable over the\n"
	"                 CPUs, at least 8192); events it overwrites are said, and the\n"
	"                 trace then keeps the last part of the recording\n";

/* MemAvailable in KB, or 0 if unknown. */
static uint64_t mem_available_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (!f)
		return 0;
	char l[256];
	unsigned long long kb = 0;
	while (fgets(l, sizeof(l), f))
		if (sscanf(l, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* A whole number @s in [lo, hi] into *@v, else said under @opt: 0 or -1. */
static int whole(const char *opt, const char *s, long lo, long hi, long *v)
{
	char *e;
	errno = 0;
	*v = strtol(s, &e, 10);
	if (e == s || *e || errno || *v < lo || *v > hi) {
		fprintf(stderr, "rcusim record: %s %s: want a whole number, %ld to %ld\n", opt, s, lo, hi);
		return -1;
	}
	return 0;
}

/* The load's loop number @n on @cpu until a signal: 0 or the errno of a call. */
static int load_loop(const char *kind, int cpu, int n)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return errno;
	/* Its own name in the trace, apart from rcusim's other processes
	 * (calibrate finds the load by name). */
	(void)prctl(PR_SET_NAME, "rcusim-load");
	char path[80];
	snprintf(path, sizeof(path), "/tmp/rcusim-record-%ld-%d-%d", (long)getppid(), cpu, n);
	struct timespec ms = { 0, 1000000 };
	if (!strcmp(kind, "sync"))
		for (;;)
			if (syscall(__NR_membarrier, 1 /* MEMBARRIER_CMD_GLOBAL */, 0, 0))
				return errno;
	for (;;) {
		for (int i = 0; i < 20; i++) {
			int fd[2];
			if (!strcmp(kind, "pipe")) {
				if (pipe(fd))
					return errno;
				close(fd[0]);
				close(fd[1]);
			} else if (!strcmp(kind, "socket")) {
				if (socketpair(AF_UNIX, SOCK_STREAM, 0, fd))
					return errno;
				close(fd[0]);
				close(fd[1]);
			} else {
				int f = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
				if (f < 0)
					return errno;
				close(f);
			}
		}
		nanosleep(&ms, NULL);
	}
}

int cmd_record(int argc, char **argv)
{
	const char *out_path = NULL, *secs_s = NULL, *load = NULL, *cpus = NULL, *loops_s = NULL,
		   *buf_s = NULL;
	const cli_str strs[] = { { "--seconds", &secs_s },  { "--load", &load },	   { "--cpus", &cpus },
				 { "--loops", &loops_s },   { "--buffer-kb", &buf_s }, { NULL, NULL } };
	for (int i = 1; i < argc; i++) {
		int rc;
		if (cli_help(argv[i], record_usage))
			return 0;
		if ((rc = cli_strs(argc, argv, &i, strs))) {
			if (rc < 0)
				return EXIT_USAGE;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "rcusim record: unknown option %s\n%s", argv[i], record_usage);
			return EXIT_USAGE;
		} else if (out_path) {
			fprintf(stderr, "rcusim record: one output at a time (got %s and %s)\n", out_path, argv[i]);
			return EXIT_USAGE;
		} else {
			out_path = argv[i];
		}
	}
	if (!out_path) {
		fprintf(stderr, "rcusim record: no output file given\n%s", record_usage);
		return EXIT_USAGE;
	}
	long secs = 10;
	if (secs_s) {
		char *e;
		secs = strtol(secs_s, &e, 10);
		if (e == secs_s || *e || secs < 1 || secs > 3600) {
			fprintf(stderr, "rcusim record: --seconds %s: want whole seconds, 1 to 3600\n", secs_s);
			return EXIT_USAGE;
		}
	}
	long loops = 1, buf_kb = 0;
	if ((loops_s && whole("--loops", loops_s, 1, 64, &loops)) ||
	    (buf_s && whole("--buffer-kb", buf_s, 64, 1L << 30, &buf_kb)))
		return EXIT_USAGE;
	if (!load)
		load = "pipe";
	if (strcmp(load, "pipe") && strcmp(load, "socket") && strcmp(load, "file") && strcmp(load, "sync") &&
	    strcmp(load, "none")) {
		fprintf(stderr, "rcusim record: --load %s: pipe, socket, file, sync or none\n", load);
		return EXIT_USAGE;
	}
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 1 || ncpus > 1000000)
		ncpus = 1;
	bool *mask = calloc((size_t)ncpus, sizeof(bool));
	if (!mask) {
		fprintf(stderr, "rcusim record: out of memory\n");
		return EXIT_IO;
	}
	char why[512];
	if (cpus) {
		if (sim_cpulist_parse("--cpus", cpus, (int)ncpus, mask, why, sizeof(why))) {
			fprintf(stderr, "rcusim record: %s\n", why);
			free(mask);
			return EXIT_USAGE;
		}
	} else {
		for (long i = 0; i < ncpus; i++)
			mask[i] = true;
	}
	long nrec = 0;
	for (long i = 0; i < ncpus; i++)
		nrec += mask[i];
	if (!buf_kb) {
		uint64_t cap = mem_available_kb() / 4 / (uint64_t)(nrec ? nrec : 1);
		buf_kb = secs * 20480;
		if (cap && (uint64_t)buf_kb > cap)
			buf_kb = cap < 8192 ? 8192 : (long)cap;
	}
	char err[1024];
	FILE *out = fopen(out_path, "w");
	if (!out) {
		fprintf(stderr, "rcusim record: %s: %s\n", out_path, strerror(errno));
		free(mask);
		return EXIT_IO;
	}
	cli_stop_catch();
	trace_rec *r = NULL;
	size_t nkids = (size_t)ncpus * (size_t)loops;
	pid_t *kids = calloc(nkids, sizeof(pid_t));
	int status = EXIT_IO;
	int rc = kids ? trace_rec_start(&r, getenv("RCUSIM_TRACEFS"), cpus, (size_t)buf_kb, !strcmp(load, "sync"),
						err, sizeof(err)) : ENOMEM;
	if (rc) {
		fprintf(stderr, "rcusim record: %s\n", kids ? err : "out of memory");
		goto out;
	}
	for (const char *n = trace_rec_notes(r), *e; *n; n = e + 1) {
		if (!(e = strchr(n, '\n')))
			break;
		fprintf(stderr, "rcusim record: %.*s\n", (int)(e - n), n);
	}
	if (strcmp(load, "none"))
		for (size_t k = 0; k < nkids; k++) {
			long i = (long)(k % (size_t)ncpus);
			if (!mask[i])
				continue;
			pid_t p = fork();
			if (p == 0) {
				signal(SIGTERM, SIG_DFL);
				signal(SIGINT, SIG_DFL);
				_exit(load_loop(load, (int)i, (int)(k / (size_t)ncpus)) ? 3 : 0);
			}
			if (p < 0) {
				fprintf(stderr, "rcusim record: fork: %s\n", strerror(errno));
				goto out;
			}
			kids[k] = p;
		}
	struct timespec left = { secs, 0 };
	while (!*cli_stop_flag() && nanosleep(&left, &left) && errno == EINTR)
		;
	for (size_t k = 0; k < nkids; k++)
		if (kids[k] > 0)
			kill(kids[k], SIGTERM);
	rc = trace_rec_stop(r, out, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "rcusim record: %s: %s\n", out_path, err);
		goto out;
	}
	uint64_t lost = trace_rec_lost(r);
	if (lost)
		fprintf(stderr,
			"rcusim record: the buffer (%ld KB a CPU) overwrote %llu events: %s keeps the last part "
			"of the %ld s only (a bigger --buffer-kb, or fewer --seconds)\n",
			buf_kb, (unsigned long long)lost, out_path, secs);
	status = *cli_stop_flag() ? 128 + *cli_stop_flag() : 0;
	if (!status)
		printf("recorded %ld s of CPUs %s under the %s load (%ld a CPU) into %s, %llu events lost\n", secs,
		       cpus ? cpus : "all", load, strcmp(load, "none") ? loops : 0L, out_path,
		       (unsigned long long)lost);
out:
	for (size_t k = 0; kids && k < nkids; k++)
		if (kids[k] > 0) {
			long i = (long)(k % (size_t)ncpus);
			kill(kids[k], SIGTERM);
			int ws;
			waitpid(kids[k], &ws, 0);
			if (!strcmp(load, "file")) {
				char path[80];
				snprintf(path, sizeof(path), "/tmp/rcusim-record-%ld-%ld-%zu", (long)getpid(), i,
					 k / (size_t)ncpus);
				unlink(path);
			}
			if (!status && WIFEXITED(ws) && WEXITSTATUS(ws)) {
				fprintf(stderr, "rcusim record: the %s load on CPU %ld failed\n", load, i);
				status = EXIT_IO;
			}
		}
	trace_rec_destroy(r);
	cli_stop_release();
	if (fclose(out) && !status) {
		fprintf(stderr, "rcusim record: %s: %s\n", out_path, strerror(errno));
		status = EXIT_IO;
	}
	if (status && status < 128 && rc)
		unlink(out_path);
	free(kids);
	free(mask);
	return status;
}
