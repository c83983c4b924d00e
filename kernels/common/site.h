/*
 * site.h - what a fusion site is, and the lookups in the registry.
 *
 * A site is one fusion opportunity of the model (LayerNorm + modulate, qk
 * LayerNorm, ...): a shape rule, a fixed list of tensors (inputs, outputs,
 * intermediates and per-row statistics), and variants. A variant ("eager",
 * "fused", "twopass", or a named tuning of the fused arm such as
 * "fused.r1h") has code for some backends, filed under each backend's name
 * (struct site_impl): for the CPU an ordered list of steps, each a
 * separately timed "kernel"; for CUDA a launch function that queues the
 * variant's kernels on a stream. A new backend files its code under its
 * own name and type; struct site_variant does not change.
 *
 * Each site lives in its own folder, kernels/<site>/, which defines its
 * site_desc; kernels/registry.c lists the sites, one line each. The
 * harness, store, report and gate need no change for a new site (README,
 * "Adding a site").
 *
 * Tensor layout: activations are contiguous [B, T, W] rows; the LayerNorm
 * normalises rows of length N = dims.row_len, so there are dims.rows rows.
 * For qk_layernorm W = H * head_dim and N = head_dim. Per-batch vectors
 * (scale, shift, gate) are [B, W] and broadcast over tokens. weight/bias are
 * [N]. Statistics (mean, rstd) are float32, one per row.
 */
#ifndef AB_SITE_H
#define AB_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SITE_MAX_RANK 4
#define SITE_MAX_TENSORS 16
#define SITE_MAX_STEPS 6
#define SITE_MAX_VARIANTS 10
#define SITE_MAX_IMPLS 4 /* backends a variant can have code for */

struct site_shape {
	int rank;
	int64_t dim[SITE_MAX_RANK];
};

/* Geometry derived from a validated shape. */
struct site_dims {
	int64_t batch;   /* B */
	int64_t tokens;  /* T */
	int64_t width;   /* W: elements per token */
	int64_t row_len; /* N: the LayerNorm's row (W, or head_dim) */
	int64_t rows;    /* B * T * W / N */
	int64_t heads;   /* H for qk_layernorm, else 1 */
};

enum site_dtype { SITE_BF16, SITE_F32 };

enum site_role {
	SITE_IN_ACT,   /* activation: drawn from the case's input distribution */
	SITE_IN_PARAM, /* parameter: drawn from the fixed parameter distribution */
	SITE_OUT,      /* output: hashed, compared across arms and with the reference */
	SITE_AUX,      /* statistics an arm may write (eager LayerNorm's mean/rstd) */
	SITE_SCRATCH,  /* intermediates the eager chain materialises */
};

enum site_extent {
	SITE_EXT_FULL,      /* B*T*W */
	SITE_EXT_BATCH_VEC, /* B*W, broadcast over tokens */
	SITE_EXT_ROW_VEC,   /* N: weight, bias */
	SITE_EXT_ROWS,      /* one per row: mean, rstd */
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
	enum site_extent extent;
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

/* An arm from outside abbench: a plugin library's function or a compiled
 * GPU binary (harness/arms/). The harness wraps it in a site_variant of its
 * own at plan time, and the backends call these functions instead of the
 * variant's impls. Each takes the arm's context, returns 0, or non-zero with one
 * line in err (the run then fails with it). */
struct site_ext_arm {
	void *ctx;
	const char *cpu_step; /* the one timed step's name on the CPU backend */
	/* Before a slot's samples, outside the timing: may allocate. NULL: none. */
	int (*prepare)(void *ctx, const struct site_args *a, bool cuda, char *err, size_t len);
	int (*cpu)(void *ctx, const struct site_args *a, char *err, size_t len);        /* NULL: none */
	int (*cuda)(void *ctx, const struct site_args *a, void *stream, char *err, size_t len); /* NULL: none */
	/* After a slot's samples, outside the timing (the backend's slot_end,
	 * the device waited for): checks what the slot's calls left behind (a
	 * Python arm's tensors) and releases what prepare took. NULL: none. */
	int (*finish)(void *ctx, char *err, size_t len);
};

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
	/* e.g. "BxTxW, W % 4 == 0": starts with the shape's axis letters, which
	 * name a swept dimension ("T" in "img_ln_modulate[T=1024]") */
	const char *shape_help;
	int n_tensors;
	struct site_tensor tensors[SITE_MAX_TENSORS];
	int n_variants;
	struct site_variant variants[SITE_MAX_VARIANTS];
	/* Validates the shape and fills dims; on failure writes a one-line reason
	 * into err and returns false. */
	bool (*geometry)(const struct site_shape *s, struct site_dims *dims, char *err, size_t errlen);
	/* float64 reference for every SITE_OUT tensor, in the order of the
	 * SITE_OUT tensors, each of site_tensor_elems elements: ref[o][e] is the
	 * exact value computed in double from the same bf16 inputs, tol[o][e] the
	 * absolute error a correct float32/bf16 chain may show there (bf16
	 * roundings plus float statistics error amplified by rstd), or NAN where
	 * float32 arithmetic leaves its range (|x| > 2^60 in the row, or the row's
	 * sum of squares past FLT_MAX) and no comparison is meaningful. A NaN
	 * ref means the arm must produce NaN there; +-Inf the same infinity. */
	void (*reference)(const struct site_args *inputs, double *const *ref, double *const *tol);
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

/* Elements of tensor i for these dims. */
int64_t site_tensor_elems(const struct site_tensor *t, const struct site_dims *d);

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

/* The letter of dimension dim of the site's shape ("T" for dim 1 of
 * "BxTxW"), from shape_help; "d<dim>" when shape_help names none. */
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
