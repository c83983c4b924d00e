/*
 * test_cuda_kernels.cu - standalone GPU self-test of kernels/cuda: every
 * arm's bytes, checked against a host emulation and against each other,
 * then the real shapes timed.
 *
 * Build (from the repository root; self-contained, the kernels compiled
 * with the Makefile's NVCCFLAGS, host code with -ffp-contract=off so that
 * the host emulation rounds exactly where it says):
 *
 *   mkdir -p build/tests && /usr/local/cuda/bin/nvcc -std=c++17 -O3 -g -lineinfo \
 *     -Xcompiler -Wall,-Wextra,-Werror,-ffp-contract=off -Werror all-warnings \
 *     -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
 *     -DAB_HAVE_CUDA=1 -Ikernels -o build/tests/test_cuda_kernels \
 *     tests/gpu/test_cuda_kernels.cu kernels/cuda/eager_*.cu kernels/cuda/fused_*.cu
 *
 * Run: build/tests/test_cuda_kernels [--no-timing] [--quick]
 *
 * Checks, per site, shape (some with every tensor 8 or 2 bytes past a
 * 16-byte boundary), input distribution and affine flag:
 *   1. eager LayerNorm mean == a host emulation of aten's Welford tree in
 *      float with fmaf (bit for bit; NaN matches NaN);
 *   2. eager rstd within 2^-21 (relative) of 1/sqrt(var + eps) in double
 *      (rsqrtf is the hardware approximation: not reproducible on a CPU);
 *   3. eager ln_out / out == the host chain computed with the host mean and
 *      the device rstd (every bf16 rounding of the chain, bit for bit);
 *   4. every fused variant's output bytes == the eager arm's (outputs are
 *      poisoned with 0xFFC1, a NaN no arm writes, before every run), and a
 *      variant refuses (cudaErrorInvalidValue) exactly the shapes and
 *      pointers fused_variants.cuh says it does; unknown variant numbers
 *      are refused.
 * The "special" distribution also puts special values in the parameters
 * (scale, shift, gate, weight, bias), which the bf16x2 variants compute
 * with directly.
 * Exit status: 0 when every check passed (or "SKIP: no CUDA device"), 1 when
 * one failed, 2 on a CUDA error. Last lines: the timing tables (L2 flushed
 * by a memset of twice the L2 size before each rep, median of 50 reps
 * after 10 warm-ups, CUDA events around the arm): every arm of every timed
 * shape (eager, cudaMemcpy and a 16-byte copy kernel of one activation,
 * AUTO, each variant) with us, GB/s, speedup over eager and time over the
 * copy kernel's; a summary per shape; then "N passed, N failed".
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "bf16.h"
#include "site.h"
#include "site_layout.h"
#include "cuda/cuda_arms.h"
#include "cuda/fused_variants.cuh"

#define CK(call)                                                                                            \
	do {                                                                                                \
		cudaError_t e_ = (call);                                                                    \
		if (e_ != cudaSuccess) {                                                                    \
			fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                \
				cudaGetErrorString(e_));                                                    \
			exit(2);                                                                            \
		}                                                                                           \
	} while (0)

static const uint16_t POISON16 = 0xFFC1; /* a negative NaN with payload: cvt.rn.bf16 never writes it */
static const uint32_t POISON32 = 0xFFC1FFC1u;
static const float EPS = 1e-5f;

static int g_pass, g_fail;

static void report(bool ok, const std::string &name, const std::string &detail)
{
	(ok ? g_pass : g_fail)++;
	printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), detail.empty() ? "" : ": ", detail.c_str());
	fflush(stdout);
}

/* ---- random inputs ---------------------------------------------------- */

struct rng {
	uint64_t s;
};

static uint64_t rng_next(rng &r) /* splitmix64 */
{
	uint64_t z = (r.s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double rng_uniform(rng &r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static double rng_normal(rng &r)
{
	const double u1 = 1.0 - rng_uniform(r), u2 = rng_uniform(r);
	return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

static uint16_t bf(double v)
{
	return bf16_from_float((float)v);
}

enum dist { D_NORMAL, D_OFF1E5, D_OFF1000, D_CONST1000, D_CONST1E5, D_UNIFORM100, D_TINY, D_SPECIAL, D_NEGZERO, D_COUNT };
static const char *dist_name[D_COUNT] = { "normal",  "offset1e5", "offset1000", "const1000", "const1e5",
					  "uniform100", "near1e-30", "special",  "negzero" };

/* Row kinds of the "special" distribution: NaN, +Inf, -Inf, both
 * infinities, +-bf16 max everywhere (sums overflow), subnormals only,
 * normal with 10% subnormals, normal * 1e38 (sigma2 overflows), and one
 * subnormal value s with every 16th element s + 2^-133: the LayerNorm
 * output is then itself subnormal (|x - mean| ~ 2^-137, rstd ~ 316), so
 * the modulate products and sums see subnormal operands and results. */
static void fill_special_row(uint16_t *v, int64_t n, int64_t row, rng &r)
{
	const int kind = (int)(row % 9);
	const uint16_t sub = (uint16_t)(1 + rng_next(r) % 0x70);
	for (int64_t i = 0; i < n; i++) {
		uint16_t h = bf(rng_normal(r));
		if (kind == 4)
			h = (rng_next(r) & 1) ? 0x7F7F : 0xFF7F;
		else if (kind == 5 || (kind == 6 && rng_uniform(r) < 0.1))
			h = (uint16_t)((1 + rng_next(r) % 0x7F) | ((rng_next(r) & 1) ? 0x8000 : 0));
		else if (kind == 7)
			h = bf(rng_normal(r) * 1e38);
		else if (kind == 8)
			h = (uint16_t)(sub + (i % 16 == 5));
		v[i] = h;
	}
	const int64_t at = (int64_t)(rng_next(r) % (uint64_t)n), at2 = (int64_t)(rng_next(r) % (uint64_t)n);
	if (kind == 0)
		v[at] = (rng_next(r) & 1) ? 0x7FC0 : 0xFF81;
	if (kind == 1 || kind == 3)
		v[at] = 0x7F80;
	if (kind == 2 || kind == 3)
		v[kind == 3 ? at2 : at] = 0xFF80;
}

/* Negative zeros: all -0; -0/+0 mixed; -0 with 5% normal values; all +0. */
static void fill_negzero_row(uint16_t *v, int64_t n, int64_t row, rng &r)
{
	const int kind = (int)(row % 4);
	for (int64_t i = 0; i < n; i++) {
		uint16_t h = 0x8000;
		if (kind == 1)
			h = (rng_next(r) & 1) ? 0x8000 : 0x0000;
		else if (kind == 2 && rng_uniform(r) < 0.05)
			h = bf(rng_normal(r));
		else if (kind == 3)
			h = 0x0000;
		v[i] = h;
	}
}

/* Activations, row by row (n values a row). */
static void fill_act(std::vector<uint16_t> &v, int64_t n, dist d, rng &r)
{
	const int64_t rows = (int64_t)v.size() / n;
	for (int64_t row = 0; row < rows; row++) {
		uint16_t *p = v.data() + row * n;
		if (d == D_SPECIAL) {
			fill_special_row(p, n, row, r);
			continue;
		}
		if (d == D_NEGZERO) {
			fill_negzero_row(p, n, row, r);
			continue;
		}
		for (int64_t i = 0; i < n; i++) {
			double x = 0;
			switch (d) {
			case D_NORMAL: x = rng_normal(r); break;
			case D_OFF1E5: x = 1e5 + rng_normal(r); break;
			case D_OFF1000: x = 1000 + rng_normal(r); break;
			case D_CONST1000: x = 1000; break;
			case D_CONST1E5: x = 1e5; break;
			case D_UNIFORM100: x = -100 + 200 * rng_uniform(r); break;
			case D_TINY: x = 1e-30 * rng_normal(r); break;
			default: break;
			}
			p[i] = bf(x);
		}
	}
}

static void fill_param(std::vector<uint16_t> &v, double base, double sd, rng &r)
{
	for (auto &h : v)
		h = bf(base + sd * rng_normal(r));
}

/* Parameters for the "special" distribution: as fill_param, with one entry
 * in 8 replaced by a special value (NaN with and without payloads, +-Inf,
 * +-0, +-subnormals, +-bf16 max, -1 and -1 +- an ulp, so that 1 + scale is
 * 0 or tiny), so that the fused kernels' parameter arithmetic (bf16x2 for
 * the modulate and the gate) meets them too. */
static void fill_param_special(std::vector<uint16_t> &v, double base, double sd, rng &r)
{
	static const uint16_t special[] = { 0x7FC0, 0xFFC1, 0x7F81, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x0001,
					    0x8003, 0x007F, 0x7F7F, 0xFF7F, 0xBF80, 0xBF81, 0xBF7F, 0x0080 };
	fill_param(v, base, sd, r);
	for (auto &h : v)
		if (rng_next(r) % 8 == 0)
			h = special[rng_next(r) % (sizeof special / sizeof special[0])];
}

static void fill_param_for(std::vector<uint16_t> &v, dist d, double base, double sd, rng &r)
{
	if (d == D_SPECIAL)
		fill_param_special(v, base, sd, r);
	else
		fill_param(v, base, sd, r);
}

/* ---- host emulation of aten's LayerNorm statistics ------------------------ */

struct hwf {
	float mean, sigma2, count;
};

/* cuWelfordOnlineSum as nvcc compiles it: 1/n is IEEE, both updates fused. */
static hwf h_online(hwf w, float v)
{
	const float delta = v - w.mean;
	const float count = w.count + 1.f;
	const float r = 1.f / count;
	const float mean = fmaf(r, delta, w.mean);
	const float d2 = v - mean;
	return { mean, fmaf(delta, d2, w.sigma2), count };
}

/* cuWelfordCombine(dataB = own, dataA = other) as nvcc compiles it. */
static hwf h_combine(hwf own, hwf other)
{
	const float delta = own.mean - other.mean;
	const float count = other.count + own.count;
	hwf r = { 0.f, 0.f, count };
	if (count > 0.f) {
		const float coef = 1.f / count;
		const float na = other.count * coef;
		const float nb = own.count * coef;
		const float pb = nb * own.mean;
		r.mean = fmaf(na, other.mean, pb);
		const float dd = delta * delta;
		const float ddc = dd * other.count;
		const float s2 = other.sigma2 + own.sigma2;
		r.sigma2 = fmaf(ddc, nb, s2);
	}
	return r;
}

/* The 128-thread block: thread t folds vectors t, t + 128, ...; each warp
 * folds with shuffle-down (lane i < o takes lane i + o, which for the lanes
 * lane 0 depends on is always inside the warp); then warps 0 + 2, 1 + 3,
 * 0 + 1. Returns mean and var = sigma2 / float(n). */
static void h_row_stats(const uint16_t *row, int64_t n, float *mean, float *var)
{
	hwf th[128];
	for (auto &t : th)
		t = { 0.f, 0.f, 0.f };
	for (int64_t i = 0; i < n / 4; i++)
		for (int k = 0; k < 4; k++)
			th[i % 128] = h_online(th[i % 128], bf16_to_float(row[4 * i + k]));
	hwf ws[4];
	for (int w = 0; w < 4; w++) {
		hwf *lane = th + 32 * w;
		for (int o = 16; o > 0; o /= 2)
			for (int i = 0; i < o; i++)
				lane[i] = h_combine(lane[i], lane[i + o]);
		ws[w] = lane[0];
	}
	ws[0] = h_combine(ws[0], ws[2]);
	ws[1] = h_combine(ws[1], ws[3]);
	ws[0] = h_combine(ws[0], ws[1]);
	*mean = ws[0].mean;
	*var = ws[0].sigma2 / (float)n;
}

static uint32_t fbits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float fl(uint16_t h)
{
	return bf16_to_float(h);
}

/* ---- device buffers --------------------------------------------------- */

struct tensor {
	size_t elems = 0;
	bool f32 = false;
	void *dev = nullptr;  /* base + the case's offset */
	void *base = nullptr; /* what cudaMalloc returned */
	std::vector<uint16_t> h16; /* inputs, or downloaded bf16 outputs */
	std::vector<float> h32;    /* downloaded f32 outputs */
	size_t bytes() const { return elems * (f32 ? 4 : 2); }
};

struct bench_case {
	std::vector<tensor> t;
	site_args args;
};

static void case_init(bench_case &c, int n_tensors, const site_dims &d, bool affine)
{
	c.t.assign(n_tensors, tensor());
	memset(&c.args, 0, sizeof c.args);
	c.args.dims = d;
	c.args.eps = EPS;
	c.args.affine = affine;
}

/* Allocates every tensor `off` bytes past a 256-byte aligned address (off
 * < 16), so that the arms' alignment rules are exercised, and uploads the
 * inputs. */
static void case_alloc(bench_case &c, int64_t off)
{
	for (size_t i = 0; i < c.t.size(); i++) {
		tensor &t = c.t[i];
		if (t.elems == 0)
			continue;
		CK(cudaMalloc(&t.base, t.bytes() + 16));
		t.dev = static_cast<char *>(t.base) + off;
		if (!t.h16.empty() && !t.f32)
			CK(cudaMemcpy(t.dev, t.h16.data(), t.bytes(), cudaMemcpyHostToDevice));
		c.args.t[i] = t.dev;
	}
}

static void case_free(bench_case &c)
{
	for (auto &t : c.t)
		if (t.base)
			CK(cudaFree(t.base));
}

static void poison(tensor &t)
{
	if (t.f32) {
		std::vector<uint32_t> p(t.elems, POISON32);
		CK(cudaMemcpy(t.dev, p.data(), t.bytes(), cudaMemcpyHostToDevice));
	} else {
		std::vector<uint16_t> p(t.elems, POISON16);
		CK(cudaMemcpy(t.dev, p.data(), t.bytes(), cudaMemcpyHostToDevice));
	}
}

static void download(tensor &t)
{
	if (t.f32) {
		t.h32.resize(t.elems);
		CK(cudaMemcpy(t.h32.data(), t.dev, t.bytes(), cudaMemcpyDeviceToHost));
	} else {
		t.h16.resize(t.elems);
		CK(cudaMemcpy(t.h16.data(), t.dev, t.bytes(), cudaMemcpyDeviceToHost));
	}
}

typedef int (*arm_fn)(const site_args *, void *);
typedef int (*variant_fn)(const site_args *, void *, int);

/* Runs an arm to completion; returns its launch code (async errors are fatal). */
static int run_arm(arm_fn fn, variant_fn vfn, int variant, const site_args &a)
{
	const int rc = fn ? fn(&a, nullptr) : vfn(&a, nullptr, variant);
	CK(cudaDeviceSynchronize());
	return rc;
}

/* Mismatch count of two bf16 arrays; the first mismatch into *first. */
static size_t cmp16(const uint16_t *got, const uint16_t *want, size_t n, std::string *first)
{
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		if (got[i] == want[i])
			continue;
		if (bad++ == 0) {
			char b[160];
			snprintf(b, sizeof b, "first at %zu: got 0x%04x (%g) want 0x%04x (%g)", i, got[i], fl(got[i]),
				 want[i], fl(want[i]));
			*first = b;
		}
	}
	return bad;
}

static std::string mismatch_text(const char *what, size_t bad, size_t n, const std::string &first)
{
	char b[128];
	snprintf(b, sizeof b, "%s: %zu of %zu differ, ", what, bad, n);
	return std::string(b) + first;
}

/* ---- LayerNorm statistics checks ------------------------------------- */

/* Host mean/var of every row of x; compares the device mean bit for bit and
 * the device rstd to double precision. Appends failures to err. */
static void check_stats(const std::vector<uint16_t> &x, int64_t n, const std::vector<float> &dmean,
			const std::vector<float> &drstd, std::vector<float> &hmean, const char *what,
			std::string &err)
{
	const size_t rows = x.size() / (size_t)n;
	hmean.resize(rows);
	size_t bad_mean = 0, bad_rstd = 0;
	char first[200] = "";
	for (size_t r = 0; r < rows; r++) {
		float m, v;
		h_row_stats(x.data() + r * n, n, &m, &v);
		hmean[r] = m;
		const bool mean_ok = (std::isnan(m) && std::isnan(dmean[r])) || fbits(m) == fbits(dmean[r]);
		const float ve = v + EPS;
		bool rstd_ok;
		if (std::isnan(ve))
			rstd_ok = std::isnan(drstd[r]);
		else if (std::isinf(ve))
			rstd_ok = drstd[r] == 0.f;
		else
			rstd_ok = std::fabs((double)drstd[r] * std::sqrt((double)ve) - 1.0) <= 0x1.0p-21;
		if (!mean_ok && bad_mean++ == 0 && !first[0])
			snprintf(first, sizeof first, "%s mean row %zu: got %a want %a", what, r, dmean[r], m);
		if (!rstd_ok && bad_rstd++ == 0 && !first[0])
			snprintf(first, sizeof first, "%s rstd row %zu: got %a, var+eps %a", what, r, drstd[r], ve);
	}
	if (bad_mean || bad_rstd) {
		char b[300];
		snprintf(b, sizeof b, "%s: %zu means, %zu rstds wrong (%s); ", what, bad_mean, bad_rstd, first);
		err += b;
	}
}

/* bf16(rstd * (x - mean)), or bf16(fma(g, rstd * (x - mean), b)). */
static uint16_t h_norm(uint16_t x, float mean, float rstd, const uint16_t *g, const uint16_t *b, size_t c)
{
	const float diff = fl(x) - mean;
	const float p = rstd * diff;
	return bf16_from_float(g ? fmaf(fl(g[c]), p, fl(b[c])) : p);
}

/* ---- ln_modulate ------------------------------------------------------- */

struct shape3 {
	int64_t B, T, W;
	int64_t off = 0; /* bytes every tensor is placed past a 256-byte boundary */
};

static std::string shape_str(const int64_t *d, int n, int64_t off = 0)
{
	std::string s;
	for (int i = 0; i < n; i++)
		s += (i ? "x" : "") + std::to_string(d[i]);
	return off ? s + "+off" + std::to_string(off) : s;
}

static void ln_setup(bench_case &c, const shape3 &s, dist di, bool affine, uint64_t seed)
{
	const site_dims d = { s.B, s.T, s.W, s.W, s.B * s.T, 1 };
	case_init(c, LNM_N_TENSORS, d, affine);
	const size_t full = (size_t)(s.B * s.T * s.W), bw = (size_t)(s.B * s.W);
	const size_t elems[LNM_N_TENSORS] = { full, bw, bw, affine ? (size_t)s.W : 0, affine ? (size_t)s.W : 0,
					      full, (size_t)d.rows, (size_t)d.rows, full, bw, full };
	for (int i = 0; i < LNM_N_TENSORS; i++) {
		c.t[i].elems = elems[i];
		c.t[i].f32 = (i == LNM_MEAN || i == LNM_RSTD);
	}
	rng r = { seed }, rp = { seed ^ 0xABCDEF12345ull };
	c.t[LNM_X].h16.resize(full);
	fill_act(c.t[LNM_X].h16, s.W, di, r);
	c.t[LNM_SCALE].h16.resize(bw);
	fill_param_for(c.t[LNM_SCALE].h16, di, 0, 0.5, rp);
	c.t[LNM_SHIFT].h16.resize(bw);
	fill_param_for(c.t[LNM_SHIFT].h16, di, 0, 0.5, rp);
	if (affine) {
		c.t[LNM_WEIGHT].h16.resize(s.W);
		fill_param_for(c.t[LNM_WEIGHT].h16, di, 1, 0.1, rp);
		c.t[LNM_BIAS].h16.resize(s.W);
		fill_param_for(c.t[LNM_BIAS].h16, di, 0, 0.1, rp);
	}
	case_alloc(c, s.off);
}

/* The eager chain on the host, from the host mean and the device rstd. */
static void ln_host_chain(const bench_case &c, const std::vector<float> &hmean, const std::vector<float> &drstd,
			  std::vector<uint16_t> &y, std::vector<uint16_t> &out)
{
	const site_dims &d = c.args.dims;
	const uint16_t *g = c.args.affine ? c.t[LNM_WEIGHT].h16.data() : nullptr;
	const uint16_t *b = c.args.affine ? c.t[LNM_BIAS].h16.data() : nullptr;
	const size_t W = (size_t)d.width;
	y.resize(c.t[LNM_X].elems);
	out.resize(c.t[LNM_X].elems);
	for (size_t row = 0; row < (size_t)d.rows; row++) {
		const size_t batch = row / (size_t)d.tokens;
		for (size_t col = 0; col < W; col++) {
			const size_t i = row * W + col;
			y[i] = h_norm(c.t[LNM_X].h16[i], hmean[row], drstd[row], g, b, col);
			const uint16_t s1 = bf16_from_float(fl(c.t[LNM_SCALE].h16[batch * W + col]) + 1.f);
			const uint16_t z = bf16_from_float(fl(y[i]) * fl(s1));
			out[i] = bf16_from_float(fl(z) + fl(c.t[LNM_SHIFT].h16[batch * W + col]));
		}
	}
}

/* Fused variants to run: auto (the public function), then the forced ones. */
struct variant_spec {
	const char *name;
	int variant; /* for the variant function; AUTO means call the public one */
};

static const variant_spec LN_VARIANTS[] = {
	{ "auto", AB_VARIANT_AUTO }, { "r1", AB_LN_R1 },   { "r2", AB_LN_R2 },   { "generic", AB_LN_GENERIC },
	{ "r1h", AB_LN_R1H },        { "h1", AB_LN_H1 },   { "h2", AB_LN_H2 },   { "h1f", AB_LN_H1F },
	{ "w1", AB_LN_W1 },          { "w4", AB_LN_W4 },   { "w1f", AB_LN_W1F }, { "r1p", AB_LN_R1P },
	{ "h1p", AB_LN_H1P },
};
static const variant_spec QK_VARIANTS[] = {
	{ "auto", AB_VARIANT_AUTO }, { "s1", AB_QK_S1 },     { "s2", AB_QK_S2 },     { "rt1", AB_QK_RT1 },
	{ "rt2", AB_QK_RT2 },        { "x8s2", AB_QK_X8S2 }, { "x8s4", AB_QK_X8S4 }, { "x4s1", AB_QK_X4S1 },
	{ "x4s2", AB_QK_X4S2 },      { "x2s1", AB_QK_X2S1 },
};
static const variant_spec RG_VARIANTS[] = {
	{ "auto", AB_VARIANT_AUTO }, { "r1", AB_RG_R1 }, { "r2", AB_RG_R2 }, { "r4", AB_RG_R4 }, { "r8", AB_RG_R8 },
	{ "h1", AB_RG_H1 },          { "h2", AB_RG_H2 }, { "h4", AB_RG_H4 }, { "p2", AB_RG_P2 }, { "p4", AB_RG_P4 },
};

/* Whether every pointer a variant loads or stores with `bytes`-wide
 * accesses is aligned to that (weight and bias only when affine). */
static bool ptrs_aligned(const site_args &a, std::initializer_list<int> idx, std::initializer_list<int> affine_idx,
			 uintptr_t bytes)
{
	for (int i : idx)
		if ((uintptr_t)a.t[i] % bytes)
			return false;
	if (a.affine)
		for (int i : affine_idx)
			if ((uintptr_t)a.t[i] % bytes)
				return false;
	return true;
}

/* Which shapes and pointers each variant takes, from fused_variants.cuh's
 * comments. */
static bool ln_variant_ok(int v, const site_args &a)
{
	const int64_t W = a.dims.width;
	switch (v) {
	case AB_LN_GENERIC:
		return true;
	case AB_LN_R1:
		return W % 512 == 0 && W / 512 <= 16;
	case AB_LN_R2:
		return W % 512 == 0 && W / 512 <= 8;
	default: { /* the layout kernel: W = 512 V, V in {6, 8, 10}, pointers aligned to its loads */
		const uintptr_t vb = (v == AB_LN_R1H || v == AB_LN_R1P) ? 8 : 16;
		return (W == 3072 || W == 4096 || W == 5120) &&
		       ptrs_aligned(a, { LNM_X, LNM_SCALE, LNM_SHIFT, LNM_OUT }, { LNM_WEIGHT, LNM_BIAS }, vb);
	}
	}
}

static bool qk_variant_ok(int v, const site_args &a)
{
	const int64_t nvec = a.dims.row_len / 4;
	if (v == AB_QK_S1 || v == AB_QK_S2)
		return nvec % 8 == 0;
	if (v == AB_QK_RT1 || v == AB_QK_RT2)
		return true;
	const int lanes = v / 10; /* the 16-byte layouts */
	return nvec % 8 == 0 && nvec % (2 * lanes) == 0 &&
	       ptrs_aligned(a, { QK_Q, QK_K, QK_Q_OUT, QK_K_OUT }, { QK_WEIGHT, QK_BIAS }, 16);
}

/* Runs each fused variant on c, compares tensor out_idx with want. */
template <size_t NV>
static void check_fused(bench_case &c, const variant_spec (&vs)[NV], arm_fn pub, variant_fn vfn,
			bool (*supported)(int, const site_args &), const int *outs, int n_outs,
			const std::vector<uint16_t> *want, std::string &err, std::string &ran)
{
	for (size_t k = 0; k < NV; k++) {
		const int v = vs[k].variant;
		for (int o = 0; o < n_outs; o++)
			poison(c.t[outs[o]]);
		const int rc = run_arm(v == 0 ? pub : nullptr, vfn, v, c.args);
		const bool expect = v == 0 || supported(v, c.args);
		if (rc != 0) {
			if (expect || rc != (int)cudaErrorInvalidValue)
				err += std::string("fused ") + vs[k].name + " returned " + std::to_string(rc) + "; ";
			continue;
		}
		if (!expect) {
			err += std::string("fused ") + vs[k].name + " ran on a shape it should refuse; ";
			continue;
		}
		ran += std::string(ran.empty() ? "" : ",") + vs[k].name;
		for (int o = 0; o < n_outs; o++) {
			download(c.t[outs[o]]);
			std::string first;
			const size_t bad = cmp16(c.t[outs[o]].h16.data(), want[o].data(), want[o].size(), &first);
			if (bad)
				err += mismatch_text((std::string("fused ") + vs[k].name).c_str(), bad, want[o].size(),
						     first) + "; ";
		}
	}
}

static bool always_ok(int, const site_args &)
{
	return true;
}

static void test_ln(const shape3 &s, dist di, bool affine, uint64_t seed)
{
	bench_case c;
	ln_setup(c, s, di, affine, seed);
	const int64_t dims[3] = { s.B, s.T, s.W };
	const std::string name = std::string("ln_modulate ") + shape_str(dims, 3, s.off) + " " + dist_name[di] +
				 " affine=" + (affine ? "1" : "0");
	std::string err, ran;
	for (int i : { (int)LNM_OUT, (int)LNM_MEAN, (int)LNM_RSTD, (int)LNM_LN_OUT, (int)LNM_SCALE1, (int)LNM_MOD_MUL })
		poison(c.t[i]);
	const int rc = run_arm(cuda_ln_modulate_eager, nullptr, 0, c.args);
	if (rc != 0) {
		report(false, name, "eager returned " + std::to_string(rc));
		case_free(c);
		return;
	}
	for (int i : { (int)LNM_OUT, (int)LNM_MEAN, (int)LNM_RSTD, (int)LNM_LN_OUT })
		download(c.t[i]);
	std::vector<float> hmean;
	check_stats(c.t[LNM_X].h16, s.W, c.t[LNM_MEAN].h32, c.t[LNM_RSTD].h32, hmean, "eager", err);
	std::vector<uint16_t> hy, hout;
	ln_host_chain(c, hmean, c.t[LNM_RSTD].h32, hy, hout);
	std::string first;
	size_t bad = cmp16(c.t[LNM_LN_OUT].h16.data(), hy.data(), hy.size(), &first);
	if (bad)
		err += mismatch_text("eager ln_out vs host", bad, hy.size(), first) + "; ";
	bad = cmp16(c.t[LNM_OUT].h16.data(), hout.data(), hout.size(), &first);
	if (bad)
		err += mismatch_text("eager out vs host", bad, hout.size(), first) + "; ";
	const std::vector<uint16_t> want[1] = { c.t[LNM_OUT].h16 };
	const int outs[1] = { LNM_OUT };
	check_fused(c, LN_VARIANTS, cuda_ln_modulate_fused, ab_ln_modulate_fused_variant, ln_variant_ok, outs, 1,
		    want, err, ran);
	report(err.empty(), name, err.empty() ? "eager == host; fused [" + ran + "] == eager" : err);
	case_free(c);
}

/* ---- qk_layernorm ----------------------------------------------------- */

struct shape4 {
	int64_t B, T, H, D;
	int64_t off = 0;
};

static void qk_setup(bench_case &c, const shape4 &s, dist di, bool affine, uint64_t seed)
{
	const site_dims d = { s.B, s.T, s.H * s.D, s.D, s.B * s.T * s.H, s.H };
	case_init(c, QK_N_TENSORS, d, affine);
	const size_t full = (size_t)(s.B * s.T * s.H * s.D), rows = (size_t)d.rows;
	const size_t pv = affine ? (size_t)s.D : 0;
	const size_t elems[QK_N_TENSORS] = { full, full, pv, pv, full, full, rows, rows, rows, rows };
	for (int i = 0; i < QK_N_TENSORS; i++) {
		c.t[i].elems = elems[i];
		c.t[i].f32 = i >= QK_Q_MEAN;
	}
	rng r = { seed }, rp = { seed ^ 0x5151515151ull };
	for (int i : { (int)QK_Q, (int)QK_K }) {
		c.t[i].h16.resize(full);
		fill_act(c.t[i].h16, s.D, di, r);
	}
	if (affine) {
		c.t[QK_WEIGHT].h16.resize(s.D);
		fill_param_for(c.t[QK_WEIGHT].h16, di, 1, 0.1, rp);
		c.t[QK_BIAS].h16.resize(s.D);
		fill_param_for(c.t[QK_BIAS].h16, di, 0, 0.1, rp);
	}
	case_alloc(c, s.off);
}

/* Eager q or k: statistics and output against the host. */
static void qk_check_eager_one(bench_case &c, int in, int out, int mean, int rstd, const char *what,
			       std::string &err)
{
	const int64_t D = c.args.dims.row_len;
	std::vector<float> hmean;
	check_stats(c.t[in].h16, D, c.t[mean].h32, c.t[rstd].h32, hmean, what, err);
	const uint16_t *g = c.args.affine ? c.t[QK_WEIGHT].h16.data() : nullptr;
	const uint16_t *b = c.args.affine ? c.t[QK_BIAS].h16.data() : nullptr;
	std::vector<uint16_t> hy(c.t[in].elems);
	for (size_t i = 0; i < hy.size(); i++)
		hy[i] = h_norm(c.t[in].h16[i], hmean[i / D], c.t[rstd].h32[i / D], g, b, i % D);
	std::string first;
	const size_t bad = cmp16(c.t[out].h16.data(), hy.data(), hy.size(), &first);
	if (bad)
		err += mismatch_text((std::string("eager ") + what + " vs host").c_str(), bad, hy.size(), first) + "; ";
}

static void test_qk(const shape4 &s, dist di, bool affine, uint64_t seed)
{
	bench_case c;
	qk_setup(c, s, di, affine, seed);
	const int64_t dims[4] = { s.B, s.T, s.H, s.D };
	const std::string name = std::string("qk_layernorm ") + shape_str(dims, 4, s.off) + " " + dist_name[di] +
				 " affine=" + (affine ? "1" : "0");
	std::string err, ran;
	for (int i = QK_Q_OUT; i < QK_N_TENSORS; i++)
		poison(c.t[i]);
	const int rc = run_arm(cuda_qk_layernorm_eager, nullptr, 0, c.args);
	if (rc != 0) {
		report(false, name, "eager returned " + std::to_string(rc));
		case_free(c);
		return;
	}
	for (int i = QK_Q_OUT; i < QK_N_TENSORS; i++)
		download(c.t[i]);
	qk_check_eager_one(c, QK_Q, QK_Q_OUT, QK_Q_MEAN, QK_Q_RSTD, "q", err);
	qk_check_eager_one(c, QK_K, QK_K_OUT, QK_K_MEAN, QK_K_RSTD, "k", err);
	const std::vector<uint16_t> want[2] = { c.t[QK_Q_OUT].h16, c.t[QK_K_OUT].h16 };
	const int outs[2] = { QK_Q_OUT, QK_K_OUT };
	check_fused(c, QK_VARIANTS, cuda_qk_layernorm_fused, ab_qk_layernorm_fused_variant, qk_variant_ok, outs, 2,
		    want, err, ran);
	report(err.empty(), name, err.empty() ? "eager == host; fused [" + ran + "] == eager" : err);
	case_free(c);
}

/* ---- residual_gate_add ------------------------------------------------ */

static void rg_setup(bench_case &c, const shape3 &s, dist di, uint64_t seed)
{
	const site_dims d = { s.B, s.T, s.W, s.W, s.B * s.T, 1 };
	case_init(c, RGA_N_TENSORS, d, false);
	const size_t full = (size_t)(s.B * s.T * s.W), bw = (size_t)(s.B * s.W);
	const size_t elems[RGA_N_TENSORS] = { full, full, bw, full, full };
	for (int i = 0; i < RGA_N_TENSORS; i++)
		c.t[i].elems = elems[i];
	rng r = { seed }, rp = { seed ^ 0x77777777ull };
	c.t[RGA_X].h16.resize(full);
	fill_act(c.t[RGA_X].h16, s.W, di, r);
	c.t[RGA_FF].h16.resize(full);
	fill_act(c.t[RGA_FF].h16, s.W, di, r);
	c.t[RGA_GATE].h16.resize(bw);
	fill_param_for(c.t[RGA_GATE].h16, di, 0, 0.5, rp);
	case_alloc(c, s.off);
}

static void test_rg(const shape3 &s, dist di, uint64_t seed)
{
	bench_case c;
	rg_setup(c, s, di, seed);
	const int64_t dims[3] = { s.B, s.T, s.W };
	const std::string name = std::string("residual_gate_add ") + shape_str(dims, 3, s.off) + " " + dist_name[di];
	std::string err, ran;
	poison(c.t[RGA_OUT]);
	poison(c.t[RGA_FF_GATED]);
	const int rc = run_arm(cuda_residual_gate_add_eager, nullptr, 0, c.args);
	if (rc != 0) {
		report(false, name, "eager returned " + std::to_string(rc));
		case_free(c);
		return;
	}
	download(c.t[RGA_OUT]);
	std::vector<uint16_t> hout(c.t[RGA_OUT].elems);
	const size_t W = (size_t)s.W, TW = (size_t)(s.T * s.W);
	for (size_t i = 0; i < hout.size(); i++) {
		const uint16_t t = bf16_from_float(fl(c.t[RGA_FF].h16[i]) * fl(c.t[RGA_GATE].h16[(i / TW) * W + i % W]));
		hout[i] = bf16_from_float(fl(c.t[RGA_X].h16[i]) + fl(t));
	}
	std::string first;
	const size_t bad = cmp16(c.t[RGA_OUT].h16.data(), hout.data(), hout.size(), &first);
	if (bad)
		err += mismatch_text("eager out vs host", bad, hout.size(), first) + "; ";
	const std::vector<uint16_t> want[1] = { c.t[RGA_OUT].h16 };
	const int outs[1] = { RGA_OUT };
	check_fused(c, RG_VARIANTS, cuda_residual_gate_add_fused, ab_residual_gate_add_fused_variant, always_ok, outs,
		    1, want, err, ran);
	report(err.empty(), name, err.empty() ? "eager == host; fused [" + ran + "] == eager" : err);
	case_free(c);
}

/* ---- argument checks -------------------------------------------------- */

/* Bad geometry must come back as cudaErrorInvalidValue, launching nothing. */
static void test_rejects(void)
{
	site_args a;
	memset(&a, 0, sizeof a);
	static uint16_t dummy[8];
	for (int i = 0; i < SITE_MAX_TENSORS; i++)
		a.t[i] = dummy; /* never dereferenced: the checks come first */
	a.eps = EPS;
	a.dims = { 1, 2, 6, 6, 2, 1 }; /* W % 4 != 0 */
	const int r1 = cuda_ln_modulate_fused(&a, nullptr), r2 = cuda_ln_modulate_eager(&a, nullptr);
	a.dims = { 1, 2, 4 * 132, 132, 8, 4 }; /* head_dim 132 > 128 */
	const int r3 = cuda_qk_layernorm_fused(&a, nullptr);
	a.dims = { 1, 2, 8, 8, 3, 1 }; /* rows != B * T */
	const int r4 = cuda_residual_gate_add_fused(&a, nullptr);
	const int want = (int)cudaErrorInvalidValue;
	const bool ok = r1 == want && r2 == want && r3 == want && r4 == want;
	report(ok, "argument checks", "codes " + std::to_string(r1) + " " + std::to_string(r2) + " " +
					      std::to_string(r3) + " " + std::to_string(r4) + " (want 1)");
	CK(cudaGetLastError());

	/* Variant numbers no kernel answers to, on shapes every real variant
	 * takes (16-byte aligned host pointers: a variant that wrongly accepted
	 * one would fault, and CK would stop the test). */
	alignas(16) static uint16_t aligned[8];
	for (int i = 0; i < SITE_MAX_TENSORS; i++)
		a.t[i] = aligned;
	std::string bad;
	a.dims = { 1, 2, 4096, 4096, 2, 1 };
	for (int v : { 12, -2, 99 })
		if (ab_ln_modulate_fused_variant(&a, nullptr, v) != want)
			bad += " ln " + std::to_string(v);
	for (int v : { 3, 5, 9, 31, -1 })
		if (ab_residual_gate_add_fused_variant(&a, nullptr, v) != want)
			bad += " gate " + std::to_string(v);
	a.dims = { 1, 2, 4 * 128, 128, 8, 4 };
	for (int v : { 3, 40, 83, 22 })
		if (ab_qk_layernorm_fused_variant(&a, nullptr, v) != want)
			bad += " qk " + std::to_string(v);
	CK(cudaDeviceSynchronize());
	report(bad.empty(), "unknown variant numbers", bad.empty() ? "all refused" : "accepted:" + bad);
}

/* ---- timing ----------------------------------------------------------- */

struct timer {
	cudaStream_t s;
	cudaEvent_t e0, e1;
	void *flush;
	size_t flush_bytes;
};

/* Median time in us of fn over 50 reps after 10 warm-ups, L2 flushed before each. */
template <typename F>
static double time_us(timer &tm, F fn)
{
	std::vector<float> ms;
	for (int rep = 0; rep < 60; rep++) {
		CK(cudaMemsetAsync(tm.flush, rep & 0xff, tm.flush_bytes, tm.s));
		CK(cudaEventRecord(tm.e0, tm.s));
		const int rc = fn();
		CK(cudaEventRecord(tm.e1, tm.s));
		CK(cudaEventSynchronize(tm.e1));
		if (rc != 0) {
			fprintf(stderr, "timed arm returned %d\n", rc);
			exit(2);
		}
		float t;
		CK(cudaEventElapsedTime(&t, tm.e0, tm.e1));
		if (rep >= 10)
			ms.push_back(t);
	}
	std::sort(ms.begin(), ms.end());
	return 1e3 * 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
}

/* A streaming copy written like the fused kernels (16-byte .cs loads and
 * stores, 4 in flight per thread, one wave of 256-thread blocks looping):
 * what a kernel that only moves the bytes reaches at this size, next to
 * cudaMemcpy's own kernel. */
__global__ void ab_test_copy16_kernel(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n)
{
	const size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	for (; i + 3 * stride < n; i += 4 * stride) {
		const uint4 a = __ldcs(src + i), b = __ldcs(src + i + stride), c = __ldcs(src + i + 2 * stride),
			    d = __ldcs(src + i + 3 * stride);
		__stcs(dst + i, a);
		__stcs(dst + i + stride, b);
		__stcs(dst + i + 2 * stride, c);
		__stcs(dst + i + 3 * stride, d);
	}
	for (; i < n; i += stride)
		__stcs(dst + i, __ldcs(src + i));
}

static int copy16(const void *src, void *dst, size_t bytes, cudaStream_t s)
{
	static int blocks;
	if (blocks == 0) {
		int dev, sms;
		CK(cudaGetDevice(&dev));
		CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
		blocks = 8 * sms;
	}
	ab_test_copy16_kernel<<<blocks, 256, 0, s>>>(static_cast<const uint4 *>(src), static_cast<uint4 *>(dst),
						     bytes / 16);
	return (int)cudaGetLastError();
}

/* One line of the final table: an arm (eager, a fused variant, a copy) at
 * one site and shape. bytes: what it must move at the least. */
struct timing_line {
	std::string site, shape, arm;
	double us, bytes;
};

/* Per site and shape: the summary row. */
struct timing_row {
	std::string site, shape;
	double eager, fused, copy, bytes, pytorch;
};

/* Times eager, the public fused arm, each forced variant, cudaMemcpy and
 * the copy kernel on one activation; appends every line to `lines` and
 * returns the summary row. */
template <size_t NV>
static timing_row time_site(timer &tm, bench_case &c, const char *site, const std::string &shape, arm_fn eager,
			    arm_fn fused, variant_fn vfn, const variant_spec (&vs)[NV], double bytes,
			    double pytorch_us, int copy_src, int copy_dst, std::vector<timing_line> &lines)
{
	timing_row row = { site, shape, 0, 0, 0, bytes, pytorch_us };
	const site_args &a = c.args;
	row.eager = time_us(tm, [&] { return eager(&a, tm.s); });
	row.fused = time_us(tm, [&] { return fused(&a, tm.s); });
	const size_t cb = c.t[copy_src].bytes();
	row.copy = time_us(tm, [&] {
		return (int)cudaMemcpyAsync(c.t[copy_dst].dev, c.t[copy_src].dev, cb, cudaMemcpyDeviceToDevice, tm.s);
	});
	const double copy_kernel = time_us(tm, [&] { return copy16(c.t[copy_src].dev, c.t[copy_dst].dev, cb, tm.s); });
	lines.push_back({ site, shape, "eager", row.eager, bytes });
	lines.push_back({ site, shape, "memcpy 1 act", row.copy, 2.0 * (double)cb });
	lines.push_back({ site, shape, "copy16 1 act", copy_kernel, 2.0 * (double)cb });
	lines.push_back({ site, shape, "fused auto", row.fused, bytes });
	for (size_t k = 1; k < NV; k++) {
		const int v = vs[k].variant;
		const std::string arm = std::string("fused ") + vs[k].name;
		if (vfn(&a, tm.s, v) != 0) { /* refused: not for this shape */
			CK(cudaStreamSynchronize(tm.s));
			lines.push_back({ site, shape, arm, NAN, bytes });
			continue;
		}
		CK(cudaStreamSynchronize(tm.s));
		lines.push_back({ site, shape, arm, time_us(tm, [&] { return vfn(&a, tm.s, v); }), bytes });
	}
	printf("TIME %s %s done (%zu variants)\n", site, shape.c_str(), NV - 1);
	fflush(stdout);
	return row;
}

static void timing(std::vector<timing_row> &rows, std::vector<timing_line> &lines)
{
	timer tm;
	CK(cudaStreamCreateWithFlags(&tm.s, cudaStreamNonBlocking));
	CK(cudaEventCreate(&tm.e0));
	CK(cudaEventCreate(&tm.e1));
	int dev, l2 = 0;
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
	tm.flush_bytes = 2 * (size_t)std::max(l2, 8 << 20);
	CK(cudaMalloc(&tm.flush, tm.flush_bytes));

	for (const shape3 &s : { shape3{ 1, 4096, 4096 }, shape3{ 1, 264, 4096 } }) {
		bench_case c;
		ln_setup(c, s, D_NORMAL, false, 42);
		const int64_t d[3] = { s.B, s.T, s.W };
		const double n = (double)(s.B * s.T * s.W);
		rows.push_back(time_site(tm, c, "ln_modulate", shape_str(d, 3), cuda_ln_modulate_eager,
					 cuda_ln_modulate_fused, ab_ln_modulate_fused_variant, LN_VARIANTS,
					 4.0 * n + 4.0 * (double)(s.B * s.W), s.T == 4096 ? 123.4 : 24.9, LNM_X,
					 LNM_MOD_MUL, lines));
		case_free(c);
	}
	for (bool affine : { false, true }) {
		const shape4 s = { 1, 4360, 32, 128 };
		bench_case c;
		qk_setup(c, s, D_NORMAL, affine, 43);
		const int64_t d[4] = { s.B, s.T, s.H, s.D };
		const double n = (double)(s.B * s.T * s.H * s.D);
		rows.push_back(time_site(tm, c, affine ? "qk_layernorm aff" : "qk_layernorm", shape_str(d, 4),
					 cuda_qk_layernorm_eager, cuda_qk_layernorm_fused,
					 ab_qk_layernorm_fused_variant, QK_VARIANTS, 8.0 * n, affine ? 0 : 304.4, QK_Q,
					 QK_Q_OUT, lines));
		case_free(c);
	}
	for (const shape3 &s : { shape3{ 1, 4096, 4096 }, shape3{ 1, 264, 4096 } }) {
		bench_case c;
		rg_setup(c, s, D_NORMAL, 44);
		const int64_t d[3] = { s.B, s.T, s.W };
		const double n = (double)(s.B * s.T * s.W);
		rows.push_back(time_site(tm, c, "residual_gate_add", shape_str(d, 3), cuda_residual_gate_add_eager,
					 cuda_residual_gate_add_fused, ab_residual_gate_add_fused_variant, RG_VARIANTS,
					 6.0 * n + 2.0 * (double)(s.B * s.W), s.T == 4096 ? 73.0 : 0, RGA_X,
					 RGA_FF_GATED, lines));
		case_free(c);
	}
	CK(cudaFree(tm.flush));
	CK(cudaEventDestroy(tm.e0));
	CK(cudaEventDestroy(tm.e1));
	CK(cudaStreamDestroy(tm.s));
}

/* The tables, printed last: every arm of every timed shape (time, GB/s of
 * the bytes it must move, speedup over eager, time over the copy kernel's),
 * then one summary row per shape. */
static void print_table(const std::vector<timing_row> &rows, const std::vector<timing_line> &lines)
{
	printf("\n%-18s %-16s %-14s %9s %8s %8s %8s\n", "site", "shape", "arm", "us", "GB/s", "x_eager",
	       "/copy16");
	for (const timing_line &l : lines) {
		double eager = NAN, copy = NAN;
		for (const timing_line &o : lines)
			if (o.site == l.site && o.shape == l.shape) {
				if (o.arm == "eager")
					eager = o.us;
				if (o.arm == "copy16 1 act")
					copy = o.us;
			}
		if (std::isnan(l.us)) {
			printf("%-18s %-16s %-14s %9s\n", l.site.c_str(), l.shape.c_str(), l.arm.c_str(), "n/a");
			continue;
		}
		printf("%-18s %-16s %-14s %9.2f %8.0f %7.2fx %8.2f\n", l.site.c_str(), l.shape.c_str(), l.arm.c_str(),
		       l.us, l.bytes / l.us * 1e-3, eager / l.us, l.us / copy);
	}
	printf("\n%-18s %-16s %10s %10s %8s %10s %9s %12s\n", "site", "shape", "eager_us", "fused_us", "speedup",
	       "fused_GB/s", "copy_us", "eager/torch");
	for (const timing_row &r : rows) {
		char ratio[32] = "n/a";
		if (r.pytorch > 0)
			snprintf(ratio, sizeof ratio, "%.2f%s", r.eager / r.pytorch,
				 std::fabs(r.eager / r.pytorch - 1) > 0.15 ? " (>15%)" : "");
		printf("%-18s %-16s %10.2f %10.2f %7.2fx %10.0f %9.2f %12s\n", r.site.c_str(), r.shape.c_str(),
		       r.eager, r.fused, r.eager / r.fused, r.bytes / r.fused * 1e-3, r.copy, ratio);
	}
	printf("\n");
}

/* ---- main ------------------------------------------------------------- */

static bool device_ready(void)
{
	int n = 0;
	const cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0) {
		printf("SKIP: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
		return false;
	}
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	if (p.major < 9) {
		printf("SKIP: no CUDA device (device 0 '%s' is sm_%d%d; these kernels are built for sm_90)\n", p.name,
		       p.major, p.minor);
		return false;
	}
	printf("device 0: %s, sm_%d%d, %d SMs, L2 %d MB\n", p.name, p.major, p.minor, p.multiProcessorCount,
	       p.l2CacheSize >> 20);
	return true;
}

static void correctness(bool quick)
{
	/* +off: every tensor 8 (2) bytes past a 16-byte boundary, so that the
	 * 16-byte (8-byte) variants must refuse and the others still match. */
	const shape3 ln_shapes[] = { { 1, 4096, 4096 }, { 1, 264, 4096 }, { 1, 7, 12 },    { 2, 33, 3072 },
				     { 1, 17, 5120 },   { 1, 1, 4096 },   { 3, 5, 8 },     { 2, 9, 4096, 8 } };
	const shape4 qk_shapes[] = { { 1, 4360, 32, 128 }, { 1, 9, 4, 64 }, { 1, 9, 4, 96 },
				     { 2, 3, 1, 4 },       { 1, 9, 4, 32 }, { 1, 9, 4, 128, 8 } };
	const shape3 rg_shapes[] = { { 1, 4096, 4096 }, { 1, 264, 4096 }, { 1, 3, 8 },
				     { 1, 5, 12 },      { 2, 3, 8, 2 },   { 1, 7, 4096, 8 } };
	uint64_t seed = 1;
	test_rejects();
	for (int di = 0; di < D_COUNT; di++) {
		const bool big_ok = !quick || di == D_NORMAL || di == D_SPECIAL;
		for (const shape3 &s : ln_shapes)
			for (bool affine : { false, true })
				if (big_ok || s.B * s.T * s.W < (1 << 22))
					test_ln(s, (dist)di, affine, seed++);
		for (const shape4 &s : qk_shapes)
			for (bool affine : { false, true })
				if (big_ok || s.B * s.T * s.H * s.D < (1 << 22))
					test_qk(s, (dist)di, affine, seed++);
		for (const shape3 &s : rg_shapes)
			if (big_ok || s.B * s.T * s.W < (1 << 22))
				test_rg(s, (dist)di, seed++);
	}
}

int main(int argc, char **argv)
{
	bool timing_on = true, quick = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-timing"))
			timing_on = false;
		else if (!strcmp(argv[i], "--quick"))
			quick = true;
		else {
			fprintf(stderr, "usage: %s [--no-timing] [--quick]\n", argv[0]);
			return 2;
		}
	}
	if (!device_ready())
		return 0;
	correctness(quick);
	std::vector<timing_row> rows;
	std::vector<timing_line> lines;
	if (timing_on)
		timing(rows, lines);
	if (!rows.empty())
		print_table(rows, lines);
	printf("%d passed, %d failed\n", g_pass, g_fail);
	return g_fail ? 1 : 0;
}
