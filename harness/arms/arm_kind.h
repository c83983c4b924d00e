/*
 * arm_kind.h - the kinds of arm a scenario can name, one row each, found
 * by name: "builtin" (a registered variant of the case's site), "plugin"
 * (an arm of a shared library, include/abbench/plugin.h), "cubin" (a
 * kernel of a compiled binary, Triton's included) and "python" (a
 * function of a Python module, arms/pyrt.h). Everything abbench
 * does with an arm, from the scenario's text to the backend's call, goes
 * through its kind's row; arms.c (the plan) never names a kind.
 *
 * Adding a kind (a Python callable, say) is one file, arms/NAME_arm.c,
 * defining `const struct arm_kind NAME_arm_kind`, and one line X(NAME) in
 * arm_kind.c's ARM_KINDS. Its [arm] sections (type = NAME) and its
 * shortcut (NAME:PATH:ARM, when it takes one) are then read by config/
 * as records with no change there.
 *
 * The life of an arm, in the order arms.c calls the row (every call
 * before the database is opened reports bad input as AB_ERR_INPUT naming
 * the scenario's FILE:LINE):
 *
 *   check       the spec's keys (values, required and exclusive keys), no
 *               file opened; run for every [arm] section of the scenario,
 *               used or not (arms_check)
 *   load        check, then open and read the files (dlopen, ELF, JSON):
 *               the kind's instance, `void *arm` below
 *   check_case  per case that runs it: may it run this case (site,
 *               the plugin's own check, launch expressions)
 *   runs_on     per case: can the run's backend run it. The one place a
 *               kind says which backends run it, by the capabilities it
 *               asks of them (backend_has_caps: host buffers, a CUDA
 *               stream, driver modules) or the variant's
 *               (backend_supports_variant), never by a backend's name
 *   variant     the site_variant a slot runs, asked once per case when
 *               the case is planned (arms_plan_case, before bind); a user
 *               arm's carries its prepare and call functions in `ext`
 *               (kernels/common/site.h: per instance, as a plugin may have
 *               a cpu function and no cuda one), which the backends call
 *   bind        once the backend is open: load code into the device's
 *               context (architecture checked there)
 *   begin_case  per case, before its slots: handed the case's plan
 *               (config/case_plan.h: every tensor's shape, elements and
 *               bytes), which lives until its slots are done
 *   source      what ran, for the run's provenance (table run_arms; its
 *               kind is the row's name, filled by arms.c)
 *   free
 *
 * Optional members are NULL when the kind has nothing to do there.
 */
#ifndef AB_ARM_KIND_H
#define AB_ARM_KIND_H

#include <stdbool.h>

#include "common/diag.h"
#include "common/results.h"
#include "config/case_plan.h"
#include "config/scenario.h"

struct arm_kind {
	const char *name;         /* type = NAME, the shortcut's NAME:, results_arm_source.kind (results_check_kind_name) */
	const char *const *keys;  /* its [arm] keys besides type and site, NULL-terminated; NULL: no sections */
	bool shortcut;            /* a = NAME:PATH:ARM names one */
	enum ab_rc (*check)(const struct arm_spec *spec, const struct scenario *s, struct ab_diag *d);
	enum ab_rc (*load)(const struct arm_spec *spec, const struct scenario *s, void **arm, struct ab_diag *d);
	enum ab_rc (*check_case)(void *arm, const struct scenario_case *c, struct ab_diag *d); /* NULL: none */
	enum ab_rc (*runs_on)(void *arm, const struct scenario_case *c, const char *backend, struct ab_diag *d);
	/* s: its cases are those the arm runs (all of them today) */
	enum ab_rc (*bind)(void *arm, const struct results_device *dev, const struct scenario *s,
			   struct ab_diag *d); /* NULL: none */
	void (*begin_case)(void *arm, const struct case_plan *p); /* NULL: none */
	const struct site_variant *(*variant)(void *arm, const struct scenario_case *c);
	void (*source)(const void *arm, struct results_arm_source *src); /* NULL: no provenance */
	void (*free)(void *arm);
};

/* The kind called name, NULL when there is none. */
const struct arm_kind *arm_kind_find(const char *name);
/* The i-th kind of the table (0-based), NULL past its end. */
const struct arm_kind *arm_kind_at(int i);

/* The kind of a built-in variant (spec->kind of the specs arms.c makes
 * for them). */
extern const char arm_kind_builtin[];

/* One user arm's text against its kind: its keys known (a key no kind
 * has: "unknown key in [arm NAME] (did you mean ...)"; another kind's:
 * "KEY: not a key of plugin arms"), its kind given and real, then the
 * kind's own check. No file is opened. */
enum ab_rc arm_kind_check(const struct arm_spec *spec, const struct scenario *s, struct ab_diag *d);

#endif
