/*
 * pyrt_gpu_check.c - the GPU half of pyrt's tests (harness/arms/pyrt.h),
 * for the GPU machine, where CI cannot go: scripts/gpu/pyrt_check.sh runs
 * it with the machine's venv python. It does what a Python arm of abbench
 * will: its own device buffers (cudaMalloc) and non-blocking stream, the
 * interpreter found and loaded at run time, tests/data/python/gpu_arms.py
 * imported, functions bound to the buffers as torch tensors with the
 * stream made current, called, and their bytes checked in C.
 *
 * Rows (each PASS or FAIL, a table at the end; exit 0 when all pass):
 *   python, numpy    the interpreter loads; numpy arrays over host buffers
 *   torch            torch imports and sees CUDA
 *   torch add-one    warm-up call: out = x + 1 (f32) and outb = xb + 1
 *                    (bf16) land in abbench's buffers (zero copy)
 *   torch stream     with a gate kernel holding abbench's stream, the
 *                    call's work waits behind it (it went to that stream),
 *                    then completes when the gate opens
 *   triton add-one   the same two rows for a Triton kernel launched from
 *   triton stream    Python (warm-up: it compiles there)
 *   current stream   torch.cuda.current_stream() inside the call is
 *                    abbench's stream; data_ptr is abbench's pointer
 *   errors           an exception (FILE:LINE), a tensor kept beyond the
 *                    case, the current stream changed: each refused
 *   overhead         host time per call (noop; torch add), printed
 *
 * Usage: pyrt_gpu_check [--python PATH] [--device N] [--module FILE]
 *   (default python: $ABBENCH_PYTHON, else /opt/torch/.venv/bin/python3)
 */
#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arms/pyrt.h"

#define N 4096
#define GATE_TIMEOUT_NS 10000000000ull /* 10 s: longer means the call waited for the stream */

int pyrt_gate_launch(const volatile int *open_dev, unsigned long long timeout_ns, int *timed_out_dev, void *stream);

/* ---- the table -------------------------------------------------------------------- */

static struct {
	char name[40];
	bool pass;
	char detail[400];
} rows[40];
static int n_rows, n_failed;

__attribute__((format(printf, 3, 4))) static bool row(const char *name, bool pass, const char *fmt, ...)
{
	va_list ap;
	if (n_rows == (int)(sizeof rows / sizeof rows[0]))
		return pass;
	snprintf(rows[n_rows].name, sizeof rows[n_rows].name, "%s", name);
	rows[n_rows].pass = pass;
	va_start(ap, fmt);
	vsnprintf(rows[n_rows].detail, sizeof rows[n_rows].detail, fmt, ap);
	va_end(ap);
	printf("%s  %-18s %s\n", pass ? "PASS" : "FAIL", name, rows[n_rows].detail);
	fflush(stdout);
	n_failed += !pass;
	n_rows++;
	return pass;
}

static int finish(void)
{
	printf("\n=== pyrt GPU check ===\n");
	for (int i = 0; i < n_rows; i++)
		printf("%s  %-18s %.150s\n", rows[i].pass ? "PASS" : "FAIL", rows[i].name, rows[i].detail);
	printf("%d passed, %d failed\n", n_rows - n_failed, n_failed);
	return n_failed ? 1 : 0;
}

static void must(cudaError_t e, const char *what)
{
	if (e == cudaSuccess)
		return;
	row("cuda setup", false, "%s: %s", what, cudaGetErrorString(e));
	exit(finish());
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the case: buffers as abbench makes them ---------------------------------------- */

struct gpu {
	int device;
	cudaStream_t stream, other;
	float *x, *out;
	uint16_t *xb, *outb;
	int64_t *info;
	volatile int *open;  /* host side of the gate's flag */
	int *open_dev, *timed_out;
	float hx[N];
	uint16_t hxb[N];
};

static uint16_t bf16_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return (uint16_t)(u >> 16); /* exact: the values used have no low bits */
}

static void gpu_setup(struct gpu *g)
{
	must(cudaSetDevice(g->device), "cudaSetDevice");
	must(cudaFree(0), "the primary context");
	must(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
	must(cudaStreamCreateWithFlags(&g->other, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
	must(cudaMalloc((void **)&g->x, N * sizeof(float)), "cudaMalloc");
	must(cudaMalloc((void **)&g->out, N * sizeof(float)), "cudaMalloc");
	must(cudaMalloc((void **)&g->xb, N * sizeof(uint16_t)), "cudaMalloc");
	must(cudaMalloc((void **)&g->outb, N * sizeof(uint16_t)), "cudaMalloc");
	must(cudaMalloc((void **)&g->info, 4 * sizeof(int64_t)), "cudaMalloc");
	must(cudaMalloc((void **)&g->timed_out, sizeof(int)), "cudaMalloc");
	must(cudaHostAlloc((void **)&g->open, sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
	must(cudaHostGetDevicePointer((void **)&g->open_dev, (void *)g->open, 0), "cudaHostGetDevicePointer");
	for (int i = 0; i < N; i++) {
		g->hx[i] = (float)(i % 256) * 0.5f;
		g->hxb[i] = bf16_bits((float)(i % 256));
	}
	must(cudaMemcpy(g->x, g->hx, sizeof g->hx, cudaMemcpyHostToDevice), "cudaMemcpy");
	must(cudaMemcpy(g->xb, g->hxb, sizeof g->hxb, cudaMemcpyHostToDevice), "cudaMemcpy");
}

/* abbench poisons outputs before each slot. */
static void poison(struct gpu *g)
{
	must(cudaMemsetAsync(g->out, 0xFF, N * sizeof(float), g->stream), "cudaMemsetAsync");
	must(cudaMemsetAsync(g->outb, 0xFF, N * sizeof(uint16_t), g->stream), "cudaMemsetAsync");
	must(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");
}

/* How many elements of out and outb are x + 1, read on the other stream
 * (so that the read does not wait for the gated one). */
static int correct(struct gpu *g)
{
	static float o[N];
	static uint16_t ob[N];
	must(cudaMemcpyAsync(o, g->out, sizeof o, cudaMemcpyDeviceToHost, g->other), "cudaMemcpyAsync");
	must(cudaMemcpyAsync(ob, g->outb, sizeof ob, cudaMemcpyDeviceToHost, g->other), "cudaMemcpyAsync");
	must(cudaStreamSynchronize(g->other), "cudaStreamSynchronize");
	int ok = 0;
	for (int i = 0; i < N; i++)
		ok += (o[i] == g->hx[i] + 1.0f) + (ob[i] == bf16_bits((float)(i % 256) + 1.0f));
	return ok;
}

static void tensors(struct gpu *g, struct pyrt_tensor t[5])
{
	memset(t, 0, 5 * sizeof *t);
	const char *names[5] = { "x", "out", "xb", "outb", "info" };
	void *data[5] = { g->x, g->out, g->xb, g->outb, g->info };
	enum pyrt_dtype dt[5] = { PYRT_F32, PYRT_F32, PYRT_BF16, PYRT_BF16, PYRT_I64 };
	for (int i = 0; i < 5; i++) {
		t[i].name = names[i];
		t[i].dtype = dt[i];
		t[i].rank = 1;
		t[i].shape[0] = i == 4 ? 4 : N;
		t[i].data = data[i];
		t[i].read_only = i == 0 || i == 2;
	}
}

static const struct pyrt_int axes[] = { { "T", N } };
static const struct pyrt_case kase = { .name = "gpu_check", .site = "add_one", .n_axes = 1, .axes = axes };

static struct pyrt_bound *bind(struct pyrt_module *m, struct gpu *g, const char *fn_name, struct ab_diag *d)
{
	struct pyrt_fn *fn;
	struct pyrt_bound *b;
	struct pyrt_tensor t[5];
	struct pyrt_target on = { .device = PYRT_CUDA, .cuda_device = g->device, .stream = g->stream };
	tensors(g, t);
	if (pyrt_function(m, fn_name, &fn, d) || pyrt_bind(fn, &kase, t, 5, &on, &b, d) || pyrt_activate(b, d))
		return NULL;
	return b;
}

/* ---- the checks ---------------------------------------------------------------------- */

/* Warm-up (compiles, initialises), then the gated call, then timing. */
static void add_one(struct pyrt_module *m, struct gpu *g, const char *fn_name, const char *label)
{
	struct ab_diag d = { "" };
	char name[40];
	struct pyrt_bound *b = bind(m, g, fn_name, &d);
	snprintf(name, sizeof name, "%s add-one", label);
	if (!b) {
		row(name, false, "bind: %s", d.msg);
		return;
	}
	poison(g);
	double t0 = seconds();
	enum ab_rc rc = pyrt_call(b, &d);
	must(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");
	double warm = seconds() - t0;
	int ok = rc ? 0 : correct(g);
	if (!row(name, !rc && ok == 2 * N, "%s%d of %d elements right (f32 and bf16), warm-up %.2f s", rc ? d.msg : "",
		 ok, 2 * N, warm)) {
		pyrt_unbind(b, &d);
		return;
	}
	/* The gate holds abbench's stream: the call's work must wait behind it. */
	poison(g);
	*g->open = 0;
	must(cudaMemsetAsync(g->timed_out, 0, sizeof(int), g->stream), "cudaMemsetAsync");
	must((cudaError_t)pyrt_gate_launch(g->open_dev, GATE_TIMEOUT_NS, g->timed_out, g->stream), "the gate");
	rc = pyrt_call(b, &d);
	usleep(200000);
	int before = correct(g);
	*g->open = 1;
	must(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");
	int after = correct(g), timed_out = 0;
	must(cudaMemcpy(&timed_out, g->timed_out, sizeof timed_out, cudaMemcpyDeviceToHost), "cudaMemcpy");
	snprintf(name, sizeof name, "%s stream", label);
	row(name, !rc && before == 0 && after == 2 * N && !timed_out,
	    "%s%d elements done before the gate opened (want 0), %d after (want %d)%s", rc ? d.msg : "", before, after,
	    2 * N, timed_out ? "; the gate timed out: the call waited for the stream" : "");
	/* Host time per call, the GPU's work overlapping. */
	enum { CALLS = 1000 };
	t0 = seconds();
	for (int i = 0; i < CALLS && !rc; i++)
		rc = pyrt_call(b, &d);
	double host = seconds() - t0;
	must(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");
	rc = rc ? rc : pyrt_verify(b, &d);
	snprintf(name, sizeof name, "%s per call", label);
	row(name, !rc, "%.1f us host time per call (mean of %d), then verify%s%s", host * 1e6 / CALLS, CALLS,
	    rc ? ": " : " ok", rc ? d.msg : "");
	rc = pyrt_unbind(b, &d);
	if (rc)
		row(name, false, "unbind: %s", d.msg);
}

static void current_stream(struct pyrt_module *m, struct gpu *g)
{
	struct ab_diag d = { "" };
	int64_t info[4] = { 0 };
	struct pyrt_bound *b = bind(m, g, "check_stream", &d);
	enum ab_rc rc = b ? pyrt_call(b, &d) : AB_ERR_INTERNAL;
	must(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");
	must(cudaMemcpy(info, g->info, sizeof info, cudaMemcpyDeviceToHost), "cudaMemcpy");
	row("current stream", !rc && info[0] == (int64_t)(intptr_t)g->stream && info[1] == g->device &&
				  info[2] == (int64_t)(intptr_t)g->x && info[3] == 1,
	    "%storch.cuda.current_stream() %#llx (abbench's %#llx), device %lld, data_ptr %s, bf16 %s", rc ? d.msg : "",
	    (unsigned long long)info[0], (unsigned long long)(intptr_t)g->stream, (long long)info[1],
	    info[2] == (int64_t)(intptr_t)g->x ? "abbench's" : "ANOTHER", info[3] ? "yes" : "no");
	if (b)
		pyrt_unbind(b, &d);
}

static void errors(struct pyrt_module *m, struct gpu *g)
{
	struct ab_diag d = { "" }, u = { "" };
	struct pyrt_bound *b = bind(m, g, "raises", &d);
	enum ab_rc rc = b ? pyrt_call(b, &d) : AB_ERR_INTERNAL;
	row("error: exception", rc == AB_ERR_INPUT && strstr(d.msg, "gpu_arms.py:") && strstr(d.msg, "in raises"), "%s",
	    d.msg);
	if (b)
		pyrt_unbind(b, &u);
	b = bind(m, g, "keeps", &d);
	rc = b ? pyrt_call(b, &d) : AB_ERR_INTERNAL;
	rc = rc ? rc : pyrt_unbind(b, &d);
	row("error: kept tensor", rc == AB_ERR_INPUT && strstr(d.msg, "kept t['out']"), "%s", d.msg);
	b = bind(m, g, "changes_stream", &d);
	rc = b ? pyrt_call(b, &d) : AB_ERR_INTERNAL;
	rc = rc ? rc : pyrt_verify(b, &d);
	row("error: stream", rc == AB_ERR_INPUT && strstr(d.msg, "current stream"), "%s", d.msg);
	if (b)
		pyrt_unbind(b, &u);
}

static void overhead(struct pyrt_module *m, struct gpu *g)
{
	enum { CALLS = 20000 };
	struct ab_diag d = { "" };
	struct pyrt_bound *b = bind(m, g, "noop", &d);
	enum ab_rc rc = b ? AB_OK : AB_ERR_INTERNAL;
	double t0 = seconds();
	for (int i = 0; i < CALLS && !rc; i++)
		rc = pyrt_call(b, &d);
	double t = seconds() - t0;
	row("noop per call", !rc, "%.2f us per call (mean of %d)%s", t * 1e6 / CALLS, CALLS, rc ? d.msg : "");
	if (b)
		pyrt_unbind(b, &d);
}

/* numpy over host buffers with this interpreter (numpy 2 on the GPU machine). */
static void numpy_check(struct pyrt *rt, struct pyrt_module *m)
{
	static float x[N], out[N];
	struct ab_diag d = { "" };
	struct pyrt_fn *fn;
	struct pyrt_bound *b = NULL;
	struct pyrt_tensor t[2] = {
		{ .name = "x", .dtype = PYRT_F32, .rank = 1, .shape = { N }, .data = x, .read_only = true },
		{ .name = "out", .dtype = PYRT_F32, .rank = 1, .shape = { N }, .data = out },
	};
	struct pyrt_target cpu = { .device = PYRT_CPU };
	for (int i = 0; i < N; i++)
		x[i] = (float)i;
	enum ab_rc rc = pyrt_need(rt, PYRT_CPU, &d);
	if (!rc && !(rc = pyrt_function(m, "numpy_add_one", &fn, &d)) && !(rc = pyrt_bind(fn, &kase, t, 2, &cpu, &b, &d)))
		rc = pyrt_call(b, &d);
	int ok = 0;
	for (int i = 0; i < N && !rc; i++)
		ok += out[i] == x[i] + 1.0f;
	row("numpy add-one", !rc && ok == N, "%s%d of %d elements right in the C buffer", rc ? d.msg : "", ok, N);
	if (b)
		pyrt_unbind(b, &d);
}

int main(int argc, char **argv)
{
	const char *python = getenv("ABBENCH_PYTHON"), *file = "tests/data/python/gpu_arms.py";
	struct gpu g = { 0 };
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--python") == 0)
			python = argv[i + 1];
		else if (strcmp(argv[i], "--device") == 0)
			g.device = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--module") == 0)
			file = argv[i + 1];
	}
	python = python && *python ? python : "/opt/torch/.venv/bin/python3";
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct pyrt *rt;
	struct pyrt_module *m;
	struct ab_diag d = { "" };
	char path[4096], text[1024];
	struct pyrt_options o = { .python = python };
	if (pyrt_open(&o, &rt, &d) != AB_OK) {
		row("python", false, "%s", d.msg);
		return finish();
	}
	pyrt_describe(rt, text, sizeof text);
	row("python", true, "%s", text);
	if (!realpath(file, path) || pyrt_import(rt, path, &m, &d)) {
		row("import", false, "'%s': %s", file, d.msg[0] ? d.msg : "no such file");
		return finish();
	}
	numpy_check(rt, m);
	if (pyrt_need(rt, PYRT_CUDA, &d) != AB_OK) {
		row("torch", false, "%s", d.msg);
		return finish();
	}
	pyrt_describe(rt, text, sizeof text);
	row("torch", true, "%s", text);
	gpu_setup(&g);
	add_one(m, &g, "torch_add_one", "torch");
	add_one(m, &g, "triton_add_one", "triton");
	current_stream(m, &g);
	errors(m, &g);
	overhead(m, &g);
	pyrt_close(rt);
	return finish();
}
