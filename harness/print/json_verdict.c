/*
 * json_verdict.c - compare and gate verdicts, and the benchmark-trend
 * list, as JSON (json_verdict.h).
 */
#include "print/json_verdict.h"

#include <math.h>
#include <stdio.h>

#include "print/json_out.h"

/* What p_value is, said in every document that has one (docs/JSON.md). */
#define JSON_P_METHOD "block_bootstrap"

/* An arm's median, p10, p90 and count; null when it has no samples. */
static json_t *arm(const struct summary_spread *a)
{
	if (a->n == 0)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:i}", "median_ns", json_out_num(a->median_ns), "p10_ns",
			 json_out_num(a->p10_ns), "p90_ns", json_out_num(a->p90_ns), "n", a->n);
}

/* ---- compare ------------------------------------------------------------ */

static const char *compare_key(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_SAME: return "same";
	case COMPARE_FASTER: return "faster";
	case COMPARE_SLOWER: return "slower";
	case COMPARE_MISSING_A: return "only_second";
	case COMPARE_MISSING_B: return "only_first";
	case COMPARE_WITHIN_FLOORS: return "within_floors";
	}
	return "unknown";
}

static json_t *compare_case(const struct compare_case *c)
{
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:s, s:i, s:i, s:b, s:b}", "name", c->name,
			 "arm_a", c->arm_a, "arm_b", c->arm_b, "first", arm(&c->a), "second", arm(&c->b), "ratio",
			 json_out_interval(c->ratio), "p_value", json_out_num(c->p_value), "p_floor",
			 json_out_num(c->p_floor), "verdict", compare_key(c->verdict), "verdict_text",
			 compare_verdict_str(c->verdict), "md5_compared", c->md5_compared, "md5_differ", c->md5_differ,
			 "drifted_first", c->drifted_a, "drifted_second", c->drifted_b);
}

json_t *json_verdict_compare(const struct summary_run *a, const struct summary_run *b, const struct compare_result *r)
{
	json_t *cases = json_array();
	bool ok = cases != NULL;
	for (int i = 0; ok && i < r->n_cases; i++)
		ok = json_out_push(cases, compare_case(&r->cases[i]));
	if (!ok) {
		json_decref(cases);
		return NULL;
	}
	return json_out_document("abbench.compare",
				 json_pack("{s:o, s:o, s:f, s:s, s:o}", "first", json_out_run(a->run, false), "second",
					   json_out_run(b->run, false), "alpha", COMPARE_ALPHA, "p_method", JSON_P_METHOD,
					   "cases", cases));
}

/* ---- gate --------------------------------------------------------------- */

static const char *gate_key(enum gate_verdict v)
{
	switch (v) {
	case GATE_PASS: return "pass";
	case GATE_FASTER: return "faster";
	case GATE_NEW: return "new";
	case GATE_REGRESSED: return "regressed";
	case GATE_LOST_EXACT: return "lost_exact";
	case GATE_MISSING: return "missing";
	case GATE_INCONCLUSIVE: return "inconclusive";
	case GATE_NOT_MEASURED: return "not_measured";
	}
	return "unknown";
}

static const char *basis_key(enum gate_basis b)
{
	switch (b) {
	case GATE_NORMALISED: return "normalised";
	case GATE_RAW_VARIANT: return "raw_variant";
	case GATE_RAW_NO_A: return "raw_no_a";
	}
	return "unknown";
}

static json_t *gate_changes(const struct gate_case *g)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "raw_change",
			 json_out_num(g->raw_change), "r_base", json_out_num(g->r_base), "r_run", json_out_num(g->r_run),
			 "norm_ratio", json_out_interval(g->norm_ratio), "norm_change", json_out_num(g->norm_change),
			 "norm_p", json_out_num(g->norm_p), "change", json_out_num(g->change), "abs_change_ns",
			 json_out_num(g->abs_change_ns), "p_value", json_out_num(g->p_value), "drift_base",
			 json_out_num(g->drift_base), "drift_run", json_out_num(g->drift_run), "noise_floor",
			 json_out_num(g->noise_floor), "a_change", json_out_num(g->a_change));
}

static json_t *gate_case(const struct gate_case *g)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:b, s:b, s:b, s:b, s:b, s:s}", "name", g->name,
			      "arm_a", g->cmp.arm_a, "arm_b", g->cmp.arm_b, "verdict",
			      gate_key(g->verdict), "verdict_text", gate_verdict_str(g->verdict), "basis",
			      basis_key(g->basis), "baseline_b", arm(&g->cmp.a), "run_b", arm(&g->cmp.b), "a_moved",
			      g->a_moved, "underpowered", g->underpowered, "time_regressed", g->time_regressed,
			      "lost_exact", g->lost_exact, "run_exact", g->run_exact, "exact_note", g->exact_note);
	json_t *ch = gate_changes(g);
	if (!o || !ch || json_object_update(o, ch)) {
		json_decref(o);
		o = NULL;
	}
	json_decref(ch);
	return o;
}

static json_t *gate_rule(const struct gate_options *o, const struct gate_result *r)
{
	return json_pack("{s:f, s:s, s:f, s:s, s:s?, s:s?}", "max_regression_pct", r->max_regression_pct,
			 "threshold_source", o->threshold_source ? o->threshold_source : "", "min_change_ns",
			 r->min_change_ns, "min_change_source", o->min_change_source ? o->min_change_source : "",
			 "baseline_name", o->baseline_name, "only", o->only);
}

static json_t *gate_counts(const struct gate_result *r)
{
	return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "cases", r->n_cases, "failed", r->n_failed,
			 "time_regressed", r->n_time_regressed, "lost_exact", r->n_lost_exact, "missing", r->n_missing,
			 "faster", r->n_faster, "raw", r->n_raw, "inconclusive", r->n_inconclusive, "not_measured",
			 r->n_not_measured);
}

json_t *json_verdict_gate(const struct results_run *base, const struct results_run *run, const struct gate_options *o,
			  const struct gate_result *r)
{
	json_t *cases = json_array();
	bool ok = cases != NULL;
	for (int i = 0; ok && i < r->n_cases; i++)
		ok = json_out_push(cases, gate_case(&r->cases[i]));
	if (!ok) {
		json_decref(cases);
		return NULL;
	}
	int status = gate_exit_status(r);
	return json_out_document("abbench.gate",
				 json_pack("{s:s, s:i, s:s, s:o, s:o, s:o, s:o, s:o}", "verdict",
					   status == AB_EXIT_VERDICT ? "fail" : status == AB_EXIT_INCONCLUSIVE ? "inconclusive" : "pass",
					   "exit_status", status, "p_method", JSON_P_METHOD, "baseline",
					   json_out_run(base, false), "run", json_out_run(run, false), "rule", gate_rule(o, r),
					   "counts", gate_counts(r), "cases", cases));
}

/* ---- customSmallerIsBetter ---------------------------------------------- */

/* One arm's entry; NULL with *skip when the arm has no samples. */
static json_t *bench_entry(const struct summary_run *s, const struct summary_case *c, const struct summary_arm *a,
			   bool *skip)
{
	const struct results_run *r = s->run;
	char name[256], range[64], extra[512];
	const struct summary_spread *t = &a->time;
	*skip = t->n == 0 || !isfinite(t->median_ns);
	if (*skip)
		return NULL;
	snprintf(name, sizeof name, "%s/%s/%c:%s", r->scenario_name, c->c->name, a->arm,
		 a->variant[0] ? a->variant : a->arm == 'a' ? r->arm_a : r->arm_b);
	snprintf(range, sizeof range, "± %.1f", (t->p90_ns - t->p10_ns) / 2);
	snprintf(extra, sizeof extra, "n=%d p10=%.1f p90=%.1f ns; speedup a/b %.4fx [%.4f, %.4f]; %s", t->n, t->p10_ns,
		 t->p90_ns, c->speedup.point, c->speedup.low, c->speedup.high, r->device.name);
	return json_pack("{s:s, s:s, s:f, s:s, s:s}", "name", name, "unit", "ns", "value", t->median_ns, "range", range,
			 "extra", extra);
}

json_t *json_verdict_benchmark(const struct summary_run *s)
{
	json_t *list = json_array();
	bool ok = list != NULL;
	for (int i = 0; ok && i < s->n_cases; i++) {
		const struct summary_arm *arms[2] = { &s->cases[i].b, &s->cases[i].a };
		for (int k = 0; ok && k < 2; k++) {
			bool skip;
			json_t *e = bench_entry(s, &s->cases[i], arms[k], &skip);
			ok = skip || json_out_push(list, e);
		}
	}
	return json_out_whole(list, ok);
}
