/*
 * report_projection.h - the report's "Projection against measurement"
 * section: a site run's projected saving beside this run's measured one,
 * and where the difference goes by kernel family (analysis/projection.h).
 */
#ifndef AB_REPORT_PROJECTION_H
#define AB_REPORT_PROJECTION_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/projection.h"

/* Writes the section for p; nothing when p is NULL (no --projected-by).
 * compact: the headline table only. */
void report_projection_section(FILE *f, const struct projection *p, bool compact);

#endif
