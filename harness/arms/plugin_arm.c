/*
 * plugin_arm.c - the arm kind of plugin libraries (arm_kind.h,
 * include/abbench/plugin.h): `type = plugin` with `library = PATH` and
 * `name = ARM` (the arm's name in the plugin's table), or the shortcut
 * plugin:PATH:ARM.
 *
 * Load: read the file (its sha256 is the run's provenance), check it
 * against its ELF headers (a truncated copy would crash dlopen), dlopen it
 * (RTLD_NOW: an unresolved symbol fails here, not mid-run; it is never
 * closed, see plugin_free), find abbench_plugin_entry, call it with our
 * ABI version, check the table's version and that no two arms share a
 * name, find the arm by name, check its site exists (and is the one the
 * [arm] section names) and has every tensor the arm lists. Each call
 * builds a struct abbench_call from the backend's site_args: the case's
 * shape with the site's axis names, one abbench_tensor per site tensor,
 * with the site's name, dtype, role, shape and element count.
 *
 * Errors at load and check time are bad input (AB_ERR_INPUT, exit 2) and
 * name the scenario's FILE:LINE; a plugin function that fails while the
 * run measures makes the backend fail the run with its message.
 */
#include "arms/arm_kind.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abbench/plugin.h"
#include "arms/blob.h"
#include "arms/elf_check.h"
#include "backend/backend.h"
#include "config/case_plan.h"

#define PLUGIN_FILE_MAX ((size_t)1 << 30)
#define PLUGIN_ARMS_MAX 1024 /* a table's arms: bounds the duplicate check */

/* What the scenario says: the library (resolved against its folder) and
 * the arm's name in the library's table. */
struct plugin_spec {
	char library[ARM_SPEC_PATH_MAX];
	char entry[ARM_SPEC_NAME_MAX];
};

struct plugin_arm {
	const char *scn;                /* the scenario's path, for messages */
	const struct arm_spec *spec;
	struct plugin_spec ps;
	void *lib;
	const struct abbench_plugin *table;
	const struct abbench_arm *arm;
	const struct site_desc *site;
	struct site_ext_arm ext;
	struct site_variant variant;
	char step[64];                  /* the CPU backend's step name */
	char path[PATH_MAX];            /* absolute */
	char sha256[65];
	char case_name[64];
	char axes[SITE_MAX_TENSORS][SITE_MAX_RANK * (SITE_AXIS_NAME_MAX + 1)]; /* each tensor's, "B,T,W" */
	struct abbench_tensor tensors[SITE_MAX_TENSORS]; /* the case's, but for their buffers (begin_case) */
};

_Static_assert(ABBENCH_MAX_RANK == SITE_MAX_RANK, "a plugin sees every axis of a site");

/* ---- the scenario's text ---------------------------------------------------- */

static const char *const plugin_keys[] = { "library", "name", NULL };

static enum ab_rc plugin_parse(const struct arm_spec *spec, const struct scenario *s, struct plugin_spec *out,
			       struct ab_diag *d)
{
	const bool shortcut = arm_spec_is_shortcut(spec);
	const struct arm_spec_key *lib = arm_spec_find(spec, "library"), *name = arm_spec_find(spec, "name");
	const char *library = shortcut ? spec->path : lib ? lib->value : NULL;
	const char *entry = shortcut ? spec->name : name ? name->value : NULL;
	enum ab_rc rc;
	if (library && !arm_spec_resolve_path(s->path, library, out->library, sizeof out->library))
		return arm_spec_key_fail(d, s->path, spec, "library", "'%s' is too long a path", library);
	if (entry && !scenario_name_ok(entry))
		return arm_spec_key_fail(d, s->path, spec, "name", "'%s' may use only letters, digits, '_', '-' and '.'",
					 entry);
	if (entry && strlen(entry) >= sizeof out->entry)
		return arm_spec_key_fail(d, s->path, spec, "name", "'%s' is %zu characters long, at most %zu allowed", entry,
					 strlen(entry), sizeof out->entry - 1);
	if ((rc = arm_spec_require(d, s->path, spec, "library", "the plugin's shared library")) ||
	    (rc = arm_spec_require(d, s->path, spec, "name", "the arm's name in the plugin's table")))
		return rc;
	memcpy(out->entry, entry, strlen(entry) + 1); /* fits: checked above */
	return AB_OK;
}

static enum ab_rc plugin_check(const struct arm_spec *spec, const struct scenario *s, struct ab_diag *d)
{
	struct plugin_spec ps;
	return plugin_parse(spec, s, &ps, d);
}

/* ---- calls ------------------------------------------------------------------ */

static int32_t role_of(enum site_role r)
{
	switch (r) {
	case SITE_IN_ACT:
	case SITE_IN_PARAM: return ABBENCH_ROLE_INPUT;
	case SITE_OUT: return ABBENCH_ROLE_OUTPUT;
	case SITE_AUX: return ABBENCH_ROLE_STAT;
	case SITE_SCRATCH: return ABBENCH_ROLE_SCRATCH;
	}
	return ABBENCH_ROLE_SCRATCH;
}

/* The plugin ABI's dtype of each site dtype. */
static const int32_t abi_dtype[SITE_N_DTYPES] = {
	[SITE_BF16] = ABBENCH_BF16, [SITE_F32] = ABBENCH_F32, [SITE_F16] = ABBENCH_F16,
	[SITE_I32] = ABBENCH_I32,   [SITE_I64] = ABBENCH_I64, [SITE_U8] = ABBENCH_U8,
};

/* One call's description over the buffers of a: the case's tensors as
 * begin_case described them; t has room for SITE_MAX_TENSORS. */
static void fill_call(const struct plugin_arm *pa, const struct site_args *a, void *stream, struct abbench_tensor *t,
		      struct abbench_call *call, char *err, size_t len)
{
	const struct site_desc *s = pa->site;
	for (int i = 0; i < s->n_tensors; i++) {
		t[i] = pa->tensors[i];
		t[i].data = a->t[i];
	}
	*call = (struct abbench_call){ .abi_version = ABBENCH_PLUGIN_ABI_VERSION, .site = s->name,
				       .case_name = pa->case_name, .rank = a->dims.n_axes, .eps = a->eps,
				       .affine = a->affine, .stream = stream, .n_tensors = s->n_tensors, .tensors = t,
				       .err = err, .err_len = len };
	for (int k = 0; k < a->dims.n_axes; k++) {
		call->shape[k] = a->dims.axis[k];
		call->axes[k] = s->axes[k];
	}
	call->dims = (struct abbench_dims){ a->dims.batch, a->dims.tokens, a->dims.width, a->dims.row_len, a->dims.rows,
					    a->dims.heads };
}

/* Calls fn (the arm's function called what); on failure err holds "the
 * plugin's cpu function failed (status N): msg". */
static int invoke(const struct plugin_arm *pa, abbench_arm_fn fn, const char *what, const struct site_args *a,
		  void *stream, char *err, size_t len)
{
	struct abbench_tensor t[SITE_MAX_TENSORS];
	struct abbench_call call;
	char msg[256] = "";
	fill_call(pa, a, stream, t, &call, msg, sizeof msg);
	int status = fn(&call);
	if (status != ABBENCH_OK) {
		msg[sizeof msg - 1] = '\0';
		snprintf(err, len, "the plugin's %s function failed (status %d): %s", what, status,
			 msg[0] ? msg : "no message");
	}
	return status;
}

/* The plugin ABI's function for the way the backend calls: cpu over host
 * buffers, cuda over device buffers and a stream. */
static abbench_arm_fn plugin_fn(const struct abbench_arm *arm, enum site_ext_on on, const char **what)
{
	*what = on == SITE_EXT_CUDA_STREAM ? "cuda" : "cpu";
	return on == SITE_EXT_CUDA_STREAM ? arm->cuda : on == SITE_EXT_HOST ? arm->cpu : NULL;
}

static int ext_call(void *ctx, const struct site_args *a, enum site_ext_on on, void *stream, char *err, size_t len)
{
	const struct plugin_arm *pa = ctx;
	const char *what;
	abbench_arm_fn fn = plugin_fn(pa->arm, on, &what);
	if (!fn) {
		snprintf(err, len, "the plugin's arm has no %s function", what);
		return ABBENCH_ERR;
	}
	return invoke(pa, fn, what, a, stream, err, len);
}

/* ---- loading ------------------------------------------------------------------ */

static void arm_names(const struct abbench_plugin *t, char *buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int32_t i = 0; i < t->n_arms && used < cap; i++)
		used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "",
					 t->arms[i].name ? t->arms[i].name : "(null)");
}

/* Bad input: "SCENARIO:LINE: arm 'NAME': ..." at the line of key (a
 * shortcut's a or b line). */
__attribute__((format(printf, 4, 5)))
static enum ab_rc fail_at(const struct plugin_arm *pa, const char *key, struct ab_diag *d, const char *fmt, ...)
{
	char msg[AB_DIAG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return arm_spec_fail(d, AB_ERR_INPUT, pa->scn, pa->spec, arm_spec_line(pa->spec, key), "%s", msg);
}

/* dlopen and the entry symbol; the library keeps its own path. */
static enum ab_rc open_library(struct plugin_arm *pa, struct ab_diag *d)
{
	const char *library = pa->ps.library;
	char local[ARM_SPEC_PATH_MAX + 2];
	/* A name without '/' would make dlopen search the system's paths. */
	snprintf(local, sizeof local, "%s%s", strchr(library, '/') ? "" : "./", library);
	pa->lib = dlopen(local, RTLD_NOW | RTLD_LOCAL);
	if (!pa->lib)
		return fail_at(pa, "library", d, "cannot load '%s': %s", library, dlerror());
	void *sym = dlsym(pa->lib, ABBENCH_PLUGIN_ENTRY_NAME);
	abbench_plugin_entry_fn entry;
	memcpy(&entry, &sym, sizeof entry);
	if (!entry)
		return fail_at(pa, "library", d, "'%s' has no symbol '%s': not an abbench plugin (include/abbench/plugin.h)",
			       library, ABBENCH_PLUGIN_ENTRY_NAME);
	pa->table = entry(ABBENCH_PLUGIN_ABI_VERSION);
	if (!pa->table)
		return fail_at(pa, "library", d, "'%s': %s returned no table (it refuses plugin ABI version %u)", library,
			       ABBENCH_PLUGIN_ENTRY_NAME, ABBENCH_PLUGIN_ABI_VERSION);
	return AB_OK;
}

/* Two arms of one name would leave which one runs to the lookup's order:
 * the table is refused, naming both entries (1-based). */
static enum ab_rc check_unique(const struct plugin_arm *pa, struct ab_diag *d)
{
	const struct abbench_plugin *t = pa->table;
	for (int32_t i = 0; i < t->n_arms; i++)
		for (int32_t j = i + 1; t->arms[i].name && j < t->n_arms; j++)
			if (t->arms[j].name && strcmp(t->arms[i].name, t->arms[j].name) == 0)
				return fail_at(pa, "library", d, "'%s' has two arms named '%s' (entries %d and %d of its table): rename one",
					       pa->ps.library, t->arms[i].name, (int)i + 1, (int)j + 1);
	return AB_OK;
}

static enum ab_rc check_table(struct plugin_arm *pa, struct ab_diag *d)
{
	const struct abbench_plugin *t = pa->table;
	char list[256];
	if (t->abi_version != ABBENCH_PLUGIN_ABI_VERSION)
		return fail_at(pa, "library", d,
			       "'%s' was built for plugin ABI version %u; this abbench speaks version %u "
			       "(rebuild it against include/abbench/plugin.h)",
			       pa->ps.library, t->abi_version, ABBENCH_PLUGIN_ABI_VERSION);
	if (t->n_arms < 0 || t->n_arms > PLUGIN_ARMS_MAX || (t->n_arms > 0 && !t->arms))
		return fail_at(pa, "library", d, "'%s': its table of arms is malformed (%d arms)", pa->ps.library,
			       (int)t->n_arms);
	enum ab_rc rc = check_unique(pa, d);
	if (rc)
		return rc;
	for (int32_t i = 0; i < t->n_arms; i++)
		if (t->arms[i].name && strcmp(t->arms[i].name, pa->ps.entry) == 0)
			pa->arm = &t->arms[i];
	arm_names(t, list, sizeof list);
	if (!pa->arm)
		return fail_at(pa, "name", d, "'%s' has no arm '%s' (its arms: %s)", pa->ps.library, pa->ps.entry,
			       list[0] ? list : "none");
	return AB_OK;
}

/* Every tensor the arm lists is the site's (a declared site's names are
 * the scenario's, which may not be the ones the plugin was written for). */
static enum ab_rc check_tensors(struct plugin_arm *pa, struct ab_diag *d)
{
	const char *const *names = pa->arm->tensors;
	for (int i = 0; names && names[i] && i < SITE_MAX_TENSORS * 4; i++) {
		if (site_tensor_index(pa->site, names[i]) >= 0)
			continue;
		char list[256] = "";
		size_t used = 0;
		for (int k = 0; k < pa->site->n_tensors && used < sizeof list; k++)
			used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "",
						 pa->site->tensors[k].name);
		return fail_at(pa, "name", d, "the plugin's arm '%s' uses tensor '%s', which site '%s' lacks (its tensors: %s)",
			       pa->ps.entry, names[i], pa->site->name, list);
	}
	for (int i = 0; i < pa->site->n_tensors; i++)
		site_tensor_axes(pa->site, &pa->site->tensors[i], pa->axes[i], sizeof pa->axes[i]);
	return AB_OK;
}

static enum ab_rc check_site(struct plugin_arm *pa, const struct scenario *s, struct ab_diag *d)
{
	const struct arm_spec *spec = pa->spec;
	const char *want = pa->arm->site ? pa->arm->site : "(null)";
	pa->site = pa->arm->site ? scenario_site_find(s, pa->arm->site) : NULL;
	if (!pa->site && s->n_sites) {
		char list[512];
		scenario_site_names(s, list, sizeof list);
		return fail_at(pa, "name", d, "the plugin's arm '%s' is for site '%s', which the scenario does not declare and "
			       "abbench does not have (sites: %s)", pa->ps.entry, want, list);
	}
	if (!pa->site)
		return fail_at(pa, "name", d, "the plugin's arm '%s' is for site '%s', which abbench does not have (abbench sites)",
			       pa->ps.entry, want);
	if (spec->site && spec->site != pa->site)
		return arm_spec_fail(d, AB_ERR_INPUT, pa->scn, spec, spec->site_line,
				     "the plugin's arm '%s' implements site '%s', not '%s'", pa->ps.entry, pa->site->name,
				     spec->site->name);
	if (!pa->arm->cpu && !pa->arm->cuda)
		return fail_at(pa, "name", d, "the plugin's arm '%s' has neither a cuda nor a cpu function", pa->ps.entry);
	return check_tensors(pa, d);
}

static void init_ext(struct plugin_arm *pa)
{
	snprintf(pa->step, sizeof pa->step, "plugin %s (cpu)", pa->arm->name);
	pa->ext = (struct site_ext_arm){ .ctx = pa, .step = pa->step, .call = ext_call,
					 .on = (pa->arm->cpu ? SITE_EXT_ON_BIT(SITE_EXT_HOST) : 0) |
					       (pa->arm->cuda ? SITE_EXT_ON_BIT(SITE_EXT_CUDA_STREAM) : 0) };
	pa->variant = (struct site_variant){ .name = pa->spec->name, .summary = "plugin arm", .byte_equal_expected = true,
					     .ext = &pa->ext };
}

/* The file in memory: its sha256 and its ELF headers against its size. */
static enum ab_rc read_library(struct plugin_arm *pa, struct ab_diag *d)
{
	struct blob file;
	char err[AB_DIAG_MAX / 2];
	enum ab_rc rc = blob_read(pa->ps.library, PLUGIN_FILE_MAX, &file, d);
	if (rc)
		return rc == AB_ERR_NOMEM ? rc : arm_spec_fail(d, rc, pa->scn, pa->spec, arm_spec_line(pa->spec, "library"),
							       "%s", d->msg);
	memcpy(pa->sha256, file.sha256, sizeof pa->sha256);
	bool whole = elf_check_bounds(file.data, file.size, err, sizeof err);
	blob_free(&file);
	if (!whole)
		return fail_at(pa, "library", d, "cannot load '%s': %s", pa->ps.library, err);
	if (!realpath(pa->ps.library, pa->path))
		snprintf(pa->path, sizeof pa->path, "%s", pa->ps.library);
	return AB_OK;
}

static void plugin_free(void *arm);

static enum ab_rc plugin_load(const struct arm_spec *spec, const struct scenario *s, void **arm, struct ab_diag *d)
{
	struct plugin_arm *pa = calloc(1, sizeof *pa);
	enum ab_rc rc;
	*arm = NULL;
	if (!pa)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate a plugin arm");
	pa->scn = s->path;
	pa->spec = spec;
	if ((rc = plugin_parse(spec, s, &pa->ps, d)) || (rc = read_library(pa, d)) || (rc = open_library(pa, d)) ||
	    (rc = check_table(pa, d)) || (rc = check_site(pa, s, d))) {
		plugin_free(pa);
		return rc;
	}
	init_ext(pa);
	*arm = pa;
	return AB_OK;
}

/* The library itself stays loaded until abbench exits: a CUDA runtime
 * linked into a plugin expects to be torn down at process exit, after
 * the backend's context work, not in the middle of it. */
static void plugin_free(void *arm)
{
	free(arm);
}

/* ---- the run ------------------------------------------------------------------ */

/* The case the next calls are for: its name and its tensors (shapes,
 * elements) as every call describes them to the plugin. */
static void plugin_begin_case(void *arm, const struct case_plan *p)
{
	struct plugin_arm *pa = arm;
	snprintf(pa->case_name, sizeof pa->case_name, "%s", p->c->name);
	for (int i = 0; i < p->n_tensors; i++) {
		const struct case_plan_tensor *pt = &p->tensor[i];
		pa->tensors[i] = (struct abbench_tensor){ .name = pt->t->name, .dtype = abi_dtype[pt->t->dtype],
							  .role = role_of(pt->t->role), .elems = pt->elems,
							  .rank = pt->rank, .axes = pa->axes[i] };
		memcpy(pa->tensors[i].shape, pt->shape, sizeof pt->shape);
	}
}

/* The case's site is the plugin arm's, and the arm's own check (its check
 * function, if any) accepts the case. */
static enum ab_rc plugin_check_case(void *arm, const struct scenario_case *c, struct ab_diag *d)
{
	struct plugin_arm *pa = arm;
	struct case_plan plan;
	char err[AB_DIAG_MAX / 2] = "";
	if (c->site != pa->site)
		return arm_spec_fail(d, AB_ERR_INPUT, pa->scn, pa->spec, pa->spec->header,
				     "the plugin's arm implements site '%s', but case '%s' (line %d) has site '%s'",
				     pa->site->name, c->name, c->line, c->site->name);
	if (!pa->arm->check)
		return AB_OK;
	enum ab_rc rc = case_plan_build(c, &plan, d);
	if (rc)
		return rc;
	plugin_begin_case(pa, &plan);
	if (invoke(pa, pa->arm->check, "check", &plan.args, NULL, err, sizeof err) == ABBENCH_OK)
		return AB_OK;
	return fail_at(pa, "name", d, "refuses case '%s' (line %d): %s", c->name, c->line, err);
}

/* A plugin's arm runs where it has a function for the way the run's
 * backend calls (the backend answers, from the variant's ext: its cpu
 * function over host buffers, its cuda function over a CUDA stream). */
static enum ab_rc plugin_runs_on(void *arm, const struct scenario_case *c, const char *backend, struct ab_diag *d)
{
	const struct plugin_arm *pa = arm;
	unsigned caps = backend_caps(backend);
	(void)c;
	if (backend_supports_variant(backend_find(backend), &pa->variant))
		return AB_OK;
	if (!(caps & (BACKEND_CAP_HOST_BUFFERS | BACKEND_CAP_CUDA_STREAM)))
		return fail_at(pa, "name", d, "a plugin's arm has no function the %s backend can call", backend);
	return fail_at(pa, "name", d, "the plugin's arm has no %s function, and this run uses the %s backend",
		       caps & BACKEND_CAP_CUDA_STREAM ? "cuda" : "cpu", backend);
}

static const struct site_variant *plugin_variant(void *arm, const struct scenario_case *c)
{
	(void)c;
	return &((struct plugin_arm *)arm)->variant;
}

static void plugin_source(const void *arm, struct results_arm_source *src)
{
	const struct plugin_arm *pa = arm;
	snprintf(src->path, sizeof src->path, "%.511s", pa->path);
	snprintf(src->sha256, sizeof src->sha256, "%s", pa->sha256);
	snprintf(src->detail, sizeof src->detail, "arm '%.60s' of plugin '%.60s' (ABI %u), site %s", pa->arm->name,
		 pa->table->name ? pa->table->name : "", pa->table->abi_version, pa->site->name);
	snprintf(src->function, sizeof src->function, "%.127s", pa->arm->name);
}

const struct arm_kind plugin_arm_kind = {
	.name = "plugin",
	.keys = plugin_keys,
	.shortcut = true,
	.check = plugin_check,
	.load = plugin_load,
	.check_case = plugin_check_case,
	.runs_on = plugin_runs_on,
	.begin_case = plugin_begin_case,
	.variant = plugin_variant,
	.source = plugin_source,
	.free = plugin_free,
};
