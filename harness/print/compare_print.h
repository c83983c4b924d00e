/*
 * compare_print.h - a comparison of two runs (analysis/compare.h) as
 * markdown: a line per run, the rule, and a row per case (both B arms'
 * medians with p10-p90 and count, the ratio with its interval, p, the
 * verdict and md5 agreement).
 */
#ifndef AB_COMPARE_PRINT_H
#define AB_COMPARE_PRINT_H

#include "print/printer.h"

/* The markdown printer's PRINTER_COMPARE: job->compare, of the runs
 * job->summary (first) and job->second, to job->f. AB_ERR_IO when the
 * stream reports an error. */
enum ab_rc compare_print(const struct printer_job *job, struct ab_diag *d);

#endif
