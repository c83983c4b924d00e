/*
 * report.h - a run as a markdown report with gnuplot charts, shaped to be
 * pasted into a kernel pull request (its sections: docs/REPORTS.md).
 *
 * report_write writes DIR/report.md (atomically) and the charts of
 * print/report_charts.h beside it; the report's other runs (its peers,
 * analysis/peers.h) join the charts and the per-GPU table. Past
 * REPORT_BUDGET, sections give way to one row per case, then to a pointer
 * at DIR/report-full.md, which then holds every section in full. Without
 * gnuplot the report says why no PNG is drawn. No absolute path of this
 * machine appears in the text.
 */
#ifndef AB_REPORT_H
#define AB_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/peers.h"
#include "analysis/summary.h"
#include "common/diag.h"
#include "print/printer.h"
#include "print/report_charts.h"

/* The markdown printer's PRINTER_REPORT: writes the report of
 * job->report (its peers table's series 0, summarised with SUMMARY_FULL;
 * the run must be 'ok': AB_ERR_DATA otherwise) into job->dir, its charts'
 * outcome into job->charts. */
enum ab_rc report_write(const struct printer_job *job, struct ab_diag *d);

/* "reports/runs-ID-ID-..." for a report of several runs (ids[0] first);
 * "reports/run-ID" for one (n >= 1). */
void report_default_dir_runs(const int64_t *ids, int n, char *buf, size_t len);

/* reports/set-ID for a run set, ID through escape_stem: a run set id read
 * from a merged database never makes a path outside reports/. */
void report_default_dir_set(const char *run_set, char *buf, size_t len);

/* ---- between the report's own files ---- */

/* What every section reads: the run's summary (series 0 of P), the job,
 * and the charts drawn before the text (ch; out: their outcome). */
struct report_ctx {
	const struct summary_run *S;
	const struct printer_job *job;
	const struct printer_report *o;
	const struct peers_table *P;
	struct printer_charts *out;
	struct report_charts ch;
};

/* A section. compact: one row per case instead of one per slot or output
 * (the rows that show a problem kept), to stay within the budget. */
typedef void report_section_fn(FILE *f, const struct report_ctx *R, bool compact);

/* report_details.c: Accuracy (opened by "Where the bits differ"), Clocks,
 * Sampling and Provenance, each a <details> block. */
report_section_fn report_details_accuracy, report_details_clocks, report_details_sampling,
	report_details_provenance;

/* What a slot's stored noise is, after the run's stopping rule: "relative
 * noise (stdev / mean)" or the median interval's half-width. */
const char *report_details_noise_words(const struct results_run *r);

/* The heatmaps of "Where the bits differ", drawn with the charts: of each
 * listed case with a stored map, the first REPORT_HEATMAPS_MAX, into dir:
 * out[i] for case i of S (stem, written: its .dat and .gp; drawn: its
 * .png; note: why not). gnuplot NULL: the scripts only, why_not saying
 * why. Only out of memory and IO errors fail. */
#define REPORT_HEATMAPS_MAX 16
enum ab_rc report_divergence_heatmaps(const char *dir, const struct summary_run *S, const char *gnuplot,
				      const char *why_not, struct report_chart *out, struct ab_diag *d);

/* Series s of P's name on a chart and in a column head: "NVIDIA H200
 * (run 3)"; where the arms differ "run 3: A eager, B twopass (NVIDIA
 * H200)" (the arms of the first case whose arms differ). Returns buf. */
char *report_peers_series_name(const struct peers_table *P, int s, char *buf, size_t len);

#endif
