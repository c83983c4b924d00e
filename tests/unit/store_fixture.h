/*
 * store_fixture.h - the fixture of the store's unit tests (test_store.c,
 * test_store_migrations.c, test_store_checks.c): a scratch directory and
 * database path per test, make_run's synthetic run, and helpers that open,
 * begin and finish through the store or read and write the file with plain
 * SQL through a second connection, independently of store.c.
 *
 * Each tests/unit/test_X.c is built alone against build/libabbench.a, so
 * these are static inline functions (a test file that uses only some of
 * them gets no unused-function warning). Include it after <cmocka.h>.
 */
#ifndef AB_TEST_STORE_FIXTURE_H
#define AB_TEST_STORE_FIXTURE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "common/results.h"
#include "store/store.h"
#include "fixtures.h"

static char tmpdir[64];
static char dbpath[128];

static inline int setup(void **state)
{
	(void)state;
	if (fx_tmpdir_make(tmpdir, sizeof tmpdir, "store"))
		return -1;
	snprintf(dbpath, sizeof dbpath, "%s/t.db", tmpdir);
	return 0;
}

static inline int teardown(void **state)
{
	(void)state;
	fx_tmpdir_remove(tmpdir);
	return 0;
}

/* ---- the synthetic run ------------------------------------------------ */

/* synth_run's slots (fixtures.h): label, arm, variant and position are set. */
static inline void fill_slot(struct results_slot *s, int ci, int si)
{
	s->warmup = 3 + si;
	s->n_samples = 5 + ci + si;
	s->samples_ns = malloc(sizeof(double) * (size_t)s->n_samples);
	s->kernel_ns = malloc(sizeof(double) * (size_t)s->n_samples);
	s->host_ns = malloc(sizeof(double) * (size_t)s->n_samples);
	for (int i = 0; i < s->n_samples; i++) {
		s->samples_ns[i] = 1000.25 * (i + 1) + 100 * ci + 10 * si;
		s->kernel_ns[i] = i == 2 ? NAN : 900.5 * (i + 1);
		s->host_ns[i] = si == 1 ? NAN : 3800.125 * (i + 1) + ci; /* slot 1: not measured (the CPU's) */
	}
	s->n_discarded = si;
	snprintf(s->stopping_reason, sizeof s->stopping_reason, "%s", si ? "max_samples" : "target_noise");
	s->elapsed_s = 0.125 * (si + 1);
	s->median_ns = 3000.75 + si;
	s->p10_ns = 1000.5;
	s->p90_ns = 5000.125;
	s->min_ns = 999;
	s->max_ns = 6000;
	s->mean_ns = 3100.0 / 3.0; /* not exactly representable: tests full precision */
	s->noise = 0.0125;
	s->kernel_median_ns = si == 2 ? NAN : 2700.5;
	s->host_median_ns = si == 1 ? NAN : 11400.375;
	s->host_p90_ns = si == 1 ? NAN : 17100.5625;
	s->n_kernels = 2;
	s->kernels = calloc(2, sizeof *s->kernels);
	/* stored smaller first: loading must return them by total_ns desc */
	snprintf(s->kernels[0].name, sizeof s->kernels[0].name, "elementwise_kernel<mul>");
	snprintf(s->kernels[0].family, sizeof s->kernels[0].family, "elementwise");
	s->kernels[0].launches = 10;
	s->kernels[0].total_ns = 500.5;
	s->kernels[0].min_ns = 40;
	s->kernels[0].max_ns = 60;
	snprintf(s->kernels[1].name, sizeof s->kernels[1].name, "vectorized_layer_norm_kernel");
	snprintf(s->kernels[1].family, sizeof s->kernels[1].family, "LayerNorm");
	s->kernels[1].launches = 10;
	s->kernels[1].total_ns = 2000.25;
	s->kernels[1].min_ns = 190;
	s->kernels[1].max_ns = NAN;
	s->kernel_records_bad = ci + si;
	s->clocks_before = (struct results_clocks){ true, 1980, 2619, 0x8000000000000004ull, 41 };
	s->clocks_after = (struct results_clocks){ si != 1, 1755, 2619, 4, 55 + si };
	s->n_outputs = ci == 1 ? 2 : 1;
	for (int o = 0; o < s->n_outputs; o++) {
		struct results_output *x = &s->outputs[o];
		snprintf(x->tensor, sizeof x->tensor, "%s", ci == 1 ? (o ? "k_out" : "q_out") : "y");
		snprintf(x->md5, sizeof x->md5, "%031x%c", 0xabc + ci, "01"[o & 1]);
		x->bytes = 1 << 20;
		x->bit_exact = si != 1 || o == 0;
		x->mismatches = x->bit_exact ? 0 : 17;
		x->max_abs_err = o == 1 ? NAN : 0.0078125;
		x->max_err_ratio = 0.5;
		x->has_ref = ci == 0 || o == 0;
		x->ref_ok = o == 0;
		x->ref_skipped = o;
	}
}

static inline struct results_run *make_run(const char *label, const char *started_at, const char *uuid, double copy)
{
	struct results_run *r = synth_run(fill_slot);
	snprintf(r->started_at, sizeof r->started_at, "%s", started_at);
	snprintf(r->label, sizeof r->label, "%s", label);
	snprintf(r->scenario_name, sizeof r->scenario_name, "glm_small");
	snprintf(r->scenario_path, sizeof r->scenario_path, "scenarios/glm_small.ini");
	r->scenario_text = strdup("[scenario]\nname = glm_small\n");
	snprintf(r->scenario_hash, sizeof r->scenario_hash, "%064x", 7);
	r->command_line = strdup("abbench run 'scenarios/glm small.ini'");
	snprintf(r->git_commit, sizeof r->git_commit, "0123456789ab-dirty");
	snprintf(r->host, sizeof r->host, "h200-node");
	snprintf(r->backend, sizeof r->backend, "cpu");
	snprintf(r->version, sizeof r->version, "0.1.0");
	r->quick = true;
	r->fake_timer = true;
	r->device_index = 3;
	snprintf(r->noise_measure, sizeof r->noise_measure, "median");
	snprintf(r->bracket, sizeof r->bracket, "ABA");
	snprintf(r->arm_a, sizeof r->arm_a, "eager");
	snprintf(r->arm_b, sizeof r->arm_b, "fused");
	r->steps = 30;
	r->forwards_per_step = 2;
	snprintf(r->launch_gaps, sizeof r->launch_gaps, "include");
	r->l2_flush = true;
	snprintf(r->notes, sizeof r->notes, "cupti overhead 1.5%%");
	snprintf(r->only_cases, sizeof r->only_cases, "ln_modulate");
	struct results_device *dv = &r->device;
	snprintf(dv->name, sizeof dv->name, "NVIDIA H200");
	snprintf(dv->uuid, sizeof dv->uuid, "%s", uuid);
	snprintf(dv->backend, sizeof dv->backend, "cuda");
	dv->cc_major = 9;
	dv->cc_minor = 0;
	dv->sm_count = 132;
	dv->l2_bytes = 52428800;
	dv->mem_bytes = 150754820096LL;
	snprintf(dv->driver_version, sizeof dv->driver_version, "580.159");
	snprintf(dv->runtime_version, sizeof dv->runtime_version, "13.0");
	dv->default_sm_mhz = 1980;
	dv->copy_gbps = copy;
	for (int ci = 0; ci < r->n_cases; ci++) {
		struct results_case *c = &r->cases[ci];
		c->eps = ci ? 1e-6 : 1e-5;
		c->affine = ci == 1;
		c->count = 30;
		if (ci == 1) {
			snprintf(c->sweep, sizeof c->sweep, "qk");
			snprintf(c->axis, sizeof c->axis, "T");
			c->axis_value = 16384;
		}
		snprintf(c->arm_a, sizeof c->arm_a, "eager");
		snprintf(c->arm_b, sizeof c->arm_b, "fused");
		c->bytes_min = (int64_t)5 << 32 | ci; /* past 32 bits */
		c->bytes_a = 3 * c->bytes_min;
		c->bytes_b = c->bytes_min;
	}
	return r;
}

/* ---- helpers ------------------------------------------------------------ */

static inline struct store *open_db(void)
{
	struct store *st = NULL;
	struct ab_diag d = { "" };
	enum ab_rc rc = store_open(dbpath, true, &st, &d);
	if (rc)
		fprintf(stderr, "store_open: %s\n", d.msg);
	assert_int_equal(rc, AB_OK);
	return st;
}

static inline int64_t begin(struct store *st, struct results_run *r)
{
	struct ab_diag d = { "" };
	enum ab_rc rc = store_begin_run(st, r, &d);
	if (rc)
		fprintf(stderr, "begin: %s\n", d.msg);
	assert_int_equal(rc, AB_OK);
	return r->id;
}

static inline void finish(struct store *st, struct results_run *r)
{
	struct ab_diag d = { "" };
	enum ab_rc rc = store_finish_run(st, r, &d);
	if (rc)
		fprintf(stderr, "finish: %s\n", d.msg);
	assert_int_equal(rc, AB_OK);
}

/* One integer from a second, plain connection. */
static inline int64_t sql_int(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	int64_t v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

static inline void sql_exec(const char *sql)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static inline int64_t result_rows(void)
{
	return sql_int("SELECT (SELECT count(*) FROM cases) + (SELECT count(*) FROM slots)"
		       " + (SELECT count(*) FROM samples) + (SELECT count(*) FROM kernel_times)"
		       " + (SELECT count(*) FROM outputs)");
}

/* SQL's rc from a second, plain connection (a statement expected to fail). */
static inline int sql_try(const char *sql)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
}

#endif
