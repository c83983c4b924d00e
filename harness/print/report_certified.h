/*
 * report_certified.h - the report's "Certified" section: the signatures
 * the run proves byte-equal in every slot and the environment they were
 * proven on, beside the speedup, so that a reviewer reads the scope of
 * the bit-exact claim (analysis/certified.h; `abbench certify` writes the
 * same cases as a certificate, docs/CERTIFICATE.md).
 */
#ifndef AB_REPORT_CERTIFIED_H
#define AB_REPORT_CERTIFIED_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/summary.h"

/* Writes the section for S's run. compact: the counts and the
 * environment, no table. */
void report_certified_section(FILE *f, const struct summary_run *S, bool compact);

#endif
