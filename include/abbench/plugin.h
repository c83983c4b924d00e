/*
 * abbench/plugin.h - the plugin ABI: arms of abbench built outside it.
 *
 * A plugin is a shared library that exports one function,
 *
 *   const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi);
 *
 * returning a table of arms (static storage, valid until the library is
 * unloaded). Each arm names the abbench site it implements ("ln_modulate",
 * "residual_gate_add", ... as `abbench sites` lists them) and its own name,
 * which scenarios select:
 *
 *   [arms]
 *   b = plugin:../build/examples/plugin/librga_plugin.so:rga_exact
 *
 * and has a CUDA function, a CPU function, or both. The harness calls them
 * with one struct abbench_call: the case's shape, eps, affine flag, the
 * CUDA stream, and the site's tensors BY NAME (abbench_tensor(call, "x")).
 * The order of call->tensors is not part of the ABI: never index it.
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

#define ABBENCH_PLUGIN_ABI_VERSION 1u
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

enum abbench_dtype { ABBENCH_BF16 = 0, ABBENCH_F32 = 1 };

enum abbench_role {
	ABBENCH_ROLE_INPUT = 0,   /* activation or parameter: read only */
	ABBENCH_ROLE_OUTPUT = 1,  /* compared byte for byte with arm a */
	ABBENCH_ROLE_STAT = 2,    /* per-row statistics an arm may write (mean, rstd) */
	ABBENCH_ROLE_SCRATCH = 3, /* intermediates the eager chain materialises */
};

/* One tensor of the site. data is NULL for a tensor the case does not have
 * (weight and bias without affine) and, in check, for every tensor. */
struct abbench_tensor {
	const char *name;   /* the site's name for it: "x", "scale", "out", "q_out" ... */
	void *data;         /* device pointer (cuda), host pointer (cpu) */
	int32_t dtype;      /* enum abbench_dtype */
	int32_t role;       /* enum abbench_role */
	int64_t elems;      /* number of elements (contiguous) */
};

/* The case's geometry, as the site defines it (abbench sites --help):
 * activations are contiguous [batch, tokens, width]; a LayerNorm normalises
 * rows of row_len elements, of which there are rows = batch*tokens*width /
 * row_len; heads = width / row_len for qk_layernorm, else 1. */
struct abbench_dims {
	int64_t batch, tokens, width, row_len, rows, heads;
};

struct abbench_call {
	uint32_t abi_version;     /* the harness's ABBENCH_PLUGIN_ABI_VERSION */
	const char *site;         /* "ln_modulate" ... */
	const char *case_name;    /* the scenario's case */
	int32_t rank;             /* the shape as written in the scenario */
	int64_t shape[4];
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
