/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * status.c - the exit status of a command, chosen in one place
 * (cli_exit_status()), and the signals that stop a run, whose number the
 * status of a stopped run carries (128 + signal). While a run has them
 * caught (cli_stop_catch()), such a signal only sets the flag that the
 * engine watches, and the run ends, recorded as aborted.
 */
#include <assert.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

#include "cli.h"

/* The signals that stop a run, which is then recorded as aborted: the
 * terminal's and the shell's (INT, HUP), kill's (TERM), and a reader of
 * our output that went away (PIPE). */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
#define NSTOP_SIGNALS (sizeof(stop_signals) / sizeof(stop_signals[0]))

static volatile sig_atomic_t stop_signal;        /* the signal that asked a run to stop */
static struct sigaction stop_old[NSTOP_SIGNALS]; /* their actions before cli_stop_catch() */
static bool stop_caught;                         /* cli_stop_catch() is in force */

/* A SIGPIPE that our own write raised (the kernel sends it to the writer
 * as from itself: SI_USER, our pid) is that write's EPIPE, which the
 * writer handles (a --trace whose reader is gone); one sent by another
 * process stops the run. */
static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	if (sig == SIGPIPE && info && info->si_code == SI_USER && info->si_pid == getpid())
		return;
	stop_signal = sig;
}

int cli_exit_status(int err)
{
	switch (err) {
	case SIM_OK:
		return 0;
	case SIM_EINPUT:
	case SIM_ENORUN:
	case SIM_ENOFILE:
		return EXIT_USAGE;
	case SIM_ECHECK:
	case SIM_EMETRIC:
		return EXIT_SIMFAIL;
	case SIM_ESTOPPED:
		return 128 + (stop_signal ? (int)stop_signal : SIGTERM);
	default: /* SIM_ENOMEM, SIM_EIO, SIM_ENEWER, anything unforeseen */
		return EXIT_IO;
	}
}

void cli_stop_catch(void)
{
	struct sigaction sa = { 0 };
	assert(!stop_caught);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (size_t k = 0; k < NSTOP_SIGNALS; k++) {
		sigaction(stop_signals[k], NULL, &stop_old[k]);
		/* A signal the caller ignores (nohup's SIGHUP) stays ignored. */
		if (stop_old[k].sa_handler != SIG_IGN)
			sigaction(stop_signals[k], &sa, NULL);
	}
	stop_caught = true;
}

void cli_stop_release(void)
{
	if (!stop_caught)
		return;
	for (size_t k = 0; k < NSTOP_SIGNALS; k++)
		sigaction(stop_signals[k], &stop_old[k], NULL);
	stop_caught = false;
}

const volatile sig_atomic_t *cli_stop_flag(void)
{
	return &stop_signal;
}
