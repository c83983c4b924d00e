/*
 * runner.c - a scenario's run from start to stored result.
 *
 * Phases: check that the chosen backend runs every built-in arm, open it,
 * check that every case fits in memory (admission.h), prepare the dump
 * directory (removed again when the run fails before writing into it),
 * load the user arms (plugin libraries, compiled binaries), open the
 * store when it exists (all before any row is written, so a bad setup
 * leaves the database as it was; a refused case does not even create it);
 * describe the device and take its lock (devlock.h), load the binaries
 * into it; call every arm of every case once (run_case_preflight: a broken
 * arm fails in seconds, before any slot), then make the store if it was
 * new; write the run row as 'running' (or take a stored run up again:
 * run/resume.h); measure every case, committing each as it finishes; mark
 * the run 'ok'. Signals are caught for the whole of it (interrupt.h). The
 * runner prints nothing: what became of the run is in runner_result.
 */
#include "run/runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arms/arms.h"
#include "backend/backend.h"
#include "run/admission.h"
#include "run/devlock.h"
#include "run/dump.h"
#include "run/interrupt.h"
#include "run/resume.h"
#include "common/procid.h"
#include "common/results.h"
#include "common/utc.h"
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
	q.rounds = 1; /* a look, not a measurement: each slot in one stretch */
	return q;
}

/* The cases of s the run measures (its shard's). */
static int run_planned(const struct scenario *s, const struct runner_options *o)
{
	int n = 0;
	for (int k = 0; k < s->n_cases; k++)
		n += shard_has(&o->shard, k);
	return n;
}

/* Header fields of the run row, from the scenario and the options. */
static void run_header(const struct scenario *s, const struct runner_options *o, const struct backend_ops *ops,
		       struct backend *bk, struct results_run *r)
{
	utc_now(r->started_at, sizeof r->started_at);
	snprintf(r->status, sizeof r->status, "running");
	snprintf(r->label, sizeof r->label, "%s", o->label ? o->label : "");
	snprintf(r->scenario_name, sizeof r->scenario_name, "%s", s->name);
	snprintf(r->scenario_path, sizeof r->scenario_path, "%.*s", (int)sizeof r->scenario_path - 1, s->path);
	r->scenario_text = strdup(s->text);
	snprintf(r->scenario_hash, sizeof r->scenario_hash, "%s", s->hash);
	r->command_line = strdup(o->command_line ? o->command_line : "");
	snprintf(r->git_commit, sizeof r->git_commit, "%s", ab_build_commit());
	procid_host(r->host, sizeof r->host);
	snprintf(r->backend, sizeof r->backend, "%s", ops->name);
	snprintf(r->version, sizeof r->version, "%s", AB_VERSION);
	r->quick = o->quick;
	r->fake_timer = ops->fake_timer(bk);
	snprintf(r->env, sizeof r->env, "%s", ops->environment ? ops->environment(bk) : "");
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
	snprintf(r->timing, sizeof r->timing, "%s", backend_timing_str(s->timing));
	r->l2_flush = s->l2_flush;
	snprintf(r->run_set, sizeof r->run_set, "%s", o->run_set ? o->run_set : "");
	r->shard_index = o->run_set ? (o->shard.count ? o->shard.index : 1) : 0;
	r->shard_count = o->run_set ? (o->shard.count ? o->shard.count : 1) : 0;
	snprintf(r->only_cases, sizeof r->only_cases, "%s", o->only ? o->only : "");
	r->recheck = o->recheck;
	r->cases_planned = run_planned(s, o);
	if (o->resume) { /* the stored run's own identity: only its status and notes change */
		r->id = o->resume->id;
		snprintf(r->started_at, sizeof r->started_at, "%s", o->resume->started_at);
		snprintf(r->uuid, sizeof r->uuid, "%s", o->resume->uuid);
		r->resumed = o->resume->resumed + 1;
	}
}

/* The copy bandwidth, measured once per device and cached in the store. */
static enum ab_rc run_copy_gbps(const struct backend_ops *ops, struct backend *bk, struct store *st,
				struct results_device *dev, struct ab_diag *d)
{
	enum ab_rc rc;
	if ((rc = store_device_copy_gbps(st, dev->uuid, &dev->copy_gbps, d)))
		return rc;
	if (dev->copy_gbps <= 0.0)
		rc = ops->measure_copy_gbps(bk, &dev->copy_gbps, d);
	return rc;
}

/* The device's lock, taken before anything is measured on it (the copy
 * bandwidth included) and held until the run ends. A backend whose times
 * come from a deterministic model (the CPU's fake timer) measures no
 * device: its runs take no lock, so that they never wait for real runs of
 * the same host, nor for each other (*lock stays NULL). */
static enum ab_rc run_lock_device(const struct scenario *s, const struct runner_options *o,
				  const struct backend_ops *ops, struct backend *bk, const struct results_device *dev,
				  struct devlock **lock, struct ab_diag *d)
{
	struct devlock_owner who = { .scenario = s->name, .label = o->label };
	*lock = NULL;
	if (ops->fake_timer(bk))
		return AB_OK;
	return devlock_acquire(dev->uuid, &who, !o->no_wait, lock, d);
}

/* Where the run's time went (run_case.h's phases, the commits, the whole
 * of the cases), for its notes. */
struct run_times {
	struct run_case_times cases;
	double commits_s, total_s;
	double checks_before_s; /* every arm called once before the run (run_preflight) */
};


/* run_cases' loop: each case of the shard the run lacks, measured and
 * committed. */
static enum ab_rc run_cases_each(const struct scenario *s, const struct runner_options *o, struct run_case_env *env,
				 struct store *st, struct results_run *r, struct run_times *rt, struct ab_diag *d)
{
	for (int k = 0; k < s->n_cases; k++) {
		if (!shard_has(&o->shard, k) || resume_done(o->resume, k))
			continue;
		env->case_index = r->n_cases;
		struct results_case *c = &r->cases[r->n_cases++];
		enum ab_rc rc = run_case_run(env, &s->cases[k], c, d);
		c->ordinal = k;
		struct timespec t0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (!rc)
			rc = store_commit_case(st, r, c, d);
		rt->commits_s += run_seconds_since(&t0);
		if (rc)
			return rc;
	}
	return interrupt_check(d); /* a signal after the last sample still stops the run */
}

/* What every case of the run shares: the scenario, the backend, the arms,
 * the sampling rule, where the phases' times go (NULL: nowhere), and the
 * cases it measures (its shard's, less those a resumed run holds). */
static struct run_case_env run_env(const struct scenario *s, const struct runner_options *o,
				   const struct backend_ops *ops, struct backend *bk, struct arms *arms,
				   struct run_case_times *times)
{
	struct run_case_env env = {
		.scn = s,
		.ops = ops,
		.bk = bk,
		.arms = arms,
		.sampling = o->quick ? runner_quick_sampling(&s->sampling) : s->sampling,
		.dump_dir = o->dump_dir,
		.progress = o->progress,
		.times = times,
	};
	clock_gettime(CLOCK_MONOTONIC, &env.started);
	for (int k = 0; k < s->n_cases; k++)
		env.n_cases += shard_has(&o->shard, k) && !resume_done(o->resume, k);
	return env;
}

/* Every arm of every case the run will measure, called once, untimed
 * (run_case_preflight), before the first slot and before the run row is
 * written: a broken arm (an exception, a wrong shape, a write into an
 * input, a wait for the GPU behind launch_gaps = hide) stops the run in
 * seconds, with nothing measured or stored. */
static enum ab_rc run_preflight(const struct scenario *s, const struct runner_options *o,
				const struct backend_ops *ops, struct backend *bk, struct arms *arms, struct ab_diag *d)
{
	struct run_case_env env = run_env(s, o, ops, bk, arms, NULL);
	enum ab_rc rc = AB_OK;
	for (int k = 0; !rc && k < s->n_cases; k++)
		if (shard_has(&o->shard, k) && !resume_done(o->resume, k))
			rc = run_case_preflight(&env, &s->cases[k], d);
	if (!rc)
		rc = interrupt_check(d);
	if (o->progress)
		fputc('\r', stderr);
	return rc ? ab_wrap(d, rc, "checking every arm before the run (nothing measured or stored)") : AB_OK;
}

/* Measures every case of the shard the run lacks (a resumed run holds
 * some), committing each as it finishes: a run stopped later keeps it. */
static enum ab_rc run_cases(const struct scenario *s, const struct runner_options *o, const struct backend_ops *ops,
			    struct backend *bk, struct arms *arms, struct store *st, struct results_run *r,
			    struct run_times *rt, struct ab_diag *d)
{
	struct run_case_env env = run_env(s, o, ops, bk, arms, &rt->cases);
	r->cases = calloc((size_t)s->n_cases + 1, sizeof *r->cases);
	if (!r->cases || !(env.inv = invariance_new()))
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate %d cases", s->n_cases);
	enum ab_rc rc = run_cases_each(s, o, &env, st, r, rt, d);
	invariance_free(env.inv);
	return rc;
}

/* Appends "; text" (or text, first) to the run's notes, cut to fit. */
static void notes_add(struct results_run *r, const char *text)
{
	size_t used = strlen(r->notes);
	if (text[0] && used + 1 < sizeof r->notes)
		snprintf(r->notes + used, sizeof r->notes - used, "%s%s", used ? "; " : "", text);
}

/* The run's notes: what a resume should say, where the cases' time went,
 * how its brackets were measured when in rounds, then the backend's. */
static void run_notes(const struct runner_options *o, const struct backend_ops *ops, struct backend *bk,
		      const struct scenario_sampling *sampling, const struct run_times *t, struct results_run *r)
{
	char text[256];
	r->notes[0] = '\0';
	if (o->resume) {
		snprintf(text, sizeof text, "resumed (%d time%s; %d of %d cases measured before)", r->resumed,
			 r->resumed == 1 ? "" : "s", o->resume->n_cases, r->cases_planned);
		notes_add(r, text);
	}
	/* host clock times: left out of a fake-timer run, whose notes must read
	 * the same on every machine */
	if (!ops->fake_timer(bk)) {
		snprintf(text, sizeof text, "every arm called before the run %.2f s; cases %.2f s: inputs and "
			 "reference %.2f s, slots %.2f s, checks %.2f s, copy floor %.2f s, commits %.2f s",
			 t->checks_before_s, t->total_s, t->cases.prep_s, t->cases.slots_s, t->cases.checks_s,
			 t->cases.floor_s, t->commits_s);
		notes_add(r, text);
	}
	if (sampling->rounds > 1) {
		snprintf(text, sizeof text, "bracket %s measured in up to %d interleaved rounds", r->bracket,
			 sampling->rounds);
		notes_add(r, text);
	}
	notes_add(r, ops->notes(bk));
}

/* A run that did not finish: 'interrupted' after a signal, else 'failed',
 * with d's message; res says whether the row could be marked so. */
static void run_mark_unfinished(struct store *st, int64_t id, enum ab_rc rc, const struct ab_diag *d,
				struct runner_result *res)
{
	struct ab_diag d2;
	bool signal = rc == AB_ERR_INTERRUPTED;
	enum ab_rc rc2 = signal ? store_interrupt_run(st, id, d->msg, &d2) : store_fail_run(st, id, d->msg, &d2);
	res->marked = rc2 == AB_OK;
	if (rc2)
		snprintf(res->mark_error, sizeof res->mark_error, "%s", d2.msg);
}

/* After the run row exists: measure, then commit or mark failed. */
static enum ab_rc run_measure_and_store(const struct scenario *s, const struct runner_options *o,
					const struct backend_ops *ops, struct backend *bk, struct arms *arms,
					struct store *st, struct results_run *r, double checks_before_s,
					struct runner_result *res, struct ab_diag *d)
{
	struct run_times times = { { 0, 0, 0, 0 }, 0, 0, checks_before_s };
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	enum ab_rc rc = run_cases(s, o, ops, bk, arms, st, r, &times, d);
	times.total_s = run_seconds_since(&t0);
	struct scenario_sampling sampling = o->quick ? runner_quick_sampling(&s->sampling) : s->sampling;
	run_notes(o, ops, bk, &sampling, &times, r);
	if (!rc && o->dump_dir)
		rc = dump_manifest(o->dump_dir, r, s, arms, d);
	if (!rc) {
		utc_now(r->finished_at, sizeof r->finished_at);
		rc = store_finish_run(st, r, d);
	}
	if (rc)
		run_mark_unfinished(st, r->id, rc, d, res);
	return rc;
}

/* What the run holds while it goes, released together at its end. */
struct run_hold {
	const struct backend_ops *ops;
	struct backend *bk;
	struct arms *arms;
	struct store *st;
	struct devlock *lock;
	bool dump_made;  /* the dump directory is ours: removed if the run fails before filling it */
};

/* Whether the store is made only once every arm has run (run_locked): a
 * new file in a folder that can take it. An existing file is opened at
 * once, and so is a new one whose folder cannot be written, so that the
 * store's own error comes before anything runs. */
static bool store_deferred(const char *path)
{
	char dir[4096];
	if (access(path, F_OK) == 0)
		return false;
	const char *slash = strrchr(path, '/');
	if (!slash)
		return access(".", W_OK | X_OK) == 0;
	snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	return access(dir, W_OK | X_OK) == 0;
}

/* Everything before the device is locked: backend, memory admission, dump
 * directory, user arms, store. Nothing is written when any of it fails. */
static enum ab_rc run_prepare(const struct scenario *s, const struct runner_options *o, struct run_hold *h,
			      struct ab_diag *d)
{
	struct bk_options bo = { .l2_flush = s->l2_flush, .launch_gaps = s->launch_gaps, .timing = s->timing,
				 .cupti = !o->no_cupti, .device_index = o->device };
	struct scenario_sampling sampling = o->quick ? runner_quick_sampling(&s->sampling) : s->sampling;
	h->ops = o->ops;
	/* every arm, built-in or not, against the cases and this backend */
	enum ab_rc rc = o->resume ? resume_check_scenario(o->resume, s, run_planned(s, o), h->ops->name, d) : AB_OK;
	if (!rc)
		rc = arms_plan(s, h->ops->name, &h->arms, d);
	if (!rc)
		rc = h->ops->open(&h->bk, &bo, d);
	if (!rc)
		rc = admission_check(s, &o->shard, &sampling, h->ops, h->bk, d);
	if (!rc && o->dump_dir)
		rc = dump_prepare(o->dump_dir, &h->dump_made, d);
	if (!rc && !store_deferred(o->db_path))
		rc = store_open(o->db_path, true, &h->st, d);
	return rc;
}

/* From the device's lock to the stored run. */
static enum ab_rc run_locked(const struct scenario *s, const struct runner_options *o, struct run_hold *h,
			     struct results_run *r, struct runner_result *res, struct ab_diag *d)
{
	run_header(s, o, h->ops, h->bk, r); /* started_at: now that the device is ours */
	arms_sources(h->arms, r);
	if (!r->scenario_text || !r->command_line)
		return ab_fail(d, AB_ERR_NOMEM, "cannot copy the scenario text");
	struct timespec t0;
	enum ab_rc rc = arms_bind(h->arms, &r->device, d);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!rc)
		rc = run_preflight(s, o, h->ops, h->bk, h->arms, d);
	double checks_before_s = run_seconds_since(&t0);
	if (!rc && !h->st)
		rc = store_open(o->db_path, true, &h->st, d);
	if (!rc)
		rc = run_copy_gbps(h->ops, h->bk, h->st, &r->device, d);
	if (!rc)
		rc = interrupt_check(d);
	if (!rc)
		rc = o->resume ? store_resume_run(h->st, r->id, d) : store_begin_run(h->st, r, d);
	if (rc)
		return rc;
	res->run_id = r->id;
	return run_measure_and_store(s, o, h->ops, h->bk, h->arms, h->st, r, checks_before_s, res, d);
}

enum ab_rc runner_scenario(const struct scenario *s, const struct runner_options *o, struct runner_result *res,
			   struct ab_diag *d)
{
	struct run_hold h = { 0 };
	struct results_run *r = calloc(1, sizeof *r);
	memset(res, 0, sizeof *res);
	if (!r)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the run");
	interrupt_install();
	enum ab_rc rc = run_prepare(s, o, &h, d);
	if (!rc) {
		h.ops->describe(h.bk, &r->device);
		if (o->resume)
			rc = resume_check_device(o->resume, h.ops->fake_timer(h.bk), &r->device, d);
	}
	if (!rc)
		rc = run_lock_device(s, o, h.ops, h.bk, &r->device, &h.lock, d);
	if (!rc)
		rc = run_locked(s, o, &h, r, res, d);
	if (rc && h.dump_made)
		rmdir(o->dump_dir); /* only when still empty: what the run wrote stays */
	if (h.bk)
		h.ops->close(h.bk);
	devlock_release(h.lock);
	arms_free(h.arms);
	store_close(h.st);
	results_run_free(r);
	interrupt_restore();
	return rc;
}
