/*
 * history.h - each case's figure over the stored runs, with the steps in
 * it: what `abbench history` prints and plots and `abbench publish` puts on
 * its pages.
 *
 * A series is one (scenario, device, case): its points are the 'ok' runs
 * that measured the case, oldest first, each with the run's id, start
 * time, commit and label, the figure with its 95% interval, and the name
 * of a baseline pointing at the run. Three metrics:
 *
 *   median   the fused (B) arm's median time, all B slots pooled, with its
 *            distribution-free order-statistic interval (summary_arm.median_ci);
 *   speedup  median(A) / median(B) with its bootstrap interval, as the
 *            report computes it (summary_case);
 *   gbps     the fused (B) arm's bytes (analysis/bandwidth.h) over its
 *            median, GB/s, the interval the median's turned over.
 *
 * An interval needs SUMMARY_MIN_SAMPLES samples an arm; below that its
 * bounds are NAN (printed n/a). The steps are found by steps_detect on the
 * figures (steps.h: E-divisive means, Welch's t under a noise model).
 *
 * A step is a regression or an improvement by its direction, except
 * between two runs of one commit: runs of the same code are A/A runs, and
 * how far they move apart is the A/A noise itself, so a step found there
 * is "same commit: noise" and counted as neither, unless something else
 * the runs recorded differs across it (the scenario's text, the device's
 * driver or runtime): that is evidence beyond the A/A noise, and the step
 * is judged by its direction, naming what changed. A commit with
 * uncommitted changes ("-dirty") or none recorded is never "one commit".
 *
 * Runs are chosen by glob patterns on scenario, label and device name (any
 * when NULL); cases by a glob on their name. Re-measurement runs (run
 * --recheck: cases measured again, a second opinion, not a night) are
 * left out unless rechecks is set. Each series
 * keeps its newest `last` points.
 *
 * analysis/ reads no file: the command walks the store (cli/load.c),
 * newest run first, asking history_run_wanted of each listed run and
 * handing every wanted one to history_add_run; history_finish then orders
 * the series and finds their steps.
 */
#ifndef AB_HISTORY_H
#define AB_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/steps.h"
#include "common/diag.h"
#include "common/results.h"
#include "common/stats.h"

#define HISTORY_DEFAULT_LAST 100
#define HISTORY_DEFAULT_MIN_STEP 0.05

enum history_metric {
	HISTORY_MEDIAN,   /* fused (B) median time, ns */
	HISTORY_SPEEDUP,  /* median(A) / median(B) */
	HISTORY_GBPS,     /* fused (B) bytes / median, GB/s */
};

struct history_filter {
	const char *cases, *scenario, *label, *device; /* glob patterns; NULL: any */
	bool rechecks;              /* include the run --recheck runs */
	int last;                   /* newest points per series; 0: HISTORY_DEFAULT_LAST */
	enum history_metric metric;
	double min_step;            /* smallest step named, a fraction (steps_detect) */
};

struct history_point {
	int64_t run_id;
	char started_at[32], commit[64], label[64];
	bool quick, partial;        /* run --quick, run --only */
	int n;                      /* samples behind the figure (the fewer of both arms for speedup) */
	struct stats_interval v;    /* the figure and its 95% interval */
	double rel;                 /* v.point over its series' median, minus 1 */
	char baseline[64];          /* a baseline naming this run, "" if none */
	char scenario_hash[17];     /* the scenario text's sha256, its first 16 hex digits */
	char driver[72];            /* the device's driver and runtime versions */
};

struct history_series {
	char scenario[64], device[128], case_name[64], shape[64];
	char sweep[64], axis[8];    /* the [case] it was swept from and the axis ("" when not swept) */
	int64_t axis_value;
	char arm_a[32], arm_b[32];  /* of the newest run */
	int seen;                   /* order of first appearance, newest run first */
	int n;
	struct history_point *points; /* oldest first */
	struct steps_result steps;    /* over points[].v.point */
	double median;                /* of points[].v.point: a chart's centre */
};

struct history {
	enum history_metric metric;
	double min_step;
	int n_runs;                   /* runs that passed the filter */
	int n_series;
	struct history_series *series; /* by scenario, then device, then the cases' order */
};

/* One scenario on one device: series [first, first + n) of the history
 * (sorted by scenario and device), and the run whose figures stand for it
 * (history_groups). */
struct history_group {
	int first, n;
	int64_t newest_run; /* the latest of its series' last points, a run of every case
			     * preferred to a partial one; 0 when none */
};

/* Starts an empty history for f. AB_ERR_USAGE when f->last is above
 * STEPS_MAX_POINTS. */
enum ab_rc history_begin(struct history *h, const struct history_filter *f, struct ab_diag *d);

/* Whether the listed run s is one f asks for ('ok', the globs, rechecks). */
bool history_run_wanted(const struct history_filter *f, const struct results_run_summary *s);

/* Adds the points of run r (wanted, handed over newest first) to the
 * series of its matching cases, each series keeping its newest `last`;
 * baseline is the name of a baseline pointing at r ("" or NULL: none). */
enum ab_rc history_add_run(struct history *h, const struct history_filter *f, const struct results_run *r,
			   const char *baseline, struct ab_diag *d);

/* Drops empty series, puts each in time order with its steps and median,
 * and sorts the series by scenario and device. AB_ERR_DATA when no run or
 * no case matched. On failure h is freed. */
enum ab_rc history_finish(struct history *h, const struct history_filter *f, struct ab_diag *d);
void history_free(struct history *h);

/* Splits the series into groups of one scenario and device: fills out[]
 * (at most max) and returns how many. */
int history_groups(const struct history *h, struct history_group *out, int max);

/* Whether a step of this relative change is an improvement: a shorter
 * time, a higher speedup or bandwidth. Printers draw and word steps by it
 * (an improvement is never drawn as a regression). */
bool history_improvement(const struct history *h, double change);

enum history_step_kind {
	HISTORY_STEP_REGRESSION,
	HISTORY_STEP_IMPROVEMENT,
	HISTORY_STEP_SAME_COMMIT,   /* between two runs of one commit, nothing else recorded moved: noise */
};

/* The kind of step k of series s (1 <= k < steps.n_segments), as above;
 * changed gets what else differs across a step between runs of one commit
 * ("scenario", "driver", "scenario and driver"; "" when nothing does or
 * the commits differ; NULL: not wanted). */
enum history_step_kind history_step_kind(const struct history *h, const struct history_series *s, int k,
					 const char **changed);

/* The steps of series [first, first + n) into count[kind] for each enum
 * history_step_kind; returns their sum. */
int history_count_steps(const struct history *h, int first, int n, int count[3]);

/* Step k of series i, and the start of the first run after it. */
struct history_step_ref {
	int i, k;
	const char *when;
};

/* Every step of the history into out (room for each), newest first (by
 * when, then series and step). Returns how many. */
int history_steps_newest_first(const struct history *h, struct history_step_ref *out);

/* Whether series a and b are cases of one sweep, on one scenario and device. */
bool history_same_sweep(const struct history_series *a, const struct history_series *b);

/* The runs of the points of series members[0..n_members), in time order
 * (start, then id), once each: xs (room for every point) gets a point of
 * each. Returns how many runs. */
int history_runs(const struct history *h, const int *members, int n_members, const struct history_point **xs);

/* Whether the commit is one commit's: recorded, not "unknown", and with no
 * uncommitted changes ("-dirty"). */
bool history_clean_commit(const char *commit);

/* "median", "speedup", "gbps" -> the enum; false for an unknown name. */
bool history_metric_parse(const char *name, enum history_metric *m);

#endif
