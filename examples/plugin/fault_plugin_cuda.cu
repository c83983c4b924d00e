/*
 * fault_plugin_cuda.cu - kernels that misbehave on purpose (fault_plugin.c).
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "fault_plugin.h"

/* 1 TiB past out: no allocation of this process reaches there. */
#define FAULT_FAR_ELEMS ((int64_t)1 << 39)

static __global__ void store_far(uint16_t *out)
{
	volatile uint16_t *far = out + FAULT_FAR_ELEMS;
	*far = 1;
}

/* out = x, then out[n] (one past the end) = 0 by the last thread. */
static __global__ void copy_overrun(const uint16_t *x, uint16_t *out, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = x[i];
	if (i == n)
		out[n] = 0;
}

/* out = x, then x[0] changed by thread 0 after its own copy. */
static __global__ void copy_into_input(uint16_t *x, uint16_t *out, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = x[i];
	if (i == 0)
		x[0] = FAULT_INPUT_MARK;
}

static int launched(const struct abbench_call *call, const char *what)
{
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess)
		return abbench_fail(call, ABBENCH_ERR_CUDA, "%s launch: %s", what, cudaGetErrorString(e));
	return ABBENCH_OK;
}

static int tensors(const struct abbench_call *call, uint16_t **x, uint16_t **out, int64_t *n)
{
	const struct abbench_tensor *tx = abbench_find(call, "x"), *to = abbench_find(call, "out");
	if (!tx || !to)
		return abbench_fail(call, ABBENCH_ERR_UNSUPPORTED, "site '%s' has no tensor x or out", call->site);
	*x = (uint16_t *)tx->data;
	*out = (uint16_t *)to->data;
	*n = to->elems;
	return ABBENCH_OK;
}

extern "C" int fault_illegal_address_cuda(const struct abbench_call *call)
{
	uint16_t *x, *out;
	int64_t n;
	int status = tensors(call, &x, &out, &n);
	if (status != ABBENCH_OK)
		return status;
	store_far<<<1, 1, 0, (cudaStream_t)call->stream>>>(out);
	return launched(call, "store_far");
}

extern "C" int fault_overrun_cuda(const struct abbench_call *call)
{
	uint16_t *x, *out;
	int64_t n;
	int status = tensors(call, &x, &out, &n);
	if (status != ABBENCH_OK)
		return status;
	copy_overrun<<<(unsigned)(n / 256 + 1), 256, 0, (cudaStream_t)call->stream>>>(x, out, n);
	return launched(call, "copy_overrun");
}

extern "C" int fault_into_input_cuda(const struct abbench_call *call)
{
	uint16_t *x, *out;
	int64_t n;
	int status = tensors(call, &x, &out, &n);
	if (status != ABBENCH_OK)
		return status;
	copy_into_input<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)call->stream>>>(x, out, n);
	return launched(call, "copy_into_input");
}

/* out = x, or (forever) a kernel that spins until the process dies. */
static __global__ void copy_or_spin(const uint16_t *x, uint16_t *out, int64_t n, int forever)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = x[i];
	while (forever)
		__nanosleep(1000);
}

extern "C" int fault_spin_cuda(const struct abbench_call *call, int forever)
{
	uint16_t *x, *out;
	int64_t n;
	int status = tensors(call, &x, &out, &n);
	if (status != ABBENCH_OK)
		return status;
	copy_or_spin<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)call->stream>>>(x, out, n, forever);
	return launched(call, "copy_or_spin");
}
