/*
 * arms.c - a run's user arms (arms.h): at most two, one per side; a
 * scenario whose a and b name the same arm loads it once.
 */
#include "arms/arms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arms/cubin_arm.h"
#include "arms/plugin_arm.h"

struct user_arm {
	const struct arm_spec *spec;
	struct plugin_arm *plugin;  /* one of these two */
	struct cubin_arm *cubin;
	struct site_variant variant;
	char summary[96];
};

struct arms {
	const struct scenario *scn;
	int n;
	struct user_arm arm[2];
	int of[2]; /* index in arm[] of arm a and of arm b; -1: a built-in variant */
};

/* The plugin's arm against the cases and the backend. */
static enum ab_rc plan_plugin(struct arms *A, struct user_arm *u, const char *backend, struct ab_diag *d)
{
	const struct scenario *s = A->scn;
	const struct site_desc *site = plugin_arm_site(u->plugin);
	bool cpu = strcmp(backend, "cpu") == 0;
	if (cpu ? !plugin_arm_has_cpu(u->plugin) : !plugin_arm_has_cuda(u->plugin))
		return arm_spec_fail(d, AB_ERR_INPUT, s->path, u->spec, u->spec->lines.name,
				     "the plugin's arm has no %s function, and this run uses the %s backend",
				     cpu ? "cpu" : "cuda", backend);
	for (int i = 0; i < s->n_cases; i++) {
		const struct scenario_case *c = &s->cases[i];
		if (c->site != site)
			return arm_spec_fail(d, AB_ERR_INPUT, s->path, u->spec, u->spec->lines.header,
					     "the plugin's arm implements site '%s', but case '%s' (line %d) has site '%s'",
					     site->name, c->name, c->line, c->site->name);
		enum ab_rc rc = plugin_arm_check_case(u->plugin, c, d);
		if (rc)
			return arm_spec_fail(d, rc, s->path, u->spec, u->spec->lines.name, "%s", d->msg);
	}
	snprintf(u->summary, sizeof u->summary, "plugin arm");
	u->variant.ext = plugin_arm_ext(u->plugin);
	return AB_OK;
}

static enum ab_rc plan_cubin(struct arms *A, struct user_arm *u, const char *backend, struct ab_diag *d)
{
	const struct scenario *s = A->scn;
	for (int i = 0; i < s->n_cases; i++) {
		enum ab_rc rc = cubin_arm_check_case(u->cubin, &s->cases[i], d);
		if (rc)
			return rc;
	}
	if (strcmp(backend, "cuda") != 0)
		return arm_spec_fail(d, AB_ERR_INPUT, s->path, u->spec, u->spec->lines.header,
				     "a cubin arm runs on the cuda backend only, and this run uses the %s backend", backend);
	snprintf(u->summary, sizeof u->summary, "cubin arm");
	u->variant.ext = cubin_arm_ext(u->cubin);
	return AB_OK;
}

static enum ab_rc plan_one(struct arms *A, const struct arm_spec *spec, const char *backend, struct ab_diag *d)
{
	struct user_arm *u = &A->arm[A->n++];
	u->spec = spec;
	u->variant = (struct site_variant){ .name = spec->name, .summary = u->summary, .byte_equal_expected = true };
	if (spec->type == ARM_SPEC_PLUGIN) {
		enum ab_rc rc = plugin_arm_load(A->scn->path, spec, &u->plugin, d);
		return rc ? rc : plan_plugin(A, u, backend, d);
	}
	enum ab_rc rc = cubin_arm_load(A->scn->path, spec, &u->cubin, d);
	return rc ? rc : plan_cubin(A, u, backend, d);
}

enum ab_rc arms_plan(const struct scenario *s, const char *backend, struct arms **out, struct ab_diag *d)
{
	struct arms *A = calloc(1, sizeof *A);
	*out = NULL;
	if (!A)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the arms");
	A->scn = s;
	for (int j = 0; j < 2; j++) {
		A->of[j] = -1;
		if (s->arm_ref[j] < 0)
			continue;
		if (j == 1 && s->arm_ref[0] == s->arm_ref[1]) {
			A->of[1] = A->of[0];
			continue;
		}
		A->of[j] = A->n;
		enum ab_rc rc = plan_one(A, &s->arms[s->arm_ref[j]], backend, d);
		if (rc) {
			arms_free(A);
			return rc;
		}
	}
	*out = A;
	return AB_OK;
}

enum ab_rc arms_bind(struct arms *A, const struct results_device *dev, struct ab_diag *d)
{
	for (int i = 0; A && i < A->n; i++) {
		enum ab_rc rc = A->arm[i].cubin ? cubin_arm_bind(A->arm[i].cubin, dev, A->scn, d) : AB_OK;
		if (rc)
			return rc;
	}
	return AB_OK;
}

void arms_free(struct arms *A)
{
	if (!A)
		return;
	for (int i = 0; i < A->n; i++) {
		plugin_arm_free(A->arm[i].plugin);
		cubin_arm_free(A->arm[i].cubin);
	}
	free(A);
}

void arms_begin_case(struct arms *A, const struct scenario_case *c)
{
	for (int i = 0; A && i < A->n; i++) {
		if (A->arm[i].plugin)
			plugin_arm_begin_case(A->arm[i].plugin, c);
		if (A->arm[i].cubin)
			cubin_arm_begin_case(A->arm[i].cubin, c);
	}
}

const struct site_variant *arms_variant(const struct arms *A, char arm)
{
	int i = A ? A->of[arm == 'b'] : -1;
	return i < 0 ? NULL : &A->arm[i].variant;
}

void arms_sources(const struct arms *A, struct results_run *r)
{
	r->n_arm_sources = 0;
	for (int j = 0; A && j < 2; j++) {
		if (A->of[j] < 0)
			continue;
		const struct user_arm *u = &A->arm[A->of[j]];
		struct results_arm_source *src = &r->arm_sources[r->n_arm_sources++];
		memset(src, 0, sizeof *src);
		src->arm = j ? 'b' : 'a';
		snprintf(src->name, sizeof src->name, "%s", u->spec->name);
		if (u->plugin)
			plugin_arm_source(u->plugin, src);
		else
			cubin_arm_source(u->cubin, src);
	}
}
