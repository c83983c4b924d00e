/*
 * report_charts.h - the report's gnuplot charts (print/plot.h draws them):
 *
 *   speedup.{dat,gp,png}       speedup per case, one bar per device (this
 *                              run and its peers), the bootstrap interval as
 *                              whiskers, the value printed on each bar, the
 *                              case's shape under its name
 *   sweep-NAME.{dat,gp,png}    per swept [case NAME]: time per arm (band: the
 *                              median's 95% interval), speedup (band: its
 *                              bootstrap interval) and % of copy bandwidth
 *                              against the swept size on a log2 axis, a
 *                              colour per run (one per GPU)
 *   samples-CASE.{dat,gp,png}  box plots of every slot, a panel per arm with
 *                              its own p1-p99 zoom, ticked "A1 / eager"
 *   series-CASE.{dat,gp,png}   every sample in bracket order, a panel per
 *                              arm, each slot's median dashed: the A/B/A
 *                              drift picture
 *   kernels-CASE.{dat,gp,png}  time per sample per kernel, stacked, one bar
 *                              per arm, segments labelled "family: operation"
 *                              (the full names are in the report's table)
 *   heatmap-CASE-SLOT-OUT.{dat,gp,png}  where a case that is not bit-exact
 *                              differs, per row (print/report_details.c)
 *
 * NAME and CASE are file-name stems of the names (escape_stem), unique
 * within the report. The number of files is bounded: the per-case charts
 * are drawn only for a run of at most REPORT_CASE_CHARTS_MAX cases (past
 * that, one chart per sweep carries the cases' figures, and the tables all
 * of them), and at most REPORT_SWEEP_CHARTS_MAX sweeps get a chart. So a
 * report writes at most 3 x (1 + REPORT_SWEEP_CHARTS_MAX + 3 x
 * REPORT_CASE_CHARTS_MAX) chart files, whatever the number of cases.
 *
 * A chart that cannot be drawn (no gnuplot, gnuplot failed) keeps its .dat
 * and .gp; its note says why, and the report prints the note instead.
 */
#ifndef AB_REPORT_CHARTS_H
#define AB_REPORT_CHARTS_H

#include <stdbool.h>

#include "analysis/summary.h"
#include "common/diag.h"
#include "print/printer.h"

/* Past this many cases the per-case charts give way to the sweep charts
 * (a 1024-case report drew 3,072 of them in 201 s: docs/REPORTS.md). */
#define REPORT_CASE_CHARTS_MAX 64
/* Sweeps charted, in run order; the tables hold every sweep. */
#define REPORT_SWEEP_CHARTS_MAX 64

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
	bool per_case;                    /* the per-case charts were written (n <= REPORT_CASE_CHARTS_MAX) */
	struct report_case_charts *cases; /* [n] in the run's order */
	int n_sweeps;                     /* the summary's sweeps */
	int n_sweep_charts;               /* the first n_sweep_charts of them have a chart */
	struct report_chart *sweeps;      /* [n_sweeps] */
	struct report_chart *heatmaps;    /* [n]: a case's heatmap where it is not bit-exact */
};

/* Writes the charts of the job's report (job->report, into job->dir) and
 * draws them (unless job->no_plots or gnuplot is missing); counts and notes
 * go to job->charts. Only out of memory and IO errors fail. Free with
 * report_charts_free. */
enum ab_rc report_charts_write(const struct printer_job *job, struct report_charts *out, struct ab_diag *d);
void report_charts_free(struct report_charts *c);

/* A chart in the report's markdown: its image when drawn; when written
 * but not drawn, why (its note, else note) and its data and script; else
 * why it was not written. what names it: "Chart", "Heatmap". */
void report_chart_md(FILE *f, const struct report_chart *p, const char *alt, const char *what, const char *note);

#endif
