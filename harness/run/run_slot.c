/*
 * run_slot.c - one slot of a case's bracket: its stretches of samples (one,
 * or one per round), the hashes of its outputs after some of them
 * (determinism.h), the checks after each stretch (slot_check.h, the
 * inputs' digests, batch invariance), its figures at the end (run_slot.h
 * says how the rounds share a slot's time and samples and which round's
 * check a slot keeps).
 *
 * Under the fake timer (ABBENCH_FAKE_TIMER=1, backend_cpu.c) the time the
 * stopping rule reads is the samples' modelled time, not the wall clock:
 * how many samples a slot takes is then a function of the scenario alone,
 * as the samples themselves are, and a loaded machine cannot turn a test's
 * verdict (a slot cut short by max_time under load had too few samples for
 * the gate, which said INCONCLUSIVE).
 */
#include "run/run_slot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/stats.h"
#include "run/dump.h"
#include "run/interrupt.h"
#include "run/invariance.h"
#include "run/slot_check.h"

#define PHASE(env, field) ((env)->times ? &(env)->times->field : NULL)

/* The arrays a slot keeps per sample: wall, kernel and host time. */
#define SLOT_KEPT_ARRAYS 3

uint64_t run_slot_kept_bytes(int cap)
{
	return (uint64_t)cap * SLOT_KEPT_ARRAYS * sizeof(double);
}

uint64_t run_slot_work_bytes(int cap)
{
	return (uint64_t)cap * (sizeof(uint32_t) + sizeof(double) + sizeof(double));
}

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

/* The share of the run done: whole cases, whole rounds of this one and
 * whole slots of this round before this slot, plus the share `in` of this
 * slot's stretch (against its cap: the stopping rule may end it sooner, so
 * the estimate errs long). */
static double progress_done(const struct slot_ctx *x, double in)
{
	const struct run_case_env *env = x->env;
	int per_round = (int)strlen(env->scn->bracket);
	double in_case = ((x->round - 1) + (x->order + fmin(1, in)) / per_round) / x->rounds;
	return (env->case_index + in_case) / env->n_cases;
}

/* "[2/5] ln_modulate B fused 120 samples  elapsed 0:12, left ~0:30"; the
 * estimate of what is left is the elapsed time scaled by the share not
 * yet done (shown once a twentieth of the run is). */
static void progress_line(const struct slot_ctx *x, double in, bool done)
{
	const struct run_case_env *env = x->env;
	char el[32], left[32] = "?", round[24] = "";
	if (!env->progress || x->quiet)
		return;
	double elapsed = run_seconds_since(&env->started), frac = progress_done(x, done ? 1 : in);
	clock_text(elapsed, el, sizeof el);
	if (frac >= 0.05)
		clock_text(elapsed * (1 - frac) / frac, left, sizeof left);
	if (x->rounds > 1)
		snprintf(round, sizeof round, " round %d/%d", x->round, x->rounds);
	fprintf(stderr, "\r[%d/%d] %-20s %-3s %-8s %5d samples%s  elapsed %s, left ~%s   ", env->case_index + 1,
		env->n_cases, x->c->name, x->sl->label, x->sl->variant, x->sl->n_samples, round, el, left);
	if (done && env->case_index + 1 == env->n_cases && frac >= 1)
		fputc('\n', stderr);
	fflush(stderr);
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
	enum ab_rc rc = env->ops->sample(env->bk, x->v, id, x->scratch, smp, d);
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

/* A stretch's share of a slot measured in rounds: its samples (at least
 * one) and its time. */
static int stretch_samples(const struct slot_ctx *x)
{
	int n = (x->rule->max_samples + x->rounds - 1) / x->rounds;
	return n > 0 ? n : 1;
}

static double stretch_ns(const struct slot_ctx *x)
{
	return x->rule->max_time_ms * 1e6 / x->rounds;
}

/* Keeps a measured sample (or counts a discarded one); true when it was kept. */
static bool keep(struct slot_ctx *x, const struct bk_sample *smp, uint32_t id)
{
	struct results_slot *sl = x->sl;
	if (smp->discarded) {
		sl->n_discarded++;
		return false;
	}
	x->kept_ids[sl->n_samples] = id;
	sl->host_ns[sl->n_samples] = smp->host_ns;
	sl->samples_ns[sl->n_samples++] = smp->wall_ns;
	return true;
}

/* One round: the rule judged after every sample, as a slot always was. */
static bool add_one_round(struct slot_ctx *x, const struct bk_sample *smp, uint32_t id, double elapsed_ns)
{
	bool stop = keep(x, smp, id) ? stopping_add(&x->st, smp->wall_ns, elapsed_ns)
				     : stopping_check_time(&x->st, elapsed_ns);
	return stop || (int)id >= x->rule->max_samples;
}

/* Several rounds: the stretch ends at its share of time or samples, or
 * when the slot is full; the rule is judged at the round's end. */
static bool add_in_rounds(struct slot_ctx *x, const struct bk_sample *smp, uint32_t id, int taken, double elapsed_ns)
{
	if (keep(x, smp, id))
		stopping_push(&x->st, smp->wall_ns);
	if (elapsed_ns >= stretch_ns(x))
		x->quota = STOPPING_MAX_TIME;
	else if (taken >= stretch_samples(x) || stopping_full(&x->st) || (int)id >= x->rule->max_samples)
		x->quota = STOPPING_MAX_SAMPLES;
	else
		return false;
	return true;
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

/* Warm-up, then samples until the stretch ends. The input check after
 * the first measured sample (no warm-up) and the output hashes are not
 * counted in the stretch's time; under the fake timer its time is the
 * samples' modelled time. Sample ids run on over the rounds, and so do
 * the hashed ones (ids 1-4 and the powers of two of the slot's whole
 * count). */
static enum ab_rc slot_stretch(struct slot_ctx *x, struct ab_diag *d)
{
	const struct run_case_env *env = x->env;
	bool fake = env->ops->fake_timer(env->bk);
	struct bk_sample smp;
	struct timespec t0;
	double check_ns, excluded_ns = 0, modelled_ns = 0;
	enum ab_rc rc;
	for (int i = 0; i < x->rule->warmup; i++)
		if ((rc = slot_call(x, ATTRIB_UNTIMED, &smp, &check_ns, d)))
			return rc;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int taken = 1;; taken++) {
		uint32_t id = x->next_id++;
		double hash_ns = 0;
		if ((rc = slot_call(x, id, &smp, &check_ns, d)) ||
		    (!x->floor && determinism_hashed(id) && (rc = slot_hash_outputs(x, id, true, &hash_ns, d))))
			return rc;
		x->last_id = id;
		excluded_ns += check_ns + hash_ns;
		modelled_ns += isfinite(smp.wall_ns) ? smp.wall_ns : 0;
		double elapsed_ns = fake ? modelled_ns : run_seconds_since(&t0) * 1e9 - excluded_ns;
		bool stop = x->rounds == 1 ? add_one_round(x, &smp, id, elapsed_ns)
					   : add_in_rounds(x, &smp, id, taken, elapsed_ns);
		if ((id & 15) == 0)
			progress_line(x, x->rounds == 1 ? (double)x->sl->n_samples / x->rule->max_samples
							: fmax((double)taken / stretch_samples(x), elapsed_ns / stretch_ns(x)),
				      false);
		if (stop)
			return AB_OK;
	}
}

/* The number of elements of a slot's check that differ from the first
 * A slot's (its divergences' n_diff summed) and of outputs that fail
 * the reference: what makes one round's check worse than another's. */
static void check_weight(const struct results_slot *sl, int64_t *n_diff, int *ref_failed)
{
	*n_diff = 0;
	*ref_failed = 0;
	for (int k = 0; k < sl->n_div; k++)
		*n_diff += sl->div[k].n_diff;
	for (int o = 0; o < sl->n_outputs; o++)
		*ref_failed += !sl->outputs[o].ref_ok;
}

/* Whether now's check is worse than kept's (run_slot.h). */
static bool check_worse(const struct results_slot *now, const struct results_slot *kept)
{
	int64_t n_now, n_kept;
	int ref_now, ref_kept;
	check_weight(now, &n_now, &ref_now);
	check_weight(kept, &n_kept, &ref_kept);
	return n_now > n_kept || ref_now > ref_kept;
}

/* The slot's tensors against the first A slot's (slot_check.h). Round 1
 * checks into the slot; a later round into a scratch slot of the same
 * arm and label, whose outputs, compared list and divergences replace
 * the slot's when worse (run_slot.h), so that a slot stores one round's
 * divergence rows. */
static enum ab_rc slot_check_round(struct slot_ctx *x, struct ab_diag *d)
{
	const struct run_case_env *env = x->env;
	struct results_slot *sl = x->sl;
	uint32_t writes = arms_writes(env->arms, x->c, sl->arm);
	if (x->round == 1)
		return slot_check_tensors(env->ops, env->bk, x->cd, x->c, writes, sl, d);
	struct results_slot now = { .arm = sl->arm, .position = sl->position };
	memcpy(now.label, sl->label, sizeof now.label);
	memcpy(now.variant, sl->variant, sizeof now.variant);
	enum ab_rc rc = slot_check_tensors(env->ops, env->bk, x->cd, x->c, writes, &now, d);
	if (!rc && check_worse(&now, sl)) {
		struct results_divergence *div = sl->div;
		int n_div = sl->n_div;
		sl->n_outputs = now.n_outputs;
		memcpy(sl->outputs, now.outputs, sizeof sl->outputs);
		memcpy(sl->check.compared, now.check.compared, sizeof sl->check.compared);
		sl->div = now.div;
		sl->n_div = now.n_div;
		now.div = div; /* the kept round's, released below */
		now.n_div = n_div;
	}
	results_slot_release(&now);
	return rc;
}

static bool first_slot_of_arm(const char *bracket, int position)
{
	for (int i = 0; i < position; i++)
		if (bracket[i] == bracket[position])
			return false;
	return true;
}

/* The first slot of each arm, in a sweep that asks for it, after round
 * 1: its outputs row by row against the sweep's earlier cases
 * (invariance.h). */
static enum ab_rc slot_invariance(const struct slot_ctx *x, struct ab_diag *d)
{
	struct case_data *cd = x->cd;
	void *out[RESULTS_MAX_OUTPUTS];
	int arm = x->sl->arm == 'b';
	if (!x->env->inv || !x->inv || x->round != 1 || !first_slot_of_arm(x->env->scn->bracket, x->sl->position))
		return AB_OK;
	for (int o = 0; o < cd->n_out; o++)
		out[o] = cd->host.t[cd->out_index[o]];
	return invariance_take(x->env->inv, x->c, arm, x->sl->label, cd->n_out, cd->out_index, out, &x->inv[arm], d);
}

/* After a round's checks read its outputs back: its last call hashed
 * when the stretch did not hash it. */
static enum ab_rc slot_hash_last(struct slot_ctx *x, struct ab_diag *d)
{
	double ns;
	return x->last_id && x->last_id != x->last_hashed ? slot_hash_outputs(x, x->last_id, false, &ns, d) : AB_OK;
}

/* The first slot of each arm dumps its outputs and the statistics and
 * scratch tensors the arm writes (arms_writes: a built-in eager's chain's,
 * a user arm's writes =), after its first round. */
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

/* The timed part of a round: begin, warm-up and samples, end, the round's
 * kernels added to the slot's. slot_begin may call an arm from outside
 * once (backend.h): its inputs are checked right after, as after any
 * slot's first call. The clocks before are the first round's, the clocks
 * after the last round's. */
static enum ab_rc slot_measure(struct slot_ctx *x, struct ab_diag *d)
{
	const struct run_case_env *env = x->env;
	struct results_slot *sl = x->sl;
	struct results_clocks later;
	char range[160];
	struct timespec t0;
	enum ab_rc rc;
	snprintf(range, sizeof range, "%s/%s/%s", x->c->name, sl->variant, sl->label);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	attrib_reset(x->scratch);
	if ((rc = env->ops->slot_begin(env->bk, x->v, range, x->round == 1 ? &sl->clocks_before : &later, d)))
		return rc;
	if (x->v->ext && !x->first_checked && (rc = slot_check_inputs(x, "after its first call", d)))
		return rc;
	if ((rc = slot_stretch(x, d)))
		return rc;
	if ((rc = env->ops->slot_end(env->bk, x->scratch, &sl->clocks_after, d)))
		return rc;
	sl->elapsed_s += run_seconds_since(&t0);
	progress_line(x, 1, false);
	return attrib_merge(&x->kernels, x->scratch, d);
}

static enum ab_rc slot_alloc_samples(struct results_slot *sl, int cap, struct ab_diag *d)
{
	sl->samples_ns = malloc(run_slot_kept_bytes(cap) / SLOT_KEPT_ARRAYS);
	sl->kernel_ns = malloc(run_slot_kept_bytes(cap) / SLOT_KEPT_ARRAYS);
	sl->host_ns = malloc(run_slot_kept_bytes(cap) / SLOT_KEPT_ARRAYS);
	if (!sl->samples_ns || !sl->kernel_ns || !sl->host_ns)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate %d samples", cap);
	return AB_OK;
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

/* Label, arm and variant of the bracket's slot at position. */
static enum ab_rc slot_bind(struct slot_ctx *x, int position, struct ab_diag *d)
{
	const struct scenario *scn = x->env->scn;
	struct results_slot *sl = x->sl;
	sl->arm = scn->bracket[position] == 'A' ? 'a' : 'b';
	sl->position = position;
	sl->warmup = x->rule->warmup;
	slot_label(scn->bracket, position, sl->label, sizeof sl->label);
	snprintf(sl->variant, sizeof sl->variant, "%s", sl->arm == 'a' ? x->c->arm_a : x->c->arm_b);
	return slot_variant(x->env, x->c, sl, &x->v, d);
}

/* A copy floor method: a slot of no bracket, never stored; its outputs
 * are not checked (they are copies), nor its inputs after a first call
 * (the case's last slot checked them, and the floor reads them only). */
static void floor_bind(struct slot_ctx *x, const struct site_variant *v)
{
	struct results_slot *sl = x->sl;
	snprintf(sl->label, sizeof sl->label, "floor");
	snprintf(sl->variant, sizeof sl->variant, "%s", v->name);
	sl->arm = 'b';
	sl->position = (int)strlen(x->env->scn->bracket);
	x->v = v;
	x->floor = x->first_checked = x->quiet = true;
}

enum ab_rc run_slot_open(struct slot_ctx *x, const struct run_case_env *env, const struct scenario_case *c,
			 struct case_data *cd, int position, const struct site_variant *v,
			 const struct scenario_sampling *rule, int rounds, struct attrib_collector *scratch,
			 struct results_slot *sl, struct results_invariance *inv, struct ab_diag *d)
{
	int cap = rule->max_samples;
	*x = (struct slot_ctx){ .env = env, .c = c, .cd = cd, .scratch = scratch, .sl = sl, .rule = rule,
				.rounds = rounds > 1 ? rounds : 1, .next_id = 1, .quota = STOPPING_MAX_TIME, .inv = inv };
	determinism_begin(&x->det, cd->n_out);
	enum ab_rc rc = AB_OK;
	if (v)
		floor_bind(x, v);
	else
		rc = slot_bind(x, position, d);
	if (rc || (rc = slot_alloc_samples(sl, cap, d)) || (rc = attrib_init(&x->kernels, cap, d)))
		return rc;
	x->kept_ids = malloc((size_t)cap * sizeof *x->kept_ids);
	x->sorted = malloc((size_t)cap * sizeof *x->sorted);
	if (!x->kept_ids || !x->sorted)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate %d samples", cap);
	stopping_init(&x->st, rule, x->sorted, cap);
	return AB_OK;
}

enum ab_rc run_slot_round(struct slot_ctx *x, struct ab_diag *d)
{
	const struct run_case_env *env = x->env;
	struct timespec t0;
	enum ab_rc rc = AB_OK;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((int)x->next_id > x->rule->max_samples) /* full: its ids are spent */
		return AB_OK;
	rc = slot_measure(x, d);
	run_phase_add(PHASE(env, slots_s), &t0);
	if (rc || x->floor)
		return rc;
	if ((rc = slot_check_round(x, d)) || (rc = slot_hash_last(x, d)) || (rc = slot_invariance(x, d)) ||
	    (rc = slot_check_inputs(x, "at the end of the slot", d)))
		return rc;
	run_phase_add(PHASE(env, checks_s), &t0);
	if (env->dump_dir && x->round == 1 && first_slot_of_arm(env->scn->bracket, x->sl->position))
		return slot_dump(x, d);
	return AB_OK;
}

void run_slot_progress_end(struct slot_ctx *x)
{
	x->round = x->rounds;
	x->order = (int)strlen(x->env->scn->bracket) - 1;
	progress_line(x, 1, true);
}

bool run_slot_judge(struct slot_ctx *x)
{
	return stopping_judge(&x->st);
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

/* The known (not NAN) of v[0..n) into tmp; how many. */
static int known_values(const double *v, int n, double *tmp)
{
	int known = 0;
	for (int i = 0; tmp && i < n; i++)
		if (!isnan(v[i]))
			tmp[known++] = v[i];
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

enum ab_rc run_slot_close(struct slot_ctx *x, struct ab_diag *d)
{
	struct results_slot *sl = x->sl;
	if (x->rounds == 1)
		stopping_end(&x->st, sl->n_samples >= x->rule->max_samples ? STOPPING_MAX_SAMPLES : STOPPING_MAX_TIME);
	else
		stopping_end(&x->st, x->quota);
	snprintf(sl->stopping_reason, sizeof sl->stopping_reason, "%s", stopping_reason_str(x->st.reason));
	sl->noise = stopping_noise(&x->st);
	enum ab_rc rc = attrib_export(&x->kernels, sl, d);
	if (rc)
		return rc;
	slot_kernel_sums(&x->kernels, x->kept_ids, sl);
	slot_summarise(sl);
	if (!x->floor) {
		const char *names[RESULTS_MAX_OUTPUTS];
		for (int o = 0; o < x->cd->n_out; o++)
			names[o] = x->cd->site->tensors[x->cd->out_index[o]].name;
		determinism_result(&x->det, names, &sl->check);
	}
	return AB_OK;
}

void run_slot_free(struct slot_ctx *x)
{
	free(x->kept_ids);
	free(x->sorted);
	attrib_free(&x->kernels);
	x->kept_ids = NULL;
	x->sorted = NULL;
}

/* ---- every arm once, before the run ------------------------------------ */

enum ab_rc run_slot_preflight(const struct run_case_env *env, const struct scenario_case *c, struct case_data *cd,
			      char side, struct attrib_collector *kc, struct ab_diag *d)
{
	struct results_slot sl = { .arm = side, .label = { (char)(side - 'a' + 'A') } };
	struct results_clocks clocks;
	struct bk_sample smp;
	double check_ns;
	snprintf(sl.variant, sizeof sl.variant, "%s", side == 'a' ? c->arm_a : c->arm_b);
	struct slot_ctx x = { .env = env, .c = c, .cd = cd, .scratch = kc, .sl = &sl, .rule = &env->sampling,
			      .rounds = 1, .quiet = true };
	enum ab_rc rc = slot_variant(env, c, &sl, &x.v, d);
	if (rc)
		return rc;
	if (env->progress)
		fprintf(stderr, "\rchecking every arm: %-20s %s %-16s", c->name, sl.label, sl.variant);
	attrib_reset(kc);
	if ((rc = env->ops->slot_begin(env->bk, x.v, "check", &clocks, d)))
		return rc;
	if (x.v->ext && (rc = slot_check_inputs(&x, "after its first call", d)))
		return rc;
	x.first_checked = x.v->ext != NULL;
	if ((rc = slot_call(&x, ATTRIB_UNTIMED, &smp, &check_ns, d)) ||
	    (rc = env->ops->slot_end(env->bk, kc, &clocks, d)))
		return rc;
	return slot_check_inputs(&x, "at the end of its call", d);
}
