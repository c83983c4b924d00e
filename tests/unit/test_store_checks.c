/*
 * test_store_checks.c - what the store refuses or leaves untouched: a file
 * that is not an abbench database, a missing one, the read-only open that
 * writes nothing, stored rows edited so that they cannot be read as they
 * stand, text that is not valid UTF-8 or does not fit, labels and baseline
 * names with control characters. Apart from test_store.c because these
 * tests feed the store bad files and bad text, not runs to read back; the
 * fixture is store_fixture.h.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "common/results.h"
#include "common/utf8.h"
#include "store/store.h"
#include "store_fixture.h"

/* ---- files ------------------------------------------------------------- */

/* The read-only open writes nothing: a database in rollback-journal mode
 * stays so (no WAL switch), its bytes and its mtime do not change, no
 * -wal, -shm or -journal appears; an older schema is reported, not
 * migrated; and the store refuses to write through it. */
static void test_read_only_open(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct results_run *r = make_run("x", "2025-01-01T00:00:03Z", "GPU-1", 0);
	begin(st, r);
	finish(st, r);
	store_close(st);
	sql_exec("PRAGMA journal_mode = DELETE");
	struct stat before, after;
	char side[160];
	assert_int_equal(stat(dbpath, &before), 0);
	sleep(1); /* an mtime change would show at second resolution too */
	struct ab_diag d = { "" };
	assert_int_equal(store_open_readonly(dbpath, &st, &d), AB_OK);
	assert_true(store_is_read_only(st));
	struct results_run *back = NULL;
	assert_int_equal(store_resolve_load(st, "last", &back, &d), AB_OK);
	assert_int_equal(back->n_cases, 2);
	results_run_free(back);
	assert_int_equal(store_baseline_set(st, "nightly", r->id, &d), AB_ERR_DB);
	assert_non_null(strstr(d.msg, "readonly"));
	store_close(st);
	assert_int_equal(stat(dbpath, &after), 0);
	assert_int_equal(before.st_size, after.st_size);
	assert_int_equal(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
	assert_int_equal(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
	for (int i = 0; i < 3; i++) {
		snprintf(side, sizeof side, "%s%s", dbpath, (const char *[]){ "-wal", "-shm", "-journal" }[i]);
		assert_int_equal(access(side, F_OK), -1);
	}
	assert_int_equal(sql_int("SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'delete'"), 1);

	sql_exec("PRAGMA user_version = 1");
	assert_int_equal(store_open_readonly(dbpath, &st, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "needs migrating"));
	assert_int_equal(store_open_readonly("/nonexistent-dir/x.db", &st, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "no database"));
	results_run_free(r);
}

static void test_not_a_database(void **state)
{
	(void)state;
	FILE *f = fopen(dbpath, "w");
	assert_non_null(f);
	for (int i = 0; i < 100; i++)
		fputs("case,site,shape\nthis is not sqlite\n", f);
	fclose(f);
	struct store *st = NULL;
	struct ab_diag d = { "" };
	assert_int_equal(store_open(dbpath, true, &st, &d), AB_ERR_DATA);
	assert_null(st);
	assert_non_null(strstr(d.msg, "is not an abbench database"));
	unlink(dbpath);

	/* an SQLite file of some other program is refused and left alone */
	sql_exec("CREATE TABLE notes (x TEXT)");
	assert_int_equal(store_open(dbpath, true, &st, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "not an abbench one"));
	assert_int_equal(sql_int("SELECT count(*) FROM sqlite_master"), 1);
}

static void test_missing_file(void **state)
{
	(void)state;
	struct store *st = NULL;
	struct ab_diag d = { "" };
	assert_int_equal(store_open(dbpath, false, &st, &d), AB_ERR_DATA);
	assert_null(st);
	char want[256];
	snprintf(want, sizeof want, "no database '%s' (run 'abbench run' first or pass --db)", dbpath);
	assert_string_equal(d.msg, want);
	assert_int_equal(access(dbpath, F_OK), -1); /* not created */
}

/* ---- rows that cannot be read as they stand (issue 19, rows 3 and 6) -- */

/* One finished run of make_run written fresh, the file then edited by
 * sql; loading it must be AB_ERR_DATA with every piece of want in the
 * message, never a crash or a value cut into another. */
static void refused_after(const char *sql, const char *const *want)
{
	unlink(dbpath);
	struct store *st = open_db();
	struct results_run *r = make_run("x", "2025-01-01T00:00:00Z", "GPU-1", 0);
	begin(st, r);
	finish(st, r);
	store_close(st);
	sql_exec(sql);
	struct ab_diag d = { "" };
	struct results_run *back = NULL;
	assert_int_equal(store_open_readonly(dbpath, &st, &d), AB_OK);
	enum ab_rc rc = store_load_run(st, r->id, &back, &d);
	if (rc != AB_ERR_DATA)
		fail_msg("after '%s': rc %d (%s)", sql, rc, d.msg);
	assert_null(back);
	for (int i = 0; want[i]; i++)
		if (!strstr(d.msg, want[i]))
			fail_msg("after '%s':\n got: %s\nwant: %s", sql, d.msg, want[i]);
	store_close(st);
	results_run_free(r);
}

#define SLOT_B "(SELECT s.id FROM slots s JOIN cases c ON c.id = s.case_id WHERE c.ordinal = 1 AND s.position = 1)"
#define WHERE_B "(run 1, case 'qk' (ordinal 1), slot 'B' (position 1)"

static void test_bad_rows_refused(void **state)
{
	(void)state;
	static const struct {
		const char *sql;
		const char *want[3];
	} cases[] = {
		{ "UPDATE slots SET n_samples = -5 WHERE id = " SLOT_B,
		  { "bad row in table slots " WHERE_B "): n_samples is -5, not 0 to 10000000", NULL } },
		{ "UPDATE slots SET n_samples = 4294967302 WHERE id = " SLOT_B,
		  { "table slots " WHERE_B "): n_samples is 4294967302, more than an int holds", NULL } },
		{ "UPDATE slots SET n_samples = 10000001 WHERE id = " SLOT_B, { "n_samples is 10000001, not 0 to", NULL } },
		{ "UPDATE slots SET n_samples = n_samples + 1 WHERE id = " SLOT_B,
		  { "table samples " WHERE_B "): the slot should have 8 samples 0..7, has others", NULL } },
		{ "UPDATE slots SET n_discarded = 'many' WHERE id = " SLOT_B, { "n_discarded is not an integer", NULL } },
		{ "UPDATE slots SET warmup = -1 WHERE id = " SLOT_B, { "warmup is -1, not 0 to", NULL } },
		{ "UPDATE slots SET position = -1 WHERE id = " SLOT_B, { "position is -1, not 0 to 15", NULL } },
		{ "UPDATE slots SET position = 3 WHERE id = " SLOT_B,
		  { "table slots (run 1, case 'qk' (ordinal 1), slot 'A2' (position 2)): position 2 where the case's slot 1",
		    NULL } },
		{ "UPDATE slots SET arm = 'a' WHERE id = " SLOT_B, { "slot 1 ('B') is of arm 'a', bracket 'ABA' has B", NULL } },
		{ "UPDATE slots SET label = CAST(x'42ff' AS TEXT) WHERE id = " SLOT_B,
		  { "table slots", "label is not valid UTF-8 (byte 1)", NULL } },
		{ "UPDATE slots SET label = 'A-very-long' WHERE id = " SLOT_B, { "label is 11 bytes long, more than 7", NULL } },
		{ "UPDATE samples SET wall_ns = NULL WHERE idx = 2 AND slot_id = " SLOT_B,
		  { "table samples " WHERE_B ", sample 2): wall_ns is nan, not a time", NULL } },
		{ "UPDATE samples SET kernel_ns = -1 WHERE idx = 0 AND slot_id = " SLOT_B, { "kernel_ns is -1, not a time", NULL } },
		{ "UPDATE kernel_times SET name = printf('%.300c', 'k') WHERE slot_id = " SLOT_B,
		  { "table kernel_times " WHERE_B ", kernel record 0): name is 300 bytes long, more than 255", NULL } },
		{ "UPDATE kernel_times SET launches = -3 WHERE slot_id = " SLOT_B, { "launches is -3, not 0 to", NULL } },
		{ "UPDATE outputs SET idx = 5 WHERE idx = 1 AND slot_id = " SLOT_B,
		  { "table outputs " WHERE_B ", output 5): outputs are numbered 0 to 15, in order", NULL } },
		{ "UPDATE outputs SET md5 = 'not-hex' WHERE slot_id = " SLOT_B, { "md5 'not-hex' is not 32 hexadecimal", NULL } },
		{ "UPDATE outputs SET tensor = CAST(x'6f0075' AS TEXT) WHERE slot_id = " SLOT_B,
		  { "tensor holds a NUL byte", NULL } },
		{ "UPDATE cases SET name = CAST(x'71c0af' AS TEXT) WHERE ordinal = 1",
		  { "bad row in table cases (run 1, case 'q\xc0\xaf' (ordinal 1)): name is not valid UTF-8 (byte 1)", NULL } },
		{ "UPDATE cases SET ordinal = -1 WHERE ordinal = 0", { "table cases", "ordinal is -1, not 0 to", NULL } },
		{ "UPDATE cases SET bytes_min = -1", { "bytes_min is -1, not 0 to", NULL } },
		{ "UPDATE runs SET label = CAST(x'6361666ce9' AS TEXT)",
		  { "bad row in table runs (run 1): label is not valid UTF-8 (byte 4)", NULL } },
		{ "UPDATE runs SET bracket = 'AXA'", { "table runs (run 1): bracket 'AXA' is not 1 to 16 letters", NULL } },
		{ "UPDATE runs SET bracket = 'AB'", { "table slots (run 1, case 'img, \"big\"' (ordinal 0)): 3 slots for the 2",
						      NULL } },
		{ "UPDATE runs SET shard_count = 5000, shard_index = 1", { "shard_count is 5000, not 0 to 4096", NULL } },
		{ "UPDATE runs SET shard_count = 2, shard_index = 3", { "shard_index 3 is past shard_count 2", NULL } },
		{ "UPDATE runs SET steps = -30", { "steps is -30, not 0 to", NULL } },
		{ "UPDATE runs SET scenario_text = CAST(x'5b73ff5d' AS TEXT)", { "scenario_text is not valid UTF-8 (byte 2)",
										  NULL } },
		{ "UPDATE devices SET name = CAST(x'ff' AS TEXT)",
		  { "bad row in table devices (run 1, device 1): name is not valid UTF-8 (byte 0)", NULL } },
		{ "UPDATE devices SET sm_count = -132", { "sm_count is -132, not 0 to", NULL } },
		{ "UPDATE devices SET copy_gbps = 'fast'", { "copy_gbps is not a number", NULL } },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		refused_after(cases[i].sql, cases[i].want);
}

/* Text that is not valid UTF-8, or does not fit, is refused before
 * anything is written: at begin (the run row), at finish (a result) and
 * on import (a merge); the error text of a failed run is made to fit. */
static void test_bad_text_refused_on_write(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct ab_diag d = { "" };
	struct results_run *r = make_run("x", "2025-01-01T00:00:00Z", "GPU-1", 0);
	snprintf(r->scenario_name, sizeof r->scenario_name, "caf\xe9");
	assert_int_equal(store_begin_run(st, r, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "the run cannot be stored: the run: scenario_name is not valid UTF-8 (byte 3)"));
	assert_int_equal(sql_int("SELECT count(*) FROM runs"), 0);
	snprintf(r->scenario_name, sizeof r->scenario_name, "glm_small");
	snprintf(r->device.name, sizeof r->device.name, "H\xc3");
	assert_int_equal(store_begin_run(st, r, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "the device: name is not valid UTF-8 (byte 1)"));
	snprintf(r->device.name, sizeof r->device.name, "NVIDIA H200");
	int64_t id = begin(st, r);

	snprintf(r->cases[1].slots[2].kernels[1].name, sizeof r->cases[1].slots[2].kernels[1].name, "k\xed\xa0\x80");
	assert_int_equal(store_finish_run(st, r, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "the results cannot be stored: case 'qk' slot 'A2' kernel 1: name is not valid UTF-8"));
	assert_int_equal(result_rows(), 0);
	snprintf(r->cases[1].slots[2].kernels[1].name, sizeof r->cases[1].slots[2].kernels[1].name, "k");
	r->cases[0].slots[1].n_samples = -1;
	assert_int_equal(store_finish_run(st, r, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "case 'img, \"big\"' slot 1: n_samples is -1"));
	r->cases[0].slots[1].n_samples = 6;
	memset(r->cases[0].name, 'n', sizeof r->cases[0].name); /* not terminated */
	assert_int_equal(store_finish_run(st, r, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "name is 64 bytes long, more than 63"));
	assert_int_equal(result_rows(), 0);
	assert_int_equal(sql_int("SELECT count(*) FROM runs WHERE status = 'running'"), 1);

	/* the error of a failed run is stored as valid UTF-8 that fits */
	char error[700];
	memset(error, 'e', sizeof error - 1);
	error[sizeof error - 1] = '\0';
	error[3] = '\xff';
	error[509] = '\xc3', error[510] = '\xa9'; /* an e-acute across the field's end */
	assert_int_equal(store_fail_run(st, id, error, &d), AB_OK);
	struct results_run *back = NULL;
	assert_int_equal(store_load_run(st, id, &back, &d), AB_OK);
	assert_int_equal(strncmp(back->error, "eee\\xFFeee", 10), 0);
	assert_true(strlen(back->error) <= 511);
	assert_true(utf8_valid_str(back->error, NULL));
	results_run_free(back);

	/* import: a run from another file is checked whole too */
	snprintf(r->status, sizeof r->status, "ok");
	snprintf(r->uuid, sizeof r->uuid, "0b7c3c2e-5a4f-4c6e-9d1a-2f8e7c6b5a49");
	snprintf(r->cases[0].name, sizeof r->cases[0].name, "ok");
	snprintf(r->cases[1].slots[0].outputs[0].md5, sizeof r->cases[1].slots[0].outputs[0].md5, "XYZ");
	int64_t copied = 0;
	assert_int_equal(store_write_begin(st, &d), AB_OK);
	assert_int_equal(store_import_run(st, r, &copied, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "the copied run cannot be stored: case 'qk' slot 'A1' output 0: md5 'XYZ'"));
	store_write_rollback(st);
	assert_int_equal(sql_int("SELECT count(*) FROM runs"), 1);
	results_run_free(r);
	store_close(st);
}

/* Labels and baseline names: valid UTF-8 without control characters
 * (C0, DEL, C1), like every name that is printed (issue 19, row 8). */
static void test_names_refused(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct ab_diag d = { "" };
	struct results_run *r = make_run("", "2025-01-01T00:00:00Z", "GPU-1", 0);
	begin(st, r);
	static const char *const bad[] = { "a\tb", "esc\x1b[31m", "del\x7f", "c1\xc2\x9b", "lat\xe9n", "cut\xc3" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(store_baseline_set(st, bad[i], r->id, &d), AB_ERR_USAGE);
		assert_non_null(strstr(d.msg, i < 4 ? "holds a control character" : "is not valid UTF-8"));
		assert_int_equal(store_check_label(bad[i], &d), AB_ERR_USAGE);
	}
	assert_int_equal(sql_int("SELECT count(*) FROM baselines"), 0);
	assert_int_equal(store_baseline_set(st, "caf\xc3\xa9-\xe2\x9c\x93", r->id, &d), AB_OK);
	assert_int_equal(store_check_label("na\xc3\xafve", &d), AB_OK);
	results_run_free(r);
	store_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_only_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_rows_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_text_refused_on_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_refused, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
