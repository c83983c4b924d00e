/*
 * interrupt.c - the signal flag a run looks at between samples.
 */
#include "run/interrupt.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "arms/pyrt.h"
#include "run/supervise.h"

static volatile sig_atomic_t caught;

static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
#define N_SIGNALS ((int)(sizeof signals / sizeof signals[0]))

static struct sigaction saved[N_SIGNALS];

/* The flag, and a Python call running is asked to stop (pyrt.h): one
 * that spins or sleeps would not come back to look at the flag. */
static void on_signal(int sig)
{
	if (!caught)
		caught = sig;
	pyrt_stop_call();
}

void interrupt_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	/* A second signal takes the default action; under a supervisor, which
	 * forwards what it gets (a terminal's Ctrl-C reaches both) and ends
	 * the run 1.5 s after the first anyway, it changes nothing. */
	sa.sa_flags = supervise_active() ? 0 : SA_RESETHAND;
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

const char *interrupt_signal_name(int sig)
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
	return ab_fail(d, AB_ERR_INTERRUPTED, "interrupted by %s", interrupt_signal_name(sig));
}

enum ab_rc interrupt_over(enum ab_rc rc, struct ab_diag *d)
{
	if (!rc || rc == AB_ERR_INTERRUPTED || !caught)
		return rc;
	return interrupt_check(d);
}
