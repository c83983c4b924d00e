/*
 * interrupt.c - the signal flag a run looks at between samples.
 */
#include "run/interrupt.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>

static volatile sig_atomic_t caught;

static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
#define N_SIGNALS ((int)(sizeof signals / sizeof signals[0]))

static struct sigaction saved[N_SIGNALS];

static void on_signal(int sig)
{
	if (!caught)
		caught = sig;
}

void interrupt_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND; /* a second signal takes the default action */
	sigemptyset(&sa.sa_mask);
	caught = 0;
	for (int i = 0; i < N_SIGNALS; i++) {
		sigaction(signals[i], NULL, &saved[i]);
		if (saved[i].sa_handler != SIG_IGN) /* nohup, a shell's background job: left so */
			sigaction(signals[i], &sa, NULL);
	}
}

void interrupt_restore(void)
{
	for (int i = 0; i < N_SIGNALS; i++)
		sigaction(signals[i], &saved[i], NULL);
}

int interrupt_signal(void)
{
	return caught;
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	}
	return "a signal";
}

enum ab_rc interrupt_check(struct ab_diag *d)
{
	int sig = caught;
	if (!sig)
		return AB_OK;
	return ab_fail(d, AB_ERR_INTERRUPTED, "interrupted by %s", signal_name(sig));
}
