/*
 * certified.h - what a run proves, case by case, for the report's
 * "Certified" section (print/report.c): which cases are
 * byte-equal in every slot (cert_case_exact, the rule `abbench certify`
 * applies), why the others are not, and the environment each was proven
 * on (cert_env_of_case), and the exact ones grouped by all but their
 * shape, so that a report of many cases stays short. The certificate
 * itself is run/certify.h's.
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

/* Exact cases that differ only in their shapes: one row of the report. */
struct certified_group {
	const struct certified_case *k; /* the first */
	int n;                          /* cases in it */
	char shapes[512];               /* their distinct shapes, "1x64x256, 1x128x256", cut with "..." */
};

struct certified_scope {
	int n, n_exact;
	struct certified_case *cases; /* the run's, in its order */
	int n_groups;
	struct certified_group *groups; /* the exact cases by site, dtype, eps, affine, inputs and arms */
	/* The environment of the exact cases: the keys every one has with one
	 * value (the device's), and the others (the versions some arms ran
	 * under: python, torch ...), each with the first value seen and
	 * whether another case had another. */
	struct cert_env common, some;
	bool some_differ;
};

enum ab_rc certified_scope(const struct results_run *r, struct certified_scope *out, struct ab_diag *d);
void certified_scope_free(struct certified_scope *s);

#endif
