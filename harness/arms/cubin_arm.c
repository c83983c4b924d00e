/*
 * cubin_arm.c - the arm kind of compiled GPU binaries (arm_kind.h): one
 * kernel of a cubin, PTX or fatbin (Triton's cache artefacts included),
 * launched with the driver API with the launch geometry and parameters
 * the scenario's [arm NAME] section gives (cubin_spec.h; type = cubin, no
 * shortcut).
 *
 * Life: load (read and check the files: the kernel exists, its parameter
 * count and sizes match the params list, Triton's metadata) -> check_case
 * for every case (the expressions give a valid launch, Triton's scratch
 * fits) -> runs_on (the cuda backend only) -> bind to the device
 * (architecture, module load, the driver's own parameter info) -> per
 * case begin_case -> the backend's prepare (scratch buffers, argument
 * values) and launches. Every error before the run names FILE:LINE.
 *
 * The argument list is the scenario's params, each 8-byte slot of argbuf
 * holding one value (a device pointer, an i32, an i64 or eps as f32), then
 * for a Triton kernel its trailing scratch pointers (NULL when the size is
 * 0, else a buffer of size x programs, a product checked for every case
 * before the run). The parameter sizes the file declares (cubin_file.c)
 * and, on the device, the driver's own (cuFuncGetParamInfo) must match
 * these slot by slot.
 */
#include "arms/arm_kind.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arms/blob.h"
#include "arms/cubin_file.h"
#include "arms/cubin_spec.h"
#include "arms/driver.h"
#include "arms/triton_meta.h"
#include "backend/backend.h"

#define CUBIN_FILE_LIMIT ((size_t)1 << 30)
#define CUBIN_MAX_ARGS (CUBIN_SPEC_MAX_PARAMS + 2)
#define CUBIN_MAX_SHARED (227 * 1024) /* the largest opt-in dynamic shared memory of sm_90 */

struct launch {
	unsigned grid[3], block[3], shared;
};

struct cubin_arm {
	const struct arm_spec *arm;     /* the scenario's text, for messages */
	struct cubin_spec spec;         /* what it says */
	const char *scn;                /* the scenario's path */
	struct site_variant variant;
	bool triton;
	struct triton_meta meta;
	char json_sha256[65];
	char binary[PATH_MAX];          /* the file loaded, absolute when it could be resolved */
	struct blob image;
	struct cubin_file_info info;
	const char *kernel;
	int n_args;                     /* params + scratch pointers */
	int arg_size[CUBIN_MAX_ARGS];   /* what abbench passes, bytes */
	void *module, *fn;
	struct launch launch;           /* of the current case */
	uint64_t scratch[2];
	size_t scratch_cap[2], scratch_need[2];
	unsigned char argbuf[CUBIN_MAX_ARGS * 8];
	void *argv[CUBIN_MAX_ARGS];
	struct site_ext_arm ext;
};

static int file_line(const struct cubin_arm *ca)
{
	return ca->triton ? ca->spec.lines.triton : ca->spec.lines.binary;
}

/* ---- files -------------------------------------------------------------------- */

/* "dir/NAME.json" -> "dir/NAME.cubin". */
static bool cubin_beside(const char *json, char *out, size_t cap)
{
	size_t n = strlen(json);
	if (n > 5 && strcmp(json + n - 5, ".json") == 0)
		n -= 5;
	int w = snprintf(out, cap, "%.*s.cubin", (int)n, json);
	return w > 0 && (size_t)w < cap;
}

static enum ab_rc load_triton(struct cubin_arm *ca, char *binary, size_t cap, struct ab_diag *d)
{
	const struct cubin_spec *sp = &ca->spec;
	struct blob json;
	char err[AB_DIAG_MAX / 2];
	enum ab_rc rc = blob_read(sp->triton, 1 << 24, &json, d);
	if (rc)
		return arm_spec_fail(d, rc, ca->scn, ca->arm, sp->lines.triton, "%s", d->msg);
	bool ok = triton_meta_parse((const char *)json.data, &ca->meta, err, sizeof err);
	memcpy(ca->json_sha256, json.sha256, sizeof ca->json_sha256);
	blob_free(&json);
	if (!ok)
		return arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm, sp->lines.triton, "'%s': %s", sp->triton, err);
	if (sp->kernel[0] && strcmp(sp->kernel, ca->meta.name) != 0)
		return arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm, sp->lines.kernel,
				     "kernel '%s', but the Triton metadata names '%s'", sp->kernel, ca->meta.name);
	ca->kernel = ca->meta.name;
	if (!cubin_beside(sp->triton, binary, cap))
		return arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm, sp->lines.triton, "'%s' is too long a path", sp->triton);
	return AB_OK;
}

/* What each slot of the argument list holds, in bytes. */
static void arg_sizes(struct cubin_arm *ca)
{
	const struct cubin_spec *sp = &ca->spec;
	for (int i = 0; i < sp->n_params; i++) {
		const struct cubin_spec_param *p = &sp->params[i];
		ca->arg_size[i] = p->kind == CUBIN_SPEC_PARAM_TENSOR || (p->kind == CUBIN_SPEC_PARAM_INT && p->i64) ? 8 : 4;
	}
	ca->n_args = sp->n_params;
	for (int i = 0; ca->triton && i < triton_meta_scratch_params(&ca->meta); i++)
		ca->arg_size[ca->n_args++] = 8;
}

static const char *slot_name(const struct cubin_arm *ca, int i)
{
	return i < ca->spec.n_params ? ca->spec.params[i].text : "Triton scratch pointer";
}

/* The kernel's parameter sizes (from the file or the driver) against ours. */
static enum ab_rc check_sizes(const struct cubin_arm *ca, int n, const int *size, const char *source, struct ab_diag *d)
{
	const struct cubin_spec *sp = &ca->spec;
	int scratch = ca->n_args - sp->n_params;
	if (n != ca->n_args && scratch)
		return arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm, sp->lines.params,
				     "kernel '%s' takes %d parameters (%s): params lists %d, and Triton's %d scratch "
				     "pointers make %d",
				     ca->kernel, n, source, sp->n_params, scratch, ca->n_args);
	if (n != ca->n_args)
		return arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm, sp->lines.params,
				     "kernel '%s' takes %d parameters (%s), params lists %d", ca->kernel, n, source,
				     sp->n_params);
	for (int i = 0; i < n; i++) {
		if (size[i] == ca->arg_size[i])
			continue;
		return arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm, sp->lines.params,
				     "parameter %d ('%s') of kernel '%s' is %d bytes (%s), abbench passes %d%s", i + 1,
				     slot_name(ca, i), ca->kernel, size[i], source, ca->arg_size[i],
				     size[i] == 8 && ca->arg_size[i] == 4 ? " (write NAME:i64 for a 64-bit integer)" : "");
	}
	return AB_OK;
}

static enum ab_rc load_binary(struct cubin_arm *ca, const char *binary, struct ab_diag *d)
{
	const struct cubin_spec *sp = &ca->spec;
	char err[AB_DIAG_MAX / 2];
	enum ab_rc rc = blob_read(binary, CUBIN_FILE_LIMIT, &ca->image, d);
	if (rc)
		return arm_spec_fail(d, rc, ca->scn, ca->arm, file_line(ca), "%s", d->msg);
	if (!realpath(binary, ca->binary))
		snprintf(ca->binary, sizeof ca->binary, "%s", binary);
	if (!cubin_file_inspect(ca->image.data, ca->image.size, ca->kernel, &ca->info, err, sizeof err))
		return arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm, sp->lines.kernel ? sp->lines.kernel : file_line(ca),
				     "'%s': %s", binary, err);
	if (ca->info.n_params < 0)
		return AB_OK; /* a fatbin: the driver tells at bind time */
	return check_sizes(ca, ca->info.n_params, ca->info.param_size, cubin_file_kind_str(ca->info.kind), d);
}

static int ext_prepare(void *ctx, const struct site_args *a, enum site_ext_on on, char *err, size_t len);
static int ext_launch(void *ctx, const struct site_args *a, enum site_ext_on on, void *stream, char *err, size_t len);
static void cubin_free(void *arm);

static enum ab_rc cubin_check(const struct arm_spec *spec, const struct scenario *s, struct ab_diag *d)
{
	struct cubin_spec *cs = malloc(sizeof *cs); /* 12 KiB of paths: not on the stack */
	if (!cs)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate a cubin arm");
	enum ab_rc rc = cubin_spec_read(spec, s, cs, d);
	free(cs);
	return rc;
}

static enum ab_rc cubin_load(const struct arm_spec *spec, const struct scenario *s, void **arm, struct ab_diag *d)
{
	char binary[ARM_SPEC_PATH_MAX];
	struct cubin_arm *ca = calloc(1, sizeof *ca);
	*arm = NULL;
	if (!ca)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate a cubin arm");
	ca->arm = spec;
	ca->scn = s->path;
	enum ab_rc rc = cubin_spec_read(spec, s, &ca->spec, d);
	ca->triton = ca->spec.triton[0] != '\0';
	ca->kernel = ca->spec.kernel;
	snprintf(binary, sizeof binary, "%s", ca->spec.binary);
	if (!rc && ca->triton)
		rc = load_triton(ca, binary, sizeof binary, d);
	if (!rc) {
		arg_sizes(ca);
		rc = load_binary(ca, binary, d);
	}
	if (rc) {
		cubin_free(ca);
		return rc;
	}
	for (int i = 0; i < CUBIN_MAX_ARGS; i++)
		ca->argv[i] = ca->argbuf + 8 * i;
	ca->ext = (struct site_ext_arm){ .ctx = ca, .step = ca->kernel, .on = SITE_EXT_ON_BIT(SITE_EXT_CUDA_STREAM),
					 .prepare = ext_prepare, .call = ext_launch };
	ca->variant = (struct site_variant){ .name = spec->name, .summary = "cubin arm", .byte_equal_expected = true,
					     .ext = &ca->ext };
	*arm = ca;
	return AB_OK;
}

static void cubin_free(void *arm)
{
	struct cubin_arm *ca = arm;
	if (!ca)
		return;
	for (int i = 0; i < 2; i++)
		driver_free(ca->scratch[i]);
	driver_module_unload(ca->module);
	blob_free(&ca->image);
	free(ca);
}

/* ---- launch geometry -------------------------------------------------------- */

/* One expression for case c into [lo, hi]. */
static enum ab_rc eval_in(const struct cubin_arm *ca, const struct scenario_case *c, const struct expr *e, int line,
			  const char *what, int64_t lo, int64_t hi, int64_t *out, struct ab_diag *d)
{
	char err[128];
	if (!expr_eval(e, &c->dims, out, err, sizeof err))
		return arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm, line, "%s for case '%s' (line %d): %s", what,
				     c->name, c->line, err);
	if (*out < lo || *out > hi)
		return arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm, line,
				     "%s is %lld for case '%s' (line %d): must be %lld to %lld", what, (long long)*out,
				     c->name, c->line, (long long)lo, (long long)hi);
	return AB_OK;
}

static enum ab_rc eval_dims(const struct cubin_arm *ca, const struct scenario_case *c, const struct expr *e, int n,
			    int line, const char *what, const int64_t *max, unsigned out[3], struct ab_diag *d)
{
	static const char axis[3] = { 'x', 'y', 'z' };
	for (int i = 0; i < 3; i++) {
		int64_t v = 1;
		char label[32];
		snprintf(label, sizeof label, "%s %c", what, axis[i]);
		enum ab_rc rc = i < n ? eval_in(ca, c, &e[i], line, label, 1, max[i], &v, d) : AB_OK;
		if (rc)
			return rc;
		out[i] = (unsigned)v;
	}
	return AB_OK;
}

static enum ab_rc eval_launch(const struct cubin_arm *ca, const struct scenario_case *c, struct launch *L,
			      struct ab_diag *d)
{
	static const int64_t grid_max[3] = { INT32_MAX, 65535, 65535 }, block_max[3] = { 1024, 1024, 64 };
	const struct cubin_spec *sp = &ca->spec;
	int64_t shared = 0;
	enum ab_rc rc = eval_dims(ca, c, sp->grid, sp->n_grid, sp->lines.grid, "grid", grid_max, L->grid, d);
	if (!rc && !ca->triton)
		rc = eval_dims(ca, c, sp->block, sp->n_block, sp->lines.block, "block", block_max, L->block, d);
	if (!rc && sp->have_shared)
		rc = eval_in(ca, c, &sp->shared, sp->lines.shared, "shared", 0, CUBIN_MAX_SHARED, &shared, d);
	if (rc)
		return rc;
	if (ca->triton) {
		L->block[0] = 32u * (unsigned)ca->meta.num_warps;
		L->block[1] = L->block[2] = 1;
		shared = ca->meta.shared;
	}
	L->shared = (unsigned)shared;
	if ((uint64_t)L->block[0] * L->block[1] * L->block[2] > 1024)
		return arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm, sp->lines.block,
				     "block is %u x %u x %u threads for case '%s' (line %d): at most 1024", L->block[0],
				     L->block[1], L->block[2], c->name, c->line);
	return AB_OK;
}

/* Triton's scratch buffer i (0 global, 1 profile) for a launch of L: its
 * size x the programs, plus its alignment's slack; 0 when the kernel takes
 * none or its size is 0. False when that does not fit 64 bits (a wrapped
 * product would pass a NULL or short buffer to the kernel). */
static bool scratch_bytes(const struct cubin_arm *ca, int i, const struct launch *L, uint64_t *out)
{
	const int64_t size = i ? ca->meta.profile_scratch_size : ca->meta.global_scratch_size;
	const int64_t align = i ? ca->meta.profile_scratch_align : ca->meta.global_scratch_align;
	uint64_t programs = (uint64_t)L->grid[0] * L->grid[1] * L->grid[2]; /* < 2^63: x < 2^31, y, z < 2^16 */
	*out = 0;
	if (!ca->triton || size <= 0)
		return true;
	return !__builtin_mul_overflow((uint64_t)size, programs, out) && !__builtin_add_overflow(*out, (uint64_t)align, out);
}

static enum ab_rc check_scratch(const struct cubin_arm *ca, const struct scenario_case *c, const struct launch *L,
				struct ab_diag *d)
{
	for (int i = 0; i < 2; i++) {
		uint64_t bytes;
		if (scratch_bytes(ca, i, L, &bytes))
			continue;
		return arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm, ca->spec.lines.triton,
				     "Triton's %s scratch of %lld bytes x %llu programs for case '%s' (line %d) does not "
				     "fit in 64 bits",
				     i ? "profile" : "global",
				     (long long)(i ? ca->meta.profile_scratch_size : ca->meta.global_scratch_size),
				     (unsigned long long)L->grid[0] * L->grid[1] * L->grid[2], c->name, c->line);
	}
	return AB_OK;
}

static enum ab_rc cubin_check_case(void *arm, const struct scenario_case *c, struct ab_diag *d)
{
	const struct cubin_arm *ca = arm;
	struct launch L;
	enum ab_rc rc = eval_launch(ca, c, &L, d);
	if (!rc)
		rc = check_scratch(ca, c, &L, d);
	for (int i = 0; !rc && i < ca->spec.n_params; i++) {
		const struct cubin_spec_param *p = &ca->spec.params[i];
		int64_t v;
		if (p->kind == CUBIN_SPEC_PARAM_INT)
			rc = eval_in(ca, c, &p->value, ca->spec.lines.params, p->text, p->i64 ? INT64_MIN : INT32_MIN,
				     p->i64 ? INT64_MAX : INT32_MAX, &v, d);
	}
	return rc;
}

/* ---- the device ------------------------------------------------------------- */

/* sm_XY code runs on a device of the same major and a minor at least Y;
 * PTX is compiled for the device when at most its version. */
static enum ab_rc check_arch(const struct cubin_arm *ca, int sm, const struct results_device *dev, struct ab_diag *d)
{
	int dev_sm = dev->cc_major * 10 + dev->cc_minor;
	bool ok = ca->info.kind == CUBIN_FILE_PTX ? sm <= dev_sm : sm / 10 == dev->cc_major && sm % 10 <= dev->cc_minor;
	if (sm == 0 || ok)
		return AB_OK;
	return arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm, file_line(ca),
			     "'%s' is %s for sm_%d; the device '%s' is sm_%d (rebuild it for sm_%d)", ca->binary,
			     cubin_file_kind_str(ca->info.kind), sm, dev->name, dev_sm, dev_sm);
}

static enum ab_rc check_driver_params(const struct cubin_arm *ca, struct ab_diag *d)
{
	size_t sizes[DRIVER_MAX_PARAMS];
	int size[DRIVER_MAX_PARAMS];
	int n = driver_param_sizes(ca->fn, sizes);
	if (n < 0)
		return AB_OK; /* a driver before 12.4: the file's own list was checked */
	for (int i = 0; i < n; i++)
		size[i] = (int)sizes[i];
	return check_sizes(ca, n, size, "cuFuncGetParamInfo", d);
}

/* Every case's block fits the compiled kernel; the shared memory limit is
 * raised to the largest launch's. */
static enum ab_rc check_launches(struct cubin_arm *ca, const struct scenario *s, struct ab_diag *d)
{
	int max_threads = 0;
	unsigned shared = 0;
	enum ab_rc rc = driver_max_threads(ca->fn, &max_threads, d);
	for (int i = 0; !rc && i < s->n_cases; i++) {
		struct launch L;
		if ((rc = eval_launch(ca, &s->cases[i], &L, d)))
			break;
		unsigned threads = L.block[0] * L.block[1] * L.block[2];
		if (threads > (unsigned)max_threads)
			rc = arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm,
					   ca->triton ? ca->spec.lines.triton : ca->spec.lines.block,
					   "case '%s' launches %u threads a block; kernel '%s' as compiled takes at most %d",
					   s->cases[i].name, threads, ca->kernel, max_threads);
		shared = L.shared > shared ? L.shared : shared;
	}
	if (!rc && shared > 48 * 1024)
		rc = driver_set_max_shared(ca->fn, (int)shared, d);
	return rc;
}

/* What a cubin arm needs of a backend: its module loaded into the
 * backend's context by the driver API, its kernel launched on the
 * backend's stream over device buffers. */
#define CUBIN_CAPS (BACKEND_CAP_CUDA_STREAM | BACKEND_CAP_DRIVER_MODULE)

/* A cubin arm runs where the backend has what it needs (CUBIN_CAPS). */
static enum ab_rc cubin_runs_on(void *arm, const struct scenario_case *c, const char *backend, struct ab_diag *d)
{
	const struct cubin_arm *ca = arm;
	char on[64];
	(void)c;
	if (backend_has_caps(backend, CUBIN_CAPS))
		return AB_OK;
	backend_names_with_caps(CUBIN_CAPS, false, on, sizeof on);
	return arm_spec_fail(d, AB_ERR_INPUT, ca->scn, ca->arm, ca->arm->header,
			     "a cubin arm runs on the %s backend only, and this run uses the %s backend",
			     on[0] ? on : "cuda", backend);
}

static enum ab_rc cubin_bind(void *arm, const struct results_device *dev, const struct scenario *s, struct ab_diag *d)
{
	struct cubin_arm *ca = arm;
	enum ab_rc rc = check_arch(ca, ca->info.sm, dev, d);
	if (!rc && ca->triton)
		rc = check_arch(ca, ca->meta.arch, dev, d);
	if (rc)
		return rc;
	if ((rc = driver_module_load(ca->image.data, &ca->module, d)))
		return arm_spec_fail(d, rc, ca->scn, ca->arm, file_line(ca), "'%s': %s", ca->binary, d->msg);
	if ((rc = driver_function(ca->module, ca->kernel, &ca->fn, d)))
		return arm_spec_fail(d, rc, ca->scn, ca->arm, ca->spec.lines.kernel ? ca->spec.lines.kernel : file_line(ca),
				     "%s", d->msg);
	if ((rc = check_driver_params(ca, d)))
		return rc;
	return check_launches(ca, s, d);
}

/* ---- the run ------------------------------------------------------------------ */

static void cubin_begin_case(void *arm, const struct case_plan *p)
{
	struct cubin_arm *ca = arm;
	struct ab_diag d;
	/* check_case accepted every case before the run: this cannot fail. */
	if (eval_launch(ca, p->c, &ca->launch, &d))
		memset(&ca->launch, 0, sizeof ca->launch);
	for (int i = 0; i < 2; i++) {
		uint64_t bytes;
		ca->scratch_need[i] = scratch_bytes(ca, i, &ca->launch, &bytes) ? bytes : 0; /* checked per case too */
	}
}

/* Scratch buffers as large as this case needs (outside the timing). */
static int ensure_scratch(struct cubin_arm *ca, char *err, size_t len)
{
	for (int i = 0; i < 2; i++) {
		size_t need = ca->scratch_need[i]; /* with the alignment's slack */
		if (need <= ca->scratch_cap[i])
			continue;
		struct ab_diag d;
		driver_free(ca->scratch[i]);
		ca->scratch[i] = 0;
		ca->scratch_cap[i] = 0;
		if (driver_alloc(need, &ca->scratch[i], &d)) {
			snprintf(err, len, "Triton scratch of %zu bytes: %s", need, d.msg);
			return 1;
		}
		ca->scratch_cap[i] = need;
	}
	return 0;
}

static uint64_t aligned(uint64_t p, int64_t align)
{
	return p ? (p + (uint64_t)align - 1) / (uint64_t)align * (uint64_t)align : 0;
}

/* The argument values for the backend's tensors and this case. */
static void fill_args(struct cubin_arm *ca, const struct site_args *a)
{
	const struct cubin_spec *sp = &ca->spec;
	for (int i = 0; i < sp->n_params; i++) {
		const struct cubin_spec_param *p = &sp->params[i];
		unsigned char *slot = ca->argbuf + 8 * i;
		uint64_t ptr = (uint64_t)(uintptr_t)(p->kind == CUBIN_SPEC_PARAM_TENSOR ? a->t[p->tensor] : NULL);
		int64_t v = 0;
		char err[64];
		if (p->kind == CUBIN_SPEC_PARAM_INT)
			expr_eval(&p->value, &a->dims, &v, err, sizeof err); /* checked per case before the run */
		int32_t v32 = (int32_t)v;
		if (p->kind == CUBIN_SPEC_PARAM_TENSOR)
			memcpy(slot, &ptr, 8);
		else if (p->kind == CUBIN_SPEC_PARAM_EPS)
			memcpy(slot, &a->eps, 4);
		else if (p->i64)
			memcpy(slot, &v, 8);
		else
			memcpy(slot, &v32, 4);
	}
	int k = sp->n_params;
	if (ca->triton && ca->meta.has_global_scratch)
		memcpy(ca->argbuf + 8 * k++, &(uint64_t){ ca->scratch_need[0] ? aligned(ca->scratch[0], ca->meta.global_scratch_align) : 0 }, 8);
	if (ca->triton && ca->meta.has_profile_scratch)
		memcpy(ca->argbuf + 8 * k, &(uint64_t){ ca->scratch_need[1] ? aligned(ca->scratch[1], ca->meta.profile_scratch_align) : 0 }, 8);
}

static int ext_prepare(void *ctx, const struct site_args *a, enum site_ext_on on, char *err, size_t len)
{
	struct cubin_arm *ca = ctx;
	if (on != SITE_EXT_CUDA_STREAM) {
		snprintf(err, len, "cubin arm '%s' runs on the cuda backend only", ca->spec.name);
		return 1;
	}
	if (ensure_scratch(ca, err, len))
		return 1;
	fill_args(ca, a);
	return 0;
}

static int ext_launch(void *ctx, const struct site_args *a, enum site_ext_on on, void *stream, char *err, size_t len)
{
	struct cubin_arm *ca = ctx;
	(void)a; /* the arguments were filled by prepare, for the same tensors */
	(void)on; /* CUDA_STREAM only: prepare refused any other */
	int e = driver_launch(ca->fn, ca->launch.grid, ca->launch.block, ca->launch.shared, stream, ca->argv);
	if (e) {
		char msg[160];
		snprintf(err, len, "cuLaunchKernel of '%s' (grid %u,%u,%u block %u,%u,%u shared %u) failed: %s",
			 ca->kernel, ca->launch.grid[0], ca->launch.grid[1], ca->launch.grid[2], ca->launch.block[0],
			 ca->launch.block[1], ca->launch.block[2], ca->launch.shared, driver_errstr(e, msg, sizeof msg));
	}
	return e;
}

static const struct site_variant *cubin_variant(void *arm, const struct scenario_case *c)
{
	(void)c;
	return &((struct cubin_arm *)arm)->variant;
}

static void cubin_source(const void *arm, struct results_arm_source *src)
{
	const struct cubin_arm *ca = arm;
	snprintf(src->path, sizeof src->path, "%.511s", ca->binary);
	snprintf(src->sha256, sizeof src->sha256, "%s", ca->image.sha256);
	if (ca->triton)
		snprintf(src->detail, sizeof src->detail, "%s kernel '%.100s'; triton %.20s, metadata sha256 %.16s",
			 cubin_file_kind_str(ca->info.kind), ca->kernel, ca->meta.version[0] ? ca->meta.version : "?",
			 ca->json_sha256);
	else
		snprintf(src->detail, sizeof src->detail, "%s kernel '%.180s'", cubin_file_kind_str(ca->info.kind),
			 ca->kernel);
	snprintf(src->function, sizeof src->function, "%.127s", ca->kernel);
}

const struct arm_kind cubin_arm_kind = {
	.name = "cubin",
	.keys = cubin_spec_keys,
	.check = cubin_check,
	.load = cubin_load,
	.check_case = cubin_check_case,
	.runs_on = cubin_runs_on,
	.bind = cubin_bind,
	.begin_case = cubin_begin_case,
	.variant = cubin_variant,
	.source = cubin_source,
	.free = cubin_free,
};
