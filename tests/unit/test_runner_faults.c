/*
 * test_runner_faults.c - the runner's error paths, driven through a backend
 * that is the CPU backend with one operation made to fail (runner_options
 * .ops): a device error in the middle of a slot (what a CUDA kernel fault
 * looks like to the runner: an AB_ERR_BACKEND from sample or slot_end)
 * marks the run 'failed' with the error's text and keeps only the cases
 * it finished, each whole (exit status 3); a signal during a slot marks it
 * 'interrupted'; a case too
 * large for memory is refused before the database is even created; the
 * case's name appears once in a message. The runner first calls every arm
 * of every case once (run_case_preflight: one untimed sample and one
 * slot_end each, 4 of each here): a device error there stops the run
 * before its row, with no database made and an existing one unchanged.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "config/scenario.h"
#include "run/runner.h"
#include "fixtures.h"

static char dir[64], dbpath[128];

static int setup(void **state)
{
	(void)state;
	if (fx_tmpdir_make(dir, sizeof dir, "runner_faults"))
		return -1;
	snprintf(dbpath, sizeof dbpath, "%s/f.db", dir);
	setenv("ABBENCH_LOCK_DIR", dir, 1);
	setenv("ABBENCH_FAKE_TIMER", "1", 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char lock[160];
	snprintf(lock, sizeof lock, "%s/f.db-wal", dir);
	unlink(lock);
	fx_tmpdir_remove(dir);
	return 0;
}

/* ---- a CPU backend that fails where told ------------------------------ */

enum fault { FAULT_SAMPLE, FAULT_SLOT_END, FAULT_SIGNAL };

static enum fault fault;
static int fail_at, calls; /* fail on the fail_at-th call (1-based) */
static struct backend_ops faulty;

static enum ab_rc device_error(struct ab_diag *d)
{
	/* As backend_cuda.c words a kernel's fault surfacing at a sync */
	return ab_fail(d, AB_ERR_BACKEND,
		       "case 'c2', arm 'fused', sample 3: cuda call 'cudaStreamSynchronize(b->stream)' failed: an "
		       "illegal memory access was encountered (code 700) at harness/backend/cuda/backend_cuda.c:412");
}

static enum ab_rc faulty_sample(struct backend *b, const struct site_variant *v, uint32_t id,
				struct attrib_collector *k, struct bk_sample *out, struct ab_diag *d)
{
	enum ab_rc rc = backend_cpu.sample(b, v, id, k, out, d);
	if (rc || fault == FAULT_SLOT_END || ++calls != fail_at)
		return rc;
	if (fault == FAULT_SIGNAL) {
		raise(SIGINT); /* the runner's handler only raises a flag */
		return AB_OK;
	}
	return fault == FAULT_SAMPLE ? device_error(d) : AB_OK;
}

static enum ab_rc faulty_slot_end(struct backend *b, struct attrib_collector *k, struct results_clocks *after,
				  struct ab_diag *d)
{
	enum ab_rc rc = backend_cpu.slot_end(b, k, after, d);
	if (!rc && fault == FAULT_SLOT_END && ++calls == fail_at)
		return device_error(d);
	return rc;
}

/* ---- running a scenario ----------------------------------------------- */

static const char scenario_text[] = "[scenario]\nname = faults\nbackend = cpu\nwarmup = 1\nmin_samples = 5\n"
				    "max_samples = 5\nl2_flush = false\n[arms]\na = eager\nb = fused\n"
				    "[case c1]\nsite = ln_modulate\nshape = 1x4x64\n"
				    "[case c2]\nsite = residual_gate_add\nshape = 1x4x64\n";

static enum ab_rc run(const char *text, int64_t *id, struct ab_diag *d)
{
	struct scenario *s;
	struct ab_diag pd;
	enum ab_rc rc = scenario_parse_text("faults.ini", text, &s, &pd);
	if (rc)
		fail_msg("scenario: %s", pd.msg);
	faulty = backend_cpu;
	faulty.sample = faulty_sample;
	faulty.slot_end = faulty_slot_end;
	calls = 0;
	struct runner_options o = { .db_path = dbpath, .command_line = "test", .ops = &faulty };
	struct runner_result res;
	rc = runner_scenario(s, &o, &res, d);
	*id = res.run_id;
	scenario_free(s);
	return rc;
}

static int64_t sql_int(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* The run is 'status' with an error containing what, never 'ok', and
 * keeps `kept` cases, each whole: 3 slots of 5 samples. */
static void assert_ended(int64_t id, const char *status, const char *what, int kept)
{
	char sql[256];
	snprintf(sql, sizeof sql,
		 "SELECT count(*) FROM runs WHERE id = %lld AND status = '%s' AND instr(error, '%s') > 0"
		 " AND finished_at IS NOT NULL",
		 (long long)id, status, what);
	assert_int_equal(sql_int(sql), 1);
	assert_int_equal(sql_int("SELECT count(*) FROM runs WHERE status = 'ok'"), 0);
	assert_int_equal(sql_int("SELECT count(*) FROM cases"), kept);
	assert_int_equal(sql_int("SELECT count(*) FROM slots"), 3 * kept);
	assert_int_equal(sql_int("SELECT count(*) FROM samples"), 3 * 5 * kept);
	assert_int_equal(sql_int("SELECT cases_planned FROM runs"), 2);
}

static void test_device_error_in_a_sample(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	int64_t id = 0;
	fault = FAULT_SAMPLE;
	fail_at = 30; /* in the second case: 4 calls before the run, then 3 slots x (1 warm-up + 5 samples) = 18 calls a case */
	enum ab_rc rc = run(scenario_text, &id, &d);
	assert_int_equal(rc, AB_ERR_BACKEND);
	assert_int_equal(ab_rc_exit_status(rc), AB_EXIT_FAILURE);
	assert_true(id > 0);
	assert_string_equal(d.msg, "case 'c2', arm 'fused', sample 3: cuda call 'cudaStreamSynchronize(b->stream)' "
				   "failed: an illegal memory access was encountered (code 700) at "
				   "harness/backend/cuda/backend_cuda.c:412");
	assert_ended(id, "failed", "an illegal memory access was encountered", 1); /* c1 finished */
}

static void test_device_error_at_slot_end(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	int64_t id = 0;
	fault = FAULT_SLOT_END;
	fail_at = 4 + 2; /* the run's second slot, after the 4 calls before it */
	enum ab_rc rc = run(scenario_text, &id, &d);
	assert_int_equal(rc, AB_ERR_BACKEND);
	assert_non_null(strstr(d.msg, "illegal memory access"));
	assert_ended(id, "failed", "(code 700)", 0);
}

static void test_signal_in_a_slot(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	int64_t id = 0;
	fault = FAULT_SIGNAL;
	fail_at = 8;
	/* run/interrupt.c leaves an ignored SIGINT ignored (nohup, a shell's
	 * background job): the test starts from the default, as a terminal's
	 * run does, whoever started it */
	signal(SIGINT, SIG_DFL);
	enum ab_rc rc = run(scenario_text, &id, &d);
	assert_int_equal(rc, AB_ERR_INTERRUPTED);
	assert_string_equal(d.msg, "case 'c1': interrupted by SIGINT");
	assert_ended(id, "interrupted", "interrupted by SIGINT", 0);
	/* the handlers are gone with the run: SIGINT is back to what it was */
	struct sigaction sa;
	sigaction(SIGINT, NULL, &sa);
	assert_true(sa.sa_handler == SIG_DFL);
}

/* A device error in the call every arm gets before the run (c2's a arm:
 * the third such call): exit status 3, no run row, no database made;
 * with a database there, nothing added to it. */
static void test_device_error_before_the_run(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	int64_t id = -1;
	fault = FAULT_SAMPLE;
	fail_at = 3;
	enum ab_rc rc = run(scenario_text, &id, &d);
	assert_int_equal(rc, AB_ERR_BACKEND);
	assert_int_equal(ab_rc_exit_status(rc), AB_EXIT_FAILURE);
	assert_int_equal(id, 0);
	assert_non_null(strstr(d.msg, "checking every arm before the run (nothing measured or stored): case 'c2', arm "));
	assert_int_equal(access(dbpath, F_OK), -1); /* not even created */
	assert_int_equal(calls, 3);                 /* nothing after it */

	fail_at = 0; /* a good run makes the database */
	assert_int_equal(run(scenario_text, &id, &d), AB_OK);
	fail_at = 3;
	assert_int_equal(run(scenario_text, &id, &d), AB_ERR_BACKEND);
	assert_int_equal(id, 0);
	assert_int_equal(sql_int("SELECT count(*) FROM runs"), 1);
	assert_int_equal(sql_int("SELECT count(*) FROM cases"), 2);
}

static void test_case_too_large_is_refused_first(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	int64_t id = 0;
	char text[sizeof scenario_text + 64];
	snprintf(text, sizeof text, "%s[case huge]\nsite = ln_modulate\nshape = 1x1000000x65536\n", scenario_text);
	fault = FAULT_SAMPLE;
	fail_at = 0;
	enum ab_rc rc = run(text, &id, &d);
	assert_int_equal(rc, AB_ERR_INPUT);
	assert_int_equal(ab_rc_exit_status(rc), AB_EXIT_USAGE);
	assert_int_equal(id, 0);
	assert_non_null(strstr(d.msg, "faults.ini:17: case 'huge' (site ln_modulate, shape 1x1000000x65536) needs "));
	assert_non_null(strstr(d.msg, "GiB of host memory and "));
	assert_int_equal(access(dbpath, F_OK), -1); /* not even created */
	assert_int_equal(calls, 0);                 /* nothing was measured */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_device_error_in_a_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_error_at_slot_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_in_a_slot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_error_before_the_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_case_too_large_is_refused_first, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
