/*
 * interrupt.h - SIGINT, SIGTERM and SIGHUP stop a run at the next sample.
 *
 * While a run is in progress (between interrupt_install and
 * interrupt_restore) the first of these signals only raises a flag (and
 * stops a Python call that is running: pyrt_stop_call, which raises in
 * it); the sample loop, the case loop and the wait for a device lock look
 * at it and return AB_ERR_INTERRUPTED, the runner marks the run 'interrupted' and
 * `abbench run` exits 128 + the signal's number (130 for SIGINT, 143 for
 * SIGTERM, 129 for SIGHUP). A second signal while the first is being
 * handled kills the process at once (the handlers reset themselves): its
 * run row is then marked 'interrupted' by the next command that opens the
 * database (store.h). A signal the process started with ignored (nohup's
 * SIGHUP, SIGINT of a background job in a script) stays ignored.
 */
#ifndef AB_INTERRUPT_H
#define AB_INTERRUPT_H

#include <stdbool.h>

#include "common/diag.h"

/* Installs the handlers (no SA_RESTART: a blocking wait returns EINTR). */
void interrupt_install(void);

/* Puts back the dispositions interrupt_install found. The flag stays, so
 * that the caller can still read interrupt_signal. */
void interrupt_restore(void);

/* The signal caught since interrupt_install, or 0. */
int interrupt_signal(void);

/* "SIGINT", "SIGTERM", "SIGHUP" (the signals a run stops on), else "a
 * signal": how the run's and the supervisor's messages name it. */
const char *interrupt_signal_name(int sig);

/* AB_OK, or AB_ERR_INTERRUPTED with "interrupted by SIGINT" (or the signal
 * caught) in d. */
enum ab_rc interrupt_check(struct ab_diag *d);

/* rc, unless a signal was caught and rc is another failure: what it
 * stopped (a Python call raising Stopped, a wait cut short) failed because
 * of it, so the work was interrupted (interrupt_check's code and text). */
enum ab_rc interrupt_over(enum ab_rc rc, struct ab_diag *d);

#endif
