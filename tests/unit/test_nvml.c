/*
 * test_nvml.c - NVML's absence is not an error: a missing library, a
 * library without NVML's symbols and an unknown PCI bus id all give a NULL
 * handle with the reason, and reading clocks through a NULL handle yields
 * clocks marked invalid. The reading path itself needs a GPU (the lead's
 * runs on the H200 cover it through test_backend_cuda's GPU tests).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#if AB_HAVE_CUDA

#include "backend/cuda/nvml.h"

static void test_missing_library(void **state)
{
	char why[256] = "";
	(void)state;
	setenv("ABBENCH_NVML", "/nonexistent/libnvidia-ml.so.1", 1);
	struct nvml *n = nvml_open("0000:3b:00.0", why, sizeof why);
	unsetenv("ABBENCH_NVML");
	assert_null(n);
	assert_non_null(strstr(why, "cannot load nvml library '/nonexistent/libnvidia-ml.so.1'"));
}

static void test_library_without_nvml(void **state)
{
	char why[256] = "";
	(void)state;
	setenv("ABBENCH_NVML", "libm.so.6", 1);
	struct nvml *n = nvml_open("0000:3b:00.0", why, sizeof why);
	unsetenv("ABBENCH_NVML");
	assert_null(n);
	assert_string_equal(why, "nvml library 'libm.so.6' lacks 'nvmlInit_v2'");
}

/* With the default library: absent here (no driver), or present on a GPU
 * machine where no device sits at this bus id. NULL either way. */
static void test_default_library_bogus_device(void **state)
{
	char why[256] = "";
	(void)state;
	unsetenv("ABBENCH_NVML");
	struct nvml *n = nvml_open("ffff:ff:1f.7", why, sizeof why);
	assert_null(n);
	assert_true(strstr(why, "libnvidia-ml.so.1") || strstr(why, "ffff:ff:1f.7"));
}

static void test_read_without_nvml(void **state)
{
	struct results_clocks c;
	struct ab_diag d = {{0}};
	(void)state;
	memset(&c, 0x5a, sizeof c); /* garbage that must be cleared */
	assert_int_equal(nvml_read(NULL, &c, &d), AB_OK);
	assert_false(c.valid);
	assert_int_equal(c.sm_mhz, 0);
	assert_int_equal(c.mem_mhz, 0);
	assert_int_equal(c.throttle_reasons, 0);
	assert_int_equal(c.temp_c, 0);
	assert_string_equal(d.msg, "");
	assert_string_equal(nvml_driver_version(NULL), "");
	nvml_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_library),
		cmocka_unit_test(test_library_without_nvml),
		cmocka_unit_test(test_default_library_bogus_device),
		cmocka_unit_test(test_read_without_nvml),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* !AB_HAVE_CUDA */

static void test_no_cuda(void **state)
{
	(void)state;
	skip(); /* built without nvcc: nvml.c is not compiled */
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_cuda)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
