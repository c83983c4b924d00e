/*
 * test_store.c - the SQLite store: a synthetic run written and read back
 * field by field, listing and resolving runs, failed runs, a failure in
 * the middle of store_finish_run leaving no rows, cases committed one by
 * one, interrupted and stale runs, baselines, the copy-bandwidth cache.
 * Schema versions and migrations are in test_store_migrations.c; files
 * and rows the store refuses in test_store_checks.c; their shared fixture
 * in store_fixture.h.
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "common/procid.h"
#include "common/results.h"
#include "store/store.h"
#include "store_fixture.h"

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
		assert_same_double(a->host_ns[i], b->host_ns[i]);
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
	assert_same_double(a->host_median_ns, b->host_median_ns);
	assert_same_double(a->host_p90_ns, b->host_p90_ns);
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
	/* the host time of a call: NULL where not measured (slot 1 of each case: 6 + 7 samples) */
	assert_int_equal(sql_int("SELECT count(*) FROM samples WHERE host_ns IS NULL"), 13);
	assert_int_equal(sql_int("SELECT count(*) FROM slots WHERE host_median_ns IS NULL AND host_p90_ns IS NULL"), 2);
	assert_int_equal(sql_int("SELECT count(*) FROM slots WHERE host_median_ns = 11400.375 AND host_p90_ns = 17100.5625"),
			 4);

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
	r->arm_sources[0] = (struct results_arm_source){ 'b', "mine", "cubin", "/x/k.cubin", "ab12", "cubin kernel 'k'", "k",
							 "" };
	r->arm_sources[1] = (struct results_arm_source){ 'a', "p", "plugin", "/x/lib.so", "cd34", "arm 'p'", "p",
							 "python=3.11.2 numpy=1.24.2" };
	snprintf(r->env, sizeof r->env, "cupti=130100");
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
	assert_string_equal(back->arm_sources[1].function, "k");
	assert_string_equal(back->arm_sources[0].versions, "python=3.11.2 numpy=1.24.2");
	assert_string_equal(back->env, "cupti=130100");
	results_run_free(back);
	/* an env that is not KEY=VALUE words is refused before anything is written */
	snprintf(r->env, sizeof r->env, "cupti = 1");
	assert_int_not_equal(store_begin_run(st, r, &d), AB_OK);
	assert_non_null(strstr(d.msg, "'cupti' is not a KEY=VALUE word"));
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
		cmocka_unit_test_setup_teardown(test_cases_committed_one_by_one, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupted_and_last, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_runs_marked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baselines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_gbps_cache, setup, teardown),
		cmocka_unit_test(test_default_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
