/*
 * ln_twopass.cu - LayerNorm + modulate (site ln_modulate, no affine) as a
 * standalone kernel for a cubin arm: one block per row, a two-pass float
 * mean and variance reduced through dynamic shared memory, then the three
 * bf16 roundings of the eager chain (LayerNorm output, 1 + scale, the
 * product; then + shift).
 *
 * The reduction order is not aten's Welford fold, so the result is close
 * but not byte-equal: an example of what abbench reports for such an arm.
 *
 *   kernel = ln_twopass_modulate
 *   grid   = M
 *   block  = 256
 *   shared = 256 * 4                  ; one float per thread
 *   params = x, scale, shift, out, N, T, eps
 *
 * Built with -DLN_TRITON_STYLE it is ln_tritonlike, shaped as Triton
 * compiles kernels, to exercise abbench's reading of Triton's metadata
 * (ln_tritonlike.json) without Triton.
 */
#include <cuda_bf16.h>
#include <stdint.h>

static __device__ float bf(uint16_t h)
{
	return __uint_as_float((unsigned)h << 16);
}

static __device__ uint16_t to_bf(float f)
{
	return __bfloat16_as_ushort(__float2bfloat16_rn(f));
}

/* Sum of v over the block through red[blockDim.x] (a power of two). */
static __device__ float block_sum(float v, float *red)
{
	red[threadIdx.x] = v;
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	float total = red[0];
	__syncthreads();
	return total;
}

#ifndef LN_TRITON_STYLE
extern "C" __global__ void ln_twopass_modulate(const uint16_t *x, const uint16_t *scale, const uint16_t *shift,
					       uint16_t *out, int n, int tokens, float eps)
{
#else
/* The same kernel with the parameter list Triton gives its kernels: the
 * user arguments, then the global and profile scratch pointers. Each
 * program (block) stores its row's mean in its 4 bytes of global scratch
 * when it has one (ln_tritonlike.json: global_scratch_size 4). */
extern "C" __global__ void ln_tritonlike(const uint16_t *x, const uint16_t *scale, const uint16_t *shift,
					 uint16_t *out, int n, int tokens, float eps, float *global_scratch,
					 void *profile_scratch)
{
	(void)profile_scratch;
#endif
	extern __shared__ float red[];
	const uint16_t *row = x + (long long)blockIdx.x * n;
	const uint16_t *sc = scale + (long long)(blockIdx.x / tokens) * n, *sh = shift + (long long)(blockIdx.x / tokens) * n;
	float s = 0.0f;
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		s += bf(row[i]);
	float mean = block_sum(s, red) / n;
#ifdef LN_TRITON_STYLE
	if (global_scratch && threadIdx.x == 0)
		global_scratch[blockIdx.x] = mean;
#endif
	float q = 0.0f;
	for (int i = threadIdx.x; i < n; i += blockDim.x) {
		float dv = bf(row[i]) - mean;
		q += dv * dv;
	}
	float rstd = rsqrtf(block_sum(q, red) / n + eps);
	for (int i = threadIdx.x; i < n; i += blockDim.x) {
		float y = bf(to_bf((bf(row[i]) - mean) * rstd));
		float m = bf(to_bf(y * bf(to_bf(1.0f + bf(sc[i])))));
		out[(long long)blockIdx.x * n + i] = to_bf(m + bf(sh[i]));
	}
}
