/*
 * certify_print.h - what `abbench certify`, `certify --check` and
 * `abbench coverage` print on a terminal (docs/CERTIFICATE.md).
 */
#ifndef AB_CERTIFY_PRINT_H
#define AB_CERTIFY_PRINT_H

#include <stdio.h>

#include "analysis/coverage.h"
#include "common/cert.h"
#include "run/certify_check.h"

/* The certificate written to path: its entries, its exclusions with the
 * reasons, its environments, its sha256. */
void certify_print(FILE *f, const struct cert *c, const char *path);

/* Per entry: still exact, or lost and why; what differs (environment,
 * artefact, md5s); then the counts. */
void certify_print_check(FILE *f, const struct cert *c, const struct certify_check *k, const char *path);

/* Per signature (most calls first): calls, status, what differs or which
 * entry proves it; then the totals, weighted by calls. */
void certify_print_coverage(FILE *f, const struct coverage *cv, const struct cert *c);

#endif
