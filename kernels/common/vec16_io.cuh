/*
 * vec16_io.cuh - 16-byte vector loads and stores with or without the
 * streaming hints (.cs: evict-first, as the fused kernels use), and the
 * xor that keeps a loaded vector live: the whole of a copy kernel's
 * arithmetic. Shared by the copy floor the harness measures per case
 * (harness/backend/cuda/harness_kernels.cu) and the standalone copy
 * cubins of the kernel tuning (scripts/gpu/copy_floor.cu), so that the
 * two copies are the same code.
 */
#ifndef AB_VEC16_IO_CUH
#define AB_VEC16_IO_CUH

#include <stdint.h>

template <bool CS>
static __device__ __forceinline__ uint4 vec16_ld(const uint4 *p)
{
	if constexpr (CS)
		return __ldcs(p);
	else
		return *p;
}

template <bool CS>
static __device__ __forceinline__ void vec16_st(uint4 *p, uint4 v)
{
	if constexpr (CS)
		__stcs(p, v);
	else
		*p = v;
}

static __device__ __forceinline__ uint4 vec16_xor(uint4 a, uint4 b)
{
	return make_uint4(a.x ^ b.x, a.y ^ b.y, a.z ^ b.z, a.w ^ b.w);
}

#endif
