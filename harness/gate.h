/*
 * gate.h - the nightly CI gate: a run against a baseline run, case by case.
 *
 * Both runs must be 'ok', of the same scenario name and the same device
 * name; anything else is AB_ERR_DATA (exit 2: CI must not mistake a
 * misconfigured job for a verdict). A case fails when
 *
 *   - its B arm (fused) regressed in time: median(run) / median(baseline) - 1
 *     exceeds max_regression_pct / 100 AND a two-sided Mann-Whitney U test
 *     gives p < CMP_ALPHA (0.01), so noise alone does not fail the gate;
 *   - it lost bit-exactness: an output of a slot that was bit-exact in the
 *     baseline is not in the run (or is gone), or any B-arm output of the run
 *     is not byte-equal to its bracket's first A slot;
 *   - it is in the baseline but missing from the run.
 *
 * Improvements never fail; they are reported. Cases only in the run are
 * listed as new. gate_exit_status is the contract CI reads: 0 every case
 * passed, 1 at least one failed.
 */
#ifndef AB_GATE_H
#define AB_GATE_H

#include <stdbool.h>
#include <stdio.h>

#include "compare.h"
#include "diag.h"
#include "results.h"

enum gate_verdict {
	GATE_PASS,
	GATE_FASTER,     /* improvement beyond the threshold, significant: reported, passes */
	GATE_NEW,        /* only in the run: passes */
	GATE_REGRESSED,  /* slower beyond the threshold, significant */
	GATE_LOST_EXACT,
	GATE_MISSING,
};

struct gate_case {
	char name[64];
	struct cmp_case cmp;     /* baseline = first, run = second */
	double change;           /* cmp.ratio.point - 1 */
	double a_change;         /* the same for the A arm (pooled), NAN if absent: a hint
				  * that the machine, not the kernel, moved */
	bool underpowered;       /* so few samples that p < CMP_ALPHA is out of reach */
	bool time_regressed;
	bool lost_exact;
	bool run_exact;          /* every output of every slot of the run bit-exact */
	char exact_note[160];    /* what lost bit-exactness, for the table */
	enum gate_verdict verdict;
};

struct gate_options {
	double max_regression_pct;     /* > 0 */
	const char *threshold_source;  /* "device profile 'H200'", "--max-regression": printed */
	const char *baseline_name;     /* the baseline's name, NULL when given as a run */
	const char *only;              /* NULL, or the one case to check */
	const char *const *exclude;    /* case names left out of the check */
	int n_exclude;
};

struct gate_result {
	double max_regression_pct;
	int n_cases;
	struct gate_case *cases;
	int n_failed, n_time_regressed, n_lost_exact, n_missing, n_faster;
};

/* Judges run against base. AB_ERR_DATA for the mismatches above and when
 * `only` names a case the baseline does not have; AB_ERR_USAGE for a
 * threshold <= 0. Free the result with gate_result_free. */
enum ab_rc gate_check(const struct res_run *base, const struct res_run *run, const struct gate_options *o,
		      struct gate_result *out, struct ab_diag *d);
void gate_result_free(struct gate_result *r);

/* AB_EXIT_OK or AB_EXIT_VERDICT. */
int gate_exit_status(const struct gate_result *r);

const char *gate_verdict_str(enum gate_verdict v);

/* The verdict as markdown: a headline (PASS/FAIL), the rule, and one row
 * per case (case, baseline, run, change %, p, bit-exact, verdict). */
enum ab_rc gate_print(FILE *f, const struct res_run *base, const struct res_run *run, const struct gate_options *o,
		      const struct gate_result *r, struct ab_diag *d);

/* One case name per line, of the cases that failed on time alone (the
 * ones worth measuring again); nothing when there are none. */
enum ab_rc gate_print_failing(FILE *f, const struct gate_result *r, struct ab_diag *d);

#endif
