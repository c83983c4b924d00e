/*
 * figures.c - the table of figures (figures.h): each row's name, head,
 * hint, level, places in the views and getter. Getters only read the
 * summary (summary.c computes every figure); most read a field at the
 * row's offset (arg), so a row of a plain field needs no function of its
 * own.
 */
#include "analysis/figures.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/divergence.h"

/* ---- getters ------------------------------------------------------------ */

/* The member of type at offset off of base, read through a const
 * pointer. A const char * member is read as FIELD(base, char *, off): the
 * macro's const already makes it const char **, and a second const is an
 * error to clang. */
#define FIELD(base, type, off) (*(const type *)((const char *)(base) + (off)))

static void number(struct figure_value *v, double x)
{
	v->x = x;
	v->absent = isnan(x);
}

/* A double of the slot's stored figures (results_slot, at arg). */
static void slot_real(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	number(v, FIELD(at->slot->slot, double, f->arg));
}

/* An int of the slot's stored figures. */
static void slot_int(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	number(v, FIELD(at->slot->slot, int, f->arg));
}

static void slot_text(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	v->text = (const char *)at->slot->slot + f->arg;
}

/* A double of the folded slot (summary_slot, at arg). */
static void slot_fold(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	number(v, FIELD(at->slot, double, f->arg));
}

static void slot_arm(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	static const char *const arms[] = { "a", "b", "?" };
	char a = at->slot->slot->arm;
	(void)f;
	v->text = arms[a == 'a' ? 0 : a == 'b' ? 1 : 2];
}

static void slot_md5(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->text = at->slot->md5;
}

/* A verdict over the slot's outputs: unknown without outputs (CSV empty),
 * though JSON keeps the folded flag (true: nothing differs). */
static void slot_flag(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	v->x = FIELD(at->slot, bool, f->arg);
	v->absent = at->slot->slot->n_outputs == 0;
	v->words = "no outputs";
}

static void slot_has_ref(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->x = at->slot->has_ref;
}

static void slot_ref_ok(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->x = at->slot->ref_ok;
	v->absent = !at->slot->has_ref || at->slot->slot->n_outputs == 0;
	v->words = "no reference";
	v->text = v->x ? "ok" : "FAIL";
}

static void slot_mismatches(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->x = (double)at->slot->mismatches;
	v->absent = at->slot->slot->n_outputs == 0;
}

/* The slot's GB/s and its % of copy (summary_slot.bw). */
static void slot_gbps(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	number(v, at->slot->bw.gbps);
	v->x2 = at->slot->bw.pct_copy;
}

static void slot_bytes(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	number(v, at->slot->bw.bytes);
}

/* A double of the arm (summary_arm, at arg). */
static void arm_real(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	number(v, FIELD(at->arm, double, f->arg));
}

static void arm_samples(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->x = at->arm->time.n;
}

/* The arm's median with p10 and p90 (SPREAD). */
static void arm_spread(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const struct summary_spread *t = &at->arm->time;
	(void)f;
	v->x = t->median_ns;
	v->lo = t->p10_ns;
	v->hi = t->p90_ns;
	v->n = t->n;
	v->absent = t->n == 0;
}

/* The arm's median with its 95% distribution-free interval (SPREAD). */
static void arm_median_ci(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	arm_spread(f, at, v);
	v->lo = at->arm->median_ci.low;
	v->hi = at->arm->median_ci.high;
}

static void arm_bytes(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	number(v, (double)(at->arm->arm == 'a' ? at->c->c->bytes_a : at->c->c->bytes_b));
	v->absent = !(v->x > 0);
}

/* The arm's GB/s, its % of copy, or why it has none (cache-resident). */
static void arm_gbps(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	number(v, at->arm->bw.gbps);
	v->x2 = at->arm->bw.pct_copy;
	if (at->c->cache_resident)
		v->words = "cache-resident";
}

/* The arm's median over the case's copy floor. */
static void arm_over_copy(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const struct summary_case *c = at->c;
	(void)f;
	number(v, at->arm->arm == 'a' ? c->a_over_copy : c->b_over_copy);
	if (isnan(c->copy_floor_ns) && c->cache_resident)
		v->words = "n/a (cache-resident)";
}

static void case_text(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	v->text = (const char *)at->c->c + f->arg;
}

static void case_arm_name(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	v->text = f->arg ? at->c->arm_b : at->c->arm_a;
}

static void case_eps(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	number(v, at->c->c->eps);
}

static void case_count(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->x = at->c->c->count;
}

static void case_axis_value(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->x = (double)at->c->c->axis_value;
	v->absent = !at->c->c->axis[0];
}

static void case_bytes_min(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->x = (double)at->c->c->bytes_min;
	v->absent = !(v->x > 0);
}

/* A double of the case's summary (summary_case, at arg). */
static void case_real(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	number(v, FIELD(at->c, double, f->arg));
}

/* A bool of the case's summary, always known. */
static void case_bool(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	v->x = FIELD(at->c, bool, f->arg);
	v->bad = !v->x;
}

static void case_samples(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->x = at->c->a.time.n;
	v->x2 = at->c->b.time.n;
}

/* median(A) / median(B) with its interval; good when the case is faster. */
static void case_speedup(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	number(v, at->c->speedup.point);
	v->lo = at->c->speedup.low;
	v->hi = at->c->speedup.high;
	v->good = at->c->verdict == SUMMARY_CASE_FASTER;
}

/* Every output of every slot byte-equal to the first A slot's. */
static void case_bit_exact(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->x = at->c->n_not_exact == 0;
	v->bad = !v->x;
	v->absent = at->c->n_outputs == 0;
	v->words = "n/a (no outputs recorded)";
}

static void case_verdict(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const struct summary_case *c = at->c;
	(void)f;
	v->text = summary_case_verdict_key(c->verdict);
	if (c->verdict == SUMMARY_CASE_DRIFTED) {
		snprintf(v->buf, sizeof v->buf, "drifted %.2f%% (not trusted)", c->drift * 100);
		v->words = v->buf;
	} else
		v->words = summary_case_verdict_str(c->verdict);
	v->bad = c->verdict == SUMMARY_CASE_NOT_EXACT || c->verdict == SUMMARY_CASE_SLOWER;
}

static void case_copy_floor(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	number(v, at->c->copy_floor_ns);
	v->words = at->c->cache_resident ? "cache-resident" : "not measured";
}

static void case_copy_method(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->text = at->c->c->copy_floor_ns > 0 ? at->c->c->copy_floor_method : "";
}

/* A double of the run's summary (summary_run, at arg). */
static void run_real(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	number(v, FIELD(at->run, double, f->arg));
}

static void run_id(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->x = (double)at->run->run->id;
}

static void run_verdict(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->text = v->words = summary_verdict_str(at->run->verdict);
}

/* The cases of one verdict (arg: enum summary_case_verdict). */
static void run_verdict_count(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	v->x = at->run->n_verdict[f->arg];
}

static void run_drift_judged(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->x = at->run->have_profile;
}

/* ---- host time a call (analysis/hosttime.h) ----------------------------- */

/* The slot's host time a call, median or p90 (at arg). */
static void slot_host(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	slot_real(f, at, v);
	v->words = "not measured";
}

/* The arm's host time a call: its median, its p90 beside it. */
static void arm_host(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const struct hosttime_arm *h = &at->arm->host;
	(void)f;
	number(v, h->n ? h->median_ns : NAN);
	v->x2 = h->n ? h->p90_ns : NAN;
	v->words = "not measured";
}

/* The GPU time of one call the host time is held against (unknown where
 * no host time was measured: nothing is held against it). */
static void arm_gpu(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const struct hosttime_arm *h = &at->arm->host;
	(void)f;
	number(v, h->n ? h->gpu_ns : NAN);
	v->words = h->n ? "not known (no CUPTI kernel time under launch_gaps = include)" : "not measured";
}

/* An arm's launch-bound mark: its GPU time and its host time a call, where
 * the host's exceeds it; else "no" (unknown: the table drops the column
 * when no arm of the run earned the mark). */
static void arm_launch_bound(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const struct hosttime_arm *h = &at->arm->host;
	(void)f;
	v->absent = !h->launch_bound;
	v->words = h->n ? "no" : "not measured";
	if (h->launch_bound) {
		v->x = h->gpu_ns;
		v->x2 = h->median_ns;
	}
}

/* Whether an arm of the case is launch-bound; unknown where neither arm's
 * host time was measured. */
static void case_launch_bound(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const struct summary_case *c = at->c;
	(void)f;
	v->x = c->launch_bound;
	v->absent = !c->a.host.n && !c->b.host.n;
	v->words = "not measured";
	v->text = c->launch_bound ? "yes" : "no";
}

/* ---- where the bits differ (analysis/divergence.h) ------------------------ */

/* Unknown where the run measured no divergence (stored before schema 10). */
static bool div_unmeasured(const struct summary_case *c, struct figure_value *v)
{
	v->absent = !c->div.measured;
	v->words = "not measured";
	return v->absent;
}

/* A text of the case's divergence (at arg: a const char * member), unknown
 * where none. */
static void div_text(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const char *t = FIELD(&at->c->div, char *, f->arg);
	if (div_unmeasured(at->c, v))
		return;
	v->text = t;
	v->absent = !t;
	v->words = "none";
}

/* The most differing output's differing elements, and its elements. */
static void div_elements(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	if (div_unmeasured(at->c, v))
		return;
	v->x = (double)at->c->div.n_diff;
	v->x2 = at->c->div.tensor ? (double)at->c->div.elems : NAN; /* byte-equal outputs: 0, of nothing */
}

static void div_rows(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	if (div_unmeasured(at->c, v))
		return;
	v->x = (double)at->c->div.rows_touched;
	v->x2 = at->c->div.tensor ? (double)at->c->div.rows : NAN;
}

static void div_pct(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	if (!div_unmeasured(at->c, v))
		number(v, at->c->div.pct);
}

/* An int64 count of the case's divergence (at arg). */
static void div_count(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	if (!div_unmeasured(at->c, v))
		v->x = (double)FIELD(&at->c->div, int64_t, f->arg);
}

/* "out[b=0, t=17, w=3]": a tensor's element where its coordinates say. */
static void div_place(const char *tensor, int64_t index, const struct divergence_coords *c, struct figure_value *v)
{
	char where[128];
	v->absent = !tensor || index < 0;
	v->words = "none";
	if (v->absent)
		return;
	snprintf(v->buf, sizeof v->buf, "%s%s", tensor, divergence_coords_text(c, index, where, sizeof where));
	v->text = v->buf;
}

static void div_first_at(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const struct summary_divergence *d = &at->c->div;
	(void)f;
	if (!div_unmeasured(at->c, v))
		div_place(d->tensor, d->first_index, &d->first_at, v);
}

static void div_max_ulp_at(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const struct summary_divergence *d = &at->c->div;
	(void)f;
	if (!div_unmeasured(at->c, v))
		div_place(d->max_ulp_tensor, d->max_ulp_index, &d->max_ulp_at, v);
}

/* Of the differing elements compared with the float64 reference, the %
 * nearer it in B. */
static void div_b_nearer(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const struct summary_divergence *d = &at->c->div;
	(void)f;
	if (div_unmeasured(at->c, v))
		return;
	number(v, d->ref_compared ? 100.0 * (double)d->b_closer / (double)d->ref_compared : NAN);
	v->words = !d->has_ref ? "no reference" : "none compared";
}

/* Every hashed call of every slot gave the same outputs; NO with the slot
 * and how many of its calls differed. */
static void case_deterministic(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const struct summary_determinism *m = &at->c->det;
	(void)f;
	v->x = !m->nondeterministic;
	v->absent = !m->slots_checked;
	v->words = "not checked";
	v->bad = m->nondeterministic;
	if (m->nondeterministic) {
		snprintf(v->buf, sizeof v->buf, "NO: %s, %d of %d calls differ", m->slot, m->calls_differ, m->calls);
		v->text = v->buf;
	}
}

/* The most differing slot's calls that differed from its first, of its hashed calls. */
static void case_calls_differ(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const struct summary_determinism *m = &at->c->det;
	(void)f;
	v->absent = !m->slots_checked;
	v->words = "not checked";
	v->x = m->calls_differ;
	v->x2 = m->calls;
}

static void case_nondet_slot(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	(void)f;
	v->text = at->c->det.slot;
	v->absent = !v->text;
	v->words = "none";
}

/* The case's batch invariance: yes, no (with the arm, row and the sweep
 * value of the case it differs from), not_checked. */
static void case_invariance(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	const struct summary_case_invariance *n = &at->c->inv;
	(void)f;
	v->text = n->verdict == SUMMARY_INVARIANCE_YES ? "yes" : n->verdict == SUMMARY_INVARIANCE_NO ? "no" : "not_checked";
	v->words = n->verdict == SUMMARY_INVARIANCE_YES ? "yes" : "not checked";
	v->bad = n->verdict == SUMMARY_INVARIANCE_NO;
	if (v->bad) {
		snprintf(v->buf, sizeof v->buf, "NO: arm %c's row %lld of '%s' differs from the same row at %s = %lld",
			 n->arm, (long long)n->first_row, n->tensor ? n->tensor : "", at->c->c->axis,
			 (long long)n->other_value);
		v->words = v->buf;
	}
}

/* An int64 of the case's invariance (at arg), known where it broke. */
static void inv_count(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	v->absent = at->c->inv.verdict != SUMMARY_INVARIANCE_NO;
	v->x = (double)FIELD(&at->c->inv, int64_t, f->arg);
	v->words = "none";
}

/* ---- the table ---------------------------------------------------------- */

#define SLOT_AT(m) offsetof(struct results_slot, m)
#define FOLD_AT(m) offsetof(struct summary_slot, m)
#define CASE_AT(m) offsetof(struct results_case, m)
#define SUM_AT(m) offsetof(struct summary_case, m)
#define ARM_AT(m) offsetof(struct summary_arm, m)
#define RUN_AT(m) offsetof(struct summary_run, m)
#define DIV_AT(m) offsetof(struct summary_divergence, m)
#define INV_AT(m) offsetof(struct summary_case_invariance, m)

/* Places in each view. */
#define CSV(n) [FIGURE_IN_CSV] = (n)
#define JSON(n) [FIGURE_IN_JSON] = (n)
#define SHOW(n) [FIGURE_IN_SHOW] = (n)
#define RUN(n) [FIGURE_IN_RUN] = (n)
#define REPORT(n) [FIGURE_IN_REPORT] = (n)
#define BW(n) [FIGURE_IN_BANDWIDTH] = (n)
#define SWEEPS(n) [FIGURE_IN_SWEEPS] = (n)
#define ACCURACY(n) [FIGURE_IN_ACCURACY] = (n)

const struct figure figures[] = {
	/* the run */
	{ .key = "run_id", .head = "run", .hint = FIGURE_COUNT, .level = FIGURE_RUN, .at = { CSV(27) }, .get = run_id,
	  .desc = "the run's id in its database" },
	{ .key = "verdict.word", .head = "verdict", .hint = FIGURE_VERDICT, .level = FIGURE_RUN, .at = { JSON(1) },
	  .get = run_verdict, .desc = "the run's verdict, the report's first word (FASTER, SLOWER, NOT BIT-EXACT ...)" },
	{ .key = "verdict.counts.not_exact", .hint = FIGURE_COUNT, .level = FIGURE_RUN, .at = { JSON(2) },
	  .get = run_verdict_count, .arg = SUMMARY_CASE_NOT_EXACT, .desc = "cases that lost bit-exactness" },
	{ .key = "verdict.counts.drifted", .hint = FIGURE_COUNT, .level = FIGURE_RUN, .at = { JSON(3) },
	  .get = run_verdict_count, .arg = SUMMARY_CASE_DRIFTED, .desc = "cases whose A arm drifted (not trusted)" },
	{ .key = "verdict.counts.few_samples", .hint = FIGURE_COUNT, .level = FIGURE_RUN, .at = { JSON(4) },
	  .get = run_verdict_count, .arg = SUMMARY_CASE_FEW_SAMPLES, .desc = "cases with too few samples (not trusted)" },
	{ .key = "verdict.counts.faster", .hint = FIGURE_COUNT, .level = FIGURE_RUN, .at = { JSON(5) },
	  .get = run_verdict_count, .arg = SUMMARY_CASE_FASTER, .desc = "cases where B is faster beyond noise" },
	{ .key = "verdict.counts.slower", .hint = FIGURE_COUNT, .level = FIGURE_RUN, .at = { JSON(6) },
	  .get = run_verdict_count, .arg = SUMMARY_CASE_SLOWER, .desc = "cases where B is slower beyond noise" },
	{ .key = "verdict.counts.no_clear_change", .hint = FIGURE_COUNT, .level = FIGURE_RUN, .at = { JSON(7) },
	  .get = run_verdict_count, .arg = SUMMARY_CASE_NO_CLEAR_CHANGE, .desc = "cases with no clear change" },
	{ .key = "verdict.drift_judged", .hint = FIGURE_FLAG, .level = FIGURE_RUN, .at = { JSON(8) },
	  .get = run_drift_judged, .desc = "whether a device profile's noise floor judged the drift" },
	{ .key = "cases", .hint = FIGURE_NESTED, .level = FIGURE_RUN, .at = { JSON(9) }, .desc = "the run's cases" },
	{ .key = "projection.per_forward_ns", .hint = FIGURE_DURATION, .level = FIGURE_RUN, .at = { JSON(10) },
	  .get = run_real, .arg = RUN_AT(per_forward.saving_ns), .desc = "the saving per model forward, over the cases" },
	{ .key = "projection.per_step_ns", .hint = FIGURE_DURATION, .level = FIGURE_RUN, .at = { JSON(11) },
	  .get = run_real, .arg = RUN_AT(per_step.saving_ns), .desc = "the saving per step ([model] forwards_per_step)" },
	{ .key = "projection.per_image_ns", .hint = FIGURE_DURATION, .level = FIGURE_RUN, .at = { JSON(12) },
	  .get = run_real, .arg = RUN_AT(per_image.saving_ns), .desc = "the saving per image ([model] steps)" },
	{ .key = "projection.eager_per_step_ns", .hint = FIGURE_DURATION, .level = FIGURE_RUN, .at = { JSON(13) },
	  .get = run_real, .arg = RUN_AT(per_step.a_ns), .desc = "the A arm's time per step" },

	/* the case: what it is */
	{ .key = "case", .json = "name", .head = "case", .hint = FIGURE_NAME, .level = FIGURE_CASE,
	  .at = { CSV(1), JSON(1) }, .get = case_text, .arg = CASE_AT(name), .desc = "the case's name" },
	{ .key = "site", .head = "site", .hint = FIGURE_TEXT, .level = FIGURE_CASE, .at = { CSV(2), JSON(2) },
	  .get = case_text, .arg = CASE_AT(site), .desc = "its fusion site" },
	{ .key = "shape", .head = "shape", .hint = FIGURE_TEXT, .level = FIGURE_CASE,
	  .at = { CSV(3), JSON(3), RUN(1), REPORT(1) }, .get = case_text, .arg = CASE_AT(shape),
	  .desc = "its shape, one size per axis of the site" },
	{ .key = "dtype", .head = "dtype", .hint = FIGURE_TEXT, .level = FIGURE_CASE, .at = { CSV(4), JSON(4) },
	  .get = case_text, .arg = CASE_AT(dtype), .desc = "its element type" },
	{ .key = "eps", .head = "eps", .hint = FIGURE_NUMBER, .level = FIGURE_CASE, .at = { CSV(14) }, .get = case_eps,
	  .desc = "the LayerNorm's epsilon" },
	{ .key = "input", .head = "input", .hint = FIGURE_TEXT, .level = FIGURE_CASE, .at = { CSV(15), JSON(5) },
	  .get = case_text, .arg = CASE_AT(input), .desc = "how its inputs were drawn" },
	{ .key = "count", .head = "count", .hint = FIGURE_COUNT, .level = FIGURE_CASE, .at = { JSON(6) },
	  .get = case_count, .desc = "how often the site runs per model forward" },
	{ .key = "arm_a", .head = "arm a", .hint = FIGURE_NAME, .level = FIGURE_CASE, .at = { JSON(7) },
	  .get = case_arm_name, .arg = 0, .desc = "the arm the case ran as a (its own, or the run's)" },
	{ .key = "arm_b", .head = "arm b", .hint = FIGURE_NAME, .level = FIGURE_CASE, .at = { JSON(8) },
	  .get = case_arm_name, .arg = 1, .desc = "the arm the case ran as b" },
	{ .key = "slots", .hint = FIGURE_NESTED, .level = FIGURE_CASE, .at = { JSON(9) },
	  .desc = "the case's slots in bracket order" },
	{ .key = "sweep", .head = "sweep", .hint = FIGURE_NAME, .level = FIGURE_CASE, .at = { CSV(37) },
	  .get = case_text, .arg = CASE_AT(sweep), .desc = "the swept [case] it was expanded from (empty: none)" },
	{ .key = "axis", .head = "axis", .hint = FIGURE_TEXT, .level = FIGURE_CASE, .at = { CSV(38) },
	  .get = case_text, .arg = CASE_AT(axis), .desc = "the swept axis (T)" },
	{ .key = "axis_value", .head = "value", .hint = FIGURE_COUNT, .level = FIGURE_CASE, .at = { CSV(39) },
	  .get = case_axis_value, .desc = "its value on the swept axis" },

	/* a slot */
	{ .key = "arm", .head = "arm", .hint = FIGURE_TEXT, .level = FIGURE_SLOT, .at = { CSV(5), JSON(2), SHOW(2) },
	  .get = slot_arm, .desc = "the slot's arm, a or b" },
	{ .key = "slot", .json = "label", .head = "slot", .hint = FIGURE_TEXT, .level = FIGURE_SLOT,
	  .at = { CSV(6), JSON(1), SHOW(1) }, .get = slot_text, .arg = SLOT_AT(label),
	  .desc = "its place in the bracket: A1, B, A2 ..." },
	{ .key = "samples", .json = "n_samples", .head = "samples", .hint = FIGURE_COUNT, .level = FIGURE_SLOT,
	  .at = { CSV(7), JSON(4), SHOW(4) }, .get = slot_int, .arg = SLOT_AT(n_samples),
	  .desc = "the samples it kept" },
	{ .key = "median_ns", .head = "median", .hint = FIGURE_DURATION, .level = FIGURE_SLOT,
	  .at = { CSV(8), JSON(5), SHOW(5) }, .get = slot_real, .arg = SLOT_AT(median_ns),
	  .desc = "its median sample" },
	{ .key = "p10_ns", .head = "p10", .hint = FIGURE_DURATION, .level = FIGURE_SLOT,
	  .at = { CSV(9), JSON(6), SHOW(6) }, .get = slot_real, .arg = SLOT_AT(p10_ns),
	  .desc = "its 10th percentile (type 7)" },
	{ .key = "p90_ns", .head = "p90", .hint = FIGURE_DURATION, .level = FIGURE_SLOT,
	  .at = { CSV(10), JSON(7), SHOW(7) }, .get = slot_real, .arg = SLOT_AT(p90_ns),
	  .desc = "its 90th percentile" },
	{ .key = "md5", .head = "md5", .hint = FIGURE_DIGEST, .level = FIGURE_SLOT, .at = { CSV(11), JSON(12), SHOW(11) },
	  .get = slot_md5, .desc = "the md5 of each output, in tensor order" },
	{ .key = "bit_exact", .head = "exact", .hint = FIGURE_FLAG, .level = FIGURE_SLOT,
	  .at = { CSV(12), JSON(13), SHOW(12) }, .get = slot_flag, .arg = FOLD_AT(bit_exact),
	  .desc = "every output byte-equal to the bracket's first A slot's" },
	{ .key = "variant", .head = "variant", .hint = FIGURE_NAME, .level = FIGURE_SLOT,
	  .at = { CSV(13), JSON(3), SHOW(3) }, .get = slot_text, .arg = SLOT_AT(variant), .desc = "the code it ran" },
	{ .key = "stopping_reason", .head = "stopped by", .hint = FIGURE_TEXT, .level = FIGURE_SLOT,
	  .at = { CSV(16), JSON(11), SHOW(10) }, .get = slot_text, .arg = SLOT_AT(stopping_reason),
	  .desc = "the rule that ended it (target_noise, max_samples ...)" },
	{ .key = "discarded", .head = "discarded", .hint = FIGURE_COUNT, .level = FIGURE_SLOT, .at = { CSV(17) },
	  .get = slot_int, .arg = SLOT_AT(n_discarded), .desc = "samples the throttle probe dropped" },
	{ .key = "noise", .head = "noise", .hint = FIGURE_FRACTION, .level = FIGURE_SLOT, .at = { CSV(18) },
	  .get = slot_real, .arg = SLOT_AT(noise), .desc = "its relative noise, as the stopping rule measured it" },
	{ .key = "mean_ns", .head = "mean", .hint = FIGURE_DURATION, .level = FIGURE_SLOT, .at = { CSV(19) },
	  .get = slot_real, .arg = SLOT_AT(mean_ns), .desc = "its mean sample" },
	{ .key = "min_ns", .head = "min", .hint = FIGURE_DURATION, .level = FIGURE_SLOT, .at = { CSV(20) },
	  .get = slot_real, .arg = SLOT_AT(min_ns), .desc = "its fastest sample" },
	{ .key = "max_ns", .head = "max", .hint = FIGURE_DURATION, .level = FIGURE_SLOT, .at = { CSV(21) },
	  .get = slot_real, .arg = SLOT_AT(max_ns), .desc = "its slowest sample" },
	{ .key = "kernel_median_ns", .head = "kernel-sum", .hint = FIGURE_DURATION, .level = FIGURE_SLOT,
	  .at = { CSV(22), JSON(8), SHOW(8) }, .get = slot_real, .arg = SLOT_AT(kernel_median_ns),
	  .desc = "the median of its samples' kernel self-time sums (n/a without kernel records)" },
	{ .key = "host_median_ns", .head = "host", .hint = FIGURE_DURATION, .level = FIGURE_SLOT,
	  .at = { CSV(51), JSON(9), SHOW(9) }, .omit_unknown = true, .get = slot_host, .arg = SLOT_AT(host_median_ns),
	  .desc = "the median host time of one call of its arm: entered to returned (not measured on the CPU "
		  "backend, whose call is the work, nor under timing = graph)" },
	{ .key = "host_p90_ns", .head = "host p90", .hint = FIGURE_DURATION, .level = FIGURE_SLOT,
	  .at = { CSV(52), JSON(10) }, .get = slot_host, .arg = SLOT_AT(host_p90_ns),
	  .desc = "the 90th percentile of its host time a call" },
	{ .key = "mismatches", .head = "mismatches", .hint = FIGURE_COUNT, .level = FIGURE_SLOT, .at = { CSV(23) },
	  .get = slot_mismatches, .desc = "output elements differing from the first A slot's" },
	{ .key = "max_abs_err", .head = "max abs err", .hint = FIGURE_NUMBER, .level = FIGURE_SLOT, .at = { CSV(24) },
	  .get = slot_fold, .arg = FOLD_AT(max_abs_err), .desc = "the largest error against the float64 reference" },
	{ .key = "max_err_ratio", .head = "max err / tol", .hint = FIGURE_NUMBER, .level = FIGURE_SLOT,
	  .at = { CSV(25) }, .get = slot_fold, .arg = FOLD_AT(max_err_ratio),
	  .desc = "the largest error over its tolerance" },
	{ .key = "has_reference", .head = "has ref", .hint = FIGURE_FLAG, .level = FIGURE_SLOT, .at = { JSON(14) },
	  .get = slot_has_ref, .desc = "every output had a float64 reference (a declared site's have none)" },
	{ .key = "ref_ok", .head = "ref", .hint = FIGURE_FLAG, .level = FIGURE_SLOT, .at = { CSV(26), JSON(15), SHOW(13) },
	  .get = slot_ref_ok, .desc = "every output within the float64 reference's tolerance" },
	{ .key = "bytes", .head = "bytes", .hint = FIGURE_BYTES, .level = FIGURE_SLOT, .at = { CSV(40) },
	  .get = slot_bytes, .desc = "the bytes its arm moves, as the site declares them" },
	{ .key = "gbps", .key2 = "pct_copy", .head = "GB/s (% of copy)", .hint = FIGURE_BANDWIDTH,
	  .level = FIGURE_SLOT, .at = { CSV(41) }, .get = slot_gbps,
	  .desc = "those bytes over its median, and their % of the copy bandwidth" },

	/* an arm: its slots pooled */
	{ .key = "arm_median_ns", .json = "summary.median_%c_ns", .head = "median", .hint = FIGURE_DURATION,
	  .level = FIGURE_ARM, .at = { CSV(29), JSON(10), RUN(2) }, .get = arm_real, .arg = ARM_AT(time.median_ns),
	  .desc = "the arm's median, all its slots pooled" },
	{ .key = "arm_samples", .json = "summary.n_%c", .head = "n", .hint = FIGURE_COUNT, .level = FIGURE_ARM,
	  .at = { CSV(28), JSON(11) }, .get = arm_samples, .desc = "the arm's samples, all its slots" },
	{ .key = "arm_p10_ns", .head = "p10", .hint = FIGURE_DURATION, .level = FIGURE_ARM, .at = { CSV(30) },
	  .get = arm_real, .arg = ARM_AT(time.p10_ns), .desc = "the arm's 10th percentile" },
	{ .key = "arm_p90_ns", .head = "p90", .hint = FIGURE_DURATION, .level = FIGURE_ARM, .at = { CSV(31) },
	  .get = arm_real, .arg = ARM_AT(time.p90_ns), .desc = "the arm's 90th percentile" },
	{ .key = "time", .head = "median [p10, p90]", .hint = FIGURE_SPREAD, .level = FIGURE_ARM, .at = { REPORT(2) },
	  .get = arm_spread, .desc = "the arm's median, p10, p90 and samples" },
	{ .key = "median_ci", .head = "median [95% CI]", .hint = FIGURE_SPREAD, .level = FIGURE_ARM,
	  .at = { SWEEPS(1) }, .get = arm_median_ci,
	  .desc = "the arm's median with its 95% distribution-free interval (n/a under 6 samples)" },
	{ .key = "arm_bytes", .head = "bytes", .hint = FIGURE_BYTES, .level = FIGURE_ARM, .at = { BW(1) },
	  .get = arm_bytes, .desc = "the bytes the arm moves (the eager arm: every launch's reads and writes)" },
	{ .key = "arm_gbps", .key2 = "arm_pct_copy", .head = "GB/s (% of copy)", .hint = FIGURE_BANDWIDTH,
	  .json = "summary.%c_gbps", .json2 = "%c_pct_copy", .level = FIGURE_ARM,
	  .at = { CSV(43), JSON(24), BW(3), SWEEPS(3) }, .get = arm_gbps,
	  .desc = "the arm's bytes over its median, and their % of the copy bandwidth" },
	{ .key = "arm_over_copy", .json = "summary.%c_over_copy", .head = "/ floor", .hint = FIGURE_RATIO,
	  .digits = 2, .level = FIGURE_ARM, .at = { CSV(48), JSON(21), BW(5) }, .b_only = FIGURE_BIT(FIGURE_IN_BANDWIDTH),
	  .get = arm_over_copy, .desc = "the arm's median over the case's copy floor: how many copies it costs" },

	{ .key = "arm_host_median_ns", .key2 = "arm_host_p90_ns", .label2 = "p90", .json = "summary.host_median_%c_ns",
	  .json2 = "host_p90_%c_ns", .head = "host a call", .hint = FIGURE_DURATION, .level = FIGURE_ARM,
	  .at = { CSV(53), JSON(26), RUN(3), REPORT(3) }, .omit_unknown = true, .get = arm_host,
	  .desc = "the arm's host time of one call, its slots pooled: median, and p90 beside it (issue 28)" },
	{ .key = "arm_gpu_ns", .json = "summary.gpu_%c_ns", .head = "GPU a call", .hint = FIGURE_DURATION,
	  .level = FIGURE_ARM, .at = { CSV(54), JSON(27) }, .get = arm_gpu,
	  .desc = "the GPU time of one call its host time is held against: its median under launch_gaps = hide, "
		  "its CUPTI kernel median under include" },
	{ .key = "arm_launch_bound", .label = "GPU", .label2 = "host", .head = "launch-bound", .hint = FIGURE_DURATION,
	  .level = FIGURE_ARM, .at = { RUN(8), REPORT(7) }, .omit_unknown = true, .get = arm_launch_bound,
	  .desc = "the arm's GPU and host time a call where the host's is the larger: a model calling it eagerly "
		  "waits on the host (the verdict stays the GPU's)" },

	/* the case's figures */
	{ .key = "n_ab", .head = "n A/B", .hint = FIGURE_COUNT, .level = FIGURE_CASE, .at = { RUN(5) },
	  .get = case_samples, .desc = "the samples of arm a and of arm b" },
	{ .key = "speedup", .json = "summary.speedup", .head = "speedup A/B [95% CI]", .hint = FIGURE_RATIO,
	  .digits = 3, .ci = true, .level = FIGURE_CASE, .at = { CSV(32), JSON(12), RUN(4), REPORT(4), SWEEPS(2) },
	  .get = case_speedup,
	  .desc = "median(A) / median(B) with its 95% bootstrap interval (n/a under 10 samples an arm)" },
	{ .key = "drift", .json = "summary.drift", .head = "drift", .hint = FIGURE_FRACTION, .level = FIGURE_CASE,
	  .at = { CSV(35), JSON(13) }, .get = case_real, .arg = SUM_AT(drift),
	  .desc = "the largest |A_k - A1| / A1 over the later A slots" },
	{ .key = "case_bit_exact", .head = "bit-exact", .hint = FIGURE_FLAG, .level = FIGURE_CASE,
	  .at = { CSV(36), REPORT(5) }, .get = case_bit_exact,
	  .desc = "every output of every slot byte-equal to the first A slot's" },
	{ .key = "b_byte_equal", .json = "summary.b_byte_equal", .head = "B byte-equal", .hint = FIGURE_FLAG,
	  .level = FIGURE_CASE, .at = { JSON(14), RUN(6) }, .get = case_bool, .arg = SUM_AT(b_byte_equal),
	  .desc = "every B slot's outputs byte-equal to the first A slot's" },
	{ .key = "a_deterministic", .json = "summary.a_deterministic", .head = "A deterministic", .hint = FIGURE_FLAG,
	  .level = FIGURE_CASE, .at = { JSON(15) }, .get = case_bool, .arg = SUM_AT(a_deterministic),
	  .desc = "every later A slot's outputs byte-equal to the first's" },
	{ .key = "case_has_reference", .json = "summary.has_reference", .head = "has ref", .hint = FIGURE_FLAG,
	  .level = FIGURE_CASE, .at = { JSON(16) }, .get = case_bool, .arg = SUM_AT(has_ref),
	  .desc = "every output had a float64 reference" },
	{ .key = "case_ref_ok", .json = "summary.ref_ok", .head = "ref ok", .hint = FIGURE_FLAG, .level = FIGURE_CASE,
	  .at = { JSON(17) }, .get = case_bool, .arg = SUM_AT(ref_ok),
	  .desc = "every output with a reference within its tolerance" },
	{ .key = "saving_per_forward_ns", .json = "summary.saving_per_forward_ns", .head = "saving per forward",
	  .hint = FIGURE_DURATION, .level = FIGURE_CASE, .at = { JSON(18) }, .get = case_real,
	  .arg = SUM_AT(per_forward.saving_ns), .desc = "count x (median A - median B)" },
	{ .key = "verdict", .json = "summary.verdict", .head = "verdict", .hint = FIGURE_VERDICT, .level = FIGURE_CASE,
	  .at = { CSV(49), JSON(19), RUN(7), REPORT(6) }, .get = case_verdict,
	  .desc = "the case's one verdict: faster, slower, no_clear_change, drifted, few_samples, not_exact" },
	{ .key = "launch_bound", .json = "summary.launch_bound", .head = "launch-bound", .hint = FIGURE_FLAG,
	  .level = FIGURE_CASE, .at = { CSV(55), JSON(25) }, .get = case_launch_bound,
	  .desc = "an arm's host time per call exceeds its GPU time: a model calling it eagerly waits on the host" },
	{ .key = "min_bytes", .head = "minimum bytes", .hint = FIGURE_BYTES, .level = FIGURE_CASE, .at = { BW(2) },
	  .get = case_bytes_min, .desc = "every input read once and every output written once" },
	{ .key = "copy_floor_ns", .json = "summary.copy_floor_ns", .head = "floor", .hint = FIGURE_DURATION,
	  .level = FIGURE_CASE, .at = { CSV(45), JSON(20), BW(4) }, .get = case_copy_floor,
	  .desc = "the copy floor: the median of a copy of the minimum bytes, measured in the run" },
	{ .key = "copy_floor_kernel_ns", .head = "floor kernel", .hint = FIGURE_DURATION, .level = FIGURE_CASE,
	  .at = { CSV(46) }, .get = case_real, .arg = SUM_AT(copy_floor_kernel_ns),
	  .desc = "the copy floor's kernel-time median" },
	{ .key = "copy_floor_method", .head = "floor method", .hint = FIGURE_TEXT, .level = FIGURE_CASE,
	  .at = { CSV(47) }, .get = case_copy_method, .desc = "the copy that won (vec_cs, memcpy ...)" },
	{ .key = "b_kernel_over_copy", .json = "summary.b_kernel_over_copy", .head = "B kernel / floor",
	  .hint = FIGURE_RATIO, .digits = 2, .level = FIGURE_CASE, .at = { JSON(22), BW(6) },
	  .full_only = FIGURE_BIT(FIGURE_IN_BANDWIDTH), .get = case_real, .arg = SUM_AT(b_kernel_over_copy),
	  .desc = "B's kernel-time median over the copy floor's" },
	{ .key = "a_kernel_over_copy", .json = "summary.a_kernel_over_copy", .head = "A kernel / floor",
	  .hint = FIGURE_RATIO, .digits = 2, .level = FIGURE_CASE, .at = { CSV(50), JSON(23), BW(7) },
	  .full_only = FIGURE_BIT(FIGURE_IN_BANDWIDTH), .get = case_real, .arg = SUM_AT(a_kernel_over_copy),
	  .desc = "A's kernel-time median over the copy floor's: how many copies the eager chain's kernels cost" },

	/* where the bits differ, determinism, batch invariance (issue 29) */
	{ .key = "diff_slot", .json = "summary.divergence.slot", .head = "slot", .hint = FIGURE_TEXT,
	  .level = FIGURE_CASE, .at = { CSV(56), JSON(28) }, .get = div_text, .arg = DIV_AT(slot),
	  .desc = "the B slot whose output differs most from the first A slot's" },
	{ .key = "diff_tensor", .json = "summary.divergence.tensor", .head = "output", .hint = FIGURE_NAME,
	  .level = FIGURE_CASE, .at = { CSV(57), JSON(29), ACCURACY(1) }, .get = div_text, .arg = DIV_AT(tensor),
	  .desc = "that output (the one with the most differing elements)" },
	{ .key = "diff_elements", .key2 = "diff_tensor_elements", .json = "summary.divergence.elements",
	  .json2 = "tensor_elements", .head = "elements differ / of", .hint = FIGURE_COUNT, .level = FIGURE_CASE,
	  .at = { CSV(58), JSON(30), ACCURACY(2) }, .get = div_elements,
	  .desc = "its elements whose bytes differ, and its elements" },
	{ .key = "diff_pct", .json = "summary.divergence.pct", .head = "% differ", .hint = FIGURE_PERCENT, .digits = 2,
	  .level = FIGURE_CASE, .at = { CSV(59), JSON(31), ACCURACY(3) }, .get = div_pct,
	  .desc = "those as a % of its elements (0 where B is byte-equal)" },
	{ .key = "diff_max_ulp", .json = "summary.divergence.max_ulp", .head = "max ULP", .hint = FIGURE_COUNT,
	  .level = FIGURE_CASE, .at = { CSV(60), JSON(32), ACCURACY(4) }, .get = div_count, .arg = DIV_AT(max_ulp),
	  .desc = "the largest distance in ULPs over every B output (ordered-integer; 0: none, or class mismatches only)" },
	{ .key = "diff_max_ulp_at", .json = "summary.divergence.max_ulp_at", .head = "max ULP at", .hint = FIGURE_TEXT,
	  .level = FIGURE_CASE, .at = { CSV(61), JSON(33), ACCURACY(5) }, .get = div_max_ulp_at,
	  .desc = "where: the output and the element's coordinates in the site's axes, out[b=0, t=17, w=3]" },
	{ .key = "diff_first_at", .json = "summary.divergence.first_at", .head = "first at", .hint = FIGURE_TEXT,
	  .level = FIGURE_CASE, .at = { CSV(62), JSON(34), ACCURACY(6) }, .get = div_first_at,
	  .desc = "the first differing element of the most differing output, in memory order" },
	{ .key = "diff_class", .json = "summary.divergence.class_mismatches", .head = "NaN/Inf mismatches",
	  .hint = FIGURE_COUNT, .level = FIGURE_CASE, .at = { CSV(63), JSON(35), ACCURACY(7) }, .get = div_count,
	  .arg = DIV_AT(n_class), .desc = "elements NaN, Inf or finite on one side and of another class on the other" },
	{ .key = "diff_rows", .key2 = "diff_rows_of", .json = "summary.divergence.rows_touched", .json2 = "rows",
	  .head = "rows touched / of", .hint = FIGURE_COUNT, .level = FIGURE_CASE,
	  .at = { CSV(64), JSON(36), ACCURACY(8) }, .get = div_rows,
	  .desc = "the most differing output's rows (vectors along its last axis) holding a difference, of its rows" },
	{ .key = "departure", .json = "summary.divergence.departure", .head = "departs at", .hint = FIGURE_NAME,
	  .level = FIGURE_CASE, .at = { CSV(65), JSON(37), ACCURACY(9) }, .get = div_text, .arg = DIV_AT(departure),
	  .desc = "the first stage of the eager chain (mean, rstd, ... the outputs) whose bytes differ" },
	{ .key = "b_nearer_pct", .json = "summary.divergence.b_nearer_pct", .head = "B nearer the reference",
	  .hint = FIGURE_PERCENT, .digits = 1, .level = FIGURE_CASE, .at = { CSV(66), JSON(38), ACCURACY(10) },
	  .get = div_b_nearer,
	  .desc = "of the differing elements compared with the float64 reference, the % nearer it in B" },
	{ .key = "deterministic", .json = "summary.determinism.deterministic", .head = "deterministic",
	  .hint = FIGURE_FLAG, .level = FIGURE_CASE, .at = { CSV(67), JSON(39), ACCURACY(11) },
	  .get = case_deterministic,
	  .desc = "every hashed call of every slot gave the outputs of its first (NO: a nondeterministic arm)" },
	{ .key = "calls_differ", .key2 = "calls_hashed", .json = "summary.determinism.calls_differ", .json2 = "calls",
	  .head = "calls differ / hashed", .hint = FIGURE_COUNT, .level = FIGURE_CASE, .at = { CSV(68), JSON(40) },
	  .get = case_calls_differ, .desc = "in the slot with the most: its calls that gave other outputs, of its hashed calls" },
	{ .key = "nondeterministic_slot", .json = "summary.determinism.slot", .head = "nondeterministic slot",
	  .hint = FIGURE_TEXT, .level = FIGURE_CASE, .at = { CSV(69), JSON(41) }, .get = case_nondet_slot,
	  .desc = "that slot (none: deterministic)" },
	{ .key = "batch_invariant", .json = "summary.invariance.batch_invariant", .head = "batch-invariant",
	  .hint = FIGURE_VERDICT, .level = FIGURE_CASE, .at = { CSV(70), JSON(42), ACCURACY(12) },
	  .get = case_invariance,
	  .desc = "yes, no or not_checked: each row of its outputs equal to the same row in the sweep's other cases "
		  "(invariance = rows)" },
	{ .key = "invariance_row", .json = "summary.invariance.first_row", .head = "row", .hint = FIGURE_COUNT,
	  .level = FIGURE_CASE, .at = { CSV(71), JSON(43) }, .get = inv_count, .arg = INV_AT(first_row),
	  .desc = "where batch invariance breaks: the first row that differs" },
	{ .key = "invariance_other", .json = "summary.invariance.other_value", .head = "against", .hint = FIGURE_COUNT,
	  .level = FIGURE_CASE, .at = { CSV(72), JSON(44) }, .get = inv_count, .arg = INV_AT(other_value),
	  .desc = "and the sweep value of the case whose same row it differs from" },
};

const int n_figures = (int)(sizeof figures / sizeof figures[0]);

const struct figure *figure_find(const char *key)
{
	for (int i = 0; key && i < n_figures; i++)
		if (!strcmp(figures[i].key, key))
			return &figures[i];
	return NULL;
}

int figure_view_rows(enum figure_view view, const struct figure **rows, int max)
{
	int n = 0;
	for (int pos = 1; pos < 256; pos++)
		for (int i = 0; i < n_figures; i++)
			if (figures[i].at[view] == pos && n < max)
				rows[n++] = &figures[i];
	return n;
}

void figure_value_of(const struct figure *f, const struct figure_at *at, struct figure_value *v)
{
	*v = (struct figure_value){ .x = NAN, .x2 = NAN, .lo = NAN, .hi = NAN };
	if (f->get)
		f->get(f, at, v);
}

const char *figure_hint_str(enum figure_hint h)
{
	static const char *const names[FIGURE_HINTS] = {
		"duration", "ratio", "fraction", "percent", "bandwidth", "count", "bytes", "number",
		"text", "name", "digest", "flag", "verdict", "spread", "nested",
	};
	return h >= 0 && h < FIGURE_HINTS ? names[h] : "?";
}

const char *figure_level_str(enum figure_level l)
{
	static const char *const names[FIGURE_LEVELS] = { "slot", "arm", "case", "run" };
	return l >= 0 && l < FIGURE_LEVELS ? names[l] : "?";
}

const char *figure_view_str(enum figure_view v)
{
	static const char *const names[FIGURE_VIEWS] = {
		"csv", "json", "show", "run", "report", "bandwidth", "sweeps", "accuracy",
	};
	return v >= 0 && v < FIGURE_VIEWS ? names[v] : "?";
}
