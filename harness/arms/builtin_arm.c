/*
 * builtin_arm.c - the arm kind of abbench's own variants (arm_kind.h):
 * `a = eager`, `b = fused.pf8`, a name the case's site registers
 * (kernels/<site>/site.c). config/ has checked that every case's site has
 * the variant; what is left is whether the run's backend implements it
 * (the fused.<tuning> arms are CUDA only), and the variant itself, which
 * differs per case as each site has its own.
 */
#include "arms/arm_kind.h"

#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"

struct builtin_arm {
	char name[ARM_SPEC_NAME_MAX];
	char side;        /* 'a' or 'b', for messages */
	const char *scn;  /* the scenario's path, for messages */
};

static enum ab_rc builtin_load(const struct arm_spec *spec, const struct scenario *s, void **arm, struct ab_diag *d)
{
	struct builtin_arm *b = calloc(1, sizeof *b);
	*arm = b;
	if (!b)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate a built-in arm");
	memcpy(b->name, spec->name, sizeof b->name);
	b->side = spec->via[0];
	b->scn = s->path;
	return AB_OK;
}

static const struct site_variant *builtin_variant(void *arm, const struct scenario_case *c)
{
	const struct builtin_arm *b = arm;
	return site_find_variant(c->site, b->name);
}

/* Whether the run's backend implements the variant (the backend answers:
 * fused.<tuning> arms are GPU code only; a build without nvcc has no GPU
 * code at all). */
static enum ab_rc builtin_runs_on(void *arm, const struct scenario_case *c, const char *backend, struct ab_diag *d)
{
	const struct builtin_arm *b = arm;
	const struct site_variant *v = builtin_variant(arm, c);
	char on[128];
	if (!v || backend_supports_variant(backend_find(backend), v))
		return AB_OK;
	backend_names_for_variant(v, on, sizeof on);
	return ab_fail(d, AB_ERR_INPUT,
		       "%s:%d: case '%s': arm %c '%s' of site '%s' has no %s implementation (it runs on: %s)",
		       b->scn, c->line, c->name, b->side, b->name, c->site->name, backend,
		       on[0] ? on : "no backend of this build");
}

static void builtin_free(void *arm)
{
	free(arm);
}

const struct arm_kind builtin_arm_kind = {
	.name = arm_kind_builtin,
	.load = builtin_load,
	.runs_on = builtin_runs_on,
	.variant = builtin_variant,
	.free = builtin_free,
};
