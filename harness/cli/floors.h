/*
 * floors.h - the gate's bars for a run, as gate and compare take them: the
 * relative threshold and the absolute floor from --max-regression and
 * --min-change-ns when given, else from the run's device profile
 * (profiles/NAME.ini: gate_max_regression_pct, gate_min_change_ns), with
 * where each came from for the printed rule.
 */
#ifndef AB_FLOORS_H
#define AB_FLOORS_H

#include "cli/load.h"
#include "common/diag.h"
#include "common/results.h"

struct floors {
	double pct;           /* percent, > 0 */
	double min_ns;        /* >= 0 */
	double moved_pct;     /* percent, > 0: the A arm moved between two runs (gate.h) */
	char pct_src[96];     /* "--max-regression" or "device profile 'H200'" */
	char min_src[96];
	char moved_src[96];
};

/* pct and min_ns are the options' values, NAN when not given; the run r's
 * profile, as the command looked it up once (lp), is used only when one
 * is missing (a warning names a fallback to the default profile; command
 * prefixes it). AB_ERR_INPUT with the lookup's reason when no profile
 * answers. moved_pct is the matched profile's gate_machine_moved_pct (by
 * default its gate_max_regression_pct)
 * whatever --max-regression says, so that the gate's verdict is monotone
 * in its threshold (default.ini's when it stands in); pct when no profile
 * answers at all. */
enum ab_rc floors_resolve(double pct, double min_ns, const struct results_run *r, const struct load_profile *lp,
			  const char *command, struct floors *out, struct ab_diag *d);

#endif
