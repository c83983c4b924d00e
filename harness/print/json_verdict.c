/*
 * json_verdict.c - compare and gate verdicts, and the benchmark-trend
 * list, as JSON (json_out.h).
 */
#include <math.h>

#include "print/json_out.h"

/* What p_value is, said in every document that has one (docs/JSON.md). */
#define JSON_P_METHOD "block_bootstrap"

/* The verdicts' and the gate's bases' names in the documents. */
static const char *const compare_keys[] = {
	[COMPARE_SAME] = "same", [COMPARE_FASTER] = "faster", [COMPARE_SLOWER] = "slower",
	[COMPARE_MISSING_A] = "only_second", [COMPARE_MISSING_B] = "only_first",
	[COMPARE_WITHIN_FLOORS] = "within_floors",
};

static const char *const gate_keys[] = {
	[GATE_PASS] = "pass", [GATE_FASTER] = "faster", [GATE_NEW] = "new", [GATE_REGRESSED] = "regressed",
	[GATE_LOST_EXACT] = "lost_exact", [GATE_MISSING] = "missing", [GATE_INCONCLUSIVE] = "inconclusive",
	[GATE_NOT_MEASURED] = "not_measured",
};

static const char *const basis_keys[] = {
	[GATE_NORMALISED] = "normalised", [GATE_RAW_VARIANT] = "raw_variant", [GATE_RAW_NO_A] = "raw_no_a",
};

/* An arm's median, p10, p90 and count; null when it has no samples. */
static json_t *arm(const struct summary_spread *a)
{
	if (a->n == 0)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:i}", "median_ns", json_out_num(a->median_ns), "p10_ns",
			 json_out_num(a->p10_ns), "p90_ns", json_out_num(a->p90_ns), "n", a->n);
}

static json_t *compare_case(const void *item)
{
	const struct compare_case *c = item;
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:s, s:i, s:i, s:b, s:b}", "name", c->name,
			 "arm_a", c->arm_a, "arm_b", c->arm_b, "first", arm(&c->a), "second", arm(&c->b), "ratio",
			 json_out_interval(c->ratio), "p_value", json_out_num(c->p_value), "p_floor",
			 json_out_num(c->p_floor), "verdict", compare_keys[c->verdict], "verdict_text",
			 compare_verdict_str(c->verdict), "md5_compared", c->md5_compared, "md5_differ", c->md5_differ,
			 "drifted_first", c->drifted_a, "drifted_second", c->drifted_b);
}

enum ab_rc json_verdict_compare(const struct printer_job *job, struct ab_diag *d)
{
	const struct compare_result *r = job->compare;
	json_t *body = json_pack("{s:o, s:o, s:f, s:s, s:o}", "first", json_out_run(job->summary->run, false), "second",
				 json_out_run(job->second->run, false), "alpha", COMPARE_ALPHA, "p_method",
				 JSON_P_METHOD, "cases",
				 json_out_array(r->cases, sizeof *r->cases, r->n_cases, compare_case));
	return json_out_print(json_out_document("abbench.compare", body), job->f, d);
}

static json_t *gate_case(const void *item)
{
	const struct gate_case *g = item;
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:b, s:b, s:b, s:b, s:b, s:s, s:o, s:o, s:o, s:o, "
			 "s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "name", g->name, "arm_a", g->cmp.arm_a,
			 "arm_b", g->cmp.arm_b, "verdict", gate_keys[g->verdict], "verdict_text",
			 gate_verdict_str(g->verdict), "basis", basis_keys[g->basis], "baseline_b", arm(&g->cmp.a),
			 "run_b", arm(&g->cmp.b), "a_moved", g->a_moved, "underpowered", g->underpowered,
			 "time_regressed", g->time_regressed, "lost_exact", g->lost_exact, "run_exact", g->run_exact,
			 "exact_note", g->exact_note, "raw_change", json_out_num(g->raw_change), "r_base",
			 json_out_num(g->r_base), "r_run", json_out_num(g->r_run), "norm_ratio",
			 json_out_interval(g->norm_ratio), "norm_change", json_out_num(g->norm_change), "norm_p",
			 json_out_num(g->norm_p), "change", json_out_num(g->change), "abs_change_ns",
			 json_out_num(g->abs_change_ns), "p_value", json_out_num(g->p_value), "drift_base",
			 json_out_num(g->drift_base), "drift_run", json_out_num(g->drift_run), "noise_floor",
			 json_out_num(g->noise_floor), "a_change", json_out_num(g->a_change));
}

enum ab_rc json_verdict_gate(const struct printer_job *job, struct ab_diag *d)
{
	const struct gate_options *o = job->gate->o;
	const struct gate_result *r = job->gate->r;
	int status = gate_exit_status(r);
	const char *verdict = status == AB_EXIT_VERDICT	 ? "fail"
			      : status == AB_EXIT_INCONCLUSIVE ? "inconclusive" : "pass";
	json_t *body = json_pack("{s:s, s:i, s:s, s:o, s:o, s:{s:f, s:s, s:f, s:s, s:s?, s:s?}, "
				 "s:{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}, s:o}", "verdict", verdict,
				 "exit_status", status, "p_method", JSON_P_METHOD, "baseline",
				 json_out_run(job->gate->base, false), "run", json_out_run(job->gate->run, false),
				 "rule", "max_regression_pct", r->max_regression_pct, "threshold_source",
				 o->threshold_source ? o->threshold_source : "", "min_change_ns", r->min_change_ns,
				 "min_change_source", o->min_change_source ? o->min_change_source : "", "baseline_name",
				 o->baseline_name, "only", o->only, "counts", "cases", r->n_cases, "failed",
				 r->n_failed, "time_regressed", r->n_time_regressed, "lost_exact", r->n_lost_exact,
				 "missing", r->n_missing, "faster", r->n_faster, "raw", r->n_raw, "inconclusive",
				 r->n_inconclusive, "not_measured", r->n_not_measured, "cases",
				 json_out_array(r->cases, sizeof *r->cases, r->n_cases, gate_case));
	return json_out_print(json_out_document("abbench.gate", body), job->f, d);
}

/* One arm's entry (an arm with samples). */
static json_t *bench_entry(const struct summary_run *s, const struct summary_case *c, const struct summary_arm *a)
{
	const struct results_run *r = s->run;
	const struct summary_spread *t = &a->time;
	return json_pack("{s:o, s:s, s:f, s:o, s:o}", "name",
			 json_sprintf("%s/%s/%c:%s", r->scenario_name, c->c->name, a->arm,
				      a->variant[0] ? a->variant : a->arm == 'a' ? r->arm_a : r->arm_b),
			 "unit", "ns", "value", t->median_ns, "range",
			 json_sprintf("± %.1f", (t->p90_ns - t->p10_ns) / 2), "extra",
			 json_sprintf("n=%d p10=%.1f p90=%.1f ns; speedup a/b %.4fx [%.4f, %.4f]; %s", t->n, t->p10_ns,
				      t->p90_ns, c->speedup.point, c->speedup.low, c->speedup.high, r->device.name));
}

enum ab_rc json_verdict_benchmark(const struct printer_job *job, struct ab_diag *d)
{
	const struct summary_run *s = job->summary;
	json_t *list = json_array();
	bool ok = list != NULL;
	for (int i = 0; ok && i < s->n_cases; i++) {
		const struct summary_arm *arms[2] = { &s->cases[i].b, &s->cases[i].a };
		for (int k = 0; ok && k < 2; k++)
			if (arms[k]->time.n > 0 && isfinite(arms[k]->time.median_ns))
				ok = json_out_push(list, bench_entry(s, &s->cases[i], arms[k]));
	}
	return json_out_print(json_out_whole(list, ok), job->f, d);
}
