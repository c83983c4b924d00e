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
#include "run/case_data.h"
#include "run/determinism.h"
#include "run/run_case.h"
#include "run/stopping.h"

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
	bool floor;           /* a copy floor method: no output or input checks, no hashes, no dump */
	bool quiet;           /* no progress lines (the copy floor's samples) */
	struct results_invariance *inv; /* the case's [2] (arm a, b): the first slot of each arm fills its own */
	struct determinism det;        /* the outputs' hashes over the slot's rounds (determinism.h) */
	uint32_t last_id, last_hashed; /* the last sample's id, the last hashed one's */
};

/* Binds slot x to position `position` of the bracket (label, arm,
 * variant) or, when v is given, to that variant as a copy floor method
 * (label "floor", after the bracket); allocates what it keeps. inv: the
 * case's invariance records (results_case.inv), NULL for a floor. */
enum ab_rc run_slot_open(struct slot_ctx *x, const struct run_case_env *env, const struct scenario_case *c,
			 struct case_data *cd, int position, const struct site_variant *v,
			 const struct scenario_sampling *rule, int rounds, struct attrib_collector *scratch,
			 struct results_slot *sl, struct results_invariance *inv, struct ab_diag *d);

/* Round x->round of the slot: begin, warm-up, samples (their outputs
 * hashed after some, determinism.h), end, its kernels added to the
 * slot's, then (not for a floor) its tensors against the first A slot's
 * (slot_check.h; a slot keeps its worst round's check, below), the last
 * call hashed, the inputs against their digests, and in round 1 the
 * invariance rows and the dump of an arm's first slot.
 *
 * Which slot is "first": the first A slot is the bracket's first A
 * (A1) in round 1, whose bytes every later slot of every round is
 * compared with (A1's own later rounds included: an A1 whose bytes
 * change between rounds shows a divergence, as any slot does). The
 * first slot of each arm (A1, B or B1), in round 1, gives the rows of
 * batch invariance and the dump. A slot's stored check (outputs,
 * compared list, divergence rows) is one round's, stored once: the
 * round that differed from the first A slot in the most elements, or
 * failed the reference on more outputs (else round 1's). */
enum ab_rc run_slot_round(struct slot_ctx *x, struct ab_diag *d);

/* Every arm once before the run (run_case_preflight): the case's arm of
 * side ('a', 'b') through its slot_begin, one untimed sample in the
 * run's mode, its slot_end, its inputs checked after its first call and
 * at the end; kc: a collector the calls fill, nothing kept. */
enum ab_rc run_slot_preflight(const struct run_case_env *env, const struct scenario_case *c, struct case_data *cd,
			      char side, struct attrib_collector *kc, struct ab_diag *d);

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
 * (samples: wall, kernel and host time) and what it needs while its case runs (ids, the
 * stopping scratch, the kernel table's per-sample sums). */
uint64_t run_slot_kept_bytes(int cap);
uint64_t run_slot_work_bytes(int cap);

#endif
