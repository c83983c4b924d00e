/*
 * dump.h - `run --dump DIR`: each case's inputs and each arm's outputs as
 * .npy files (bf16 as '<u2' raw bits, float32 as '<f4') plus DIR/manifest.json
 * describing them, so other tools (scripts/torch_oracle.py) can load them.
 *
 * Layout: DIR/CASE/in_TENSOR.npy, DIR/CASE/SLOT_VARIANT_TENSOR.npy (the
 * outputs of the first slot of each arm, and the statistics and scratch
 * tensors that arm writes: its plan's writes, so only what it computed: a
 * built-in variant's chain and its statistics when it computes them,
 * site_variant.writes_aux; a user arm's writes =; never a fused arm's
 * poisoned statistics). The manifest, with every tensor's dtype, is
 * written last, through a temporary file and a rename.
 */
#ifndef AB_DUMP_H
#define AB_DUMP_H

#include <stdbool.h>

#include "common/diag.h"
#include "common/results.h"
#include "config/case_plan.h"

/* Creates DIR if needed and checks it is writable and empty: a directory
 * that holds anything (an earlier dump included) is refused, AB_ERR_USAGE,
 * so that a dump never mixes two runs' files. *created says whether this
 * call made DIR (the runner removes it again when the run fails before
 * writing into it). */
enum ab_rc dump_prepare(const char *dir, bool *created, struct ab_diag *d);

/* Writes tensor i of the case planned p (host memory, its shape and
 * dtype the plan's) as DIR/CASE/NAME.npy. */
enum ab_rc dump_tensor(const char *dir, const struct case_plan *p, int tensor_index, const char *file_stem,
		       const void *data, struct ab_diag *d);

/* The manifest of every case and slot of the run (files named as above),
 * each case read from its plan: plans[k] is the scenario's case k (a
 * case's ordinal), n_plans of them. AB_ERR_INTERNAL for a case of no
 * plan. */
enum ab_rc dump_manifest(const char *dir, const struct results_run *r, const struct case_plan *plans, int n_plans,
			 struct ab_diag *d);

#endif
