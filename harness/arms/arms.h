/*
 * arms.h - the arms of a run, from the scenario's text to what the
 * backends call, whatever their kind (arm_kind.h: built-in variants,
 * plugin libraries, compiled binaries).
 *
 *   arms_check  the text of every user arm ([arm NAME] sections and
 *               KIND:PATH:NAME shortcuts) against its kind, no file
 *               opened: right after the scenario is read
 *   arms_plan   before anything is written: arms_check, then load every
 *               arm the cases run (files, symbols, ABI, site,
 *               parameters), check each against every case that runs it
 *               and against the backend the run uses; bad input is
 *               AB_ERR_INPUT naming the scenario's FILE:LINE
 *   arms_bind   once the backend is open: compiled binaries are loaded
 *               into the device's context (architecture checked there)
 *   arms_plan_case  per case, once: what each side runs, the bytes
 *               credited to it and the tensors it writes, into the case's
 *               plan (config/case_plan.h), the only way out of arms/ to
 *               these facts
 *   arms_begin_case  per case, before its slots (the kinds' begin_case,
 *               handed the plan)
 *   arms_sources  the provenance of each user arm, for the run row
 *
 * Each arm is planned once however many cases run it (a scenario whose a
 * and b name the same user arm loads it once). Each case runs its own
 * arms (scenario_case.arm_a, arm_b: its [case]'s a and b, else [arms]'s),
 * so one scenario may hold the arms of several sites. A NULL plan
 * (callers that never plan, such as tests) makes every call a no-op and
 * arms_plan_case take the site's variants by the names the case gives.
 */
#ifndef AB_ARMS_H
#define AB_ARMS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/results.h"
#include "config/case_plan.h"
#include "config/scenario.h"

struct arms;

enum ab_rc arms_check(const struct scenario *s, struct ab_diag *d);

/* backend is the name of the backend the run uses ("cpu", "cuda"). */
enum ab_rc arms_plan(const struct scenario *s, const char *backend, struct arms **out, struct ab_diag *d);
enum ab_rc arms_bind(struct arms *a, const struct results_device *dev, struct ab_diag *d);
void arms_free(struct arms *a);

/* p->arm[] for p's case, each side's:
 *   variant  its kind's; without a plan of the arms, the site's variant
 *            of the name the case gives (NULL: none)
 *   bytes    the traffic credited to it: its [arm]'s bytes = expression
 *            when it has one, the eager chain's for a built-in eager,
 *            else the site's minimum (site_variant_bytes)
 *   writes   the tensors it writes (SITE_IO bits): outputs, and the stat
 *            and scratch tensors its [arm]'s writes = names (a built-in
 *            eager: its chain's); what a dump keeps of its slots
 * The kinds' variant is asked, and the bytes expression evaluated, here,
 * once per case. */
void arms_plan_case(const struct arms *a, struct case_plan *p);
/* The case's arms told that its slots come next; p lives until they are
 * done (a kind may keep it). */
void arms_begin_case(struct arms *a, const struct case_plan *p);

/* Fills r->arm_sources: every user arm the cases run, once per side. */
void arms_sources(const struct arms *a, struct results_run *r);

#endif
