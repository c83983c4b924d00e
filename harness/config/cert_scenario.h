/*
 * cert_scenario.h - a scenario written from a certificate's entries
 * (common/cert.h, docs/CERTIFICATE.md), for the two commands that prove
 * again: `certify --check` (each entry at its own signature, one sample a
 * slot) and `coverage --emit-scenario` (logged signatures a certificate
 * lacks, each with the arms, site and inputs of a certified entry of its
 * site).
 *
 * The text is a scenario as a user writes one: [scenario] (the entries'
 * backend and seed), each declared site's [site] text once, each arm
 * section once, then a [case] per signature with its site, shape, eps,
 * affine, input keys and arms. A case keeps its entry's name (an input's
 * bytes are drawn from the seed, the case's name and the tensor's index:
 * the same name, the same inputs); the cases one sweep made are written
 * back as that sweep over the values present. Arm paths stay as the run's
 * scenario wrote them: parse the text as if it stood in the run's
 * scenario_dir.
 */
#ifndef AB_CERT_SCENARIO_H
#define AB_CERT_SCENARIO_H

#include <stdbool.h>
#include <stdio.h>

#include "common/cert.h"
#include "common/diag.h"

/* One case to write: from an entry (site, inputs, arms), at sig (the
 * entry's own for a check), named name (the entry's for a check). */
struct cert_scenario_case {
	const struct cert_entry *from;
	const struct cert_sig *sig;
	const char *name;
};

enum cert_scenario_purpose {
	CERT_SCENARIO_CHECK, /* one sample a slot, no warm-up: bytes, not times */
	CERT_SCENARIO_PROVE, /* a short but real measurement */
};

/* Writes the scenario named name of cases[0..n) to f. The first case's
 * entry gives the backend and the seed. AB_ERR_INPUT when two cases'
 * sites or arms of one name differ in text (they cannot share one
 * scenario), AB_ERR_IO when f fails. */
enum ab_rc cert_scenario_write(FILE *f, const char *name, enum cert_scenario_purpose purpose,
			       const struct cert_scenario_case *cases, int n, struct ab_diag *d);

#endif
