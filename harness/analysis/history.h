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
 * when NULL); cases by a glob on their name. The nightly's re-measurement
 * runs (label ending in "-recheck": one case measured again, a second
 * opinion, not a night) are left out unless rechecks is set. Each series
 * keeps its newest `last` points.
 */
#ifndef AB_HISTORY_H
#define AB_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "common/stats.h"
#include "analysis/steps.h"
#include "common/diag.h"
#include "store/store.h"

#define HISTORY_DEFAULT_LAST 100
#define HISTORY_DEFAULT_MIN_STEP 0.05
#define HISTORY_RECHECK_SUFFIX "-recheck"

enum history_metric {
	HISTORY_MEDIAN,   /* fused (B) median time, ns */
	HISTORY_SPEEDUP,  /* median(A) / median(B) */
	HISTORY_GBPS,     /* fused (B) bytes / median, GB/s */
};

struct history_filter {
	const char *cases, *scenario, *label, *device; /* glob patterns; NULL: any */
	bool rechecks;              /* include the *-recheck runs */
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
	char baseline[64];          /* a baseline naming this run, "" if none */
};

struct history_series {
	char scenario[64], device[128], case_name[64], shape[64];
	char arm_a[32], arm_b[32];  /* of the newest run */
	int seen;                   /* order of first appearance, newest run first */
	int n;
	struct history_point *points; /* oldest first */
	struct steps_result steps;    /* over points[].v.point */
};

struct history {
	enum history_metric metric;
	double min_step;
	int n_runs;                   /* runs that passed the filter */
	int n_series;
	struct history_series *series; /* by scenario, then device, then the cases' order */
};

/* Reads the runs of st that pass f and builds the series with their steps.
 * AB_ERR_DATA when no run or case matches. Free with history_free. */
enum ab_rc history_collect(struct store *st, const struct history_filter *f, struct history *out, struct ab_diag *d);
void history_free(struct history *h);

/* Whether a label is a re-measurement run's (ends in -recheck). */
bool history_is_recheck(const char *label);

/* "median", "speedup", "gbps" <-> the enum; false for an unknown name. */
bool history_metric_parse(const char *name, enum history_metric *m);
const char *history_metric_str(enum history_metric m);

#endif
