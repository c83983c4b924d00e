/*
 * abbench/plugin.h - the plugin ABI: arms of abbench built outside it.
 *
 * A plugin is a shared library that exports one function,
 *
 *   const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi);
 *
 * returning a table of arms (static storage, valid until the library is
 * unloaded). Each arm names the abbench site it implements ("ln_modulate",
 * "residual_gate_add", ... as `abbench sites` lists them, or a site the
 * scenario declares, `[site NAME]`, docs/SITES.md) and its own name,
 * which scenarios select:
 *
 *   [arms]
 *   b = plugin:../build/examples/plugin/librga_plugin.so:rga_exact
 *
 * and has a CUDA function, a CPU function, or both. The harness calls them
 * with one struct abbench_call: the case's shape (one value per axis of
 * the site, named: abbench_axis(call, "T")), eps, affine flag, the CUDA
 * stream, and the site's tensors BY NAME (abbench_tensor(call, "x")), each
 * with its dtype and shape. The order of call->tensors is not part of the
 * ABI: never index it. An arm may list the tensors it uses (arm.tensors):
 * abbench then refuses, before the run, a site that lacks one.
 *
 * bf16 and f16 conversions (abbench_bf16_to_f32 ...) round to nearest
 * even as the GPU's cvt.rn does; every NaN becomes the canonical 0x7FFF.
 *
 * Contract of the functions:
 *   - cuda: queue the arm's kernels on call->stream (a cudaStream_t) and
 *     return without synchronising; tensor data are device pointers. The
 *     harness times the span with events, tags the launches for CUPTI and
 *     checks for CUDA errors itself after the sample.
 *   - cpu: compute synchronously; tensor data are host pointers. The whole
 *     call is one timed step of the CPU backend.
 *   - check (optional): called once per case before anything is measured,
 *     with every tensor's data NULL; return ABBENCH_ERR_UNSUPPORTED (and a
 *     reason in call->err) for a case the arm cannot run: the run is then
 *     refused as bad input (exit 2) before it starts.
 *   - Every function returns ABBENCH_OK (0), or another status with one
 *     line of text in call->err (call->err_len bytes, NUL included): the
 *     run is marked failed with that message (exit 3).
 *   - Write only the site's outputs (and, if you like, its statistics and
 *     scratch tensors): abbench surrounds every buffer with guard bytes and
 *     names the arm that writes outside them. Inputs are read-only.
 *
 * Versioning: ABBENCH_PLUGIN_ABI_VERSION changes whenever a struct below
 * changes in any way; abbench refuses a table built against another
 * version (and passes its own to the entry, so a plugin may refuse too by
 * returning NULL). Everything here is plain C99 data and functions: no
 * symbol of abbench is needed to build or load a plugin.
 */
#ifndef ABBENCH_PLUGIN_H
#define ABBENCH_PLUGIN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ABBENCH_PLUGIN_ABI_VERSION 2u
/* Axes of a site, dimensions of a shape (abbench's SITE_MAX_RANK). */
#define ABBENCH_MAX_RANK 8
/* The name of the one symbol a plugin exports. */
#define ABBENCH_PLUGIN_ENTRY_NAME "abbench_plugin_entry"

#if defined(__GNUC__)
#define ABBENCH_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define ABBENCH_PLUGIN_EXPORT
#endif

/* Status of a plugin function. */
enum abbench_status {
	ABBENCH_OK = 0,
	ABBENCH_ERR = 1,             /* anything else that went wrong */
	ABBENCH_ERR_UNSUPPORTED = 2, /* this shape / eps / affine is not handled */
	ABBENCH_ERR_CUDA = 3,        /* a CUDA call failed (its message in err) */
};

enum abbench_dtype {
	ABBENCH_BF16 = 0, /* uint16_t bits: the top half of an IEEE float */
	ABBENCH_F32 = 1,
	ABBENCH_F16 = 2,  /* uint16_t bits: IEEE binary16 */
	ABBENCH_I32 = 3,
	ABBENCH_I64 = 4,
	ABBENCH_U8 = 5,
};

enum abbench_role {
	ABBENCH_ROLE_INPUT = 0,   /* activation or parameter: read only */
	ABBENCH_ROLE_OUTPUT = 1,  /* compared byte for byte with arm a */
	ABBENCH_ROLE_STAT = 2,    /* per-row statistics an arm may write (mean, rstd) */
	ABBENCH_ROLE_SCRATCH = 3, /* intermediates the eager chain materialises */
};

/* One tensor of the site. data is NULL for a tensor the case does not have
 * (weight and bias without affine) and, in check, for every tensor. It is
 * contiguous, row-major: shape[rank - 1] varies fastest. */
struct abbench_tensor {
	const char *name;   /* the site's name for it: "x", "scale", "out", "q_out" ... */
	void *data;         /* device pointer (cuda), host pointer (cpu) */
	int32_t dtype;      /* enum abbench_dtype */
	int32_t role;       /* enum abbench_role */
	int64_t elems;      /* number of elements: the product of shape */
	int32_t rank;       /* its shape: rank extents, outermost first (0: a scalar) */
	int64_t shape[ABBENCH_MAX_RANK];
	const char *axes;   /* the same in the site's axis names: "B,T,W" ("" for a scalar) */
};

/* A built-in site's geometry (abbench sites): activations are contiguous
 * [batch, tokens, width]; a LayerNorm normalises rows of row_len elements,
 * of which there are rows = batch*tokens*width / row_len; heads = width /
 * row_len for qk_layernorm, else 1. A declared site has only its axes
 * (abbench_call.shape): batch, tokens, width and heads are 0 for it. */
struct abbench_dims {
	int64_t batch, tokens, width, row_len, rows, heads;
};

struct abbench_call {
	uint32_t abi_version;     /* the harness's ABBENCH_PLUGIN_ABI_VERSION */
	const char *site;         /* "ln_modulate" ... */
	const char *case_name;    /* the scenario's case */
	int32_t rank;             /* the case's shape as written: one value per axis of the site */
	int64_t shape[ABBENCH_MAX_RANK];
	const char *axes[ABBENCH_MAX_RANK]; /* the site's axis names ("B", "T", "W"), rank of them */
	struct abbench_dims dims;
	float eps;
	int32_t affine;           /* 1 when weight and bias are present */
	void *stream;             /* cudaStream_t for cuda, NULL for cpu and check */
	int32_t n_tensors;
	const struct abbench_tensor *tensors;
	char *err;                /* a failing function writes one line here */
	size_t err_len;
};

typedef int (*abbench_arm_fn)(const struct abbench_call *call);

struct abbench_arm {
	const char *name;         /* selects the arm; letters, digits, '_', '-', '.' */
	const char *site;         /* the site it implements */
	const char *summary;      /* one line for reports; may be NULL */
	abbench_arm_fn check;     /* may be NULL: every case is accepted */
	abbench_arm_fn cuda;      /* NULL: the arm cannot run on the cuda backend */
	abbench_arm_fn cpu;       /* NULL: the arm cannot run on the cpu backend */
	/* The site's tensors the arm reads or writes, NULL-terminated; NULL:
	 * not said. A name the site lacks refuses the arm before the run. */
	const char *const *tensors;
};

struct abbench_plugin {
	uint32_t abi_version;     /* ABBENCH_PLUGIN_ABI_VERSION the plugin was built with */
	const char *name;         /* the plugin's name, for messages */
	int32_t n_arms;
	const struct abbench_arm *arms;
};

typedef const struct abbench_plugin *(*abbench_plugin_entry_fn)(uint32_t harness_abi_version);

/* The site's tensor called name; NULL when the site has none. */
static inline const struct abbench_tensor *abbench_find(const struct abbench_call *call, const char *name)
{
	for (int32_t i = 0; i < call->n_tensors; i++)
		if (strcmp(call->tensors[i].name, name) == 0)
			return &call->tensors[i];
	return NULL;
}

/* The data pointer of the site's tensor called name; NULL when the site
 * has no such tensor or the case does not have it (and always in check). */
static inline void *abbench_tensor(const struct abbench_call *call, const char *name)
{
	const struct abbench_tensor *t = abbench_find(call, name);
	return t ? t->data : NULL;
}

/* The value of the site's axis called name in this case ("T"); -1 when
 * the site has no such axis. */
static inline int64_t abbench_axis(const struct abbench_call *call, const char *name)
{
	for (int32_t i = 0; i < call->rank && i < ABBENCH_MAX_RANK; i++)
		if (call->axes[i] && strcmp(call->axes[i], name) == 0)
			return call->shape[i];
	return -1;
}

/* ---- bf16 and f16 ----------------------------------------------------------
 *
 * Round to nearest, ties to even, from the float's bits, as the GPU's
 * cvt.rn.bf16.f32 and cvt.rn.f16.f32 do (and abbench's own arms): every
 * NaN becomes the canonical 0x7FFF (a NaN stays a NaN; sign and payload
 * are not kept), values past the largest finite become +-Inf, f16's
 * subnormals are kept. Widening to float is exact. */

static inline float abbench_bits_f32(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

static inline float abbench_bf16_to_f32(uint16_t h)
{
	return abbench_bits_f32((uint32_t)h << 16);
}

static inline uint16_t abbench_f32_to_bf16(float f)
{
	uint32_t bits;
	memcpy(&bits, &f, sizeof bits);
	if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
		return 0x7FFF;
	return (uint16_t)((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

static inline float abbench_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
	if (e == 0x1F) /* Inf, NaN */
		return abbench_bits_f32(sign | 0x7F800000u | (m << 13));
	if (e == 0) { /* zero, subnormal: normalised for float */
		if (m == 0)
			return abbench_bits_f32(sign);
		e = 113;
		while (!(m & 0x400u))
			m <<= 1, e--;
		return abbench_bits_f32(sign | (e << 23) | ((m & 0x3FFu) << 13));
	}
	return abbench_bits_f32(sign | ((e + 112) << 23) | (m << 13));
}

static inline uint16_t abbench_f32_to_f16(float f)
{
	uint32_t bits;
	memcpy(&bits, &f, sizeof bits);
	uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
	uint32_t a = bits & 0x7FFFFFFFu;
	if (a > 0x7F800000u)
		return 0x7FFF;
	if (a >= 0x477FF000u) /* 65520 and up: past 65504 by half an ulp, to Inf */
		return (uint16_t)(sign | 0x7C00u);
	if (a >= 0x38800000u) { /* 2^-14 and up: normal, rebiased by 127 - 15 */
		uint32_t r = a - 0x38000000u;
		return (uint16_t)(sign | ((r + 0xFFFu + ((r >> 13) & 1u)) >> 13));
	}
	if (a <= 0x33000000u) /* at most 2^-25, half the smallest subnormal: to zero */
		return sign;
	/* subnormal: the significand shifted so that one unit is 2^-24 */
	uint32_t e = a >> 23, mant = (a & 0x7FFFFFu) | 0x800000u, shift = 126 - e;
	uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
	if (rem > half || (rem == half && (q & 1u)))
		q++;
	return (uint16_t)(sign | q);
}

/* Writes one line into call->err and returns status, so that a function
 * can `return abbench_fail(call, ABBENCH_ERR, "no '%s'", "x");`. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline int abbench_fail(const struct abbench_call *call, int status, const char *fmt, ...)
{
	va_list ap;
	if (call->err && call->err_len) {
		va_start(ap, fmt);
		vsnprintf(call->err, call->err_len, fmt, ap);
		va_end(ap);
	}
	return status;
}

#ifdef __cplusplus
}
#endif

#endif
