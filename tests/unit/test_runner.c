/*
 * test_runner.c - a scenario's run from start to stored result, on the CPU
 * backend with the fake timer and a scenario held in memory: the run row
 * 'ok' with its header (label, scenario text and hash, backend, bracket,
 * arms, [model], launch gaps, the backend's own notes, the device), every
 * case and slot stored in order; a --backend override; a --quick run and
 * the quick sampling rule; an arm that cannot run is refused by the call
 * every arm gets before the run, with no row and no database; a setup
 * that fails (the database's directory or the dump directory unusable)
 * leaves no database.
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
#include <unistd.h>

#include <cmocka.h>

#include "config/scenario.h"
#include "run/runner.h"
#include "store/store.h"
#include "fixtures.h"

static const char *const SCN = "[scenario]\n"
			       "name = rn\n"
			       "backend = cuda\n"
			       "bracket = ABA\n"
			       "seed = 5\n"
			       "warmup = 1\n"
			       "min_samples = 3\n"
			       "max_samples = 12\n"
			       "min_time_ms = 0.001\n"
			       "max_time_ms = 60000\n"
			       "target_noise = 0.0000001\n"
			       "launch_gaps = hide\n"
			       "[arms]\n"
			       "a = eager\n"
			       "b = fused\n"
			       "[model]\n"
			       "steps = 4\n"
			       "forwards_per_step = 2\n"
			       "[case ln]\n"
			       "site = ln_modulate\n"
			       "shape = 1x16x256\n"
			       "[case rga]\n"
			       "site = residual_gate_add\n"
			       "shape = 1x16x256\n";

static char dir[96], db[160];

static int setup(void **state)
{
	(void)state;
	setenv("ABBENCH_FAKE_TIMER", "1", 1);
	if (fx_tmpdir_make(dir, sizeof dir, "runner"))
		return -1;
	snprintf(db, sizeof db, "%s/ab.db", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fx_tmpdir_remove(dir);
	unsetenv("ABBENCH_FAKE_TIMER");
	return 0;
}

static struct scenario *parse(void)
{
	struct scenario *s;
	struct ab_diag d;
	if (scenario_parse_text("rn.ini", SCN, &s, &d) != AB_OK)
		fail_msg("parse: %s", d.msg);
	return s;
}

/* The options of `run --backend cpu --label t` on the database. */
static struct runner_options cpu_options(void)
{
	return (struct runner_options){ .ops = &backend_cpu, .db_path = db, .label = "t",
					.command_line = "abbench run rn.ini --backend cpu --label t" };
}

/* runner_scenario, with the run's id in *id (0: no row was written). */
static enum ab_rc run_scenario(const struct scenario *s, const struct runner_options *o, int64_t *id,
			       struct ab_diag *d)
{
	struct runner_result res;
	enum ab_rc rc = runner_scenario(s, o, &res, d);
	*id = res.run_id;
	return rc;
}

static struct results_run *load(int64_t id)
{
	struct store *st;
	struct results_run *r = NULL;
	struct ab_diag d;
	if (store_open(db, false, &st, &d) != AB_OK || store_load_run(st, id, &r, &d) != AB_OK)
		fail_msg("load: %s", d.msg);
	store_close(st);
	return r;
}

static void test_run_stored(void **state)
{
	(void)state;
	struct scenario *s = parse();
	struct runner_options o = cpu_options();
	struct ab_diag d = { "" };
	int64_t id = -1;
	assert_int_equal(run_scenario(s, &o, &id, &d), AB_OK);
	assert_true(id > 0);
	struct results_run *r = load(id);
	assert_string_equal(r->status, "ok");
	assert_string_equal(r->error, "");
	assert_string_equal(r->label, "t");
	assert_string_equal(r->scenario_name, "rn");
	assert_string_equal(r->scenario_text, SCN);
	assert_int_equal(strlen(r->scenario_hash), 64);
	assert_string_equal(r->scenario_hash, s->hash);
	assert_string_equal(r->command_line, "abbench run rn.ini --backend cpu --label t");
	assert_string_equal(r->backend, "cpu"); /* the override beats the scenario's cuda */
	assert_string_equal(r->device.backend, "cpu");
	assert_string_equal(r->device.name, "CPU fake timer (ABBENCH_FAKE_TIMER=1)");
	assert_string_equal(r->notes, ""); /* the CPU backend's own notes */
	assert_string_equal(r->bracket, "ABA");
	assert_string_equal(r->arm_a, "eager");
	assert_string_equal(r->arm_b, "fused");
	assert_string_equal(r->launch_gaps, "hide");
	assert_true(r->l2_flush);
	assert_false(r->quick);
	assert_int_equal(r->steps, 4);
	assert_int_equal(r->forwards_per_step, 2);
	assert_true(r->started_at[0] && r->finished_at[0] && r->git_commit[0] && r->version[0] && r->host[0]);
	assert_int_equal(r->n_cases, 2);
	assert_string_equal(r->cases[0].name, "ln");
	assert_string_equal(r->cases[1].name, "rga");
	for (int i = 0; i < 2; i++) {
		const struct results_case *c = &r->cases[i];
		assert_int_equal(c->n_slots, 3);
		assert_string_equal(c->slots[0].label, "A1");
		assert_string_equal(c->slots[1].label, "B");
		assert_string_equal(c->slots[2].label, "A2");
		for (int k = 0; k < 3; k++) {
			assert_int_equal(c->slots[k].n_samples, 12);
			assert_string_equal(c->slots[k].stopping_reason, "max_samples");
			assert_true(c->slots[k].outputs[0].bit_exact);
			assert_string_equal(c->slots[k].outputs[0].md5, c->slots[0].outputs[0].md5);
		}
	}
	results_run_free(r);
	scenario_free(s);
}

static void test_quick(void **state)
{
	(void)state;
	struct scenario_sampling from = { .warmup = 5, .min_samples = 10, .max_samples = 1000, .min_time_ms = 500,
					  .max_time_ms = 15000, .target_noise = 0.005 };
	struct scenario_sampling q = runner_quick_sampling(&from);
	assert_int_equal(q.warmup, 1);
	assert_int_equal(q.min_samples, 3);
	assert_int_equal(q.max_samples, 10);
	assert_true(q.min_time_ms == 0 && q.max_time_ms == 1000 && q.target_noise == 0.005);
	from = (struct scenario_sampling){ .warmup = 0, .min_samples = 1, .max_samples = 2, .min_time_ms = 1,
					   .max_time_ms = 50 };
	q = runner_quick_sampling(&from);
	assert_int_equal(q.warmup, 0);
	assert_int_equal(q.max_samples, 3); /* raised to the quick minimum */
	assert_true(q.max_time_ms == 50);

	struct scenario *s = parse();
	struct runner_options o = cpu_options();
	struct ab_diag d;
	int64_t id;
	o.quick = true;
	assert_int_equal(run_scenario(s, &o, &id, &d), AB_OK);
	struct results_run *r = load(id);
	assert_true(r->quick);
	assert_int_equal(r->cases[0].slots[1].n_samples, 10);
	assert_int_equal(r->cases[0].slots[1].warmup, 1);
	results_run_free(r);
	scenario_free(s);
}

/* An arm that cannot run is found by the call every arm gets before the
 * run: nothing is measured, no row written, no database made (a failure
 * while measuring, with its row marked failed, is test_runner_faults'). */
static void test_broken_arm_before_the_run(void **state)
{
	(void)state;
	struct scenario *s = parse();
	struct runner_options o = cpu_options();
	struct ab_diag d = { "" };
	int64_t id = -1;
	snprintf(s->cases[1].arm_b, sizeof s->cases[1].arm_b, "nope");
	assert_int_equal(run_scenario(s, &o, &id, &d), AB_ERR_INPUT);
	assert_int_equal(id, 0);
	assert_string_equal(d.msg, "checking every arm before the run (nothing measured or stored): case 'rga': site "
				   "'residual_gate_add' has no variant 'nope'");
	assert_int_equal(access(o.db_path, F_OK), -1);
	scenario_free(s);
}

/* Setup failures come before any row: no database is even created. */
static void test_bad_setup_leaves_nothing(void **state)
{
	(void)state;
	struct scenario *s = parse();
	struct runner_options o = cpu_options();
	struct ab_diag d = { "" };
	char bad_db[200], file[200], dump[220];
	int64_t id = -1;
	snprintf(bad_db, sizeof bad_db, "%s/no/such/dir/ab.db", dir);
	o.db_path = bad_db;
	assert_int_not_equal(run_scenario(s, &o, &id, &d), AB_OK);
	assert_int_equal(id, 0);
	assert_int_equal(access(bad_db, F_OK), -1);

	snprintf(file, sizeof file, "%s/a-file", dir);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(dump, sizeof dump, "%s/dump", file); /* under a plain file */
	o = cpu_options();
	o.dump_dir = dump;
	id = -1;
	assert_int_not_equal(run_scenario(s, &o, &id, &d), AB_OK);
	assert_int_equal(id, 0);
	assert_int_equal(access(db, F_OK), -1);
	scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_stored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quick, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken_arm_before_the_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_setup_leaves_nothing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
