/*
 * test_peers.c - a report's peers (analysis/peers.h): which runs are
 * picked from a listing, and the table of their cases and md5 agreement.
 *
 * Picking: from a listing newest first, the newest 'ok' run of the
 * reported run's scenario on each other device, never a quick or
 * fake-timer run, and none at all for a fake-timer run. The table: run 1
 * has cases x and y, its peer run 2 has x (its B output's md5 differs:
 * fake_run's b_exact = false) and z; so x compares 3 outputs (A1, B, A2),
 * 1 of which differs, over 1 run, and y is in no peer: 0 compared.
 *
 * What sets them apart (peers_axis): the same arms on two devices are
 * GPUs; on one device, repeated runs; a case whose B arm differs in a peer
 * makes them runs of different arms, whatever the devices (report of runs
 * that differ in arms must not call them GPUs).
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

#include "analysis/peers.h"
#include "fixtures.h"

static void test_pick_peers(void **state)
{
	(void)state;
	/* newest first: the newest ok run of smoke on each other device */
	const struct results_run_summary list[] = {
		{ .id = 9, .status = "ok", .scenario_name = "smoke", .device = "NVIDIA H200" },
		{ .id = 8, .status = "failed", .scenario_name = "smoke", .device = "NVIDIA A100" },
		{ .id = 7, .status = "ok", .scenario_name = "glm_1024", .device = "NVIDIA A100" },
		{ .id = 6, .status = "ok", .scenario_name = "smoke", .device = "NVIDIA A100" },
		{ .id = 5, .status = "ok", .scenario_name = "smoke", .device = "CPU Xeon" },
		{ .id = 4, .status = "ok", .scenario_name = "smoke", .device = "NVIDIA A100" },
		{ .id = 3, .status = "ok", .scenario_name = "smoke", .device = "CPU Xeon" },
	};
	const struct fake_case fc[] = { { "x", 100, 50, 5, true } };
	struct results_run *r = fake_run(9, "smoke", "NVIDIA H200", fc, 1);
	int64_t ids[8];
	int n = peers_pick(list, 7, r, ids, 8);
	assert_int_equal(n, 2);
	assert_true(ids[0] == 6 && ids[1] == 5);
	assert_int_equal(peers_pick(list, 7, r, ids, 1), 1);
	/* quick and fake-timer runs are never picked: the next ok run of that
	 * device is; and a fake-timer run gets no peers */
	const struct results_run_summary list2[] = {
		{ .id = 9, .status = "ok", .scenario_name = "smoke", .device = "NVIDIA H200" },
		{ .id = 8, .status = "ok", .scenario_name = "smoke", .device = "NVIDIA A100", .quick = true },
		{ .id = 7, .status = "ok", .scenario_name = "smoke", .device = "CPU fake", .fake_timer = true },
		{ .id = 6, .status = "ok", .scenario_name = "smoke", .device = "NVIDIA A100" },
	};
	assert_int_equal(peers_pick(list2, 4, r, ids, 8), 1);
	assert_true(ids[0] == 6);
	r->fake_timer = true;
	assert_int_equal(peers_pick(list2, 4, r, ids, 8), 0);
	results_run_free(r);
}

static void test_table(void **state)
{
	(void)state;
	const struct fake_case own[] = { { "x", 100, 50, 5, true }, { "y", 100, 50, 5, true } };
	const struct fake_case other[] = { { "z", 100, 50, 5, true }, { "x", 100, 60, 5, false } };
	struct results_run *a = fake_run(1, "s", "GPU A", own, 2), *b = fake_run(2, "s", "GPU B", other, 2);
	struct summary_run *sa = fx_summary(a, SUMMARY_NO_INTERVALS), *sb = fx_summary(b, SUMMARY_NO_INTERVALS);
	const struct summary_run *series[] = { sa, sb };
	struct peers_table t;
	struct ab_diag d = { "" };
	assert_int_equal(peers_table_build(series, 2, &t, &d), AB_OK);
	assert_int_equal(t.n_cases, 2);
	assert_int_equal(t.n_series, 2);
	assert_ptr_equal(peers_cell(&t, 0, 0), &sa->cases[0]);
	assert_ptr_equal(peers_cell(&t, 0, 1), &sb->cases[1]);
	assert_null(peers_cell(&t, 1, 1));
	assert_int_equal(t.md5[0].compared, 3);
	assert_int_equal(t.md5[0].differ, 1);
	assert_int_equal(t.md5[0].runs, 1);
	assert_int_equal(t.md5[1].compared, 0);
	assert_int_equal(t.md5[1].runs, 0);
	peers_table_free(&t);
	fx_summary_free(sa);
	fx_summary_free(sb);
	results_run_free(a);
	results_run_free(b);
}

static enum peers_axis axis_of(struct results_run *a, struct results_run *b, int *n_differ)
{
	struct summary_run *sa = fx_summary(a, SUMMARY_NO_INTERVALS), *sb = fx_summary(b, SUMMARY_NO_INTERVALS);
	const struct summary_run *series[] = { sa, sb };
	struct peers_table t;
	struct ab_diag d = { "" };
	assert_int_equal(peers_table_build(series, b ? 2 : 1, &t, &d), AB_OK);
	enum peers_axis axis = t.axis;
	*n_differ = t.n_arms_differ;
	peers_table_free(&t);
	fx_summary_free(sa);
	fx_summary_free(sb);
	return axis;
}

static void test_axis(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "x", 100, 50, 5, true }, { "y", 100, 50, 5, true } };
	struct results_run *a = fake_run(1, "s", "NVIDIA H100", fc, 2), *b = fake_run(2, "s", "NVIDIA H200", fc, 2);
	int n;
	assert_int_equal(axis_of(a, b, &n), PEERS_GPUS);
	assert_int_equal(n, 0);
	snprintf(b->device.name, sizeof b->device.name, "NVIDIA H100");
	assert_int_equal(axis_of(a, b, &n), PEERS_RUNS);
	/* case y's B arm is another in run 2: arms, on one device or two */
	snprintf(b->cases[1].arm_b, sizeof b->cases[1].arm_b, "twopass");
	assert_int_equal(axis_of(a, b, &n), PEERS_ARMS);
	assert_int_equal(n, 1);
	snprintf(b->device.name, sizeof b->device.name, "NVIDIA H200");
	assert_int_equal(axis_of(a, b, &n), PEERS_ARMS);
	/* the run's own arms changed for every case that names none */
	snprintf(b->cases[1].arm_b, sizeof b->cases[1].arm_b, "fused");
	snprintf(b->arm_b, sizeof b->arm_b, "fused.r1");
	for (int i = 0; i < 2; i++)
		b->cases[i].arm_b[0] = '\0';
	assert_int_equal(axis_of(a, b, &n), PEERS_ARMS);
	assert_int_equal(n, 2);
	results_run_free(a);
	results_run_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick_peers),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_axis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
