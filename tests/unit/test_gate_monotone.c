/*
 * test_gate_monotone.c - the gate's verdict is monotone in its threshold:
 * a case that fails at a threshold fails at every smaller one.
 *
 * Planted pairs (fixtures.h's fake runs: every slot a fixed pattern within
 * +-1% of its base, 30 samples, so that medians scale exactly): a baseline
 * with A at 100 us and B at 50 us, and runs whose A arm moved by a from
 * {-30, -8, -3, 0, +3, +8, +30}% and whose B arm moved in raw time by b
 * from {-10, 0, +3, +8, +15, +25}%, with and without an A2 10% off its A1
 * (a noise floor). Each pair is gated at 14 thresholds from 0.5% to 30%,
 * with the bar of "the A arm moved" fixed at 2% or 15% (the device
 * profile's threshold, as cmd_gate passes it), and the failing thresholds
 * must form one interval starting at the smallest. (2352 gates, each with
 * two block bootstraps: a few seconds.)
 *
 * The pair that showed the bug (issue 33, pair 3 of the CPU A/A check:
 * passed at 5%, failed at 10% and 15%) is rebuilt as A -8%, raw B +3%: its
 * B/A change is 1.03 / 0.92 - 1 = +11.96%. With the bar following the
 * threshold (machine_moved_pct 0: what the gate did before), at 5% the A
 * arm moved beyond it, raw B (+3%) must confirm and does not: pass; at 10%
 * it did not, B/A alone decides: fail. With the bar fixed at the CPU
 * profile's 15% it fails at 5% and 10% and passes at 15%.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/gate.h"
#include "fixtures.h"

static const struct fake_case BASE[] = { { "ln", 100e3, 50e3, 30, true } };

/* The run of the pair (a, b): A moved by a, raw B by b, A2 off by drift. */
static struct results_run *planted(double a, double b, double drift)
{
	const struct fake_case moved[] = { { "ln", 100e3 * (1 + a), 50e3 * (1 + b), 30, true } };
	struct results_run *r = fake_run(2, "glm_cpu", "cpu0", moved, 1);
	struct results_slot *a2 = &r->cases[0].slots[2];
	for (int i = 0; i < a2->n_samples; i++)
		a2->samples_ns[i] = fake_sample(100e3 * (1 + a) * (1 + drift), i);
	fake_slot_stats(a2);
	return r;
}

/* Whether the gate fails run against base at pct, the A arm's bar at
 * moved percent (0: the threshold itself). */
static bool fails(const struct summary_run *base, const struct summary_run *run, double pct, double moved)
{
	struct gate_options o = { .max_regression_pct = pct, .threshold_source = "test", .min_change_ns = 0,
				  .min_change_source = "test", .machine_moved_pct = moved,
				  .machine_moved_source = "test" };
	struct gate_result res;
	struct ab_diag d = { "" };
	if (gate_check(base, run, &o, &res, &d) != AB_OK)
		fail_msg("gate_check: %s", d.msg);
	bool failed = gate_overall(&res) == GATE_OVERALL_FAIL;
	gate_result_free(&res);
	return failed;
}

static void test_pair_3_rebuilt(void **state)
{
	(void)state;
	struct results_run *b = fake_run(1, "glm_cpu", "cpu0", BASE, 1), *r = planted(-0.08, 0.03, 0);
	struct summary_run *sb = fx_summary(b, SUMMARY_NO_INTERVALS), *sr = fx_summary(r, SUMMARY_NO_INTERVALS);
	/* the bar following the threshold: not monotone */
	assert_false(fails(sb, sr, 5, 0));
	assert_true(fails(sb, sr, 10, 0));
	assert_false(fails(sb, sr, 15, 0));
	/* the bar at the CPU profile's 15%: fails at 5 and 10, passes at 15 */
	assert_true(fails(sb, sr, 5, 15));
	assert_true(fails(sb, sr, 10, 15));
	assert_false(fails(sb, sr, 15, 15));
	/* at the bar's own threshold the rule is what it was */
	assert_true(fails(sb, sr, 15, 15) == fails(sb, sr, 15, 0));
	fx_summary_free(sb);
	fx_summary_free(sr);
	results_run_free(b);
	results_run_free(r);
}

static void test_sweep_is_monotone(void **state)
{
	(void)state;
	static const double a_moves[] = { -0.30, -0.08, -0.03, 0, 0.03, 0.08, 0.30 };
	static const double b_moves[] = { -0.10, 0, 0.03, 0.08, 0.15, 0.25 };
	static const double drifts[] = { 0, 0.10 };
	static const double bars[] = { 2, 15 };
	/* every place a verdict can change between 0.5% and 30% lies between
	 * two of these (the changes planted are multiples of 1%, their
	 * products and quotients not within 0.5% of a threshold here) */
	static const double thresholds[] = { 0.5, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30 };
	struct results_run *b = fake_run(1, "glm_cpu", "cpu0", BASE, 1);
	struct summary_run *sb = fx_summary(b, SUMMARY_NO_INTERVALS);
	int pairs = 0, failing_somewhere = 0;
	for (size_t i = 0; i < sizeof a_moves / sizeof *a_moves; i++)
		for (size_t j = 0; j < sizeof b_moves / sizeof *b_moves; j++)
			for (size_t k = 0; k < sizeof drifts / sizeof *drifts; k++) {
				struct results_run *r = planted(a_moves[i], b_moves[j], drifts[k]);
				struct summary_run *sr = fx_summary(r, SUMMARY_NO_INTERVALS);
				for (size_t m = 0; m < sizeof bars / sizeof *bars; m++) {
					bool passed_below = false, any = false;
					for (size_t n = 0; n < sizeof thresholds / sizeof *thresholds; n++) {
						double t = thresholds[n];
						bool f = fails(sb, sr, t, bars[m]);
						if (f && passed_below)
							fail_msg("A %+.0f%%, raw B %+.0f%%, drift %.0f%%, bar %.0f%%: "
								 "fails at %.1f%% after passing below",
								 100 * a_moves[i], 100 * b_moves[j], 100 * drifts[k],
								 bars[m], t);
						passed_below = passed_below || !f;
						any = any || f;
					}
					pairs++;
					failing_somewhere += any;
				}
				fx_summary_free(sr);
				results_run_free(r);
			}
	/* the sweep covers failing pairs, not only passing ones */
	assert_int_equal(pairs, 7 * 6 * 2 * 2);
	assert_true(failing_somewhere >= pairs / 4);
	fx_summary_free(sb);
	results_run_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair_3_rebuilt),
		cmocka_unit_test(test_sweep_is_monotone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
