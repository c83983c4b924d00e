/*
 * results.c - releasing a run's results and finding a slot by its label.
 *
 * results_run_same compares two runs field by field (what `abbench merge`
 * checks when a run's UUID is already in the target database).
 *
 * Ownership (results.h): a results_run owns its scenario_text, command_line and
 * cases array; each case owns its slots array; each slot owns samples_ns,
 * kernel_ns and kernels. results_run_free releases all of that and the results_run
 * itself, so the run must come from malloc/calloc (store_load_run's does).
 */
#include "common/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void results_slot_release(struct results_slot *s)
{
	if (!s)
		return;
	free(s->samples_ns);
	free(s->kernel_ns);
	free(s->kernels);
	s->samples_ns = NULL;
	s->kernel_ns = NULL;
	s->kernels = NULL;
	s->n_samples = 0;
	s->n_kernels = 0;
}

static void case_release(struct results_case *c)
{
	for (int i = 0; i < c->n_slots; i++)
		results_slot_release(&c->slots[i]);
	free(c->slots);
	c->slots = NULL;
	c->n_slots = 0;
}

void results_run_free(struct results_run *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->n_cases; i++)
		case_release(&r->cases[i]);
	free(r->cases);
	free(r->set_run_ids);
	free(r->scenario_text);
	free(r->command_line);
	free(r);
}

const struct results_slot *results_case_slot(const struct results_case *c, const char *label)
{
	if (!c || !label)
		return NULL;
	for (int i = 0; i < c->n_slots; i++)
		if (strcmp(c->slots[i].label, label) == 0)
			return &c->slots[i];
	return NULL;
}

/* ---- comparing two runs ---------------------------------------------- */

/* Each check returns true when the field is equal, else writes what
 * differs into why (prefixed by where) and returns false. Doubles are
 * equal when their values are, NAN equal to NAN (both "unknown"). */
struct same {
	char *why;
	size_t len;
	char where[160];
};

static bool differs(struct same *s, const char *field)
{
	snprintf(s->why, s->len, "%s%s%s differs", s->where, s->where[0] ? " " : "", field);
	return false;
}

static bool num_eq(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static bool str_eq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0 && (a == NULL) == (b == NULL);
}

#define SAME_STR(s, a, b, f) (str_eq((a)->f, (b)->f) || differs((s), #f))
#define SAME_NUM(s, a, b, f) (num_eq((double)(a)->f, (double)(b)->f) || differs((s), #f))

static bool same_device(struct same *s, const struct results_device *a, const struct results_device *b)
{
	snprintf(s->where, sizeof s->where, "device");
	return SAME_STR(s, a, b, name) && SAME_STR(s, a, b, uuid) && SAME_STR(s, a, b, backend) &&
	       SAME_NUM(s, a, b, cc_major) && SAME_NUM(s, a, b, cc_minor) && SAME_NUM(s, a, b, sm_count) &&
	       SAME_NUM(s, a, b, l2_bytes) && SAME_NUM(s, a, b, mem_bytes) && SAME_STR(s, a, b, driver_version) &&
	       SAME_STR(s, a, b, runtime_version) && SAME_NUM(s, a, b, default_sm_mhz);
}

static bool same_header(struct same *s, const struct results_run *a, const struct results_run *b)
{
	s->where[0] = '\0';
	return SAME_STR(s, a, b, uuid) && SAME_STR(s, a, b, run_set) && SAME_NUM(s, a, b, shard_index) &&
	       SAME_NUM(s, a, b, shard_count) && SAME_STR(s, a, b, started_at) && SAME_STR(s, a, b, finished_at) &&
	       SAME_STR(s, a, b, status) && SAME_STR(s, a, b, error) && SAME_STR(s, a, b, label) &&
	       SAME_STR(s, a, b, scenario_name) && SAME_STR(s, a, b, scenario_path) &&
	       SAME_STR(s, a, b, scenario_text) && SAME_STR(s, a, b, scenario_hash) &&
	       SAME_STR(s, a, b, command_line) && SAME_STR(s, a, b, git_commit) && SAME_STR(s, a, b, host) &&
	       SAME_STR(s, a, b, backend) && SAME_STR(s, a, b, version) && SAME_NUM(s, a, b, quick) &&
	       SAME_STR(s, a, b, bracket) && SAME_STR(s, a, b, arm_a) && SAME_STR(s, a, b, arm_b) &&
	       SAME_NUM(s, a, b, steps) && SAME_NUM(s, a, b, forwards_per_step) && SAME_STR(s, a, b, launch_gaps) &&
	       SAME_NUM(s, a, b, l2_flush) && SAME_STR(s, a, b, notes) && SAME_STR(s, a, b, only_cases) &&
	       SAME_NUM(s, a, b, n_cases) && SAME_NUM(s, a, b, cases_planned) && SAME_NUM(s, a, b, resumed) &&
	       SAME_STR(s, a, b, timing) && SAME_NUM(s, a, b, recheck);
}

static bool same_arm_source(struct same *s, const struct results_arm_source *a, const struct results_arm_source *b)
{
	snprintf(s->where, sizeof s->where, "the source of arm %c", a->arm);
	return SAME_NUM(s, a, b, arm) && SAME_STR(s, a, b, name) && SAME_STR(s, a, b, kind) && SAME_STR(s, a, b, path) &&
	       SAME_STR(s, a, b, sha256) && SAME_STR(s, a, b, detail);
}

static bool same_case_fields(struct same *s, const struct results_case *a, const struct results_case *b)
{
	snprintf(s->where, sizeof s->where, "case %d '%s'", a->ordinal, a->name);
	return SAME_NUM(s, a, b, ordinal) && SAME_STR(s, a, b, name) && SAME_STR(s, a, b, site) &&
	       SAME_STR(s, a, b, shape) && SAME_STR(s, a, b, dtype) && SAME_NUM(s, a, b, eps) &&
	       SAME_NUM(s, a, b, affine) && SAME_NUM(s, a, b, count) && SAME_STR(s, a, b, input) &&
	       SAME_STR(s, a, b, arm_a) && SAME_STR(s, a, b, arm_b) && SAME_NUM(s, a, b, copy_floor_ns) &&
	       SAME_NUM(s, a, b, copy_floor_kernel_ns) && SAME_STR(s, a, b, copy_floor_method) &&
	       SAME_NUM(s, a, b, copy_floor_samples) && SAME_STR(s, a, b, copy_floor_detail) &&
	       SAME_NUM(s, a, b, n_slots);
}

static bool same_clocks(struct same *s, const struct results_clocks *a, const struct results_clocks *b)
{
	return SAME_NUM(s, a, b, valid) && SAME_NUM(s, a, b, sm_mhz) && SAME_NUM(s, a, b, mem_mhz) &&
	       (a->throttle_reasons == b->throttle_reasons || differs(s, "throttle_reasons")) &&
	       SAME_NUM(s, a, b, temp_c);
}

static bool same_slot_fields(struct same *s, const struct results_slot *a, const struct results_slot *b)
{
	return SAME_STR(s, a, b, label) && SAME_NUM(s, a, b, arm) && SAME_STR(s, a, b, variant) &&
	       SAME_NUM(s, a, b, position) && SAME_NUM(s, a, b, warmup) && SAME_NUM(s, a, b, n_samples) &&
	       SAME_NUM(s, a, b, n_discarded) && SAME_STR(s, a, b, stopping_reason) &&
	       SAME_NUM(s, a, b, elapsed_s) && SAME_NUM(s, a, b, median_ns) && SAME_NUM(s, a, b, p10_ns) &&
	       SAME_NUM(s, a, b, p90_ns) && SAME_NUM(s, a, b, min_ns) && SAME_NUM(s, a, b, max_ns) &&
	       SAME_NUM(s, a, b, mean_ns) && SAME_NUM(s, a, b, noise) && SAME_NUM(s, a, b, kernel_median_ns) &&
	       SAME_NUM(s, a, b, n_kernels) && SAME_NUM(s, a, b, kernel_records_bad) &&
	       same_clocks(s, &a->clocks_before, &b->clocks_before) &&
	       same_clocks(s, &a->clocks_after, &b->clocks_after) && SAME_NUM(s, a, b, n_outputs);
}

static bool same_kernel(struct same *s, const struct results_kernel *a, const struct results_kernel *b)
{
	return SAME_STR(s, a, b, name) && SAME_STR(s, a, b, family) && SAME_NUM(s, a, b, launches) &&
	       SAME_NUM(s, a, b, total_ns) && SAME_NUM(s, a, b, min_ns) && SAME_NUM(s, a, b, max_ns);
}

static bool same_output(struct same *s, const struct results_output *a, const struct results_output *b)
{
	return SAME_STR(s, a, b, tensor) && SAME_STR(s, a, b, md5) && SAME_NUM(s, a, b, bytes) &&
	       SAME_NUM(s, a, b, bit_exact) && SAME_NUM(s, a, b, mismatches) && SAME_NUM(s, a, b, max_abs_err) &&
	       SAME_NUM(s, a, b, max_err_ratio) && SAME_NUM(s, a, b, has_ref) && SAME_NUM(s, a, b, ref_ok) &&
	       SAME_NUM(s, a, b, ref_skipped);
}

static bool same_samples(struct same *s, const struct results_slot *a, const struct results_slot *b)
{
	for (int i = 0; i < a->n_samples; i++) {
		if (!num_eq(a->samples_ns[i], b->samples_ns[i]))
			return differs(s, "a sample's wall time");
		if (!num_eq(a->kernel_ns ? a->kernel_ns[i] : NAN, b->kernel_ns ? b->kernel_ns[i] : NAN))
			return differs(s, "a sample's kernel time");
	}
	return true;
}

static bool same_slot(struct same *s, const struct results_case *c, const struct results_slot *a,
		      const struct results_slot *b)
{
	snprintf(s->where, sizeof s->where, "case '%s' slot '%s'", c->name, a->label);
	if (!same_slot_fields(s, a, b) || !same_samples(s, a, b))
		return false;
	for (int i = 0; i < a->n_kernels; i++)
		if (!same_kernel(s, &a->kernels[i], &b->kernels[i]))
			return false;
	for (int i = 0; i < a->n_outputs; i++)
		if (!same_output(s, &a->outputs[i], &b->outputs[i]))
			return false;
	return true;
}

bool results_run_same(const struct results_run *a, const struct results_run *b, char *why, size_t len)
{
	struct same s = { .why = why, .len = len };
	if (!same_header(&s, a, b) || !same_device(&s, &a->device, &b->device) || !SAME_NUM(&s, a, b, n_arm_sources))
		return false;
	for (int i = 0; i < a->n_arm_sources; i++)
		if (!same_arm_source(&s, &a->arm_sources[i], &b->arm_sources[i]))
			return false;
	for (int i = 0; i < a->n_cases; i++) {
		const struct results_case *ca = &a->cases[i], *cb = &b->cases[i];
		if (!same_case_fields(&s, ca, cb))
			return false;
		for (int k = 0; k < ca->n_slots; k++)
			if (!same_slot(&s, ca, &ca->slots[k], &cb->slots[k]))
				return false;
	}
	return true;
}
