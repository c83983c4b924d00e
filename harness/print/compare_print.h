/*
 * compare_print.h - a comparison of two runs (analysis/compare.h) as
 * markdown: a line per run, the rule, and a row per case (both B arms'
 * medians with p10-p90 and count, the ratio with its interval, p, the
 * verdict and md5 agreement).
 */
#ifndef AB_COMPARE_PRINT_H
#define AB_COMPARE_PRINT_H

#include "print/printer.h"

/* Writes the comparison r of runs a and b to f. AB_ERR_IO when the stream
 * reports an error. */
enum ab_rc compare_print_table(FILE *f, const struct summary_run *a, const struct summary_run *b,
			       const struct compare_result *r, struct ab_diag *d);

#endif
