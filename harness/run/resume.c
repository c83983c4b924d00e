/*
 * resume.c - what `run --resume` checks before it measures into a stored
 * run (resume.h).
 */
#include "run/resume.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arms/arms.h"
#include "common/version.h"
#include "store/store.h"

enum ab_rc resume_load(const char *db_path, const char *spec, struct results_run **out, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	*out = NULL;
	if (store_set_spec(spec))
		return ab_fail(d, AB_ERR_USAGE, "--resume takes one run, not the run set '%s' (resume each shard's run)",
			       spec);
	if ((rc = store_load_spec(db_path, spec, out, d)))
		return rc;
	const struct results_run *r = *out;
	if (!strcmp(r->status, "ok"))
		rc = ab_fail(d, AB_ERR_USAGE, "run %lld is 'ok': it has every case, nothing to resume", (long long)r->id);
	else if (!strcmp(r->status, "running"))
		rc = ab_fail(d, AB_ERR_USAGE, "run %lld is still 'running' (its process is alive): nothing to resume until "
			     "it ends", (long long)r->id);
	else if (r->cases_planned <= 0)
		rc = ab_fail(d, AB_ERR_USAGE, "run %lld was stored before cases were committed one by one (schema 8): "
			     "it cannot be resumed", (long long)r->id);
	if (rc) {
		results_run_free(*out);
		*out = NULL;
	}
	return rc;
}

enum ab_rc resume_check_scenario(const struct results_run *run, const struct scenario *s, int planned,
				 const char *backend, struct ab_diag *d)
{
	long long id = (long long)run->id;
	if (strcmp(s->hash, run->scenario_hash))
		return ab_fail(d, AB_ERR_USAGE,
			       "run %lld measured another scenario text (sha256 %.12s...); '%s' now reads %.12s...: resume "
			       "needs the text the run measured", id, run->scenario_hash, s->path, s->hash);
	if (strcmp(ab_build_commit(), run->git_commit) || strcmp(AB_VERSION, run->version))
		return ab_fail(d, AB_ERR_USAGE,
			       "run %lld was measured by abbench %s (commit %s); this is abbench %s (commit %s): resume with "
			       "the build that measured it", id, run->version, run->git_commit[0] ? run->git_commit : "unknown",
			       AB_VERSION, ab_build_commit()[0] ? ab_build_commit() : "unknown");
	if (strcmp(backend, run->backend))
		return ab_fail(d, AB_ERR_USAGE, "run %lld ran on the %s backend; this would run on %s (--backend)", id,
			       run->backend, backend);
	if (planned != run->cases_planned)
		return ab_fail(d, AB_ERR_USAGE, "run %lld planned %d cases; its scenario, --only and --shard now give %d",
			       id, run->cases_planned, planned);
	return AB_OK;
}

enum ab_rc resume_check_device(const struct results_run *run, bool fake_timer, const struct results_device *dev,
			       struct ab_diag *d)
{
	long long id = (long long)run->id;
	if (fake_timer != run->fake_timer)
		return ab_fail(d, AB_ERR_USAGE, "run %lld was measured %s the fake timer; this one would be %s it (set "
			       "ABBENCH_FAKE_TIMER as it was)", id, run->fake_timer ? "with" : "without",
			       fake_timer ? "with" : "without");
	if (strcmp(dev->uuid, run->device.uuid))
		return ab_fail(d, AB_ERR_USAGE, "run %lld measured device '%s' (%s); this is '%s' (%s): resume on the same "
			       "device", id, run->device.uuid, run->device.name, dev->uuid, dev->name);
	return AB_OK;
}

bool resume_done(const struct results_run *run, int k)
{
	for (int i = 0; run && i < run->n_cases; i++)
		if (run->cases[i].ordinal == k)
			return true;
	return false;
}

/* The source of side arm's user arm name among r's; NULL when none. */
static const struct results_arm_source *source_of(const struct results_run *r, char arm, const char *name)
{
	for (int i = 0; i < r->n_arm_sources; i++)
		if (r->arm_sources[i].arm == arm && !strcmp(r->arm_sources[i].name, name))
			return &r->arm_sources[i];
	return NULL;
}

/* was (stored) against now (planned): the same file, the same bytes, the
 * same rest (a plugin's table, a kernel and its Triton metadata's sha256,
 * a Python function and its interpreter). */
static enum ab_rc same_source(long long id, const struct results_arm_source *was,
			      const struct results_arm_source *now, struct ab_diag *d)
{
	const char *hint = "resume needs the arms the run measured (put the file back, or start a new run)";
	if (!now)
		return ab_fail(d, AB_ERR_USAGE, "run %lld measured arm %c '%s' from '%s'; this run has no such arm: %s", id,
			       was->arm, was->name, was->path, hint);
	if (strcmp(was->kind, now->kind) || strcmp(was->path, now->path))
		return ab_fail(d, AB_ERR_USAGE, "run %lld measured arm %c '%s' from %s '%s'; the scenario now gives %s "
			       "'%s': %s", id, was->arm, was->name, was->kind, was->path, now->kind, now->path, hint);
	if (strcmp(was->sha256, now->sha256))
		return ab_fail(d, AB_ERR_USAGE, "run %lld measured arm %c '%s' from '%s' with sha256 %.16s...; the file "
			       "now has sha256 %.16s...: %s", id, was->arm, was->name, was->path, was->sha256,
			       now->sha256, hint);
	if (strcmp(was->detail, now->detail))
		return ab_fail(d, AB_ERR_USAGE, "run %lld measured arm %c '%s' ('%s') as %s; it would now be %s: %s", id,
			       was->arm, was->name, was->path, was->detail, now->detail, hint);
	return AB_OK;
}

enum ab_rc resume_check_arms(const struct results_run *run, const struct arms *arms, struct ab_diag *d)
{
	struct results_run *now = calloc(1, sizeof *now);
	if (!now)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the arms' sources");
	arms_sources(arms, now);
	enum ab_rc rc = AB_OK;
	for (int i = 0; !rc && i < run->n_arm_sources; i++) {
		const struct results_arm_source *was = &run->arm_sources[i];
		rc = same_source((long long)run->id, was, source_of(now, was->arm, was->name), d);
	}
	for (int i = 0; !rc && i < now->n_arm_sources; i++) {
		const struct results_arm_source *a = &now->arm_sources[i];
		if (!source_of(run, a->arm, a->name))
			rc = ab_fail(d, AB_ERR_USAGE, "run %lld has no arm %c '%s' from outside; this run would measure '%s': "
				     "resume needs the arms the run measured", (long long)run->id, a->arm, a->name, a->path);
	}
	free(now);
	return rc;
}
