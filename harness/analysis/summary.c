/*
 * summary.c - a run's per-slot, per-arm, per-case and per-run figures,
 * computed once (summary.h says which and how).
 *
 * Order of work for a case: fold each slot's outputs, pool each arm's
 * samples and merge its kernels, then the figures that need both arms
 * (speedup and its interval, the projection share), then drift and the
 * exactness counts from the slots, then the judgments against the device
 * profile (drift) and the floor.
 */
#include "analysis/summary.h"
#include "analysis/divergence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/attrib.h"

/* NVML clocks-event reason bits (nvml.h, nvmlClocksEventReason*). */
const struct summary_throttle_reason summary_throttle_reasons[] = {
	{ 0x1, "idle", false },
	{ 0x2, "applications clocks", false },
	{ 0x4, "sw power cap", true },
	{ 0x8, "hw slowdown", true },
	{ 0x10, "sync boost", false },
	{ 0x20, "sw thermal", true },
	{ 0x40, "hw thermal", true },
	{ 0x80, "hw power brake", true },
	{ 0x100, "display clocks", false },
	{ 0, NULL, false },
};

bool summary_throttle_slows(unsigned long long mask)
{
	for (const struct summary_throttle_reason *t = summary_throttle_reasons; t->bit; t++)
		if ((mask & t->bit) && t->slows)
			return true;
	return false;
}

/* ---- per slot ---- */

static void clocks_of(const struct results_slot *s, struct summary_slot *out)
{
	const struct results_clocks *b = &s->clocks_before, *a = &s->clocks_after;
	out->throttled = (b->valid && summary_throttle_slows(b->throttle_reasons)) ||
			 (a->valid && summary_throttle_slows(a->throttle_reasons));
	out->clock_moved = b->valid && a->valid && (b->sm_mhz != a->sm_mhz || a->throttle_reasons);
}

static void fold_outputs(const struct results_slot *s, struct summary_slot *out)
{
	*out = (struct summary_slot){ .slot = s, .bit_exact = true, .has_ref = true, .ref_ok = true, .max_abs_err = NAN,
				      .max_err_ratio = NAN };
	for (int i = 0; i < s->n_outputs && i < RESULTS_MAX_OUTPUTS; i++) {
		const struct results_output *o = &s->outputs[i];
		if (i)
			strcat(out->md5, "+");
		strncat(out->md5, o->md5, 32);
		out->mismatches += o->mismatches;
		out->max_abs_err = fmax(out->max_abs_err, o->max_abs_err);
		out->max_err_ratio = fmax(out->max_err_ratio, o->max_err_ratio);
		out->bit_exact = out->bit_exact && o->bit_exact;
		out->has_ref = out->has_ref && o->has_ref;
		out->ref_ok = out->ref_ok && (!o->has_ref || o->ref_ok);
	}
	clocks_of(s, out);
}

/* ---- per arm ---- */

static enum ab_rc pool_samples(const struct results_case *c, struct summary_arm *a, struct ab_diag *d)
{
	int total = 0, k = 0;
	for (int i = 0; i < c->n_slots; i++)
		if (c->slots[i].arm == a->arm)
			total += c->slots[i].n_samples;
	if (!total)
		return AB_OK;
	a->samples = malloc((size_t)total * sizeof *a->samples);
	if (!a->samples)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory pooling samples of '%s'", c->name);
	for (int i = 0; i < c->n_slots; i++) {
		const struct results_slot *s = &c->slots[i];
		if (s->arm != a->arm)
			continue;
		memcpy(a->samples + k, s->samples_ns, (size_t)s->n_samples * sizeof *a->samples);
		k += s->n_samples;
	}
	a->time.n = total;
	return AB_OK;
}

static void spread_of(struct summary_arm *a)
{
	const double *x = a->samples;
	int n = a->time.n;
	a->time.median_ns = stats_median(x, n);
	a->time.p10_ns = stats_quantile(x, n, 0.1);
	a->time.p90_ns = stats_quantile(x, n, 0.9);
	a->p1_ns = stats_quantile(x, n, 0.01);
	a->p99_ns = stats_quantile(x, n, 0.99);
	a->wall_ns = 0;
	for (int i = 0; i < n; i++)
		a->wall_ns += x[i];
}

/* Per sample of the arm: its window, its kernels' time and share, each
 * kernel's figures and operation name. */
static void per_sample(struct summary_arm *a)
{
	double n = a->time.n ? a->time.n : NAN;
	a->window_ns = a->wall_ns / n;
	a->kernels_per_sample_ns = a->kernel_ns / n;
	a->gaps_ns = fmax(0, a->wall_ns - a->kernel_ns) / n;
	a->kernel_share = a->wall_ns > 0 ? a->kernel_ns / a->wall_ns : NAN;
	a->gaps_of_median_ns = fmax(0, 1 - a->kernel_share) * a->time.median_ns;
	for (int i = 0; i < a->n_kernels; i++) {
		const struct results_kernel *k = &a->kernels[i];
		struct summary_kernel *f = &a->kfig[i];
		f->per_sample_ns = k->total_ns / n;
		f->share = a->wall_ns > 0 ? k->total_ns / a->wall_ns : NAN;
		f->of_median_ns = f->share * a->time.median_ns;
		f->launches_per_sample = (double)k->launches / n;
		attrib_operation(k->name, f->operation, sizeof f->operation);
	}
}

/* The variant of the arm's slots; "" when they disagree or there are none:
 * then the arm's median does not stand for one kernel. */
static void variant_of(const struct results_case *c, struct summary_arm *a)
{
	const char *v = NULL;
	bool mixed = false;
	for (int i = 0; i < c->n_slots; i++) {
		if (c->slots[i].arm != a->arm)
			continue;
		a->n_slots++;
		mixed = mixed || (v && strcmp(v, c->slots[i].variant));
		v = v ? v : c->slots[i].variant;
	}
	snprintf(a->variant, sizeof a->variant, "%s", v && !mixed ? v : "");
}

static int cmp_total_desc(const void *pa, const void *pb)
{
	const struct results_kernel *a = pa, *b = pb;
	return (a->total_ns < b->total_ns) - (a->total_ns > b->total_ns);
}

static void merge_kernel(struct summary_arm *a, const struct results_kernel *k)
{
	for (int i = 0; i < a->n_kernels; i++) {
		struct results_kernel *m = &a->kernels[i];
		if (strcmp(m->name, k->name))
			continue;
		m->launches += k->launches;
		m->total_ns += k->total_ns;
		m->min_ns = fmin(m->min_ns, k->min_ns);
		m->max_ns = fmax(m->max_ns, k->max_ns);
		return;
	}
	a->kernels[a->n_kernels++] = *k;
}

static enum ab_rc merge_kernels(const struct results_case *c, struct summary_arm *a, struct ab_diag *d)
{
	int cap = 0;
	for (int i = 0; i < c->n_slots; i++)
		cap += c->slots[i].arm == a->arm ? c->slots[i].n_kernels : 0;
	a->kernels = calloc((size_t)cap + 1, sizeof *a->kernels);
	a->kfig = calloc((size_t)cap + 1, sizeof *a->kfig);
	if (!a->kernels || !a->kfig)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory merging kernels of '%s'", c->name);
	for (int i = 0; i < c->n_slots; i++) {
		const struct results_slot *s = &c->slots[i];
		if (s->arm != a->arm)
			continue;
		a->kernel_records_bad += s->kernel_records_bad;
		for (int k = 0; k < s->n_kernels; k++)
			merge_kernel(a, &s->kernels[k]);
	}
	for (int i = 0; i < a->n_kernels; i++)
		a->kernel_ns += a->kernels[i].total_ns;
	qsort(a->kernels, (size_t)a->n_kernels, sizeof *a->kernels, cmp_total_desc);
	return AB_OK;
}

/* The median of the arm's per-sample kernel sums over its slots (NAN
 * when none is known): CUPTI's kernel time, beside the wall time. */
static enum ab_rc kernel_median_of(const struct results_case *c, struct summary_arm *a, struct ab_diag *d)
{
	int n = 0;
	a->kernel_median_ns = NAN;
	if (!a->time.n)
		return AB_OK;
	double *k = malloc((size_t)a->time.n * sizeof *k);
	if (!k)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory pooling kernel times of '%s'", c->name);
	for (int i = 0; i < c->n_slots; i++) {
		const struct results_slot *s = &c->slots[i];
		for (int j = 0; s->arm == a->arm && s->kernel_ns && j < s->n_samples && n < a->time.n; j++)
			if (!isnan(s->kernel_ns[j]))
				k[n++] = s->kernel_ns[j];
	}
	if (n)
		a->kernel_median_ns = stats_median(k, n);
	free(k);
	return AB_OK;
}

static enum ab_rc arm_of(const struct results_case *c, char arm, struct summary_arm *a, struct ab_diag *d)
{
	a->arm = arm;
	variant_of(c, a);
	enum ab_rc rc = pool_samples(c, a, d);
	if (rc == AB_OK)
		rc = kernel_median_of(c, a, d);
	if (rc == AB_OK)
		rc = merge_kernels(c, a, d);
	spread_of(a);
	if (rc == AB_OK)
		per_sample(a);
	return rc;
}

static void arm_free(struct summary_arm *a)
{
	free(a->samples);
	free(a->kernels);
	free(a->kfig);
	a->samples = NULL;
	a->kernels = NULL;
	a->kfig = NULL;
}

/* ---- per case ---- */

static double a_drift(const struct results_case *c)
{
	const struct results_slot *first = NULL;
	double drift = NAN;
	for (int i = 0; i < c->n_slots; i++) {
		const struct results_slot *sl = &c->slots[i];
		if (sl->arm != 'a')
			continue;
		if (!first)
			first = sl;
		else if (isnan(drift) || stats_drift(first->median_ns, sl->median_ns) > drift)
			drift = stats_drift(first->median_ns, sl->median_ns);
	}
	return drift;
}

/* The case's arms, and whether they are the run's. */
static void case_arms(struct summary_case *s, const struct results_run *r)
{
	s->arm_a = s->c->arm_a[0] ? s->c->arm_a : r->arm_a;
	s->arm_b = s->c->arm_b[0] ? s->c->arm_b : r->arm_b;
	s->own_arms = strcmp(s->arm_a, r->arm_a) != 0 || strcmp(s->arm_b, r->arm_b) != 0;
}

static void exactness(struct summary_case *s)
{
	const struct results_case *c = s->c;
	s->b_byte_equal = s->a_deterministic = s->ref_ok = s->has_ref = true;
	for (int i = 0; i < c->n_slots; i++) {
		const struct results_slot *sl = &c->slots[i];
		for (int o = 0; o < sl->n_outputs; o++) {
			s->n_outputs++;
			s->n_not_exact += !sl->outputs[o].bit_exact;
			if (!sl->outputs[o].bit_exact && sl->arm == 'b')
				s->b_byte_equal = false;
			else if (!sl->outputs[o].bit_exact)
				s->a_deterministic = false;
			if (!sl->outputs[o].has_ref) {
				s->has_ref = false;
				s->n_no_ref++;
				continue;
			}
			s->ref_ok = s->ref_ok && sl->outputs[o].ref_ok;
			s->n_not_ref += !sl->outputs[o].ref_ok;
			if (isfinite(sl->outputs[o].max_err_ratio))
				s->max_err_ratio = isnan(s->max_err_ratio) ? sl->outputs[o].max_err_ratio
									   : fmax(s->max_err_ratio, sl->outputs[o].max_err_ratio);
		}
	}
}

static void clocks_add(struct summary_clocks *sp, const struct results_clocks *c)
{
	if (!c->valid)
		return;
	sp->sm_lo_mhz = sp->readings && sp->sm_lo_mhz < c->sm_mhz ? sp->sm_lo_mhz : c->sm_mhz;
	sp->sm_hi_mhz = sp->readings && sp->sm_hi_mhz > c->sm_mhz ? sp->sm_hi_mhz : c->sm_mhz;
	sp->temp_hi_c = sp->readings && sp->temp_hi_c > c->temp_c ? sp->temp_hi_c : c->temp_c;
	sp->readings++;
}

/* A slot's box-plot whiskers (Tukey: the most extreme samples within 1.5
 * IQR of the type-7 quartiles) folded into *lo, *hi. */
static void whiskers(const struct results_slot *sl, double *lo, double *hi)
{
	int n = sl->n_samples;
	if (n < 1)
		return;
	double q1 = stats_quantile(sl->samples_ns, n, 0.25), q3 = stats_quantile(sl->samples_ns, n, 0.75);
	double a = q1 - 1.5 * (q3 - q1), b = q3 + 1.5 * (q3 - q1), wl = q1, wh = q3;
	for (int i = 0; i < n; i++) {
		double x = sl->samples_ns[i];
		if (x >= a && x < wl)
			wl = x;
		if (x <= b && x > wh)
			wh = x;
	}
	*lo = isnan(*lo) ? wl : fmin(*lo, wl);
	*hi = isnan(*hi) ? wh : fmax(*hi, wh);
}

/* The slots' discarded samples, largest noise, clock span and whiskers. */
static void slots_span(struct summary_case *s)
{
	s->whisker_lo_ns = s->whisker_hi_ns = NAN;
	for (int i = 0; i < s->n_slots; i++) {
		const struct results_slot *sl = s->slots[i].slot;
		whiskers(sl, &s->whisker_lo_ns, &s->whisker_hi_ns);
		s->n_discarded += sl->n_discarded;
		s->max_noise = fmax(s->max_noise, sl->noise);
		clocks_add(&s->clocks, &sl->clocks_before);
		clocks_add(&s->clocks, &sl->clocks_after);
		s->clocks.throttled += s->slots[i].throttled;
	}
}

static struct summary_share share_scaled(const struct summary_share *x, double k)
{
	return (struct summary_share){ x->a_ns * k, x->b_ns * k, x->saving_ns * k };
}

static void speedup_and_share(struct summary_case *s, int forwards_per_step, enum summary_detail detail)
{
	bool enough = s->a.time.n >= SUMMARY_MIN_SAMPLES && s->b.time.n >= SUMMARY_MIN_SAMPLES;
	int resamples = detail == SUMMARY_FULL && enough ? SUMMARY_RESAMPLES : 0;
	s->speedup = stats_speedup_ci(s->a.samples, s->a.time.n, s->b.samples, s->b.time.n, SUMMARY_CI_LEVEL,
				      resamples, SUMMARY_SEED);
	s->per_forward.a_ns = s->c->count * s->a.time.median_ns;
	s->per_forward.b_ns = s->c->count * s->b.time.median_ns;
	s->per_forward.saving_ns = s->per_forward.a_ns - s->per_forward.b_ns;
	s->per_step = share_scaled(&s->per_forward, forwards_per_step);
}

static enum ab_rc case_of(const struct results_run *r, const struct results_case *c, enum summary_detail detail,
			  struct summary_case *s, struct ab_diag *d)
{
	s->c = c;
	s->speedup = (struct stats_interval){ NAN, NAN, NAN };
	s->max_err_ratio = NAN;
	s->slots = calloc((size_t)c->n_slots + 1, sizeof *s->slots);
	if (!s->slots)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory summarising '%s'", c->name);
	s->n_slots = c->n_slots;
	for (int i = 0; i < c->n_slots; i++)
		fold_outputs(&c->slots[i], &s->slots[i]);
	enum ab_rc rc = arm_of(c, 'a', &s->a, d);
	if (rc == AB_OK)
		rc = arm_of(c, 'b', &s->b, d);
	if (rc == AB_OK)
		rc = hosttime_arm(r, c, 'a', s->a.time.median_ns, s->a.kernel_median_ns, &s->a.host, d);
	if (rc == AB_OK)
		rc = hosttime_arm(r, c, 'b', s->b.time.median_ns, s->b.kernel_median_ns, &s->b.host, d);
	if (rc != AB_OK)
		return rc;
	s->launch_bound = s->a.host.launch_bound || s->b.host.launch_bound;
	speedup_and_share(s, r->forwards_per_step, detail);
	s->drift = a_drift(c);
	s->improved = summary_beyond_noise(&s->speedup, s->drift);
	struct stats_interval inverse = { 1 / s->speedup.point, 1 / s->speedup.high, 1 / s->speedup.low };
	s->slower = summary_beyond_noise(&inverse, s->drift);
	exactness(s);
	divergence_case(s);
	slots_span(s);
	case_arms(s, r);
	return AB_OK;
}

/* Drift against the profile's noise floor (noise_floor NAN: no profile). */
static enum summary_drift drift_verdict(double drift, double noise_floor)
{
	if (isnan(drift))
		return SUMMARY_DRIFT_ONE_SLOT;
	if (isnan(noise_floor))
		return SUMMARY_DRIFT_NO_PROFILE;
	return drift > noise_floor ? SUMMARY_DRIFT_ENVIRONMENTAL : SUMMARY_DRIFT_OK;
}

/* x / y, NAN unless both are positive numbers. */
static double ratio(double x, double y)
{
	return x > 0 && y > 0 ? x / y : NAN;
}

/* The copy floor measured in the run, and the arms against it; its % of
 * copy is held to ref as the arms' are (none for a cache-resident case). */
static void copy_floor_of(struct summary_case *s, const struct bandwidth_ref *ref)
{
	const struct results_case *c = s->c;
	s->copy_floor_ns = c->copy_floor_ns > 0 ? c->copy_floor_ns : NAN;
	s->copy_floor_kernel_ns = c->copy_floor_kernel_ns > 0 ? c->copy_floor_kernel_ns : NAN;
	s->a_over_copy = ratio(s->a.time.median_ns, s->copy_floor_ns);
	s->b_over_copy = ratio(s->b.time.median_ns, s->copy_floor_ns);
	s->b_kernel_over_copy = ratio(s->b.kernel_median_ns, s->copy_floor_kernel_ns);
	s->a_kernel_over_copy = ratio(s->a.kernel_median_ns, s->copy_floor_kernel_ns);
	s->copy_floor_bw = bandwidth_arm(isnan(s->copy_floor_ns) ? 0 : c->bytes_min, s->copy_floor_ns, ref);
}

/* The figures against the copy bandwidth, the floor, and the medians'
 * intervals. A case whose working set fits the last-level cache is not
 * held against the DRAM copy: its traffic may never leave the cache (on
 * the H200 such a case read 137.9% of copy), so no % of copy; its floor
 * is the copy measured in the run, as every case's. */
static void bandwidth_of(struct summary_case *s, const struct bandwidth_ref *copy, int64_t cache_bytes)
{
	const struct bandwidth_ref none = { NAN, BANDWIDTH_NONE, "" };
	s->cache_resident = cache_bytes > 0 && s->c->bytes_min > 0 && s->c->bytes_min <= cache_bytes;
	const struct bandwidth_ref *ref = s->cache_resident ? &none : copy;
	s->a.median_ci = stats_median_ci(s->a.samples, s->a.time.n, SUMMARY_CI_LEVEL);
	s->b.median_ci = stats_median_ci(s->b.samples, s->b.time.n, SUMMARY_CI_LEVEL);
	s->a.bw = bandwidth_arm(s->c->bytes_a, s->a.time.median_ns, ref);
	s->b.bw = bandwidth_arm(s->c->bytes_b, s->b.time.median_ns, ref);
	copy_floor_of(s, ref);
	for (int i = 0; i < s->n_slots; i++) {
		const struct results_slot *sl = s->slots[i].slot;
		s->slots[i].bw = bandwidth_arm(sl->arm == 'a' ? s->c->bytes_a : s->c->bytes_b, sl->median_ns, ref);
	}
}

bool summary_beyond_noise(const struct stats_interval *speedup, double drift)
{
	return speedup->low > 1 && speedup->point - 1 > (isnan(drift) ? 0 : drift);
}

static void case_free(struct summary_case *s)
{
	arm_free(&s->a);
	arm_free(&s->b);
	free(s->slots);
	s->slots = NULL;
}

/* ---- per run ---- */

static void add_share(struct summary_share *sum, const struct summary_share *x)
{
	sum->a_ns += x->a_ns;
	sum->b_ns += x->b_ns;
	sum->saving_ns += x->saving_ns;
}

static void projection(struct summary_run *S)
{
	const struct results_run *r = S->run;
	for (int i = 0; i < S->n_cases; i++) {
		add_share(&S->per_forward, &S->cases[i].per_forward);
		add_share(&S->per_step, &S->cases[i].per_step);
	}
	S->per_image = share_scaled(&S->per_step, r->steps);
	S->saving_fraction = S->per_step.a_ns > 0 ? S->per_step.saving_ns / S->per_step.a_ns : NAN;
	S->have_model = r->steps > 0 && r->forwards_per_step > 0;
}

/* A case's one verdict (summary.h gives the precedence). */
static enum summary_case_verdict case_verdict(const struct summary_case *c)
{
	if (!c->b_byte_equal || c->det.nondeterministic)
		return SUMMARY_CASE_NOT_EXACT;
	if (c->drift_verdict == SUMMARY_DRIFT_ENVIRONMENTAL)
		return SUMMARY_CASE_DRIFTED;
	if (isnan(c->speedup.low))
		return SUMMARY_CASE_FEW_SAMPLES;
	if (c->improved)
		return SUMMARY_CASE_FASTER;
	return c->slower ? SUMMARY_CASE_SLOWER : SUMMARY_CASE_NO_CLEAR_CHANGE;
}

/* The run's word from its cases' verdicts: untrusted cases are counted,
 * not weighed. */
static enum summary_verdict run_verdict(const struct summary_run *S)
{
	const int *n = S->n_verdict;
	int trusted = n[SUMMARY_CASE_FASTER] + n[SUMMARY_CASE_SLOWER] + n[SUMMARY_CASE_NO_CLEAR_CHANGE];
	if (n[SUMMARY_CASE_NOT_EXACT])
		return SUMMARY_NOT_BIT_EXACT;
	if (S->run->quick || !trusted)
		return SUMMARY_INCONCLUSIVE;
	if (n[SUMMARY_CASE_SLOWER])
		return SUMMARY_SLOWER;
	if (n[SUMMARY_CASE_FASTER] == trusted)
		return SUMMARY_FASTER;
	return n[SUMMARY_CASE_FASTER] ? SUMMARY_PARTLY_FASTER : SUMMARY_NO_CLEAR_CHANGE;
}

/* Every case's verdict and the counts behind the run's one-line verdict. */
static void verdict_counts(struct summary_run *S)
{
	S->min_speedup = S->max_speedup = NAN;
	for (int i = 0; i < S->n_cases; i++) {
		struct summary_case *c = &S->cases[i];
		c->verdict = case_verdict(c);
		S->n_verdict[c->verdict]++;
		S->n_not_byte_equal += !c->b_byte_equal;
		S->n_nondeterministic += c->det.nondeterministic;
		if (c->verdict != SUMMARY_CASE_FASTER)
			continue;
		S->min_speedup = isnan(S->min_speedup) ? c->speedup.point : fmin(S->min_speedup, c->speedup.point);
		S->max_speedup = isnan(S->max_speedup) ? c->speedup.point : fmax(S->max_speedup, c->speedup.point);
	}
	S->verdict = run_verdict(S);
}

/* The run's spans over its cases: clocks, samples a slot, outputs. */
static void run_span(struct summary_run *S)
{
	S->max_err_ratio = NAN;
	for (int i = 0; i < S->n_cases; i++) {
		const struct summary_case *c = &S->cases[i];
		for (int k = 0; k < c->n_slots; k++) {
			const struct results_slot *sl = c->slots[k].slot;
			clocks_add(&S->clocks, &sl->clocks_before);
			clocks_add(&S->clocks, &sl->clocks_after);
			S->clocks.throttled += c->slots[k].throttled;
			S->min_slot_samples = S->n_slots && S->min_slot_samples < sl->n_samples ? S->min_slot_samples
												 : sl->n_samples;
			S->max_slot_samples = S->n_slots && S->max_slot_samples > sl->n_samples ? S->max_slot_samples
												 : sl->n_samples;
			S->n_slots++;
		}
		S->n_outputs += c->n_outputs;
		S->n_not_exact += c->n_not_exact;
		S->n_not_ref += c->n_not_ref;
		S->n_no_ref += c->n_no_ref;
		if (isfinite(c->max_err_ratio))
			S->max_err_ratio = isnan(S->max_err_ratio) ? c->max_err_ratio : fmax(S->max_err_ratio, c->max_err_ratio);
	}
}

/* Cases of sweep w, ascending along its axis (insertion sort: a sweep
 * has at most SCENARIO_SWEEP_MAX values). */
static void sweep_sort(const struct summary_run *S, struct summary_sweep *w)
{
	for (int i = 1; i < w->n; i++)
		for (int j = i; j > 0 && S->cases[w->idx[j]].c->axis_value < S->cases[w->idx[j - 1]].c->axis_value; j--) {
			int t = w->idx[j];
			w->idx[j] = w->idx[j - 1];
			w->idx[j - 1] = t;
		}
}

static bool in_sweep(const struct results_case *c, const struct summary_sweep *w)
{
	return !strcmp(w->name, c->sweep) && !strcmp(w->axis, c->axis);
}

/* Groups the swept cases by the [case] they came from, in run order. */
static enum ab_rc find_sweeps(struct summary_run *S, struct ab_diag *d)
{
	S->sweeps = calloc((size_t)S->n_cases + 1, sizeof *S->sweeps);
	if (!S->sweeps)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the run's sweeps");
	for (int i = 0; i < S->n_cases; i++) {
		const struct results_case *c = S->cases[i].c;
		int g = 0;
		while (g < S->n_sweeps && !in_sweep(c, &S->sweeps[g]))
			g++;
		if (!c->sweep[0] || !c->axis[0] || g < S->n_sweeps)
			continue;
		struct summary_sweep *w = &S->sweeps[S->n_sweeps++];
		w->name = c->sweep;
		w->axis = c->axis;
		if (!(w->idx = calloc((size_t)S->n_cases, sizeof *w->idx)))
			return ab_fail(d, AB_ERR_NOMEM, "out of memory for the run's sweeps");
		for (int j = i; j < S->n_cases; j++)
			if (in_sweep(S->cases[j].c, w))
				w->idx[w->n++] = j;
		sweep_sort(S, w);
		divergence_sweep(S, w);
	}
	return AB_OK;
}

static int discarded(const struct results_run *r)
{
	int n = 0;
	for (int i = 0; i < r->n_cases; i++)
		for (int k = 0; k < r->cases[i].n_slots; k++)
			n += r->cases[i].slots[k].n_discarded;
	return n;
}

enum ab_rc summary_compute_profile(const struct results_run *r, enum summary_detail detail,
				   const struct summary_profile *p, struct summary_run *out, struct ab_diag *d)
{
	memset(out, 0, sizeof *out);
	out->run = r;
	out->detail = detail;
	if (p) {
		out->have_profile = true;
		out->profile = *p;
	}
	out->copy = bandwidth_copy(r, p ? p->dram_gbps : NAN, p ? p->name : NULL);
	out->cache_bytes = r->device.l2_bytes > 0 ? r->device.l2_bytes : 0;
	out->cases = calloc((size_t)r->n_cases + 1, sizeof *out->cases);
	if (!out->cases)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory summarising run %lld", (long long)r->id);
	enum ab_rc rc = AB_OK;
	for (int i = 0; rc == AB_OK && i < r->n_cases; i++) {
		out->n_cases = i + 1;
		rc = case_of(r, &r->cases[i], detail, &out->cases[i], d);
		if (rc == AB_OK)
			bandwidth_of(&out->cases[i], &out->copy, out->cache_bytes);
		if (rc == AB_OK)
			out->cases[i].drift_verdict = drift_verdict(out->cases[i].drift, p ? p->noise_floor : NAN);
	}
	if (rc == AB_OK)
		rc = find_sweeps(out, d);
	if (rc != AB_OK) {
		summary_free(out);
		return rc;
	}
	projection(out);
	out->n_discarded = discarded(r);
	verdict_counts(out);
	run_span(out);
	return AB_OK;
}

enum ab_rc summary_compute(const struct results_run *r, enum summary_detail detail, struct summary_run *out,
			   struct ab_diag *d)
{
	return summary_compute_profile(r, detail, NULL, out, d);
}

const char *summary_verdict_str(enum summary_verdict v)
{
	switch (v) {
	case SUMMARY_NOT_BIT_EXACT: return "NOT BIT-EXACT";
	case SUMMARY_INCONCLUSIVE: return "INCONCLUSIVE";
	case SUMMARY_SLOWER: return "SLOWER";
	case SUMMARY_FASTER: return "FASTER";
	case SUMMARY_PARTLY_FASTER: return "PARTLY FASTER";
	case SUMMARY_NO_CLEAR_CHANGE: break;
	}
	return "NO CLEAR CHANGE";
}

/* Words and keys of the case verdicts, in enum order. */
static const struct {
	const char *words, *key;
} case_verdicts[SUMMARY_CASE_KINDS] = {
	[SUMMARY_CASE_NOT_EXACT] = { "lost bit-exactness", "not_exact" },
	[SUMMARY_CASE_DRIFTED] = { "drifted (not trusted)", "drifted" },
	[SUMMARY_CASE_FEW_SAMPLES] = { "too few samples (not trusted)", "few_samples" },
	[SUMMARY_CASE_FASTER] = { "faster", "faster" },
	[SUMMARY_CASE_SLOWER] = { "slower", "slower" },
	[SUMMARY_CASE_NO_CLEAR_CHANGE] = { "no clear change", "no_clear_change" },
};

const char *summary_case_verdict_str(enum summary_case_verdict v)
{
	return v >= 0 && v < SUMMARY_CASE_KINDS ? case_verdicts[v].words : "?";
}

const char *summary_case_verdict_key(enum summary_case_verdict v)
{
	return v >= 0 && v < SUMMARY_CASE_KINDS ? case_verdicts[v].key : "?";
}

bool summary_case_untrusted(const struct summary_case *c)
{
	return c->verdict == SUMMARY_CASE_DRIFTED || c->verdict == SUMMARY_CASE_FEW_SAMPLES;
}

void summary_free(struct summary_run *s)
{
	for (int i = 0; s->cases && i < s->n_cases; i++)
		case_free(&s->cases[i]);
	for (int i = 0; s->sweeps && i < s->n_sweeps; i++)
		free(s->sweeps[i].idx);
	free(s->cases);
	free(s->sweeps);
	s->cases = NULL;
	s->sweeps = NULL;
	s->n_cases = s->n_sweeps = 0;
}

const struct summary_case *summary_find(const struct summary_run *s, const char *name)
{
	for (int i = 0; i < s->n_cases; i++)
		if (!strcmp(s->cases[i].c->name, name))
			return &s->cases[i];
	return NULL;
}
