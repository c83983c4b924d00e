/*
 * printer.h - every output format behind one interface, found by name
 * (`--format NAME` on every command that prints): a table of functions,
 * one per kind of thing a format prints, each handed a job of results
 * already computed (analysis/) and a stream (job->f: standard output, or
 * a file written atomically) or a directory (job->dir: report and
 * dashboard, with their charts). A printer computes, judges and selects
 * nothing. A kind a format does not print is NULL in its table; asking
 * for it is a usage error that names the formats that do. A new format is
 * one more table in printers[] (printer.c); no command changes.
 */
#ifndef AB_PRINTER_H
#define AB_PRINTER_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/compare.h"
#include "analysis/coverage.h"
#include "analysis/divergence.h"
#include "analysis/gate.h"
#include "analysis/history.h"
#include "analysis/peers.h"
#include "analysis/projection.h"
#include "analysis/summary.h"
#include "common/cert.h"
#include "common/diag.h"
#include "common/results.h"
#include "config/profile.h"
#include "run/certify_check.h"
#include "store/store.h"

enum printer_kind {
	PRINTER_SUMMARY,   /* a run's summary (show; export --format csv|benchmark) */
	PRINTER_RECORD,    /* everything a run holds, every sample (export --format json) */
	PRINTER_COMPARE,   /* two runs compared (compare) */
	PRINTER_GATE,      /* the gate's verdict (gate) */
	PRINTER_FAILING,   /* the cases that failed the gate on time alone (gate --failing-cases) */
	PRINTER_HISTORY,   /* each case's series over runs (history) */
	PRINTER_RUNS,      /* the stored runs, one each (list) */
	PRINTER_BASELINES, /* the baselines (baseline list) */
	PRINTER_REPORT,    /* a directory: a run's report and its charts (report) */
	PRINTER_DASHBOARD, /* a directory: the history's pages, charts and reports (publish) */
	PRINTER_DIFF,      /* where a case's bits differ (diff) */
	PRINTER_FIGURES,   /* the table of figures (figures) */
	PRINTER_KINDS,
};

/* What became of a job's charts (report, dashboard). */
struct printer_charts {
	int n_drawn;      /* PNGs drawn */
	int n_failed;     /* gnuplot ran and failed */
	bool skipped;     /* gnuplot missing, or no_plots */
	char note[512];   /* why skipped, or the first failure */
};

/* PRINTER_GATE and PRINTER_FAILING: the two runs, the rule and the verdict. */
struct printer_gate {
	const struct results_run *base, *run;
	const struct gate_options *o;
	const struct gate_result *r;
};

/* PRINTER_REPORT: the run (peers->series[0]) and its peers, the device
 * profile used (NULL: none) and what to say about it; and a site run's
 * projection held against the run's cases (report --projected-by; NULL:
 * none). */
struct printer_report {
	const struct peers_table *peers;
	const struct profile *profile;
	const char *profile_note;   /* a fallback or failure remark, printed; NULL: none */
	bool peers_named;           /* the peers were named by the user, not picked */
	const struct projection *projection;
};

/* PRINTER_DASHBOARD: the history, grouped by scenario and device, with the
 * newest run of each group (its report: reports[g], NULL when none was
 * loaded). */
struct printer_dashboard {
	const char *title;
	const struct history *history;
	int n_groups;
	const struct history_group *groups;
	const struct printer_report *const *reports; /* [n_groups] */
	bool no_reports;
	int n_older;                                 /* the history's other runs, reported without charts */
	const struct printer_report *const *older;   /* [n_older] */
	const char *commit_url;                      /* a link per commit: "https://.../commit/{commit}"; NULL: none */
};

/* PRINTER_DIFF: a case's divergence report (analysis/divergence.h), its
 * summary (the run's, for its sweep), and the heatmaps drawn beside the
 * document (drawn[s * RESULTS_MAX_DIV + t] for the report's slot s,
 * tensor t; NULL: none) or why none were (heatmap_note). */
struct printer_diff {
	const struct divergence_report *rep;
	const struct summary_run *summary;
	const struct summary_case *sc;
	const bool *drawn;
	const char *heatmap_note;
};

struct printer_job {
	FILE *f;                 /* stream kinds: where to write (set by printer_emit) */
	const char *dir;         /* directory kinds: created when missing (set by printer_emit) */
	bool no_plots;           /* directory kinds: write chart data and scripts, do not run gnuplot */
	struct printer_charts *charts; /* directory kinds: filled */
	/* the results; which are set depends on the kind */
	const struct results_run *run;          /* RECORD */
	const struct summary_run *summary;      /* SUMMARY; COMPARE: the first run */
	const struct summary_run *second;       /* COMPARE */
	const struct compare_result *compare;   /* COMPARE */
	const struct printer_gate *gate;        /* GATE, FAILING */
	const struct history *history;          /* HISTORY */
	const struct results_run_summary *const *runs; /* RUNS: the runs to list */
	int n_runs;
	const struct store_baseline *baselines; /* BASELINES */
	int n_baselines;
	const struct printer_report *report;    /* REPORT */
	const struct printer_dashboard *dashboard; /* DASHBOARD */
	const struct printer_diff *diff;        /* DIFF */
	int figures_view;                       /* FIGURES: an enum figure_view, or -1: every row */
};

typedef enum ab_rc (*printer_fn)(const struct printer_job *job, struct ab_diag *d);

struct printer {
	const char *name;     /* "json" */
	const char *summary;  /* one line for --help */
	printer_fn print[PRINTER_KINDS];
};

/* The printer of that name, NULL when there is none. */
const struct printer *printer_find(const char *name);

/* Whether kind writes into a directory rather than a stream. */
bool printer_kind_is_dir(enum printer_kind kind);

/* "a run's summary", "a comparison" ...: what a kind is, for messages. */
const char *printer_kind_words(enum printer_kind kind);

/* The names of the formats that print one of kinds[0..n), joined by ", "
 * into buf (for --help and messages). Returns buf. */
char *printer_names(const enum printer_kind *kinds, int n, char *buf, size_t len);

/* The first of kinds[0..n) that p prints; -1 when none. */
int printer_pick(const struct printer *p, const enum printer_kind *kinds, int n);

/* Runs p's function for kind on job, writing to out: for a stream kind
 * NULL or "-" is standard output, anything else a file written atomically
 * (common/outfile.h: a failure leaves no partial file); for a directory
 * kind out is the directory (required). AB_ERR_USAGE when p does not
 * print kind. */
enum ab_rc printer_emit(const struct printer *p, enum printer_kind kind, struct printer_job *job, const char *out,
			struct ab_diag *d);

/* gate_print.c: the markdown format's PRINTER_COMPARE (a line per run, the
 * rule, a row per case) and PRINTER_GATE (a headline with what kept the
 * gate from passing, a row per case, the tally, then the rule); the text
 * format's PRINTER_FAILING (one case name per line, of the cases that
 * failed on time alone: the ones worth measuring again). AB_ERR_IO when
 * the stream reports an error, as every printer below. */
enum ab_rc compare_print_table(const struct printer_job *job, struct ab_diag *d);
enum ab_rc gate_print_verdict(const struct printer_job *job, struct ab_diag *d);
enum ab_rc gate_print_failing(const struct printer_job *job, struct ab_diag *d);

/* The html printer's PRINTER_DASHBOARD (publish.c): job->dashboard into
 * job->dir (created), the charts' outcome into job->charts. A report that
 * cannot be written for a reason other than memory or IO is a note on the
 * page. */
enum ab_rc publish_write(const struct printer_job *job, struct ab_diag *d);

/* What `abbench prune` removed, or would remove (prune_print.c):
 *   run 12  2026-12-06T05:46:50Z  glm_cpu  label 'aa-2-b'  failed  3 cases
 *   pruned 1 run (3 cases)           or, dry_run:
 *   would prune 1 run (3 cases); --dry-run: nothing removed
 * a line per run, newest first; "nothing to prune" when n is 0. */
enum ab_rc prune_print(FILE *f, const struct results_run_summary *runs, int n, bool dry_run, struct ab_diag *d);

/* What `abbench certify` (the certificate written to path), `certify
 * --check` and `abbench coverage` print on a terminal (certify_print.c;
 * docs/CERTIFICATE.md). */
void certify_print(FILE *f, const struct cert *c, const char *path);
void certify_print_check(FILE *f, const struct cert *c, const struct certify_check *k, const char *path);
void certify_print_coverage(FILE *f, const struct coverage *cv, const struct cert *c);

#endif
