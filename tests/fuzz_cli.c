/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_cli.c - libFuzzer target for the command lines of every command:
 * the input, split at newlines, is the argument vector after "rcusim". Any
 * of them must end in a status with, for a failure, a message - never a
 * crash, leak or undefined behaviour (built with ASan and UBSan). The
 * target works in an empty folder of its own (so no scenario or database
 * is found unless a command made it), sweep only prints its jobs
 * (--emit-jobs: running them would start this program again), and
 * arguments naming /dev, /proc or /sys are left out (a read of /dev/stdin
 * would block the fuzzer, not rcusim), and `record` is given a tracefs that
 * does not exist (RCUSIM_TRACEFS): run as root it would otherwise make a
 * tracing instance on this box, enable its events and start its loads,
 * beside other runs (the ctest `record` among them), for up to an hour;
 * with no tracefs it refuses before any of that (exit 3), which is the
 * path fuzzed.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rcusim_main(int argc, char **argv); /* cli/main.c, built with -Dmain=rcusim_main */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	char dir[] = "/tmp/rcusim-fuzz-cli.XXXXXX";
	if (!mkdtemp(dir) || chdir(dir) || !freopen("/dev/null", "w", stdout))
		abort();
	setenv("RCUSIM_PLOTS", "/nonexistent", 1);
	setenv("RCUSIM_BUSY_TIMEOUT_MS", "100", 1);
	setenv("RCUSIM_TRACEFS", "/nonexistent/rcusim-fuzz-tracefs", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum { MAXARGS = 24 };
	char *buf = malloc(size + 1), *argv[MAXARGS + 3];
	int argc = 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	argv[argc++] = "rcusim";
	bool sweep = size >= 5 && !memcmp(buf, "sweep", 5) && (size == 5 || buf[5] == '\n');
	if (sweep) {
		/* Right after the command, where no option can take it as its
		 * value: a sweep only prints its jobs. */
		argv[argc++] = "sweep";
		argv[argc++] = "--emit-jobs";
	}
	for (char *s = buf + (sweep ? (size > 5 ? 6 : 5) : 0), *nl; s && argc < MAXARGS; s = nl ? nl + 1 : NULL) {
		nl = strchr(s, '\n');
		if (nl)
			*nl = 0;
		if (strstr(s, "/dev") || strstr(s, "/proc") || strstr(s, "/sys"))
			continue;
		argv[argc++] = s;
	}
	argv[argc] = NULL;
	int rc = rcusim_main(argc, argv);
	if (rc < 0 || rc > 255)
		abort();
	fflush(NULL);
	free(buf);
	return 0;
}
