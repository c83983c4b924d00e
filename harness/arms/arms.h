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
 *               plan (config/case_plan.h)
 *   arms_begin_case  per case, before its slots (the kinds' begin_case,
 *               handed the plan)
 *   arms_sources  the provenance of each user arm, for the run row
 *
 * Each arm is planned once however many cases run it (a scenario whose a
 * and b name the same user arm loads it once). Each case runs its own
 * arms (scenario_case.arm_a, arm_b: its [case]'s a and b, else [arms]'s),
 * so one scenario may hold the arms of several sites. A NULL plan
 * (callers that never plan, such as tests) makes every call a no-op and
 * arms_variant return NULL.
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

/* p->arm[] for p's case: each side's variant (its kind's; without a plan
 * of the arms, the site's variant of the name the case gives), bytes
 * (arms_bytes) and writes (arms_writes). The kinds' variant is asked here,
 * once per case. */
void arms_plan_case(const struct arms *a, struct case_plan *p);
/* The case's arms told that its slots come next; p lives until they are
 * done (a kind may keep it). */
void arms_begin_case(struct arms *a, const struct case_plan *p);
/* The variant case c runs as arm 'a' or 'b' (a built-in one or a user
 * arm's); NULL without a plan. */
const struct site_variant *arms_variant(const struct arms *a, const struct scenario_case *c, char arm);

/* The bytes credited to case c's arm ('a' or 'b'): its [arm]'s bytes =
 * expression when it has one, the eager chain's for a built-in eager,
 * else the site's minimum (site_variant_bytes). */
int64_t arms_bytes(const struct arms *a, const struct scenario_case *c, char arm);
/* The tensors case c's arm writes (SITE_IO bits): outputs, and the stat
 * and scratch tensors its [arm]'s writes = names (a built-in eager: its
 * chain's). What a dump keeps of its slots. */
uint32_t arms_writes(const struct arms *a, const struct scenario_case *c, char arm);

/* Fills r->arm_sources: every user arm the cases run, once per side. */
void arms_sources(const struct arms *a, struct results_run *r);

#endif
