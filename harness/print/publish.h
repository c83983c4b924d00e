/*
 * publish.h - a static HTML dashboard of the stored history: plain HTML and
 * CSS, no script, no server; every link and image is relative, so the
 * directory works from file:// and from any static host (GitHub Pages).
 *
 *   DIR/index.html      the dashboard
 *   DIR/steps.html      every step of the history, newest first, with the
 *                       runs either side of it and their commits
 *   DIR/style.css       its style sheet
 *   DIR/charts/         one trend chart per case (print/trend.h)
 *   DIR/runs/run-ID/    the full report of each scenario and device's
 *                       newest run (print/report.h), linked from the page
 *
 * The page: a matrix of scenarios x devices (each cell: cases, steps, the
 * newest run, a link to its section), then a section per scenario and
 * device (those with a step first) with the newest run's commit, date and
 * report link, and a card per case: its trend chart (or why there is
 * none), its latest figures (A and B medians, speedup with its 95%
 * interval, bit-exact, samples) and the steps found in its history. Every
 * text from the database goes through escape_html (html_printf's %s), a
 * commit put into the --commit-url template through escape_url_part.
 *
 * Past TREND_CHARTS_MAX cases the cards of a sweep's cases share its one
 * chart (print/trend.h), so the directory holds a bounded number of files.
 */
#ifndef AB_PUBLISH_H
#define AB_PUBLISH_H

#include "common/diag.h"
#include "print/printer.h"

/* The html printer's PRINTER_DASHBOARD: job->dashboard into job->dir
 * (created), the charts' outcome into job->charts. A report that cannot be
 * written for a reason other than memory or IO is a note on the page. */
enum ab_rc publish_write(const struct printer_job *job, struct ab_diag *d);

#endif
