/*
 * trend.h - a history (analysis/history.h) as a text table and as gnuplot
 * charts: what `abbench history` prints and draws, and the charts
 * `abbench publish` puts on its pages. The charts: DIR/STEM.{dat,gp,png},
 * one per series, past TREND_CHARTS_MAX series one per sweep
 * (docs/REPORTS.md, `abbench history`). Without gnuplot the data and
 * scripts are still written and the outcome says why the PNGs are not; a
 * PNG that cannot be written (a full disk) is an error.
 */
#ifndef AB_TREND_H
#define AB_TREND_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/history.h"
#include "common/allocs.h"
#include "common/diag.h"
#include "print/printer.h"

#define TREND_STEM_MAX 160
/* Past this many series the charts are drawn per sweep (docs/REPORTS.md). */
#define TREND_CHARTS_MAX 64

/* The text printer's PRINTER_HISTORY: the table of job->history's series.
 * AB_ERR_IO when the stream fails. */
enum ab_rc trend_print(const struct printer_job *job, struct ab_diag *d);

/* What step k is, in words: "a regression", "an improvement", "same
 * commit: noise", "a regression (same commit, driver changed)". */
const char *trend_step_kind_words(const struct history *h, const struct history_series *s, int k, char *buf,
				  size_t len);

/* "4.06 us", "3.993x": a level in the metric's format. */
char *trend_level(const struct history *h, double level, char *buf, size_t len);

struct trend_outcome {
	int *chart_of;                      /* [the history's series]: the chart showing it, -1: none */
	int n_charts;
	char (*chart_stem)[TREND_STEM_MAX]; /* [n_charts] */
	bool *chart_drawn;                  /* [n_charts]: its PNG (SVG) exists */
	bool *chart_sweep;                  /* [n_charts]: a sweep's chart (several series) */
	struct printer_charts drawn;        /* how many were drawn, failed, or why none */
	struct allocs mem;                  /* the arrays above, and the writer's own */
};

/* Writes every series' chart into dir (created when missing) and draws it
 * unless no_plots: a PNG, or with svg an SVG at the size a dashboard card
 * shows it. Free the outcome with trend_outcome_free. */
enum ab_rc trend_write_charts(const char *dir, const struct history *h, bool no_plots, bool svg,
			      struct trend_outcome *out, struct ab_diag *d);
void trend_outcome_free(struct trend_outcome *o);

#endif
