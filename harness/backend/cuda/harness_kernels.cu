/*
 * harness_kernels.cu - the spin-wait, clock-probe and tiny kernels of the
 * CUDA backend (see harness_kernels.h).
 *
 * Launch descriptors: one block of one thread for the spin and the probe
 * (they must take one SM slot and nothing else while arms run), one warp
 * for the tiny kernel (the smallest launch the hardware schedules). No
 * measurement tunes them: their cost is outside every timed span.
 */
#include <cuda_runtime.h>

#include "backend/cuda/harness_kernels.h"

/* Nanoseconds since an arbitrary epoch, common to all SMs. Its resolution
 * is coarse on some GPUs (about 1 us without a profiler attached). */
static __device__ __forceinline__ unsigned long long hk_globaltimer()
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

static __device__ __forceinline__ unsigned hk_smid()
{
	unsigned id;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
	return id;
}

__global__ void harness_spin_wait_kernel(const volatile unsigned *release, unsigned target,
					 unsigned long long timeout_ns, unsigned *timeouts)
{
	const unsigned long long t0 = hk_globaltimer();
	while ((int)(*release - target) < 0) {
		if (hk_globaltimer() - t0 > timeout_ns) {
			/* Host-mapped memory: a plain store, made visible to the
			 * host (system-scope atomics over PCIe are not assumed). */
			volatile unsigned *t = timeouts;
			*t = *t + 1u;
			__threadfence_system();
			return;
		}
		__nanosleep(256);
	}
}

/* Reading both counters right after a timer tick makes the window exact to
 * a few loop iterations even when the timer ticks once a microsecond. */
__global__ void harness_clock_probe_kernel(unsigned long long *out, unsigned window_ns)
{
	const unsigned long long first = hk_globaltimer();
	unsigned long long t0 = first;
	for (int i = 0; i < (1 << 22) && t0 == first; i++)
		t0 = hk_globaltimer();
	const long long c0 = clock64();
	unsigned long long t1 = t0;
	for (int i = 0; i < (1 << 24) && t1 - t0 < window_ns; i++)
		t1 = hk_globaltimer();
	const long long c1 = clock64();
	const bool ok = t0 != first && t1 - t0 >= window_ns;
	out[0] = ok ? t1 - t0 : 0ull;
	out[1] = ok ? (unsigned long long)(c1 - c0) : 0ull;
	out[2] = hk_smid();
}

__global__ void harness_probe_tiny_kernel(unsigned *sink)
{
	if (threadIdx.x == 0)
		sink[0] += 1u;
}

extern "C" int hk_spin_launch(const volatile unsigned *release, unsigned target, unsigned long long timeout_ns,
			      unsigned *timeouts, void *stream)
{
	harness_spin_wait_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(release, target, timeout_ns, timeouts);
	return (int)cudaGetLastError();
}

extern "C" int hk_probe_launch(unsigned long long *out, unsigned window_ns, void *stream)
{
	harness_clock_probe_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(out, window_ns);
	return (int)cudaGetLastError();
}

extern "C" int hk_tiny_launch(unsigned *sink, void *stream)
{
	harness_probe_tiny_kernel<<<1, 32, 0, (cudaStream_t)stream>>>(sink);
	return (int)cudaGetLastError();
}
