/*
 * gate_print.h - the gate's verdict (analysis/gate.h) as markdown, and the
 * list of cases to measure again.
 */
#ifndef AB_GATE_PRINT_H
#define AB_GATE_PRINT_H

#include "print/printer.h"

/* The markdown printer's PRINTER_GATE: job->gate's verdict to job->f, a
 * headline (PASS/FAIL/INCONCLUSIVE) with what kept the gate from passing,
 * one row per case (both B medians, the raw and normalised changes, the
 * floors, p, bit-exact, the verdict and why), the tally, then the rule.
 * AB_ERR_IO when the stream reports an error. */
enum ab_rc gate_print(const struct printer_job *job, struct ab_diag *d);

/* The text printer's PRINTER_FAILING: one case name per line, of the
 * cases that failed on time alone (the ones worth measuring again);
 * nothing when there are none. */
enum ab_rc gate_print_failing(const struct printer_job *job, struct ab_diag *d);

#endif
