/*
 * run_case.c - measures one case: inputs from the seeded generator, then
 * each slot of the bracket (warm-up, samples until the stopping rule says
 * enough), then the checks of the slot's outputs and of its inputs (an
 * arm must leave them as they were: their digests are compared after the
 * slot's first call and at its end, inputcheck.h), and the hashes of its
 * outputs after a fixed subset of its samples (determinism.h).
 *
 * The case's host buffers are case_data.h's; a slot's tensors are checked
 * against the first A slot's by slot_check.h and, in a sweep that asks
 * for it, against the sweep's earlier cases row by row (invariance.h).
 */
#include "run/run_case.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/copy_floor.h"
#include "common/stats.h"
#include "run/case_data.h"
#include "run/determinism.h"
#include "run/dump.h"
#include "run/inputcheck.h"
#include "run/inputs.h"
#include "run/interrupt.h"
#include "run/invariance.h"
#include "run/refcompute.h"
#include "run/slot_check.h"
#include "run/stopping.h"
#include "run/supervise.h"

/* A slot's samples, kept with the run (samples_ns, kernel_ns, host_ns),
 * and what it needs while it runs (the kept samples' ids, the stopping
 * rule's sorted copy, the attribution's per-sample sums):
 * slot_alloc_samples, slot_run and case_measure allocate these. */
#define SLOT_KEPT_ARRAYS 3

static uint64_t slot_kept_bytes(int cap)
{
	return (uint64_t)cap * SLOT_KEPT_ARRAYS * sizeof(double);
}

static uint64_t slot_work_bytes(int cap)
{
	return (uint64_t)cap * (sizeof(uint32_t) + sizeof(double) + sizeof(double));
}

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
	return data + invariance_bytes(c) + (uint64_t)n_slots * slot_kept_bytes(cap) + slot_work_bytes(cap);
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

/* Adds the time since *t0 to the run's phase (a field of env->times, NULL
 * when none is kept) and restarts the clock at now. */
static void phase_add(double *acc, struct timespec *t0)
{
	if (acc)
		*acc += run_seconds_since(t0);
	clock_gettime(CLOCK_MONOTONIC, t0);
}

#define PHASE(env, field) ((env)->times ? &(env)->times->field : NULL)

/* Slot labels: A1, A2, ... always numbered; B alone when the bracket has a
 * single B (ABA -> A1 B A2), else B1, B2, ... */
static void slot_label(const char *bracket, int position, char *buf, size_t len)
{
	char letter = bracket[position];
	int nth = 0, total = 0;
	for (int i = 0; bracket[i]; i++) {
		if (bracket[i] != letter)
			continue;
		total++;
		if (i <= position)
			nth++;
	}
	if (letter == 'B' && total == 1)
		snprintf(buf, len, "B");
	else
		snprintf(buf, len, "%c%d", letter, nth % 100); /* brackets are at most 16 letters */
}

/* "1:05" or "1:02:05". */
static void clock_text(double s, char *buf, size_t len)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* The share of the run done: whole slots before this one, plus this slot's
 * samples against its cap (the stopping rule may end it sooner, so the
 * estimate errs long). */
static double progress_done(const struct run_case_env *env, const struct results_slot *sl, int n, bool done)
{
	int per_case = (int)strlen(env->scn->bracket);
	double in_slot = done ? 1 : fmin(1, (double)n / (env->sampling.max_samples > 0 ? env->sampling.max_samples : 1));
	double slots = (double)env->case_index * per_case + sl->position + in_slot;
	return slots / ((double)env->n_cases * per_case);
}

/* "[2/5] ln_modulate B fused 120 samples  elapsed 0:12, left ~0:30"; the
 * estimate of what is left is the elapsed time scaled by the share not
 * yet done (shown once a twentieth of the run is). */
static void progress_line(const struct run_case_env *env, const char *case_name, const struct results_slot *sl, int n,
			  bool done)
{
	char el[32], left[32] = "?";
	if (!env->progress)
		return;
	double elapsed = run_seconds_since(&env->started), frac = progress_done(env, sl, n, done);
	clock_text(elapsed, el, sizeof el);
	if (frac >= 0.05)
		clock_text(elapsed * (1 - frac) / frac, left, sizeof left);
	fprintf(stderr, "\r[%d/%d] %-20s %-3s %-8s %5d samples  elapsed %s, left ~%s   ", env->case_index + 1,
		env->n_cases, case_name, sl->label, sl->variant, n, el, left);
	if (done && env->case_index + 1 == env->n_cases && frac >= 1)
		fputc('\n', stderr);
	fflush(stderr);
}

/* One slot while it runs: what its steps share. */
struct slot_ctx {
	const struct run_case_env *env;
	const struct scenario_case *c;
	struct case_data *cd;
	const struct site_variant *v;
	struct attrib_collector *kc;
	struct results_slot *sl;
	uint32_t *kept_ids;   /* [max_samples]: the sample id of each kept sample */
	bool first_checked;   /* the inputs were checked after the slot's first call */
	const struct scenario_sampling *rule; /* when it stops: the run's, or the copy floor's */
	bool quiet;           /* no progress lines (the copy floor's samples) */
	bool hash;            /* outputs hashed after some samples (determinism.h; not the copy floor's) */
	struct determinism det;
	uint32_t last_id, last_hashed; /* the last sample's id, the last hashed one's */
	double limit_s;       /* each call's time limit (an arm from outside's); 0 none (supervise.h) */
};

static enum ab_rc slot_alloc_samples(struct results_slot *sl, int cap, struct ab_diag *d)
{
	sl->samples_ns = malloc(slot_kept_bytes(cap) / SLOT_KEPT_ARRAYS);
	sl->kernel_ns = malloc(slot_kept_bytes(cap) / SLOT_KEPT_ARRAYS);
	sl->host_ns = malloc(slot_kept_bytes(cap) / SLOT_KEPT_ARRAYS);
	if (!sl->samples_ns || !sl->kernel_ns || !sl->host_ns)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate %d samples", cap);
	return AB_OK;
}

/* Every input against its digest from when the case made it: an arm that
 * writes into an input would feed the next samples and slots other data.
 * Read back into the case's host copy (no second copy is kept); when is
 * what the message says of the moment. */
static enum ab_rc slot_check_inputs(const struct slot_ctx *x, const char *when, struct ab_diag *d)
{
	struct case_data *cd = x->cd;
	const struct site_desc *s = cd->site;
	for (int i = 0; i < s->n_tensors; i++) {
		if (!cd->host.t[i] || !site_role_is_input(s->tensors[i].role))
			continue;
		struct inputcheck_digest now;
		enum ab_rc rc = x->env->ops->read_tensor(x->env->bk, i, cd->host.t[i], cd->bytes[i], d);
		if (rc)
			return rc;
		inputcheck_digest(cd->host.t[i], cd->bytes[i], &now);
		if (!inputcheck_same(&now, &cd->made[i]))
			return ab_fail(d, AB_ERR_BACKEND, "arm '%s' (slot %s) wrote into its input '%s' (seen %s)",
				       x->sl->variant, x->sl->label, s->tensors[i].name, when);
	}
	return AB_OK;
}

/* One call of the arm: a warm-up (id ATTRIB_UNTIMED) or a measured
 * sample; after the slot's first, the inputs are checked (an arm that
 * changes an input on every call restores it after an even number), and
 * *check_ns says how long that took. */
static enum ab_rc slot_call(struct slot_ctx *x, uint32_t id, struct bk_sample *smp, double *check_ns,
			    struct ab_diag *d)
{
	const struct run_case_env *env = x->env;
	supervise_call_begin(false);
	enum ab_rc rc = supervise_call_end(env->ops->sample(env->bk, x->v, id, x->kc, smp, d), d);
	*check_ns = 0;
	if (!rc)
		rc = interrupt_check(d);
	if (!rc && !x->first_checked) {
		struct timespec t0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		x->first_checked = true;
		rc = slot_check_inputs(x, "after its first call", d);
		*check_ns = run_seconds_since(&t0) * 1e9;
	}
	return rc;
}

/* The outputs after measured sample id, hashed (determinism.h): read back
 * first unless the slot's checks just did (read false). *ns: how long it
 * took, which the stopping rule does not count. */
static enum ab_rc slot_hash_outputs(struct slot_ctx *x, uint32_t id, bool read, double *ns, struct ab_diag *d)
{
	struct case_data *cd = x->cd;
	const void *out[RESULTS_MAX_OUTPUTS];
	size_t bytes[RESULTS_MAX_OUTPUTS];
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int o = 0; o < cd->n_out; o++) {
		int ti = cd->out_index[o];
		enum ab_rc rc = read ? x->env->ops->read_tensor(x->env->bk, ti, cd->host.t[ti], cd->bytes[ti], d) : AB_OK;
		if (rc)
			return rc;
		out[o] = cd->host.t[ti];
		bytes[o] = cd->bytes[ti];
	}
	determinism_take(&x->det, id, out, bytes);
	x->last_hashed = id;
	*ns = run_seconds_since(&t0) * 1e9;
	return AB_OK;
}

/* Warm-up, then samples until the stopping rule says enough. The input
 * check after the first measured sample (no warm-up) and the output
 * hashes are not counted in the rule's elapsed time. */
static enum ab_rc slot_sample_loop(struct slot_ctx *x, struct ab_diag *d)
{
	const struct run_case_env *env = x->env;
	struct results_slot *sl = x->sl;
	struct bk_sample smp;
	struct stopping_state st;
	struct timespec t0;
	double check_ns, excluded_ns = 0;
	enum ab_rc rc;
	const struct scenario_sampling *rule = x->rule;
	for (int i = 0; i < rule->warmup; i++)
		if ((rc = slot_call(x, ATTRIB_UNTIMED, &smp, &check_ns, d)))
			return rc;
	double *sorted = malloc((size_t)rule->max_samples * sizeof *sorted);
	if (!sorted)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate %d samples", rule->max_samples);
	stopping_init(&st, rule, sorted, rule->max_samples);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint32_t id = 1;; id++) {
		double hash_ns = 0;
		if ((rc = slot_call(x, id, &smp, &check_ns, d)) ||
		    (x->hash && determinism_hashed(id) && (rc = slot_hash_outputs(x, id, true, &hash_ns, d)))) {
			free(sorted);
			return rc;
		}
		x->last_id = id;
		excluded_ns += check_ns + hash_ns;
		double elapsed_ns = run_seconds_since(&t0) * 1e9 - excluded_ns;
		bool stop;
		if (smp.discarded) {
			sl->n_discarded++;
			stop = stopping_check_time(&st, elapsed_ns) || (int)id >= rule->max_samples;
		} else {
			x->kept_ids[sl->n_samples] = id;
			sl->host_ns[sl->n_samples] = smp.host_ns;
			sl->samples_ns[sl->n_samples++] = smp.wall_ns;
			stop = stopping_add(&st, smp.wall_ns, elapsed_ns);
		}
		if ((id & 15) == 0 && !x->quiet)
			progress_line(env, x->c->name, sl, sl->n_samples, false);
		if (stop || (int)id >= rule->max_samples)
			break;
	}
	if (st.reason == STOPPING_NOT_YET)
		st.reason = sl->n_samples >= rule->max_samples ? STOPPING_MAX_SAMPLES : STOPPING_MAX_TIME;
	snprintf(sl->stopping_reason, sizeof sl->stopping_reason, "%s", stopping_reason_str(st.reason));
	sl->noise = stopping_noise(&st);
	free(sorted);
	return AB_OK;
}

/* Sample ids run over kept and discarded samples alike; kernel sums are
 * per id. Take them in the kept samples' order. */
static void slot_kernel_sums(const struct attrib_collector *kc, const uint32_t *kept_ids, struct results_slot *sl)
{
	for (int k = 0; k < sl->n_samples; k++) {
		uint32_t id = kept_ids[k];
		sl->kernel_ns[k] = (int)id <= kc->max_samples ? kc->sample_kernel_ns[id - 1] : NAN;
	}
}

/* The known (not NAN) of x[0..n) into tmp; how many. */
static int known_values(const double *x, int n, double *tmp)
{
	int known = 0;
	for (int i = 0; tmp && i < n; i++)
		if (!isnan(x[i]))
			tmp[known++] = x[i];
	return known;
}

/* The slot's figures from its kept samples: wall time, kernel median, and
 * the host time of a call (median and 90th percentile) where the backend
 * measured it. */
static void slot_summarise(struct results_slot *sl)
{
	int n = sl->n_samples;
	sl->median_ns = stats_median(sl->samples_ns, n);
	sl->p10_ns = stats_quantile(sl->samples_ns, n, 0.10);
	sl->p90_ns = stats_quantile(sl->samples_ns, n, 0.90);
	sl->min_ns = stats_quantile(sl->samples_ns, n, 0.0);
	sl->max_ns = stats_quantile(sl->samples_ns, n, 1.0);
	sl->mean_ns = stats_mean(sl->samples_ns, n);
	double *tmp = malloc((size_t)(n ? n : 1) * sizeof(double));
	int known = known_values(sl->kernel_ns, n, tmp);
	sl->kernel_median_ns = known ? stats_median(tmp, known) : NAN;
	known = known_values(sl->host_ns, n, tmp);
	sl->host_median_ns = known ? stats_median(tmp, known) : NAN;
	sl->host_p90_ns = known ? stats_quantile(tmp, known, 0.90) : NAN;
	free(tmp);
}

/* The first slot of each arm dumps its outputs and the statistics and
 * scratch tensors the arm writes (arms_writes: a built-in eager's chain's,
 * a user arm's writes =). */
static enum ab_rc slot_dump(const struct slot_ctx *x, struct ab_diag *d)
{
	struct case_data *cd = x->cd;
	const struct site_desc *s = cd->site;
	uint32_t writes = arms_writes(x->env->arms, x->c, x->sl->arm);
	for (int i = 0; i < s->n_tensors; i++) {
		enum site_role r = s->tensors[i].role;
		if (!cd->host.t[i] || !(writes & SITE_IO(i)))
			continue;
		enum ab_rc rc;
		if (r != SITE_OUT && (rc = x->env->ops->read_tensor(x->env->bk, i, cd->host.t[i], cd->bytes[i], d)))
			return rc;
		char stem[128];
		snprintf(stem, sizeof stem, "%s_%s_%s", x->sl->label, x->sl->variant, s->tensors[i].name);
		if ((rc = dump_tensor(x->env->dump_dir, x->c->name, stem, s, i, &x->c->dims, cd->host.t[i], d)))
			return rc;
	}
	return AB_OK;
}

static bool first_slot_of_arm(const char *bracket, int position)
{
	for (int i = 0; i < position; i++)
		if (bracket[i] == bracket[position])
			return false;
	return true;
}

/* The timed part of a slot: begin, warm-up and samples, end, kernel table.
 * slot_begin may call an arm from outside once (backend.h): its inputs are
 * checked right after, as after any slot's first call. */
static enum ab_rc slot_measure(struct slot_ctx *x, struct ab_diag *d)
{
	const struct run_case_env *env = x->env;
	struct results_slot *sl = x->sl;
	char range[160];
	struct timespec t0;
	enum ab_rc rc;
	snprintf(range, sizeof range, "%s/%s/%s", x->c->name, sl->variant, sl->label);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	attrib_reset(x->kc);
	supervise_slot(x->c->name, sl->variant, sl->label, x->limit_s);
	supervise_call_begin(true); /* an arm from outside is called once there: its warm-up */
	if ((rc = supervise_call_end(env->ops->slot_begin(env->bk, x->v, range, &sl->clocks_before, d), d)))
		return rc;
	if (x->v->ext && !x->first_checked && (rc = slot_check_inputs(x, "after its first call", d)))
		return rc;
	if ((rc = slot_sample_loop(x, d)))
		return rc;
	if ((rc = env->ops->slot_end(env->bk, x->kc, &sl->clocks_after, d)))
		return rc;
	sl->elapsed_s = run_seconds_since(&t0);
	if (!x->quiet)
		progress_line(env, x->c->name, sl, sl->n_samples, true);
	if ((rc = attrib_export(x->kc, sl, d)))
		return rc;
	slot_kernel_sums(x->kc, x->kept_ids, sl);
	return AB_OK;
}

/* After the slot's checks read its outputs back: the last call hashed
 * when the loop did not, the determinism figures into the slot. */
static enum ab_rc slot_determinism(struct slot_ctx *x, struct ab_diag *d)
{
	const char *names[RESULTS_MAX_OUTPUTS];
	double ns;
	enum ab_rc rc = x->last_id && x->last_id != x->last_hashed ? slot_hash_outputs(x, x->last_id, false, &ns, d) : AB_OK;
	for (int o = 0; o < x->cd->n_out; o++)
		names[o] = x->cd->site->tensors[x->cd->out_index[o]].name;
	if (!rc)
		determinism_result(&x->det, names, &x->sl->check);
	return rc;
}

/* The first slot of each arm, in a sweep that asks for it: its outputs
 * row by row against the sweep's earlier cases (invariance.h). */
static enum ab_rc slot_invariance(const struct slot_ctx *x, struct results_invariance *inv, struct ab_diag *d)
{
	struct case_data *cd = x->cd;
	void *out[RESULTS_MAX_OUTPUTS];
	int arm = x->sl->arm == 'b';
	if (!x->env->inv || !first_slot_of_arm(x->env->scn->bracket, x->sl->position))
		return AB_OK;
	for (int o = 0; o < cd->n_out; o++)
		out[o] = cd->host.t[cd->out_index[o]];
	return invariance_take(x->env->inv, x->c, arm, x->sl->label, cd->n_out, cd->out_index, out, &inv[arm], d);
}

/* The variant of sl's arm in case c (its name in sl->variant): a user
 * arm's, else the site's own of that name. */
static enum ab_rc slot_variant(const struct run_case_env *env, const struct scenario_case *c,
			       const struct results_slot *sl, const struct site_variant **v, struct ab_diag *d)
{
	*v = arms_variant(env->arms, c, sl->arm);
	if (!*v)
		*v = site_find_variant(c->site, sl->variant);
	if (!*v)
		return ab_fail(d, AB_ERR_INPUT, "site '%s' has no variant '%s'", c->site->name, sl->variant);
	return AB_OK;
}

/* Each call's time limit for the case's arm of side ('a', 'b'): the
 * scenario's call_limit_s for an arm from outside, none for a built-in
 * variant (supervise.h). */
static double slot_limit_s(const struct run_case_env *env, const struct scenario_case *c, char side)
{
	return arms_variant(env->arms, c, side) ? env->scn->call_limit_s : 0;
}

static enum ab_rc slot_run(const struct run_case_env *env, const struct scenario_case *c, struct case_data *cd, int position,
			   struct attrib_collector *kc, struct results_slot *sl, struct results_invariance *inv,
			   struct ab_diag *d)
{
	const struct scenario *scn = env->scn;
	const struct site_variant *v;
	enum ab_rc rc;
	sl->arm = scn->bracket[position] == 'A' ? 'a' : 'b';
	sl->position = position;
	sl->warmup = env->sampling.warmup;
	slot_label(scn->bracket, position, sl->label, sizeof sl->label);
	snprintf(sl->variant, sizeof sl->variant, "%s", sl->arm == 'a' ? c->arm_a : c->arm_b);
	if ((rc = slot_variant(env, c, sl, &v, d)))
		return rc;
	if ((rc = slot_alloc_samples(sl, env->sampling.max_samples, d)))
		return rc;
	struct slot_ctx x = { .env = env, .c = c, .cd = cd, .v = v, .kc = kc, .sl = sl, .rule = &env->sampling,
			      .hash = true, .limit_s = slot_limit_s(env, c, sl->arm) };
	struct timespec t0;
	determinism_begin(&x.det, cd->n_out);
	x.kept_ids = malloc((size_t)env->sampling.max_samples * sizeof *x.kept_ids);
	if (!x.kept_ids)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate sample ids");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = slot_measure(&x, d);
	free(x.kept_ids);
	phase_add(PHASE(env, slots_s), &t0);
	if (rc)
		return rc;
	slot_summarise(sl);
	uint32_t writes = arms_writes(env->arms, c, sl->arm);
	if ((rc = slot_check_tensors(env->ops, env->bk, cd, c, writes, sl, d)) || (rc = slot_determinism(&x, d)) ||
	    (rc = slot_invariance(&x, inv, d)) || (rc = slot_check_inputs(&x, "at the end of the slot", d)))
		return rc;
	phase_add(PHASE(env, checks_s), &t0);
	if (env->dump_dir && first_slot_of_arm(scn->bracket, position))
		return slot_dump(&x, d);
	return AB_OK;
}

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
 * no bracket, never stored): the same flush, timed span, stopping rule and
 * kernel records; its outputs are not checked (they are copies), nor its
 * inputs after a first call (the case's last slot checked them, and the
 * floor reads them only). */
static enum ab_rc floor_method(const struct run_case_env *env, const struct scenario_case *c, struct case_data *cd,
			       const struct site_variant *v, struct attrib_collector *kc, struct results_slot *sl,
			       struct ab_diag *d)
{
	struct scenario_sampling rule = floor_sampling(&env->sampling);
	snprintf(sl->label, sizeof sl->label, "floor");
	snprintf(sl->variant, sizeof sl->variant, "%s", v->name);
	sl->arm = 'b';
	sl->position = (int)strlen(env->scn->bracket);
	enum ab_rc rc = slot_alloc_samples(sl, rule.max_samples, d);
	if (rc)
		return rc;
	struct slot_ctx x = { .env = env, .c = c, .cd = cd, .v = v, .kc = kc, .sl = sl, .first_checked = true,
			      .rule = &rule, .quiet = true };
	if (!(x.kept_ids = malloc((size_t)rule.max_samples * sizeof *x.kept_ids)))
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate sample ids");
	rc = slot_measure(&x, d);
	free(x.kept_ids);
	if (!rc)
		slot_summarise(sl);
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

static enum ab_rc case_measure(const struct run_case_env *env, const struct scenario_case *c, struct case_data *cd,
			       struct results_case *out, struct ab_diag *d)
{
	const struct scenario *scn = env->scn;
	struct attrib_collector kc;
	enum ab_rc rc;
	int n_slots = (int)strlen(scn->bracket);
	out->slots = calloc((size_t)n_slots, sizeof *out->slots);
	if (!out->slots)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate slots");
	out->n_slots = n_slots;
	if ((rc = attrib_init(&kc, env->sampling.max_samples, d)))
		return rc;
	rc = env->ops->case_begin(env->bk, c->site, &cd->host, c->name, d);
	for (int p = 0; !rc && p < n_slots; p++)
		rc = slot_run(env, c, cd, p, &kc, &out->slots[p], out->inv, d);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!rc)
		rc = case_floor(env, c, cd, &kc, out, d);
	phase_add(PHASE(env, floor_s), &t0);
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
	phase_add(PHASE(env, prep_s), &t0);
	if (!rc && env->dump_dir)
		rc = case_dump_inputs(env, c, &cd, d);
	if (!rc) {
		arms_begin_case(env->arms, c);
		rc = case_measure(env, c, &cd, out, d);
	}
	case_data_free(&cd);
	rc = interrupt_over(rc, d); /* a call a signal stopped failed because of it */
	return rc ? case_context(d, rc, c->name) : AB_OK;
}

/* ---- every arm once, before the run ------------------------------------ */

/* One call of the case's arm of side ('a', 'b'), untimed, into nothing
 * kept: its slot_begin (an arm from outside is primed there: its prepare
 * and first call, JIT compilation included), one untimed sample in the
 * run's own mode (under launch_gaps = hide an arm that waits for the GPU
 * while queueing fails here), its slot_end (guard zones; a Python arm's
 * tensors checked for shape, dtype, buffer and stream, pyrt_verify), and
 * the inputs checked after its first call and at the end. */
static enum ab_rc preflight_arm(const struct run_case_env *env, const struct scenario_case *c, struct case_data *cd,
				char side, struct attrib_collector *kc, struct ab_diag *d)
{
	struct results_slot sl = { .arm = side, .label = { (char)(side - 'a' + 'A') } };
	struct results_clocks clocks;
	struct bk_sample smp;
	double check_ns;
	snprintf(sl.variant, sizeof sl.variant, "%s", side == 'a' ? c->arm_a : c->arm_b);
	struct slot_ctx x = { .env = env, .c = c, .cd = cd, .kc = kc, .sl = &sl, .rule = &env->sampling, .quiet = true };
	enum ab_rc rc = slot_variant(env, c, &sl, &x.v, d);
	if (rc)
		return rc;
	if (env->progress)
		fprintf(stderr, "\rchecking every arm: %-20s %s %-16s", c->name, sl.label, sl.variant);
	attrib_reset(kc);
	supervise_slot(c->name, sl.variant, sl.label, slot_limit_s(env, c, side));
	supervise_call_begin(true); /* an arm from outside is primed there: a slot's first call */
	if ((rc = supervise_call_end(env->ops->slot_begin(env->bk, x.v, "check", &clocks, d), d)))
		return rc;
	if (x.v->ext && (rc = slot_check_inputs(&x, "after its first call", d)))
		return rc;
	x.first_checked = x.v->ext != NULL;
	if ((rc = slot_call(&x, ATTRIB_UNTIMED, &smp, &check_ns, d)) ||
	    (rc = env->ops->slot_end(env->bk, kc, &clocks, d)))
		return rc;
	return slot_check_inputs(&x, "at the end of its call", d);
}

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
			rc = preflight_arm(env, c, &cd, 'a', &kc, d);
			if (!rc)
				rc = preflight_arm(env, c, &cd, 'b', &kc, d);
			env->ops->case_end(env->bk);
		}
	}
	case_data_free(&cd);
	attrib_free(&kc);
	rc = interrupt_over(rc, d); /* a call a signal stopped failed because of it */
	return rc ? case_context(d, rc, c->name) : AB_OK;
}
