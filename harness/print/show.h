/*
 * show.h - the terminal view of one stored run (`abbench show`).
 */
#ifndef AB_SHOW_H
#define AB_SHOW_H

#include <stdio.h>

#include "common/results.h"

/* Prints the run: header, a table per case (slot, arm, variant, samples,
 * median, p10/p90, kernel sum, stop reason, md5, bit-exact, reference),
 * the speedup with its interval and bracket, clock warnings, and the
 * model-level projection. Returns false when out of memory. */
int show_run(const struct results_run *r, FILE *out);

/* One line per case: shape, A and B medians, the speedup with its 95%
 * interval ("n/a" under SUMMARY_MIN_SAMPLES an arm), sample counts and
 * bit-exactness: what `abbench run` ends with. -1 when out of memory. */
int show_summary_table(const struct results_run *r, FILE *out);

#endif
