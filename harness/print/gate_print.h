/*
 * gate_print.h - the gate's verdict (analysis/gate.h) as markdown, and the
 * list of cases to measure again.
 */
#ifndef AB_GATE_PRINT_H
#define AB_GATE_PRINT_H

#include "print/printer.h"

/* The verdict as markdown: a headline (PASS/FAIL/INCONCLUSIVE) with what
 * kept the gate from passing, one row per case (both B medians, the raw
 * and normalised changes, the floors, p, bit-exact, the verdict and why),
 * the tally, then the rule. AB_ERR_IO when the stream reports an error. */
enum ab_rc gate_print_verdict(FILE *f, const struct results_run *base, const struct results_run *run,
			      const struct gate_options *o, const struct gate_result *r, struct ab_diag *d);

/* One case name per line, of the cases that failed on time alone (the
 * ones worth measuring again); nothing when there are none. */
enum ab_rc gate_print_failing(FILE *f, const struct gate_result *r, struct ab_diag *d);

#endif
