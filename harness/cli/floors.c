/*
 * floors.c - the gate's bars from the command line or the device profile.
 */
#include "cli/floors.h"

#include <math.h>
#include <stdio.h>


/* No profile matched the device: the A arm moved beyond the threshold. */
static enum ab_rc floors_moved(struct floors *out)
{
	if (isnan(out->moved_pct)) {
		out->moved_pct = out->pct;
		snprintf(out->moved_src, sizeof out->moved_src, "%s", out->pct_src);
	}
	return AB_OK;
}

enum ab_rc floors_resolve(double pct, double min_ns, const struct results_run *r, const struct load_profile *lp,
			  const char *command, struct floors *out, struct ab_diag *d)
{
	const struct profile *p = &lp->prof;
	out->pct = pct;
	out->min_ns = min_ns;
	snprintf(out->pct_src, sizeof out->pct_src, "--max-regression");
	snprintf(out->min_src, sizeof out->min_src, "--min-change-ns");
	out->moved_pct = NAN;
	if (!lp->rc) {
		out->moved_pct = p->gate_machine_moved_pct;
		snprintf(out->moved_src, sizeof out->moved_src, "device profile '%s'", p->name);
	}
	if (!isnan(pct) && !isnan(min_ns))
		return floors_moved(out);
	if (lp->rc) {
		*d = lp->err;
		return ab_wrap(d, AB_ERR_INPUT, "no regression threshold or absolute floor (give --max-regression "
					       "PCT and --min-change-ns NS)");
	}
	if (lp->fell_back)
		ab_warn("%s: no profile matches device '%s', using %s (add one in profiles/)", command, r->device.name,
			PROFILE_DEFAULT_FILE);
	if (isnan(pct)) {
		out->pct = p->gate_max_regression_pct;
		snprintf(out->pct_src, sizeof out->pct_src, "device profile '%s'", p->name);
	}
	if (isnan(min_ns)) {
		out->min_ns = p->gate_min_change_ns;
		snprintf(out->min_src, sizeof out->min_src, "device profile '%s'", p->name);
	}
	return floors_moved(out);
}
