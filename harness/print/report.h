/*
 * report.h - a run as a markdown report with gnuplot charts, shaped to be
 * pasted into a kernel pull request.
 *
 * report_write writes DIR/report.md (atomically) and, beside it, the
 * charts of print/report_charts.h (speedup, and per case samples, series
 * and kernels, each STEM.{dat,gp,png}).
 *
 * report.md starts with a one-line verdict (FASTER, SLOWER, NOT
 * BIT-EXACT, INCONCLUSIVE or NO CLEAR CHANGE, with the counts behind it)
 * and the summary table (per case: A and B medians with p10-p90 and
 * count in units that scale as show's, the speedup with its 95% bootstrap
 * interval, bold only when it is an improvement beyond noise and n/a under
 * SUMMARY_MIN_SAMPLES an arm, bit-exact); then the A/B/A brackets with
 * drift and its verdict, the charts per case, kernel attribution per arm
 * and the model-level projection; Accuracy, Clocks, Sampling and
 * Provenance fold into <details> (print/report_details.h).
 *
 * A report stays under a pull-request comment's 65,536 characters: past
 * REPORT_BUDGET its sections give way to one row per case, then to a line
 * pointing at DIR/report-full.md, which then holds every section in full
 * (and is removed when nothing was shortened).
 *
 * Without gnuplot the report and the .dat/.gp files are still written; the
 * outcome says the PNGs were skipped and why, and so does the report.
 * No absolute path of this machine appears in the text.
 */
#ifndef AB_REPORT_H
#define AB_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/summary.h"
#include "common/diag.h"
#include "common/results.h"
#include "config/profile.h"

struct report_options {
	const char *out_dir;                 /* created when missing */
	const struct profile *profile;  /* NULL: no profile, drift is not judged */
	const char *profile_note;            /* fallback or failure remark, printed; may be NULL */
	const struct summary_run *const *peers;  /* same scenario, other devices (report_pick_peers) */
	int n_peers;
	bool no_plots;                       /* write .dat/.gp but do not run gnuplot */
};

struct report_outcome {
	int n_plots;          /* PNGs drawn */
	int n_plot_failures;  /* gnuplot ran and failed */
	bool plots_skipped;   /* gnuplot missing (or no_plots) */
	char plots_note[512]; /* why skipped, or the first failure */
};

/* Writes the report of the run summarised in s (SUMMARY_FULL; the run must
 * be 'ok': AB_ERR_DATA otherwise). */
enum ab_rc report_write(const struct summary_run *s, const struct report_options *o, struct report_outcome *out,
			struct ab_diag *d);

/* From runs listed newest first, the ids of the newest 'ok' run of run's
 * scenario on each device other than run's, at most max; returns how many. */
int report_pick_peers(const struct results_run_summary *runs, int n, const struct results_run *run, int64_t *ids, int max);

/* "reports/run-ID" */
void report_default_dir(int64_t run_id, char *buf, size_t len);

#endif
