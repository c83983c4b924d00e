/*
 * load.h - what the printing commands read before they compute and print,
 * in one place: the device profile of a run (looked up once per run and
 * passed down: to the summary, the gate's floors, the report), the peers
 * of a report, the runs of a history, and a certificate file. analysis/
 * reads no file; the store, the profiles directory and certificates are
 * read here.
 */
#ifndef AB_LOAD_H
#define AB_LOAD_H

#include <stdbool.h>

#include "analysis/history.h"
#include "analysis/summary.h"
#include "common/cert.h"
#include "common/diag.h"
#include "common/results.h"
#include "config/profile.h"
#include "store/store.h"

/* A run's device profile, as profile_find found it. */
struct load_profile {
	enum ab_rc rc;             /* AB_OK: found (prof, sp are set) */
	struct ab_diag err;        /* why not, when rc is not AB_OK */
	bool fell_back;            /* default.ini: no profile matched the device */
	struct profile prof;
	struct summary_profile sp; /* what the summary takes of it */
};

/* Looks up the profile of r's device (profile_find); prints nothing. */
void load_profile(const struct results_run *r, struct load_profile *out);

/* "COMMAND: MSG (WHAT)" as a warning when the lookup failed: a broken or
 * missing profile is said, never swallowed. */
void load_profile_warn(const struct load_profile *lp, const char *command, const char *what);

/* summary_compute_profile with the profile lp found (none when it failed). */
enum ab_rc load_summary(const struct results_run *r, enum summary_detail detail, const struct load_profile *lp,
			struct summary_run *out, struct ab_diag *d);

/* Loads into runs[*n..] the newest 'ok' run of run's scenario on each other
 * device (analysis/peers.h: peers_pick), at most max in all. */
enum ab_rc load_peers(struct store *st, const struct results_run *run, struct results_run **runs, int *n, int max,
		      struct ab_diag *d);

/* The run that report --projected-by SPEC names for run: SPEC as every
 * RUN argument reads it (an id, a label, 'last', 'set:ID'), else a
 * scenario's name, meaning its newest 'ok' run on run's device (never a
 * quick one; a fake-timer one only for a fake-timer run). AB_ERR_DATA
 * naming SPEC when nothing matches. */
enum ab_rc load_projecting_run(struct store *st, const struct results_run *run, const char *spec,
			       struct results_run **out, struct ab_diag *d);

/* The history of st's runs that f asks for: each wanted run, newest first,
 * loaded and handed to history_add_run with the baseline that names it.
 * AB_ERR_DATA when nothing matches. Free with history_free. */
enum ab_rc load_history(struct store *st, const struct history_filter *f, struct history *h, struct ab_diag *d);

/* The certificate file at path (at most 256 MiB), read and its seal
 * checked (cert_parse): certify --check and coverage read it so. */
enum ab_rc load_cert(const char *path, struct cert *c, struct ab_diag *d);

#endif
