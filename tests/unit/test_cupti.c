/*
 * test_cupti.c - the CUPTI record log without a GPU: synthetic buffers of
 * CUDA 13 activity records (CUpti_ActivityKernel10, external correlation,
 * driver API records) walked by this file's own iterator, joined and fed
 * to the attribution collector; and the libcupti loader's failure paths.
 *
 * Expected numbers are the sums of the synthetic timestamps written below
 * (e.g. sample 1 = (1600 - 1000) + (1900 - 1700) = 800 ns). Mangled names
 * are what g++ emits for the declarations in the comment at MANGLED_*
 * (nm on the object), the expected demangled forms come from binutils'
 * c++filt; families follow attrib.c's pattern table.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#if AB_HAVE_CUDA

#include <cupti_activity.h>

#include "backend/attrib.h"
#include "backend/cuda/cupti.h"

/* namespace at::native { template <typename T, typename T_ACC, bool rms>
 *   void vectorized_layer_norm_kernel(int, T_ACC, const T*, const T*,
 *   const T*, T_ACC*, T_ACC*, T*); } at <c10::BFloat16, float, false> */
static const char MANGLED_LN[] = "_ZN2at6native28vectorized_layer_norm_kernelIN3c108BFloat16EfLb0EEEviT0_PKT_S7_S7_PS4_S8_PS5_";
static const char DEMANGLED_LN[] =
	"void at::native::vectorized_layer_norm_kernel<c10::BFloat16, float, false>(int, float, c10::BFloat16 const*, "
	"c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)";
/* at::native::elementwise_kernel<128, MulFunctor, Array<char*, 3>>(int, MulFunctor, Array<char*, 3>) */
static const char MANGLED_MUL[] = "_ZN2at6native18elementwise_kernelILi128ENS0_10MulFunctorENS0_5ArrayIPcLi3EEEEEviT0_T1_";
static const char DEMANGLED_MUL[] = "void at::native::elementwise_kernel<128, at::native::MulFunctor, "
				    "at::native::Array<char*, 3> >(int, at::native::MulFunctor, at::native::Array<char*, 3>)";
/* void abfused_ln_modulate_kernel(const c10::BFloat16*, c10::BFloat16*, int) */
static const char MANGLED_FUSED[] = "_Z26abfused_ln_modulate_kernelPKN3c108BFloat16EPS0_i";
static const char DEMANGLED_FUSED[] = "abfused_ln_modulate_kernel(c10::BFloat16 const*, c10::BFloat16*, int)";
/* The backend's probe kernel, as ptxas names it. */
static const char MANGLED_PROBE[] = "_Z26harness_clock_probe_kernelPyj";

/* A buffer of records laid end to end, 8-byte aligned like CUPTI's. */
struct synth {
	_Alignas(8) uint8_t buf[16384];
	size_t used;
};

static void put(struct synth *s, const void *rec, size_t size)
{
	assert_true(s->used + size <= sizeof s->buf);
	memcpy(s->buf + s->used, rec, size);
	s->used += size;
}

static void add_kernel(struct synth *s, const char *name, uint32_t corr, uint64_t start, uint64_t end)
{
	CUpti_ActivityKernel10 r;
	memset(&r, 0, sizeof r);
	r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	r.correlationId = corr;
	r.start = start;
	r.end = end;
	r.name = name;
	r.gridX = r.gridY = r.gridZ = 1;
	put(s, &r, sizeof r);
}

static void add_corr_kind(struct synth *s, uint32_t corr, uint64_t ext, CUpti_ExternalCorrelationKind kind)
{
	CUpti_ActivityExternalCorrelation r;
	memset(&r, 0, sizeof r);
	r.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
	r.externalKind = kind;
	r.externalId = ext;
	r.correlationId = corr;
	put(s, &r, sizeof r);
}

static void add_corr(struct synth *s, uint32_t corr, uint64_t ext)
{
	add_corr_kind(s, corr, ext, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
}

/* A driver API record (cuLaunchKernel's): enabled only so that CUPTI
 * writes external correlations; the log must skip it. */
static void add_driver(struct synth *s, uint32_t corr)
{
	CUpti_ActivityAPI r;
	memset(&r, 0, sizeof r);
	r.kind = CUPTI_ACTIVITY_KIND_DRIVER;
	r.correlationId = corr;
	r.start = 1;
	r.end = 2;
	put(s, &r, sizeof r);
}

static size_t record_size(const CUpti_Activity *a)
{
	switch (a->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: return sizeof(CUpti_ActivityExternalCorrelation);
	case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
	default: return 0;
	}
}

/* cuptiActivityGetNextRecord's contract over struct synth's layout; an
 * unknown kind is an invalid record (-1), as CUPTI_ERROR_INVALID_KIND. */
static int synth_next(uint8_t *buf, size_t valid, void **rec)
{
	size_t off = 0;
	if (*rec) {
		size_t sz = record_size(*rec);
		off = (size_t)((uint8_t *)*rec - buf) + sz;
	}
	if (off >= valid)
		return 0;
	if (record_size((const CUpti_Activity *)(buf + off)) == 0)
		return -1;
	*rec = buf + off;
	return 1;
}

static const struct results_kernel *find_kernel(const struct attrib_collector *c, const char *name)
{
	for (int i = 0; i < c->n_kernels; i++)
		if (!strcmp(c->kernels[i].name, name))
			return &c->kernels[i];
	return NULL;
}

struct fixture {
	struct cupti_log *log;
	struct attrib_collector c;
	struct cupti_counts n;
	struct synth s;
	struct ab_diag d;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	assert_non_null(f);
	assert_int_equal(cupti_log_new(&f->log, &f->d), AB_OK);
	assert_int_equal(attrib_init(&f->c, 4, &f->d), AB_OK);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	cupti_log_free(f->log);
	attrib_free(&f->c);
	free(f);
	return 0;
}

static void parse_drain(struct fixture *f)
{
	cupti_log_parse(f->log, f->s.buf, f->s.used, synth_next);
	assert_int_equal(cupti_log_drain(f->log, &f->c, &f->n, &f->d), AB_OK);
}

/* Kernels join their sample through the correlation id; times sum per
 * kernel and per sample. */
static void test_join_by_correlation(void **state)
{
	struct fixture *f = *state;
	add_driver(&f->s, 10);
	add_corr(&f->s, 10, 1);
	add_kernel(&f->s, MANGLED_LN, 10, 1000, 1600);
	add_corr(&f->s, 11, 1);
	add_kernel(&f->s, MANGLED_MUL, 11, 1700, 1900);
	add_corr(&f->s, 12, 2);
	add_kernel(&f->s, MANGLED_LN, 12, 3000, 3500);
	parse_drain(f);

	assert_int_equal(f->n.kernels, 3);
	assert_int_equal(f->n.timed, 3);
	assert_int_equal(f->n.correlations, 3);
	assert_int_equal(f->c.n_kernels, 2);
	const struct results_kernel *ln = find_kernel(&f->c, DEMANGLED_LN);
	assert_non_null(ln);
	assert_int_equal(ln->launches, 2);
	assert_true(ln->total_ns == 1100.0 && ln->min_ns == 500.0 && ln->max_ns == 600.0);
	assert_string_equal(ln->family, "LayerNorm");
	const struct results_kernel *mul = find_kernel(&f->c, DEMANGLED_MUL);
	assert_non_null(mul);
	assert_int_equal(mul->launches, 1);
	assert_true(mul->total_ns == 200.0);
	assert_string_equal(mul->family, "elementwise");
	assert_true(f->c.sample_kernel_ns[0] == 800.0); /* 600 + 200 */
	assert_true(f->c.sample_kernel_ns[1] == 500.0);
	assert_true(isnan(f->c.sample_kernel_ns[2]) && isnan(f->c.sample_kernel_ns[3]));
	assert_int_equal(f->c.ignored_records, 0);
	assert_int_equal(f->c.bad_records, 0);
}

/* Records outside any push (spin, probe, warm-up) and correlations of
 * another kind go to the collector as ATTRIB_UNTIMED: ignored, not summed. */
static void test_untimed(void **state)
{
	struct fixture *f = *state;
	add_kernel(&f->s, "harness_spin_wait_kernel", 20, 100, 5000);
	add_corr_kind(&f->s, 21, 1, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1);
	add_kernel(&f->s, MANGLED_PROBE, 21, 5000, 9000);
	add_corr(&f->s, 22, 0); /* a pushed 0 is ATTRIB_UNTIMED too */
	add_kernel(&f->s, MANGLED_LN, 22, 9000, 9100);
	parse_drain(f);

	assert_int_equal(f->n.kernels, 3);
	assert_int_equal(f->n.timed, 0);
	assert_int_equal(f->n.correlations, 1); /* only CUSTOM0 is ours */
	assert_int_equal(f->c.ignored_records, 3);
	assert_int_equal(f->c.n_kernels, 0);
	assert_true(isnan(f->c.sample_kernel_ns[0]));
}

/* A zero timestamp is passed through: the collector counts it bad and
 * sums nothing; the log counts it too. */
static void test_zero_timestamps(void **state)
{
	struct fixture *f = *state;
	add_corr(&f->s, 30, 1);
	add_kernel(&f->s, MANGLED_FUSED, 30, 0, 0);
	add_corr(&f->s, 31, 1);
	add_kernel(&f->s, MANGLED_FUSED, 31, 4000, 0);
	add_corr(&f->s, 32, 2);
	add_kernel(&f->s, MANGLED_FUSED, 32, 4000, 4250);
	parse_drain(f);

	assert_int_equal(f->n.kernels, 3);
	assert_int_equal(f->n.zero_ts, 2);
	assert_int_equal(f->c.bad_records, 2);
	assert_true(isnan(f->c.sample_kernel_ns[0]));
	assert_true(f->c.sample_kernel_ns[1] == 250.0);
	const struct results_kernel *k = find_kernel(&f->c, DEMANGLED_FUSED);
	assert_non_null(k);
	assert_int_equal(k->launches, 1);
	assert_string_equal(k->family, "fused");
}

/* CUPTI may hand the correlation and its kernel back in different
 * buffers: the join waits for the drain. A drain empties the log. */
static void test_split_buffers_and_drain(void **state)
{
	struct fixture *f = *state;
	struct synth second = {.used = 0};
	add_corr(&f->s, 40, 3);
	add_corr(&f->s, 41, 4);
	add_kernel(&f->s, MANGLED_MUL, 41, 100, 130);
	add_kernel(&second, MANGLED_MUL, 40, 200, 270);
	add_corr(&second, 42, 9); /* sample 9 > max_samples 4 */
	add_kernel(&second, MANGLED_MUL, 42, 300, 310);
	cupti_log_parse(f->log, f->s.buf, f->s.used, synth_next);
	cupti_log_parse(f->log, second.buf, second.used, synth_next);
	assert_int_equal(cupti_log_drain(f->log, &f->c, &f->n, &f->d), AB_OK);

	assert_int_equal(f->n.kernels, 3);
	assert_int_equal(f->n.timed, 3);
	assert_true(f->c.sample_kernel_ns[2] == 70.0);
	assert_true(f->c.sample_kernel_ns[3] == 30.0);
	assert_int_equal(f->c.out_of_range, 1);

	/* Nothing left: a second drain adds nothing. */
	assert_int_equal(cupti_log_drain(f->log, &f->c, &f->n, &f->d), AB_OK);
	assert_int_equal(f->n.kernels, 3);
	assert_int_equal(f->c.n_kernels, 1);
	assert_int_equal(f->c.kernels[0].launches, 2);
}

/* Many samples, three kernels each (an eager chain): every sample's sum
 * and every kernel's launch count come out right. */
static void test_several_samples(void **state)
{
	struct fixture *f = *state;
	uint32_t corr = 100;
	uint64_t t = 10000;
	for (uint32_t sid = 1; sid <= 4; sid++) {
		add_kernel(&f->s, MANGLED_PROBE, corr++, t, t + 4000); /* untimed probe */
		t += 5000;
		const char *names[3] = {MANGLED_LN, MANGLED_MUL, MANGLED_MUL};
		for (int k = 0; k < 3; k++) {
			add_driver(&f->s, corr);
			add_corr(&f->s, corr, sid);
			/* kernel k of sample sid lasts 100 * sid + 10 * k ns */
			add_kernel(&f->s, names[k], corr++, t, t + 100 * sid + 10 * (uint64_t)k);
			t += 1000;
		}
	}
	parse_drain(f);

	assert_int_equal(f->n.kernels, 16);
	assert_int_equal(f->n.timed, 12);
	assert_int_equal(f->c.ignored_records, 4);
	for (int sid = 1; sid <= 4; sid++) /* 300 * sid + 0 + 10 + 20 */
		assert_true(f->c.sample_kernel_ns[sid - 1] == 300.0 * sid + 30.0);
	const struct results_kernel *ln = find_kernel(&f->c, DEMANGLED_LN);
	const struct results_kernel *mul = find_kernel(&f->c, DEMANGLED_MUL);
	assert_non_null(ln);
	assert_non_null(mul);
	assert_int_equal(ln->launches, 4);
	assert_int_equal(mul->launches, 8);
	assert_true(ln->total_ns == 1000.0);             /* 100 + 200 + 300 + 400 */
	assert_true(mul->total_ns == 2000.0 + 4 * 30.0); /* 2 * 1000 + (10 + 20) * 4 */
}

/* An invalid record stops the walk of that buffer: what came before is
 * kept, the buffer is counted bad, nothing crashes. */
static void test_invalid_record(void **state)
{
	struct fixture *f = *state;
	add_corr(&f->s, 50, 1);
	add_kernel(&f->s, MANGLED_LN, 50, 10, 60);
	uint64_t junk[4] = {0, 0, 0, 0}; /* kind CUPTI_ACTIVITY_KIND_INVALID */
	put(&f->s, junk, sizeof junk);
	add_corr(&f->s, 51, 1);
	add_kernel(&f->s, MANGLED_LN, 51, 100, 900);
	parse_drain(f);

	assert_int_equal(f->n.kernels, 1);
	assert_int_equal(f->n.bad_buffers, 1);
	assert_true(f->c.sample_kernel_ns[0] == 50.0);
}

/* A NULL collector discards (records left before a slot). */
static void test_discard(void **state)
{
	struct fixture *f = *state;
	add_corr(&f->s, 60, 1);
	add_kernel(&f->s, MANGLED_LN, 60, 10, 60);
	cupti_log_parse(f->log, f->s.buf, f->s.used, synth_next);
	assert_int_equal(cupti_log_drain(f->log, NULL, &f->n, &f->d), AB_OK);
	assert_int_equal(f->n.kernels, 1);
	assert_int_equal(f->c.n_kernels, 0);
	assert_true(isnan(f->c.sample_kernel_ns[0]));
}

/* ABBENCH_CUPTI alone is tried when set: a missing file and a library
 * without CUPTI's symbols both fail cleanly with what was tried. */
static void test_load_failures(void **state)
{
	struct cupti *c = NULL;
	struct ab_diag d = {{0}};
	(void)state;
	setenv("ABBENCH_CUPTI", "/nonexistent/libcupti.so.13", 1);
	assert_int_equal(cupti_load(&c, &d), AB_ERR_BACKEND);
	assert_null(c);
	assert_non_null(strstr(d.msg, "cannot load libcupti"));
	assert_non_null(strstr(d.msg, "'/nonexistent/libcupti.so.13'"));

	setenv("ABBENCH_CUPTI", "libm.so.6", 1);
	assert_int_equal(cupti_load(&c, &d), AB_ERR_BACKEND);
	assert_non_null(strstr(d.msg, "lacks 'cuptiGetVersion'"));
	unsetenv("ABBENCH_CUPTI");
}

/* Where the toolkit's libcupti is installed, every entry point resolves
 * and the version is CUDA 13's or later (no device needed for that). */
static void test_load_toolkit_cupti(void **state)
{
	static const char path[] = "/usr/local/cuda/lib64/libcupti.so.13";
	struct cupti *c = NULL;
	struct ab_diag d = {{0}};
	(void)state;
	if (access(path, R_OK) != 0)
		skip(); /* no CUDA 13 toolkit libcupti on this machine */
	setenv("ABBENCH_CUPTI", path, 1);
	enum ab_rc rc = cupti_load(&c, &d);
	unsetenv("ABBENCH_CUPTI");
	if (rc)
		fail_msg("%s", d.msg);
	assert_string_equal(cupti_library(c), path);
	assert_true(cupti_version(c) >= 130000u);
	cupti_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_join_by_correlation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untimed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zero_timestamps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_buffers_and_drain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_several_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_discard, setup, teardown),
		cmocka_unit_test(test_load_failures),
		cmocka_unit_test(test_load_toolkit_cupti),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* !AB_HAVE_CUDA */

static void test_no_cuda(void **state)
{
	(void)state;
	skip(); /* built without nvcc: there is no CUPTI code to test */
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_cuda)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
