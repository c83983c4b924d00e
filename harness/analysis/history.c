/*
 * history.c - per-case series over the stored runs and their steps.
 *
 * Phases: list the runs and keep those the filter wants; walk them newest
 * first, loading each and adding a point to the series of every matching
 * case until the series holds `last` points; put each series in time order
 * and detect its steps; sort the series by scenario and device.
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

bool history_is_recheck(const char *label)
{
	size_t n = strlen(label), k = strlen(HISTORY_RECHECK_SUFFIX);
	return n >= k && !strcmp(label + n - k, HISTORY_RECHECK_SUFFIX);
}

static bool run_wanted(const struct history_filter *f, const struct results_run_summary *s)
{
	return !strcmp(s->status, "ok") && matches(f->scenario, s->scenario_name) && matches(f->label, s->label) &&
	       matches(f->device, s->device) && (f->rechecks || !history_is_recheck(s->label));
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
	snprintf(s->arm_a, sizeof s->arm_a, "%s", r->arm_a);
	snprintf(s->arm_b, sizeof s->arm_b, "%s", r->arm_b);
	s->seen = h->n_series - 1;
	return s;
}

static const char *baseline_of(const struct store_baseline *b, int nb, int64_t run_id)
{
	for (int i = 0; i < nb; i++)
		if (b[i].run_id == run_id)
			return b[i].name;
	return "";
}

/* Adds run r's point to series s (which has room for `last`). */
static enum ab_rc add_point(struct history_series *s, const struct results_run *r, const struct summary_case *c,
			    const char *baseline, enum history_metric m, int last, struct ab_diag *d)
{
	struct history_point p = { .run_id = r->id, .quick = r->quick, .partial = r->only_cases[0] != '\0' };
	snprintf(p.started_at, sizeof p.started_at, "%s", r->started_at);
	snprintf(p.commit, sizeof p.commit, "%s", r->git_commit);
	snprintf(p.label, sizeof p.label, "%s", r->label);
	snprintf(p.baseline, sizeof p.baseline, "%s", baseline);
	figure(c, m, &p);
	if (!(p.v.point > 0) || !isfinite(p.v.point))
		return AB_OK; /* no samples of the figure: no point */
	if (!s->points && !(s->points = calloc((size_t)last, sizeof *s->points)))
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the history of '%s'", c->c->name);
	s->points[s->n++] = p;
	return AB_OK;
}

/* Summarises run r (the speedup's bootstrap only when it is the metric)
 * and adds a point for each of its matching cases. */
static enum ab_rc add_run(struct history *h, const struct history_filter *f, const struct results_run *r,
			  const struct store_baseline *b, int nb, int last, struct ab_diag *d)
{
	struct summary_run sr;
	enum summary_detail detail = f->metric == HISTORY_SPEEDUP ? SUMMARY_FULL : SUMMARY_NO_INTERVALS;
	enum ab_rc rc = summary_compute(r, detail, &sr, d);
	for (int i = 0; !rc && i < sr.n_cases; i++) {
		const struct summary_case *c = &sr.cases[i];
		if (!matches(f->cases, c->c->name))
			continue;
		struct history_series *s = series_of(h, r, c->c);
		if (!s)
			rc = ab_fail(d, AB_ERR_NOMEM, "out of memory for the history");
		else if (s->n < last)
			rc = add_point(s, r, c, baseline_of(b, nb, r->id), f->metric, last, d);
	}
	if (sr.cases)
		summary_free(&sr);
	return rc;
}

/* Loads the wanted runs newest first and adds their points. */
static enum ab_rc walk_runs(struct store *st, const struct history_filter *f, struct history *h, int last,
			    struct ab_diag *d)
{
	struct results_run_summary *runs = NULL;
	struct store_baseline *b = NULL;
	int n = 0, nb = 0;
	enum ab_rc rc = store_list_runs(st, &runs, &n, d);
	if (!rc)
		rc = store_baseline_list(st, &b, &nb, d);
	for (int i = 0; !rc && i < n; i++) {
		struct results_run *r;
		if (!run_wanted(f, &runs[i]))
			continue;
		h->n_runs++;
		if ((rc = store_load_run(st, runs[i].id, &r, d)))
			break;
		rc = add_run(h, f, r, b, nb, last, d);
		results_run_free(r);
	}
	free(runs);
	free(b);
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
	double *v = malloc((size_t)(s->n ? s->n : 1) * sizeof *v);
	if (!v)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the steps of '%s'", s->case_name);
	for (int i = 0; i < s->n; i++)
		v[i] = s->points[i].v.point;
	enum ab_rc rc = steps_detect(v, s->n, min_step, &s->steps, d);
	free(v);
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

enum ab_rc history_collect(struct store *st, const struct history_filter *f, struct history *out, struct ab_diag *d)
{
	int last = f->last > 0 ? f->last : HISTORY_DEFAULT_LAST;
	memset(out, 0, sizeof *out);
	out->metric = f->metric;
	out->min_step = f->min_step;
	if (last > STEPS_MAX_POINTS)
		return ab_fail(d, AB_ERR_USAGE, "at most %d runs a series, not %d", STEPS_MAX_POINTS, last);
	enum ab_rc rc = walk_runs(st, f, out, last, d);
	if (!rc) {
		drop_empty(out);
		if (!out->n_runs)
			rc = ab_fail(d, AB_ERR_DATA, "no 'ok' run matches (see 'abbench list')");
		else if (!out->n_series)
			rc = ab_fail(d, AB_ERR_DATA, "no case matches in the %d run%s that do", out->n_runs,
				     out->n_runs == 1 ? "" : "s");
	}
	for (int i = 0; !rc && i < out->n_series; i++)
		rc = finish_series(&out->series[i], f->min_step, d);
	if (!rc)
		qsort(out->series, (size_t)out->n_series, sizeof *out->series, by_scenario_device);
	if (rc)
		history_free(out);
	return rc;
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

const char *history_metric_str(enum history_metric m)
{
	return m == HISTORY_SPEEDUP ? "speedup" : m == HISTORY_GBPS ? "gbps" : "median";
}
