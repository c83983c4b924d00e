/*
 * supervise.h - `abbench run` as two processes: the one the user started
 * (the supervisor) forks the one that runs, waits for it and answers for
 * it, so that no arm can end abbench silently, hang it, or outlive a
 * signal.
 *
 * What the supervisor does, with nothing loaded (no Python, no CUDA, no
 * database open) and nothing to do but wait:
 *   - it forwards SIGINT, SIGTERM and SIGHUP to the run (each is caught
 *     there: run/interrupt.h), and if the run has not ended 1.5 s after
 *     the first, it kills it, marks its row 'interrupted' and exits 128 +
 *     the signal: one signal ends any run within 2 s, whatever an arm is
 *     doing. A signal ignored when abbench started stays ignored.
 *   - it keeps the per-call time limit of arms from outside (scenario key
 *     call_limit_s, 60 s by default, 0 none; the first call of a slot,
 *     its warm-up, ten times that): past it it asks the run to stop the
 *     call (SUPERVISE_LIMIT_SIGNAL: a Python call raises there, pyrt.h)
 *     and, 2 s later, kills the run if the call has not returned (native
 *     code cannot be stopped), marks it 'failed' naming the case, the arm
 *     and the slot, and exits 3.
 *   - when the run's process ends without having said it is done (after
 *     printing its summary, or its error), however it ended (os._exit or
 *     exit() in an arm, a crash, the OOM killer), it marks the run (if a
 *     row was written) 'failed' (or 'interrupted' when a signal that is
 *     not a crash killed it), names the case, arm and slot of the call
 *     that was running, and exits 3 (128 + the signal when interrupted):
 *     never 0 without the summary.
 * The run's row names the supervisor as its owner (procid.h): while it
 * lives the run is not taken for dead; killed with SIGKILL, it takes the
 * run with it (PR_SET_PDEATHSIG) and the next command marks the row.
 *
 * The running side tells it where it is through a page of memory both
 * share (supervise_slot, supervise_call_begin/end: a few stores and one
 * clock read a call, outside every timed span), which run ids it wrote
 * (supervise_note_run) and that it is done (supervise_done). In a
 * process that was not forked so (a unit test), the same functions keep
 * their state locally: a call that returns past its limit still fails.
 */
#ifndef AB_SUPERVISE_H
#define AB_SUPERVISE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/diag.h"

/* Sent by the supervisor to the run when a call passes its limit. */
#define SUPERVISE_LIMIT_SIGNAL (SIGRTMIN + 5)
/* How long the run has to end after a signal, and a stopped call to return. */
#define SUPERVISE_SIGNAL_GRACE_MS 1500
#define SUPERVISE_LIMIT_GRACE_MS 2000
/* The warm-up call's limit, in calls' limits. */
#define SUPERVISE_WARMUP_FACTOR 10

/* What the supervisor needs to mark a run: the database (db: as the
 * command line spelled it, for messages; db_path: absolute). */
struct supervise_target {
	const char *db, *db_path;
};

/* Forks. In the run's process: returns true, and the caller goes on to
 * run. In the supervisor: waits for the run as above and returns false
 * with *status the exit status for abbench. When fork fails, says so and
 * returns true (the run goes on unsupervised). */
bool supervise_fork(const struct supervise_target *t, int *status);

/* Whether this process is a run a supervisor watches. */
bool supervise_active(void);

/* ---- the running side ---- */

/* The run's row exists: id is what the supervisor marks. */
void supervise_note_run(int64_t id);

/* The slot about to be measured: its case, arm and slot names (for
 * messages) and the limit of each of its calls in seconds (0: none; an
 * arm from outside gets the scenario's call_limit_s). */
void supervise_slot(const char *case_name, const char *arm, const char *slot, double limit_s);

/* Around every call of the slot's arm (a sample, or slot_begin's warm-up
 * when warmup): the clock read, the call's number. */
void supervise_call_begin(bool warmup);

/* After it: rc as it was, or AB_ERR_BACKEND "arm 'f' (slot B): a call
 * ran past the limit of 60 s (call_limit_s) ..." when it did (the
 * supervisor stopped it, or it returned late). */
enum ab_rc supervise_call_end(enum ab_rc rc, struct ab_diag *d);

/* A SUPERVISE_LIMIT_SIGNAL came for the call at hand; async-signal-safe
 * (interrupt.c's handler asks). */
bool supervise_limit_hit(void);

/* "; stopped at FILE:LINE: in FUNC" from the message of a Python call that
 * raised Stopped, into where; "" when the message names no such place. */
void supervise_stopped_place(const char *msg, char *where, size_t len);

/* Everything is said (stdout flushed): the supervisor exits with status.
 * Returns status. */
int supervise_done(int status);

#endif
