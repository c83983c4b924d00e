/*
 * devlock.h - one measurement per device: an exclusive lock per GPU (by
 * its UUID) and one for the CPU backend of a host, held for a whole run.
 *
 * The lock is flock(2) on DIR/KEY.lock, DIR being $ABBENCH_LOCK_DIR or else
 * /tmp/abbench-locks (created mode 1777 like /tmp, lock files 0666, so that
 * every user of the machine shares them; a GPU is a machine-wide thing). A
 * lock dies with its process, kill -9 included: nothing is ever stale. The
 * holder writes who it is into the file (pid, host, scenario, since when);
 * a second run on the same device prints that and waits, or fails at once
 * with AB_ERR_BACKEND when told not to wait (`run --no-wait`, exit 3). Runs
 * on different devices use different files and never wait for each other.
 * The wait ends early with AB_ERR_INTERRUPTED on SIGINT/SIGTERM
 * (run/interrupt.h).
 */
#ifndef AB_DEVLOCK_H
#define AB_DEVLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "common/diag.h"

struct devlock;

/* Who takes the lock, for the message a waiting run prints. */
struct devlock_owner {
	const char *scenario;
	const char *label; /* NULL or "" for none */
};

/* The lock directory: $ABBENCH_LOCK_DIR, else /tmp/abbench-locks. */
const char *devlock_dir(void);

/* Takes the lock of device key (a GPU UUID, "cpu-HOST"); with wait, blocks
 * until it is free, saying once on stderr for whom it waits. *out is NULL
 * on failure. */
enum ab_rc devlock_acquire(const char *key, const struct devlock_owner *who, bool wait, struct devlock **out,
			   struct ab_diag *d);

/* Releases the lock (NULL is fine). */
void devlock_release(struct devlock *l);

#endif
