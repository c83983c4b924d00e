/*
 * floors.c - the gate's bars from the command line or the device profile.
 */
#include "cli/floors.h"

#include <math.h>
#include <stdio.h>


enum ab_rc floors_resolve(double pct, double min_ns, const struct results_run *r, const struct load_profile *lp,
			  const char *command, struct floors *out, struct ab_diag *d)
{
	const struct profile *p = &lp->prof;
	out->pct = pct;
	out->min_ns = min_ns;
	snprintf(out->pct_src, sizeof out->pct_src, "--max-regression");
	snprintf(out->min_src, sizeof out->min_src, "--min-change-ns");
	if (!isnan(pct) && !isnan(min_ns))
		return AB_OK;
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
	return AB_OK;
}
