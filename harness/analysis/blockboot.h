/*
 * blockboot.h - the ratio of two runs' medians with an interval and a p
 * computed from units that are closer to independent than single samples:
 * blocks of consecutive samples (a circular block bootstrap within each
 * slot). compare and the gate print this p; docs/REPORTS.md ("What p is")
 * says what it means and what it does not.
 *
 * Why: the samples of a slot are taken back to back and are not
 * independent (the clock, the caches, a neighbour's burst move several in
 * a row), so a test that treats each sample as a unit is overconfident: a
 * Mann-Whitney test on the pooled samples of an A/A pair on the H200 gave
 * p = 8.9e-12 for a -0.26% change. Resampling whole blocks keeps the
 * short-range dependence inside each resample.
 *
 * The method, for each arm (all its slots of a case):
 *
 *   block length  L = max(1, round(cbrt(n_slot))) per slot (Kunsch's and
 *                 Hall, Horowitz and Jing's n^(1/3) rate for the variance
 *                 of a smooth statistic); 20 samples: 3, 2000: 13
 *   resample      per slot, ceil(n_slot / L) blocks of L consecutive
 *                 samples from uniform starts, wrapping within the slot,
 *                 cut to n_slot; the slots of an arm pooled; its median
 *   ratio*        med(num*) / med(den*), each optionally divided by the
 *                 median of its own run's A arm resampled alike (the
 *                 gate's bracket-normalised ratio: A's error counts too)
 *   interval      the 2.5% and 97.5% type-7 quantiles of BLOCKBOOT_RESAMPLES
 *                 ratios* (seeded: the same samples give the same interval)
 *   p             two-sided, by inverting the percentile interval: 2 x the
 *                 smaller share of ratios* on either side of 1, each share
 *                 counted with +1 in numerator and denominator (so at least
 *                 2 / (resamples + 1) ~ 0.001), and never below p_floor
 *   p_floor       the smallest two-sided p a rank test can reach with the
 *                 numbers of blocks as its units (complete separation,
 *                 normal approximation): 3 blocks a side give 0.08, so a
 *                 quick run's 3 samples can never reach p < 0.01
 *
 * What it is not: it says whether the two runs differ beyond the sampling
 * noise within each run. The variation between runs of one build (the
 * machine's state at the time, what A/A pairs measure) is not in it; that
 * is what the gate's thresholds and floors carry (gate.h).
 */
#ifndef AB_BLOCKBOOT_H
#define AB_BLOCKBOOT_H

#include "common/diag.h"
#include "common/results.h"
#include "common/stats.h"

#define BLOCKBOOT_RESAMPLES 2000

/* One arm's samples of a case, ready to resample: the pooled samples
 * sorted, each sample's place among them, and the slots' boundaries. */
struct blockboot_arm {
	int n;             /* pooled samples */
	double *sorted;    /* [n] */
	int *rank;         /* [n]: sample k of the arm, in slot order -> its index in sorted */
	int n_slots;
	int *slot_n;       /* [n_slots] samples of each slot, in bracket order */
	int *slot_len;     /* [n_slots] its block length L */
	int n_blocks;      /* blocks of one resample, over the slots: the units */
	double median;     /* of the pooled samples (type 7) */
};

/* The samples of arm ('a' or 'b') in case c, in slot order. An arm
 * without samples gets n = 0. AB_ERR_NOMEM. */
enum ab_rc blockboot_arm_init(struct blockboot_arm *a, const struct results_case *c, char arm, struct ab_diag *d);
void blockboot_arm_free(struct blockboot_arm *a);

struct blockboot_result {
	struct stats_interval ratio; /* the point is the ratio of the pooled medians */
	double p;                    /* two-sided, see above; NAN when an arm has no samples */
	double p_floor;              /* blockboot_p_floor of the two B-side arms' blocks */
};

/* ratio = (med(num) / med(num_norm)) / (med(den) / med(den_norm)); the
 * _norm arms may be NULL (then 1). The seed is the summary's. AB_ERR_NOMEM. */
enum ab_rc blockboot_ratio(const struct blockboot_arm *num, const struct blockboot_arm *num_norm,
			   const struct blockboot_arm *den, const struct blockboot_arm *den_norm,
			   struct blockboot_result *out, struct ab_diag *d);

/* The smallest two-sided p a rank test of na against nb independent units
 * can give (complete separation, normal approximation); 1 when either is
 * 0. With 3 and 3 it is 0.08. */
double blockboot_p_floor(int na, int nb);

#endif
