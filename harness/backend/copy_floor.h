/*
 * copy_floor.h - the honest floor of a case (issue 24): what a plain
 * streaming copy of exactly the case's minimum bytes takes, measured in the
 * same run, on the same buffers, between the same L2 flushes as the arms.
 *
 * The minimum bytes are the site's (site_min_bytes): every present input
 * (SITE_IN_ACT, SITE_IN_PARAM) read once, every output (SITE_OUT) written
 * once. A plan lists them as two streams of segments, the inputs' in the
 * tensor table's order (the read stream, R bytes) and the outputs' (the
 * write stream, W bytes). Every floor method moves both streams once and
 * does no arithmetic but what keeps each loaded byte live. The CUDA
 * kernels (harness_kernels.cu):
 *
 *   write vector i (16 bytes) = the xor of read vectors i, i + Wv,
 *   i + 2 Wv and i + 3 Wv (Wv: the write stream's vectors), those that
 *   exist; read vectors from 4 Wv on (a site that reads more than four
 *   times what it writes) are read and compared, not written;
 *
 * so ln_modulate's out = x (the first threads also read scale and shift),
 * qk's q_out = q and k_out = k in one launch, the gate's out = x ^ ff: the
 * kernels of scripts/gpu/copy_floor.cu, for any site's table. The CPU's
 * loop copies the read stream's first W bytes into the outputs (memcpy)
 * and reads the rest once. The floor's
 * outputs are not the site's: nothing checks them (the runner measures the
 * floor after the case's last slot, once its outputs were checked).
 *
 * Each backend offers its methods (backend_ops.floor_methods and
 * floor_variant): CUDA four kernels (one vector a thread, and a grid-stride
 * loop with four vectors in flight a thread; each with the streaming hints
 * .cs and with the default cache policy, since either can win: PERF_NOTES,
 * "Issue 24 kernels"), the CPU one memcpy-like loop. The case's floor is
 * the fastest method's median.
 */
#ifndef AB_COPY_FLOOR_H
#define AB_COPY_FLOOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/common/site.h"

#define COPY_FLOOR_SEGS 8 /* inputs (outputs) of a site: its tensor table holds far fewer */

struct copy_floor_plan {
	int n_in, n_out;
	const void *in[COPY_FLOOR_SEGS];
	void *out[COPY_FLOOR_SEGS];
	int64_t in_bytes[COPY_FLOOR_SEGS], out_bytes[COPY_FLOOR_SEGS];
	int64_t read_bytes, write_bytes; /* sums: read + write = site_min_bytes */
};

/* Whether a case of site site_name with n_in present inputs and n_out
 * present outputs (its plan's counts) has a copy floor at all: at least
 * one output, and at most COPY_FLOOR_SEGS inputs and as many outputs (a
 * declared site may have up to SITE_MAX_TENSORS tensors; the floor's
 * kernels take a fixed number of segments a stream). False with the
 * reason in why ("site 'x' has 9 inputs, the copy floor takes at most
 * 8"): the case is then measured without one, its floor 'not measured'. */
bool copy_floor_fits(const char *site_name, int n_in, int n_out, char *why, size_t len);

/* The plan of site s over the tensors of a (a backend's own buffers);
 * false when a present tensor has no buffer, there are more segments than
 * COPY_FLOOR_SEGS, or nothing to write. */
bool copy_floor_plan(const struct site_desc *s, const struct site_args *a, struct copy_floor_plan *p);

/* The CPU's method: each output segment's bytes copied (memcpy) from the
 * read stream at the same offset (zeros past its end), then the read
 * stream past the write stream's length read once (summed into a sink). */
void copy_floor_memcpy(const struct copy_floor_plan *p);

#endif
