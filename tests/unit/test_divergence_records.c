/*
 * test_divergence_records.c - the divergence records after the run that
 * measured them (issue 29): the store's round trip of schema 10 (a slot's
 * divergences with their map as a blob, its checks, a case's invariance),
 * results_run_same's view of them (what merge compares), and the gate's
 * judgement (its note names count, % and max ULP; a nondeterministic slot
 * fails). Runs are fixtures.h's fake runs.
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
#include <sqlite3.h>

#include "analysis/gate.h"
#include "store/store.h"
#include "fixtures.h"

static char tmpdir[128], dbpath[160];

static int setup(void **state)
{
	(void)state;
	if (fx_tmpdir_make(tmpdir, sizeof tmpdir, "divrec"))
		return -1;
	snprintf(dbpath, sizeof dbpath, "%s/t.db", tmpdir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fx_tmpdir_remove(tmpdir);
	return 0;
}

static const struct fake_case BASE[] = {
	{ "ln", 100e3, 50e3, 30, true },
	{ "qk", 200e3, 80e3, 30, true },
};

static struct store *open_db(void)
{
	struct store *st = NULL;
	struct ab_diag d = { "" };
	enum ab_rc rc = store_open(dbpath, true, &st, &d);
	if (rc)
		fail_msg("store_open: %s", d.msg);
	return st;
}

/* The run begun and finished in st: its id. */
static int64_t store_whole(struct store *st, struct results_run *r)
{
	struct ab_diag d = { "" };
	snprintf(r->scenario_path, sizeof r->scenario_path, "/tmp/div.ini");
	snprintf(r->host, sizeof r->host, "test");
	if (store_begin_run(st, r, &d) || store_finish_run(st, r, &d))
		fail_msg("store: %s", d.msg);
	return r->id;
}

static int64_t sql_int(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t v = -1;
	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

/* A threshold of pct percent and no absolute floor. */
static struct gate_options opts(double pct)
{
	struct gate_options o = { .max_regression_pct = pct, .threshold_source = "test", .min_change_ns = 0,
				  .min_change_source = "test" };
	return o;
}

static int gate(const struct results_run *base, const struct results_run *run, const struct gate_options *o,
		struct gate_result *res)
{
	struct ab_diag d = { "" };
	struct summary_run *sb = fx_summary(base, SUMMARY_NO_INTERVALS), *sr = fx_summary(run, SUMMARY_NO_INTERVALS);
	enum ab_rc rc = gate_check(sb, sr, o, res, &d);
	fx_summary_free(sb);
	fx_summary_free(sr);
	if (rc != AB_OK)
		fail_msg("gate_check: %s", d.msg);
	return gate_exit_status(res);
}

/* Schema 10: a slot's divergences (their map a blob of little-endian
 * cells), its checks and a case's invariance come back as written, and
 * results_run_same (merge's check) holds them equal; one row per slot in
 * slot_checks, none for a case outside an invariance sweep. */
static void test_divergence_round_trip(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct results_run *r = fake_run(1, "div", "GPU-1", BASE, 2);
	struct results_slot *s = &r->cases[1].slots[1];
	s->n_div = 1;
	s->div = calloc(1, sizeof *s->div);
	assert_non_null(s->div);
	struct results_divergence *v = &s->div[0];
	snprintf(v->tensor, sizeof v->tensor, "out");
	snprintf(v->role, sizeof v->role, "output");
	snprintf(v->dtype, sizeof v->dtype, "bf16");
	snprintf(v->axes, sizeof v->axes, "B,T,W");
	snprintf(v->dims, sizeof v->dims, "1,3,4");
	v->stage = 1;
	v->elems = 12;
	v->n_diff = 3;
	v->ulp_hist[0] = 1, v->ulp_hist[4] = 1, v->n_class = 1, v->n_sign = 1, v->max_ulp = 32641;
	v->at_max_ulp = (struct results_div_elem){ 5, 0x3fc0, 0xbfc0, NAN };
	v->max_abs = 3;
	v->at_max_abs = v->at_max_ulp;
	v->first = (struct results_div_elem){ 1, 0x3f80, 0x3f81, 1.00390625 };
	v->rows = 3, v->rows_touched = 2, v->map_rows = 3, v->map_cols = 4, v->map_row_bin = v->map_col_bin = 1;
	v->map = calloc(12, sizeof *v->map);
	assert_non_null(v->map);
	v->map[1] = 1, v->map[5] = 1, v->map[11] = 0x01020304u;
	v->has_ref = true, v->ref_compared = 2, v->b_closer = 1;
	s->check = (struct results_slot_check){ "rstd,out", 7, 4, 2, "out" };
	r->cases[1].inv[1] = (struct results_invariance){ true, "B", 5, 0, 1, "out", "" };
	int64_t id = store_whole(st, r);
	struct results_run *back = NULL;
	struct ab_diag d = { "" };
	char why[256];
	assert_int_equal(store_load_run(st, id, &back, &d), AB_OK);
	const struct results_slot *bs = &back->cases[1].slots[1];
	assert_int_equal(bs->n_div, 1);
	const struct results_divergence *w = &bs->div[0];
	assert_string_equal(w->tensor, "out");
	assert_string_equal(w->role, "output");
	assert_string_equal(w->dtype, "bf16");
	assert_string_equal(w->axes, "B,T,W");
	assert_string_equal(w->dims, "1,3,4");
	assert_memory_equal(w->ulp_hist, v->ulp_hist, sizeof v->ulp_hist);
	assert_true(w->stage == 1 && w->elems == 12 && w->n_diff == 3 && w->n_class == 1 && w->n_sign == 1);
	assert_true(w->max_ulp == 32641 && w->max_abs == 3 && w->at_max_ulp.index == 5 && w->at_max_ulp.b_bits == 0xbfc0);
	assert_true(w->first.index == 1 && w->first.a_bits == 0x3f80 && w->rows == 3 && w->rows_touched == 2);
	assert_true(w->map_rows == 3 && w->map_cols == 4 && w->map_row_bin == 1 && w->map_col_bin == 1);
	assert_memory_equal(w->map, v->map, 12 * sizeof *v->map);
	assert_true(w->has_ref && w->ref_compared == 2 && w->b_closer == 1 && w->a_closer == 0);
	assert_memory_equal(&bs->check, &s->check, sizeof s->check);
	assert_memory_equal(&back->cases[1].inv[1], &r->cases[1].inv[1], sizeof r->cases[1].inv[1]);
	/* and merge's comparison sees them: the same run but one cell of the map */
	struct results_run *again = NULL;
	assert_int_equal(store_load_run(st, id, &again, &d), AB_OK);
	assert_true(results_run_same(back, again, why, sizeof why));
	again->cases[1].slots[1].div[0].map[5] = 2;
	assert_false(results_run_same(back, again, why, sizeof why));
	assert_non_null(strstr(why, "map differs"));
	results_run_free(again);
	assert_int_equal(w->map[11], 0x01020304u);
	assert_true(isnan(w->at_max_ulp.ref) && w->first.ref == 1.00390625);
	assert_int_equal(sql_int("SELECT count(*) FROM slot_checks"), 6);
	assert_int_equal(sql_int("SELECT count(*) FROM invariance"), 1);
	assert_int_equal(sql_int("SELECT length(map) FROM divergence"), 48);
	assert_false(back->cases[0].inv[0].checked || back->cases[1].inv[0].checked);
	results_run_free(back);
	results_run_free(r);
	store_close(st);
}

/* issue 29: the note names count, % and max ULP from the stored
 * divergence; a slot whose outputs changed between calls fails as
 * nondeterministic, though its last output is byte-equal. */
static void test_divergence_and_nondeterminism_fail(void **state)
{
	(void)state;
	const struct fake_case lost[] = { { "ln", 100e3, 50e3, 30, true }, { "qk", 200e3, 80e3, 30, false } };
	struct results_run *b = fake_run(1, "smoke", "cpu0", BASE, 2), *r = fake_run(2, "smoke", "cpu0", lost, 2);
	struct results_slot *s = &r->cases[1].slots[1];
	s->div = calloc(1, sizeof *s->div);
	assert_non_null(s->div);
	s->n_div = 1;
	snprintf(s->div[0].tensor, sizeof s->div[0].tensor, "out");
	snprintf(s->div[0].role, sizeof s->div[0].role, "output");
	s->div[0].n_diff = 1155266;
	s->div[0].elems = 4194304;
	s->div[0].ulp_hist[0] = 1155266;
	s->div[0].max_ulp = 1;
	r->cases[0].slots[1].check = (struct results_slot_check){ "out", 7, 4, 2, "out" };
	struct gate_options o = opts(5);
	struct gate_result res;
	assert_int_equal(gate(b, r, &o, &res), AB_EXIT_VERDICT);
	assert_string_equal(res.cases[1].exact_note, "B 'out' not byte-equal to A1: 1155266 of 4194304 elements (27.54%), max 1 ULP");
	assert_int_equal(res.cases[0].verdict, GATE_LOST_EXACT);
	assert_true(res.cases[0].nondeterministic && !res.cases[1].nondeterministic);
	assert_string_equal(res.cases[0].exact_note, "B 'out' nondeterministic: 4 of 7 calls differed");
	assert_int_equal(res.n_lost_exact, 2);
	assert_int_equal(res.n_nondeterministic, 1);
	gate_result_free(&res);
	results_run_free(b);
	results_run_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_divergence_round_trip, setup, teardown),
		cmocka_unit_test(test_divergence_and_nondeterminism_fail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
