/*
 * resume.h - `abbench run --resume RUN`: the cases an interrupted (or
 * failed) run did not finish, measured into the same run.
 *
 * A run commits each case as it finishes (store_commit_case), so one that
 * was stopped keeps the cases it finished, each whole. Resuming measures
 * the others into the same run, which is 'ok' once it holds every case it
 * planned. Only what the run measured may be resumed: the same scenario
 * text (its sha256), the same build (commit and version), the same
 * backend, fake timer or not, the same device (uuid), the same arms from
 * outside (each one's file and sha256: a Python module, a plugin
 * library, a compiled binary, and the rest the run stored of it: a
 * Triton metadata file's sha256, the interpreter); the run's own
 * options (--only, --shard and run set, --quick, --device, --label) are
 * taken from it, never from the command line. Anything else is refused,
 * AB_ERR_USAGE, naming what differs. The A/B/A statistics are per case
 * (a case's slots are measured back to back by one process), so cases
 * measured by two processes of the same build on the same device stay
 * comparable; the run's notes and `resumed` count say it was resumed.
 */
#ifndef AB_RESUME_H
#define AB_RESUME_H

#include <stdbool.h>

#include "backend/backend.h"
#include "common/diag.h"
#include "common/results.h"
#include "config/scenario.h"

/* The stored run RUN (an id, a label, 'last') of db_path, whole, for
 * resume_check and resume_done; AB_ERR_USAGE for a run set, and for a run
 * that is 'ok' or still 'running' (nothing to resume). Release with
 * results_run_free. */
enum ab_rc resume_load(const char *db_path, const char *spec, struct results_run **out, struct ab_diag *d);

/* What must be equal before anything is measured: the scenario s (its
 * text's hash, its cases after the run's --only and --shard: planned) and
 * this build against the run. */
enum ab_rc resume_check_scenario(const struct results_run *run, const struct scenario *s, int planned,
				 const char *backend, struct ab_diag *d);

/* Once the arms are planned (their files read): each user arm the run
 * stored (table run_arms) is the one planned now, from the same file
 * with the same sha256 and details; refused naming the arm and the file. */
struct arms;
enum ab_rc resume_check_arms(const struct results_run *run, const struct arms *arms, struct ab_diag *d);

/* And once the backend is open and has described its device: the same
 * device, and fake timer or not. */
enum ab_rc resume_check_device(const struct results_run *run, bool fake_timer, const struct results_device *dev,
			       struct ab_diag *d);

/* Whether the run already holds the case at ordinal k. */
bool resume_done(const struct results_run *run, int k);

#endif
