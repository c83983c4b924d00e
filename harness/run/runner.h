/*
 * runner.h - runs a scenario: plans cases, measures A/B/A brackets on a
 * backend, checks outputs, and stores the run.
 *
 * Everything that can be checked before measuring is checked first (every
 * arm runs on the backend, every case fits in memory (admission.h), the
 * dump directory is new or empty, the database opens), so bad input never
 * leaves a run row behind, nor a dump directory it made. The device's lock (devlock.h) is then taken and
 * held to the end. Then the run row is written 'running'; each case is
 * committed as it finishes, and the row set to 'ok' once they all are, or
 * to 'failed' (an error) or 'interrupted' (SIGINT, SIGTERM or SIGHUP,
 * run/interrupt.h: AB_ERR_INTERRUPTED), keeping the cases it finished. A
 * resumed run (runner_options.resume) measures only the cases the stored
 * run lacks, into it (run/resume.h).
 */
#ifndef AB_RUNNER_H
#define AB_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/backend.h"
#include "common/diag.h"
#include "config/scenario.h"
#include "run/shard.h"

struct runner_options {
	/* The backend, chosen once by the caller (backend_choose: the
	 * scenario's or --backend's choice); the unit tests pass one that
	 * fails on purpose. */
	const struct backend_ops *ops;
	const char *db_path;
	const char *dump_dir;      /* NULL: no dump */
	const char *label;         /* NULL: none */
	bool quick;                /* cap samples for a fast look */
	bool progress;             /* progress lines on stderr */
	bool no_cupti;             /* CUDA: wall times only (to measure CUPTI's overhead) */
	const char *command_line;
	bool no_wait;              /* device busy: fail at once instead of waiting for its lock */
	struct shard shard;        /* count 0: every case */
	const char *run_set;       /* NULL: none (a plain run) */
	int device;                /* the backend's device index (cuda: as cudaSetDevice takes it) */
	const char *only;          /* run --only CASE, recorded in the run; NULL: every case */
	bool recheck;              /* run --recheck, recorded in the run: cases measured again */
	/* run --resume: the stored run to measure the remaining cases into
	 * (run/resume.h: resume_load), whose options the caller copied into
	 * these; NULL: a new run. */
	const struct results_run *resume;
};

/* What a run left in the database, also when it failed. */
struct runner_result {
	int64_t run_id;  /* 0: no run row was written */
	/* A run that failed after its row was written: its row was marked
	 * 'failed' or 'interrupted' (true), or could not be (false: mark_error
	 * says why, and the row reads 'running' until a later command finds
	 * its process gone and marks it interrupted). */
	bool marked;
	char mark_error[AB_DIAG_MAX];
};

/* Measures the scenario and stores the run; res tells what the database
 * holds of it. */
enum ab_rc runner_scenario(const struct scenario *s, const struct runner_options *o, struct runner_result *res,
			   struct ab_diag *d);

/* The sampling rule a --quick run uses instead of the scenario's (3 to 10
 * samples a slot, at most 1 s, the mean noise measure). */
struct scenario_sampling runner_quick_sampling(const struct scenario_sampling *from);

#endif
