/*
 * test_attrib.c - demangling, families, record bins, sums and export.
 *
 * Expected demangled names were produced on the development machine with
 * binutils' c++filt. The LayerNorm symbol is the one g++ emits for
 *   template <typename T, typename T_ACC> void at::native::
 *   vectorized_layer_norm_kernel(const int, T_ACC, const T*, const T*,
 *                                const T*, T_ACC*, T_ACC*, T*)
 * instantiated for <c10::BFloat16, float> (nm on the object file), the same
 * Itanium mangling nvcc gives PyTorch's kernel. The elementwise symbol is
 * PyTorch's bf16 multiply; its demangled form is 345 characters, so the
 * stored name is its first 252 characters and "...".
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/attrib.h"

static const char LN_MANGLED[] =
	"_ZN2at6native28vectorized_layer_norm_kernelIN3c108BFloat16EfEEviT0_PKT_S7_S7_PS4_S8_PS5_";
static const char LN_DEMANGLED[] =
	"void at::native::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, "
	"c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)";
static const char MUL_MANGLED[] = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BinaryFunctorIN3c108BFloat16ES4_"
				  "S4_NS0_15binary_internal10MulFunctorIfEEEESt5arrayIPcLm3EEEEviT0_T1_";
static const char MUL_CUT[] =
	"void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
	"c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int, "
	"at::native::BinaryFunctor<c10::BFloat16, c10::BFloa...";

static void test_demangle(void **state)
{
	char buf[256], small[8];
	(void)state;
	assert_string_equal(attrib_demangle(LN_MANGLED, buf, sizeof buf), LN_DEMANGLED);
	assert_string_equal(attrib_demangle(MUL_MANGLED, buf, sizeof buf), MUL_CUT);
	assert_int_equal(strlen(buf), 255);
	assert_string_equal(attrib_demangle("_ZN2ab12_GLOBAL__N_117layer_norm_kernelIfEEvi", buf, sizeof buf),
			    "void ab::(anonymous namespace)::layer_norm_kernel<float>(int)");
	/* not mangled, or not valid: unchanged */
	assert_string_equal(attrib_demangle("cpu.layer_norm", buf, sizeof buf), "cpu.layer_norm");
	assert_string_equal(attrib_demangle("_Z@@bogus", buf, sizeof buf), "_Z@@bogus");
	assert_string_equal(attrib_demangle("abcdefghij", small, sizeof small), "abcd...");
}

static void test_family(void **state)
{
	(void)state;
	assert_string_equal(attrib_family(LN_DEMANGLED), "LayerNorm");
	assert_string_equal(attrib_family(MUL_CUT), "elementwise");
	assert_string_equal(attrib_family("void ab::layer_norm_twopass_kernel<true>(int)"), "LayerNorm two-pass");
	assert_string_equal(attrib_family("void ab::fused_layer_norm_modulate(int)"), "fused");
	assert_string_equal(attrib_family("void ab::(anonymous namespace)::layer_norm_kernel<float>(int)"), "LayerNorm");
	assert_string_equal(attrib_family("[CUDA memset]"), "memset");
	assert_string_equal(attrib_family("cudaMemsetAsync"), "memset");
	assert_string_equal(attrib_family("void ab::l2_flush_kernel(char*)"), "harness");
	assert_string_equal(attrib_family("ab_spin_kernel"), "harness");
	assert_string_equal(attrib_family("throttle_probe"), "harness");
	assert_string_equal(attrib_family("void cutlass::Kernel<gemm>(Params)"), "other");
	/* the block's GEMMs and attention, as CUPTI names them on the H200 */
	assert_string_equal(attrib_family("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT"), "GEMM");
	assert_string_equal(attrib_family("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"), "GEMM");
	assert_string_equal(attrib_family("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128"
					  "_4x1x1_cga1x1x1_kernel0_0"),
			    "attention");
	assert_string_equal(attrib_family("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128>>(Params)"),
			    "attention");
	assert_string_equal(attrib_family("fmha_cutlassF_bf16_aligned_64x128_rf_sm80(Params)"), "attention");
	/* only the function name counts, not its template arguments */
	assert_string_equal(attrib_family("void at::native::elementwise_kernel<128, fused_lambda>(int)"), "elementwise");
	assert_string_equal(attrib_family("void at::native::unrolled<layer_norm_functor>(int)"), "other");
}

/* The short operation names of chart labels, from the names the two
 * backends record (the CUDA ones as PyTorch's kernels demangle). */
static void test_operation(void **state)
{
	char buf[64], small[4];
	(void)state;
	assert_string_equal(attrib_operation(MUL_CUT, buf, sizeof buf), "mul");
	assert_string_equal(attrib_operation(LN_DEMANGLED, buf, sizeof buf), "layer_norm");
	assert_string_equal(attrib_operation("void at::native::vectorized_elementwise_kernel<4, at::native::"
					     "CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int)", buf, sizeof buf),
			    "add");
	assert_string_equal(attrib_operation("void at::native::elementwise_kernel<128, 4, at::native::AUnaryFunctor<"
					     "float, float, float, at::native::binary_internal::MulFunctor<float> > >(int)",
					     buf, sizeof buf), "mul");
	assert_string_equal(attrib_operation("cpu_elementwise_mul_broadcast", buf, sizeof buf), "mul_broadcast");
	assert_string_equal(attrib_operation("cpu_vectorized_layer_norm_kernel", buf, sizeof buf), "layer_norm");
	assert_string_equal(attrib_operation("cpu_fused_ln_modulate", buf, sizeof buf), "ln_modulate");
	/* abbench's own CUDA kernels, as CUPTI names them */
	assert_string_equal(attrib_operation("void ab_eager_elementwise_kernel<128, 4, ab_ew_mul>(int, ab_offset_calc, "
					     "ab_ew_mul, char*, char const*, char const*)", buf, sizeof buf), "mul");
	assert_string_equal(attrib_operation("void ab_eager_vectorized_elementwise_kernel<8, ab_ew_add_one>(int, "
					     "ab_ew_add_one, unsigned short*)", buf, sizeof buf), "add_one");
	assert_string_equal(attrib_operation("ab_eager_vectorized_layer_norm_kernel(int, float, float*)", buf, sizeof buf),
			    "layer_norm");
	assert_string_equal(attrib_operation("void ab_fused_ln_modulate_layout_kernel<8, 8, 128, false, false>(lnv_args)",
					     buf, sizeof buf), "ln_modulate_layout");
	assert_string_equal(attrib_operation("void ln_modulate_fused_r1h<128>(bf16 const*)", buf, sizeof buf),
			    "ln_modulate_fused_r1h");
	assert_string_equal(attrib_operation("at::native::elementwise_kernel<128, fused_lambda>", buf, sizeof buf),
			    "elementwise");
	assert_string_equal(attrib_operation("cpu_fused_ln_modulate", small, sizeof small), "ln_");
}

static void test_records_and_sums(void **state)
{
	struct attrib_collector c;
	struct ab_diag d = { { 0 } };
	(void)state;
	assert_int_equal(attrib_init(&c, 4, &d), AB_OK);
	/* sample 1: LN 100 ns + MUL 30 ns; sample 2: LN 120 ns twice; sample 3:
	 * nothing; sample 4: MUL 50 ns */
	assert_int_equal(attrib_add(&c, LN_MANGLED, 1000, 1100, 1, &d), AB_OK);
	assert_int_equal(attrib_add(&c, MUL_MANGLED, 1100, 1130, 1, &d), AB_OK);
	assert_int_equal(attrib_add(&c, LN_MANGLED, 2000, 2120, 2, &d), AB_OK);
	assert_int_equal(attrib_add(&c, LN_MANGLED, 2200, 2320, 2, &d), AB_OK);
	assert_int_equal(attrib_add(&c, MUL_MANGLED, 4000, 4050, 4, &d), AB_OK);
	/* bad: zero start, zero end, reversed; untimed; out of range */
	assert_int_equal(attrib_add(&c, LN_MANGLED, 0, 10, 1, &d), AB_OK);
	assert_int_equal(attrib_add(&c, LN_MANGLED, 10, 0, 1, &d), AB_OK);
	assert_int_equal(attrib_add(&c, LN_MANGLED, 20, 10, 1, &d), AB_OK);
	assert_int_equal(attrib_add(&c, "flush", 5, 10, ATTRIB_UNTIMED, &d), AB_OK);
	assert_int_equal(attrib_add(&c, "flush", 0, 0, ATTRIB_UNTIMED, &d), AB_OK);
	assert_int_equal(attrib_add(&c, LN_MANGLED, 5, 10, 5, &d), AB_OK);
	assert_int_equal(c.bad_records, 3);
	assert_int_equal(c.ignored_records, 2);
	assert_int_equal(c.out_of_range, 1);

	assert_int_equal(c.n_kernels, 2);
	const struct results_kernel *ln = &c.kernels[0], *mul = &c.kernels[1];
	assert_string_equal(ln->name, LN_DEMANGLED);
	assert_string_equal(ln->family, "LayerNorm");
	assert_int_equal(ln->launches, 3);
	assert_true(ln->total_ns == 340 && ln->min_ns == 100 && ln->max_ns == 120);
	assert_string_equal(mul->name, MUL_CUT);
	assert_string_equal(mul->family, "elementwise");
	assert_int_equal(mul->launches, 2);
	assert_true(mul->total_ns == 80 && mul->min_ns == 30 && mul->max_ns == 50);
	assert_true(c.sample_kernel_ns[0] == 130 && c.sample_kernel_ns[1] == 240);
	assert_true(isnan(c.sample_kernel_ns[2]) && c.sample_kernel_ns[3] == 50);
	attrib_free(&c);
}

static void test_export_and_reset(void **state)
{
	struct attrib_collector c;
	struct ab_diag d = { { 0 } };
	struct results_slot slot;
	(void)state;
	memset(&slot, 0, sizeof slot);
	assert_int_equal(attrib_init(&c, 3, &d), AB_OK);
	attrib_add(&c, "cpu.fused", 10, 25, 1, &d);
	attrib_add(&c, "cpu.fused", 30, 40, 3, &d);
	attrib_add(&c, "cpu.fused", 50, 40, 3, &d);  /* bad */
	attrib_add(&c, "cpu.fused", 50, 60, 9, &d);  /* out of range */
	/* four samples kept although the collector knew three: the fourth is NAN */
	slot.n_samples = 4;
	assert_int_equal(attrib_export(&c, &slot, &d), AB_OK);
	assert_int_equal(slot.n_kernels, 1);
	assert_non_null(slot.kernels);
	assert_string_equal(slot.kernels[0].name, "cpu.fused");
	assert_string_equal(slot.kernels[0].family, "fused");
	assert_true(slot.kernels[0].total_ns == 25);
	assert_int_equal(slot.kernel_records_bad, 2);
	assert_true(slot.kernel_ns[0] == 15 && isnan(slot.kernel_ns[1]) && slot.kernel_ns[2] == 10);
	assert_true(isnan(slot.kernel_ns[3]));
	assert_null(c.kernels);
	assert_int_equal(c.n_kernels, 0);

	/* the next slot starts clean and the collector grows a new table */
	attrib_reset(&c);
	assert_int_equal(c.bad_records + c.out_of_range + c.ignored_records, 0);
	assert_true(isnan(c.sample_kernel_ns[0]));
	assert_int_equal(attrib_add(&c, "cpu.elementwise_mul", 1, 2, 2, &d), AB_OK);
	assert_int_equal(c.n_kernels, 1);
	assert_true(c.sample_kernel_ns[1] == 1);
	free(slot.kernels);
	free(slot.kernel_ns);
	attrib_free(&c);
}

static void test_many_kernels_grow(void **state)
{
	struct attrib_collector c;
	struct ab_diag d = { { 0 } };
	char name[32];
	(void)state;
	assert_int_equal(attrib_init(&c, 1, &d), AB_OK);
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof name, "k%d", i);
		assert_int_equal(attrib_add(&c, name, 1, 1 + (uint64_t)i, 1, &d), AB_OK);
	}
	assert_int_equal(c.n_kernels, 40);
	assert_string_equal(c.kernels[39].name, "k39");
	assert_true(c.sample_kernel_ns[0] == 780); /* 0 + 1 + ... + 39 */
	attrib_free(&c);
	assert_int_equal(attrib_init(&c, -1, &d), AB_ERR_INTERNAL);
	attrib_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_operation),
		cmocka_unit_test(test_records_and_sums),
		cmocka_unit_test(test_export_and_reset),
		cmocka_unit_test(test_many_kernels_grow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
