/*
 * plugin_arm.c - plugin libraries (plugin_arm.h).
 *
 * Load: read the file (its sha256 is the run's provenance), dlopen it
 * (RTLD_NOW: an unresolved symbol fails here, not mid-run; it is never
 * closed, see plugin_arm_free), find
 * abbench_plugin_entry, call it with our ABI version, check the table's
 * version, find the arm by name, check its site exists (and is the one
 * the [arm] section names). Each call builds a struct abbench_call from
 * the backend's site_args: one abbench_tensor per site tensor, with the
 * site's name, dtype, role and element count.
 */
#include "arms/plugin_arm.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abbench/plugin.h"
#include "arms/blob.h"
#include "arms/elf_check.h"

#define PLUGIN_FILE_MAX ((size_t)1 << 30)
#define PLUGIN_ARMS_MAX 1024 /* a table's arms: bounds the duplicate check */

struct plugin_arm {
	void *lib;
	const struct abbench_plugin *table;
	const struct abbench_arm *arm;
	const struct site_desc *site;
	struct site_ext_arm ext;
	char step[64];                  /* the CPU backend's step name */
	char path[PATH_MAX];            /* absolute */
	char sha256[65];
	char case_name[64];
	int rank;
	int64_t shape[SITE_MAX_RANK];
};

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

/* One call's description; t has room for SITE_MAX_TENSORS. */
static void fill_call(const struct plugin_arm *pa, const struct site_args *a, void *stream, struct abbench_tensor *t,
		      struct abbench_call *call, char *err, size_t len)
{
	const struct site_desc *s = pa->site;
	for (int i = 0; i < s->n_tensors; i++) {
		const struct site_tensor *st = &s->tensors[i];
		t[i] = (struct abbench_tensor){ .name = st->name, .data = a->t[i],
						.dtype = st->dtype == SITE_F32 ? ABBENCH_F32 : ABBENCH_BF16,
						.role = role_of(st->role), .elems = site_tensor_elems(st, &a->dims) };
	}
	*call = (struct abbench_call){ .abi_version = ABBENCH_PLUGIN_ABI_VERSION, .site = s->name,
				       .case_name = pa->case_name, .rank = pa->rank, .eps = a->eps,
				       .affine = a->affine, .stream = stream, .n_tensors = s->n_tensors, .tensors = t,
				       .err = err, .err_len = len };
	memcpy(call->shape, pa->shape, sizeof call->shape);
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

static int ext_cpu(void *ctx, const struct site_args *a, char *err, size_t len)
{
	const struct plugin_arm *pa = ctx;
	return invoke(pa, pa->arm->cpu, "cpu", a, NULL, err, len);
}

static int ext_cuda(void *ctx, const struct site_args *a, void *stream, char *err, size_t len)
{
	const struct plugin_arm *pa = ctx;
	return invoke(pa, pa->arm->cuda, "cuda", a, stream, err, len);
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

/* dlopen and the entry symbol; the library keeps its own path. */
static enum ab_rc open_library(struct plugin_arm *pa, const char *scn, const struct arm_spec *spec,
			       struct ab_diag *d)
{
	char local[PATH_MAX + 2];
	/* A name without '/' would make dlopen search the system's paths. */
	snprintf(local, sizeof local, "%s%s", strchr(spec->library, '/') ? "" : "./", spec->library);
	pa->lib = dlopen(local, RTLD_NOW | RTLD_LOCAL);
	if (!pa->lib)
		return arm_spec_fail(d, AB_ERR_INPUT, scn, spec, spec->lines.library, "cannot load '%s': %s",
				     spec->library, dlerror());
	void *sym = dlsym(pa->lib, ABBENCH_PLUGIN_ENTRY_NAME);
	abbench_plugin_entry_fn entry;
	memcpy(&entry, &sym, sizeof entry);
	if (!entry)
		return arm_spec_fail(d, AB_ERR_INPUT, scn, spec, spec->lines.library,
				     "'%s' has no symbol '%s': not an abbench plugin (include/abbench/plugin.h)",
				     spec->library, ABBENCH_PLUGIN_ENTRY_NAME);
	pa->table = entry(ABBENCH_PLUGIN_ABI_VERSION);
	if (!pa->table)
		return arm_spec_fail(d, AB_ERR_INPUT, scn, spec, spec->lines.library,
				     "'%s': %s returned no table (it refuses plugin ABI version %u)", spec->library,
				     ABBENCH_PLUGIN_ENTRY_NAME, ABBENCH_PLUGIN_ABI_VERSION);
	return AB_OK;
}

/* Two arms of one name would leave which one runs to the lookup's order:
 * the table is refused, naming both entries (1-based). */
static enum ab_rc check_unique(const struct abbench_plugin *t, const char *scn, const struct arm_spec *spec,
			       struct ab_diag *d)
{
	for (int32_t i = 0; i < t->n_arms; i++)
		for (int32_t j = i + 1; t->arms[i].name && j < t->n_arms; j++)
			if (t->arms[j].name && strcmp(t->arms[i].name, t->arms[j].name) == 0)
				return arm_spec_fail(d, AB_ERR_INPUT, scn, spec, spec->lines.library,
						     "'%s' has two arms named '%s' (entries %d and %d of its table): rename one",
						     spec->library, t->arms[i].name, (int)i + 1, (int)j + 1);
	return AB_OK;
}

static enum ab_rc check_table(struct plugin_arm *pa, const char *scn, const struct arm_spec *spec, struct ab_diag *d)
{
	const struct abbench_plugin *t = pa->table;
	char list[256];
	if (t->abi_version != ABBENCH_PLUGIN_ABI_VERSION)
		return arm_spec_fail(d, AB_ERR_INPUT, scn, spec, spec->lines.library,
				     "'%s' was built for plugin ABI version %u; this abbench speaks version %u "
				     "(rebuild it against include/abbench/plugin.h)",
				     spec->library, t->abi_version, ABBENCH_PLUGIN_ABI_VERSION);
	if (t->n_arms < 0 || t->n_arms > PLUGIN_ARMS_MAX || (t->n_arms > 0 && !t->arms))
		return arm_spec_fail(d, AB_ERR_INPUT, scn, spec, spec->lines.library,
				     "'%s': its table of arms is malformed (%d arms)", spec->library, (int)t->n_arms);
	enum ab_rc rc = check_unique(t, scn, spec, d);
	if (rc)
		return rc;
	for (int32_t i = 0; i < t->n_arms; i++)
		if (t->arms[i].name && strcmp(t->arms[i].name, spec->entry) == 0)
			pa->arm = &t->arms[i];
	arm_names(t, list, sizeof list);
	if (!pa->arm)
		return arm_spec_fail(d, AB_ERR_INPUT, scn, spec, spec->lines.name, "'%s' has no arm '%s' (its arms: %s)",
				     spec->library, spec->entry, list[0] ? list : "none");
	return AB_OK;
}

static enum ab_rc check_site(struct plugin_arm *pa, const char *scn, const struct arm_spec *spec, struct ab_diag *d)
{
	const char *want = pa->arm->site ? pa->arm->site : "(null)";
	pa->site = site_find(pa->arm->site);
	if (!pa->site)
		return arm_spec_fail(d, AB_ERR_INPUT, scn, spec, spec->lines.name,
				     "the plugin's arm '%s' is for site '%s', which abbench does not have (abbench sites)",
				     spec->entry, want);
	if (spec->site && spec->site != pa->site)
		return arm_spec_fail(d, AB_ERR_INPUT, scn, spec, spec->lines.site,
				     "the plugin's arm '%s' implements site '%s', not '%s'", spec->entry, pa->site->name,
				     spec->site->name);
	if (!pa->arm->cpu && !pa->arm->cuda)
		return arm_spec_fail(d, AB_ERR_INPUT, scn, spec, spec->lines.name,
				     "the plugin's arm '%s' has neither a cuda nor a cpu function", spec->entry);
	return AB_OK;
}

static void init_ext(struct plugin_arm *pa)
{
	snprintf(pa->step, sizeof pa->step, "plugin %s (cpu)", pa->arm->name);
	pa->ext = (struct site_ext_arm){ .ctx = pa, .cpu_step = pa->step, .cpu = pa->arm->cpu ? ext_cpu : NULL,
					 .cuda = pa->arm->cuda ? ext_cuda : NULL };
}

enum ab_rc plugin_arm_load(const char *scn, const struct arm_spec *spec, struct plugin_arm **out, struct ab_diag *d)
{
	struct blob file;
	*out = NULL;
	enum ab_rc rc = blob_read(spec->library, PLUGIN_FILE_MAX, &file, d);
	if (rc)
		return rc == AB_ERR_NOMEM ? rc : arm_spec_fail(d, rc, scn, spec, spec->lines.library, "%s", d->msg);
	struct plugin_arm *pa = calloc(1, sizeof *pa);
	if (!pa) {
		blob_free(&file);
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate a plugin arm");
	}
	memcpy(pa->sha256, file.sha256, sizeof pa->sha256);
	char err[AB_DIAG_MAX / 2];
	bool whole = elf_check_bounds(file.data, file.size, err, sizeof err);
	blob_free(&file);
	if (!whole) {
		free(pa);
		return arm_spec_fail(d, AB_ERR_INPUT, scn, spec, spec->lines.library, "cannot load '%s': %s", spec->library,
				     err);
	}
	if (!realpath(spec->library, pa->path))
		snprintf(pa->path, sizeof pa->path, "%s", spec->library);
	if ((rc = open_library(pa, scn, spec, d)) || (rc = check_table(pa, scn, spec, d)) ||
	    (rc = check_site(pa, scn, spec, d))) {
		plugin_arm_free(pa);
		return rc;
	}
	init_ext(pa);
	*out = pa;
	return AB_OK;
}

/* The library itself stays loaded until abbench exits: a CUDA runtime
 * linked into a plugin expects to be torn down at process exit, after
 * the backend's context work, not in the middle of it. */
void plugin_arm_free(struct plugin_arm *pa)
{
	free(pa);
}

const struct site_desc *plugin_arm_site(const struct plugin_arm *pa)
{
	return pa->site;
}

bool plugin_arm_has_cpu(const struct plugin_arm *pa)
{
	return pa->arm->cpu != NULL;
}

bool plugin_arm_has_cuda(const struct plugin_arm *pa)
{
	return pa->arm->cuda != NULL;
}

void plugin_arm_begin_case(struct plugin_arm *pa, const struct scenario_case *c)
{
	snprintf(pa->case_name, sizeof pa->case_name, "%s", c->name);
	pa->rank = c->shape.rank;
	memcpy(pa->shape, c->shape.dim, sizeof pa->shape);
}

enum ab_rc plugin_arm_check_case(struct plugin_arm *pa, const struct scenario_case *c, struct ab_diag *d)
{
	struct site_args a = { .dims = c->dims, .eps = (float)c->eps, .affine = c->affine };
	char err[AB_DIAG_MAX / 2] = "";
	if (!pa->arm->check)
		return AB_OK;
	plugin_arm_begin_case(pa, c);
	if (invoke(pa, pa->arm->check, "check", &a, NULL, err, sizeof err) == ABBENCH_OK)
		return AB_OK;
	return ab_fail(d, AB_ERR_INPUT, "refuses case '%s' (line %d): %s", c->name, c->line, err);
}

const struct site_ext_arm *plugin_arm_ext(const struct plugin_arm *pa)
{
	return &pa->ext;
}

void plugin_arm_source(const struct plugin_arm *pa, struct results_arm_source *src)
{
	snprintf(src->kind, sizeof src->kind, "plugin");
	snprintf(src->path, sizeof src->path, "%.511s", pa->path);
	snprintf(src->sha256, sizeof src->sha256, "%s", pa->sha256);
	snprintf(src->detail, sizeof src->detail, "arm '%.60s' of plugin '%.60s' (ABI %u), site %s", pa->arm->name,
		 pa->table->name ? pa->table->name : "", pa->table->abi_version, pa->site->name);
}
