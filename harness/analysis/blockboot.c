/*
 * blockboot.c - a circular block bootstrap of the ratio of two runs'
 * medians (blockboot.h says why and how). A resample is counted, not
 * sorted: each drawn sample adds one to the count of its place in the
 * arm's sorted samples, and the median is found by a walk over the counts,
 * O(n) per resample.
 */
#include "analysis/blockboot.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/summary.h"
#include "common/rng.h"

/* Sorting a sample's places by value without qsort_r (not C11): values
 * paired with their index. */
struct pair {
	double v;
	int i;
};

static int cmp_pair(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;
	return (a->v > b->v) - (a->v < b->v);
}

static int slot_block(int n)
{
	int l = (int)lround(cbrt((double)n));
	return l < 1 ? 1 : l;
}

enum ab_rc blockboot_arm_init(struct blockboot_arm *a, const struct results_case *c, char arm, struct ab_diag *d)
{
	memset(a, 0, sizeof *a);
	for (int i = 0; i < c->n_slots; i++)
		if (c->slots[i].arm == arm && c->slots[i].n_samples > 0) {
			a->n += c->slots[i].n_samples;
			a->n_slots++;
		}
	if (!a->n)
		return AB_OK;
	struct pair *p = malloc((size_t)a->n * sizeof *p);
	a->sorted = malloc((size_t)a->n * sizeof *a->sorted);
	a->rank = malloc((size_t)a->n * sizeof *a->rank);
	a->slot_n = malloc((size_t)a->n_slots * sizeof *a->slot_n);
	a->slot_len = malloc((size_t)a->n_slots * sizeof *a->slot_len);
	if (!p || !a->sorted || !a->rank || !a->slot_n || !a->slot_len) {
		free(p);
		blockboot_arm_free(a);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory resampling '%s'", c->name);
	}
	int k = 0, s = 0;
	for (int i = 0; i < c->n_slots; i++) {
		const struct results_slot *sl = &c->slots[i];
		if (sl->arm != arm || sl->n_samples <= 0)
			continue;
		a->slot_n[s] = sl->n_samples;
		a->slot_len[s] = slot_block(sl->n_samples);
		a->n_blocks += (sl->n_samples + a->slot_len[s] - 1) / a->slot_len[s];
		s++;
		for (int j = 0; j < sl->n_samples; j++, k++)
			p[k] = (struct pair){ sl->samples_ns[j], k };
	}
	qsort(p, (size_t)a->n, sizeof *p, cmp_pair);
	for (int i = 0; i < a->n; i++) {
		a->sorted[i] = p[i].v;
		a->rank[p[i].i] = i;
	}
	free(p);
	a->median = stats_median(a->sorted, a->n);
	return AB_OK;
}

void blockboot_arm_free(struct blockboot_arm *a)
{
	free(a->sorted);
	free(a->rank);
	free(a->slot_n);
	free(a->slot_len);
	memset(a, 0, sizeof *a);
}

/* Unbiased integer in [0, bound). */
static uint32_t draw(uint64_t s[4], uint32_t bound)
{
	uint64_t threshold = (0 - (uint64_t)bound) % bound, v;
	do
		v = rng_next(s);
	while (v < threshold);
	return (uint32_t)(v % bound);
}

/* The type-7 median of one block resample of a (count has room for a->n). */
static double resample_median(const struct blockboot_arm *a, int *count, uint64_t s[4])
{
	int lo_rank = (a->n - 1) / 2, hi_rank = a->n / 2, seen = 0, off = 0;
	double lo = NAN, hi = NAN;
	memset(count, 0, (size_t)a->n * sizeof *count);
	for (int k = 0; k < a->n_slots; k++) {
		int n = a->slot_n[k], len = a->slot_len[k];
		for (int taken = 0; taken < n;) {
			int start = (int)draw(s, (uint32_t)n);
			for (int j = 0; j < len && taken < n; j++, taken++)
				count[a->rank[off + (start + j) % n]]++;
		}
		off += n;
	}
	for (int i = 0; i < a->n && isnan(hi); i++) {
		if (!count[i])
			continue;
		seen += count[i];
		if (isnan(lo) && seen > lo_rank)
			lo = a->sorted[i];
		if (seen > hi_rank)
			hi = a->sorted[i];
	}
	return lo + 0.5 * (hi - lo);
}

static double median_or_one(const struct blockboot_arm *a)
{
	return a ? a->median : 1;
}

static double resampled_or_one(const struct blockboot_arm *a, int *count, uint64_t s[4])
{
	return a ? resample_median(a, count, s) : 1;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

double blockboot_p_floor(int na, int nb)
{
	if (na <= 0 || nb <= 0)
		return 1;
	double mu = na * (double)nb / 2, var = na * (double)nb * (na + nb + 1) / 12;
	return fmin(1, erfc((mu - 0.5) / sqrt(var) / sqrt(2)));
}

static bool usable(const struct blockboot_arm *a)
{
	return !a || (a->n > 0 && a->median > 0);
}

enum ab_rc blockboot_ratio(const struct blockboot_arm *num, const struct blockboot_arm *num_norm,
			   const struct blockboot_arm *den, const struct blockboot_arm *den_norm,
			   struct blockboot_result *out, struct ab_diag *d)
{
	*out = (struct blockboot_result){ { NAN, NAN, NAN }, NAN, 1 };
	if (!num || !den || !usable(num) || !usable(den) || !usable(num_norm) || !usable(den_norm))
		return AB_OK;
	out->ratio.point = (num->median / median_or_one(num_norm)) / (den->median / median_or_one(den_norm));
	out->p_floor = blockboot_p_floor(num->n_blocks, den->n_blocks);
	int most = num->n;
	const struct blockboot_arm *all[] = { num_norm, den, den_norm };
	for (int i = 0; i < 3; i++)
		most = all[i] && all[i]->n > most ? all[i]->n : most;
	int *count = malloc((size_t)most * sizeof *count);
	double *ratio = malloc(BLOCKBOOT_RESAMPLES * sizeof *ratio);
	if (!count || !ratio) {
		free(count);
		free(ratio);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the block bootstrap");
	}
	uint64_t s[4];
	int below = 0, above = 0;
	rng_seed(s, SUMMARY_SEED);
	for (int k = 0; k < BLOCKBOOT_RESAMPLES; k++) {
		double rn = resample_median(num, count, s) / resampled_or_one(num_norm, count, s);
		double rd = resample_median(den, count, s) / resampled_or_one(den_norm, count, s);
		ratio[k] = rn / rd;
		below += ratio[k] <= 1;
		above += ratio[k] >= 1;
	}
	qsort(ratio, BLOCKBOOT_RESAMPLES, sizeof *ratio, cmp_double);
	out->ratio.low = stats_quantile(ratio, BLOCKBOOT_RESAMPLES, (1 - SUMMARY_CI_LEVEL) / 2);
	out->ratio.high = stats_quantile(ratio, BLOCKBOOT_RESAMPLES, (1 + SUMMARY_CI_LEVEL) / 2);
	double share = (double)((below < above ? below : above) + 1) / (BLOCKBOOT_RESAMPLES + 1);
	out->p = fmax(fmin(1, 2 * share), out->p_floor);
	free(count);
	free(ratio);
	return AB_OK;
}
