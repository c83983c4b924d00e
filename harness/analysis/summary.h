/*
 * summary.h - the per-case figures every printer shows (show, report,
 * compare, gate), computed in one place from a stored run.
 *
 * Arm medians pool all of an arm's slots (A1 and A2 for ABA); the speedup is
 * median(A) / median(B) with a seeded bootstrap 95% interval; drift compares
 * the first and last A slots. The projection multiplies each case's saving
 * by its count per forward and the scenario's [model] section.
 */
#ifndef AB_SUMMARY_H
#define AB_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/results.h"
#include "analysis/stats.h"

#define SUMMARY_BOOTSTRAP_RESAMPLES 2000
#define SUMMARY_BOOTSTRAP_SEED 0x5eed2026u

/* The fewest samples an arm needs for its interval to mean anything: the
 * percentile bootstrap of a median from a handful of samples can only
 * return those samples' own values (its coverage falls far below 95%), and
 * a Mann-Whitney test needs 6 a side to reach p < 0.01 at all. Below it an
 * interval prints n/a, and the gate calls no case a pass (GATE_MIN_SAMPLES). */
#define SUMMARY_MIN_SAMPLES 10

struct summary_case {
	double median_a_ns, median_b_ns;   /* pooled over the arm's slots */
	int n_a, n_b;                      /* samples pooled */
	struct stats_interval speedup;      /* A / B; low and high NAN under SUMMARY_MIN_SAMPLES an arm */
	double drift;                      /* summary_a_drift() */
	bool b_byte_equal;                 /* every B slot's outputs equal A1's bytes */
	bool a_deterministic;              /* every A slot equals A1 */
	bool ref_ok;                       /* every slot within the float64 reference's tolerance */
	double saving_per_forward_ns;      /* count x (median A - median B) */
	bool improved;                     /* summary_beyond_noise(speedup, drift) */
};

/* Whether a speedup is an improvement beyond noise: its interval exists
 * and lies above 1 (beyond the sampling noise), and the speedup exceeds
 * the A arm's own drift within the bracket (beyond the machine's noise). */
bool summary_beyond_noise(const struct stats_interval *speedup, double drift);

/* Largest |A_k - A1| / A1 over the later A slots (slot medians); NAN
 * with fewer than two A slots. Show, report and gate all call this one. */
double summary_a_drift(const struct results_case *c);

/* Fills s for case c. Returns false when out of memory. */
bool summary_case(const struct results_case *c, struct summary_case *s);

struct summary_projection {
	double per_forward_ns, per_step_ns, per_image_ns;
	double eager_per_step_ns;          /* sum of count x fwd x median A: the sites' share of a step */
};

/* Sums over cases of the run; false when out of memory. */
bool summary_projection(const struct results_run *r, struct summary_projection *p);

/* "12.3 us", "1.234 ms", ... into buf. */
const char *summary_format_ns(double ns, char *buf, size_t len);

#endif
