/*
 * gate.h - the nightly CI gate: a run against a baseline run, case by case.
 *
 * Both runs must be 'ok', of the same scenario name and the same device
 * name; anything else is AB_ERR_DATA (exit 2: CI must not mistake a
 * misconfigured job for a verdict).
 *
 * Between two runs the whole device moves (clocks, launch latency, a
 * neighbour); within a run the A/B/A bracket measures B and A under the
 * same conditions. So each case's B arm is judged relative to its own
 * run's A arm ("bracket-normalised"):
 *
 *   r         = median(B) / median(A), the A slots pooled, in each run
 *   change    = r_run / r_base - 1
 *   p         = two-sided, from a block bootstrap of r_run / r_base that
 *               resamples blocks of consecutive samples of both arms of
 *               both runs (blockboot.h: the samples of a slot are not
 *               independent; p >= 0.001 and >= what the blocks allow);
 *               it says whether the runs differ beyond the sampling noise
 *               within each, not whether the builds do
 *   floor     = max(drift_base, drift_run), drift = max over the later A
 *               slots of |A_k - A1| / A1 (slot medians; 0 when neither run
 *               has two A slots)
 *   abs       = change * median(B_base): the judged change in ns of the
 *               baseline's B (in a fallback, median(B_run) - median(B_base))
 *   min_ns    = min_change_ns: the device profile's gate_min_change_ns, or
 *               --min-change-ns
 *
 * A case fails when
 *
 *   - its B arm regressed in time: change > max_regression_pct / 100 AND
 *     change > floor AND abs > min_ns AND p < COMPARE_ALPHA (0.01); and, when
 *     the A arm itself moved between the runs by more than machine_moved_pct
 *     (a_moved: median(A) of the run over the baseline's, minus 1, beyond
 *     +-machine_moved_pct: the device profile's threshold, fixed whatever
 *     the threshold asked for), the raw B change clears the same bar
 *     (threshold, floor and min_ns, its ns being median(B_run) -
 *     median(B_base)) with its own p < COMPARE_ALPHA too;
 *   - it lost bit-exactness: an output of a slot that was bit-exact in the
 *     baseline is not in the run (or is gone), or any B-arm output of the
 *     run is not byte-equal to its bracket's first A slot (the note says
 *     how many elements differ, their %, the largest ULP), or a slot's
 *     outputs changed between its hashed calls (nondeterministic: how
 *     many of them differed; run/determinism.h);
 *   - it is in the baseline but missing from the run.
 *
 * Why the floor is the A drift: normalising assumes median(A) stood for
 * the machine while B ran. A1 -> A2 is the bracket's own measure of how far
 * that fails (the machine moving within the run, plus the sampling error of
 * a slot median, larger than that of the pooled median); with drift
 * monotonic in time, r is off by at most about drift / 2 in each run, so
 * r_run / r_base by at most the sum of the halves <= the larger drift. The
 * slots' p10-p90 spread is not used: it is the spread of single samples,
 * which the test already weighs, and as a floor it would hide
 * real regressions of noisy short kernels (10-40% on 4 us kernels).
 *
 * Why an absolute floor too: the threshold and the drift floor are
 * relative, but part of the timing error is absolute. CUDA events resolve
 * about 0.5 us (cudaEventElapsedTime's documentation; the H200's event
 * times are multiples of 32 ns), and a launch-latency-bound kernel of
 * ~4.7 us moves by 0.1-0.3 us between two runs of one build: on the H200,
 * 3 of 20 A/A pairs of smoke.ini failed such kernels at B/A +5.3..+6.2%,
 * 0.25-0.29 us of their baseline B, with p down to 4e-5. A change of the
 * fused kernel smaller in ns than the timer can be trusted with is not
 * called, however small its p. The cost: on a kernel of t ns a regression
 * must exceed min_ns / t as well as the relative bars (on 4.7 us with
 * 500 ns: 10.6%, not 5%); above min_ns / threshold (10 us on the H200) the
 * absolute floor never decides. The change is taken in ns of the baseline's B
 * because that is the kernel whose time the floor bounds: normalising
 * rescales the run's B by the A arms' ratio, and change * median(B_base)
 * is the move of B that the normalised change stands for.
 *
 * Fallback: when the A arm's variant differs between the runs (or a run
 * has no A samples for the case), dividing by median(A) compares different
 * kernels, so the case is judged on raw B times instead: change =
 * median(B_run) / median(B_base) - 1 and the block-bootstrap p of the raw
 * samples, with the same threshold and floors; gate_case.basis says which,
 * and the printed verdict says so.
 *
 * Why the raw confirmation when A moved: normalising assumes the machine
 * moves A and B alike. When A moved beyond the threshold between the runs
 * and B did not follow (A disturbed in one run alone: measured on the CPU
 * backend, A -20..-50% with B flat, and on the H200, A +23% with B +6%),
 * B/A shows a change no kernel made; one pair cannot tell which arm
 * followed the machine, so both readings must agree. The cost: while the
 * machine is faster in the run than in the baseline by more than the
 * threshold, a B regression smaller than that speed-up is not called
 * (the verdict notes the A arm's move; the next night, or a fresh
 * baseline, sees it).
 *
 * The raw change is always computed and printed beside the normalised one;
 * when the A arm moved (a_moved) and the raw or the normalised change is
 * beyond the threshold, the verdict notes that the machine may have
 * changed. A B slowdown matched by an equal A slowdown passes: the gate
 * judges the fused kernel against the eager chain, so a change that slows
 * both arms equally (the machine, the harness) is not the fused kernel's
 * regression.
 *
 * Why the bar of a_moved is not the threshold: it was, and the verdict was
 * not monotone in the threshold. A case whose A arm moved by 8% between
 * the runs while its B/A change was +19.6% and its raw B change small
 * passed at 5% (A moved beyond 5%: raw B must confirm, and did not) and
 * failed at 10% and 15% (A within them: B/A alone decides) - pair 3 of the
 * CPU A/A check of issue 33. Whether the machine moved is the device's
 * property, not the size of regression asked about, so the bar is the
 * device profile's own threshold (gate_max_regression_pct; the threshold
 * itself where no profile matches): with it fixed, each clause of the
 * rule is monotone and a case that fails at a threshold fails at every
 * smaller one (tests/unit/test_gate.c sweeps thresholds over planted
 * pairs). At the profile's threshold the rule is what it was.
 *
 * Improvements (the same rule mirrored: change < -max(threshold, floor),
 * abs < -min_ns, p < COMPARE_ALPHA, and raw B faster too when the A arm
 * moved) never fail;
 * they are reported. Cases only in the run are listed as new.
 *
 * Never a pass on too little evidence. A case that did not fail but has a
 * slot (in the run or the baseline) with fewer than min_samples samples is
 * INCONCLUSIVE: with 3 samples a side even a 4x regression cannot reach
 * p < 0.01, so "no significant change" says nothing. A run or baseline made
 * with --quick makes the whole gate INCONCLUSIVE whatever its cases say.
 * A partial run (run --only, recorded in runs.only_cases) lacks the cases
 * it did not select: they are NOT MEASURED, not missing, and the gate is
 * INCONCLUSIVE too unless `gate --only` asks for the measured case alone.
 * Failures still fail: lost bit-exactness needs no samples, and a
 * regression that reached p < 0.01 was seen.
 *
 * gate_exit_status is the contract CI reads: 0 every case passed, 1 at
 * least one failed, 4 (AB_EXIT_INCONCLUSIVE) none failed but the evidence
 * is too thin to pass.
 */
#ifndef AB_GATE_H
#define AB_GATE_H

#include <stdbool.h>

#include "analysis/compare.h"
#include "analysis/summary.h"
#include "common/diag.h"
#include "common/results.h"

enum gate_verdict {
	GATE_PASS,
	GATE_FASTER,     /* improvement beyond the threshold, significant: reported, passes */
	GATE_NEW,        /* only in the run: passes */
	GATE_REGRESSED,  /* slower beyond the threshold, significant */
	GATE_LOST_EXACT,
	GATE_MISSING,
	GATE_INCONCLUSIVE, /* did not fail, but a slot has fewer than min_samples samples */
	GATE_NOT_MEASURED, /* in the baseline, left out of a partial run (run --only) */
};

/* The fewest samples a slot needs before the gate lets its case pass:
 * below it the blocks of the block bootstrap are too few (5 blocks a side
 * of 10 samples: p >= 0.008) for p < 0.01 to mean much. */
#define GATE_MIN_SAMPLES SUMMARY_MIN_SAMPLES

/* What a case's time verdict was computed from. */
enum gate_basis {
	GATE_NORMALISED,  /* B / median(A) of its own run */
	GATE_RAW_VARIANT, /* raw B: the A arm's variant differs between the runs */
	GATE_RAW_NO_A,    /* raw B: a run has no A samples for the case */
};

struct gate_case {
	char name[64];
	struct compare_case cmp;     /* raw B arms, baseline = first, run = second: its ratio and
				  * p_value are those of the raw B samples */
	enum gate_basis basis;
	char a_variant_base[32], a_variant_run[32]; /* of the A slots; "" if none or they disagree */
	double raw_change;       /* cmp.ratio.point - 1 */
	double r_base, r_run;    /* median(B) / median(A pooled); NAN unless normalised */
	struct stats_interval norm_ratio; /* r_run / r_base with its bootstrap interval (median(A)
					  * taken as exact); NAN unless normalised */
	double norm_change;      /* r_run / r_base - 1; NAN unless normalised */
	double norm_p;           /* block-bootstrap p of r_run / r_base; NAN unless normalised */
	double change;           /* the judged change: norm_change, or raw_change in a fallback */
	double abs_change_ns;    /* change * median(B, baseline): the judged change in ns */
	double p_value;          /* the judged p: norm_p, or cmp.p_value in a fallback */
	double drift_base, drift_run; /* largest |A_k - A1| / A1; NAN under two A slots */
	double noise_floor;      /* max of the known drifts, 0 when neither is known */
	double a_change;         /* median(A) of the run over the baseline's, minus 1; NAN if
				  * absent: a hint that the machine, not the kernel, moved */
	bool a_moved;            /* normalised, and |a_change| > machine_moved_pct: the
				  * machine changed, so raw B must confirm a time verdict */
	bool underpowered;       /* so few samples that p < COMPARE_ALPHA is out of reach */
	int fewest;              /* fewest samples of any slot of the case, both runs; 0 if none */
	char fewest_slot[48];    /* which: "run B", "baseline A1" */
	bool time_regressed;
	bool lost_exact;
	bool run_exact;          /* every output of every slot of the run bit-exact, every call alike */
	bool nondeterministic;   /* a slot's outputs changed between its hashed calls (a lost_exact) */
	char exact_note[200];    /* what lost bit-exactness, for the table */
	enum gate_verdict verdict;
};

struct gate_options {
	double max_regression_pct;     /* > 0 */
	const char *threshold_source;  /* "device profile 'H200'", "--max-regression": printed */
	double machine_moved_pct;      /* > 0: the A arm moved beyond it (a_moved); 0 or NAN:
					* max_regression_pct */
	const char *machine_moved_source; /* where it came from, printed */
	double min_change_ns;          /* >= 0: the absolute floor (0: none) */
	const char *min_change_source; /* "device profile 'H200'", "--min-change-ns": printed */
	const char *baseline_name;     /* the baseline's name, NULL when given as a run */
	const char *only;              /* NULL, or the one case to check */
	int min_samples;               /* a slot below it cannot pass (0: GATE_MIN_SAMPLES) */
	const char *const *exclude;    /* case names left out of the check */
	int n_exclude;
};

struct gate_result {
	double max_regression_pct;
	double machine_moved_pct;      /* the bar a_moved was judged against, percent */
	double min_change_ns;
	int n_cases;
	struct gate_case *cases;
	int n_failed, n_time_regressed, n_lost_exact, n_missing, n_faster;
	int n_nondeterministic;        /* of the lost_exact: outputs that changed between calls */
	int n_raw;                     /* cases judged on raw B times (a fallback) */
	int min_samples;
	int n_inconclusive, n_not_measured;
	bool run_quick, base_quick;    /* made with --quick */
	char run_only[256];            /* the run's only_cases: it is partial */
};

/* Whether the gate could not pass for want of evidence: a --quick run or
 * baseline, an INCONCLUSIVE case, or a case a partial run did not measure. */
bool gate_inconclusive(const struct gate_result *r);

/* Judges run against base (their summaries; SUMMARY_NO_INTERVALS is
 * enough). AB_ERR_DATA for the mismatches above and when
 * `only` names a case the baseline does not have; AB_ERR_USAGE for a
 * threshold <= 0 or a min_change_ns < 0. Free the result with gate_result_free. */
enum ab_rc gate_check(const struct summary_run *base, const struct summary_run *run, const struct gate_options *o,
		      struct gate_result *out, struct ab_diag *d);
void gate_result_free(struct gate_result *r);

/* The gate's one verdict on the run: FAIL when a case failed, else
 * INCONCLUSIVE when gate_inconclusive, else PASS. */
enum gate_overall {
	GATE_OVERALL_PASS,
	GATE_OVERALL_FAIL,
	GATE_OVERALL_INCONCLUSIVE,
};
enum gate_overall gate_overall(const struct gate_result *r);

/* "PASS", "FAIL", "INCONCLUSIVE": the verdict's headline word. */
const char *gate_overall_str(enum gate_overall v);

/* The overall verdict as an exit status: AB_EXIT_OK, AB_EXIT_VERDICT,
 * AB_EXIT_INCONCLUSIVE. */
int gate_exit_status(const struct gate_result *r);

const char *gate_verdict_str(enum gate_verdict v);

#endif
