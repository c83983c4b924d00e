/*
 * show.h - the terminal view of one stored run (`abbench show`).
 */
#ifndef AB_SHOW_H
#define AB_SHOW_H

#include <stdio.h>

#include "analysis/summary.h"
#include "print/printer.h"

/* The text printer's PRINTER_SUMMARY: the run's summary (job->summary)
 * with a header, per case a table of its slots (the show view's figures)
 * and their warnings, the speedup with its interval and the A drift, host
 * time, exactness, divergence, verdict and bandwidth; then the model-level
 * projection. AB_ERR_IO when the stream fails. */
enum ab_rc show_print(const struct printer_job *job, struct ab_diag *d);

/* A line per case (the run view's figures), then the verdicts counted:
 * what `abbench run` ends with. */
void show_summary_table(const struct summary_run *s, FILE *out);

#endif
