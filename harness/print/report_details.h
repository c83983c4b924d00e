/*
 * report_details.h - the report's folded sections: Accuracy, Clocks,
 * Sampling and Provenance, each a GitHub <details> block whose one-line
 * <summary> says what a reviewer needs without opening it ("all 45
 * outputs byte-equal to A1 and within the reference's tolerance").
 *
 * compact: one row per case instead of one per slot or output, the rows
 * that show a problem (an output not byte-equal or outside the
 * tolerance, a throttled slot) kept in full: what a report of many cases
 * prints to stay within a pull-request comment. The full rows go to
 * report-full.md then.
 */
#ifndef AB_REPORT_DETAILS_H
#define AB_REPORT_DETAILS_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/summary.h"
#include "print/printer.h"

void report_details_accuracy(FILE *f, const struct summary_run *s, bool compact);

/* What a slot's stored noise is, after the run's stopping rule: "relative
 * noise (stdev / mean)" or the median interval's half-width. */
const char *report_details_noise_words(const struct results_run *r);
void report_details_clocks(FILE *f, const struct summary_run *s, bool compact);
void report_details_sampling(FILE *f, const struct summary_run *s, bool compact);

/* Device, profile, run, notes (and why charts are missing: res). */
void report_details_provenance(FILE *f, const struct summary_run *s, const struct printer_report *o,
			       const struct printer_charts *res);

#endif
