/*
 * copy_floor.cu - the copy floor of each GLM-Image case as cubin arms
 * (issue 24): kernels that move exactly a site's minimum bytes (every
 * input read once, every output written once, one 16-byte vector per
 * thread, no arithmetic but an xor that keeps every input live), so that
 * a fused arm's time can be read as a multiple of a copy of the same
 * bytes at the same shape, measured in the same run.
 *
 * Built by `make` as build/gpu/copy_floor.cubin (sm_90); run through
 * scenarios/tuning_glm/*_copy*.ini (scripts/gpu/kernels.sh). Each kernel
 * exists with the streaming hints the fused kernels use (.cs loads and
 * stores: `_cs`) and with the default cache policy, since the floor is
 * the faster of the two. Their outputs are not the site's (they are
 * copies): abbench reports them as not byte-equal, by design.
 *
 * Launch (every kernel): block 256, grid cdiv(vectors, 256), vectors =
 * the output's 16-byte vectors (both outputs' for qk).
 */
#include <stdint.h>

#include "../../kernels/common/vec16_io.cuh"

/* ln_modulate: out = x; the first wv threads also read scale and shift
 * (the per-batch vectors, read once). */
template <bool CS>
static __device__ __forceinline__ void copy_ln(const uint4 *x, const uint4 *scale, const uint4 *shift, uint4 *out,
					       long long n, int wv)
{
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	uint4 v = vec16_ld<CS>(x + i);
	if (i < wv)
		v = vec16_xor(v, vec16_xor(vec16_ld<CS>(scale + i), vec16_ld<CS>(shift + i)));
	vec16_st<CS>(out + i, v);
}

/* residual_gate_add: out = x ^ ff; the first wv threads also read gate. */
template <bool CS>
static __device__ __forceinline__ void copy_gate(const uint4 *x, const uint4 *ff, const uint4 *gate, uint4 *out,
						 long long n, int wv)
{
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	uint4 v = vec16_xor(vec16_ld<CS>(x + i), vec16_ld<CS>(ff + i));
	if (i < wv)
		v = vec16_xor(v, vec16_ld<CS>(gate + i));
	vec16_st<CS>(out + i, v);
}

/* qk_layernorm: q_out = q, k_out = k in one launch (threads 0 .. n-1 copy
 * q, n .. 2n-1 copy k). */
template <bool CS>
static __device__ __forceinline__ void copy_qk(const uint4 *q, const uint4 *k, uint4 *qo, uint4 *ko, long long n)
{
	const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		vec16_st<CS>(qo + i, vec16_ld<CS>(q + i));
	else if (i < 2 * n)
		vec16_st<CS>(ko + i - n, vec16_ld<CS>(k + i - n));
}

#define COPY_LN(name, cs)                                                                                \
	extern "C" __global__ void name(const uint4 *x, const uint4 *scale, const uint4 *shift, uint4 *out, \
					long long n, int wv)                                               \
	{                                                                                                \
		copy_ln<cs>(x, scale, shift, out, n, wv);                                                \
	}
#define COPY_GATE(name, cs)                                                                          \
	extern "C" __global__ void name(const uint4 *x, const uint4 *ff, const uint4 *gate, uint4 *out, \
					long long n, int wv)                                           \
	{                                                                                            \
		copy_gate<cs>(x, ff, gate, out, n, wv);                                              \
	}
#define COPY_QK(name, cs)                                                                                      \
	extern "C" __global__ void name(const uint4 *q, const uint4 *k, uint4 *qo, uint4 *ko, long long n)      \
	{                                                                                                      \
		copy_qk<cs>(q, k, qo, ko, n);                                                                  \
	}

COPY_LN(copy_ln_cs, true)
COPY_LN(copy_ln_plain, false)
COPY_GATE(copy_gate_cs, true)
COPY_GATE(copy_gate_plain, false)
COPY_QK(copy_qk_cs, true)
COPY_QK(copy_qk_plain, false)
