/*
 * results_check.h - what a stored run may hold (common/results.h's
 * structures, checked field by field).
 *
 * Every field that sizes or indexes something, and every text, is checked
 * where a run enters the store (store_begin_run, store_finish_run,
 * store_import_run, so a merge too) and where it leaves it
 * (store_load_run, row by row, before anything is sized from a row):
 * counts and positions within their ranges, samples finite, texts valid
 * UTF-8 (common/utf8.h) that fit their fields, the slots of a case as its
 * run's bracket has them. So a damaged or hand-edited database is refused
 * with the row named, never read into a crash (a negative n_samples once
 * reached a memcpy) nor into JSON that cannot be written.
 *
 * Figures are checked for plausibility too: times finite, not negative
 * and at most RESULTS_MAX_NS, a slot's min <= p10 <= median <= p90 <= max
 * with its mean between min and max, bandwidths at most RESULTS_MAX_GBPS,
 * error counts within the output's bytes, clocks and temperatures within
 * what hardware reports. A time of 0 stays possible: a CUDA event pair
 * 0.5 us apart reads 0.
 *
 * Each check returns true, or false with why naming the field and what is
 * wrong ("n_samples is -5, not 0 to 10000000"); the caller names the row.
 */
#ifndef AB_RESULTS_CHECK_H
#define AB_RESULTS_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "common/results.h"

#define RESULTS_MAX_SAMPLES 10000000 /* a scenario's max_samples at most */
#define RESULTS_MAX_KERNELS 4096     /* kernel records of one slot */
#define RESULTS_MAX_SLOTS 16         /* letters of a bracket */
#define RESULTS_MAX_SHARDS 4096      /* run --shard I/N: N at most (run/shard.h SHARD_MAX) */
/* Plausible figures: a stored time is at most RESULTS_MAX_NS (11.6 days,
 * far past any call's limit), a stored bandwidth at most RESULTS_MAX_GBPS
 * (1 PB/s: 200 times an H200's HBM, above any device's memory or cache). */
#define RESULTS_MAX_NS 1e15
#define RESULTS_MAX_GBPS 1e6

/* ---- one row each ---- */

/* The runs row: its texts (status running, ok, failed or interrupted; a
 * bracket of 1 to 16 letters A and B), shards, model, device index. */
bool results_check_run_row(const struct results_run *r, char *why, size_t len);
bool results_check_device(const struct results_device *dv, char *why, size_t len);
bool results_check_arm_source(const struct results_arm_source *a, char *why, size_t len);
/* A user arm's kind (results_arm_source.kind): the name of a kind of arm
 * (a lower-case letter, then letters, digits or '_'; it fits), whichever:
 * the kinds are arms/arm_kind.c's table, which common/ does not know, so
 * a database written by a build with more kinds still reads. */
bool results_check_kind_name(const char *kind, char *why, size_t len);
/* A cases row (its slots aside). */
bool results_check_case_row(const struct results_case *c, char *why, size_t len);
/* A slots row (its samples, kernels and outputs aside). */
bool results_check_slot_row(const struct results_slot *s, char *why, size_t len);
/* One sample: the wall time a time (finite, 0 to RESULTS_MAX_NS), the
 * kernel and host times too or unknown (NAN). */
bool results_check_sample(double wall_ns, double kernel_ns, double host_ns, char *why, size_t len);
bool results_check_kernel(const struct results_kernel *k, char *why, size_t len);
bool results_check_output(const struct results_output *o, char *why, size_t len);
/* A divergence: its texts, counts within their ranges and adding up (the
 * histogram, class mismatches and NaN payloads sum to n_diff <= elems),
 * its elements' indices within the tensor, its map within the grid. */
bool results_check_divergence(const struct results_divergence *v, char *why, size_t len);
bool results_check_slot_check(const struct results_slot_check *k, char *why, size_t len);
bool results_check_invariance(const struct results_invariance *v, char *why, size_t len);

/* ---- across rows ---- */

/* The slots of case c as the run's bracket has them: one per letter, slot
 * k of arm tolower(bracket[k]). */
bool results_check_bracket(const char *bracket, const struct results_case *c, char *why, size_t len);
/* Each slot ran its case's arm of that side (a case's arm_a, arm_b; ""
 * for a run stored before they were). */
bool results_check_case_arms(const struct results_case *c, char *why, size_t len);

/* One case of a run measured with bracket, whole: its row, its slots as
 * the bracket has them, their samples, kernels and outputs (what the store
 * checks before it commits a case on its own). */
bool results_check_case(const char *bracket, const struct results_case *c, char *why, size_t len);

/* Every check above over a whole run, each finding prefixed by where it
 * is ("case 'x' slot 'A1': ..."): what the store checks before it writes. */
bool results_check_run(const struct results_run *r, char *why, size_t len);

/* A text for a fixed field of cap bytes: valid UTF-8, no NUL, fits. On
 * false why says which ("is 70 bytes, more than 63"). */
bool results_check_text(const char *name, const char *s, size_t n, size_t cap, char *why, size_t len);

/* An environment text (results_run.env, results_arm_source.versions):
 * "" or KEY=VALUE words separated by one blank (results.h, RESULTS_ENV). */
bool results_check_env(const char *name, const char *s, char *why, size_t len);

/* src made into a text for a field of cap bytes: valid UTF-8 kept, any
 * other byte written as \xNN, cut at a character boundary so that it fits
 * (what the store does with an error message before it stores it). */
void results_check_fit(char *dst, size_t cap, const char *src);

#endif
