/*
 * dump.h - `run --dump DIR`: each case's inputs and each arm's outputs as
 * .npy files (bf16 as '<u2' raw bits, float32 as '<f4') plus DIR/manifest.json
 * describing them, so other tools (scripts/torch_oracle.py) can load them.
 *
 * Layout: DIR/CASE/in_TENSOR.npy, DIR/CASE/SLOT_VARIANT_TENSOR.npy (outputs
 * of the first slot of each arm, and the statistics of those arms that
 * compute them: dump_writes_aux). The manifest is written
 * last, through a temporary file and a rename.
 */
#ifndef AB_DUMP_H
#define AB_DUMP_H

#include <stdbool.h>

#include "kernels/common/site.h"
#include "common/diag.h"
#include "common/results.h"

/* Creates DIR if needed and checks it is writable and empty: a directory
 * that holds anything (an earlier dump included) is refused, AB_ERR_USAGE,
 * so that a dump never mixes two runs' files. *created says whether this
 * call made DIR (the runner removes it again when the run fails before
 * writing into it). */
enum ab_rc dump_prepare(const char *dir, bool *created, struct ab_diag *d);

/* Writes tensor i of the site (host memory) as DIR/CASE/NAME.npy. */
enum ab_rc dump_tensor(const char *dir, const char *case_name, const char *file_stem, const struct site_desc *s,
		       int tensor_index, const struct site_dims *dims, const void *data, struct ab_diag *d);

/* Whether the slots of variant (by name) dump the site's SITE_AUX
 * tensors: only a built-in variant that computes them (site_variant's
 * writes_aux: the eager chains, twopass); never a fused arm or an arm from
 * outside, whose statistics buffers hold the slot's poison. The dump and
 * the manifest both ask this, so they always agree. */
bool dump_writes_aux(const struct site_desc *s, const char *variant);

/* The manifest of every case and slot of the run (files named as above). */
enum ab_rc dump_manifest(const char *dir, const struct results_run *r, struct ab_diag *d);

#endif
