/*
 * run_case.c - measures one case: inputs from the seeded generator, then
 * each slot of the bracket (warm-up, samples until the stopping rule says
 * enough), then the checks of the slot's outputs and of its inputs (an
 * arm must leave them as they were: their digests are compared after the
 * slot's first call and at its end, inputcheck.h).
 *
 * The case's host memory is sized in one place, case_sizes: case_data_alloc
 * allocates exactly that, and run_case_host_bytes (memory admission)
 * counts it.
 */
#include "run/run_case.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/copy_floor.h"
#include "common/digest.h"
#include "run/dump.h"
#include "run/inputcheck.h"
#include "run/inputs.h"
#include "run/interrupt.h"
#include "run/refcheck.h"
#include "run/refcompute.h"
#include "common/stats.h"
#include "run/stopping.h"
#include "run/supervise.h"

/* The host buffers of one case: a copy of every present tensor (inputs as
 * the case made them, outputs as read back), the float64 reference and
 * tolerance of each output, the first A slot's outputs. */
struct case_sizes {
	size_t tensor[SITE_MAX_TENSORS]; /* bytes of tensor i; 0 when absent */
	int n_out;
	int out_index[RESULTS_MAX_OUTPUTS]; /* the SITE_OUT tensors, in table order */
	size_t ref[RESULTS_MAX_OUTPUTS];    /* bytes of output o's reference (and of its tolerance) */
};

/* Sizes c's host buffers; AB_ERR_INTERNAL for a site with more outputs
 * than a slot records. */
static enum ab_rc case_sizes(const struct scenario_case *c, struct case_sizes *z, struct ab_diag *d)
{
	const struct site_desc *s = c->site;
	memset(z, 0, sizeof *z);
	for (int i = 0; i < s->n_tensors; i++) {
		const struct site_tensor *t = &s->tensors[i];
		if (!site_tensor_present(t, c->affine))
			continue;
		z->tensor[i] = (size_t)site_tensor_bytes(t, &c->dims);
		if (t->role != SITE_OUT)
			continue;
		if (z->n_out == RESULTS_MAX_OUTPUTS)
			return ab_fail(d, AB_ERR_INTERNAL, "site '%s' has too many outputs", s->name);
		/* no reference, no room for one */
		z->ref[z->n_out] = s->reference ? (size_t)site_tensor_elems(t, &c->dims) * sizeof(double) : 0;
		z->out_index[z->n_out++] = i;
	}
	return AB_OK;
}

/* What malloc is asked for: a present tensor of 0 bytes still gets 1. */
static size_t alloc_size(size_t bytes)
{
	return bytes ? bytes : 1;
}

/* Everything case_data_alloc allocates for these sizes. */
static uint64_t case_sizes_total(const struct case_sizes *z)
{
	uint64_t total = 0;
	for (int i = 0; i < SITE_MAX_TENSORS; i++)
		total += z->tensor[i] ? alloc_size(z->tensor[i]) : 0;
	for (int o = 0; o < z->n_out; o++)
		total += 2 * (uint64_t)z->ref[o] + alloc_size(z->tensor[z->out_index[o]]);
	return total;
}

/* Host copies of a case's tensors, its reference, the digests of its
 * inputs and the bytes of the first A slot's outputs, which every later
 * slot is compared with. */
struct case_data {
	const struct site_desc *site;
	struct site_args host;
	size_t bytes[SITE_MAX_TENSORS];
	int n_out;
	int out_index[RESULTS_MAX_OUTPUTS];
	double *ref[RESULTS_MAX_OUTPUTS], *tol[RESULTS_MAX_OUTPUTS];
	void *first_a[RESULTS_MAX_OUTPUTS];
	struct results_output first_a_out[RESULTS_MAX_OUTPUTS]; /* its md5 and reference check */
	bool have_first_a;
	struct inputcheck_digest made[SITE_MAX_TENSORS]; /* each input as the case made it */
};

static void case_data_free(struct case_data *cd)
{
	for (int i = 0; i < SITE_MAX_TENSORS; i++)
		free(cd->host.t[i]);
	for (int o = 0; o < RESULTS_MAX_OUTPUTS; o++) {
		free(cd->ref[o]);
		free(cd->tol[o]);
		free(cd->first_a[o]);
	}
}

static enum ab_rc case_data_alloc(const struct scenario_case *c, struct case_data *cd, struct ab_diag *d)
{
	const struct site_desc *s = c->site;
	struct case_sizes z;
	enum ab_rc rc = case_sizes(c, &z, d);
	if (rc)
		return rc;
	cd->site = s;
	cd->host.dims = c->dims;
	cd->host.eps = (float)c->eps;
	cd->host.affine = c->affine;
	for (int i = 0; i < s->n_tensors; i++) {
		if (!site_tensor_present(&s->tensors[i], c->affine))
			continue;
		cd->bytes[i] = z.tensor[i];
		if (!(cd->host.t[i] = malloc(alloc_size(z.tensor[i]))))
			return ab_fail(d, AB_ERR_NOMEM, "cannot allocate '%s' (%zu bytes)", s->tensors[i].name, z.tensor[i]);
	}
	cd->n_out = z.n_out;
	memcpy(cd->out_index, z.out_index, sizeof z.out_index);
	for (int o = 0; o < z.n_out; o++) {
		cd->ref[o] = malloc(alloc_size(z.ref[o]));
		cd->tol[o] = malloc(alloc_size(z.ref[o]));
		cd->first_a[o] = malloc(alloc_size(z.tensor[z.out_index[o]]));
		if (!cd->ref[o] || !cd->tol[o] || !cd->first_a[o])
			return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the float64 reference and the A outputs");
	}
	return AB_OK;
}

/* A slot's samples, kept with the run (samples_ns, kernel_ns), and what it
 * needs while it runs (the kept samples' ids, the stopping rule's sorted
 * copy, the attribution's per-sample sums): slot_alloc_samples,
 * slot_run and case_measure allocate these. */
static uint64_t slot_kept_bytes(int cap)
{
	return (uint64_t)cap * 2 * sizeof(double);
}

static uint64_t slot_work_bytes(int cap)
{
	return (uint64_t)cap * (sizeof(uint32_t) + sizeof(double) + sizeof(double));
}

uint64_t run_case_host_bytes(const struct scenario_case *c, const struct scenario_sampling *sampling, int n_slots)
{
	struct case_sizes z;
	if (case_sizes(c, &z, NULL))
		return UINT64_MAX; /* no such case can run */
	int cap = sampling->max_samples;
	return case_sizes_total(&z) + (uint64_t)n_slots * slot_kept_bytes(cap) + slot_work_bytes(cap);
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
	inputs_rng_seed(&rng, scn->seed, c->name, i);
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
	double limit_s;       /* each call's time limit (an arm from outside's); 0 none (supervise.h) */
};

static enum ab_rc slot_alloc_samples(struct results_slot *sl, int cap, struct ab_diag *d)
{
	sl->samples_ns = malloc(slot_kept_bytes(cap) / 2);
	sl->kernel_ns = malloc(slot_kept_bytes(cap) / 2);
	if (!sl->samples_ns || !sl->kernel_ns)
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

/* Warm-up, then samples until the stopping rule says enough. The input
 * check after the first measured sample (no warm-up) is not counted in
 * the rule's elapsed time. */
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
		if ((rc = slot_call(x, id, &smp, &check_ns, d))) {
			free(sorted);
			return rc;
		}
		excluded_ns += check_ns;
		double elapsed_ns = run_seconds_since(&t0) * 1e9 - excluded_ns;
		bool stop;
		if (smp.discarded) {
			sl->n_discarded++;
			stop = stopping_check_time(&st, elapsed_ns) || (int)id >= rule->max_samples;
		} else {
			x->kept_ids[sl->n_samples] = id;
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

static void slot_summarise(struct results_slot *sl)
{
	int n = sl->n_samples;
	sl->median_ns = stats_median(sl->samples_ns, n);
	sl->p10_ns = stats_quantile(sl->samples_ns, n, 0.10);
	sl->p90_ns = stats_quantile(sl->samples_ns, n, 0.90);
	sl->min_ns = stats_quantile(sl->samples_ns, n, 0.0);
	sl->max_ns = stats_quantile(sl->samples_ns, n, 1.0);
	sl->mean_ns = stats_mean(sl->samples_ns, n);
	int known = 0;
	double *tmp = malloc((size_t)(n ? n : 1) * sizeof(double));
	for (int i = 0; tmp && i < n; i++)
		if (!isnan(sl->kernel_ns[i]))
			tmp[known++] = sl->kernel_ns[i];
	sl->kernel_median_ns = known ? stats_median(tmp, known) : NAN;
	free(tmp);
}

/* Elements of n, of size bytes each, whose bytes differ between a and y. */
static int64_t mismatches(const void *a, const void *y, int64_t n, size_t size)
{
	const unsigned char *p = a, *q = y;
	int64_t m = 0;
	for (int64_t e = 0; e < n; e++)
		m += memcmp(p + (size_t)e * size, q + (size_t)e * size, size) != 0;
	return m;
}

/* Whether output o of this slot has the first A slot's bytes: then its
 * md5 and reference check are that slot's (the same bytes give the same
 * digest and the same comparison), copied instead of computed again, and
 * no element differs. */
static bool output_as_first_a(const struct case_data *cd, int o, const void *buf, struct results_output *ro)
{
	if (!cd->have_first_a || memcmp(cd->first_a[o], buf, cd->bytes[cd->out_index[o]]))
		return false;
	*ro = cd->first_a_out[o]; /* the same tensor and bytes, 0 mismatches, bit-exact */
	return true;
}

/* md5, byte compare with the first A slot, reference check, per output. */
static enum ab_rc slot_check_outputs(const struct slot_ctx *x, struct ab_diag *d)
{
	const struct run_case_env *env = x->env;
	struct case_data *cd = x->cd;
	struct results_slot *sl = x->sl;
	enum ab_rc rc;
	bool is_first_a = (sl->arm == 'a' && !cd->have_first_a);
	sl->n_outputs = cd->n_out;
	for (int o = 0; o < cd->n_out; o++) {
		int ti = cd->out_index[o];
		struct results_output *ro = &sl->outputs[o];
		void *buf = cd->host.t[ti];
		int64_t n = site_tensor_elems(&cd->site->tensors[ti], &x->c->dims);
		if ((rc = env->ops->read_tensor(env->bk, ti, buf, cd->bytes[ti], d)))
			return rc;
		snprintf(ro->tensor, sizeof ro->tensor, "%s", cd->site->tensors[ti].name);
		ro->bytes = (int64_t)cd->bytes[ti];
		if (output_as_first_a(cd, o, buf, ro))
			continue;
		if ((rc = digest_md5_hex(buf, cd->bytes[ti], ro->md5, d)))
			return rc;
		if (is_first_a)
			memcpy(cd->first_a[o], buf, cd->bytes[ti]);
		/* the first A slot is the reference: nothing to compare it with */
		ro->mismatches = is_first_a ? 0 : mismatches(cd->first_a[o], buf, n, site_dtype_size(cd->site->tensors[ti].dtype));
		ro->bit_exact = ro->mismatches == 0;
		if (cd->site->reference)
			refcheck_compare(buf, cd->ref[o], cd->tol[o], n, ro);
		else
			refcheck_none(ro);
		if (is_first_a)
			cd->first_a_out[o] = *ro;
	}
	if (is_first_a)
		cd->have_first_a = true;
	return AB_OK;
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

static enum ab_rc slot_run(const struct run_case_env *env, const struct scenario_case *c, struct case_data *cd, int position,
			   struct attrib_collector *kc, struct results_slot *sl, struct ab_diag *d)
{
	const struct scenario *scn = env->scn;
	enum ab_rc rc;
	sl->arm = scn->bracket[position] == 'A' ? 'a' : 'b';
	sl->position = position;
	sl->warmup = env->sampling.warmup;
	slot_label(scn->bracket, position, sl->label, sizeof sl->label);
	snprintf(sl->variant, sizeof sl->variant, "%s", sl->arm == 'a' ? c->arm_a : c->arm_b);
	const struct site_variant *v = arms_variant(env->arms, c, sl->arm);
	bool user = v != NULL; /* an arm from outside: its calls have a time limit */
	if (!v)
		v = site_find_variant(c->site, sl->variant);
	if (!v)
		return ab_fail(d, AB_ERR_INPUT, "site '%s' has no variant '%s'", c->site->name, sl->variant);
	if ((rc = slot_alloc_samples(sl, env->sampling.max_samples, d)))
		return rc;
	struct slot_ctx x = { .env = env, .c = c, .cd = cd, .v = v, .kc = kc, .sl = sl, .rule = &env->sampling,
			      .limit_s = user ? scn->call_limit_s : 0 };
	struct timespec t0;
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
	if ((rc = slot_check_outputs(&x, d)) || (rc = slot_check_inputs(&x, "at the end of the slot", d)))
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
		rc = slot_run(env, c, cd, p, &kc, &out->slots[p], d);
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
	rc = case_data_alloc(c, &cd, d);
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
