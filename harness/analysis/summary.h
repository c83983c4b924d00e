/*
 * summary.h - every per-case figure of a run, computed once, for every
 * printer and judge: show, report, export, compare and gate read a
 * summary_run and never derive a figure of their own (google/benchmark's
 * ComputeStats, nvbench's named summaries: compute once, print many).
 *
 * summary_compute walks a stored run (struct results_run) once:
 *
 *   per slot   the stored slot figures (median, p10, p90, noise ...: the
 *              runner computed them with stats.c) and the verdicts folded
 *              over the slot's outputs (md5s joined, bit-exact, reference)
 *   per arm    its slots' samples pooled in slot order (A1 and A2 for the A
 *              arm of an ABA bracket): median, p10, p90, count; the arm's
 *              variant; its kernels merged by name over its slots
 *   per case   speedup = median(A) / median(B) with its seeded bootstrap
 *              interval; A drift; exactness counts; its share of the model
 *              projection (count x median per forward, per step)
 *   per run    the projection totals (per forward, per step, per image)
 *
 * One set of constants below (level, resamples, seed): the same samples give
 * the same interval in every command. The bootstrap runs once per case per
 * summary_compute, and not at all under SUMMARY_NO_INTERVALS (compare and
 * gate, which print no A/B speedup, ask for that).
 *
 * A summary points into the run it was computed from: keep the run alive
 * until summary_free. analysis/ never writes output; print/ formats these
 * figures.
 */
#ifndef AB_SUMMARY_H
#define AB_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/results.h"
#include "common/stats.h"

/* The one set of bootstrap constants (summary, compare, gate). */
#define SUMMARY_CI_LEVEL 0.95
#define SUMMARY_RESAMPLES 2000
#define SUMMARY_SEED UINT64_C(0x61626265) /* "abbe" */

/* The fewest samples an arm needs for its interval to mean anything: the
 * percentile bootstrap of a median from a handful of samples can only
 * return those samples' own values (its coverage falls far below 95%), and
 * a Mann-Whitney test needs 6 a side to reach p < 0.01 at all. Below it the
 * speedup's interval is not computed (low, high NAN: printed n/a), and the
 * gate lets no case pass (GATE_MIN_SAMPLES). */
#define SUMMARY_MIN_SAMPLES 10

enum summary_detail {
	SUMMARY_FULL,          /* every figure, the bootstrap intervals included */
	SUMMARY_NO_INTERVALS,  /* the speedup's point without its interval (low, high NAN) */
};

/* Median, 10th and 90th percentile (type 7) and count of pooled samples:
 * the shape in which every printer shows an arm's time. NAN when n == 0. */
struct summary_spread {
	double median_ns, p10_ns, p90_ns;
	int n;
};

/* One slot: the stored figures through `slot`, and its outputs folded. */
struct summary_slot {
	const struct results_slot *slot;
	char md5[RESULTS_MAX_OUTPUTS * 33 + 1]; /* the outputs' md5s joined by '+', in tensor order */
	bool bit_exact;      /* every output byte-equal to the bracket's first A slot (true without outputs) */
	bool ref_ok;         /* every output within the float64 reference's tolerance */
	int64_t mismatches;  /* elements differing from the first A slot, summed over outputs */
	double max_abs_err, max_err_ratio; /* largest over outputs; NAN when none is known */
};

/* One arm of a case, all its slots together. */
struct summary_arm {
	char arm;               /* 'a' or 'b' */
	char variant[32];       /* its slots' variant; "" when they disagree or there are none */
	int n_slots;
	double *samples;        /* the pooled samples, slot order; NULL when none */
	struct summary_spread time;
	/* kernel attribution: its slots' kernels merged by name, the largest
	 * total self-time first */
	int n_kernels;
	struct results_kernel *kernels;
	double wall_ns;         /* sum of the pooled samples: the window */
	double kernel_ns;       /* sum of every kernel's total self-time */
	int64_t kernel_records_bad;
};

/* Time per forward, per step or per image: the A arm's, the B arm's and the
 * saving A - B. */
struct summary_share {
	double a_ns, b_ns, saving_ns;
};

struct summary_case {
	const struct results_case *c;
	struct summary_arm a, b;
	struct stats_interval speedup; /* median(A) / median(B), SUMMARY_CI_LEVEL bootstrap interval;
					* low, high NAN under SUMMARY_MIN_SAMPLES an arm */
	bool improved;                 /* summary_beyond_noise(speedup, drift): printed bold */
	bool slower;                   /* the mirror: B slower than A beyond noise (interval below 1,
					* 1 / speedup - 1 above the drift) */
	double drift;                  /* largest |A_k - A1| / A1 over the later A slots (slot medians);
				        * NAN with fewer than two A slots */
	int n_outputs, n_not_exact;    /* over every output of every slot */
	bool b_byte_equal;             /* every B slot's outputs equal the first A slot's bytes */
	bool a_deterministic;          /* every later A slot's outputs equal them too */
	bool ref_ok;                   /* every output of every slot within the reference's tolerance */
	struct summary_share per_forward; /* count x median of each arm */
	struct summary_share per_step;    /* per_forward x the run's forwards_per_step */
	int n_slots;
	struct summary_slot *slots;    /* in bracket order */
};

struct summary_run {
	const struct results_run *run;
	enum summary_detail detail;
	int n_cases;
	struct summary_case *cases;    /* in run order */
	/* the model-level projection: sums over the cases; per_image is
	 * per_step x the run's steps */
	struct summary_share per_forward, per_step, per_image;
	double saving_fraction;        /* per_step.saving / per_step.a; NAN when a is 0 */
	bool have_model;               /* steps > 0 and forwards_per_step > 0 */
	int n_discarded;               /* samples the throttle probe dropped, all slots */
	/* the run's verdict in counts (the report's first line) */
	int n_improved, n_slower;      /* cases with improved, slower */
	int n_no_interval;             /* cases whose speedup has no interval (too few samples) */
	int n_not_byte_equal;          /* cases whose B outputs are not byte-equal to A1's */
	double min_speedup, max_speedup; /* over the cases with a speedup; NAN when none */
};

/* Computes every figure of r into out (which owns its arrays: release it
 * with summary_free, before r). AB_ERR_NOMEM when out of memory. */
enum ab_rc summary_compute(const struct results_run *r, enum summary_detail detail, struct summary_run *out,
			   struct ab_diag *d);
void summary_free(struct summary_run *s);

/* Whether a speedup is an improvement beyond noise: its interval exists
 * and lies above 1 (beyond the sampling noise), and the speedup exceeds
 * the A arm's own drift within the bracket (beyond the machine's noise). */
bool summary_beyond_noise(const struct stats_interval *speedup, double drift);

/* The case named name, NULL if the run has none. */
const struct summary_case *summary_find(const struct summary_run *s, const char *name);

#endif
