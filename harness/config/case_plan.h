/*
 * case_plan.h - a case resolved once: what every layer above config/
 * needs to know of one case of a scenario, computed from the case and its
 * site in one pass, so that run/ (buffers, inputs, checks, memory
 * admission), arms/ (the kinds' per-case calls) and the dump read numbers
 * instead of each asking kernels/common/site.c again.
 *
 *   each tensor    present or not, role, dtype, shape in elements,
 *                  elements, bytes, axis names, its float64 reference's
 *                  size, and for an input the generator it is drawn by
 *   the outputs    their indices, in the site's table order; the count
 *                  of present inputs
 *   the case       its shape and dtype as stored, its input description,
 *                  the minimum bytes an arm moves, the swept axis, the
 *                  name its input streams are keyed by
 *   the arms       what each side runs, the bytes credited to it, the
 *                  tensors it writes: filled by arms_plan_case
 *                  (arms/arms.h), which owns what an arm credits
 *
 * case_plan_build fills everything but the arms' part. A plan points at
 * its case and site (and the arms' variants): it lives no longer than the
 * scenario (and the arms). It owns no memory.
 */
#ifndef AB_CASE_PLAN_H
#define AB_CASE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/results.h"
#include "config/scenario.h"
#include "kernels/common/site.h"

#define CASE_PLAN_AXES_MAX (SITE_MAX_RANK * (SITE_AXIS_NAME_MAX + 1))

struct case_plan_tensor {
	const struct site_tensor *t; /* its row of the site's table: name, role, dtype, param */
	bool present;                /* in this case (an affine-only tensor needs affine = true) */
	bool input;                  /* an input (activation or parameter) */
	bool aux;                    /* a stat or scratch tensor */
	int rank;
	int64_t shape[SITE_MAX_RANK]; /* its extents, outermost first (site_tensor_shape) */
	int64_t elems;                /* their product */
	int64_t row_len;              /* its last extent, 1 for a scalar: the rows of special */
	size_t bytes;                 /* elements x element size; 0 when not present */
	const char *dtype;            /* "bf16" (site_dtype_name) */
	const char *role;             /* "input", "output", "stat", "scratch" (site_role_name) */
	char axes[CASE_PLAN_AXES_MAX]; /* "B,T,W" ("" for a scalar) */
	size_t ref_bytes;             /* a present output's float64 reference (and tolerance), each; 0: none */
	/* An input's generator: its input.NAME, else the case's distribution;
	 * SCENARIO_GEN_NONE for a built-in parameter without input.NAME, drawn
	 * by its own (t->param). */
	struct scenario_gen gen;
};

/* One side of the case ([0]: a, [1]: b). */
struct case_plan_arm {
	const char *name;                   /* as the case names it (scenario_case.arm_a, arm_b) */
	const struct site_variant *variant; /* what its slots run; NULL: the site has no such variant */
	int64_t bytes;                      /* the traffic credited to it (arms_plan_case) */
	uint32_t writes;                    /* SITE_IO bits of the tensors it writes (arms_plan_case) */
};

struct case_plan {
	const struct scenario_case *c; /* what it resolves: the name, line, sweep, arms' names */
	const struct site_desc *site;
	struct site_args args;         /* dims, eps and affine; no buffers */
	int n_tensors;
	struct case_plan_tensor tensor[SITE_MAX_TENSORS];
	int n_out;
	int out_index[RESULTS_MAX_OUTPUTS]; /* the present SITE_OUT tensors, in table order */
	int n_in;                      /* present inputs (activations and parameters) */
	char shape[96];                /* "1x4096x4096" */
	const char *dtype;             /* its site's first output's dtype; NULL: the site has no output */
	char input[128];               /* scenario_case_describe_input (results_case.input) */
	int64_t bytes_min;             /* site_min_bytes */
	int swept_dim;                 /* the swept axis' index among the site's, -1 when none matches */
	const char *stream;            /* the input streams' key: the sweep's name under invariance = rows, else the case's */
	struct case_plan_arm arm[2];
};

/* Resolves case c into p (the arms' part: names only; see
 * arms_plan_case). AB_ERR_INTERNAL for a site with more outputs than a
 * slot records (the scenario's checks refuse such a site). */
enum ab_rc case_plan_build(const struct scenario_case *c, struct case_plan *p, struct ab_diag *d);

#endif
