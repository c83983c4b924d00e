/*
 * history.c - per-case series over the stored runs and their steps.
 *
 * Phases: the command hands over the runs the filter wants, newest first,
 * and each adds a point to the series of every matching case until the
 * series holds `last` points; then each series is put in time order and
 * its steps detected, and the series are sorted by scenario and device.
 */
#include "analysis/history.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/summary.h"

static bool matches(const char *pattern, const char *text)
{
	return !pattern || !fnmatch(pattern, text, 0);
}

bool history_run_wanted(const struct history_filter *f, const struct results_run_summary *s)
{
	return !strcmp(s->status, "ok") && matches(f->scenario, s->scenario_name) && matches(f->label, s->label) &&
	       matches(f->device, s->device) && (f->rechecks || !s->recheck);
}

/* The figure of a summarised case: B's median with its order-statistic
 * interval, the speedup with its bootstrap interval, or B's bandwidth
 * (bytes over the median and over the median's interval bounds; NAN, so no
 * point, when the run stored no bytes for the case). */
static void figure(const struct summary_case *c, enum history_metric m, struct history_point *p)
{
	if (m == HISTORY_SPEEDUP) {
		p->v = c->speedup;
		p->n = c->a.time.n < c->b.time.n ? c->a.time.n : c->b.time.n;
		return;
	}
	p->n = c->b.time.n;
	p->v = p->n ? c->b.median_ci : (struct stats_interval){ NAN, NAN, NAN }; /* computed once by the summary */
	if (p->n < SUMMARY_MIN_SAMPLES)
		p->v.low = p->v.high = NAN;
	if (m == HISTORY_GBPS) {
		double bytes = c->b.bw.bytes > 0 ? c->b.bw.bytes : NAN; /* bytes / ns = GB/s */
		p->v = (struct stats_interval){ bytes / p->v.point, bytes / p->v.high, bytes / p->v.low };
	}
}

/* The series of (run's scenario and device, case), created when new. */
static struct history_series *series_of(struct history *h, const struct results_run *r, const struct results_case *c)
{
	for (int i = 0; i < h->n_series; i++) {
		struct history_series *s = &h->series[i];
		if (!strcmp(s->scenario, r->scenario_name) && !strcmp(s->device, r->device.name) &&
		    !strcmp(s->case_name, c->name))
			return s;
	}
	struct history_series *grown = realloc(h->series, (size_t)(h->n_series + 1) * sizeof *grown);
	if (!grown)
		return NULL;
	h->series = grown;
	struct history_series *s = &h->series[h->n_series++];
	memset(s, 0, sizeof *s);
	snprintf(s->scenario, sizeof s->scenario, "%s", r->scenario_name);
	snprintf(s->device, sizeof s->device, "%s", r->device.name);
	snprintf(s->case_name, sizeof s->case_name, "%s", c->name);
	snprintf(s->shape, sizeof s->shape, "%s", c->shape);
	snprintf(s->sweep, sizeof s->sweep, "%s", c->sweep);
	snprintf(s->axis, sizeof s->axis, "%s", c->axis);
	s->axis_value = c->axis_value;
	snprintf(s->arm_a, sizeof s->arm_a, "%s", r->arm_a);
	snprintf(s->arm_b, sizeof s->arm_b, "%s", r->arm_b);
	s->seen = h->n_series - 1;
	return s;
}

/* Adds run r's point to series s (which has room for `last`). */
static enum ab_rc add_point(struct history_series *s, const struct results_run *r, const struct summary_case *c,
			    const char *baseline, enum history_metric m, int last, struct ab_diag *d)
{
	struct history_point p = { .run_id = r->id, .quick = r->quick, .partial = r->only_cases[0] != '\0' };
	snprintf(p.started_at, sizeof p.started_at, "%s", r->started_at);
	snprintf(p.commit, sizeof p.commit, "%s", r->git_commit);
	snprintf(p.label, sizeof p.label, "%s", r->label);
	snprintf(p.baseline, sizeof p.baseline, "%s", baseline ? baseline : "");
	snprintf(p.scenario_hash, sizeof p.scenario_hash, "%.16s", r->scenario_hash);
	snprintf(p.driver, sizeof p.driver, "%.31s/%.31s", r->device.driver_version, r->device.runtime_version);
	figure(c, m, &p);
	if (!(p.v.point > 0) || !isfinite(p.v.point))
		return AB_OK; /* no samples of the figure: no point */
	if (!s->points && !(s->points = calloc((size_t)last, sizeof *s->points)))
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the history of '%s'", c->c->name);
	s->points[s->n++] = p;
	return AB_OK;
}

static int last_of(const struct history_filter *f)
{
	return f->last > 0 ? f->last : HISTORY_DEFAULT_LAST;
}

/* Summarises run r (the speedup's bootstrap only when it is the metric)
 * and adds a point for each of its matching cases. */
enum ab_rc history_add_run(struct history *h, const struct history_filter *f, const struct results_run *r,
			   const char *baseline, struct ab_diag *d)
{
	struct summary_run sr;
	enum summary_detail detail = f->metric == HISTORY_SPEEDUP ? SUMMARY_FULL : SUMMARY_NO_INTERVALS;
	int last = last_of(f);
	enum ab_rc rc = summary_compute(r, detail, &sr, d);
	h->n_runs++;
	for (int i = 0; !rc && i < sr.n_cases; i++) {
		const struct summary_case *c = &sr.cases[i];
		if (!matches(f->cases, c->c->name))
			continue;
		struct history_series *s = series_of(h, r, c->c);
		if (!s)
			rc = ab_fail(d, AB_ERR_NOMEM, "out of memory for the history");
		else if (s->n < last)
			rc = add_point(s, r, c, baseline, f->metric, last, d);
	}
	if (sr.cases)
		summary_free(&sr);
	return rc;
}

/* Oldest first, then the steps. */
static enum ab_rc finish_series(struct history_series *s, double min_step, struct ab_diag *d)
{
	for (int i = 0, j = s->n - 1; i < j; i++, j--) {
		struct history_point t = s->points[i];
		s->points[i] = s->points[j];
		s->points[j] = t;
	}
	size_t m = (size_t)(s->n ? s->n : 1);
	double *v = malloc(m * sizeof *v), *lo = malloc(m * sizeof *lo), *hi = malloc(m * sizeof *hi);
	if (!v || !lo || !hi) {
		free(v);
		free(lo);
		free(hi);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the steps of '%s'", s->case_name);
	}
	for (int i = 0; i < s->n; i++) {
		v[i] = s->points[i].v.point;
		lo[i] = s->points[i].v.low;
		hi[i] = s->points[i].v.high;
	}
	s->median = stats_median(v, s->n);
	for (int i = 0; i < s->n; i++)
		s->points[i].rel = s->points[i].v.point / s->median - 1;
	enum ab_rc rc = steps_detect_ci(v, lo, hi, s->n, min_step, &s->steps, d);
	free(v);
	free(lo);
	free(hi);
	return rc;
}

/* By scenario, then device; within them, the cases in the order the
 * newest run lists them. */
static int by_scenario_device(const void *pa, const void *pb)
{
	const struct history_series *a = pa, *b = pb;
	int c = strcmp(a->scenario, b->scenario);
	if (!c)
		c = strcmp(a->device, b->device);
	return c ? c : (a->seen > b->seen) - (a->seen < b->seen);
}

/* Drops the series that got no point (a case whose runs had no samples). */
static void drop_empty(struct history *h)
{
	int k = 0;
	for (int i = 0; i < h->n_series; i++) {
		if (h->series[i].n)
			h->series[k++] = h->series[i];
		else
			free(h->series[i].points);
	}
	h->n_series = k;
}

enum ab_rc history_begin(struct history *h, const struct history_filter *f, struct ab_diag *d)
{
	memset(h, 0, sizeof *h);
	h->metric = f->metric;
	h->min_step = f->min_step;
	if (last_of(f) > STEPS_MAX_POINTS)
		return ab_fail(d, AB_ERR_USAGE, "at most %d runs a series, not %d", STEPS_MAX_POINTS, last_of(f));
	return AB_OK;
}

enum ab_rc history_finish(struct history *h, const struct history_filter *f, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	drop_empty(h);
	if (!h->n_runs)
		rc = ab_fail(d, AB_ERR_DATA, "no 'ok' run matches (see 'abbench list')");
	else if (!h->n_series)
		rc = ab_fail(d, AB_ERR_DATA, "no case matches in the %d run%s that do", h->n_runs, h->n_runs == 1 ? "" : "s");
	for (int i = 0; !rc && i < h->n_series; i++)
		rc = finish_series(&h->series[i], f->min_step, d);
	if (!rc)
		qsort(h->series, (size_t)h->n_series, sizeof *h->series, by_scenario_device);
	if (rc)
		history_free(h);
	return rc;
}

/* The newest run of a group: the latest of its series' last points,
 * preferring a run of every case to a partial one. */
static int64_t newest_run(const struct history *h, const struct history_group *g)
{
	const struct history_point *best = NULL;
	for (int i = g->first; i < g->first + g->n; i++) {
		const struct history_series *s = &h->series[i];
		for (int j = s->n - 1; j >= 0; j--) {
			const struct history_point *p = &s->points[j];
			bool later = !best || (best->partial && !p->partial) ||
				     (best->partial == p->partial && strcmp(p->started_at, best->started_at) > 0);
			if (later)
				best = p;
			if (!p->partial)
				break;
		}
	}
	return best ? best->run_id : 0;
}

int history_groups(const struct history *h, struct history_group *out, int max)
{
	int k = 0;
	for (int i = 0; i < h->n_series && k <= max; i++) {
		const struct history_series *s = &h->series[i];
		if (k && !strcmp(s->scenario, h->series[out[k - 1].first].scenario) &&
		    !strcmp(s->device, h->series[out[k - 1].first].device)) {
			out[k - 1].n++;
			continue;
		}
		if (k == max)
			break;
		out[k] = (struct history_group){ i, 1, 0 };
		k++;
	}
	for (int g = 0; g < k; g++)
		out[g].newest_run = newest_run(h, &out[g]);
	return k;
}

void history_free(struct history *h)
{
	for (int i = 0; i < h->n_series; i++) {
		free(h->series[i].points);
		steps_free(&h->series[i].steps);
	}
	free(h->series);
	memset(h, 0, sizeof *h);
}

bool history_improvement(const struct history *h, double change)
{
	return h->metric == HISTORY_MEDIAN ? change < 0 : change > 0;
}

bool history_clean_commit(const char *commit)
{
	size_t n = strlen(commit), k = strlen("-dirty");
	return n && strcmp(commit, "unknown") && !(n >= k && !strcmp(commit + n - k, "-dirty"));
}

enum history_step_kind history_step_kind(const struct history *h, const struct history_series *s, int k,
					 const char **changed)
{
	const struct history_point *before = &s->points[s->steps.segments[k].start - 1];
	const struct history_point *after = &s->points[s->steps.segments[k].start];
	bool scenario = strcmp(before->scenario_hash, after->scenario_hash) != 0;
	bool driver = strcmp(before->driver, after->driver) != 0;
	bool one = history_clean_commit(before->commit) && !strcmp(before->commit, after->commit);
	if (changed)
		*changed = !one ? "" : scenario && driver ? "scenario and driver" : scenario ? "scenario" : driver ? "driver" : "";
	if (one && !scenario && !driver)
		return HISTORY_STEP_SAME_COMMIT;
	return history_improvement(h, s->steps.segments[k].change) ? HISTORY_STEP_IMPROVEMENT : HISTORY_STEP_REGRESSION;
}

int history_count_steps(const struct history *h, int first, int n, int count[3])
{
	count[0] = count[1] = count[2] = 0;
	for (int i = first; i < first + n; i++)
		for (int k = 1; k < h->series[i].steps.n_segments; k++)
			count[history_step_kind(h, &h->series[i], k, NULL)]++;
	return count[0] + count[1] + count[2];
}

static int newest_first(const void *pa, const void *pb)
{
	const struct history_step_ref *a = pa, *b = pb;
	int c = strcmp(b->when, a->when);
	if (!c)
		c = (a->i > b->i) - (a->i < b->i);
	return c ? c : (a->k > b->k) - (a->k < b->k);
}

int history_steps_newest_first(const struct history *h, struct history_step_ref *out)
{
	int n = 0;
	for (int i = 0; i < h->n_series; i++)
		for (int k = 1; k < h->series[i].steps.n_segments; k++) {
			const struct history_series *s = &h->series[i];
			out[n++] = (struct history_step_ref){ i, k, s->points[s->steps.segments[k].start].started_at };
		}
	qsort(out, (size_t)n, sizeof *out, newest_first);
	return n;
}

bool history_same_sweep(const struct history_series *a, const struct history_series *b)
{
	return a->sweep[0] && !strcmp(a->sweep, b->sweep) && !strcmp(a->axis, b->axis) &&
	       !strcmp(a->scenario, b->scenario) && !strcmp(a->device, b->device);
}

/* Run points in time order, a run's points together. */
static int by_start(const void *pa, const void *pb)
{
	const struct history_point *p = *(const struct history_point *const *)pa;
	const struct history_point *q = *(const struct history_point *const *)pb;
	int c = strcmp(p->started_at, q->started_at);
	return c ? c : (p->run_id > q->run_id) - (p->run_id < q->run_id);
}

int history_runs(const struct history *h, const int *members, int n_members, const struct history_point **xs)
{
	int n = 0, runs = 0;
	for (int m = 0; m < n_members; m++)
		for (int i = 0; i < h->series[members[m]].n; i++)
			xs[n++] = &h->series[members[m]].points[i];
	qsort(xs, (size_t)n, sizeof *xs, by_start);
	for (int i = 0; i < n; i++)
		if (!runs || xs[runs - 1]->run_id != xs[i]->run_id)
			xs[runs++] = xs[i];
	return runs;
}

bool history_metric_parse(const char *name, enum history_metric *m)
{
	if (!strcmp(name, "median"))
		*m = HISTORY_MEDIAN;
	else if (!strcmp(name, "speedup"))
		*m = HISTORY_SPEEDUP;
	else if (!strcmp(name, "gbps"))
		*m = HISTORY_GBPS;
	else
		return false;
	return true;
}

