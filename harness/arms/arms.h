/*
 * arms.h - the user arms of a run (plugin libraries and compiled
 * binaries), from the scenario to what the backends call.
 *
 *   arms_plan   before anything is written: load every user arm the
 *               scenario's a and b name (files, symbols, ABI, site,
 *               parameters), check each against every case and against
 *               the backend the run uses; bad input is AB_ERR_INPUT
 *               naming the scenario's FILE:LINE
 *   arms_bind   once the backend is open: compiled binaries are loaded
 *               into the device's context (architecture checked there)
 *   arms_begin_case, arms_variant   per case: the site_variant a slot runs
 *   arms_sources  the provenance of each user arm, for the run row
 *
 * A scenario without user arms gets an empty plan: every call is then a
 * no-op and arms_variant returns NULL (the built-in variant is used). A
 * NULL plan behaves the same (callers that never plan, such as tests).
 */
#ifndef AB_ARMS_H
#define AB_ARMS_H

#include <stdbool.h>

#include "common/diag.h"
#include "common/results.h"
#include "config/scenario.h"

struct arms;

/* backend is the name of the backend the run uses ("cpu", "cuda"). */
enum ab_rc arms_plan(const struct scenario *s, const char *backend, struct arms **out, struct ab_diag *d);
enum ab_rc arms_bind(struct arms *a, const struct results_device *dev, struct ab_diag *d);
void arms_free(struct arms *a);

void arms_begin_case(struct arms *a, const struct scenario_case *c);
/* The variant arm 'a' or 'b' runs, NULL when it is a built-in variant. */
const struct site_variant *arms_variant(const struct arms *a, char arm);

/* Fills r->arm_sources for the user arms among a and b. */
void arms_sources(const struct arms *a, struct results_run *r);

#endif
