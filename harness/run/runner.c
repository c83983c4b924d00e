/*
 * runner.c - a scenario's run from start to stored result.
 *
 * Phases: choose the backend, prepare the dump directory, load the user
 * arms (plugin libraries, compiled binaries: before the store is even
 * opened), open the store, open the backend, describe the device and load
 * the binaries into it (all before any row is written, so a bad setup
 * leaves the database as it was); write the run row as 'running'; measure
 * every case; commit everything in one transaction.
 */
#include "run/runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arms/arms.h"
#include "backend/backend.h"
#include "run/dump.h"
#include "run/provenance.h"
#include "common/results.h"
#include "run/run_case.h"
#include "store/store.h"
#include "common/version.h"

struct scenario_sampling runner_quick_sampling(const struct scenario_sampling *from)
{
	struct scenario_sampling q = *from;
	q.warmup = q.warmup < 1 ? q.warmup : 1;
	q.min_samples = 3;
	q.max_samples = q.max_samples < 10 ? q.max_samples : 10;
	if (q.max_samples < q.min_samples)
		q.max_samples = q.min_samples;
	q.min_time_ms = 0.0;
	q.max_time_ms = q.max_time_ms < 1000.0 ? q.max_time_ms : 1000.0;
	/* A quick look stops at 3 samples when they agree: the mean rule's
	 * noise exists from 2 samples, the median's interval needs 6. */
	q.noise = SCENARIO_NOISE_MEAN;
	return q;
}

/* Header fields of the run row, from the scenario and the options. */
static void run_header(const struct scenario *s, const struct runner_options *o, const struct backend_ops *ops,
		       struct results_run *r)
{
	provenance_utc_now(r->started_at, sizeof r->started_at);
	snprintf(r->status, sizeof r->status, "running");
	snprintf(r->label, sizeof r->label, "%s", o->label ? o->label : "");
	snprintf(r->scenario_name, sizeof r->scenario_name, "%s", s->name);
	snprintf(r->scenario_path, sizeof r->scenario_path, "%.*s", (int)sizeof r->scenario_path - 1, s->path);
	r->scenario_text = strdup(s->text);
	snprintf(r->scenario_hash, sizeof r->scenario_hash, "%s", s->hash);
	r->command_line = strdup(o->command_line ? o->command_line : "");
	snprintf(r->git_commit, sizeof r->git_commit, "%s", ab_build_commit());
	provenance_host(r->host, sizeof r->host);
	snprintf(r->backend, sizeof r->backend, "%s", ops->name);
	snprintf(r->version, sizeof r->version, "%s", AB_VERSION);
	r->quick = o->quick;
	r->fake_timer = ops == &backend_cpu && backend_cpu_fake_timer();
	r->device_index = o->device;
	snprintf(r->noise_measure, sizeof r->noise_measure, "%s",
		 scenario_noise_str(o->quick ? runner_quick_sampling(&s->sampling).noise : s->sampling.noise));
	snprintf(r->bracket, sizeof r->bracket, "%s", s->bracket);
	snprintf(r->arm_a, sizeof r->arm_a, "%s", s->arm_a);
	snprintf(r->arm_b, sizeof r->arm_b, "%s", s->arm_b);
	r->steps = s->steps;
	r->forwards_per_step = s->forwards_per_step;
	snprintf(r->launch_gaps, sizeof r->launch_gaps, "%s",
		 s->launch_gaps == BACKEND_GAPS_HIDE ? "hide" : "include");
	r->l2_flush = s->l2_flush;
	snprintf(r->run_set, sizeof r->run_set, "%s", o->run_set ? o->run_set : "");
	r->shard_index = o->run_set ? (o->shard.count ? o->shard.index : 1) : 0;
	r->shard_count = o->run_set ? (o->shard.count ? o->shard.count : 1) : 0;
	snprintf(r->only_cases, sizeof r->only_cases, "%s", o->only ? o->only : "");
}

static enum ab_rc run_choose_backend(const struct scenario *s, const struct runner_options *o,
				     const struct backend_ops **ops, struct ab_diag *d)
{
	char why[256];
	bool fell_back;
	enum backend_choice want = o->have_backend ? o->backend : s->backend;
	enum ab_rc rc = backend_choose(want, ops, &fell_back, why, sizeof why, d);
	if (!rc && fell_back)
		fprintf(stderr, "abbench: note: backend auto: no CUDA device (%s); running on the CPU backend\n", why);
	return rc;
}

/* Every built-in arm of every case must exist on the chosen backend (the
 * fused.<tuning> arms are CUDA only), checked before anything is written.
 * Arms the registry does not know are someone else's to check. */
static enum ab_rc run_check_arms(const struct scenario *s, const struct backend_ops *ops, struct ab_diag *d)
{
	const bool cpu = ops == &backend_cpu;
	for (int i = 0; i < s->n_cases; i++) {
		const struct scenario_case *c = &s->cases[i];
		const char *arms[2] = { s->arm_a, s->arm_b };
		for (int j = 0; j < 2; j++) {
			if (s->arm_ref[j] >= 0) /* an [arm NAME] or plugin: arms/ checks it */
				continue;
			const struct site_variant *v = site_find_variant(c->site, arms[j]);
			if (v && !(cpu ? v->cpu != NULL : v->cuda != NULL))
				return ab_fail(d, AB_ERR_INPUT,
					       "%s:%d: case '%s': arm %c '%s' of site '%s' has no %s implementation (it runs "
					       "on: %s)",
					       s->path, c->line, c->name, "ab"[j], arms[j], c->site->name, ops->name,
					       v->cpu ? "cpu" : v->cuda ? "cuda" : "no backend of this build");
		}
	}
	return AB_OK;
}

/* Device metadata, with the copy bandwidth measured once per device and
 * cached in the store. */
static enum ab_rc run_device(const struct backend_ops *ops, struct backend *bk, struct store *st,
			     struct results_device *dev, struct ab_diag *d)
{
	enum ab_rc rc;
	ops->describe(bk, dev);
	if ((rc = store_device_copy_gbps(st, dev->uuid, &dev->copy_gbps, d)))
		return rc;
	if (dev->copy_gbps <= 0.0)
		rc = ops->measure_copy_gbps(bk, &dev->copy_gbps, d);
	return rc;
}

static enum ab_rc run_cases(const struct scenario *s, const struct runner_options *o, const struct backend_ops *ops,
			    struct backend *bk, struct arms *arms, struct results_run *r, struct ab_diag *d)
{
	struct run_case_env env = {
		.scn = s,
		.ops = ops,
		.bk = bk,
		.arms = arms,
		.sampling = o->quick ? runner_quick_sampling(&s->sampling) : s->sampling,
		.dump_dir = o->dump_dir,
		.progress = o->progress,
	};
	clock_gettime(CLOCK_MONOTONIC, &env.started);
	for (int k = 0; k < s->n_cases; k++)
		env.n_cases += shard_has(&o->shard, k);
	r->cases = calloc((size_t)s->n_cases + 1, sizeof *r->cases);
	if (!r->cases)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate %d cases", s->n_cases);
	for (int k = 0; k < s->n_cases; k++) {
		if (!shard_has(&o->shard, k))
			continue;
		env.case_index = r->n_cases;
		struct results_case *c = &r->cases[r->n_cases++];
		enum ab_rc rc = run_case_run(&env, &s->cases[k], c, d);
		c->ordinal = k;
		if (rc)
			return rc;
	}
	return AB_OK;
}

/* After the run row exists: measure, then commit or mark failed. */
static enum ab_rc run_measure_and_store(const struct scenario *s, const struct runner_options *o,
					const struct backend_ops *ops, struct backend *bk, struct arms *arms,
					struct store *st, struct results_run *r, struct ab_diag *d)
{
	enum ab_rc rc = run_cases(s, o, ops, bk, arms, r, d);
	snprintf(r->notes, sizeof r->notes, "%s", ops->notes(bk));
	if (!rc && o->dump_dir)
		rc = dump_manifest(o->dump_dir, r, d);
	if (!rc) {
		provenance_utc_now(r->finished_at, sizeof r->finished_at);
		rc = store_finish_run(st, r, d);
	}
	if (rc) {
		struct ab_diag d2;
		if (store_fail_run(st, r->id, d->msg, &d2))
			fprintf(stderr, "abbench: error: could not mark run %lld failed: %s\n", (long long)r->id, d2.msg);
	}
	return rc;
}

enum ab_rc runner_scenario(const struct scenario *s, const struct runner_options *o, int64_t *run_id, struct ab_diag *d)
{
	const struct backend_ops *ops;
	struct backend *bk = NULL;
	struct store *st = NULL;
	struct arms *arms = NULL;
	struct results_run *r = calloc(1, sizeof *r);
	struct bk_options bo = { .l2_flush = s->l2_flush, .launch_gaps = s->launch_gaps, .cupti = !o->no_cupti,
				 .device_index = o->device };
	enum ab_rc rc;
	*run_id = 0;
	if (!r)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the run");
	if ((rc = run_choose_backend(s, o, &ops, d)) || (rc = run_check_arms(s, ops, d)))
		goto out;
	if (o->dump_dir && (rc = dump_prepare(o->dump_dir, d)))
		goto out;
	if ((rc = arms_plan(s, ops->name, &arms, d)))
		goto out;
	if ((rc = store_open(o->db_path, true, &st, d)))
		goto out;
	if ((rc = ops->open(&bk, &bo, d)))
		goto out;
	run_header(s, o, ops, r);
	arms_sources(arms, r);
	if (!r->scenario_text || !r->command_line) {
		rc = ab_fail(d, AB_ERR_NOMEM, "cannot copy the scenario text");
		goto out;
	}
	if ((rc = run_device(ops, bk, st, &r->device, d)) || (rc = arms_bind(arms, &r->device, d)))
		goto out;
	if ((rc = store_begin_run(st, r, d)))
		goto out;
	*run_id = r->id;
	rc = run_measure_and_store(s, o, ops, bk, arms, st, r, d);
out:
	if (bk)
		ops->close(bk);
	arms_free(arms);
	store_close(st);
	results_run_free(r);
	return rc;
}
