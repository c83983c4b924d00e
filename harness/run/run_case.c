/*
 * run_case.c - measures one case: inputs from the seeded generator and
 * their float64 reference, then the slots of the bracket, in one round or
 * several (run_slot.h: each slot's warm-up, samples until its stopping
 * rule or its round's share says enough, the hashes of its outputs after
 * a fixed subset of its samples (determinism.h), and the checks of its
 * tensors against the first A slot's (slot_check.h) and of its inputs: an
 * arm must leave them as they were, their digests are compared after the
 * slot's first call and at the end of each round), then the case's copy
 * floor. Before the run, every arm of every case is called once
 * (run_case_preflight).
 *
 * The case's host buffers are case_data.h's; in a sweep that asks for
 * it, the first slot of each arm is held to the sweep's earlier cases row
 * by row (invariance.h).
 */
#include "run/run_case.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/copy_floor.h"
#include "run/case_data.h"
#include "run/dump.h"
#include "run/inputcheck.h"
#include "run/inputs.h"
#include "run/refcompute.h"
#include "run/run_slot.h"

/* The batch-invariance check's rows (invariance.h): at most the arms'
 * outputs of the sweep's largest case. */
static uint64_t invariance_bytes(const struct scenario_case *c)
{
	uint64_t out = 0;
	for (int i = 0; c->invariance == SCENARIO_INVARIANCE_ROWS && i < c->site->n_tensors; i++)
		if (c->site->tensors[i].role == SITE_OUT)
			out += (uint64_t)site_tensor_bytes(&c->site->tensors[i], &c->dims);
	return 2 * out;
}

uint64_t run_case_host_bytes(const struct scenario_case *c, const struct scenario_sampling *sampling, int n_slots)
{
	uint64_t data = case_data_bytes(c);
	if (data == UINT64_MAX)
		return UINT64_MAX; /* no such case can run */
	int cap = sampling->max_samples;
	/* every slot lives for the whole case (its rounds), beside the
	 * case's scratch collector of one round's kernel sums */
	return data + invariance_bytes(c) + (uint64_t)n_slots * (run_slot_kept_bytes(cap) + run_slot_work_bytes(cap)) +
	       (uint64_t)cap * sizeof(double);
}

/* One input tensor's fill: its own seeded stream (the tensor's index in
 * the site keys it, so adding an output never changes an input's bytes).
 * A tensor's generator (input.NAME) wins; else a built-in parameter has
 * its fixed distribution and every other input the case's. Rows (for
 * special) are the tensor's last axis. A large tensor is filled in chunks
 * on threads (inputs_fill: the stream jumped ahead to each chunk, the
 * same bytes); nothing is measured meanwhile. */
static void fill_one(const struct scenario *scn, const struct scenario_case *c, struct case_data *cd, int i)
{
	const struct site_tensor *t = &cd->site->tensors[i];
	struct inputs_rng rng;
	int64_t n = site_tensor_elems(t, &c->dims), shape[SITE_MAX_RANK];
	int rank = site_tensor_shape(t, &c->dims, shape);
	struct scenario_gen g = c->gen[i].kind != SCENARIO_GEN_NONE ? c->gen[i] : inputs_gen_of(&c->input);
	/* a sweep compared row by row draws every case's inputs from one
	 * stream, so that row r is the same in all of them (invariance.h) */
	bool one_stream = c->invariance == SCENARIO_INVARIANCE_ROWS && c->sweep[0];
	inputs_rng_seed(&rng, scn->seed, one_stream ? c->sweep : c->name, i);
	if (c->gen[i].kind == SCENARIO_GEN_NONE && t->role == SITE_IN_PARAM)
		inputs_fill_param(cd->host.t[i], n, t->param, &rng);
	else
		inputs_fill(cd->host.t[i], t->dtype, n, rank ? shape[rank - 1] : 1, &g, &rng);
}

/* Every input from its own seeded stream. */
static void case_fill_inputs(const struct scenario *scn, const struct scenario_case *c, struct case_data *cd)
{
	const struct site_desc *s = cd->site;
	for (int i = 0; i < s->n_tensors; i++)
		if (cd->host.t[i] && site_role_is_input(s->tensors[i].role))
			fill_one(scn, c, cd, i);
}

/* The inputs' digests, taken as the case made them. */
static void case_digest_inputs(struct case_data *cd)
{
	const struct site_desc *s = cd->site;
	for (int i = 0; i < s->n_tensors; i++) {
		if (cd->host.t[i] && site_role_is_input(s->tensors[i].role))
			inputcheck_digest(cd->host.t[i], cd->bytes[i], &cd->made[i]);
	}
}

double run_seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

void run_phase_add(double *acc, struct timespec *t0)
{
	if (acc)
		*acc += run_seconds_since(t0);
	clock_gettime(CLOCK_MONOTONIC, t0);
}

#define PHASE(env, field) ((env)->times ? &(env)->times->field : NULL)

/* ---- the copy floor ---------------------------------------------------- */

/* A floor method's sampling: the run's rule with at most this many
 * samples. A copy's samples are unimodal and the median rule stops them
 * early; the cap bounds the cost where they are not. */
#define FLOOR_MAX_SAMPLES 500

static struct scenario_sampling floor_sampling(const struct scenario_sampling *run)
{
	struct scenario_sampling f = *run;
	if (f.max_samples <= 0 || f.max_samples > FLOOR_MAX_SAMPLES)
		f.max_samples = FLOOR_MAX_SAMPLES;
	if (f.min_samples > f.max_samples)
		f.min_samples = f.max_samples;
	return f;
}

/* One method of the copy floor, measured like an arm into sl (a slot of
 * no bracket, never stored, run_slot.h): the same flush, timed span,
 * stopping rule and kernel records, in one stretch. */
static enum ab_rc floor_method(const struct run_case_env *env, const struct scenario_case *c, struct case_data *cd,
			       const struct site_variant *v, struct attrib_collector *kc, struct results_slot *sl,
			       struct ab_diag *d)
{
	struct scenario_sampling rule = floor_sampling(&env->sampling);
	struct slot_ctx x;
	enum ab_rc rc = run_slot_open(&x, env, c, cd, 0, v, &rule, 1, kc, sl, NULL, d);
	if (!rc)
		rc = run_slot_round(&x, d);
	if (!rc)
		rc = run_slot_close(&x, d);
	run_slot_free(&x);
	return rc;
}

/* "vec_cs 18.05 us" of a method's median, appended to the case's detail. */
static void floor_detail_add(struct results_case *out, const char *method, double median_ns)
{
	size_t used = strlen(out->copy_floor_detail);
	if (used + 1 < sizeof out->copy_floor_detail)
		snprintf(out->copy_floor_detail + used, sizeof out->copy_floor_detail - used, "%s%s %.4g us",
			 used ? ", " : "", method, median_ns / 1e3);
}

/* The case's copy floor: every method the backend offers, after the
 * bracket (its A/B/A slots stay back to back), the fastest median kept.
 * A site of more inputs or outputs than the floor takes (a declared one)
 * gets none: not measured, the reason in copy_floor_detail. */
static enum ab_rc case_floor(const struct run_case_env *env, const struct scenario_case *c, struct case_data *cd,
			     struct attrib_collector *kc, struct results_case *out, struct ab_diag *d)
{
	int n = env->ops->floor_methods ? env->ops->floor_methods(env->bk) : 0;
	enum ab_rc rc = AB_OK;
	if (n > 0 && !copy_floor_fits(c->site, c->affine, out->copy_floor_detail, sizeof out->copy_floor_detail))
		return AB_OK;
	for (int m = 0; !rc && m < n; m++) {
		const struct site_variant *v = env->ops->floor_variant(env->bk, m);
		struct results_slot sl;
		memset(&sl, 0, sizeof sl);
		if (!v)
			continue;
		if (!(rc = floor_method(env, c, cd, v, kc, &sl, d)) && sl.n_samples > 0) {
			const char *method = v->name + strlen(BACKEND_FLOOR_PREFIX);
			floor_detail_add(out, method, sl.median_ns);
			if (!(out->copy_floor_ns > 0) || sl.median_ns < out->copy_floor_ns) {
				out->copy_floor_ns = sl.median_ns;
				out->copy_floor_kernel_ns = sl.kernel_median_ns;
				out->copy_floor_samples = sl.n_samples;
				snprintf(out->copy_floor_method, sizeof out->copy_floor_method, "%s", method);
			}
		}
		results_slot_release(&sl);
	}
	return rc;
}

/* A case's dtype: its site's first output's (bf16 for the built-in sites,
 * the scenario's dtype); the scenario's for a site without outputs. */
static const char *case_dtype(const struct site_desc *s, const char *scenario_dtype)
{
	for (int i = 0; i < s->n_tensors; i++)
		if (s->tensors[i].role == SITE_OUT)
			return site_dtype_name(s->tensors[i].dtype);
	return scenario_dtype;
}

static void case_header(const struct run_case_env *env, const struct scenario_case *c, struct results_case *out)
{
	const struct scenario *scn = env->scn;
	snprintf(out->name, sizeof out->name, "%s", c->name);
	snprintf(out->site, sizeof out->site, "%s", c->site->name);
	site_format_shape(&c->shape, out->shape, sizeof out->shape);
	snprintf(out->dtype, sizeof out->dtype, "%s", case_dtype(c->site, scn->dtype));
	out->eps = c->eps;
	out->affine = c->affine;
	out->count = c->count;
	scenario_case_describe_input(c, out->input, sizeof out->input);
	snprintf(out->sweep, sizeof out->sweep, "%s", c->sweep);
	snprintf(out->axis, sizeof out->axis, "%s", c->axis);
	out->axis_value = c->axis_value;
	out->bytes_min = site_min_bytes(c->site, &c->dims, c->affine);
	out->bytes_a = arms_bytes(env->arms, c, 'a');
	out->bytes_b = arms_bytes(env->arms, c, 'b');
	snprintf(out->arm_a, sizeof out->arm_a, "%s", c->arm_a);
	snprintf(out->arm_b, sizeof out->arm_b, "%s", c->arm_b);
	out->copy_floor_ns = out->copy_floor_kernel_ns = NAN; /* until case_floor measures it */
}

static enum ab_rc case_dump_inputs(const struct run_case_env *env, const struct scenario_case *c, struct case_data *cd,
				   struct ab_diag *d)
{
	const struct site_desc *s = cd->site;
	for (int i = 0; i < s->n_tensors; i++) {
		if (!cd->host.t[i] || !site_role_is_input(s->tensors[i].role))
			continue;
		char stem[64];
		snprintf(stem, sizeof stem, "in_%s", s->tensors[i].name);
		enum ab_rc rc = dump_tensor(env->dump_dir, c->name, stem, s, i, &c->dims, cd->host.t[i], d);
		if (rc)
			return rc;
	}
	return AB_OK;
}

/* Whether every slot's stopping rule is met after a round (each slot
 * judged, so that each records its own reason). */
static bool rounds_done(struct slot_ctx *x, int n)
{
	bool all = true;
	for (int p = 0; p < n; p++)
		all = run_slot_judge(&x[p]) && all;
	return all;
}

/* The bracket's slots, in rounds: each round measures every slot, in
 * bracket order in odd rounds and in reverse in even ones (A1 B A2, A2 B
 * A1, ...: each A slot as often before B as after it, so that a drift
 * within a round, or what the slot before does to the next, reaches A1
 * and A2 alike; B stays in the middle either way); with several rounds
 * the case stops after the first at whose end every slot's rule is met,
 * else after the last (run_slot.h). */
static enum ab_rc case_rounds(const struct run_case_env *env, const struct scenario_case *c, struct case_data *cd,
			      struct attrib_collector *kc, struct results_case *out, struct ab_diag *d)
{
	int n = out->n_slots, rounds = env->sampling.rounds > 1 ? env->sampling.rounds : 1, opened = 0;
	struct slot_ctx *x = calloc((size_t)n, sizeof *x);
	enum ab_rc rc = x ? AB_OK : ab_fail(d, AB_ERR_NOMEM, "cannot allocate slots");
	for (; !rc && opened < n; opened++)
		rc = run_slot_open(&x[opened], env, c, cd, opened, NULL, &env->sampling, rounds, kc, &out->slots[opened],
				   out->inv, d);
	for (int r = 1; !rc && r <= rounds; r++) {
		for (int k = 0; !rc && k < n; k++) {
			int p = r % 2 ? k : n - 1 - k;
			x[p].round = r;
			x[p].order = k;
			rc = run_slot_round(&x[p], d);
		}
		if (!rc && rounds > 1 && rounds_done(x, n))
			break;
	}
	if (!rc)
		run_slot_progress_end(&x[n - 1]);
	for (int p = 0; !rc && p < n; p++)
		rc = run_slot_close(&x[p], d);
	for (int p = 0; x && p < opened; p++)
		run_slot_free(&x[p]);
	free(x);
	return rc;
}

static enum ab_rc case_measure(const struct run_case_env *env, const struct scenario_case *c, struct case_data *cd,
			       struct results_case *out, struct ab_diag *d)
{
	struct attrib_collector kc;
	enum ab_rc rc;
	int n_slots = (int)strlen(env->scn->bracket);
	out->slots = calloc((size_t)n_slots, sizeof *out->slots);
	if (!out->slots)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate slots");
	out->n_slots = n_slots;
	if ((rc = attrib_init(&kc, env->sampling.max_samples, d)))
		return rc;
	rc = env->ops->case_begin(env->bk, c->site, &cd->host, c->name, d);
	if (!rc)
		rc = case_rounds(env, c, cd, &kc, out, d);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!rc)
		rc = case_floor(env, c, cd, &kc, out, d);
	run_phase_add(PHASE(env, floor_s), &t0);
	env->ops->case_end(env->bk);
	attrib_free(&kc);
	return rc;
}

/* Prefixes "case 'NAME': " to the message, unless it already starts so:
 * the backends name the case in their own messages ("case 'x', arm 'y',
 * sample 3: ..."), which must not read "case 'x': case 'x', ...". */
static enum ab_rc case_context(struct ab_diag *d, enum ab_rc rc, const char *name)
{
	char prefix[SCENARIO_NAME_MAX + 16];
	int n = snprintf(prefix, sizeof prefix, "case '%s'", name);
	if (n > 0 && !strncmp(d->msg, prefix, (size_t)n))
		return rc;
	return ab_wrap(d, rc, "%s", prefix);
}

enum ab_rc run_case_run(const struct run_case_env *env, const struct scenario_case *c, struct results_case *out, struct ab_diag *d)
{
	struct case_data cd;
	struct timespec t0;
	enum ab_rc rc;
	memset(&cd, 0, sizeof cd);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	case_header(env, c, out);
	rc = case_data_alloc(c, arms_writes(env->arms, c, 'a'), &cd, d);
	if (!rc) {
		case_fill_inputs(env->scn, c, &cd);
		case_digest_inputs(&cd);
		if (cd.site->reference)
			refcompute_run(cd.site, &cd.host, cd.ref, cd.tol, 0);
	}
	run_phase_add(PHASE(env, prep_s), &t0);
	if (!rc && env->dump_dir)
		rc = case_dump_inputs(env, c, &cd, d);
	if (!rc) {
		arms_begin_case(env->arms, c);
		rc = case_measure(env, c, &cd, out, d);
	}
	case_data_free(&cd);
	return rc ? case_context(d, rc, c->name) : AB_OK;
}

/* ---- every arm once, before the run ------------------------------------ */

enum ab_rc run_case_preflight(const struct run_case_env *env, const struct scenario_case *c, struct ab_diag *d)
{
	struct case_data cd;
	struct attrib_collector kc;
	memset(&cd, 0, sizeof cd);
	enum ab_rc rc = attrib_init(&kc, 1, d);
	if (rc)
		return rc;
	if (!(rc = case_data_alloc(c, arms_writes(env->arms, c, 'a'), &cd, d))) {
		case_fill_inputs(env->scn, c, &cd);
		case_digest_inputs(&cd);
		arms_begin_case(env->arms, c);
		if (!(rc = env->ops->case_begin(env->bk, c->site, &cd.host, c->name, d))) {
			rc = run_slot_preflight(env, c, &cd, 'a', &kc, d);
			if (!rc)
				rc = run_slot_preflight(env, c, &cd, 'b', &kc, d);
			env->ops->case_end(env->bk);
		}
	}
	case_data_free(&cd);
	attrib_free(&kc);
	return rc ? case_context(d, rc, c->name) : AB_OK;
}
