/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * churn.c - the load of tests/data/tracefs-churn-6.18-hz250.txt.gz
 * (scripts/record-churn-trace.sh): create, close and unlink one file a
 * turn in DIR, for SECONDS (default: forever); prints the turns taken.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	char p[256];
	double secs = argc > 2 ? atof(argv[2]) : 1e9;
	struct timespec t0, t;
	long n = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		snprintf(p, sizeof p, "%s/f%ld", argv[1], n & 63);
		int fd = open(p, O_CREAT | O_WRONLY, 0644);
		if (fd < 0) { perror(p); return 1; }
		close(fd);
		unlink(p);
		if ((++n & 1023) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 > secs) break;
		}
	}
	printf("%ld\n", n);
	return 0;
}
