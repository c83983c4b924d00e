/*
 * test_backend_cuda.c - the CUDA backend.
 *
 * Without a GPU (this development machine has no driver): available() says
 * no, with a reason naming the driver or the device, and prints nothing;
 * open fails with AB_ERR_BACKEND naming the CUDA call; the CUPTI loader
 * fails cleanly on a bogus ABBENCH_CUPTI, and a loaded libcupti refuses to
 * start cleanly without a driver.
 *
 * With a GPU (skipped here, with the reason printed): a synthetic site
 * whose arm copies x into y with cudaMemcpyAsync and launches the tiny
 * harness kernel twice on its aux tensor. Expected values follow from
 * that: y == x byte for byte; aux's first word counts launches from the
 * 0xFFFFFFFF poison (2 per sample, warm-up included, wrapping), the other
 * words keep the poison; CUPTI sees exactly 2 tiny-kernel launches per
 * measured sample, every one tied to its sample. Each sample's host time
 * (the arm's call) is known in events mode and NAN under timing = graph;
 * under launch_gaps = hide an arm with 50 ms of host work is timed for its
 * GPU work, and one that synchronises its stream while queueing fails
 * within the spin's timeout with the cause named.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#if AB_HAVE_CUDA

#include <cuda_runtime_api.h>

#include "backend/backend.h"
#include "backend/cuda/cupti.h"
#include "backend/cuda/harness_kernels.h"

/* Bytes written to stdout and stderr while fn runs. */
static long output_bytes_during(void (*fn)(void *), void *ctx)
{
	fflush(stdout);
	fflush(stderr);
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	int out = dup(1), err = dup(2);
	dup2(fileno(tmp), 1);
	dup2(fileno(tmp), 2);
	fn(ctx);
	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
	struct stat st;
	assert_int_equal(fstat(fileno(tmp), &st), 0);
	fclose(tmp);
	return (long)st.st_size;
}

struct avail_call {
	bool ok;
	char why[256];
};

static void call_available(void *ctx)
{
	struct avail_call *a = ctx;
	a->ok = backend_cuda.available(a->why, sizeof a->why);
}

static bool gpu_present(char *why, size_t len)
{
	return backend_cuda.available(why, len);
}

static void test_ops_table(void **state)
{
	(void)state;
	const struct backend_ops *o = &backend_cuda;
	assert_non_null(o);
	assert_string_equal(o->name, "cuda");
	assert_true(o->available && o->open && o->close && o->describe && o->measure_copy_gbps && o->case_begin &&
		    o->slot_begin && o->sample && o->slot_end && o->read_tensor && o->case_end);
}

static void test_unavailable_without_gpu(void **state)
{
	struct avail_call a = {.ok = true, .why = ""};
	char why[256];
	(void)state;
	if (gpu_present(why, sizeof why))
		skip(); /* a GPU answers here: the no-GPU path cannot be observed */
	assert_int_equal(output_bytes_during(call_available, &a), 0);
	assert_false(a.ok);
	assert_true(strlen(a.why) > 0);
	assert_true(strstr(a.why, "driver") || strstr(a.why, "device"));
	assert_non_null(strstr(a.why, "no usable cuda device"));
}

static void test_open_fails_cleanly(void **state)
{
	struct bk_options o = {.l2_flush = true, .launch_gaps = BACKEND_GAPS_HIDE, .cupti = true, .device_index = 0};
	struct backend *b = NULL;
	struct ab_diag d = {{0}};
	char why[256];
	(void)state;
	if (gpu_present(why, sizeof why))
		skip(); /* a GPU answers here */
	assert_int_equal(backend_cuda.open(&b, &o, &d), AB_ERR_BACKEND);
	assert_null(b);
	assert_non_null(strstr(d.msg, "cuda call 'cudaGetDeviceCount(&n)' failed"));
	assert_true(strstr(d.msg, "driver") || strstr(d.msg, "device"));
}

static void test_cupti_bogus_path(void **state)
{
	struct cupti *c = NULL;
	struct ab_diag d = {{0}};
	(void)state;
	setenv("ABBENCH_CUPTI", "/no/such/dir/libcupti.so", 1);
	enum ab_rc rc = cupti_load(&c, &d);
	unsetenv("ABBENCH_CUPTI");
	assert_int_equal(rc, AB_ERR_BACKEND);
	assert_null(c);
	assert_non_null(strstr(d.msg, "cannot load libcupti: tried '/no/such/dir/libcupti.so'"));
}

/* libcupti loads without a driver, but enabling records needs one: the
 * failure names the CUPTI call and leaves nothing started. */
static void test_cupti_start_without_driver(void **state)
{
	static const char path[] = "/usr/local/cuda/lib64/libcupti.so.13";
	struct cupti *c = NULL;
	struct ab_diag d = {{0}};
	char why[256];
	(void)state;
	if (gpu_present(why, sizeof why) || access(path, R_OK) != 0)
		skip(); /* needs the toolkit's libcupti and no driver */
	setenv("ABBENCH_CUPTI", path, 1);
	enum ab_rc rc = cupti_load(&c, &d);
	unsetenv("ABBENCH_CUPTI");
	assert_int_equal(rc, AB_OK);
	assert_int_equal(cupti_start(c, &d), AB_ERR_BACKEND);
	assert_non_null(strstr(d.msg, "cupti call 'c->f.cuptiActivity"));
	cupti_close(c);
}

/* ---- GPU tests ---- */

#define T_TOKENS 64
#define T_WIDTH 256

static int copy_tiny_arm(const struct site_args *a, void *stream)
{
	size_t bytes = (size_t)(a->dims.batch * a->dims.tokens * a->dims.width) * 2;
	int e = (int)cudaMemcpyAsync(a->t[1], a->t[0], bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream);
	if (!e)
		e = hk_tiny_launch((unsigned *)a->t[2], stream);
	if (!e)
		e = hk_tiny_launch((unsigned *)a->t[2], stream);
	return e;
}

/* An arm that waits for its own stream while queueing (torch's .item()
 * does): under launch_gaps = hide the stream waits on the spin kernel,
 * which waits on the host, which waits in the arm. */
static int sync_arm(const struct site_args *a, void *stream)
{
	int e = copy_tiny_arm(a, stream);
	return e ? e : (int)cudaStreamSynchronize((cudaStream_t)stream);
}

/* An arm whose host work (50 ms) dwarfs its GPU work: hide must hold the
 * stream for it, and the host time say so. */
static int slow_host_arm(const struct site_args *a, void *stream)
{
	int e = copy_tiny_arm(a, stream);
	usleep(50 * 1000);
	return e;
}

static const struct site_desc test_site = {
	.name = "test_copy",
	.summary = "x copied into y, two tiny kernels on the aux word",
	.shape_help = "1xTxW",
	.n_axes = 3,
	.axes = {"B", "T", "W"},
	.n_tensors = 3,
	.tensors = {
		{"x", SITE_IN_ACT, SITE_BF16, {3, {0, 1, 2}}, SITE_PARAM_NONE, false},
		{"y", SITE_OUT, SITE_BF16, {3, {0, 1, 2}}, SITE_PARAM_NONE, false},
		{"sink", SITE_AUX, SITE_F32, {2, {0, 1}}, SITE_PARAM_NONE, false},
	},
	.n_variants = 4,
	.variants = {
		{"copy_tiny", "memcpy + 2 tiny kernels", true, {{SITE_IMPL_CUDA, &(const struct site_cuda_impl){copy_tiny_arm}}}},
		{"cpu_only", "no cuda implementation", true, {{NULL, NULL}}},
		{"sync", "copy_tiny, then a stream sync", true, {{SITE_IMPL_CUDA, &(const struct site_cuda_impl){sync_arm}}}},
		{"slow_host", "copy_tiny, then 50 ms on the host", true,
		 {{SITE_IMPL_CUDA, &(const struct site_cuda_impl){slow_host_arm}}}},
	},
};

static const char TINY_NAME[] = "harness_probe_tiny_kernel(unsigned int*)";

struct gpu {
	struct backend *b;
	bool graph; /* timing = graph: no call of the arm in a sample, no host time */
	uint16_t x[T_TOKENS * T_WIDTH];
	struct site_args host;
	struct attrib_collector k;
};

static void gpu_open(struct gpu *g, const struct bk_options *o)
{
	struct ab_diag d = {{0}};
	if (backend_cuda.open(&g->b, o, &d))
		fail_msg("open: %s", d.msg);
	for (int i = 0; i < T_TOKENS * T_WIDTH; i++)
		g->x[i] = (uint16_t)(0x3f80 + (i % 97)); /* bf16 1.0 and up */
	memset(&g->host, 0, sizeof g->host);
	g->host.dims = (struct site_dims){.batch = 1, .tokens = T_TOKENS, .width = T_WIDTH, .row_len = T_WIDTH,
					  .rows = T_TOKENS, .heads = 1, .n_axes = 3, .axis = {1, T_TOKENS, T_WIDTH}};
	g->host.t[0] = g->x;
	if (backend_cuda.case_begin(g->b, &test_site, &g->host, "test_case", &d))
		fail_msg("case_begin: %s", d.msg);
}

/* warmup + n samples of the copy_tiny arm into g->k; wall times in wall. */
static void gpu_slot(struct gpu *g, int warmup, int n, double *wall, struct results_clocks *before,
		     struct results_clocks *after)
{
	struct ab_diag d = {{0}};
	struct bk_sample s;
	const struct site_variant *v = &test_site.variants[0];
	double lo = INFINITY, hi = 0;
	int discarded = 0;
	if (backend_cuda.slot_begin(g->b, v, "test_case/a/A1", before, &d))
		fail_msg("slot_begin: %s", d.msg);
	for (int i = -warmup; i < n; i++) {
		uint32_t sid = i < 0 ? ATTRIB_UNTIMED : (uint32_t)i + 1u;
		if (backend_cuda.sample(g->b, v, sid, &g->k, &s, &d))
			fail_msg("sample %d: %s", i, d.msg);
		assert_true(s.wall_ns > 0 && s.wall_ns < 1e7);
		/* the probes read: a clock above zero and not far above the
		 * default (idle clocks of a barely loaded GPU may be low) */
		assert_false(isnan(s.clock_ratio));
		assert_true(s.clock_ratio > 0.0 && s.clock_ratio < 2.0);
		/* the host time of the arm's call: a memcpy and two launches */
		if (g->graph)
			assert_true(isnan(s.host_ns));
		else
			assert_true(s.host_ns > 0 && s.host_ns < 1e7);
		if (i >= 0)
			wall[i] = s.wall_ns;
		lo = fmin(lo, s.clock_ratio);
		hi = fmax(hi, s.clock_ratio);
		discarded += s.discarded;
	}
	print_message("clock ratio %.3f..%.3f, %d discarded, first wall %.0f ns\n", lo, hi, discarded, wall[0]);
	if (backend_cuda.slot_end(g->b, &g->k, after, &d))
		fail_msg("slot_end: %s", d.msg);
}

static void gpu_check_outputs(struct gpu *g, int launches)
{
	struct ab_diag d = {{0}};
	uint16_t y[T_TOKENS * T_WIDTH];
	uint32_t sink[T_TOKENS];
	assert_int_equal(backend_cuda.read_tensor(g->b, 1, y, sizeof y, &d), AB_OK);
	assert_memory_equal(y, g->x, sizeof y);
	assert_int_equal(backend_cuda.read_tensor(g->b, 2, sink, sizeof sink, &d), AB_OK);
	assert_int_equal(sink[0], (uint32_t)(0xFFFFFFFFu + (uint32_t)launches));
	for (int i = 1; i < T_TOKENS; i++)
		assert_int_equal(sink[i], 0xFFFFFFFFu);
	assert_int_equal(backend_cuda.read_tensor(g->b, 1, y, sizeof y - 2, &d), AB_ERR_INTERNAL);
}

static void gpu_close(struct gpu *g)
{
	backend_cuda.case_end(g->b);
	backend_cuda.close(g->b);
	attrib_free(&g->k);
}

static bool gpu_or_skip(void)
{
	char why[256];
	if (gpu_present(why, sizeof why))
		return true;
	print_message("gpu test skipped: %s\n", why);
	return false;
}

static void test_gpu_describe_and_copy(void **state)
{
	struct bk_options o = {.l2_flush = true, .launch_gaps = BACKEND_GAPS_HIDE, .cupti = false, .device_index = 0};
	struct backend *b = NULL;
	struct results_device dev;
	struct ab_diag d = {{0}};
	double gbps = 0;
	(void)state;
	if (!gpu_or_skip())
		skip();
	if (backend_cuda.open(&b, &o, &d))
		fail_msg("open: %s", d.msg);
	backend_cuda.describe(b, &dev);
	assert_true(strlen(dev.name) > 0);
	assert_int_equal(strncmp(dev.uuid, "GPU-", 4), 0);
	assert_int_equal(strlen(dev.uuid), 40); /* GPU- + 8-4-4-4-12 */
	assert_string_equal(dev.backend, "cuda");
	assert_true(dev.cc_major >= 7 && dev.sm_count > 0 && dev.l2_bytes > 0 && dev.mem_bytes > 0);
	assert_true(dev.default_sm_mhz > 300);
	assert_non_null(strstr(dev.driver_version, "cuda "));
	assert_int_equal(backend_cuda.measure_copy_gbps(b, &gbps, &d), AB_OK);
	print_message("device %s, %d SMs, L2 %lld B, copy %.0f GB/s, %s\n", dev.name, dev.sm_count,
		      (long long)dev.l2_bytes, gbps, backend_cuda.notes(b));
	assert_true(gbps > 100.0);
	assert_non_null(strstr(backend_cuda.notes(b), "cupti off"));
	backend_cuda.close(b);
}

/* --device past the device count is bad usage (exit 2), not a device
 * failure, and names the index and the count. */
static void test_gpu_bad_device_index(void **state)
{
	struct bk_options o = {.l2_flush = false, .launch_gaps = BACKEND_GAPS_INCLUDE, .cupti = false, .device_index = 4096};
	struct backend *b = NULL;
	struct ab_diag d = {{0}};
	(void)state;
	if (!gpu_or_skip())
		skip();
	assert_int_equal(backend_cuda.open(&b, &o, &d), AB_ERR_USAGE);
	assert_null(b);
	assert_non_null(strstr(d.msg, "cuda device 4096 does not exist: the driver reports "));
	assert_non_null(strstr(d.msg, "(numbered after CUDA_VISIBLE_DEVICES)"));
}

/* Launch gaps hidden, L2 flushed, CUPTI on: every tiny launch of a
 * measured sample is attributed to it, and nothing else is. */
static void test_gpu_hide_flush_cupti(void **state)
{
	struct bk_options o = {.l2_flush = true, .launch_gaps = BACKEND_GAPS_HIDE, .cupti = true, .device_index = 0};
	struct gpu g;
	struct results_clocks before, after;
	enum { W = 3, N = 20 };
	double wall[N];
	(void)state;
	if (!gpu_or_skip())
		skip();
	memset(&g, 0, sizeof g);
	gpu_open(&g, &o);
	assert_int_equal(attrib_init(&g.k, N, NULL), AB_OK);
	const char *notes = backend_cuda.notes(g.b);
	if (strstr(notes, "cupti unavailable"))
		fail_msg("%s", notes);
	gpu_slot(&g, W, N, wall, &before, &after);
	gpu_check_outputs(&g, 2 * (W + N));
	assert_int_equal(g.k.n_kernels, 1);
	assert_string_equal(g.k.kernels[0].name, TINY_NAME);
	assert_string_equal(g.k.kernels[0].family, "harness");
	assert_int_equal(g.k.kernels[0].launches, 2 * N);
	/* warm-up tiny launches + 2 probes and a spin per sample, untagged */
	assert_true(g.k.ignored_records >= 2 * W + 3 * (W + N));
	assert_int_equal(g.k.bad_records, 0);
	for (int i = 0; i < N; i++) {
		assert_true(g.k.sample_kernel_ns[i] > 0);
		assert_true(g.k.sample_kernel_ns[i] < wall[i] + 1000.0);
	}
	notes = backend_cuda.notes(g.b);
	print_message("%s\n", notes);
	assert_non_null(strstr(notes, "cupti overhead:"));
	assert_non_null(strstr(notes, "40 tied to samples"));
	assert_non_null(strstr(notes, "self-check: 240 of 240 launches tied"));
	if (!strstr(notes, "nvml unavailable"))
		assert_true(before.valid && after.valid && before.sm_mhz > 0);
	gpu_close(&g);
}

/* Launch gaps included, no flush: same attribution; a variant without a
 * CUDA arm is refused at slot_begin. */
static void test_gpu_include_noflush(void **state)
{
	struct bk_options o = {.l2_flush = false, .launch_gaps = BACKEND_GAPS_INCLUDE, .cupti = true, .device_index = 0};
	struct gpu g;
	struct results_clocks before, after;
	struct ab_diag d = {{0}};
	enum { W = 2, N = 10 };
	double wall[N];
	(void)state;
	if (!gpu_or_skip())
		skip();
	memset(&g, 0, sizeof g);
	gpu_open(&g, &o);
	assert_int_equal(attrib_init(&g.k, N, NULL), AB_OK);
	assert_int_equal(backend_cuda.slot_begin(g.b, &test_site.variants[1], "x/b/B", &before, &d), AB_ERR_INPUT);
	assert_non_null(strstr(d.msg, "'cpu_only' has no cuda implementation"));
	gpu_slot(&g, W, N, wall, &before, &after);
	gpu_check_outputs(&g, 2 * (W + N));
	assert_int_equal(g.k.n_kernels, 1);
	assert_int_equal(g.k.kernels[0].launches, 2 * N);
	gpu_close(&g);
}

/* timing = graph: every sample replays the slot's graph of
 * BACKEND_GRAPH_LAUNCHES flushed launches (so the tiny kernel ran that
 * often per sample), its wall time is per launch, and its kernel records
 * are divided to read per launch of the arm, as in events mode; the notes
 * carry the span's floor. */
static void test_gpu_graph(void **state)
{
	/* No L2 flush: the tiny arm (about 1 us) is within the noise of ten
	 * 256 MB flushes, which the backend refuses to call a time (on the
	 * H200, 2026-12-01: a sample of 0 ns before that check); the flushed
	 * path is floor.sh's glm_1024 with timing = graph. */
	struct bk_options o = {.l2_flush = false, .launch_gaps = BACKEND_GAPS_INCLUDE, .timing = BACKEND_TIMING_GRAPH,
			       .cupti = true, .device_index = 0};
	struct gpu g;
	struct results_clocks before, after;
	enum { W = 2, N = 8 };
	double wall[N];
	(void)state;
	if (!gpu_or_skip())
		skip();
	memset(&g, 0, sizeof g);
	g.graph = true;
	gpu_open(&g, &o);
	assert_int_equal(attrib_init(&g.k, N, NULL), AB_OK);
	gpu_slot(&g, W, N, wall, &before, &after);
	gpu_check_outputs(&g, 2 * BACKEND_GRAPH_LAUNCHES * (W + N));
	assert_int_equal(g.k.n_kernels, 1);
	assert_string_equal(g.k.kernels[0].name, TINY_NAME);
	assert_int_equal(g.k.kernels[0].launches, 2 * N); /* per launch of the arm */
	for (int i = 0; i < N; i++)
		assert_true(g.k.sample_kernel_ns[i] > 0 && g.k.sample_kernel_ns[i] < wall[i] + 1000.0);
	const char *notes = backend_cuda.notes(g.b);
	print_message("graph: first wall %.0f ns; %s\n", wall[0], notes);
	assert_non_null(strstr(notes, "; span: "));
	gpu_close(&g);
}

/* One sample of variant vi of the test site in its own slot; rc of the
 * sample, the sample in *s, the seconds it took in *secs. */
static enum ab_rc gpu_one_sample(struct gpu *g, int vi, struct bk_sample *s, double *secs, struct ab_diag *d)
{
	struct results_clocks before, after;
	struct ab_diag d2 = {{0}};
	struct timespec t0, t1;
	const struct site_variant *v = &test_site.variants[vi];
	if (backend_cuda.slot_begin(g->b, v, "test_case/b/B", &before, &d2))
		fail_msg("slot_begin: %s", d2.msg);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	enum ab_rc rc = backend_cuda.sample(g->b, v, 1, &g->k, s, d);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (backend_cuda.slot_end(g->b, &g->k, &after, &d2))
		fail_msg("slot_end: %s", d2.msg);
	return rc;
}

/* launch_gaps = hide holds the stream for as long as the arm's call takes
 * (50 ms of host work: the events time the GPU work alone, the host time
 * says 50 ms), and an arm that waits for its own stream while queueing is
 * caught within the spin's timeout, not hung, with a message that names
 * the cause and the key that measures it; the backend samples on after it. */
static void test_gpu_hide_host_time(void **state)
{
	struct bk_options o = {.l2_flush = false, .launch_gaps = BACKEND_GAPS_HIDE, .cupti = false, .device_index = 0};
	struct gpu g;
	struct bk_sample s;
	struct ab_diag d = {{0}};
	double secs;
	(void)state;
	if (!gpu_or_skip())
		skip();
	memset(&g, 0, sizeof g);
	gpu_open(&g, &o);
	assert_int_equal(attrib_init(&g.k, 1, NULL), AB_OK);
	assert_int_equal(gpu_one_sample(&g, 3, &s, &secs, &d), AB_OK);
	print_message("slow host: wall %.1f us, host %.1f ms\n", s.wall_ns / 1e3, s.host_ns / 1e6);
	assert_true(s.host_ns >= 50e6 && s.host_ns < 1e9);
	assert_true(s.wall_ns > 0 && s.wall_ns < 5e6); /* the GPU's work, not the host's 50 ms */
	assert_int_equal(gpu_one_sample(&g, 2, &s, &secs, &d), AB_ERR_BACKEND);
	print_message("sync under hide: %.2f s, %s\n", secs, d.msg);
	assert_true(secs < 5.0);
	assert_non_null(strstr(d.msg, "case 'test_case', arm 'sync', sample 1: the arm's call returned after "));
	assert_non_null(strstr(d.msg, "the call waits for the GPU while queueing"));
	assert_non_null(strstr(d.msg, "launch_gaps = include"));
	assert_int_equal(gpu_one_sample(&g, 0, &s, &secs, &d), AB_OK);
	assert_true(s.host_ns > 0 && s.host_ns < 1e7);
	gpu_close(&g);
}

/* The copy floor's kernels move the plan's bytes as copy_floor.h says:
 * write vector i = the xor of read vectors i, i + Wv, i + 2 Wv, i + 3 Wv
 * (those that exist), the bytes past each segment's last whole vector
 * handled apart. Plans: the gate's (x, ff, gate -> out: 2 Wv + a little),
 * qk's (q, k -> q_out, k_out: reads and writes in two segments each, cut
 * at different places), and odd sizes with a tail; each method. A plan
 * whose read stream is more than 4 Wv reads the rest without writing it. */
static void floor_case(const int64_t *in_bytes, int n_in, const int64_t *out_bytes, int n_out)
{
	void *in[COPY_FLOOR_SEGS], *out[COPY_FLOOR_SEGS];
	unsigned char *host_in[COPY_FLOOR_SEGS], *host_out[COPY_FLOOR_SEGS];
	struct copy_floor_plan p;
	memset(&p, 0, sizeof p);
	p.n_in = n_in;
	p.n_out = n_out;
	int64_t rv = 0, wv = 0;
	for (int k = 0; k < n_in; k++) {
		assert_int_equal(cudaMalloc(&in[k], (size_t)in_bytes[k] + 16), cudaSuccess);
		host_in[k] = malloc((size_t)in_bytes[k] + 1);
		for (int64_t b = 0; b < in_bytes[k]; b++)
			host_in[k][b] = (unsigned char)(b * 131 + k * 17 + (b >> 8));
		assert_int_equal(cudaMemcpy(in[k], host_in[k], (size_t)in_bytes[k], cudaMemcpyHostToDevice), cudaSuccess);
		p.in[k] = in[k];
		p.in_bytes[k] = in_bytes[k];
		p.read_bytes += in_bytes[k];
		rv += in_bytes[k] / 16;
	}
	for (int k = 0; k < n_out; k++) {
		assert_int_equal(cudaMalloc(&out[k], (size_t)out_bytes[k] + 16), cudaSuccess);
		host_out[k] = malloc((size_t)out_bytes[k] + 1);
		p.out[k] = out[k];
		p.out_bytes[k] = out_bytes[k];
		p.write_bytes += out_bytes[k];
		wv += out_bytes[k] / 16;
	}
	for (int method = 0; method < HK_FLOOR_N; method++) {
		for (int k = 0; k < n_out; k++)
			assert_int_equal(cudaMemset(out[k], 0x5a, (size_t)out_bytes[k]), cudaSuccess);
		assert_int_equal(hk_floor_launch(&p, method, 132, NULL), 0);
		assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
		int64_t base = 0, bad = 0;
		for (int k = 0; k < n_out; k++) {
			assert_int_equal(cudaMemcpy(host_out[k], out[k], (size_t)out_bytes[k], cudaMemcpyDeviceToHost),
					 cudaSuccess);
			for (int64_t v = 0; v < out_bytes[k] / 16; v++) {
				unsigned char want[16] = { 0 };
				for (int m = 0; m < 4; m++) {
					int64_t j = base + v + m * wv, seg = 0;
					if (j >= rv)
						break;
					while (j >= in_bytes[seg] / 16) {
						j -= in_bytes[seg] / 16;
						seg++;
					}
					for (int b = 0; b < 16; b++)
						want[b] ^= host_in[seg][16 * j + b];
				}
				bad += memcmp(want, host_out[k] + 16 * v, 16) != 0;
			}
			base += out_bytes[k] / 16;
		}
		if (bad)
			fail_msg("method %d: %lld of %lld write vectors wrong", method, (long long)bad, (long long)wv);
	}
	for (int k = 0; k < n_in; k++) {
		cudaFree(in[k]);
		free(host_in[k]);
	}
	for (int k = 0; k < n_out; k++) {
		cudaFree(out[k]);
		free(host_out[k]);
	}
}

static void test_gpu_copy_floor_kernels(void **state)
{
	(void)state;
	if (!gpu_or_skip())
		skip();
	const int64_t gate_in[] = { 264 * 4096 * 2, 264 * 4096 * 2, 4096 * 2 }, gate_out[] = { 264 * 4096 * 2 };
	floor_case(gate_in, 3, gate_out, 1);
	const int64_t qk_in[] = { 4360 * 4096 * 2, 4360 * 4096 * 2 }, qk_out[] = { 4360 * 4096, 4360 * 4096 * 3 };
	floor_case(qk_in, 2, qk_out, 2);
	const int64_t odd_in[] = { 3 * 4097 * 2, 4097 * 2 + 6 }, odd_out[] = { 3 * 4097 * 2 };
	floor_case(odd_in, 2, odd_out, 1);
	const int64_t wide_in[] = { 1 << 20, 1 << 20 }, wide_out[] = { 1 << 16 }; /* reads 32 x the writes */
	floor_case(wide_in, 2, wide_out, 1);
}

/* A bogus ABBENCH_CUPTI: the backend still opens and measures wall times,
 * and its notes say CUPTI is unavailable. */
static void test_gpu_without_cupti(void **state)
{
	struct bk_options o = {.l2_flush = true, .launch_gaps = BACKEND_GAPS_HIDE, .cupti = true, .device_index = 0};
	struct gpu g;
	struct results_clocks before, after;
	enum { N = 5 };
	double wall[N];
	(void)state;
	if (!gpu_or_skip())
		skip();
	memset(&g, 0, sizeof g);
	setenv("ABBENCH_CUPTI", "/no/such/libcupti.so.13", 1);
	gpu_open(&g, &o);
	unsetenv("ABBENCH_CUPTI");
	assert_int_equal(attrib_init(&g.k, N, NULL), AB_OK);
	assert_non_null(strstr(backend_cuda.notes(g.b), "cupti unavailable"));
	gpu_slot(&g, 1, N, wall, &before, &after);
	assert_int_equal(g.k.n_kernels, 0);
	assert_int_equal(g.k.ignored_records, 0);
	gpu_check_outputs(&g, 2 * (1 + N));
	gpu_close(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_table),
		cmocka_unit_test(test_unavailable_without_gpu),
		cmocka_unit_test(test_open_fails_cleanly),
		cmocka_unit_test(test_cupti_bogus_path),
		cmocka_unit_test(test_cupti_start_without_driver),
		cmocka_unit_test(test_gpu_describe_and_copy),
		cmocka_unit_test(test_gpu_bad_device_index),
		cmocka_unit_test(test_gpu_without_cupti),
		cmocka_unit_test(test_gpu_hide_flush_cupti),
		cmocka_unit_test(test_gpu_include_noflush),
		cmocka_unit_test(test_gpu_graph),
		cmocka_unit_test(test_gpu_hide_host_time),
		cmocka_unit_test(test_gpu_copy_floor_kernels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* !AB_HAVE_CUDA */

#include "backend/backend.h"

/* Without nvcc the backend is absent, and its row of the table says why. */
static void test_no_cuda(void **state)
{
	(void)state;
	assert_null(backend_find("cuda"));
	assert_non_null(strstr(backend_entry_find("cuda")->absent, "without the CUDA backend"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_cuda)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
