/*
 * show.h - the terminal view of one stored run (`abbench show`).
 */
#ifndef AB_SHOW_H
#define AB_SHOW_H

#include <stdio.h>

#include "analysis/summary.h"
#include "print/printer.h"

/* The text printer's PRINTER_SUMMARY: the run's summary (job->summary)
 * with a header, a table per case (slot, arm, variant, samples, median,
 * p10/p90, kernel sum, stop reason, md5, bit-exact, reference), the
 * speedup with its interval and the A drift, clock warnings, and the
 * model-level projection. AB_ERR_IO when the stream fails. */
enum ab_rc show_print(const struct printer_job *job, struct ab_diag *d);

/* One line per case: shape, A and B medians, the speedup with its 95%
 * interval ("n/a" under SUMMARY_MIN_SAMPLES an arm), sample counts,
 * bit-exactness and the case's verdict (a drifted case marked with its
 * drift), then the verdicts counted: what `abbench run` ends with. */
enum ab_rc show_summary_table(const struct summary_run *s, FILE *out, struct ab_diag *d);

#endif
