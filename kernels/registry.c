/*
 * registry.c - the list of fusion sites, one line per site.
 *
 * Each site is defined in its folder, kernels/<site>/site.c
 * (docs/SITES.md, "Building a site in"); the order here is the order
 * `abbench sites` lists.
 */
#include "kernels/common/site.h"

#define SITES(X)             \
	X(ln_modulate)       \
	X(ln_continuous)     \
	X(qk_layernorm)      \
	X(residual_gate_add)

#define SITE_DECLARE(name) extern const struct site_desc name##_site;
#define SITE_ENTRY(name) &name##_site,

SITES(SITE_DECLARE)

const struct site_desc *const site_registry[] = { SITES(SITE_ENTRY) NULL };
