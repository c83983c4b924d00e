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

#endif
