/*
 * launch_util.cuh - host-side helpers shared by the CUDA launch functions
 * of every site: pointer checks, typed access to site_args tensors, the
 * SM count, and the "cannot take this" return value.
 *
 * The launch functions validate what the site's shape rule already
 * promises (each site's <site>_args_ok, so a caller that skips the rule
 * gets cudaErrorInvalidValue rather than an out-of-bounds kernel), and read
 * the SM count once per device to size their grids.
 */
#ifndef AB_LAUNCH_UTIL_CUH
#define AB_LAUNCH_UTIL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/common/site.h"

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

/* Tensor i of a as raw bf16 words (inputs, outputs) or floats (statistics). */
static inline const uint16_t *ab_in_bf16(const struct site_args *a, int i)
{
	return static_cast<const uint16_t *>(a->t[i]);
}

static inline uint16_t *ab_out_bf16(const struct site_args *a, int i)
{
	return static_cast<uint16_t *>(a->t[i]);
}

static inline float *ab_out_f32(const struct site_args *a, int i)
{
	return static_cast<float *>(a->t[i]);
}

/* Reports a rejected launch: the value every launch function returns for
 * arguments its kernels cannot take. */
static inline int ab_invalid(void)
{
	return (int)cudaErrorInvalidValue;
}

#endif
