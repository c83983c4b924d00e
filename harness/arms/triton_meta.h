/*
 * triton_meta.h - the metadata Triton writes beside a compiled kernel
 * (NAME.json in its cache, next to NAME.cubin), read with jansson.
 *
 * What a launch needs from it: the kernel's name, num_warps (the block is
 * 32 * num_warps threads: Triton launches 1-D blocks), shared (dynamic
 * shared memory bytes), and the trailing scratch pointers current Triton
 * versions append to every kernel's parameters: one for
 * global_scratch_size, one for profile_scratch_size, each present when
 * the key is (pass NULL when the size is 0, else a buffer of size x the
 * number of programs, aligned as _align says). Launches Triton itself
 * would make differently are refused: num_ctas > 1 (clusters) and
 * cooperative grids.
 */
#ifndef AB_TRITON_META_H
#define AB_TRITON_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct triton_meta {
	char name[256];
	int num_warps;
	int num_ctas;
	int shared;
	bool has_global_scratch, has_profile_scratch;
	int64_t global_scratch_size, global_scratch_align;
	int64_t profile_scratch_size, profile_scratch_align;
	char backend[16];    /* target.backend: "cuda" */
	int arch;            /* target.arch: 90 */
	int warp_size;       /* target.warp_size: 32 */
	bool cooperative;    /* launch_cooperative_grid */
	bool pdl;            /* launch_pdl: programmatic dependent launch (not used by abbench) */
	char version[64];    /* triton_version, "" when absent */
};

/* Parses the JSON text; false with one line in err (the key that is
 * missing or wrong) otherwise. */
bool triton_meta_parse(const char *text, struct triton_meta *out, char *err, size_t len);

/* The trailing scratch pointers the kernel takes (0, 1 or 2). */
int triton_meta_scratch_params(const struct triton_meta *m);

#endif
