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
 * figures (steps.h: asv-style penalized L1 segmentation).
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

/* "median", "speedup", "gbps" -> the enum; false for an unknown name. */
bool history_metric_parse(const char *name, enum history_metric *m);

#endif
