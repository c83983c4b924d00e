/*
 * python_arm.c - the arm kind of Python callables (arm_kind.h), on top of
 * the Python runtime (pyrt.h; docs/PYTHON_ARMS.md): `type = python` with
 * `module = FILE.py` (relative to the scenario) and `function = NAME`, or
 * the shortcut python:FILE.py:NAME. The function is called as fn(t, d)
 * with the case's tensors as numpy arrays (CPU backend) or torch tensors
 * (CUDA) over the backend's own buffers.
 *
 * Plan time (every error is bad input, exit 2, naming the scenario's
 * FILE:LINE, before any database is opened):
 *   load        read the module file (its sha256 is the run's
 *               provenance), pyrt_open once per process (shared by every
 *               Python arm, closed with the last)
 *   check_case  every tensor of the case's site has a dtype and a shape
 *               a Python arm can be given
 *   runs_on     the backend hands arms host buffers (numpy arrays) or
 *               CUDA buffers and a stream (torch tensors): its
 *               capabilities; what its arrays need imports (numpy; torch
 *               with CUDA for the latter);
 *               then, once, the module is imported (once per file per
 *               run) and the function found. The import waits for the
 *               backend so that a missing torch is named as such, not as
 *               the ImportError of a module that imports torch
 *   bind        over CUDA buffers: the device number torch is to use (the
 *               current context's, driver.h)
 *
 * The run, per slot of a case (the backends call the variant's ext):
 *   prepare     CPU: pyrt_bind over the backend's buffers and the warm-up
 *               call; CUDA: nothing yet, as the binding needs the stream,
 *               which arrives with each call
 *   call        over CUDA buffers, the slot's first call binds (abbench's
 *               stream made torch's current one, pyrt_activate); the CUDA
 *               backend makes that call in slot_begin, untimed and waited
 *               for (cuda_prime_ext): it is the warm-up there; then, and
 *               over host buffers always, pyrt_call
 *   finish      pyrt_verify (shapes, dtypes, buffers, the stream), then
 *               pyrt_unbind (nothing of t kept): at the backend's
 *               slot_end, before the buffers are read or freed
 * So JIT compilation and torch's initialisation happen in the warm-up,
 * never in a timed span, and a binding never outlives its slot's buffers.
 * Anything a call shows (an exception, a tensor replaced) fails the run
 * (exit 3) with pyrt's one line.
 */
#include "arms/arm_kind.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arms/blob.h"
#include "arms/driver.h"
#include "arms/pyrt.h"
#include "backend/backend.h"
#include "config/case_plan.h"

#define PYTHON_FILE_MAX ((size_t)64 << 20)
#define PYTHON_FUNCTION_MAX 64
#define PYTHON_N_DIMS 6 /* d['dims']: batch, tokens, width, row_len, rows, heads */

/* What the scenario says: the module (resolved against its folder) and
 * the function's name in it. */
struct python_spec {
	char module[ARM_SPEC_PATH_MAX];
	char function[PYTHON_FUNCTION_MAX];
};

struct python_arm {
	const char *scn;                /* the scenario's path, for messages */
	const struct arm_spec *spec;
	struct python_spec ps;
	char path[PATH_MAX];            /* the module, absolute */
	char sha256[65];
	struct pyrt_fn *fn;
	const struct case_plan *plan;   /* the case the next slots are of */
	int cuda_device;                /* bind: torch's device number on cuda */
	struct pyrt_bound *bound;       /* the slot's binding, NULL between slots */
	struct site_ext_arm ext;
	struct site_variant variant;
	char step[PYTHON_FUNCTION_MAX + 8]; /* the CPU backend's step name */
};

/* The runtime every Python arm of the process shares: opened by the first
 * load, closed when the last arm is freed (the interpreter itself stays,
 * pyrt.h; its modules go, so a second run imports them anew). */
static struct pyrt *python_rt;
static int python_users;

/* The arrays a backend's buffers become, by the way it calls arms: numpy
 * over host buffers, torch over CUDA buffers and a stream. */
static const struct {
	unsigned cap;
	enum pyrt_device device;
} python_devices[] = {
	{ BACKEND_CAP_CUDA_STREAM, PYRT_CUDA },
	{ BACKEND_CAP_HOST_BUFFERS, PYRT_CPU },
};
#define PYTHON_CAPS (BACKEND_CAP_CUDA_STREAM | BACKEND_CAP_HOST_BUFFERS)

/* ---- the scenario's text ---------------------------------------------------- */

static const char *const python_keys[] = { "module", "function", NULL };

/* A Python identifier of ASCII letters, digits and '_', not starting with
 * a digit: what pyrt looks up in the module's namespace. */
static bool identifier_ok(const char *s)
{
	if (!s[0] || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (const char *p = s; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

static enum ab_rc python_parse(const struct arm_spec *spec, const struct scenario *s, struct python_spec *out,
			       struct ab_diag *d)
{
	const bool shortcut = arm_spec_is_shortcut(spec);
	const struct arm_spec_key *mod = arm_spec_find(spec, "module"), *fun = arm_spec_find(spec, "function");
	const char *module = shortcut ? spec->path : mod ? mod->value : NULL;
	const char *function = shortcut ? spec->name : fun ? fun->value : NULL;
	enum ab_rc rc;
	if (module && !arm_spec_resolve_path(s->path, module, out->module, sizeof out->module))
		return arm_spec_key_fail(d, s->path, spec, "module", "'%s' is too long a path", module);
	if (function && !identifier_ok(function))
		return arm_spec_key_fail(d, s->path, spec, "function",
					 "'%s' is not a Python function name (letters, digits and '_', not starting with a digit)",
					 function);
	if (function && strlen(function) >= sizeof out->function)
		return arm_spec_key_fail(d, s->path, spec, "function", "'%s' is %zu characters long, at most %zu allowed",
					 function, strlen(function), sizeof out->function - 1);
	if ((rc = arm_spec_require(d, s->path, spec, "module", "the Python file that defines the function")) ||
	    (rc = arm_spec_require(d, s->path, spec, "function", "the name of fn(t, d) in the module")))
		return rc;
	memcpy(out->function, function, strlen(function) + 1); /* fits: checked above */
	return AB_OK;
}

static enum ab_rc python_check(const struct arm_spec *spec, const struct scenario *s, struct ab_diag *d)
{
	struct python_spec *ps = malloc(sizeof *ps); /* a path of 4 KiB: not on the stack */
	if (!ps)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate a python arm");
	enum ab_rc rc = python_parse(spec, s, ps, d);
	free(ps);
	return rc;
}

/* ---- the case's tensors as pyrt gives them to fn ------------------------------ */

/* The shape a tensor of the case has in t: its extents in the case's plan
 * (site_tensor_shape, the mapping buffers, dumps and plugins use), so
 * [B,T,W] activations, [B,W] per-batch vectors, [W] or [D] weight and
 * bias, [B,T] or [B,T,H] statistics; a declared site's tensors as it
 * declares them. False for a rank pyrt cannot hand over. */
static bool tensor_shape(const struct case_plan_tensor *pt, struct pyrt_tensor *out)
{
	if (pt->rank < 0 || pt->rank > PYRT_MAX_RANK)
		return false;
	out->rank = pt->rank;
	memcpy(out->shape, pt->shape, (size_t)pt->rank * sizeof pt->shape[0]);
	return true;
}

/* Every site dtype has its pyrt twin (numpy: bf16 as its uint16 bits). */
static bool tensor_dtype(enum site_dtype dt, enum pyrt_dtype *out)
{
	static const struct {
		enum site_dtype site;
		enum pyrt_dtype py;
	} map[] = { { SITE_BF16, PYRT_BF16 }, { SITE_F16, PYRT_F16 }, { SITE_F32, PYRT_F32 },
		    { SITE_I32, PYRT_I32 },   { SITE_I64, PYRT_I64 }, { SITE_U8, PYRT_U8 } };
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (map[i].site == dt) {
			*out = map[i].py;
			return true;
		}
	return false;
}

/* t's entries for the case planned p over the buffers a (NULL: shapes
 * only, for the check); the index of the first tensor that cannot be
 * described, or -1. */
static int case_tensors(const struct case_plan *p, const struct site_args *a, struct pyrt_tensor *t)
{
	for (int i = 0; i < p->n_tensors; i++) {
		const struct case_plan_tensor *pt = &p->tensor[i];
		t[i] = (struct pyrt_tensor){ .name = pt->t->name, .data = a ? a->t[i] : NULL, .read_only = pt->input };
		if (!tensor_dtype(pt->t->dtype, &t[i].dtype) || !tensor_shape(pt, &t[i]))
			return i;
	}
	return -1;
}

/* Every tensor of the case's site can be handed to Python. */
static enum ab_rc python_check_case(void *arm, const struct scenario_case *c, struct ab_diag *d)
{
	const struct python_arm *pa = arm;
	struct pyrt_tensor t[SITE_MAX_TENSORS];
	struct case_plan plan;
	enum ab_rc rc = case_plan_build(c, &plan, d);
	int bad = rc ? -1 : case_tensors(&plan, NULL, t);
	if (rc || bad < 0)
		return rc;
	return arm_spec_fail(d, AB_ERR_INPUT, pa->scn, pa->spec, pa->spec->header,
			     "case '%s' (line %d): tensor '%s' of site '%s' has a dtype or shape python arms cannot be "
			     "given",
			     c->name, c->line, c->site->tensors[bad].name, c->site->name);
}

/* ---- binding and calls -------------------------------------------------------- */

/* d's axes (the site's axis names, the case's value of each) and dims
 * (the built-in sites' geometry; for a declared site only rows and
 * row_len mean something, site.h). */
static void case_desc(const struct case_plan *p, struct pyrt_int *axes, struct pyrt_int *dims, struct pyrt_case *out)
{
	const struct site_dims *dm = &p->args.dims;
	for (int i = 0; i < dm->n_axes; i++)
		axes[i] = (struct pyrt_int){ p->site->axes[i], dm->axis[i] };
	const struct pyrt_int named[] = { { "batch", dm->batch }, { "tokens", dm->tokens }, { "width", dm->width },
					  { "row_len", dm->row_len }, { "rows", dm->rows }, { "heads", dm->heads } };
	memcpy(dims, named, sizeof named);
	*out = (struct pyrt_case){ .name = p->c->name, .site = p->site->name, .n_axes = dm->n_axes, .axes = axes,
				   .n_dims = (int)(sizeof named / sizeof named[0]), .dims = dims, .eps = p->c->eps,
				   .affine = p->args.affine };
}

/* The slot's binding over the backend's buffers a: on cuda with its
 * stream made torch's current one. */
static int bind_slot(struct python_arm *pa, const struct site_args *a, void *stream, bool cuda, char *err,
		     size_t len)
{
	struct pyrt_tensor t[SITE_MAX_TENSORS];
	struct pyrt_int axes[SITE_MAX_RANK], dims[PYTHON_N_DIMS];
	struct pyrt_case kase;
	struct pyrt_target on = { .device = cuda ? PYRT_CUDA : PYRT_CPU, .cuda_device = pa->cuda_device,
				  .stream = stream };
	struct ab_diag d = { "" };
	if (!pa->plan || case_tensors(pa->plan, a, t) >= 0) {
		snprintf(err, len, "python arm '%s' bound outside a case it can take", pa->spec->name);
		return 1;
	}
	pyrt_unbind(pa->bound, &d); /* a slot that failed half-way left it: nothing to say of it now */
	pa->bound = NULL;
	case_desc(pa->plan, axes, dims, &kase);
	enum ab_rc rc = pyrt_bind(pa->fn, &kase, t, pa->plan->n_tensors, &on, &pa->bound, &d);
	if (!rc)
		rc = pyrt_activate(pa->bound, &d);
	if (rc)
		snprintf(err, len, "%s", d.msg);
	return rc != AB_OK;
}

static int call(struct python_arm *pa, char *err, size_t len)
{
	struct ab_diag d = { "" };
	if (pyrt_call(pa->bound, &d) == AB_OK)
		return 0;
	snprintf(err, len, "%s", d.msg);
	return 1;
}

/* Host buffers: bind and the warm-up call, before the slot's timed
 * samples. Over CUDA buffers the binding waits for the stream (ext_call). */
static int ext_prepare(void *ctx, const struct site_args *a, enum site_ext_on on, char *err, size_t len)
{
	struct python_arm *pa = ctx;
	struct ab_diag d = { "" };
	pyrt_unbind(pa->bound, &d);
	pa->bound = NULL;
	if (on == SITE_EXT_CUDA_STREAM)
		return 0;
	return bind_slot(pa, a, NULL, false, err, len) || call(pa, err, len);
}

/* Over CUDA buffers the slot's first call binds, then calls: the CUDA
 * backend makes it in slot_begin, untimed and waited for, so it is the
 * warm-up. Host buffers were bound at prepare, to the same buffers. */
static int ext_call(void *ctx, const struct site_args *a, enum site_ext_on on, void *stream, char *err, size_t len)
{
	struct python_arm *pa = ctx;
	if (on == SITE_EXT_CUDA_STREAM && !pa->bound && bind_slot(pa, a, stream, true, err, len))
		return 1;
	return call(pa, err, len);
}

/* What the slot's calls left: every tensor as bound, torch's stream; then
 * nothing of t kept. */
static int ext_finish(void *ctx, char *err, size_t len)
{
	struct python_arm *pa = ctx;
	struct ab_diag d = { "" };
	if (!pa->bound)
		return 0;
	enum ab_rc rc = pyrt_verify(pa->bound, &d);
	struct ab_diag du = { "" };
	enum ab_rc urc = pyrt_unbind(pa->bound, &du);
	pa->bound = NULL;
	if (rc || urc)
		snprintf(err, len, "%s", rc ? d.msg : du.msg);
	return rc || urc;
}

static const struct site_ext_arm *python_ext_template(void)
{
	static const struct site_ext_arm ext = { .on = SITE_EXT_ON_BIT(SITE_EXT_HOST) |
							       SITE_EXT_ON_BIT(SITE_EXT_CUDA_STREAM),
						 .prepare = ext_prepare, .call = ext_call, .finish = ext_finish };
	return &ext;
}

/* ---- loading ------------------------------------------------------------------ */

/* "SCENARIO:LINE: arm 'NAME': ..." at the line of key (a shortcut's a or
 * b line), with pyrt's message; rc as given. */
static enum ab_rc fail_at(const struct python_arm *pa, enum ab_rc rc, const char *key, struct ab_diag *d)
{
	char msg[AB_DIAG_MAX];
	snprintf(msg, sizeof msg, "%s", d->msg);
	return arm_spec_fail(d, rc, pa->scn, pa->spec, arm_spec_line(pa->spec, key), "%s", msg);
}

/* The module's bytes: its sha256, and that it is there to be imported. */
static enum ab_rc read_module(struct python_arm *pa, struct ab_diag *d)
{
	struct blob file;
	enum ab_rc rc = blob_read(pa->ps.module, PYTHON_FILE_MAX, &file, d);
	if (rc)
		return rc == AB_ERR_NOMEM ? rc : fail_at(pa, rc, "module", d);
	memcpy(pa->sha256, file.sha256, sizeof pa->sha256);
	blob_free(&file);
	if (!realpath(pa->ps.module, pa->path))
		return ab_fail(d, AB_ERR_INPUT, "%s:%d: arm '%s': cannot resolve '%s'", pa->scn,
			       arm_spec_line(pa->spec, "module"), pa->spec->name, pa->ps.module);
	return AB_OK;
}

/* The process's runtime, opened by the first arm: the interpreter from
 * $ABBENCH_PYTHON or python3 on PATH (pyrt.h). */
static enum ab_rc runtime_acquire(struct ab_diag *d)
{
	if (!python_rt) {
		struct pyrt_options opt = { 0 };
		enum ab_rc rc = pyrt_open(&opt, &python_rt, d);
		if (rc)
			return rc;
	}
	python_users++;
	return AB_OK;
}

static void runtime_release(void)
{
	if (python_users > 0 && --python_users == 0) {
		pyrt_close(python_rt);
		python_rt = NULL;
	}
}

/* Errors of the machine (numpy missing) are bad input too: the run cannot
 * be made as the scenario asks, and nothing has been written. */
static enum ab_rc as_input(enum ab_rc rc)
{
	return rc == AB_ERR_BACKEND ? AB_ERR_INPUT : rc;
}

static void python_free(void *arm);

static enum ab_rc python_load(const struct arm_spec *spec, const struct scenario *s, void **arm, struct ab_diag *d)
{
	struct python_arm *pa = calloc(1, sizeof *pa);
	enum ab_rc rc;
	*arm = NULL;
	if (!pa)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate a python arm");
	pa->scn = s->path;
	pa->spec = spec;
	if ((rc = python_parse(spec, s, &pa->ps, d)) || (rc = read_module(pa, d))) {
		python_free(pa);
		return rc;
	}
	if ((rc = runtime_acquire(d))) {
		rc = fail_at(pa, rc, "module", d);
		python_free(pa);
		return rc;
	}
	pa->ext = *python_ext_template(); /* the runtime is held from here: python_free releases it */
	pa->ext.ctx = pa;
	snprintf(pa->step, sizeof pa->step, "python %s", pa->ps.function);
	pa->ext.step = pa->step;
	pa->variant = (struct site_variant){ .name = spec->name, .summary = "python arm", .byte_equal_expected = true,
					     .ext = &pa->ext };
	*arm = pa;
	return AB_OK;
}

/* A binding left by a slot that failed half-way goes first; the runtime
 * closes with the last arm. */
static void python_free(void *arm)
{
	struct python_arm *pa = arm;
	if (!pa)
		return;
	if (pa->ext.ctx) {
		struct ab_diag d = { "" };
		pyrt_unbind(pa->bound, &d);
		runtime_release();
	}
	free(pa);
}

/* ---- the run ------------------------------------------------------------------ */

/* What the device's arrays need (numpy, which torch needs too; torch with
 * a CUDA device), then the module and its function, once. */
static enum ab_rc import_function(struct python_arm *pa, enum pyrt_device dev, struct ab_diag *d)
{
	struct pyrt_module *m;
	enum ab_rc rc = pyrt_need(python_rt, PYRT_CPU, d);
	if (!rc && dev != PYRT_CPU)
		rc = pyrt_need(python_rt, dev, d);
	if (rc)
		return fail_at(pa, as_input(rc), "module", d);
	if (pa->fn)
		return AB_OK;
	if ((rc = pyrt_import(python_rt, pa->path, &m, d)))
		return fail_at(pa, rc, "module", d);
	if ((rc = pyrt_function(m, pa->ps.function, &pa->fn, d)))
		return fail_at(pa, rc, "function", d);
	return AB_OK;
}

/* A python arm runs where the backend's buffers become arrays Python has
 * (python_devices) and what those arrays need imports; the module is
 * imported then. */
static enum ab_rc python_runs_on(void *arm, const struct scenario_case *c, const char *backend, struct ab_diag *d)
{
	struct python_arm *pa = arm;
	char on[64];
	(void)c;
	for (size_t i = 0; i < sizeof python_devices / sizeof python_devices[0]; i++)
		if (backend_has_caps(backend, python_devices[i].cap))
			return import_function(pa, python_devices[i].device, d);
	backend_names_with_caps(PYTHON_CAPS, true, on, sizeof on);
	return arm_spec_fail(d, AB_ERR_INPUT, pa->scn, pa->spec, pa->spec->header,
			     "a python arm runs on the %s backend%s, and this run uses the %s backend",
			     on[0] ? on : "cpu and cuda", strchr(on, ',') ? "s" : "", backend);
}

/* Over CUDA buffers, torch is told the device by number: the one whose
 * context the backend made current. */
static enum ab_rc python_bind(void *arm, const struct results_device *dev, const struct scenario *s, struct ab_diag *d)
{
	struct python_arm *pa = arm;
	(void)s;
	if (!backend_has_caps(dev->backend, BACKEND_CAP_CUDA_STREAM))
		return AB_OK;
	enum ab_rc rc = driver_current_device(&pa->cuda_device, d);
	return rc ? ab_wrap(d, rc, "python arm '%s'", pa->spec->name) : AB_OK;
}

static void python_begin_case(void *arm, const struct case_plan *p)
{
	((struct python_arm *)arm)->plan = p;
}

static const struct site_variant *python_variant(void *arm, const struct scenario_case *c)
{
	(void)c;
	return &((struct python_arm *)arm)->variant;
}

/* The module, its sha256, the function, the interpreter and the array
 * library's versions. */
static void python_source(const void *arm, struct results_arm_source *src)
{
	const struct python_arm *pa = arm;
	char rt[200];
	pyrt_describe(python_rt, rt, sizeof rt);
	snprintf(src->path, sizeof src->path, "%.511s", pa->path);
	snprintf(src->sha256, sizeof src->sha256, "%s", pa->sha256);
	snprintf(src->detail, sizeof src->detail, "function '%.40s'; %s", pa->ps.function, rt);
	snprintf(src->function, sizeof src->function, "%s", pa->ps.function);
	pyrt_versions(python_rt, src->versions, sizeof src->versions);
}

const struct arm_kind python_arm_kind = {
	.name = "python",
	.keys = python_keys,
	.shortcut = true,
	.check = python_check,
	.load = python_load,
	.check_case = python_check_case,
	.runs_on = python_runs_on,
	.bind = python_bind,
	.begin_case = python_begin_case,
	.variant = python_variant,
	.source = python_source,
	.free = python_free,
};
