/*
 * arm_spec.h - a user arm as a scenario describes it: an [arm NAME]
 * section or a `plugin:PATH:ARM` shortcut in [arms] (docs/PLUGINS.md).
 *
 *   [arm my_ln]
 *   type = cubin                 ; plugin | cubin
 *   site = ln_modulate
 *   triton = out/ln_mod.json     ; or binary = k.cubin (.ptx, .fatbin) and kernel = NAME
 *   grid = M                     ; 1 to 3 shape expressions (config/expr.h)
 *   params = x, scale, shift, out, M, N, eps
 *
 * This module holds what the text says, checked for syntax and names (the
 * site's tensors, the shape symbols): the files themselves are opened at
 * plan time (harness/arms/). Paths are stored resolved against the
 * scenario file's folder. Every key's line is kept for messages.
 */
#ifndef AB_ARM_SPEC_H
#define AB_ARM_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "common/diag.h"
#include "config/expr.h"
#include "kernels/common/site.h"

#define ARM_SPEC_NAME_MAX 32   /* fits results_slot.variant */
#define ARM_SPEC_PATH_MAX 4096
#define ARM_SPEC_KERNEL_MAX 256
#define ARM_SPEC_MAX_PARAMS 32
#define ARM_SPEC_PARAMS_TEXT 200 /* a scenario line's length */

enum arm_spec_type { ARM_SPEC_PLUGIN, ARM_SPEC_CUBIN };

enum arm_spec_param_kind {
	ARM_SPEC_PARAM_TENSOR, /* a device pointer (8 bytes) */
	ARM_SPEC_PARAM_INT,    /* a shape expression: i32 (4 bytes) or NAME:i64 (8 bytes) */
	ARM_SPEC_PARAM_EPS,    /* the case's eps as f32 (4 bytes) */
};

struct arm_spec_param {
	char text[48];          /* as written, for messages */
	enum arm_spec_param_kind kind;
	int tensor;             /* TENSOR: index in the site's tensor table */
	bool i64;               /* INT */
	struct expr value;      /* INT */
};

/* The line of every key (0: not given), and of the section header. */
struct arm_spec_lines {
	int header, type, site, library, name, triton, binary, kernel, grid, block, shared, params;
};

struct arm_spec {
	char name[ARM_SPEC_NAME_MAX];
	enum arm_spec_type type;
	bool shortcut;                      /* from plugin:PATH:ARM */
	const struct site_desc *site;       /* NULL for a shortcut: the plugin names it */
	struct arm_spec_lines lines;        /* a shortcut's are all its a/b key's line */
	/* plugin */
	char library[ARM_SPEC_PATH_MAX];
	char entry[ARM_SPEC_NAME_MAX];      /* the arm's name in the plugin's table */
	/* cubin */
	char triton[ARM_SPEC_PATH_MAX];     /* Triton's metadata .json, or "" */
	char binary[ARM_SPEC_PATH_MAX];     /* .cubin, .ptx or .fatbin, or "" with triton */
	char kernel[ARM_SPEC_KERNEL_MAX];   /* "" with triton: its metadata names it */
	int n_grid, n_block;                /* 0 when not given */
	struct expr grid[3], block[3], shared;
	bool have_shared;
	char params_text[ARM_SPEC_PARAMS_TEXT];
	int n_params;
	struct arm_spec_param params[ARM_SPEC_MAX_PARAMS];
};

/* "grid = cdiv(M, 4), H": 1 to 3 comma-separated expressions. */
bool arm_spec_parse_dims(const char *text, struct expr out[3], int *n, char *err, size_t len);

/* Resolves spec->params_text against spec->site: each name is a tensor of
 * the site, eps, or a shape expression with an optional :i32 / :i64 type. */
bool arm_spec_parse_params(struct arm_spec *spec, char *err, size_t len);

/* value resolved against the folder of scenario_path (absolute values are
 * kept); false when the result does not fit cap. */
bool arm_spec_resolve_path(const char *scenario_path, const char *value, char *out, size_t cap);

/* Splits "plugin:PATH:ARM" into PATH and ARM (ARM after the last ':');
 * false with a reason when it is not of that form. */
bool arm_spec_split_shortcut(const char *text, char *path, size_t path_cap, char *arm, size_t arm_cap, char *err,
			     size_t len);

/* The checks that need the whole section: the keys each type requires and
 * forbids. The reason names the key; *line is where to report it. */
bool arm_spec_finish(struct arm_spec *spec, int *line, char *err, size_t len);

const char *arm_spec_type_str(enum arm_spec_type t);

/* Every error about a user arm once the scenario is read (harness/arms/):
 * "SCENARIO:LINE: arm 'NAME': message", line being one of spec->lines. */
enum ab_rc arm_spec_fail(struct ab_diag *d, enum ab_rc rc, const char *scenario_path, const struct arm_spec *spec,
			 int line, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
