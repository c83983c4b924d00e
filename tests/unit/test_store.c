/*
 * test_store.c - the SQLite store: a synthetic run written and read back
 * field by field, listing and resolving runs, failed runs, a failure in
 * the middle of store_finish_run leaving no rows, schema and file checks,
 * baselines, the copy-bandwidth cache.
 *
 * Expected values are the ones the test itself put into the synthetic run
 * (make_run: simple formulas of the case, slot and sample index), compared
 * against what store_load_run returns; row counts are read with plain
 * SQL through a second connection, independently of store.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "common/procid.h"
#include "common/results.h"
#include "common/utf8.h"
#include "store/store.h"
#include "fixtures.h"

static char tmpdir[64];
static char dbpath[128];

static int setup(void **state)
{
	(void)state;
	if (fx_tmpdir_make(tmpdir, sizeof tmpdir, "store"))
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

/* ---- the synthetic run ------------------------------------------------ */

/* synth_run's slots (fixtures.h): label, arm, variant and position are set. */
static void fill_slot(struct results_slot *s, int ci, int si)
{
	s->warmup = 3 + si;
	s->n_samples = 5 + ci + si;
	s->samples_ns = malloc(sizeof(double) * (size_t)s->n_samples);
	s->kernel_ns = malloc(sizeof(double) * (size_t)s->n_samples);
	for (int i = 0; i < s->n_samples; i++) {
		s->samples_ns[i] = 1000.25 * (i + 1) + 100 * ci + 10 * si;
		s->kernel_ns[i] = i == 2 ? NAN : 900.5 * (i + 1);
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

static struct results_run *make_run(const char *label, const char *started_at, const char *uuid, double copy)
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

/* ---- comparing --------------------------------------------------------- */

static void assert_same_double(double want, double got)
{
	if (isnan(want))
		assert_true(isnan(got));
	else
		assert_true(want == got);
}

static void assert_same_clocks(const struct results_clocks *a, const struct results_clocks *b)
{
	assert_int_equal(a->valid, b->valid);
	assert_int_equal(a->sm_mhz, b->sm_mhz);
	assert_int_equal(a->mem_mhz, b->mem_mhz);
	assert_true(a->throttle_reasons == b->throttle_reasons);
	assert_int_equal(a->temp_c, b->temp_c);
}

static void assert_same_output(const struct results_output *a, const struct results_output *b)
{
	assert_string_equal(a->tensor, b->tensor);
	assert_string_equal(a->md5, b->md5);
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->bit_exact, b->bit_exact);
	assert_int_equal(a->mismatches, b->mismatches);
	assert_same_double(a->max_abs_err, b->max_abs_err);
	assert_same_double(a->max_err_ratio, b->max_err_ratio);
	assert_int_equal(a->has_ref, b->has_ref);
	assert_int_equal(a->ref_ok, b->ref_ok);
	assert_int_equal(a->ref_skipped, b->ref_skipped);
}

static void assert_same_kernel(const struct results_kernel *a, const struct results_kernel *b)
{
	assert_string_equal(a->name, b->name);
	assert_string_equal(a->family, b->family);
	assert_int_equal(a->launches, b->launches);
	assert_same_double(a->total_ns, b->total_ns);
	assert_same_double(a->min_ns, b->min_ns);
	assert_same_double(a->max_ns, b->max_ns);
}

static void assert_same_slot(const struct results_slot *a, const struct results_slot *b)
{
	assert_string_equal(a->label, b->label);
	assert_int_equal(a->arm, b->arm);
	assert_string_equal(a->variant, b->variant);
	assert_int_equal(a->position, b->position);
	assert_int_equal(a->warmup, b->warmup);
	assert_int_equal(a->n_samples, b->n_samples);
	for (int i = 0; i < a->n_samples; i++) {
		assert_same_double(a->samples_ns[i], b->samples_ns[i]);
		assert_same_double(a->kernel_ns[i], b->kernel_ns[i]);
	}
	assert_int_equal(a->n_discarded, b->n_discarded);
	assert_string_equal(a->stopping_reason, b->stopping_reason);
	assert_same_double(a->elapsed_s, b->elapsed_s);
	assert_same_double(a->median_ns, b->median_ns);
	assert_same_double(a->p10_ns, b->p10_ns);
	assert_same_double(a->p90_ns, b->p90_ns);
	assert_same_double(a->min_ns, b->min_ns);
	assert_same_double(a->max_ns, b->max_ns);
	assert_same_double(a->mean_ns, b->mean_ns);
	assert_same_double(a->noise, b->noise);
	assert_same_double(a->kernel_median_ns, b->kernel_median_ns);
	/* the synthetic run lists kernels ascending; the store returns them
	 * by total_ns descending */
	assert_int_equal(a->n_kernels, b->n_kernels);
	for (int i = 0; i < a->n_kernels; i++)
		assert_same_kernel(&a->kernels[a->n_kernels - 1 - i], &b->kernels[i]);
	assert_int_equal(a->kernel_records_bad, b->kernel_records_bad);
	assert_same_clocks(&a->clocks_before, &b->clocks_before);
	assert_same_clocks(&a->clocks_after, &b->clocks_after);
	assert_int_equal(a->n_outputs, b->n_outputs);
	for (int i = 0; i < a->n_outputs; i++)
		assert_same_output(&a->outputs[i], &b->outputs[i]);
}

static void assert_same_case(const struct results_case *a, const struct results_case *b)
{
	assert_string_equal(a->name, b->name);
	assert_string_equal(a->site, b->site);
	assert_string_equal(a->shape, b->shape);
	assert_string_equal(a->dtype, b->dtype);
	assert_same_double(a->eps, b->eps);
	assert_int_equal(a->affine, b->affine);
	assert_int_equal(a->count, b->count);
	assert_string_equal(a->input, b->input);
	assert_string_equal(a->arm_a, b->arm_a);
	assert_string_equal(a->arm_b, b->arm_b);
	assert_string_equal(a->sweep, b->sweep);
	assert_string_equal(a->axis, b->axis);
	assert_true(a->axis_value == b->axis_value);
	assert_true(a->bytes_min == b->bytes_min && a->bytes_a == b->bytes_a && a->bytes_b == b->bytes_b);
	assert_int_equal(a->n_slots, b->n_slots);
	for (int i = 0; i < a->n_slots; i++)
		assert_same_slot(&a->slots[i], &b->slots[i]);
}

static void assert_same_device(const struct results_device *a, const struct results_device *b)
{
	assert_string_equal(a->name, b->name);
	assert_string_equal(a->uuid, b->uuid);
	assert_string_equal(a->backend, b->backend);
	assert_int_equal(a->cc_major, b->cc_major);
	assert_int_equal(a->cc_minor, b->cc_minor);
	assert_int_equal(a->sm_count, b->sm_count);
	assert_int_equal(a->l2_bytes, b->l2_bytes);
	assert_int_equal(a->mem_bytes, b->mem_bytes);
	assert_string_equal(a->driver_version, b->driver_version);
	assert_string_equal(a->runtime_version, b->runtime_version);
	assert_int_equal(a->default_sm_mhz, b->default_sm_mhz);
	assert_same_double(a->copy_gbps, b->copy_gbps);
}

/* Every header field but status and finished_at, which the store sets. */
static void assert_same_header(const struct results_run *a, const struct results_run *b)
{
	assert_int_equal(a->id, b->id);
	assert_string_equal(a->started_at, b->started_at);
	assert_string_equal(a->error, b->error);
	assert_string_equal(a->label, b->label);
	assert_string_equal(a->scenario_name, b->scenario_name);
	assert_string_equal(a->scenario_path, b->scenario_path);
	assert_string_equal(a->scenario_text, b->scenario_text);
	assert_string_equal(a->scenario_hash, b->scenario_hash);
	assert_string_equal(a->command_line, b->command_line);
	assert_string_equal(a->git_commit, b->git_commit);
	assert_string_equal(a->host, b->host);
	assert_string_equal(a->backend, b->backend);
	assert_string_equal(a->version, b->version);
	assert_int_equal(a->quick, b->quick);
	assert_int_equal(a->fake_timer, b->fake_timer);
	assert_int_equal(a->device_index, b->device_index);
	assert_string_equal(a->noise_measure, b->noise_measure);
	assert_string_equal(a->bracket, b->bracket);
	assert_string_equal(a->arm_a, b->arm_a);
	assert_string_equal(a->arm_b, b->arm_b);
	assert_int_equal(a->steps, b->steps);
	assert_int_equal(a->forwards_per_step, b->forwards_per_step);
	assert_string_equal(a->launch_gaps, b->launch_gaps);
	assert_int_equal(a->l2_flush, b->l2_flush);
	assert_string_equal(a->notes, b->notes);
	assert_string_equal(a->only_cases, b->only_cases);
	assert_same_device(&a->device, &b->device);
}

/* ---- helpers ------------------------------------------------------------ */

static struct store *open_db(void)
{
	struct store *st = NULL;
	struct ab_diag d = { "" };
	enum ab_rc rc = store_open(dbpath, true, &st, &d);
	if (rc)
		fprintf(stderr, "store_open: %s\n", d.msg);
	assert_int_equal(rc, AB_OK);
	return st;
}

static int64_t begin(struct store *st, struct results_run *r)
{
	struct ab_diag d = { "" };
	enum ab_rc rc = store_begin_run(st, r, &d);
	if (rc)
		fprintf(stderr, "begin: %s\n", d.msg);
	assert_int_equal(rc, AB_OK);
	return r->id;
}

static void finish(struct store *st, struct results_run *r)
{
	struct ab_diag d = { "" };
	enum ab_rc rc = store_finish_run(st, r, &d);
	if (rc)
		fprintf(stderr, "finish: %s\n", d.msg);
	assert_int_equal(rc, AB_OK);
}

/* One integer from a second, plain connection. */
static int64_t sql_int(const char *sql)
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

static void sql_exec(const char *sql)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static int64_t result_rows(void)
{
	return sql_int("SELECT (SELECT count(*) FROM cases) + (SELECT count(*) FROM slots)"
		       " + (SELECT count(*) FROM samples) + (SELECT count(*) FROM kernel_times)"
		       " + (SELECT count(*) FROM outputs)");
}

/* ---- tests -------------------------------------------------------------- */

static void test_round_trip(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct results_run *r = make_run("nightly", "", "GPU-1", 0);
	int64_t id = begin(st, r);
	assert_true(id > 0);
	assert_string_equal(r->status, "running");
	/* started_at was empty: the store fills "YYYY-MM-DDTHH:MM:SSZ" */
	assert_int_equal(strlen(r->started_at), 20);
	assert_int_equal(r->started_at[10], 'T');
	assert_int_equal(r->started_at[19], 'Z');
	finish(st, r);

	struct results_run *back = NULL;
	struct ab_diag d = { "" };
	assert_int_equal(store_load_run(st, id, &back, &d), AB_OK);
	assert_string_equal(back->status, "ok");
	assert_int_equal(strlen(back->finished_at), 20);
	assert_same_header(r, back);
	assert_int_equal(back->n_cases, r->n_cases);
	for (int i = 0; i < r->n_cases; i++)
		assert_same_case(&r->cases[i], &back->cases[i]);
	/* rows: per case 3 slots; samples 5+6+7 and 6+7+8; 2 kernels a slot;
	 * outputs 1 a slot in case 0, 2 in case 1 */
	assert_int_equal(sql_int("SELECT count(*) FROM samples"), 39);
	assert_int_equal(sql_int("SELECT count(*) FROM kernel_times"), 12);
	assert_int_equal(sql_int("SELECT count(*) FROM outputs"), 9);
	/* NAN is stored as NULL: one NAN kernel sample in each of 6 slots */
	assert_int_equal(sql_int("SELECT count(*) FROM samples WHERE kernel_ns IS NULL"), 6);
	assert_int_equal(sql_int("SELECT count(*) FROM slots WHERE kernel_median_ns IS NULL"), 2);

	const struct results_slot *b = results_case_slot(&back->cases[1], "B");
	assert_non_null(b);
	assert_int_equal(b->position, 1);
	assert_null(results_case_slot(&back->cases[1], "A3"));

	/* a second finish of the same run is refused */
	assert_int_equal(store_finish_run(st, r, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "already 'ok'"));
	results_run_free(back);
	results_run_free(r);
	store_close(st);
}

static void test_list_and_resolve(void **state)
{
	(void)state;
	struct store *st = open_db();
	/* ids 1, 2, 3; started 03, 01, 02: newest is id 1, then 3, then 2 */
	const char *starts[] = { "2025-01-01T00:00:03Z", "2025-01-01T00:00:01Z", "2025-01-01T00:00:02Z" };
	const char *labels[] = { "x", "", "x2" };
	for (int i = 0; i < 3; i++) {
		struct results_run *r = make_run(labels[i], starts[i], "GPU-1", 0);
		begin(st, r);
		/* a finish time given by the caller is kept (else: now) */
		snprintf(r->finished_at, sizeof r->finished_at, "2025-01-01T00:10:0%dZ", i);
		if (i != 1)
			finish(st, r);
		results_run_free(r);
	}
	struct results_run *back = NULL;
	struct ab_diag d0 = { "" };
	assert_int_equal(store_load_run(st, 3, &back, &d0), AB_OK);
	assert_string_equal(back->finished_at, "2025-01-01T00:10:02Z");
	results_run_free(back);
	assert_int_equal(store_load_run(st, 2, &back, &d0), AB_OK);
	assert_string_equal(back->finished_at, ""); /* still running: NULL */
	assert_string_equal(back->status, "running");
	results_run_free(back);
	struct results_run_summary *v = NULL;
	int n = 0;
	struct ab_diag d = { "" };
	assert_int_equal(store_list_runs(st, &v, &n, &d), AB_OK);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].id, 1);
	assert_int_equal(v[1].id, 3);
	assert_int_equal(v[2].id, 2);
	assert_string_equal(v[0].status, "ok");
	assert_string_equal(v[2].status, "running");
	assert_int_equal(v[0].n_cases, 2);
	assert_int_equal(v[2].n_cases, 0);
	assert_string_equal(v[1].label, "x2");
	assert_string_equal(v[1].device, "NVIDIA H200");
	assert_string_equal(v[1].scenario_name, "glm_small");
	assert_string_equal(v[1].backend, "cpu");
	assert_string_equal(v[1].started_at, "2025-01-01T00:00:02Z");
	assert_true(v[1].quick && v[1].fake_timer);
	free(v);

	int64_t id = 0;
	assert_int_equal(store_resolve_run(st, NULL, &id, &d), AB_OK);
	assert_int_equal(id, 1);
	assert_int_equal(store_resolve_run(st, "last", &id, &d), AB_OK);
	assert_int_equal(id, 1);
	assert_int_equal(store_resolve_run(st, "2", &id, &d), AB_OK);
	assert_int_equal(id, 2);
	assert_int_equal(store_resolve_run(st, "x2", &id, &d), AB_OK);
	assert_int_equal(id, 3);
	assert_int_equal(store_resolve_run(st, "nope", &id, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "no run 'nope' in '"));
	assert_int_equal(store_resolve_run(st, "42", &id, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "no run '42'"));

	/* a newer run with label "x" wins over the older one once it is
	 * finished; while it runs, the label still names the older one */
	struct results_run *r = make_run("x", "2025-01-02T00:00:00Z", "GPU-1", 0);
	int64_t newest = begin(st, r);
	assert_int_equal(store_resolve_run(st, "x", &id, &d), AB_OK);
	assert_int_equal(id, 1);
	finish(st, r);
	results_run_free(r);
	assert_int_equal(store_resolve_run(st, "x", &id, &d), AB_OK);
	assert_int_equal(id, newest);
	store_close(st);
}

static void test_resolve_empty(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct ab_diag d = { "" };
	int64_t id = 0;
	assert_int_equal(store_resolve_run(st, NULL, &id, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "no run 'last'"));
	struct results_run *back = NULL;
	assert_int_equal(store_load_run(st, 7, &back, &d), AB_ERR_DATA);
	assert_null(back);
	store_close(st);
}

static void test_fail_run(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct results_run *r = make_run("", "2025-01-01T00:00:00Z", "GPU-1", 0);
	int64_t id = begin(st, r);
	struct ab_diag d = { "" };
	assert_int_equal(store_fail_run(st, id, "cuda error: 'out of memory'", &d), AB_OK);
	struct results_run *back = NULL;
	assert_int_equal(store_load_run(st, id, &back, &d), AB_OK);
	assert_string_equal(back->status, "failed");
	assert_string_equal(back->error, "cuda error: 'out of memory'");
	assert_int_equal(strlen(back->finished_at), 20);
	assert_int_equal(back->n_cases, 0);
	assert_int_equal(result_rows(), 0);
	/* a failed run takes no results afterwards */
	assert_int_equal(store_finish_run(st, r, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "already 'failed'"));
	assert_int_equal(store_fail_run(st, 99, "x", &d), AB_ERR_DATA);
	results_run_free(back);
	results_run_free(r);
	store_close(st);
}

/* The user arms' provenance is written with the run row, so that a run
 * that fails keeps it, and loads back in arm order. */
static void test_arm_sources(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct results_run *r = make_run("", "2025-01-01T00:00:00Z", "GPU-1", 0);
	r->n_arm_sources = 2;
	r->arm_sources[0] = (struct results_arm_source){ 'b', "mine", "cubin", "/x/k.cubin", "ab12", "cubin kernel 'k'" };
	r->arm_sources[1] = (struct results_arm_source){ 'a', "p", "plugin", "/x/lib.so", "cd34", "arm 'p'" };
	int64_t id = begin(st, r);
	struct ab_diag d = { "" };
	assert_int_equal(store_fail_run(st, id, "it broke", &d), AB_OK);
	struct results_run *back = NULL;
	assert_int_equal(store_load_run(st, id, &back, &d), AB_OK);
	assert_int_equal(back->n_arm_sources, 2);
	assert_int_equal(back->arm_sources[0].arm, 'a');
	assert_string_equal(back->arm_sources[0].kind, "plugin");
	assert_string_equal(back->arm_sources[0].path, "/x/lib.so");
	assert_int_equal(back->arm_sources[1].arm, 'b');
	assert_string_equal(back->arm_sources[1].name, "mine");
	assert_string_equal(back->arm_sources[1].sha256, "ab12");
	assert_string_equal(back->arm_sources[1].detail, "cubin kernel 'k'");
	results_run_free(back);
	/* a run without user arms has none */
	struct results_run *plain = make_run("", "2025-01-02T00:00:00Z", "GPU-1", 0);
	id = begin(st, plain);
	assert_int_equal(store_load_run(st, id, &back, &d), AB_OK);
	assert_int_equal(back->n_arm_sources, 0);
	results_run_free(back);
	results_run_free(plain);
	results_run_free(r);
	store_close(st);
}

/* The second case's last slot repeats position 1: the UNIQUE (case_id,
 * position) constraint fails after the first case, its slots, samples,
 * kernels and outputs and the second case's first slots were inserted. */
static void test_finish_failure_leaves_nothing(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct results_run *r = make_run("", "2025-01-01T00:00:00Z", "GPU-1", 0);
	int64_t id = begin(st, r);
	r->cases[1].slots[2].position = 1;
	struct ab_diag d = { "" };
	assert_int_equal(store_finish_run(st, r, &d), AB_ERR_DB);
	assert_non_null(strstr(d.msg, "cannot insert slot 'A2' of case 'qk'"));
	assert_non_null(strstr(d.msg, "UNIQUE constraint failed"));
	assert_int_equal(result_rows(), 0);
	assert_int_equal(sql_int("SELECT count(*) FROM runs WHERE status = 'running'"), 1);

	/* the caller then marks it failed, and the store still works */
	assert_int_equal(store_fail_run(st, id, d.msg, &d), AB_OK);
	assert_int_equal(sql_int("SELECT count(*) FROM runs WHERE status = 'failed'"), 1);
	r->cases[1].slots[2].position = 2;
	begin(st, r);
	finish(st, r);
	assert_int_equal(sql_int("SELECT count(*) FROM cases"), 2);
	results_run_free(r);
	store_close(st);
}

/* Cases committed one by one (issue 23.6): each stays when the run is
 * interrupted; 'ok' needs every planned case; `run --resume` takes the run
 * up again and its last case completes it. */
static void test_cases_committed_one_by_one(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct results_run *r = make_run("", "2025-01-01T00:00:00Z", "GPU-1", 0);
	struct ab_diag d = { "" };
	int n = r->n_cases;
	r->cases_planned = n;
	int64_t id = begin(st, r);
	assert_int_equal(store_commit_case(st, r, &r->cases[0], &d), AB_OK);
	assert_int_equal(sql_int("SELECT count(*) FROM cases"), 1);
	assert_int_equal(store_commit_case(st, r, &r->cases[0], &d), AB_ERR_INTERNAL);
	assert_non_null(strstr(d.msg, "already holds a case at ordinal 0"));
	r->n_cases = 1; /* an incomplete run is never 'ok' */
	assert_int_equal(store_finish_run(st, r, &d), AB_ERR_INTERNAL);
	assert_non_null(strstr(d.msg, "holds 1 of its 2 cases: it cannot be 'ok'"));
	assert_int_equal(sql_int("SELECT count(*) FROM runs WHERE status = 'running'"), 1);
	/* interrupted: the finished case stays, whole */
	assert_int_equal(store_interrupt_run(st, id, "interrupted by SIGTERM", &d), AB_OK);
	assert_int_equal(sql_int("SELECT count(*) FROM cases"), 1);
	assert_int_equal(sql_int("SELECT count(*) FROM slots"), r->cases[0].n_slots);
	assert_int_equal(store_commit_case(st, r, &r->cases[1], &d), AB_ERR_DATA); /* not running */
	struct results_run *back = NULL;
	assert_int_equal(store_load_run(st, id, &back, &d), AB_OK);
	assert_int_equal(back->n_cases, 1);
	assert_int_equal(back->cases_planned, n);
	assert_string_equal(back->status, "interrupted");
	results_run_free(back);
	/* resumed, completed, 'ok' */
	assert_int_equal(store_resume_run(st, id, &d), AB_OK);
	assert_int_equal(sql_int("SELECT status = 'running' AND error = '' AND finished_at IS NULL AND resumed = 1"
				 " FROM runs"), 1);
	assert_int_equal(store_commit_case(st, r, &r->cases[1], &d), AB_OK);
	r->n_cases = n;
	assert_int_equal(store_finish_run(st, r, &d), AB_OK); /* writes nothing twice */
	assert_int_equal(sql_int("SELECT count(*) FROM cases"), n);
	assert_int_equal(store_load_run(st, id, &back, &d), AB_OK);
	assert_string_equal(back->status, "ok");
	assert_int_equal(back->n_cases, n);
	assert_int_equal(back->cases[1].n_slots, r->cases[1].n_slots);
	results_run_free(back);
	assert_int_equal(store_resume_run(st, id, &d), AB_ERR_USAGE);
	assert_string_equal(d.msg, "run 1 is 'ok': it has every case, nothing to resume");
	assert_int_equal(store_resume_run(st, 99, &d), AB_ERR_DATA);
	results_run_free(r);
	store_close(st);
}

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

/* A signal's run ends 'interrupted' without results; 'last' and labels
 * skip runs still 'running'. */
static void test_interrupted_and_last(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct ab_diag d = { "" };
	int64_t id = 0;
	struct results_run *r = make_run("x", "2025-01-01T00:00:01Z", "GPU-1", 0);
	int64_t done = begin(st, r);
	finish(st, r);
	results_run_free(r);
	r = make_run("x", "2025-01-01T00:00:02Z", "GPU-1", 0);
	int64_t cut = begin(st, r);
	results_run_free(r);
	r = make_run("x", "2025-01-01T00:00:03Z", "GPU-1", 0);
	int64_t live = begin(st, r); /* ours, alive: stays 'running' */
	results_run_free(r);

	assert_int_equal(store_resolve_run(st, "last", &id, &d), AB_OK);
	assert_int_equal(id, done);
	assert_int_equal(store_interrupt_run(st, cut, "interrupted by SIGINT", &d), AB_OK);
	assert_int_equal(store_resolve_run(st, "last", &id, &d), AB_OK);
	assert_int_equal(id, cut);
	assert_int_equal(store_resolve_run(st, "x", &id, &d), AB_OK);
	assert_int_equal(id, cut);
	assert_int_equal(sql_int("SELECT count(*) FROM runs WHERE status = 'interrupted'"
				 " AND error = 'interrupted by SIGINT' AND finished_at IS NOT NULL"), 1);
	assert_int_equal(store_interrupt_run(st, cut, "again", &d), AB_ERR_DATA); /* not running any more */
	store_close(st);
	st = open_db();
	assert_int_equal(sql_int("SELECT status = 'running' FROM runs WHERE id = 3"), 1);
	assert_int_equal(live, 3);
	store_close(st);
}

/* A run whose process died is marked 'interrupted' by the next open (or
 * read-only open); one of another host or with no recorded process is left. */
static void test_stale_runs_marked(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct results_run *r = make_run("", "2025-01-01T00:00:01Z", "GPU-1", 0);
	char host[128], process[PROCID_MAX], sql[512];
	procid_host(host, sizeof host);
	snprintf(r->host, sizeof r->host, "%s", host);
	for (int i = 0; i < 4; i++)
		begin(st, r);
	results_run_free(r);
	store_close(st);

	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	procid_of(child, process, sizeof process); /* alive or a zombie until reaped */
	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	snprintf(sql, sizeof sql, "UPDATE runs SET pid = %d, process = '%s' WHERE id IN (1, 2)", (int)child, process);
	sql_exec(sql);
	sql_exec("UPDATE runs SET host = 'elsewhere' WHERE id = 2");
	sql_exec("UPDATE runs SET pid = 0, process = '' WHERE id = 3"); /* written before the owner columns existed */

	struct ab_diag d = { "" };
	assert_int_equal(store_open_readonly(dbpath, &st, &d), AB_OK); /* marks through its own connection */
	store_close(st);
	assert_int_equal(sql_int("SELECT count(*) FROM runs WHERE id = 1 AND status = 'interrupted'"
				 " AND error LIKE 'interrupted: process % ended without finishing the run%'"), 1);
	assert_int_equal(sql_int("SELECT count(*) FROM runs WHERE id IN (2, 3, 4) AND status = 'running'"), 3);

	snprintf(sql, sizeof sql, "UPDATE runs SET status = 'running', host = '%s' WHERE id IN (1, 2)", host);
	sql_exec(sql);
	st = open_db();
	store_close(st);
	assert_int_equal(sql_int("SELECT count(*) FROM runs WHERE id IN (1, 2) AND status = 'interrupted'"), 2);
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

/* SQL's rc from a second, plain connection (a statement expected to fail). */
static int sql_try(const char *sql)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
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

static void test_baselines(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct results_run *r1 = make_run("", "2025-01-01T00:00:00Z", "GPU-1", 0);
	struct results_run *r2 = make_run("", "2025-01-02T00:00:00Z", "GPU-2", 0);
	snprintf(r2->device.name, sizeof r2->device.name, "NVIDIA H100");
	snprintf(r2->scenario_name, sizeof r2->scenario_name, "glm_1024");
	begin(st, r1);
	begin(st, r2);
	struct ab_diag d = { "" };
	int64_t id = 0;
	assert_int_equal(store_baseline_set(st, "nightly", r1->id, &d), AB_OK);
	assert_int_equal(store_baseline_get(st, "nightly", &id, &d), AB_OK);
	assert_int_equal(id, r1->id);
	assert_int_equal(store_baseline_set(st, "nightly", r2->id, &d), AB_OK); /* overwrite */
	assert_int_equal(store_baseline_get(st, "nightly", &id, &d), AB_OK);
	assert_int_equal(id, r2->id);
	assert_int_equal(store_baseline_set(st, "a-first", r1->id, &d), AB_OK);
	assert_int_equal(store_baseline_get(st, "missing", &id, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "no baseline 'missing'"));
	assert_int_equal(store_baseline_set(st, "bad", 77, &d), AB_ERR_DATA);
	assert_non_null(strstr(d.msg, "no run '77'"));
	/* names that would shadow a run, or not fit, are refused */
	const char *shadow[] = { "1", "0042", "last", "lbl" };
	int64_t r1_id = r1->id;
	snprintf(r1->label, sizeof r1->label, "lbl");
	begin(st, r1); /* a third run, labelled 'lbl' */
	r1->id = r1_id;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(store_baseline_set(st, shadow[i], r2->id, &d), AB_ERR_USAGE);
		assert_non_null(strstr(d.msg, i < 3 ? "would read as a run" : "is the label of run 3"));
	}
	char long_name[80];
	memset(long_name, 'n', 64);
	long_name[64] = '\0';
	assert_int_equal(store_baseline_set(st, long_name, r2->id, &d), AB_ERR_USAGE);
	assert_non_null(strstr(d.msg, "must be 1 to 63 characters"));
	long_name[63] = '\0';
	assert_int_equal(store_baseline_set(st, long_name, r2->id, &d), AB_OK);
	assert_int_equal(sql_int("DELETE FROM baselines WHERE length(name) = 63 RETURNING 1"), 1);

	struct store_baseline *v = NULL;
	int n = 0;
	assert_int_equal(store_baseline_list(st, &v, &n, &d), AB_OK);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].name, "a-first");
	assert_int_equal(v[0].run_id, r1->id);
	assert_string_equal(v[0].scenario_name, "glm_small");
	assert_string_equal(v[0].device, "NVIDIA H200");
	assert_string_equal(v[1].name, "nightly");
	assert_int_equal(v[1].run_id, r2->id);
	assert_string_equal(v[1].scenario_name, "glm_1024");
	assert_string_equal(v[1].device, "NVIDIA H100");
	assert_int_equal(strlen(v[1].set_at), 20);
	free(v);
	results_run_free(r1);
	results_run_free(r2);
	store_close(st);
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
					     "outputs.has_ref", "runs.recheck" };
	/* Back to version 4: migrations 6 (run owners), 8 (cases planned, the
	 * copy floor, timing), 9 (arms per case, outputs without a reference;
	 * run_arms keeps its rebuilt form, which 7, python among the kinds,
	 * leaves as it is) and 10 (rechecks; 9 and 10 rebuild run_arms again)
	 * are undone too. */
	sql_exec("DROP INDEX runs_status");
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
	results_run_free(back);
	results_run_free(r);
	store_close(st);
}

static void test_copy_gbps_cache(void **state)
{
	(void)state;
	struct store *st = open_db();
	struct ab_diag d = { "" };
	double g = -1;
	assert_int_equal(store_device_copy_gbps(st, "GPU-1", &g, &d), AB_OK);
	assert_true(g == 0);

	struct results_run *r = make_run("", "2025-01-01T00:00:00Z", "GPU-1", 0);
	begin(st, r);
	assert_int_equal(store_device_copy_gbps(st, "GPU-1", &g, &d), AB_OK);
	assert_true(g == 0);
	/* measured after begin: finish caches it on the same device row */
	r->device.copy_gbps = 3950.5;
	finish(st, r);
	assert_int_equal(store_device_copy_gbps(st, "GPU-1", &g, &d), AB_OK);
	assert_true(g == 3950.5);
	/* the same device again: one row, a new value replaces, 0 keeps it */
	r->device.copy_gbps = 4000.25;
	begin(st, r);
	r->device.copy_gbps = 0;
	begin(st, r);
	assert_int_equal(sql_int("SELECT count(*) FROM devices"), 1);
	assert_int_equal(store_device_copy_gbps(st, "GPU-1", &g, &d), AB_OK);
	assert_true(g == 4000.25);
	/* a new driver is a new device row; the uuid still finds the value */
	snprintf(r->device.driver_version, sizeof r->device.driver_version, "590.1");
	begin(st, r);
	assert_int_equal(sql_int("SELECT count(*) FROM devices"), 2);
	assert_int_equal(store_device_copy_gbps(st, "GPU-1", &g, &d), AB_OK);
	assert_true(g == 4000.25);
	assert_int_equal(store_device_copy_gbps(st, "GPU-other", &g, &d), AB_OK);
	assert_true(g == 0);
	results_run_free(r);
	store_close(st);
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

static void test_default_path(void **state)
{
	(void)state;
	unsetenv("ABBENCH_DB");
	assert_string_equal(store_default_path("x.db"), "x.db");
	assert_string_equal(store_default_path(NULL), "abbench.db");
	setenv("ABBENCH_DB", "", 1);
	assert_string_equal(store_default_path(NULL), "abbench.db");
	setenv("ABBENCH_DB", "/tmp/env.db", 1);
	assert_string_equal(store_default_path(NULL), "/tmp/env.db");
	assert_string_equal(store_default_path("cli.db"), "cli.db");
	unsetenv("ABBENCH_DB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_and_resolve, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fail_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arm_sources, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finish_failure_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_schema_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cases_committed_one_by_one, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_of_sweeps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_only_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupted_and_last, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_runs_marked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_only_cases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_of_python_arms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_of_kinds_and_rechecks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baselines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_gbps_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_rows_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_text_refused_on_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_refused, setup, teardown),
		cmocka_unit_test(test_default_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
