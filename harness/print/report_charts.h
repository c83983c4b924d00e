/*
 * report_charts.h - the report's gnuplot charts (print/plot.h draws them;
 * docs/REPORTS.md says what each shows and how their number is bounded),
 * each STEM.{dat,gp,png}, the stems unique within the report. A chart that
 * cannot be drawn (no gnuplot, gnuplot failed) keeps its .dat and .gp; its
 * note says why, and the report prints the note instead.
 */
#ifndef AB_REPORT_CHARTS_H
#define AB_REPORT_CHARTS_H

#include <stdbool.h>

#include "analysis/summary.h"
#include "common/diag.h"
#include "print/printer.h"

/* (a 1024-case report drew 3,072 per-case charts in 201 s: docs/REPORTS.md) */
#define REPORT_CASE_CHARTS_MAX 64
#define REPORT_SWEEP_CHARTS_MAX 64 /* charted in run order */

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
	bool per_case;                    /* the per-case charts were written (at most REPORT_CASE_CHARTS_MAX cases) */
	struct report_case_charts *cases; /* [the run's cases] in the run's order */
	int n_sweep_charts;               /* the first n_sweep_charts of the summary's sweeps have a chart */
	struct report_chart *sweeps;      /* [the summary's sweeps] */
	struct report_chart *heatmaps;    /* [the run's cases]: a case's heatmap where it is not bit-exact */
};

/* Writes the charts of the job's report (job->report, into job->dir) and
 * draws them (unless job->no_plots or gnuplot is missing); counts and notes
 * go to job->charts. Only out of memory and IO errors fail. Free with
 * report_charts_free. */
enum ab_rc report_charts_write(const struct printer_job *job, struct report_charts *out, struct ab_diag *d);
void report_charts_free(struct report_charts *c);

/* A chart in the report's markdown ("Chart", "Heatmap": what): its image;
 * written but not drawn, why (its note, else note) and its data and script;
 * else why it was not written (its note). */
void report_chart_md(FILE *f, const struct report_chart *p, const char *alt, const char *what, const char *note);

#endif
