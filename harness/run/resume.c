/*
 * resume.c - what `run --resume` checks before it measures into a stored
 * run (resume.h).
 */
#include "run/resume.h"

#include <stdio.h>
#include <string.h>

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
