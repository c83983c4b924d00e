/*
 * publish.h - a static HTML dashboard of the stored history: plain HTML and
 * CSS, no script, no server; every link and image is relative, so the
 * directory works from file:// and from any static host (GitHub Pages).
 *
 *   DIR/index.html      the dashboard
 *   DIR/style.css       its style sheet
 *   DIR/charts/         one trend chart per case (print/trend.h)
 *   DIR/runs/run-ID/    the full report of each scenario and device's
 *                       newest run (print/report.h), linked from the page
 *
 * The page: a matrix of scenarios x devices (each cell: cases, steps, the
 * newest run, a link to its section), then a section per scenario and
 * device (those with a step first) with the newest run's commit, date and report link, and a card
 * per case: its trend chart (or why there is none), its latest figures
 * (A and B medians, speedup with its 95% interval, bit-exact, samples) and
 * the steps found in its history.
 */
#ifndef AB_PUBLISH_H
#define AB_PUBLISH_H

#include <stdbool.h>

#include "analysis/history.h"
#include "analysis/summary.h"
#include "common/diag.h"
#include "common/results.h"
#include "print/trend.h"

/* One scenario on one device: its series are history->series[first ..
 * first + n), its newest run and that run's summary, and the relative path
 * of the run's report ("" when none was written). */
struct publish_group {
	int first, n;
	const struct results_run *newest;
	const struct summary_run *summary; /* of newest (NULL with it) */
	char report[128];
	char report_note[256]; /* why there is no report */
};

struct publish_input {
	const char *title;
	const struct history *history;
	const struct trend_outcome *charts; /* stems under "charts/" */
	int n_groups;
	const struct publish_group *groups;
	int n_runs;                         /* runs read */
};

/* Splits the history's series (sorted by scenario and device) into groups:
 * fills out[] (at most max) with first and n; returns how many. */
int publish_group_series(const struct history *h, struct publish_group *out, int max);

/* Writes DIR/index.html and DIR/style.css (atomically; dir must exist). */
enum ab_rc publish_write(const char *dir, const struct publish_input *in, struct ab_diag *d);

#endif
