/*
 * report_divergence.h - the report's "Where the bits differ" (issue 29):
 * for the cases that are not bit-exact (a B output not byte-equal to the
 * first A slot's, an arm whose calls disagree) or whose batch invariance
 * broke, the table of the accuracy view of the figures (analysis/
 * figures.h: elements that differ and %, max ULP and where, the first
 * difference, rows touched, the first stage that departs, which side is
 * nearer the reference, determinism, batch invariance), and a heatmap per
 * case of where its most differing output differs (print/plot.h),
 * drawn beside report.md with the report's other charts.
 */
#ifndef AB_REPORT_DIVERGENCE_H
#define AB_REPORT_DIVERGENCE_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/summary.h"
#include "common/diag.h"
#include "print/report_charts.h"

/* Heatmaps a report draws at most (one per case, in run order). */
#define REPORT_HEATMAPS_MAX 16

/* The heatmap of each listed case with a stored map (the first
 * REPORT_HEATMAPS_MAX) into dir: out[i] for case i of S (stem, written:
 * its .dat and .gp; drawn: its .png; note: why not). gnuplot NULL: the
 * scripts only, why_not saying why. Only out of memory and IO errors fail. */
enum ab_rc report_divergence_heatmaps(const char *dir, const struct summary_run *S, const char *gnuplot,
				      const char *why_not, struct report_chart *out, struct ab_diag *d);

/* The section: nothing when no case is listed. heatmaps: [S->n_cases] or NULL. */
void report_divergence_section(FILE *f, const struct summary_run *S, const struct report_chart *heatmaps,
			       bool compact);

#endif
