/*
 * cubin_spec.h - what the [arm NAME] section of a compiled-binary arm
 * says (type = cubin, docs/PLUGINS.md), read from its records
 * (config/arm_spec.h) and checked for syntax and names, with no file
 * opened (cubin_arm.c opens them):
 *
 *   [arm my_ln]
 *   type = cubin
 *   site = ln_modulate
 *   triton = out/ln_mod.json     ; or binary = k.cubin (.ptx, .fatbin) and kernel = NAME
 *   grid = M                     ; 1 to 3 shape expressions (config/expr.h)
 *   block = 128                  ; not with triton: 32 x its num_warps
 *   shared = 0                   ; dynamic shared memory bytes; not with triton
 *   params = x, scale, shift, out, M, N, eps
 *
 * params name the site's tensors (device pointers), eps (f32) or shape
 * expressions of the site's symbols (i32, or NAME:i64). Paths are resolved against the
 * scenario's folder. Every key's line is kept for later messages.
 */
#ifndef AB_CUBIN_SPEC_H
#define AB_CUBIN_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "common/diag.h"
#include "config/arm_spec.h"
#include "config/expr.h"
#include "config/scenario.h"

#define CUBIN_SPEC_KERNEL_MAX 256
#define CUBIN_SPEC_MAX_PARAMS 32

enum cubin_spec_param_kind {
	CUBIN_SPEC_PARAM_TENSOR, /* a device pointer (8 bytes) */
	CUBIN_SPEC_PARAM_INT,    /* a shape expression: i32 (4 bytes) or NAME:i64 (8 bytes) */
	CUBIN_SPEC_PARAM_EPS,    /* the case's eps as f32 (4 bytes) */
};

struct cubin_spec_param {
	char text[48];          /* as written, for messages */
	enum cubin_spec_param_kind kind;
	int tensor;             /* TENSOR: index in the site's tensor table */
	bool i64;               /* INT */
	struct expr value;      /* INT */
};

/* The line of every key (0: not given), and of the section header. */
struct cubin_spec_lines {
	int header, site, triton, binary, kernel, grid, block, shared, params;
};

struct cubin_spec {
	char name[ARM_SPEC_NAME_MAX];
	const struct site_desc *site;
	struct cubin_spec_lines lines;
	char triton[ARM_SPEC_PATH_MAX];     /* Triton's metadata .json, or "" */
	char binary[ARM_SPEC_PATH_MAX];     /* .cubin, .ptx or .fatbin, or "" with triton */
	char kernel[CUBIN_SPEC_KERNEL_MAX]; /* "" with triton: its metadata names it */
	int n_grid, n_block;                /* 0 when not given */
	struct expr grid[3], block[3], shared;
	bool have_shared;
	int n_params;
	struct cubin_spec_param params[CUBIN_SPEC_MAX_PARAMS];
};

/* The keys of cubin arms besides type and site, NULL-terminated. */
extern const char *const cubin_spec_keys[];

/* Reads spec's records into out: each value checked (paths, the kernel's
 * name, expressions), then the keys the section needs and those it may
 * not have together, then params against the site. Bad input is
 * AB_ERR_INPUT naming the scenario's FILE:LINE. */
enum ab_rc cubin_spec_read(const struct arm_spec *spec, const struct scenario *s, struct cubin_spec *out,
			   struct ab_diag *d);

/* "grid = cdiv(M, 4), H": 1 to 3 comma-separated expressions of site's
 * shape symbols. */
bool cubin_spec_parse_dims(const struct site_desc *site, const char *text, struct expr out[3], int *n, char *err,
			   size_t len);

/* text against site: each name a tensor of the site, eps, or a shape
 * expression with an optional :i32 / :i64 type. */
bool cubin_spec_parse_params(const struct site_desc *site, const char *text, struct cubin_spec_param *out, int *n,
			     char *err, size_t len);

#endif
