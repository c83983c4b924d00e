/*
 * test_cuda_kernels.cu - standalone GPU self-test of the CUDA arms: every
 * shipped variant's bytes, checked against a host emulation and against
 * each other. It measures no time: winners are picked with abbench's own
 * A/B/A runs (scenarios/tuning_glm_*.ini, scripts/gpu/kernels.sh).
 *
 * Built by `make` (build/gpu/test_cuda_kernels) from this file and the very
 * kernel objects abbench is linked from; the host code here is compiled
 * with -ffp-contract=off so that the host emulation rounds exactly where it
 * says.
 *
 * Run: build/gpu/test_cuda_kernels [--quick]
 *
 * Checks, per site of the registry, shape (some with every tensor 8 or 2
 * bytes past a 16-byte boundary), input distribution and affine flag:
 *   1. eager LayerNorm mean == a host emulation of aten's Welford tree in
 *      float with fmaf (bit for bit; NaN matches NaN);
 *   2. eager rstd within 2^-21 (relative) of 1/sqrt(var + eps) in double
 *      (rsqrtf is the hardware approximation: not reproducible on a CPU);
 *   3. eager outputs and intermediates == the host chain computed with the
 *      host mean and the device rstd (every bf16 rounding, bit for bit);
 *   4. every variant the site lists as `fused` or `fused.<tuning>` (what
 *      `abbench sites` shows) writes output bytes equal to the eager arm's
 *      (outputs are poisoned with 0xFFC1, a NaN no arm writes, before every
 *      run), and refuses (cudaErrorInvalidValue) exactly the shapes and
 *      pointers its rule below says; `fused` itself refuses nothing the
 *      site's shape rule accepts.
 * The "special" distribution also puts special values in the parameters
 * (scale, shift, gate, weight, bias), which the bf16x2 tunings compute
 * with directly.
 * Exit status: 0 when every check passed (or "SKIP: no CUDA device"), 1 when
 * one failed, 2 on a CUDA error. Last line: "N passed, N failed".
 */
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "kernels/common/bf16.h"
#include "kernels/common/site.h"
#include "kernels/ln_modulate/ln_modulate.h"
#include "kernels/qk_layernorm/qk_layernorm.h"
#include "kernels/residual_gate_add/residual_gate_add.h"

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

/* ---- a case: a site's tensors on the device --------------------------- */

struct tensor {
	size_t elems = 0;
	bool f32 = false;
	void *dev = nullptr;  /* base + the case's offset */
	void *base = nullptr; /* what cudaMalloc returned */
	std::vector<uint16_t> h16; /* inputs, or downloaded bf16 outputs */
	std::vector<float> h32;    /* downloaded f32 outputs */
	size_t bytes() const { return elems * (f32 ? 4 : 2); }
};

struct gpu_case {
	const site_desc *site;
	std::vector<tensor> t;
	site_args args;
};

/* Inputs by the site's tensor table: activations from the distribution,
 * row by row; parameters as the harness draws them (modulation N(0, 0.5),
 * weight 1 + N(0, 0.1), bias N(0, 0.1)), with special values mixed in for
 * the special distribution. Every tensor is placed `off` bytes past a
 * 256-byte boundary (off < 16), so that the tunings' alignment rules are
 * exercised. */
static void case_setup(gpu_case &c, const site_desc *s, const site_dims &d, dist di, bool affine, uint64_t seed,
		       int64_t off)
{
	c.site = s;
	c.t.assign(s->n_tensors, tensor());
	memset(&c.args, 0, sizeof c.args);
	c.args.dims = d;
	c.args.eps = EPS;
	c.args.affine = affine;
	rng r = { seed }, rp = { seed ^ 0xABCDEF12345ull };
	for (int i = 0; i < s->n_tensors; i++) {
		const site_tensor &st = s->tensors[i];
		tensor &t = c.t[i];
		if (!site_tensor_present(&st, affine))
			continue;
		t.elems = (size_t)site_tensor_elems(&st, &d);
		t.f32 = st.dtype == SITE_F32;
		if (st.role == SITE_IN_ACT) {
			t.h16.resize(t.elems);
			fill_act(t.h16, d.row_len, di, r);
		} else if (st.role == SITE_IN_PARAM) {
			t.h16.resize(t.elems);
			const double base = st.param == SITE_PARAM_WEIGHT ? 1.0 : 0.0;
			const double sd = st.param == SITE_PARAM_MODULATION ? 0.5 : 0.1;
			fill_param_for(t.h16, di, base, sd, rp);
		}
		CK(cudaMalloc(&t.base, t.bytes() + 16));
		t.dev = static_cast<char *>(t.base) + off;
		if (!t.h16.empty())
			CK(cudaMemcpy(t.dev, t.h16.data(), t.bytes(), cudaMemcpyHostToDevice));
		c.args.t[i] = t.dev;
	}
}

static void case_free(gpu_case &c)
{
	for (auto &t : c.t)
		if (t.base)
			CK(cudaFree(t.base));
}

static bool written(const gpu_case &c, int i)
{
	const site_role r = c.site->tensors[i].role;
	return c.t[i].dev && r != SITE_IN_ACT && r != SITE_IN_PARAM;
}

static void poison_outputs(gpu_case &c)
{
	for (int i = 0; i < c.site->n_tensors; i++) {
		if (!written(c, i))
			continue;
		tensor &t = c.t[i];
		if (t.f32) {
			std::vector<uint32_t> p(t.elems, POISON32);
			CK(cudaMemcpy(t.dev, p.data(), t.bytes(), cudaMemcpyHostToDevice));
		} else {
			std::vector<uint16_t> p(t.elems, POISON16);
			CK(cudaMemcpy(t.dev, p.data(), t.bytes(), cudaMemcpyHostToDevice));
		}
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

/* A variant's CUDA launcher (its code filed under SITE_IMPL_CUDA),
 * nullptr when it has none. */
static site_cuda_launch_fn launcher(const site_variant *v)
{
	const auto *impl = static_cast<const site_cuda_impl *>(site_variant_impl(v, SITE_IMPL_CUDA));
	return impl ? impl->launch : nullptr;
}

/* Poisons, runs a variant to completion, downloads what it writes; returns
 * its launch code (asynchronous errors are fatal). */
static int run_variant(gpu_case &c, const site_variant *v)
{
	poison_outputs(c);
	const int rc = launcher(v)(&c.args, nullptr);
	CK(cudaDeviceSynchronize());
	if (rc == 0)
		for (int i = 0; i < c.site->n_tensors; i++)
			if (written(c, i))
				download(c.t[i]);
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

static std::string mismatch_text(const std::string &what, size_t bad, size_t n, const std::string &first)
{
	char b[128];
	snprintf(b, sizeof b, ": %zu of %zu differ, ", bad, n);
	return what + b + first + "; ";
}

static void expect_equal16(const std::vector<uint16_t> &got, const std::vector<uint16_t> &want, const std::string &what,
			   std::string &err)
{
	std::string first;
	const size_t bad = cmp16(got.data(), want.data(), want.size(), &first);
	if (bad)
		err += mismatch_text(what, bad, want.size(), first);
}

/* ---- eager arm vs the host ---------------------------------------------- */

/* ln_modulate / ln_continuous: statistics, ln_out and out against the host
 * chain computed from the host mean and the device rstd. */
static void ln_check_eager(gpu_case &c, std::string &err)
{
	const site_dims &d = c.args.dims;
	std::vector<float> hmean;
	check_stats(c.t[LNM_X].h16, d.width, c.t[LNM_MEAN].h32, c.t[LNM_RSTD].h32, hmean, "eager", err);
	const uint16_t *g = c.args.affine ? c.t[LNM_WEIGHT].h16.data() : nullptr;
	const uint16_t *b = c.args.affine ? c.t[LNM_BIAS].h16.data() : nullptr;
	const size_t W = (size_t)d.width;
	std::vector<uint16_t> y(c.t[LNM_X].elems), out(c.t[LNM_X].elems);
	for (size_t row = 0; row < (size_t)d.rows; row++) {
		const size_t batch = row / (size_t)d.tokens;
		for (size_t col = 0; col < W; col++) {
			const size_t i = row * W + col;
			y[i] = h_norm(c.t[LNM_X].h16[i], hmean[row], c.t[LNM_RSTD].h32[row], g, b, col);
			const uint16_t s1 = bf16_from_float(fl(c.t[LNM_SCALE].h16[batch * W + col]) + 1.f);
			const uint16_t z = bf16_from_float(fl(y[i]) * fl(s1));
			out[i] = bf16_from_float(fl(z) + fl(c.t[LNM_SHIFT].h16[batch * W + col]));
		}
	}
	expect_equal16(c.t[LNM_LN_OUT].h16, y, "eager ln_out vs host", err);
	expect_equal16(c.t[LNM_OUT].h16, out, "eager out vs host", err);
}

static void qk_check_one(gpu_case &c, int in, int out, int mean, int rstd, const char *what, std::string &err)
{
	const int64_t D = c.args.dims.row_len;
	std::vector<float> hmean;
	check_stats(c.t[in].h16, D, c.t[mean].h32, c.t[rstd].h32, hmean, what, err);
	const uint16_t *g = c.args.affine ? c.t[QK_WEIGHT].h16.data() : nullptr;
	const uint16_t *b = c.args.affine ? c.t[QK_BIAS].h16.data() : nullptr;
	std::vector<uint16_t> hy(c.t[in].elems);
	for (size_t i = 0; i < hy.size(); i++)
		hy[i] = h_norm(c.t[in].h16[i], hmean[i / D], c.t[rstd].h32[i / D], g, b, i % D);
	expect_equal16(c.t[out].h16, hy, std::string("eager ") + what + " vs host", err);
}

static void qk_check_eager(gpu_case &c, std::string &err)
{
	qk_check_one(c, QK_Q, QK_Q_OUT, QK_Q_MEAN, QK_Q_RSTD, "q", err);
	qk_check_one(c, QK_K, QK_K_OUT, QK_K_MEAN, QK_K_RSTD, "k", err);
}

static void gate_check_eager(gpu_case &c, std::string &err)
{
	const site_dims &d = c.args.dims;
	std::vector<uint16_t> hout(c.t[RGA_OUT].elems);
	const size_t W = (size_t)d.width, TW = (size_t)(d.tokens * d.width);
	for (size_t i = 0; i < hout.size(); i++) {
		const uint16_t t = bf16_from_float(fl(c.t[RGA_FF].h16[i]) * fl(c.t[RGA_GATE].h16[(i / TW) * W + i % W]));
		hout[i] = bf16_from_float(fl(c.t[RGA_X].h16[i]) + fl(t));
	}
	expect_equal16(c.t[RGA_OUT].h16, hout, "eager out vs host", err);
}

/* ---- which shapes and pointers each tuning takes ------------------------ */

/* Whether every pointer the tuning loads or stores with `bytes`-wide
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

static bool ln_layout_ok(const site_args &a, uintptr_t vb)
{
	const int64_t W = a.dims.width;
	return (W == 3072 || W == 4096 || W == 5120) &&
	       ptrs_aligned(a, { LNM_X, LNM_SCALE, LNM_SHIFT, LNM_OUT }, { LNM_WEIGHT, LNM_BIAS }, vb);
}

static bool qk_x16_ok(const site_args &a, int lanes)
{
	const int64_t nvec = a.dims.row_len / 4;
	return nvec % 8 == 0 && nvec % (2 * lanes) == 0 &&
	       ptrs_aligned(a, { QK_Q, QK_K, QK_Q_OUT, QK_K_OUT }, { QK_WEIGHT, QK_BIAS }, 16);
}

/* The rule of each shipped tuning, from its summary in the site's
 * site.c. `fused` takes every shape the site's rule accepts; a variant
 * without a rule here must too (a new tuning that refuses shapes needs its
 * rule added). */
static bool variant_takes(const site_desc *s, const char *v, const site_args &a)
{
	const std::string site = s->name, var = v;
	const bool ln = site == "ln_modulate" || site == "ln_continuous";
	if (ln && var == "fused.pf8")
		return ln_layout_ok(a, 8);
	if (ln && var == "fused.r1")
		return a.dims.width % 512 == 0 && a.dims.width / 512 <= 16;
	if (site == "qk_layernorm" && var == "fused.s2")
		return (a.dims.row_len / 4) % 8 == 0;
	if (site == "qk_layernorm" && var == "fused.x8s2d")
		return qk_x16_ok(a, 8);
	return true;
}

/* ---- one case ----------------------------------------------------------- */

/* Eager against the host, then every fused variant against eager. */
static void test_case(const site_desc *s, const site_shape &sh, int64_t off, dist di, bool affine, uint64_t seed)
{
	site_dims d;
	char why[256];
	char shape[64];
	site_format_shape(&sh, shape, sizeof shape);
	std::string name = std::string(s->name) + " " + shape + (off ? "+off" + std::to_string(off) : "") + " " +
			   dist_name[di] + " affine=" + (affine ? "1" : "0");
	if (!s->geometry(&sh, &d, why, sizeof why)) {
		report(false, name, std::string("the site rejects the shape: ") + why);
		return;
	}
	gpu_case c;
	case_setup(c, s, d, di, affine, seed, off);
	std::string err, ran;
	const site_variant *eager = site_find_variant(s, "eager");
	const int rc = run_variant(c, eager);
	if (rc != 0) {
		report(false, name, "eager returned " + std::to_string(rc));
		case_free(c);
		return;
	}
	if (!strcmp(s->name, "qk_layernorm"))
		qk_check_eager(c, err);
	else if (!strcmp(s->name, "residual_gate_add"))
		gate_check_eager(c, err);
	else
		ln_check_eager(c, err);
	std::vector<std::vector<uint16_t>> want;
	std::vector<int> outs;
	for (int i = 0; i < s->n_tensors; i++)
		if (s->tensors[i].role == SITE_OUT) {
			outs.push_back(i);
			want.push_back(c.t[i].h16);
		}
	for (int k = 0; k < s->n_variants; k++) {
		const site_variant *v = &s->variants[k];
		if (strncmp(v->name, "fused", 5) != 0 || (v->name[5] != '\0' && v->name[5] != '.'))
			continue;
		if (!launcher(v)) {
			err += std::string(v->name) + " has no CUDA launcher in a CUDA build; ";
			continue;
		}
		const bool expect = variant_takes(s, v->name, c.args);
		const int vrc = run_variant(c, v);
		if (vrc != 0) {
			if (expect || vrc != (int)cudaErrorInvalidValue)
				err += std::string(v->name) + " returned " + std::to_string(vrc) + "; ";
			continue;
		}
		if (!expect) {
			err += std::string(v->name) + " ran on a shape or pointer it should refuse; ";
			continue;
		}
		ran += std::string(ran.empty() ? "" : ",") + v->name;
		for (size_t o = 0; o < outs.size(); o++)
			expect_equal16(c.t[outs[o]].h16, want[o],
				       std::string(v->name) + " " + s->tensors[outs[o]].name + " vs eager", err);
	}
	report(err.empty(), name, err.empty() ? "eager == host; [" + ran + "] == eager" : err);
	case_free(c);
}

/* ---- argument checks -------------------------------------------------- */

/* Bad geometry must come back as cudaErrorInvalidValue from every arm of
 * the site, launching nothing. */
static void test_rejects(void)
{
	static uint16_t dummy[8];
	struct bad {
		const char *site;
		site_dims d;
	} bads[] = {
		{ "ln_modulate", { 1, 2, 6, 6, 2, 1, 0, {} } },          /* W % 4 != 0 */
		{ "qk_layernorm", { 1, 2, 4 * 132, 132, 8, 4, 0, {} } }, /* head_dim 132 > 128 */
		{ "residual_gate_add", { 1, 2, 8, 8, 3, 1, 0, {} } },    /* rows != B * T */
	};
	std::string bad_arms;
	for (const auto &b : bads) {
		const site_desc *s = site_find(b.site);
		site_args a;
		memset(&a, 0, sizeof a);
		for (int i = 0; i < SITE_MAX_TENSORS; i++)
			a.t[i] = dummy; /* never dereferenced: the checks come first */
		a.eps = EPS;
		a.dims = b.d;
		for (int k = 0; k < s->n_variants; k++)
			if (launcher(&s->variants[k]) && launcher(&s->variants[k])(&a, nullptr) != (int)cudaErrorInvalidValue)
				bad_arms += std::string(" ") + b.site + "/" + s->variants[k].name;
	}
	CK(cudaDeviceSynchronize());
	report(bad_arms.empty(), "argument checks", bad_arms.empty() ? "every arm refused" : "accepted:" + bad_arms);
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

/* Shapes per site; "+8" / "+2": every tensor that many bytes past a 16-byte
 * boundary (16-byte or 8-byte tunings must refuse, the rest must match). */
struct site_shapes {
	const char *site;
	std::vector<const char *> shapes;
	bool affine;
};

static const site_shapes SHAPES[] = {
	{ "ln_modulate",
	  { "1x4096x4096", "1x264x4096", "1x7x12", "2x33x3072", "1x17x5120", "1x1x4096", "3x5x8", "2x9x4096+8",
	    "1x9x1024" },
	  true },
	{ "ln_continuous", { "1x64x4096", "1x7x12" }, false },
	{ "qk_layernorm",
	  { "1x4360x32x128", "1x9x4x64", "1x9x4x96", "2x3x1x4", "1x9x4x32", "1x9x4x128+8", "1x5x3x12" }, true },
	{ "residual_gate_add", { "1x4096x4096", "1x264x4096", "1x3x8", "1x5x12", "2x3x8+2", "1x7x4096+8" }, false },
};

static void correctness(bool quick)
{
	uint64_t seed = 1;
	test_rejects();
	for (int di = 0; di < D_COUNT; di++) {
		const bool big_ok = !quick || di == D_NORMAL || di == D_SPECIAL;
		for (const site_shapes &ss : SHAPES) {
			const site_desc *s = site_find(ss.site);
			if (!s) {
				report(false, ss.site, "not in the registry");
				continue;
			}
			for (const char *text : ss.shapes) {
				std::string shape = text;
				int64_t off = 0;
				const size_t plus = shape.find('+');
				if (plus != std::string::npos) {
					off = atoll(shape.c_str() + plus + 1);
					shape.resize(plus);
				}
				site_shape sh;
				if (!site_parse_shape(shape.c_str(), &sh)) {
					report(false, text, "bad shape in the test table");
					continue;
				}
				int64_t n = 1;
				for (int i = 0; i < sh.rank; i++)
					n *= sh.dim[i];
				if (!big_ok && n >= (1 << 22))
					continue;
				for (bool affine : { false, true })
					if (!affine || ss.affine)
						test_case(s, sh, off, (dist)di, affine, seed++);
			}
		}
	}
}

int main(int argc, char **argv)
{
	bool quick = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else {
			fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
			return 2;
		}
	}
	if (!device_ready())
		return 0;
	correctness(quick);
	printf("%d passed, %d failed\n", g_pass, g_fail);
	return g_fail ? 1 : 0;
}
