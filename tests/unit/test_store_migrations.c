/*
 * test_store_migrations.c - the store's schema versions: a version out of
 * range refused, and files made at older versions (1, 4, 7, 9) opened,
 * migrated and read back with every row kept. Apart from test_store.c
 * because each test builds an old file by hand, rows of SQL that only the
 * migrations need; the fixture is store_fixture.h.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "common/results.h"
#include "store/store.h"
#include "store_fixture.h"

/* ---- tests -------------------------------------------------------------- */

static void test_schema_version(void **state)
{
	(void)state;
	struct store *st = open_db();
	store_close(st);
	assert_true(store_schema_version() >= 2);
	assert_int_equal(sql_int("PRAGMA user_version"), store_schema_version());
	assert_int_equal(sql_int("SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
	/* reopening an up-to-date file is fine, with or without create */
	struct ab_diag d = { "" };
	assert_int_equal(store_open(dbpath, false, &st, &d), AB_OK);
	store_close(st);

	sql_exec("PRAGMA user_version = 99");
	st = (struct store *)&d; /* must be reset to NULL on failure */
	assert_int_equal(store_open(dbpath, true, &st, &d), AB_ERR_DATA);
	assert_null(st);
	char want[96];
	snprintf(want, sizeof want, "has schema version 99, this abbench knows up to %d", store_schema_version());
	assert_non_null(strstr(d.msg, want));

	/* a negative version is refused as well, never used as an index */
	sql_exec("PRAGMA user_version = -1");
	assert_int_equal(store_open(dbpath, true, &st, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "has schema version -1, which no abbench writes"));
	assert_int_equal(store_open_readonly(dbpath, &st, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "has schema version -1"));
	sql_exec("PRAGMA user_version = -2147483648");
	assert_int_equal(store_open(dbpath, false, &st, &d), AB_ERR_DATA);
	assert_null(st);
}

/* A file made at schema version (1: the first) holding device 1 and run
 * 1, 'old', of arms a and b, as that version's abbench wrote them (a
 * uuid from version 2 on). */
static void old_db_with_run(int version, const char *a, const char *b)
{
	struct store *st = NULL;
	struct ab_diag d = { "" };
	char sql[1024];
	assert_int_equal(store_open_version(dbpath, version, &st, &d), AB_OK);
	store_close(st);
	assert_int_equal(sql_int("PRAGMA user_version"), version);
	snprintf(sql, sizeof sql,
		 "INSERT INTO devices (id, name, uuid, backend, cc_major, cc_minor, sm_count, l2_bytes, mem_bytes,"
		 " driver_version, runtime_version, default_sm_mhz) VALUES (1, 'CPU', '', 'cpu', 0, 0, 0, 0, 0, '', '', 0);"
		 "INSERT INTO runs (id, %sstarted_at, finished_at, status, label, scenario_name, scenario_path,"
		 " scenario_hash, git_commit, host, backend, version, quick, bracket, arm_a, arm_b, steps,"
		 " forwards_per_step, launch_gaps, l2_flush, device_id) VALUES (1, %s'2025-01-01T00:00:01Z',"
		 " '2025-01-01T00:00:02Z', 'ok', 'old', 'smoke', 's.ini', '', 'abc', 'h', 'cpu', '0.1', 0, 'ABA',"
		 " '%s', '%s', 1, 1, 'include', 1, 1)",
		 version >= 2 ? "uuid, " : "", version >= 2 ? "'00000000-0000-4000-8000-000000000001', " : "", a, b);
	sql_exec(sql);
}

/* A version-1 file (the first schema, before runs.only_cases) with a run
 * in it: opening it applies every later migration, and the old run reads
 * back as a run of every case. */
static void test_migration_only_cases(void **state)
{
	(void)state;
	struct store *st = NULL;
	struct ab_diag d = { "" };
	old_db_with_run(1, "eager", "fused");
	assert_int_equal(sql_int("SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'only_cases'"), 0);

	struct results_run *back = NULL;
	assert_int_equal(store_open(dbpath, false, &st, &d), AB_OK);
	assert_int_equal(sql_int("PRAGMA user_version"), store_schema_version());
	assert_int_equal(sql_int("SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'only_cases'"), 1);
	assert_int_equal(store_load_run(st, 1, &back, &d), AB_OK);
	assert_string_equal(back->only_cases, "");
	assert_string_equal(back->label, "old");
	results_run_free(back);
	store_close(st);
	assert_int_equal(store_open_version(dbpath, store_schema_version() + 1, &st, &d), AB_ERR_USAGE);
}

/* A version-7 file (run_arms keyed by (run, side), its kind CHECK widened
 * to python in place) with a python and a plugin arm: the later migration
 * that rebuilds run_arms keyed by (run, side, name) keeps both rows and
 * python among the kinds, and the kind stays text that is not empty. */
static void test_migration_of_python_arms(void **state)
{
	(void)state;
	struct store *st = NULL;
	struct ab_diag d = { "" };
	old_db_with_run(7, "rga_np", "rga_exact");
	assert_int_equal(sql_int("SELECT count(*) FROM pragma_table_info('cases') WHERE name = 'arm_a'"), 0);
	sql_exec("INSERT INTO run_arms (run_id, arm, name, kind, path, sha256, detail) VALUES"
		 " (1, 'a', 'rga_np', 'python', '/x/rga.py', 'ab12', 'function ''rga_np''; python 3.11'),"
		 " (1, 'b', 'rga_exact', 'plugin', '/x/lib.so', 'cd34', 'arm ''rga_exact''')");

	assert_int_equal(store_open(dbpath, false, &st, &d), AB_OK);
	assert_int_equal(sql_int("PRAGMA user_version"), store_schema_version());
	struct results_run *back = NULL;
	assert_int_equal(store_load_run(st, 1, &back, &d), AB_OK);
	assert_int_equal(back->n_arm_sources, 2);
	assert_int_equal(back->arm_sources[0].arm, 'a');
	assert_string_equal(back->arm_sources[0].kind, "python");
	assert_string_equal(back->arm_sources[0].detail, "function 'rga_np'; python 3.11");
	assert_string_equal(back->arm_sources[1].kind, "plugin");
	results_run_free(back);
	store_close(st);
	/* keyed by name now: a second python arm on side a; no kind empty */
	sql_exec("INSERT INTO run_arms (run_id, arm, name, kind, path, sha256, detail) VALUES"
		 " (1, 'a', 'other', 'python', '/x/o.py', 'ef56', '')");
	assert_int_equal(sql_try("INSERT INTO run_arms (run_id, arm, name, kind, path, sha256, detail) VALUES"
				 " (1, 'b', 'k', '', '/x/k', 'ef56', '')"),
			 SQLITE_CONSTRAINT);
	assert_int_equal(sql_int("SELECT count(*) FROM run_arms WHERE kind = 'python'"), 2);
}

/* A version-9 file (run_arms.kind CHECKed against a list of kinds) with a
 * run of a python and a cubin arm, and a run labelled as scripts/nightly.sh
 * labelled its re-measurements: the migration that drops the list keeps
 * every row of run_arms, and kinds are then any kind's name (the store
 * checks the name on write and load, not a list); the nightly's old
 * re-measurement run reads as a recheck, the other not. */
static void test_migration_of_kinds_and_rechecks(void **state)
{
	(void)state;
	struct store *st = NULL;
	struct ab_diag d = { "" };
	old_db_with_run(9, "rga_np", "rga_k");
	assert_int_equal(sql_int("SELECT count(*) FROM sqlite_master WHERE name = 'run_arms'"
				 " AND sql LIKE '%kind IN (''plugin'', ''cubin'', ''python'')%'"),
			 1);
	sql_exec("INSERT INTO run_arms (run_id, arm, name, kind, path, sha256, detail) VALUES"
		 " (1, 'a', 'rga_np', 'python', '/x/rga.py', 'ab12', 'function ''rga_np''; python 3.11'),"
		 " (1, 'b', 'rga_k', 'cubin', '/x/k.cubin', 'cd34', 'cubin kernel ''k''')");
	sql_exec("INSERT INTO runs (id, uuid, started_at, finished_at, status, label, scenario_name, scenario_path,"
		 " scenario_hash, git_commit, host, backend, version, quick, bracket, arm_a, arm_b, steps,"
		 " forwards_per_step, launch_gaps, l2_flush, device_id) VALUES (2, '00000000-0000-4000-8000-000000000002',"
		 " '2025-01-01T00:00:03Z', '2025-01-01T00:00:04Z', 'ok', 'nightly-1-recheck', 'smoke', 's.ini', '', 'abc',"
		 " 'h', 'cpu', '0.1', 0, 'ABA', 'eager', 'fused', 1, 1, 'include', 1, 1)");
	assert_int_equal(sql_try("INSERT INTO run_arms (run_id, arm, name, kind, path, sha256, detail) VALUES"
				 " (1, 'b', 'g', 'onnx', '/x/g', 'ef56', '')"),
			 SQLITE_CONSTRAINT); /* the list, before */

	assert_int_equal(store_open(dbpath, false, &st, &d), AB_OK);
	assert_int_equal(sql_int("PRAGMA user_version"), store_schema_version());
	assert_int_equal(sql_int("SELECT count(*) FROM sqlite_master WHERE sql LIKE '%kind IN%'"), 0);
	struct results_run *back = NULL;
	assert_int_equal(store_load_run(st, 1, &back, &d), AB_OK);
	assert_int_equal(back->n_arm_sources, 2);
	assert_string_equal(back->arm_sources[0].kind, "python");
	assert_string_equal(back->arm_sources[0].detail, "function 'rga_np'; python 3.11");
	assert_string_equal(back->arm_sources[1].kind, "cubin");
	assert_string_equal(back->arm_sources[1].path, "/x/k.cubin");
	assert_false(back->recheck);
	results_run_free(back);
	assert_int_equal(store_load_run(st, 2, &back, &d), AB_OK);
	assert_true(back->recheck);
	results_run_free(back);
	store_close(st);
	assert_int_equal(sql_int("SELECT count(*) FROM runs WHERE recheck = 1"), 1);

	/* a kind the list did not have: stored, and read back */
	sql_exec("INSERT INTO run_arms (run_id, arm, name, kind, path, sha256, detail) VALUES"
		 " (1, 'b', 'g', 'onnx', '/x/g', 'ef56', '')");
	assert_int_equal(store_open(dbpath, false, &st, &d), AB_OK);
	assert_int_equal(store_load_run(st, 1, &back, &d), AB_OK);
	assert_int_equal(back->n_arm_sources, 3);
	results_run_free(back);
	/* a kind that is not a kind's name is refused on load */
	sql_exec("UPDATE run_arms SET kind = 'Not A Kind' WHERE name = 'g'");
	assert_int_not_equal(store_load_run(st, 1, &back, &d), AB_OK);
	assert_non_null(strstr(d.msg, "kind 'Not A Kind' is not the name of a kind of arm"));
	store_close(st);
	assert_int_equal(sql_try("INSERT INTO run_arms (run_id, arm, name, kind, path, sha256, detail) VALUES"
				 " (1, 'b', 'e', '', '/x/e', 'ef56', '')"),
			 SQLITE_CONSTRAINT);
	assert_int_equal(sql_try("UPDATE runs SET recheck = 2 WHERE id = 1"), SQLITE_CONSTRAINT);
}

/* A file at schema version 4 (made here by dropping what migration 5
 * adds): opening it migrates it, keeps its run readable with the new
 * fields at their defaults, and marks runs of the fake timer's device. */
static void test_migration_of_sweeps(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct results_run *r = make_run("old", "2025-01-01T00:00:00Z", "cpu-h", 0);
	snprintf(r->device.name, sizeof r->device.name, "CPU fake timer (ABBENCH_FAKE_TIMER=1)");
	snprintf(r->device.backend, sizeof r->device.backend, "cpu");
	begin(st, r);
	finish(st, r);
	store_close(st);
	static const char *const added[] = { "cases.sweep", "cases.axis", "cases.axis_value", "cases.bytes_min",
					     "cases.bytes_a", "cases.bytes_b", "runs.fake_timer", "runs.device_index",
					     "runs.noise_measure", "runs.pid", "runs.process", "runs.cases_planned",
					     "runs.resumed", "cases.copy_floor_ns", "cases.copy_floor_kernel_ns",
					     "cases.copy_floor_method", "cases.copy_floor_samples",
					     "cases.copy_floor_detail", "runs.timing", "cases.arm_a", "cases.arm_b",
					     "outputs.has_ref", "runs.recheck", "runs.env", "run_arms.function",
					     "run_arms.versions", "samples.host_ns", "slots.host_median_ns",
					     "slots.host_p90_ns" };
	/* Back to version 4: migrations 6 (run owners), 8 (cases planned, the
	 * copy floor, timing), 9 (arms per case, outputs without a reference;
	 * run_arms keeps its rebuilt form, which 7, python among the kinds,
	 * leaves as it is), 10 (rechecks; 9 and 10 rebuild run_arms again),
	 * 11 (env, an arm's function and versions), 12 (divergence, slot
	 * checks, invariance: its tables dropped below) and 13 (host time)
	 * are undone too. */
	sql_exec("DROP INDEX runs_status");
	sql_exec("DROP TABLE divergence"); /* and migration 12's tables */
	sql_exec("DROP TABLE slot_checks");
	sql_exec("DROP TABLE invariance");
	for (size_t i = 0; i < sizeof added / sizeof added[0]; i++) {
		char sql[128];
		const char *dot = strchr(added[i], '.');
		snprintf(sql, sizeof sql, "ALTER TABLE %.*s DROP COLUMN %s", (int)(dot - added[i]), added[i], dot + 1);
		sql_exec(sql);
	}
	sql_exec("PRAGMA user_version = 4");

	st = open_db();
	assert_int_equal(sql_int("PRAGMA user_version"), store_schema_version());
	struct results_run *back = NULL;
	struct ab_diag d = { "" };
	assert_int_equal(store_load_run(st, r->id, &back, &d), AB_OK);
	assert_true(back->fake_timer);
	assert_int_equal(back->device_index, 0);
	assert_string_equal(back->noise_measure, "mean"); /* the rule of every run before it */
	assert_string_equal(back->cases[1].sweep, "");
	assert_true(back->cases[1].axis_value == 0 && back->cases[1].bytes_a == 0);
	assert_string_equal(back->cases[1].shape, r->cases[1].shape);
	/* before 9: every case ran the run's arms, every output had a reference */
	assert_string_equal(back->cases[1].arm_a, r->arm_a);
	assert_string_equal(back->cases[1].arm_b, r->arm_b);
	assert_true(back->cases[1].slots[0].outputs[0].has_ref);
	assert_string_equal(back->env, ""); /* before 11: nothing recorded */
	/* before 12: no divergence, nothing compared or hashed, no invariance */
	assert_int_equal(back->cases[1].slots[1].n_div, 0);
	assert_int_equal(back->cases[1].slots[1].check.calls_checked, 0);
	assert_string_equal(back->cases[1].slots[1].check.compared, "");
	assert_false(back->cases[1].inv[1].checked);
	/* before 13: no host time measured */
	assert_true(isnan(back->cases[1].slots[0].host_median_ns) && isnan(back->cases[1].slots[0].host_ns[0]));
	results_run_free(back);
	results_run_free(r);
	store_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_schema_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_only_cases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_of_python_arms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_of_kinds_and_rechecks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_of_sweeps, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
