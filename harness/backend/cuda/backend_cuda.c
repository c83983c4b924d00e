/*
 * backend_cuda.c - the CUDA backend's ops (backend.h): open and close,
 * device memory, one non-blocking stream, cases, slots and samples, the
 * copy floor's methods, NVTX ranges, the run's notes. A sample is one
 * timed span of events (cuda_span.c) or, with timing = graph, a replay of
 * the slot's captured arm (cuda_graph.c); at open the backend measures
 * its own span and CUPTI's overhead (cuda_calibrate.c). cuda_int.h holds
 * the state they share.
 *
 * Errors name the CUDA call (AB_CHECK) and are wrapped with the case and
 * the arm. An arm from outside abbench (site_ext_arm: a plugin's cuda
 * function, a cubin's kernel, a Python callable) queues its launches the
 * same way and reports its own errors in ext_err. Every tensor buffer has
 * guard bytes at both ends (guard.h), filled when a slot begins, read back
 * and checked when it ends.
 */
#include "backend/cuda/cuda_int.h"

#include <math.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/guard.h"
#include "common/stats.h"

#define CUDA_COPY_BYTES (1ull << 30)
#define CUDA_COPY_REPS 5

static const char *cuda_errstr(int code)
{
	return cudaGetErrorString((cudaError_t)code);
}

const struct ab_api cuda_api = {"cuda", cuda_errstr};

/* The allocation of tensor i: GUARD_BYTES before the tensor. */
static void *cuda_base(const struct backend *b, int i)
{
	return (unsigned char *)b->args.t[i] - GUARD_BYTES;
}

/* What cuda_alloc_tensor cudaMallocs for tensor t: the tensor and its
 * guard zones (cuda_case_memory counts the same). */
static size_t cuda_tensor_alloc(const struct site_tensor *t, const struct site_dims *dims)
{
	return (size_t)site_tensor_bytes(t, dims) + 2 * GUARD_BYTES;
}

/* The launcher a built-in variant has for this backend, NULL for an arm
 * from outside or a variant without one. */
static site_cuda_launch_fn cuda_launcher(const struct site_variant *v)
{
	const struct site_cuda_impl *impl = v->ext ? NULL : site_variant_impl(v, SITE_IMPL_CUDA);
	return impl ? impl->launch : NULL;
}

static bool cuda_supports(const struct site_variant *v)
{
	return v->ext ? site_ext_callable(v->ext, SITE_EXT_CUDA_STREAM) : cuda_launcher(v) != NULL;
}

/* ------------------------------------------------------------------ */
/* Open and close                                                      */
/* ------------------------------------------------------------------ */

/* Lazy module loading (CUDA's default since 12.2) loads a kernel's module at
 * its first launch, and that load waits for the device: with
 * launch_gaps = hide the arm's first launch then waits behind the spin
 * kernel, which waits for the host, until the spin's timeout (seen on the
 * H200). Loading every module when the context is made avoids it. The
 * variable is read once, at the runtime's initialisation, so this runs
 * before the first CUDA call; a user's own CUDA_MODULE_LOADING wins. */
static void cuda_load_modules_eagerly(void)
{
	setenv("CUDA_MODULE_LOADING", "EAGER", 0);
}

static bool cuda_available(char *why, size_t len)
{
	int n = 0;
	cuda_load_modules_eagerly();
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess) {
		snprintf(why, len, "no usable cuda device: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
		return false;
	}
	if (n <= 0) {
		snprintf(why, len, "no usable cuda device: the driver reports no device");
		return false;
	}
	if (len)
		why[0] = '\0';
	return true;
}

/* The devices this process may use (after CUDA_VISIBLE_DEVICES). */
static int cuda_device_count(void)
{
	int n = 0;
	cuda_load_modules_eagerly();
	return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi writes it. */
static void cuda_format_uuid(const unsigned char u[16], char *buf, size_t len)
{
	snprintf(buf, len,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* Device facts for describe(), read once. */
static enum ab_rc cuda_read_device(struct backend *b, char *bus_id, size_t bus_len, struct ab_diag *d)
{
	struct cudaDeviceProp p;
	int l2 = 0, drv = 0, rt = 0;
	enum ab_rc rc;
	if ((rc = CK(d, cudaGetDeviceProperties(&p, b->dev))) ||
	    (rc = CK(d, cudaDeviceGetAttribute(&b->default_sm_khz, cudaDevAttrClockRate, b->dev))) ||
	    (rc = CK(d, cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, b->dev))) ||
	    (rc = CK(d, cudaDeviceGetPCIBusId(bus_id, (int)bus_len, b->dev))) ||
	    (rc = CK(d, cudaDriverGetVersion(&drv))) || (rc = CK(d, cudaRuntimeGetVersion(&rt))))
		return rc;
	struct results_device *i = &b->info;
	snprintf(i->name, sizeof i->name, "%.127s", p.name);
	cuda_format_uuid((const unsigned char *)p.uuid.bytes, i->uuid, sizeof i->uuid);
	snprintf(i->backend, sizeof i->backend, "%s", SITE_IMPL_CUDA);
	i->cc_major = p.major;
	i->cc_minor = p.minor;
	i->sm_count = p.multiProcessorCount;
	i->l2_bytes = l2;
	i->mem_bytes = (int64_t)p.totalGlobalMem;
	snprintf(i->driver_version, sizeof i->driver_version, "cuda %d.%d", drv / 1000, drv % 1000 / 10);
	snprintf(i->runtime_version, sizeof i->runtime_version, "%d.%d", rt / 1000, rt % 1000 / 10);
	i->default_sm_mhz = b->default_sm_khz / 1000;
	b->l2_bytes = (size_t)l2;
	return AB_OK;
}

/* Stream, events, mapped words for the spin and the probes, the flush
 * buffer and the tiny kernel's word. */
static enum ab_rc cuda_alloc_state(struct backend *b, struct ab_diag *d)
{
	enum ab_rc rc;
	if ((rc = CK(d, cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking))) ||
	    (rc = CK(d, cudaEventCreate(&b->ev_start))) || (rc = CK(d, cudaEventCreate(&b->ev_stop))) ||
	    (rc = CK(d, cudaEventCreate(&b->ev_flush))) ||
	    (rc = CK(d, cudaHostAlloc((void **)&b->flags_host, 4 * sizeof(unsigned), cudaHostAllocMapped))) ||
	    (rc = CK(d, cudaHostGetDevicePointer((void **)&b->flags_dev, b->flags_host, 0))) ||
	    (rc = CK(d, cudaHostAlloc((void **)&b->probe_host, 8 * sizeof(unsigned long long), cudaHostAllocMapped))) ||
	    (rc = CK(d, cudaHostGetDevicePointer((void **)&b->probe_dev, b->probe_host, 0))) ||
	    (rc = CK(d, cudaMalloc((void **)&b->tiny_sink, sizeof(unsigned)))) ||
	    (rc = CK(d, cudaMemsetAsync(b->tiny_sink, 0, sizeof(unsigned), b->stream))))
		return rc;
	memset(b->flags_host, 0, 4 * sizeof(unsigned));
	memset(b->probe_host, 0, 8 * sizeof(unsigned long long));
	if (b->opt.l2_flush) {
		if (b->l2_bytes == 0)
			return ab_fail(d, AB_ERR_BACKEND, "device %d reports no l2 cache: cannot size the l2 flush", b->dev);
		if ((rc = CK(d, cudaMalloc(&b->l2_buf, b->l2_bytes))))
			return rc;
	}
	return AB_OK;
}

/* CUPTI is optional: when it cannot be loaded or started the backend keeps
 * wall times only and the note says why. */
static void cuda_start_cupti(struct backend *b)
{
	struct ab_diag d = {{0}};
	if (!b->opt.cupti) {
		snprintf(b->cupti_note, sizeof b->cupti_note, "cupti off: per-kernel times not requested");
		return;
	}
	if (cupti_load(&b->cupti, &d) || cupti_start(b->cupti, &d)) {
		cupti_close(b->cupti);
		b->cupti = NULL;
		snprintf(b->cupti_note, sizeof b->cupti_note,
			 "cupti unavailable, wall times only (set ABBENCH_CUPTI to libcupti's path): %.120s", d.msg);
		return;
	}
	snprintf(b->cupti_note, sizeof b->cupti_note, "cupti %u from '%.100s'", cupti_version(b->cupti),
		 cupti_library(b->cupti));
}

static void cuda_start_nvml(struct backend *b, const char *bus_id)
{
	char why[200];
	b->nvml = nvml_open(bus_id, why, sizeof why);
	if (!b->nvml) {
		snprintf(b->nvml_note, sizeof b->nvml_note, "nvml unavailable, no clocks recorded: %.150s", why);
		return;
	}
	snprintf(b->nvml_note, sizeof b->nvml_note, "nvml driver %s", nvml_driver_version(b->nvml));
	char drv[32];
	snprintf(drv, sizeof drv, "%.12s (%.16s)", nvml_driver_version(b->nvml), b->info.driver_version);
	snprintf(b->info.driver_version, sizeof b->info.driver_version, "%s", drv);
}

static void cuda_close(struct backend *b);

/* CUPTI is started before the context exists (cudaSetDevice creates it),
 * so that it sees the context from its birth. */
static enum ab_rc cuda_open_steps(struct backend *b, struct ab_diag *d)
{
	int n = 0;
	char bus_id[32];
	enum ab_rc rc;
	if ((rc = CK(d, cudaGetDeviceCount(&n))))
		return rc;
	if (b->dev < 0 || b->dev >= n)
		return ab_fail(d, AB_ERR_USAGE, "cuda device %d does not exist: the driver reports %d device%s (numbered "
			       "after CUDA_VISIBLE_DEVICES)", b->dev, n, n == 1 ? "" : "s");
	cuda_start_cupti(b);
	if ((rc = CK(d, cudaSetDevice(b->dev))) || (rc = cuda_read_device(b, bus_id, sizeof bus_id, d)) ||
	    (rc = cuda_alloc_state(b, d)))
		return rc;
	cuda_start_nvml(b, bus_id);
	if (b->cupti && (rc = cuda_measure_overhead(b, d)))
		return ab_wrap(d, rc, "measuring cupti's overhead");
	if ((rc = cuda_measure_span(b, d)))
		return ab_wrap(d, rc, "measuring the timed span's floor");
	if (b->opt.timing == BACKEND_TIMING_GRAPH && (rc = cuda_graph_flushes(b, d)))
		return ab_wrap(d, rc, "timing = graph: capturing the flushes");
	return AB_OK;
}

/* ------------------------------------------------------------------ */
/* The copy floor (backend/copy_floor.h)                               */
/* ------------------------------------------------------------------ */

static const char *const cuda_floor_names[HK_FLOOR_N] = {
	[HK_FLOOR_VEC_CS] = BACKEND_FLOOR_PREFIX "vec_cs",
	[HK_FLOOR_VEC] = BACKEND_FLOOR_PREFIX "vec",
	[HK_FLOOR_GS4_CS] = BACKEND_FLOOR_PREFIX "gs4_cs",
	[HK_FLOOR_GS4] = BACKEND_FLOOR_PREFIX "gs4",
};

static int cuda_floor_prepare(void *ctx, const struct site_args *a, enum site_ext_on on, char *err, size_t len)
{
	struct cuda_floor *f = ctx;
	(void)on;
	if (!f->b->site || !copy_floor_plan(f->b->site, a, &f->plan)) {
		snprintf(err, len, "case '%s': its tensors give no copy floor", f->b->case_name);
		return 1;
	}
	return 0;
}

static int cuda_floor_launch(void *ctx, const struct site_args *a, enum site_ext_on on, void *stream, char *err,
			     size_t len)
{
	struct cuda_floor *f = ctx;
	(void)a;
	(void)on;
	int e = hk_floor_launch(&f->plan, f->method, f->b->info.sm_count, stream);
	if (e == (int)cudaErrorInvalidValue)
		snprintf(err, len, "case '%s': the copy floor's tensors are not 16-byte aligned", f->b->case_name);
	return e;
}

static void cuda_floor_init(struct backend *b)
{
	for (int m = 0; m < HK_FLOOR_N; m++) {
		b->floor[m] = (struct cuda_floor){ .b = b, .method = m };
		b->floor_ext[m] = (struct site_ext_arm){ .ctx = &b->floor[m], .prepare = cuda_floor_prepare,
							  .on = SITE_EXT_ON_BIT(SITE_EXT_CUDA_STREAM),
							  .call = cuda_floor_launch };
		b->floor_var[m] = (struct site_variant){ .name = cuda_floor_names[m],
							  .summary = "the case's minimum bytes, streamed once",
							  .ext = &b->floor_ext[m] };
	}
}

static int cuda_floor_methods(struct backend *b)
{
	(void)b;
	return HK_FLOOR_N;
}

static const struct site_variant *cuda_floor_variant(struct backend *b, int i)
{
	return i >= 0 && i < HK_FLOOR_N ? &b->floor_var[i] : NULL;
}

static enum ab_rc cuda_open(struct backend **out, const struct bk_options *o, struct ab_diag *d)
{
	if (o->timing == BACKEND_TIMING_CPU)
		return ab_fail(d, AB_ERR_USAGE, "timing = cpu times steps by the host's CPU clock: the cuda backend times "
			       "the GPU (use timing = events or graph, or the cpu backend)");
	struct backend *b = calloc(1, sizeof *b);
	if (!b)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the cuda backend");
	cuda_load_modules_eagerly();
	b->opt = *o;
	b->dev = o->device_index;
	b->cupti_overhead = NAN;
	b->span_empty_ns = b->span_tiny_ns = b->span_tiny_kernel_ns = NAN;
	const char *span = getenv("ABBENCH_SPAN");
	b->legacy_span = span && !strcmp(span, "legacy");
	cuda_floor_init(b);
	enum ab_rc rc = cuda_open_steps(b, d);
	if (rc) {
		cuda_close(b);
		return rc;
	}
	*out = b;
	return AB_OK;
}

static void cuda_free_tensors(struct backend *b)
{
	for (int i = 0; i < SITE_MAX_TENSORS; i++) {
		if (b->args.t[i])
			cudaFree(cuda_base(b, i));
		b->args.t[i] = NULL;
		b->bytes[i] = 0;
	}
	b->site = NULL;
}

/* Tears down whatever open got to; every handle may still be unset. */
static void cuda_close(struct backend *b)
{
	if (!b)
		return;
	if (b->stream)
		cudaStreamSynchronize(b->stream);
	if (b->range_open)
		nvtxRangePop();
	cuda_graph_drop(&b->g_arm);
	cuda_graph_drop(&b->g_flush);
	cuda_free_tensors(b);
	cupti_close(b->cupti);
	nvml_close(b->nvml);
	if (b->l2_buf)
		cudaFree(b->l2_buf);
	if (b->tiny_sink)
		cudaFree(b->tiny_sink);
	if (b->flags_host)
		cudaFreeHost(b->flags_host);
	if (b->probe_host)
		cudaFreeHost(b->probe_host);
	if (b->ev_start)
		cudaEventDestroy(b->ev_start);
	if (b->ev_stop)
		cudaEventDestroy(b->ev_stop);
	if (b->ev_flush)
		cudaEventDestroy(b->ev_flush);
	if (b->stream)
		cudaStreamDestroy(b->stream);
	free(b);
}

static void cuda_describe(struct backend *b, struct results_device *dev)
{
	*dev = b->info;
}


static enum ab_rc cuda_time_copy(struct backend *b, void *dst, const void *src, float *ms, struct ab_diag *d)
{
	enum ab_rc rc;
	if ((rc = CK(d, cudaEventRecord(b->ev_start, b->stream))) ||
	    (rc = CK(d, cudaMemcpyAsync(dst, src, CUDA_COPY_BYTES, cudaMemcpyDeviceToDevice, b->stream))) ||
	    (rc = CK(d, cudaEventRecord(b->ev_stop, b->stream))) || (rc = CK(d, cudaStreamSynchronize(b->stream))))
		return rc;
	return CK(d, cudaEventElapsedTime(ms, b->ev_start, b->ev_stop));
}

/* Best of CUDA_COPY_REPS device-to-device copies of 1 GiB, after one
 * warm-up; a copy reads and writes every byte, hence 2 * bytes. */
static enum ab_rc cuda_copy_gbps(struct backend *b, double *gbps, struct ab_diag *d)
{
	void *src = NULL, *dst = NULL;
	float best = 0.0f, ms = 0.0f;
	enum ab_rc rc;
	if (!(rc = CK(d, cudaMalloc(&src, CUDA_COPY_BYTES))) && !(rc = CK(d, cudaMalloc(&dst, CUDA_COPY_BYTES))) &&
	    !(rc = CK(d, cudaMemsetAsync(src, 1, CUDA_COPY_BYTES, b->stream))))
		rc = cuda_time_copy(b, dst, src, &ms, d);
	for (int i = 0; !rc && i < CUDA_COPY_REPS; i++) {
		rc = cuda_time_copy(b, dst, src, &ms, d);
		if (!rc && (best == 0.0f || ms < best))
			best = ms;
	}
	if (src)
		cudaFree(src);
	if (dst)
		cudaFree(dst);
	if (rc)
		return ab_wrap(d, rc, "measuring the device copy bandwidth");
	*gbps = best > 0.0f ? 2.0 * (double)CUDA_COPY_BYTES / (best * 1e-3) / 1e9 : 0.0;
	return AB_OK;
}

/* ------------------------------------------------------------------ */
/* Cases, slots, samples                                               */
/* ------------------------------------------------------------------ */

static enum ab_rc cuda_alloc_tensor(struct backend *b, int i, const struct site_args *host, struct ab_diag *d)
{
	const struct site_tensor *t = &b->site->tensors[i];
	size_t bytes = (size_t)site_tensor_bytes(t, &host->dims);
	void *base = NULL;
	enum ab_rc rc = CK(d, cudaMalloc(&base, cuda_tensor_alloc(t, &host->dims)));
	if (rc)
		return ab_wrap(d, rc, "tensor '%s' (%zu bytes)", t->name, bytes);
	b->args.t[i] = (unsigned char *)base + GUARD_BYTES;
	b->bytes[i] = bytes;
	/* On the backend's stream: a plain cudaMemcpy would be ordered with
	 * the legacy default stream only, not with this non-blocking one. */
	if ((t->role == SITE_IN_ACT || t->role == SITE_IN_PARAM) && bytes)
		rc = CK(d, cudaMemcpyAsync(b->args.t[i], host->t[i], bytes, cudaMemcpyHostToDevice, b->stream));
	return rc ? ab_wrap(d, rc, "tensor '%s'", t->name) : AB_OK;
}

static enum ab_rc cuda_case_begin(struct backend *b, const struct site_desc *s, const struct site_args *host,
				  const char *case_name, struct ab_diag *d)
{
	cuda_free_tensors(b);
	b->site = s;
	b->args.dims = host->dims;
	b->args.eps = host->eps;
	b->args.affine = host->affine;
	snprintf(b->case_name, sizeof b->case_name, "%s", case_name);
	b->arm[0] = '\0';
	for (int i = 0; i < s->n_tensors; i++) {
		if (!site_tensor_present(&s->tensors[i], host->affine))
			continue;
		enum ab_rc rc = cuda_alloc_tensor(b, i, host, d);
		if (rc) {
			cudaStreamSynchronize(b->stream);
			cuda_free_tensors(b);
			return ab_wrap(d, rc, "case '%s'", case_name);
		}
	}
	/* The host buffers may be freed as soon as this returns. */
	enum ab_rc rc = CK(d, cudaStreamSynchronize(b->stream));
	return rc ? ab_wrap(d, rc, "case '%s'", case_name) : AB_OK;
}

/* Outputs, statistics and intermediates start as 0xFF bytes (bf16 NaN
 * 0xFFFF), so an element no kernel wrote cannot pass as a result; every
 * buffer's guard zones are filled anew. */
static enum ab_rc cuda_poison(struct backend *b, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	for (int i = 0; !rc && i < b->site->n_tensors; i++) {
		enum site_role r = b->site->tensors[i].role;
		if (!b->args.t[i])
			continue;
		if (r == SITE_OUT || r == SITE_AUX || r == SITE_SCRATCH)
			rc = CK(d, cudaMemsetAsync(b->args.t[i], 0xFF, b->bytes[i], b->stream));
		if (!rc)
			rc = CK(d, cudaMemsetAsync(cuda_base(b, i), GUARD_FILL, GUARD_BYTES, b->stream));
		if (!rc)
			rc = CK(d, cudaMemsetAsync((unsigned char *)b->args.t[i] + b->bytes[i], GUARD_FILL, GUARD_BYTES,
						   b->stream));
	}
	return rc ? rc : CK(d, cudaStreamSynchronize(b->stream));
}

/* The guard zones of every buffer, read back after the slot. */
static enum ab_rc cuda_check_guards(struct backend *b, struct ab_diag *d)
{
	unsigned char zone[2][GUARD_BYTES];
	char why[160];
	for (int i = 0; i < b->site->n_tensors; i++) {
		if (!b->args.t[i])
			continue;
		enum ab_rc rc;
		if ((rc = CK(d, cudaMemcpyAsync(zone[0], cuda_base(b, i), GUARD_BYTES, cudaMemcpyDeviceToHost, b->stream))) ||
		    (rc = CK(d, cudaMemcpyAsync(zone[1], (unsigned char *)b->args.t[i] + b->bytes[i], GUARD_BYTES,
						cudaMemcpyDeviceToHost, b->stream))) ||
		    (rc = CK(d, cudaStreamSynchronize(b->stream))))
			return rc;
		if (!guard_check(zone[0], zone[1], why, sizeof why))
			return ab_fail(d, AB_ERR_BACKEND, "wrote outside tensor '%s': %s", b->site->tensors[i].name, why);
	}
	return AB_OK;
}

/* An arm from outside: its prepare (scratch, arguments), then one launch
 * outside any timed span, waited for. A CUDA runtime linked into a plugin
 * initialises itself and loads its modules at its first launch, which
 * must not happen behind the spin kernel of launch_gaps = hide (it would
 * wait for the device). The outputs are poisoned after it. */
static enum ab_rc cuda_prime_ext(struct backend *b, const struct site_variant *v, struct ab_diag *d)
{
	b->ext_err[0] = '\0';
	if (v->ext->prepare &&
	    v->ext->prepare(v->ext->ctx, &b->args, SITE_EXT_CUDA_STREAM, b->ext_err, sizeof b->ext_err))
		return ab_fail(d, AB_ERR_BACKEND, "%s", b->ext_err);
	int e = v->ext->call(v->ext->ctx, &b->args, SITE_EXT_CUDA_STREAM, b->stream, b->ext_err, sizeof b->ext_err);
	if (e)
		return b->ext_err[0] ? ab_fail(d, AB_ERR_BACKEND, "%s", b->ext_err)
				     : ab_check_call(e, &cuda_api, "the arm's first launch", __FILE__, __LINE__, d);
	return CK(d, cudaStreamSynchronize(b->stream));
}

/* What a sample launches: an arm from outside, or a built-in variant's
 * launcher, looked up before the timed span. */
struct arm_call {
	const struct site_variant *v;
	site_cuda_launch_fn launch;
};

static int cuda_arm_launch(struct backend *b, const void *ctx)
{
	const struct arm_call *c = ctx;
	if (c->v->ext)
		return c->v->ext->call(c->v->ext->ctx, &b->args, SITE_EXT_CUDA_STREAM, b->stream, b->ext_err,
				      sizeof b->ext_err);
	return c->launch(&b->args, b->stream);
}

/* timing = graph: the slot's arm captured into its graph (after the
 * poison, so that the capture queues nothing before it). */
static enum ab_rc cuda_slot_graph(struct backend *b, const struct site_variant *v, struct ab_diag *d)
{
	const struct arm_call call = { v, cuda_launcher(v) };
	cuda_graph_drop(&b->g_arm);
	b->n_flush_ms = 0;
	return cuda_graph_capture(b, cuda_arm_launch, &call, &b->g_arm, d);
}

static enum ab_rc cuda_slot_begin(struct backend *b, const struct site_variant *v, const char *range_name,
				  struct results_clocks *before, struct ab_diag *d)
{
	struct cupti_counts stale = {0};
	enum ab_rc rc;
	memset(before, 0, sizeof *before);
	if (!b->site)
		return ab_fail(d, AB_ERR_INTERNAL, "cuda slot_begin without a case");
	if (!cuda_supports(v))
		return ab_fail(d, AB_ERR_INPUT, "case '%s': variant '%s' has no cuda implementation", b->case_name,
			       v->name);
	snprintf(b->arm, sizeof b->arm, "%s", v->name);
	b->ext = v->ext;
	if (v->ext && (rc = cuda_prime_ext(b, v, d)))
		return ab_wrap(d, rc, "case '%s', arm '%s'", b->case_name, b->arm);
	/* Records left from before the slot (nothing of it) are dropped. */
	if ((rc = cuda_poison(b, d)) || (b->cupti && (rc = cupti_collect(b->cupti, NULL, &stale, d))) ||
	    (rc = nvml_read(b->nvml, before, d)))
		return ab_wrap(d, rc, "case '%s', arm '%s'", b->case_name, b->arm);
	if (b->opt.timing == BACKEND_TIMING_GRAPH && (rc = cuda_slot_graph(b, v, d)))
		return ab_wrap(d, rc, "case '%s', arm '%s': timing = graph", b->case_name, b->arm);
	if (b->range_open)
		nvtxRangePop();
	nvtxRangePushA(range_name);
	b->range_open = true;
	return AB_OK;
}

static enum ab_rc cuda_sample(struct backend *b, const struct site_variant *v, uint32_t sample_id,
			      struct attrib_collector *kernels, struct bk_sample *out, struct ab_diag *d)
{
	const struct arm_call call = { v, cuda_launcher(v) };
	(void)kernels; /* CUPTI records reach the collector at slot_end */
	out->discarded = false;
	out->clock_ratio = NAN;
	out->wall_ns = NAN;
	out->host_ns = NAN; /* timing = graph replays a captured call: no call to time */
	if (!b->site || !(v->ext ? site_ext_callable(v->ext, SITE_EXT_CUDA_STREAM) : call.launch != NULL))
		return ab_fail(d, AB_ERR_INTERNAL, "cuda sample of '%s' outside a slot", v->name);
	if (b->opt.timing == BACKEND_TIMING_GRAPH && !b->g_arm)
		return ab_fail(d, AB_ERR_INTERNAL, "cuda graph sample of '%s' without its graph", v->name);
	enum ab_rc rc = b->opt.timing == BACKEND_TIMING_GRAPH ? cuda_graph_sample(b, sample_id, out, d)
							      : cuda_timed_run(b, cuda_arm_launch, &call, sample_id, out, d);
	if (rc && sample_id == ATTRIB_UNTIMED)
		return ab_wrap(d, rc, "case '%s', arm '%s', an untimed call", b->case_name, v->name);
	if (rc)
		return ab_wrap(d, rc, "case '%s', arm '%s', sample %u", b->case_name, v->name, (unsigned)sample_id);
	return AB_OK;
}

static enum ab_rc cuda_slot_end(struct backend *b, struct attrib_collector *kernels, struct results_clocks *after,
				struct ab_diag *d)
{
	enum ab_rc rc;
	memset(after, 0, sizeof *after);
	if (b->range_open) {
		nvtxRangePop();
		b->range_open = false;
	}
	const struct site_ext_arm *ext = b->ext;
	b->ext = NULL;
	if ((rc = CK(d, cudaStreamSynchronize(b->stream))) ||
	    (b->cupti && (rc = cupti_collect(b->cupti, kernels, &b->counts, d))) ||
	    (rc = nvml_read(b->nvml, after, d)) || (rc = cuda_check_guards(b, d)))
		return ab_wrap(d, rc, "case '%s', arm '%s'", b->case_name, b->arm);
	if (b->opt.timing == BACKEND_TIMING_GRAPH) /* a sample replayed its arm that often */
		attrib_divide(kernels, BACKEND_GRAPH_LAUNCHES);
	cuda_graph_drop(&b->g_arm);
	b->ext_err[0] = '\0';
	if (ext && ext->finish && ext->finish(ext->ctx, b->ext_err, sizeof b->ext_err))
		return ab_fail(d, AB_ERR_BACKEND, "case '%s', arm '%s': %s", b->case_name, b->arm, b->ext_err);
	return AB_OK;
}

static enum ab_rc cuda_read_tensor(struct backend *b, int tensor_index, void *host, size_t bytes,
				   struct ab_diag *d)
{
	if (tensor_index < 0 || tensor_index >= SITE_MAX_TENSORS || !b->args.t[tensor_index] ||
	    b->bytes[tensor_index] != bytes)
		return ab_fail(d, AB_ERR_INTERNAL, "case '%s': bad read of tensor %d (%zu bytes)", b->case_name,
			       tensor_index, bytes);
	enum ab_rc rc;
	if ((rc = CK(d, cudaMemcpyAsync(host, b->args.t[tensor_index], bytes, cudaMemcpyDeviceToHost, b->stream))) ||
	    (rc = CK(d, cudaStreamSynchronize(b->stream))))
		return ab_wrap(d, rc, "case '%s', arm '%s', tensor '%s'", b->case_name, b->arm,
			       b->site->tensors[tensor_index].name);
	return AB_OK;
}

static void cuda_case_end(struct backend *b)
{
	if (b->stream)
		cudaStreamSynchronize(b->stream);
	cuda_graph_drop(&b->g_arm); /* it launches into the case's tensors */
	cuda_free_tensors(b);
}

/* What cuda_case_begin would cudaMalloc (every present tensor with its
 * guard zones), and the device's free memory now: the L2 flush buffer and
 * the other fixed buffers are already allocated by then. */
static enum ab_rc cuda_case_memory(struct backend *b, const struct site_desc *s, const struct site_args *shape,
				   struct bk_memory *m, struct ab_diag *d)
{
	size_t free_b = 0, total_b = 0;
	(void)b;
	memset(m, 0, sizeof *m);
	m->has_device = true;
	for (int i = 0; i < s->n_tensors; i++) {
		const struct site_tensor *t = &s->tensors[i];
		if (site_tensor_present(t, shape->affine))
			m->device_bytes += cuda_tensor_alloc(t, &shape->dims);
	}
	enum ab_rc rc = CK(d, cudaMemGetInfo(&free_b, &total_b));
	m->device_free = free_b;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Notes                                                               */
/* ------------------------------------------------------------------ */

static const char *cuda_notes(struct backend *b)
{
	const struct cupti_counts *n = &b->counts;
	char rec[300] = "";
	if (b->cupti) {
		snprintf(rec, sizeof rec,
			 "; cupti overhead: %+.1f%% (%d samples of %d tiny launches); self-check: %lld of %d launches "
			 "tied%s; %lld kernel records, %lld tied to samples, %lld zero timestamps, %lld dropped",
			 b->cupti_overhead * 100.0, CUDA_OVERHEAD_SAMPLES, CUDA_OVERHEAD_LAUNCHES,
			 (long long)b->selfcheck_tied, CUDA_OVERHEAD_SAMPLES * CUDA_OVERHEAD_LAUNCHES,
			 b->runtime_fallback ? " (with runtime records)" : "", (long long)n->kernels, (long long)n->timed,
			 (long long)n->zero_ts, (long long)n->dropped);
	}
	char span[140];
	snprintf(span, sizeof span, "; span%s: %.2f us empty, %.2f us around a one-warp kernel (its kernel %.2f us)",
		 b->legacy_span ? " (legacy order)" : "", b->span_empty_ns / 1e3, b->span_tiny_ns / 1e3,
		 b->span_tiny_kernel_ns / 1e3);
	/* Bounded pieces: the whole always fits results_run.notes (512). */
	snprintf(b->notes, sizeof b->notes, "%.110s%.220s%.100s; %.70s", b->cupti_note, rec, span, b->nvml_note);
	return b->notes;
}

/* What a certificate names beside the device row: CUPTI's API version,
 * when CUPTI is loaded. */
static const char *cuda_environment(struct backend *b)
{
	if (b->cupti)
		snprintf(b->env, sizeof b->env, "cupti=%u", cupti_version(b->cupti));
	else
		b->env[0] = '\0';
	return b->env;
}

static bool cuda_fake_timer(struct backend *b)
{
	(void)b;
	return false; /* events time the GPU */
}

const struct backend_ops backend_cuda = {
	.name = SITE_IMPL_CUDA,
	.build = "(sm_90, PTX compute_90)",
	.caps = BACKEND_CAP_CUDA_STREAM | BACKEND_CAP_DRIVER_MODULE, /* device buffers, a stream; cubins load */
	.supports = cuda_supports,
	.available = cuda_available,
	.device_count = cuda_device_count,
	.open = cuda_open,
	.close = cuda_close,
	.describe = cuda_describe,
	.fake_timer = cuda_fake_timer,
	.measure_copy_gbps = cuda_copy_gbps,
	.case_begin = cuda_case_begin,
	.slot_begin = cuda_slot_begin,
	.sample = cuda_sample,
	.slot_end = cuda_slot_end,
	.read_tensor = cuda_read_tensor,
	.case_end = cuda_case_end,
	.case_memory = cuda_case_memory,
	.floor_methods = cuda_floor_methods,
	.floor_variant = cuda_floor_variant,
	.notes = cuda_notes,
	.environment = cuda_environment,
};
