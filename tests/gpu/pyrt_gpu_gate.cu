/*
 * pyrt_gpu_gate.cu - a gate for pyrt's GPU check (pyrt_gpu_check.c): one
 * thread that holds a stream until the host opens the gate (a flag in
 * mapped host memory) or a deadline passes. Work a Python function queues
 * while the gate is shut runs only if it went to the gated stream after
 * the gate opens: so the check sees on which stream torch and Triton
 * launched, not only what torch believes its current stream is.
 */
#include <cuda_runtime.h>

static __device__ unsigned long long now_ns()
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__global__ void pyrt_gate_kernel(const volatile int *open, unsigned long long timeout_ns, int *timed_out)
{
	unsigned long long start = now_ns();
	while (!*open)
		if (now_ns() - start > timeout_ns) {
			*timed_out = 1;
			return;
		}
}

/* Queues the gate on stream; returns the launch's cudaError_t. */
extern "C" int pyrt_gate_launch(const volatile int *open_dev, unsigned long long timeout_ns, int *timed_out_dev,
				void *stream)
{
	pyrt_gate_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(open_dev, timeout_ns, timed_out_dev);
	return (int)cudaGetLastError();
}
