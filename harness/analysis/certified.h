/*
 * certified.h - what a run proves, case by case, for the report's
 * "Certified" section (print/report_certified.h): which cases are
 * byte-equal in every slot (cert_case_exact, the rule `abbench certify`
 * applies), why the others are not, and the environment each was proven
 * on (cert_env_of_case). The certificate itself is run/certify.h's.
 */
#ifndef AB_CERTIFIED_H
#define AB_CERTIFIED_H

#include <stdbool.h>

#include "common/cert.h"
#include "common/diag.h"
#include "common/results.h"

struct certified_case {
	const struct results_case *c;
	bool exact;
	char why[256];        /* not exact: why */
	struct cert_env env;  /* of its arms */
	char eps[32];         /* cert_eps_text */
};

struct certified_scope {
	int n, n_exact;
	struct certified_case *cases; /* the run's, in its order */
	int n_envs;
	struct cert_env envs[4]; /* the distinct environments of its exact cases, first seen first */
	bool more_envs;          /* more than 4 */
};

enum ab_rc certified_scope(const struct results_run *r, struct certified_scope *out, struct ab_diag *d);
void certified_scope_free(struct certified_scope *s);

#endif
