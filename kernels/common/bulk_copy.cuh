/*
 * bulk_copy.cuh - Hopper's bulk copy engine (cp.async.bulk, sm_90) for the
 * fused kernels' persistent row rings: global -> shared copies of whole
 * rows that complete on an mbarrier, issued by one thread.
 *
 * Why: a fused LayerNorm must hold a whole row before it can write any of
 * it, so a plain kernel keeps the row in registers (the register file then
 * bounds the bytes in flight) and a row's loads are issued only when its
 * block starts. A persistent block with a ring of NS shared-memory row
 * slots keeps NS rows in flight while it computes one, with one
 * instruction per row instead of one load per thread and vector.
 *
 * Protocol (one producer thread, all threads consumers), per slot s:
 *   producer: ab_mbar_expect_tx(full[s], bytes); ab_bulk_g2s(slot, src, bytes, full[s])
 *   consumers: ab_mbar_wait(full[s], use & 1), read the slot into registers,
 *              then a block barrier before the producer refills it.
 * The barrier orders the generic-proxy reads before the async-proxy write
 * (CUTLASS's TMA pipelines rely on the same: a release by the consumers,
 * then the producer's copy; no proxy fence is needed for that direction).
 * Addresses and sizes must be multiples of 16 bytes.
 */
#ifndef AB_BULK_COPY_CUH
#define AB_BULK_COPY_CUH

#include <stdint.h>

static __device__ __forceinline__ uint32_t ab_smem_addr(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

/* An mbarrier expecting `count` arrivals per phase; then a fence so that
 * the async proxy sees the initialised barrier (before a block barrier). */
static __device__ __forceinline__ void ab_mbar_init(uint64_t *bar, uint32_t count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(ab_smem_addr(bar)), "r"(count) : "memory");
}

static __device__ __forceinline__ void ab_mbar_init_fence(void)
{
	asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* The producer's arrival, announcing `bytes` of transfers for this phase. */
static __device__ __forceinline__ void ab_mbar_expect_tx(uint64_t *bar, uint32_t bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(ab_smem_addr(bar)), "r"(bytes)
		     : "memory");
}

/* Waits until the phase of parity `parity` of bar has completed. */
static __device__ __forceinline__ void ab_mbar_wait(uint64_t *bar, uint32_t parity)
{
	uint32_t done;
	do {
		asm volatile("{\n\t.reg .pred p;\n\t"
			     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
			     "selp.u32 %0, 1, 0, p;\n\t}"
			     : "=r"(done)
			     : "r"(ab_smem_addr(bar)), "r"(parity)
			     : "memory");
	} while (!done);
}

/* bytes from global src to shared dst, completing on bar (16-byte
 * multiples and alignment). */
static __device__ __forceinline__ void ab_bulk_g2s(void *dst, const void *src, uint32_t bytes, uint64_t *bar)
{
	asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
			     ab_smem_addr(dst)),
		     "l"(src), "r"(bytes), "r"(ab_smem_addr(bar))
		     : "memory");
}

#endif
