/*
 * gate_print.h - the gate's verdict (analysis/gate.h) as markdown, and the
 * list of cases to measure again.
 */
#ifndef AB_GATE_PRINT_H
#define AB_GATE_PRINT_H

#include <stdio.h>

#include "analysis/gate.h"
#include "common/diag.h"
#include "common/results.h"
#include "print/printer.h"

/* The verdict as markdown: a headline (PASS/FAIL/INCONCLUSIVE) with what
 * kept the gate from passing (a --quick run, slots under the minimum
 * sample count, a partial run and the cases it lacks), one row per case
 * (case, baseline and run B medians, raw B change, normalised change,
 * noise floor, the judged change in us under a header naming the absolute
 * floor, the judged p, bit-exact, verdict), the tally, then the rule.
 * AB_ERR_IO when the stream reports an error. */
enum ab_rc gate_print_verdict(FILE *f, const struct results_run *base, const struct results_run *run,
			      const struct gate_options *o, const struct gate_result *r, struct ab_diag *d);

/* One case name per line, of the cases that failed on time alone (the
 * ones worth measuring again); nothing when there are none. */
enum ab_rc gate_print_failing(FILE *f, const struct gate_result *r, struct ab_diag *d);

/* The markdown printer's PRINTER_GATE (gate_print_verdict of job->gate)
 * and the text printer's PRINTER_FAILING (gate_print_failing). */
enum ab_rc gate_print(const struct printer_job *job, struct ab_diag *d);
enum ab_rc gate_print_failing_cases(const struct printer_job *job, struct ab_diag *d);

#endif
