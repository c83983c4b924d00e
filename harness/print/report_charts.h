/*
 * report_charts.h - the report's gnuplot charts (print/plot.h draws them):
 *
 *   speedup.{dat,gp,png}       speedup per case, one bar per device (this
 *                              run and its peers), the bootstrap interval as
 *                              whiskers, the value printed on each bar, the
 *                              case's shape under its name
 *   samples-CASE.{dat,gp,png}  box plots of every slot, a panel per arm with
 *                              its own p1-p99 zoom, ticked "A1 / eager"
 *   series-CASE.{dat,gp,png}   every sample in bracket order, a panel per
 *                              arm, each slot's median dashed: the A/B/A
 *                              drift picture
 *   kernels-CASE.{dat,gp,png}  time per sample per kernel, stacked, one bar
 *                              per arm, segments labelled "family: operation"
 *                              (the full names are in the report's table)
 *
 * A chart that cannot be drawn (no gnuplot, gnuplot failed) keeps its .dat
 * and .gp; its note says why, and the report prints the note instead.
 */
#ifndef AB_REPORT_CHARTS_H
#define AB_REPORT_CHARTS_H

#include <stdbool.h>

#include "analysis/summary.h"
#include "common/diag.h"
#include "print/report.h"

struct report_chart {
	char stem[96];
	bool written, drawn;
	char note[300];
};

struct report_case_charts {
	struct report_chart samples, series, kernels;
};

struct report_charts {
	struct report_chart speedup;
	int n;                            /* the run's cases */
	struct report_case_charts *cases; /* [n] in the run's order */
};

/* Writes every chart of the summarised run into o->out_dir and draws them
 * (unless o->no_plots or gnuplot is missing); counts and notes go to res.
 * Only out of memory and IO errors fail. Free with report_charts_free. */
enum ab_rc report_charts_write(const struct summary_run *s, const struct report_options *o, struct report_charts *out,
			       struct report_outcome *res, struct ab_diag *d);
void report_charts_free(struct report_charts *c);

#endif
