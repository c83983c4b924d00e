/*
 * report.h - a run as a markdown report with gnuplot charts, shaped like a
 * kernel pull request's description.
 *
 * report_write writes DIR/report.md (atomically) and, beside it, the charts:
 *
 *   speedup.{dat,gp,png}        speedup per case, one bar per device (this
 *                               run and the latest 'ok' run of the same
 *                               scenario on every other device), with the
 *                               bootstrap interval as error bars
 *   kernels-CASE.{dat,gp,png}   per-kernel time per sample, stacked, per arm
 *   samples-CASE.{dat,gp,png}   box plot of the samples of every slot
 *
 * Sections of report.md: summary (per case: A and B medians with spread and
 * sample count, speedup with its 95% bootstrap interval, bit-exact), the
 * A/B/A brackets with drift and its verdict against the device's noise
 * floor, kernel attribution per arm, accuracy (md5 of every slot's outputs,
 * byte equality, error against the float64 reference), the model-level
 * projection from the scenario's [model] section, and provenance.
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
