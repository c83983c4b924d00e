/*
 * run_slot.h - one slot of a case's bracket (run_case.c's family, private
 * to run/): its samples, taken in one stretch or in rounds, and the checks
 * of its outputs and inputs after each stretch.
 *
 * A slot is opened once (its samples, ids, stopping state and kernel
 * table live for the whole case), measured once per round (run_slot_round:
 * slot_begin, warm-up, samples, slot_end, then the checks; the case
 * measures its slots in bracket order in odd rounds and in reverse in even
 * ones) and closed once
 * (run_slot_close: its figures, its stopping reason, its kernels). With one
 * round the slot's stopping rule is judged after every sample, as it always
 * was; with several (the scenario's `rounds`, run_case.h) each round's
 * stretch takes its share of the slot's time and samples, and the rule is
 * judged by the case at each round's end (run_slot_judge), so that every
 * slot of the bracket stops after the same round.
 */
#ifndef AB_RUN_SLOT_H
#define AB_RUN_SLOT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "backend/attrib.h"
#include "run/inputcheck.h"
#include "run/run_case.h"
#include "run/stopping.h"

/* Host copies of a case's tensors, its reference, the digests of its
 * inputs and the bytes of the first A slot's outputs, which every later
 * slot is compared with. */
struct case_data {
	const struct site_desc *site;
	struct site_args host;
	size_t bytes[SITE_MAX_TENSORS];
	int n_out;
	int out_index[RESULTS_MAX_OUTPUTS];
	double *ref[RESULTS_MAX_OUTPUTS], *tol[RESULTS_MAX_OUTPUTS];
	void *first_a[RESULTS_MAX_OUTPUTS];
	struct results_output first_a_out[RESULTS_MAX_OUTPUTS]; /* its md5 and reference check */
	bool have_first_a;
	struct inputcheck_digest made[SITE_MAX_TENSORS]; /* each input as the case made it */
};

/* One slot while its case runs. */
struct slot_ctx {
	const struct run_case_env *env;
	const struct scenario_case *c;
	struct case_data *cd;
	const struct site_variant *v;
	struct attrib_collector *scratch; /* the case's collector, filled by one round's slot_end */
	struct attrib_collector kernels;  /* the slot's kernels over its rounds */
	struct results_slot *sl;
	const struct scenario_sampling *rule; /* when it stops: the run's, or the copy floor's */
	int rounds;           /* of the case: 1, or the scenario's rounds */
	int round;            /* the round being measured, from 1 */
	int order;            /* the slot's place in it (rounds alternate direction) */
	uint32_t *kept_ids;   /* [max_samples]: the sample id of each kept sample */
	double *sorted;       /* [max_samples]: the stopping rule's scratch */
	struct stopping_state st;
	uint32_t next_id;     /* ids run on over the rounds: the kernel sums are per id */
	enum stopping_reason quota; /* what ended the last round's stretch (several rounds) */
	bool first_checked;   /* the inputs were checked after the slot's first call */
	bool floor;           /* a copy floor method: no output or input checks, no dump */
	bool quiet;           /* no progress lines (the copy floor's samples) */
};

/* Binds slot x to position `position` of the bracket (label, arm,
 * variant) or, when v is given, to that variant as a copy floor method
 * (label "floor", after the bracket); allocates what it keeps. */
enum ab_rc run_slot_open(struct slot_ctx *x, const struct run_case_env *env, const struct scenario_case *c,
			 struct case_data *cd, int position, const struct site_variant *v,
			 const struct scenario_sampling *rule, int rounds, struct attrib_collector *scratch,
			 struct results_slot *sl, struct ab_diag *d);

/* Round x->round of the slot: begin, warm-up, samples, end, its kernels
 * added to the slot's, then (not for a floor) the outputs against the
 * first A slot and the inputs against their digests, and the dump of an
 * arm's first slot in round 1. */
enum ab_rc run_slot_round(struct slot_ctx *x, struct ab_diag *d);

/* The progress line of the case's last slot once its rounds are over
 * (the run's last ends it with a newline). */
void run_slot_progress_end(struct slot_ctx *x);

/* Adds the time since *t0 to a phase of the run (NULL: none kept) and
 * restarts the clock (run_case.c). */
void run_phase_add(double *acc, struct timespec *t0);

/* Several rounds: the slot's stopping rule judged on its samples so far
 * (stopping_judge). */
bool run_slot_judge(struct slot_ctx *x);

/* The slot's reason, noise, figures and kernels, once its last round ran;
 * frees what run_slot_open allocated but the slot keeps (run_slot_free). */
enum ab_rc run_slot_close(struct slot_ctx *x, struct ab_diag *d);
void run_slot_free(struct slot_ctx *x);

/* The host memory of a slot of cap samples: what it keeps with the run
 * (samples, kernel sums) and what it needs while its case runs (ids, the
 * stopping scratch, the kernel table's per-sample sums). */
uint64_t run_slot_kept_bytes(int cap);
uint64_t run_slot_work_bytes(int cap);

#endif
