/*
 * run_case.h - one case of a run: inputs, the bracket of slots, the output
 * checks (md5, byte compare with the first A slot, float64 reference).
 */
#ifndef AB_RUN_CASE_H
#define AB_RUN_CASE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "arms/arms.h"
#include "backend/backend.h"
#include "common/diag.h"
#include "common/results.h"
#include "config/case_plan.h"
#include "config/scenario.h"
#include "run/invariance.h"

/* Where a run's host time goes, summed over its cases (seconds): making
 * the inputs and the float64 reference, the slots (warm-up, samples and
 * their backend calls), checking the slots' outputs and inputs, the copy
 * floor. The runner adds the commits and writes them into the notes, so
 * that a run's wall time can be read phase by phase on any machine. */
struct run_case_times {
	double prep_s, slots_s, checks_s, floor_s;
};

struct run_case_env {
	const struct scenario *scn;
	const struct backend_ops *ops;
	struct backend *bk;
	struct scenario_sampling sampling;
	struct arms *arms;     /* the run's user arms (plugins, binaries) */
	const char *dump_dir;  /* NULL: no dump */
	bool progress;
	int case_index, n_cases;
	struct timespec started;  /* CLOCK_MONOTONIC at the first case: progress shows elapsed and left */
	struct run_case_times *times; /* accumulated here (NULL: not kept) */
	struct invariance *inv;   /* the rows of the run's invariance sweeps so far (NULL: not checked) */
};

/* Case c of the run resolved into p, once (config/case_plan.h): its
 * tensors, generators and sizes, and what its arms run, credit and write
 * (arms_plan_case; arms NULL: the sites' own variants by name). Every
 * call below reads the case from its plan. */
enum ab_rc run_case_plan(const struct arms *arms, const struct scenario_case *c, struct case_plan *p,
			 struct ab_diag *d);

/* The host memory run_case_run allocates for the case planned p beside
 * the backend's: the host copy of every tensor, the float64 reference and
 * tolerance of each output, the first A slot's outputs, the sample
 * arrays. */
uint64_t run_case_host_bytes(const struct case_plan *p, const struct scenario_sampling *sampling, int n_slots);

/* Measures the case planned p into out (which the caller releases with
 * the run). */
enum ab_rc run_case_run(const struct run_case_env *env, const struct case_plan *p, struct results_case *out,
			struct ab_diag *d);

/* Every arm of c called once, untimed, nothing kept: on the case's own
 * inputs, each arm's slot_begin (a user arm primed there), one untimed
 * sample in the run's mode, its slot_end, its inputs checked unchanged.
 * The runner does this for every case before the first slot of the run,
 * so that a broken arm fails in seconds, before anything is measured or
 * stored; the error is the arm's, as a slot would give it. */
enum ab_rc run_case_preflight(const struct run_case_env *env, const struct case_plan *p, struct ab_diag *d);

/* Seconds of CLOCK_MONOTONIC since t0 (the slots' and the run's phase times). */
double run_seconds_since(const struct timespec *t0);

#endif
