/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * churn.c - the loads of the tests/data/tracefs-*churn* traces
 * (scripts/record-churn-trace.sh): DIR [SECONDS [KIND]] runs, for SECONDS
 * (default: forever), one turn after another of KIND: "file" (the default:
 * create, close and unlink one file in DIR), "pipe" (pipe() and close both
 * ends) or "socket" (an AF_UNIX datagram socket() and close()); prints the
 * turns taken.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	char p[256];
	double secs = argc > 2 ? atof(argv[2]) : 1e9;
	const char *kind = argc > 3 ? argv[3] : "file";
	struct timespec t0, t;
	long n = 0;
	if (strcmp(kind, "file") && strcmp(kind, "pipe") && strcmp(kind, "socket")) {
		fprintf(stderr, "churn: unknown kind %s (file, pipe or socket)\n", kind);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (kind[0] == 'f') {
			snprintf(p, sizeof p, "%s/f%ld", argv[1], n & 63);
			int fd = open(p, O_CREAT | O_WRONLY, 0644);
			if (fd < 0) { perror(p); return 1; }
			close(fd);
			unlink(p);
		} else if (kind[0] == 'p') {
			int fds[2];
			if (pipe(fds)) { perror("pipe"); return 1; }
			close(fds[0]);
			close(fds[1]);
		} else {
			int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
			if (fd < 0) { perror("socket"); return 1; }
			close(fd);
		}
		if ((++n & 1023) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 > secs) break;
		}
	}
	printf("%ld\n", n);
	return 0;
}
