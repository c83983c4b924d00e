/*
 * report.h - a run as a markdown report with gnuplot charts, shaped to be
 * pasted into a kernel pull request.
 *
 * report_write writes DIR/report.md (atomically) and, beside it, the
 * charts of print/report_charts.h (speedup, a sweep chart per swept case,
 * and per case samples, series and kernels, each STEM.{dat,gp,png}).
 *
 * report.md starts with a one-line verdict (FASTER, SLOWER, NOT
 * BIT-EXACT, INCONCLUSIVE or NO CLEAR CHANGE, with the counts behind it)
 * and the summary table (per case: A and B medians with p10-p90 and
 * count in units that scale as show's, the speedup with its 95% bootstrap
 * interval, bold only when it is an improvement beyond noise and n/a under
 * SUMMARY_MIN_SAMPLES an arm, bit-exact); then bandwidth (bytes, GB/s and
 * % of copy bandwidth per arm, the floor), sweeps (a table and chart per
 * swept case), per GPU (with peers: a case x run table of speedup, B GB/s
 * and md5 agreement), the A/B/A brackets with
 * drift and its verdict, the charts per case, kernel attribution per arm
 * and the model-level projection; Accuracy, Clocks, Sampling and
 * Provenance fold into <details> (print/report_details.h).
 *
 * Peers: the other runs of the report (o->peers), one per GPU: those named
 * with it (`abbench report RUN RUN...`, o->peers_named), else the newest
 * 'ok' run of the scenario on each other device (report_pick_peers). They
 * join the speedup chart, the sweep charts and the per-GPU table.
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
	bool peers_named;                    /* peers were named by the user, not picked */
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
 * scenario on each device other than run's, at most max; returns how
 * many. Quick and fake-timer runs are never picked (they are compared only
 * when named), and a fake-timer run gets no peers. */
int report_pick_peers(const struct results_run_summary *runs, int n, const struct results_run *run, int64_t *ids, int max);

/* "reports/run-ID" */
void report_default_dir(int64_t run_id, char *buf, size_t len);

/* "reports/runs-ID-ID-..." for a report of several runs (ids[0] first);
 * "reports/run-ID" for one. */
void report_default_dir_runs(const int64_t *ids, int n, char *buf, size_t len);

#endif
