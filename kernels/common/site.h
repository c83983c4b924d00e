/*
 * site.h - what a fusion site is, and the lookups in the registry.
 *
 * A site is one fusion opportunity of the model (LayerNorm + modulate, qk
 * LayerNorm, ...): named axes (the letters of a case's `shape = 1x4096x4096`),
 * a shape rule, a list of tensors (each with its dtype, its shape as a list
 * of those axes and its role: inputs, outputs, intermediates and per-row
 * statistics), and variants. A variant ("eager",
 * "fused", "twopass", or a named tuning of the fused arm such as
 * "fused.r1h") has code for some backends, filed under each backend's name
 * (struct site_impl): for the CPU an ordered list of steps, each a
 * separately timed "kernel"; for CUDA a launch function that queues the
 * variant's kernels on a stream. A new backend files its code under its
 * own name and type; struct site_variant does not change.
 *
 * Built-in sites live in their own folders, kernels/<site>/, which define
 * their site_desc; kernels/registry.c lists them, one line each. A site
 * may also be declared in a scenario (`[site NAME]`, docs/SITES.md): the
 * parser (harness/config/) builds a site_desc of the same form, with no
 * variants, no eager chain and no reference, and a shape rule of its own
 * (`rule`, the declared `require` expressions). Every tensor of either
 * kind is described the same way, so that buffers, bytes, dumps, plugin
 * and Python arms and cubin parameters see one model: a tensor's shape is
 * a list of the site's axes (struct site_tshape), its elements the
 * product of those axes' values in the case (site_dims.axis).
 *
 * The built-in sites' layout: activations are contiguous [B, T, W] rows
 * (qk_layernorm: [B, T, H, D], W = H * D); the LayerNorm normalises rows of
 * length N = dims.row_len, so there are dims.rows rows. Per-batch vectors
 * (scale, shift, gate) are [B, W] and broadcast over tokens. weight/bias are
 * [N] (W, or D). Statistics (mean, rstd) are float32, one per row: [B, T]
 * (qk: [B, T, H]). Their CUDA kernels read the legacy fields of site_dims
 * (batch ... heads); the axis values are what the harness sizes tensors by.
 */
#ifndef AB_SITE_H
#define AB_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SITE_MAX_RANK 8     /* axes of a site, dimensions of a shape (GLM's block has 6) */
#define SITE_MAX_TENSORS 32 /* the eager_io masks are 32 bits */
#define SITE_AXIS_NAME_MAX 16
/* Elements per tensor: far beyond any real case, and keeps every size
 * product (bytes included) away from int64 overflow. */
#define SITE_MAX_ELEMS ((int64_t)1 << 36)
#define SITE_MAX_STEPS 6
#define SITE_MAX_VARIANTS 10
#define SITE_MAX_IMPLS 4 /* backends a variant can have code for */

struct site_shape {
	int rank;
	int64_t dim[SITE_MAX_RANK];
};

/* Geometry derived from a validated shape (site_geometry). */
struct site_dims {
	/* The built-in sites' geometry, what their kernels read; 0 for a
	 * declared site, except rows and row_len (below). */
	int64_t batch;   /* B */
	int64_t tokens;  /* T */
	int64_t width;   /* W: elements per token */
	int64_t row_len; /* N: the LayerNorm's row (W, or head_dim); a declared site: its largest tensor's last axis */
	int64_t rows;    /* B * T * W / N; a declared site: its largest tensor's elements / row_len */
	int64_t heads;   /* H for qk_layernorm, else 1 */
	/* The value of each of the site's axes: the case's shape, in the order
	 * of site_desc.axes. Every tensor's size comes from these. */
	int n_axes;
	int64_t axis[SITE_MAX_RANK];
};

/* Element types. A new one is a row of site.c's dtype table (name, size,
 * whether it is an integer) and, for plugins, of include/abbench/plugin.h. */
enum site_dtype { SITE_BF16, SITE_F32, SITE_F16, SITE_I32, SITE_I64, SITE_U8, SITE_N_DTYPES };

/* Roles. Declared sites name them input, output, stat and scratch
 * (site_role_name); a built-in site's inputs are activations (the case's
 * distribution) or parameters (a fixed one of their own). */
enum site_role {
	SITE_IN_ACT,   /* input, activation: drawn from the case's input distribution */
	SITE_IN_PARAM, /* input, parameter: drawn from the fixed parameter distribution */
	SITE_OUT,      /* output: hashed, compared across arms and with the reference */
	SITE_AUX,      /* stat: statistics an arm may write (eager LayerNorm's mean/rstd) */
	SITE_SCRATCH,  /* scratch: intermediates the eager chain materialises */
};

/* A tensor's shape: rank axes of its site (indices into site_desc.axes),
 * outermost first; rank 0 is a scalar (one element). */
struct site_tshape {
	int rank;
	uint8_t axis[SITE_MAX_RANK];
};

/* How a parameter tensor is drawn (ignored for activations). */
enum site_param_dist {
	SITE_PARAM_NONE,
	SITE_PARAM_MODULATION, /* normal(0, 0.5): scale, shift, gate */
	SITE_PARAM_WEIGHT,     /* 1 + normal(0, 0.1) */
	SITE_PARAM_BIAS,       /* normal(0, 0.1) */
};

struct site_tensor {
	const char *name;
	enum site_role role;
	enum site_dtype dtype;
	struct site_tshape shape;
	enum site_param_dist param;
	bool affine_only; /* present only when the case asks for affine = true */
};

/* What a kernel or step sees: the geometry, the scalars and one pointer per
 * tensor, indexed like site_desc.tensors (host or device memory, per
 * backend; NULL for an affine-only tensor of a non-affine case). */
struct site_args {
	struct site_dims dims;
	float eps;
	bool affine;
	void *t[SITE_MAX_TENSORS];
};

/* ---- a variant's code, filed by backend ---------------------------------
 *
 * Each backend's code has a type of its own, named here with the name the
 * backend is filed under (its backend_ops.name, harness/backend/backend.h):
 *
 *   SITE_IMPL_CPU   "cpu"   const struct site_cpu_impl *
 *   SITE_IMPL_CUDA  "cuda"  const struct site_cuda_impl *
 *
 * A new backend adds its line here (name and type) and its entries to the
 * variants it implements (kernels/common/site_rules.h has the shorthands). */
#define SITE_IMPL_CPU "cpu"
#define SITE_IMPL_CUDA "cuda"

/* One separately timed CPU "kernel". name is what attribution shows, as a
 * CUPTI record would name a GPU kernel. */
struct site_cpu_step {
	const char *name;
	void (*fn)(const struct site_args *a);
};

struct site_cpu_impl {
	int n_steps;
	struct site_cpu_step steps[SITE_MAX_STEPS];
};

/* Queues the variant's kernels on the CUDA stream (a cudaStream_t); returns
 * a cudaError_t (0 on success), cudaErrorInvalidValue (1) without
 * launching anything for a geometry or pointer its kernels cannot take.
 * Each site's header (kernels/<site>/<site>.h) declares its launchers. */
typedef int (*site_cuda_launch_fn)(const struct site_args *a, void *stream);

struct site_cuda_impl {
	site_cuda_launch_fn launch;
};

/* One backend's code for a variant: backend is the name it is filed under
 * (SITE_IMPL_*), impl points at code of that backend's type. An entry
 * whose backend is NULL is empty (a CUDA entry in a build without nvcc). */
struct site_impl {
	const char *backend;
	const void *impl;
};

/* How a backend calls an arm from outside abbench, the key of
 * site_ext_arm's calls: over host memory, the call computing
 * synchronously (stream NULL: the CPU backend), or over CUDA device
 * memory, the call queueing its work on the stream it is handed and
 * returning (the CUDA backend). A backend calls every arm one way, and
 * says which among its capabilities (harness/backend/backend.h:
 * BACKEND_CAP_HOST_BUFFERS, BACKEND_CAP_CUDA_STREAM); a new backend that
 * calls one of these ways needs no change in any kind of arm. */
enum site_ext_on {
	SITE_EXT_HOST,
	SITE_EXT_CUDA_STREAM,
};
#define SITE_EXT_ON_BIT(on) (1u << (on))

/* An arm from outside abbench: a plugin library's function, a kernel of a
 * compiled GPU binary, a Python function (harness/arms/). The harness
 * wraps it in a site_variant of its own at plan time, and the backends
 * call these functions instead of the variant's impls, each with the way
 * it calls (`on`). Each takes the arm's context, returns 0, or non-zero
 * with one line in err (the run then fails with it). */
struct site_ext_arm {
	void *ctx;
	const char *step; /* the name of its one timed step on a host backend (the CPU's attribution) */
	unsigned on;      /* SITE_EXT_ON_BIT of each way it can be called */
	/* Before a slot's samples, outside the timing: may allocate. NULL: none. */
	int (*prepare)(void *ctx, const struct site_args *a, enum site_ext_on on, char *err, size_t len);
	/* One call of the arm; stream is the backend's (NULL on the host). */
	int (*call)(void *ctx, const struct site_args *a, enum site_ext_on on, void *stream, char *err, size_t len);
	/* After a slot's samples, outside the timing (the backend's slot_end,
	 * the device waited for): checks what the slot's calls left behind (a
	 * Python arm's tensors) and releases what prepare took. NULL: none. */
	int (*finish)(void *ctx, char *err, size_t len);
};

/* Whether ext can be called the way on. */
static inline bool site_ext_callable(const struct site_ext_arm *ext, enum site_ext_on on)
{
	return (ext->on & SITE_EXT_ON_BIT(on)) != 0 && ext->call != NULL;
}

/* A variant. Named tunings of the fused arm are called "fused.<tuning>"
 * and exist on CUDA only; "fused" is the measured winner (docs/KERNELS.md).
 * A row of a site's table reads (site_rules.h has SITE_CPU and SITE_CUDA)
 *
 *   { "eager", "summary", true, { SITE_CPU(x_cpu_eager), SITE_CUDA(x_cuda_eager) } },
 *   { "fused.r1h", "summary", true, { SITE_CUDA(x_cuda_fused_r1h) } },
 *
 * and a backend finds its code with site_variant_impl. */
struct site_variant {
	const char *name;
	const char *summary;
	bool byte_equal_expected; /* false only for deliberately different variants */
	struct site_impl impls[SITE_MAX_IMPLS]; /* per backend, in any order; empty entries skipped */
	const struct site_ext_arm *ext;  /* an arm from outside abbench; NULL for built-in variants */
	/* It computes the site's SITE_AUX tensors (the eager LayerNorm's mean
	 * and rstd): only then does --dump write them for its slots. Fused
	 * arms compute the statistics in registers and never store them; an
	 * arm from outside declares none. A row sets it by name after its
	 * positional fields: { "eager", ..., { impls }, .writes_aux = true }. */
	bool writes_aux;
};

/* One launch of the eager chain and its global-memory traffic: bit i of
 * reads (writes) is set when the launch reads (writes) all of tensors[i]
 * (SITE_IO(i)). A tensor absent from the case (affine-only) moves nothing.
 * Per-batch vectors broadcast over tokens count once: they stay in L2. */
struct site_launch_io {
	uint32_t reads, writes;
};
#define SITE_IO(i) (1u << (i))

struct site_desc {
	const char *name;
	const char *summary;
	/* e.g. "BxTxW, W % 4 == 0": the shape's axes, then its rule, for messages */
	const char *shape_help;
	/* The axes, in the order of a case's shape: their names are a swept
	 * dimension's ("T" in "img_ln_modulate[T=1024]") and the shape symbols
	 * of expressions (config/expr.h). */
	int n_axes;
	const char *axes[SITE_MAX_RANK];
	/* Where a declared site was declared ("scenarios/sites/x.ini:12");
	 * NULL for a built-in one. */
	const char *declared_at;
	int n_tensors;
	struct site_tensor tensors[SITE_MAX_TENSORS];
	int n_variants;
	struct site_variant variants[SITE_MAX_VARIANTS];
	/* A built-in site's rule: validates the shape and fills dims (the axis
	 * values too); on failure writes a one-line reason into err and returns
	 * false. NULL for a declared site, which has `rule` instead. Callers go
	 * through site_geometry, which serves both. */
	bool (*geometry)(const struct site_shape *s, struct site_dims *dims, char *err, size_t errlen);
	/* A declared site's rule once the shape has the site's rank (config/:
	 * its `require` expressions), with rule_ctx; NULL: none. */
	bool (*rule)(const void *rule_ctx, const struct site_desc *s, const struct site_dims *dims, char *err,
		     size_t errlen);
	const void *rule_ctx;
	/* float64 reference for every SITE_OUT tensor, in the order of the
	 * SITE_OUT tensors, each of site_tensor_elems elements: ref[o][e] is the
	 * exact value computed in double from the same bf16 inputs, tol[o][e] the
	 * absolute error a correct float32/bf16 chain may show there (bf16
	 * roundings plus float statistics error amplified by rstd), or NAN where
	 * float32 arithmetic leaves its range (|x| > 2^60 in the row, or the row's
	 * sum of squares past FLT_MAX) and no comparison is meaningful. A NaN
	 * ref means the arm must produce NaN there; +-Inf the same infinity.
	 * NULL: the site has no reference (a declared site): its outputs are
	 * reported as having none, never as passing one.
	 * It fills the elements of rows [row_lo, row_hi) of dims.rows (row r's
	 * row_len elements at r * row_len of each output) and reads nothing it
	 * writes, so that rows split over threads give the serial bytes
	 * (harness/run/refcompute.h). */
	void (*reference)(const struct site_args *inputs, int64_t row_lo, int64_t row_hi, double *const *ref,
			  double *const *tol);
	/* Bytes (site_arm_bytes): what the eager chain really moves, launch by
	 * launch, PyTorch's order. What an arm must move at least is not
	 * declared: it is every input read once and every output written once,
	 * from the tensor table's roles. */
	int n_eager_launches;
	struct site_launch_io eager_io[SITE_MAX_STEPS];
};

#ifdef __cplusplus
extern "C" {
#endif

/* The sites (kernels/registry.c), in listing order; ends with NULL. */
extern const struct site_desc *const site_registry[];

const struct site_desc *site_find(const char *name);
const struct site_variant *site_find_variant(const struct site_desc *s, const char *variant);
/* The code v has for the backend filed under that name (of the type the
 * name stands for, SITE_IMPL_*), NULL when it has none. */
const void *site_variant_impl(const struct site_variant *v, const char *backend);
int site_tensor_index(const struct site_desc *s, const char *tensor);

/* The rule of s on shape: the rank is the site's, every dimension and
 * every tensor's element count within bounds, then the site's own rule;
 * dims filled (the axis values always). False with a one-line reason. */
bool site_geometry(const struct site_desc *s, const struct site_shape *shape, struct site_dims *dims, char *err,
		   size_t len);

/* Elements of tensor t for these dims: the product of its axes' values. */
int64_t site_tensor_elems(const struct site_tensor *t, const struct site_dims *d);
/* Its shape in elements, outermost first, into shape[SITE_MAX_RANK]; the
 * rank. The one mapping from a tensor's axes to numbers: buffers, dumps,
 * plugin calls and Python arms all use it. */
int site_tensor_shape(const struct site_tensor *t, const struct site_dims *d, int64_t *shape);
/* Its shape in axis names, "B,T,W" ("" for a scalar). */
void site_tensor_axes(const struct site_desc *s, const struct site_tensor *t, char *buf, size_t len);
/* The site's axes as a shape reads, "BxTxW". */
void site_format_axes(const struct site_desc *s, char *buf, size_t len);

/* ---- dtypes and roles -------------------------------------------------- */

/* Bytes of one element (0 for a dtype out of range). */
size_t site_dtype_size(enum site_dtype dt);
/* "bf16", "f16", "f32", "i32", "i64", "u8". */
const char *site_dtype_name(enum site_dtype dt);
bool site_dtype_find(const char *name, enum site_dtype *out);
bool site_dtype_is_int(enum site_dtype dt);
/* "bf16, f16, f32, i32, i64, u8", for messages. */
const char *site_dtype_list(void);
/* "input" (SITE_IN_ACT and SITE_IN_PARAM), "output", "stat", "scratch". */
const char *site_role_name(enum site_role r);
/* input, output, stat, scratch (input: SITE_IN_ACT). */
bool site_role_find(const char *name, enum site_role *out);
const char *site_role_list(void);
static inline bool site_role_is_input(enum site_role r)
{
	return r == SITE_IN_ACT || r == SITE_IN_PARAM;
}

/* ---- shape symbols --------------------------------------------------------
 *
 * The names an expression may use for a case of s (config/expr.h): the
 * site's axes, then, for a built-in site, the legacy geometry names its
 * axes do not already have among B (batch), T (tokens), W (width), N (the
 * LayerNorm's row), M (rows) and H (heads). ln_modulate: B T W N M H;
 * qk_layernorm: B T H D W N M; a declared site: its axes only. */
int site_symbol_count(const struct site_desc *s);
const char *site_symbol_name(const struct site_desc *s, int i);
/* Its index, -1 when s has no symbol of that name. */
int site_symbol_find(const struct site_desc *s, const char *name);
int64_t site_symbol_value(const struct site_desc *s, int i, const struct site_dims *d);
/* "B, T, W, N, M, H", for messages. */
void site_symbol_list(const struct site_desc *s, char *buf, size_t len);

/* Bytes of tensor t for these dims (elements x element size). */
int64_t site_tensor_bytes(const struct site_tensor *t, const struct site_dims *d);
/* The bytes an arm must move: every present input (SITE_IN_*) read once
 * and every output (SITE_OUT) written once. The floor of any fused arm. */
int64_t site_min_bytes(const struct site_desc *s, const struct site_dims *d, bool affine);
/* The eager chain's real traffic: the sum over eager_io's launches of the
 * tensors each reads and writes; 0 when the site declares none. */
int64_t site_eager_bytes(const struct site_desc *s, const struct site_dims *d, bool affine);
/* The traffic credited to a variant: the eager chain's for "eager", the
 * minimum for every other (a fused arm is held to the floor, nvbench's
 * convention for global-memory throughput). */
int64_t site_variant_bytes(const struct site_desc *s, const char *variant, const struct site_dims *d, bool affine);
/* The tensors a built-in variant writes, as SITE_IO bits: its outputs,
 * for "eager" also what its chain writes (statistics, intermediates), and
 * the SITE_AUX statistics of a variant that computes them (writes_aux:
 * twopass too; never a fused arm). What a dump keeps of its slots. */
uint32_t site_variant_writes(const struct site_desc *s, const char *variant);

/* The name of axis dim of the site ("T" for dim 1 of ln_modulate's B T W);
 * "d<dim>" when the site has no such axis. */
void site_axis_name(const struct site_desc *s, int dim, char *buf, size_t len);

/* Parses "1x4096x4096" (1 to SITE_MAX_RANK positive dims). */
bool site_parse_shape(const char *text, struct site_shape *out);
/* Writes "1x4096x4096". */
void site_format_shape(const struct site_shape *s, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

/* Whether the tensor exists for a case (affine-only tensors need affine). */
static inline bool site_tensor_present(const struct site_tensor *t, bool affine)
{
	return !t->affine_only || affine;
}

#endif
