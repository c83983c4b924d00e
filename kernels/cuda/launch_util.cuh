/*
 * launch_util.cuh - host-side checks and device facts shared by the launch
 * functions of kernels/cuda.
 *
 * The launch functions validate what the registry's geometry rule already
 * promises (so a caller that skips it gets cudaErrorInvalidValue rather
 * than an out-of-bounds kernel), and read the SM count once per device to
 * size their grids.
 */
#ifndef AB_LAUNCH_UTIL_CUH
#define AB_LAUNCH_UTIL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

/* Whether every pointer is non-NULL and aligned to `align` bytes. */
static inline bool ab_aligned(const void *p, uintptr_t align)
{
	return p != nullptr && ((uintptr_t)p % align) == 0;
}

/* Multiprocessors of the current device, cached per device (up to 64
 * devices; a benign race at worst reads the attribute twice). 0 when the
 * runtime cannot say, which the callers treat as "size for one SM". */
static inline int ab_sm_count(void)
{
	static int cache[64];
	int dev = 0;
	if (cudaGetDevice(&dev) != cudaSuccess || dev < 0)
		return 0;
	if (dev < 64 && cache[dev] > 0)
		return cache[dev];
	int n = 0;
	if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
		return 0;
	if (dev < 64)
		cache[dev] = n;
	return n;
}

/* Reports a rejected launch: the value every launch function returns for
 * arguments its kernels cannot take. */
static inline int ab_invalid(void)
{
	return (int)cudaErrorInvalidValue;
}

#endif
