/*
 * harness_kernels.h - the CUDA backend's own kernels, callable from C.
 *
 * None of them is part of an arm. The spin, probe and tiny kernels are
 * launched outside the CUPTI external-correlation push, so attribution
 * counts their records as ignored (and their names, which contain "spin"
 * or "probe", map to the "harness" family should one ever show up); the
 * copy floor's kernels are measured like an arm, in samples of their own
 * (backend/copy_floor.h). Each wrapper queues one
 * launch on stream (a cudaStream_t) and returns cudaGetLastError() as int.
 */
#ifndef AB_HARNESS_KERNELS_H
#define AB_HARNESS_KERNELS_H

#include "backend/copy_floor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Holds the stream until *release reaches target (wrap-around compare), so
 * that the launches queued behind it start back to back once the host
 * stores target. Gives up after timeout_ns of %globaltimer and increments
 * *timeouts, so a host bug can never hang the GPU. release and timeouts
 * are device pointers of host-mapped memory. */
int hk_spin_launch(const volatile unsigned *release, unsigned target, unsigned long long timeout_ns,
		   unsigned *timeouts, void *stream);

/* Effective SM clock, from one thread on one SM: aligns to a %globaltimer
 * tick, counts clock64 cycles until the timer has advanced window_ns, and
 * writes out[0] = timer ns elapsed, out[1] = cycles elapsed, out[2] = SM id.
 * cycles / ns is the SM clock in GHz. out[0] == 0 means no reading. */
int hk_probe_launch(unsigned long long *out, unsigned window_ns, void *stream);

/* A one-warp kernel that bumps *sink: the cheapest real launch, used to
 * measure CUPTI's per-launch overhead and by the backend's GPU tests. */
int hk_tiny_launch(unsigned *sink, void *stream);

/* The copy floor's kernels (backend/copy_floor.h), by method:
 *   HK_FLOOR_VEC_CS  one 16-byte vector a thread, .cs loads and stores
 *   HK_FLOOR_VEC     the same, default cache policy
 *   HK_FLOOR_GS4_CS  grid-stride (within each contiguous piece of the plan),
 *                    four vectors in flight a thread, .cs
 *   HK_FLOOR_GS4     the same, default cache policy
 * Queues one launch moving plan p's streams; sm_count sizes the grid-stride
 * grid. cudaErrorInvalidValue for a plan whose segments are not 16-byte
 * aligned or too many; a cudaError_t as int. */
enum hk_floor_method { HK_FLOOR_VEC_CS, HK_FLOOR_VEC, HK_FLOOR_GS4_CS, HK_FLOOR_GS4, HK_FLOOR_N };
int hk_floor_launch(const struct copy_floor_plan *p, int method, int sm_count, void *stream);

#ifdef __cplusplus
}
#endif

#endif
