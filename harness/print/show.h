/*
 * show.h - the terminal view of one stored run (`abbench show`).
 */
#ifndef AB_SHOW_H
#define AB_SHOW_H

#include <stdio.h>

#include "analysis/summary.h"

/* Prints the run's summary: header, a table per case (slot, arm, variant,
 * samples, median, p10/p90, kernel sum, stop reason, md5, bit-exact,
 * reference), the speedup with its interval and the A drift, clock
 * warnings, and the model-level projection. Formats only; the stream's
 * errors are the caller's to check. */
void show_run(const struct summary_run *s, FILE *out);

/* One line per case: shape, A and B medians, the speedup with its 95%
 * interval ("n/a" under SUMMARY_MIN_SAMPLES an arm), sample counts and
 * bit-exactness: what `abbench run` ends with. */
void show_summary_table(const struct summary_run *s, FILE *out);

#endif
